#!/bin/sh
# section-10-sse.sh — SSE framing, and framing plus JSON decoding, of a
# long llama-server-like stream: oacheck (sse.c + jdoc.c) against the
# Node peer (eventsource-parser, JSON.parse) on the same bytes, fed in the
# same 16 KiB pieces, best of BENCH_RUNS runs each, both measured in this
# invocation.  Prints one markdown section to stdout.
set -eu
. "$BENCH_SRCDIR/bench/lib.sh"

b=$BENCH_BUILDDIR/bench
stream=$b/stream.sse
runs=$BENCH_RUNS
"$b/gen_stream" "$stream" 2>/dev/null

echo "## SSE: framing and chunk decoding"
echo
echo "Input: \`bench/gen_stream bench/stream.sse\` — $(wc -c <"$stream" | tr -d ' ') bytes," \
  "400,000 events shaped like llama-server's \`chat.completion.chunk\` stream" \
  "(role chunk, content chunks with ASCII, Cyrillic, CJK, emoji and JSON escapes," \
  "a finish chunk with timings, \`data: [DONE]\`). Fed in 16 KiB pieces from memory;" \
  "best of $runs runs. MB = 10^6 bytes."
echo
echo "- *frame*: SSE framing alone, events counted."
echo "- *decode*: framing plus parsing every data payload as JSON and reading" \
  "\`choices[0].delta.content\` (oacheck: \`jdoc\`; Node: \`JSON.parse\`)."
echo
echo "| mode | oacheck MB/s | oacheck events/s | Node MB/s | Node events/s | oacheck / Node |"
echo "|---|---:|---:|---:|---:|---:|"
cmds=""
for mode in frame decode; do
  ours=$("$b/bench_sse" --mode "$mode" --runs "$runs" "$stream")
  cmds="$cmds
bench/bench_sse --mode $mode --runs $runs bench/stream.sse"
  peer=""
  if have_peer; then
    peer=$("$NODE" "$BENCH_SRCDIR/bench/peer_sse.mjs" --mode "$mode" --runs "$runs" "$stream")
    cmds="$cmds
node \$srcdir/bench/peer_sse.mjs --mode $mode --runs $runs bench/stream.sse"
  fi
  echo "| $mode | $(kv mb_s "$ours") | $(human "$(kv events_s "$ours")") | $(kv mb_s "$peer") | $(human "$(kv events_s "$peer")") | $(ratio "$(kv mb_s "$ours")" "$(kv mb_s "$peer")")× |"
  eval "ours_$mode=\$ours; peer_$mode=\$peer"
done
echo
echo "Peak RSS of those processes (whole stream held in memory by both):" \
  "oacheck frame $(kv rss_kb "$ours_frame") KiB, decode $(kv rss_kb "$ours_decode") KiB;" \
  "Node frame $(kv rss_kb "$peer_frame") KiB, decode $(kv rss_kb "$peer_decode") KiB."
echo

echo "### Memory does not grow with the stream"
echo
echo "\`bench_sse --gigabyte\` generates 4 MiB of content chunks once and replays" \
  "them as one 1 GiB stream (16 KiB pieces, one run); peak RSS is the whole process."
echo
echo "| mode | bytes | MB/s | events/s | peak RSS |"
echo "|---|---:|---:|---:|---:|"
for mode in frame decode; do
  g=$("$b/bench_sse" --mode "$mode" --gigabyte)
  cmds="$cmds
bench/bench_sse --mode $mode --gigabyte"
  echo "| $mode | $(kv bytes "$g") | $(kv mb_s "$g") | $(human "$(kv events_s "$g")") | $(( $(kv rss_kb "$g") / 1024 )) MiB |"
done
echo
echo "Commands (from the build directory):"
echo
echo '```'
printf '%s\n' "$cmds" | sed '/^$/d'
echo '```'
echo
if ! have_peer; then
  echo "Node or tests/node/node_modules was not available: no peer figures."
  echo
fi
echo "Raw lines:"
echo
echo '```'
for v in "$ours_frame" "$peer_frame" "$ours_decode" "$peer_decode"; do
  [ -n "$v" ] && printf '%s\n' "$v"
done
echo '```'
echo
