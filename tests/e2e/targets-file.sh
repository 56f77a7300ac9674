#!/bin/sh
# targets-file.sh — the file `--targets` reads is checked as a suite file
# is (schemas/targets.schema.json): a misspelt member or a value of the
# wrong type stops the run, exit 2, at FILE:LINE:COL with the member named
# (and the one it was meant to be), before any request; a key_env naming
# an unset or empty variable is a warning naming the target and the
# variable; no message shows a secret the file holds.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
R="$OACHECK_SRCDIR/suites/recordings/llama-server"
serve_start "$R"

# a typo must not be ignored: "profle" would run llama under the guessed profile
cat > "$TMP/typo.json" <<EOF
{ "targets": [
    { "name": "llama", "url": "$URL",
      "profle": "llama-server" } ] }
EOF
expect_status 2 "$OACHECK" run models --targets "$TMP/typo.json"
expect_grep "typo.json:3:7: at '/targets/0/profle': property \"profle\" is not allowed .*; did you mean \"profile\"\\?" "$TMP/err"
expect_grep 'targets file errors: nothing was run' "$TMP/err"
expect_no_grep '^(PASS|FAIL|ERROR)' "$TMP/out"
pass "an unknown member is an error at file:line:col, with the member it was meant to be"

cat > "$TMP/types.json" <<EOF
[ { "name": "llama", "url": "$URL",
    "ctx_size": "4k",
    "headers": { "X-Team": 7 },
    "profile": "llamaserver" } ]
EOF
expect_status 2 "$OACHECK" run models --targets "$TMP/types.json"
expect_grep "types.json:2:17: at '/0/ctx_size': expected integer, got string \"4k\"" "$TMP/err"
expect_grep "types.json:3:28: at '/0/headers/X-Team': expected string" "$TMP/err"
expect_grep "types.json:4:16: at '/0/profile': expected one of .*\"llama-server\"" "$TMP/err"
pass "wrong types are errors at file:line:col, every one at once"

printf '{ "targets": [] }\n' > "$TMP/empty.json"
expect_status 2 "$OACHECK" run models --targets "$TMP/empty.json"
expect_grep "empty.json:1:14: at '/targets': expected at least 1 item" "$TMP/err"
printf '{ "targets": [ { "name": "a", "url": "%s", "recordings": "%s" },\n  { "name": "b" } ] }\n' \
  "$URL" "$R" > "$TMP/which.json"
expect_status 2 "$OACHECK" run models --targets "$TMP/which.json"
expect_grep "which.json:2:3: at '/targets/1': matches none of the alternatives of anyOf: \\(0\\) missing required property \"url\"" "$TMP/err"
printf '[ { "name": "a", "url": "%s" },\n  { "name": "a", "recordings": "%s" } ]\n' "$URL" "$R" > "$TMP/twice.json"
expect_status 2 "$OACHECK" run models --targets "$TMP/twice.json"
expect_grep "twice.json:2:13: target name 'a' is used twice" "$TMP/err"
printf '[ { "name": "a", "recordings": "%s/nope" } ]\n' "$TMP" > "$TMP/nodir.json"
expect_status 2 "$OACHECK" run models --targets "$TMP/nodir.json"
expect_grep "nodir.json:1:32: recordings directory '.*/nope' does not exist" "$TMP/err"
pass "no targets, neither url nor recordings, a name twice, a missing directory: each at its place"

printf '[ { "name": "a", "url": "%s", "allow": ["TOOL-NAME-ONE"] } ]\n' "$URL" > "$TMP/allow.json"
expect_status 2 "$OACHECK" run models --targets "$TMP/allow.json"
expect_grep "allow.json:1:[0-9]+: allow: 'TOOL-NAME-ONE' is not a rule or family of the catalogue: did you mean 'TOOL-NAME-ONCE'\\?" "$TMP/err"
pass "a mistyped allowed rule is said at its place with the rule it was meant to be"

# key_env names a variable that is not there: said, and the run goes on
printf '{ "targets": [ { "name": "llama", "url": "%s", "key_env": "OACHECK_TEST_NOPE_KEY" } ] }\n' \
  "$URL" > "$TMP/key.json"
unset OACHECK_TEST_NOPE_KEY || true
expect_status 0 "$OACHECK" run models --targets "$TMP/key.json"
expect_grep '^oacheck: warning: target llama: key_env OACHECK_TEST_NOPE_KEY is not set: requests go without a key$' "$TMP/err"
expect_grep '^PASS +llama models/' "$TMP/out"
OACHECK_TEST_NOPE_KEY='' expect_status 0 "$OACHECK" run models --targets "$TMP/key.json"
expect_grep 'target llama: key_env OACHECK_TEST_NOPE_KEY is empty: requests go without a key' "$TMP/err"
KEY="sk-oacheck-test-KEYENV-5b1e"
OACHECK_TEST_NOPE_KEY=$KEY expect_status 0 "$OACHECK" run models --targets "$TMP/key.json" --json "$TMP/key.r.json"
expect_no_grep 'key_env' "$TMP/err"
expect_no_grep "$KEY" "$TMP/out"
expect_no_grep "$KEY" "$TMP/err"
expect_no_grep "$KEY" "$TMP/key.r.json"
# recordings send nothing: no key, no warning
printf '[ { "name": "r", "recordings": "%s", "key_env": "OACHECK_TEST_NOPE_KEY" } ]\n' "$R" > "$TMP/rkey.json"
expect_status 0 "$OACHECK" run models --targets "$TMP/rkey.json"
expect_no_grep 'key_env' "$TMP/err"
# a key made of letters, digits and '_' only (Hugging Face's hf_…) written
# where its variable's name goes passes the name check, and is unset: the
# warning says so without echoing it
HFKEY="hf_oacheckTestKeyEnv0123456789abcdef"
printf '[ { "name": "llama", "url": "%s", "key_env": "%s" } ]\n' "$URL" "$HFKEY" > "$TMP/hf.json"
expect_status 0 "$OACHECK" run models --targets "$TMP/hf.json"
expect_grep "^oacheck: warning: target llama: its key_env names a variable that is not set: requests go without a key" "$TMP/err"
expect_no_grep "$HFKEY" "$TMP/err"
expect_no_grep "$HFKEY" "$TMP/out"
# no key_env given (OPENAI_API_KEY, optional), or a key in a header of its
# own (Azure's api-key): nothing to warn about
printf '[ { "name": "a", "url": "%s" }, { "name": "b", "url": "%s", "key_env": "OACHECK_TEST_NOPE_KEY", "headers": { "api-key": "azure-key-123456" } } ]\n' "$URL" "$URL" > "$TMP/nokey.json"
env -u OPENAI_API_KEY "$OACHECK" run models --targets "$TMP/nokey.json" >"$TMP/out" 2>"$TMP/err" || true
expect_no_grep 'key_env|without a key' "$TMP/err"
pass "a key_env that is unset or empty is a warning naming target and variable; a set one is never shown"

# the key written where its variable's name goes, a secret header given as
# a number: refused without showing either
printf '[ { "name": "llama", "url": "%s", "key_env": "%s" } ]\n' "$URL" "$KEY" > "$TMP/leak1.json"
expect_status 2 "$OACHECK" run models --targets "$TMP/leak1.json"
expect_grep "leak1.json:1:[0-9]+: key_env must be the name of an environment variable" "$TMP/err"
expect_no_grep "$KEY" "$TMP/err"
printf '[ { "name": "llama", "url": "%s", "headers": { "Authorization": 918273645546372819 } } ]\n' \
  "$URL" > "$TMP/leak2.json"
expect_status 2 "$OACHECK" run models --targets "$TMP/leak2.json"
expect_grep "leak2.json:1:[0-9]+: at '/0/headers/Authorization': expected string" "$TMP/err"
expect_no_grep '918273645546372819' "$TMP/err"
printf '[ { "name": "llama", "url": "%s", "headers": { "X-Token": "abc\\r\\nInjected: 1" } } ]\n' \
  "$URL" > "$TMP/crlf.json"
expect_status 2 "$OACHECK" run models --targets "$TMP/crlf.json"
expect_grep "crlf.json:1:[0-9]+: header 'X-Token' holds a line break or a NUL byte: it cannot be sent" "$TMP/err"
expect_no_grep 'Injected|no error' "$TMP/err"
pass "no error shows a key the file holds"
