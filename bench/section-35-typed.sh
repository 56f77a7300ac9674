#!/bin/sh
# section-35-typed.sh — the Responses and Messages stream paths: oacheck's
# typed-event decoders (responses.c, messages.c through oc_response:
# framing, JSON, the event union schema, the state machine, the joins
# against the .done and final values) on a long generated stream of each
# (bench/gen_stream -a: a reasoning phase, a text answer, two function
# calls with argument deltas, every event named by an `event:` line),
# against bench/peer_typed.mjs, a Node peer doing the same work with the
# events (eventsource-parser, JSON.parse, ajv 8 over the same event
# schema, the reference accumulation).  Each side runs
# BENCH_TYPED_RUNS times (default 5) as separate processes, alternating,
# each the best of two passes over the stream; the table gives min /
# median / max over those runs and the ratio of the medians.
set -eu
. "$BENCH_SRCDIR/bench/lib.sh"

b=$BENCH_BUILDDIR/bench
runs=${BENCH_TYPED_RUNS:-5}
events=${BENCH_TYPED_EVENTS:-400000}
reasoning=$((events / 4))
export OACHECK_DATADIR="$BENCH_SRCDIR"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/oacheck-bench-typed.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "## The Responses and Messages stream paths: framing, decoding, event schema, state machine, joins"
echo
peer=0
if have_peer && [ -d "$BENCH_SRCDIR/tests/node/node_modules/ajv" ]; then
  peer=1
fi
load_before=$(bench_load)
for api in responses messages; do
  stream=$b/stream-$api.sse
  [ -f "$stream" ] || "$b/gen_stream" -a "$api" -n "$events" -r "$reasoning" "$stream" 2>/dev/null
  : >"$tmp/ours.$api"
  : >"$tmp/peer.$api"
  for r in $(seq "$runs"); do
    o=$("$b/bench_pipeline" --runs 2 --api "$api" "$stream")
    echo "$o" >>"$tmp/ours.$api"
    [ "$peer" = 0 ] ||
      "$NODE" "$BENCH_SRCDIR/bench/peer_typed.mjs" --api "$api" --runs 2 --schemas "$BENCH_SRCDIR/schemas" \
        "$stream" >>"$tmp/peer.$api"
  done
done
load_after=$(bench_load)

# col FILE KEY: the KEY values of every line of FILE, space-separated
col() {
  while IFS= read -r line; do kv "$2" "$line"; done <"$1" | tr '\n' ' '
}

echo "Inputs (\`bench/gen_stream -a API -n $events -r $reasoning\`): $(human "$events") events each," \
  "every one with its \`event:\` line.  *Responses*, in OpenAI's shape (sequence_number," \
  "output_index, content_index, item_id on every event): response.created, in_progress; a reasoning" \
  "item of $(human "$reasoning") \`reasoning_text\` deltas; a message item (content_part.added," \
  "\`output_text\` deltas, output_text.done, content_part.done); two \`function_call\` items whose" \
  "arguments (one JSON object each, with UTF-8, an escaped newline and quotes) arrive in" \
  "\`function_call_arguments\` deltas; every item closed by output_item.done with its whole text;" \
  "response.completed with every item and the usage.  *Messages*: message_start, ping; a thinking" \
  "block ($(human "$reasoning") thinking deltas, a signature), a text block, two tool_use blocks" \
  "(\`input_json_delta\` pieces), message_delta (tool_use, usage), message_stop.  The texts are" \
  "stream_gen.h's tokens (ASCII, Cyrillic, CJK, emoji, JSON escapes), one or two per delta."
echo
echo "oacheck: \`bench_pipeline --api responses|messages\` feeds the stream in 16 KiB pieces from memory" \
  "through \`oc_response\` as a live case is (a request declaring the called tool): SSE framing, each" \
  "event parsed, validated against \`schemas/responses/stream-event.json\` or" \
  "\`schemas/messages/stream-event.json\` (an event whose shape already validated is not validated" \
  "again: typed_events.c), the protocol's state machine (order, sequence numbers, indexes, item" \
  "ids, blocks opened and closed), texts and arguments joined as length and hash and checked" \
  "against the .done events, output_item.done and the final response, the tool's arguments" \
  "against its parameters, timing.  The Node peer (\`bench/peer_typed.mjs\`): eventsource-parser in" \
  "the same pieces, each \`event:\` name against its data's type, \`JSON.parse\`, ajv 8 with the" \
  "same schema compiled once (its compilation not timed), and the reference accumulation:" \
  "items (or blocks) rebuilt by index, deltas joined with \`+=\`, the joins checked against" \
  "every .done and final value, arguments and tool inputs parsed as JSON, the order of events." \
  "oacheck still does more: the arguments against the tool's parameters, the timing, the results."
echo
echo "Each side runs as $runs separate processes, alternating, each the best of two passes over the" \
  "stream; min / median / max over those processes.  Load before: $load_before.  After: $load_after."
echo
echo "| stream | bytes | oacheck MB/s, min / median / max | Node MB/s, min / median / max | oacheck / Node, medians | per-run ratios |"
echo "|---|---:|---:|---:|---:|---:|"
for api in responses messages; do
  last=$(tail -n 1 "$tmp/ours.$api")
  o=$(col "$tmp/ours.$api" mb_s)
  p=$(col "$tmp/peer.$api" mb_s)
  mo=$(printf '%s\n' "$o" | bench_median)
  mp=$(printf '%s\n' "$p" | bench_median)
  echo "| $api | $(kv bytes "$last") | $(printf '%s\n' "$o" | bench_spread1) |" \
    "$(printf '%s\n' "$p" | bench_spread1) | **$(ratio "$mo" "$mp")×** | $(bench_ratio_range "$o" "$p") |"
done
echo
ro=$(tail -n 1 "$tmp/ours.responses")
rp=$(tail -n 1 "$tmp/peer.responses" 2>/dev/null || true)
mo=$(tail -n 1 "$tmp/ours.messages")
mp=$(tail -n 1 "$tmp/peer.messages" 2>/dev/null || true)
echo "The two agree on what they rebuilt: text and arguments $(kv content_bytes "$ro") and" \
  "$(kv content_bytes "$mo") bytes, reasoning $(kv reasoning_bytes "$ro") and $(kv reasoning_bytes "$mo")" \
  "bytes (oacheck, Responses and Messages); the peer's $(kv content_bytes "$rp") and $(kv content_bytes "$mp")," \
  "$(kv reasoning_bytes "$rp") and $(kv reasoning_bytes "$mp").  Findings on these clean streams: oacheck" \
  "$(kv findings "$ro") and $(kv findings "$mo"); the peer's schema failures $(kv invalid "$rp") and" \
  "$(kv invalid "$mp"), mismatches $(kv mismatches "$rp") and $(kv mismatches "$mp").  Peak RSS (whole" \
  "stream held in memory by both): oacheck $(kv rss_kb "$ro") and $(kv rss_kb "$mo") KiB, Node" \
  "$(kv rss_kb "$rp") and $(kv rss_kb "$mp") KiB; ajv compiled the two schemas in $(kv compile_ms "$rp")" \
  "and $(kv compile_ms "$mp") ms."
echo
echo "Commands (from the build directory):"
echo
echo '```'
for api in responses messages; do
  echo "bench/gen_stream -a $api -n $events -r $reasoning bench/stream-$api.sse"
  echo "OACHECK_DATADIR=\$srcdir bench/bench_pipeline --runs 2 --api $api bench/stream-$api.sse"
  echo "node \$srcdir/bench/peer_typed.mjs --api $api --runs 2 --schemas \$srcdir/schemas bench/stream-$api.sse"
done
echo '```'
echo
echo "Raw lines (per stream, oacheck's runs, then the peer's):"
echo
echo '```'
for api in responses messages; do
  cat "$tmp/ours.$api" "$tmp/peer.$api"
done
echo '```'
echo
