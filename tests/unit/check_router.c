/* check_router.c — routers (llama-server with --models-preset: several
 * models behind one URL): the query string in the request key, every
 * request naming its model, the flags a router says each model runs with
 * (port and load state left out, secrets masked), and the project's own
 * router recordings (tests/data/recordings/llama-server-router, recorded
 * live by `oacheck record --model all`) replayed in-process as
 * `oacheck run --replay DIR --model all`: no failure from oacheck's own
 * requests, the context probes run, a target per model, and every answer
 * from the model it was asked for. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cassette.h"
#include "cli.h"
#include "json.h"
#include "target.h"
#include "testutil.h"
#include "util.h"

static void key_of(const char *method, const char *path, const char *body, char out[65])
{
  ck_assert_int_eq(oc_cassette_request_key(method, path, body, body ? strlen(body) : 0, out), 0);
}

START_TEST(query_in_the_key)
{
  char a[65], b[65];
  /* a path without a query keys as it always did: SHA-256 of
   * "GET\0/props\0" (computed apart, with Python's hashlib) — the
   * identification cassettes of every recording are named after it */
  key_of("GET", "/props", NULL, a);
  ck_assert_str_eq(a, "fe99373971562f53bdfa41be61822a43a43879d53dca0b224c3a1510d3b1cf07");
  key_of("GET", "/props?", NULL, b);
  ck_assert_str_eq(a, b);
  /* the model is part of it: "GET\0/props?model=qwen-tiny\0" */
  key_of("GET", "/props?model=qwen-tiny", NULL, a);
  ck_assert_str_eq(a, "3cf6995469fa85ef2812098dcb44648ab057ccc207b058fac36606a3defa8ffa");
  key_of("GET", "/props?model=nemo-tiny", NULL, b);
  ck_assert_str_ne(a, b);
  /* order and encoding of the parameters do not matter */
  key_of("GET", "/slots?b=2&a=x%2Fy", NULL, a);
  key_of("GET", "/slots?a=x/y&b=2", NULL, b);
  ck_assert_str_eq(a, b);
  key_of("GET", "/slots?a=x+y", NULL, a);
  key_of("GET", "/slots?a=x%20y", NULL, b);
  ck_assert_str_eq(a, b);
  char *kp = oc_cassette_key_path("/slots?model=a%2Fb&flag&b=");
  ck_assert_str_eq(kp, "/slots?b=&flag&model=a%2Fb");
  free(kp);
  /* what serve builds from decoded arguments keys the same */
  struct oc_buf q;
  oc_buf_init(&q, 1024);
  ck_assert_int_eq(oc_cassette_query_append(&q, "model", "a/b c"), 0);
  ck_assert_int_eq(oc_cassette_query_append(&q, "x&y", "1=2"), 0);
  ck_assert_int_eq(oc_cassette_query_append(&q, "flag", NULL), 0);
  ck_assert_str_eq(oc_buf_str(&q), "model=a%2Fb%20c&x%26y=1%3D2&flag");
  char *path = oc_asprintf("/slots?%s", oc_buf_str(&q));
  key_of("GET", path, NULL, a);
  key_of("GET", "/slots?flag&x%26y=1%3D2&model=a/b+c", NULL, b);
  ck_assert_str_eq(a, b);
  free(path);
  oc_buf_free(&q);
}
END_TEST

static struct oc_target router(const char *model)
{
  struct oc_target t;
  oc_target_init(&t);
  t.router = 1;
  t.vars = cJSON_CreateObject();
  if(model)
    cJSON_AddStringToObject(t.vars, "MODEL", model);
  return t;
}

START_TEST(every_request_names_its_model)
{
  struct oc_target t = router("qwen-tiny");
  char *p = NULL, *b = NULL;
  size_t n = 0;
  ck_assert_int_eq(oc_target_route(&t, "GET", "/slots", NULL, 0, &p, &b, &n), 0);
  ck_assert_str_eq(p, "/slots?model=qwen-tiny");
  ck_assert_ptr_null(b);
  free(p);
  ck_assert_int_eq(oc_target_route(&t, "GET", "/metrics?x=1", NULL, 0, &p, &b, &n), 0);
  ck_assert_str_eq(p, "/metrics?x=1&model=qwen-tiny");
  free(p);
  /* a request that names a model keeps it (errors/unknown-model) */
  ck_assert_int_eq(oc_target_route(&t, "GET", "/props?model=other", NULL, 0, &p, &b, &n), 0);
  ck_assert_ptr_null(p);
  const char *named = "{\"model\":\"no-such-model\",\"messages\":[]}";
  ck_assert_int_eq(oc_target_route(&t, "POST", "/v1/chat/completions", named, strlen(named), &p,
                                   &b, &n), 0);
  ck_assert_ptr_null(b);
  /* a JSON body without one gets it */
  const char *tok = "{\"content\":\"hello\",\"add_special\":true}";
  ck_assert_int_eq(oc_target_route(&t, "POST", "/tokenize", tok, strlen(tok), &p, &b, &n), 0);
  ck_assert_ptr_null(p);
  cJSON *j = cJSON_Parse(b);
  ck_assert_str_eq(oc_json_str(j, "model"), "qwen-tiny");
  ck_assert_str_eq(oc_json_str(j, "content"), "hello");
  ck_assert_uint_eq(n, strlen(b));
  cJSON_Delete(j);
  free(b);
  /* the deliberately invalid body and non-objects go as they are */
  const char *bad = "{\"messages\": [";
  ck_assert_int_eq(oc_target_route(&t, "POST", "/v1/chat/completions", bad, strlen(bad), &p, &b, &n), 0);
  ck_assert_ptr_null(b);
  ck_assert_int_eq(oc_target_route(&t, "POST", "/tokenize", "[1]", 3, &p, &b, &n), 0);
  ck_assert_ptr_null(b);
  /* the router's own endpoints answer for all models */
  static const char *const own[] = { "/v1/models", "/models", "/health" };
  for(size_t i = 0; i < OC_ARRAY_LEN(own); i++) {
    ck_assert_int_eq(oc_target_route(&t, "GET", own[i], NULL, 0, &p, &b, &n), 0);
    ck_assert_ptr_null(p);
  }
  oc_target_free(&t);
  /* not a router, or no model: nothing changes */
  struct oc_target plain = router("m");
  plain.router = 0;
  ck_assert_int_eq(oc_target_route(&plain, "GET", "/slots", NULL, 0, &p, &b, &n), 0);
  ck_assert_ptr_null(p);
  oc_target_free(&plain);
  struct oc_target none = router(NULL);
  ck_assert_int_eq(oc_target_route(&none, "GET", "/slots", NULL, 0, &p, &b, &n), 0);
  ck_assert_ptr_null(p);
  oc_target_free(&none);
}
END_TEST

START_TEST(model_flags_audit)
{
  /* as a router's /v1/models states a model's status */
  cJSON *st = cJSON_Parse(
    "{\"value\":\"loaded\",\"args\":[\"/opt/llama/bin/llama-server\",\"--host\",\"127.0.0.1\","
    "\"--port\",\"58275\",\"--api-key\",\"sk-secret-1\",\"--hf-token=hf_secret_2\",\"--alias\","
    "\"qwen\",\"--ctx-size\",\"1024\",\"--jinja\",\"--n-gpu-layers\",\"-1\"],"
    "\"preset\":\"[qwen]\\napi-key = sk-secret-3\\nport = 9000\\nctx-size = 1024\\n\"}");
  ck_assert_ptr_nonnull(st);
  cJSON *f = oc_target_model_flags(st);
  ck_assert_ptr_nonnull(f);
  char *text = cJSON_PrintUnformatted(f);
  ck_assert_msg(!strstr(text, "secret"), "a secret reached the flags: %s", text);
  ck_assert_msg(!strstr(text, "58275") && !strstr(text, "9000") && !strstr(text, "loaded"),
                "what changes by itself is kept: %s", text);
  ck_assert_str_eq(text,
                   "{\"args\":[\"llama-server\",\"--host\",\"127.0.0.1\",\"--api-key\",\"[masked]\","
                   "\"--hf-token=[masked]\",\"--alias\",\"qwen\",\"--ctx-size\",\"1024\",\"--jinja\","
                   "\"--n-gpu-layers\",\"-1\"],"
                   "\"preset\":\"[qwen]\\napi-key = [masked]\\nctx-size = 1024\\n\"}");
  free(text);
  cJSON_Delete(f);
  cJSON_Delete(st);
  /* a plain server's model has no status: nothing to pin */
  cJSON *none = cJSON_Parse("{}");
  ck_assert_ptr_null(oc_target_model_flags(none));
  cJSON_Delete(none);
}
END_TEST

/* ---- the router recordings, replayed --------------------------------------------- */

static cJSON *run_replay(const char *extra_model)
{
  char json[] = "/tmp/oacheck-router-XXXXXX";
  int fd = mkstemp(json);
  ck_assert_int_ge(fd, 0);
  close(fd);
  char *dir = oc_test_src("tests/data/recordings/llama-server-router");
  /* the suites these were recorded with: three shipped ones have since
   * given reasoning models room (tests/data/suites/tiny-random) */
  char *tc = oc_test_src("tests/data/suites/tiny-random/tool-call.json");
  char *js = oc_test_src("tests/data/suites/tiny-random/json-schema.json");
  char *co = oc_test_src("tests/data/suites/tiny-random/context-overflow.json");
  char *argv[] = { "run", "plain", "streaming", "errors", "models", "llama-server", tc, js, co,
                   "--replay", dir, "--model", (char *)extra_model, "--json", json, NULL };
  fflush(stdout);
  int saved = dup(1);
  ck_assert(freopen("/dev/null", "w", stdout) != NULL);
  int status = oc_cmd_run((int)OC_ARRAY_LEN(argv) - 1, argv);
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  ck_assert_msg(status == 0 || status == 1, "oacheck run exited %d", status);
  char err[600];
  cJSON *doc = oc_json_parse_file(json, err, sizeof(err));
  ck_assert_msg(doc != NULL, "%s", err);
  unlink(json);
  free(dir);
  free(tc);
  free(js);
  free(co);
  return doc;
}

static int has_rule(const cJSON *r, const char *rule)
{
  const cJSON *f;
  cJSON_ArrayForEach(f, oc_json_arr(r, "findings"))
  {
    if(oc_streq(oc_json_str(f, "rule"), rule))
      return 1;
  }
  return 0;
}

/* The model an answer names: the body's, or the first stream event's. */
static char *answer_model(const cJSON *r)
{
  const cJSON *resp = oc_json_obj(r, "response");
  const cJSON *body = oc_json_obj(resp, "body");
  const char *text = oc_json_str(body, "text");
  cJSON *j = NULL;
  if(oc_json_get(body, "json"))
    j = cJSON_Duplicate(oc_json_get(body, "json"), 1);
  else if(text)
    j = cJSON_Parse(text);
  if(!j || !oc_json_str(j, "model")) {
    cJSON_Delete(j);
    j = NULL;
    const cJSON *e = cJSON_GetArrayItem(oc_json_arr(resp, "events"), 0);
    if(oc_json_str(e, "data"))
      j = cJSON_Parse(oc_json_str(e, "data"));
  }
  char *m = oc_json_str(j, "model") ? oc_strdup(oc_json_str(j, "model")) : NULL;
  cJSON_Delete(j);
  return m;
}

START_TEST(router_recordings_replayed)
{
  cJSON *doc = run_replay("all");
  static const char *const models[] = { "llama31-tiny", "nemo-tiny", "qwen-tiny" };
  /* a target per model, each with its own identity */
  const cJSON *targets = oc_json_arr(doc, "targets");
  ck_assert_int_eq(cJSON_GetArraySize(targets), 3);
  for(int i = 0; i < 3; i++) {
    const cJSON *t = cJSON_GetArrayItem(targets, i);
    char name[128];
    snprintf(name, sizeof(name), "llama-server-router/%s", models[i]);
    ck_assert_str_eq(oc_json_str(t, "name"), name);
    ck_assert_str_eq(oc_json_str(t, "model"), models[i]);
    ck_assert_str_eq(oc_json_str(t, "router"), "llama-server-router");
    const cJSON *id = oc_json_obj(t, "identity");
    ck_assert(cJSON_IsTrue(oc_json_get(id, "router")));
    /* the instance's window, not the router's n_ctx 0 */
    ck_assert_int_eq((int)oc_json_num(id, "n_ctx", 0), 1024);
    /* recorded cold: the first request loaded the model, and says how long it took */
    const cJSON *load = oc_json_obj(id, "load");
    ck_assert_ptr_nonnull(load);
    ck_assert_str_eq(oc_json_str(load, "was"), "unloaded");
    ck_assert(oc_json_num(load, "first_request_ms", 0) > 0);
    ck_assert_ptr_nonnull(oc_json_obj(oc_json_obj(id, "model_flags"), models[i]));
  }
  /* the router's templates differ by model: routing shows in the hashes */
  ck_assert_str_ne(oc_json_str(oc_json_obj(cJSON_GetArrayItem(targets, 0), "identity"), "chat_template_sha256"),
                   oc_json_str(oc_json_obj(cJSON_GetArrayItem(targets, 2), "identity"), "chat_template_sha256"));
  size_t results = 0, answers = 0, probes = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, oc_json_arr(doc, "results"))
  {
    results++;
    const char *target = oc_json_str(r, "target"), *suite = oc_json_str(r, "suite");
    const char *kase = oc_json_str(r, "case"), *st = oc_json_str(r, "status");
    const char *model = strchr(target, '/') + 1;
    /* nothing failed for want of a model in oacheck's requests */
    const cJSON *body = oc_json_obj(oc_json_obj(r, "response"), "body");
    const char *text = oc_json_str(body, "text");
    char *whole = body ? cJSON_PrintUnformatted(body) : NULL;
    ck_assert_msg(!whole || !strstr(whole, "model name is missing"),
                  "%s %s/%s: the router says the request names no model", target, suite, kase);
    free(whole);
    (void)text;
    ck_assert_msg(!oc_streq(st, "error"), "%s %s/%s: error (%s)", target, suite, kase,
                  oc_json_str(r, "reason"));
    /* the llama-server suite runs against each model: only the Mistral
     * Nemo template's refusal of the id call_1 fails, and /metrics is off
     * on the instances (501, unsupported) */
    if(oc_streq(suite, "llama-server")) {
      if(oc_streq(kase, "metrics"))
        ck_assert_str_eq(st, "skip");
      else if(oc_streq(model, "nemo-tiny") && oc_streq(kase, "apply-template-tool-call"))
        ck_assert(has_rule(r, "HTTP-STATUS"));
      else
        ck_assert_msg(oc_streq(st, "pass"), "%s llama-server/%s: %s", target, kase, st);
    }
    /* the context probes ran: no case skipped for want of the window */
    if(oc_streq(suite, "context-overflow")) {
      ck_assert_msg(!oc_streq(st, "skip"), "%s context-overflow/%s skipped: %s", target, kase,
                    oc_json_str(r, "reason"));
      probes++;
    }
    /* routing: every answer comes from the model it was asked for */
    ck_assert(!has_rule(r, "MODELS-ROUTED"));
    const cJSON *rq = oc_json_obj(r, "request");
    const char *path = oc_json_str(rq, "path");
    const cJSON *status = oc_json_get(oc_json_obj(r, "response"), "status");
    if(path && strstr(path, "completions") && status && status->valuedouble == 200) {
      char *m = answer_model(r);
      ck_assert_msg(m && strcmp(m, model) == 0, "%s %s/%s: answered by '%s'", target, suite, kase,
                    m ? m : "?");
      free(m);
      answers++;
    }
  }
  ck_assert_uint_eq(results, 3 * 53);
  ck_assert_uint_eq(probes, 3 * 9);
  ck_assert_uint_gt(answers, 3 * 20);
  cJSON_Delete(doc);
}
END_TEST

START_TEST(a_model_list)
{
  /* --model a,b: those models only, in that order */
  cJSON *doc = run_replay("qwen-tiny,llama31-tiny");
  const cJSON *targets = oc_json_arr(doc, "targets");
  ck_assert_int_eq(cJSON_GetArraySize(targets), 2);
  ck_assert_str_eq(oc_json_str(cJSON_GetArrayItem(targets, 0), "model"), "qwen-tiny");
  ck_assert_str_eq(oc_json_str(cJSON_GetArrayItem(targets, 1), "model"), "llama31-tiny");
  cJSON_Delete(doc);
}
END_TEST

int main(void)
{
  const char *src = getenv("OACHECK_SRCDIR");
  if(src && *src)
    setenv("OACHECK_DATADIR", src, 1);
  Suite *s = suite_create("router");
  TCase *tc = tcase_create("router");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, query_in_the_key);
  tcase_add_test(tc, every_request_names_its_model);
  tcase_add_test(tc, model_flags_audit);
  tcase_add_test(tc, router_recordings_replayed);
  tcase_add_test(tc, a_model_list);
  suite_add_tcase(s, tc);
  return oc_test_run(s);
}
