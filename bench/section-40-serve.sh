#!/bin/sh
# section-40-serve.sh — `oacheck serve` under wrk against a Node `http`
# server replaying the same recording (bench/peer_serve.mjs), same wrk
# settings, alternating runs in the same invocation: the live llama-server
# stream-basic recording (bench/data/stream-basic.cassette.gz, 19 SSE
# events in 18 recorded pieces), POSTed with its recorded body, at 8 and
# 256 connections.  oacheck is bench/oacheck: the program built -O2
# without sanitizers (mk/bench.am).
set -eu
. "$BENCH_SRCDIR/bench/lib.sh"

b=$BENCH_BUILDDIR/bench
runs=$BENCH_RUNS
dur=${BENCH_SERVE_SECONDS:-5}
cassette=$BENCH_SRCDIR/bench/data/stream-basic.cassette.gz
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oacheck-bench-serve.XXXXXX")
serve_pid=""
node_pid=""
cleanup() {
  [ -z "$serve_pid" ] || kill "$serve_pid" 2>/dev/null || true
  [ -z "$node_pid" ] || kill "$node_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

echo "## oacheck serve: requests per second against a Node replay server"
echo
if ! command -v wrk >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
  echo "Skipped: wrk and curl are needed (Debian packages wrk, curl)."
  echo
  exit 0
fi

# the recorded request body and the answer both servers must give
bench_cassette_split "$cassette" "$tmp/request.json" "$tmp/recorded.body"

"$b/oacheck" serve "$BENCH_SRCDIR/bench/data" --port 0 >"$tmp/serve.out" 2>/dev/null &
serve_pid=$!
ours_port=$(bench_wait_port "$tmp/serve.out" "$serve_pid") || { echo "oacheck serve did not start."; echo; exit 1; }
peer_port=""
if [ -n "${NODE:-}" ] && [ -x "$NODE" ]; then
  "$NODE" "$BENCH_SRCDIR/bench/peer_serve.mjs" "$cassette" 0 >"$tmp/node.out" 2>/dev/null &
  node_pid=$!
  peer_port=$(bench_wait_port "$tmp/node.out" "$node_pid") || peer_port=""
fi

# Both must answer the recorded bytes before either is timed.
url_path=/v1/chat/completions
curl -sS -o "$tmp/ours.body" -H 'Content-Type: application/json' --data-binary @"$tmp/request.json" \
  "http://127.0.0.1:$ours_port$url_path"
cmp -s "$tmp/ours.body" "$tmp/recorded.body" || { echo "oacheck serve did not answer the recorded bytes."; echo; exit 1; }
if [ -n "$peer_port" ]; then
  curl -sS -o "$tmp/peer.body" --data-binary @"$tmp/request.json" "http://127.0.0.1:$peer_port$url_path"
  cmp -s "$tmp/peer.body" "$tmp/recorded.body" || peer_port=""
fi

# wrk_rate PORT CONNECTIONS: requests/s of one run (its summary line kept in $tmp/raw)
wrk_rate() {
  out=$(BENCH_BODY="$tmp/request.json" wrk -t2 -c"$2" -d"${dur}s" -s "$BENCH_SRCDIR/bench/serve-post.lua" \
    "http://127.0.0.1:$1$url_path" 2>&1)
  rate=$(printf '%s\n' "$out" | sed -n 's/^Requests\/sec: *//p')
  errs=$(printf '%s\n' "$out" | sed -n 's/^ *Socket errors: *//p; s/^ *Non-2xx or 3xx responses: */non-2xx /p' | tr '\n' ' ')
  echo "$rate${errs:+ ($errs)}" >>"$tmp/raw.$3"
  echo "$rate"
}

median() {
  tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

rows=""
for c in 8 256; do
  ours=""
  peer=""
  for r in $(seq "$runs"); do
    ours="$ours $(wrk_rate "$ours_port" "$c" "ours.$c")"
    [ -z "$peer_port" ] || peer="$peer $(wrk_rate "$peer_port" "$c" "peer.$c")"
  done
  mo=$(printf '%s\n' "$ours" | median)
  mp=$(printf '%s\n' "$peer" | median)
  rows="$rows| $c | $(human "$mo") | $(human "$mp") | $(ratio "$mo" "$mp")× |
"
done

echo "Recording: the live llama-server \`stream-basic\` (\`bench/data/stream-basic.cassette.gz\`:" \
  "a streamed chat completion, 19 SSE events, 4,796 bytes in 18 recorded pieces), POSTed" \
  "with its recorded body so that \`oacheck serve\` matches it by request key (canonical JSON" \
  "and SHA-256) on every request; both servers answer the recorded status, headers and body," \
  "one chunk per recorded piece, keep-alive.  The peer is \`bench/peer_serve.mjs\`: Node's" \
  "\`http\` module writing the same pieces, no matching.  wrk -t2, ${dur} s per run, the two" \
  "servers alternating, median of $runs runs each; wrk shares the machine's CPUs with the server."
echo
echo "| wrk connections | oacheck serve req/s | Node replay req/s | oacheck / Node |"
echo "|---:|---:|---:|---:|"
printf '%s' "$rows"
echo
echo "Commands (from the build directory; BODY is the recorded request body):"
echo
echo '```'
echo "bench/oacheck serve \$srcdir/bench/data --port 0 2>/dev/null"
echo "node \$srcdir/bench/peer_serve.mjs \$srcdir/bench/data/stream-basic.cassette.gz 0"
echo "BENCH_BODY=BODY wrk -t2 -c8 -d${dur}s -s \$srcdir/bench/serve-post.lua http://127.0.0.1:PORT/v1/chat/completions"
echo "BENCH_BODY=BODY wrk -t2 -c256 -d${dur}s -s \$srcdir/bench/serve-post.lua http://127.0.0.1:PORT/v1/chat/completions"
echo '```'
echo
echo "Raw requests/s per run:"
echo
echo '```'
for f in "$tmp"/raw.*; do
  [ -f "$f" ] || continue
  echo "$(basename "$f" | sed 's/^raw\.//'): $(tr '\n' ' ' <"$f")"
done
echo '```'
echo
