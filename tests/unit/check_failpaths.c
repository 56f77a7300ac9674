/* check_failpaths.c — the builders of what a run writes down (a case's
 * result: response, events, rebuilt message, timing, findings, reproduce
 * commands; a cassette; a results document's summary), the schema
 * validator's verdicts and the suite loader under the
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
#include "jdoc.h"
#include "json.h"
#include "report.h"
#include "response.h"
#include "result.h"
#include "results_json.h"
#include "rules.h"
#include "schema.h"
#include "shim.h"
#include "suite.h"
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

/* ---- a schema's verdict ------------------------------------------------------ */

/* A verdict is the validator's to compute: with an allocation failed it
 * must say out of memory (-OC_ENOMEM), never hand back a verdict, an
 * "undecided" reason or a list of errors it did not finish. */
struct verdict_ctx {
  const struct oc_schema *s;
  const struct oc_jv *instance;
};

static char *build_verdict(void *p)
{
  const struct verdict_ctx *x = p;
  struct oc_schema_result res;
  oc_schema_result_init(&res);
  res.max = 8;
  int fast = oc_schema_validate(x->s, x->instance, NULL);
  int full = oc_schema_validate(x->s, x->instance, &res);
  char *text = NULL;
  if(fast != -OC_ENOMEM && full != -OC_ENOMEM) {
    struct oc_buf b;
    oc_buf_init(&b, 1u << 20);
    oc_buf_printf(&b, "fast %d full %d undecided %s dropped %zu\n", fast, full,
                  res.undecided ? res.undecided : "-", res.dropped);
    for(size_t i = 0; i < res.count; i++)
      oc_buf_printf(&b, "%s %s %s %s @%zu\n", res.errors[i].instance_path, res.errors[i].schema_path,
                    res.errors[i].keyword, res.errors[i].message, res.errors[i].offset);
    text = oc_buf_take(&b, NULL);
  }
  oc_schema_result_free(&res);
  return text;
}

static void verdict_whole_or_nothing(const char *what, const char *schema, const char *instance)
{
  struct oc_jdoc sd, id;
  struct oc_jerr je;
  oc_jdoc_init(&sd);
  oc_jdoc_init(&id);
  ck_assert(oc_jdoc_parse(&sd, schema, strlen(schema), &je) == 0);
  ck_assert(oc_jdoc_parse(&id, instance, strlen(instance), &je) == 0);
  char err[512];
  struct oc_schema_registry *reg = oc_schema_registry_new();
  ck_assert_ptr_nonnull(reg);
  struct oc_schema *s = oc_schema_compile_jv(reg, sd.root, NULL, 0, err, sizeof(err));
  ck_assert_msg(s != NULL, "%s: %s", what, err);
  struct verdict_ctx x = { s, id.root };
  long points = every_failure(what, build_verdict, &x);
  fprintf(stderr, "%s: %ld allocation points failed one at a time\n", what, points);
  oc_schema_free(s);
  oc_schema_registry_free(reg);
  oc_jdoc_free(&sd);
  oc_jdoc_free(&id);
}

START_TEST(verdict_undecided_recursion)
{
  /* the fast pass is undecided; the reporting pass learns why and records
   * what the anyOf saw: a failure there must not shorten either */
  verdict_whole_or_nothing("an anyOf of self-references", "{\"anyOf\":[{\"$ref\":\"#\"},{\"$ref\":\"#\"}]}",
                           "[[[[1]]]]");
}
END_TEST

START_TEST(verdict_undecided_regex)
{
  /* a pattern out of its match budget under "not": undecided, with the
   * pattern named — a failure must not turn it into the generic reason */
  verdict_whole_or_nothing("a regex out of its budget", "{\"not\":{\"pattern\":\"(a|a)+!x|a\"}}",
                           "\"aaaaaaaaaaaaaaaaaaaaaaaaaa!\"");
}
END_TEST

START_TEST(verdict_invalid)
{
  verdict_whole_or_nothing("an invalid object",
                           "{\"type\":\"object\",\"required\":[\"a\",\"z\"],\"properties\":{\"a\":"
                           "{\"type\":\"integer\"},\"b\":{\"pattern\":\"^x\"},\"c\":{\"items\":"
                           "{\"minimum\":3}}},\"additionalProperties\":false}",
                           "{\"a\":\"1\",\"b\":\"y\",\"c\":[1,5,2],\"d\":null}");
}
END_TEST

/* A schema compiled, then the verdict: compiling either says out of
 * memory or compiles as with memory to spare — a reference it could not
 * follow for want of memory is not an unresolved reference. */
struct compile_ctx {
  const cJSON *schema;
  const struct oc_jv *instance;
};

static char *build_compiled(void *p)
{
  const struct compile_ctx *x = p;
  char err[512] = "";
  struct oc_schema *s = NULL;
  struct oc_schema_registry *reg = oc_schema_registry_new();
  if(!reg)
    return NULL;
  int rc = oc_schema_compile_rc(reg, x->schema, "https://oacheck.test/s.json", 0, &s, err, sizeof(err));
  char *text = NULL;
  if(rc == OC_OK) {
    struct verdict_ctx v = { s, x->instance };
    text = build_verdict(&v);
  }
  else if(rc != OC_ENOMEM)
    text = oc_asprintf("compile %d: %s\n", rc, err);
  oc_schema_free(s);
  oc_schema_registry_free(reg);
  return text;
}

START_TEST(compile_refs_or_enomem)
{
  static const char *schemas_text[] = {
    /* a JSON pointer through $defs, a token with escapes, a dynamic reference */
    "{\"$defs\":{\"d\":{\"type\":\"integer\"},\"a/b~c\":{\"minimum\":2}},\"properties\":{\"x\":"
    "{\"$ref\":\"#/$defs/d\"},\"y\":{\"$ref\":\"#/$defs/a~1b~0c\"}}}",
    "{\"$dynamicAnchor\":\"n\",\"$defs\":{\"d\":{\"$dynamicRef\":\"#n\"}},\"prefixItems\":"
    "[{\"$ref\":\"#/$defs/d\"}],\"format\":\"date-time\"}",
  };
  struct oc_jdoc id;
  struct oc_jerr je;
  oc_jdoc_init(&id);
  static const char inst[] = "{\"x\":\"1\",\"y\":1}";
  ck_assert(oc_jdoc_parse(&id, inst, strlen(inst), &je) == 0);
  for(size_t i = 0; i < OC_ARRAY_LEN(schemas_text); i++) {
    cJSON *sd = cJSON_Parse(schemas_text[i]);
    ck_assert_ptr_nonnull(sd);
    struct compile_ctx x = { sd, id.root };
    long points = every_failure("a schema with references, compiled", build_compiled, &x);
    fprintf(stderr, "a schema with references (%zu), compiled: %ld allocation points failed one at a time\n",
            i, points);
    cJSON_Delete(sd);
  }
  oc_jdoc_free(&id);
}
END_TEST

/* ---- a suite, loaded ---------------------------------------------------------- */

/* The loader either says out of memory or loads (or refuses) the suite
 * as it does with memory to spare: a failure inside the suite schema's
 * validation must not read as the suite's own fault. */
struct suite_ctx {
  const struct oc_schema *schema;
  const char *text;
};

static char *build_suite(void *p)
{
  const struct suite_ctx *x = p;
  struct oc_suite_set set = { NULL, 0 };
  struct oc_buf err;
  oc_buf_init(&err, 1u << 20);
  int rc = oc_suite_load_text(&set, "t.json", x->text, strlen(x->text), x->schema, &err);
  char *text = NULL;
  if(rc != OC_ENOMEM && oc_buf_error(&err) != OC_ENOMEM) {
    text = oc_asprintf("rc %d suites %zu cases %zu\n%s", rc, set.count,
                       set.count ? set.items[0].ncases : 0, oc_buf_str(&err));
  }
  oc_buf_free(&err);
  oc_suite_set_free(&set);
  return text;
}

static void suite_whole_or_nothing(const char *what, const char *text)
{
  char err[512];
  struct oc_schema *schema =
    oc_schema_compile_uri(schemas.reg, OC_SCHEMA_SHIPPED_BASE "suite.schema.json", 0, err, sizeof(err));
  ck_assert_msg(schema != NULL, "%s", err);
  struct suite_ctx x = { schema, text };
  long points = every_failure(what, build_suite, &x);
  fprintf(stderr, "%s: %ld allocation points failed one at a time\n", what, points);
  oc_schema_free(schema);
}

START_TEST(suite_loads_or_enomem)
{
  suite_whole_or_nothing("a suite that loads",
                         "{\"suite\":\"s\",\"description\":\"d\",\"cases\":[{\"name\":\"list\",\"description\":\"d\",\"request\":{\"method\":\"GET\","
                         "\"path\":\"/v1/models\"},\"expect\":{\"status\":200,\"assert\":[{\"pointer\":"
                         "\"/data/0/id\",\"type\":\"string\"}]}}]}");
}
END_TEST

START_TEST(suite_refused_or_enomem)
{
  /* the schema's complaint (a name that is not a string) and the
   * loader's own (a rule that does not exist) */
  suite_whole_or_nothing("a suite with errors",
                         "{\"suite\":\"s\",\"cases\":[{\"name\":7,\"request\":{\"method\":\"GET\","
                         "\"path\":\"/v1/models\"},\"allow\":[\"NO-SUCH-RULE\"]}]}");
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
  tcase_add_test(tc, verdict_undecided_recursion);
  tcase_add_test(tc, verdict_undecided_regex);
  tcase_add_test(tc, verdict_invalid);
  tcase_add_test(tc, compile_refs_or_enomem);
  tcase_add_test(tc, suite_loads_or_enomem);
  tcase_add_test(tc, suite_refused_or_enomem);
  suite_add_tcase(s, tc);
  int rc = oc_test_run(s);
  oc_schemas_free(&schemas);
  return rc;
}
