#!/bin/sh
# secrets.sh — the API key and other secrets never reach a report, a log or
# a cassette: a live run against oacheck serve with a key in
# $OPENAI_API_KEY, a secret header from a targets file and -vv tracing
# writes every report, and none of it (nor stdout/stderr) holds the values.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

KEY="sk-oacheck-test-SECRET-5f1c9a"
HDR="hdr-oacheck-test-SECRET-77e2"
GW="gw-oacheck-test-SECRET-31d0"   # a gateway credential under a name of its own
serve_start "$OACHECK_SRCDIR/suites/recordings/llama-server"
cat > "$TMP/targets.json" <<EOT
{ "targets": [ { "name": "srv", "url": "$URL", "headers": { "X-Api-Key": "$HDR", "apikey": "$GW", "X-Auth": "$GW" } } ] }
EOT
OPENAI_API_KEY=$KEY; export OPENAI_API_KEY
set +e
"$OACHECK" -vv run plain streaming --targets "$TMP/targets.json" \
  --json "$TMP/r.json" --junit "$TMP/r.xml" --html "$TMP/r.html" >"$TMP/out" 2>"$TMP/err"
st=$?
set -e
[ "$st" = 1 ] || { cat "$TMP/err" >&2; fail "run exited $st, expected 1"; }
mkdir -p "$TMP/rec"
set +e
"$OACHECK" record streaming --targets "$TMP/targets.json" --out "$TMP/rec" >"$TMP/rec.out" 2>"$TMP/rec.err"
set -e
serve_stop
grep -q 'PASS  *srv plain/chat-basic' "$TMP/out" || fail "the live run did not run"
for f in "$TMP/out" "$TMP/err" "$TMP/r.json" "$TMP/r.xml" "$TMP/r.html" "$TMP/rec.out" "$TMP/rec.err" "$SERVE_OUT" "$SERVE_ERR"; do
  if grep -q -e "$KEY" -e "$HDR" -e "$GW" "$f"; then fail "a secret leaked into $(basename "$f")"; fi
done
ls "$TMP"/rec/*.cassette.gz >/dev/null 2>&1 || fail "record wrote no cassette"
for c in "$TMP"/rec/*.cassette.gz; do
  if gzip -dc "$c" | grep -q -e "$KEY" -e "$HDR" -e "$GW"; then fail "a secret leaked into cassette $(basename "$c")"; fi
done
# the reports show that a key was sent, as a variable reference or redacted
grep -q 'Bearer \$OPENAI_API_KEY' "$TMP/r.json" || fail "the curl command does not reference \$OPENAI_API_KEY"
pass "no secret in stdout, stderr (-vv), JSON, JUnit, HTML or cassettes"
