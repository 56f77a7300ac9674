/* check_rulefiles.c — the driver of the rule test files: every
 * tests/rules/RULE/NAME.test (format: tests/rules/README.md) is read by
 * src/rulefile.c, its exchange is pushed through the response decoder the
 * way `oacheck run --replay` pushes a cassette (or, for a file with a
 * "case" line, through that suite case's expectations), and the findings
 * must be exactly the ones the file lists: rule, severity, chunk, byte and
 * JSON pointer, with only the "related" rules firing besides.  Which rules
 * have files at all is check_rules.c's question; the format's own corner
 * cases are tested here on files written in the test. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "rulefile.h"
#include "rulesutil.h"

static char **files;
static size_t nfiles;

/* The directory a rule file sits in: its rule, or NULL. */
static const struct oc_rule *dir_rule(const char *path)
{
  const char *slash = strrchr(path, '/');
  if(!slash || slash == path)
    return NULL;
  const char *start = slash - 1;
  while(start > path && start[-1] != '/')
    start--;
  char id[64];
  size_t n = (size_t)(slash - start);
  if(n >= sizeof(id))
    return NULL;
  memcpy(id, start, n);
  id[n] = '\0';
  return oc_rule_find(id);
}

/* The exchange of rf as rt_expect wants it (headers as text lines). */
static char *headers_text(const struct oc_headers *h)
{
  struct oc_buf b;
  oc_buf_init(&b, 1u << 20);
  for(size_t i = 0; i < h->count; i++)
    oc_buf_printf(&b, "%s: %s\n", h->items[i].name, h->items[i].value);
  char *s = oc_buf_take(&b, NULL);
  ck_assert_ptr_nonnull(s);
  return s;
}

/* Findings of one rule file: generic rules as a replay runs them, or a
 * suite case's expectations on top when the file has a "case" line. */
static void run_file(const struct oc_rulefile *rf, struct oc_findings *f)
{
  const struct oc_cassette *c = &rf->ex;
  if(rf->expect_case) {
    ck_assert_msg(!rf->partial, "%s: 'partial' and 'case' together are not supported", rf->file);
    char *ht = headers_text(&c->headers);
    struct rt_ex x = { c->method, c->path, c->req_body, c->status, ht, c->body, c->body_len,
                       NULL, 0, c->timing_recorded ? (double)c->headers_ns / 1e6 : 0 };
    enum oc_expect_outcome o = rt_expect(rf->expect_case, &x, rf->profile->name, f);
    ck_assert_int_eq(o, OC_EXPECT_CHECKED);
    free(ht);
    return;
  }
  struct oc_check ck;
  rt_policy(&ck, f, rf->profile->name, rf->partial);
  cJSON *req = c->req_body ? oc_json_parse(c->req_body, c->req_body_len, NULL) : NULL;
  struct oc_request_info info;
  oc_request_info_init(&info, c->method, c->path, req);
  struct oc_response r;
  uint64_t t0 = c->timing_recorded ? 1000000 : 0, t_end = 0;
  oc_response_init(&r, &info, &ck, &rt_schemas, t0, c->timing_recorded, 0);
  ck_assert_int_eq(oc_response_replay(&r, c, t0, &t_end), OC_OK);
  oc_response_finish(&r, t_end, c->complete);
  oc_response_free(&r);
  cJSON_Delete(req);
  ck_assert_int_eq(ck.oom, 0);
}

START_TEST(rule_file_holds)
{
  const char *path = files[_i];
  struct oc_rulefile rf;
  char err[1024];
  ck_assert_msg(oc_rulefile_read(path, &rf, err, sizeof(err)) == OC_OK, "%s", err);
  const struct oc_rule *rule = dir_rule(path);
  ck_assert_msg(rule != NULL, "%s: its directory does not name a rule of the catalogue", path);
  if(rf.nfindings) {
    /* a breaking case breaks its own rule, at the default severity under
     * the spec's profile */
    const struct oc_rulefile_finding *own = NULL;
    for(size_t i = 0; i < rf.nfindings && !own; i++)
      if(rf.findings[i].rule == rule->rid)
        own = &rf.findings[i];
    ck_assert_msg(own != NULL, "%s: lists no finding of %s, whose directory it is in", path, rule->id);
    if(rf.profile == oc_profile_default())
      ck_assert_msg(own->severity == rule->severity, "%s:%d: %s is listed as %s, its default is %s",
                    path, own->line, rule->id, oc_severity_name(own->severity),
                    oc_severity_name(rule->severity));
  }
  struct oc_findings f;
  run_file(&rf, &f);
  struct oc_buf why;
  oc_buf_init(&why, 1u << 20);
  size_t bad = oc_rulefile_compare(&rf, &f, &why);
  if(bad)
    rt_dump(path, &f);
  ck_assert_msg(bad == 0, "%s (%s): %zu disagreement%s:\n%s", path, rf.what ? rf.what : "",
                bad, bad == 1 ? "" : "s", oc_buf_str(&why));
  oc_buf_free(&why);
  oc_findings_free(&f);
  oc_rulefile_free(&rf);
}
END_TEST

/* ---- the format ------------------------------------------------------------------ */

#define SSE_HEAD "HTTP/1.1 200 OK\nContent-Type: text/event-stream\n\n"
#define REQ_SSE "--- request POST /v1/chat/completions\n{\"model\":\"m\",\"stream\":true}\n"

static void parse_ok(const char *text, struct oc_rulefile *rf)
{
  char err[512];
  int rc = oc_rulefile_parse(text, strlen(text), "t.test", rf, err, sizeof(err));
  ck_assert_msg(rc == OC_OK, "%s", err);
}

static void parse_fails(const char *text, const char *want)
{
  struct oc_rulefile rf;
  char err[512] = "";
  int rc = oc_rulefile_parse(text, strlen(text), "t.test", &rf, err, sizeof(err));
  ck_assert_msg(rc != OC_OK, "accepted: %s", text);
  ck_assert_msg(strstr(err, want) != NULL, "error '%s' does not say '%s'", err, want);
}

/* The sections hold bytes as they are, but for \x{..} and a backslash
 * ending a line; the request body loses its last newline, the response
 * keeps everything up to the end of the file. */
START_TEST(sections_hold_exact_bytes)
{
  struct oc_rulefile rf;
  parse_ok("what w\n" REQ_SSE "--- response\n" SSE_HEAD
           "data: {\"a\":\"\\n\\u00e9\"}\n\ndata: caf\\x{c3 a9} \\x{ff}\\x{61*3}\n\ndata: [DONE]\n\n",
           &rf);
  ck_assert_str_eq(rf.what, "w");
  ck_assert_str_eq(rf.ex.method, "POST");
  ck_assert_str_eq(rf.ex.path, "/v1/chat/completions");
  ck_assert_str_eq(rf.ex.req_body, "{\"model\":\"m\",\"stream\":true}");
  ck_assert_int_eq(rf.ex.status, 200);
  ck_assert_str_eq(oc_headers_get(&rf.ex.headers, "Content-Type"), "text/event-stream");
  static const char want[] = "data: {\"a\":\"\\n\\u00e9\"}\n\ndata: caf\xc3\xa9 \xff" "aaa\n\ndata: [DONE]\n\n";
  ck_assert_uint_eq(rf.ex.body_len, sizeof(want) - 1);
  ck_assert(memcmp(rf.ex.body, want, sizeof(want) - 1) == 0);
  ck_assert_int_eq(rf.ex.timing_recorded, 0);
  ck_assert_uint_eq(rf.nfindings, 0);
  oc_rulefile_free(&rf);

  /* a cut body: the last line ends in a backslash */
  parse_ok(REQ_SSE "--- response\n" SSE_HEAD "data: {\"id\":\\\n", &rf);
  ck_assert_uint_eq(rf.ex.body_len, strlen("data: {\"id\":"));
  ck_assert(memcmp(rf.ex.body, "data: {\"id\":", rf.ex.body_len) == 0);
  oc_rulefile_free(&rf);

  /* CRLF in the head is accepted; in the body a CR is a byte like any other */
  parse_ok(REQ_SSE "--- response\nHTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
           "data: x\\x{0d 0a 0d 0a}", &rf);
  ck_assert_uint_eq(rf.ex.body_len, 11);
  ck_assert(memcmp(rf.ex.body, "data: x\r\n\r\n", 11) == 0);
  oc_rulefile_free(&rf);

  /* a GET without a body, timing, profile, partial */
  parse_ok("profile vllm\npartial yes\ntiming 250\n--- request GET /v1/models\n--- response\n"
           "HTTP/1.1 200 OK\n\n{}\\\n", &rf);
  ck_assert_ptr_null(rf.ex.req_body);
  ck_assert_str_eq(rf.profile->name, "vllm");
  ck_assert_int_eq(rf.partial, 1);
  ck_assert_int_eq(rf.ex.timing_recorded, 1);
  ck_assert_uint_eq(rf.ex.headers_ns, 250000000u);
  ck_assert_uint_eq(rf.ex.npieces, 1);
  ck_assert_uint_eq(rf.ex.pieces[0].end, 2);
  oc_rulefile_free(&rf);
}
END_TEST

START_TEST(finding_lines)
{
  struct oc_rulefile rf;
  parse_ok("finding STREAM-CHUNK-SCHEMA error chunk 2 byte 140 path /choices/0/logprobs\n"
           "finding CHAT-SCHEMA warning byte 0 path \"\"\n"
           "finding STREAM-DONE error\n"
           "related STREAM-AFTER-DONE STREAM-TRUNCATED\n" REQ_SSE "--- response\n" SSE_HEAD, &rf);
  ck_assert_uint_eq(rf.nfindings, 3);
  ck_assert_int_eq(rf.findings[0].rule, OC_R_STREAM_CHUNK_SCHEMA);
  ck_assert_int_eq(rf.findings[0].severity, OC_SEV_ERROR);
  ck_assert_int_eq(rf.findings[0].chunk, 2);
  ck_assert_int_eq(rf.findings[0].byte, 140);
  ck_assert_str_eq(rf.findings[0].path, "/choices/0/logprobs");
  ck_assert_int_eq(rf.findings[0].line, 1);
  ck_assert_str_eq(rf.findings[1].path, "");
  ck_assert_int_eq(rf.findings[1].severity, OC_SEV_WARNING);
  ck_assert_int_eq(rf.findings[2].chunk, -1);
  ck_assert_int_eq(rf.findings[2].byte, -1);
  ck_assert_ptr_null(rf.findings[2].path);
  ck_assert(oc_ruleset_has(&rf.related, OC_R_STREAM_AFTER_DONE));
  ck_assert(oc_ruleset_has(&rf.listed, OC_R_STREAM_DONE));
  ck_assert(!oc_ruleset_has(&rf.listed, OC_R_STREAM_AFTER_DONE));

  /* the comparison: exact on listed rules, anything on related ones */
  struct oc_findings f;
  struct oc_check c;
  rt_policy(&c, &f, "openai", 0);
  oc_emit(&c, OC_R_STREAM_CHUNK_SCHEMA, OC_AT(.chunk = 2, .byte = 140, .path = "/choices/0/logprobs"), "m");
  oc_emit(&c, OC_R_CHAT_SCHEMA, OC_AT(.byte = 0, .path = "", .severity = OC_SEV_WARNING), "m");
  oc_emit(&c, OC_R_STREAM_DONE, OC_AT(), "m");
  oc_emit(&c, OC_R_STREAM_AFTER_DONE, OC_AT(.chunk = 9), "m");
  struct oc_buf why;
  oc_buf_init(&why, 1u << 16);
  ck_assert_msg(oc_rulefile_compare(&rf, &f, &why) == 0, "%s", oc_buf_str(&why));
  /* one more of a listed rule, a byte off, an unrelated rule: each is said */
  oc_emit(&c, OC_R_STREAM_DONE, OC_AT(.byte = 3), "m");
  oc_emit(&c, OC_R_SSE_UTF8, OC_AT(), "m");
  ck_assert_uint_eq(oc_rulefile_compare(&rf, &f, &why), 2);
  ck_assert_ptr_nonnull(strstr(oc_buf_str(&why), "fired, not expected: STREAM-DONE error byte 3"));
  ck_assert_ptr_nonnull(strstr(oc_buf_str(&why), "fired, not expected: SSE-UTF8"));
  oc_findings_free(&f);
  /* nothing fired: every line is missing */
  rt_policy(&c, &f, "openai", 0);
  oc_buf_reset(&why);
  ck_assert_uint_eq(oc_rulefile_compare(&rf, &f, &why), 3);
  ck_assert_ptr_nonnull(strstr(oc_buf_str(&why), "line 3: expected, did not fire: STREAM-DONE error"));
  oc_findings_free(&f);
  oc_buf_free(&why);
  oc_rulefile_free(&rf);
}
END_TEST

/* "breaks": CLIENT-BREAKS findings name exactly the clients listed,
 * whatever their severity; without it none may fire. */
START_TEST(breaks_lines)
{
  struct oc_rulefile rf;
  parse_ok("finding STREAM-DONE error\nbreaks openai-node-stream  ai-sdk\n" REQ_SSE "--- response\n" SSE_HEAD, &rf);
  ck_assert(rf.breaks_given);
  ck_assert_uint_eq(rf.breaks, (1u << OC_CLIENT_OPENAI_NODE_STREAM) | (1u << OC_CLIENT_AI_SDK));
  struct oc_findings f;
  struct oc_check c;
  rt_policy(&c, &f, "openai", 0);
  oc_emit(&c, OC_R_STREAM_DONE, OC_AT(), "m");
  oc_emit(&c, OC_R_CLIENT_BREAKS, OC_AT(), "m");
  f.items[f.count - 1].clients = 1u << OC_CLIENT_AI_SDK;
  struct oc_buf why;
  oc_buf_init(&why, 1u << 16);
  ck_assert_uint_eq(oc_rulefile_compare(&rf, &f, &why), 1);
  ck_assert_ptr_nonnull(strstr(oc_buf_str(&why), "openai-node-stream: expected to break, does not"));
  oc_emit(&c, OC_R_CLIENT_BREAKS, OC_AT(.severity = OC_SEV_INFO), "m");
  f.items[f.count - 1].clients = 1u << OC_CLIENT_OPENAI_NODE_STREAM;
  oc_buf_reset(&why);
  ck_assert_msg(oc_rulefile_compare(&rf, &f, &why) == 0, "%s", oc_buf_str(&why));
  oc_emit(&c, OC_R_CLIENT_BREAKS, OC_AT(), "m");
  f.items[f.count - 1].clients = 1u << OC_CLIENT_LANGCHAIN;
  oc_buf_reset(&why);
  ck_assert_uint_eq(oc_rulefile_compare(&rf, &f, &why), 1);
  ck_assert_ptr_nonnull(strstr(oc_buf_str(&why), "langchain: breaks, not expected"));
  oc_findings_free(&f);
  oc_rulefile_free(&rf);
  /* without "breaks", a client break is a finding like any other */
  parse_ok("finding STREAM-DONE error\n" REQ_SSE "--- response\n" SSE_HEAD, &rf);
  rt_policy(&c, &f, "openai", 0);
  oc_emit(&c, OC_R_STREAM_DONE, OC_AT(), "m");
  oc_emit(&c, OC_R_CLIENT_BREAKS, OC_AT(), "m");
  oc_buf_reset(&why);
  ck_assert_uint_eq(oc_rulefile_compare(&rf, &f, &why), 1);
  ck_assert_ptr_nonnull(strstr(oc_buf_str(&why), "fired, not expected: CLIENT-BREAKS"));
  oc_findings_free(&f);
  oc_buf_free(&why);
  oc_rulefile_free(&rf);
}
END_TEST

/* Mistakes name the file and the line. */
START_TEST(errors_name_the_line)
{
  parse_fails("what x\nfinding STREAM-DOEN error\n" REQ_SSE "--- response\n" SSE_HEAD,
              "t.test:2: 'finding STREAM-DOEN error': not a rule");
  parse_fails("finding STREAM-DONE fatal\n" REQ_SSE "--- response\n" SSE_HEAD, "t.test:1: finding: the severity");
  parse_fails("finding STREAM-DONE error chunk x\n" REQ_SSE "--- response\n" SSE_HEAD,
              "t.test:1: finding: 'x' is not a chunk");
  parse_fails("finding STREAM-DONE error line 3\n" REQ_SSE "--- response\n" SSE_HEAD,
              "expected chunk N, byte N or path POINTER");
  parse_fails("related STREAM-DONE\n" REQ_SSE "--- response\n" SSE_HEAD, "'related' without any 'finding'");
  parse_fails("breaks openai-go\nfinding STREAM-DONE error\n" REQ_SSE "--- response\n" SSE_HEAD,
              "t.test:1: breaks: 'openai-go' is not a client model");
  parse_fails("breaks ai-sdk\n" REQ_SSE "--- response\n" SSE_HEAD, "'breaks' without any 'finding'");
  parse_fails("profile gpt\n" REQ_SSE "--- response\n" SSE_HEAD, "t.test:1: profile: 'gpt'");
  parse_fails("colour blue\n" REQ_SSE "--- response\n" SSE_HEAD, "t.test:1: unknown directive 'colour blue'");
  parse_fails("what x\n", "no '--- response' line");
  parse_fails("--- response\n" SSE_HEAD, "no '--- request METHOD PATH' section");
  parse_fails("--- request POST\n--- response\n" SSE_HEAD, "t.test:1: '--- request' wants a method and a path");
  parse_fails(REQ_SSE "--- responses\n", "t.test:3: '--- responses'");
  parse_fails(REQ_SSE "--- response\n" SSE_HEAD "data: \\x{zz}\n", "t.test:7: '\\x{zz}'");
  parse_fails(REQ_SSE "--- response\n" SSE_HEAD "data: \\x{61\n}", "without its closing '}'");
  parse_fails(REQ_SSE "--- response\nHTTP/1.1 200 OK\nno colon here\n\n", "t.test:4: the response: byte 16");
}
END_TEST

START_TEST(sniffing)
{
  static const char yes[] = "# a comment\nwhat x\n" REQ_SSE "--- response\n" SSE_HEAD;
  ck_assert(oc_rulefile_sniff(yes, strlen(yes)));
  static const char sse[] = "data: {}\n\ndata: [DONE]\n\n";
  ck_assert(!oc_rulefile_sniff(sse, strlen(sse)));
  static const char http[] = SSE_HEAD "data: x\n\n--- response\n";
  ck_assert(!oc_rulefile_sniff(http, strlen(http)));
}
END_TEST

int main(void)
{
  rt_setup();
  const char *src = getenv("OACHECK_SRCDIR");
  char *dir = oc_path_join(src && *src ? src : ".", "tests/rules");
  char err[600];
  if(!dir || oc_rulefile_list(dir, &files, &nfiles, err, sizeof(err)) || nfiles == 0) {
    fprintf(stderr, "no rule test files: %s\n", dir ? err : "out of memory");
    return 99;
  }
  free(dir);
  Suite *s = suite_create("rulefiles");
  TCase *tc = tcase_create("files");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, rule_file_holds, 0, (int)nfiles);
  suite_add_tcase(s, tc);
  TCase *fm = tcase_create("format");
  tcase_add_test(fm, sections_hold_exact_bytes);
  tcase_add_test(fm, finding_lines);
  tcase_add_test(fm, breaks_lines);
  tcase_add_test(fm, errors_name_the_line);
  tcase_add_test(fm, sniffing);
  suite_add_tcase(s, fm);
  int rc = oc_test_run(s);
  for(size_t i = 0; i < nfiles; i++)
    free(files[i]);
  free(files);
  rt_teardown();
  return rc;
}
