#!/bin/sh
# check-reasoning.sh — `oacheck check` on captured reasoning streams in
# other servers' shapes (tests/data/crafted/reasoning: vLLM's `reasoning`,
# Ollama's `reasoning` beside `content: ""`, gpt-oss harmony and a think
# block left in content): each gets its named REASONING finding, the
# results carry where the reasoning came and its text, and the verdict
# follows the policy (an unparsed think block warns; Ollama's role on
# every delta breaks openai-python's stream helper).
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

D="$OACHECK_SRCDIR/tests/data/crafted/reasoning"
REQ="$D/request.json"
# the response.reasoning items of a results file, one member a line
reasoning_of() { sed -n '/"reasoning": \[{/,/}\]/p' "$1" > "$TMP/rb"; }
# what one client read of the reasoning: its "reasoning" member
client_reads() { sed -n "/\"$2\": {/,/}/p" "$1" | sed -n 's/.*"reasoning": "\([a-z]*\)".*/\1/p'; }

expect_status 0 "$OACHECK" check --request "$REQ" "$D/vllm-reasoning.http" --json "$TMP/vllm.json"
expect_grep '\[info\] REASONING-FIELD at chunk 2 \(/choices/0/delta/reasoning\).*LangChain.js reads only' "$TMP/out"
reasoning_of "$TMP/vllm.json"
expect_grep '"source": \["reasoning"\],' "$TMP/rb"
expect_grep '"order": "before",' "$TMP/rb"
expect_grep '"text": "The capital is Paris."' "$TMP/rb"
# per client, as the oracle measured: LangChain.js reads only reasoning_content,
# the Agents SDK only reasoning, openai-node's stream helper the last fragment
[ "$(client_reads "$TMP/vllm.json" langchain)" = hidden ] || fail "LangChain is said to see vLLM's reasoning"
[ "$(client_reads "$TMP/vllm.json" openai-agents-chat)" = seen ] || fail "the Agents SDK is said not to see vLLM's reasoning"
[ "$(client_reads "$TMP/vllm.json" ai-sdk)" = seen ] || fail "the ai SDK is said not to see vLLM's reasoning"
[ "$(client_reads "$TMP/vllm.json" openai-node-stream)" = partial ] || fail "openai-node's stream helper is said to keep every fragment"
pass "vLLM's reasoning field is named, rebuilt and placed before the answer; each client's view of it"

expect_status 1 "$OACHECK" check --request "$REQ" "$D/ollama-reasoning.http" --json "$TMP/ollama.json"
expect_grep 'REASONING-FIELD at chunk 1' "$TMP/out"
expect_grep 'CLIENT-BREAKS: openai-python-stream' "$TMP/out"
expect_no_grep 'REASONING-MIXED-DELTA' "$TMP/out"
reasoning_of "$TMP/ollama.json"
expect_grep '"text": "The capital is Paris."' "$TMP/rb"
pass "Ollama's reasoning beside an empty content is read; its repeated role breaks the Python helper"

for f in gpt-oss-harmony-in-content think-in-content; do
  expect_status 0 "$OACHECK" check --request "$REQ" "$D/$f.http" --json "$TMP/$f.json"
  expect_grep '\[warning\] REASONING-UNPARSED \(/choices/0/delta/content\)' "$TMP/out"
  expect_no_grep 'REASONING-MARKUP-LEAK' "$TMP/out"
done
reasoning_of "$TMP/think-in-content.json"
expect_grep '"source": \["think-tags-in-content"\],' "$TMP/rb"
expect_grep '"text": "<think>' "$TMP/rb"
reasoning_of "$TMP/gpt-oss-harmony-in-content.json"
expect_grep '"source": \["harmony-in-content"\],' "$TMP/rb"
grep -q '"reasoning_leak": true' "$TMP/think-in-content.json" || fail "no client is said to show the think block"
expect_no_grep '"reasoning_leak": false' "$TMP/think-in-content.json"
pass "markup left in content by a server without a reasoning parser is REASONING-UNPARSED, a warning; every client shows it"

# --strict: the specification's verdict makes the unparsed block no pass
expect_status 0 "$OACHECK" check --strict --request "$REQ" "$D/think-in-content.http"
expect_grep 'REASONING-UNPARSED' "$TMP/out"
pass "--strict keeps REASONING-UNPARSED a warning (its catalogue severity)"
