/* cmd_pin.c — `oacheck pin`: write what a deployment serves (model list,
 * model file, context per slot, chat template hash, build) to a pin file,
 * and later check that it still serves exactly that — the nightly
 * question "did someone change the model, the template or the flags".
 * On a router, each model's flags as /v1/models states them (status.args
 * and status.preset, without the port of each load and with secrets
 * masked: target.c) are pinned too, and a change names the flag.
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
#include "reports.h"
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
  "chat template SHA-256 and build, on a router every model's flags, and on a\n"
  "llama-server each slot's context, the template's capabilities and the endpoints\n"
  "that are on — to a pin file, or check that it still serves exactly what was\n"
  "pinned.  Every change is printed with its pinned and its current value.  A\n"
  "changed model, model file or list (PIN-MODEL), template or its capabilities\n"
  "(PIN-TEMPLATE), context per request, slot count or slot context (PIN-CONTEXT)\n"
  "or a router model's flag, named (PIN-FLAGS) is an error; a new build\n"
  "(PIN-BUILD) and other endpoints on (PIN-DEPLOYMENT) are warnings.\n"
  "Targets are matched to the pin file by name; a pin of one target checked\n"
  "against one target compares the two whatever their names (a note says so).\n"
  "A target the pin file does not hold is an error.\n";

static const char pin_footer[] =
  "Exit status: 0 pinned, or nothing changed but what only warns, 1 an error\n"
  "finding (or a target unreachable), 2 usage error, an unreadable pin file or\n"
  "a target it does not hold, 3 no target reachable.\n";

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
  { "model_flags", OC_R_PIN_FLAGS, "the flags of the router's models" },
};

/* A token of an argument list that names a flag ("--ctx-size", "-c"),
 * not a value ("-1" is a value). */
static int is_flag(const char *a)
{
  return a[0] == '-' && ((a[1] == '-' && a[2]) || (a[1] >= 'a' && a[1] <= 'z') ||
                         (a[1] >= 'A' && a[1] <= 'Z'));
}

/* The value(s) args gives flag ("1024", "a, b" when repeated, "" for a
 * bare switch), or NULL when flag is not there.  Caller frees. */
static char *flag_value(const cJSON *args, const char *flag)
{
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_MESSAGE);
  int found = 0;
  int n = cJSON_GetArraySize(args);
  for(int i = 1; i < n; i++) {
    const char *a = cJSON_GetArrayItem(args, i)->valuestring;
    if(!a || !is_flag(a))
      continue;
    const char *eq = strchr(a, '=');
    size_t fl = eq ? (size_t)(eq - a) : strlen(a);
    if(fl != strlen(flag) || strncmp(a, flag, fl) != 0)
      continue;
    const char *v = eq ? eq + 1 : "";
    const cJSON *next = cJSON_GetArrayItem(args, i + 1);
    if(!eq && next && cJSON_IsString(next) && !is_flag(next->valuestring))
      v = next->valuestring;
    oc_buf_printf(&b, "%s%s", found ? ", " : "", v);
    found = 1;
  }
  char *out = found ? oc_buf_take(&b, NULL) : NULL;
  if(found && !out)
    out = oc_strdup("");
  oc_buf_free(&b);
  return out;
}

/* Compare one model's pinned flags (args, preset) with its flags now:
 * a finding per flag that was added, removed or changed. */
static void compare_model_flags(struct oc_check *c, const char *model, const cJSON *pin,
                                const cJSON *now)
{
  const cJSON *pa = oc_json_arr(pin, "args"), *na = oc_json_arr(now, "args");
  for(int side = 0; side < 2; side++) {
    const cJSON *from = side ? na : pa;
    int n = cJSON_GetArraySize(from);
    for(int i = 1; i < n; i++) {
      const char *a = cJSON_GetArrayItem(from, i)->valuestring;
      if(!a || !is_flag(a))
        continue;
      char flag[128];
      snprintf(flag, sizeof(flag), "%.*s", (int)strcspn(a, "="), a);
      /* a repeated flag is compared once */
      int seen = 0;
      for(int k = 1; k < i; k++) {
        const char *b = cJSON_GetArrayItem(from, k)->valuestring;
        seen |= b && is_flag(b) && strncmp(b, flag, strlen(flag)) == 0 &&
                (b[strlen(flag)] == '\0' || b[strlen(flag)] == '=');
      }
      if(seen)
        continue;
      char *w = flag_value(pa, flag), *g = flag_value(na, flag);
      char path[300];
      snprintf(path, sizeof(path), "/model_flags/%s/args", model);
      if(side == 0 && !g)
        oc_emit(c, OC_R_PIN_FLAGS, OC_AT(.path = path, .expected = flag, .actual = "absent"),
                "model %s: flag %s was removed (pinned %s)", model, flag, *w ? w : "as a switch");
      else if(side == 0 && strcmp(w, g) != 0)
        oc_emit(c, OC_R_PIN_FLAGS, OC_AT(.path = path, .expected = w, .actual = g),
                "model %s: flag %s changed: pinned %s, now %s", model, flag, *w ? w : "(switch)",
                *g ? g : "(switch)");
      else if(side == 1 && !w)
        oc_emit(c, OC_R_PIN_FLAGS, OC_AT(.path = path, .expected = "absent", .actual = flag),
                "model %s: flag %s was added (%s)", model, flag, *g ? g : "a switch");
      free(w);
      free(g);
    }
  }
  const char *pp = oc_json_str(pin, "preset"), *np = oc_json_str(now, "preset");
  if(pp && np && strcmp(pp, np) != 0) {
    /* name the first line that differs */
    size_t i = 0;
    while(pp[i] && pp[i] == np[i])
      i++;
    while(i > 0 && pp[i - 1] != '\n')
      i--;
    char w[120], g[120], path[300];
    snprintf(w, sizeof(w), "%.*s", (int)strcspn(pp + i, "\n"), pp + i);
    snprintf(g, sizeof(g), "%.*s", (int)strcspn(np + i, "\n"), np + i);
    snprintf(path, sizeof(path), "/model_flags/%s/preset", model);
    oc_emit(c, OC_R_PIN_FLAGS, OC_AT(.path = path, .expected = w, .actual = g),
            "model %s: its preset changed: pinned '%s', now '%s'", model, w, g);
  }
}

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
  int oom = 0;
  cJSON *o = cJSON_CreateObject();
  const cJSON *slots = oc_json_arr(dep, "slots");
  if(o && slots) {
    cJSON *a = oc_json_put(&oom, o, "slots_n_ctx", cJSON_CreateArray());
    const cJSON *s;
    cJSON_ArrayForEach(s, slots)
      if(a && oc_json_get(s, "n_ctx"))
        oc_json_put(&oom, a, NULL, cJSON_Duplicate(oc_json_get(s, "n_ctx"), 1));
  }
  if(o && cJSON_GetArraySize(oc_json_obj(dep, "template")))
    oc_json_put(&oom, o, "template", cJSON_Duplicate(oc_json_obj(dep, "template"), 1));
  if(o && cJSON_GetArraySize(oc_json_obj(dep, "endpoints")))
    oc_json_put(&oom, o, "endpoints", cJSON_Duplicate(oc_json_obj(dep, "endpoints"), 1));
  cJSON_Delete(dep);
  if(oom) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

/* A value for a message: scalars as oc_json_brief says them, arrays and
 * objects as compact JSON (a list of slot sizes or of models says more
 * than "[…]": the log reader must see which model came or went), cut at
 * 100 bytes on a UTF-8 boundary. */
static char *brief(const cJSON *v)
{
  if(!cJSON_IsArray(v) && !cJSON_IsObject(v))
    return oc_json_brief(v, 100);
  char *s = oc_json_print(v);
  if(s && strlen(s) > 100) {
    size_t cut = 97;
    while(cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
      cut--;
    oc_strlcpy(s + cut, "...", 4);
  }
  return s;
}

/* The deployment's facts against the pinned ones (a pin written before
 * they existed has none: nothing to compare). */
static void compare_deployment(struct oc_check *c, const cJSON *entry, const struct oc_target *t)
{
  const cJSON *pdep = oc_json_obj(entry, "deployment");
  if(!pdep)
    return;
  cJSON *now = pinned_facts(t);
  for(size_t i = 0; i < OC_ARRAY_LEN(pinned_deployment); i++) {
    const cJSON *want = oc_json_get(pdep, pinned_deployment[i].field);
    const cJSON *got = oc_json_get(now, pinned_deployment[i].field);
    if(!want || (got && oc_json_equal(want, got)))
      continue;
    char *w = brief(want), *g = brief(got);
    char path[96];
    snprintf(path, sizeof(path), "/deployment/%s", pinned_deployment[i].field);
    oc_emit(c, pinned_deployment[i].rule, OC_AT(.path = path, .expected = w, .actual = g),
            "%s changed: pinned %s, now %s", pinned_deployment[i].what, w ? w : "?", g ? g : "?");
    free(w);
    free(g);
  }
  cJSON_Delete(now);
}

static cJSON *pin_entry(const struct oc_target *t)
{
  int oom = 0;
  cJSON *e = cJSON_CreateObject();
  oc_json_put_str(&oom, e, "name", t->name);
  cJSON *id = oc_json_put(&oom, e, "identity", cJSON_CreateObject());
  for(size_t i = 0; !oom && i < OC_ARRAY_LEN(pinned); i++) {
    const cJSON *v = oc_json_get(t->identity, pinned[i].field);
    if(v && !cJSON_IsNull(v))
      oc_json_put(&oom, id, pinned[i].field, cJSON_Duplicate(v, 1));
  }
  if(oom) {
    cJSON_Delete(e);
    return NULL;
  }
  cJSON *dep = pinned_facts(t);
  if(dep && oc_json_add(e, "deployment", dep)) {
    cJSON_Delete(e);
    return NULL;
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
    if(pinned[i].rule == OC_R_PIN_FLAGS) {
      /* per model, per flag: the operator wants the flag's name */
      const cJSON *m;
      cJSON_ArrayForEach(m, want)
      {
        const cJSON *g = oc_json_obj(got, m->string);
        if(g && !oc_json_equal(m, g))
          compare_model_flags(c, m->string, m, g);
      }
      continue;
    }
    char *w = brief(want), *g = brief(got);
    char path[64];
    snprintf(path, sizeof(path), "/%s", pinned[i].field);
    oc_emit(c, pinned[i].rule, OC_AT(.path = path, .expected = w, .actual = g),
            "%s changed: pinned %s, now %s",
            pinned[i].what, w ? w : "?", g ? g : "?");
    free(w);
    free(g);
  }
}

/* The names of the pin's targets (the first eight), ", " between them,
 * escaped for a terminal: into b. */
static int pin_names(struct oc_buf *b, const cJSON *arr)
{
  int n = cJSON_GetArraySize(arr), rc = n ? OC_OK : oc_buf_adds(b, "no target");
  for(int i = 0; i < n && i < 8 && !rc; i++) {
    const char *name = oc_json_str(cJSON_GetArrayItem(arr, i), "name");
    rc = i ? oc_buf_adds(b, ", ") : OC_OK;
    rc = rc ? rc : oc_esc_addn_cut(b, name ? name : "(unnamed)", 200, OC_ESC_TEXT);
  }
  return rc ? rc : n > 8 ? oc_buf_adds(b, ", …") : OC_OK;
}

/* The pin entry each target is checked against, into entries[0..nt).
 * By name; but a pin of one target checked against one target compares
 * the two whatever their names, since a default name is made of the
 * host and port (127.0.0.1-8080 pinned, localhost-8080 or a new CI port
 * checked) and skipping would let a changed deployment pass: then *note
 * says which was compared with which, worded as `report diff` words its
 * pairing of lone targets.  Any other target without an entry is an
 * error naming what the pin holds (checking it against nothing would be
 * green again): OC_EUSAGE, said here.  OC_ENOMEM said too. */
static int pin_entries(const cJSON *pin, const char *file, const struct oc_target *ts, size_t nt,
                       const cJSON **entries, char **note)
{
  const cJSON *arr = oc_json_arr(pin, "targets"), *e;
  size_t missing = 0;
  *note = NULL;
  for(size_t i = 0; i < nt; i++) {
    entries[i] = NULL;
    cJSON_ArrayForEach(e, arr)
      if(oc_streq(oc_json_str(e, "name"), ts[i].name))
        entries[i] = e;
    missing += !entries[i];
  }
  if(!missing)
    return OC_OK;
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_MESSAGE);
  int rc = OC_OK;
  if(nt == 1 && cJSON_GetArraySize(arr) == 1) {
    entries[0] = cJSON_GetArrayItem(arr, 0);
    const char *pinned_name = oc_json_str(entries[0], "name");
    rc = oc_buf_adds(&b, "the pin and the check have one target each, named differently: ");
    rc = rc ? rc : oc_esc_addn_cut(&b, pinned_name ? pinned_name : "(unnamed)", 200, OC_ESC_TEXT);
    rc = rc ? rc : oc_buf_adds(&b, " (pinned) is compared with ");
    rc = rc ? rc : oc_esc_addn_cut(&b, ts[0].name, 200, OC_ESC_TEXT);
    rc = rc ? rc : oc_buf_adds(&b, " (checked)");
    *note = rc ? NULL : oc_buf_take(&b, NULL);
    oc_buf_free(&b);
    if(!*note) {
      oc_error("out of memory");
      return OC_ENOMEM;
    }
    return OC_OK;
  }
  for(size_t i = 0; i < nt && !rc; i++) {
    if(entries[i])
      continue;
    oc_buf_reset(&b);
    rc = oc_buf_adds(&b, "target ");
    rc = rc ? rc : oc_esc_addn_cut(&b, ts[i].name, 200, OC_ESC_TEXT);
    rc = rc ? rc : oc_buf_adds(&b, " is not in the pin file ");
    rc = rc ? rc : oc_esc_addn_cut(&b, file, 1000, OC_ESC_TEXT);
    rc = rc ? rc : oc_buf_adds(&b, " (it pins ");
    rc = rc ? rc : pin_names(&b, arr);
    rc = rc ? rc : oc_buf_adds(&b, "): targets are matched by name; name it as pinned "
                                   "(--target NAME=URL) to check it");
    if(!rc)
      oc_error("%s", oc_buf_str(&b));
  }
  oc_buf_free(&b);
  if(rc) {
    oc_error("out of memory");
    return OC_ENOMEM;
  }
  return OC_EUSAGE;
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
  const cJSON **entries = NULL;
  char *pair_note = NULL;
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
  int brc = oc_targets_build_for("pin", &ta, &ts, &nt);
  if(brc >= 0) {
    status = brc;
    goto out;
  }
  if(nt == 0 || (!out == !check)) {
    status = oc_cli_usage_error("pin", "give targets and exactly one of --out FILE or --check FILE");
    goto out;
  }
  if(oc_cli_reports_take_stdout("pin", &ra, NULL)) {
    status = OC_EXIT_FAIL;
    goto out;
  }
  if(check) {
    pin = oc_json_parse_file(check, err, sizeof(err));
    if(!pin || !oc_json_arr(pin, "targets")) {
      oc_error("%s", pin ? "the pin file has no \"targets\" array" : err);
      goto out;
    }
    /* before any target is asked: a target the pin cannot check is a
     * mistake in the command, not something the deployment did */
    entries = calloc(nt, sizeof(*entries));
    if(!entries) {
      oc_error("out of memory");
      status = OC_EXIT_FAIL;
      goto out;
    }
    int erc = pin_entries(pin, check, ts, nt, entries, &pair_note);
    if(erc) {
      status = erc == OC_EUSAGE ? OC_EXIT_USAGE : OC_EXIT_FAIL;
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
    int oom = 0;
    cJSON *p = cJSON_CreateObject();
    char now[32];
    oc_now_rfc3339(now);
    oc_json_put_str(&oom, p, "pinned_at", now);
    cJSON *arr = oc_json_put(&oom, p, "targets", cJSON_CreateArray());
    for(size_t i = 0; !oom && i < nt; i++)
      if(ts[i].reachable)
        oc_json_put(&oom, arr, NULL, pin_entry(&ts[i]));
    char *text = oom ? NULL : oc_json_print_pretty(p);
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
    /* the last line names the file, as every report's does (report.c) */
    struct oc_buf shown;
    oc_buf_init(&shown, OC_CAP_MESSAGE);
    oc_esc_addn_cut(&shown, out, 1000, OC_ESC_TEXT);
    printf("wrote %s (pin of %zu target%s)\n", oc_buf_str(&shown), reachable, reachable == 1 ? "" : "s");
    oc_buf_free(&shown);
    status = reachable == nt ? OC_EXIT_OK : OC_EXIT_FAIL;
    goto out;
  }
  /* --check: one result per target */
  doc = oc_results_doc_new(ts[0].live ? "live" : "replay", NULL, pair_note, NULL);
  if(!doc)
    goto out;
  if(pair_note) {
    /* escaped when it was made */
    printf("note: %s\n", pair_note);
  }
  cJSON *targets = oc_json_arr(doc, "targets");
  cJSON *results = oc_json_arr(doc, "results");
  struct oc_console con;
  oc_console_init(&con, stdout);
  /* every finding, warnings and passing targets included, on a terminal
   * too: a new build (PIN-BUILD) only warns and passes, and a check that
   * says "(1 finding)" without saying what changed leaves the operator to
   * dig it out of --json */
  con.verbose = 1;
  int oom = 0;
  for(size_t i = 0; !oom && i < nt; i++) {
    oc_json_put(&oom, targets, NULL, oc_target_json(&ts[i]));
    const cJSON *entry = entries[i];
    struct oc_findings f;
    oc_findings_init(&f);
    struct oc_check ck;
    oc_check_init(&ck, &f, ts[i].profile);
    const char *st = "pass", *reason = NULL;
    if(!ts[i].reachable) {
      st = "error";
      reason = ts[i].error ? ts[i].error : "unreachable";
    }
    else {
      compare(&ck, oc_json_obj(entry, "identity"), ts[i].identity);
      compare_deployment(&ck, entry, &ts[i]);
      if(oc_findings_worst(&f) == OC_SEV_ERROR)
        st = "fail";
    }
    cJSON *r = oc_json_put(&oom, results, NULL, cJSON_CreateObject());
    oc_json_put_str(&oom, r, "target", ts[i].name);
    oc_json_put_str(&oom, r, "suite", "pin");
    oc_json_put_str(&oom, r, "case", "identity");
    oc_json_put_str(&oom, r, "description", "The deployment serves what was pinned.");
    oc_json_put_str(&oom, r, "status", st);
    oc_json_put_str_or_null(&oom, r, "reason", reason);
    cJSON *fs = oc_json_put(&oom, r, "findings", cJSON_CreateArray());
    for(size_t k = 0; !oom && k < f.count; k++)
      oc_json_put(&oom, fs, NULL, oc_finding_json(&f.items[k]));
    oom |= ck.oom;
    if(!oom)
      oc_console_result(&con, r, i + 1, nt);
    oc_findings_free(&f);
  }
  if(oom || oc_results_summarize(doc)) {
    oc_error("out of memory building the results");
    status = OC_EXIT_FAIL;
    goto out;
  }
  oc_console_summary(&con, doc);
  int bad = oc_reports_write(doc, ra.json, ra.junit, NULL);
  struct oc_counts counts;
  oc_results_count(doc, NULL, NULL, &counts);
  status = (counts.fail || counts.error || bad) ? OC_EXIT_FAIL : OC_EXIT_OK;
out:
  cJSON_Delete(doc);
  cJSON_Delete(pin);
  free(entries);
  free(pair_note);
  oc_targets_free(ts, nt);
  oc_strlist_free(&ta.targets);
  oc_strlist_free(&ta.replays);
  return status;
}
