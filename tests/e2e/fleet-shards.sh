#!/bin/sh
# fleet-shards.sh — shards of a 400-case run (a generated suite replayed
# from the shipped recordings): the 4 shards merge to exactly the unsharded
# results; 20 cases slotted in between move no existing case to another
# shard; --durations balances the shards' recorded time to within 20%;
# --shard auto reads each CI engine's variables; a merge that lacks a
# shard says so in every report and exits 1.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
GEN="${OACHECK_BUILDDIR:-.}/tests/e2e/fleet-gen"
[ -x "$GEN" ] || fail "$GEN is not built (make check builds it)"
S="$OACHECK_SRCDIR/suites"
SRC="$S/plain.json $S/streaming.json $S/errors.json $S/json-schema.json $S/tool-call.json"
# no CI engine's variables leak in from the machine running the tests
unset OACHECK_SHARD_INDEX OACHECK_SHARD_TOTAL CI_NODE_INDEX CI_NODE_TOTAL \
  BUILDKITE_PARALLEL_JOB BUILDKITE_PARALLEL_JOB_COUNT JOB_COMPLETION_INDEX 2>/dev/null || true

# run ARGS... : oacheck run, where 1 (a case failed) is as good as 0
run() {
  set +e
  "$OACHECK" run -q "$@" >"$TMP/run.out" 2>"$TMP/run.err"
  st=$?
  set -e
  [ "$st" -le 1 ] || { cat "$TMP/run.err" >&2; fail "'oacheck run $*' exited $st"; }
}
# plan SUITE ARGS... : "suite/case<TAB>" lines of the plan, sorted
plan() {
  suite=$1; shift
  expect_status 0 "$OACHECK" run "$suite" --list "$@"
  sed -n 's/^[^\t]*\t\([^\t]*\).*/\1/p' "$TMP/out" | sort
}

# shellcheck disable=SC2086
"$GEN" suite "$TMP/fleet.json" 400 $SRC || fail "fleet-gen suite failed"
run "$TMP/fleet.json" --json "$TMP/all.json"
for k in 1 2 3 4; do
  run "$TMP/fleet.json" --shard "$k/4" --json "$TMP/s$k.json"
done
total=0
for k in 1 2 3 4; do
  n=$(plan "$TMP/fleet.json" --shard "$k/4" | wc -l)
  [ "$n" -gt 50 ] || fail "shard $k of 4 holds only $n of 400 cases"
  total=$((total + n))
done
[ "$total" = 400 ] || fail "the 4 shards hold $total cases, not 400"
expect_grep '"method":[[:space:]]*"hash"' "$TMP/s1.json"
expect_grep '"source":[[:space:]]*"option"' "$TMP/s1.json"

# the inputs in another order than their numbers
expect_status 0 "$OACHECK" report merge "$TMP/s3.json" "$TMP/s1.json" "$TMP/s4.json" "$TMP/s2.json" \
  -o "$TMP/merged.json"
expect_no_grep 'missing|warning' "$TMP/err"
# What may differ, and only that: when each run started and finished, its
# command line, the case and run durations, and the shard bookkeeping.
NORM="/oacheck/started /oacheck/finished /oacheck/command /oacheck/shard /oacheck/shards \
  /oacheck/merged_from /summary/duration_ms /results/*/duration_ms"
# shellcheck disable=SC2086
"$GEN" normalise "$TMP/merged.json" "$TMP/merged.canon" $NORM
# shellcheck disable=SC2086
"$GEN" normalise "$TMP/all.json" "$TMP/all.canon" $NORM
cmp "$TMP/merged.canon" "$TMP/all.canon" || fail "the merged shards differ from the unsharded run"
n=$(grep -o '"case":' "$TMP/all.canon" | wc -l)
[ "$n" = 400 ] || fail "the unsharded run holds $n cases"
pass "4 shards of a 400-case run merge to exactly the unsharded results (canonical JSON)"

# 20 more cases, slotted in between (the first at the very start): every
# case keeps its shard
# shellcheck disable=SC2086
"$GEN" suite "$TMP/fleet420.json" 400 20 $SRC || fail "fleet-gen suite failed"
for k in 1 2 3 4; do
  plan "$TMP/fleet.json" --shard "$k/4" | sed "s/\$/ $k/" >>"$TMP/before"
  plan "$TMP/fleet420.json" --shard "$k/4" | sed "s/\$/ $k/" >>"$TMP/after"
done
[ "$(grep -c 'fleet/new-' "$TMP/after")" = 20 ] || fail "the 20 new cases are not all planned"
grep -v 'fleet/new-' "$TMP/after" | sort >"$TMP/after.old"
sort "$TMP/before" >"$TMP/before.s"
cmp "$TMP/before.s" "$TMP/after.old" || { diff "$TMP/before.s" "$TMP/after.old" | head >&2; fail "adding 20 cases moved existing cases"; }
pass "adding 20 cases moves no existing case to another shard"

# balanced by recorded durations: a few cases last 100 times longer
"$GEN" durations "$TMP/all.json" "$TMP/durations.json"
"$GEN" durtable "$TMP/durations.json" >"$TMP/durtable"
spread() {
  : >"$TMP/load"
  for k in 1 2 3 4; do
    plan "$TMP/fleet.json" --shard "$k/4" "$@" | sed "s/\$/ $k/" >>"$TMP/load"
  done
  awk -F'\t' 'NR == FNR { ms[$1] = $2; next }
              { split($0, a, " "); sum[a[2]] += ms[a[1]] }
              END { lo = -1; hi = 0
                    for(k in sum) { if(lo < 0 || sum[k] < lo) lo = sum[k]; if(sum[k] > hi) hi = sum[k] }
                    printf "%.1f %.0f %.0f\n", 100 * (hi - lo) / hi, lo, hi }' "$TMP/durtable" "$TMP/load"
}
set -- $(spread)
echo "by hash alone: shards' recorded time differs by $1% ($2 to $3 ms)"
set -- $(spread --durations "$TMP/durations.json")
echo "with --durations: $1% ($2 to $3 ms)"
awk -v p="$1" 'BEGIN { exit !(p < 20) }' || fail "with --durations the shards' recorded time differs by $1%"
run "$TMP/fleet.json" --shard 2/4 --durations "$TMP/durations.json" --json "$TMP/d2.json"
expect_grep '"method":[[:space:]]*"durations"' "$TMP/d2.json"
expect_grep '"digest":[[:space:]]*"[0-9a-f]{16}"' "$TMP/d2.json"
# the same file gives the same plan: the four shards hold every case once
plan "$TMP/fleet.json" --shard 1/4 --durations "$TMP/durations.json" >"$TMP/d.all"
for k in 2 3 4; do plan "$TMP/fleet.json" --shard "$k/4" --durations "$TMP/durations.json" >>"$TMP/d.all"; done
[ "$(sort -u "$TMP/d.all" | wc -l)" = 400 ] && [ "$(wc -l <"$TMP/d.all")" = 400 ] ||
  fail "the durations plan does not hold each case exactly once"
pass "--durations: the shards' summed recorded durations differ by $1% (< 20%)"

# --shard auto: each engine's variables name the same shard as K/N
plan "$TMP/fleet.json" --shard 2/4 >"$TMP/want"
OACHECK_SHARD_INDEX=2 OACHECK_SHARD_TOTAL=4 plan "$TMP/fleet.json" --shard auto >"$TMP/got.oa"
CI_NODE_INDEX=2 CI_NODE_TOTAL=4 plan "$TMP/fleet.json" --shard auto >"$TMP/got.gl"
BUILDKITE_PARALLEL_JOB=1 BUILDKITE_PARALLEL_JOB_COUNT=4 plan "$TMP/fleet.json" --shard auto >"$TMP/got.bk"
JOB_COMPLETION_INDEX=1 plan "$TMP/fleet.json" --shard auto --shard-total 4 >"$TMP/got.k8s"
for e in oa gl bk k8s; do
  cmp -s "$TMP/want" "$TMP/got.$e" || fail "--shard auto ($e) is not shard 2/4"
done
CI_NODE_INDEX=3 CI_NODE_TOTAL=4 run "$TMP/fleet.json" --shard auto --json "$TMP/auto.json"
expect_grep '"source":[[:space:]]*"CI_NODE_INDEX"' "$TMP/auto.json"
expect_status 2 "$OACHECK" run "$TMP/fleet.json" --shard auto --list
expect_grep 'no shard in the environment: set OACHECK_SHARD_INDEX' "$TMP/err"
JOB_COMPLETION_INDEX=1 expect_status 2 "$OACHECK" run "$TMP/fleet.json" --shard auto --list
expect_grep 'give --shard-total N' "$TMP/err"
CI_NODE_INDEX=5 CI_NODE_TOTAL=4 expect_status 2 "$OACHECK" run "$TMP/fleet.json" --shard auto --list
expect_grep 'CI_NODE_INDEX=5 is outside 1..4' "$TMP/err"
expect_status 2 "$OACHECK" run "$TMP/fleet.json" --shard 5/4 --list
expect_status 2 "$OACHECK" run "$TMP/fleet.json" --durations "$TMP/durations.json" --list
expect_grep 'durations needs --shard' "$TMP/err"
echo '{"targets": []}' >"$TMP/notresults.json"
expect_status 2 "$OACHECK" run "$TMP/fleet.json" --shard 1/2 --durations "$TMP/notresults.json" --list
expect_grep 'notresults\.json' "$TMP/err"
pass "--shard auto: OACHECK_SHARD_*, GitLab, Buildkite and Kubernetes variables; clear errors"

# a merge that lacks shard 3: an error (it makes the exit status 1, so it
# must not read as a warning), and every report says so
expect_status 1 "$OACHECK" report merge "$TMP/s1.json" "$TMP/s2.json" "$TMP/s4.json" -o "$TMP/gap.json" \
  --junit "$TMP/gap.xml" --html "$TMP/gap.html" --markdown "$TMP/gap.md"
expect_grep '^oacheck report: error: shard 3 of 4 is missing for target llama-server: its cases did not run$' "$TMP/err"
expect_no_grep 'warning' "$TMP/err"
expect_grep '"missing":[[:space:]]*\[3\]' "$TMP/gap.json"
expect_grep '<div class="banner" id="shards-problem" role="alert"><b>Incomplete run\.</b><br>shard 3 of 4 is missing for target llama-server' "$TMP/gap.html"
expect_grep '<testsuite name="oacheck.shards" package="oacheck" id="[0-9]+" tests="1" failures="0" errors="1"' "$TMP/gap.xml"
expect_grep '<error type="error" message="shard 3 of 4 is missing for target llama-server: its cases did not run"/>' "$TMP/gap.xml"
expect_grep '^> \*\*Warning:\*\* shard 3 of 4 is missing for target llama-server' "$TMP/gap.md"
# rendered later it changes no exit status: a warning there
expect_status 0 "$OACHECK" report render "$TMP/gap.json"
expect_grep '^oacheck report: warning: shard 3 of 4 is missing' "$TMP/err"
# shards of two different plans do not fit together
expect_status 1 "$OACHECK" report merge "$TMP/s1.json" "$TMP/d2.json" -o "$TMP/mixed.json"
expect_grep '^oacheck report: error: .*do not fit together: the inputs were split differently' "$TMP/err"
# and the missing shard completes it
expect_status 0 "$OACHECK" report merge "$TMP/gap.json" "$TMP/s3.json" -o "$TMP/whole.json"
pass "a merge without shard 3: an error, exit 1, shown in JSON, HTML, JUnit and Markdown; completed by it"
