/* check_util.c — the capped buffer, string helpers, UTF-8 checks, files. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "util.h"

START_TEST(buf_grows_and_terminates)
{
  struct oc_buf b;
  oc_buf_init(&b, 1000);
  for(int i = 0; i < 100; i++)
    ck_assert_int_eq(oc_buf_adds(&b, "abcdefghi"), OC_OK);
  ck_assert_uint_eq(b.len, 900);
  ck_assert_int_eq(b.data[900], '\0');
  ck_assert_int_eq(oc_buf_printf(&b, "%d-%s", 42, "x"), OC_OK);
  ck_assert_str_eq(b.data + 900, "42-x");
  oc_buf_free(&b);
}
END_TEST

START_TEST(buf_cap_is_sticky)
{
  struct oc_buf b;
  oc_buf_init(&b, 10);
  ck_assert_int_eq(oc_buf_adds(&b, "01234"), OC_OK);
  ck_assert_int_eq(oc_buf_error(&b), OC_OK);
  ck_assert_int_eq(oc_buf_adds(&b, "56789x"), OC_ETOOBIG);
  /* the contents stay as they were, the error is kept */
  ck_assert_str_eq(oc_buf_str(&b), "01234");
  ck_assert_int_eq(oc_buf_error(&b), OC_ETOOBIG);
  /* a later add that would fit does nothing and returns the first error:
   * a command built in pieces can no longer come out with a hole */
  ck_assert_int_eq(oc_buf_addc(&b, 'y'), OC_ETOOBIG);
  ck_assert_int_eq(oc_buf_printf(&b, "%d", 7), OC_ETOOBIG);
  ck_assert_str_eq(oc_buf_str(&b), "01234");
  ck_assert_uint_eq(b.len, 5);
  /* take hands nothing over and says why */
  size_t n = 99;
  ck_assert_ptr_null(oc_buf_take(&b, &n));
  ck_assert_uint_eq(n, 0);
  ck_assert_ptr_null(b.data);
  ck_assert_int_eq(oc_buf_error(&b), OC_ETOOBIG);
  /* reset starts over */
  oc_buf_reset(&b);
  ck_assert_int_eq(oc_buf_error(&b), OC_OK);
  ck_assert_int_eq(oc_buf_adds(&b, "ok"), OC_OK);
  ck_assert_str_eq(oc_buf_str(&b), "ok");
  oc_buf_free(&b);
  ck_assert_int_eq(oc_buf_error(&b), OC_OK);
}
END_TEST

START_TEST(buf_free_clears_the_error)
{
  struct oc_buf b;
  oc_buf_init(&b, 4);
  ck_assert_int_eq(oc_buf_adds(&b, "12345"), OC_ETOOBIG);
  oc_buf_free(&b);
  ck_assert_int_eq(oc_buf_error(&b), OC_OK);
  ck_assert_int_eq(oc_buf_adds(&b, "1234"), OC_OK);
  char *s = oc_buf_take(&b, NULL);
  ck_assert_str_eq(s, "1234");
  free(s);
}
END_TEST

START_TEST(array_grow_doubles_and_refuses_overflow)
{
  size_t alloc = 0;
  int *a = oc_array_grow(NULL, &alloc, 1, sizeof(int));
  ck_assert_ptr_nonnull(a);
  ck_assert_uint_eq(alloc, 8);
  for(int i = 0; i < 8; i++)
    a[i] = i;
  ck_assert_ptr_eq(oc_array_grow(a, &alloc, 8, sizeof(int)), a); /* room already */
  int *b = oc_array_grow(a, &alloc, 9, sizeof(int));
  ck_assert_ptr_nonnull(b);
  ck_assert_uint_eq(alloc, 16);
  ck_assert_int_eq(b[7], 7);
  /* a size that would overflow leaves the array and its room as they were */
  size_t before = alloc;
  ck_assert_ptr_null(oc_array_grow(b, &alloc, SIZE_MAX / 2 + 2, sizeof(int)));
  ck_assert_ptr_null(oc_array_grow(b, &alloc, SIZE_MAX / 4, 64));
  ck_assert_uint_eq(alloc, before);
  ck_assert_int_eq(b[7], 7);
  free(b);
}
END_TEST

START_TEST(array_grow_from_starts_small)
{
  size_t alloc = 0;
  int *a = oc_array_grow_from(NULL, &alloc, 1, sizeof(int), 1);
  ck_assert_ptr_nonnull(a);
  ck_assert_uint_eq(alloc, 1);
  a[0] = 42;
  int *b = oc_array_grow_from(a, &alloc, 2, sizeof(int), 1);
  ck_assert_ptr_nonnull(b);
  ck_assert_uint_eq(alloc, 2);
  b[1] = 43;
  int *c = oc_array_grow_from(b, &alloc, 3, sizeof(int), 1);
  ck_assert_ptr_nonnull(c);
  ck_assert_uint_eq(alloc, 4);
  ck_assert_int_eq(c[0], 42);
  ck_assert_int_eq(c[1], 43);
  free(c);
  /* a need past first goes straight to the next power of two times first */
  alloc = 0;
  a = oc_array_grow_from(NULL, &alloc, 5, sizeof(int), 2);
  ck_assert_ptr_nonnull(a);
  ck_assert_uint_eq(alloc, 8);
  free(a);
}
END_TEST

START_TEST(buf_take_hands_over)
{
  struct oc_buf b;
  oc_buf_init(&b, 100);
  oc_buf_adds(&b, "hello");
  size_t n;
  char *s = oc_buf_take(&b, &n);
  ck_assert_str_eq(s, "hello");
  ck_assert_uint_eq(n, 5);
  ck_assert_ptr_null(b.data);
  free(s);
  s = oc_buf_take(&b, &n); /* empty buffer still yields a string */
  ck_assert_str_eq(s, "");
  free(s);
}
END_TEST

START_TEST(buf_printf_long)
{
  struct oc_buf b;
  oc_buf_init(&b, 10000);
  char big[1000];
  memset(big, 'a', sizeof(big) - 1);
  big[sizeof(big) - 1] = 0;
  ck_assert_int_eq(oc_buf_printf(&b, "[%s]", big), OC_OK);
  ck_assert_uint_eq(b.len, 1001);
  oc_buf_free(&b);
}
END_TEST

START_TEST(parse_long_strict)
{
  long v;
  ck_assert_int_eq(oc_parse_long("42", 0, 100, &v), OC_OK);
  ck_assert_int_eq(v, 42);
  ck_assert_int_ne(oc_parse_long("42x", 0, 100, &v), OC_OK);
  ck_assert_int_ne(oc_parse_long("", 0, 100, &v), OC_OK);
  ck_assert_int_ne(oc_parse_long("101", 0, 100, &v), OC_OK);
  ck_assert_int_ne(oc_parse_long("-1", 0, 100, &v), OC_OK);
}
END_TEST

START_TEST(utf8_validation)
{
  size_t bad = 99;
  ck_assert(oc_utf8_valid((const unsigned char *)"h\xc3\xa9llo", 6, &bad));
  ck_assert(!oc_utf8_valid((const unsigned char *)"a\xff" "b", 3, &bad));
  ck_assert_uint_eq(bad, 1);
  /* a character cut in half at the end */
  ck_assert(!oc_utf8_valid((const unsigned char *)"ab\xe2\x99", 4, &bad));
  ck_assert_uint_eq(bad, 2);
  /* overlong and surrogate forms */
  ck_assert(!oc_utf8_valid((const unsigned char *)"\xc0\xaf", 2, &bad));
  ck_assert(!oc_utf8_valid((const unsigned char *)"\xed\xa0\x80", 3, &bad));
  ck_assert_uint_eq(oc_utf8_codepoints("h\xc3\xa9\xe2\x99\xa5", 6), 3);
}
END_TEST

START_TEST(utf8_sanitize)
{
  char *s = oc_utf8_sanitize("ok \xc3\xa9", 5);
  ck_assert_str_eq(s, "ok \xc3\xa9");
  free(s);
  /* a stray byte, a cut character and a NUL each become U+FFFD */
  s = oc_utf8_sanitize("a\xff" "b\xe2\x99" "c\0d", 8);
  ck_assert_str_eq(s, "a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd" "c\xef\xbf\xbd" "d");
  ck_assert(oc_utf8_valid((const unsigned char *)s, strlen(s), NULL));
  free(s);
}
END_TEST

START_TEST(strings)
{
  ck_assert(oc_strcaseeq("Content-Type", "content-type"));
  ck_assert(!oc_strcaseeq("Content-Type", "content-typ"));
  ck_assert(oc_startswith("data: x", "data:"));
  ck_assert(oc_endswith("a.wire", ".wire"));
  ck_assert(!oc_endswith("e", ".wire"));
  char small[4];
  ck_assert_uint_eq(oc_strlcpy(small, "abcdef", sizeof(small)), 6);
  ck_assert_str_eq(small, "abc");
  char *j = oc_path_join("dir/", "x.json");
  ck_assert_str_eq(j, "dir/x.json");
  free(j);
  j = oc_path_join("dir", "/abs");
  ck_assert_str_eq(j, "/abs");
  free(j);
  char hex[9];
  oc_hex((const unsigned char *)"\x01\xab\xff\x00", 4, hex);
  ck_assert_str_eq(hex, "01abff00");
}
END_TEST

START_TEST(read_file_names_the_file)
{
  char *buf = NULL, err[256];
  size_t n;
  ck_assert_int_eq(oc_read_file("/nonexistent/x.json", 100, &buf, &n, err, sizeof(err)),
                   OC_ENOTFOUND);
  ck_assert_ptr_nonnull(strstr(err, "/nonexistent/x.json"));
}
END_TEST

START_TEST(clock_is_monotonic)
{
  uint64_t a = oc_now_ns(), b = oc_now_ns();
  ck_assert_uint_ge(b, a);
  char ts[32];
  oc_now_rfc3339(ts);
  ck_assert_uint_eq(strlen(ts), 20);
  ck_assert_int_eq(ts[10], 'T');
}
END_TEST

START_TEST(edit_distance)
{
  ck_assert_uint_eq(oc_edit_distance("MODEL", 5, "MODEL", 5, 2), 0);
  ck_assert_uint_eq(oc_edit_distance("MODL", 4, "MODEL", 5, 2), 1);         /* a letter left out */
  ck_assert_uint_eq(oc_edit_distance("plian", 5, "plain", 5, 2), 2);       /* two swapped */
  ck_assert_uint_eq(oc_edit_distance("N_CTXHALF", 9, "N_CTX_HALF", 10, 2), 1);
  ck_assert_uint_eq(oc_edit_distance("", 0, "ab", 2, 2), 2);
  /* over max: max + 1, however far */
  ck_assert_uint_eq(oc_edit_distance("kitten", 6, "sitting", 7, 2), 3);
  ck_assert_uint_eq(oc_edit_distance("kitten", 6, "sitting", 7, 3), 3);
  ck_assert_uint_eq(oc_edit_distance("a", 1, "streaming", 9, 2), 3);
  ck_assert_uint_eq(oc_edit_distance("abcdef", 6, "uvwxyz", 6, 2), 3);
  char longname[OC_EDIT_MAX_LEN + 2];
  memset(longname, 'A', sizeof(longname));
  ck_assert_uint_eq(oc_edit_distance(longname, sizeof(longname), longname, sizeof(longname), 2), 3);
}
END_TEST

START_TEST(nearest_name)
{
  static const char *const ids[] = { "TOOL-NAME-ONCE", "TOOL-DELTA-INDEX", "STREAM-DONE" };
  struct oc_nearest n;
  oc_nearest_init(&n, "TOOL-NAME-ONE", 13, 0);
  for(size_t i = 0; i < 3; i++)
    oc_nearest_offer(&n, ids[i], strlen(ids[i]));
  ck_assert_ptr_eq(n.near, ids[0]);
  ck_assert_uint_eq(n.nearlen, 14);
  /* case is a difference only without nocase */
  oc_nearest_init(&n, "stream-done", 11, 0);
  for(size_t i = 0; i < 3; i++)
    oc_nearest_offer(&n, ids[i], strlen(ids[i]));
  ck_assert_ptr_null(n.near);
  oc_nearest_init(&n, "stream-dnoe", 11, 1);
  for(size_t i = 0; i < 3; i++)
    oc_nearest_offer(&n, ids[i], strlen(ids[i]));
  ck_assert_ptr_eq(n.near, ids[2]);
  /* a two-letter name is near nothing two edits away; ties go to the first */
  oc_nearest_init(&n, "ab", 2, 0);
  oc_nearest_offer(&n, "cd", 2);
  ck_assert_ptr_null(n.near);
  oc_nearest_init(&n, "abcd", 4, 0);
  oc_nearest_offer(&n, "abce", 4);
  oc_nearest_offer(&n, "abcf", 4);
  ck_assert_str_eq(n.near, "abce");
  ck_assert_uint_eq(n.best, 1);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("util");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, buf_grows_and_terminates);
  tcase_add_test(tc, buf_cap_is_sticky);
  tcase_add_test(tc, buf_free_clears_the_error);
  tcase_add_test(tc, array_grow_doubles_and_refuses_overflow);
  tcase_add_test(tc, array_grow_from_starts_small);
  tcase_add_test(tc, buf_take_hands_over);
  tcase_add_test(tc, buf_printf_long);
  tcase_add_test(tc, parse_long_strict);
  tcase_add_test(tc, utf8_validation);
  tcase_add_test(tc, utf8_sanitize);
  tcase_add_test(tc, strings);
  tcase_add_test(tc, edit_distance);
  tcase_add_test(tc, nearest_name);
  tcase_add_test(tc, read_file_names_the_file);
  tcase_add_test(tc, clock_is_monotonic);
  suite_add_tcase(s, tc);
  return oc_test_run(s);
}
