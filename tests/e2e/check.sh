#!/bin/sh
# check.sh — `oacheck check` on captures made here with curl against
# `oacheck serve`, and on the cassettes themselves, reaches the same
# findings (rule, severity, chunk, byte, JSON pointer) as `oacheck run
# --replay` on the same recordings, for the layers each capture has: a raw
# `curl -i -N` response has everything, a bare `curl -N` body has no HTTP
# layer (its header-derived findings are left out of the comparison).  The
# run's suite asks for the recorded status and nothing more, so case
# expectations (run's business) add nothing.  Then: a pasted excerpt is
# judged as partial, --request and its absence, --as, and unreadable input
# (exit 2 naming the file and the byte).  The HAR from Chromium is
# check-har.sh's.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

command -v curl >/dev/null 2>&1 || skip "curl is not installed"
FL="${OACHECK_BUILDDIR:-.}/tests/e2e/findings-list"
[ -x "$FL" ] || fail "the helper $FL is not built"
# the curl captures, by the names they have there (chat-stream, tools-required-stream, ...)
REC="$OACHECK_SRCDIR/tests/data/recordings/llama-server-curl"

# streams with chunk findings (logprobs-stream, json-object-stream), a
# stream the request makes fail (tools-required-stream), a clean one, and
# JSON bodies: 200 and 400
NAMES="chat-stream logprobs-stream json-object-stream tools-required-stream chat-basic tools-required ctx-overflow"

# ---- one suite case per recording: the recorded request, the recorded status
replay_suite "$TMP/captured.json" "$REC" $NAMES
expect_status 1 "$OACHECK" run "$TMP/captured.json" --replay "$REC" --profile llama-server --json "$TMP/run.json"
for n in $NAMES; do
  expect_grep "^(PASS|FAIL) .*captured/$n" "$TMP/out"
done
pass "run --replay judges the recordings"

# ---- the captures, made with curl against oacheck serve
serve_start "$REC"
for n in $NAMES; do
  curl -sS -i -N -X POST -H 'Content-Type: application/json' --data-binary @"$TMP/$n.req.json" \
    -o "$TMP/$n.http" "$URL/v1/chat/completions"
  curl -sS -N -X POST -H 'Content-Type: application/json' --data-binary @"$TMP/$n.req.json" \
    -o "$TMP/$n.body" "$URL/v1/chat/completions"
  expect_no_grep '^X-Oacheck-Unmatched' "$TMP/$n.http"
done
serve_stop

compare() { # compare NAME WHAT RESULTS.json [FILTER-RE]
  "$FL" "$TMP/run.json" "$1" > "$TMP/want"
  "$FL" "$3" > "$TMP/got"
  if [ -n "${4:-}" ]; then
    grep -Ev "$4" "$TMP/want" > "$TMP/want.f" || true
    mv "$TMP/want.f" "$TMP/want"
  fi
  if ! cmp -s "$TMP/want" "$TMP/got"; then
    diff -u "$TMP/want" "$TMP/got" >&2 || true
    fail "$1: oacheck check on $2 differs from run --replay (- run, + check)"
  fi
}

# findings that come from the status line and headers: a bare body has none
HEADER_RULES='^(HTTP-CORS-ORIGIN|HTTP-CONTENT-TYPE|STREAM-CONTENT-TYPE|HTTP-STATUS) '
located=0
for n in $NAMES; do
  set +e
  "$OACHECK" check --profile llama-server --request "$TMP/$n.req.json" --json "$TMP/$n.c-http.json" \
    "$TMP/$n.http" > "$TMP/$n.c-http.out" 2>&1
  "$OACHECK" check --profile llama-server --request "$TMP/$n.req.json" --json "$TMP/$n.c-body.json" \
    "$TMP/$n.body" > "$TMP/$n.c-body.out" 2>&1
  "$OACHECK" check --json "$TMP/$n.c-cas.json" "$REC/$n.cassette.gz" > "$TMP/$n.c-cas.out" 2>&1
  set -e
  compare "$n" "curl -i -N output" "$TMP/$n.c-http.json"
  compare "$n" "the cassette" "$TMP/$n.c-cas.json"
  compare "$n" "the curl -N body" "$TMP/$n.c-body.json" "$HEADER_RULES"
  expect_grep "^$n\\.http: a raw HTTP response \\(curl -i\\)" "$TMP/$n.c-http.out"
  expect_grep "^$n\\.body: a bare (event-stream|JSON) body" "$TMP/$n.c-body.out"
  expect_grep '^  http: not captured' "$TMP/$n.c-body.out"
  expect_grep '^  profile: llama-server \(auto, from the Server header\)' "$TMP/$n.c-cas.out"
  located=$((located + $(grep -c ' chunk=[0-9]' "$TMP/got" || true)))
done
[ "$located" -gt 4 ] || fail "only $located findings with a chunk: the comparison shows little"
pass "curl -i -N, curl -N and the cassette give run --replay's findings ($located located in a chunk)"

# the verdict and exit status follow the findings
expect_status 1 "$OACHECK" check --profile llama-server --request "$TMP/tools-required-stream.req.json" \
  "$TMP/tools-required-stream.http"
# (and the ai SDK's ToolChoiceViolationError on it: a break that names the same rule)
expect_grep '^FAIL tools-required-stream\.http: 2 errors' "$TMP/out"
expect_grep '^  \[error\] CLIENT-BREAKS: ai-sdk raises \(verified\): ToolChoiceViolationError' "$TMP/out"
expect_grep '^  \[error\] TOOL-CHOICE-HONOURED \(/choices/0/delta/tool_calls\): tool_choice was "required"' "$TMP/out"
expect_grep '^      expected: a tool call' "$TMP/out"
expect_grep '^  request: from --request$' "$TMP/out"
expect_grep '^1 exchange checked: 0 passed, 1 failed, 0 errors' "$TMP/out"
expect_status 0 "$OACHECK" check "$TMP/chat-stream.http"
# the empty CORS header, and openai-python's stream helper raising on the
# max_tokens cut: its limitation (OpenAI's answers do it too), not a failure
expect_grep '^PASS chat-stream\.http: 0 errors, 0 warnings, 2 info \(19 events\)' "$TMP/out"
expect_grep "^  \[info\] CLIENT-BREAKS: openai-python-stream raises \\(emulated\\): LengthFinishReasonError: .*the client's limitation" "$TMP/out"
pass "verdict, finding, expected value and exit status"

# ---- without the request: what needs it is not judged, and that is said
expect_status 0 "$OACHECK" check --profile llama-server "$TMP/tools-required-stream.body"
expect_grep '^  request: not captured \(give --request FILE\): not judged: .*TOOL-CHOICE-HONOURED' "$TMP/out"
expect_no_grep 'TOOL-CHOICE-HONOURED\]|\] TOOL-CHOICE' "$TMP/out"
# a cassette has its own request: --request is not used, and that is said
expect_status 1 "$OACHECK" check --request "$TMP/chat-stream.req.json" "$REC/tools-required-stream.cassette.gz"
expect_grep '^  request: from the capture \(--request not used\)' "$TMP/out"
expect_grep 'TOOL-CHOICE-HONOURED' "$TMP/out"
pass "no request: request-dependent rules are named as not judged"

# -q: a failing exchange is shown whole, a passing one only counted
expect_status 1 "$OACHECK" -q check "$TMP/chat-stream.http" "$REC/tools-required-stream.cassette.gz"
expect_grep '^FAIL tools-required-stream' "$TMP/out"
expect_no_grep '^PASS |chat-stream.http:' "$TMP/out"
expect_grep '^2 exchanges checked: 1 passed, 1 failed, 0 errors' "$TMP/out"
pass "check -q: the failing exchange and the count, not the passing one"

# ---- a pasted excerpt: cut inside an event, or without the final blank line
head -c 3000 "$TMP/json-object-stream.body" > "$TMP/pasted.txt"
expect_status 0 "$OACHECK" check --profile llama-server --request "$TMP/json-object-stream.req.json" "$TMP/pasted.txt"
expect_grep '^  end: partial: the capture ends in the middle of a line \(byte 3000' "$TMP/out"
expect_no_grep 'STREAM-(DONE|TRUNCATED|FINISH-ONCE)' "$TMP/out"
expect_status 1 "$OACHECK" check --complete --profile llama-server --request "$TMP/json-object-stream.req.json" "$TMP/pasted.txt"
expect_grep '^  \[error\] STREAM-TRUNCATED at chunk [0-9]+, byte [0-9]+' "$TMP/out"
expect_grep '^  end: judged as complete \(--complete\)' "$TMP/out"
# the whole stream as pasted into an issue: the final blank line lost
sed '$d' "$TMP/chat-stream.body" > "$TMP/pasted2.txt"
expect_status 0 "$OACHECK" check "$TMP/pasted2.txt"
expect_grep '^  end: partial: the capture ends after a line but without the blank line' "$TMP/out"
# and the same capture, complete, is complete
expect_status 0 "$OACHECK" check "$TMP/chat-stream.body"
expect_no_grep '^  end:' "$TMP/out"
# --partial on a complete stream: its end is not judged (what is in it
# is: the server's parser failing at its last event, CHAT-OUTPUT-PARSE)
expect_status 1 "$OACHECK" check --partial --profile llama-server --request "$TMP/json-object-stream.req.json" \
  "$TMP/json-object-stream.body"
expect_no_grep 'STREAM-DONE' "$TMP/out"
expect_grep '^  \[error\] CHAT-OUTPUT-PARSE at chunk 15' "$TMP/out"
pass "a pasted excerpt is judged as partial and says so; --complete and --partial force it"

# ---- reports: the results document is run's, suite check, a case per file
expect_status 0 "$OACHECK" check --json "$TMP/two.json" --junit "$TMP/two.xml" "$TMP/chat-stream.http" "$TMP/chat-stream.body"
expect_grep '"suite":[[:space:]]*"check"' "$TMP/two.json"
expect_grep '"case":[[:space:]]*"chat-stream.body"' "$TMP/two.json"
expect_grep '"mode":[[:space:]]*"replay"' "$TMP/two.json"
expect_status 0 "$OACHECK" validate "$OACHECK_SRCDIR/schemas/results.schema.json" "$TMP/two.json"
expect_grep '<testcase[^>]*name="chat-stream.http"' "$TMP/two.xml"
pass "results document (valid against the results schema) and JUnit"

# ---- kinds: told from the content, or forced
expect_status 1 "$OACHECK" check "$OACHECK_SRCDIR/tests/rules/STREAM-DONE/no-data-done-at-the-end.test"
expect_grep '^no-data-done-at-the-end\.test: a rule test file' "$TMP/out"
expect_grep 'STREAM-DONE at byte 497' "$TMP/out"
expect_status 2 "$OACHECK" check --as http "$TMP/chat-stream.body"
expect_grep "chat-stream\\.body: byte 0: expected a status line" "$TMP/err"
expect_status 1 "$OACHECK" check --as json "$TMP/chat-stream.body"
expect_grep 'JSON-BODY' "$TMP/out"
expect_grep '\(--as\)' "$TMP/out"
pass "kinds are detected, --as forces one"

# ---- unreadable input: exit 2, the file and the byte
printf 'hello there\n' > "$TMP/garbage.txt"
expect_status 2 "$OACHECK" check "$TMP/garbage.txt"
expect_grep "garbage\\.txt: byte 0: cannot tell what this is \\('hello there'\\)" "$TMP/err"
printf 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nbroken header\r\n\r\ndata: x\n\n' > "$TMP/broken.http"
expect_status 2 "$OACHECK" check "$TMP/broken.http"
expect_grep "broken\\.http: byte 50: header line without a colon" "$TMP/err"
printf '{"log": {"entries": [}' > "$TMP/broken.har"
expect_status 2 "$OACHECK" check --as har "$TMP/broken.har"
expect_grep "broken\\.har:1:22: not JSON" "$TMP/err"
expect_status 2 "$OACHECK" check "$TMP/no-such-file"
expect_grep "no-such-file" "$TMP/err"
printf '{"model": ' > "$TMP/bad-req.json"
expect_status 2 "$OACHECK" check --request "$TMP/bad-req.json" "$TMP/chat-stream.body"
expect_grep "bad-req\\.json:1:[0-9]+: the request is not JSON" "$TMP/err"
expect_status 2 "$OACHECK" check
expect_grep "give at least one FILE" "$TMP/err"
expect_status 2 "$OACHECK" check --partial --complete "$TMP/chat-stream.body"
pass "unreadable input exits 2 naming the file and the byte"
