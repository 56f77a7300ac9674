#!/bin/sh
# suite-limits.sh — a request oacheck cannot build is the suite's error
# (exit 2, FILE:LINE), never a skip, and never built: 16 references
# ${words:1000000:...} in a 2 KB suite (about 1 GB of request) are refused
# at load with the line of the string that crosses the 64 MiB cap; a count
# over 1,000,000 and a body nested 250 deep likewise; where a size is only
# known once variables are substituted, the case ends as a suite error
# with its file and line, and the run exits 2 with memory bounded.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
MAXRSS="$OACHECK_BUILDDIR/tests/hostile/maxrss"

# case NAME BODY-MESSAGES : a suite file with one chat case
suite() {
  printf '{ "suite": "%s", "description": "x",%s\n  "cases": [ { "name": "c", "description": "d",\n' "$1" "$3"
  printf '    "request": { "method": "POST", "path": "/v1/chat/completions",\n'
  printf '      "body": { "model": "m", "messages": [\n%s\n      ] } } } ] }\n' "$2"
}

msgs=""
for i in $(seq 1 16); do
  msgs="$msgs${msgs:+,
}        { \"role\": \"user\", \"content\": \"\${words:1000000:abcd}\" }"
done
suite huge "$msgs" "" >"$TMP/huge.json"
[ "$(wc -c <"$TMP/huge.json")" -lt 2200 ] || fail "the huge suite is not small"
expect_status 2 "$MAXRSS" "$TMP/rss" "$OACHECK" run "$TMP/huge.json"
expect_grep 'huge.json:18:[0-9]+: with this string the request would be at least 6[0-9] MiB, over the 64 MiB oacheck builds' "$TMP/err"
expect_grep 'no case was run' "$TMP/err"
! rss_checked || [ "$(cat "$TMP/rss")" -lt 204800 ] || fail "loading the huge suite peaked at $(cat "$TMP/rss") KiB"
pass "a static request over the cap is a suite error at load, with its line"

# a lone '$' (a price, a shell prompt) before the references: still
# counted, the '$' being text (its scan stopped there, and the 64 MiB
# were found only when building)
sed 's/"\${words:1000000:abcd}"/"costs $5: ${words:1000000:abcd}"/' "$TMP/huge.json" >"$TMP/dollar.json"
grep -q 'costs \$5: ' "$TMP/dollar.json" || fail "the lone \$ was not put in"
expect_status 2 "$OACHECK" run "$TMP/dollar.json"
expect_grep 'dollar.json:18:[0-9]+: with this string the request would be at least 6[0-9] MiB' "$TMP/err"
pass "a lone \$ before the references does not stop their count"

suite count '        { "role": "user", "content": "${words:2000000:a}" }' "" >"$TMP/count.json"
expect_status 2 "$OACHECK" run "$TMP/count.json"
expect_grep 'count.json:5:[0-9]+: the COUNT of \$\{words:COUNT:WORD\} is over 1,000,000' "$TMP/err"
pass "a count over 1,000,000 is a suite error at load"

deep='"x"'
for i in $(seq 1 250); do deep="[$deep]"; done
suite deep "        { \"role\": \"user\", \"content\": $deep }" "" >"$TMP/deep.json"
expect_status 2 "$OACHECK" run "$TMP/deep.json"
expect_grep 'deep.json:5:[0-9]+: the request is nested deeper than 200 levels' "$TMP/err"
pass "a body nested 250 deep is a suite error at load"

# sizes known only once a variable is substituted: built against the cap,
# the case a suite error with its file and line, exit 2
msgs=""
for i in $(seq 1 16); do
  msgs="$msgs${msgs:+,
}        { \"role\": \"user\", \"content\": \"\${words:N:abcd}\" }"
done
suite dyn "$msgs" ' "variables": { "N": 1000000 },' >"$TMP/dyn.json"
expect_status 2 "$MAXRSS" "$TMP/rss" "$OACHECK" run "$TMP/dyn.json"
expect_grep '^ERROR .*dyn/c \(suite error: .*dyn.json:2: case .c.: the request cannot be built: \$\{words:N:abcd\} makes the request larger than the 64 MiB' "$TMP/out"
expect_no_grep '^SKIP' "$TMP/out"
expect_grep 'suite errors: 1 case could not be built' "$TMP/err"
! rss_checked || [ "$(cat "$TMP/rss")" -lt 409600 ] || fail "building the dynamic request peaked at $(cat "$TMP/rss") KiB"
suite dyncount '        { "role": "user", "content": "${words:N:a}" }' ' "variables": { "N": 2000000 },' >"$TMP/dc.json"
expect_status 2 "$OACHECK" run "$TMP/dc.json"
expect_grep '^ERROR .*dyncount/c \(suite error: .*dc.json:2: .*is not a count from 0 to 1,000,000' "$TMP/out"
pass "a request over the cap or a count over 1,000,000 known only when built is a suite error (exit 2)"
