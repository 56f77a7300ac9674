/* report.c — the results document's frame, the results as writers read
 * them (struct oc_results: a document's array or a run's spool, one
 * result at a time), the sink a report streams into, and the report files
 * a command writes.  Every report is rendered from the same results, so
 * `oacheck report render` gives the same files later.  What each report
 * says is its writer's. */
#include "config.h"
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "protocol.h"
#include "checklist.h"
#include "secret.h"
#include "util.h"

cJSON *oc_results_doc_new(const char *mode, const char *started, const char *note,
                          const char *command)
{
  int oom = 0;
  cJSON *doc = cJSON_CreateObject();
  cJSON *meta = oc_json_put(&oom, doc, "oacheck", cJSON_CreateObject());
  char now[32];
  oc_now_rfc3339(now);
  oc_json_put_str(&oom, meta, "version", PACKAGE_VERSION);
  oc_json_put_str(&oom, meta, "started", started ? started : now);
  oc_json_put_str(&oom, meta, "finished", now);
  oc_json_put_str(&oom, meta, "mode", mode);
  oc_json_put_str(&oom, meta, "note", note);
  oc_json_put_str(&oom, meta, "command", command);
  oc_json_put(&oom, doc, "targets", cJSON_CreateArray());
  oc_json_put(&oom, doc, "summary", cJSON_CreateObject());
  oc_json_put(&oom, doc, "results", cJSON_CreateArray());
  if(oom) {
    cJSON_Delete(doc);
    return NULL;
  }
  return doc;
}

/* ---- results one at a time ------------------------------------------------ */

static long warnings_of(const cJSON *r)
{
  long n = 0;
  const cJSON *f;
  cJSON_ArrayForEach(f, oc_json_arr(r, "findings"))
    if(oc_streq(oc_json_str(f, "severity"), "warning"))
      n++;
  return n;
}

void oc_result_ref_of(struct oc_result_ref *f, const cJSON *r)
{
  memset(f, 0, sizeof(*f));
  f->target = oc_json_str(r, "target");
  f->suite = oc_json_str(r, "suite");
  f->kase = oc_json_str(r, "case");
  f->status = oc_result_status(r);
  f->warnings = warnings_of(r);
  double d = oc_json_num(r, "duration_ms", 0);
  f->duration_ms = isfinite(d) && d > 0 ? d : 0;
  f->row = (signed char)oc_row_find(oc_json_str(r, "checklist"));
  /* results from before "protocol" was written: the request's path says */
  const char *pn = oc_json_str(r, "protocol");
  const char *path = oc_json_str(oc_json_obj(r, "request"), "path");
  const struct oc_protocol *pr = pn     ? oc_protocol_find(pn)
                                 : path ? oc_protocol_of(oc_api_from_path(path))
                                        : oc_protocols[OC_PROTO_CHAT];
  f->proto = (signed char)(pr ? (int)pr->id : -1);
  if(oc_json_str(r, "not_run"))
    f->flags |= OC_REF_NOT_RUN;
  if(f->row == OC_ROW_STREAMING || f->row == OC_ROW_TOOL_CALL_STREAM ||
     cJSON_IsTrue(oc_json_get(oc_json_obj(oc_json_obj(oc_json_obj(r, "request"), "body"), "json"), "stream")))
    f->flags |= OC_REF_STREAM;
  const cJSON *ag = oc_json_obj(r, "agents"), *a;
  cJSON_ArrayForEach(a, ag) {
    int k = a->string ? oc_agent_find(a->string) : -1;
    if(k >= 0)
      f->agents[k] = (unsigned char)(cJSON_IsTrue(oc_json_get(a, "works"))
                                       ? (oc_streq(oc_json_str(a, "outcome"), "error") ||
                                          oc_streq(oc_json_str(a, "outcome"), "retry")
                                            ? OC_REF_AG_ERROR : OC_REF_AG_WORKS)
                                     : cJSON_IsTrue(oc_json_get(a, "limitation")) ? OC_REF_AG_LIMIT
                                                                                 : OC_REF_AG_BREAKS);
  }
  const cJSON *cs = oc_json_get(r, "clients"), *v;
  if(cs)
    f->flags |= OC_REF_CLIENTS;
  if(!cJSON_IsObject(cs))
    return;
  cJSON_ArrayForEach(v, cs) {
    int c = v->string ? oc_client_find(v->string) : -1;
    if(c < 0)
      continue;
    const char *outcome = oc_json_str(v, "outcome");
    const cJSON *works = oc_json_get(v, "works");
    unsigned st = cJSON_IsTrue(works) && cJSON_IsTrue(oc_json_get(v, "server_fault")) ? OC_REF_CL_FAULT
                  : cJSON_IsTrue(works)                         ? OC_REF_CL_WORKS
                  : !cJSON_IsFalse(works)                       ? OC_REF_CL_UNUSED
                  : cJSON_IsTrue(oc_json_get(v, "limitation"))  ? OC_REF_CL_LIMIT
                                                                : OC_REF_CL_BREAKS;
    if(outcome && !oc_streq(outcome, "not-exercised"))
      st |= OC_REF_CL_RAN;
    const char *rsn = oc_json_str(v, "reasoning");
    if(rsn)
      st |= (oc_streq(rsn, "seen")      ? OC_REF_CL_RSN_SEEN
             : oc_streq(rsn, "partial") ? OC_REF_CL_RSN_PARTIAL
             : oc_streq(rsn, "hidden")  ? OC_REF_CL_RSN_HIDDEN
                                        : 0u) << 4;
    if(cJSON_IsTrue(oc_json_get(v, "reasoning_leak")))
      st |= OC_REF_CL_RSN_LEAK;
    f->clients[c] = (unsigned char)st;
  }
}

int oc_agents_tally(const struct oc_results *rs, const char *target, struct oc_agent_tally *t)
{
  int any = 0;
  for(int a = 0; a < OC_AGENT__COUNT; a++) {
    memset(&t[a], 0, sizeof(t[a]));
    t[a].first_break = t[a].first_limit = -1;
  }
  for(size_t i = 0; target && i < rs->count; i++) {
    const struct oc_result_ref *f = &rs->refs[i];
    if(!oc_streq(f->target, target))
      continue;
    for(int a = 0; a < OC_AGENT__COUNT; a++) {
      any |= f->agents[a] != OC_REF_AG_ABSENT;
      t[a].works += f->agents[a] == OC_REF_AG_WORKS;
      t[a].errors += f->agents[a] == OC_REF_AG_ERROR;
      if(f->agents[a] == OC_REF_AG_BREAKS && !t[a].breaks++)
        t[a].first_break = (long)i;
      if(f->agents[a] == OC_REF_AG_LIMIT && !t[a].limits++)
        t[a].first_limit = (long)i;
    }
  }
  return any;
}

int oc_results_from_doc(struct oc_results *rs, const cJSON *doc)
{
  memset(rs, 0, sizeof(*rs));
  oc_buf_init(&rs->text, OC_CAP_RESULTS);
  rs->doc = doc;
  const cJSON *arr = oc_json_arr(doc, "results"), *r;
  size_t n = 0;
  cJSON_ArrayForEach(r, arr)
    n++;
  rs->refs = calloc(n ? n : 1, sizeof(*rs->refs));
  rs->items = calloc(n ? n : 1, sizeof(*rs->items));
  if(!rs->refs || !rs->items) {
    oc_results_free(rs);
    return OC_ENOMEM;
  }
  cJSON_ArrayForEach(r, arr) {
    oc_result_ref_of(&rs->refs[rs->count], r);
    rs->items[rs->count++] = r;
  }
  return OC_OK;
}

void oc_results_from_spool(struct oc_results *rs, const cJSON *frame, struct oc_spool *spool,
                           struct oc_result_ref *refs, size_t *at, size_t count)
{
  memset(rs, 0, sizeof(*rs));
  oc_buf_init(&rs->text, OC_CAP_RESULTS);
  rs->doc = frame;
  rs->spool = spool;
  rs->refs = refs;
  rs->spool_at = at;
  rs->count = count;
}

const cJSON *oc_results_get(struct oc_results *rs, size_t i, char *err, size_t errlen)
{
  if(i >= rs->count) {
    snprintf(err, errlen, "internal: result %zu of %zu", i, rs->count);
    return NULL;
  }
  if(rs->items)
    return rs->items[i];
  cJSON_Delete(rs->cur);
  rs->cur = oc_spool_get(rs->spool, rs->spool_at[i], err, errlen);
  return rs->cur;
}

int oc_results_text(struct oc_results *rs, size_t i, struct oc_buf *out, char *err, size_t errlen)
{
  if(i >= rs->count) {
    snprintf(err, errlen, "internal: result %zu of %zu", i, rs->count);
    return OC_EUSAGE;
  }
  if(rs->spool)
    return oc_spool_text(rs->spool, rs->spool_at[i], out, err, errlen);
  oc_buf_reset(out);
  int rc = oc_json_write(out, rs->items[i], 0);
  if(rc)
    snprintf(err, errlen, "result %zu: %s", i, rc == OC_ENOMEM ? "out of memory" : "too big");
  return rc;
}

int oc_status_is_failure(enum oc_status st)
{
  return st == OC_ST_FAIL || st == OC_ST_ERROR || st == OC_ST_INVALID;
}

void oc_results_counts(const struct oc_results *rs, const char *target, const char *suite,
                       struct oc_counts *c)
{
  memset(c, 0, sizeof(*c));
  for(size_t i = 0; i < rs->count; i++) {
    const struct oc_result_ref *f = &rs->refs[i];
    if(target && !oc_streq(f->target, target))
      continue;
    if(suite && !oc_streq(f->suite, suite))
      continue;
    c->total++;
    switch(f->status) {
    case OC_ST_PASS: c->pass++; break;
    case OC_ST_FAIL: c->fail++; break;
    case OC_ST_SKIP: c->skip++; break;
    default: c->error++; break;
    }
    c->warnings += f->warnings;
    c->duration_ms += f->duration_ms;
  }
}

void oc_results_free(struct oc_results *rs)
{
  cJSON_Delete(rs->cur);
  free(rs->refs);
  free(rs->items);
  free(rs->spool_at);
  oc_buf_free(&rs->text);
  memset(rs, 0, sizeof(*rs));
}

/* ---- pairs of strings ------------------------------------------------------------ */

void oc_pairs_init(struct oc_pairs *p)
{
  memset(p, 0, sizeof(*p));
}

static size_t pair_hash(const char *a, const char *b)
{
  /* FNV-1a over both, with a separator that cannot be in either */
  size_t h = (size_t)1469598103934665603ull;
  for(const unsigned char *s = (const unsigned char *)a; *s; s++)
    h = (h ^ *s) * (size_t)1099511628211ull;
  h = (h ^ 0xFFu) * (size_t)1099511628211ull;
  for(const unsigned char *s = (const unsigned char *)b; *s; s++)
    h = (h ^ *s) * (size_t)1099511628211ull;
  return h;
}

static int pairs_grow(struct oc_pairs *p)
{
  if(p->nslots > SIZE_MAX / 2 / sizeof(*p->slots))
    return OC_ENOMEM;
  /* checksrc: a hash table is rebuilt, not grown in place; overflow checked above */
  size_t n = p->nslots ? p->nslots * 2 : 64;
  struct oc_pair_slot *slots = calloc(n, sizeof(*slots));
  if(!slots)
    return OC_ENOMEM;
  for(size_t i = 0; i < p->nslots; i++) {
    if(!p->slots[i].used)
      continue;
    size_t k = pair_hash(p->slots[i].a, p->slots[i].b) & (n - 1);
    while(slots[k].used)
      k = (k + 1) & (n - 1);
    slots[k] = p->slots[i];
  }
  free(p->slots);
  p->slots = slots;
  p->nslots = n;
  return OC_OK;
}

int oc_pairs_id(struct oc_pairs *p, const char *a, const char *b, size_t *id)
{
  a = a ? a : "";
  b = b ? b : "";
  if((p->count + 1) * 2 > p->nslots && pairs_grow(p))
    return OC_ENOMEM;
  size_t k = pair_hash(a, b) & (p->nslots - 1);
  while(p->slots[k].used) {
    if(strcmp(p->slots[k].a, a) == 0 && strcmp(p->slots[k].b, b) == 0) {
      *id = p->slots[k].id;
      return OC_OK;
    }
    k = (k + 1) & (p->nslots - 1);
  }
  size_t alloc = p->alloc;
  const char **as = oc_array_grow(p->as, &alloc, p->count + 1, sizeof(*as));
  if(!as)
    return OC_ENOMEM;
  p->as = as;
  alloc = p->alloc;
  const char **bs = oc_array_grow(p->bs, &alloc, p->count + 1, sizeof(*bs));
  if(!bs)
    return OC_ENOMEM;
  p->bs = bs;
  p->alloc = alloc;
  p->as[p->count] = a;
  p->bs[p->count] = b;
  p->slots[k] = (struct oc_pair_slot){ a, b, p->count, 1 };
  *id = p->count++;
  return OC_OK;
}

void oc_pairs_free(struct oc_pairs *p)
{
  free(p->slots);
  free(p->as);
  free(p->bs);
  memset(p, 0, sizeof(*p));
}

/* ---- cases not run -------------------------------------------------------------- */

int oc_results_not_run(const struct oc_results *rs, struct oc_not_run **out, size_t *n)
{
  struct oc_pairs targets, suites;
  struct oc_not_run *g = NULL;
  size_t alloc = 0;
  int rc = OC_OK;
  oc_pairs_init(&targets);
  oc_pairs_init(&suites);
  *out = NULL;
  *n = 0;
  for(size_t i = 0; i < rs->count; i++) {
    const struct oc_result_ref *f = &rs->refs[i];
    if(!(f->flags & OC_REF_NOT_RUN))
      continue;
    size_t t, su, nt = targets.count, ns = suites.count;
    if((rc = oc_pairs_id(&targets, f->target, NULL, &t)) ||
       (rc = oc_pairs_id(&suites, f->target, f->suite, &su)))
      break;
    if(t == nt) { /* a target not seen before: the ids count up from 0 */
      struct oc_not_run *p = oc_array_grow(g, &alloc, t + 1, sizeof(*g));
      if(!p) {
        rc = OC_ENOMEM;
        break;
      }
      g = p;
      g[t] = (struct oc_not_run){ f->target, i, 0, 0 };
    }
    g[t].cases++;
    g[t].suites += su == ns;
  }
  if(rc)
    free(g);
  else {
    *out = g;
    *n = targets.count;
  }
  oc_pairs_free(&targets);
  oc_pairs_free(&suites);
  return rc;
}

int oc_not_run_text(struct oc_buf *b, const struct oc_not_run *g, const char *reason)
{
  int rc = oc_buf_printf(b, "%ld case%s not run", g->cases, g->cases == 1 ? "" : "s");
  if(!rc && g->suites > 1)
    rc = oc_buf_printf(b, " (%ld suites)", g->suites);
  if(!rc && reason)
    rc = oc_buf_printf(b, ": %s", reason);
  return rc;
}

/* ---- the sink ------------------------------------------------------------------- */

#define SINK_PIECE (1u << 20)

void oc_sink_init_mem(struct oc_sink *s, struct oc_buf *b)
{
  memset(s, 0, sizeof(*s));
  s->b = b;
  s->fd = -1;
}

int oc_sink_open(struct oc_sink *s, const char *path, char *err, size_t errlen)
{
  static atomic_uint serial;
  memset(s, 0, sizeof(*s));
  s->fd = -1;
  oc_buf_init(&s->own, OC_CAP_REPORT);
  s->b = &s->own;
  s->path = oc_strdup(path);
  if(!s->path) {
    snprintf(err, errlen, "cannot write '%s': out of memory", path);
    return OC_ENOMEM;
  }
  if(strcmp(path, "-") == 0) {
    s->fd = oc_report_fd();
    s->is_stdout = 1;
    return OC_OK;
  }
  /* beside its final name, renamed over it when whole (same file system) */
  s->tmp = oc_asprintf("%s.tmp-%ld-%u", path, (long)getpid(), atomic_fetch_add(&serial, 1));
  if(!s->tmp) {
    snprintf(err, errlen, "cannot write '%s': out of memory", path);
    free(s->path);
    s->path = NULL;
    return OC_ENOMEM;
  }
  s->fd = open(s->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if(s->fd < 0) {
    snprintf(err, errlen, "cannot create '%s': %s", path, strerror(errno));
    free(s->tmp);
    free(s->path);
    s->tmp = s->path = NULL;
    oc_buf_free(&s->own);
    return OC_EIO;
  }
  return OC_OK;
}

/* Masks what b holds (secret.c) and writes it out.  Every secret the run
 * knows is masked here, whichever writer rendered it; so that one cut in
 * two by a flush is masked too, all but the last (longest secret - 1)
 * bytes go out and those stay in b for the next piece, unless final. */
static int sink_write(struct oc_sink *s, int final)
{
  if(s->rc || s->fd < 0)
    return s->rc;
  if((s->rc = oc_buf_error(s->b)))
    return s->rc;
  oc_secret_mask(s->b->data, s->b->len);
  size_t keep = final ? 0 : oc_secret_longest();
  keep = keep ? keep - 1 : 0;
  if(keep >= s->b->len)
    return OC_OK;
  const char *p = s->b->data;
  size_t n = s->b->len - keep;
  while(n) {
    ssize_t w = write(s->fd, p, n);
    if(w < 0 && errno == EINTR)
      continue;
    if(w <= 0) {
      s->saved_errno = w < 0 ? errno : ENOSPC;
      return s->rc = OC_EIO;
    }
    p += w;
    n -= (size_t)w;
    s->written += (unsigned long long)w;
  }
  if(keep)
    memmove(s->b->data, p, keep);
  s->b->len = keep;
  if(s->b->data)
    s->b->data[keep] = '\0';
  return OC_OK;
}

int oc_sink_flush(struct oc_sink *s)
{
  if(s->fd >= 0 && s->b->len >= SINK_PIECE)
    return sink_write(s, 0);
  return s->rc ? s->rc : oc_buf_error(s->b);
}

int oc_sink_close(struct oc_sink *s, int rc, char *err, size_t errlen)
{
  if(s->fd < 0 && !s->path)
    return rc ? rc : oc_buf_error(s->b); /* memory */
  if(!rc)
    rc = sink_write(s, 1);
  const char *what = "write";
  if(!s->is_stdout) {
    if(close(s->fd) && !rc) {
      s->saved_errno = errno;
      rc = OC_EIO;
    }
    if(!rc) {
      what = "replace";
      if(rename(s->tmp, s->path)) {
        s->saved_errno = errno;
        rc = OC_EIO;
      }
    }
    if(rc)
      unlink(s->tmp);
  }
  if(rc && rc == OC_EIO)
    snprintf(err, errlen, "cannot %s '%s': %s%s", what, s->path, strerror(s->saved_errno),
             oc_is_file(s->path) ? " (the previous file is kept)" : "");
  else if(rc)
    snprintf(err, errlen, "cannot write '%s': %s", s->path,
             rc == OC_ETOOBIG ? "a piece of it is larger than the report cap" : "out of memory");
  free(s->tmp);
  free(s->path);
  oc_buf_free(&s->own);
  s->tmp = s->path = NULL;
  s->fd = -1;
  return rc;
}

/* ---- the JSON results -------------------------------------------------------------- */

int oc_report_json_render(struct oc_results *rs, struct oc_sink *s)
{
  struct oc_buf *b = s->b;
  char err[700];
  int rc = oc_buf_adds(b, "{");
  int first = 1;
  for(const cJSON *m = rs->doc ? rs->doc->child : NULL; !rc && m; m = m->next) {
    if(oc_streq(m->string, "results"))
      continue;
    oc_buf_adds(b, first ? "\n  " : ",\n  ");
    first = 0;
    cJSON *key = cJSON_CreateString(m->string ? m->string : "");
    rc = key ? oc_json_write(b, key, 0) : OC_ENOMEM;
    cJSON_Delete(key);
    oc_buf_adds(b, ": ");
    if(!rc)
      rc = oc_json_write_at(b, m, 1, 1);
  }
  /* laid out as oc_json_write lays out the whole document, so that a run
   * and `report render` write the same bytes: elements of an array on one
   * line, ", " between them, each result's members one level in */
  if(!rc)
    rc = oc_buf_adds(b, first ? "\n  \"results\": [" : ",\n  \"results\": [");
  for(size_t i = 0; !rc && i < rs->count; i++) {
    if(i)
      oc_buf_adds(b, ", ");
    rc = oc_results_text(rs, i, &rs->text, err, sizeof(err));
    if(rc)
      oc_error("%s", err);
    else
      rc = oc_json_reindent(b, rs->text.data, rs->text.len, 1);
    if(!rc)
      rc = oc_sink_flush(s);
  }
  if(!rc)
    rc = oc_buf_adds(b, "]\n}");
  return rc ? rc : oc_buf_error(b);
}
