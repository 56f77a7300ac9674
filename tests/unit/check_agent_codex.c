/* check_agent_codex.c — the Codex CLI model (agent_codex.c) against the
 * facts measured with the real Codex (tests/e2e/agent-codex.sh): every
 * case of tests/data/crafted/agents/codex/expect.json, each of its
 * recordings decoded by responses.c as oacheck reads any exchange, must be
 * predicted as Codex behaved — the answer printed, nothing printed, the
 * tool run with its call id, or an error after retries, and the exit
 * status — and the model must be of the version the file was measured
 * with.  Then the shapes the model takes from Codex's source, not from a
 * measurement: a cut body, response.failed, response.incomplete. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "agent_codex.h"
#include "exchange.h"
#include "json.h"
#include "decodeutil.h"
#include "responses.h"
#include "testutil.h"

#define DIR "tests/data/crafted/agents/codex/"

struct run {
  struct oc_decoded d;
  struct oc_exchange ex;
  struct oc_codex_view v;
};

static void decode(struct run *x, const char *reqjson, const char *resp, size_t len, int cut)
{
  char err[512];
  memset(x, 0, sizeof(*x));
  ck_assert_msg(oc_exchange_parse_response(resp, len, 0, &x->ex, err, sizeof(err)) == 0, "%s",
                err);
  oc_decoded_start(&x->d, "/v1/responses", reqjson, x->ex.status, NULL, &x->ex.headers, 0);
  ck_assert_int_eq(x->d.info.api, OC_API_RESPONSES);
  size_t n = cut ? x->ex.body_len / 2 : x->ex.body_len;
  oc_decoded_push(&x->d, x->ex.body, n);
  oc_response_finish(&x->d.r, 0, !cut);
  const struct oc_rstream *s = oc_response_stream_of(&x->d.r, OC_PROTO_RESPONSES);
  ck_assert_ptr_nonnull(s);
  oc_codex_predict(s, cut, &x->v);
}

static void decode_file(struct run *x, const char *name, int cut)
{
  char *rp = oc_asprintf("%s%s.request.json", DIR, name);
  char *sp = oc_asprintf("%s%s.response.http", DIR, name);
  ck_assert(rp && sp);
  char *rpath = oc_test_src(rp), *spath = oc_test_src(sp);
  size_t len = 0;
  char *req = oc_test_read(rpath, NULL);
  char *resp = oc_test_read(spath, &len);
  decode(x, req, resp, len, cut);
  free(req);
  free(resp);
  free(rpath);
  free(spath);
  free(rp);
  free(sp);
}

static void done(struct run *x)
{
  oc_decoded_stop(&x->d);
  oc_exchange_free(&x->ex);
}

static const char *str(const cJSON *o, const char *k)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

START_TEST(every_measured_case)
{
  char *path = oc_test_src(DIR "expect.json");
  char *text = oc_test_read(path, NULL);
  cJSON *e = cJSON_Parse(text);
  ck_assert_ptr_nonnull(e);
  ck_assert_str_eq(str(e, "version"), OC_CODEX_VERSION);
  const cJSON *cases = cJSON_GetObjectItemCaseSensitive(e, "cases");
  ck_assert(cJSON_IsArray(cases));
  int n = 0, tools = 0;
  const cJSON *c;
  cJSON_ArrayForEach(c, cases)
  {
    const char *header = str(c, "header"), *outcome = str(c, "outcome"), *out = str(c, "stdout");
    const cJSON *ex = cJSON_GetObjectItemCaseSensitive(c, "exit");
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(c, "tool_call");
    ck_assert(header && outcome && out && cJSON_IsNumber(ex));
    /* each name of the sequence: a tool call but the last, which ends the turn */
    char *names = oc_strdup(header);
    ck_assert_ptr_nonnull(names);
    char *save = NULL;
    for(char *name = strtok_r(names, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
      struct run x;
      decode_file(&x, name, 0);
      int last = !save || !*save;
      const char *got = oc_codex_outcome_name(x.v.outcome);
      ck_assert_msg(x.v.measured, "%s: predicted from a shape not measured", name);
      if(!last) {
        ck_assert_msg(x.v.outcome == OC_CODEX_TOOL, "%s: predicted %s, Codex ran the tool", name,
                      got);
        ck_assert_ptr_nonnull(tc);
        ck_assert_str_eq(x.v.call_id, str(tc, "call_id"));
        ck_assert_str_eq(x.v.name, str(tc, "name"));
        tools++;
      } else {
        ck_assert_msg(strcmp(got, outcome) == 0, "%s: predicted %s, Codex: %s", name, got,
                      outcome);
        ck_assert_int_eq(x.v.exit_status, ex->valueint);
        if(x.v.outcome == OC_CODEX_ANSWER) {
          const struct oc_rtext *a = x.v.answer;
          ck_assert_uint_eq(a->len, strlen(out));
          ck_assert_str_eq(oc_buf_str(&a->head), out);
        } else {
          ck_assert_str_eq(out, "");
        }
      }
      done(&x);
    }
    free(names);
    n++;
  }
  ck_assert_int_ge(n, 7);
  ck_assert_int_eq(tools, 1);
  cJSON_Delete(e);
  free(text);
  free(path);
}
END_TEST

#define REQ "{\"model\":\"m\",\"input\":\"hi\",\"stream\":true}"
#define HEAD "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
#define CREATED                                                                                   \
  "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,"           \
  "\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"created_at\":1,\"model\":\"m\","      \
  "\"status\":\"in_progress\",\"output\":[]}}\n\n"

static void decode_text(struct run *x, const char *resp, int cut)
{
  decode(x, REQ, resp, strlen(resp), cut);
}

/* The agents' verdict (agent.c) on the same measured streams: Codex's
 * user gets what the server sent where Codex printed an answer or ran the
 * tool; where it printed nothing, or failed after its retries, on a
 * stream that carried an answer, the server broke it, and the verdict
 * names the server's rule. */
START_TEST(agent_verdicts_follow_the_measurements)
{
  static const struct {
    const char *name;
    int works;
    const char *outcome, *rule;
  } want[] = {
    { "codex.text", 1, "answer", NULL },
    { "codex.llama-server-shape", 1, "answer", NULL },
    { "codex.deltas-differ", 1, "answer", NULL },
    { "codex.tool-call", 1, "tool", NULL },
    { "codex.no-output-item-done", 0, "empty", "RESPONSES-ITEM-DONE" },
    { "codex.no-completed", 0, "error", "RESPONSES-TERMINAL" },
    { "codex.untyped-error", 0, "error", "RESPONSES-ERROR-EVENT" },
  };
  for(size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
    struct run x;
    decode_file(&x, want[i].name, 0);
    const struct oc_agent_verdict *v = &x.d.r.agents[OC_AGENT_CODEX];
    ck_assert_msg(v->judged, "%s: not judged", want[i].name);
    ck_assert_msg(v->works == want[i].works, "%s: works %d (%s)", want[i].name, v->works, v->reason);
    ck_assert_str_eq(v->outcome, want[i].outcome);
    if(want[i].rule)
      ck_assert_msg(v->rule && strcmp(v->rule, want[i].rule) == 0, "%s: rule %s", want[i].name,
                    v->rule ? v->rule : "none");
    else
      ck_assert_ptr_null(v->rule);
    ck_assert_int_eq(v->measured, 1);
    cJSON *j = oc_agents_json(x.d.r.agents);
    ck_assert_ptr_nonnull(j);
    ck_assert(cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "codex"),
                                                             "works")));
    cJSON_Delete(j);
    done(&x);
  }
  /* cut by the transport: a break, the cut named */
  struct run x;
  decode_file(&x, "codex.text", 1);
  ck_assert_int_eq(x.d.r.agents[OC_AGENT_CODEX].works, 0);
  ck_assert_str_eq(x.d.r.agents[OC_AGENT_CODEX].rule, "STREAM-TRUNCATED");
  done(&x);
}
END_TEST

START_TEST(shapes_from_the_source)
{
  struct run x;
  /* a body cut by the transport: an error, not measured */
  decode_file(&x, "codex.text", 1);
  ck_assert_int_eq(x.v.outcome, OC_CODEX_ERROR);
  ck_assert_int_eq(x.v.exit_status, 1);
  ck_assert_int_eq(x.v.measured, 0);
  done(&x);
  decode_text(&x,
              HEAD CREATED "event: response.failed\ndata: {\"type\":\"response.failed\","
                           "\"sequence_number\":1,\"response\":{\"id\":\"resp_1\",\"object\":"
                           "\"response\",\"status\":\"failed\",\"output\":[],\"error\":{\"code\":"
                           "\"server_error\",\"message\":\"boom\"}}}\n\n",
              0);
  ck_assert_int_eq(x.v.outcome, OC_CODEX_ERROR);
  ck_assert_int_eq(x.v.measured, 0);
  done(&x);
  decode_text(&x,
              HEAD CREATED "event: response.incomplete\ndata: {\"type\":\"response.incomplete\","
                           "\"sequence_number\":1,\"response\":{\"id\":\"resp_1\",\"object\":"
                           "\"response\",\"status\":\"incomplete\",\"output\":[],"
                           "\"incomplete_details\":{\"reason\":\"max_output_tokens\"}}}\n\n",
              0);
  ck_assert_int_eq(x.v.outcome, OC_CODEX_ERROR);
  ck_assert_ptr_nonnull(strstr(x.v.says, "Incomplete"));
  done(&x);
  /* completed with nothing in it: exit 0, nothing printed */
  decode_text(&x,
              HEAD CREATED "event: response.completed\ndata: {\"type\":\"response.completed\","
                           "\"sequence_number\":1,\"response\":{\"id\":\"resp_1\",\"object\":"
                           "\"response\",\"status\":\"completed\",\"output\":[]}}\n\n",
              0);
  ck_assert_int_eq(x.v.outcome, OC_CODEX_EMPTY);
  ck_assert_int_eq(x.v.exit_status, 0);
  done(&x);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("agent_codex");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, every_measured_case);
  tcase_add_test(tc, shapes_from_the_source);
  tcase_add_test(tc, agent_verdicts_follow_the_measurements);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return oc_test_run(suite());
}
