/* report_console.h — what `oacheck run` prints while and after it runs: on
 * a terminal a live progress line and a colour summary (NO_COLOR
 * respected), elsewhere (CI) one plain line per case.  It renders from the
 * result objects only, like every other report. */
#ifndef OC_REPORT_CONSOLE_H
#define OC_REPORT_CONSOLE_H

#include <cjson/cJSON.h>
#include <stdio.h>

struct oc_console {
  FILE *out;
  int tty;          /* progress line and colours */
  int color;
  int progress_shown;
  int verbose;      /* print every finding, not only the first error */
};

/* Decide tty/colour from out, $NO_COLOR and $TERM; cannot fail. */
void oc_console_init(struct oc_console *c, FILE *out);
/* One case finished (done of total). */
void oc_console_result(struct oc_console *c, const cJSON *result, size_t done, size_t total);
/* "Will my client work?": the matrix of each target (matrix.h), the
 * breaks and the limitations one line each; nothing when no client ran.
 * oc_console_summary starts with it. */
void oc_console_matrix(struct oc_console *c, const cJSON *doc);
/* The summary of a finished results document. */
void oc_console_summary(struct oc_console *c, const cJSON *doc);

#endif
