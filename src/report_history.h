/* report_history.h — what a folder of nightly results says over time:
 * per target and rule when it began failing and when it recovered (and
 * whether the target's pin changed in that very run), flaky cases
 * (verdict flips with no change of pin), the pin's drift, and TTFT,
 * inter-token latency and tokens/s per model and run.  Built as one JSON
 * document (schemas/history.schema.json), from which the text summary
 * and a self-contained HTML page with inline SVG charts are rendered.
 * Reading and checking each results file is results_json.c's; finding
 * the files is cmd_report.c's. */
#ifndef OC_REPORT_HISTORY_H
#define OC_REPORT_HISTORY_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "util.h"

/* A case flips when its verdict (pass, or fail/error) differs from its
 * previous run's; it is flaky with this many flips between runs where
 * the target's pin did not change. */
#define OC_HISTORY_FLAKY_FLIPS 2

/* The history of n results documents (borrowed, already checked; files
 * names them for the output) in any order: they are sorted by
 * oacheck.started, then file name.  A target's pin is its identity's
 * model, models, model_path, chat_template_sha256, n_ctx, total_slots
 * and build (what `oacheck pin` pins).  New document (caller deletes), or
 * NULL with err filled when memory runs out. */
cJSON *oc_history_build(const cJSON *const *docs, const char *const *files, size_t n, char *err,
                        size_t errlen);

/* Drop from a result (checked) what the history never reads — request,
 * response, message, events, reproduce commands, findings' texts — so
 * that a year of nightly results fits in memory; `report history` prunes
 * each result as it is read. */
void oc_history_prune_result(cJSON *result);

/* A few lines per target for a terminal: pin changes, rules that began
 * failing (with the pin change they line up with) or recovered, flaky
 * cases.  Text from the results is escaped for a terminal. */
int oc_history_text(const cJSON *history, struct oc_buf *b);

/* One self-contained HTML page: the template and stylesheet from
 * assets_dir (NULL: the data directory's reports/), a
 * Content-Security-Policy admitting only that stylesheet by hash and no
 * script, a timeline per target (failing rules as bars, flaky cases as
 * dots, pin changes as marked lines) and TTFT, ITL and tokens/s charts on
 * the same time axis, all inline SVG.  OC_OK or an OC_E* code with err
 * filled (out is then freed). */
int oc_history_html(const cJSON *history, const char *assets_dir, struct oc_buf *out, char *err,
                    size_t errlen);

#endif
