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

static void print_help(void)
{
  printf("Usage: oacheck serve DIR... [--host HOST] [--port N] [--realtime | --speed X]\n"
         "                    [--fault SPEC]... [--max-body BYTES] [--max-connections N]\n"
         "                    [--request-timeout S] [--idle-timeout S]\n"
         "Serve recorded exchanges over HTTP: a faithful copy of the recorded server,\n"
         "optionally broken on purpose, to test clients against.\n"
         "\n"
         "DIR holds cassettes (NAME" OC_CASSETTE_EXT ") or raw exchanges (index.json,\n"
         "NAME.request.json, NAME.response.http); subdirectories are not read.  Where\n"
         "several DIRs hold the same request, the first DIR given wins.\n"
         "\n"
         "  --host HOST      address to listen on (default 127.0.0.1)\n"
         "  --port N         port (default 8080; 0 picks a free one)\n"
         "  --realtime       pace writes by the recorded arrival times (recordings\n"
         "                   without timing are sent at once)\n"
         "  --speed X        like --realtime, X times as fast (0.5 is half speed)\n"
         "  --fault SPEC     break every response (repeatable; SPEC may be a\n"
         "                   comma-separated list); see FAULTS\n"
         "  --max-body BYTES request bodies up to BYTES (default %u); a bigger one\n"
         "                   gets 413, and all bodies held at once stay under 16 times it\n"
         "  --max-connections N  connections open at once (default %u); one more\n"
         "                   closes the connection that has waited longest for its request\n"
         "  --request-timeout S  seconds a connection has to send a whole request,\n"
         "                   from opening or from its previous answer (default %u; 0: none)\n"
         "  --idle-timeout S seconds without a byte either way before a connection is\n"
         "                   closed (default %u; 0: none; paced waits do not count)\n"
         "  -v, -q           log more (every request is logged by default) or less\n"
         "  -h, --help       show this help\n"
         "\n"
         "The first line on standard output is 'listening on http://HOST:PORT'.\n"
         "\n"
         "MATCHING\n"
         "  A request with 'X-Oacheck-Case: NAME' gets the recording called NAME;\n"
         "  otherwise the one with the same method, path and body (JSON bodies compare\n"
         "  in canonical form: member order and whitespace do not matter; the query\n"
         "  string is ignored).  Anything else gets 404 with an OpenAI-shaped error\n"
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
         "FAULTS (--fault SPEC, or per request 'X-Oacheck-Fault: SPEC[,SPEC...]',\n"
         "which overrides the global ones; events are SSE events, and a body that is\n"
         "not an event stream counts as one event)\n"
         "%s"
         "\n"
         "Stop with SIGINT (Ctrl-C) or SIGTERM: exit status 0.\n"
         "Exit status: 0 stopped cleanly, 1 a recording could not be loaded or the\n"
         "port could not be bound, 2 usage error.\n"
         "Documentation: docs/serve.md.\n",
         OC_SERVE_MAX_BODY, OC_SERVE_MAX_CONNECTIONS, OC_SERVE_REQUEST_TIMEOUT,
         OC_SERVE_IDLE_TIMEOUT, oc_faults_help);
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
  const char **dirs = NULL;
  size_t ndirs = 0;
  char err[OC_CAP_MESSAGE];
  int rc = OC_EXIT_USAGE;
  oc_server_options_init(&opt);
  oc_cassette_store_init(&store);
  dirs = calloc((size_t)argc + 1, sizeof(*dirs));
  if(!dirs) {
    fprintf(stderr, "oacheck serve: out of memory\n");
    rc = OC_EXIT_FAIL;
    goto out;
  }
  for(int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *next = i + 1 < argc ? argv[i + 1] : NULL;
    if(strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      print_help();
      rc = OC_EXIT_OK;
      goto out;
    }
    else if(strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0)
      oc_cli_verbose();
    else if(strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0)
      oc_cli_quiet();
    else if(strcmp(a, "--realtime") == 0) {
      if(opt.speed > 0 && opt.speed != 1) {
        rc = oc_cli_usage_error("serve", "--realtime and --speed do not mix");
        goto out;
      }
      opt.speed = 1;
    }
    else if(strcmp(a, "--max-body") == 0 || strcmp(a, "--max-connections") == 0 ||
            strcmp(a, "--request-timeout") == 0 || strcmp(a, "--idle-timeout") == 0) {
      long v, min = a[2] == 'm' ? 1 : 0;
      long max = strcmp(a, "--max-body") == 0 ? (long)OC_CAP_BODY
                 : a[2] == 'm'               ? 1000000L
                                             : 86400L;
      if(!next || oc_parse_long(next, min, max, &v)) {
        rc = oc_cli_usage_error("serve", "%s wants a whole number from %ld to %ld, got '%s'", a,
                                min, max, next ? next : "");
        goto out;
      }
      i++;
      if(strcmp(a, "--max-body") == 0)
        opt.max_body = (size_t)v;
      else if(a[2] == 'm')
        opt.max_connections = (size_t)v;
      else if(a[2] == 'r')
        opt.request_timeout_s = v ? v : -1; /* 0 on the command line: none */
      else
        opt.idle_timeout_s = v ? v : -1;
    }
    else if(strcmp(a, "--host") == 0 || strcmp(a, "--port") == 0 || strcmp(a, "--speed") == 0 ||
            strcmp(a, "--fault") == 0) {
      if(!next) {
        rc = oc_cli_usage_error("serve", "option '%s' needs a value", a);
        goto out;
      }
      i++;
      if(a[2] == 'h')
        opt.host = next;
      else if(a[2] == 'p') {
        long port;
        if(oc_parse_long(next, 0, 65535, &port)) {
          rc = oc_cli_usage_error("serve", "--port wants a number from 0 to 65535, got '%s'",
                                  next);
          goto out;
        }
        opt.port = (int)port;
      }
      else if(a[2] == 's') {
        double speed;
        if(opt.speed == 1) {
          rc = oc_cli_usage_error("serve", "--realtime and --speed do not mix");
          goto out;
        }
        if(oc_parse_double(next, &speed) || !(speed > 0) || speed > 1e6) {
          rc = oc_cli_usage_error("serve", "--speed wants a number above 0, got '%s'", next);
          goto out;
        }
        opt.speed = speed;
      }
      else if(oc_faults_parse(&opt.faults, next, err, sizeof(err))) {
        rc = oc_cli_usage_error("serve", "%s", err);
        goto out;
      }
    }
    else if(a[0] == '-' && a[1]) {
      rc = oc_cli_usage_error("serve", "unknown option '%s'", a);
      goto out;
    }
    else
      dirs[ndirs++] = a;
  }
  if(!ndirs) {
    char *shipped = oc_data_path("suites/recordings/llama-server");
    rc = oc_cli_usage_error("serve", "which recordings?  Give at least one DIR "
                                     "(the shipped llama-server ones: %s)",
                            shipped ? shipped : "suites/recordings/llama-server");
    free(shipped);
    goto out;
  }
  rc = OC_EXIT_FAIL;
  int lrc = oc_cassette_store_load(&store, dirs, ndirs, load_error, NULL);
  if(lrc == OC_ENOMEM) {
    fprintf(stderr, "oacheck serve: out of memory\n");
    goto out;
  }
  if(lrc == OC_ENOTFOUND)
    goto out; /* a directory that does not exist is a mistake, not a partial load */
  if(!store.count) {
    fprintf(stderr, "oacheck serve: no recordings found in the given directories\n");
    goto out;
  }
  size_t untimed = 0;
  for(size_t i = 0; i < store.count; i++)
    untimed += !store.items[i].timing_recorded;
  if(opt.speed > 0 && untimed)
    oc_info("%zu of %zu recordings have no recorded timing: they are sent without pacing",
            untimed, store.count);
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
  oc_info("serving %zu recordings from %zu director%s", store.count, ndirs,
          ndirs == 1 ? "y" : "ies");
  int sig = 0;
  while(sigwait(&sigs, &sig) != 0)
    ;
  oc_info("stopping on signal %d", sig);
  oc_server_stop(srv);
  srv = NULL;
  rc = OC_EXIT_OK;
out:
  oc_server_stop(srv);
  oc_cassette_store_free(&store);
  oc_faults_free(&opt.faults);
  free(dirs);
  return rc;
}
