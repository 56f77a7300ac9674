#!/bin/sh
# report-render-scale.sh — `oacheck report render`, `merge` and `diff` read
# results files a result at a time (oc_results_load_each): what render
# writes is byte for byte what the run wrote (JSON and JUnit), merge and
# diff reach the verdicts they must, and the memory of none grows with the
# results in the files (each goes to a spool as it is read), where
# parsing a whole file held about fourteen times the file.  Peak RSS comes
# from tests/e2e/measure (wait4); the bound is on growth per result, never
# on time.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
measure_init

# measured KV CMD... : CMD measured into KV, stdout and stderr in $TMP/out
# and $TMP/err; anything but exit 0 fails the test
measured() {
  kv=$1; shift
  set +e
  "$MEASURE" -o "$kv" "$@" >"$TMP/out" 2>"$TMP/err"
  st=$?
  set -e
  [ "$st" = 0 ] || { cat "$TMP/err" >&2; fail "'$*' exited $st"; }
}

# under_4k WHAT KV1 KV2 N : peak RSS grows by under 4 KiB per unit from
# KV1 to KV2 (N units more); a result is ~17 KB of JSON in the file and
# several times that as a tree, so held whole they would add megabytes
under_4k() {
  rss_checked || return 0
  per=$(rss_per "$2" "$3" "$4")
  echo "$1 peak RSS: $(rss "$2") KiB, then $(rss "$3") KiB with $4 results more: $per bytes each"
  [ "$per" -lt 4096 ] || fail "$1's peak RSS grows by $per bytes per result"
  pass "$1's memory does not grow with the results ($per bytes each)"
}

serve_start "$OACHECK_SRCDIR/suites/recordings/llama-server" -q
for n in 100 700; do
  stream_suite "$n" >"$TMP/s$n.json"
  expect_status 0 "$OACHECK" run "$TMP/s$n.json" --target "$URL" --model tiny-random.gguf --jobs 8 \
    --json "$TMP/run$n.json" --junit "$TMP/run$n.xml"
  measured "$TMP/m$n" "$OACHECK" report render "$TMP/run$n.json" --json "$TMP/r$n.json" \
    --junit "$TMP/r$n.xml" --html "$TMP/r$n.html"
  cmp -s "$TMP/run$n.json" "$TMP/r$n.json" || fail "render's JSON of $n results is not the run's"
  cmp -s "$TMP/run$n.xml" "$TMP/r$n.xml" || fail "render's JUnit of $n results is not the run's"
  got=$(grep -o 'class="case"' "$TMP/r$n.html" | wc -l | tr -d ' ')
  [ "$got" = "$n" ] || fail "the HTML of $n results shows $got cases"
done
serve_stop
pass "render writes the run's own JSON and JUnit, and every case in the HTML"
under_4k render "$TMP/m100" "$TMP/m700" 600

# the summary alone, from the file read a result at a time
expect_status 0 "$OACHECK" report render "$TMP/run700.json"
expect_grep '^700 cases: 700 pass, 0 fail, 0 error, 0 skip' "$TMP/out"
pass "the summary of 700 results"

# merge: each run with itself, every case twice and the later winning
for n in 100 700; do
  measured "$TMP/mm$n" "$OACHECK" report merge "$TMP/run$n.json" "$TMP/run$n.json" \
    -o "$TMP/merged$n.json" --junit "$TMP/merged$n.xml"
  # in the prefix of report merge's other lines
  expect_grep "^oacheck report: warning: $n duplicate case results; the later input wins\$" "$TMP/err"
  got=$(grep -o '"case": "s[0-9]*"' "$TMP/merged$n.json" | sort -u | wc -l | tr -d ' ')
  [ "$got" = "$n" ] || fail "the merge of $n cases with themselves holds $got of them"
done
pass "a run merged with itself: every case once"
under_4k merge "$TMP/mm100" "$TMP/mm700" 1200

# diff: each run against the merge of itself, the same cases: no change
for n in 100 700; do
  measured "$TMP/md$n" "$OACHECK" report diff "$TMP/run$n.json" "$TMP/merged$n.json"
  expect_grep '^no changes$' "$TMP/out"
  expect_grep "^new: $n cases, $n pass" "$TMP/out"
done
pass "a run against its merge with itself: no changes"
under_4k diff "$TMP/md100" "$TMP/md700" 1200

# --canonical: members sorted, no spaces, the results in their sorted place;
# a fixed point
expect_status 0 "$OACHECK" report render "$TMP/run700.json" --json "$TMP/c1.json" --canonical
expect_status 0 "$OACHECK" report render "$TMP/c1.json" --json "$TMP/c2.json" --canonical
cmp -s "$TMP/c1.json" "$TMP/c2.json" || fail "canonical JSON is not canonical again"
head -c 12 "$TMP/c1.json" | grep -q '^{"oacheck":{' || fail "canonical JSON does not start with the sorted first member"
grep -q '}],"summary":{"error":0,"fail":0,' "$TMP/c1.json" || fail "the results are not where \"results\" sorts"
[ "$(grep -o '"case":"s[0-9]*"' "$TMP/c1.json" | wc -l | tr -d ' ')" = 700 ] || fail "canonical JSON lost results"
pass "--canonical from results read one at a time"
