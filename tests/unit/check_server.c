/* check_server.c — the replay server in-process: fault specs, how bodies
 * are cut into writes (CRLF events, an unterminated last event), what
 * each fault does to the bytes and the framing, unmatched requests, and a
 * stop with a stalled connection still open (leaks show under LSan). */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "server.h"
#include "testutil.h"

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

static void add(const char *name, const char *path, const char *ctype, const char *body,
                size_t len)
{
  struct oc_cassette c;
  oc_cassette_init(&c);
  c.name = oc_strdup(name);
  c.method = oc_strdup("GET");
  c.path = oc_strdup(path);
  c.status = 200;
  c.reason = oc_strdup("OK");
  ck_assert_int_eq(oc_headers_add(&c.headers, "Content-Type", ctype), 0);
  ck_assert_int_eq(oc_headers_add(&c.headers, "Transfer-Encoding", "chunked"), 0);
  c.body = oc_strndup(body, len);
  c.body_len = len;
  ck_assert_int_eq(oc_cassette_update_key(&c), 0);
  ck_assert_int_eq(oc_cassette_store_take(&store, &c), 0);
}

static void setup(void)
{
  static const char crlf[] = "data: a\r\n\r\ndata: [DONE]\r\n\r\n";
  static const char tail[] = "data: 1\n\ndata: 2";
  static const char nul[] = "data: \0\xff\n\n";
  char err[256];
  oc_cassette_store_init(&store);
  add("crlf", "/crlf", "text/event-stream", crlf, sizeof(crlf) - 1);
  add("tail", "/tail", "text/event-stream", tail, sizeof(tail) - 1);
  add("nul", "/nul", "text/event-stream", nul, sizeof(nul) - 1);
  struct oc_server_options opt;
  memset(&opt, 0, sizeof(opt));
  opt.host = "127.0.0.1";
  oc_faults_init(&opt.faults);
  ck_assert_msg(oc_server_start(&srv, &store, &opt, err, sizeof(err)) == 0, "%s", err);
  ck_assert_int_gt(oc_server_port(srv), 0);
}

static void teardown(void)
{
  oc_server_stop(srv);
  srv = NULL;
  oc_cassette_store_free(&store);
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
  tcase_add_test(tc, stop_with_a_stalled_connection);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return oc_test_run(server_suite());
}
