#!/bin/sh
# serve-fidelity.sh — what `oacheck serve` sends is what the recorded
# server sent, down to the framing a client can see: an event stream that
# was sent with a Content-Length keeps it (not chunked), and an exchange
# whose connection was cut while recording (`"complete": false`) is cut
# again on replay — no terminating chunk, fewer bytes than announced —
# rather than ended properly.  The cut recording is made the way a user
# makes one: `oacheck record` against `oacheck serve --fault reset=…`.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

command -v curl >/dev/null 2>&1 || skip "curl is not installed"

# ---- an event stream with a Content-Length ------------------------------
RAW="$TMP/raw"
mkdir -p "$RAW"
printf '%s' '{"sse-len":{"method":"POST","path":"/v1/chat/completions","request_body":true}}' >"$RAW/index.json"
printf '{"stream":true}' >"$RAW/sse-len.request.json"
body='data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}

data: [DONE]

'
len=$(printf '%s' "$body" | wc -c | tr -d ' ')
{ printf 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %s\r\n\r\n' "$len"
  printf '%s' "$body"; } >"$RAW/sse-len.response.http"

serve_start "$RAW"
curl -sS --raw -o "$TMP/sse.body" -D "$TMP/sse.head" -H 'X-Oacheck-Case: sse-len' \
  -X POST "$URL/v1/chat/completions"
expect_grep "^Content-Length: $len" "$TMP/sse.head"
expect_no_grep '^Transfer-Encoding' "$TMP/sse.head"
printf '%s' "$body" >"$TMP/sse.want"
cmp -s "$TMP/sse.body" "$TMP/sse.want" || fail "the event stream's bytes are not the recorded ones"
pass "an event stream recorded with a Content-Length is sent with it, not chunked"
serve_stop

# ---- recordings of a cut connection ------------------------------------
# (640: more than /v1/models' 612 bytes, which identification must read whole,
# less than chat-basic's 673)
serve_start "$OACHECK_SRCDIR/suites/recordings/llama-server" --fault reset=640
expect_status 1 "$OACHECK" record streaming plain --filter stream-basic --filter chat-basic \
  --target "$URL" --out "$TMP/rec" -q
serve_stop
for c in streaming.stream-basic plain.chat-basic; do
  gzip -dc "$TMP/rec/$c.cassette.gz" | head -n 1 >"$TMP/$c.meta"
  expect_grep '"body_bytes":640,"complete":false' "$TMP/$c.meta"
done

serve_start "$TMP/rec"
# cut NAME : fetch recording NAME raw into $TMP/NAME.{body,head}; $st is curl's status
cut() {
  set +e
  curl -sS --raw -o "$TMP/$1.body" -D "$TMP/$1.head" -H "X-Oacheck-Case: $1" \
    -X POST "$URL/v1/chat/completions" 2>"$TMP/$1.curl"
  st=$?
  set -e
  [ "$st" = 18 ] || { cat "$TMP/$1.curl" >&2; fail "$1: curl exited $st on the replayed cut, expected 18 (transfer closed early)"; }
}
cut streaming.stream-basic
expect_grep '^Transfer-Encoding: chunked' "$TMP/streaming.stream-basic.head"
expect_no_grep '^0.?$' "$TMP/streaming.stream-basic.body"
set +e
curl -sS -o "$TMP/stream.dec" -H 'X-Oacheck-Case: streaming.stream-basic' \
  -X POST "$URL/v1/chat/completions" 2>/dev/null
set -e
n=$(wc -c <"$TMP/stream.dec" | tr -d ' ')
[ "$n" = 640 ] || fail "the replayed cut stream sent $n body bytes, expected the 640 recorded"
pass "a stream recorded cut is cut on replay: its 640 bytes, no terminating chunk"

cut plain.chat-basic
expect_grep '^Content-Length: 673' "$TMP/plain.chat-basic.head"
n=$(wc -c <"$TMP/plain.chat-basic.body" | tr -d ' ')
[ "$n" = 640 ] || fail "the replayed cut body sent $n bytes, expected the 640 recorded"
pass "a body recorded cut is cut on replay: 640 of the 673 bytes its Content-Length announced"

# truncate ends the response properly, on a cut recording too
curl -sS -o "$TMP/trunc.body" -H 'X-Oacheck-Case: streaming.stream-basic' \
  -H 'X-Oacheck-Fault: truncate=1' -X POST "$URL/v1/chat/completions" ||
  fail "truncate=1 on a cut recording did not end the response properly"
expect_grep '^data: ' "$TMP/trunc.body"
pass "truncate ends a cut recording properly"
serve_stop
pass "clean shutdown"
