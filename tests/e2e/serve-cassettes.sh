#!/bin/sh
# serve-cassettes.sh — the cassettes `oacheck serve` replays: `oacheck
# record --show` makes them readable, `--import` turns raw exchanges into
# them, and mk/replay.am lists every committed recording (or `make
# distcheck` and installs would miss one).
set -eu
. "${OACHECK_SRCDIR:-.}/tests/e2e/lib.sh"

SHIPPED="$OACHECK_SRCDIR/suites/recordings/llama-server"
# the curl captures: their imported cassettes keep curl's bytes and no timing
REC="$OACHECK_SRCDIR/tests/data/recordings/llama-server-curl"

# ---- the committed lists are complete ---------------------------------
sh "$OACHECK_SRCDIR/scripts/replay-lists.sh" --check "$OACHECK_SRCDIR" >"$TMP/lists" 2>&1 ||
  { cat "$TMP/lists" >&2; fail "mk/replay.am does not list the committed recordings"; }
pass "mk/replay.am lists every committed recording"

# every shipped recording loads, and none is test-only; the live ones
# (every case of every suite, the identification requests, which today's
# recorder times too, and the template captures `oacheck record` made)
# carry arrival times, the curl session's template captures and the
# imported curl captures do not
for f in "$SHIPPED"/*.cassette.gz "$SHIPPED"/templates/*/*.cassette.gz "$REC"/*.cassette.gz; do
  expect_status 0 "$OACHECK" record --show "$f"
  expect_grep '^  test only: no' "$TMP/out"
  case "$f" in
    */templates/*/template-renders.*) expect_grep '^timing: recorded' "$TMP/out" ;;
    */templates/*|"$REC"/*) expect_grep '^timing: not recorded' "$TMP/out" ;;
    *) expect_grep '^timing: recorded' "$TMP/out" ;;
  esac
done
for f in "$OACHECK_SRCDIR"/tests/data/recordings/llama-server/*.cassette.gz; do
  expect_status 0 "$OACHECK" record --show "$f"
  expect_grep '^  test only: yes' "$TMP/out"
done
pass "shipped recordings load and none is test-only; the steered ones are"

# ---- --show -----------------------------------------------------------
expect_status 0 "$OACHECK" record --show "$REC/chat-stream.wire.cassette.gz"
expect_grep '^name: chat-stream.wire$' "$TMP/out"
expect_grep '^request: POST /v1/chat/completions$' "$TMP/out"
expect_grep '^response: HTTP/1.1 200 OK$' "$TMP/out"
expect_grep '^body: 4796 bytes in 18 pieces$' "$TMP/out"
expect_grep '^--- piece 18: ' "$TMP/out"
expect_grep '^data: \[DONE\]$' "$TMP/out"
expect_grep '^  server: llama.cpp b10587-3f545becc$' "$TMP/out"
expect_grep '^  Access-Control-Allow-Origin: $' "$TMP/out"
pass "record --show prints request, head, provenance and the pieces"

# non-printable bytes are escaped; the body is not JSON-mangled
expect_status 0 "$OACHECK" record --show "$REC/bad-invalid-json.cassette.gz"
expect_grep '^request body: [0-9]+ bytes$' "$TMP/out"
expect_grep '^response: HTTP/1.1 500 Internal Server Error$' "$TMP/out"

# ---- --import ---------------------------------------------------------
RAW="$TMP/raw"
mkdir -p "$RAW/templates/t1"
printf '%s' '{"health":{"method":"GET","path":"/health"},"chat":{"method":"POST","path":"/v1/chat/completions","test_only":"steered"},"templates/t1/props":{"method":"GET","path":"/props"},"odd":{"note":"no path"}}' >"$RAW/index.json"
printf 'HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n{"status":"ok"}' >"$RAW/health.response.http"
printf 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: \001\377\n\ndata: [DONE]\n\n' >"$RAW/chat.response.http"
printf '{"stream":true}' >"$RAW/chat.request.json"
printf 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\ndat\r\n5\r\na: 1\n\r\n1\r\n\n\r\n0\r\n\r\n' >"$RAW/chat.wire.http"
printf 'HTTP/1.1 200 OK\r\n\r\n{}' >"$RAW/templates/t1/props.response.http"
printf 'HTTP/1.1 404 Not Found\r\n\r\nnope' >"$RAW/odd.response.http"
printf '# Test server — made up\n\n| file | source |\n| --- | --- |\n| health | typed by hand |\n' >"$RAW/README.md"

expect_status 1 "$OACHECK" record --import "$RAW" --out "$TMP/out1" --test-only-out "$TMP/test1"
expect_grep "odd" "$TMP/err"
[ -f "$TMP/out1/health.cassette.gz" ] || fail "health not imported"
[ -f "$TMP/out1/templates/t1/props.cassette.gz" ] || fail "templates/t1/props not imported into its subdirectory"
[ -f "$TMP/test1/chat.cassette.gz" ] || fail "the test-only recording is not in --test-only-out"
[ -f "$TMP/test1/chat.wire.cassette.gz" ] || fail "the wire variant of a test-only recording is not in --test-only-out"
[ ! -f "$TMP/out1/chat.cassette.gz" ] || fail "a test-only recording went to --out"
cmp -s "$RAW/README.md" "$TMP/out1/README.md" || fail "README.md not copied verbatim"
cmp -s "$RAW/README.md" "$TMP/test1/README.md" || fail "README.md not copied beside the test-only recordings"
pass "record --import sorts recordings into --out, subdirectories and --test-only-out"

expect_status 0 "$OACHECK" record --show "$TMP/out1/health.cassette.gz"
expect_grep '^  source: Test server — made up' "$TMP/out"
expect_grep '^  note: \| health \| typed by hand \|$' "$TMP/out"
expect_grep '^timing: not recorded$' "$TMP/out"
expect_status 0 "$OACHECK" record --show "$TMP/test1/chat.cassette.gz"
expect_grep '^data: \\x01\\xff$' "$TMP/out"
expect_grep '^  note: test only: steered$' "$TMP/out"
expect_status 0 "$OACHECK" record --show "$TMP/test1/chat.wire.cassette.gz"
expect_grep '^body: 9 bytes in 3 pieces$' "$TMP/out"
pass "imported cassettes keep the bytes, the pieces and the provenance"

# --route completes the entry without method and path
expect_status 0 "$OACHECK" record --import "$RAW" --out "$TMP/out2" --route 'odd=POST /odd'
expect_status 0 "$OACHECK" record --show "$TMP/out2/odd.cassette.gz"
expect_grep '^request: POST /odd$' "$TMP/out"
expect_grep '^response: HTTP/1.1 404 Not Found$' "$TMP/out"
pass "--route supplies a method and path the index lacks"

# re-importing gives identical bytes
expect_status 0 "$OACHECK" record --import "$RAW" --out "$TMP/out3" --route 'odd=POST /odd'
for f in health chat chat.wire odd templates/t1/props; do
  cmp -s "$TMP/out2/$f.cassette.gz" "$TMP/out3/$f.cassette.gz" || fail "$f: re-import is not byte-identical"
done
pass "imports are deterministic"

# ---- errors and usage -------------------------------------------------
printf 'garbage' >"$TMP/broken.cassette.gz"
expect_status 1 "$OACHECK" record --show "$TMP/broken.cassette.gz"
expect_grep "broken.cassette.gz: not valid gzip data" "$TMP/err"
expect_status 0 "$OACHECK" record --help
expect_grep '^Usage: oacheck record' "$TMP/out"
expect_status 2 "$OACHECK" record
expect_grep "give --target URL \(live\), --show FILE or --import RAWDIR" "$TMP/err"
expect_status 2 "$OACHECK" record --target http://127.0.0.1:1
expect_grep 'live recording needs --out DIR' "$TMP/err"
expect_status 2 "$OACHECK" record --show
expect_status 2 "$OACHECK" record --import "$RAW"
expect_grep 'needs --out' "$TMP/err"
expect_status 2 "$OACHECK" record --import "$RAW" --out "$TMP/x" --route nonsense
pass "bad cassettes name the file; usage errors exit 2"
