/* report_merge.c — merging results documents and diffing two runs.  The
 * documents come from results_json.c (already checked) or the runner; this
 * file only combines and compares, and never trusts a member's type. */
#include "config.h"
#include "report_merge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"
#include "results_json.h"
#include "shard.h"

/* ---- merge ------------------------------------------------------------ */

/* A list of distinct strings in order of first appearance (borrowed). */
struct names {
  const char **v;
  size_t n, alloc;
};

static long names_find(const struct names *s, const char *name)
{
  for(size_t i = 0; i < s->n; i++)
    if(strcmp(s->v[i], name) == 0)
      return (long)i;
  return -1;
}

static int names_add(struct names *s, const char *name)
{
  if(!name || names_find(s, name) >= 0)
    return OC_OK;
  const char **p = oc_array_grow(s->v, &s->alloc, s->n + 1, sizeof(*p));
  if(!p)
    return OC_ENOMEM;
  s->v = p;
  s->v[s->n++] = name;
  return OC_OK;
}

struct entry {
  const cJSON *r; /* diff's; merge keys items */
  const char *target, *suite, *name;
  long target_pos, suite_pos;
  double index; /* +inf when absent */
  size_t seq;   /* input order, for stability and "later wins" */
};

static int entry_key_cmp(const struct entry *a, const struct entry *b)
{
  int c = strcmp(a->target, b->target);
  if(!c)
    c = strcmp(a->suite, b->suite);
  if(!c)
    c = strcmp(a->name, b->name);
  return c;
}

static int entry_by_key(const void *x, const void *y)
{
  const struct entry *a = x, *b = y;
  int c = entry_key_cmp(a, b);
  if(c)
    return c;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int entry_by_order(const void *x, const void *y)
{
  const struct entry *a = x, *b = y;
  if(a->target_pos != b->target_pos)
    return a->target_pos < b->target_pos ? -1 : 1;
  if(a->suite_pos != b->suite_pos)
    return a->suite_pos < b->suite_pos ? -1 : 1;
  if(a->index != b->index)
    return a->index < b->index ? -1 : 1;
  int c = strcmp(a->name, b->name);
  if(c)
    return c;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The member key of every document, when all have it and agree; else NULL. */
static const cJSON *agreed(const cJSON *const *docs, size_t n, const char *key)
{
  const cJSON *first = oc_json_get(oc_json_obj(docs[0], "oacheck"), key);
  if(!first)
    return NULL;
  for(size_t i = 1; i < n; i++)
    if(!oc_json_equal(first, oc_json_get(oc_json_obj(docs[i], "oacheck"), key)))
      return NULL;
  return first;
}

static int add_copy(cJSON *obj, const char *key, const cJSON *item)
{
  if(!item)
    return OC_OK;
  return oc_json_add(obj, key, cJSON_Duplicate(item, 1));
}

static cJSON *merge_header(const cJSON *const *docs, size_t n, const struct names *suites)
{
  cJSON *o = cJSON_CreateObject();
  const char *started = NULL, *finished = NULL, *mode = NULL;
  int mixed = 0;
  double merged = 0;
  for(size_t i = 0; i < n; i++) {
    const cJSON *h = oc_json_obj(docs[i], "oacheck");
    const char *s = oc_json_str(h, "started"), *f = oc_json_str(h, "finished");
    const char *m = oc_json_str(h, "mode");
    /* RFC 3339 UTC times of one form compare as strings */
    if(s && (!started || strcmp(s, started) < 0))
      started = s;
    if(f && (!finished || strcmp(f, finished) > 0))
      finished = f;
    if(m) {
      if(mode && strcmp(mode, m) != 0)
        mixed = 1;
      if(!mode)
        mode = m;
    }
    const cJSON *mf = oc_json_get(h, "merged_from");
    merged += oc_json_is_integer(mf) && mf->valuedouble >= 1 ? mf->valuedouble : 1;
  }
  if(!o)
    return NULL;
  const char *version = oc_json_str(oc_json_obj(docs[0], "oacheck"), "version");
  if(!cJSON_AddStringToObject(o, "version", version ? version : PACKAGE_VERSION) ||
     !cJSON_AddStringToObject(o, "started", started ? started : "") ||
     (finished && !cJSON_AddStringToObject(o, "finished", finished)) ||
     !cJSON_AddStringToObject(o, "mode", mixed ? "mixed" : mode ? mode : "replay") ||
     add_copy(o, "note", agreed(docs, n, "note")) ||
     /* runs under different verdict policies have none in common */
     add_copy(o, "policy", agreed(docs, n, "policy")))
    goto fail;
  const cJSON *cmd = agreed(docs, n, "command");
  if(cJSON_IsString(cmd)) {
    /* an input may come from anywhere: its command line keeps no credential */
    char *clean = oc_results_scrub_command(cmd->valuestring);
    if(!clean || !cJSON_AddStringToObject(o, "command", clean)) {
      free(clean);
      goto fail;
    }
    free(clean);
  }
  cJSON *sl = cJSON_AddArrayToObject(o, "suites");
  if(!sl)
    goto fail;
  for(size_t i = 0; i < suites->n; i++)
    if(oc_json_add(sl, NULL, cJSON_CreateString(suites->v[i])))
      goto fail;
  if(add_copy(o, "shard", agreed(docs, n, "shard")) ||
     !cJSON_AddNumberToObject(o, "merged_from", merged))
    goto fail;
  /* which shards of each target the merge holds (shard.c) */
  int nomem = 0;
  cJSON *shards = oc_shards_merge(docs, n, &nomem);
  if(nomem) {
    cJSON_Delete(shards);
    goto fail;
  }
  if(shards && oc_json_add(o, "shards", shards))
    goto fail;
  return o;
fail:
  cJSON_Delete(o);
  return NULL;
}

cJSON *oc_results_merge_frame(const cJSON *const *docs, size_t n, const struct oc_merge_item *items,
                              size_t nitems, size_t **order, size_t *nkept, char *err,
                              size_t errlen)
{
  struct names targets = { 0 }, suites = { 0 };
  struct entry *e = NULL;
  size_t kept = 0;
  cJSON *out = NULL, *tarr = NULL;
  *order = NULL;
  *nkept = 0;
  if(!n) {
    snprintf(err, errlen, "nothing to merge");
    return NULL;
  }
  /* order of targets and suites: first appearance, declared lists first */
  for(size_t i = 0; i < n; i++) {
    const cJSON *t;
    cJSON_ArrayForEach(t, oc_json_arr(docs[i], "targets"))
      if(names_add(&targets, oc_json_str(t, "name")))
        goto nomem;
    const cJSON *s;
    cJSON_ArrayForEach(s, oc_json_arr(oc_json_obj(docs[i], "oacheck"), "suites"))
      if(cJSON_IsString(s) && names_add(&suites, s->valuestring))
        goto nomem;
  }
  size_t declared_targets = targets.n;
  e = calloc(nitems ? nitems : 1, sizeof(*e));
  if(!e)
    goto nomem;
  for(size_t i = 0; i < nitems; i++) {
    const struct oc_merge_item *it = &items[i];
    if(names_add(&targets, it->target) || names_add(&suites, it->suite))
      goto nomem;
    e[i] = (struct entry){ NULL, it->target, it->suite, it->name, names_find(&targets, it->target),
                           names_find(&suites, it->suite), isnan(it->index) ? INFINITY : it->index, i };
  }
  /* later inputs win: sort by key then sequence, keep the last of each run */
  if(nitems)
    qsort(e, nitems, sizeof(*e), entry_by_key);
  for(size_t i = 0; i < nitems; i++) {
    if(i + 1 < nitems && entry_key_cmp(&e[i], &e[i + 1]) == 0)
      continue;
    e[kept++] = e[i];
  }
  /* duplicates (nitems - kept) are the caller's to say, in its own
   * prefix: report merge says all it has to say the one way */
  if(kept)
    qsort(e, kept, sizeof(*e), entry_by_order);

  out = cJSON_CreateObject();
  if(oc_json_add(out, "oacheck", merge_header(docs, n, &suites)))
    goto nomem;
  tarr = cJSON_AddArrayToObject(out, "targets");
  if(!tarr)
    goto nomem;
  for(size_t k = 0; k < declared_targets; k++) {
    const cJSON *found = NULL;
    for(size_t i = 0; i < n && !found; i++)
      found = oc_results_target(docs[i], targets.v[k]);
    if(oc_json_add(tarr, NULL, cJSON_Duplicate(found, 1)))
      goto nomem;
  }
  double dur = 0;
  int have_dur = 0;
  for(size_t i = 0; i < n; i++) {
    const cJSON *d = oc_json_get(oc_json_obj(docs[i], "summary"), "duration_ms");
    if(cJSON_IsNumber(d) && isfinite(d->valuedouble) && d->valuedouble >= 0) {
      dur += d->valuedouble;
      have_dur = 1;
    }
  }
  cJSON *summary = cJSON_AddObjectToObject(out, "summary");
  if(!summary || (have_dur && !cJSON_AddNumberToObject(summary, "duration_ms", dur)) ||
     !cJSON_AddArrayToObject(out, "results"))
    goto nomem;
  /* one interrupted shard makes the merged run incomplete too */
  for(size_t i = 0; i < n; i++)
    if(oc_json_bool(docs[i], "incomplete", 0)) {
      const char *why = oc_json_str(docs[i], "incomplete_reason");
      if(!cJSON_AddBoolToObject(out, "incomplete", 1) ||
         !cJSON_AddStringToObject(out, "incomplete_reason", why ? why : "an input run was stopped early"))
        goto nomem;
      break;
    }
  size_t *ord = malloc((kept ? kept : 1) * sizeof(*ord));
  if(!ord)
    goto nomem;
  for(size_t i = 0; i < kept; i++)
    ord[i] = e[i].seq;
  *order = ord;
  *nkept = kept;
  goto out;
nomem:
  snprintf(err, errlen, "cannot merge results: out of memory");
  cJSON_Delete(out);
  out = NULL;
out:
  free(targets.v);
  free(suites.v);
  free(e);
  return out;
}

cJSON *oc_results_merge(const cJSON *const *docs, size_t n, char *err, size_t errlen)
{
  struct oc_merge_item *items = NULL;
  const cJSON **from = NULL; /* the result of each item */
  size_t nitems = 0, alloc = 0, falloc = 0, *order = NULL, kept = 0;
  cJSON *out = NULL;
  for(size_t i = 0; i < n; i++) {
    const cJSON *r;
    cJSON_ArrayForEach(r, oc_json_arr(docs[i], "results")) {
      const char *t = oc_json_str(r, "target"), *s = oc_json_str(r, "suite");
      const char *c = oc_json_str(r, "case");
      if(!t || !s || !c)
        continue; /* not a result anyone can key */
      struct oc_merge_item *p = oc_array_grow(items, &alloc, nitems + 1, sizeof(*p));
      if(p)
        items = p;
      const cJSON **q = p ? oc_array_grow(from, &falloc, nitems + 1, sizeof(*q)) : NULL;
      if(!q)
        goto nomem;
      from = q;
      const cJSON *idx = oc_json_get(r, "index");
      items[nitems] = (struct oc_merge_item){ t, s, c, oc_json_is_integer(idx) ? idx->valuedouble : NAN };
      from[nitems++] = r;
    }
  }
  out = oc_results_merge_frame(docs, n, items, nitems, &order, &kept, err, errlen);
  if(!out)
    goto done;
  cJSON *rarr = oc_json_arr(out, "results");
  for(size_t i = 0; i < kept; i++)
    if(oc_json_add(rarr, NULL, cJSON_Duplicate(from[order[i]], 1)))
      goto nomem;
  if(oc_results_summarize(out))
    goto nomem;
  goto done;
nomem:
  snprintf(err, errlen, "cannot merge results: out of memory");
  cJSON_Delete(out);
  out = NULL;
done:
  free(items);
  free(from);
  free(order);
  return out;
}

/* ---- diff ------------------------------------------------------------- */

static int key_cmp(const void *x, const void *y)
{
  return entry_key_cmp(x, y);
}

/* Keyed entries of results (seq: the result's place in rs), sorted by
 * key.  Cases without a complete key are left out (nothing could match
 * them). */
/* as_target: every result keyed under this target name instead of its
 * own (NULL: its own) */
static int keyed(const struct oc_results *rs, const char *as_target, struct entry **out,
                 size_t *nout)
{
  size_t n = 0;
  struct entry *e = calloc(rs->count ? rs->count : 1, sizeof(*e));
  if(!e)
    return OC_ENOMEM;
  for(size_t i = 0; i < rs->count; i++) {
    const struct oc_result_ref *f = &rs->refs[i];
    if(f->target && f->suite && f->kase)
      e[n++] = (struct entry){ NULL, as_target ? as_target : f->target, f->suite, f->kase, 0, 0, 0, i };
  }
  if(n)
    qsort(e, n, sizeof(*e), entry_by_key);
  *out = e;
  *nout = n;
  return OC_OK;
}

/* The entry of the case ref f names, or NULL. */
static const struct entry *lookup(const struct entry *e, size_t n, const struct oc_result_ref *f)
{
  struct entry k = { NULL, f->target, f->suite, f->kase, 0, 0, 0, 0 };
  if(!k.target || !k.suite || !k.name || !n)
    return NULL;
  return bsearch(&k, e, n, sizeof(*e), key_cmp);
}

static int same_str(const cJSON *a, const cJSON *b, const char *key)
{
  const char *x = oc_json_str(a, key), *y = oc_json_str(b, key);
  return (!x && !y) || (x && y && strcmp(x, y) == 0);
}

static int finding_same_key(const cJSON *a, const cJSON *b)
{
  return same_str(a, b, "rule") && same_str(a, b, "path") &&
         same_str(oc_json_obj(a, "where"), oc_json_obj(b, "where"), "text");
}

static int finding_same_content(const cJSON *a, const cJSON *b)
{
  return same_str(a, b, "severity") && same_str(a, b, "message") && same_str(a, b, "expected") &&
         same_str(a, b, "actual") && oc_json_bool(a, "allowed", 0) == oc_json_bool(b, "allowed", 0);
}

/* What changed between two cases' findings. */
struct fdiff {
  cJSON *added, *removed, *changed; /* arrays (borrowed copies inside) */
  size_t count;
};

static int findings_diff(const cJSON *o, const cJSON *nw, struct fdiff *d)
{
  const cJSON *of = oc_json_arr(o, "findings"), *nf = oc_json_arr(nw, "findings");
  int no = cJSON_GetArraySize(of);
  unsigned char *used = calloc((size_t)no + 1, 1);
  d->added = cJSON_CreateArray();
  d->removed = cJSON_CreateArray();
  d->changed = cJSON_CreateArray();
  d->count = 0;
  if(!used || !d->added || !d->removed || !d->changed)
    goto nomem;
  const cJSON *f;
  cJSON_ArrayForEach(f, nf) {
    int match = -1, i = 0;
    const cJSON *g;
    /* prefer an identical old finding, then one with the same key */
    cJSON_ArrayForEach(g, of) {
      if(!used[i] && finding_same_key(f, g) && finding_same_content(f, g)) {
        match = i;
        break;
      }
      i++;
    }
    if(match < 0) {
      i = 0;
      cJSON_ArrayForEach(g, of) {
        if(!used[i] && finding_same_key(f, g)) {
          match = i;
          break;
        }
        i++;
      }
    }
    if(match >= 0) {
      used[match] = 1;
      const cJSON *old = cJSON_GetArrayItem(of, match);
      if(finding_same_content(f, old))
        continue;
      cJSON *pair = cJSON_CreateObject();
      if(oc_json_add(d->changed, NULL, pair) || add_copy(pair, "old", old) || add_copy(pair, "new", f))
        goto nomem;
    }
    else {
      if(oc_json_add(d->added, NULL, cJSON_Duplicate(f, 1)))
        goto nomem;
    }
    d->count++;
  }
  int i = 0;
  cJSON_ArrayForEach(f, of) {
    if(!used[i++]) {
      if(oc_json_add(d->removed, NULL, cJSON_Duplicate(f, 1)))
        goto nomem;
      d->count++;
    }
  }
  free(used);
  return OC_OK;
nomem:
  free(used);
  cJSON_Delete(d->added);
  cJSON_Delete(d->removed);
  cJSON_Delete(d->changed);
  d->added = d->removed = d->changed = NULL;
  return OC_ENOMEM;
}

struct diff_out {
  cJSON *lists[6]; /* in the order of the enum below */
  struct oc_buf text[6];
};

enum { D_FAILING, D_PASSING, D_STATUS, D_FINDINGS, D_ADDED, D_REMOVED };
static const char *const list_names[] = { "newly_failing", "newly_passing", "status_changed",
                                          "findings_changed", "added_cases", "removed_cases" };
static const char *const list_titles[] = { "newly failing", "newly passing", "status changed",
                                           "findings changed", "new cases", "removed cases" };

static int status_bad(enum oc_status s)
{
  return s == OC_ST_FAIL || s == OC_ST_ERROR || s == OC_ST_INVALID;
}

static int text_finding(struct oc_buf *b, char mark, const cJSON *f)
{
  struct oc_buf t;
  oc_buf_init(&t, OC_CAP_MESSAGE * 16);
  int rc = oc_finding_text(&t, f, NULL);
  if(rc) {
    oc_buf_free(&t);
    return rc == OC_ETOOBIG ? OC_OK : rc;
  }
  rc = oc_buf_printf(b, "      %c ", mark);
  if(!rc)
    rc = oc_esc_addn_cut(b, oc_buf_str(&t), 300, OC_ESC_TEXT);
  if(!rc)
    rc = oc_buf_addc(b, '\n');
  oc_buf_free(&t);
  return rc;
}

static int add_case(struct diff_out *d, int list, const cJSON *o, const cJSON *nw,
                    struct fdiff *fd)
{
  const cJSON *any = nw ? nw : o;
  cJSON *c = cJSON_CreateObject();
  if(oc_json_add(d->lists[list], NULL, c))
    return OC_ENOMEM;
  enum oc_status os = oc_result_status(o), ns = oc_result_status(nw);
  if(!cJSON_AddStringToObject(c, "target", oc_json_str(any, "target")) ||
     !cJSON_AddStringToObject(c, "suite", oc_json_str(any, "suite")) ||
     !cJSON_AddStringToObject(c, "case", oc_json_str(any, "case")) ||
     !(o ? cJSON_AddStringToObject(c, "old_status", oc_status_name(os))
         : cJSON_AddNullToObject(c, "old_status")) ||
     !(nw ? cJSON_AddStringToObject(c, "new_status", oc_status_name(ns))
          : cJSON_AddNullToObject(c, "new_status")))
    return OC_ENOMEM;
  if(fd && fd->count) {
    /* each list is taken over, also when the add fails */
    cJSON *f = cJSON_AddObjectToObject(c, "findings");
    int rc = oc_json_add(f, "added", fd->added);
    fd->added = NULL;
    rc = rc ? (cJSON_Delete(fd->removed), rc) : oc_json_add(f, "removed", fd->removed);
    fd->removed = NULL;
    rc = rc ? (cJSON_Delete(fd->changed), rc) : oc_json_add(f, "changed", fd->changed);
    fd->changed = NULL;
    if(rc)
      return rc;
  }
  /* the human line */
  struct oc_buf *b = &d->text[list];
  int rc = oc_buf_adds(b, "  ");
  if(!rc)
    rc = oc_esc_addn_cut(b, oc_json_str(any, "target"), 200, OC_ESC_TEXT);
  if(!rc)
    rc = oc_buf_addc(b, '.');
  if(!rc)
    rc = oc_esc_addn_cut(b, oc_json_str(any, "suite"), 200, OC_ESC_TEXT);
  if(!rc)
    rc = oc_buf_addc(b, '/');
  if(!rc)
    rc = oc_esc_addn_cut(b, oc_json_str(any, "case"), 200, OC_ESC_TEXT);
  if(!rc)
    rc = oc_buf_printf(b, "  %s -> %s", o ? oc_status_name(os) : "(absent)",
                       nw ? oc_status_name(ns) : "(absent)");
  if(!rc && nw && (ns == OC_ST_SKIP || ns == OC_ST_ERROR) && oc_json_str(nw, "reason")) {
    rc = oc_buf_adds(b, ": ");
    if(!rc)
      rc = oc_esc_addn_cut(b, oc_json_str(nw, "reason"), 200, OC_ESC_TEXT);
  }
  if(!rc)
    rc = oc_buf_addc(b, '\n');
  const cJSON *fobj = oc_json_obj(c, "findings"), *f;
  cJSON_ArrayForEach(f, oc_json_arr(fobj, "added"))
    if(!rc)
      rc = text_finding(b, '+', f);
  cJSON_ArrayForEach(f, oc_json_arr(fobj, "removed"))
    if(!rc)
      rc = text_finding(b, '-', f);
  cJSON_ArrayForEach(f, oc_json_arr(fobj, "changed"))
    if(!rc)
      rc = text_finding(b, '~', oc_json_obj(f, "new"));
  /* a new case that fails shows its failures */
  if(!rc && !o && nw && status_bad(ns))
    cJSON_ArrayForEach(f, oc_json_arr(nw, "findings"))
      if(!rc && oc_finding_counts(f))
        rc = text_finding(b, '+', f);
  return rc;
}

static cJSON *counts_json(const struct oc_results *rs)
{
  struct oc_counts c;
  oc_results_counts(rs, NULL, NULL, &c);
  cJSON *o = cJSON_CreateObject();
  if(!o || !cJSON_AddNumberToObject(o, "total", (double)c.total) ||
     !cJSON_AddNumberToObject(o, "pass", (double)c.pass) ||
     !cJSON_AddNumberToObject(o, "fail", (double)c.fail) ||
     !cJSON_AddNumberToObject(o, "error", (double)c.error) ||
     !cJSON_AddNumberToObject(o, "skip", (double)c.skip)) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

static int summary_line(struct oc_buf *b, const char *label, const struct oc_results *rs)
{
  struct oc_counts c;
  oc_results_counts(rs, NULL, NULL, &c);
  return oc_buf_printf(b, "%s: %ld cases, %ld pass, %ld fail, %ld error, %ld skip\n", label,
                       c.total, c.pass, c.fail, c.error, c.skip);
}

int oc_results_diff(const cJSON *old, const cJSON *nw, struct oc_buf *human, cJSON **machine)
{
  struct oc_results o, n;
  if(machine)
    *machine = NULL;
  if(oc_results_from_doc(&o, old))
    return -OC_ENOMEM;
  if(oc_results_from_doc(&n, nw)) {
    oc_results_free(&o);
    return -OC_ENOMEM;
  }
  int rc = oc_results_diff_of(&o, &n, human, machine);
  oc_results_free(&o);
  oc_results_free(&n);
  return rc;
}

/* The distinct target names of a run, for saying how two runs' targets
 * pair up: a few in any real run; more than OC_DIFF_TARGETS_MAX and the
 * run is taken as sharing its targets (nothing said). */
#define OC_DIFF_TARGETS_MAX 256
struct targets {
  const char *names[OC_DIFF_TARGETS_MAX];
  size_t n;
  int many;
};

static void targets_of(const struct oc_results *rs, struct targets *t)
{
  t->n = 0;
  t->many = 0;
  for(size_t i = 0; i < rs->count && !t->many; i++) {
    const char *x = rs->refs[i].target;
    size_t j = 0;
    while(x && j < t->n && strcmp(t->names[j], x) != 0)
      j++;
    if(!x || j < t->n)
      continue;
    if(t->n == OC_DIFF_TARGETS_MAX)
      t->many = 1;
    else
      t->names[t->n++] = x;
  }
}

static int share_a_target(const struct targets *a, const struct targets *b)
{
  if(a->many || b->many || !a->n || !b->n)
    return 1;
  for(size_t i = 0; i < a->n; i++)
    for(size_t j = 0; j < b->n; j++)
      if(strcmp(a->names[i], b->names[j]) == 0)
        return 1;
  return 0;
}

/* The names, ", " between them (the first eight), into b. */
static int target_names(struct oc_buf *b, const struct targets *t)
{
  int rc = OC_OK;
  for(size_t i = 0; i < t->n && i < 8 && !rc; i++) {
    rc = i ? oc_buf_adds(b, ", ") : OC_OK;
    rc = rc ? rc : oc_esc_addn_cut(b, t->names[i], 200, OC_ESC_TEXT);
  }
  return rc ? rc : t->n > 8 ? oc_buf_adds(b, ", …") : OC_OK;
}

int oc_results_diff_of(struct oc_results *old, struct oc_results *nw, struct oc_buf *human,
                       cJSON **machine)
{
  struct entry *oe = NULL, *ne = NULL;
  size_t on = 0, nn = 0;
  struct diff_out d;
  struct fdiff fd = { 0 };
  cJSON *root = NULL;
  int rc = OC_OK, failing = 0;
  for(int i = 0; i < 6; i++) {
    d.lists[i] = NULL;
    oc_buf_init(&d.text[i], OC_CAP_REPORT);
  }
  if(machine)
    *machine = NULL;
  /* Cases are matched by target name.  Two runs of one target each that
   * named it differently (a replay and a live run, a port in the default
   * name) are compared target with target, and that is said; runs of
   * several targets with none in common are said to share nothing. */
  struct targets *ot = malloc(sizeof(*ot)), *nt = malloc(sizeof(*nt));
  const char *as_target = NULL, *old_only = NULL, *new_only = NULL;
  struct oc_buf note;
  oc_buf_init(&note, OC_CAP_MESSAGE);
  rc = OC_ENOMEM;
  if(!ot || !nt)
    goto out;
  rc = OC_OK;
  targets_of(old, ot);
  targets_of(nw, nt);
  if(!share_a_target(ot, nt)) {
    old_only = ot->n == 1 ? ot->names[0] : NULL;
    new_only = nt->n == 1 ? nt->names[0] : NULL;
    if(old_only && new_only) {
      as_target = new_only;
      rc = oc_buf_adds(&note, "the runs have one target each, named differently: ");
      rc = rc ? rc : oc_esc_addn_cut(&note, old_only, 200, OC_ESC_TEXT);
      rc = rc ? rc : oc_buf_adds(&note, " (old) is compared with ");
      rc = rc ? rc : oc_esc_addn_cut(&note, new_only, 200, OC_ESC_TEXT);
      rc = rc ? rc : oc_buf_adds(&note, " (new)");
    }
    else {
      rc = oc_buf_adds(&note, "no target in common (old: ");
      rc = rc ? rc : target_names(&note, ot);
      rc = rc ? rc : oc_buf_adds(&note, "; new: ");
      rc = rc ? rc : target_names(&note, nt);
      rc = rc ? rc : oc_buf_adds(&note, "): cases are matched by target name, so every case is new or "
                                        "removed; name the targets alike (--target NAME=URL) to compare them");
    }
    if(rc)
      goto out;
  }
  if((rc = keyed(old, as_target, &oe, &on)) || (rc = keyed(nw, NULL, &ne, &nn)))
    goto out;
  rc = OC_ENOMEM;
  for(int i = 0; i < 6; i++)
    if(!(d.lists[i] = cJSON_CreateArray()))
      goto out;

  /* in the new run's order, so the output reads like the report; each
   * side's results read one at a time (the pair of a case at once) */
  char err[700];
  for(size_t i = 0; i < nw->count; i++) {
    const struct oc_result_ref *f = &nw->refs[i];
    if(!f->target || !f->suite || !f->kase)
      continue;
    const struct entry *m = lookup(oe, on, f);
    const cJSON *r = oc_results_get(nw, i, err, sizeof(err));
    const cJSON *mr = m ? oc_results_get(old, m->seq, err, sizeof(err)) : NULL;
    if(!r || (m && !mr)) {
      oc_error("%s", err);
      rc = OC_EIO;
      goto out;
    }
    enum oc_status ns = oc_result_status(r);
    if(!m) {
      int list = status_bad(ns) ? D_FAILING : D_ADDED;
      if(list == D_FAILING)
        failing++;
      if((rc = add_case(&d, list, NULL, r, NULL)))
        goto out;
      continue;
    }
    enum oc_status os = oc_result_status(mr);
    if((rc = findings_diff(mr, r, &fd)))
      goto out;
    int list = -1;
    if(status_bad(ns) && !status_bad(os)) {
      list = D_FAILING;
      failing++;
    }
    else if(status_bad(os) && ns == OC_ST_PASS)
      list = D_PASSING;
    else if(os != ns)
      list = D_STATUS;
    else if(fd.count)
      list = D_FINDINGS;
    if(list >= 0 && (rc = add_case(&d, list, mr, r, &fd)))
      goto out;
    cJSON_Delete(fd.added);
    cJSON_Delete(fd.removed);
    cJSON_Delete(fd.changed);
    fd.added = fd.removed = fd.changed = NULL;
  }
  for(size_t j = 0; j < old->count; j++) {
    struct oc_result_ref f = old->refs[j];
    if(as_target && f.target)
      f.target = as_target;
    if(!f.target || !f.suite || !f.kase || lookup(ne, nn, &f))
      continue;
    const cJSON *r = oc_results_get(old, j, err, sizeof(err));
    if(!r) {
      oc_error("%s", err);
      rc = OC_EIO;
      goto out;
    }
    if((rc = add_case(&d, D_REMOVED, r, NULL, NULL)))
      goto out;
  }

  if(human) {
    size_t changes = 0;
    if(note.len && ((rc = oc_buf_printf(human, "note: %s\n", oc_buf_str(&note)))))
      goto out;
    for(int i = 0; i < 6; i++) {
      int n = cJSON_GetArraySize(d.lists[i]);
      changes += (size_t)n;
      if(!n)
        continue;
      if((rc = oc_buf_printf(human, "%s (%d):\n", list_titles[i], n)) ||
         (rc = oc_buf_add(human, oc_buf_str(&d.text[i]), d.text[i].len)))
        goto out;
    }
    if(!changes && (rc = oc_buf_adds(human, "no changes\n")))
      goto out;
    if((rc = summary_line(human, "old", old)) || (rc = summary_line(human, "new", nw)))
      goto out;
  }
  if(machine) {
    rc = OC_ENOMEM;
    root = cJSON_CreateObject();
    if(!root || !cJSON_AddNumberToObject(root, "new_failures", failing) ||
       (note.len && !cJSON_AddStringToObject(root, "note", oc_buf_str(&note))))
      goto out;
    for(int i = 0; i < 6; i++) {
      int bad = oc_json_add(root, list_names[i], d.lists[i]);
      d.lists[i] = NULL; /* taken over, also when the add failed */
      if(bad)
        goto out;
    }
    if(oc_json_add(root, "old_summary", counts_json(old)) ||
       oc_json_add(root, "new_summary", counts_json(nw)))
      goto out;
    *machine = root;
    root = NULL;
  }
  rc = OC_OK;
out:
  free(ot);
  free(nt);
  oc_buf_free(&note);
  cJSON_Delete(fd.added);
  cJSON_Delete(fd.removed);
  cJSON_Delete(fd.changed);
  cJSON_Delete(root);
  for(int i = 0; i < 6; i++) {
    cJSON_Delete(d.lists[i]);
    oc_buf_free(&d.text[i]);
  }
  free(oe);
  free(ne);
  return rc ? -rc : failing;
}
