#!/bin/sh
# serve.sh — `oacheck serve` over real HTTP with curl: recorded bytes come
# back identical, matching by body and by X-Oacheck-Case, the not-recorded
# 404, every fault doing what it says, and a clean exit on SIGTERM.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

command -v curl >/dev/null 2>&1 || skip "curl is not installed"
# the curl captures: their bytes and names (chat-stream, chat-stream.wire)
REC="$OACHECK_SRCDIR/tests/data/recordings/llama-server-curl"
TESTREC="$OACHECK_SRCDIR/tests/data/recordings/llama-server"

# cassette_body FILE OUT : the recorded response body bytes of a cassette
cassette_body() {
  meta=$(gzip -dc "$1" | head -n 1)
  req=$(printf '%s' "$meta" | sed -n 's/.*"request":{[^}]*"body_bytes":\([0-9]*\).*/\1/p')
  [ -n "$req" ] || req=0
  gzip -dc "$1" | tail -n +2 | tail -c +$((req + 1)) >"$2"
}
cassette_request() {
  meta=$(gzip -dc "$1" | head -n 1)
  req=$(printf '%s' "$meta" | sed -n 's/.*"request":{[^}]*"body_bytes":\([0-9]*\).*/\1/p')
  gzip -dc "$1" | tail -n +2 | head -c "$req" >"$2"
}

same_bytes() { # same_bytes GOT WANT WHAT
  cmp -s "$1" "$2" || { cmp "$1" "$2" >&2 || true; fail "$3: bytes differ from the recording"; }
}

count_events() { grep -c '^data: ' "$1" || true; }

# chunk_sizes FILE : the chunk sizes of a chunked body saved with curl --raw, one a line
chunk_sizes() {
  off=0
  while :; do
    hex=$(tail -c +$((off + 1)) "$1" | head -n 1 | tr -d '\r')
    case "$hex" in ''|*[!0-9a-fA-F]*) echo "bad chunk size line '$hex' at byte $off"; return ;; esac
    size=$((0x$hex))
    echo "$size"
    [ "$size" != 0 ] || return 0
    off=$((off + ${#hex} + 2 + size + 2))
  done
}

cassette_body "$REC/health.cassette.gz" "$TMP/health.want"
cassette_body "$REC/chat-stream.cassette.gz" "$TMP/stream.want"
cassette_request "$REC/chat-stream.cassette.gz" "$TMP/stream.req"
cassette_body "$REC/chat-stream.wire.cassette.gz" "$TMP/wire.want"
[ -s "$TMP/stream.want" ] && [ -s "$TMP/stream.req" ] || fail "could not extract the chat-stream recording"
WANT_EVENTS=$(count_events "$TMP/stream.want")
[ "$WANT_EVENTS" = 19 ] || fail "chat-stream recording has $WANT_EVENTS events, expected 19"

serve_start "$REC" "$TESTREC"

# post NAME-OF-OUTPUT [CURL ARGS...] : POST the chat-stream request body
post() {
  out=$1; shift
  curl -sS -N -o "$TMP/$out" -D "$TMP/$out.head" -H 'Content-Type: application/json' \
    --data-binary @"$TMP/stream.req" "$@" "$URL/v1/chat/completions"
}

curl -sS -o "$TMP/health.got" "$URL/health"
same_bytes "$TMP/health.got" "$TMP/health.want" "GET /health"
pass "GET /health is the recorded body"

post stream.got
same_bytes "$TMP/stream.got" "$TMP/stream.want" "chat-stream"
expect_grep '^HTTP/1.1 200' "$TMP/stream.got.head"
expect_grep '^Content-Type: text/event-stream' "$TMP/stream.got.head"
expect_grep '^X-Accel-Buffering: no' "$TMP/stream.got.head"
expect_grep '^Access-Control-Allow-Origin: *.$' "$TMP/stream.got.head"
expect_no_grep '^Keep-Alive: timeout=5, max=100' "$TMP/stream.got.head"
pass "POST of the recorded chat-stream body gives identical SSE bytes"

# The same request with members reordered and re-spaced is the same request.
tr -d '\n' <"$TMP/stream.req" | sed 's/"stream": true/"stream":true/; s/^{/{ /' >"$TMP/stream.req2"
cmp -s "$TMP/stream.req" "$TMP/stream.req2" && fail "test setup: the reformatted request is not different"
curl -sS -N -o "$TMP/stream2.got" --data-binary @"$TMP/stream.req2" "$URL/v1/chat/completions"
same_bytes "$TMP/stream2.got" "$TMP/stream.want" "reformatted request"
pass "matching uses the canonical JSON body"

# Without recorded boundaries, a stream is written one SSE event per chunk.
curl -sS -N --raw -o "$TMP/raw.got" --data-binary @"$TMP/stream.req" "$URL/v1/chat/completions"
chunk_sizes "$TMP/raw.got" >"$TMP/raw.sizes"
chunks=$(wc -l <"$TMP/raw.sizes")
[ "$chunks" = $((WANT_EVENTS + 1)) ] || fail "expected $WANT_EVENTS chunks plus the terminator, found $chunks"
pass "a stream is written event by event"

# X-Oacheck-Case selects by name: the wire variant, with its 18 recorded chunks.
curl -sS -N -o "$TMP/wire.got" -H 'X-Oacheck-Case: chat-stream.wire' "$URL/anything"
same_bytes "$TMP/wire.got" "$TMP/wire.want" "X-Oacheck-Case: chat-stream.wire"
curl -sS -N --raw -o "$TMP/wire.raw" -H 'X-Oacheck-Case: chat-stream.wire' "$URL/anything"
chunks=$(chunk_sizes "$TMP/wire.raw" | wc -l)
[ "$chunks" = 19 ] || fail "chat-stream.wire: expected its 18 recorded chunks plus the terminator, found $chunks"
curl -sS -o "$TMP/steered.got" -H 'X-Oacheck-Case: tools-required-steered-stream' -X POST "$URL/v1/chat/completions"
expect_grep '"name":"get_weather"' "$TMP/steered.got"
pass "X-Oacheck-Case selects a recording by name, from any DIR, with its recorded pieces"

# Unmatched: 404, OpenAI-shaped, the marker header, the nearest recordings.
code=$(curl -sS -o "$TMP/nf.got" -D "$TMP/nf.head" -w '%{http_code}' \
  --data-binary '{"model":"x","messages":[{"role":"user","content":"never recorded"}],"stream":true}' \
  "$URL/v1/chat/completions")
[ "$code" = 404 ] || fail "unmatched request got $code, expected 404"
expect_grep '^X-Oacheck-Unmatched: not recorded' "$TMP/nf.head"
expect_grep '^\{"error":\{"message":"[^"]*nearest: [^"]*chat-[a-z]' "$TMP/nf.got"
expect_grep '"type":"not_found_error","param":null,"code":"not_recorded"\}\}$' "$TMP/nf.got"
code=$(curl -sS -o "$TMP/nf2.got" -D "$TMP/nf2.head" -w '%{http_code}' -H 'X-Oacheck-Case: chat-strem' "$URL/v1/chat/completions")
[ "$code" = 404 ] || fail "unknown X-Oacheck-Case got $code, expected 404"
expect_grep "no recording named 'chat-strem'.*nearest: chat-stream " "$TMP/nf2.got"
expect_grep '^X-Oacheck-Unmatched: not recorded' "$TMP/nf2.head"
pass "an unmatched request gets 404 not_recorded naming the nearest recordings"

# ---- faults, per request ----------------------------------------------
post t3.got -H 'X-Oacheck-Fault: truncate=3'
[ "$(count_events "$TMP/t3.got")" = 3 ] || fail "truncate=3 sent $(count_events "$TMP/t3.got") events"
head -c "$(wc -c <"$TMP/t3.got")" "$TMP/stream.want" | cmp -s - "$TMP/t3.got" || fail "truncate=3: not a prefix of the recording"
expect_no_grep '\[DONE\]' "$TMP/t3.got"
expect_grep '^Connection: close' "$TMP/t3.got.head"
pass "truncate=3: three events, then the end"

post dd.got -H 'X-Oacheck-Fault: drop-done'
expect_no_grep '\[DONE\]' "$TMP/dd.got"
[ "$(count_events "$TMP/dd.got")" = $((WANT_EVENTS - 1)) ] || fail "drop-done removed more than [DONE]"
pass "drop-done: no [DONE]"

set +e
post reset.got -H 'X-Oacheck-Fault: reset=100' 2>"$TMP/reset.err"
st=$?
set -e
[ "$st" != 0 ] || fail "reset=100: curl reported success"
[ "$(wc -c <"$TMP/reset.got")" -le 100 ] || fail "reset=100: more than 100 body bytes arrived"
pass "reset=100: curl reports a transfer error ($st)"

post c2.got -H 'X-Oacheck-Fault: corrupt=2'
sed -n 3p "$TMP/c2.got" >"$TMP/c2.line"
sed -n 3p "$TMP/stream.want" >"$TMP/c2.orig" # event 2 is line 3: each event is a line and a blank
[ -s "$TMP/c2.line" ] || fail "corrupt=2: no second line"
cmp -s "$TMP/c2.line" "$TMP/c2.orig" && fail "corrupt=2: event 2 unchanged"
expect_no_grep '\}$' "$TMP/c2.line"
[ "$(count_events "$TMP/c2.got")" = "$WANT_EVENTS" ] || fail "corrupt=2 changed the number of events"
pass "corrupt=2: event 2 is cut, the others are intact"

post ct.got -H 'X-Oacheck-Fault: content-type=text/html'
expect_grep '^Content-Type: text/html' "$TMP/ct.got.head"
expect_no_grep 'text/event-stream' "$TMP/ct.got.head"
same_bytes "$TMP/ct.got" "$TMP/stream.want" "content-type"
pass "content-type=text/html"

post gz.got -H 'X-Oacheck-Fault: gzip' --compressed
same_bytes "$TMP/gz.got" "$TMP/stream.want" "gzip with curl --compressed"
expect_grep '^Content-Encoding: gzip' "$TMP/gz.got.head"
post gzraw.got -H 'X-Oacheck-Fault: gzip'
gzip -dc "$TMP/gzraw.got" | cmp -s - "$TMP/stream.want" || fail "gzip: the raw body is not the gzipped recording"
pass "gzip: Content-Encoding gzip, --compressed gives the original bytes"

post split.got -H 'X-Oacheck-Fault: split=7'
same_bytes "$TMP/split.got" "$TMP/stream.want" "split=7"
curl -sS -N --raw -o "$TMP/split.raw" -H 'X-Oacheck-Fault: split=7' --data-binary @"$TMP/stream.req" "$URL/v1/chat/completions"
sizes=$(chunk_sizes "$TMP/split.raw" | sort -un | tr '\n' ' ')
case "$sizes" in
  "0 7 "|"0 "[1-6]" 7 ") ;;
  *) fail "split=7: chunk sizes are '$sizes', expected 7 (and one shorter last chunk)" ;;
esac
pass "split=7: 7-byte writes, identical bytes"

# The recording's own answer is framed once and the frame shared by every
# later answer of it (server.c, plan_wire): answers rewritten by faults
# in between, and many at once, must leave it the recording's, chunk for
# chunk.
curl -sS -N --raw -o "$TMP/wire.again" -H 'X-Oacheck-Case: chat-stream.wire' "$URL/anything"
cmp -s "$TMP/wire.again" "$TMP/wire.raw" || fail "chat-stream.wire after faulted answers: not the first answer's chunks"
i=0
pids=""
while [ $i -lt 16 ]; do
  curl -sS -N --raw -o "$TMP/wire.par.$i" -H 'X-Oacheck-Case: chat-stream.wire' "$URL/anything" &
  pids="$pids $!"
  i=$((i + 1))
done
for p in $pids; do wait "$p" || fail "chat-stream.wire, 16 at once: a curl failed"; done
i=0
while [ $i -lt 16 ]; do
  cmp -s "$TMP/wire.par.$i" "$TMP/wire.raw" || fail "chat-stream.wire, answer $i of 16 at once: not the recorded chunks"
  i=$((i + 1))
done
pass "a recording answered after faulted answers, and 16 times at once, keeps its recorded chunks"

post st.got -H 'X-Oacheck-Fault: stall=300,drip=10'
same_bytes "$TMP/st.got" "$TMP/stream.want" "stall and drip"
pass "stall and drip: the bytes still arrive complete"

post multi.got -H 'X-Oacheck-Fault: drop-done, truncate=100, split=50'
expect_no_grep '\[DONE\]' "$TMP/multi.got"
[ "$(count_events "$TMP/multi.got")" = $((WANT_EVENTS - 1)) ] || fail "a list of faults was not applied together"
pass "a comma-separated list of faults"

code=$(curl -sS -o "$TMP/bad.got" -w '%{http_code}' -H 'X-Oacheck-Fault: explode=1' "$URL/health")
[ "$code" = 400 ] || fail "an unknown fault got $code, expected 400"
expect_grep "unknown fault 'explode'" "$TMP/bad.got"
pass "an unknown fault in the header is a 400 naming it"

# JSON bodies: corrupt=1 cuts the body itself, Content-Length follows.
curl -sS -o "$TMP/hc.got" -D "$TMP/hc.head" -H 'X-Oacheck-Fault: corrupt=1' "$URL/health"
[ "$(cat "$TMP/hc.got")" = '{"statu' ] || fail "corrupt=1 on /health gave '$(cat "$TMP/hc.got")'"
expect_grep '^Content-Length: 7' "$TMP/hc.head"
pass "corrupt=1 on a JSON body cuts it in half"

# A stalled request does not hold up other connections.
curl -sS -o "$TMP/slow.got" -H 'X-Oacheck-Fault: stall=600000' "$URL/health" 2>/dev/null &
slow=$!
curl -sS -o "$TMP/fast.got" "$URL/health"
same_bytes "$TMP/fast.got" "$TMP/health.want" "health beside a stalled request"
pass "a stalled connection does not block others"

# SIGTERM with the stalled request still open: clean exit 0.
serve_stop
wait "$slow" 2>/dev/null || true
pass "SIGTERM stops the server cleanly, stalled request and all (exit 0)"

# ---- faults, globally -------------------------------------------------
serve_start "$REC" --fault drop-done --fault truncate=5
post g.got
[ "$(count_events "$TMP/g.got")" = 5 ] || fail "--fault truncate=5 sent $(count_events "$TMP/g.got") events"
post g2.got -H 'X-Oacheck-Fault: truncate=100'
[ "$(count_events "$TMP/g2.got")" = $((WANT_EVENTS - 1)) ] || fail "the header did not override --fault truncate"
expect_no_grep '\[DONE\]' "$TMP/g2.got"
serve_stop
pass "--fault applies to every request; X-Oacheck-Fault overrides it"

# --realtime on recordings without timing still serves them.
serve_start "$REC" --realtime
post rt.got
same_bytes "$TMP/rt.got" "$TMP/stream.want" "--realtime"
serve_stop
expect_grep 'no recorded timing' "$SERVE_ERR"
pass "--realtime serves untimed recordings unpaced, and says so"

# A cassette written by hand as docs/cassette.md describes it, with timing:
# --speed paces it (not asserted: no timed assertions) and keeps its pieces.
mkdir -p "$TMP/timed"
body='data: {"a":1}\n\ndata: {"a":2}\n\ndata: [DONE]\n\n'
printf '%s\n' '{"oacheck_cassette":1,"name":"timed","request":{"method":"GET","path":"/timed","body_bytes":null},"response":{"status":200,"reason":"OK","headers":[["Content-Type","text/event-stream"]],"body_bytes":44},"timing":{"recorded":true,"clock":"ns since the request was sent","headers_ns":1000000,"piece_ends":[10,30,44],"piece_ns":[2000000,40000000,60000000]}}' >"$TMP/timed.raw"
printf "$body" >>"$TMP/timed.raw"
printf "$body" >"$TMP/timed.want"
gzip -n <"$TMP/timed.raw" >"$TMP/timed/timed.cassette.gz"
serve_start "$TMP/timed" --speed 2
curl -sS -N -o "$TMP/timed.got" "$URL/timed"
same_bytes "$TMP/timed.got" "$TMP/timed.want" "a timed cassette under --speed 2"
curl -sS -N --raw -o "$TMP/timed.raw.got" "$URL/timed"
[ "$(chunk_sizes "$TMP/timed.raw.got" | tr '\n' ' ')" = "10 20 14 0 " ] ||
  fail "timed cassette: chunks $(chunk_sizes "$TMP/timed.raw.got" | tr '\n' ' '), expected its pieces 10 20 14"
serve_stop
expect_no_grep 'no recorded timing' "$SERVE_ERR"
pass "a hand-written timed cassette is served paced, in its recorded pieces"

# --max-body: a declared body over it is refused before it is read.
serve_start "$REC" --max-body 100
code=$(curl -sS -o "$TMP/big.got" -w '%{http_code}' -H 'Content-Type: application/json' \
  --data-binary @"$TMP/stream.req" "$URL/v1/chat/completions")
[ "$code" = 413 ] || fail "a 195-byte body under --max-body 100 got $code, expected 413"
expect_grep '"code":"request_too_large"' "$TMP/big.got"
curl -sS -o "$TMP/h2.got" "$URL/health"
same_bytes "$TMP/h2.got" "$TMP/health.want" "GET /health under --max-body 100"
serve_stop
pass "--max-body: 413 for a bigger body, the rest served"

# ---- usage ------------------------------------------------------------
expect_status 0 "$OACHECK" serve --help
expect_grep '^Usage: oacheck serve' "$TMP/out"
for f in drip stall truncate reset drop-done corrupt content-type gzip split; do
  expect_grep "^  $f" "$TMP/out"
done
expect_status 2 "$OACHECK" serve
expect_grep 'Give at least one DIR' "$TMP/err"
expect_status 2 "$OACHECK" serve "$REC" --fault bogus
expect_grep "unknown fault 'bogus'" "$TMP/err"
expect_status 2 "$OACHECK" serve "$REC" --port 70000
expect_status 2 "$OACHECK" serve "$REC" --realtime --speed 2
expect_status 2 "$OACHECK" serve "$REC" --max-body 0
expect_grep "max-body wants a whole number" "$TMP/err"
expect_status 2 "$OACHECK" serve "$REC" --request-timeout soon
expect_status 2 "$OACHECK" serve "$REC" --max-connections
expect_status 1 "$OACHECK" serve "$TMP/no-such-dir" --port 0
expect_grep 'no-such-dir' "$TMP/err"
pass "usage errors exit 2, a missing directory exits 1"

# a directory that is not one, or holds nothing: the message says what to give
expect_status 1 "$OACHECK" serve "$REC/chat-stream.cassette.gz" --port 0
expect_grep 'chat-stream.cassette.gz: not a directory: give the directory that holds' "$TMP/err"
mkdir -p "$TMP/empty/sub"
cp "$REC/health.cassette.gz" "$TMP/empty/sub/"
expect_status 1 "$OACHECK" serve "$TMP/empty" --port 0
expect_grep "no recordings in $TMP/empty \\(.*subdirectories are not read" "$TMP/err"
if [ "$(id -u)" != 0 ]; then
  mkdir "$TMP/locked" && chmod 000 "$TMP/locked"
  expect_status 1 "$OACHECK" serve "$TMP/locked" --port 0
  chmod 755 "$TMP/locked"
  expect_grep 'locked: cannot open the recordings directory: Permission denied' "$TMP/err"
fi
serve_start "$TMP/empty/sub"
expect_grep 'serving 1 recording from 1 directory$' "$SERVE_ERR"
serve_stop
pass "a file for a directory, an empty one and an unreadable one are named with what to give"
