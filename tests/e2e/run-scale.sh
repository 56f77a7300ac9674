#!/bin/sh
# run-scale.sh — oacheck run when there are many cases and a slow server:
# a target that answers slowly under load (oacheck serve pacing a stream
# at a tenth of its recorded speed, drip between events), 32 cases in
# flight, does not make oacheck's memory grow with the cases that
# finished — their results are spooled, not kept — and every case is
# still in the reports.  Peak RSS comes from tests/e2e/measure (wait4);
# the bound is on growth per finished case, never on time.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

measure_init
stream_suite 100 >"$TMP/s100.json"
stream_suite 600 >"$TMP/s600.json"

serve_start "$OACHECK_SRCDIR/suites/recordings/llama-server" --speed 0.1 --fault drip=2 -q
for n in 100 600; do
  set +e
  "$MEASURE" -o "$TMP/m$n" "$OACHECK" run "$TMP/s$n.json" --target "$URL" --model tiny-random.gguf \
    --jobs 32 --json "$TMP/r$n.json" >"$TMP/out$n" 2>"$TMP/err$n"
  st=$?
  set -e
  [ "$st" -le 1 ] || { tail -n 20 "$TMP/err$n" >&2; fail "run of $n cases exited $st"; }
  expect_grep "^$n cases: $n passed" "$TMP/out$n"
  got=$(grep -Eo '"case":[[:space:]]*"s[0-9]+"' "$TMP/r$n.json" | sort -u | wc -l | tr -d ' ')
  [ "$got" = "$n" ] || fail "the JSON results of $n cases hold $got of them"
done
serve_stop
pass "600 slow streams, 32 at a time: every case in the results"

r1=$(rss "$TMP/m100")
r2=$(rss "$TMP/m600")
per=$(( (r2 - r1) * 1024 / 500 ))
echo "peak RSS: 100 cases $r1 KiB, 600 cases $r2 KiB: $per bytes per extra finished case"
# a finished case's result is ~15 KB of JSON and several times that as a
# tree: kept in memory, 500 more of them would add megabytes
[ "$per" -lt 8192 ] || fail "peak RSS grows by $per bytes per finished case (100 cases: $r1 KiB, 600: $r2 KiB)"
pass "memory does not grow with the finished cases ($per bytes each)"
