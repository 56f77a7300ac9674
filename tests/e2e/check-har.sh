#!/bin/sh
# check-har.sh — a HAR file made by a real browser: headless Chromium,
# driven through puppeteer-core (tests/e2e/har-capture.mjs), fetches chat
# completions from `oacheck serve` and the HAR is written from its
# DevTools Network events, as devtools' export builds it.  `oacheck check`
# on that HAR must find, in every chat-completion entry, what `oacheck run
# --replay` finds in the same recordings: rule, severity, chunk, byte and
# JSON pointer (a HAR has the HTTP layer and the request; it has no timing
# of pieces, which no rule needs).  Skipped without node, chromium or the
# puppeteer-core package (tests/node, installed by .ci/run); under CI=true
# a chromium beside an npm install without the package is a failure.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

CHROMIUM=${CHROMIUM:-}
[ -n "$CHROMIUM" ] || CHROMIUM=$(command -v chromium 2>/dev/null || command -v chromium-browser 2>/dev/null || true)
[ -n "$CHROMIUM" ] || skip "chromium not found (Debian package chromium)"
NODE=${NODE:-}
[ -n "$NODE" ] || NODE=$(command -v node 2>/dev/null || true)
[ -n "$NODE" ] && [ -x "$NODE" ] || skip "node is not installed"
NODEDIR="$OACHECK_SRCDIR/tests/node"
if [ ! -f "$NODEDIR/node_modules/puppeteer-core/package.json" ]; then
  # npm ran (node_modules is there) but left the package out: under CI that
  # is a broken install, not a machine without the tools (make distcheck's
  # tree has no node_modules at all)
  if [ "${CI:-}" = true ] && [ -d "$NODEDIR/node_modules" ]; then
    echo "chromium is here but puppeteer-core is not in $NODEDIR/node_modules (.ci/run installs it)" >&2
    exit 99
  fi
  skip "the puppeteer-core npm package is not in $NODEDIR/node_modules (.ci/run installs it)"
fi
FL="${OACHECK_BUILDDIR:-.}/tests/e2e/findings-list"
[ -x "$FL" ] || fail "the helper $FL is not built"
# a hang guard, not a timed assertion
TIMEOUT=$(command -v timeout 2>/dev/null || true)
# the curl captures, by the names they have there (chat-stream, tools-required-stream, ...)
REC="$OACHECK_SRCDIR/tests/data/recordings/llama-server-curl"

# streams with findings in chunks, a stream the request makes fail, a
# JSON body; their text holds UTF-8 beyond ASCII (Cyrillic, CJK)
NAMES="tools-required-stream logprobs-stream json-object-stream chat-basic"
replay_suite "$TMP/captured.json" "$REC" $NAMES
expect_status 1 "$OACHECK" run "$TMP/captured.json" --replay "$REC" --profile llama-server --json "$TMP/run.json"

serve_start "$REC"
reqs=""
for n in $NAMES; do reqs="$reqs $TMP/$n.req.json"; done
# a headless browser on a loaded machine now and then dies at start-up:
# one more try tells that apart from a broken harness
for attempt in 1 2; do
  rm -rf "$TMP/profile"
  mkdir "$TMP/profile"
  set +e
  ${TIMEOUT:+$TIMEOUT 180} "$NODE" "$OACHECK_SRCDIR/tests/e2e/har-capture.mjs" "$NODEDIR" "$CHROMIUM" \
    "$TMP/profile" "$URL" "$TMP/chromium.har" $reqs >"$TMP/har.out" 2>"$TMP/har.err"
  st=$?
  set -e
  [ "$st" != 0 ] || break
  echo "har-capture attempt $attempt: exit $st" >&2
  tail -n 5 "$TMP/har.err" >&2
done
[ "$st" = 0 ] || { cat "$TMP/har.out" "$TMP/har.err" >&2; fail "headless Chromium did not write the HAR"; }
serve_stop
expect_grep '"version": "1.2"' "$TMP/chromium.har"
pass "headless Chromium fetched $(echo $NAMES | wc -w) completions from oacheck serve into a HAR"

set +e
"$OACHECK" check --profile llama-server --json "$TMP/har.json" "$TMP/chromium.har" >"$TMP/check.out" 2>"$TMP/check.err"
st=$?
set -e
[ "$st" = 1 ] || { cat "$TMP/check.out" "$TMP/check.err" >&2; fail "oacheck check on the HAR exited $st, expected 1"; }
expect_grep '^chromium\.har#[0-9]+: a HAR file, POST /v1/chat/completions' "$TMP/check.out"
expect_grep '^  request: from the capture' "$TMP/check.out"
expect_grep '^  timing: not captured' "$TMP/check.out"
expect_status 0 "$OACHECK" validate "$OACHECK_SRCDIR/schemas/results.schema.json" "$TMP/har.json"
# the page itself (GET /health) and anything else the browser fetched
expect_grep '/chromium\.har: [0-9]+ other HAR entr(y|ies) \(not a POST to a completions endpoint\) not checked' "$TMP/check.out"

# the chat entries in the order they were fetched, against their recordings
sed -n 's/^[[:space:]]*"case":[[:space:]]*"\(chromium\.har#[0-9]*\)".*/\1/p' "$TMP/har.json" > "$TMP/cases"
[ "$(wc -l < "$TMP/cases")" -eq "$(echo $NAMES | wc -w)" ] ||
  { cat "$TMP/cases" >&2; fail "the HAR does not hold one chat entry per request"; }
i=0
located=0
for n in $NAMES; do
  i=$((i + 1))
  c=$(sed -n "${i}p" "$TMP/cases")
  "$FL" "$TMP/run.json" "$n" > "$TMP/want"
  "$FL" "$TMP/har.json" "$c" > "$TMP/got"
  if ! cmp -s "$TMP/want" "$TMP/got"; then
    diff -u "$TMP/want" "$TMP/got" >&2 || true
    fail "$n: oacheck check on Chromium's HAR ($c) differs from run --replay (- run, + check)"
  fi
  located=$((located + $(grep -c ' chunk=[0-9]' "$TMP/got" || true)))
done
[ "$located" -gt 4 ] || fail "only $located findings with a chunk: the comparison shows little"
pass "every chat entry of Chromium's HAR gives run --replay's findings ($located located in a chunk)"
