#!/bin/sh
# report-junit.sh — JUnit XML from every results fixture is valid against
# the Jenkins xUnit plugin's junit-10.xsd (what Jenkins, GitLab and GitHub
# reporters read), and the mapping holds: counts, one testsuite per
# target x suite, classname target.suite (never a URL), failure / error /
# skipped, the first error finding as the message, identity properties,
# nothing hostile or secret getting through.  `report render` writes the
# same files as `oacheck run` did.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

XSD=$(shared_dir reference/junit/junit-10.xsd) || exit $?
XMLLINT=${XMLLINT:-}
[ -n "$XMLLINT" ] || XMLLINT=$(command -v xmllint 2>/dev/null || true)
if [ -z "$XMLLINT" ]; then
  if [ "${CI:-}" = true ]; then echo "xmllint missing under CI (.ci/run installs libxml2-utils)" >&2; exit 99; fi
  skip "xmllint not found (Debian package libxml2-utils)"
fi
DATA="$OACHECK_SRCDIR/tests/data/results"

lint() {
  "$XMLLINT" --noout --schema "$XSD" "$1" >"$TMP/lint" 2>&1 || {
    cat "$TMP/lint" >&2; fail "$1 is not valid against junit-10.xsd"; }
}

for f in replay-llama shard-1 shard-2 two-targets hostile; do
  expect_status 0 "$OACHECK" report render "$DATA/$f.json" --junit "$TMP/$f.xml"
  lint "$TMP/$f.xml"
done
pass "the JUnit of every fixture validates against junit-10.xsd"

X="$TMP/replay-llama.xml"
expect_grep '^<testsuites name="oacheck" tests="14" failures="2" errors="1" time="[0-9]+\.[0-9]{3}">' "$X"
[ "$(grep -c '<testsuite ' "$X")" = 6 ] || fail "expected 6 testsuites (one per target x suite)"
[ "$(grep -c '<testcase ' "$X")" = 14 ] || fail "expected 14 testcases"
expect_grep '<testsuite name="llama-server-b10587.tool-calls" package="llama-server-b10587" id="2" tests="3" failures="1" errors="0" skipped="1" time="0\.120"' "$X"
expect_grep '<testcase name="tools-required-stream" classname="llama-server-b10587.tool-calls" time="0\.032">' "$X"
expect_grep '<failure message="TOOL-CHOICE-HONOURED: tool_choice is &quot;required&quot; but the stream carries no tool call" type="TOOL-CHOICE-HONOURED">' "$X"
# every finding in the failure body, the excerpt in system-out
expect_grep '^\[error\] TOOL-FINISH-REASON at chunk 34, byte 8382 \(/choices/0/finish_reason\)' "$X"
expect_grep '^  #34 &lt;&lt;&lt; data: \{"choices":\[\{"finish_reason":"length"' "$X"
expect_grep '<error message="recording is truncated: the response ends inside the status line' "$X"
[ "$(grep -c '<skipped message="not recorded"/>' "$X")" = 2 ] || fail "expected two 'not recorded' skips"
expect_grep '<skipped message="unsupported: the llama-server profile does not claim n &gt; 1 in streams"/>' "$X"
expect_grep '<property name="chat_template_sha256" value="55b2f4a26ac9ee719330a61a0c39d9e538b0e9322212f048326318cff4f8674a"/>' "$X"
expect_grep '<property name="n_ctx" value="512"/>' "$X"
expect_grep '<property name="build" value="b10587-3f545becc"/>' "$X"
expect_grep '<property name="profile" value="llama-server"/>' "$X"
expect_grep '^timing: TTFT 22\.9 ms, .*longest gap 41\.7 ms \(before chunk 10\)' "$X"
expect_grep '^timing: not recorded$' "$X"
pass "mapping: counts, classname, failure/error/skipped, message, properties, system-out"

X="$TMP/two-targets.xml"
expect_grep '<testcase name="chat-basic" classname="vllm-0.11.plain"' "$X"
expect_grep '<testsuite name="ollama-laptop.plain" package="ollama-laptop" id="[0-9]+" tests="1" failures="0" errors="1"' "$X"
expect_no_grep 'classname="[^"]*://' "$X"
expect_no_grep 'name="[^"]*127\.0\.0\.1' "$X"
pass "classname is the target's name, never its URL"

X="$TMP/hostile.xml"
expect_no_grep '<script|<img|<!\[CDATA\[' "$X"
expect_no_grep 'sk-hostile|hunter2|sk-url' "$X"
expect_grep 'esc\\u001B\[31mred' "$X"
pass "hostile text is escaped, controls made visible, secrets absent"

# raw control bytes and invalid UTF-8 inside the results file itself
printf '{"oacheck":{"version":"0.1.0","started":"2026-11-30T02:00:00Z","mode":"live"},
"targets":[{"name":"t\001\033x","kind":"live","profile":"openai","reachable":true}],
"summary":{"total":1,"pass":0,"fail":1,"error":0,"skip":0},
"results":[{"target":"t\001\033x","suite":"s\377\376","case":"c\355\240\200]]>","status":"fail",
"findings":[{"rule":"X-Y","severity":"error","message":"bad \300\257 \364\220\200\200 byte\\u0002",
"where":{"text":""},"path":null,"expected":null,"actual":"\\ufffe\\uffff"}]}]}\n' >"$TMP/bytes.json"
expect_status 0 "$OACHECK" report render "$TMP/bytes.json" --junit "$TMP/bytes.xml"
lint "$TMP/bytes.xml"
expect_grep 'classname="t\\u0001\\u001Bx\.s' "$TMP/bytes.xml"
pass "control characters and invalid UTF-8 in the results still give valid XML"

# `report render` writes what `oacheck run` wrote (the shipped recordings, no network)
set +e
"$OACHECK" run --json "$TMP/run.json" --junit "$TMP/run.xml" --html "$TMP/run.html" >"$TMP/run.out" 2>&1
st=$?
set -e
[ "$st" = 0 ] || [ "$st" = 1 ] || { cat "$TMP/run.out" >&2; fail "oacheck run exited $st"; }
expect_status 0 "$OACHECK" report render "$TMP/run.json" --junit "$TMP/again.xml" --html "$TMP/again.html"
cmp "$TMP/run.xml" "$TMP/again.xml" || fail "report render --junit differs from run --junit"
cmp "$TMP/run.html" "$TMP/again.html" || fail "report render --html differs from run --html"
lint "$TMP/run.xml"
pass "report render gives the same files as the run"
