#!/bin/sh
# run-replay.sh — the main job: `oacheck run` with no target replays the
# shipped llama-server recordings through every shipped suite, and the
# same suites run live against `oacheck serve` serving those recordings
# reach exactly the same verdicts.  The verdicts below are those of the
# live run the recordings were made in: ../shared/recordings/
# llama-server-live/README.md gives 42 pass, 11 fail, 0 skip, the failures
# being the server's real deviations (tests/data/recordings/
# llama-server-curl/README.md D1-D5) and the tiny model not reaching a tool
# call within max_tokens for tool_choice required / named; the client
# models add one: n-2-stream's first chunk is choice 1, on which
# openai-python's stream helper raises IndexError (docs/clients.md).  Nothing is
# "not recorded" any more: every case of every shipped suite was.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

cat > "$TMP/expected" <<'EOV'
PASS context-overflow/overflow
PASS context-overflow/overflow-stream
PASS context-overflow/over-by-one
PASS context-overflow/over-by-one-stream
PASS context-overflow/at-limit
PASS context-overflow/under-by-one
PASS context-overflow/under-limit
PASS context-overflow/recovery-overflow
PASS context-overflow/recovery
FAIL errors/invalid-json
PASS errors/missing-messages
PASS errors/messages-not-array
FAIL errors/unknown-role
PASS errors/tool-schema-invalid
PASS errors/tool-parameters-not-object
PASS errors/n-over-limit
PASS errors/wrong-method
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
FAIL streaming/n-2-stream
PASS streaming/logprobs-stream
PASS streaming/max-tokens-1-stream
FAIL tool-call/required
FAIL tool-call/required-stream
PASS tool-call/auto
PASS tool-call/auto-stream
FAIL tool-call/named
FAIL tool-call/named-stream
FAIL tool-call/parallel-stream
PASS tool-call/tool-result-turn
EOV
sort "$TMP/expected" > "$TMP/expected.sorted"

check_verdicts() { # check_verdicts CONSOLE-OUTPUT WHAT
  verdicts "$1" > "$TMP/got"
  if ! cmp -s "$TMP/got" "$TMP/expected.sorted"; then
    diff -u "$TMP/expected.sorted" "$TMP/got" >&2 || true
    fail "$2: verdicts differ from what the recordings warrant"
  fi
}

# 1. replay: no target, no network (the README's run command)
expect_status 1 "$OACHECK" run --json "$TMP/replay.json" --html "$TMP/replay.html" --junit "$TMP/replay.xml"
expect_grep '^oacheck [0-9.]+: no target given: replaying the shipped llama-server recordings' "$TMP/out"
expect_grep '^target llama-server: replay of .*, profile llama-server \(auto\), model tiny-random.gguf' "$TMP/out"
# the first lines say what the recordings are, from their own metadata:
# the cassettes' provenance and the recorded /props, /slots, /metrics
expect_grep "^  recorded: 53 cases \\(and [0-9]+ identification requests\\), recorded live from target '[^']*', 2026-12-01, arrival times kept$" "$TMP/out"
expect_grep '^  deployment: llama-server b10587-3f545becc: 2 slots × 512 tokens each \(-c 512 --kv-unified, or -c 1024 split\); /slots: 2, 0 busy; flags seen: -np 2 --metrics --props; template: tool calls$' "$TMP/out"
expect_no_grep 'not recorded' "$TMP/out"
expect_grep '"timing_recorded":[[:space:]]*true' "$TMP/replay.json"
# a timeline for every streamed case (data-stream marks one)
streamed=$(grep -c 'data-stream="1"' "$TMP/replay.html" || true)
[ "$streamed" -ge 14 ] || fail "only $streamed streamed cases in the HTML report"
without=$(awk '/<details class="case"/ { if (s && !t) bad++; s = /data-stream/; t = 0 }
               /<svg class="timeline"/ { t = 1 }
               END { if (s && !t) bad++; print bad + 0 }' "$TMP/replay.html")
[ "$without" = 0 ] || fail "$without streamed case(s) without a timeline"
pass "the first lines say what the recordings are; every one of the $streamed streamed cases has a timeline"
expect_grep '^53 cases: 41 passed, 12 failed, 0 errors, 0 skipped' "$TMP/out"
check_verdicts "$TMP/out" "replay"
expect_grep '"mode":[[:space:]]*"replay"' "$TMP/replay.json"
expect_grep '"note":[[:space:]]*"no target given: replaying' "$TMP/replay.json"
pass "replay of the shipped recordings: 53 verdicts as the recordings warrant"

# the last lines say what was written where
tail -n 3 "$TMP/out" > "$TMP/wrote"
printf 'wrote %s (JSON report)\nwrote %s (JUnit report)\nwrote %s (HTML report)\n' \
  "$TMP/replay.json" "$TMP/replay.xml" "$TMP/replay.html" | cmp -s - "$TMP/wrote" ||
  { cat "$TMP/wrote" >&2; fail "the run does not end saying which reports it wrote"; }
pass "the reports written are named at the end"

# the findings name the rule, the chunk and the byte
# (the in-band error is a warning: every client surfaces its message; the
# missing [DONE] after it fails the case)
expect_grep 'STREAM-DONE error: the stream ends after 15 events without .data: \[DONE\]. \(after an in-band error\)' "$TMP/out"
expect_grep 'ERROR-STATUS error: .*HTTP 500' "$TMP/out"
pass "findings name rule, chunk and status"

# the verdict policy opens the output; "Will my client work?" closes it:
# the clients take what llama-server sends (what fails is its contract:
# tool_choice, the 500s) but for openai-python's stream helper on an n:2
# stream that starts with choice 1, and the ai SDK (7), which raises
# ToolChoiceViolationError where tool_choice "required" got no call (the
# contract fails those cases anyway); the other breaks are the clients'
# own limitations
expect_grep '^verdict: clients: a case fails on its own expectations, a contract rule or a break of any of the seven clients' "$TMP/out"
expect_grep '^Will my client work\? \(llama-server\)$' "$TMP/out"
expect_grep '^  streaming +ok +ok +limit +limit +ok +BREAKS +ok$' "$TMP/out"
expect_grep '^  tool call streamed +ok +ok +BREAKS +ok +ok +limit +ok$' "$TMP/out"
expect_grep '^  errors +ok +- +ok +ok +ok +- +ok$' "$TMP/out"
expect_grep '^  BREAKS openai-python-stream, streaming: IndexError: .* \(streaming/n-2-stream\)$' "$TMP/out"
expect_grep '^  limit  ai-sdk, streaming: content differs' "$TMP/out"
expect_grep '^  BREAKS ai-sdk, tool call: ToolChoiceViolationError: .* \(tool-call/required\)$' "$TMP/out"
[ "$(grep -c '^  BREAKS ' "$TMP/out")" -eq 3 ] || fail "other breaks than those three in the client matrix"
expect_grep '"mode":[[:space:]]*"clients"' "$TMP/replay.json"
expect_grep '"checklist":[[:space:]]*"tool-call-stream"' "$TMP/replay.json"
pass "the verdict policy, and the client matrix: every client takes the answers; limitations told apart"

# a run's reports count the matrix from its spool (each result's ref);
# report render from the whole document: the same matrix, cell for cell,
# and its one break links to the case it comes from
expect_status 0 "$OACHECK" report render "$TMP/replay.json" --html "$TMP/rendered.html" --junit "$TMP/rendered.xml"
for f in replay rendered; do
  sed -n '/<section id="clients">/,/<\/section>/p' "$TMP/$f.html" >"$TMP/$f.matrix"
  sed -n '/<testsuite name="Will my client work?/,/<\/testsuite>/p' "$TMP/$f.xml" >"$TMP/$f.jmatrix"
done
[ -s "$TMP/replay.matrix" ] && [ -s "$TMP/replay.jmatrix" ] || fail "the run's HTML or JUnit report has no client matrix"
cmp -s "$TMP/replay.matrix" "$TMP/rendered.matrix" || { diff "$TMP/rendered.matrix" "$TMP/replay.matrix" >&2; fail "the run's HTML client matrix differs from report render's"; }
cmp -s "$TMP/replay.jmatrix" "$TMP/rendered.jmatrix" || { diff "$TMP/rendered.jmatrix" "$TMP/replay.jmatrix" >&2; fail "the run's JUnit client matrix differs from report render's"; }
[ "$(grep -o 'class="cl cl-breaks"' "$TMP/replay.matrix" | wc -l)" -eq 3 ] || fail "not the three breaks in the HTML matrix"
id=$(sed -n 's/.*<td class="cl cl-breaks"><a href="#\(c-[0-9]*\)">.*/\1/p' "$TMP/replay.matrix")
[ -n "$id" ] || fail "the break links to no case"
grep -A1 "<details class=\"case\" id=\"$id\" " "$TMP/replay.html" | grep -q '<span class="cname">n-2-stream</span>' ||
  fail "the break links to $id, which is not streaming/n-2-stream"
expect_grep '<failure type="CLIENT-BREAKS" message="breaks on streaming: IndexError' "$TMP/replay.jmatrix"
pass "the run's HTML and JUnit client matrices, counted from its spool, are report render's; the break links to its case"

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

# a reproduce command names a shipped suite by its name, and the same
# suite copied elsewhere by its file (whether a suite is the shipped one
# is found once, when it loads)
expect_grep '"oacheck":[[:space:]]*"oacheck run plain --replay [^"]* --filter .plain/chat-basic.' "$TMP/replay.json"
cp "$OACHECK_SRCDIR/suites/plain.json" "$TMP/my plain.json"
expect_status 0 "$OACHECK" run "$TMP/my plain.json" --filter plain/chat-basic --json "$TMP/mine.json"
expect_grep "\"oacheck\":[[:space:]]*\"oacheck run '$TMP/my plain.json' --replay " "$TMP/mine.json"
pass "reproduce commands: a shipped suite by name, a copy by its file"

# -q: the failures, the summary and the client matrix; no line for a
# case that passed
expect_status 1 "$OACHECK" run -q
expect_no_grep '^PASS ' "$TMP/out"
[ "$(grep -c '^FAIL ' "$TMP/out")" -eq 12 ] || fail "run -q does not list the 12 failures"
expect_grep '^53 cases: 41 passed, 12 failed, 0 errors, 0 skipped' "$TMP/out"
expect_grep '^Will my client work\? \(llama-server\)$' "$TMP/out"
pass "run -q: the 12 failures, the summary and the matrix, no passing case"

# 2. live against oacheck serve replaying the same recordings
serve_start "$OACHECK_SRCDIR/suites/recordings/llama-server"
expect_status 1 "$OACHECK" run --target "llama=$URL" --json "$TMP/live.json"
check_verdicts "$TMP/out" "live against oacheck serve"
expect_grep "^target llama: live server, profile llama-server \\(auto\\), model tiny-random.gguf" "$TMP/out"
expect_grep '^  jobs: 2 in flight \(the target.s total_slots; --jobs N overrides\)$' "$TMP/out"
expect_grep '"mode":[[:space:]]*"live"' "$TMP/live.json"
expect_grep '"recorded":[[:space:]]*true' "$TMP/live.json"
serve_stop
pass "live run against oacheck serve reaches the same verdicts"
