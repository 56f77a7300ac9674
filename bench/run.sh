#!/bin/sh
# run.sh — `make bench`: runs every bench/section-*.sh in name order and
# writes BENCHMARKS.md at the top of the source tree: the machine, the
# date, then each section's markdown (its commands, our figures and the
# peer's from the same invocation).  Builds nothing: make has built the
# bench programs.  A new benchmark is a new section-NN-name.sh that
# prints one markdown section; it gets BENCH_SRCDIR, BENCH_BUILDDIR,
# BENCH_RUNS and NODE in its environment and may source bench/lib.sh.
set -eu
BENCH_SRCDIR=${BENCH_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
BENCH_BUILDDIR=${BENCH_BUILDDIR:-$(pwd)}
BENCH_RUNS=${BENCH_RUNS:-3}
NODE=${NODE:-$(command -v node || true)}
out=${BENCH_OUT:-$BENCH_SRCDIR/BENCHMARKS.md}
export BENCH_SRCDIR BENCH_BUILDDIR BENCH_RUNS NODE
. "$BENCH_SRCDIR/bench/lib.sh"

tmp=$(mktemp "${TMPDIR:-/tmp}/oacheck-bench.XXXXXX")
trap 'rm -f "$tmp"' EXIT

cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)
cc_version=$(${CC:-cc} --version 2>/dev/null | head -n 1)
{
  echo "# Benchmarks"
  echo
  echo "Written by \`make bench\` (bench/run.sh); rerun it rather than editing this file."
  echo "Speed is measured here and never asserted in tests."
  echo
  echo "- Date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "- Machine: $(nproc) CPUs, ${cpu:-unknown CPU}; $(uname -sr)"
  echo "- Load when the run started: $(bench_load)" \
    "(other work on the machine makes figures noisy: compare within one run, and mind the" \
    "sections' own load lines and spreads)"
  echo "- Compiler: ${cc_version:-unknown}; bench programs built with -O2, no sanitizers"
  if [ -n "$NODE" ]; then
    echo "- Node: $("$NODE" --version)"
  fi
  echo
  found=0
  for s in "$BENCH_SRCDIR"/bench/section-*.sh; do
    [ -f "$s" ] || continue
    found=1
    echo "running $(basename "$s")" >&2
    if ! sh "$s"; then
      echo "**$(basename "$s") failed**; see the output of \`make bench\`."
      echo
    fi
  done
  [ "$found" = 1 ] || echo "No bench/section-*.sh found."
} >"$tmp"
cp "$tmp" "$out"
echo "wrote $out" >&2
