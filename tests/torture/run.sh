#!/bin/sh
# run.sh — the allocation-failure run in `make check`: tests/torture/torture
# over every input of the corpus, one process per file (so a crash names
# its file and one slow input cannot hold the others), then the number of
# allocation points failed, per file (the torture lines) and in total.
#
# The corpus: every rule test file (tests/rules/*/*.test: a breaking and
# a clean exchange for each rule, read as `oacheck check` reads them), the
# fuzz seeds (real streams in fuzz_input.h's format) and a few real
# recordings that add what hand-written files do not have: many pieces
# with their arrival times, a requested schema, n > 1, a partial stream,
# other servers' shapes.  Then the seeds of four more fuzz targets,
# written into $TMP by `tests/fuzz/run.sh --seeds` and each run with its
# --kind, taken as that target takes it: schema (a schema compiled, an
# instance validated on both paths), suite (a suite loaded, every case's
# request built), exchange (a raw capture read, converted, decoded) and
# results (a results file read a result at a time, as report render reads
# it).
# TORTURE_ALL=1 adds every recording (about a minute more) and every
# schema seed (about 20 s more).
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

bin="${OACHECK_BUILDDIR:-$(pwd)}/tests/torture/torture"
[ -x "$bin" ] || fail "tests/torture/torture is not built"
cd "$OACHECK_SRCDIR" || fail "no source tree at $OACHECK_SRCDIR"

# the profile a recording is judged under: its server's, else openai's
profile_of() {
  case "$1" in
    */recordings/llama-server/*|*/recordings/llama-server-*/*) echo llama-server ;;
    */recordings/vllm/*) echo vllm ;;
    */recordings/ollama/*) echo ollama ;;
    *) echo openai ;;
  esac
}

if [ "${TORTURE_ALL:-0}" = 1 ]; then
  recordings=$(find suites/recordings tests/data/recordings -name '*.cassette.gz' | LC_ALL=C sort)
else
  ls=tests/data/recordings/llama-server-curl # the curl captures, by their names
  td=tests/data/recordings
  recordings="$ls/chat-basic.cassette.gz $ls/chat-stream.wire.cassette.gz
    $ls/chat-n-2-stream.cassette.gz $ls/json-schema-stream.cassette.gz
    $ls/logprobs-stream.cassette.gz $td/llama-server/tools-parallel-stream.cassette.gz
    $td/openai/tools-strict-stream.cassette.gz $td/vllm/stream-missing-finish-reason-partial.cassette.gz
    $td/tgi/error-422-context-length.cassette.gz"
fi

files=0 points=0 bad=0
log=$TMP/torture.log
# one FILE OPTION... : torture FILE with the options, counted
one() {
  f=$1; shift
  files=$((files + 1))
  rc=0
  "$bin" "$@" "$f" > "$log" 2>&1 || rc=$?
  cat "$log"
  n=$(sed -n 's/^torture: .*: \([0-9][0-9]*\) allocation points failed.*/\1/p' "$log")
  points=$((points + ${n:-0}))
  if [ "$rc" -ne 0 ]; then
    [ "$rc" -eq 1 ] || echo "torture: $f: the program ended with status $rc (a crash, or a setup error)"
    bad=$((bad + 1))
  fi
}
for f in tests/rules/*/*.test tests/fuzz/seeds/* $recordings; do
  [ -f "$f" ] || fail "$f: not in the source tree"
  one "$f" --profile "$(profile_of "$f")"
done
# The other fuzz targets' seeds.  Every suite and exchange seed runs (a
# dozen suites, about 60 captures: some 12 s together).  Of the schema
# seeds, the hand-made ones (the combinators, patterns, dynamic and
# draft-7 references that once hung or fooled the validator) all run, and
# of shipped-N (each shipped schema with four instances in turn) one
# instance per schema, a different one for each next schema, so that the
# compile of every shipped schema and each instance are all failed through
# in about a quarter of the time; TORTURE_ALL=1 runs the other three too.
seeds=$TMP/seeds
sh tests/fuzz/run.sh --seeds "$seeds" schema suite exchange results > "$log" 2>&1 ||
  { cat "$log"; fail "tests/fuzz/run.sh --seeds could not write the seeds"; }
for kind in schema suite exchange results; do
  [ -n "$(ls "$seeds/$kind" 2>/dev/null)" ] || fail "tests/fuzz/run.sh --seeds wrote no $kind seed"
  for f in "$seeds/$kind"/*; do
    case ${TORTURE_ALL:-0}:$f in
      0:*/shipped-*)
        n=${f##*/shipped-}
        [ $(((n - 1) % 4)) -eq $((((n - 1) / 4) % 4)) ] || continue ;;
    esac
    one "$f" --kind "$kind"
  done
done
echo "torture: $files files, $points allocation points failed one at a time in all, $bad file(s) did not hold"
[ "$bad" -eq 0 ] || echo "torture: a seed under $seeds is gone with this run; 'sh tests/fuzz/run.sh --seeds DIR schema suite exchange results' writes them again into DIR/KIND"
[ "$bad" -eq 0 ] || fail "the allocation-failure run found $bad file(s) where a failed allocation crashed, leaked or changed a verdict silently"
pass "every allocation of the decoder, the schema validator, the suite loader, the capture reader and the results reader failed in turn over $files files ($points points): each run ended with OC_ENOMEM or the same result, and nothing leaked"
