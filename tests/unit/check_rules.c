/* check_rules.c — the catalogue as a whole and the rules' behaviour that
 * one exchange cannot show.  Each rule's own breaking and clean cases are
 * files under tests/rules/RULE/ (format: tests/rules/README.md, run by
 * check_rulefiles.c); here the catalogue is checked against them: a rule
 * added without a breaking and a clean file, or without an only_from
 * entry saying where it fires instead, fails the build's tests.  Also
 * here: IDs follow C names, profiles only downgrade, allow lists,
 * expectations reusing generic rules, and the variants of a few rules
 * (in-band errors, partial captures, finish_reason "length", nullable
 * fields) written as C tables.  Mutations of real recordings are
 * check_mutations.c's, verdicts on whole recordings check_recordings.c's. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "rulefile.h"
#include "rulesutil.h"

/* ---- building blocks ------------------------------------------------------ */

#define H_JSON "Content-Type: application/json"
#define H_SSE "Content-Type: text/event-stream"

#define TOOL_WEATHER                                                                              \
  "{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":{\"type\":"     \
  "\"object\",\"properties\":{\"location\":{\"type\":\"string\"}},\"required\":[\"location\"]}}}"
#define MSGS "\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]"
#define REQ_CHAT "{" MSGS "}"
#define REQ_STREAM "{" MSGS ",\"stream\":true}"
#define REQ_USAGE "{" MSGS ",\"stream\":true,\"stream_options\":{\"include_usage\":true}}"
#define REQ_TOOLS(extra) "{" MSGS ",\"tools\":[" TOOL_WEATHER "]" extra "}"

/* A chunk with the given identity, or the usual one. */
#define CKX(id, created, model, rest)                                                             \
  "data: {\"id\":\"" id "\",\"object\":\"chat.completion.chunk\",\"created\":" created            \
  ",\"model\":\"" model "\"," rest "}\n\n"
#define CK(choices) CKX("chatcmpl-1", "1700000000", "m", "\"choices\":[" choices "]")
#define CH(delta, fr) CK("{\"index\":0,\"delta\":" delta ",\"finish_reason\":" fr "}")
#define ROLE CH("{\"role\":\"assistant\",\"content\":\"\"}", "null")
#define ROLE_NULL CH("{\"role\":\"assistant\",\"content\":null}", "null")
#define TEXT(t) CH("{\"content\":\"" t "\"}", "null")
#define STOP CH("{}", "\"stop\"")
#define DONE "data: [DONE]\n\n"
#define CLEAN ROLE TEXT("Hello") STOP DONE
#define USAGE_CHUNK(p, c, t)                                                                      \
  CK_USAGE("\"choices\":[],\"usage\":{\"prompt_tokens\":" p ",\"completion_tokens\":" c           \
           ",\"total_tokens\":" t "}")
#define CK_USAGE(rest) CKX("chatcmpl-1", "1700000000", "m", rest)

/* Tool-call deltas: the head of call 0, argument fragments, the finish. */
#define TC(frags) CH("{\"tool_calls\":[" frags "]}", "null")
#define HEAD0 "{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}"
#define ARGS0(a) "{\"index\":0,\"function\":{\"arguments\":\"" a "\"}}"
#define ARGS_A "{\\\"location\\\":"
#define ARGS_B "\\\"Paris\\\"}"
#define TOOLS_DONE CH("{}", "\"tool_calls\"") DONE
#define TOOL_CLEAN ROLE_NULL TC(HEAD0) TC(ARGS0(ARGS_A)) TC(ARGS0(ARGS_B)) TOOLS_DONE

/* Non-streamed bodies. */
#define COMPLETION_X(choices, usage)                                                              \
  "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1700000000,\"model\":\"m\"," \
  "\"choices\":[" choices "],\"usage\":" usage "}"
#define USAGE_OK "{\"prompt_tokens\":5,\"completion_tokens\":2,\"total_tokens\":7}"
#define CHOICE(msg, fr) "{\"index\":0,\"message\":" msg ",\"logprobs\":null,\"finish_reason\":" fr "}"
#define MSG(content) "{\"role\":\"assistant\",\"content\":" content ",\"refusal\":null}"
#define MSG_CALLS(content, calls)                                                                 \
  "{\"role\":\"assistant\",\"content\":" content ",\"refusal\":null,\"tool_calls\":[" calls "]}"
#define CALL(id, args)                                                                            \
  "{\"id\":\"" id "\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\","            \
  "\"arguments\":" args "}}"
#define CALL_ARGS "\"{\\\"location\\\":\\\"Paris\\\"}\""
#define COMPLETION(content, fr) COMPLETION_X(CHOICE(MSG(content), fr), USAGE_OK)
#define BODY_OK COMPLETION("\"Hello\"", "\"stop\"")
/* 129 well-formed choices: one more than oacheck reads */
#define CHOICE_OK CHOICE(MSG("\"Hi\""), "\"stop\"")
#define CHOICES_8 CHOICE_OK "," CHOICE_OK "," CHOICE_OK "," CHOICE_OK "," CHOICE_OK "," CHOICE_OK "," CHOICE_OK "," CHOICE_OK
#define CHOICES_64 CHOICES_8 "," CHOICES_8 "," CHOICES_8 "," CHOICES_8 "," CHOICES_8 "," CHOICES_8 "," CHOICES_8 "," CHOICES_8
#define CHOICES_129 CHOICES_64 "," CHOICES_64 "," CHOICE_OK
#define TOOL_BODY_OK COMPLETION_X(CHOICE(MSG_CALLS("null", CALL("call_1", CALL_ARGS)), "\"tool_calls\""), USAGE_OK)

#define ERR_OK(type, code)                                                                        \
  "{\"error\":{\"message\":\"bad request\",\"type\":\"" type "\",\"param\":null,\"code\":" code "}}"

/* Exchanges. */
#define X_STREAM(req, body) { "POST", "/v1/chat/completions", req, 200, H_SSE, body, 0, NULL, 0, 0 }
#define X_JSON(req, status, body) { "POST", "/v1/chat/completions", req, status, H_JSON, body, 0, NULL, 0, 0 }
#define X_GET(path, body) { "GET", path, NULL, 200, H_JSON, body, 0, NULL, 0, 0 }
#define X_POST(path, req, body) { "POST", path, req, 200, H_JSON, body, 0, NULL, 0, 0 }

/* Rules no response can make fire, and where they come from instead. */
static const struct {
  const char *rule;
  const char *where;
} only_from[] = {
  { "MESSAGES-COUNT-TOKENS", "token_count.c, run by runner.c on a case with expect.count_tokens: "
                             "two exchanges, which a rule file cannot hold; tested in check_token_count.c" },
  { "RESPONSES-INPUT-TOKENS", "token_count.c, run by runner.c on a case with expect.count_tokens: "
                              "two exchanges; tested in check_token_count.c" },
  { "HTTP-TRANSPORT", "runner.c: a transport outcome (refused, reset, timed out, a recording cut "
                      "while recording); the response decoder never sees those" },
  { "TEMPLATE-SYSTEM-MOVED", "templates.c (oacheck templates); tested in check_templates.c" },
  { "TEMPLATE-TOOL-ID", "templates.c (oacheck templates); tested in check_templates.c" },
  { "TEMPLATE-RENDER", "templates.c (oacheck templates); tested in check_templates.c" },
  { "TEMPLATE-SERVER-DATE", "templates.c (oacheck templates); tested in check_templates.c" },
  { "TEMPLATE-TOOLS-RENDERED", "templates.c (oacheck templates); tested in check_templates.c" },
  { "TEMPLATE-TOOLS-EMPTY", "templates.c (oacheck templates); tested in check_templates.c" },
  { "TEMPLATE-TOOL-CALL-RENDERED", "templates.c (oacheck templates); tested in check_templates.c" },
  { "TEMPLATE-TOOL-RESULT-RENDERED", "templates.c (oacheck templates); tested in check_templates.c" },
  { "TEMPLATE-DOUBLE-ENCODED", "templates.c (oacheck templates); tested in check_templates.c" },
  { "TEMPLATE-REFUSED", "templates.c (oacheck templates); tested in check_templates.c" },
  { "TEMPLATE-REASONING-HISTORY", "templates.c (oacheck templates: what a render does with "
                                  "reasoning sent back); tested in check_templates.c and "
                                  "tests/e2e/templates.sh" },
  { "PIN-MODEL", "cmd_pin.c (oacheck pin --check); tested in tests/e2e/pin.sh" },
  { "PIN-TEMPLATE", "cmd_pin.c (oacheck pin --check); tested in tests/e2e/pin.sh" },
  { "PIN-CONTEXT", "cmd_pin.c (oacheck pin --check); tested in tests/e2e/pin.sh" },
  { "PIN-BUILD", "cmd_pin.c (oacheck pin --check); tested in tests/e2e/pin.sh" },
  { "PIN-DEPLOYMENT", "cmd_pin.c (oacheck pin --check); tested in tests/e2e/pin.sh" },
  { "DEPLOY-LOAD", "loadcheck.c (oacheck run --load: the baseline and the load run compared); "
                   "tested in tests/e2e/load.sh (against oacheck serve --overload)" },
  { "PIN-FLAGS", "cmd_pin.c (oacheck pin --check on a router); tested in tests/e2e/router.sh" },
  { "MODELS-ROUTED", "runner.c, for a router target's answers (the model asked for is the "
                     "target's, not the request's); tested in tests/e2e/router.sh and check_router" },
  { "REQUEST-ROLE", "conversation.c (oacheck proxy); tested in check_conversation.c" },
  { "REQUEST-TOOL-RESULT-ID", "conversation.c (oacheck proxy); tested in check_conversation.c" },
  { "REQUEST-TOOL-ARGS-STRING", "conversation.c (oacheck proxy); tested in check_conversation.c" },
  { "REQUEST-STREAM-OPTIONS", "conversation.c (oacheck proxy); tested in check_conversation.c" },
  { "REQUEST-CONTEXT", "conversation.c (oacheck proxy); tested in check_conversation.c" },
  { "CONV-TOOL-ID-REJECTED", "conversation.c (oacheck proxy); tested in check_conversation.c" },
  { "CONV-TOOL-RESULT-DROPPED", "conversation.c (oacheck proxy); tested in check_conversation.c" },
};

/* Each rule's public ID is its C name with '-' for '_', so the two can be
 * found from each other; the table has no hole. */
static const struct {
  const char *cname;
  const char *id;
} rule_names[] = {
#define RULE(name, id, ...) { #name, id },
#include "rules.def"
#undef RULE
};

START_TEST(ids_follow_c_names)
{
  ck_assert_uint_eq(OC_ARRAY_LEN(rule_names), OC_R__COUNT);
  for(size_t i = 0; i < OC_ARRAY_LEN(rule_names); i++) {
    char want[64];
    size_t n = oc_strlcpy(want, rule_names[i].cname, sizeof(want));
    ck_assert_uint_lt(n, sizeof(want));
    for(char *p = want; *p; p++)
      if(*p == '_')
        *p = '-';
    ck_assert_str_eq(rule_names[i].id, want);
    ck_assert_uint_eq(oc_rules[i].rid, i);
    ck_assert_str_eq(oc_rule_name((enum oc_rule_id)i), want);
    ck_assert_ptr_eq(oc_rule_find(want), &oc_rules[i]);
  }
  ck_assert_ptr_null(oc_rule_find("STREAM-DOEN"));
}
END_TEST

/* What tests/rules/ holds for each rule: breaking files (they list a
 * finding of the rule) and clean ones (they list none). */
struct rule_files {
  size_t breaking, clean;
};

static void count_rule_files(struct rule_files *per_rule)
{
  const char *src = getenv("OACHECK_SRCDIR");
  char *dir = oc_path_join(src && *src ? src : ".", "tests/rules");
  char **paths = NULL, err[1024];
  size_t n = 0;
  ck_assert_ptr_nonnull(dir);
  ck_assert_msg(oc_rulefile_list(dir, &paths, &n, err, sizeof(err)) == OC_OK, "%s", err);
  for(size_t i = 0; i < n; i++) {
    struct oc_rulefile rf;
    ck_assert_msg(oc_rulefile_read(paths[i], &rf, err, sizeof(err)) == OC_OK, "%s", err);
    /* tests/rules/RULE/NAME.test */
    const char *slash = strrchr(paths[i], '/');
    const char *start = slash;
    while(start > paths[i] && start[-1] != '/')
      start--;
    char id[64];
    snprintf(id, sizeof(id), "%.*s", (int)(slash - start), start);
    const struct oc_rule *r = oc_rule_find(id);
    ck_assert_msg(r != NULL, "%s: directory %s is not a rule of the catalogue", paths[i], id);
    int own = 0;
    for(size_t k = 0; k < rf.nfindings; k++)
      own |= rf.findings[k].rule == r->rid;
    if(own)
      per_rule[r->rid].breaking++;
    else if(rf.nfindings == 0)
      per_rule[r->rid].clean++;
    oc_rulefile_free(&rf);
    free(paths[i]);
  }
  free(paths);
  free(dir);
}

/* Every rule in the catalogue has a breaking and a clean file under
 * tests/rules/RULE/ (run by check_rulefiles) or says where it fires from
 * instead; nothing here names a rule that does not exist. */
START_TEST(every_rule_is_tested)
{
  struct rule_files per_rule[OC_R__COUNT];
  memset(per_rule, 0, sizeof(per_rule));
  count_rule_files(per_rule);
  size_t missing = 0;
  for(const struct oc_rule *r = oc_rules; r < oc_rules + OC_R__COUNT; r++) {
    int listed = 0;
    for(size_t i = 0; i < OC_ARRAY_LEN(only_from); i++)
      if(strcmp(only_from[i].rule, r->id) == 0)
        listed = 1;
    const struct rule_files *rf = &per_rule[r->rid];
    if(!listed && (!rf->breaking || !rf->clean)) {
      fprintf(stderr, "rule %s has %s in tests/rules/%s/\n", r->id,
              !rf->breaking && !rf->clean ? "no test file"
              : !rf->breaking ? "no breaking file" : "no clean file", r->id);
      missing++;
    }
    ck_assert_msg(!(listed && rf->breaking), "%s is both tested and listed as unreachable", r->id);
  }
  ck_assert_msg(missing == 0, "%zu rule(s) of the catalogue lack a breaking or a clean test file",
                missing);
  for(size_t i = 0; i < OC_ARRAY_LEN(only_from); i++)
    ck_assert_msg(oc_rule_find(only_from[i].rule) != NULL, "%s is not in the catalogue",
                  only_from[i].rule);
}
END_TEST

/* ---- rules reached through other paths ---------------------------------------- */

/* The expectation-side twins of generic rules: the same rule IDs fire
 * when a case asks for something narrower than the spec. */
START_TEST(expectations_reuse_rules)
{
  static const struct {
    const char *expect, *rule;
    struct rt_ex x;
  } v[] = {
    { "{\"finish_reasons\": [\"stop\"]}", "CHAT-FINISH-REASON",
      X_JSON(REQ_CHAT, 200, COMPLETION("\"Hello\"", "\"length\"")) },
    { "{\"tool_call\": {\"name\": \"get_time\"}}", "TOOL-CHOICE-HONOURED",
      X_JSON(REQ_TOOLS(""), 200, TOOL_BODY_OK) },
    { "{\"tool_call\": {\"arguments_schema\": {\"required\": [\"unit\"]}}}", "TOOL-ARGS-JSON",
      X_JSON(REQ_TOOLS(""), 200, TOOL_BODY_OK) },
    { "{\"tool_call\": {}}", "CASE-ASSERT", X_JSON(REQ_TOOLS(""), 200, BODY_OK) },
    { "{\"stream\": true}", "STREAM-CONTENT-TYPE", X_JSON(REQ_CHAT, 200, BODY_OK) },
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(v); i++) {
    struct oc_findings f;
    rt_expect(v[i].expect, &v[i].x, "openai", &f);
    char *s = rt_summary(&f);
    ck_assert_msg(oc_findings_total(&f, rt_rule(v[i].rule)) == 1 && f.count == 1,
                  "expect %s: wanted exactly %s, got: %s", v[i].expect, v[i].rule, s);
    free(s);
    oc_findings_free(&f);
  }
}
END_TEST

/* A regex assertion whose match runs out of PCRE2's budget is undecided,
 * as `oacheck validate` says of the same pattern: not "does not match". */
START_TEST(regex_assert_out_of_budget_is_undecided)
{
  struct rt_ex x = X_JSON(REQ_CHAT, 200, COMPLETION("\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!\"", "\"stop\""));
  struct oc_findings f;
  char limit[400];
  rt_expect_limit("{\"assert\": [{\"pointer\": \"/choices/0/message/content\", \"regex\": \"(a|a)+!x|a\"}]}",
                  &x, "openai", &f, limit, sizeof(limit));
  ck_assert_int_eq(oc_findings_total(&f, OC_R_CASE_ASSERT), 0);
  ck_assert_msg(strstr(limit, "cannot be decided") && strstr(limit, "match budget"), "limit: %s", limit);
  oc_findings_free(&f);
  /* a pattern that decides still fails as before */
  rt_expect_limit("{\"assert\": [{\"pointer\": \"/choices/0/message/content\", \"regex\": \"^b\"}]}",
                  &x, "openai", &f, limit, sizeof(limit));
  ck_assert_int_eq(oc_findings_total(&f, OC_R_CASE_ASSERT), 1);
  ck_assert_str_eq(limit, "");
  oc_findings_free(&f);
}
END_TEST

/* An answer the case declares as "unsupported" skips the case instead of
 * failing it, and nothing is judged. */
START_TEST(unsupported_answers_skip)
{
  struct rt_ex x = X_JSON(REQ_CHAT, 404, ERR_OK("not_found_error", "null"));
  struct oc_findings f;
  enum oc_expect_outcome o = rt_expect("{\"unsupported\": {\"status\": [404, 501]}}", &x, "openai", &f);
  ck_assert_int_eq(o, OC_EXPECT_UNSUPPORTED);
  ck_assert_int_eq(oc_findings_total(&f, OC_R_HTTP_STATUS), 0);
  oc_findings_free(&f);
  struct rt_ex y = X_JSON(REQ_CHAT, 500, ERR_OK("server_error", "null"));
  o = rt_expect("{\"unsupported\": {\"status\": [404, 501]}}", &y, "openai", &f);
  ck_assert_int_eq(o, OC_EXPECT_CHECKED);
  ck_assert_int_eq(oc_findings_total(&f, OC_R_HTTP_STATUS), 1);
  oc_findings_free(&f);
}
END_TEST

/* A suite's allow list turns a rule's errors into allowed warnings. */
START_TEST(allow_list_downgrades)
{
  struct rt_ex x = X_JSON(REQ_CHAT, 500, ERR_OK("server_error", "null"));
  struct oc_findings f;
  rt_expect("{}", &x, "openai", &f);
  const struct oc_finding *h = oc_findings_first(&f, OC_R_HTTP_STATUS);
  ck_assert_ptr_nonnull(h);
  ck_assert_int_eq(h->severity, OC_SEV_ERROR);
  ck_assert_int_eq(h->allowed, 0);
  oc_findings_free(&f);

  struct oc_check c;
  rt_policy(&c, &f, "openai", 0);
  struct oc_ruleset allow;
  oc_ruleset_init(&allow);
  ck_assert_int_eq(oc_ruleset_add_pattern(&allow, "STREAM-*"), OC_OK);
  ck_assert_int_eq(oc_ruleset_add_pattern(&allow, "STREAM-NO-SUCH-RULE"), OC_ENOTFOUND);
  c.allow = &allow;
  oc_emit(&c, OC_R_STREAM_DONE, OC_AT(), "x");
  oc_emit(&c, OC_R_TOOL_ARGS_JSON, OC_AT(), "y");
  ck_assert_int_eq(f.items[0].severity, OC_SEV_WARNING);
  ck_assert_int_eq(f.items[0].allowed, 1);
  ck_assert_int_eq(f.items[1].severity, OC_SEV_ERROR);
  ck_assert_int_eq(f.items[1].allowed, 0);
  oc_findings_free(&f);
}
END_TEST

/* Profiles: each override names a catalogue rule, never raises its
 * severity and says why; "openai" overrides nothing. */
START_TEST(profiles_only_downgrade)
{
  ck_assert_ptr_eq(oc_profile_default(), oc_profile_find("openai"));
  for(const struct oc_profile *p = oc_profiles; p->name; p++) {
    for(size_t i = 0; i < p->noverrides; i++) {
      const struct oc_profile_override *o = &p->overrides[i];
      const struct oc_rule *r = &oc_rules[o->rule];
      ck_assert_msg(o->severity <= r->severity, "profile %s raises %s", p->name, r->id);
      ck_assert_msg(o->reason && *o->reason, "profile %s: override of %s without a reason",
                    p->name, r->id);
    }
    if(strcmp(p->name, "openai") == 0)
      ck_assert_msg(p->noverrides == 0, "the openai profile overrides rules");
  }
}
END_TEST

/* Comment lines (llama-server's ': ' keep-alive every 30 s, F08) are
 * legal SSE: a stream full of them is as clean as one without, under
 * every profile. */
START_TEST(comment_keepalives_are_legal)
{
  struct rt_ex x = X_STREAM(REQ_STREAM, ":\n\n" ROLE ":\n\n: keep-alive\n\n" TEXT("Hello") ":\n" STOP
                                        ":\n\n" DONE);
  for(const struct oc_profile *p = oc_profiles; p->name; p++) {
    struct oc_findings f;
    rt_analyze(&x, p->name, 0, &f);
    char *s = rt_summary(&f);
    ck_assert_msg(f.count == 0, "profile %s flags comment lines: %s", p->name, s);
    free(s);
    oc_findings_free(&f);
  }
}
END_TEST

/* An in-band error is acceptable only as {"error": {...}} followed by
 * [DONE]: without [DONE] after it (or with a bare string) it is an
 * error; with it every client raises the server's message, which is no
 * break.  A bare string loses the message in openai-python (both ways);
 * an "event: error" without an error member is no error to openai-node,
 * LangChain and openai-python, a chunk without choices to openai-node's
 * stream helper (TypeError) and one the ai SDK's schema refuses. */
START_TEST(inband_error_needs_done)
{
  static const struct {
    const char *body;
    const char *expected;
  } v[] = {
    { ROLE TEXT("Hi") "data: {\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}\n\n" DONE,
      "" },
    { ROLE TEXT("Hi") "data: {\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}\n\n",
      "STREAM-DONE:error STREAM-ERROR-EVENT:error" },
    { ROLE TEXT("Hi") "data: {\"error\":\"boom\"}\n\n" DONE,
      "STREAM-ERROR-EVENT:error CLIENT-BREAKS:error*2" },
    { ROLE TEXT("Hi") "event: error\ndata: {\"message\":\"boom\"}\n\n" DONE,
      "STREAM-ERROR-EVENT:error CLIENT-BREAKS:error*2" },
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(v); i++) {
    struct rt_ex x = X_STREAM(REQ_STREAM, v[i].body);
    struct oc_findings f;
    rt_analyze(&x, "openai", 0, &f);
    char *got = rt_summary(&f), *want = rt_canonical(v[i].expected);
    ck_assert_msg(strcmp(got, want) == 0, "case %zu: expected %s, got %s", i, want, got);
    free(got);
    free(want);
    oc_findings_free(&f);
  }
}
END_TEST

/* A capture cut by whoever pasted it (partial): the end of the body is
 * not the end of the stream, so nothing is concluded from it; what did
 * arrive is still judged. */
START_TEST(partial_capture_judges_what_arrived)
{
  static const struct {
    const char *body;
    const char *complete, *partial;
  } v[] = {
    /* openai-node's stream helper and the ai SDK (7) raise on the missing
     * finish_reason, which a cut capture cannot show */
    { ROLE TEXT("Hello"), "STREAM-DONE:error STREAM-FINISH-ONCE:error STREAM-TRUNCATED:error CLIENT-BREAKS:error*2", "" },
    { ROLE TEXT("Hello") "data: {\"id\":\"chatcmpl-1\",\"obj",
      "STREAM-TRUNCATED:error STREAM-DONE:error STREAM-FINISH-ONCE:error CLIENT-BREAKS:error*2", "" },
    /* nothing said: the Agents SDK has no final output either */
    { ROLE, "STREAM-DONE:error STREAM-FINISH-ONCE:error STREAM-TRUNCATED:error STREAM-EMPTY:error CLIENT-BREAKS:error*3", "" },
    /* openai-python's stream helper joins the two roles either way */
    { ROLE TEXT("Hello") CH("{\"role\":\"assistant\"}", "null"),
      "STREAM-DONE:error STREAM-FINISH-ONCE:error STREAM-TRUNCATED:error STREAM-ROLE-ONCE:warning CLIENT-BREAKS:error*3",
      "STREAM-ROLE-ONCE:warning CLIENT-BREAKS:error" },
    /* a call's missing type and id are no matter of the end: openai-node's
     * helper raises on the type, the Agents SDK on the id */
    { ROLE_NULL TC("{\"index\":0,\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\"}}"),
      "STREAM-DONE:error STREAM-FINISH-ONCE:error STREAM-TRUNCATED:error TOOL-DELTA-HEAD:error CLIENT-BREAKS:error*3",
      "TOOL-DELTA-HEAD:error CLIENT-BREAKS:error*2" },
    { ROLE TEXT("Hello") STOP, "STREAM-DONE:error", "" },
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(v); i++) {
    struct rt_ex x = X_STREAM(REQ_TOOLS(",\"stream\":true"), v[i].body);
    for(int partial = 0; partial <= 1; partial++) {
      struct oc_findings f;
      rt_analyze(&x, "openai", partial, &f);
      char *got = rt_summary(&f), *want = rt_canonical(partial ? v[i].partial : v[i].complete);
      ck_assert_msg(strcmp(got, want) == 0, "case %zu (%s): expected %s, got %s", i,
                    partial ? "partial" : "complete", want, got);
      free(got);
      free(want);
      oc_findings_free(&f);
    }
  }
}
END_TEST

/* finish_reason "length" excuses JSON that was cut short, not JSON that
 * never started: structured output and tool arguments get a warning only
 * when the text is the beginning of a JSON document (D3: llama-server's
 * json_object answered with prose and cut by max_tokens is an error). */
START_TEST(length_excuses_only_cut_json)
{
#define RF_OBJ ",\"response_format\":{\"type\":\"json_object\"}"
#define RF_SCHEMA ",\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"p\"," \
  "\"schema\":{\"type\":\"object\",\"required\":[\"name\"]}}}"
  /* what the clients make of a structured answer cut by max_tokens: the
   * ai SDK has no output, LangChain's and openai-python's parse() raise
   * LengthFinishReasonError; OpenAI's answers do the same to them, so it
   * is their limitation (info), never the server's failure */
#define LIMIT_AI "CLIENT-BREAKS:info"
#define LIMIT_ALL "CLIENT-BREAKS:info*3"
  static const struct {
    const char *req, *body, *expected;
  } v[] = {
    { "{" MSGS RF_OBJ "}", COMPLETION("\"{\\\"greet\\\": \\\"Hel\"", "\"length\""), "JSON-OBJECT-OUTPUT:warning " LIMIT_AI },
    /* nothing at all and "length": the Agents SDK raises ModelBehaviorError
     * (its own check), as it does on OpenAI's reasoning models cut inside
     * their reasoning: its limitation (client.c's table says why) */
    { "{" MSGS RF_OBJ "}", COMPLETION("\"\"", "\"length\""),
      "JSON-OBJECT-OUTPUT:warning CLIENT-BREAKS:info " LIMIT_AI },
    { "{" MSGS RF_OBJ "}", COMPLETION("\" sost Maine cast\"", "\"length\""), "JSON-OBJECT-OUTPUT:error " LIMIT_AI },
    { "{" MSGS RF_OBJ "}", COMPLETION("\"{\\\"a\\\": 1} and more\"", "\"length\""), "JSON-OBJECT-OUTPUT:error " LIMIT_AI },
    /* the ai SDK (7) takes any JSON as json_object's output */
    { "{" MSGS RF_OBJ "}", COMPLETION("\"[1, 2]\"", "\"length\""), "JSON-OBJECT-OUTPUT:error" },
    { "{" MSGS RF_SCHEMA "}", COMPLETION("\"{\\\"\"", "\"length\""), "SCHEMA-OUTPUT:warning " LIMIT_ALL },
    { "{" MSGS RF_SCHEMA "}", COMPLETION("\"Sure! {\"", "\"length\""), "SCHEMA-OUTPUT:error " LIMIT_ALL },
    /* JSON that parses is the ai SDK's (7) output: only the two parse()s raise */
    { "{" MSGS RF_SCHEMA "}", COMPLETION("\"{\\\"age\\\": 3}\"", "\"length\""), "SCHEMA-OUTPUT:error CLIENT-BREAKS:info*2" },
    { REQ_TOOLS(""), COMPLETION_X(CHOICE(MSG_CALLS("null", CALL("call_1", "\"{\\\"locati\"")), "\"length\""), USAGE_OK),
      "TOOL-ARGS-JSON:warning" },
    { REQ_TOOLS(""), COMPLETION_X(CHOICE(MSG_CALLS("null", CALL("call_1", "\"location: Paris\"")), "\"length\""), USAGE_OK),
      "TOOL-ARGS-JSON:error" },
  };
#undef RF_OBJ
#undef RF_SCHEMA
#undef LIMIT_AI
#undef LIMIT_ALL
  for(size_t i = 0; i < OC_ARRAY_LEN(v); i++) {
    struct rt_ex x = X_JSON(v[i].req, 200, v[i].body);
    struct oc_findings f;
    rt_analyze(&x, "openai", 0, &f);
    char *got = rt_summary(&f), *want = rt_canonical(v[i].expected);
    ck_assert_msg(strcmp(got, want) == 0, "case %zu: expected %s, got %s", i, want, got);
    free(got);
    free(want);
    oc_findings_free(&f);
  }
}
END_TEST

/* A 2xx whose JSON body is an error (LM Studio's unknown route, L1)
 * is an error reported with a success status: ERROR-STATUS, and the
 * error body's own shape, not a pile of missing completion fields.  No
 * client shows the error: openai-node and openai-python return a
 * completion without choices, the ai SDK says "Invalid JSON response",
 * LangChain fails reading the first choice, the Agents SDK finds no final
 * output and runs out of turns. */
START_TEST(success_status_with_error_body)
{
  static const struct {
    const char *body, *expected;
  } v[] = {
    { "{\"error\":\"Unexpected endpoint or method. (POST /chat/completions)\"}",
      "ERROR-STATUS:error ERROR-SHAPE:error CLIENT-BREAKS:error*5" },
    { ERR_OK("invalid_request_error", "null"), "ERROR-STATUS:error CLIENT-BREAKS:error*5" },
    { "{\"error\":null,\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1700000000,"
      "\"model\":\"m\",\"choices\":[" CHOICE(MSG("\"Hello\""), "\"stop\"") "],\"usage\":" USAGE_OK "}", "" },
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(v); i++) {
    struct rt_ex x = X_JSON(REQ_CHAT, 200, v[i].body);
    struct oc_findings f;
    rt_analyze(&x, "openai", 0, &f);
    char *got = rt_summary(&f), *want = rt_canonical(v[i].expected);
    ck_assert_msg(strcmp(got, want) == 0, "case %zu: expected %s, got %s", i, want, got);
    free(got);
    free(want);
    oc_findings_free(&f);
  }
}
END_TEST

/* A required property that may be null and is missing instead is the
 * profile's call (nullable_required): the property is found by walking the
 * schema from the failing "required" to its x-oacheck-nullable-required
 * annotation (docs/schemas.md), not by its name, so that a missing
 * finish_reason is lenient in a chunk (where it is nullable) and strict in
 * a finished completion (where it is not). */
START_TEST(nullable_required_follows_the_annotations)
{
  static const struct {
    const char *profile, *req;
    int stream;
    const char *body, *expected;
  } v[] = {
    /* vLLM before PR #19662: content deltas without finish_reason */
    { "vllm", REQ_STREAM, 1,
      ROLE CK("{\"index\":0,\"delta\":{\"content\":\"Hello\"}}") STOP DONE, "STREAM-CHUNK-SCHEMA:warning" },
    { "openai", REQ_STREAM, 1,
      ROLE CK("{\"index\":0,\"delta\":{\"content\":\"Hello\"}}") STOP DONE, "STREAM-CHUNK-SCHEMA:error" },
    /* a finished choice must say how it finished, under every profile */
    { "llama-server", REQ_CHAT, 0,
      COMPLETION_X("{\"index\":0,\"message\":" MSG("\"Hello\"") ",\"logprobs\":null}", USAGE_OK),
      "CHAT-SCHEMA:error CHAT-FINISH-REASON:error" },
    /* LM Studio's tool-call message without content (L3) */
    { "llama-server", REQ_TOOLS(""), 0,
      COMPLETION_X(CHOICE("{\"role\":\"assistant\",\"refusal\":null,\"tool_calls\":[" CALL("call_1", CALL_ARGS) "]}",
                          "\"tool_calls\""), USAGE_OK), "CHAT-SCHEMA:warning" },
    { "openai", REQ_TOOLS(""), 0,
      COMPLETION_X(CHOICE("{\"role\":\"assistant\",\"refusal\":null,\"tool_calls\":[" CALL("call_1", CALL_ARGS) "]}",
                          "\"tool_calls\""), USAGE_OK), "CHAT-SCHEMA:error" },
    /* logprobs entries without bytes; message.refusal and error.param missing */
    { "llama-server", REQ_CHAT, 0,
      COMPLETION_X("{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"finish_reason\":\"stop\","
                   "\"logprobs\":{\"content\":[{\"token\":\"Hi\",\"logprob\":-0.1,\"top_logprobs\":[]}],\"refusal\":null}}", USAGE_OK),
      "CHAT-SCHEMA:warning*2" },
    /* present with the wrong type is never the nullable case (vLLM's V1) */
    { "vllm", REQ_CHAT, 0,
      COMPLETION_X(CHOICE(MSG("\"Hello\""), "\"stop\""),
                   "{\"prompt_tokens\":5,\"completion_tokens\":2,\"total_tokens\":7,\"prompt_tokens_details\":null}"),
      "CHAT-SCHEMA:error" },
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(v); i++) {
    struct rt_ex x = { "POST", "/v1/chat/completions", v[i].req, 200, v[i].stream ? H_SSE : H_JSON,
                       v[i].body, 0, NULL, 0, 0 };
    struct oc_findings f;
    rt_analyze(&x, v[i].profile, 0, &f);
    char *got = rt_summary(&f), *want = rt_canonical(v[i].expected);
    if(strcmp(got, want))
      rt_dump("nullable", &f);
    ck_assert_msg(strcmp(got, want) == 0, "case %zu (%s): expected %s, got %s", i, v[i].profile, want, got);
    free(got);
    free(want);
    oc_findings_free(&f);
  }
  /* and the error envelope: llama-server's, param missing and code an integer */
  struct rt_ex e = X_JSON(REQ_CHAT, 400, "{\"error\":{\"code\":400,\"message\":\"m\",\"type\":\"invalid_request_error\"}}");
  struct oc_findings f;
  rt_analyze(&e, "vllm", 0, &f);
  ck_assert_uint_eq(f.count, 2); /* vllm downgrades ERROR-SHAPE as a whole: both warnings */
  oc_findings_free(&f);
  rt_analyze(&e, "openai", 0, &f);
  char *got = rt_summary(&f);
  ck_assert_str_eq(got, "ERROR-SHAPE:error*2");
  free(got);
  oc_findings_free(&f);
}
END_TEST

/* F16: SGLang's finish_reason "" on every delta breaks the chunk schema
 * (the enum or null) and nothing else: it is not a finish, so the real
 * one at the end is not a second one and the content between is not
 * content after a finish. */
START_TEST(empty_finish_reason_is_no_finish)
{
  struct rt_ex x = X_STREAM(REQ_STREAM, ROLE CH("{\"content\":\"Hel\"}", "\"\"")
                                        CH("{\"content\":\"lo\"}", "\"\"") STOP DONE);
  struct oc_findings f;
  rt_analyze(&x, "openai", 0, &f);
  char *got = rt_summary(&f);
  ck_assert_str_eq(got, "STREAM-CHUNK-SCHEMA:error*2");
  free(got);
  oc_findings_free(&f);
}
END_TEST

static Suite *rules_suite(void)
{
  Suite *s = suite_create("rules");
  TCase *tc = tcase_create("catalogue");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, every_rule_is_tested);
  tcase_add_test(tc, ids_follow_c_names);
  tcase_add_test(tc, expectations_reuse_rules);
  tcase_add_test(tc, unsupported_answers_skip);
  tcase_add_test(tc, regex_assert_out_of_budget_is_undecided);
  tcase_add_test(tc, allow_list_downgrades);
  tcase_add_test(tc, profiles_only_downgrade);
  tcase_add_test(tc, length_excuses_only_cut_json);
  tcase_add_test(tc, success_status_with_error_body);
  tcase_add_test(tc, nullable_required_follows_the_annotations);
  suite_add_tcase(s, tc);
  TCase *st = tcase_create("streams");
  tcase_add_test(st, comment_keepalives_are_legal);
  tcase_add_test(st, inband_error_needs_done);
  tcase_add_test(st, partial_capture_judges_what_arrived);
  tcase_add_test(st, empty_finish_reason_is_no_finish);
  suite_add_tcase(s, st);
  return s;
}

int main(void)
{
  rt_setup();
  int rc = oc_test_run(rules_suite());
  rt_teardown();
  return rc;
}
