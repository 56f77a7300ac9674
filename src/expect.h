/* expect.h — a case's own expectations, applied once its response has
 * been decoded: expected status (or an expected error, overflow, or an
 * answer that means "unsupported"), finish reasons, the tool call it
 * wants, JSON-pointer assertions and timing budgets.  Generic rules that
 * need no case to know about are response.c's and chat.c's. */
#ifndef OC_EXPECT_H
#define OC_EXPECT_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "response.h"
#include "rules.h"
#include "suite.h"

enum oc_expect_outcome {
  OC_EXPECT_CHECKED = 0,   /* findings (if any) were added */
  OC_EXPECT_UNSUPPORTED    /* the answer says the feature is missing: skip */
};

/* Apply c's expectations to the finished response r.  message is the
 * completion rebuilt from a stream (NULL for bodies), timing the results
 * "timing" object (may be NULL).  With OC_EXPECT_UNSUPPORTED, reason says
 * why ("unsupported: HTTP 400 …"). */
enum oc_expect_outcome oc_expect_apply(const struct oc_case *c, const struct oc_response *r,
                                       const cJSON *message, const cJSON *timing,
                                       struct oc_check *check, char *reason, size_t reasonlen);

/* Does status match a suite "status" value (200, "4xx", [200, "4xx"])?
 * NULL matches 200 only. */
int oc_expect_status_matches(const cJSON *spec, int status);

#endif
