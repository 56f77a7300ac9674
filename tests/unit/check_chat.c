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

int main(void)
{
  Suite *s = suite_create("chat");
  TCase *tc = tcase_create("shape-memo");
  tcase_add_test(tc, chunk_schemas_constrain_free_text_by_type_only);
  tcase_add_test(tc, one_validation_per_shape);
  tcase_add_test(tc, a_bad_value_breaks_the_shape);
  suite_add_tcase(s, tc);
  return oc_test_run(s);
}
