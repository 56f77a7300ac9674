#!/bin/sh
# run-replay.sh — the main job: `oacheck run` with no target replays the
# shipped llama-server recordings through every shipped suite, and the
# same suites run live against `oacheck serve` serving those recordings
# reach exactly the same verdicts.  The verdicts below are what the real
# server's recordings warrant (see suites/recordings/llama-server/README.md,
# D1-D18), including the failures the real server really has.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

cat > "$TMP/expected" <<'EOV'
PASS context-overflow/overflow
PASS context-overflow/overflow-stream
SKIP context-overflow/over-by-one
SKIP context-overflow/over-by-one-stream
SKIP context-overflow/at-limit
SKIP context-overflow/under-by-one
SKIP context-overflow/under-limit
SKIP context-overflow/recovery-overflow
SKIP context-overflow/recovery
FAIL errors/invalid-json
PASS errors/missing-messages
PASS errors/messages-not-array
FAIL errors/unknown-role
PASS errors/tool-schema-invalid
PASS errors/tool-parameters-not-object
PASS errors/n-over-limit
SKIP errors/wrong-method
PASS json-schema/json-schema
PASS json-schema/json-schema-stream
FAIL json-schema/json-object
FAIL json-schema/json-object-stream
FAIL json-schema/json-object-short
PASS llama-server/health
PASS llama-server/props
PASS llama-server/slots
PASS llama-server/tokenize
PASS llama-server/metrics
PASS llama-server/models-alias
PASS llama-server/completions-legacy
PASS llama-server/completions-legacy-stream
PASS llama-server/apply-template
PASS llama-server/apply-template-multiturn
PASS llama-server/apply-template-tool-call
PASS llama-server/apply-template-unknown-role
PASS models/list
PASS plain/chat-basic
PASS plain/max-tokens-1
FAIL plain/unknown-model
PASS plain/n-2
PASS plain/logprobs
PASS streaming/stream-basic
PASS streaming/include-usage
PASS streaming/n-2-stream
PASS streaming/logprobs-stream
SKIP streaming/max-tokens-1-stream
FAIL tool-call/required
FAIL tool-call/required-stream
PASS tool-call/auto
PASS tool-call/auto-stream
SKIP tool-call/named
SKIP tool-call/named-stream
SKIP tool-call/parallel-stream
SKIP tool-call/tool-result-turn
EOV
sort "$TMP/expected" > "$TMP/expected.sorted"

check_verdicts() { # check_verdicts CONSOLE-OUTPUT WHAT
  verdicts "$1" > "$TMP/got"
  if ! cmp -s "$TMP/got" "$TMP/expected.sorted"; then
    diff -u "$TMP/expected.sorted" "$TMP/got" >&2 || true
    fail "$2: verdicts differ from what the recordings warrant"
  fi
}

# 1. replay: no target, no network
expect_status 1 "$OACHECK" run --json "$TMP/replay.json"
expect_grep '^oacheck [0-9.]+: no target given: replaying the shipped llama-server recordings' "$TMP/out"
expect_grep '^target llama-server: replay of .*, profile llama-server \(auto\), model tiny-random.gguf' "$TMP/out"
expect_grep '^53 cases: 32 passed, 8 failed, 0 errors, 13 skipped' "$TMP/out"
check_verdicts "$TMP/out" "replay"
expect_grep '"mode":[[:space:]]*"replay"' "$TMP/replay.json"
expect_grep '"note":[[:space:]]*"no target given: replaying' "$TMP/replay.json"
pass "replay of the shipped recordings: 53 verdicts as the recordings warrant"

# the findings name the rule, the chunk and the byte
# (the in-band error is a warning: every client surfaces its message; the
# missing [DONE] after it fails the case)
expect_grep 'STREAM-DONE error: the stream ends after 15 events without .data: \[DONE\]. \(after an in-band error\)' "$TMP/out"
expect_grep 'ERROR-STATUS error: .*HTTP 500' "$TMP/out"
pass "findings name rule, chunk and status"

# the verdict policy opens the output; "Will my client work?" closes it:
# the clients take what llama-server sends (what fails is its contract:
# tool_choice, the 500s), and the breaks are the clients' own limitations
expect_grep '^verdict: clients: a case fails on its own expectations, a contract rule or a break of any of the six clients' "$TMP/out"
expect_grep '^Will my client work\? \(llama-server\)$' "$TMP/out"
expect_grep '^  streaming +ok +ok +limit +limit +ok +limit$' "$TMP/out"
expect_grep '^  errors +ok +- +ok +ok +ok +-$' "$TMP/out"
expect_grep '^  limit  openai-python-stream, streaming: LengthFinishReasonError' "$TMP/out"
expect_no_grep '^  BREAKS ' "$TMP/out"
expect_grep '"mode":[[:space:]]*"clients"' "$TMP/replay.json"
expect_grep '"checklist":[[:space:]]*"tool-call-stream"' "$TMP/replay.json"
pass "the verdict policy, and the client matrix: every client takes the answers; limitations told apart"

# --strict: the specification's verdict, every error fails; here the same
# cases (llama-server's deviations that break no client are warnings that
# --strict turns back into errors, on cases that fail anyway)
expect_status 1 "$OACHECK" run --strict --json "$TMP/strict.json"
expect_grep '^verdict: strict: every error fails its case' "$TMP/out"
expect_grep '"mode":[[:space:]]*"strict"' "$TMP/strict.json"
expect_grep '^failing rules: .*STREAM-ERROR-EVENT' "$TMP/out"
# --clients names the clients whose break fails a case
expect_status 1 "$OACHECK" run --clients openai-python,ai-sdk --json "$TMP/two.json"
expect_grep '^verdict: clients: .*a break of ai-sdk, openai-python;' "$TMP/out"
expect_status 2 "$OACHECK" run --clients openai-go
expect_grep "unknown client 'openai-go'" "$TMP/err"
pass "--strict and --clients: said in the header and the results"

# 2. live against oacheck serve replaying the same recordings
serve_start "$OACHECK_SRCDIR/suites/recordings/llama-server"
expect_status 1 "$OACHECK" run --target "llama=$URL" --json "$TMP/live.json"
check_verdicts "$TMP/out" "live against oacheck serve"
expect_grep "^target llama: live server, profile llama-server \\(auto\\), model tiny-random.gguf" "$TMP/out"
expect_grep '"mode":[[:space:]]*"live"' "$TMP/live.json"
expect_grep '"recorded":[[:space:]]*true' "$TMP/live.json"
serve_stop
pass "live run against oacheck serve reaches the same verdicts"
