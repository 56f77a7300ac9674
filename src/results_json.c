/* results_json.c — reading results documents defensively, counting,
 * summaries and the one escaping routine every report uses.  Rendering is
 * left to report_junit.c and report_html.c, merge and diff to
 * report_merge.c. */
#include "config.h"
#include "results_json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datadir.h"
#include "json.h"
#include "secret.h"
#include "schema.h"

/* ---- statuses and counts ---------------------------------------------- */

static const char *const status_names[] = { "pass", "fail", "error", "skip" };

enum oc_status oc_status_parse(const char *s)
{
  if(s)
    for(size_t i = 0; i < OC_ARRAY_LEN(status_names); i++)
      if(strcmp(s, status_names[i]) == 0)
        return (enum oc_status)i;
  return OC_ST_INVALID;
}

const char *oc_status_name(enum oc_status st)
{
  return (unsigned)st < OC_ARRAY_LEN(status_names) ? status_names[st] : "invalid";
}

enum oc_status oc_result_status(const cJSON *result)
{
  return oc_status_parse(oc_json_str(result, "status"));
}

int oc_finding_counts(const cJSON *finding)
{
  return oc_streq(oc_json_str(finding, "severity"), "error") &&
         !oc_json_bool(finding, "allowed", 0);
}

const cJSON *oc_result_first_error(const cJSON *result)
{
  const cJSON *f;
  cJSON_ArrayForEach(f, oc_json_arr(result, "findings"))
    if(oc_finding_counts(f))
      return f;
  return NULL;
}

/* one result's share of the counts */
static void count_result(struct oc_counts *c, const cJSON *r)
{
  c->total++;
  switch(oc_result_status(r)) {
  case OC_ST_PASS: c->pass++; break;
  case OC_ST_FAIL: c->fail++; break;
  case OC_ST_SKIP: c->skip++; break;
  default: c->error++; break;
  }
  const cJSON *f;
  cJSON_ArrayForEach(f, oc_json_arr(r, "findings"))
    if(oc_streq(oc_json_str(f, "severity"), "warning"))
      c->warnings++;
  double d = oc_json_num(r, "duration_ms", 0);
  if(isfinite(d) && d > 0)
    c->duration_ms += d;
}

void oc_results_count(const cJSON *doc, const char *target, const char *suite,
                      struct oc_counts *c)
{
  memset(c, 0, sizeof(*c));
  const cJSON *r;
  cJSON_ArrayForEach(r, oc_json_arr(doc, "results")) {
    if(target && !oc_streq(oc_json_str(r, "target"), target))
      continue;
    if(suite && !oc_streq(oc_json_str(r, "suite"), suite))
      continue;
    count_result(c, r);
  }
}

const cJSON *oc_results_target(const cJSON *doc, const char *name)
{
  const cJSON *t;
  if(!name)
    return NULL;
  cJSON_ArrayForEach(t, oc_json_arr(doc, "targets"))
    if(oc_streq(oc_json_str(t, "name"), name))
      return t;
  return NULL;
}

void oc_summary_init(struct oc_summary *s)
{
  memset(s, 0, sizeof(*s));
}

void oc_summary_free(struct oc_summary *s)
{
  for(size_t i = 0; i < s->nrules; i++)
    free(s->rules[i].rule);
  free(s->rules);
  memset(s, 0, sizeof(*s));
}

void oc_summary_add(struct oc_summary *s, const cJSON *r)
{
  count_result(&s->counts, r);
  const cJSON *fs = oc_json_arr(r, "findings"), *f;
  cJSON_ArrayForEach(f, fs) {
    const char *rule = oc_json_str(f, "rule");
    if(!rule || !oc_finding_counts(f))
      continue;
    /* a case counts once per rule: was it counted for this case already?
     * (findings are capped per rule, so this look-back stays short) */
    int seen = 0;
    for(const cJSON *g = fs->child; g && g != f; g = g->next)
      if(oc_finding_counts(g) && oc_streq(oc_json_str(g, "rule"), rule)) {
        seen = 1;
        break;
      }
    if(seen)
      continue;
    /* a few dozen rules at most: a linear look-up is the cheap one */
    size_t i = 0;
    while(i < s->nrules && strcmp(s->rules[i].rule, rule) != 0)
      i++;
    if(i == s->nrules) {
      char *copy = oc_strdup(rule);
      struct oc_summary_rule *p =
        copy ? oc_array_grow(s->rules, &s->arules, s->nrules + 1, sizeof(*s->rules)) : NULL;
      if(!p) {
        free(copy);
        s->oom = 1;
        continue;
      }
      s->rules = p;
      s->rules[i].rule = copy;
      s->rules[i].cases = 0;
      s->nrules++;
    }
    s->rules[i].cases++;
  }
}

static int summary_rule_cmp(const void *a, const void *b)
{
  const struct oc_summary_rule *x = a, *y = b;
  if(x->cases != y->cases)
    return x->cases > y->cases ? -1 : 1;
  return strcmp(x->rule, y->rule);
}

cJSON *oc_summary_failing_rules(const struct oc_summary *s)
{
  if(s->oom)
    return NULL;
  struct oc_summary_rule *sorted = NULL;
  if(s->nrules) {
    sorted = malloc(s->nrules * sizeof(*sorted));
    if(!sorted)
      return NULL;
    memcpy(sorted, s->rules, s->nrules * sizeof(*sorted));
    qsort(sorted, s->nrules, sizeof(*sorted), summary_rule_cmp);
  }
  cJSON *out = cJSON_CreateArray();
  int oom = !out;
  for(size_t i = 0; !oom && i < s->nrules; i++) {
    cJSON *o = oc_json_put(&oom, out, NULL, cJSON_CreateObject());
    oc_json_put_str(&oom, o, "rule", sorted[i].rule);
    oc_json_put(&oom, o, "cases", cJSON_CreateNumber((double)sorted[i].cases));
  }
  free(sorted);
  if(oom) {
    cJSON_Delete(out);
    out = NULL;
  }
  return out;
}

cJSON *oc_summary_json(const struct oc_summary *sum, double dur)
{
  const struct oc_counts *c = &sum->counts;
  int oom = 0;
  cJSON *s = cJSON_CreateObject();
  oc_json_put(&oom, s, "total", cJSON_CreateNumber((double)c->total));
  oc_json_put(&oom, s, "pass", cJSON_CreateNumber((double)c->pass));
  oc_json_put(&oom, s, "fail", cJSON_CreateNumber((double)c->fail));
  oc_json_put(&oom, s, "error", cJSON_CreateNumber((double)c->error));
  oc_json_put(&oom, s, "skip", cJSON_CreateNumber((double)c->skip));
  oc_json_put(&oom, s, "warnings", cJSON_CreateNumber((double)c->warnings));
  if(isfinite(dur) && dur >= 0)
    oc_json_put(&oom, s, "duration_ms", cJSON_CreateNumber(dur));
  oc_json_put(&oom, s, "failing_rules", oc_summary_failing_rules(sum));
  if(oom) {
    cJSON_Delete(s);
    return NULL;
  }
  return s;
}

cJSON *oc_results_failing_rules(const cJSON *doc)
{
  struct oc_summary s;
  oc_summary_init(&s);
  const cJSON *r;
  cJSON_ArrayForEach(r, oc_json_arr(doc, "results"))
    oc_summary_add(&s, r);
  cJSON *out = oc_summary_failing_rules(&s);
  oc_summary_free(&s);
  return out;
}

int oc_results_summarize(cJSON *doc)
{
  double dur = oc_json_num(oc_json_obj(doc, "summary"), "duration_ms", -1);
  struct oc_summary sum;
  oc_summary_init(&sum);
  const cJSON *r;
  cJSON_ArrayForEach(r, oc_json_arr(doc, "results"))
    oc_summary_add(&sum, r);
  cJSON *s = oc_summary_json(&sum, dur);
  oc_summary_free(&sum);
  if(!s)
    return OC_ENOMEM;
  int oom = 0;
  oc_json_set(&oom, doc, "summary", s);
  return oom ? OC_ENOMEM : OC_OK;
}

/* ---- checking a document ---------------------------------------------- */

/* The essentials, checked by hand: what the schema requires and what the
 * writers and merge/diff rely on.  The first problem is reported with its
 * JSON pointer. */
struct check {
  const char *file;
  char *err;
  size_t errlen;
  int failed;
  int oom;    /* the check itself ran out of memory: not the document's fault */
};

static void check_fail(struct check *c, const char *ptr, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void check_fail(struct check *c, const char *ptr, const char *fmt, ...)
{
  char where[1024];
  snprintf(where, sizeof(where), "%s: at %s", c->file, *ptr ? ptr : "/ (the root)");
  va_list ap;
  va_start(ap, fmt);
  oc_errv(&c->failed, c->err, c->errlen, where, fmt, ap);
  va_end(ap);
}

/* base + "/" + key into out (JSON pointers here are short: fixed member
 * names and array indexes). */
static void ptr_join(char *out, size_t outlen, const char *base, const char *key)
{
  size_t n = oc_strlcpy(out, base, outlen);
  if(n + 1 < outlen) {
    out[n] = '/';
    oc_strlcpy(out + n + 1, key, outlen - n - 1);
  }
}

static const char *type_of(const cJSON *x)
{
  return oc_json_type_name(x);
}

/* Check member key of obj (whose pointer is base) against a type list:
 * 's' string, 'n' null, 'i' integer, 'd' number, 'b' boolean, 'o' object,
 * 'a' array.  required: absent is an error. */
static const cJSON *check_member(struct check *c, const cJSON *obj, const char *base,
                                 const char *key, const char *types, int required)
{
  char ptr[512];
  ptr_join(ptr, sizeof(ptr), base, key);
  const cJSON *m = oc_json_get(obj, key);
  if(!m) {
    if(required)
      check_fail(c, base, "required member \"%s\" is missing", key);
    return NULL;
  }
  for(const char *t = types; *t; t++) {
    switch(*t) {
    case 's': if(cJSON_IsString(m)) return m; break;
    case 'n': if(cJSON_IsNull(m)) return m; break;
    case 'i': if(oc_json_is_integer(m)) return m; break;
    case 'd': if(cJSON_IsNumber(m)) return m; break;
    case 'b': if(cJSON_IsBool(m)) return m; break;
    case 'o': if(cJSON_IsObject(m)) return m; break;
    case 'a': if(cJSON_IsArray(m)) return m; break;
    default: break;
    }
  }
  static const struct { char t; const char *name; } names[] = {
    { 's', "string" }, { 'n', "null" }, { 'i', "integer" }, { 'd', "number" },
    { 'b', "boolean" }, { 'o', "object" }, { 'a', "array" },
  };
  char want[128] = "";
  for(const char *t = types; *t; t++)
    for(size_t i = 0; i < OC_ARRAY_LEN(names); i++)
      if(names[i].t == *t) {
        if(want[0])
          oc_strlcpy(want + strlen(want), " or ", sizeof(want) - strlen(want));
        oc_strlcpy(want + strlen(want), names[i].name, sizeof(want) - strlen(want));
      }
  check_fail(c, ptr, "expected %s, got %s", want, type_of(m));
  return NULL;
}

static void check_enum(struct check *c, const cJSON *obj, const char *base, const char *key,
                       const char *const *allowed, size_t n, int required)
{
  const cJSON *m = check_member(c, obj, base, key, "s", required);
  if(!m)
    return;
  for(size_t i = 0; i < n; i++)
    if(strcmp(m->valuestring, allowed[i]) == 0)
      return;
  char ptr[512], list[256] = "";
  ptr_join(ptr, sizeof(ptr), base, key);
  for(size_t i = 0; i < n; i++) {
    if(i)
      oc_strlcpy(list + strlen(list), ", ", sizeof(list) - strlen(list));
    oc_strlcpy(list + strlen(list), allowed[i], sizeof(list) - strlen(list));
  }
  char *brief = oc_json_brief(m, 40);
  check_fail(c, ptr, "expected one of %s, got %s", list, brief ? brief : "?");
  free(brief);
}

static void check_finding(struct check *c, const cJSON *f, const char *base)
{
  static const char *const sev[] = { "error", "warning", "info" };
  if(!cJSON_IsObject(f)) {
    check_fail(c, base, "expected a finding object, got %s", type_of(f));
    return;
  }
  check_member(c, f, base, "rule", "s", 1);
  check_enum(c, f, base, "severity", sev, OC_ARRAY_LEN(sev), 1);
  check_member(c, f, base, "message", "s", 1);
  const cJSON *w = check_member(c, f, base, "where", "o", 1);
  if(w) {
    char wp[512];
    ptr_join(wp, sizeof(wp), base, "where");
    check_member(c, w, wp, "text", "s", 1);
    check_member(c, w, wp, "chunk", "in", 0);
    check_member(c, w, wp, "byte", "in", 0);
  }
  check_member(c, f, base, "path", "sn", 1);
  check_member(c, f, base, "expected", "sn", 1);
  check_member(c, f, base, "actual", "sn", 1);
  check_member(c, f, base, "allowed", "b", 0);
  check_member(c, f, base, "excerpt", "sn", 0);
}

static void check_result(struct check *c, const cJSON *r, const char *base)
{
  static const char *const st[] = { "pass", "fail", "error", "skip" };
  static const char *const not_run[] = { "target-unreachable" };
  if(!cJSON_IsObject(r)) {
    check_fail(c, base, "expected a result object, got %s", type_of(r));
    return;
  }
  check_member(c, r, base, "target", "s", 1);
  check_member(c, r, base, "suite", "s", 1);
  check_member(c, r, base, "case", "s", 1);
  check_enum(c, r, base, "status", st, OC_ARRAY_LEN(st), 1);
  check_member(c, r, base, "reason", "sn", 0);
  check_enum(c, r, base, "not_run", not_run, OC_ARRAY_LEN(not_run), 0);
  check_member(c, r, base, "duration_ms", "dn", 0);
  check_member(c, r, base, "index", "i", 0);
  const cJSON *fs = check_member(c, r, base, "findings", "a", 1);
  size_t i = 0;
  const cJSON *f;
  cJSON_ArrayForEach(f, fs) {
    char fp[512];
    char idx[32];
    snprintf(idx, sizeof(idx), "findings/%zu", i++);
    ptr_join(fp, sizeof(fp), base, idx);
    check_finding(c, f, fp);
  }
  const cJSON *t = check_member(c, r, base, "timing", "o", 0);
  if(t) {
    char tp[512];
    ptr_join(tp, sizeof(tp), base, "timing");
    check_member(c, t, tp, "recorded", "b", 1);
  }
  const cJSON *resp = check_member(c, r, base, "response", "on", 0);
  if(cJSON_IsObject(resp)) {
    char rp[512];
    ptr_join(rp, sizeof(rp), base, "response");
    check_member(c, resp, rp, "status", "i", 1);
    check_member(c, resp, rp, "events", "a", 0);
  }
  const cJSON *req = check_member(c, r, base, "request", "o", 0);
  if(req) {
    char rp[512];
    ptr_join(rp, sizeof(rp), base, "request");
    check_member(c, req, rp, "method", "s", 1);
    check_member(c, req, rp, "path", "s", 1);
  }
}

/* schemas/results.schema.json (from the data directory) compiled at uri,
 * the whole or one of its definitions; NULL when it cannot be (a warning
 * says so: the hand checks still run). */
static struct oc_schema *compile_results_schema(const char *uri)
{
  char err[1024] = "";
  struct oc_schema *compiled = NULL;
  char *path = oc_data_path("schemas/results.schema.json");
  struct oc_schema_registry *reg = oc_schema_registry_new();
  if(!path || !reg)
    snprintf(err, sizeof(err), "out of memory");
  else if(!oc_schema_registry_add_file(reg, NULL, path, err, sizeof(err)))
    compiled = oc_schema_compile_uri(reg, uri, 0, err, sizeof(err));
  if(!compiled)
    oc_warn("results are checked without their schema: %s", err);
  oc_schema_registry_free(reg);
  free(path);
  return compiled;
}

#define RESULTS_SCHEMA_URI "https://oacheck.dev/schemas/results.schema.json"

/* The full schema, compiled on first use and kept for the life of the
 * process (not thread-safe: `oacheck report` and the runner check results
 * from one thread). */
static const struct oc_schema *results_schema(void)
{
  static struct oc_schema *compiled;
  static int tried;
  if(!tried++)
    compiled = compile_results_schema(RESULTS_SCHEMA_URI);
  return compiled;
}

static void check_schema(struct check *c, const cJSON *doc)
{
  const struct oc_schema *s = results_schema();
  if(!s || c->failed)
    return;
  struct oc_schema_result res;
  oc_schema_result_init(&res);
  res.max = 1;
  int v = oc_schema_validate_cjson(s, doc, &res);
  if(v < 0 && !res.undecided)
    c->oom = 1;
  if(v < 0)
    check_fail(c, "", "cannot check against the results schema: %s",
               res.undecided ? res.undecided : "out of memory");
  else if(v == 0 && res.count) {
    const struct oc_schema_error *e = &res.errors[0];
    check_fail(c, e->instance_path, "%s (schema %s)", e->message, e->schema_path);
  }
  else if(v == 0)
    check_fail(c, "", "does not match the results schema");
  oc_schema_result_free(&res);
}

int oc_results_check(const cJSON *doc, const char *file, char *err, size_t errlen)
{
  static const char *const modes[] = { "replay", "live", "mixed", "proxy" };
  static const char *const kinds[] = { "live", "replay" };
  struct check c = { file ? file : "results", err, errlen, 0, 0 };
  if(!cJSON_IsObject(doc)) {
    check_fail(&c, "", "expected a results object, got %s", type_of(doc));
    return OC_EPARSE;
  }
  const cJSON *o = check_member(&c, doc, "", "oacheck", "o", 1);
  if(o) {
    check_member(&c, o, "/oacheck", "version", "s", 1);
    check_member(&c, o, "/oacheck", "started", "s", 1);
    check_enum(&c, o, "/oacheck", "mode", modes, OC_ARRAY_LEN(modes), 1);
    check_member(&c, o, "/oacheck", "suites", "a", 0);
    check_member(&c, o, "/oacheck", "merged_from", "i", 0);
  }
  const cJSON *ts = check_member(&c, doc, "", "targets", "a", 1);
  size_t i = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, ts) {
    char tp[64];
    snprintf(tp, sizeof(tp), "/targets/%zu", i++);
    if(!cJSON_IsObject(t)) {
      check_fail(&c, tp, "expected a target object, got %s", type_of(t));
      break;
    }
    check_member(&c, t, tp, "name", "s", 1);
    check_enum(&c, t, tp, "kind", kinds, OC_ARRAY_LEN(kinds), 1);
    check_member(&c, t, tp, "profile", "s", 1);
    check_member(&c, t, tp, "reachable", "b", 1);
    check_member(&c, t, tp, "identity", "o", 0);
  }
  const cJSON *s = check_member(&c, doc, "", "summary", "o", 1);
  if(s) {
    static const char *const req[] = { "total", "pass", "fail", "error", "skip" };
    for(size_t k = 0; k < OC_ARRAY_LEN(req); k++)
      check_member(&c, s, "/summary", req[k], "i", 1);
  }
  const cJSON *rs = check_member(&c, doc, "", "results", "a", 1);
  i = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, rs) {
    char rp[64];
    snprintf(rp, sizeof(rp), "/results/%zu", i++);
    check_result(&c, r, rp);
    if(c.failed)
      break;
  }
  /* the hand checks first: they are what the writers rely on, and their
   * messages are the plainest; then everything else the schema says */
  check_schema(&c, doc);
  return c.oom ? OC_ENOMEM : c.failed ? OC_EPARSE : OC_OK;
}

/* OC_OK, or OC_ENOMEM with the command emptied: better no command than
 * one with a secret. */
static int scrub_one(cJSON *obj, const char *key)
{
  cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if(!cJSON_IsString(v))
    return OC_OK;
  char *clean = oc_results_scrub_command(v->valuestring);
  int oom = !clean;
  if(clean)
    oc_json_set(&oom, obj, key, cJSON_CreateString(clean));
  free(clean);
  if(oom)
    v->valuestring[0] = '\0';
  return oom ? OC_ENOMEM : OC_OK;
}

/* oc_results_load's reader: every result kept, in order */
static int append_result(void *ud, cJSON *r, size_t i, char *err, size_t errlen)
{
  if(oc_json_add(ud, NULL, r)) {
    snprintf(err, errlen, "out of memory keeping result %zu", i);
    return OC_ENOMEM;
  }
  return OC_OK;
}

/* The whole document, read as oc_results_load_each reads it: one reader
 * (its checks, scrubbing and masking, its messages) for both. */
cJSON *oc_results_load(const char *path, char *err, size_t errlen)
{
  cJSON *results = cJSON_CreateArray(), *doc = NULL;
  if(!results) {
    snprintf(err, errlen, "%s: out of memory reading the results", path);
    return NULL;
  }
  if(oc_results_load_each(path, append_result, results, &doc, err, errlen)) {
    cJSON_Delete(results);
    return NULL;
  }
  /* in the frame's own "results" member, where the file had it */
  int oom = 0;
  oc_json_set(&oom, doc, "results", results);
  if(oom) {
    snprintf(err, errlen, "%s: out of memory reading the results", path);
    cJSON_Delete(doc);
    return NULL;
  }
  return doc;
}

/* ---- a results file a result at a time ---------------------------------- */

/* The schema's result definition, compiled on first use and kept (not
 * thread-safe, as results_schema). */
static const struct oc_schema *result_schema(void)
{
  static struct oc_schema *compiled;
  static int tried;
  if(!tried++)
    compiled = compile_results_schema(RESULTS_SCHEMA_URI "#/$defs/result");
  return compiled;
}

/* Result i as oc_results_check checks a document's: the hand checks,
 * then the schema's definition, its pointers under /results/i. */
static void check_one_result(struct check *c, const cJSON *r, size_t i)
{
  char rp[64];
  snprintf(rp, sizeof(rp), "/results/%zu", i);
  check_result(c, r, rp);
  const struct oc_schema *s = result_schema();
  if(!s || c->failed)
    return;
  struct oc_schema_result res;
  oc_schema_result_init(&res);
  res.max = 1;
  int v = oc_schema_validate_cjson(s, r, &res);
  char at[1024];
  if(v < 0 && !res.undecided)
    c->oom = 1;
  if(v < 0)
    check_fail(c, rp, "cannot check against the results schema: %s",
               res.undecided ? res.undecided : "out of memory");
  else if(v == 0) {
    snprintf(at, sizeof(at), "%s%s", rp, res.count ? res.errors[0].instance_path : "");
    if(res.count)
      check_fail(c, at, "%s (schema #/$defs/result%s)", res.errors[0].message,
                 res.errors[0].schema_path);
    else
      check_fail(c, rp, "does not match the results schema");
  }
  oc_schema_result_free(&res);
}

/* Where the reader is in the file: byte offset, line and column. */
struct text_pos {
  size_t offset;
  int line, column;
};

static void pos_advance(struct text_pos *p, const char *b, size_t n)
{
  for(size_t i = 0; i < n; i++) {
    if(b[i] == '\n') {
      p->line++;
      p->column = 1;
    }
    else
      p->column++;
  }
  p->offset += n;
}

#define SPLIT_MAX_DEPTH 100000 /* past cJSON's own limit: only keeps the count sane */

/* The reader splits the document into the frame (every byte outside the
 * top-level "results" array, which it holds as []) and the array's
 * elements, one at a time.  It follows strings (a bracket in one is
 * text), nesting, and the top object's keys (only the value of a key
 * spelt "results" is taken apart; one spelt with escapes stays in the
 * frame and is handed over from there). */
struct splitter {
  const char *path;
  int depth;                 /* 1 inside the top object, 2 inside the results array */
  int in_string, escaped;
  enum { K_WANT, K_IN, K_AFTER, K_VALUE } key; /* the top object's members */
  char name[8];              /* the key, while it may still be "results" */
  size_t namelen;
  int results_next;          /* the key was "results": a [ now opens the array */
  int in_results, seen_results, in_elem;
  struct oc_buf frame, elem;
  size_t frame_mark;         /* where the frame's [] is */
  struct text_pos elem_at, results_at, results_end;
  size_t count;
  oc_result_each_cb each;
  void *ud;
  char *err;
  size_t errlen;
};

static int split_fail(struct splitter *sp, const struct text_pos *at, const char *what)
{
  snprintf(sp->err, sp->errlen, "%s:%d:%d: %s (byte %zu)", sp->path, at->line, at->column, what,
           at->offset);
  return OC_EPARSE;
}

/* A result read: checked, scrubbed and masked as oc_results_load does,
 * then handed over. */
static int hand_over(struct splitter *sp, cJSON *r)
{
  struct check c = { sp->path, sp->err, sp->errlen, 0, 0 };
  check_one_result(&c, r, sp->count);
  if(c.failed) {
    cJSON_Delete(r);
    return c.oom ? OC_ENOMEM : OC_EPARSE;
  }
  cJSON *rep = cJSON_GetObjectItemCaseSensitive(r, "reproduce");
  if(scrub_one(rep, "curl") || scrub_one(rep, "oacheck")) {
    snprintf(sp->err, sp->errlen, "%s: out of memory reading result %zu", sp->path, sp->count);
    cJSON_Delete(r);
    return OC_ENOMEM;
  }
  oc_secret_mask_json(r);
  return sp->each(sp->ud, r, sp->count++, sp->err, sp->errlen);
}

static int element_done(struct splitter *sp)
{
  struct oc_json_pos pos;
  cJSON *r = NULL;
  int rc = oc_json_parse_rc(sp->elem.data, sp->elem.len, &pos, &r);
  oc_buf_reset(&sp->elem);
  sp->in_elem = 0;
  if(rc == OC_ENOMEM) {
    snprintf(sp->err, sp->errlen, "%s: out of memory reading result %zu", sp->path, sp->count);
    return rc;
  }
  if(rc)
    return split_fail(sp,
                      &(struct text_pos){ sp->elem_at.offset + pos.offset,
                                          sp->elem_at.line + pos.line - 1,
                                          pos.line == 1 ? sp->elem_at.column + pos.column - 1
                                                        : pos.column },
                      "invalid JSON");
  return hand_over(sp, r);
}

/* Feed the n bytes at p, which start at *at in the file (advanced). */
static int split_feed(struct splitter *sp, const char *p, size_t n, struct text_pos *at)
{
  size_t run = 0; /* p[run, i) still to go where the state says */
  struct text_pos here = *at;
  int rc = OC_OK;
  size_t i = 0;
  while(i < n && !rc) {
    char ch = p[i];
    if(sp->in_string) {
      if(sp->escaped)
        sp->escaped = 0;
      else if(ch == '\\')
        sp->escaped = 1;
      else if(ch == '"')
        sp->in_string = 0;
      if(sp->depth == 1 && sp->key == K_IN) {
        if(!sp->in_string)
          sp->key = K_AFTER;
        else if(sp->namelen < sizeof(sp->name))
          sp->name[sp->namelen++] = ch;
        else
          sp->namelen = sizeof(sp->name) + 1; /* longer than "results" */
      }
    }
    else if(ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
    }
    else if(sp->in_results && sp->depth == 2 && !sp->in_elem) {
      /* between elements: commas and the end go nowhere (the frame has
       * its [] already); anything else starts an element */
      if(ch == ',' || ch == ']') {
        run = i + 1;
        if(ch == ']') {
          sp->in_results = 0;
          sp->depth = 1;
          sp->key = K_VALUE;
          sp->results_end = here;
          pos_advance(&sp->results_end, p + i, 1);
        }
      }
      else {
        sp->in_elem = 1;
        sp->elem_at = here;
        run = i;
        continue; /* this byte again, as the element's first */
      }
    }
    else if(sp->in_results && sp->depth == 2 && (ch == ',' || ch == ']')) {
      /* the end of an element that is not an object or array */
      if(oc_buf_add(&sp->elem, p + run, i - run))
        goto nomem;
      run = i;
      rc = element_done(sp);
      continue; /* this byte again, between elements */
    }
    else if(ch == '"') {
      sp->in_string = 1;
      if(sp->depth == 1 && sp->key == K_WANT) {
        sp->key = K_IN;
        sp->namelen = 0;
      }
      else if(sp->depth == 1)
        sp->results_next = 0;
    }
    else if(ch == ':' && sp->depth == 1 && sp->key == K_AFTER) {
      sp->results_next = sp->namelen == 7 && memcmp(sp->name, "results", 7) == 0;
      sp->key = K_VALUE;
    }
    else if(ch == ',' && sp->depth == 1)
      sp->key = K_WANT;
    else if(ch == '[' && sp->depth == 1 && sp->results_next) {
      sp->results_next = 0;
      if(sp->seen_results)
        return split_fail(sp, &here, "a second \"results\" member");
      sp->seen_results = sp->in_results = 1;
      sp->depth = 2;
      sp->results_at = here;
      if(oc_buf_add(&sp->frame, p + run, i - run))
        goto nomem;
      sp->frame_mark = sp->frame.len;
      if(oc_buf_adds(&sp->frame, "[]"))
        goto nomem;
      run = i + 1;
    }
    else if(ch == '[' || ch == '{') {
      if(sp->depth == 0)
        sp->key = K_WANT;
      sp->results_next = 0;
      if(++sp->depth > SPLIT_MAX_DEPTH)
        return split_fail(sp, &here, "nested too deep");
    }
    else if(ch == ']' || ch == '}') {
      if(sp->depth == 0)
        return split_fail(sp, &here, "a closing bracket with nothing open");
      sp->depth--;
      if(sp->in_results && sp->in_elem && sp->depth == 2) {
        if(oc_buf_add(&sp->elem, p + run, i + 1 - run))
          goto nomem;
        run = i + 1;
        rc = element_done(sp);
      }
    }
    else if(sp->depth == 1)
      sp->results_next = 0; /* a number, true, false or null */
    if(ch == '\n') {
      here.line++;
      here.column = 1;
    }
    else
      here.column++;
    here.offset++;
    i++;
  }
  if(rc)
    return rc;
  if(sp->in_elem) {
    if(oc_buf_add(&sp->elem, p + run, n - run))
      goto nomem;
  }
  else if(!sp->in_results && oc_buf_add(&sp->frame, p + run, n - run))
    goto nomem;
  *at = here;
  return OC_OK;
nomem:
  if(oc_buf_error(&sp->elem) == OC_ETOOBIG)
    snprintf(sp->err, sp->errlen, "%s: result %zu (line %d) is bigger than %u MiB", sp->path,
             sp->count, sp->elem_at.line, OC_CAP_RESULT_TEXT >> 20);
  else if(oc_buf_error(&sp->frame) == OC_ETOOBIG)
    snprintf(sp->err, sp->errlen, "%s: what surrounds the results is bigger than %u MiB", sp->path,
             OC_CAP_RESULTS >> 20);
  else
    snprintf(sp->err, sp->errlen, "%s: out of memory reading the results", sp->path);
  return OC_ENOMEM;
}

/* The frame did not parse: where that is in the file (the frame is the
 * file with the results array's span replaced by its two bytes). */
static void frame_error(struct splitter *sp, const struct oc_json_pos *pos)
{
  if(!sp->seen_results || pos->offset < sp->frame_mark) {
    snprintf(sp->err, sp->errlen, "%s:%d:%d: invalid JSON (byte %zu)", sp->path, pos->line,
             pos->column, pos->offset);
    return;
  }
  size_t span = sp->results_end.offset - sp->results_at.offset;
  snprintf(sp->err, sp->errlen, "%s:%d: invalid JSON (byte %zu)", sp->path,
           pos->line + sp->results_end.line - sp->results_at.line, pos->offset - 2 + span);
}

int oc_results_load_each(const char *path, oc_result_each_cb each, void *ud, cJSON **frame,
                         char *err, size_t errlen)
{
  *frame = NULL;
  int is_stdin = strcmp(path, "-") == 0;
  FILE *f = is_stdin ? stdin : fopen(path, "rb");
  if(!f) {
    snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
    return OC_EIO;
  }
  int rc = oc_results_read_each(f, is_stdin ? "(stdin)" : path, each, ud, frame, err, errlen);
  if(!is_stdin)
    fclose(f);
  return rc;
}

int oc_results_read_each(FILE *f, const char *name, oc_result_each_cb each, void *ud, cJSON **out,
                         char *err, size_t errlen)
{
  *out = NULL;
  struct splitter sp;
  memset(&sp, 0, sizeof(sp));
  sp.path = name;
  sp.each = each;
  sp.ud = ud;
  sp.err = err;
  sp.errlen = errlen;
  oc_buf_init(&sp.frame, OC_CAP_RESULTS);
  oc_buf_init(&sp.elem, OC_CAP_RESULT_TEXT);
  struct text_pos at = { 0, 1, 1 };
  char piece[64 << 10];
  int rc = OC_OK;
  size_t got;
  while(!rc && (got = fread(piece, 1, sizeof(piece), f)) > 0)
    rc = split_feed(&sp, piece, got, &at);
  if(!rc && ferror(f)) {
    snprintf(err, errlen, "cannot read '%s': %s", sp.path, strerror(errno));
    rc = OC_EIO;
  }
  if(!rc && sp.in_results)
    rc = split_fail(&sp, &at, "the file ends inside the results");
  cJSON *frame = NULL;
  if(!rc) {
    struct oc_json_pos pos;
    rc = oc_json_parse_rc(sp.frame.data ? sp.frame.data : "", sp.frame.len, &pos, &frame);
    if(rc == OC_ENOMEM)
      snprintf(err, errlen, "%s: out of memory reading the results", sp.path);
    else if(rc && at.offset == 0)
      snprintf(err, errlen, "%s: empty file, expected JSON results", sp.path);
    else if(rc)
      frame_error(&sp, &pos);
  }
  /* "results" spelt with escapes: parsed with the frame, handed over from it */
  cJSON *arr = frame ? cJSON_GetObjectItemCaseSensitive(frame, "results") : NULL;
  for(cJSON *r; !rc && !sp.seen_results && cJSON_IsArray(arr) && (r = cJSON_DetachItemFromArray(arr, 0));)
    rc = hand_over(&sp, r);
  if(!rc)
    rc = oc_results_check(frame, sp.path, err, errlen);
  if(!rc && scrub_one(cJSON_GetObjectItemCaseSensitive(frame, "oacheck"), "command")) {
    snprintf(err, errlen, "%s: out of memory reading the results", sp.path);
    rc = OC_ENOMEM;
  }
  if(!rc)
    oc_secret_mask_json(frame);
  oc_buf_free(&sp.frame);
  oc_buf_free(&sp.elem);
  if(rc) {
    cJSON_Delete(frame);
    return rc;
  }
  *out = frame;
  return OC_OK;
}

/* ---- escaping --------------------------------------------------------- */

/* Decode one UTF-8 sequence strictly (no overlongs, no surrogates, nothing
 * above U+10FFFF).  Returns its length, or 0 when s[0] does not start a
 * valid sequence within n bytes. */
static size_t utf8_decode(const unsigned char *s, size_t n, unsigned *cp)
{
  unsigned c = s[0];
  if(c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t len;
  unsigned min;
  if(c >= 0xC2 && c <= 0xDF) {
    len = 2;
    min = 0x80;
    c &= 0x1F;
  }
  else if(c >= 0xE0 && c <= 0xEF) {
    len = 3;
    min = 0x800;
    c &= 0x0F;
  }
  else if(c >= 0xF0 && c <= 0xF4) {
    len = 4;
    min = 0x10000;
    c &= 0x07;
  }
  else
    return 0;
  if(n < len)
    return 0;
  for(size_t i = 1; i < len; i++) {
    if((s[i] & 0xC0) != 0x80)
      return 0;
    c = (c << 6) | (s[i] & 0x3F);
  }
  if(c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
    return 0;
  *cp = c;
  return len;
}

static int visible_escape(unsigned cp)
{
  if(cp < 0x20)
    return cp != '\t' && cp != '\n';
  return (cp >= 0x7F && cp <= 0x9F) || cp == 0xFFFE || cp == 0xFFFF;
}

int oc_esc_add(struct oc_buf *b, const char *str, size_t n, enum oc_esc mode)
{
  const unsigned char *s = (const unsigned char *)str;
  size_t i = 0, run = 0; /* bytes [i - run, i) are plain and not yet added */
  int rc = OC_OK;
  while(i < n) {
    unsigned cp = 0;
    size_t len = utf8_decode(s + i, n - i, &cp);
    const char *rep = NULL;
    char tmp[16];
    if(!len) {
      rep = "\xEF\xBF\xBD"; /* U+FFFD */
      len = 1;
    }
    else if(visible_escape(cp)) {
      snprintf(tmp, sizeof(tmp), "\\u%04X", cp);
      rep = tmp;
    }
    else if(mode != OC_ESC_TEXT && cp < 0x80) {
      switch(cp) {
      case '&': rep = "&amp;"; break;
      case '<': rep = "&lt;"; break;
      case '>': rep = "&gt;"; break;
      case '"':
        if(mode == OC_ESC_XML_ATTR || mode == OC_ESC_HTML_ATTR)
          rep = "&quot;";
        break;
      case '\'':
        if(mode == OC_ESC_XML_ATTR)
          rep = "&apos;";
        else if(mode == OC_ESC_HTML_ATTR)
          rep = "&#39;";
        break;
      case '\t':
        if(mode == OC_ESC_XML_ATTR)
          rep = "&#9;";
        break;
      case '\n':
        if(mode == OC_ESC_XML_ATTR)
          rep = "&#10;";
        break;
      default: break;
      }
    }
    if(!rep) {
      i += len;
      run += len;
      continue;
    }
    if(run && (rc = oc_buf_add(b, s + i - run, run)))
      return rc;
    run = 0;
    if((rc = oc_buf_adds(b, rep)))
      return rc;
    i += len;
  }
  if(run)
    rc = oc_buf_add(b, s + i - run, run);
  return rc;
}

int oc_esc_adds(struct oc_buf *b, const char *s, enum oc_esc mode)
{
  return s ? oc_esc_add(b, s, strlen(s), mode) : OC_OK;
}

int oc_esc_addn_cut(struct oc_buf *b, const char *s, size_t max, enum oc_esc mode)
{
  if(!s)
    return OC_OK;
  size_t n = strlen(s);
  if(n <= max)
    return oc_esc_add(b, s, n, mode);
  size_t cut = max;
  /* back up to the start of a UTF-8 sequence */
  while(cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
    cut--;
  int rc = oc_esc_add(b, s, cut, mode);
  return rc ? rc : oc_buf_adds(b, "\xE2\x80\xA6"); /* … */
}

/* ---- secrets ---------------------------------------------------------- */

static int prefix_ci(const char *s, const char *prefix)
{
  for(; *prefix; s++, prefix++) {
    int a = (unsigned char)*s, b = (unsigned char)*prefix;
    if(a >= 'A' && a <= 'Z')
      a += 'a' - 'A';
    if(a != b)
      return 0;
  }
  return 1;
}

static char *scrub_bearer(const char *cmd);

/* Every URL in s without its user information, and with the values of
 * key-like query parameters replaced by "[redacted]". */
static char *scrub_urls(const char *s)
{
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_FILE);
  const char *p = s;
  for(const char *u; (u = strstr(p, "://"));) {
    const char *auth = u + 3;
    size_t alen = strcspn(auth, "/?# \t\n\"'");
    const char *at = NULL;
    for(size_t i = 0; i < alen; i++)
      if(auth[i] == '@')
        at = auth + i;
    if(oc_buf_add(&b, p, (size_t)(auth - p)))
      goto done;
    p = at ? at + 1 : auth;
    /* the rest of the URL: its query parameters */
    size_t ulen = strcspn(p, " \t\n\"'");
    const char *end = p + ulen;
    while(p < end) {
      const char *q = memchr(p, '?', (size_t)(end - p));
      const char *amp = memchr(p, '&', (size_t)(end - p));
      const char *sep = q && (!amp || q < amp) ? q : amp;
      if(!sep) {
        if(oc_buf_add(&b, p, (size_t)(end - p)))
          goto done;
        p = end;
        break;
      }
      if(oc_buf_add(&b, p, (size_t)(sep + 1 - p)))
        goto done;
      p = sep + 1;
      size_t plen = strcspn(p, "&#");
      if(p + plen > end)
        plen = (size_t)(end - p);
      const char *eq = memchr(p, '=', plen);
      if(eq && oc_secret_param_name(p, (size_t)(eq - p))) {
        if(oc_buf_add(&b, p, (size_t)(eq + 1 - p)) || oc_buf_adds(&b, "[redacted]"))
          goto done;
        p += plen;
      }
    }
  }
  oc_buf_adds(&b, p);
done:
  return oc_buf_take(&b, NULL); /* NULL, and freed, when an add failed */
}

char *oc_results_scrub_command(const char *cmd)
{
  if(!cmd)
    return oc_strdup("");
  /* user:password@ and key-like query values of any URL first, then
   * literal bearer tokens, then whatever the run knows is secret */
  char *clean = scrub_urls(cmd);
  if(!clean)
    return NULL;
  char *r = scrub_bearer(clean);
  free(clean);
  if(r)
    oc_secret_mask(r, strlen(r));
  return r;
}

static char *scrub_bearer(const char *cmd)
{
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_FILE);
  const char *p = cmd;
  for(;;) {
    const char *hit = NULL;
    /* "Bearer TOKEN" in any letter case */
    for(const char *q = p; *q; q++)
      if(prefix_ci(q, "bearer ")) {
        hit = q;
        break;
      }
    if(!hit)
      break;
    const char *tok = hit + 7;
    while(*tok == ' ')
      tok++;
    oc_buf_add(&b, p, (size_t)(tok - p));
    if(*tok == '$') { /* already a variable reference */
      p = tok;
      oc_buf_addc(&b, *p);
      p++;
      continue;
    }
    const char *end = tok;
    while(*end && *end != ' ' && *end != '"' && *end != '\'' && *end != '\\' && *end != '\n')
      end++;
    oc_buf_adds(&b, end > tok ? "$OPENAI_API_KEY" : "");
    p = end;
  }
  oc_buf_adds(&b, p);
  return oc_buf_take(&b, NULL); /* NULL when an add failed: never half a command */
}

char *oc_results_clean_url(const char *url)
{
  if(!url)
    return NULL;
  const char *scheme = strstr(url, "://");
  const char *host = scheme ? scheme + 3 : url;
  size_t hostlen = strcspn(host, "/?#");
  const char *at = memchr(host, '@', hostlen);
  const char *from = at ? at + 1 : host;
  size_t keep = strcspn(from, "?#");
  return oc_asprintf("%.*s%.*s", (int)(host - url), url, (int)keep, from);
}

void oc_ms_to_seconds(double ms, char out[32])
{
  if(!isfinite(ms) || ms < 0 || ms > 1e15)
    ms = 0;
  snprintf(out, 32, "%.3f", ms / 1000.0);
}

/* ---- plain-text pieces ------------------------------------------------ */

const char *oc_json_scalar_text(const cJSON *v, char *out, size_t outlen)
{
  if(cJSON_IsString(v))
    return v->valuestring;
  if(cJSON_IsBool(v)) {
    oc_strlcpy(out, cJSON_IsTrue(v) ? "true" : "false", outlen);
    return out;
  }
  if(!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
    return NULL;
  double d = v->valuedouble;
  if(d == floor(d) && fabs(d) < 1e15)
    snprintf(out, outlen, "%.0f", d);
  else
    snprintf(out, outlen, "%.6g", d);
  return out;
}

#define OC_FINDING_FIELD_MAX 400 /* bytes of expected/actual/excerpt in text reports */

int oc_finding_text(struct oc_buf *b, const cJSON *f, const char *indent)
{
  int rc;
  const char *sev = oc_json_str(f, "severity");
  const char *wtext = oc_json_str(oc_json_obj(f, "where"), "text");
  const char *path = oc_json_str(f, "path");
  if((rc = oc_buf_printf(b, "[%s%s] %s", sev ? sev : "?",
                         oc_json_bool(f, "allowed", 0) ? ", allowed" : "",
                         oc_json_str(f, "rule") ? oc_json_str(f, "rule") : "?")))
    return rc;
  if(wtext && *wtext && (rc = oc_buf_printf(b, " at %s", wtext)))
    return rc;
  if(path && (rc = oc_buf_printf(b, " (%s)", *path ? path : "/")))
    return rc;
  if((rc = oc_buf_printf(b, ": %s", oc_json_str(f, "message") ? oc_json_str(f, "message") : "")))
    return rc;
  if(!indent)
    return OC_OK;
  static const char *const fields[] = { "expected", "actual", "excerpt" };
  for(size_t i = 0; i < OC_ARRAY_LEN(fields); i++) {
    const char *v = oc_json_str(f, fields[i]);
    if(!v)
      continue;
    if((rc = oc_buf_printf(b, "\n%s%s: ", indent, fields[i])))
      return rc;
    size_t n = strlen(v);
    if(n > OC_FINDING_FIELD_MAX) {
      size_t cut = OC_FINDING_FIELD_MAX;
      while(cut > 0 && ((unsigned char)v[cut] & 0xC0) == 0x80)
        cut--;
      if((rc = oc_buf_add(b, v, cut)) || (rc = oc_buf_adds(b, "\xE2\x80\xA6")))
        return rc;
    }
    else if((rc = oc_buf_add(b, v, n)))
      return rc;
  }
  return OC_OK;
}

static int add_ms(struct oc_buf *b, const char *label, const cJSON *timing, const char *key,
                  int *first)
{
  const cJSON *v = oc_json_get(timing, key);
  if(!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
    return OC_OK;
  int rc = oc_buf_printf(b, "%s%s %.1f ms", *first ? "" : ", ", label, v->valuedouble);
  *first = 0;
  return rc;
}

int oc_timing_text(struct oc_buf *b, const cJSON *t)
{
  if(!cJSON_IsObject(t) || !oc_json_bool(t, "recorded", 0))
    return oc_buf_adds(b, "not recorded");
  int first = 1, rc;
  if((rc = add_ms(b, "TTFT", t, "ttft_ms", &first)) ||
     (rc = add_ms(b, "first event", t, "role_ms", &first)) ||
     (rc = add_ms(b, "first byte", t, "first_byte_ms", &first)) ||
     (rc = add_ms(b, "ITL p50", t, "itl_p50_ms", &first)) ||
     (rc = add_ms(b, "p90", t, "itl_p90_ms", &first)) ||
     (rc = add_ms(b, "p99", t, "itl_p99_ms", &first)) ||
     (rc = add_ms(b, "longest gap", t, "max_gap_ms", &first)))
    return rc;
  const cJSON *gc = oc_json_get(t, "max_gap_chunk");
  if(oc_json_is_integer(gc) && (rc = oc_buf_printf(b, " (before chunk %.0f)", gc->valuedouble)))
    return rc;
  if((rc = add_ms(b, "total", t, "total_ms", &first)))
    return rc;
  const cJSON *ch = oc_json_get(t, "chunks");
  if(oc_json_is_integer(ch) &&
     (rc = oc_buf_printf(b, "%s%.0f chunks", first ? "" : ", ", ch->valuedouble)))
    return rc;
  if(oc_json_is_integer(ch))
    first = 0;
  const cJSON *tps = oc_json_get(t, "tokens_per_s");
  if(cJSON_IsNumber(tps) && isfinite(tps->valuedouble) &&
     (rc = oc_buf_printf(b, "%s%.1f tokens/s", first ? "" : ", ", tps->valuedouble)))
    return rc;
  if(first && cJSON_IsNumber(tps))
    first = 0;
  if(first)
    return oc_buf_adds(b, "recorded, no values");
  return OC_OK;
}

int oc_result_chunk_flagged(const cJSON *result, double n)
{
  const cJSON *f;
  cJSON_ArrayForEach(f, oc_json_arr(result, "findings")) {
    if(oc_streq(oc_json_str(f, "severity"), "info"))
      continue;
    const cJSON *c = oc_json_get(oc_json_obj(f, "where"), "chunk");
    if(cJSON_IsNumber(c) && c->valuedouble == n)
      return 1;
  }
  return 0;
}

int oc_reasoning_text(struct oc_buf *b, const cJSON *result, size_t textmax)
{
  const cJSON *items = oc_json_arr(oc_json_obj(result, "response"), "reasoning");
  const cJSON *it;
  int rc = OC_OK;
  cJSON_ArrayForEach(it, items) {
    const char *order = oc_json_str(it, "order");
    rc = oc_buf_printf(b, "reasoning (choice %.0f): %.0f bytes in ", oc_json_num(it, "index", 0),
                       oc_json_num(it, "bytes", 0));
    const cJSON *s;
    int k = 0;
    cJSON_ArrayForEach(s, oc_json_arr(it, "source"))
      if(cJSON_IsString(s) && !rc)
        rc = oc_buf_printf(b, "%s%s", k++ ? " and " : "", s->valuestring);
    if(!rc && order && !oc_streq(order, "unknown"))
      rc = oc_buf_printf(b, ", %s the answer", order);
    const char *text = oc_json_str(it, "text");
    size_t len = text ? strlen(text) : 0, keep = len < textmax ? len : textmax;
    while(keep > 0 && keep < len && ((unsigned char)text[keep] & 0xC0) == 0x80)
      keep--;
    if(!rc)
      rc = oc_buf_adds(b, ": \"");
    for(size_t i = 0; !rc && i < keep; i++)
      rc = text[i] == '\n' ? oc_buf_adds(b, "\\n") : oc_buf_addc(b, text[i]);
    if(!rc)
      rc = oc_buf_adds(b, keep < len || oc_json_bool(it, "truncated", 0) ? "\"…\n" : "\"\n");
    if(rc)
      return rc;
  }
  return rc;
}

size_t oc_result_excerpt_events(const cJSON *result, const cJSON **out, size_t max)
{
  const cJSON *events = oc_json_arr(oc_json_obj(result, "response"), "events");
  size_t total = (size_t)cJSON_GetArraySize(events), k = 0;
  if(!total || !max)
    return 0;
  int any_flagged = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, events)
    if(oc_result_chunk_flagged(result, oc_json_num(e, "n", -1))) {
      any_flagged = 1;
      break;
    }
  size_t i = 0;
  cJSON_ArrayForEach(e, events) {
    int keep = 0;
    if(any_flagged) {
      double n = oc_json_num(e, "n", -1e9);
      for(int d = -2; d <= 2 && !keep; d++)
        keep = oc_result_chunk_flagged(result, n + d);
    }
    else
      keep = i < 3 || i + 2 >= total;
    i++;
    if(keep && k < max)
      out[k++] = e;
  }
  return k;
}
