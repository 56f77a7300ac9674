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

# llama-server: the shipped default target.  Recordings that index.json
# marks test_only (they steer the tiny model with logit_bias) go to the
# tests instead; templates/<name>/ keep their subdirectories.
"$bin" record --import "$raw/llama-server" \
  --out suites/recordings/llama-server \
  --test-only-out tests/data/recordings/llama-server \
  --server "llama.cpp b10587-3f545becc"

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
