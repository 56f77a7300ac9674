/* report_junit.c — JSON results to JUnit XML (the Jenkins xUnit plugin's
 * junit-10.xsd, which GitLab and GitHub reporters also read), streamed:
 * the results are grouped from their refs in one pass and each is read
 * once (report.h), so a run of any size holds one case.  Escaping is
 * results_json.c's; deciding what passed is the runner's: this file only
 * maps.  The mapping table is in docs/reports.md. */
#include "config.h"
#include "report_junit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "deployment.h"
#include "json.h"
#include "matrix.h"
#include "serves.h"
#include "report.h"
#include "results_json.h"
#include "secret.h"
#include "shard.h"

#define OC_JUNIT_MESSAGE_MAX 1000 /* bytes of a failure/error/skipped message attribute */
#define OC_JUNIT_EVENT_MAX 600    /* bytes of one event in a stream excerpt */
#define OC_JUNIT_EVENTS 12        /* events in a stream excerpt */

static int add_attr(struct oc_buf *b, const char *name, const char *value)
{
  int rc = oc_buf_printf(b, " %s=\"", name);
  if(!rc)
    rc = oc_esc_addn_cut(b, value ? value : "", OC_CAP_MESSAGE, OC_ESC_XML_ATTR);
  if(!rc)
    rc = oc_buf_addc(b, '"');
  return rc;
}

static int add_attr_long(struct oc_buf *b, const char *name, long v)
{
  return oc_buf_printf(b, " %s=\"%ld\"", name, v);
}

static int add_property(struct oc_buf *b, const char *name, const char *value)
{
  if(!value)
    return OC_OK;
  int rc = oc_buf_adds(b, "      <property");
  if(!rc)
    rc = add_attr(b, "name", name);
  if(!rc)
    rc = add_attr(b, "value", value);
  if(!rc)
    rc = oc_buf_adds(b, "/>\n");
  return rc;
}

static int add_property_json(struct oc_buf *b, const char *name, const cJSON *v)
{
  char tmp[64];
  return add_property(b, name, oc_json_scalar_text(v, tmp, sizeof(tmp)));
}

/* What the deployment said about itself, and its recordings' origin. */
static int deployment_properties(struct oc_buf *b, const cJSON *t)
{
  const cJSON *dep = oc_json_obj(t, "deployment");
  struct oc_buf text;
  oc_buf_init(&text, OC_CAP_MESSAGE * 4);
  int rc = OC_OK;
  if(dep && (rc = oc_deployment_text(dep, &text)) == OC_OK)
    rc = add_property(b, "deployment", oc_buf_str(&text));
  if(!rc && dep)
    rc = add_property(b, "deployment.context", oc_json_str(dep, "context"));
  if(!rc && oc_json_obj(t, "recorded")) {
    oc_buf_reset(&text);
    if((rc = oc_recorded_text(oc_json_obj(t, "recorded"), &text)) == OC_OK)
      rc = add_property(b, "recorded", oc_buf_str(&text));
  }
  if(!rc)
    rc = add_property_json(b, "jobs", oc_json_get(t, "jobs"));
  char protocols[600];
  oc_serves_text_of(oc_json_obj(t, "protocols"), protocols, sizeof(protocols));
  if(!rc && protocols[0])
    rc = add_property(b, "protocols", protocols);
  oc_buf_free(&text);
  return rc;
}

/* The target's identity, so a CI page says what was tested. */
static int add_properties(struct oc_buf *b, const cJSON *doc, const char *target_name)
{
  const cJSON *t = oc_results_target(doc, target_name);
  const cJSON *id = oc_json_obj(t, "identity");
  const cJSON *run = oc_json_obj(doc, "oacheck");
  char *url = oc_results_clean_url(oc_json_str(t, "url"));
  struct oc_buf models;
  oc_buf_init(&models, OC_CAP_MESSAGE * 4);
  int rc = oc_buf_adds(b, "    <properties>\n");
  if(rc)
    goto out;
  const cJSON *m;
  cJSON_ArrayForEach(m, oc_json_arr(id, "models")) {
    if(!cJSON_IsString(m))
      continue;
    if((models.len && oc_buf_adds(&models, ", ")) || oc_buf_adds(&models, m->valuestring)) {
      oc_buf_reset(&models); /* too many: leave them out */
      break;
    }
  }
  struct oc_buf policy_clients;
  oc_buf_init(&policy_clients, OC_CAP_MESSAGE);
  const cJSON *pc;
  cJSON_ArrayForEach(pc, oc_json_arr(oc_json_obj(run, "policy"), "clients"))
    if(cJSON_IsString(pc) && ((policy_clients.len && oc_buf_adds(&policy_clients, ",")) ||
                              oc_buf_adds(&policy_clients, pc->valuestring)))
      break;
  char shard[64] = "";
  const cJSON *sh = oc_json_obj(run, "shard");
  if(oc_json_is_integer(oc_json_get(sh, "index")) && oc_json_is_integer(oc_json_get(sh, "count")))
    snprintf(shard, sizeof(shard), "%.0f/%.0f", oc_json_num(sh, "index", 0),
             oc_json_num(sh, "count", 0));
  if((rc = add_property(b, "target", target_name)) ||
     (rc = add_property(b, "target.kind", oc_json_str(t, "kind"))) ||
     (rc = add_property(b, "target.url", url)) ||
     (rc = add_property(b, "target.recordings", oc_json_str(t, "recordings"))) ||
     (rc = add_property_json(b, "target.reachable", oc_json_get(t, "reachable"))) ||
     (rc = add_property(b, "target.error", oc_json_str(t, "error"))) ||
     (rc = add_property(b, "profile", oc_json_str(t, "profile"))) ||
     (rc = add_property(b, "profile.source", oc_json_str(t, "profile_source"))) ||
     (rc = add_property(b, "model", oc_json_str(id, "model"))) ||
     (rc = add_property(b, "models", models.len ? oc_buf_str(&models) : NULL)) ||
     (rc = add_property(b, "models.problem", oc_json_str(id, "models_problem"))) ||
     (rc = add_property_json(b, "n_ctx", oc_json_get(id, "n_ctx"))) ||
     (rc = add_property_json(b, "total_slots", oc_json_get(id, "total_slots"))) ||
     (rc = add_property(b, "chat_template_sha256", oc_json_str(id, "chat_template_sha256"))) ||
     (rc = add_property(b, "build", oc_json_str(id, "build"))) ||
     (rc = add_property(b, "server", oc_json_str(id, "server"))) ||
     (rc = add_property(b, "model_path", oc_json_str(id, "model_path"))) ||
     (rc = add_property_json(b, "timing_recorded", oc_json_get(t, "timing_recorded"))) ||
     (rc = add_property(b, "oacheck.version", oc_json_str(run, "version"))) ||
     (rc = add_property(b, "oacheck.mode", oc_json_str(run, "mode"))) ||
     (rc = add_property(b, "oacheck.started", oc_json_str(run, "started"))) ||
     (rc = add_property(b, "oacheck.shard", shard[0] ? shard : NULL)) ||
     (rc = add_property(b, "oacheck.policy", oc_json_str(oc_json_obj(run, "policy"), "mode"))) ||
     (rc = add_property(b, "oacheck.policy.text", oc_json_str(oc_json_obj(run, "policy"), "text"))) ||
     (rc = add_property(b, "oacheck.clients", policy_clients.len ? oc_buf_str(&policy_clients) : NULL)) ||
     (rc = add_property_json(b, "oacheck.merged_from", oc_json_get(run, "merged_from"))) ||
     (rc = deployment_properties(b, t)))
    goto out;
  rc = oc_buf_adds(b, "    </properties>\n");
out:
  free(url);
  oc_buf_free(&models);
  oc_buf_free(&policy_clients);
  return rc;
}

static int add_message_attr(struct oc_buf *b, const char *rule, const char *msg)
{
  int rc = oc_buf_adds(b, " message=\"");
  if(!rc && rule)
    rc = oc_esc_addn_cut(b, rule, 200, OC_ESC_XML_ATTR);
  if(!rc && rule && msg)
    rc = oc_buf_adds(b, ": ");
  if(!rc && msg)
    rc = oc_esc_addn_cut(b, msg, OC_JUNIT_MESSAGE_MAX, OC_ESC_XML_ATTR);
  if(!rc)
    rc = oc_buf_addc(b, '"');
  return rc;
}

/* ---- "Will my client work?" ------------------------------------------------------------
 * First, one testsuite per target with a testcase per client: a failure
 * when the server breaks it in some row (the same break fails the case it
 * comes from too), else a failure of type SERVER-FAULT when the client
 * returned what the server sent but that left the application an answer
 * cut or unusable in some row, an error when it breaks nowhere but a row has no
 * verdict (a case of it ended in error), skipped when no case exercised
 * it, else a pass; the rows, limitations included, in its system-out. */

static int matrix_counts(const struct oc_matrix *m, int k, int *breaks, int *errors, int *exercised)
{
  *breaks = *errors = *exercised = 0;
  for(int row = 0; row < OC_ROW__COUNT; row++) {
    /* a server fault fails the client's testcase as a break does: the
     * application does not get a usable answer */
    *breaks += m->cells[row][k].state == OC_CELL_BREAKS || m->cells[row][k].state == OC_CELL_SERVER_FAULT;
    *errors += m->cells[row][k].state == OC_CELL_ERROR;
    *exercised += m->cells[row][k].state != OC_CELL_NOT_EXERCISED;
  }
  return 0;
}

static int cell_text(struct oc_buf *t, const struct oc_cell *cell, int row)
{
  int rc = oc_buf_printf(t, "%s: %s", oc_row_title(row), oc_cell_state_name(cell->state));
  /* the reasoning row says what the client read of the reasoning too */
  const char *rsn = row == OC_ROW_REASONING ? oc_cell_reasoning_word(cell) : NULL;
  if(!rc && row == OC_ROW_REASONING && (rsn || cell->rsn_leaks))
    rc = oc_buf_printf(t, "; reads reasoning: %s (seen %d, partial %d, hidden %d)%s", rsn ? rsn : "none",
                       cell->rsn_seen, cell->rsn_partial, cell->rsn_hidden,
                       cell->rsn_leaks ? "; think or harmony markup in the answer" : "");
  if(!rc && cell->reason && cell->state == OC_CELL_ERROR)
    rc = oc_buf_printf(t, " (no verdict): %s (%s/%s)", cell->reason, cell->suite ? cell->suite : "",
                       cell->kase ? cell->kase : "");
  else if(!rc && cell->reason &&
          (cell->state == OC_CELL_BREAKS || cell->state == OC_CELL_LIMITATION || cell->state == OC_CELL_SERVER_FAULT))
    rc = oc_buf_printf(t, "%s: %s (%s/%s)",
                       cell->state == OC_CELL_LIMITATION     ? " (the client's own, OpenAI's answers too)"
                       : cell->state == OC_CELL_SERVER_FAULT ? " (the client is faithful: the server's fault)"
                                                             : "",
                       cell->reason, cell->suite ? cell->suite : "", cell->kase ? cell->kase : "");
  return rc ? rc : oc_buf_addc(t, '\n');
}

/* "Will my agent work? (TARGET)": a testcase per agent that judged an
 * exchange of the target (oc_agents_tally), failing with its first break
 * and the case it is in; its counts in system-out.  *tests and *fails
 * say what it adds to the totals; nothing is written when no agent
 * judged anything (*tests 0). */
static int add_agents_suite(struct oc_buf *b, struct oc_results *rs, const char *target, long id,
                            const char *timestamp, long *tests, long *fails)
{
  struct oc_agent_tally tl[OC_AGENT__COUNT];
  *tests = *fails = 0;
  if(!oc_agents_tally(rs, target, tl))
    return OC_OK;
  for(int a = 0; a < OC_AGENT__COUNT; a++)
    if(tl[a].works || tl[a].errors || tl[a].breaks || tl[a].limits) {
      (*tests)++;
      *fails += tl[a].breaks > 0;
    }
  struct oc_buf name, msg;
  oc_buf_init(&name, OC_CAP_MESSAGE * 4);
  oc_buf_init(&msg, OC_CAP_MESSAGE);
  int rc = oc_buf_printf(&name, "Will my agent work? (%s)", target);
  if(!rc) rc = oc_buf_adds(b, "  <testsuite");
  if(!rc) rc = add_attr(b, "name", oc_buf_str(&name));
  if(!rc) rc = add_attr(b, "package", target);
  if(!rc) rc = add_attr_long(b, "id", id);
  if(!rc) rc = add_attr_long(b, "tests", *tests);
  if(!rc) rc = add_attr_long(b, "failures", *fails);
  if(!rc) rc = oc_buf_adds(b, " errors=\"0\" skipped=\"0\" time=\"0.000\"");
  if(!rc && timestamp) rc = add_attr(b, "timestamp", timestamp);
  if(!rc) rc = oc_buf_adds(b, ">\n");
  for(int a = 0; !rc && a < OC_AGENT__COUNT; a++) {
    if(!tl[a].works && !tl[a].errors && !tl[a].breaks && !tl[a].limits)
      continue;
    rc = oc_buf_adds(b, "    <testcase");
    if(!rc) rc = add_attr(b, "name", oc_agent_name((enum oc_agent_id)a));
    if(!rc) rc = add_attr(b, "classname", oc_buf_str(&name));
    if(!rc) rc = oc_buf_adds(b, " time=\"0.000\">\n");
    if(!rc && tl[a].first_break >= 0) {
      char err[700];
      const cJSON *r = oc_results_get(rs, (size_t)tl[a].first_break, err, sizeof(err));
      const cJSON *v = r ? oc_json_obj(oc_json_obj(r, "agents"), oc_agent_name((enum oc_agent_id)a)) : NULL;
      const struct oc_result_ref *f = &rs->refs[tl[a].first_break];
      oc_buf_reset(&msg);
      rc = oc_buf_printf(&msg, "%s %s breaks on %ld exchange%s, first: %s (%s/%s)",
                         oc_agent_name((enum oc_agent_id)a), oc_agent_version((enum oc_agent_id)a),
                         tl[a].breaks, tl[a].breaks == 1 ? "" : "s",
                         v && oc_json_str(v, "reason") ? oc_json_str(v, "reason") : "",
                         f->suite ? f->suite : "", f->kase ? f->kase : "");
      if(!rc) rc = oc_buf_adds(b, "      <failure type=\"CLIENT-BREAKS\"");
      if(!rc) rc = add_message_attr(b, NULL, oc_buf_str(&msg));
      if(!rc) rc = oc_buf_adds(b, "/>\n");
    }
    oc_buf_reset(&msg);
    if(!rc) rc = oc_buf_printf(&msg, "works %ld, the server's error shown %ld, breaks %ld, its limitation %ld\n",
                               tl[a].works, tl[a].errors, tl[a].breaks, tl[a].limits);
    if(!rc) rc = oc_buf_adds(b, "      <system-out>");
    if(!rc) rc = oc_esc_add(b, msg.data, msg.len, OC_ESC_XML_TEXT);
    if(!rc) rc = oc_buf_adds(b, "</system-out>\n    </testcase>\n");
  }
  if(!rc) rc = oc_buf_adds(b, "  </testsuite>\n");
  oc_buf_free(&name);
  oc_buf_free(&msg);
  return rc;
}

static int add_matrix_suite(struct oc_buf *b, const cJSON *doc, const struct oc_matrix *m, long id,
                            const char *timestamp)
{
  struct oc_buf t, name;
  oc_buf_init(&t, OC_CAP_REPORT);
  oc_buf_init(&name, OC_CAP_MESSAGE * 4);
  long fails = 0, errors = 0, skips = 0, tests = 0;
  for(int k = 0; k < OC_CLIENT__COUNT; k++) {
    int br, er, ex;
    if(!oc_matrix_has(m, k))
      continue;
    tests++;
    matrix_counts(m, k, &br, &er, &ex);
    fails += br > 0;
    errors += !br && er > 0;
    skips += ex == 0;
  }
  int rc = oc_buf_printf(&name, "Will my client work? (%s)", m->target);
  if(!rc) rc = oc_buf_adds(b, "  <testsuite");
  if(!rc) rc = add_attr(b, "name", oc_buf_str(&name));
  if(!rc) rc = add_attr(b, "package", m->target);
  if(!rc) rc = add_attr_long(b, "id", id);
  if(!rc) rc = add_attr_long(b, "tests", tests);
  if(!rc) rc = add_attr_long(b, "failures", fails);
  if(!rc) rc = add_attr_long(b, "errors", errors);
  if(!rc) rc = add_attr_long(b, "skipped", skips);
  if(!rc) rc = oc_buf_adds(b, " time=\"0.000\"");
  if(!rc && timestamp) rc = add_attr(b, "timestamp", timestamp);
  if(!rc) rc = oc_buf_adds(b, ">\n");
  if(!rc) rc = add_properties(b, doc, m->target);
  for(int k = 0; !rc && k < OC_CLIENT__COUNT; k++) {
    int br, er, ex;
    if(!oc_matrix_has(m, k))
      continue;
    matrix_counts(m, k, &br, &er, &ex);
    oc_buf_reset(&t);
    rc = oc_buf_adds(b, "    <testcase");
    if(!rc) rc = add_attr(b, "name", oc_client_name((enum oc_client_id)k));
    if(!rc) rc = add_attr(b, "classname", oc_buf_str(&name));
    if(!rc) rc = add_attr(b, "group", oc_client_protocol((enum oc_client_id)k));
    if(!rc) rc = oc_buf_adds(b, " time=\"0.000\">\n");
    for(int row = 0; !rc && row < OC_ROW__COUNT; row++)
      if(m->cells[row][k].state != OC_CELL_NOT_EXERCISED)
        rc = cell_text(&t, &m->cells[row][k], row);
    if(!rc && !ex)
      rc = oc_buf_adds(b, "      <skipped message=\"not exercised: no case of a checklist row reached this "
                          "client\"/>\n");
    /* the first row it breaks on, else the first the server is at fault on */
    const struct oc_cell *shown = NULL;
    int shown_row = -1;
    for(int pass = 0; br && !shown && pass < 2; pass++)
      for(int row = 0; !shown && row < OC_ROW__COUNT; row++)
        if(m->cells[row][k].state == (pass ? OC_CELL_SERVER_FAULT : OC_CELL_BREAKS)) {
          shown = &m->cells[row][k];
          shown_row = row;
        }
    if(!rc && shown) { /* one failure element */
      int row = shown_row;
      const struct oc_cell *cell = shown;
      int fault = cell->state == OC_CELL_SERVER_FAULT;
      struct oc_buf msg;
      oc_buf_init(&msg, OC_CAP_MESSAGE);
      rc = oc_buf_printf(&msg, "%s on %s: %s (%s/%s)", fault ? "the server's fault" : "breaks", oc_row_title(row),
                         cell->reason ? cell->reason : "", cell->suite ? cell->suite : "",
                         cell->kase ? cell->kase : "");
      if(!rc) rc = oc_buf_adds(b, fault ? "      <failure type=\"SERVER-FAULT\"" : "      <failure type=\"CLIENT-BREAKS\"");
      if(!rc) rc = add_message_attr(b, NULL, oc_buf_str(&msg));
      if(!rc) rc = oc_buf_addc(b, '>');
      if(!rc) rc = oc_esc_add(b, t.data ? t.data : "", t.len, OC_ESC_XML_TEXT);
      if(!rc) rc = oc_buf_adds(b, "</failure>\n");
      oc_buf_free(&msg);
    }
    for(int row = 0; !rc && !br && er && row < OC_ROW__COUNT; row++) {
      const struct oc_cell *cell = &m->cells[row][k];
      if(cell->state != OC_CELL_ERROR)
        continue;
      /* not a pass: the row was not seen to work */
      struct oc_buf msg;
      oc_buf_init(&msg, OC_CAP_MESSAGE);
      rc = oc_buf_printf(&msg, "no verdict on %s: %s (%s/%s)", oc_row_title(row), cell->reason ? cell->reason : "",
                         cell->suite ? cell->suite : "", cell->kase ? cell->kase : "");
      if(!rc) rc = oc_buf_adds(b, "      <error type=\"no-verdict\"");
      if(!rc) rc = add_message_attr(b, NULL, oc_buf_str(&msg));
      if(!rc) rc = oc_buf_addc(b, '>');
      if(!rc) rc = oc_esc_add(b, t.data ? t.data : "", t.len, OC_ESC_XML_TEXT);
      if(!rc) rc = oc_buf_adds(b, "</error>\n");
      oc_buf_free(&msg);
      break; /* one error element: the first row without a verdict */
    }
    if(!rc && t.len) {
      rc = oc_buf_adds(b, "      <system-out>");
      if(!rc) rc = oc_esc_add(b, t.data, t.len, OC_ESC_XML_TEXT);
      if(!rc) rc = oc_buf_adds(b, "</system-out>\n");
    }
    if(!rc) rc = oc_buf_adds(b, "    </testcase>\n");
  }
  if(!rc) rc = oc_buf_adds(b, "  </testsuite>\n");
  oc_buf_free(&t);
  oc_buf_free(&name);
  return rc;
}

/* Every finding, then what the per-rule cap left out. */
static int findings_text(struct oc_buf *t, const cJSON *r)
{
  int rc = OC_OK;
  const cJSON *f;
  cJSON_ArrayForEach(f, oc_json_arr(r, "findings")) {
    if((rc = oc_finding_text(t, f, "    ")) || (rc = oc_buf_addc(t, '\n')))
      return rc;
  }
  const cJSON *s;
  cJSON_ArrayForEach(s, oc_json_arr(r, "suppressed")) {
    const char *rule = oc_json_str(s, "rule");
    if(rule && (rc = oc_buf_printf(t, "%s fired %.0f times; %.0f kept\n", rule,
                                   oc_json_num(s, "total", 0), oc_json_num(s, "kept", 0))))
      return rc;
  }
  return rc;
}

/* system-out: what a person reading the CI page wants without opening
 * the HTML report.  Built as plain text, escaped as a whole. */
static int system_out_text(struct oc_buf *t, const cJSON *r)
{
  int rc;
  const char *desc = oc_json_str(r, "description");
  if(desc && (rc = oc_buf_printf(t, "description: %s\n", desc)))
    return rc;
  const char *profile = oc_json_str(r, "profile");
  if(profile && (rc = oc_buf_printf(t, "profile: %s\n", profile)))
    return rc;
  const cJSON *req = oc_json_obj(r, "request");
  if(req && (rc = oc_buf_printf(t, "request: %s %s\n", oc_json_str(req, "method") ?: "?",
                                oc_json_str(req, "path") ?: "?")))
    return rc;
  const cJSON *resp = oc_json_obj(r, "response");
  if(resp) {
    if((rc = oc_buf_printf(t, "response: %.0f", oc_json_num(resp, "status", 0))))
      return rc;
    const char *ct = oc_json_str(resp, "content_type");
    if(ct && (rc = oc_buf_printf(t, " %s", ct)))
      return rc;
    const cJSON *events = oc_json_arr(resp, "events");
    if(events) {
      double total = oc_json_num(resp, "events_total", cJSON_GetArraySize(events));
      if((rc = oc_buf_printf(t, ", %.0f events", total)))
        return rc;
    }
    const char *src = oc_json_str(resp, "source");
    if(src && (rc = oc_buf_printf(t, " (%s)", src)))
      return rc;
    if((rc = oc_buf_addc(t, '\n')))
      return rc;
  }
  if((rc = oc_reasoning_text(t, r, 300)))
    return rc;
  const cJSON *timing = oc_json_obj(r, "timing");
  if(timing) {
    if((rc = oc_buf_adds(t, "timing: ")) || (rc = oc_timing_text(t, timing)) ||
       (rc = oc_buf_addc(t, '\n')))
      return rc;
  }
  if(cJSON_GetArraySize(oc_json_arr(r, "findings")) > 0) {
    if((rc = oc_buf_adds(t, "findings:\n")) || (rc = findings_text(t, r)))
      return rc;
  }
  const cJSON *dg = oc_result_diagnosis(r);
  if(dg && (rc = oc_buf_printf(t, "cause (%s): %s\nfix (%s): %s\n", oc_json_str(dg, "id") ?: "?",
                               oc_json_str(dg, "cause") ?: "", oc_json_str(dg, "flags") ?: "",
                               oc_json_str(dg, "fix") ?: "")))
    return rc;
  const cJSON *ev[OC_JUNIT_EVENTS];
  size_t n = oc_result_excerpt_events(r, ev, OC_JUNIT_EVENTS);
  if(n) {
    if((rc = oc_buf_adds(t, "stream excerpt:\n")))
      return rc;
    for(size_t i = 0; i < n; i++) {
      const cJSON *tm = oc_json_get(ev[i], "t_ms");
      if((rc = oc_buf_printf(t, "  #%.0f", oc_json_num(ev[i], "n", 0))))
        return rc;
      if(cJSON_IsNumber(tm) && isfinite(tm->valuedouble) &&
         (rc = oc_buf_printf(t, " +%.1fms", tm->valuedouble)))
        return rc;
      if((rc = oc_buf_adds(t, oc_result_chunk_flagged(r, oc_json_num(ev[i], "n", 0)) ? " <<< " : " ")))
        return rc;
      const char *raw = oc_json_str(ev[i], "raw");
      const char *data = oc_json_str(ev[i], "data");
      if(!raw && (rc = oc_buf_adds(t, "data: ")))
        return rc;
      const char *line = raw ? raw : data ? data : "";
      size_t len = strlen(line);
      while(len && line[len - 1] == '\n') /* the event's blank line */
        len--;
      if(len > OC_JUNIT_EVENT_MAX) {
        size_t cut = OC_JUNIT_EVENT_MAX;
        while(cut > 0 && ((unsigned char)line[cut] & 0xC0) == 0x80)
          cut--;
        rc = oc_buf_add(t, line, cut);
        if(!rc)
          rc = oc_buf_adds(t, "\xE2\x80\xA6");
      }
      else
        rc = oc_buf_add(t, line, len);
      if(rc || (rc = oc_buf_addc(t, '\n')))
        return rc;
    }
  }
  const cJSON *rep = oc_json_obj(r, "reproduce");
  const char *curl = oc_json_str(rep, "curl"), *oac = oc_json_str(rep, "oacheck");
  if(curl || oac) {
    char *c1 = curl ? oc_results_scrub_command(curl) : NULL;
    char *c2 = oac ? oc_results_scrub_command(oac) : NULL;
    rc = oc_buf_adds(t, "reproduce:\n");
    if(!rc && c1)
      rc = oc_buf_printf(t, "  %s\n", c1);
    if(!rc && c2)
      rc = oc_buf_printf(t, "  %s\n", c2);
    free(c1);
    free(c2);
    if(rc)
      return rc;
  }
  return OC_OK;
}

/* message="RULE: message", cut: a CI page shows it on one line. */

static int add_testcase(struct oc_buf *b, const cJSON *r, const char *classname)
{
  char secs[32];
  struct oc_buf t;
  oc_buf_init(&t, OC_CAP_REPORT);
  int rc = oc_buf_adds(b, "    <testcase");
  if(!rc)
    rc = add_attr(b, "name", oc_json_str(r, "case") ?: "(unnamed case)");
  if(!rc)
    rc = add_attr(b, "classname", classname);
  /* the wire protocol the case spoke (chat, responses, messages): the
   * schema's "group" attribute, which CI tools show beside the name */
  if(!rc && oc_json_str(r, "protocol"))
    rc = add_attr(b, "group", oc_json_str(r, "protocol"));
  const cJSON *d = oc_json_get(r, "duration_ms");
  if(!rc && cJSON_IsNumber(d)) {
    oc_ms_to_seconds(d->valuedouble, secs);
    rc = add_attr(b, "time", secs);
  }
  if(!rc)
    rc = oc_buf_adds(b, ">\n");
  if(rc)
    goto out;

  enum oc_status st = oc_result_status(r);
  const char *reason = oc_json_str(r, "reason");
  const cJSON *first = oc_result_first_error(r);
  if(st == OC_ST_SKIP) {
    if((rc = oc_buf_adds(b, "      <skipped")) ||
       (rc = add_message_attr(b, NULL, reason ? reason : "skipped")) ||
       (rc = oc_buf_adds(b, "/>\n")))
      goto out;
  }
  else if(st == OC_ST_FAIL || st == OC_ST_ERROR || st == OC_ST_INVALID) {
    const char *elem = st == OC_ST_FAIL ? "failure" : "error";
    if((rc = oc_buf_printf(b, "      <%s", elem)))
      goto out;
    if(st == OC_ST_FAIL && first)
      rc = add_message_attr(b, oc_json_str(first, "rule"), oc_json_str(first, "message"));
    else if(st == OC_ST_INVALID)
      rc = add_message_attr(b, NULL, "the results file gives no valid status for this case");
    else
      rc = add_message_attr(b, NULL, reason ? reason : first ? oc_json_str(first, "message")
                                     : st == OC_ST_FAIL ? "failed" : "error");
    if(rc)
      goto out;
    const char *type = st == OC_ST_FAIL ? (first ? oc_json_str(first, "rule") : "failure")
                                        : "error";
    if((rc = add_attr(b, "type", type)) || (rc = oc_buf_addc(b, '>')))
      goto out;
    if(reason && st != OC_ST_FAIL && (rc = oc_buf_printf(&t, "%s\n", reason)))
      goto out;
    if((rc = findings_text(&t, r)) || (rc = oc_esc_add(b, t.data ? t.data : "", t.len, OC_ESC_XML_TEXT)) ||
       (rc = oc_buf_printf(b, "</%s>\n", elem)))
      goto out;
    oc_buf_reset(&t);
  }
  if((rc = system_out_text(&t, r)))
    goto out;
  if(t.len) {
    if((rc = oc_buf_adds(b, "      <system-out>")) ||
       (rc = oc_esc_add(b, t.data, t.len, OC_ESC_XML_TEXT)) ||
       (rc = oc_buf_adds(b, "</system-out>\n")))
      goto out;
  }
  rc = oc_buf_adds(b, "    </testcase>\n");
out:
  oc_buf_free(&t);
  return rc;
}

static const char *or_none(const char *s, const char *none)
{
  return s ? s : none;
}

/* A target that could not be reached and has no case results of its own
 * still turns CI red: one error testcase says why. */
static int add_unreachable(struct oc_buf *b, const cJSON *doc, const cJSON *t, long id,
                           const char *timestamp)
{
  const char *name = oc_json_str(t, "name");
  int rc = oc_buf_adds(b, "  <testsuite");
  if(!rc) rc = add_attr(b, "name", name);
  if(!rc) rc = add_attr(b, "package", name);
  if(!rc) rc = add_attr_long(b, "id", id);
  if(!rc) rc = oc_buf_adds(b, " tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\"");
  if(!rc && timestamp) rc = add_attr(b, "timestamp", timestamp);
  if(!rc) rc = oc_buf_adds(b, ">\n");
  if(!rc) rc = add_properties(b, doc, name);
  if(!rc) rc = oc_buf_adds(b, "    <testcase name=\"target reachable\"");
  if(!rc) rc = add_attr(b, "classname", name);
  if(!rc) rc = oc_buf_adds(b, ">\n      <error type=\"error\"");
  if(!rc) rc = add_message_attr(b, NULL, oc_json_str(t, "error") ?: "target could not be reached");
  if(!rc) rc = oc_buf_adds(b, "/>\n    </testcase>\n  </testsuite>\n");
  return rc;
}

/* A run stopped before its end says so where CI looks: one error testcase
 * in a testsuite of its own, whatever the finished cases say. */
static int add_incomplete(struct oc_buf *b, const cJSON *doc, long id, const char *timestamp)
{
  int rc = oc_buf_adds(b, "  <testsuite name=\"oacheck\" package=\"oacheck\"");
  if(!rc) rc = add_attr_long(b, "id", id);
  if(!rc) rc = oc_buf_adds(b, " tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\"");
  if(!rc && timestamp) rc = add_attr(b, "timestamp", timestamp);
  if(!rc) rc = oc_buf_adds(b, ">\n    <testcase name=\"run complete\" classname=\"oacheck\">\n"
                              "      <error type=\"incomplete\"");
  if(!rc) rc = add_message_attr(b, NULL, oc_json_str(doc, "incomplete_reason") ?: "the run was stopped early");
  if(!rc) rc = oc_buf_adds(b, "/>\n    </testcase>\n  </testsuite>\n");
  return rc;
}

/* The shards a merge lacks: one testsuite "oacheck.shards", an error
 * testcase per line of oc_shards_problems, so CI turns red. */
static int add_shard_problems(struct oc_buf *b, const cJSON *doc, long id, long n,
                              const char *timestamp)
{
  struct oc_buf t;
  oc_buf_init(&t, OC_CAP_MESSAGE * 16);
  oc_shards_problems(doc, &t);
  int rc = oc_buf_adds(b, "  <testsuite name=\"oacheck.shards\" package=\"oacheck\"");
  if(!rc) rc = add_attr_long(b, "id", id);
  if(!rc) rc = add_attr_long(b, "tests", n);
  if(!rc) rc = oc_buf_adds(b, " failures=\"0\"");
  if(!rc) rc = add_attr_long(b, "errors", n);
  if(!rc) rc = oc_buf_adds(b, " skipped=\"0\" time=\"0.000\"");
  if(!rc && timestamp) rc = add_attr(b, "timestamp", timestamp);
  if(!rc) rc = oc_buf_adds(b, ">\n");
  for(const char *p = oc_buf_str(&t); !rc && *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    char *line = oc_strndup(p, len);
    rc = line ? oc_buf_adds(b, "    <testcase name=\"all shards merged\" classname=\"oacheck.shards\">\n"
                               "      <error type=\"error\"") : OC_ENOMEM;
    if(!rc) rc = add_message_attr(b, NULL, line);
    if(!rc) rc = oc_buf_adds(b, "/>\n    </testcase>\n");
    free(line);
    p += len + (nl ? 1 : 0);
  }
  if(!rc) rc = oc_buf_adds(b, "  </testsuite>\n");
  oc_buf_free(&t);
  return rc;
}

/* The testsuites: a target × suite pair each, in order of first
 * appearance; their members in document order (a counting sort of the
 * refs by group). */
struct groups {
  struct oc_pairs pairs;
  size_t *first;    /* group g's members are order[first[g] .. first[g + 1]) */
  size_t *order;
};

static int group_results(const struct oc_results *rs, struct groups *g)
{
  memset(g, 0, sizeof(*g));
  oc_pairs_init(&g->pairs);
  size_t *of = calloc(rs->count + 1, sizeof(*of));
  if(!of)
    return OC_ENOMEM;
  int rc = OC_OK;
  for(size_t i = 0; !rc && i < rs->count; i++)
    rc = oc_pairs_id(&g->pairs, or_none(rs->refs[i].target, "(no target)"),
                     or_none(rs->refs[i].suite, "(no suite)"), &of[i]);
  size_t n = g->pairs.count;
  if(!rc && (!(g->first = calloc(n + 2, sizeof(*g->first))) ||
             !(g->order = calloc(rs->count + 1, sizeof(*g->order)))))
    rc = OC_ENOMEM;
  if(!rc) {
    for(size_t i = 0; i < rs->count; i++)
      g->first[of[i] + 1]++;
    for(size_t k = 0; k < n; k++)
      g->first[k + 1] += g->first[k];
    size_t *fill = calloc(n + 1, sizeof(*fill));
    if(!fill)
      rc = OC_ENOMEM;
    for(size_t i = 0; !rc && i < rs->count; i++)
      g->order[g->first[of[i]] + fill[of[i]]++] = i;
    free(fill);
  }
  free(of);
  return rc;
}

static void groups_free(struct groups *g)
{
  oc_pairs_free(&g->pairs);
  free(g->first);
  free(g->order);
}

/* Did the target named name run anything?  (the refs, once per target) */
static int target_has_results(const struct oc_results *rs, const char *name)
{
  for(size_t i = 0; i < rs->count; i++)
    if(oc_streq(rs->refs[i].target, name))
      return 1;
  return 0;
}

int oc_report_junit_stream(struct oc_results *rs, struct oc_sink *sink)
{
  const cJSON *doc = rs->doc;
  struct oc_buf *b = sink->b;
  struct groups groups;
  struct oc_matrix *ms = NULL;
  size_t nm = 0;
  struct oc_buf classname;
  oc_buf_init(&classname, OC_CAP_MESSAGE * 4);
  int rc = group_results(rs, &groups);
  if(rc)
    goto out;
  size_t ngroups = groups.pairs.count;
  const char *timestamp = oc_json_str(oc_json_obj(doc, "oacheck"), "started");

  struct oc_counts all;
  oc_results_counts(rs, NULL, NULL, &all);
  long unreachable = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, oc_json_arr(doc, "targets")) {
    const char *name = oc_json_str(t, "name");
    if(name && cJSON_IsFalse(oc_json_get(t, "reachable")) && !target_has_results(rs, name))
      unreachable++;
  }
  /* a merge that lacks shards (shard.c) is an error testcase each */
  long shard_problems = oc_shards_problems(doc, NULL);
  if((rc = oc_matrix_build_from(rs, &ms, &nm)))
    goto out;
  long mtests = 0, mfails = 0, merrors = 0;
  for(size_t i = 0; i < nm; i++)
    for(int k = 0; k < OC_CLIENT__COUNT; k++) {
      int br, er, ex;
      if(!oc_matrix_has(&ms[i], k))
        continue;
      matrix_counts(&ms[i], k, &br, &er, &ex);
      mtests++;
      mfails += br > 0;
      merrors += !br && er > 0;
    }
  /* the agents' suites, counted first for the totals */
  long atests = 0, afails = 0;
  cJSON_ArrayForEach(t, oc_json_arr(doc, "targets")) {
    struct oc_agent_tally tl[OC_AGENT__COUNT];
    if(!oc_agents_tally(rs, oc_json_str(t, "name"), tl))
      continue;
    for(int a = 0; a < OC_AGENT__COUNT; a++)
      if(tl[a].works || tl[a].errors || tl[a].breaks || tl[a].limits) {
        atests++;
        afails += tl[a].breaks > 0;
      }
  }
  mtests += atests;
  mfails += afails;
  char secs[32];
  oc_ms_to_seconds(all.duration_ms, secs);
  long incomplete = oc_json_bool(doc, "incomplete", 0) ? 1 : 0;
  if((rc = oc_buf_adds(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"oacheck\"")) ||
     (rc = add_attr_long(b, "tests", all.total + unreachable + incomplete + shard_problems + mtests)) ||
     (rc = add_attr_long(b, "failures", all.fail + mfails)) ||
     (rc = add_attr_long(b, "errors", all.error + unreachable + incomplete + shard_problems + merrors)) ||
     (rc = add_attr(b, "time", secs)) || (rc = oc_buf_adds(b, ">\n")))
    goto out;
  for(size_t i = 0; i < nm; i++)
    if((rc = add_matrix_suite(b, doc, &ms[i], (long)(ngroups + i), timestamp)))
      goto out;
  long aid = (long)(ngroups + nm);
  cJSON_ArrayForEach(t, oc_json_arr(doc, "targets")) {
    long tt = 0, tf = 0;
    if((rc = add_agents_suite(b, rs, oc_json_str(t, "name"), aid, timestamp, &tt, &tf)))
      goto out;
    aid += tt > 0;
  }

  for(size_t g = 0; g < ngroups; g++) {
    const char *gt = groups.pairs.as[g], *gs = groups.pairs.bs[g];
    /* the group's counts from its members' refs */
    struct oc_counts c;
    memset(&c, 0, sizeof(c));
    for(size_t k = groups.first[g]; k < groups.first[g + 1]; k++) {
      const struct oc_result_ref *f = &rs->refs[groups.order[k]];
      c.total++;
      c.pass += f->status == OC_ST_PASS;
      c.fail += f->status == OC_ST_FAIL;
      c.skip += f->status == OC_ST_SKIP;
      c.error += f->status == OC_ST_ERROR || f->status == OC_ST_INVALID;
      c.duration_ms += f->duration_ms;
    }
    oc_buf_reset(&classname);
    if((rc = oc_buf_printf(&classname, "%s.%s", gt, gs)))
      goto out;
    oc_ms_to_seconds(c.duration_ms, secs);
    if((rc = oc_buf_adds(b, "  <testsuite")) ||
       (rc = add_attr(b, "name", oc_buf_str(&classname))) ||
       (rc = add_attr(b, "package", gt)) ||
       (rc = add_attr_long(b, "id", (long)g)) ||
       (rc = add_attr_long(b, "tests", c.total)) ||
       (rc = add_attr_long(b, "failures", c.fail)) ||
       (rc = add_attr_long(b, "errors", c.error)) ||
       (rc = add_attr_long(b, "skipped", c.skip)) ||
       (rc = add_attr(b, "time", secs)) ||
       (timestamp && (rc = add_attr(b, "timestamp", timestamp))) ||
       (rc = oc_buf_adds(b, ">\n")) ||
       (rc = add_properties(b, doc, gt)))
      goto out;
    for(size_t k = groups.first[g]; k < groups.first[g + 1]; k++) {
      char err[700];
      const cJSON *r = oc_results_get(rs, groups.order[k], err, sizeof(err));
      if(!r) {
        oc_error("%s", err);
        rc = OC_EIO;
        goto out;
      }
      if((rc = add_testcase(b, r, oc_buf_str(&classname))) || (rc = oc_sink_flush(sink)))
        goto out;
    }
    if((rc = oc_buf_adds(b, "  </testsuite>\n")))
      goto out;
  }
  long id = (long)(ngroups + nm);
  cJSON_ArrayForEach(t, oc_json_arr(doc, "targets")) {
    const char *name = oc_json_str(t, "name");
    if(name && cJSON_IsFalse(oc_json_get(t, "reachable")) && !target_has_results(rs, name) &&
       (rc = add_unreachable(b, doc, t, id++, timestamp)))
      goto out;
  }
  if(incomplete && (rc = add_incomplete(b, doc, id++, timestamp)))
    goto out;
  if(shard_problems && (rc = add_shard_problems(b, doc, id, shard_problems, timestamp)))
    goto out;
  rc = oc_buf_adds(b, "</testsuites>\n");
out:
  groups_free(&groups);
  oc_matrix_free(ms, nm);
  oc_buf_free(&classname);
  return rc;
}

int oc_report_junit_render(const cJSON *doc, struct oc_buf *b)
{
  struct oc_results rs;
  if(oc_results_from_doc(&rs, doc))
    return OC_ENOMEM;
  struct oc_sink sink;
  oc_sink_init_mem(&sink, b);
  int rc = oc_report_junit_stream(&rs, &sink);
  oc_results_free(&rs);
  return rc;
}

int oc_report_junit_write(const cJSON *results, const char *path, char *err, size_t errlen)
{
  struct oc_results rs;
  if(oc_results_from_doc(&rs, results)) {
    snprintf(err, errlen, "cannot render JUnit report '%s': out of memory", path);
    return OC_ENOMEM;
  }
  struct oc_sink sink;
  int rc = oc_sink_open(&sink, path, err, errlen);
  if(!rc)
    rc = oc_sink_close(&sink, oc_report_junit_stream(&rs, &sink), err, errlen);
  oc_results_free(&rs);
  return rc;
}
