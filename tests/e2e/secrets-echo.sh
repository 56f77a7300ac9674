#!/bin/sh
# secrets-echo.sh — a server that quotes the API key back (in a 401 body,
# in response headers, inside a streamed chunk, as a URL query in a
# redirect) gets none of it into oacheck's output: not the JSON, JUnit or
# HTML reports, not the console or the -vv log, not the cassettes of
# `oacheck record` nor what `record --show` prints of them, not what
# `report render` makes of the results.  Every occurrence shows as the
# mask instead.  Nor does the key of the environment get out of a results
# file that holds it in the clear (an older oacheck's, a hand edit), nor
# out of a captured answer that quotes it: not through `report render`
# (HTML, JUnit, Markdown, GitHub annotations and step summary), `report
# history`, `report merge`, `oacheck check` or `record --to-suite`.
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

# ---- the key in the clear in a results file, a capture and a cassette
mask=$(printf '[secret%s]' "$(printf '%0*d' $((${#KEY} - 8)) 0 | tr 0 '*')")
grep -qF "$mask" "$TMP/r.json" || fail "the results do not hold the mask $mask"
awk -v m="$mask" -v k="$KEY" '{ while((i = index($0, m)) > 0) $0 = substr($0, 1, i - 1) k substr($0, i + length(m)); print }' \
  "$TMP/r.json" > "$TMP/old.json"
grep -q "$KEY" "$TMP/old.json" || fail "could not put the key back into a results file"
: > "$TMP/step-summary.md"
set +e
GITHUB_STEP_SUMMARY="$TMP/step-summary.md" GITHUB_WORKSPACE="$OACHECK_SRCDIR" \
  "$OACHECK" report render "$TMP/old.json" --html "$TMP/o.html" --junit "$TMP/o.xml" \
  --markdown "$TMP/o.md" --github >"$TMP/o.out" 2>&1
"$OACHECK" report history "$TMP/old.json" --html "$TMP/h.html" --json "$TMP/h.json" >"$TMP/h.out" 2>&1
"$OACHECK" report merge "$TMP/old.json" -o "$TMP/m.json" >"$TMP/m.out" 2>&1
set -e
[ -s "$TMP/o.md" ] && [ -s "$TMP/step-summary.md" ] && [ -s "$TMP/h.html" ] && [ -s "$TMP/m.json" ] ||
  { cat "$TMP/o.out" "$TMP/h.out" "$TMP/m.out" >&2; fail "report render/history/merge wrote nothing"; }
grep -q '^::error' "$TMP/o.out" || fail "report render --github printed no annotation"
# a capture of the gateway's 401, checked
printf 'HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\n\r\n{"error":{"message":"Incorrect API key provided: %s.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}' \
  "$KEY" > "$TMP/cap.http"
set +e
"$OACHECK" check "$TMP/cap.http" --json "$TMP/c.json" --junit "$TMP/c.xml" >"$TMP/c.out" 2>&1
set -e
[ -s "$TMP/c.json" ] || { cat "$TMP/c.out" >&2; fail "oacheck check wrote no results"; }
# a raw exchange that quotes it, imported and turned into a suite case
mkdir -p "$TMP/raw"
printf '{"echo": {"method": "POST", "path": "/v1/chat/completions", "request_body": true}}' > "$TMP/raw/index.json"
printf '{"model": "m", "messages": [{"role": "user", "content": "hi"}]}' > "$TMP/raw/echo.request.json"
cp "$TMP/cap.http" "$TMP/raw/echo.response.http"
"$OACHECK" record --import "$TMP/raw" --out "$TMP/imp" >"$TMP/imp.out" 2>&1 || { cat "$TMP/imp.out" >&2; fail "record --import failed"; }
"$OACHECK" record --to-suite "$TMP/imp/echo.cassette.gz" --out "$TMP/to-suite.json" >>"$TMP/imp.out" 2>&1 ||
  { cat "$TMP/imp.out" >&2; fail "record --to-suite failed"; }
gzip -dc "$TMP/imp/echo.cassette.gz" > "$TMP/imp.raw"
leaks=""
for f in "$TMP"/o.html "$TMP"/o.xml "$TMP"/o.md "$TMP"/o.out "$TMP"/step-summary.md "$TMP"/h.html "$TMP"/h.json \
         "$TMP"/h.out "$TMP"/m.json "$TMP"/m.out "$TMP"/c.json "$TMP"/c.xml "$TMP"/c.out "$TMP"/imp.raw \
         "$TMP"/imp.out "$TMP"/to-suite.json; do
  if grep -q -e "$KEY" -e "SECRET-1234567890" "$f"; then leaks="$leaks $(basename "$f")"; fi
done
[ -z "$leaks" ] || fail "the environment's key, in the clear in the input, leaked into:$leaks"
pass "the key in the clear in a results file, a capture or a raw exchange reaches no report, history, summary, annotation, cassette or suite"
