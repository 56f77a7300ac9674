/* load_text.h — the load check's figures as text (load_text.c), for the
 * run that measures them (loadcheck.c) and the reports that read them
 * back from results. */
#ifndef OC_LOAD_TEXT_H
#define OC_LOAD_TEXT_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "util.h"

/* The cases run under load, over every round. */
struct oc_load_runs {
  size_t ran;                  /* ended with a verdict other than skip */
  size_t skipped;
  size_t failed;               /* of ran: failed or errored */
  size_t failed_passing_alone; /* of failed: cases that passed in the baseline */
};

/* "7 cases run with 2 in flight (3 skipped), 1 failed, …" (ncases: the
 * cases that fail only under load). */
void oc_load_runs_line(char *out, size_t len, const struct oc_load_runs *rn, size_t ncases,
                       int in_flight);
/* The same line for a results document's "load" object; 0 when it has
 * no "runs" (results from before the load counted them). */
int oc_load_runs_text(const cJSON *load, char *out, size_t len);
/* The console lines for a "load" object (from a results document). */
int oc_load_text(const cJSON *load, struct oc_buf *b);

#endif
