/* check_exchange.c — the raw-exchange reader on inline responses and on
 * the real llama-server recordings in the team's reference data. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "testutil.h"

START_TEST(parses_status_headers_body)
{
  const char *raw = "HTTP/1.1 400 Bad Request\r\nServer: llama.cpp\r\n"
                    "Access-Control-Allow-Origin: \r\nContent-Type: application/json\r\n\r\n{\"x\":1}";
  struct oc_exchange ex;
  char err[256];
  ck_assert_int_eq(oc_exchange_parse_response(raw, strlen(raw), 0, &ex, err, sizeof(err)), 0);
  ck_assert_int_eq(ex.status, 400);
  ck_assert_str_eq(ex.reason, "Bad Request");
  ck_assert_str_eq(ex.http_version, "HTTP/1.1");
  ck_assert_uint_eq(ex.headers.count, 3);
  ck_assert_str_eq(oc_headers_get(&ex.headers, "content-type"), "application/json");
  /* an empty header value is kept as empty, not dropped */
  ck_assert_str_eq(oc_headers_get(&ex.headers, "Access-Control-Allow-Origin"), "");
  ck_assert_str_eq(ex.body, "{\"x\":1}");
  ck_assert_uint_eq(ex.npieces, 0);
  oc_exchange_free(&ex);
}
END_TEST

/* curl -i prints an HTTP/2 response's status line without a reason */
START_TEST(parses_http2_status_line)
{
  const char *raw = "HTTP/2 200\r\ncontent-type: text/event-stream\r\n\r\ndata: [DONE]\n\n";
  struct oc_exchange ex;
  char err[256];
  ck_assert_msg(oc_exchange_parse_response(raw, strlen(raw), 0, &ex, err, sizeof(err)) == 0, "%s", err);
  ck_assert_int_eq(ex.status, 200);
  ck_assert_str_eq(ex.http_version, "HTTP/2");
  ck_assert_str_eq(ex.reason, "");
  ck_assert_str_eq(ex.body, "data: [DONE]\n\n");
  oc_exchange_free(&ex);
}
END_TEST

START_TEST(dechunks_wire_bodies)
{
  const char *raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                    "5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n";
  struct oc_exchange ex;
  char err[256];
  ck_assert_int_eq(oc_exchange_parse_response(raw, strlen(raw), 1, &ex, err, sizeof(err)), 0);
  ck_assert_str_eq(ex.body, "hello, world");
  ck_assert_uint_eq(ex.npieces, 2);
  ck_assert_uint_eq(ex.pieces[0], 5);
  ck_assert_uint_eq(ex.pieces[1], 12);
  oc_exchange_free(&ex);
}
END_TEST

START_TEST(malformed_input_names_the_byte)
{
  struct oc_exchange ex;
  char err[256];
  const char *a = "garbage\r\n\r\n";
  ck_assert_int_ne(oc_exchange_parse_response(a, strlen(a), 0, &ex, err, sizeof(err)), 0);
  ck_assert_ptr_nonnull(strstr(err, "byte 0"));
  const char *b = "HTTP/1.1 200 OK\r\nBroken header\r\n\r\n";
  ck_assert_int_ne(oc_exchange_parse_response(b, strlen(b), 0, &ex, err, sizeof(err)), 0);
  ck_assert_ptr_nonnull(strstr(err, "byte 17"));
  const char *c = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nff\r\nshort";
  ck_assert_int_ne(oc_exchange_parse_response(c, strlen(c), 1, &ex, err, sizeof(err)), 0);
  ck_assert_ptr_nonnull(strstr(err, "runs past the end"));
  const char *d = "HTTP/1.1 200 OK\r\nNo-Blank-Line: x\r\n";
  ck_assert_int_ne(oc_exchange_parse_response(d, strlen(d), 0, &ex, err, sizeof(err)), 0);
  ck_assert_ptr_nonnull(strstr(err, "blank line"));
}
END_TEST

START_TEST(loads_llama_server_recordings)
{
  char *dir = oc_test_shared("recordings/llama-server");
  if(!dir)
    return;
  struct oc_exchange_set set;
  char err[512];
  ck_assert_msg(oc_exchange_load_dir(dir, &set, err, sizeof(err)) == 0, "%s", err);
  ck_assert_uint_ge(set.count, 50);
  const struct oc_exchange *s = oc_exchange_find(&set, "chat-stream");
  ck_assert_ptr_nonnull(s);
  ck_assert_str_eq(s->method, "POST");
  ck_assert_str_eq(s->path, "/v1/chat/completions");
  ck_assert_int_eq(s->status, 200);
  ck_assert_str_eq(oc_headers_get(&s->headers, "Content-Type"), "text/event-stream");
  ck_assert_ptr_nonnull(strstr(s->request, "\"stream\": true"));
  ck_assert(oc_startswith(s->body, "data: {"));
  ck_assert_ptr_null(s->note);
  const struct oc_exchange *h = oc_exchange_find(&set, "health");
  ck_assert_ptr_nonnull(h);
  ck_assert_str_eq(h->method, "GET");
  ck_assert_ptr_null(h->request);
  ck_assert_str_eq(h->body, "{\"status\":\"ok\"}");
  const struct oc_exchange *st = oc_exchange_find(&set, "tools-required-steered-stream");
  ck_assert_ptr_nonnull(st);
  ck_assert_ptr_nonnull(st->note); /* test-only: steers the model */
  oc_exchange_set_free(&set);

  /* the .wire file keeps HTTP chunk framing: 18 data-bearing chunks */
  struct oc_exchange w;
  ck_assert_msg(oc_exchange_load(dir, "chat-stream.wire", &w, err, sizeof(err)) == 0, "%s", err);
  ck_assert_uint_eq(w.npieces, 18);
  ck_assert_uint_eq(w.pieces[w.npieces - 1], w.body_len);
  ck_assert(oc_endswith(w.body, "data: [DONE]\n\n"));
  oc_exchange_free(&w);
  free(dir);
}
END_TEST

START_TEST(missing_recording_is_named)
{
  char *dir = oc_test_shared("recordings/llama-server");
  if(!dir)
    return;
  struct oc_exchange ex;
  char err[512];
  ck_assert_int_eq(oc_exchange_load(dir, "no-such-case", &ex, err, sizeof(err)), OC_ENOTFOUND);
  ck_assert_ptr_nonnull(strstr(err, "no-such-case"));
  free(dir);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("exchange");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, parses_status_headers_body);
  tcase_add_test(tc, parses_http2_status_line);
  tcase_add_test(tc, dechunks_wire_bodies);
  tcase_add_test(tc, malformed_input_names_the_byte);
  tcase_add_test(tc, loads_llama_server_recordings);
  tcase_add_test(tc, missing_recording_is_named);
  suite_add_tcase(s, tc);
  return oc_test_run(s);
}
