#!/bin/sh
# run-threads.sh — live cases shared among threads (--threads): each
# target's --jobs is dealt out among the threads, so the bound on what is
# in flight holds across them, and the verdicts are those of one thread.
# The bound is checked where it counts, at the server: `oacheck serve
# --overload 3=DIR` answers from the concurrency recordings only while
# more than 3 requests are in flight on it (docs/serve.md), and each
# answer is held 50 ms so that requests sent together are in flight
# together.  Nothing asserted depends on how long anything took.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

LIVE="$OACHECK_SRCDIR/suites/recordings/llama-server"
# chat's suites: the folder served holds chat's recordings
CHAT_SUITES="context-overflow errors json-schema llama-server models plain reasoning streaming tool-call"
CONC="$OACHECK_SRCDIR/tests/data/recordings/llama-server-concurrency"


serve_start "$LIVE" --overload "3=$CONC" --speed 4 --fault stall=50
OVER_ERR=$SERVE_ERR

# ---- 1. three threads, three jobs: one in flight each, never a fourth ----------------
expect_status 1 "$OACHECK" run $CHAT_SUITES --target "over=$URL" --jobs 3 --threads 3 -vv --json "$TMP/t3.json"
expect_grep 'live cases on 3 threads' "$TMP/err"
verdicts "$TMP/out" > "$TMP/v3"
[ "$(wc -l < "$TMP/v3")" = 69 ] || fail "69 verdicts expected, got $(wc -l < "$TMP/v3")"
expect_no_grep 'overloaded' "$OVER_ERR"
pass "--jobs 3 on 3 threads: the server never saw a fourth request in flight"

# ---- 2. the same verdicts on one thread ------------------------------------------------
expect_status 1 "$OACHECK" run $CHAT_SUITES --target "over=$URL" --jobs 3 --threads 1 -vv --json "$TMP/t1.json"
expect_grep 'live cases on 1 thread$' "$TMP/err"
verdicts "$TMP/out" > "$TMP/v1"
cmp -s "$TMP/v1" "$TMP/v3" || { diff -u "$TMP/v1" "$TMP/v3" >&2; fail "3 threads gave other verdicts than 1"; }
expect_no_grep 'overloaded' "$OVER_ERR"
for f in t1 t3; do
  "$OACHECK" validate "$OACHECK_SRCDIR/schemas/results.schema.json" "$TMP/$f.json" >/dev/null ||
    fail "$f.json does not match the results schema"
done
# the findings too, case by case: the results are in plan order whatever
# order the cases ended in, so the sequences of cases, rules and where
# each finding points are the same
for f in t1 t3; do
  tr -d ' \n' < "$TMP/$f.json" | grep -Eo '"case":"[^"]*"|"rule":"[A-Z0-9-]*"|"where":\{[^}]*\}' > "$TMP/$f.seq"
done
[ "$(grep -c '"rule"' "$TMP/t1.seq")" -gt 20 ] || fail "too few findings to compare"
cmp -s "$TMP/t1.seq" "$TMP/t3.seq" || { diff -u "$TMP/t1.seq" "$TMP/t3.seq" >&2; fail "3 threads gave other findings than 1"; }
pass "one thread and three: the same verdicts and findings"

# ---- 3. the server's count can fire: 4 in flight is seen ------------------------------
expect_status 1 "$OACHECK" run $CHAT_SUITES --target "over=$URL" --jobs 4 --threads 2
expect_grep 'overloaded' "$OVER_ERR"
serve_stop
pass "--jobs 4 (two threads of 2): the server saw more than 3 in flight"

# ---- 4. more threads than jobs: no idle thread; usage ------------------------------------
serve_start "$LIVE"
expect_status 1 "$OACHECK" run --target "$URL" --jobs 2 --threads 8 -vv
expect_grep 'live cases on 2 threads' "$TMP/err"
serve_stop
expect_status 2 "$OACHECK" run --threads 0
expect_status 2 "$OACHECK" run --threads 17
pass "threads are never more than the jobs; --threads outside 1..16 is a usage error"
