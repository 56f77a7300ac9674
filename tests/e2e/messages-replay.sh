#!/bin/sh
# messages-replay.sh — the messages suite replayed from llama-server's real
# Anthropic Messages traffic (suites/recordings/llama-server-messages,
# tiny-reasoner.gguf): every case's verdict, and the deviations its README
# lists each a named finding; the Message the results rebuild; then
# `oacheck check` on one of those exchanges as captured, without its
# request.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
REC="$OACHECK_SRCDIR/suites/recordings/llama-server-messages"
SUITE="$OACHECK_SRCDIR/suites/protocols/messages.json"

cat > "$TMP/expected" <<'EOV'
PASS messages/plain
PASS messages/plain-stream
PASS messages/system-string-stream
PASS messages/system-blocks-stream
PASS messages/system-item-in-messages-stream
PASS messages/multi-turn-stream
PASS messages/tools-auto-stream
PASS messages/tools-any-stream
FAIL messages/tools-named-stream
FAIL messages/tools-none-stream
FAIL messages/tools-disable-parallel-stream
PASS messages/tools-non-stream
PASS messages/tool-round-trip-stream
PASS messages/tool-result-error-stream
PASS messages/thinking-stream
PASS messages/thinking-history-stream
PASS messages/stop-sequences-stream
PASS messages/max-tokens-stream
PASS messages/claude-code-headers-stream
FAIL messages/invalid-no-messages
FAIL messages/invalid-block-type
SKIP messages/no-max-tokens
PASS messages/count-tokens
PASS messages/count-tokens-tool-history-stream
PASS messages/count-tokens-plain
EOV
sort "$TMP/expected" > "$TMP/expected.sorted"

expect_status 1 "$OACHECK" run "$SUITE" --replay "$REC" --json "$TMP/r.json"
verdicts "$TMP/out" > "$TMP/got"
cmp -s "$TMP/got" "$TMP/expected.sorted" || { diff -u "$TMP/expected.sorted" "$TMP/got" >&2; fail "verdicts differ"; }
expect_grep '^25 cases: 19 passed, 5 failed, 0 errors, 1 skipped' "$TMP/out"
expect_grep "MESSAGES-TOOL-CHOICE error: tool_choice names 'get_weather' but the answer calls 'get_time'" "$TMP/out"
expect_grep 'MESSAGES-TOOL-CHOICE error: tool_choice \{"type": "none"\} was asked' "$TMP/out"
expect_grep 'MESSAGES-PARALLEL error: disable_parallel_tool_use was asked but the answer makes 2 tool calls' "$TMP/out"
expect_grep 'MESSAGES-INVALID-REQUEST error: a request without messages is answered 500' "$TMP/out"
pass "the messages suite on llama-server's recordings: 25 verdicts as the recordings warrant"

# Will my agent work?  Claude Code reads llama-server's Messages answers
# (a tool_use start without input, blocks left open: measured fine); a
# stream with a delta for a block never started makes it ask again
# without streaming, which fails the case on the rule behind it
expect_grep '^Will my agent work\? \(llama-server-messages\)$' "$TMP/out"
expect_grep '^  claude-code 2\.1\.332 \(messages\) ok 23, the server.s error shown 1, BREAKS 0, limit 0$' "$TMP/out"
expect_status 0 "$OACHECK" validate "$OACHECK_SRCDIR/schemas/results.schema.json" "$TMP/r.json"
CC="$OACHECK_SRCDIR/tests/data/crafted/agents/claude-code"
expect_status 1 "$OACHECK" check --request "$CC/claude-code-delta-unstarted-stream.request.json" "$CC/claude-code-delta-unstarted-stream.response.http"
expect_grep '^  \[error\] CLIENT-BREAKS: claude-code 2\.1\.332 \(agent, measured\): the stream breaks on MESSAGES-BLOCK-ORDER' "$TMP/out"
expect_status 0 "$OACHECK" check --request "$CC/claude-code-overloaded-stream.request.json" "$CC/claude-code-overloaded-stream.response.http"
expect_grep "^  agent claude-code: its limitation, the stream's error event is never shown" "$TMP/out"
pass "Will my agent work?: Claude Code's verdict per answer; a broken stream fails the case"

# the suite by its name, with no target: the shipped Messages recordings
expect_status 1 "$OACHECK" run messages
expect_grep '^25 cases: 19 passed, 5 failed, 0 errors, 1 skipped' "$TMP/out"
expect_grep '^  claude-code 2\.1\.332 \(messages\) ok 23, the server.s error shown 1, BREAKS 0, limit 0$' "$TMP/out"
pass "oacheck run messages: the shipped recordings with no target"

# what llama-server's streams show
for rule in MESSAGES-BLOCK-OVERLAP MESSAGES-TOOL-INPUT MESSAGES-STOP-REASON MESSAGES-ERROR-SHAPE; do
  grep -q "\"rule\":[[:space:]]*\"$rule\"" "$TMP/r.json" || fail "no $rule finding in the results"
done
for rule in MESSAGES-STOP MESSAGES-START MESSAGES-BLOCK-INDEX MESSAGES-BLOCK-ORDER MESSAGES-EVENT-TYPE; do
  grep -q "\"rule\":[[:space:]]*\"$rule\"" "$TMP/r.json" && fail "$rule on llama-server's well-ordered streams"
done
pass "llama-server's deviations are named findings, its clean parts are not"

# the results carry the Message a client rebuilds from the stream
flat_grep() { tr -d '\n' < "$1" | grep -q "$2"; }
flat_grep "$TMP/r.json" '"type":[[:space:]]*"tool_use",[[:space:]]*"id":[[:space:]]*"[^"]*",[[:space:]]*"name":[[:space:]]*"get_weather",[[:space:]]*"input":[[:space:]]*{[[:space:]]*"location":[[:space:]]*"Oslo"' ||
  fail "the rebuilt Message of tools-auto-stream lacks its get_weather call"
pass "the results hold the rebuilt Message with its tool_use block"

# oacheck check on a captured Messages exchange: a cassette, and a rule
# file's body without its request (told from its events)
expect_status 0 "$OACHECK" check "$REC/messages.tools-auto-stream.cassette.gz"
expect_grep 'MESSAGES-TOOL-INPUT' "$TMP/out"
sed '1,/^--- response/d' "$OACHECK_SRCDIR/tests/rules/MESSAGES-BLOCK-OVERLAP/llama-server-blocks-open-to-the-end.test" > "$TMP/capture.http"
expect_status 0 "$OACHECK" check "$TMP/capture.http"
expect_grep 'POST /v1/messages' "$TMP/out"
expect_grep 'MESSAGES-BLOCK-OVERLAP' "$TMP/out"
expect_no_grep 'STREAM-CHUNK-SCHEMA' "$TMP/out"
pass "oacheck check reads captured Messages exchanges, with or without the request"

# a system item inside messages on a Qwen3.5 template: refused on every
# request (tests/data/recordings/llama-server-messages-qwen35), while the
# model's own template above answers it
Q35="$OACHECK_SRCDIR/tests/data/recordings/llama-server-messages-qwen35"
expect_status 1 "$OACHECK" run "$SUITE" --replay "$Q35" --filter 'messages/system-*'
expect_grep '^FAIL .*messages/system-item-in-messages-stream' "$TMP/out"
expect_grep '^PASS .*messages/system-string-stream' "$TMP/out"
expect_grep 'HTTP-STATUS error: expected HTTP 200, got 500' "$TMP/out"
expect_grep 'System message must be at the beginnin' "$TMP/out"
pass "a system item inside messages: refused by the Qwen3.5 template, answered by the model's own"

# live (against serve): the case's reproduce command sends the key as
# Anthropic's SDK does, from $ANTHROPIC_API_KEY, never its value
serve_start "$REC"
URL=$(sed -n '1s/^listening on //p' "$SERVE_OUT")
ANTHROPIC_API_KEY=sk-ant-oacheck-e2e-secret
export ANTHROPIC_API_KEY
expect_status 0 "$OACHECK" run messages --target "$URL" --filter 'messages/plain' --json "$TMP/live.json"
expect_grep 'x-api-key: \$ANTHROPIC_API_KEY' "$TMP/live.json"
expect_grep "anthropic-version: 2023-06-01" "$TMP/live.json"
expect_no_grep 'Authorization: Bearer' "$TMP/live.json"
expect_no_grep 'sk-ant-oacheck-e2e-secret' "$TMP/live.json"
unset ANTHROPIC_API_KEY
pass "a live Messages case: x-api-key and anthropic-version, the key never in the results"
