/* cmd_run.c — `oacheck run`: parse options, load and check every suite
 * before any case runs, set up the targets (the shipped recordings when
 * none is given), identify them, run the plan, print the console report
 * and write the JSON, JUnit and HTML reports.  Exit status per DESIGN.md. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cassette.h"
#include "cli.h"
#include "datadir.h"
#include "deployment.h"
#include "json.h"
#include "protocol.h"
#include "load_text.h"
#include "loadcheck.h"
#include "report_console.h"
#include "report.h"
#include "reports.h"
#include "report_ci.h"
#include "response.h"
#include "results_json.h"
#include "runner.h"
#include "secret.h"
#include "schema.h"
#include "shard.h"
#include "suite.h"
#include "target.h"
#include "url.h"
#include "util.h"
#include "verdict.h"

static const char run_usage[] =
  "Usage: oacheck run [SUITE]... [OPTION]...\n"
  "Run suites against targets and report.  SUITE is a file or a shipped suite's\n"
  "name; with none, every shipped suite runs.  With no target, the shipped\n"
  "llama-server recordings are replayed: no server, no GPU, no network.\n";

static const char record_usage[] =
  "Usage: oacheck record [SUITE]... --target [NAME=]URL... --out DIR [OPTION]...\n"
  "Run the suites against the targets exactly as 'oacheck run' does (same options,\n"
  "same report), and also write every case's exchange, with the arrival time of\n"
  "every piece, to DIR/SUITE.CASE.cassette.gz, plus the target identification\n"
  "requests.  'oacheck run --replay DIR' then reaches the same verdicts with no\n"
  "network; 'oacheck serve DIR' serves them.  API keys and other secret headers\n"
  "are never written.  ('oacheck record --show' and '--import': 'oacheck record\n"
  "--help' without a target.)\n";

static const char run_footer[] =
  "--profile applies to every target; --model and --ctx-size to those whose\n"
  "targets-file entry does not set them.  The API key comes from $OPENAI_API_KEY\n"
  "(or a target's key_env) and never appears in any output.\n"
  "Exit status: 0 all passed or skipped, 1 a case failed or errored, 2 usage\n"
  "error, a suite that cannot be loaded, or recordings (--replay, oacheck serve)\n"
  "holding none of the selected cases, 3 no target could be reached.\n";

struct run_args {
  struct oc_run_options opts;
  struct oc_target_args targets;
  struct oc_report_args reports;
  struct oc_ci_args ci;
  struct oc_verdict_args verdict;
  struct oc_strlist filters, tags, suites;
  struct oc_ruleset allow;
  const char *model, *profile;
  const char *shard, *durations; /* --shard K/N|auto, --durations FILE */
  long shard_total;
  struct oc_shard sh;
  long ctx_size;
  int list;
  int verbose;
  int load;                 /* --load N */
  long duration_ms;         /* --duration S */
};

static int opt_profile(const struct oc_option *o, const char *arg, char *err, size_t errlen)
{
  if(strcmp(arg, "auto") != 0 && !oc_profile_find(arg)) {
    snprintf(err, errlen, "unknown profile '%s' (openai, llama-server, vllm, ollama, auto)", arg);
    return 1;
  }
  *(const char **)o->value = arg;
  return 0;
}

/* --durations' reader: of each result, what oc_shard_balance reads */
static int keep_duration(void *ud, cJSON *r, size_t i, char *err, size_t errlen)
{
  int oom = 0;
  cJSON *k = oc_json_put(&oom, ud, NULL, cJSON_CreateObject());
  oc_json_put_str(&oom, k, "suite", oc_json_str(r, "suite"));
  oc_json_put_str(&oom, k, "case", oc_json_str(r, "case"));
  const cJSON *d = oc_json_get(r, "duration_ms");
  if(d)
    oc_json_put(&oom, k, "duration_ms", cJSON_Duplicate(d, 0));
  cJSON_Delete(r);
  if(oom)
    snprintf(err, errlen, "out of memory keeping result %zu", i);
  return oom ? OC_ENOMEM : OC_OK;
}

/* Parse argv into a; returns -1 to go on, else an exit status. */
static int parse_args(int argc, char **argv, struct run_args *a, const char *cmd, int record)
{
  struct oc_run_options *ro = &a->opts;
  const struct oc_option out = OC_OPT_STRING(0, "out", &ro->record_dir, "DIR",
                                             "record: where the cassettes go (created when missing); with "
                                             "--model all or a,b, each model's in DIR/MODEL");
  const struct oc_option end = OC_OPT_END();
  const struct oc_option options[] = {
    OC_OPT_TARGETS(&a->targets),
    OC_OPT_STRING(0, "model", &a->model, "NAME",
                  "${MODEL} (default: the first id of /v1/models); 'all' or 'a,b': the suites once "
                  "per model, a target NAME/MODEL each"),
    OC_OPT_CALLBACK(0, "profile", &a->profile, "P", opt_profile,
                    "openai, llama-server, vllm, ollama or auto (default)"),
    OC_OPT_LONG(0, "ctx-size", &a->ctx_size, "N", 1, 100000000,
                "the context a request may use (default: from /props)"),
    OC_OPT_GROUP("Selection:"),
    OC_OPT_LIST(0, "filter", &a->filters, "GLOB",
                "run cases whose 'suite/case', case or suite matches\n"
                "(one that matches no case is a usage error)"),
    OC_OPT_LIST(0, "tag", &a->tags, "T", "run cases with this tag (one no case has: an error)"),
    OC_OPT_STRING(0, "shard", &a->shard, "K/N|auto",
                  "run the K-th of N shards (by case, the same on every\n"
                  "target; a case keeps its shard when cases are added);\n"
                  "'auto': K and N from the CI engine's variables"),
    OC_OPT_LONG(0, "shard-total", &a->shard_total, "N", 1, 10000,
                "--shard auto: the number of shards where the engine\n"
                "gives only an index (Kubernetes JOB_COMPLETION_INDEX)"),
    OC_OPT_STRING(0, "durations", &a->durations, "FILE",
                  "balance the shards by the case durations recorded in\n"
                  "FILE (JSON results of an earlier run, best merged)"),
    OC_OPT_FLAG(0, "list", &a->list, "print the plan and run nothing"),
    OC_OPT_GROUP("Transport:"),
    OC_OPT_INT('j', "jobs", &ro->jobs, "N", 1, 256,
               "live cases in flight per target (default: a llama-server's\n"
               "total_slots, else 4)"),
    OC_OPT_INT(0, "threads", &ro->threads, "N", 1, OC_RUN_MAX_THREADS,
               "threads sharing the live cases, each with its own\n"
               "transfer loop (default: one per CPU, at most the jobs)"),
    OC_OPT_SECONDS(0, "timeout", &ro->timeout_ms, "total seconds per case (default 120)"),
    OC_OPT_SECONDS(0, "idle-timeout", &ro->idle_timeout_ms,
                   "seconds without a byte before giving up (default 60)"),
    OC_OPT_SECONDS(0, "connect-timeout", &ro->connect_timeout_ms, "default 10"),
    OC_OPT_INT(0, "retries", &ro->retries, "N", 0, 10,
               "retries of 429/503, honouring Retry-After (default 2)"),
    OC_OPT_INT(0, "load", &a->load, "N", 1, 256,
               "after the run, run the live cases again with N in\n"
               "flight per target and report what fails only under load"),
    OC_OPT_SECONDS(0, "duration", &a->duration_ms,
                   "with --load: keep the load on this long (default: one round)"),
    OC_OPT_STRING(0, "cacert", &ro->cacert, "FILE", "CA bundle for TLS"),
    OC_OPT_FLAG(0, "insecure", &ro->insecure, "do not verify TLS"),
    OC_OPT_GROUP("Findings and reports:"),
    OC_OPT_VERDICT(&a->verdict),
    OC_OPT_ALLOW(&a->allow),
    OC_OPT_REPORTS(&a->reports),
    OC_OPT_CI(&a->ci),
    OC_OPT_VERBOSE(&a->verbose, "print every finding (repeat for debug and trace output)"),
    OC_OPT_QUIET(),
    record ? out : end,
    OC_OPT_END(),
  };
  const struct oc_cli cli = { cmd, record ? record_usage : run_usage, run_footer, options };
  return oc_cli_parse(&cli, argc, argv, &a->suites);
}

static const char *real_getenv(const char *name)
{
  return getenv(name);
}

/* --shard, --shard-total and --durations into a->sh (then a->opts.shard);
 * -1 to go on, else an exit status. */
static int resolve_shard(struct run_args *a, const char *cmd)
{
  char err[700];
  if(!a->shard) {
    if(a->shard_total || a->durations)
      return oc_cli_usage_error(cmd, "--%s needs --shard", a->durations ? "durations" : "shard-total");
    return -1;
  }
  if(strcmp(a->shard, "auto") == 0) {
    if(oc_shard_from_env(&a->sh, real_getenv, a->shard_total, err, sizeof(err)))
      return oc_cli_usage_error(cmd, "--shard auto: %s", err);
  }
  else if(a->shard_total)
    return oc_cli_usage_error(cmd, "--shard-total goes with --shard auto");
  else if(oc_shard_parse(&a->sh, a->shard, err, sizeof(err)))
    return oc_cli_usage_error(cmd, "--shard: %s", err);
  if(a->durations) {
    /* a result at a time, each kept as the three members balancing reads:
     * the durations of a big merged run cost their names, not the run */
    cJSON *kept = cJSON_CreateArray();
    cJSON *doc = NULL;
    if(kept)
      oc_results_load_each(a->durations, keep_duration, kept, &doc, err, sizeof(err));
    int oom = !kept;
    if(doc)
      oc_json_set(&oom, doc, "results", kept);
    else
      cJSON_Delete(kept);
    if(oom && doc) {
      cJSON_Delete(doc);
      doc = NULL;
    }
    if(oom)
      snprintf(err, sizeof(err), "out of memory");
    if(!doc) {
      oc_error("--durations: %s", err);
      return OC_EXIT_USAGE;
    }
    int rc = oc_shard_balance(&a->sh, doc, err, sizeof(err));
    cJSON_Delete(doc);
    if(rc) {
      oc_error("--durations '%s': %s", a->durations, err);
      return OC_EXIT_USAGE;
    }
  }
  oc_info("shard %d of %d (%s, by %s)", a->sh.k, a->sh.n, a->sh.source,
          oc_shard_method_name(a->sh.method));
  a->opts.shard = &a->sh;
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
        struct oc_buf why;
        oc_buf_init(&why, OC_CAP_MESSAGE);
        oc_suite_resolve_why(a->suites.items[i], &why);
        oc_error("%s", oc_buf_str(&why));
        oc_buf_free(&why);
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
  for(size_t i = 0; i < n; i++) {
    int lrc = oc_suite_load(set, paths[i], *suite_schema, &errs);
    if(lrc == OC_ENOMEM) /* oacheck's failure, which the loader leaves unsaid */
      oc_buf_printf(&errs, "%s: out of memory while loading the suite\n", paths[i]);
    if(lrc)
      bad = 1;
  }
  if(owned) {
    for(size_t i = 0; i < n; i++)
      free(paths[i]);
    free(paths);
  }
  if(bad) {
    fputs(oc_buf_str(&errs), stderr);
    if(oc_buf_error(&errs))
      oc_error("more suite errors than fit the message buffer; the first are shown");
    oc_error("suite errors: no case was run");
  }
  oc_buf_free(&errs);
  return bad ? OC_EXIT_USAGE : -1;
}

/* The protocol whose shipped suite (protocol.h: suites/protocols/NAME.json)
 * every suite named is, else NULL (chat's suites, mixed or a file of the
 * user's): the default recordings follow it. */
static const struct oc_protocol *default_protocol(const struct run_args *a)
{
  const struct oc_protocol *proto = NULL;
  for(size_t i = 0; i < a->suites.n; i++) {
    const char *s = a->suites.items[i];
    const char *b = strrchr(s, '/') ? strrchr(s, '/') + 1 : s;
    const struct oc_protocol *p = NULL;
    for(int k = 0; k < OC_PROTO__COUNT && !p; k++)
      if(k != OC_PROTO_CHAT && oc_startswith(b, oc_protocols[k]->suite))
        p = oc_protocols[k];
    char *path = oc_suite_resolve(s);
    int shipped = path && strstr(path, "suites/protocols/") != NULL;
    free(path);
    if(!p || !shipped || (proto && proto != p))
      return NULL;
    proto = p;
  }
  return proto;
}

static int build_targets(struct run_args *a, struct oc_target **ts, size_t *nt, const char **note)
{
  char err[700];
  int rc = oc_targets_build_for("run", &a->targets, ts, nt);
  if(rc >= 0)
    return rc;
  if(*nt == 0 && a->list) {
    /* the plan needs the target's name, not its recordings */
    struct oc_target *d = calloc(1, sizeof(*d));
    if(d) {
      oc_target_init(d);
      d->name = oc_strdup("llama-server");
    }
    if(!d || !d->name) {
      oc_error("out of memory");
      free(d);
      return OC_EXIT_USAGE;
    }
    *ts = d;
    *nt = 1;
  }
  else if(*nt == 0) {
    /* a protocol's suites alone replay that protocol's recordings
     * (suites/protocols/NAME.json: suites/recordings/llama-server-NAME) */
    /* one protocol's suites: its recordings; else every protocol's, as
     * one llama-server that serves them all */
    const struct oc_protocol *proto = default_protocol(a);
    char *rel = proto ? oc_asprintf("suites/recordings/%s", proto->recordings)
                      : oc_strdup("suites/recordings/llama-server");
    char *dir = rel ? oc_data_path(rel) : NULL;
    struct oc_target *d = calloc(1, sizeof(*d));
    if(!dir || !d ||
       (proto ? oc_target_from_recordings(d, "llama-server", dir, err, sizeof(err))
              : oc_target_from_shipped(d, "llama-server", err, sizeof(err)))) {
      oc_error("no target given and the shipped recordings cannot be loaded: %s", dir ? err : "out of memory");
      free(rel);
      free(dir);
      free(d);
      return OC_EXIT_USAGE;
    }
    free(dir);
    *ts = d;
    *nt = 1;
    /* said once per run: static storage for the run's note */
    static char said[300];
    if(proto)
      snprintf(said, sizeof(said), "no target given: replaying the shipped llama-server %s recordings "
               "(%s); use --target URL for a live server", proto->title, rel);
    else
      snprintf(said, sizeof(said), "no target given: replaying the shipped llama-server recordings "
               "(suites/recordings/llama-server and its -responses and -messages folders); use "
               "--target URL for a live server");
    free(rel);
    *note = said;
  }
  for(size_t i = 0; i < *nt; i++) {
    struct oc_target *t = &(*ts)[i];
    if(a->profile) {
      free(t->profile_name);
      t->profile_name = oc_strdup(a->profile);
      t->profile_source = strcmp(a->profile, "auto") == 0 ? "auto" : "option";
    }
    if(a->model && !t->model && !oc_model_spec_is_list(a->model))
      t->model = oc_strdup(a->model);
    if(a->ctx_size && !t->ctx_size)
      t->ctx_size = a->ctx_size;
  }
  return -1;
}

/* How many cases each live target gets in flight: --jobs, else as many as
 * it has slots (more would only queue, and on a shared context could make
 * failures one client never sees), else 4. */
static void choose_jobs(struct oc_target *t, int jobs)
{
  int slots = oc_deployment_slots(&t->deployment);
  if(jobs > 0) {
    t->jobs = jobs;
    t->jobs_source = "option";
  }
  else if(slots > 0) {
    t->jobs = slots > 256 ? 256 : slots;
    t->jobs_source = "total_slots";
  }
  else {
    t->jobs = 4;
    t->jobs_source = "default";
  }
}

/* The first lines about a target, after its identity: what its
 * recordings are, what the deployment says about itself, and how many
 * cases run at once. */
/* One line about a target on stdout.  The line holds what its server
 * said (a model id, a build, a Content-Type, a transport error): control
 * characters are shown escaped, as every report shows them, so that a
 * server cannot drive the terminal, and known secrets are masked. */
static void target_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void target_say(const char *fmt, ...)
{
  struct oc_buf raw, shown;
  oc_buf_init(&raw, OC_CAP_MESSAGE * 4);
  oc_buf_init(&shown, OC_CAP_MESSAGE * 8);
  va_list ap;
  va_start(ap, fmt);
  int rc = oc_buf_vprintf(&raw, fmt, ap);
  va_end(ap);
  if(!rc && !oc_esc_add(&shown, raw.data, raw.len, OC_ESC_TEXT)) {
    oc_secret_mask(shown.data, shown.len);
    printf("%s\n", oc_buf_str(&shown));
  }
  oc_buf_free(&raw);
  oc_buf_free(&shown);
}

static void target_lines(const struct oc_target *t)
{
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_MESSAGE);
  cJSON *j = oc_target_json(t);
  if(oc_json_obj(j, "recorded") && oc_recorded_text(oc_json_obj(j, "recorded"), &b) == OC_OK)
    target_say("  recorded: %s", oc_buf_str(&b));
  oc_buf_reset(&b);
  if(oc_json_obj(j, "deployment") && oc_deployment_text(oc_json_obj(j, "deployment"), &b) == OC_OK)
    target_say("  deployment: %s", oc_buf_str(&b));
  if(t->live && t->jobs > 0) {
    const char *why = oc_streq(t->jobs_source, "total_slots") ? "the target's total_slots; --jobs N overrides"
                      : oc_streq(t->jobs_source, "option") ? "--jobs"
                      : "no slot count known; --jobs N sets it";
    printf("  jobs: %d in flight (%s)\n", t->jobs, why);
  }
  cJSON_Delete(j);
  oc_buf_free(&b);
}

/* What the console is told as cases end: the run, for the plan, and the
 * (target, suite) pairs of unreachable targets already said. */
struct progress {
  struct oc_console *con;
  const struct oc_run *run;
  struct said {
    const struct oc_target *target;
    const char *suite;
  } *said;
  size_t nsaid, alloc;
};

static void on_result(void *ud, const struct oc_plan_item *it, const cJSON *res, size_t done,
                      size_t total)
{
  struct progress *p = ud;
  const struct oc_target *t = it->target;
  if(!t->live || t->reachable) {
    oc_console_result(p->con, res, done, total);
    return;
  }
  /* a target that could not be reached: its header said why once; each
   * suite gets one line for all its cases rather than two lines a case
   * repeating the same error (the results keep every case) */
  for(size_t i = 0; i < p->nsaid; i++)
    if(p->said[i].target == t && oc_streq(p->said[i].suite, it->kase->suite)) {
      oc_console_not_run(p->con, res, 0, NULL, done, total);
      return;
    }
  struct said *s = oc_array_grow(p->said, &p->alloc, p->nsaid + 1, sizeof(*s));
  if(!s) { /* no room to remember it: the case is said alone */
    oc_console_result(p->con, res, done, total);
    return;
  }
  p->said = s;
  p->said[p->nsaid].target = t;
  p->said[p->nsaid++].suite = it->kase->suite;
  size_t n = 0;
  for(size_t i = 0; i < p->run->nitems; i++)
    n += p->run->items[i].target == t && oc_streq(p->run->items[i].kase->suite, it->kase->suite);
  char why[200];
  snprintf(why, sizeof(why), "target unreachable (%s)", t->error_kind ? t->error_kind : "see above");
  oc_console_not_run(p->con, res, n, why, done, total);
}

static char *command_line(int argc, char **argv)
{
  struct oc_buf b;
  oc_buf_init(&b, 64u << 10);
  oc_buf_adds(&b, "oacheck");
  for(int i = 0; i < argc; i++) {
    /* a URL may carry user:password@ or a key in its query: never keep
     * them (the rest of the query is where the run went: kept) */
    const char *u = strstr(argv[i], "://");
    if(u) {
      const char *start = argv[i];
      const char *eq = strchr(argv[i], '=');
      if(eq && eq < u)
        start = eq + 1;
      char red[1024];
      oc_url_redact_query(start, red, sizeof(red));
      /* a query's '&' and a [redacted] would mean something to a shell */
      const char *q = strchr(red, '?') ? "'" : "";
      oc_buf_printf(&b, " %s%.*s%s%s", q, (int)(start - argv[i]), argv[i], red, q);
    }
    else
      oc_buf_printf(&b, " %s", argv[i]);
  }
  return oc_buf_take(&b, NULL); /* NULL, not a cut command, when an add failed */
}

static void print_target(const struct oc_target *t)
{
  const char *model = oc_json_str(t->identity, "model");
  if(!t->reachable) {
    target_say("target %s: unreachable: %s", t->name, t->error ? t->error : "");
    return;
  }
  target_say("target %s: %s %s, profile %s (%s)%s%s%s", t->name,
          t->live ? "live" : "replay of", t->live ? "server" : t->recordings, t->profile->name,
          t->profile_source, t->router ? ", router" : "", model ? ", model " : "",
          model ? model : "");
  /* said here, once: otherwise only each case needing ${MODEL} would
   * say that the target lists no model */
  char problem[1200];
  oc_target_models_note(t, problem, sizeof(problem));
  if(problem[0])
    target_say("target %s: %s", t->name, problem);
  /* a model that loaded on first use: slow once, reported, not judged */
  const cJSON *load = oc_json_obj(t->identity, "load");
  if(load)
    target_say("target %s: model %s was %s; its first request took %.1f ms (loading it)",
            t->name, model ? model : "?", oc_json_str(load, "was") ? oc_json_str(load, "was") : "?",
            oc_json_num(load, "first_request_ms", 0));
}

/* Said once per target after the summary, from what its cases met (struct
 * oc_run_tally): a key refused (a line of HTTP-STATUS failures reads as
 * a broken server otherwise), and recordings holding none of the cases
 * asked.  Returns how many targets had no recording of any case asked
 * of them: the run tested nothing there, most often a wrong directory,
 * and that is not a pass (exit 2, as a filter that selects nothing is). */
static size_t target_tallies(const struct oc_run *r)
{
  size_t none = 0;
  for(size_t i = 0; r->tally && i < r->ntargets; i++) {
    const struct oc_target *t = &r->targets[i];
    const struct oc_run_tally *ty = &r->tally[i];
    for(int k = 0; k < 2; k++)
      if(ty->refused[k]) {
        char hint[300];
        oc_target_key_hint(t, hint, sizeof(hint));
        fprintf(stdout, "target %s answered HTTP %d to %zu case%s: %s\n", t->name, k ? 403 : 401,
                ty->refused[k], ty->refused[k] == 1 ? "" : "s", hint);
      }
  }
  fflush(stdout);
  for(size_t i = 0; r->tally && i < r->ntargets; i++) {
    const struct oc_target *t = &r->targets[i];
    const struct oc_run_tally *ty = &r->tally[i];
    if(!ty->asked || ty->unrecorded != ty->asked)
      continue;
    none++;
    char where[600];
    if(t->live)
      oc_url_redact(t->url, where, sizeof(where));
    if(t->live)
      oc_error("target %s: the oacheck serve at %s has no recording of any of the %zu selected "
               "case%s", t->name, where, ty->asked, ty->asked == 1 ? "" : "s");
    else
      oc_error("replay target %s: none of the %zu selected case%s has a recording in %s", t->name,
               ty->asked, ty->asked == 1 ? "" : "s", t->recordings ? t->recordings : "?");
  }
  return none;
}

/* The model matrix: a line per model of each router (or model list),
 * its counts by status, and the rules that failed there. */
static void model_matrix(struct oc_results *rs, const struct oc_target *ts, size_t n)
{
  int any = 0;
  for(size_t i = 0; i < n; i++)
    any |= ts[i].router_name != NULL;
  if(!any)
    return;
  int w = 6;
  for(size_t i = 0; i < n; i++)
    if((int)strlen(ts[i].name) > w)
      w = (int)strlen(ts[i].name) > 48 ? 48 : (int)strlen(ts[i].name);
  printf("\n%-*s  %-24s %5s %5s %5s %5s  %s\n", w, "target", "model", "pass", "fail", "error", "skip",
         "failing rules");
  for(size_t i = 0; i < n; i++) {
    struct oc_counts c;
    oc_results_counts(rs, ts[i].name, NULL, &c);
    struct oc_buf rules;
    oc_buf_init(&rules, OC_CAP_MESSAGE);
    for(size_t k = 0; k < rs->count; k++) {
      if(!oc_streq(rs->refs[k].target, ts[i].name) || rs->refs[k].status != OC_ST_FAIL)
        continue;
      char err[700];
      const cJSON *r = oc_results_get(rs, k, err, sizeof(err)), *f;
      if(!r) {
        oc_error("%s", err);
        break;
      }
      cJSON_ArrayForEach(f, oc_json_arr(r, "findings"))
      {
        const char *rule = oc_json_str(f, "rule");
        if(!oc_streq(oc_json_str(f, "severity"), "error") || !rule)
          continue;
        char word[80];
        snprintf(word, sizeof(word), " %s ", rule);
        char padded[OC_CAP_MESSAGE + 2];
        snprintf(padded, sizeof(padded), " %s ", oc_buf_str(&rules));
        if(!strstr(padded, word))
          oc_buf_printf(&rules, "%s%s", rules.len ? " " : "", rule);
      }
    }
    const char *model = oc_target_model(&ts[i]);
    printf("%-*.*s  %-24.24s %5ld %5ld %5ld %5ld  %s\n", w, w, ts[i].name, model ? model : "-",
           c.pass, c.fail, c.error, c.skip, rules.len ? oc_buf_str(&rules) : "-");
    oc_buf_free(&rules);
  }
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

/* "5 cases from 1 suite (8 loaded)": the suites the plan takes cases
 * from, not those loaded ("5 cases from 8 suites" after --filter "plain/…"
 * read as if every suite had run). */
static void plan_line(const struct oc_run *r, const struct oc_suite_set *set)
{
  size_t used = 0;
  for(size_t s = 0; s < set->count; s++) {
    const struct oc_suite *su = &set->items[s];
    for(size_t i = 0; i < r->nitems; i++)
      if(r->items[i].kase >= su->cases && r->items[i].kase < su->cases + su->ncases) {
        used++;
        break;
      }
  }
  const struct oc_shard *sh = r->opts->shard;
  if(r->nitems == 0 && sh && sh->n > 1) {
    /* more shards than cases: an empty shard is no error */
    printf("0 cases: shard %d of %d holds none of the selected cases\n", sh->k, sh->n);
    return;
  }
  printf("%zu case%s from %zu suite%s", r->nitems, r->nitems == 1 ? "" : "s", used,
         used == 1 ? "" : "s");
  if(used != set->count)
    printf(" (%zu loaded)", set->count);
  putchar('\n');
}

/* Record mode's last word on the cassettes, beside the reports' "wrote
 * PATH (JSON report)" lines and on the same stream: how many files it left
 * in DIR, so an operator who records into a fresh directory knows what to
 * commit and one who finds fewer than the cases knows to look. */
static void say_recorded(FILE *said, const char *dir, const struct oc_target *ts, size_t n)
{
  int lost = 0;
  size_t written = oc_cassette_tally_stop(&lost);
  int several = 0;
  for(size_t i = 0; i < n; i++)
    several |= ts[i].record_dir != NULL;
  struct oc_buf shown;
  oc_buf_init(&shown, OC_CAP_MESSAGE);
  oc_esc_addn_cut(&shown, dir, 1000, OC_ESC_TEXT);
  size_t len = strlen(dir);
  fprintf(said, "wrote %s%zu cassette%s to %s%s%s\n", lost ? "at least " : "", written,
          written == 1 ? "" : "s", oc_buf_str(&shown), len && dir[len - 1] == '/' ? "" : "/",
          several ? " (a directory per target)" : "");
  oc_buf_free(&shown);
}

int oc_run_main(int argc, char **argv, const char *cmd, int record)
{
  struct run_args a;
  memset(&a, 0, sizeof(a));
  oc_run_options_init(&a.opts);
  int status = parse_args(argc, argv, &a, cmd, record);
  struct oc_schemas sch;
  struct oc_schema *suite_schema = NULL;
  struct oc_suite_set suites = { NULL, 0 };
  struct oc_target *targets = NULL;
  size_t ntargets = 0;
  struct oc_run run;
  struct progress prog;
  struct oc_results rs;
  int have_rs = 0, tallying = 0;
  cJSON *doc = NULL;
  char *cmdline = NULL;
  const char *note = NULL;
  char err[700];
  memset(&run, 0, sizeof(run));
  memset(&prog, 0, sizeof(prog));
  memset(&sch, 0, sizeof(sch));
  if(status >= 0)
    goto out;
  if((status = resolve_shard(&a, cmd)) >= 0)
    goto out;
  const char *record_dir = a.opts.record_dir;
  if(record && !record_dir) {
    status = oc_cli_usage_error(cmd, "live recording needs --out DIR");
    goto out;
  }
  if(record_dir && mkdir(record_dir, 0777) != 0 && errno != EEXIST) {
    oc_error("cannot create '%s': %s", record_dir, strerror(errno));
    status = OC_EXIT_USAGE;
    goto out;
  }
  /* identification and cases alike: every cassette this run writes */
  tallying = record_dir != NULL;
  if(tallying)
    oc_cassette_tally_start();
  a.opts.filters = a.filters.items;
  a.opts.nfilters = a.filters.n;
  a.opts.tags = a.tags.items;
  a.opts.ntags = a.tags.n;
  a.opts.allow = &a.allow;
  a.opts.strict = a.verdict.strict;
  a.opts.clients = oc_verdict_args_clients(&a.verdict);
  /* the response schemas are compiled once a case will run (--list
   * needs only the registry, for the suite schema) */
  if(oc_schemas_load_registry(&sch, err, sizeof(err))) {
    oc_error("cannot load the shipped schemas: %s", err);
    status = OC_EXIT_USAGE;
    goto out;
  }
  status = load_suites(&a, &suites, &sch, &suite_schema);
  if(status >= 0)
    goto out;
  /* a --filter or --tag that takes no case is a typo: said before any
   * target is identified, not as a green run of nothing */
  {
    struct oc_buf sel;
    oc_buf_init(&sel, OC_CAP_MESSAGE);
    int src = oc_run_check_selection(&a.opts, &suites, &sel);
    if(src == OC_ENOMEM)
      oc_error("out of memory");
    else if(src)
      oc_cli_usage_error(cmd, "%s", oc_buf_str(&sel));
    oc_buf_free(&sel);
    if(src) {
      status = OC_EXIT_USAGE;
      goto out;
    }
  }
  status = build_targets(&a, &targets, &ntargets, &note);
  if(status >= 0)
    goto out;
  if(record_dir)
    for(size_t i = 0; i < ntargets; i++)
      if(!targets[i].live) {
        status = oc_cli_usage_error(cmd, "record needs live targets (--target URL)");
        goto out;
      }
  if(a.duration_ms && !a.load) {
    status = oc_cli_usage_error(cmd, "--duration goes with --load N");
    goto out;
  }
  if(a.load) {
    size_t live = 0;
    for(size_t i = 0; i < ntargets; i++)
      live += targets[i].live;
    if(record_dir || !live) {
      status = oc_cli_usage_error(cmd, record_dir ? "--load does not record: use 'oacheck run'"
                                                  : "--load needs a live target (--target URL): "
                                                    "recordings are replayed one case at a time");
      goto out;
    }
  }
  char started[32];
  oc_now_rfc3339(started);
  /* a report on stdout ("-") has it alone: the console, the "wrote"
   * lines and the GitHub annotations go to stderr (oc_stdout_to_report) */
  int report_on_stdout = oc_streq(a.reports.json, "-") || oc_streq(a.reports.junit, "-") ||
                         oc_streq(a.reports.html, "-");
  if(!a.list && oc_cli_reports_take_stdout(cmd, &a.reports, a.ci.markdown)) {
    status = OC_EXIT_FAIL;
    goto out;
  }
  struct oc_console con;
  oc_console_init(&con, stdout);
  con.verbose = a.verbose;
  int models = oc_model_spec_is_list(a.model);
  size_t reachable = 0;
  /* several targets record into a directory each (the second would
   * overwrite the first's SUITE.CASE otherwise) */
  if(record_dir && ntargets > 1 && oc_run_record_dirs(targets, ntargets, record_dir)) {
    status = OC_EXIT_USAGE;
    goto out;
  }
  /* from here on ^C or SIGTERM stops the run and still writes the
   * finished cases, marked incomplete */
  if(!a.list)
    oc_run_catch_signals();
  if(!a.list || models) {
    if(note)
      fprintf(stdout, "oacheck %s: %s\n", PACKAGE_VERSION, note);
    char policy[600];
    oc_verdict_policy_text(a.opts.strict, a.opts.clients, policy, sizeof(policy));
    fprintf(stdout, "verdict: %s\n", policy);
    /* identification honours the run's timeouts: each request at most
     * 30 s (or --timeout), --idle-timeout without a byte, and all of one
     * target's identification --timeout */
    struct oc_identify_options io = { .timeout_ms = a.opts.timeout_ms < 30000 ? a.opts.timeout_ms : 30000,
                                      .insecure = a.opts.insecure, .cacert = a.opts.cacert,
                                      .record_dir = record_dir,
                                      .idle_timeout_ms = a.opts.idle_timeout_ms,
                                      .connect_timeout_ms = a.opts.connect_timeout_ms,
                                      .budget_ms = a.opts.timeout_ms };
    /* --model all / a,b: each target once per model, each identified on its own */
    if(models) {
      struct oc_identify_options lo = io;
      lo.models_only = 1;
      for(size_t i = 0; i < ntargets; i++)
        oc_target_identify(&targets[i], &lo);
      if((status = oc_targets_expand_models(&targets, &ntargets, a.model, record_dir, err,
                                            sizeof(err))) != OC_OK) {
        status = status == OC_EUSAGE ? oc_cli_usage_error(cmd, "%s", err)
                                     : (oc_error("%s", status == OC_ENOMEM ? "out of memory" : err),
                                        OC_EXIT_USAGE);
        goto out;
      }
      a.opts.by_target = 1;
    }
    for(size_t i = 0; i < ntargets && !oc_run_signal(); i++) {
      oc_target_identify(&targets[i], &io);
      reachable += targets[i].reachable;
      if(targets[i].reachable)
        choose_jobs(&targets[i], a.opts.jobs);
      if(!a.list) {
        print_target(&targets[i]);
        if(targets[i].reachable)
          target_lines(&targets[i]);
      }
    }
  }
  /* with the concurrency the targets' own, a shared-context failure is
   * oacheck's doing: such a case runs again alone */
  a.opts.rerun_alone = a.opts.jobs == 0;
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
  if(oc_schemas_compile(&sch, err, sizeof(err))) {
    oc_error("cannot load the shipped schemas: %s", err);
    status = OC_EXIT_USAGE;
    goto out;
  }
  plan_line(&run, &suites);
  fflush(stdout);
  prog.con = &con;
  prog.run = &run;
  run.on_result = on_result;
  run.ud = &prog;
  char spool_dir[512];
  a.opts.spool_dir = oc_spool_dir_for(a.reports.json, spool_dir, sizeof(spool_dir));
  /* a live target that does not serve a protocol (the Responses or the
   * Messages API) has that protocol's cases skipped, saying so, rather
   * than failed on their 404s: one cheap probe each, before the run */
  for(size_t i = 0; i < ntargets && !oc_run_signal(); i++) {
    long pt = a.opts.timeout_ms > 0 && a.opts.timeout_ms < 5000 ? a.opts.timeout_ms : 5000;
    oc_target_probe_before(&targets[i], pt, a.opts.insecure, a.opts.cacert);
  }
  /* stopped during identification: no case runs, the reports say so */
  if(!oc_run_signal() && oc_run_execute(&run, err, sizeof(err))) {
    oc_error("%s", err);
    status = OC_EXIT_FAIL;
    goto out;
  }
  /* which protocols each target serves: its cases said for the
   * protocols they exercised, a cheap probe (or the recordings) says for
   * the rest; never a verdict, never recorded */
  for(size_t i = 0; i < ntargets && !oc_run_signal(); i++) {
    long pt = a.opts.timeout_ms > 0 && a.opts.timeout_ms < 5000 ? a.opts.timeout_ms : 5000;
    oc_target_probe_protocols(&targets[i], pt, a.opts.insecure, a.opts.cacert);
    if(targets[i].serves.decided) {
      char line[600];
      oc_serves_text(&targets[i].serves, line, sizeof(line));
      target_say("target %s: protocols: %s", targets[i].name, line);
    }
  }
  cJSON *load = NULL;
  if(a.load && !oc_run_signal()) {
    struct oc_identify_options lio = { .timeout_ms = a.opts.connect_timeout_ms + 20000,
                                       .insecure = a.opts.insecure, .cacert = a.opts.cacert };
    struct oc_load_options lo = { a.load, a.duration_ms, &lio };
    for(size_t i = 0; i < ntargets; i++)
      if(targets[i].live && targets[i].reachable && targets[i].jobs >= a.load)
        oc_warn("target %s: --load %d is not above its %d in flight: nothing more will queue",
                targets[i].name, a.load, targets[i].jobs);
    fprintf(stdout, "\nload: the live cases again, %d in flight per target%s\n", a.load,
            a.duration_ms ? ", until the duration has passed" : "");
    fflush(stdout);
    if(oc_load_check(&run, &lo, &load)) {
      oc_error("out of memory");
      status = OC_EXIT_FAIL;
      goto out;
    }
  }
  /* The results are in the spool; the reports read them back one at a
   * time from the frame (targets, summary) and the spool. */
  cmdline = command_line(argc, argv);
  doc = cmdline ? oc_run_frame(&run, cmdline, note, started) : NULL;
  if(doc && load) {
    int lrc = oc_json_add(doc, "load", load); /* doc takes it, whatever happens */
    load = NULL;
    if(lrc) {
      cJSON_Delete(doc);
      doc = NULL;
    }
  }
  cJSON_Delete(load);
  /* a signal during the load: the frame's "after 5 of 5 cases" would
   * read as if nothing had been stopped; the load says what was */
  const char *lstop = oc_json_str(oc_json_obj(doc, "load"), "stopped_reason");
  if(doc && lstop && oc_json_bool(doc, "incomplete", 0) &&
     !oc_streq(oc_json_str(oc_json_obj(doc, "load"), "stopped"), "nothing-ran")) {
    char *why = oc_asprintf("interrupted during the load check, after all %zu cases had run alone: "
                            "the load %s; its counts are those of the cases that ran",
                            run.nitems, lstop);
    int oom = !why;
    if(why)
      oc_json_set(&oom, doc, "incomplete_reason", cJSON_CreateString(why));
    free(why);
    if(oom) {
      cJSON_Delete(doc);
      doc = NULL;
    }
  }
  if(!doc || oc_run_results_of(&run, doc, &rs)) {
    oc_error("out of memory building the results");
    status = OC_EXIT_FAIL;
    goto out;
  }
  have_rs = 1;
  struct oc_buf dsum;
  oc_buf_init(&dsum, 1u << 20);
  if(oc_json_obj(doc, "load") && oc_load_text(oc_json_obj(doc, "load"), &dsum) == OC_OK)
    fputs(oc_buf_str(&dsum), stdout);
  oc_buf_reset(&dsum);
  oc_console_summary_from(&con, doc, &rs);
  size_t unrecorded = target_tallies(&run);
  model_matrix(&rs, targets, ntargets);
  if(oc_deploy_tally_text(&run.deploy, &dsum) == OC_OK && dsum.len)
    fputs(oc_buf_str(&dsum), stdout);
  oc_buf_free(&dsum);
  if(tallying) {
    say_recorded(stdout, record_dir, targets, ntargets); /* stderr's when a report is stdout's */
    tallying = 0;
  }
  int bad_reports = oc_reports_write_from(&rs, a.reports.json, a.reports.junit, a.reports.html);
  a.ci.stdout_report = report_on_stdout;
  bad_reports += oc_ci_reports_write_from(&rs, &a.ci, stdout, real_getenv);
  if(run.lost)
    oc_error("%zu result%s could not be kept (see above): the reports lack them", run.lost,
             run.lost == 1 ? "" : "s");
  const struct oc_counts *counts = &run.summary.counts;
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
  else if(unrecorded)
    status = OC_EXIT_USAGE;
  else if(counts->fail || counts->error || bad_reports || run.lost)
    status = OC_EXIT_FAIL;
  else
    status = OC_EXIT_OK;
out:
  if(tallying)
    oc_cassette_tally_stop(NULL);
  if(have_rs)
    oc_results_free(&rs);
  cJSON_Delete(doc);
  free(cmdline);
  oc_run_free(&run);
  free(prog.said);
  oc_targets_free(targets, ntargets);
  oc_suite_set_free(&suites);
  oc_schema_free(suite_schema);
  oc_schemas_free(&sch);
  oc_strlist_free(&a.targets.targets);
  oc_strlist_free(&a.targets.replays);
  oc_strlist_free(&a.filters);
  oc_strlist_free(&a.tags);
  oc_strlist_free(&a.suites);
  oc_shard_free(&a.sh);
  return status;
}

int oc_cmd_run(int argc, char **argv)
{
  return oc_run_main(argc, argv, "run", 0);
}
