/* hostile-server.c — a small raw-socket HTTP server that misbehaves on
 * request: one mode per fault a broken or hostile OpenAI-compatible server
 * commits, chosen per request by the X-Hostile header (so one `oacheck run`
 * drives the whole matrix and the other cases of the run show they were
 * unaffected).  It answers /v1/models normally so identification works;
 * judging what oacheck makes of the answers is the tests' job
 * (tests/e2e/hostile.sh, secrets-echo.sh).
 *
 *   hostile-server [--log FILE] [--default MODE]
 *
 * prints "listening on http://127.0.0.1:PORT" and "other on
 * http://127.0.0.1:PORT2" (a second listener: "another host" for the
 * redirect modes; nothing should ever arrive there), then serves until
 * SIGTERM.  Each connection is served by a forked child, so a mode that
 * never answers holds only its own connection.  With --log, every request
 * is logged as "LISTENER METHOD TARGET auth=yes|no mode=MODE".  --default
 * gives requests without X-Hostile (identification's among them) a mode:
 * not-found (a 404 text/plain for every path, as a server or proxy with
 * nothing there answers), html-page (a web application's page for
 * every path) and escape-type (a 404 whose Content-Type holds terminal
 * control sequences) make a target that is not an OpenAI server's root;
 * models-only (its model list, and that 404 for every other path) is a
 * server without llama-server's own endpoints (/apply-template, …), as
 * OpenAI's and vLLM's are; chat-only answers chat completions (a 400 for
 * a body without messages) and /v1/models, and 404 every other path: a
 * server of one protocol, for the protocol probe (tests/e2e/protocols.sh). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#define HEAD_CAP (64 * 1024)
#define BODY_CAP (16 * 1024 * 1024)

static int port_main, port_other;
static const char *log_path;
static const char *default_mode = "";

struct req {
  char method[16];
  char target[4096];
  char mode[64];
  char key[1024];      /* the bearer token, echoed by the echo-* modes */
  long size_mib;       /* X-Hostile-Size */
  int stream;          /* "stream":true in the body */
  int has_messages;    /* "messages" in the body */
  int other;           /* arrived on the second listener */
};

/* ---- output helpers --------------------------------------------------- */

static int out_fd;

static void put(const void *p, size_t n)
{
  const char *c = p;
  while(n) {
    ssize_t w = write(out_fd, c, n);
    if(w < 0 && errno == EINTR)
      continue;
    if(w <= 0)
      _exit(0); /* the client went away: nothing left to do */
    c += w;
    n -= (size_t)w;
  }
}

static void puts_(const char *s)
{
  put(s, strlen(s));
}

static void putf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void putf(const char *fmt, ...)
{
  char buf[8192];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if(n > 0)
    put(buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static void msleep(long ms)
{
  struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
  while(nanosleep(&ts, &ts) && errno == EINTR) {
  }
}

/* Close with a TCP reset instead of a FIN. */
static void reset_now(void)
{
  struct linger l = { 1, 0 };
  setsockopt(out_fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
  close(out_fd);
  _exit(0);
}

/* ---- bodies ----------------------------------------------------------- */

#define CHUNK_HEAD "{\"id\":\"chatcmpl-h\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"hostile\","

/* A correct three-event stream saying text, then [DONE]. */
static size_t good_stream(char *out, size_t cap, const char *text, const char *eol)
{
  return (size_t)snprintf(out, cap,
    "data: " CHUNK_HEAD "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}%s%s"
    "data: " CHUNK_HEAD "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%s\"},\"finish_reason\":null}]}%s%s"
    "data: " CHUNK_HEAD "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}%s%s"
    "data: [DONE]%s%s",
    eol, eol, text, eol, eol, eol, eol, eol, eol);
}

static size_t good_json(char *out, size_t cap, const char *text)
{
  return (size_t)snprintf(out, cap,
    "{\"id\":\"chatcmpl-h\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"hostile\","
    "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"%s\",\"refusal\":null},"
    "\"logprobs\":null,\"finish_reason\":\"stop\"}],"
    "\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}", text);
}

static void head(int status, const char *reason, const char *ctype, long len, const char *extra)
{
  putf("HTTP/1.1 %d %s\r\nServer: hostile\r\nConnection: close\r\n", status, reason);
  if(ctype)
    putf("Content-Type: %s\r\n", ctype);
  if(len >= 0)
    putf("Content-Length: %ld\r\n", len);
  if(extra)
    puts_(extra);
  puts_("\r\n");
}

/* The normal answer to r: a stream or a completion. */
static void answer_ok(const struct req *r, const char *text, const char *extra)
{
  static char body[65536];
  size_t n = r->stream ? good_stream(body, sizeof(body), text, "\n")
                       : good_json(body, sizeof(body), text);
  head(200, "OK", r->stream ? "text/event-stream" : "application/json", (long)n, extra);
  put(body, n);
}

static void answer_models(void)
{
  const char *b = "{\"object\":\"list\",\"data\":[{\"id\":\"hostile\",\"object\":\"model\",\"created\":1,\"owned_by\":\"hostile\"}]}";
  head(200, "OK", "application/json", (long)strlen(b), NULL);
  puts_(b);
}

static size_t gzip_buf(const void *in, size_t n, unsigned char *out, size_t cap)
{
  z_stream z;
  memset(&z, 0, sizeof(z));
  if(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return 0;
  z.next_in = (unsigned char *)(uintptr_t)in;
  z.avail_in = (uInt)n;
  z.next_out = out;
  z.avail_out = (uInt)cap;
  int rc = deflate(&z, Z_FINISH);
  size_t len = cap - z.avail_out;
  deflateEnd(&z);
  return rc == Z_STREAM_END ? len : 0;
}

static void chunk(const void *p, size_t n)
{
  putf("%zx\r\n", n);
  put(p, n);
  puts_("\r\n");
}

/* An SSE stream of nchoices choices whose content deltas (or tool-call
 * argument fragments when ncalls > 0) add up to about total bytes. */
static void big_stream(int nchoices, int ncalls, size_t total)
{
  head(200, "OK", "text/event-stream", -1, NULL);
  static char pad[1 << 20];
  memset(pad, 'a', sizeof(pad));
  size_t piece = 256 * 1024;
  pad[piece] = '\0';
  for(int c = 0; c < nchoices; c++)
    putf("data: " CHUNK_HEAD "\"choices\":[{\"index\":%d,\"delta\":{\"role\":\"assistant\"},\"finish_reason\":null}]}\n\n", c);
  for(int c = 0; c < nchoices && ncalls; c++)
    for(int k = 0; k < ncalls; k++)
      putf("data: " CHUNK_HEAD "\"choices\":[{\"index\":%d,\"delta\":{\"tool_calls\":[{\"index\":%d,\"id\":\"call_%d_%d\","
           "\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n",
           c, k, c, k);
  size_t sent = 0;
  unsigned long i = 0;
  while(sent < total) {
    int c = (int)(i % (unsigned long)nchoices);
    int k = ncalls ? (int)((i / (unsigned long)nchoices) % (unsigned long)ncalls) : 0;
    if(ncalls)
      putf("data: " CHUNK_HEAD "\"choices\":[{\"index\":%d,\"delta\":{\"tool_calls\":[{\"index\":%d,\"function\":{\"arguments\":\"",
           c, k);
    else
      putf("data: " CHUNK_HEAD "\"choices\":[{\"index\":%d,\"delta\":{\"content\":\"", c);
    put(pad, piece);
    puts_(ncalls ? "\"}}]},\"finish_reason\":null}]}\n\n" : "\"},\"finish_reason\":null}]}\n\n");
    sent += piece;
    i++;
  }
  for(int c = 0; c < nchoices; c++)
    putf("data: " CHUNK_HEAD "\"choices\":[{\"index\":%d,\"delta\":{},\"finish_reason\":\"%s\"}]}\n\n", c,
         ncalls ? "tool_calls" : "stop");
  puts_("data: [DONE]\n\n");
}

/* ---- typed-event streams: the Responses and Messages APIs ---------------- */

/* One typed event: its event: line and its data, which names the type. */
static void typed(const char *type, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void typed(const char *type, const char *fmt, ...)
{
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  putf("event: %s\ndata: {\"type\":\"%s\"%s%.*s}\n\n", type, type, n > 0 ? "," : "",
       n > 0 ? n : 0, buf);
}

#define RESP_OBJ(status) "\"response\":{\"id\":\"resp_h\",\"object\":\"response\",\"created_at\":1,\"model\":\"hostile\",\"status\":\"" status "\",\"output\":[]}"

static void responses_start(void)
{
  head(200, "OK", "text/event-stream", -1, NULL);
  typed("response.created", "\"sequence_number\":0," RESP_OBJ("in_progress"));
}

/* A message item with its text part, opened at output_index oi. */
static void responses_open_text(long seq, long oi)
{
  typed("response.output_item.added", "\"sequence_number\":%ld,\"output_index\":%ld,\"item\":{\"id\":\"msg_h\","
        "\"type\":\"message\",\"status\":\"in_progress\",\"role\":\"assistant\",\"content\":[]}", seq, oi);
  typed("response.content_part.added", "\"sequence_number\":%ld,\"item_id\":\"msg_h\",\"output_index\":%ld,"
        "\"content_index\":0,\"part\":{\"type\":\"output_text\",\"text\":\"\",\"annotations\":[]}", seq + 1, oi);
}

static void serve_typed(const struct req *r, const char *m)
{
  static char pad[1 << 20];
  memset(pad, 'a', sizeof(pad));
  size_t total = (size_t)(r->size_mib > 0 ? r->size_mib : 1) << 20;
  if(!strcmp(m, "responses-endless")) {
    /* deltas, never a terminal event: oacheck's --timeout ends it */
    responses_start();
    responses_open_text(1, 0);
    for(long i = 3;; i++) {
      typed("response.output_text.delta", "\"sequence_number\":%ld,\"item_id\":\"msg_h\",\"output_index\":0,"
            "\"content_index\":0,\"delta\":\"tick \"", i);
      msleep(2);
    }
  }
  else if(!strcmp(m, "responses-many-items")) {
    /* output_item.added after output_item.added, never closed */
    responses_start();
    size_t sent = 0;
    long i = 0;
    for(; sent < total; i++) {
      typed("response.output_item.added", "\"sequence_number\":%ld,\"output_index\":%ld,\"item\":{\"id\":\"msg_%ld\","
            "\"type\":\"message\",\"status\":\"in_progress\",\"role\":\"assistant\",\"content\":[]}", i + 1, i, i);
      sent += 200;
    }
    typed("response.completed", "\"sequence_number\":%ld," RESP_OBJ("completed"), i + 1);
  }
  else if(!strcmp(m, "responses-huge-delta")) {
    responses_start();
    responses_open_text(1, 0);
    putf("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":3,"
         "\"item_id\":\"msg_h\",\"output_index\":0,\"content_index\":0,\"delta\":\"");
    for(size_t sent = 0; sent < total; sent += sizeof(pad))
      put(pad, sizeof(pad));
    puts_("\"}\n\n");
    typed("response.completed", "\"sequence_number\":4," RESP_OBJ("completed"));
  }
  else if(!strcmp(m, "responses-wild-numbers")) {
    /* sequence numbers at 2^63 (equal as doubles), an output_index
     * pointing anywhere */
    responses_start();
    typed("response.output_item.added", "\"sequence_number\":9223372036854775808,\"output_index\":4294967296,"
          "\"item\":{\"id\":\"msg_h\",\"type\":\"message\",\"status\":\"in_progress\",\"role\":\"assistant\",\"content\":[]}");
    typed("response.output_text.delta", "\"sequence_number\":9223372036854775809,\"item_id\":\"msg_h\","
          "\"output_index\":-1,\"content_index\":0,\"delta\":\"hi\"");
    typed("response.completed", "\"sequence_number\":9223372036854775810," RESP_OBJ("completed"));
  }
  else if(!strcmp(m, "messages-never-closed") || !strcmp(m, "messages-wild-index") ||
          !strcmp(m, "messages-many-blocks") || !strcmp(m, "messages-huge-json")) {
    head(200, "OK", "text/event-stream", -1, NULL);
    typed("message_start", "\"message\":{\"id\":\"msg_h\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"hostile\","
          "\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":0}}");
    if(!strcmp(m, "messages-many-blocks")) {
      /* block after block, each started and stopped */
      size_t sent = 0;
      for(long i = 0; sent < total; i++) {
        typed("content_block_start", "\"index\":%ld,\"content_block\":{\"type\":\"text\",\"text\":\"\"}", i);
        typed("content_block_stop", "\"index\":%ld", i);
        sent += 150;
      }
    }
    else if(!strcmp(m, "messages-huge-json")) {
      typed("content_block_start", "\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_h\","
            "\"name\":\"f\",\"input\":{}}");
      putf("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
           "{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\":\\\"");
      for(size_t sent = 0; sent < total; sent += sizeof(pad))
        put(pad, sizeof(pad));
      puts_("\\\"}\"}}\n\n");
      typed("content_block_stop", "\"index\":0");
    }
    else {
      long index = !strcmp(m, "messages-wild-index") ? 2147483648L : 0;
      typed("content_block_start", "\"index\":%ld,\"content_block\":{\"type\":\"text\",\"text\":\"\"}", index);
      typed("content_block_delta", "\"index\":%ld,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}", index);
      /* messages-never-closed: no content_block_stop */
    }
    typed("message_delta", "\"delta\":{\"stop_reason\":\"%s\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":1}",
          !strcmp(m, "messages-huge-json") ? "tool_use" : "end_turn");
    typed("message_stop", "%s", "");
  }
}

/* ---- the modes ---------------------------------------------------------- */

static void serve_mode(const struct req *r)
{
  static char body[65536];
  const char *m = r->mode;
  char extra[8400];
  if(r->other) {
    /* the second listener: whatever arrives here followed a redirect */
    const char *b = "{\"error\":{\"message\":\"you followed a redirect\",\"type\":\"x\"}}";
    head(500, "Followed", "application/json", (long)strlen(b), NULL);
    puts_(b);
    return;
  }
  if(!*m && strstr(r->target, "/v1/models")) {
    answer_models();
    return;
  }
  if(!*m || !strcmp(m, "ok")) {
    answer_ok(r, "hello", NULL);
  }
  else if(!strcmp(m, "echo-401")) {
    int n = snprintf(body, sizeof(body),
                     "{\"error\":{\"message\":\"Incorrect API key provided: %s. You can find your API key at "
                     "https://example.invalid/keys?key=%s\",\"type\":\"invalid_request_error\",\"param\":null,"
                     "\"code\":\"invalid_api_key\"}}", r->key, r->key);
    head(401, "Unauthorized", "application/json", n, NULL);
    put(body, (size_t)n);
  }
  else if(!strcmp(m, "echo-header")) {
    snprintf(extra, sizeof(extra), "X-Debug-Auth: Bearer %s\r\nX-Seen-Key: %s\r\n", r->key, r->key);
    answer_ok(r, "hello", extra);
  }
  else if(!strcmp(m, "echo-stream")) {
    char text[1200];
    snprintf(text, sizeof(text), "your key is %s", r->key);
    struct req s = *r;
    s.stream = 1;
    answer_ok(&s, text, NULL);
  }
  else if(!strcmp(m, "echo-url")) {
    int n = snprintf(body, sizeof(body), "{\"error\":{\"message\":\"moved to http://127.0.0.1:%d/login?api_key=%s\","
                     "\"type\":\"moved\",\"param\":null,\"code\":null}}", port_other, r->key);
    snprintf(extra, sizeof(extra), "Location: http://127.0.0.1:%d/login?api_key=%s\r\n", port_other, r->key);
    head(302, "Found", "application/json", n, extra);
    put(body, (size_t)n);
  }
  else if(!strcmp(m, "models-only") && strstr(r->target, "/v1/models")) {
    answer_models();
  }
  else if(!strcmp(m, "chat-only")) {
    /* a server of chat completions alone (no /v1/responses, no
     * /v1/messages): a good answer to a chat request, an error for a body
     * without messages (the protocol probe's), a 404 everywhere else */
    if(strstr(r->target, "/v1/models"))
      answer_models();
    else if(!strstr(r->target, "/chat/completions")) {
      const char *b = "404 page not found\n";
      head(404, "Not Found", "text/plain; charset=utf-8", (long)strlen(b), NULL);
      puts_(b);
    }
    else if(!r->has_messages) {
      const char *b = "{\"error\":{\"message\":\"'messages' is required\",\"type\":"
                      "\"invalid_request_error\",\"param\":\"messages\",\"code\":null}}";
      head(400, "Bad Request", "application/json", (long)strlen(b), NULL);
      puts_(b);
    }
    else
      answer_ok(r, "hello", NULL);
  }
  else if(!strcmp(m, "not-found") || !strcmp(m, "models-only")) {
    /* a server (or a reverse proxy) with nothing at the path asked: Go's
     * net/http and many proxies answer every unknown path like this */
    const char *b = "404 page not found\n";
    head(404, "Not Found", "text/plain; charset=utf-8", (long)strlen(b), NULL);
    puts_(b);
  }
  else if(!strcmp(m, "escape-type")) {
    /* a 404 whose Content-Type holds terminal control sequences (clear
     * the screen, set the window title): what oacheck says of it must
     * show them escaped */
    const char *b = "nothing here\n";
    head(404, "Not Found", "text/\033[2J\033]0;owned\007plain", (long)strlen(b), NULL);
    puts_(b);
  }
  else if(!strcmp(m, "html-page")) {
    /* a web application's catch-all route: every path is its page */
    const char *b = "<!doctype html><html><head><title>Chat</title></head><body></body></html>\n";
    head(200, "OK", "text/html; charset=utf-8", (long)strlen(b), NULL);
    puts_(b);
  }
  else if(!strcmp(m, "garbage-status")) {
    puts_("HTTP/1.1 2OO Okay-ish\r\nContent-Length: 2\r\n\r\n{}");
  }
  else if(!strcmp(m, "http10")) {
    size_t n = good_stream(body, sizeof(body), "hello", "\n");
    puts_("HTTP/1.0 200 OK\r\nServer: hostile\r\nContent-Type: text/event-stream\r\n\r\n");
    put(body, n);
  }
  else if(!strcmp(m, "chunk-overflow")) {
    puts_("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
    puts_("10\r\ndata: {\"a\":1}\n\n\r\n");
    puts_("FFFFFFFFFFFFFFFFFFFFFFFF\r\n");
    puts_("data: [DONE]\n\n\r\n0\r\n\r\n");
  }
  else if(!strcmp(m, "huge-headers")) {
    puts_("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n");
    char line[1100];
    memset(line, 'a', sizeof(line));
    for(int i = 0; i < 1000; i++) {
      putf("X-Pad-%d: ", i);
      put(line, 1000);
      puts_("\r\n");
    }
    puts_("Content-Length: 2\r\n\r\n{}");
  }
  else if(!strcmp(m, "interim")) {
    puts_("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>; rel=preload\r\n\r\n");
    answer_ok(r, "hello", NULL);
  }
  else if(!strcmp(m, "latin1")) {
    /* a completion whose content is Latin-1, not UTF-8 (RFC 8259 8.1):
     * "caf\xE9" parses, and openai-python's json.loads raises on it */
    size_t n = good_json(body, sizeof(body), "caf\xE9");
    head(200, "OK", "application/json", (long)n, NULL);
    put(body, n);
  }
  else if(!strcmp(m, "cl-more") || !strcmp(m, "cl-less")) {
    size_t n = r->stream ? good_stream(body, sizeof(body), "hello", "\n") : good_json(body, sizeof(body), "hello");
    long claimed = !strcmp(m, "cl-more") ? (long)n + 1000 : (long)n - 10;
    head(200, "OK", r->stream ? "text/event-stream" : "application/json", claimed, NULL);
    put(body, n);
  }
  else if(!strcmp(m, "stacked-gzip") || !strcmp(m, "too-many-encodings")) {
    int layers = !strcmp(m, "stacked-gzip") ? 2 : 7;
    static unsigned char a[70000], b[70000];
    size_t n = good_json(body, sizeof(body), "hello");
    memcpy(a, body, n);
    for(int i = 0; i < layers; i++) {
      n = gzip_buf(a, n, b, sizeof(b));
      memcpy(a, b, n);
    }
    char enc[256];
    size_t el = 0;
    for(int i = 0; i < layers; i++)
      el += (size_t)snprintf(enc + el, sizeof(enc) - el, "%s", i ? ", gzip" : "gzip");
    snprintf(extra, sizeof(extra), "Content-Encoding: %s\r\n", enc);
    head(200, "OK", "application/json", (long)n, extra);
    put(a, n);
  }
  else if(!strcmp(m, "cr-sse")) {
    size_t n = good_stream(body, sizeof(body), "hello", "\r");
    head(200, "OK", "text/event-stream", (long)n, NULL);
    put(body, n);
  }
  else if(!strcmp(m, "after-done")) {
    size_t n = good_stream(body, sizeof(body), "hello", "\n");
    head(200, "OK", "text/event-stream", -1, NULL);
    put(body, n);
    const char *more = "data: " CHUNK_HEAD "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"more\"},\"finish_reason\":null}]}\n\n";
    for(;;) {
      put(more, strlen(more));
      msleep(2);
    }
  }
  else if(!strcmp(m, "drip") || !strcmp(m, "slow-ok")) {
    /* drip: one byte per 900 ms; slow-ok: a healthy stream of one event
     * per 100 ms that goes on longer than any test's --timeout */
    head(200, "OK", "text/event-stream", -1, NULL);
    if(!strcmp(m, "drip")) {
      size_t n = good_stream(body, sizeof(body), "hello", "\n");
      for(size_t i = 0; i < n; i++) {
        put(body + i, 1);
        msleep(900);
      }
      return;
    }
    putf("data: " CHUNK_HEAD "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n");
    for(int i = 0; i < 100000; i++) {
      putf("data: " CHUNK_HEAD "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tick \"},\"finish_reason\":null}]}\n\n");
      msleep(100);
    }
  }
  else if(!strcmp(m, "redirect-loop")) {
    snprintf(extra, sizeof(extra), "Location: %s\r\n", r->target);
    head(302, "Found", "text/plain", 0, extra);
  }
  else if(!strcmp(m, "redirect-other")) {
    snprintf(extra, sizeof(extra), "Location: http://127.0.0.1:%d%s\r\n", port_other, r->target);
    head(307, "Temporary Redirect", "text/plain", 0, extra);
  }
  else if(!strcmp(m, "redirect-scheme")) {
    head(301, "Moved Permanently", "text/plain", 0, "Location: file:///etc/passwd\r\n");
  }
  else if(!strcmp(m, "never-answer")) {
    for(;;)
      msleep(1000);
  }
  else if(!strcmp(m, "reset") || !strcmp(m, "random-reset")) {
    size_t n = good_stream(body, sizeof(body), "hello", "\n");
    size_t at = n / 2;
    if(!strcmp(m, "random-reset")) {
      srand((unsigned)getpid() ^ (unsigned)time(NULL));
      at = (size_t)rand() % n;
    }
    head(200, "OK", "text/event-stream", (long)n, NULL);
    put(body, at);
    msleep(50);
    reset_now();
  }
  else if(!strcmp(m, "trailers-forever")) {
    size_t n = good_stream(body, sizeof(body), "hello", "\n");
    puts_("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nTrailer: X-T\r\n\r\n");
    chunk(body, n);
    puts_("0\r\n");
    char line[1024];
    memset(line, 'b', sizeof(line));
    line[sizeof(line) - 3] = '\r';
    line[sizeof(line) - 2] = '\n';
    for(unsigned long i = 0;; i++) {
      putf("X-T-%lu: ", i);
      put(line, sizeof(line) - 1);
    }
  }
  else if(!strcmp(m, "many-choices")) {
    big_stream(128, 0, (size_t)r->size_mib << 20);
  }
  else if(!strcmp(m, "many-calls")) {
    big_stream(8, 32, (size_t)r->size_mib << 20);
  }
  else if(!strncmp(m, "responses-", 10) || !strncmp(m, "messages-", 9)) {
    serve_typed(r, m);
  }
  else {
    int n = snprintf(body, sizeof(body), "{\"error\":{\"message\":\"unknown X-Hostile mode\",\"type\":\"x\"}}");
    head(400, "Bad Request", "application/json", n, NULL);
    put(body, (size_t)n);
  }
}

/* ---- requests ------------------------------------------------------------ */

static int read_request(int fd, struct req *r)
{
  static char buf[HEAD_CAP + 1];
  size_t len = 0;
  char *end = NULL;
  while(!end) {
    if(len >= HEAD_CAP)
      return -1;
    ssize_t n = read(fd, buf + len, HEAD_CAP - len);
    if(n <= 0)
      return -1;
    len += (size_t)n;
    buf[len] = '\0';
    end = strstr(buf, "\r\n\r\n");
  }
  *end = '\0';
  size_t have = len - (size_t)(end + 4 - buf);
  memset(r, 0, sizeof(*r));
  r->size_mib = 80;
  if(sscanf(buf, "%15s %4095s", r->method, r->target) != 2)
    return -1;
  long clen = 0;
  for(char *line = strstr(buf, "\r\n"); line; line = strstr(line, "\r\n")) {
    line += 2;
    if(!strncasecmp(line, "Content-Length:", 15))
      clen = strtol(line + 15, NULL, 10);
    else if(!strncasecmp(line, "X-Hostile:", 10))
      sscanf(line + 10, " %63[^\r\n ]", r->mode);
    else if(!strncasecmp(line, "X-Hostile-Size:", 15))
      r->size_mib = strtol(line + 15, NULL, 10);
    else if(!strncasecmp(line, "Authorization:", 14)) {
      const char *v = line + 14;
      while(*v == ' ')
        v++;
      if(!strncasecmp(v, "Bearer ", 7))
        v += 7;
      sscanf(v, "%1023[^\r\n]", r->key);
    }
  }
  if(clen < 0 || clen > BODY_CAP)
    return -1;
  char *body = malloc((size_t)clen + 1);
  if(!body)
    return -1;
  size_t got = have < (size_t)clen ? have : (size_t)clen;
  memcpy(body, end + 4, got);
  while(got < (size_t)clen) {
    ssize_t n = read(fd, body + got, (size_t)clen - got);
    if(n <= 0) {
      free(body);
      return -1;
    }
    got += (size_t)n;
  }
  body[clen] = '\0';
  r->stream = strstr(body, "\"stream\":true") != NULL;
  r->has_messages = strstr(body, "\"messages\"") != NULL;
  if(!r->mode[0])
    snprintf(r->mode, sizeof(r->mode), "%s", default_mode);
  free(body);
  return 0;
}

static void log_request(const struct req *r)
{
  if(!log_path)
    return;
  FILE *f = fopen(log_path, "a");
  if(!f)
    return;
  fprintf(f, "%s %s %s auth=%s mode=%s\n", r->other ? "other" : "main", r->method, r->target,
          r->key[0] ? "yes" : "no", r->mode[0] ? r->mode : "-");
  fclose(f);
}

static int listen_on(int *port)
{
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  struct sockaddr_in a;
  socklen_t alen = sizeof(a);
  memset(&a, 0, sizeof(a));
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if(fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
     bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 64) ||
     getsockname(fd, (struct sockaddr *)&a, &alen))
    return -1;
  *port = ntohs(a.sin_port);
  return fd;
}

static volatile sig_atomic_t stop;
static void on_term(int sig)
{
  (void)sig;
  stop = 1;
}

int main(int argc, char **argv)
{
  for(int i = 1; i < argc; i++) {
    if(!strcmp(argv[i], "--log") && i + 1 < argc)
      log_path = argv[++i];
    else if(!strcmp(argv[i], "--default") && i + 1 < argc)
      default_mode = argv[++i];
    else {
      fprintf(stderr, "usage: hostile-server [--log FILE] [--default MODE]\n");
      return 2;
    }
  }
  int fds[2] = { listen_on(&port_main), listen_on(&port_other) };
  if(fds[0] < 0 || fds[1] < 0) {
    perror("hostile-server: listen");
    return 1;
  }
  printf("listening on http://127.0.0.1:%d\nother on http://127.0.0.1:%d\n", port_main, port_other);
  fflush(stdout);
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_term;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGCHLD, SIG_DFL);
  pid_t parent = getpid();
  while(!stop) {
    struct pollfd p[2] = { { fds[0], POLLIN, 0 }, { fds[1], POLLIN, 0 } };
    while(waitpid(-1, NULL, WNOHANG) > 0) {
    }
    if(poll(p, 2, 200) <= 0)
      continue;
    for(int k = 0; k < 2; k++) {
      if(!(p[k].revents & POLLIN))
        continue;
      int c = accept(fds[k], NULL, NULL);
      if(c < 0)
        continue;
      pid_t pid = fork();
      if(pid == 0) {
        /* the child dies with the server, whatever its mode is doing */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if(getppid() != parent)
          _exit(0);
        signal(SIGTERM, SIG_DFL);
        close(fds[0]);
        close(fds[1]);
        struct req r;
        if(read_request(c, &r) == 0) {
          r.other = k == 1;
          log_request(&r);
          out_fd = c;
          serve_mode(&r);
        }
        shutdown(c, SHUT_WR);
        close(c);
        _exit(0);
      }
      close(c);
    }
  }
  /* the children die with us (PR_SET_PDEATHSIG) */
  return 0;
}
