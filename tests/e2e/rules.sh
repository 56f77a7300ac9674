#!/bin/sh
# rules.sh — `oacheck rules`: the list, one rule explained, unknown names,
# and docs/rules.md being exactly what the catalogue generates (so the
# documentation cannot drift from the code).
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

expect_status 0 "$OACHECK" rules
expect_grep '^TOOL-DELTA-INDEX +error ' "$TMP/out"
expect_grep '^STREAM-DONE +error ' "$TMP/out"
n=$(wc -l < "$TMP/out")
[ "$n" -ge 50 ] || fail "only $n rules listed"
pass "rules lists the catalogue ($n rules)"

expect_status 0 "$OACHECK" rules TOOL-NAME-ONCE
expect_grep 'get_weatherget_weather' "$TMP/out"
expect_grep '^  source: ' "$TMP/out"
expect_grep 'vllm: ' "$TMP/out"
pass "rules RULE explains one rule with its profile overrides"

expect_status 0 "$OACHECK" rules --profile llama-server
expect_grep '^ERROR-SHAPE +warning' "$TMP/out"
pass "rules --profile shows the profile's severities"

expect_status 2 "$OACHECK" rules NO-SUCH-RULE
expect_grep "no rule, family or diagnosis named 'NO-SUCH-RULE' \\('oacheck rules' lists them\\)$" "$TMP/err"
pass "unknown rule exits 2"

# a mistyped name: the one meant, whatever its case; among names that
# do explain something it is still said (and still exit 2)
expect_status 2 "$OACHECK" rules TOOL-NAME-ONE
expect_grep "^oacheck rules: no rule, family or diagnosis named 'TOOL-NAME-ONE': did you mean 'TOOL-NAME-ONCE'\\?" "$TMP/err"
expect_status 2 "$OACHECK" rules STREAM-DONE tool-name-onse shared-contxt
expect_grep '^STREAM-DONE ' "$TMP/out"
expect_grep "named 'tool-name-onse': did you mean 'TOOL-NAME-ONCE'\\?" "$TMP/err"
expect_grep "named 'shared-contxt': did you mean 'shared-context'\\?" "$TMP/err"
pass "a mistyped rule or diagnosis gets the nearest name, also among good ones"

"$OACHECK" rules --markdown > "$TMP/rules.md"
if ! cmp -s "$TMP/rules.md" "$OACHECK_SRCDIR/docs/rules.md"; then
  diff -u "$OACHECK_SRCDIR/docs/rules.md" "$TMP/rules.md" | head -40 >&2 || true
  fail "docs/rules.md is stale: run 'make rules-doc' and commit it"
fi
pass "docs/rules.md matches the catalogue"
