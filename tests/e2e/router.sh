#!/bin/sh
# router.sh — a llama-server router (three models behind one URL, recorded
# live by `oacheck record --model all` into tests/data/recordings/
# llama-server-router, a directory per model): `run --model all` prints a
# model matrix; `templates --model all` compares the models' templates;
# pin holds each model's flags and `pin --check` names the flag that
# changed; an answer from another model than the one asked for is
# MODELS-ROUTED.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
R="$OACHECK_SRCDIR/tests/data/recordings/llama-server-router"

# a cassette is gzip: a JSON line, the request body, the response body;
# an edit of the same length keeps every offset in it right
edit_cassette() { # FILE SED-EXPRESSION
  gzip -dc "$1" | sed "$2" | gzip -n > "$1.new"
  mv "$1.new" "$1"
}

# the suites these were recorded with (tests/data/suites/tiny-random)
TR="$OACHECK_SRCDIR/tests/data/suites/tiny-random"
expect_status 1 "$OACHECK" run plain streaming errors models llama-server "$TR"/tool-call.json \
  "$TR"/json-schema.json "$TR"/context-overflow.json --replay "$R" --model all
expect_grep '^target llama-server-router/qwen-tiny: replay of .*, router, model qwen-tiny$' "$TMP/out"
expect_grep '^target llama-server-router/nemo-tiny: model nemo-tiny was unloaded; its first request took [0-9.]+ ms \(loading it\)$' "$TMP/out"
expect_grep '^target +model +pass +fail +error +skip +failing rules$' "$TMP/out"
for m in llama31-tiny nemo-tiny qwen-tiny; do
  expect_grep "^llama-server-router/$m +$m +[0-9]+ +[0-9]+ +0 +1 " "$TMP/out"
done
expect_no_grep 'MODELS-ROUTED' "$TMP/out"
pass "run --model all: a target per model, a line each in the model matrix"

expect_status 1 "$OACHECK" templates --replay "$R" --model all
for m in llama31-tiny nemo-tiny qwen-tiny; do
  expect_grep "^llama-server-router/$m +[0-9a-f]{8} " "$TMP/out"
done
[ "$(grep -E '^llama-server-router/' "$TMP/out" | awk '{print $2}' | sort -u | wc -l)" -eq 3 ] ||
  fail "the three models do not have three templates"
expect_grep '^llama-server-router/nemo-tiny +[0-9a-f]{8} +ok +warn SYSTEM-MOVED +FAIL TOOL-ID ' "$TMP/out"
pass "templates --model all: every model's own template"

# pin, then a router whose nemo-tiny runs with another --ctx-size
expect_status 0 "$OACHECK" pin --replay "$R" --out "$TMP/pin.json"
expect_grep '"model_flags"' "$TMP/pin.json"
expect_no_grep '"--port"' "$TMP/pin.json"
expect_status 0 "$OACHECK" pin --replay "$R" --check "$TMP/pin.json"
mkdir "$TMP/drift"
cp -r "$R" "$TMP/drift/llama-server-router" # the pin knows targets by name
edit_cassette "$TMP/drift/llama-server-router/identify-v1-models-d2c92acc.cassette.gz" \
  's/"--alias","nemo-tiny","--ctx-size","1024"/"--alias","nemo-tiny","--ctx-size","2048"/'
expect_status 1 "$OACHECK" pin --replay "$TMP/drift/llama-server-router" --check "$TMP/pin.json"
expect_grep 'PIN-FLAGS error: model nemo-tiny: flag --ctx-size changed: pinned 1024, now 2048' "$TMP/out"
[ "$(grep -c 'PIN-FLAGS error' "$TMP/out")" -eq 1 ] || fail "more than the one flag reported"
pass "pin --check names the flag that changed"

# an answer from another model than the request named
cp -r "$R" "$TMP/misrouted"
edit_cassette "$TMP/misrouted/qwen-tiny/plain.chat-basic.cassette.gz" \
  's/"model":"qwen-tiny","system_fingerprint"/"model":"nemo-tiny","system_fingerprint"/'
expect_status 1 "$OACHECK" run plain --replay "$TMP/misrouted" --model qwen-tiny,llama31-tiny --filter chat-basic
expect_grep "^FAIL +misrouted/qwen-tiny plain/chat-basic" "$TMP/out"
expect_grep "MODELS-ROUTED error: the router answered a request for model 'qwen-tiny' from 'nemo-tiny'" "$TMP/out"
expect_grep "^PASS +misrouted/llama31-tiny plain/chat-basic" "$TMP/out"
pass "an answer from another model is MODELS-ROUTED"

expect_status 2 "$OACHECK" run --replay "$R" --model qwen-tiny,no-such-model
expect_grep "router 'llama-server-router' does not list model 'no-such-model'" "$TMP/err"
pass "a model the router does not list is a usage error"

# oacheck serve stands in for the router: the query is part of the key,
# so every model-aware request (GET /props?model=…, /slots?model=…) finds
# its recording, and the live run over serve skips nothing as unrecorded
serve_start "$R" "$R/qwen-tiny" "$R/llama31-tiny" "$R/nemo-tiny"
expect_status 1 "$OACHECK" run plain streaming errors models llama-server "$TR"/tool-call.json \
  "$TR"/json-schema.json "$TR"/context-overflow.json --target "r=$URL" --model all
expect_no_grep 'not recorded' "$TMP/out"
expect_grep '^r/qwen-tiny +qwen-tiny +[0-9]+ ' "$TMP/out"
serve_stop
expect_no_grep ' -> 404 not recorded' "$SERVE_ERR"
expect_grep 'GET /props -> identify-props-model-qwen-tiny-[0-9a-f]+ \(200\)' "$SERVE_ERR"
pass "through oacheck serve, every request of every model finds its recording"
