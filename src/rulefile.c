/* rulefile.c — reading rule test files (tests/rules/README.md): directives,
 * then "--- request METHOD PATH" and "--- response" sections whose bytes
 * are literal but for two escapes; and comparing a run's findings with the
 * "finding" lines.  Running the exchange is the caller's (response.c);
 * the response bytes are parsed by exchange.c like any recorded response. */
#include "config.h"
#include "rulefile.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "exchange.h"
#include "util.h"

void oc_rulefile_init(struct oc_rulefile *rf)
{
  memset(rf, 0, sizeof(*rf));
  rf->profile = oc_profile_default();
  oc_ruleset_init(&rf->related);
  oc_ruleset_init(&rf->listed);
  oc_cassette_init(&rf->ex);
}

void oc_rulefile_free(struct oc_rulefile *rf)
{
  if(!rf)
    return;
  free(rf->file);
  free(rf->what);
  free(rf->expect_case);
  for(size_t i = 0; i < rf->nfindings; i++)
    free(rf->findings[i].path);
  free(rf->findings);
  oc_cassette_free(&rf->ex);
  oc_rulefile_init(rf);
}

/* ---- escapes ------------------------------------------------------------------ */

/* One hex byte "HH" at p (exactly two digits); -1 when it is not one.
 * strtoul on a copy: no hand-rolled digit table. */
static int hex_byte(const char *p, size_t n)
{
  if(n != 2 || !strchr("0123456789abcdefABCDEF", p[0]) || !strchr("0123456789abcdefABCDEF", p[1]) ||
     !p[0] || !p[1])
    return -1;
  char two[3] = { p[0], p[1], 0 };
  return (int)strtoul(two, NULL, 16);
}

int oc_rulefile_unescape(const char *p, size_t n, struct oc_buf *out, const char *name, int line,
                         char *err, size_t errlen)
{
  int rc = OC_OK;
  for(size_t i = 0; i < n && !rc;) {
    if(p[i] == '\n')
      line++;
    if(p[i] != '\\') {
      rc = oc_buf_addc(out, p[i++]);
      continue;
    }
    /* a backslash ending a line: neither it nor the newline is a byte */
    if(i + 1 < n && p[i + 1] == '\n') {
      i += 2;
      line++;
      continue;
    }
    if(i + 1 == n) {
      i++; /* the very end of the text: the same, with no newline left to eat */
      continue;
    }
    if(i + 2 < n && p[i + 1] == 'x' && p[i + 2] == '{') {
      const char *close = memchr(p + i + 3, '}', n - i - 3);
      const char *nl = memchr(p + i + 3, '\n', n - i - 3);
      if(!close || (nl && nl < close)) {
        snprintf(err, errlen, "%s:%d: '\\x{' without its closing '}' on the same line", name, line);
        return OC_EPARSE;
      }
      for(const char *q = p + i + 3; q < close;) {
        while(q < close && *q == ' ')
          q++;
        if(q == close)
          break;
        size_t tok = strcspn(q, " }");
        const char *star = memchr(q, '*', tok);
        int b = hex_byte(q, star ? (size_t)(star - q) : tok);
        long times = 1;
        if(star) {
          char num[16];
          size_t nlen = tok - (size_t)(star - q) - 1;
          if(nlen == 0 || nlen >= sizeof(num)) {
            b = -1;
          }
          else {
            memcpy(num, star + 1, nlen);
            num[nlen] = '\0';
            if(oc_parse_long(num, 1, (long)OC_CAP_BODY, &times))
              b = -1;
          }
        }
        if(b < 0) {
          snprintf(err, errlen, "%s:%d: '\\x{%.*s}': each item is two hex digits, optionally "
                   "followed by *COUNT (\\x{0d 0a}, \\x{61*4096})", name, line,
                   (int)(close - p - (long)i - 3), p + i + 3);
          return OC_EPARSE;
        }
        if(out->len + (size_t)times > out->max) {
          snprintf(err, errlen, "%s:%d: the section grows past %zu bytes", name, line, out->max);
          return OC_ETOOBIG;
        }
        for(long k = 0; k < times && !rc; k++)
          rc = oc_buf_addc(out, (char)b);
        q += tok;
      }
      i = (size_t)(close - p) + 1;
      continue;
    }
    rc = oc_buf_addc(out, p[i++]);
  }
  if(rc)
    snprintf(err, errlen, "%s:%d: %s", name, line,
             rc == OC_ETOOBIG ? "the section is larger than the body cap" : "out of memory");
  return rc;
}

/* ---- directives ------------------------------------------------------------------ */

static int set_err(char *err, size_t errlen, int rc, const char *name, int line, const char *fmt,
                   ...) __attribute__((format(printf, 6, 7)));

/* "NAME:LINE: what is wrong" into err; returns rc. */
static int set_err(char *err, size_t errlen, int rc, const char *name, int line, const char *fmt,
                   ...)
{
  char where[600];
  snprintf(where, sizeof(where), "%s:%d", name, line);
  va_list ap;
  va_start(ap, fmt);
  oc_errv(NULL, err, errlen, where, fmt, ap);
  va_end(ap);
  return rc;
}

static const struct oc_rule *rule_arg(const char *tok, size_t n)
{
  char id[64];
  if(n == 0 || n >= sizeof(id))
    return NULL;
  memcpy(id, tok, n);
  id[n] = '\0';
  return oc_rule_find(id);
}

/* "finding RULE SEVERITY [chunk N] [byte N] [path POINTER]" (path last:
 * the rest of the line, so a pointer may hold spaces). */
static int parse_finding(struct oc_rulefile *rf, char *s, const char *name, int line, char *err,
                         size_t errlen)
{
  struct oc_rulefile_finding f = { .chunk = -1, .byte = -1, .line = line };
  size_t n = strcspn(s, " ");
  const struct oc_rule *r = rule_arg(s, n);
  if(!r)
    return set_err(err, errlen, OC_EPARSE, name, line, "'finding %s': not a rule of the catalogue", s);
  f.rule = r->rid;
  s += n;
  while(*s == ' ')
    s++;
  n = strcspn(s, " ");
  char sev[16];
  snprintf(sev, sizeof(sev), "%.*s", (int)(n < 15 ? n : 15), s);
  int sv = oc_severity_parse(sev);
  if(sv < 0 || n >= 15)
    return set_err(err, errlen, OC_EPARSE, name, line,
                   "finding: the severity after the rule is error, warning or info, not '%s'", sev);
  f.severity = (enum oc_severity)sv;
  s += n;
  while(*s) {
    while(*s == ' ')
      s++;
    if(!*s)
      break;
    n = strcspn(s, " ");
    if(n == 4 && strncmp(s, "path", 4) == 0) {
      const char *v = s + 4;
      while(*v == ' ')
        v++;
      if(!*v)
        return set_err(err, errlen, OC_EPARSE, name, line, "finding: 'path' wants a JSON pointer");
      f.path = oc_strdup(strcmp(v, "\"\"") == 0 ? "" : v); /* "" is the whole document */
      if(!f.path)
        return set_err(err, errlen, OC_ENOMEM, name, line, "out of memory");
      break;
    }
    int is_chunk = n == 5 && strncmp(s, "chunk", 5) == 0;
    int is_byte = n == 4 && strncmp(s, "byte", 4) == 0;
    if(!is_chunk && !is_byte) {
      free(f.path);
      return set_err(err, errlen, OC_EPARSE, name, line,
                     "finding: expected chunk N, byte N or path POINTER at '%s'", s);
    }
    s += n;
    while(*s == ' ')
      s++;
    n = strcspn(s, " ");
    char num[24];
    long v = 0;
    snprintf(num, sizeof(num), "%.*s", (int)(n < 23 ? n : 23), s);
    if(n >= 23 || oc_parse_long(num, is_chunk ? 1 : 0, (long)OC_CAP_BODY, &v))
      return set_err(err, errlen, OC_EPARSE, name, line, "finding: '%s' is not a chunk or byte number", num);
    if(is_chunk)
      f.chunk = v;
    else
      f.byte = v;
    s += n;
  }
  struct oc_rulefile_finding *d = oc_array_grow(rf->findings, &rf->afindings, rf->nfindings + 1,
                                                sizeof(*d));
  if(!d) {
    free(f.path);
    return set_err(err, errlen, OC_ENOMEM, name, line, "out of memory");
  }
  rf->findings = d;
  rf->findings[rf->nfindings++] = f;
  oc_ruleset_set(&rf->listed, f.rule);
  return OC_OK;
}

static int parse_directive(struct oc_rulefile *rf, char *s, const char *name, int line, char *err,
                           size_t errlen)
{
  size_t n = strcspn(s, " ");
  char *arg = s + n;
  while(*arg == ' ')
    arg++;
  if(n == 7 && strncmp(s, "finding", 7) == 0)
    return parse_finding(rf, arg, name, line, err, errlen);
  if(n == 7 && strncmp(s, "related", 7) == 0) {
    for(char *p = arg; *p;) {
      size_t k = strcspn(p, " ");
      const struct oc_rule *r = rule_arg(p, k);
      if(!r)
        return set_err(err, errlen, OC_EPARSE, name, line, "related: '%s' is not a rule of the catalogue", p);
      oc_ruleset_set(&rf->related, r->rid);
      p += k;
      while(*p == ' ')
        p++;
    }
    return OC_OK;
  }
  if(n == 6 && strncmp(s, "breaks", 6) == 0) {
    rf->breaks_given = 1;
    for(char *p = arg; *p;) {
      size_t k = strcspn(p, " ");
      char c = p[k];
      p[k] = '\0';
      int id = oc_client_find(p), agent = id < 0 ? oc_agent_find(p) : -1;
      if(id < 0 && agent < 0)
        return set_err(err, errlen, OC_EPARSE, name, line,
                       "breaks: '%s' is not a client model or agent (oacheck run --help lists them)", p);
      rf->breaks |= agent >= 0 ? OC_CLIENTS_AGENT(agent) : 1u << id;
      p[k] = c;
      p += k;
      while(*p == ' ')
        p++;
    }
    return OC_OK;
  }
  if(n == 4 && strncmp(s, "what", 4) == 0) {
    free(rf->what);
    rf->what = oc_strdup(arg);
    return rf->what ? OC_OK : OC_ENOMEM;
  }
  if(n == 7 && strncmp(s, "profile", 7) == 0) {
    rf->profile = oc_profile_find(arg);
    return rf->profile ? OC_OK
                       : set_err(err, errlen, OC_EPARSE, name, line,
                                 "profile: '%s' is not openai, llama-server, vllm or ollama", arg);
  }
  if(n == 7 && strncmp(s, "partial", 7) == 0) {
    if(strcmp(arg, "yes") != 0 && strcmp(arg, "no") != 0)
      return set_err(err, errlen, OC_EPARSE, name, line, "partial: yes or no, not '%s'", arg);
    rf->partial = strcmp(arg, "yes") == 0;
    return OC_OK;
  }
  if(n == 4 && strncmp(s, "case", 4) == 0) {
    free(rf->expect_case);
    rf->expect_case = oc_strdup(arg);
    return rf->expect_case ? OC_OK : OC_ENOMEM;
  }
  if(n == 6 && strncmp(s, "timing", 6) == 0) {
    long ms;
    if(oc_parse_long(arg, 0, 86400000, &ms))
      return set_err(err, errlen, OC_EPARSE, name, line, "timing: milliseconds, not '%s'", arg);
    rf->ex.timing_recorded = 1;
    rf->ex.headers_ns = (uint64_t)ms * 1000000u;
    return OC_OK;
  }
  return set_err(err, errlen, OC_EPARSE, name, line,
                 "unknown directive '%s' (what, profile, partial, case, timing, related, breaks, finding, "
                 "or a '--- request'/'--- response' section)", s);
}

/* ---- the file --------------------------------------------------------------------- */

/* The next line of buf from *pos: its start and length (without the
 * newline); 0 at the end. */
static int next_line(const char *buf, size_t len, size_t *pos, const char **line, size_t *n)
{
  if(*pos >= len)
    return 0;
  const char *s = buf + *pos;
  const char *nl = memchr(s, '\n', len - *pos);
  *line = s;
  *n = nl ? (size_t)(nl - s) : len - *pos;
  *pos += *n + (nl ? 1 : 0);
  return 1;
}

/* Is this line a directive the format knows (its first word)? */
static int known_directive(const char *l, size_t n)
{
  static const char *const words[] = { "what", "profile", "partial", "case", "timing", "related",
                                       "breaks", "finding" };
  size_t w = strcspn(l, " \n");
  if(w > n)
    w = n;
  for(size_t i = 0; i < OC_ARRAY_LEN(words); i++)
    if(strlen(words[i]) == w && strncmp(l, words[i], w) == 0)
      return 1;
  return 0;
}

int oc_rulefile_sniff(const char *buf, size_t len)
{
  size_t pos = 0, n;
  const char *l;
  int in_request = 0;
  while(next_line(buf, len, &pos, &l, &n)) {
    if(n >= 12 && strncmp(l, "--- response", 12) == 0)
      return 1;
    if(n >= 12 && strncmp(l, "--- request ", 12) == 0)
      in_request = 1;
    else if(!in_request && n && l[0] != '#' && !known_directive(l, n))
      return 0;
  }
  return 0;
}

int oc_rulefile_parse(const char *buf, size_t len, const char *name, struct oc_rulefile *rf,
                      char *err, size_t errlen)
{
  oc_rulefile_init(rf);
  int rc = OC_OK, lineno = 0;
  size_t pos = 0, n;
  const char *l;
  size_t req_start = 0, req_end = 0, resp_start = 0;
  int req_line = 0, resp_line = 0, in_request = 0;
  char *copy = NULL;
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_BODY);
  struct oc_exchange ex;
  memset(&ex, 0, sizeof(ex));
  oc_headers_init(&ex.headers);
  char *method = NULL, *path = NULL, *req = NULL;
  size_t req_len = 0;
  uint64_t t_ns = rf->ex.headers_ns;
  rf->file = oc_strdup(name);
  if(!rf->file) {
    rc = OC_ENOMEM;
    goto out;
  }
  while(next_line(buf, len, &pos, &l, &n)) {
    lineno++;
    free(copy);
    copy = oc_strndup(l, n);
    if(!copy) {
      rc = OC_ENOMEM;
      goto out;
    }
    if(n >= 3 && strncmp(l, "---", 3) == 0) {
      if(strcmp(copy, "--- response") == 0) {
        if(in_request)
          req_end = (size_t)(l - buf);
        resp_start = pos;
        resp_line = lineno + 1;
        break;
      }
      if(strncmp(copy, "--- request ", 12) == 0 && !req_line) {
        char *sp = strchr(copy + 12, ' ');
        if(!sp || sp[1] != '/' || strchr(sp + 1, ' ')) {
          rc = set_err(err, errlen, OC_EPARSE, name, lineno,
                       "'--- request' wants a method and a path: "
                       "'--- request POST /v1/chat/completions'");
          goto out;
        }
        *sp = '\0';
        method = oc_strdup(copy + 12);
        path = oc_strdup(sp + 1);
        if(!method || !path) {
          rc = OC_ENOMEM;
          goto out;
        }
        in_request = 1;
        req_start = pos;
        req_line = lineno + 1;
        continue;
      }
      rc = set_err(err, errlen, OC_EPARSE, name, lineno,
                   "'%.60s': the sections are '--- request METHOD PATH' (once) and "
                   "'--- response' (last)", copy);
      goto out;
    }
    if(in_request || n == 0 || l[0] == '#')
      continue;
    rc = parse_directive(rf, copy, name, lineno, err, errlen);
    if(rc)
      goto out;
  }
  if(!resp_line) {
    rc = set_err(err, errlen, OC_EPARSE, name, lineno ? lineno : 1,
                 "no '--- response' line: a rule test ends with the response as received");
    goto out;
  }
  if(!req_line) {
    rc = set_err(err, errlen, OC_EPARSE, name, resp_line - 1,
                 "no '--- request METHOD PATH' section before the response");
    goto out;
  }
  /* the request body: its lines without the last newline; none when empty */
  if(req_end > req_start) {
    size_t rn = req_end - req_start;
    if(buf[req_start + rn - 1] == '\n')
      rn--;
    rc = oc_rulefile_unescape(buf + req_start, rn, &b, name, req_line, err, errlen);
    if(rc)
      goto out;
    req = oc_buf_take(&b, &req_len);
    if(!req) {
      rc = OC_ENOMEM;
      goto out;
    }
  }
  rc = oc_rulefile_unescape(buf + resp_start, len - resp_start, &b, name, resp_line, err, errlen);
  if(rc)
    goto out;
  char perr[300];
  rc = oc_exchange_parse_response(oc_buf_str(&b), b.len, 0, &ex, perr, sizeof(perr));
  if(rc) {
    snprintf(err, errlen, "%s:%d: the response: %s (bytes counted from this line)", name,
             resp_line, perr);
    goto out;
  }
  ex.name = oc_strdup(name);
  ex.method = method;
  ex.path = path;
  ex.request = req;
  ex.request_len = req_len;
  method = path = req = NULL;
  int timed = rf->ex.timing_recorded;
  t_ns = rf->ex.headers_ns;
  oc_cassette_free(&rf->ex);
  rc = ex.name ? oc_cassette_from_exchange(&ex, &rf->ex) : OC_ENOMEM;
  if(rc)
    goto out;
  if(timed) {
    /* "timing MS": the head and the whole body arrived MS after the request */
    rf->ex.timing_recorded = 1;
    rf->ex.headers_ns = t_ns;
    rf->ex.npieces = 0;
    if(rf->ex.body_len) {
      struct oc_cassette_piece *pc = oc_array_grow(rf->ex.pieces, &rf->ex.apieces, 1, sizeof(*pc));
      if(!pc) {
        rc = OC_ENOMEM;
        goto out;
      }
      rf->ex.pieces = pc;
      pc[0].end = rf->ex.body_len;
      pc[0].t_ns = t_ns;
      rf->ex.npieces = 1;
    }
  }
  if(rf->nfindings == 0 && (!oc_ruleset_empty(&rf->related) || rf->breaks)) {
    rc = set_err(err, errlen, OC_EPARSE, name, 1,
                 "'%s' without any 'finding': in a clean case nothing may fire",
                 rf->breaks ? "breaks" : "related");
    goto out;
  }
out:
  free(copy);
  free(method);
  free(path);
  free(req);
  oc_buf_free(&b);
  oc_exchange_free(&ex);
  if(rc) {
    if(rc == OC_ENOMEM)
      snprintf(err, errlen, "%s: out of memory", name);
    oc_rulefile_free(rf);
  }
  return rc;
}

int oc_rulefile_read(const char *path, struct oc_rulefile *rf, char *err, size_t errlen)
{
  char *buf = NULL;
  size_t len = 0;
  oc_rulefile_init(rf);
  int rc = oc_read_file(path, OC_CAP_FILE, &buf, &len, err, errlen);
  if(rc)
    return rc;
  rc = oc_rulefile_parse(buf, len, path, rf, err, errlen);
  free(buf);
  return rc;
}

/* ---- comparing ------------------------------------------------------------------------ */

static int same_finding(const struct oc_rulefile_finding *w, const struct oc_finding *f)
{
  return w->rule == f->rule && w->severity == f->severity &&
         w->chunk == (f->chunk >= 1 ? f->chunk : -1) && w->byte == (f->byte >= 0 ? f->byte : -1) &&
         oc_streq(w->path, f->path);
}

static void describe(struct oc_buf *why, const char *lead, enum oc_rule_id rule, int sev, long chunk,
                     int64_t byte, const char *path, const char *msg)
{
  oc_buf_printf(why, "%s %s %s", lead, oc_rule_name(rule), oc_severity_name((enum oc_severity)sev));
  if(chunk >= 1)
    oc_buf_printf(why, " chunk %ld", chunk);
  if(byte >= 0)
    oc_buf_printf(why, " byte %lld", (long long)byte);
  if(path)
    oc_buf_printf(why, " path %s", path);
  if(msg)
    oc_buf_printf(why, " (%s)", msg);
  oc_buf_addc(why, '\n');
}

size_t oc_rulefile_compare(const struct oc_rulefile *rf, const struct oc_findings *f,
                           struct oc_buf *why)
{
  size_t bad = 0;
  unsigned char *used = calloc(rf->nfindings + 1, 1);
  if(!used) {
    oc_buf_adds(why, "out of memory\n");
    return 1;
  }
  unsigned broken = 0;
  for(size_t i = 0; i < f->count; i++) {
    const struct oc_finding *x = &f->items[i];
    if(!x->message || !*x->message) {
      describe(why, "a finding without a message:", x->rule, x->severity, x->chunk, x->byte, x->path, NULL);
      bad++;
    }
    if(x->rule == OC_R_CLIENT_BREAKS)
      broken |= x->clients;
    if(x->rule == OC_R_CLIENT_BREAKS && rf->breaks_given && !oc_ruleset_has(&rf->listed, x->rule))
      continue; /* judged by name below */
    /* a clean case may still show a client's limitation (info: OpenAI's
     * own answer breaks it too, as response.incomplete does the Agents
     * SDK): nothing the server did */
    if(x->rule == OC_R_CLIENT_BREAKS && rf->nfindings == 0 && x->severity == OC_SEV_INFO)
      continue;
    if(!oc_ruleset_has(&rf->listed, x->rule)) {
      if(!oc_ruleset_has(&rf->related, x->rule)) {
        describe(why, "fired, not expected:", x->rule, x->severity, x->chunk, x->byte, x->path, x->message);
        bad++;
      }
      continue;
    }
    size_t k = 0;
    while(k < rf->nfindings && (used[k] || !same_finding(&rf->findings[k], x)))
      k++;
    if(k < rf->nfindings)
      used[k] = 1;
    else {
      describe(why, "fired, not expected:", x->rule, x->severity, x->chunk, x->byte, x->path, x->message);
      bad++;
    }
  }
  /* findings over the per-rule cap are only counted: a file must not
   * expect more than the findings list can show */
  for(size_t i = 0; i < f->ncounts; i++)
    if(f->counts[i].total > f->counts[i].kept && oc_ruleset_has(&rf->listed, f->counts[i].rule)) {
      oc_buf_printf(why, "%s fired %zu times, only %zu kept: lift the cap to compare\n",
                    oc_rule_name(f->counts[i].rule), f->counts[i].total, f->counts[i].kept);
      bad++;
    }
  for(size_t k = 0; k < rf->nfindings; k++)
    if(!used[k]) {
      const struct oc_rulefile_finding *w = &rf->findings[k];
      char lead[64];
      snprintf(lead, sizeof(lead), "line %d: expected, did not fire:", w->line);
      describe(why, lead, w->rule, w->severity, w->chunk, w->byte, w->path, NULL);
      bad++;
    }
  if(rf->breaks_given && broken != rf->breaks) {
    for(int i = 0; i < OC_CLIENT__COUNT; i++)
      if(((broken ^ rf->breaks) >> i) & 1u) {
        oc_buf_printf(why, "%s: %s\n", oc_client_name((enum oc_client_id)i),
                      (broken >> i) & 1u ? "breaks, not expected (breaks)" : "expected to break, does not");
        bad++;
      }
    for(int a = 0; a < OC_AGENT__COUNT; a++)
      if((broken ^ rf->breaks) & OC_CLIENTS_AGENT(a)) {
        oc_buf_printf(why, "%s: %s\n", oc_agent_name((enum oc_agent_id)a),
                      broken & OC_CLIENTS_AGENT(a) ? "breaks, not expected (breaks)" : "expected to break, does not");
        bad++;
      }
  }
  free(used);
  return bad;
}

/* ---- listing -------------------------------------------------------------------------- */

static int cmp_path(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_path(char ***paths, size_t *n, size_t *alloc, char *p)
{
  if(!p)
    return OC_ENOMEM;
  char **d = oc_array_grow(*paths, alloc, *n + 1, sizeof(*d));
  if(!d) {
    free(p);
    return OC_ENOMEM;
  }
  *paths = d;
  (*paths)[(*n)++] = p;
  return OC_OK;
}

int oc_rulefile_list(const char *dir, char ***paths, size_t *n, char *err, size_t errlen)
{
  size_t alloc = *n, first = *n;
  DIR *d = opendir(dir);
  if(!d) {
    snprintf(err, errlen, "%s: cannot open the directory", dir);
    return OC_ENOTFOUND;
  }
  int rc = OC_OK;
  struct dirent *e;
  while(!rc && (e = readdir(d))) {
    if(e->d_name[0] == '.')
      continue;
    char *sub = oc_path_join(dir, e->d_name);
    if(!sub) {
      rc = OC_ENOMEM;
      break;
    }
    if(oc_endswith(e->d_name, OC_RULEFILE_EXT) && oc_is_file(sub)) {
      rc = add_path(paths, n, &alloc, sub);
      continue;
    }
    if(oc_is_dir(sub)) {
      DIR *s = opendir(sub);
      struct dirent *f;
      while(!rc && s && (f = readdir(s)))
        if(f->d_name[0] != '.' && oc_endswith(f->d_name, OC_RULEFILE_EXT))
          rc = add_path(paths, n, &alloc, oc_path_join(sub, f->d_name));
      if(s)
        closedir(s);
    }
    free(sub);
  }
  closedir(d);
  if(rc)
    snprintf(err, errlen, "%s: out of memory", dir);
  else
    qsort(*paths + first, *n - first, sizeof(**paths), cmp_path);
  return rc;
}
