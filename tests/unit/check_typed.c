/* check_typed.c — the typed-event decoders' shape memo (typed_events.c):
 * events of a Responses or Messages stream that differ only in their free
 * texts and counters are validated against the event schema once, which
 * is sound only while the shipped schemas constrain those members by type
 * (and counters by "integer, minimum 0") alone; this test keeps that
 * true, and that a value the schema refuses still changes the shape and
 * is reported. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "messages.h"
#include "decodeutil.h"
#include "responses.h"
#include "testutil.h"
#include "typed_events.h"

static int listed(const struct oc_shape_key *list, const char *k)
{
  for(; list->name; list++)
    if(strcmp(list->name, k) == 0 && strlen(k) == list->len)
      return 1;
  return 0;
}

/* Keywords that say nothing about a value. */
static int annotation(const char *k)
{
  return strcmp(k, "description") == 0 || strcmp(k, "title") == 0 || strncmp(k, "x-", 2) == 0;
}

/* A free text's schema: its type, nothing that reads the string. */
static int free_ok(const cJSON *prop)
{
  const cJSON *kw;
  cJSON_ArrayForEach(kw, prop)
  {
    if(!annotation(kw->string) && strcmp(kw->string, "type") != 0)
      return 0;
  }
  return 1;
}

/* A counter's schema: type integer, minimum 0, nothing else. */
static int counter_ok(const cJSON *prop)
{
  const cJSON *kw;
  cJSON_ArrayForEach(kw, prop)
  {
    const char *k = kw->string;
    if(annotation(k))
      continue;
    if(strcmp(k, "type") == 0 && cJSON_IsString(kw) && strcmp(kw->valuestring, "integer") == 0)
      continue;
    if(strcmp(k, "minimum") == 0 && cJSON_IsNumber(kw) && kw->valuedouble == 0)
      continue;
    return 0;
  }
  return 1;
}

static void walk(const cJSON *node, const struct oc_shape_keys *keys, const char *file, int *bad)
{
  if(cJSON_IsObject(node)) {
    const cJSON *p;
    cJSON_ArrayForEach(p, oc_json_obj(node, "properties"))
    {
      if(listed(keys->free_text, p->string) && !free_ok(p)) {
        fprintf(stderr, "%s: '%s' is a free text of the event-shape memo, but its schema reads "
                        "the value\n", file, p->string);
        (*bad)++;
      }
      if(listed(keys->counters, p->string) && !counter_ok(p)) {
        fprintf(stderr, "%s: '%s' is a counter of the event-shape memo, but its schema is more "
                        "than integer, minimum 0\n", file, p->string);
        (*bad)++;
      }
    }
  }
  const cJSON *c;
  cJSON_ArrayForEach(c, node)
  {
    walk(c, keys, file, bad);
  }
}

START_TEST(event_schemas_judge_free_texts_and_counters_blind)
{
  static const struct {
    const char *file;
    const struct oc_shape_keys *keys;
  } files[] = {
    { "schemas/responses/stream-event.json", &oc_responses_shape_keys },
    { "schemas/responses/response.json", &oc_responses_shape_keys },
    { "schemas/messages/stream-event.json", &oc_messages_shape_keys },
    { "schemas/messages/message.json", &oc_messages_shape_keys },
  };
  int bad = 0;
  for(size_t i = 0; i < OC_ARRAY_LEN(files); i++) {
    char *path = oc_test_src(files[i].file), err[512];
    cJSON *doc = oc_json_parse_file(path, err, sizeof(err));
    ck_assert_msg(doc != NULL, "%s", err);
    walk(doc, files[i].keys, files[i].file, &bad);
    cJSON_Delete(doc);
    free(path);
  }
  ck_assert_int_eq(bad, 0);
}
END_TEST

static void run(struct oc_decoded *x, const char *path, const char *req, const char *body)
{
  oc_decoded_start(x, path, req, 200, "text/event-stream", NULL, 0);
  oc_decoded_push(x, body, strlen(body));
  oc_decoded_finish(x, 1);
}

static void stop(struct oc_decoded *x)
{
  oc_decoded_stop(x);
}

static struct oc_rstream *rstream(struct oc_decoded *x)
{
  struct oc_rstream *s = oc_response_stream_of(&x->r, OC_PROTO_RESPONSES);
  ck_assert_ptr_nonnull(s);
  return s;
}

static struct oc_mstream *mstream(struct oc_decoded *x)
{
  struct oc_mstream *s = oc_response_stream_of(&x->r, OC_PROTO_MESSAGES);
  ck_assert_ptr_nonnull(s);
  return s;
}

/* Schema findings at event n (0: anywhere). */
static size_t schema_findings(const struct oc_decoded *x, const char *rule, long n)
{
  size_t k = 0;
  for(size_t i = 0; i < x->f.count; i++)
    k += strcmp(oc_rule_name(x->f.items[i].rule), rule) == 0 && (!n || x->f.items[i].chunk == n);
  return k;
}

static const char responses_req[] = "{\"model\":\"m\",\"input\":\"hi\",\"stream\":true}";

#define RDELTA(seq, text)                                                                          \
  "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\","            \
  "\"sequence_number\":" seq ",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,"     \
  "\"delta\":" text ",\"logprobs\":[]}\n\n"

#define RHEAD                                                                                      \
  "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,"          \
  "\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"created_at\":1,\"model\":\"m\","     \
  "\"status\":\"in_progress\",\"output\":[]}}\n\n"                                                 \
  "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\","            \
  "\"sequence_number\":1,\"output_index\":0,\"item\":{\"id\":\"msg_1\",\"type\":\"message\","     \
  "\"role\":\"assistant\",\"status\":\"in_progress\",\"content\":[]}}\n\n"                         \
  "event: response.content_part.added\ndata: {\"type\":\"response.content_part.added\","          \
  "\"sequence_number\":2,\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,"           \
  "\"part\":{\"type\":\"output_text\",\"text\":\"\",\"annotations\":[],\"logprobs\":[]}}\n\n"

START_TEST(responses_one_validation_per_shape)
{
  struct oc_decoded x;
  run(&x, "/v1/responses", responses_req,
      RHEAD RDELTA("3", "\"Hel\"") RDELTA("4", "\"lo, \"") RDELTA("5", "\"w\\u00f6rld\"")
        RDELTA("6", "\"\"") RDELTA("7", "\"!\""));
  ck_assert_int_eq(rstream(&x)->events, 8);
  /* three heads, and the five deltas as one shape */
  ck_assert_int_eq(rstream(&x)->shapes.validations, 4);
  ck_assert_int_eq(schema_findings(&x, "RESPONSES-EVENT-SCHEMA", 0), 0);
  stop(&x);
}
END_TEST

START_TEST(responses_a_refused_value_is_validated_and_said)
{
  struct oc_decoded x;
  /* after a valid delta of each kind: a negative sequence number, a
   * fractional output_index, a delta that is a number */
  run(&x, "/v1/responses", responses_req,
      RHEAD RDELTA("3", "\"a\"") RDELTA("-4", "\"b\"") RDELTA("5", "\"c\"")
        "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\","
        "\"sequence_number\":6,\"item_id\":\"msg_1\",\"output_index\":0.5,\"content_index\":0,"
        "\"delta\":\"d\",\"logprobs\":[]}\n\n" RDELTA("7", "42"));
  ck_assert_int_eq(schema_findings(&x, "RESPONSES-EVENT-SCHEMA", 5), 1);
  ck_assert_int_eq(schema_findings(&x, "RESPONSES-EVENT-SCHEMA", 7), 1);
  ck_assert_int_eq(schema_findings(&x, "RESPONSES-EVENT-SCHEMA", 8), 1);
  ck_assert_int_eq(schema_findings(&x, "RESPONSES-EVENT-SCHEMA", 4), 0);
  ck_assert_int_eq(schema_findings(&x, "RESPONSES-EVENT-SCHEMA", 6), 0);
  stop(&x);
}
END_TEST

static const char messages_req[] =
  "{\"model\":\"m\",\"max_tokens\":100,\"stream\":true,"
  "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

#define MHEAD                                                                                      \
  "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\","        \
  "\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\","                    \
  "\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":1,"                     \
  "\"output_tokens\":1}}}\n\n"                                                                     \
  "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"              \
  "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"

#define MDELTA(index, text)                                                                        \
  "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":" index ","      \
  "\"delta\":{\"type\":\"text_delta\",\"text\":" text "}}\n\n"

#define MTAIL                                                                                      \
  "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"            \
  "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"           \
  "\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":5}}\n\n"                      \
  "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"

START_TEST(messages_one_validation_per_shape)
{
  struct oc_decoded x;
  run(&x, "/v1/messages", messages_req,
      MHEAD MDELTA("0", "\"Hel\"") MDELTA("0", "\"lo\"") MDELTA("0", "\"\\n\"") MDELTA("0", "\"\"")
        MTAIL);
  ck_assert_int_eq(mstream(&x)->events, 9);
  /* two heads, the deltas as one shape, three tails */
  ck_assert_int_eq(mstream(&x)->shapes.validations, 6);
  ck_assert_int_eq(schema_findings(&x, "MESSAGES-EVENT-SCHEMA", 0), 0);
  stop(&x);
}
END_TEST

START_TEST(messages_a_refused_value_is_validated_and_said)
{
  struct oc_decoded x;
  run(&x, "/v1/messages", messages_req,
      MHEAD MDELTA("0", "\"a\"") MDELTA("-1", "\"b\"") MDELTA("0", "null") MTAIL);
  ck_assert_int_eq(schema_findings(&x, "MESSAGES-EVENT-SCHEMA", 4), 1);
  ck_assert_int_eq(schema_findings(&x, "MESSAGES-EVENT-SCHEMA", 5), 1);
  ck_assert_int_eq(schema_findings(&x, "MESSAGES-EVENT-SCHEMA", 3), 0);
  stop(&x);
}
END_TEST

static Suite *typed_suite(void)
{
  Suite *s = suite_create("typed");
  TCase *tc = tcase_create("shape-memo");
  tcase_add_test(tc, event_schemas_judge_free_texts_and_counters_blind);
  tcase_add_test(tc, responses_one_validation_per_shape);
  tcase_add_test(tc, responses_a_refused_value_is_validated_and_said);
  tcase_add_test(tc, messages_one_validation_per_shape);
  tcase_add_test(tc, messages_a_refused_value_is_validated_and_said);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return oc_test_run(typed_suite());
}
