/* check_token_count.c — the count contract (token_count.c): the counting
 * request made from a Messages or Responses request, the input an answer
 * reports (cache counts included), and the verdict with both numbers and
 * what the request holds; and which protocols a target serves
 * (serves.c): a probe's answer, a run's answers, recordings. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cassette.h"
#include "json.h"
#include "serves.h"
#include "rules.h"
#include "testutil.h"
#include "token_count.h"

static cJSON *parse(const char *text)
{
  cJSON *j = cJSON_Parse(text);
  ck_assert_ptr_nonnull(j);
  return j;
}

START_TEST(messages_count_request)
{
  cJSON *body = parse("{\"model\":\"m\",\"max_tokens\":256,\"stream\":true,\"system\":\"S\","
                      "\"temperature\":0,\"stop_sequences\":[\"x\"],"
                      "\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":512},"
                      "\"tools\":[{\"name\":\"t\",\"input_schema\":{}}],\"tool_choice\":{\"type\":\"auto\"},"
                      "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
  char *path = NULL, *cbody = NULL;
  ck_assert_int_eq(oc_count_request(OC_API_MESSAGES, "/v1/messages?beta=true", body, &path, &cbody),
                   OC_OK);
  ck_assert_str_eq(path, "/v1/messages/count_tokens?beta=true");
  cJSON *c = parse(cbody);
  /* what count_tokens takes, and nothing it would refuse */
  ck_assert_ptr_nonnull(oc_json_get(c, "model"));
  ck_assert_ptr_nonnull(oc_json_get(c, "messages"));
  ck_assert_ptr_nonnull(oc_json_get(c, "system"));
  ck_assert_ptr_nonnull(oc_json_get(c, "tools"));
  ck_assert_ptr_nonnull(oc_json_get(c, "tool_choice"));
  ck_assert_ptr_nonnull(oc_json_get(c, "thinking"));
  ck_assert_ptr_null(oc_json_get(c, "max_tokens"));
  ck_assert_ptr_null(oc_json_get(c, "stream"));
  ck_assert_ptr_null(oc_json_get(c, "temperature"));
  ck_assert_ptr_null(oc_json_get(c, "stop_sequences"));
  ck_assert(cJSON_Compare(oc_json_get(c, "messages"), oc_json_get(body, "messages"), 1));
  cJSON_Delete(c);
  free(path);
  free(cbody);
  cJSON_Delete(body);
}
END_TEST

START_TEST(responses_count_request)
{
  cJSON *body = parse("{\"model\":\"m\",\"input\":\"hi\",\"instructions\":\"I\",\"stream\":true,"
                      "\"max_output_tokens\":128,\"store\":false,\"tools\":[],\"reasoning\":{}}");
  char *path = NULL, *cbody = NULL;
  ck_assert_int_eq(oc_count_request(OC_API_RESPONSES, "/v1/responses", body, &path, &cbody), OC_OK);
  ck_assert_str_eq(path, "/v1/responses/input_tokens");
  cJSON *c = parse(cbody);
  ck_assert_ptr_nonnull(oc_json_get(c, "input"));
  ck_assert_ptr_nonnull(oc_json_get(c, "instructions"));
  ck_assert_ptr_nonnull(oc_json_get(c, "reasoning"));
  ck_assert_ptr_null(oc_json_get(c, "stream"));
  ck_assert_ptr_null(oc_json_get(c, "max_output_tokens"));
  ck_assert_ptr_null(oc_json_get(c, "store"));
  cJSON_Delete(c);
  free(path);
  free(cbody);
  /* chat has no counting endpoint; a body that is no object is no request */
  ck_assert_int_eq(oc_count_request(OC_API_CHAT, "/v1/chat/completions", body, &path, &cbody),
                   OC_ENOTFOUND);
  ck_assert_int_eq(oc_count_request(OC_API_RESPONSES, "/v1/responses", NULL, &path, &cbody),
                   OC_ENOTFOUND);
  cJSON_Delete(body);
}
END_TEST

START_TEST(answered_input_counts_the_cache)
{
  char how[200];
  cJSON *m = parse("{\"usage\":{\"input_tokens\":3,\"cache_read_input_tokens\":40,"
                   "\"cache_creation_input_tokens\":7,\"output_tokens\":9}}");
  ck_assert_int_eq(oc_count_answered(OC_API_MESSAGES, m, how, sizeof(how)), 50);
  ck_assert_ptr_nonnull(strstr(how, "cache_read_input_tokens 40"));
  cJSON_Delete(m);
  m = parse("{\"usage\":{\"input_tokens\":12}}");
  ck_assert_int_eq(oc_count_answered(OC_API_MESSAGES, m, how, sizeof(how)), 12);
  ck_assert_int_eq(oc_count_answered(OC_API_RESPONSES, m, how, sizeof(how)), 12);
  cJSON_Delete(m);
  m = parse("{\"usage\":{\"input_tokens\":1.5}}");
  ck_assert_int_eq(oc_count_answered(OC_API_RESPONSES, m, NULL, 0), -1);
  cJSON_Delete(m);
  ck_assert_int_eq(oc_count_answered(OC_API_MESSAGES, NULL, NULL, 0), -1);
  ck_assert_int_eq(oc_count_parse("{\"input_tokens\":57}", 19), 57);
  ck_assert_int_eq(oc_count_parse("{\"input_tokens\":\"57\"}", 21), -1);
  ck_assert_int_eq(oc_count_parse("not json", 8), -1);
}
END_TEST

struct judged {
  struct oc_findings f;
  struct oc_check c;
};

static void judge(struct judged *x, enum oc_api api, int status, const char *body, long answered,
                  const char *req)
{
  oc_findings_init(&x->f);
  oc_check_init(&x->c, &x->f, oc_profile_find("openai"));
  cJSON *r = parse(req);
  oc_count_judge(&x->c, api, api == OC_API_MESSAGES ? "/v1/messages/count_tokens"
                                                    : "/v1/responses/input_tokens",
                 status, body, body ? strlen(body) : 0, "connection refused", answered,
                 "input_tokens 61", r);
  cJSON_Delete(r);
}

static const char *tool_history =
  "{\"system\":\"S\",\"tools\":[{\"name\":\"t\"}],\"messages\":[{\"role\":\"user\",\"content\":\"q\"},"
  "{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"x\",\"signature\":\"s\"},"
  "{\"type\":\"tool_use\",\"id\":\"a\",\"name\":\"t\",\"input\":{}}]},"
  "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"a\",\"content\":\"r\"}]}]}";

START_TEST(judge_names_both_numbers_and_the_blocks)
{
  struct judged x;
  judge(&x, OC_API_MESSAGES, 200, "{\"input_tokens\":57}", 61, tool_history);
  ck_assert_int_eq((int)x.f.count, 1);
  const struct oc_finding *g = &x.f.items[0];
  ck_assert_str_eq(oc_rule_name(g->rule), "MESSAGES-COUNT-TOKENS");
  ck_assert_int_eq(g->severity, OC_SEV_ERROR);
  ck_assert_str_eq(g->expected, "61");
  ck_assert_str_eq(g->actual, "57");
  ck_assert_msg(strstr(g->message, "counted 57") && strstr(g->message, "reports 61") &&
                strstr(g->message, "4 fewer"), "%s", g->message);
  ck_assert_msg(strstr(g->message, "the system prompt") && strstr(g->message, "tools") &&
                strstr(g->message, "thinking blocks") && strstr(g->message, "tool_use blocks") &&
                strstr(g->message, "tool_result blocks"), "%s", g->message);
  oc_findings_free(&x.f);
  /* equal: nothing to say */
  judge(&x, OC_API_MESSAGES, 200, "{\"input_tokens\":61}", 61, tool_history);
  ck_assert_int_eq((int)x.f.count, 0);
  oc_findings_free(&x.f);
  /* the answer reports no input: nothing to hold the count to */
  judge(&x, OC_API_MESSAGES, 200, "{\"input_tokens\":61}", -1, tool_history);
  ck_assert_int_eq((int)x.f.count, 0);
  oc_findings_free(&x.f);
}
END_TEST

START_TEST(judge_a_missing_or_broken_endpoint)
{
  struct judged x;
  judge(&x, OC_API_RESPONSES, 404, "{\"error\":\"not found\"}", 20, "{\"input\":\"q\"}");
  ck_assert_int_eq((int)x.f.count, 1);
  ck_assert_str_eq(oc_rule_name(x.f.items[0].rule), "RESPONSES-INPUT-TOKENS");
  ck_assert_str_eq(x.f.items[0].actual, "HTTP 404");
  ck_assert_ptr_nonnull(strstr(x.f.items[0].message, "does not count tokens"));
  oc_findings_free(&x.f);
  judge(&x, OC_API_RESPONSES, 200, "{\"tokens\":20}", 20, "{\"input\":\"q\"}");
  ck_assert_int_eq((int)x.f.count, 1);
  ck_assert_str_eq(x.f.items[0].path, "/input_tokens");
  oc_findings_free(&x.f);
  judge(&x, OC_API_RESPONSES, 500, "{}", 20, "{\"input\":\"q\"}");
  ck_assert_int_eq((int)x.f.count, 1);
  ck_assert_str_eq(x.f.items[0].actual, "HTTP 500");
  oc_findings_free(&x.f);
  judge(&x, OC_API_RESPONSES, 0, NULL, 20, "{\"input\":\"q\"}");
  ck_assert_int_eq((int)x.f.count, 1);
  ck_assert_ptr_nonnull(strstr(x.f.items[0].message, "connection refused"));
  oc_findings_free(&x.f);
}
END_TEST

START_TEST(parts_of_a_responses_request)
{
  char out[300];
  cJSON *r = parse("{\"instructions\":\"I\",\"tools\":[{\"type\":\"function\"}],\"input\":["
                   "{\"type\":\"reasoning\"},{\"type\":\"function_call\"},"
                   "{\"type\":\"function_call_output\"},{\"role\":\"developer\",\"content\":\"d\"}]}");
  oc_count_parts(OC_API_RESPONSES, r, out, sizeof(out));
  ck_assert_str_eq(out, "instructions, system items, tools, reasoning items, function_call items "
                        "and function_call_output items");
  cJSON_Delete(r);
  r = parse("{\"input\":\"q\"}");
  oc_count_parts(OC_API_RESPONSES, r, out, sizeof(out));
  ck_assert_str_eq(out, "");
  cJSON_Delete(r);
}
END_TEST

/* ---- which protocols a target serves ---- */

START_TEST(probe_answers_classified)
{
  signed char sf = -1;
  /* an invalid body refused: the route is there */
  ck_assert_int_eq(oc_serves_classify(OC_PROTO_CHAT, 400, NULL, "{}", 2, &sf), OC_PS_SERVED);
  ck_assert_int_eq(oc_serves_classify(OC_PROTO_MESSAGES, 500, NULL, "{}", 2, &sf), OC_PS_SERVED);
  ck_assert_int_eq(oc_serves_classify(OC_PROTO_MESSAGES, 404, NULL, "", 0, &sf),
                   OC_PS_NOT_SERVED);
  ck_assert_int_eq(oc_serves_classify(OC_PROTO_CHAT, 405, NULL, "", 0, &sf), OC_PS_NOT_SERVED);
  /* a key refused says nothing about the route; nor does no answer */
  ck_assert_int_eq(oc_serves_classify(OC_PROTO_CHAT, 401, NULL, "", 0, &sf), OC_PS_UNKNOWN);
  ck_assert_int_eq(oc_serves_classify(OC_PROTO_CHAT, 0, NULL, NULL, 0, &sf), OC_PS_UNKNOWN);
  ck_assert_int_eq(sf, -1);
  /* llama-server's words for previous_response_id: stateless */
  const char *ll = "{\"error\":{\"message\":\"llama.cpp does not support 'previous_response_id'.\"}}";
  ck_assert_int_eq(oc_serves_classify(OC_PROTO_RESPONSES, 400, NULL, ll, strlen(ll), &sf),
                   OC_PS_SERVED);
  ck_assert_int_eq(sf, 0);
  /* a stateful server looks the id up, even as a 404 */
  sf = -1;
  const char *oa = "{\"error\":{\"message\":\"Previous response with id 'resp_oacheck_probe' not found.\"}}";
  ck_assert_int_eq(oc_serves_classify(OC_PROTO_RESPONSES, 404, NULL, oa, strlen(oa), &sf),
                   OC_PS_SERVED);
  ck_assert_int_eq(sf, 1);
  /* oacheck serve's answer from its recordings */
  struct oc_headers h;
  oc_headers_init(&h);
  oc_headers_add(&h, OC_PROBE_HEADER, "not-recorded");
  ck_assert_int_eq(oc_serves_classify(OC_PROTO_CHAT, 404, &h, "", 0, &sf), OC_PS_NOT_RECORDED);
  oc_headers_free(&h);
  oc_headers_init(&h);
  oc_headers_add(&h, OC_PROBE_HEADER, "recorded");
  oc_headers_add(&h, OC_PROBE_STATEFUL_HEADER, "no");
  sf = -1;
  ck_assert_int_eq(oc_serves_classify(OC_PROTO_RESPONSES, 400, &h, "", 0, &sf), OC_PS_SERVED);
  ck_assert_int_eq(sf, 0);
  oc_headers_free(&h);
}
END_TEST

START_TEST(run_answers_noted)
{
  struct oc_serves p;
  oc_serves_init(&p);
  oc_serves_note(&p, OC_API_MESSAGES, 404, 0, 0);
  ck_assert_int_eq(p.state[OC_PROTO_MESSAGES], OC_PS_NOT_SERVED);
  /* served wins over an earlier 404 (a model not found) */
  oc_serves_note(&p, OC_API_MESSAGES, 200, 0, 0);
  oc_serves_note(&p, OC_API_MESSAGES, 404, 0, 0);
  ck_assert_int_eq(p.state[OC_PROTO_MESSAGES], OC_PS_SERVED);
  ck_assert_int_eq(p.from[OC_PROTO_MESSAGES], OC_PF_RUN);
  /* the counting endpoints decide nothing */
  oc_serves_note(&p, OC_API_RESPONSES_INPUT_TOKENS, 200, 0, 0);
  ck_assert_int_eq(p.state[OC_PROTO_RESPONSES], OC_PS_UNKNOWN);
  oc_serves_note(&p, OC_API_RESPONSES, 400, 1, 0);
  ck_assert_int_eq(p.state[OC_PROTO_RESPONSES], OC_PS_SERVED);
  ck_assert_int_eq(p.stateful, 0);
  oc_serves_note(&p, OC_API_CHAT, 0, 0, 1);
  ck_assert_int_eq(p.state[OC_PROTO_CHAT], OC_PS_NOT_RECORDED);
  char line[300];
  oc_serves_text(&p, line, sizeof(line));
  ck_assert_str_eq(line, "responses (stateless: refuses previous_response_id), messages; "
                         "not in the recordings: chat");
  p.decided = 1;
  cJSON *j = oc_serves_json(&p);
  ck_assert(cJSON_IsTrue(oc_json_get(oc_json_obj(j, "messages"), "served")));
  ck_assert(cJSON_IsNull(oc_json_get(oc_json_obj(j, "chat"), "served")));
  ck_assert(cJSON_IsFalse(oc_json_get(oc_json_obj(j, "responses"), "stateful")));
  ck_assert_str_eq(oc_json_str(oc_json_obj(j, "messages"), "from"), "run");
  cJSON_Delete(j);
}
END_TEST

START_TEST(recordings_say_what_they_hold)
{
  struct oc_cassette_store s;
  oc_cassette_store_init(&s);
  struct oc_cassette items[3];
  memset(items, 0, sizeof(items));
  items[0].path = (char *)"/v1/responses";
  items[0].status = 400;
  items[0].req_body = (char *)"{\"previous_response_id\":\"r\",\"input\":\"q\"}";
  items[0].req_body_len = strlen(items[0].req_body);
  items[1].path = (char *)"/v1/messages?beta=true";
  items[1].status = 200;
  items[2].path = (char *)"/chat/completions";
  items[2].status = 404;
  s.items = items;
  s.count = 3;
  signed char sf = -1;
  ck_assert_int_eq(oc_serves_recorded(&s, OC_PROTO_RESPONSES, &sf), OC_PS_SERVED);
  ck_assert_int_eq(sf, 0);
  ck_assert_int_eq(oc_serves_recorded(&s, OC_PROTO_MESSAGES, NULL), OC_PS_SERVED);
  ck_assert_int_eq(oc_serves_recorded(&s, OC_PROTO_CHAT, NULL), OC_PS_NOT_SERVED);
  s.count = 0;
  ck_assert_int_eq(oc_serves_recorded(&s, OC_PROTO_CHAT, NULL), OC_PS_NOT_RECORDED);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("token_count");
  TCase *tc = tcase_create("token_count");
  tcase_add_test(tc, messages_count_request);
  tcase_add_test(tc, responses_count_request);
  tcase_add_test(tc, answered_input_counts_the_cache);
  tcase_add_test(tc, judge_names_both_numbers_and_the_blocks);
  tcase_add_test(tc, judge_a_missing_or_broken_endpoint);
  tcase_add_test(tc, parts_of_a_responses_request);
  tcase_add_test(tc, probe_answers_classified);
  tcase_add_test(tc, run_answers_noted);
  tcase_add_test(tc, recordings_say_what_they_hold);
  suite_add_tcase(s, tc);
  return oc_test_run(s);
}
