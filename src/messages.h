/* messages.h — Anthropic's Messages API (POST /v1/messages) decoded as
 * it arrives: its typed SSE stream as a state machine (message_start
 * first with an empty content and usage; each block started, delta'd with
 * deltas of its kind and stopped once, indexes contiguous from 0;
 * message_delta with stop_reason and usage, then message_stop, nothing
 * after; event: lines naming the data's type; pings and comments
 * allowed; errors in Anthropic's shape), the Message it rebuilds, and the
 * same answer's rules for a non-streamed Message body and an error body.
 * The findings are the MESSAGES- family of rules.def.  Its interface
 * mirrors responses.h (init / push / finish / free, the rebuilt answer,
 * the event log and timing as results JSON).  Memory is bounded by the
 * largest event and OC_MSG_MAX_BLOCKS, not by the stream. */
#ifndef OC_MESSAGES_H
#define OC_MESSAGES_H

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

#define OC_MSG_MAX_BLOCKS 1024 /* content blocks read; past it: MESSAGES-SIZE */

enum oc_mblock_kind {
  OC_MBLOCK_OTHER = 0,
  OC_MBLOCK_TEXT,
  OC_MBLOCK_TOOL_USE,
  OC_MBLOCK_THINKING
};

/* A text as the rules compare it: its length, and its first bytes
 * (capped) for the rules that parse it and for the results. */
struct oc_mtext {
  uint64_t len;
  struct oc_buf head;
};

/* One content block as the stream built it. */
struct oc_mblock {
  enum oc_mblock_kind kind;
  char *type, *id, *name;
  double index;             /* the index its content_block_start gave */
  long started_at, stopped_at; /* event numbers (0: not seen) */
  int64_t start_byte;
  int has_input;            /* a tool_use start carried input */
  int signed_;              /* a thinking block got a signature (delta or start) */
  struct oc_mtext text;     /* text, thinking, or the input JSON joined */
};

struct oc_mstream {
  const struct oc_request_info *req;
  struct oc_clients *clients; /* may be NULL; borrowed: fed every event (pclient.h) */
  struct oc_check *check;
  const struct oc_schemas *schemas;   /* may be NULL: no schema rules */
  const struct oc_schema *event_schema;
  struct oc_sse_parser sse;
  struct oc_jdoc doc;
  long events;
  struct oc_mblock *blocks;
  size_t nblocks, ablocks;
  long open;                /* blocks started and not stopped */
  unsigned reported;        /* which once-per-stream findings were made (bits) */
  struct oc_event_seen schema_seen; /* schema deviations said (hashed): each once */
  struct oc_shape_memo shapes;      /* event shapes that validated: not validated again */
  long start_at, delta_at, stop_at; /* message_start, message_delta, message_stop */
  long after_stop;
  struct oc_buf msg_id, model, stop_reason, stop_sequence;
  int have_stop_sequence;
  double input_tokens, output_tokens; /* NAN when not said */
  double cache_read_tokens, cache_creation_tokens; /* the usage's cache_*_input_tokens, NAN */
  cJSON *error;             /* the error event's data */
  long error_at;
  size_t rebuilt, max_rebuilt; /* text kept over all blocks (OC_CAP_STREAM_TEXT) */
  int truncated;
  int finished;
  uint64_t body_bytes;
  struct oc_event_log log;
  struct oc_stream_timing timing;
};

/* Prepare *s for one response body (as oc_rstream_init). */
void oc_mstream_init(struct oc_mstream *s, const struct oc_request_info *req,
                     struct oc_check *check, const struct oc_schemas *schemas, uint64_t t_sent,
                     int timing_recorded, int keep_events);
int oc_mstream_push(struct oc_mstream *s, const void *buf, size_t len, uint64_t t_ns);
/* The body ended: the end-of-stream rules and the answer's rules run
 * here, once. */
void oc_mstream_finish(struct oc_mstream *s, uint64_t t_ns);
void oc_mstream_free(struct oc_mstream *s);

/* The rebuilt Message: {"id","type":"message","role":"assistant","model",
 * "content":[…],"stop_reason","stop_sequence","usage"?,"error"?}, its
 * texts cut at OC_CAP_RESULT_MESSAGE in all.  Caller deletes; NULL when
 * memory runs out. */
cJSON *oc_mstream_message(const struct oc_mstream *s);
cJSON *oc_mstream_events_json(const struct oc_mstream *s, int *truncated);
cJSON *oc_mstream_timing_json(const struct oc_mstream *s);

/* A non-streamed Message body (parsed): its schema, blocks, stop reason,
 * usage and the request's contract; a count_tokens answer's count. */
void oc_messages_check_body(struct oc_check *c, const struct oc_request_info *req,
                            const struct oc_schemas *schemas, const struct oc_jv *root);
/* An HTTP error body (root NULL when it is not JSON) of a Messages
 * request: Anthropic's {"type":"error","error":{"type","message"}}. */
void oc_messages_check_error_body(struct oc_check *c, int status, const struct oc_jv *root);
/* The request itself, at the response's head: an invalid request
 * answered with other than a 4xx. */
void oc_messages_check_head(struct oc_check *c, const struct oc_request_info *req, int status);

#endif
