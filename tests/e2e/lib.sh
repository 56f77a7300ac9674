# lib.sh — shared helpers for the end-to-end tests (sourced, not run).
# Each test drives the built oacheck; a failed expectation exits 1 with a
# message saying what was expected and what arrived.

: "${OACHECK_BIN:=$(pwd)/src/oacheck}"
: "${OACHECK_SRCDIR:=$(pwd)}"
OACHECK=$OACHECK_BIN
TMP=$(mktemp -d "${TMPDIR:-/tmp}/oacheck-e2e.XXXXXX")
cleanup_hooks=""
on_exit() { eval "$cleanup_hooks"; rm -rf "$TMP"; }
trap on_exit EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
pass() { echo "ok - $*"; }

# expect_status WANT CMD... : run CMD, check its exit status, keep output in $TMP/out, $TMP/err
expect_status() {
  want=$1; shift
  set +e
  "$@" >"$TMP/out" 2>"$TMP/err"
  got=$?
  set -e
  if [ "$got" != "$want" ]; then
    echo "--- stdout" >&2; head -c 4000 "$TMP/out" >&2
    echo "--- stderr" >&2; head -c 4000 "$TMP/err" >&2
    fail "'$*' exited $got, expected $want"
  fi
}

# expect_grep PATTERN FILE : FILE must match the extended regex PATTERN
expect_grep() {
  grep -Eq -- "$1" "$2" || { echo "--- $2" >&2; head -c 4000 "$2" >&2; fail "no match for /$1/ in $2"; }
}
expect_no_grep() {
  if grep -Eq -- "$1" "$2"; then echo "--- $2" >&2; head -c 4000 "$2" >&2; fail "unexpected match for /$1/ in $2"; fi
}

# shared_dir REL : the team's reference data, or skip (a failure under CI=true)
shared_dir() {
  d="${OACHECK_SHARED:-}/$1"
  if [ -z "${OACHECK_SHARED:-}" ] || [ ! -e "$d" ]; then
    if [ "${CI:-}" = true ]; then echo "reference data '$1' missing under CI" >&2; exit 99; fi
    skip "reference data '$1' not found (OACHECK_SHARED='${OACHECK_SHARED:-}')"
  fi
  echo "$d"
}
