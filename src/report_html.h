/* report_html.h — one self-contained HTML report from JSON results: a
 * summary, a case × target matrix, and per case its findings, request,
 * response, stream excerpt, timeline and reproduce commands.  The
 * template, stylesheet and script are data files (reports/ under the data
 * directory, see datadir.h) inlined into the output; the results come from
 * the runner or a results file (results_json.h). */
#ifndef OC_REPORT_HTML_H
#define OC_REPORT_HTML_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "util.h"

struct oc_results;
struct oc_sink;

/* Stream the report of rs into sink (report.h): each case read once,
 * failures first, the sink flushed as it goes.  OC_OK, or an OC_E* code
 * with err filled. */
int oc_report_html_stream(struct oc_results *rs, const char *assets_dir, struct oc_sink *sink,
                          char *err, size_t errlen);

/* Append the report for results (borrowed, never trusted) to out, using
 * the template, stylesheet and script read from assets_dir (NULL: the
 * data directory's reports/).  OC_OK, or an OC_E* code with err filled
 * (a missing asset names the file; out is then freed). */
int oc_report_html_render(const cJSON *results, const char *assets_dir, struct oc_buf *out,
                          char *err, size_t errlen);

/* Render and write to path ("-" is stdout).  OC_OK, or an OC_E* code with
 * err naming the file. */
int oc_report_html_write(const cJSON *results, const char *path, char *err, size_t errlen);

#endif
