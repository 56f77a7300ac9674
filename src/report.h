/* report.h — the frame of a results document, the results as writers see
 * them (one at a time, from a document or from a run's spool), the file a
 * report streams into, and writing the reports a command was asked for
 * (--json, --junit, --html), shared by run, templates, pin and report.
 * The renderers themselves are report_junit.c, report_html.c and
 * report_ci.c; the console is report_console.c. */
#ifndef OC_REPORT_H
#define OC_REPORT_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "agent.h"
#include "client.h"
#include "results_json.h"
#include "spool.h"
#include "util.h"

/* A new results document: {"oacheck": {version, started, mode[, note]
 * [, command]}, "targets": [], "summary": {}, "results": []}.  started
 * NULL means now.  Caller deletes; NULL when memory runs out. */
cJSON *oc_results_doc_new(const char *mode, const char *started, const char *note,
                          const char *command);

/* ---- results one at a time ------------------------------------------------ */

/* What a writer may know of a result without reading it: enough to group,
 * count and order (failures first) in passes over a few bytes a case. */
struct oc_deploy_tally;

struct oc_result_ref {
  const char *target, *suite, *kase; /* borrowed from the source; NULL when absent */
  enum oc_status status;
  long warnings;                     /* findings of severity warning */
  double duration_ms;                /* 0 when unknown */
  unsigned flags;                    /* OC_REF_* */
  /* for the client matrix (matrix.c) and the CI summary's client table
   * without reading every result: the case's checklist row (matrix.h;
   * -1 none) and what each client made of it (OC_REF_CL_*) */
  signed char row;
  signed char proto;                 /* its protocol (protocol.h), -1 none (the server's extras) */
  unsigned char clients[OC_CLIENT__COUNT];
  /* what each agent's user saw (OC_REF_AG_*; agent.h): the console's
   * "Will my agent work?" counts these */
  unsigned char agents[OC_AGENT__COUNT];
};
#define OC_REF_AG_ABSENT 0u     /* not judged */
#define OC_REF_AG_WORKS 1u
#define OC_REF_AG_BREAKS 2u
#define OC_REF_AG_LIMIT 3u      /* its own limitation: OpenAI's answers end the same way */
#define OC_REF_AG_ERROR 4u      /* works, but what it faithfully shows is the server's error */


#define OC_REF_CLIENTS 1u /* the result has a "clients" member */
#define OC_REF_STREAM 2u  /* the case streams: its row is a streamed one, or its request says
                             "stream": true (the matrix: which clients an error would have
                             reached) */
#define OC_REF_NOT_RUN 4u /* the result has "not_run": never sent (its target could not be
                             reached); the CI outputs say such cases once per target */
/* A client's verdict in a ref: what "works", "limitation" and "server_fault" say, and
 * OC_REF_CL_RAN when its "outcome" says it was exercised (the matrix
 * counts only those; the CI table counts by "works" alone). */
enum {
  OC_REF_CL_ABSENT = 0,   /* no verdict of this client */
  OC_REF_CL_UNUSED,       /* "works" neither true nor false */
  OC_REF_CL_WORKS,
  OC_REF_CL_LIMIT,        /* breaks as OpenAI's own answers break it: its limitation */
  OC_REF_CL_BREAKS,
  OC_REF_CL_FAULT         /* works ("ok"), but on an answer the server cut or made unusable
                             ("server_fault") */
};
#define OC_REF_CL_RAN 8u
#define OC_REF_CL_STATE(x) ((x) & 7u)
/* What it showed of the reasoning the server sent ("reasoning": seen,
 * partial, hidden; 0 for none, extra or absent), and whether think or
 * harmony markup reached its answer ("reasoning_leak"). */
#define OC_REF_CL_RSN(x) (((x) >> 4) & 3u)
#define OC_REF_CL_RSN_SEEN 1u
#define OC_REF_CL_RSN_PARTIAL 2u
#define OC_REF_CL_RSN_HIDDEN 3u
#define OC_REF_CL_RSN_LEAK 64u

/* The ref of a result object (strings borrowed from it). */
void oc_result_ref_of(struct oc_result_ref *f, const cJSON *result);

/* The results of a run or a document, in document order.  A writer reads
 * the frame (doc: oacheck, targets, summary) directly and the results
 * through oc_results_get, one at a time, in any order: a run's come from
 * its spool, so a report of 100,000 cases holds one case, not the run.
 * New writers (and new sections of old ones) take a struct oc_results and
 * do the same; a section that needs two results at once keeps what it
 * needs of the first (or its index), not the pointer. */
struct oc_results {
  const cJSON *doc;            /* the frame; borrowed */
  size_t count;
  struct oc_result_ref *refs;  /* count of them */
  /* where the results are: a document's array, or a spool */
  const cJSON **items;         /* the document's, by position */
  struct oc_spool *spool;
  size_t *spool_at;            /* ref i is spool entry spool_at[i] */
  cJSON *cur;                  /* the last result read from the spool */
  struct oc_buf text;
  /* a run's deployment lines, tallied as its cases ended (NULL: a
   * document's, which writers tally from its results) */
  struct oc_deploy_tally *deploy;
};

/* "Will my agent work?" for one target: per agent, the exchanges its user
 * saw as the server sent them (works; errors: the server's error shown),
 * the breaks, the limitations, and the first break and limitation (their
 * result index, -1 none).  Counted from the refs alone. */
struct oc_agent_tally {
  long works, errors, breaks, limits;
  long first_break, first_limit;
};
/* Into t[OC_AGENT__COUNT]; 1 when some agent judged an exchange of target. */
int oc_agents_tally(const struct oc_results *rs, const char *target, struct oc_agent_tally *t);

/* Over the "results" array of doc (borrowed; it must outlive rs).
 * OC_OK or OC_ENOMEM. */
int oc_results_from_doc(struct oc_results *rs, const cJSON *doc);
/* Over results in a spool: frame is the document without results (its
 * summary already made), refs[i] describes the result stored under spool
 * entry at[i].  refs and at are taken over (freed by oc_results_free);
 * frame and spool are borrowed. */
void oc_results_from_spool(struct oc_results *rs, const cJSON *frame, struct oc_spool *spool,
                           struct oc_result_ref *refs, size_t *at, size_t count);
/* Result i, borrowed until the next oc_results_get or oc_results_text
 * on rs; NULL (err says why) when it cannot be read back. */
const cJSON *oc_results_get(struct oc_results *rs, size_t i, char *err, size_t errlen);
/* Result i as compact JSON text, into out (reset first). */
int oc_results_text(struct oc_results *rs, size_t i, struct oc_buf *out, char *err, size_t errlen);
/* Counts from the refs, as oc_results_count counts a document's (target
 * and suite NULL: all). */
void oc_results_counts(const struct oc_results *rs, const char *target, const char *suite,
                       struct oc_counts *c);
/* Is status one that turns a run red (fail, error, invalid)? */
int oc_status_is_failure(enum oc_status st);
void oc_results_free(struct oc_results *rs);

/* Ids for pairs of strings (target and suite, suite and case), given in
 * the order first seen: grouping a run in one pass instead of a search
 * per result.  The strings are borrowed. */
struct oc_pairs {
  struct oc_pair_slot {
    const char *a, *b;
    size_t id;
    int used;
  } *slots;
  size_t nslots, count;
  const char **as, **bs;       /* by id */
  size_t alloc;
};
void oc_pairs_init(struct oc_pairs *p);
/* The id of (a, b) (NULL is ""), a new one (== count before the call)
 * when first seen.  OC_OK or OC_ENOMEM. */
int oc_pairs_id(struct oc_pairs *p, const char *a, const char *b, size_t *id);
void oc_pairs_free(struct oc_pairs *p);

/* The cases that were never sent (OC_REF_NOT_RUN: their target could
 * not be reached), a group per target in the order first seen.  The
 * reports that keep every failure visible under a cap (annotations, the
 * Markdown summary, report render's summary) say each group once, after
 * the real failures and outside the cap; JSON, JUnit and HTML keep every
 * case. */
struct oc_not_run {
  const char *target; /* borrowed from the refs */
  size_t first;       /* its first case: every case of the group has the same reason */
  long cases, suites;
};
/* The groups of rs into *out (caller frees; NULL when none) and *n.
 * OC_OK or OC_ENOMEM. */
int oc_results_not_run(const struct oc_results *rs, struct oc_not_run **out, size_t *n);
/* "53 cases not run (8 suites)", then ": " and reason unless it is NULL,
 * appended to b (raw text: the caller escapes it for its medium). */
int oc_not_run_text(struct oc_buf *b, const struct oc_not_run *g, const char *reason);

/* ---- the file a report streams into ------------------------------------------ */

/* Writers render into b; oc_sink_flush hands what is there to the file
 * once it is big, so a report of any size holds a megabyte at a time.
 * The file is written beside its final name and renamed over it when
 * complete ("-" is stdout): a failure leaves any previous file whole.  A
 * memory sink (oc_sink_init_mem) never flushes: the whole report stays
 * in b, for tests and for callers that want the text. */
struct oc_sink {
  struct oc_buf *b;
  struct oc_buf own;
  int fd;                      /* -1: memory */
  int is_stdout;
  char *path, *tmp;
  int rc;                      /* the first write error */
  int saved_errno;
  unsigned long long written;
};

int oc_sink_open(struct oc_sink *s, const char *path, char *err, size_t errlen);
void oc_sink_init_mem(struct oc_sink *s, struct oc_buf *b);
/* Write b out when it holds a megabyte or more (file sinks only); the
 * first failure is kept and returned from here on. */
int oc_sink_flush(struct oc_sink *s);
/* Finish: everything written and renamed into place.  rc is the render's
 * own result: non-zero abandons the file (the temporary is removed).
 * Returns OC_OK or the error, with err naming the file. */
int oc_sink_close(struct oc_sink *s, int rc, char *err, size_t errlen);

/* ---- writing ----------------------------------------------------------------- */

/* The JSON results, pretty-printed: the frame's members, then "results",
 * streamed from rs (each result's text re-indented, not parsed). */
int oc_report_json_render(struct oc_results *rs, struct oc_sink *s);
#endif
