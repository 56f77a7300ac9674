/* check_chat.c — the stream decoder's chunk-shape memo: chunks that differ
 * only in free-text values are validated against the chunk schema once,
 * which is only sound while the shipped chunk schemas constrain those
 * fields by type alone; this test keeps both true. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "chat.h"
#include "json.h"
#include "response.h"
#include "testutil.h"

/* The keys chat.c treats as free text (free_text_key). */
static const char *const free_text[] = { "id", "text", "model", "content", "refusal", "reasoning",
                                         "arguments", "reasoning_content", "system_fingerprint" };

static int is_free(const char *k)
{
  for(size_t i = 0; i < OC_ARRAY_LEN(free_text); i++)
    if(strcmp(k, free_text[i]) == 0)
      return 1;
  return 0;
}

/* A property schema whose verdict on a string cannot depend on the string. */
static int value_blind(const cJSON *prop)
{
  const cJSON *kw;
  cJSON_ArrayForEach(kw, prop)
  {
    const char *k = kw->string;
    if(strcmp(k, "type") && strcmp(k, "description") && strcmp(k, "title") && strcmp(k, "items") &&
       strncmp(k, "x-", 2) != 0)
      return 0;
  }
  return 1;
}

static void walk(const cJSON *node, const char *file, int *bad)
{
  if(cJSON_IsObject(node)) {
    const cJSON *props = oc_json_obj(node, "properties");
    const cJSON *p;
    cJSON_ArrayForEach(p, props)
    {
      if(is_free(p->string) && !value_blind(p)) {
        fprintf(stderr, "%s: property '%s' constrains its value; the chunk-shape memo in chat.c "
                        "would be unsound\n", file, p->string);
        (*bad)++;
      }
    }
  }
  const cJSON *c;
  cJSON_ArrayForEach(c, node)
  {
    walk(c, file, bad);
  }
}

START_TEST(chunk_schemas_constrain_free_text_by_type_only)
{
  static const char *const files[] = { "schemas/chat.completion.chunk.json", "schemas/common.json",
                                       "schemas/text_completion.chunk.json" };
  int bad = 0;
  for(size_t i = 0; i < OC_ARRAY_LEN(files); i++) {
    char *path = oc_test_src(files[i]), err[512];
    cJSON *doc = oc_json_parse_file(path, err, sizeof(err));
    ck_assert_msg(doc != NULL, "%s", err);
    walk(doc, files[i], &bad);
    cJSON_Delete(doc);
    free(path);
  }
  ck_assert_int_eq(bad, 0);
}
END_TEST

#define CHUNK(delta, fr)                                                                            \
  "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"m\","    \
  "\"choices\":[{\"index\":0,\"delta\":" delta ",\"finish_reason\":" fr "}]}\n\n"

static void run(const char *body, long *validations, struct oc_findings *f)
{
  char err[512];
  struct oc_schemas sch;
  ck_assert_msg(oc_schemas_load(&sch, err, sizeof(err)) == 0, "%s", err);
  cJSON *req = cJSON_Parse("{\"model\":\"m\",\"stream\":true,\"messages\":[]}");
  struct oc_request_info info;
  oc_request_info_init(&info, "POST", "/v1/chat/completions", req);
  struct oc_check c;
  oc_check_init(&c, f, oc_profile_find("openai"));
  struct oc_headers h;
  oc_headers_init(&h);
  oc_headers_add(&h, "Content-Type", "text/event-stream");
  struct oc_response r;
  oc_response_init(&r, &info, &c, &sch, 0, 0, 0);
  oc_response_head(&r, 200, &h, 0);
  oc_response_body(&r, body, strlen(body), 0);
  oc_response_finish(&r, 0, 1);
  *validations = r.stream.schema_validations;
  oc_response_free(&r);
  oc_headers_free(&h);
  cJSON_Delete(req);
  oc_schemas_free(&sch);
}

START_TEST(one_validation_per_shape)
{
  struct oc_findings f;
  oc_findings_init(&f);
  long v;
  run(CHUNK("{\"role\":\"assistant\",\"content\":\"\"}", "null")
      CHUNK("{\"content\":\"Hel\"}", "null") CHUNK("{\"content\":\"lo, \"}", "null")
      CHUNK("{\"content\":\"world\"}", "null") CHUNK("{}", "\"stop\"") "data: [DONE]\n\n",
      &v, &f);
  /* role chunk, content chunks (one shape), finish chunk */
  ck_assert_int_eq(v, 3);
  ck_assert_uint_eq(f.count, 0);
  oc_findings_free(&f);
}
END_TEST

START_TEST(a_bad_value_breaks_the_shape)
{
  struct oc_findings f;
  oc_findings_init(&f);
  long v;
  /* the second finish chunk has the first's shape but for an invalid
   * finish_reason: it must be validated, and fail */
  run(CHUNK("{\"role\":\"assistant\",\"content\":\"\"}", "null") CHUNK("{\"content\":\"Hi\"}", "null")
      CHUNK("{\"content\":\"!\"}", "\"finished\"") "data: [DONE]\n\n",
      &v, &f);
  ck_assert_int_eq(v, 3);
  ck_assert_msg(oc_findings_total(&f, OC_R_STREAM_CHUNK_SCHEMA) >= 1, "the bad finish_reason passed");
  const struct oc_finding *x = oc_findings_first(&f, OC_R_STREAM_CHUNK_SCHEMA);
  ck_assert_int_eq(x->chunk, 3);
  oc_findings_free(&f);
}
END_TEST

/* A stream of nchoices choices, each sending per bytes of content in
 * pieces of piece bytes, decoded with the stream-wide cap at max; the
 * rebuilt message as the results would keep it into *msg. */
static void run_big(int nchoices, size_t per, size_t piece, size_t max, struct oc_findings *f,
                    size_t *rebuilt, cJSON **msg)
{
  char err[512];
  struct oc_schemas sch;
  ck_assert_msg(oc_schemas_load(&sch, err, sizeof(err)) == 0, "%s", err);
  cJSON *req = cJSON_Parse("{\"model\":\"m\",\"stream\":true,\"messages\":[]}");
  struct oc_request_info info;
  oc_request_info_init(&info, "POST", "/v1/chat/completions", req);
  struct oc_check c;
  oc_check_init(&c, f, oc_profile_find("openai"));
  struct oc_headers h;
  oc_headers_init(&h);
  oc_headers_add(&h, "Content-Type", "text/event-stream");
  struct oc_response r;
  oc_response_init(&r, &info, &c, &sch, 0, 0, 0);
  oc_response_head(&r, 200, &h, 0);
  if(max)
    r.stream.max_rebuilt = max;
  char *text = malloc(piece + 1);
  memset(text, 'x', piece);
  text[piece] = '\0';
  struct oc_buf ev;
  oc_buf_init(&ev, piece + 4096);
  for(int k = 0; k < nchoices; k++) {
    oc_buf_reset(&ev);
    oc_buf_printf(&ev, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
                  "\"choices\":[{\"index\":%d,\"delta\":{\"role\":\"assistant\"},\"finish_reason\":null}]}\n\n", k);
    oc_response_body(&r, ev.data, ev.len, 0);
  }
  for(size_t sent = 0; sent < per; sent += piece)
    for(int k = 0; k < nchoices; k++) {
      oc_buf_reset(&ev);
      oc_buf_printf(&ev, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
                    "\"choices\":[{\"index\":%d,\"delta\":{\"content\":\"%s\"},\"finish_reason\":null}]}\n\n", k, text);
      oc_response_body(&r, ev.data, ev.len, 0);
    }
  for(int k = 0; k < nchoices; k++) {
    oc_buf_reset(&ev);
    oc_buf_printf(&ev, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
                  "\"choices\":[{\"index\":%d,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n", k);
    oc_response_body(&r, ev.data, ev.len, 0);
  }
  oc_response_body(&r, "data: [DONE]\n\n", 14, 0);
  oc_response_finish(&r, 0, 1);
  *rebuilt = r.stream.rebuilt;
  *msg = oc_stream_completion(&r.stream);
  oc_buf_free(&ev);
  free(text);
  oc_response_free(&r);
  oc_headers_free(&h);
  cJSON_Delete(req);
  oc_schemas_free(&sch);
}

START_TEST(the_stream_cap_holds_across_choices)
{
  /* every choice is far under the per-field cap; together they are not */
  struct oc_findings f;
  oc_findings_init(&f);
  size_t rebuilt;
  cJSON *msg;
  run_big(8, 4000, 500, 10000, &f, &rebuilt, &msg);
  ck_assert_uint_le(rebuilt, 10000);
  ck_assert_msg(oc_findings_total(&f, OC_R_CHAT_SIZE) == 1, "CHAT-SIZE fired %zu times",
                oc_findings_total(&f, OC_R_CHAT_SIZE));
  ck_assert_int_eq(oc_findings_first(&f, OC_R_CHAT_SIZE)->severity, OC_SEV_ERROR);
  cJSON_Delete(msg);
  oc_findings_free(&f);
}
END_TEST

START_TEST(the_results_keep_a_bounded_message)
{
  /* 2 MiB of text: the rules see it all, the results keep 1 MiB and say so */
  struct oc_findings f;
  oc_findings_init(&f);
  size_t rebuilt;
  cJSON *msg;
  run_big(2, 1u << 20, 64u << 10, 0, &f, &rebuilt, &msg);
  ck_assert_uint_eq(rebuilt, 2u << 20);
  ck_assert(cJSON_IsTrue(oc_json_get(msg, "truncated")));
  ck_assert_double_eq(oc_json_num(msg, "bytes", 0) >= (double)(2u << 20), 1);
  size_t kept = 0;
  const cJSON *ch;
  cJSON_ArrayForEach(ch, oc_json_arr(msg, "choices"))
    kept += strlen(oc_json_str(oc_json_obj(ch, "message"), "content"));
  ck_assert_uint_le(kept, OC_CAP_RESULT_MESSAGE);
  const struct oc_finding *x = oc_findings_first(&f, OC_R_CHAT_SIZE);
  ck_assert_msg(x && x->severity == OC_SEV_INFO, "no info finding says the results were cut");
  cJSON_Delete(msg);
  oc_findings_free(&f);
}
END_TEST

/* A non-streamed body of n tiny values: is a cJSON copy kept? */
static int parsed_copy(size_t n, int *too_big)
{
  char err[512];
  struct oc_schemas sch;
  ck_assert_msg(oc_schemas_load(&sch, err, sizeof(err)) == 0, "%s", err);
  struct oc_request_info info;
  oc_request_info_init(&info, "GET", "/v1/things", NULL);
  struct oc_findings f;
  oc_findings_init(&f);
  struct oc_check c;
  oc_check_init(&c, &f, oc_profile_find("openai"));
  struct oc_headers h;
  oc_headers_init(&h);
  oc_headers_add(&h, "Content-Type", "application/json");
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_BODY);
  oc_buf_addc(&b, '[');
  for(size_t i = 0; i < n; i++)
    oc_buf_adds(&b, i ? ",0" : "0");
  oc_buf_addc(&b, ']');
  struct oc_response r;
  oc_response_init(&r, &info, &c, &sch, 0, 0, 0);
  oc_response_head(&r, 200, &h, 0);
  oc_response_body(&r, b.data, b.len, 0);
  oc_response_finish(&r, 0, 1);
  int kept = r.parsed != NULL;
  *too_big = r.parsed_too_big;
  oc_response_free(&r);
  oc_buf_free(&b);
  oc_headers_free(&h);
  oc_findings_free(&f);
  oc_schemas_free(&sch);
  return kept;
}

START_TEST(a_huge_body_gets_no_cjson_copy)
{
  int too_big;
  ck_assert(parsed_copy(1000, &too_big));
  ck_assert(!too_big);
  /* 4 M values: about 100 MiB of jdoc, gigabytes as cJSON */
  ck_assert(!parsed_copy(4u << 20, &too_big));
  ck_assert(too_big);
}
END_TEST

static const struct oc_finding *first_of(const struct oc_findings *f, const char *rule)
{
  for(size_t i = 0; i < f->count; i++)
    if(strcmp(oc_rule_name(f->items[i].rule), rule) == 0)
      return &f->items[i];
  return NULL;
}

/* vLLM's named tool_choice sends neither id nor type: the finding says
 * both, not the first it met ("actual: id" read as if the id were there) */
START_TEST(a_tool_head_names_every_part_it_lacks)
{
  static const struct {
    const char *frag, *lacks, *actual;
  } cases[] = {
    { "{\"index\":0,\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}", "lacks id and type \"function\"",
      "no id, no type \"function\"" },
    { "{\"index\":0,\"id\":\"call_1\",\"function\":{\"arguments\":\"{}\"}}",
      "lacks type \"function\" and function.name", "no type \"function\", no name" },
    { "{\"index\":0,\"function\":{\"arguments\":\"{}\"}}", "lacks id, type \"function\" and function.name",
      "no id, no type \"function\", no name" },
    { "{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"arguments\":\"{}\"}}",
      "lacks function.name", "no name" },
  };
  for(size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char body[2048];
    snprintf(body, sizeof(body),
             "%sdata: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"
             "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[%s]},"
             "\"finish_reason\":null}]}\n\n%sdata: [DONE]\n\n",
             CHUNK("{\"role\":\"assistant\"}", "null"), cases[i].frag, CHUNK("{}", "\"tool_calls\""));
    struct oc_findings f;
    oc_findings_init(&f);
    long validations;
    run(body, &validations, &f);
    const struct oc_finding *h = first_of(&f, "TOOL-DELTA-HEAD");
    ck_assert_msg(h != NULL, "case %zu: no TOOL-DELTA-HEAD", i);
    ck_assert_msg(strstr(h->message, cases[i].lacks) != NULL, "case %zu: %s", i, h->message);
    ck_assert_str_eq(h->actual, cases[i].actual);
    ck_assert_int_eq(h->chunk, 2);
    oc_findings_free(&f);
  }
}
END_TEST

int main(void)
{
  Suite *s = suite_create("chat");
  TCase *tc = tcase_create("shape-memo");
  tcase_add_test(tc, chunk_schemas_constrain_free_text_by_type_only);
  tcase_add_test(tc, one_validation_per_shape);
  tcase_add_test(tc, a_bad_value_breaks_the_shape);
  tcase_add_test(tc, a_tool_head_names_every_part_it_lacks);
  suite_add_tcase(s, tc);
  TCase *caps = tcase_create("caps");
  tcase_set_timeout(caps, 60);
  tcase_add_test(caps, the_stream_cap_holds_across_choices);
  tcase_add_test(caps, the_results_keep_a_bounded_message);
  tcase_add_test(caps, a_huge_body_gets_no_cjson_copy);
  suite_add_tcase(s, caps);
  return oc_test_run(s);
}
