#!/bin/sh
# run-errors.sh — `oacheck run` facing bad input and dead servers: a suite
# with a syntax error, an unknown field or a wrong type is rejected with
# file:line:column and exit 2 before any case runs; a port where nothing
# listens gives exit 3 quickly with the URL named; with two targets of which
# one is down, the other's cases run and the exit is 1.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

# a port nobody listens on: bind one, then let it go
DEAD=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()' 2>/dev/null || echo 9)

cat > "$TMP/syntax.json" <<'EOS'
{ "suite": "broken",
  "description": "x",
  "cases": [ { "name": "a", "description": "b",
               "request": { "method": "GET", "path": "/v1/models" } },
  ]
}
EOS
expect_status 2 "$OACHECK" run "$TMP/syntax.json"
expect_grep "syntax.json:5:3: invalid JSON" "$TMP/err"
expect_grep "no case was run" "$TMP/err"
expect_no_grep '^(PASS|FAIL)' "$TMP/out"
pass "a syntax error is named at file:line:column, exit 2"

cat > "$TMP/unknown.json" <<'EOS'
{ "suite": "unknown-field",
  "description": "x",
  "cases": [ { "name": "a", "description": "b",
               "request": { "method": "GET", "path": "/v1/models" },
               "expect": { "staus": 200 } } ]
}
EOS
expect_status 2 "$OACHECK" run "$TMP/unknown.json" "$TMP/syntax.json"
expect_grep "unknown.json:5:[0-9]+: .*staus.*; did you mean \"status\"\\?" "$TMP/err"
expect_grep "syntax.json:5:3:" "$TMP/err"
pass "an unknown field is named with the field it was meant to be, and every broken suite is reported"

cat > "$TMP/nodesc.json" <<'EOS'
{ "suite": "mine",
  "cases": [ { "name": "a",
               "request": { "method": "GET", "path": "/v1/models" } } ]
}
EOS
expect_status 2 "$OACHECK" run "$TMP/nodesc.json"
expect_grep "nodesc.json:1:1: at '': missing required property \"description\" \(add \"description\": \"what the suite covers\"; docs/suites.md\)" "$TMP/err"
expect_grep "nodesc.json:2:14: at '/cases/0': missing required property \"description\" \(add \"description\": \"which real-world failure the case catches\"" "$TMP/err"
pass "a missing description says what to add, for the suite and for a case"

cat > "$TMP/type.json" <<'EOS'
{ "suite": "wrong-type",
  "description": "x",
  "cases": [ { "name": "a", "description": "b",
               "request": { "method": "GET", "path": "/v1/models" },
               "expect": { "status": "two hundred" } } ]
}
EOS
expect_status 2 "$OACHECK" run "$TMP/type.json"
expect_grep "type.json:5:[0-9]+: at '/cases/0/expect/status'" "$TMP/err"
pass "a wrong type is named with its JSON pointer"

expect_status 2 "$OACHECK" run no-such-suite
expect_grep "no shipped suite 'no-such-suite' \(shipped: context-overflow, errors, .*plain, .*; a suite of your own is given by its path\)" "$TMP/err"
expect_no_grep "did you mean" "$TMP/err"
pass "an unknown suite name exits 2 and lists the shipped suites"

expect_status 2 "$OACHECK" run plian
expect_grep "no shipped suite 'plian': did you mean 'plain'\? \(shipped: " "$TMP/err"
expect_status 2 "$OACHECK" run --list streaming tool-cal
expect_grep "no shipped suite 'tool-cal': did you mean 'tool-call'\?" "$TMP/err"
pass "a misspelt shipped suite gets the nearest name"

expect_status 2 "$OACHECK" run s/nonexist.json
expect_grep "error: no such file: s/nonexist.json \(No such file or directory\)$" "$TMP/err"
expect_status 2 "$OACHECK" run "$TMP/nonexist.json"
expect_grep "no such file: $TMP/nonexist.json \(" "$TMP/err"
expect_status 2 "$OACHECK" run "$TMP"
expect_grep "'$TMP' is a directory, not a suite file" "$TMP/err"
expect_status 2 "$OACHECK" run plian.json
expect_grep "no such file: plian.json \(.*\), and no shipped suite 'plian': did you mean 'plain'\?" "$TMP/err"
pass "a suite path that is no file says what the system said"

start=$(date +%s)
expect_status 3 "$OACHECK" run models --target "http://127.0.0.1:$DEAD" --connect-timeout 5
end=$(date +%s)
expect_grep "127.0.0.1:$DEAD" "$TMP/out"
expect_grep "unreachable" "$TMP/out"
[ $((end - start)) -lt $((30 * SLOW)) ] || fail "an unreachable target took $((end - start)) s"
pass "a dead port exits 3 naming the URL"

# every shipped suite on a dead port: the connection failure is said once,
# in the target's lines, and each suite's cases in one line; the reports
# still hold every case, an error with its reason
expect_status 3 "$OACHECK" run --target "dead=http://127.0.0.1:$DEAD" --connect-timeout 5 \
  --json "$TMP/dead.json" --junit "$TMP/dead.xml"
expect_grep "^target dead: unreachable: connection refused by http://127.0.0.1:$DEAD/v1/models" "$TMP/out"
expect_grep '^ERROR +dead suite plain: 5 cases not run: target unreachable \(connection refused\)$' "$TMP/out"
expect_grep '^ERROR +dead suite llama-server: [0-9]+ cases not run: target unreachable \(connection refused\)$' "$TMP/out"
expect_grep '^ERROR +dead suite models: 1 case not run: target unreachable \(connection refused\)$' "$TMP/out"
expect_no_grep 'HTTP-TRANSPORT error|^ERROR +dead [a-z-]+/' "$TMP/out"
[ "$(grep -c 'connection refused by' "$TMP/out")" -eq 2 ] ||
  fail "the connection failure is said $(grep -c 'connection refused by' "$TMP/out") times, not once at the top and once in the summary"
NS=$(ls "$OACHECK_SRCDIR"/suites/*.json "$OACHECK_SRCDIR"/suites/protocols/*.json | wc -l | tr -d ' ')
[ "$(grep -c ' not run: ' "$TMP/out")" -eq "$NS" ] || fail "not one line per shipped suite ($NS)"
[ "$(wc -l <"$TMP/out")" -lt $((NS + 11)) ] || fail "$(wc -l <"$TMP/out") lines for an unreachable target"
cases=$(grep -c '"case": ' "$TMP/dead.json")
errors=$(grep -c '"reason": "target unreachable: connection refused by http://127.0.0.1:'"$DEAD"'/v1/models' "$TMP/dead.json")
[ "$cases" -gt 40 ] && [ "$cases" = "$errors" ] || fail "$errors of $cases results are errors saying the target was unreachable"
# said in a field too, which the CI outputs group by (not the reason's words)
notrun=$(grep -c '"not_run": "target-unreachable"' "$TMP/dead.json")
[ "$notrun" = "$cases" ] || fail "$notrun of $cases results say not_run: target-unreachable"
expect_grep "\"error\": $cases," "$TMP/dead.json"
[ "$(grep -c '<error ' "$TMP/dead.xml")" = "$cases" ] || fail "JUnit has not an error per case"
pass "an unreachable target: said once, a line per suite, every case an error in the reports"

serve_start "$OACHECK_SRCDIR/suites/recordings/llama-server"
expect_status 1 "$OACHECK" run models --target "up=$URL" --target "down=http://127.0.0.1:$DEAD"
expect_grep '^PASS +up models/list' "$TMP/out"
expect_grep '^ERROR +down suite models: 1 case not run: target unreachable \(connection refused\)$' "$TMP/out"
# https:// to the same plain-HTTP port: the TLS library's words and the likely cause
expect_status 3 "$OACHECK" run models --target "tls=https://${URL#http://}"
# (the TLS library reads the plain answer, or the server closes first:
# a race, with a hint each)
expect_grep "^target tls: unreachable: TLS failure with https://${URL#http://}/v1/models: .* \((the connection closed during the TLS handshake: )?is the server plain HTTP\? try http://\)$" "$TMP/out"
serve_stop
pass "one of two targets down: the other runs, exit 1"

expect_status 2 "$OACHECK" run --target "ftp://example"
expect_grep "not an http:// or https:// URL" "$TMP/err"
expect_status 2 "$OACHECK" run --shard 3/2
expect_grep "Try 'oacheck run --help'" "$TMP/err"
pass "usage errors exit 2"

# the full endpoint as the target (what a client library is configured
# with elsewhere) is refused before anything is sent: joined with
# /v1/models it would 404 on any server, and the run would go on as if the
# server listed no model
for ep in /v1/chat/completions /chat/completions/ /v1/completions /v1/embeddings /v1/models; do
  expect_status 2 "$OACHECK" run plain --target "http://127.0.0.1:$DEAD$ep"
  expect_grep "target 'http://127.0.0.1:$DEAD$ep' ends in the endpoint ${ep%/}: give the server's root \(http://127.0.0.1:$DEAD or http://127.0.0.1:$DEAD/v1\); oacheck adds /v1/chat/completions" "$TMP/err"
  expect_grep "Try 'oacheck run --help'" "$TMP/err"
done
cat > "$TMP/endpoint-targets.json" <<EOS
{ "targets": [ { "name": "ok", "url": "http://127.0.0.1:$DEAD/openai/v1?api-version=1" },
               { "name": "azure", "url": "https://u:pw@r.example/openai/deployments/d/chat/completions?api-version=1&api-key=SECRET" } ] }
EOS
expect_status 2 "$OACHECK" run plain --targets "$TMP/endpoint-targets.json"
expect_grep "endpoint-targets.json:2:[0-9]*: target 'https://r.example/openai/deployments/d/chat/completions' ends in the endpoint /chat/completions: give the server's root \(https://r.example/openai/deployments/d or " "$TMP/err"
expect_no_grep 'SECRET|pw@' "$TMP/err"
expect_status 2 "$OACHECK" proxy --target "http://127.0.0.1:$DEAD/v1/chat/completions"
expect_grep "ends in the endpoint /v1/chat/completions" "$TMP/err"
# a base with a path of its own is a root: it is asked for /v1/models
expect_status 3 "$OACHECK" run models --target "http://127.0.0.1:$DEAD/openai/v1" --connect-timeout 5
expect_grep "127.0.0.1:$DEAD/openai/v1/models" "$TMP/out"
pass "a target ending in an endpoint is a usage error naming the root to give; a base with a path is not"

cat > "$TMP/refs.json" <<'EOS'
{ "suite": "bad-refs",
  "description": "x",
  "cases": [ { "name": "a", "description": "b",
               "request": { "method": "GET", "path": "/v1/models${" } },
             { "name": "c", "description": "d", "allow": ["NO-SUCH-RULE"],
               "request": { "method": "POST", "path": "/v1/chat/completions",
                            "body": { "model": "${${MODEL}}", "messages": "${words:x:y}" } } } ]
}
EOS
expect_status 2 "$OACHECK" run "$TMP/refs.json"
expect_grep "refs.json:4:[0-9]+: '\\$\\{' without its closing '\\}'" "$TMP/err"
expect_grep "refs.json:5:[0-9]+: allow: 'NO-SUCH-RULE' is not a rule" "$TMP/err"
expect_grep "refs.json:7:[0-9]+: a variable reference inside another one" "$TMP/err"
expect_grep "refs.json:7:[0-9]+: the COUNT of \\$\\{words:COUNT:WORD\\} is neither" "$TMP/err"
pass "malformed references and unknown allowed rules are suite errors with their position"

cat > "$TMP/typo-var.json" <<'EOS'
{ "suite": "mine",
  "description": "a mistyped variable, which no target can ever define",
  "cases": [ { "name": "hello", "description": "b",
               "request": { "method": "POST", "path": "/v1/chat/completions",
                            "body": { "model": "${MODL}",
                                      "messages": [ { "role": "user", "content": "hi" } ] } } } ]
}
EOS
expect_status 2 "$OACHECK" run "$TMP/typo-var.json"
expect_grep 'typo-var.json:5:49: undefined variable \$\{MODL\}: did you mean \$\{MODEL\}\?' "$TMP/err"
expect_no_grep '^(PASS|SKIP)' "$TMP/out"
pass "a variable neither a target nor the suite defines is a suite error with a guess"

# a target variable this target lacks (no /props: no N_CTX) still skips
sed -e 's/"${MODL}"/"${MODEL}", "max_tokens": "${N_CTX_HALF}"/' "$TMP/typo-var.json" >"$TMP/nctx.json"
expect_status 0 "$OACHECK" run "$TMP/nctx.json" --replay "$OACHECK_SRCDIR/tests/data/recordings/openai" \
  --model gpt-4o-mini
expect_grep '^SKIP +openai mine/hello \(unsupported: the context size is unknown' "$TMP/out"
pass "a known target variable the target lacks still skips as unsupported"

cat > "$TMP/assert-typo.json" <<'EOS'
{ "suite": "assert-typo",
  "description": "an assertion reported under a rule the catalogue does not have",
  "cases": [ { "name": "a", "description": "b",
               "request": { "method": "GET", "path": "/v1/models" },
               "expect": { "assert": [ { "pointer": "/object", "equals": "list",
                                         "rule": "MODELS-LIST" },
                                       { "pointer": "/data", "exists": true,
                                         "rule": "MODELS-LSIT" } ] } } ]
}
EOS
expect_status 2 "$OACHECK" run "$TMP/assert-typo.json"
expect_grep "assert-typo.json:8:[0-9]+: assert: rule 'MODELS-LSIT' is not in the catalogue" "$TMP/err"
expect_no_grep "MODELS-LIST'" "$TMP/err"
pass "an assertion naming a mistyped rule fails the load at its line"

# 100,000 cases with a few broken ones: every error listed with its line,
# in one pass (the names are checked by sorting, not pairwise)
awk 'BEGIN {
  print "{ \"suite\": \"big\", \"description\": \"x\", \"cases\": ["
  for(i = 0; i < 100000; i++) {
    name = sprintf("c%06d", i); desc = "\"description\": \"d\", "; method = "\"GET\""
    if(i == 500 || i == 90000) name = "c000007"
    if(i == 70000) method = "5"
    if(i == 80000) desc = ""
    printf "%s{ \"name\": \"%s\", %s\"request\": { \"method\": %s, \"path\": \"/v1/models\" } }\n",
           (i ? "," : ""), name, desc, method
  }
  print "] }" }' > "$TMP/big.json"
expect_status 2 "$OACHECK" run "$TMP/big.json" --list
expect_grep "big.json:70002:[0-9]+: at '/cases/70000/request/method'" "$TMP/err"
expect_grep "big.json:80002:[0-9]+: at '/cases/80000': missing required property \"description\"" "$TMP/err"
expect_grep "big.json:502:[0-9]+: case name 'c000007' appears twice in suite 'big' \(first at line 9\)" "$TMP/err"
expect_grep "big.json:90002:[0-9]+: case name 'c000007' appears twice" "$TMP/err"
pass "a 100,000-case suite with four broken cases: all four reported with their lines"

expect_status 2 "$OACHECK" run models --allow 'NOPE-*'
expect_grep "unknown rule or family 'NOPE-\\*' \\('oacheck rules' lists them\\)" "$TMP/err"
pass "--allow checks families too"

expect_status 2 "$OACHECK" run models --allow TOOL-NAME-ONE
expect_grep "unknown rule or family 'TOOL-NAME-ONE': did you mean 'TOOL-NAME-ONCE'\\?" "$TMP/err"
expect_status 2 "$OACHECK" run models --allow 'STREEM-*'
expect_grep "unknown rule or family 'STREEM-\\*': did you mean 'STREAM-\\*'\\?" "$TMP/err"
expect_status 2 "$OACHECK" run models --allow tool
expect_grep "unknown rule or family 'tool': did you mean 'TOOL-\\*'\\?" "$TMP/err"
cat > "$TMP/allow-typo.json" <<'EOS'
{ "suite": "allow-typo", "description": "x", "allow": ["TOOL-NAME-ONE"],
  "cases": [ { "name": "a", "description": "b", "request": { "method": "GET", "path": "/v1/models" } } ] }
EOS
expect_status 2 "$OACHECK" run "$TMP/allow-typo.json"
expect_grep "allow-typo.json:1:[0-9]+: allow: 'TOOL-NAME-ONE' is not a rule or family of the catalogue: did you mean 'TOOL-NAME-ONCE'\\?" "$TMP/err"
pass "a mistyped rule in --allow or a suite's allow gets the rule it was meant to be"

# 429 with Retry-After: retried a bounded number of times, each retry reported
serve_start "$OACHECK_SRCDIR/tests/data/crafted/rate-limited"
expect_status 1 "$OACHECK" run models --target "busy=$URL" --retries 2 --json "$TMP/r429.json"
serve_stop
expect_grep 'HTTP 429, retrying in 0 ms \(attempt 2\)' "$TMP/err"
expect_grep 'HTTP-STATUS error: expected HTTP 200, got 429: Rate limit reached' "$TMP/out"
n=$(grep -c '"attempt":' "$TMP/r429.json")
[ "$n" = 2 ] || fail "expected 2 reported retries in the results, got $n"
pass "429 is retried as often as --retries says, and each retry is reported"
