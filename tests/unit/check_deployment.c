/* check_deployment.c — a deployment's facts and diagnoses (deployment.c):
 * what /props, /slots and /metrics of the shipped recordings say; that a
 * hostile /props yields "unknown"; and, over whole replays of real
 * llama-server recordings, which findings get which diagnosis:
 *
 * - tests/data/recordings/llama-server-concurrency (four in flight on two
 *   slots sharing 512 tokens): every finding that quotes "Context size has
 *   been exceeded." carries shared-context and its fix (the recordings'
 *   README says why they failed);
 * - suites/recordings/llama-server (the same server, one at a time): no
 *   finding carries any diagnosis: its failures are the server's code and
 *   the tiny model, which no flag changes;
 * - tests/data/recordings/llama-server-split (no --kv-unified: 256 tokens
 *   per slot) and llama-server-nojinja: per-slot-context and jinja-off on
 *   exactly the cases their READMEs name.
 *
 * The other diagnoses and the wait time are checked on results written by
 * hand. */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "deployment.h"
#include "json.h"
#include "overload.h"
#include "response.h"
#include "rules.h"
#include "runner.h"
#include "schema.h"
#include "suite.h"
#include "target.h"
#include "testutil.h"
#include "util.h"

/* ---- a whole replay ------------------------------------------------------------------- */

struct replay {
  struct oc_schemas sch;
  struct oc_schema *suite_schema;
  struct oc_suite_set suites;
  struct oc_target t;
  struct oc_run_options opts;
  struct oc_run run;
  cJSON **results;          /* read back from the run's spool, by plan index */
};

/* The suites the tiny-random recordings (every directory but the shipped
 * one) were made with: three of the shipped ones sent other requests then
 * (tests/data/suites/tiny-random/README.md). */
static char *suite_for(const char *shipped, int tiny_random)
{
  static const char *const changed[] = { "tool-call.json", "json-schema.json", "context-overflow.json" };
  const char *base = strrchr(shipped, '/') ? strrchr(shipped, '/') + 1 : shipped;
  for(size_t i = 0; tiny_random && i < OC_ARRAY_LEN(changed); i++)
    if(strcmp(base, changed[i]) == 0) {
      char *rel = oc_asprintf("tests/data/suites/tiny-random/%s", base);
      char *p = oc_test_src(rel);
      free(rel);
      return p;
    }
  return oc_strdup(shipped);
}

static void replay_run(struct replay *f, const char *rel)
{
  int tiny_random = strcmp(rel, "suites/recordings/llama-server") != 0;
  char err[700];
  memset(f, 0, sizeof(*f));
  ck_assert_msg(oc_schemas_load(&f->sch, err, sizeof(err)) == OC_OK, "%s", err);
  char *uri = oc_asprintf("%ssuite.schema.json", OC_SCHEMA_SHIPPED_BASE);
  f->suite_schema = oc_schema_compile_uri(f->sch.reg, uri, 0, err, sizeof(err));
  free(uri);
  ck_assert_msg(f->suite_schema != NULL, "%s", err);
  char **paths = NULL;
  size_t n = 0;
  ck_assert_int_eq(oc_suite_shipped(&paths, &n), OC_OK);
  struct oc_buf errs;
  oc_buf_init(&errs, 1u << 20);
  for(size_t i = 0; i < n; i++) {
    char *p = suite_for(paths[i], tiny_random);
    ck_assert_msg(oc_suite_load(&f->suites, p, f->suite_schema, &errs) == OC_OK, "%s",
                  oc_buf_str(&errs));
    free(p);
    free(paths[i]);
  }
  free(paths);
  oc_buf_free(&errs);
  char *dir = oc_test_src(rel);
  ck_assert_msg(oc_target_from_recordings(&f->t, NULL, dir, err, sizeof(err)) == OC_OK, "%s", err);
  free(dir);
  struct oc_identify_options io = { .timeout_ms = 10000 };
  ck_assert_int_eq(oc_target_identify(&f->t, &io), OC_OK);
  ck_assert(f->t.reachable);
  oc_run_options_init(&f->opts);
  f->run.opts = &f->opts;
  f->run.targets = &f->t;
  f->run.ntargets = 1;
  f->run.suites = &f->suites;
  f->run.schemas = &f->sch;
  ck_assert_int_eq(oc_run_plan(&f->run), OC_OK);
  ck_assert_msg(oc_run_execute(&f->run, err, sizeof(err)) == OC_OK, "%s", err);
  f->results = calloc(f->run.nitems + 1, sizeof(*f->results));
  ck_assert_ptr_nonnull(f->results);
  for(size_t i = 0; i < f->run.nitems; i++)
    f->results[i] = oc_run_result(&f->run, i);
}

static void replay_free(struct replay *f)
{
  for(size_t i = 0; f->results && i < f->run.nitems; i++)
    cJSON_Delete(f->results[i]);
  free(f->results);
  oc_run_free(&f->run);
  oc_target_free(&f->t);
  oc_suite_set_free(&f->suites);
  oc_schema_free(f->suite_schema);
  oc_schemas_free(&f->sch);
}

static const cJSON *result_of(const struct replay *f, const char *suite, const char *kase)
{
  for(size_t i = 0; i < f->run.nitems; i++)
    if(oc_streq(oc_json_str(f->results[i], "suite"), suite) &&
       oc_streq(oc_json_str(f->results[i], "case"), kase))
      return f->results[i];
  ck_abort_msg("%s/%s is not in the plan", suite, kase);
  return NULL;
}

/* The diagnosis id every error finding of a result carries, "" when none
 * does; "mixed" when they differ. */
static const char *diag_of(const cJSON *res)
{
  const char *id = NULL;
  int errors = 0;
  const cJSON *f;
  cJSON_ArrayForEach(f, oc_json_arr(res, "findings"))
  {
    if(!oc_streq(oc_json_str(f, "severity"), "error"))
      continue;
    errors++;
    const char *d = oc_json_str(oc_json_obj(f, "diagnosis"), "id");
    if(!d)
      return id ? "mixed" : "";
    if(id && strcmp(id, d) != 0)
      return "mixed";
    id = d;
  }
  return errors && id ? id : "";
}

/* ---- facts ---------------------------------------------------------------------------- */

START_TEST(facts_of_the_shipped_recordings)
{
  struct replay f;
  memset(&f, 0, sizeof(f));
  char err[700];
  char *dir = oc_test_src("suites/recordings/llama-server");
  ck_assert_msg(oc_target_from_recordings(&f.t, NULL, dir, err, sizeof(err)) == OC_OK, "%s", err);
  free(dir);
  struct oc_identify_options io = { .timeout_ms = 10000 };
  ck_assert_int_eq(oc_target_identify(&f.t, &io), OC_OK);
  const struct oc_deployment *d = &f.t.deployment;
  /* identify-props-*: -c 8192 -np 1 --metrics --slots --props, a slot
   * capped at the model's trained 4096 tokens (the README) */
  ck_assert(d->llama);
  ck_assert_str_eq(d->build, "b10587-3f545becc");
  ck_assert_int_eq(d->n_ctx, 4096);
  ck_assert_int_eq(d->total_slots, 1);
  ck_assert_int_eq(oc_deployment_slots(d), 1);
  ck_assert_int_eq(d->endpoint_slots, 1);
  ck_assert_int_eq(d->endpoint_metrics, 1);
  ck_assert_int_eq(d->tool_calls, 1);
  ck_assert(d->slots_known);
  ck_assert_uint_eq(d->nslots, 1);
  ck_assert_int_eq(d->slots[0].n_ctx, 4096);
  cJSON *j = oc_deployment_json(d);
  ck_assert_ptr_nonnull(j);
  char *text = cJSON_PrintUnformatted(oc_json_get(j, "flags"));
  ck_assert_str_eq(text, "[\"-np 1\",\"--metrics\",\"--props\"]");
  free(text);
  cJSON_Delete(j);
  /* every case of every shipped suite, the reasoning suite's among them */
  cJSON *rec = oc_recorded_json(&f.t.store);
  ck_assert_int_eq((int)oc_json_num(rec, "cases", 0), 69);
  ck_assert_int_eq((int)oc_json_num(rec, "timed", 0), 69);
  cJSON_Delete(rec);
  oc_target_free(&f.t);
}
END_TEST

START_TEST(facts_of_the_tiny_random_recordings)
{
  struct replay f;
  memset(&f, 0, sizeof(f));
  char err[700];
  char *dir = oc_test_src("tests/data/recordings/llama-server-tiny-random");
  ck_assert_msg(oc_target_from_recordings(&f.t, NULL, dir, err, sizeof(err)) == OC_OK, "%s", err);
  free(dir);
  struct oc_identify_options io = { .timeout_ms = 10000 };
  ck_assert_int_eq(oc_target_identify(&f.t, &io), OC_OK);
  const struct oc_deployment *d = &f.t.deployment;
  /* identify-props-*: -c 512 --kv-unified -np 2 --metrics --slots --props */
  ck_assert(d->llama);
  ck_assert_str_eq(d->build, "b10587-3f545becc");
  ck_assert_int_eq(d->n_ctx, 512);
  ck_assert_int_eq(d->total_slots, 2);
  ck_assert_int_eq(oc_deployment_slots(d), 2);
  ck_assert_int_eq(d->endpoint_slots, 1);
  ck_assert_int_eq(d->endpoint_props, 1);
  ck_assert_int_eq(d->endpoint_metrics, 1);
  ck_assert_int_eq(d->tool_calls, 1);
  ck_assert_int_eq(d->parallel_tool_calls, 1);
  /* /slots and /metrics come from the llama-server suite's own recordings */
  ck_assert(d->slots_known);
  ck_assert_uint_eq(d->nslots, 2);
  ck_assert_int_eq(d->slots[0].n_ctx, 512);
  ck_assert_int_eq(d->slots[1].n_ctx, 512);
  ck_assert(d->metrics_known);
  ck_assert(d->n_tokens_max > 0);
  cJSON *j = oc_deployment_json(d);
  ck_assert_ptr_nonnull(j);
  char *text = cJSON_PrintUnformatted(oc_json_get(j, "flags"));
  ck_assert_str_eq(text, "[\"-np 2\",\"--metrics\",\"--props\"]");
  free(text);
  /* the one thing /props cannot tell: unified or split */
  ck_assert_ptr_nonnull(strstr(oc_json_str(j, "context"), "-c 512 with --kv-unified"));
  ck_assert_ptr_nonnull(strstr(oc_json_str(j, "context"), "-c 1024 split"));
  struct oc_buf b;
  oc_buf_init(&b, 4096);
  ck_assert_int_eq(oc_deployment_text(j, &b), OC_OK);
  ck_assert_msg(strstr(oc_buf_str(&b), "llama-server b10587-3f545becc: 2 slots × 512 tokens each") != NULL,
                "%s", oc_buf_str(&b));
  oc_buf_free(&b);
  cJSON_Delete(j);
  /* the recordings' provenance */
  cJSON *rec = oc_recorded_json(&f.t.store);
  ck_assert_int_eq((int)oc_json_num(rec, "cases", 0), 53);
  ck_assert_int_eq((int)oc_json_num(rec, "timed", 0), 53);
  ck_assert(oc_json_num(rec, "identification", 0) > 0);
  cJSON_Delete(rec);
  oc_target_free(&f.t);
}
END_TEST

START_TEST(hostile_props_are_unknown)
{
  struct oc_deployment d;
  oc_deployment_init(&d);
  static const char hostile[] = "{\"build_info\":\"b1\",\"total_slots\":-3,"
                                 "\"default_generation_settings\":{\"n_ctx\":\"512\"},\"n_ctx\":1e12,"
                                 "\"endpoint_metrics\":\"yes\",\"chat_template_caps\":[true]}";
  cJSON *p = oc_json_parse(hostile, strlen(hostile), NULL);
  ck_assert_ptr_nonnull(p);
  oc_deployment_from_props(&d, p);
  ck_assert(d.llama);
  ck_assert_int_eq(d.n_ctx, -1);
  ck_assert_int_eq(d.total_slots, -1);
  ck_assert_int_eq(d.endpoint_metrics, -1);
  ck_assert_int_eq(d.tool_calls, -1);
  ck_assert_int_eq(oc_deployment_slots(&d), 0);
  cJSON_Delete(p);
  oc_deployment_free(&d);
  /* not a llama-server: nothing is known, nothing is shown */
  p = oc_json_parse("{\"object\":\"list\"}", 17, NULL);
  oc_deployment_from_props(&d, p);
  ck_assert(!d.llama);
  ck_assert_ptr_null(oc_deployment_json(&d));
  cJSON_Delete(p);
  oc_deployment_free(&d);
}
END_TEST

/* ---- diagnoses over real recordings ------------------------------------------------- */

START_TEST(shared_context_on_the_concurrency_recordings)
{
  struct replay f;
  replay_run(&f, "tests/data/recordings/llama-server-concurrency");
  size_t quoting = 0, diagnosed_cases = 0;
  for(size_t i = 0; i < f.run.nitems; i++) {
    const cJSON *res = f.results[i];
    const char *text = oc_json_str(oc_json_obj(oc_json_obj(res, "response"), "body"), "text");
    int exhausted = text && strstr(text, "Context size has been exceeded.");
    int says = 0; /* a finding of this case quotes the server, or is the under-limit probe's */
    const cJSON *fd;
    cJSON_ArrayForEach(fd, oc_json_arr(res, "findings"))
    {
      const char *msg = oc_json_str(fd, "message");
      const cJSON *dg = oc_json_obj(fd, "diagnosis");
      if(oc_streq(oc_json_str(fd, "rule"), "CTX-UNDER-LIMIT"))
        says = 1;
      if(msg && strstr(msg, "Context size has been exceeded")) {
        quoting++;
        says = 1;
        ck_assert_msg(dg != NULL, "%s/%s: %s has no diagnosis", oc_json_str(res, "suite"),
                      oc_json_str(res, "case"), oc_json_str(fd, "rule"));
      }
      if(dg) {
        ck_assert_str_eq(oc_json_str(dg, "id"), "shared-context");
        ck_assert_str_eq(oc_json_str(dg, "fix"), oc_diags[OC_DIAG_SHARED_CONTEXT].fix);
        ck_assert_ptr_nonnull(strstr(oc_json_str(dg, "cause"), "the 2 slots"));
        ck_assert_ptr_nonnull(strstr(oc_json_str(dg, "cause"), "512-token KV cache"));
        ck_assert_msg(exhausted, "%s/%s diagnosed without the server saying so",
                      oc_json_str(res, "suite"), oc_json_str(res, "case"));
      }
    }
    /* a case that ran out fails, and every error says why */
    if(exhausted) {
      ck_assert_str_eq(diag_of(res), "shared-context");
      ck_assert_msg(says, "%s/%s ran out of context and no finding says so", oc_json_str(res, "suite"),
                    oc_json_str(res, "case"));
      diagnosed_cases++;
    }
  }
  /* the README: 16 of 53 fail, the extra ones by the shared context (5
   * tool-call cases and the under-limit probes); which ones depends on
   * timing, so only a floor is asserted */
  ck_assert_uint_ge(diagnosed_cases, 5);
  ck_assert_uint_ge(quoting, 1);
  replay_free(&f);
}
END_TEST

START_TEST(no_diagnosis_on_the_live_recordings)
{
  /* the shipped recordings (their README): 4 fail, the server's own
   * deviations (a 500 for invalid JSON and for reasoning_content null, an
   * unknown role and model accepted), which no flag explains; the n=2
   * refusal of the one slot is a skip ("unsupported"), not a failure */
  struct replay f;
  replay_run(&f, "suites/recordings/llama-server");
  size_t failed = 0;
  for(size_t i = 0; i < f.run.nitems; i++) {
    const cJSON *res = f.results[i];
    failed += oc_streq(oc_json_str(res, "status"), "fail");
    ck_assert_msg(oc_result_diagnosis(res) == NULL, "%s/%s: diagnosed %s", oc_json_str(res, "suite"),
                  oc_json_str(res, "case"), oc_json_str(oc_result_diagnosis(res), "id"));
  }
  ck_assert_uint_eq(failed, 4);
  ck_assert_str_eq(oc_json_str(result_of(&f, "plain", "n-2"), "status"), "skip");
  replay_free(&f);
  /* the tiny-random recordings, with the suites they were made with */
  replay_run(&f, "tests/data/recordings/llama-server-tiny-random");
  failed = 0;
  for(size_t i = 0; i < f.run.nitems; i++) {
    const cJSON *res = f.results[i];
    failed += oc_streq(oc_json_str(res, "status"), "fail");
    ck_assert_msg(oc_result_diagnosis(res) == NULL, "%s/%s: diagnosed %s", oc_json_str(res, "suite"),
                  oc_json_str(res, "case"), oc_json_str(oc_result_diagnosis(res), "id"));
    ck_assert_ptr_null(oc_json_obj(res, "rerun"));
  }
  /* ../shared/recordings/llama-server-live/README.md: 11 fail; and
   * n-2-stream, whose first chunk (choice 1) openai-python's stream helper
   * raises IndexError on (a client break, docs/clients.md) */
  ck_assert_uint_eq(failed, 12);
  replay_free(&f);
}
END_TEST

START_TEST(per_slot_context_without_kv_unified)
{
  struct replay f;
  replay_run(&f, "tests/data/recordings/llama-server-split");
  /* the README: these four prompts (294-305 tokens) exceed 256 per slot */
  static const char *const refused[] = { "named", "named-stream", "parallel-stream",
                                         "tool-result-turn" };
  for(size_t i = 0; i < OC_ARRAY_LEN(refused); i++) {
    const cJSON *res = result_of(&f, "tool-call", refused[i]);
    ck_assert_str_eq(diag_of(res), "per-slot-context");
    const char *cause = oc_json_str(oc_result_diagnosis(res), "cause");
    ck_assert_msg(strstr(cause, "a slot's 256 tokens") && strstr(cause, "-c 512 split per slot"), "%s",
                  cause);
  }
  /* the others fail for the model, which no flag explains */
  ck_assert_str_eq(diag_of(result_of(&f, "tool-call", "required")), "");
  ck_assert_ptr_null(oc_result_diagnosis(result_of(&f, "tool-call", "auto")));
  replay_free(&f);
}
END_TEST

START_TEST(jinja_off)
{
  struct replay f;
  replay_run(&f, "tests/data/recordings/llama-server-nojinja");
  ck_assert_str_eq(diag_of(result_of(&f, "tool-call", "auto")), "jinja-off");
  ck_assert_str_eq(diag_of(result_of(&f, "tool-call", "auto-stream")), "jinja-off");
  ck_assert_ptr_nonnull(strstr(oc_json_str(oc_result_diagnosis(result_of(&f, "tool-call", "auto")), "fix"),
                               "--jinja"));
  replay_free(&f);
}
END_TEST

/* ---- diagnoses on results written by hand ------------------------------------------- */

static cJSON *result(const char *json)
{
  cJSON *r = oc_json_parse(json, strlen(json), NULL);
  ck_assert_msg(r != NULL, "bad test JSON: %s", json);
  return r;
}

static struct oc_deployment llama(long n_ctx, long slots, int tool_calls)
{
  struct oc_deployment d;
  oc_deployment_init(&d);
  d.llama = 1;
  d.n_ctx = n_ctx;
  d.total_slots = slots;
  d.tools = d.tool_calls = tool_calls;
  return d;
}

#define OVERFLOW_400(p, c)                                                                        \
  "{\"status\":\"fail\",\"request\":{\"body\":{\"json\":{\"messages\":[],\"max_tokens\":8}}},"    \
  "\"response\":{\"status\":400,\"body\":{\"text\":\"{\\\"error\\\":{\\\"code\\\":400,"           \
  "\\\"message\\\":\\\"request (" #p " tokens) exceeds the available context size (" #c           \
  " tokens), try increasing it\\\",\\\"type\\\":\\\"exceed_context_size_error\\\","               \
  "\\\"n_prompt_tokens\\\":" #p ",\\\"n_ctx\\\":" #c "}}\"}},"                                     \
  "\"findings\":[{\"rule\":\"HTTP-STATUS\",\"severity\":\"error\",\"message\":\"expected HTTP 200, " \
  "got 400\"}]}"

START_TEST(overflow_per_slot_or_client)
{
  struct oc_deployment two = llama(256, 2, 1), one = llama(256, 1, 1);
  cJSON *r = result(OVERFLOW_400(300, 256));
  const struct oc_diag *dg = oc_deployment_diagnose(&two, r, NULL);
  ck_assert_ptr_nonnull(dg);
  ck_assert_str_eq(dg->id, "per-slot-context");
  /* 2 slots × (300 + 8) */
  ck_assert_ptr_nonnull(strstr(oc_json_str(oc_result_diagnosis(r), "cause"), "-c 616 or more"));
  /* once more: replaced, not added */
  dg = oc_deployment_diagnose(&one, r, NULL);
  ck_assert_str_eq(dg->id, "context-overflow");
  ck_assert_str_eq(oc_json_str(oc_result_diagnosis(r), "id"), "context-overflow");
  ck_assert_ptr_nonnull(strstr(oc_json_str(oc_result_diagnosis(r), "cause"), "--context-shift would not help"));
  cJSON_Delete(r);
  /* longer than all slots together: too long, whatever the split */
  r = result(OVERFLOW_400(1233, 256));
  ck_assert_str_eq(oc_deployment_diagnose(&two, r, NULL)->id, "context-overflow");
  cJSON_Delete(r);
  /* a case that expected the 400 passes: nothing to explain */
  r = result(OVERFLOW_400(1233, 256));
  cJSON_DeleteItemFromArray(oc_json_arr(r, "findings"), 0);
  ck_assert_ptr_null(oc_deployment_diagnose(&two, r, NULL));
  cJSON_Delete(r);
  /* not a llama-server: its facts are unknown */
  struct oc_deployment none;
  oc_deployment_init(&none);
  r = result(OVERFLOW_400(300, 256));
  ck_assert_ptr_null(oc_deployment_diagnose(&none, r, NULL));
  cJSON_Delete(r);
}
END_TEST

START_TEST(template_without_tools)
{
  static const char tool_case[] =
    "{\"status\":\"fail\",\"request\":{\"body\":{\"json\":{\"messages\":[],"
    "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]}}},"
    "\"response\":{\"status\":200,\"body\":{\"text\":\"{}\"}},"
    "\"findings\":[{\"rule\":\"TOOL-CHOICE-HONOURED\",\"severity\":\"error\",\"message\":\"no call\","
    "\"path\":\"/choices/0/message/tool_calls\"}]}";
  struct oc_deployment no = llama(4096, 1, 0), yes = llama(4096, 1, 1);
  cJSON *r = result(tool_case);
  ck_assert_str_eq(oc_deployment_diagnose(&no, r, NULL)->id, "template-no-tools");
  ck_assert_ptr_nonnull(strstr(oc_json_str(oc_result_diagnosis(r), "fix"), "--chat-template-file"));
  cJSON_Delete(r);
  /* the template can: the model's failure is not the deployment's */
  r = result(tool_case);
  ck_assert_ptr_null(oc_deployment_diagnose(&yes, r, NULL));
  cJSON_Delete(r);
}
END_TEST

/* llama-server's 400 for n above its slots (recorded from `-np 1`, the
 * shipped plain/n-2 request): the diagnosis names the bound and -np. */
START_TEST(n_over_slots)
{
  static const char refused[] =
    "{\"status\":\"fail\",\"request\":{\"body\":{\"json\":{\"messages\":[],\"n\":2}}},"
    "\"response\":{\"status\":400,\"body\":{\"text\":\"{\\\"error\\\":{\\\"code\\\":400,"
    "\\\"message\\\":\\\"Field 'n': Value must be between 1 <= value <= 1, but got 2\\\","
    "\\\"type\\\":\\\"invalid_request_error\\\"}}\"}},"
    "\"findings\":[{\"rule\":\"HTTP-STATUS\",\"severity\":\"error\",\"message\":\"expected HTTP 200, "
    "got 400\"}]}";
  struct oc_deployment one = llama(4096, 1, 1);
  cJSON *r = result(refused);
  const struct oc_diag *dg = oc_deployment_diagnose(&one, r, NULL);
  ck_assert_ptr_nonnull(dg);
  ck_assert_str_eq(dg->id, "n-over-slots");
  const char *cause = oc_json_str(oc_result_diagnosis(r), "cause");
  ck_assert_msg(strstr(cause, "refuses n above 1, its number of slots (/props total_slots 1): this "
                              "request asks for n=2; each choice takes a slot (-np 1, --parallel)"),
                "%s", cause);
  ck_assert_ptr_nonnull(strstr(oc_json_str(oc_result_diagnosis(r), "fix"), "-np at least"));
  cJSON_Delete(r);
  /* another 400 that mentions no bound of n is not it */
  static const char other[] =
    "{\"status\":\"fail\",\"request\":{\"body\":{\"json\":{\"messages\":[],\"n\":2}}},"
    "\"response\":{\"status\":400,\"body\":{\"text\":\"{\\\"error\\\":{\\\"code\\\":400,"
    "\\\"message\\\":\\\"Field 'n': must be an integer\\\"}}\"}},"
    "\"findings\":[{\"rule\":\"HTTP-STATUS\",\"severity\":\"error\",\"message\":\"400\"}]}";
  r = result(other);
  ck_assert_ptr_null(oc_deployment_diagnose(&one, r, NULL));
  cJSON_Delete(r);
  /* not a llama-server: its facts are unknown */
  struct oc_deployment none;
  oc_deployment_init(&none);
  r = result(refused);
  ck_assert_ptr_null(oc_deployment_diagnose(&none, r, NULL));
  cJSON_Delete(r);
}
END_TEST

START_TEST(shared_context_says_the_numbers)
{
  static const char inband[] =
    "{\"status\":\"fail\",\"request\":{\"body\":{\"json\":{\"messages\":[],\"max_tokens\":32}}},"
    "\"response\":{\"status\":200,\"events\":[{\"n\":1,\"data\":\"{\\\"choices\\\":[]}\"},"
    "{\"n\":2,\"data\":\"{\\\"error\\\":{\\\"code\\\":500,\\\"message\\\":\\\"Context size has been "
    "exceeded.\\\",\\\"type\\\":\\\"server_error\\\"}}\"}]},"
    "\"findings\":[{\"rule\":\"STREAM-DONE\",\"severity\":\"error\",\"message\":\"no [DONE]\"},"
    "{\"rule\":\"CLIENT-BREAKS\",\"severity\":\"info\",\"message\":\"would raise: \\\"Context size has "
    "been exceeded.\\\"\"},{\"rule\":\"HTTP-CORS-ORIGIN\",\"severity\":\"info\",\"message\":\"empty\"}]}";
  struct oc_deployment d = llama(512, 2, 1);
  cJSON *r = result(inband);
  struct oc_diag_context ctx = { 4, 234, "the server's /tokenize" };
  ck_assert_str_eq(oc_deployment_diagnose(&d, r, &ctx)->id, "shared-context");
  const char *cause = oc_json_str(oc_result_diagnosis(r), "cause");
  ck_assert_msg(strstr(cause, "234 prompt tokens by the server's /tokenize, up to 32 to generate") &&
                  strstr(cause, "4 requests were in flight") && strstr(cause, "after the stream began"),
                "%s", cause);
  /* the error and the finding that quotes the server carry it; an
   * unrelated info finding does not */
  const cJSON *fs = oc_json_arr(r, "findings");
  ck_assert_ptr_nonnull(oc_json_obj(cJSON_GetArrayItem(fs, 0), "diagnosis"));
  ck_assert_ptr_nonnull(oc_json_obj(cJSON_GetArrayItem(fs, 1), "diagnosis"));
  ck_assert_ptr_null(oc_json_obj(cJSON_GetArrayItem(fs, 2), "diagnosis"));
  cJSON_Delete(r);
  /* one slot: no sharing to blame */
  struct oc_deployment one = llama(512, 1, 1);
  r = result(inband);
  ck_assert_ptr_null(oc_deployment_diagnose(&one, r, &ctx));
  cJSON_Delete(r);
}
END_TEST

START_TEST(wait_from_the_server_timings)
{
  cJSON *r = result("{\"timing\":{\"recorded\":true,\"total_ms\":1010.5},"
                    "\"response\":{\"status\":200,\"body\":{\"text\":\"{\\\"timings\\\":"
                    "{\\\"prompt_ms\\\":4.5,\\\"predicted_ms\\\":6}}\"}}}");
  oc_deployment_timing(r);
  const cJSON *t = oc_json_obj(r, "timing");
  ck_assert(fabs(oc_json_num(t, "server_ms", -1) - 10.5) < 1e-9);
  ck_assert(fabs(oc_json_num(t, "wait_ms", -1) - 1000.0) < 1e-9);
  cJSON_Delete(r);
  /* a stream: the last chunk with timings */
  r = result("{\"timing\":{\"recorded\":true,\"total_ms\":20},\"response\":{\"status\":200,"
             "\"events\":[{\"data\":\"{\\\"timings\\\":{\\\"prompt_ms\\\":1,\\\"predicted_ms\\\":1}}\"},"
             "{\"data\":\"{\\\"timings\\\":{\\\"prompt_ms\\\":2,\\\"predicted_ms\\\":15}}\"}]}}");
  oc_deployment_timing(r);
  ck_assert(fabs(oc_json_num(oc_json_obj(r, "timing"), "wait_ms", -1) - 3.0) < 1e-9);
  cJSON_Delete(r);
  /* ... the last one whose timings make sense, wherever it is */
  r = result("{\"timing\":{\"recorded\":true,\"total_ms\":20},\"response\":{\"status\":200,"
             "\"events\":[{\"data\":\"{}\"},{\"data\":\"{\\\"timings\\\":{\\\"prompt_ms\\\":2,\\\"predicted_ms\\\":10}}\"},"
             "{\"data\":\"{\\\"timings\\\":{\\\"prompt_ms\\\":-1,\\\"predicted_ms\\\":1}}\"},{\"data\":\"[DONE]\"}]}}");
  oc_deployment_timing(r);
  ck_assert(fabs(oc_json_num(oc_json_obj(r, "timing"), "wait_ms", -1) - 8.0) < 1e-9);
  cJSON_Delete(r);
  /* one event */
  r = result("{\"timing\":{\"recorded\":true,\"total_ms\":20},\"response\":{\"status\":200,"
             "\"events\":[{\"data\":\"{\\\"timings\\\":{\\\"prompt_ms\\\":5,\\\"predicted_ms\\\":5}}\"}]}}");
  oc_deployment_timing(r);
  ck_assert(fabs(oc_json_num(oc_json_obj(r, "timing"), "wait_ms", -1) - 10.0) < 1e-9);
  cJSON_Delete(r);
  /* no measured time, or no timings, or nonsense timings: nothing */
  static const char *const none[] = {
    "{\"timing\":{\"recorded\":false},\"response\":{\"body\":{\"text\":\"{\\\"timings\\\":{\\\"prompt_ms\\\":1,\\\"predicted_ms\\\":1}}\"}}}",
    "{\"timing\":{\"recorded\":true,\"total_ms\":5},\"response\":{\"body\":{\"text\":\"{}\"}}}",
    "{\"timing\":{\"recorded\":true,\"total_ms\":5},\"response\":{\"body\":{\"text\":\"{\\\"timings\\\":{\\\"prompt_ms\\\":-1,\\\"predicted_ms\\\":1}}\"}}}",
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(none); i++) {
    r = result(none[i]);
    oc_deployment_timing(r);
    ck_assert_msg(!oc_json_get(oc_json_obj(r, "timing"), "wait_ms"), "%s", none[i]);
    cJSON_Delete(r);
  }
}
END_TEST

/* ---- serve --overload: the count and the choice ----------------------------------------- */

static void put_cassette(struct oc_cassette_store *s, const char *name, const char *reason)
{
  struct oc_cassette c;
  oc_cassette_init(&c);
  c.name = oc_strdup(name);
  c.method = oc_strdup("GET");
  c.path = oc_asprintf("/%s", name);
  c.status = 200;
  c.reason = oc_strdup(reason);
  ck_assert_int_eq(oc_cassette_add_piece(&c, "{}", 2, 0), OC_OK);
  ck_assert_int_eq(oc_cassette_update_key(&c), OC_OK);
  ck_assert_int_eq(oc_cassette_store_take(s, &c), OC_OK);
}

START_TEST(overload_counts_and_chooses)
{
  struct oc_cassette_store main;
  struct oc_overload o;
  oc_cassette_store_init(&main);
  oc_overload_init(&o);
  put_cassette(&main, "a", "main");
  put_cassette(&main, "b", "main");
  put_cassette(&o.store, "a", "overloaded");
  o.above = 1;
  long busy;
  struct oc_overload_ticket t1, t2, t3;
  memset(&t3, 0, sizeof(t3));
  oc_overload_enter(&o, &t1);
  ck_assert_str_eq(oc_overload_find(&o, &main, NULL, "a", &busy)->reason, "main");
  ck_assert_int_eq(busy, 0);
  oc_overload_enter(&o, &t2); /* two in flight: more than 1 */
  ck_assert_str_eq(oc_overload_find(&o, &main, NULL, "a", &busy)->reason, "overloaded");
  ck_assert_int_eq(busy, 2);
  /* what the overload recordings lack comes from the main ones */
  ck_assert_str_eq(oc_overload_find(&o, &main, NULL, "b", &busy)->reason, "main");
  ck_assert_int_eq(busy, 0);
  /* by key as well */
  const struct oc_cassette *ka = oc_cassette_store_find_name(&main, "a");
  ck_assert_str_eq(oc_overload_find(&o, &main, ka->key, NULL, &busy)->reason, "overloaded");
  oc_overload_leave(&t2);
  oc_overload_leave(&t2); /* given back once */
  ck_assert_int_eq(atomic_load(&o.busy), 1);
  ck_assert_str_eq(oc_overload_find(&o, &main, NULL, "a", &busy)->reason, "main");
  /* the answer takes the ticket over: the request's is then empty */
  oc_overload_hand(&t3, &t1);
  oc_overload_leave(&t1);
  ck_assert_int_eq(atomic_load(&o.busy), 1);
  oc_overload_leave(&t3);
  ck_assert_int_eq(atomic_load(&o.busy), 0);
  ck_assert_int_eq(atomic_load(&o.answered), 2);
  /* no overload configured: a plain lookup, nothing counted */
  struct oc_overload_ticket t0;
  oc_overload_enter(NULL, &t0);
  ck_assert(!t0.held);
  oc_overload_leave(&t0);
  ck_assert_str_eq(oc_overload_find(NULL, &main, NULL, "a", &busy)->reason, "main");
  oc_overload_free(&o);
  oc_cassette_store_free(&main);
  /* the option */
  char err[600];
  static const char *const bad[] = { "2", "=dir", "x=dir", "2=", "2=/nonexistent-oacheck-dir" };
  for(size_t i = 0; i < OC_ARRAY_LEN(bad); i++) {
    ck_assert_msg(oc_overload_parse(&o, bad[i], err, sizeof(err)) != OC_OK, "%s accepted", bad[i]);
    ck_assert(strlen(err) > 0);
    oc_overload_free(&o);
  }
  char *dir = oc_test_src("tests/data/recordings/llama-server-concurrency");
  char *spec = oc_asprintf("2=%s", dir);
  ck_assert_msg(oc_overload_parse(&o, spec, err, sizeof(err)) == OC_OK, "%s", err);
  ck_assert_int_eq(o.above, 2);
  ck_assert_uint_gt(o.store.count, 50);
  oc_overload_free(&o);
  free(spec);
  free(dir);
}
END_TEST

/* ---- the table itself ------------------------------------------------------------------- */

START_TEST(fixes_table_names_what_exists)
{
  for(size_t i = 0; i < oc_rule_nfixes; i++)
    ck_assert_msg(oc_profile_find(oc_rule_fixes[i].server) != NULL, "FIX for server '%s'",
                  oc_rule_fixes[i].server);
  for(size_t i = 0; i < OC_DIAG__COUNT; i++) {
    ck_assert_int_eq(oc_diags[i].did, (int)i);
    ck_assert_msg(oc_profile_find(oc_diags[i].server) != NULL, "%s", oc_diags[i].id);
    for(size_t k = 0; k < i; k++)
      ck_assert_str_ne(oc_diags[k].id, oc_diags[i].id);
    /* every rule it names is in the catalogue */
    for(const char *p = oc_diags[i].rules; *p; p += strspn(p, " ")) {
      size_t n = strcspn(p, " ");
      char *rule = oc_strndup(p, n);
      ck_assert_msg(oc_rule_find(rule) != NULL, "%s names unknown rule %s", oc_diags[i].id, rule);
      free(rule);
      p += n;
    }
    ck_assert(strlen(oc_diags[i].cause) > 20 && strlen(oc_diags[i].fix) > 20);
  }
}
END_TEST

static Suite *deployment_suite(void)
{
  Suite *s = suite_create("deployment");
  TCase *tc = tcase_create("facts");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, facts_of_the_shipped_recordings);
  tcase_add_test(tc, facts_of_the_tiny_random_recordings);
  tcase_add_test(tc, hostile_props_are_unknown);
  tcase_add_test(tc, shared_context_on_the_concurrency_recordings);
  tcase_add_test(tc, no_diagnosis_on_the_live_recordings);
  tcase_add_test(tc, per_slot_context_without_kv_unified);
  tcase_add_test(tc, jinja_off);
  tcase_add_test(tc, overflow_per_slot_or_client);
  tcase_add_test(tc, template_without_tools);
  tcase_add_test(tc, n_over_slots);
  tcase_add_test(tc, shared_context_says_the_numbers);
  tcase_add_test(tc, wait_from_the_server_timings);
  tcase_add_test(tc, fixes_table_names_what_exists);
  tcase_add_test(tc, overload_counts_and_chooses);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return oc_test_run(deployment_suite());
}
