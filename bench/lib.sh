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
