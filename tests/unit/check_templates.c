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
static void check(const char *request, int status, const char *prompt, const char *error,
                  char *out, size_t outlen)
{
  cJSON *req = cJSON_Parse(request);
  ck_assert_ptr_nonnull(req);
  struct oc_findings f;
  oc_findings_init(&f);
  struct oc_check c;
  oc_check_init(&c, &f, oc_profile_find("llama-server"));
  oc_templates_check(&c, req, status, prompt, error);
  out[0] = '\0';
  for(size_t i = 0; i < f.count; i++) {
    size_t used = strlen(out);
    snprintf(out + used, outlen - used, "%s ", oc_rule_name(f.items[i].rule));
  }
  oc_findings_free(&f);
  cJSON_Delete(req);
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

START_TEST(tool_ids_refused)
{
  const char *req =
    "{\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"f\",\"parameters\":{}}}],"
    "\"messages\":[{\"role\":\"user\",\"content\":\"Go.\"},{\"role\":\"assistant\",\"content\":\"\","
    "\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\","
    "\"arguments\":\"{}\"}}]},{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"ok\"}]}";
  char fired[256];
  check(req, 400, NULL,
        "Jinja Exception:\nTool call IDs should be alphanumeric strings with length 9!", fired,
        sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-TOOL-ID ");
  check(req, 200, "<user>Go.</user><call id=call_1>f({})</call><tool>ok</tool>", NULL, fired,
        sizeof(fired));
  ck_assert_str_eq(fired, "");
  /* a plain conversation that fails to render is TEMPLATE-RENDER */
  check(conv, 500, NULL, "template error", fired, sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-RENDER ");
}
END_TEST

START_TEST(server_date)
{
  const char *req = "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi.\"}]}";
  char fired[256];
  check(req, 200,
        "<|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\n"
        "Today Date: 30 Nov 2026\n\n<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nHi.<|eot_id|>",
        NULL, fired, sizeof(fired));
  ck_assert_str_eq(fired, "TEMPLATE-SERVER-DATE ");
  /* severity info: a fact about the template, not a failure */
  ck_assert_int_eq(oc_rule_find("TEMPLATE-SERVER-DATE")->severity, OC_SEV_INFO);
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
  tcase_add_test(tc, tool_ids_refused);
  tcase_add_test(tc, server_date);
  suite_add_tcase(s, tc);
  return oc_test_run(s);
}
