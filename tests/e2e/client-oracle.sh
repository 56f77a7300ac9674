#!/bin/sh
# client-oracle.sh — real clients as the oracle (issue 12): one
# `oacheck serve DIR` per directory of recordings, then tests/node/oracle.mjs
# drives openai-node (both ways), the ai SDK, LangChain and the Agents SDK,
# today's majors and last year's (tests/node/previous), over every
# recorded chat exchange and writes one JSON line per exchange and client
# to $TMP/oracle.jsonl, copied to tests/client-oracle.jsonl in the build
# tree for the client models to be compared with.  It fails when the
# harness breaks, when a client's request did not reach its recording, when
# a client made more requests than it was asked to (retries are off), or
# when one of the facts measured with the real SDKs (the crafted exchanges
# of tests/data/crafted/clients/, oracle-expect.json) no longer holds for
# the installed versions, or when a client model (src/client*.c) disagrees
# with its real client on any exchange (tests/e2e/client-models.c).  Skipped when node or the npm packages
# (tests/node/node_modules, installed by .ci/run) are absent: this test
# never downloads anything.  Without the shared recordings the in-tree ones
# are still run, and the test then reports a skip (a failure under CI=true).
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

client_node
NODEDIR="$OACHECK_SRCDIR/tests/node"
for pkg in openai ai @ai-sdk/openai-compatible @langchain/openai @langchain/core @openai/agents; do
  [ -f "$NODEDIR/node_modules/$pkg/package.json" ] ||
    skip "the $pkg npm package is not in $NODEDIR/node_modules (.ci/run installs it)"
done
# last year's majors (tests/node/previous, a tree of their own): without
# them today's run alone, noted by the oracle; under CI they must be there
for pkg in openai ai @ai-sdk/openai-compatible @langchain/openai; do
  [ -f "$NODEDIR/previous/node_modules/$pkg/package.json" ] && continue
  [ "${CI:-}" != true ] || fail "$pkg is not in $NODEDIR/previous/node_modules under CI (.ci/run installs it)"
  echo "note: $NODEDIR/previous is not installed: last year's majors are not run"
  break
done

# The directories: LABEL PATH, one a line.  Every one is served on its own
# (recording names repeat across directories).
S=$OACHECK_SRCDIR
{
  echo "suites/recordings/llama-server $S/suites/recordings/llama-server"
  # every folder that holds recordings itself (a router's models, the
  # proxy's templates are one level down)
  find "$S/tests/data/recordings" "$S/tests/data/crafted" -type d | LC_ALL=C sort | while read -r d; do
    if ls "$d"/*.cassette.gz >/dev/null 2>&1 || [ -f "$d/index.json" ]; then
      echo "${d#"$S"/} $d"
    fi
  done
} >"$TMP/dirs"
shared_missing=""
if [ -n "${OACHECK_SHARED:-}" ] && [ -d "$OACHECK_SHARED/recordings/llama-server-live" ]; then
  R=$OACHECK_SHARED/recordings
  for d in "$R"/llama-server-live "$R"/llama-server-concurrency "$R"/llama-server-templates/*/ \
           "$R"/llama-server-router "$R"/llama-server-router/suites/*/; do
    d=${d%/}
    [ -d "$d" ] || fail "shared recordings: $d is missing"
    echo "shared/${d#"$R"/} $d"
  done >>"$TMP/dirs"
else
  [ "${CI:-}" != true ] || { echo "shared recordings missing under CI (OACHECK_SHARED='${OACHECK_SHARED:-}')" >&2; exit 99; }
  shared_missing="the shared recordings are not there (OACHECK_SHARED='${OACHECK_SHARED:-}')"
  echo "note: $shared_missing; running the in-tree ones only"
fi

# Start every server, then wait for each one's 'listening on' line.
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
"$NODE" "$NODEDIR/oracle.mjs" --manifest "$TMP/manifest" --out "$TMP/oracle.jsonl" \
  --expect "tests/data/crafted/clients=$S/tests/data/crafted/clients/oracle-expect.json" >"$TMP/oracle.log" 2>&1
st=$?
set -e
cat "$TMP/oracle.log"
[ "$st" != 2 ] || fail "the oracle harness itself failed (exit 2)"
[ "$st" = 0 ] || fail "a measured client fact no longer holds (FAIL lines above)"
pass "the facts measured with the real SDKs hold for the installed versions"

if [ -n "${OACHECK_BUILDDIR:-}" ] && [ -d "$OACHECK_BUILDDIR/tests" ]; then
  cp "$TMP/oracle.jsonl" "$OACHECK_BUILDDIR/tests/client-oracle.jsonl"
  pass "results copied to $OACHECK_BUILDDIR/tests/client-oracle.jsonl"
fi

# The client models (src/client*.c) over exactly these exchanges: every
# Node model must agree with its real client, outcome and works alike.
MODELS="${OACHECK_BUILDDIR:-.}/tests/e2e/client-models"
[ -x "$MODELS" ] || fail "$MODELS is not built (make check builds it)"
set +e
"$MODELS" --manifest "$TMP/manifest" --oracle "$TMP/oracle.jsonl" >"$TMP/models.log" 2>&1
st=$?
set -e
cat "$TMP/models.log"
[ "$st" != 2 ] || fail "the model comparison could not run (exit 2)"
[ "$st" = 0 ] || fail "a client model disagrees with its real client (above)"
pass "every Node client model agrees with its real client on every exchange"

# Every request reached the recording it named, and each client run made
# exactly one request (no retries, no second step of the ai SDK's loop).
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

[ -z "$shared_missing" ] || skip "$shared_missing"
