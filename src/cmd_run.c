/* cmd_run.c — `oacheck run`: parse options, load and check every suite
 * before any case runs, set up the targets (the shipped recordings when
 * none is given), identify them, run the plan, print the console report
 * and write the JSON, JUnit and HTML reports.  Exit status per DESIGN.md. */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "datadir.h"
#include "json.h"
#include "report_console.h"
#include "report.h"
#include "response.h"
#include "results_json.h"
#include "runner.h"
#include "schema.h"
#include "suite.h"
#include "target.h"
#include "url.h"
#include "util.h"

static const char run_usage[] =
  "Usage: oacheck run [SUITE]... [OPTION]...\n"
  "Run suites against targets and report.  SUITE is a file or a shipped suite's\n"
  "name; with none, every shipped suite runs.  With no target, the shipped\n"
  "llama-server recordings are replayed: no server, no GPU, no network.\n"
  "\n"
  "Targets:\n"
  "  -t, --target [NAME=]URL  a live server (its root; a trailing /v1 is taken off);\n"
  "                           'env' uses $OPENAI_BASE_URL; repeatable\n"
  "      --targets FILE       several targets, each with name, url or recordings,\n"
  "                           profile, model, key_env, headers, allow\n"
  "      --replay DIR         replay the recordings in DIR (cassettes or raw exchanges)\n"
  "      --model NAME         ${MODEL} (default: the first id of /v1/models)\n"
  "      --profile P          openai, llama-server, vllm, ollama or auto (default)\n"
  "      --ctx-size N         the context a request may use (default: from /props)\n"
  "                           --profile applies to every target; --model and --ctx-size\n"
  "                           to those whose targets-file entry does not set them\n"
  "Selection:\n"
  "      --filter GLOB        run cases whose 'suite/case', case or suite matches\n"
  "      --tag T              run cases with this tag\n"
  "      --shard K/N          run the K-th of N shards (by case, same on every target)\n"
  "      --list               print the plan and run nothing\n"
  "Transport:\n"
  "  -j, --jobs N             live cases in flight (default 4)\n"
  "      --timeout S          total seconds per case (default 120)\n"
  "      --idle-timeout S     seconds without a byte before giving up (default 60)\n"
  "      --connect-timeout S  default 10\n"
  "      --retries N          retries of 429/503, honouring Retry-After (default 2)\n"
  "      --cacert FILE        CA bundle for TLS;   --insecure  do not verify TLS\n"
  "Findings and reports:\n"
  "      --allow RULE         downgrade a rule (or FAMILY-*) to a warning; repeatable\n"
  "      --json FILE          write the results (the canonical report)\n"
  "      --junit FILE         write JUnit XML\n"
  "      --html FILE          write a self-contained HTML report\n"
  "  -v, --verbose            print every finding;   -q, --quiet  print errors only\n"
  "\n"
  "The API key comes from $OPENAI_API_KEY (or a target's key_env) and never\n"
  "appears in any output.  Exit status: 0 all passed or skipped, 1 a case\n"
  "failed or errored, 2 usage error or a suite that cannot be loaded, 3 no\n"
  "target could be reached.\n";

enum {
  OPT_TARGETS = 256, OPT_REPLAY, OPT_MODEL, OPT_PROFILE, OPT_CTX, OPT_FILTER, OPT_TAG, OPT_SHARD,
  OPT_LIST, OPT_TIMEOUT, OPT_IDLE, OPT_CONNECT, OPT_RETRIES, OPT_CACERT, OPT_INSECURE, OPT_ALLOW,
  OPT_JSON, OPT_JUNIT, OPT_HTML
};

static const struct option run_options[] = {
  { "target", required_argument, NULL, 't' },
  { "targets", required_argument, NULL, OPT_TARGETS },
  { "replay", required_argument, NULL, OPT_REPLAY },
  { "model", required_argument, NULL, OPT_MODEL },
  { "profile", required_argument, NULL, OPT_PROFILE },
  { "ctx-size", required_argument, NULL, OPT_CTX },
  { "filter", required_argument, NULL, OPT_FILTER },
  { "tag", required_argument, NULL, OPT_TAG },
  { "shard", required_argument, NULL, OPT_SHARD },
  { "list", no_argument, NULL, OPT_LIST },
  { "jobs", required_argument, NULL, 'j' },
  { "timeout", required_argument, NULL, OPT_TIMEOUT },
  { "idle-timeout", required_argument, NULL, OPT_IDLE },
  { "connect-timeout", required_argument, NULL, OPT_CONNECT },
  { "retries", required_argument, NULL, OPT_RETRIES },
  { "cacert", required_argument, NULL, OPT_CACERT },
  { "insecure", no_argument, NULL, OPT_INSECURE },
  { "allow", required_argument, NULL, OPT_ALLOW },
  { "json", required_argument, NULL, OPT_JSON },
  { "junit", required_argument, NULL, OPT_JUNIT },
  { "html", required_argument, NULL, OPT_HTML },
  { "verbose", no_argument, NULL, 'v' },
  { "quiet", no_argument, NULL, 'q' },
  { "help", no_argument, NULL, 'h' },
  { NULL, 0, NULL, 0 },
};

struct strlist {
  const char **items;
  size_t n;
};

static int strlist_add(struct strlist *l, const char *s)
{
  const char **d = realloc(l->items, (l->n + 1) * sizeof(*d));
  if(!d)
    return OC_ENOMEM;
  d[l->n++] = s;
  l->items = d;
  return OC_OK;
}

struct run_args {
  struct oc_run_options opts;
  struct strlist targets, replays, filters, tags, allow, suites;
  const char *targets_file, *model, *profile, *json, *junit, *html;
  long ctx_size;
  int list;
  int verbose;
};

static int seconds_ms(const char *cmd, const char *opt, const char *v, long *out)
{
  double d;
  if(oc_parse_double(v, &d) || d <= 0 || d > 86400)
    return oc_cli_usage_error(cmd, "%s wants seconds (0 < S <= 86400), not '%s'", opt, v);
  *out = (long)(d * 1000.0);
  return 0;
}

/* Parse argv into a; returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, struct run_args *a, const char *cmd)
{
  int c;
  long v;
  optind = 1;
  opterr = 0;
  while((c = getopt_long(argc, argv, "t:j:vqh", run_options, NULL)) != -1) {
    int rc = 0;
    switch(c) {
    case 't': rc = strlist_add(&a->targets, optarg); break;
    case OPT_TARGETS: a->targets_file = optarg; break;
    case OPT_REPLAY: rc = strlist_add(&a->replays, optarg); break;
    case OPT_MODEL: a->model = optarg; break;
    case OPT_PROFILE:
      if(strcmp(optarg, "auto") != 0 && !oc_profile_find(optarg))
        return oc_cli_usage_error(cmd, "unknown profile '%s' (openai, llama-server, vllm, ollama, auto)", optarg);
      a->profile = optarg;
      break;
    case OPT_CTX:
      if(oc_parse_long(optarg, 1, 100000000, &v))
        return oc_cli_usage_error(cmd, "--ctx-size wants a positive number of tokens, not '%s'", optarg);
      a->ctx_size = v;
      break;
    case OPT_FILTER: rc = strlist_add(&a->filters, optarg); break;
    case OPT_TAG: rc = strlist_add(&a->tags, optarg); break;
    case OPT_SHARD: {
      long k, n;
      const char *slash = strchr(optarg, '/');
      char kbuf[16];
      if(!slash || (size_t)(slash - optarg) >= sizeof(kbuf))
        return oc_cli_usage_error(cmd, "--shard wants K/N, e.g. 2/4, not '%s'", optarg);
      memcpy(kbuf, optarg, (size_t)(slash - optarg));
      kbuf[slash - optarg] = '\0';
      if(oc_parse_long(kbuf, 1, 10000, &k) || oc_parse_long(slash + 1, 1, 10000, &n) || k > n)
        return oc_cli_usage_error(cmd, "--shard wants K/N with 1 <= K <= N, not '%s'", optarg);
      a->opts.shard_k = (int)k;
      a->opts.shard_n = (int)n;
      break;
    }
    case OPT_LIST: a->list = 1; break;
    case 'j':
      if(oc_parse_long(optarg, 1, 256, &v))
        return oc_cli_usage_error(cmd, "--jobs wants 1..256, not '%s'", optarg);
      a->opts.jobs = (int)v;
      break;
    case OPT_TIMEOUT:
      if(seconds_ms(cmd, "--timeout", optarg, &a->opts.timeout_ms))
        return OC_EXIT_USAGE;
      break;
    case OPT_IDLE:
      if(seconds_ms(cmd, "--idle-timeout", optarg, &a->opts.idle_timeout_ms))
        return OC_EXIT_USAGE;
      break;
    case OPT_CONNECT:
      if(seconds_ms(cmd, "--connect-timeout", optarg, &a->opts.connect_timeout_ms))
        return OC_EXIT_USAGE;
      break;
    case OPT_RETRIES:
      if(oc_parse_long(optarg, 0, 10, &v))
        return oc_cli_usage_error(cmd, "--retries wants 0..10, not '%s'", optarg);
      a->opts.retries = (int)v;
      break;
    case OPT_CACERT: a->opts.cacert = optarg; break;
    case OPT_INSECURE: a->opts.insecure = 1; break;
    case OPT_ALLOW: rc = strlist_add(&a->allow, optarg); break;
    case OPT_JSON: a->json = optarg; break;
    case OPT_JUNIT: a->junit = optarg; break;
    case OPT_HTML: a->html = optarg; break;
    case 'v': a->verbose++; oc_cli_verbose(); break;
    case 'q': oc_cli_quiet(); break;
    case 'h': fputs(run_usage, stdout); return OC_EXIT_OK;
    case ':': return oc_cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
    default: return oc_cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
    }
    if(rc)
      return oc_cli_usage_error(cmd, "out of memory");
  }
  for(int i = optind; i < argc; i++)
    if(strlist_add(&a->suites, argv[i]))
      return oc_cli_usage_error(cmd, "out of memory");
  return -1;
}

/* Load every suite first: one broken file stops the run before any case. */
static int load_suites(const struct run_args *a, struct oc_suite_set *set, const struct oc_schemas *sch,
                       struct oc_schema **suite_schema)
{
  char err[600];
  char *uri = oc_asprintf("%ssuite.schema.json", OC_SCHEMA_SHIPPED_BASE);
  *suite_schema = uri ? oc_schema_compile_uri(sch->reg, uri, 0, err, sizeof(err)) : NULL;
  free(uri);
  if(!*suite_schema) {
    oc_error("cannot load the suite schema: %s", err);
    return OC_EXIT_USAGE;
  }
  char **paths = NULL;
  size_t n = 0;
  int owned = 0;
  if(a->suites.n == 0) {
    if(oc_suite_shipped(&paths, &n) || n == 0) {
      oc_error("no shipped suites found under '%s/suites'", oc_datadir());
      return OC_EXIT_USAGE;
    }
    owned = 1;
  }
  else {
    paths = calloc(a->suites.n, sizeof(*paths));
    if(!paths)
      return OC_EXIT_USAGE;
    for(size_t i = 0; i < a->suites.n; i++) {
      paths[i] = oc_suite_resolve(a->suites.items[i]);
      if(!paths[i]) {
        oc_error("'%s' is neither a suite file nor a shipped suite ('oacheck run --list' lists them)",
                 a->suites.items[i]);
        for(size_t k = 0; k < i; k++)
          free(paths[k]);
        free(paths);
        return OC_EXIT_USAGE;
      }
    }
    n = a->suites.n;
    owned = 1;
  }
  struct oc_buf errs;
  oc_buf_init(&errs, 1u << 20);
  int bad = 0;
  for(size_t i = 0; i < n; i++)
    if(oc_suite_load(set, paths[i], *suite_schema, &errs))
      bad = 1;
  if(owned) {
    for(size_t i = 0; i < n; i++)
      free(paths[i]);
    free(paths);
  }
  if(bad) {
    fputs(oc_buf_str(&errs), stderr);
    oc_error("suite errors: no case was run");
  }
  oc_buf_free(&errs);
  return bad ? OC_EXIT_USAGE : -1;
}

static int build_targets(struct run_args *a, struct oc_target **ts, size_t *nt, const char **note)
{
  char err[700];
  for(size_t i = 0; i < a->targets.n; i++) {
    struct oc_target *d = realloc(*ts, (*nt + 1) * sizeof(*d));
    if(!d)
      return OC_EXIT_USAGE;
    *ts = d;
    if(oc_target_from_spec(&d[*nt], a->targets.items[i], err, sizeof(err)))
      return oc_cli_usage_error("run", "%s", err);
    (*nt)++;
  }
  for(size_t i = 0; i < a->replays.n; i++) {
    struct oc_target *d = realloc(*ts, (*nt + 1) * sizeof(*d));
    if(!d)
      return OC_EXIT_USAGE;
    *ts = d;
    if(oc_target_from_recordings(&d[*nt], NULL, a->replays.items[i], err, sizeof(err))) {
      oc_error("%s", err);
      return OC_EXIT_USAGE;
    }
    (*nt)++;
  }
  if(a->targets_file && oc_targets_load(a->targets_file, ts, nt, err, sizeof(err))) {
    oc_error("%s", err);
    return OC_EXIT_USAGE;
  }
  if(*nt == 0) {
    char *dir = oc_data_path("suites/recordings/llama-server");
    struct oc_target *d = calloc(1, sizeof(*d));
    if(!dir || !d || oc_target_from_recordings(d, "llama-server", dir, err, sizeof(err))) {
      oc_error("no target given and the shipped recordings cannot be loaded: %s", dir ? err : "out of memory");
      free(dir);
      free(d);
      return OC_EXIT_USAGE;
    }
    free(dir);
    *ts = d;
    *nt = 1;
    *note = "no target given: replaying the shipped llama-server recordings "
            "(suites/recordings/llama-server); use --target URL for a live server";
  }
  for(size_t i = 0; i < *nt; i++) {
    struct oc_target *t = &(*ts)[i];
    for(size_t k = 0; k < i; k++)
      if(strcmp((*ts)[k].name, t->name) == 0)
        return oc_cli_usage_error("run", "two targets are named '%s': give them names (NAME=URL)", t->name);
    if(a->profile) {
      free(t->profile_name);
      t->profile_name = oc_strdup(a->profile);
      t->profile_source = strcmp(a->profile, "auto") == 0 ? "auto" : "option";
    }
    if(a->model && !t->model)
      t->model = oc_strdup(a->model);
    if(a->ctx_size && !t->ctx_size)
      t->ctx_size = a->ctx_size;
  }
  return -1;
}

static void on_result(void *ud, const struct oc_plan_item *it, const cJSON *res, size_t done,
                      size_t total)
{
  (void)it;
  oc_console_result(ud, res, done, total);
}

static char *command_line(int argc, char **argv)
{
  struct oc_buf b;
  oc_buf_init(&b, 64u << 10);
  oc_buf_adds(&b, "oacheck");
  for(int i = 0; i < argc; i++) {
    /* a URL may carry user:password@ or a key in its query: never keep them */
    const char *u = strstr(argv[i], "://");
    if(u) {
      const char *start = argv[i];
      const char *eq = strchr(argv[i], '=');
      if(eq && eq < u)
        start = eq + 1;
      char red[1024];
      oc_url_redact(start, red, sizeof(red));
      oc_buf_printf(&b, " %.*s%s", (int)(start - argv[i]), argv[i], red);
    }
    else
      oc_buf_printf(&b, " %s", argv[i]);
  }
  return oc_buf_take(&b, NULL);
}

static void list_plan(const struct oc_run *r)
{
  for(size_t i = 0; i < r->nitems; i++) {
    const struct oc_plan_item *it = &r->items[i];
    printf("%s\t%s/%s", it->target->name, it->kase->suite, it->kase->name);
    for(size_t k = 0; k < it->kase->ntags; k++)
      printf("%s%s", k ? "," : "\t", it->kase->tags[k]);
    putchar('\n');
  }
  printf("%zu case%s on %zu target%s\n", r->nitems, r->nitems == 1 ? "" : "s", r->ntargets,
         r->ntargets == 1 ? "" : "s");
}

int oc_run_main(int argc, char **argv, const char *cmd, const char *record_dir)
{
  struct run_args a;
  struct oc_ruleset allow;
  oc_ruleset_init(&allow);
  memset(&a, 0, sizeof(a));
  oc_run_options_init(&a.opts);
  int status = parse_args(argc, argv, &a, cmd);
  struct oc_schemas sch;
  struct oc_schema *suite_schema = NULL;
  struct oc_suite_set suites = { NULL, 0 };
  struct oc_target *targets = NULL;
  size_t ntargets = 0;
  struct oc_run run;
  cJSON *doc = NULL;
  char *cmdline = NULL;
  const char *note = NULL;
  char err[700];
  memset(&run, 0, sizeof(run));
  memset(&sch, 0, sizeof(sch));
  if(status >= 0)
    goto out;
  a.opts.record_dir = record_dir;
  a.opts.filters = a.filters.items;
  a.opts.nfilters = a.filters.n;
  a.opts.tags = a.tags.items;
  a.opts.ntags = a.tags.n;
  a.opts.allow = &allow;
  for(size_t i = 0; i < a.allow.n; i++) {
    const char *al = a.allow.items[i];
    if(oc_ruleset_add_pattern(&allow, al)) {
      status = oc_cli_usage_error(cmd, "--allow: unknown rule or family '%s' ('oacheck rules' "
                                  "lists them)", al);
      goto out;
    }
  }
  if(oc_schemas_load(&sch, err, sizeof(err))) {
    oc_error("cannot load the shipped schemas: %s", err);
    status = OC_EXIT_USAGE;
    goto out;
  }
  status = load_suites(&a, &suites, &sch, &suite_schema);
  if(status >= 0)
    goto out;
  status = build_targets(&a, &targets, &ntargets, &note);
  if(status >= 0)
    goto out;
  if(record_dir)
    for(size_t i = 0; i < ntargets; i++)
      if(!targets[i].live) {
        status = oc_cli_usage_error(cmd, "record needs live targets (--target URL)");
        goto out;
      }
  run.opts = &a.opts;
  run.targets = targets;
  run.ntargets = ntargets;
  run.suites = &suites;
  run.schemas = &sch;
  if(oc_run_plan(&run)) {
    status = OC_EXIT_USAGE;
    goto out;
  }
  if(a.list) {
    list_plan(&run);
    status = OC_EXIT_OK;
    goto out;
  }
  char started[32];
  oc_now_rfc3339(started);
  struct oc_console con;
  oc_console_init(&con, stdout);
  con.verbose = a.verbose;
  if(note)
    fprintf(stdout, "oacheck %s: %s\n", PACKAGE_VERSION, note);
  size_t reachable = 0;
  /* from here on ^C or SIGTERM stops the run and still writes the
   * finished cases, marked incomplete */
  oc_run_catch_signals();
  for(size_t i = 0; i < ntargets && !oc_run_signal(); i++) {
    /* identification honours the run's timeouts: each request at most
     * 30 s (or --timeout), --idle-timeout without a byte, and all of it
     * --timeout */
    long per = a.opts.timeout_ms < 30000 ? a.opts.timeout_ms : 30000;
    char *rdir = oc_run_record_dir(&run, &targets[i]);
    struct oc_identify_options io = { per, a.opts.insecure, a.opts.cacert, rdir,
                                      a.opts.idle_timeout_ms, a.opts.connect_timeout_ms,
                                      a.opts.timeout_ms, 0 };
    oc_target_identify(&targets[i], &io);
    free(rdir);
    struct oc_target *t = &targets[i];
    reachable += t->reachable;
    const char *model = oc_json_str(t->identity, "model");
    if(t->reachable)
      fprintf(stdout, "target %s: %s %s, profile %s (%s)%s%s\n", t->name,
              t->live ? "live" : "replay of", t->live ? "server" : t->recordings,
              t->profile->name, t->profile_source, model ? ", model " : "", model ? model : "");
    else
      fprintf(stdout, "target %s: unreachable: %s\n", t->name, t->error ? t->error : "");
  }
  fprintf(stdout, "%zu case%s from %zu suite%s\n", run.nitems, run.nitems == 1 ? "" : "s",
          suites.count, suites.count == 1 ? "" : "s");
  fflush(stdout);
  run.on_result = on_result;
  run.ud = &con;
  if(!oc_run_signal() && oc_run_execute(&run)) {
    oc_error("out of memory");
    status = OC_EXIT_FAIL;
    goto out;
  }
  cmdline = command_line(argc, argv);
  doc = oc_run_results(&run, cmdline, note, started);
  if(!doc || oc_results_summarize(doc)) {
    oc_error("out of memory building the results");
    status = OC_EXIT_FAIL;
    goto out;
  }
  oc_console_summary(&con, doc);
  int bad_reports = oc_reports_write(doc, a.json, a.junit, a.html);
  struct oc_counts counts;
  oc_results_count(doc, NULL, NULL, &counts);
  int sig = oc_run_signal();
  if(sig)
    status = 128 + sig; /* 130 for SIGINT, 143 for SIGTERM, as a shell reports a kill */
  else if(run.suite_errors) {
    oc_error("suite errors: %zu case%s could not be built (see above)", run.suite_errors,
             run.suite_errors == 1 ? "" : "s");
    status = OC_EXIT_USAGE;
  }
  else if(reachable == 0)
    status = OC_EXIT_UNREACHABLE;
  else if(counts.fail || counts.error || bad_reports)
    status = OC_EXIT_FAIL;
  else
    status = OC_EXIT_OK;
out:
  cJSON_Delete(doc);
  free(cmdline);
  oc_run_free(&run);
  for(size_t i = 0; i < ntargets; i++)
    oc_target_free(&targets[i]);
  free(targets);
  oc_suite_set_free(&suites);
  oc_schema_free(suite_schema);
  oc_schemas_free(&sch);
  free(a.targets.items);
  free(a.replays.items);
  free(a.filters.items);
  free(a.tags.items);
  free(a.allow.items);
  free(a.suites.items);
  return status;
}

int oc_cmd_run(int argc, char **argv)
{
  return oc_run_main(argc, argv, "run", NULL);
}
