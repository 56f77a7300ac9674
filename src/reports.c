/* reports.c — every report a command asked for, written from one results
 * index: JSON (report.c's renderer), JUnit (report_junit.c) and HTML
 * (report_html.c).  Apart from report.c so that the results index, which
 * every renderer reads, depends on none of them. */
#include "config.h"
#include "reports.h"

#include "report_html.h"
#include "report_junit.h"
#include "secret.h"

static int write_one(struct oc_results *rs, const char *path, const char *what,
                     int (*render)(struct oc_results *, struct oc_sink *))
{
  char err[700];
  struct oc_sink s;
  if(oc_sink_open(&s, path, err, sizeof(err))) {
    oc_error("%s", err);
    return 1;
  }
  int rc = render(rs, &s);
  if(oc_sink_close(&s, rc, err, sizeof(err))) {
    oc_error("%s: %s", what, err);
    return 1;
  }
  return 0;
}

static int render_junit(struct oc_results *rs, struct oc_sink *s)
{
  return oc_report_junit_stream(rs, s);
}

static int render_html(struct oc_results *rs, struct oc_sink *s)
{
  char err[600];
  int rc = oc_report_html_stream(rs, NULL, s, err, sizeof(err));
  if(rc)
    oc_error("%s", err);
  return rc;
}

void oc_report_said(FILE *said, const char *path, const char *what)
{
  struct oc_buf shown;
  oc_buf_init(&shown, OC_CAP_MESSAGE);
  oc_esc_addn_cut(&shown, path, 1000, OC_ESC_TEXT);
  fprintf(said, "wrote %s (%s)\n", oc_buf_str(&shown), what);
  oc_buf_free(&shown);
}

int oc_reports_write_from(struct oc_results *rs, const char *json, const char *junit,
                          const char *html)
{
  const char *paths[3] = { json, junit, html };
  static const char *const what[3] = { "JSON report", "JUnit report", "HTML report" };
  int (*const render[3])(struct oc_results *, struct oc_sink *) = { oc_report_json_render,
                                                                    render_junit, render_html };
  /* what went where is said last, on stdout, unless a report itself
   * goes there ("-"): then on stderr, so that stdout stays that report */
  FILE *said = stdout;
  for(int k = 0; k < 3; k++)
    if(oc_streq(paths[k], "-"))
      said = stderr;
  int bad = 0;
  for(int k = 0; k < 3; k++) {
    if(!paths[k])
      continue;
    int failed = write_one(rs, paths[k], what[k], render[k]);
    bad += failed;
    if(!failed && !oc_streq(paths[k], "-"))
      oc_report_said(said, paths[k], what[k]);
  }
  fflush(said);
  return bad;
}

int oc_reports_write(const cJSON *doc, const char *json, const char *junit, const char *html)
{
  if(!json && !junit && !html)
    return 0;
  struct oc_results rs;
  if(oc_results_from_doc(&rs, doc)) {
    oc_error("out of memory writing the reports");
    return (json != NULL) + (junit != NULL) + (html != NULL);
  }
  int bad = oc_reports_write_from(&rs, json, junit, html);
  oc_results_free(&rs);
  return bad;
}
