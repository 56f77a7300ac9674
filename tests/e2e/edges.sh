#!/bin/sh
# edges.sh — secrets and hangs at the edges of a run: a usage error about a
# URL never echoes its password (an unsupported scheme; an upper-case one is
# simply accepted), `report render` never copies a user:password@ or a key
# from a command line, and identification honours the run's timeouts (a
# target that never answers /v1/models costs --timeout, not 30 s a probe).
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

PW="hunter2-edge-password"
expect_status 2 "$OACHECK" run models --target "ftp://user:$PW@127.0.0.1/v1"
expect_grep "is not an http:// or https:// URL" "$TMP/err"
expect_no_grep "$PW" "$TMP/err"
expect_status 2 "$OACHECK" run models --target "FTP://user:$PW@127.0.0.1/v1"
expect_no_grep "$PW" "$TMP/err"
expect_status 2 "$OACHECK" templates --target "gopher://user:$PW@127.0.0.1/"
expect_no_grep "$PW" "$TMP/err"
pass "a URL with an unsupported scheme is refused without its password"

hostile_start
expect_status 0 "$OACHECK" run "$OACHECK_SRCDIR/tests/data/suites/hostile-slow.json" --filter 'quick*' \
  --target "h=HTTP://user:$PW@${HURL#http://}"
expect_grep '^PASS .*hostile-slow/quick-stream' "$TMP/out"
cat "$TMP/out" "$TMP/err" >"$TMP/all"
expect_no_grep "$PW" "$TMP/all"
pass "an upper-case scheme is accepted (schemes are case-insensitive)"

# report render of a results file whose command line carries credentials
sed "s|\"command\": \"oacheck run --json replay-llama.json\"|\"command\": \"oacheck run --target http://user:$PW@h.example/v1?api-version=1\&api-key=QKEY-0123456789 -H 'Authorization: Bearer sk-edge-0123456789' --json r.json\"|" \
  "$OACHECK_SRCDIR/tests/data/results/replay-llama.json" >"$TMP/cmd.json"
grep -q "$PW" "$TMP/cmd.json" || fail "the fixture did not get its command line"
expect_status 0 "$OACHECK" report render "$TMP/cmd.json" --html "$TMP/r.html" --junit "$TMP/r.xml"
expect_status 0 "$OACHECK" report merge "$TMP/cmd.json" -o "$TMP/m.json"
expect_status 0 "$OACHECK" report render "$TMP/cmd.json" --json "$TMP/r2.json"
for f in r.html r.xml m.json r2.json; do
  for s in "$PW" QKEY-0123456789 sk-edge-0123456789; do
    if grep -q -- "$s" "$TMP/$f"; then fail "report render/merge copied '$s' into $f"; fi
  done
done
expect_grep 'api-version=1' "$TMP/r.html"
pass "report render and merge keep no user:password@, key query or bearer token of a command line"

# identification of a target that never answers
kill "$HOSTILE_PID" 2>/dev/null || true
hostile_start --default never-answer
start=$(date +%s)
expect_status 3 "$OACHECK" run models --target "h=$HURL" --timeout 3 --idle-timeout 60
end=$(date +%s)
[ $((end - start)) -le $((10 * SLOW)) ] || fail "identifying a silent target took $((end - start)) s with --timeout 3"
expect_grep 'unreachable' "$TMP/out"
pass "identification honours --timeout ($((end - start)) s for a target that never answers)"
