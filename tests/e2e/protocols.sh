#!/bin/sh
# protocols.sh — the target's protocol line: which of chat, responses
# (stateful or not) and messages a target serves, told by the run's own
# cases where it had some on the protocol's path, else by one cheap probe.
# Through `oacheck serve` (a replay test's target) the probes are answered
# from the recordings and counted as no miss: the replay stays free of
# "not recorded"; a server of chat completions alone is said to serve
# chat and not the other two; the line is in the console, the results
# (targets[].protocols, valid against the schema), JUnit and HTML.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
SCHEMA="$OACHECK_SRCDIR/schemas/results.schema.json"

# ---- a replay through oacheck serve: chat recordings only
serve_start "$OACHECK_SRCDIR/suites/recordings/llama-server"
set +e
"$OACHECK" run plain --target "$URL" --json "$TMP/r.json" --junit "$TMP/r.xml" \
  --html "$TMP/r.html" >"$TMP/out" 2>"$TMP/err"
set -e
expect_grep '^target 127\.0\.0\.1-[0-9]+: protocols: chat; not in the recordings: responses, messages$' "$TMP/out"
# the probes reached serve, were answered from its recordings, and are no miss
expect_grep 'POST /v1/responses -> 404 probe: nothing on this path is recorded' "$SERVE_ERR"
expect_grep 'POST /v1/messages -> 404 probe: nothing on this path is recorded' "$SERVE_ERR"
expect_no_grep 'not recorded' "$SERVE_ERR"
expect_no_grep 'not recorded|has no recording' "$TMP/out"
expect_no_grep 'not recorded|has no recording' "$TMP/err"
expect_status 0 "$OACHECK" validate "$SCHEMA" "$TMP/r.json"
python3 - "$TMP/r.json" <<'EOF' || fail "targets[].protocols is not as the run and the probes said"
import json, sys
p = json.load(open(sys.argv[1]))["targets"][0]["protocols"]
assert p["chat"] == {"served": True, "from": "run", "status": 200}, p
assert p["responses"]["served"] is None and p["responses"]["from"] == "probe", p
assert p["messages"]["served"] is None and p["messages"]["note"] == "not recorded", p
EOF
expect_grep '<property name="protocols" value="chat; not in the recordings: responses, messages"/>' "$TMP/r.xml"
expect_grep 'protocols: chat; not in the recordings: responses, messages' "$TMP/r.html"
serve_stop
pass "a replay through oacheck serve: chat from the run, the others probed as unrecorded, no miss counted"

# ---- serve of the Responses recordings, asked for chat: the probe finds
# /v1/responses there, and stateless (its recording of previous_response_id
# was refused), without the run having a Responses case
serve_start "$OACHECK_SRCDIR/suites/recordings/llama-server-responses"
set +e
"$OACHECK" run plain --filter chat-basic --target "$URL" --json "$TMP/s.json" >"$TMP/out" 2>"$TMP/err"
set -e
expect_grep 'protocols: responses \(stateless: refuses previous_response_id\); not in the recordings: chat, messages$' "$TMP/out"
expect_grep 'POST /v1/responses -> 400 probe: answers on this path are recorded' "$SERVE_ERR"
serve_stop
pass "serve answers a probe from what its recordings hold, statefulness included"

# ---- a replay target (--replay DIR) answers from its recordings, no HTTP
set +e
"$OACHECK" run responses --filter plain --replay "$OACHECK_SRCDIR/suites/recordings/llama-server-responses" \
  --json "$TMP/t.json" >"$TMP/out" 2>"$TMP/err"
set -e
expect_grep 'protocols: responses \(stateless: refuses previous_response_id\); not in the recordings: chat, messages$' "$TMP/out"
pass "a replay target's protocols from its recordings"

# ---- a server of chat completions alone (hostile-server, chat-only)
hostile_start --default chat-only
set +e
"$OACHECK" run plain --filter chat-basic --target "$HURL" --json "$TMP/h.json" --junit "$TMP/h.xml" \
  >"$TMP/out" 2>"$TMP/err"
set -e
expect_grep '^target 127\.0\.0\.1-[0-9]+: protocols: chat; not served: responses, messages$' "$TMP/out"
# one probe each before the run (a protocol not served has its cases
# skipped), and none after it: chat's request is the probe and the case
expect_grep 'POST /v1/responses ' "$HLOG"
expect_grep 'POST /v1/messages ' "$HLOG"
[ "$(grep -c 'POST /v1/responses ' "$HLOG")" = 1 ] || { cat "$HLOG" >&2; fail "responses was probed more than once"; }
[ "$(grep -c 'POST /v1/chat/completions ' "$HLOG")" = 2 ] || { cat "$HLOG" >&2; fail "chat: not one probe and one case"; }
python3 - "$TMP/h.json" <<'EOF' || fail "the chat-only server's protocols are wrong in the results"
import json, sys
p = json.load(open(sys.argv[1]))["targets"][0]["protocols"]
assert p["chat"]["served"] is True, p
for k in ("responses", "messages"):
    assert p[k] == {"served": False, "from": "probe", "status": 404}, p
EOF
expect_grep '<property name="protocols" value="chat; not served: responses, messages"/>' "$TMP/h.xml"
# the probe finds chat served (the invalid body refused, 400) and the
# Responses API not: its case is skipped, saying why, never failed on a 404
: >"$HLOG"
set +e
"$OACHECK" run responses --filter plain --target "$HURL" --json "$TMP/h2.json" >"$TMP/out" 2>"$TMP/err"
set -e
expect_grep 'protocols: chat; not served: responses, messages$' "$TMP/out"
expect_grep '^SKIP +[^ ]+ responses/plain \(unsupported: the target does not serve the Responses API \(POST /v1/responses answered 404\)\)$' "$TMP/out"
python3 - "$TMP/h2.json" <<'EOF' || fail "the chat probe or the run's 404 was misread"
import json, sys
p = json.load(open(sys.argv[1]))["targets"][0]["protocols"]
assert p["chat"] == {"served": True, "from": "probe", "status": 400}, p
assert p["responses"] == {"served": False, "from": "probe", "status": 404}, p
EOF
[ "$(grep -c 'POST /v1/responses ' "$HLOG")" = 1 ] || { cat "$HLOG" >&2; fail "responses: not the probe alone"; }
pass "a chat-only server: chat served, responses and messages not, their cases skipped"
