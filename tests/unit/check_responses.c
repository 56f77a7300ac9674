/* check_responses.c — the Responses API decoder on hostile streams: each
 * ends as findings in bounded time and memory (a million output items,
 * a 50 MB delta, sequence numbers at 2^63, output_index anywhere, events
 * that never end), and the Response it rebuilds for the results. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "decodeutil.h"
#include "responses.h"
#include "testutil.h"

static void start(struct oc_decoded *x, const char *req)
{
  oc_decoded_start(x, "/v1/responses", req, 200, "text/event-stream", NULL, 1);
  ck_assert_int_eq(x->info.api, OC_API_RESPONSES);
}

static void push(struct oc_decoded *x, const char *s)
{
  oc_decoded_push(x, s, strlen(s));
}

static void finish(struct oc_decoded *x)
{
  oc_decoded_finish(x, 1);
}

/* the protocol decoder's own state */
static struct oc_rstream *rstream(struct oc_decoded *x)
{
  struct oc_rstream *s = oc_response_stream_of(&x->r, OC_PROTO_RESPONSES);
  ck_assert_ptr_nonnull(s);
  return s;
}

static void stop(struct oc_decoded *x)
{
  oc_decoded_stop(x);
}

static size_t count(const struct oc_decoded *x, const char *rule)
{
  return oc_decoded_count(x, rule);
}

#define CREATED                                                                                   \
  "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,"           \
  "\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"created_at\":1,\"model\":\"m\","      \
  "\"status\":\"in_progress\",\"output\":[]}}\n\n"

START_TEST(a_million_items_are_one_finding)
{
  struct oc_decoded x;
  start(&x, "{\"model\":\"m\",\"input\":\"hi\",\"stream\":true}");
  push(&x, CREATED);
  char ev[256];
  for(long i = 0; i < 1000000; i++) {
    snprintf(ev, sizeof(ev),
             "data: {\"type\":\"response.output_item.added\",\"sequence_number\":%ld,"
             "\"output_index\":%ld,\"item\":{\"type\":\"x\",\"id\":\"i%ld\"}}\n\n", i + 1, i, i);
    push(&x, ev);
  }
  finish(&x);
  ck_assert_uint_eq(count(&x, "RESPONSES-SIZE"), 1);
  ck_assert_uint_eq(rstream(&x)->nitems, OC_RESP_MAX_ITEMS);
  ck_assert_uint_le(rstream(&x)->aitems, 2 * OC_RESP_MAX_ITEMS);
  /* events without end: one finding, not one per event */
  ck_assert_uint_eq(count(&x, "RESPONSES-TERMINAL"), 1);
  ck_assert_uint_eq(count(&x, "RESPONSES-ITEM-ORDER"), 1);
  ck_assert_uint_le(x.f.count, 20);
  stop(&x);
}
END_TEST

START_TEST(a_50_mb_text_keeps_a_bounded_head)
{
  struct oc_decoded x;
  start(&x, "{\"model\":\"m\",\"input\":\"hi\",\"stream\":true}");
  push(&x, CREATED);
  push(&x, "data: {\"type\":\"response.output_item.added\",\"sequence_number\":1,\"output_index\":0,"
           "\"item\":{\"type\":\"message\",\"id\":\"m1\",\"role\":\"assistant\",\"status\":"
           "\"in_progress\",\"content\":[]}}\n\n");
  /* one 50 MB delta: past the event cap, dropped as SSE-EVENT-SIZE */
  push(&x, "data: {\"type\":\"response.output_text.delta\",\"sequence_number\":2,\"item_id\":\"m1\","
           "\"output_index\":0,\"content_index\":0,\"delta\":\"");
  char *mb = malloc(1u << 20);
  ck_assert_ptr_nonnull(mb);
  memset(mb, 'a', 1u << 20);
  mb[(1u << 20) - 1] = '\0';
  for(int i = 0; i < 50; i++)
    push(&x, mb);
  push(&x, "\"}\n\n");
  /* then 50 deltas of 1 MB each: the text is counted whole, kept capped */
  for(int i = 0; i < 50; i++) {
    char head[200];
    snprintf(head, sizeof(head), "data: {\"type\":\"response.output_text.delta\",\"sequence_number\":%d,"
             "\"item_id\":\"m1\",\"output_index\":0,\"content_index\":0,\"delta\":\"", 3 + i);
    push(&x, head);
    push(&x, mb);
    push(&x, "\"}\n\n");
  }
  finish(&x);
  free(mb);
  ck_assert_uint_ge(count(&x, "SSE-EVENT-SIZE"), 1);
  const struct oc_ritem *it = &rstream(&x)->items[0];
  ck_assert_uint_eq(it->deltas.len, 50 * ((1u << 20) - 1));
  ck_assert_uint_le(it->deltas.head.len, OC_CAP_CONTENT);
  cJSON *msg = NULL;
  cJSON *o = oc_response_json(&x.r, &msg, NULL);
  ck_assert_ptr_nonnull(o);
  ck_assert_ptr_nonnull(msg);
  ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(msg, "truncated")));
  cJSON_Delete(o);
  cJSON_Delete(msg);
  stop(&x);
}
END_TEST

START_TEST(numbers_anywhere_are_findings)
{
  struct oc_decoded x;
  start(&x, "{\"model\":\"m\",\"input\":\"hi\",\"stream\":true}");
  push(&x, "data: {\"type\":\"response.created\",\"sequence_number\":9223372036854775807,"
           "\"response\":{\"id\":\"r\",\"object\":\"response\",\"created_at\":1,\"model\":\"m\","
           "\"status\":\"in_progress\",\"output\":[]}}\n\n");
  push(&x, "data: {\"type\":\"response.output_item.added\",\"sequence_number\":9223372036854775808,"
           "\"output_index\":1e300,\"item\":{\"type\":\"message\",\"id\":\"m1\",\"role\":\"assistant\","
           "\"status\":\"in_progress\",\"content\":[]}}\n\n");
  push(&x, "data: {\"type\":\"response.content_part.added\",\"sequence_number\":-1,\"item_id\":\"m1\","
           "\"output_index\":-7,\"content_index\":18446744073709551616,\"part\":{\"type\":"
           "\"output_text\",\"text\":\"\",\"annotations\":[],\"logprobs\":[]}}\n\n");
  finish(&x);
  ck_assert_uint_eq(count(&x, "RESPONSES-SEQUENCE"), 1);
  ck_assert_uint_eq(count(&x, "RESPONSES-OUTPUT-INDEX"), 1);
  ck_assert_uint_eq(count(&x, "RESPONSES-CONTENT-INDEX"), 1);
  ck_assert_uint_eq(count(&x, "RESPONSES-TERMINAL"), 1);
  stop(&x);
}
END_TEST

START_TEST(the_results_hold_the_rebuilt_response)
{
  struct oc_decoded x;
  start(&x, "{\"model\":\"m\",\"input\":\"hi\",\"stream\":true,\"tools\":[{\"type\":\"function\","
            "\"name\":\"get_weather\",\"parameters\":{\"type\":\"object\"}}]}");
  push(&x, CREATED);
  push(&x, "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\","
           "\"sequence_number\":1,\"output_index\":0,\"item\":{\"type\":\"function_call\",\"id\":\"fc_1\","
           "\"call_id\":\"call_1\",\"name\":\"get_weather\",\"arguments\":\"\",\"status\":\"in_progress\"}}\n\n"
           "event: response.function_call_arguments.delta\ndata: {\"type\":"
           "\"response.function_call_arguments.delta\",\"sequence_number\":2,\"item_id\":\"fc_1\","
           "\"output_index\":0,\"delta\":\"{\\\"location\\\": \\\"Oslo\\\"}\"}\n\n"
           "event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\","
           "\"sequence_number\":3,\"output_index\":0,\"item\":{\"type\":\"function_call\",\"id\":\"fc_1\","
           "\"call_id\":\"call_1\",\"name\":\"get_weather\",\"arguments\":\"{\\\"location\\\": "
           "\\\"Oslo\\\"}\",\"status\":\"completed\"}}\n\n");
  finish(&x);
  cJSON *msg = NULL;
  cJSON *o = oc_response_json(&x.r, &msg, NULL);
  ck_assert_ptr_nonnull(o);
  ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "events")), 4);
  const cJSON *call = cJSON_GetArrayItem(cJSON_GetObjectItem(msg, "output"), 0);
  ck_assert_str_eq(oc_json_str(call, "type"), "function_call");
  ck_assert_str_eq(oc_json_str(call, "call_id"), "call_1");
  ck_assert_str_eq(oc_json_str(call, "arguments"), "{\"location\": \"Oslo\"}");
  ck_assert(cJSON_IsNull(cJSON_GetObjectItem(msg, "status"))); /* it never completed */
  cJSON_Delete(o);
  cJSON_Delete(msg);
  stop(&x);
}
END_TEST

START_TEST(the_request_reads_the_responses_shapes)
{
  cJSON *req = cJSON_Parse("{\"model\":\"m\",\"input\":\"hi\",\"max_output_tokens\":8,\"store\":false,"
                           "\"previous_response_id\":\"resp_0\",\"parallel_tool_calls\":false,"
                           "\"tool_choice\":{\"type\":\"function\",\"name\":\"f\"},\"tools\":[{\"type\":"
                           "\"function\",\"name\":\"f\",\"parameters\":{\"type\":\"object\"}}],"
                           "\"text\":{\"format\":{\"type\":\"json_schema\",\"name\":\"a\",\"schema\":"
                           "{\"type\":\"object\"}}}}");
  struct oc_request_info info;
  oc_request_info_init(&info, "POST", "/v1/responses", req);
  ck_assert_int_eq(info.api, OC_API_RESPONSES);
  ck_assert_int_eq(info.max_tokens, 8);
  ck_assert_int_eq(info.store, 0);
  ck_assert_str_eq(info.previous_response_id, "resp_0");
  ck_assert_int_eq(info.parallel_tool_calls, 0);
  ck_assert_int_eq(info.tool_choice, OC_TOOL_CHOICE_NAMED);
  ck_assert_str_eq(info.named_tool, "f");
  ck_assert_int_eq(info.format, OC_FORMAT_JSON_SCHEMA);
  ck_assert_ptr_nonnull(info.format_schema);
  ck_assert_ptr_nonnull(oc_request_tool_parameters(&info, "f"));
  ck_assert_int_eq(oc_api_from_path("/v1/responses/input_tokens"), OC_API_RESPONSES_INPUT_TOKENS);
  ck_assert_int_eq(oc_api_from_path("/responses"), OC_API_RESPONSES);
  /* a chat request's text and max_output_tokens mean nothing */
  oc_request_info_init(&info, "POST", "/v1/chat/completions", req);
  ck_assert_int_eq(info.max_tokens, -1);
  ck_assert_int_eq(info.format, OC_FORMAT_TEXT);
  cJSON_Delete(req);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("responses");
  TCase *tc = tcase_create("hostile");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, a_million_items_are_one_finding);
  tcase_add_test(tc, a_50_mb_text_keeps_a_bounded_head);
  tcase_add_test(tc, numbers_anywhere_are_findings);
  tcase_add_test(tc, the_results_hold_the_rebuilt_response);
  tcase_add_test(tc, the_request_reads_the_responses_shapes);
  suite_add_tcase(s, tc);
  return oc_test_run(s);
}
