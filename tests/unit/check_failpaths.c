/* check_failpaths.c — the builders of what a run writes down (a case's
 * result: response, events, rebuilt message, timing, findings, reproduce
 * commands; a cassette; a results document's summary) under the
 * allocation-failure shim (tests/torture/shim.h): every allocation they
 * make fails in turn, and each time the builder must hand back nothing
 * (NULL, an error) or exactly what it builds with memory to spare — never
 * an object with a field, an event or a piece of a command missing — and
 * leave no block behind.  The decoder itself is tests/torture/'s. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cassette.h"
#include "json.h"
#include "report.h"
#include "response.h"
#include "result.h"
#include "results_json.h"
#include "rules.h"
#include "shim.h"
#include "testutil.h"

static struct oc_schemas schemas;

static const char request[] =
  "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"it's \\\"quoted\\\"\"}]}";
/* two content chunks and a finish, no [DONE]: STREAM-DONE fires */
static const char stream[] =
  "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
  "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"},\"finish_reason\":null}]}\n\n"
  "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
  "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":null}]}\n\n"
  "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
  "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n";

/* One way of building something: returns the text it built (caller
 * frees) or NULL when it reported a failure. */
typedef char *(*builder)(void *ctx);

/* Fail every allocation of b in turn.  Returns the number of points. */
static long every_failure(const char *what, builder b, void *ctx)
{
  torture_arm(0);
  char *want = b(ctx);
  torture_disarm();
  ck_assert_msg(want != NULL, "%s: the reference build failed", what);
  /* the text itself is the one block left, and the caller's */
  ck_assert_msg(torture_live() == 1, "%s: the reference build left %ld blocks", what, torture_live() - 1);
  long points = torture_count();
  for(long n = 1; n <= points; n++) {
    torture_arm(n);
    char *got = b(ctx);
    torture_disarm();
    ck_assert_msg(torture_failed(), "%s: allocation %ld was never reached", what, n);
    long live = torture_live() - (got ? 1 : 0); /* the text itself is the caller's */
    ck_assert_msg(live == 0, "%s: with allocation %ld failed, %ld blocks were left", what, n, live);
    if(got && strcmp(got, want) != 0)
      fprintf(stderr, "--- %s, built whole\n%s\n--- with allocation %ld failed\n%s\n", what, want, n, got);
    ck_assert_msg(!got || strcmp(got, want) == 0,
                  "%s: with allocation %ld failed the build succeeded with other contents (both "
                  "printed above)", what, n);
    free(got);
  }
  free(want);
  return points;
}

/* ---- a case's result, as the runner builds it ------------------------------ */

struct result_ctx {
  struct oc_response resp;
  struct oc_case_outcome o;
};

static char *build_result(void *p)
{
  struct result_ctx *x = p;
  cJSON *message = NULL, *timing = NULL;
  /* the runner: no response object means the case cannot be told */
  cJSON *response = oc_response_json(&x->resp, &message, &timing);
  if(!response)
    return NULL;
  struct oc_case_outcome o = x->o;
  o.response = response;
  o.message = message;
  o.timing = timing;
  int oom = 0;
  o.retries = cJSON_CreateArray();
  cJSON *retry = oc_json_put(&oom, o.retries, NULL, cJSON_CreateObject());
  oc_json_put(&oom, retry, "attempt", cJSON_CreateNumber(1));
  oc_json_put(&oom, retry, "status", cJSON_CreateNumber(429));
  cJSON *res = oom ? NULL : oc_result_json(&o);
  cJSON_Delete(o.response);
  cJSON_Delete(o.retries);
  cJSON_Delete(message);
  cJSON_Delete(timing);
  char *text = res ? oc_json_print(res) : NULL;
  cJSON_Delete(res);
  return text;
}

START_TEST(result_whole_or_nothing)
{
  struct result_ctx x;
  memset(&x, 0, sizeof(x));
  cJSON *req = oc_json_parse(request, strlen(request), NULL);
  ck_assert_ptr_nonnull(req);
  struct oc_request_info info;
  oc_request_info_init(&info, "POST", "/v1/chat/completions", req);
  struct oc_findings f;
  oc_findings_init(&f);
  struct oc_check c;
  oc_check_init(&c, &f, oc_profile_find("openai"));
  oc_response_init(&x.resp, &info, &c, &schemas, 1000000, 1, 1);
  struct oc_headers h;
  oc_headers_init(&h);
  ck_assert_int_eq(oc_headers_add(&h, "Content-Type", "text/event-stream"), OC_OK);
  ck_assert_int_eq(oc_response_head(&x.resp, 200, &h, 2000000), OC_OK);
  size_t half = strlen(stream) / 2;
  ck_assert_int_eq(oc_response_body(&x.resp, stream, half, 3000000), OC_OK);
  ck_assert_int_eq(oc_response_body(&x.resp, stream + half, strlen(stream) - half, 9000000), OC_OK);
  oc_response_finish(&x.resp, 9500000, 1);
  ck_assert_uint_gt(f.count, 0);

  struct oc_target t;
  oc_target_init(&t);
  t.name = oc_strdup("replayed");
  t.recordings = oc_strdup("suites/recordings/llama-server");
  t.profile = oc_profile_find("openai");
  t.profile_source = "option";
  const char *tags[] = { "stream", "basic" };
  struct oc_case k;
  memset(&k, 0, sizeof(k));
  k.suite = "streaming";
  k.name = "it's a case";
  k.description = "a streamed answer";
  k.tags = tags;
  k.ntags = 2;
  struct oc_built_request rq;
  memset(&rq, 0, sizeof(rq));
  rq.method = oc_strdup("POST");
  rq.path = oc_strdup("/v1/chat/completions");
  oc_headers_init(&rq.headers);
  ck_assert_int_eq(oc_headers_add(&rq.headers, "X-Trace", "a b"), OC_OK);
  ck_assert_int_eq(oc_headers_add(&rq.headers, "Authorization", "Bearer sk-never"), OC_OK);
  rq.body = oc_strdup(request);
  rq.body_len = strlen(request);
  rq.body_json = req;
  x.o.target = &t;
  x.o.kase = &k;
  x.o.end = OC_END_RAN;
  x.o.request = &rq;
  x.o.findings = &f;
  x.o.duration_ms = 12.5;
  x.o.source = "chat-stream";

  long points = every_failure("a case's result", build_result, &x);
  ck_assert_int_gt(points, 50);
  fprintf(stderr, "a case's result: %ld allocation points failed one at a time\n", points);

  /* and what it builds says what it should: the key never, the whole
   * reproduce commands */
  char *text = build_result(&x);
  ck_assert_ptr_nonnull(text);
  ck_assert_ptr_null(strstr(text, "sk-never"));
  ck_assert_ptr_nonnull(strstr(text, "--data-binary '{\\\"model\\\""));
  ck_assert_ptr_nonnull(strstr(text, "--filter 'streaming/it'\\\\''s a case'"));
  free(text);

  rq.body_json = NULL;
  oc_built_request_free(&rq);
  oc_target_free(&t);
  oc_headers_free(&h);
  oc_response_free(&x.resp);
  oc_findings_free(&f);
  cJSON_Delete(req);
}
END_TEST

/* ---- a cassette, encoded and read back -------------------------------------- */

static char *build_cassette(void *p)
{
  const struct oc_cassette *c = p;
  char *gz = NULL, err[256];
  size_t len = 0;
  if(oc_cassette_encode(c, &gz, &len, err, sizeof(err)))
    return NULL;
  struct oc_cassette back;
  int rc = oc_cassette_decode(gz, len, "test", &back, err, sizeof(err));
  free(gz);
  if(rc)
    return NULL;
  char *text = oc_asprintf("%s %s %s %s key=%s status=%d reason=%s body=%zu:%s pieces=%zu source=%s "
                           "note=%s headers=%zu",
                           back.name, back.method, back.path, back.req_body ? back.req_body : "-",
                           back.key, back.status, back.reason ? back.reason : "-", back.body_len,
                           back.body, back.npieces, back.source ? back.source : "-",
                           back.note ? back.note : "-", back.headers.count);
  oc_cassette_free(&back);
  return text;
}

START_TEST(cassette_whole_or_nothing)
{
  struct oc_cassette c;
  oc_cassette_init(&c);
  c.name = oc_strdup("chat-stream");
  c.method = oc_strdup("POST");
  c.path = oc_strdup("/v1/chat/completions");
  c.req_body = oc_strdup(request);
  c.req_body_len = strlen(request);
  c.status = 200;
  c.reason = oc_strdup("OK");
  ck_assert_int_eq(oc_headers_add(&c.headers, "Content-Type", "text/event-stream"), OC_OK);
  ck_assert_int_eq(oc_cassette_add_piece(&c, stream, 100, 0), OC_OK);
  ck_assert_int_eq(oc_cassette_add_piece(&c, stream + 100, strlen(stream) - 100, 0), OC_OK);
  c.source = oc_strdup("a test");
  c.note = oc_strdup("made in check_failpaths");
  ck_assert_int_eq(oc_cassette_update_key(&c), OC_OK);
  long points = every_failure("a cassette", build_cassette, &c);
  fprintf(stderr, "a cassette: %ld allocation points failed one at a time\n", points);
  oc_cassette_free(&c);
}
END_TEST

/* ---- a results document's summary -------------------------------------------- */

static char *build_summary(void *p)
{
  const cJSON *doc = p;
  cJSON *copy = cJSON_Duplicate(doc, 1);
  if(!copy)
    return NULL;
  char *text = oc_results_summarize(copy) ? NULL : oc_json_print(copy);
  cJSON_Delete(copy);
  return text;
}

START_TEST(summary_whole_or_nothing)
{
  char *path = oc_test_src("tests/data/results/two-targets.json");
  char err[512];
  cJSON *doc = oc_results_load(path, err, sizeof(err));
  ck_assert_msg(doc != NULL, "%s", err);
  long points = every_failure("a results summary", build_summary, doc);
  fprintf(stderr, "a results summary: %ld allocation points failed one at a time\n", points);
  cJSON_Delete(doc);
  free(path);
}
END_TEST

int main(void)
{
  torture_init();
  const char *src = getenv("OACHECK_SRCDIR");
  if(src && *src)
    setenv("OACHECK_DATADIR", src, 1);
  char err[1024];
  if(oc_schemas_load(&schemas, err, sizeof(err))) {
    fprintf(stderr, "cannot load the shipped schemas: %s\n", err);
    return 99;
  }
  Suite *s = suite_create("failpaths");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, result_whole_or_nothing);
  tcase_add_test(tc, cassette_whole_or_nothing);
  tcase_add_test(tc, summary_whole_or_nothing);
  suite_add_tcase(s, tc);
  int rc = oc_test_run(s);
  oc_schemas_free(&schemas);
  return rc;
}
