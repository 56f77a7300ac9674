#!/bin/sh
# secrets-echo.sh — a server that quotes the API key back (in a 401 body,
# in response headers, inside a streamed chunk, as a URL query in a
# redirect) gets none of it into oacheck's output: not the JSON, JUnit or
# HTML reports, not the console or the -vv log, not the cassettes of
# `oacheck record` nor what `record --show` prints of them, not what
# `report render` makes of the results.  Every occurrence shows as the
# mask instead.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

KEY="sk-oacheck-SECRET-1234567890"
OPENAI_API_KEY=$KEY; export OPENAI_API_KEY
SUITE="$OACHECK_SRCDIR/tests/data/suites/hostile-secrets.json"
hostile_start

set +e
"$OACHECK" -vv run "$SUITE" --target "h=$HURL" --json "$TMP/r.json" --junit "$TMP/r.xml" \
  --html "$TMP/r.html" >"$TMP/run.out" 2>"$TMP/run.err"
st=$?
set -e
[ "$st" = 1 ] || { cat "$TMP/run.err" >&2; fail "run exited $st, expected 1 (the echo cases fail)"; }
grep -q 'hostile-secrets/echo-stream' "$TMP/run.out" || fail "the run did not run the echo cases"
mkdir -p "$TMP/rec"
set +e
"$OACHECK" -vv record "$SUITE" --target "h=$HURL" --out "$TMP/rec" >"$TMP/rec.out" 2>"$TMP/rec.err"
set -e
ls "$TMP"/rec/*.cassette.gz >/dev/null 2>&1 || { cat "$TMP/rec.err" >&2; fail "record wrote no cassette"; }
: >"$TMP/show.out"
for c in "$TMP"/rec/*.cassette.gz; do
  "$OACHECK" record --show "$c" >>"$TMP/show.out" 2>&1 || fail "record --show $(basename "$c") failed"
  gzip -dc "$c" >"$TMP/$(basename "$c").raw"
done
"$OACHECK" report render "$TMP/r.json" --html "$TMP/r2.html" --junit "$TMP/r2.xml" >"$TMP/render.out" 2>&1 ||
  fail "report render failed"

leaks=""
for f in "$TMP"/run.out "$TMP"/run.err "$TMP"/r.json "$TMP"/r.xml "$TMP"/r.html "$TMP"/rec.out \
         "$TMP"/rec.err "$TMP"/show.out "$TMP"/*.raw "$TMP"/r2.html "$TMP"/r2.xml "$TMP"/render.out; do
  if grep -q -e "$KEY" -e "SECRET-1234567890" "$f"; then leaks="$leaks $(basename "$f")"; fi
done
[ -z "$leaks" ] || fail "the key leaked into:$leaks"
# the echoes are still there, masked: the reader sees that a secret was quoted
grep -q '\[secret\**\]' "$TMP/r.json" || fail "the results do not show the mask where the key was"
grep -q '\[secret\**\]' "$TMP/show.out" || fail "record --show does not show the mask"
pass "a key quoted back in a body, a header, a chunk and a URL query is masked everywhere"
