/* check_claude_code.c — the Claude Code model (src/claude_code.c) against
 * the facts measured with the real Claude Code: every case of
 * tests/data/crafted/agents/claude-code/expect.json whose settings the
 * model knows is played over the same recordings, and the model must
 * predict the outcome, the exit status, the requests (how many, which
 * asked for a stream) and, on a failure, what is printed (the case's
 * stdout pattern).  Cases about settings that are not an exchange (the
 * context window Claude Code is told) are left out, and counted. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claude_code.h"
#include "json.h"
#include "regex.h"
#include "schema.h"
#include "testutil.h"

#define DIR "tests/data/crafted/agents/claude-code"

struct seq {
  const struct oc_cassette_store *store;
  char names[8][128];
  long n;
};

static const struct oc_cassette *next(void *ctx, long n)
{
  struct seq *q = ctx;
  return oc_cassette_store_find_name(q->store, q->names[n < q->n ? n : q->n - 1]);
}

/* "A,B" as X-Oacheck-Case splits it */
static void split(struct seq *q, const char *value)
{
  q->n = 0;
  const char *p = value;
  while(*p && q->n < 8) {
    while(*p == ' ' || *p == ',')
      p++;
    size_t l = strcspn(p, ",");
    while(l && p[l - 1] == ' ')
      l--;
    if(l) {
      ck_assert_uint_lt(l, sizeof(q->names[0]));
      memcpy(q->names[q->n], p, l);
      q->names[q->n++][l] = '\0';
    }
    p += strcspn(p, ",");
  }
  ck_assert_int_gt(q->n, 0);
}

/* The case's settings into env; 0 when one is not the model's business. */
static int settings(const cJSON *kase, struct oc_cc_env *env)
{
  oc_cc_env_init(env);
  env->model = "crafted-model";
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(kase, "env"))
  {
    ck_assert(cJSON_IsString(e));
    if(!strcmp(e->string, "CLAUDE_CODE_DISABLE_NONSTREAMING_FALLBACK"))
      env->no_fallback = !strcmp(e->valuestring, "1");
    else if(!strcmp(e->string, "CLAUDE_CODE_MAX_RETRIES"))
      ck_assert_int_eq(oc_parse_long(e->valuestring, 0, 100, &env->max_retries), 0);
    else
      return 0;
  }
  return 1;
}

static int matches(const char *pattern, const char *s)
{
  char err[256];
  struct oc_regex *re = oc_regex_compile(pattern, strlen(pattern), err, sizeof(err));
  ck_assert_msg(re != NULL, "pattern %s: %s", pattern, err);
  int m = oc_regex_match(re, s, strlen(s), NULL);
  oc_regex_free(re);
  return m == 1;
}

START_TEST(the_model_predicts_every_measured_fact)
{
  char *dir = oc_test_src(DIR);
  char *path = oc_path_join(dir, "expect.json");
  char *text = oc_test_read(path, NULL);
  cJSON *expect = cJSON_Parse(text);
  ck_assert_ptr_nonnull(expect);
  struct oc_cassette_store store;
  oc_cassette_store_init(&store);
  const char *dirs[] = { dir };
  ck_assert_int_eq(oc_cassette_store_load(&store, dirs, 1, NULL, NULL), OC_OK);
  struct oc_schemas sch;
  char err[512];
  ck_assert_msg(oc_schemas_load(&sch, err, sizeof(err)) == 0, "%s", err);

  int played = 0, left_out = 0, failed = 0;
  const cJSON *kase;
  cJSON_ArrayForEach(kase, cJSON_GetObjectItemCaseSensitive(expect, "cases"))
  {
    const char *name = cJSON_GetObjectItemCaseSensitive(kase, "name")->valuestring;
    struct oc_cc_env env;
    if(!settings(kase, &env)) {
      left_out++;
      continue;
    }
    struct seq q = { &store, { { 0 } }, 0 };
    split(&q, cJSON_GetObjectItemCaseSensitive(kase, "case")->valuestring);
    for(long i = 0; i < q.n; i++)
      ck_assert_msg(oc_cassette_store_find_name(&store, q.names[i]), "%s: no recording %s", name,
                    q.names[i]);
    struct oc_cc_run run;
    ck_assert_int_eq(oc_claude_code_run(next, &q, &env, &sch, &run), OC_OK);
    played++;

    const char *outcome = cJSON_GetObjectItemCaseSensitive(kase, "outcome")->valuestring;
    int exit_status = cJSON_GetObjectItemCaseSensitive(kase, "exit")->valueint;
    const cJSON *streams = cJSON_GetObjectItemCaseSensitive(kase, "streams");
    /* what it prints: the start of it ("prints") where the whole
     * ("stdout") holds more than the model says */
    const cJSON *prints = cJSON_GetObjectItemCaseSensitive(kase, "prints");
    const char *stdout_re = cJSON_IsString(prints)
                              ? prints->valuestring
                              : cJSON_GetObjectItemCaseSensitive(kase, "stdout")->valuestring;
    char why[1024] = "";
    if(strcmp(oc_cc_outcome_name(run.outcome), outcome) || run.exit_status != exit_status)
      snprintf(why, sizeof(why), "predicted %s, exit %d; measured %s, exit %d",
               oc_cc_outcome_name(run.outcome), run.exit_status, outcome, exit_status);
    else if(run.requests != cJSON_GetArraySize(streams))
      snprintf(why, sizeof(why), "predicted %ld requests; measured %d", run.requests,
               cJSON_GetArraySize(streams));
    else {
      for(long i = 0; i < run.requests && !*why; i++)
        if(run.streamed[i] != cJSON_IsTrue(cJSON_GetArrayItem(streams, (int)i)))
          snprintf(why, sizeof(why), "request %ld predicted %s, measured the other way", i + 1,
                   run.streamed[i] ? "streamed" : "not streamed");
      char line[sizeof(run.printed) + 2];
      snprintf(line, sizeof(line), "%s\n", run.printed); /* a line, as printed */
      if(!*why && run.outcome == OC_CC_OUT_FAILURE && !matches(stdout_re, line))
        snprintf(why, sizeof(why), "predicted it prints '%s'; measured /%s/", run.printed,
                 stdout_re);
    }
    if(*why) {
      fprintf(stderr, "FAIL %s: %s\n", name, why);
      failed++;
    }
  }
  fprintf(stderr, "the model agrees with Claude Code %s on %d of %d cases (%d about settings "
          "left out)\n", cJSON_GetObjectItemCaseSensitive(expect, "version")->valuestring,
          played - failed, played, left_out);
  ck_assert_int_eq(failed, 0);
  ck_assert_int_ge(played, 12);

  oc_schemas_free(&sch);
  oc_cassette_store_free(&store);
  cJSON_Delete(expect);
  free(text);
  free(path);
  free(dir);
}
END_TEST

/* A stream the model has not seen measured: cut before message_stop is
 * asked again (2.1.328's fact), and with the fallback off it fails. */
START_TEST(a_cut_stream_is_asked_again)
{
  char *dir = oc_test_src(DIR);
  struct oc_cassette_store store;
  oc_cassette_store_init(&store);
  const char *dirs[] = { dir };
  ck_assert_int_eq(oc_cassette_store_load(&store, dirs, 1, NULL, NULL), OC_OK);
  struct oc_schemas sch;
  char err[512];
  ck_assert_msg(oc_schemas_load(&sch, err, sizeof(err)) == 0, "%s", err);
  /* the text stream without its last two events */
  const struct oc_cassette *whole = oc_cassette_store_find_name(&store, "claude-code-text-stream");
  ck_assert_ptr_nonnull(whole);
  const char *cut_at = strstr(whole->body, "event: message_delta");
  ck_assert_ptr_nonnull(cut_at);
  struct oc_cassette c;
  oc_cassette_init(&c);
  c.name = oc_strdup("cut");
  c.method = oc_strdup("POST");
  c.path = oc_strdup("/v1/messages");
  c.status = 200;
  c.reason = oc_strdup("OK");
  ck_assert_int_eq(oc_headers_add(&c.headers, "Content-Type", "text/event-stream"), 0);
  c.body_len = (size_t)(cut_at - whole->body);
  c.body = oc_strndup(whole->body, c.body_len);
  c.complete = 1;
  ck_assert_int_eq(oc_cassette_update_key(&c), 0);
  ck_assert_int_eq(oc_cassette_store_take(&store, &c), 0);
  struct seq q = { &store, { "cut", "claude-code-text" }, 2 };
  struct oc_cc_env env;
  oc_cc_env_init(&env);
  struct oc_cc_run run;
  ck_assert_int_eq(oc_claude_code_run(next, &q, &env, &sch, &run), OC_OK);
  ck_assert_int_eq(run.outcome, OC_CC_OUT_SILENT_REASK);
  ck_assert_int_eq(run.requests, 2);
  env.no_fallback = 1;
  ck_assert_int_eq(oc_claude_code_run(next, &q, &env, &sch, &run), OC_OK);
  ck_assert_int_eq(run.outcome, OC_CC_OUT_FAILURE);
  ck_assert_int_eq(run.requests, 1);
  oc_schemas_free(&sch);
  oc_cassette_store_free(&store);
  free(dir);
}
END_TEST

static Suite *claude_code_suite(void)
{
  Suite *s = suite_create("claude_code");
  TCase *tc = tcase_create("model");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, the_model_predicts_every_measured_fact);
  tcase_add_test(tc, a_cut_stream_is_asked_again);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return oc_test_run(claude_code_suite());
}
