/* sse_issue.h — what the SSE parser noticed (sse.c's issues: invalid
 * UTF-8, an unknown field, an event past the caps, a body ending inside
 * an event) as the finding every protocol's stream decoder reports for
 * it, so that chat.c and responses.c say the same thing in the same words.
 * The decoder emits it through its own EMIT (which keeps the events around
 * the finding for the report). */
#ifndef OC_SSE_ISSUE_H
#define OC_SSE_ISSUE_H

#include <stdint.h>

#include "rules.h"
#include "sse.h"

struct oc_sse_finding {
  enum oc_rule_id rule;
  int64_t byte;
  const char *expected, *actual; /* actual may point into field */
  char field[64];                /* an unknown field's name, cut */
  char message[200];
};

/* The finding for issue is, met while event n was read; 0 when the issue
 * is none of a finding's (a BOM, blocks without data: the client models'
 * business), or when the body ends inside an event of a capture cut by
 * whoever made it (partial).  *truncated is set when the body ended
 * inside an event, finding or not. */
int oc_sse_issue_finding(const struct oc_sse_issue *is, long n, int partial, int *truncated,
                         struct oc_sse_finding *f);

#endif
