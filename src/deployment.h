/* deployment.h — what a deployment says about itself, gathered once per
 * target before the cases, and what follows from it: llama-server's
 * /props (context per slot, slot count, build, chat template capabilities,
 * which endpoints are on), /slots (each slot's context and whether it is
 * busy), /metrics when enabled; the flags as far as they show from
 * outside; the concurrency that cannot itself cause failures (its slot
 * count); and the diagnoses: findings whose cause these facts explain,
 * said in one line with the flag and the operator's fix (fixes.def).
 *
 * Fetching goes through target.c (oc_target_fetch, so a replay answers
 * from its recordings); the runner applies the diagnoses to each result;
 * reports only read the results document ("targets[].deployment",
 * "findings[].diagnosis", "timing.wait_ms"), so `oacheck report render`
 * shows the same. */
#ifndef OC_DEPLOYMENT_H
#define OC_DEPLOYMENT_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "rule_id.h"
#include "util.h"

struct oc_target;
struct oc_identify_options;

struct oc_slot_fact {
  long id;
  long n_ctx;          /* -1 unknown */
  int processing;      /* 1 busy, 0 idle, -1 unknown */
};

#define OC_DEPLOYMENT_MAX_SLOTS 256 /* slots read from /slots */

/* -1 means "not known" for every int and long below. */
struct oc_deployment {
  int llama;               /* /props answered as llama-server does */
  char *build;             /* build_info */
  long n_ctx;              /* per slot (default_generation_settings.n_ctx) */
  long total_slots;
  int endpoint_slots, endpoint_props, endpoint_metrics;
  int tools, tool_calls, parallel_tool_calls, system_role; /* chat_template_caps */
  struct oc_slot_fact *slots;   /* /slots */
  size_t nslots;
  int slots_known;
  int metrics_known;            /* /metrics answered with Prometheus text */
  double requests_processing, requests_deferred, n_tokens_max;
};

void oc_deployment_init(struct oc_deployment *d);
void oc_deployment_free(struct oc_deployment *d);
/* Read a /props document (any JSON; a hostile one yields "unknown"). */
void oc_deployment_from_props(struct oc_deployment *d, const cJSON *props);
/* After /props: GET /slots and, when /props says it is on, GET /metrics
 * from t (recorded with a live recording, answered by a replay's
 * recordings).  Nothing is fetched when t is not a llama-server.  Returns
 * OC_OK or OC_ENOMEM; an unanswered endpoint stays unknown. */
int oc_deployment_gather(struct oc_deployment *d, struct oc_target *t,
                         const struct oc_identify_options *o);
/* The tokens of a chat request's prompt as t counts them: its messages
 * (and tools) rendered by POST /apply-template, then POST /tokenize.  -1
 * when t cannot say (not llama-server, a replay without those
 * exchanges, an error). */
long oc_deployment_count_prompt(struct oc_target *t, const struct oc_identify_options *o,
                                const cJSON *request);
/* The results "targets[].deployment" object; NULL when nothing is known
 * (not a llama-server) or out of memory. */
cJSON *oc_deployment_json(const struct oc_deployment *d);
/* The concurrency that cannot by itself overflow the slots: total_slots,
 * or 0 when unknown. */
int oc_deployment_slots(const struct oc_deployment *d);

/* One line for a report's target header from a "deployment" object
 * ("llama-server b10587-3f545becc: 2 slots × 512 tokens (…); /metrics on;
 * template: tool calls"), appended to b.  OC_OK or the buffer's error. */
int oc_deployment_text(const cJSON *dep, struct oc_buf *b);

/* What a replay target's recordings say about themselves (each
 * cassette's provenance): {"cases", "identification", "timed", "sources",
 * "servers", "first", "last"}, the results "targets[].recorded".  NULL
 * when out of memory. */
struct oc_cassette_store;
cJSON *oc_recorded_json(const struct oc_cassette_store *s);
/* "53 cases and 13 identification requests recorded live from target
 * 'ls', 2026-12-01, arrival times kept" into b. */
int oc_recorded_text(const cJSON *rec, struct oc_buf *b);

/* Did the case wait for a slot?  1 with *wait_ms when its timing.wait_ms
 * is more than a few ms of HTTP on 127.0.0.1 and a fair share of its
 * time; 0 when it did not; -1 when nothing says (no server timings). */
int oc_deployment_waited(const cJSON *result, double *wait_ms);

/* Lines about the run as a whole from a results document, each ending in
 * a newline: cases run again alone, requests that waited for a slot, the
 * diagnoses made and their fixes.  Nothing when there is nothing to say. */
int oc_deployment_summary(const cJSON *doc, struct oc_buf *b);

/* ---- diagnoses ------------------------------------------------------------------------ */

enum oc_diag_id {
#define FIX(rule, server, fix)
#define DIAG(name, id, server, flags, rules, cause, fix) OC_DIAG_##name,
#include "fixes.def"
#undef FIX
#undef DIAG
  OC_DIAG__COUNT
};

struct oc_diag {
  enum oc_diag_id did;
  const char *id;          /* "shared-context" */
  const char *server;      /* "llama-server" */
  const char *flags;       /* "-c, -np, --kv-unified" */
  const char *rules;       /* "HTTP-STATUS STREAM-ERROR-EVENT ...": usually explains these */
  const char *cause;       /* in general; a finding's diagnosis says it with numbers */
  const char *fix;
};
extern const struct oc_diag oc_diags[OC_DIAG__COUNT];

struct oc_rule_fix {
  enum oc_rule_id rule;
  const char *server;
  const char *fix;
};
extern const struct oc_rule_fix oc_rule_fixes[];
extern const size_t oc_rule_nfixes;

/* What the runner knows about one case beyond its result. */
struct oc_diag_context {
  int in_flight;           /* most requests in flight on the target while it ran; 0 unknown */
  long prompt_tokens;      /* its prompt as the server counts it; -1 unknown */
  const char *prompt_source; /* where that count comes from ("the server's /tokenize") */
};

/* Attach {"id","cause","flags","fix"} as "diagnosis" to each finding of
 * result (an error, or one that quotes the server's error) whose cause d
 * explains; an earlier diagnosis is replaced.  Returns the diagnosis, or
 * NULL when none applies. */
const struct oc_diag *oc_deployment_diagnose(const struct oc_deployment *d, cJSON *result,
                                             const struct oc_diag_context *ctx);
/* The first diagnosis object among result's findings, or NULL. */
const cJSON *oc_result_diagnosis(const cJSON *result);

/* From the server's own "timings" (llama-server: prompt_ms, predicted_ms,
 * in the body or the last stream chunk), add timing.server_ms and
 * timing.wait_ms (the time measured by oacheck minus the server's work:
 * queueing for a slot, mostly; TTFT includes it).  Nothing when the
 * response has no timings or the case has no measured time. */
void oc_deployment_timing(cJSON *result);

#endif
