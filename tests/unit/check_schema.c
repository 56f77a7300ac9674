/* check_schema.c — the validator keyword by keyword: verdicts, the
 * messages a person reads, instance paths, keyword locations and byte
 * offsets, compile errors for malformed schemas (with their position),
 * the error cap, recursion limits, the cJSON entry points, and the
 * ECMA-262 regex layer.  The official suite runs in check_schema_suite. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "jdoc.h"
#include "regex.h"
#include "schema.h"
#include "testutil.h"

/* Compile schema text (2020-12 unless flags say otherwise); fails the test
 * on a compile error. */
static struct oc_schema *compile_text(const char *text, unsigned flags)
{
  struct oc_jdoc d;
  oc_jdoc_init(&d);
  struct oc_jerr je;
  ck_assert_msg(oc_jdoc_parse(&d, text, strlen(text), &je) == 0, "schema text: %s", je.message);
  char err[1024];
  struct oc_schema_registry *r = oc_schema_registry_new();
  struct oc_schema *s = oc_schema_compile_jv(r, d.root, NULL, flags, err, sizeof(err));
  ck_assert_msg(s != NULL, "compile failed: %s", err);
  oc_schema_registry_free(r); /* the schema must not need it any more */
  oc_jdoc_free(&d);
  return s;
}

/* The compile error for schema text ("" when it compiles). */
static char *compile_error(const char *text)
{
  struct oc_jdoc d;
  oc_jdoc_init(&d);
  struct oc_jerr je;
  ck_assert(oc_jdoc_parse(&d, text, strlen(text), &je) == 0);
  char err[1024] = "";
  struct oc_schema_registry *r = oc_schema_registry_new();
  struct oc_schema *s = oc_schema_compile_jv(r, d.root, NULL, 0, err, sizeof(err));
  if(s)
    err[0] = '\0';
  oc_schema_free(s);
  oc_schema_registry_free(r);
  oc_jdoc_free(&d);
  return oc_strdup(err);
}

/* Validate instance text: returns the verdict and fills res (caller frees). */
static int check_text(const struct oc_schema *s, const char *inst, struct oc_schema_result *res)
{
  struct oc_jdoc d;
  oc_jdoc_init(&d);
  struct oc_jerr je;
  ck_assert_msg(oc_jdoc_parse(&d, inst, strlen(inst), &je) == 0, "instance text: %s", je.message);
  int fast = oc_schema_validate(s, d.root, NULL);
  oc_schema_result_init(res);
  res->always_report = 1;
  int full = oc_schema_validate(s, d.root, res);
  ck_assert_int_eq(fast, full);
  if(full == 0)
    ck_assert_uint_gt(res->count, 0);
  else
    ck_assert_uint_eq(res->count, 0);
  oc_jdoc_free(&d);
  return full;
}

static int valid(const char *schema, const char *inst)
{
  struct oc_schema *s = compile_text(schema, 0);
  struct oc_schema_result res;
  int v = check_text(s, inst, &res);
  oc_schema_result_free(&res);
  oc_schema_free(s);
  return v;
}

/* The single error of an invalid instance, as "PATH|SCHEMAPATH|MESSAGE". */
static char *one_error(const char *schema, const char *inst)
{
  struct oc_schema *s = compile_text(schema, 0);
  struct oc_schema_result res;
  ck_assert_int_eq(check_text(s, inst, &res), 0);
  ck_assert_uint_eq(res.count, 1);
  char *out = oc_asprintf("%s|%s|%s", res.errors[0].instance_path, res.errors[0].schema_path,
                          res.errors[0].message);
  oc_schema_result_free(&res);
  oc_schema_free(s);
  return out;
}

#define ASSERT_ONE_ERROR(schema, inst, want)                \
  do {                                                      \
    char *got_ = one_error(schema, inst);                   \
    ck_assert_str_eq(got_, want);                           \
    free(got_);                                             \
  } while(0)

START_TEST(type_messages)
{
  ASSERT_ONE_ERROR("{\"type\":\"integer\"}", "\"0\"", "|/type|expected integer, got string \"0\"");
  ASSERT_ONE_ERROR("{\"type\":[\"string\",\"null\"]}", "5", "|/type|expected string or null, got integer 5");
  ASSERT_ONE_ERROR("{\"type\":\"object\"}", "[1,2]", "|/type|expected object, got array of 2 items");
  ASSERT_ONE_ERROR("{\"type\":\"integer\"}", "1.5", "|/type|expected integer, got number 1.5");
  ck_assert(valid("{\"type\":\"integer\"}", "1.0"));
  ck_assert(valid("{\"type\":\"number\"}", "7"));
  ck_assert(valid("{\"type\":[\"boolean\",\"null\"]}", "null"));
  ck_assert(!valid("{\"type\":\"boolean\"}", "0"));
}
END_TEST

START_TEST(paths_through_properties_items_and_refs)
{
  const char *schema =
      "{\"type\":\"object\",\"properties\":{\"choices\":{\"type\":\"array\",\"items\":"
      "{\"$ref\":\"#/$defs/choice\"}}},\"$defs\":{\"choice\":{\"type\":\"object\",\"required\":[\"index\"],"
      "\"properties\":{\"index\":{\"type\":\"integer\"},\"a/b\":{\"const\":1}}}}}";
  ASSERT_ONE_ERROR(schema, "{\"choices\":[{\"index\":0},{\"index\":\"0\"}]}",
                   "/choices/1/index|/properties/choices/items/$ref/properties/index/type|"
                   "expected integer, got string \"0\"");
  ASSERT_ONE_ERROR(schema, "{\"choices\":[{}]}",
                   "/choices/0|/properties/choices/items/$ref/required|missing required property \"index\"");
  ASSERT_ONE_ERROR(schema, "{\"choices\":[{\"index\":1,\"a/b\":2}]}",
                   "/choices/0/a~1b|/properties/choices/items/$ref/properties/a~1b/const|"
                   "expected 1 (const), got integer 2");
}
END_TEST

START_TEST(offsets_point_at_the_value)
{
  struct oc_schema *s = compile_text("{\"properties\":{\"x\":{\"type\":\"string\"}},\"additionalProperties\":false}", 0);
  const char *inst = "{\"x\": 12, \"y\": true}";
  struct oc_schema_result res;
  ck_assert_int_eq(check_text(s, inst, &res), 0);
  ck_assert_uint_eq(res.count, 2);
  ck_assert_str_eq(res.errors[0].instance_path, "/x");
  ck_assert_uint_eq(res.errors[0].offset, 6); /* the 1 of 12 */
  ck_assert_str_eq(res.errors[0].keyword, "type");
  ck_assert_str_eq(res.errors[1].instance_path, "/y");
  ck_assert_uint_eq(res.errors[1].offset, 10); /* the key "y" */
  ck_assert_str_eq(res.errors[1].message, "property \"y\" is not allowed (additionalProperties is false)");
  char *line = oc_schema_error_format(&res.errors[0]);
  ck_assert_str_eq(line, "at /x: expected string, got integer 12");
  free(line);
  oc_schema_result_free(&res);
  oc_schema_free(s);
}
END_TEST

START_TEST(every_failure_is_reported)
{
  struct oc_schema *s = compile_text("{\"required\":[\"a\",\"b\",\"c\"],\"minProperties\":5}", 0);
  struct oc_schema_result res;
  ck_assert_int_eq(check_text(s, "{}", &res), 0);
  ck_assert_uint_eq(res.count, 4);
  oc_schema_result_free(&res);
  /* the cap keeps the first N and counts the rest */
  struct oc_jdoc d;
  oc_jdoc_init(&d);
  struct oc_jerr je;
  ck_assert(oc_jdoc_parse(&d, "{}", 2, &je) == 0);
  oc_schema_result_init(&res);
  res.max = 2;
  ck_assert_int_eq(oc_schema_validate(s, d.root, &res), 0);
  ck_assert_uint_eq(res.count, 2);
  ck_assert_uint_ge(res.dropped, 1);
  oc_schema_result_free(&res);
  ck_assert_uint_eq(res.max, 2); /* kept for reuse */
  oc_jdoc_free(&d);
  oc_schema_free(s);
}
END_TEST

START_TEST(numbers)
{
  ck_assert(valid("{\"minimum\":0,\"maximum\":10}", "10"));
  ASSERT_ONE_ERROR("{\"minimum\":0}", "-1", "|/minimum|expected a number >= 0, got -1");
  ASSERT_ONE_ERROR("{\"exclusiveMaximum\":10}", "10", "|/exclusiveMaximum|expected a number < 10, got 10");
  ASSERT_ONE_ERROR("{\"multipleOf\":2}", "3", "|/multipleOf|expected a multiple of 2, got 3");
  ck_assert(valid("{\"multipleOf\":0.0001}", "0.0075"));
  ck_assert(!valid("{\"multipleOf\":0.0001}", "0.00751"));
  ck_assert(!valid("{\"multipleOf\":0.123456789}", "1e308"));
  ck_assert(valid("{\"minimum\":5}", "\"not a number\""));
}
END_TEST

START_TEST(strings_count_code_points)
{
  ck_assert(valid("{\"maxLength\":2}", "\"\xc3\xa9\xe2\x82\xac\"")); /* é€: 2 code points, 5 bytes */
  ASSERT_ONE_ERROR("{\"minLength\":3}", "\"\xf0\x9f\x98\x80\xf0\x9f\x98\x80\"",
                   "|/minLength|expected at least 3 characters, got 2");
  ck_assert(valid("{\"pattern\":\"b\"}", "\"abc\"")); /* not anchored */
  ASSERT_ONE_ERROR("{\"pattern\":\"^a+$\"}", "\"ab\"", "|/pattern|expected a string matching /^a+$/, got \"ab\"");
  ck_assert(valid("{\"pattern\":\"^\\\\p{L}+$\"}", "\"\xc3\xa9t\xc3\xa9\""));
}
END_TEST

START_TEST(enums_and_consts)
{
  ASSERT_ONE_ERROR("{\"enum\":[\"stop\",\"length\",null]}", "\"eos\"",
                   "|/enum|expected one of \"stop\", \"length\", null, got string \"eos\"");
  ck_assert(valid("{\"enum\":[{\"a\":[1,2]}]}", "{\"a\":[1.0,2]}"));
  ck_assert(!valid("{\"const\":false}", "0"));
  ck_assert(valid("{\"const\":\"a\\u0000b\"}", "\"a\\u0000b\""));
  ck_assert(!valid("{\"const\":\"a\\u0000b\"}", "\"a\""));
}
END_TEST

START_TEST(arrays)
{
  ASSERT_ONE_ERROR("{\"prefixItems\":[{\"type\":\"integer\"}],\"items\":false}", "[1,2,3]",
                   "|/items|expected at most 1 item (items is false), got 3");
  ASSERT_ONE_ERROR("{\"uniqueItems\":true}", "[1,{\"a\":1},2,{\"a\":1.0}]",
                   "|/uniqueItems|items 1 and 3 are equal, expected unique items");
  /* the hashed path for long arrays */
  struct oc_buf b;
  oc_buf_init(&b, 1 << 20);
  oc_buf_adds(&b, "[");
  for(int i = 0; i < 100; i++)
    oc_buf_printf(&b, "%s{\"k\":%d}", i ? "," : "", i);
  oc_buf_adds(&b, ",{\"k\":42}]");
  ck_assert(!valid("{\"uniqueItems\":true}", oc_buf_str(&b)));
  oc_buf_free(&b);
  ASSERT_ONE_ERROR("{\"contains\":{\"type\":\"string\"},\"minContains\":2}", "[\"a\",1]",
                   "|/contains|expected at least 2 items matching \"contains\", got 1");
  ASSERT_ONE_ERROR("{\"contains\":{\"type\":\"string\"},\"maxContains\":1}", "[\"a\",\"b\"]",
                   "|/maxContains|expected at most 1 item matching \"contains\", got 2");
  ck_assert(valid("{\"minItems\":1,\"maxItems\":2}", "[0]"));
}
END_TEST

START_TEST(objects)
{
  ASSERT_ONE_ERROR("{\"dependentRequired\":{\"a\":[\"b\"]}}", "{\"a\":1}",
                   "|/dependentRequired|missing property \"b\", required when \"a\" is present");
  ASSERT_ONE_ERROR("{\"propertyNames\":{\"maxLength\":2}}", "{\"abc\":1}",
                   "|/propertyNames|property name \"abc\" is not allowed by propertyNames: expected at most 2 "
                   "characters, got 3");
  ASSERT_ONE_ERROR("{\"patternProperties\":{\"^x-\":{\"type\":\"string\"}},\"additionalProperties\":false}",
                   "{\"x-a\":\"s\",\"b\":1}",
                   "/b|/additionalProperties|property \"b\" is not allowed (additionalProperties is false)");
  ck_assert(!valid("{\"dependentSchemas\":{\"a\":{\"required\":[\"b\"]}}}", "{\"a\":1}"));
  /* many properties take the hashed lookup */
  ck_assert(!valid("{\"properties\":{\"a\":{},\"b\":{},\"c\":{},\"d\":{},\"e\":{},\"f\":{},\"g\":{},\"h\":{},"
                   "\"i\":{},\"j\":{\"type\":\"string\"}},\"additionalProperties\":false}",
                   "{\"j\":\"x\",\"a\":1,\"k\":2}"));
  ck_assert(valid("{\"properties\":{\"a\":{},\"b\":{},\"c\":{},\"d\":{},\"e\":{},\"f\":{},\"g\":{},\"h\":{},"
                  "\"i\":{},\"j\":{\"type\":\"string\"}},\"additionalProperties\":false}",
                  "{\"j\":\"x\",\"a\":1,\"i\":2}"));
}
END_TEST

/* A member not allowed names the declared property it was most likely
 * meant to be, and only a close one: a third of the longer name at most. */
START_TEST(misspelt_members_suggest_the_property)
{
  const char *schema = "{\"properties\":{\"profile\":{},\"key_env\":{},\"x\":{},\"description\":{}},"
                       "\"additionalProperties\":false}";
  ASSERT_ONE_ERROR(schema, "{\"profle\":1}",
                   "/profle|/additionalProperties|property \"profle\" is not allowed "
                   "(additionalProperties is false); did you mean \"profile\"?");
  ASSERT_ONE_ERROR(schema, "{\"key_evn\":1}",
                   "/key_evn|/additionalProperties|property \"key_evn\" is not allowed "
                   "(additionalProperties is false); did you mean \"key_env\"?");
  ASSERT_ONE_ERROR(schema, "{\"Descripton\":1}",
                   "/Descripton|/additionalProperties|property \"Descripton\" is not allowed "
                   "(additionalProperties is false); did you mean \"description\"?");
  /* one letter away from a one-letter name is not a misspelling */
  ASSERT_ONE_ERROR(schema, "{\"y\":1}",
                   "/y|/additionalProperties|property \"y\" is not allowed (additionalProperties is false)");
  ASSERT_ONE_ERROR(schema, "{\"model\":1}",
                   "/model|/additionalProperties|property \"model\" is not allowed (additionalProperties is false)");
}
END_TEST

START_TEST(combinators)
{
  ASSERT_ONE_ERROR("{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]}", "5",
                   "|/anyOf|matches none of the alternatives of anyOf: (0) expected string, got integer 5; "
                   "(1) expected null, got integer 5");
  ASSERT_ONE_ERROR("{\"oneOf\":[{\"minimum\":0},{\"maximum\":10}]}", "5",
                   "|/oneOf|matches more than one alternative of oneOf (0 and 1), expected exactly one");
  ASSERT_ONE_ERROR("{\"not\":{\"type\":\"null\"}}", "null", "|/not|must not match the schema in \"not\", got null");
  ASSERT_ONE_ERROR("{\"if\":{\"properties\":{\"t\":{\"const\":\"a\"}}},\"then\":{\"required\":[\"a\"]},"
                   "\"else\":{\"required\":[\"b\"]}}",
                   "{\"t\":\"b\"}", "|/else/required|missing required property \"b\"");
  ASSERT_ONE_ERROR("{\"allOf\":[{\"type\":\"object\"},{\"required\":[\"z\"]}]}", "{}",
                   "|/allOf/1/required|missing required property \"z\"");
  /* explaining an alternative does not cut the outer report short */
  struct oc_schema *s = compile_text("{\"properties\":{\"a\":{\"anyOf\":[{\"required\":[\"x\",\"y\"]},"
                                     "{\"required\":[\"z\",\"w\"]}]},\"b\":{\"type\":\"string\"}}}", 0);
  struct oc_schema_result res;
  ck_assert_int_eq(check_text(s, "{\"a\":{},\"b\":1}", &res), 0);
  ck_assert_uint_eq(res.count, 2);
  ck_assert_str_eq(res.errors[1].instance_path, "/b");
  oc_schema_result_free(&res);
  oc_schema_free(s);
  /* many long alternatives: the explanation is cut, never lost */
  struct oc_buf b;
  oc_buf_init(&b, 1 << 20);
  oc_buf_adds(&b, "{\"anyOf\":[");
  for(int i = 0; i < 60; i++)
    oc_buf_printf(&b, "%s{\"required\":[\"a_rather_long_property_name_number_%d_that_is_missing\"]}", i ? "," : "", i);
  oc_buf_adds(&b, "]}");
  s = compile_text(oc_buf_str(&b), 0);
  ck_assert_int_eq(check_text(s, "{}", &res), 0);
  ck_assert_ptr_nonnull(strstr(res.errors[0].message, "matches none of the alternatives of anyOf: (0) missing"));
  ck_assert_ptr_nonnull(strstr(res.errors[0].message, "more)"));
  ck_assert_uint_le(strlen(res.errors[0].message), OC_CAP_MESSAGE);
  oc_schema_result_free(&res);
  oc_schema_free(s);
  oc_buf_free(&b);
  ASSERT_ONE_ERROR("{\"properties\":{\"a\":false}}", "{\"a\":1}",
                   "/a|/properties/a|no value is allowed here (the schema is false), got integer");
}
END_TEST

START_TEST(unevaluated_and_dynamic)
{
  const char *s = "{\"allOf\":[{\"properties\":{\"a\":{}}}],\"properties\":{\"b\":{}},"
                  "\"unevaluatedProperties\":false}";
  ck_assert(valid(s, "{\"a\":1,\"b\":2}"));
  ASSERT_ONE_ERROR(s, "{\"a\":1,\"c\":2}",
                   "/c|/unevaluatedProperties|property \"c\" is not allowed (unevaluatedProperties is false)");
  ck_assert(valid("{\"prefixItems\":[true],\"contains\":{\"type\":\"string\"},\"unevaluatedItems\":false}",
                  "[1,\"a\"]"));
  ck_assert(!valid("{\"prefixItems\":[true],\"unevaluatedItems\":false}", "[1,\"a\"]"));
  /* $dynamicRef resolves to the outermost $dynamicAnchor */
  const char *dyn =
      "{\"$id\":\"https://x.test/root\",\"$ref\":\"list\",\"$defs\":{"
      "\"strings\":{\"$dynamicAnchor\":\"item\",\"type\":\"string\"},"
      "\"list\":{\"$id\":\"list\",\"type\":\"array\",\"items\":{\"$dynamicRef\":\"#item\"},"
      "\"$defs\":{\"any\":{\"$dynamicAnchor\":\"item\"}}}}}";
  ck_assert(valid(dyn, "[\"a\"]"));
  ck_assert(!valid(dyn, "[1]"));
}
END_TEST

START_TEST(format_is_an_annotation_by_default)
{
  const char *schema = "{\"format\":\"date-time\"}";
  ck_assert(valid(schema, "\"yesterday\""));
  struct oc_schema *s = compile_text(schema, OC_SCHEMA_FORMAT_ASSERT);
  struct oc_schema_result res;
  ck_assert_int_eq(check_text(s, "\"yesterday\"", &res), 0);
  ck_assert_str_eq(res.errors[0].message, "expected a valid date-time, got \"yesterday\"");
  oc_schema_result_free(&res);
  ck_assert_int_eq(check_text(s, "\"2024-02-29T23:59:60Z\"", &res), 1);
  oc_schema_result_free(&res);
  ck_assert_int_eq(check_text(s, "\"2023-02-29T10:00:00Z\"", &res), 0);
  oc_schema_result_free(&res);
  ck_assert_int_eq(check_text(s, "42", &res), 1); /* formats apply to strings only */
  oc_schema_result_free(&res);
  oc_schema_free(s);
}
END_TEST

START_TEST(draft7_rules)
{
  /* $ref overrides its siblings in draft-07, not in 2020-12 */
  const char *schema = "{\"$defs\":{\"s\":{\"type\":\"string\"}},\"definitions\":{\"s\":{\"type\":\"string\"}},"
                       "\"properties\":{\"a\":{\"$ref\":\"#/definitions/s\",\"maxLength\":1}}}";
  struct oc_schema *s7 = compile_text(schema, OC_SCHEMA_DRAFT7);
  struct oc_schema *s20 = compile_text(schema, 0);
  struct oc_schema_result res;
  ck_assert_int_eq(check_text(s7, "{\"a\":\"long\"}", &res), 1);
  oc_schema_result_free(&res);
  ck_assert_int_eq(check_text(s20, "{\"a\":\"long\"}", &res), 0);
  oc_schema_result_free(&res);
  oc_schema_free(s7);
  oc_schema_free(s20);
  /* $schema selects the dialect whatever the default */
  ck_assert(!valid("{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"items\":[{\"type\":\"integer\"}],"
                   "\"additionalItems\":false}",
                   "[1,2]"));
}
END_TEST

START_TEST(malformed_schemas_are_compile_errors)
{
  struct {
    const char *schema, *want;
  } cases[] = {
    { "{\"type\":5}", "schema at (root) (byte 8): \"type\" must be one of" },
    { "{\"properties\":{\"a\":{\"minimum\":\"x\"}}}", "schema at /properties/a (byte 30): \"minimum\" must be a number" },
    { "{\"pattern\":\"([\"}", "invalid regular expression \"([\"" },
    { "{\"pattern\":\"\\\\a\"}", "is not an ECMA-262 escape" },
    { "{\"$ref\":\"#/$defs/missing\"}", "schema at /$ref (byte 8): unresolved reference \"#/$defs/missing\"" },
    { "{\"$ref\":\"https://nowhere.test/s.json\"}", "no schema with that URI is registered" },
    { "{\"items\":[{}]}", "\"items\" must be a schema in draft 2020-12" },
    { "{\"$schema\":\"https://unknown.test/meta\"}", "unknown meta-schema \"https://unknown.test/meta\"" },
    { "{\"properties\":{\"a\":3}}", "schema at /properties/a (byte 19): a schema must be an object or a boolean" },
    { "{\"required\":\"a\"}", "\"required\" must be an array of strings" },
    { "{\"allOf\":[]}", "\"allOf\" must be a non-empty array of schemas" },
    { "{\"minLength\":-1}", "\"minLength\" must be a non-negative integer" },
    { "{\"multipleOf\":0}", "\"multipleOf\" must be greater than 0" },
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(cases); i++) {
    char *err = compile_error(cases[i].schema);
    ck_assert_msg(strstr(err, cases[i].want) != NULL, "schema %s: got \"%s\", want \"%s\"", cases[i].schema,
                  err, cases[i].want);
    free(err);
  }
  char *ok = compile_error("{\"x-vendor\":{\"type\":5},\"description\":\"unknown keywords are fine\"}");
  ck_assert_str_eq(ok, "");
  free(ok);
}
END_TEST

/* Validate through both paths; the verdict, and the undecided reason (or
 * "") into why. */
static int verdict(const char *schema, const char *inst, char *why, size_t whylen)
{
  struct oc_schema *s = compile_text(schema, 0);
  struct oc_jdoc d;
  oc_jdoc_init(&d);
  struct oc_jerr je;
  ck_assert(oc_jdoc_parse(&d, inst, strlen(inst), &je) == 0);
  int fast = oc_schema_validate(s, d.root, NULL);
  struct oc_schema_result res;
  oc_schema_result_init(&res);
  int full = oc_schema_validate(s, d.root, &res);
  ck_assert_int_eq(fast, full);
  oc_strlcpy(why, res.undecided ? res.undecided : "", whylen);
  if(full == -OC_ETOOBIG)
    ck_assert_msg(res.undecided != NULL, "undecided without a reason");
  oc_schema_result_free(&res);
  oc_jdoc_free(&d);
  oc_schema_free(s);
  return full;
}

static char *nested(const char *open, const char *inner, const char *close, int n)
{
  struct oc_buf b;
  oc_buf_init(&b, 1 << 20);
  for(int i = 0; i < n; i++)
    oc_buf_adds(&b, open);
  oc_buf_adds(&b, inner);
  for(int i = 0; i < n; i++)
    oc_buf_adds(&b, close);
  return oc_buf_take(&b, NULL);
}

START_TEST(combinators_are_bounded)
{
  char why[400];
  /* 38 bytes: an anyOf of two self-references was exponential up to the
   * recursion cap; it consumes nothing, so it is undecided at once */
  char *inst = nested("[", "1", "]", 30);
  uint64_t t0 = oc_now_ns();
  ck_assert_int_eq(verdict("{\"anyOf\":[{\"$ref\":\"#\"},{\"$ref\":\"#\"}]}", inst, why, sizeof(why)),
                   -OC_ETOOBIG);
  ck_assert_msg(strstr(why, "recurses"), "why: %s", why);
  ck_assert_msg(oc_now_ns() - t0 < 2000000000ull, "took %.1f s", (double)(oc_now_ns() - t0) / 1e9);
  free(inst);
  /* recursion that does consume the instance, two failing branches per
   * level: 2^40 evaluations without the memo */
  inst = nested("{\"a\":", "{}", "}", 40);
  t0 = oc_now_ns();
  ck_assert_int_eq(verdict("{\"anyOf\":[{\"allOf\":[{\"properties\":{\"a\":{\"$ref\":\"#\"}}},{\"required\":[\"x\"]}]},"
                           "{\"allOf\":[{\"properties\":{\"a\":{\"$ref\":\"#\"}}},{\"required\":[\"y\"]}]}]}",
                           inst, why, sizeof(why)), 0);
  ck_assert_msg(oc_now_ns() - t0 < 5000000000ull, "took %.1f s", (double)(oc_now_ns() - t0) / 1e9);
  /* and the same when the innermost value is valid */
  free(inst);
  inst = nested("{\"a\":", "{\"x\":1}", ",\"x\":1}", 40);
  ck_assert_int_eq(verdict("{\"anyOf\":[{\"allOf\":[{\"properties\":{\"a\":{\"$ref\":\"#\"}}},{\"required\":[\"y\"]}]},"
                           "{\"allOf\":[{\"properties\":{\"a\":{\"$ref\":\"#\"}}},{\"required\":[\"x\"]}]}]}",
                           inst, why, sizeof(why)), 1);
  free(inst);
}
END_TEST

START_TEST(regex_budget_is_undecided)
{
  char why[400];
  const char *inst = "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\"";
  /* the alternative 'a' matches, but the engine never gets there: it is
   * not "no match", and not "valid under not" */
  ck_assert_int_eq(verdict("{\"pattern\":\"(a|a)+!x|a\"}", inst, why, sizeof(why)), -OC_ETOOBIG);
  ck_assert_msg(strstr(why, "match budget"), "why: %s", why);
  ck_assert_int_eq(verdict("{\"not\":{\"pattern\":\"(a|a)+!x|a\"}}", inst, why, sizeof(why)), -OC_ETOOBIG);
  ck_assert_int_eq(verdict("{\"patternProperties\":{\"(a|a)+!x|a\":false}}",
                           "{\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\":1}", why, sizeof(why)), -OC_ETOOBIG);
  /* a pattern that decides stays a verdict */
  ck_assert_int_eq(verdict("{\"pattern\":\"^a+!$\"}", inst, why, sizeof(why)), 1);
}
END_TEST

START_TEST(recursion_is_bounded)
{
  /* a reference cycle that consumes nothing: undecided, not a verdict */
  char why[400];
  ck_assert_int_eq(verdict("{\"$ref\":\"#\"}", "1", why, sizeof(why)), -OC_ETOOBIG);
  ck_assert_msg(strstr(why, "recurs"), "why: %s", why);
  struct oc_schema *s;
  struct oc_schema_result res;
  /* a deep instance against a recursive schema */
  s = compile_text("{\"anyOf\":[{\"type\":\"integer\"},{\"type\":\"array\",\"items\":{\"$ref\":\"#\"}}]}", 0);
  struct oc_buf b;
  oc_buf_init(&b, 1 << 20);
  for(int i = 0; i < 300; i++)
    oc_buf_addc(&b, '[');
  oc_buf_addc(&b, '1');
  for(int i = 0; i < 300; i++)
    oc_buf_addc(&b, ']');
  ck_assert_int_eq(check_text(s, oc_buf_str(&b), &res), 1);
  oc_schema_result_free(&res);
  oc_buf_free(&b);
  oc_schema_free(s);
}
END_TEST

START_TEST(cjson_entry_points_and_registry)
{
  char err[1024];
  struct oc_schema_registry *r = oc_schema_registry_new();
  cJSON *doc = cJSON_Parse("{\"$id\":\"https://oacheck.test/common.json\",\"$defs\":{\"id\":{\"type\":\"string\","
                           "\"minLength\":1}}}");
  ck_assert_int_eq(oc_schema_registry_add(r, "https://oacheck.test/common.json", doc, err, sizeof(err)), 0);
  cJSON *schema = cJSON_Parse("{\"type\":\"object\",\"properties\":{\"id\":{\"$ref\":\"common.json#/$defs/id\"}}}");
  struct oc_schema *s = oc_schema_compile(r, schema, "https://oacheck.test/chunk.json", 0, err, sizeof(err));
  ck_assert_msg(s != NULL, "%s", err);
  cJSON_Delete(schema);
  oc_schema_registry_free(r); /* the compiled schema stands alone */
  cJSON *inst = cJSON_Parse("{\"id\":\"\"}");
  struct oc_schema_result res;
  oc_schema_result_init(&res);
  ck_assert_int_eq(oc_schema_validate_cjson(s, inst, &res), 0);
  ck_assert_str_eq(res.errors[0].instance_path, "/id");
  ck_assert_str_eq(res.errors[0].schema_path, "/properties/id/$ref/minLength");
  oc_schema_result_free(&res);
  cJSON_Delete(inst);
  inst = cJSON_Parse("{\"id\":\"x\"}");
  ck_assert_int_eq(oc_schema_validate_cjson(s, inst, NULL), 1);
  cJSON_Delete(inst);
  oc_schema_free(s);

  /* compile_uri with a fragment; and the shipped meta-schema by URI */
  r = oc_schema_registry_new();
  ck_assert_int_eq(oc_schema_registry_add_text(r, "https://oacheck.test/a.json",
                                               "{\"$defs\":{\"n\":{\"type\":\"null\"}}}", 31, err, sizeof(err)), 0);
  s = oc_schema_compile_uri(r, "https://oacheck.test/a.json#/$defs/n", 0, err, sizeof(err));
  ck_assert_msg(s != NULL, "%s", err);
  inst = cJSON_CreateNull();
  ck_assert_int_eq(oc_schema_validate_cjson(s, inst, NULL), 1);
  cJSON_Delete(inst);
  oc_schema_free(s);
  s = oc_schema_compile_uri(r, "https://json-schema.org/draft/2020-12/schema", 0, err, sizeof(err));
  ck_assert_msg(s != NULL, "%s", err);
  inst = cJSON_Parse("{\"type\":\"string\",\"properties\":{\"a\":{\"minimum\":\"x\"}}}");
  oc_schema_result_init(&res);
  ck_assert_int_eq(oc_schema_validate_cjson(s, inst, &res), 0);
  ck_assert_str_eq(res.errors[0].instance_path, "/properties/a/minimum");
  oc_schema_result_free(&res);
  cJSON_Delete(inst);
  oc_schema_free(s);
  /* the shipped schemas, by their URIs */
  ck_assert_msg(oc_schema_registry_add_shipped(r, err, sizeof(err)) == 0, "%s", err);
  s = oc_schema_compile_uri(r, OC_SCHEMA_SHIPPED_BASE "chat.completion.chunk.json", 0, err, sizeof(err));
  ck_assert_msg(s != NULL, "%s", err);
  inst = cJSON_Parse("{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
                     "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":null}]}");
  ck_assert_int_eq(oc_schema_validate_cjson(s, inst, NULL), 1);
  cJSON_Delete(inst);
  oc_schema_free(s);
  s = oc_schema_compile_uri(r, "https://oacheck.test/missing.json", 0, err, sizeof(err));
  ck_assert_ptr_null(s);
  ck_assert_ptr_nonnull(strstr(err, "unresolved reference"));
  /* a syntax error names its position */
  ck_assert_int_ne(oc_schema_registry_add_text(r, "https://oacheck.test/b.json", "{\n \"a\": }", 9, err,
                                               sizeof(err)), 0);
  ck_assert_ptr_nonnull(strstr(err, "https://oacheck.test/b.json:2:"));
  oc_schema_registry_free(r);
}
END_TEST

START_TEST(regex_is_ecma_flavoured)
{
  char err[256];
  struct {
    const char *re, *subject;
    int match;
  } cases[] = {
    { "^\\d+$", "123", 1 },
    { "^\\d+$", "\xd9\xa3", 0 },         /* Arabic-Indic digit: \d is ASCII in ECMA */
    { "^\\s$", "\xc2\xa0", 1 },          /* NO-BREAK SPACE is \s in ECMA */
    { "^\\S$", "\xc2\xa0", 0 },
    { "^\\w$", "\xc3\xa9", 0 },
    { "^a$", "a\n", 0 },                 /* $ does not match before a final newline */
    { "^.$", "\n", 0 },
    { "^.$", "\xf0\x9f\x98\x80", 1 },   /* one code point */
    { "^\\u00e9$", "\xc3\xa9", 1 },
    { "^\\ud83d\\ude00$", "\xf0\x9f\x98\x80", 1 },
    { "^\\cJ$", "\n", 1 },
    { "[^]", "x", 1 },
    { "(?<y>a)\\k<y>", "aa", 1 },
    { "^\\p{Lu}", "\xc3\x89", 1 },
    { "^[\\s]$", "\xe3\x80\x80", 1 },
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(cases); i++) {
    struct oc_regex *re = oc_regex_compile(cases[i].re, strlen(cases[i].re), err, sizeof(err));
    ck_assert_msg(re != NULL, "%s: %s", cases[i].re, err);
    ck_assert_msg(oc_regex_match(re, cases[i].subject, strlen(cases[i].subject), NULL) == cases[i].match,
                  "/%s/ on case %zu", cases[i].re, i);
    oc_regex_free(re);
  }
  const char *invalid[] = { "\\a", "(?i)a", "(?P<n>a)", "(?#c)", "\\x4", "[", "\\u12" };
  for(size_t i = 0; i < OC_ARRAY_LEN(invalid); i++)
    ck_assert_msg(!oc_regex_valid(invalid[i], strlen(invalid[i])), "%s should be invalid", invalid[i]);
  /* a catastrophic pattern runs out of budget instead of hanging */
  struct oc_regex *re = oc_regex_compile("^(a+)+$", 7, err, sizeof(err));
  char subject[64];
  memset(subject, 'a', 40);
  subject[40] = 'b';
  struct oc_regex_scratch *sc = NULL;
  int r = oc_regex_match(re, subject, 41, &sc);
  ck_assert(r == 0 || r == -OC_ETOOBIG);
  oc_regex_scratch_free(sc);
  oc_regex_free(re);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("schema");
  TCase *tc = tcase_create("keywords");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, type_messages);
  tcase_add_test(tc, paths_through_properties_items_and_refs);
  tcase_add_test(tc, offsets_point_at_the_value);
  tcase_add_test(tc, every_failure_is_reported);
  tcase_add_test(tc, numbers);
  tcase_add_test(tc, strings_count_code_points);
  tcase_add_test(tc, enums_and_consts);
  tcase_add_test(tc, arrays);
  tcase_add_test(tc, objects);
  tcase_add_test(tc, misspelt_members_suggest_the_property);
  tcase_add_test(tc, combinators);
  tcase_add_test(tc, unevaluated_and_dynamic);
  tcase_add_test(tc, format_is_an_annotation_by_default);
  tcase_add_test(tc, draft7_rules);
  tcase_add_test(tc, malformed_schemas_are_compile_errors);
  tcase_add_test(tc, recursion_is_bounded);
  tcase_add_test(tc, combinators_are_bounded);
  tcase_add_test(tc, regex_budget_is_undecided);
  tcase_add_test(tc, cjson_entry_points_and_registry);
  tcase_add_test(tc, regex_is_ecma_flavoured);
  suite_add_tcase(s, tc);
  return oc_test_run(s);
}
