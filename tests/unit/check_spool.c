/* check_spool.c — results at scale: the results spool (stored, read back
 * in any order, nothing left on disk, errors named), the JSON writer that
 * fills it (what it writes reads back as the same tree; numbers and
 * escapes as cJSON would have them), the arena results are built in, and
 * what the report writers read through (struct oc_results over a document
 * or a spool, string pairs, the sink, and that both mask every secret the
 * run knows, also one a flush cuts in two). */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "report.h"
#include "secret.h"
#include "spool.h"
#include "testutil.h"

static char *write_json(const cJSON *j, int pretty)
{
  struct oc_buf b;
  oc_buf_init(&b, 1u << 24);
  ck_assert_int_eq(oc_json_write(&b, j, pretty), OC_OK);
  return oc_buf_take(&b, NULL);
}

static void number_is(double v, const char *want)
{
  cJSON *n = cJSON_CreateNumber(v);
  char *got = write_json(n, 0);
  ck_assert_msg(strcmp(got, want) == 0, "%.17g written as '%s', want '%s'", v, got, want);
  if(isfinite(v))
    ck_assert_msg(strtod(got, NULL) == v, "'%s' does not read back as %.17g", got, v);
  free(got);
  cJSON_Delete(n);
}

START_TEST(numbers_read_back)
{
  number_is(0, "0");
  number_is(-0.0, "0");
  number_is(42, "42");
  number_is(-7, "-7");
  number_is(1796106653, "1796106653");
  number_is(9007199254740991.0, "9007199254740991");
  number_is(0.432064, "0.432064");
  number_is(-12.5, "-12.5");
  number_is(1.1, "1.1");
  number_is(0.000001, "0.000001");
  number_is(NAN, "null");
  number_is(INFINITY, "null");
  /* beyond the decimal fast path: cJSON's own forms */
  number_is(1e300, "1e+300");
  number_is(0.1 + 0.2, "0.30000000000000004");
  number_is(5e-324, "4.94065645841247e-324");
  /* and every other double reads back, whatever its form */
  double vals[] = { 1.0 / 3, 2.0 / 3, M_PI, 123456.789012345, 1e-7, 12345678.9, DBL_MAX, DBL_MIN,
                    9007199254740993.0, 0.1, 1e9 + 0.5 };
  for(size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
    cJSON *n = cJSON_CreateNumber(vals[i]);
    char *got = write_json(n, 0);
    ck_assert_msg(strtod(got, NULL) == vals[i], "%.17g written as '%s'", vals[i], got);
    free(got);
    cJSON_Delete(n);
  }
}
END_TEST

START_TEST(strings_escaped_as_cjson_does)
{
  const char *s = "q\"b\\s/\b\f\n\r\t\x01\x1f \xc3\xa9 \xff end";
  cJSON *j = cJSON_CreateString(s);
  char *ours = write_json(j, 0);
  char *theirs = cJSON_PrintUnformatted(j);
  ck_assert_str_eq(ours, theirs);
  ck_assert_str_eq(ours, "\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001f \xc3\xa9 \xff end\"");
  free(ours);
  cJSON_free(theirs);
  cJSON_Delete(j);
  /* every byte value at every alignment, in runs of any length: the same
   * text as cJSON's */
  char text[5000];
  unsigned x = 12345;
  for(size_t i = 0; i < sizeof(text) - 1; i++) {
    x = x * 1103515245u + 12345u;
    unsigned r = (x >> 16) % 100;
    text[i] = (char)(r < 60 ? 'a' + r % 26 : r < 70 ? '"' : r < 75 ? '\\' : 1 + (x >> 8) % 255);
  }
  text[sizeof(text) - 1] = '\0';
  for(size_t off = 0; off < 9; off++) {
    j = cJSON_CreateString(text + off);
    ours = write_json(j, 0);
    theirs = cJSON_PrintUnformatted(j);
    ck_assert_str_eq(ours, theirs);
    free(ours);
    cJSON_free(theirs);
    cJSON_Delete(j);
  }
  /* long plain runs (copied eight bytes at a time) with one byte to
   * escape at every place in a word, and the bytes that differ from '"',
   * '\\' and the controls only in their high bit, which are plain */
  static const unsigned char odd[] = { '"', '\\', 0x01, 0x1f, 0x20, 0x21, 0x23, 0x5b, 0x5d,
                                       0x7f, 0x80, 0x9f, 0xa0, 0xa2, 0xdc, 0xff };
  for(size_t i = 0; i < sizeof(text) - 1; i++) {
    x = x * 1103515245u + 12345u;
    unsigned r = (x >> 16) % 100;
    text[i] = (char)(r < 90 ? 'a' + r % 26 : odd[(x >> 8) % sizeof(odd)]);
  }
  for(size_t len = 0; len < 80; len++)
    for(size_t off = 0; off < 9; off++) {
      char piece[100];
      memcpy(piece, text + off + len * 37, len);
      piece[len] = '\0';
      j = cJSON_CreateString(piece);
      ours = write_json(j, 0);
      theirs = cJSON_PrintUnformatted(j);
      ck_assert_msg(strcmp(ours, theirs) == 0, "%zu bytes at %zu: not written as cJSON writes them",
                    len, off);
      free(ours);
      cJSON_free(theirs);
      cJSON_Delete(j);
    }
}
END_TEST

START_TEST(trees_read_back_compact_and_pretty)
{
  const char *text = "{\"a\":[1,2.5,{\"b\":null,\"c\":true,\"d\":false}],\"e\":{},\"f\":[],"
                     "\"g\":\"x\\ny\",\"h\":{\"i\":[[],[{}]]},\"\":-3}";
  cJSON *j = oc_json_parse(text, strlen(text), NULL);
  ck_assert_ptr_nonnull(j);
  char *compact = write_json(j, 0);
  ck_assert_str_eq(compact, text);
  char *pretty = write_json(j, 1);
  ck_assert_ptr_nonnull(strstr(pretty, "{\n  \"a\": [1, 2.5, {\n    \"b\": null,"));
  ck_assert_ptr_nonnull(strstr(pretty, "\"e\": {},\n  \"f\": [],"));
  ck_assert_msg(pretty[strlen(pretty) - 1] == '}' && pretty[strlen(pretty) - 2] == '\n', "%s", pretty);
  cJSON *back = oc_json_parse(pretty, strlen(pretty), NULL);
  ck_assert_ptr_nonnull(back);
  ck_assert(oc_json_equal(j, back));
  free(compact);
  free(pretty);
  cJSON_Delete(back);
  cJSON_Delete(j);
}
END_TEST

START_TEST(reindent_is_the_pretty_form)
{
  const char *text = "{\"a\":[1,{\"s\":\"x{[,:]}\\\"y\\\\\",\"e\":{},\"f\":[]}],"
                     "\"b\":{\"c\":[[],[{}]],\"d\":\"\"},\"\":null}";
  cJSON *j = oc_json_parse(text, strlen(text), NULL);
  ck_assert_ptr_nonnull(j);
  char *compact = write_json(j, 0);
  char *pretty = write_json(j, 1);
  struct oc_buf b;
  oc_buf_init(&b, 1u << 20);
  ck_assert_int_eq(oc_json_reindent(&b, compact, strlen(compact), 0), OC_OK);
  ck_assert_str_eq(oc_buf_str(&b), pretty);
  /* deeper: every line but the first indented two more */
  oc_buf_reset(&b);
  ck_assert_int_eq(oc_json_reindent(&b, "[1,2]", 5, 2), OC_OK);
  ck_assert_str_eq(oc_buf_str(&b), "[1, 2]");
  oc_buf_reset(&b);
  ck_assert_int_eq(oc_json_reindent(&b, "[{\"a\":[1]}]", 11, 2), OC_OK);
  ck_assert_str_eq(oc_buf_str(&b), "[{\n      \"a\": [1]\n    }]");
  oc_buf_free(&b);
  free(compact);
  free(pretty);
  cJSON_Delete(j);
}
END_TEST

START_TEST(writer_stops_at_the_cap)
{
  cJSON *j = cJSON_CreateString("0123456789abcdef0123456789abcdef");
  struct oc_buf b;
  oc_buf_init(&b, 16);
  ck_assert_int_eq(oc_json_write(&b, j, 0), OC_ETOOBIG);
  oc_buf_free(&b);
  cJSON_Delete(j);
}
END_TEST

/* ---- arena ---- */

START_TEST(arena_builds_and_forgets)
{
  cJSON *outside = cJSON_CreateObject(); /* made before: freed normally inside */
  cJSON_AddStringToObject(outside, "k", "v");
  ck_assert_int_eq(oc_json_arena_begin(), OC_OK);
  ck_assert_int_eq(oc_json_arena_begin(), OC_EUSAGE);
  cJSON *big = cJSON_CreateArray();
  char text[100 << 10];
  memset(text, 'x', sizeof(text) - 1);
  text[sizeof(text) - 1] = '\0';
  for(int i = 0; i < 2000; i++) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "i", i);
    cJSON_AddStringToObject(o, "s", i % 500 ? "short" : text); /* a few big ones */
    cJSON_AddItemToArray(big, o);
  }
  ck_assert_int_eq(cJSON_GetArraySize(big), 2000);
  ck_assert_int_eq(oc_json_num(cJSON_GetArrayItem(big, 1999), "i", -1), 1999);
  char *w = write_json(big, 0);
  ck_assert_uint_gt(strlen(w), 4 * sizeof(text));
  free(w);
  cJSON_Delete(outside);
  cJSON_Delete(big);
  size_t during = oc_json_arena_resident();
  oc_json_arena_end();
  /* only the base block stays */
  ck_assert_uint_lt(oc_json_arena_resident(), during);
  ck_assert_uint_le(oc_json_arena_resident(), 300u << 10);
  /* outside it, allocation is malloc's again: this outlives everything */
  cJSON *after = cJSON_CreateString("after");
  ck_assert_int_eq(oc_json_arena_begin(), OC_OK);
  cJSON *again = cJSON_CreateNumber(1);
  cJSON_Delete(again);
  oc_json_arena_end();
  ck_assert_str_eq(after->valuestring, "after");
  cJSON_Delete(after);
}
END_TEST

/* ---- spool ---- */

static char tmpdir[256];

static void make_tmpdir(void)
{
  const char *t = getenv("TMPDIR");
  snprintf(tmpdir, sizeof(tmpdir), "%s/check_spool.XXXXXX", t && *t ? t : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static int dir_entries(const char *dir)
{
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  struct dirent *e;
  while((e = readdir(d)))
    if(strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      n++;
  closedir(d);
  return n;
}

START_TEST(spool_stores_and_reads_in_any_order)
{
  make_tmpdir();
  struct oc_spool s;
  char err[600];
  ck_assert_int_eq(oc_spool_open(&s, tmpdir, 5000, err, sizeof(err)), OC_OK);
  /* unlinked at once: nothing in the directory even while it is in use */
  ck_assert_int_eq(dir_entries(tmpdir), 0);
  /* stored in a scrambled order, some big enough to go past a piece */
  for(size_t k = 0; k < 5000; k++) {
    size_t i = (k * 2654435761u) % 5000;
    cJSON *r = cJSON_CreateObject();
    cJSON_AddNumberToObject(r, "i", (double)i);
    if(i % 1000 == 7) {
      char *big = malloc(3u << 20);
      memset(big, 'b', (3u << 20) - 1);
      big[(3u << 20) - 1] = '\0';
      cJSON_AddStringToObject(r, "big", big);
      free(big);
    }
    else
      cJSON_AddStringToObject(r, "text", "line\nbreak");
    ck_assert_int_eq(oc_spool_put_json(&s, i, r, (int)(i % 4), err, sizeof(err)), OC_OK);
    cJSON_Delete(r);
  }
  ck_assert_uint_eq(s.stored, 5000);
  ck_assert_int_eq(oc_spool_put(&s, 3, "{}", 2, 0, err, sizeof(err)), OC_EUSAGE);
  ck_assert_int_eq(oc_spool_put(&s, 5000, "{}", 2, 0, err, sizeof(err)), OC_EUSAGE);
  for(size_t i = 0; i < 5000; i++) {
    ck_assert(oc_spool_has(&s, i));
    ck_assert_int_eq(s.items[i].status, (int)(i % 4));
    cJSON *r = oc_spool_get(&s, i, err, sizeof(err));
    ck_assert_msg(r != NULL, "%zu: %s", i, err);
    ck_assert_int_eq(oc_json_num(r, "i", -1), (double)i);
    if(i % 1000 == 7)
      ck_assert_uint_eq(strlen(oc_json_str(r, "big")), (3u << 20) - 1);
    else
      ck_assert_str_eq(oc_json_str(r, "text"), "line\nbreak");
    cJSON_Delete(r);
  }
  oc_spool_close(&s);
  oc_spool_close(&s);
  ck_assert_int_eq(dir_entries(tmpdir), 0);
  rmdir(tmpdir);
}
END_TEST

START_TEST(spool_unstored_and_unwritable)
{
  struct oc_spool s;
  char err[600];
  make_tmpdir();
  ck_assert_int_eq(oc_spool_open(&s, tmpdir, 3, err, sizeof(err)), OC_OK);
  ck_assert(!oc_spool_has(&s, 1));
  ck_assert_ptr_null(oc_spool_get(&s, 1, err, sizeof(err)));
  ck_assert_ptr_nonnull(strstr(err, "no result 1"));
  oc_spool_close(&s);
  char missing[300];
  snprintf(missing, sizeof(missing), "%s/not-there", tmpdir);
  ck_assert_int_eq(oc_spool_open(&s, missing, 3, err, sizeof(err)), OC_EIO);
  ck_assert_msg(strstr(err, missing) != NULL, "%s", err);
  rmdir(tmpdir);
}
END_TEST

START_TEST(spool_dir_beside_the_json_report)
{
  char buf[64];
  ck_assert_ptr_null(oc_spool_dir_for(NULL, buf, sizeof(buf)));
  ck_assert_ptr_null(oc_spool_dir_for("r.json", buf, sizeof(buf)));
  ck_assert_str_eq(oc_spool_dir_for("out/r.json", buf, sizeof(buf)), "out");
  ck_assert_str_eq(oc_spool_dir_for("/r.json", buf, sizeof(buf)), "/");
  ck_assert_str_eq(oc_spool_dir_for("/a/b/r.json", buf, sizeof(buf)), "/a/b");
}
END_TEST

/* ---- results one at a time ---- */

static cJSON *fixture_doc(size_t n)
{
  cJSON *doc = oc_results_doc_new("replay", "2026-01-01T00:00:00Z", NULL, "oacheck run");
  cJSON *results = oc_json_arr(doc, "results");
  for(size_t i = 0; i < n; i++) {
    cJSON *r = cJSON_CreateObject();
    char name[32];
    snprintf(name, sizeof(name), "c%zu", i);
    cJSON_AddStringToObject(r, "target", i % 3 ? "b" : "a");
    cJSON_AddStringToObject(r, "suite", i % 2 ? "s1" : "s2");
    cJSON_AddStringToObject(r, "case", name);
    cJSON_AddStringToObject(r, "status", i % 7 ? "pass" : "fail");
    cJSON_AddNumberToObject(r, "duration_ms", 1.5);
    cJSON *fs = cJSON_AddArrayToObject(r, "findings");
    if(i % 5 == 0) {
      cJSON *f = cJSON_CreateObject();
      cJSON_AddStringToObject(f, "rule", "X-RULE");
      cJSON_AddStringToObject(f, "severity", "warning");
      cJSON_AddItemToArray(fs, f);
    }
    cJSON_AddItemToArray(results, r);
  }
  return doc;
}

START_TEST(json_report_streams_the_same_bytes)
{
  cJSON *doc = fixture_doc(40);
  struct oc_results rs;
  ck_assert_int_eq(oc_results_from_doc(&rs, doc), OC_OK);
  ck_assert_uint_eq(rs.count, 40);
  struct oc_counts c;
  oc_results_counts(&rs, NULL, NULL, &c);
  struct oc_counts d;
  oc_results_count(doc, NULL, NULL, &d);
  ck_assert_int_eq(c.total, d.total);
  ck_assert_int_eq(c.fail, d.fail);
  ck_assert_int_eq(c.warnings, d.warnings);
  oc_results_counts(&rs, "a", "s2", &c);
  oc_results_count(doc, "a", "s2", &d);
  ck_assert_int_eq(c.total, d.total);
  ck_assert_int_eq(c.pass, d.pass);
  struct oc_buf b;
  oc_buf_init(&b, 1u << 24);
  struct oc_sink sink;
  oc_sink_init_mem(&sink, &b);
  ck_assert_int_eq(oc_report_json_render(&rs, &sink), OC_OK);
  char *whole = oc_json_print_pretty(doc);
  ck_assert_str_eq(oc_buf_str(&b), whole);
  free(whole);
  oc_buf_free(&b);
  oc_results_free(&rs);
  cJSON_Delete(doc);
}
END_TEST

START_TEST(results_from_a_spool)
{
  make_tmpdir();
  cJSON *doc = fixture_doc(30);
  struct oc_spool sp;
  char err[600];
  ck_assert_int_eq(oc_spool_open(&sp, tmpdir, 30, err, sizeof(err)), OC_OK);
  struct oc_result_ref *refs = calloc(30, sizeof(*refs));
  size_t *at = calloc(30, sizeof(*at));
  const cJSON *r;
  size_t i = 0;
  /* stored backwards: the spool's order is not the document's */
  cJSON *arr = oc_json_arr(doc, "results");
  for(size_t k = 30; k-- > 0;) {
    r = cJSON_GetArrayItem(arr, (int)k);
    ck_assert_int_eq(oc_spool_put_json(&sp, k, r, oc_result_status(r), err, sizeof(err)), OC_OK);
  }
  cJSON_ArrayForEach(r, arr) {
    oc_result_ref_of(&refs[i], r);
    at[i] = i;
    i++;
  }
  /* the frame: the document without its results */
  cJSON *frame = cJSON_Duplicate(doc, 1);
  cJSON_ReplaceItemInObjectCaseSensitive(frame, "results", cJSON_CreateArray());
  struct oc_results rs;
  oc_results_from_spool(&rs, frame, &sp, refs, at, 30);
  struct oc_buf b;
  oc_buf_init(&b, 1u << 24);
  struct oc_sink sink;
  oc_sink_init_mem(&sink, &b);
  ck_assert_int_eq(oc_report_json_render(&rs, &sink), OC_OK);
  char *whole = oc_json_print_pretty(doc);
  ck_assert_str_eq(oc_buf_str(&b), whole);
  free(whole);
  /* one at a time, any order */
  const cJSON *x = oc_results_get(&rs, 17, err, sizeof(err));
  ck_assert_str_eq(oc_json_str(x, "case"), "c17");
  x = oc_results_get(&rs, 3, err, sizeof(err));
  ck_assert_str_eq(oc_json_str(x, "case"), "c3");
  ck_assert_ptr_null(oc_results_get(&rs, 30, err, sizeof(err)));
  oc_buf_free(&b);
  oc_results_free(&rs);
  oc_spool_close(&sp);
  cJSON_Delete(frame);
  cJSON_Delete(doc);
  rmdir(tmpdir);
}
END_TEST

START_TEST(pairs_number_what_they_see)
{
  struct oc_pairs p;
  oc_pairs_init(&p);
  size_t id;
  char a[32], bb[32];
  for(int round = 0; round < 2; round++)
    for(int i = 0; i < 1000; i++) {
      snprintf(a, sizeof(a), "t%d", i % 37);
      snprintf(bb, sizeof(bb), "s%d", i);
      /* the strings are borrowed: keep them alive in a table */
      static char keep_a[1000][32], keep_b[1000][32];
      if(!round) {
        memcpy(keep_a[i], a, sizeof(a));
        memcpy(keep_b[i], bb, sizeof(bb));
      }
      ck_assert_int_eq(oc_pairs_id(&p, round ? a : keep_a[i], round ? bb : keep_b[i], &id), OC_OK);
      ck_assert_uint_eq(id, (size_t)i);
    }
  ck_assert_uint_eq(p.count, 1000);
  ck_assert_str_eq(p.as[999], "t0");
  ck_assert_str_eq(p.bs[999], "s999");
  ck_assert_int_eq(oc_pairs_id(&p, NULL, NULL, &id), OC_OK);
  ck_assert_uint_eq(id, 1000);
  ck_assert_int_eq(oc_pairs_id(&p, "", "", &id), OC_OK);
  ck_assert_uint_eq(id, 1000);
  oc_pairs_free(&p);
}
END_TEST

START_TEST(sink_replaces_the_file_only_when_whole)
{
  make_tmpdir();
  char path[300], err[600];
  snprintf(path, sizeof(path), "%s/report.txt", tmpdir);
  struct oc_sink s;
  ck_assert_int_eq(oc_sink_open(&s, path, err, sizeof(err)), OC_OK);
  for(int i = 0; i < 3000; i++) {
    oc_buf_printf(s.b, "line %d of a report that is larger than a megabyte......................"
                       "....................................................................\n", i);
    ck_assert_int_eq(oc_sink_flush(&s), OC_OK);
  }
  ck_assert_int_eq(oc_sink_close(&s, OC_OK, err, sizeof(err)), OC_OK);
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  ck_assert_int_gt(st.st_size, 1 << 18);
  ck_assert_int_eq(dir_entries(tmpdir), 1);
  /* a failed render leaves the old file as it was */
  ck_assert_int_eq(oc_sink_open(&s, path, err, sizeof(err)), OC_OK);
  oc_buf_adds(s.b, "half");
  ck_assert_int_ne(oc_sink_close(&s, OC_ENOMEM, err, sizeof(err)), OC_OK);
  struct stat st2;
  ck_assert_int_eq(stat(path, &st2), 0);
  ck_assert_int_eq(st2.st_size, st.st_size);
  ck_assert_int_eq(dir_entries(tmpdir), 1);
  unlink(path);
  rmdir(tmpdir);
}
END_TEST

/* what a report or the spool puts on disk never holds a secret, also when
 * the sink's megabyte ends inside one */
START_TEST(sink_and_spool_mask_secrets)
{
  static const char key[] = "sk-test-SECRET-0123456789";
  ck_assert_int_eq(oc_secret_add(key), OC_OK);
  ck_assert_uint_eq(oc_secret_longest(), strlen(key));
  make_tmpdir();
  char path[300], err[600];
  snprintf(path, sizeof(path), "%s/report.txt", tmpdir);
  struct oc_sink s;
  ck_assert_int_eq(oc_sink_open(&s, path, err, sizeof(err)), OC_OK);
  size_t fill = (1u << 20) - 10, total = 0;
  char *filler = malloc(fill + 1);
  ck_assert_ptr_nonnull(filler);
  memset(filler, 'x', fill);
  filler[fill] = '\0';
  /* a flush when the buffer holds a megabyte ending ten bytes into the
   * key, the rest of the key added after it */
  ck_assert_int_eq(oc_buf_adds(s.b, filler), OC_OK);
  ck_assert_int_eq(oc_buf_add(s.b, key, 10), OC_OK);
  ck_assert_uint_eq(s.b->len, 1u << 20);
  ck_assert_int_eq(oc_sink_flush(&s), OC_OK);
  ck_assert_int_eq(oc_buf_adds(s.b, key + 10), OC_OK);
  total += fill + strlen(key);
  ck_assert_int_eq(oc_buf_adds(s.b, " and again at the end: "), OC_OK);
  ck_assert_int_eq(oc_buf_adds(s.b, key), OC_OK);
  total += strlen(" and again at the end: ") + strlen(key);
  ck_assert_int_eq(oc_sink_close(&s, OC_OK, err, sizeof(err)), OC_OK);
  char *text = NULL;
  size_t n = 0;
  ck_assert_int_eq(oc_read_file(path, 4u << 20, &text, &n, err, sizeof(err)), OC_OK);
  ck_assert_uint_eq(n, total); /* a mask keeps the length */
  ck_assert_msg(!strstr(text, "SECRET"), "a secret reached the report");
  size_t masks = 0;
  for(const char *p = text; (p = strstr(p, "[secret")); p++)
    masks++;
  ck_assert_uint_eq(masks, 2);
  free(text);
  unlink(path);

  struct oc_spool sp;
  ck_assert_int_eq(oc_spool_open(&sp, tmpdir, 1, err, sizeof(err)), OC_OK);
  cJSON *r = cJSON_CreateObject();
  cJSON_AddStringToObject(r, "body", "Incorrect API key provided: sk-test-SECRET-0123456789");
  ck_assert_int_eq(oc_spool_put_json(&sp, 0, r, 0, err, sizeof(err)), OC_OK);
  cJSON_Delete(r);
  struct oc_buf b;
  oc_buf_init(&b, 1u << 20);
  ck_assert_int_eq(oc_spool_text(&sp, 0, &b, err, sizeof(err)), OC_OK);
  ck_assert_msg(!strstr(oc_buf_str(&b), "SECRET") && strstr(oc_buf_str(&b), "provided: [secret"),
                "spooled: %s", oc_buf_str(&b));
  oc_buf_free(&b);
  oc_spool_close(&sp);
  free(filler);
  rmdir(tmpdir);
  oc_secrets_clear();
}
END_TEST

int main(void)
{
  Suite *s = suite_create("spool");
  TCase *tc = tcase_create("spool");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, numbers_read_back);
  tcase_add_test(tc, strings_escaped_as_cjson_does);
  tcase_add_test(tc, trees_read_back_compact_and_pretty);
  tcase_add_test(tc, reindent_is_the_pretty_form);
  tcase_add_test(tc, writer_stops_at_the_cap);
  tcase_add_test(tc, arena_builds_and_forgets);
  tcase_add_test(tc, spool_stores_and_reads_in_any_order);
  tcase_add_test(tc, spool_unstored_and_unwritable);
  tcase_add_test(tc, spool_dir_beside_the_json_report);
  tcase_add_test(tc, json_report_streams_the_same_bytes);
  tcase_add_test(tc, results_from_a_spool);
  tcase_add_test(tc, pairs_number_what_they_see);
  tcase_add_test(tc, sink_replaces_the_file_only_when_whole);
  tcase_add_test(tc, sink_and_spool_mask_secrets);
  suite_add_tcase(s, tc);
  return oc_test_run(s);
}
