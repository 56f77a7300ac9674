/* report.c — the results document's frame and the report files a command
 * writes from it.  Every report is rendered from the finished document, so
 * `oacheck report render` gives the same files later. */
#include "config.h"
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report_html.h"
#include "report_junit.h"
#include "secret.h"
#include "util.h"

cJSON *oc_results_doc_new(const char *mode, const char *started, const char *note,
                          const char *command)
{
  int oom = 0;
  cJSON *doc = cJSON_CreateObject();
  cJSON *meta = oc_json_put(&oom, doc, "oacheck", cJSON_CreateObject());
  char now[32];
  oc_now_rfc3339(now);
  oc_json_put_str(&oom, meta, "version", PACKAGE_VERSION);
  oc_json_put_str(&oom, meta, "started", started ? started : now);
  oc_json_put_str(&oom, meta, "finished", now);
  oc_json_put_str(&oom, meta, "mode", mode);
  oc_json_put_str(&oom, meta, "note", note);
  oc_json_put_str(&oom, meta, "command", command);
  oc_json_put(&oom, doc, "targets", cJSON_CreateArray());
  oc_json_put(&oom, doc, "summary", cJSON_CreateObject());
  oc_json_put(&oom, doc, "results", cJSON_CreateArray());
  if(oom) {
    cJSON_Delete(doc);
    return NULL;
  }
  return doc;
}

int oc_reports_write(const cJSON *doc, const char *json, const char *junit, const char *html)
{
  char err[700];
  int bad = 0;
  if(json) {
    char *text = cJSON_Print(doc);
    if(!text || oc_secret_write_file(json, text, strlen(text), err, sizeof(err))) {
      oc_error("%s", text ? err : "out of memory writing the JSON results");
      bad++;
    }
    free(text);
  }
  if(junit && oc_report_junit_write(doc, junit, err, sizeof(err))) {
    oc_error("%s", err);
    bad++;
  }
  if(html && oc_report_html_write(doc, html, err, sizeof(err))) {
    oc_error("%s", err);
    bad++;
  }
  return bad;
}
