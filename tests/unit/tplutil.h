/* tplutil.h — helpers for the tests over the team's 50 recorded chat
 * templates (../shared/recordings/llama-server-templates): reading the
 * hand-made tables of tests/data/templates/ (TSV: tab-separated, '#'
 * comments, \n \t \\ escapes) and a recorded exchange's response body.
 * The tables are the ground truth; these helpers only read them. */
#ifndef OC_TPLUTIL_H
#define OC_TPLUTIL_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cassette.h"
#include "json.h"
#include "testutil.h"
#include "util.h"

#define TPL_MAX_COLS 6

struct tpl_row {
  char *col[TPL_MAX_COLS]; /* unescaped, NUL-terminated; missing columns are "" */
  int ncols;
  int line;
};

struct tpl_table {
  struct tpl_row *rows;
  size_t n;
};

/* The table's escapes: \n newline, \t tab, \\ backslash; a backslash
 * before anything else is literal. */
static inline char *tpl_unescape(const char *s, size_t n)
{
  char *o = malloc(n + 1);
  size_t k = 0;
  ck_assert_ptr_nonnull(o);
  for(size_t i = 0; i < n; i++) {
    if(s[i] == '\\' && i + 1 < n && (s[i + 1] == 'n' || s[i + 1] == 't' || s[i + 1] == '\\')) {
      o[k++] = s[i + 1] == 'n' ? '\n' : s[i + 1] == 't' ? '\t' : '\\';
      i++;
    }
    else
      o[k++] = s[i];
  }
  o[k] = '\0';
  return o;
}

/* Read tests/data/templates/NAME; fails the test when it cannot. */
static inline void tpl_table_read(const char *name, struct tpl_table *t)
{
  char rel[128];
  snprintf(rel, sizeof(rel), "tests/data/templates/%s", name);
  char *path = oc_test_src(rel);
  char *text = oc_test_read(path, NULL);
  free(path);
  memset(t, 0, sizeof(*t));
  size_t alloc = 0;
  int line = 0;
  for(char *p = text; *p;) {
    char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    line++;
    if(len && p[0] != '#') {
      struct tpl_row *r = oc_array_grow(t->rows, &alloc, t->n + 1, sizeof(*r));
      ck_assert_ptr_nonnull(r);
      t->rows = r;
      r = &t->rows[t->n++];
      memset(r, 0, sizeof(*r));
      r->line = line;
      const char *f = p, *end = p + len;
      while(r->ncols < TPL_MAX_COLS) {
        const char *tab = memchr(f, '\t', (size_t)(end - f));
        const char *fe = tab ? tab : end;
        r->col[r->ncols++] = tpl_unescape(f, (size_t)(fe - f));
        if(!tab)
          break;
        f = tab + 1;
      }
      for(int c = r->ncols; c < TPL_MAX_COLS; c++)
        r->col[c] = tpl_unescape("", 0);
    }
    p += len + (nl ? 1 : 0);
  }
  free(text);
}

static inline void tpl_table_free(struct tpl_table *t)
{
  for(size_t i = 0; i < t->n; i++)
    for(int c = 0; c < TPL_MAX_COLS; c++)
      free(t->rows[i].col[c]);
  free(t->rows);
  memset(t, 0, sizeof(*t));
}

/* The shared templates directory, or NULL (the caller skips). */
static inline char *tpl_shared_dir(void)
{
  return oc_test_shared("recordings/llama-server-templates");
}

/* Read DIR/TEMPLATE/CASSETTE.cassette.gz into *c; fails the test when it cannot. */
static inline void tpl_cassette(const char *dir, const char *tmpl, const char *name,
                                struct oc_cassette *c)
{
  char *path = oc_asprintf("%s/%s/%s%s", dir, tmpl, name, OC_CASSETTE_EXT);
  char err[600];
  ck_assert_ptr_nonnull(path);
  int rc = oc_cassette_read(path, c, err, sizeof(err));
  ck_assert_msg(rc == 0, "%s", err);
  free(path);
}

/* A template's text from its recorded GET /props; caller frees. */
static inline char *tpl_template_text(const char *dir, const char *tmpl)
{
  struct oc_cassette c;
  tpl_cassette(dir, tmpl, "template-renders.props", &c);
  cJSON *j = oc_json_parse(c.body, c.body_len, NULL);
  const char *t = oc_json_str(j, "chat_template");
  ck_assert_msg(t != NULL, "%s: /props has no chat_template", tmpl);
  char *out = oc_strdup(t);
  cJSON_Delete(j);
  oc_cassette_free(&c);
  return out;
}

#endif
