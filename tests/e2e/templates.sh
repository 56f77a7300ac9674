#!/bin/sh
# templates.sh — `oacheck templates` with no target compares the shipped
# recordings of three chat templates and finds what their README says each
# does: Qwen 2.5 renders everything; Llama 3.1 stamps the server's date;
# Mistral Nemo moves the system prompt into the last user turn, refuses the
# tool-call id call_1 and drops the system prompt after a tool result.
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

# the matrix names the rule per template
expect_grep '^multiturn .*\| ok .*\| warn TEMPLATE-SERVER-DATE .*\| warn TEMPLATE-SYSTEM-MOVED' "$TMP/out"
expect_grep '^tool-call .*\| FAIL TEMPLATE-TOOL-ID' "$TMP/out"
expect_grep '^tool-call-id9 .*\| FAIL TEMPLATE-SYSTEM-KEPT' "$TMP/out"
expect_grep "tool-call id 'call_1'.*alphanumeric strings with length 9" "$TMP/out"
pass "the matrix shows each template's problem"

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

# a server without /apply-template (OpenAI's recordings): unsupported, not failed
serve_start "$OACHECK_SRCDIR/tests/data/recordings/openai"
expect_status 0 "$OACHECK" templates --target "openai=$URL"
expect_grep '^SKIP +openai templates/three-turns \(unsupported: the target has no POST /apply-template\)' "$TMP/out"
expect_no_grep '^FAIL' "$TMP/out"
serve_stop
pass "a target without /apply-template is skipped as unsupported"
