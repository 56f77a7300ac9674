/* cmd_templates.c — `oacheck templates`: render the template fixtures on
 * every target (the shipped template recordings when none is given),
 * print a grid (a line per template, a column per fixture), optionally
 * the prompts themselves, and write the same results documents as `run`
 * (JSON, JUnit, HTML). */
#include "config.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "datadir.h"
#include "json.h"
#include "report_console.h"
#include "report.h"
#include "reports.h"
#include "results_json.h"
#include "templates.h"
#include "url.h"
#include "util.h"

static const char templates_usage[] =
  "Usage: oacheck templates [--target [NAME=]URL]... [--replay DIR]... [OPTION]...\n"
  "Render the same conversations through each target's chat template\n"
  "(POST /apply-template, as llama-server offers) and compare: a dropped or moved\n"
  "system prompt, a silently dropped message, a template that refuses common\n"
  "tool-call ids, the server's date stamped into the prompt, tools, tool calls and\n"
  "tool results lost; and what each template does with the reasoning a\n"
  "conversation sends back (kept before a tool result, dropped after a user turn).\n"
  "Tens of targets print as a grid, a line per template.  With no target, the\n"
  "shipped recordings of eleven templates (Qwen 2.5, Qwen3, Qwen 3.5, QwQ,\n"
  "Llama 3.1, Mistral Nemo, DeepSeek-R1, gpt-oss, GLM) are compared; --model all\n"
  "compares every model of a router.\n";

static const char templates_footer[] =
  "Exit status: 0 no error finding, 1 a template failed a check or a target\n"
  "errored, 2 usage error, 3 no target reachable.\n";

static int add_target(struct oc_target **ts, size_t *n, size_t *alloc, struct oc_target *t)
{
  struct oc_target *d = oc_array_grow(*ts, alloc, *n + 1, sizeof(*d));
  if(!d)
    return OC_ENOMEM;
  d[(*n)++] = *t;
  *ts = d;
  return OC_OK;
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The targets whose every fixture was "not recorded" (a replay, or an
 * oacheck serve, holding no render of any): each said as run says it.
 * Returns how many. */
static size_t unrecorded_targets(const cJSON *doc, const struct oc_target *ts, size_t nt)
{
  size_t none = 0;
  for(size_t i = 0; i < nt; i++) {
    size_t asked = 0, missed = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, oc_json_arr(doc, "results"))
    {
      if(!oc_streq(oc_json_str(r, "target"), ts[i].name))
        continue;
      asked++;
      missed += oc_streq(oc_json_str(r, "status"), "skip") && oc_streq(oc_json_str(r, "reason"), "not recorded");
    }
    if(!asked || missed != asked || !ts[i].reachable)
      continue;
    none++;
    if(ts[i].live) {
      char where[600];
      oc_url_redact(ts[i].url, where, sizeof(where));
      oc_error("target %s: the oacheck serve at %s has no recording of any of the %zu template "
               "fixture%s", ts[i].name, where, asked, asked == 1 ? "" : "s");
    }
    else
      oc_error("replay target %s: none of the %zu template fixture%s has a recording in %s "
               "(its apply-template*.cassette.gz)",
               ts[i].name, asked, asked == 1 ? "" : "s", ts[i].recordings ? ts[i].recordings : "?");
  }
  return none;
}

/* The shipped template recordings: one replay target per subdirectory. */
static int default_targets(struct oc_target **ts, size_t *n)
{
  char *dir = oc_data_path("suites/recordings/llama-server/templates");
  DIR *d = dir ? opendir(dir) : NULL;
  char *names[64];
  size_t nn = 0;
  struct dirent *e;
  while(d && (e = readdir(d)) && nn < OC_ARRAY_LEN(names))
    if(e->d_name[0] != '.')
      names[nn++] = oc_strdup(e->d_name);
  if(d)
    closedir(d);
  qsort(names, nn, sizeof(*names), cmp_str);
  int rc = nn ? OC_OK : OC_ENOTFOUND;
  size_t alloc = *n; /* what *ts has room for at least */
  for(size_t i = 0; i < nn; i++) {
    char *sub = names[i] ? oc_path_join(dir, names[i]) : NULL;
    struct oc_target t;
    char err[600];
    if(!rc && sub && oc_is_dir(sub) && !oc_target_from_recordings(&t, names[i], sub, err, sizeof(err)))
      rc = add_target(ts, n, &alloc, &t);
    free(sub);
    free(names[i]);
  }
  free(dir);
  return rc;
}

/* The worst finding of r (skipping rule skip, when given): its rank
 * (0 error, 1 warning, 2 info, 3 none) and how many there are. */
static int worst_finding(const cJSON *r, const char *skip, const cJSON **worst, int *n)
{
  static const char *const order[] = { "error", "warning", "info" };
  int rank = 3;
  const cJSON *f;
  *worst = NULL;
  *n = 0;
  cJSON_ArrayForEach(f, oc_json_arr(r, "findings"))
  {
    if(skip && oc_streq(oc_json_str(f, "rule"), skip))
      continue;
    (*n)++;
    for(int k = 0; k < 3; k++)
      if(oc_streq(oc_json_str(f, "severity"), order[k]) && k < rank) {
        rank = k;
        *worst = f;
      }
  }
  return rank;
}

static const char *short_rule(const cJSON *f)
{
  const char *rule = oc_json_str(f, "rule");
  if(rule && oc_startswith(rule, "TEMPLATE-"))
    rule += 9;
  return rule ? rule : "?";
}

/* What the render did with the reasoning sent back ("kept", "dropped",
 * "unread"), and after which turn ("tool", "user"); NULL when it says
 * nothing of it. */
static const char *reasoning_state(const cJSON *r, const char **followed_by)
{
  const cJSON *rr = oc_json_obj(oc_json_obj(r, "render"), "reasoning");
  if(followed_by)
    *followed_by = oc_json_str(rr, "followed_by");
  return oc_json_str(rr, "state");
}

/* One cell of the grid: the verdict and the worst finding's rule,
 * "FAIL TOOLS-RENDERED+2" (the TEMPLATE- prefix dropped, +N more); a
 * render of reasoning sent back shows the template's behaviour instead
 * of TEMPLATE-REASONING-HISTORY: "warn dropped", "ok kept", and any
 * other finding after it ("FAIL unread, SYSTEM-KEPT"). */
static void grid_cell(const cJSON *r, char *out, size_t outlen)
{
  const char *st = oc_json_str(r, "status");
  if(!r) {
    oc_strlcpy(out, "-", outlen);
    return;
  }
  if(oc_streq(st, "skip")) {
    oc_strlcpy(out, "skip", outlen);
    return;
  }
  if(oc_streq(st, "error")) {
    oc_strlcpy(out, "ERROR", outlen);
    return;
  }
  const cJSON *worst, *other;
  int n, nother;
  int rank = worst_finding(r, NULL, &worst, &n);
  const char *word = oc_streq(st, "fail") ? "FAIL" : rank == 1 ? "warn" : rank == 0 ? "err"
                   : rank == 2 ? "info" : "ok";
  const char *beh = reasoning_state(r, NULL);
  if(beh) {
    worst_finding(r, "TEMPLATE-REASONING-HISTORY", &other, &nother);
    if(!other)
      snprintf(out, outlen, "%s %s", word, beh);
    else if(nother > 1)
      snprintf(out, outlen, "%s %s, %s+%d", word, beh, short_rule(other), nother - 1);
    else
      snprintf(out, outlen, "%s %s, %s", word, beh, short_rule(other));
    return;
  }
  if(!worst) {
    oc_strlcpy(out, "ok", outlen);
    return;
  }
  if(n > 1)
    snprintf(out, outlen, "%s %s+%d", word, short_rule(worst), n - 1);
  else
    snprintf(out, outlen, "%s %s", word, short_rule(worst));
}

static const cJSON *find_result(const cJSON *results, const char *target, const char *fx)
{
  const cJSON *x;
  cJSON_ArrayForEach(x, results)
  {
    if(oc_streq(oc_json_str(x, "target"), target) && oc_streq(oc_json_str(x, "case"), fx))
      return x;
  }
  return NULL;
}

/* The template × fixture grid, one line per target: tens of templates
 * stay readable where a column per target would not. */
static void print_grid(const cJSON *results, const struct oc_target *ts, size_t n, const cJSON *fixtures)
{
  const cJSON *list = oc_json_arr(fixtures, "fixtures");
  size_t nf = (size_t)cJSON_GetArraySize(list);
  if(!nf || !n)
    return;
  int name_w = 8;
  for(size_t i = 0; i < n; i++) {
    int l = (int)strlen(ts[i].name);
    if(l > name_w)
      name_w = l > 40 ? 40 : l;
  }
  int w[64];
  char cell[96];
  for(size_t f = 0; f < nf && f < OC_ARRAY_LEN(w); f++) {
    const char *fx = oc_json_str(cJSON_GetArrayItem(list, (int)f), "name");
    w[f] = fx ? (int)strlen(fx) : 1;
    for(size_t i = 0; i < n; i++) {
      grid_cell(find_result(results, ts[i].name, fx), cell, sizeof(cell));
      int l = (int)strlen(cell);
      if(l > w[f])
        w[f] = l > 30 ? 30 : l;
    }
  }
  printf("\n%-*s  %-8s", name_w, "template", "sha256");
  for(size_t f = 0; f < nf && f < OC_ARRAY_LEN(w); f++)
    printf("  %-*.*s", w[f], w[f], oc_json_str(cJSON_GetArrayItem(list, (int)f), "name"));
  printf("\n");
  for(size_t i = 0; i < n; i++) {
    const char *sha = oc_json_str(ts[i].identity, "chat_template_sha256");
    printf("%-*.*s  %-8.8s", name_w, name_w, ts[i].name, sha ? sha : "-");
    for(size_t f = 0; f < nf && f < OC_ARRAY_LEN(w); f++) {
      const char *fx = oc_json_str(cJSON_GetArrayItem(list, (int)f), "name");
      grid_cell(find_result(results, ts[i].name, fx), cell, sizeof(cell));
      printf("  %-*.*s", w[f], w[f], cell);
    }
    printf("\n");
  }
  printf("(a cell: the verdict and its worst finding, TEMPLATE- left out, +N more; "
         "'oacheck rules TEMPLATE-X' explains one)\n");
}

/* The reasoning sent back, per template: which templates drop the
 * reasoning of the turn before a tool result (the prompt cache misses
 * every tool round), which keep old reasoning after a user turn, which do
 * what Qwen3's does, which read none.  Nothing when no fixture sent
 * reasoning back. */
static void print_reasoning(const cJSON *results, const struct oc_target *ts, size_t n)
{
  static const char *const heads[] = {
    "drop it before a tool result, so the prompt cache misses every tool round "
    "(TEMPLATE-REASONING-HISTORY; llama-server --reasoning-preserve where the template has the "
    "switch)",
    "keep it after a user turn, so old reasoning stays in the context",
    "keep it before a tool result and drop it after a user turn",
    "read no reasoning (not a reasoning model's template)",
  };
  struct oc_buf lines[4];
  int any = 0;
  for(size_t k = 0; k < 4; k++)
    oc_buf_init(&lines[k], OC_CAP_BODY);
  for(size_t i = 0; i < n; i++) {
    const char *tool = NULL, *user = NULL;
    const cJSON *r;
    cJSON_ArrayForEach(r, results)
    {
      const char *after, *state = oc_streq(oc_json_str(r, "target"), ts[i].name)
                                    ? reasoning_state(r, &after) : NULL;
      if(state && oc_streq(after, "tool"))
        tool = state;
      else if(state && oc_streq(after, "user"))
        user = state;
    }
    int in[4] = { oc_streq(tool, "dropped"), oc_streq(user, "kept"),
                  oc_streq(tool, "kept") && oc_streq(user, "dropped"),
                  (!tool || oc_streq(tool, "unread")) && (!user || oc_streq(user, "unread")) &&
                    (tool || user) };
    for(size_t k = 0; k < 4; k++)
      if(in[k]) {
        oc_buf_printf(&lines[k], "%s%s", oc_buf_str(&lines[k])[0] ? ", " : "", ts[i].name);
        any = 1;
      }
  }
  if(any) {
    printf("\nreasoning sent back (reasoning_content on an assistant turn), per template:\n");
    for(size_t k = 0; k < 4; k++)
      if(oc_buf_str(&lines[k])[0])
        printf("  %s: %s\n", heads[k], oc_buf_str(&lines[k]));
  }
  for(size_t k = 0; k < 4; k++)
    oc_buf_free(&lines[k]);
}

int oc_cmd_templates(int argc, char **argv)
{
  struct oc_target *ts = NULL;
  size_t nt = 0;
  struct oc_target_args ta;
  struct oc_report_args ra;
  const char *fixtures_path = NULL, *model = NULL;
  int show = 0, status = OC_EXIT_USAGE;
  long timeout_ms = 60000;
  char err[700];
  cJSON *fixtures = NULL, *results = NULL, *doc = NULL;
  memset(&ta, 0, sizeof(ta));
  memset(&ra, 0, sizeof(ra));
  const struct oc_option options[] = {
    OC_OPT_TARGETS(&ta),
    OC_OPT_STRING(0, "model", &model, "NAME",
                  "the model to render with (a router's); 'all' or 'a,b': every model, a "
                  "target NAME/MODEL each"),
    OC_OPT_GROUP("Templates:"),
    OC_OPT_STRING(0, "fixtures", &fixtures_path, "FILE",
                  "conversations (default: suites/templates/fixtures.json)"),
    OC_OPT_FLAG(0, "show", &show, "print every rendered prompt"),
    OC_OPT_SECONDS(0, "timeout", &timeout_ms, "seconds per request (default 60)"),
    OC_OPT_GROUP("Reports:"),
    OC_OPT_REPORTS(&ra),
    OC_OPT_VERBOSITY(NULL),
    OC_OPT_END(),
  };
  const struct oc_cli cli = { "templates", templates_usage, templates_footer, options };
  int prc = oc_cli_parse(&cli, argc, argv, NULL);
  if(prc >= 0) {
    status = prc;
    goto out;
  }
  int brc = oc_targets_build_for("templates", &ta, &ts, &nt);
  if(brc >= 0) {
    status = brc;
    goto out;
  }
  if(oc_cli_reports_take_stdout("templates", &ra, NULL)) {
    status = OC_EXIT_FAIL;
    goto out;
  }
  const char *note = NULL;
  if(nt == 0) {
    if(default_targets(&ts, &nt)) {
      oc_error("no target given and the shipped template recordings cannot be loaded");
      goto out;
    }
    note = "no target given: comparing the shipped template recordings "
           "(suites/recordings/llama-server/templates)";
    printf("oacheck %s: %s\n", PACKAGE_VERSION, note);
  }
  char *fp = fixtures_path ? oc_strdup(fixtures_path) : oc_data_path("suites/templates/fixtures.json");
  fixtures = fp ? oc_json_parse_file(fp, err, sizeof(err)) : NULL;
  free(fp);
  if(!fixtures || !oc_json_arr(fixtures, "fixtures")) {
    oc_error("%s", fixtures ? "the fixtures file has no \"fixtures\" array" : err);
    goto out;
  }
  struct oc_identify_options io = { .timeout_ms = timeout_ms };
  size_t reachable = 0;
  if(model && !oc_model_spec_is_list(model))
    for(size_t i = 0; i < nt; i++)
      if(!ts[i].model)
        ts[i].model = oc_strdup(model);
  if(oc_model_spec_is_list(model)) {
    /* every model of a router: one target each, identified on its own */
    struct oc_identify_options lo = io;
    lo.models_only = 1;
    for(size_t i = 0; i < nt; i++)
      oc_target_identify(&ts[i], &lo);
    int erc = oc_targets_expand_models(&ts, &nt, model, NULL, err, sizeof(err));
    if(erc) {
      status = erc == OC_EUSAGE ? oc_cli_usage_error("templates", "%s", err)
                                : (oc_error("%s", erc == OC_ENOMEM ? "out of memory" : err), OC_EXIT_USAGE);
      goto out;
    }
  }
  for(size_t i = 0; i < nt; i++) {
    oc_target_identify(&ts[i], &io);
    reachable += ts[i].reachable;
    const char *sha = oc_json_str(ts[i].identity, "chat_template_sha256");
    printf("target %s: %s%s%.12s\n", ts[i].name, ts[i].reachable ? "" : "unreachable: ",
           ts[i].reachable ? (sha ? "template sha256 " : "template unknown") : (ts[i].error ? ts[i].error : ""),
           ts[i].reachable && sha ? sha : "");
    /* as run says it: a key refused there is refused for every render */
    char problem[1200];
    oc_target_models_note(&ts[i], problem, sizeof(problem));
    if(problem[0] && ts[i].live)
      printf("target %s: %s\n", ts[i].name, problem);
  }
  results = oc_templates_run(ts, nt, fixtures, &io);
  if(!results) {
    fprintf(stderr, "oacheck templates: out of memory building the results\n");
    goto out;
  }
  struct oc_console con;
  oc_console_init(&con, stdout);
  size_t total = (size_t)cJSON_GetArraySize(results), k = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, results)
  {
    oc_console_result(&con, r, ++k, total);
    const char *prompt = oc_json_str(r, "message");
    if(show && prompt) {
      /* the prompt is the server's text: controls shown, never interpreted */
      struct oc_buf b;
      oc_buf_init(&b, OC_CAP_BODY);
      if(!oc_esc_adds(&b, prompt, OC_ESC_TEXT))
        printf("----- %s / %s -----\n%s\n-----\n", oc_json_str(r, "target"), oc_json_str(r, "case"),
               oc_buf_str(&b));
      oc_buf_free(&b);
    }
  }
  print_grid(results, ts, nt, fixtures);
  print_reasoning(results, ts, nt);
  int live = 0;
  for(size_t i = 0; i < nt; i++)
    live |= ts[i].live;
  doc = oc_results_doc_new(live ? "live" : "replay", NULL, note, NULL);
  if(!doc)
    goto out;
  int oom = 0;
  cJSON *targets = oc_json_arr(doc, "targets");
  for(size_t i = 0; i < nt; i++)
    oc_json_put(&oom, targets, NULL, oc_target_json(&ts[i]));
  oc_json_set(&oom, doc, "results", results);
  results = NULL; /* taken over, also when it failed */
  if(oom || oc_results_summarize(doc)) {
    fprintf(stderr, "oacheck templates: out of memory building the results\n");
    goto out;
  }
  oc_console_summary(&con, doc);
  size_t unrecorded = unrecorded_targets(doc, ts, nt);
  int bad = oc_reports_write(doc, ra.json, ra.junit, ra.html);
  struct oc_counts counts;
  oc_results_count(doc, NULL, NULL, &counts);
  /* as run does: recordings that hold none of the fixtures tested
   * nothing, most often a wrong directory, and that is not a pass */
  status = reachable == 0 ? OC_EXIT_UNREACHABLE
         : unrecorded     ? OC_EXIT_USAGE
         : (counts.fail || counts.error || bad) ? OC_EXIT_FAIL : OC_EXIT_OK;
out:
  cJSON_Delete(doc);
  cJSON_Delete(results);
  cJSON_Delete(fixtures);
  oc_targets_free(ts, nt);
  oc_strlist_free(&ta.targets);
  oc_strlist_free(&ta.replays);
  return status;
}
