#!/bin/sh
# man-options.sh — the man page names every option of every command: each
# long option that a command's --help lists (the help is generated from
# the command's option table, so it is complete) must appear in
# docs/oacheck.1 as \-\-NAME.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
MAN="$OACHECK_SRCDIR/docs/oacheck.1"
[ -f "$MAN" ] || fail "no man page at $MAN"
missing=0 seen=0
check() {
  label=$1; shift
  "$OACHECK" "$@" --help >"$TMP/help" 2>"$TMP/help.err" || fail "'oacheck $* --help' failed"
  # option lines: two spaces, an optional short option, then --name
  sed -n 's/^  \(-[a-zA-Z], \|    \)--\([a-z0-9-]*\).*/\2/p' "$TMP/help" | sort -u >"$TMP/opts"
  [ -s "$TMP/opts" ] || fail "'oacheck $* --help' lists no options"
  while read -r name; do
    [ "$name" = help ] && continue
    seen=$((seen + 1))
    esc=$(printf '%s' "$name" | sed 's/-/\\\\-/g')
    if ! grep -q -- "\\\\-\\\\-$esc\\\\f" "$MAN"; then
      echo "docs/oacheck.1 does not name '$label --$name'" >&2
      missing=$((missing + 1))
    fi
  done <"$TMP/opts"
}
check run run
check check check
check record record
check "record (live)" record --target http://127.0.0.1:1
check serve serve
check proxy proxy
check templates templates
check pin pin
check "report render" report render
check "report merge" report merge
check "report diff" report diff
check "report history" report history
check validate validate
check rules rules
[ "$missing" -eq 0 ] || fail "$missing option(s) missing from the man page"
[ "$seen" -gt 40 ] || fail "only $seen options found: the --help format changed?"
pass "the man page names all $seen options of every command"
