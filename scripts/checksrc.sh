#!/bin/sh
# checksrc.sh — the house style, checked rather than argued: banned
# functions, each library's headers in its one file, the opening comment
# every file has, JSON adds that cannot lose an item, arrays grown by
# oc_array_grow only (no realloc, no capacity doubled by hand), and no copy
# of a helper that has its home elsewhere.
# POSIX sh and awk, a second for the whole tree; `make check` runs it
# (tests/style/run.sh, which also feeds it tests/style/bad-*.c to prove
# that every rule bites).  What the rules are for: HACKING.md.
#
#   scripts/checksrc.sh [FILE...]    (default: the C sources under src/,
#                                     tests/ and bench/ of the tree)
#
# Prints FILE:LINE: RULE: what is wrong, and what to use instead; exits 1
# when it printed anything.  A line that has a reason to break a rule
# says so in a comment holding "checksrc:" on that line or the one above
# (`/* checksrc: the buffer's own growth */`); the reason is for readers,
# the script only looks for the word.  Rules that guard the program (not
# its tests) apply to src/ only.

# Each library's headers, and the one file of src/ that may include them
# (ARCHITECTURE.md, "Modules").  A second user (say, a proxy on
# libmicrohttpd) is a second row with the same header.
LIBRARY_HEADERS='
curl/          http.c
zlib.h         cassette.c
microhttpd.h   server.c
microhttpd.h   proxy.c
pcre2          regex.c
'

# Helpers that have one home: a pattern (an awk ERE without blanks), the
# only module of src/ that may match it (its .c and .h; "-": none), what
# to use instead.  Found with `duplicates`
# (see HACKING.md) and kept from coming back.
ONE_HOME='
static[^(]*[^_a-z]hexval[[:blank:]]*\(              -        oc_hexval (util.h)
getopt(_long)?[[:blank:]]*\(                         -        the option table of cli.h
strcmp[[:blank:]]*\(argv\[[a-z_]+\]                  cli.c    the option table of cli.h
oc_targets_build[[:blank:]]*\(                        target.c oc_targets_build_for (its errors said once)
'

if [ $# -eq 0 ]; then
  cd "$(dirname "$0")/.." || exit 2
  set -- src/*.c src/*.h src/*.def tests/unit/*.c tests/unit/*.h tests/torture/*.c \
    tests/torture/*.h tests/fuzz/*.c tests/fuzz/*.h tests/e2e/*.c tests/compile/*.c bench/*.c bench/*.h
fi

# through the environment: awk would read backslashes in -v values
export LIBRARY_HEADERS ONE_HOME
awk '
function base(path,   n, p) { n = split(path, p, "/"); return p[n] }
function in_src(path) { return path ~ /(^|\/)src\/[^\/]+$/ }
function stem(file) { sub(/\.[^.]*$/, "", file); return file }
function report(rule, msg) {
  if(allowed[FNR] || allowed[FNR - 1])
    return
  printf "%s:%d: %s: %s\n", FILENAME, FNR, rule, msg
  bad = 1
}
BEGIN {
  nh = split(ENVIRON["LIBRARY_HEADERS"], hl, "\n")
  for(i = 1; i <= nh; i++)
    if(split(hl[i], f, " ") >= 2) { hdr[++nhdr] = f[1]; hdr_home[nhdr] = f[2] }
  no = split(ENVIRON["ONE_HOME"], ol, "\n")
  for(i = 1; i <= no; i++) {
    if(ol[i] !~ /[^ ]/) continue
    # the pattern is the first run of non-blanks; the home and the advice follow
    match(ol[i], /^[^ ]+/)
    pat[++npat] = substr(ol[i], 1, RLENGTH)
    rest = substr(ol[i], RLENGTH + 1)
    sub(/^[ \t]+/, "", rest)
    match(rest, /^[^ ]+/)
    pat_home[npat] = substr(rest, 1, RLENGTH)
    pat_use[npat] = substr(rest, RLENGTH + 1)
    sub(/^[ \t]+/, "", pat_use[npat])
  }
}
FNR == 1 {
  split("", allowed)
  in_comment = 0
  fmt_line = 0
  name = base(FILENAME)
  src = in_src(FILENAME)
  # the opening comment: "/* NAME — what it does"
  if(index($0, "/* " name " \342\200\224 ") != 1)
    report("OPENING", "the file must open with \"/* " name " — what it does\" (and what it leaves to others)")
}
{
  raw = $0
  if(index(raw, "checksrc:"))
    allowed[FNR] = 1
  was_comment = in_comment
  # blank out comments and string and character literals, keeping columns
  line = ""
  n = length(raw)
  for(i = 1; i <= n; i++) {
    c = substr(raw, i, 1)
    if(in_comment) {
      if(c == "*" && substr(raw, i + 1, 1) == "/") { in_comment = 0; i++; line = line "  " }
      else line = line " "
      continue
    }
    if(c == "/" && substr(raw, i + 1, 1) == "*") { in_comment = 1; i++; line = line "  "; continue }
    if(c == "/" && substr(raw, i + 1, 1) == "/") break
    if(c == "\"" || c == "\047") {
      q = c; line = line q
      for(i++; i <= n; i++) {
        c = substr(raw, i, 1)
        if(c == "\\") { i++; line = line "  "; continue }
        if(c == q) break
        line = line " "
      }
      line = line q
      continue
    }
    line = line c
  }
  # a "checksrc:" comment covers the code right below it, however many
  # lines the comment takes
  if(line !~ /[^ \t]/ && allowed[FNR - 1] && (was_comment || raw ~ /\/[*\/]/))
    allowed[FNR] = 1

  # banned functions: no bound, or no error
  if(match(line, /(^|[^A-Za-z0-9_])(atoi|atol|atoll|sprintf|vsprintf|strcpy|strcat|strncpy|strncat|strtok|gets)[ \t]*\(/)) {
    fn = substr(line, RSTART, RLENGTH); gsub(/[^A-Za-z]/, "", fn)
    use = fn ~ /^ato/ ? "oc_parse_long" : fn ~ /sprintf/ ? "snprintf or oc_buf_printf" : \
          fn == "strtok" ? "strcspn/strspn on a const string" : fn == "gets" ? "fgets" : "oc_strlcpy or an oc_buf"
    report("BANNED", fn "() is banned (no bound or no error to check): use " use)
  }

  if(src && match(raw, /^[ \t]*#[ \t]*include[ \t]*<[^>]+>/)) {
    h = raw; sub(/^[^<]*</, "", h); sub(/>.*/, "", h)
    homes = ""; ok = 0
    for(k = 1; k <= nhdr; k++)
      if(index(h, hdr[k]) == 1) {
        homes = homes (homes == "" ? "" : " and ") hdr_home[k]
        if(name == hdr_home[k]) ok = 1
      }
    if(homes != "" && !ok)
      report("HEADER", "<" h "> belongs to " homes " alone: go through its oc_ interface")
  }

  if(src && name != "json.c" && match(line, /cJSON_(AddItemTo|AddItemReferenceTo|ReplaceItemIn)[A-Za-z]*[ \t]*\(/))
    report("JSON-ADD", "cJSON keeps no item it could not add (a leak and a lost field): use oc_json_add, oc_json_put or oc_json_set (json.h)")
  if(src && match(line, /^[ \t]*cJSON_Add[A-Za-z]*To(Object|Array)[ \t]*\(/))
    report("JSON-ADD", "the result of this add is dropped, so a failure loses the field silently: use oc_json_put (json.h) and check once")

  if(src && name != "util.c" && match(line, /(^|[^A-Za-z0-9_])realloc[ \t]*\(/))
    report("REALLOC", "arrays grow through oc_array_grow (overflow-checked); a realloc that must stay says why in a checksrc: comment")

  # the capacity idiom "a ? a * 2 : 8": the same name on both sides
  if(src && name != "util.c" && match(line, /[A-Za-z0-9_>.-]+[ \t]*\?[ \t]*[A-Za-z0-9_>.-]+[ \t]*\*[ \t]*2[ \t]*:/)) {
    d = substr(line, RSTART, RLENGTH)
    split(d, side, "?")
    lhs = side[1]; rhs = side[2]
    gsub(/[ \t]/, "", lhs); sub(/\*.*/, "", rhs); gsub(/[ \t]/, "", rhs)
    if(lhs == rhs)
      report("DOUBLING", "a capacity doubled by hand, with no overflow check: use oc_array_grow (util.h)")
  }

  # an error formatter written again: a message formatted, then wrapped
  if(src && match(line, /(^|[^A-Za-z0-9_])vsnprintf[ \t]*\(/))
    fmt_line = FNR
  else if(src && fmt_line && FNR - fmt_line <= 3 && match(line, /(^|[^A-Za-z0-9_])snprintf[ \t]*\(/)) {
    report("ONE-HOME", "an error formatter again (a message formatted, then wrapped): use oc_errv (util.h)")
    fmt_line = 0
  }

  if(src)
    for(k = 1; k <= npat; k++)
      if(stem(name) != stem(pat_home[k]) && match(line, pat[k]))
        report("ONE-HOME", "this helper has its home elsewhere: use " pat_use[k])
}
END { exit bad }
' "$@"
