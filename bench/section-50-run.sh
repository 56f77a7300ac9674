#!/bin/sh
# section-50-run.sh — `oacheck run` end to end against `oacheck serve`:
# a generated suite of N copies of the live stream-basic request
# (bench/data/stream-basic.cassette.gz, 19 SSE events), --jobs 8, every
# rule on (no --allow), against the same endpoint as wrk POSTing the same
# body and the official openai-node SDK sending the same requests 8 at a
# time and reassembling each stream (bench/peer_run.mjs); then how the run
# scales from 1,000 to 100,000 cases, and 50 targets × 20 cases.  Every
# process is measured by bench/measure (wall time, CPU, peak RSS from
# wait4).  oacheck is bench/oacheck, -O2 without sanitizers.
set -eu
. "$BENCH_SRCDIR/bench/lib.sh"

b=$BENCH_BUILDDIR/bench
runs=$BENCH_RUNS
n=${BENCH_RUN_CASES:-3000}
dur=${BENCH_WRK_SECONDS:-5}
scale=${BENCH_RUN_SCALE:-1000 10000 100000}
cassette=$BENCH_SRCDIR/bench/data/stream-basic.cassette.gz
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oacheck-bench-run.XXXXXX")
serve_pid=""
cleanup() {
  [ -z "$serve_pid" ] || kill "$serve_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

echo "## oacheck run end to end: cases per second against wrk and openai-node"
echo

bench_cassette_split "$cassette" "$tmp/request.json"
model=$(sed -n 's/^{"model":"\([^"]*\)".*/\1/p' "$tmp/request.json")

"$b/oacheck" serve "$BENCH_SRCDIR/bench/data" --port 0 >"$tmp/serve.out" 2>/dev/null &
serve_pid=$!
port=$(bench_wait_port "$tmp/serve.out" "$serve_pid") || { echo "oacheck serve did not start."; echo; exit 1; }
url=http://127.0.0.1:$port

# A suite of N cases, each the recorded request with ${MODEL} for its model.
bench_suite "$tmp/request.json" 3000 >"$tmp/suite.3000.json"
[ "$n" = 3000 ] || bench_suite "$tmp/request.json" "$n" >"$tmp/suite.$n.json"

# run_ours SUITE OUTKV [ARGS...]: one measured run; its figures in OUTKV.
run_ours() {
  rs=$1
  ro=$2
  shift 2
  "$b/measure" -o "$ro" "$b/oacheck" run "$rs" --target "$url" --model "$model" --jobs 8 "$@" \
    >"$tmp/run.out" 2>"$tmp/run.err" || true
  st=$(kv status "$(cat "$ro")")
  if [ "$st" != 0 ]; then
    echo "oacheck run exited $st:" >&2
    tail -n 5 "$tmp/run.err" >&2
    return 1
  fi
}

# The run must pass every case before anything is timed.
run_ours "$tmp/suite.3000.json" "$tmp/check.kv" || { echo "oacheck run did not pass every case."; echo; exit 1; }
grep -q '3000 passed' "$tmp/run.out" || { echo "oacheck run did not pass every case."; echo; exit 1; }

have_wrk=0
command -v wrk >/dev/null 2>&1 && have_wrk=1
have_node=0
if [ -n "${NODE:-}" ] && [ -x "$NODE" ] && [ -f "$BENCH_SRCDIR/tests/node/node_modules/openai/package.json" ]; then
  have_node=1
fi
openai_version=""
[ "$have_node" = 0 ] ||
  openai_version=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$BENCH_SRCDIR/tests/node/node_modules/openai/package.json" | head -n 1)

# cases per second and CPU ms per case of a measured line
rate_of() { awk -v n="$n" -v w="$(kv wall_s "$1")" 'BEGIN { printf "%.1f", n / w }'; }
cpu_of() { awk -v n="$n" -v c="$(kv cpu_s "$1")" 'BEGIN { printf "%.4f", c * 1000 / n }'; }

# serve's CPU so far in clock ticks (fields 14 and 15 of /proc/PID/stat,
# counted after the command name, which may hold spaces)
clk_tck=$(getconf CLK_TCK 2>/dev/null || echo 100)
serve_ticks() {
  [ -r "/proc/$serve_pid/stat" ] || return 0
  sed 's/^.*) //' "/proc/$serve_pid/stat" | awk '{ print $12 + $13 }'
}
serve_us=""
ours_rate=""; ours_cpu=""; one_rate=""; one_cpu=""; floor_rate=""; floor_cpu=""
wrk_rate=""; node_rate=""; node_cpu=""
for r in $(seq "$runs"); do
  run_ours "$tmp/suite.$n.json" "$tmp/ours.kv"
  line=$(cat "$tmp/ours.kv")
  echo "oacheck: $line" >>"$tmp/raw"
  ours_rate="$ours_rate $(rate_of "$line")"
  ours_cpu="$ours_cpu $(cpu_of "$line")"
  run_ours "$tmp/suite.$n.json" "$tmp/one.kv" --threads 1
  line=$(cat "$tmp/one.kv")
  echo "oacheck --threads 1: $line" >>"$tmp/raw"
  one_rate="$one_rate $(rate_of "$line")"
  one_cpu="$one_cpu $(cpu_of "$line")"
  if "$b/measure" -o "$tmp/floor.kv" "$b/transfer_floor" "$url/v1/chat/completions" "$tmp/request.json" \
       "$n" 8 >"$tmp/floor.out" 2>&1; then
    line=$(cat "$tmp/floor.kv")
    echo "libcurl alone: $line" >>"$tmp/raw"
    floor_rate="$floor_rate $(rate_of "$line")"
    floor_cpu="$floor_cpu $(cpu_of "$line")"
  else
    echo "libcurl alone failed: $(tail -n 2 "$tmp/floor.out" | tr '\n' ' ')" >>"$tmp/raw"
  fi
  if [ "$have_wrk" = 1 ]; then
    # the server's own CPU over wrk's run (utime + stime, /proc): what
    # each request costs the server, and so what is left for a client
    t0=$(serve_ticks)
    out=$(BENCH_BODY="$tmp/request.json" wrk -t2 -c8 -d"${dur}s" -s "$BENCH_SRCDIR/bench/serve-post.lua" \
      "$url/v1/chat/completions" 2>&1)
    t1=$(serve_ticks)
    rate=$(printf '%s\n' "$out" | sed -n 's/^Requests\/sec: *//p')
    reqs=$(printf '%s\n' "$out" | sed -n 's/^ *\([0-9]*\) requests in .*/\1/p')
    echo "wrk: $rate req/s, $reqs requests, serve CPU ticks $t0 -> $t1 $(printf '%s\n' "$out" | sed -n 's/^ *\(Non-2xx.*\|Socket errors.*\)$/\1/p' | tr '\n' ' ')" >>"$tmp/raw"
    wrk_rate="$wrk_rate $rate"
    [ -z "$t0" ] || [ -z "$t1" ] || [ -z "$reqs" ] ||
      serve_us="$serve_us $(awk -v a="$t0" -v b="$t1" -v hz="$clk_tck" -v n="$reqs" 'BEGIN { if (n > 0) printf "%.1f", (b - a) / hz * 1e6 / n }')"
  fi
  if [ "$have_node" = 1 ]; then
    if "$b/measure" -o "$tmp/node.kv" "$NODE" "$BENCH_SRCDIR/bench/peer_run.mjs" "$url" "$tmp/request.json" \
         "$n" 8 "$BENCH_SRCDIR/tests/node" >"$tmp/node.out" 2>&1; then
      line=$(cat "$tmp/node.kv")
      echo "openai-node: $line" >>"$tmp/raw"
      node_rate="$node_rate $(rate_of "$line")"
      node_cpu="$node_cpu $(cpu_of "$line")"
    else
      echo "openai-node failed: $(tail -n 3 "$tmp/node.out" | tr '\n' ' ')" >>"$tmp/raw"
    fi
  fi
done
mo=$(printf '%s\n' "$ours_rate" | bench_median)
mc=$(printf '%s\n' "$ours_cpu" | bench_median)
m1=$(printf '%s\n' "$one_rate" | bench_median)
m1c=$(printf '%s\n' "$one_cpu" | bench_median)
mf=$(printf '%s\n' "$floor_rate" | bench_median)
mfc=$(printf '%s\n' "$floor_cpu" | bench_median)
mw=$(printf '%s\n' "$wrk_rate" | bench_median)
mn=$(printf '%s\n' "$node_rate" | bench_median)
mnc=$(printf '%s\n' "$node_cpu" | bench_median)

echo "Suite: $n cases, each the recorded request of the live llama-server \`stream-basic\`" \
  "(\`bench/data/stream-basic.cassette.gz\`: 19 SSE events, 4,796 bytes) with \`\${MODEL}\` for" \
  "its model; \`oacheck serve\` (the same bench/oacheck) answers each one by its request key." \
  "oacheck runs every rule (no \`--allow\`), reads, validates and judges every chunk and writes" \
  "a result per case; its figure is the whole command (start-up, suite loading, identification," \
  "the cases, the summary).  wrk POSTs the same body to the same endpoint (-t2 -c8, ${dur} s)" \
  "and reads the answers, judging nothing.  openai-node ${openai_version:+$openai_version }" \
  "sends the same $n requests 8 at a time through \`chat.completions.stream\` and reassembles each" \
  "answer (\`finalChatCompletion\`).  *libcurl alone* (\`bench/transfer_floor\`) sends the same" \
  "$n requests through libcurl's multi interface, 8 at a time on one thread, and throws every answer" \
  "away: the most a client on oacheck's transport can do, before any checking.  oacheck runs with" \
  "its default threads ($(getconf _NPROCESSORS_ONLN 2>/dev/null || echo ?) here: one per CPU)" \
  "and with \`--threads 1\`.  All share the machine's CPUs with the server;" \
  "median of $runs runs each, alternating.  CPU is user + system of the whole process (wait4)."
echo
echo "| | cases/s (wrk: requests/s) | CPU per case | oacheck / peer, rate | peer / oacheck, CPU per case |"
echo "|---|---:|---:|---:|---:|"
echo "| oacheck run --jobs 8 | $(human "$mo") | ${mc:-n/a} ms | | |"
echo "| oacheck run --jobs 8 --threads 1 | $(human "$m1") | ${m1c:-n/a} ms | $(ratio "$mo" "$m1")× | $(ratio "$m1c" "$mc")× |"
echo "| libcurl alone, 8 at a time, nothing checked | $(human "$mf") | ${mfc:-n/a} ms | $(ratio "$mo" "$mf")× | $(ratio "$mfc" "$mc")× |"
if [ "$have_wrk" = 1 ]; then
  echo "| wrk -t2 -c8 | $(human "$mw") | | $(ratio "$mo" "$mw")× | |"
else
  echo "| wrk | not installed | | | |"
fi
if [ "$have_node" = 1 ]; then
  echo "| openai-node, 8 at a time | $(human "$mn") | ${mnc:-n/a} ms | $(ratio "$mo" "$mn")× | $(ratio "$mnc" "$mc")× |"
else
  echo "| openai-node | not installed (tests/node) | | | |"
fi
echo
echo "Goals (issue 15): oacheck ≥ 0.5× wrk's rate; ≥ 3× openai-node's cases/s at ≤ ⅓ of its CPU per case."
ms=$(printf '%s\n' "$serve_us" | bench_median)
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
[ "$have_wrk" = 0 ] || [ -z "$ms" ] || [ -z "$mw" ] ||
  echo "The budget that goal leaves: under wrk, \`oacheck serve\` spent $ms µs of CPU per request;" \
    "at half wrk's rate ($(human "$(awk -v w="$mw" 'BEGIN { printf "%.0f", w / 2 }')") cases/s), what the server" \
    "leaves of the machine's $ncpu CPUs gives a client" \
    "$(awk -v w="$mw" -v s="$ms" -v c="$ncpu" 'BEGIN { b = (c - w / 2 * s / 1e6) / (w / 2) * 1e6; printf "%.0f", b }') µs" \
    "of CPU per case for all of its work.  oacheck spends $(awk -v c="${mc:-0}" 'BEGIN { printf "%.0f", c * 1000 }') µs," \
    "libcurl alone $(awk -v c="${mfc:-0}" 'BEGIN { printf "%.0f", c * 1000 }') µs."
[ "$have_wrk" = 0 ] || [ -z "$mf" ] ||
  echo "The transport alone reaches $(ratio "$mf" "$mw")× wrk's rate in this run (oacheck with" \
    "--threads 1: $(ratio "$m1" "$mw")×, with its default threads: $(ratio "$mo" "$mw")×)."
echo

# ---- scaling ----------------------------------------------------------------
echo "### From 1,000 to 100,000 cases"
echo
rows=""
base_cpu=""
for s in $scale; do
  bench_suite "$tmp/request.json" "$s" >"$tmp/scale.json"
  "$b/measure" -o "$tmp/list.kv" "$b/oacheck" run "$tmp/scale.json" --target "$url" --model "$model" --list \
    >/dev/null 2>&1 || true
  run_ours "$tmp/scale.json" "$tmp/scale.kv" || { rows="$rows| $(human "$s") | failed | | | | |
"; continue; }
  line=$(cat "$tmp/scale.kv")
  list=$(cat "$tmp/list.kv")
  echo "scale $s: $line; --list: $list" >>"$tmp/raw"
  rate=$(awk -v n="$s" -v w="$(kv wall_s "$line")" 'BEGIN { printf "%.1f", n / w }')
  cpu=$(awk -v n="$s" -v c="$(kv cpu_s "$line")" 'BEGIN { printf "%.4f", c * 1000 / n }')
  [ -n "$base_cpu" ] || base_cpu=$cpu
  rss=$(kv maxrss_kb "$line")
  lrss=$(kv maxrss_kb "$list")
  per=$(awk -v r="$rss" -v l="$lrss" -v n="$s" 'BEGIN { v = (r - l) * 1024 / n; if (v < 0) v = 0; printf "%.0f", v }')
  rows="$rows| $(human "$s") | $(human "$rate") | $cpu ms | $(ratio "$cpu" "$base_cpu") | $(human "$rss") KiB | $(human "$lrss") KiB | $(human "$per") B |
"
done
echo "The same suite generated at each size, one run each, the same command as above."
echo "*Per finished case* is (peak RSS of the run − peak RSS of \`run --list\` of the same suite," \
  "which loads the suite and plans it) / cases: what a finished case keeps resident."
echo
echo "| cases | cases/s | CPU per case | CPU per case / first row | peak RSS | peak RSS, --list | resident per finished case |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
printf '%s' "$rows"
echo
echo "Goals: CPU per case flat (the ratio column near 1.00); ≤ 4 KiB resident per finished case."
echo

# ---- many targets -------------------------------------------------------------
bench_suite "$tmp/request.json" 20 >"$tmp/suite20.json"
set -- 
i=1
while [ $i -le 50 ]; do
  set -- "$@" --target "t$i=$url"
  i=$((i + 1))
done
if "$b/measure" -o "$tmp/fleet.kv" "$b/oacheck" run "$tmp/suite20.json" "$@" --model "$model" --jobs 8 \
     >"$tmp/fleet.out" 2>"$tmp/fleet.err"; then
  line=$(cat "$tmp/fleet.kv")
  echo "50 targets x 20 cases: $line" >>"$tmp/raw"
  echo "50 targets × 20 cases (1,000 cases, one \`--target\` per target, all on the same \`serve\`):" \
    "$(kv wall_s "$line") s, $(kv cpu_s "$line") CPU s, peak RSS $(human "$(kv maxrss_kb "$line")") KiB" \
    "($(tail -n 1 "$tmp/fleet.out"))."
else
  echo "50 targets × 20 cases: the run failed ($(tail -n 1 "$tmp/fleet.err"))."
fi
echo

echo "Commands (from the build directory; SUITE is generated, URL is the serve's, MODEL the recording's):"
echo
echo '```'
echo "bench/oacheck serve \$srcdir/bench/data --port 0"
echo "bench/measure -o KV bench/oacheck run SUITE --target URL --model MODEL --jobs 8 [--threads 1]"
echo "bench/measure -o KV bench/transfer_floor URL/v1/chat/completions BODY $n 8"
echo "BENCH_BODY=BODY wrk -t2 -c8 -d${dur}s -s \$srcdir/bench/serve-post.lua URL/v1/chat/completions"
echo "bench/measure -o KV node \$srcdir/bench/peer_run.mjs URL BODY $n 8 \$srcdir/tests/node"
echo "bench/measure -o KV bench/oacheck run SUITE --target URL --model MODEL --list"
echo "bench/measure -o KV bench/oacheck run SUITE20 --target t1=URL ... --target t50=URL --model MODEL --jobs 8"
echo '```'
echo
echo "Raw figures:"
echo
echo '```'
cat "$tmp/raw"
echo '```'
echo
