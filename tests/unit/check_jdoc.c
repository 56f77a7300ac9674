/* check_jdoc.c — the hot-path JSON reader: strictness with exact error
 * offsets, string decoding (escapes, surrogates, NUL, invalid UTF-8),
 * caps, arena reuse, numbers, getters, pointers, equality, and a
 * differential run against cJSON over the JSON-Schema-Test-Suite. */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jdoc.h"
#include "json.h"
#include "testutil.h"

static int parse(struct oc_jdoc *d, const char *text, struct oc_jerr *err)
{
  return oc_jdoc_parse(d, text, strlen(text), err);
}

START_TEST(values_and_offsets)
{
  struct oc_jdoc d;
  struct oc_jerr err;
  oc_jdoc_init(&d);
  const char *t = " {\"a\": [1, 2.5, true, false, null], \"b\" : \"x\"} ";
  ck_assert_int_eq(parse(&d, t, &err), OC_OK);
  const struct oc_jv *r = d.root;
  ck_assert_int_eq(r->type, OC_JOBJECT);
  ck_assert_uint_eq(r->offset, 1);
  ck_assert_uint_eq(r->end, strlen(t) - 1);
  ck_assert_uint_eq(r->len, 2);
  ck_assert_uint_eq(r->u.members[0].key_offset, 2);
  ck_assert_uint_eq(r->u.members[1].key_offset, 36);
  const struct oc_jv *a = oc_jv_get(r, "a");
  ck_assert_int_eq(a->type, OC_JARRAY);
  ck_assert_uint_eq(a->offset, 7);
  ck_assert_uint_eq(a->end, 34);
  ck_assert_uint_eq(a->len, 5);
  ck_assert_uint_eq(oc_jv_at(a, 1)->offset, 11);
  ck_assert_uint_eq(oc_jv_at(a, 1)->end, 14);
  ck_assert(oc_jv_at(a, 0)->int_literal);
  ck_assert(!oc_jv_at(a, 1)->int_literal);
  ck_assert_int_eq(oc_jv_at(a, 2)->type, OC_JTRUE);
  ck_assert_int_eq(oc_jv_at(a, 3)->type, OC_JFALSE);
  ck_assert(oc_jv_is_null(oc_jv_at(a, 4)));
  ck_assert_ptr_null(oc_jv_at(a, 5));
  ck_assert_ptr_null(oc_jv_at(r, 0));
  size_t n;
  ck_assert_str_eq(oc_jv_str(r, "b", &n), "x");
  ck_assert_uint_eq(n, 1);
  ck_assert_ptr_null(oc_jv_str(r, "a", &n));
  ck_assert_uint_eq(n, 0);
  ck_assert_ptr_null(oc_jv_get(r, "B"));
  ck_assert_str_eq(oc_jv_type_name(r), "object");
  ck_assert_str_eq(oc_jv_type_name(a), "array");
  ck_assert_str_eq(oc_jv_type_name(oc_jv_at(a, 0)), "integer");
  ck_assert_str_eq(oc_jv_type_name(oc_jv_at(a, 1)), "number");
  ck_assert_str_eq(oc_jv_type_name(oc_jv_at(a, 2)), "boolean");
  ck_assert_str_eq(oc_jv_type_name(oc_jv_at(a, 4)), "null");
  ck_assert_str_eq(oc_jv_type_name(oc_jv_get(r, "b")), "string");
  ck_assert_str_eq(oc_jv_type_name(NULL), "absent");
  ck_assert_int_eq(parse(&d, "\"s\"", &err), OC_OK);
  ck_assert_int_eq(d.root->type, OC_JSTRING);
  ck_assert_int_eq(parse(&d, "[]", &err), OC_OK);
  ck_assert_uint_eq(d.root->len, 0);
  ck_assert_int_eq(parse(&d, "{}", &err), OC_OK);
  ck_assert_uint_eq(d.root->len, 0);
  oc_jdoc_free(&d);
}
END_TEST

struct bad_case {
  const char *text;
  size_t offset;
  int rc;
};

static const struct bad_case bad_cases[] = {
  {"", 0, OC_EPARSE},
  {"   ", 3, OC_EPARSE},
  {"{", 1, OC_EPARSE},
  {"[1,]", 3, OC_EPARSE},
  {"[1 2]", 3, OC_EPARSE},
  {"{\"a\":1,}", 7, OC_EPARSE},
  {"{\"a\" 1}", 5, OC_EPARSE},
  {"{a:1}", 1, OC_EPARSE},
  {"{\"a\":1 \"b\":2}", 7, OC_EPARSE},
  {"[1] x", 4, OC_EPARSE},
  {"[1][2]", 3, OC_EPARSE},
  {"tru", 3, OC_EPARSE},
  {"trUe", 2, OC_EPARSE},
  {"nul", 3, OC_EPARSE},
  {"[falsy]", 5, OC_EPARSE},
  {"01", 1, OC_EPARSE},
  {"-", 1, OC_EPARSE},
  {"-a", 1, OC_EPARSE},
  {"+1", 0, OC_EPARSE},
  {"1.", 2, OC_EPARSE},
  {"1.e5", 2, OC_EPARSE},
  {".5", 0, OC_EPARSE},
  {"1e", 2, OC_EPARSE},
  {"1e+", 3, OC_EPARSE},
  {"[1e400]", 1, OC_EPARSE},
  {"-1e400", 0, OC_EPARSE},
  {"NaN", 0, OC_EPARSE},
  {"\"abc", 4, OC_EPARSE},
  {"\"a\\", 3, OC_EPARSE},
  {"\"a\\x\"", 3, OC_EPARSE},
  {"\"\\u12G4\"", 5, OC_EPARSE},
  {"\"\\u12", 5, OC_EPARSE},
  {"\"a\tb\"", 2, OC_EPARSE},
  {"\"a\nb\"", 2, OC_EPARSE},
  {"['a']", 1, OC_EPARSE},
  {"{\"a\":1}}", 7, OC_EPARSE},
  {"[1,\n  2,\n  oops]", 11, OC_EPARSE},
};

START_TEST(invalid_texts_have_exact_offsets)
{
  struct oc_jdoc d;
  oc_jdoc_init(&d);
  for(size_t i = 0; i < OC_ARRAY_LEN(bad_cases); i++) {
    struct oc_jerr err = {9999, NULL};
    int rc = parse(&d, bad_cases[i].text, &err);
    ck_assert_msg(rc == bad_cases[i].rc, "case %zu '%s': rc %d", i, bad_cases[i].text, rc);
    ck_assert_msg(err.offset == bad_cases[i].offset, "case %zu '%s': offset %zu, want %zu (%s)", i,
                  bad_cases[i].text, err.offset, bad_cases[i].offset, err.message);
    ck_assert_ptr_nonnull(err.message);
    ck_assert_ptr_null(d.root);
  }
  /* NUL bytes outside strings are just bad bytes */
  struct oc_jerr err;
  ck_assert_int_eq(oc_jdoc_parse(&d, "[1,\0]", 5, &err), OC_EPARSE);
  ck_assert_uint_eq(err.offset, 3);
  ck_assert_int_eq(oc_jdoc_parse(&d, "\"a\0b\"", 5, &err), OC_EPARSE);
  ck_assert_uint_eq(err.offset, 2);
  /* the non-finite message is specific */
  ck_assert_int_eq(parse(&d, "1e400", &err), OC_EPARSE);
  ck_assert_ptr_nonnull(strstr(err.message, "finite"));
  oc_jdoc_free(&d);
}
END_TEST

START_TEST(escapes_and_surrogates)
{
  struct oc_jdoc d;
  struct oc_jerr err;
  oc_jdoc_init(&d);
  ck_assert_int_eq(parse(&d, "\"q\\\"b\\\\s\\/b\\bf\\fn\\nr\\rt\\t\\u00e9\\u20AC\"", &err), OC_OK);
  ck_assert_str_eq(d.root->u.str, "q\"b\\s/b\bf\fn\nr\rt\t\xc3\xa9\xe2\x82\xac");
  ck_assert_uint_eq(d.invalid_utf8, 0);
  /* a pair becomes one 4-byte character */
  ck_assert_int_eq(parse(&d, "\"\\ud83d\\ude00!\"", &err), OC_OK);
  ck_assert_uint_eq(d.root->len, 5);
  ck_assert_str_eq(d.root->u.str, "\xf0\x9f\x98\x80!");
  ck_assert_uint_eq(d.invalid_utf8, 0);
  /* a lone high surrogate: 3-byte form, counted as invalid at its backslash */
  ck_assert_int_eq(parse(&d, "[\"ab\\ud800c\"]", &err), OC_OK);
  ck_assert_uint_eq(d.root->u.items[0].len, 6);
  ck_assert_str_eq(d.root->u.items[0].u.str, "ab\xed\xa0\x80" "c");
  ck_assert_uint_eq(d.invalid_utf8, 1);
  ck_assert_uint_eq(d.first_invalid_utf8, 4);
  /* a lone low surrogate, and a high one followed by a non-surrogate escape */
  ck_assert_int_eq(parse(&d, "\"\\udc00\\ud800\\u0041\"", &err), OC_OK);
  ck_assert_str_eq(d.root->u.str, "\xed\xb0\x80\xed\xa0\x80" "A");
  ck_assert_uint_eq(d.invalid_utf8, 1); /* one string */
  ck_assert_uint_eq(d.first_invalid_utf8, 1);
  /* raw invalid UTF-8 is kept byte for byte */
  ck_assert_int_eq(parse(&d, "{\"k\":\"a\xff" "b\",\"k2\":\"\xc3\x28\",\"ok\":\"\xc3\xa9\"}", &err),
                   OC_OK);
  ck_assert_str_eq(oc_jv_str(d.root, "k", NULL), "a\xff" "b");
  ck_assert_uint_eq(d.invalid_utf8, 2);
  ck_assert_uint_eq(d.first_invalid_utf8, 7);
  /* overlong, surrogate-encoded and truncated raw sequences are invalid */
  const char *bad[] = {"\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xe2\x82\"", "\"\xf4\x90\x80\x80\"",
                       "\"\xf0\x80\x80\xaf\""};
  for(size_t i = 0; i < OC_ARRAY_LEN(bad); i++) {
    ck_assert_int_eq(parse(&d, bad[i], &err), OC_OK);
    ck_assert_msg(d.invalid_utf8 == 1, "case %zu", i);
    ck_assert_uint_eq(d.first_invalid_utf8, 1);
  }
  oc_jdoc_free(&d);
}
END_TEST

/* The string scanner reads eight bytes at a time: a special byte must be
 * seen wherever it falls in a word. */
START_TEST(special_bytes_at_every_position)
{
  struct oc_jdoc d;
  struct oc_jerr err;
  oc_jdoc_init(&d);
  char text[64], want[64];
  for(int k = 0; k < 24; k++) {
    /* a control character: an error at exactly its byte */
    memset(text, 'a', sizeof(text));
    text[0] = '"';
    text[1 + k] = '\x01';
    text[40] = '"';
    ck_assert_int_eq(oc_jdoc_parse(&d, text, 41, &err), OC_EPARSE);
    ck_assert_uint_eq(err.offset, (size_t)(1 + k));
    /* a quote ends the string there */
    text[1 + k] = '"';
    ck_assert_int_eq(oc_jdoc_parse(&d, text, (size_t)(2 + k), &err), OC_OK);
    ck_assert_uint_eq(d.root->len, (size_t)k);
    /* an escape is decoded */
    memcpy(text + 1 + k, "\\n", 2);
    text[40] = '"';
    ck_assert_int_eq(oc_jdoc_parse(&d, text, 41, &err), OC_OK);
    memset(want, 'a', sizeof(want));
    want[k] = '\n';
    ck_assert_uint_eq(d.root->len, 38);
    ck_assert(memcmp(d.root->u.str, want, 38) == 0);
    /* a non-ASCII byte is checked */
    text[1 + k] = (char)0xff;
    text[2 + k] = 'a';
    ck_assert_int_eq(oc_jdoc_parse(&d, text, 41, &err), OC_OK);
    ck_assert_uint_eq(d.invalid_utf8, 1);
    ck_assert_uint_eq(d.first_invalid_utf8, (size_t)(1 + k));
  }
  oc_jdoc_free(&d);
}
END_TEST

START_TEST(nul_in_strings)
{
  struct oc_jdoc d;
  struct oc_jerr err;
  oc_jdoc_init(&d);
  ck_assert_int_eq(parse(&d, "{\"a\\u0000b\":\"x\\u0000y\\u0000\"}", &err), OC_OK);
  const struct oc_jmember *m = &d.root->u.members[0];
  ck_assert_uint_eq(m->key_len, 3);
  ck_assert_mem_eq(m->key, "a\0b", 4);
  ck_assert_uint_eq(m->value.len, 4);
  ck_assert_mem_eq(m->value.u.str, "x\0y\0", 5);
  /* lookups by C string cannot name it, pointer tokens neither */
  ck_assert_ptr_null(oc_jv_get(d.root, "a"));
  oc_jdoc_free(&d);
}
END_TEST

START_TEST(duplicates)
{
  struct oc_jdoc d;
  struct oc_jerr err;
  oc_jdoc_init(&d);
  ck_assert_int_eq(parse(&d, "{\"a\":1,\"b\":2,\"a\":3,\"a\":4,\"c\":{\"x\":1,\"x\":1}}", &err), OC_OK);
  ck_assert_uint_eq(d.duplicate_keys, 3);
  ck_assert_uint_eq(d.root->len, 5); /* kept in order */
  ck_assert_double_eq(oc_jv_get(d.root, "a")->u.num, 4);
  /* a big object goes through the hash table */
  struct oc_buf b;
  oc_buf_init(&b, 1 << 20);
  oc_buf_addc(&b, '{');
  for(int i = 0; i < 5000; i++)
    oc_buf_printf(&b, "%s\"k%d\":%d", i ? "," : "", i % 4000, i);
  oc_buf_addc(&b, '}');
  ck_assert_int_eq(oc_jdoc_parse(&d, b.data, b.len, &err), OC_OK);
  ck_assert_uint_eq(d.duplicate_keys, 1000);
  ck_assert_double_eq(oc_jv_get(d.root, "k5")->u.num, 4005);
  ck_assert_double_eq(oc_jv_get(d.root, "k3999")->u.num, 3999);
  oc_buf_free(&b);
  /* counters reset per parse */
  ck_assert_int_eq(parse(&d, "{\"a\":1}", &err), OC_OK);
  ck_assert_uint_eq(d.duplicate_keys, 0);
  oc_jdoc_free(&d);
}
END_TEST

START_TEST(depth_and_size_caps)
{
  struct oc_jdoc d;
  struct oc_jerr err;
  oc_jdoc_init(&d);
  char buf[2000];
  for(int i = 0; i < 512; i++) {
    buf[i] = '[';
    buf[1023 - i] = ']';
  }
  ck_assert_int_eq(oc_jdoc_parse(&d, buf, 1024, &err), OC_OK);
  const struct oc_jv *v = d.root;
  for(int i = 0; i < 511; i++)
    v = oc_jv_at(v, 0);
  ck_assert_uint_eq(v->len, 0);
  for(int i = 0; i < 513; i++) {
    buf[i] = '[';
    buf[1025 - i] = ']';
  }
  ck_assert_int_eq(oc_jdoc_parse(&d, buf, 1026, &err), OC_ETOOBIG);
  ck_assert_uint_eq(err.offset, 512);
  /* an object level counts too */
  d.max_depth = 2;
  ck_assert_int_eq(parse(&d, "{\"a\":[1]}", &err), OC_OK);
  ck_assert_int_eq(parse(&d, "{\"a\":[{}]}", &err), OC_ETOOBIG);
  ck_assert_uint_eq(err.offset, 6);
  d.max_bytes = 10;
  ck_assert_int_eq(parse(&d, "[1,2,3,4]", &err), OC_OK);
  ck_assert_int_eq(parse(&d, "[1,2,3,4,5]", &err), OC_ETOOBIG);
  ck_assert_uint_eq(err.offset, 10);
  /* a memory cap smaller than the document */
  oc_jdoc_free(&d);
  oc_jdoc_init(&d);
  d.max_arena = 100000;
  struct oc_buf b;
  oc_buf_init(&b, 1 << 20);
  oc_buf_addc(&b, '[');
  for(int i = 0; i < 50000; i++)
    oc_buf_adds(&b, i ? ",0" : "0");
  oc_buf_addc(&b, ']');
  ck_assert_int_eq(oc_jdoc_parse(&d, b.data, b.len, &err), OC_ETOOBIG);
  ck_assert_uint_le(d.arena_alloc, 100000);
  oc_buf_free(&b);
  oc_jdoc_free(&d);
}
END_TEST

START_TEST(arena_is_reused)
{
  struct oc_jdoc d;
  struct oc_jerr err;
  oc_jdoc_init(&d);
  const char *chunk =
      "{\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"content\":\" op\\u00e9\"}}],"
      "\"created\":1796004203,\"id\":\"chatcmpl-x\",\"object\":\"chat.completion.chunk\"}";
  ck_assert_int_eq(parse(&d, chunk, &err), OC_OK);
  size_t grows = d.arena_grows, alloc = d.arena_alloc;
  ck_assert_uint_ge(grows, 1);
  for(int i = 0; i < 10000; i++)
    ck_assert_int_eq(parse(&d, chunk, &err), OC_OK);
  ck_assert_uint_eq(d.arena_grows, grows);
  ck_assert_uint_eq(d.arena_alloc, alloc);
  ck_assert_str_eq(oc_jv_str(oc_jv_pointer(d.root, "/choices/0/delta"), "content", NULL), " op\xc3\xa9");
  /* documents of varying size: after one round, no more blocks */
  struct oc_buf big;
  oc_buf_init(&big, 4 << 20);
  oc_buf_addc(&big, '[');
  for(int i = 0; i < 20000; i++)
    oc_buf_printf(&big, "%s{\"s\":\"%d\"}", i ? "," : "", i);
  oc_buf_addc(&big, ']');
  const char *docs[] = {chunk, big.data, "[1,2,3]", chunk};
  size_t lens[] = {strlen(chunk), big.len, 7, strlen(chunk)};
  for(size_t k = 0; k < 4; k++)
    ck_assert_int_eq(oc_jdoc_parse(&d, docs[k], lens[k], &err), OC_OK);
  grows = d.arena_grows;
  for(int round = 0; round < 20; round++)
    for(size_t k = 0; k < 4; k++)
      ck_assert_int_eq(oc_jdoc_parse(&d, docs[k], lens[k], &err), OC_OK);
  ck_assert_uint_eq(d.arena_grows, grows);
  oc_buf_free(&big);
  oc_jdoc_free(&d);
  /* freed documents can be used again */
  ck_assert_int_eq(parse(&d, "[1]", &err), OC_OK);
  oc_jdoc_free(&d);
  oc_jdoc_free(NULL);
}
END_TEST

START_TEST(numbers)
{
  struct oc_jdoc d;
  struct oc_jerr err;
  oc_jdoc_init(&d);
  ck_assert_int_eq(parse(&d, "-0", &err), OC_OK);
  ck_assert(d.root->u.num == 0 && signbit(d.root->u.num));
  ck_assert(d.root->int_literal);
  ck_assert(oc_jv_is_integer(d.root));
  ck_assert_int_eq(parse(&d, "1.0", &err), OC_OK);
  ck_assert(!d.root->int_literal);
  ck_assert(oc_jv_is_integer(d.root));
  ck_assert_int_eq(parse(&d, "1e2", &err), OC_OK);
  ck_assert(!d.root->int_literal);
  ck_assert_double_eq(d.root->u.num, 100);
  ck_assert_int_eq(parse(&d, "12345678901234567890123", &err), OC_OK);
  ck_assert(d.root->int_literal);
  ck_assert(d.root->u.num == 12345678901234567890123.0);
  ck_assert_int_eq(parse(&d, "1e-400", &err), OC_OK); /* underflow is a finite 0 */
  ck_assert(d.root->u.num == 0);
  ck_assert_int_eq(parse(&d, "1.7976931348623157e308", &err), OC_OK);
  ck_assert(isfinite(d.root->u.num));
  ck_assert_int_eq(parse(&d, "0.1", &err), OC_OK);
  ck_assert(d.root->u.num == 0.1);
  ck_assert_int_eq(parse(&d, "-0.000001234E+3", &err), OC_OK);
  ck_assert(d.root->u.num == -0.001234);
  /* every fast-path result agrees with strtod */
  srand(7);
  char text[64];
  for(int i = 0; i < 200000; i++) {
    int n = 0, ip = 1 + rand() % 17, fp = rand() % 8;
    if(rand() % 2)
      text[n++] = '-';
    text[n++] = (char)('1' + rand() % 9);
    for(int k = 1; k < ip; k++)
      text[n++] = (char)('0' + rand() % 10);
    if(fp) {
      text[n++] = '.';
      for(int k = 0; k < fp; k++)
        text[n++] = (char)('0' + rand() % 10);
    }
    if(rand() % 3 == 0)
      n += snprintf(text + n, sizeof(text) - (size_t)n, "e%d", rand() % 60 - 30);
    text[n] = 0;
    ck_assert_int_eq(oc_jdoc_parse(&d, text, (size_t)n, &err), OC_OK);
    ck_assert_msg(d.root->u.num == strtod(text, NULL), "%s", text);
  }
  oc_jdoc_free(&d);
}
END_TEST

START_TEST(equality)
{
  struct oc_jdoc a, b;
  struct oc_jerr err;
  oc_jdoc_init(&a);
  oc_jdoc_init(&b);
  struct {
    const char *x, *y;
    int eq;
  } cases[] = {
    {"{\"x\":[1,2.0,{\"y\":null}],\"z\":\"s\"}", "{\"z\":\"s\",\"x\":[1.0,2,{\"y\":null}]}", 1},
    {"{\"x\":[1,2]}", "{\"x\":[2,1]}", 0},
    {"{\"a\":1}", "{\"a\":1,\"b\":1}", 0},
    {"{\"a\":1,\"b\":1}", "{\"a\":1}", 0},
    {"{\"a\":1,\"a\":2}", "{\"a\":2}", 1},
    {"{\"a\":1,\"a\":2}", "{\"a\":1}", 0},
    {"{\"a\":2,\"b\":3,\"a\":2}", "{\"b\":3,\"a\":2}", 1},
    {"0", "-0", 1},
    {"1", "1.0", 1},
    {"1e2", "100", 1},
    {"\"a\\u0000b\"", "\"a\\u0000c\"", 0},
    {"\"a\\u0000b\"", "\"a\\u0000b\"", 1},
    {"true", "1", 0},
    {"null", "false", 0},
    {"[]", "{}", 0},
    {"\"\\u00e9\"", "\"\xc3\xa9\"", 1},
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(cases); i++) {
    ck_assert_int_eq(parse(&a, cases[i].x, &err), OC_OK);
    ck_assert_int_eq(parse(&b, cases[i].y, &err), OC_OK);
    ck_assert_msg(oc_jv_equal(a.root, b.root) == cases[i].eq, "case %zu", i);
    ck_assert_msg(oc_jv_equal(b.root, a.root) == cases[i].eq, "case %zu reversed", i);
  }
  ck_assert(oc_jv_equal(NULL, NULL));
  ck_assert(!oc_jv_equal(a.root, NULL));
  /* big objects (sorted comparison) in different order, with duplicates */
  struct oc_buf x, y;
  oc_buf_init(&x, 1 << 20);
  oc_buf_init(&y, 1 << 20);
  oc_buf_addc(&x, '{');
  oc_buf_addc(&y, '{');
  for(int i = 0; i < 100; i++) {
    oc_buf_printf(&x, "%s\"k%d\":%d", i ? "," : "", i, i);
    oc_buf_printf(&y, "%s\"k%d\":%d", i ? "," : "", 99 - i, 99 - i);
  }
  oc_buf_adds(&x, ",\"k5\":5}");
  oc_buf_addc(&y, '}');
  ck_assert_int_eq(oc_jdoc_parse(&a, x.data, x.len, &err), OC_OK);
  ck_assert_int_eq(oc_jdoc_parse(&b, y.data, y.len, &err), OC_OK);
  ck_assert(oc_jv_equal(a.root, b.root));
  x.data[x.len - 2] = '6'; /* the duplicate now says k5 = 6 */
  ck_assert_int_eq(oc_jdoc_parse(&a, x.data, x.len, &err), OC_OK);
  ck_assert(!oc_jv_equal(a.root, b.root));
  oc_buf_free(&x);
  oc_buf_free(&y);
  oc_jdoc_free(&a);
  oc_jdoc_free(&b);
}
END_TEST

START_TEST(pointers)
{
  struct oc_jdoc d;
  struct oc_jerr err;
  oc_jdoc_init(&d);
  ck_assert_int_eq(parse(&d, "{\"choices\":[{\"delta\":{\"a/b\":1,\"m~n\":2}}],\"\":3,\"x\":{\"\":4}}", &err),
                   OC_OK);
  ck_assert_ptr_eq(oc_jv_pointer(d.root, ""), d.root);
  ck_assert_double_eq(oc_jv_pointer(d.root, "/choices/0/delta/a~1b")->u.num, 1);
  ck_assert_double_eq(oc_jv_pointer(d.root, "/choices/0/delta/m~0n")->u.num, 2);
  ck_assert_double_eq(oc_jv_pointer(d.root, "/")->u.num, 3);
  ck_assert_double_eq(oc_jv_pointer(d.root, "/x/")->u.num, 4);
  ck_assert_ptr_null(oc_jv_pointer(d.root, "/choices/1"));
  ck_assert_ptr_null(oc_jv_pointer(d.root, "/choices/01"));
  ck_assert_ptr_null(oc_jv_pointer(d.root, "/choices/-"));
  ck_assert_ptr_null(oc_jv_pointer(d.root, "/choices/0/delta/m~2n"));
  ck_assert_ptr_null(oc_jv_pointer(d.root, "choices"));
  ck_assert_ptr_null(oc_jv_pointer(d.root, "/choices/0/delta/a~1b/z"));
  ck_assert_ptr_null(oc_jv_pointer(NULL, ""));
  oc_jdoc_free(&d);
}
END_TEST

START_TEST(cjson_round_trip)
{
  struct oc_jdoc d, e;
  struct oc_jerr err;
  oc_jdoc_init(&d);
  oc_jdoc_init(&e);
  const char *t = "{\"a\":[1,-2.5,true,false,null,\"\\u00e9\\ud83d\\ude00\"],\"b\":{\"c\":{}},\"d\":[],"
                  "\"e\":1e300}";
  ck_assert_int_eq(parse(&d, t, &err), OC_OK);
  cJSON *c = oc_jv_to_cjson(d.root);
  ck_assert_ptr_nonnull(c);
  cJSON *ref = cJSON_Parse(t);
  ck_assert(oc_json_equal(c, ref));
  ck_assert_int_eq(oc_jdoc_from_cjson(&e, c), OC_OK);
  ck_assert(oc_jv_equal(d.root, e.root));
  ck_assert_uint_eq(e.root->offset, 0);
  ck_assert(oc_jv_at(oc_jv_get(e.root, "a"), 0)->int_literal);
  ck_assert(!oc_jv_at(oc_jv_get(e.root, "a"), 1)->int_literal);
  cJSON_Delete(c);
  cJSON_Delete(ref);
  /* duplicates survive both ways and are counted */
  ck_assert_int_eq(parse(&d, "{\"a\":1,\"a\":2}", &err), OC_OK);
  c = oc_jv_to_cjson(d.root);
  ck_assert_int_eq(cJSON_GetArraySize(c), 2);
  ck_assert_int_eq(oc_jdoc_from_cjson(&e, c), OC_OK);
  ck_assert_uint_eq(e.duplicate_keys, 1);
  ck_assert_double_eq(oc_jv_get(e.root, "a")->u.num, 2);
  cJSON_Delete(c);
  /* the depth cap applies to trees as well */
  e.max_depth = 3;
  c = cJSON_Parse("[[[[1]]]]");
  ck_assert_int_eq(oc_jdoc_from_cjson(&e, c), OC_ETOOBIG);
  cJSON_Delete(c);
  oc_jdoc_free(&d);
  oc_jdoc_free(&e);
}
END_TEST

/* Mutated documents: never a crash or a leak (the sanitizers watch), an
 * error offset inside the text, and whatever is accepted survives a
 * round trip through cJSON's printer and jdoc again. */
START_TEST(mutations_are_handled)
{
  static const char *seeds[] = {
    "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"h\\u00e9\\n\"},\"finish_reason\":null}],"
    "\"created\":1796004203,\"usage\":{\"a\":1.5e3,\"b\":-0,\"c\":[true,false,[]]}}",
    "[1,2.5,-3e-2,\"\\ud83d\\ude00\",{\"\":{}}]",
  };
  static const char alphabet[] = "{}[]:,\"\\0123456789-+.eEtrufalsn \t\nu\x01\xff\xe2";
  struct oc_jdoc d, e;
  oc_jdoc_init(&d);
  oc_jdoc_init(&e);
  unsigned seed = 99;
  char buf[512];
  size_t accepted = 0;
  for(int round = 0; round < 40000; round++) {
    const char *src = seeds[round % OC_ARRAY_LEN(seeds)];
    size_t len = strlen(src);
    memcpy(buf, src, len);
    int edits = 1 + (int)(rand_r(&seed) % 3);
    for(int k = 0; k < edits && len > 0; k++) {
      size_t at = (size_t)rand_r(&seed) % len;
      char c = alphabet[(size_t)rand_r(&seed) % (sizeof(alphabet) - 1)];
      switch(rand_r(&seed) % 3) {
      case 0: buf[at] = c; break;                                              /* replace */
      case 1: memmove(buf + at, buf + at + 1, len - at - 1); len--; break;      /* delete */
      default:                                                                 /* insert */
        if(len + 1 < sizeof(buf)) {
          memmove(buf + at + 1, buf + at, len - at);
          buf[at] = c;
          len++;
        }
      }
    }
    struct oc_jerr err = {0, NULL};
    int rc = oc_jdoc_parse(&d, buf, len, &err);
    if(rc) {
      ck_assert_int_eq(rc, OC_EPARSE);
      ck_assert_uint_le(err.offset, len);
      ck_assert_ptr_nonnull(err.message);
      continue;
    }
    accepted++;
    cJSON *c = oc_jv_to_cjson(d.root);
    ck_assert_ptr_nonnull(c);
    char *text = cJSON_PrintUnformatted(c);
    ck_assert_ptr_nonnull(text);
    ck_assert_int_eq(oc_jdoc_parse(&e, text, strlen(text), &err), OC_OK);
    if(!d.invalid_utf8 && !memchr(buf, 0, len) && !strstr(text, "\\u0000"))
      ck_assert_msg(oc_jv_equal(d.root, e.root), "round trip of '%.*s'", (int)len, buf);
    free(text);
    cJSON_Delete(c);
  }
  ck_assert_uint_gt(accepted, 1000);
  oc_jdoc_free(&d);
  oc_jdoc_free(&e);
}
END_TEST

/* Same tree, member order included, strings compared up to their first
 * NUL (cJSON cannot hold U+0000, and the suite has "\u0000" cases). */
static int same_tree(const struct oc_jv *a, const struct oc_jv *b)
{
  if(a->type != b->type || (a->type != OC_JSTRING && a->len != b->len))
    return 0;
  switch(a->type) {
  case OC_JNUMBER: return a->u.num == b->u.num;
  case OC_JSTRING: return strcmp(a->u.str, b->u.str) == 0;
  case OC_JARRAY:
    for(size_t i = 0; i < a->len; i++)
      if(!same_tree(&a->u.items[i], &b->u.items[i]))
        return 0;
    return 1;
  case OC_JOBJECT:
    for(size_t i = 0; i < a->len; i++)
      if(strcmp(a->u.members[i].key, b->u.members[i].key) != 0 ||
         !same_tree(&a->u.members[i].value, &b->u.members[i].value))
        return 0;
    return 1;
  default: return 1;
  }
}

/* Parse every file of the JSON-Schema-Test-Suite with both readers and
 * compare: a cheap differential test over ~200 real documents. */
static size_t differential_dir(const char *dir, struct oc_jdoc *d, struct oc_jdoc *e)
{
  size_t files = 0;
  DIR *dh = opendir(dir);
  ck_assert_ptr_nonnull(dh);
  struct dirent *de;
  while((de = readdir(dh))) {
    if(de->d_name[0] == '.')
      continue;
    char *path = oc_path_join(dir, de->d_name);
    if(oc_is_dir(path))
      files += differential_dir(path, d, e);
    else if(oc_endswith(de->d_name, ".json")) {
      size_t len;
      char *text = oc_test_read(path, &len);
      struct oc_jerr err;
      int rc = oc_jdoc_parse(d, text, len, &err);
      cJSON *c = oc_json_parse(text, len, NULL);
      ck_assert_msg(rc == OC_OK, "%s: byte %zu: %s", path, err.offset, err.message);
      ck_assert_msg(c != NULL, "%s: cJSON failed", path);
      ck_assert_int_eq(oc_jdoc_from_cjson(e, c), OC_OK);
      ck_assert_msg(same_tree(d->root, e->root), "%s: jdoc and cJSON disagree", path);
      if(!strstr(text, "\\u0000"))
        ck_assert_msg(oc_jv_equal(d->root, e->root), "%s: oc_jv_equal disagrees", path);
      cJSON *back = oc_jv_to_cjson(d->root);
      ck_assert_msg(oc_json_equal(back, c), "%s: round trip differs", path);
      cJSON_Delete(back);
      cJSON_Delete(c);
      free(text);
      files++;
    }
    free(path);
  }
  closedir(dh);
  return files;
}

START_TEST(differential_json_schema_test_suite)
{
  char *dir = oc_test_shared("reference/json-schema-test-suite");
  if(!dir) {
    fprintf(stderr, "skipping the differential test\n");
    return;
  }
  struct oc_jdoc d, e;
  oc_jdoc_init(&d);
  oc_jdoc_init(&e);
  size_t files = differential_dir(dir, &d, &e);
  ck_assert_uint_ge(files, 100);
  oc_jdoc_free(&d);
  oc_jdoc_free(&e);
  free(dir);
}
END_TEST

static Suite *jdoc_suite(void)
{
  Suite *s = suite_create("jdoc");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, values_and_offsets);
  tcase_add_test(tc, invalid_texts_have_exact_offsets);
  tcase_add_test(tc, escapes_and_surrogates);
  tcase_add_test(tc, special_bytes_at_every_position);
  tcase_add_test(tc, nul_in_strings);
  tcase_add_test(tc, duplicates);
  tcase_add_test(tc, depth_and_size_caps);
  tcase_add_test(tc, arena_is_reused);
  tcase_add_test(tc, numbers);
  tcase_add_test(tc, equality);
  tcase_add_test(tc, pointers);
  tcase_add_test(tc, cjson_round_trip);
  tcase_add_test(tc, mutations_are_handled);
  tcase_add_test(tc, differential_json_schema_test_suite);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return oc_test_run(jdoc_suite());
}
