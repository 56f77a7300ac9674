/* check_suite.c — what a suite may reference: a ${NAME} that neither a
 * target nor the suite can define is a load error at its line and column
 * with the nearest known name; target variables a target lacks still
 * leave the case to be skipped when it is built; and the names suite.c
 * knows as target variables are the ones target.c sets. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "response.h"
#include "schema.h"
#include "suite.h"
#include "target.h"
#include "testutil.h"
#include "util.h"

static struct oc_schemas schemas;
static struct oc_schema *suite_schema;

static void setup(void)
{
  char err[700];
  ck_assert_msg(oc_schemas_load_registry(&schemas, err, sizeof(err)) == OC_OK, "%s", err);
  suite_schema = oc_schema_compile_uri(schemas.reg, OC_SCHEMA_SHIPPED_BASE "suite.schema.json", 0,
                                       err, sizeof(err));
  ck_assert_msg(suite_schema != NULL, "%s", err);
}

static void teardown(void)
{
  oc_schema_free(suite_schema);
  oc_schemas_free(&schemas);
}

/* A suite of one case whose chat message content is content (JSON text
 * of a string), with the suite's variables vars (JSON text or NULL). */
static int load(struct oc_suite_set *set, const char *vars, const char *content, struct oc_buf *err)
{
  char *text = oc_asprintf("{\"suite\": \"s\", \"description\": \"d\",%s%s%s\n"
                           "\"cases\": [ { \"name\": \"c\", \"description\": \"d\",\n"
                           "  \"request\": { \"method\": \"POST\", \"path\": \"/v1/chat/completions\",\n"
                           "    \"body\": { \"model\": \"${MODEL}\", \"messages\": [\n"
                           "      { \"role\": \"user\", \"content\": %s } ] } } } ] }\n",
                           vars ? " \"variables\": " : "", vars ? vars : "", vars ? "," : "", content);
  ck_assert_ptr_nonnull(text);
  oc_buf_init(err, 1u << 16);
  int rc = oc_suite_load_text(set, "t.json", text, strlen(text), suite_schema, err);
  free(text);
  return rc;
}

static void refused(const char *vars, const char *content, const char *want)
{
  struct oc_suite_set set = { NULL, 0 };
  struct oc_buf err;
  ck_assert_int_eq(load(&set, vars, content, &err), OC_EPARSE);
  ck_assert_msg(strstr(oc_buf_str(&err), want), "want '%s' in:\n%s", want, oc_buf_str(&err));
  ck_assert_uint_eq(set.count, 0);
  oc_buf_free(&err);
}

START_TEST(undefined_variables_are_load_errors)
{
  /* the content string starts at column 36 of line 5: the reference's own column */
  refused(NULL, "\"${MODL}\"", "t.json:5:37: undefined variable ${MODL}: did you mean ${MODEL}?\n");
  refused(NULL, "\"say ${MODL}\"", "t.json:5:41: undefined variable ${MODL}: did you mean ${MODEL}?");
  /* an escape before it: the string's column */
  refused(NULL, "\"\\n${MODL}\"", "t.json:5:36: undefined variable ${MODL}");
  refused(NULL, "\"${words:N_CTXHALF:hi}\"",
          "undefined variable N_CTXHALF in the COUNT of ${words:N_CTXHALF:…}: did you mean N_CTX_HALF?");
  /* the suite's own variables are known, and guessed */
  refused("{\"GREETING\": \"hi\"}", "\"${GRETING}\"", "did you mean ${GREETING}?");
  /* nothing close: the names that exist, no guess */
  refused(NULL, "\"${SOMETHING_ELSE}\"",
          "undefined variable ${SOMETHING_ELSE} (a target sets MODEL, N_CTX, N_CTX_HALF, "
          "CTX_WORDS_UNDER, CTX_WORDS_AT and CTX_WORDS_OVER; the suite's own go in its \"variables\")\n");
  refused("{\"N\": 3}", "\"${M}\"", "undefined variable ${M} (");
  /* every one is reported */
  struct oc_suite_set set = { NULL, 0 };
  struct oc_buf err;
  ck_assert_int_eq(load(&set, NULL, "\"${A1} ${B2}\"", &err), OC_EPARSE);
  ck_assert_ptr_nonnull(strstr(oc_buf_str(&err), "${A1}"));
  ck_assert_ptr_nonnull(strstr(oc_buf_str(&err), "${B2}"));
  oc_buf_free(&err);
}
END_TEST

START_TEST(known_variables_load)
{
  struct oc_suite_set set = { NULL, 0 };
  struct oc_buf err;
  ck_assert_msg(load(&set, "{\"GREETING\": \"hi\", \"COUNT\": 2}",
                     "\"${GREETING} ${N_CTX} ${env:NO_SUCH_VAR_ANYWHERE} ${words:3:a} "
                     "${words:COUNT:b} ${words:CTX_WORDS_OVER:c} $HOME $${N_CTX_HALF}\"",
                     &err) == OC_OK,
                "%s", oc_buf_str(&err));
  oc_buf_free(&err);
  /* a target variable the target lacks: the case is built no further,
   * OC_ENOTFOUND, which the runner skips as unsupported */
  cJSON *tv = cJSON_Parse("{\"MODEL\": \"m\"}");
  ck_assert_ptr_nonnull(tv);
  const struct oc_case *c = &set.items[0].cases[0];
  struct oc_vars vars = { tv, c->variables, 0 };
  struct oc_built_request r;
  char why[600];
  ck_assert_int_eq(oc_suite_build_request(c, &vars, &r, why, sizeof(why)), OC_ENOTFOUND);
  ck_assert_str_eq(why, "undefined variable ${N_CTX}");
  cJSON_Delete(tv);
  oc_suite_set_free(&set);
}
END_TEST

/* Tags: a word, or checklist:ROW (the client matrix's row, docs/clients.md),
 * which the schema refused before it allowed one colon. */
static int load_tags(const char *tags, struct oc_buf *err, struct oc_suite_set *set)
{
  char *text = oc_asprintf("{\"suite\": \"s\", \"description\": \"d\", \"cases\": [ { \"name\": \"c\", "
                           "\"description\": \"d\", \"tags\": %s, \"request\": { \"method\": \"GET\", "
                           "\"path\": \"/v1/models\" } } ] }",
                           tags);
  ck_assert_ptr_nonnull(text);
  oc_buf_init(err, 1u << 16);
  int rc = oc_suite_load_text(set, "t.json", text, strlen(text), suite_schema, err);
  free(text);
  return rc;
}

START_TEST(checklist_tags_load)
{
  struct oc_suite_set set = { NULL, 0 };
  struct oc_buf err;
  ck_assert_msg(load_tags("[\"smoke\", \"checklist:reasoning\"]", &err, &set) == OC_OK, "%s",
                oc_buf_str(&err));
  ck_assert_uint_eq(set.items[0].cases[0].ntags, 2);
  ck_assert_str_eq(set.items[0].cases[0].tags[1], "checklist:reasoning");
  oc_suite_set_free(&set);
  oc_buf_free(&err);
  static const char *const bad[] = { "[\"a:b:c\"]", "[\"checklist:\"]", "[\"Smoke\"]" };
  for(size_t i = 0; i < OC_ARRAY_LEN(bad); i++) {
    struct oc_suite_set none = { NULL, 0 };
    ck_assert_int_eq(load_tags(bad[i], &err, &none), OC_EPARSE);
    ck_assert_msg(strstr(oc_buf_str(&err), "/cases/0/tags/0"), "%s: %s", bad[i], oc_buf_str(&err));
    oc_buf_free(&err);
  }
}
END_TEST

/* The shipped recordings' target (a llama-server with /props, counting
 * tokens) gets every variable a target can have: each name target.c sets
 * must be one suite.c knows, or a suite using it would be refused. */
START_TEST(target_variables_are_the_ones_targets_set)
{
  struct oc_target t;
  char err[700];
  char *dir = oc_test_src("suites/recordings/llama-server");
  ck_assert_msg(oc_target_from_recordings(&t, NULL, dir, err, sizeof(err)) == OC_OK, "%s", err);
  free(dir);
  struct oc_identify_options io = { .timeout_ms = 10000 };
  ck_assert_int_eq(oc_target_identify(&t, &io), OC_OK);
  ck_assert(t.reachable);
  int n = 0;
  const cJSON *v;
  cJSON_ArrayForEach(v, t.vars)
  {
    ck_assert_msg(oc_suite_target_var(v->string), "target.c sets %s, which suite.c does not know",
                  v->string);
    n++;
  }
  ck_assert_int_eq(n, 6);
  ck_assert(!oc_suite_target_var("MODL"));
  oc_target_free(&t);
}
END_TEST

/* A Messages request carries the credentials as Anthropic's SDK sends
 * them: x-api-key from $ANTHROPIC_API_KEY (or the target's key_env), and
 * anthropic-version, each once, a case's own left as it is. */
START_TEST(messages_requests_carry_anthropic_credentials)
{
  struct oc_target t;
  char err[300];
  ck_assert_int_eq(oc_target_from_spec(&t, "http://127.0.0.1:9", err, sizeof(err)), OC_OK);
  setenv("ANTHROPIC_API_KEY", "sk-ant-oacheck-test", 1);
  struct oc_headers h;
  oc_headers_init(&h);
  ck_assert_int_eq(oc_target_messages_headers(&t, &h), OC_OK);
  ck_assert_str_eq(oc_headers_get(&h, "x-api-key"), "sk-ant-oacheck-test");
  ck_assert_str_eq(oc_headers_get(&h, "anthropic-version"), "2023-06-01");
  size_t n = h.count;
  ck_assert_int_eq(oc_target_messages_headers(&t, &h), OC_OK);
  ck_assert_uint_eq(h.count, n); /* nothing twice */
  oc_headers_free(&h);
  /* a case's own version and key stand */
  oc_headers_init(&h);
  oc_headers_add(&h, "anthropic-version", "2024-01-01");
  oc_headers_add(&h, "X-Api-Key", "sk-case");
  ck_assert_int_eq(oc_target_messages_headers(&t, &h), OC_OK);
  ck_assert_uint_eq(h.count, 2);
  ck_assert_str_eq(oc_headers_get(&h, "anthropic-version"), "2024-01-01");
  oc_headers_free(&h);
  /* without the variable: the version only */
  unsetenv("ANTHROPIC_API_KEY");
  oc_headers_init(&h);
  ck_assert_int_eq(oc_target_messages_headers(&t, &h), OC_OK);
  ck_assert_ptr_null(oc_headers_get(&h, "x-api-key"));
  ck_assert_uint_eq(h.count, 1);
  oc_headers_free(&h);
  oc_target_free(&t);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("suite");
  TCase *tc = tcase_create("variables");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, undefined_variables_are_load_errors);
  tcase_add_test(tc, known_variables_load);
  tcase_add_test(tc, checklist_tags_load);
  tcase_add_test(tc, target_variables_are_the_ones_targets_set);
  tcase_add_test(tc, messages_requests_carry_anthropic_credentials);
  suite_add_tcase(s, tc);
  return oc_test_run(s);
}
