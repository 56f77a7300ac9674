/* check_clients.c — the client models (src/client*.c) and the verdict
 * policy (src/verdict.c) without the real clients: the openai-python
 * facts the models are emulated from (issue 12's list, each a
 * hand-written exchange), the facts measured with the real Node clients
 * on the crafted exchanges of tests/data/crafted/clients/ (their
 * oracle-expect.json, read here: outcome and works, so they hold where no
 * node runs), the limitation table against the OpenAI recordings it cites,
 * and what the policy does to findings.  The comparison with the real
 * clients on every recording is tests/e2e/client-oracle.sh's. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cassette.h"
#include "client.h"
#include "matrix.h"
#include "regex.h"
#include "report.h"
#include "result.h"
#include "rulesutil.h"
#include "verdict.h"

/* ---- building blocks ------------------------------------------------------ */

#define H_JSON "Content-Type: application/json"
#define H_SSE "Content-Type: text/event-stream"
#define MSGS "\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]"
#define REQ_CHAT "{" MSGS "}"
#define REQ_STREAM "{" MSGS ",\"stream\":true}"
#define TOOL "{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":{\"type\":\"object\"}}}"
#define REQ_TOOLS_STREAM "{" MSGS ",\"stream\":true,\"tools\":[" TOOL "]}"
#define SCHEMA_AGE "{\"type\":\"object\",\"properties\":{\"age\":{\"type\":\"integer\"}},\"required\":[\"age\"]," \
  "\"additionalProperties\":false}"
#define REQ_SCHEMA "{" MSGS ",\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"p\"," \
  "\"schema\":" SCHEMA_AGE "}}}"

#define CKO(object, choices)                                                                      \
  "data: {\"id\":\"c\",\"object\":\"" object "\",\"created\":1,\"model\":\"m\",\"choices\":[" choices "]}\n\n"
#define CK(choices) CKO("chat.completion.chunk", choices)
#define CH(delta, fr) CK("{\"index\":0,\"delta\":" delta ",\"finish_reason\":" fr "}")
#define ROLE CH("{\"role\":\"assistant\",\"content\":\"\"}", "null")
#define TEXT(t) CH("{\"content\":\"" t "\"}", "null")
#define FIN(fr) CH("{}", "\"" fr "\"")
#define DONE "data: [DONE]\n\n"
#define CLEAN ROLE TEXT("Hello") FIN("stop") DONE
#define TC(frags) CH("{\"tool_calls\":[" frags "]}", "null")
#define HEAD(i, id) "{\"index\":" #i ",\"id\":\"" id "\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}"
#define ARGS(i, a) "{\"index\":" #i ",\"function\":{\"arguments\":\"" a "\"}}"
#define ARGS_OK "{\\\"city\\\":\\\"Paris\\\"}"

#define COMPLETION(content, fr)                                                                   \
  "{\"id\":\"c\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0," \
  "\"message\":{\"role\":\"assistant\",\"content\":" content ",\"refusal\":null},\"logprobs\":null," \
  "\"finish_reason\":\"" fr "\"}],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}"

#define X_STREAM(req, body) { "POST", "/v1/chat/completions", req, 200, H_SSE, body, 0, NULL, 0, 0 }
#define X_JSON(req, status, body) { "POST", "/v1/chat/completions", req, status, H_JSON, body, 0, NULL, 0, 0 }

/* Every model's verdict, last year's majors' too. */
static void verdicts_of(const struct rt_ex *x, struct oc_client_verdict *v)
{
  struct oc_findings f;
  rt_clients = OC_CLIENTS_EVERY;
  rt_analyze_v(x, "openai", 0, &f, v);
  rt_clients = OC_CLIENTS_DEFAULT;
  oc_findings_free(&f);
}

/* ---- openai-python: the published facts --------------------------------------- */

enum { PY = OC_CLIENT_OPENAI_PYTHON, PYS = OC_CLIENT_OPENAI_PYTHON_STREAM };

struct fact {
  const char *what;
  struct rt_ex x;
  int client;
  enum oc_client_outcome outcome;
  int works;
  const char *reason;      /* a substring of the verdict's reason, or NULL */
  int limitation;
};

static const struct fact py_facts[] = {
  /* a leading BOM is not stripped: the first line is "\uFEFFdata: …" */
  { "BOM: the first event is dropped",
    X_STREAM(REQ_STREAM, "\xEF\xBB\xBF" CH("{\"role\":\"assistant\",\"content\":\"Hel\"}", "null") TEXT("lo")
                         FIN("stop") DONE), PY, OC_CO_WRONG, 0, "content \"lo\" (expected \"Hello\")", 0 },
  { "BOM: the stream helper loses it too",
    X_STREAM(REQ_STREAM, "\xEF\xBB\xBF" CH("{\"role\":\"assistant\",\"content\":\"Hel\"}", "null") TEXT("lo")
                         FIN("stop") DONE), PYS, OC_CO_WRONG, 0, "content \"lo\"", 0 },
  /* measured with the real SDK 1.109: a first event carrying only the
   * role is dropped the same way; the application never gets a role */
  { "BOM: a role-only first event is dropped",
    X_STREAM(REQ_STREAM, "\xEF\xBB\xBF" ROLE TEXT("Hello") FIN("stop") DONE), PY, OC_CO_WRONG, 0,
    "role", 0 },
  { "BOM: the stream helper never gets the role either",
    X_STREAM(REQ_STREAM, "\xEF\xBB\xBF" ROLE TEXT("Hello") FIN("stop") DONE), PYS, OC_CO_WRONG, 0,
    "role", 0 },
  /* response.json() is json.loads on the bytes: strict UTF-8 */
  { "a body that is not UTF-8: UnicodeDecodeError",
    X_JSON(REQ_CHAT, 200, COMPLETION("\"caf\xE9\"", "stop")), PY, OC_CO_RAISES, 0, "UnicodeDecodeError", 0 },
  /* the stream helper raises for any choice that ends in length */
  { "LengthFinishReasonError without tools or response_format",
    X_STREAM(REQ_STREAM, ROLE TEXT("Hello") FIN("length") DONE), PYS, OC_CO_RAISES, 0,
    "LengthFinishReasonError", 1 },
  { "create() iterated by hand does not care", X_STREAM(REQ_STREAM, ROLE TEXT("Hello") FIN("length") DONE), PY,
    OC_CO_OK, 1, NULL, 0 },
  { "ContentFilterFinishReasonError",
    X_STREAM(REQ_STREAM, ROLE TEXT("Hello") FIN("content_filter") DONE), PYS, OC_CO_RAISES, 0,
    "ContentFilterFinishReasonError", 1 },
  /* accumulate_delta joins every repeated string */
  { "a repeated role is concatenated",
    X_STREAM(REQ_STREAM, ROLE CH("{\"role\":\"assistant\",\"content\":\"Hello\"}", "null") FIN("stop") DONE), PYS,
    OC_CO_WRONG, 0, "role \"assistantassistant\"", 0 },
  { "a repeated id is concatenated",
    X_STREAM(REQ_TOOLS_STREAM, ROLE TC(HEAD(0, "call_1")) TC("{\"index\":0,\"id\":\"call_1\",\"function\":{"
                                      "\"arguments\":\"" ARGS_OK "\"}}") FIN("tool_calls") DONE), PYS,
    OC_CO_WRONG, 0, "\"call_1call_1\"", 0 },
  { "a repeated name is concatenated",
    X_STREAM(REQ_TOOLS_STREAM, ROLE TC(HEAD(0, "call_1")) TC("{\"index\":0,\"function\":{\"name\":\"get_weather\","
                                      "\"arguments\":\"" ARGS_OK "\"}}") FIN("tool_calls") DONE), PYS,
    OC_CO_WRONG, 0, "\"get_weatherget_weather\"", 0 },
  { "a first fragment without index: TypeError",
    X_STREAM(REQ_TOOLS_STREAM, ROLE TC("{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":"
                                      "\"get_weather\",\"arguments\":\"" ARGS_OK "\"}}") FIN("tool_calls") DONE),
    PYS, OC_CO_RAISES, 0, "TypeError", 0 },
  { "a later fragment without index: RuntimeError",
    X_STREAM(REQ_TOOLS_STREAM, ROLE TC(HEAD(0, "call_1")) TC("{\"function\":{\"arguments\":\"" ARGS_OK "\"}}")
                               FIN("tool_calls") DONE), PYS, OC_CO_RAISES, 0, "RuntimeError", 0 },
  { "a first tool-call index of 1: IndexError",
    X_STREAM(REQ_TOOLS_STREAM, ROLE TC(HEAD(1, "call_1")) TC(ARGS(1, ARGS_OK)) FIN("tool_calls") DONE), PYS,
    OC_CO_RAISES, 0, "IndexError", 0 },
  { "a first choice index of 1: IndexError",
    X_STREAM(REQ_STREAM, CK("{\"index\":1,\"delta\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"finish_reason\":null}")
                         CK("{\"index\":1,\"delta\":{},\"finish_reason\":\"stop\"}") DONE), PYS, OC_CO_RAISES, 0,
    "IndexError", 0 },
  /* _is_valid_chat_completion_chunk_weak */
  { "a chunk whose object is not chat.completion.chunk is dropped",
    X_STREAM(REQ_STREAM, ROLE CKO("chat.completion", "{\"index\":0,\"delta\":{\"content\":\"Hel\"},\"finish_reason\":null}")
                         TEXT("lo") FIN("stop") DONE), PYS, OC_CO_WRONG, 0, "content \"lo\"", 0 },
  { "create() keeps it", X_STREAM(REQ_STREAM, ROLE CKO("chat.completion", "{\"index\":0,\"delta\":{\"content\":"
                                                        "\"Hel\"},\"finish_reason\":null}") TEXT("lo") FIN("stop") DONE),
    PY, OC_CO_OK, 1, NULL, 0 },
  /* parse() validates as pydantic does: lax */
  { "parse() coerces \"36\" to 36", X_JSON(REQ_SCHEMA, 200, COMPLETION("\"{\\\"age\\\": \\\"36\\\"}\"", "stop")), PY,
    OC_CO_OK, 1, NULL, 0 },
  { "parse() ignores extra members", X_JSON(REQ_SCHEMA, 200, COMPLETION("\"{\\\"age\\\": 36, \\\"x\\\": 1}\"", "stop")),
    PY, OC_CO_OK, 1, NULL, 0 },
  { "parse() refuses \"abc\" for an integer", X_JSON(REQ_SCHEMA, 200, COMPLETION("\"{\\\"age\\\": \\\"abc\\\"}\"", "stop")),
    PY, OC_CO_RAISES, 0, "ValidationError", 0 },
  { "parse() refuses prose", X_JSON(REQ_SCHEMA, 200, COMPLETION("\"Sure: 36\"", "stop")), PY, OC_CO_RAISES, 0,
    "ValidationError", 0 },
  { "parse() raises on length", X_JSON(REQ_SCHEMA, 200, COMPLETION("\"{\\\"age\\\": 3\"", "length")), PY,
    OC_CO_RAISES, 0, "LengthFinishReasonError", 1 },
  /* SSE whatever the content type */
  { "SSE decoded despite application/json",
    { "POST", "/v1/chat/completions", REQ_STREAM, 200, H_JSON, CLEAN, 0, NULL, 0, 0 }, PY, OC_CO_OK, 1, NULL, 0 },
  { "SSE decoded despite application/json (stream helper)",
    { "POST", "/v1/chat/completions", REQ_STREAM, 200, H_JSON, CLEAN, 0, NULL, 0, 0 }, PYS, OC_CO_OK, 1, NULL, 0 },
  /* a 200 error body is a ChatCompletion without choices */
  { "200 {\"error\": …}: no error reaches the application",
    X_JSON(REQ_CHAT, 200, "{\"error\":\"Unexpected endpoint or method.\"}"), PY, OC_CO_WRONG, 0,
    "no error reached the application", 0 },
  /* 5xx: two retries, then the status error with the body */
  { "500 raised after two retries, the message kept",
    X_JSON(REQ_CHAT, 500, "{\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}"), PY, OC_CO_RAISES, 1,
    "after 2 retries", 0 },
  { "400 raised at once", X_JSON(REQ_CHAT, 400, "{\"error\":{\"message\":\"bad\",\"type\":\"invalid_request_error\"}}"),
    PY, OC_CO_RAISES, 1, "Error code: 400", 0 },
  /* F09: after an id: field every blank line dispatches an event */
  { "a keep-alive after an id: field: JSONDecodeError",
    X_STREAM(REQ_STREAM, "id: 1\n" ROLE ": ping\n\n" TEXT("Hello") FIN("stop") DONE), PY, OC_CO_RAISES, 0,
    "JSONDecodeError", 0 },
  { "a keep-alive without an id is fine", X_STREAM(REQ_STREAM, ROLE ": ping\n\n" TEXT("Hello") FIN("stop") DONE), PY,
    OC_CO_OK, 1, NULL, 0 },
  /* in-band errors: error.message, else a fixed text */
  { "an in-band error keeps error.message",
    X_STREAM(REQ_STREAM, ROLE "data: {\"error\":{\"message\":\"boom\"}}\n\n" DONE), PY, OC_CO_RAISES, 1, "boom", 0 },
  { "an in-band error as a string loses it", X_STREAM(REQ_STREAM, ROLE "data: {\"error\":\"boom\"}\n\n" DONE), PY,
    OC_CO_RAISES, 0, "An error occurred during streaming", 0 },
  /* every line is decoded strictly */
  { "bytes that are not UTF-8: UnicodeDecodeError",
    X_STREAM(REQ_STREAM, ROLE CH("{\"content\":\"H\xC3\"}", "null") FIN("stop") DONE), PY, OC_CO_RAISES, 0,
    "UnicodeDecodeError", 0 },
  { "the helper is for streams only", X_JSON(REQ_CHAT, 200, COMPLETION("\"Hi\"", "stop")), PYS,
    OC_CO_NOT_EXERCISED, -1, NULL, 0 },
};

START_TEST(openai_python_facts)
{
  const struct fact *t = &py_facts[_i];
  struct oc_client_verdict v[OC_CLIENT__COUNT];
  verdicts_of(&t->x, v);
  const struct oc_client_verdict *g = &v[t->client];
  ck_assert_msg(g->outcome == t->outcome && g->works == t->works,
                "%s (%s): got %s works=%d (%s), expected %s works=%d", t->what,
                oc_client_name((enum oc_client_id)t->client), oc_client_outcome_name(g->outcome), g->works,
                g->reason, oc_client_outcome_name(t->outcome), t->works);
  if(t->reason)
    ck_assert_msg(strstr(g->reason, t->reason) != NULL, "%s: reason '%s' lacks '%s'", t->what, g->reason,
                  t->reason);
  ck_assert_msg(g->limitation == t->limitation, "%s: limitation %d, expected %d", t->what, g->limitation,
                t->limitation);
  ck_assert_msg(oc_client_basis((enum oc_client_id)t->client) == OC_BASIS_EMULATED, "python is emulated");
}
END_TEST

/* A clean stream and a clean completion break no client. */
START_TEST(clean_answers_break_nothing)
{
  const struct rt_ex xs[] = {
    X_STREAM(REQ_STREAM, CLEAN), X_JSON(REQ_CHAT, 200, COMPLETION("\"Hello\"", "stop")),
    X_STREAM(REQ_TOOLS_STREAM, ROLE TC(HEAD(0, "call_1")) TC(ARGS(0, ARGS_OK)) FIN("tool_calls") DONE),
    X_JSON(REQ_SCHEMA, 200, COMPLETION("\"{\\\"age\\\": 36}\"", "stop")),
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(xs); i++) {
    struct oc_client_verdict v[OC_CLIENT__COUNT];
    verdicts_of(&xs[i], v);
    for(int c = 0; c < OC_CLIENT__COUNT; c++)
      ck_assert_msg(!oc_client_broken(&v[c]), "exchange %zu: %s breaks: %s", i,
                    oc_client_name((enum oc_client_id)c), v[c].reason);
  }
}
END_TEST

/* A client that returns what the server sent is faithful, but a stream
 * the server ended without a finish_reason, returned as if whole, and
 * tool-call arguments that are not a JSON object, handed on as they came,
 * leave the application an answer it cannot trust or use: ok, and the
 * server's fault (issue 25), with the server's rule named. */
START_TEST(server_fault_when_the_answer_is_cut_or_unusable)
{
  struct oc_client_verdict v[OC_CLIENT__COUNT];
  /* cut: no finish_reason, no [DONE], the connection closed cleanly */
  struct rt_ex cut = X_STREAM(REQ_STREAM, ROLE TEXT("Hel"));
  verdicts_of(&cut, v);
  static const int faithful[] = { OC_CLIENT_OPENAI_NODE, OC_CLIENT_OPENAI_PYTHON };
  for(size_t k = 0; k < OC_ARRAY_LEN(faithful); k++) {
    const struct oc_client_verdict *c = &v[faithful[k]];
    ck_assert_msg(c->outcome == OC_CO_OK && c->works == 1 && oc_client_server_fault(c),
                  "%s on a cut stream: %s fault=%d", oc_client_name((enum oc_client_id)faithful[k]), c->reason,
                  c->server_fault);
    ck_assert_msg(strstr(c->reason, "without a finish_reason and without [DONE]"), "%s", c->reason);
    ck_assert_int_eq(c->nrules, 1);
    ck_assert_int_eq(c->rules[0], OC_R_STREAM_FINISH_ONCE);
  }
  /* a break is a break, not a fault */
  ck_assert(oc_client_broken(&v[OC_CLIENT_OPENAI_NODE_STREAM]) && !v[OC_CLIENT_OPENAI_NODE_STREAM].server_fault);
  /* arguments that are not a JSON object: a list, then broken JSON */
  const struct rt_ex bad[] = {
    X_STREAM(REQ_TOOLS_STREAM, ROLE TC(HEAD(0, "call_1")) TC(ARGS(0, "[1]")) FIN("tool_calls") DONE),
    X_STREAM(REQ_TOOLS_STREAM, ROLE TC(HEAD(0, "call_1")) TC(ARGS(0, "{\\\"city\\\":")) FIN("tool_calls") DONE),
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(bad); i++) {
    verdicts_of(&bad[i], v);
    const struct oc_client_verdict *c = &v[OC_CLIENT_OPENAI_NODE];
    ck_assert_msg(c->outcome == OC_CO_OK && oc_client_server_fault(c), "args %zu: %s", i, c->reason);
    ck_assert_msg(strstr(c->reason, "not a JSON object"), "%s", c->reason);
    ck_assert_int_eq(c->rules[0], OC_R_TOOL_ARGS_JSON);
  }
  /* clean answers, streamed and not, are no fault; a non-streamed body
   * is whole whatever its finish_reason says */
  const struct rt_ex clean[] = {
    X_STREAM(REQ_STREAM, CLEAN),
    X_STREAM(REQ_TOOLS_STREAM, ROLE TC(HEAD(0, "call_1")) TC(ARGS(0, ARGS_OK)) FIN("tool_calls") DONE),
    X_JSON(REQ_CHAT, 200, COMPLETION("\"Hello\"", "stop")),
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(clean); i++) {
    verdicts_of(&clean[i], v);
    for(int c = 0; c < OC_CLIENT__COUNT; c++)
      ck_assert_msg(!v[c].server_fault, "clean %zu: %s: %s", i, oc_client_name((enum oc_client_id)c), v[c].reason);
  }
}
END_TEST

/* ---- the facts measured with the real Node clients ------------------------------- */

static int outcome_of(const char *s)
{
  for(int o = OC_CO_OK; o <= OC_CO_NOT_EXERCISED; o++)
    if(strcmp(s, oc_client_outcome_name((enum oc_client_outcome)o)) == 0)
      return o;
  return -1;
}

START_TEST(crafted_facts_hold)
{
  const char *src = getenv("OACHECK_SRCDIR");
  char *dir = oc_asprintf("%s/tests/data/crafted/clients", src && *src ? src : ".");
  char *file = oc_path_join(dir, "oracle-expect.json");
  char err[512];
  cJSON *facts = oc_json_parse_file(file, err, sizeof(err));
  ck_assert_msg(facts != NULL, "%s", err);
  struct oc_cassette_store store;
  oc_cassette_store_init(&store);
  const char *dirs[] = { dir };
  ck_assert_int_eq(oc_cassette_store_load(&store, dirs, 1, NULL, NULL), OC_OK);
  size_t checked = 0;
  const cJSON *f;
  cJSON_ArrayForEach(f, facts)
  {
    const char *name = oc_json_str(f, "name"), *client = oc_json_str(f, "client");
    const char *outcome = oc_json_str(f, "outcome"), *reason = oc_json_str(f, "reason");
    const struct oc_cassette *c = oc_cassette_store_find_name(&store, name);
    int ci = oc_client_find(client);
    ck_assert_msg(c && ci >= 0 && outcome, "%s: %s %s is not a recording and a client", file, name, client);
    struct rt_ex x = { c->method, c->path, c->req_body, c->status, NULL, c->body, c->body_len, NULL, 0, 0 };
    struct oc_buf h;
    oc_buf_init(&h, 1u << 16);
    for(size_t k = 0; k < c->headers.count; k++)
      oc_buf_printf(&h, "%s: %s\n", c->headers.items[k].name, c->headers.items[k].value);
    x.headers = oc_buf_str(&h);
    struct oc_client_verdict v[OC_CLIENT__COUNT];
    verdicts_of(&x, v);
    oc_buf_free(&h);
    const struct oc_client_verdict *g = &v[ci];
    ck_assert_msg((int)g->outcome == outcome_of(outcome), "%s on %s (%s): %s, the real client %s: %s", client, name,
                  oc_json_str(f, "fact"), oc_client_outcome_name(g->outcome), outcome, g->reason);
    const cJSON *works = oc_json_get(f, "works");
    if(cJSON_IsBool(works))
      ck_assert_msg(g->works == cJSON_IsTrue(works), "%s on %s: works %d", client, name, g->works);
    /* the judge words a wrong answer as judge.mjs does */
    if(reason && g->outcome == OC_CO_WRONG) {
      /* oracle-expect.json's patterns are JavaScript's: ECMA-262 */
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
  ck_assert_uint_ge(checked, 20);
  oc_cassette_store_free(&store);
  cJSON_Delete(facts);
  free(file);
  free(dir);
}
END_TEST

/* ---- last year's majors --------------------------------------------------------- */

/* Each previous major differs from its successor where the oracle
 * measured it (docs/clients.md), and on the same exchange: the pair's
 * verdicts side by side. */
START_TEST(previous_majors_differ)
{
#define REQ_REQUIRED "{" MSGS ",\"tools\":[" TOOL "],\"tool_choice\":\"required\"}"
#define REQ_SCHEMA_STREAM "{" MSGS ",\"stream\":true,\"response_format\":{\"type\":\"json_schema\"," \
  "\"json_schema\":{\"name\":\"p\",\"schema\":" SCHEMA_AGE "}}}"
  static const struct {
    const char *what;
    struct rt_ex x;
    int today, previous;
    enum oc_client_outcome today_outcome, previous_outcome;
    int today_works, previous_works;
  } d[] = {
    /* vLLM's and SGLang's flat envelope: openai 7 wraps it and keeps the
     * message; openai 6 (and 5 under LangChain 0.6) reads only `error` */
    { "a flat error envelope",
      X_JSON(REQ_CHAT, 404, "{\"object\":\"error\",\"message\":\"The model `x` does not exist.\","
                            "\"type\":\"NotFoundError\",\"param\":null,\"code\":404}"),
      OC_CLIENT_OPENAI_NODE, OC_CLIENT_OPENAI_NODE_6, OC_CO_RAISES, OC_CO_RAISES, 1, 0 },
    { "a flat error envelope (LangChain)",
      X_JSON(REQ_CHAT, 404, "{\"object\":\"error\",\"message\":\"The model `x` does not exist.\","
                            "\"type\":\"NotFoundError\",\"param\":null,\"code\":404}"),
      OC_CLIENT_LANGCHAIN, OC_CLIENT_LANGCHAIN_0_6, OC_CO_RAISES, OC_CO_RAISES, 1, 0 },
    /* an index-less tool-call fragment: 7 throws, 6 loses it */
    { "an index-less tool call",
      X_STREAM(REQ_TOOLS_STREAM, ROLE TC("{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":"
                                         "\"get_weather\",\"arguments\":\"" ARGS_OK "\"}}")
                                 FIN("tool_calls") DONE),
      OC_CLIENT_OPENAI_NODE_STREAM, OC_CLIENT_OPENAI_NODE_STREAM_6, OC_CO_RAISES, OC_CO_WRONG, 0, 0 },
    /* a json_schema answer cut by max_tokens: auto-parseable in 7 only */
    { "a json_schema answer cut by the length limit",
      X_STREAM(REQ_SCHEMA_STREAM, ROLE TEXT("{\\\"ag") FIN("length") DONE),
      OC_CLIENT_OPENAI_NODE_STREAM, OC_CLIENT_OPENAI_NODE_STREAM_6, OC_CO_RAISES, OC_CO_OK, 0, 1 },
    /* ai 7 enforces a required tool choice; ai 5 hands the text over */
    { "a required tool choice answered with text",
      X_JSON(REQ_REQUIRED, 200, COMPLETION("\"Sunny.\"", "stop")),
      OC_CLIENT_AI_SDK, OC_CLIENT_AI_SDK_5, OC_CO_RAISES, OC_CO_OK, 0, 1 },
    /* ai 7 raises on a stream that never says why it stopped */
    { "a stream without a finish reason",
      X_STREAM(REQ_STREAM, ROLE TEXT("Hello") DONE),
      OC_CLIENT_AI_SDK, OC_CLIENT_AI_SDK_5, OC_CO_RAISES, OC_CO_OK, 0, 1 },
    /* a refusal: ai 7 shows it as the answer's text, ai 5 drops it (both
     * wrong, each its own way) */
    { "a refusal",
      X_STREAM(REQ_STREAM, ROLE CH("{\"refusal\":\"No.\"}", "null") FIN("stop") DONE),
      OC_CLIENT_AI_SDK, OC_CLIENT_AI_SDK_5, OC_CO_WRONG, OC_CO_WRONG, 0, 0 },
  };
#undef REQ_REQUIRED
#undef REQ_SCHEMA_STREAM
  for(size_t i = 0; i < OC_ARRAY_LEN(d); i++) {
    struct oc_client_verdict v[OC_CLIENT__COUNT];
    verdicts_of(&d[i].x, v);
    const struct oc_client_verdict *t = &v[d[i].today], *p = &v[d[i].previous];
    ck_assert_msg(t->modelled && p->modelled, "%s: both modelled", d[i].what);
    ck_assert_msg(t->outcome == d[i].today_outcome && t->works == d[i].today_works,
                  "%s: %s %s works=%d (%s)", d[i].what, oc_client_name((enum oc_client_id)d[i].today),
                  oc_client_outcome_name(t->outcome), t->works, t->reason);
    ck_assert_msg(p->outcome == d[i].previous_outcome && p->works == d[i].previous_works,
                  "%s: %s %s works=%d (%s)", d[i].what, oc_client_name((enum oc_client_id)d[i].previous),
                  oc_client_outcome_name(p->outcome), p->works, p->reason);
  }
  /* the refusal: ai 5 drops it, which is its limitation (OpenAI's own
   * refusals break it too), and says so */
  struct rt_ex x = X_STREAM(REQ_STREAM, ROLE CH("{\"refusal\":\"No.\"}", "null") FIN("stop") DONE);
  struct oc_client_verdict v[OC_CLIENT__COUNT];
  verdicts_of(&x, v);
  ck_assert_ptr_nonnull(strstr(v[OC_CLIENT_AI_SDK_5].reason, "refusal dropped"));
  ck_assert_int_eq(v[OC_CLIENT_AI_SDK_5].limitation, 1);
  /* LangChain 0.6 reads no reasoning field at all */
  struct rt_ex r = X_STREAM(REQ_STREAM, ROLE CH("{\"reasoning_content\":\"Hm.\"}", "null") TEXT("Hi")
                                          FIN("stop") DONE);
  verdicts_of(&r, v);
  ck_assert_int_eq(v[OC_CLIENT_LANGCHAIN].reasoning, OC_CR_SEEN);
  ck_assert_int_eq(v[OC_CLIENT_LANGCHAIN_0_6].reasoning, OC_CR_HIDDEN);
}
END_TEST

/* Unselected, a previous major is not modelled: no verdict, and nothing
 * of it in the results. */
START_TEST(previous_majors_only_when_selected)
{
  struct rt_ex x = X_STREAM(REQ_STREAM, CLEAN);
  struct oc_findings f;
  struct oc_client_verdict v[OC_CLIENT__COUNT];
  rt_analyze_v(&x, "openai", 0, &f, v);
  oc_findings_free(&f);
  for(int c = 0; c < OC_CLIENT__COUNT; c++)
    ck_assert_int_eq(v[c].modelled, c < OC_CLIENT__TODAY);
  cJSON *j = oc_clients_json(v);
  ck_assert_int_eq(cJSON_GetArraySize(j), OC_CLIENT__TODAY);
  ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(j, "ai-sdk@5"));
  cJSON_Delete(j);
  rt_clients = OC_CLIENTS_DEFAULT | (1u << OC_CLIENT_AI_SDK_5);
  rt_analyze_v(&x, "openai", 0, &f, v);
  rt_clients = OC_CLIENTS_DEFAULT;
  oc_findings_free(&f);
  ck_assert_int_eq(v[OC_CLIENT_AI_SDK_5].modelled, 1);
  ck_assert_int_eq(v[OC_CLIENT_LANGCHAIN_0_6].modelled, 0);
  j = oc_clients_json(v);
  ck_assert_int_eq(cJSON_GetArraySize(j), OC_CLIENT__TODAY + 1);
  ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                     cJSON_GetObjectItemCaseSensitive(j, "ai-sdk@5"), "outcome")), "ok");
  cJSON_Delete(j);
}
END_TEST

/* ---- limitations ------------------------------------------------------------------ */

/* Every row of the limitation table that cites an OpenAI recording is
 * shown by it: the model breaks there, for that cause. */
START_TEST(limitations_have_evidence)
{
  const char *src = getenv("OACHECK_SRCDIR");
  char *dir = oc_asprintf("%s/tests/data/recordings/openai", src && *src ? src : ".");
  struct oc_cassette_store store;
  oc_cassette_store_init(&store);
  const char *dirs[] = { dir };
  ck_assert_int_eq(oc_cassette_store_load(&store, dirs, 1, NULL, NULL), OC_OK);
  size_t shown = 0;
  for(size_t i = 0; i < oc_client_nlimitations; i++) {
    const struct oc_client_limitation *l = &oc_client_limitations[i];
    ck_assert_ptr_eq(oc_client_limitation(l->client, l->cause), l);
    if(!l->evidence)
      continue;
    const struct oc_cassette *c = oc_cassette_store_find_name(&store, l->evidence);
    ck_assert_msg(c != NULL, "%s: no OpenAI recording %s", oc_client_name(l->client), l->evidence);
    struct rt_ex x = { c->method, c->path, c->req_body, c->status, H_JSON, c->body, c->body_len, NULL, 0, 0 };
    const char *ct = oc_headers_get(&c->headers, "Content-Type");
    char hdr[200];
    snprintf(hdr, sizeof(hdr), "Content-Type: %s", ct ? ct : "application/json");
    x.headers = hdr;
    struct oc_client_verdict v[OC_CLIENT__COUNT];
    verdicts_of(&x, v);
    const struct oc_client_verdict *g = &v[l->client];
    ck_assert_msg(oc_client_broken(g) && g->cause == l->cause && g->limitation,
                  "%s on openai/%s: %s works=%d cause=%s limitation=%d (%s), expected a break for %s",
                  oc_client_name(l->client), l->evidence, oc_client_outcome_name(g->outcome), g->works,
                  oc_client_cause_name(g->cause), g->limitation, g->reason, oc_client_cause_name(l->cause));
    shown++;
  }
  ck_assert_uint_ge(shown, 8);
  oc_cassette_store_free(&store);
  free(dir);
}
END_TEST

/* A server fault is never a limitation: the same client breaking for a
 * reason the server owns fails the case. */
START_TEST(server_faults_are_no_limitation)
{
  /* choices mixed without n>1 having been asked for */
  struct rt_ex x = X_STREAM(REQ_STREAM, ROLE CK("{\"index\":1,\"delta\":{\"content\":\"B\"},\"finish_reason\":null}")
                                        TEXT("A") FIN("stop") DONE);
  struct oc_client_verdict v[OC_CLIENT__COUNT];
  verdicts_of(&x, v);
  ck_assert_msg(oc_client_broken(&v[OC_CLIENT_AI_SDK]) && !v[OC_CLIENT_AI_SDK].limitation,
                "ai-sdk: %s limitation=%d", v[OC_CLIENT_AI_SDK].reason, v[OC_CLIENT_AI_SDK].limitation);
  /* the same with n:2 requested is the client's limitation */
  struct rt_ex y = X_STREAM("{" MSGS ",\"stream\":true,\"n\":2}",
                            ROLE CK("{\"index\":1,\"delta\":{\"role\":\"assistant\",\"content\":\"B\"},\"finish_reason\":null}")
                            TEXT("A") FIN("stop") CK("{\"index\":1,\"delta\":{},\"finish_reason\":\"stop\"}") DONE);
  verdicts_of(&y, v);
  ck_assert_msg(oc_client_broken(&v[OC_CLIENT_AI_SDK]) && v[OC_CLIENT_AI_SDK].limitation &&
                v[OC_CLIENT_AI_SDK].cause == OC_CAUSE_N, "ai-sdk on n:2: %s", v[OC_CLIENT_AI_SDK].reason);
  ck_assert_msg(oc_client_broken(&v[OC_CLIENT_LANGCHAIN]) && v[OC_CLIENT_LANGCHAIN].limitation,
                "langchain on n:2: %s", v[OC_CLIENT_LANGCHAIN].reason);
  ck_assert_msg(!oc_client_broken(&v[OC_CLIENT_OPENAI_NODE_STREAM]), "openai-node-stream on n:2: %s",
                v[OC_CLIENT_OPENAI_NODE_STREAM].reason);
}
END_TEST

/* ---- the checklist rows and the matrix ------------------------------------------- */

static struct oc_request_info *info_of(const char *body, cJSON **keep)
{
  static struct oc_request_info info;
  *keep = cJSON_Parse(body);
  ck_assert_ptr_nonnull(*keep);
  oc_request_info_init(&info, "POST", "/v1/chat/completions", *keep);
  return &info;
}

START_TEST(checklist_rows)
{
  static const struct {
    const char *suite, *tag, *body;
    int row;
    int expects_error;
  } v[] = {
    { "mine", NULL, "{\"messages\":[]}", OC_ROW_PLAIN, 0 },
    /* a case expecting a refusal (plain/unknown-model) says nothing of
     * plain answers: it is in the errors row, unless a tag says otherwise */
    { "plain", NULL, "{\"model\":\"some-other-name\",\"messages\":[]}", OC_ROW_ERRORS, 1 },
    { "mine", NULL, "{\"messages\":[],\"stream\":true}", OC_ROW_ERRORS, 1 },
    { "mine", "checklist:streaming", "{\"messages\":[],\"stream\":true}", OC_ROW_STREAMING, 1 },
    { "mine", NULL, "{\"messages\":[],\"stream\":true}", OC_ROW_STREAMING, 0 },
    { "mine", NULL, "{\"messages\":[],\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]}",
      OC_ROW_TOOL_CALL, 0 },
    { "mine", NULL, "{\"messages\":[],\"stream\":true,\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]}",
      OC_ROW_TOOL_CALL_STREAM, 0 },
    { "mine", NULL, "{\"messages\":[],\"stream\":true,\"response_format\":{\"type\":\"json_object\"}}",
      OC_ROW_JSON_SCHEMA, 0 },
    /* the suite decides before the request, a tag before the suite */
    { "errors", NULL, "{\"messages\":[],\"stream\":true}", OC_ROW_ERRORS, 0 },
    { "context-overflow", NULL, "{\"messages\":[]}", OC_ROW_CONTEXT_OVERFLOW, 0 },
    { "errors", "checklist:plain", "{\"messages\":[]}", OC_ROW_PLAIN, 0 },
    { "mine", "checklist:nonsense", "{\"messages\":[]}", -1, 0 },
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(v); i++) {
    cJSON *keep;
    const char *tags[1] = { v[i].tag };
    int row = oc_row_of(v[i].suite, tags, v[i].tag ? 1 : 0, v[i].expects_error, info_of(v[i].body, &keep));
    ck_assert_msg(row == v[i].row, "case %zu: row %d, expected %d", i, row, v[i].row);
    cJSON_Delete(keep);
  }
  /* not a chat completion: in no row */
  struct oc_request_info models;
  oc_request_info_init(&models, "GET", "/v1/models", NULL);
  ck_assert_int_eq(oc_row_of("models", NULL, 0, 0, &models), -1);
  ck_assert_int_eq(oc_row_of("models", NULL, 0, 1, &models), -1);
  for(int r = 0; r < OC_ROW__COUNT; r++)
    ck_assert_int_eq(oc_row_find(oc_row_name(r)), r);
}
END_TEST

/* A cell: a break beats a limitation beats works; the reason shown is the
 * first break's; a client no case ran is not exercised; a target on which
 * no client ran has no matrix. */
static const char matrix_doc[] =
  "{\"targets\": [{\"name\": \"a\"}, {\"name\": \"b\"}], \"results\": ["
  "{\"target\": \"a\", \"suite\": \"s\", \"case\": \"one\", \"checklist\": \"streaming\", \"clients\": {"
  "  \"ai-sdk\": {\"works\": false, \"outcome\": \"wrong\", \"reason\": \"limit\", \"limitation\": true},"
  "  \"langchain\": {\"works\": true, \"outcome\": \"ok\"},"
  "  \"openai-node-stream\": {\"works\": null, \"outcome\": \"not-exercised\"}}},"
  "{\"target\": \"a\", \"suite\": \"s\", \"case\": \"two\", \"checklist\": \"streaming\", \"clients\": {"
  "  \"ai-sdk\": {\"works\": false, \"outcome\": \"raises\", \"reason\": \"first break\", \"limitation\": false},"
  "  \"langchain\": {\"works\": false, \"outcome\": \"raises\", \"reason\": \"its own\", \"limitation\": true}}},"
  "{\"target\": \"a\", \"suite\": \"s\", \"case\": \"three\", \"checklist\": \"streaming\", \"clients\": {"
  "  \"ai-sdk\": {\"works\": false, \"outcome\": \"raises\", \"reason\": \"second break\"}}},"
  "{\"target\": \"a\", \"suite\": \"s\", \"case\": \"norow\", \"clients\": {"
  "  \"openai-node\": {\"works\": false, \"outcome\": \"raises\", \"reason\": \"x\"}}},"
  "{\"target\": \"b\", \"suite\": \"s\", \"case\": \"skipped\", \"checklist\": \"plain\"}]}";

/* The matrix of a results document whose one target with a matrix is
 * "a" (*doc and the matrix the caller's to free). */
static struct oc_matrix *matrix_of_a(const char *text, cJSON **doc, size_t *n)
{
  *doc = cJSON_Parse(text);
  ck_assert_ptr_nonnull(*doc);
  struct oc_matrix *m;
  ck_assert_int_eq(oc_matrix_build(*doc, &m, n), OC_OK);
  ck_assert_uint_eq(*n, 1);
  ck_assert_str_eq(m[0].target, "a");
  return m;
}

START_TEST(matrix_cells)
{
  cJSON *doc;
  size_t n;
  struct oc_matrix *m = matrix_of_a(matrix_doc, &doc, &n);
  const struct oc_cell *ai = &m[0].cells[OC_ROW_STREAMING][OC_CLIENT_AI_SDK];
  ck_assert_int_eq(ai->state, OC_CELL_BREAKS);
  ck_assert_str_eq(ai->reason, "first break");
  ck_assert_str_eq(ai->kase, "two");
  ck_assert_int_eq(ai->result_index, 1);
  ck_assert_int_eq(ai->breaks, 2);
  ck_assert_int_eq(ai->limits, 1);
  const struct oc_cell *lc = &m[0].cells[OC_ROW_STREAMING][OC_CLIENT_LANGCHAIN];
  ck_assert_int_eq(lc->state, OC_CELL_LIMITATION);
  ck_assert_str_eq(lc->reason, "its own");
  ck_assert_int_eq(m[0].cells[OC_ROW_STREAMING][OC_CLIENT_OPENAI_NODE_STREAM].state, OC_CELL_NOT_EXERCISED);
  /* a case in no row shows nowhere */
  for(int r = 0; r < OC_ROW__COUNT; r++)
    ck_assert_int_eq(m[0].cells[r][OC_CLIENT_OPENAI_NODE].state, OC_CELL_NOT_EXERCISED);
  oc_matrix_free(m, n);
  cJSON_Delete(doc);
}
END_TEST

/* A server fault is its own cell: a break outranks it, it outranks an
 * error and a limitation, and its first case gives the reason. */
static const char matrix_fault_doc[] =
  "{\"targets\": [{\"name\": \"a\"}], \"results\": ["
  "{\"target\": \"a\", \"suite\": \"s\", \"case\": \"lim\", \"checklist\": \"streaming\", \"clients\": {"
  "  \"ai-sdk\": {\"works\": false, \"outcome\": \"wrong\", \"reason\": \"own\", \"limitation\": true},"
  "  \"langchain\": {\"works\": true, \"outcome\": \"ok\"}}},"
  "{\"target\": \"a\", \"suite\": \"s\", \"case\": \"cut\", \"checklist\": \"streaming\", \"clients\": {"
  "  \"ai-sdk\": {\"works\": true, \"outcome\": \"ok\", \"server_fault\": true, \"reason\": \"first fault\"},"
  "  \"langchain\": {\"works\": true, \"outcome\": \"ok\", \"server_fault\": true, \"reason\": \"a fault\"},"
  "  \"openai-node\": {\"works\": true, \"outcome\": \"ok\", \"server_fault\": true, \"reason\": \"f\"}}},"
  "{\"target\": \"a\", \"suite\": \"s\", \"case\": \"brk\", \"checklist\": \"streaming\", \"clients\": {"
  "  \"langchain\": {\"works\": false, \"outcome\": \"raises\", \"reason\": \"a break\"}}},"
  "{\"target\": \"a\", \"suite\": \"s\", \"case\": \"err\", \"checklist\": \"streaming\", \"status\": \"error\","
  "  \"reason\": \"timed out\"}]}";

START_TEST(matrix_server_faults)
{
  cJSON *doc;
  size_t n;
  struct oc_matrix *m = matrix_of_a(matrix_fault_doc, &doc, &n);
  const struct oc_cell *ai = &m[0].cells[OC_ROW_STREAMING][OC_CLIENT_AI_SDK];
  ck_assert_int_eq(ai->state, OC_CELL_SERVER_FAULT); /* over its limitation and the error */
  ck_assert_str_eq(ai->reason, "first fault");
  ck_assert_str_eq(ai->kase, "cut");
  ck_assert_int_eq(ai->faults, 1);
  ck_assert_int_eq(ai->works, 0);
  ck_assert_int_eq(m[0].cells[OC_ROW_STREAMING][OC_CLIENT_LANGCHAIN].state, OC_CELL_BREAKS);
  ck_assert_str_eq(m[0].cells[OC_ROW_STREAMING][OC_CLIENT_LANGCHAIN].reason, "a break");
  ck_assert_int_eq(m[0].cells[OC_ROW_STREAMING][OC_CLIENT_OPENAI_NODE].state, OC_CELL_SERVER_FAULT);
  ck_assert_str_eq(oc_cell_state_name(OC_CELL_SERVER_FAULT), "server fault");
  oc_matrix_free(m, n);
  cJSON_Delete(doc);
}
END_TEST

/* ---- reasoning: what each client shows, measured (oracle-expect.json) --- */

/* One streamed answer per shape a server sends reasoning in, and what
 * each client hands the application of it: the field it reads, the
 * stream helper's last fragment, markup left in the answer text. */
START_TEST(reasoning_per_client)
{
#define RC(t) CH("{\"reasoning_content\":\"" t "\"}", "null")
#define RS(t) CH("{\"reasoning\":\"" t "\"}", "null")
  static const struct {
    const char *what, *body;
    /* node, node-stream, ai-sdk, langchain, python, py-stream, agents; then
     * node@6, node-stream@6, ai-sdk@5, langchain@0.6 (which reads neither field) */
    enum oc_client_reasoning r[OC_CLIENT__COUNT];
    int leak;
  } v[] = {
    { "llama-server's reasoning_content", ROLE RC("Think") RC("ing.") TEXT("Hi") FIN("stop") DONE,
      { OC_CR_SEEN, OC_CR_PARTIAL, OC_CR_SEEN, OC_CR_SEEN, OC_CR_SEEN, OC_CR_SEEN, OC_CR_HIDDEN,
        OC_CR_SEEN, OC_CR_PARTIAL, OC_CR_SEEN, OC_CR_HIDDEN }, 0 },
    { "vLLM's reasoning", ROLE RS("Think") RS("ing.") TEXT("Hi") FIN("stop") DONE,
      { OC_CR_SEEN, OC_CR_PARTIAL, OC_CR_SEEN, OC_CR_HIDDEN, OC_CR_SEEN, OC_CR_SEEN, OC_CR_SEEN,
        OC_CR_SEEN, OC_CR_PARTIAL, OC_CR_SEEN, OC_CR_HIDDEN }, 0 },
    { "reasoning_content \"\" beside reasoning",
      ROLE CH("{\"reasoning_content\":\"\",\"reasoning\":\"Thinking.\"}", "null") TEXT("Hi") FIN("stop") DONE,
      { OC_CR_SEEN, OC_CR_SEEN, OC_CR_HIDDEN, OC_CR_HIDDEN, OC_CR_SEEN, OC_CR_SEEN, OC_CR_SEEN,
        OC_CR_SEEN, OC_CR_SEEN, OC_CR_HIDDEN, OC_CR_HIDDEN }, 0 },
    /* the fields change mid-stream: a client in step with the reference
     * parts from it there (client.c keeps the text only from then on) */
    { "reasoning_content, then reasoning", ROLE RC("Think") RS("ing.") TEXT("Hi") FIN("stop") DONE,
      { OC_CR_SEEN, OC_CR_PARTIAL, OC_CR_SEEN, OC_CR_PARTIAL, OC_CR_SEEN, OC_CR_SEEN, OC_CR_PARTIAL,
        OC_CR_SEEN, OC_CR_PARTIAL, OC_CR_SEEN, OC_CR_HIDDEN }, 0 },
    { "reasoning beside \"\", then reasoning_content",
      ROLE CH("{\"reasoning_content\":\"\",\"reasoning\":\"Think\"}", "null") RC("ing.") TEXT("Hi")
      FIN("stop") DONE,
      { OC_CR_SEEN, OC_CR_PARTIAL, OC_CR_PARTIAL, OC_CR_PARTIAL, OC_CR_SEEN, OC_CR_SEEN, OC_CR_PARTIAL,
        OC_CR_SEEN, OC_CR_PARTIAL, OC_CR_PARTIAL, OC_CR_HIDDEN }, 0 },
    { "<think> split across deltas", ROLE TEXT("<thi") TEXT("nk>x</think>Hi") FIN("stop") DONE,
      { OC_CR_NONE, OC_CR_NONE, OC_CR_NONE, OC_CR_NONE, OC_CR_NONE, OC_CR_NONE, OC_CR_NONE,
        OC_CR_NONE, OC_CR_NONE, OC_CR_NONE, OC_CR_NONE }, 1 },
    { "harmony tokens", ROLE TEXT("<|channel|>analysis<|message|>x<|end|>Hi") FIN("stop") DONE,
      { OC_CR_NONE, OC_CR_NONE, OC_CR_NONE, OC_CR_NONE, OC_CR_NONE, OC_CR_NONE, OC_CR_NONE,
        OC_CR_NONE, OC_CR_NONE, OC_CR_NONE, OC_CR_NONE }, 1 },
    { "a plain answer", ROLE TEXT("Hi <b>") FIN("stop") DONE,
      { OC_CR_NONE, OC_CR_NONE, OC_CR_NONE, OC_CR_NONE, OC_CR_NONE, OC_CR_NONE, OC_CR_NONE,
        OC_CR_NONE, OC_CR_NONE, OC_CR_NONE, OC_CR_NONE }, 0 },
  };
#undef RC
#undef RS
  for(size_t i = 0; i < OC_ARRAY_LEN(v); i++) {
    struct rt_ex x = X_STREAM(REQ_STREAM, v[i].body);
    struct oc_client_verdict out[OC_CLIENT__COUNT];
    verdicts_of(&x, out);
    for(int c = 0; c < OC_CLIENT__CHAT; c++) { /* a chat exchange: chat's clients */
      ck_assert_msg(out[c].reasoning == v[i].r[c], "%s: %s shows %s (expected %s)", v[i].what,
                    oc_client_name((enum oc_client_id)c), oc_client_reasoning_name(out[c].reasoning),
                    oc_client_reasoning_name(v[i].r[c]));
      ck_assert_msg(out[c].reasoning_leak == v[i].leak, "%s: %s leak %d", v[i].what,
                    oc_client_name((enum oc_client_id)c), out[c].reasoning_leak);
    }
  }
}
END_TEST

/* The reasoning row: its works/breaks come from the cases tagged
 * checklist:reasoning; what each client reads of the reasoning comes from
 * every case whose answer carried some, whatever its row. */
START_TEST(matrix_reasoning_row)
{
  static const char doc_text[] =
    "{\"targets\": [{\"name\": \"a\"}], \"results\": ["
    "{\"target\": \"a\", \"suite\": \"reasoning\", \"case\": \"field\", \"checklist\": \"reasoning\", \"clients\": {"
    "  \"langchain\": {\"works\": true, \"outcome\": \"ok\", \"reasoning\": \"hidden\", \"reasoning_leak\": false},"
    "  \"ai-sdk\": {\"works\": true, \"outcome\": \"ok\", \"reasoning\": \"seen\", \"reasoning_leak\": false}}},"
    "{\"target\": \"a\", \"suite\": \"streaming\", \"case\": \"s\", \"checklist\": \"streaming\", \"clients\": {"
    "  \"ai-sdk\": {\"works\": true, \"outcome\": \"ok\", \"reasoning\": \"none\", \"reasoning_leak\": true},"
    "  \"openai-node-stream\": {\"works\": true, \"outcome\": \"ok\", \"reasoning\": \"partial\", \"reasoning_leak\": false}}}]}";
  cJSON *doc;
  size_t n;
  struct oc_matrix *m = matrix_of_a(doc_text, &doc, &n);
  const struct oc_cell *lc = &m[0].cells[OC_ROW_REASONING][OC_CLIENT_LANGCHAIN];
  ck_assert_int_eq(lc->state, OC_CELL_WORKS);
  ck_assert_str_eq(oc_cell_reasoning_word(lc), "hidden");
  const struct oc_cell *ai = &m[0].cells[OC_ROW_REASONING][OC_CLIENT_AI_SDK];
  ck_assert_str_eq(oc_cell_reasoning_word(ai), "seen");
  ck_assert_int_eq(ai->rsn_leaks, 1);
  const struct oc_cell *ns = &m[0].cells[OC_ROW_REASONING][OC_CLIENT_OPENAI_NODE_STREAM];
  ck_assert_int_eq(ns->state, OC_CELL_NOT_EXERCISED); /* no reasoning case reached it */
  ck_assert_str_eq(oc_cell_reasoning_word(ns), "partial");
  ck_assert_ptr_null(oc_cell_reasoning_word(&m[0].cells[OC_ROW_REASONING][OC_CLIENT_OPENAI_NODE]));
  oc_matrix_free(m, n);
  cJSON_Delete(doc);
}
END_TEST

/* A case that ended in error is no evidence that a client works: its
 * row's cells say "error" (no verdict) for every client it would have
 * reached — the stream helpers only when it streams — even beside cases
 * that worked, and above a limitation; a break stands.  A target whose
 * cases all ended in error (unreachable) has no matrix. */
static const char matrix_errors_doc[] =
  "{\"targets\": [{\"name\": \"a\"}, {\"name\": \"down\"}], \"results\": ["
  "{\"target\": \"a\", \"suite\": \"plain\", \"case\": \"unknown-model\", \"status\": \"pass\", \"checklist\": \"errors\", \"clients\": {"
  "  \"openai-node\": {\"works\": true, \"outcome\": \"raises\"},"
  "  \"ai-sdk\": {\"works\": false, \"outcome\": \"wrong\", \"reason\": \"own\", \"limitation\": true},"
  "  \"openai-node-stream\": {\"works\": null, \"outcome\": \"not-exercised\"}}},"
  "{\"target\": \"a\", \"suite\": \"plain\", \"case\": \"chat-basic\", \"status\": \"error\", \"checklist\": \"plain\","
  "  \"reason\": \"no ${MODEL}: /v1/models answered HTTP 404\"},"
  "{\"target\": \"a\", \"suite\": \"plain\", \"case\": \"n-2\", \"status\": \"error\", \"checklist\": \"plain\","
  "  \"reason\": \"second\"},"
  "{\"target\": \"a\", \"suite\": \"s\", \"case\": \"cut\", \"status\": \"error\", \"checklist\": \"streaming\","
  "  \"reason\": \"cut short\", \"clients\": {"
  "  \"openai-node\": {\"works\": true, \"outcome\": \"ok\"},"
  "  \"langchain\": {\"works\": false, \"outcome\": \"raises\", \"reason\": \"a break\"}}},"
  "{\"target\": \"a\", \"suite\": \"s\", \"case\": \"errors-plain\", \"status\": \"error\", \"checklist\": \"errors\","
  "  \"reason\": \"timed out\"},"
  "{\"target\": \"a\", \"suite\": \"s\", \"case\": \"schema\", \"status\": \"error\", \"checklist\": \"json-schema\","
  "  \"reason\": \"x\", \"request\": {\"body\": {\"json\": {\"stream\": true}}}},"
  "{\"target\": \"a\", \"suite\": \"s\", \"case\": \"tool\", \"status\": \"error\", \"checklist\": \"tool-call\","
  "  \"reason\": \"y\"},"
  "{\"target\": \"down\", \"suite\": \"plain\", \"case\": \"chat-basic\", \"status\": \"error\", \"checklist\": \"plain\","
  "  \"reason\": \"target unreachable: connection refused\"}]}";

START_TEST(matrix_errors_are_no_verdict)
{
  cJSON *doc;
  size_t n;
  struct oc_matrix *m = matrix_of_a(matrix_errors_doc, &doc, &n);
  /* every plain case errored: no client's plain cell is "works" */
  const struct oc_cell *node = &m[0].cells[OC_ROW_PLAIN][OC_CLIENT_OPENAI_NODE];
  ck_assert_int_eq(node->state, OC_CELL_ERROR);
  ck_assert_int_eq(node->errors, 2);
  ck_assert_str_eq(node->kase, "chat-basic");
  ck_assert_int_eq(node->result_index, 1);
  ck_assert_str_eq(node->reason, "no ${MODEL}: /v1/models answered HTTP 404");
  ck_assert_str_eq(oc_cell_state_name(node->state), "error");
  for(int c = 0; c < OC_CLIENT__COUNT; c++) {
    int helper = c == OC_CLIENT_OPENAI_NODE_STREAM || c == OC_CLIENT_OPENAI_PYTHON_STREAM ||
                 c == OC_CLIENT_OPENAI_NODE_STREAM_6;
    ck_assert_int_eq(m[0].cells[OC_ROW_PLAIN][c].state, helper ? OC_CELL_NOT_EXERCISED : OC_CELL_ERROR);
    ck_assert_int_eq(m[0].cells[OC_ROW_TOOL_CALL][c].state, helper ? OC_CELL_NOT_EXERCISED : OC_CELL_ERROR);
    /* a streamed request reaches the helpers too */
    ck_assert_int_eq(m[0].cells[OC_ROW_JSON_SCHEMA][c].state, OC_CELL_ERROR);
  }
  /* a verdict of "works" on a case that errored is not counted as works */
  const struct oc_cell *sn = &m[0].cells[OC_ROW_STREAMING][OC_CLIENT_OPENAI_NODE];
  ck_assert_int_eq(sn->state, OC_CELL_ERROR);
  ck_assert_int_eq(sn->works, 0);
  ck_assert_str_eq(sn->reason, "cut short");
  /* its break stands */
  const struct oc_cell *sl = &m[0].cells[OC_ROW_STREAMING][OC_CLIENT_LANGCHAIN];
  ck_assert_int_eq(sl->state, OC_CELL_BREAKS);
  ck_assert_str_eq(sl->reason, "a break");
  /* errors row: one case worked, one errored; an error outranks a limitation */
  const struct oc_cell *en = &m[0].cells[OC_ROW_ERRORS][OC_CLIENT_OPENAI_NODE];
  ck_assert_int_eq(en->state, OC_CELL_ERROR);
  ck_assert_int_eq(en->works, 1);
  ck_assert_str_eq(en->kase, "errors-plain");
  ck_assert_str_eq(en->reason, "timed out");
  ck_assert_int_eq(m[0].cells[OC_ROW_ERRORS][OC_CLIENT_AI_SDK].state, OC_CELL_ERROR);
  ck_assert_int_eq(m[0].cells[OC_ROW_ERRORS][OC_CLIENT_AI_SDK].limits, 1);
  ck_assert_int_eq(m[0].cells[OC_ROW_ERRORS][OC_CLIENT_OPENAI_NODE_STREAM].state, OC_CELL_NOT_EXERCISED);
  ck_assert_int_eq(m[0].cells[OC_ROW_CONTEXT_OVERFLOW][OC_CLIENT_OPENAI_NODE].state, OC_CELL_NOT_EXERCISED);
  oc_matrix_free(m, n);
  cJSON_Delete(doc);
}
END_TEST

/* A run's matrix comes from its spool: counted from the refs, and only
 * the result whose break a cell shows is read (every other one is stored
 * as text that does not parse, so reading it would fail the build). */
START_TEST(matrix_from_a_spool_reads_only_the_breaks_shown)
{
  cJSON *doc = cJSON_Parse(matrix_doc);
  ck_assert_ptr_nonnull(doc);
  const char *t = getenv("TMPDIR");
  char dir[256];
  snprintf(dir, sizeof(dir), "%s/check_clients.XXXXXX", t && *t ? t : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  struct oc_spool sp;
  char err[600];
  ck_assert_int_eq(oc_spool_open(&sp, dir, 5, err, sizeof(err)), OC_OK);
  /* refs and at are the results' (oc_results_free frees them) */
  struct oc_result_ref *refs = calloc(5, sizeof(*refs));
  size_t *at = calloc(5, sizeof(*at)), n = 0;
  ck_assert(refs && at);
  const cJSON *r;
  cJSON_ArrayForEach(r, oc_json_arr(doc, "results")) {
    oc_result_ref_of(&refs[n], r);
    at[n] = n;
    char *text = n == 1 ? cJSON_PrintUnformatted(r) : oc_strdup("{not a result");
    ck_assert_int_eq(oc_spool_put(&sp, n, text, strlen(text), 0, err, sizeof(err)), OC_OK);
    free(text);
    n++;
  }
  ck_assert_uint_eq(n, 5);
  ck_assert_int_eq(refs[0].row, OC_ROW_STREAMING);
  ck_assert_int_eq(refs[3].row, -1);
  struct oc_results rs;
  oc_results_from_spool(&rs, doc, &sp, refs, at, n);
  struct oc_matrix *m;
  size_t nm;
  ck_assert_int_eq(oc_matrix_build_from(&rs, &m, &nm), OC_OK);
  ck_assert_uint_eq(nm, 1);
  const struct oc_cell *ai = &m[0].cells[OC_ROW_STREAMING][OC_CLIENT_AI_SDK];
  ck_assert_int_eq(ai->state, OC_CELL_BREAKS);
  ck_assert_str_eq(ai->reason, "first break");
  ck_assert_str_eq(ai->kase, "two");
  ck_assert_int_eq(ai->result_index, 1);
  ck_assert_int_eq(ai->breaks, 2);
  ck_assert_int_eq(ai->limits, 1);
  const struct oc_cell *lc = &m[0].cells[OC_ROW_STREAMING][OC_CLIENT_LANGCHAIN];
  ck_assert_int_eq(lc->state, OC_CELL_LIMITATION);
  ck_assert_str_eq(lc->reason, "its own");
  ck_assert_int_eq(lc->works, 1);
  oc_matrix_free(m, nm);
  oc_results_free(&rs);
  oc_spool_close(&sp);
  rmdir(dir);
  cJSON_Delete(doc);
}
END_TEST

/* ---- names and the policy ---------------------------------------------------------- */

START_TEST(client_names)
{
  unsigned m;
  char err[300];
  ck_assert_int_eq(oc_clients_parse("openai-node,ai-sdk", &m, err, sizeof(err)), OC_OK);
  ck_assert_uint_eq(m, (1u << OC_CLIENT_OPENAI_NODE) | (1u << OC_CLIENT_AI_SDK));
  ck_assert_int_eq(oc_clients_parse("all", &m, err, sizeof(err)), OC_OK);
  ck_assert_uint_eq(m, OC_CLIENTS_DEFAULT);
  /* last year's majors by name only: "all" is today's seven, and a
   * selection that names one models it beside them */
  ck_assert_uint_eq(m & (1u << OC_CLIENT_AI_SDK_5), 0);
  ck_assert_int_eq(oc_clients_parse("all,openai-node@6,langchain@0.6", &m, err, sizeof(err)), OC_OK);
  ck_assert_uint_eq(m, OC_CLIENTS_DEFAULT | (1u << OC_CLIENT_OPENAI_NODE_6) | (1u << OC_CLIENT_LANGCHAIN_0_6));
  ck_assert_uint_eq(OC_CLIENTS_MODELLED(1u << OC_CLIENT_AI_SDK_5), OC_CLIENTS_TODAY | (1u << OC_CLIENT_AI_SDK_5));
  ck_assert_uint_eq(OC_CLIENTS_MODELLED(OC_CLIENTS_DEFAULT), OC_CLIENTS_TODAY);
  /* an agent by its name, selected by default and by "all" */
  ck_assert_int_eq(oc_clients_parse("codex", &m, err, sizeof(err)), OC_OK);
  ck_assert_uint_eq(m, OC_CLIENTS_AGENT(OC_AGENT_CODEX));
  ck_assert_uint_ne(OC_CLIENTS_DEFAULT & OC_CLIENTS_AGENT(OC_AGENT_CODEX), 0);
  ck_assert_int_ne(oc_clients_parse("openai-node@5", &m, err, sizeof(err)), OC_OK);
  ck_assert_ptr_nonnull(strstr(err, "last year's: openai-node@6, openai-node-stream@6, ai-sdk@5, langchain@0.6"));
  ck_assert_int_ne(oc_clients_parse("openai-go", &m, err, sizeof(err)), OC_OK);
  ck_assert_ptr_nonnull(strstr(err, "unknown client 'openai-go'"));
  ck_assert_int_ne(oc_clients_parse("", &m, err, sizeof(err)), OC_OK);
  /* none: only the contract fails a case; it cannot be mixed with names */
  ck_assert_int_eq(oc_clients_parse("none", &m, err, sizeof(err)), OC_OK);
  ck_assert_uint_eq(m, 0);
  ck_assert_int_ne(oc_clients_parse("none,ai-sdk", &m, err, sizeof(err)), OC_OK);
  ck_assert_int_ne(oc_clients_parse("ai-sdk,none", &m, err, sizeof(err)), OC_OK);
  ck_assert_ptr_nonnull(strstr(err, "'none' stands alone"));
  for(int c = 0; c < OC_CLIENT__COUNT; c++)
    ck_assert_int_eq(oc_client_find(oc_client_name((enum oc_client_id)c)), c);
  ck_assert_int_eq(oc_client_basis(OC_CLIENT_OPENAI_NODE), OC_BASIS_VERIFIED);
  ck_assert_int_eq(oc_client_basis(OC_CLIENT_OPENAI_PYTHON_STREAM), OC_BASIS_EMULATED);
}
END_TEST

static int severity_of(const struct oc_findings *f, enum oc_rule_id r, unsigned clients)
{
  for(size_t i = 0; i < f->count; i++)
    if(f->items[i].rule == r && (!clients || f->items[i].clients == clients))
      return (int)f->items[i].severity;
  return -1;
}

START_TEST(policy_demotes_only_what_breaks_nothing)
{
  struct oc_findings f;
  struct oc_check c;
  oc_findings_init(&f);
  oc_check_init(&c, &f, oc_profile_default());
  oc_emit(&c, OC_R_CHAT_SCHEMA, OC_AT(.path = "/x"), "a spec-only deviation");
  oc_emit(&c, OC_R_ERROR_SHAPE, OC_AT(.path = "/error"), "a break's cause");
  oc_emit(&c, OC_R_TOOL_CHOICE_HONOURED, OC_AT(.path = "/y"), "a contract rule");
  struct oc_client_verdict v[OC_CLIENT__COUNT];
  memset(v, 0, sizeof(v));
  for(int i = 0; i < OC_CLIENT__COUNT; i++) {
    v[i].outcome = OC_CO_OK;
    v[i].works = 1;
  }
  v[OC_CLIENT_AI_SDK] = (struct oc_client_verdict){ OC_CO_RAISES, 0, 0, OC_CAUSE_SERVER, { OC_R_ERROR_SHAPE }, 1,
                                                    "APICallError: \"Bad Request\" lost the server's message", 0,
                                                    OC_CR_NA, -1, 1 };
  v[OC_CLIENT_LANGCHAIN] = (struct oc_client_verdict){ OC_CO_WRONG, 0, 1, OC_CAUSE_REFUSAL, { OC_R__COUNT }, 0,
                                                       "refusal dropped", 0, OC_CR_NA, -1, 1 };
  c.clients = OC_CLIENTS_DEFAULT & ~(1u << OC_CLIENT_OPENAI_NODE);
  oc_verdict_apply(&c, v, NULL);
  ck_assert_int_eq(severity_of(&f, OC_R_CHAT_SCHEMA, 0), OC_SEV_WARNING);
  ck_assert_int_eq(f.items[0].spec_only, 1);
  ck_assert_int_eq(severity_of(&f, OC_R_ERROR_SHAPE, 0), OC_SEV_ERROR);
  ck_assert_uint_eq(f.items[1].clients, 1u << OC_CLIENT_AI_SDK);
  ck_assert_int_eq(severity_of(&f, OC_R_TOOL_CHOICE_HONOURED, 0), OC_SEV_ERROR);
  ck_assert_int_eq(severity_of(&f, OC_R_CLIENT_BREAKS, 1u << OC_CLIENT_AI_SDK), OC_SEV_ERROR);
  ck_assert_int_eq(severity_of(&f, OC_R_CLIENT_BREAKS, 1u << OC_CLIENT_LANGCHAIN), OC_SEV_INFO);
  ck_assert_uint_eq(oc_findings_total(&f, OC_R_CLIENT_BREAKS), 2);
  oc_findings_free(&f);

  /* the same break of a client not selected fails nothing */
  oc_findings_init(&f);
  oc_check_init(&c, &f, oc_profile_default());
  oc_emit(&c, OC_R_ERROR_SHAPE, OC_AT(.path = "/error"), "a break's cause");
  c.clients = 1u << OC_CLIENT_OPENAI_NODE;
  oc_verdict_apply(&c, v, NULL);
  ck_assert_int_eq(severity_of(&f, OC_R_ERROR_SHAPE, 0), OC_SEV_WARNING);
  ck_assert_int_eq(severity_of(&f, OC_R_CLIENT_BREAKS, 1u << OC_CLIENT_AI_SDK), OC_SEV_INFO);
  ck_assert_int_eq(oc_findings_worst(&f), OC_SEV_WARNING);
  oc_findings_free(&f);

  /* --strict: the specification's verdict */
  oc_findings_init(&f);
  oc_check_init(&c, &f, oc_profile_default());
  c.strict = 1;
  oc_emit(&c, OC_R_CHAT_SCHEMA, OC_AT(.path = "/x"), "a spec-only deviation");
  oc_verdict_apply(&c, NULL, NULL);
  ck_assert_int_eq(severity_of(&f, OC_R_CHAT_SCHEMA, 0), OC_SEV_ERROR);
  ck_assert_int_eq(f.items[0].spec_only, 0);
  oc_findings_free(&f);
}
END_TEST

START_TEST(contract_rules)
{
  ck_assert(oc_rule_contract(OC_R_TOOL_CHOICE_HONOURED));
  ck_assert(oc_rule_contract(OC_R_SCHEMA_OUTPUT));
  ck_assert(oc_rule_contract(OC_R_JSON_OBJECT_OUTPUT));
  ck_assert(oc_rule_contract(OC_R_ERROR_STATUS));
  ck_assert(oc_rule_contract(OC_R_STREAM_DONE));
  ck_assert(oc_rule_contract(OC_R_STREAM_TRUNCATED));
  ck_assert(oc_rule_contract(OC_R_CTX_OVERFLOW_STATUS));
  ck_assert(!oc_rule_contract(OC_R_CHAT_SCHEMA));
  ck_assert(!oc_rule_contract(OC_R_STREAM_CHUNK_SCHEMA));
  ck_assert(!oc_rule_contract(OC_R_ERROR_SHAPE));
  /* every template rule is one */
  for(const struct oc_rule *r = oc_rules; r < oc_rules + OC_R__COUNT; r++)
    if(strcmp(r->family, "TEMPLATE") == 0 || strcmp(r->family, "CTX") == 0 || strcmp(r->family, "PIN") == 0 ||
       strcmp(r->family, "CASE") == 0)
      ck_assert_msg(oc_rule_contract(r->rid) && oc_rule_contract_why(r->rid), "%s is no contract rule", r->id);
}
END_TEST

/* The models keep to their caps on a long stream: no more memory than
 * for a short one once the first chunks are in (their accumulators grow
 * per choice and per call, never per chunk). */
START_TEST(long_streams_stay_bounded)
{
  struct oc_buf b;
  oc_buf_init(&b, 64u << 20);
  oc_buf_adds(&b, ROLE);
  for(int i = 0; i < 20000; i++)
    oc_buf_adds(&b, TEXT("token "));
  oc_buf_adds(&b, FIN("stop") DONE);
  struct rt_ex x = X_STREAM(REQ_STREAM, oc_buf_str(&b));
  x.len = b.len;
  struct oc_client_verdict v[OC_CLIENT__COUNT];
  verdicts_of(&x, v);
  for(int c = 0; c < OC_CLIENT__COUNT; c++)
    ck_assert_msg(!oc_client_broken(&v[c]), "%s: %s", oc_client_name((enum oc_client_id)c), v[c].reason);
  ck_assert_ptr_nonnull(strstr(v[OC_CLIENT_OPENAI_NODE].reason, "120000 bytes"));
  oc_buf_free(&b);
}
END_TEST

/* A server may send any integer as an index.  1e31 is out of range for
 * every client (Python: IndexError) and must never become a cast out of
 * range in a model (found by fuzz_exchange; UBSan aborts on it). */
#define BIG "14444444444444444444444444444444"
START_TEST(huge_indexes_are_only_out_of_range)
{
  static const char *const bodies[] = {
    CK("{\"index\":" BIG ",\"delta\":{\"role\":\"assistant\",\"content\":\"x\"},\"finish_reason\":null}")
      FIN("stop") DONE,
    ROLE TC("{\"index\":" BIG ",\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":"
            "\"get_weather\",\"arguments\":\"{}\"}}") FIN("tool_calls") DONE,
    ROLE TC("{\"index\":-" BIG ",\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":"
            "\"get_weather\",\"arguments\":\"{}\"}}") FIN("tool_calls") DONE,
    ROLE TC(HEAD(0, "c1")) TC("{\"index\":1e31,\"function\":{\"arguments\":\"{}\"}}") FIN("tool_calls") DONE,
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(bodies); i++) {
    struct rt_ex x = X_STREAM(i ? REQ_TOOLS_STREAM : REQ_STREAM, bodies[i]);
    struct oc_client_verdict v[OC_CLIENT__COUNT];
    verdicts_of(&x, v);
    if(i == 0)
      ck_assert_msg(v[PYS].outcome == OC_CO_RAISES && strstr(v[PYS].reason, "IndexError"),
                    "openai-python's stream helper on choice " BIG ": %s (%s)",
                    oc_client_outcome_name(v[PYS].outcome), v[PYS].reason);
    else
      ck_assert_msg(oc_client_broken(&v[PYS]), "tool-call index %zu: openai-python-stream %s (%s)", i,
                    oc_client_outcome_name(v[PYS].outcome), v[PYS].reason);
  }
}
END_TEST

/* The ai SDK parses every chunk with secure-json-parse, which refuses a
 * __proto__ member and constructor.prototype anywhere in it.  The model
 * walks each chunk shape once (chat.c's skeleton hash): a refused chunk
 * after clean ones must still raise, whatever spelling its name has. */
START_TEST(ai_sdk_refuses_proto_after_clean_chunks)
{
  static const char *bad[] = {
    CH("{\"content\":\"lo\",\"__proto__\":{}}", "null"),
    CH("{\"content\":\"lo\",\"\\u005f_proto__\":1}", "null"),
    CK("{\"index\":0,\"delta\":{\"content\":\"lo\"},\"finish_reason\":null,\"x\":{\"constructor\":"
       "{\"prototype\":1}}}"),
  };
  for(size_t i = 0; i <= OC_ARRAY_LEN(bad); i++) {
    /* the last round is the control: constructor without prototype */
    const char *chunk = i < OC_ARRAY_LEN(bad) ? bad[i] : CH("{\"content\":\"lo\",\"constructor\":1}", "null");
    char *body = oc_asprintf(ROLE TEXT("Hel") TEXT("l") TEXT("l") "%s" FIN("stop") DONE, chunk);
    ck_assert_ptr_nonnull(body);
    struct rt_ex x = X_STREAM(REQ_STREAM, body);
    struct oc_client_verdict v[OC_CLIENT__COUNT];
    verdicts_of(&x, v);
    const struct oc_client_verdict *ai = &v[OC_CLIENT_AI_SDK];
    if(i < OC_ARRAY_LEN(bad))
      ck_assert_msg(ai->outcome == OC_CO_RAISES && strstr(ai->reason, "JSONParseError"),
                    "chunk %zu: ai-sdk %s (%s), expected JSONParseError", i, oc_client_outcome_name(ai->outcome),
                    ai->reason);
    else
      ck_assert_msg(!strstr(ai->reason, "JSONParseError"), "control: ai-sdk %s", ai->reason);
    free(body);
  }
}
END_TEST

/* The ai SDK validates every chunk against the provider's zod schema,
 * once per chunk shape: a chunk that fails it after clean ones of
 * another shape (here a role other than "assistant", then a number for
 * content) must still raise, and the reason quotes the error's message
 * as judge.mjs does (JSON.stringify of its first 60 code points, the
 * ellipsis inside the quotes). */
START_TEST(ai_sdk_validates_each_shape)
{
  static const char *bad[] = {
    "data: {\"x\":\"a\\\\b\",\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
    "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"user\",\"content\":\"Hi\"},\"finish_reason\":null}]}\n\n",
    CH("{\"content\":7}", "null"),
  };
  static const char *want[] = {
    "TypeValidationError: \"Type validation failed: Value: {\\\"x\\\":\\\"a\\\\\\\\b\\\",\\\"id\\\":\\\"c\\\","
    "\\\"object\\\"\xE2\x80\xA6\", on an answer that is not an error",
    NULL,
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(bad); i++) {
    char *body = oc_asprintf(ROLE TEXT("Hel") TEXT("lo") "%s" FIN("stop") DONE, bad[i]);
    ck_assert_ptr_nonnull(body);
    struct rt_ex x = X_STREAM(REQ_STREAM, body);
    struct oc_client_verdict v[OC_CLIENT__COUNT];
    verdicts_of(&x, v);
    const struct oc_client_verdict *ai = &v[OC_CLIENT_AI_SDK];
    ck_assert_msg(ai->outcome == OC_CO_RAISES && strstr(ai->reason, "TypeValidationError"),
                  "chunk %zu: ai-sdk %s (%s), expected TypeValidationError", i,
                  oc_client_outcome_name(ai->outcome), ai->reason);
    if(want[i])
      ck_assert_str_eq(ai->reason, want[i]);
    free(body);
  }
}
END_TEST

static Suite *clients_suite(void)
{
  Suite *s = suite_create("clients");
  TCase *tc = tcase_create("models");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, openai_python_facts, 0, (int)OC_ARRAY_LEN(py_facts));
  tcase_add_test(tc, clean_answers_break_nothing);
  tcase_add_test(tc, server_fault_when_the_answer_is_cut_or_unusable);
  tcase_add_test(tc, crafted_facts_hold);
  tcase_add_test(tc, previous_majors_differ);
  tcase_add_test(tc, previous_majors_only_when_selected);
  tcase_add_test(tc, limitations_have_evidence);
  tcase_add_test(tc, server_faults_are_no_limitation);
  tcase_add_test(tc, long_streams_stay_bounded);
  tcase_add_test(tc, huge_indexes_are_only_out_of_range);
  tcase_add_test(tc, ai_sdk_refuses_proto_after_clean_chunks);
  tcase_add_test(tc, ai_sdk_validates_each_shape);
  suite_add_tcase(s, tc);
  TCase *mx = tcase_create("matrix");
  tcase_add_test(mx, checklist_rows);
  tcase_add_test(mx, matrix_cells);
  tcase_add_test(mx, matrix_server_faults);
  tcase_add_test(mx, matrix_reasoning_row);
  tcase_add_test(mx, reasoning_per_client);
  tcase_add_test(mx, matrix_errors_are_no_verdict);
  tcase_add_test(mx, matrix_from_a_spool_reads_only_the_breaks_shown);
  suite_add_tcase(s, mx);
  TCase *p = tcase_create("policy");
  tcase_add_test(p, client_names);
  tcase_add_test(p, policy_demotes_only_what_breaks_nothing);
  tcase_add_test(p, contract_rules);
  suite_add_tcase(s, p);
  return s;
}

int main(void)
{
  rt_setup();
  int rc = oc_test_run(clients_suite());
  rt_teardown();
  return rc;
}
