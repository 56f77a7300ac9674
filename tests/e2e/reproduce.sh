#!/bin/sh
# reproduce.sh — the `oacheck` command a case's results give to reproduce
# it runs, and runs the case as it ran: a targets file's model, context
# and key variable (the key as $VAR, never its value), and on a router
# (`--model all`: targets NAME/MODEL, a name --target refuses) the
# router's name with --model.  Each command is run, from the results, and
# must reach the case's verdict.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
R="$OACHECK_SRCDIR/suites/recordings/llama-server"
ROUTER="$OACHECK_SRCDIR/tests/data/recordings/llama-server-router"
mkdir -p "$TMP/bin"
ln -s "$OACHECK" "$TMP/bin/oacheck"

# the command of RESULTS' case N (1-based), unescaped from its JSON string
command_of() { # RESULTS N
  grep '"oacheck": "' "$1" | sed -n "${2}p" | sed -e 's/^ *"oacheck": "//' -e 's/"$//' -e 's/\\"/"/g'
}

serve_start "$R"
KEY="sk-reproduce-0123456789"
cat > "$TMP/targets.json" <<JSON
{ "targets": [ { "name": "mine", "url": "$URL", "model": "tiny-reasoner.gguf",
                 "key_env": "MY_TEST_KEY", "ctx_size": 4096 } ] }
JSON
MY_TEST_KEY=$KEY expect_status 0 "$OACHECK" run plain --filter plain/chat-basic --targets "$TMP/targets.json" --json "$TMP/r.json"
expect_no_grep "$KEY" "$TMP/r.json"
cmd=$(command_of "$TMP/r.json" 1)
case "$cmd" in
  "OPENAI_API_KEY=\$MY_TEST_KEY oacheck run plain --target mine=$URL "*) ;;
  *) fail "the command does not take the key from the target's variable: $cmd" ;;
esac
case "$cmd" in *" --model tiny-reasoner.gguf"*) ;; *) fail "the command lost the model: $cmd" ;; esac
case "$cmd" in *" --ctx-size 4096"*) ;; *) fail "the command lost the context: $cmd" ;; esac
# run as a CI log reader would paste it, with only the target's variable set
expect_status 0 env -u OPENAI_API_KEY MY_TEST_KEY=$KEY PATH="$TMP/bin:$PATH" sh -c "$cmd"
expect_grep '^target mine: live server, .*model tiny-reasoner\.gguf' "$TMP/out"
expect_grep '^PASS +mine plain/chat-basic' "$TMP/out"
pass "a targets file's model, context and key variable are in the command, which runs the case"

# a router: the models' targets are NAME/MODEL; the command names the router
serve_start "$ROUTER" "$ROUTER/llama31-tiny" "$ROUTER/nemo-tiny" "$ROUTER/qwen-tiny"
# nemo-tiny's answer fails the case (1); the others pass
expect_status 1 "$OACHECK" run plain --filter plain/chat-basic --target "r=$URL" --model all --json "$TMP/router.json"
cmd=$(command_of "$TMP/router.json" 3)
[ "$cmd" = "oacheck run plain --target r=$URL --filter 'plain/chat-basic' --model qwen-tiny" ] ||
  fail "the router model's command: $cmd"
expect_status 0 env PATH="$TMP/bin:$PATH" sh -c "$cmd"
expect_grep '^PASS +r plain/chat-basic' "$TMP/out"
cmd=$(command_of "$TMP/router.json" 2)
expect_status 1 env PATH="$TMP/bin:$PATH" sh -c "$cmd"
expect_grep '^FAIL +r plain/chat-basic' "$TMP/out"
pass "a router model's command names the router and the model, and runs the case"
