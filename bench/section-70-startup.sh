#!/bin/sh
# section-70-startup.sh — start-up as a ratio to bench/empty, a program
# that does nothing linked against the same libraries (the dynamic
# loader's floor): `oacheck --version`, and `oacheck run --list`, which
# loads and checks every shipped suite against the suite schema and plans
# them (the response schemas and the recordings are loaded only when a
# case runs).  hyperfine, no shell, warm cache; medians, and CPU time,
# which a loaded machine disturbs less.
set -eu
. "$BENCH_SRCDIR/bench/lib.sh"

b=$BENCH_BUILDDIR/bench
runs=${BENCH_STARTUP_RUNS:-200}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oacheck-bench-startup.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "## Start-up"
echo
if ! command -v hyperfine >/dev/null 2>&1; then
  echo "Skipped: hyperfine is needed (Debian package hyperfine)."
  echo
  exit 0
fi
OACHECK_DATADIR=$BENCH_SRCDIR
export OACHECK_DATADIR
hyperfine -N --warmup 20 --runs "$runs" --export-json "$tmp/h.json" \
  "$b/empty" "$b/oacheck --version" "$b/oacheck run --list" >/dev/null 2>"$tmp/h.err" || {
  echo "hyperfine failed: $(tail -n 2 "$tmp/h.err" | tr '\n' ' ')"
  echo
  exit 0
}
# field NAME INDEX: the NAME figure of the INDEX-th command (1-based) in ms
field() {
  tr -d '\n ' <"$tmp/h.json" | sed 's/"command":/\n/g' | sed -n "$(($2 + 1))p" |
    sed -n "s/.*\"$1\":\([0-9.e-]*\).*/\1/p" | awk '{ printf "%.3f", $1 * 1000 }'
}
e_med=$(field median 1); v_med=$(field median 2); l_med=$(field median 3)
e_cpu=$(awk -v u="$(field user 1)" -v s="$(field system 1)" 'BEGIN { printf "%.3f", u + s }')
v_cpu=$(awk -v u="$(field user 2)" -v s="$(field system 2)" 'BEGIN { printf "%.3f", u + s }')
l_cpu=$(awk -v u="$(field user 3)" -v s="$(field system 3)" 'BEGIN { printf "%.3f", u + s }')
echo "bench/empty links $(ldd "$b/empty" 2>/dev/null | wc -l | tr -d ' ') shared objects, bench/oacheck" \
  "$(ldd "$b/oacheck" 2>/dev/null | wc -l | tr -d ' '); $runs runs each after 20 warm-ups."
echo
echo "| command | median wall | / empty | mean CPU (user + system) | / empty | goal |"
echo "|---|---:|---:|---:|---:|---:|"
echo "| bench/empty | $e_med ms | 1.00× | $e_cpu ms | 1.00× | |"
echo "| oacheck --version | $v_med ms | $(ratio "$v_med" "$e_med")× | $v_cpu ms | $(ratio "$v_cpu" "$e_cpu")× | ≤ 1.1× |"
echo "| oacheck run --list | $l_med ms | $(ratio "$l_med" "$e_med")× | $l_cpu ms | $(ratio "$l_cpu" "$e_cpu")× | ≤ 1.5× |"
echo
echo "Command (from the build directory):"
echo
echo '```'
echo "OACHECK_DATADIR=\$srcdir hyperfine -N --warmup 20 --runs $runs bench/empty 'bench/oacheck --version' 'bench/oacheck run --list'"
echo '```'
echo
