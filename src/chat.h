/* chat.h — a streamed chat (or legacy text) completion, decoded as it
 * arrives: SSE events → chunks → the message a client would rebuild per
 * choice, with the stream-level rules (framing, [DONE], ids, roles,
 * finish reasons, usage, tool-call deltas), timing, and a capped log of
 * the events for reports; every event also reaches the client models
 * (client.h) when the response has them.  Bytes are pushed
 * in any pieces; memory is bounded by the largest event, not the stream.
 * HTTP-level rules and non-streamed bodies are response.c's. */
#ifndef OC_CHAT_H
#define OC_CHAT_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "jdoc.h"
#include "message.h"
#include "request.h"
#include "rules.h"
#include "sse.h"

struct oc_schema;
struct oc_schema_registry;
struct oc_schemas;
struct oc_clients;

/* One event kept for the reports. */
struct oc_logged_event {
  long n;                 /* 1-based event number */
  uint64_t offset, end;   /* body offsets of its first and last byte */
  uint64_t t_ns;          /* arrival of its last byte (0 when timing is unknown) */
  struct oc_buf type;     /* empty for "message" */
  struct oc_buf data;     /* capped at OC_CAP_LOG_EVENT */
  int pinned;             /* near a finding: keep it */
};

#define OC_LOG_HEAD 200     /* the first events are always kept */
#define OC_LOG_TAIL 50      /* and the last ones */
#define OC_LOG_PINNED 200   /* and up to this many around findings */
#define OC_CAP_LOG_EVENT (64u << 10)

struct oc_event_log {
  int enabled;
  struct oc_logged_event head[OC_LOG_HEAD];
  size_t nhead;
  struct oc_logged_event tail[OC_LOG_TAIL]; /* ring */
  size_t ntail, tail_start;
  struct oc_logged_event *pinned;
  size_t npinned, apinned;
  long pin_until;         /* pin events up to this number as they arrive */
};

struct oc_stream_timing {
  int recorded;           /* arrival times are real (not a replay without timing) */
  uint64_t t_sent;        /* the request's last byte */
  uint64_t t_first_byte;
  uint64_t t_first_event;
  uint64_t t_first_content;
  uint64_t t_last_content;
  uint64_t t_last_event;
  uint64_t t_end;
  uint64_t max_gap;       /* between content-bearing events */
  long max_gap_chunk;
  uint32_t *gaps_us;      /* gaps between content-bearing events, capped */
  size_t ngaps, agaps;
  long content_events;
};

struct oc_stream {
  const struct oc_request_info *req;
  struct oc_check *check;
  const struct oc_schema *chunk_schema;  /* may be NULL: no STREAM-CHUNK-SCHEMA */
  struct oc_schema_registry *reg;        /* may be NULL */
  const struct oc_schemas *schemas;      /* may be NULL: for the nullable-required lookup */
  const char *chunk_rel;                 /* the chunk schema's document ("chat.completion.chunk.json") */
  const char *object_expected;           /* "chat.completion.chunk" / "text_completion" */
  struct oc_sse_parser sse;
  struct oc_jdoc doc;
  struct oc_message *choices;
  size_t nchoices, achoices;
  struct oc_buf id, model;
  double created;
  int have_identity;
  long events;
  long chunks;              /* JSON chunks (not [DONE]) */
  long done_at;             /* event number of [DONE], 0 when none */
  long after_done;
  long error_at;            /* first in-band error event, 0 when none */
  struct oc_buf error_message;
  const char *error_shape;  /* what is wrong with that event's form (static text), NULL
                               when it is the spec's {"error": {"message": …}} */
  int payload_seen;         /* content, reasoning, refusal or a tool call */
  long usage_chunks;
  long usage_chunk_at;
  long usage_before_finish;
  cJSON *usage;             /* the last usage object seen */
  int truncated;            /* the body ended inside an event */
  int chunk_json_bad;       /* some payload was not JSON */
  int size_reported;        /* CHAT-SIZE was reported (once per stream) */
  /* Every choice's content, reasoning, refusal and tool-call arguments
   * together: per-field caps alone let 128 choices × 16 MiB through. */
  size_t rebuilt;           /* bytes kept */
  size_t max_rebuilt;       /* OC_CAP_STREAM_TEXT (tests lower it) */
  uint64_t rebuilt_dropped; /* bytes not kept because of max_rebuilt */
  /* Chunks whose skeleton (everything but the text of free-text fields)
   * already validated: a stream repeats one shape thousands of times. */
  uint64_t valid_shapes[8];
  size_t nvalid_shapes;
  long schema_validations;  /* chunks actually run through the schema */
  uint64_t body_bytes;
  struct oc_event_log log;
  struct oc_stream_timing timing;
  struct oc_clients *clients; /* may be NULL; borrowed: fed every event */
  int finished;
};

/* Prepare *s for one response body.  Everything passed is borrowed and
 * must outlive the stream.  t_sent is when the request's last byte left
 * (0 and timing_recorded 0 for recordings without times).  keep_events
 * turns on the event log (reports want it; benchmarks do not). */
void oc_stream_init(struct oc_stream *s, const struct oc_request_info *req, struct oc_check *check,
                    const struct oc_schema *chunk_schema, struct oc_schema_registry *reg,
                    uint64_t t_sent, int timing_recorded, int keep_events);
/* Feed body bytes that arrived at t_ns. */
int oc_stream_push(struct oc_stream *s, const void *buf, size_t len, uint64_t t_ns);
/* The body has ended (cleanly or not): end-of-stream rules and message
 * rules per choice run here, once. */
void oc_stream_finish(struct oc_stream *s, uint64_t t_ns);
void oc_stream_free(struct oc_stream *s);

/* The rebuilt completion: {"id","model","created","choices":[{"index",
 * "message","finish_reason"}],"usage"?}.  Caller deletes. */
cJSON *oc_stream_completion(const struct oc_stream *s);
/* The event log as JSON events (results schema "event"), with t_ms
 * relative to t_sent, or null when timing was not recorded. */
cJSON *oc_stream_events_json(const struct oc_stream *s, int *truncated);
/* Timing as the results schema's "timing" object. */
cJSON *oc_stream_timing_json(const struct oc_stream *s);

/* The event log and the timing, shared with the other protocols' stream
 * decoders (responses.c): start a log (its slots are made ready as
 * events arrive), add event n, keep the events around a finding at n,
 * free it; the log as results events (t_ms relative to timing->t_sent);
 * a content-bearing event at t (gaps and their percentiles; OC_ENOMEM
 * when a gap could not be kept); the timing as results "timing". */
void oc_event_log_start(struct oc_event_log *log, int enabled);
int oc_event_log_add(struct oc_event_log *log, const struct oc_sse_event *ev, long n, uint64_t t);
void oc_event_log_mark(struct oc_event_log *log, long n);
void oc_event_log_free(struct oc_event_log *log);
cJSON *oc_event_log_json(const struct oc_event_log *log, const struct oc_stream_timing *timing,
                         long events, int *truncated);
int oc_timing_content(struct oc_stream_timing *tm, uint64_t t, long n);
cJSON *oc_timing_json(const struct oc_stream_timing *tm, long events);


#endif
