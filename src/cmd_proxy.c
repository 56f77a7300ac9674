/* cmd_proxy.c — `oacheck proxy`: put oacheck between a real client (an
 * SDK, an agent, curl) and a real server, and judge every exchange the
 * client makes.  Options, identifying the target, the "listening on"
 * line, one console line per exchange, and on SIGINT/SIGTERM the summary
 * and the reports.  Forwarding and judging are proxy.c's. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "json.h"
#include "proxy.h"
#include "report.h"
#include "reports.h"
#include "report_console.h"
#include "response.h"
#include "results_json.h"
#include "target.h"
#include "url.h"
#include "util.h"
#include "verdict.h"

static const char proxy_usage[] =
  "Usage: oacheck proxy --target [NAME=]URL [--listen HOST:PORT] [OPTION]...\n"
  "Forward every request of a real client to the target and stream the answer\n"
  "back unchanged, as it arrives, while the same bytes go through every rule and\n"
  "client model; the requests themselves and the conversation across turns are\n"
  "judged too, under the same verdict policy as `oacheck run` (--clients,\n"
  "--strict).  Point the client's base URL at the proxy (e.g.\n"
  "OPENAI_BASE_URL=http://127.0.0.1:8090/v1).  Each exchange becomes a result of\n"
  "suite 'proxy'; stop with Ctrl-C (SIGINT) or SIGTERM for the summary and the\n"
  "reports.\n";

static const char proxy_footer[] =
  "The client's API key passes through to the target and appears in no report,\n"
  "log, cassette or console line.  Bodies reach the client decoded (the proxy\n"
  "asks the target for gzip and drops Content-Encoding).\n"
  "Exit status: 0 no exchange failed, 1 an exchange failed or errored, 2 usage\n"
  "error, 3 the target could not be reached.\n";

struct proxy_args {
  const char *target, *listen, *profile, *record;
  struct oc_report_args reports;
  struct oc_ruleset allow;
  struct oc_verdict_args verdict;
  long timeout_ms, idle_timeout_ms, connect_timeout_ms;
  int verbose;
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

/* "HOST:PORT", ":PORT", "PORT" or "[v6]:PORT". */
static int split_listen(const char *s, char *host, size_t hostlen, int *port)
{
  const char *colon = strrchr(s, ':');
  const char *p = colon ? colon + 1 : s;
  long v;
  if(oc_parse_long(p, 0, 65535, &v))
    return -1;
  *port = (int)v;
  size_t n = colon ? (size_t)(colon - s) : 0;
  if(n >= 2 && s[0] == '[' && s[n - 1] == ']') {
    s++;
    n -= 2;
  }
  if(n >= hostlen)
    return -1;
  if(n)
    memcpy(host, s, n);
  host[n] = '\0';
  if(!n)
    oc_strlcpy(host, "127.0.0.1", hostlen);
  return 0;
}

struct console_state {
  struct oc_console con;
};

static void on_result(void *ud, const cJSON *result, size_t number)
{
  struct console_state *cs = ud;
  oc_console_result(&cs->con, result, number, 0);
  fflush(stdout); /* someone is watching this as the client works */
}

/* The exchanges with the most error findings, worst first, at most 5. */
static void print_worst(const cJSON *doc)
{
  const cJSON *r;
  const cJSON *worst[5] = { NULL };
  int score[5] = { 0 };
  cJSON_ArrayForEach(r, oc_json_arr(doc, "results"))
  {
    int errors = 0;
    const cJSON *f;
    cJSON_ArrayForEach(f, oc_json_arr(r, "findings"))
      errors += oc_streq(oc_json_str(f, "severity"), "error");
    for(int i = 0; i < 5 && errors; i++)
      if(errors > score[i]) {
        memmove(&worst[i + 1], &worst[i], (size_t)(4 - i) * sizeof(*worst));
        memmove(&score[i + 1], &score[i], (size_t)(4 - i) * sizeof(*score));
        worst[i] = r;
        score[i] = errors;
        break;
      }
  }
  if(!worst[0])
    return;
  printf("worst exchanges:\n");
  struct oc_buf line;
  oc_buf_init(&line, OC_CAP_MESSAGE);
  for(int i = 0; i < 5 && worst[i]; i++) {
    oc_buf_reset(&line);
    const cJSON *first = oc_result_first_error(worst[i]);
    if(!oc_buf_printf(&line, "  %2d error%s  ", score[i], score[i] == 1 ? " " : "s") &&
       !oc_esc_addn_cut(&line, oc_json_str(worst[i], "case"), 200, OC_ESC_TEXT) &&
       !oc_buf_adds(&line, "  first: ") &&
       !oc_esc_addn_cut(&line, first ? oc_json_str(first, "rule") : "?", 100, OC_ESC_TEXT))
      printf("%s\n", oc_buf_str(&line));
  }
  oc_buf_free(&line);
}

int oc_cmd_proxy(int argc, char **argv)
{
  struct proxy_args a;
  memset(&a, 0, sizeof(a));
  a.listen = "127.0.0.1:8090";
  a.timeout_ms = 600000;
  a.idle_timeout_ms = 120000;
  a.connect_timeout_ms = 10000;
  const struct oc_option options[] = {
    OC_OPT_GROUP("Proxy:"),
    OC_OPT_STRING('t', "target", &a.target, "[NAME=]URL", "the server to forward to (its root)"),
    OC_OPT_STRING(0, "listen", &a.listen, "HOST:PORT",
                  "where clients connect (default 127.0.0.1:8090; port 0 picks one)"),
    OC_OPT_CALLBACK(0, "profile", &a.profile, "P", opt_profile,
                    "openai, llama-server, vllm, ollama or auto (default)"),
    OC_OPT_STRING(0, "record", &a.record, "DIR", "write every exchange as a cassette into DIR"),
    OC_OPT_SECONDS(0, "timeout", &a.timeout_ms, "total seconds per exchange (default 600)"),
    OC_OPT_SECONDS(0, "idle-timeout", &a.idle_timeout_ms,
                   "seconds without a byte from the target (default 120)"),
    OC_OPT_SECONDS(0, "connect-timeout", &a.connect_timeout_ms, "default 10"),
    OC_OPT_GROUP("Findings and reports:"),
    OC_OPT_ALLOW(&a.allow),
    OC_OPT_VERDICT(&a.verdict),
    OC_OPT_REPORTS(&a.reports),
    OC_OPT_VERBOSE(&a.verbose, "print every finding (repeat for debug and trace output)"),
    OC_OPT_QUIET(),
    OC_OPT_END(),
  };
  const struct oc_cli cli = { "proxy", proxy_usage, proxy_footer, options };
  int status = oc_cli_parse(&cli, argc, argv, NULL);
  if(status >= 0)
    return status;
  status = OC_EXIT_USAGE;
  char host[256], err[700], started[32];
  int port;
  struct oc_target target;
  int have_target = 0;
  struct oc_schemas sch;
  struct oc_proxy *px = NULL;
  cJSON *results = NULL, *doc = NULL;
  memset(&sch, 0, sizeof(sch));
  oc_now_rfc3339(started);
  if(!a.target) {
    status = oc_cli_usage_error("proxy", "which server?  Give --target URL");
    goto out;
  }
  if(oc_cli_reports_take_stdout("proxy", &a.reports, NULL)) {
    status = OC_EXIT_FAIL;
    goto out;
  }
  if(split_listen(a.listen, host, sizeof(host), &port)) {
    status = oc_cli_usage_error("proxy", "--listen wants HOST:PORT, not '%s'", a.listen);
    goto out;
  }
  if(oc_target_from_spec(&target, a.target, err, sizeof(err))) {
    status = oc_cli_usage_error("proxy", "%s", err);
    goto out;
  }
  have_target = 1;
  if(a.profile) {
    free(target.profile_name);
    target.profile_name = oc_strdup(a.profile);
    target.profile_source = strcmp(a.profile, "auto") == 0 ? "auto" : "option";
  }
  if(a.record && mkdir(a.record, 0777) != 0 && errno != EEXIST) {
    oc_error("cannot create '%s': %s", a.record, strerror(errno));
    goto out;
  }
  if(oc_schemas_load(&sch, err, sizeof(err))) {
    oc_error("cannot load the shipped schemas: %s", err);
    goto out;
  }
  /* Until the proxy listens, SIGINT and SIGTERM end it as they end any
   * command, even where it was started with them ignored (a script's
   * background job inherits SIGINT ignored): identifying a slow target
   * takes minutes, and a stop sent meanwhile must not be lost.  Once it
   * listens they are taken with sigwait below. */
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  struct oc_identify_options io = { .timeout_ms = a.connect_timeout_ms + a.idle_timeout_ms };
  oc_target_identify(&target, &io);
  if(!target.reachable) {
    oc_error("target %s unreachable: %s", target.name, target.error ? target.error : "");
    status = OC_EXIT_UNREACHABLE;
    goto out;
  }
  /* SIGINT and SIGTERM are taken with sigwait below; blocked first so that
   * the connection threads, which inherit the mask, never get them */
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &sigs, NULL);
  signal(SIGPIPE, SIG_IGN);
  struct console_state cs;
  oc_console_init(&cs.con, stdout);
  cs.con.verbose = a.verbose;
  struct oc_proxy_options po;
  memset(&po, 0, sizeof(po));
  po.host = host;
  po.port = port;
  po.target = &target;
  po.schemas = &sch;
  po.allow = &a.allow;
  po.record_dir = a.record;
  po.connect_timeout_ms = a.connect_timeout_ms;
  po.idle_timeout_ms = a.idle_timeout_ms;
  po.total_timeout_ms = a.timeout_ms;
  po.strict = a.verdict.strict;
  po.clients = oc_verdict_args_clients(&a.verdict);
  po.on_result = on_result;
  po.ud = &cs;
  if(oc_proxy_start(&px, &po, err, sizeof(err))) {
    oc_error("%s", err);
    status = OC_EXIT_FAIL;
    goto out;
  }
  char red[512];
  oc_url_redact(target.url, red, sizeof(red));
  int v6 = strchr(host, ':') != NULL;
  printf("listening on http://%s%s%s:%d (proxy to %s, profile %s)\n", v6 ? "[" : "", host,
         v6 ? "]" : "", oc_proxy_port(px), red, target.profile ? target.profile->name : "openai");
  char policy[600];
  oc_verdict_policy_text(po.strict, po.clients, policy, sizeof(policy));
  printf("verdict: %s\n", policy);
  if(fflush(stdout))
    oc_warn("cannot write to standard output: %s", strerror(errno));
  int sig = 0;
  while(sigwait(&sigs, &sig) != 0)
    ;
  oc_info("stopping on signal %d", sig);
  results = oc_proxy_stop(px);
  px = NULL;
  char note[600];
  snprintf(note, sizeof(note), "proxy traffic: the exchanges of a real client with %s", red);
  doc = oc_results_doc_new("proxy", started, note, "oacheck proxy");
  if(!doc || !results) {
    oc_error("out of memory building the results");
    status = OC_EXIT_FAIL;
    goto out;
  }
  int oom = 0;
  oc_json_put(&oom, oc_json_arr(doc, "targets"), NULL, oc_target_json(&target));
  oc_json_put(&oom, oc_json_obj(doc, "oacheck"), "policy", oc_verdict_policy_json(po.strict, po.clients));
  oc_json_set(&oom, doc, "results", results);
  results = NULL;
  if(oom || oc_results_summarize(doc)) {
    oc_error("out of memory building the results");
    status = OC_EXIT_FAIL;
    goto out;
  }
  oc_console_summary(&cs.con, doc);
  print_worst(doc);
  int bad = oc_reports_write(doc, a.reports.json, a.reports.junit, a.reports.html);
  struct oc_counts counts;
  oc_results_count(doc, NULL, NULL, &counts);
  status = (counts.fail || counts.error || bad) ? OC_EXIT_FAIL : OC_EXIT_OK;
out:
  cJSON_Delete(oc_proxy_stop(px));
  cJSON_Delete(results);
  cJSON_Delete(doc);
  oc_schemas_free(&sch);
  if(have_target)
    oc_target_free(&target);
  return status;
}
