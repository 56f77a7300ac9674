#!/bin/sh
# count-tokens.sh — the count contract end to end, replayed through
# `oacheck serve` and from the recordings: a case with expect.count_tokens
# sends its request's count to the protocol's counting endpoint beside
# it, and the count must equal the input the answer reports.  Crafted
# exchanges: a Messages answer whose input is partly cached (input_tokens
# 20 + cache_read_input_tokens 30) counted 50 (holds) and counted 42
# (MESSAGES-COUNT-TOKENS, both numbers and the blocks the request holds);
# a Responses server without /v1/responses/input_tokens (404:
# RESPONSES-INPUT-TOKENS); a count nobody recorded (no count verdict).
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
RAW="$TMP/raw"
mkdir -p "$RAW"

# raw NAME PATH REQUEST_BODY STATUS RESPONSE_BODY: one exchange in $RAW
raw() {
  printf '%s' "$3" >"$RAW/$1.request.json"
  printf 'HTTP/1.1 %s X\r\nContent-Type: application/json\r\nContent-Length: %s\r\n\r\n%s' \
    "$4" "$(printf '%s' "$5" | wc -c)" "$5" >"$RAW/$1.response.http"
  printf '%s"%s": {"method": "POST", "path": "%s", "request_body": true}' "$sep" "$1" "$2" >>"$RAW/index.json"
  sep=", "
}
TOOLS='[{"name":"get_weather","description":"Get the weather","input_schema":{"type":"object","properties":{"location":{"type":"string"}}}}]'
HIST='[{"role":"user","content":"What is the weather in Oslo?"},{"role":"assistant","content":[{"type":"thinking","thinking":"I call get_weather.","signature":"s"},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location":"Oslo"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"21 degrees"}]}]'
MSG='{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"It is 21 degrees in Oslo."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":20,"cache_read_input_tokens":30,"cache_creation_input_tokens":0,"output_tokens":9}}'
# the case's request, and the count request oacheck derives from it (the
# members count_tokens takes; key order does not matter to the request key)
body() { printf '{"model":"m","max_tokens":64,"system":"%s","tools":%s,"messages":%s}' "$1" "$TOOLS" "$HIST"; }
count() { printf '{"model":"m","system":"%s","tools":%s,"messages":%s}' "$1" "$TOOLS" "$HIST"; }
RESP='{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"m","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Tokyo.","annotations":[]}]}],"usage":{"input_tokens":14,"output_tokens":2,"total_tokens":16,"input_tokens_details":{"cached_tokens":0},"output_tokens_details":{"reasoning_tokens":0}}}'

printf '{' >"$RAW/index.json"
sep=""
raw holds /v1/messages "$(body A)" 200 "$MSG"
raw holds.count /v1/messages/count_tokens "$(count A)" 200 '{"input_tokens":50}'
raw differs /v1/messages "$(body B)" 200 "$MSG"
raw differs.count /v1/messages/count_tokens "$(count B)" 200 '{"input_tokens":42}'
raw uncounted /v1/messages "$(body C)" 200 "$MSG"
raw no-endpoint /v1/responses '{"model":"m","input":"What is the capital of Japan?","instructions":"Answer briefly.","max_output_tokens":16}' 200 "$RESP"
raw no-endpoint.count /v1/responses/input_tokens '{"model":"m","input":"What is the capital of Japan?","instructions":"Answer briefly."}' 404 '{"error":{"message":"not found","type":"not_found_error"}}'
printf '}\n' >>"$RAW/index.json"

{
  printf '{"suite": "count", "description": "the count contract", "cases": ['
  for n in holds:A differs:B uncounted:C; do
    printf '{"name": "%s", "description": "count_tokens against the answer", "request": {"method": "POST", "path": "/v1/messages", "body": %s}, "expect": {"count_tokens": true}},' \
      "${n%%:*}" "$(body "${n#*:}")"
  done
  printf '{"name": "no-endpoint", "description": "no input_tokens endpoint", "request": {"method": "POST", "path": "/v1/responses", "body": {"model":"m","input":"What is the capital of Japan?","instructions":"Answer briefly.","max_output_tokens":16}}, "expect": {"count_tokens": true}}'
  printf ']}\n'
} >"$TMP/count.json"

check_verdicts() {
  cat >"$TMP/expected" <<'EOV'
FAIL count/differs
FAIL count/no-endpoint
PASS count/holds
PASS count/uncounted
EOV
  verdicts "$TMP/out" >"$TMP/got"
  cmp -s "$TMP/got" "$TMP/expected" || { diff -u "$TMP/expected" "$TMP/got" >&2; fail "verdicts differ ($1)"; }
  expect_grep 'MESSAGES-COUNT-TOKENS error: POST /v1/messages/count_tokens counted 42 input tokens for this request, its answer reports 50 \(input_tokens 20 \+ cache_read_input_tokens 30 \+ cache_creation_input_tokens 0\): 8 fewer; the request holds the system prompt, tools, thinking blocks, tool_use blocks and tool_result blocks, which the count may leave out' "$TMP/out"
  expect_grep 'RESPONSES-INPUT-TOKENS error: the server does not count tokens: POST /v1/responses/input_tokens answered HTTP 404' "$TMP/out"
  [ "$(grep -c -- '-TOKENS error: ' "$TMP/out")" = 2 ] || fail "a count finding where the count holds or is not recorded ($1)"
}

# ---- through oacheck serve
serve_start "$RAW"
expect_status 1 "$OACHECK" run "$TMP/count.json" --target "$URL" --json "$TMP/r.json"
check_verdicts serve
# the count requests reached serve beside their cases
expect_grep 'POST /v1/messages/count_tokens -> holds.count \(200\)' "$SERVE_ERR"
expect_grep 'POST /v1/messages/count_tokens -> differs.count \(200\)' "$SERVE_ERR"
expect_grep 'POST /v1/responses/input_tokens -> no-endpoint.count \(404\)' "$SERVE_ERR"
expect_status 0 "$OACHECK" validate "$OACHECK_SRCDIR/schemas/results.schema.json" "$TMP/r.json"
python3 - "$TMP/r.json" <<'EOF' || fail "the finding's expected and actual are not the two numbers"
import json, sys
res = {r["case"]: r for r in json.load(open(sys.argv[1]))["results"]}
f = [f for f in res["differs"]["findings"] if f["rule"] == "MESSAGES-COUNT-TOKENS"][0]
assert f["expected"] == "50" and f["actual"] == "42" and f["severity"] == "error", f
EOF
serve_stop
pass "through oacheck serve: the count held to the answer's input, cache included; a missing endpoint said"

# ---- from the recordings (run --replay)
expect_status 1 "$OACHECK" run "$TMP/count.json" --replay "$RAW"
check_verdicts replay
pass "replayed from the recordings: the same verdicts"
