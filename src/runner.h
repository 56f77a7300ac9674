/* runner.h — the plan (targets × cases, filtered, tagged, sharded) and its
 * execution: live cases over libcurl multi handles, one per lane (thread),
 * with N in flight per target dealt out among the lanes,
 * replayed ones from the target's recordings, every response through the
 * same decoder (response.c) and the case's expectations (expect.c), each
 * case ending as one results-schema object.  Suites are loaded by the
 * caller (cmd_run.c); reports render the results afterwards. */
#ifndef OC_RUNNER_H
#define OC_RUNNER_H

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stddef.h>

#include "response.h"
#include "deployment.h"
#include "report.h"
#include "results_json.h"
#include "shard.h"
#include "spool.h"
#include "suite.h"
#include "target.h"

struct oc_run_options {
  int jobs;                 /* live cases in flight per target: 0 = each target's own
                               (oc_target.jobs, else 4) */
  int threads;              /* threads sharing the live cases (each its own transfer loop):
                               0 = one per CPU, at most OC_RUN_MAX_THREADS */
  long timeout_ms;          /* total per case (default 120 s) */
  long idle_timeout_ms;     /* no byte for this long (default 60 s) */
  long connect_timeout_ms;  /* default 10 s */
  int retries;              /* 429/503 retries (default 2) */
  int insecure;
  const char *cacert;
  const char *const *filters; /* globs on "suite/case" or "case" */
  size_t nfilters;
  const char *const *tags;
  size_t ntags;
  const struct oc_shard *shard; /* NULL or n <= 1: every case (shard.h) */
  const struct oc_ruleset *allow; /* --allow, or NULL */
  int keep_events;          /* keep the event log for reports (default 1) */
  const char *record_dir;   /* record mode: write a cassette per live case here */
  int rerun_alone;          /* a case that ran out of a shared context while others were in
                               flight runs again alone, and that is its result (set when the
                               concurrency is the target's own, not --jobs) */
  int by_target;            /* plan every case of a target before the next target's */
  const char *spool_dir;    /* where the results spool goes (NULL: $TMPDIR) */
  /* The verdict policy (verdict.h): --strict, and the clients whose break
   * fails a case (a bit per enum oc_client_id; default all seven). */
  int strict;
  unsigned clients;
};

void oc_run_options_init(struct oc_run_options *o);

#define OC_RUN_MAX_THREADS 16

struct oc_plan_item {
  struct oc_target *target;
  const struct oc_case *kase;
  size_t index;             /* position in the plan */
};

/* Called as each case ends (in completion order), for progress output. */
typedef void (*oc_run_result_cb)(void *ud, const struct oc_plan_item *item, const cJSON *result,
                                 size_t done, size_t total);

/* What one target's cases met, counted as they end, for what is said
 * once per target after the summary (cmd_run.c): a key refused on every
 * case, recordings that hold none of the selected cases. */
struct oc_run_tally {
  size_t asked;             /* cases whose request was built (sent, or looked up) */
  size_t unrecorded;        /* of those, "not recorded": no cassette of a replay target, or
                               oacheck serve's X-Oacheck-Unmatched */
  size_t refused[2];        /* answered HTTP 401, HTTP 403 */
};

struct oc_run {
  const struct oc_run_options *opts;
  struct oc_target *targets;
  size_t ntargets;
  const struct oc_suite_set *suites;
  const struct oc_schemas *schemas;
  struct oc_plan_item *items;
  size_t nitems;
  /* Finished results, by plan index, on disk (spool.h): a result is
   * written there as its case ends and not kept in memory. */
  struct oc_spool spool;
  int spool_open;
  size_t lost;              /* results the spool could not take */
  struct oc_summary summary; /* counted as each case ends */
  struct oc_deploy_tally deploy; /* the deployment's lines, tallied as each case ends */
  struct oc_result_ref *refs; /* by plan index: what writers know of a result unread */
  struct oc_run_tally *tally; /* by target index, made by oc_run_execute */
  oc_run_result_cb on_result;
  void *ud;
  size_t done;
  double started_ms;
  int stopped;              /* the signal (SIGINT, SIGTERM) that stopped the run, 0 */
  size_t suite_errors;      /* cases whose request could not be built: exit status 2 */
  int *in_flight;           /* per plan item: most requests in flight on its target while it
                               ran (live), 0 for a replay */
  size_t reruns;            /* cases run again alone (rerun_alone) */
  unsigned char *deferred;  /* per plan item: held back for its run alone */
  cJSON **firsts;           /* per plan item held back: what its first attempt gave */
  int oom;                  /* a job could not be made */
  /* While several threads run live cases: what they share (the counts
   * above, the spool, on_result, the targets' queues) is taken under it;
   * NULL with one thread. */
  pthread_mutex_t *lock;
};

/* Where record mode writes t's cassettes: the record directory itself
 * when the run has one target (as recordings always were), else its
 * subdirectory named after the target (created here), so that two
 * targets never overwrite each other's SUITE.CASE.  Caller frees; NULL
 * when it cannot be created (logged) or memory runs out. */
char *oc_run_record_dir(const struct oc_run *r, const struct oc_target *t);
/* Give each of ts[0..n) its own recording directory DIR/NAME (created;
 * t->record_dir), as record mode does with several targets, before they
 * are identified (their identification is recorded there too) or
 * expanded by model (DIR/NAME/MODEL).  OC_OK, or OC_ENOMEM / OC_EIO
 * (logged). */
int oc_run_record_dirs(struct oc_target *ts, size_t n, const char *dir);

/* Catch SIGINT and SIGTERM from here on: the run stops (cases in flight
 * are abandoned, no new one starts) and the caller writes the finished
 * cases as an incomplete run.  A second signal takes the default action. */
void oc_run_catch_signals(void);
/* The signal caught since oc_run_catch_signals, or 0. */
int oc_run_signal(void);
/* "SIGINT", "SIGTERM", else "a signal": how the results name it. */
const char *oc_run_signal_name(int sig);

/* Build the plan from every case of every suite × every target, keeping
 * what the filters, tags and shard select.  Sharding is by case (the same
 * cases on every target): oc_shard_of (shard.c) by hash of suite/case or
 * by a durations table, so a case keeps its shard when others are added. */
int oc_run_plan(struct oc_run *r);
/* Before the plan, whatever the targets: does every --filter and every
 * --tag of o take at least one case of set, and do they together select
 * one?  OC_OK; OC_ENOTFOUND with msg naming each option that takes none
 * (or saying that only their combination is empty), for a usage error;
 * OC_ENOMEM.  A shard left empty by --shard is not judged here: with
 * more shards than cases some are empty, legitimately. */
int oc_run_check_selection(const struct oc_run_options *o, const struct oc_suite_set *set,
                           struct oc_buf *msg);
/* Run every planned case: replayed ones in plan order, live ones with at
 * most jobs in flight per target (opts->jobs, else the target's own, else
 * 4), each case's job made when its target has room, so the cases not yet
 * started cost only their plan entry.  Each result gets the target's
 * deployment diagnoses and the server's wait time (deployment.h), and is
 * spooled as it ends.  Returns OC_OK (case failures are results, not
 * errors), OC_ENOMEM, or OC_EIO with err naming the spool directory that
 * could not be used. */
int oc_run_execute(struct oc_run *r, char *err, size_t errlen);
/* The result of plan item i parsed from the spool, or NULL when it has
 * none (it did not run, or memory ran out); caller deletes. */
cJSON *oc_run_result(struct oc_run *r, size_t i);
/* Store res (borrowed) as plan item i's result instead of the one it had
 * (a later check added to it); call oc_run_recount once after such
 * replacements.  OC_OK or the spool's error (logged). */
int oc_run_replace_result(struct oc_run *r, size_t i, const cJSON *res);
/* The summary and the deployment tally counted again from the spool.
 * OC_OK or OC_ENOMEM. */
int oc_run_recount(struct oc_run *r);
/* The whole results document (schemas/results.schema.json); caller
 * deletes.  mode_note may be NULL.  NULL when memory runs out, also when
 * a case's result could not be built: never a document missing a case.  A
 * run stopped by a signal (r->stopped, or oc_run_signal() during
 * identification) is marked "incomplete" with the reason. */
cJSON *oc_run_results(const struct oc_run *r, const char *command, const char *note,
                      const char *started);
/* The document without results: oacheck, targets, and the summary
 * counted as the cases ended.  Caller deletes; NULL when memory runs out. */
cJSON *oc_run_frame(const struct oc_run *r, const char *command, const char *note,
                    const char *started);
/* The finished results for the report writers (report.h): read one at a
 * time from the spool, frame (borrowed) as their document.  rs borrows r:
 * free rs first.  OC_OK or OC_ENOMEM. */
struct oc_results;
int oc_run_results_of(struct oc_run *r, const cJSON *frame, struct oc_results *rs);
void oc_run_free(struct oc_run *r);

/* Does glob (with * and ?) match s? */
int oc_glob_match(const char *glob, const char *s);

#endif
