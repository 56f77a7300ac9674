#!/bin/sh
# section-30-pipeline.sh — the whole streaming path (framing + JSON decode
# + chunk schema + accumulator + stream and message rules, through
# oc_response) against the Node peer the streaming issue names
# (eventsource-parser + JSON.parse + ajv 8 compiled chunk schema + a
# minimal accumulator), same stream, same 16 KiB pieces, same invocation.
set -eu
. "$BENCH_SRCDIR/bench/lib.sh"

b=$BENCH_BUILDDIR/bench
stream=$b/stream.sse
runs=$BENCH_RUNS
[ -f "$stream" ] || "$b/gen_stream" "$stream" 2>/dev/null

ours=$(OACHECK_DATADIR="$BENCH_SRCDIR" "$b/bench_pipeline" --runs "$runs" "$stream")
giga=$(OACHECK_DATADIR="$BENCH_SRCDIR" "$b/bench_pipeline" --gigabyte)
peer=""
if have_peer && [ -d "$BENCH_SRCDIR/tests/node/node_modules/ajv" ]; then
  peer=$("$NODE" "$BENCH_SRCDIR/bench/peer_pipeline.mjs" --runs "$runs" --schemas "$BENCH_SRCDIR/schemas" "$stream")
fi

echo "## The whole streaming path: framing, decoding, chunk schema, accumulator, rules"
echo
echo "Input: \`bench/stream.sse\` (see the SSE section), fed in 16 KiB pieces from memory" \
  "through \`oc_response\` exactly as a live case is (llama-server profile); best of $runs runs."
echo "The peer is Node with eventsource-parser, \`JSON.parse\`, an ajv 8 compiled" \
  "\`chat.completion.chunk\` schema and a minimal accumulator: it checks the schema and" \
  "nothing else, while oacheck also runs every stream and tool rule and the six client" \
  "models (docs/clients.md) with their reference reassembly."
echo
echo "| | MB/s | chunks/s | peak RSS |"
echo "|---|---:|---:|---:|"
echo "| oacheck | $(kv mb_s "$ours") | $(human "$(kv events_s "$ours")") | $(kv rss_kb "$ours") KiB |"
echo "| Node peer | $(kv mb_s "$peer") | $(human "$(kv events_s "$peer")") | $(kv rss_kb "$peer") KiB |"
echo "| oacheck / Node | $(ratio "$(kv mb_s "$ours")" "$(kv mb_s "$peer")")× | | |"
echo
echo "Findings on this clean stream: $(kv findings "$ours") (the generator's chunks carry no \`logprobs\`;" \
  "the two expected are at info: CHAT-SIZE, the results keeping 1 MiB of the rebuilt text, and" \
  "CLIENT-BREAKS: it ends in \`length\`, on which openai-python's stream helper raises, as it" \
  "does on OpenAI's own answers)."
echo
echo "Memory does not grow with the stream: \`bench_pipeline --gigabyte\` runs one stream of" \
  "$(kv bytes "$giga") bytes ($(human "$(kv events "$giga")") chunks, generated on the fly, never held whole)" \
  "through the same path at $(kv mb_s "$giga") MB/s; peak RSS of the whole process:" \
  "**$(awk -v k="$(kv rss_kb "$giga")" 'BEGIN { printf "%.1f", k / 1024 }') MiB**." \
  "The rebuilt content stops at its 16 MiB cap (reported as such), the ITL samples at 1M."
echo
echo "Commands (from the build directory):"
echo
echo '```'
echo "OACHECK_DATADIR=\$srcdir bench/bench_pipeline --runs $runs bench/stream.sse"
echo "OACHECK_DATADIR=\$srcdir bench/bench_pipeline --gigabyte"
echo "node \$srcdir/bench/peer_pipeline.mjs --runs $runs --schemas \$srcdir/schemas bench/stream.sse"
echo '```'
echo
echo "Raw lines:"
echo
echo '```'
printf '%s\n%s\n%s\n' "$ours" "$peer" "$giga" | sed '/^$/d'
echo '```'
echo
