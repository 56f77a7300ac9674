#!/bin/sh
# load.sh — load as a check (issue 14), against `oacheck serve --overload`
# standing in for an overloaded llama-server: the tiny-random live recordings
# answer while at most 2 requests are in flight (the recorded server's 2
# slots), the concurrency recordings (tests/data/recordings/
# llama-server-concurrency: recorded with 4 in flight on 2 slots sharing
# 512 tokens) answer beyond that.  Then:
# - a plain run (2 in flight: the target's total_slots) never overloads
#   it and reaches the live run's verdicts;
# - `--load 4` finds cases that pass alone and fail under load, each with a
#   DEPLOY-LOAD finding carrying the shared-context diagnosis and its fix,
#   in the console, the JSON, the HTML and the JUnit report;
# - the same against a server that does not overload finds none;
# - a long --load run prints progress at most about once a second, then
#   its totals, not a line per round;
# - SIGINT or SIGTERM stops it within a round, exit 130/143, and so does
#   a round that runs no case (every one skipped), exit 0;
# - --load needs a live target, --duration needs --load.
# The servers pace by the recorded times (4x) and hold each answer 50 ms, so
# that four requests sent together are in flight together; what is
# asserted does not depend on how long anything took.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

# the two-slot deployment the concurrency recordings come from: the
# tiny-random live recordings (the shipped ones until 2026-12-02, one slot
# since), with the suites both were recorded with
LIVE="$OACHECK_SRCDIR/tests/data/recordings/llama-server-tiny-random"
CONC="$OACHECK_SRCDIR/tests/data/recordings/llama-server-concurrency"
TR="$OACHECK_SRCDIR/tests/data/suites/tiny-random"
SUITES="plain streaming errors models llama-server $TR/tool-call.json $TR/json-schema.json $TR/context-overflow.json"

# the live run's failures (../shared/recordings/llama-server-live/README.md:
# 42 pass, 11 fail, 0 skip), and n-2-stream, whose first chunk is choice 1:
# openai-python's stream helper raises IndexError on it (docs/clients.md);
# the list is tests/e2e/run-replay.sh's
cat > "$TMP/live-fails" <<'EOV'
FAIL errors/invalid-json
FAIL errors/unknown-role
FAIL json-schema/json-object
FAIL json-schema/json-object-short
FAIL json-schema/json-object-stream
FAIL plain/unknown-model
FAIL streaming/n-2-stream
FAIL tool-call/named
FAIL tool-call/named-stream
FAIL tool-call/parallel-stream
FAIL tool-call/required
FAIL tool-call/required-stream
EOV

serve_start "$LIVE" --overload "2=$CONC" --speed 4 --fault stall=50
OVER=$URL
OVER_ERR=$SERVE_ERR

# ---- 1. one client's concurrency never overloads it ------------------------------
expect_status 1 "$OACHECK" run $SUITES --target "over=$OVER" --json "$TMP/plain.json"
expect_grep '^  jobs: 2 in flight \(the target.s total_slots' "$TMP/out"
verdicts "$TMP/out" | grep -v '^PASS' > "$TMP/plain-fails"
cmp -s "$TMP/plain-fails" "$TMP/live-fails" ||
  { diff -u "$TMP/live-fails" "$TMP/plain-fails" >&2; fail "2 in flight: not the live run's verdicts"; }
expect_no_grep 'overloaded' "$OVER_ERR"
pass "2 in flight (total_slots): the live verdicts, nothing answered as overloaded"

# ---- 2. --load 4 -------------------------------------------------------------------
expect_status 1 "$OACHECK" run $SUITES --target "over=$OVER" --load 4 --json "$TMP/load.json" \
  --html "$TMP/load.html" --junit "$TMP/load.xml"
expect_grep '^load: 4 requests in flight per target, 1 round of 53 cases: [1-9][0-9]* cases? fails? only under load:' "$TMP/out"
expect_grep 'overloaded' "$OVER_ERR"
# every case listed under load carries the shared-context diagnosis
sed -n '/^load: 4 requests/,/^$/p' "$TMP/out" > "$TMP/load-section"
n_cases=$(grep -c '^  over ' "$TMP/load-section" || true)
n_diag=$(grep -c '^    cause (shared-context): the 2 slots (/props total_slots) share one 512-token KV cache' "$TMP/load-section" || true)
[ "$n_cases" -ge 1 ] || fail "no case failed only under load"
[ "$n_diag" = "$n_cases" ] || fail "$n_cases cases fail only under load, $n_diag carry the shared-context diagnosis"
fixes=$(grep -c '^    fix: Raise -c to hold every busy slot' "$TMP/load-section" || true)
[ "$fixes" = "$n_cases" ] || fail "the fix is missing for some load failures"
# only cases that pass alone: none of the live run's failures
while read -r _ name; do
  if grep -q "^  over $name:" "$TMP/load-section"; then fail "$name fails alone too, listed under load"; fi
done < "$TMP/live-fails"
# the failures under load are counted as what they are: those of the cases
# that fail only under load, and those of cases that fail alone too (the
# line said "N failed" beside "0 cases fail only under load"); the
# progress line on stderr says the same
plural="case that fails"
[ "$n_cases" = 1 ] || plural="cases that fail"
expect_grep "^  [0-9]+ cases run with 4 in flight, [0-9]+ failed: [0-9]+ in the $n_cases $plural only under load, [0-9]+ in cases that do not pass alone either\$" "$TMP/out"
counts=$(sed -n 's/^  \([0-9]* cases run with 4 in flight, .*\)/\1/p' "$TMP/out")
expect_grep "^oacheck: load: done, 1 round in [0-9.]+ s: $counts\$" "$TMP/err"
# ... and each one fails the run with DEPLOY-LOAD
expect_grep "^failing rules:.* DEPLOY-LOAD \\($n_cases\\)" "$TMP/out"
expect_grep '"rule":[[:space:]]*"DEPLOY-LOAD"' "$TMP/load.json"
expect_grep '"only_under_load":' "$TMP/load.json"
expect_grep '"id":[[:space:]]*"shared-context"' "$TMP/load.json"
"$OACHECK" validate "$OACHECK_SRCDIR/schemas/results.schema.json" "$TMP/load.json" >/dev/null ||
  fail "the load results do not match the results schema"
expect_grep '<h3 id="load">Fails only under load</h3>' "$TMP/load.html"
expect_grep "[0-9]+ failed: [0-9]+ in the $n_cases $plural only under load" "$TMP/load.html"
# one round: each case that fails only under load failed in it once
expect_grep "\"failed_passing_alone\":[[:space:]]*$n_cases([^0-9]|\$)" "$TMP/load.json"
expect_grep '<tr class="diagnosis"><td colspan="7"><b>cause</b> <code>shared-context</code>' "$TMP/load.html"
expect_grep 'DEPLOY-LOAD' "$TMP/load.xml"
expect_grep 'cause \(shared-context\)' "$TMP/load.xml"
pass "--load 4: $n_cases case(s) fail only under load, each diagnosed shared-context with its fix"
serve_stop

# ---- 3. a server that holds up under load ------------------------------------------
serve_start "$LIVE" --speed 4 --fault stall=50
expect_status 1 "$OACHECK" run $SUITES --target "fine=$URL" --load 4
expect_grep '^load: 4 requests in flight per target, 1 round of 53 cases: 0 cases fail only under load$' "$TMP/out"
# the live run's failures fail under load too, and are said to be theirs
expect_grep '^  [0-9]+ cases run with 4 in flight, [0-9]+ failed, all in cases that do not pass alone either$' "$TMP/out"
expect_no_grep 'DEPLOY-LOAD' "$TMP/out"
serve_stop
pass "a server that does not overload: nothing fails only under load"

# ---- 4. a long load run says how it goes, not every round --------------------------
# unpaced, a round of plain's five cases takes milliseconds: a line per
# round was thousands in a few seconds (stderr a file, as in CI)
serve_start "$LIVE"
expect_status 1 "$OACHECK" run plain --target "fast=$URL" --load 4 --duration 3
grep '^oacheck: load' "$TMP/err" > "$TMP/load-lines" || true
n_lines=$(wc -l < "$TMP/load-lines")
[ "$n_lines" -ge 1 ] && [ "$n_lines" -lt 20 ] ||
  { head -n 30 "$TMP/load-lines" >&2; fail "--duration 3 printed $n_lines load progress lines, expected 1 to 19"; }
# the last says the totals, the rounds those of the load section
expect_grep '^oacheck: load: done, [0-9]+ rounds? in [0-9.]+ s: [0-9]+ cases? run with 4 in flight, [0-9]+ failed, all in cases that do not pass alone either$' "$TMP/err"
rounds=$(sed -n 's/^oacheck: load: done, \([0-9]*\) round.*/\1/p' "$TMP/err")
expect_grep "^load: 4 requests in flight per target, $rounds rounds? of 5 cases: " "$TMP/out"
# a round of one case is "1 round of 1 case", in the console and the HTML
expect_status 0 "$OACHECK" run plain --filter 'plain/chat-basic' --target "fast=$URL" --load 4 \
  --html "$TMP/one.html"
expect_grep '^load: 4 requests in flight per target, 1 round of 1 case: 0 cases fail only under load$' "$TMP/out"
expect_grep '<p>4 requests in flight per target, 1 round of 1 case: ' "$TMP/one.html"
serve_stop
pass "--load --duration 3: $n_lines progress lines, the last with the totals of its $rounds rounds"

# ---- 5. a signal stops the load at once ------------------------------------------------
# SIGINT/SIGTERM once the load's progress shows, with 60 s of load to go:
# the run ends within a round (gone well before the duration), exits
# 130/143 with its reports written and marked incomplete, and the load
# says it was stopped and counts only cases that ran.  It used to go on to
# the end of the duration, spinning through rounds whose cases the runner
# no longer started and counting them (hundreds of thousands of "rounds"
# for a few hundred requests); so the cases counted must not outnumber the
# requests the server saw.
serve_start "$LIVE"
stop_load() {
  sig=$1; want=$2
  # the previous run's output goes first: the shell truncates the files in
  # the child, and a wait could read the old progress line
  rm -f "$TMP/sig.out" "$TMP/sig.err" "$TMP/sig.json"
  "$OACHECK" run plain --target "sig=$URL" --load 4 --duration 60 --json "$TMP/sig.json" \
    --html "$TMP/sig.html" >"$TMP/sig.out" 2>"$TMP/sig.err" &
  pid=$!
  i=0
  until grep -Eq '^oacheck: load: [0-9]+ rounds? in' "$TMP/sig.err" 2>/dev/null; do
    kill -0 $pid 2>/dev/null || { cat "$TMP/sig.out" "$TMP/sig.err" >&2; fail "SIG$sig: the run ended before its load progress"; }
    i=$((i + 1))
    [ $i -lt $((600 * SLOW)) ] || { kill -9 $pid; cat "$TMP/sig.err" >&2; fail "SIG$sig: no load progress line"; }
    sleep 0.1
  done
  kill -"$sig" $pid
  # a generous bound, nothing like a timing: the duration is 60 s
  i=0
  while kill -0 $pid 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt $((150 * SLOW)) ] || { kill -9 $pid; tail -n 5 "$TMP/sig.err" >&2; fail "SIG$sig: still running 15 s after the signal (--duration 60)"; }
    sleep 0.1
  done
  set +e
  wait $pid
  st=$?
  set -e
  [ "$st" = "$want" ] || { cat "$TMP/sig.err" >&2; fail "SIG$sig: the run exited $st, expected $want"; }
  expect_grep "^load: 4 requests in flight per target, [0-9]+ rounds? of 5 cases: " "$TMP/sig.out"
  expect_grep "^  stopped by SIG$sig after [0-9]+ rounds?( \\(the last cut short\\))?\$" "$TMP/sig.out"
  expect_grep "^oacheck: load: stopped by SIG$sig, [0-9]+ rounds?" "$TMP/sig.err"
  expect_no_grep '^oacheck: load: done' "$TMP/sig.err"
  expect_grep "^run incomplete: interrupted during the load check, after all 5 cases had run alone: the load stopped by SIG$sig" "$TMP/sig.out"
  expect_grep '"incomplete":[[:space:]]*true' "$TMP/sig.json"
  expect_grep "\"stopped\":[[:space:]]*\"SIG$sig\"" "$TMP/sig.json"
  "$OACHECK" validate "$OACHECK_SRCDIR/schemas/results.schema.json" "$TMP/sig.json" >/dev/null ||
    fail "SIG$sig: the results of a stopped load do not match the results schema"
  expect_grep "<b>Load stopped by SIG$sig after [0-9]+ rounds?" "$TMP/sig.html"
  rounds=$(sed -n 's/^load: 4 requests in flight per target, \([0-9]*\) round.*/\1/p' "$TMP/sig.out")
  ran=$(sed -n 's/^ *"ran":[[:space:]]*\([0-9]*\).*/\1/p' "$TMP/sig.json")
  sent=$(grep -c 'POST /v1/chat/completions' "$SERVE_ERR" || true)
  [ -n "$ran" ] && [ "$rounds" -ge 1 ] && [ "$rounds" -le "$ran" ] && [ "$ran" -le $((rounds * 5)) ] ||
    fail "SIG$sig: $rounds rounds, $ran cases run under load"
  [ "$ran" -le "$sent" ] || fail "SIG$sig: $ran cases counted as run under load, the server saw $sent requests in all"
}
stop_load INT 130
stop_load TERM 143
serve_stop
pass "SIGINT and SIGTERM stop --load within a round (130, 143), the load counting only what ran"

# ---- 6. a round that runs nothing ends the load -------------------------------------
# every case of this suite is skipped here (it is vLLM's alone): a round
# sends nothing, and the load went round like that as fast as it could
# for the whole duration, counting the rounds; now the first such round
# ends it, saying why (not a signal: the run is complete, exit 0)
cat > "$TMP/vllm-only.json" <<'EOS'
{"suite": "vllm-only", "description": "vLLM's alone: skipped on any other server",
 "profiles": ["vllm"],
 "cases": [{"name": "chat", "description": "a plain chat request",
   "request": {"method": "POST", "path": "/v1/chat/completions",
     "body": {"model": "${MODEL}", "messages": [{"role": "user", "content": "hi"}]}}}]}
EOS
serve_start "$LIVE"
expect_status 0 "$OACHECK" run "$TMP/vllm-only.json" --target "skip=$URL" --load 4 --duration 30 \
  --json "$TMP/skip.json"
expect_grep '^load: 4 requests in flight per target, 0 rounds of 1 case: 0 cases fail only under load$' "$TMP/out"
expect_grep '^  stopped after 0 rounds \(round 1 ran no case: its 1 case was skipped\)$' "$TMP/out"
expect_grep '^  0 cases run with 4 in flight \(1 skipped\), 0 failed$' "$TMP/out"
expect_grep '^oacheck: load: stopped, 0 rounds \(round 1 ran no case: its 1 case was skipped\) in ' "$TMP/err"
expect_grep '"stopped":[[:space:]]*"nothing-ran"' "$TMP/skip.json"
expect_no_grep '"incomplete":' "$TMP/skip.json"
"$OACHECK" validate "$OACHECK_SRCDIR/schemas/results.schema.json" "$TMP/skip.json" >/dev/null ||
  fail "the results of a load that ran nothing do not match the results schema"
# ... and so does a target that cannot be reached: its cases ended at once
# as errors without a request, round after round; the load leaves it out
GONE=$URL
serve_stop
expect_status 3 "$OACHECK" run plain --target "gone=$GONE" --load 4 --duration 30
expect_grep '^load: 4 requests in flight per target, 0 rounds of 0 cases: 0 cases fail only under load$' "$TMP/out"
expect_grep '^  stopped after 0 rounds \(no live target was reachable\)$' "$TMP/out"
pass "a round that runs no case ends the load, saying so"

# ---- 7. usage ----------------------------------------------------------------------------
expect_status 2 "$OACHECK" run --load 4
expect_grep '\-\-load needs a live target' "$TMP/err"
expect_status 2 "$OACHECK" run --duration 5
expect_grep '\-\-duration goes with --load' "$TMP/err"
expect_status 2 "$OACHECK" serve "$LIVE" --overload 2
expect_grep 'wants N=DIR' "$TMP/err"
pass "usage errors exit 2"
