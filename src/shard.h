/* shard.h — which case runs in which of N shards, and whether a merged
 * run holds every shard.  A case's shard depends only on its suite and
 * name (a jump consistent hash of "suite/case"), or, with a durations
 * table from an earlier run's results, on that table (longest first into
 * the least-loaded shard; cases it does not know by hash).  Where K and N
 * come from (--shard K/N, --shard auto and the CI engines' variables) is
 * here too.  The plan itself is runner.c's; merging is report_merge.c's. */
#ifndef OC_SHARD_H
#define OC_SHARD_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* How the cases were split.  The names are the results' shard.method. */
enum oc_shard_method { OC_SHARD_HASH = 0, OC_SHARD_DURATIONS };
const char *oc_shard_method_name(enum oc_shard_method m);

/* One run's shard: k of n (1-based), how cases were assigned, where k and
 * n came from, and for durations the table. */
struct oc_shard_entry {
  char *key;   /* "suite\x1fcase" */
  int shard;   /* 0-based */
  double ms;   /* recorded duration, summed over the file's targets */
};

struct oc_shard {
  int k, n;                     /* 1-based k of n; n 0 or 1: no sharding */
  enum oc_shard_method method;
  char source[48];              /* "option", "OACHECK_SHARD_INDEX", "CI_NODE_INDEX", ... */
  struct oc_shard_entry *table; /* sorted by key */
  size_t ntable;
  char digest[17];              /* FNV-1a 64 of the table, hex ("" without one) */
};

void oc_shard_init(struct oc_shard *s);
void oc_shard_free(struct oc_shard *s);

/* "K/N" into s (1 <= K <= N <= 10000); source "option".  Returns OC_OK,
 * or OC_EUSAGE with err saying what was wrong. */
int oc_shard_parse(struct oc_shard *s, const char *arg, char *err, size_t errlen);

/* How an environment variable is read (getenv in the program, a table
 * in the tests). */
typedef const char *(*oc_getenv_fn)(const char *name);

/* --shard auto: k and n from the environment, the first of
 *   OACHECK_SHARD_INDEX (1-based) and OACHECK_SHARD_TOTAL   any engine (GitHub Actions: the matrix)
 *   CI_NODE_INDEX (1-based) and CI_NODE_TOTAL               GitLab CI parallel:
 *   BUILDKITE_PARALLEL_JOB (0-based) and _JOB_COUNT         Buildkite parallelism
 *   JOB_COMPLETION_INDEX (0-based), the count from total    Kubernetes Indexed Jobs
 * total is --shard-total (0: not given), else OACHECK_SHARD_TOTAL; given
 * with an engine that sets its own count, the two must agree.  Returns
 * OC_OK, or OC_EUSAGE with err naming the variable and its value (or
 * every variable looked for when none is set). */
int oc_shard_from_env(struct oc_shard *s, oc_getenv_fn getenv_fn, long total, char *err,
                      size_t errlen);

/* Balance by the recorded durations of an earlier run's results doc
 * (borrowed; cases keyed by suite and case, durations summed over
 * targets, results without a duration ignored): every case the doc knows
 * is placed, longest first (ties by key), into the shard with the least
 * recorded time so far (ties: the lowest).  s->n must be set.  OC_OK,
 * OC_ENOMEM, or OC_EUSAGE when the doc has no case with a duration. */
int oc_shard_balance(struct oc_shard *s, const cJSON *durations, char *err, size_t errlen);

/* The 0-based shard of suite/case among n: the durations table when it
 * knows the case, else the jump consistent hash of "suite/case", so a case
 * keeps its shard when others are added or removed. */
int oc_shard_of(const struct oc_shard *s, const char *suite, const char *kase);
/* The hash alone (n >= 1). */
int oc_shard_hash(const char *suite, const char *kase, int n);

/* The run's shard as the results' oacheck.shard: {index, count, method,
 * source[, durations: {cases, digest}]}; NULL when not sharded or out of
 * memory (caller deletes). */
cJSON *oc_shard_json(const struct oc_shard *s);

/* ---- merged runs ------------------------------------------------------- */

/* What the shards of merged inputs (borrowed) add up to, as the merged
 * results' oacheck.shards, or NULL when no input was a shard (or memory
 * ran out: *nomem set):
 *   { "count": N, "method": M, "consistent": bool, "problem": "..."?,
 *     "targets": [ { "target", "held": [k...], "missing": [k...] } ] }
 * An input that is itself a merge contributes what it held; an input
 * without a shard covers its targets whole.  Inputs split differently
 * (other count, method or durations table) make it inconsistent. */
cJSON *oc_shards_merge(const cJSON *const *docs, size_t n, int *nomem);

/* How many shards oacheck.shards of doc says are missing (summed over
 * targets), plus 1 when it is inconsistent.  When text is not NULL, one
 * line per problem is appended ("shard 3 of 4 is missing for target X:
 * its cases did not run"), raw: the caller escapes for its medium. */
long oc_shards_problems(const cJSON *doc, struct oc_buf *text);

#endif
