#!/bin/sh
# section-80-proxy.sh — what `oacheck proxy` adds to a streamed answer's
# latency: the live llama-server stream-basic recording replayed by
# `oacheck serve --realtime` (its recorded pacing: first event 1.6 ms after
# the request, the last at 12.5 ms) and by `--speed 0.1` (ten times
# slower, so that an answer held back until it ends would show), timed by
# a plain Node `http` client (bench/first_event.mjs) to the first event's
# bytes and to the end, going direct and through the proxy, alternating.
# The proxy judges every exchange as it streams (every rule and client
# model, JSON results at the end).  The proxy's cost is the difference
# between the two; both share the machine's CPUs.
set -eu
. "$BENCH_SRCDIR/bench/lib.sh"

b=$BENCH_BUILDDIR/bench
runs=$BENCH_RUNS
n=${BENCH_PROXY_REQUESTS:-50}
cassette=$BENCH_SRCDIR/bench/data/stream-basic.cassette.gz
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oacheck-bench-proxy.XXXXXX")
pids=""
cleanup() {
  for p in $pids; do kill "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

echo "## oacheck proxy: the first event's latency, direct and through the proxy"
echo
if [ -z "${NODE:-}" ] || [ ! -x "$NODE" ] || ! command -v curl >/dev/null 2>&1; then
  echo "Skipped: Node and curl are needed."
  echo
  exit 0
fi

bench_cassette_split "$cassette" "$tmp/request.json" "$tmp/recorded.body"

# measure PACING: direct and proxied runs alternating; a table row
measure() {
  pacing=$1
  rm -f "$tmp/serve.out" "$tmp/proxy.out" "$tmp/proxy.json" # the previous row's ports
  "$b/oacheck" serve "$BENCH_SRCDIR/bench/data" --port 0 $pacing >"$tmp/serve.out" 2>/dev/null &
  sp=$!
  pids="$pids $sp"
  sport=$(bench_wait_port "$tmp/serve.out" "$sp") || { echo "oacheck serve did not start."; return 1; }
  "$b/oacheck" proxy --target "t=http://127.0.0.1:$sport" --listen 127.0.0.1:0 \
    --json "$tmp/proxy.json" >"$tmp/proxy.out" 2>"$tmp/proxy.err" &
  pp=$!
  pids="$pids $pp"
  pport=$(bench_wait_port "$tmp/proxy.out" "$pp") || { echo "oacheck proxy did not start."; return 1; }
  path=/v1/chat/completions
  # the bytes must be the recording's both ways before anything is timed
  for port in "$sport" "$pport"; do
    curl -sS -o "$tmp/got" -H 'Content-Type: application/json' --data-binary @"$tmp/request.json" \
      "http://127.0.0.1:$port$path"
    cmp -s "$tmp/got" "$tmp/recorded.body" || { echo "port $port did not answer the recorded bytes."; return 1; }
  done
  : >"$tmp/direct" ; : >"$tmp/proxied"
  r=0
  while [ $r -lt "$runs" ]; do
    "$NODE" "$BENCH_SRCDIR/bench/first_event.mjs" "http://127.0.0.1:$sport$path" "$tmp/request.json" "$n" >>"$tmp/direct"
    "$NODE" "$BENCH_SRCDIR/bench/first_event.mjs" "http://127.0.0.1:$pport$path" "$tmp/request.json" "$n" >>"$tmp/proxied"
    r=$((r + 1))
  done
  kill -INT "$pp" 2>/dev/null || true
  wait "$pp" 2>/dev/null || true
  kill "$sp" 2>/dev/null || true
  wait "$sp" 2>/dev/null || true
  exchanges=$(grep -c '"case":' "$tmp/proxy.json" 2>/dev/null || echo 0)
  med() { while read -r l; do kv "$1" "$l"; done <"$2" | bench_median; }
  df=$(med first_ms "$tmp/direct"); pf=$(med first_ms "$tmp/proxied")
  dp=$(med first_p90_ms "$tmp/direct"); ppp=$(med first_p90_ms "$tmp/proxied")
  de=$(med end_ms "$tmp/direct"); pe=$(med end_ms "$tmp/proxied")
  added=$(awk -v a="$pf" -v b="$df" 'BEGIN { printf "%.2f", a - b }')
  echo "| \`${pacing}\` | $df ms | $pf ms | **$added ms** | $dp / $ppp ms | $de ms | $pe ms | $exchanges |" >>"$tmp/rows"
  sed "s/^/$pacing direct: /" "$tmp/direct" >>"$tmp/raw"
  sed "s/^/$pacing proxy: /" "$tmp/proxied" >>"$tmp/raw"
}

measure --realtime || { echo; exit 0; }
measure "--speed 0.1" || { echo; exit 0; }

echo "Recording: the live llama-server \`stream-basic\` (\`bench/data/stream-basic.cassette.gz\`: 19 SSE events in 18 pieces, the first 1.6 ms after the request, the last 12.5 ms), POSTed with its recorded body; the client (\`bench/first_event.mjs\`, Node's \`http\`, keep-alive) sends $n requests one after another per run and takes the median; $runs runs each way, alternating, median of the runs.  The proxy runs every rule and client model on each exchange and writes JSON results at the end (the *exchanges* column counts them: every request it forwarded)."
echo
echo "| serve pacing | first event, direct | through the proxy | the proxy adds | p90 direct / proxy | last byte, direct | through the proxy | exchanges judged |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
cat "$tmp/rows"
echo
echo "Goal (issue 17): the first event reaches the client within a few ms of its arrival at the proxy.  At \`--speed 0.1\` the last byte comes about 125 ms after the request: a proxy that held the answer back would show it in the first-event column."
echo
echo "Commands (from the build directory; BODY is the recorded request body):"
echo
echo '```'
echo "bench/oacheck serve \$srcdir/bench/data --port 0 --realtime    # and --speed 0.1"
echo "bench/oacheck proxy --target t=http://127.0.0.1:SERVE --listen 127.0.0.1:0 --json proxy.json"
echo "node \$srcdir/bench/first_event.mjs http://127.0.0.1:SERVE/v1/chat/completions BODY $n"
echo "node \$srcdir/bench/first_event.mjs http://127.0.0.1:PROXY/v1/chat/completions BODY $n"
echo '```'
echo
echo "Raw lines:"
echo
echo '```'
cat "$tmp/raw"
echo '```'
echo
