#!/bin/sh
# fleet-github.sh — what a failing run shows on GitHub Actions and in any
# CI: --github prints workflow commands in GitHub's documented format
# (::error file=F,line=L,title=T::MESSAGE, data escaping % CR LF and
# properties also : and ,) pointing at the failing case's line in its
# suite file, relative to $GITHUB_WORKSPACE (a suite named from below it
# too; none outside it); it appends a GitHub-flavoured
# Markdown summary to $GITHUB_STEP_SUMMARY (what was there stays), whose
# tables are well formed and whose text from the results is escaped;
# --markdown writes the same summary; run and report render agree; an
# unreachable target is one annotation, one row and one line, after the
# real failures and outside their caps.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"
GEN="${OACHECK_BUILDDIR:-.}/tests/e2e/fleet-gen"
unset GITHUB_STEP_SUMMARY GITHUB_WORKSPACE 2>/dev/null || true
WS="$TMP/ws"
mkdir -p "$WS/suites"
# the case object of will-fail starts on line 6, of also-fails on line 25
cat >"$WS/suites/mine.json" <<'JSON'
{
  "suite": "mine",
  "description": "one case that passes and two whose own expectations fail",
  "cases": [
    { "name": "passes", "description": "the shipped plain/chat-basic request", "request": { "method": "POST", "path": "/v1/chat/completions", "body": { "model": "${MODEL}", "messages": [ { "role": "system", "content": "You are a helpful assistant." }, { "role": "user", "content": "Say hello." } ], "temperature": 0, "seed": 42, "max_tokens": 16 } } },
    {
      "name": "will-fail",
      "description": "the same request, expecting a status the server never sends",
      "request": {
        "method": "POST",
        "path": "/v1/chat/completions",
        "body": {
          "model": "${MODEL}",
          "messages": [
            { "role": "system", "content": "You are a helpful assistant." },
            { "role": "user", "content": "Say hello." }
          ],
          "temperature": 0,
          "seed": 42,
          "max_tokens": 16
        }
      },
      "expect": { "status": 201 }
    },
    {
      "name": "also-fails",
      "description": "once more",
      "request": { "method": "POST", "path": "/v1/chat/completions", "body": { "model": "${MODEL}", "messages": [ { "role": "system", "content": "You are a helpful assistant." }, { "role": "user", "content": "Say hello." } ], "temperature": 0, "seed": 42, "max_tokens": 16 } },
      "expect": { "status": 202 }
    }
  ]
}
JSON
printf '## an earlier step\n\nits own summary\n' >"$TMP/step-summary.md"
cd "$WS"
GITHUB_WORKSPACE="$WS" GITHUB_STEP_SUMMARY="$TMP/step-summary.md" expect_status 1 \
  "$OACHECK" run suites/mine.json --github --report-url https://ci.example/run/7/report.html \
  --markdown "$TMP/summary.md" --json "$TMP/r.json"
grep '^::' "$TMP/out" >"$TMP/ann" || fail "no workflow command printed"
cat "$TMP/ann"
[ "$(wc -l <"$TMP/ann")" = 2 ] || fail "expected 2 annotations (two failing cases)"
# the documented form, property by property
expect_grep '^::error file=suites/mine\.json,line=6,title=HTTP-STATUS::llama-server mine/will-fail failed: \[error\] HTTP-STATUS' "$TMP/ann"
expect_grep '^::error file=suites/mine\.json,line=25,title=HTTP-STATUS::llama-server mine/also-fails failed: ' "$TMP/ann"
expect_grep 'expected HTTP 201, got 200' "$TMP/ann"
pass "an ::error annotation per failing case, at its suite file and line, titled by its rule"

# appended, not replaced; the --markdown file is the same summary
expect_grep '^## an earlier step$' "$TMP/step-summary.md"
tail -n +4 "$TMP/step-summary.md" | cmp -s - "$TMP/summary.md" || fail "--markdown differs from what was appended to the step summary"
S="$TMP/summary.md"
expect_grep '^### oacheck: failed — 3 cases: 1 pass, 2 fail, 0 error, 0 skip$' "$S"
expect_grep '^\| target \| profile \| model \| cases \| pass \| fail \| error \| skip \|$' "$S"
expect_grep '^\| llama-server \| llama-server \| tiny-reasoner\.gguf \| 3 \| 1 \| 2 \| 0 \| 0 \|$' "$S"
expect_grep '^#### Failing rules$' "$S"
expect_grep '^\| HTTP-STATUS \| 2 \| \[llama-server · mine/will-fail\]\(https://ci\.example/run/7/report\.html#c-1\): ' "$S"
expect_grep '^#### Failing cases \(2\)$' "$S"
expect_grep '^\[The HTML report\]\(https://ci\.example/run/7/report\.html\)' "$S"
# every table row has as many cells as its header (escaped pipes aside)
awk '/^\|/ { line = $0; gsub(/\\\|/, "", line); n = gsub(/\|/, "", line)
             if (!inrow) { want = n; inrow = 1 } else if (n != want) { print "row " NR " has " n - 1 " cells, header " want - 1; bad = 1 } next }
     { inrow = 0 } END { exit bad }' "$S" || fail "a Markdown table row does not match its header"
pass "a GitHub-flavoured Markdown summary appended to \$GITHUB_STEP_SUMMARY, the same as --markdown"

# each file written is named, as the other reports name theirs; on stderr
# when a report goes to stdout, which then holds that report alone
expect_grep "^wrote $TMP/r\.json \(JSON report\)\$" "$TMP/out"
expect_grep "^wrote $TMP/summary\.md \(Markdown summary\)\$" "$TMP/out"
expect_grep "^wrote $TMP/step-summary\.md \(GitHub step summary, appended\)\$" "$TMP/out"
expect_status 0 "$OACHECK" report render "$TMP/r.json" --json - --markdown "$TMP/again.md"
expect_grep "^wrote $TMP/again\.md \(Markdown summary\)\$" "$TMP/err"
expect_no_grep '^wrote ' "$TMP/out"
head -c 1 "$TMP/out" | grep -q '{' || fail "report render --json - wrote more than the JSON on stdout"
expect_status 0 "$OACHECK" report merge "$TMP/r.json" --markdown "$TMP/merged.md"
expect_grep "^wrote $TMP/merged\.md \(Markdown summary\)\$" "$TMP/err"
expect_no_grep '^wrote ' "$TMP/out"
expect_status 0 "$OACHECK" report render "$TMP/r.json" --markdown -
expect_grep '^### oacheck: failed' "$TMP/out"
expect_no_grep '^wrote ' "$TMP/out"
expect_no_grep '^wrote ' "$TMP/err"
pass "wrote FILE (Markdown summary), and the step summary, as the other reports say theirs"

# report render gives the same, later
GITHUB_WORKSPACE="$WS" expect_status 0 "$OACHECK" report render "$TMP/r.json" --github
expect_grep 'GITHUB_STEP_SUMMARY is not set' "$TMP/err"
grep '^::' "$TMP/out" | cmp -s - "$TMP/ann" || fail "report render --github differs from run --github"
# an absolute path under the workspace is made relative; one outside it is left out
sed "s|\"suite_file\":[[:space:]]*\"suites/mine.json\"|\"suite_file\": \"$WS/suites/mine.json\"|" "$TMP/r.json" >"$TMP/abs.json"
GITHUB_WORKSPACE="$WS/" expect_status 0 "$OACHECK" report render "$TMP/abs.json" --github
expect_grep '^::error file=suites/mine\.json,line=6,title=HTTP-STATUS::' "$TMP/out"
expect_status 0 "$OACHECK" report render "$TMP/abs.json" --github
expect_grep '^::error title=HTTP-STATUS::llama-server mine/will-fail' "$TMP/out"
pass "report render --github: the same commands; paths relative to the workspace or left out"

# hostile text: a message that tries to end the command and start another
sed -e 's|"message":[[:space:]]*"expected HTTP 201, got 200[^"]*"|"message": "100% broken,\\r\\n::warning::injected, a:b"|' \
    -e 's|"suite_file":[[:space:]]*"suites/mine.json"|"suite_file": "dir,x/a:b%.json"|' "$TMP/r.json" >"$TMP/hostile.json"
expect_grep 'injected' "$TMP/hostile.json"
expect_status 0 "$OACHECK" report render "$TMP/hostile.json" --github --markdown "$TMP/hostile.md"
expect_no_grep '^::warning::injected' "$TMP/out"
expect_grep '^::error file=dir%2Cx/a%3Ab%25\.json,line=6,title=HTTP-STATUS::llama-server mine/will-fail failed: \[error\] HTTP-STATUS: 100%25 broken,%0D%0A::warning::injected, a:b$' "$TMP/out"
# every line a command, but the one naming the Markdown file
expect_grep "^wrote $TMP/hostile\.md \(Markdown summary\)\$" "$TMP/out"
[ "$(grep -vc '^wrote ' "$TMP/out")" = "$(grep -c '^::error ' "$TMP/out")" ] || fail "a line that is not a command"
expect_grep '100% broken, +::warning::injected, a:b' "$TMP/hostile.md"
pass "workflow-command escaping: % CR LF in the message, also , and : in properties; nothing injected"

# GitHub resolves file= from the repository's root: a suite named from a
# step's working-directory below it is made relative to the root, and a
# path that cannot be resolved there is left out, never emitted wrong
mkdir -p "$TMP/s"
cp "$WS/suites/mine.json" "$TMP/s/env.json"
expect_status 1 "$OACHECK" run ../s/env.json --github
expect_grep '^::error title=HTTP-STATUS::llama-server mine/will-fail failed: ' "$TMP/out"
expect_no_grep 'file=' "$TMP/out"
GITHUB_WORKSPACE="$TMP" expect_status 1 "$OACHECK" run ../s/env.json --github
expect_grep '^::error file=s/env\.json,line=6,title=HTTP-STATUS::llama-server mine/will-fail' "$TMP/out"
(cd suites && GITHUB_WORKSPACE="$WS" expect_status 1 "$OACHECK" run mine.json --github)
expect_grep '^::error file=suites/mine\.json,line=6,title=HTTP-STATUS::llama-server mine/will-fail' "$TMP/out"
pass "annotation paths: from the repository's root, a working directory below it included; none outside it"

# at most 50 annotations, then one warning saying how many more
cd "$TMP"
"$GEN" suite "$TMP/many.json" 90 "$WS/suites/mine.json" || fail "fleet-gen suite failed"
expect_status 1 "$OACHECK" run "$TMP/many.json" --github
[ "$(grep -c '^::error ' "$TMP/out")" = 50 ] || fail "expected 50 ::error lines, got $(grep -c '^::error ' "$TMP/out")"
expect_grep '^::warning title=oacheck::10 more failing cases are not annotated' "$TMP/out"
expect_status 2 "$OACHECK" run "$TMP/many.json" --report-url 'javascript:alert(1)'
expect_grep 'wants an http:// or https:// URL' "$TMP/err"
pass "50 annotations at most, then a warning; --report-url must be http(s)"

# one target replayed, one that cannot be reached: the dead one's 90 cases
# are one annotation, one Markdown row and one summary line, and do not
# take the room of the 60 real failures
DEAD=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()' 2>/dev/null || echo 9)
printf '[ { "name": "llama-server", "recordings": "%s" },\n  { "name": "dead", "url": "http://127.0.0.1:%s" } ]\n' \
  "$OACHECK_SRCDIR/suites/recordings/llama-server" "$DEAD" >"$TMP/two.json"
expect_status 1 "$OACHECK" run "$TMP/many.json" --targets "$TMP/two.json" --connect-timeout 5 --github \
  --markdown "$TMP/two.md" --json "$TMP/two-r.json"
[ "$(grep -c '^::error title=HTTP-STATUS::llama-server ' "$TMP/out")" = 50 ] ||
  fail "$(grep -c '^::error title=HTTP-STATUS::llama-server ' "$TMP/out") of the 50 annotations are real failures"
expect_grep '^::warning title=oacheck::10 more failing cases are not annotated' "$TMP/out"
expect_grep "^::error title=target unreachable::dead: 90 cases not run: target unreachable: connection refused by http://127.0.0.1:$DEAD/v1/models" "$TMP/out"
[ "$(grep -c '^::error ' "$TMP/out")" = 51 ] || fail "expected 51 ::error lines, got $(grep -c '^::error ' "$TMP/out")"
[ "$(grep -c '"not_run": "target-unreachable"' "$TMP/two-r.json")" = 90 ] || fail "the JSON does not keep every case not run"
expect_grep '^#### Failing cases \(60, and 90 not run\)$' "$TMP/two.md"
# no profile guessed for a target that said nothing
expect_grep '^\| dead \(unreachable\) \| — \| — \| 90 \| 0 \| 0 \| 90 \| 0 \|$' "$TMP/two.md"
[ "$(grep -c '^| fail | llama-server · ' "$TMP/two.md")" = 50 ] || fail "not 50 rows of real failures"
expect_grep "^\| error \| dead: 90 cases not run \| target unreachable: connection refused by http://127\.0\.0\.1:$DEAD/v1/models" "$TMP/two.md"
expect_no_grep 'dead · |HTTP-TRANSPORT' "$TMP/two.md"
expect_status 0 "$OACHECK" report render "$TMP/two-r.json"
[ "$(grep -c '^fail  llama-server\.' "$TMP/out")" = 60 ] || fail "report render does not list the 60 failures"
expect_grep "^error dead  90 cases not run: target unreachable: connection refused by http://127.0.0.1:$DEAD/v1/models" "$TMP/out"
[ "$(grep -c 'dead' "$TMP/out")" = 1 ] || fail "report render names the unreachable target more than once"
[ "$(tail -n 1 "$TMP/out" | cut -c1-10)" = "error dead" ] || fail "the unreachable target is not said after the real failures"
pass "an unreachable target: one annotation, one Markdown row, one summary line, after the real failures"
