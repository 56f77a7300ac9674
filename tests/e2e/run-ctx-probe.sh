#!/bin/sh
# run-ctx-probe.sh — the context-overflow suite against crafted llama-server
# exchanges (tests/data/crafted/README.md): target identification counts
# tokens through /apply-template and /tokenize, the N-1 / N / N+1 probes and
# the recovery turn run, a well-behaved server passes them all, and one
# that answers overflow with a 500 or an in-band stream error fails exactly
# those cases with the rules that say why.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
C="$OACHECK_SRCDIR/tests/data/crafted"
# the suite these exchanges were crafted for: its overflow case sent 1,200
# words then, N_CTX words now (tests/data/suites/tiny-random/README.md)
CO="$OACHECK_SRCDIR/tests/data/suites/tiny-random/context-overflow.json"

expect_status 1 "$OACHECK" run "$CO" --replay "$C/ctx-probe" --replay "$C/ctx-probe-inband" --json "$TMP/r.json"
sed -n 's/^\(PASS\|FAIL\|SKIP\|ERROR\) *\([^ ]*\) \([^ ]*\).*/\1 \2 \3/p' "$TMP/out" | sort > "$TMP/got"
cat > "$TMP/want" <<'EOV'
FAIL ctx-probe-inband context-overflow/at-limit
FAIL ctx-probe-inband context-overflow/over-by-one
FAIL ctx-probe-inband context-overflow/over-by-one-stream
FAIL ctx-probe-inband context-overflow/overflow
FAIL ctx-probe-inband context-overflow/overflow-stream
FAIL ctx-probe-inband context-overflow/recovery-overflow
PASS ctx-probe context-overflow/at-limit
PASS ctx-probe context-overflow/over-by-one
PASS ctx-probe context-overflow/over-by-one-stream
PASS ctx-probe context-overflow/overflow
PASS ctx-probe context-overflow/overflow-stream
PASS ctx-probe context-overflow/recovery
PASS ctx-probe context-overflow/recovery-overflow
PASS ctx-probe context-overflow/under-by-one
PASS ctx-probe context-overflow/under-limit
PASS ctx-probe-inband context-overflow/recovery
PASS ctx-probe-inband context-overflow/under-by-one
PASS ctx-probe-inband context-overflow/under-limit
EOV
sort "$TMP/want" > "$TMP/want.sorted"
cmp -s "$TMP/got" "$TMP/want.sorted" || { diff -u "$TMP/want.sorted" "$TMP/got" >&2; fail "context-overflow verdicts"; }
pass "probes N-1/N/N+1 and recovery: 18 verdicts"

# the probe found the window and the words for each size
expect_grep '"n_ctx":[[:space:]]*128' "$TMP/r.json"
expect_grep '"prompt_tokens_per_word":[[:space:]]*1' "$TMP/r.json"
# the in-band server is caught by the rules that name its behaviour
expect_grep 'CTX-OVERFLOW-STATUS error: a prompt over the context window gets HTTP 500' "$TMP/out"
# (the early in-band error itself is a warning: every client surfaces its
# message; the context contract is what fails)
expect_grep '"rule":[[:space:]]*"STREAM-EARLY-ERROR"' "$TMP/r.json"
pass "overflow as 500 and as an in-band stream error are named"

# the curl captures hold no token-count probes: skipped, saying why
expect_status 0 "$OACHECK" run context-overflow --filter '*by-one*' \
  --replay "$OACHECK_SRCDIR/tests/data/recordings/llama-server-curl"
expect_grep '^SKIP +llama-server-curl context-overflow/over-by-one \(not recorded: the token-count probes' "$TMP/out"
pass "without recorded probes the cases are skipped with the reason"

# the shipped (live) recordings hold them: the probes run
expect_status 0 "$OACHECK" run context-overflow --filter '*by-one*'
expect_grep '^PASS +llama-server context-overflow/over-by-one ' "$TMP/out"
expect_no_grep '^SKIP' "$TMP/out"
pass "the shipped recordings answer the probes"
