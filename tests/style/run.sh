#!/bin/sh
# run.sh — the style check in `make check`: scripts/checksrc.sh over the
# whole tree must find nothing, and every rule must bite: each
# tests/style/bad-*.c says in "expect: LINE RULE" comments what the check
# must report for it, no more and no less (written by hand, not taken from
# the script's output), good.c holds the look-alikes that must pass, and
# every rule the script can report has a sample here.  The samples are
# checked as if they were in src/, where every rule applies.
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

check="$OACHECK_SRCDIR/scripts/checksrc.sh"
[ -f "$check" ] || fail "no $check"

# 1. the tree as it is
if ! sh "$check" > "$TMP/tree" 2>&1; then
  cat "$TMP/tree"
  fail "scripts/checksrc.sh finds the problems above in the tree (HACKING.md says what each rule wants)"
fi
pass "the tree passes scripts/checksrc.sh"

# 2. every sample reports exactly what it says
mkdir "$TMP/src" || fail "mkdir failed"
for f in "$OACHECK_SRCDIR"/tests/style/*.c; do
  b=$(basename "$f")
  cp "$f" "$TMP/src/$b"
  rc=0
  sh "$check" "$TMP/src/$b" > "$TMP/out" 2>&1 || rc=$?
  sed -n "s|^$TMP/src/$b:\([0-9]*\): \([A-Z-]*\): .*|\1 \2|p" "$TMP/out" | LC_ALL=C sort -u > "$TMP/got"
  sed -n 's|.*expect: \([0-9]*\) \([A-Z-]*\) .*|\1 \2|p' "$f" | LC_ALL=C sort -u > "$TMP/want"
  if ! cmp -s "$TMP/got" "$TMP/want"; then
    echo "--- $b: expected"; cat "$TMP/want"; echo "--- reported"; cat "$TMP/out"
    fail "$b: the check did not report what the sample says it must"
  fi
  case "$b" in
    good.c) [ "$rc" -eq 0 ] || fail "good.c: the check exits $rc on a file with no violation" ;;
    *) [ "$rc" -eq 1 ] || fail "$b: the check exits $rc, not 1, on a violation" ;;
  esac
  cat "$TMP/want" >> "$TMP/covered"
done
pass "every sample in tests/style/ reports exactly its expected violations"

# 3. no rule without a sample
for rule in $(sed -n 's/.*report("\([A-Z-]*\)".*/\1/p' "$check" | LC_ALL=C sort -u); do
  grep -q " $rule\$" "$TMP/covered" || fail "rule $rule of scripts/checksrc.sh has no sample in tests/style/"
done
pass "every rule of scripts/checksrc.sh has a sample that it catches"
