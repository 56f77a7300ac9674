#!/bin/sh
# cli.sh — the command line's contract: --help lists every subcommand,
# --version prints the version, unknown commands and options exit 2.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

expect_status 0 "$OACHECK" --help
for c in run record serve templates pin report validate rules help; do
  expect_grep "^  $c +[a-z]" "$TMP/out"
done
pass "--help lists every subcommand"

expect_status 0 "$OACHECK" --version
expect_grep '^oacheck [0-9]+\.[0-9]+\.[0-9]+$' "$TMP/out"
pass "--version"

expect_status 2 "$OACHECK" frobnicate
expect_grep "unknown command 'frobnicate'" "$TMP/err"
expect_grep "Try 'oacheck --help'" "$TMP/err"
pass "unknown command exits 2"

expect_status 2 "$OACHECK" --frob
expect_grep "unknown option '--frob'" "$TMP/err"
pass "unknown option exits 2"

expect_status 0 "$OACHECK" help help
expect_grep "Usage: oacheck" "$TMP/out"
pass "help help"
