/* typed_events.c — the pieces every stream decoder shares (see
 * typed_events.h). */
#include "config.h"
#include "typed_events.h"

#include <string.h>

#include "response.h"
#include "schema.h"
#include "util.h"

uint64_t oc_fnv1a(uint64_t h, const char *p, size_t n)
{
  for(size_t i = 0; i < n; i++) {
    h ^= (unsigned char)p[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

/* ---- the event-shape memo ---------------------------------------------------- */

#define KEY(s) { s, sizeof(s) - 1 }
static const struct oc_shape_key responses_free[] = { KEY("delta"), KEY("text"), KEY("arguments"),
                                                      KEY("item_id"), { NULL, 0 } };
static const struct oc_shape_key responses_counters[] = { KEY("sequence_number"), KEY("output_index"),
                                                          KEY("content_index"), { NULL, 0 } };
static const struct oc_shape_key messages_free[] = { KEY("text"), KEY("thinking"), KEY("partial_json"),
                                                     KEY("signature"), { NULL, 0 } };
static const struct oc_shape_key messages_counters[] = { KEY("index"), { NULL, 0 } };
#undef KEY
const struct oc_shape_keys oc_responses_shape_keys = { responses_free, responses_counters };
const struct oc_shape_keys oc_messages_shape_keys = { messages_free, messages_counters };

enum { ROLE_VALUE, ROLE_FREE, ROLE_COUNTER };

static int key_in(const struct oc_shape_key *list, const char *k, uint32_t n)
{
  for(; list->name; list++)
    if(list->len == n && memcmp(list->name, k, n) == 0)
      return 1;
  return 0;
}

static inline uint64_t fold(uint64_t h, uint64_t w)
{
  h = (h ^ w) * UINT64_C(0x9E3779B97F4A7C15);
  return h ^ (h >> 29);
}

/* Bytes eight at a time, then the tail with its length in the top byte. */
static uint64_t mix(uint64_t h, const char *b, size_t n)
{
  for(; n >= 8; b += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, b, 8);
    h = fold(h, w);
  }
  uint64_t w = (uint64_t)n << 56;
  for(size_t i = 0; i < n; i++)
    w |= (uint64_t)(unsigned char)b[i] << (8 * i);
  return fold(h, w);
}

static uint64_t shape_of(const struct oc_shape_keys *keys, const struct oc_jv *v, uint64_t h,
                         int role, int depth)
{
  uint64_t tag = (uint64_t)v->type;
  if(v->type == OC_JARRAY || v->type == OC_JOBJECT)
    tag |= (uint64_t)v->len << 8;
  h = fold(h, tag);
  if(depth > 64)
    return fold(h, (uint64_t)v->end); /* deep: never shared by accident */
  switch(v->type) {
  case OC_JSTRING:
    return role == ROLE_FREE ? fold(h, UINT64_C(0xff)) : mix(h, v->u.str, v->len);
  case OC_JNUMBER: {
    if(role == ROLE_COUNTER) /* what "integer, minimum 0" reads of it */
      return fold(h, UINT64_C(0xc0) | (uint64_t)oc_jv_is_integer(v) << 1 | (v->u.num >= 0));
    uint64_t w;
    memcpy(&w, &v->u.num, sizeof(w));
    return fold(h, w);
  }
  case OC_JARRAY:
    for(uint32_t i = 0; i < v->len; i++)
      h = shape_of(keys, &v->u.items[i], h, ROLE_VALUE, depth + 1);
    return h;
  case OC_JOBJECT:
    for(uint32_t i = 0; i < v->len; i++) {
      const struct oc_jmember *m = &v->u.members[i];
      int r = key_in(keys->free_text, m->key, m->key_len)  ? ROLE_FREE
              : key_in(keys->counters, m->key, m->key_len) ? ROLE_COUNTER
                                                           : ROLE_VALUE;
      h = mix(h, m->key, m->key_len);
      h = shape_of(keys, &m->value, h, r, depth + 1);
    }
    return h;
  default:
    return h;
  }
}

uint64_t oc_event_shape(const struct oc_shape_keys *keys, const struct oc_jv *root)
{
  return shape_of(keys, root, OC_FNV_OFFSET, ROLE_VALUE, 0);
}

void oc_event_schema_check(const struct oc_schema *schema, const struct oc_schemas *schemas,
                           const char *rel, enum oc_rule_id rule, struct oc_check *c,
                           struct oc_event_log *log, struct oc_event_seen *seen,
                           struct oc_shape_memo *memo, const struct oc_sse_event *ev, long n,
                           const struct oc_jv *root)
{
  if(!schema)
    return;
  uint64_t shape = 0;
  if(memo && memo->keys) {
    shape = oc_event_shape(memo->keys, root);
    size_t k = memo->n < OC_ARRAY_LEN(memo->h) ? memo->n : OC_ARRAY_LEN(memo->h);
    for(size_t i = 0; i < k; i++)
      if(memo->h[i] == shape)
        return;
  }
  struct oc_schema_result res;
  oc_schema_result_init(&res);
  res.max = 8;
  if(memo)
    memo->validations++;
  int v = oc_schema_validate(schema, root, &res);
  if(v == 1 && memo && memo->keys)
    memo->h[memo->n++ % OC_ARRAY_LEN(memo->h)] = shape;
  if(v == -OC_ETOOBIG)
    oc_check_limit(c, "event %ld could not be validated against %s: %s", n, rel, res.undecided);
  else if(v < 0)
    c->oom = 1;
  else if(v == 0)
    for(size_t i = 0; i < res.count; i++) {
      const struct oc_schema_error *e = &res.errors[i];
      /* the same deviation on every delta is said once, at its first event */
      const char *et = oc_jv_str(root, "type", NULL);
      uint64_t h = oc_fnv1a(OC_FNV_OFFSET, et ? et : "", et ? strlen(et) : 0);
      h = oc_fnv1a(h, e->instance_path, strlen(e->instance_path));
      h = oc_fnv1a(h, e->message ? e->message : "", e->message ? strlen(e->message) : 0);
      int dup = 0;
      for(size_t k = 0; k < seen->n && !dup; k++)
        dup = seen->h[k] == h;
      if(dup)
        continue;
      if(seen->n < OC_ARRAY_LEN(seen->h))
        seen->h[seen->n++] = h;
      oc_event_log_mark(log, n);
      oc_emit(c, rule,
              OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, (uint32_t)e->offset),
                    .path = e->instance_path, .expected = e->keyword, .actual = e->message,
                    .severity = oc_schemas_error_severity(schemas, c, rel, e)),
              "event %ld: at '%s': %s", n, e->instance_path, e->message);
    }
  oc_schema_result_free(&res);
}
