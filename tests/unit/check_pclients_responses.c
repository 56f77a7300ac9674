/* check_pclients_responses.c — the Responses API's client models
 * (src/client_responses*.c) on the crafted exchanges of
 * tests/data/crafted/clients-responses/, each decoded by responses.c as
 * oacheck reads any exchange: every modelled client's outcome, works, the
 * start of its reason and the rule a break names are what the real
 * libraries did with the same bytes (tests/e2e/client-oracle-responses.sh
 * measures them; oracle-expect.json pins the facts there). */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "exchange.h"
#include "json.h"
#include "response.h"
#include "testutil.h"

#define DIR "tests/data/crafted/clients-responses/"

struct run {
  struct oc_schemas sch;
  cJSON *req;
  struct oc_request_info info;
  struct oc_findings f;
  struct oc_check c;
  struct oc_exchange ex;
  struct oc_response r;
};

static void decode(struct run *x, const char *name)
{
  char err[512];
  memset(x, 0, sizeof(*x));
  ck_assert_msg(oc_schemas_load(&x->sch, err, sizeof(err)) == 0, "%s", err);
  char *rp = oc_asprintf("%s%s.request.json", DIR, name);
  char *sp = oc_asprintf("%s%s.response.http", DIR, name);
  ck_assert(rp && sp);
  char *rpath = oc_test_src(rp), *spath = oc_test_src(sp);
  size_t len = 0;
  char *req = oc_test_read(rpath, NULL);
  char *resp = oc_test_read(spath, &len);
  x->req = cJSON_Parse(req);
  ck_assert_ptr_nonnull(x->req);
  oc_request_info_init(&x->info, "POST", "/v1/responses", x->req);
  ck_assert_int_eq(x->info.api, OC_API_RESPONSES);
  oc_findings_init(&x->f);
  oc_check_init(&x->c, &x->f, oc_profile_find("openai"));
  ck_assert_msg(oc_exchange_parse_response(resp, len, 0, &x->ex, err, sizeof(err)) == 0, "%s", err);
  oc_response_init(&x->r, &x->info, &x->c, &x->sch, 0, 0, 0);
  oc_response_head(&x->r, x->ex.status, &x->ex.headers, 0);
  ck_assert_int_eq(oc_response_body(&x->r, x->ex.body, x->ex.body_len, 0), OC_OK);
  oc_response_finish(&x->r, 0, 1);
  free(req);
  free(resp);
  free(rpath);
  free(spath);
  free(rp);
  free(sp);
}

static void done(struct run *x)
{
  oc_response_free(&x->r);
  oc_exchange_free(&x->ex);
  oc_findings_free(&x->f);
  cJSON_Delete(x->req);
  oc_schemas_free(&x->sch);
}

/* What one client did with one exchange, as measured. */
struct fact {
  const char *name;
  enum oc_client_id client;
  enum oc_client_outcome outcome;
  int works;
  const char *reason; /* the start of the reason; NULL: not checked */
  int rule;           /* the rule a break names; -1: none checked */
};

#define NODE OC_CLIENT_OPENAI_NODE_RESPONSES
#define STREAM OC_CLIENT_OPENAI_NODE_RESPONSES_STREAM
#define AGENTS OC_CLIENT_OPENAI_AGENTS
#define AI OC_CLIENT_AI_SDK_RESPONSES

static const struct fact facts[] = {
  /* OpenAI's own shapes: every client reads them */
  { "official-text-stream", NODE, OC_CO_OK, 1, "text \"Hello from the server.\"", -1 },
  { "official-text-stream", STREAM, OC_CO_OK, 1, NULL, -1 },
  { "official-text-stream", AGENTS, OC_CO_OK, 1, NULL, -1 },
  { "official-tool-call-stream", NODE, OC_CO_OK, 1, "text \"\", 1 call", -1 },
  { "official-tool-call-stream", STREAM, OC_CO_OK, 1, NULL, -1 },
  { "official-tool-call-stream", AGENTS, OC_CO_OK, 1, NULL, -1 },
  { "official-reasoning-stream", NODE, OC_CO_OK, 1, NULL, -1 },
  { "official-reasoning-stream", STREAM, OC_CO_OK, 1, NULL, -1 },
  { "official-reasoning-stream", AGENTS, OC_CO_OK, 1, NULL, -1 },
  { "official-text", NODE, OC_CO_OK, 1, NULL, -1 },
  { "official-text", STREAM, OC_CO_NOT_EXERCISED, -1, NULL, -1 },
  { "official-text", AGENTS, OC_CO_OK, 1, NULL, -1 },
  { "official-tool-call", AGENTS, OC_CO_OK, 1, NULL, -1 },
  /* one field missing */
  { "no-output-index-stream", NODE, OC_CO_OK, 1, NULL, -1 },
  { "no-output-index-stream", STREAM, OC_CO_RAISES, 0, "OpenAIError: \"missing output at index undefined\"",
    OC_R_RESPONSES_OUTPUT_INDEX },
  { "no-output-index-stream", AGENTS, OC_CO_OK, 1, NULL, -1 },
  { "created-bare-stream", STREAM, OC_CO_OK, 1, NULL, -1 },
  { "created-bare-stream", AGENTS, OC_CO_OK, 1, NULL, -1 },
  { "output-index-from-1-stream", STREAM, OC_CO_OK, 1, NULL, -1 },
  { "no-output-item-done-stream", STREAM, OC_CO_OK, 1, NULL, -1 },
  { "no-output-item-done-tool-stream", NODE, OC_CO_OK, 1, NULL, -1 },
  { "no-output-item-done-tool-stream", AGENTS, OC_CO_OK, 1, NULL, -1 },
  /* how a stream ends */
  { "no-terminal-stream", NODE, OC_CO_OK, 1, NULL, -1 },
  { "no-terminal-stream", STREAM, OC_CO_OK, 1, "text \"Hello from the server.\", 0 calls, status in_progress", -1 },
  { "no-terminal-stream", AGENTS, OC_CO_RAISES, 0, "ModelBehaviorError: \"Model did not produce a final response!\"",
    OC_R_RESPONSES_TERMINAL },
  { "untyped-error-stream", NODE, OC_CO_RAISES, 1, "APIError: \"the model crashed mid-answer\"", -1 },
  { "untyped-error-stream", STREAM, OC_CO_RAISES, 1, NULL, -1 },
  { "untyped-error-stream", AGENTS, OC_CO_RAISES, 1, "APIError: \"the model crashed mid-answer\"", -1 },
  { "error-event-stream", NODE, OC_CO_RAISES, 1, NULL, -1 },
  { "error-event-stream", STREAM, OC_CO_RAISES, 1, NULL, -1 },
  { "error-event-stream", AGENTS, OC_CO_RAISES, 1, NULL, -1 },
  { "failed-stream", NODE, OC_CO_RAISES, 1, NULL, -1 },
  { "failed-stream", STREAM, OC_CO_WRONG, 0, "no error (expected \"the model crashed mid-answer\")",
    OC_R_RESPONSES_ERROR_EVENT },
  { "failed-stream", AGENTS, OC_CO_RAISES, 0, "ModelBehaviorError: ", OC_R_RESPONSES_ERROR_EVENT },
  { "incomplete-stream", NODE, OC_CO_OK, 1, "text \"Hello from\", 0 calls, status incomplete", -1 },
  { "incomplete-stream", STREAM, OC_CO_OK, 1, NULL, -1 },
  { "incomplete-stream", AGENTS, OC_CO_RAISES, 0, "ModelBehaviorError: ", -1 },
  /* contents that do not add up */
  { "deltas-differ-stream", NODE, OC_CO_WRONG, 0, "text \"Delta text.\" (expected \"Done text.\")",
    OC_R_RESPONSES_TEXT_JOIN },
  { "deltas-differ-stream", STREAM, OC_CO_OK, 1, "text \"Done text.\"", -1 },
  { "deltas-differ-stream", AGENTS, OC_CO_OK, 1, NULL, -1 },
  { "invalid-args-stream", NODE, OC_CO_OK, 1, NULL, -1 },
  { "invalid-args-stream", STREAM, OC_CO_OK, 1, NULL, -1 },
  { "invalid-args-stream", AGENTS, OC_CO_OK, 1, NULL, -1 },
  /* the ai SDK's Responses model: its chunk schema, calls only on
   * output_item.done, the deltas as the text */
  { "official-text-stream", AI, OC_CO_OK, 1, NULL, -1 },
  { "official-tool-call-stream", AI, OC_CO_OK, 1, NULL, -1 },
  { "official-reasoning-stream", AI, OC_CO_OK, 1, NULL, -1 },
  { "official-tool-call", AI, OC_CO_OK, 1, NULL, -1 },
  { "created-bare-stream", AI, OC_CO_RAISES, 0, "TypeValidationError: ", OC_R_RESPONSES_CREATED },
  { "no-output-index-stream", AI, OC_CO_RAISES, 0, "TypeValidationError: ", OC_R_RESPONSES_OUTPUT_INDEX },
  { "output-index-from-1-stream", AI, OC_CO_OK, 1, NULL, -1 },
  { "no-output-item-done-stream", AI, OC_CO_OK, 1, NULL, -1 },
  { "no-output-item-done-tool-stream", AI, OC_CO_WRONG, 0, "calls: 0 (expected 1)", OC_R_RESPONSES_ITEM_DONE },
  { "no-terminal-stream", AI, OC_CO_OK, 1, NULL, -1 },
  { "untyped-error-stream", AI, OC_CO_RAISES, 1, "TypeValidationError: ", -1 },
  { "error-event-stream", AI, OC_CO_RAISES, 1, NULL, -1 },
  { "failed-stream", AI, OC_CO_RAISES, 1, NULL, -1 },
  { "incomplete-stream", AI, OC_CO_OK, 1, NULL, -1 },
  { "deltas-differ-stream", AI, OC_CO_WRONG, 0, "text \"Delta text.\" (expected \"Done text.\")",
    OC_R_RESPONSES_TEXT_JOIN },
  { "invalid-args-stream", AI, OC_CO_OK, 1, NULL, -1 },
  { "invalid-args", AI, OC_CO_OK, 1, NULL, -1 },
  { "error-400", AI, OC_CO_RAISES, 1, NULL, -1 },
  /* an error before the stream */
  { "error-400", NODE, OC_CO_RAISES, 1, NULL, -1 },
  { "error-400", STREAM, OC_CO_RAISES, 1, NULL, -1 },
  { "error-400", AGENTS, OC_CO_RAISES, 1, NULL, -1 },
};

START_TEST(measured_facts)
{
  const struct fact *f = &facts[_i];
  struct run x;
  decode(&x, f->name);
  const struct oc_client_verdict *v = &x.r.verdicts[f->client];
  const char *who = oc_client_name(f->client);
  ck_assert_msg(v->modelled, "%s on %s: not modelled", who, f->name);
  ck_assert_msg(v->outcome == f->outcome && v->works == f->works, "%s on %s: %s works=%d (%s), expected %s works=%d",
                who, f->name, oc_client_outcome_name(v->outcome), v->works, v->reason,
                oc_client_outcome_name(f->outcome), f->works);
  if(f->reason)
    ck_assert_msg(strncmp(v->reason, f->reason, strlen(f->reason)) == 0, "%s on %s: reason '%s', expected '%s…'",
                  who, f->name, v->reason, f->reason);
  if(f->rule >= 0) {
    int found = 0;
    for(size_t i = 0; i < v->nrules; i++)
      found |= v->rules[i] == (enum oc_rule_id)f->rule;
    ck_assert_msg(found, "%s on %s: the break does not name the expected rule", who, f->name);
  }
  done(&x);
}
END_TEST

/* Every client of the protocol has a verdict, and no other protocol's
 * client has one. */
START_TEST(only_the_protocols_clients)
{
  struct run x;
  decode(&x, "official-text-stream");
  for(int i = 0; i < OC_CLIENT__COUNT; i++)
    ck_assert_int_eq(x.r.verdicts[i].modelled, (OC_CLIENTS_RESPONSES >> i) & 1u);
  done(&x);
}
END_TEST

/* A break of a selected client fails the case, naming the server's rule. */
START_TEST(a_break_fails_the_case)
{
  struct run x;
  decode(&x, "no-output-index-stream");
  int breaks = 0;
  for(size_t i = 0; i < x.f.count; i++)
    breaks |= x.f.items[i].rule == OC_R_CLIENT_BREAKS;
  ck_assert_msg(breaks, "no CLIENT-BREAKS finding for the stream helper's break");
  done(&x);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("pclients_responses");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, measured_facts, 0, (int)(sizeof(facts) / sizeof(facts[0])));
  tcase_add_test(tc, only_the_protocols_clients);
  tcase_add_test(tc, a_break_fails_the_case);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return oc_test_run(suite());
}
