/* check_json.c — parse positions, case-sensitive getters, JSON Pointer,
 * equality and the canonical form used for request keys. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "testutil.h"

START_TEST(parse_error_has_line_and_column)
{
  const char *text = "{\n  \"a\": 1,\n  \"b\": tru\n}";
  struct oc_json_pos pos;
  cJSON *j = oc_json_parse(text, strlen(text), &pos);
  ck_assert_ptr_null(j);
  ck_assert_int_eq(pos.line, 3);
  ck_assert_int_ge(pos.column, 8);
}
END_TEST

START_TEST(trailing_garbage_rejected)
{
  struct oc_json_pos pos;
  const char *text = "{\"a\":1} x";
  ck_assert_ptr_null(oc_json_parse(text, strlen(text), &pos));
  ck_assert_uint_eq(pos.offset, 8);
  cJSON *ok = oc_json_parse("{\"a\":1}\n  ", 10, &pos);
  ck_assert_ptr_nonnull(ok);
  cJSON_Delete(ok);
}
END_TEST

START_TEST(getters_are_case_sensitive)
{
  cJSON *j = cJSON_Parse("{\"Model\":\"x\",\"model\":\"y\",\"n\":2,\"f\":1.5,\"b\":true}");
  ck_assert_str_eq(oc_json_str(j, "model"), "y");
  ck_assert_str_eq(oc_json_str(j, "Model"), "x");
  ck_assert_ptr_null(oc_json_str(j, "MODEL"));
  ck_assert(oc_json_is_integer(oc_json_get(j, "n")));
  ck_assert(!oc_json_is_integer(oc_json_get(j, "f")));
  ck_assert_str_eq(oc_json_type_name(oc_json_get(j, "f")), "number");
  ck_assert_str_eq(oc_json_type_name(oc_json_get(j, "zz")), "absent");
  ck_assert_int_eq(oc_json_bool(j, "b", 0), 1);
  cJSON_Delete(j);
}
END_TEST

START_TEST(pointers)
{
  cJSON *j = cJSON_Parse("{\"choices\":[{\"delta\":{\"a/b\":1,\"m~n\":2}}],\"\":3}");
  ck_assert_ptr_eq(oc_json_pointer(j, ""), j);
  ck_assert_int_eq(oc_json_pointer(j, "/choices/0/delta/a~1b")->valueint, 1);
  ck_assert_int_eq(oc_json_pointer(j, "/choices/0/delta/m~0n")->valueint, 2);
  ck_assert_int_eq(oc_json_pointer(j, "/")->valueint, 3);
  ck_assert_ptr_null(oc_json_pointer(j, "/choices/1"));
  ck_assert_ptr_null(oc_json_pointer(j, "/choices/01"));
  ck_assert_ptr_null(oc_json_pointer(j, "choices"));
  struct oc_buf p;
  oc_buf_init(&p, 100);
  oc_json_pointer_push(&p, "choices");
  oc_json_pointer_push_index(&p, 0);
  oc_json_pointer_push(&p, "a/b~");
  ck_assert_str_eq(p.data, "/choices/0/a~1b~0");
  oc_buf_free(&p);
  cJSON_Delete(j);
}
END_TEST

START_TEST(equality)
{
  cJSON *a = cJSON_Parse("{\"x\":[1,2.0,{\"y\":null}],\"z\":\"s\"}");
  cJSON *b = cJSON_Parse("{\"z\":\"s\",\"x\":[1.0,2,{\"y\":null}]}");
  cJSON *c = cJSON_Parse("{\"z\":\"s\",\"x\":[1,2,{\"y\":false}]}");
  ck_assert(oc_json_equal(a, b));
  ck_assert(!oc_json_equal(a, c));
  cJSON_Delete(a);
  cJSON_Delete(b);
  cJSON_Delete(c);
}
END_TEST

START_TEST(canonical_form)
{
  /* RFC 8785: members sorted, no whitespace, numbers in ECMAScript form */
  /* keys: U+20AC < U+1F600 (surrogate D83D) < U+FB01 in UTF-16 order,
   * although U+FB01 < U+1F600 by code point */
  cJSON *j = cJSON_Parse("{ \"b\" : [1.0, 2.5, 1e21, 0.000001, 1e-7, -0, 123456789012, -1.5e300], "
                         "\"a\": \"\\u00e9\\n\\u0001\", \"\\ufb01\": 3, "
                         "\"\\u20ac\": 1, \"\\ud83d\\ude00\": 2 }");
  char *s = oc_json_canonical(j);
  ck_assert_str_eq(s, "{\"a\":\"\xc3\xa9\\n\\u0001\","
                      "\"b\":[1,2.5,1e+21,0.000001,1e-7,0,123456789012,-1.5e+300],"
                      "\"\xe2\x82\xac\":1,\"\xf0\x9f\x98\x80\":2,\"\xef\xac\x81\":3}");
  free(s);
  cJSON_Delete(j);
}
END_TEST

/* The parent takes the item whatever happens (LeakSanitizer sees a leak
 * otherwise), and the first failure is kept. */
START_TEST(checked_adds)
{
  ck_assert_int_eq(oc_json_add(NULL, "a", cJSON_CreateString("lost")), OC_ENOMEM);
  cJSON *o = cJSON_CreateObject();
  ck_assert_int_eq(oc_json_add(o, "a", NULL), OC_ENOMEM);
  ck_assert_int_eq(oc_json_add(o, "a", cJSON_CreateNumber(1)), OC_OK);
  int oom = 0;
  cJSON *arr = oc_json_put(&oom, o, "list", cJSON_CreateArray());
  ck_assert_ptr_nonnull(arr);
  ck_assert_ptr_nonnull(oc_json_put(&oom, arr, NULL, cJSON_CreateString("x")));
  ck_assert_ptr_null(oc_json_put_str(&oom, o, "absent", NULL));
  ck_assert_int_eq(oom, 0);
  ck_assert_ptr_nonnull(oc_json_put_str_or_null(&oom, o, "nothing", NULL));
  ck_assert(cJSON_IsNull(oc_json_get(o, "nothing")));
  ck_assert_ptr_nonnull(oc_json_set(&oom, o, "a", cJSON_CreateNumber(2)));
  ck_assert_ptr_nonnull(oc_json_set(&oom, o, "b", cJSON_CreateNumber(3)));
  ck_assert_int_eq(oom, 0);
  /* a failed create passed straight in fails the build, and once failed
   * nothing more is added */
  ck_assert_ptr_null(oc_json_put(&oom, NULL, "orphan", cJSON_CreateObject()));
  ck_assert_int_ne(oom, 0);
  ck_assert_ptr_null(oc_json_put(&oom, o, "late", cJSON_CreateString("late")));
  ck_assert_ptr_null(oc_json_set(&oom, o, "a", cJSON_CreateNumber(9)));
  ck_assert_ptr_null(oc_json_get(o, "late"));
  ck_assert_int_eq((int)oc_json_num(o, "a", 0), 2);
  ck_assert_int_eq((int)oc_json_num(o, "b", 0), 3);
  char *text = oc_json_print(o);
  ck_assert_str_eq(text, "{\"a\":2,\"list\":[\"x\"],\"nothing\":null,\"b\":3}");
  free(text);
  cJSON_Delete(o);
}
END_TEST

START_TEST(brief)
{
  cJSON *j = cJSON_Parse("{\"s\":\"abcdefghijklmnopqrstuvwxyz\",\"o\":{\"a\":1}}");
  char *b = oc_json_brief(oc_json_get(j, "s"), 12);
  ck_assert_str_eq(b, "\"abcdefghijk…\"");
  free(b);
  b = oc_json_brief(oc_json_get(j, "o"), 12);
  ck_assert_str_eq(b, "{…}");
  free(b);
  cJSON_Delete(j);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("json");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, parse_error_has_line_and_column);
  tcase_add_test(tc, trailing_garbage_rejected);
  tcase_add_test(tc, getters_are_case_sensitive);
  tcase_add_test(tc, pointers);
  tcase_add_test(tc, equality);
  tcase_add_test(tc, canonical_form);
  tcase_add_test(tc, brief);
  tcase_add_test(tc, checked_adds);
  suite_add_tcase(s, tc);
  return oc_test_run(s);
}
