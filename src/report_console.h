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
  int quiet;        /* -q: no line for a case that passed or was skipped, no progress */
};

/* Decide tty/colour from out, $NO_COLOR and $TERM, and quiet from the
 * log level (-q); cannot fail. */
void oc_console_init(struct oc_console *c, FILE *out);
/* One case finished (done of total). */
void oc_console_result(struct oc_console *c, const cJSON *result, size_t done, size_t total);
/* One case of a target that could not be reached finished (done of
 * total): nothing of it is printed but the progress; with ncases > 0 it
 * is the first of its suite on that target, and one line says for all
 * ncases why they were not run ("ERROR T suite S: 7 cases not run: why").
 * The results keep every case with its reason. */
void oc_console_not_run(struct oc_console *c, const cJSON *result, size_t ncases, const char *why,
                        size_t done, size_t total);
struct oc_results;
/* "Will my client work?": the matrix of each target (matrix.h), the
 * breaks and the limitations one line each; nothing when no client ran.
 * oc_console_summary starts with it.  _from: from the results rs reads
 * (report.h; NULL: nothing), as a run streams them. */
void oc_console_matrix(struct oc_console *c, const cJSON *doc);
void oc_console_matrix_from(struct oc_console *c, struct oc_results *rs);
/* "Will my agent work?": per target and agent, the exchanges its user saw
 * as the server sent them, the breaks and limitations, the first of each
 * with its reason (agent.h); nothing when no agent judged anything. */
void oc_console_agents_from(struct oc_console *c, struct oc_results *rs);
/* The summary of a finished results document. */
void oc_console_summary(struct oc_console *c, const cJSON *doc);
/* The same from a frame (summary, targets, incomplete) and the results
 * rs read through (report.h; NULL: no matrix), as a run streams them. */
void oc_console_summary_from(struct oc_console *c, const cJSON *doc, struct oc_results *rs);

#endif
