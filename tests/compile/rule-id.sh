#!/bin/sh
# rule-id.sh — a rule named in C is checked by the compiler: the same file
# compiles with OC_R_STREAM_DONE and fails with the typo OC_R_STREAM_DOEN,
# naming it.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
[ -n "${CC:-}" ] || skip "CC is not set (make check sets it)"
src="$OACHECK_SRCDIR/tests/compile/rule-id.c"
flags="-fsyntax-only -I$OACHECK_SRCDIR/src -I$OACHECK_BUILDDIR"
# shellcheck disable=SC2086
$CC $flags "$src" 2>"$TMP/ok.err" || { cat "$TMP/ok.err" >&2; fail "the correct rule name does not compile"; }
pass "OC_R_STREAM_DONE compiles"
# shellcheck disable=SC2086
if $CC $flags -DTYPO "$src" 2>"$TMP/typo.err"; then
  fail "a mistyped rule name compiled"
fi
expect_grep "OC_R_STREAM_DOEN" "$TMP/typo.err"
pass "OC_R_STREAM_DOEN is a compile error naming it"
