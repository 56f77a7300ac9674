/* loadcheck.h — `oacheck run --load N [--duration S]`: load as a check,
 * on purpose.  The plan has already run as one client sees it (the
 * baseline: each target's own concurrency, shared-context failures run
 * again alone); its live cases then run again with N in flight per
 * target, round after round until S seconds have passed (at least once;
 * a signal ends it within a round, and so does a round that ran no case),
 * and every case that passed in the baseline and failed under load gets a
 * DEPLOY-LOAD finding in its baseline result, carrying the load failure's
 * diagnosis: "works for one client, fails for four".  Running cases is
 * runner.c's; what a failure means is deployment.c's. */
#ifndef OC_LOADCHECK_H
#define OC_LOADCHECK_H

#include <cjson/cJSON.h>

#include "runner.h"

struct oc_load_options {
  int in_flight;            /* N */
  long duration_ms;         /* keep going this long; 0: one round */
  /* counting a prompt's tokens on a live target (/apply-template,
   * /tokenize); NULL: the baseline's usage only */
  const struct oc_identify_options *identify;
};

/* Run base's live cases under load and compare (see the top).  base must
 * have run (oc_run_execute); its results are amended in place.  *out is
 * the results document's "load" object (caller deletes).  Returns OC_OK
 * or OC_ENOMEM. */
int oc_load_check(struct oc_run *base, const struct oc_load_options *lo, cJSON **out);

#endif
