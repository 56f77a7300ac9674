/* check_pclients_messages.c — the Messages API's client models
 * (src/client_messages*.c) without the real clients: the facts measured
 * with them on the crafted exchanges of tests/data/crafted/clients-messages
 * (its oracle-expect.json: outcome, works and the reason's pattern, so
 * they hold where no node runs), the rule each break names, a case failed
 * by a break (CLIENT-BREAKS) and a stream far past the block cap.  The
 * comparison with the real clients on every exchange is
 * tests/e2e/client-oracle-messages.sh's. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cassette.h"
#include "client.h"
#include "regex.h"
#include "rulesutil.h"

static const char *crafted_dir(void)
{
  static char dir[4096];
  const char *src = getenv("OACHECK_SRCDIR");
  snprintf(dir, sizeof(dir), "%s/tests/data/crafted/clients-messages", src && *src ? src : ".");
  return dir;
}

/* The crafted exchange NAME through the models (every client selected);
 * findings into *f when f is not NULL. */
static void verdicts_of(const char *name, struct oc_client_verdict *v, struct oc_findings *f)
{
  struct oc_cassette_store store;
  oc_cassette_store_init(&store);
  const char *dirs[] = { crafted_dir() };
  ck_assert_int_eq(oc_cassette_store_load(&store, dirs, 1, NULL, NULL), OC_OK);
  const struct oc_cassette *c = oc_cassette_store_find_name(&store, name);
  ck_assert_msg(c != NULL, "no crafted exchange %s", name);
  struct rt_ex x = { c->method, c->path, c->req_body, c->status, NULL, c->body, c->body_len, NULL, 0, 0 };
  struct oc_buf h;
  oc_buf_init(&h, 1u << 16);
  for(size_t k = 0; k < c->headers.count; k++)
    oc_buf_printf(&h, "%s: %s\n", c->headers.items[k].name, c->headers.items[k].value);
  x.headers = oc_buf_str(&h);
  struct oc_findings own;
  rt_strict = 0;
  rt_analyze_v(&x, "llama-server", 0, f ? f : &own, v);
  rt_strict = 1;
  if(!f)
    oc_findings_free(&own);
  oc_buf_free(&h);
  oc_cassette_store_free(&store);
}

static int outcome_of(const char *s)
{
  for(int o = OC_CO_OK; o <= OC_CO_NOT_EXERCISED; o++)
    if(strcmp(s, oc_client_outcome_name((enum oc_client_outcome)o)) == 0)
      return o;
  return -1;
}

START_TEST(crafted_facts_hold)
{
  char *file = oc_path_join(crafted_dir(), "oracle-expect.json");
  char err[512];
  cJSON *facts = oc_json_parse_file(file, err, sizeof(err));
  ck_assert_msg(facts != NULL, "%s", err);
  size_t checked = 0;
  const cJSON *f;
  cJSON_ArrayForEach(f, facts)
  {
    const char *name = oc_json_str(f, "name"), *client = oc_json_str(f, "client");
    const char *outcome = oc_json_str(f, "outcome"), *reason = oc_json_str(f, "reason");
    int ci = oc_client_find(client);
    ck_assert_msg(name && ci >= 0 && outcome, "%s: an entry without name, client or outcome", file);
    struct oc_client_verdict v[OC_CLIENT__COUNT];
    verdicts_of(name, v, NULL);
    const struct oc_client_verdict *g = &v[ci];
    ck_assert_msg(g->modelled, "%s is not modelled", client);
    ck_assert_msg((int)g->outcome == outcome_of(outcome), "%s on %s (%s): %s, the real client %s: %s", client,
                  name, oc_json_str(f, "fact"), oc_client_outcome_name(g->outcome), outcome, g->reason);
    const cJSON *works = oc_json_get(f, "works");
    if(cJSON_IsBool(works))
      ck_assert_msg(g->works == cJSON_IsTrue(works), "%s on %s: works %d", client, name, g->works);
    if(reason) {
      char rerr[256];
      struct oc_regex *re = oc_regex_compile(reason, strlen(reason), rerr, sizeof(rerr));
      ck_assert_msg(re != NULL, "%s: /%s/: %s", name, reason, rerr);
      struct oc_regex_scratch *sc = NULL;
      ck_assert_msg(oc_regex_match(re, g->reason, strlen(g->reason), &sc) == 1,
                    "%s on %s: reason '%s' does not match /%s/", client, name, g->reason, reason);
      oc_regex_scratch_free(sc);
      oc_regex_free(re);
    }
    checked++;
  }
  ck_assert_uint_ge(checked, 60);
  cJSON_Delete(facts);
  free(file);
}
END_TEST

/* Each break names the server's rule behind it. */
static const struct {
  const char *name;
  enum oc_client_id client;
  const char *rule;
} named[] = {
  { "openai-error-500", OC_CLIENT_AI_SDK_ANTHROPIC, "MESSAGES-ERROR-SHAPE" },
  { "no-usage-stream", OC_CLIENT_ANTHROPIC_STREAM, "MESSAGES-USAGE" },
  { "no-usage-stream", OC_CLIENT_AI_SDK_ANTHROPIC, "MESSAGES-USAGE" },
  { "no-usage-stream", OC_CLIENT_LANGCHAIN_ANTHROPIC, "MESSAGES-USAGE" },
  { "tool-use-no-input-stream", OC_CLIENT_ANTHROPIC_STREAM, "MESSAGES-TOOL-INPUT" },
  { "skipped-index-stream", OC_CLIENT_ANTHROPIC_STREAM, "MESSAGES-BLOCK-INDEX" },
  { "delta-unstarted-stream", OC_CLIENT_AI_SDK_ANTHROPIC, "MESSAGES-BLOCK-ORDER" },
  { "delta-unstarted-stream", OC_CLIENT_LANGCHAIN_ANTHROPIC, "MESSAGES-BLOCK-ORDER" },
  { "no-event-lines-stream", OC_CLIENT_ANTHROPIC, "MESSAGES-EVENT-TYPE" },
  { "no-event-lines-stream", OC_CLIENT_ANTHROPIC_STREAM, "MESSAGES-EVENT-TYPE" },
  { "truncated-tool-json-stream", OC_CLIENT_LANGCHAIN_ANTHROPIC, "MESSAGES-TOOL-ARGS" },
  { "no-message-stop-stream", OC_CLIENT_ANTHROPIC_STREAM, "MESSAGES-STOP" },
};

START_TEST(breaks_name_the_rule)
{
  struct oc_client_verdict v[OC_CLIENT__COUNT];
  verdicts_of(named[_i].name, v, NULL);
  const struct oc_client_verdict *g = &v[named[_i].client];
  ck_assert_msg(g->works == 0, "%s on %s works", oc_client_name(named[_i].client), named[_i].name);
  ck_assert_int_eq(g->cause, OC_CAUSE_SERVER);
  ck_assert_uint_eq(g->nrules, 1);
  ck_assert_str_eq(oc_rule_name(g->rules[0]), named[_i].rule);
}
END_TEST

/* A break of a selected Messages client fails the case; a clean answer
 * breaks none. */
START_TEST(a_break_fails_the_case)
{
  struct oc_findings f;
  struct oc_client_verdict v[OC_CLIENT__COUNT];
  verdicts_of("openai-error-500", v, &f);
  char *fired = rt_fired(&f);
  ck_assert_msg(strstr(fired, "CLIENT-BREAKS") != NULL, "fired: %s", fired);
  free(fired);
  oc_findings_free(&f);
  static const char *clean[] = { "official-text-stream", "official-tool-use-stream", "official-thinking-stream",
                                 "official-text", "official-tool-use", "llama-server-tool-use-stream" };
  for(size_t i = 0; i < OC_ARRAY_LEN(clean); i++) {
    verdicts_of(clean[i], v, &f);
    fired = rt_fired(&f);
    ck_assert_msg(strstr(fired, "CLIENT-BREAKS") == NULL, "%s fired: %s", clean[i], fired);
    free(fired);
    oc_findings_free(&f);
    for(int c = OC_CLIENT_ANTHROPIC; c < OC_CLIENT__COUNT; c++)
      ck_assert_msg(v[c].works != 0, "%s on %s: %s", oc_client_name((enum oc_client_id)c), clean[i], v[c].reason);
  }
}
END_TEST

#define MSG_REQ "{\"model\":\"m\",\"max_tokens\":9,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"stream\":true}"

/* Thousands of blocks: past the models' cap nothing more is kept, and
 * every client still gets a verdict. */
START_TEST(many_blocks_stay_bounded)
{
  struct oc_buf b;
  oc_buf_init(&b, 64u << 20);
  oc_buf_adds(&b, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\","
                  "\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n");
  for(int i = 0; i < 5000; i++)
    oc_buf_printf(&b,
                  "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":%d,"
                  "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
                  "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":%d,"
                  "\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}\n\n"
                  "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":%d}\n\n",
                  i, i, i);
  oc_buf_adds(&b, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
                  "\"usage\":{\"output_tokens\":1}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
  ck_assert_int_eq(oc_buf_error(&b), OC_OK);
  struct rt_ex x = { "POST", "/v1/messages", MSG_REQ, 200, "Content-Type: text/event-stream", b.data, b.len, NULL, 0, 0 };
  struct oc_findings f;
  struct oc_client_verdict v[OC_CLIENT__COUNT];
  rt_analyze_v(&x, "openai", 0, &f, v);
  for(int c = OC_CLIENT_ANTHROPIC; c < OC_CLIENT__COUNT; c++)
    ck_assert_msg(v[c].modelled && v[c].reason[0], "%s has no verdict", oc_client_name((enum oc_client_id)c));
  oc_findings_free(&f);
  oc_buf_free(&b);
}
END_TEST

/* Tool JSON far past the caps: nothing past them is kept, every client
 * still gets a verdict. */
START_TEST(huge_tool_json_stays_bounded)
{
  struct oc_buf b;
  oc_buf_init(&b, 128u << 20);
  oc_buf_adds(&b, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\","
                  "\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n");
  for(int k = 0; k < 8; k++) {
    oc_buf_printf(&b, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":%d,"
                      "\"content_block\":{\"type\":\"tool_use\",\"id\":\"t%d\",\"name\":\"get_weather\",\"input\":{}}}\n\n", k, k);
    oc_buf_printf(&b, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":%d,"
                      "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\": \\\"", k);
    for(int i = 0; i < (3 << 20) / 64; i++)
      oc_buf_adds(&b, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    oc_buf_printf(&b, "\\\"}\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":%d}\n\n", k);
  }
  oc_buf_adds(&b, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},"
                  "\"usage\":{\"output_tokens\":1}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
  ck_assert_int_eq(oc_buf_error(&b), OC_OK);
  struct rt_ex x = { "POST", "/v1/messages", MSG_REQ, 200, "Content-Type: text/event-stream", b.data, b.len, NULL, 0, 0 };
  struct oc_findings f;
  struct oc_client_verdict v[OC_CLIENT__COUNT];
  rt_analyze_v(&x, "openai", 0, &f, v);
  for(int c = OC_CLIENT_ANTHROPIC; c < OC_CLIENT__COUNT; c++)
    ck_assert_msg(v[c].modelled && v[c].reason[0], "%s has no verdict", oc_client_name((enum oc_client_id)c));
  oc_findings_free(&f);
  oc_buf_free(&b);
}
END_TEST

/* The stream helper is not exercised on a request not streamed. */
START_TEST(stream_helper_only_for_streams)
{
  struct oc_client_verdict v[OC_CLIENT__COUNT];
  verdicts_of("official-text", v, NULL);
  ck_assert_int_eq(v[OC_CLIENT_ANTHROPIC_STREAM].outcome, OC_CO_NOT_EXERCISED);
  ck_assert_int_eq(v[OC_CLIENT_ANTHROPIC_STREAM].works, -1);
  ck_assert_int_eq(v[OC_CLIENT_ANTHROPIC].outcome, OC_CO_OK);
}
END_TEST

static Suite *pclients_suite(void)
{
  Suite *s = suite_create("pclients_messages");
  TCase *tc = tcase_create("models");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, crafted_facts_hold);
  tcase_add_loop_test(tc, breaks_name_the_rule, 0, (int)OC_ARRAY_LEN(named));
  tcase_add_test(tc, a_break_fails_the_case);
  tcase_add_test(tc, many_blocks_stay_bounded);
  tcase_add_test(tc, huge_tool_json_stays_bounded);
  tcase_add_test(tc, stream_helper_only_for_streams);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  rt_setup();
  int rc = oc_test_run(pclients_suite());
  rt_teardown();
  return rc;
}
