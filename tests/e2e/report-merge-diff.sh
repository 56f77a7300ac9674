#!/bin/sh
# report-merge-diff.sh — `oacheck report merge` turns the two shards of a
# run into the unsharded run (compared in canonical form, whatever the
# order of the inputs); `report diff` of a run against itself is empty and
# exits 0, against a copy with one injected failure shows exactly that one
# and exits 1; unreadable or invalid input exits 2 naming the file.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
DATA="$OACHECK_SRCDIR/tests/data/results"

# canon IN OUT : canonical JSON without what legitimately differs between
# a merge and the unsharded run (the command lines, how many files, and
# which shards the merge holds: both of the fixtures' two, split by
# position as results from before stable shards were)
canon() {
  expect_status 0 "$OACHECK" report render "$1" --json "$TMP/canon.tmp" --canonical
  sed -e 's/"command":"[^"]*",\{0,1\}//' -e 's/"merged_from":[0-9]*,\{0,1\}//' \
    -e 's/"shards":{"consistent":true,"count":2,"method":"position","targets":\[{"held":\[1,2\],"missing":\[\],"target":"[^"]*"}\]},\{0,1\}//' \
    "$TMP/canon.tmp" >"$2"
}

expect_status 0 "$OACHECK" report merge "$DATA/shard-1.json" "$DATA/shard-2.json" -o "$TMP/m12.json"
expect_status 0 "$OACHECK" report merge "$DATA/shard-2.json" "$DATA/shard-1.json" --output="$TMP/m21.json" \
  --junit "$TMP/m21.xml" --html "$TMP/m21.html"
[ -s "$TMP/m21.xml" ] && [ -s "$TMP/m21.html" ] || fail "merge --junit/--html wrote nothing"
expect_grep '"merged_from":[[:space:]]*2,?$' "$TMP/m12.json"
canon "$TMP/m12.json" "$TMP/m12.canon"
canon "$TMP/m21.json" "$TMP/m21.canon"
canon "$DATA/replay-llama.json" "$TMP/all.canon"
cmp "$TMP/m12.canon" "$TMP/all.canon" || fail "merge of the shards differs from the unsharded run"
cmp "$TMP/m21.canon" "$TMP/all.canon" || fail "merge depends on the order of its inputs"
pass "merge of two shards equals the unsharded run, in either order"

# the merged file is results like any other: it renders, and merges again
expect_status 0 "$OACHECK" report merge "$TMP/m12.json" "$DATA/two-targets.json" -o "$TMP/more.json"
expect_grep '"merged_from":[[:space:]]*3,?$' "$TMP/more.json"
expect_status 0 "$OACHECK" report render "$TMP/more.json"
expect_grep '^29 cases: 14 pass, 5 fail, 6 error, 4 skip' "$TMP/out"
pass "merges merge again, targets of several runs side by side"

expect_status 0 "$OACHECK" report diff "$DATA/replay-llama.json" "$DATA/replay-llama.json"
expect_grep '^no changes$' "$TMP/out"
expect_no_grep '^(newly|status|findings|new cases|removed)' "$TMP/out"
expect_status 0 "$OACHECK" report diff "$DATA/replay-llama.json" "$TMP/m21.json"
expect_grep '^no changes$' "$TMP/out"
pass "diff of a run against itself (and its merged shards) is empty, exit 0"

# one injected failure: chat-basic now fails on its CORS finding
sed -e '/"case": "chat-basic"/,/"status"/ s/"status": "pass"/"status": "fail"/' \
    -e '/"case": "chat-basic"/,/"severity"/ s/"severity": "warning"/"severity": "error"/' \
    "$DATA/replay-llama.json" >"$TMP/broken.json"
cmp -s "$DATA/replay-llama.json" "$TMP/broken.json" && fail "the failure was not injected"
expect_status 1 "$OACHECK" report diff "$DATA/replay-llama.json" "$TMP/broken.json"
expect_grep '^newly failing \(1\):$' "$TMP/out"
expect_grep '^  llama-server-b10587\.plain/chat-basic  pass -> fail$' "$TMP/out"
expect_grep '^      ~ \[error\] HTTP-CORS-ORIGIN: ' "$TMP/out"
[ "$(grep -c '^  [^ ]' "$TMP/out")" = 1 ] || fail "expected exactly one changed case"
expect_grep '^new: 14 cases, 7 pass, 3 fail, 1 error, 3 skip$' "$TMP/out"
expect_status 1 "$OACHECK" report diff "$DATA/replay-llama.json" "$TMP/broken.json" --json
expect_grep '"new_failures":[[:space:]]*1,' "$TMP/out"
expect_grep '"old_status":[[:space:]]*"pass"' "$TMP/out"
[ "$(grep -c '"case":' "$TMP/out")" = 1 ] || fail "--json lists more than one case"
expect_status 0 "$OACHECK" report diff "$TMP/broken.json" "$DATA/replay-llama.json"
expect_grep '^newly passing \(1\):$' "$TMP/out"
pass "one injected failure: shown alone, exit 1; the way back is newly passing, exit 0"

# matched by target name: one target on each side named differently (a
# replay and a live run) is compared with the other, and that is said;
# several with none in common are said to share nothing
sed 's/"llama-server-b10587"/"127.0.0.1-33891"/g' "$DATA/replay-llama.json" >"$TMP/renamed.json"
expect_status 0 "$OACHECK" report diff "$DATA/replay-llama.json" "$TMP/renamed.json"
expect_grep '^note: the runs have one target each, named differently: llama-server-b10587 \(old\) is compared with 127\.0\.0\.1-33891 \(new\)$' "$TMP/out"
expect_grep '^no changes$' "$TMP/out"
sed 's/"llama-server-b10587"/"127.0.0.1-33891"/g' "$TMP/broken.json" >"$TMP/renamed-broken.json"
expect_status 1 "$OACHECK" report diff "$DATA/replay-llama.json" "$TMP/renamed-broken.json" --json
expect_grep '"new_failures":[[:space:]]*1,' "$TMP/out"
expect_grep '"note":[[:space:]]*"the runs have one target each' "$TMP/out"
sed -e 's/"llama-b10587"/"l2"/g' -e 's/"vllm-0.11"/"v2"/g' -e 's/"ollama-laptop"/"o2"/g' "$DATA/two-targets.json" >"$TMP/two-renamed.json"
# (its failing cases are new, so newly failing: exit 1)
expect_status 1 "$OACHECK" report diff "$DATA/two-targets.json" "$TMP/two-renamed.json"
expect_grep '^note: no target in common \(old: [a-z0-9., -]+; new: [a-z0-9, ]+\): cases are matched by target name' "$TMP/out"
expect_grep '^removed cases \(' "$TMP/out"
expect_status 0 "$OACHECK" report diff "$DATA/two-targets.json" "$DATA/two-targets.json"
expect_no_grep '^note:' "$TMP/out"
pass "diff across target names: one each is paired and said; none in common is said"

expect_status 2 "$OACHECK" report diff "$TMP/nonexistent.json" "$DATA/replay-llama.json"
expect_grep "nonexistent\.json" "$TMP/err"
printf '{"oacheck": {"version": "0.1.0",\n  "started": tru' >"$TMP/truncated.json"
expect_status 2 "$OACHECK" report diff "$DATA/replay-llama.json" "$TMP/truncated.json"
expect_grep "truncated\.json:2:" "$TMP/err"
echo '{"targets": []}' >"$TMP/notresults.json"
expect_status 2 "$OACHECK" report merge "$DATA/shard-1.json" "$TMP/notresults.json" -o "$TMP/x.json"
expect_grep "notresults\.json: at / \(the root\): required member \"oacheck\" is missing" "$TMP/err"
sed -e '0,/"status": "pass"/ s/"status": "pass"/"status": "passed"/' "$DATA/replay-llama.json" >"$TMP/badstatus.json"
expect_status 2 "$OACHECK" report render "$TMP/badstatus.json" --junit "$TMP/x.xml"
expect_grep "badstatus\.json: at /results/0/status: expected one of pass, fail, error, skip" "$TMP/err"
[ ! -e "$TMP/x.xml" ] || fail "a report was written from invalid results"
pass "unreadable or invalid input: exit 2, the file and the JSON pointer named"

expect_status 2 "$OACHECK" report
expect_status 2 "$OACHECK" report frob
expect_grep "unknown verb 'frob'" "$TMP/err"
expect_status 2 "$OACHECK" report diff "$DATA/replay-llama.json"
expect_status 2 "$OACHECK" report merge -o "$TMP/x.json"
expect_status 2 "$OACHECK" report render "$DATA/replay-llama.json" --junit
expect_grep "option .--junit. needs a value" "$TMP/err"
for verb in render merge diff; do
  expect_status 0 "$OACHECK" report "$verb" --help
  expect_grep "^Usage: oacheck report $verb" "$TMP/out"
done
expect_status 0 "$OACHECK" help report
expect_grep "^Usage: oacheck report render" "$TMP/out"
pass "usage errors exit 2; --help for every verb"
