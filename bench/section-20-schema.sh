#!/bin/sh
# section-20-schema.sh — JSON Schema validation of every chunk of the
# streaming benchmark's stream against the shipped chat.completion.chunk
# schema: oacheck (jdoc + schema.c) against ajv 8 (JSON.parse + compiled
# validator) on the same payloads, best of BENCH_RUNS runs each, both in
# this invocation.  Prints one markdown section to stdout.
set -eu
. "$BENCH_SRCDIR/bench/lib.sh"

b=$BENCH_BUILDDIR/bench
stream=$b/stream.sse
runs=$BENCH_RUNS
schemas=$BENCH_SRCDIR/schemas
[ -f "$stream" ] || "$b/gen_stream" "$stream" 2>/dev/null

have_ajv() {
  [ -n "${NODE:-}" ] && [ -x "$NODE" ] && [ -d "$BENCH_SRCDIR/tests/node/node_modules/ajv" ]
}

echo "## JSON Schema: validating streamed chunks"
echo
echo "Input: the data payloads of \`bench/stream.sse\` (see the SSE section):" \
  "399,999 \`chat.completion.chunk\` documents, cut out of the file before timing." \
  "Schema: \`schemas/chat.completion.chunk.json\` (with the \`common.json\` it refers to)," \
  "compiled once outside the timed loop. Best of $runs runs, one core. MB = 10^6 bytes."
echo
echo "- *parse*: reading each document alone (oacheck: \`jdoc\`; Node: \`JSON.parse\`)."
echo "- *fast*: reading plus validation with no error collection (oacheck:" \
  "\`oc_schema_validate(s, doc, NULL)\`; ajv 8 \`Ajv2020\`, \`strict: false\`," \
  "\`validateFormats: false\`, \`allErrors: false\`)."
echo "- *report*: oacheck validating with a result, as a report does (paths kept)."
echo
echo "| mode | oacheck docs/s | oacheck MB/s | ajv docs/s | ajv MB/s | oacheck / ajv |"
echo "|---|---:|---:|---:|---:|---:|"
cmds=""
raw=""
for mode in parse fast report; do
  ours=$("$b/bench_schema" --mode "$mode" --runs "$runs" --schemas "$schemas" "$stream")
  cmds="$cmds
bench/bench_schema --mode $mode --runs $runs --schemas \$srcdir/schemas bench/stream.sse"
  peer=""
  if [ "$mode" != report ] && have_ajv; then
    peer=$("$NODE" "$BENCH_SRCDIR/bench/peer_schema.mjs" --mode "$mode" --runs "$runs" --schemas "$schemas" "$stream")
    cmds="$cmds
node \$srcdir/bench/peer_schema.mjs --mode $mode --runs $runs --schemas \$srcdir/schemas bench/stream.sse"
  fi
  echo "| $mode | $(human "$(kv docs_s "$ours")") | $(kv mb_s "$ours") | $(human "$(kv docs_s "$peer")") | $(kv mb_s "$peer") | $(ratio "$(kv docs_s "$ours")" "$(kv docs_s "$peer")")× |"
  raw="$raw
$ours
$peer"
  if [ "$mode" = fast ]; then ours_fast=$ours; peer_fast=$peer; fi
done
echo
echo "Schema compilation: oacheck $(kv compile_ms "$ours_fast") ms, ajv $(kv compile_ms "$peer_fast") ms" \
  "(ajv generates and compiles JavaScript)."
echo
echo "Commands (from the build directory):"
echo
echo '```'
printf '%s\n' "$cmds" | sed '/^$/d'
echo '```'
echo
if ! have_ajv; then
  echo "Node or tests/node/node_modules/ajv was not available: no ajv figures."
  echo
fi
echo "Raw lines:"
echo
echo '```'
printf '%s\n' "$raw" | sed '/^$/d'
echo '```'
echo
