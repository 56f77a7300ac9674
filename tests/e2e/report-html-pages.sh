#!/bin/sh
# report-html-pages.sh — the HTML report of a long run (more than 100
# cases): failures first; the first 100 cases whole, the rest brief and in
# <noscript> blocks of 100, so that with scripts on the DOM holds one page
# and with scripts off the page shows every case.  The file is read
# first (no browser needed); then, in headless Chromium through
# puppeteer-core (tests/e2e/html-pages.mjs): the first page, "next", a
# link to a case on the last page, scripts off, and a copy whose policy
# blocks the script.  A case name with "</noscript>" and markup in the
# brief part stays text.  The browser part is skipped without chromium,
# node or the puppeteer-core package (tests/node, installed by .ci/run);
# under CI=true a missing one is a failure.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

# 300 cases of a recorded stream, every 50th made to fail (it expects
# HTTP 201): l049, l099, l149, l199, l249, l299
awk 'BEGIN {
  printf "{\"suite\":\"long\",\"description\":\"a long run\",\"cases\":[\n"
  for (i = 0; i < 300; i++)
    printf "%s{\"name\":\"l%03d\",\"description\":\"d\",\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"headers\":{\"X-Oacheck-Case\":\"streaming.stream-basic\"},\"body\":{\"model\":\"${MODEL}\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}}%s}\n",
      i ? "," : "", i, i % 50 == 49 ? ",\"expect\":{\"status\":201}" : ""
  print "]}" }' >"$TMP/long-suite.json"
serve_start "$OACHECK_SRCDIR/suites/recordings/llama-server" -q
expect_status 1 "$OACHECK" run "$TMP/long-suite.json" --target "$URL" --model tiny-random.gguf --jobs 8 \
  --html "$TMP/long.html" --json "$TMP/long.json"
serve_stop
P="$TMP/long.html"

# every case is in the file, failures first; one target: no matrix (a
# count of used targets once wrapped at 256 cases and drew one)
first=$(grep -o '<details class="case" id="c-[0-9]*" data-status="[a-z]*"' "$P" | head -n 5 |
  sed 's/.*data-status="//; s/"//' | tr '\n' ' ')
[ "$first" = "fail fail fail fail fail " ] || fail "the page does not open with the failures: $first"
[ "$(grep -c '<details class="case"' "$P")" -eq 300 ] || fail "the page lacks cases"
expect_grep 'id="brief-note" data-cases="300" data-failures="6"' "$P"
expect_no_grep 'id="matrix"' "$P"
# the first 100 whole, outside any block; then two blocks (cases 101-200,
# 201-300), every case in them brief
awk '/^<noscript class="page">$/ { inb = 1; blocks++ } /^<\/noscript>$/ { inb = 0 }
  /<details class="case"/ { if (inb) brief++; else whole++ }
  /<h4>Request<\/h4>/ { if (inb) req_in++; else req_out++ }
  /<p class="brief">|<p class="muted">No findings\.<\/p>/ { if (inb) short++ }
  END { printf "blocks=%d whole=%d brief=%d req_out=%d req_in=%d short=%d\n", blocks, whole, brief, req_out, req_in, short }' \
  "$P" >"$TMP/shape"
[ "$(cat "$TMP/shape")" = "blocks=2 whole=100 brief=200 req_out=100 req_in=0 short=200" ] ||
  fail "page shape: $(cat "$TMP/shape") (want 2 blocks, 100 whole cases with requests, 200 brief ones)"
[ "$(grep -o '</noscript' "$P" | wc -l)" -eq 2 ] || fail "a block is not closed, or is closed twice"
pass "a long run's file: failures first, 100 cases whole, 200 brief in two <noscript> blocks, no matrix"

# a brief case from hostile results: its name cannot end the block early
sed 's|"case":[[:space:]]*"l200"|"case": "l200</noscript><img src=x onerror=alert(1)>"|' \
  "$TMP/long.json" >"$TMP/hostile-long.json"
expect_grep 'l200</noscript><img' "$TMP/hostile-long.json"
expect_status 0 "$OACHECK" report render "$TMP/hostile-long.json" --html "$TMP/hostile-long.html"
[ "$(grep -o '</noscript' "$TMP/hostile-long.html" | wc -l)" -eq 2 ] || fail "a case name ended a <noscript> block"
expect_grep 'l200&lt;/noscript&gt;&lt;img' "$TMP/hostile-long.html"
pass "a case name holding </noscript> stays text"

CHROMIUM=${CHROMIUM:-}
[ -n "$CHROMIUM" ] || CHROMIUM=$(command -v chromium 2>/dev/null || command -v chromium-browser 2>/dev/null || true)
NODE=${NODE:-}
[ -n "$NODE" ] || NODE=$(command -v node 2>/dev/null || true)
NODEDIR="$OACHECK_SRCDIR/tests/node"
why=""
if [ -z "$CHROMIUM" ]; then why="chromium not found (Debian package chromium)"
elif [ -z "$NODE" ] || [ ! -x "$NODE" ]; then why="node is not installed"
elif [ ! -f "$NODEDIR/node_modules/puppeteer-core/package.json" ]; then
  # make distcheck's tree has no node_modules at all: a machine without the tools
  if [ "${CI:-}" = true ] && [ -d "$NODEDIR/node_modules" ]; then
    echo "puppeteer-core is not in $NODEDIR/node_modules (.ci/run installs it)" >&2
    exit 99
  fi
  why="the puppeteer-core npm package is not in $NODEDIR/node_modules (.ci/run installs it)"
fi
[ -z "$why" ] || skip "the file is right; no browser view: $why"
# a hang guard, not a timed assertion
TIMEOUT=$(command -v timeout 2>/dev/null || true)

# scripting on, the script kept from running by its policy
sed "s/script-src 'sha256-[^']*'/script-src 'none'/" "$P" >"$TMP/blocked.html"
expect_grep "script-src 'none'" "$TMP/blocked.html"
view() {
  page=$1; shift
  for attempt in 1 2; do
    profile=$(mktemp -d "$TMP/chromium.XXXXXX")
    set +e
    ${TIMEOUT:+$TIMEOUT 300} "$NODE" "$OACHECK_SRCDIR/tests/e2e/html-pages.mjs" "$NODEDIR" "$CHROMIUM" "$profile" \
      "$page" "$@" >"$TMP/views" 2>"$TMP/views.err"
    st=$?
    set -e
    [ "$st" != 0 ] || break
    # a headless browser on a loaded machine now and then dies at start-up
    echo "html-pages.mjs attempt $attempt: exit $st" >&2
  done
  [ "$st" = 0 ] || { tail -n 20 "$TMP/views.err" >&2; fail "the browser views failed (exit $st)"; }
}
# l200 is case index 200, the 203rd in the page (six failures come first)
view "$P" c-200 "$TMP/blocked.html"
cat "$TMP/views"
got() { sed -n "s/^$1 //p" "$TMP/views"; }

got load | grep -q '^in_dom=100 shown=100 brief=0 first=fail first_name=l049 last_name=l094 page=page_1_of_3_(cases_1–100) count=300_of_300_cases_shown blocks=2 open= note=0$' ||
  fail "scripts on, first page: $(got load)"
pass "scripts on: one page of 100 whole cases in the DOM, the rest waiting as two blocks"
got next | grep -q '^in_dom=200 shown=100 brief=100 first=pass first_name=l095 last_name=l196 page=page_2_of_3_(cases_101–200) count=300_of_300_cases_shown blocks=1 open= note=0$' ||
  fail "scripts on, next: $(got next)"
pass "next: the second page made elements from its block, brief, cases 101-200"
got failures | grep -q '^in_dom=200 shown=6 brief=0 first=fail first_name=l049 last_name=l299 page= count=6_of_300_cases_shown blocks=1 open= note=0$' ||
  fail "failures only: $(got failures)"
pass "failures only: the six failures, no pager"
got link | grep -q '^in_dom=300 shown=100 brief=100 first=pass first_name=l197 last_name=l298 page=page_3_of_3_(cases_201–300) count=300_of_300_cases_shown blocks=0 open=c-200 note=0$' ||
  fail "a link to #c-200: $(got link)"
pass "a link to a case on the last page opens it there"
got noscript | grep -q '^in_dom=300 shown=300 brief=200 first=fail first_name=l049 last_name=l298 page= count= blocks=2 open= note=0$' ||
  fail "scripts off: $(got noscript)"
pass "scripts off: every case shows, the later ones brief"
got blocked | grep -q '^in_dom=100 shown=100 brief=0 first=fail first_name=l049 last_name=l094 page= count= blocks=2 open= note=1$' ||
  fail "script blocked: $(got blocked)"
pass "script blocked by a policy: the first page and a note that says where the rest are"
