#!/bin/sh
# record-targets.sh — recording two live targets keeps both (one
# subdirectory per target; one target still records straight into --out,
# so existing recordings and `run --replay DIR` work as before), and a base
# URL's query (?api-version=…, Azure-style) reaches the server on every
# request, identification included, and is in the commands that reproduce
# a case, while a key in it shows nowhere.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

SUITE="$OACHECK_SRCDIR/tests/data/suites/hostile-slow.json"
hostile_start

mkdir -p "$TMP/one" "$TMP/two"
expect_status 0 "$OACHECK" record "$SUITE" --filter 'quick*' --target "h=$HURL" --out "$TMP/one"
[ -f "$TMP/one/hostile-slow.quick.cassette.gz" ] || { ls -R "$TMP/one" >&2; fail "a single target no longer records into --out"; }
expect_status 0 "$OACHECK" run "$SUITE" --filter 'quick*' --replay "$TMP/one"
pass "one target records into --out, as before"

expect_status 0 "$OACHECK" record "$SUITE" --filter 'quick*' --target "a=$HURL" --target "b=$HURL" --out "$TMP/two"
for t in a b; do
  for c in quick quick-stream; do
    [ -f "$TMP/two/$t/hostile-slow.$c.cassette.gz" ] || { ls -R "$TMP/two" >&2; fail "no cassette $t/hostile-slow.$c"; }
  done
  ls "$TMP/two/$t"/identify-v1-models-*.cassette.gz >/dev/null 2>&1 || fail "no identification cassette for $t"
  gzip -dc "$TMP/two/$t/hostile-slow.quick.cassette.gz" | head -n 1 | grep -q "target '$t'" ||
    fail "the cassette in $t/ is not $t's"
done
[ ! -f "$TMP/two/hostile-slow.quick.cassette.gz" ] || fail "two targets still share one cassette name"
expect_status 0 "$OACHECK" run "$SUITE" --filter 'quick*' --replay "$TMP/two/a" --replay "$TMP/two/b"
[ "$(grep -c '^PASS ' "$TMP/out")" = 4 ] || { cat "$TMP/out" >&2; fail "the two replayed targets did not both pass"; }
pass "two targets record into a subdirectory each, and both replay"

QKEY="QKEY-record-0123456789"
: >"$HLOG"
expect_status 0 "$OACHECK" run "$SUITE" --filter 'quick*' \
  --target "az=$HURL/openai/v1?api-version=2024-10-21&api-key=$QKEY" --json "$TMP/r.json"
grep -q '^main GET /openai/v1/models?api-version=2024-10-21&api-key=' "$HLOG" ||
  { cat "$HLOG" >&2; fail "identification dropped the base URL's query"; }
grep -q '^main POST /openai/v1/chat/completions?api-version=2024-10-21&api-key=' "$HLOG" ||
  { cat "$HLOG" >&2; fail "the case requests dropped the base URL's query"; }
cat "$TMP/out" "$TMP/err" "$TMP/r.json" >"$TMP/all"
expect_no_grep "$QKEY" "$TMP/all"
pass "a base URL's query is kept on every request, its key shown nowhere"

# the commands that reproduce a case go where the case went: the query
# stays (api-version), its key as [redacted]
grep -qF "'$HURL/openai/v1/chat/completions?api-version=2024-10-21&api-key=[redacted]'" "$TMP/r.json" ||
  { grep '"curl"' "$TMP/r.json" >&2; fail "the curl command does not go where the case went"; }
grep -qF -e "--target 'az=$HURL/openai/v1?api-version=2024-10-21&api-key=[redacted]'" "$TMP/r.json" ||
  { grep '"oacheck"' "$TMP/r.json" >&2; fail "the oacheck command lost the target's query"; }
grep -qF "\"url\": \"$HURL/openai/v1/chat/completions?api-version=2024-10-21&api-key=[redacted]\"" "$TMP/r.json" ||
  { grep '"url"' "$TMP/r.json" >&2; fail "the request's url is not where it went"; }
pass "the reproduce commands and the request's url keep the query, its key [redacted]"
