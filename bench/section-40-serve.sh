#!/bin/sh
# section-40-serve.sh — `oacheck serve` under wrk against a Node `http`
# server replaying the same recording (bench/peer_serve.mjs), same wrk
# settings: the live llama-server stream-basic recording
# (bench/data/stream-basic.cassette.gz, 19 SSE events in 18 recorded
# pieces), POSTed with its recorded body, at 8 and 256 connections.
# oacheck is bench/oacheck: the program built -O2 without sanitizers
# (mk/bench.am).
#
# The two servers never run beside each other: every run starts one
# server, checks that it answers the recorded bytes, warms it up with
# wrk for a second, measures, and stops it before the other starts.  Runs
# alternate between the two (which goes first swaps every run), so that
# a change in the machine's load falls on both; the table gives each
# one's min / median / max over BENCH_SERVE_RUNS runs (default 5) and
# the machine's load before and after.  A figure is only as good as that
# spread: on a shared machine, compare within one run.
set -eu
. "$BENCH_SRCDIR/bench/lib.sh"

b=$BENCH_BUILDDIR/bench
runs=${BENCH_SERVE_RUNS:-5}
dur=${BENCH_SERVE_SECONDS:-5}
warm=${BENCH_SERVE_WARMUP:-1}
cassette=$BENCH_SRCDIR/bench/data/stream-basic.cassette.gz
url_path=/v1/chat/completions
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oacheck-bench-serve.XXXXXX")
pid=""
cleanup() {
  [ -z "$pid" ] || kill "$pid" 2>/dev/null || true
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
peer=0
[ -n "${NODE:-}" ] && [ -x "$NODE" ] && peer=1

# the recorded request body and the answer both servers must give
bench_cassette_split "$cassette" "$tmp/request.json" "$tmp/recorded.body"

# start WHO: oacheck serve ("ours") or the Node peer ("peer") alone; sets
# pid and port, and checks the answer is the recorded bytes
start() {
  if [ "$1" = ours ]; then
    "$b/oacheck" serve "$BENCH_SRCDIR/bench/data" --port 0 >"$tmp/$1.out" 2>/dev/null &
  else
    "$NODE" "$BENCH_SRCDIR/bench/peer_serve.mjs" "$cassette" 0 >"$tmp/$1.out" 2>/dev/null &
  fi
  pid=$!
  port=$(bench_wait_port "$tmp/$1.out" "$pid") || return 1
  curl -sS -o "$tmp/$1.body" -H 'Content-Type: application/json' --data-binary @"$tmp/request.json" \
    "http://127.0.0.1:$port$url_path" || return 1
  cmp -s "$tmp/$1.body" "$tmp/recorded.body"
}

stop() {
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=""
}

# wrk_rate CONNECTIONS SECONDS: requests/s of one run against $port (its
# errors kept in $tmp/errs, its request count in $tmp/count)
wrk_rate() {
  out=$(BENCH_BODY="$tmp/request.json" wrk -t2 -c"$1" -d"${2}s" -s "$BENCH_SRCDIR/bench/serve-post.lua" \
    "http://127.0.0.1:$port$url_path" 2>&1)
  errs=$(printf '%s\n' "$out" | sed -n 's/^ *Socket errors: *//p; s/^ *Non-2xx or 3xx responses: */non-2xx /p' | tr '\n' ' ')
  echo "$errs" >"$tmp/errs"
  printf '%s\n' "$out" | sed -n 's/^ *\([0-9][0-9]*\) requests in .*/\1/p' >"$tmp/count"
  printf '%s\n' "$out" | sed -n 's/^Requests\/sec: *//p'
}

# cpu_ticks PID: the CPU time a process has used, user and system, in clock ticks
cpu_ticks() {
  sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 }'
}
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)

# one WHO CONNECTIONS RUN: a whole run of one server, its rate appended to
# $tmp/rates.WHO.CONNECTIONS and a line to $tmp/raw
one() {
  if ! start "$1"; then
    stop
    echo "$1 c=$2 run $3: did not answer the recorded bytes" >>"$tmp/raw"
    return 0
  fi
  wrk_rate "$2" "$warm" >/dev/null
  la=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null)
  t0=$(cpu_ticks "$pid")
  rate=$(wrk_rate "$2" "$dur")
  t1=$(cpu_ticks "$pid")
  stop
  # the server's own CPU time per request: what the load of the machine
  # changes least (wrk's share of the CPUs is not in it)
  us=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" -v n="$(cat "$tmp/count")" \
    'BEGIN { if (n + 0 > 0 && a != "" && b != "") printf "%.1f", (b - a) / hz * 1e6 / n }')
  echo "$rate" >>"$tmp/rates.$1.$2"
  echo "$us" >>"$tmp/cpu.$1.$2"
  echo "$1 c=$2 run $3: $rate req/s, $us µs of server CPU per request (1-min load average $la before it)$(sed 's/^ *$//; s/^./; &/' "$tmp/errs")" >>"$tmp/raw"
}

load_before=$(bench_load)
: >"$tmp/raw"
for c in 8 256; do
  : >"$tmp/rates.ours.$c"
  : >"$tmp/rates.peer.$c"
  : >"$tmp/cpu.ours.$c"
  : >"$tmp/cpu.peer.$c"
  for r in $(seq "$runs"); do
    if [ $((r % 2)) = 1 ] || [ "$peer" = 0 ]; then
      one ours "$c" "$r"
      [ "$peer" = 0 ] || one peer "$c" "$r"
    else
      one peer "$c" "$r"
      one ours "$c" "$r"
    fi
  done
done
load_after=$(bench_load)

echo "Recording: the live llama-server \`stream-basic\` (\`bench/data/stream-basic.cassette.gz\`:" \
  "a streamed chat completion, 19 SSE events, 4,796 bytes in 18 recorded pieces), POSTed" \
  "with its recorded body so that \`oacheck serve\` matches it by request key (canonical JSON" \
  "and SHA-256) on every request; both servers answer the recorded status, headers and body," \
  "one chunk per recorded piece, keep-alive.  The peer is \`bench/peer_serve.mjs\`: Node's" \
  "\`http\` module writing the same pieces, no matching.  wrk -t2, ${dur} s per run after a" \
  "${warm} s warm-up; wrk shares the machine's CPUs with the server."
echo
echo "The two servers never run at once: each run starts one, checks its answer, warms it up," \
  "measures and stops it; oacheck and Node alternate, the first of each pair swapping every run," \
  "$runs runs each.  Load before: $load_before.  After: $load_after."
echo
echo "Requests per second are what a client sees, and on a busy machine they measure the share of" \
  "the CPUs each server got as much as the server.  The server's own CPU time per request" \
  "(user and system, from /proc, over the measured seconds) changes less with the load: the" \
  "second table."
echo
echo "| wrk connections | oacheck serve req/s, min / median / max | Node replay req/s, min / median / max | oacheck / Node, medians | per-run ratios |"
echo "|---:|---:|---:|---:|---:|"
for c in 8 256; do
  o=$(tr '\n' ' ' <"$tmp/rates.ours.$c")
  p=$(tr '\n' ' ' <"$tmp/rates.peer.$c")
  mo=$(printf '%s\n' "$o" | bench_median)
  mp=$(printf '%s\n' "$p" | bench_median)
  echo "| $c | $(printf '%s\n' "$o" | bench_spread) | $(printf '%s\n' "$p" | bench_spread) |" \
    "$(ratio "$mo" "$mp")× | $(bench_ratio_range "$o" "$p") |"
done
echo
echo "| wrk connections | oacheck serve CPU µs per request, min / median / max | Node replay CPU µs per request, min / median / max | Node / oacheck, medians | per-run ratios |"
echo "|---:|---:|---:|---:|---:|"
for c in 8 256; do
  o=$(tr '\n' ' ' <"$tmp/cpu.ours.$c")
  p=$(tr '\n' ' ' <"$tmp/cpu.peer.$c")
  mo=$(printf '%s\n' "$o" | bench_median)
  mp=$(printf '%s\n' "$p" | bench_median)
  echo "| $c | $(printf '%s\n' "$o" | bench_spread1) | $(printf '%s\n' "$p" | bench_spread1) |" \
    "$(ratio "$mp" "$mo")× | $(bench_ratio_range "$p" "$o") |"
done
echo
echo "Commands (from the build directory; BODY is the recorded request body; one server at a time):"
echo
echo '```'
echo "bench/oacheck serve \$srcdir/bench/data --port 0 2>/dev/null"
echo "node \$srcdir/bench/peer_serve.mjs \$srcdir/bench/data/stream-basic.cassette.gz 0"
echo "BENCH_BODY=BODY wrk -t2 -c8 -d${dur}s -s \$srcdir/bench/serve-post.lua http://127.0.0.1:PORT/v1/chat/completions"
echo "BENCH_BODY=BODY wrk -t2 -c256 -d${dur}s -s \$srcdir/bench/serve-post.lua http://127.0.0.1:PORT/v1/chat/completions"
echo '```'
echo
echo "Every run, in order:"
echo
echo '```'
cat "$tmp/raw"
echo '```'
echo
