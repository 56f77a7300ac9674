/* report.h — the frame of a results document and writing the reports a
 * command was asked for (--json, --junit, --html), shared by run,
 * templates and pin.  The renderers themselves are report_junit.c and
 * report_html.c; the console is report_console.c. */
#ifndef OC_REPORT_H
#define OC_REPORT_H

#include <cjson/cJSON.h>

/* A new results document: {"oacheck": {version, started, mode[, note]
 * [, command]}, "targets": [], "summary": {}, "results": []}.  started
 * NULL means now.  Caller deletes; NULL when memory runs out. */
cJSON *oc_results_doc_new(const char *mode, const char *started, const char *note,
                          const char *command);

/* Write the requested reports of doc (each path may be NULL).  Errors are
 * logged naming the file; returns the number of reports that failed. */
int oc_reports_write(const cJSON *doc, const char *json, const char *junit, const char *html);

#endif
