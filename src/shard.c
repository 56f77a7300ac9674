/* shard.c — assigning cases to shards and checking that a merge holds
 * them all.  The hash is a jump consistent hash (Lamping and Veach, 2014)
 * of FNV-1a over "suite/case": it needs no table, a case keeps its shard
 * when cases are added or removed, and when N grows only about 1/N of the
 * cases move.  Balancing by duration is the classic longest-first greedy
 * over a table read from an earlier run's results, so the assignment
 * depends on that table and nothing else.  Choosing which cases run is
 * runner.c's; merging results is report_merge.c's. */
#include "config.h"
#include "shard.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define OC_SHARD_MAX 10000 /* --shard K/N and every engine's count */

const char *oc_shard_method_name(enum oc_shard_method m)
{
  return m == OC_SHARD_DURATIONS ? "durations" : "hash";
}

void oc_shard_init(struct oc_shard *s)
{
  memset(s, 0, sizeof(*s));
}

void oc_shard_free(struct oc_shard *s)
{
  for(size_t i = 0; i < s->ntable; i++)
    free(s->table[i].key);
  free(s->table);
  s->table = NULL;
  s->ntable = 0;
}

/* ---- K and N ------------------------------------------------------------ */

static int set_kn(struct oc_shard *s, long k, long n, const char *source)
{
  s->k = (int)k;
  s->n = (int)n;
  oc_strlcpy(s->source, source, sizeof(s->source));
  return OC_OK;
}

int oc_shard_parse(struct oc_shard *s, const char *arg, char *err, size_t errlen)
{
  long k, n;
  const char *slash = strchr(arg, '/');
  char kbuf[16];
  if(!slash || (size_t)(slash - arg) >= sizeof(kbuf)) {
    snprintf(err, errlen, "wants K/N (e.g. 2/4) or 'auto', not '%s'", arg);
    return OC_EUSAGE;
  }
  memcpy(kbuf, arg, (size_t)(slash - arg));
  kbuf[slash - arg] = '\0';
  if(oc_parse_long(kbuf, 1, OC_SHARD_MAX, &k) || oc_parse_long(slash + 1, 1, OC_SHARD_MAX, &n) ||
     k > n) {
    snprintf(err, errlen, "wants K/N with 1 <= K <= N <= %d, not '%s'", OC_SHARD_MAX, arg);
    return OC_EUSAGE;
  }
  return set_kn(s, k, n, "option");
}

/* A variable as a whole number in [lo, OC_SHARD_MAX]; 1 when absent,
 * -1 (err filled) when set but not such a number. */
static int env_long(oc_getenv_fn env, const char *name, long lo, long *out, char *err, size_t errlen)
{
  const char *v = env(name);
  if(!v)
    return 1;
  if(oc_parse_long(v, lo, OC_SHARD_MAX, out)) {
    snprintf(err, errlen, "%s is '%.40s', not a whole number in %ld..%d", name, v, lo, OC_SHARD_MAX);
    return -1;
  }
  return 0;
}

/* One engine's pair of variables: index (base 0 or 1) and count. */
struct engine {
  const char *index, *count; /* count NULL: from --shard-total / OACHECK_SHARD_TOTAL */
  int base;
};

static const struct engine engines[] = {
  { "OACHECK_SHARD_INDEX", "OACHECK_SHARD_TOTAL", 1 },
  { "CI_NODE_INDEX", "CI_NODE_TOTAL", 1 },                       /* GitLab CI */
  { "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", 0 }, /* Buildkite */
  { "JOB_COMPLETION_INDEX", NULL, 0 },                           /* Kubernetes Indexed Job */
};

int oc_shard_from_env(struct oc_shard *s, oc_getenv_fn env, long total, char *err, size_t errlen)
{
  for(size_t i = 0; i < OC_ARRAY_LEN(engines); i++) {
    const struct engine *e = &engines[i];
    long idx, n = 0;
    int r = env_long(env, e->index, 0, &idx, err, errlen);
    if(r < 0)
      return OC_EUSAGE;
    if(r > 0) {
      /* GitLab sets CI_NODE_TOTAL=1 and no index for a job without parallel: */
      if(i == 1 && env("CI_NODE_TOTAL") && strcmp(env("CI_NODE_TOTAL"), "1") == 0 &&
         (!total || total == 1))
        return set_kn(s, 1, 1, "CI_NODE_TOTAL");
      continue;
    }
    const char *count_name = e->count ? e->count : "OACHECK_SHARD_TOTAL";
    r = e->count ? env_long(env, e->count, 1, &n, err, errlen) : 1;
    if(r < 0)
      return OC_EUSAGE;
    if(r > 0 && !e->count && total)
      n = total, count_name = "--shard-total";
    else if(r > 0 && !e->count) {
      r = env_long(env, "OACHECK_SHARD_TOTAL", 1, &n, err, errlen);
      if(r < 0)
        return OC_EUSAGE;
      if(r > 0) {
        snprintf(err, errlen, "%s is set but the number of shards is not: give --shard-total N "
                 "(the Job's completions) or set OACHECK_SHARD_TOTAL", e->index);
        return OC_EUSAGE;
      }
    }
    else if(r > 0) {
      snprintf(err, errlen, "%s is set but %s is not", e->index, e->count);
      return OC_EUSAGE;
    }
    if(total && total != n) {
      snprintf(err, errlen, "--shard-total %ld disagrees with %s=%ld", total, count_name, n);
      return OC_EUSAGE;
    }
    long k = idx + (e->base == 0 ? 1 : 0);
    if(idx < e->base || k > n) {
      snprintf(err, errlen, "%s=%ld is outside %d..%ld (%s=%ld)", e->index, idx, e->base,
               n - (e->base == 0 ? 1 : 0), count_name, n);
      return OC_EUSAGE;
    }
    return set_kn(s, k, n, e->index);
  }
  snprintf(err, errlen, "no shard in the environment: set OACHECK_SHARD_INDEX and "
           "OACHECK_SHARD_TOTAL (1-based; GitHub Actions: from the matrix), or run as GitLab "
           "parallel: (CI_NODE_INDEX), Buildkite parallelism (BUILDKITE_PARALLEL_JOB) or a "
           "Kubernetes Indexed Job (JOB_COMPLETION_INDEX with --shard-total N); elsewhere "
           "--shard K/N");
  return OC_EUSAGE;
}

/* ---- the hash ----------------------------------------------------------- */

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
  const unsigned char *c = p;
  for(size_t i = 0; i < n; i++) {
    h ^= c[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}
#define FNV_BASIS 0xcbf29ce484222325ULL

/* FNV-1a leaves short keys poorly mixed in the high bits that the jump
 * hash reads first: finish with splitmix64's mixer. */
static uint64_t mix(uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static int jump(uint64_t key, int n)
{
  int64_t b = -1, j = 0;
  while(j < n) {
    b = j;
    key = key * 2862933555777941757ULL + 1;
    j = (int64_t)((double)(b + 1) * ((double)(1LL << 31) / (double)((key >> 33) + 1)));
  }
  return (int)b;
}

int oc_shard_hash(const char *suite, const char *kase, int n)
{
  if(n <= 1)
    return 0;
  uint64_t h = fnv1a(FNV_BASIS, suite, strlen(suite));
  h = fnv1a(h, "/", 1);
  h = fnv1a(h, kase, strlen(kase));
  return jump(mix(h), n);
}

/* ---- balancing by duration ---------------------------------------------- */

static int entry_by_key(const void *x, const void *y)
{
  return strcmp(((const struct oc_shard_entry *)x)->key, ((const struct oc_shard_entry *)y)->key);
}

static int entry_longest_first(const void *x, const void *y)
{
  const struct oc_shard_entry *a = x, *b = y;
  if(a->ms != b->ms)
    return a->ms > b->ms ? -1 : 1;
  return strcmp(a->key, b->key);
}

static char *make_key(const char *suite, const char *kase)
{
  return oc_asprintf("%s\x1f%s", suite, kase);
}

int oc_shard_balance(struct oc_shard *s, const cJSON *doc, char *err, size_t errlen)
{
  struct oc_shard_entry *t = NULL;
  size_t n = 0, alloc = 0;
  double *load = NULL;
  int rc = OC_ENOMEM;
  const cJSON *r;
  cJSON_ArrayForEach(r, oc_json_arr(doc, "results")) {
    const char *su = oc_json_str(r, "suite"), *c = oc_json_str(r, "case");
    const cJSON *d = oc_json_get(r, "duration_ms");
    if(!su || !c || !cJSON_IsNumber(d) || !isfinite(d->valuedouble) || d->valuedouble < 0)
      continue;
    struct oc_shard_entry *g = oc_array_grow(t, &alloc, n + 1, sizeof(*t));
    if(!g)
      goto out;
    t = g;
    if(!(t[n].key = make_key(su, c)))
      goto out;
    t[n].ms = d->valuedouble;
    t[n].shard = 0;
    n++;
  }
  if(!n) {
    snprintf(err, errlen, "it records no case with a duration");
    rc = OC_EUSAGE;
    goto out;
  }
  /* one entry per case: the durations of its targets add up */
  qsort(t, n, sizeof(*t), entry_by_key);
  size_t u = 0;
  for(size_t i = 0; i < n; i++) {
    if(u && strcmp(t[u - 1].key, t[i].key) == 0) {
      t[u - 1].ms += t[i].ms;
      free(t[i].key);
      continue;
    }
    t[u++] = t[i];
  }
  n = u;
  qsort(t, n, sizeof(*t), entry_longest_first);
  int shards = s->n > 1 ? s->n : 1;
  if(!(load = calloc((size_t)shards, sizeof(*load))))
    goto out;
  uint64_t h = FNV_BASIS;
  for(size_t i = 0; i < n; i++) {
    int best = 0;
    for(int k = 1; k < shards; k++)
      if(load[k] < load[best])
        best = k;
    t[i].shard = best;
    load[best] += t[i].ms;
    /* what the plan depends on, so merge can tell shards of other plans */
    char ms[40];
    snprintf(ms, sizeof(ms), "=%.3f;", t[i].ms);
    h = fnv1a(h, t[i].key, strlen(t[i].key));
    h = fnv1a(h, ms, strlen(ms));
  }
  qsort(t, n, sizeof(*t), entry_by_key);
  oc_shard_free(s);
  s->table = t;
  s->ntable = n;
  t = NULL;
  n = 0;
  snprintf(s->digest, sizeof(s->digest), "%016llx", (unsigned long long)h);
  s->method = OC_SHARD_DURATIONS;
  rc = OC_OK;
out:
  if(rc == OC_ENOMEM)
    snprintf(err, errlen, "out of memory");
  for(size_t i = 0; i < n; i++)
    free(t[i].key);
  free(t);
  free(load);
  return rc;
}

int oc_shard_of(const struct oc_shard *s, const char *suite, const char *kase)
{
  if(s->n <= 1)
    return 0;
  if(s->ntable) {
    char *key = make_key(suite, kase);
    if(key) {
      struct oc_shard_entry k = { key, 0, 0 };
      const struct oc_shard_entry *e = bsearch(&k, s->table, s->ntable, sizeof(k), entry_by_key);
      free(key);
      if(e)
        return e->shard;
    }
  }
  return oc_shard_hash(suite, kase, s->n);
}

cJSON *oc_shard_json(const struct oc_shard *s)
{
  if(s->n <= 1)
    return NULL;
  cJSON *o = cJSON_CreateObject();
  if(!o || !cJSON_AddNumberToObject(o, "index", s->k) || !cJSON_AddNumberToObject(o, "count", s->n) ||
     !cJSON_AddStringToObject(o, "method", oc_shard_method_name(s->method)) ||
     !cJSON_AddStringToObject(o, "source", s->source[0] ? s->source : "option"))
    goto fail;
  if(s->method == OC_SHARD_DURATIONS) {
    cJSON *d = cJSON_AddObjectToObject(o, "durations");
    if(!d || !cJSON_AddNumberToObject(d, "cases", (double)s->ntable) ||
       !cJSON_AddStringToObject(d, "digest", s->digest))
      goto fail;
  }
  return o;
fail:
  cJSON_Delete(o);
  return NULL;
}

/* ---- merged runs -------------------------------------------------------- */

/* How one input was split: count, method ("position" for results written
 * before shards had a method: they were split by position) and the
 * durations digest. */
struct split {
  long count;
  const char *method, *digest;
};

static int input_split(const cJSON *doc, struct split *sp, const cJSON **merged)
{
  const cJSON *h = oc_json_obj(doc, "oacheck");
  const cJSON *shs = oc_json_obj(h, "shards"), *sh = oc_json_obj(h, "shard");
  *merged = NULL;
  if(shs && oc_json_is_integer(oc_json_get(shs, "count"))) {
    *merged = shs;
    sp->count = (long)oc_json_num(shs, "count", 0);
    sp->method = oc_json_str(shs, "method") ?: "hash";
    sp->digest = oc_json_str(shs, "digest");
    return 1;
  }
  if(sh && oc_json_is_integer(oc_json_get(sh, "count")) && oc_json_is_integer(oc_json_get(sh, "index"))) {
    sp->count = (long)oc_json_num(sh, "count", 0);
    sp->method = oc_json_str(sh, "method") ?: "position";
    sp->digest = oc_json_str(oc_json_obj(sh, "durations"), "digest");
    return sp->count > 1;
  }
  return 0;
}

struct held {
  const char *target; /* borrowed */
  unsigned char *k;   /* [count]: 1 when shard k+1 is held */
};

static struct held *held_for(struct held **hs, size_t *n, size_t *alloc, const char *name, long count)
{
  for(size_t i = 0; i < *n; i++)
    if(strcmp((*hs)[i].target, name) == 0)
      return &(*hs)[i];
  struct held *g = oc_array_grow(*hs, alloc, *n + 1, sizeof(**hs));
  if(!g)
    return NULL;
  *hs = g;
  g[*n].target = name;
  if(!(g[*n].k = calloc((size_t)count, 1)))
    return NULL;
  return &g[(*n)++];
}

static int add_ks(cJSON *arr, const unsigned char *k, long count, int want)
{
  for(long i = 0; i < count; i++)
    if(!!k[i] == want) {
      if(oc_json_add(arr, NULL, cJSON_CreateNumber((double)(i + 1))))
        return OC_ENOMEM;
    }
  return OC_OK;
}

cJSON *oc_shards_merge(const cJSON *const *docs, size_t n, int *nomem)
{
  struct split first = { 0, NULL, NULL };
  char problem[300] = "";
  int have = 0;
  *nomem = 0;
  for(size_t i = 0; i < n; i++) {
    struct split sp;
    const cJSON *m;
    if(!input_split(docs[i], &sp, &m))
      continue;
    if(m && cJSON_IsFalse(oc_json_get(m, "consistent")) && !problem[0])
      snprintf(problem, sizeof(problem), "%s", oc_json_str(m, "problem") ?: "an input was an inconsistent merge");
    if(!have) {
      first = sp;
      have = 1;
    }
    else if(!problem[0] && (sp.count != first.count || strcmp(sp.method, first.method) ||
                            !oc_streq(sp.digest, first.digest)))
      snprintf(problem, sizeof(problem), "the inputs were split differently (%ld shards by %s%s and "
               "%ld by %s%s): cases may be missing or doubled", first.count, first.method,
               first.digest ? " of one durations table" : "", sp.count, sp.method,
               sp.digest ? (first.digest ? " of another table" : " of a durations table") : "");
  }
  if(!have || first.count < 1 || first.count > OC_SHARD_MAX)
    return NULL;
  struct held *hs = NULL;
  size_t nh = 0, alloc = 0;
  cJSON *out = NULL;
  long count = first.count;
  for(size_t i = 0; i < n; i++) {
    struct split sp;
    const cJSON *m;
    int sharded = input_split(docs[i], &sp, &m);
    const cJSON *t;
    if(m) {
      cJSON_ArrayForEach(t, oc_json_arr(m, "targets")) {
        const char *name = oc_json_str(t, "target");
        struct held *h = name ? held_for(&hs, &nh, &alloc, name, count) : NULL;
        if(name && !h)
          goto nomem;
        const cJSON *k;
        cJSON_ArrayForEach(k, oc_json_arr(t, "held"))
          if(h && oc_json_is_integer(k) && k->valuedouble >= 1 && k->valuedouble <= (double)count)
            h->k[(long)k->valuedouble - 1] = 1;
      }
      continue;
    }
    long idx = sharded ? (long)oc_json_num(oc_json_obj(oc_json_obj(docs[i], "oacheck"), "shard"), "index", 0) : 0;
    cJSON_ArrayForEach(t, oc_json_arr(docs[i], "targets")) {
      const char *name = oc_json_str(t, "name");
      struct held *h = name ? held_for(&hs, &nh, &alloc, name, count) : NULL;
      if(name && !h)
        goto nomem;
      if(!h)
        continue;
      if(!sharded)
        memset(h->k, 1, (size_t)count); /* a whole run of this target */
      else if(idx >= 1 && idx <= count)
        h->k[idx - 1] = 1;
    }
  }
  out = cJSON_CreateObject();
  cJSON *ts;
  if(!out || !cJSON_AddNumberToObject(out, "count", (double)count) ||
     !cJSON_AddStringToObject(out, "method", first.method) ||
     (first.digest && !cJSON_AddStringToObject(out, "digest", first.digest)) ||
     !cJSON_AddBoolToObject(out, "consistent", !problem[0]) ||
     (problem[0] && !cJSON_AddStringToObject(out, "problem", problem)) ||
     !(ts = cJSON_AddArrayToObject(out, "targets")))
    goto nomem;
  for(size_t i = 0; i < nh; i++) {
    cJSON *o = cJSON_CreateObject(), *held, *missing;
    if(oc_json_add(ts, NULL, o))
      goto nomem;
    if(!cJSON_AddStringToObject(o, "target", hs[i].target) ||
       !(held = cJSON_AddArrayToObject(o, "held")) || !(missing = cJSON_AddArrayToObject(o, "missing")) ||
       add_ks(held, hs[i].k, count, 1) || add_ks(missing, hs[i].k, count, 0))
      goto nomem;
  }
  goto out;
nomem:
  *nomem = 1;
  cJSON_Delete(out);
  out = NULL;
out:
  for(size_t i = 0; i < nh; i++)
    free(hs[i].k);
  free(hs);
  return out;
}

long oc_shards_problems(const cJSON *doc, struct oc_buf *text)
{
  const cJSON *shs = oc_json_obj(oc_json_obj(doc, "oacheck"), "shards");
  if(!shs)
    return 0;
  long problems = 0;
  double count = oc_json_num(shs, "count", 0);
  if(cJSON_IsFalse(oc_json_get(shs, "consistent"))) {
    problems++;
    if(text && oc_buf_printf(text, "the merged shards do not fit together: %s\n",
                             oc_json_str(shs, "problem") ?: "they were split differently"))
      text = NULL;
  }
  const cJSON *t;
  cJSON_ArrayForEach(t, oc_json_arr(shs, "targets")) {
    const cJSON *k;
    cJSON_ArrayForEach(k, oc_json_arr(t, "missing")) {
      if(!oc_json_is_integer(k))
        continue;
      problems++;
      if(text && oc_buf_printf(text, "shard %.0f of %.0f is missing for target %s: its cases did not run\n",
                               k->valuedouble, count, oc_json_str(t, "target") ?: "?"))
        text = NULL; /* the buffer keeps its error: count on, write no more */
    }
  }
  return problems;
}
