/* check_server.c — the replay server in-process: fault specs, how bodies
 * are cut into writes (CRLF events, an unterminated last event), what
 * each fault does to the bytes and the framing, unmatched requests, and a
 * stop with a stalled connection still open (leaks show under LSan). */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "case_seq.h"
#include "server.h"
#include "testutil.h"

/* A typed-event stream: a Responses delta, Messages' message_delta (whose
 * data names another type), then the two protocols' last words, one by
 * its event: line, one by its data alone. */
#define TYPED_KEPT                                                                                \
  "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\"}\n\n"          \
  "event: message_delta\ndata: {\"type\":\"message_delta\"}\n\n"
#define TYPED_END                                                                                 \
  "event: response.completed\ndata: {\"type\":\"response.completed\"}\n\n"                        \
  "data: {\"type\":\"message_stop\"}\n\n"

/* ---- fault specs ---------------------------------------------------- */

START_TEST(fault_specs)
{
  struct oc_faults f;
  char err[256], desc[256];
  oc_faults_init(&f);
  oc_faults_describe(&f, desc, sizeof(desc));
  ck_assert_str_eq(desc, "");
  ck_assert_int_eq(oc_faults_parse(&f, "drip=5, stall=0,truncate=3", err, sizeof(err)), 0);
  ck_assert_int_eq(oc_faults_parse(&f, "drop-done,content-type=text/plain; charset=x", err,
                                   sizeof(err)), 0);
  ck_assert_int_eq(oc_faults_parse(&f, "gzip,split=4,reset=10,corrupt=2", err, sizeof(err)), 0);
  ck_assert_int_eq(f.drip_ms, 5);
  ck_assert_int_eq(f.stall_ms, 0);
  ck_assert_int_eq(f.truncate, 3);
  ck_assert_int_eq(f.drop_done, 1);
  ck_assert_str_eq(f.content_type, "text/plain; charset=x");
  ck_assert_int_eq(f.gzip, 1);
  ck_assert_int_eq(f.split, 4);
  ck_assert_int_eq(f.reset, 10);
  ck_assert_int_eq(f.corrupt, 2);
  oc_faults_describe(&f, desc, sizeof(desc));
  ck_assert_str_eq(desc, "drip=5,stall=0,truncate=3,reset=10,corrupt=2,split=4,drop-done,gzip,"
                         "content-type=text/plain; charset=x");
  /* too small a room cuts the end and says so; nothing goes missing from
   * the middle (",stall=0" once fell out and ",truncate=3" fitted) */
  char small[16];
  oc_faults_describe(&f, small, sizeof(small));
  ck_assert_str_eq(small, "drip=5,stall...");
  /* a later value replaces an earlier one; merge overlays what is set */
  struct oc_faults g;
  oc_faults_init(&g);
  ck_assert_int_eq(oc_faults_parse(&g, "truncate=9,content-type=a/b", err, sizeof(err)), 0);
  ck_assert_int_eq(oc_faults_merge(&f, &g), 0);
  ck_assert_int_eq(f.truncate, 9);
  ck_assert_int_eq(f.drip_ms, 5);
  ck_assert_str_eq(f.content_type, "a/b");
  oc_faults_free(&g);
  oc_faults_free(&f);
  const char *bad[][2] = {
    { "explode", "unknown fault 'explode'" },
    { "drip", "drip' wants a whole number" },
    { "drip=-1", "from 0 to" },
    { "drip=99999999", "from 0 to" },
    { "split=0", "from 1 to" },
    { "corrupt=0", "from 1 to" },
    { "truncate=3x", "got '3x'" },
    { "gzip=1", "takes no value" },
    { "content-type=", "wants a media type" },
    { "drip=1,,gzip", "empty fault" },
    { "", "empty fault" },
    { "=5", "expected NAME" },
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(bad); i++) {
    oc_faults_init(&f);
    ck_assert_int_ne(oc_faults_parse(&f, bad[i][0], err, sizeof(err)), 0);
    ck_assert_msg(strstr(err, bad[i][1]) != NULL, "'%s': '%s' not in '%s'", bad[i][0], bad[i][1],
                  err);
    oc_faults_free(&f);
  }
}
END_TEST

/* ---- a server on a small in-memory store ---------------------------- */

static struct oc_cassette_store store;
static struct oc_server *srv;

static void add_status(const char *name, const char *path, const char *ctype, const char *body,
                       size_t len, int status)
{
  struct oc_cassette c;
  oc_cassette_init(&c);
  c.name = oc_strdup(name);
  c.method = oc_strdup("GET");
  c.path = oc_strdup(path);
  c.status = status;
  c.reason = oc_strdup("OK");
  ck_assert_int_eq(oc_headers_add(&c.headers, "Content-Type", ctype), 0);
  ck_assert_int_eq(oc_headers_add(&c.headers, "Transfer-Encoding", "chunked"), 0);
  c.body = oc_strndup(body, len);
  c.body_len = len;
  ck_assert_int_eq(oc_cassette_update_key(&c), 0);
  ck_assert_int_eq(oc_cassette_store_take(&store, &c), 0);
}

static void add(const char *name, const char *path, const char *ctype, const char *body,
                size_t len)
{
  add_status(name, path, ctype, body, len, 200);
}

static struct oc_server_options options;

static void start(void)
{
  char err[256];
  ck_assert_msg(oc_server_start(&srv, &store, &options, err, sizeof(err)) == 0, "%s", err);
  ck_assert_int_gt(oc_server_port(srv), 0);
}

/* A stream too big for the socket's buffers (4 MiB at most): 8,000 events of 1,000 bytes. */
#define BIG_EVENTS 8000
#define BIG_EVENT 1000
static char *big_stream(void)
{
  char *b = malloc(BIG_EVENTS * BIG_EVENT + 1);
  ck_assert_ptr_nonnull(b);
  for(int i = 0; i < BIG_EVENTS; i++) {
    char *e = b + (size_t)i * BIG_EVENT;
    memset(e, 'a' + i % 26, BIG_EVENT);
    memcpy(e, "data: ", 6);
    e[BIG_EVENT - 2] = e[BIG_EVENT - 1] = '\n';
  }
  b[BIG_EVENTS * BIG_EVENT] = '\0';
  return b;
}

static void fill_store(void)
{
  static const char crlf[] = "data: a\r\n\r\ndata: [DONE]\r\n\r\n";
  static const char tail[] = "data: 1\n\ndata: 2";
  static const char nul[] = "data: \0\xff\n\n";
  oc_cassette_store_init(&store);
  add("crlf", "/crlf", "text/event-stream", crlf, sizeof(crlf) - 1);
  add("tail", "/tail", "text/event-stream", tail, sizeof(tail) - 1);
  add("nul", "/nul", "text/event-stream", nul, sizeof(nul) - 1);
  add("typed", "/typed", "text/event-stream", TYPED_KEPT TYPED_END, sizeof(TYPED_KEPT TYPED_END) - 1);
  add_status("interim", "/interim", "text/plain", "", 0, 101);
  add("first", "/first", "text/plain", "one", 3);
  add("second", "/second", "text/plain", "two", 3);
  add("tail,first", "/comma", "text/plain", "comma", 5); /* a name with a comma */
  char *big = big_stream();
  add("big", "/big", "text/event-stream", big, BIG_EVENTS * BIG_EVENT);
  free(big);
  oc_server_options_init(&options);
  options.port = 0; /* any free port: 8080, the default, may be anyone's */
}

static void setup(void)
{
  fill_store();
  start();
}

/* The defaults a CI gets, with the request timeout short enough to test. */
static void setup_limits(void)
{
  fill_store();
  options.request_timeout_s = 2;
}

static void teardown(void)
{
  oc_server_stop(srv);
  srv = NULL;
  oc_cassette_store_free(&store);
}

static int connect_server(int timeout_s)
{
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if(fd < 0)
    return -1;
  struct timeval tv = { timeout_s, 0 };
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof(sa));
  sa.sin_family = AF_INET;
  sa.sin_port = htons((uint16_t)oc_server_port(srv));
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if(connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
    close(fd);
    return -1;
  }
  return fd;
}

/* Send req as it is and read until the server closes (or timeout_s of
 * silence); the raw answer, caller frees ("" when nothing came back). */
static char *exchange_raw(const char *req, size_t reqlen, int timeout_s, size_t *len)
{
  struct oc_buf b;
  oc_buf_init(&b, 1u << 20);
  int fd = connect_server(timeout_s);
  if(fd >= 0) {
    if(send(fd, req, reqlen, MSG_NOSIGNAL) == (ssize_t)reqlen) {
      char chunk[4096];
      ssize_t n;
      while((n = recv(fd, chunk, sizeof(chunk), 0)) > 0)
        if(oc_buf_add(&b, chunk, (size_t)n))
          break;
    }
    close(fd);
  }
  char *out = oc_buf_take(&b, len);
  ck_assert_ptr_nonnull(out);
  return out;
}

/* Send one request and read until the server closes; the raw response
 * (caller frees), NULL when the connection could not be made.  30 s
 * receive timeout so a bug cannot hang the test.  No ck_assert here: it
 * also runs on a thread of its own. */
static char *fetch_raw(const char *path, const char *extra_headers, size_t *len)
{
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if(fd < 0)
    return NULL;
  struct timeval tv = { 30, 0 };
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof(sa));
  sa.sin_family = AF_INET;
  sa.sin_port = htons((uint16_t)oc_server_port(srv));
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  char *req = oc_asprintf("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s\r\n",
                          path, extra_headers ? extra_headers : "");
  if(!req || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
     send(fd, req, strlen(req), 0) != (ssize_t)strlen(req)) {
    free(req);
    close(fd);
    return NULL;
  }
  free(req);
  struct oc_buf b;
  oc_buf_init(&b, 1u << 20);
  char chunk[4096];
  ssize_t n;
  while((n = recv(fd, chunk, sizeof(chunk), 0)) > 0)
    if(oc_buf_add(&b, chunk, (size_t)n))
      break;
  close(fd);
  return oc_buf_take(&b, len);
}

static char *fetch(const char *path, const char *extra_headers, size_t *len)
{
  char *raw = fetch_raw(path, extra_headers, len);
  ck_assert_msg(raw != NULL, "could not talk to the server on port %d", oc_server_port(srv));
  return raw;
}

/* Fetch and parse with the chunk framing kept: pieces are the writes. */
static int fetch_ex(const char *path, const char *hdrs, struct oc_exchange *ex, char *err,
                    size_t errlen)
{
  size_t len = 0;
  char *raw = fetch(path, hdrs, &len);
  int rc = oc_exchange_parse_response(raw, len, 1, ex, err, errlen);
  free(raw);
  return rc;
}

static void assert_body(const struct oc_exchange *ex, const char *want, size_t len)
{
  ck_assert_uint_eq(ex->body_len, len);
  ck_assert_mem_eq(ex->body, want, len);
}

START_TEST(writes_follow_events)
{
  struct oc_exchange ex;
  char err[256];
  ck_assert_msg(fetch_ex("/crlf", NULL, &ex, err, sizeof(err)) == 0, "%s", err);
  ck_assert_int_eq(ex.status, 200);
  assert_body(&ex, "data: a\r\n\r\ndata: [DONE]\r\n\r\n", 27);
  ck_assert_uint_eq(ex.npieces, 2);
  ck_assert_uint_eq(ex.pieces[0], 11);
  /* hop-by-hop headers are the library's, the rest are the recording's */
  ck_assert_str_eq(oc_headers_get(&ex.headers, "Content-Type"), "text/event-stream");
  oc_exchange_free(&ex);
  ck_assert_msg(fetch_ex("/tail", NULL, &ex, err, sizeof(err)) == 0, "%s", err);
  assert_body(&ex, "data: 1\n\ndata: 2", 16);
  ck_assert_uint_eq(ex.npieces, 2);
  oc_exchange_free(&ex);
  ck_assert_msg(fetch_ex("/nul", NULL, &ex, err, sizeof(err)) == 0, "%s", err);
  assert_body(&ex, "data: \0\xff\n\n", 10);
  oc_exchange_free(&ex);
}
END_TEST

START_TEST(event_faults_on_crlf_streams)
{
  struct oc_exchange ex;
  char err[256];
  /* drop-terminal: the last word of each protocol's stream, by its event:
   * line or its data's type; nothing else */
  ck_assert(fetch_ex("/crlf", "X-Oacheck-Fault: drop-terminal\r\n", &ex, err, sizeof(err)) == 0);
  assert_body(&ex, "data: a\r\n\r\n", 11);
  oc_exchange_free(&ex);
  ck_assert(fetch_ex("/typed", "X-Oacheck-Fault: drop-terminal\r\n", &ex, err, sizeof(err)) == 0);
  assert_body(&ex, TYPED_KEPT, sizeof(TYPED_KEPT) - 1);
  oc_exchange_free(&ex);
  ck_assert(fetch_ex("/typed", NULL, &ex, err, sizeof(err)) == 0);
  assert_body(&ex, TYPED_KEPT TYPED_END, sizeof(TYPED_KEPT TYPED_END) - 1);
  oc_exchange_free(&ex);
  ck_assert(fetch_ex("/crlf", "X-Oacheck-Fault: drop-done\r\n", &ex, err, sizeof(err)) == 0);
  assert_body(&ex, "data: a\r\n\r\n", 11);
  oc_exchange_free(&ex);
  ck_assert(fetch_ex("/crlf", "X-Oacheck-Fault: corrupt=1\r\n", &ex, err, sizeof(err)) == 0);
  assert_body(&ex, "dat\r\n\r\ndata: [DONE]\r\n\r\n", 23);
  oc_exchange_free(&ex);
  ck_assert(fetch_ex("/crlf", "X-Oacheck-Fault: truncate=0\r\n", &ex, err, sizeof(err)) == 0);
  assert_body(&ex, "", 0);
  ck_assert_str_eq(oc_headers_get(&ex.headers, "Connection"), "close");
  oc_exchange_free(&ex);
  ck_assert(fetch_ex("/tail", "X-Oacheck-Fault: truncate=1,split=3\r\n", &ex, err,
                     sizeof(err)) == 0);
  assert_body(&ex, "data: 1\n\n", 9);
  ck_assert_uint_eq(ex.npieces, 3);
  oc_exchange_free(&ex);
  ck_assert(fetch_ex("/crlf", "X-Oacheck-Fault: content-type=text/plain\r\n", &ex, err,
                     sizeof(err)) == 0);
  ck_assert_str_eq(oc_headers_get(&ex.headers, "Content-Type"), "text/plain");
  oc_exchange_free(&ex);
}
END_TEST

START_TEST(reset_aborts_the_body)
{
  struct oc_exchange ex;
  char err[256];
  /* the chunked body never ends: the parser finds no terminating chunk */
  ck_assert_int_ne(fetch_ex("/crlf", "X-Oacheck-Fault: reset=5\r\n", &ex, err, sizeof(err)), 0);
  size_t len = 0;
  char *raw = fetch("/crlf", "X-Oacheck-Fault: reset=5\r\n", &len);
  const char *body = strstr(raw, "\r\n\r\n");
  ck_assert_ptr_nonnull(body);
  ck_assert_ptr_nonnull(strstr(body, "5\r\ndata:"));
  ck_assert_ptr_null(strstr(body, "data: a"));
  ck_assert_ptr_null(strstr(body, "\r\n0\r\n"));
  free(raw);
}
END_TEST

START_TEST(gzip_body)
{
  struct oc_exchange ex;
  char err[256], *plain = NULL;
  size_t plen = 0;
  ck_assert(fetch_ex("/crlf", "X-Oacheck-Fault: gzip\r\n", &ex, err, sizeof(err)) == 0);
  ck_assert_str_eq(oc_headers_get(&ex.headers, "Content-Encoding"), "gzip");
  ck_assert_int_eq(oc_gunzip(ex.body, ex.body_len, 1000, &plain, &plen), 0);
  ck_assert_uint_eq(plen, 27);
  ck_assert_mem_eq(plain, "data: a\r\n\r\ndata: [DONE]\r\n\r\n", 27);
  free(plain);
  oc_exchange_free(&ex);
}
END_TEST

START_TEST(unmatched_and_bad_faults)
{
  struct oc_exchange ex;
  char err[256];
  ck_assert(fetch_ex("/nowhere", NULL, &ex, err, sizeof(err)) == 0);
  ck_assert_int_eq(ex.status, 404);
  ck_assert_str_eq(oc_headers_get(&ex.headers, "X-Oacheck-Unmatched"), "not recorded");
  ck_assert_ptr_nonnull(strstr(ex.body, "\"code\":\"not_recorded\""));
  ck_assert_ptr_nonnull(strstr(ex.body, "nearest: "));
  oc_exchange_free(&ex);
  ck_assert(fetch_ex("/whatever", "X-Oacheck-Case: tail\r\n", &ex, err, sizeof(err)) == 0);
  ck_assert_int_eq(ex.status, 200);
  assert_body(&ex, "data: 1\n\ndata: 2", 16);
  oc_exchange_free(&ex);
  ck_assert(fetch_ex("/tail", "X-Oacheck-Fault: split=x\r\n", &ex, err, sizeof(err)) == 0);
  ck_assert_int_eq(ex.status, 400);
  ck_assert_ptr_nonnull(strstr(ex.body, "\"code\":\"bad_fault\""));
  oc_exchange_free(&ex);
}
END_TEST

/* The body X-Oacheck-Case: VALUE gets now ("404" when none matched). */
static char *case_body(const char *value)
{
  struct oc_exchange ex;
  char err[256], hdr[256];
  snprintf(hdr, sizeof(hdr), "X-Oacheck-Case: %s\r\n", value);
  ck_assert_msg(fetch_ex("/any", hdr, &ex, err, sizeof(err)) == 0, "%s", err);
  char *b = ex.status == 404 ? oc_strdup("404") : oc_strndup(ex.body, ex.body_len);
  ck_assert_ptr_nonnull(b);
  oc_exchange_free(&ex);
  return b;
}

static void assert_case(const char *value, const char *want)
{
  char *got = case_body(value);
  ck_assert_msg(!strcmp(got, want), "X-Oacheck-Case: %s gave '%s', expected '%s'", value, got,
                want);
  free(got);
}

/* An agent's conversation: the Nth request with the same list gets the
 * Nth name, the last one repeating; each value counts on its own. */
START_TEST(case_sequences)
{
  assert_case("first,second", "one");
  assert_case("second, first", "two"); /* another value, its own count */
  assert_case("first,second", "two");
  assert_case("first,second", "two"); /* the last one repeats */
  assert_case("second, first", "one");
  assert_case(" first ,, second", "one"); /* spaces trimmed, empty names skipped */
  assert_case(" first ,, second", "two");
  assert_case("first", "one");            /* a plain name does not count */
  assert_case("first", "one");
  assert_case("tail,first", "comma");     /* a recording's own name wins */
  assert_case("tail,first", "comma");
  assert_case("first,nope", "one");
  assert_case("first,nope", "404"); /* an unknown name in it matches nothing */
  assert_case(",", "404");
}
END_TEST

/* The counts are bounded: beyond OC_CASE_SEQ_MAX values the oldest is
 * forgotten and starts again at its first name; the others keep theirs. */
START_TEST(case_sequences_are_bounded)
{
  struct oc_case_seq *q = oc_case_seq_new();
  ck_assert_ptr_nonnull(q);
  char v[64], out[64];
  unsigned long nth, n;
  for(int round = 0; round < 2; round++)
    for(int i = 0; i <= OC_CASE_SEQ_MAX; i++) {
      snprintf(v, sizeof(v), "a%d,b%d", i, i);
      const char *got = oc_case_seq_pick(q, &store, v, out, sizeof(out), &nth, &n);
      ck_assert_ptr_nonnull(got);
      ck_assert_uint_eq(n, 2);
      /* round 1: each was forgotten before it came back, so first again */
      ck_assert_uint_eq(nth, 1);
    }
  char want[64];
  snprintf(v, sizeof(v), "a%d,b%d", OC_CASE_SEQ_MAX, OC_CASE_SEQ_MAX);
  snprintf(want, sizeof(want), "b%d", OC_CASE_SEQ_MAX);
  ck_assert_str_eq(oc_case_seq_pick(q, &store, v, out, sizeof(out), &nth, &n), want);
  ck_assert_uint_eq(nth, 2);
  oc_case_seq_free(q);
}
END_TEST

static void *stalled_client(void *arg)
{
  size_t len = 0;
  (void)arg;
  free(fetch_raw("/tail", "X-Oacheck-Fault: stall=600000\r\n", &len));
  return NULL;
}

START_TEST(stop_with_a_stalled_connection)
{
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, stalled_client, NULL), 0);
  /* make sure the stalled request is in the server before stopping */
  struct oc_exchange ex;
  char err[256];
  for(int i = 0; i < 3; i++) {
    ck_assert(fetch_ex("/tail", NULL, &ex, err, sizeof(err)) == 0);
    oc_exchange_free(&ex);
  }
  usleep(100000);
  oc_server_stop(srv); /* must return, cutting the stall short */
  srv = NULL;
  ck_assert_int_eq(pthread_join(t, NULL), 0);
}
END_TEST

/* A recorded 1xx is interim: sent as the answer, the client would wait
 * for the final response for ever.  It is answered 502, naming why. */
START_TEST(interim_status_is_never_final)
{
  struct oc_exchange ex;
  char err[256];
  ck_assert_msg(fetch_ex("/interim", NULL, &ex, err, sizeof(err)) == 0, "%s", err);
  ck_assert_int_eq(ex.status, 502);
  ck_assert_ptr_nonnull(strstr(ex.body, "\"code\":\"interim_status_recorded\""));
  ck_assert_ptr_nonnull(strstr(ex.body, "status 101"));
  oc_exchange_free(&ex);
  /* by name too, and the connection still serves the rest */
  ck_assert(fetch_ex("/x", "X-Oacheck-Case: interim\r\n", &ex, err, sizeof(err)) == 0);
  ck_assert_int_eq(ex.status, 502);
  oc_exchange_free(&ex);
}
END_TEST

/* An unpaced answer is written in one call while the socket takes it;
 * a client that reads slowly through a tiny window makes that call write
 * part of it, and the rest must follow in order, framed the same: one
 * chunk per event. */
START_TEST(a_slow_reader_gets_a_big_answer_whole)
{
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ck_assert_int_ge(fd, 0);
  int small = 4096;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
  struct timeval tv = { 30, 0 };
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  struct sockaddr_in sa;
  memset(&sa, 0, sizeof(sa));
  sa.sin_family = AF_INET;
  sa.sin_port = htons((uint16_t)oc_server_port(srv));
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
  static const char req[] = "GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  ck_assert_int_eq(send(fd, req, sizeof(req) - 1, 0), (ssize_t)sizeof(req) - 1);
  usleep(200000); /* the server's writes fill both buffers */
  struct oc_buf b;
  oc_buf_init(&b, 16u << 20);
  char chunk[1024];
  ssize_t n;
  int reads = 0;
  while((n = recv(fd, chunk, sizeof(chunk), 0)) > 0) {
    ck_assert_int_eq(oc_buf_add(&b, chunk, (size_t)n), 0);
    if(++reads % 256 == 0)
      usleep(1000);
  }
  close(fd);
  struct oc_exchange ex;
  char err[256];
  ck_assert_msg(oc_exchange_parse_response(b.data, b.len, 1, &ex, err, sizeof(err)) == 0, "%s", err);
  char *want = big_stream();
  assert_body(&ex, want, BIG_EVENTS * BIG_EVENT);
  ck_assert_uint_eq(ex.npieces, BIG_EVENTS);
  free(want);
  oc_exchange_free(&ex);
  oc_buf_free(&b);
}
END_TEST

static int status_of(const char *raw)
{
  int st = 0;
  return sscanf(raw, "HTTP/1.1 %d", &st) == 1 ? st : 0;
}

/* A declared body over the cap is refused before a byte of it is read;
 * a chunked one once it passes the cap; one under it is served. */
START_TEST(oversized_bodies_are_refused)
{
  options.max_body = 1000;
  start();
  static const char declared[] = "POST /tail HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n";
  size_t len = 0;
  char *raw = exchange_raw(declared, sizeof(declared) - 1, 10, &len);
  ck_assert_msg(status_of(raw) == 413, "a declared 5000-byte body got '%.40s'", raw);
  ck_assert_ptr_nonnull(strstr(raw, "\"code\":\"request_too_large\""));
  free(raw);
  struct oc_buf req;
  oc_buf_init(&req, 1u << 20);
  oc_buf_adds(&req, "POST /tail HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                    "Connection: close\r\n\r\n");
  for(int i = 0; i < 4; i++) {
    oc_buf_adds(&req, "1f4\r\n");
    for(int j = 0; j < 500; j++)
      oc_buf_addc(&req, 'x');
    oc_buf_adds(&req, "\r\n");
  }
  oc_buf_adds(&req, "0\r\n\r\n");
  raw = exchange_raw(req.data, req.len, 10, &len);
  ck_assert_msg(status_of(raw) == 413, "a chunked 2000-byte body got '%.40s'", raw);
  free(raw);
  oc_buf_free(&req);
  static const char small[] = "POST /tail HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                              "Connection: close\r\n\r\nhello";
  raw = exchange_raw(small, sizeof(small) - 1, 10, &len);
  ck_assert_msg(status_of(raw) == 404, "a 5-byte body got '%.40s'", raw);
  free(raw);
}
END_TEST

/* What all requests hold at once is bounded (16 x max_body): past it a
 * request is told to come back (503, Retry-After), and served once the
 * others are gone. */
START_TEST(bodies_held_at_once_are_bounded)
{
  options.max_body = 1000;
  /* the twenty unfinished bodies must still be held while the probes
   * come: with the fixture's 2 s request timeout, a probe that came too
   * early waited out those 2 s, the twenty were closed meanwhile, and no
   * later probe could be refused (the test ran into its own timeout) */
  options.request_timeout_s = 60;
  start();
  int fds[20];
  char part[1100];
  int n = snprintf(part, sizeof(part), "POST /tail HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n");
  memset(part + n, 'x', 960); /* JSON, so it is kept: one that cannot be is hashed and dropped */
  memcpy(part + n, "{\"a\":\"", 6);
  for(size_t i = 0; i < OC_ARRAY_LEN(fds); i++) {
    fds[i] = connect_server(10);
    ck_assert_int_ge(fds[i], 0);
    ck_assert_int_eq(send(fds[i], part, (size_t)n + 960, MSG_NOSIGNAL), n + 960);
  }
  static const char probe[] = "POST /tail HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n"
                              "Connection: close\r\n\r\n";
  int got = 0;
  for(int tries = 0; tries < 50 && got != 503; tries++) {
    size_t len = 0;
    /* a probe taken in (before the twenty were all read) waits for a body
     * that never comes: given up after 1 s of silence */
    char *raw = exchange_raw(probe, sizeof(probe) - 1, 1, &len);
    got = status_of(raw);
    if(got == 503)
      ck_assert_ptr_nonnull(strstr(raw, "Retry-After: 1"));
    free(raw);
    if(got != 503)
      usleep(100000);
  }
  ck_assert_int_eq(got, 503);
  for(size_t i = 0; i < OC_ARRAY_LEN(fds); i++)
    close(fds[i]);
  static const char whole[] = "POST /tail HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                              "Connection: close\r\n\r\nhello";
  for(int tries = 0; tries < 50 && got != 404; tries++) {
    size_t len = 0;
    char *raw = exchange_raw(whole, sizeof(whole) - 1, 10, &len);
    got = status_of(raw);
    free(raw);
    if(got != 404)
      usleep(100000);
  }
  ck_assert_int_eq(got, 404);
}
END_TEST

/* Open n connections that send a request head and never finish it. */
static void slowloris_open(int *fds, size_t n)
{
  static const char head[] = "GET /tail HTTP/1.1\r\nHost: x\r\nX-Slow: ";
  for(size_t i = 0; i < n; i++) {
    fds[i] = connect_server(10);
    if(fds[i] >= 0)
      send(fds[i], head, sizeof(head) - 1, MSG_NOSIGNAL);
  }
  usleep(300000); /* let the server take them all in */
}

static void slowloris_close(int *fds, size_t n)
{
  for(size_t i = 0; i < n; i++)
    if(fds[i] >= 0)
      close(fds[i]);
}

static void assert_normal_request_answered(void)
{
  struct oc_exchange ex;
  char err[256];
  size_t len = 0;
  char *raw = fetch_raw("/tail", NULL, &len);
  ck_assert_msg(raw && len, "a normal request got no answer during the attack");
  ck_assert_msg(oc_exchange_parse_response(raw, len, 1, &ex, err, sizeof(err)) == 0, "%s", err);
  ck_assert_int_eq(ex.status, 200);
  assert_body(&ex, "data: 1\n\ndata: 2", 16);
  oc_exchange_free(&ex);
  free(raw);
}

/* Issue 18: 300 connections that never finish their request held every
 * one of the 256 slots, and a normal request timed out. */
START_TEST(slowloris_leaves_room)
{
  start();
  int fds[300];
  slowloris_open(fds, OC_ARRAY_LEN(fds));
  assert_normal_request_answered();
  slowloris_close(fds, OC_ARRAY_LEN(fds));
}
END_TEST

/* Beyond the connection limit, the connection that has waited longest for
 * its request makes room: an attack larger than the limit still lets a
 * normal request through. */
START_TEST(slowloris_beyond_the_limit)
{
  options.max_connections = 32;
  start();
  int fds[300];
  slowloris_open(fds, OC_ARRAY_LEN(fds));
  assert_normal_request_answered();
  size_t closed = 0;
  for(size_t i = 0; i < OC_ARRAY_LEN(fds); i++) {
    char c;
    closed += fds[i] >= 0 && recv(fds[i], &c, 1, MSG_DONTWAIT) == 0;
  }
  ck_assert_msg(closed >= OC_ARRAY_LEN(fds) - 32, "only %zu of 300 closed", closed);
  slowloris_close(fds, OC_ARRAY_LEN(fds));
}
END_TEST

/* A head trickled a line at a time keeps the connection busy but never
 * completes: the request timeout (2 s here) closes it anyway. */
START_TEST(request_timeout_cuts_a_trickling_head)
{
  start();
  int fd = connect_server(10);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_gt(send(fd, "GET /tail HTTP/1.1\r\n", 20, MSG_NOSIGNAL), 0);
  int closed = 0;
  for(int i = 0; i < 150 && !closed; i++) { /* 30 s at most */
    usleep(200000);
    char c;
    ssize_t r = recv(fd, &c, 1, MSG_DONTWAIT);
    closed = r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK) ||
             send(fd, "X-Slow: 1\r\n", 11, MSG_NOSIGNAL) < 0;
  }
  close(fd);
  ck_assert_msg(closed, "a head trickled for 30 s was never cut");
  assert_normal_request_answered(); /* and the server is fine */
}
END_TEST

static Suite *server_suite(void)
{
  Suite *s = suite_create("server");
  TCase *tc = tcase_create("faults");
  tcase_add_test(tc, fault_specs);
  suite_add_tcase(s, tc);
  tc = tcase_create("serving");
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, writes_follow_events);
  tcase_add_test(tc, event_faults_on_crlf_streams);
  tcase_add_test(tc, reset_aborts_the_body);
  tcase_add_test(tc, gzip_body);
  tcase_add_test(tc, unmatched_and_bad_faults);
  tcase_add_test(tc, case_sequences);
  tcase_add_test(tc, case_sequences_are_bounded);
  tcase_add_test(tc, stop_with_a_stalled_connection);
  tcase_add_test(tc, interim_status_is_never_final);
  tcase_add_test(tc, a_slow_reader_gets_a_big_answer_whole);
  suite_add_tcase(s, tc);
  tc = tcase_create("limits");
  tcase_set_timeout(tc, 90);
  tcase_add_checked_fixture(tc, setup_limits, teardown);
  tcase_add_test(tc, oversized_bodies_are_refused);
  tcase_add_test(tc, bodies_held_at_once_are_bounded);
  tcase_add_test(tc, slowloris_leaves_room);
  tcase_add_test(tc, slowloris_beyond_the_limit);
  tcase_add_test(tc, request_timeout_cuts_a_trickling_head);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return oc_test_run(server_suite());
}
