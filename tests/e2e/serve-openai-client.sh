#!/bin/sh
# serve-openai-client.sh — the official openai-node SDK streams a chat
# completion and a tool call from `oacheck serve` and reassembles what the
# recordings hold (tests/e2e/openai-client.mjs); curl -N sees the same
# stream.  Skipped when node or the SDK (tests/node/node_modules, installed
# by .ci/run) is absent: this test never downloads anything.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

client_node
NODEDIR="$OACHECK_SRCDIR/tests/node"
[ -f "$NODEDIR/node_modules/openai/index.mjs" ] ||
  skip "the openai npm package is not in $NODEDIR/node_modules (.ci/run installs it)"
command -v curl >/dev/null 2>&1 || skip "curl is not installed"

serve_start "$OACHECK_SRCDIR/tests/data/recordings/llama-server-curl" "$OACHECK_SRCDIR/tests/data/recordings/llama-server"

"$NODE" "$OACHECK_SRCDIR/tests/e2e/openai-client.mjs" "$URL" "$NODEDIR" || {
  echo "--- server log" >&2; cat "$SERVE_ERR" >&2; fail "the openai SDK did not get what was recorded"; }
pass "openai-node streams text and a tool call from oacheck serve"

curl -sS -N -o "$TMP/curl.got" -H 'X-Oacheck-Case: tools-required-steered-stream' \
  -X POST "$URL/v1/chat/completions"
expect_grep '"name":"get_weather"' "$TMP/curl.got"
expect_grep '^data: \[DONE\]' "$TMP/curl.got"
pass "curl -N gets the same stream"

serve_stop
pass "clean shutdown"
