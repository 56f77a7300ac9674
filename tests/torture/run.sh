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
# other servers' shapes.  TORTURE_ALL=1 adds every recording (about a
# minute more).
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
for f in tests/rules/*/*.test tests/fuzz/seeds/* $recordings; do
  [ -f "$f" ] || fail "$f: not in the source tree"
  files=$((files + 1))
  rc=0
  "$bin" --profile "$(profile_of "$f")" "$f" > "$log" 2>&1 || rc=$?
  cat "$log"
  n=$(sed -n 's/^torture: .*: \([0-9][0-9]*\) allocation points failed.*/\1/p' "$log")
  points=$((points + ${n:-0}))
  if [ "$rc" -ne 0 ]; then
    [ "$rc" -eq 1 ] || echo "torture: $f: the program ended with status $rc (a crash, or a setup error)"
    bad=$((bad + 1))
  fi
done
echo "torture: $files files, $points allocation points failed one at a time in all, $bad file(s) did not hold"
[ "$bad" -eq 0 ] || fail "the allocation-failure run found $bad file(s) where a failed allocation crashed, leaked or changed a verdict silently"
pass "every allocation of the decoder failed in turn over $files files ($points points): each run ended with OC_ENOMEM or the same findings, and nothing leaked"
