/* rulesutil.h — helpers shared by the tests of the rule catalogue
 * (check_rules, check_mutations, check_recordings, check_accumulator):
 * the shipped schemas loaded once, an exchange written as C data run
 * through oc_response_analyze() or through a suite case's expectations,
 * recordings loaded from ../shared, and findings rendered as a sorted
 * "RULE:severity" multiset so that a table of expected verdicts can be
 * compared in one string.  The rules themselves are src/'s business. */
#ifndef OC_RULESUTIL_H
#define OC_RULESUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exchange.h"
#include "expect.h"
#include "finding.h"
#include "json.h"
#include "response.h"
#include "rules.h"
#include "schema.h"
#include "suite.h"
#include "testutil.h"
#include "util.h"

/* Loaded once in main() before the runner forks; read-only afterwards. */
static struct oc_schemas rt_schemas;
static struct oc_schema *rt_suite_schema;

/* Load the shipped schemas from the source tree (not from an installed
 * copy, not from ../shared).  Exits 99 when they cannot be loaded. */
static inline void rt_setup(void)
{
  const char *src = getenv("OACHECK_SRCDIR");
  if(src && *src)
    setenv("OACHECK_DATADIR", src, 1);
  char err[1024];
  if(oc_schemas_load(&rt_schemas, err, sizeof(err))) {
    fprintf(stderr, "cannot load the shipped schemas: %s\n", err);
    exit(99);
  }
  rt_suite_schema = oc_schema_compile_uri(rt_schemas.reg, OC_SCHEMA_SHIPPED_BASE "suite.schema.json", 0,
                                          err, sizeof(err));
  if(!rt_suite_schema) {
    fprintf(stderr, "cannot compile the suite schema: %s\n", err);
    exit(99);
  }
}

static inline void rt_teardown(void)
{
  oc_schema_free(rt_suite_schema);
  oc_schemas_free(&rt_schemas);
}

/* ---- exchanges as data --------------------------------------------------- */

/* One exchange.  headers is "Name: value" lines separated by '\n' (NULL:
 * none); len 0 means strlen(body).  t_end_ms > 0 replays the body as if it
 * all arrived that many milliseconds after the request was sent (timing
 * "recorded"), which is what a timing budget needs. */
struct rt_ex {
  const char *method;
  const char *path;
  const char *request;
  int status;
  const char *headers;
  const char *body;
  size_t len;
  const size_t *pieces;
  size_t npieces;
  double t_end_ms;
};

static inline void rt_headers(struct oc_headers *h, const char *text)
{
  oc_headers_init(h);
  for(const char *p = text; p && *p;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    if(n)
      ck_assert_int_eq(oc_headers_parse_line(h, p, n), OC_OK);
    p += n + (nl ? 1 : 0);
  }
}

static inline size_t rt_len(const struct rt_ex *x)
{
  return x->len ? x->len : (x->body ? strlen(x->body) : 0);
}

/* The verdict policy of the helpers: strict (every severity as the
 * catalogue and the profile give it, the specification's verdict) unless
 * a test turns it off to see the default policy (verdict.c). */
static int rt_strict = 1;
/* The clients selected (rules.h): today's seven, as a run without
 * --clients; check_clients sets every model, last year's majors too. */
static unsigned rt_clients = OC_CLIENTS_DEFAULT;

/* The policy every helper uses: profile by name (NULL: openai), no cap on
 * findings per rule (tables count every one), partial as given. */
static inline void rt_policy(struct oc_check *c, struct oc_findings *out, const char *profile,
                             int partial)
{
  const struct oc_profile *p = oc_profile_find(profile ? profile : "openai");
  ck_assert_msg(p != NULL, "no profile '%s'", profile);
  oc_findings_init(out);
  out->per_rule_max = 0;
  oc_check_init(c, out, p);
  c->partial = partial;
  c->strict = rt_strict;
  c->clients = rt_clients;
}

/* Run x through every generic rule; findings go to *out (caller frees),
 * the client models' verdicts to verdicts (OC_CLIENT__COUNT; may be NULL). */
static inline void rt_analyze_v(const struct rt_ex *x, const char *profile, int partial,
                                struct oc_findings *out, struct oc_client_verdict *verdicts)
{
  struct oc_check c;
  rt_policy(&c, out, profile, partial);
  struct oc_headers h;
  rt_headers(&h, x->headers);
  int rc = oc_response_analyze_clients(&rt_schemas, &c, x->method ? x->method : "POST",
                                       x->path ? x->path : "/v1/chat/completions", x->request,
                                       x->request ? strlen(x->request) : 0, x->status ? x->status : 200,
                                       &h, x->body ? x->body : "", rt_len(x), x->pieces, x->npieces,
                                       verdicts);
  ck_assert_int_eq(rc, OC_OK);
  oc_headers_free(&h);
}

static inline void rt_analyze(const struct rt_ex *x, const char *profile, int partial,
                              struct oc_findings *out)
{
  rt_analyze_v(x, profile, partial, out, NULL);
}

/* Run x through the generic rules and then through a suite case whose
 * "expect" object is expect_json (the case is written to a temporary
 * suite file and read back through the real suite loader, validated
 * against schemas/suite.schema.json).  Returns the outcome; limit (may
 * be NULL) gets what oacheck's own limits left undecided ("" if nothing). */
static inline enum oc_expect_outcome rt_expect_limit(const char *expect_json, const struct rt_ex *x,
                                                     const char *profile, struct oc_findings *out,
                                                     char *limit, size_t limitlen)
{
  char path[] = "/tmp/oacheck-ruletest-XXXXXX";
  int fd = mkstemp(path);
  ck_assert_msg(fd >= 0, "mkstemp failed");
  char *doc = oc_asprintf("{\"suite\": \"ruletest\", \"description\": \"a rule test\", "
                          "\"cases\": [{\"name\": \"case\", \"description\": \"a rule test\", "
                          "\"request\": {\"method\": \"%s\", \"path\": \"%s\"}, "
                          "\"expect\": %s}]}",
                          x->method ? x->method : "POST",
                          x->path ? x->path : "/v1/chat/completions", expect_json);
  ck_assert_ptr_nonnull(doc);
  ck_assert_int_eq((long)write(fd, doc, strlen(doc)), (long)strlen(doc));
  close(fd);
  struct oc_suite_set set = { 0 };
  struct oc_buf err;
  oc_buf_init(&err, 1u << 16);
  int rc = oc_suite_load(&set, path, rt_suite_schema, &err);
  unlink(path);
  ck_assert_msg(rc == OC_OK && set.count == 1 && set.items[0].ncases == 1,
                "test case does not load: %s\n%s", oc_buf_str(&err), doc);
  oc_buf_free(&err);
  free(doc);
  const struct oc_case *k = &set.items[0].cases[0];

  cJSON *req = x->request ? oc_json_parse(x->request, strlen(x->request), NULL) : NULL;
  struct oc_request_info info;
  const char *method = x->method ? x->method : "POST";
  const char *rpath = x->path ? x->path : "/v1/chat/completions";
  oc_request_info_init(&info, method, rpath, req);
  struct oc_check c;
  rt_policy(&c, out, profile, 0);
  c.allow = &k->allow;
  struct oc_response r;
  int timed = x->t_end_ms > 0;
  uint64_t t0 = 1000000, t1 = t0 + (uint64_t)(x->t_end_ms * 1e6);
  oc_response_init(&r, &info, &c, &rt_schemas, timed ? t0 : 0, timed, 0);
  struct oc_headers h;
  rt_headers(&h, x->headers);
  ck_assert_int_eq(oc_response_head(&r, x->status ? x->status : 200, &h, timed ? t1 : 0), OC_OK);
  oc_headers_free(&h);
  ck_assert_int_eq(oc_response_body(&r, x->body ? x->body : "", rt_len(x), timed ? t1 : 0), OC_OK);
  oc_response_finish(&r, timed ? t1 : 0, 1);
  cJSON *message = NULL, *timing = NULL;
  cJSON *rj = oc_response_json(&r, &message, &timing);
  char reason[512] = "";
  enum oc_expect_outcome o = oc_expect_apply(k, &r, message, timing, &c, reason, sizeof(reason));
  cJSON_Delete(rj);
  cJSON_Delete(message);
  cJSON_Delete(timing);
  oc_response_free(&r);
  cJSON_Delete(req);
  oc_suite_set_free(&set);
  ck_assert_int_eq(c.oom, 0);
  if(limit)
    snprintf(limit, limitlen, "%s", c.limit);
  return o;
}

static inline enum oc_expect_outcome rt_expect(const char *expect_json, const struct rt_ex *x,
                                               const char *profile, struct oc_findings *out)
{
  return rt_expect_limit(expect_json, x, profile, out, NULL, 0);
}

/* ---- findings as a multiset ------------------------------------------------ */

static int rt_cmp_str(const void *a, const void *b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted "RULE:severity*N" tokens (N only when > 1) of a list of
 * "RULE:severity" items; caller frees. */
static inline char *rt_render(char **items, size_t n)
{
  qsort(items, n, sizeof(*items), rt_cmp_str);
  struct oc_buf b;
  oc_buf_init(&b, 1u << 20);
  for(size_t i = 0; i < n;) {
    size_t j = i;
    while(j < n && strcmp(items[j], items[i]) == 0)
      j++;
    if(b.len)
      oc_buf_addc(&b, ' ');
    oc_buf_adds(&b, items[i]);
    if(j - i > 1)
      oc_buf_printf(&b, "*%zu", j - i);
    i = j;
  }
  char *s = oc_buf_take(&b, NULL);
  return s ? s : oc_strdup("");
}

/* A rule named by a test table: the test fails on a name not in the
 * catalogue (a typo must not pass as "the rule did not fire"). */
static inline enum oc_rule_id rt_rule(const char *name)
{
  const struct oc_rule *r = oc_rule_find(name);
  ck_assert_msg(r != NULL, "%s is not in the catalogue", name);
  return r->rid;
}

/* The findings as a canonical multiset string; caller frees. */
static inline char *rt_summary(const struct oc_findings *f)
{
  char **items = calloc(f->count + 1, sizeof(*items));
  for(size_t i = 0; i < f->count; i++)
    items[i] = oc_asprintf("%s:%s", oc_rule_name(f->items[i].rule), oc_severity_name(f->items[i].severity));
  char *s = rt_render(items, f->count);
  for(size_t i = 0; i < f->count; i++)
    free(items[i]);
  free(items);
  return s;
}

/* An expected multiset written by hand ("A:error B:info*2", any order)
 * in the canonical form of rt_summary; caller frees. */
static inline char *rt_canonical(const char *spec)
{
  size_t cap = 8, n = 0;
  char **items = calloc(cap, sizeof(*items));
  for(const char *p = spec ? spec : ""; *p;) {
    while(*p == ' ')
      p++;
    if(!*p)
      break;
    size_t len = strcspn(p, " ");
    char *tok = oc_strndup(p, len);
    p += len;
    long times = 1;
    char *star = strchr(tok, '*');
    if(star) {
      *star = '\0';
      ck_assert_msg(oc_parse_long(star + 1, 1, 100000, &times) == 0, "bad count in '%s'", spec);
    }
    ck_assert_msg(strchr(tok, ':') != NULL, "'%s' in '%s' lacks ':severity'", tok, spec);
    for(long k = 0; k < times; k++) {
      if(n == cap) {
        cap *= 2;
        items = realloc(items, cap * sizeof(*items));
      }
      items[n++] = oc_strdup(tok);
    }
    free(tok);
  }
  char *s = rt_render(items, n);
  for(size_t i = 0; i < n; i++)
    free(items[i]);
  free(items);
  return s;
}

/* Print every finding (for a failing test's log). */
static inline void rt_dump(const char *label, const struct oc_findings *f)
{
  fprintf(stderr, "%s: %zu finding%s\n", label, f->count, f->count == 1 ? "" : "s");
  for(size_t i = 0; i < f->count; i++) {
    char where[64];
    oc_finding_where_text(&f->items[i], where, sizeof(where));
    fprintf(stderr, "  %s %s: %s%s%s%s\n", oc_rule_name(f->items[i].rule), oc_severity_name(f->items[i].severity),
            f->items[i].message, where[0] ? " [" : "", where, where[0] ? "]" : "");
  }
}

/* Does a space-separated list of rule IDs hold id? */
static inline int rt_in_list(const char *list, const char *id)
{
  size_t n = strlen(id);
  for(const char *p = list ? list : ""; *p;) {
    while(*p == ' ')
      p++;
    size_t len = strcspn(p, " ");
    if(len == n && strncmp(p, id, n) == 0)
      return 1;
    p += len;
  }
  return 0;
}

/* The distinct rules that fired, space-separated in firing order;
 * caller frees. */
static inline char *rt_fired(const struct oc_findings *f)
{
  struct oc_buf b;
  oc_buf_init(&b, 1u << 16);
  for(size_t i = 0; i < f->ncounts; i++) {
    if(b.len)
      oc_buf_addc(&b, ' ');
    oc_buf_adds(&b, oc_rule_name(f->counts[i].rule));
  }
  char *s = oc_buf_take(&b, NULL);
  return s ? s : oc_strdup("");
}

/* The rules that fired in f and not in base (or more often in f than in
 * base), space-separated; caller frees. */
static inline char *rt_fired_beyond(const struct oc_findings *f, const struct oc_findings *base)
{
  struct oc_buf b;
  oc_buf_init(&b, 1u << 16);
  for(size_t i = 0; i < f->ncounts; i++) {
    size_t before = base ? oc_findings_total(base, f->counts[i].rule) : 0;
    if(f->counts[i].total > before) {
      if(b.len)
        oc_buf_addc(&b, ' ');
      oc_buf_adds(&b, oc_rule_name(f->counts[i].rule));
    }
  }
  char *s = oc_buf_take(&b, NULL);
  return s ? s : oc_strdup("");
}

/* The rules in fired that are neither target nor in related; caller frees. */
static inline char *rt_outside(const char *fired, const char *target, const char *related)
{
  struct oc_buf b;
  oc_buf_init(&b, 1u << 16);
  for(const char *p = fired; *p;) {
    while(*p == ' ')
      p++;
    size_t len = strcspn(p, " ");
    if(!len)
      break;
    char *id = oc_strndup(p, len);
    if(!(target && strcmp(id, target) == 0) && !rt_in_list(related, id)) {
      if(b.len)
        oc_buf_addc(&b, ' ');
      oc_buf_adds(&b, id);
    }
    free(id);
    p += len;
  }
  char *s = oc_buf_take(&b, NULL);
  return s ? s : oc_strdup("");
}

/* ---- recordings -------------------------------------------------------------- */

/* A recording from a ../shared directory as an exchange that owns its
 * bytes.  method/path come from the folder's index.json unless given. */
struct rt_rec {
  struct oc_exchange ex;
  char *request;
  struct rt_ex x;
  char *headers_text;
};

static inline void rt_rec_load(struct rt_rec *r, const char *dir, const char *name,
                               const char *method, const char *path)
{
  memset(r, 0, sizeof(*r));
  char err[1024];
  int wire = oc_endswith(name, ".wire");
  char *file = oc_asprintf("%s.%s", name, wire ? "http" : "response.http");
  char *full = oc_path_join(dir, file);
  size_t len = 0;
  char *raw = oc_test_read(full, &len);
  ck_assert_msg(oc_exchange_parse_response(raw, len, wire, &r->ex, err, sizeof(err)) == 0, "%s: %s",
                full, err);
  free(raw);
  free(full);
  free(file);
  char *base = wire ? oc_strndup(name, strlen(name) - 5) : oc_strdup(name);
  char *reqfile = oc_asprintf("%s/%s.request.json", dir, base);
  if(oc_is_file(reqfile))
    r->request = oc_test_read(reqfile, NULL);
  free(reqfile);
  if(!method || !path) {
    char *idx = oc_path_join(dir, "index.json");
    cJSON *index = oc_json_parse_file(idx, err, sizeof(err));
    ck_assert_msg(index != NULL, "%s", err);
    const cJSON *e = oc_json_get(index, base);
    ck_assert_msg(e != NULL, "%s: no index entry for %s", idx, base);
    r->ex.method = oc_strdup(oc_json_str(e, "method"));
    r->ex.path = oc_strdup(oc_json_str(e, "path"));
    ck_assert_msg(r->ex.method && r->ex.path, "%s: %s has no method/path", idx, base);
    cJSON_Delete(index);
    free(idx);
  }
  else {
    r->ex.method = oc_strdup(method);
    r->ex.path = oc_strdup(path);
  }
  free(base);
  r->ex.name = oc_strdup(name);
  struct oc_buf hb;
  oc_buf_init(&hb, 1u << 20);
  for(size_t i = 0; i < r->ex.headers.count; i++)
    oc_buf_printf(&hb, "%s: %s\n", r->ex.headers.items[i].name, r->ex.headers.items[i].value);
  r->headers_text = oc_buf_take(&hb, NULL);
  r->x.method = r->ex.method;
  r->x.path = r->ex.path;
  r->x.request = r->request;
  r->x.status = r->ex.status;
  r->x.headers = r->headers_text;
  r->x.body = r->ex.body;
  r->x.len = r->ex.body_len;
  r->x.pieces = r->ex.pieces;
  r->x.npieces = r->ex.npieces;
}

static inline void rt_rec_free(struct rt_rec *r)
{
  oc_exchange_free(&r->ex);
  free(r->request);
  free(r->headers_text);
  memset(r, 0, sizeof(*r));
}

/* $OACHECK_SHARED/recordings/<server>: the program exits 77 (skip) when
 * it is missing, 99 under CI=true (see oc_test_shared).  Caller frees. */
static inline char *rt_recordings(const char *server)
{
  char *rel = oc_asprintf("recordings/%s", server);
  char *dir = oc_test_shared(rel);
  free(rel);
  return dir;
}

#endif
