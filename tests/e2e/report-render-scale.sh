#!/bin/sh
# report-render-scale.sh — `oacheck report render`, `merge` and `diff` read
# results files a result at a time (oc_results_load_each): what render
# writes is byte for byte what the run wrote (JSON and JUnit), and the
# memory of none grows with the results in the files (each goes
# to a spool as it is read), where parsing a whole file held about
# fourteen times the file.  Peak RSS
# comes from tests/e2e/measure (wait4); the bound is on growth per result,
# never on time.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

MEASURE="${OACHECK_BUILDDIR:-.}/tests/e2e/measure"
[ -x "$MEASURE" ] || fail "$MEASURE is not built (make check builds it)"
# AddressSanitizer keeps freed memory in quarantine: without it, resident
# memory is the program's own
ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=0:thread_local_quarantine_size_kb=0"
export ASAN_OPTIONS

# suite N: N cases of the recorded stream-basic, named by X-Oacheck-Case
suite() {
  awk -v n="$1" 'BEGIN {
    printf "{\"suite\":\"scale\",\"description\":\"many results\",\"cases\":[\n"
    for (i = 0; i < n; i++)
      printf "%s{\"name\":\"s%d\",\"description\":\"d\",\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"headers\":{\"X-Oacheck-Case\":\"streaming.stream-basic\"},\"body\":{\"model\":\"${MODEL}\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}}}\n", i ? "," : "", i
    print "]}" }'
}

serve_start "$OACHECK_SRCDIR/suites/recordings/llama-server" -q
for n in 100 700; do
  suite "$n" >"$TMP/s$n.json"
  expect_status 0 "$OACHECK" run "$TMP/s$n.json" --target "$URL" --model tiny-random.gguf --jobs 8 \
    --json "$TMP/run$n.json" --junit "$TMP/run$n.xml"
  set +e
  "$MEASURE" -o "$TMP/m$n" "$OACHECK" report render "$TMP/run$n.json" --json "$TMP/r$n.json" \
    --junit "$TMP/r$n.xml" --html "$TMP/r$n.html" >"$TMP/out$n" 2>"$TMP/err$n"
  st=$?
  set -e
  [ "$st" = 0 ] || { cat "$TMP/err$n" >&2; fail "report render of $n results exited $st"; }
  cmp -s "$TMP/run$n.json" "$TMP/r$n.json" || fail "render's JSON of $n results is not the run's"
  cmp -s "$TMP/run$n.xml" "$TMP/r$n.xml" || fail "render's JUnit of $n results is not the run's"
  got=$(grep -o 'class="case"' "$TMP/r$n.html" | wc -l | tr -d ' ')
  [ "$got" = "$n" ] || fail "the HTML of $n results shows $got cases"
done
serve_stop
pass "render writes the run's own JSON and JUnit, and every case in the HTML"

# the summary alone, from the file read a result at a time
expect_status 0 "$OACHECK" report render "$TMP/run700.json"
expect_grep '^700 cases: 700 pass, 0 fail, 0 error, 0 skip' "$TMP/out"
pass "the summary of 700 results"

if rss_checked; then
  rss() { sed -n 's/.*maxrss_kb=\([0-9]*\).*/\1/p' "$1"; }
  r1=$(rss "$TMP/m100")
  r2=$(rss "$TMP/m700")
  per=$(( (r2 - r1) * 1024 / 600 ))
  size=$(wc -c <"$TMP/run700.json" | tr -d ' ')
  echo "peak RSS: 100 results $r1 KiB, 700 results $r2 KiB: $per bytes per extra result (the file: $size bytes)"
  # a result is ~17 KB of JSON in the file and several times that as a
  # tree: held whole, 600 more of them would add tens of megabytes
  [ "$per" -lt 4096 ] || fail "render's peak RSS grows by $per bytes per result (100: $r1 KiB, 700: $r2 KiB)"
  pass "render's memory does not grow with the results ($per bytes each)"

  # merge: the 700-case run with itself (every case twice, the later
  # wins) against the 100-case run with itself
  for n in 100 700; do
    set +e
    "$MEASURE" -o "$TMP/mm$n" "$OACHECK" report merge "$TMP/run$n.json" "$TMP/run$n.json" \
      -o "$TMP/merged$n.json" --junit "$TMP/merged$n.xml" >"$TMP/out" 2>"$TMP/err"
    st=$?
    set -e
    [ "$st" = 0 ] || { cat "$TMP/err" >&2; fail "merge of $n results exited $st"; }
    expect_grep "$n duplicate case result" "$TMP/err"
  done
  got=$(grep -o '"case": "s[0-9]*"' "$TMP/merged700.json" | sort -u | wc -l | tr -d ' ')
  [ "$got" = 700 ] || fail "the merge of 700 cases with themselves holds $got of them"
  m1=$(rss "$TMP/mm100")
  m2=$(rss "$TMP/mm700")
  mper=$(( (m2 - m1) * 1024 / 1200 ))
  echo "merge peak RSS: 2 x 100 results $m1 KiB, 2 x 700 results $m2 KiB: $mper bytes per extra result"
  [ "$mper" -lt 4096 ] || fail "merge's peak RSS grows by $mper bytes per result (200: $m1 KiB, 1400: $m2 KiB)"
  pass "merge's memory does not grow with the results ($mper bytes each)"

  # diff: each run against itself, then against the merge of itself (the
  # same cases: no change either way)
  for n in 100 700; do
    set +e
    "$MEASURE" -o "$TMP/md$n" "$OACHECK" report diff "$TMP/run$n.json" "$TMP/merged$n.json" \
      >"$TMP/diff$n" 2>"$TMP/err"
    st=$?
    set -e
    [ "$st" = 0 ] || { cat "$TMP/err" >&2; fail "diff of $n results exited $st"; }
    expect_grep '^no changes$' "$TMP/diff$n"
    expect_grep "^new: $n cases, $n pass" "$TMP/diff$n"
  done
  d1=$(rss "$TMP/md100")
  d2=$(rss "$TMP/md700")
  dper=$(( (d2 - d1) * 1024 / 1200 ))
  echo "diff peak RSS: 2 x 100 results $d1 KiB, 2 x 700 results $d2 KiB: $dper bytes per extra result"
  [ "$dper" -lt 4096 ] || fail "diff's peak RSS grows by $dper bytes per result (200: $d1 KiB, 1400: $d2 KiB)"
  pass "diff's memory does not grow with the results ($dper bytes each)"
fi

# --canonical: members sorted, no spaces, the results in their sorted place;
# a fixed point
expect_status 0 "$OACHECK" report render "$TMP/run700.json" --json "$TMP/c1.json" --canonical
expect_status 0 "$OACHECK" report render "$TMP/c1.json" --json "$TMP/c2.json" --canonical
cmp -s "$TMP/c1.json" "$TMP/c2.json" || fail "canonical JSON is not canonical again"
head -c 12 "$TMP/c1.json" | grep -q '^{"oacheck":{' || fail "canonical JSON does not start with the sorted first member"
grep -q '}],"summary":{"error":0,"fail":0,' "$TMP/c1.json" || fail "the results are not where \"results\" sorts"
[ "$(grep -o '"case":"s[0-9]*"' "$TMP/c1.json" | wc -l | tr -d ' ')" = 700 ] || fail "canonical JSON lost results"
pass "--canonical from results read one at a time"
