/* check_accumulator.c — the stream accumulator (chat.c) against the
 * server's own non-streamed answer.  llama-server at temperature 0 with a
 * fixed seed gives the same answer to the same request streamed or not
 * (its README: stream fragments concatenate byte-for-byte to the
 * non-stream string, D17), so the message rebuilt from every streamed
 * recording must equal the non-streamed body of its twin: role, content,
 * tool calls (type, name, arguments byte for byte), finish_reason, and
 * usage where the stream carries it.  Ids, created and timings differ
 * between two requests and are left out; content "" beside tool calls
 * (llama-server's non-stream form, D8) equals null (its streamed form).
 * The .wire recordings (a second request, with the HTTP chunk framing
 * kept) are fed in the pieces the server wrote them in. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "chat.h"
#include "rulesutil.h"

/* The streamed recording, its non-streamed twin, and what to compare. */
static const struct {
  const char *stream, *body;
  int usage;      /* the stream carries usage: compare the token counts */
} pairs[] = {
  { "chat-stream", "chat-basic", 0 },
  { "chat-stream.wire", "chat-basic", 0 },
  { "chat-stream-include-usage", "chat-basic", 1 },
  { "chat-n-2-stream", "chat-n-2", 0 },
  { "logprobs-stream", "logprobs", 0 },
  { "json-schema-stream", "json-schema", 0 },
  { "tools-auto-stream", "tools-auto", 0 },
  { "tools-required-stream", "tools-required", 0 },
  { "tools-required-steered-stream", "tools-required-steered", 0 },
  { "tools-required-steered-stream.wire", "tools-required-steered", 0 },
  { "tools-auto-steered-stream", "tools-auto-steered", 0 },
  { "tools-parallel-stream", "tools-parallel", 0 },
  { "completions-legacy-stream", "completions-legacy", 1 },
};

/* One choice as both forms are compared: {index, finish_reason, message:
 * {role, content, reasoning_content?, refusal?, tool_calls?: [{type,
 * function: {name, arguments}}]}}. */
static cJSON *normal_choice(const cJSON *choice, int legacy)
{
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "index", oc_json_num(choice, "index", -1));
  const char *fr = oc_json_str(choice, "finish_reason");
  if(fr)
    cJSON_AddStringToObject(o, "finish_reason", fr);
  else
    cJSON_AddNullToObject(o, "finish_reason");
  cJSON *msg = cJSON_AddObjectToObject(o, "message");
  const cJSON *m = legacy && !oc_json_get(choice, "message") ? choice : oc_json_obj(choice, "message");
  if(legacy) {
    /* a legacy completion's text (non-stream) or the rebuilt content */
    const char *text = oc_json_str(m, oc_json_get(m, "text") ? "text" : "content");
    cJSON_AddStringToObject(msg, "content", text ? text : "");
    return o;
  }
  const char *role = oc_json_str(m, "role");
  cJSON_AddStringToObject(msg, "role", role ? role : "(none)");
  const cJSON *calls = oc_json_arr(m, "tool_calls");
  int ncalls = calls ? cJSON_GetArraySize(calls) : 0;
  const char *content = oc_json_str(m, "content");
  if(content && !(ncalls && !*content))
    cJSON_AddStringToObject(msg, "content", content);
  else
    cJSON_AddNullToObject(msg, "content");
  static const char *const texts[] = { "reasoning_content", "refusal" };
  for(size_t i = 0; i < OC_ARRAY_LEN(texts); i++) {
    const char *t = oc_json_str(m, texts[i]);
    if(t && *t)
      cJSON_AddStringToObject(msg, texts[i], t);
  }
  if(ncalls) {
    cJSON *arr = cJSON_AddArrayToObject(msg, "tool_calls");
    const cJSON *c;
    cJSON_ArrayForEach(c, calls)
    {
      cJSON *n = cJSON_CreateObject();
      const char *type = oc_json_str(c, "type");
      cJSON_AddStringToObject(n, "type", type ? type : "(none)");
      const cJSON *fn = oc_json_obj(c, "function");
      cJSON *f = cJSON_AddObjectToObject(n, "function");
      const char *name = oc_json_str(fn, "name"), *args = oc_json_str(fn, "arguments");
      cJSON_AddStringToObject(f, "name", name ? name : "(none)");
      cJSON_AddStringToObject(f, "arguments", args ? args : "(none)");
      cJSON_AddItemToArray(arr, n);
    }
  }
  return o;
}

static int cmp_index(const void *a, const void *b)
{
  double x = oc_json_num(*(const cJSON *const *)a, "index", -1);
  double y = oc_json_num(*(const cJSON *const *)b, "index", -1);
  return x < y ? -1 : x > y;
}

/* The choices of a completion (rebuilt or parsed) in index order. */
static cJSON *normal_choices(const cJSON *completion, int legacy)
{
  const cJSON *choices = oc_json_arr(completion, "choices");
  int n = choices ? cJSON_GetArraySize(choices) : 0;
  cJSON **all = calloc((size_t)n + 1, sizeof(*all));
  for(int i = 0; i < n; i++)
    all[i] = normal_choice(cJSON_GetArrayItem(choices, i), legacy);
  qsort(all, (size_t)n, sizeof(*all), cmp_index);
  cJSON *arr = cJSON_CreateArray();
  for(int i = 0; i < n; i++)
    cJSON_AddItemToArray(arr, all[i]);
  free(all);
  return arr;
}

/* Run a recording through the response decoder (llama-server profile)
 * and keep what it decoded: the rebuilt completion for a stream, the
 * parsed body otherwise.  Findings are returned too. */
static cJSON *decode(const struct rt_rec *rec, struct oc_findings *f)
{
  cJSON *req = rec->request ? oc_json_parse(rec->request, strlen(rec->request), NULL) : NULL;
  struct oc_request_info info;
  oc_request_info_init(&info, rec->x.method, rec->x.path, req);
  struct oc_check c;
  rt_policy(&c, f, "llama-server", 0);
  struct oc_response r;
  oc_response_init(&r, &info, &c, &rt_schemas, 0, 0, 0);
  ck_assert_int_eq(oc_response_head(&r, rec->ex.status, &rec->ex.headers, 0), OC_OK);
  /* in the pieces the server wrote, when the recording kept them */
  size_t at = 0;
  for(size_t i = 0; i < rec->ex.npieces; i++) {
    ck_assert_int_eq(oc_response_body(&r, rec->ex.body + at, rec->ex.pieces[i] - at, 0), OC_OK);
    at = rec->ex.pieces[i];
  }
  ck_assert_int_eq(oc_response_body(&r, rec->ex.body + at, rec->ex.body_len - at, 0), OC_OK);
  oc_response_finish(&r, 0, 1);
  cJSON *out = r.is_sse ? oc_stream_completion(&r.stream) : cJSON_Duplicate(r.parsed, 1);
  ck_assert_ptr_nonnull(out);
  oc_response_free(&r);
  cJSON_Delete(req);
  return out;
}

START_TEST(stream_rebuilds_the_nonstream_answer)
{
  char *dir = rt_recordings("llama-server");
  if(!dir)
    return;
  struct rt_rec s, b;
  rt_rec_load(&s, dir, pairs[_i].stream, NULL, NULL);
  rt_rec_load(&b, dir, pairs[_i].body, NULL, NULL);
  int legacy = oc_api_from_path(s.x.path) == OC_API_COMPLETIONS;
  ck_assert_msg(s.ex.npieces > 0 || !oc_endswith(pairs[_i].stream, ".wire"),
                "%s: the .wire recording kept no pieces", pairs[_i].stream);

  struct oc_findings fs, fb;
  cJSON *rebuilt = decode(&s, &fs), *parsed = decode(&b, &fb);
  cJSON *a = normal_choices(rebuilt, legacy), *e = normal_choices(parsed, legacy);
  char *as = cJSON_Print(a), *es = cJSON_Print(e);
  ck_assert_msg(cJSON_GetArraySize(e) > 0, "%s has no choices", pairs[_i].body);
  ck_assert_msg(oc_json_equal(a, e), "%s rebuilt:\n%s\n%s non-streamed:\n%s", pairs[_i].stream, as,
                pairs[_i].body, es);
  if(pairs[_i].usage) {
    static const char *const counts[] = { "prompt_tokens", "completion_tokens", "total_tokens" };
    const cJSON *ua = oc_json_obj(rebuilt, "usage"), *ue = oc_json_obj(parsed, "usage");
    ck_assert_msg(ua && ue, "%s: usage missing from the stream or the body", pairs[_i].stream);
    for(size_t k = 0; k < OC_ARRAY_LEN(counts); k++)
      ck_assert_msg(oc_json_num(ua, counts[k], -1) == oc_json_num(ue, counts[k], -2),
                    "%s: usage.%s %g streamed, %g not", pairs[_i].stream, counts[k],
                    oc_json_num(ua, counts[k], -1), oc_json_num(ue, counts[k], -2));
  }
  /* the stream's identity is the one every chunk carried */
  const char *id = oc_json_str(rebuilt, "id");
  ck_assert_msg(id && oc_startswith(id, "chatcmpl-"), "%s: rebuilt id '%s'", pairs[_i].stream,
                id ? id : "(none)");
  ck_assert_str_eq(oc_json_str(rebuilt, "model"), "tiny-random.gguf");
  free(as);
  free(es);
  cJSON_Delete(a);
  cJSON_Delete(e);
  cJSON_Delete(rebuilt);
  cJSON_Delete(parsed);
  oc_findings_free(&fs);
  oc_findings_free(&fb);
  rt_rec_free(&s);
  rt_rec_free(&b);
  free(dir);
}
END_TEST

/* The key fixture in detail (README: 20 argument fragments, the first with
 * index, id, type, name and "{", the rest index + arguments only): the
 * rebuilt call carries the first fragment's id, and the arguments are
 * exactly the non-streamed string, whitespace included (D17). */
START_TEST(steered_tool_call_fragments)
{
  char *dir = rt_recordings("llama-server");
  if(!dir)
    return;
  struct rt_rec s, b;
  rt_rec_load(&s, dir, "tools-required-steered-stream", NULL, NULL);
  rt_rec_load(&b, dir, "tools-required-steered", NULL, NULL);
  struct oc_findings fs, fb;
  cJSON *rebuilt = decode(&s, &fs), *parsed = decode(&b, &fb);
  const cJSON *call = cJSON_GetArrayItem(
    oc_json_arr(oc_json_obj(cJSON_GetArrayItem(oc_json_arr(rebuilt, "choices"), 0), "message"), "tool_calls"), 0);
  const cJSON *want = cJSON_GetArrayItem(
    oc_json_arr(oc_json_obj(cJSON_GetArrayItem(oc_json_arr(parsed, "choices"), 0), "message"), "tool_calls"), 0);
  ck_assert_ptr_nonnull(call);
  ck_assert_ptr_nonnull(want);
  const char *args = oc_json_str(oc_json_obj(call, "function"), "arguments");
  ck_assert_str_eq(args, oc_json_str(oc_json_obj(want, "function"), "arguments"));
  ck_assert_str_eq(args, "{\"location\": \"Encirmingham\",\"unit\":\"fahrenheit\" }");
  const char *id = oc_json_str(call, "id");
  ck_assert_ptr_nonnull(id);
  ck_assert_int_eq((int)strlen(id), 32); /* D9: 32 alphanumerics, no call_ prefix */
  ck_assert(strstr(s.ex.body, id) != NULL);
  ck_assert_int_eq(oc_findings_worst(&fs), OC_SEV_INFO); /* only the empty CORS header */
  cJSON_Delete(rebuilt);
  cJSON_Delete(parsed);
  oc_findings_free(&fs);
  oc_findings_free(&fb);
  rt_rec_free(&s);
  rt_rec_free(&b);
  free(dir);
}
END_TEST

/* The accumulator does not depend on where the bytes were cut: the key
 * fixture fed one byte at a time, and in the server's own pieces, rebuilds
 * the same message and the same findings as fed whole. */
START_TEST(any_split_rebuilds_the_same)
{
  char *dir = rt_recordings("llama-server");
  if(!dir)
    return;
  static const char *const names[] = { "tools-parallel-stream", "chat-n-2-stream", "chat-stream" };
  for(size_t k = 0; k < OC_ARRAY_LEN(names); k++) {
    struct rt_rec s;
    rt_rec_load(&s, dir, names[k], NULL, NULL);
    struct oc_findings f1, f2;
    cJSON *whole = decode(&s, &f1);
    size_t *ones = malloc(s.ex.body_len * sizeof(*ones));
    for(size_t i = 0; i < s.ex.body_len; i++)
      ones[i] = i + 1;
    size_t *saved = s.ex.pieces;
    size_t nsaved = s.ex.npieces;
    s.ex.pieces = ones;
    s.ex.npieces = s.ex.body_len;
    cJSON *bytewise = decode(&s, &f2);
    s.ex.pieces = saved;
    s.ex.npieces = nsaved;
    ck_assert_msg(oc_json_equal(whole, bytewise), "%s: a byte-wise feed rebuilds another message",
                  names[k]);
    char *a = rt_summary(&f1), *b = rt_summary(&f2);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
    free(ones);
    cJSON_Delete(whole);
    cJSON_Delete(bytewise);
    oc_findings_free(&f1);
    oc_findings_free(&f2);
    rt_rec_free(&s);
  }
  free(dir);
}
END_TEST

static Suite *accumulator_suite(void)
{
  Suite *s = suite_create("accumulator");
  TCase *tc = tcase_create("llama-server");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, stream_rebuilds_the_nonstream_answer, 0, (int)OC_ARRAY_LEN(pairs));
  tcase_add_test(tc, steered_tool_call_fragments);
  tcase_add_test(tc, any_split_rebuilds_the_same);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  char *dir = rt_recordings("llama-server");
  if(!dir) {
    fprintf(stderr, "skipped: the llama-server recordings are not available\n");
    return 77;
  }
  free(dir);
  rt_setup();
  int rc = oc_test_run(accumulator_suite());
  rt_teardown();
  return rc;
}
