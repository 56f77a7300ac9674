#!/bin/sh
# import-recordings.sh — regenerate the committed cassettes from the team's
# raw recordings (../shared/recordings), then the file lists in
# mk/replay.am.  Run from the source tree:
#   scripts/import-recordings.sh BUILDDIR/src/oacheck ../shared/recordings
# The program never reads ../shared: what this writes is committed.
# Cassettes are deterministic, so an unchanged recording re-imports to
# identical bytes.
set -eu
bin=${1:?usage: scripts/import-recordings.sh OACHECK_BIN RAW_RECORDINGS_DIR}
raw=${2:?usage: scripts/import-recordings.sh OACHECK_BIN RAW_RECORDINGS_DIR}
test -f mk/replay.am || { echo "run me from the source tree" >&2; exit 2; }

rm -rf suites/recordings/llama-server tests/data/recordings

# llama-server, live: the shipped default target.  These are already
# cassettes (written by `oacheck record`, with arrival times): copied as
# they are, with the README that says where they come from kept in the
# tree (suites/recordings/llama-server/README.md is ours, not the raw one).
mkdir -p suites/recordings/llama-server
cp "$raw/llama-server-live/"*.cassette.gz suites/recordings/llama-server/
git checkout -- suites/recordings/llama-server/README.md 2>/dev/null ||
  echo "note: restore suites/recordings/llama-server/README.md from git" >&2

# The same server under concurrency (a shared context running out): test
# data for the deployment diagnoses and `oacheck serve --overload`.
mkdir -p tests/data/recordings/llama-server-concurrency
cp "$raw/llama-server-concurrency/"*.cassette.gz "$raw/llama-server-concurrency/README.md" \
  tests/data/recordings/llama-server-concurrency/

# llama-server, recorded with curl: test data whose exact bytes tests use
# (chat-stream.wire's HTTP chunks, the names X-Oacheck-Case selects).
# Recordings that index.json marks test_only (they steer the tiny model
# with logit_bias) go to tests/data/recordings/llama-server; the
# templates/<name>/ captures are shipped (`oacheck templates` with no
# target compares them).
"$bin" record --import "$raw/llama-server" \
  --out tests/data/recordings/llama-server-curl \
  --test-only-out tests/data/recordings/llama-server \
  --server "llama.cpp b10587-3f545becc"
mv tests/data/recordings/llama-server-curl/templates suites/recordings/llama-server/templates
git checkout -- tests/data/recordings/llama-server-curl/README.md 2>/dev/null ||
  echo "note: restore tests/data/recordings/llama-server-curl/README.md from git" >&2

# Other servers' recordings (from public sources) are test data for the
# rules.  LM Studio's unknown-endpoint sample has no method/path in its
# index; its README gives them ("path is /chat/completions", and the body
# itself says "POST /chat/completions").
for s in openai vllm ollama tgi sglang lmstudio litellm; do
  set --
  if [ "$s" = lmstudio ]; then
    set -- --route "error-unknown-endpoint-200=POST /chat/completions"
  fi
  "$bin" record --import "$raw/$s" --out "tests/data/recordings/$s" "$@"
done

sh scripts/replay-lists.sh --update
