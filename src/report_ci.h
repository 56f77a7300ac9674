/* report_ci.h — what CI users see without opening a report: GitHub
 * Actions workflow commands (an ::error annotation per failing case,
 * pointing at the case in its suite file) and a Markdown summary (counts
 * per target, the client matrix when the results carry one, failing
 * rules and cases, missing shards, a link to the HTML report), appended
 * to $GITHUB_STEP_SUMMARY or written to any file.  Rendered from a
 * results document alone, like every other report; deciding statuses is
 * the runner's. */
#ifndef OC_REPORT_CI_H
#define OC_REPORT_CI_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "cli.h"
#include "shard.h"
#include "util.h"

#define OC_CI_ANNOTATIONS 50   /* ::error lines per run; GitHub shows no more per job */
#define OC_CI_SUMMARY_CASES 50 /* rows of failing cases in the summary */

struct oc_ci_args {
  int github;             /* --github */
  const char *markdown;   /* --markdown FILE */
  const char *report_url; /* --report-url URL */
  int stdout_report;      /* set by the caller when another report goes to stdout ("-"):
                             the "wrote FILE" lines go to stderr, as oc_reports_write's do */
};

int oc_ci_opt_report_url(const struct oc_option *o, const char *arg, char *err, size_t errlen);

#define OC_OPT_CI(ca)                                                                       \
  OC_OPT_FLAG(0, "github", &(ca)->github,                                                   \
              "GitHub Actions: an ::error annotation per failing\n"                         \
              "case (at its suite file and line), and the Markdown\n"                       \
              "summary appended to $GITHUB_STEP_SUMMARY"),                                  \
  OC_OPT_STRING(0, "markdown", &(ca)->markdown, "FILE",                                     \
                "the same Markdown summary for any CI (GitLab MR\n"                         \
                "notes, Buildkite annotations)"),                                           \
  OC_OPT_CALLBACK(0, "report-url", &(ca)->report_url, "URL", oc_ci_opt_report_url,          \
                  "where the HTML report will be (http or https):\n"                        \
                  "the summary links to it and to each failing case")

/* The workflow commands for doc, appended to b: one "::error
 * file=F,line=L,title=RULE::TARGET suite/case: message" per failing or
 * erroring case (file and line when the suite file is in the repository:
 * under workspace, $GITHUB_WORKSPACE, a relative one taken from cwd, the
 * directory the run is in; without a workspace, a relative path that
 * stays inside cwd; either may be NULL), at most OC_CI_ANNOTATIONS then a warning
 * saying how many more; then one per target for the cases it did not run
 * (unreachable: oc_results_not_run), outside that cap; one per missing
 * shard.  Values are escaped as
 * the workflow-command rules say (data: % CR LF; properties also : and
 * ,), control characters shown as \u001B.  OC_OK, OC_ENOMEM, OC_ETOOBIG
 * (the buffer keeps that error; its owner frees it). */
int oc_ci_github_annotations(const cJSON *doc, const char *workspace, const char *cwd,
                             struct oc_buf *b);

/* The GitHub-flavoured Markdown summary of doc, appended to b: the
 * failing cases at most OC_CI_SUMMARY_CASES rows, then a row per target
 * for the cases it did not run (their rules not counted).  report_url
 * may be NULL.  Everything from the results is escaped for Markdown
 * (& < > as entities, Markdown punctuation backslashed, | in cells, @
 * so no one is mentioned, line breaks as spaces). */
int oc_ci_markdown_summary(const cJSON *doc, const char *report_url, struct oc_buf *b);

/* What a: the annotations to out, the summary appended to
 * $GITHUB_STEP_SUMMARY (env lookup through getenv_fn; unset: a warning)
 * and written to a->markdown, each file written then named ("wrote FILE
 * (Markdown summary)").  Errors are logged naming the file; returns how
 * many outputs failed. */
int oc_ci_reports_write(const cJSON *doc, const struct oc_ci_args *a, FILE *out,
                        oc_getenv_fn getenv_fn);

/* The same three from results read one at a time (report.h): a run's
 * spool or a document. */
struct oc_results;
int oc_ci_github_annotations_from(struct oc_results *rs, const char *workspace, const char *cwd,
                                  struct oc_buf *b);
int oc_ci_markdown_summary_from(struct oc_results *rs, const char *report_url, struct oc_buf *b);
int oc_ci_reports_write_from(struct oc_results *rs, const struct oc_ci_args *a, FILE *out,
                             oc_getenv_fn getenv_fn);

#endif
