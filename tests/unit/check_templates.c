/* check_templates.c — the template checks of `oacheck templates`: each
 * TEMPLATE-* rule fires on a render that breaks it and stays quiet on one
 * that does not; the renders are shaped like the real llama-server ones
 * (suites/recordings/llama-server/templates). */
#include "config.h"

#include <check.h>
#include <string.h>

#include "json.h"
#include "rules.h"
#include "templates.h"
#include "testutil.h"

static const char *conv =
  "{\"messages\":[{\"role\":\"system\",\"content\":\"You are a helpful assistant.\"},"
  "{\"role\":\"user\",\"content\":\"What is the capital of France?\"},"
  "{\"role\":\"assistant\",\"content\":\"Paris.\"},"
  "{\"role\":\"user\",\"content\":\"And of Germany?\"}]}";

/* Run the checks; return the rules that fired, space-separated. */
static void check_ctx(const char *request, int status, const char *prompt, const char *error,
                      const struct oc_template_context *ctx, char *out, size_t outlen)
{
  cJSON *req = cJSON_Parse(request);
  ck_assert_ptr_nonnull(req);
  struct oc_findings f;
  oc_findings_init(&f);
  struct oc_check c;
  oc_check_init(&c, &f, oc_profile_find("llama-server"));
  oc_templates_check(&c, req, status, prompt, error, ctx);
  out[0] = '\0';
  for(size_t i = 0; i < f.count; i++) {
    size_t used = strlen(out);
    snprintf(out + used, outlen - used, "%s ", oc_rule_name(f.items[i].rule));
  }
  oc_findings_free(&f);
  cJSON_Delete(req);
}

/* The server's day: 30 Nov 2026. */
static void check(const char *request, int status, const char *prompt, const char *error,
                  char *out, size_t outlen)
{
  struct oc_template_context ctx = { "fx", NULL, 2026, 11, 30 };
  check_ctx(request, status, prompt, error, &ctx, out, outlen);
}

START_TEST(a_faithful_render_is_clean)
{
  char fired[256];
  check(conv, 200,
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\nWhat is the "
        "capital of France?<|im_end|>\n<|im_start|>assistant\nParis.<|im_end|>\n<|im_start|>user\nAnd "
        "of Germany?<|im_end|>\n<|im_start|>assistant\n",
        NULL, fired, sizeof(fired));
  ck_assert_str_eq(fired, "");
}
END_TEST

START_TEST(system_dropped)
{
  char fired[256];
  check(conv, 200, "[INST]What is the capital of France?[/INST]Paris.</s>[INST]And of Germany?[/INST]",
        NULL, fired, sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-SYSTEM-KEPT ");
}
END_TEST

START_TEST(system_moved)
{
  /* Mistral Nemo, as recorded: the system prompt joins the last user turn */
  char fired[256];
  check(conv, 200,
        "[INST]What is the capital of France?[/INST]Paris.</s>[INST]You are a helpful assistant.\n\n"
        "And of Germany?[/INST]",
        NULL, fired, sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-SYSTEM-MOVED ");
}
END_TEST

START_TEST(user_message_dropped)
{
  char fired[256];
  check(conv, 200, "You are a helpful assistant. What is the capital of France? Paris.", NULL, fired,
        sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-RENDER ");
}
END_TEST

START_TEST(unknown_role)
{
  const char *req = "{\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},"
                    "{\"role\":\"wizard\",\"content\":\"Say hello.\"}]}";
  char fired[256];
  check(req, 200, "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>assistant\n", NULL, fired,
        sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-UNKNOWN-ROLE ");
  /* refusing it is the right answer; rendering it too */
  check(req, 400, NULL, "unknown role", fired, sizeof(fired));
  ck_assert_str_eq(fired, "");
  check(req, 200, "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>wizard\nSay hello.<|im_end|>\n",
        NULL, fired, sizeof(fired));
  ck_assert_str_eq(fired, "");
}
END_TEST

/* The tool conversation of suites/templates/fixtures.json. */
static const char *tool_conv =
  "{\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
  "\"description\":\"Get the current weather for a location.\",\"parameters\":{\"type\":\"object\","
  "\"properties\":{\"location\":{\"type\":\"string\"},\"unit\":{\"type\":\"string\"}}}}}],"
  "\"messages\":[{\"role\":\"system\",\"content\":\"You are a helpful assistant.\"},"
  "{\"role\":\"user\",\"content\":\"What is the weather in Paris in celsius?\"},"
  "{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\","
  "\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"location\\\": \\\"Paris\\\", "
  "\\\"unit\\\": \\\"celsius\\\"}\"}}]},"
  "{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"{\\\"temperature\\\": 22, "
  "\\\"unit\\\": \\\"celsius\\\"}\"}]}";

/* Qwen 2.5's render of it (recorded): everything there, the result in a
 * user turn wrapped in <tool_response>. */
#define QWEN_TOOLS                                                                                \
  "<|im_start|>system\nYou are a helpful assistant.\n\n# Tools\n\n<tools>\n{\"type\": \"function\", " \
  "\"function\": {\"name\": \"get_weather\", \"description\": \"Get the current weather for a "  \
  "location.\"}}\n</tools><|im_end|>\n"
#define QWEN_USER "<|im_start|>user\nWhat is the weather in Paris in celsius?<|im_end|>\n"
#define QWEN_CALL                                                                                 \
  "<|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": " \
  "\"Paris\", \"unit\": \"celsius\"}}\n</tool_call><|im_end|>\n"
#define QWEN_RESULT                                                                               \
  "<|im_start|>user\n<tool_response>\n{\"temperature\": 22, \"unit\": \"celsius\"}\n"            \
  "</tool_response><|im_end|>\n<|im_start|>assistant\n"

START_TEST(tool_conversation_rendered)
{
  char fired[512];
  check(tool_conv, 200, QWEN_TOOLS QWEN_USER QWEN_CALL QWEN_RESULT, NULL, fired, sizeof(fired));
  ck_assert_str_eq(fired, "");
  /* gemma-4 re-quotes everything with <|"|>: the values are there */
  check(tool_conv, 200,
        "<|turn>system\nYou are a helpful assistant.<|tool>declaration:get_weather{description:<|\"|>"
        "Get the current weather for a location.<|\"|>}<tool|><turn|>\n<|turn>user\nWhat is the "
        "weather in Paris in celsius?<turn|>\n<|turn>model\n<|tool_call>call:get_weather{location:"
        "<|\"|>Paris<|\"|>,unit:<|\"|>celsius<|\"|>}<tool_call|><|tool_response>response:get_weather"
        "{temperature:22,unit:<|\"|>celsius<|\"|>}<tool_response|>",
        NULL, fired, sizeof(fired));
  ck_assert_str_eq(fired, "");
}
END_TEST

START_TEST(tools_not_rendered)
{
  char fired[512];
  /* SmolLM3 as recorded: no tools block, an empty assistant turn, the
   * result as a bare user turn */
  check(tool_conv, 200,
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n" QWEN_USER
        "<|im_start|>assistant\n<|im_end|>\n<|im_start|>user\n{\"temperature\": 22, \"unit\": "
        "\"celsius\"}<|im_end|>\n<|im_start|>assistant\n",
        NULL, fired, sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-TOOLS-RENDERED TEMPLATE-TOOL-CALL-RENDERED "
                          "TEMPLATE-TOOL-RESULT-RENDERED ");
  /* Phi-3.5: the result dropped too */
  check(tool_conv, 200,
        "<|system|>\nYou are a helpful assistant.<|end|>\n<|user|>\nWhat is the weather in Paris in "
        "celsius?<|end|>\n<|assistant|>\n<|end|>\n<|assistant|>\n",
        NULL, fired, sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-TOOLS-RENDERED TEMPLATE-TOOL-CALL-RENDERED "
                          "TEMPLATE-TOOL-RESULT-RENDERED ");
  /* the template's own text says why: it never reads tools or tool_calls */
  {
    struct oc_template_context ctx = { "tool-call", "{% for m in messages %}{{ m.content }}{% endfor %}",
                                       0, 0, 0 };
    struct oc_findings f;
    oc_findings_init(&f);
    struct oc_check c;
    oc_check_init(&c, &f, oc_profile_find("llama-server"));
    cJSON *req = cJSON_Parse(tool_conv);
    oc_templates_check(&c, req, 200, "You are a helpful assistant. " QWEN_USER, NULL, &ctx);
    int tools = 0, calls = 0;
    for(size_t i = 0; i < f.count; i++) {
      tools |= f.items[i].rule == OC_R_TEMPLATE_TOOLS_RENDERED &&
               strstr(f.items[i].message, "never reads `tools`") &&
               strstr(f.items[i].message, "tool-call:") == f.items[i].message;
      calls |= f.items[i].rule == OC_R_TEMPLATE_TOOL_CALL_RENDERED &&
               strstr(f.items[i].message, "never reads `tool_calls`");
    }
    ck_assert(tools && calls);
    oc_findings_free(&f);
    cJSON_Delete(req);
  }
  /* the description alone missing (firefunction) */
  check(tool_conv, 200,
        "<|im_start|>system\nYou are a helpful assistant. Tools: get_weather<|im_end|>\n" QWEN_USER
        QWEN_CALL QWEN_RESULT, NULL, fired, sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-TOOLS-RENDERED ");
}
END_TEST

START_TEST(tool_call_dropped_while_named_elsewhere)
{
  /* LFM2: the name is in the tool list, the assistant turn is empty */
  char fired[512];
  check(tool_conv, 200, QWEN_TOOLS QWEN_USER "<|im_start|>assistant\n<|im_end|>\n" QWEN_RESULT, NULL,
        fired, sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-TOOL-CALL-RENDERED ");
  /* an argument value missing from the call (Paris is in the user's text) */
  check(tool_conv, 200,
        QWEN_TOOLS QWEN_USER "<|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", "
        "\"arguments\": {\"unit\": \"celsius\"}}\n</tool_call><|im_end|>\n" QWEN_RESULT,
        NULL, fired, sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-TOOL-CALL-RENDERED ");
}
END_TEST

START_TEST(double_encoded)
{
  /* Llama 3.1's ipython turn, as recorded */
  char fired[512];
  check(tool_conv, 200,
        QWEN_TOOLS QWEN_USER QWEN_CALL
        "<|start_header_id|>ipython<|end_header_id|>\n\n\"{\\\"temperature\\\": 22, \\\"unit\\\": "
        "\\\"celsius\\\"}\"<|eot_id|>",
        NULL, fired, sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-DOUBLE-ENCODED ");
  /* the arguments shown as a JSON string */
  check(tool_conv, 200,
        QWEN_TOOLS QWEN_USER "<|im_start|>assistant\n<tool_call>\n{\"name\": \"get_weather\", "
        "\"arguments\": \"{\\\"location\\\": \\\"Paris\\\", \\\"unit\\\": \\\"celsius\\\"}\"}\n"
        "</tool_call><|im_end|>\n" QWEN_RESULT,
        NULL, fired, sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-DOUBLE-ENCODED ");
}
END_TEST

START_TEST(tools_header_empty)
{
  char fired[512];
  /* Hermes with no tools passed */
  check(conv, 200,
        "<|im_start|>system\nYou are a function calling AI model. You are provided with function "
        "signatures within <tools></tools> XML tags. Here are the available tools: <tools>  </tools>"
        "Use the following pydantic model json schema.<|im_end|>\n<|im_start|>system\nYou are a "
        "helpful assistant.<|im_end|>\n<|im_start|>user\nWhat is the capital of France?<|im_end|>\n"
        "<|im_start|>assistant\nParis.<|im_end|>\n<|im_start|>user\nAnd of Germany?<|im_end|>\n",
        NULL, fired, sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-TOOLS-EMPTY ");
  /* firefunction: a colon, then prose */
  check(conv, 200,
        "<|start_header_id|>system<|end_header_id|>\n\nYou are a helpful assistant.\nAvailable "
        "functions as JSON spec:\n\nBe nice.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n"
        "What is the capital of France?<|eot_id|>Paris.<|eot_id|>And of Germany?<|eot_id|>",
        NULL, fired, sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-TOOLS-EMPTY ");
  /* a fenced empty list under a heading (Cohere 2) */
  check(conv, 200,
        "# Available Tools\n```json\n[\n\n]\n```<|END_TEXT|>You are a helpful assistant. What is the "
        "capital of France? Paris. And of Germany?",
        NULL, fired, sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-TOOLS-EMPTY ");
  /* a list under the heading, or prose about tools: nothing */
  check(tool_conv, 200,
        "<|im_start|>system\nYou are a helpful assistant.\nYou have access to the following functions:"
        "\n\n<tools>\n{\"name\": \"get_weather\", \"description\": \"Get the current weather for a "
        "location.\"}\n</tools><|im_end|>\n" QWEN_USER QWEN_CALL QWEN_RESULT,
        NULL, fired, sizeof(fired));
  ck_assert_str_eq(fired, "");
  check(conv, 200,
        "You are a helpful assistant. The list of functions available to call is in the block below. "
        "Call available functions when it helps. What is the capital of France? Paris. And of Germany?",
        NULL, fired, sizeof(fired));
  ck_assert_str_eq(fired, "");
}
END_TEST

START_TEST(refusals)
{
  char fired[512];
  /* Mistral Nemo: an id refused */
  check(tool_conv, 400, NULL,
        "Unable to generate parser for this template. Automatic parser generation failed: \n"
        "------------\nError: Jinja Exception: Tool call IDs should be alphanumeric strings with "
        "length 9!", fired, sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-TOOL-ID ");
  /* Gemma 2: the tool conversation refused */
  check(tool_conv, 400, NULL,
        "Error: Jinja Exception: Conversation roles must alternate user/assistant/user/assistant/...",
        fired, sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-REFUSED ");
  /* a plain conversation that fails to render without the template's words */
  check(conv, 500, NULL, "template error", fired, sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-RENDER ");
  /* the template's own raise_exception message, matched against its text */
  const char *req = "{\"messages\":[{\"role\":\"system\",\"content\":\"Be brief.\"},"
                    "{\"role\":\"wizard\",\"content\":\"Say hello.\"}]}";
  struct oc_template_context ctx = {
    "unknown-role", "{%- if not ns.found %}{{ raise_exception('No user query found in messages.') }}",
    0, 0, 0 };
  struct oc_findings f;
  oc_findings_init(&f);
  struct oc_check c;
  oc_check_init(&c, &f, oc_profile_find("llama-server"));
  cJSON *r = cJSON_Parse(req);
  oc_templates_check(&c, r, 500, NULL, "While executing CallExpression\nError: No user query found "
                     "in messages.", &ctx);
  ck_assert_uint_eq(f.count, 1);
  ck_assert_str_eq(oc_rule_name(f.items[0].rule), "TEMPLATE-REFUSED");
  ck_assert_int_eq(f.items[0].severity, OC_SEV_ERROR); /* a refusal with a 5xx */
  ck_assert_ptr_nonnull(strstr(f.items[0].message, "unknown-role"));
  oc_findings_free(&f);
  /* the same refusal with a 400: the right answer to an unknown role */
  oc_findings_init(&f);
  oc_check_init(&c, &f, oc_profile_find("llama-server"));
  oc_templates_check(&c, r, 400, NULL, "Error: No user query found in messages.", &ctx);
  ck_assert_uint_eq(f.count, 1);
  ck_assert_int_eq(f.items[0].severity, OC_SEV_INFO);
  oc_findings_free(&f);
  cJSON_Delete(r);
}
END_TEST

START_TEST(server_date)
{
  const char *req = "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi.\"}]}";
  char fired[256];
  /* every form of the server's day, and the day either side */
  static const char *const forms[] = { "Today Date: 30 Nov 2026", "Today is Nov 30 2026.",
                                       "Current date: 2026-11-30", "It is November 30, 2026.",
                                       "Current date: 2026-12-01", "Date: 29 Nov 2026" };
  for(size_t i = 0; i < OC_ARRAY_LEN(forms); i++) {
    char prompt[200];
    snprintf(prompt, sizeof(prompt), "<|system|>%s<|user|>Hi.", forms[i]);
    check(req, 200, prompt, NULL, fired, sizeof(fired));
    ck_assert_msg(strcmp(fired, "TEMPLATE-SERVER-DATE ") == 0, "'%s': %s", forms[i], fired);
  }
  ck_assert_int_eq(oc_rule_find("TEMPLATE-SERVER-DATE")->severity, OC_SEV_WARNING);
  /* another day, a cutoff written in the template, a date the user wrote */
  check(req, 200, "Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n<|user|>Hi.", NULL,
        fired, sizeof(fired));
  ck_assert_str_eq(fired, "");
  struct oc_template_context ctx = { "fx", "{%- set date_string = \"30 Nov 2026\" %}", 2026, 11, 30 };
  check_ctx(req, 200, "Today Date: 30 Nov 2026\n<|user|>Hi.", NULL, &ctx, fired, sizeof(fired));
  ck_assert_str_eq(fired, "");
  check(
    "{\"messages\":[{\"role\":\"user\",\"content\":\"Is 2026-11-30 a Monday?\"}]}", 200,
    "<|user|>Is 2026-11-30 a Monday?", NULL, fired, sizeof(fired));
  ck_assert_str_eq(fired, "");
  /* the day unknown: nothing to compare with */
  struct oc_template_context none = { "fx", NULL, 0, 0, 0 };
  check_ctx(req, 200, "Today Date: 30 Nov 2026\n<|user|>Hi.", NULL, &none, fired, sizeof(fired));
  ck_assert_str_eq(fired, "");
  /* a recording without its time: a whole date the template's text does
   * not hold came from the server's clock; its own fallback did not */
  struct oc_template_context text_only = {
    "fx", "{%- if not date_string is defined %}{%- set date_string = \"26 Jul 2024\" %}", 0, 0, 0 };
  check_ctx(req, 200, "Cutting Knowledge Date: December 2023\nToday Date: 30 Nov 2026\n<|user|>Hi.",
            NULL, &text_only, fired, sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-SERVER-DATE ");
  check_ctx(req, 200, "Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n<|user|>Hi.",
            NULL, &text_only, fired, sizeof(fired));
  ck_assert_str_eq(fired, "");
  check_ctx(req, 200, "Current date: 2026-12-01\n<|user|>Hi.", NULL, &text_only, fired, sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-SERVER-DATE ");
  check_ctx(req, 200, "Version 2026-12-011 build\n<|user|>Hi.", NULL, &text_only, fired, sizeof(fired));
  ck_assert_str_eq(fired, "");
  /* the day from a Date header or a recording's time */
  struct oc_template_context d;
  memset(&d, 0, sizeof(d));
  ck_assert(oc_templates_set_day(&d, "Tue, 01 Dec 2026 06:44:58 GMT"));
  ck_assert_int_eq(d.year * 10000 + d.month * 100 + d.day, 20261201);
  ck_assert(oc_templates_set_day(&d, "2026-11-30T23:59:59Z"));
  ck_assert_int_eq(d.year * 10000 + d.month * 100 + d.day, 20261130);
  ck_assert(!oc_templates_set_day(&d, "yesterday"));
  ck_assert(!oc_templates_set_day(&d, NULL));
}
END_TEST

/* The reasoning fixtures: an assistant turn sends its reasoning back
 * (reasoning_content), then a tool result (the agent loop) or a new user
 * message.  The renders are shaped like the recorded ones (Qwen3 keeps
 * the first and drops the second; DeepSeek-R1's template drops both). */
static const char *then_tool =
  "{\"messages\":[{\"role\":\"user\",\"content\":\"What is the weather in Paris?\"},"
  "{\"role\":\"assistant\",\"content\":\"\",\"reasoning_content\":\"\\nI call get_weather.\\n\","
  "\"tool_calls\":[{\"id\":\"abc123XYZ\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
  "\"arguments\":\"{\\\"location\\\": \\\"Paris\\\"}\"}}]},"
  "{\"role\":\"tool\",\"tool_call_id\":\"abc123XYZ\",\"content\":\"22 degrees\"}]}";
static const char *then_user =
  "{\"messages\":[{\"role\":\"user\",\"content\":\"What is the capital of France?\"},"
  "{\"role\":\"assistant\",\"content\":\"Paris.\",\"reasoning_content\":\"France's capital is Paris.\"},"
  "{\"role\":\"user\",\"content\":\"And of Germany?\"}]}";
#define QWEN3_TOOL_KEPT                                                                           \
  "<|im_start|>user\nWhat is the weather in Paris?<|im_end|>\n<|im_start|>assistant\n<think>\nI "   \
  "call get_weather.\n</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "         \
  "{\"location\": \"Paris\"}}\n</tool_call><|im_end|>\n<|im_start|>user\n<tool_response>\n22 "      \
  "degrees\n</tool_response><|im_end|>\n<|im_start|>assistant\n"
#define R1_TOOL_DROPPED                                                                           \
  "<｜User｜>What is the weather in Paris?<｜Assistant｜><｜tool▁calls▁begin｜>get_weather\n"          \
  "{\"location\": \"Paris\"}<｜tool▁calls▁end｜><｜end▁of▁sentence｜><｜tool▁outputs▁begin｜>22 "     \
  "degrees<｜tool▁outputs▁end｜><｜Assistant｜>"

static void seen(const char *request, const char *prompt, const char *tmpl,
                 struct oc_template_reasoning_seen *out)
{
  cJSON *req = cJSON_Parse(request);
  ck_assert_ptr_nonnull(req);
  oc_templates_reasoning(req, prompt, tmpl, out);
  cJSON_Delete(req);
}

START_TEST(reasoning_before_a_tool_result)
{
  char fired[256];
  struct oc_template_reasoning_seen rs;
  const char *qwen3 = "{%- if loop.index0 > ns.last_query_index %}<think>{{ reasoning_content }}";
  const char *r1 = "{% set content = content.split('</think>')[-1] %}";
  const char *glm = "{%- if (clear_thinking is defined and not clear_thinking) %}<think>";
  struct oc_template_context ctx = { "reasoning-then-tool", qwen3, 0, 0, 0 };
  /* kept (the whitespace around it trimmed, as Qwen3 does): the behaviour, no finding */
  check_ctx(then_tool, 200, QWEN3_TOOL_KEPT, NULL, &ctx, fired, sizeof(fired));
  ck_assert_str_eq(fired, "");
  seen(then_tool, QWEN3_TOOL_KEPT, qwen3, &rs);
  ck_assert_int_eq(rs.state, OC_TPL_REASONING_KEPT);
  ck_assert_str_eq(rs.followed_by, "tool");
  ck_assert_str_eq(oc_templates_reasoning_name(rs.state), "kept");
  /* dropped by a reasoning model's template: the prompt cache misses every
   * tool round, a warning that says whether --reasoning-preserve helps */
  ctx.template_text = r1;
  cJSON *req = cJSON_Parse(then_tool);
  struct oc_findings f;
  oc_findings_init(&f);
  struct oc_check c;
  oc_check_init(&c, &f, oc_profile_find("llama-server"));
  oc_templates_check(&c, req, 200, R1_TOOL_DROPPED, NULL, &ctx);
  ck_assert_uint_eq(f.count, 1);
  ck_assert_int_eq(f.items[0].rule, OC_R_TEMPLATE_REASONING_HISTORY);
  ck_assert_int_eq(f.items[0].severity, OC_SEV_WARNING);
  ck_assert_ptr_nonnull(strstr(f.items[0].message, "prompt cache misses from that turn on at every tool round"));
  ck_assert_ptr_nonnull(strstr(f.items[0].message, "--reasoning-preserve does nothing here"));
  oc_findings_free(&f);
  oc_findings_init(&f);
  oc_check_init(&c, &f, oc_profile_find("llama-server"));
  ctx.template_text = glm;
  oc_templates_check(&c, req, 200, R1_TOOL_DROPPED, NULL, &ctx);
  ck_assert_uint_eq(f.count, 1);
  ck_assert_ptr_nonnull(strstr(f.items[0].message, "a switch for it: llama-server --reasoning-preserve"));
  oc_findings_free(&f);
  /* the template's text unknown: said, as information */
  oc_findings_init(&f);
  oc_check_init(&c, &f, oc_profile_find("llama-server"));
  ctx.template_text = NULL;
  oc_templates_check(&c, req, 200, R1_TOOL_DROPPED, NULL, &ctx);
  ck_assert_uint_eq(f.count, 1);
  ck_assert_int_eq(f.items[0].severity, OC_SEV_INFO);
  oc_findings_free(&f);
  cJSON_Delete(req);
  seen(then_tool, R1_TOOL_DROPPED, r1, &rs);
  ck_assert_int_eq(rs.state, OC_TPL_REASONING_DROPPED);
  /* a template that reads no reasoning at all (Qwen 2.5): nothing to keep */
  ctx.template_text = "{%- for message in messages %}{{ message.content }}{%- endfor %}";
  check_ctx(then_tool, 200, R1_TOOL_DROPPED, NULL, &ctx, fired, sizeof(fired));
  ck_assert_str_eq(fired, "");
  seen(then_tool, R1_TOOL_DROPPED, ctx.template_text, &rs);
  ck_assert_int_eq(rs.state, OC_TPL_REASONING_UNREAD);
  ck_assert_str_eq(oc_templates_reasoning_name(rs.state), "unread");
  /* "reasoning" in a system prompt's prose (GigaChat, Devstral) is not a
   * template that reads reasoning; a name with it is (Solar's
   * reasoning_effort, Apertus's enable_thinking) */
  seen(then_tool, R1_TOOL_DROPPED,
       "{{- 'Maintain a logical chain of reasoning when answering. Thinking helps.' }}", &rs);
  ck_assert_int_eq(rs.state, OC_TPL_REASONING_UNREAD);
  seen(then_tool, R1_TOOL_DROPPED, "{%- if reasoning_effort is defined %}", &rs);
  ck_assert_int_eq(rs.state, OC_TPL_REASONING_DROPPED);
  seen(then_tool, R1_TOOL_DROPPED, "{%- if enable_thinking %}", &rs);
  ck_assert_int_eq(rs.state, OC_TPL_REASONING_DROPPED);
  seen(then_tool, R1_TOOL_DROPPED, "{%- if 'thinking' in message %}", &rs);
  ck_assert_int_eq(rs.state, OC_TPL_REASONING_DROPPED);
}
END_TEST

START_TEST(reasoning_after_a_user_turn)
{
  char fired[256];
  struct oc_template_reasoning_seen rs;
  struct oc_template_context ctx = { "reasoning-then-user", "<think>{{ reasoning_content }}</think>",
                                     0, 0, 0 };
  /* dropped (Qwen3, GLM): what a reasoning template does, no finding */
  const char *dropped = "<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>"
                        "assistant\nParis.<|im_end|>\n<|im_start|>user\nAnd of Germany?<|im_end|>\n";
  check_ctx(then_user, 200, dropped, NULL, &ctx, fired, sizeof(fired));
  ck_assert_str_eq(fired, "");
  seen(then_user, dropped, ctx.template_text, &rs);
  ck_assert_int_eq(rs.state, OC_TPL_REASONING_DROPPED);
  ck_assert_str_eq(rs.followed_by, "user");
  /* kept (--reasoning-preserve): old reasoning stays in the context, information */
  const char *kept = "<|user|>What is the capital of France?<|assistant|><think>France's capital is "
                     "Paris.</think>Paris.<|user|>And of Germany?<|assistant|>";
  cJSON *req = cJSON_Parse(then_user);
  struct oc_findings f;
  oc_findings_init(&f);
  struct oc_check c;
  oc_check_init(&c, &f, oc_profile_find("llama-server"));
  oc_templates_check(&c, req, 200, kept, NULL, &ctx);
  ck_assert_uint_eq(f.count, 1);
  ck_assert_int_eq(f.items[0].rule, OC_R_TEMPLATE_REASONING_HISTORY);
  ck_assert_int_eq(f.items[0].severity, OC_SEV_INFO);
  ck_assert_str_eq(f.items[0].actual, "kept");
  oc_findings_free(&f);
  cJSON_Delete(req);
  /* a conversation that sends no reasoning back, or a trailing assistant
   * turn (a prefill): no behaviour to report */
  seen(conv, dropped, ctx.template_text, &rs);
  ck_assert_int_eq(rs.state, OC_TPL_REASONING_NONE);
  ck_assert_ptr_null(oc_templates_reasoning_name(rs.state));
  seen("{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"},{\"role\":\"assistant\",\"content\":\"\","
       "\"reasoning_content\":\"Greet.\"}]}", "Hi Greet.", ctx.template_text, &rs);
  ck_assert_int_eq(rs.state, OC_TPL_REASONING_NONE);
  /* a failed render: nothing seen */
  seen(then_user, NULL, ctx.template_text, &rs);
  ck_assert_int_eq(rs.state, OC_TPL_REASONING_NONE);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("templates");
  TCase *tc = tcase_create("checks");
  tcase_add_test(tc, a_faithful_render_is_clean);
  tcase_add_test(tc, system_dropped);
  tcase_add_test(tc, system_moved);
  tcase_add_test(tc, user_message_dropped);
  tcase_add_test(tc, unknown_role);
  tcase_add_test(tc, tool_conversation_rendered);
  tcase_add_test(tc, tools_not_rendered);
  tcase_add_test(tc, tool_call_dropped_while_named_elsewhere);
  tcase_add_test(tc, double_encoded);
  tcase_add_test(tc, tools_header_empty);
  tcase_add_test(tc, refusals);
  tcase_add_test(tc, server_date);
  tcase_add_test(tc, reasoning_before_a_tool_result);
  tcase_add_test(tc, reasoning_after_a_user_turn);
  suite_add_tcase(s, tc);
  return oc_test_run(s);
}
