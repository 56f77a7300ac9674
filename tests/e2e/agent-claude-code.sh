#!/bin/sh
# agent-claude-code.sh — Claude Code (@anthropic-ai/claude-code, from
# tests/node) as an oracle, offline: per case of
# tests/data/crafted/agents/claude-code/expect.json a fresh `oacheck serve`
# on that folder and `oacheck proxy --record` in front of it (the proxy's
# cassettes are the capture: what Claude Code sent), then `claude -p` with
# HOME in a scratch folder, ANTHROPIC_BASE_URL at the proxy and the case's
# X-Oacheck-Case (a sequence for the tool round trip and the re-asks) in
# ANTHROPIC_CUSTOM_HEADERS.  tests/node/agent-claude-code.mjs checks each
# measured fact: the exit status, what it printed, which recordings
# answered in which order, which requests asked for a stream, the
# tool_result of a tool case; and the size of its first request is
# reported.  Skipped when the package or Node is absent (a failure under
# CI=true: .ci/run installs tests/node); never downloads anything.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

S=$OACHECK_SRCDIR
NODEDIR=$S/tests/node
CLAUDE=$NODEDIR/node_modules/@anthropic-ai/claude-code/bin/claude.exe
DIR=$S/tests/data/crafted/agents/claude-code
EXPECT=$DIR/expect.json
# Under CI a tests/node without it is .ci/run's failure; no tests/node at
# all is make distcheck's tarball, which has no node_modules: a skip.
missing() {
  [ "${CI:-}" != true ] || [ ! -d "$NODEDIR/node_modules" ] ||
    { echo "$1 under CI (.ci/run installs tests/node)" >&2; exit 99; }
  skip "$1 (.ci/run installs tests/node)"
}
[ -f "$NODEDIR/node_modules/@anthropic-ai/claude-code/package.json" ] ||
  missing "the @anthropic-ai/claude-code npm package is not in $NODEDIR/node_modules"
client_node
DRIVER="$NODEDIR/agent-claude-code.mjs"

# The installed version is the one the facts were measured with: a newer
# one is re-measured, and expect.json says what it does.
mkdir -p "$TMP/home"
want=$("$NODE" "$DRIVER" version "$EXPECT")
[ -x "$CLAUDE" ] || missing "$CLAUDE is not there (the package's postinstall puts it there)"
got=$(HOME=$TMP/home "$CLAUDE" --version 2>"$TMP/version.err") ||
  { cat "$TMP/version.err" >&2; fail "claude --version failed"; }
case "$got" in
  "$want (Claude Code)") pass "Claude Code $want, the version expect.json was measured with" ;;
  *) fail "claude --version says '$got'; expect.json holds the facts of $want: re-measure them" ;;
esac

# proxy_start and proxy_stop: lib.sh.  The proxy exits 1 when an exchange
# failed its rules (a broken stream does), 0 otherwise: anything else is a crash.

: >"$TMP/results.jsonl"
failed=0
n=0
for name in $("$NODE" "$DRIVER" list "$EXPECT"); do
  n=$((n + 1))
  serve_start "$DIR"
  proxy_start "serve=$URL" --record "$TMP/rec.$name" -q
  mkdir "$TMP/home/$name"
  "$NODE" "$DRIVER" run "$EXPECT" "$name" --claude "$CLAUDE" --url "$PURL" --home "$TMP/home/$name"
  proxy_stop 0 1
  serve_stop
  set +e
  "$NODE" "$DRIVER" judge "$EXPECT" "$name" --home "$TMP/home/$name" --serve-log "$SERVE_ERR" \
    --rec "$TMP/rec.$name" >>"$TMP/results.jsonl" 2>"$TMP/judge.err"
  st=$?
  set -e
  cat "$TMP/judge.err"
  [ "$st" != 2 ] || fail "the driver could not judge case $name"
  [ "$st" = 0 ] || failed=$((failed + 1))
done
[ "$failed" = 0 ] || fail "$failed of $n facts measured with Claude Code $want no longer hold (FAIL lines above)"
pass "$n facts about Claude Code $want hold"

# The size of its first request: what a server's context must hold before
# the user has typed anything.
first=$(grep -m1 '"first_request"' "$TMP/results.jsonl" | sed 's/.*"first_request":{"bytes":\([0-9]*\),"tokens_estimate":\([0-9]*\),"tools":\([0-9]*\).*/\1 \2 \3/')
set -- $first
[ "$#" = 3 ] || fail "no first request was captured"
[ "$1" -gt 20000 ] || fail "the first request is $1 bytes; Claude Code's system prompt and tools were about 49 KB"
[ "$3" -gt 5 ] || fail "the first request offers $3 tools; Claude Code offered 12"
pass "first request: $1 bytes (about $2 tokens at 4 bytes a token), $3 tools"

if [ -n "${OACHECK_BUILDDIR:-}" ] && [ -d "$OACHECK_BUILDDIR/tests" ]; then
  cp "$TMP/results.jsonl" "$OACHECK_BUILDDIR/tests/agent-claude-code.jsonl"
  pass "results copied to $OACHECK_BUILDDIR/tests/agent-claude-code.jsonl"
fi
