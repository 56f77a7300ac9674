/* check_schema_suite.c — the official JSON-Schema-Test-Suite (draft
 * 2020-12 and draft-07, required tests; optional/format with format
 * assertion on, counted apart) and the OpenAI chat-components examples.
 * Every test whose outcome differs from the suite is listed in
 * tests/schema-known-failures.txt with a reason; the test fails when an
 * unlisted case fails or a listed one starts passing.  Each instance is
 * validated twice, on the fast path and on the reporting path, and both
 * must agree (an invalid verdict must come with at least one message). */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "jdoc.h"
#include "schema.h"
#include "testutil.h"

/* ---- known failures ------------------------------------------------- */

struct known {
  char **ids;
  int *seen;
  size_t n, cap;
};

/* Lines are "ID :: reason" where ID is "DIR/FILE :: CASE :: TEST". */
static void known_load(struct known *k)
{
  memset(k, 0, sizeof(*k));
  char *path = oc_test_src("tests/schema-known-failures.txt");
  char *buf = oc_test_read(path, NULL);
  free(path);
  for(char *line = buf, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if(next)
      *next++ = '\0';
    if(!*line || line[0] == '#')
      continue;
    /* the ID is everything before the third " :: " */
    char *p = line;
    for(int i = 0; i < 3 && p; i++) {
      p = strstr(p, " :: ");
      if(p && i < 2)
        p += 4;
    }
    if(p)
      *p = '\0';
    if(k->n == k->cap) {
      k->cap = k->cap ? k->cap * 2 : 64;
      k->ids = realloc(k->ids, k->cap * sizeof(*k->ids));
      k->seen = realloc(k->seen, k->cap * sizeof(*k->seen));
      ck_assert(k->ids && k->seen);
    }
    k->ids[k->n] = oc_strdup(line);
    k->seen[k->n] = 0;
    k->n++;
  }
  free(buf);
}

static int known_find(struct known *k, const char *id)
{
  for(size_t i = 0; i < k->n; i++)
    if(strcmp(k->ids[i], id) == 0) {
      k->seen[i] = 1;
      return 1;
    }
  return 0;
}

static void known_free(struct known *k)
{
  for(size_t i = 0; i < k->n; i++)
    free(k->ids[i]);
  free(k->ids);
  free(k->seen);
}

/* ---- running one directory ------------------------------------------ */

struct tally {
  size_t passed, failed, surprises;
};

static int cmpstr(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static const struct oc_jv *jfield(const struct oc_jv *o, const char *k)
{
  return oc_jv_get(o, k);
}

static void run_file(struct oc_schema_registry *reg, const char *dir, const char *label,
                     const char *file, unsigned flags, struct known *kn, struct tally *t)
{
  char *path = oc_path_join(dir, file);
  size_t len;
  char *buf = oc_test_read(path, &len);
  struct oc_jdoc doc;
  oc_jdoc_init(&doc);
  struct oc_jerr je;
  ck_assert_msg(oc_jdoc_parse(&doc, buf, len, &je) == 0, "%s: %s", path, je.message);
  const struct oc_jv *root = doc.root;
  ck_assert_int_eq(root->type, OC_JARRAY);
  for(uint32_t ci = 0; ci < root->len; ci++) {
    const struct oc_jv *cs = &root->u.items[ci];
    const char *cdesc = oc_jv_str(cs, "description", NULL);
    const struct oc_jv *tests = jfield(cs, "tests");
    char err[1024];
    struct oc_schema *s = oc_schema_compile_jv(reg, jfield(cs, "schema"), NULL, flags, err, sizeof(err));
    for(uint32_t ti = 0; ti < tests->len; ti++) {
      const struct oc_jv *tc = &tests->u.items[ti];
      const char *tdesc = oc_jv_str(tc, "description", NULL);
      int want = oc_jv_get(tc, "valid")->type == OC_JTRUE;
      char *id = oc_asprintf("%s/%s :: %s :: %s", label, file, cdesc, tdesc);
      int got = -1;
      const char *why = NULL;
      if(s) {
        got = oc_schema_validate(s, jfield(tc, "data"), NULL);
        struct oc_schema_result res;
        oc_schema_result_init(&res);
        res.always_report = 1;
        int got2 = oc_schema_validate(s, jfield(tc, "data"), &res);
        if(got2 != got)
          why = "fast path and reporting path disagree";
        else if(got == 0 && res.count == 0)
          why = "invalid without a message";
        else if(got == 1 && res.count != 0)
          why = "valid with messages";
        oc_schema_result_free(&res);
      }
      int pass = !why && got == want;
      int listed = known_find(kn, id);
      if(pass)
        t->passed++;
      else
        t->failed++;
      if(pass && listed) {
        fprintf(stderr, "NOW PASSES (remove from known failures): %s\n", id);
        t->surprises++;
      }
      else if(!pass && !listed) {
        fprintf(stderr, "UNEXPECTED FAILURE: %s :: %s\n", id,
                why ? why : !s ? err : want ? "expected valid, got invalid" : "expected invalid, got valid");
        t->surprises++;
      }
      free(id);
    }
    oc_schema_free(s);
  }
  oc_jdoc_free(&doc);
  free(buf);
  free(path);
}

static void run_dir(struct oc_schema_registry *reg, const char *rel, const char *label,
                    unsigned flags, struct known *kn, struct tally *t)
{
  char *dir = oc_test_shared(rel);
  if(!dir)
    return;
  DIR *dh = opendir(dir);
  ck_assert_ptr_nonnull(dh);
  char **names = NULL;
  size_t n = 0;
  struct dirent *de;
  while((de = readdir(dh))) {
    if(!oc_endswith(de->d_name, ".json"))
      continue;
    names = realloc(names, (n + 1) * sizeof(*names));
    names[n++] = oc_strdup(de->d_name);
  }
  closedir(dh);
  qsort(names, n, sizeof(*names), cmpstr);
  for(size_t i = 0; i < n; i++) {
    run_file(reg, dir, label, names[i], flags, kn, t);
    free(names[i]);
  }
  free(names);
  free(dir);
}

static struct oc_schema_registry *suite_registry(void)
{
  char *remotes = oc_test_shared("reference/json-schema-test-suite/remotes");
  if(!remotes)
    return NULL;
  struct oc_schema_registry *reg = oc_schema_registry_new();
  char err[1024];
  ck_assert_msg(oc_schema_registry_add_dir(reg, remotes, "http://localhost:1234/", err, sizeof(err)) == 0,
                "%s", err);
  free(remotes);
  return reg;
}

static void run_draft(const char *draft, unsigned flags)
{
  struct oc_schema_registry *reg = suite_registry();
  if(!reg)
    return;
  struct known kn;
  known_load(&kn);
  struct tally req = { 0, 0, 0 }, opt = { 0, 0, 0 };
  char rel[256], label[128];
  snprintf(rel, sizeof(rel), "reference/json-schema-test-suite/tests/%s", draft);
  run_dir(reg, rel, draft, flags, &kn, &req);
  snprintf(rel, sizeof(rel), "reference/json-schema-test-suite/tests/%s/optional/format", draft);
  snprintf(label, sizeof(label), "%s/optional/format", draft);
  run_dir(reg, rel, label, flags | OC_SCHEMA_FORMAT_ASSERT, &kn, &opt);
  /* listed cases of this draft that no longer exist are stale too */
  size_t stale = 0;
  size_t dl = strlen(draft);
  for(size_t i = 0; i < kn.n; i++)
    if(strncmp(kn.ids[i], draft, dl) == 0 && kn.ids[i][dl] == '/' && !kn.seen[i]) {
      fprintf(stderr, "STALE known failure (no such test): %s\n", kn.ids[i]);
      stale++;
    }
  printf("# %s required: %zu passed, %zu failed\n", draft, req.passed, req.failed);
  printf("# %s optional/format (format assertion on): %zu passed, %zu failed\n", draft, opt.passed,
         opt.failed);
  fflush(stdout);
  known_free(&kn);
  oc_schema_registry_free(reg);
  ck_assert_msg(req.surprises + opt.surprises + stale == 0,
                "%s: %zu unexpected results (see the log), %zu stale entries", draft,
                req.surprises + opt.surprises, stale);
}

START_TEST(draft2020_12)
{
  run_draft("draft2020-12", 0);
}
END_TEST

START_TEST(draft7)
{
  run_draft("draft7", OC_SCHEMA_DRAFT7);
}
END_TEST

/* The OpenAI chat components (2020-12 form) with 60 instances whose
 * verdicts were computed by ajv and python-jsonschema. */
START_TEST(openai_examples)
{
  char *schema_path = oc_test_shared("reference/openai-openapi/chat-components.2020-12.json");
  char *ex_path = oc_test_shared("reference/openai-openapi/examples.json");
  if(!schema_path || !ex_path) {
    free(schema_path);
    free(ex_path);
    return;
  }
  struct oc_schema_registry *reg = oc_schema_registry_new();
  char err[1024];
  const char *uri = "https://oacheck.test/chat-components.json";
  ck_assert_msg(oc_schema_registry_add_file(reg, uri, schema_path, err, sizeof(err)) == 0, "%s", err);
  size_t len;
  char *buf = oc_test_read(ex_path, &len);
  struct oc_jdoc doc;
  oc_jdoc_init(&doc);
  struct oc_jerr je;
  ck_assert(oc_jdoc_parse(&doc, buf, len, &je) == 0);
  size_t agree = 0, differ = 0;
  for(uint32_t i = 0; i < doc.root->len; i++) {
    const struct oc_jv *ex = &doc.root->u.items[i];
    char *target = oc_asprintf("%s#/$defs/%s", uri, oc_jv_str(ex, "schema", NULL));
    struct oc_schema *s = oc_schema_compile_uri(reg, target, 0, err, sizeof(err));
    ck_assert_msg(s != NULL, "%s: %s", target, err);
    int want = oc_jv_get(ex, "valid")->type == OC_JTRUE;
    struct oc_schema_result res;
    oc_schema_result_init(&res);
    int got = oc_schema_validate(s, oc_jv_get(ex, "instance"), &res);
    int fast = oc_schema_validate(s, oc_jv_get(ex, "instance"), NULL);
    if(got == want && fast == want)
      agree++;
    else {
      differ++;
      fprintf(stderr, "example %s: expected %s, got %d/%d\n", oc_jv_str(ex, "name", NULL),
              want ? "valid" : "invalid", got, fast);
    }
    if(!want && got == 0)
      ck_assert_uint_gt(res.count, 0);
    oc_schema_result_free(&res);
    oc_schema_free(s);
    free(target);
  }
  printf("# openai examples: %zu passed, %zu failed\n", agree, differ);
  fflush(stdout);
  oc_jdoc_free(&doc);
  free(buf);
  oc_schema_registry_free(reg);
  free(schema_path);
  free(ex_path);
  ck_assert_uint_eq(differ, 0);
  ck_assert_uint_eq(agree, 60);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("schema_suite");
  TCase *tc = tcase_create("official");
  /* the whole suite under the sanitizers takes a while; this bounds a hang,
   * it asserts nothing about speed */
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, draft2020_12);
  tcase_add_test(tc, draft7);
  tcase_add_test(tc, openai_examples);
  suite_add_tcase(s, tc);
  return oc_test_run(s);
}
