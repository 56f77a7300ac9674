/* runner.c — planning and running cases.  A live case is one transfer on
 * its lane's libcurl multi handle (a lane per thread, struct lane) whose
 * callbacks feed the response decoder as bytes arrive; a replayed case pushes a recording's pieces
 * through the same decoder with their recorded arrival times.  Each case
 * ends in finish_job(), which applies the case's expectations and turns
 * everything into one result object, built in the JSON arena, counted,
 * shown, written to the results spool and forgotten: the heavy state is
 * freed there, so memory does not grow with the number of cases that
 * already ran.  A live case's job is made when its target has room for
 * it, so the cases still waiting cost their plan entry only. */
#include "config.h"
#include "runner.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "deployment.h"
#include "expect.h"
#include "http.h"
#include "json.h"
#include "protocol.h"
#include "serves.h"
#include "checklist.h"
#include "report.h"
#include "result.h"
#include "results_json.h"
#include "secret.h"
#include "token_count.h"
#include "url.h"
#include "util.h"
#include "verdict.h"

/* ---- signals --------------------------------------------------------------------------- */

/* atomic, not just volatile: every lane's thread reads it (a lock-free
 * atomic int is as safe in a handler as sig_atomic_t) */
static atomic_int caught;

static void on_signal(int sig)
{
  int saved = errno; /* the interrupted code may be about to read it */
  atomic_store(&caught, sig);
  /* a second ^C ends the process at once; the reports are written by
   * rename, so that cannot leave a half-written one */
  signal(sig, SIG_DFL);
  errno = saved;
}

void oc_run_catch_signals(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  /* no SA_RESTART: a poll in progress returns at once */
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

int oc_run_signal(void)
{
  return atomic_load(&caught);
}

const char *oc_run_signal_name(int sig)
{
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

char *oc_run_record_dir(const struct oc_run *r, const struct oc_target *t)
{
  if(t->record_dir) /* its own (a router's model, or set by oc_run_record_dirs) */
    return oc_strdup(t->record_dir);
  const char *dir = r->opts->record_dir;
  if(!dir)
    return NULL;
  if(r->ntargets <= 1)
    return oc_strdup(dir);
  char *sub = oc_path_join(dir, t->name);
  if(sub && mkdir(sub, 0777) && errno != EEXIST) {
    oc_error("cannot create the recording directory '%s': %s", sub, strerror(errno));
    free(sub);
    return NULL;
  }
  return sub;
}

int oc_run_record_dirs(struct oc_target *ts, size_t n, const char *dir)
{
  for(size_t i = 0; i < n; i++) {
    free(ts[i].record_dir);
    ts[i].record_dir = oc_path_join(dir, ts[i].name);
    if(!ts[i].record_dir) {
      oc_error("out of memory");
      return OC_ENOMEM;
    }
    if(mkdir(ts[i].record_dir, 0777) && errno != EEXIST) {
      oc_error("cannot create the recording directory '%s': %s", ts[i].record_dir, strerror(errno));
      return OC_EIO;
    }
  }
  return OC_OK;
}

void oc_run_options_init(struct oc_run_options *o)
{
  memset(o, 0, sizeof(*o));
  o->jobs = 0;
  o->timeout_ms = 120000;
  o->idle_timeout_ms = 60000;
  o->connect_timeout_ms = 10000;
  o->retries = 2;
  o->keep_events = 1;
  o->clients = OC_CLIENTS_DEFAULT;
}

int oc_glob_match(const char *g, const char *s)
{
  /* iterative matcher with one backtrack point: linear in practice */
  const char *star = NULL, *ss = NULL;
  while(*s) {
    if(*g == '?' || *g == *s) {
      g++;
      s++;
    }
    else if(*g == '*') {
      star = g++;
      ss = s;
    }
    else if(star) {
      g = star + 1;
      s = ++ss;
    }
    else
      return 0;
  }
  while(*g == '*')
    g++;
  return *g == '\0';
}

/* Does one --filter glob take case c?  full is "suite/case". */
static int filter_takes(const char *glob, const struct oc_case *c, const char *full)
{
  return oc_glob_match(glob, full) || oc_glob_match(glob, c->name) || oc_glob_match(glob, c->suite);
}

static int tag_takes(const char *tag, const struct oc_case *c)
{
  for(size_t j = 0; j < c->ntags; j++)
    if(strcmp(tag, c->tags[j]) == 0)
      return 1;
  return 0;
}

static int selected(const struct oc_run_options *o, const struct oc_case *c)
{
  if(o->nfilters) {
    char full[256];
    snprintf(full, sizeof(full), "%s/%s", c->suite, c->name);
    int any = 0;
    for(size_t i = 0; i < o->nfilters && !any; i++)
      any = filter_takes(o->filters[i], c, full);
    if(!any)
      return 0;
  }
  if(o->ntags) {
    int any = 0;
    for(size_t i = 0; i < o->ntags && !any; i++)
      any = tag_takes(o->tags[i], c);
    if(!any)
      return 0;
  }
  return 1;
}

/* What a --filter (i < nf) or --tag that takes no case was meant to
 * name, within two edits, regardless of case, into out: a case's name or
 * a suite's ("chat-basci" was chat-basic), suite/case for a filter with
 * a '/', a tag of some case for a tag.  0 when none is that close, and
 * for a glob, whose typo is not one name's. */
static int near_selection(const char *opt, int tag, const struct oc_suite_set *set, char *out,
                          size_t outlen)
{
  if(!tag && strpbrk(opt, "*?["))
    return 0;
  int full = !tag && strchr(opt, '/');
  struct oc_nearest nr;
  oc_nearest_init(&nr, opt, strlen(opt), 1);
  out[0] = '\0';
  char name[256];
  for(size_t s = 0; s < set->count; s++)
    for(size_t k = 0; k < set->items[s].ncases; k++) {
      const struct oc_case *c = &set->items[s].cases[k];
      /* the candidate's text may be a buffer of this loop: what is near
       * is copied out as it becomes the nearest */
      size_t before = nr.best;
      if(tag)
        for(size_t j = 0; j < c->ntags; j++) {
          oc_nearest_offer(&nr, c->tags[j], strlen(c->tags[j]));
          if(nr.best < before) {
            oc_strlcpy(out, c->tags[j], outlen);
            before = nr.best;
          }
        }
      else if(full) {
        snprintf(name, sizeof(name), "%s/%s", c->suite, c->name);
        oc_nearest_offer(&nr, name, strlen(name));
        if(nr.best < before)
          oc_strlcpy(out, name, outlen);
      }
      else {
        oc_nearest_offer(&nr, c->name, strlen(c->name));
        if(nr.best < before)
          oc_strlcpy(out, c->name, outlen);
        before = nr.best;
        oc_nearest_offer(&nr, c->suite, strlen(c->suite));
        if(nr.best < before)
          oc_strlcpy(out, c->suite, outlen);
      }
    }
  return out[0] != '\0';
}

int oc_run_check_selection(const struct oc_run_options *o, const struct oc_suite_set *set,
                           struct oc_buf *msg)
{
  size_t nf = o->nfilters, nt = o->ntags;
  if(!nf && !nt)
    return OC_OK;
  /* hit[0..nf) the filters, hit[nf..nf+nt) the tags */
  char *hit = calloc(nf + nt, 1);
  if(!hit)
    return OC_ENOMEM;
  size_t left = nf + nt;    /* options that have taken no case yet */
  int any = 0;              /* a case all of them together select */
  for(size_t s = 0; s < set->count && (left || !any); s++)
    for(size_t k = 0; k < set->items[s].ncases && (left || !any); k++) {
      const struct oc_case *c = &set->items[s].cases[k];
      char full[256];
      snprintf(full, sizeof(full), "%s/%s", c->suite, c->name);
      for(size_t i = 0; i < nf; i++)
        if(!hit[i] && filter_takes(o->filters[i], c, full)) {
          hit[i] = 1;
          left--;
        }
      for(size_t i = 0; i < nt; i++)
        if(!hit[nf + i] && tag_takes(o->tags[i], c)) {
          hit[nf + i] = 1;
          left--;
        }
      any |= selected(o, c);
    }
  if(any && !left) {
    free(hit);
    return OC_OK;
  }
  /* Every option that takes no case is named, not only when the whole
   * selection is empty: with --filter a --filter b, a typo in b still
   * runs a's cases, and a CI job would pass without the cases it meant. */
  size_t loaded = set->count;
  if(left) {
    for(size_t i = 0, said = 0; i < nf + nt; i++) {
      if(hit[i])
        continue;
      said++;
      oc_buf_printf(msg, "%s--%s '%.100s'", said == 1 ? "" : said == left ? " and " : ", ",
                    i < nf ? "filter" : "tag", i < nf ? o->filters[i] : o->tags[i - nf]);
    }
    oc_buf_printf(msg, " %s no case of the %zu suite%s loaded", left == 1 ? "selects" : "select",
                  loaded, loaded == 1 ? "" : "s");
    /* and what each was most likely meant to be */
    size_t guessed = 0;
    for(size_t i = 0; i < nf + nt; i++) {
      char near[256];
      const char *opt = i < nf ? o->filters[i] : o->tags[i - nf];
      if(hit[i] || !near_selection(opt, i >= nf, set, near, sizeof(near)))
        continue;
      if(left == 1)
        oc_buf_printf(msg, ": did you mean '%s'?", near);
      else
        oc_buf_printf(msg, "%s'%s' for '%.100s'", guessed++ ? ", " : ": did you mean ", near, opt);
    }
    if(guessed)
      oc_buf_adds(msg, "?");
  }
  else
    /* each takes cases, but no case has both a matching name and a tag */
    oc_buf_printf(msg, "no case of the %zu suite%s loaded is taken both by a --filter and by a "
                  "--tag", loaded, loaded == 1 ? "" : "s");
  oc_buf_printf(msg, " (--list without %s shows every case and its tags)",
                left == 1 ? "it" : "them");
  free(hit);
  return oc_buf_error(msg) == OC_ENOMEM ? OC_ENOMEM : OC_ENOTFOUND;
}

int oc_run_plan(struct oc_run *r)
{
  const struct oc_run_options *o = r->opts;
  size_t ncases = 0;
  for(size_t s = 0; s < r->suites->count; s++)
    ncases += r->suites->items[s].ncases;
  r->items = calloc(ncases * (r->ntargets ? r->ntargets : 1) + 1, sizeof(*r->items));
  if(!r->items)
    return OC_ENOMEM;
  const struct oc_shard *sh = o->shard && o->shard->n > 1 ? o->shard : NULL;
  /* by_target: every case of one target before the next (a router's
   * models one after another, not evicting each other at every case) */
  for(size_t t0 = 0; t0 < (o->by_target ? r->ntargets : 1); t0++) {
    for(size_t s = 0; s < r->suites->count; s++) {
      struct oc_suite *su = &r->suites->items[s];
      for(size_t c = 0; c < su->ncases; c++) {
        struct oc_case *k = &su->cases[c];
        if(!selected(o, k))
          continue;
        if(sh && oc_shard_of(sh, k->suite, k->name) != sh->k - 1)
          continue;
        for(size_t t = o->by_target ? t0 : 0; t < (o->by_target ? t0 + 1 : r->ntargets); t++) {
          struct oc_plan_item *it = &r->items[r->nitems];
          it->target = &r->targets[t];
          it->kase = k;
          it->index = r->nitems++;
        }
      }
    }
  }
  r->in_flight = calloc(r->nitems + 1, sizeof(*r->in_flight));
  r->deferred = calloc(r->nitems + 1, sizeof(*r->deferred));
  r->firsts = calloc(r->nitems + 1, sizeof(*r->firsts));
  return r->in_flight && r->deferred && r->firsts ? OC_OK : OC_ENOMEM;
}

/* ---- one case -------------------------------------------------------------------- */

struct job;

/* One target's live cases: at most limit in flight, the rest waiting as
 * plan indexes (a job is made when it starts). */
struct tstate {
  struct oc_run *run;
  struct oc_target *target;
  int limit;
  int inflight;
  int alone;                /* the run alone after shared-context failures */
  struct job **running;     /* limit entries, NULL where free */
  size_t *queue;            /* waiting, in plan order */
  size_t nq, qhead;
};

/* One thread's part of the live cases: its own transfer loop, and for
 * each target a share of the target's limit (the shares add up to it),
 * taking the next waiting case of the target's queue whenever a case of
 * its share ends.  With one lane, the run is what it always was: one
 * loop on the calling thread. */
struct lane {
  struct oc_run *run;
  struct tstate *ts;        /* every target's, shared under run->lock */
  size_t nts;
  int *share;               /* per target: at most this many in flight here */
  int *here;                /* per target: in flight here (or being made) now */
  struct oc_http *http;
  struct oc_buf text;       /* a result's text, made outside the lock */
  pthread_t thread;
};

static void run_lock(struct oc_run *r)
{
  if(r->lock)
    pthread_mutex_lock(r->lock);
}

static void run_unlock(struct oc_run *r)
{
  if(r->lock)
    pthread_mutex_unlock(r->lock);
}

struct job {
  struct oc_run *run;
  struct oc_plan_item *item;
  struct oc_built_request req;
  int req_built;
  struct oc_request_info info;
  struct oc_findings findings;
  struct oc_check check;
  struct oc_ruleset allow;   /* the case's, the target's and --allow */
  struct oc_response resp;
  int resp_started;
  enum oc_case_end end;
  char reason[700];
  const char *not_run;      /* the result's "not_run": why the case was never sent, or NULL */
  cJSON *retries;
  int retries_oom;          /* a retry could not be written down */
  uint64_t t_start;
  const char *source;
  struct oc_cassette rec; /* record mode */
  int recording;
  struct oc_headers send_headers;
  char *url;
  int unmatched;            /* no recording of its request: a replay target's, or oacheck
                               serve's 404 with X-Oacheck-Unmatched */
  struct tstate *ts;        /* live */
  struct lane *lane;        /* live: the thread whose loop carries it */
  int max_in_flight;        /* on its target, while it ran */
  int slot;                 /* its index in ts->running */
  int rerun;                /* this is the run alone after a shared-context failure */
  cJSON *first;             /* rerun: what the first attempt gave */
};

static void job_free(struct job *j)
{
  if(j->resp_started)
    oc_response_free(&j->resp);
  oc_findings_free(&j->findings);
  oc_built_request_free(&j->req);
  cJSON_Delete(j->retries);
  if(j->recording)
    oc_cassette_free(&j->rec);
  oc_headers_free(&j->send_headers);
  free(j->url);
  cJSON_Delete(j->first);
  free(j);
}

static struct job *job_new(struct oc_run *r, struct oc_plan_item *it)
{
  struct job *j = calloc(1, sizeof(*j));
  if(!j)
    return NULL;
  j->run = r;
  j->item = it;
  j->t_start = oc_now_ns();
  oc_findings_init(&j->findings);
  oc_headers_init(&j->send_headers);
  const struct oc_target *t = it->target;
  oc_check_init(&j->check, &j->findings, t->profile);
  j->allow = it->kase->allow;
  oc_ruleset_merge(&j->allow, &t->allow);
  oc_ruleset_merge(&j->allow, r->opts->allow);
  j->check.allow = &j->allow;
  j->check.dialect = &t->dialect; /* its template's own tool-call markers */
  j->check.strict = r->opts->strict;
  j->check.clients = r->opts->clients;
  return j;
}

/* What the deployment's facts say about a result: the server's wait
 * time, the diagnoses, how many requests were in flight, and for a case
 * run again alone, what the first attempt gave. */
static void annotate(struct job *j, cJSON *res)
{
  if(!res)
    return;
  struct oc_target *t = j->item->target;
  int oom = 0; /* out of memory: the result lacks these notes, nothing else */
  oc_deployment_timing(res);
  struct oc_diag_context ctx = { j->max_in_flight, -1, NULL };
  oc_deployment_diagnose(&t->deployment, res, &ctx);
  if(t->live && j->max_in_flight > 0) {
    cJSON *c = oc_json_put(&oom, res, "concurrency", cJSON_CreateObject());
    if(c) {
      oc_json_put(&oom, c, "in_flight", cJSON_CreateNumber(j->max_in_flight));
      int slots = oc_deployment_slots(&t->deployment);
      if(slots)
        oc_json_put(&oom, c, "slots", cJSON_CreateNumber(slots));
    }
  }
  if(j->first) {
    /* made outside the arena: the result takes a copy made in it, so
     * that it can be dropped whole */
    cJSON *first = oc_json_arena_active() ? cJSON_Duplicate(j->first, 1) : j->first;
    if(first != j->first)
      cJSON_Delete(j->first);
    j->first = NULL;
    oc_json_put(&oom, res, "rerun", first);
  }
}

static cJSON *first_attempt(const cJSON *res, int in_flight);

static void record_case(struct job *j, int complete)
{
  char name[300];
  snprintf(name, sizeof(name), "%s.%s", j->item->kase->suite, j->item->kase->name);
  free(j->rec.name);
  j->rec.name = oc_strdup(name);
  char *dir = oc_run_record_dir(j->run, j->item->target);
  char *file = dir ? oc_asprintf("%s/%s%s", dir, name, OC_CASSETTE_EXT) : NULL;
  free(dir);
  char err[600];
  j->rec.complete = complete;
  char ts[32];
  oc_now_rfc3339(ts);
  j->rec.recorded_at = oc_strdup(ts);
  if(!file || oc_cassette_write(file, &j->rec, err, sizeof(err)))
    oc_error("cannot record %s: %s", name, file ? err : "out of memory");
  free(file);
}

/* The result's text (made by the caller, outside the lock: it is most of
 * what storing costs; rc its oc_spool_encode) goes to the spool; the
 * tree is thrown away.  Under the run's lock. */
static void spool_result(struct oc_run *r, const struct oc_plan_item *it, const cJSON *res,
                         int rc, const struct oc_buf *text, char *err, size_t errlen)
{
  if(res && !rc)
    rc = oc_spool_put(&r->spool, it->index, text->data, text->len, oc_result_status(res), err,
                      errlen);
  if(rc && !r->lost++)
    oc_error("%s/%s: the result is lost: %s", it->kase->suite, it->kase->name,
             res ? err : "out of memory building it");
}

static int needs_rerun(const struct oc_run *r, const struct job *j, const cJSON *res)
{
  const cJSON *dg = oc_result_diagnosis(res);
  return r->opts->rerun_alone && j->item->target->live && j->max_in_flight > 1 && dg &&
         oc_streq(oc_json_str(dg, "id"), "shared-context");
}

/* A router's answer must come from the model the request named. */
static void check_routed(struct job *j)
{
  const struct oc_target *t = j->item->target;
  const char *want = oc_target_model(t);
  if(!t->router || !want || j->resp.status != 200 ||
     (j->info.api != OC_API_CHAT && j->info.api != OC_API_COMPLETIONS))
    return;
  const char *got = j->resp.is_sse ? (j->resp.stream.model.len ? oc_buf_str(&j->resp.stream.model) : NULL)
                                   : oc_json_str(j->resp.parsed, "model");
  if(got && strcmp(got, want) != 0)
    oc_emit(&j->check, OC_R_MODELS_ROUTED,
            OC_AT(.path = "/model", .expected = want, .actual = got),
            "the router answered a request for model '%s' from '%s'", want, got);
}

/* A case with expect.count_tokens: its request counted by the protocol's
 * counting endpoint, sent now (live, or looked up in the recordings, as
 * identification is; recorded beside the case as SUITE.CASE.count), and
 * the count held to the input the answer reports (token_count.c).  A
 * count the replay has no recording of leaves the case as it is. */
static void count_contract(struct job *j, const cJSON *message)
{
  struct oc_target *t = j->item->target;
  const struct oc_run_options *opt = j->run->opts;
  if(!oc_json_bool(j->item->kase->expect, "count_tokens", 0) || j->end != OC_END_RAN ||
     j->resp.status != 200 || (j->info.api != OC_API_MESSAGES && j->info.api != OC_API_RESPONSES))
    return;
  char *cpath = NULL, *cbody = NULL, *body = NULL, err[600] = "", how[200];
  int crc = oc_count_request(j->info.api, j->req.path, j->req.body_json, &cpath, &cbody);
  if(crc) {
    j->check.oom |= crc == OC_ENOMEM; /* else no JSON object to count */
    return;
  }
  const cJSON *answer = j->resp.is_sse ? message : j->resp.parsed;
  long answered = oc_count_answered(j->info.api, answer, how, sizeof(how));
  char name[300];
  snprintf(name, sizeof(name), "%s.%s.count", j->item->kase->suite, j->item->kase->name);
  struct oc_identify_options io = { .timeout_ms = opt->timeout_ms,
                                    .insecure = opt->insecure, .cacert = opt->cacert,
                                    .record_dir = t->live ? opt->record_dir : NULL,
                                    .idle_timeout_ms = opt->idle_timeout_ms,
                                    .connect_timeout_ms = opt->connect_timeout_ms };
  int status = 0;
  size_t len = 0;
  struct oc_headers h;
  oc_headers_init(&h);
  int rc = oc_target_fetch_beside(t, &io, "POST", cpath, cbody, name, &status, &h, &body, &len,
                                  err, sizeof(err));
  if(rc == OC_ENOMEM)
    j->check.oom = 1;
  else if(rc == OC_ENOTFOUND || oc_headers_get(&h, "X-Oacheck-Unmatched"))
    oc_info("%s/%s: no recording holds the count of its request (POST %s): no count verdict",
            j->item->kase->suite, j->item->kase->name, cpath);
  else
    oc_count_judge(&j->check, j->info.api, cpath, rc == OC_OK ? status : 0, body, len, err,
                   answered, how, j->req.body_json);
  oc_headers_free(&h);
  free(body);
  free(cpath);
  free(cbody);
}

static void finish_job(struct job *j, int complete, uint64_t t_end)
{
  struct oc_run *r = j->run;
  cJSON *message = NULL, *timing = NULL, *response = NULL;
  /* Everything made from here to the spool is one tree thrown away whole:
   * its nodes come from the arena (no malloc or free per node).  Trees
   * made before (the retries, a first attempt) are copied into it. */
  int arena = oc_json_arena_begin() == OC_OK;
  if(j->resp_started && j->resp.status) {
    oc_response_finish(&j->resp, t_end, complete);
    check_routed(j);
    /* built once: the expectations read message and timing, the result
     * takes all three */
    response = oc_response_json(&j->resp, &message, &timing);
    char why[600];
    if(j->end == OC_END_RAN &&
       oc_expect_apply(j->item->kase, &j->resp, message, timing, &j->check, why, sizeof(why)) ==
         OC_EXPECT_UNSUPPORTED) {
      j->end = OC_END_SKIP;
      oc_strlcpy(j->reason, why, sizeof(j->reason));
    }
    count_contract(j, message);
  }
  if(!j->check.oom && j->resp_started && j->resp.status && !response)
    j->check.oom = 1;
  if(j->check.oom || j->retries_oom) {
    /* a verdict from part of the findings would be a guess: the case is
     * an error that says why */
    j->end = OC_END_ERROR;
    oc_strlcpy(j->reason, "oacheck ran out of memory while checking this case; its findings are incomplete",
               sizeof(j->reason));
    oc_error("%s/%s: out of memory while checking", j->item->kase->suite, j->item->kase->name);
  }
  else if(j->check.limit[0] && j->end == OC_END_RAN) {
    /* oacheck's own limit, not the server's doing: an error of the run */
    j->end = OC_END_ERROR;
    snprintf(j->reason, sizeof(j->reason), "oacheck could not decide: %s", j->check.limit);
  }
  struct oc_case_outcome o;
  memset(&o, 0, sizeof(o));
  o.target = j->item->target;
  o.kase = j->item->kase;
  o.end = j->end;
  o.reason = j->reason[0] ? j->reason : NULL;
  o.request = j->req_built ? &j->req : NULL;
  o.response = response;
  o.findings = &j->findings;
  o.message = message;
  o.timing = timing;
  /* the retries were made during the transfer, outside the arena: the
   * result takes a copy made in it */
  o.retries = arena && j->retries ? cJSON_Duplicate(j->retries, 1) : j->retries;
  if(o.retries != j->retries)
    cJSON_Delete(j->retries);
  j->retries = NULL;
  o.duration_ms = j->t_start ? (double)(oc_now_ns() - j->t_start) / 1e6 : -1;
  o.source = j->source;
  o.not_run = j->not_run;
  o.verdicts = j->resp_started && j->resp.judged ? j->resp.verdicts : NULL;
  o.agents = j->resp_started ? j->resp.agents : NULL;
  /* a case whose request could not be built (no ${MODEL}, the target
   * unreachable) is in its row all the same, judged by what its suite
   * asks: its error keeps the row's cells from saying "works" */
  struct oc_request_info asked;
  if(!j->req_built) {
    const cJSON *body = oc_json_get(o.kase->request, "body");
    oc_request_info_init(&asked, oc_json_str(o.kase->request, "method"),
                         oc_json_str(o.kase->request, "path"), cJSON_IsObject(body) ? body : NULL);
  }
  o.checklist = oc_row_name(oc_row_of(o.kase->suite, o.kase->tags, o.kase->ntags,
                                      oc_json_bool(o.kase->expect, "error", 0),
                                      j->req_built ? &j->info : &asked));
  cJSON *res = oc_result_json(&o);
  annotate(j, res);
  if(!arena) {
    cJSON_Delete(o.retries);
    cJSON_Delete(o.response);
    cJSON_Delete(message);
    cJSON_Delete(timing);
  }
  /* an unsupported answer (a 501) is recorded too: it is what the server says */
  if(j->recording && (j->item->target->record_dir || r->opts->record_dir) && j->rec.status)
    record_case(j, complete);
  size_t idx = j->item->index;
  r->in_flight[idx] = j->max_in_flight;
  /* a shared-context failure with others in flight is not the verdict yet:
   * the case runs again alone (oc_run_execute), and that one is shown; what
   * this attempt gave is kept (outside the arena) for it */
  if(!j->rerun && needs_rerun(r, j, res)) {
    oc_json_arena_pause();
    cJSON_Delete(r->firsts[idx]);
    r->firsts[idx] = first_attempt(res, j->max_in_flight);
    oc_json_arena_resume();
    r->deferred[idx] = 1;
    if(arena)
      oc_json_arena_end();
    else
      cJSON_Delete(res);
    job_free(j);
    return;
  }
  /* the text first, outside the lock (with several threads it is the
   * part they do side by side); a lane reuses its buffer */
  struct oc_buf own, *text = j->lane ? &j->lane->text : &own;
  if(!j->lane)
    oc_buf_init(&own, 0);
  char err[700];
  int trc = res ? oc_spool_encode(res, idx, text, err, sizeof(err)) : OC_ENOMEM;
  run_lock(r);
  r->done++;
  if(r->tally && j->req_built) {
    struct oc_run_tally *ty = &r->tally[j->item->target - r->targets];
    ty->asked++;
    ty->unrecorded += j->unmatched;
    if(!j->unmatched && j->resp_started && (j->resp.status == 401 || j->resp.status == 403))
      ty->refused[j->resp.status == 403]++;
  }
  /* which protocols the target serves, as its own cases show (serves.h) */
  if(j->req_built)
    oc_serves_note(&j->item->target->serves, j->info.api, j->resp_started ? j->resp.status : 0,
                   j->info.previous_response_id != NULL, j->unmatched);
  if(res) {
    oc_summary_add(&r->summary, res);
    oc_deploy_tally_add(&r->deploy, res);
    /* what the writers may know without reading it back; the strings are
     * the plan's, which outlive the result */
    struct oc_result_ref *f = &r->refs[idx];
    oc_result_ref_of(f, res);
    f->target = j->item->target->name;
    f->suite = j->item->kase->suite;
    f->kase = j->item->kase->name;
  }
  if(r->on_result && res)
    r->on_result(r->ud, j->item, res, r->done, r->nitems);
  spool_result(r, j->item, res, trc, text, err, sizeof(err));
  run_unlock(r);
  /* a lane keeps an ordinary result's room, not a huge one's */
  if(!j->lane || text->alloc > (1u << 20))
    oc_buf_free(text);
  /* in the arena, every node goes at once; walking the trees to free
   * nothing would cost as much as building them */
  if(arena)
    oc_json_arena_end();
  else
    cJSON_Delete(res);
  job_free(j);
}

/* Build the request and decide whether the case can run at all. */
static int prepare(struct job *j)
{
  struct oc_target *t = j->item->target;
  const struct oc_case *k = j->item->kase;
  /* before the profile: an unreachable target's profile is a guess from
   * nothing, so "not applicable to profile openai" would be no reason;
   * every case of it is not run, and says why */
  if(!t->reachable) {
    j->end = OC_END_ERROR;
    /* said in a field, not only in the reason's words: the CI outputs
     * give such cases one line per target instead of one per case */
    j->not_run = "target-unreachable";
    snprintf(j->reason, sizeof(j->reason), "target unreachable: %s", t->error ? t->error : "");
    oc_emit(&j->check, OC_R_HTTP_TRANSPORT,
            OC_AT(.expected = "a reachable server", .actual = "unreachable"),
            "the target could not be reached: %s", t->error ? t->error : "");
    return 0;
  }
  const struct oc_protocol *kp = oc_protocol_of(oc_api_from_path(oc_json_str(k->request, "path")));
  if(kp && t->unserved[kp->id]) {
    j->end = OC_END_SKIP;
    snprintf(j->reason, sizeof(j->reason), "unsupported: the target does not serve the %s (POST %s answered %d)",
             kp->title, oc_serves_path(kp->id), t->unserved[kp->id]);
    return 0;
  }
  if(!oc_case_applies(k, t->profile ? t->profile->name : "openai")) {
    j->end = OC_END_SKIP;
    snprintf(j->reason, sizeof(j->reason), "not applicable to profile %s",
             t->profile ? t->profile->name : "openai");
    return 0;
  }
  struct oc_vars vars = {
    oc_target_vars_for(t, oc_protocol_of(oc_api_from_path(oc_json_str(k->request, "path")))),
    k->variables, 1
  };
  char err[600];
  int brc = oc_suite_build_request(k, &vars, &j->req, err, sizeof(err));
  if(brc && brc != OC_ENOTFOUND) {
    /* a request oacheck cannot build (over OC_CAP_REQUEST, a count over
     * 1,000,000, nested too deep) is the suite's error, never a skip that
     * a CI job could take for a target lacking a feature */
    j->end = OC_END_ERROR;
    snprintf(j->reason, sizeof(j->reason), "suite error: %s:%d: case '%s': the request cannot be "
             "built: %s", k->file ? k->file : k->suite, k->line, k->name, err);
    run_lock(j->run);
    j->run->suite_errors++;
    run_unlock(j->run);
    oc_error("%s", j->reason);
    return 0;
  }
  if(brc) {
    /* ${MODEL} missing means the target did not list its models: that is
     * an error; any other missing variable means the target lacks what
     * the case needs (N_CTX without /props): unsupported */
    int model = strstr(err, "${MODEL}") != NULL;
    j->end = model ? OC_END_ERROR : OC_END_SKIP;
    if(strstr(err, "${CTX_WORDS_"))
      snprintf(j->reason, sizeof(j->reason), "%s: %s",
               t->live ? "unsupported: the target cannot count tokens (POST /apply-template and /tokenize)"
                       : "not recorded: the token-count probes",
               err);
    else if(strstr(err, "${N_CTX"))
      snprintf(j->reason, sizeof(j->reason), "unsupported: the context size is unknown (no /props; "
               "give --ctx-size): %s", err);
    else
      snprintf(j->reason, sizeof(j->reason), "%s%s", model ? "" : "unsupported: ", err);
    /* why the target lists none, when identification knows: a 404 there
     * is most often a URL that is not the server's root */
    const char *why = oc_json_str(t->identity, "models_problem");
    if(model && why && t->models_status != 200)
      snprintf(j->reason, sizeof(j->reason), "no ${MODEL}: /v1/models answered HTTP %d", t->models_status);
    else if(model && why)
      snprintf(j->reason, sizeof(j->reason), "no ${MODEL}: /v1/models is not a model list");
    if(model)
      oc_emit(&j->check, OC_R_MODELS_LIST, OC_AT(.expected = "a model id", .actual = why ? "no model list" : "none"),
              "the case needs ${MODEL} but %s (give --model%s)",
              why ? why : "the target lists no model", why ? ", or the server's root" : "");
    return 0;
  }
  /* a router is told the model of every request (?model= or "model") */
  char *rpath = NULL, *rbody = NULL;
  size_t rlen = 0;
  if(oc_target_route(t, j->req.method, j->req.path, j->req.body, j->req.body_len, &rpath, &rbody,
                     &rlen)) {
    oc_built_request_free(&j->req);
    j->end = OC_END_ERROR;
    oc_strlcpy(j->reason, "out of memory", sizeof(j->reason));
    return 0;
  }
  if(rpath) {
    free(j->req.path);
    j->req.path = rpath;
  }
  if(rbody) {
    free(j->req.body);
    j->req.body = rbody;
    j->req.body_len = rlen;
    cJSON_Delete(j->req.body_json);
    j->req.body_json = cJSON_Parse(rbody);
  }
  j->req_built = 1;
  for(size_t i = 0; i < j->req.headers.count; i++)
    oc_secret_add_header(j->req.headers.items[i].name, j->req.headers.items[i].value);
  oc_request_info_init(&j->info, j->req.method, j->req.path, j->req.body_json);
  return 1;
}

static void start_response(struct job *j, uint64_t t_sent, int timing)
{
  oc_response_init(&j->resp, &j->info, &j->check, j->run->schemas, t_sent, timing,
                   j->run->opts->keep_events);
  j->resp_started = 1;
}

/* ---- replay ------------------------------------------------------------------------ */

/* The recording that answers a replayed case: the one named after the
 * case (SUITE.CASE as record names it, or CASE as record --to-suite names
 * a case after its cassette) when it holds this very request, else the
 * first with the request's key.  The same request may be recorded more
 * than once with different answers (a client's retry, an agent asking
 * again through oacheck proxy): each case must get its own. */
static const struct oc_cassette *replay_find(const struct oc_cassette_store *s,
                                             const struct oc_case *k, const char *key)
{
  char name[512];
  snprintf(name, sizeof(name), "%s.%s", k->suite ? k->suite : "", k->name ? k->name : "");
  const struct oc_cassette *c = oc_cassette_store_find_name(s, name);
  if(!c || strcmp(c->key, key) != 0)
    c = oc_cassette_store_find_name(s, k->name);
  if(c && strcmp(c->key, key) == 0)
    return c;
  return oc_cassette_store_find_key(s, key);
}

static void run_replay(struct job *j)
{
  struct oc_target *t = j->item->target;
  char key[65];
  if(oc_cassette_request_key(j->req.method, j->req.path, j->req.body, j->req.body_len, key)) {
    j->end = OC_END_ERROR;
    oc_strlcpy(j->reason, "out of memory", sizeof(j->reason));
    finish_job(j, 1, 0);
    return;
  }
  const struct oc_cassette *c = replay_find(&t->store, j->item->kase, key);
  if(!c) {
    j->unmatched = 1; /* as oacheck serve's miss is: counted for the target's tally */
    j->end = OC_END_SKIP;
    oc_strlcpy(j->reason, "not recorded", sizeof(j->reason));
    finish_job(j, 1, 0);
    return;
  }
  j->source = c->name;
  int timing = c->timing_recorded;
  uint64_t t0 = timing ? oc_now_ns() : 0, t_end = 0;
  start_response(j, t0, timing);
  oc_response_replay(&j->resp, c, t0, &t_end);
  if(!c->complete) {
    /* what arrived is still decoded, by finish_job, as a cut body */
    oc_emit(&j->check, OC_R_HTTP_TRANSPORT,
            OC_AT(.byte = (int64_t)c->body_len, .expected = "a complete exchange", .actual = "cut"),
            "the recorded exchange ended early (the connection was cut while recording)");
    j->end = OC_END_ERROR;
    oc_strlcpy(j->reason, "the recorded exchange is incomplete", sizeof(j->reason));
  }
  finish_job(j, c->complete, t_end);
}

/* ---- live --------------------------------------------------------------------------- */

static int on_head(void *ud, const struct oc_http_head *h)
{
  struct job *j = ud;
  if(oc_headers_get(h->headers, "X-Oacheck-Unmatched")) {
    /* oacheck serve has no recording of this request */
    j->unmatched = 1;
    return 1;
  }
  if(j->recording) {
    j->rec.status = h->status;
    free(j->rec.reason);
    j->rec.reason = oc_strdup(h->reason ? h->reason : "");
    free(j->rec.http_version);
    j->rec.http_version = oc_strdup(h->http_version ? h->http_version : "HTTP/1.1");
    oc_headers_free(&j->rec.headers);
    oc_headers_copy(&j->rec.headers, h->headers);
    j->rec.headers_ns = h->t_ns;
  }
  /* t_sent is only known at the end; the stream keeps absolute times */
  start_response(j, 0, 1);
  oc_response_head(&j->resp, h->status, h->headers, h->t_ns);
  return 0;
}

static int on_body(void *ud, const void *p, size_t n, uint64_t t)
{
  struct job *j = ud;
  if(j->recording && oc_cassette_add_piece(&j->rec, p, n, t)) {
    oc_warn("%s/%s: the recording was cut at the body cap", j->item->kase->suite,
            j->item->kase->name);
    j->recording = 0;
    oc_cassette_free(&j->rec);
  }
  return j->resp_started ? oc_response_body(&j->resp, p, n, t) != OC_OK : 0;
}

static void on_retry(void *ud, int attempt, int status, long delay_ms)
{
  struct job *j = ud;
  int oom = 0;
  if(!j->retries)
    j->retries = cJSON_CreateArray();
  cJSON *o = oc_json_put(&oom, j->retries, NULL, cJSON_CreateObject());
  oc_json_put(&oom, o, "attempt", cJSON_CreateNumber(attempt));
  oc_json_put(&oom, o, "status", cJSON_CreateNumber(status));
  oc_json_put(&oom, o, "delay_ms", cJSON_CreateNumber((double)delay_ms));
  if(oom) /* the result then says so instead of leaving a retry out */
    j->retries_oom = 1;
  oc_info("%s/%s: HTTP %d, retrying in %ld ms (attempt %d)", j->item->kase->suite,
          j->item->kase->name, status, delay_ms, attempt + 1);
}

static void job_done(struct job *j, const struct oc_http_outcome *o)
{
  if(j->run->stopped && o->error == OC_HTTP_ABORTED) {
    /* interrupted: not a result of the server's, and not recorded */
    job_free(j);
    return;
  }
  if(j->unmatched) {
    j->end = OC_END_SKIP;
    oc_strlcpy(j->reason, "not recorded", sizeof(j->reason));
    if(j->resp_started) {
      oc_response_free(&j->resp);
      j->resp_started = 0;
    }
    j->recording = 0;
    oc_cassette_free(&j->rec);
    finish_job(j, 1, o->t_done);
    return;
  }
  /* the case's time starts with its transfer, not when it was queued */
  if(o->t_start)
    j->t_start = o->t_start;
  /* oacheck's own budget ran out: what arrived is judged, the end is not
   * the server's (a healthy endless stream is not a cut one) */
  if(o->error == OC_HTTP_TIMEOUT_TOTAL || o->error == OC_HTTP_ABORTED)
    j->check.partial = 1;
  if(j->resp_started) {
    j->resp.t_sent = o->t_sent;
    struct oc_stream_timing *tm = oc_response_stream_timing(&j->resp);
    if(tm)
      tm->t_sent = o->t_sent;
  }
  if(j->recording) {
    /* cassette times count from the request's last byte */
    for(size_t i = 0; i < j->rec.npieces; i++)
      j->rec.pieces[i].t_ns = j->rec.pieces[i].t_ns > o->t_sent ? j->rec.pieces[i].t_ns - o->t_sent : 0;
    j->rec.headers_ns = j->rec.headers_ns > o->t_sent ? j->rec.headers_ns - o->t_sent : 0;
    j->rec.timing_recorded = 1;
  }
  int complete = o->error == OC_HTTP_OK;
  /* a body that ended before the exchange failed (its trailers broke a
   * cap) is judged as the complete body it is */
  int body_complete = complete || o->body_complete;
  if(o->error == OC_HTTP_TIMEOUT_TOTAL) {
    /* oacheck's own budget, not a failure the server committed: the case
     * is an error of the run, with no server rule (a healthy stream that
     * outlasts --timeout is not a cut one) */
    j->end = OC_END_ERROR;
    snprintf(j->reason, sizeof(j->reason),
             "oacheck's --timeout (%.3g s) ended the exchange before the server did: %s",
             (double)j->run->opts->timeout_ms / 1000.0, o->message);
  }
  else if(!complete) {
    j->end = OC_END_ERROR;
    snprintf(j->reason, sizeof(j->reason), "%s: %s", oc_http_error_name(o->error), o->message);
    oc_emit(&j->check, OC_R_HTTP_TRANSPORT,
            OC_AT(.byte = (int64_t)o->bytes, .expected = "a complete exchange",
                  .actual = oc_http_error_name(o->error)),
            "%s", o->message);
  }
  /* what arrived is decoded either way: a cut stream is still examined */
  finish_job(j, body_complete, o->t_done);
}

static void on_done(void *ud, const struct oc_http_outcome *o);

static int submit_live(struct job *j, struct oc_http *http)
{
  struct oc_target *t = j->item->target;
  const struct oc_run_options *opt = j->run->opts;
  j->url = oc_url_join(t->base, j->req.path);
  if(!j->url || oc_target_request_headers(t, &j->send_headers) ||
     oc_headers_copy(&j->send_headers, &j->req.headers))
    return OC_ENOMEM;
  if((j->info.api == OC_API_MESSAGES || j->info.api == OC_API_MESSAGES_COUNT_TOKENS) &&
     oc_target_messages_headers(t, &j->send_headers))
    return OC_ENOMEM;
  if(opt->record_dir || t->record_dir) {
    oc_cassette_init(&j->rec);
    j->recording = 1;
    j->rec.method = oc_strdup(j->req.method);
    j->rec.path = oc_strdup(j->req.path);
    if(j->req.body) {
      j->rec.req_body = oc_strndup(j->req.body, j->req.body_len);
      j->rec.req_body_len = j->req.body_len;
    }
    /* Only the case's own headers are recorded: the target's (a targets
     * file's credentials, the API key) are the deployment's business,
     * whatever their names; the cassette writer drops secrets as well. */
    for(size_t i = 0; i < j->req.headers.count; i++)
      if(!oc_header_is_secret(j->req.headers.items[i].name))
        oc_headers_add(&j->rec.req_headers, j->req.headers.items[i].name,
                       j->req.headers.items[i].value);
    char *src = oc_asprintf("recorded live from target '%s'", t->name);
    j->rec.source = src;
    oc_cassette_update_key(&j->rec);
  }
  struct oc_http_request rq;
  oc_http_request_init(&rq);
  rq.method = j->req.method;
  rq.url = j->url;
  rq.headers = &j->send_headers;
  rq.body = j->req.body;
  rq.body_len = j->req.body_len;
  rq.connect_timeout_ms = opt->connect_timeout_ms;
  rq.idle_timeout_ms = opt->idle_timeout_ms;
  rq.total_timeout_ms = opt->timeout_ms;
  rq.max_retries = opt->retries;
  rq.insecure = opt->insecure;
  rq.cacert = opt->cacert;
  static const struct oc_http_callbacks cb = { on_head, on_body, on_retry, on_done };
  return oc_http_submit(http, &rq, &cb, j);
}

/* Start waiting cases of one target while this lane's share of it has
 * room: each one's job is made now (outside the lock), its request
 * built, and a case that cannot run finishes here. */
static void pump(struct lane *l, struct tstate *ts)
{
  struct oc_run *r = ts->run;
  size_t t = (size_t)(ts - l->ts);
  for(;;) {
    run_lock(r);
    /* a stopped run starts nothing more */
    if(oc_run_signal() || r->oom || l->here[t] >= l->share[t] || ts->qhead >= ts->nq) {
      run_unlock(r);
      return;
    }
    size_t i = ts->queue[ts->qhead++];
    l->here[t]++; /* its place, held while its job is made */
    run_unlock(r);
    struct job *j = job_new(r, &r->items[i]);
    if(!j) {
      run_lock(r);
      r->oom = 1;
      l->here[t]--;
      run_unlock(r);
      return;
    }
    j->lane = l;
    if(ts->alone) { /* one lane: nothing else reads firsts now */
      j->rerun = 1;
      j->first = r->firsts[i];
      r->firsts[i] = NULL;
    }
    if(!prepare(j)) {
      run_lock(r);
      l->here[t]--;
      run_unlock(r);
      finish_job(j, 1, 0);
      continue;
    }
    j->ts = ts;
    run_lock(r);
    int slot = 0;
    while(ts->running[slot])
      slot++;
    j->slot = slot;
    ts->running[slot] = j;
    ts->inflight++;
    /* every case in flight on the target, on any lane, sees the count */
    for(int k = 0; k < ts->limit; k++)
      if(ts->running[k] && ts->running[k]->max_in_flight < ts->inflight)
        ts->running[k]->max_in_flight = ts->inflight;
    run_unlock(r);
    if(submit_live(j, l->http)) {
      run_lock(r);
      ts->running[slot] = NULL;
      ts->inflight--;
      l->here[t]--;
      run_unlock(r);
      j->end = OC_END_ERROR;
      oc_strlcpy(j->reason, "the request could not be submitted", sizeof(j->reason));
      finish_job(j, 1, 0);
    }
  }
}

static void on_done(void *ud, const struct oc_http_outcome *o)
{
  struct job *j = ud;
  struct tstate *ts = j->ts;
  struct lane *l = j->lane;
  run_lock(j->run);
  ts->running[j->slot] = NULL;
  ts->inflight--;
  l->here[ts - l->ts]--;
  run_unlock(j->run);
  job_done(j, o);
  pump(l, ts);
}

static int target_limit(const struct oc_run *r, const struct oc_target *t, int alone)
{
  if(alone)
    return 1;
  int n = r->opts->jobs > 0 ? r->opts->jobs : t->jobs > 0 ? t->jobs : 4;
  return n < 1 ? 1 : n > 256 ? 256 : n;
}

/* How many lanes: --threads, else one per CPU; never more than the cases
 * that can be in flight at once (the largest target limit), nor than the
 * live cases. */
static size_t lane_count(const struct oc_run *r, const struct tstate *ts, size_t nts, int alone)
{
  long want = r->opts->threads;
  if(want <= 0) {
    want = sysconf(_SC_NPROCESSORS_ONLN);
    if(want < 1)
      want = 1;
  }
  if(want > OC_RUN_MAX_THREADS)
    want = OC_RUN_MAX_THREADS;
  int widest = 0;
  size_t queued = 0;
  for(size_t t = 0; t < nts; t++)
    if(ts[t].nq) {
      queued += ts[t].nq;
      if(ts[t].limit > widest)
        widest = ts[t].limit;
    }
  if(alone || widest <= 1 || queued <= 1)
    return 1;
  if(want > widest)
    want = widest;
  if((size_t)want > queued)
    want = (long)queued;
  return (size_t)want;
}

static void lane_drive(struct lane *l)
{
  for(size_t t = 0; t < l->nts; t++)
    pump(l, &l->ts[t]);
  /* in slices, so that a signal is noticed within a fraction of a second */
  while(!oc_run_signal() && oc_http_run(l->http, 200) > 0)
    ;
}

static void *lane_thread(void *arg)
{
  lane_drive(arg);
  oc_json_arena_release(); /* this thread's kept block */
  return NULL;
}

static void lanes_free(struct lane *lanes, size_t n)
{
  for(size_t k = 0; lanes && k < n; k++) {
    /* a stopped run abandons what is in flight (job_done drops them) */
    oc_http_free(lanes[k].http);
    free(lanes[k].share);
    free(lanes[k].here);
    oc_buf_free(&lanes[k].text);
  }
  free(lanes);
}

/* Run the live cases queued in ts[0..nts) on n lanes: the calling thread
 * drives the first, a thread each the others.  OC_OK or OC_ENOMEM. */
static int run_lanes(struct oc_run *r, struct tstate *ts, size_t nts, size_t n)
{
  struct lane *lanes = calloc(n, sizeof(*lanes));
  if(!lanes)
    return OC_ENOMEM;
  for(size_t k = 0; k < n; k++) {
    struct lane *l = &lanes[k];
    l->run = r;
    l->ts = ts;
    l->nts = nts;
    oc_buf_init(&l->text, 0);
    l->share = calloc(nts ? nts : 1, sizeof(*l->share));
    l->here = calloc(nts ? nts : 1, sizeof(*l->here));
    int total = 0;
    for(size_t t = 0; l->share && t < nts; t++) {
      /* the target's limit dealt out: lane k gets limit/n, one more
       * while the remainder lasts */
      l->share[t] = ts[t].limit / (int)n + ((int)k < ts[t].limit % (int)n);
      total += l->share[t];
    }
    /* libcurl's global state is set up here, before any thread starts */
    if(!l->share || !l->here || !(l->http = oc_http_new(total > 0 ? total : 1))) {
      lanes_free(lanes, n);
      return OC_ENOMEM;
    }
  }
  pthread_mutex_t lock;
  size_t started = 1;
  if(n > 1) {
    pthread_mutex_init(&lock, NULL);
    r->lock = &lock;
    oc_json_init(); /* cJSON's hooks, set once before the threads read them */
    for(; started < n; started++)
      if(pthread_create(&lanes[started].thread, NULL, lane_thread, &lanes[started]))
        break; /* the lanes running take the cases */
  }
  oc_debug("live cases on %zu thread%s", started, started == 1 ? "" : "s");
  lane_drive(&lanes[0]);
  for(size_t k = 1; k < started; k++)
    pthread_join(lanes[k].thread, NULL);
  /* a lane that could not start leaves its share of a target's cases in
   * the queue: the first lane takes them */
  for(size_t k = started; k < n; k++)
    for(size_t t = 0; t < nts; t++)
      lanes[0].share[t] += lanes[k].share[t];
  if(started < n)
    lane_drive(&lanes[0]);
  r->stopped = oc_run_signal();
  /* abandoned transfers end in job_done on this thread: one at a time */
  if(n > 1) {
    r->lock = NULL;
    pthread_mutex_destroy(&lock);
  }
  lanes_free(lanes, n);
  return OC_OK;
}

/* Run the plan items idx[0..n) (idx NULL: the first n); alone: one in
 * flight per target, each job taking r->firsts[i], what its first attempt
 * gave.  Replayed items run in plan order first, live ones as their
 * targets have room, on one or more lanes (threads). */
static int execute(struct oc_run *r, const size_t *idx, size_t n, int alone)
{
  int rc = OC_OK;
  struct tstate *ts = calloc(r->ntargets ? r->ntargets : 1, sizeof(*ts));
  if(!ts)
    return OC_ENOMEM;
  /* each target's queue holds its own items (indexes, 8 bytes each) */
  for(size_t k = 0; k < n; k++) {
    const struct oc_plan_item *it = &r->items[idx ? idx[k] : k];
    if(it->target->live)
      ts[it->target - r->targets].nq++;
  }
  for(size_t t = 0; t < r->ntargets; t++) {
    ts[t].run = r;
    ts[t].alone = alone;
    ts[t].target = &r->targets[t];
    ts[t].limit = target_limit(r, &r->targets[t], alone);
    ts[t].running = calloc((size_t)ts[t].limit, sizeof(*ts[t].running));
    ts[t].queue = calloc(ts[t].nq ? ts[t].nq : 1, sizeof(*ts[t].queue));
    if(!ts[t].running || !ts[t].queue) {
      rc = OC_ENOMEM;
      goto out;
    }
    ts[t].nq = 0;
  }
  int queued = 0;
  for(size_t k = 0; k < n && !r->oom && !(r->stopped = oc_run_signal()); k++) {
    size_t i = idx ? idx[k] : k;
    struct oc_plan_item *it = &r->items[i];
    if(it->target->live) {
      struct tstate *s = &ts[it->target - r->targets];
      s->queue[s->nq++] = i;
      queued = 1;
      continue;
    }
    struct job *j = job_new(r, it);
    if(!j) {
      r->oom = 1;
      break;
    }
    if(alone) {
      j->rerun = 1;
      j->first = r->firsts[i];
      r->firsts[i] = NULL;
    }
    if(!prepare(j))
      finish_job(j, 1, 0);
    else
      run_replay(j);
  }
  if(!queued || r->oom || r->stopped)
    goto out;
  rc = run_lanes(r, ts, r->ntargets, lane_count(r, ts, r->ntargets, alone));
out:
  if(r->oom)
    rc = OC_ENOMEM;
  for(size_t t = 0; t < r->ntargets; t++) {
    free(ts[t].running);
    free(ts[t].queue);
  }
  free(ts);
  return rc;
}

/* What a case's first attempt gave, for its run alone. */
static cJSON *first_attempt(const cJSON *res, int in_flight)
{
  int oom = 0;
  cJSON *o = cJSON_CreateObject();
  if(!o)
    return NULL;
  oc_json_put_str(&oom, o, "status", oc_json_str(res, "status") ? oc_json_str(res, "status") : "fail");
  oc_json_put(&oom, o, "in_flight", cJSON_CreateNumber(in_flight));
  cJSON *rules = oc_json_put(&oom, o, "rules", cJSON_CreateArray());
  const char *msg = NULL;
  const cJSON *f;
  cJSON_ArrayForEach(f, oc_json_arr(res, "findings"))
  {
    if(!oc_streq(oc_json_str(f, "severity"), "error") || oc_json_bool(f, "allowed", 0))
      continue;
    const char *rule = oc_json_str(f, "rule");
    if(rule && rules)
      oc_json_put(&oom, rules, NULL, cJSON_CreateString(rule));
    if(!msg)
      msg = oc_json_str(f, "message");
  }
  if(msg)
    oc_json_put_str(&oom, o, "message", msg);
  const cJSON *dg = oc_result_diagnosis(res);
  if(dg)
    oc_json_put(&oom, o, "diagnosis", cJSON_Duplicate(dg, 1));
  if(oom) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

int oc_run_execute(struct oc_run *r, char *err, size_t errlen)
{
  free(r->refs);
  free(r->tally);
  r->refs = calloc(r->nitems + 1, sizeof(*r->refs));
  r->tally = calloc(r->ntargets + 1, sizeof(*r->tally));
  if(!r->refs || !r->tally) {
    snprintf(err, errlen, "out of memory");
    return OC_ENOMEM;
  }
  int rc = oc_spool_open(&r->spool, r->opts->spool_dir, r->nitems, err, errlen);
  if(rc)
    return rc;
  r->spool_open = 1;
  rc = execute(r, NULL, r->nitems, 0);
  if(rc || r->stopped) /* a stopped run runs nothing again */
    goto out;
  /* the cases that ran out of a shared context while others were in
   * flight, and were held back by finish_job: once more, one at a time */
  size_t n = 0;
  for(size_t i = 0; i < r->nitems; i++)
    n += r->deferred[i];
  if(!n)
    goto out;
  size_t *idx = calloc(n, sizeof(*idx));
  if(!idx) {
    rc = OC_ENOMEM;
    goto out;
  }
  size_t k = 0;
  for(size_t i = 0; i < r->nitems; i++)
    if(r->deferred[i]) {
      idx[k++] = i;
      r->deferred[i] = 0;
    }
  oc_info("%zu case%s ran out of the target's shared context while other requests were in "
          "flight: running %s again, one at a time", n, n == 1 ? "" : "s", n == 1 ? "it" : "them");
  r->reruns += n;
  rc = execute(r, idx, n, 1);
  free(idx);
out:
  if(rc)
    snprintf(err, errlen, "out of memory");
  return rc;
}

int oc_run_replace_result(struct oc_run *r, size_t i, const cJSON *res)
{
  char err[700];
  if(!r->spool_open || !res)
    return OC_EUSAGE;
  int rc = oc_spool_replace_json(&r->spool, i, res, oc_result_status(res), err, sizeof(err));
  if(rc) {
    oc_error("%s", err);
    return rc;
  }
  struct oc_result_ref *f = &r->refs[i];
  oc_result_ref_of(f, res);
  f->target = r->items[i].target->name;
  f->suite = r->items[i].kase->suite;
  f->kase = r->items[i].kase->name;
  return OC_OK;
}

int oc_run_recount(struct oc_run *r)
{
  oc_summary_free(&r->summary);
  oc_deploy_tally_free(&r->deploy);
  oc_summary_init(&r->summary);
  oc_deploy_tally_init(&r->deploy);
  for(size_t i = 0; i < r->nitems; i++) {
    cJSON *res = oc_run_result(r, i);
    if(!res) {
      if(oc_spool_has(&r->spool, i))
        return OC_ENOMEM;
      continue;
    }
    oc_summary_add(&r->summary, res);
    oc_deploy_tally_add(&r->deploy, res);
    cJSON_Delete(res);
  }
  return r->summary.oom || r->deploy.oom ? OC_ENOMEM : OC_OK;
}

cJSON *oc_run_result(struct oc_run *r, size_t i)
{
  if(!r->spool_open || !oc_spool_has(&r->spool, i))
    return NULL;
  char err[700];
  cJSON *res = oc_spool_get(&r->spool, i, err, sizeof(err));
  if(!res)
    oc_error("%s", err);
  return res;
}

cJSON *oc_run_frame(const struct oc_run *r, const char *command, const char *note,
                    const char *started)
{
  int live = 0, replay = 0;
  for(size_t i = 0; i < r->ntargets; i++) {
    if(r->targets[i].live)
      live = 1;
    else
      replay = 1;
  }
  cJSON *doc = oc_results_doc_new(live && replay ? "mixed" : live ? "live" : "replay", started, note,
                                  command);
  if(!doc)
    return NULL;
  int oom = 0;
  cJSON *meta = oc_json_obj(doc, "oacheck");
  cJSON *suites = oc_json_put(&oom, meta, "suites", cJSON_CreateArray());
  for(size_t i = 0; !oom && i < r->suites->count; i++)
    oc_json_put(&oom, suites, NULL, cJSON_CreateString(r->suites->items[i].name));
  /* a run of one shard has none (oc_shard_json says NULL); else NULL is
   * memory running out */
  if(r->opts->shard && r->opts->shard->n > 1)
    oc_json_put(&oom, meta, "shard", oc_shard_json(r->opts->shard));
  oc_json_put(&oom, meta, "policy", oc_verdict_policy_json(r->opts->strict, r->opts->clients));
  cJSON *targets = oc_json_arr(doc, "targets");
  for(size_t i = 0; !oom && i < r->ntargets; i++)
    oc_json_put(&oom, targets, NULL, oc_target_json(&r->targets[i]));
  /* counted as the cases ended */
  oc_json_set(&oom, doc, "summary", oc_summary_json(&r->summary, -1));
  /* a stopped run has the finished cases only, and says so */
  int sig = r->stopped ? r->stopped : oc_run_signal();
  if(sig) {
    char why[200];
    snprintf(why, sizeof(why), "interrupted by %s after %zu of %zu cases; the cases that had not "
             "finished are not in the results", oc_run_signal_name(sig), r->done, r->nitems);
    oc_json_put(&oom, doc, "incomplete", cJSON_CreateBool(1));
    oc_json_put_str(&oom, doc, "incomplete_reason", why);
  }
  if(oom) {
    cJSON_Delete(doc);
    return NULL;
  }
  oc_secret_mask_json(doc);
  return doc;
}

cJSON *oc_run_results(const struct oc_run *r, const char *command, const char *note,
                      const char *started)
{
  cJSON *doc = oc_run_frame(r, command, note, started);
  if(!doc)
    return NULL;
  /* every case has a result (finish_job built it); a missing one is a
   * result that could not be built, and the document would lie */
  int oom = r->lost != 0;
  cJSON *results = oc_json_arr(doc, "results");
  /* a stopped run has the finished cases only (oc_run_frame says so) */
  int sig = r->stopped ? r->stopped : oc_run_signal();
  for(size_t i = 0; !oom && i < r->nitems; i++)
    if(!sig || (r->spool_open && oc_spool_has(&r->spool, i)))
      oc_json_put(&oom, results, NULL, oc_run_result((struct oc_run *)r, i));
  if(oom) {
    cJSON_Delete(doc);
    return NULL;
  }
  return doc;
}

int oc_run_results_of(struct oc_run *r, const cJSON *frame, struct oc_results *rs)
{
  size_t n = r->spool_open ? r->spool.stored : 0;
  struct oc_result_ref *refs = calloc(n + 1, sizeof(*refs));
  size_t *at = calloc(n + 1, sizeof(*at));
  if(!refs || !at) {
    free(refs);
    free(at);
    return OC_ENOMEM;
  }
  size_t k = 0;
  for(size_t i = 0; i < r->nitems && k < n; i++)
    if(oc_spool_has(&r->spool, i)) {
      refs[k] = r->refs[i];
      at[k++] = i;
    }
  oc_results_from_spool(rs, frame, &r->spool, refs, at, k);
  rs->deploy = &r->deploy;
  return OC_OK;
}

void oc_run_free(struct oc_run *r)
{
  if(r->spool_open)
    oc_spool_close(&r->spool);
  r->spool_open = 0;
  oc_summary_free(&r->summary);
  oc_deploy_tally_free(&r->deploy);
  free(r->refs);
  r->refs = NULL;
  free(r->tally);
  r->tally = NULL;
  for(size_t i = 0; r->firsts && i < r->nitems; i++)
    cJSON_Delete(r->firsts[i]);
  free(r->firsts);
  r->firsts = NULL;
  free(r->in_flight);
  free(r->deferred);
  r->in_flight = NULL;
  r->deferred = NULL;
  free(r->items);
  r->items = NULL;
  r->nitems = 0;
}
