/* suite.c — reading suite files and building requests from cases.  A
 * suite is validated as a whole before anything runs: the file is read
 * with jdoc (which keeps every value's byte offset), checked against the
 * suite schema, and each schema error is reported at its line and column.
 * Duplicate case names inside a suite are an error too. */
#include "config.h"
#include "suite.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "datadir.h"
#include "jdoc.h"
#include "json.h"
#include "rules.h"
#include "schema.h"
#include "util.h"

static void err_at(struct oc_buf *err, const char *path, const char *buf, size_t len,
                   size_t offset, const char *msg);

/* What to write for a member the schema requires: "missing required
 * property \"description\"" alone left a first suite's author to find out
 * what goes there.  NULL when the error is no such one. */
static const char *required_hint(const struct oc_schema_error *e)
{
  static const struct {
    const char *where, *name, *hint;
  } hints[] = {
    { "suite", "suite", "add \"suite\": \"NAME\" (a-z, 0-9, '.', '_', '-'), unique in a run" },
    { "suite", "description", "add \"description\": \"what the suite covers\"" },
    { "suite", "cases", "add \"cases\": [ … ], an object per case" },
    { "case", "name", "add \"name\": \"NAME\", unique in the suite" },
    { "case", "description", "add \"description\": \"which real-world failure the case catches\"" },
    { "case", "request", "add \"request\": { \"method\": \"POST\", \"path\": \"/v1/chat/completions\", "
                         "\"body\": … }" },
    { "request", "method", "add \"method\": \"GET\", \"POST\", …" },
    { "request", "path", "add \"path\": \"/v1/…\", joined to the target's root" },
  };
  static const char pre[] = "missing required property \"";
  if(!oc_streq(e->keyword, "required") || !oc_startswith(e->message, pre))
    return NULL;
  const char *name = e->message + sizeof(pre) - 1;
  const char *q = strchr(name, '"');
  /* the member's owner, from where the error is: "", /cases/N, /cases/N/request */
  const char *ip = e->instance_path, *where = NULL;
  if(!*ip)
    where = "suite";
  else if(oc_startswith(ip, "/cases/")) {
    const char *d = ip + 7;
    while(*d >= '0' && *d <= '9')
      d++;
    where = d == ip + 7 ? NULL : !*d ? "case" : strcmp(d, "/request") == 0 ? "request" : NULL;
  }
  for(size_t i = 0; q && where && i < OC_ARRAY_LEN(hints); i++)
    if(strcmp(hints[i].where, where) == 0 && strlen(hints[i].name) == (size_t)(q - name) &&
       memcmp(hints[i].name, name, (size_t)(q - name)) == 0)
      return hints[i].hint;
  return NULL;
}

static int is_var_name(const char *s, size_t n)
{
  if(n == 0 || !(s[0] >= 'A' && s[0] <= 'Z'))
    return 0;
  for(size_t i = 1; i < n; i++)
    if(!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
      return 0;
  return 1;
}

/* One ${…} reference: at its '$', name what stands between the braces
 * (n bytes), or NULL when the reference has no closing brace. */
struct ref {
  const char *at, *name;
  size_t n;
};

/* The first reference in [p, end) (a '$' not before '{' is text): fills
 * *r and returns where the text after it starts (end for one without its
 * closing brace), or NULL when there is none.  The one scanner of the
 * syntax for the checks, the sizes and the names below. */
static const char *next_ref(const char *p, const char *end, struct ref *r)
{
  for(;;) {
    const char *d = memchr(p, '$', (size_t)(end - p));
    if(!d || d + 1 >= end)
      return NULL;
    if(d[1] != '{') {
      p = d + 1;
      continue;
    }
    r->at = d;
    r->name = d + 2;
    const char *e = memchr(r->name, '}', (size_t)(end - r->name));
    if(!e) {
      r->name = NULL;
      r->n = 0;
      return end;
    }
    r->n = (size_t)(e - r->name);
    return e + 1;
  }
}

/* What is wrong with the ${…} references of s, or NULL.  A malformed
 * reference is a suite error (exit 2), unlike an undefined variable,
 * which depends on the target. */
static const char *reference_problem(const char *s, size_t len)
{
  const char *end = s + len;
  struct ref r;
  for(const char *p = s; (p = next_ref(p, end, &r));) {
    if(!r.name)
      return "'${' without its closing '}'";
    const char *name = r.name, *e = r.name + r.n;
    size_t n = r.n;
    if(n == 0)
      return "an empty variable reference '${}'";
    if(memchr(name, '$', n))
      return "a variable reference inside another one";
    if(n >= 6 && memcmp(name, "words:", 6) == 0) {
      const char *c = memchr(name + 6, ':', n - 6);
      if(!c || c == name + 6 || c + 1 == e)
        return "${words:...} wants ${words:COUNT:WORD}";
      size_t cn = (size_t)(c - name - 6);
      int digits = 1;
      for(size_t i = 0; i < cn; i++)
        digits &= name[6 + i] >= '0' && name[6 + i] <= '9';
      if(!digits && !is_var_name(name + 6, cn))
        return "the COUNT of ${words:COUNT:WORD} is neither a number nor a variable name";
      if(digits && (cn > 7 || strtol(name + 6, NULL, 10) > OC_WORDS_MAX))
        return "the COUNT of ${words:COUNT:WORD} is over 1,000,000";
    }
    else if(n >= 4 && memcmp(name, "env:", 4) == 0) {
      if(n == 4)
        return "${env:} names no environment variable";
    }
    else if(!is_var_name(name, n))
      return "a variable name is upper case letters, digits and '_' (e.g. ${MODEL})";
  }
  return NULL;
}

/* The bytes s[0..len) adds to a built request as far as the suite alone
 * says: its text, and N copies of WORD for each ${words:N:WORD} with a
 * literal N (a count from a variable is only known when building). */
static size_t static_size(const char *s, size_t len)
{
  size_t n = 0;
  const char *end = s + len, *p = s, *after;
  struct ref r;
  while((after = next_ref(p, end, &r)) && r.name) {
    n += (size_t)(r.at - p);
    const char *e = r.name + r.n;
    if(r.n > 6 && memcmp(r.name, "words:", 6) == 0 && r.name[6] >= '0' && r.name[6] <= '9') {
      const char *colon = memchr(r.name + 6, ':', r.n - 6);
      long count = strtol(r.name + 6, NULL, 10);
      if(colon && count > 0 && count <= OC_WORDS_MAX)
        n += (size_t)count * ((size_t)(e - colon - 1) + 1);
    }
    p = after;
  }
  return n + (size_t)(end - p);
}

/* The variables a target can define (target.c sets them as it identifies
 * it; check_suite holds the two lists to each other).  One of these
 * missing on a target skips a case as unsupported; any other name the
 * suite does not define can never be defined, and is a load error. */
static const char *const target_vars[] = {
  "MODEL", "N_CTX", "N_CTX_HALF", "CTX_WORDS_UNDER", "CTX_WORDS_AT", "CTX_WORDS_OVER",
};

int oc_suite_target_var(const char *name)
{
  for(size_t i = 0; i < OC_ARRAY_LEN(target_vars); i++)
    if(strcmp(name, target_vars[i]) == 0)
      return 1;
  return 0;
}

/* Is name[0..n) a target variable or one of the suite's (vars, the
 * suite's "variables" object, may be NULL)?  If not, *near is the
 * closest of them within an edit distance of 2, or NULL. */
static int var_known(const char *name, size_t n, const struct oc_jv *vars, const char **near)
{
  struct oc_nearest nr;
  oc_nearest_init(&nr, name, n, 0); /* ${model} is not ${MODEL}: names keep their case */
  *near = NULL;
  for(size_t i = 0; i < OC_ARRAY_LEN(target_vars) + (vars && vars->type == OC_JOBJECT ? vars->len : 0);
      i++) {
    const char *k;
    size_t kn;
    if(i < OC_ARRAY_LEN(target_vars)) {
      k = target_vars[i];
      kn = strlen(k);
    }
    else {
      k = vars->u.members[i - OC_ARRAY_LEN(target_vars)].key;
      kn = vars->u.members[i - OC_ARRAY_LEN(target_vars)].key_len;
    }
    if(kn == n && memcmp(k, name, n) == 0)
      return 1;
    oc_nearest_offer(&nr, k, kn);
  }
  *near = nr.near;
  return 0;
}

/* Every ${NAME} of s (and the NAME of ${words:NAME:WORD}) must be one a
 * target or the suite defines: a misspelt ${MODL} would otherwise skip
 * its case as "unsupported" on every target, and a run stay green.  The
 * references were checked well-formed (reference_problem).  Reported at
 * the reference's own column where the string has no escape before it. */
static int check_names(const struct oc_jv *v, const struct oc_jv *vars, const char *path,
                       const char *buf, size_t len, struct oc_buf *err)
{
  int bad = 0;
  const char *s = v->u.str, *end = s + v->len;
  struct ref r;
  for(const char *p = s; (p = next_ref(p, end, &r)) && r.name;) {
    const char *d = r.at, *name = r.name, *e = r.name + r.n;
    size_t n = r.n;
    const char *var = name, *words = NULL;
    if(n >= 4 && memcmp(name, "env:", 4) == 0)
      continue;
    if(n >= 6 && memcmp(name, "words:", 6) == 0) {
      words = name;
      var = name + 6;
      const char *c = memchr(var, ':', (size_t)(e - var));
      n = c ? (size_t)(c - var) : 0;
      if(!n || (var[0] >= '0' && var[0] <= '9')) /* a literal count */
        continue;
    }
    const char *near;
    if(var_known(var, n, vars, &near))
      continue;
    char msg[512];
    size_t at = v->offset, k = (size_t)(d - s);
    if(v->offset + 1 + k + 2 <= len && !memchr(buf + v->offset + 1, '\\', k) &&
       memcmp(buf + v->offset + 1, s, k + 2) == 0)
      at = v->offset + 1 + k;
    int w = n > 60 ? 60 : (int)n;
    if(words)
      snprintf(msg, sizeof(msg), "undefined variable %.*s in the COUNT of ${words:%.*s:…}", w, var, w,
               var);
    else
      snprintf(msg, sizeof(msg), "undefined variable ${%.*s}", w, var);
    size_t ml = strlen(msg);
    if(near)
      snprintf(msg + ml, sizeof(msg) - ml, ": did you mean %s%s%s?", words ? "" : "${", near,
               words ? "" : "}");
    else
      snprintf(msg + ml, sizeof(msg) - ml, " (a target sets MODEL, N_CTX, N_CTX_HALF, "
               "CTX_WORDS_UNDER, CTX_WORDS_AT and CTX_WORDS_OVER; the suite's own go in its "
               "\"variables\")");
    err_at(err, path, buf, len, at, msg);
    bad = 1;
  }
  return bad;
}

struct request_walk {
  size_t size;              /* static_size of everything seen so far */
  int size_reported, depth_reported;
  const struct oc_jv *vars; /* the suite's "variables", or NULL */
};

/* Check every string under v (the request of a case) for malformed
 * references, and the request for what oacheck cannot build (over
 * OC_CAP_REQUEST where the sizes are static, nested deeper than
 * OC_REQUEST_MAX_DEPTH), reporting each at its line and column. */
static int check_request(const struct oc_jv *v, const char *path, const char *buf, size_t len,
                         struct oc_buf *err, int depth, struct request_walk *w)
{
  int bad = 0;
  if(!v)
    return 0;
  if(depth > OC_REQUEST_MAX_DEPTH) {
    if(!w->depth_reported++) {
      char msg[160];
      snprintf(msg, sizeof(msg), "the request is nested deeper than %d levels, more than oacheck "
               "builds", OC_REQUEST_MAX_DEPTH);
      err_at(err, path, buf, len, v->offset, msg);
    }
    return 1;
  }
  if(v->type == OC_JSTRING) {
    const char *why = reference_problem(v->u.str, v->len);
    if(why) {
      err_at(err, path, buf, len, v->offset, why);
      bad = 1;
    }
    else
      bad |= check_names(v, w->vars, path, buf, len, err);
    w->size += static_size(v->u.str, v->len);
    if(w->size > OC_CAP_REQUEST && !w->size_reported++) {
      char msg[200];
      snprintf(msg, sizeof(msg), "with this string the request would be at least %zu MiB, over "
               "the %u MiB oacheck builds", w->size >> 20, OC_CAP_REQUEST >> 20);
      err_at(err, path, buf, len, v->offset, msg);
      bad = 1;
    }
  }
  else if(v->type == OC_JARRAY)
    for(uint32_t i = 0; i < v->len; i++)
      bad |= check_request(&v->u.items[i], path, buf, len, err, depth + 1, w);
  else if(v->type == OC_JOBJECT)
    for(uint32_t i = 0; i < v->len; i++) {
      w->size += v->u.members[i].key_len;
      bad |= check_request(&v->u.members[i].value, path, buf, len, err, depth + 1, w);
    }
  return bad;
}

/* Allow lists name catalogue rules or FAMILY-* prefixes that exist, and
 * an assertion's "rule" a catalogue rule: names are resolved here, once,
 * so a mistyped one is a load error at its line rather than a finding
 * under a name nobody knows. */
static int check_allow(const struct oc_jv *list, const char *path, const char *buf, size_t len,
                       struct oc_buf *err)
{
  int bad = 0;
  for(uint32_t i = 0; list && list->type == OC_JARRAY && i < list->len; i++) {
    const struct oc_jv *a = &list->u.items[i];
    struct oc_ruleset probe;
    oc_ruleset_init(&probe);
    if(a->type != OC_JSTRING || !oc_ruleset_add_pattern(&probe, a->u.str))
      continue;
    char msg[360], near[140];
    if(oc_rule_suggest(a->u.str, near, sizeof(near)))
      snprintf(msg, sizeof(msg), "allow: '%.80s' is not a rule or family of the catalogue: did you "
               "mean '%s'? ('oacheck rules' lists them)", a->u.str, near);
    else
      snprintf(msg, sizeof(msg), "allow: '%.80s' is not a rule or family of the catalogue "
               "('oacheck rules' lists them)", a->u.str);
    err_at(err, path, buf, len, a->offset, msg);
    bad = 1;
  }
  return bad;
}

static int check_assert_rules(const struct oc_jv *expect, const char *path, const char *buf,
                              size_t len, struct oc_buf *err)
{
  int bad = 0;
  const struct oc_jv *list = oc_jv_get(expect, "assert");
  for(uint32_t i = 0; list && list->type == OC_JARRAY && i < list->len; i++) {
    const struct oc_jv *r = oc_jv_get(&list->u.items[i], "rule");
    if(!r || r->type != OC_JSTRING || oc_rule_find(r->u.str))
      continue;
    char msg[200];
    snprintf(msg, sizeof(msg), "assert: rule '%.80s' is not in the catalogue ('oacheck rules' "
             "lists them)", r->u.str);
    err_at(err, path, buf, len, r->offset, msg);
    bad = 1;
  }
  return bad;
}

static void err_at(struct oc_buf *err, const char *path, const char *buf, size_t len,
                   size_t offset, const char *msg)
{
  struct oc_json_pos pos;
  oc_json_locate(buf, len, offset, &pos);
  oc_buf_printf(err, "%s:%d:%d: %s\n", path, pos.line, pos.column, msg);
}

static int add_strings(const char ***arr, size_t *n, const cJSON *list)
{
  size_t alloc = *n; /* what *arr has room for at least */
  const cJSON *it;
  cJSON_ArrayForEach(it, list)
  {
    if(!cJSON_IsString(it))
      continue;
    const char **d = oc_array_grow(*arr, &alloc, *n + 1, sizeof(**arr));
    if(!d)
      return OC_ENOMEM;
    d[(*n)++] = it->valuestring;
    *arr = d;
  }
  return OC_OK;
}

struct named {
  const struct oc_jv *name;  /* the case's "name" string */
  const struct oc_jv *kase;
  size_t order;
};

static int cmp_named(const void *a, const void *b)
{
  const struct named *x = a, *y = b;
  uint32_t n = x->name->len < y->name->len ? x->name->len : y->name->len;
  int c = memcmp(x->name->u.str, y->name->u.str, n);
  if(!c)
    c = (x->name->len > y->name->len) - (x->name->len < y->name->len);
  return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* Case names are unique within a suite.  Sorted rather than compared
 * pairwise, so that a 100,000-case suite loads in n log n; every repeat is
 * reported at its own line, naming the line of the first. */
static int check_unique_names(const struct oc_jv *root, const char *path, const char *buf, size_t len,
                              struct oc_buf *err)
{
  const struct oc_jv *cs = oc_jv_get(root, "cases");
  if(!cs || cs->type != OC_JARRAY || cs->len < 2)
    return OC_OK;
  struct named *by = malloc(cs->len * sizeof(*by));
  if(!by)
    return OC_ENOMEM;
  size_t n = 0;
  for(uint32_t i = 0; i < cs->len; i++) {
    const struct oc_jv *name = oc_jv_get(&cs->u.items[i], "name");
    if(name && name->type == OC_JSTRING)
      by[n++] = (struct named){ name, &cs->u.items[i], i };
  }
  qsort(by, n, sizeof(*by), cmp_named);
  int rc = OC_OK;
  const char *suite = oc_jv_str(root, "suite", NULL);
  for(size_t i = 1, first = 0; i < n; i++) {
    if(by[i].name->len != by[first].name->len ||
       memcmp(by[i].name->u.str, by[first].name->u.str, by[i].name->len) != 0) {
      first = i;
      continue;
    }
    struct oc_json_pos pos;
    oc_json_locate(buf, len, by[first].kase->offset, &pos);
    char msg[512];
    snprintf(msg, sizeof(msg), "case name '%.200s' appears twice in suite '%.100s' (first at line %d)",
             by[i].name->u.str, suite ? suite : "?", pos.line);
    err_at(err, path, buf, len, by[i].kase->offset, msg);
    rc = OC_EPARSE;
  }
  free(by);
  return rc;
}

static void suite_free(struct oc_suite *s)
{
  for(size_t i = 0; i < s->ncases; i++) {
    free(s->cases[i].tags);
  }
  free(s->cases);
  cJSON_Delete(s->doc);
  free(s->file);
  memset(s, 0, sizeof(*s));
}

int oc_suite_load(struct oc_suite_set *set, const char *path, const struct oc_schema *schema,
                  struct oc_buf *err)
{
  char *buf = NULL, msg[512];
  size_t len = 0;
  int rc = oc_read_file(path, OC_CAP_FILE, &buf, &len, msg, sizeof(msg));
  if(rc)
    oc_buf_printf(err, "%s\n", msg);
  else
    rc = oc_suite_load_text(set, path, buf, len, schema, err);
  free(buf);
  return rc;
}

int oc_suite_load_text(struct oc_suite_set *set, const char *path, const char *buf, size_t len,
                       const struct oc_schema *schema, struct oc_buf *err)
{
  char msg[512];
  struct oc_jdoc doc;
  struct oc_suite s;
  int rc;
  memset(&s, 0, sizeof(s));
  oc_jdoc_init(&doc);
  struct oc_jerr jerr;
  rc = oc_jdoc_parse(&doc, buf, len, &jerr);
  if(rc) {
    snprintf(msg, sizeof(msg), "invalid JSON: %s", jerr.message ? jerr.message : "parse error");
    err_at(err, path, buf, len, jerr.offset, msg);
    goto out;
  }
  /* Every error in one pass — the schema's, then what the schema cannot
   * say (references that cannot be parsed, allow lists and assertions
   * naming rules that do not exist, repeated case names) — so that a large
   * suite with a few broken cases is fixed at once.  The list is bounded. */
  int bad = 0;
  if(schema) {
    struct oc_schema_result res;
    oc_schema_result_init(&res);
    res.max = 1000;
    int v = oc_schema_validate(schema, doc.root, &res);
    if(v == -OC_ENOMEM) {
      /* oacheck's failure, not the suite's: no "could not be applied" */
      oc_schema_result_free(&res);
      rc = OC_ENOMEM;
      goto out;
    }
    if(v != 1) {
      for(size_t i = 0; i < res.count; i++) {
        const char *hint = required_hint(&res.errors[i]);
        snprintf(msg, sizeof(msg), "at '%s': %s%s%s%s", res.errors[i].instance_path,
                 res.errors[i].message, hint ? " (" : "", hint ? hint : "", hint ? "; docs/suites.md)" : "");
        err_at(err, path, buf, len, res.errors[i].offset, msg);
      }
      if(res.dropped)
        oc_buf_printf(err, "%s: … and at least %zu more errors\n", path, res.dropped);
      if(v < 0)
        oc_buf_printf(err, "%s: the suite schema could not be applied: %s\n", path,
                      res.undecided ? res.undecided : "oacheck's validation budget ran out");
      bad = 1;
    }
    oc_schema_result_free(&res);
  }
  {
    bad |= check_allow(oc_jv_get(doc.root, "allow"), path, buf, len, err);
    const struct oc_jv *cs = oc_jv_get(doc.root, "cases");
    for(uint32_t i = 0; cs && cs->type == OC_JARRAY && i < cs->len; i++) {
      /* depth 0 is the request object, whose body sits one level down */
      struct request_walk w = { 0, 0, 0, oc_jv_get(doc.root, "variables") };
      bad |= check_request(oc_jv_get(&cs->u.items[i], "request"), path, buf, len, err, -1, &w);
      bad |= check_allow(oc_jv_get(&cs->u.items[i], "allow"), path, buf, len, err);
      bad |= check_assert_rules(oc_jv_get(&cs->u.items[i], "expect"), path, buf, len, err);
    }
    int dup = check_unique_names(doc.root, path, buf, len, err);
    if(dup == OC_ENOMEM) {
      rc = OC_ENOMEM;
      goto out;
    }
    bad |= dup != OC_OK;
    if(bad) {
      rc = OC_EPARSE;
      goto out;
    }
  }
  /* Even unvalidated, refuse shapes the loader cannot use. */
  s.doc = oc_jv_to_cjson(doc.root);
  s.file = oc_strdup(path);
  rc = OC_ENOMEM;
  if(!s.doc || !s.file)
    goto out;
  rc = OC_EPARSE;
  s.name = oc_json_str(s.doc, "suite");
  s.description = oc_json_str(s.doc, "description");
  s.variables = oc_json_obj(s.doc, "variables");
  const cJSON *cases = oc_json_arr(s.doc, "cases");
  if(!s.name || !cases) {
    err_at(err, path, buf, len, 0, "a suite needs a string 'suite' and an array 'cases'");
    goto out;
  }
  for(size_t i = 0; i < set->count; i++)
    if(strcmp(set->items[i].name, s.name) == 0) {
      snprintf(msg, sizeof(msg), "suite name '%s' is already used by %s", s.name, set->items[i].file);
      err_at(err, path, buf, len, oc_jv_get(doc.root, "suite")->offset, msg);
      goto out;
    }
  /* looked up once here, not per result: the lookup stats files */
  char *shipped = oc_suite_resolve(s.name);
  s.shipped = shipped && strcmp(shipped, s.file) == 0;
  free(shipped);
  size_t n = (size_t)cJSON_GetArraySize(cases);
  s.cases = calloc(n ? n : 1, sizeof(*s.cases));
  if(!s.cases) {
    rc = OC_ENOMEM;
    goto out;
  }
  const cJSON *suite_allow = oc_json_arr(s.doc, "allow");
  const cJSON *suite_profiles = oc_json_arr(s.doc, "profiles");
  const struct oc_jv *jcases = oc_jv_get(doc.root, "cases");
  const cJSON *cj;
  size_t k = 0;
  /* lines counted on from the previous case: one pass over the file */
  size_t line_at = 0;
  int line = 1;
  cJSON_ArrayForEach(cj, cases)
  {
    struct oc_case *c = &s.cases[k];
    const struct oc_jv *jc = oc_jv_at(jcases, k);
    for(size_t end = jc && jc->offset < len ? jc->offset : line_at; line_at < end; line_at++)
      line += buf[line_at] == '\n';
    c->line = line;
    c->suite = s.name;
    c->file = s.file;
    c->shipped = s.shipped;
    c->order = k;
    c->variables = s.variables;
    c->json = cj;
    c->name = oc_json_str(cj, "name");
    c->description = oc_json_str(cj, "description");
    c->request = oc_json_obj(cj, "request");
    c->expect = oc_json_obj(cj, "expect");
    c->profiles = oc_json_arr(cj, "profiles") ? oc_json_arr(cj, "profiles") : suite_profiles;
    if(!c->name || !c->request) {
      err_at(err, path, buf, len, jc ? jc->offset : 0, "a case needs a string 'name' and an object 'request'");
      goto out;
    }
    /* every name was checked by check_rule_names */
    const cJSON *al;
    cJSON_ArrayForEach(al, suite_allow)
      if(cJSON_IsString(al))
        oc_ruleset_add_pattern(&c->allow, al->valuestring);
    cJSON_ArrayForEach(al, oc_json_arr(cj, "allow"))
      if(cJSON_IsString(al))
        oc_ruleset_add_pattern(&c->allow, al->valuestring);
    if(add_strings(&c->tags, &c->ntags, oc_json_arr(cj, "tags"))) {
      rc = OC_ENOMEM;
      goto out;
    }
    k++;
    s.ncases = k;
  }
  size_t alloc = set->count; /* room for at least that: a suite set stays small */
  struct oc_suite *d = oc_array_grow(set->items, &alloc, set->count + 1, sizeof(*d));
  if(!d) {
    rc = OC_ENOMEM;
    goto out;
  }
  set->items = d;
  set->items[set->count++] = s;
  memset(&s, 0, sizeof(s));
  rc = OC_OK;
out:
  suite_free(&s);
  oc_jdoc_free(&doc);
  return rc;
}

void oc_suite_set_free(struct oc_suite_set *set)
{
  for(size_t i = 0; i < set->count; i++)
    suite_free(&set->items[i]);
  free(set->items);
  set->items = NULL;
  set->count = 0;
}

char *oc_suite_resolve(const char *arg)
{
  if(oc_is_file(arg))
    return oc_strdup(arg);
  if(strchr(arg, '/'))
    return NULL;
  /* a shipped suite, then a protocol's (suites/protocols: not in the
   * default run, which is chat's) */
  static const char *const dirs[] = { "suites/", "suites/protocols/" };
  for(size_t i = 0; i < OC_ARRAY_LEN(dirs); i++) {
    char *rel = oc_asprintf("%s%s%s", dirs[i], arg, oc_endswith(arg, ".json") ? "" : ".json");
    char *p = rel ? oc_data_path(rel) : NULL;
    free(rel);
    if(p && oc_is_file(p))
      return p;
    free(p);
  }
  return NULL;
}

void oc_suite_resolve_why(const char *arg, struct oc_buf *out)
{
  /* a path is what the user meant when it has a '/' or ends in .json:
   * say what the system said of it, not "neither a file nor a suite" */
  int pathlike = strchr(arg, '/') || oc_endswith(arg, ".json");
  if(pathlike) {
    struct stat st;
    if(stat(arg, &st) != 0)
      oc_buf_printf(out, "no such file: %s (%s)", arg, strerror(errno));
    else
      oc_buf_printf(out, "'%s' is %s, not a suite file", arg,
                    S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
    if(strchr(arg, '/'))
      return;
  }
  size_t n = strlen(arg) - (oc_endswith(arg, ".json") ? 5 : 0);
  oc_buf_printf(out, "%sno shipped suite '%.*s'", pathlike ? ", and " : "", (int)n, arg);
  char **paths = NULL;
  size_t np = 0;
  if(oc_suite_shipped(&paths, &np) != OC_OK || np == 0) {
    oc_buf_printf(out, " (and none found under '%s/suites')", oc_datadir());
    for(size_t i = 0; i < np; i++)
      free(paths[i]);
    free(paths);
    return;
  }
  /* the names, from their paths: DIR/NAME.json */
  struct oc_nearest nr;
  oc_nearest_init(&nr, arg, n, 0);
  for(size_t i = 0; i < np; i++) {
    const char *b = strrchr(paths[i], '/') ? strrchr(paths[i], '/') + 1 : paths[i];
    oc_nearest_offer(&nr, b, strlen(b) - 5);
  }
  if(nr.near)
    oc_buf_printf(out, ": did you mean '%.*s'?", (int)nr.nearlen, nr.near);
  oc_buf_adds(out, " (shipped: ");
  for(size_t i = 0; i < np; i++) {
    const char *b = strrchr(paths[i], '/') ? strrchr(paths[i], '/') + 1 : paths[i];
    oc_buf_printf(out, "%s%.*s", i ? ", " : "", (int)(strlen(b) - 5), b);
  }
  oc_buf_adds(out, "; a suite of your own is given by its path)");
  for(size_t i = 0; i < np; i++)
    free(paths[i]);
  free(paths);
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.json files of the data directory's folder rel into *paths (grown
 * from *n, *alloc), sorted among themselves. */
static int shipped_in(const char *rel, char ***paths, size_t *n, size_t *alloc)
{
  char *dir = oc_data_path(rel);
  if(!dir)
    return OC_ENOMEM;
  DIR *d = opendir(dir);
  if(!d) {
    free(dir);
    return OC_ENOTFOUND;
  }
  struct dirent *e;
  int rc = OC_OK;
  size_t first = *n;
  while((e = readdir(d))) {
    if(e->d_name[0] == '.' || !oc_endswith(e->d_name, ".json"))
      continue;
    char **np = oc_array_grow(*paths, alloc, *n + 1, sizeof(*np));
    char *p = oc_path_join(dir, e->d_name);
    if(!np || !p) {
      free(p);
      if(np)
        *paths = np;
      rc = OC_ENOMEM;
      break;
    }
    *paths = np;
    (*paths)[(*n)++] = p;
  }
  closedir(d);
  free(dir);
  if(*n > first)
    qsort(*paths + first, *n - first, sizeof(**paths), cmp_str);
  return rc;
}

int oc_suite_shipped(char ***paths, size_t *n)
{
  *paths = NULL;
  *n = 0;
  size_t alloc = 0;
  /* chat's suites, then the other protocols' (suites/protocols/): a run
   * with no suite named asks every protocol, a block of each */
  int rc = shipped_in("suites", paths, n, &alloc);
  if(rc == OC_OK) {
    int prc = shipped_in("suites/protocols", paths, n, &alloc);
    if(prc == OC_ENOMEM)
      rc = prc;
  }
  return rc;
}

/* ---- variables ------------------------------------------------------------- */

/* ${words:N:WORD}: N copies of WORD separated by single spaces, for long
 * prompts (context-overflow cases) that a suite should not spell out.  N is
 * a number or the name of a numeric variable. */
/* What is left of a request's OC_CAP_REQUEST while it is built, and why
 * building stopped. */
struct build {
  size_t left;
  int rc;                   /* OC_ENOTFOUND, OC_ETOOBIG, OC_EUSAGE, OC_ENOMEM */
};

static void *build_fail(struct build *b, int rc)
{
  if(!b->rc)
    b->rc = rc;
  return NULL;
}

static cJSON *words(const struct oc_vars *vars, const char *spec, struct build *bd, char *err,
                    size_t errlen)
{
  const char *colon = strchr(spec, ':');
  if(!colon || !colon[1]) {
    snprintf(err, errlen, "${words:%s} wants ${words:COUNT:WORD}", spec);
    return build_fail(bd, OC_EUSAGE);
  }
  char *count = oc_strndup(spec, (size_t)(colon - spec));
  long n;
  if(!count)
    return build_fail(bd, OC_ENOMEM);
  if(oc_parse_long(count, 0, LONG_MAX, &n)) {
    const cJSON *v = oc_json_get(vars->target, count);
    if(!v)
      v = oc_json_get(vars->suite, count);
    if(!v) {
      snprintf(err, errlen, "undefined variable ${%s}", count);
      free(count);
      return build_fail(bd, OC_ENOTFOUND);
    }
    if(!oc_json_is_integer(v) || v->valuedouble < 0 || v->valuedouble > OC_WORDS_MAX) {
      snprintf(err, errlen, "${words:%s:…}: %s is not a count from 0 to 1,000,000", count, count);
      free(count);
      return build_fail(bd, OC_EUSAGE);
    }
    n = (long)v->valuedouble;
  }
  else if(n > OC_WORDS_MAX) {
    snprintf(err, errlen, "${words:%s:…}: the count is over 1,000,000", count);
    free(count);
    return build_fail(bd, OC_EUSAGE);
  }
  free(count);
  /* sized before anything is built: a request over the cap costs nothing */
  size_t wl = strlen(colon + 1);
  if(n > 0 && (wl + 1 > bd->left / (size_t)n || (size_t)n * (wl + 1) - 1 > bd->left)) {
    snprintf(err, errlen, "${words:%.60s} makes the request larger than the %u MiB oacheck builds",
             spec, OC_CAP_REQUEST >> 20);
    return build_fail(bd, OC_ETOOBIG);
  }
  struct oc_buf b;
  oc_buf_init(&b, bd->left);
  for(long i = 0; i < n && !oc_buf_error(&b); i++) {
    if(i)
      oc_buf_addc(&b, ' ');
    oc_buf_add(&b, colon + 1, wl);
  }
  /* sized above, so a failed buffer ran out of memory */
  cJSON *r = oc_buf_error(&b) ? NULL : cJSON_CreateString(oc_buf_str(&b));
  oc_buf_free(&b);
  return r ? r : build_fail(bd, OC_ENOMEM);
}

/* The value of ${name}; NULL with err set when there is none. */
static const cJSON *var_lookup(const struct oc_vars *vars, const char *name, cJSON **owned,
                               struct build *bd, char *err, size_t errlen)
{
  *owned = NULL;
  if(oc_startswith(name, "words:")) {
    *owned = words(vars, name + 6, bd, err, errlen);
    return *owned;
  }
  if(oc_startswith(name, "env:")) {
    const char *v = vars->allow_env ? getenv(name + 4) : NULL;
    if(!v) {
      snprintf(err, errlen, "undefined variable ${%s} (not in the environment)", name);
      return build_fail(bd, OC_ENOTFOUND);
    }
    *owned = cJSON_CreateString(v);
    return *owned ? *owned : build_fail(bd, OC_ENOMEM);
  }
  const cJSON *v = oc_json_get(vars->target, name);
  if(!v)
    v = oc_json_get(vars->suite, name);
  if(!v) {
    snprintf(err, errlen, "undefined variable ${%s}", name);
    return build_fail(bd, OC_ENOTFOUND);
  }
  return v;
}

/* A string of n bytes is about to join the request. */
static int build_take(struct build *bd, size_t n, char *err, size_t errlen)
{
  if(n > bd->left) {
    snprintf(err, errlen, "the request is larger than the %u MiB oacheck builds", OC_CAP_REQUEST >> 20);
    build_fail(bd, OC_ETOOBIG);
    return OC_ETOOBIG;
  }
  bd->left -= n;
  return OC_OK;
}

/* Interpolate ${…} references in s into out; whole == the string was a
 * single reference, whose value is then returned in *value.  The syntax was
 * checked when the suite was loaded (oc_suite_check_references). */
static int interpolate(const char *s, const struct oc_vars *vars, struct oc_buf *out,
                       const cJSON **whole, cJSON **owned, struct build *bd, char *err,
                       size_t errlen)
{
  *whole = NULL;
  *owned = NULL;
  size_t n = strlen(s);
  if(n > 3 && s[0] == '$' && s[1] == '{' && s[n - 1] == '}' && !memchr(s + 2, '}', n - 3)) {
    char *name = oc_strndup(s + 2, n - 3);
    const cJSON *v = name ? var_lookup(vars, name, owned, bd, err, errlen) : build_fail(bd, OC_ENOMEM);
    free(name);
    if(!v)
      return bd->rc;
    if(cJSON_IsString(v) && build_take(bd, strlen(v->valuestring), err, errlen))
      return bd->rc;
    *whole = v;
    return OC_OK;
  }
  for(const char *p = s; *p;) {
    const char *d = strstr(p, "${");
    if(!d) {
      if(oc_buf_adds(out, p))
        return OC_ENOMEM;
      break;
    }
    if(oc_buf_add(out, p, (size_t)(d - p)))
      return OC_ENOMEM;
    const char *e = strchr(d + 2, '}');
    if(!e) {
      snprintf(err, errlen, "unterminated variable reference in '%.80s'", s);
      return OC_EPARSE;
    }
    char *name = oc_strndup(d + 2, (size_t)(e - d - 2));
    cJSON *own = NULL;
    const cJSON *v = name ? var_lookup(vars, name, &own, bd, err, errlen) : build_fail(bd, OC_ENOMEM);
    free(name);
    if(!v)
      return bd->rc;
    int rc;
    if(cJSON_IsString(v))
      rc = oc_buf_adds(out, v->valuestring);
    else {
      char *t = oc_json_print(v);
      rc = t ? oc_buf_adds(out, t) : OC_ENOMEM;
      free(t);
    }
    cJSON_Delete(own);
    if(rc) {
      if(rc == OC_ETOOBIG)
        snprintf(err, errlen, "the request is larger than the %u MiB oacheck builds",
                 OC_CAP_REQUEST >> 20);
      build_fail(bd, rc);
      return rc;
    }
    p = e + 1;
  }
  if(build_take(bd, out->len, err, errlen))
    return bd->rc;
  return OC_OK;
}

static cJSON *substitute(const cJSON *in, const struct oc_vars *vars, struct build *bd, char *err,
                         size_t errlen, int depth)
{
  if(depth > OC_REQUEST_MAX_DEPTH) {
    snprintf(err, errlen, "the request is nested deeper than %d levels", OC_REQUEST_MAX_DEPTH);
    return build_fail(bd, OC_EUSAGE);
  }
  if(in->string && build_take(bd, strlen(in->string), err, errlen))
    return NULL;
  if(cJSON_IsString(in)) {
    struct oc_buf b;
    oc_buf_init(&b, bd->left);
    const cJSON *whole;
    cJSON *owned;
    if(interpolate(in->valuestring, vars, &b, &whole, &owned, bd, err, errlen)) {
      oc_buf_free(&b);
      return NULL;
    }
    cJSON *r = whole ? cJSON_Duplicate(whole, 1) : cJSON_CreateString(oc_buf_str(&b));
    cJSON_Delete(owned);
    oc_buf_free(&b);
    return r;
  }
  if(cJSON_IsArray(in) || cJSON_IsObject(in)) {
    cJSON *out = cJSON_IsArray(in) ? cJSON_CreateArray() : cJSON_CreateObject();
    const cJSON *it;
    cJSON_ArrayForEach(it, in)
    {
      cJSON *v = substitute(it, vars, bd, err, errlen, depth + 1);
      if(!v || !out) {
        cJSON_Delete(v);
        cJSON_Delete(out);
        return out ? NULL : build_fail(bd, OC_ENOMEM);
      }
      if(oc_json_add(out, cJSON_IsArray(in) ? NULL : it->string, v)) {
        cJSON_Delete(out);
        return build_fail(bd, OC_ENOMEM);
      }
    }
    return out;
  }
  return cJSON_Duplicate(in, 1);
}

static char *subst_string(const char *s, const struct oc_vars *vars, struct build *bd, char *err,
                          size_t errlen)
{
  struct oc_buf b;
  oc_buf_init(&b, bd->left);
  const cJSON *whole;
  cJSON *owned;
  if(interpolate(s, vars, &b, &whole, &owned, bd, err, errlen)) {
    oc_buf_free(&b);
    return NULL;
  }
  char *r;
  if(whole)
    r = cJSON_IsString(whole) ? oc_strdup(whole->valuestring) : oc_json_print(whole);
  else
    r = oc_buf_take(&b, NULL);
  cJSON_Delete(owned);
  oc_buf_free(&b);
  return r ? r : build_fail(bd, OC_ENOMEM);
}

void oc_built_request_free(struct oc_built_request *r)
{
  free(r->method);
  free(r->path);
  oc_headers_free(&r->headers);
  free(r->body);
  cJSON_Delete(r->body_json);
  memset(r, 0, sizeof(*r));
}

int oc_suite_build_request(const struct oc_case *c, const struct oc_vars *vars,
                           struct oc_built_request *out, char *err, size_t errlen)
{
  struct build bd = { OC_CAP_REQUEST, OC_OK };
  memset(out, 0, sizeof(*out));
  oc_headers_init(&out->headers);
  if(errlen)
    err[0] = '\0';
  const cJSON *req = c->request;
  const char *method = oc_json_str(req, "method");
  const char *path = oc_json_str(req, "path");
  out->method = oc_strdup(method ? method : "GET");
  out->path = path ? subst_string(path, vars, &bd, err, errlen) : oc_strdup("/");
  if(!out->method || !out->path)
    goto fail;
  const cJSON *h;
  cJSON_ArrayForEach(h, oc_json_obj(req, "headers"))
  {
    if(!cJSON_IsString(h))
      continue;
    char *v = subst_string(h->valuestring, vars, &bd, err, errlen);
    if(!v || oc_headers_add(&out->headers, h->string, v)) {
      free(v);
      goto fail;
    }
    free(v);
  }
  const cJSON *body = oc_json_get(req, "body");
  const char *raw = oc_json_str(req, "raw_body");
  if(body) {
    out->body_json = substitute(body, vars, &bd, err, errlen, 0);
    if(!out->body_json)
      goto fail;
    out->body = oc_json_print(out->body_json);
    if(!out->body)
      goto fail;
    out->body_len = strlen(out->body);
  }
  else if(raw) {
    out->body = subst_string(raw, vars, &bd, err, errlen);
    if(!out->body)
      goto fail;
    out->body_len = strlen(out->body);
  }
  /* JSON escapes may have grown what the budget counted */
  if(out->body_len > OC_CAP_REQUEST) {
    snprintf(err, errlen, "the request body is %zu bytes, larger than the %u MiB oacheck builds",
             out->body_len, OC_CAP_REQUEST >> 20);
    bd.rc = OC_ETOOBIG;
    goto fail;
  }
  if(out->body && !oc_headers_get(&out->headers, "Content-Type")) {
    const char *ct = oc_json_str(req, "content_type");
    if(oc_headers_add(&out->headers, "Content-Type", ct ? ct : "application/json"))
      goto fail;
  }
  return OC_OK;
fail:
  if(!bd.rc)
    bd.rc = OC_ENOMEM;
  if(!err[0])
    snprintf(err, errlen, "out of memory building the request");
  oc_built_request_free(out);
  return bd.rc;
}

int oc_case_applies(const struct oc_case *c, const char *profile)
{
  if(!c->profiles)
    return 1;
  const cJSON *p;
  cJSON_ArrayForEach(p, c->profiles)
  {
    if(cJSON_IsString(p) && oc_streq(p->valuestring, profile))
      return 1;
  }
  return 0;
}
