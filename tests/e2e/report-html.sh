#!/bin/sh
# report-html.sh — the HTML report in a real browser (headless Chromium,
# from disk, offline): the page renders (a screenshot that is not blank,
# the summary counts in the DOM), its own script runs under its
# Content-Security-Policy, it reads with scripts off, and the hostile
# fixture's <script> and onerror payloads stay text and never run.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

CHROMIUM=${CHROMIUM:-}
[ -n "$CHROMIUM" ] || CHROMIUM=$(command -v chromium 2>/dev/null || command -v chromium-browser 2>/dev/null || true)
if [ -z "$CHROMIUM" ]; then
  if [ "${CI:-}" = true ]; then echo "chromium missing under CI (.ci/run installs it)" >&2; exit 99; fi
  skip "chromium not found (Debian package chromium)"
fi
PNGSTAT="${OACHECK_BUILDDIR:-.}/tests/e2e/report-pngstat"
[ -x "$PNGSTAT" ] || fail "$PNGSTAT is not built (make check builds it)"
DATA="$OACHECK_SRCDIR/tests/data/results"
# a hang guard, not a timed assertion
TIMEOUT=$(command -v timeout 2>/dev/null || true)

# chromium MODE PAGE OUTBASE [EXTRA...] : MODE dom writes the DOM after
# scripts to OUTBASE.dom, MODE png a screenshot to OUTBASE.png
chromium() {
  mode=$1; page=$2; out=$3; shift 3
  profile=$(mktemp -d "$TMP/chromium.XXXXXX")
  if [ "$mode" = dom ]; then what="--dump-dom"; else what="--screenshot=$out.png"; fi
  # a headless browser on a loaded machine now and then dies at start-up:
  # one more try tells that apart from a page that breaks it
  for attempt in 1 2; do
    set +e
    ${TIMEOUT:+$TIMEOUT 120} "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
      --no-first-run --disable-background-networking --disable-component-update --disable-sync \
      --disable-extensions --user-data-dir="$profile" --window-size=1280,1600 "$@" \
      $what "file://$page" >"$out.$mode.out" 2>"$out.$mode.err"
    st=$?
    set -e
    if [ "$st" = 0 ] && { [ "$mode" = dom ] || [ -s "$out.png" ]; }; then break; fi
    echo "chromium attempt $attempt on $page: exit $st" >&2
  done
  [ "$st" = 0 ] || { tail -n 20 "$out.$mode.err" >&2; fail "chromium exited $st on $page"; }
  [ "$mode" != dom ] || mv "$out.dom.out" "$out.dom"
}
browse() {
  chromium dom "$@"
  chromium png "$@"
}

# colours PNG : how many distinct colours the screenshot holds
colours() {
  [ -s "$1" ] || fail "no screenshot written to $1"
  set -- $("$PNGSTAT" "$1") || fail "cannot decode $1"
  [ "${1:-0}" -ge 640 ] && [ "${2:-0}" -ge 400 ] || fail "screenshot is ${1:-?}x${2:-?}"
  echo "${3:-0}"
}

for f in replay-llama two-targets hostile clients; do
  expect_status 0 "$OACHECK" report render "$DATA/$f.json" --html "$TMP/$f.html"
  expect_no_grep '<link |<script src|src="http|href="http|@import|url\(' "$TMP/$f.html"
done
pass "the reports are single files that reference nothing outside"

browse "$TMP/replay-llama.html" "$TMP/replay"
n=$(colours "$TMP/replay.png")
[ "$n" -gt 64 ] || fail "screenshot has $n distinct colours: the page looks blank"
pass "screenshot with $n colours"

D="$TMP/replay.dom"
expect_grep 'id="count-total">14<' "$D"
expect_grep 'id="count-pass">8<' "$D"
expect_grep 'id="count-fail">2<' "$D"
expect_grep 'id="count-error">1<' "$D"
expect_grep 'id="count-skip">3<' "$D"
expect_grep '<code>TOOL-CHOICE-HONOURED</code>' "$D"
expect_grep '<svg class="timeline"' "$D"
expect_grep 'timing not recorded' "$D"
# the report's own script ran (allowed by its CSP hash): controls shown
expect_grep '<div id="controls" class="controls">' "$D"
expect_grep '14 of 14 cases shown' "$D"
pass "the page rendered: summary counts, findings, timeline; its script ran"

# "Will my client work?" opens the page: a row per checklist item, a
# column per client, a break linked to its case, a limitation told apart
browse "$TMP/clients.html" "$TMP/clients"
C="$TMP/clients.dom"
first=$(grep -o '<section id="[a-z]*"' "$C" | head -n 1)
[ "$first" = '<section id="clients"' ] || fail "the first section is $first, not the client matrix"
expect_grep '<th>tool call streamed</th><td class="cl cl-works">works <span class="muted">\(2\)</span></td>' "$C"
expect_grep '<td class="cl cl-breaks"><a href="#c-6">breaks</a><div class="why">tool_calls: 0 \(expected 1\)' "$C"
expect_grep '<td class="cl cl-limit"><a href="#c-2">its limitation</a>' "$C"
expect_grep '<td class="cl cl-none">—</td>' "$C"
expect_grep '<span id="verdict-mode">verdict: clients</span>' "$C"
expect_grep 'id="c-6"' "$C"
# and each case says what every client made of it
expect_grep '<tr><th>langchain</th><td class="cl cl-breaks">wrong</td><td>tool_calls: 0 \(expected 1\)</td><td class="muted">verified</td></tr>' "$C"
pass "the client matrix: works, breaks (linked to its case), limitation, not exercised; the verdict policy"

browse "$TMP/two-targets.html" "$TMP/two"
expect_grep 'id="matrix"' "$TMP/two.dom"
expect_grep '<th>llama-b10587</th><th>vllm-0.11</th><th>ollama-laptop</th>' "$TMP/two.dom"
pass "several targets: the case x target matrix"

# scripts off: headless Chromium cannot capture with scripting disabled,
# so the page's own policy is turned to script-src 'none' in a copy
sed "s/script-src 'sha256-[^']*'/script-src 'none'/" "$TMP/replay-llama.html" >"$TMP/nojs.html"
expect_grep "script-src 'none'" "$TMP/nojs.html"
browse "$TMP/nojs.html" "$TMP/nojs"
expect_grep 'id="count-fail">2<' "$TMP/nojs.dom"
expect_grep '<div id="controls" class="controls" hidden="">' "$TMP/nojs.dom"
expect_grep 'data-status="fail" open=""' "$TMP/nojs.dom"
expect_no_grep '[0-9]+ of [0-9]+ cases shown' "$TMP/nojs.dom"
n=$(colours "$TMP/nojs.png")
[ "$n" -gt 64 ] || fail "with scripts off the screenshot has $n distinct colours"
pass "readable with scripts off: the page renders, failures open, no dead controls"

browse "$TMP/hostile.html" "$TMP/hostile"
H="$TMP/hostile.dom"
# a payload that ran would have set the title or an attribute on <html>
expect_grep '<html lang="en">' "$H"
expect_no_grep 'data-pwned="|PWNED</title>' "$H"
expect_grep '<title>oacheck: 1 pass, 1 fail, 1 error, 1 skip</title>' "$H"
expect_no_grep '<img' "$H"
[ "$(grep -o '<script' "$H" | wc -l)" -eq 1 ] || fail "the DOM holds more than the report's own script"
# and the payloads are there, as text
expect_grep '&lt;script&gt;document\.title=.PWNED.;' "$H"
expect_grep '"&gt;&lt;img src=x onerror="document\.documentElement' "$H"
expect_grep ']]&gt;&lt;!\[CDATA\[' "$H"
# the client matrix shows a hostile reason as text too
expect_grep '<td class="cl cl-breaks"><a href="#c-1">breaks</a><div class="why">TypeError: &lt;script&gt;' "$H"
expect_no_grep 'sk-hostile|hunter2|sk-url' "$H"
n=$(colours "$TMP/hostile.png")
[ "$n" -gt 64 ] || fail "hostile screenshot has $n distinct colours"
pass "hostile output stays text: no script ran, no element was injected"

# many templates: the grid (a row per template, a cell per fixture), each
# cell a link to its case with the rendered prompt diffed against the
# first target's, sortable by a column (?sort=N sorts when the page opens)
expect_status 1 "$OACHECK" templates --json "$TMP/tpl.json" --html "$TMP/tpl-direct.html"
expect_status 0 "$OACHECK" report render "$TMP/tpl.json" --html "$TMP/tpl.html"
expect_no_grep '<link |<script src|src="http|href="http|@import|url\(' "$TMP/tpl.html"
browse "$TMP/tpl.html" "$TMP/tpl"
G="$TMP/tpl.dom"
expect_grep '<table class="grid sortable" id="template-grid">' "$G"
expect_no_grep 'id="matrix"' "$G"
# eleven templates in the order given, seven fixtures each
rows=$(sed -n '/id="template-grid"/,/<\/table>/p' "$G" | grep -o '<td class="tname">[^<]*' | sed 's/.*>//' | tr '\n' ' ')
[ "$rows" = "GLM-4.7-Flash GLM-4.7-Flash-reasoning-preserve Qwen-QwQ-32B Qwen-Qwen2.5-7B-Instruct Qwen-Qwen3-0.6B Qwen3.5-4B deepseek-ai-DeepSeek-R1-Distill-Qwen-32B llama-cpp-deepseek-r1 meta-llama-Llama-3.1-8B-Instruct mistralai-Mistral-Nemo-Instruct-2407 openai-gpt-oss-120b " ] ||
  fail "grid rows: '$rows'"
[ "$(grep -o '<td class="cell' "$G" | wc -l)" -eq 77 ] || fail "the grid does not have 77 cells"
# a render of reasoning sent back says what the template did with it
[ "$(grep -o '<span class="beh" title="the reasoning of the turn a tool result follows">reasoning dropped</span>' "$G" | wc -l)" -eq 3 ] ||
  fail "the grid does not name the three templates that drop the reasoning before a tool result"
expect_grep '<a class="st st-fail" href="#c-[0-9]+">fail</a> <code class="rule" title="tool-call: the template refuses the tool-call id' "$G"
expect_grep '<a class="st st-warn" href="#c-[0-9]+">warn</a> <code class="rule"[^>]*>SERVER-DATE</code>' "$G"
# the script made the headings sortable
expect_grep '<th data-sort="num" title="sort by this column">findings</th>' "$G"
# a cell's case: the prompt, and a line diff against the first target's
expect_grep '<h4>Rendered prompt</h4>' "$G"
expect_grep '<h4>Compared with GLM-4.7-Flash</h4>' "$G"
expect_grep '<pre class="diff">.*<(ins|del)>' "$G"
n=$(colours "$TMP/tpl.png")
[ "$n" -gt 64 ] || fail "templates screenshot has $n distinct colours"
pass "templates: the grid, a row per template, cells linked to prompts and diffs"

# sorted by findings, most first: gpt-oss (11: the date, tool results
# encoded twice, an unknown role dropped), Llama 3.1 (9), …, Qwen 2.5 (none)
chromium dom "$TMP/tpl.html?sort=-2" "$TMP/tpl-sorted"
rows=$(sed -n '/id="template-grid"/,/<\/table>/p' "$TMP/tpl-sorted.dom" | grep -o '<td class="tname">[^<]*' | sed 's/.*>//' | tr '\n' ' ')
case "$rows" in
  "openai-gpt-oss-120b meta-llama-Llama-3.1-8B-Instruct "*" Qwen-Qwen2.5-7B-Instruct ") ;;
  *) fail "sorted grid rows: '$rows'" ;;
esac
expect_grep '<th data-sort="num" title="sort by this column" class="sorted-desc">findings</th>' "$TMP/tpl-sorted.dom"
pass "the grid sorts by a column"

# a long run (more than a page of cases): report-html-pages.sh
