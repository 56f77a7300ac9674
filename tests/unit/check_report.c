/* check_report.c — the reports: escaping for XML and HTML (text vs
 * attribute, controls, invalid UTF-8), the JUnit mapping and its edge
 * cases, the HTML report's escaping and sections, checking results
 * documents (whole, and a result at a time), merge and diff. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "report_console.h"
#include "report_html.h"
#include "report_junit.h"
#include "report_merge.h"
#include "results_json.h"
#include "shard.h"
#include "testutil.h"

/* ---- helpers ---------------------------------------------------------- */

static char *esc(const char *s, size_t n, enum oc_esc mode)
{
  struct oc_buf b;
  oc_buf_init(&b, 1 << 20);
  ck_assert_int_eq(oc_esc_add(&b, s, n, mode), OC_OK);
  return oc_buf_take(&b, NULL);
}

#define ESC_EQ(in, mode, want)                                                                \
  do {                                                                                        \
    char *got_ = esc((in), sizeof(in) - 1, (mode));                                           \
    ck_assert_str_eq(got_, (want));                                                           \
    free(got_);                                                                               \
  } while(0)

static cJSON *parse(const char *text)
{
  cJSON *j = cJSON_Parse(text);
  ck_assert_msg(j != NULL, "test JSON does not parse: %s", text);
  return j;
}

static char *junit(const cJSON *doc)
{
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_REPORT);
  ck_assert_int_eq(oc_report_junit_render(doc, &b), OC_OK);
  return oc_buf_take(&b, NULL);
}

static char *html(const cJSON *doc)
{
  char *assets = oc_test_src("reports");
  char err[512] = "";
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_REPORT);
  int rc = oc_report_html_render(doc, assets, &b, err, sizeof(err));
  ck_assert_msg(rc == OC_OK, "%s", err);
  free(assets);
  return oc_buf_take(&b, NULL);
}

static size_t count(const char *hay, const char *needle)
{
  size_t n = 0, len = strlen(needle);
  for(const char *p = strstr(hay, needle); p; p = strstr(p + len, needle))
    n++;
  return n;
}

static cJSON *load_fixture(const char *name)
{
  char *rel = oc_asprintf("tests/data/results/%s", name);
  char *path = oc_test_src(rel);
  char err[1024] = "";
  cJSON *doc = oc_results_load(path, err, sizeof(err));
  ck_assert_msg(doc != NULL, "%s", err);
  free(rel);
  free(path);
  return doc;
}

/* A small document: header, one target, results given as JSON text. */
static cJSON *doc_with(const char *targets, const char *results)
{
  char *text = oc_asprintf("{\"oacheck\":{\"version\":\"0.1.0\",\"started\":\"2026-11-30T02:00:00Z\","
                           "\"mode\":\"live\",\"suites\":[\"s1\",\"s2\"]},"
                           "\"targets\":%s,\"summary\":{\"total\":0,\"pass\":0,\"fail\":0,"
                           "\"error\":0,\"skip\":0},\"results\":%s}",
                           targets, results);
  cJSON *j = parse(text);
  free(text);
  return j;
}

#define TARGET_A "{\"name\":\"a\",\"kind\":\"live\",\"profile\":\"openai\",\"reachable\":true," \
                 "\"url\":\"http://user:pw@127.0.0.1:8080/?key=k\",\"identity\":{\"model\":null,\"n_ctx\":512}}"
#define TARGET_B "{\"name\":\"b\",\"kind\":\"replay\",\"profile\":\"llama-server\",\"reachable\":true}"
#define NOFIND "\"findings\":[]"
#define FIND(rule, sev, msg)                                                                   \
  "{\"rule\":\"" rule "\",\"severity\":\"" sev "\",\"message\":\"" msg "\",\"where\":{\"text\":\"\"}," \
  "\"path\":null,\"expected\":null,\"actual\":null}"

/* ---- escaping --------------------------------------------------------- */

START_TEST(xml_text_and_attr)
{
  ESC_EQ("a<b>&\"'", OC_ESC_XML_TEXT, "a&lt;b&gt;&amp;\"'");
  ESC_EQ("a<b>&\"'", OC_ESC_XML_ATTR, "a&lt;b&gt;&amp;&quot;&apos;");
  ESC_EQ("x\ty\nz", OC_ESC_XML_TEXT, "x\ty\nz");
  ESC_EQ("x\ty\nz", OC_ESC_XML_ATTR, "x&#9;y&#10;z");
  ESC_EQ("]]>", OC_ESC_XML_TEXT, "]]&gt;");
}
END_TEST

START_TEST(html_text_and_attr)
{
  ESC_EQ("<script>alert(1)</script>", OC_ESC_HTML_TEXT, "&lt;script&gt;alert(1)&lt;/script&gt;");
  ESC_EQ("\"><img src=x onerror=alert(1)>", OC_ESC_HTML_TEXT,
         "\"&gt;&lt;img src=x onerror=alert(1)&gt;");
  ESC_EQ("\"><img src=x onerror=alert(1)>", OC_ESC_HTML_ATTR,
         "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;");
  ESC_EQ("it's", OC_ESC_HTML_TEXT, "it's");
  ESC_EQ("it's", OC_ESC_HTML_ATTR, "it&#39;s");
  ESC_EQ("a&amp;b", OC_ESC_HTML_TEXT, "a&amp;amp;b");
}
END_TEST

START_TEST(controls_become_visible)
{
  ESC_EQ("a\x01" "b\x1b[31m", OC_ESC_TEXT, "a\\u0001b\\u001B[31m");
  ESC_EQ("cr\r", OC_ESC_XML_TEXT, "cr\\u000D");
  ESC_EQ("del\x7f", OC_ESC_XML_ATTR, "del\\u007F");
  ESC_EQ("c1\xc2\x85\xc2\x9b", OC_ESC_HTML_TEXT, "c1\\u0085\\u009B");
  ESC_EQ("nc\xef\xbf\xbe\xef\xbf\xbf", OC_ESC_XML_TEXT, "nc\\uFFFE\\uFFFF");
  /* tab and line feed are text */
  ESC_EQ("\t\n", OC_ESC_TEXT, "\t\n");
}
END_TEST

START_TEST(invalid_utf8_becomes_replacement)
{
#define FFFD "\xef\xbf\xbd"
  ESC_EQ("\xff", OC_ESC_XML_TEXT, FFFD);
  ESC_EQ("\xc3\x28", OC_ESC_XML_TEXT, FFFD "(");
  ESC_EQ("\xc0\xaf", OC_ESC_XML_TEXT, FFFD FFFD);                   /* overlong */
  ESC_EQ("\xed\xa0\x80", OC_ESC_XML_TEXT, FFFD FFFD FFFD);          /* surrogate */
  ESC_EQ("\xf4\x90\x80\x80", OC_ESC_XML_TEXT, FFFD FFFD FFFD FFFD); /* > U+10FFFF */
  ESC_EQ("x\xe2\x82", OC_ESC_HTML_TEXT, "x" FFFD FFFD);             /* cut short */
  ESC_EQ("\xe2\x82\xac \xf0\x9f\x98\x80", OC_ESC_XML_ATTR, "\xe2\x82\xac \xf0\x9f\x98\x80");
  ESC_EQ("<\xff>", OC_ESC_HTML_ATTR, "&lt;" FFFD "&gt;");
#undef FFFD
}
END_TEST

START_TEST(cut_on_utf8_boundary)
{
  struct oc_buf b;
  oc_buf_init(&b, 100);
  ck_assert_int_eq(oc_esc_addn_cut(&b, "\xc3\xa9\xc3\xa9\xc3\xa9", 3, OC_ESC_TEXT), OC_OK);
  ck_assert_str_eq(oc_buf_str(&b), "\xc3\xa9\xe2\x80\xa6");
  oc_buf_reset(&b);
  ck_assert_int_eq(oc_esc_addn_cut(&b, "abc", 3, OC_ESC_TEXT), OC_OK);
  ck_assert_str_eq(oc_buf_str(&b), "abc");
  oc_buf_free(&b);
}
END_TEST

START_TEST(secrets_scrubbed)
{
  char *s = oc_results_scrub_command("curl -H 'Authorization: Bearer sk-abc123' -H \"Authorization: bearer $OPENAI_API_KEY\" x");
  ck_assert_str_eq(s, "curl -H 'Authorization: Bearer $OPENAI_API_KEY' -H \"Authorization: bearer $OPENAI_API_KEY\" x");
  free(s);
  s = oc_results_clean_url("https://user:pw@example.com:8443/v1/chat?api-key=k#f");
  ck_assert_str_eq(s, "https://example.com:8443/v1/chat");
  free(s);
  s = oc_results_clean_url("http://127.0.0.1:8080");
  ck_assert_str_eq(s, "http://127.0.0.1:8080");
  free(s);
  char t[32];
  oc_ms_to_seconds(1500, t);
  ck_assert_str_eq(t, "1.500");
  oc_ms_to_seconds(-3, t);
  ck_assert_str_eq(t, "0.000");
  oc_ms_to_seconds(1e300, t);
  ck_assert_str_eq(t, "0.000");
}
END_TEST

/* ---- checking documents ------------------------------------------------ */

START_TEST(check_names_file_and_pointer)
{
  char err[512];
  cJSON *d = doc_with("[" TARGET_A "]",
                      "[{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"c\",\"status\":\"pass\"," NOFIND "},"
                      "{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"d\",\"status\":\"boom\"," NOFIND "}]");
  ck_assert_int_eq(oc_results_check(d, "r.json", err, sizeof(err)), OC_EPARSE);
  ck_assert_msg(strstr(err, "r.json: at /results/1/status: expected one of pass, fail, error, skip"),
                "%s", err);
  cJSON_Delete(d);

  d = doc_with("[" TARGET_A "]", "[{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"c\",\"status\":\"pass\"}]");
  ck_assert_int_eq(oc_results_check(d, "r.json", err, sizeof(err)), OC_EPARSE);
  ck_assert_msg(strstr(err, "at /results/0: required member \"findings\" is missing"), "%s", err);
  cJSON_Delete(d);

  d = doc_with("[" TARGET_A "]", "[{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"c\",\"status\":\"fail\","
                                 "\"findings\":[{\"rule\":\"X-Y\",\"severity\":\"error\",\"message\":\"m\","
                                 "\"where\":{\"text\":\"\",\"chunk\":\"3\"},\"path\":null,\"expected\":null,\"actual\":null}]}]");
  ck_assert_int_eq(oc_results_check(d, "r.json", err, sizeof(err)), OC_EPARSE);
  ck_assert_msg(strstr(err, "at /results/0/findings/0/where/chunk: expected integer or null, got string"),
                "%s", err);
  cJSON_Delete(d);

  /* beyond the hand checks, the schema: a rule ID has a pattern */
  d = doc_with("[" TARGET_A "]", "[{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"c\",\"status\":\"fail\","
                                 "\"findings\":[" FIND("not a rule", "error", "m") "]}]");
  ck_assert_int_eq(oc_results_check(d, "r.json", err, sizeof(err)), OC_EPARSE);
  ck_assert_msg(strstr(err, "r.json: at /results/0/findings/0/rule: "), "%s", err);
  cJSON_Delete(d);

  cJSON *arr = parse("[1,2]");
  ck_assert_int_eq(oc_results_check(arr, "x.json", err, sizeof(err)), OC_EPARSE);
  ck_assert_msg(strstr(err, "x.json: at / (the root): expected a results object, got array"), "%s", err);
  cJSON_Delete(arr);
}
END_TEST

/* ---- a results file a result at a time -------------------------------- */

struct collected {
  cJSON *all;   /* what each was handed, in order */
  int stop_at;  /* each refuses this result (-1: none) */
};

static int collect(void *ud, cJSON *r, size_t i, char *err, size_t errlen)
{
  struct collected *c = ud;
  ck_assert_int_eq((int)i, cJSON_GetArraySize(c->all));
  if((int)i == c->stop_at) {
    snprintf(err, errlen, "refused result %zu", i);
    cJSON_Delete(r);
    return OC_EIO;
  }
  cJSON_AddItemToArray(c->all, r);
  return OC_OK;
}

static char *temp_with(const char *text, size_t len)
{
  char *path = oc_strdup("/tmp/oacheck-each-XXXXXX");
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq((int)write(fd, text, len), (int)len);
  close(fd);
  return path;
}

static int last_rc; /* what the last load_each returned */

/* text loaded a result at a time: the frame, or NULL with err; *all the
 * results handed over (caller deletes) */
static cJSON *load_each(const char *text, cJSON **all, int stop_at, char *err, size_t errlen)
{
  char *path = temp_with(text, strlen(text));
  struct collected c = { cJSON_CreateArray(), stop_at };
  cJSON *frame = NULL;
  int rc = oc_results_load_each(path, collect, &c, &frame, err, errlen);
  ck_assert_int_eq(rc == OC_OK, frame != NULL);
  last_rc = rc;
  unlink(path);
  free(path);
  *all = c.all;
  return frame;
}

/* A command as every reader of results shows it (in place). */
static void scrubbed(cJSON *obj, const char *key)
{
  cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if(!cJSON_IsString(v))
    return;
  char *clean = oc_results_scrub_command(v->valuestring);
  ck_assert_ptr_nonnull(clean);
  cJSON_ReplaceItemInObjectCaseSensitive(obj, key, cJSON_CreateString(clean));
  free(clean);
}

/* What a reader taking the file apart must hand over: the file parsed
 * whole by cJSON, its commands scrubbed. */
START_TEST(each_reads_what_a_whole_parse_reads)
{
  static const char *const names[] = { "replay-llama.json", "two-targets.json", "hostile.json",
                                       "clients.json", "shard-1.json" };
  for(size_t k = 0; k < OC_ARRAY_LEN(names); k++) {
    char *rel = oc_asprintf("tests/data/results/%s", names[k]);
    char *path = oc_test_src(rel);
    char err[1024] = "";
    cJSON *whole = oc_json_parse_file(path, err, sizeof(err));
    ck_assert_msg(whole != NULL, "%s", err);
    scrubbed(oc_json_obj(whole, "oacheck"), "command");
    cJSON *w;
    cJSON_ArrayForEach(w, oc_json_arr(whole, "results")) {
      scrubbed(oc_json_obj(w, "reproduce"), "curl");
      scrubbed(oc_json_obj(w, "reproduce"), "oacheck");
    }
    struct collected c = { cJSON_CreateArray(), -1 };
    cJSON *frame = NULL;
    ck_assert_int_eq(oc_results_load_each(path, collect, &c, &frame, err, sizeof(err)), OC_OK);
    ck_assert_msg(frame != NULL, "%s: %s", names[k], err);
    /* the same results, in the same order, and the same rest */
    cJSON *results = cJSON_DetachItemFromObjectCaseSensitive(whole, "results");
    ck_assert_int_gt(cJSON_GetArraySize(results), 0);
    ck_assert_msg(oc_json_equal(results, c.all), "%s: other results", names[k]);
    ck_assert_int_eq(cJSON_GetArraySize(oc_json_arr(frame, "results")), 0);
    cJSON_DeleteItemFromObjectCaseSensitive(frame, "results");
    ck_assert_msg(oc_json_equal(whole, frame), "%s: another frame", names[k]);
    cJSON_Delete(results);
    cJSON_Delete(whole);
    cJSON_Delete(frame);
    cJSON_Delete(c.all);
    free(rel);
    free(path);
  }
}
END_TEST

#define EACH_HEAD "{\"oacheck\":{\"version\":\"0.1.0\",\"started\":\"2026-11-30T02:00:00Z\",\"mode\":\"live\"}," \
                  "\"targets\":[" TARGET_A "],"
#define EACH_SUMMARY "\"summary\":{\"total\":2,\"pass\":2,\"fail\":0,\"error\":0,\"skip\":0}"
#define EACH_RESULT(name) "{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"" name "\",\"status\":\"pass\"," NOFIND "}"

START_TEST(each_splits_by_json_not_by_bytes)
{
  char err[1024];
  cJSON *all;
  /* brackets, commas, quotes and a "results" inside strings and deeper
   * objects; the summary after the results; white space everywhere */
  const char *text =
    "\n { \"oacheck\" : {\"version\":\"0.1.0\",\"started\":\"2026-11-30T02:00:00Z\",\"mode\":\"live\","
    "\"command\":\"oacheck run --note '\\\"results\\\": [1,2]}'\"},\n"
    "  \"targets\": [{\"name\":\"a\",\"kind\":\"live\",\"profile\":\"openai\",\"reachable\":true,"
    "\"identity\":{\"results\":[7,8],\"x\":\"],[{\"}}],\n"
    "  \"results\" :\n [ " EACH_RESULT("c],{\\\"0") " ,\n"
    EACH_RESULT("[d]\\\\") "\n ] ,\n  " EACH_SUMMARY " }\n";
  cJSON *frame = load_each(text, &all, -1, err, sizeof(err));
  ck_assert_msg(frame != NULL, "%s", err);
  ck_assert_int_eq(cJSON_GetArraySize(all), 2);
  ck_assert_str_eq(oc_json_str(cJSON_GetArrayItem(all, 0), "case"), "c],{\"0");
  ck_assert_str_eq(oc_json_str(cJSON_GetArrayItem(all, 1), "case"), "[d]\\");
  const cJSON *id = oc_json_obj(cJSON_GetArrayItem(oc_json_arr(frame, "targets"), 0), "identity");
  ck_assert_int_eq(cJSON_GetArraySize(oc_json_arr(id, "results")), 2);
  ck_assert_int_eq((int)oc_json_num(oc_json_obj(frame, "summary"), "total", 0), 2);
  cJSON_Delete(frame);
  cJSON_Delete(all);

  /* "results" spelt with an escape is the same key: read with the frame,
   * handed over all the same */
  frame = load_each(EACH_HEAD EACH_SUMMARY ",\"res\\u0075lts\":[" EACH_RESULT("e") "," EACH_RESULT("f") "]}",
                    &all, -1, err, sizeof(err));
  ck_assert_msg(frame != NULL, "%s", err);
  ck_assert_int_eq(cJSON_GetArraySize(all), 2);
  ck_assert_str_eq(oc_json_str(cJSON_GetArrayItem(all, 1), "case"), "f");
  cJSON_Delete(frame);
  cJSON_Delete(all);

  /* no results at all */
  frame = load_each(EACH_HEAD EACH_SUMMARY ",\"results\":[]}", &all, -1, err, sizeof(err));
  ck_assert_msg(frame != NULL, "%s", err);
  ck_assert_int_eq(cJSON_GetArraySize(all), 0);
  cJSON_Delete(frame);
  cJSON_Delete(all);
}
END_TEST

/* The message's line and byte: "FILE:LINE:COL: ... (byte N)". */
static void line_and_byte(const char *err, int *line, size_t *byte)
{
  const char *p = strstr(err, "each-");
  ck_assert_msg(p != NULL, "%s", err);
  p = strchr(p, ':');
  ck_assert_msg(p && sscanf(p, ":%d:", line) == 1, "no line in: %s", err);
  const char *b = strstr(err, "(byte ");
  ck_assert_msg(b && sscanf(b, "(byte %zu)", byte) == 1, "no byte in: %s", err);
}

START_TEST(each_errors_name_the_place)
{
  char err[1024];
  cJSON *all;
  int line;
  size_t byte;
  /* a result that does not parse, on line 3: its line and a byte in it */
  const char *bad = EACH_HEAD "\n\"results\":[\n" EACH_RESULT("a") ",\n{\"target\":\"a\",,\"x\":1}]," EACH_SUMMARY "}";
  ck_assert_ptr_null(load_each(bad, &all, -1, err, sizeof(err)));
  ck_assert_int_eq(last_rc, OC_EPARSE);
  line_and_byte(err, &line, &byte);
  ck_assert_msg(strstr(err, "invalid JSON"), "%s", err);
  ck_assert_int_eq(line, 4);
  const char *at = strstr(bad, ",,");
  ck_assert_msg(byte >= (size_t)(at - bad) && byte <= (size_t)(at - bad) + 2, "byte %zu for %s", byte, err);
  ck_assert_int_eq(cJSON_GetArraySize(all), 1); /* the first was handed over */
  cJSON_Delete(all);

  /* a file cut inside the results */
  ck_assert_ptr_null(load_each(EACH_HEAD "\"results\":[" EACH_RESULT("a") ",{\"target\":", &all, -1, err,
                               sizeof(err)));
  ck_assert_msg(strstr(err, "ends inside the results"), "%s", err);
  cJSON_Delete(all);

  /* a result the checks refuse: its pointer */
  ck_assert_ptr_null(load_each(EACH_HEAD "\"results\":[" EACH_RESULT("a") ","
                               "{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"b\",\"status\":\"boom\"," NOFIND "}],"
                               EACH_SUMMARY "}", &all, -1, err, sizeof(err)));
  ck_assert_msg(strstr(err, ": at /results/1/status: expected one of pass"), "%s", err);
  cJSON_Delete(all);
  /* ... and one only the schema refuses */
  ck_assert_ptr_null(load_each(EACH_HEAD "\"results\":[{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"b\","
                               "\"status\":\"fail\",\"findings\":[" FIND("not a rule", "error", "m") "]}],"
                               EACH_SUMMARY "}", &all, -1, err, sizeof(err)));
  ck_assert_msg(strstr(err, ": at /results/0/findings/0/rule: "), "%s", err);
  cJSON_Delete(all);

  /* two "results" members */
  ck_assert_ptr_null(load_each(EACH_HEAD "\"results\":[]," EACH_SUMMARY ",\"results\":[]}", &all, -1, err,
                               sizeof(err)));
  ck_assert_msg(strstr(err, "a second \"results\" member"), "%s", err);
  cJSON_Delete(all);

  /* what surrounds the results does not parse, after them: the file's byte */
  const char *after = EACH_HEAD "\"results\":[" EACH_RESULT("a") "],\n\n\"summary\":{\"total\":1,,}}";
  ck_assert_ptr_null(load_each(after, &all, -1, err, sizeof(err)));
  line_and_byte(err, &line, &byte);
  ck_assert_int_eq(line, 3);
  at = strstr(after, ",,");
  ck_assert_msg(byte >= (size_t)(at - after) && byte <= (size_t)(at - after) + 2, "byte %zu for %s", byte,
                err);
  cJSON_Delete(all);

  /* the frame the checks refuse */
  ck_assert_ptr_null(load_each("{\"oacheck\":{},\"targets\":[],\"results\":[]," EACH_SUMMARY "}", &all, -1,
                               err, sizeof(err)));
  ck_assert_msg(strstr(err, ": at /oacheck: required member"), "%s", err);
  cJSON_Delete(all);

  /* each's own refusal, and an empty file */
  ck_assert_ptr_null(load_each(EACH_HEAD "\"results\":[" EACH_RESULT("a") "," EACH_RESULT("b") "],"
                               EACH_SUMMARY "}", &all, 1, err, sizeof(err)));
  ck_assert_str_eq(err, "refused result 1");
  ck_assert_int_eq(last_rc, OC_EIO); /* each's own code */
  cJSON_Delete(all);
  ck_assert_ptr_null(load_each("", &all, -1, err, sizeof(err)));
  ck_assert_msg(strstr(err, "empty file"), "%s", err);
  cJSON_Delete(all);
  ck_assert_ptr_null(load_each("]", &all, -1, err, sizeof(err)));
  ck_assert_msg(strstr(err, "closing bracket with nothing open"), "%s", err);
  cJSON_Delete(all);
}
END_TEST

START_TEST(fixtures_pass_the_check)
{
  static const char *const names[] = { "replay-llama.json", "shard-1.json", "shard-2.json",
                                       "two-targets.json", "hostile.json", "clients.json" };
  for(size_t i = 0; i < OC_ARRAY_LEN(names); i++)
    cJSON_Delete(load_fixture(names[i]));
}
END_TEST

START_TEST(failing_rules_count_cases_once)
{
  cJSON *d = doc_with("[" TARGET_A "]",
                      "[{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"c1\",\"status\":\"fail\",\"findings\":["
                      FIND("B-RULE", "error", "x") "," FIND("B-RULE", "error", "y") "," FIND("A-RULE", "error", "z") "]},"
                      "{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"c2\",\"status\":\"fail\",\"findings\":["
                      FIND("B-RULE", "error", "x") "," FIND("C-RULE", "warning", "w") "]}]");
  cJSON *fr = oc_results_failing_rules(d);
  char *s = oc_json_print(fr);
  ck_assert_str_eq(s, "[{\"rule\":\"B-RULE\",\"cases\":2},{\"rule\":\"A-RULE\",\"cases\":1}]");
  free(s);
  cJSON_Delete(fr);
  ck_assert_int_eq(oc_results_summarize(d), OC_OK);
  const cJSON *sum = oc_json_obj(d, "summary");
  ck_assert_int_eq((int)oc_json_num(sum, "fail", -1), 2);
  ck_assert_int_eq((int)oc_json_num(sum, "warnings", -1), 1);
  cJSON_Delete(d);
}
END_TEST

/* ---- JUnit ------------------------------------------------------------ */

START_TEST(junit_mapping)
{
  cJSON *d = doc_with("[" TARGET_A "]",
    "[{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"fails\",\"status\":\"fail\",\"duration_ms\":1500,\"findings\":["
    FIND("W-ONE", "warning", "just a warning") ","
    "{\"rule\":\"A-ALLOWED\",\"severity\":\"error\",\"allowed\":true,\"message\":\"allowed\",\"where\":{\"text\":\"\"},\"path\":null,\"expected\":null,\"actual\":null},"
    FIND("E-FIRST", "error", "the first that counts") "," FIND("E-SECOND", "error", "second") "]},"
    "{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"errs\",\"status\":\"error\",\"reason\":\"connection refused\"," NOFIND "},"
    "{\"target\":\"a\",\"suite\":\"s2\",\"case\":\"skips\",\"status\":\"skip\",\"reason\":\"not recorded\"," NOFIND "},"
    "{\"target\":\"a\",\"suite\":\"s2\",\"case\":\"passes\",\"status\":\"pass\",\"duration_ms\":2," NOFIND "}]");
  char *x = junit(d);
  ck_assert_msg(strstr(x, "<testsuites name=\"oacheck\" tests=\"4\" failures=\"1\" errors=\"1\""), "%s", x);
  ck_assert_ptr_nonnull(strstr(x, "<testsuite name=\"a.s1\" package=\"a\" id=\"0\" tests=\"2\" failures=\"1\" errors=\"1\" skipped=\"0\" time=\"1.500\""));
  ck_assert_ptr_nonnull(strstr(x, "<testsuite name=\"a.s2\" package=\"a\" id=\"1\" tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"1\" time=\"0.002\""));
  ck_assert_ptr_nonnull(strstr(x, "<testcase name=\"fails\" classname=\"a.s1\" time=\"1.500\">"));
  ck_assert_ptr_nonnull(strstr(x, "<failure message=\"E-FIRST: the first that counts\" type=\"E-FIRST\">"));
  /* every finding in the body */
  ck_assert_ptr_nonnull(strstr(x, "[warning] W-ONE: just a warning"));
  ck_assert_ptr_nonnull(strstr(x, "[error, allowed] A-ALLOWED: allowed"));
  ck_assert_ptr_nonnull(strstr(x, "[error] E-SECOND: second"));
  ck_assert_ptr_nonnull(strstr(x, "<error message=\"connection refused\" type=\"error\">"));
  ck_assert_ptr_nonnull(strstr(x, "<skipped message=\"not recorded\"/>"));
  ck_assert_ptr_nonnull(strstr(x, "<testcase name=\"passes\" classname=\"a.s2\" time=\"0.002\">"));
  /* identity, never credentials; a null model is left out */
  ck_assert_ptr_nonnull(strstr(x, "<property name=\"n_ctx\" value=\"512\"/>"));
  ck_assert_ptr_nonnull(strstr(x, "<property name=\"target.url\" value=\"http://127.0.0.1:8080/\"/>"));
  ck_assert_ptr_null(strstr(x, "pw@"));
  ck_assert_ptr_null(strstr(x, "key=k"));
  ck_assert_ptr_null(strstr(x, "name=\"model\""));
  free(x);
  cJSON_Delete(d);
}
END_TEST

START_TEST(junit_survives_wrong_types)
{
  /* unchecked input: every member of the wrong type */
  cJSON *d = parse("{\"oacheck\":7,\"targets\":{\"x\":1},\"results\":[3,\"s\",null,"
                   "{\"status\":\"boom\",\"findings\":\"many\",\"duration_ms\":\"fast\","
                   "\"response\":{\"events\":{\"n\":1}},\"timing\":[],\"reproduce\":{\"curl\":5}},"
                   "{\"target\":1,\"suite\":[],\"case\":{},\"status\":\"fail\",\"findings\":[1,{\"severity\":\"error\"}]}]}");
  char *x = junit(d);
  ck_assert_ptr_nonnull(strstr(x, "classname=\"(no target).(no suite)\""));
  ck_assert_ptr_nonnull(strstr(x, "<error message=\"the results file gives no valid status for this case\""));
  ck_assert_ptr_nonnull(strstr(x, "</testsuites>\n"));
  free(x);
  char *h = html(d);
  ck_assert_ptr_nonnull(strstr(h, "</html>"));
  free(h);
  cJSON_Delete(d);
}
END_TEST

START_TEST(junit_unreachable_target_without_results)
{
  cJSON *d = doc_with("[" TARGET_A ",{\"name\":\"down\",\"kind\":\"live\",\"profile\":\"openai\","
                      "\"reachable\":false,\"error\":\"connect to 127.0.0.1 port 9 failed\"}]",
                      "[{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"c\",\"status\":\"pass\"," NOFIND "}]");
  char *x = junit(d);
  ck_assert_msg(strstr(x, "<testsuites name=\"oacheck\" tests=\"2\" failures=\"0\" errors=\"1\""), "%s", x);
  ck_assert_ptr_nonnull(strstr(x, "<error type=\"error\" message=\"connect to 127.0.0.1 port 9 failed\"/>"));
  free(x);
  cJSON_Delete(d);
}
END_TEST

START_TEST(junit_hostile_fixture)
{
  cJSON *d = load_fixture("hostile.json");
  char *x = junit(d);
  ck_assert_ptr_null(strstr(x, "<script"));
  ck_assert_ptr_null(strstr(x, "<img"));
  ck_assert_ptr_null(strstr(x, "<![CDATA["));
  ck_assert_ptr_null(strstr(x, "sk-hostile"));
  ck_assert_ptr_null(strstr(x, "hunter2"));
  ck_assert_ptr_null(strstr(x, "\x1b"));
  ck_assert_ptr_nonnull(strstr(x, "]]&gt;&lt;![CDATA[&lt;script&gt;"));
  ck_assert_ptr_nonnull(strstr(x, "esc\\u001B[31mred"));
  /* nothing XML 1.0 cannot carry */
  for(const unsigned char *p = (const unsigned char *)x; *p; p++)
    ck_assert_msg(*p >= 0x20 || *p == '\n' || *p == '\t', "control byte 0x%02x at %zu", *p,
                  (size_t)(p - (const unsigned char *)x));
  size_t bad;
  ck_assert(oc_utf8_valid((const unsigned char *)x, strlen(x), &bad));
  free(x);
  cJSON_Delete(d);
}
END_TEST

/* "Will my client work?" first: a testcase per client, a failure where
 * the server breaks it (once, the first row), skipped where nothing
 * exercised it, limitations in its output; the policy as properties. */
START_TEST(junit_client_matrix)
{
  cJSON *d = load_fixture("clients.json");
  char *x = junit(d);
  const char *suite = strstr(x, "<testsuite name=\"Will my client work? (llama-server-b10587)\" "
                                "package=\"llama-server-b10587\"");
  ck_assert_msg(suite != NULL, "%s", x);
  /* it comes first, and is counted in the totals (14 cases + 7 clients;
   * the fixture predates openai-agents-chat, which nothing exercised) */
  ck_assert_ptr_eq(strstr(x, "<testsuite "), suite);
  ck_assert_msg(strstr(suite, "tests=\"7\" failures=\"1\" errors=\"0\" skipped=\"1\"") != NULL, "%.300s", suite);
  ck_assert_ptr_nonnull(strstr(x, "<testsuites name=\"oacheck\" tests=\"21\" failures=\"4\""));
  ck_assert_ptr_nonnull(strstr(suite, "<testcase name=\"langchain\" classname=\"Will my client work? "
                                      "(llama-server-b10587)\" group=\"chat\" time=\"0.000\">\n      <failure type=\"CLIENT-BREAKS\" "
                                      "message=\"breaks on tool call streamed: tool_calls: 0 (expected 1) "
                                      "(tool-calls/tools-required-steered-stream)\">"));
  ck_assert_ptr_nonnull(strstr(suite, "streaming: limitation (the client's own, OpenAI's answers too): "
                                      "LengthFinishReasonError"));
  ck_assert_ptr_nonnull(strstr(suite, "plain: works\n"));
  ck_assert_ptr_nonnull(strstr(x, "<property name=\"oacheck.policy\" value=\"clients\"/>"));
  ck_assert_ptr_nonnull(strstr(x, "<property name=\"oacheck.clients\" value=\"openai-node,openai-node-stream,"
                                  "ai-sdk,langchain,openai-python,openai-python-stream\"/>"));
  free(x);
  /* no verdicts, no matrix */
  cJSON_Delete(d);
  d = load_fixture("replay-llama.json");
  x = junit(d);
  ck_assert_ptr_null(strstr(x, "Will my client work?"));
  free(x);
  cJSON_Delete(d);
}
END_TEST

/* What the console's matrix prints for doc (caller frees). */
static char *console_matrix_text(const cJSON *d)
{
  FILE *f = tmpfile();
  ck_assert_ptr_nonnull(f);
  struct oc_console c;
  oc_console_init(&c, f);
  oc_console_matrix(&c, d);
  long n = ftell(f);
  rewind(f);
  char *out = calloc(1, (size_t)n + 1);
  ck_assert_ptr_nonnull(out);
  ck_assert_uint_eq(fread(out, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  return out;
}

/* The console's matrix: a row per checklist item, a word per cell, the
 * breaks and limitations one line each; nothing without verdicts. */
START_TEST(console_client_matrix)
{
  cJSON *d = load_fixture("clients.json");
  char *out = console_matrix_text(d);
  ck_assert_msg(strstr(out, "\nWill my client work? (llama-server-b10587)\n") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "\n  plain               ok      -            ok      ok         ok      -          -\n"), "%s", out);
  ck_assert_msg(strstr(out, "\n  tool call streamed  ok      ok           ok      BREAKS     ok      limit      -\n"), "%s", out);
  ck_assert_msg(strstr(out, "\n  tool call           -       -            -       -          -       -          -\n"), "%s", out);
  ck_assert_msg(strstr(out, "\n  BREAKS langchain, tool call streamed: tool_calls: 0 (expected 1) "
                            "(tool-calls/tools-required-steered-stream)\n"), "%s", out);
  ck_assert_msg(strstr(out, "\n  limit  openai-python-stream, streaming: LengthFinishReasonError"), "%s", out);
  /* breaks first */
  ck_assert(strstr(out, "\n  BREAKS ") < strstr(out, "\n  limit  "));
  free(out);
  cJSON_Delete(d);
}
END_TEST

/* A target that serves several protocols gets a block per protocol with
 * clients that ran, titled, each with its own columns and only the rows
 * its cases asked (chat: every row); a case of one protocol that ended in
 * error reaches no other protocol's clients. */
START_TEST(console_matrix_block_per_protocol)
{
  static const char doc[] =
    "{\"targets\": [{\"name\": \"t\"}], \"results\": ["
    "{\"target\": \"t\", \"suite\": \"plain\", \"case\": \"a\", \"status\": \"pass\", \"checklist\": \"plain\","
    "  \"protocol\": \"chat\", \"clients\": {\"openai-node\": {\"works\": true, \"outcome\": \"ok\"}}},"
    "{\"target\": \"t\", \"suite\": \"responses\", \"case\": \"b\", \"status\": \"fail\", \"checklist\": \"streaming\","
    "  \"protocol\": \"responses\", \"clients\": {"
    "  \"openai-node-responses\": {\"works\": true, \"outcome\": \"ok\"},"
    "  \"openai-node-responses-stream\": {\"works\": false, \"outcome\": \"raises\", \"reason\": \"missing output\"}}},"
    "{\"target\": \"t\", \"suite\": \"responses\", \"case\": \"c\", \"status\": \"error\", \"checklist\": \"plain\","
    "  \"protocol\": \"responses\", \"reason\": \"timed out\"}]}";
  cJSON *d = cJSON_Parse(doc);
  ck_assert_ptr_nonnull(d);
  char *out = console_matrix_text(d);
  const char *chat = strstr(out, "\nWill my client work? (t) — Chat Completions\n");
  const char *resp = strstr(out, "\nWill my client work? (t) — Responses API\n");
  ck_assert_msg(chat && resp && chat < resp, "%s", out);
  ck_assert_msg(strstr(out, "— Messages API") == NULL, "%s", out);
  /* the Responses block: its two clients, its streaming row and the row
   * whose case errored, nothing else */
  ck_assert_msg(strstr(resp, "\n                      node    node-stream\n"), "%s", out);
  ck_assert_msg(strstr(resp, "\n  plain               error   error\n"), "%s", out);
  ck_assert_msg(strstr(resp, "\n  streaming           ok      BREAKS\n"), "%s", out);
  ck_assert_msg(strstr(resp, "\n  tool call ") == NULL, "%s", out);
  ck_assert_msg(strstr(out, "BREAKS openai-node-responses-stream, streaming: missing output (responses/b)"), "%s", out);
  /* the errored Responses case is no error of chat's clients */
  const char *chat_plain = strstr(chat, "\n  plain ");
  ck_assert_msg(chat_plain && chat_plain < resp && strncmp(chat_plain, "\n  plain               ok      -", 31) == 0,
                "%s", out);
  free(out);
  /* the HTML report: a table per protocol, headed by its title */
  out = html(d);
  const char *h = strstr(out, "<h4 class=\"protocol\" id=\"clients-0-responses\">Responses API</h4>");
  ck_assert_msg(h != NULL, "%.2000s", out);
  ck_assert_ptr_nonnull(strstr(out, "<h4 class=\"protocol\" id=\"clients-0-chat\">Chat Completions</h4>"));
  const char *end = strstr(h, "</table>");
  ck_assert_ptr_nonnull(end);
  ck_assert_ptr_nonnull(strstr(h, "<th>openai-node-responses-stream</th>"));
  const char *chat_col = strstr(h, "<th>openai-node</th>");
  ck_assert(!chat_col || chat_col > end);
  free(out);
  /* JUnit: each case and each client's testcase names its protocol */
  out = junit(d);
  ck_assert_msg(strstr(out, "<testcase name=\"b\" classname=\"t.responses\" group=\"responses\"") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "<testcase name=\"openai-node-responses-stream\" classname=\"Will my client work? (t)\" "
                            "group=\"responses\"") != NULL, "%s", out);
  free(out);
  cJSON_Delete(d);
}
END_TEST

/* A previous major the run selected is a column of its own, after
 * today's, in the console (with its legend) and in JUnit; absent from
 * the results, it is no column at all (the fixture has none). */
START_TEST(matrix_previous_major_column)
{
  cJSON *d = load_fixture("clients.json");
  char *out = console_matrix_text(d);
  ck_assert_ptr_null(strstr(out, "ai-sdk@5"));
  ck_assert_ptr_null(strstr(out, "last year's major"));
  free(out);
  const cJSON *r;
  int set = 0;
  cJSON_ArrayForEach(r, oc_json_arr(d, "results"))
  {
    cJSON *cl = oc_json_obj(r, "clients");
    const cJSON *ai = oc_json_obj(cl, "ai-sdk");
    if(ai) {
      cJSON *copy = cJSON_Duplicate(ai, 1);
      /* ai 5 breaks where ai 7 works on the tool call streamed */
      if(oc_streq(oc_json_str(r, "checklist"), "tool-call-stream")) {
        cJSON_ReplaceItemInObjectCaseSensitive(copy, "works", cJSON_CreateFalse());
        cJSON_ReplaceItemInObjectCaseSensitive(copy, "outcome", cJSON_CreateString("wrong"));
        cJSON_ReplaceItemInObjectCaseSensitive(copy, "reason", cJSON_CreateString("tool_calls: 0 (expected 1)"));
        cJSON_AddFalseToObject(copy, "limitation");
      }
      cJSON_AddItemToObject(cl, "ai-sdk@5", copy);
      set++;
    }
  }
  ck_assert_int_gt(set, 0);
  out = console_matrix_text(d);
  ck_assert_msg(strstr(out, "  node    node-stream  ai-sdk  langchain  python  py-stream  agents  ai-sdk@5\n"),
                "%s", out);
  ck_assert_msg(strstr(out, "\n  tool call streamed  ok      ok           ok      BREAKS     ok      limit      -       "
                            "BREAKS\n"), "%s", out);
  ck_assert_msg(strstr(out, "\n  BREAKS ai-sdk@5, tool call streamed: tool_calls: 0 (expected 1)"), "%s", out);
  ck_assert_msg(strstr(out, "\n  @N: last year's major of the same client"), "%s", out);
  free(out);
  char *x = junit(d);
  ck_assert_msg(strstr(x, "tests=\"8\" failures=\"2\""), "%.400s", x);
  ck_assert_ptr_nonnull(strstr(x, "<testcase name=\"ai-sdk@5\""));
  free(x);
  cJSON_Delete(d);
}
END_TEST

/* A long reason is cut in the console on a character, with an ellipsis:
 * never half a UTF-8 sequence (it was cut at 120 bytes wherever they fell). */
START_TEST(console_matrix_cuts_reasons_on_characters)
{
  cJSON *d = load_fixture("clients.json");
  char longer[400] = "tool_calls: x"; /* odd: a byte cut at an even count halves a character */
  for(size_t i = 0, at = strlen(longer); i < 120; i++, at += 2)
    memcpy(longer + at, "\xD1\x84", 3); /* ф, and the NUL after it */
  int set = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, oc_json_arr(d, "results"))
  {
    cJSON *lc = oc_json_obj(oc_json_obj(r, "clients"), "langchain");
    if(lc && !oc_json_bool(lc, "works", 1) && !oc_json_bool(lc, "limitation", 0)) {
      ck_assert(cJSON_ReplaceItemInObjectCaseSensitive(lc, "reason", cJSON_CreateString(longer)));
      set++;
    }
  }
  ck_assert_int_gt(set, 0);
  char *out = console_matrix_text(d);
  const char *line = strstr(out, "\n  BREAKS langchain, tool call streamed: tool_calls: x");
  ck_assert_msg(line != NULL, "%s", out);
  const char *eol = strchr(line + 1, '\n');
  ck_assert_ptr_nonnull(eol);
  size_t bad = 0;
  ck_assert_msg(oc_utf8_valid((const unsigned char *)line, (size_t)(eol - line), &bad), "half a character at %zu: %.*s", bad, (int)(eol - line), line);
  ck_assert_msg(strstr(line, "\xE2\x80\xA6 (tool-calls/") && strstr(line, "\xE2\x80\xA6 (tool-calls/") < eol,
                "no ellipsis before the case: %.*s", (int)(eol - line), line);
  ck_assert_ptr_null(strstr(line, longer)); /* cut */
  free(out);
  cJSON_Delete(d);
}
END_TEST

/* The reasoning row, and what each client read of the reasoning of every
 * answer that carried some: a "reads reasoning" line in the console,
 * the same in JUnit's system-out. */
START_TEST(matrix_reasoning_rendered)
{
  cJSON *d = doc_with("[" TARGET_A "]",
    "[{\"target\":\"a\",\"suite\":\"reasoning\",\"case\":\"vllm-field\",\"status\":\"pass\","
    "\"checklist\":\"reasoning\"," NOFIND ",\"clients\":{"
    "\"openai-node\":{\"works\":true,\"outcome\":\"ok\",\"reason\":\"x\",\"basis\":\"verified\","
    "\"reasoning\":\"seen\",\"reasoning_leak\":false},"
    "\"langchain\":{\"works\":true,\"outcome\":\"ok\",\"reason\":\"x\",\"basis\":\"verified\","
    "\"reasoning\":\"hidden\",\"reasoning_leak\":true}}}]");
  char *out = console_matrix_text(d);
  ck_assert_msg(strstr(out, "\n  reasoning           ok      -            -       ok         -       -          -\n"), "%s", out);
  ck_assert_msg(strstr(out, "\n    reads reasoning   seen    -            -       hidden*    -       -          -\n"), "%s", out);
  ck_assert_msg(strstr(out, "*: think or harmony markup in the answer"), "%s", out);
  free(out);
  char *x = junit(d);
  ck_assert_msg(strstr(x, "reasoning: works; reads reasoning: hidden (seen 0, partial 0, hidden 1); think or "
                          "harmony markup in the answer\n"), "%s", x);
  free(x);
  cJSON_Delete(d);
}
END_TEST

/* A row whose cases ended in error has no verdict: the console says
 * "error" in its cells and once for the row, JUnit makes the client an
 * error (not a pass), HTML links the first errored case. */
START_TEST(matrix_error_cells_rendered)
{
  cJSON *d = doc_with("[" TARGET_A "]",
    "[{\"target\":\"a\",\"suite\":\"plain\",\"case\":\"chat-basic\",\"status\":\"error\","
    "\"checklist\":\"plain\",\"reason\":\"no ${MODEL}: /v1/models answered HTTP 404\"," NOFIND "},"
    "{\"target\":\"a\",\"suite\":\"plain\",\"case\":\"unknown-model\",\"status\":\"pass\","
    "\"checklist\":\"errors\"," NOFIND ",\"clients\":{"
    "\"openai-node\":{\"works\":true,\"outcome\":\"raises\",\"reason\":\"NotFoundError\",\"basis\":\"verified\"},"
    "\"openai-node-stream\":{\"works\":null,\"outcome\":\"not-exercised\",\"reason\":\"-\",\"basis\":\"verified\"},"
    "\"ai-sdk\":{\"works\":true,\"outcome\":\"raises\",\"reason\":\"x\",\"basis\":\"verified\"},"
    "\"langchain\":{\"works\":true,\"outcome\":\"raises\",\"reason\":\"x\",\"basis\":\"verified\"},"
    "\"openai-python\":{\"works\":true,\"outcome\":\"raises\",\"reason\":\"x\",\"basis\":\"emulated\"},"
    "\"openai-python-stream\":{\"works\":null,\"outcome\":\"not-exercised\",\"reason\":\"-\",\"basis\":\"emulated\"}}}]");
  char *out = console_matrix_text(d);
  ck_assert_msg(strstr(out, "\n  plain               error   -            error   error      error   -          error\n"), "%s", out);
  ck_assert_msg(strstr(out, "\n  errors              ok      -            ok      ok         ok      -          -\n"), "%s", out);
  ck_assert_msg(strstr(out, "\n  error: a case of the row ended in error, so no verdict\n"), "%s", out);
  ck_assert_msg(strstr(out, "\n  error  plain: no verdict, 1 case ended in error: no ${MODEL}: /v1/models "
                            "answered HTTP 404 (plain/chat-basic)\n"), "%s", out);
  free(out);
  char *x = junit(d);
  const char *suite = strstr(x, "<testsuite name=\"Will my client work? (a)\"");
  ck_assert_msg(suite != NULL, "%s", x);
  ck_assert_msg(strstr(suite, "tests=\"7\" failures=\"0\" errors=\"5\" skipped=\"2\"") != NULL, "%.300s", suite);
  ck_assert_ptr_nonnull(strstr(suite, "<testcase name=\"openai-node\" classname=\"Will my client work? (a)\" "
                                      "group=\"chat\" time=\"0.000\">\n      <error type=\"no-verdict\" message=\"no verdict on "
                                      "plain: no ${MODEL}: /v1/models answered HTTP 404 (plain/chat-basic)\">"));
  ck_assert_ptr_nonnull(strstr(suite, "plain: error (no verdict): no ${MODEL}"));
  ck_assert_ptr_nonnull(strstr(x, "<testsuites name=\"oacheck\" tests=\"9\" failures=\"0\" errors=\"6\""));
  free(x);
  char *h = html(d);
  ck_assert_msg(strstr(h, "<td class=\"cl cl-error\"><a href=\"#c-0\">no verdict</a><div class=\"why\">no ${MODEL}: "
                          "/v1/models answered HTTP 404 <span class=\"muted\">(plain/chat-basic)</span></div></td>"), "%s", h);
  free(h);
  cJSON_Delete(d);
}
END_TEST

/* A client that returns what the server sent, when that was cut or
 * unusable ("server_fault"), is neither "ok" nor the client's BREAKS: the
 * console says "fault" with the reason and a legend, JUnit fails the
 * client's testcase as SERVER-FAULT, HTML marks the cell (issue 25). */
START_TEST(matrix_server_fault_cells_rendered)
{
  cJSON *d = doc_with("[" TARGET_A "]",
    "[{\"target\":\"a\",\"suite\":\"streaming\",\"case\":\"cut\",\"status\":\"pass\","
    "\"checklist\":\"streaming\"," NOFIND ",\"clients\":{"
    "\"openai-node\":{\"works\":true,\"outcome\":\"ok\",\"server_fault\":true,\"reason\":\"returns the answer as "
    "if whole (5 bytes, finish none), but the server ended the stream without a finish_reason\",\"basis\":\"verified\"},"
    "\"openai-node-stream\":{\"works\":false,\"outcome\":\"raises\",\"reason\":\"OpenAIError\",\"basis\":\"verified\",\"limitation\":false},"
    "\"ai-sdk\":{\"works\":true,\"outcome\":\"ok\",\"server_fault\":true,\"reason\":\"x\",\"basis\":\"verified\"},"
    "\"langchain\":{\"works\":true,\"outcome\":\"ok\",\"server_fault\":true,\"reason\":\"x\",\"basis\":\"verified\"},"
    "\"openai-python\":{\"works\":true,\"outcome\":\"ok\",\"server_fault\":true,\"reason\":\"x\",\"basis\":\"emulated\"},"
    "\"openai-python-stream\":{\"works\":true,\"outcome\":\"ok\",\"reason\":\"x\",\"basis\":\"emulated\"}}}]");
  char *out = console_matrix_text(d);
  ck_assert_msg(strstr(out, "\n  streaming           fault   BREAKS       fault   fault      fault   ok         -\n"), "%s", out);
  ck_assert_msg(strstr(out, "\n  fault: the client returns what the server sent, but the server left the\n"), "%s", out);
  ck_assert_msg(strstr(out, "\n  fault  openai-node, streaming: returns the answer as if whole (5 bytes, finish none), "
                            "but the server ended the stream without a finish_reason (streaming/cut)\n"), "%s", out);
  /* the client's breaks first */
  ck_assert_msg(strstr(out, "\n  BREAKS ") && strstr(out, "\n  BREAKS ") < strstr(out, "\n  fault  "), "%s", out);
  free(out);
  char *x = junit(d);
  const char *suite = strstr(x, "<testsuite name=\"Will my client work? (a)\"");
  ck_assert_msg(suite != NULL, "%s", x);
  ck_assert_msg(strstr(suite, "tests=\"7\" failures=\"5\" errors=\"0\" skipped=\"1\""), "%s", suite);
  ck_assert_msg(strstr(suite, "<testcase name=\"openai-node\" classname=\"Will my client work? (a)\" "
                              "group=\"chat\" time=\"0.000\">\n      <failure type=\"SERVER-FAULT\" message=\"the server&apos;s fault on "
                              "streaming: returns the answer as if whole"), "%s", suite);
  ck_assert_msg(strstr(suite, "streaming: server fault (the client is faithful: the server's fault): returns"), "%s", suite);
  free(x);
  char *h = html(d);
  ck_assert_msg(strstr(h, "<td class=\"cl cl-fault\"><a href=\"#c-0\">server fault</a><div class=\"why\">returns the "
                          "answer as if whole"), "%s", h);
  ck_assert_msg(strstr(h, "id=\"fault-legend\""), "%s", h);
  ck_assert_msg(strstr(h, "<td class=\"cl cl-fault\">ok (the server's fault)</td>"), "%s", h);
  free(h);
  cJSON_Delete(d);
}
END_TEST

/* ---- HTML ------------------------------------------------------------- */

START_TEST(html_hostile_fixture)
{
  cJSON *d = load_fixture("hostile.json");
  char *h = html(d);
  /* our own script element is the only one; no markup from the data */
  ck_assert_uint_eq(count(h, "<script"), 1);
  ck_assert_ptr_null(strstr(h, "<img"));
  /* in an attribute (the chat template hash's title) quotes are escaped */
  ck_assert_ptr_nonnull(strstr(h, "<code title=\"bell\\u0007 esc"));
  ck_assert_ptr_nonnull(strstr(h, "&quot;&gt;&lt;img src=x onerror=&quot;document"));
  ck_assert_ptr_nonnull(strstr(h, "&lt;script&gt;document.title="));
  ck_assert_ptr_nonnull(strstr(h, "&quot;&gt;&lt;img src=x onerror="));
  ck_assert_ptr_null(strstr(h, "sk-hostile"));
  ck_assert_ptr_null(strstr(h, "hunter2"));
  ck_assert_ptr_null(strstr(h, "sk-url"));
  ck_assert_ptr_nonnull(strstr(h, "[redacted]"));
  ck_assert_ptr_nonnull(strstr(h, "Content-Security-Policy"));
  /* the invalid-UTF-8 body is decoded and shown with U+FFFD and hex */
  ck_assert_ptr_nonnull(strstr(h, "Not valid UTF-8 (first bad byte at offset 0)"));
  ck_assert_ptr_nonnull(strstr(h, "ff fe 3c 73"));
  size_t bad;
  ck_assert(oc_utf8_valid((const unsigned char *)h, strlen(h), &bad));
  free(h);
  cJSON_Delete(d);
}
END_TEST

START_TEST(html_sections)
{
  cJSON *d = load_fixture("replay-llama.json");
  char *h = html(d);
  ck_assert_ptr_nonnull(strstr(h, "<span class=\"n\" id=\"count-total\">14</span>"));
  ck_assert_ptr_nonnull(strstr(h, "<span class=\"n\" id=\"count-fail\">2</span>"));
  ck_assert_ptr_nonnull(strstr(h, "<span class=\"n\" id=\"count-error\">1</span>"));
  ck_assert_ptr_nonnull(strstr(h, "<span class=\"n\" id=\"count-skip\">3</span>"));
  /* one target: no matrix */
  ck_assert_ptr_null(strstr(h, "id=\"matrix\""));
  /* failing cases open, timelines only where timing was recorded */
  ck_assert_ptr_nonnull(strstr(h, "data-status=\"fail\" open>"));
  ck_assert_uint_eq(count(h, "<svg class=\"timeline\""), 2);
  ck_assert_ptr_nonnull(strstr(h, "timing not recorded"));
  ck_assert_ptr_nonnull(strstr(h, "TTFT 22.9 ms"));
  /* reproduce: given, or built with the key as a variable */
  ck_assert_ptr_nonnull(strstr(h, "oacheck run plain --replay suites/recordings/llama-server --filter 'plain/chat-basic'"));
  ck_assert_ptr_nonnull(strstr(h, "oacheck run 'plain' --replay 'suites/recordings/llama-server' --filter 'plain/chat-max-tokens-1'"));
  ck_assert_ptr_nonnull(strstr(h, "curl -sS \"${OACHECK_URL:-http://127.0.0.1:8080}\"'/v1/chat/completions'"));
  /* the raw SSE line around the failing chunk is highlighted */
  ck_assert_ptr_nonnull(strstr(h, "<span class=\"ev flag\"><span class=\"n\">#34"));
  free(h);
  cJSON_Delete(d);

  d = load_fixture("two-targets.json");
  h = html(d);
  ck_assert_ptr_nonnull(strstr(h, "id=\"matrix\""));
  ck_assert_ptr_nonnull(strstr(h, "<th>vllm-0.11</th>"));
  ck_assert_ptr_nonnull(strstr(h, "<th>ollama-laptop</th>"));
  ck_assert_ptr_nonnull(strstr(h, "<span class=\"st st-error\">unreachable</span>"));
  /* a live target without a recorded key: the curl names the variable */
  ck_assert_ptr_nonnull(strstr(h, "Bearer $OPENAI_API_KEY"));
  free(h);
  cJSON_Delete(d);
}
END_TEST

START_TEST(html_missing_asset_names_file)
{
  cJSON *d = doc_with("[]", "[]");
  char err[512] = "";
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_REPORT);
  ck_assert_int_ne(oc_report_html_render(d, "/nonexistent-oacheck-assets", &b, err, sizeof(err)), OC_OK);
  ck_assert_msg(strstr(err, "/nonexistent-oacheck-assets/report.html.in"), "%s", err);
  ck_assert_ptr_null(b.data);
  cJSON_Delete(d);
}
END_TEST

/* An edited asset that would break the page it is inlined into is
 * refused, naming the file: a stylesheet holding "</" (it would end its
 * <style> element), a script holding a NUL byte. */
static void write_asset(const char *dir, const char *name, const char *text, size_t n)
{
  char *path = oc_path_join(dir, name);
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(text, 1, n, f), n);
  fclose(f);
  free(path);
}

START_TEST(html_refuses_assets_that_break_the_page)
{
  char dir[] = "/tmp/oacheck-assets-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  static const char *const names[] = { "report.html.in", "report.css", "report.js" };
  for(size_t i = 0; i < 3; i++) {
    char *rel = oc_asprintf("reports/%s", names[i]);
    char *src = oc_test_src(rel);
    size_t n;
    char *text = oc_test_read(src, &n);
    write_asset(dir, names[i], text, n);
    free(text);
    free(src);
    free(rel);
  }
  cJSON *d = doc_with("[]", "[]");
  char err[512] = "";
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_REPORT);
  ck_assert_int_eq(oc_report_html_render(d, dir, &b, err, sizeof(err)), OC_OK); /* the copy renders */
  oc_buf_free(&b);
  const char css[] = "body { color: red }\n/* </style><script>alert(1)</script> */\n";
  write_asset(dir, "report.css", css, sizeof(css) - 1);
  oc_buf_init(&b, OC_CAP_REPORT);
  ck_assert_int_eq(oc_report_html_render(d, dir, &b, err, sizeof(err)), OC_EPARSE);
  ck_assert_msg(strstr(err, "report.css") && strstr(err, "'</' or '<!' in a stylesheet"), "%s", err);
  oc_buf_free(&b);
  write_asset(dir, "report.css", "body{}", 6);
  write_asset(dir, "report.js", "var a;\0var b;", 14);
  oc_buf_init(&b, OC_CAP_REPORT);
  ck_assert_int_eq(oc_report_html_render(d, dir, &b, err, sizeof(err)), OC_EPARSE);
  ck_assert_msg(strstr(err, "report.js") && strstr(err, "NUL byte"), "%s", err);
  oc_buf_free(&b);
  for(size_t i = 0; i < 3; i++) {
    char *path = oc_path_join(dir, names[i]);
    unlink(path);
    free(path);
  }
  rmdir(dir);
  cJSON_Delete(d);
}
END_TEST

/* ---- merge ------------------------------------------------------------ */

START_TEST(merge_orders_dedupes_recounts)
{
  cJSON *a = parse("{\"oacheck\":{\"version\":\"0.1.0\",\"started\":\"2026-11-30T02:00:05Z\",\"finished\":\"2026-11-30T02:00:09Z\","
                   "\"mode\":\"live\",\"suites\":[\"s1\",\"s2\"],\"shard\":{\"index\":2,\"count\":2},\"command\":\"x 2\"},"
                   "\"targets\":[" TARGET_A "],\"summary\":{\"total\":0,\"pass\":0,\"fail\":0,\"error\":0,\"skip\":0,\"duration_ms\":10},"
                   "\"results\":[{\"target\":\"a\",\"suite\":\"s2\",\"case\":\"z\",\"index\":0,\"status\":\"pass\"," NOFIND "},"
                   "{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"b\",\"index\":1,\"status\":\"fail\",\"findings\":[" FIND("X-Y", "error", "m") "]}]}");
  cJSON *b = parse("{\"oacheck\":{\"version\":\"0.1.0\",\"started\":\"2026-11-30T02:00:01Z\",\"finished\":\"2026-11-30T02:00:04Z\","
                   "\"mode\":\"replay\",\"suites\":[\"s1\",\"s2\"],\"shard\":{\"index\":1,\"count\":2},\"merged_from\":2,\"command\":\"x 1\"},"
                   "\"targets\":[" TARGET_A "," TARGET_B "],\"summary\":{\"total\":0,\"pass\":0,\"fail\":0,\"error\":0,\"skip\":0,\"duration_ms\":5.5},"
                   "\"results\":[{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"a\",\"index\":0,\"status\":\"pass\"," NOFIND "},"
                   "{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"b\",\"index\":1,\"status\":\"pass\"," NOFIND "},"
                   "{\"target\":\"b\",\"suite\":\"s1\",\"case\":\"a\",\"status\":\"skip\",\"reason\":\"not recorded\"," NOFIND "},"
                   "{\"target\":\"a\",\"suite\":\"new\",\"case\":\"q\",\"status\":\"pass\"," NOFIND "}]}");
  const cJSON *docs[] = { a, b };
  char err[256];
  cJSON *m = oc_results_merge(docs, 2, err, sizeof(err));
  ck_assert_msg(m != NULL, "%s", err);
  const cJSON *h = oc_json_obj(m, "oacheck");
  ck_assert_str_eq(oc_json_str(h, "started"), "2026-11-30T02:00:01Z");
  ck_assert_str_eq(oc_json_str(h, "finished"), "2026-11-30T02:00:09Z");
  ck_assert_str_eq(oc_json_str(h, "mode"), "mixed");
  ck_assert_int_eq((int)oc_json_num(h, "merged_from", 0), 3);
  ck_assert_ptr_null(oc_json_get(h, "shard"));
  ck_assert_ptr_null(oc_json_get(h, "command"));
  char *suites = oc_json_print(oc_json_get(h, "suites"));
  ck_assert_str_eq(suites, "[\"s1\",\"s2\",\"new\"]");
  free(suites);
  ck_assert_int_eq(cJSON_GetArraySize(oc_json_arr(m, "targets")), 2);
  /* target, suite (as listed), index, name; the later input wins a/s1/b */
  const char *want[][3] = { { "a", "s1", "a" }, { "a", "s1", "b" }, { "a", "s2", "z" },
                            { "a", "new", "q" }, { "b", "s1", "a" } };
  const cJSON *rs = oc_json_arr(m, "results");
  ck_assert_int_eq(cJSON_GetArraySize(rs), 5);
  for(int i = 0; i < 5; i++) {
    const cJSON *r = cJSON_GetArrayItem(rs, i);
    ck_assert_str_eq(oc_json_str(r, "target"), want[i][0]);
    ck_assert_str_eq(oc_json_str(r, "suite"), want[i][1]);
    ck_assert_str_eq(oc_json_str(r, "case"), want[i][2]);
  }
  ck_assert_str_eq(oc_json_str(cJSON_GetArrayItem(rs, 1), "status"), "pass");
  const cJSON *s = oc_json_obj(m, "summary");
  ck_assert_int_eq((int)oc_json_num(s, "total", -1), 5);
  ck_assert_int_eq((int)oc_json_num(s, "pass", -1), 4);
  ck_assert_int_eq((int)oc_json_num(s, "fail", -1), 0);
  ck_assert_int_eq((int)oc_json_num(s, "skip", -1), 1);
  ck_assert(oc_json_num(s, "duration_ms", 0) == 15.5);
  ck_assert_int_eq(oc_results_check(m, "merged", err, sizeof(err)), OC_OK);
  cJSON_Delete(m);

  /* one input keeps its shard and command */
  const cJSON *one[] = { a };
  m = oc_results_merge(one, 1, err, sizeof(err));
  ck_assert_ptr_nonnull(oc_json_get(oc_json_obj(m, "oacheck"), "shard"));
  ck_assert_str_eq(oc_json_str(oc_json_obj(m, "oacheck"), "command"), "x 2");
  cJSON_Delete(m);
  ck_assert_ptr_null(oc_results_merge(one, 0, err, sizeof(err)));
  cJSON_Delete(a);
  cJSON_Delete(b);
}
END_TEST

START_TEST(merge_shards_equals_unsharded)
{
  cJSON *s1 = load_fixture("shard-1.json"), *s2 = load_fixture("shard-2.json");
  cJSON *all = load_fixture("replay-llama.json");
  const cJSON *docs[] = { s2, s1 }; /* the order of the inputs does not matter */
  char err[256];
  cJSON *m = oc_results_merge(docs, 2, err, sizeof(err));
  ck_assert_ptr_nonnull(m);
  const cJSON *u1[] = { all };
  cJSON *u = oc_results_merge(u1, 1, err, sizeof(err));
  /* what legitimately differs: how many files, and the command lines */
  cJSON_DeleteItemFromObjectCaseSensitive(oc_json_obj(m, "oacheck"), "merged_from");
  cJSON_DeleteItemFromObjectCaseSensitive(oc_json_obj(u, "oacheck"), "merged_from");
  /* and which shards it holds (both of 2: nothing missing) */
  ck_assert_int_eq(oc_shards_problems(m, NULL), 0);
  ck_assert_ptr_nonnull(oc_json_obj(oc_json_obj(m, "oacheck"), "shards"));
  cJSON_DeleteItemFromObjectCaseSensitive(oc_json_obj(m, "oacheck"), "shards");
  cJSON_DeleteItemFromObjectCaseSensitive(oc_json_obj(u, "oacheck"), "command");
  char *a = oc_json_canonical(m), *b = oc_json_canonical(u);
  ck_assert_str_eq(a, b);
  /* and the merge is the fixture itself, summary included */
  cJSON_DeleteItemFromObjectCaseSensitive(oc_json_obj(all, "oacheck"), "command");
  char *c = oc_json_canonical(all);
  ck_assert_str_eq(a, c);
  free(a);
  free(b);
  free(c);
  cJSON_Delete(m);
  cJSON_Delete(u);
  cJSON_Delete(s1);
  cJSON_Delete(s2);
  cJSON_Delete(all);
}
END_TEST

/* ---- diff ------------------------------------------------------------- */

START_TEST(diff_self_is_empty)
{
  cJSON *d = load_fixture("replay-llama.json");
  struct oc_buf h;
  oc_buf_init(&h, OC_CAP_REPORT);
  cJSON *m = NULL;
  ck_assert_int_eq(oc_results_diff(d, d, &h, &m), 0);
  ck_assert_ptr_nonnull(strstr(oc_buf_str(&h), "no changes\n"));
  ck_assert_int_eq((int)oc_json_num(m, "new_failures", -1), 0);
  ck_assert_int_eq(cJSON_GetArraySize(oc_json_arr(m, "findings_changed")), 0);
  oc_buf_free(&h);
  cJSON_Delete(m);
  cJSON_Delete(d);
}
END_TEST

START_TEST(diff_categories)
{
  cJSON *old = doc_with("[" TARGET_A "]",
    "[{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"breaks\",\"status\":\"pass\"," NOFIND "},"
    "{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"heals\",\"status\":\"fail\",\"findings\":[" FIND("X-ONE", "error", "bad") "]},"
    "{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"drifts\",\"status\":\"pass\",\"findings\":[" FIND("W-ONE", "warning", "old text") "]},"
    "{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"skipped\",\"status\":\"fail\",\"findings\":[]},"
    "{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"gone\",\"status\":\"pass\"," NOFIND "}]");
  cJSON *nw = doc_with("[" TARGET_A "]",
    "[{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"breaks\",\"status\":\"fail\",\"findings\":[" FIND("X-TWO", "error", "now \\u001b[31m broken") "]},"
    "{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"heals\",\"status\":\"pass\"," NOFIND "},"
    "{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"drifts\",\"status\":\"pass\",\"findings\":[" FIND("W-ONE", "warning", "new text") "]},"
    "{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"skipped\",\"status\":\"skip\",\"reason\":\"not recorded\",\"findings\":[]},"
    "{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"fresh-fail\",\"status\":\"error\",\"reason\":\"timeout\"," NOFIND "},"
    "{\"target\":\"a\",\"suite\":\"s1\",\"case\":\"fresh\",\"status\":\"pass\"," NOFIND "}]");
  struct oc_buf h;
  oc_buf_init(&h, OC_CAP_REPORT);
  cJSON *m = NULL;
  ck_assert_int_eq(oc_results_diff(old, nw, &h, &m), 2);
  const char *t = oc_buf_str(&h);
  ck_assert_msg(strstr(t, "newly failing (2):\n  a.s1/breaks  pass -> fail\n      + [error] X-TWO: now \\u001B[31m broken\n"), "%s", t);
  ck_assert_msg(strstr(t, "  a.s1/fresh-fail  (absent) -> error: timeout\n"), "%s", t);
  ck_assert_msg(strstr(t, "newly passing (1):\n  a.s1/heals  fail -> pass\n      - [error] X-ONE: bad\n"), "%s", t);
  ck_assert_msg(strstr(t, "status changed (1):\n  a.s1/skipped  fail -> skip: not recorded\n"), "%s", t);
  ck_assert_msg(strstr(t, "findings changed (1):\n  a.s1/drifts  pass -> pass\n      ~ [warning] W-ONE: new text\n"), "%s", t);
  ck_assert_msg(strstr(t, "new cases (1):\n  a.s1/fresh  (absent) -> pass\n"), "%s", t);
  ck_assert_msg(strstr(t, "removed cases (1):\n  a.s1/gone  pass -> (absent)\n"), "%s", t);
  ck_assert_ptr_null(strstr(t, "\x1b"));
  ck_assert_int_eq((int)oc_json_num(m, "new_failures", -1), 2);
  const cJSON *nf = cJSON_GetArrayItem(oc_json_arr(m, "newly_failing"), 0);
  ck_assert_str_eq(oc_json_str(nf, "old_status"), "pass");
  ck_assert_str_eq(oc_json_str(nf, "new_status"), "fail");
  ck_assert_int_eq(cJSON_GetArraySize(oc_json_arr(oc_json_obj(nf, "findings"), "added")), 1);
  const cJSON *fresh = cJSON_GetArrayItem(oc_json_arr(m, "newly_failing"), 1);
  ck_assert(cJSON_IsNull(oc_json_get(fresh, "old_status")));
  const cJSON *ch = cJSON_GetArrayItem(oc_json_arr(m, "findings_changed"), 0);
  const cJSON *pair = cJSON_GetArrayItem(oc_json_arr(oc_json_obj(ch, "findings"), "changed"), 0);
  ck_assert_str_eq(oc_json_str(oc_json_obj(pair, "old"), "message"), "old text");
  ck_assert_str_eq(oc_json_str(oc_json_obj(pair, "new"), "message"), "new text");
  oc_buf_free(&h);
  cJSON_Delete(m);
  cJSON_Delete(old);
  cJSON_Delete(nw);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("report");
  TCase *tc = tcase_create("escape");
  tcase_add_test(tc, xml_text_and_attr);
  tcase_add_test(tc, html_text_and_attr);
  tcase_add_test(tc, controls_become_visible);
  tcase_add_test(tc, invalid_utf8_becomes_replacement);
  tcase_add_test(tc, cut_on_utf8_boundary);
  tcase_add_test(tc, secrets_scrubbed);
  suite_add_tcase(s, tc);
  tc = tcase_create("results");
  tcase_add_test(tc, check_names_file_and_pointer);
  tcase_add_test(tc, fixtures_pass_the_check);
  tcase_add_test(tc, failing_rules_count_cases_once);
  tcase_add_test(tc, each_reads_what_a_whole_parse_reads);
  tcase_add_test(tc, each_splits_by_json_not_by_bytes);
  tcase_add_test(tc, each_errors_name_the_place);
  suite_add_tcase(s, tc);
  tc = tcase_create("junit");
  tcase_add_test(tc, junit_mapping);
  tcase_add_test(tc, junit_survives_wrong_types);
  tcase_add_test(tc, junit_unreachable_target_without_results);
  tcase_add_test(tc, junit_hostile_fixture);
  tcase_add_test(tc, junit_client_matrix);
  tcase_add_test(tc, console_client_matrix);
  tcase_add_test(tc, console_matrix_block_per_protocol);
  tcase_add_test(tc, matrix_previous_major_column);
  tcase_add_test(tc, console_matrix_cuts_reasons_on_characters);
  tcase_add_test(tc, matrix_error_cells_rendered);
  tcase_add_test(tc, matrix_server_fault_cells_rendered);
  tcase_add_test(tc, matrix_reasoning_rendered);
  suite_add_tcase(s, tc);
  tc = tcase_create("html");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, html_hostile_fixture);
  tcase_add_test(tc, html_sections);
  tcase_add_test(tc, html_missing_asset_names_file);
  tcase_add_test(tc, html_refuses_assets_that_break_the_page);
  suite_add_tcase(s, tc);
  tc = tcase_create("merge-diff");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, merge_orders_dedupes_recounts);
  tcase_add_test(tc, merge_shards_equals_unsharded);
  tcase_add_test(tc, diff_self_is_empty);
  tcase_add_test(tc, diff_categories);
  suite_add_tcase(s, tc);
  return oc_test_run(s);
}
