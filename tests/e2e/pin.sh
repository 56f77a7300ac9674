#!/bin/sh
# pin.sh — `oacheck pin`: pin what the recorded llama-server serves, check
# it unchanged (exit 0), then check pins that differ in model, template,
# context and build, and in the deployment's facts (each slot's context,
# the template's capabilities, the endpoints that are on): each drift is
# named by its rule on the console with the pinned and the current value,
# exit 1 for an error, 0 when only warnings (build, endpoints) changed; a
# pin written before those facts existed still checks what it holds.
# A pin of one target is checked against one target whatever its name (a
# default name holds the port, so a new port is a new name), and a target
# the pin does not hold fails the check instead of skipping it.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
R="$OACHECK_SRCDIR/suites/recordings/llama-server"

expect_status 0 "$OACHECK" pin --replay "$R" --out "$TMP/pin.json"
[ "$(cat "$TMP/out")" = "pinned llama-server
wrote $TMP/pin.json (pin of 1 target)" ] || { cat "$TMP/out" >&2; fail "pin --out does not say what it wrote"; }
expect_grep '"n_ctx":[[:space:]]*4096' "$TMP/pin.json"
expect_grep '"build":[[:space:]]*"b10587-3f545becc"' "$TMP/pin.json"
expect_grep '"chat_template_sha256":[[:space:]]*"[0-9a-f]{64}"' "$TMP/pin.json"
expect_grep '"slots_n_ctx":[[:space:]]*\[4096\]' "$TMP/pin.json"
expect_grep '"tool_calls":[[:space:]]*true' "$TMP/pin.json"
expect_grep '"metrics":[[:space:]]*true' "$TMP/pin.json"
pass "pin writes the identity and the deployment's facts"

expect_status 0 "$OACHECK" pin --replay "$R" --check "$TMP/pin.json"
expect_grep '^PASS +llama-server pin/identity' "$TMP/out"
pass "an unchanged deployment passes"

sed -e 's/"n_ctx":[[:space:]]*4096/"n_ctx": 8192/' \
    -e 's/"model":[[:space:]]*"tiny-reasoner.gguf"/"model": "other.gguf"/' \
    -e 's/"model_path":[[:space:]]*"tiny-reasoner.gguf"/"model_path": "other.gguf"/' \
    -e 's/"build":[[:space:]]*"[^"]*"/"build": "b1-old"/' \
    -e 's/"chat_template_sha256":[[:space:]]*"[0-9a-f]*"/"chat_template_sha256": "00"/' \
    "$TMP/pin.json" > "$TMP/drift.json"
expect_status 1 "$OACHECK" pin --replay "$R" --check "$TMP/drift.json" --json "$TMP/r.json"
expect_grep 'PIN-CONTEXT error: the context per request changed: pinned 8192, now 4096' "$TMP/out"
expect_grep 'PIN-MODEL error: the model id changed' "$TMP/out"
expect_grep 'PIN-TEMPLATE error: the chat template changed' "$TMP/out"
expect_grep 'PIN-MODEL error: the model file changed: pinned "other.gguf", now "tiny-reasoner.gguf"' "$TMP/out"
expect_grep '"rule":[[:space:]]*"PIN-BUILD"' "$TMP/r.json"
expect_grep 'the server build changed: pinned .{1,2}b1-old' "$TMP/r.json"
# the console shows every finding (more than three errors here), the
# warning beside the errors
expect_grep '^      PIN-BUILD warning: the server build changed: pinned "b1-old", now "b10587-3f545becc"' "$TMP/out"
n_json=$(grep -c '"severity":' "$TMP/r.json")
n_out=$(grep -c '^      PIN-' "$TMP/out")
[ "$n_out" = "$n_json" ] || fail "the console shows $n_out of the $n_json pin findings"
pass "every drift is named by its rule, on the console as in the results"
# a list (the model list) is named by its elements, not "[…]": the log
# reader must see which model came or went
sed -e 's/"models":[[:space:]]*\["tiny-reasoner.gguf"\]/"models": ["tiny-reasoner.gguf", "gone.gguf"]/' \
    "$TMP/pin.json" > "$TMP/models.json"
expect_grep 'gone\.gguf' "$TMP/models.json"
expect_status 1 "$OACHECK" pin --replay "$R" --check "$TMP/models.json" --json "$TMP/rm.json"
expect_grep 'PIN-MODEL error: the model list changed: pinned \["tiny-reasoner.gguf", ?"gone.gguf"\], now \["tiny-reasoner.gguf"\] \[/models\]' "$TMP/out"
expect_grep '"expected":[[:space:]]*"\[\\"tiny-reasoner.gguf\\", ?\\"gone.gguf\\"\]"' "$TMP/rm.json"
pass "a changed model list names the models pinned and served"

# what only warns passes, and the console still says what changed
sed -e 's/"build":[[:space:]]*"[^"]*"/"build": "b1-old"/' "$TMP/pin.json" > "$TMP/build.json"
expect_status 0 "$OACHECK" pin --replay "$R" --check "$TMP/build.json"
expect_grep '^PASS +llama-server pin/identity \(1 finding\)' "$TMP/out"
expect_grep '^      PIN-BUILD warning: the server build changed: pinned "b1-old", now "b10587-3f545becc" \[/build\]$' "$TMP/out"
sed -e 's/"metrics":[[:space:]]*true/"metrics": false/' "$TMP/pin.json" > "$TMP/endpoints.json"
expect_status 0 "$OACHECK" pin --replay "$R" --check "$TMP/endpoints.json"
expect_grep '^      PIN-DEPLOYMENT warning: the endpoints that are on .* changed: pinned .*"metrics":false.*, now .*"metrics":true' "$TMP/out"
pass "a new build or other endpoints: a warning on the console naming old and new, exit 0"

# the deployment's facts drift: a slot's context, the template, an endpoint
sed -e 's/"slots_n_ctx":[[:space:]]*\[4096\]/"slots_n_ctx": [2048]/' \
    -e 's/"tool_calls":[[:space:]]*true/"tool_calls": false/' \
    -e 's/"metrics":[[:space:]]*true/"metrics": false/' \
    "$TMP/pin.json" > "$TMP/drift2.json"
expect_status 1 "$OACHECK" pin --replay "$R" --check "$TMP/drift2.json" --json "$TMP/r2.json"
expect_grep "PIN-CONTEXT error: each slot's context \\(/slots\\) changed: pinned \\[2048\\], now \\[4096\\]" "$TMP/out"
expect_grep "PIN-TEMPLATE error: the chat template's capabilities" "$TMP/out"
expect_grep '"rule":[[:space:]]*"PIN-DEPLOYMENT"' "$TMP/r2.json"
expect_grep '"path":[[:space:]]*"/deployment/endpoints"' "$TMP/r2.json"
# an old pin (identity only) checks what it holds and passes
cat > "$TMP/old.json" <<'EOF'
{ "pinned_at": "2026-11-01T00:00:00Z",
  "targets": [ { "name": "llama-server",
                 "identity": { "n_ctx": 4096, "total_slots": 1, "build": "b10587-3f545becc" } } ] }
EOF
expect_no_grep '"deployment"' "$TMP/old.json"
expect_status 0 "$OACHECK" pin --replay "$R" --check "$TMP/old.json"
pass "the deployment's facts drift by their rules; an identity-only pin still checks"

# pinned live on one port, checked on another: the default names differ
# (127.0.0.1-PORT), and so does a named target; the drift is still found
serve_start "$R"
U1=$URL P1=$PORT
expect_status 0 "$OACHECK" pin --target "$U1" --out "$TMP/live.json"
sed -e 's/"n_ctx":[[:space:]]*4096/"n_ctx": 8192/' \
    -e 's/"chat_template_sha256":[[:space:]]*"[0-9a-f]*"/"chat_template_sha256": "00"/' \
    "$TMP/live.json" > "$TMP/live-drift.json"
serve_start "$R"
[ "$PORT" != "$P1" ] || fail "the second server has the first one's port"
expect_status 1 "$OACHECK" pin --check "$TMP/live-drift.json" --target "$URL" --json "$TMP/r3.json"
expect_grep "^note: the pin and the check have one target each, named differently: 127\.0\.0\.1-$P1 \(pinned\) is compared with 127\.0\.0\.1-$PORT \(checked\)\$" "$TMP/out"
expect_grep "^FAIL +127\.0\.0\.1-$PORT pin/identity" "$TMP/out"
expect_grep 'PIN-TEMPLATE error: the chat template changed' "$TMP/out"
expect_grep 'PIN-CONTEXT error: the context per request changed: pinned 8192, now 4096' "$TMP/out"
expect_grep '"note":[[:space:]]*"the pin and the check have one target each' "$TMP/r3.json"
expect_status 1 "$OACHECK" pin --check "$TMP/live-drift.json" --target "other=$URL"
expect_grep "127\.0\.0\.1-$P1 \(pinned\) is compared with other \(checked\)" "$TMP/out"
expect_grep 'PIN-TEMPLATE error' "$TMP/out"
# the same name: compared without a note
expect_status 0 "$OACHECK" pin --check "$TMP/live.json" --target "127.0.0.1-$P1=$URL"
expect_no_grep '^note:' "$TMP/out"
pass "a pin of one target checks one target whatever its name, and says so"

# otherwise a target the pin does not hold is an error naming what it holds
expect_status 0 "$OACHECK" pin --target "a=$URL" --target "b=$URL" --out "$TMP/two.json"
[ "$(tail -n 1 "$TMP/out")" = "wrote $TMP/two.json (pin of 2 targets)" ] || fail "pin of two: $(tail -n 1 "$TMP/out")"
expect_status 2 "$OACHECK" pin --check "$TMP/two.json" --target "c=$URL"
expect_grep "target c is not in the pin file .*two\.json \(it pins a, b\): targets are matched by name" "$TMP/err"
expect_no_grep 'pin/identity' "$TMP/out"
expect_status 2 "$OACHECK" pin --check "$TMP/live.json" --target "a=$URL" --target "b=$URL"
expect_grep "target a is not in the pin file .*\(it pins 127\.0\.0\.1-$P1\)" "$TMP/err"
expect_grep "target b is not in the pin file" "$TMP/err"
expect_status 0 "$OACHECK" pin --check "$TMP/two.json" --target "b=$URL"
expect_grep '^PASS +b pin/identity' "$TMP/out"
pass "a target the pin does not hold fails the check (exit 2), naming the pin's targets"

expect_status 2 "$OACHECK" pin --replay "$R"
expect_status 2 "$OACHECK" pin --replay "$R" --check "$TMP/nope.json"
pass "usage errors exit 2"
