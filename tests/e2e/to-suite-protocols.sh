#!/bin/sh
# to-suite-protocols.sh — `oacheck record --to-suite` for the Responses and
# Messages APIs: a client's Messages exchange (Anthropic's headers, an
# x-api-key) and a Responses one, recorded by `oacheck proxy --record` in
# front of `oacheck serve`, become suite cases of their protocol (path,
# Anthropic's headers without the key, a protocol:NAME tag) that `oacheck
# run` replays, from the proxy's cassettes and through serve, and judges
# with that protocol's decoder and rules.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
command -v curl >/dev/null 2>&1 || skip "curl is not installed"
MREC="$OACHECK_SRCDIR/suites/recordings/llama-server-messages"
RREC="$OACHECK_SRCDIR/suites/recordings/llama-server-responses"
KEY=sk-ant-oacheck-TOSUITE-SECRET-123456

serve_start "$MREC" "$RREC"
"$OACHECK" proxy --target "t=$URL" --listen 127.0.0.1:0 --record "$TMP/rec" \
  >"$TMP/proxy.out" 2>"$TMP/proxy.err" &
PROXY_PID=$!
cleanup_hooks="kill $PROXY_PID 2>/dev/null || true; $cleanup_hooks"
wait_until "oacheck proxy did not start" grep -q '^listening on ' "$TMP/proxy.out"
PURL=$(sed -n 's/^listening on \(http:[^ ]*\) .*/\1/p' "$TMP/proxy.out")

# the requests of two recorded cases, sent as their clients send them
recorded_request "$MREC/messages.tools-auto-stream.cassette.gz" "$TMP/m.json"
grep -v '^(no newline' "$TMP/m.json" >"$TMP/m.body"
recorded_request "$RREC/responses.plain.cassette.gz" "$TMP/r.json"
grep -v '^(no newline' "$TMP/r.json" >"$TMP/r.body"
curl -sS -X POST "$PURL/v1/messages" -H 'content-type: application/json' -H "x-api-key: $KEY" \
  -H 'anthropic-version: 2023-06-01' --data-binary @"$TMP/m.body" -o "$TMP/m.got" ||
  fail "the Messages request through the proxy failed"
curl -sS -X POST "$PURL/v1/responses" -H 'content-type: application/json' \
  -H "Authorization: Bearer $KEY" --data-binary @"$TMP/r.body" -o "$TMP/r.got" ||
  fail "the Responses request through the proxy failed"
expect_grep '^event: message_stop' "$TMP/m.got"
expect_grep '"object": *"response"' "$TMP/r.got"
kill -INT "$PROXY_PID"
wait "$PROXY_PID" || true
[ "$(ls "$TMP/rec" | grep -c '\.cassette\.gz$')" = 2 ] || { ls "$TMP/rec" >&2; fail "the proxy did not record both exchanges"; }

expect_status 0 "$OACHECK" record --to-suite "$TMP/rec/"*.cassette.gz --suite agent --out "$TMP/agent.json"
expect_no_grep "$KEY" "$TMP/agent.json"
python3 - "$TMP/agent.json" <<'EOF' || fail "the cases are not of their protocols"
import json, sys
cases = {c["request"]["path"]: c for c in json.load(open(sys.argv[1]))["cases"]}
m, r = cases["/v1/messages"], cases["/v1/responses"]
assert "protocol:messages" in m["tags"] and "Messages API exchange" in m["description"], m
assert "protocol:responses" in r["tags"] and "Responses API exchange" in r["description"], r
assert m["request"]["headers"].get("anthropic-version") == "2023-06-01", m
assert not any(h.lower() in ("x-api-key", "authorization") for h in m["request"]["headers"]), m
assert m["request"]["body"]["tools"][0]["name"] == "get_weather", m
assert r["request"]["body"]["input"] == "What is the capital of Japan?", r
EOF
pass "record --to-suite: a Messages and a Responses exchange become cases of their protocols, without the key"

# replayed from the proxy's cassettes: each judged by its protocol's rules
expect_status 0 "$OACHECK" run "$TMP/agent.json" --replay "$TMP/rec" --json "$TMP/res.json"
[ "$(grep -c '^PASS ' "$TMP/out")" = 2 ] || fail "both cases should pass on their own recordings"
python3 - "$TMP/res.json" <<'EOF' || fail "a case was not judged by its protocol's rules"
import json, sys
res = {r["request"]["path"]: r for r in json.load(open(sys.argv[1]))["results"]}
m = {f["rule"] for f in res["/v1/messages"]["findings"]}
r = {f["rule"] for f in res["/v1/responses"]["findings"]}
# llama-server's tool_use start without input, its overlapping blocks
assert {"MESSAGES-TOOL-INPUT", "MESSAGES-BLOCK-OVERLAP"} <= m, m
assert "RESPONSES-SCHEMA" in r, r
assert not any(x.startswith("RESPONSES-") for x in m) and not any(x.startswith("MESSAGES-") for x in r)
assert res["/v1/messages"]["response"]["status"] == 200
EOF
# selected by protocol
expect_status 0 "$OACHECK" run "$TMP/agent.json" --replay "$TMP/rec" --tag protocol:messages
expect_grep '^1 case: 1 passed' "$TMP/out"
pass "oacheck run replays the cases from the proxy's cassettes, each judged by its protocol's rules"

# sent again to the recorded server (serve matches them by request key)
expect_status 0 "$OACHECK" run "$TMP/agent.json" --target "$URL"
[ "$(grep -c '^PASS ' "$TMP/out")" = 2 ] || fail "both cases should pass against the recorded server"
expect_no_grep 'not recorded' "$TMP/out"
serve_stop
pass "the cases sent again to oacheck serve get the recorded answers"
