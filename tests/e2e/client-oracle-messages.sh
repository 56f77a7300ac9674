#!/bin/sh
# client-oracle-messages.sh — the real clients of Anthropic's Messages API
# as the oracle of their models: `oacheck serve` on llama-server's
# Messages recordings (suites/recordings/llama-server-messages, a Qwen3.5
# model's in tests/data/recordings), on the crafted exchanges
# (tests/data/crafted/clients-messages) and on Claude Code's, then
# tests/node/oracle-messages.mjs drives @anthropic-ai/sdk (create, and
# stream() + finalMessage()), the ai SDK with @ai-sdk/anthropic and
# @langchain/anthropic over every POST /v1/messages exchange.  It fails
# when the harness breaks, when a request reached no recording or a client
# made more requests than asked, when a fact measured with the real
# libraries (clients-messages/oracle-expect.json) no longer holds, or when
# a client model of the Messages family (src/client_messages*.c)
# disagrees with its real client on any exchange
# (tests/e2e/client-models --protocol messages).  Skipped without Node or
# the npm packages: it never downloads anything.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

client_node
NODEDIR="$OACHECK_SRCDIR/tests/node"
for pkg in @anthropic-ai/sdk ai @ai-sdk/anthropic @langchain/anthropic @langchain/core; do
  [ -f "$NODEDIR/node_modules/$pkg/package.json" ] ||
    skip "the $pkg npm package is not in $NODEDIR/node_modules (.ci/run installs it)"
done

S=$OACHECK_SRCDIR
# llama-server's Messages recordings (the shipped ones, and a Qwen3.5
# model's), the crafted shapes, and Claude Code's crafted streams
for d in suites/recordings/llama-server-messages tests/data/recordings/llama-server-messages-qwen35 \
         tests/data/crafted/clients-messages tests/data/crafted/agents/claude-code; do
  printf '%s %s\n' "$d" "$S/$d"
done >"$TMP/dirs"

n=0
while read -r label dir; do
  n=$((n + 1))
  "$OACHECK" serve "$dir" --port 0 >"$TMP/serve.$n.out" 2>"$TMP/serve.$n.err" &
  echo "$! $label $dir" >>"$TMP/servers"
  cleanup_hooks="kill $! 2>/dev/null || true; $cleanup_hooks"
done <"$TMP/dirs"
: >"$TMP/manifest"
n=0
while read -r pid label dir; do
  n=$((n + 1))
  i=0
  while ! grep -q '^listening on ' "$TMP/serve.$n.out" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { cat "$TMP/serve.$n.err" >&2; fail "oacheck serve $dir exited before listening"; }
    i=$((i + 1))
    [ $i -lt 600 ] || fail "oacheck serve $dir did not print its listening line"
    sleep 0.1
  done
  url=$(sed -n '1s/^listening on //p' "$TMP/serve.$n.out")
  printf '%s\t%s\t%s\n' "$label" "$dir" "$url" >>"$TMP/manifest"
done <"$TMP/servers"
pass "$n servers listening"

set +e
"$NODE" "$NODEDIR/oracle-messages.mjs" --manifest "$TMP/manifest" --out "$TMP/oracle.jsonl" \
  --expect "tests/data/crafted/clients-messages=$S/tests/data/crafted/clients-messages/oracle-expect.json" \
  >"$TMP/oracle.log" 2>&1
st=$?
set -e
cat "$TMP/oracle.log"
[ "$st" != 2 ] || fail "the oracle harness itself failed (exit 2)"
[ "$st" = 0 ] || fail "a measured client fact no longer holds (FAIL lines above)"
pass "the facts measured with the real libraries hold for the installed versions"
if [ -n "${OACHECK_BUILDDIR:-}" ] && [ -d "$OACHECK_BUILDDIR/tests" ]; then
  cp "$TMP/oracle.jsonl" "$OACHECK_BUILDDIR/tests/client-oracle-messages.jsonl"
fi

MODELS="${OACHECK_BUILDDIR:-.}/tests/e2e/client-models"
[ -x "$MODELS" ] || fail "$MODELS is not built (make check builds it)"
set +e
"$MODELS" --protocol messages --manifest "$TMP/manifest" --oracle "$TMP/oracle.jsonl" >"$TMP/models.log" 2>&1
st=$?
set -e
cat "$TMP/models.log"
[ "$st" != 2 ] || fail "the model comparison could not run (exit 2)"
[ "$st" = 0 ] || fail "a Messages client model disagrees with its real client (above)"
pass "every Messages client model agrees with its real client on every exchange"

if grep -h 'not recorded' "$TMP"/serve.*.err; then fail "requests that reached no recording (above)"; fi
requests=$(cat "$TMP"/serve.*.err | grep -o -- '-> [^ ]* ([0-9]*)' | wc -l)
runs=$(grep -vc '"outcome":"not-exercised"' "$TMP/oracle.jsonl")
[ "$requests" -eq "$runs" ] || fail "the servers logged $requests requests for $runs client runs"
pass "$runs client runs, $requests requests"

while read -r pid label dir; do
  kill -TERM "$pid"
  set +e
  wait "$pid"
  st=$?
  set -e
  [ "$st" = 0 ] || fail "oacheck serve $dir exited $st on SIGTERM, expected 0"
done <"$TMP/servers"
pass "clean shutdown of every server"
