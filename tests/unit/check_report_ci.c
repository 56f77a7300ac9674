/* check_report_ci.c — the CI reports and the history, piece by piece: the
 * Markdown summary's escaping and its client matrix (issue 12's per-case
 * "clients", rendered when present, absent otherwise), the annotations'
 * escaping and paths, and the history's edge cases: a target missing from
 * some runs, skips that are not flips, a pin change that is not a flip. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report_ci.h"
#include "report_history.h"

static cJSON *parse(const char *text)
{
  cJSON *j = cJSON_Parse(text);
  ck_assert_msg(j != NULL, "test JSON does not parse: %s", text);
  return j;
}

static char *summary(const cJSON *doc, const char *url)
{
  struct oc_buf b;
  oc_buf_init(&b, 1 << 20);
  ck_assert_int_eq(oc_ci_markdown_summary(doc, url, &b), OC_OK);
  return oc_buf_take(&b, NULL);
}

static char *annotations_in(const cJSON *doc, const char *ws, const char *cwd)
{
  struct oc_buf b;
  oc_buf_init(&b, 1 << 20);
  ck_assert_int_eq(oc_ci_github_annotations(doc, ws, cwd, &b), OC_OK);
  oc_buf_adds(&b, "");
  return oc_buf_take(&b, NULL);
}

static char *annotations(const cJSON *doc, const char *ws)
{
  return annotations_in(doc, ws, NULL);
}

#define HAS(hay, needle) ck_assert_msg(strstr(hay, needle) != NULL, "'%s' not in:\n%s", needle, hay)
#define HASNT(hay, needle) ck_assert_msg(strstr(hay, needle) == NULL, "'%s' in:\n%s", needle, hay)

static const char hostile[] =
  "{\"oacheck\": {\"version\": \"0.1.0\", \"started\": \"2026-12-01T00:00:00Z\", \"mode\": \"live\"},"
  " \"targets\": [{\"name\": \"t|<b>@team\", \"kind\": \"live\", \"profile\": \"openai\", \"reachable\": true}],"
  " \"summary\": {}, \"results\": ["
  "  {\"target\": \"t|<b>@team\", \"suite\": \"s\", \"case\": \"c1\", \"status\": \"fail\","
  "   \"suite_file\": \"/ws/suites/s.json\", \"suite_line\": 12,"
  "   \"findings\": [{\"rule\": \"CHAT-SCHEMA\", \"severity\": \"error\", \"message\": \"a|b `x` *y* [z](u) <img src=x>\\nnext\","
  "     \"where\": {\"text\": \"\"}, \"path\": null, \"expected\": null, \"actual\": null}]},"
  "  {\"target\": \"t|<b>@team\", \"suite\": \"s\", \"case\": \"c2\", \"status\": \"pass\", \"findings\": []}"
  "]}";

START_TEST(test_markdown_escaping)
{
  cJSON *doc = parse(hostile);
  char *md = summary(doc, "https://ci.example/r.html");
  /* text from the results cannot open a cell, a tag, a link or a mention */
  HAS(md, "t\\|&lt;b&gt;&#64;team");
  HAS(md, "a\\|b \\`x\\` \\*y\\* \\[z\\](u) &lt;img src=x&gt; next");
  HASNT(md, "<img");
  HASNT(md, "@team");
  HAS(md, "(https://ci.example/r.html#c-0)");
  /* no client matrix without clients */
  HASNT(md, "Will my client work?");
  free(md);
  cJSON_Delete(doc);
}
END_TEST

START_TEST(test_client_matrix)
{
  cJSON *doc = parse(hostile);
  cJSON *rs = oc_json_arr(doc, "results");
  cJSON_AddItemToObject(cJSON_GetArrayItem(rs, 0), "clients",
                        parse("{\"openai-node\": {\"works\": false, \"outcome\": \"wrong\", \"reason\": \"tool_calls: []\", \"basis\": \"verified\"},"
                              " \"langchain\": {\"works\": true, \"outcome\": \"ok\", \"basis\": \"verified\"}}"));
  /* a limitation (OpenAI's own answers break it too) is no break */
  cJSON_AddItemToObject(cJSON_GetArrayItem(rs, 1), "clients",
                        parse("{\"openai-node\": {\"works\": true}, \"langchain\": {\"works\": true},"
                              " \"ai-sdk\": {\"works\": false, \"limitation\": true, \"reason\": \"n: 2\"}}"));
  char *md = summary(doc, NULL);
  HAS(md, "#### Will my client work?\n\n| client | works | breaks | its limitation | first break |\n"
          "| --- | ---: | ---: | ---: | --- |\n");
  HAS(md, "| openai-node | 1 | 1 | 0 | t\\|&lt;b&gt;&#64;team · s/c1: tool\\_calls: \\[\\] |\n");
  HAS(md, "| langchain | 2 | 0 | 0 | — |\n");
  HAS(md, "| ai-sdk | 0 | 0 | 1 | — |\n");
  free(md);
  /* a case that ended in error is no evidence that langchain works */
  cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetArrayItem(rs, 1), "status", cJSON_CreateString("error"));
  md = summary(doc, NULL);
  HAS(md, "| langchain | 1 | 0 | 0 | — |\n");
  HAS(md, "| ai-sdk | 0 | 0 | 1 | — |\n"); /* what it showed on it still counts */
  free(md);
  cJSON_Delete(doc);
}
END_TEST

/* A client that returned faithfully what the server cut ("server_fault")
 * does not count as working: the table gains a column for it (only
 * then) and shows its first fault where there is no break (issue 25). */
START_TEST(test_client_matrix_server_fault)
{
  cJSON *doc = parse(hostile);
  cJSON *rs = oc_json_arr(doc, "results");
  cJSON_AddItemToObject(cJSON_GetArrayItem(rs, 0), "clients",
                        parse("{\"openai-node\": {\"works\": true, \"outcome\": \"ok\", \"server_fault\": true,"
                              " \"reason\": \"returns the answer as if whole\", \"basis\": \"verified\"},"
                              " \"langchain\": {\"works\": true, \"outcome\": \"ok\", \"basis\": \"verified\"}}"));
  cJSON_AddItemToObject(cJSON_GetArrayItem(rs, 1), "clients",
                        parse("{\"openai-node\": {\"works\": true, \"outcome\": \"ok\"}, \"langchain\": {\"works\": true, \"outcome\": \"ok\"}}"));
  char *md = summary(doc, NULL);
  HAS(md, "| client | works | breaks | server's fault | its limitation | first break (else the server's first fault) |\n"
          "| --- | ---: | ---: | ---: | ---: | --- |\n");
  HAS(md, "| openai-node | 1 | 0 | 1 | 0 | the server's fault: t\\|&lt;b&gt;&#64;team · s/c1: returns the answer as if whole |\n");
  HAS(md, "| langchain | 2 | 0 | 0 | 0 | — |\n");
  free(md);
  cJSON_Delete(doc);
}
END_TEST

START_TEST(test_annotation_paths)
{
  cJSON *doc = parse(hostile);
  char *a = annotations(doc, "/ws");
  ck_assert_str_eq(a, "::error file=suites/s.json,line=12,title=CHAT-SCHEMA::t|<b>@team s/c1 failed: "
                      "[error] CHAT-SCHEMA: a|b `x` *y* [z](u) <img src=x>%0Anext\n");
  free(a);
  a = annotations(doc, "/elsewhere");
  HAS(a, "::error title=CHAT-SCHEMA::");
  HASNT(a, "file=");
  free(a);
  /* a relative path is kept as it is (./ taken off) */
  cJSON *r = cJSON_GetArrayItem(oc_json_arr(doc, "results"), 0);
  cJSON_ReplaceItemInObject(r, "suite_file", cJSON_CreateString("./a,b:c.json"));
  a = annotations(doc, NULL);
  HAS(a, "::error file=a%2Cb%3Ac.json,line=12,title=");
  free(a);
  cJSON_Delete(doc);
}
END_TEST

/* The file of each annotation (suite_file), in the workspace ws, run in
 * cwd: the file= property, or "" when there is none. */
static char *file_of(const char *suite_file, const char *ws, const char *cwd)
{
  cJSON *doc = parse(hostile);
  cJSON *r = cJSON_GetArrayItem(oc_json_arr(doc, "results"), 0);
  cJSON_ReplaceItemInObject(r, "suite_file", cJSON_CreateString(suite_file));
  char *a = annotations_in(doc, ws, cwd);
  cJSON_Delete(doc);
  char *f = strstr(a, "file=");
  char *out = oc_strndup(f ? f + 5 : "", f ? strcspn(f + 5, ",") : 0);
  free(a);
  return out;
}

#define FILE_IS(want, suite_file, ws, cwd)                                                       \
  do {                                                                                          \
    char *got_ = file_of(suite_file, ws, cwd);                                                  \
    ck_assert_msg(strcmp(got_, want) == 0, "%s in %s from %s: file=%s, not %s", suite_file,      \
                  ws ? ws : "(no workspace)", cwd ? cwd : "(no cwd)", got_, want);              \
    free(got_);                                                                                 \
  } while(0)

START_TEST(test_annotation_repo_paths)
{
  /* GitHub resolves file= from the repository's root: a path it cannot
   * resolve there is left out, never emitted wrong.  Without a
   * workspace, the directory the run is in is the root */
  FILE_IS("", "../s/env.json", NULL, NULL);
  FILE_IS("", "../s/env.json", NULL, "/repo/sub");
  FILE_IS("", "a/../../x.json", NULL, NULL);
  FILE_IS("a/c.json", "./a/./b/..//c.json", NULL, NULL);
  FILE_IS("", "/repo/s.json", NULL, "/repo");
  /* with one, a relative file is taken from where the run is: a step's
   * working-directory below the root, or somewhere else altogether */
  FILE_IS("s/env.json", "../s/env.json", "/repo", "/repo/sub");
  FILE_IS("sub/s.json", "s.json", "/repo/", "/repo/sub");
  FILE_IS("", "s.json", "/repo", "/tmp");
  FILE_IS("", "../../x.json", "/repo", "/repo/sub");
  FILE_IS("s.json", "s.json", "/repo", NULL);
  FILE_IS("", "/repository/s.json", "/repo", "/repo");
  FILE_IS("", "/repo", "/repo", "/repo");
  FILE_IS("a/s.json", "/repo/x/../a/s.json", "/repo/.", "/");
  FILE_IS("repo/s.json", "/repo/s.json", "/", "/");
}
END_TEST

/* A run of two targets: "up" with nfail failing cases (CASE-ASSERT) and
 * one that errored on its own transport (HTTP-TRANSPORT, sent and lost),
 * "down" unreachable, its ndown cases in two suites never sent. */
static cJSON *not_run_doc(int nfail, int ndown)
{
  struct oc_buf b;
  oc_buf_init(&b, 1 << 20);
  oc_buf_adds(&b, "{\"oacheck\": {\"version\": \"0.1.0\", \"started\": \"2026-12-01T00:00:00Z\", \"mode\": \"live\"},"
                  " \"targets\": [{\"name\": \"up\", \"kind\": \"live\", \"profile\": \"llama-server\", \"reachable\": true},"
                  " {\"name\": \"down\", \"kind\": \"live\", \"profile\": \"openai\", \"profile_source\": \"auto\","
                  " \"reachable\": false,"
                  " \"error\": \"connection refused by http://127.0.0.1:9/v1/models\"}],"
                  " \"summary\": {}, \"results\": [");
  for(int i = 0; i < nfail; i++)
    oc_buf_printf(&b, "{\"target\": \"up\", \"suite\": \"s\", \"case\": \"c%d\", \"status\": \"fail\","
                      " \"findings\": [{\"rule\": \"CASE-ASSERT\", \"severity\": \"error\", \"message\": \"m%d\"}]},",
                  i, i);
  oc_buf_adds(&b, "{\"target\": \"up\", \"suite\": \"s\", \"case\": \"lost\", \"status\": \"error\","
                  " \"reason\": \"reset: the connection was reset\","
                  " \"findings\": [{\"rule\": \"HTTP-TRANSPORT\", \"severity\": \"error\", \"message\": \"reset\"}]}");
  for(int i = 0; i < ndown; i++)
    oc_buf_printf(&b, ",{\"target\": \"down\", \"suite\": \"%s\", \"case\": \"c%d\", \"status\": \"error\","
                      " \"not_run\": \"target-unreachable\","
                      " \"reason\": \"target unreachable: connection refused by http://127.0.0.1:9/v1/models\","
                      " \"findings\": [{\"rule\": \"HTTP-TRANSPORT\", \"severity\": \"error\", \"message\": \"x\"}]}",
                  i % 2 ? "s" : "t", i);
  oc_buf_adds(&b, "]}");
  ck_assert_int_eq(oc_buf_error(&b), OC_OK);
  cJSON *doc = parse(oc_buf_str(&b));
  oc_buf_free(&b);
  return doc;
}

static size_t count(const char *hay, const char *needle)
{
  size_t n = 0;
  for(const char *p = hay; (p = strstr(p, needle)); p++)
    n++;
  return n;
}

START_TEST(test_not_run_said_once)
{
  /* 60 real failures, one transport error and 70 cases never sent: the
   * 50 annotations go to real failures, the unreachable target gets one
   * more of its own; the summary a row, its rules not counted */
  cJSON *doc = not_run_doc(60, 70);
  char *a = annotations(doc, NULL);
  ck_assert_uint_eq(count(a, "::error "), 51);
  ck_assert_uint_eq(count(a, "::error title=CASE-ASSERT::up s/c"), 50);
  HAS(a, "::warning title=oacheck::11 more failing cases are not annotated");
  HAS(a, "::error title=target unreachable::down: 70 cases not run (2 suites): target unreachable: "
         "connection refused by http://127.0.0.1:9/v1/models\n");
  HASNT(a, "down t/");
  HASNT(a, "down s/");
  free(a);
  char *md = summary(doc, "https://ci.example/r.html");
  HAS(md, "#### Failing cases (61, and 70 not run)\n");
  /* the automatic profile of a target that said nothing is no profile */
  HAS(md, "| up | llama-server | — | 61 | 0 | 60 | 1 | 0 |\n");
  HAS(md, "| down (unreachable) | — | — | 70 | 0 | 0 | 70 | 0 |\n");
  ck_assert_uint_eq(count(md, "| fail | [up · s/c"), 50);
  ck_assert_uint_eq(count(md, "| error | [down"), 1);
  ck_assert_uint_eq(count(md, "down · "), 0);
  HAS(md, "| error | [down](https://ci.example/r.html#c-61): 70 cases not run (2 suites) | target unreachable: "
          "connection refused by http://127.0.0.1:9/v1/models |\n");
  HAS(md, "… and 11 more: see the reports.");
  /* HTTP-TRANSPORT is the lost case's alone */
  HAS(md, "| CASE-ASSERT | 60 | ");
  HAS(md, "| HTTP-TRANSPORT | 1 | ");
  free(md);
  cJSON_Delete(doc);
  /* no real failure: the row alone, and no rules table */
  doc = not_run_doc(0, 1);
  cJSON_DeleteItemFromArray(oc_json_arr(doc, "results"), 0);
  md = summary(doc, NULL);
  HAS(md, "#### Failing cases (1 not run)\n");
  HAS(md, "| error | down: 1 case not run | target unreachable: ");
  HASNT(md, "Failing rules");
  free(md);
  /* a profile the user gave is the target's, reached or not */
  cJSON *down = cJSON_GetArrayItem(oc_json_arr(doc, "targets"), 1);
  cJSON_ReplaceItemInObject(down, "profile_source", cJSON_CreateString("option"));
  md = summary(doc, NULL);
  HAS(md, "| down (unreachable) | openai | — | 1 | 0 | 0 | 1 | 0 |\n");
  free(md);
  a = annotations(doc, NULL);
  ck_assert_str_eq(a, "::error title=target unreachable::down: 1 case not run: target unreachable: "
                      "connection refused by http://127.0.0.1:9/v1/models\n");
  free(a);
  cJSON_Delete(doc);
}
END_TEST

/* ---- history ------------------------------------------------------------- */

/* One run: day d, target "t" with template tmpl (NULL: the target is
 * absent), case "c" with status st. */
static cJSON *run_doc(int d, const char *tmpl, const char *st)
{
  char text[1200];
  if(!tmpl)
    snprintf(text, sizeof(text),
             "{\"oacheck\": {\"started\": \"2026-10-%02dT00:00:00Z\"}, \"targets\": [], \"results\": []}", d);
  else
    snprintf(text, sizeof(text),
             "{\"oacheck\": {\"started\": \"2026-10-%02dT00:00:00Z\"},"
             " \"targets\": [{\"name\": \"t\", \"identity\": {\"model\": \"m\", \"chat_template_sha256\": \"%s\"}}],"
             " \"results\": [{\"target\": \"t\", \"suite\": \"s\", \"case\": \"c\", \"status\": \"%s\","
             " \"findings\": [%s]}]}",
             d, tmpl, st,
             strcmp(st, "fail") == 0 ? "{\"rule\": \"CHAT-SCHEMA\", \"severity\": \"error\"}" : "");
  return parse(text);
}

static cJSON *history(cJSON **docs, size_t n)
{
  const char *files[16];
  for(size_t i = 0; i < n; i++)
    files[i] = "f.json";
  char err[200];
  cJSON *h = oc_history_build((const cJSON *const *)docs, files, n, err, sizeof(err));
  ck_assert_msg(h != NULL, "%s", err);
  for(size_t i = 0; i < n; i++)
    cJSON_Delete(docs[i]);
  return h;
}

static const cJSON *target0(const cJSON *h)
{
  return cJSON_GetArrayItem(oc_json_arr(h, "targets"), 0);
}

START_TEST(test_history_absent_and_skips)
{
  /* pass, fail, (absent), fail, skip, pass, fail: the absent run and the
   * skip neither end the episode nor flip */
  cJSON *d[7] = { run_doc(1, "a", "pass"), run_doc(2, "a", "fail"), run_doc(3, NULL, NULL),
                  run_doc(4, "a", "fail"), run_doc(5, "a", "skip"), run_doc(6, "a", "pass"),
                  run_doc(7, "a", "fail") };
  cJSON *h = history(d, 7);
  const cJSON *t = target0(h);
  ck_assert_int_eq(cJSON_GetArraySize(oc_json_arr(t, "runs")), 6);
  const cJSON *rule = cJSON_GetArrayItem(oc_json_arr(t, "rules"), 0);
  ck_assert_str_eq(oc_json_str(rule, "rule"), "CHAT-SCHEMA");
  const cJSON *eps = oc_json_arr(rule, "episodes");
  ck_assert_int_eq(cJSON_GetArraySize(eps), 2);
  const cJSON *e0 = cJSON_GetArrayItem(eps, 0);
  ck_assert_double_eq(oc_json_num(oc_json_obj(e0, "began"), "run", 0), 2);
  /* recovered at the skip: the rule did not fail in run 5 */
  ck_assert_double_eq(oc_json_num(oc_json_obj(e0, "recovered"), "run", 0), 5);
  ck_assert_double_eq(oc_json_num(e0, "runs", 0), 2);
  ck_assert(cJSON_IsNull(oc_json_get(e0, "pin_change")));
  ck_assert(cJSON_IsTrue(oc_json_get(rule, "failing_now")));
  /* flips: 1->2, 4->6 (5 skipped), 6->7: three, all under one pin */
  const cJSON *f = cJSON_GetArrayItem(oc_json_arr(t, "flaky"), 0);
  ck_assert_ptr_nonnull(f);
  ck_assert_double_eq(oc_json_num(f, "flips", 0), 3);
  ck_assert_str_eq(oc_json_str(f, "verdicts"), "PF-FSPF");
  cJSON_Delete(h);
}
END_TEST

START_TEST(test_history_pin_change_is_no_flip)
{
  /* pass under template a, fail under b, pass under a again: two
   * verdict changes, each with a pin change: not flaky, and each onset
   * lined up with its change */
  cJSON *d[3] = { run_doc(1, "a", "pass"), run_doc(2, "b", "fail"), run_doc(3, "a", "pass") };
  cJSON *h = history(d, 3);
  const cJSON *t = target0(h);
  ck_assert_int_eq(cJSON_GetArraySize(oc_json_arr(t, "flaky")), 0);
  ck_assert_int_eq(cJSON_GetArraySize(oc_json_arr(t, "pin_changes")), 2);
  const cJSON *e0 = cJSON_GetArrayItem(oc_json_arr(cJSON_GetArrayItem(oc_json_arr(t, "rules"), 0), "episodes"), 0);
  const cJSON *pc = oc_json_arr(e0, "pin_change");
  ck_assert_ptr_nonnull(pc);
  ck_assert_str_eq(oc_json_str(cJSON_GetArrayItem(pc, 0), "field"), "chat_template_sha256");
  ck_assert_str_eq(oc_json_str(cJSON_GetArrayItem(pc, 0), "new"), "b");
  struct oc_buf b;
  oc_buf_init(&b, 1 << 16);
  ck_assert_int_eq(oc_history_text(h, &b), OC_OK);
  HAS(oc_buf_str(&b), "CHAT-SCHEMA (m): began failing at run 2 (2026-10-02T00:00:00Z), with the pin change "
                      "(chat_template_sha256); recovered at run 3");
  oc_buf_free(&b);
  cJSON_Delete(h);
}
END_TEST

static Suite *ci_suite(void)
{
  Suite *s = suite_create("report_ci");
  TCase *tc = tcase_create("report_ci");
  tcase_add_test(tc, test_markdown_escaping);
  tcase_add_test(tc, test_client_matrix);
  tcase_add_test(tc, test_client_matrix_server_fault);
  tcase_add_test(tc, test_annotation_paths);
  tcase_add_test(tc, test_annotation_repo_paths);
  tcase_add_test(tc, test_not_run_said_once);
  tcase_add_test(tc, test_history_absent_and_skips);
  tcase_add_test(tc, test_history_pin_change_is_no_flip);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(ci_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
