#!/bin/sh
# not-a-root.sh — a target URL that answers, but is not an OpenAI server's
# root: every path a 404 (a proxy, a wrong base path) or a web page for
# every path.  Identification says so once, in the target's lines (the
# URL asked, the status and media type, and that oacheck adds /v1/… to
# the root); each case that needs ${MODEL} says why there is none; the
# results, JUnit and HTML keep what /v1/models answered.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

hostile_start --default not-found
expect_status 1 "$OACHECK" run plain --target "nf=$HURL" --json "$TMP/nf.json" --junit "$TMP/nf.xml" \
  --html "$TMP/nf.html"
expect_grep "^target nf: live server, profile openai \\(auto\\)$" "$TMP/out"
expect_grep "^target nf: GET $HURL/v1/models answered HTTP 404 \\(text/plain\\): is this the server's root\\? oacheck adds /v1/… to it$" "$TMP/out"
expect_grep "^ERROR +nf plain/chat-basic \\(no \\\$\\{MODEL\\}: /v1/models answered HTTP 404\\)$" "$TMP/out"
expect_grep "MODELS-LIST error: the case needs \\\$\\{MODEL\\} but GET $HURL/v1/models answered HTTP 404 \\(text/plain\\) \\(give --model, or the server's root\\)" "$TMP/out"
expect_no_grep 'lists no model' "$TMP/out"
expect_grep "\"models_problem\": \"GET $HURL/v1/models answered HTTP 404 \\(text/plain\\)\"" "$TMP/nf.json"
expect_grep "<property name=\"models.problem\" value=\"GET $HURL/v1/models answered HTTP 404 \\(text/plain\\)\"/>" "$TMP/nf.xml"
expect_grep "no model list</span> GET $HURL/v1/models answered HTTP 404 \\(text/plain\\)" "$TMP/nf.html"
"$OACHECK" validate https://oacheck.dev/schemas/results.schema.json "$TMP/nf.json" >/dev/null ||
  fail "the results do not match the results schema"
pass "every path a 404: the target's lines say what /v1/models answered, each case why it has no model"

# the client matrix: no plain answer was seen, so "plain" is no verdict
# for any client, never ok; the unknown-model case (a refusal) is in the
# errors row, where what the clients make of the 404 is shown
expect_grep '^  plain +error +- +error +error +error +- +error$' "$TMP/out"
expect_grep '^  errors +ok +- +BREAKS +ok +ok +- +ok$' "$TMP/out"
expect_grep '^  error  plain: no verdict, 4 cases ended in error: no \$\{MODEL\}: /v1/models answered HTTP 404 \(plain/chat-basic\)$' "$TMP/out"
sed -n '/"case": "unknown-model"/,/"checklist"/p' "$TMP/nf.json" >"$TMP/um"
expect_grep '"checklist": "errors"' "$TMP/um"
expect_grep '<td class="cl cl-error"><a href="#c-[0-9]+">no verdict</a>' "$TMP/nf.html"
expect_grep '<error type="no-verdict" message="no verdict on plain: no \$\{MODEL\}: /v1/models answered HTTP 404 \(plain/chat-basic\)">' "$TMP/nf.xml"
pass "the matrix: plain is no verdict where every plain case errored; the refusal case is in the errors row"

# --model given: the cases run, and the target's lines still say it
expect_status 1 "$OACHECK" run plain --target "nf=$HURL" --model m
expect_grep "^target nf: GET $HURL/v1/models answered HTTP 404 \\(text/plain\\): is this" "$TMP/out"
expect_no_grep 'MODELS-LIST' "$TMP/out"
pass "with --model the cases are sent, and the 404 of /v1/models is still said once"

kill "$HOSTILE_PID" 2>/dev/null || true
hostile_start --default html-page
expect_status 1 "$OACHECK" run plain --target "web=$HURL/app/v1"
expect_grep "^target web: GET $HURL/app/v1/models answered HTTP 200 \\(text/html\\), not JSON: is this the server's root\\?" "$TMP/out"
expect_grep "^ERROR +web plain/chat-basic \\(no \\\$\\{MODEL\\}: /v1/models is not a model list\\)$" "$TMP/out"
pass "a web page for every path: not JSON, said once with the URL asked"

kill "$HOSTILE_PID" 2>/dev/null || true
hostile_start --default echo-401
unset OPENAI_API_KEY
expect_status 1 "$OACHECK" run plain --target "auth=$HURL"
expect_grep "^target auth: GET $HURL/v1/models answered HTTP 401 \\(application/json\\): OPENAI_API_KEY \\(or the target's key_env\\) is not set, so no key was sent: set it to a key this server accepts$" "$TMP/out"
pass "a 401 for /v1/models: the hint is the API key, not the root"

# every case answered 401: said once for the target after the summary,
# with the variable the key comes from (its name, never the key)
KEY="sk-oacheck-not-a-root-0123456789"
OPENAI_API_KEY=$KEY; export OPENAI_API_KEY
expect_status 1 "$OACHECK" run plain --target "auth=$HURL" --model m
expect_grep "^target auth: GET $HURL/v1/models answered HTTP 401 \\(application/json\\): is OPENAI_API_KEY \\(or the target's key_env\\) set to a key this server accepts\\?$" "$TMP/out"
sed -n '/^[0-9]* cases: /,$p' "$TMP/out" > "$TMP/after"
expect_grep "^target auth answered HTTP 401 to 5 cases: is OPENAI_API_KEY \\(or the target's key_env\\) set to a key this server accepts\\?$" "$TMP/after"
[ "$(grep -c 'answered HTTP 401 to' "$TMP/out")" = 1 ] || fail "the 401 hint is not said once"
if grep -q "$KEY" "$TMP/out" "$TMP/err"; then fail "the key is in the output"; fi
cat > "$TMP/targets.json" <<EOT
[{"name": "auth", "url": "$HURL", "key_env": "OACHECK_TEST_AUTH_KEY", "model": "m"}]
EOT
OACHECK_TEST_AUTH_KEY=$KEY; export OACHECK_TEST_AUTH_KEY
expect_status 1 "$OACHECK" run plain --targets "$TMP/targets.json"
expect_grep "^target auth answered HTTP 401 to 5 cases: is OACHECK_TEST_AUTH_KEY \\(the target's key_env\\) set to a key this server accepts\\?$" "$TMP/out"
unset OPENAI_API_KEY OACHECK_TEST_AUTH_KEY
pass "cases answered 401: one line for the target naming the key's variable"

# a server's bytes in the target's lines are shown escaped: a Content-Type
# holding ESC sequences does not reach the terminal raw
kill "$HOSTILE_PID" 2>/dev/null || true
hostile_start --default escape-type
expect_status 1 "$OACHECK" run models --target "esc=$HURL"
expect_grep "^target esc: GET $HURL/v1/models answered HTTP 404 \\(text/\\\\u001B" "$TMP/out"
if LC_ALL=C grep -q "$(printf '\033')" "$TMP/out"; then fail "an ESC byte from the server reached the console"; fi
pass "server bytes on the target's lines are escaped"
