#!/bin/sh
# fleet-history.sh — `oacheck report history` over 30 generated nightly
# results (fleet-gen nightly, written in an order that is not their date
# order) with a regression and a pin change on day 17 and a flaky case:
# the summary and the JSON name all three, the regression lined up with
# the pin change; the JSON is valid against schemas/history.schema.json;
# the HTML page renders its SVG charts in headless Chromium, with nonzero
# sizes, and makes no request.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
GEN="${OACHECK_BUILDDIR:-.}/tests/e2e/fleet-gen"
[ -x "$GEN" ] || fail "$GEN is not built (make check builds it)"
mkdir "$TMP/nightly"
"$GEN" nightly "$TMP/nightly" || fail "fleet-gen nightly failed"
[ "$(ls "$TMP/nightly" | wc -l)" = 30 ] || fail "fleet-gen wrote $(ls "$TMP/nightly" | wc -l) files"
# something that is JSON but not results sits in the folder too
echo '{"new_failures": 0}' >"$TMP/nightly/diff.json"

expect_status 0 "$OACHECK" report history "$TMP/nightly" --json "$TMP/h.json" --html "$TMP/h.html"
cp "$TMP/out" "$TMP/summary"
expect_grep "warning: '.*diff\.json' is not results .*: skipped" "$TMP/err"
expect_grep '^history of 30 runs, 2026-10-01T02:00:00Z to 2026-10-30T02:00:00Z$' "$TMP/summary"
expect_grep '^  pin changed at run 17 \(2026-10-17T02:00:00Z\): chat_template_sha256 "aaaa1111' "$TMP/summary"
expect_grep '^  TEMPLATE-SYSTEM-KEPT \(llama-3\.1-8b-q8\.gguf\): began failing at run 17 \(2026-10-17T02:00:00Z\), with the pin change \(chat_template_sha256\); recovered at run 24 \(2026-10-24T02:00:00Z\); plain/system-kept$' "$TMP/summary"
expect_grep '^  flaky: streaming/stream-basic: 6 flips with no pin change' "$TMP/summary"
expect_grep '^  CASE-ASSERT \(qwen2\.5-7b-q4\.gguf\): failing since run 1 .*; still failing; errors/bad-json$' "$TMP/summary"
# the regression recovered under the same pin: one flip, not flaky
expect_no_grep 'flaky: plain/system-kept' "$TMP/summary"
pass "the summary names the regression (lined up with the pin change on day 17), the drift and the flaky case"

expect_status 0 "$OACHECK" validate "$OACHECK_SRCDIR/schemas/history.schema.json" "$TMP/h.json"
expect_status 0 "$OACHECK" validate "$OACHECK_SRCDIR/tests/data/history/expect-nightly.schema.json" "$TMP/h.json"
pass "the JSON is valid history and holds what was injected"

# any order, any names: the same history
mkdir "$TMP/shuffled"
i=0
for f in $(ls "$TMP/nightly"/nightly-*.json | sort -r); do
  i=$((i + 1)); cp "$f" "$TMP/shuffled/zz-$i.json"
done
expect_status 0 "$OACHECK" report history "$TMP/shuffled"/zz-1*.json "$TMP/shuffled"
expect_grep '^history of 30 runs' "$TMP/out"
cmp -s "$TMP/out" "$TMP/summary" || { diff "$TMP/summary" "$TMP/out" >&2; fail "another order of files gives another history"; }
pass "files in any order, given twice (a folder and its files): the same history"

expect_status 2 "$OACHECK" report history
expect_status 2 "$OACHECK" report history "$TMP/nope"
expect_grep "nope" "$TMP/err"
printf '{"oacheck": {"version": "0.1.0", "started": tru' >"$TMP/nightly/broken.json"
expect_status 2 "$OACHECK" report history "$TMP/nightly"
expect_grep 'broken\.json:1:' "$TMP/err"
rm "$TMP/nightly/broken.json"
pass "no input, a missing folder, a broken results file: exit 2 naming it"

# ---- the page ---------------------------------------------------------------
H="$TMP/h.html"
expect_no_grep '<script|src=|href=|url\(|@import' "$H"
expect_grep "default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]{44}'; script-src 'none'" "$H"
[ "$(grep -o '<svg class="chart' "$H" | wc -l)" = 8 ] || fail "expected 8 charts (2 timelines, 6 trends)"
expect_grep '<rect class="episode lined-up"' "$H"
expect_grep '<g class="drift"><title>pin changed at run 17' "$H"
pass "one file, no script, nothing referenced outside; 8 charts; the regression's bar marked as lined up"

CHROMIUM=${CHROMIUM:-}
[ -n "$CHROMIUM" ] || CHROMIUM=$(command -v chromium 2>/dev/null || command -v chromium-browser 2>/dev/null || true)
if [ -z "$CHROMIUM" ]; then
  if [ "${CI:-}" = true ]; then echo "chromium missing under CI (.ci/run installs it)" >&2; exit 99; fi
  skip "chromium not found (Debian package chromium): the page was not opened in a browser"
fi
PNGSTAT="${OACHECK_BUILDDIR:-.}/tests/e2e/report-pngstat"
TIMEOUT=$(command -v timeout 2>/dev/null || true)
chromium() {
  what=$1; page=$2; out=$3
  profile=$(mktemp -d "$TMP/chromium.XXXXXX")
  for attempt in 1 2; do
    set +e
    ${TIMEOUT:+$TIMEOUT 120} "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
      --no-first-run --disable-background-networking --disable-component-update --disable-sync \
      --disable-extensions --user-data-dir="$profile" --window-size=1280,2400 \
      --virtual-time-budget=3000 "$what" "file://$page" >"$out" 2>"$out.err"
    st=$?
    set -e
    [ "$st" = 0 ] && [ -s "$out" -o "$what" != --dump-dom ] && break
    echo "chromium attempt $attempt on $page: exit $st" >&2
  done
  [ "$st" = 0 ] || { tail -n 20 "$out.err" >&2; fail "chromium exited $st on $page"; }
}

# A probe in a copy of the page (the page itself allows no script): it
# counts policy violations from the start (any request the page tried
# would be one), then measures every chart and line.
probe() {
  sed -e "s/script-src 'none'/script-src 'unsafe-inline'/" \
      -e 's|^<meta http-equiv="Content-Security-Policy".*|&\n<script>var violations = 0; document.addEventListener("securitypolicyviolation", function () { violations++; });</script>|' \
      -e 's|^</body>|<script>(function () { var c = document.querySelectorAll("svg.chart"), ok = 0, i; for (i = 0; i < c.length; i++) { var r = c[i].getBoundingClientRect(); if (r.width > 0 \&\& r.height > 0) ok++; } var l = document.querySelectorAll("svg.trend polyline"), drawn = 0; for (i = 0; i < l.length; i++) { var b = l[i].getBBox(); if (b.width > 100) drawn++; } var e = document.querySelectorAll("rect.episode"), bars = 0; for (i = 0; i < e.length; i++) { if (e[i].getBBox().width > 0) bars++; } setTimeout(function () { var p = document.createElement("pre"); p.id = "probe"; p.textContent = "charts=" + c.length + " nonzero=" + ok + " lines=" + l.length + " drawn=" + drawn + " bars=" + bars + " violations=" + violations + " resources=" + performance.getEntriesByType("resource").length; document.body.appendChild(p); }, 500); })();</script>\n&|' \
      "$1" >"$2"
  grep -q 'id = "probe"' "$2" || fail "the probe was not inserted into $2"
}
probe "$H" "$TMP/probe.html"
chromium --dump-dom "$TMP/probe.html" "$TMP/probe.dom"
expect_grep '<pre id="probe">charts=8 nonzero=8 lines=6 drawn=6 bars=5 violations=0 resources=0</pre>' "$TMP/probe.dom"
pass "in Chromium: 8 charts with nonzero size, 6 trend lines drawn, 5 failing bars, no request, no policy violation"

# the probe can see a request: the same page with an image from a server
sed 's|^<main>|<main><img src="http://127.0.0.1:9/x.png" alt="">|' "$H" >"$TMP/leaky.html"
probe "$TMP/leaky.html" "$TMP/leaky-probe.html"
chromium --dump-dom "$TMP/leaky-probe.html" "$TMP/leaky.dom"
expect_grep '<pre id="probe">charts=8 .* violations=[1-9]' "$TMP/leaky.dom"
pass "the probe catches a request when a page makes one"

chromium --screenshot="$TMP/h.png" "$H" "$TMP/shot.out"
[ -s "$TMP/h.png" ] || fail "no screenshot written"
set -- $("$PNGSTAT" "$TMP/h.png") || fail "cannot decode the screenshot"
[ "${3:-0}" -gt 64 ] || fail "the screenshot has ${3:-0} distinct colours: the page looks blank"
pass "screenshot with $3 colours"
