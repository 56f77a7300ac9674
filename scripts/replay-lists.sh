#!/bin/sh
# replay-lists.sh — keeps the recordings' file lists in mk/replay.am true:
# every file under suites/recordings/ (shipped: nobase_dist_pkgdata_DATA,
# installed under $(pkgdatadir)) and tests/data/recordings/ (test data:
# EXTRA_DIST) must be listed, and nothing else, or `make distcheck` and
# installs would miss a recording.
#   scripts/replay-lists.sh --update [SRCDIR]   rewrite the generated block
#   scripts/replay-lists.sh --check [SRCDIR]    exit 1 naming what differs
set -eu
mode=${1:-}
src=${2:-.}
am="$src/mk/replay.am"
begin='# BEGIN recordings (scripts/replay-lists.sh --update writes this block)'
end='# END recordings'

list() { # list DIR: files under DIR relative to the source tree, sorted
  if [ -d "$src/$1" ]; then
    (cd "$src" && find "$1" -type f | LC_ALL=C sort)
  fi
}

# one Automake list: VAR += \ then the files, a backslash on all but the last
am_list() {
  files=$(list "$2")
  [ -n "$files" ] || return 0
  echo "$1 += \\"
  printf '%s\n' "$files" | sed 's/^/	/; $!s/$/ \\/'
}

block() {
  echo "$begin"
  am_list nobase_dist_pkgdata_DATA suites/recordings
  am_list EXTRA_DIST tests/data/recordings
  echo "$end"
}

case "$mode" in
  --update)
    tmp="$am.tmp.$$"
    awk -v b="$begin" -v e="$end" '
      $0 == b { skip = 1; next }
      $0 == e { skip = 0; next }
      !skip { print }' "$am" >"$tmp"
    block >>"$tmp"
    mv "$tmp" "$am"
    echo "updated $am"
    ;;
  --check)
    listed=$(awk -v b="$begin" -v e="$end" '
      $0 == b { on = 1; next }
      $0 == e { on = 0; next }
      on && /^\t/ { sub(/^\t/, ""); sub(/ \\$/, ""); print }' "$am" | LC_ALL=C sort)
    found=$( (list suites/recordings; list tests/data/recordings) | LC_ALL=C sort)
    if [ "$listed" != "$found" ]; then
      echo "mk/replay.am does not list exactly the recordings in the tree" >&2
      printf '%s\n' "$listed" >"${TMPDIR:-/tmp}/replay-listed.$$"
      printf '%s\n' "$found" | diff "${TMPDIR:-/tmp}/replay-listed.$$" - | sed -n 's/^> /not listed: /p; s/^< /listed but missing: /p' >&2
      rm -f "${TMPDIR:-/tmp}/replay-listed.$$"
      echo "run: scripts/replay-lists.sh --update" >&2
      exit 1
    fi
    echo "mk/replay.am lists all $(printf '%s\n' "$found" | grep -c .) recording files"
    ;;
  *)
    echo "usage: scripts/replay-lists.sh --update|--check [SRCDIR]" >&2
    exit 2
    ;;
esac
