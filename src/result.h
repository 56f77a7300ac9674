/* result.h — one case's result as the results schema shapes it: status
 * from the findings, the request (secrets redacted), the response, the
 * rebuilt message, timing, retries and the commands that reproduce it.
 * The document around the results (targets, summary) is runner.c's; the
 * renderers (report_*.c) read only this JSON. */
#ifndef OC_RESULT_H
#define OC_RESULT_H

#include <cjson/cJSON.h>

#include "client.h"
#include "finding.h"
#include "response.h"
#include "suite.h"
#include "target.h"

/* How a case ended, before findings are considered. */
enum oc_case_end {
  OC_END_RAN = 0,       /* a response was examined */
  OC_END_SKIP,          /* not applicable, not recorded, unsupported */
  OC_END_ERROR          /* the exchange could not be completed */
};

struct oc_case_outcome {
  const struct oc_target *target;
  const struct oc_case *kase;
  enum oc_case_end end;
  const char *reason;               /* skip/error reason, may be NULL */
  const char *not_run;              /* why the case was never sent ("target-unreachable"), or
                                     * NULL: the results schema's "not_run" */
  const struct oc_built_request *request; /* may be NULL when it could not be built */
  cJSON *response;                  /* oc_response_json's object, taken over; NULL when no
                                     * response head arrived */
  const struct oc_findings *findings;
  const cJSON *message;             /* rebuilt from a stream, may be NULL */
  const cJSON *timing;              /* may be NULL */
  cJSON *retries;                   /* taken over; may be NULL */
  double duration_ms;               /* < 0 unknown */
  const char *source;               /* "live" or the recording's name */
  int no_suite;                     /* proxy traffic: no suite file can send it again */
  const char *reproduce_oacheck;    /* with no_suite: the oacheck command that reproduces it
                                     * (record --to-suite), or NULL */
  /* What the client models made of the response (OC_CLIENT__COUNT of
   * them), or NULL when none judged it (not a chat completion, no
   * response); and the name of the case's checklist row (matrix.h), or
   * NULL for none. */
  const struct oc_client_verdict *verdicts;
  const char *checklist;
  /* What each agent's user sees (OC_AGENT__COUNT of them, agent.h), or
   * NULL: "agents" for the ones judged. */
  const struct oc_agent_verdict *agents;
};

/* "pass", "fail", "error", "skip". */
const char *oc_case_status(const struct oc_case_outcome *o);
/* The result object; caller deletes.  retries and response are taken over. */
cJSON *oc_result_json(struct oc_case_outcome *o);
/* A finding as the results schema's "finding". */
cJSON *oc_finding_json(const struct oc_finding *f);
/* A result's "clients": the verdicts of every model that ran — today's
 * seven always, a previous major when the run selected it; a client the
 * exchange does not exercise (a stream helper on a non-streamed request)
 * has outcome "not-exercised" and works null. */
cJSON *oc_clients_json(const struct oc_client_verdict *v);

#endif
