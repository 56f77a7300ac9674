/* cmd_serve.c — `oacheck serve DIR…`: options, loading the recordings,
 * the "listening on" line that scripts read, and a clean stop on SIGINT or
 * SIGTERM.  Serving itself is server.c's. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cassette.h"
#include "cli.h"
#include "datadir.h"
#include "server.h"
#include "util.h"

static const char serve_usage[] =
  "Usage: oacheck serve DIR... [--host HOST] [--port N] [--realtime | --speed X]\n"
  "                    [--fault SPEC]... [--max-body BYTES] [--max-connections N]\n"
  "                    [--request-timeout S] [--idle-timeout S]\n"
  "Serve recorded exchanges over HTTP: a faithful copy of the recorded server,\n"
  "optionally broken on purpose, to test clients against.\n"
  "\n"
  "DIR holds cassettes (NAME" OC_CASSETTE_EXT ") or raw exchanges (index.json,\n"
  "NAME.request.json, NAME.response.http); subdirectories are not read.  Where\n"
  "several DIRs hold the same request, the first DIR given wins.\n";

static const char serve_footer[] =
  "The first line on standard output is 'listening on http://HOST:PORT'.\n"
  "\n"
  "MATCHING\n"
  "  A request with 'X-Oacheck-Case: NAME' gets the recording called NAME;\n"
  "  'X-Oacheck-Case: A,B,C' is a sequence: the Nth request carrying that value\n"
  "  gets the Nth name, the last repeating (an agent's tool call, then the text\n"
  "  that answers the tool's result);\n"
  "  otherwise the one with the same method, path, query and body (JSON bodies\n"
  "  compare in canonical form: member order and whitespace do not matter; so\n"
  "  do query arguments).  Anything else gets 404 with an OpenAI-shaped error\n"
  "  (type not_found_error, code not_recorded) naming the nearest recordings,\n"
  "  and the header 'X-Oacheck-Unmatched: not recorded', which tells\n"
  "  'oacheck run' to skip the case rather than fail it.\n"
  "\n"
  "REPLAY\n"
  "  Status, headers and body bytes are the recording's; framing headers\n"
  "  (Transfer-Encoding, Content-Length, Connection, Keep-Alive) are the HTTP\n"
  "  library's: a chunked recording is sent chunked, others with their length.\n"
  "  The body is written in the recorded pieces, or one SSE event per write when\n"
  "  the recording kept no boundaries.  The reason phrase is the library's.\n"
  "\n"
  "OVERLOAD (--overload N=DIR)\n"
  "  While more than N requests are in flight (counted from their arrival until\n"
  "  the last byte of their answer is handed over), a request is answered from\n"
  "  DIR's recording of it, when DIR has one: a stand-in for a server that\n"
  "  fails under load, e.g. DIR recorded with 'oacheck record --jobs 4' against\n"
  "  a llama-server whose slots share one context.\n"
  "\n"
  "FAULTS (--fault SPEC, or per request 'X-Oacheck-Fault: SPEC[,SPEC...]',\n"
  "whose faults replace the same faults given globally and add to the others;\n"
  "events are SSE events, and a body that is not an event stream counts as\n"
  "one event)\n"
  "%s"
  "\n"
  "Stop with SIGINT (Ctrl-C) or SIGTERM: exit status 0.\n"
  "Exit status: 0 stopped cleanly, 1 a recording could not be loaded or the\n"
  "port could not be bound, 2 usage error.\n"
  "Documentation: docs/serve.md.\n";

static int opt_fault(const struct oc_option *o, const char *arg, char *err, size_t errlen)
{
  return oc_faults_parse(o->value, arg, err, errlen);
}

static int opt_overload(const struct oc_option *o, const char *arg, char *err, size_t errlen)
{
  return oc_overload_parse(o->value, arg, err, errlen) != OC_OK;
}

static void load_error(void *ctx, const char *msg)
{
  (void)ctx;
  fprintf(stderr, "oacheck serve: %s\n", msg);
}

int oc_cmd_serve(int argc, char **argv)
{
  struct oc_server_options opt;
  struct oc_cassette_store store;
  struct oc_server *srv = NULL;
  char err[OC_CAP_MESSAGE];
  int rc = OC_EXIT_USAGE;
  oc_server_options_init(&opt);
  oc_cassette_store_init(&store);
  int realtime = 0;
  double speed = 0;
  long max_body = OC_SERVE_MAX_BODY, max_conn = OC_SERVE_MAX_CONNECTIONS;
  long req_to = OC_SERVE_REQUEST_TIMEOUT, idle_to = OC_SERVE_IDLE_TIMEOUT;
  struct oc_strlist dirs = { NULL, 0, 0 };
  struct oc_overload overload;
  oc_overload_init(&overload);
  const struct oc_option options[] = {
    OC_OPT_STRING(0, "host", &opt.host, "HOST", "address to listen on (default 127.0.0.1)"),
    OC_OPT_INT(0, "port", &opt.port, "N", 0, 65535, "port (default 8080; 0 picks a free one)"),
    OC_OPT_FLAG(0, "realtime", &realtime,
                "pace writes by the recorded arrival times (recordings\n"
                "without timing are sent at once)"),
    OC_OPT_DOUBLE(0, "speed", &speed, "X", 0, 1000000,
                  "like --realtime, X times as fast (0.5 is half speed)"),
    OC_OPT_CALLBACK(0, "fault", &opt.faults, "SPEC", opt_fault,
                    "break every response (repeatable; SPEC may be a\n"
                    "comma-separated list); see FAULTS"),
    OC_OPT_LONG(0, "max-body", &max_body, "BYTES", 1, (long)OC_CAP_BODY,
                "request bodies up to BYTES (default 8 MiB); a bigger one\n"
                "gets 413, and all bodies held at once stay under 16 times it"),
    OC_OPT_LONG(0, "max-connections", &max_conn, "N", 1, 1000000,
                "connections open at once (default 1024); one more closes\n"
                "the connection that has waited longest for its request"),
    OC_OPT_LONG(0, "request-timeout", &req_to, "S", 0, 86400,
                "seconds a connection has to send a whole request, from\n"
                "opening or its previous answer (default 10; 0: none)"),
    OC_OPT_LONG(0, "idle-timeout", &idle_to, "S", 0, 86400,
                "seconds without a byte either way before a connection is\n"
                "closed (default 60; 0: none; paced waits do not count)"),
    OC_OPT_CALLBACK(0, "overload", &overload, "N=DIR", opt_overload,
                    "while more than N requests are in flight, answer from\n"
                    "DIR's recordings (a server that fails under load)"),
    OC_OPT_VERBOSE(NULL, "log more (every request is logged by default)"),
    OC_OPT_QUIET(),
    OC_OPT_END(),
  };
  char *footer = oc_asprintf(serve_footer, oc_faults_help);
  const struct oc_cli cli = { "serve", serve_usage, footer ? footer : "", options };
  int prc = oc_cli_parse(&cli, argc, argv, &dirs);
  free(footer);
  if(prc >= 0) {
    rc = prc;
    goto out;
  }
  if(realtime && speed > 0) {
    rc = oc_cli_usage_error("serve", "--realtime and --speed do not mix");
    goto out;
  }
  opt.speed = realtime ? 1 : speed;
  opt.max_body = (size_t)max_body;
  opt.max_connections = (size_t)max_conn;
  opt.request_timeout_s = req_to ? req_to : -1; /* 0 on the command line: none */
  opt.idle_timeout_s = idle_to ? idle_to : -1;
  if(overload.above >= 0) {
    opt.overload = &overload;
    oc_info("while more than %ld requests are in flight, answering from %zu recordings in %s",
            overload.above, overload.store.count, overload.dir);
  }
  size_t ndirs = dirs.n;
  if(!ndirs) {
    char *shipped = oc_data_path("suites/recordings/llama-server");
    rc = oc_cli_usage_error("serve", "which recordings?  Give at least one DIR "
                                     "(the shipped llama-server ones: %s)",
                            shipped ? shipped : "suites/recordings/llama-server");
    free(shipped);
    goto out;
  }
  rc = OC_EXIT_FAIL;
  int lrc = oc_cassette_store_load(&store, dirs.items, ndirs, load_error, NULL);
  if(lrc == OC_ENOMEM) {
    fprintf(stderr, "oacheck serve: out of memory\n");
    goto out;
  }
  if(lrc == OC_ENOTFOUND)
    goto out; /* a directory that does not exist is a mistake, not a partial load */
  if(!store.count) {
    fprintf(stderr, "oacheck serve: no recordings in %s%s (NAME.cassette.gz files, or raw "
                    "exchanges with an index.json; subdirectories are not read)\n",
            dirs.items[0], ndirs > 1 ? " or the other directories given" : "");
    goto out;
  }
  size_t untimed = 0;
  for(size_t i = 0; i < store.count; i++)
    untimed += !store.items[i].timing_recorded;
  if(opt.speed > 0 && untimed)
    oc_info("%zu of %zu recording%s %s no recorded timing: %s sent without pacing", untimed,
            store.count, store.count == 1 ? "" : "s", untimed == 1 ? "has" : "have",
            untimed == 1 ? "it is" : "they are");
  /* SIGINT and SIGTERM are taken with sigwait below; block them first so
   * that the server's threads, which inherit the mask, never get them. */
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &sigs, NULL);
  signal(SIGPIPE, SIG_IGN);
  if(oc_server_start(&srv, &store, &opt, err, sizeof(err))) {
    fprintf(stderr, "oacheck serve: %s\n", err);
    goto out;
  }
  int v6 = strchr(opt.host, ':') != NULL;
  printf("listening on http://%s%s%s:%d\n", v6 ? "[" : "", opt.host, v6 ? "]" : "",
         oc_server_port(srv));
  if(fflush(stdout))
    oc_warn("cannot write to standard output: %s", strerror(errno));
  oc_info("serving %zu recording%s from %zu director%s", store.count, store.count == 1 ? "" : "s",
          ndirs, ndirs == 1 ? "y" : "ies");
  int sig = 0;
  while(sigwait(&sigs, &sig) != 0)
    ;
  oc_info("stopping on signal %d", sig);
  oc_server_stop(srv);
  srv = NULL;
  rc = OC_EXIT_OK;
out:
  oc_server_stop(srv);
  if(overload.above >= 0)
    oc_info("%ld request%s answered from the --overload recordings",
            (long)atomic_load(&overload.answered), atomic_load(&overload.answered) == 1 ? " was" : "s were");
  oc_overload_free(&overload);
  oc_cassette_store_free(&store);
  oc_faults_free(&opt.faults);
  oc_strlist_free(&dirs);
  return rc;
}
