/* check_messages.c — the Messages API decoder on hostile streams: each
 * ends as findings in bounded time and memory (a block never stopped, a
 * million blocks, an index at 2^31, a 50 MB input_json_delta and 50 MB
 * of them), the Message it rebuilds for the results, and the request's
 * Anthropic shapes read by request.c. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "decodeutil.h"
#include "messages.h"
#include "testutil.h"

static void start(struct oc_decoded *x, const char *req)
{
  oc_decoded_start(x, "/v1/messages", req, 200, "text/event-stream", NULL, 1);
  ck_assert_int_eq(x->info.api, OC_API_MESSAGES);
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
static struct oc_mstream *mstream(struct oc_decoded *x)
{
  struct oc_mstream *s = oc_response_stream_of(&x->r, OC_PROTO_MESSAGES);
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

#define REQ "{\"model\":\"m\",\"max_tokens\":64,\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]"
#define TOOLS                                                                                     \
  ",\"tools\":[{\"name\":\"get_weather\",\"input_schema\":{\"type\":\"object\",\"properties\":"    \
  "{\"location\":{\"type\":\"string\"}},\"required\":[\"location\"]}}]"
#define MSTART                                                                                    \
  "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\","         \
  "\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null," \
  "\"stop_sequence\":null,\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n"
#define MEND                                                                                      \
  "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"           \
  "\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":3}}\n\n"                     \
  "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

START_TEST(a_block_never_stopped_is_one_finding)
{
  struct oc_decoded x;
  start(&x, REQ "}");
  push(&x, MSTART);
  push(&x, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
           "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
  for(int i = 0; i < 100000; i++)
    push(&x, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
             "\"delta\":{\"type\":\"text_delta\",\"text\":\"ab\"}}\n\n");
  finish(&x);
  ck_assert_uint_eq(count(&x, "MESSAGES-BLOCK-STOP"), 1);
  ck_assert_uint_eq(count(&x, "MESSAGES-STOP"), 1);
  ck_assert_uint_le(x.f.count, 4);
  ck_assert_uint_eq(mstream(&x)->blocks[0].text.len, 200000);
  stop(&x);
}
END_TEST

START_TEST(a_million_blocks_are_one_finding)
{
  struct oc_decoded x;
  start(&x, REQ "}");
  push(&x, MSTART);
  char ev[512];
  for(long i = 0; i < 1000000; i++) {
    snprintf(ev, sizeof(ev),
             "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":%ld,"
             "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
             "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":%ld,"
             "\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n"
             "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":%ld}\n\n",
             i, i, i);
    push(&x, ev);
  }
  push(&x, MEND);
  finish(&x);
  ck_assert_uint_eq(count(&x, "MESSAGES-SIZE"), 1);
  ck_assert_uint_eq(mstream(&x)->nblocks, OC_MSG_MAX_BLOCKS);
  ck_assert_uint_le(mstream(&x)->ablocks, 2 * OC_MSG_MAX_BLOCKS);
  /* the deltas and stops of blocks past the cap are not findings */
  ck_assert_uint_eq(count(&x, "MESSAGES-BLOCK-ORDER"), 0);
  ck_assert_uint_le(x.f.count, 4);
  stop(&x);
}
END_TEST

START_TEST(an_index_at_2_31_is_a_finding)
{
  struct oc_decoded x;
  start(&x, REQ "}");
  push(&x, MSTART);
  push(&x, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":2147483648,"
           "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
           "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2147483648,"
           "\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n"
           "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1e300,"
           "\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n"
           "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":-1,"
           "\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n"
           "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":2147483648}\n\n");
  push(&x, MEND);
  finish(&x);
  ck_assert_uint_eq(count(&x, "MESSAGES-BLOCK-INDEX"), 1);
  ck_assert_uint_eq(mstream(&x)->nblocks, 1);
  ck_assert_uint_eq(mstream(&x)->blocks[0].text.len, 1);
  stop(&x);
}
END_TEST

START_TEST(a_50_mb_input_keeps_a_bounded_head)
{
  struct oc_decoded x;
  start(&x, REQ TOOLS "}");
  push(&x, MSTART);
  push(&x, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
           "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\","
           "\"input\":{}}}\n\n");
  char *mb = malloc(1u << 20);
  ck_assert_ptr_nonnull(mb);
  memset(mb, 'a', 1u << 20);
  mb[(1u << 20) - 1] = '\0';
  /* one 50 MB delta: past the event cap, dropped as SSE-EVENT-SIZE */
  push(&x, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
           "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"");
  for(int i = 0; i < 50; i++)
    push(&x, mb);
  push(&x, "\"}}\n\n");
  /* then 50 deltas of 1 MB: the input is counted whole, kept capped */
  for(int i = 0; i < 50; i++) {
    push(&x, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
             "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"");
    push(&x, mb);
    push(&x, "\"}}\n\n");
  }
  push(&x, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
           "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
           "\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":3}}\n\n"
           "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
  finish(&x);
  free(mb);
  ck_assert_uint_ge(count(&x, "SSE-EVENT-SIZE"), 1);
  const struct oc_mblock *b = &mstream(&x)->blocks[0];
  ck_assert_uint_eq(b->text.len, 50 * ((1u << 20) - 1));
  ck_assert_uint_le(b->text.head.len, OC_CAP_CONTENT);
  /* more than oacheck keeps: no verdict on the input's JSON */
  ck_assert_uint_eq(count(&x, "MESSAGES-TOOL-ARGS"), 0);
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

START_TEST(the_results_hold_the_rebuilt_message)
{
  struct oc_decoded x;
  start(&x, REQ TOOLS "}");
  push(&x, MSTART);
  push(&x, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
           "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\","
           "\"input\":{}}}\n\n"
           ": keepalive\n\n"
           "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
           "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"location\\\"\"}}\n\n"
           "event: ping\ndata: {\"type\":\"ping\"}\n\n"
           "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
           "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\": \\\"Oslo\\\"}\"}}\n\n"
           "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
           "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
           "\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":9}}\n\n"
           "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
  finish(&x);
  ck_assert_uint_eq(x.f.count, 0);
  cJSON *msg = NULL;
  cJSON *o = oc_response_json(&x.r, &msg, NULL);
  ck_assert_ptr_nonnull(o);
  ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "events")), 8); /* the comment is no event */
  ck_assert_str_eq(oc_json_str(msg, "type"), "message");
  ck_assert_str_eq(oc_json_str(msg, "stop_reason"), "tool_use");
  const cJSON *b = cJSON_GetArrayItem(cJSON_GetObjectItem(msg, "content"), 0);
  ck_assert_str_eq(oc_json_str(b, "type"), "tool_use");
  ck_assert_str_eq(oc_json_str(b, "id"), "toolu_1");
  ck_assert_str_eq(oc_json_str(oc_json_obj(b, "input"), "location"), "Oslo");
  ck_assert_int_eq((int)cJSON_GetNumberValue(oc_json_get(oc_json_obj(msg, "usage"), "output_tokens")), 9);
  cJSON_Delete(o);
  cJSON_Delete(msg);
  stop(&x);
}
END_TEST

START_TEST(the_request_reads_the_anthropic_shapes)
{
  cJSON *req = cJSON_Parse("{\"model\":\"m\",\"max_tokens\":8,\"messages\":[],"
                           "\"stop_sequences\":[\"END\"],\"thinking\":{\"type\":\"enabled\","
                           "\"budget_tokens\":1024},\"tool_choice\":{\"type\":\"tool\",\"name\":\"f\","
                           "\"disable_parallel_tool_use\":true},\"tools\":[{\"name\":\"f\","
                           "\"input_schema\":{\"type\":\"object\"}}]}");
  struct oc_request_info info;
  oc_request_info_init(&info, "POST", "/v1/messages?beta=true", req);
  ck_assert_int_eq(info.api, OC_API_MESSAGES);
  ck_assert_int_eq(info.max_tokens, 8);
  ck_assert_int_eq(info.tool_choice, OC_TOOL_CHOICE_NAMED);
  ck_assert_str_eq(info.named_tool, "f");
  ck_assert_int_eq(info.parallel_tool_calls, 0);
  ck_assert_int_eq(info.thinking_enabled, 1);
  ck_assert_int_eq(info.has_messages, 1);
  ck_assert_ptr_nonnull(info.stop_sequences);
  ck_assert_ptr_nonnull(oc_request_tool_parameters(&info, "f"));
  ck_assert(oc_request_has_tool(&info, "f"));
  ck_assert_int_eq(oc_api_from_path("/v1/messages/count_tokens"), OC_API_MESSAGES_COUNT_TOKENS);
  cJSON_Delete(req);
  req = cJSON_Parse("{\"tool_choice\":{\"type\":\"any\"},\"tools\":[{\"name\":\"f\","
                    "\"input_schema\":{}}]}");
  oc_request_info_init(&info, "POST", "/v1/messages", req);
  ck_assert_int_eq(info.tool_choice, OC_TOOL_CHOICE_REQUIRED);
  ck_assert_int_eq(info.has_messages, 0);
  cJSON_Delete(req);
  req = cJSON_Parse("{\"tool_choice\":{\"type\":\"none\"}}");
  oc_request_info_init(&info, "POST", "/v1/messages", req);
  ck_assert_int_eq(info.tool_choice, OC_TOOL_CHOICE_NONE);
  cJSON_Delete(req);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("messages");
  TCase *tc = tcase_create("hostile");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, a_block_never_stopped_is_one_finding);
  tcase_add_test(tc, a_million_blocks_are_one_finding);
  tcase_add_test(tc, an_index_at_2_31_is_a_finding);
  tcase_add_test(tc, a_50_mb_input_keeps_a_bounded_head);
  tcase_add_test(tc, the_results_hold_the_rebuilt_message);
  tcase_add_test(tc, the_request_reads_the_anthropic_shapes);
  suite_add_tcase(s, tc);
  return oc_test_run(s);
}
