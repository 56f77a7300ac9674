#!/bin/sh
# client-oracle-responses.sh — the Responses API's real clients as the oracle
# of their models: one `oacheck serve DIR` per folder of Responses exchanges
# (llama-server's live recordings, the crafted shapes of
# tests/data/crafted/clients-responses/ and the Codex streams of
# tests/data/crafted/agents/codex/), then tests/node/oracle-responses.mjs
# drives openai-node's responses.create() and responses.stream(), the ai
# SDK's Responses model and the Agents SDK over every exchange, writes one
# JSON line per exchange and client (copied to
# tests/client-oracle-responses.jsonl in the build tree), and checks the
# facts measured with the installed versions
# (tests/data/crafted/clients-responses/oracle-expect.json).  Then the C
# models (src/client_responses*.c) run over exactly the same exchanges and
# must agree with their real client on outcome and works
# (tests/e2e/client-models --protocol responses).  Skipped when node or the
# npm packages are absent: nothing is downloaded.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

client_node
NODEDIR="$OACHECK_SRCDIR/tests/node"
for pkg in openai ai @ai-sdk/openai @openai/agents; do
  [ -f "$NODEDIR/node_modules/$pkg/package.json" ] ||
    skip "the $pkg npm package is not in $NODEDIR/node_modules (.ci/run installs it)"
done

S=$OACHECK_SRCDIR
cat >"$TMP/dirs" <<DIRS
suites/recordings/llama-server-responses $S/suites/recordings/llama-server-responses
tests/data/crafted/clients-responses $S/tests/data/crafted/clients-responses
tests/data/crafted/agents/codex $S/tests/data/crafted/agents/codex
DIRS

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
"$NODE" "$NODEDIR/oracle-responses.mjs" --manifest "$TMP/manifest" --out "$TMP/oracle.jsonl" \
  --expect "tests/data/crafted/clients-responses=$S/tests/data/crafted/clients-responses/oracle-expect.json" \
  >"$TMP/oracle.log" 2>&1
st=$?
set -e
cat "$TMP/oracle.log"
[ "$st" != 2 ] || fail "the oracle harness itself failed (exit 2)"
[ "$st" = 0 ] || fail "a measured client fact no longer holds (FAIL lines above)"
pass "the facts measured with the real Responses clients hold for the installed versions"

if [ -n "${OACHECK_BUILDDIR:-}" ] && [ -d "$OACHECK_BUILDDIR/tests" ]; then
  cp "$TMP/oracle.jsonl" "$OACHECK_BUILDDIR/tests/client-oracle-responses.jsonl"
fi

MODELS="${OACHECK_BUILDDIR:-.}/tests/e2e/client-models"
[ -x "$MODELS" ] || fail "$MODELS is not built (make check builds it)"
set +e
"$MODELS" --protocol responses --manifest "$TMP/manifest" --oracle "$TMP/oracle.jsonl" >"$TMP/models.log" 2>&1
st=$?
set -e
cat "$TMP/models.log"
[ "$st" != 2 ] || fail "the model comparison could not run (exit 2)"
[ "$st" = 0 ] || fail "a Responses client model disagrees with its real client (above)"
pass "every Responses client model agrees with its real client on every exchange"

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
