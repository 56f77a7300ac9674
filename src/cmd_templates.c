/* cmd_templates.c — `oacheck templates`: render the template fixtures on
 * every target (the shipped template recordings when none is given),
 * print a fixture × target matrix, optionally the prompts themselves, and
 * write the same results documents as `run` (JSON, JUnit, HTML). */
#include "config.h"

#include <dirent.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "datadir.h"
#include "json.h"
#include "report_console.h"
#include "report.h"
#include "results_json.h"
#include "templates.h"
#include "util.h"

static const char templates_usage[] =
  "Usage: oacheck templates [--target [NAME=]URL]... [--replay DIR]... [OPTION]...\n"
  "Render the same conversations through each target's chat template\n"
  "(POST /apply-template, as llama-server offers) and compare: a dropped or moved\n"
  "system prompt, a silently dropped message, a template that refuses common\n"
  "tool-call ids, the server's date stamped into the prompt.  With no target, the\n"
  "shipped recordings of three templates (Qwen 2.5, Llama 3.1, Mistral Nemo) are\n"
  "compared.\n"
  "\n"
  "  -t, --target [NAME=]URL  a live server (repeatable)\n"
  "      --targets FILE       targets as for 'oacheck run'\n"
  "      --replay DIR         recorded renders (repeatable)\n"
  "      --fixtures FILE      conversations (default: suites/templates/fixtures.json)\n"
  "      --show               print every rendered prompt\n"
  "      --json FILE, --junit FILE, --html FILE   reports, as for 'oacheck run'\n"
  "      --timeout S          seconds per request (default 60)\n"
  "  -v, -q, -h               more output, less output, this help\n"
  "\n"
  "Exit status: 0 no error finding, 1 a template failed a check or a target\n"
  "errored, 2 usage error, 3 no target reachable.\n";

static int add_target(struct oc_target **ts, size_t *n, struct oc_target *t)
{
  struct oc_target *d = realloc(*ts, (*n + 1) * sizeof(*d));
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
  for(size_t i = 0; i < nn; i++) {
    char *sub = names[i] ? oc_path_join(dir, names[i]) : NULL;
    struct oc_target t;
    char err[600];
    if(!rc && sub && oc_is_dir(sub) && !oc_target_from_recordings(&t, names[i], sub, err, sizeof(err)))
      rc = add_target(ts, n, &t);
    free(sub);
    free(names[i]);
  }
  free(dir);
  return rc;
}

static void print_matrix(const cJSON *results, const struct oc_target *ts, size_t n)
{
  printf("\n%-16s", "fixture");
  for(size_t i = 0; i < n; i++)
    printf(" | %-28.28s", ts[i].name);
  printf("\n");
  const cJSON *r;
  const char *last = NULL;
  /* results are target by target: print row by row */
  const cJSON *first_target = NULL;
  cJSON_ArrayForEach(r, results)
  {
    if(!first_target)
      first_target = r;
    if(!oc_streq(oc_json_str(r, "target"), oc_json_str(first_target, "target")))
      break;
    const char *fx = oc_json_str(r, "case");
    if(oc_streq(fx, last))
      continue;
    last = fx;
    printf("%-16.16s", fx ? fx : "?");
    for(size_t i = 0; i < n; i++) {
      const cJSON *x;
      const char *cell = "-";
      char buf[64];
      cJSON_ArrayForEach(x, results)
      {
        if(!oc_streq(oc_json_str(x, "target"), ts[i].name) || !oc_streq(oc_json_str(x, "case"), fx))
          continue;
        const cJSON *f = cJSON_GetArrayItem(oc_json_arr(x, "findings"), 0);
        const char *st = oc_json_str(x, "status");
        if(f) {
          const char *sev = oc_json_str(f, "severity");
          snprintf(buf, sizeof(buf), "%s %s",
                   oc_streq(st, "fail") ? "FAIL" : oc_streq(sev, "info") ? "info" : "warn",
                   oc_json_str(f, "rule"));
          cell = buf;
        }
        else
          cell = oc_streq(st, "skip") ? "not recorded" : oc_streq(st, "error") ? "ERROR" : "ok";
      }
      printf(" | %-28.28s", cell);
    }
    printf("\n");
  }
}

int oc_cmd_templates(int argc, char **argv)
{
  static const struct option opts[] = {
    { "target", required_argument, NULL, 't' },
    { "targets", required_argument, NULL, 'T' },
    { "replay", required_argument, NULL, 'R' },
    { "fixtures", required_argument, NULL, 'F' },
    { "show", no_argument, NULL, 's' },
    { "json", required_argument, NULL, 'J' },
    { "junit", required_argument, NULL, 'U' },
    { "html", required_argument, NULL, 'H' },
    { "timeout", required_argument, NULL, 'o' },
    { "verbose", no_argument, NULL, 'v' },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  struct oc_target *ts = NULL;
  size_t nt = 0;
  const char *fixtures_path = NULL, *json = NULL, *junit = NULL, *html = NULL;
  int show = 0, c, status = OC_EXIT_USAGE;
  double timeout_s = 60;
  char err[700];
  cJSON *fixtures = NULL, *results = NULL, *doc = NULL;
  optind = 1;
  opterr = 0;
  while((c = getopt_long(argc, argv, "t:vqh", opts, NULL)) != -1) {
    struct oc_target t;
    switch(c) {
    case 't':
      if(oc_target_from_spec(&t, optarg, err, sizeof(err))) {
        status = oc_cli_usage_error("templates", "%s", err);
        goto out;
      }
      if(add_target(&ts, &nt, &t))
        goto out;
      break;
    case 'T':
      if(oc_targets_load(optarg, &ts, &nt, err, sizeof(err))) {
        oc_error("%s", err);
        goto out;
      }
      break;
    case 'R':
      if(oc_target_from_recordings(&t, NULL, optarg, err, sizeof(err))) {
        oc_error("%s", err);
        goto out;
      }
      if(add_target(&ts, &nt, &t))
        goto out;
      break;
    case 'F': fixtures_path = optarg; break;
    case 's': show = 1; break;
    case 'J': json = optarg; break;
    case 'U': junit = optarg; break;
    case 'H': html = optarg; break;
    case 'o':
      if(oc_parse_double(optarg, &timeout_s) || timeout_s <= 0) {
        status = oc_cli_usage_error("templates", "--timeout wants seconds, not '%s'", optarg);
        goto out;
      }
      break;
    case 'v': oc_cli_verbose(); break;
    case 'q': oc_cli_quiet(); break;
    case 'h': fputs(templates_usage, stdout); status = OC_EXIT_OK; goto out;
    default: status = oc_cli_usage_error("templates", "unknown option or missing value '%s'", argv[optind - 1]); goto out;
    }
  }
  if(optind < argc) {
    status = oc_cli_usage_error("templates", "unexpected argument '%s'", argv[optind]);
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
  struct oc_identify_options io = { .timeout_ms = (long)(timeout_s * 1000) };
  size_t reachable = 0;
  for(size_t i = 0; i < nt; i++) {
    oc_target_identify(&ts[i], &io);
    reachable += ts[i].reachable;
    const char *sha = oc_json_str(ts[i].identity, "chat_template_sha256");
    printf("target %s: %s%s%.12s\n", ts[i].name, ts[i].reachable ? "" : "unreachable: ",
           ts[i].reachable ? (sha ? "template sha256 " : "template unknown") : (ts[i].error ? ts[i].error : ""),
           ts[i].reachable && sha ? sha : "");
  }
  results = oc_templates_run(ts, nt, fixtures, &io);
  if(!results)
    goto out;
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
  print_matrix(results, ts, nt);
  int live = 0;
  for(size_t i = 0; i < nt; i++)
    live |= ts[i].live;
  doc = oc_results_doc_new(live ? "live" : "replay", NULL, note, NULL);
  if(!doc)
    goto out;
  cJSON *targets = oc_json_arr(doc, "targets");
  for(size_t i = 0; i < nt; i++)
    cJSON_AddItemToArray(targets, oc_target_json(&ts[i]));
  cJSON_ReplaceItemInObjectCaseSensitive(doc, "results", results);
  results = NULL;
  if(oc_results_summarize(doc))
    goto out;
  oc_console_summary(&con, doc);
  int bad = oc_reports_write(doc, json, junit, html);
  struct oc_counts counts;
  oc_results_count(doc, NULL, NULL, &counts);
  status = reachable == 0 ? OC_EXIT_UNREACHABLE
         : (counts.fail || counts.error || bad) ? OC_EXIT_FAIL : OC_EXIT_OK;
out:
  cJSON_Delete(doc);
  cJSON_Delete(results);
  cJSON_Delete(fixtures);
  for(size_t i = 0; i < nt; i++)
    oc_target_free(&ts[i]);
  free(ts);
  return status;
}
