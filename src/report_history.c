/* report_history.c — nightly results over time.  oc_history_build sorts
 * the runs by start time, flattens every (target, case, run) verdict and
 * every (target, rule, run) error finding into arrays sorted once, and
 * sweeps them into episodes (began failing, recovered), flips and trends;
 * the text and HTML renderers read only the document it builds, so the
 * JSON, the terminal and the page always agree.  Everything from a
 * results file is escaped where it is written.  Which files make up the
 * history is cmd_report.c's business. */
#include "config.h"
#include "report_history.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "html_out.h"
#include "results_json.h"

#define OC_HISTORY_CASES_SHOWN 20 /* cases listed per failing episode */

/* What `oacheck pin` pins (cmd_pin.c's table): a change in any of these
 * between two runs is drift. */
static const char *const pin_fields[] = { "model", "models", "model_path", "chat_template_sha256",
                                          "n_ctx", "total_slots", "build" };

/* ---- building ------------------------------------------------------------ */

struct hrun {
  const cJSON *doc;
  const char *file, *started;
  size_t seq;
};

static int run_cmp(const void *x, const void *y)
{
  const struct hrun *a = x, *b = y;
  int c = strcmp(a->started, b->started);
  if(!c)
    c = strcmp(a->file, b->file);
  return c ? c : (a->seq < b->seq ? -1 : a->seq > b->seq);
}

/* One case's verdict in one run, or one counting error finding. */
struct hent {
  size_t t;                  /* target */
  const char *key;           /* rule, or suite (with sub the case) */
  const char *suite, *kase;
  size_t run;
  enum oc_status st;
};

static int ent_cmp(const void *x, const void *y)
{
  const struct hent *a = x, *b = y;
  if(a->t != b->t)
    return a->t < b->t ? -1 : 1;
  int c = strcmp(a->key, b->key);
  if(!c && a->key == a->suite)
    c = strcmp(a->kase, b->kase);
  if(c)
    return c;
  if(a->run != b->run)
    return a->run < b->run ? -1 : 1;
  c = strcmp(a->suite, b->suite);
  return c ? c : strcmp(a->kase, b->kase);
}

struct ents {
  struct hent *v;
  size_t n, alloc;
};

static int ents_add(struct ents *e, struct hent x)
{
  struct hent *g = oc_array_grow(e->v, &e->alloc, e->n + 1, sizeof(*g));
  if(!g)
    return OC_ENOMEM;
  e->v = g;
  g[e->n++] = x;
  return OC_OK;
}

struct htarget {
  const char *name;
  const cJSON **ident; /* [nruns]: identity in that run, NULL when absent */
  unsigned char *present;
};

struct builder {
  struct hrun *runs;
  size_t nruns;
  struct htarget *targets;
  size_t ntargets, talloc;
  struct ents cases, rules;
};

static long target_index(struct builder *b, const char *name)
{
  for(size_t i = 0; i < b->ntargets; i++)
    if(strcmp(b->targets[i].name, name) == 0)
      return (long)i;
  struct htarget *g = oc_array_grow(b->targets, &b->talloc, b->ntargets + 1, sizeof(*g));
  if(!g)
    return -1;
  b->targets = g;
  struct htarget *t = &g[b->ntargets];
  t->name = name;
  t->ident = calloc(b->nruns + 1, sizeof(*t->ident));
  t->present = calloc(b->nruns + 1, 1);
  if(!t->ident || !t->present) {
    free(t->ident);
    free(t->present);
    return -1;
  }
  return (long)b->ntargets++;
}

static int pin_equal(const cJSON *a, const cJSON *b)
{
  for(size_t i = 0; i < OC_ARRAY_LEN(pin_fields); i++) {
    const cJSON *x = oc_json_get(a, pin_fields[i]), *y = oc_json_get(b, pin_fields[i]);
    int xn = !x || cJSON_IsNull(x), yn = !y || cJSON_IsNull(y);
    if(xn != yn || (!xn && !oc_json_equal(x, y)))
      return 0;
  }
  return 1;
}

/* The previous run (before r) in which target t is present, or -1. */
static long prev_present(const struct htarget *t, size_t r)
{
  while(r-- > 0)
    if(t->present[r])
      return (long)r;
  return -1;
}

static int add_copy(cJSON *o, const char *key, const cJSON *v)
{
  return oc_json_add(o, key, v && !cJSON_IsNull(v) ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
}

/* [{field, old, new}] of what changed between two identities. */
static cJSON *pin_changes(const cJSON *old, const cJSON *nw)
{
  cJSON *arr = cJSON_CreateArray();
  for(size_t i = 0; arr && i < OC_ARRAY_LEN(pin_fields); i++) {
    const cJSON *x = oc_json_get(old, pin_fields[i]), *y = oc_json_get(nw, pin_fields[i]);
    int xn = !x || cJSON_IsNull(x), yn = !y || cJSON_IsNull(y);
    if(xn == yn && (xn || oc_json_equal(x, y)))
      continue;
    cJSON *c = cJSON_CreateObject();
    if(oc_json_add(arr, NULL, c) || !cJSON_AddStringToObject(c, "field", pin_fields[i]) ||
       add_copy(c, "old", x) || add_copy(c, "new", y)) {
      cJSON_Delete(arr); /* c with it, when it was added */
      return NULL;
    }
  }
  return arr;
}

static cJSON *run_ref(const struct builder *b, size_t r)
{
  cJSON *o = cJSON_CreateObject();
  if(!o || !cJSON_AddNumberToObject(o, "run", (double)(r + 1)) ||
     !cJSON_AddStringToObject(o, "started", b->runs[r].started)) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

static const char *model_of(const struct htarget *t, size_t r)
{
  const char *m = oc_json_str(t->ident[r], "model");
  return m ? m : "(model unknown)";
}

static int dbl_cmp(const void *x, const void *y)
{
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

static double median(double *v, size_t n)
{
  qsort(v, n, sizeof(*v), dbl_cmp);
  double m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return round(m * 1000) / 1000;
}

/* Per-run medians of one target's timing, in series by model. */
static int add_trends(const struct builder *b, size_t ti, cJSON *tobj)
{
  const struct htarget *t = &b->targets[ti];
  cJSON *series = cJSON_AddArrayToObject(tobj, "trends");
  if(!series)
    return OC_ENOMEM;
  static const char *const metrics[][2] = {
    { "ttft_ms", "ttft_ms" }, { "itl_p50_ms", "itl_ms" }, { "tokens_per_s", "tokens_per_s" },
  };
  for(size_t r = 0; r < b->nruns; r++) {
    if(!t->present[r])
      continue;
    const cJSON *rs = oc_json_arr(b->runs[r].doc, "results");
    size_t cap = (size_t)cJSON_GetArraySize(rs) + 1;
    double *v = malloc(cap * sizeof(*v));
    if(!v)
      return OC_ENOMEM;
    cJSON *point = NULL;
    for(size_t m = 0; m < OC_ARRAY_LEN(metrics); m++) {
      size_t n = 0;
      const cJSON *res;
      cJSON_ArrayForEach(res, rs) {
        if(!oc_streq(oc_json_str(res, "target"), t->name))
          continue;
        const cJSON *tm = oc_json_obj(res, "timing");
        const cJSON *x = oc_json_get(tm, metrics[m][0]);
        if(cJSON_IsTrue(oc_json_get(tm, "recorded")) && cJSON_IsNumber(x) && isfinite(x->valuedouble) &&
           x->valuedouble >= 0 && n < cap)
          v[n++] = x->valuedouble;
      }
      if(!n)
        continue;
      if(!point && !(point = cJSON_CreateObject())) {
        free(v);
        return OC_ENOMEM;
      }
      if(!cJSON_AddNumberToObject(point, metrics[m][1], median(v, n)) ||
         (m == 0 && !cJSON_AddNumberToObject(point, "cases", (double)n))) {
        free(v);
        cJSON_Delete(point);
        return OC_ENOMEM;
      }
    }
    free(v);
    if(!point)
      continue;
    if(!cJSON_AddNumberToObject(point, "run", (double)(r + 1)) ||
       !cJSON_AddStringToObject(point, "started", b->runs[r].started)) {
      cJSON_Delete(point);
      return OC_ENOMEM;
    }
    /* the series of this run's model */
    const char *model = model_of(t, r);
    cJSON *s = NULL, *it;
    cJSON_ArrayForEach(it, series)
      if(oc_streq(oc_json_str(it, "model"), model))
        s = it;
    if(!s && (oc_json_add(series, NULL, (s = cJSON_CreateObject())) ||
              !cJSON_AddStringToObject(s, "model", model) || !cJSON_AddArrayToObject(s, "points"))) {
      cJSON_Delete(point);
      return OC_ENOMEM;
    }
    if(oc_json_add(oc_json_arr(s, "points"), NULL, point))
      return OC_ENOMEM;
  }
  return OC_OK;
}

static int verdict_bad(enum oc_status s)
{
  return s == OC_ST_FAIL || s == OC_ST_ERROR || s == OC_ST_INVALID;
}

/* Flips of each case of target ti (entries [lo, hi) of b->cases, sorted by
 * case then run); flaky ones into arr. */
static int add_flaky(const struct builder *b, size_t ti, size_t lo, size_t hi, cJSON *arr)
{
  const struct htarget *t = &b->targets[ti];
  const struct hent *e = b->cases.v;
  char *line = malloc(b->nruns + 1);
  if(!line)
    return OC_ENOMEM;
  for(size_t i = lo; i < hi;) {
    size_t j = i;
    while(j < hi && strcmp(e[j].suite, e[i].suite) == 0 && strcmp(e[j].kase, e[i].kase) == 0)
      j++;
    long flips = 0, npass = 0, nbad = 0, prev = -1;
    memset(line, '-', b->nruns);
    line[b->nruns] = '\0';
    for(size_t k = i; k < j; k++) {
      enum oc_status st = e[k].st;
      line[e[k].run] = st == OC_ST_PASS ? 'P' : st == OC_ST_FAIL ? 'F' : st == OC_ST_SKIP ? 'S' : 'E';
      if(st == OC_ST_SKIP)
        continue;
      verdict_bad(st) ? nbad++ : npass++;
      if(prev >= 0 && verdict_bad(e[prev].st) != verdict_bad(st) &&
         pin_equal(t->ident[e[prev].run], t->ident[e[k].run]))
        flips++;
      prev = (long)k;
    }
    if(flips >= OC_HISTORY_FLAKY_FLIPS) {
      cJSON *o = cJSON_CreateObject(), *fr;
      if(oc_json_add(arr, NULL, o) || !cJSON_AddStringToObject(o, "suite", e[i].suite) ||
         !cJSON_AddStringToObject(o, "case", e[i].kase) || !cJSON_AddNumberToObject(o, "flips", (double)flips) ||
         !cJSON_AddNumberToObject(o, "pass", (double)npass) || !cJSON_AddNumberToObject(o, "fail", (double)nbad) ||
         !cJSON_AddStringToObject(o, "verdicts", line) || !(fr = cJSON_AddArrayToObject(o, "flip_runs"))) {
        free(line);
        return OC_ENOMEM;
      }
      prev = -1;
      for(size_t k = i; k < j; k++) {
        if(e[k].st == OC_ST_SKIP)
          continue;
        if(prev >= 0 && verdict_bad(e[prev].st) != verdict_bad(e[k].st) &&
           pin_equal(t->ident[e[prev].run], t->ident[e[k].run])) {
          if(oc_json_add(fr, NULL, cJSON_CreateNumber((double)(e[k].run + 1)))) {
            free(line);
            return OC_ENOMEM;
          }
        }
        prev = (long)k;
      }
    }
    i = j;
  }
  free(line);
  return OC_OK;
}

static int is_flaky(const cJSON *flaky, const char *suite, const char *kase)
{
  const cJSON *f;
  cJSON_ArrayForEach(f, flaky)
    if(oc_streq(oc_json_str(f, "suite"), suite) && oc_streq(oc_json_str(f, "case"), kase))
      return 1;
  return 0;
}

/* Episodes of each rule of target ti (entries [lo, hi) of b->rules, sorted
 * by rule then run). */
static int add_rules(const struct builder *b, size_t ti, size_t lo, size_t hi, cJSON *arr,
                     const cJSON *flaky)
{
  const struct htarget *t = &b->targets[ti];
  const struct hent *e = b->rules.v;
  unsigned char *failing = malloc(b->nruns + 1);
  if(!failing)
    return OC_ENOMEM;
  int rc = OC_ENOMEM;
  for(size_t i = lo; i < hi;) {
    size_t j = i;
    while(j < hi && strcmp(e[j].key, e[i].key) == 0)
      j++;
    memset(failing, 0, b->nruns);
    int all_flaky = 1;
    for(size_t k = i; k < j; k++) {
      failing[e[k].run] = 1;
      all_flaky &= is_flaky(flaky, e[k].suite, e[k].kase);
    }
    cJSON *o = cJSON_CreateObject(), *eps;
    if(oc_json_add(arr, NULL, o) || !cJSON_AddStringToObject(o, "rule", e[i].key) ||
       !(eps = cJSON_AddArrayToObject(o, "episodes")))
      goto out;
    long first = -1, last = -1;
    for(size_t r = 0; r < b->nruns; r++)
      if(t->present[r]) {
        if(first < 0)
          first = (long)r;
        last = (long)r;
      }
    size_t k = i; /* walks the entries along with the runs */
    for(long r = first; r >= 0 && r <= last; r++) {
      if(!t->present[r] || !failing[r])
        continue;
      long p = prev_present(t, (size_t)r);
      if(p >= 0 && failing[p])
        continue; /* inside an episode */
      /* an episode begins at r: find where it ends */
      long end = r, rec = -1;
      for(long q = r + 1; q <= last; q++) {
        if(!t->present[q])
          continue;
        if(!failing[q]) {
          rec = q;
          break;
        }
        end = q;
      }
      cJSON *ep = cJSON_CreateObject(), *began, *cs;
      if(oc_json_add(eps, NULL, ep) || oc_json_add(ep, "began", (began = run_ref(b, (size_t)r))) ||
         !cJSON_AddStringToObject(began, "model", model_of(t, (size_t)r)) ||
         !cJSON_AddBoolToObject(ep, "since_first_run", p < 0))
        goto out;
      if(rec >= 0) {
        if(oc_json_add(ep, "recovered", run_ref(b, (size_t)rec)))
          goto out;
      }
      else if(!cJSON_AddNullToObject(ep, "recovered"))
        goto out;
      long nfail = 0;
      for(long q = r; q <= end; q++)
        nfail += t->present[q] && failing[q];
      if(!cJSON_AddNumberToObject(ep, "runs", (double)nfail))
        goto out;
      /* the pin change this onset lines up with, if any */
      if(p >= 0 && !pin_equal(t->ident[p], t->ident[r])) {
        if(oc_json_add(ep, "pin_change", pin_changes(t->ident[p], t->ident[r])))
          goto out;
      }
      else if(!cJSON_AddNullToObject(ep, "pin_change"))
        goto out;
      /* the cases that failed with it during the episode, once each */
      if(!(cs = cJSON_AddArrayToObject(ep, "cases")))
        goto out;
      while(k < j && (long)e[k].run < r)
        k++;
      for(size_t q = k; q < j && (long)e[q].run <= end; q++) {
        char name[600];
        snprintf(name, sizeof(name), "%s/%s", e[q].suite, e[q].kase);
        int dup = 0;
        const cJSON *c;
        cJSON_ArrayForEach(c, cs)
          dup |= strcmp(c->valuestring, name) == 0;
        if(dup || cJSON_GetArraySize(cs) >= OC_HISTORY_CASES_SHOWN)
          continue;
        if(oc_json_add(cs, NULL, cJSON_CreateString(name)))
          goto out;
      }
    }
    if(!cJSON_AddBoolToObject(o, "failing_now", last >= 0 && failing[last]) ||
       !cJSON_AddBoolToObject(o, "flaky", all_flaky))
      goto out;
    i = j;
  }
  rc = OC_OK;
out:
  free(failing);
  return rc;
}

static int build_target(const struct builder *b, size_t ti, size_t clo, size_t chi, size_t rlo,
                        size_t rhi, cJSON *tarr)
{
  const struct htarget *t = &b->targets[ti];
  cJSON *o = cJSON_CreateObject(), *runs, *drift, *rules, *flaky;
  if(oc_json_add(tarr, NULL, o) || !cJSON_AddStringToObject(o, "name", t->name) ||
     !(runs = cJSON_AddArrayToObject(o, "runs")))
    return OC_ENOMEM;
  const cJSON *last = NULL;
  for(size_t r = 0; r < b->nruns; r++)
    if(t->present[r]) {
      if(oc_json_add(runs, NULL, cJSON_CreateNumber((double)(r + 1))))
        return OC_ENOMEM;
      last = t->ident[r];
    }
  cJSON *pin = cJSON_AddObjectToObject(o, "pin");
  for(size_t i = 0; pin && i < OC_ARRAY_LEN(pin_fields); i++) {
    const cJSON *v = oc_json_get(last, pin_fields[i]);
    if(v && !cJSON_IsNull(v) && add_copy(pin, pin_fields[i], v))
      return OC_ENOMEM;
  }
  if(!pin || !(drift = cJSON_AddArrayToObject(o, "pin_changes")))
    return OC_ENOMEM;
  for(size_t r = 0; r < b->nruns; r++) {
    if(!t->present[r])
      continue;
    long p = prev_present(t, r);
    if(p < 0 || pin_equal(t->ident[p], t->ident[r]))
      continue;
    cJSON *c = run_ref(b, r);
    if(oc_json_add(drift, NULL, c) || oc_json_add(c, "changes", pin_changes(t->ident[p], t->ident[r])))
      return OC_ENOMEM;
  }
  if(!(flaky = cJSON_CreateArray()))
    return OC_ENOMEM;
  if(add_flaky(b, ti, clo, chi, flaky)) {
    cJSON_Delete(flaky);
    return OC_ENOMEM;
  }
  if(!(rules = cJSON_AddArrayToObject(o, "rules")) || add_rules(b, ti, rlo, rhi, rules, flaky)) {
    cJSON_Delete(flaky);
    return OC_ENOMEM;
  }
  if(oc_json_add(o, "flaky", flaky))
    return OC_ENOMEM;
  return add_trends(b, ti, o);
}

cJSON *oc_history_build(const cJSON *const *docs, const char *const *files, size_t n, char *err,
                        size_t errlen)
{
  struct builder b;
  memset(&b, 0, sizeof(b));
  cJSON *out = NULL;
  b.runs = calloc(n + 1, sizeof(*b.runs));
  if(!b.runs)
    goto nomem;
  for(size_t i = 0; i < n; i++) {
    const char *s = oc_json_str(oc_json_obj(docs[i], "oacheck"), "started");
    b.runs[i] = (struct hrun){ docs[i], files[i], s ? s : "", i };
  }
  b.nruns = n;
  if(n)
    qsort(b.runs, n, sizeof(*b.runs), run_cmp);
  for(size_t r = 0; r < n; r++) {
    const cJSON *t;
    cJSON_ArrayForEach(t, oc_json_arr(b.runs[r].doc, "targets")) {
      const char *name = oc_json_str(t, "name");
      long ti = name ? target_index(&b, name) : 0;
      if(ti < 0)
        goto nomem;
      if(name) {
        b.targets[ti].present[r] = 1;
        b.targets[ti].ident[r] = oc_json_obj(t, "identity");
      }
    }
    const cJSON *res;
    cJSON_ArrayForEach(res, oc_json_arr(b.runs[r].doc, "results")) {
      const char *tn = oc_json_str(res, "target"), *su = oc_json_str(res, "suite");
      const char *ca = oc_json_str(res, "case");
      if(!tn || !su || !ca)
        continue;
      long ti = target_index(&b, tn);
      if(ti < 0)
        goto nomem;
      b.targets[ti].present[r] = 1;
      if(ents_add(&b.cases, (struct hent){ (size_t)ti, su, su, ca, r, oc_result_status(res) }))
        goto nomem;
      const cJSON *f;
      cJSON_ArrayForEach(f, oc_json_arr(res, "findings")) {
        const char *rule = oc_json_str(f, "rule");
        if(rule && oc_finding_counts(f) &&
           ents_add(&b.rules, (struct hent){ (size_t)ti, rule, su, ca, r, OC_ST_FAIL }))
          goto nomem;
      }
    }
  }
  if(b.cases.n)
    qsort(b.cases.v, b.cases.n, sizeof(*b.cases.v), ent_cmp);
  if(b.rules.n)
    qsort(b.rules.v, b.rules.n, sizeof(*b.rules.v), ent_cmp);

  out = cJSON_CreateObject();
  cJSON *head = out ? cJSON_AddObjectToObject(out, "history") : NULL, *runs, *tarr;
  if(!head || !cJSON_AddStringToObject(head, "version", PACKAGE_VERSION) ||
     !cJSON_AddNumberToObject(head, "runs", (double)n) ||
     !cJSON_AddNumberToObject(head, "flaky_flips", OC_HISTORY_FLAKY_FLIPS) ||
     !(runs = cJSON_AddArrayToObject(out, "runs")))
    goto nomem;
  for(size_t r = 0; r < n; r++) {
    struct oc_counts c;
    oc_results_count(b.runs[r].doc, NULL, NULL, &c);
    cJSON *o = run_ref(&b, r), *s, *names;
    if(oc_json_add(runs, NULL, o) || !cJSON_AddStringToObject(o, "file", b.runs[r].file) ||
       !(names = cJSON_AddArrayToObject(o, "targets")) || !(s = cJSON_AddObjectToObject(o, "summary")) ||
       !cJSON_AddNumberToObject(s, "total", (double)c.total) ||
       !cJSON_AddNumberToObject(s, "pass", (double)c.pass) ||
       !cJSON_AddNumberToObject(s, "fail", (double)c.fail) ||
       !cJSON_AddNumberToObject(s, "error", (double)c.error) ||
       !cJSON_AddNumberToObject(s, "skip", (double)c.skip))
      goto nomem; /* o went into runs, or was deleted */
    for(size_t t = 0; t < b.ntargets; t++)
      if(b.targets[t].present[r] && oc_json_add(names, NULL, cJSON_CreateString(b.targets[t].name)))
        goto nomem;
  }
  if(!(tarr = cJSON_AddArrayToObject(out, "targets")))
    goto nomem;
  size_t ci = 0, ri = 0;
  for(size_t t = 0; t < b.ntargets; t++) {
    size_t clo = ci, rlo = ri;
    while(ci < b.cases.n && b.cases.v[ci].t == t)
      ci++;
    while(ri < b.rules.n && b.rules.v[ri].t == t)
      ri++;
    if(build_target(&b, t, clo, ci, rlo, ri, tarr))
      goto nomem;
  }
  goto out;
nomem:
  snprintf(err, errlen, "cannot build the history: out of memory");
  cJSON_Delete(out);
  out = NULL;
out:
  for(size_t t = 0; t < b.ntargets; t++) {
    free(b.targets[t].ident);
    free(b.targets[t].present);
  }
  free(b.targets);
  free(b.runs);
  free(b.cases.v);
  free(b.rules.v);
  return out;
}

void oc_history_prune_result(cJSON *r)
{
  static const char *const keep[] = { "target", "suite", "case", "status", "findings", "timing" };
  static const char *const keep_f[] = { "rule", "severity", "allowed" };
  for(cJSON *m = r ? r->child : NULL, *next; m; m = next) {
    next = m->next;
    size_t i = 0;
    while(i < OC_ARRAY_LEN(keep) && !oc_streq(m->string, keep[i]))
      i++;
    if(i == OC_ARRAY_LEN(keep))
      cJSON_Delete(cJSON_DetachItemViaPointer(r, m));
  }
  cJSON *f;
  cJSON_ArrayForEach(f, oc_json_arr(r, "findings"))
    for(cJSON *m = f->child, *next; m; m = next) {
      next = m->next;
      size_t i = 0;
      while(i < OC_ARRAY_LEN(keep_f) && !oc_streq(m->string, keep_f[i]))
        i++;
      if(i == OC_ARRAY_LEN(keep_f))
        cJSON_Delete(cJSON_DetachItemViaPointer(f, m));
    }
}

/* ---- text ------------------------------------------------------------------- */

static int esc(struct oc_buf *b, const char *s)
{
  return oc_esc_addn_cut(b, s ? s : "?", 300, OC_ESC_TEXT);
}

/* "chat_template_sha256 aaaa1111… -> bbbb2222…, build ..." */
static int changes_text(struct oc_buf *b, const cJSON *changes)
{
  int rc = OC_OK, first = 1;
  const cJSON *c;
  cJSON_ArrayForEach(c, changes) {
    char *o = oc_json_brief(oc_json_get(c, "old"), 24), *n = oc_json_brief(oc_json_get(c, "new"), 24);
    if(!rc)
      rc = oc_buf_printf(b, "%s%s ", first ? "" : ", ", oc_json_str(c, "field") ?: "?");
    if(!rc)
      rc = esc(b, o ? o : "null");
    if(!rc)
      rc = oc_buf_adds(b, " -> ");
    if(!rc)
      rc = esc(b, n ? n : "null");
    free(o);
    free(n);
    first = 0;
  }
  return rc;
}

static int fields_text(struct oc_buf *b, const cJSON *changes)
{
  int rc = OC_OK, first = 1;
  const cJSON *c;
  cJSON_ArrayForEach(c, changes) {
    rc = rc ? rc : oc_buf_printf(b, "%s%s", first ? "" : ", ", oc_json_str(c, "field") ?: "?");
    first = 0;
  }
  return rc;
}

static int run_text(struct oc_buf *b, const cJSON *ref)
{
  int rc = oc_buf_printf(b, "run %.0f (", oc_json_num(ref, "run", 0));
  if(!rc)
    rc = esc(b, oc_json_str(ref, "started"));
  return rc ? rc : oc_buf_addc(b, ')');
}

int oc_history_text(const cJSON *h, struct oc_buf *b)
{
  const cJSON *runs = oc_json_arr(h, "runs");
  int nr = cJSON_GetArraySize(runs);
  int rc = oc_buf_printf(b, "history of %d run%s", nr, nr == 1 ? "" : "s");
  if(!rc && nr) {
    rc = oc_buf_adds(b, ", ");
    if(!rc)
      rc = esc(b, oc_json_str(cJSON_GetArrayItem(runs, 0), "started"));
    if(!rc)
      rc = oc_buf_adds(b, " to ");
    if(!rc)
      rc = esc(b, oc_json_str(cJSON_GetArrayItem(runs, nr - 1), "started"));
  }
  if(!rc)
    rc = oc_buf_addc(b, '\n');
  const cJSON *t;
  cJSON_ArrayForEach(t, oc_json_arr(h, "targets")) {
    if(!rc)
      rc = oc_buf_adds(b, "target ");
    if(!rc)
      rc = esc(b, oc_json_str(t, "name"));
    if(!rc)
      rc = oc_buf_printf(b, ": %d run%s\n", cJSON_GetArraySize(oc_json_arr(t, "runs")),
                         cJSON_GetArraySize(oc_json_arr(t, "runs")) == 1 ? "" : "s");
    const cJSON *d;
    cJSON_ArrayForEach(d, oc_json_arr(t, "pin_changes")) {
      if(!rc)
        rc = oc_buf_adds(b, "  pin changed at ");
      if(!rc)
        rc = run_text(b, d);
      if(!rc)
        rc = oc_buf_adds(b, ": ");
      if(!rc)
        rc = changes_text(b, oc_json_arr(d, "changes"));
      if(!rc)
        rc = oc_buf_addc(b, '\n');
    }
    const cJSON *r;
    cJSON_ArrayForEach(r, oc_json_arr(t, "rules")) {
      const cJSON *ep;
      cJSON_ArrayForEach(ep, oc_json_arr(r, "episodes")) {
        const cJSON *began = oc_json_obj(ep, "began"), *rec = oc_json_obj(ep, "recovered");
        const cJSON *pc = oc_json_arr(ep, "pin_change");
        if(!rc)
          rc = oc_buf_adds(b, "  ");
        if(!rc)
          rc = esc(b, oc_json_str(r, "rule"));
        if(!rc)
          rc = oc_buf_adds(b, " (");
        if(!rc)
          rc = esc(b, oc_json_str(began, "model"));
        if(!rc)
          rc = oc_buf_adds(b, cJSON_IsTrue(oc_json_get(ep, "since_first_run")) ? "): failing since "
                                                                               : "): began failing at ");
        if(!rc)
          rc = run_text(b, began);
        if(!rc && pc) {
          rc = oc_buf_adds(b, ", with the pin change (");
          if(!rc)
            rc = fields_text(b, pc);
          if(!rc)
            rc = oc_buf_addc(b, ')');
        }
        if(!rc)
          rc = rec ? oc_buf_adds(b, "; recovered at ") : oc_buf_adds(b, "; still failing");
        if(!rc && rec)
          rc = run_text(b, rec);
        if(!rc && cJSON_IsTrue(oc_json_get(r, "flaky")))
          rc = oc_buf_adds(b, " [flaky]");
        if(!rc)
          rc = oc_buf_adds(b, "; ");
        const cJSON *cs = oc_json_arr(ep, "cases"), *c;
        int nc = cJSON_GetArraySize(cs), i = 0;
        cJSON_ArrayForEach(c, cs) {
          if(!rc && i < 3)
            rc = i ? oc_buf_adds(b, ", ") : OC_OK;
          if(!rc && i < 3)
            rc = esc(b, c->valuestring);
          i++;
        }
        if(!rc && nc > 3)
          rc = oc_buf_printf(b, " and %d more", nc - 3);
        if(!rc)
          rc = oc_buf_addc(b, '\n');
      }
    }
    const cJSON *f;
    cJSON_ArrayForEach(f, oc_json_arr(t, "flaky")) {
      if(!rc)
        rc = oc_buf_adds(b, "  flaky: ");
      if(!rc)
        rc = esc(b, oc_json_str(f, "suite"));
      if(!rc)
        rc = oc_buf_addc(b, '/');
      if(!rc)
        rc = esc(b, oc_json_str(f, "case"));
      if(!rc)
        rc = oc_buf_printf(b, ": %.0f flips with no pin change (%.0f pass, %.0f fail or error): ",
                           oc_json_num(f, "flips", 0), oc_json_num(f, "pass", 0), oc_json_num(f, "fail", 0));
      if(!rc)
        rc = esc(b, oc_json_str(f, "verdicts"));
      if(!rc)
        rc = oc_buf_addc(b, '\n');
    }
  }
  return rc;
}

/* ---- HTML -------------------------------------------------------------------- */

/* Text from a results file shown on the page: at most this many bytes */
#define OC_HISTORY_TEXT_MAX 2000

/* The shared time axis: every chart of the page maps run r (1-based) to
 * the same x, so a failing bar, a pin change and a latency step line up. */
#define W 960.0   /* width of every chart */
#define LBL 230.0 /* the label column */
#define PAD 12.0

struct axis {
  int nruns;
  double step;
};

static double ax_x(const struct axis *a, double run)
{
  return LBL + (run - 0.5) * a->step;
}

static void drift_lines(struct oc_html *o, const struct axis *a, const cJSON *t, double y0, double y1,
                        int labels)
{
  const cJSON *d;
  cJSON_ArrayForEach(d, oc_json_arr(t, "pin_changes")) {
    double x = ax_x(a, oc_json_num(d, "run", 1)) - a->step / 2;
    oc_html_putf(o, "<g class=\"drift\"><title>pin changed at run %.0f (", oc_json_num(d, "run", 0));
    oc_html_txtcut(o, oc_json_str(d, "started"), OC_HISTORY_TEXT_MAX);
    oc_html_put(o, "): ");
    struct oc_buf t2;
    oc_buf_init(&t2, OC_CAP_MESSAGE * 4);
    if(!changes_text(&t2, oc_json_arr(d, "changes")))
      oc_html_txtcut(o, oc_buf_str(&t2), OC_HISTORY_TEXT_MAX);
    oc_buf_free(&t2);
    oc_html_putf(o, "</title><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, y0, x, y1);
    if(labels) {
      oc_html_putf(o, "<text x=\"%.1f\" y=\"%.1f\">pin: ", x + 3, y0 + 10);
      struct oc_buf t3;
      oc_buf_init(&t3, OC_CAP_MESSAGE);
      if(!fields_text(&t3, oc_json_arr(d, "changes")))
        oc_html_txtcut(o, oc_buf_str(&t3), OC_HISTORY_TEXT_MAX);
      oc_buf_free(&t3);
      oc_html_put(o, "</text>");
    }
    oc_html_put(o, "</g>\n");
  }
}

static void run_labels(struct oc_html *o, const struct axis *a, const cJSON *runs, double y)
{
  int every = a->nruns > 20 ? (a->nruns + 14) / 15 : 1, i = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, runs) {
    i++;
    if((i - 1) % every)
      continue;
    const char *s = oc_json_str(r, "started");
    /* "2026-10-17T02:00:00Z" -> "10-17" */
    char day[8] = "";
    if(s && strlen(s) >= 10)
      snprintf(day, sizeof(day), "%.5s", s + 5);
    oc_html_putf(o, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", ax_x(a, i), y);
    oc_html_txtcut(o, day, OC_HISTORY_TEXT_MAX);
    oc_html_put(o, "</text>\n");
  }
}

static void timeline(struct oc_html *o, const struct axis *a, const cJSON *h, const cJSON *t)
{
  /* rows: rule episodes, then flaky cases */
  int rows = 0;
  const cJSON *r, *f;
  cJSON_ArrayForEach(r, oc_json_arr(t, "rules"))
    rows++;
  cJSON_ArrayForEach(f, oc_json_arr(t, "flaky"))
    rows++;
  double top = 26, rowh = 20, height = top + rowh * (rows ? rows : 1) + 22;
  oc_html_putf(o, "<svg class=\"chart timeline\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
          "role=\"img\" aria-label=\"failing rules and flaky cases over the runs\">\n",
       W, height, W, height);
  oc_html_putf(o, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", LBL, top,
       W - LBL - PAD, rowh * (rows ? rows : 1));
  int row = 0;
  cJSON_ArrayForEach(r, oc_json_arr(t, "rules")) {
    double y = top + row * rowh;
    oc_html_putf(o, "<text class=\"row\" x=\"%.1f\" y=\"%.1f\">", LBL - 6, y + 14);
    oc_html_txtcut(o, oc_json_str(r, "rule"), OC_HISTORY_TEXT_MAX);
    oc_html_put(o, "</text>\n");
    const cJSON *ep;
    cJSON_ArrayForEach(ep, oc_json_arr(r, "episodes")) {
      double b0 = oc_json_num(oc_json_obj(ep, "began"), "run", 1);
      const cJSON *rec = oc_json_obj(ep, "recovered");
      double b1 = rec ? oc_json_num(rec, "run", b0 + 1) : a->nruns + 1;
      int lined = oc_json_arr(ep, "pin_change") != NULL;
      oc_html_putf(o, "<rect class=\"episode%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">"
              "<title>",
           lined ? " lined-up" : "", ax_x(a, b0) - a->step / 2, y + 3, (b1 - b0) * a->step, rowh - 6);
      oc_html_txtcut(o, oc_json_str(r, "rule"), OC_HISTORY_TEXT_MAX);
      oc_html_putf(o, " failing from run %.0f", b0);
      if(rec)
        oc_html_putf(o, ", recovered at run %.0f", b1);
      if(lined)
        oc_html_put(o, "; began with a pin change");
      oc_html_put(o, "</title></rect>\n");
    }
    row++;
  }
  cJSON_ArrayForEach(f, oc_json_arr(t, "flaky")) {
    double y = top + row * rowh;
    oc_html_putf(o, "<text class=\"row\" x=\"%.1f\" y=\"%.1f\">flaky ", LBL - 6, y + 14);
    oc_html_txtcut(o, oc_json_str(f, "suite"), OC_HISTORY_TEXT_MAX);
    oc_html_put(o, "/");
    oc_html_txtcut(o, oc_json_str(f, "case"), OC_HISTORY_TEXT_MAX);
    oc_html_put(o, "</text>\n");
    const char *v = oc_json_str(f, "verdicts");
    for(int i = 0; v && v[i] && i < a->nruns; i++) {
      if(v[i] == '-')
        continue;
      const char *cls = v[i] == 'P' ? "pass" : v[i] == 'S' ? "skip" : "fail";
      oc_html_putf(o, "<circle class=\"dot %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"><title>run %d: %s</title></circle>\n",
           cls, ax_x(a, i + 1), y + rowh / 2, fmin(6, a->step / 2.5), i + 1, cls);
    }
    row++;
  }
  if(!rows)
    oc_html_putf(o, "<text class=\"row none\" x=\"%.1f\" y=\"%.1f\">no rule failed, no case flipped</text>\n",
         LBL + 8, top + 14);
  drift_lines(o, a, t, top - 16, top + rowh * (rows ? rows : 1), 1);
  run_labels(o, a, oc_json_arr(h, "runs"), height - 6);
  oc_html_put(o, "</svg>\n");
}

static void trend_chart(struct oc_html *o, const struct axis *a, const cJSON *h, const cJSON *t,
                        const char *metric, const char *label)
{
  double lo = INFINITY, hi = -INFINITY;
  const cJSON *s, *p;
  cJSON_ArrayForEach(s, oc_json_arr(t, "trends"))
    cJSON_ArrayForEach(p, oc_json_arr(s, "points")) {
      const cJSON *v = oc_json_get(p, metric);
      if(cJSON_IsNumber(v) && isfinite(v->valuedouble)) {
        lo = fmin(lo, v->valuedouble);
        hi = fmax(hi, v->valuedouble);
      }
    }
  if(!(lo <= hi))
    return; /* nothing recorded for this metric */
  if(hi < 1e-9)
    hi = 1;
  /* latency and throughput are ratios: from zero, a step looks its size */
  lo = 0;
  hi += hi * 0.08;
  double top = 8, ph = 110, height = top + ph + 22;
  oc_html_putf(o, "<svg class=\"chart trend\" data-metric=\"%s\" width=\"%.0f\" height=\"%.0f\" "
          "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"%s per run\">\n",
       metric, W, height, W, height, label);
  oc_html_putf(o, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", LBL, top,
       W - LBL - PAD, ph);
  oc_html_putf(o, "<text class=\"metric\" x=\"8\" y=\"%.1f\">%s</text>\n", top + 14, label);
  oc_html_putf(o, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.1f</text>\n", LBL - 4,
       top + 10, hi);
  oc_html_putf(o, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.1f</text>\n", LBL - 4,
       top + ph, lo);
  int si = 0;
  cJSON_ArrayForEach(s, oc_json_arr(t, "trends")) {
    oc_html_putf(o, "<text class=\"legend s%d\" x=\"8\" y=\"%.1f\">", si % 6, top + 34 + si * 16);
    oc_html_txtcut(o, oc_json_str(s, "model"), OC_HISTORY_TEXT_MAX);
    oc_html_put(o, "</text>\n");
    oc_html_put(o, "<polyline class=\"line");
    oc_html_putf(o, " s%d\" points=\"", si % 6);
    int any = 0;
    cJSON_ArrayForEach(p, oc_json_arr(s, "points")) {
      const cJSON *v = oc_json_get(p, metric);
      if(!cJSON_IsNumber(v))
        continue;
      oc_html_putf(o, "%s%.1f,%.1f", any ? " " : "", ax_x(a, oc_json_num(p, "run", 1)),
           top + ph - (v->valuedouble - lo) / (hi - lo) * ph);
      any = 1;
    }
    oc_html_put(o, "\"/>\n");
    cJSON_ArrayForEach(p, oc_json_arr(s, "points")) {
      const cJSON *v = oc_json_get(p, metric);
      if(!cJSON_IsNumber(v))
        continue;
      oc_html_putf(o, "<circle class=\"pt s%d\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"><title>run %.0f (", si % 6,
           ax_x(a, oc_json_num(p, "run", 1)), top + ph - (v->valuedouble - lo) / (hi - lo) * ph,
           oc_json_num(p, "run", 0));
      oc_html_txtcut(o, oc_json_str(p, "started"), OC_HISTORY_TEXT_MAX);
      oc_html_putf(o, "): %s %.3f, median of %.0f cases</title></circle>\n", label, v->valuedouble,
           oc_json_num(p, "cases", 0));
    }
    si++;
  }
  drift_lines(o, a, t, top, top + ph, 0);
  run_labels(o, a, oc_json_arr(h, "runs"), height - 6);
  oc_html_put(o, "</svg>\n");
}

static void run_link(struct oc_html *o, const cJSON *ref)
{
  oc_html_putf(o, "run %.0f <span class=\"muted\">", oc_json_num(ref, "run", 0));
  oc_html_txtcut(o, oc_json_str(ref, "started"), OC_HISTORY_TEXT_MAX);
  oc_html_put(o, "</span>");
}

static void target_section(struct oc_html *o, const struct axis *a, const cJSON *h, const cJSON *t, int ti)
{
  oc_html_putf(o, "<section class=\"target\" id=\"t-%d\">\n<h2>target ", ti);
  oc_html_txtcut(o, oc_json_str(t, "name"), OC_HISTORY_TEXT_MAX);
  int nruns = cJSON_GetArraySize(oc_json_arr(t, "runs"));
  oc_html_putf(o, " <span class=\"muted\">%d run%s</span></h2>\n", nruns, nruns == 1 ? "" : "s");
  const cJSON *pin = oc_json_obj(t, "pin"), *v;
  oc_html_put(o, "<p class=\"pin\">pin now:");
  cJSON_ArrayForEach(v, pin) {
    char *brief = oc_json_brief(v, 80);
    oc_html_put(o, " <span><b>");
    oc_html_txtcut(o, v->string, OC_HISTORY_TEXT_MAX);
    oc_html_put(o, "</b> ");
    oc_html_txtcut(o, brief, OC_HISTORY_TEXT_MAX);
    oc_html_put(o, "</span>");
    free(brief);
  }
  oc_html_put(o, "</p>\n<h3>Timeline</h3>\n");
  timeline(o, a, h, t);
  if(cJSON_GetArraySize(oc_json_arr(t, "trends"))) {
    oc_html_put(o, "<h3>Latency and throughput per run (median over the cases)</h3>\n");
    trend_chart(o, a, h, t, "ttft_ms", "TTFT ms");
    trend_chart(o, a, h, t, "itl_ms", "ITL p50 ms");
    trend_chart(o, a, h, t, "tokens_per_s", "tokens/s");
  }
  const cJSON *r, *ep, *d, *f;
  if(cJSON_GetArraySize(oc_json_arr(t, "pin_changes"))) {
    oc_html_put(o, "<h3>Pin changes</h3>\n<table class=\"drift\"><thead><tr><th>run</th><th>field</th><th>before</th>"
           "<th>after</th></tr></thead><tbody>\n");
    cJSON_ArrayForEach(d, oc_json_arr(t, "pin_changes")) {
      const cJSON *c;
      cJSON_ArrayForEach(c, oc_json_arr(d, "changes")) {
        char *ov = oc_json_brief(oc_json_get(c, "old"), 100), *nv = oc_json_brief(oc_json_get(c, "new"), 100);
        oc_html_put(o, "<tr><td>");
        run_link(o, d);
        oc_html_put(o, "</td><td><code>");
        oc_html_txtcut(o, oc_json_str(c, "field"), OC_HISTORY_TEXT_MAX);
        oc_html_put(o, "</code></td><td><code>");
        oc_html_txtcut(o, ov, OC_HISTORY_TEXT_MAX);
        oc_html_put(o, "</code></td><td><code>");
        oc_html_txtcut(o, nv, OC_HISTORY_TEXT_MAX);
        oc_html_put(o, "</code></td></tr>\n");
        free(ov);
        free(nv);
      }
    }
    oc_html_put(o, "</tbody></table>\n");
  }
  if(cJSON_GetArraySize(oc_json_arr(t, "rules"))) {
    oc_html_put(o, "<h3>Failing rules</h3>\n<table class=\"rules\"><thead><tr><th>rule</th><th>model</th>"
           "<th>began failing</th><th>recovered</th><th>failing runs</th><th>pin change at onset</th>"
           "<th>cases</th></tr></thead><tbody>\n");
    cJSON_ArrayForEach(r, oc_json_arr(t, "rules"))
      cJSON_ArrayForEach(ep, oc_json_arr(r, "episodes")) {
        const cJSON *pc = oc_json_arr(ep, "pin_change"), *rec = oc_json_obj(ep, "recovered");
        oc_html_putf(o, "<tr class=\"%s\"><td><code>", pc ? "lined-up" : "");
        oc_html_txtcut(o, oc_json_str(r, "rule"), OC_HISTORY_TEXT_MAX);
        oc_html_put(o, "</code>");
        if(cJSON_IsTrue(oc_json_get(r, "flaky")))
          oc_html_put(o, " <span class=\"tag\">flaky</span>");
        oc_html_put(o, "</td><td>");
        oc_html_txtcut(o, oc_json_str(oc_json_obj(ep, "began"), "model"), OC_HISTORY_TEXT_MAX);
        oc_html_put(o, "</td><td>");
        if(cJSON_IsTrue(oc_json_get(ep, "since_first_run")))
          oc_html_put(o, "since the first run: ");
        run_link(o, oc_json_obj(ep, "began"));
        oc_html_put(o, "</td><td>");
        if(rec)
          run_link(o, rec);
        else
          oc_html_put(o, "<b>still failing</b>");
        oc_html_putf(o, "</td><td class=\"num\">%.0f</td><td>", oc_json_num(ep, "runs", 0));
        if(pc) {
          struct oc_buf t2;
          oc_buf_init(&t2, OC_CAP_MESSAGE * 4);
          if(!changes_text(&t2, pc))
            oc_html_txtcut(o, oc_buf_str(&t2), OC_HISTORY_TEXT_MAX);
          oc_buf_free(&t2);
        }
        else
          oc_html_put(o, "—");
        oc_html_put(o, "</td><td>");
        const cJSON *c;
        int i = 0;
        cJSON_ArrayForEach(c, oc_json_arr(ep, "cases")) {
          oc_html_put(o, i++ ? ", " : "");
          oc_html_put(o, "<code>");
          oc_html_txtcut(o, c->valuestring, OC_HISTORY_TEXT_MAX);
          oc_html_put(o, "</code>");
        }
        oc_html_put(o, "</td></tr>\n");
      }
    oc_html_put(o, "</tbody></table>\n");
  }
  if(cJSON_GetArraySize(oc_json_arr(t, "flaky"))) {
    oc_html_put(o, "<h3>Flaky cases</h3>\n<p class=\"muted\">Verdict flips between runs with the same pin.</p>\n"
           "<table class=\"flaky\"><thead><tr><th>case</th><th>flips</th><th>pass</th><th>fail</th>"
           "<th>verdicts by run (P pass, F fail, E error, S skip, - absent)</th></tr></thead><tbody>\n");
    cJSON_ArrayForEach(f, oc_json_arr(t, "flaky")) {
      oc_html_put(o, "<tr><td><code>");
      oc_html_txtcut(o, oc_json_str(f, "suite"), OC_HISTORY_TEXT_MAX);
      oc_html_put(o, "/");
      oc_html_txtcut(o, oc_json_str(f, "case"), OC_HISTORY_TEXT_MAX);
      oc_html_putf(o, "</code></td><td class=\"num\">%.0f</td><td class=\"num\">%.0f</td><td class=\"num\">%.0f</td>"
              "<td><code>",
           oc_json_num(f, "flips", 0), oc_json_num(f, "pass", 0), oc_json_num(f, "fail", 0));
      oc_html_txtcut(o, oc_json_str(f, "verdicts"), OC_HISTORY_TEXT_MAX);
      oc_html_put(o, "</code></td></tr>\n");
    }
    oc_html_put(o, "</tbody></table>\n");
  }
  oc_html_put(o, "</section>\n");
}

int oc_history_html(const cJSON *h, const char *assets_dir, struct oc_buf *b, char *err, size_t errlen)
{
  char *tmpl = NULL, *css = NULL;
  struct oc_html o = { b, OC_OK };
  int rc;
  if((rc = oc_html_read_asset(assets_dir, "history.html.in", "history", &tmpl, err, errlen)) ||
     (rc = oc_html_read_asset(assets_dir, "history.css", "history", &css, err, errlen)))
    goto out;
  char css_hash[64];
  if((rc = oc_html_csp_hash(css, css_hash))) {
    snprintf(err, errlen, "cannot hash the history stylesheet");
    goto out;
  }
  const cJSON *runs = oc_json_arr(h, "runs");
  struct axis a = { cJSON_GetArraySize(runs), 0 };
  a.step = (W - LBL - PAD) / (a.nruns ? a.nruns : 1);
  for(const char *p = tmpl; *p && !o.rc;) {
    const char *at = strchr(p, '@');
    if(!at) {
      oc_html_put(&o, p);
      break;
    }
    if(at > p)
      o.rc = oc_buf_add(b, p, (size_t)(at - p));
    size_t len = strspn(at + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    if(!len || at[1 + len] != '@' || len >= 16) {
      oc_html_put(&o, "@");
      p = at + 1;
      continue;
    }
    char name[16];
    memcpy(name, at + 1, len);
    name[len] = '\0';
    if(strcmp(name, "CSP") == 0)
      oc_html_putf(&o, "default-src 'none'; style-src '%s'; script-src 'none'; img-src 'none'; "
               "base-uri 'none'; form-action 'none'", css_hash);
    else if(strcmp(name, "VERSION") == 0)
      oc_html_put(&o, PACKAGE_VERSION);
    else if(strcmp(name, "STYLE") == 0)
      oc_html_put(&o, css);
    else if(strcmp(name, "TITLE") == 0)
      oc_html_putf(&o, "oacheck history: %d run%s", a.nruns, a.nruns == 1 ? "" : "s");
    else if(strcmp(name, "HEADER") == 0) {
      oc_html_putf(&o, "<h1>oacheck history</h1>\n<div class=\"meta\"><span>%d run%s</span>", a.nruns,
                   a.nruns == 1 ? "" : "s");
      if(a.nruns) {
        oc_html_put(&o, "<span>");
        oc_html_txtcut(&o, oc_json_str(cJSON_GetArrayItem(runs, 0), "started"), OC_HISTORY_TEXT_MAX);
        oc_html_put(&o, " to ");
        oc_html_txtcut(&o, oc_json_str(cJSON_GetArrayItem(runs, a.nruns - 1), "started"), OC_HISTORY_TEXT_MAX);
        oc_html_put(&o, "</span>");
      }
      int ntargets = cJSON_GetArraySize(oc_json_arr(h, "targets"));
      oc_html_putf(&o, "<span>%d target%s</span></div>\n", ntargets, ntargets == 1 ? "" : "s");
    }
    else if(strcmp(name, "TARGETS") == 0) {
      int ti = 0;
      const cJSON *t;
      cJSON_ArrayForEach(t, oc_json_arr(h, "targets"))
        target_section(&o, &a, h, t, ti++);
      if(!ti)
        oc_html_put(&o, "<p class=\"muted\">No results.</p>\n");
    }
    else if(strcmp(name, "RUNS") == 0) {
      oc_html_put(&o, "<table class=\"runs\"><thead><tr><th>run</th><th>started</th><th>file</th><th>cases</th>"
              "<th>pass</th><th>fail</th><th>error</th><th>skip</th></tr></thead><tbody>\n");
      const cJSON *r;
      cJSON_ArrayForEach(r, runs) {
        const cJSON *s = oc_json_obj(r, "summary");
        oc_html_putf(&o, "<tr><td class=\"num\">%.0f</td><td>", oc_json_num(r, "run", 0));
        oc_html_txtcut(&o, oc_json_str(r, "started"), OC_HISTORY_TEXT_MAX);
        oc_html_put(&o, "</td><td><code>");
        oc_html_txtcut(&o, oc_json_str(r, "file"), OC_HISTORY_TEXT_MAX);
        oc_html_putf(&o, "</code></td><td class=\"num\">%.0f</td><td class=\"num\">%.0f</td><td class=\"num\">%.0f</td>"
                 "<td class=\"num\">%.0f</td><td class=\"num\">%.0f</td></tr>\n",
             oc_json_num(s, "total", 0), oc_json_num(s, "pass", 0), oc_json_num(s, "fail", 0),
             oc_json_num(s, "error", 0), oc_json_num(s, "skip", 0));
      }
      oc_html_put(&o, "</tbody></table>\n");
    }
    else {
      oc_html_put(&o, "@");
      p = at + 1;
      continue;
    }
    p = at + 2 + len;
  }
  rc = o.rc;
  if(rc)
    snprintf(err, errlen, "cannot render the history page: %s",
             rc == OC_ETOOBIG ? "larger than the report cap" : "out of memory");
out:
  if(rc)
    oc_buf_free(b);
  free(tmpl);
  free(css);
  return rc;
}
