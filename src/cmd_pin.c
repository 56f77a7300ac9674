/* cmd_pin.c — `oacheck pin`: write what a deployment serves (model list,
 * model file, context per slot, chat template hash, build) to a pin file,
 * and later check that it still serves exactly that — the nightly
 * question "did someone change the model, the template or the flags".
 * The identity comes from target.c; the check reports PIN-* findings in
 * an ordinary results document (suite "pin", case "identity"). */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "report_console.h"
#include "report.h"
#include "results_json.h"
#include "result.h"
#include "secret.h"
#include "rules.h"
#include "target.h"
#include "util.h"

static const char pin_usage[] =
  "Usage: oacheck pin --target [NAME=]URL... --out FILE\n"
  "       oacheck pin --check FILE --target [NAME=]URL... [--json F] [--junit F]\n"
  "Write what each target serves — its model list, model file, context per slot,\n"
  "chat template SHA-256 and build — to a pin file, or check that it still serves\n"
  "exactly what was pinned (PIN-MODEL, PIN-TEMPLATE, PIN-CONTEXT, PIN-BUILD).\n"
  "Targets are matched to the pin file by name.  --replay DIR and --targets FILE\n"
  "work as for 'oacheck run'.\n"
  "\n"
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
  return e;
}

/* Compare a target's identity with its pinned one: findings through c. */
static void compare(struct oc_check *c, const cJSON *pin, const cJSON *now)
{
  for(size_t i = 0; i < OC_ARRAY_LEN(pinned); i++) {
    const cJSON *want = oc_json_get(pin, pinned[i].field);
    const cJSON *got = oc_json_get(now, pinned[i].field);
    if(!want)
      continue;
    if(got && oc_json_equal(want, got))
      continue;
    char *w = oc_json_brief(want, 100), *g = oc_json_brief(got, 100);
    char path[64];
    snprintf(path, sizeof(path), "/%s", pinned[i].field);
    oc_emit(c, pinned[i].rule, OC_AT(.path = path, .expected = w, .actual = g),
            "%s changed: pinned %s, now %s",
            pinned[i].what, w ? w : "?", g ? g : "?");
    free(w);
    free(g);
  }
}

int oc_cmd_pin(int argc, char **argv)
{
  static const struct option opts[] = {
    { "target", required_argument, NULL, 't' },
    { "targets", required_argument, NULL, 'T' },
    { "replay", required_argument, NULL, 'R' },
    { "out", required_argument, NULL, 'o' },
    { "check", required_argument, NULL, 'c' },
    { "json", required_argument, NULL, 'J' },
    { "junit", required_argument, NULL, 'U' },
    { "verbose", no_argument, NULL, 'v' },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  struct oc_target *ts = NULL;
  size_t nt = 0;
  const char *out = NULL, *check = NULL, *json = NULL, *junit = NULL;
  int c, status = OC_EXIT_USAGE;
  char err[700];
  cJSON *pin = NULL, *doc = NULL;
  optind = 1;
  opterr = 0;
  while((c = getopt_long(argc, argv, "t:vqh", opts, NULL)) != -1) {
    struct oc_target t;
    int rc = 0;
    switch(c) {
    case 't':
      rc = oc_target_from_spec(&t, optarg, err, sizeof(err));
      break;
    case 'R':
      rc = oc_target_from_recordings(&t, NULL, optarg, err, sizeof(err));
      break;
    case 'T':
      if(oc_targets_load(optarg, &ts, &nt, err, sizeof(err))) {
        oc_error("%s", err);
        goto out;
      }
      continue;
    case 'o': out = optarg; continue;
    case 'c': check = optarg; continue;
    case 'J': json = optarg; continue;
    case 'U': junit = optarg; continue;
    case 'v': oc_cli_verbose(); continue;
    case 'q': oc_cli_quiet(); continue;
    case 'h': fputs(pin_usage, stdout); status = OC_EXIT_OK; goto out;
    default: status = oc_cli_usage_error("pin", "unknown option or missing value '%s'", argv[optind - 1]); goto out;
    }
    if(rc) {
      status = oc_cli_usage_error("pin", "%s", err);
      goto out;
    }
    struct oc_target *d = realloc(ts, (nt + 1) * sizeof(*d));
    if(!d)
      goto out;
    ts = d;
    ts[nt++] = t;
  }
  if(nt == 0 || (!out == !check) || optind < argc) {
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
  struct oc_identify_options io = { .timeout_ms = 30000 };
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
    if(!text || oc_secret_write_file(out, text, strlen(text), err, sizeof(err))) {
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
      compare(&ck, oc_json_obj(entry, "identity"), ts[i].identity);
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
  int bad = oc_reports_write(doc, json, junit, NULL);
  struct oc_counts counts;
  oc_results_count(doc, NULL, NULL, &counts);
  status = (counts.fail || counts.error || bad) ? OC_EXIT_FAIL : OC_EXIT_OK;
out:
  cJSON_Delete(doc);
  cJSON_Delete(pin);
  for(size_t i = 0; i < nt; i++)
    oc_target_free(&ts[i]);
  free(ts);
  return status;
}
