#!/bin/sh
# run-interrupt.sh — reports survive a stopped run and a full disk.
# SIGINT or SIGTERM in the middle of a run writes the finished cases as an
# incomplete run (JSON "incomplete": true with the reason, an error
# testcase in JUnit, a banner in HTML, a console line) and exits 130/143;
# the previous run's reports do not stay behind looking current.  A report
# that cannot be written (a full disk) is reported and the previous file
# is kept whole.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

SUITE="$OACHECK_SRCDIR/tests/data/suites/hostile-slow.json"
hostile_start

# stop SIG WANT : start a run, stop it with SIG once the two quick cases
# have finished, and check what it left behind
stop() {
  sig=$1; want=$2
  printf '{"stale": true}\n' >"$TMP/r.json"
  # the previous stop's console output goes first: the shell truncates
  # "$TMP/out" in the child, after the fork, and a wait that read the old
  # file's two PASS lines signalled a run that had not started its cases
  # (or not even installed its handlers: killed outright, no reports)
  rm -f "$TMP/out"
  "$OACHECK" run "$SUITE" --target "h=$HURL" --timeout 120 --json "$TMP/r.json" \
    --junit "$TMP/r.xml" --html "$TMP/r.html" >"$TMP/out" 2>"$TMP/err" &
  pid=$!
  i=0
  until [ "$(grep -c '^PASS ' "$TMP/out" 2>/dev/null)" = 2 ]; do
    i=$((i + 1))
    [ $i -lt $((300 * SLOW)) ] || { kill -9 $pid; cat "$TMP/out" "$TMP/err" >&2; fail "the quick cases did not finish"; }
    sleep 0.1
  done
  t0=$(date +%s)
  kill -"$sig" $pid
  set +e
  wait $pid
  st=$?
  set -e
  t1=$(date +%s)
  [ "$st" = "$want" ] || { cat "$TMP/err" >&2; fail "SIG$sig: run exited $st, expected $want"; }
  [ $((t1 - t0)) -le $((5 * SLOW)) ] || fail "SIG$sig: the run took $((t1 - t0)) s to stop"
  [ -s "$TMP/r.json" ] || fail "SIG$sig: no JSON results"
  "$OACHECK" validate https://oacheck.dev/schemas/results.schema.json "$TMP/r.json" >"$TMP/v" 2>&1 ||
    { cat "$TMP/v" >&2; head -c 4000 "$TMP/r.json" >&2; fail "SIG$sig: the results do not match the results schema"; }
  expect_grep '"incomplete":[[:space:]]*true' "$TMP/r.json"
  expect_grep "\"incomplete_reason\":[[:space:]]*\"interrupted by SIG$sig after 2 of 3 cases" "$TMP/r.json"
  expect_grep '"case":[[:space:]]*"quick-stream"' "$TMP/r.json"
  expect_no_grep '"case":[[:space:]]*"endless"' "$TMP/r.json"
  expect_no_grep 'stale' "$TMP/r.json"
  expect_grep '<testcase name="run complete" classname="oacheck">' "$TMP/r.xml"
  expect_grep 'interrupted by' "$TMP/r.xml"
  expect_grep 'Run incomplete' "$TMP/r.html"
  expect_grep '^run incomplete: interrupted by' "$TMP/out"
  ls "$TMP"/r.json.tmp-* >/dev/null 2>&1 && fail "SIG$sig: a temporary report was left behind"
  return 0
}
stop INT 130
stop TERM 143
pass "SIGINT and SIGTERM write the finished cases as an incomplete run (130, 143)"

# A full disk: a tmpfs of 64 KiB, already full, holds the previous
# reports.  Needs a mount namespace (unshare -rm); without one a read-only
# directory stands in (not for root, who writes there anyway).
QUICK="$OACHECK_SRCDIR/tests/data/suites/hostile-slow.json"
full_disk_run() {
  cat >"$TMP/full.sh" <<EOS
set -e
mount -t tmpfs -o size=64k none "$TMP/disk"
printf '{"previous": true}\n' >"$TMP/disk/r.json"
printf '<old/>\n' >"$TMP/disk/r.xml"
dd if=/dev/zero of="$TMP/disk/fill" bs=1k count=200 2>/dev/null || true
cp "$TMP/disk/r.json" "$TMP/before.json"
set +e
"$OACHECK" run "$QUICK" --filter 'quick*' --target "h=$HURL" --json "$TMP/disk/r.json" --junit "$TMP/disk/r.xml" \
  >"$TMP/full.out" 2>"$TMP/full.err"
echo \$? >"$TMP/full.st"
cmp -s "$TMP/disk/r.json" "$TMP/before.json" && echo kept >"$TMP/full.kept"
ls "$TMP/disk" >"$TMP/full.ls"
EOS
  unshare -rm sh "$TMP/full.sh"
}
mkdir -p "$TMP/disk"
if command -v unshare >/dev/null 2>&1 && unshare -rm true 2>/dev/null; then
  full_disk_run
  [ "$(cat "$TMP/full.st")" = 1 ] || { cat "$TMP/full.err" >&2; fail "a run that cannot write its reports exited $(cat "$TMP/full.st"), expected 1"; }
  expect_grep "cannot (write|create) '.*r\.json': No space left on device \(the previous file is kept\)" "$TMP/full.err"
  [ -f "$TMP/full.kept" ] || fail "the previous JSON report was not kept whole on a full disk"
  expect_no_grep 'tmp-' "$TMP/full.ls"
  pass "a full disk: the write error is reported and the previous report kept"
elif [ "$(id -u)" != 0 ]; then
  printf '{"previous": true}\n' >"$TMP/disk/r.json"
  cp "$TMP/disk/r.json" "$TMP/before.json"
  chmod 555 "$TMP/disk"
  expect_status 1 "$OACHECK" run "$QUICK" --filter 'quick*' --target "h=$HURL" --json "$TMP/disk/r.json"
  chmod 755 "$TMP/disk"
  expect_grep "cannot create '.*r\.json'" "$TMP/err"
  cmp -s "$TMP/disk/r.json" "$TMP/before.json" || fail "the previous JSON report was not kept"
  pass "a read-only directory: the write error is reported and the previous report kept"
else
  echo "# no mount namespace for a tiny tmpfs, and root ignores a read-only directory: full-disk case not run"
fi
