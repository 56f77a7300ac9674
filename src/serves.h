/* serves.h — which wire protocols a target serves (chat completions,
 * the Responses API — stateful or not: does it take previous_response_id —
 * and Anthropic's Messages API), for the target's line in the reports.
 * What the run's own cases showed decides a protocol (a case on its path
 * answered other than 404/405: served); a protocol no case exercised is
 * probed with one cheap, invalid request (a 4xx or 5xx other than 404/405
 * means the route is there; 404/405 means it is not), within a short
 * timeout, never failing the run.  A replay target answers from what its
 * recordings hold for the path; `oacheck serve` answers a request carrying
 * X-Oacheck-Probe the same way (oc_serves_recorded), so that a replay
 * through it counts no unrecorded request. */
#ifndef OC_SERVES_H
#define OC_SERVES_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "cassette.h"
#include "headers.h"
#include "protocol.h"
#include "request.h"

enum oc_proto_state {
  OC_PS_UNKNOWN = 0,   /* not asked, or the answer says nothing (401/403, no answer) */
  OC_PS_SERVED,
  OC_PS_NOT_SERVED,    /* 404 or 405 */
  OC_PS_NOT_RECORDED   /* a replay (or oacheck serve) holds no exchange on the path */
};

enum oc_proto_from { OC_PF_NONE = 0, OC_PF_RUN, OC_PF_PROBE, OC_PF_RECORDINGS };

struct oc_serves {
  int decided;                          /* oc_target_probe_protocols ran: reports show it */
  unsigned char state[OC_PROTO__COUNT]; /* enum oc_proto_state */
  unsigned char from[OC_PROTO__COUNT];  /* enum oc_proto_from */
  int status[OC_PROTO__COUNT];          /* the status that decided it, 0 none */
  signed char stateful;                 /* Responses: 1 takes previous_response_id, 0 refuses
                                           it, -1 unknown */
};

/* The header a probe request carries, and the answer `oacheck serve`
 * gives it: "recorded" (status 400) or "not-recorded" (404); with
 * X-Oacheck-Probe-Stateful "yes"/"no" for /v1/responses when a recording
 * of a request with previous_response_id says. */
#define OC_PROBE_HEADER "X-Oacheck-Probe"
#define OC_PROBE_STATEFUL_HEADER "X-Oacheck-Probe-Stateful"

void oc_serves_init(struct oc_serves *p);
/* Protocol k's name (protocol.h's table) and the path of its main
 * endpoint (/v1/…), which a probe asks. */
const char *oc_serves_name(enum oc_protocol_id k);
const char *oc_serves_path(enum oc_protocol_id k);
/* The protocol whose main endpoint api is (protocol.h's main_api), or
 * OC_PROTO__COUNT (the counting endpoints, models, …). */
enum oc_protocol_id oc_serves_protocol_of(enum oc_api api);

/* A case's answer: its request's api, the status (0: no answer),
 * whether the request sent previous_response_id, whether oacheck serve
 * or the recordings had none of it (unmatched).  Served wins over any
 * other answer on the same protocol. */
void oc_serves_note(struct oc_serves *p, enum oc_api api, int status, int prev_id,
                       int unmatched);

/* What a probe's answer says (headers may be NULL); *stateful set for a
 * Responses probe when the answer tells. */
enum oc_proto_state oc_serves_classify(enum oc_protocol_id k, int status,
                                          const struct oc_headers *headers, const char *body,
                                          size_t len, signed char *stateful);

/* What recordings hold for protocol k: OC_PS_SERVED when an exchange on
 * its path was answered other than 404/405, OC_PS_NOT_SERVED when all
 * were, OC_PS_NOT_RECORDED when none is there; *stateful (may be NULL)
 * from a recorded request with previous_response_id (2xx: 1, 4xx: 0). */
enum oc_proto_state oc_serves_recorded(const struct oc_cassette_store *s, enum oc_protocol_id k,
                                          signed char *stateful);

/* The probe's request body for protocol k (static). */
const char *oc_serves_probe_body(enum oc_protocol_id k);

/* A line for people: "chat, responses (stateless); not served: messages",
 * with where each came from when asked (verbose). */
void oc_serves_text(const struct oc_serves *p, char *out, size_t outlen);
/* The results' targets[].protocols: {"chat": {"served": true|false|null,
 * "from": "run"|"probe"|"recordings", "status"?}, "responses": {…,
 * "stateful"?}, "messages": {…}}.  NULL when memory runs out. */
cJSON *oc_serves_json(const struct oc_serves *p);

/* The same read back from results JSON (a report renders a results
 * file): OC_OK, or OC_ENOTFOUND for no object (p left unknown). */
int oc_serves_from_json(struct oc_serves *p, const cJSON *j);
/* oc_serves_text of targets[].protocols; "" when it has none. */
void oc_serves_text_of(const cJSON *j, char *out, size_t outlen);

#endif
