#!/bin/sh
# run-faults.sh — every fault of `oacheck serve` produces, in `oacheck run`,
# the finding it should, within the timeout, and the cases around it are
# unaffected (tests/data/suites/faults.json selects the chat-stream
# recording with X-Oacheck-Case and breaks it with X-Oacheck-Fault).
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

serve_start "$OACHECK_SRCDIR/tests/data/recordings/llama-server-curl"
start=$(date +%s)
expect_status 1 "$OACHECK" run -v "$OACHECK_SRCDIR/tests/data/suites/faults.json" \
  --target "srv=$URL" --idle-timeout 1 --timeout 20 --json "$TMP/r.json"
end=$(date +%s)
serve_stop
[ $((end - start)) -lt $((60 * SLOW)) ] || fail "the faults run took $((end - start)) s"

# rules(CASE): the rules of CASE's findings, one per line
rules() {
  awk -v c="faults/$1" '
    /^(PASS|FAIL|SKIP|ERROR) / { on = ($3 == c) ; next }
    on && /^      [A-Z]/ { print $1 }' "$TMP/out" | sort -u
}
status() {
  sed -n "s/^\\(PASS\\|FAIL\\|SKIP\\|ERROR\\) *srv faults\\/$1\\( .*\\)\\{0,1\\}\$/\\1/p" "$TMP/out"
}
# want CASE STATUS RULE... : the case ended with STATUS and these rules fired
want() {
  c=$1; st=$2; shift 2
  got=$(status "$c")
  [ "$got" = "$st" ] || fail "faults/$c ended $got, expected $st"
  for r in "$@"; do
    rules "$c" | grep -qx "$r" || { rules "$c" >&2; fail "faults/$c: $r did not fire"; }
  done
}
# none CASE RULE... : these rules did not fire
none() {
  c=$1; shift
  for r in "$@"; do
    if rules "$c" | grep -qx "$r"; then fail "faults/$c: $r fired"; fi
  done
}

want clean PASS;          none clean STREAM-DONE STREAM-TRUNCATED HTTP-TRANSPORT
want clean-after PASS;    none clean-after STREAM-DONE STREAM-TRUNCATED HTTP-TRANSPORT
want drip PASS;           none drip STREAM-DONE
want split PASS;          none split STREAM-DONE STREAM-CHUNK-JSON
want gzip PASS;           none gzip STREAM-DONE STREAM-CHUNK-JSON
want truncate FAIL STREAM-TRUNCATED STREAM-DONE STREAM-FINISH-ONCE
want reset ERROR HTTP-TRANSPORT STREAM-TRUNCATED
want drop-done FAIL STREAM-DONE;  none drop-done STREAM-FINISH-ONCE
want corrupt FAIL STREAM-CHUNK-JSON
# a stream relabelled application/json: every client still reads it as a
# stream, so the label is the finding (a warning, breaking none) and the
# body is judged as the stream it is, not as broken JSON
want content-type PASS STREAM-CONTENT-TYPE; none content-type JSON-BODY
want stall ERROR HTTP-TRANSPORT
expect_grep 'timeout-idle' "$TMP/out"
pass "every fault is named by its rule; clean cases around them pass"

# oacheck's own --timeout ending a healthy, slow stream: the case is an
# error of the run, and what arrived is judged as a partial capture: no
# client model is said to break on the cut oacheck made
serve_start "$OACHECK_SRCDIR/suites/recordings/llama-server" --fault drip=1000
expect_status 1 "$OACHECK" run streaming --filter streaming/stream-basic --target "srv=$URL" \
  --timeout 2 --json "$TMP/to.json"
serve_stop
expect_grep "^ERROR  *srv streaming/stream-basic .oacheck's --timeout" "$TMP/out"
expect_no_grep '"rule":[[:space:]]*"CLIENT-BREAKS"' "$TMP/to.json"
expect_no_grep '^  BREAKS \| BREAKS  ' "$TMP/out"
pass "a stream cut by oacheck's --timeout: an error of the run, no client said to break"
