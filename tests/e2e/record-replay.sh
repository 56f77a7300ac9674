#!/bin/sh
# record-replay.sh — `oacheck record` against a live server (oacheck serve
# replaying the llama-server curl captures, which lack some cases, so that
# a skipped case is seen too) writes a cassette per case it answered, with
# arrival times; `oacheck run --replay DIR` then reaches the same verdict
# for every case of every shipped suite with no network, and `oacheck
# serve DIR` serves the new cassettes back.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

serve_start "$OACHECK_SRCDIR/tests/data/recordings/llama-server-curl"
mkdir "$TMP/rec"
expect_status 1 "$OACHECK" record --target "srv=$URL" --out "$TMP/rec"
verdicts "$TMP/out" > "$TMP/live.verdicts"
serve_stop
n=$(wc -l < "$TMP/live.verdicts")
[ "$n" -ge 50 ] || fail "only $n verdicts from the live recording run"
ls "$TMP/rec"/*.cassette.gz >/dev/null 2>&1 || fail "no cassette written"
ls "$TMP/rec"/streaming.stream-basic.cassette.gz >/dev/null || fail "no cassette for streaming/stream-basic"
ls "$TMP/rec"/identify-v1-models-*.cassette.gz >/dev/null || fail "the identification was not recorded"
# a skipped (not recorded) case leaves no cassette
[ ! -e "$TMP/rec/tool-call.named.cassette.gz" ] || fail "a not-recorded case got a cassette"
# and says so last: as many as the directory holds, and where
nfiles=$(ls "$TMP/rec" | wc -l | tr -d ' ')
[ "$(tail -n 1 "$TMP/out")" = "wrote $nfiles cassettes to $TMP/rec/" ] ||
  { tail -n 3 "$TMP/out" >&2; fail "record does not end with 'wrote $nfiles cassettes to $TMP/rec/'"; }
pass "record wrote a cassette per answered case, and the identification, and said how many"

# the new cassettes carry arrival times, unlike the imported ones
expect_status 0 "$OACHECK" record --show "$TMP/rec/streaming.stream-basic.cassette.gz"
expect_grep 'timing' "$TMP/out"
expect_no_grep 'timing not recorded' "$TMP/out"
pass "recorded cassettes carry arrival times"

expect_status 1 "$OACHECK" run --replay "$TMP/rec" --json "$TMP/replay.json"
verdicts "$TMP/out" > "$TMP/replay.verdicts"
if ! cmp -s "$TMP/live.verdicts" "$TMP/replay.verdicts"; then
  diff -u "$TMP/live.verdicts" "$TMP/replay.verdicts" >&2 || true
  fail "replay of the recording reached other verdicts than the live run"
fi
expect_grep '"recorded":[[:space:]]*true' "$TMP/replay.json"
pass "run --replay reaches the same $n verdicts with no network"

serve_start "$TMP/rec"
expect_status 0 "$OACHECK" run streaming --target "again=$URL"
expect_grep '^PASS +again streaming/stream-basic' "$TMP/out"
serve_stop
pass "serve plays the new cassettes back"
