#!/bin/sh
# validate.sh — `oacheck validate`: exit codes (0 valid, 1 invalid, 2
# unusable), the "FILE: PATH: MESSAGE" format, JSON Lines, stdin,
# --remotes, --format-assert, draft-07 by $schema, the shipped schemas by
# URI, and syntax errors named by file:line:column.
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

cat >"$TMP/s.json" <<'EOF'
{ "type": "object",
  "properties": { "index": { "type": "integer" }, "name": { "type": "string", "maxLength": 3 } },
  "required": ["index"],
  "additionalProperties": false }
EOF
printf '{"index": 1, "name": "ab"}\n' >"$TMP/ok.json"
printf '{\n  "index": "0",\n  "extra": true\n}\n' >"$TMP/bad.json"
printf '{\n  "index": 1,\n  "name": tru\n}\n' >"$TMP/broken.json"

expect_status 0 "$OACHECK" validate --help
expect_grep '^Usage: oacheck validate' "$TMP/out"
expect_grep 'remotes DIR=BASE_URI' "$TMP/out"
pass "--help"

expect_status 0 "$OACHECK" validate "$TMP/s.json" "$TMP/ok.json"
expect_grep "ok.json: valid$" "$TMP/out"
pass "a valid file exits 0"

expect_status 1 "$OACHECK" validate "$TMP/s.json" "$TMP/ok.json" "$TMP/bad.json"
expect_grep '^.*/bad.json: /index: expected integer, got string "0" \(line 2, column 12\)$' "$TMP/out"
expect_grep '^.*/bad.json: /extra: property "extra" is not allowed \(additionalProperties is false\)' "$TMP/out"
expect_grep 'ok.json: valid$' "$TMP/out"
pass "an invalid file exits 1 and names path and reason"

expect_status 2 "$OACHECK" validate "$TMP/s.json" "$TMP/broken.json" "$TMP/bad.json"
expect_grep 'broken.json:3:1[1-4]: invalid JSON' "$TMP/err"
expect_grep 'bad.json: /index: expected integer' "$TMP/out"
pass "a syntax error exits 2 with file:line:column, the other files are still checked"

expect_status 2 "$OACHECK" validate "$TMP/s.json" "$TMP/missing.json"
expect_grep 'missing.json' "$TMP/err"
pass "a missing file exits 2"

printf '{"index":1}\n\n{"index":2,"name":"toolong"}\n{"index":3}\n' >"$TMP/l.jsonl"
expect_status 1 "$OACHECK" validate --jsonl "$TMP/s.json" "$TMP/l.jsonl"
expect_grep '^.*/l.jsonl:3: /name: expected at most 3 characters, got 7 \(column 19\)$' "$TMP/out"
expect_grep 'l.jsonl: 2 of 3 lines valid' "$TMP/out"
expect_no_grep 'l.jsonl:1:' "$TMP/out"
pass "--jsonl reports FILE:LINE"

printf '{"index":1}\n{"index":\n' >"$TMP/b.jsonl"
expect_status 2 "$OACHECK" validate --jsonl "$TMP/s.json" "$TMP/b.jsonl"
expect_grep 'b.jsonl:2:[0-9]+: invalid JSON' "$TMP/err"
pass "--jsonl syntax error exits 2 with its line"

set +e
printf '{"index": 7}' | "$OACHECK" validate "$TMP/s.json" - >"$TMP/out" 2>"$TMP/err"
st=$?
set -e
[ "$st" = 0 ] || fail "stdin: exit $st"
expect_grep '^\(stdin\): valid$' "$TMP/out"
set +e
printf '[]' | "$OACHECK" validate "$TMP/s.json" - >"$TMP/out" 2>"$TMP/err"
st=$?
set -e
[ "$st" = 1 ] || fail "stdin invalid: exit $st"
expect_grep '^\(stdin\): \(root\): expected object, got empty array' "$TMP/out"
pass "stdin"

mkdir -p "$TMP/remotes/sub"
cat >"$TMP/remotes/sub/int.json" <<'EOF'
{ "$defs": { "positive": { "type": "integer", "minimum": 1 } } }
EOF
cat >"$TMP/r.json" <<'EOF'
{ "$ref": "http://example.test/schemas/sub/int.json#/$defs/positive" }
EOF
printf '0\n' >"$TMP/zero.json"
expect_status 2 "$OACHECK" validate "$TMP/r.json" "$TMP/zero.json"
expect_grep 'unresolved reference "http://example.test/schemas/sub/int.json#/\$defs/positive"' "$TMP/err"
pass "an unresolved remote reference is an error, not a pass"

expect_status 1 "$OACHECK" validate --remotes "$TMP/remotes=http://example.test/schemas/" "$TMP/r.json" "$TMP/zero.json"
expect_grep 'zero.json: \(root\): expected a number >= 1, got 0' "$TMP/out"
pass "--remotes serves a folder at a base URI"

printf '{"type": "string", "format": "date"}' >"$TMP/date.json"
printf '"2024-02-30"' >"$TMP/d.json"
expect_status 0 "$OACHECK" validate "$TMP/date.json" "$TMP/d.json"
expect_status 1 "$OACHECK" validate --format-assert "$TMP/date.json" "$TMP/d.json"
expect_grep 'expected a valid date, got "2024-02-30"' "$TMP/out"
pass "format is an annotation unless --format-assert"

cat >"$TMP/d7.json" <<'EOF'
{ "$schema": "http://json-schema.org/draft-07/schema#",
  "items": [{ "type": "integer" }], "additionalItems": false }
EOF
printf '[1, 2]' >"$TMP/two.json"
expect_status 1 "$OACHECK" validate "$TMP/d7.json" "$TMP/two.json"
expect_grep 'expected at most 1 item \(additionalItems is false\), got 2' "$TMP/out"
pass "draft-07 when \$schema says so"

printf '{"type": "object", "properties": {"a": {"pattern": "(["}}}' >"$TMP/badre.json"
expect_status 2 "$OACHECK" validate "$TMP/badre.json" "$TMP/ok.json"
expect_grep 'schema at /properties/a.*invalid regular expression' "$TMP/err"
printf '{"type": "object",\n "minimum": "x"}' >"$TMP/badkw.json"
expect_status 2 "$OACHECK" validate "$TMP/badkw.json" "$TMP/ok.json"
expect_grep '"minimum" must be a number' "$TMP/err"
printf '{"type": \n' >"$TMP/badjson.json"
expect_status 2 "$OACHECK" validate "$TMP/badjson.json" "$TMP/ok.json"
expect_grep 'badjson.json:2:1: invalid JSON' "$TMP/err"
pass "a malformed schema exits 2 with its position"

cat >"$TMP/chunk.json" <<'EOF'
{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"m",
 "choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}
EOF
expect_status 0 "$OACHECK" validate https://oacheck.dev/schemas/chat.completion.chunk.json "$TMP/chunk.json"
printf '{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":"0","delta":{}}]}' >"$TMP/chunk2.json"
expect_status 1 "$OACHECK" validate https://oacheck.dev/schemas/chat.completion.chunk.json "$TMP/chunk2.json"
expect_grep '/choices/0/index: expected integer, got string "0"' "$TMP/out"
pass "shipped schemas by URI"

expect_status 2 "$OACHECK" validate --frob "$TMP/s.json" "$TMP/ok.json"
expect_grep "unknown option '--frob'" "$TMP/err"
expect_status 2 "$OACHECK" validate "$TMP/s.json"
expect_grep "missing FILE" "$TMP/err"
pass "usage errors exit 2"

# oacheck's own limits leave a validation undecided: exit 2 with the
# reason, in bounded time, never a hang and never a verdict
printf '{"anyOf":[{"$ref":"#"},{"$ref":"#"}]}' >"$TMP/loop.json"
printf '[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]' >"$TMP/nested.json"
expect_status 2 "$OACHECK" validate "$TMP/loop.json" "$TMP/nested.json"
expect_grep 'nested.json: cannot be decided: the schema recurses' "$TMP/err"
printf '{"not":{"pattern":"(a|a)+!x|a"}}' >"$TMP/re.json"
printf '"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"' >"$TMP/as.json"
expect_status 2 "$OACHECK" validate "$TMP/re.json" "$TMP/as.json"
expect_grep 'as.json: cannot be decided: the pattern /\(a\|a\)\+!x\|a/ ran out of its match budget' "$TMP/err"
pass "an undecided validation exits 2 with its reason"
