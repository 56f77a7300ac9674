/* reports.h — write every report a command asked for (reports.c): JSON,
 * JUnit and HTML from one results index (report.h). */
#ifndef OC_REPORTS_H
#define OC_REPORTS_H

#include <stdio.h>

#include "report.h"

/* "wrote PATH (WHAT)" on said, PATH made safe for a terminal: a command
 * that wrote files ends by naming each ("JSON report", "Markdown
 * summary"); said is stderr when a report itself goes to stdout. */
void oc_report_said(FILE *said, const char *path, const char *what);
/* Write the requested reports of rs (each path may be NULL).  Errors are
 * logged naming the file; returns the number of reports that failed. */
int oc_reports_write_from(struct oc_results *rs, const char *json, const char *junit,
                          const char *html);
/* The same for a whole document in memory. */
int oc_reports_write(const cJSON *doc, const char *json, const char *junit, const char *html);

#endif
