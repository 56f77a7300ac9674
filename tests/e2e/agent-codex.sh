#!/bin/sh
# agent-codex.sh — Codex CLI as an oracle (issue 26): the real agent
# (`@openai/codex` from tests/node, a native binary) driven offline with
# `codex exec` against `oacheck serve` on 127.0.0.1, serving the crafted
# Responses streams of tests/data/crafted/agents/codex/.  Codex's request
# body changes on every run, so each run selects its answer with the
# X-Oacheck-Case header Codex adds from its provider's http_headers; the
# tool round trip is a sequence (the tool call, then the text answering
# the tool's result) and goes through `oacheck proxy --record`, whose
# cassettes show the second request carrying the function_call_output.
# What Codex must do with each stream — exit status, the answer on
# standard output, what it says on standard error, how many requests it
# makes — is read from codex/expect.json, the file a Codex model is checked
# against too.  Codex runs with HOME in the test's scratch folder, nothing
# that reaches beyond 127.0.0.1 enabled (plugins, apps, analytics, model
# discovery), and one stream retry instead of five.
# Skipped when the npm package is absent (a failure under CI=true, where
# .ci/run installs tests/node); this test never downloads anything.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

S=$(cd "$OACHECK_SRCDIR" && pwd)
NODEDIR="$S/tests/node"
DIR="$S/tests/data/crafted/agents/codex"
EXPECT="$DIR/expect.json"
LAUNCHER="$NODEDIR/node_modules/@openai/codex/bin/codex.js"
# Under CI a tests/node without Codex is .ci/run's failure; no tests/node
# at all is make distcheck's tarball, which has no node_modules: a skip.
if [ ! -f "$LAUNCHER" ]; then
  [ "${CI:-}" != true ] || [ ! -d "$NODEDIR/node_modules" ] ||
    { echo "@openai/codex missing under CI ($LAUNCHER)" >&2; exit 99; }
  skip "the @openai/codex npm package is not in $NODEDIR/node_modules (.ci/run installs it)"
fi
client_node

# Codex keeps its state under $HOME/.codex; the work folder is outside
# any git repository.
export HOME="$TMP/home"
WORK="$TMP/work"
mkdir -p "$HOME" "$WORK"
codex() { (cd "$WORK" && "$NODE" "$LAUNCHER" "$@"); }

# The native binary comes in an optional package for this platform only.
if ! got=$(codex --version </dev/null 2>"$TMP/version.err"); then
  cat "$TMP/version.err" >&2
  [ "${CI:-}" != true ] || { echo "codex --version failed under CI" >&2; exit 99; }
  skip "codex --version failed: no Codex binary for this platform in node_modules?"
fi
want=$("$NODE" -p "require('$EXPECT').version")
[ "$got" = "codex-cli $want" ] ||
  fail "installed '$got', but $EXPECT was measured with $want: re-measure and update it"
pass "$got, the version the expectations were measured with"

"$OACHECK" serve "$DIR" --port 0 >"$TMP/serve.out" 2>"$TMP/serve.err" &
SERVE=$!
cleanup_hooks="kill $SERVE 2>/dev/null || true; wait $SERVE 2>/dev/null || true; $cleanup_hooks"
wait_until "oacheck serve did not print its listening line" grep -q '^listening on ' "$TMP/serve.out"
URL=$(sed -n '1s/^listening on //p' "$TMP/serve.out")

proxy_start "$URL" --record "$TMP/rec" --json "$TMP/proxy.json"

# run_codex BASE_URL CASE: one `codex exec`, its output in $TMP/out and
# $TMP/err, its exit status in $st.
run_codex() {
  prov="{name=\"local\",base_url=\"$1/v1\",wire_api=\"responses\",env_key=\"OPENAI_API_KEY\""
  prov="$prov,stream_max_retries=1,request_max_retries=0,http_headers={\"X-Oacheck-Case\"=\"$2\"}}"
  set +e
  OPENAI_API_KEY=sk-oacheck-test-key-not-a-secret codex exec --skip-git-repo-check --ephemeral \
    --color never -s read-only \
    --disable plugins --disable remote_plugin --disable apps --disable plugin_sharing \
    --disable api_key_model_discovery --disable daemon_auto_start --disable in_app_updates \
    --disable skill_mcp_dependency_install -c analytics.enabled=false \
    -c "model_providers.local=$prov" -c model_provider=local -m crafted-model \
    "Say hello." </dev/null >"$TMP/out" 2>"$TMP/err"
  st=$?
  set -e
}

# The expectations, one case a line: HEADER, exit, requests, stdout, what
# stderr must and must not hold (each list joined with \037), whether the
# case is the tool's round trip; fields apart by \036 (not a tab: read
# would merge two tabs around an empty field).
"$NODE" -e '
  const e = require(process.argv[1]);
  for (const c of e.cases)
    console.log([c.header, c.exit, c.requests, c.stdout, (c.stderr_has || []).join("\x1f"),
                 (c.stderr_lacks || []).join("\x1f"), c.tool_call ? "tool" : "-"].join("\x1e"));
' "$EXPECT" >"$TMP/cases"
[ "$(wc -l <"$TMP/cases")" -ge 7 ] || fail "$EXPECT lists fewer than 7 cases"

served=0
RS=$(printf '\036')
while IFS=$RS read -r header want_exit want_requests want_stdout has lacks tool; do
  base=$URL
  [ "$tool" = - ] || base=$PURL
  before=$(grep -c 'POST /v1/responses -> ' "$TMP/serve.err" || true)
  run_codex "$base" "$header"
  after=$(grep -c 'POST /v1/responses -> ' "$TMP/serve.err" || true)
  show() { echo "--- stdout" >&2; cat "$TMP/out" >&2; echo "--- stderr" >&2; tail -c 3000 "$TMP/err" >&2; }
  [ "$st" = "$want_exit" ] || { show; fail "$header: codex exited $st, expected $want_exit"; }
  printf '%s' "$want_stdout" >"$TMP/want"
  [ -z "$want_stdout" ] || echo >>"$TMP/want"
  cmp -s "$TMP/out" "$TMP/want" || { show; fail "$header: codex printed '$(cat "$TMP/out")', expected '$want_stdout'"; }
  requests=$((after - before))
  [ "$requests" = "$want_requests" ] ||
    { sed -n "$((before + 1)),\$p" "$TMP/serve.err" >&2; fail "$header: $requests requests reached oacheck serve, expected $want_requests"; }
  # (the proxy's own probes of the target, GET /v1/models and /props, are
  # not recorded: only Codex's requests count)
  if grep 'POST /v1/responses -> 404' "$TMP/serve.err" >&2; then fail "$header: a request reached no recording"; fi
  old_ifs=$IFS
  IFS=$(printf '\037')
  for s in $has; do
    grep -qF -- "$s" "$TMP/err" || { show; IFS=$old_ifs; fail "$header: stderr does not say '$s'"; }
  done
  for s in $lacks; do
    if grep -qF -- "$s" "$TMP/err"; then show; IFS=$old_ifs; fail "$header: stderr shows '$s'"; fi
  done
  IFS=$old_ifs
  cp "$TMP/err" "$TMP/err.$header"
  served=$((served + requests))
  pass "$header: exit $st, $(if [ -s "$TMP/out" ]; then echo "answer '$(cat "$TMP/out")'"; else echo "no answer"; fi), $requests request(s)"
done <"$TMP/cases"

# The tool's round trip, from the proxy's cassettes: the second request
# carries a function_call_output for the call the first answer made, with
# the command's output in it.
proxy_stop 0
ls "$TMP/rec"/*.cassette.gz >/dev/null 2>&1 || fail "oacheck proxy recorded nothing"
"$NODE" -e '
  const fs = require("fs"), zlib = require("zlib"), path = require("path");
  const [dir, expectFile] = process.argv.slice(1);
  const tc = require(expectFile).cases.find((c) => c.tool_call).tool_call;
  const bodies = fs.readdirSync(dir).sort().map((f) => {
    const d = zlib.gunzipSync(fs.readFileSync(path.join(dir, f)));
    const nl = d.indexOf(10), meta = JSON.parse(d.subarray(0, nl));
    return JSON.parse(d.subarray(nl + 1, nl + 1 + meta.request.body_bytes));
  });
  const bad = (m) => { console.error("FAIL: " + m); process.exit(1); };
  if (bodies.length !== 2) bad(`the proxy recorded ${bodies.length} requests, expected 2`);
  const items = (b) => b.input.filter((i) => i.type !== "message");
  if (items(bodies[0]).length) bad("the first request already holds tool items");
  const call = items(bodies[1]).find((i) => i.type === "function_call");
  const out = items(bodies[1]).find((i) => i.type === "function_call_output");
  if (!call || call.call_id !== tc.call_id || call.name !== tc.name)
    bad("the second request does not repeat the function_call " + JSON.stringify(call));
  if (!out) bad("the second request has no function_call_output");
  if (out.call_id !== tc.call_id) bad(`function_call_output for ${out.call_id}, expected ${tc.call_id}`);
  const text = typeof out.output === "string" ? out.output : JSON.stringify(out.output);
  if (!text.includes(tc.output_has)) bad(`the tool output ${JSON.stringify(text)} lacks ${tc.output_has}`);
  console.log(`ok - the second request carries function_call_output ${out.call_id}: ${JSON.stringify(text.slice(-40))}`);
' "$TMP/rec" "$EXPECT"
expect_grep 'X-Oacheck-Case sequence: request 2, name 2 of 2' "$TMP/serve.err"
expect_grep '2 cases: 2 passed' "$PROXY_OUT"
pass "oacheck proxy judged Codex's two requests"

# Codex kept its state in the scratch HOME.
[ -d "$HOME/.codex" ] || fail "Codex wrote no state under the scratch HOME"
kill -TERM "$SERVE"
set +e
wait "$SERVE"
sst=$?
set -e
[ "$sst" = 0 ] || fail "oacheck serve exited $sst on SIGTERM, expected 0"
pass "$served requests served, clean shutdown"
