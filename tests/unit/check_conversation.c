/* check_conversation.c — the rules only a proxy can see: each request-side
 * and cross-turn rule broken by a hand-written client request (and the
 * server answer it needs), and held by the same request done right. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "conversation.h"
#include "json.h"
#include "rules.h"
#include "testutil.h"

/* A tool-call round trip done right: the call, then its result. */
#define CALL "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"%s\",\"type\":" \
             "\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":%s}}]}"
#define RESULT "{\"role\":\"tool\",\"tool_call_id\":\"%s\",\"content\":\"%s\"}"

static cJSON *parse(const char *text)
{
  cJSON *j = cJSON_Parse(text);
  ck_assert_msg(j != NULL, "test JSON does not parse: %s", text);
  return j;
}

/* The request rules on body; returns the distinct rules that fired. */
static void request_rules(const char *body, long n_ctx, long tokens, struct oc_findings *f)
{
  cJSON *b = parse(body);
  struct oc_check c;
  oc_findings_init(f);
  oc_check_init(&c, f, oc_profile_find("openai"));
  oc_conversation_check_request(&c, b, n_ctx, tokens);
  cJSON_Delete(b);
}

static char *conversation(const char *id, const char *args, const char *answers, const char *extra)
{
  char call[512], result[256];
  snprintf(call, sizeof(call), CALL, id, args);
  snprintf(result, sizeof(result), RESULT, answers, "{\\\"temp\\\": 21.5, \\\"sky\\\": \\\"clear\\\"}");
  return oc_asprintf("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Weather in "
                     "Paris?\"},%s,%s]%s}", call, result, extra ? extra : "");
}

START_TEST(a_good_round_trip_is_clean)
{
  char *b = conversation("call_1", "\"{\\\"city\\\":\\\"Paris\\\"}\"", "call_1", ",\"stream\":true,"
                         "\"stream_options\":{\"include_usage\":true}");
  struct oc_findings f;
  request_rules(b, 512, 100, &f);
  ck_assert_msg(f.count == 0, "a correct conversation got %zu findings, first %s", f.count,
                f.count ? oc_rule_name(f.items[0].rule) : "");
  oc_findings_free(&f);
  free(b);
}
END_TEST

START_TEST(each_request_rule_fires)
{
  struct oc_findings f;
  /* a role no template knows */
  request_rules("{\"messages\":[{\"role\":\"wizard\",\"content\":\"hi\"}]}", 0, -1, &f);
  ck_assert_int_eq(oc_findings_total(&f, OC_R_REQUEST_ROLE), 1);
  ck_assert_str_eq(f.items[0].path, "/messages/0/role");
  ck_assert_str_eq(f.items[0].actual, "wizard");
  ck_assert_int_eq(f.items[0].severity, OC_SEV_WARNING);
  oc_findings_free(&f);

  /* a result that answers no call */
  char *b = conversation("call_1", "\"{}\"", "call_9", NULL);
  request_rules(b, 0, -1, &f);
  ck_assert_int_eq(oc_findings_total(&f, OC_R_REQUEST_TOOL_RESULT_ID), 1);
  ck_assert_str_eq(f.items[0].path, "/messages/2/tool_call_id");
  ck_assert_str_eq(f.items[0].actual, "call_9");
  ck_assert_uint_eq(f.count, 1);
  oc_findings_free(&f);
  free(b);

  /* a result before its call does not answer it either */
  request_rules("{\"messages\":[{\"role\":\"tool\",\"tool_call_id\":\"a\",\"content\":\"x\"},"
                "{\"role\":\"assistant\",\"tool_calls\":[{\"id\":\"a\",\"type\":\"function\","
                "\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}]}", 0, -1, &f);
  ck_assert_int_eq(oc_findings_total(&f, OC_R_REQUEST_TOOL_RESULT_ID), 1);
  oc_findings_free(&f);

  /* arguments sent back parsed */
  b = conversation("call_1", "{\"city\":\"Paris\"}", "call_1", NULL);
  request_rules(b, 0, -1, &f);
  ck_assert_int_eq(oc_findings_total(&f, OC_R_REQUEST_TOOL_ARGS_STRING), 1);
  ck_assert_str_eq(f.items[0].path, "/messages/1/tool_calls/0/function/arguments");
  ck_assert_str_eq(f.items[0].actual, "object");
  ck_assert_uint_eq(f.count, 1);
  oc_findings_free(&f);
  free(b);

  /* stream_options on a request that does not stream */
  request_rules("{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":false,"
                "\"stream_options\":{\"include_usage\":true}}", 0, -1, &f);
  ck_assert_int_eq(oc_findings_total(&f, OC_R_REQUEST_STREAM_OPTIONS), 1);
  ck_assert_uint_eq(f.count, 1);
  oc_findings_free(&f);

  /* over the context: only when both the window and the count are known */
  const char *small = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
  request_rules(small, 512, 600, &f);
  ck_assert_int_eq(oc_findings_total(&f, OC_R_REQUEST_CONTEXT), 1);
  ck_assert_str_eq(f.items[0].actual, "600 tokens");
  oc_findings_free(&f);
  request_rules(small, 512, 511, &f);
  ck_assert_uint_eq(f.count, 0);
  oc_findings_free(&f);
  request_rules(small, 0, 600, &f);
  ck_assert_uint_eq(f.count, 0);
  oc_findings_free(&f);
}
END_TEST

/* Mistral Nemo's template refuses ids that are not 9 alphanumerics: the
 * server issued "call_8f3a", the conversation came back with it, and the
 * answer is the template's refusal. */
START_TEST(an_issued_id_refused_later)
{
  struct oc_conversation cv;
  oc_conversation_init(&cv);
  cJSON *answer = parse("{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                        "\"tool_calls\":[{\"id\":\"call_8f3a\",\"type\":\"function\",\"function\":"
                        "{\"name\":\"get_weather\",\"arguments\":\"{}\"}}]}}]}");
  oc_conversation_learn(&cv, answer);
  cJSON_Delete(answer);
  ck_assert(oc_conversation_issued(&cv, "call_8f3a"));
  ck_assert(!oc_conversation_issued(&cv, "call_1"));

  const char *refusal = "Tool call IDs should be alphanumeric strings with length 9!";
  char *b = conversation("call_8f3a", "\"{}\"", "call_8f3a", NULL);
  cJSON *body = parse(b);
  struct oc_findings f;
  struct oc_check c;
  oc_findings_init(&f);
  oc_check_init(&c, &f, oc_profile_find("llama-server"));
  oc_conversation_check_answer(&cv, &c, body, 500, refusal);
  ck_assert_int_eq(oc_findings_total(&f, OC_R_CONV_TOOL_ID_REJECTED), 1);
  ck_assert_str_eq(f.items[0].path, "/messages/1/tool_calls/0/id");
  ck_assert_str_eq(f.items[0].actual, "HTTP 500");
  oc_findings_free(&f);
  /* an id the client made up is the client's business; another error is
   * not about ids; a success is no refusal */
  char *mine = conversation("call_1", "\"{}\"", "call_1", NULL);
  cJSON *body2 = parse(mine);
  oc_findings_init(&f);
  oc_conversation_check_answer(&cv, &c, body2, 500, refusal);
  oc_conversation_check_answer(&cv, &c, body, 500, "Context size has been exceeded.");
  oc_conversation_check_answer(&cv, &c, body, 200, NULL);
  ck_assert_uint_eq(f.count, 0);
  oc_findings_free(&f);
  cJSON_Delete(body);
  cJSON_Delete(body2);
  free(b);
  free(mine);
  oc_conversation_free(&cv);
}
END_TEST

/* The ring forgets the oldest ids first, and stays bounded. */
START_TEST(ids_are_bounded)
{
  struct oc_conversation cv;
  oc_conversation_init(&cv);
  for(int i = 0; i < OC_CONV_IDS + 10; i++) {
    char *a = oc_asprintf("{\"tool_calls\":[{\"id\":\"id%d\"}]}", i);
    cJSON *j = parse(a);
    oc_conversation_learn(&cv, j);
    cJSON_Delete(j);
    free(a);
  }
  ck_assert_uint_eq(cv.count, OC_CONV_IDS);
  ck_assert(!oc_conversation_issued(&cv, "id0"));
  ck_assert(!oc_conversation_issued(&cv, "id9"));
  ck_assert(oc_conversation_issued(&cv, "id10"));
  ck_assert(oc_conversation_issued(&cv, "id4105"));
  oc_conversation_free(&cv);
}
END_TEST

/* A template that drops the tool message (Phi-3.5) leaves the result's
 * values out of the prompt; a template that encodes it twice keeps them. */
START_TEST(tool_result_reaches_the_prompt)
{
  char *b = conversation("call_1", "\"{}\"", "call_1", NULL);
  cJSON *body = parse(b);
  ck_assert(oc_conversation_has_tool_result(body));
  struct oc_findings f;
  struct oc_check c;
  oc_findings_init(&f);
  oc_check_init(&c, &f, oc_profile_find("llama-server"));
  oc_conversation_check_prompt(&c, body, "<|user|>Weather in Paris?<|end|><|assistant|><|end|>");
  ck_assert_int_eq(oc_findings_total(&f, OC_R_CONV_TOOL_RESULT_DROPPED), 1);
  ck_assert_str_eq(f.items[0].path, "/messages/2/content");
  oc_findings_free(&f);
  oc_findings_init(&f);
  oc_conversation_check_prompt(&c, body, "<|im_start|>tool\n{\"temp\": 21.5, \"sky\": \"clear\"}");
  oc_conversation_check_prompt(&c, body,
                               "ipython\n\"{\\\"temp\\\": 21.5, \\\"sky\\\": \\\"clear\\\"}\"");
  ck_assert_uint_eq(f.count, 0);
  oc_findings_free(&f);
  cJSON_Delete(body);
  free(b);
  cJSON *plain = parse("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");
  ck_assert(!oc_conversation_has_tool_result(plain));
  cJSON_Delete(plain);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("conversation");
  TCase *tc = tcase_create("rules");
  tcase_add_test(tc, a_good_round_trip_is_clean);
  tcase_add_test(tc, each_request_rule_fires);
  tcase_add_test(tc, an_issued_id_refused_later);
  tcase_add_test(tc, ids_are_bounded);
  tcase_add_test(tc, tool_result_reaches_the_prompt);
  suite_add_tcase(s, tc);
  return oc_test_run(s);
}
