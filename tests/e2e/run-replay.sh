#!/bin/sh
# run-replay.sh — the main job: `oacheck run` with no target replays the
# shipped llama-server recordings through every shipped suite, and the
# same suites run live against `oacheck serve` serving those recordings
# reach exactly the same verdicts.  The shipped recordings are a live
# llama-server with tiny-reasoner.gguf, a model that really reasons
# (suites/recordings/llama-server/README.md): 63 pass, 4 fail, 2 skip, the
# failures being the server's real deviations (a 500 for invalid JSON and
# for reasoning_content null sent back, an unknown role and model accepted
# with 200), the skips n=2 refused by its one slot.  Nothing is "not
# recorded": every case of every shipped suite was.
#
# The earlier default recordings (tiny-random.gguf, two slots of 512
# tokens, tests/data/recordings/llama-server-tiny-random) replayed with
# the suites they were made with keep their verdicts (section 3): 41 pass,
# 12 fail, the failures the server's deviations (tests/data/recordings/
# llama-server-curl/README.md D1-D5), the tiny model not reaching a tool
# call within max_tokens for tool_choice required / named, and
# n-2-stream's first chunk being choice 1, on which openai-python's stream
# helper raises IndexError (docs/clients.md).
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
# chat's shipped suites, for the runs that look at chat's verdicts alone
CHAT_SUITES="context-overflow errors json-schema llama-server models plain reasoning streaming tool-call"

cat > "$TMP/expected" <<'EOV'
FAIL errors/invalid-json
FAIL errors/unknown-role
FAIL plain/unknown-model
FAIL reasoning/history-reasoning-null
PASS context-overflow/at-limit
PASS context-overflow/over-by-one
PASS context-overflow/over-by-one-stream
PASS context-overflow/overflow
PASS context-overflow/overflow-stream
PASS context-overflow/recovery
PASS context-overflow/recovery-overflow
PASS context-overflow/under-by-one
PASS context-overflow/under-limit
PASS errors/messages-not-array
PASS errors/missing-messages
PASS errors/n-over-limit
PASS errors/tool-parameters-not-object
PASS errors/tool-schema-invalid
PASS errors/wrong-method
PASS json-schema/json-object
PASS json-schema/json-object-short
PASS json-schema/json-object-stream
PASS json-schema/json-schema
PASS json-schema/json-schema-stream
PASS llama-server/apply-template
PASS llama-server/apply-template-multiturn
PASS llama-server/apply-template-tool-call
PASS llama-server/apply-template-unknown-role
PASS llama-server/completions-legacy
PASS llama-server/completions-legacy-stream
PASS llama-server/health
PASS llama-server/metrics
PASS llama-server/models-alias
PASS llama-server/props
PASS llama-server/slots
PASS llama-server/tokenize
PASS models/list
PASS plain/chat-basic
PASS plain/logprobs
PASS plain/max-tokens-1
PASS reasoning/answer
PASS reasoning/answer-stream
PASS reasoning/budget-exhausted
PASS reasoning/budget-exhausted-stream
PASS reasoning/effort-none
PASS reasoning/enable-thinking-string
PASS reasoning/history-reasoning
PASS reasoning/history-reasoning-content
PASS reasoning/history-tool-call
PASS reasoning/json-schema
PASS reasoning/reasoning-budget
PASS reasoning/thinking-off
PASS reasoning/thinking-off-stream
PASS reasoning/tool-call
PASS reasoning/tool-call-stream
PASS streaming/include-usage
PASS streaming/logprobs-stream
PASS streaming/max-tokens-1-stream
PASS streaming/stream-basic
PASS tool-call/auto
PASS tool-call/auto-stream
PASS tool-call/named
PASS tool-call/named-stream
PASS tool-call/parallel-stream
PASS tool-call/required
PASS tool-call/required-stream
PASS tool-call/tool-result-turn
SKIP plain/n-2
SKIP streaming/n-2-stream
EOV
sort "$TMP/expected" > "$TMP/expected.sorted"
cat > "$TMP/expected-tr" <<'EOV'
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
sort "$TMP/expected-tr" > "$TMP/expected-tr.sorted"

check_verdicts() { # check_verdicts CONSOLE-OUTPUT WHAT [EXPECTED-SORTED]
  want=${3:-$TMP/expected.sorted}
  verdicts "$1" > "$TMP/got"
  if ! cmp -s "$TMP/got" "$want"; then
    diff -u "$want" "$TMP/got" >&2 || true
    fail "$2: verdicts differ from what the recordings warrant"
  fi
}

# The other protocols' suites, each alone against its own recordings: the
# default run (every protocol) must judge their cases exactly so.
expect_status 1 "$OACHECK" run responses
verdicts "$TMP/out" > "$TMP/proto.verdicts"
r_sum=$(sed -n 's/^\([0-9]*\) cases: \([0-9]*\) passed, \([0-9]*\) failed, 0 errors, \([0-9]*\) skipped.*/\1 \2 \3 \4/p' "$TMP/out")
expect_status 1 "$OACHECK" run messages
verdicts "$TMP/out" >> "$TMP/proto.verdicts"
m_sum=$(sed -n 's/^\([0-9]*\) cases: \([0-9]*\) passed, \([0-9]*\) failed, 0 errors, \([0-9]*\) skipped.*/\1 \2 \3 \4/p' "$TMP/out")
[ -n "$r_sum" ] && [ -n "$m_sum" ] || fail "the protocol runs printed no summary"
set -- $r_sum $m_sum
total=$((69 + $1 + $5)); passed=$((63 + $2 + $6)); failed=$((4 + $3 + $7)); skipped=$((2 + $4 + $8))
cat "$TMP/expected" "$TMP/proto.verdicts" | sort > "$TMP/expected-all.sorted"

# 1. replay: no target, no network (the README's run command): every
# shipped suite, chat's and the other protocols', against every shipped
# recordings folder as one llama-server
expect_status 1 "$OACHECK" run --json "$TMP/replay.json" --html "$TMP/replay.html" --junit "$TMP/replay.xml"
expect_grep '^oacheck [0-9.]+: no target given: replaying the shipped llama-server recordings' "$TMP/out"
expect_grep '^target llama-server: replay of .*, profile llama-server \(auto\), model tiny-reasoner.gguf' "$TMP/out"
# the first lines say what the recordings are, from their own metadata:
# the cassettes' provenance and the recorded /props, /slots, /metrics
# (the count contract's requests are recorded beside their cases: more
# recordings than cases)
expect_grep "^  recorded: [0-9]+ cases \\(and [0-9]+ identification requests\\), recorded live from target '[^']*'(; recorded live from target '[^']*'( beside its case)?)*, 2026-12-02, arrival times kept$" "$TMP/out"
recorded=$(sed -n 's/^  recorded: \([0-9]*\) cases.*/\1/p' "$TMP/out")
[ "$recorded" -ge "$total" ] || fail "$recorded recordings for $total cases"
expect_grep '^  deployment: llama-server b10587-3f545becc: 1 slot × 4096 tokens each; /slots: 1, 0 busy; flags seen: -np 1 --metrics --props; template: tool calls$' "$TMP/out"
expect_no_grep 'not recorded' "$TMP/out"
expect_grep '"timing_recorded":[[:space:]]*true' "$TMP/replay.json"
# a timeline for every streamed case shown whole (data-stream marks one;
# past the first 100 cases the page shows them brief, in noscript pages)
streamed=$(sed '/<noscript class="page">/q' "$TMP/replay.html" | grep -c 'data-stream="1"' || true)
[ "$streamed" -ge 14 ] || fail "only $streamed streamed cases in the HTML report"
without=$(sed '/<noscript class="page">/q' "$TMP/replay.html" |
          awk '/<details class="case"/ { if (s && !t) bad++; s = /data-stream/; t = 0 }
               /<svg class="timeline"/ { t = 1 }
               END { if (s && !t) bad++; print bad + 0 }')
[ "$without" = 0 ] || fail "$without streamed case(s) without a timeline"
pass "the first lines say what the recordings are; every one of the $streamed streamed cases has a timeline"
expect_grep "^$total cases: $passed passed, $failed failed, 0 errors, $skipped skipped" "$TMP/out"
check_verdicts "$TMP/out" "replay" "$TMP/expected-all.sorted"
# a block of the client matrix per protocol that ran, and both agents
expect_grep '^Will my client work\? \(llama-server\) — Chat Completions$' "$TMP/out"
expect_grep '^Will my agent work\? \(llama-server\)$' "$TMP/out"
expect_grep '^  codex .*\(responses\)' "$TMP/out"
expect_grep '^  claude-code .*\(messages\)' "$TMP/out"
expect_grep '"mode":[[:space:]]*"replay"' "$TMP/replay.json"
expect_grep '"note":[[:space:]]*"no target given: replaying' "$TMP/replay.json"
pass "replay of the shipped recordings: $total verdicts as the recordings warrant, each protocol's as its own run gives them"

# the last lines say what was written where
tail -n 3 "$TMP/out" > "$TMP/wrote"
printf 'wrote %s (JSON report)\nwrote %s (JUnit report)\nwrote %s (HTML report)\n' \
  "$TMP/replay.json" "$TMP/replay.xml" "$TMP/replay.html" | cmp -s - "$TMP/wrote" ||
  { cat "$TMP/wrote" >&2; fail "the run does not end saying which reports it wrote"; }
pass "the reports written are named at the end"

# the findings name the rule and the status, and quote the server
expect_grep 'ERROR-STATUS error: .*HTTP 500' "$TMP/out"
expect_grep 'HTTP-STATUS error: expected HTTP 200, got 500: Failed to parse messages: .*type must be string, but is null' "$TMP/out"
expect_grep "^SKIP +llama-server plain/n-2 \\(unsupported: HTTP 400: Field 'n': Value must be between 1 <= value <= 1, but got 2\\)$" "$TMP/out"
pass "findings name rule and status; a one-slot server's refusal of n=2 is a skip that says why"

# the traffic is a reasoning model's: the reasoning rebuilt from the
# stream's reasoning_content deltas, beside the answer, and none where
# thinking was turned off
expect_grep '"reasoning_content":[[:space:]]*"The capital of France is Paris.\\n"' "$TMP/replay.json"
pass "reasoning traffic: the rebuilt reasoning is in the results"

# the verdict policy opens the output; "Will my client work?" closes it:
# the clients take what llama-server sends (what fails is its contract:
# the 500s, the invalid input accepted); what does not work is the
# clients' own limitations (openai-python's stream helper on a stream cut
# by max_tokens, the ai SDK's Output.object on a JSON answer cut in the
# think block, the Agents SDK on a length stop that left only reasoning),
# and no chat client breaks (the Responses block below has its own); the
# reasoning row says what each client reads of llama-server's
# reasoning_content (the Agents SDK reads only `reasoning`)
expect_grep '^verdict: clients: a case fails on its own expectations, a contract rule or a break of any of today.s clients' "$TMP/out"
expect_grep '^Will my client work\? \(llama-server\) — Chat Completions$' "$TMP/out"
expect_grep '^  streaming +ok +ok +ok +ok +ok +limit +limit$' "$TMP/out"
expect_grep '^  tool call streamed +ok +ok +ok +ok +ok +ok +ok$' "$TMP/out"
expect_grep '^  JSON schema +ok +ok +limit +ok +ok +ok +limit$' "$TMP/out"
expect_grep '^  errors +ok +- +ok +ok +ok +- +limit$' "$TMP/out"
expect_grep '^  reasoning +ok +ok +ok +ok +ok +limit +limit$' "$TMP/out"
expect_grep '^    reads reasoning +seen\* +partial +seen\* +seen\* +seen\* +seen +hidden\*$' "$TMP/out"
expect_grep '^  limit  ai-sdk, JSON schema: NoOutputGeneratedError: .* \(json-schema/json-object-short\)$' "$TMP/out"
expect_no_grep '^  BREAKS (openai-node|openai-node-stream|ai-sdk|langchain|openai-python|openai-python-stream|openai-agents-chat),' "$TMP/out"
# llama-server's Responses stream shape (no output_index, a bare
# response.created) breaks openai-node's stream helper and the ai SDK
expect_grep '^Will my client work\? \(llama-server\) — Responses API$' "$TMP/out"
expect_grep '^  BREAKS openai-node-responses-stream, streaming: OpenAIError: "missing output at index undefined"' "$TMP/out"
expect_grep '^Will my client work\? \(llama-server\) — Messages API \(Anthropic\)$' "$TMP/out"
expect_grep '"mode":[[:space:]]*"clients"' "$TMP/replay.json"
expect_grep '"checklist":[[:space:]]*"tool-call-stream"' "$TMP/replay.json"
pass "the verdict policy, and the client matrix: every client takes the answers; limitations told apart"

# a run's reports count the matrix from its spool (each result's ref);
# report render from the whole document: the same matrix, cell for cell
expect_status 0 "$OACHECK" report render "$TMP/replay.json" --html "$TMP/rendered.html" --junit "$TMP/rendered.xml"
for f in replay rendered; do
  sed -n '/<section id="clients">/,/<\/section>/p' "$TMP/$f.html" >"$TMP/$f.matrix"
  sed -n '/<testsuite name="Will my client work?/,/<\/testsuite>/p' "$TMP/$f.xml" >"$TMP/$f.jmatrix"
done
[ -s "$TMP/replay.matrix" ] && [ -s "$TMP/replay.jmatrix" ] || fail "the run's HTML or JUnit report has no client matrix"
cmp -s "$TMP/replay.matrix" "$TMP/rendered.matrix" || { diff "$TMP/rendered.matrix" "$TMP/replay.matrix" >&2; fail "the run's HTML client matrix differs from report render's"; }
cmp -s "$TMP/replay.jmatrix" "$TMP/rendered.jmatrix" || { diff "$TMP/rendered.jmatrix" "$TMP/replay.jmatrix" >&2; fail "the run's JUnit client matrix differs from report render's"; }
pass "the run's HTML and JUnit client matrices, counted from its spool, are report render's"

# --strict: the specification's verdict, every error fails; here the same
# cases (llama-server's deviations that break no client are warnings that
# --strict turns back into errors, on cases that fail anyway)
expect_status 1 "$OACHECK" run $CHAT_SUITES --strict --json "$TMP/strict.json"
expect_grep '^verdict: strict: every error fails its case' "$TMP/out"
expect_grep '"mode":[[:space:]]*"strict"' "$TMP/strict.json"
expect_grep '^failing rules: ERROR-STATUS \(3\) HTTP-STATUS \(1\) REASONING-HISTORY-REFUSED \(1\)$' "$TMP/out"
# --clients names the clients whose break fails a case
expect_status 1 "$OACHECK" run $CHAT_SUITES --clients openai-python,ai-sdk --json "$TMP/two.json"
expect_grep '^verdict: clients: .*a break of ai-sdk, openai-python;' "$TMP/out"
expect_status 2 "$OACHECK" run --clients openai-go
expect_grep "unknown client 'openai-go'" "$TMP/err"
pass "--strict and --clients: said in the header and the results"

# last year's majors by name: modelled beside today's seven, a column of
# their own, in results that still validate; unnamed, nowhere
expect_status 1 "$OACHECK" run $CHAT_SUITES --clients all,ai-sdk@5,langchain@0.6 --json "$TMP/prev.json" --junit "$TMP/prev.xml"
expect_grep '^ *node  .* agents  ai-sdk@5  langchain@0\.6$' "$TMP/out"
expect_grep "^  @N: last year's major of the same client" "$TMP/out"
expect_grep '^verdict: clients: .*a break of any of today.s clients or ai-sdk@5 or langchain@0\.6 or codex or claude-code;' "$TMP/out"
expect_grep '"ai-sdk@5":[[:space:]]*{' "$TMP/prev.json"
expect_grep '"langchain@0.6":[[:space:]]*{' "$TMP/prev.json"
expect_no_grep '"openai-node@6"' "$TMP/prev.json"
expect_grep '<testcase name="langchain@0.6"' "$TMP/prev.xml"
expect_status 0 "$OACHECK" validate "$OACHECK_SRCDIR/schemas/results.schema.json" "$TMP/prev.json"
expect_no_grep 'ai-sdk@5' "$TMP/replay.json"
pass "--clients all,ai-sdk@5,langchain@0.6: two more columns and verdicts; none without"

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
[ "$(grep -c '^FAIL ' "$TMP/out")" -eq "$failed" ] || fail "run -q does not list the $failed failures"
expect_grep "^$total cases: $passed passed, $failed failed, 0 errors, $skipped skipped" "$TMP/out"
expect_grep '^Will my client work\? \(llama-server\) — Chat Completions$' "$TMP/out"
pass "run -q: the $failed failures, the summary and the matrix, no passing case"

# 2. live against oacheck serve replaying the same recordings
# (chat's suites: this folder holds chat's recordings)
serve_start "$OACHECK_SRCDIR/suites/recordings/llama-server"
# shellcheck disable=SC2086
expect_status 1 "$OACHECK" run $CHAT_SUITES --target "llama=$URL" --json "$TMP/live.json"
check_verdicts "$TMP/out" "live against oacheck serve"
expect_grep "^target llama: live server, profile llama-server \\(auto\\), model tiny-reasoner.gguf" "$TMP/out"
expect_grep '^  jobs: 1 in flight \(the target.s total_slots; --jobs N overrides\)$' "$TMP/out"
expect_grep '"mode":[[:space:]]*"live"' "$TMP/live.json"
expect_grep '"recorded":[[:space:]]*true' "$TMP/live.json"
serve_stop
pass "live run against oacheck serve reaches the same verdicts"

# 3. the earlier default recordings (tiny-random, two slots of 512
# tokens), with the suites they were recorded with: their verdicts, the
# in-band stream error without [DONE], and the one client break
TRREC="$OACHECK_SRCDIR/tests/data/recordings/llama-server-tiny-random"
TR="$OACHECK_SRCDIR/tests/data/suites/tiny-random"
expect_status 1 "$OACHECK" run plain streaming errors models llama-server "$TR"/tool-call.json \
  "$TR"/json-schema.json "$TR"/context-overflow.json --replay "$TRREC" \
  --json "$TMP/tr.json" --html "$TMP/tr.html" --junit "$TMP/tr.xml"
expect_grep '^target llama-server-tiny-random: replay of .*, profile llama-server \(auto\), model tiny-random.gguf' "$TMP/out"
expect_grep "^  recorded: 53 cases \\(and [0-9]+ identification requests\\), recorded live from target '[^']*', 2026-12-01, arrival times kept$" "$TMP/out"
expect_grep '^  deployment: llama-server b10587-3f545becc: 2 slots × 512 tokens each \(-c 512 --kv-unified, or -c 1024 split\); /slots: 2, 0 busy; flags seen: -np 2 --metrics --props; template: tool calls$' "$TMP/out"
expect_grep '^53 cases: 41 passed, 12 failed, 0 errors, 0 skipped' "$TMP/out"
check_verdicts "$TMP/out" "the tiny-random recordings" "$TMP/expected-tr.sorted"
# (the in-band error is a warning: every client surfaces its message; the
# missing [DONE] after it fails the case)
expect_grep 'STREAM-DONE error: the stream ends after 15 events without .data: \[DONE\]. \(after an in-band error\)' "$TMP/out"
# the ai SDK (7) raises ToolChoiceViolationError where tool_choice
# "required" got no call (the contract fails those cases anyway)
expect_grep '^  streaming +ok +ok +limit +limit +ok +BREAKS +ok$' "$TMP/out"
expect_grep '^  tool call streamed +ok +ok +BREAKS +ok +ok +limit +ok$' "$TMP/out"
expect_grep '^  BREAKS openai-python-stream, streaming: IndexError: .* \(streaming/n-2-stream\)$' "$TMP/out"
expect_grep '^  BREAKS ai-sdk, tool call: ToolChoiceViolationError: .* \(tool-call/required\)$' "$TMP/out"
expect_grep '^  limit  ai-sdk, streaming: content differs' "$TMP/out"
[ "$(grep -c '^  BREAKS ' "$TMP/out")" -eq 3 ] || fail "other breaks than those three in the client matrix"
sed -n '/<section id="clients">/,/<\/section>/p' "$TMP/tr.html" >"$TMP/tr.matrix"
sed -n '/<testsuite name="Will my client work?/,/<\/testsuite>/p' "$TMP/tr.xml" >"$TMP/tr.jmatrix"
[ "$(grep -o 'class="cl cl-breaks"' "$TMP/tr.matrix" | wc -l)" -eq 3 ] || fail "not the three breaks in the HTML matrix"
id=$(grep 'IndexError' "$TMP/tr.matrix" | sed -n 's/.*<td class="cl cl-breaks"><a href="#\(c-[0-9]*\)">.*/\1/p' | head -n 1)
[ -n "$id" ] || fail "the IndexError break links to no case"
grep -A1 "<details class=\"case\" id=\"$id\" " "$TMP/tr.html" | grep -q '<span class="cname">n-2-stream</span>' ||
  fail "the break links to $id, which is not streaming/n-2-stream"
expect_grep '<failure type="CLIENT-BREAKS" message="breaks on streaming: IndexError' "$TMP/tr.jmatrix"
expect_status 1 "$OACHECK" run plain streaming errors models llama-server "$TR"/tool-call.json \
  "$TR"/json-schema.json "$TR"/context-overflow.json --replay "$TRREC" --strict
expect_grep '^failing rules: .*STREAM-ERROR-EVENT' "$TMP/out"
pass "the tiny-random recordings: 53 verdicts, the in-band error, the one break linked to its case"

# 4. the same model with --reasoning-format none: the think block stays in
# content (tests/data/recordings/llama-server-reasoning-none/README.md);
# thinking turned off leaves only the template's empty block, which is no
# reasoning, so the controls pass; the history's null still fails
NONE="$OACHECK_SRCDIR/tests/data/recordings/llama-server-reasoning-none"
expect_status 1 "$OACHECK" run reasoning streaming tool-call --replay "$NONE" --json "$TMP/none.json"
expect_grep '^29 cases: 27 passed, 1 failed, 0 errors, 1 skipped' "$TMP/out"
expect_grep '^FAIL +llama-server-reasoning-none reasoning/history-reasoning-null' "$TMP/out"
expect_grep '^PASS +llama-server-reasoning-none reasoning/thinking-off ' "$TMP/out"
expect_grep '^PASS +llama-server-reasoning-none reasoning/effort-none ' "$TMP/out"
expect_grep '"content":[[:space:]]*"<think>\\nThe capital of France is Paris.\\n</think>\\n\\nParis is the capital of France."' "$TMP/none.json"
pass "--reasoning-format none: the think block in content, the controls honoured, 27 pass, 1 fail, 1 skip"
