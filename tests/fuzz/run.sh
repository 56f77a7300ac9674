#!/bin/sh
# run.sh — run libFuzzer targets for a fixed time each, from the build
# directory: tests/fuzz/run.sh SECONDS TARGET...  Each target's corpus
# (tests/fuzz/corpus/TARGET) is seeded on first use from the tests' own
# data, and grows with every run.  Any crash, leak, timeout, out-of-memory
# or sanitizer report fails the run (exit 1, the input kept under
# tests/fuzz/crashes/TARGET/); a summary line per target gives the
# executions and the time run clean.
#
# tests/fuzz/run.sh --seeds DIR TARGET... only writes each target's seeds
# into DIR/TARGET (the allocation-failure run, tests/torture/run.sh, takes
# them as its corpus too) and runs nothing.
set -eu
corpus=tests/fuzz/corpus
seeds_only=0
if [ "${1:-}" = --seeds ]; then
  seeds_only=1; corpus=$2; shift 2
else
  secs=$1; shift
fi
src=${OACHECK_SRCDIR:-.}
export OACHECK_DATADIR="$src"
# leaks fail too; UBSan reports abort (compiled -fno-sanitize-recover)
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

put() { # put DIR NAME : stdin into DIR/NAME
  cat >"$1/$2"
}

seed() {
  t=$1; c=$corpus/$t
  [ -d "$c" ] && [ -n "$(ls -A "$c" 2>/dev/null)" ] && return 0
  mkdir -p "$c"
  case $t in
  stream)
    cp "$src"/tests/fuzz/seeds/* "$c"/ ;;
  responses)
    # the body of every RESPONSES-* rule file, behind the two bytes that
    # pick the request (a stream, or bit 7 a JSON body) and the pieces
    i=0
    for f in "$src"/tests/rules/RESPONSES-*/*.test; do
      i=$((i + 1))
      { if grep -q '^Content-Type: application/json' "$f"; then printf '\200\007'; else printf '\001\007'; fi
        sed '1,/^--- response/d' "$f" | sed '1,/^.\{0,1\}$/d'; } | put "$c" "rule-$i"
    done ;;
  messages)
    # the body of every MESSAGES-* rule file, behind the two bytes that
    # pick the request (a stream, or bit 7 a JSON body) and the pieces
    i=0
    for f in "$src"/tests/rules/MESSAGES-*/*.test; do
      i=$((i + 1))
      { if grep -q '^Content-Type: application/json' "$f"; then printf '\200\007'; else printf '\001\007'; fi
        sed '1,/^--- response/d' "$f" | sed '1,/^.\{0,1\}$/d'; } | put "$c" "rule-$i"
    done ;;
  schema)
    # MODE SCHEMA NUL INSTANCE: every shipped schema with a few instances,
    # and the combinators and patterns that once hung the validator
    i=0
    for s in "$src"/schemas/*.json "$src"/schemas/llama-server/*.json; do
      for inst in '{}' '[]' '{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[]}' '"x"'; do
        i=$((i + 1))
        { printf '\000'; cat "$s"; printf '\000%s' "$inst"; } | put "$c" "shipped-$i"
      done
    done
    printf '\000{"anyOf":[{"$ref":"#"},{"$ref":"#"}]}\000[[[[1]]]]' | put "$c" anyof-self
    printf '\000{"not":{"pattern":"(a|a)+!x|a"}}\000"aaaaaaaaaaaaaaaaaaaaaaaaaa!"' | put "$c" regex-budget
    printf '\004{"type":"object","properties":{"a":{"$ref":"#"}},"unevaluatedProperties":false,"allOf":[{"required":["a"]}]}\000{"a":{"a":{}}}' | put "$c" uneval
    printf '\001{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"integer"}],"additionalItems":false}\000[1,2]' | put "$c" draft7
    printf '\012{"$id":"https://oacheck.test/s.json","$dynamicAnchor":"n","$defs":{"d":{"$dynamicRef":"#n"}},"prefixItems":[{"$ref":"#/$defs/d"}],"format":"date-time"}\000["2026-01-01T00:00:00Z"]' | put "$c" dynamic
    ;;
  suite)
    cp "$src"/suites/*.json "$src"/tests/data/suites/*.json "$c"/
    # a suite with an error of each kind the loader reports: the schema's,
    # an unknown rule to allow and to assert, an unclosed ${, a repeated name
    put "$c" broken.json <<'EOF'
{"suite":"b","description":"d","allow":["NOPE"],"cases":[
 {"name":"a","description":"d","request":{"method":"POST","path":"/v1/chat/completions","body":{"model":"${MODEL}","messages":[{"role":"user","content":"${words:5:x}"}]}},"expect":{"status":200,"assert":[{"pointer":"/x","type":"strin"}]}},
 {"name":"a","description":"d","request":{"method":"POST","path":"/v1/chat/completions","body":{"model":"${NOPE","messages":[]}},"allow":["ALSO-NOPE"],"expect":{"assert":[{"rule":"NOT-A-RULE"}]}},
 {"name":7,"request":{}}
]}
EOF
    ;;
  cassette)
    for f in "$src"/suites/recordings/llama-server/*.cassette.gz "$src"/tests/data/recordings/*/*.cassette.gz; do
      [ -f "$f" ] || continue
      n=$(basename "$f" .cassette.gz)
      # both forms: as on disk, and uncompressed (gzipped again by the target)
      [ "$(wc -c <"$f")" -lt 65536 ] && cp "$f" "$c/$n.gz"
      gzip -dc "$f" | head -c 65536 | put "$c" "$n.raw"
    done ;;
  exchange)
    for f in "$src"/tests/data/crafted/*/*.response.http; do
      [ -f "$f" ] || continue
      d=$(basename "$(dirname "$f")"); n=$(basename "$f" .response.http)
      { printf '\000'; head -c 65536 "$f"; } | put "$c" "$d-$n"
    done
    printf '\001HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n10\r\ndata: {"a":1}\n\n\r\n0\r\n\r\n' | put "$c" wire
    printf '\000HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: [DONE]\n\n' | put "$c" bare
    ;;
  results)
    # the results fixtures (the hostile one's strings among them), and a
    # document whose brackets and "results" hide in strings and deeper
    for f in "$src"/tests/data/results/*.json; do
      head -c 65536 "$f" | put "$c" "$(basename "$f" .json)"
    done
    put "$c" tricky.json <<'EOF'
{"oacheck":{"version":"0.1.0","started":"2026-11-30T02:00:00Z","mode":"live","command":"x '\"results\": [1]}'"},
 "targets":[{"name":"a","kind":"live","profile":"openai","reachable":true,"identity":{"results":[7],"x":"],[{"}}],
 "results" : [ {"target":"a","suite":"s","case":"c],{\"","status":"pass","findings":[]} ,
 {"target":"a","suite":"s","case":"d","status":"fail","findings":[{"rule":"HTTP-STATUS","severity":"error","message":"m","where":{"text":""},"path":null,"expected":null,"actual":null}]} ],
 "summary":{"total":2,"pass":1,"fail":1,"error":0,"skip":0}}
EOF
    ;;
  esac
}

if [ "$seeds_only" = 1 ]; then
  for t in "$@"; do seed "$t"; done
  exit 0
fi

status=0
for t in "$@"; do
  bin=tests/fuzz/fuzz_$t
  [ -x "$bin" ] || { echo "run.sh: $bin is not built (make fuzz-build)" >&2; exit 2; }
  seed "$t"
  mkdir -p "tests/fuzz/crashes/$t"
  log=tests/fuzz/fuzz_$t.log
  start=$(date +%s)
  set +e
  "$bin" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2560 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="tests/fuzz/crashes/$t/" \
    "tests/fuzz/corpus/$t" >"$log" 2>&1
  st=$?
  set -e
  end=$(date +%s)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -n 1)
  if [ "$st" -ne 0 ] || grep -qE '^(==[0-9]+==ERROR|SUMMARY: (Address|Undefined|Leak)Sanitizer)|runtime error:' "$log"; then
    echo "fuzz_$t: FAILED after $((end - start)) s (exit $st); see $log and tests/fuzz/crashes/$t/" >&2
    grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$log" | head -n 20 >&2
    status=1
  else
    echo "fuzz_$t: ${runs:-?} executions in $((end - start)) s, clean (peak RSS ${peak:-?} MB, corpus $(ls "tests/fuzz/corpus/$t" | wc -l) inputs)"
  fi
done
exit $status
