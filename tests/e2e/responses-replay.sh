#!/bin/sh
# responses-replay.sh — the responses suite replayed from llama-server's
# real Responses traffic (suites/recordings/llama-server-responses,
# tiny-reasoner.gguf): every case's verdict (every streamed one fails: its
# shape breaks responses.stream() and the ai SDK's Responses model, two of
# the Responses clients a run selects), and the deviations its README
# lists each a named finding; then `oacheck check` on one of those
# exchanges, as captured, and the Response the results rebuild from it;
# the same verdicts live against `oacheck serve` serving them, and
# `oacheck proxy` in front of that judging a client's exchange.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
REC="$OACHECK_SRCDIR/suites/recordings/llama-server-responses"
SUITE="$OACHECK_SRCDIR/suites/protocols/responses.json"

cat > "$TMP/expected" <<'EOV'
PASS responses/plain
FAIL responses/plain-stream
FAIL responses/instructions-stream
PASS responses/message-items
FAIL responses/tool-auto-stream
PASS responses/tool-required
FAIL responses/tool-named-stream
FAIL responses/tool-named-off-topic
FAIL responses/two-calls-stream
FAIL responses/parallel-false
FAIL responses/round-trip-stream
FAIL responses/text-format
FAIL responses/max-output-tokens-stream
SKIP responses/previous-response-id
PASS responses/store-false
PASS responses/reasoning-effort
PASS responses/invalid-no-input
PASS responses/invalid-item-type
PASS responses/context-overflow-stream
PASS responses/input-tokens
FAIL responses/input-tokens-tool-history-stream
PASS responses/input-tokens-plain
EOV
sort "$TMP/expected" > "$TMP/expected.sorted"

expect_status 1 "$OACHECK" run "$SUITE" --replay "$REC" --json "$TMP/r.json"
verdicts "$TMP/out" > "$TMP/got"
cmp -s "$TMP/got" "$TMP/expected.sorted" || { diff -u "$TMP/expected.sorted" "$TMP/got" >&2; fail "verdicts differ"; }
expect_grep '^22 cases: 10 passed, 11 failed, 0 errors, 1 skipped' "$TMP/out"
expect_grep 'RESPONSES-TOOL-CHOICE error: tool_choice names .get_weather. but the answer calls no function' "$TMP/out"
expect_grep 'RESPONSES-PARALLEL-FALSE error: parallel_tool_calls false was asked but the answer makes 2 function calls' "$TMP/out"
expect_grep 'RESPONSES-TEXT-FORMAT error' "$TMP/out"
expect_grep 'previous-response-id \(unsupported: HTTP 400' "$TMP/out"
expect_grep 'CLIENT-BREAKS error: openai-node-responses-stream raises \(verified\): OpenAIError: "missing output at index undefined"' "$TMP/out"
tr -d '\n ' < "$TMP/r.json" | grep -q '"ai-sdk-responses":{"works":false,"outcome":"raises","reason":"TypeValidationError' ||
  fail "the results do not carry the ai SDK's break on llama-server's streams"
tr -d '\n ' < "$TMP/r.json" | grep -q '"clients":{"openai-node-responses":{"works":true' ||
  fail "the results do not carry the Responses clients' verdicts"
pass "the responses suite on llama-server's recordings: 20 verdicts as the recordings warrant"

# what every stream of llama-server shows, once per stream
for rule in RESPONSES-SEQUENCE RESPONSES-OUTPUT-INDEX RESPONSES-CONTENT-INDEX RESPONSES-CREATED \
            RESPONSES-ITEM-ORDER RESPONSES-STATUS RESPONSES-STATELESS; do
  grep -q "\"rule\":[[:space:]]*\"$rule\"" "$TMP/r.json" || fail "no $rule finding in the results"
done
grep -q '"rule":[[:space:]]*"RESPONSES-TERMINAL"' "$TMP/r.json" && fail "RESPONSES-TERMINAL on streams that end with response.completed"
pass "llama-server's deviations are named findings"

# Will my agent work?  llama-server's shape leaves Codex whole (its .done
# events come late, but they come): every streamed answer works
expect_grep '^Will my agent work\? \(llama-server-responses\)$' "$TMP/out"
expect_grep '^  codex 0\.171\.0 \(responses\)  *ok 8, BREAKS 0, limit 0$' "$TMP/out"
[ "$(tr -d '\n ' < "$TMP/r.json" | grep -o '"agents":{"codex":{"works":true' | wc -l)" -eq 8 ] ||
  fail "the results do not carry Codex's 8 verdicts of works"
expect_status 0 "$OACHECK" validate "$OACHECK_SRCDIR/schemas/results.schema.json" "$TMP/r.json"
# a stream without output_item.done: Codex prints nothing, the case fails
# on the rule behind it, and --clients without codex makes it a warning
C="$OACHECK_SRCDIR/tests/data/crafted/agents/codex"
expect_status 1 "$OACHECK" check --request "$C/codex.no-output-item-done.request.json" "$C/codex.no-output-item-done.response.http"
expect_grep '^  \[error\] RESPONSES-ITEM-DONE' "$TMP/out"
expect_grep '^  \[error\] CLIENT-BREAKS: codex 0\.171\.0 \(agent, measured\): exits 0 and prints nothing' "$TMP/out"
expect_grep '^  agent codex: BREAKS, exits 0 and prints nothing' "$TMP/out"
expect_status 0 "$OACHECK" check --clients all,codex --clients openai-node --request "$C/codex.text.request.json" "$C/codex.text.response.http"
expect_status 0 "$OACHECK" check --clients openai-node --request "$C/codex.no-output-item-done.request.json" "$C/codex.no-output-item-done.response.http"
expect_grep '^  \[warning\] RESPONSES-ITEM-DONE' "$TMP/out"
expect_grep '^  \[info\] CLIENT-BREAKS: codex .*; not selected \(--clients\)' "$TMP/out"
pass "Will my agent work?: Codex's verdict per stream, and its break fails the case unless unselected"

# the suite by its name, with no target: the shipped Responses recordings
expect_status 1 "$OACHECK" run responses --html "$TMP/r.html" --junit "$TMP/r.xml"
expect_grep 'no target given: replaying the shipped llama-server Responses API recordings' "$TMP/out"
expect_grep '<section id="agents">' "$TMP/r.html"
expect_grep '<testsuite name="Will my agent work\? \(llama-server\)" package="llama-server" id="[0-9]+" tests="1" failures="0"' "$TMP/r.xml"
expect_grep '<testcase name="codex" classname="Will my agent work\? \(llama-server\)"' "$TMP/r.xml"
expect_grep '<tr><th>codex 0\.171\.0 \(responses\)</th><td>8</td><td>0</td><td class="cl cl-works">0</td>' "$TMP/r.html"
expect_grep '^22 cases: 10 passed, 11 failed, 0 errors, 1 skipped' "$TMP/out"
expect_grep '^  codex 0\.171\.0 \(responses\)  *ok 8, BREAKS 0, limit 0$' "$TMP/out"
pass "oacheck run responses: the shipped recordings with no target"

# the results carry the Response a client rebuilds from the stream
flat_grep() { tr -d '\n' < "$1" | grep -q "$2"; }
flat_grep "$TMP/r.json" '"type":[[:space:]]*"function_call",[[:space:]]*"id":[[:space:]]*"fc_[^"]*",[[:space:]]*"status":[[:space:]]*"completed",[[:space:]]*"call_id":[[:space:]]*"call_[^"]*",[[:space:]]*"name":[[:space:]]*"get_weather",[[:space:]]*"arguments":[[:space:]]*"{\\"location\\": \\"Oslo\\"}"' ||
  fail "the rebuilt Response of tool-auto-stream lacks its get_weather call"
pass "the results hold the rebuilt Response with its function call"

# oacheck check on a captured Responses exchange: a rule file, and a
# cassette of the recordings
# (both fail: llama-server's shape breaks responses.stream())
expect_status 1 "$OACHECK" check "$OACHECK_SRCDIR/tests/rules/RESPONSES-STATUS/llama-server-length-stop-completed.test"
expect_grep 'RESPONSES-STATUS at chunk 11' "$TMP/out"
expect_status 1 "$OACHECK" check "$REC/responses.plain-stream.cassette.gz"
expect_grep 'RESPONSES-OUTPUT-INDEX at chunk 3' "$TMP/out"
expect_grep '^  \[error\] CLIENT-BREAKS: openai-node-responses-stream raises \(verified\)' "$TMP/out"
pass "oacheck check reads captured Responses exchanges"

# a raw `curl -i -N` capture without its request: the protocol is told
# from the events themselves
CURL="$OACHECK_SRCDIR/tests/data/recordings/llama-server-responses-curl"
expect_status 1 "$OACHECK" check "$CURL/plain-stream.http" "$CURL/tool-stream.http" "$CURL/plain.http"
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
expect_grep '^22 cases: 10 passed, 11 failed, 0 errors, 1 skipped' "$TMP/out"

# and `oacheck proxy` in front of it judges a client's Responses traffic:
# the named tool_choice answered with text fails its contract
if command -v curl >/dev/null 2>&1; then
  recorded_request "$REC/responses.tool-named-off-topic.cassette.gz" "$TMP/named.json"
  # record --show's note, not the body
  grep -v '^(no newline at the end)$' "$TMP/named.json" > "$TMP/named.body" || true
  proxy_start "$URL" --profile llama-server --json "$TMP/proxy.json"
  curl -s -o "$TMP/named.out" -H 'Content-Type: application/json' --data-binary @"$TMP/named.body" \
    "$PURL/v1/responses" || fail "curl through the proxy failed"
  grep -q '"type":"message"' "$TMP/named.out" || fail "the proxy did not pass the answer on"
  wait_until "the proxy did not judge the exchange" grep -q 'proxy/POST /v1/responses' "$PROXY_OUT"
  # a first request longer than the context (llama-server's 400
  # exceed_context_size_error): no client can shorten a first turn, so the
  # deployment is too small for this client, said with the fix
  recorded_request "$REC/responses.context-overflow-stream.cassette.gz" "$TMP/big.json"
  grep -v '^(no newline at the end)$' "$TMP/big.json" > "$TMP/big.body" || true
  curl -s -o "$TMP/big.out" -H 'Content-Type: application/json' --data-binary @"$TMP/big.body" \
    "$PURL/v1/responses" || fail "curl through the proxy failed"
  wait_until "the proxy did not judge the second exchange" grep -q 'proxy/POST /v1/responses #2' "$PROXY_OUT"
  proxy_stop 1
  expect_grep '^FAIL .*proxy/POST /v1/responses #1' "$PROXY_OUT"
  expect_grep 'RESPONSES-TOOL-CHOICE error' "$PROXY_OUT"
  expect_grep "REQUEST-CONTEXT error: the client's first request is 5010 tokens and the target's context 4096 .*--override-kv llama.context_length=int:N with -c N" "$PROXY_OUT"
  # the proxy's results render like a run's
  expect_status 0 "$OACHECK" report render "$TMP/proxy.json"
  expect_grep '^2 cases: 0 pass, 2 fail' "$TMP/out"
  pass "oacheck proxy judges a client's Responses exchange, and a first turn the context cannot hold"

  # serve's drop-terminal fault: the stream without response.completed,
  # which leaves Codex retrying and failing; check says so
  recorded_request "$REC/responses.plain-stream.cassette.gz" "$TMP/plain.json"
  grep -v '^(no newline at the end)$' "$TMP/plain.json" > "$TMP/plain.body" || true
  curl -s -i -o "$TMP/dt.http" -H 'Content-Type: application/json' -H 'X-Oacheck-Case: responses.plain-stream' \
    -H 'X-Oacheck-Fault: drop-terminal' --data-binary @"$TMP/plain.body" "$URL/v1/responses" ||
    fail "curl to serve failed"
  grep -q 'response.output_text.delta' "$TMP/dt.http" || fail "drop-terminal dropped more than the last word"
  grep -q 'response.completed' "$TMP/dt.http" && fail "drop-terminal left response.completed in"
  expect_status 1 "$OACHECK" check --request "$TMP/plain.body" "$TMP/dt.http" --junit "$TMP/dt.xml"
  expect_grep '<failure type="CLIENT-BREAKS" message="codex 0\.171\.0 breaks on 1 exchange, first: retries 5 times' "$TMP/dt.xml"
  expect_grep '^  \[error\] RESPONSES-TERMINAL' "$TMP/out"
  expect_grep '^  agent codex: BREAKS, retries 5 times, then exits 1' "$TMP/out"
  pass "serve --fault drop-terminal: a Responses stream without its terminal event breaks Codex"
fi
serve_stop
pass "oacheck serve replays the Responses streams: the same 20 verdicts live"
