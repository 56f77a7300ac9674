# lib.sh — helpers for bench/section-*.sh (sourced): reading the
# key=value lines the benches print, ratios, and running a command while
# echoing it for the report.

# kv KEY LINE: the value of KEY in a "k=v k=v" line ("" when absent).
kv() {
  printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1
}

# ratio A B: A/B with two decimals, "n/a" when either is missing.
ratio() {
  if [ -z "$1" ] || [ -z "$2" ]; then echo "n/a"; return; fi
  awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "n/a"; else printf "%.2f\n", a / b }'
}

# human N: thousands separated by commas (for events/s).
human() {
  if [ -z "$1" ]; then echo "n/a"; return; fi
  printf '%s\n' "$1" | awk '{ n = sprintf("%.0f", $1); s = ""; while (length(n) > 3) { s = "," substr(n, length(n) - 2) s; n = substr(n, 1, length(n) - 3) } print n s }'
}

# have_peer: can the Node peers run here?
have_peer() {
  [ -n "${NODE:-}" ] && [ -x "$NODE" ] && [ -d "$BENCH_SRCDIR/tests/node/node_modules/eventsource-parser" ]
}

# bench_wait_port OUT PID: the port from the 'listening on URL' line in OUT
# (the first line of oacheck serve, oacheck proxy and the Node peers; the
# proxy's goes on with the target's URL), waiting up to 10 s.
bench_wait_port() {
  i=0
  while ! grep -q '^listening on ' "$1" 2>/dev/null; do
    kill -0 "$2" 2>/dev/null || return 1
    i=$((i + 1))
    [ $i -lt 100 ] || return 1
    sleep 0.1
  done
  sed -n '1s/^listening on [^ ]*:\([0-9][0-9]*\).*/\1/p' "$1"
}

# bench_cassette_split CASSETTE REQUEST BODY: the recorded request body
# into file REQUEST and, given BODY, the recorded response body into it
# (a cassette is a metadata line, then the request's bytes, then the
# response's).
bench_cassette_split() {
  req_len=$(gzip -dc "$1" | head -n 1 | sed -n 's/.*"request":{[^}]*"body_bytes":\([0-9]*\).*/\1/p')
  gzip -dc "$1" | tail -n +2 | head -c "$req_len" >"$2"
  [ -z "${3:-}" ] || gzip -dc "$1" | tail -n +2 | tail -c +$((req_len + 1)) >"$3"
}

# bench_median: the median of the numbers on stdin (spaces or lines).
bench_median() {
  tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# bench_suite BODY N [EVERY]: a suite of N cases (c0 … cN-1) whose request
# is the JSON body in file BODY (one line) POSTed to /v1/chat/completions,
# with its "model" replaced by ${MODEL}; with EVERY, every EVERY-th case
# also expects HTTP 201, so that it fails (HTTP-STATUS).
bench_suite() {
  sed 's/"model":"[^"]*"/"model":"${MODEL}"/' "$1" | awk -v n="$2" -v every="${3:-0}" '
    { body = $0 }
    END {
      printf "{\"suite\":\"gen\",\"description\":\"generated for the bench\",\"cases\":[\n"
      for (i = 0; i < n; i++) {
        expect = (every > 0 && i % every == every - 1) ? ",\"expect\":{\"status\":201}" : ""
        printf "%s{\"name\":\"c%d\",\"description\":\"d\",\"request\":{\"method\":\"POST\",\"path\":\"/v1/chat/completions\",\"body\":%s}%s}\n", i ? "," : "", i, body, expect
      }
      print "]}"
    }'
}

# bench_cpu_busy SECONDS: how busy the machine's CPUs were over the next
# SECONDS, from /proc/stat, as "BUSY STEAL" (percent of all CPUs' time:
# not idle nor waiting on I/O; and stolen by the hypervisor).
bench_cpu_busy() {
  a=$(sed -n 's/^cpu  *//p' /proc/stat 2>/dev/null)
  sleep "$1"
  b=$(sed -n 's/^cpu  *//p' /proc/stat 2>/dev/null)
  [ -n "$a" ] && [ -n "$b" ] || { echo ""; return; }
  printf '%s\n%s\n' "$a" "$b" | awk '
    NR == 1 { for (i = 1; i <= 8; i++) a[i] = $i }
    NR == 2 { t = 0; for (i = 1; i <= 8; i++) { d[i] = $i - a[i]; t += d[i] }
              if (t <= 0) { print ""; exit }
              printf "%.0f %.0f\n", 100 * (t - d[4] - d[5]) / t, 100 * d[8] / t }'
}

# bench_load: one line for a report, saying how loaded the machine is now:
# the load averages, the share of the CPUs busy over the 2 s before, the
# runnable tasks (the calling shell's own included).
bench_load() {
  la=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)
  run=$(cut -d' ' -f4 /proc/loadavg 2>/dev/null | cut -d/ -f1)
  busy=$(bench_cpu_busy 2)
  if [ -n "$busy" ]; then
    set -- $busy
    echo "load average ${la:-unknown} ($(nproc) CPUs); CPUs $1% busy (steal $2%) over the 2 s before; ${run:-?} tasks runnable"
  else
    echo "load average ${la:-unknown} ($(nproc) CPUs)"
  fi
}

# bench_spread: "min / median / max" of the numbers on stdin, each as human.
bench_spread() {
  nums=$(tr ' ' '\n' | sed '/^$/d' | sort -n)
  [ -n "$nums" ] || { echo "n/a"; return; }
  lo=$(printf '%s\n' "$nums" | head -n 1)
  hi=$(printf '%s\n' "$nums" | tail -n 1)
  mid=$(printf '%s\n' "$nums" | bench_median)
  echo "$(human "$lo") / $(human "$mid") / $(human "$hi")"
}

# bench_spread1: the same with one decimal (MB/s).
bench_spread1() {
  nums=$(tr ' ' '\n' | sed '/^$/d' | sort -n)
  [ -n "$nums" ] || { echo "n/a"; return; }
  printf '%s\n' "$nums" | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f / %.1f / %.1f\n", v[1], m, v[NR] }'
}

# bench_ratio_range A B: the smallest and largest of A[i]/B[i] over two
# equal-length lists of numbers (runs paired in order), as "LO–HI".
bench_ratio_range() {
  printf '%s\n%s\n' "$1" "$2" | awk '
    NR == 1 { n = split($0, a, " ") }
    NR == 2 { m = split($0, b, " "); lo = ""; hi = ""
              for (i = 1; i <= n && i <= m; i++) { if (b[i] + 0 == 0) continue; r = a[i] / b[i]
                if (lo == "" || r < lo) lo = r; if (hi == "" || r > hi) hi = r }
              if (lo == "") print "n/a"; else printf "%.2f–%.2f\n", lo, hi }'
}
