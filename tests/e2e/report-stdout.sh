#!/bin/sh
# report-stdout.sh — a report named "-" has stdout to itself: `run`,
# `check`, `templates`, `report render` and `report history` with --json/--junit/--html -
# write the report alone there (so that `| jq` or a redirect gets a
# document), and everything else they say — the console, the summary,
# the "wrote" lines, the GitHub annotations — goes to stderr.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

REC="$OACHECK_SRCDIR/suites/recordings/llama-server"

# the whole of stdout must read back as a results document: report
# render refuses anything that is not one, naming the byte
readable() {
  "$OACHECK" report render "$1" --junit "$TMP/readback.xml" >"$TMP/readback.out" 2>&1 ||
    { cat "$TMP/readback.out" >&2; fail "$2: stdout is not a results document alone"; }
}

# run: the shipped replay, failures and all (exit 1)
expect_status 1 "$OACHECK" run --json - --markdown "$TMP/run.md" --github
readable "$TMP/out" "run --json -"
head -c 1 "$TMP/out" | grep -q '{' || fail "run --json -: stdout does not start with the document"
expect_grep '^[0-9]+ cases: [0-9]+ passed, [0-9]+ failed' "$TMP/err"
expect_grep '^::error title=' "$TMP/err"
expect_grep "^wrote $TMP/run\\.md \\(Markdown summary\\)\$" "$TMP/err"
expect_no_grep '^::error|^wrote |cases: ' "$TMP/out"
pass "run --json -: the document alone on stdout; the console, annotations and 'wrote' on stderr"

# with stderr closed the console goes nowhere and the report is whole
set +e
"$OACHECK" run --json - >"$TMP/closed.json" 2>&-
st=$?
set -e
[ "$st" = 1 ] || fail "run --json - 2>&- exited $st, expected 1 (the replay's failures)"
readable "$TMP/closed.json" "run --json - 2>&-"
pass "run --json - with stderr closed: the document alone"

expect_status 1 "$OACHECK" run --junit -
head -n 1 "$TMP/out" | grep -q '^<?xml ' || fail "run --junit -: stdout does not start with the XML declaration"
[ "$(grep -c '^<?xml ' "$TMP/out")" = 1 ] || fail "run --junit -: more than one XML document"
tail -n 1 "$TMP/out" | grep -q '^</testsuites>$' || fail "run --junit -: stdout does not end with the document"
expect_grep 'cases: ' "$TMP/err"
pass "run --junit -: the XML alone on stdout"

expect_status 1 "$OACHECK" run --html -
head -c 15 "$TMP/out" | grep -qi '^<!doctype html>' || fail "run --html -: stdout does not start with the page"
expect_no_grep '^verdict: |cases: ' "$TMP/out"
pass "run --html -: the page alone on stdout"

# the Markdown summary on stdout, as CI pastes it
expect_status 1 "$OACHECK" run --markdown -
head -n 1 "$TMP/out" | grep -q '^### oacheck: ' || fail "run --markdown -: stdout does not start with the summary"
expect_no_grep '^verdict: ' "$TMP/out"
pass "run --markdown -: the summary alone on stdout"

# check: one recorded answer
expect_status 0 "$OACHECK" check --json - "$REC/plain.chat-basic.cassette.gz"
readable "$TMP/out" "check --json -"
expect_no_grep '^wrote ' "$TMP/out"
pass "check --json -: the document alone on stdout"

# templates: the shipped template recordings compared
expect_status 1 "$OACHECK" templates --json -
head -c 1 "$TMP/out" | grep -q '{' || fail "templates --json -: stdout does not start with the document"
expect_no_grep '^oacheck [0-9.]+: no target given|^target ' "$TMP/out"
expect_grep 'no target given' "$TMP/err"
pass "templates --json -: the document alone on stdout"

# report render with the annotations asked for
"$OACHECK" run --json "$TMP/r.json" >/dev/null 2>&1 || true
expect_status 0 "$OACHECK" report render "$TMP/r.json" --json - --github
readable "$TMP/out" "report render --json - --github"
expect_no_grep '^::' "$TMP/out"
expect_grep '^::error title=' "$TMP/err"
pass "report render --json - --github: the annotations on stderr"

# without "-" nothing moves: the console is stdout's
expect_status 1 "$OACHECK" run --json "$TMP/plain.json"
expect_grep 'cases: ' "$TMP/out"
expect_grep "^wrote $TMP/plain\\.json \\(JSON report\\)\$" "$TMP/out"
pass "with no report on stdout the console stays there"

# report history: its console table on stderr, the history alone on stdout
expect_status 0 "$OACHECK" report history "$TMP/r.json" --json -
head -c 1 "$TMP/out" | grep -q '{' || fail "report history --json -: stdout does not start with the document"
expect_grep '^history of 1 run' "$TMP/err"
expect_no_grep '^history of ' "$TMP/out"
expect_status 0 "$OACHECK" report history "$TMP/r.json" --html -
head -c 15 "$TMP/out" | grep -qi '^<!doctype html>' || fail "report history --html -: stdout does not start with the page"
pass "report history --json - / --html -: the history alone on stdout"
