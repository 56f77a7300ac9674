#!/bin/sh
# run-select.sh — what --filter and --tag select: an option that takes no
# case of the loaded suites is a usage error naming it (exit 2, before any
# target is asked anything), alone or among others that do take cases, in
# run, run --list and record alike; a shard that --shard leaves empty is
# not (exit 0); the plan's line counts the suites the cases come from; the
# summary of a run of one case says "1 case", "1 error", "1 warning"; a
# replay target (or oacheck serve) holding none of the selected cases is
# an error after the run (exit 2), one holding some of them is not.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
NS=$(ls "$OACHECK_SRCDIR"/suites/*.json "$OACHECK_SRCDIR"/suites/protocols/*.json | wc -l | tr -d ' ')   # the shipped suites, every protocol's

expect_status 2 "$OACHECK" run --filter 'nomatch*'
expect_grep "--filter 'nomatch\\*' selects no case of the $NS suites loaded \\(--list without it shows" "$TMP/err"
expect_no_grep 'passed' "$TMP/out"
expect_status 2 "$OACHECK" run --filter chat-basci
expect_grep "--filter 'chat-basci' selects no case of the $NS suites loaded: did you mean 'chat-basic'\\? \\(--list" "$TMP/err"
expect_status 2 "$OACHECK" run --filter plain/chat-basci --filter chat-basic --tag smok
expect_grep "--filter 'plain/chat-basci' and --tag 'smok' select no case .*: did you mean 'plain/chat-basic' for 'plain/chat-basci', 'smoke' for 'smok'\\?" "$TMP/err"
expect_status 2 "$OACHECK" run --tag nosuchtag
expect_grep "--tag 'nosuchtag' selects no case" "$TMP/err"
pass "a --filter or --tag that matches nothing exits 2 and names it"

# a typo among several is still a typo: only it is named
expect_status 2 "$OACHECK" run --filter 'plain/*' --filter 'nomatch*' --tag smoke --tag smkoe
expect_grep "--filter 'nomatch\\*' and --tag 'smkoe' select no case" "$TMP/err"
expect_no_grep "--filter 'plain/\\*'|--tag 'smoke'" "$TMP/err"
expect_grep ": did you mean 'smoke' for 'smkoe'\\?" "$TMP/err"
pass "each --filter and --tag that takes no case is named, among others that do"

# each takes cases, together none
expect_status 2 "$OACHECK" run --filter 'plain/max*' --tag smoke
expect_grep "no case of the $NS suites loaded is taken both by a --filter and by a --tag" "$TMP/err"
pass "a filter and a tag with no case in common exit 2"

expect_status 2 "$OACHECK" run plain --filter 'nomatch*' --list
expect_grep "selects no case of the 1 suite loaded" "$TMP/err"
expect_no_grep 'cases? on' "$TMP/out"
pass "--list judges the selection the same way"

# record: refused before the target is identified, nothing written
serve_start "$OACHECK_SRCDIR/suites/recordings/llama-server"
expect_status 2 "$OACHECK" record plain --filter 'plian/*' --target "h=$URL" --out "$TMP/rec"
expect_grep "oacheck record: --filter 'plian/\\*' selects no case" "$TMP/err"
[ -z "$(ls "$TMP/rec" 2>/dev/null)" ] || fail "record wrote $(ls "$TMP/rec")"
serve_stop
pass "record refuses an empty selection before asking the target anything"

# one case over five shards: four are empty, and that is fine
empty=0 full=0
for k in 1 2 3 4 5; do
  expect_status 0 "$OACHECK" run plain --filter plain/chat-basic --shard "$k/5"
  if grep -q "^0 cases: shard $k of 5 holds none of the selected cases" "$TMP/out"; then
    empty=$((empty + 1))
  else
    expect_grep '^1 case from 1 suite$' "$TMP/out"
    full=$((full + 1))
  fi
done
[ "$empty" = 4 ] && [ "$full" = 1 ] || fail "one case in 5 shards: $full shards with it, $empty empty"
pass "an empty shard exits 0 and says so"

expect_status 1 "$OACHECK" run --filter 'plain/*'
expect_grep "^5 cases from 1 suite \\($NS loaded\\)\$" "$TMP/out"
expect_status 1 "$OACHECK" run plain
expect_grep '^5 cases from 1 suite$' "$TMP/out"
pass "the plan's line counts the suites its cases come from"

# one case: the summary's nouns agree with their counts, as those of many do
# (json_object's in-band error without [DONE]: the tiny-random recordings,
# with the suite they were recorded with)
expect_status 1 "$OACHECK" run "$OACHECK_SRCDIR/tests/data/suites/tiny-random/json-schema.json" \
  --replay "$OACHECK_SRCDIR/tests/data/recordings/llama-server-tiny-random" \
  --filter json-schema/json-object-stream --json "$TMP/one.json"
expect_grep '^1 case: 0 passed, 1 failed, 0 errors, 0 skipped; 1 warning$' "$TMP/out"
expect_status 0 "$OACHECK" report render "$TMP/one.json"
expect_grep '^1 case: 0 pass, 1 fail, 0 error, 0 skip, 1 warning$' "$TMP/out"
# a case error, against a port nothing listens on (refused at once)
expect_status 3 "$OACHECK" run plain --filter plain/chat-basic --target http://127.0.0.1:1
expect_grep '^1 case: 0 passed, 0 failed, 1 error, 0 skipped; 0 warnings$' "$TMP/out"
expect_status 1 "$OACHECK" run plain
# n-2 is refused by the recorded server's one slot: unsupported, a skip
expect_grep '^5 cases: 3 passed, 1 failed, 0 errors, 1 skipped; [0-9]+ warnings$' "$TMP/out"
pass "a one-case run's summary says 1 case, 1 error, 1 warning"

# recordings that hold none of the selected cases: every case a skip
# ("not recorded") and the run green, having tested nothing.  Said after
# the summary, naming the target and the directory, and exit 2, as a
# filter that selects nothing is; a selection some of whose cases are
# recorded stays a run with skips (exit 0)
REC="$OACHECK_SRCDIR/suites/recordings/llama-server"
mkdir "$TMP/plain-only"
cp "$REC"/plain.*.cassette.gz "$REC"/identify-*.cassette.gz "$TMP/plain-only/"
expect_status 2 "$OACHECK" run streaming --replay "$TMP/plain-only" --json "$TMP/none.json"
expect_grep '^5 cases: 0 passed, 0 failed, 0 errors, 5 skipped' "$TMP/out"
expect_grep "^oacheck: error: replay target plain-only: none of the 5 selected cases has a recording in $TMP/plain-only$" "$TMP/err"
[ -s "$TMP/none.json" ] || fail "the results were not written"
expect_status 0 "$OACHECK" run --replay "$TMP/plain-only" --filter plain/chat-basic --filter 'streaming/*'
expect_grep '^6 cases: 1 passed, 0 failed, 0 errors, 5 skipped' "$TMP/out"
expect_no_grep 'has a recording' "$TMP/err"
serve_start "$TMP/plain-only"
expect_status 2 "$OACHECK" run streaming --target "s=$URL"
expect_grep "^oacheck: error: target s: the oacheck serve at $URL has no recording of any of the 5 selected cases$" "$TMP/err"
serve_stop
pass "recordings holding none of the selected cases exit 2 and say so; some recorded is a run with skips"
