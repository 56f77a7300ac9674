/* check_capture.c — reading captured responses (src/capture.c) on bytes
 * written here: which kind a capture is, curl's interim heads and HTTP/2
 * status lines, chunk framing and gzip curl left in, bare bodies and what
 * is assumed for them, HAR entries (which are checked, base64 content,
 * Chromium's windows-1252 decoding undone), the cut-capture heuristic and
 * the rules that need the request.  The end-to-end comparison with
 * `oacheck run --replay` is tests/e2e/check.sh's and check-har.sh's. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "cassette.h"
#include "testutil.h"

#define SSE "data: {\"object\":\"chat.completion.chunk\",\"choices\":[]}\n\ndata: [DONE]\n\n"

static void parse(const char *text, size_t len, enum oc_capture_kind kind, struct oc_capture *cap)
{
  char err[600];
  int rc = oc_capture_parse(text, len ? len : strlen(text), "dir/cap.txt", kind, cap, err, sizeof(err));
  ck_assert_msg(rc == OC_OK, "%s", err);
}

static void parse_fails(const char *text, enum oc_capture_kind kind, const char *want)
{
  struct oc_capture cap;
  char err[600] = "";
  int rc = oc_capture_parse(text, strlen(text), "dir/cap.txt", kind, &cap, err, sizeof(err));
  oc_capture_free(&cap);
  ck_assert_msg(rc != OC_OK, "accepted: %s", text);
  ck_assert_msg(strstr(err, want) != NULL, "'%s' does not say '%s'", err, want);
}

START_TEST(kinds_from_the_content)
{
  static const struct {
    const char *text;
    enum oc_capture_kind kind;
  } v[] = {
    { "HTTP/1.1 200 OK\r\n\r\n", OC_CAPTURE_HTTP },
    { "\n  HTTP/2 200\r\n\r\n", OC_CAPTURE_HTTP },
    { SSE, OC_CAPTURE_SSE },
    { ": keep-alive\n\n" SSE, OC_CAPTURE_SSE },
    { "\xEF\xBB\xBF" "data: x\n\n", OC_CAPTURE_SSE },
    { "event: error\ndata: {}\n\n", OC_CAPTURE_SSE },
    { "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\"}", OC_CAPTURE_JSON },
    { "{\"id\":\"chatcmpl-1\",", OC_CAPTURE_JSON }, /* a JSON body cut short is still one */
    { "{\"log\":{\"version\":\"1.2\",\"entries\":[]}}", OC_CAPTURE_HAR },
    { "what x\n--- request GET /v1/models\n--- response\nHTTP/1.1 200 OK\n\n{}", OC_CAPTURE_TEST },
    { "hello", OC_CAPTURE_AUTO },
    { "", OC_CAPTURE_AUTO },
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(v); i++)
    ck_assert_msg(oc_capture_detect(v[i].text, strlen(v[i].text)) == v[i].kind, "case %zu: %s, want %s", i,
                  oc_capture_kind_name(oc_capture_detect(v[i].text, strlen(v[i].text))),
                  oc_capture_kind_name(v[i].kind));
  static const char gz[] = { 0x1f, (char)0x8b, 8, 0 };
  ck_assert_int_eq(oc_capture_detect(gz, 4), OC_CAPTURE_CASSETTE);
  for(int k = OC_CAPTURE_AUTO; k <= OC_CAPTURE_TEST; k++)
    ck_assert_int_eq(oc_capture_kind_parse(oc_capture_kind_name((enum oc_capture_kind)k)), k);
  ck_assert_int_eq(oc_capture_kind_parse("pcap"), -1);
}
END_TEST

/* curl -i output: the last head is the response; 100 Continue and a
 * proxy's "Connection established" come before it */
START_TEST(http_captures)
{
  struct oc_capture cap;
  parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nServer: llama.cpp\r\n"
        "Content-Type: text/event-stream\r\n\r\n" SSE, 0, OC_CAPTURE_AUTO, &cap);
  ck_assert_int_eq(cap.kind, OC_CAPTURE_HTTP);
  ck_assert_int_eq(cap.detected, 1);
  ck_assert_uint_eq(cap.count, 1);
  const struct oc_capture_entry *e = &cap.entries[0];
  ck_assert_str_eq(e->name, "cap.txt");
  ck_assert_int_eq(e->ex.status, 200);
  ck_assert_str_eq(oc_headers_get(&e->ex.headers, "Server"), "llama.cpp");
  ck_assert_str_eq(e->ex.body, SSE);
  ck_assert_int_eq(e->has_http, 1);
  ck_assert_int_eq(e->has_request, 0);
  ck_assert_ptr_null(e->ex.req_body);
  ck_assert_str_eq(e->ex.method, "POST");
  ck_assert_str_eq(e->ex.path, "/v1/chat/completions");
  ck_assert_int_eq(e->partial, 0);
  oc_capture_free(&cap);

  parse("HTTP/1.1 200 Connection established\r\n\r\nHTTP/2 200\r\ncontent-type: application/json\r\n\r\n"
        "{\"object\":\"text_completion\",\"choices\":[]}", 0, OC_CAPTURE_AUTO, &cap);
  ck_assert_int_eq(cap.entries[0].ex.status, 200);
  ck_assert_str_eq(cap.entries[0].ex.http_version, "HTTP/2");
  ck_assert_str_eq(cap.entries[0].ex.path, "/v1/completions");
  oc_capture_free(&cap);

  /* curl --raw kept the chunk framing: de-chunked, the chunks are pieces */
  parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/event-stream\r\n\r\n"
        "e\r\ndata: [DONE]\n\n\r\n0\r\n\r\n", 0, OC_CAPTURE_AUTO, &cap);
  ck_assert_str_eq(cap.entries[0].ex.body, "data: [DONE]\n\n");
  ck_assert_uint_eq(cap.entries[0].ex.npieces, 1);
  ck_assert_ptr_nonnull(strstr(cap.entries[0].note, "chunk framing"));
  oc_capture_free(&cap);
  /* curl's usual output: the header says chunked, the body is not framed */
  parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/event-stream\r\n\r\n" SSE, 0,
        OC_CAPTURE_AUTO, &cap);
  ck_assert_str_eq(cap.entries[0].ex.body, SSE);
  ck_assert_str_eq(cap.entries[0].note, "");
  oc_capture_free(&cap);

  /* a gzip body curl did not decode */
  char *gz = NULL;
  size_t gzlen = 0;
  ck_assert_int_eq(oc_gzip("{\"a\":1}", 7, &gz, &gzlen), OC_OK);
  static const char head[] = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Type: application/json\r\n\r\n";
  char *raw = malloc(sizeof(head) - 1 + gzlen);
  memcpy(raw, head, sizeof(head) - 1);
  memcpy(raw + sizeof(head) - 1, gz, gzlen);
  parse(raw, sizeof(head) - 1 + gzlen, OC_CAPTURE_HTTP, &cap);
  ck_assert_str_eq(cap.entries[0].ex.body, "{\"a\":1}");
  ck_assert_ptr_nonnull(strstr(cap.entries[0].note, "gzip"));
  oc_capture_free(&cap);
  free(raw);
  free(gz);
}
END_TEST

START_TEST(bare_bodies)
{
  struct oc_capture cap;
  parse(SSE, 0, OC_CAPTURE_AUTO, &cap);
  const struct oc_capture_entry *e = &cap.entries[0];
  ck_assert_int_eq(e->has_http, 0);
  ck_assert_int_eq(e->ex.status, 200);
  ck_assert_str_eq(oc_headers_get(&e->ex.headers, "Content-Type"), "text/event-stream");
  ck_assert_str_eq(e->ex.body, SSE);
  oc_capture_free(&cap);
  /* an error body came with an error status */
  parse("{\"error\":{\"message\":\"no\",\"type\":\"invalid_request_error\"}}", 0, OC_CAPTURE_AUTO, &cap);
  ck_assert_int_eq(cap.entries[0].ex.status, 400);
  ck_assert_str_eq(oc_headers_get(&cap.entries[0].ex.headers, "Content-Type"), "application/json");
  ck_assert_ptr_nonnull(strstr(cap.entries[0].note, "status assumed 400"));
  oc_capture_free(&cap);
  parse("{\"object\":\"list\",\"data\":[]}", 0, OC_CAPTURE_AUTO, &cap);
  ck_assert_str_eq(cap.entries[0].ex.method, "GET");
  ck_assert_str_eq(cap.entries[0].ex.path, "/v1/models");
  oc_capture_free(&cap);
}
END_TEST

/* A paste loses the blank line that ends the last event; curl keeps it. */
START_TEST(cut_captures)
{
  char why[200];
  static const char *const whole[] = { SSE, "data: x\r\n\r\n", "data: x\r\r", "" };
  for(size_t i = 0; i < OC_ARRAY_LEN(whole); i++)
    ck_assert_msg(!oc_capture_cut(whole[i], strlen(whole[i]), why, sizeof(why)), "'%s' taken as cut", whole[i]);
  ck_assert(oc_capture_cut("data: x\n\ndata: {\"a\":", 20, why, sizeof(why)));
  ck_assert_str_eq(why, "the capture ends in the middle of a line (byte 20, line starting at byte 9)");
  ck_assert(oc_capture_cut("data: x\n\ndata: [DONE]\n", 22, why, sizeof(why)));
  ck_assert_ptr_nonnull(strstr(why, "without the blank line that ends an event (byte 22)"));

  struct oc_capture cap;
  parse("data: x\n\ndata: {\"a\":", 0, OC_CAPTURE_AUTO, &cap);
  ck_assert_int_eq(cap.entries[0].partial, 1);
  ck_assert_ptr_nonnull(strstr(cap.entries[0].partial_why, "middle of a line"));
  oc_capture_free(&cap);
  /* a JSON body is never a cut stream */
  parse("{\"id\":", 0, OC_CAPTURE_AUTO, &cap);
  ck_assert_int_eq(cap.entries[0].partial, 0);
  oc_capture_free(&cap);
}
END_TEST

#define HAR_ENTRY(method, url, post, ctype, text, extra)                                          \
  "{\"request\":{\"method\":\"" method "\",\"url\":\"" url "\"" post "},"                          \
  "\"response\":{\"status\":200,\"statusText\":\"OK\",\"httpVersion\":\"HTTP/1.1\","              \
  "\"headers\":[{\"name\":\"Content-Type\",\"value\":\"" ctype "\"},{\"name\":\":status\",\"value\":\"200\"}],"  \
  "\"content\":{\"mimeType\":\"" ctype "\",\"text\":\"" text "\"" extra "}}}"

START_TEST(har_entries)
{
  struct oc_capture cap;
  static const char har[] =
    "{\"log\":{\"version\":\"1.2\",\"entries\":["
    HAR_ENTRY("GET", "http://h/", "", "text/html", "<p>", "") ","
    HAR_ENTRY("POST", "http://h:8080/v1/chat/completions?x=1", ",\"postData\":{\"text\":\"{\\\"stream\\\":true}\"}",
              "text/event-stream", "data: [DONE]\\n\\n", "") ","
    HAR_ENTRY("POST", "http://h/v1/completions", "", "application/json", "eyJhIjoxfQ==", ",\"encoding\":\"base64\"") ","
    /* "Привет" in UTF-8, read by the browser as windows-1252 */
    HAR_ENTRY("POST", "http://h/v1/chat/completions", "", "text/event-stream",
              "data: \xc3\x90\xc5\xb8\xc3\x91\xe2\x82\xac\xc3\x90\xc2\xb8\xc3\x90\xc2\xb2\xc3\x90\xc2\xb5\xc3\x91\xe2\x80\x9a\\n\\n", "") ","
    HAR_ENTRY("POST", "http://h/v1/chat/completions", "", "text/event-stream; charset=utf-8",
              "data: caf\xc3\xa9\\n\\n", "")
    "]}}";
  parse(har, 0, OC_CAPTURE_AUTO, &cap);
  ck_assert_int_eq(cap.kind, OC_CAPTURE_HAR);
  ck_assert_uint_eq(cap.count, 4);
  ck_assert_uint_eq(cap.har_skipped, 1);
  const struct oc_capture_entry *e = &cap.entries[0];
  ck_assert_str_eq(e->name, "cap.txt#2");
  ck_assert_int_eq(e->har_index, 2);
  ck_assert_str_eq(e->ex.path, "/v1/chat/completions");
  ck_assert_int_eq(e->has_request, 1);
  ck_assert_str_eq(e->ex.req_body, "{\"stream\":true}");
  ck_assert_int_eq(e->has_http, 1);
  ck_assert_ptr_null(oc_headers_get(&e->ex.headers, ":status"));
  ck_assert_str_eq(e->ex.body, "data: [DONE]\n\n");
  ck_assert_int_eq(e->partial, 0);
  ck_assert_str_eq(cap.entries[1].ex.body, "{\"a\":1}");
  ck_assert_int_eq(cap.entries[1].has_request, 0);
  ck_assert_str_eq(cap.entries[2].ex.body, "data: \xd0\x9f\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82\n\n");
  ck_assert_ptr_nonnull(strstr(cap.entries[2].note, "windows-1252"));
  /* a charset was named: the text is what arrived */
  ck_assert_str_eq(cap.entries[3].ex.body, "data: caf\xc3\xa9\n\n");
  ck_assert_str_eq(cap.entries[3].note, "");
  oc_capture_free(&cap);

  parse_fails("{\"log\":{\"entries\":[" HAR_ENTRY("GET", "http://h/", "", "text/html", "x", "") "]}}",
              OC_CAPTURE_AUTO, "none of its 1 entry is a POST to a chat or legacy completions endpoint");
  parse_fails("{\"log\":{\"entries\":[{\"request\":{}}]}}", OC_CAPTURE_HAR, "log/entries/0: no request.method");
  parse_fails("{\"log\":{\"entries\":[", OC_CAPTURE_HAR, "dir/cap.txt:1:");
  parse_fails("{\"x\":1}", OC_CAPTURE_HAR, "no log.entries array");
}
END_TEST

START_TEST(errors_name_file_and_byte)
{
  parse_fails("hello\n", OC_CAPTURE_AUTO, "dir/cap.txt: byte 0: cannot tell what this is ('hello')");
  parse_fails("HTTP/1.1 200 OK\r\nbad\r\n\r\n", OC_CAPTURE_AUTO, "dir/cap.txt: byte 17: header line without a colon");
  parse_fails(SSE, OC_CAPTURE_HTTP, "dir/cap.txt: byte 0: expected a status line");
  parse_fails("\x1f\x8b junk", OC_CAPTURE_AUTO, "dir/cap.txt");
}
END_TEST

START_TEST(request_rules)
{
  struct oc_ruleset rs;
  oc_capture_request_rules(&rs);
  ck_assert(oc_ruleset_has(&rs, OC_R_USAGE_UNREQUESTED));
  ck_assert(oc_ruleset_has(&rs, OC_R_TOOL_CHOICE_HONOURED));
  ck_assert(oc_ruleset_has(&rs, OC_R_JSON_OBJECT_OUTPUT));
  /* what the response alone decides stays judged */
  ck_assert(!oc_ruleset_has(&rs, OC_R_STREAM_DONE));
  ck_assert(!oc_ruleset_has(&rs, OC_R_STREAM_CHUNK_SCHEMA));
  ck_assert(!oc_ruleset_has(&rs, OC_R_TOOL_DELTA_INDEX));
}
END_TEST

int main(void)
{
  Suite *s = suite_create("capture");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, kinds_from_the_content);
  tcase_add_test(tc, http_captures);
  tcase_add_test(tc, bare_bodies);
  tcase_add_test(tc, cut_captures);
  tcase_add_test(tc, har_entries);
  tcase_add_test(tc, errors_name_file_and_byte);
  tcase_add_test(tc, request_rules);
  suite_add_tcase(s, tc);
  return oc_test_run(s);
}
