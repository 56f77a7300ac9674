/* response.h — the response decoder: takes one HTTP response (status,
 * headers, body bytes with arrival times) for a known request and runs
 * every generic rule that applies to it — HTTP and media type, error
 * bodies, JSON bodies against their endpoint's schema, and for
 * text/event-stream the whole stream pipeline (chat.c).  Live and replayed
 * traffic go through exactly this code.  Case-specific expectations are
 * expect.c's; scheduling is runner.c's. */
#ifndef OC_RESPONSE_H
#define OC_RESPONSE_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "chat.h"
#include "agent.h"
#include "client.h"
#include "headers.h"
#include "jdoc.h"
#include "request.h"
#include "protocol.h"
#include "rules.h"

struct oc_cassette;
struct oc_schema;
struct oc_schema_registry;
struct oc_schema_error;

/* The response schemas shipped in schemas/, compiled once per run and
 * shared (read-only) by every response. */
struct oc_schemas {
  struct oc_schema_registry *reg;
  struct oc_schema *chat;
  struct oc_schema *chunk;
  struct oc_schema *error;
  struct oc_schema *models;
  struct oc_schema *text_completion;
  struct oc_schema *text_completion_chunk;
  struct oc_schema *embeddings;
  struct oc_schema *ls_health;
  struct oc_schema *ls_props;
  struct oc_schema *ls_slots;
  struct oc_schema *ls_tokenize;
  struct oc_schema *ls_apply_template;
  struct oc_schema *responses_response; /* responses/response.json */
  struct oc_schema *responses_event;    /* responses/stream-event.json */
  struct oc_schema *messages_message;   /* messages/message.json */
  struct oc_schema *messages_event;     /* messages/stream-event.json */
  /* The same documents as JSON (and common.json), for the nullable-
   * required lookup; indexed like the table in response.c. */
  cJSON *docs[24];
};


/* Load and compile the shipped schemas from the data directory.  A
 * missing or broken schema is an error naming the file (exit status 2 for
 * the caller). */
int oc_schemas_load(struct oc_schemas *s, char *err, size_t errlen);
/* The same in two steps, for a command that may not need the compiled
 * response schemas (`run --list` checks suites, it decodes nothing): the
 * registry of the shipped documents, then (idempotent) the compiled
 * schemas.  On failure s is freed. */
int oc_schemas_load_registry(struct oc_schemas *s, char *err, size_t errlen);
int oc_schemas_compile(struct oc_schemas *s, char *err, size_t errlen);
void oc_schemas_free(struct oc_schemas *s);

/* The severity of one validation error against the shipped schema rel
 * ("chat.completion.chunk.json"): the profile's nullable_required when the
 * error is a "required" failure for a property annotated
 * "x-oacheck-nullable-required" where that "required" sits (found by
 * walking the error's keyword location through each $ref, as
 * docs/schemas.md describes); -1 (the rule's own severity) otherwise. */
int oc_schemas_error_severity(const struct oc_schemas *s, const struct oc_check *c,
                              const char *rel, const struct oc_schema_error *e);

#define OC_CAP_RESULT_BODY (256u << 10) /* body kept for reports */
/* A body whose parsed values take more of the jdoc arena than this gets no
 * cJSON copy for the case's expectations: a 64 MiB body of tiny values
 * would cost gigabytes as cJSON (the generic rules run on jdoc anyway). */
#define OC_CAP_PARSED_ARENA (64u << 20)

struct oc_response {
  const struct oc_request_info *req;
  struct oc_check *check;
  const struct oc_schemas *schemas;
  int status;               /* 0 until the head arrived */
  struct oc_headers headers;
  char media[96];           /* lower-cased media type */
  int is_sse;               /* decoded as an event stream */
  int sniffing;             /* stream:true answered under another type: the
                               first body byte that is not blank decides */
  /* The request's protocol (protocol.h; NULL for the server's extras)
   * and its stream decoder's state once a stream started (opaque: the
   * protocol's handler knows it; chat's is stream, below) */
  const struct oc_protocol *proto;
  void *pstream;
  int stream_started;
  struct oc_stream stream; /* chat's stream decoder, kept here for the expectations */
  struct oc_buf body;       /* non-stream body (OC_CAP_BODY); for streams the first bytes */
  uint64_t body_bytes;
  int body_overflow;
  uint64_t t_sent;
  uint64_t t_head;
  uint64_t t_end;
  int timing_recorded;
  int keep_events;
  int finished;
  cJSON *parsed;            /* the non-stream body as JSON, when it parsed (and is small enough:
                               OC_CAP_PARSED_ARENA) */
  int parsed_too_big;       /* it parsed, but a cJSON copy would cost too much memory */
  struct oc_message *messages; /* non-stream chat choices */
  size_t nmessages;
  /* What each client library makes of it (chat completions only), judged
   * when the response finishes; the verdict policy (verdict.c) then
   * applies to the findings. */
  struct oc_clients *clients;
  struct oc_client_verdict verdicts[OC_CLIENT__COUNT];
  int judged;               /* verdicts hold the models' verdicts */
  struct oc_agent_verdict agents[OC_AGENT__COUNT]; /* what each agent's user sees (agent.h);
                                                     judged 0 where it does not speak this */
};

/* The schema findings of a JSON body (each error a finding of rule, its
 * severity by the profile's nullable-required policy); for the protocols'
 * body rules. */
void oc_response_schema_findings(struct oc_response *r, const struct oc_schema *schema, const char *rel,
                                 const struct oc_jv *root, enum oc_rule_id rule, const char *what);
/* The timing of r's stream, NULL when no stream started (the runner and
 * the proxy correct its send time). */
struct oc_stream_timing *oc_response_stream_timing(struct oc_response *r);

/* Prepare *r for one response to req.  Everything is borrowed. */
void oc_response_init(struct oc_response *r, const struct oc_request_info *req,
                      struct oc_check *check, const struct oc_schemas *schemas, uint64_t t_sent,
                      int timing_recorded, int keep_events);
/* The status line and headers arrived (copied). */
int oc_response_head(struct oc_response *r, int status, const struct oc_headers *headers,
                     uint64_t t_ns);
/* Body bytes (after any content decoding). */
int oc_response_body(struct oc_response *r, const void *p, size_t n, uint64_t t_ns);
/* The body ended.  complete is 0 when the transport cut it (reset,
 * timeout): stream rules then see a cut stream.  The client models give
 * their verdicts and the verdict policy of the check applies here, before
 * any case expectation adds its own findings. */
void oc_response_finish(struct oc_response *r, uint64_t t_ns, int complete);
void oc_response_free(struct oc_response *r);

/* Push a recorded response through r as it arrived: the head, then the
 * body in its recorded pieces (one piece when none were recorded), at
 * t0 plus the recorded times when the cassette has timing (r was then
 * initialised with t_sent = t0).  *t_end gets the time of the last piece
 * (0 without timing), for oc_response_finish, which the caller calls
 * (with c->complete).  `run --replay` and `oacheck check` both go through
 * here, so their findings on the same bytes are the same. */
int oc_response_replay(struct oc_response *r, const struct oc_cassette *c, uint64_t t0,
                       uint64_t *t_end);

/* The results-schema "response" object (status, headers with secrets
 * redacted, content type, body or events), plus "message" and "timing"
 * through the out parameters (each may be NULL).  NULL, with the out
 * parameters NULL, when memory runs out: never an object with a part
 * missing. */
cJSON *oc_response_json(const struct oc_response *r, cJSON **message, cJSON **timing);

/* Base64 (whitespace ignored, padding optional) into new bytes (caller
 * frees; NUL-terminated past *outlen); NULL when it does not decode or
 * memory runs out.  Results bodies and HAR content use it. */
unsigned char *oc_base64_decode(const char *s, size_t *outlen);
/* A body for the results schema: text when UTF-8, else base64; cut at cap.
 * NULL when memory runs out (so for the builders below). */
cJSON *oc_body_json(const char *p, size_t n, size_t cap);
/* Headers as [[name, value], …] with secret values redacted. */
cJSON *oc_headers_json(const struct oc_headers *h);


/* Run one whole recorded exchange through the generic rules: the request
 * (method, path, body as sent) and the response (status, headers, body,
 * optionally its arrival pieces: end offsets) → findings.  The analysis
 * itself (message, events) is discarded; tests, the mutation self-test
 * and `oacheck rules --check` use this.  Returns OC_OK or OC_ENOMEM. */
int oc_response_analyze(const struct oc_schemas *schemas, const struct oc_check *policy,
                        const char *method, const char *path, const char *req_body,
                        size_t req_len, int status, const struct oc_headers *headers,
                        const char *body, size_t len, const size_t *pieces, size_t npieces);
/* The same, also handing out the client models' verdicts (OC_CLIENT__COUNT
 * of them; not exercised for anything but a chat completion). */
int oc_response_analyze_clients(const struct oc_schemas *schemas, const struct oc_check *policy,
                                const char *method, const char *path, const char *req_body,
                                size_t req_len, int status, const struct oc_headers *headers,
                                const char *body, size_t len, const size_t *pieces,
                                size_t npieces, struct oc_client_verdict *verdicts);

#endif
