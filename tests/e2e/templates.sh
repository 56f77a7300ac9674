#!/bin/sh
# templates.sh — `oacheck templates` with no target compares the shipped
# recordings of three chat templates and finds what their README says each
# does: Qwen 2.5 renders everything; Llama 3.1 stamps the server's date and
# renders tool results as a JSON string; Mistral Nemo moves the system
# prompt into the last user turn, refuses the tool-call id call_1 and drops
# the system prompt after a tool result.  Then tens of templates at once
# (the team's 50, when ../shared is there): one grid line each.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

expect_status 1 "$OACHECK" templates --json "$TMP/t.json" --junit "$TMP/t.xml"
expect_grep '^oacheck [0-9.]+: no target given: comparing the shipped template recordings' "$TMP/out"
sed -n 's/^\(PASS\|FAIL\|SKIP\|ERROR\) *\([^ ]*\) \([^ ]*\).*/\1 \2 \3/p' "$TMP/out" | sort > "$TMP/got"
cat > "$TMP/want" <<'EOV'
FAIL mistralai-Mistral-Nemo-Instruct-2407 templates/tool-call
FAIL mistralai-Mistral-Nemo-Instruct-2407 templates/tool-call-id9
PASS Qwen-Qwen2.5-7B-Instruct templates/multiturn
PASS Qwen-Qwen2.5-7B-Instruct templates/three-turns
PASS Qwen-Qwen2.5-7B-Instruct templates/tool-call
PASS Qwen-Qwen2.5-7B-Instruct templates/tool-call-id9
PASS meta-llama-Llama-3.1-8B-Instruct templates/multiturn
PASS meta-llama-Llama-3.1-8B-Instruct templates/three-turns
PASS meta-llama-Llama-3.1-8B-Instruct templates/tool-call
PASS meta-llama-Llama-3.1-8B-Instruct templates/tool-call-id9
PASS mistralai-Mistral-Nemo-Instruct-2407 templates/multiturn
PASS mistralai-Mistral-Nemo-Instruct-2407 templates/three-turns
SKIP Qwen-Qwen2.5-7B-Instruct templates/unknown-role
SKIP meta-llama-Llama-3.1-8B-Instruct templates/unknown-role
SKIP mistralai-Mistral-Nemo-Instruct-2407 templates/unknown-role
EOV
sort "$TMP/want" > "$TMP/want.sorted"
cmp -s "$TMP/got" "$TMP/want.sorted" || { diff -u "$TMP/want.sorted" "$TMP/got" >&2; fail "template verdicts"; }
pass "15 verdicts as the recordings' README describes"

# the grid: a line per template, its template hash, a cell per fixture
# with the verdict and the worst finding's rule (+N more)
expect_grep '^template +sha256 +three-turns +multiturn +tool-call +tool-call-id9 +unknown-role *$' "$TMP/out"
expect_grep '^Qwen-Qwen2.5-7B-Instruct +[0-9a-f]{8} +ok +ok +ok +ok +skip *$' "$TMP/out"
expect_grep '^meta-llama-Llama-3.1-8B-Instruct +[0-9a-f]{8} +warn SERVER-DATE +warn SERVER-DATE +warn DOUBLE-ENCODED\+1 +warn DOUBLE-ENCODED\+1 +skip *$' "$TMP/out"
expect_grep '^mistralai-Mistral-Nemo-Instruct-2407 +[0-9a-f]{8} +ok +warn SYSTEM-MOVED +FAIL TOOL-ID +FAIL SYSTEM-KEPT +skip *$' "$TMP/out"
expect_grep "tool-call id 'call_1'.*alphanumeric strings with length 9" "$TMP/out"
pass "the grid shows each template's problem"

if [ -n "${XMLLINT:-}" ] && [ -x "$XMLLINT" ]; then
  xsd="$(shared_dir reference/junit)/junit-10.xsd"
  "$XMLLINT" --noout --schema "$xsd" "$TMP/t.xml" 2>"$TMP/xmllint.err" || { cat "$TMP/xmllint.err" >&2; fail "the JUnit is not valid"; }
  pass "templates writes valid JUnit"
fi
"$OACHECK" validate "$OACHECK_SRCDIR/schemas/results.schema.json" "$TMP/t.json" > /dev/null || fail "the JSON results do not match the results schema"
pass "templates writes results-schema JSON"

expect_status 0 "$OACHECK" templates --show --replay "$OACHECK_SRCDIR/suites/recordings/llama-server/templates/Qwen-Qwen2.5-7B-Instruct"
expect_grep '^----- Qwen-Qwen2.5-7B-Instruct / multiturn -----' "$TMP/out"
expect_grep '<\|im_start\|>system' "$TMP/out"
pass "--show prints the rendered prompts"

# recordings that hold no render of any fixture tested nothing (a wrong
# directory): exit 2 and say so, as run does, not a green row of skips
expect_status 2 "$OACHECK" templates --replay "$OACHECK_SRCDIR/tests/data/recordings/openai"
expect_grep '^SKIP +openai templates/multiturn \(not recorded\)' "$TMP/out"
expect_grep "replay target openai: none of the 5 template fixtures has a recording in .*tests/data/recordings/openai" "$TMP/err"
expect_status 2 "$OACHECK" templates --replay "$OACHECK_SRCDIR/tests/data/recordings/openai" \
  --replay "$OACHECK_SRCDIR/suites/recordings/llama-server/templates/Qwen-Qwen2.5-7B-Instruct"
expect_no_grep 'Qwen.*none of' "$TMP/err"
pass "templates --replay of recordings with no render: exit 2, the directory named"

# a server without /apply-template (a 404 for it, as OpenAI and vLLM
# answer): unsupported, not failed.  (oacheck serve over OpenAI's
# recordings is no such server: its 404 is a miss of the recordings.)
hostile_start --default models-only
expect_status 0 "$OACHECK" templates --target "openai=$HURL"
expect_grep '^SKIP +openai templates/three-turns \(unsupported: the target has no POST /apply-template\)' "$TMP/out"
expect_no_grep '^FAIL' "$TMP/out"
kill "$HOSTILE_PID" 2>/dev/null || true
pass "a target without /apply-template is skipped as unsupported"

# oacheck serve without a recording of one render: its 404 carries
# X-Oacheck-Unmatched, a miss of the recordings (as run reads it), not a
# server without the endpoint it answered the other fixtures on
serve_start "$OACHECK_SRCDIR/suites/recordings/llama-server"
expect_status 0 "$OACHECK" templates --target "ls=$URL"
expect_grep '^SKIP +ls templates/tool-call-id9 \(not recorded\)$' "$TMP/out"
expect_grep '^PASS +ls templates/three-turns' "$TMP/out"
expect_no_grep 'the target has no POST /apply-template' "$TMP/out"
serve_stop
pass "a render oacheck serve has no recording of is 'not recorded', not unsupported"

# a server that refuses the key: every render is the HTTP failure it is
# (an error of the case, with the key to check), never the template's
# TEMPLATE-RENDER, and the unknown role's 4xx is not taken for a refusal
KEY="sk-oacheck-templates-0123456789"
hostile_start --default echo-401
OPENAI_API_KEY=$KEY; export OPENAI_API_KEY
expect_status 1 "$OACHECK" templates --target "auth=$HURL" --json "$TMP/auth.json"
for fx in three-turns multiturn tool-call tool-call-id9 unknown-role; do
  expect_grep "^ERROR +auth templates/$fx \\(POST /apply-template answered HTTP 401: Incorrect API key provided: \\[secret\\*+\\]\\..*; is OPENAI_API_KEY \\(or the target's key_env\\) set to a key this server accepts\\?\\)$" "$TMP/out"
done
expect_grep "^target auth: GET $HURL/v1/models answered HTTP 401 \\(application/json\\): is OPENAI_API_KEY" "$TMP/out"
expect_no_grep 'TEMPLATE-RENDER|^PASS|^FAIL' "$TMP/out"
expect_grep '^5 cases: 0 passed, 0 failed, 5 errors' "$TMP/out"
if grep -q "$KEY" "$TMP/out" "$TMP/err" "$TMP/auth.json"; then fail "the key is in the output"; fi
unset OPENAI_API_KEY
expect_status 1 "$OACHECK" templates --target "auth=$HURL"
expect_grep "^ERROR +auth templates/three-turns \\(POST /apply-template answered HTTP 401: .*; OPENAI_API_KEY \\(or the target's key_env\\) is not set, so no key was sent" "$TMP/out"
kill "$HOSTILE_PID" 2>/dev/null || true
pass "a 401 for every render is an HTTP failure naming the key, not a template that cannot render"

# tens of templates at once: one grid line per template
TPL="${OACHECK_SHARED:-}/recordings/llama-server-templates"
if [ ! -d "$TPL" ] && [ "${CI:-}" = true ]; then fail "$TPL missing under CI"; fi
if [ -d "$TPL" ]; then
  set --
  for d in "$TPL"/*/; do set -- "$@" --replay "$d"; done
  [ $# -eq 100 ] || fail "expected 50 template directories under $TPL"
  expect_status 1 "$OACHECK" templates "$@" --json "$TMP/t50.json"
  sed -n '/^template  *sha256/,/^(a cell/p' "$TMP/out" > "$TMP/grid"
  [ "$(wc -l < "$TMP/grid")" -eq 52 ] || fail "the grid has $(wc -l < "$TMP/grid") lines, not 50 and a heading and a legend"
  expect_grep '^HuggingFaceTB-SmolLM3-3B +[0-9a-f]{8} +ok +ok +FAIL TOOLS-RENDERED\+2 +FAIL TOOLS-RENDERED\+2 +warn UNKNOWN-ROLE *$' "$TMP/grid"
  expect_grep '^Qwen3.5-4B +[0-9a-f]{8} +ok +ok +ok +ok +FAIL REFUSED *$' "$TMP/grid"
  expect_grep '^250 cases: ' "$TMP/out"
  pass "50 templates at once: a grid line each"
fi
