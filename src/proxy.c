/* proxy.c — the proxy engine (proxy.h): libmicrohttpd in front, one
 * connection thread per client, libcurl behind (http.h), and the target's
 * bytes handed to the client as they arrive while the same bytes are
 * decoded and judged.  One of the two files that include <microhttpd.h>
 * (server.c is the other).
 *
 * Each exchange is driven from its own connection thread: once the
 * request body is in, the upstream transfer starts on a private transfer
 * handle and is pumped until the response head arrives; the client's
 * response is then a content reader that pumps the same transfer until it
 * has bytes to give.  So a token reaches the client as soon as it reaches
 * the proxy, nothing waits on another client, and the bytes in memory per
 * exchange are at most what one pump brings in (a client that reads
 * slowly simply stops the pumping).  What the judging keeps is bounded by
 * the decoder's own caps. */
#include "config.h"
#include "proxy.h"

#include <microhttpd.h>
#include <errno.h>
#include <netdb.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cassette.h"
#include "conversation.h"
#include "expect.h"
#include "headers.h"
#include "http.h"
#include "json.h"
#include "matrix.h"
#include "request.h"
#include "result.h"
#include "secret.h"
#include "url.h"
#include "util.h"

#define CONNECTION_LIMIT 256
#define PUMP_MS 50                 /* one wait for upstream bytes */
#define CLIENT_IDLE_S 300          /* a client connection idle this long is closed */

struct oc_proxy {
  struct MHD_Daemon *daemon;
  struct oc_proxy_options opt;
  struct oc_http *keepalive;       /* holds libcurl's global state for the connection threads */
  pthread_mutex_t lock;            /* counter, results, on_result */
  size_t counter;
  cJSON *results;                  /* in the order exchanges began */
  struct oc_conversation conv;
  int port;
  atomic_int stopping;             /* connection threads stop pumping */
  atomic_int render_refused;       /* /apply-template refused the key: said once */
  char start_error[256];           /* the HTTP library's reason when start fails */
  pthread_t starter;               /* the thread that starts the daemon: the only one writing it */
};

struct exchange {
  struct oc_proxy *px;
  size_t number;
  char *uri;                       /* as the client sent it: path and query */
  char *method;
  char *path;                      /* without the query */
  struct oc_buf body;
  int too_big;
  struct oc_headers req_headers;   /* the client's, as forwarded */
  cJSON *body_json;
  char *url;
  /* upstream */
  struct oc_http *http;
  int submitted, head_seen, done;
  struct oc_http_outcome outcome;
  int status;
  struct oc_headers resp_headers;
  struct oc_buf pending;           /* upstream bytes the client has not read yet */
  size_t pending_off;
  /* judging */
  struct oc_findings findings;
  struct oc_check check;
  struct oc_ruleset allow;
  struct oc_request_info info;
  struct oc_response resp;
  int resp_started;
  struct oc_cassette rec;
  int recording;
  uint64_t t_start;
  const char *cut;                 /* why the exchange ended early, or NULL */
  int finished;
};

int oc_proxy_header_is_hop(const char *name)
{
  static const char *const hop[] = { "Connection", "Keep-Alive", "Proxy-Connection",
                                     "Proxy-Authenticate", "Proxy-Authorization", "TE", "Trailer",
                                     "Transfer-Encoding", "Upgrade", "Content-Length", "Host",
                                     "Expect",
                                     /* libcurl asks for gzip and hands bodies over decoded */
                                     "Accept-Encoding", "Content-Encoding" };
  for(size_t i = 0; i < OC_ARRAY_LEN(hop); i++)
    if(oc_strcaseeq(name, hop[i]))
      return 1;
  return 0;
}

static void exchange_free(struct exchange *x)
{
  if(!x)
    return;
  oc_http_free(x->http);
  if(x->resp_started)
    oc_response_free(&x->resp);
  oc_findings_free(&x->findings);
  oc_buf_free(&x->body);
  oc_buf_free(&x->pending);
  oc_headers_free(&x->req_headers);
  oc_headers_free(&x->resp_headers);
  cJSON_Delete(x->body_json);
  if(x->recording)
    oc_cassette_free(&x->rec);
  free(x->uri);
  free(x->method);
  free(x->path);
  free(x->url);
  free(x);
}

/* ---- judging ------------------------------------------------------------------- */

/* The request-side rules, and what only the target's own template can
 * tell: whether the tool results reach the prompt, and, for a
 * conversation long enough to matter, how many tokens it is.  These ask
 * the target (POST /apply-template, /tokenize, where it offers them, as
 * llama-server does) after the answer is through, so the client never
 * waits for them. */
static void judge_conversation(struct exchange *x)
{
  if(x->info.api != OC_API_CHAT || !cJSON_IsObject(x->body_json))
    return;
  struct oc_target *t = x->px->opt.target;
  const cJSON *nc = oc_json_get(t->vars, "N_CTX");
  long n_ctx = oc_json_is_integer(nc) ? (long)nc->valuedouble : 0;
  int renders = t->profile && strcmp(t->profile->name, "llama-server") == 0;
  int tool_results = oc_conversation_has_tool_result(x->body_json);
  /* a token covers at least a byte of the text; the template adds its own
   * markup, a few hundred tokens at most */
  int long_enough = n_ctx > 0 && (long)x->body.len + 512 >= n_ctx;
  const cJSON *messages = oc_json_arr(x->body_json, "messages");
  char *prompt = NULL;
  long tokens = -1;
  if(renders && messages && (tool_results || long_enough)) {
    struct oc_identify_options io = { .timeout_ms = x->px->opt.connect_timeout_ms +
                                                    x->px->opt.idle_timeout_ms };
    int status = 0;
    prompt = oc_target_render(t, &io, messages, oc_json_arr(x->body_json, "tools"), &status);
    /* the proxy asks with its own key (the target's variable), not the
     * client's: refused, the conversation rules go unjudged, and a
     * silent gap would read as a pass */
    if(!prompt && (status == 401 || status == 403) && !atomic_exchange(&x->px->render_refused, 1)) {
      char hint[300];
      oc_target_key_hint(t, hint, sizeof(hint));
      oc_warn("target %s answered HTTP %d to POST /apply-template: the conversation rules (the "
              "tool results in the prompt, its size) are not judged; %s", t->name, status, hint);
    }
    if(prompt && long_enough)
      tokens = oc_target_count_tokens(t, &io, prompt);
  }
  if(prompt && tool_results)
    oc_conversation_check_prompt(&x->check, x->body_json, prompt);
  oc_conversation_check_request(&x->check, x->body_json, n_ctx, tokens);
  free(prompt);
}

/* Is the request the first turn of a conversation: nothing the model said
 * (an assistant turn, a tool's result) in it yet?  Chat, Responses and
 * Messages alike. */
static int first_turn(const struct oc_request_info *info, const cJSON *body)
{
  const cJSON *list = info->api == OC_API_RESPONSES ? oc_json_get(body, "input")
                                                    : oc_json_get(body, "messages");
  if(info->api == OC_API_RESPONSES && cJSON_IsString(list))
    return 1;
  if(!cJSON_IsArray(list))
    return 0;
  const cJSON *m;
  cJSON_ArrayForEach(m, list) {
    const char *role = oc_json_str(m, "role"), *type = oc_json_str(m, "type");
    if(oc_streq(role, "assistant") || oc_streq(role, "tool") || oc_streq(type, "function_call") ||
       oc_streq(type, "function_call_output") || oc_streq(type, "reasoning"))
      return 0;
  }
  return 1;
}

/* A first turn the target refused as longer than its context: no client
 * can shorten what it has not said yet (an agent's system prompt and tool
 * definitions alone, ~7k–12k tokens for Codex and Claude Code), so this
 * client cannot work with this deployment at all — an error, said with the
 * numbers and the deployment's fix.  llama-server's
 * exceed_context_size_error carries both numbers; a slot is capped at the
 * model's trained context whatever -c says, which its log says and /props
 * does not. */
static void judge_first_turn_context(struct exchange *x)
{
  if(x->status != 400 && x->status != 413)
    return;
  if(x->info.api != OC_API_CHAT && x->info.api != OC_API_RESPONSES && x->info.api != OC_API_MESSAGES)
    return;
  if(!cJSON_IsObject(x->body_json) || !first_turn(&x->info, x->body_json))
    return;
  const cJSON *err = oc_json_obj(x->resp.parsed, "error");
  const char *type = oc_json_str(err, "type"), *msg = oc_json_str(err, "message");
  const cJSON *np = oc_json_get(err, "n_prompt_tokens"), *nc = oc_json_get(err, "n_ctx");
  if(!oc_streq(type, "exceed_context_size_error") || !oc_json_is_integer(np) || !oc_json_is_integer(nc))
    return;
  long prompt = (long)np->valuedouble, ctx = (long)nc->valuedouble;
  char exp[48], act[48];
  snprintf(exp, sizeof(exp), "under %ld tokens", ctx);
  snprintf(act, sizeof(act), "%ld tokens", prompt);
  oc_emit(&x->check, OC_R_REQUEST_CONTEXT,
          OC_AT(.path = x->info.api == OC_API_RESPONSES ? "/input" : "/messages", .expected = exp,
                .actual = act, .severity = OC_SEV_ERROR),
          "the client's first request is %ld tokens and the target's context %ld (\"%.120s\"): a "
          "first turn cannot be shortened, so this client cannot work with this deployment.  "
          "Serve at least %ld tokens per slot plus room for the answer (llama-server: -c of that "
          "times -np); a slot is also capped at the model's trained context whatever -c says "
          "(/v1/models meta.n_ctx_train; \"capping\" in the server's log), which "
          "--override-kv llama.context_length=int:N with -c N lifts (answers past the trained "
          "length may degrade)",
          prompt, ctx, msg ? msg : "", prompt);
}

/* The exchange's result: the same decoding and rules as a run's case,
 * under a case of suite "proxy" named by method, path and number. */
static void finish(struct exchange *x)
{
  if(x->finished)
    return;
  x->finished = 1;
  struct oc_proxy *px = x->px;
  cJSON *message = NULL, *timing = NULL, *response = NULL;
  int complete = x->done && x->outcome.error == OC_HTTP_OK && !x->cut;
  if(x->cut)
    x->check.partial = 1; /* the end of what arrived is not the server's end */
  if(x->resp_started) {
    oc_response_finish(&x->resp, x->outcome.t_done ? x->outcome.t_done : oc_now_ns(), complete);
    response = oc_response_json(&x->resp, &message, &timing);
  }
  judge_conversation(x);
  if(x->resp_started)
    judge_first_turn_context(x);
  if(x->body_json && x->resp_started) {
    const char *emsg = oc_json_str(oc_json_obj(x->resp.parsed, "error"), "message");
    oc_conversation_check_answer(&px->conv, &x->check, x->body_json, x->status, emsg);
    if(x->status < 400)
      oc_conversation_learn(&px->conv, message ? message : x->resp.parsed);
  }
  if(x->done && x->outcome.error != OC_HTTP_OK && x->outcome.error != OC_HTTP_ABORTED)
    oc_emit(&x->check, OC_R_HTTP_TRANSPORT,
            OC_AT(.byte = (int64_t)x->outcome.bytes, .expected = "a complete exchange",
                  .actual = oc_http_error_name(x->outcome.error)),
            "%s", x->outcome.message);
  char name[512];
  snprintf(name, sizeof(name), "%s %s #%zu", x->method, x->path, x->number);
  struct oc_case kase;
  memset(&kase, 0, sizeof(kase));
  kase.suite = "proxy";
  kase.name = name;
  kase.description = "an exchange of a real client, seen by oacheck proxy";
  struct oc_built_request rq;
  memset(&rq, 0, sizeof(rq));
  rq.method = x->method;
  rq.path = x->uri;
  rq.headers = x->req_headers;
  rq.body = x->body.len ? x->body.data : NULL;
  rq.body_len = x->body.len;
  rq.body_json = x->body_json;
  char reason[600] = "";
  enum oc_case_end end = OC_END_RAN;
  if(!x->resp_started && x->cut) {
    end = OC_END_SKIP; /* the client's leaving or the proxy's stop, before any answer */
    snprintf(reason, sizeof(reason), "%s", x->cut);
  }
  else if(!x->resp_started) {
    end = OC_END_ERROR;
    snprintf(reason, sizeof(reason), "%s: %s", oc_http_error_name(x->outcome.error),
             x->outcome.message);
  }
  else if(x->cut) {
    snprintf(reason, sizeof(reason), "%s", x->cut);
  }
  char *to_suite = NULL;
  if(x->recording && x->resp_started && px->opt.record_dir) {
    char file[300];
    snprintf(file, sizeof(file), "proxy-%04zu", x->number);
    free(x->rec.name);
    x->rec.name = oc_strdup(file);
    x->rec.status = x->status;
    oc_headers_free(&x->rec.headers);
    oc_headers_copy(&x->rec.headers, &x->resp_headers);
    x->rec.complete = complete;
    uint64_t t0 = x->outcome.t_sent;
    for(size_t i = 0; i < x->rec.npieces; i++)
      x->rec.pieces[i].t_ns = x->rec.pieces[i].t_ns > t0 ? x->rec.pieces[i].t_ns - t0 : 0;
    x->rec.timing_recorded = t0 != 0;
    char ts[32];
    oc_now_rfc3339(ts);
    x->rec.recorded_at = oc_strdup(ts);
    char *path = oc_asprintf("%s/%s%s", px->opt.record_dir, file, OC_CASSETTE_EXT);
    char err[600];
    if(!path || oc_cassette_write(path, &x->rec, err, sizeof(err)))
      oc_error("cannot record exchange %zu: %s", x->number, path ? err : "out of memory");
    else
      to_suite = oc_asprintf("oacheck record --to-suite %s", path);
    free(path);
  }
  struct oc_case_outcome o;
  memset(&o, 0, sizeof(o));
  o.target = px->opt.target;
  o.kase = &kase;
  o.end = end;
  o.reason = reason[0] ? reason : NULL;
  o.request = &rq;
  o.response = response;
  o.findings = &x->findings;
  o.message = message;
  o.timing = timing;
  o.duration_ms = x->t_start ? (double)(oc_now_ns() - x->t_start) / 1e6 : -1;
  o.source = "proxy";
  o.no_suite = 1;
  o.reproduce_oacheck = to_suite;
  /* what the seven client models make of the same exchange (docs/clients.md) */
  o.verdicts = x->resp_started && x->resp.judged ? x->resp.verdicts : NULL;
  o.agents = x->resp_started ? x->resp.agents : NULL; /* what Codex's user would see */
  o.checklist = oc_row_name(oc_row_of(NULL, NULL, 0, 0, &x->info));
  cJSON *res = oc_result_json(&o);
  free(to_suite);
  cJSON_Delete(o.response);
  cJSON_Delete(message);
  cJSON_Delete(timing);
  if(!res) {
    oc_error("exchange %zu: out of memory building its result", x->number);
    return;
  }
  int oom = 0;
  oc_json_put(&oom, res, "exchange", cJSON_CreateNumber((double)x->number));
  pthread_mutex_lock(&px->lock);
  if(oom || oc_json_add(px->results, NULL, res))
    oc_error("exchange %zu: out of memory keeping its result", x->number);
  else if(px->opt.on_result)
    px->opt.on_result(px->opt.ud, res, x->number);
  pthread_mutex_unlock(&px->lock);
}

/* ---- upstream ------------------------------------------------------------------- */

static int up_head(void *ud, const struct oc_http_head *h)
{
  struct exchange *x = ud;
  x->head_seen = 1;
  x->status = h->status;
  if(oc_headers_copy(&x->resp_headers, h->headers))
    return 1;
  oc_response_init(&x->resp, &x->info, &x->check, x->px->opt.schemas, 0, 1, 1);
  x->resp_started = 1;
  oc_response_head(&x->resp, h->status, h->headers, h->t_ns);
  return 0;
}

static int up_body(void *ud, const void *p, size_t n, uint64_t t)
{
  struct exchange *x = ud;
  /* the client's copy first: judging never holds a byte back */
  if(oc_buf_add(&x->pending, p, n))
    return 1;
  if(x->recording && oc_cassette_add_piece(&x->rec, p, n, t)) {
    oc_warn("exchange %zu: the recording was cut at the body cap", x->number);
    oc_cassette_free(&x->rec);
    x->recording = 0;
  }
  if(x->resp_started)
    oc_response_body(&x->resp, p, n, t);
  return 0;
}

static void up_done(void *ud, const struct oc_http_outcome *o)
{
  struct exchange *x = ud;
  x->outcome = *o;
  x->done = 1;
  if(x->resp_started) {
    x->resp.t_sent = o->t_sent;
    struct oc_stream_timing *tm = oc_response_stream_timing(&x->resp);
    if(tm)
      tm->t_sent = o->t_sent;
  }
  if(o->error == OC_HTTP_ABORTED && !x->cut)
    x->cut = "the exchange was cut short";
  if(o->error == OC_HTTP_TIMEOUT_TOTAL && !x->cut)
    x->cut = "oacheck's --timeout ended the exchange";
}

static int start_upstream(struct exchange *x)
{
  struct oc_proxy *px = x->px;
  x->url = oc_url_join(px->opt.target->base, x->uri); /* the base URL's query kept */
  x->http = oc_http_new(1);
  if(!x->url || !x->http)
    return OC_ENOMEM;
  /* an empty Accept-Encoding removes the one libcurl would add: the client
   * asked for none, or for what the proxy decodes anyway */
  struct oc_http_request rq;
  oc_http_request_init(&rq);
  rq.method = x->method;
  rq.url = x->url;
  rq.headers = &x->req_headers;
  rq.body = x->body.len ? x->body.data : NULL;
  rq.body_len = x->body.len;
  rq.connect_timeout_ms = px->opt.connect_timeout_ms;
  rq.idle_timeout_ms = px->opt.idle_timeout_ms;
  rq.total_timeout_ms = px->opt.total_timeout_ms;
  rq.max_retries = 0; /* the client decides about retries, not the proxy */
  rq.http1_only = 1;
  struct oc_http_callbacks cb = { up_head, up_body, NULL, up_done };
  x->t_start = oc_now_ns();
  if(oc_http_submit(x->http, &rq, &cb, x))
    return OC_ENOMEM;
  x->submitted = 1;
  if(x->recording) {
    x->rec.method = oc_strdup(x->method);
    x->rec.path = oc_strdup(x->path);
    if(x->body.len) {
      x->rec.req_body = oc_strndup(x->body.data, x->body.len);
      x->rec.req_body_len = x->body.len;
    }
    for(size_t i = 0; i < x->req_headers.count; i++)
      if(!oc_header_is_secret(x->req_headers.items[i].name))
        oc_headers_add(&x->rec.req_headers, x->req_headers.items[i].name,
                       x->req_headers.items[i].value);
    char *src = oc_asprintf("recorded by oacheck proxy in front of target '%s'",
                            px->opt.target->name);
    x->rec.source = src;
    oc_cassette_update_key(&x->rec);
  }
  return OC_OK;
}

/* ---- the client side ------------------------------------------------------------- */

static ssize_t client_read(void *cls, uint64_t pos, char *buf, size_t max)
{
  struct exchange *x = cls;
  (void)pos;
  while(x->pending_off >= x->pending.len && !x->done) {
    if(atomic_load(&x->px->stopping)) {
      x->cut = "the proxy stopped before the target finished";
      oc_http_free(x->http);
      x->http = NULL;
      break;
    }
    oc_http_step(x->http, PUMP_MS);
  }
  size_t avail = x->pending.len - x->pending_off;
  if(avail) {
    size_t n = avail < max ? avail : max;
    memcpy(buf, x->pending.data + x->pending_off, n);
    x->pending_off += n;
    if(x->pending_off == x->pending.len) {
      oc_buf_reset(&x->pending);
      x->pending_off = 0;
    }
    return (ssize_t)n;
  }
  /* judged in on_completed, once the client has all of it */
  /* a target that cut its answer is cut for the client as well */
  return x->outcome.error == OC_HTTP_OK ? MHD_CONTENT_READER_END_OF_STREAM
                                        : MHD_CONTENT_READER_END_WITH_ERROR;
}

static enum MHD_Result answer_bad_gateway(struct MHD_Connection *conn, const char *why)
{
  char *text = oc_asprintf("{\"error\":{\"message\":\"oacheck proxy: %s\",\"type\":\"server_error\","
                           "\"param\":null,\"code\":\"bad_gateway\"}}", why);
  if(!text)
    return MHD_NO;
  struct MHD_Response *resp = MHD_create_response_from_buffer(strlen(text), text,
                                                              MHD_RESPMEM_MUST_FREE);
  if(!resp) {
    free(text);
    return MHD_NO;
  }
  MHD_add_response_header(resp, "Content-Type", "application/json");
  enum MHD_Result ret = MHD_queue_response(conn, MHD_HTTP_BAD_GATEWAY, resp);
  MHD_destroy_response(resp);
  return ret;
}

static enum MHD_Result copy_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
  struct exchange *x = cls;
  (void)kind;
  /* The client's credentials (its bearer token, an API key header, the
   * proxy's own Proxy-Authorization) are secrets of the run from now on:
   * a target that quotes one back gets it masked in every result, report,
   * cassette and log line.  What goes to the client is never masked: it
   * is the target's answer, byte for byte. */
  if(key && value)
    oc_secret_add_header(key, value);
  if(!oc_proxy_header_is_hop(key) && oc_headers_add(&x->req_headers, key, value ? value : ""))
    return MHD_NO;
  return MHD_YES;
}

/* Whether the client closed its connection while the target has not
 * answered yet: nothing is read from it meanwhile, so the end of its
 * stream (or a reset) is a client that gave up (an SDK's timeout, a
 * cancel); bytes waiting (a pipelined request) are not.  A client that
 * only shuts down its sending side counts as gone: no HTTP/1.1 client
 * does that and still waits. */
static int client_gone(struct MHD_Connection *conn)
{
  const union MHD_ConnectionInfo *ci =
    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
  if(!ci)
    return 0;
  char c;
  ssize_t n = recv(ci->connect_fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

static enum MHD_Result respond(struct exchange *x, struct MHD_Connection *conn)
{
  int gone = 0;
  while(!x->head_seen && !x->done && !atomic_load(&x->px->stopping) && !(gone = client_gone(conn)))
    oc_http_step(x->http, PUMP_MS);
  if(!x->head_seen && !x->done) {
    /* cut before any answer, as going direct would cut it: the target's
     * request ends with the client's (llama-server cancels the task);
     * nothing arrived, so nothing is judged */
    x->cut = gone ? "the client disconnected before the target answered"
                  : "the proxy stopped before the target answered";
    oc_http_free(x->http);
    x->http = NULL;
    finish(x);
    return MHD_NO;
  }
  if(!x->head_seen) {
    char why[600];
    snprintf(why, sizeof(why), "the target did not answer (%s)",
             oc_http_error_name(x->outcome.error));
    finish(x);
    return answer_bad_gateway(conn, why);
  }
  /* A length the target gave for a body that arrives as it is can be
   * passed on; anything else goes chunked. */
  const char *cl = oc_headers_get(&x->resp_headers, "Content-Length");
  int encoded = oc_headers_get(&x->resp_headers, "Content-Encoding") != NULL;
  long len = -1;
  if(cl && !encoded && oc_parse_long(cl, 0, (long)OC_CAP_BODY, &len))
    len = -1;
  struct MHD_Response *resp = MHD_create_response_from_callback(
    len >= 0 ? (uint64_t)len : MHD_SIZE_UNKNOWN, 32 * 1024, client_read, x, NULL);
  if(!resp)
    return MHD_NO;
  for(size_t i = 0; i < x->resp_headers.count; i++) {
    const struct oc_header *h = &x->resp_headers.items[i];
    if(!oc_proxy_header_is_hop(h->name))
      MHD_add_response_header(resp, h->name, *h->value ? h->value : " ");
  }
  enum MHD_Result ret = MHD_queue_response(conn, (unsigned)x->status, resp);
  MHD_destroy_response(resp);
  return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
  struct oc_proxy *px = cls;
  struct exchange *x = *con_cls;
  (void)url;
  (void)version;
  if(!x)
    return MHD_NO;
  if(!x->method) {
    /* the first call: the head is in */
    x->method = oc_strdup(method);
    oc_secret_add_url(x->uri); /* a key in the query (?key=…, ?api-key=…) */
    const char *q = strchr(x->uri, '?');
    x->path = q ? oc_strndup(x->uri, (size_t)(q - x->uri)) : oc_strdup(x->uri);
    if(!x->method || !x->path ||
       MHD_get_connection_values(conn, MHD_HEADER_KIND, copy_header, x) < 0)
      return MHD_NO;
    return MHD_YES;
  }
  if(*upload_size) {
    if(!x->too_big && oc_buf_add(&x->body, upload, *upload_size))
      x->too_big = 1;
    *upload_size = 0;
    return MHD_YES;
  }
  if(x->too_big)
    return answer_bad_gateway(conn, "the request body is larger than oacheck's cap (64 MiB)");
  pthread_mutex_lock(&px->lock);
  x->number = ++px->counter;
  pthread_mutex_unlock(&px->lock);
  if(x->body.len)
    x->body_json = oc_json_parse(x->body.data, x->body.len, NULL);
  oc_request_info_init(&x->info, x->method, x->path, x->body_json);
  if(start_upstream(x)) {
    finish(x);
    return answer_bad_gateway(conn, "out of memory");
  }
  return respond(x, conn);
}

/* libmicrohttpd hands over the request line's URI (query included) here,
 * before parsing it; what this returns becomes the connection's state. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
  struct oc_proxy *px = cls;
  (void)conn;
  struct exchange *x = calloc(1, sizeof(*x));
  if(!x)
    return NULL;
  x->px = px;
  x->uri = oc_strdup(uri ? uri : "/");
  oc_buf_init(&x->body, OC_CAP_BODY);
  oc_buf_init(&x->pending, OC_CAP_BODY);
  oc_headers_init(&x->req_headers);
  oc_headers_init(&x->resp_headers);
  oc_findings_init(&x->findings);
  oc_check_init(&x->check, &x->findings, px->opt.target->profile);
  x->check.strict = px->opt.strict;
  x->check.clients = px->opt.clients;
  oc_ruleset_init(&x->allow);
  oc_ruleset_merge(&x->allow, &px->opt.target->allow);
  oc_ruleset_merge(&x->allow, px->opt.allow);
  x->check.allow = &x->allow;
  if(px->opt.record_dir) {
    oc_cassette_init(&x->rec);
    x->recording = 1;
  }
  if(!x->uri) {
    exchange_free(x);
    return NULL;
  }
  return x;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
  struct exchange *x = *con_cls;
  (void)cls;
  (void)conn;
  if(!x)
    return;
  if(x->submitted && !x->done && !x->cut) {
    /* the client went away (or the proxy is stopping) before the target
     * finished: stop the transfer; what arrived is still judged */
    x->cut = toe == MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN
               ? "the proxy stopped before the target finished"
               : "the client disconnected before the target finished";
    oc_http_free(x->http);
    x->http = NULL;
  }
  if(x->number)
    finish(x);
  exchange_free(x);
  *con_cls = NULL;
}

static void log_mhd(void *cls, const char *fmt, va_list ap)
{
  struct oc_proxy *px = cls;
  char msg[256];
  vsnprintf(msg, sizeof(msg), fmt, ap);
  size_t n = strlen(msg);
  while(n && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
    msg[--n] = '\0';
  /* the starting thread's messages are why a start failed; connection
   * threads log before MHD_start_daemon has returned and set px->daemon
   * (a race to read it), so which thread logs is what tells */
  if(pthread_equal(pthread_self(), px->starter))
    oc_strlcpy(px->start_error, msg, sizeof(px->start_error));
  oc_debug("proxy: %s", msg);
}

int oc_proxy_start(struct oc_proxy **out, const struct oc_proxy_options *o, char *err,
                   size_t errlen)
{
  *out = NULL;
  struct oc_proxy *px = calloc(1, sizeof(*px));
  if(!px) {
    snprintf(err, errlen, "out of memory");
    return OC_ENOMEM;
  }
  px->opt = *o;
  pthread_mutex_init(&px->lock, NULL);
  atomic_init(&px->stopping, 0);
  atomic_init(&px->render_refused, 0);
  oc_conversation_init(&px->conv);
  px->results = cJSON_CreateArray();
  px->keepalive = oc_http_new(1);
  int rc = OC_ENOMEM;
  struct addrinfo hints, *ai = NULL;
  if(!px->results || !px->keepalive) {
    snprintf(err, errlen, "out of memory");
    goto out;
  }
  memset(&hints, 0, sizeof(hints));
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
  char port[16];
  snprintf(port, sizeof(port), "%d", o->port);
  const char *host = o->host ? o->host : "127.0.0.1";
  int gai = getaddrinfo(host, port, &hints, &ai);
  if(gai) {
    snprintf(err, errlen, "cannot resolve host '%s': %s", host, gai_strerror(gai));
    rc = OC_EUSAGE;
    goto out;
  }
  unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                   MHD_USE_ERROR_LOG;
  if(ai->ai_family == AF_INET6)
    flags |= MHD_USE_IPv6;
  px->starter = pthread_self();
  px->daemon = MHD_start_daemon(
    flags, (uint16_t)o->port, NULL, NULL, on_request, px, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
    MHD_OPTION_URI_LOG_CALLBACK, on_uri, px, MHD_OPTION_NOTIFY_COMPLETED, on_completed, px,
    MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNECTION_LIMIT, MHD_OPTION_CONNECTION_TIMEOUT,
    (unsigned)CLIENT_IDLE_S, MHD_OPTION_EXTERNAL_LOGGER, log_mhd, px, MHD_OPTION_END);
  if(!px->daemon) {
    snprintf(err, errlen, "cannot listen on %s port %d: %s", host, o->port,
             px->start_error[0] ? px->start_error : "the HTTP library refused");
    rc = OC_EIO;
    goto out;
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(px->daemon, MHD_DAEMON_INFO_BIND_PORT);
  px->port = info ? info->port : o->port;
  *out = px;
  px = NULL;
  rc = OC_OK;
out:
  if(ai)
    freeaddrinfo(ai);
  if(px)
    cJSON_Delete(oc_proxy_stop(px));
  return rc;
}

static int cmp_exchange(const void *a, const void *b)
{
  double x = oc_json_num(*(cJSON *const *)a, "exchange", 0);
  double y = oc_json_num(*(cJSON *const *)b, "exchange", 0);
  return (x > y) - (x < y);
}

/* The results in the order their exchanges began (they end in any). */
static cJSON *sorted(cJSON *results)
{
  int n = cJSON_GetArraySize(results);
  cJSON **items = n > 0 ? calloc((size_t)n, sizeof(*items)) : NULL;
  if(!items)
    return results;
  for(int i = n - 1; i >= 0; i--)
    items[i] = cJSON_DetachItemFromArray(results, i);
  qsort(items, (size_t)n, sizeof(*items), cmp_exchange);
  int failed = 0;
  for(int i = 0; i < n; i++)
    failed |= oc_json_add(results, NULL, items[i]) != OC_OK;
  free(items);
  if(failed)
    oc_error("out of memory putting the exchanges in order: some results are lost");
  return results;
}

int oc_proxy_port(const struct oc_proxy *p)
{
  return p->port;
}

cJSON *oc_proxy_stop(struct oc_proxy *p)
{
  if(!p)
    return NULL;
  atomic_store(&p->stopping, 1);
  if(p->daemon)
    MHD_stop_daemon(p->daemon); /* waits for every connection thread */
  cJSON *results = sorted(p->results);
  oc_http_free(p->keepalive);
  oc_conversation_free(&p->conv);
  pthread_mutex_destroy(&p->lock);
  free(p);
  return results;
}
