#!/bin/sh
# client-retries.sh — how often LangChain (ChatOpenAI with its default
# retries) asks again when a server answers an error: measured once here,
# against a 5xx (llama-server's 500 for a failed JSON-mode answer), a 422
# (TGI's context overflow) and, for contrast, a 400 (llama-server's missing
# messages), by counting the requests `oacheck serve` logs (one line per
# request).  The oracle everywhere else runs with retries off.  LangChain's
# backoff delays are shortened here (tests/node/oracle/retries.mjs says
# why) and printed as asked for.  Skipped when node or the npm packages are
# absent, like serve-openai-client.sh.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

client_node
NODEDIR="$OACHECK_SRCDIR/tests/node"
for pkg in @langchain/openai @langchain/core; do
  [ -f "$NODEDIR/node_modules/$pkg/package.json" ] ||
    skip "the $pkg npm package is not in $NODEDIR/node_modules (.ci/run installs it)"
done

serve_start "$OACHECK_SRCDIR/tests/data/recordings/llama-server-curl" "$OACHECK_SRCDIR/tests/data/recordings/tgi"
"$NODE" "$NODEDIR/oracle/retries.mjs" "$URL" json-object error-422-context-length bad-missing-messages \
  >"$TMP/retries.jsonl" || { cat "$SERVE_ERR" >&2; fail "the retry measurement failed"; }
serve_stop
cat "$TMP/retries.jsonl"

# attempts NAME : requests the server logged for recording NAME (concurrent
# log lines may share a line, so matches are counted, not lines)
attempts() { grep -o -- "-> $1 (" "$SERVE_ERR" | wc -l | tr -d ' '; }
check() { # check NAME STATUS WANT
  got=$(attempts "$1")
  echo "langchain: HTTP $2 ($1): $got requests"
  [ "$got" = "$3" ] || fail "LangChain made $got requests for the $2 recording $1, expected $3"
}
check json-object 500 7
check error-422-context-length 422 7
check bad-missing-messages 400 1
pass "LangChain's default retries: 7 attempts on a 500 and on a 422, 1 on a 400"
