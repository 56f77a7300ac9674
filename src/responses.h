/* responses.h — the Responses API (POST /v1/responses) decoded as it
 * arrives: its typed SSE stream as a state machine (response.created
 * first, one terminal event last, sequence numbers, output and content
 * indexes, item ids, every item and part closed, deltas joining to their
 * .done events and to the terminal response), the Response it rebuilds
 * (message text, function calls, reasoning), and the same answer's rules
 * for a non-streamed Response body.  The findings are the RESPONSES-
 * family of rules.def.  Its interface mirrors chat.h's stream decoder
 * (init / push / finish / free, the rebuilt answer, the event log and
 * timing as results JSON) so that a protocol seam can hold either.
 * Memory is bounded by the largest event and OC_RESP_MAX_ITEMS, not by
 * the stream. */
#ifndef OC_RESPONSES_H
#define OC_RESPONSES_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "chat.h"
#include "jdoc.h"
#include "request.h"
#include "rules.h"
#include "sse.h"
#include "typed_events.h"

struct oc_schema;
struct oc_schemas;

#define OC_RESP_MAX_ITEMS 1024 /* output items read; past it: RESPONSES-SIZE */

enum oc_ritem_kind {
  OC_RITEM_OTHER = 0,
  OC_RITEM_MESSAGE,
  OC_RITEM_FUNCTION_CALL,
  OC_RITEM_REASONING
};

/* A text as the rules compare it: its length and hash over every byte,
 * and its first bytes (capped) for the report and the results. */
struct oc_rtext {
  uint64_t len;
  uint64_t hash;
  int seen;                 /* any piece arrived (an empty one counts) */
  struct oc_buf head;       /* the first bytes, up to the stream's budget */
};

/* One output item as the stream built it. */
struct oc_ritem {
  enum oc_ritem_kind kind;
  char *id, *type, *name, *call_id, *status;
  long index;               /* its position among the items added (0-based) */
  long added_at, done_at;   /* event numbers (0: not seen) */
  int64_t added_byte, done_byte; /* where its added / done event's item begins */
  long parts, parts_open;   /* content parts added, and not yet done */
  struct oc_rtext deltas;   /* output_text / arguments deltas joined */
  struct oc_rtext done;     /* output_text.done's text / arguments.done's arguments */
  struct oc_rtext final;    /* the text / arguments output_item.done carried */
  struct oc_rtext reasoning; /* reasoning text (deltas, else the done item's) */
  int done_seen;            /* the .done event of its text or arguments came */
  int final_seen;           /* output_item.done came */
};

struct oc_rstream {
  const struct oc_request_info *req;
  struct oc_clients *clients; /* may be NULL; borrowed: fed every event (pclient.h) */
  struct oc_check *check;
  const struct oc_schemas *schemas;   /* may be NULL: no schema rules */
  const struct oc_schema *event_schema;
  struct oc_sse_parser sse;
  struct oc_jdoc doc;
  long events;
  struct oc_ritem *items;
  size_t nitems, aitems;
  int items_dropped;
  size_t last_item;         /* the item the last event named (a lookup cache) */
  double last_seq;
  int have_seq;
  long seq_missing;         /* events without a sequence_number */
  long oi_missing, ci_missing; /* events lacking output_index / content_index */
  unsigned reported;        /* which once-per-stream findings were made (bits) */
  struct oc_event_seen schema_seen; /* schema deviations said (hashed): each once */
  long created_at_event;    /* the event number of response.created, 0 when none */
  long terminal_at;         /* of the terminal event, 0 when none */
  const char *terminal_type; /* static: "response.completed", … */
  long after_terminal;
  struct oc_buf resp_id, model, status;
  double created_at;
  cJSON *usage;             /* the terminal response's usage */
  cJSON *incomplete_details;
  cJSON *error;             /* response.failed's error, or the error event */
  long error_at;
  size_t rebuilt, max_rebuilt; /* text kept over all items (OC_CAP_STREAM_TEXT) */
  uint64_t rebuilt_dropped;
  int truncated;
  int finished;
  uint64_t body_bytes;
  struct oc_event_log log;
  struct oc_stream_timing timing;
};

/* Prepare *s for one response body (as oc_stream_init).  schemas may be
 * NULL; everything is borrowed and must outlive the stream. */
void oc_rstream_init(struct oc_rstream *s, const struct oc_request_info *req,
                     struct oc_check *check, const struct oc_schemas *schemas, uint64_t t_sent,
                     int timing_recorded, int keep_events);
int oc_rstream_push(struct oc_rstream *s, const void *buf, size_t len, uint64_t t_ns);
/* The body ended: the end-of-stream rules and the answer's rules run here,
 * once.  truncated says the transport cut it (the caller reported it). */
void oc_rstream_finish(struct oc_rstream *s, uint64_t t_ns);
void oc_rstream_free(struct oc_rstream *s);

/* The rebuilt Response: {"id","object":"response","created_at","model",
 * "status","incomplete_details"?,"error"?,"output":[…],"usage"?}, its
 * texts cut at OC_CAP_RESULT_MESSAGE in all.  Caller deletes; NULL when
 * memory runs out. */
cJSON *oc_rstream_response(const struct oc_rstream *s);
cJSON *oc_rstream_events_json(const struct oc_rstream *s, int *truncated);
cJSON *oc_rstream_timing_json(const struct oc_rstream *s);

/* A non-streamed Response body (parsed): its schema, output items,
 * status, usage and the request's contract. */
void oc_responses_check_body(struct oc_check *c, const struct oc_request_info *req,
                             const struct oc_schemas *schemas, const struct oc_jv *root);

/* Rules on the status alone: previous_response_id refused (a stateless
 * server). */
void oc_responses_check_head(struct oc_check *c, const struct oc_request_info *req, int status);

#endif
