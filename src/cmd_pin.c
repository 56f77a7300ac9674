/* cmd_pin.c — `oacheck pin`: write what a deployment serves (model list,
 * model file, context per slot, chat template hash, build) to a pin file,
 * and later check that it still serves exactly that — the nightly
 * question "did someone change the model, the template or the flags".
 * The identity comes from target.c; the check reports PIN-* findings in
 * an ordinary results document (suite "pin", case "identity"). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "deployment.h"
#include "json.h"
#include "report_console.h"
#include "report.h"
#include "results_json.h"
#include "result.h"
#include "rules.h"
#include "target.h"
#include "util.h"

static const char pin_usage[] =
  "Usage: oacheck pin --target [NAME=]URL... --out FILE\n"
  "       oacheck pin --check FILE --target [NAME=]URL... [--json F] [--junit F]\n"
  "Write what each target serves — its model list, model file, context per slot,\n"
  "chat template SHA-256 and build, and on a llama-server each slot's context, the\n"
  "template's capabilities and the endpoints that are on — to a pin file, or check\n"
  "that it still serves exactly what was pinned (PIN-MODEL, PIN-TEMPLATE,\n"
  "PIN-CONTEXT, PIN-BUILD, PIN-DEPLOYMENT).\n"
  "Targets are matched to the pin file by name.\n";

static const char pin_footer[] =
  "Exit status: 0 pinned / unchanged, 1 something changed (an error finding), 2\n"
  "usage error or an unreadable pin file, 3 no target reachable.\n";

/* Which identity fields a pin holds, and the rule a change breaks. */
static const struct {
  const char *field;
  enum oc_rule_id rule;
  const char *what;
} pinned[] = {
  { "model", OC_R_PIN_MODEL, "the model id" },
  { "models", OC_R_PIN_MODEL, "the model list" },
  { "model_path", OC_R_PIN_MODEL, "the model file" },
  { "chat_template_sha256", OC_R_PIN_TEMPLATE, "the chat template" },
  { "n_ctx", OC_R_PIN_CONTEXT, "the context per request" },
  { "total_slots", OC_R_PIN_CONTEXT, "the number of slots" },
  { "build", OC_R_PIN_BUILD, "the server build" },
};

/* And from the deployment's facts (deployment.h), under "deployment". */
static const struct {
  const char *field;
  enum oc_rule_id rule;
  const char *what;
} pinned_deployment[] = {
  { "slots_n_ctx", OC_R_PIN_CONTEXT, "each slot's context (/slots)" },
  { "template", OC_R_PIN_TEMPLATE, "the chat template's capabilities (/props chat_template_caps)" },
  { "endpoints", OC_R_PIN_DEPLOYMENT, "the endpoints that are on (/metrics, /slots, POST /props)" },
};

/* The pinnable deployment facts of t: NULL when it has none. */
static cJSON *pinned_facts(const struct oc_target *t)
{
  cJSON *dep = oc_deployment_json(&t->deployment);
  if(!dep)
    return NULL;
  cJSON *o = cJSON_CreateObject();
  const cJSON *slots = oc_json_arr(dep, "slots");
  if(o && slots) {
    cJSON *a = cJSON_AddArrayToObject(o, "slots_n_ctx");
    const cJSON *s;
    cJSON_ArrayForEach(s, slots)
      if(a && oc_json_get(s, "n_ctx"))
        cJSON_AddItemToArray(a, cJSON_Duplicate(oc_json_get(s, "n_ctx"), 1));
  }
  if(o && cJSON_GetArraySize(oc_json_obj(dep, "template")))
    cJSON_AddItemToObject(o, "template", cJSON_Duplicate(oc_json_obj(dep, "template"), 1));
  if(o && cJSON_GetArraySize(oc_json_obj(dep, "endpoints")))
    cJSON_AddItemToObject(o, "endpoints", cJSON_Duplicate(oc_json_obj(dep, "endpoints"), 1));
  cJSON_Delete(dep);
  return o;
}

static cJSON *pin_entry(const struct oc_target *t)
{
  cJSON *e = cJSON_CreateObject();
  if(!e)
    return NULL;
  cJSON_AddStringToObject(e, "name", t->name);
  cJSON *id = cJSON_AddObjectToObject(e, "identity");
  for(size_t i = 0; id && i < OC_ARRAY_LEN(pinned); i++) {
    const cJSON *v = oc_json_get(t->identity, pinned[i].field);
    if(v && !cJSON_IsNull(v))
      cJSON_AddItemToObject(id, pinned[i].field, cJSON_Duplicate(v, 1));
  }
  cJSON *dep = pinned_facts(t);
  if(dep)
    cJSON_AddItemToObject(e, "deployment", dep);
  return e;
}

/* A value for a message: scalars as oc_json_brief says them, arrays and
 * objects as compact JSON (a list of slot sizes says more than "[…]"). */
static char *brief(const cJSON *v)
{
  if(!cJSON_IsArray(v) && !cJSON_IsObject(v))
    return oc_json_brief(v, 100);
  char *s = cJSON_PrintUnformatted(v);
  if(s && strlen(s) > 100)
    strcpy(s + 97, "...");
  return s;
}

static void compare_one(struct oc_check *c, const cJSON *want, const cJSON *got, const char *prefix,
                        const char *field, enum oc_rule_id rule, const char *what)
{
  if(!want || (got && oc_json_equal(want, got)))
    return;
  char *w = brief(want), *g = brief(got);
  char path[96];
  snprintf(path, sizeof(path), "%s/%s", prefix, field);
  oc_emit(c, rule, OC_AT(.path = path, .expected = w, .actual = g), "%s changed: pinned %s, now %s",
          what, w ? w : "?", g ? g : "?");
  free(w);
  free(g);
}

/* Compare a target's identity and deployment facts with the pinned ones
 * (an older pin without "deployment" checks the identity only). */
static void compare(struct oc_check *c, const cJSON *entry, const struct oc_target *t)
{
  const cJSON *pin = oc_json_obj(entry, "identity");
  for(size_t i = 0; i < OC_ARRAY_LEN(pinned); i++)
    compare_one(c, oc_json_get(pin, pinned[i].field), oc_json_get(t->identity, pinned[i].field), "",
                pinned[i].field, pinned[i].rule, pinned[i].what);
  const cJSON *pdep = oc_json_obj(entry, "deployment");
  cJSON *now = pdep ? pinned_facts(t) : NULL;
  for(size_t i = 0; pdep && i < OC_ARRAY_LEN(pinned_deployment); i++)
    compare_one(c, oc_json_get(pdep, pinned_deployment[i].field),
                oc_json_get(now, pinned_deployment[i].field), "/deployment",
                pinned_deployment[i].field, pinned_deployment[i].rule, pinned_deployment[i].what);
  cJSON_Delete(now);
}

int oc_cmd_pin(int argc, char **argv)
{
  struct oc_target *ts = NULL;
  size_t nt = 0;
  struct oc_target_args ta;
  struct oc_report_args ra;
  const char *out = NULL, *check = NULL;
  int status = OC_EXIT_USAGE;
  char err[700];
  cJSON *pin = NULL, *doc = NULL;
  memset(&ta, 0, sizeof(ta));
  memset(&ra, 0, sizeof(ra));
  const struct oc_option options[] = {
    OC_OPT_TARGETS(&ta),
    OC_OPT_GROUP("Pin:"),
    OC_OPT_STRING(0, "out", &out, "FILE", "write the pin file"),
    OC_OPT_STRING(0, "check", &check, "FILE", "check the targets against this pin file"),
    OC_OPT_STRING(0, "json", &ra.json, "FILE", "--check: write the results"),
    OC_OPT_STRING(0, "junit", &ra.junit, "FILE", "--check: write JUnit XML"),
    OC_OPT_VERBOSITY(NULL),
    OC_OPT_END(),
  };
  const struct oc_cli cli = { "pin", pin_usage, pin_footer, options };
  int prc = oc_cli_parse(&cli, argc, argv, NULL);
  if(prc >= 0) {
    status = prc;
    goto out;
  }
  int brc = oc_targets_build(&ta, &ts, &nt, err, sizeof(err));
  if(brc) {
    status = brc == OC_EUSAGE ? oc_cli_usage_error("pin", "%s", err)
                              : (oc_error("%s", brc == OC_ENOMEM ? "out of memory" : err), OC_EXIT_USAGE);
    goto out;
  }
  if(nt == 0 || (!out == !check)) {
    status = oc_cli_usage_error("pin", "give targets and exactly one of --out FILE or --check FILE");
    goto out;
  }
  if(check) {
    pin = oc_json_parse_file(check, err, sizeof(err));
    if(!pin || !oc_json_arr(pin, "targets")) {
      oc_error("%s", pin ? "the pin file has no \"targets\" array" : err);
      goto out;
    }
  }
  struct oc_identify_options io = { 30000, 0, NULL, NULL };
  size_t reachable = 0;
  for(size_t i = 0; i < nt; i++) {
    oc_target_identify(&ts[i], &io);
    reachable += ts[i].reachable;
  }
  if(reachable == 0) {
    for(size_t i = 0; i < nt; i++)
      oc_error("target %s unreachable: %s", ts[i].name, ts[i].error ? ts[i].error : "");
    status = OC_EXIT_UNREACHABLE;
    goto out;
  }
  if(out) {
    cJSON *p = cJSON_CreateObject();
    char now[32];
    oc_now_rfc3339(now);
    cJSON_AddStringToObject(p, "pinned_at", now);
    cJSON *arr = cJSON_AddArrayToObject(p, "targets");
    for(size_t i = 0; arr && i < nt; i++)
      if(ts[i].reachable)
        cJSON_AddItemToArray(arr, pin_entry(&ts[i]));
    char *text = cJSON_Print(p);
    cJSON_Delete(p);
    if(!text || oc_write_file(out, text, strlen(text), err, sizeof(err))) {
      oc_error("%s", text ? err : "out of memory");
      free(text);
      status = OC_EXIT_FAIL;
      goto out;
    }
    free(text);
    for(size_t i = 0; i < nt; i++)
      printf("pinned %s%s\n", ts[i].name, ts[i].reachable ? "" : " (unreachable: not pinned)");
    status = reachable == nt ? OC_EXIT_OK : OC_EXIT_FAIL;
    goto out;
  }
  /* --check: one result per target */
  doc = oc_results_doc_new(ts[0].live ? "live" : "replay", NULL, NULL, NULL);
  if(!doc)
    goto out;
  cJSON *targets = oc_json_arr(doc, "targets");
  cJSON *results = oc_json_arr(doc, "results");
  struct oc_console con;
  oc_console_init(&con, stdout);
  for(size_t i = 0; i < nt; i++) {
    cJSON_AddItemToArray(targets, oc_target_json(&ts[i]));
    const cJSON *entry = NULL, *e;
    cJSON_ArrayForEach(e, oc_json_arr(pin, "targets"))
    {
      if(oc_streq(oc_json_str(e, "name"), ts[i].name))
        entry = e;
    }
    struct oc_findings f;
    oc_findings_init(&f);
    struct oc_check ck;
    oc_check_init(&ck, &f, ts[i].profile);
    const char *st = "pass", *reason = NULL;
    if(!ts[i].reachable) {
      st = "error";
      reason = ts[i].error ? ts[i].error : "unreachable";
    }
    else if(!entry) {
      st = "skip";
      reason = "not in the pin file";
    }
    else {
      compare(&ck, entry, &ts[i]);
      if(oc_findings_worst(&f) == OC_SEV_ERROR)
        st = "fail";
    }
    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "target", ts[i].name);
    cJSON_AddStringToObject(r, "suite", "pin");
    cJSON_AddStringToObject(r, "case", "identity");
    cJSON_AddStringToObject(r, "description", "The deployment serves what was pinned.");
    cJSON_AddStringToObject(r, "status", st);
    if(reason)
      cJSON_AddStringToObject(r, "reason", reason);
    else
      cJSON_AddNullToObject(r, "reason");
    cJSON *fs = cJSON_AddArrayToObject(r, "findings");
    for(size_t k = 0; k < f.count; k++)
      cJSON_AddItemToArray(fs, oc_finding_json(&f.items[k]));
    cJSON_AddItemToArray(results, r);
    oc_console_result(&con, r, i + 1, nt);
    oc_findings_free(&f);
  }
  if(oc_results_summarize(doc))
    goto out;
  oc_console_summary(&con, doc);
  int bad = oc_reports_write(doc, ra.json, ra.junit, NULL);
  struct oc_counts counts;
  oc_results_count(doc, NULL, NULL, &counts);
  status = (counts.fail || counts.error || bad) ? OC_EXIT_FAIL : OC_EXIT_OK;
out:
  cJSON_Delete(doc);
  cJSON_Delete(pin);
  oc_targets_free(ts, nt);
  oc_strlist_free(&ta.targets);
  oc_strlist_free(&ta.replays);
  return status;
}
