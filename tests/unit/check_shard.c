/* check_shard.c — shards: K/N and --shard auto from each CI engine's
 * variables (bases, counts, every error), the hash (in range, spread,
 * few moves when N grows), balancing by recorded durations, and what a
 * merge of shards holds and misses. */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "shard.h"

/* ---- a fake environment ------------------------------------------------- */

static const char *const *fake_env;

static const char *env_lookup(const char *name)
{
  for(size_t i = 0; fake_env && fake_env[i]; i += 2)
    if(strcmp(fake_env[i], name) == 0)
      return fake_env[i + 1];
  return NULL;
}

/* Resolve --shard auto under env (NAME, VALUE, ..., NULL); returns the rc. */
static int from_env(const char *const *env, long total, struct oc_shard *s, char *err, size_t errlen)
{
  fake_env = env;
  oc_shard_init(s);
  err[0] = '\0';
  return oc_shard_from_env(s, env_lookup, total, err, errlen);
}

#define AUTO_OK(total, k_, n_, src, ...)                                                      \
  do {                                                                                        \
    static const char *const env_[] = { __VA_ARGS__, NULL };                                  \
    struct oc_shard s_;                                                                       \
    char err_[700];                                                                           \
    ck_assert_msg(from_env(env_, total, &s_, err_, sizeof(err_)) == OC_OK, "%s", err_);       \
    ck_assert_int_eq(s_.k, k_);                                                               \
    ck_assert_int_eq(s_.n, n_);                                                               \
    ck_assert_str_eq(s_.source, src);                                                         \
  } while(0)

#define AUTO_ERR(total, want, ...)                                                            \
  do {                                                                                        \
    static const char *const env_[] = { __VA_ARGS__, NULL };                                  \
    struct oc_shard s_;                                                                       \
    char err_[700];                                                                           \
    ck_assert_int_eq(from_env(env_, total, &s_, err_, sizeof(err_)), OC_EUSAGE);              \
    ck_assert_msg(strstr(err_, want) != NULL, "'%s' not in '%s'", want, err_);                \
  } while(0)

START_TEST(test_parse)
{
  struct oc_shard s;
  char err[300];
  oc_shard_init(&s);
  ck_assert_int_eq(oc_shard_parse(&s, "2/4", err, sizeof(err)), OC_OK);
  ck_assert_int_eq(s.k, 2);
  ck_assert_int_eq(s.n, 4);
  ck_assert_str_eq(s.source, "option");
  ck_assert_int_eq(oc_shard_parse(&s, "10000/10000", err, sizeof(err)), OC_OK);
  const char *bad[] = { "0/4", "5/4", "4", "/4", "2/", "a/b", "2/4x", "1/10001", "-1/4", "" };
  for(size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    err[0] = '\0';
    ck_assert_msg(oc_shard_parse(&s, bad[i], err, sizeof(err)) == OC_EUSAGE, "'%s' accepted", bad[i]);
    ck_assert_msg(strstr(err, bad[i]) != NULL, "error for '%s' does not quote it: %s", bad[i], err);
  }
}
END_TEST

START_TEST(test_auto_engines)
{
  /* oacheck's own pair, 1-based, as a GitHub Actions matrix passes it */
  AUTO_OK(0, 3, 4, "OACHECK_SHARD_INDEX", "OACHECK_SHARD_INDEX", "3", "OACHECK_SHARD_TOTAL", "4");
  /* GitLab parallel: 1-based */
  AUTO_OK(0, 1, 5, "CI_NODE_INDEX", "CI_NODE_INDEX", "1", "CI_NODE_TOTAL", "5");
  AUTO_OK(0, 5, 5, "CI_NODE_INDEX", "CI_NODE_INDEX", "5", "CI_NODE_TOTAL", "5");
  /* a GitLab job without parallel: has CI_NODE_TOTAL=1 and no index */
  AUTO_OK(0, 1, 1, "CI_NODE_TOTAL", "CI_NODE_TOTAL", "1");
  /* Buildkite: 0-based */
  AUTO_OK(0, 1, 3, "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB", "0",
          "BUILDKITE_PARALLEL_JOB_COUNT", "3");
  AUTO_OK(0, 3, 3, "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB", "2",
          "BUILDKITE_PARALLEL_JOB_COUNT", "3");
  /* Kubernetes Indexed Job: 0-based, the count given */
  AUTO_OK(8, 8, 8, "JOB_COMPLETION_INDEX", "JOB_COMPLETION_INDEX", "7");
  AUTO_OK(0, 1, 2, "JOB_COMPLETION_INDEX", "JOB_COMPLETION_INDEX", "0", "OACHECK_SHARD_TOTAL", "2");
  /* the explicit pair wins over an engine's */
  AUTO_OK(0, 2, 2, "OACHECK_SHARD_INDEX", "CI_NODE_INDEX", "1", "CI_NODE_TOTAL", "3",
          "OACHECK_SHARD_INDEX", "2", "OACHECK_SHARD_TOTAL", "2");
  /* --shard-total agreeing with the engine is fine */
  AUTO_OK(5, 2, 5, "CI_NODE_INDEX", "CI_NODE_INDEX", "2", "CI_NODE_TOTAL", "5");
}
END_TEST

START_TEST(test_auto_errors)
{
  AUTO_ERR(0, "no shard in the environment", "HOME", "/root");
  AUTO_ERR(0, "CI_NODE_INDEX=6 is outside 1..5", "CI_NODE_INDEX", "6", "CI_NODE_TOTAL", "5");
  AUTO_ERR(0, "CI_NODE_INDEX=0 is outside 1..5", "CI_NODE_INDEX", "0", "CI_NODE_TOTAL", "5");
  AUTO_ERR(0, "BUILDKITE_PARALLEL_JOB=3 is outside 0..2", "BUILDKITE_PARALLEL_JOB", "3",
           "BUILDKITE_PARALLEL_JOB_COUNT", "3");
  AUTO_ERR(0, "JOB_COMPLETION_INDEX is set but the number of shards is not",
           "JOB_COMPLETION_INDEX", "1");
  AUTO_ERR(4, "JOB_COMPLETION_INDEX=4 is outside 0..3", "JOB_COMPLETION_INDEX", "4");
  AUTO_ERR(0, "OACHECK_SHARD_INDEX is set but OACHECK_SHARD_TOTAL is not", "OACHECK_SHARD_INDEX", "1");
  AUTO_ERR(0, "CI_NODE_INDEX is 'x'", "CI_NODE_INDEX", "x", "CI_NODE_TOTAL", "2");
  AUTO_ERR(0, "CI_NODE_TOTAL is '0'", "CI_NODE_INDEX", "1", "CI_NODE_TOTAL", "0");
  AUTO_ERR(3, "--shard-total 3 disagrees with CI_NODE_TOTAL=4", "CI_NODE_INDEX", "1", "CI_NODE_TOTAL", "4");
}
END_TEST

/* ---- the hash ----------------------------------------------------------- */

static char *name_of(int i)
{
  char *s = malloc(32);
  ck_assert_ptr_nonnull(s);
  snprintf(s, 32, "case-%04d", i);
  return s;
}

START_TEST(test_hash_spread_and_moves)
{
  enum { N = 4000 };
  int count[4] = { 0 }, moved = 0;
  for(int i = 0; i < N; i++) {
    char *c = name_of(i);
    int s4 = oc_shard_hash("suite", c, 4);
    ck_assert_int_ge(s4, 0);
    ck_assert_int_lt(s4, 4);
    ck_assert_int_eq(oc_shard_hash("suite", c, 4), s4); /* a function of the name alone */
    count[s4]++;
    int s5 = oc_shard_hash("suite", c, 5);
    /* growing N: a case either stays or moves to the new shard */
    ck_assert_msg(s5 == s4 || s5 == 4, "%s moved from %d to %d", c, s4, s5);
    moved += s5 != s4;
    ck_assert_int_eq(oc_shard_hash("suite", c, 1), 0);
    free(c);
  }
  for(int k = 0; k < 4; k++)
    ck_assert_msg(count[k] > N / 4 * 9 / 10 && count[k] < N / 4 * 11 / 10, "shard %d has %d of %d", k,
                  count[k], N);
  /* about 1/5 move to the fifth shard */
  ck_assert_msg(moved > N / 5 * 8 / 10 && moved < N / 5 * 12 / 10, "%d of %d moved", moved, N);
  /* the suite is part of the key */
  int differ = 0;
  for(int i = 0; i < 100; i++) {
    char *c = name_of(i);
    differ += oc_shard_hash("a", c, 4) != oc_shard_hash("b", c, 4);
    free(c);
  }
  ck_assert_int_gt(differ, 40);
}
END_TEST

/* ---- durations ---------------------------------------------------------- */

/* A results document with n cases of suite "s", case i lasting ms(i),
 * twice over when two_targets (the durations add up). */
static cJSON *durations_doc(int n, double (*ms)(int), int two_targets)
{
  cJSON *doc = cJSON_CreateObject(), *rs = cJSON_AddArrayToObject(doc, "results");
  for(int t = 0; t < (two_targets ? 2 : 1); t++)
    for(int i = 0; i < n; i++) {
      cJSON *r = cJSON_CreateObject();
      char *c = name_of(i);
      cJSON_AddStringToObject(r, "target", t ? "b" : "a");
      cJSON_AddStringToObject(r, "suite", "s");
      cJSON_AddStringToObject(r, "case", c);
      cJSON_AddNumberToObject(r, "duration_ms", ms(i));
      cJSON_AddItemToArray(rs, r);
      free(c);
    }
  /* a result without a duration is ignored */
  cJSON *r = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "suite", "s");
  cJSON_AddStringToObject(r, "case", "no-duration");
  cJSON_AddNullToObject(r, "duration_ms");
  cJSON_AddItemToArray(rs, r);
  return doc;
}

/* a few long cases and many short ones: hashing alone cannot balance it */
static double skewed(int i)
{
  return i % 50 == 0 ? 5000 + i : 1 + (i * 37) % 90;
}

static double equal(int i)
{
  (void)i;
  return 10;
}

START_TEST(test_balance)
{
  cJSON *doc = durations_doc(400, skewed, 1);
  struct oc_shard s;
  char err[300];
  oc_shard_init(&s);
  s.k = 1;
  s.n = 4;
  ck_assert_int_eq(oc_shard_balance(&s, doc, err, sizeof(err)), OC_OK);
  ck_assert_int_eq(s.method, OC_SHARD_DURATIONS);
  ck_assert_uint_eq(s.ntable, 400);
  ck_assert_uint_eq(strlen(s.digest), 16);
  double load[4] = { 0 };
  for(int i = 0; i < 400; i++) {
    char *c = name_of(i);
    load[oc_shard_of(&s, "s", c)] += skewed(i);
    free(c);
  }
  double lo = load[0], hi = load[0];
  for(int k = 1; k < 4; k++) {
    lo = fmin(lo, load[k]);
    hi = fmax(hi, load[k]);
  }
  ck_assert_msg((hi - lo) / hi < 0.05, "loads %.0f %.0f %.0f %.0f", load[0], load[1], load[2], load[3]);
  /* a case the table does not know goes by hash */
  ck_assert_int_eq(oc_shard_of(&s, "s", "case-9999"), oc_shard_hash("s", "case-9999", 4));
  ck_assert_int_eq(oc_shard_of(&s, "s", "no-duration"), oc_shard_hash("s", "no-duration", 4));
  /* the same table gives the same plan and digest, in any input order */
  cJSON *rs = oc_json_arr(doc, "results");
  cJSON *rev = cJSON_CreateArray();
  for(int i = cJSON_GetArraySize(rs) - 1; i >= 0; i--)
    cJSON_AddItemToArray(rev, cJSON_Duplicate(cJSON_GetArrayItem(rs, i), 1));
  cJSON_ReplaceItemInObject(doc, "results", rev);
  struct oc_shard s2;
  oc_shard_init(&s2);
  s2.n = 4;
  ck_assert_int_eq(oc_shard_balance(&s2, doc, err, sizeof(err)), OC_OK);
  ck_assert_str_eq(s.digest, s2.digest);
  for(int i = 0; i < 400; i++) {
    char *c = name_of(i);
    ck_assert_int_eq(oc_shard_of(&s, "s", c), oc_shard_of(&s2, "s", c));
    free(c);
  }
  oc_shard_free(&s2);
  /* another table, another digest */
  cJSON *other = durations_doc(400, equal, 1);
  oc_shard_init(&s2);
  s2.n = 4;
  ck_assert_int_eq(oc_shard_balance(&s2, other, err, sizeof(err)), OC_OK);
  ck_assert_str_ne(s.digest, s2.digest);
  oc_shard_free(&s2);
  cJSON_Delete(other);
  /* the JSON says how */
  cJSON *j = oc_shard_json(&s);
  ck_assert_str_eq(oc_json_str(j, "method"), "durations");
  ck_assert_double_eq(oc_json_num(oc_json_obj(j, "durations"), "cases", 0), 400);
  ck_assert_str_eq(oc_json_str(oc_json_obj(j, "durations"), "digest"), s.digest);
  cJSON_Delete(j);
  oc_shard_free(&s);
  cJSON_Delete(doc);
}
END_TEST

START_TEST(test_balance_targets_add_up)
{
  cJSON *doc = durations_doc(8, equal, 0);
  /* case-0000 also ran on a second target: it weighs 20 */
  cJSON *r = cJSON_Duplicate(cJSON_GetArrayItem(oc_json_arr(doc, "results"), 0), 1);
  cJSON_ReplaceItemInObject(r, "target", cJSON_CreateString("b"));
  cJSON_AddItemToArray(oc_json_arr(doc, "results"), r);
  struct oc_shard s;
  char err[300];
  oc_shard_init(&s);
  s.n = 2;
  ck_assert_int_eq(oc_shard_balance(&s, doc, err, sizeof(err)), OC_OK);
  ck_assert_uint_eq(s.ntable, 8);
  /* longest first: case-0000 (20) alone in shard 0 until the other fills up */
  int in0 = 0;
  for(size_t i = 0; i < s.ntable; i++) {
    if(strcmp(s.table[i].key, "s\x1f" "case-0000") == 0) {
      ck_assert_double_eq(s.table[i].ms, 20);
      ck_assert_int_eq(s.table[i].shard, 0);
    }
    in0 += s.table[i].shard == 0;
  }
  ck_assert_int_eq(in0, 4); /* 20+10+10+10 = 50 against 4 x 10 */
  oc_shard_free(&s);
  cJSON_Delete(doc);
  cJSON *empty = cJSON_Parse("{\"results\": [{\"suite\": \"s\", \"case\": \"c\", \"duration_ms\": null}]}");
  oc_shard_init(&s);
  s.n = 2;
  ck_assert_int_eq(oc_shard_balance(&s, empty, err, sizeof(err)), OC_EUSAGE);
  ck_assert_ptr_nonnull(strstr(err, "no case with a duration"));
  cJSON_Delete(empty);
}
END_TEST

/* ---- merged shards ------------------------------------------------------ */

static cJSON *shard_doc(const char *target, int k, int n, const char *method)
{
  char text[600];
  if(k)
    snprintf(text, sizeof(text),
             "{\"oacheck\": {\"shard\": {\"index\": %d, \"count\": %d%s%s%s}},"
             " \"targets\": [{\"name\": \"%s\"}], \"results\": []}",
             k, n, method ? ", \"method\": \"" : "", method ? method : "", method ? "\"" : "", target);
  else
    snprintf(text, sizeof(text), "{\"oacheck\": {}, \"targets\": [{\"name\": \"%s\"}], \"results\": []}",
             target);
  cJSON *j = cJSON_Parse(text);
  ck_assert_ptr_nonnull(j);
  return j;
}

static const cJSON *target_entry(const cJSON *shards, const char *name)
{
  const cJSON *t;
  cJSON_ArrayForEach(t, oc_json_arr(shards, "targets"))
    if(oc_streq(oc_json_str(t, "target"), name))
      return t;
  return NULL;
}

static char *ints(const cJSON *arr)
{
  struct oc_buf b;
  oc_buf_init(&b, 4096);
  const cJSON *v;
  oc_buf_adds(&b, "");
  cJSON_ArrayForEach(v, arr)
    oc_buf_printf(&b, "%s%.0f", b.len ? "," : "", v->valuedouble);
  return oc_buf_take(&b, NULL);
}

#define KS_EQ(arr, want)                                                                      \
  do {                                                                                        \
    char *got_ = ints(arr);                                                                   \
    ck_assert_str_eq(got_, want);                                                             \
    free(got_);                                                                               \
  } while(0)

START_TEST(test_shards_merge)
{
  /* target a: shards 1, 2 and 4 of 4; target b: a whole run */
  cJSON *docs[4] = { shard_doc("a", 4, 4, "hash"), shard_doc("a", 1, 4, "hash"),
                     shard_doc("a", 2, 4, "hash"), shard_doc("b", 0, 0, NULL) };
  int nomem = 0;
  cJSON *m = oc_shards_merge((const cJSON *const *)docs, 4, &nomem);
  ck_assert_ptr_nonnull(m);
  ck_assert_int_eq(nomem, 0);
  ck_assert_double_eq(oc_json_num(m, "count", 0), 4);
  ck_assert_str_eq(oc_json_str(m, "method"), "hash");
  ck_assert(cJSON_IsTrue(oc_json_get(m, "consistent")));
  KS_EQ(oc_json_arr(target_entry(m, "a"), "held"), "1,2,4");
  KS_EQ(oc_json_arr(target_entry(m, "a"), "missing"), "3");
  KS_EQ(oc_json_arr(target_entry(m, "b"), "missing"), "");
  /* the merged document says so, one line per missing shard */
  cJSON *doc = cJSON_CreateObject();
  cJSON_AddItemToObject(cJSON_AddObjectToObject(doc, "oacheck"), "shards", m);
  struct oc_buf t;
  oc_buf_init(&t, 4096);
  ck_assert_int_eq(oc_shards_problems(doc, &t), 1);
  ck_assert_str_eq(oc_buf_str(&t), "shard 3 of 4 is missing for target a: its cases did not run\n");
  oc_buf_free(&t);
  /* a merge of that merge and the missing shard is complete */
  cJSON *third = shard_doc("a", 3, 4, "hash");
  const cJSON *again[2] = { doc, third };
  cJSON *m2 = oc_shards_merge(again, 2, &nomem);
  KS_EQ(oc_json_arr(target_entry(m2, "a"), "held"), "1,2,3,4");
  KS_EQ(oc_json_arr(target_entry(m2, "a"), "missing"), "");
  KS_EQ(oc_json_arr(target_entry(m2, "b"), "held"), "1,2,3,4");
  cJSON *doc2 = cJSON_CreateObject();
  cJSON_AddItemToObject(cJSON_AddObjectToObject(doc2, "oacheck"), "shards", m2);
  ck_assert_int_eq(oc_shards_problems(doc2, NULL), 0);
  cJSON_Delete(doc2);
  cJSON_Delete(third);
  cJSON_Delete(doc);
  for(int i = 0; i < 4; i++)
    cJSON_Delete(docs[i]);
}
END_TEST

START_TEST(test_shards_inconsistent)
{
  int nomem = 0;
  /* no shard at all: nothing to say */
  cJSON *whole = shard_doc("a", 0, 0, NULL);
  const cJSON *one[1] = { whole };
  ck_assert_ptr_null(oc_shards_merge(one, 1, &nomem));
  ck_assert_int_eq(nomem, 0);
  /* different counts, or a hash shard with a durations one */
  const char *pairs[][2] = { { "hash", "hash" }, { "hash", "durations" }, { NULL, "hash" } };
  int counts[][2] = { { 2, 3 }, { 2, 2 }, { 2, 2 } };
  for(int i = 0; i < 3; i++) {
    cJSON *a = shard_doc("a", 1, counts[i][0], pairs[i][0]);
    cJSON *b = shard_doc("a", 2, counts[i][1], pairs[i][1]);
    const cJSON *ab[2] = { a, b };
    cJSON *m = oc_shards_merge(ab, 2, &nomem);
    ck_assert_ptr_nonnull(m);
    ck_assert_msg(cJSON_IsFalse(oc_json_get(m, "consistent")), "pair %d taken as consistent", i);
    ck_assert_ptr_nonnull(strstr(oc_json_str(m, "problem"), "split differently"));
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddItemToObject(cJSON_AddObjectToObject(doc, "oacheck"), "shards", m);
    struct oc_buf t;
    oc_buf_init(&t, 4096);
    ck_assert_int_ge(oc_shards_problems(doc, &t), 1);
    ck_assert_ptr_nonnull(strstr(oc_buf_str(&t), "do not fit together"));
    oc_buf_free(&t);
    cJSON_Delete(doc);
    cJSON_Delete(a);
    cJSON_Delete(b);
  }
  /* results from before shards had a method were split by position */
  cJSON *old = shard_doc("a", 1, 2, NULL);
  const cJSON *o1[1] = { old };
  cJSON *m = oc_shards_merge(o1, 1, &nomem);
  ck_assert_str_eq(oc_json_str(m, "method"), "position");
  cJSON_Delete(m);
  cJSON_Delete(old);
  cJSON_Delete(whole);
}
END_TEST

static Suite *shard_suite(void)
{
  Suite *s = suite_create("shard");
  TCase *tc = tcase_create("shard");
  tcase_add_test(tc, test_parse);
  tcase_add_test(tc, test_auto_engines);
  tcase_add_test(tc, test_auto_errors);
  tcase_add_test(tc, test_hash_spread_and_moves);
  tcase_add_test(tc, test_balance);
  tcase_add_test(tc, test_balance_targets_add_up);
  tcase_add_test(tc, test_shards_merge);
  tcase_add_test(tc, test_shards_inconsistent);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(shard_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
