/* typed_events.h — what every stream decoder shares beside its own state
 * machine: where a value inside an event's data sits in the body, the FNV
 * hash the typed-event decoders (responses.c, messages.c) keep texts as,
 * and the per-event schema check of a typed-event protocol, each distinct
 * deviation said once per stream (a stream repeats one shape thousands of
 * times). */
#ifndef OC_TYPED_EVENTS_H
#define OC_TYPED_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "chat.h"
#include "jdoc.h"
#include "rules.h"
#include "sse.h"

struct oc_schema;
struct oc_schemas;

#define OC_FNV_OFFSET UINT64_C(0xcbf29ce484222325)

/* The body offset of a value at jv_offset inside ev's data: exact for a
 * one-line data field, else the event's first byte. */
static inline int64_t oc_sse_data_byte(const struct oc_sse_event *ev, uint32_t jv_offset)
{
  return ev->data_lines == 1 ? (int64_t)(ev->data_first + jv_offset) : (int64_t)ev->first_byte;
}

/* FNV-1a over p[0..n), continuing from h (start with OC_FNV_OFFSET). */
uint64_t oc_fnv1a(uint64_t h, const char *p, size_t n);

/* The schema deviations a stream already reported (hashed): each once. */
struct oc_event_seen {
  uint64_t h[32];
  size_t n;
};

/* The members of a protocol's events whose values its shipped event
 * schema judges without reading them: free texts (a string constrained by
 * type alone: a delta, a done text, arguments) and counters (an integer
 * of at least 0: sequence numbers, indexes).  Two events that differ only
 * there validate alike, so an event whose shape (everything else, and the
 * free texts' and counters' classes) validated once is not validated
 * again: a stream is thousands of events of a few shapes.  check_typed.c
 * keeps the shipped schemas true to these lists. */
struct oc_shape_key {
  const char *name; /* NULL ends a list */
  size_t len;
};
struct oc_shape_keys {
  const struct oc_shape_key *free_text;
  const struct oc_shape_key *counters;
};
extern const struct oc_shape_keys oc_responses_shape_keys, oc_messages_shape_keys;

/* The shapes of one stream's events that validated. */
struct oc_shape_memo {
  const struct oc_shape_keys *keys; /* NULL: no memo, every event validated */
  uint64_t h[16];
  size_t n;
  long validations; /* schema validations run (the tests count them) */
};

static inline void oc_shape_memo_init(struct oc_shape_memo *m, const struct oc_shape_keys *keys)
{
  memset(m, 0, sizeof(*m));
  m->keys = keys;
}

/* The shape of an event's root under keys. */
uint64_t oc_event_shape(const struct oc_shape_keys *keys, const struct oc_jv *root);

/* Validate event n's root against schema (rel is its shipped document,
 * for the nullable-required severity and messages), unless an event of
 * its shape validated already (memo, may be NULL); each new deviation is
 * rule, marked in log so the report keeps the events around it. */
void oc_event_schema_check(const struct oc_schema *schema, const struct oc_schemas *schemas,
                           const char *rel, enum oc_rule_id rule, struct oc_check *c,
                           struct oc_event_log *log, struct oc_event_seen *seen,
                           struct oc_shape_memo *memo, const struct oc_sse_event *ev, long n,
                           const struct oc_jv *root);

#endif
