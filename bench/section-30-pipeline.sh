#!/bin/sh
# section-30-pipeline.sh — the whole streaming path (framing + JSON decode
# + chunk schema + accumulator + stream, reasoning and message rules + the
# seven client models and their reference reassembly, through
# oc_response) against a Node peer that does the same work with the
# chunks (bench/peer_clients.mjs: eventsource-parser + JSON.parse + ajv 8
# compiled chunk schema + the reference reassembly + one reassembly per
# client model, reasoning included), on a stream with a reasoning phase;
# and, for the figure kept from before, the schema-only peer
# (bench/peer_pipeline.mjs) on the stream without reasoning.  Same
# stream, same 16 KiB pieces, same invocation.
set -eu
. "$BENCH_SRCDIR/bench/lib.sh"

b=$BENCH_BUILDDIR/bench
plain=$b/stream.sse
stream=$b/stream-reasoning.sse
runs=$BENCH_RUNS
[ -f "$plain" ] || "$b/gen_stream" "$plain" 2>/dev/null
[ -f "$stream" ] || "$b/gen_stream" -r 200000 "$stream" 2>/dev/null

export OACHECK_DATADIR="$BENCH_SRCDIR"
ours=$("$b/bench_pipeline" --runs "$runs" "$stream")
ours_plain=$("$b/bench_pipeline" --runs "$runs" "$plain")
giga=$("$b/bench_pipeline" --gigabyte)
peer="" peer_min="" peer_plain=""
if have_peer && [ -d "$BENCH_SRCDIR/tests/node/node_modules/ajv" ]; then
  peer=$("$NODE" "$BENCH_SRCDIR/bench/peer_clients.mjs" --runs "$runs" --schemas "$BENCH_SRCDIR/schemas" "$stream")
  peer_min=$("$NODE" "$BENCH_SRCDIR/bench/peer_pipeline.mjs" --runs "$runs" --schemas "$BENCH_SRCDIR/schemas" "$stream")
  peer_plain=$("$NODE" "$BENCH_SRCDIR/bench/peer_pipeline.mjs" --runs "$runs" --schemas "$BENCH_SRCDIR/schemas" "$plain")
fi

echo "## The whole streaming path: framing, decoding, chunk schema, accumulator, rules, client models"
echo
echo "Input: \`bench/gen_stream -r 200000 bench/stream-reasoning.sse\` — $(kv bytes "$ours") bytes," \
  "$(human "$(kv events "$ours")") events: the role chunk, 200,000 \`reasoning_content\` deltas, then" \
  "content deltas, the finish chunk and \`[DONE]\`, as llama-server streams a reasoning model's answer." \
  "Fed in 16 KiB pieces from memory through \`oc_response\` exactly as a live case is" \
  "(llama-server profile); best of $runs runs."
echo
echo "The peer that does the same work (\`bench/peer_clients.mjs\`, Node): eventsource-parser," \
  "\`JSON.parse\`, an ajv 8 compiled \`chat.completion.chunk\` schema, the reference reassembly" \
  "(tests/node/oracle/reference.mjs's rules, chunk by chunk) and one reassembly per client model" \
  "reproducing how each of the seven differs, reasoning included (openai-node's \`create\` and" \
  "openai-python's \`create\` iterated; openai-node's stream helper with \`Object.assign\` of unknown" \
  "delta fields; the ai SDK's \`reasoning_content ?? reasoning\` on \`choices[0]\`; LangChain's chunk" \
  "merge; openai-python's stream helper's \`accumulate_delta\`; the Agents SDK's \`reasoning\`-only" \
  "choice 0), then each client's view judged against the reference. It does not run the stream," \
  "tool, reasoning and message rules, nor the models' error paths (what each client raises on a" \
  "broken stream, which a clean one never takes): oacheck still does more. The schema-only peer" \
  "(\`bench/peer_pipeline.mjs\`: a minimal accumulator, no client) is the one earlier figures used."
echo
echo "| | MB/s | chunks/s | peak RSS |"
echo "|---|---:|---:|---:|"
echo "| oacheck | $(kv mb_s "$ours") | $(human "$(kv events_s "$ours")") | $(kv rss_kb "$ours") KiB |"
echo "| Node peer, same work | $(kv mb_s "$peer") | $(human "$(kv events_s "$peer")") | $(kv rss_kb "$peer") KiB |"
echo "| Node peer, schema only | $(kv mb_s "$peer_min") | $(human "$(kv events_s "$peer_min")") | $(kv rss_kb "$peer_min") KiB |"
echo "| **oacheck / Node, same work** | **$(ratio "$(kv mb_s "$ours")" "$(kv mb_s "$peer")")×** | | |"
echo "| oacheck / Node, schema only | $(ratio "$(kv mb_s "$ours")" "$(kv mb_s "$peer_min")")× | | |"
echo
echo "The two agree on every client: the peer's verdicts (\`clients=\`: openai-node, -stream, ai-sdk," \
  "langchain, openai-python, -stream, openai-agents-chat; outcome/reasoning) are the ones oacheck" \
  "gives. Findings on this clean stream (its chunks carry no \`logprobs\`): $(kv findings "$ours"), all at info:" \
  "REASONING-FIELD (the reasoning comes in \`reasoning_content\`, which the Agents SDK" \
  "does not read), CHAT-SIZE (the results keep 1 MiB of the rebuilt text) and CLIENT-BREAKS (the" \
  "stream ends in \`length\`, on which openai-python's stream helper raises, as it does on OpenAI's" \
  "own answers)."
echo
echo "The stream without reasoning (\`bench/stream.sse\`, see the SSE section), against the" \
  "schema-only peer as before: oacheck $(kv mb_s "$ours_plain") MB/s, Node $(kv mb_s "$peer_plain") MB/s," \
  "$(ratio "$(kv mb_s "$ours_plain")" "$(kv mb_s "$peer_plain")")×."
echo
echo "Memory does not grow with the stream: \`bench_pipeline --gigabyte\` runs one stream of" \
  "$(kv bytes "$giga") bytes ($(human "$(kv events "$giga")") chunks without reasoning, generated on the fly," \
  "never held whole) through the same path at $(kv mb_s "$giga") MB/s; peak RSS of the whole process:" \
  "**$(awk -v k="$(kv rss_kb "$giga")" 'BEGIN { printf "%.1f", k / 1024 }') MiB**." \
  "The rebuilt content stops at its 16 MiB cap (reported as such), the ITL samples at 1M."
echo
echo "Commands (from the build directory):"
echo
echo '```'
echo "bench/gen_stream -r 200000 bench/stream-reasoning.sse"
echo "OACHECK_DATADIR=\$srcdir bench/bench_pipeline --runs $runs bench/stream-reasoning.sse"
echo "OACHECK_DATADIR=\$srcdir bench/bench_pipeline --runs $runs bench/stream.sse"
echo "OACHECK_DATADIR=\$srcdir bench/bench_pipeline --gigabyte"
echo "node \$srcdir/bench/peer_clients.mjs --runs $runs --schemas \$srcdir/schemas bench/stream-reasoning.sse"
echo "node \$srcdir/bench/peer_pipeline.mjs --runs $runs --schemas \$srcdir/schemas bench/stream-reasoning.sse"
echo "node \$srcdir/bench/peer_pipeline.mjs --runs $runs --schemas \$srcdir/schemas bench/stream.sse"
echo '```'
echo
echo "Raw lines:"
echo
echo '```'
printf '%s\n%s\n%s\n%s\n%s\n%s\n' "$ours" "$peer" "$peer_min" "$ours_plain" "$peer_plain" "$giga" | sed '/^$/d'
echo '```'
echo
