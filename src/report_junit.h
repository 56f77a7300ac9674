/* report_junit.h — JUnit XML from JSON results, for the test reporters of
 * Jenkins, GitLab and GitHub: one testsuite per target × suite, one
 * testcase per case.  The results come from the runner or a results file
 * (results_json.h); the mapping is documented in docs/reports.md. */
#ifndef OC_REPORT_JUNIT_H
#define OC_REPORT_JUNIT_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "util.h"

struct oc_results;
struct oc_sink;

/* Stream the JUnit document of rs into sink (report.h), one result at a
 * time.  OC_OK or the first error (the buffer's, or OC_EIO when a result
 * cannot be read back). */
int oc_report_junit_stream(struct oc_results *rs, struct oc_sink *sink);

/* Append the JUnit document for results (borrowed, shaped per
 * schemas/results.schema.json but never trusted: members of the wrong
 * type are skipped) to out.  Returns OC_OK or the oc_buf error (the
 * buffer is then freed). */
int oc_report_junit_render(const cJSON *results, struct oc_buf *out);

/* Render and write to path ("-" is stdout).  OC_OK, or an OC_E* code with
 * err naming the file. */
int oc_report_junit_write(const cJSON *results, const char *path, char *err, size_t errlen);

#endif
