#!/bin/sh
# responses-replay.sh — the responses suite replayed from llama-server's
# real Responses traffic (tests/data/recordings/llama-server-responses,
# tiny-reasoner.gguf): every case's verdict, and the deviations its README
# lists each a named finding; then `oacheck check` on one of those
# exchanges, as captured, and the Response the results rebuild from it;
# and the same verdicts live against `oacheck serve` serving them.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
REC="$OACHECK_SRCDIR/tests/data/recordings/llama-server-responses"
SUITE="$OACHECK_SRCDIR/suites/protocols/responses.json"

cat > "$TMP/expected" <<'EOV'
PASS responses/plain
PASS responses/plain-stream
PASS responses/instructions-stream
PASS responses/message-items
PASS responses/tool-auto-stream
PASS responses/tool-required
PASS responses/tool-named-stream
FAIL responses/tool-named-off-topic
PASS responses/two-calls-stream
FAIL responses/parallel-false
PASS responses/round-trip-stream
FAIL responses/text-format
PASS responses/max-output-tokens-stream
SKIP responses/previous-response-id
PASS responses/store-false
PASS responses/reasoning-effort
PASS responses/invalid-no-input
PASS responses/invalid-item-type
PASS responses/context-overflow-stream
PASS responses/input-tokens
EOV
sort "$TMP/expected" > "$TMP/expected.sorted"

expect_status 1 "$OACHECK" run "$SUITE" --replay "$REC" --json "$TMP/r.json"
verdicts "$TMP/out" > "$TMP/got"
cmp -s "$TMP/got" "$TMP/expected.sorted" || { diff -u "$TMP/expected.sorted" "$TMP/got" >&2; fail "verdicts differ"; }
expect_grep '^20 cases: 16 passed, 3 failed, 0 errors, 1 skipped' "$TMP/out"
expect_grep 'RESPONSES-TOOL-CHOICE error: tool_choice names .get_weather. but the answer calls no function' "$TMP/out"
expect_grep 'RESPONSES-PARALLEL-FALSE error: parallel_tool_calls false was asked but the answer makes 2 function calls' "$TMP/out"
expect_grep 'RESPONSES-TEXT-FORMAT error' "$TMP/out"
expect_grep 'previous-response-id \(unsupported: HTTP 400' "$TMP/out"
pass "the responses suite on llama-server's recordings: 20 verdicts as the recordings warrant"

# what every stream of llama-server shows, once per stream
for rule in RESPONSES-SEQUENCE RESPONSES-OUTPUT-INDEX RESPONSES-CONTENT-INDEX RESPONSES-CREATED \
            RESPONSES-ITEM-ORDER RESPONSES-STATUS RESPONSES-STATELESS; do
  grep -q "\"rule\":[[:space:]]*\"$rule\"" "$TMP/r.json" || fail "no $rule finding in the results"
done
grep -q '"rule":[[:space:]]*"RESPONSES-TERMINAL"' "$TMP/r.json" && fail "RESPONSES-TERMINAL on streams that end with response.completed"
pass "llama-server's deviations are named findings"

# the results carry the Response a client rebuilds from the stream
flat_grep() { tr -d '\n' < "$1" | grep -q "$2"; }
flat_grep "$TMP/r.json" '"type":[[:space:]]*"function_call",[[:space:]]*"id":[[:space:]]*"fc_[^"]*",[[:space:]]*"status":[[:space:]]*"completed",[[:space:]]*"call_id":[[:space:]]*"call_[^"]*",[[:space:]]*"name":[[:space:]]*"get_weather",[[:space:]]*"arguments":[[:space:]]*"{\\"location\\": \\"Oslo\\"}"' ||
  fail "the rebuilt Response of tool-auto-stream lacks its get_weather call"
pass "the results hold the rebuilt Response with its function call"

# oacheck check on a captured Responses exchange: a rule file, and a
# cassette of the recordings
expect_status 0 "$OACHECK" check "$OACHECK_SRCDIR/tests/rules/RESPONSES-STATUS/llama-server-length-stop-completed.test"
expect_grep 'RESPONSES-STATUS at chunk 11' "$TMP/out"
expect_status 0 "$OACHECK" check "$REC/responses.plain-stream.cassette.gz"
expect_grep 'RESPONSES-OUTPUT-INDEX at chunk 3' "$TMP/out"
pass "oacheck check reads captured Responses exchanges"

# a raw `curl -i -N` capture without its request: the protocol is told
# from the events themselves
CURL="$OACHECK_SRCDIR/tests/data/recordings/llama-server-responses-curl"
expect_status 0 "$OACHECK" check "$CURL/plain-stream.http" "$CURL/tool-stream.http" "$CURL/plain.http"
expect_grep 'plain-stream.http: a raw HTTP response \(curl -i\), POST /v1/responses' "$TMP/out"
expect_grep 'plain.http: a raw HTTP response \(curl -i\), POST /v1/responses' "$TMP/out"
expect_grep 'RESPONSES-ITEM-ORDER' "$TMP/out"
expect_no_grep 'STREAM-CHUNK-SCHEMA' "$TMP/out"
pass "a curl capture of a Responses stream is judged as one without its request"

# the same suite live against `oacheck serve` serving those recordings
# (event: lines and all): the same verdicts
serve_start "$REC"
expect_status 1 "$OACHECK" run "$SUITE" --target "$URL" --profile llama-server
verdicts "$TMP/out" > "$TMP/got"
cmp -s "$TMP/got" "$TMP/expected.sorted" || { diff -u "$TMP/expected.sorted" "$TMP/got" >&2; fail "served verdicts differ"; }
expect_grep '^20 cases: 16 passed, 3 failed, 0 errors, 1 skipped' "$TMP/out"
serve_stop
pass "oacheck serve replays the Responses streams: the same 20 verdicts live"
