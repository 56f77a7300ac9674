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

void oc_event_schema_check(const struct oc_schema *schema, const struct oc_schemas *schemas,
                           const char *rel, enum oc_rule_id rule, struct oc_check *c,
                           struct oc_event_log *log, struct oc_event_seen *seen,
                           const struct oc_sse_event *ev, long n, const struct oc_jv *root)
{
  if(!schema)
    return;
  struct oc_schema_result res;
  oc_schema_result_init(&res);
  res.max = 8;
  int v = oc_schema_validate(schema, root, &res);
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
