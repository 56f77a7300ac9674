#!/bin/sh
# templates.sh — `oacheck templates` with no target compares the shipped
# recordings of chat templates (suites/recordings/llama-server/templates)
# and finds what their READMEs say each does: Qwen 2.5 renders everything;
# Llama 3.1 stamps the server's date and renders tool results as a JSON
# string; Mistral Nemo moves the system prompt into the last user turn,
# refuses the tool-call id call_1 and drops the system prompt after a tool
# result.  The reasoning sent back (reasoning_content): Qwen3, Qwen 3.5,
# GLM-4.7-Flash and gpt-oss keep the reasoning of the turn before a tool
# result and drop it after a user turn; QwQ and the DeepSeek-R1 templates
# drop it before a tool result (the prompt cache misses every tool round:
# named, a warning); GLM-4.7-Flash with --reasoning-preserve keeps old
# reasoning after a user turn (information); the three templates without
# reasoning read none.  Then tens of templates at once (the team's 50, when
# ../shared is there): one grid line each.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

expect_status 1 "$OACHECK" templates --json "$TMP/t.json" --junit "$TMP/t.xml"
expect_grep '^oacheck [0-9.]+: no target given: comparing the shipped template recordings' "$TMP/out"
cp "$TMP/out" "$TMP/default.out"
sed -n 's/^\(PASS\|FAIL\|SKIP\|ERROR\) *\([^ ]*\) \([^ ]*\).*/\1 \2 \3/p' "$TMP/out" | sort > "$TMP/all"
[ "$(wc -l < "$TMP/all")" -eq 77 ] || fail "$(wc -l < "$TMP/all") results, not 11 templates × 7 fixtures"
grep -E ' (Qwen-Qwen2.5-7B-Instruct|meta-llama-Llama-3.1-8B-Instruct|mistralai-Mistral-Nemo-Instruct-2407) templates/(three-turns|multiturn|tool-call|tool-call-id9|unknown-role)$' "$TMP/all" > "$TMP/got" || true
cat > "$TMP/want" <<'EOV'
FAIL mistralai-Mistral-Nemo-Instruct-2407 templates/tool-call
FAIL mistralai-Mistral-Nemo-Instruct-2407 templates/tool-call-id9
PASS Qwen-Qwen2.5-7B-Instruct templates/multiturn
PASS Qwen-Qwen2.5-7B-Instruct templates/three-turns
PASS Qwen-Qwen2.5-7B-Instruct templates/tool-call
PASS Qwen-Qwen2.5-7B-Instruct templates/tool-call-id9
PASS meta-llama-Llama-3.1-8B-Instruct templates/multiturn
PASS meta-llama-Llama-3.1-8B-Instruct templates/three-turns
PASS meta-llama-Llama-3.1-8B-Instruct templates/tool-call
PASS meta-llama-Llama-3.1-8B-Instruct templates/tool-call-id9
PASS mistralai-Mistral-Nemo-Instruct-2407 templates/multiturn
PASS mistralai-Mistral-Nemo-Instruct-2407 templates/three-turns
SKIP Qwen-Qwen2.5-7B-Instruct templates/unknown-role
SKIP meta-llama-Llama-3.1-8B-Instruct templates/unknown-role
SKIP mistralai-Mistral-Nemo-Instruct-2407 templates/unknown-role
EOV
sort "$TMP/want" > "$TMP/want.sorted"
cmp -s "$TMP/got" "$TMP/want.sorted" || { diff -u "$TMP/want.sorted" "$TMP/got" >&2; fail "template verdicts"; }
pass "15 verdicts of the first three templates as the recordings' README describes"

# the grid: a line per template, its template hash, a cell per fixture
# with the verdict and the worst finding's rule (+N more); a render of
# reasoning sent back shows what the template did with it
expect_grep '^template +sha256 +three-turns +multiturn +tool-call +tool-call-id9 +unknown-role +reasoning-then-tool +reasoning-then-user *$' "$TMP/out"
expect_grep '^Qwen-Qwen2.5-7B-Instruct +[0-9a-f]{8} +ok +ok +ok +ok +skip +ok unread +ok unread *$' "$TMP/out"
expect_grep '^meta-llama-Llama-3.1-8B-Instruct +[0-9a-f]{8} +warn SERVER-DATE +warn SERVER-DATE +warn DOUBLE-ENCODED\+1 +warn DOUBLE-ENCODED\+1 +skip +warn unread, DOUBLE-ENCODED\+1 +warn unread, SERVER-DATE *$' "$TMP/out"
expect_grep '^mistralai-Mistral-Nemo-Instruct-2407 +[0-9a-f]{8} +ok +warn SYSTEM-MOVED +FAIL TOOL-ID +FAIL SYSTEM-KEPT +skip +FAIL unread, SYSTEM-KEPT +warn unread, SYSTEM-MOVED *$' "$TMP/out"
expect_grep "tool-call id 'call_1'.*alphanumeric strings with length 9" "$TMP/out"
pass "the grid shows each template's problem"

# reasoning sent back: kept before a tool result and dropped after a user
# turn is what a reasoning template should do (ok); dropped before a tool
# result is named (a warning); old reasoning kept is information
expect_grep '^Qwen-Qwen3-0.6B +[0-9a-f]{8} +ok +ok +ok +ok +warn UNKNOWN-ROLE +ok kept +ok dropped *$' "$TMP/out"
expect_grep '^openai-gpt-oss-120b +[0-9a-f]{8} .* +warn kept, DOUBLE-ENCODED\+1 +warn dropped, SERVER-DATE *$' "$TMP/out"
expect_grep '^llama-cpp-deepseek-r1 +[0-9a-f]{8} +ok +ok +ok +ok +warn UNKNOWN-ROLE +warn dropped +ok dropped *$' "$TMP/out"
expect_grep '^Qwen-QwQ-32B +[0-9a-f]{8} .* +warn dropped +ok dropped *$' "$TMP/out"
expect_grep '^GLM-4.7-Flash +[0-9a-f]{8} .* +ok kept +ok dropped *$' "$TMP/out"
expect_grep '^GLM-4.7-Flash-reasoning-preserve +[0-9a-f]{8} .* +ok kept +info kept *$' "$TMP/out"
expect_grep '^reasoning sent back \(reasoning_content on an assistant turn\), per template:$' "$TMP/out"
expect_grep '^  drop it before a tool result, so the prompt cache misses every tool round \(TEMPLATE-REASONING-HISTORY; llama-server --reasoning-preserve where the template has the switch\): Qwen-QwQ-32B, deepseek-ai-DeepSeek-R1-Distill-Qwen-32B, llama-cpp-deepseek-r1$' "$TMP/out"
expect_grep '^  keep it after a user turn, so old reasoning stays in the context: GLM-4.7-Flash-reasoning-preserve$' "$TMP/out"
expect_grep '^  keep it before a tool result and drop it after a user turn: GLM-4.7-Flash, Qwen-Qwen3-0.6B, Qwen3.5-4B, openai-gpt-oss-120b$' "$TMP/out"
expect_grep '^  read no reasoning \(not a reasoning model.s template\): Qwen-Qwen2.5-7B-Instruct, meta-llama-Llama-3.1-8B-Instruct, mistralai-Mistral-Nemo-Instruct-2407$' "$TMP/out"
# the results: the behaviour of each render, and the finding (3 drops
# before a tool result, warnings; 1 old reasoning kept, information)
[ "$(grep -c '"followed_by": "tool"' "$TMP/t.json")" -eq 11 ] || fail "not every reasoning-then-tool render says what it did"
[ "$(grep -c '"state": "dropped"' "$TMP/t.json")" -eq 10 ] || fail "dropped: $(grep -c '"state": "dropped"' "$TMP/t.json")"
[ "$(grep -c '"rule": "TEMPLATE-REASONING-HISTORY"' "$TMP/t.json")" -eq 4 ] || fail "TEMPLATE-REASONING-HISTORY findings"
expect_grep 'reasoning-then-tool: the template drops the reasoning \(reasoning_content\) of the assistant.s turn that the tool result follows: .*prompt cache misses from that turn on at every tool round' "$TMP/t.json"
pass "the reasoning sent back: which template drops it before a tool result, which keeps it after a user turn"

if [ -n "${XMLLINT:-}" ] && [ -x "$XMLLINT" ]; then
  xsd="$(shared_dir reference/junit)/junit-10.xsd"
  "$XMLLINT" --noout --schema "$xsd" "$TMP/t.xml" 2>"$TMP/xmllint.err" || { cat "$TMP/xmllint.err" >&2; fail "the JUnit is not valid"; }
  pass "templates writes valid JUnit"
fi
"$OACHECK" validate "$OACHECK_SRCDIR/schemas/results.schema.json" "$TMP/t.json" > /dev/null || fail "the JSON results do not match the results schema"
pass "templates writes results-schema JSON"

expect_status 0 "$OACHECK" templates --show --replay "$OACHECK_SRCDIR/suites/recordings/llama-server/templates/Qwen-Qwen2.5-7B-Instruct"
expect_grep '^----- Qwen-Qwen2.5-7B-Instruct / multiturn -----' "$TMP/out"
expect_grep '<\|im_start\|>system' "$TMP/out"
pass "--show prints the rendered prompts"

# recordings that hold no render of any fixture tested nothing (a wrong
# directory): exit 2 and say so, as run does, not a green row of skips
expect_status 2 "$OACHECK" templates --replay "$OACHECK_SRCDIR/tests/data/recordings/openai"
expect_grep '^SKIP +openai templates/multiturn \(not recorded\)' "$TMP/out"
expect_grep "replay target openai: none of the 7 template fixtures has a recording in .*tests/data/recordings/openai" "$TMP/err"
expect_status 2 "$OACHECK" templates --replay "$OACHECK_SRCDIR/tests/data/recordings/openai" \
  --replay "$OACHECK_SRCDIR/suites/recordings/llama-server/templates/Qwen-Qwen2.5-7B-Instruct"
expect_no_grep 'Qwen.*none of' "$TMP/err"
pass "templates --replay of recordings with no render: exit 2, the directory named"

# a server without /apply-template (a 404 for it, as OpenAI and vLLM
# answer): unsupported, not failed.  (oacheck serve over OpenAI's
# recordings is no such server: its 404 is a miss of the recordings.)
hostile_start --default models-only
expect_status 0 "$OACHECK" templates --target "openai=$HURL"
expect_grep '^SKIP +openai templates/three-turns \(unsupported: the target has no POST /apply-template\)' "$TMP/out"
expect_no_grep '^FAIL' "$TMP/out"
kill "$HOSTILE_PID" 2>/dev/null || true
pass "a target without /apply-template is skipped as unsupported"

# oacheck serve without a recording of one render: its 404 carries
# X-Oacheck-Unmatched, a miss of the recordings (as run reads it), not a
# server without the endpoint it answered the other fixtures on
serve_start "$OACHECK_SRCDIR/suites/recordings/llama-server"
expect_status 0 "$OACHECK" templates --target "ls=$URL"
expect_grep '^SKIP +ls templates/tool-call-id9 \(not recorded\)$' "$TMP/out"
expect_grep '^PASS +ls templates/three-turns' "$TMP/out"
expect_no_grep 'the target has no POST /apply-template' "$TMP/out"
serve_stop
pass "a render oacheck serve has no recording of is 'not recorded', not unsupported"

# a server that refuses the key: every render is the HTTP failure it is
# (an error of the case, with the key to check), never the template's
# TEMPLATE-RENDER, and the unknown role's 4xx is not taken for a refusal
KEY="sk-oacheck-templates-0123456789"
hostile_start --default echo-401
OPENAI_API_KEY=$KEY; export OPENAI_API_KEY
expect_status 1 "$OACHECK" templates --target "auth=$HURL" --json "$TMP/auth.json"
for fx in three-turns multiturn tool-call tool-call-id9 unknown-role reasoning-then-tool reasoning-then-user; do
  expect_grep "^ERROR +auth templates/$fx \\(POST /apply-template answered HTTP 401: Incorrect API key provided: \\[secret\\*+\\]\\..*; is OPENAI_API_KEY \\(or the target's key_env\\) set to a key this server accepts\\?\\)$" "$TMP/out"
done
expect_grep "^target auth: GET $HURL/v1/models answered HTTP 401 \\(application/json\\): is OPENAI_API_KEY" "$TMP/out"
expect_no_grep 'TEMPLATE-RENDER|^PASS|^FAIL' "$TMP/out"
expect_grep '^7 cases: 0 passed, 0 failed, 7 errors' "$TMP/out"
if grep -q "$KEY" "$TMP/out" "$TMP/err" "$TMP/auth.json"; then fail "the key is in the output"; fi
unset OPENAI_API_KEY
expect_status 1 "$OACHECK" templates --target "auth=$HURL"
expect_grep "^ERROR +auth templates/three-turns \\(POST /apply-template answered HTTP 401: .*; OPENAI_API_KEY \\(or the target's key_env\\) is not set, so no key was sent" "$TMP/out"
kill "$HOSTILE_PID" 2>/dev/null || true
pass "a 401 for every render is an HTTP failure naming the key, not a template that cannot render"

# tens of templates at once: one grid line per template
TPL="${OACHECK_SHARED:-}/recordings/llama-server-templates"
if [ ! -d "$TPL" ] && [ "${CI:-}" = true ]; then fail "$TPL missing under CI"; fi
if [ -d "$TPL" ]; then
  set --
  for d in "$TPL"/*/; do set -- "$@" --replay "$d"; done
  [ $# -eq 100 ] || fail "expected 50 template directories under $TPL"
  expect_status 1 "$OACHECK" templates "$@" --json "$TMP/t50.json"
  sed -n '/^template  *sha256/,/^(a cell/p' "$TMP/out" > "$TMP/grid"
  [ "$(wc -l < "$TMP/grid")" -eq 52 ] || fail "the grid has $(wc -l < "$TMP/grid") lines, not 50 and a heading and a legend"
  expect_grep '^HuggingFaceTB-SmolLM3-3B +[0-9a-f]{8} +ok +ok +FAIL TOOLS-RENDERED\+2 +FAIL TOOLS-RENDERED\+2 +warn UNKNOWN-ROLE +skip +skip *$' "$TMP/grid"
  expect_grep '^Qwen3.5-4B +[0-9a-f]{8} +ok +ok +ok +ok +FAIL REFUSED +skip +skip *$' "$TMP/grid"
  # recorded before the reasoning fixtures existed: those two are not recorded
  expect_grep '^350 cases: 2[0-9][0-9] passed, [0-9]+ failed, 0 errors, 100 skipped' "$TMP/out"
  pass "50 templates at once: a grid line each"
fi
