/* check_dialect.c — the tool-call dialects (src/dialect.c): every marker
 * a person found in the 50 recorded templates' texts
 * (tests/data/templates/tool-markers.tsv) is recognised in content, the
 * markers read from a template's own text include the literal tokens it
 * wraps calls in, and llama-server's parser failure is told from other
 * errors; an in-band error is STREAM-EARLY-ERROR only when the server knew
 * it before generating. */
#include "config.h"

#include <check.h>
#include <string.h>

#include "dialect.h"
#include "message.h"
#include "request.h"
#include "rulesutil.h"
#include "tplutil.h"

/* Is m one token ("<|x|>", "<x>", "[X]") as dialect.c reads them? */
static int token_like(const char *m)
{
  size_t n = strlen(m);
  if(n < 3)
    return 0;
  if(m[0] == '[')
    return m[n - 1] == ']' && strspn(m + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == n - 2;
  if(m[0] != '<' || m[n - 1] != '>')
    return 0;
  return strpbrk(m + 1, "<> \n\"'{}") == m + n - 1;
}

START_TEST(every_recorded_marker_is_known)
{
  /* Each open marker, as content, is recognised by the table alone; the
   * Llama bare-JSON form needs the offered tool's name (message.c). */
  struct tpl_table t;
  tpl_table_read("tool-markers.tsv", &t);
  ck_assert_uint_gt(t.n, 50);
  cJSON *body = cJSON_Parse("{\"messages\":[],\"tools\":[{\"type\":\"function\",\"function\":"
                            "{\"name\":\"get_weather\",\"parameters\":{}}}]}");
  struct oc_request_info req;
  oc_request_info_init(&req, "POST", "/v1/chat/completions", body);
  size_t checked = 0;
  for(size_t i = 0; i < t.n; i++) {
    const char *open = t.rows[i].col[1];
    if(!*open)
      continue; /* the template renders no tool call */
    char content[256];
    snprintf(content, sizeof(content), "Sure. %sget_weather\", \"parameters\": {\"location\": "
             "\"Paris\"}}", open);
    char what[256];
    if(strcmp(open, "{\"name\": \"") == 0)
      ck_assert_msg(oc_message_find_tool_markup(&req, NULL, content, strlen(content), "content", what,
                                                sizeof(what)),
                    "line %d: the bare JSON call is not recognised", t.rows[i].line);
    else {
      size_t at = 0;
      const char *m = oc_dialect_find_marker(content, strlen(content), NULL, &at, NULL);
      ck_assert_msg(m != NULL, "line %d: %s's marker '%s' is not in tool_markers.def",
                    t.rows[i].line, t.rows[i].col[0], open);
      ck_assert_uint_ge(at, 6);
    }
    checked++;
  }
  ck_assert_uint_gt(checked, 45);
  cJSON_Delete(body);
  tpl_table_free(&t);
}
END_TEST

START_TEST(prose_is_not_markup)
{
  /* random-weights text and ordinary prose about tools */
  static const char *const prose[] = {
    "The function returns a list; call it twice.",
    "Use the tool named get_weather when asked about weather.",
    "<p>Action items:</p> json is a format",
    "a < b and c > d; [NOTE] see below",
    "to = functions of x",
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(prose); i++)
    ck_assert_msg(oc_dialect_find_marker(prose[i], strlen(prose[i]), NULL, NULL, NULL) == NULL,
                  "'%s' taken for tool-call markup", prose[i]);
}
END_TEST

START_TEST(markers_from_a_template_text)
{
  /* a dialect nobody has seen yet: its call tokens come from its text */
  const char *tmpl =
    "{%- for message in messages %}{%- if message.tool_calls %}"
    "{%- for tool_call in message.tool_calls %}{{ '<|my_call_open|>' + tool_call.function.name }}"
    "{{ tool_call.function.arguments | tojson }}{{ '<|my_call_close|>' }}{%- endfor %}"
    "{%- elif message.role == 'tool' %}{{ '<|my_tool_result|>' + message.content }}"
    "{%- else %}{{ '<|im_start|>' + message.role + '\\n' + message.content }}{%- endif %}"
    "{%- endfor %}";
  struct oc_dialect d;
  oc_dialect_init(&d);
  ck_assert_int_eq(oc_dialect_from_template(&d, tmpl, strlen(tmpl)), 0);
  int open = 0, close = 0;
  for(size_t i = 0; i < d.n; i++) {
    open |= strcmp(d.markers[i], "<|my_call_open|>") == 0;
    close |= strcmp(d.markers[i], "<|my_call_close|>") == 0;
    /* results and role tokens are not call markup */
    ck_assert_str_ne(d.markers[i], "<|my_tool_result|>");
    ck_assert_str_ne(d.markers[i], "<|im_start|>");
  }
  ck_assert(open && close);
  const char *content = "Let me check.<|my_call_open|>get_weather{}";
  size_t at = 0;
  const char *family = NULL;
  ck_assert_ptr_null(oc_dialect_find_marker(content, strlen(content), NULL, NULL, NULL));
  ck_assert_str_eq(oc_dialect_find_marker(content, strlen(content), &d, &at, &family),
                   "<|my_call_open|>");
  ck_assert_uint_eq(at, 13);
  ck_assert_str_eq(family, "this target's chat template");
  oc_dialect_free(&d);
  /* nothing to read: nothing found, nothing allocated */
  oc_dialect_init(&d);
  ck_assert_int_eq(oc_dialect_from_template(&d, "{{ messages }}", 14), 0);
  ck_assert_uint_eq(d.n, 0);
  oc_dialect_free(&d);
}
END_TEST

START_TEST(recorded_templates_yield_their_tokens)
{
  /* For each of the 50 templates: every open marker of the table that is
   * one literal token of its text is among the markers read from it (or
   * already in tool_markers.def) */
  char *dir = tpl_shared_dir();
  if(!dir)
    return;
  struct tpl_table t;
  tpl_table_read("tool-markers.tsv", &t);
  size_t derived = 0;
  for(size_t i = 0; i < t.n; i++) {
    const char *name = t.rows[i].col[0], *open = t.rows[i].col[1];
    char *text = tpl_template_text(dir, name);
    struct oc_dialect d;
    oc_dialect_init(&d);
    ck_assert_int_eq(oc_dialect_from_template(&d, text, strlen(text)), 0);
    if(*open && token_like(open) && strstr(text, open)) {
      int found = 0;
      for(size_t k = 0; k < d.n; k++)
        found |= strcmp(d.markers[k], open) == 0;
      for(size_t k = 0; k < oc_dialect_table_size(); k++)
        found |= strcmp(oc_dialect_table_marker(k), open) == 0;
      ck_assert_msg(found, "line %d: %s: '%s' neither read from its text nor in the table",
                    t.rows[i].line, name, open);
    }
    derived += d.n;
    oc_dialect_free(&d);
    free(text);
  }
  ck_assert_uint_gt(derived, 30);
  tpl_table_free(&t);
  free(dir);
}
END_TEST

START_TEST(parser_failure)
{
  char fmt[64];
  const char *m = "The model produced output that does not match the expected peg-native format";
  ck_assert(oc_dialect_parse_failure(m, strlen(m), fmt, sizeof(fmt)));
  ck_assert_str_eq(fmt, "peg-native");
  static const char *const others[] = {
    "Context size has been exceeded.",
    "the request exceeds the available context size, try increasing it",
    "Field 'n': Value must be between 1 <= value <= 1, but got 2",
    "Jinja Exception: No user query found in messages.",
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(others); i++)
    ck_assert_msg(!oc_dialect_parse_failure(others[i], strlen(others[i]), fmt, sizeof(fmt)),
                  "'%s' taken for a parser failure", others[i]);
  ck_assert(!oc_dialect_parse_failure(NULL, 0, NULL, 0));
}
END_TEST

/* ---- when an in-band error was known before generating ----------------------- */

#define CK(delta, fr)                                                                             \
  "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"      \
  "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":" delta ",\"finish_reason\":" fr "}]}\n\n"
#define ROLE CK("{\"role\":\"assistant\",\"content\":\"\"}", "null")
#define TEXT CK("{\"content\":\"Hello\"}", "null")
#define ERR(type, msg)                                                                            \
  "data: {\"error\":{\"code\":500,\"message\":\"" msg "\",\"type\":\"" type "\"}}\n\n"
#define DONE "data: [DONE]\n\n"
#define PARSER "The model produced output that does not match the expected peg-native format"

START_TEST(early_error_policy)
{
  static const struct {
    const char *what;
    const char *body;
    int early, parse;
  } cases[] = {
    /* the 48 findings: role chunk, then the parser's error */
    { "parser error after the role chunk", ROLE ERR("server_error", PARSER), 0, 1 },
    { "parser error after content", ROLE TEXT ERR("server_error", PARSER), 0, 1 },
    { "a validation error as the first event", ERR("invalid_request_error", "bad n") DONE, 1, 0 },
    { "a server error as the first event", ERR("server_error", "boom") DONE, 1, 0 },
    { "a validation error after the role chunk", ROLE ERR("invalid_request_error", "bad n") DONE, 1, 0 },
    { "a prompt over the window after the role chunk",
      ROLE ERR("server_error", "the request exceeds the available context size, try increasing it") DONE,
      1, 0 },
    /* the shared cache ran out after the request was admitted */
    { "llama-server's cache exhausted after the role chunk",
      ROLE ERR("server_error", "Context size has been exceeded.") DONE, 0, 0 },
    { "llama-server's cache exhausted as the first event",
      ERR("server_error", "Context size has been exceeded.") DONE, 0, 0 },
    { "a validation error after content", ROLE TEXT ERR("invalid_request_error", "bad") DONE, 0, 0 },
    { "a server error after the role chunk", ROLE ERR("server_error", "boom") DONE, 0, 0 },
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(cases); i++) {
    struct rt_ex x = { "POST", "/v1/chat/completions",
                       "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],"
                       "\"stream\":true}",
                       200, "Content-Type: text/event-stream", cases[i].body, 0, NULL, 0, 0 };
    struct oc_findings f;
    rt_analyze(&x, "llama-server", 0, &f);
    int early = 0, parse = 0, event = 0;
    for(size_t k = 0; k < f.count; k++) {
      early |= f.items[k].rule == OC_R_STREAM_EARLY_ERROR;
      parse |= f.items[k].rule == OC_R_CHAT_OUTPUT_PARSE;
      event |= f.items[k].rule == OC_R_STREAM_ERROR_EVENT || f.items[k].rule == OC_R_STREAM_DONE;
    }
    ck_assert_msg(early == cases[i].early, "%s: STREAM-EARLY-ERROR %s", cases[i].what,
                  early ? "fired" : "did not fire");
    ck_assert_msg(parse == cases[i].parse, "%s: CHAT-OUTPUT-PARSE %s", cases[i].what,
                  parse ? "fired" : "did not fire");
    /* an error without [DONE] after it is STREAM-ERROR-EVENT + STREAM-DONE */
    if(!strstr(cases[i].body, DONE))
      ck_assert_msg(event, "%s: no STREAM-ERROR-EVENT / STREAM-DONE", cases[i].what);
    oc_findings_free(&f);
  }
  /* not streamed: the parser's 500 is named; the cache's 500 is not a parser failure */
  struct rt_ex x = { "POST", "/v1/chat/completions",
                     "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}", 500,
                     "Content-Type: application/json",
                     "{\"error\":{\"code\":500,\"message\":\"" PARSER "\",\"type\":\"server_error\"}}",
                     0, NULL, 0, 0 };
  struct oc_findings f;
  rt_analyze(&x, "llama-server", 0, &f);
  int parse = 0;
  for(size_t k = 0; k < f.count; k++)
    parse |= f.items[k].rule == OC_R_CHAT_OUTPUT_PARSE;
  ck_assert(parse);
  oc_findings_free(&f);
  x.body = "{\"error\":{\"code\":500,\"message\":\"Context size has been exceeded.\","
           "\"type\":\"server_error\"}}";
  rt_analyze(&x, "llama-server", 0, &f);
  for(size_t k = 0; k < f.count; k++)
    ck_assert(f.items[k].rule != OC_R_CHAT_OUTPUT_PARSE && f.items[k].rule != OC_R_STREAM_EARLY_ERROR);
  oc_findings_free(&f);
}
END_TEST

int main(void)
{
  rt_setup();
  Suite *s = suite_create("dialect");
  TCase *tc = tcase_create("dialect");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, every_recorded_marker_is_known);
  tcase_add_test(tc, prose_is_not_markup);
  tcase_add_test(tc, markers_from_a_template_text);
  tcase_add_test(tc, recorded_templates_yield_their_tokens);
  tcase_add_test(tc, parser_failure);
  tcase_add_test(tc, early_error_policy);
  suite_add_tcase(s, tc);
  int rc = oc_test_run(s);
  rt_teardown();
  return rc;
}
