/* check_cli.c — the option parser every command uses: values after '=' or
 * as the next argument, bundled short flags, "--", ranges checked with a
 * usage error (exit 2), positional arguments kept in order, --help
 * generated from the table. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rules.h"
#include "testutil.h"

struct args {
  int flag, jobs, verbose;
  long ms;
  const char *name;
  struct oc_strlist list, pos;
  struct oc_ruleset allow;
};

static int parse(struct args *a, int argc, const char **argv)
{
  memset(a, 0, sizeof(*a));
  const struct oc_option options[] = {
    OC_OPT_GROUP("Things:"),
    OC_OPT_FLAG('f', "flag", &a->flag, "a flag"),
    OC_OPT_INT('j', "jobs", &a->jobs, "N", 1, 8, "how many"),
    OC_OPT_SECONDS(0, "timeout", &a->ms, "seconds"),
    OC_OPT_STRING('n', "name", &a->name, "NAME", "a name\nover two lines"),
    OC_OPT_LIST(0, "item", &a->list, "X", "repeatable"),
    OC_OPT_ALLOW(&a->allow),
    OC_OPT_VERBOSE(&a->verbose, "say more"),
    OC_OPT_END(),
  };
  const struct oc_cli cli = { "test", "Usage: oacheck test\n", "Footer.\n", options };
  int rc = oc_cli_parse(&cli, argc, (char **)argv, &a->pos);
  oc_log_set_level(OC_LOG_INFO);
  return rc;
}

static void done(struct args *a)
{
  oc_strlist_free(&a->list);
  oc_strlist_free(&a->pos);
}

START_TEST(values_every_way)
{
  struct args a;
  const char *v[] = { "test", "one", "--jobs=3", "-f", "two", "--name", "x", "--timeout=1.5",
                      "--item", "a", "--item=b", "-vv", "--", "--not-an-option" };
  ck_assert_int_eq(parse(&a, (int)OC_ARRAY_LEN(v), v), -1);
  ck_assert_int_eq(a.jobs, 3);
  ck_assert_int_eq(a.flag, 1);
  ck_assert_str_eq(a.name, "x");
  ck_assert_int_eq(a.ms, 1500);
  ck_assert_int_eq(a.verbose, 2);
  ck_assert_uint_eq(a.list.n, 2);
  ck_assert_str_eq(a.list.items[0], "a");
  ck_assert_str_eq(a.list.items[1], "b");
  ck_assert_uint_eq(a.pos.n, 3);
  ck_assert_str_eq(a.pos.items[0], "one");
  ck_assert_str_eq(a.pos.items[1], "two");
  ck_assert_str_eq(a.pos.items[2], "--not-an-option");
  done(&a);

  const char *w[] = { "test", "-j4", "-fn", "y", "-" };
  ck_assert_int_eq(parse(&a, (int)OC_ARRAY_LEN(w), w), -1);
  ck_assert_int_eq(a.jobs, 4);
  ck_assert_int_eq(a.flag, 1);
  ck_assert_str_eq(a.name, "y");
  ck_assert_uint_eq(a.pos.n, 1);
  ck_assert_str_eq(a.pos.items[0], "-");
  done(&a);
}
END_TEST

START_TEST(usage_errors_exit_2)
{
  struct args a;
  const char *bad[][3] = {
    { "test", "--jobs=9", NULL },      /* out of range */
    { "test", "--jobs=x", NULL },      /* not a number */
    { "test", "--timeout=0", NULL },   /* seconds must be > 0 */
    { "test", "--frob", NULL },        /* unknown */
    { "test", "-z", NULL },            /* unknown short */
    { "test", "--name", NULL },        /* missing value */
    { "test", "--flag=1", NULL },      /* a flag takes no value */
    { "test", "--allow=NO-SUCH", NULL }, /* not a rule */
    { "test", "--job=2", NULL },       /* no abbreviations: a prefix is not the option */
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(bad); i++) {
    ck_assert_msg(parse(&a, 2, bad[i]) == OC_EXIT_USAGE, "'%s' was accepted", bad[i][1]);
    done(&a);
  }
}
END_TEST

START_TEST(allow_resolves_rules)
{
  struct args a;
  const char *v[] = { "test", "--allow", "TOOL-*", "--allow=STREAM-DONE" };
  ck_assert_int_eq(parse(&a, 4, v), -1);
  ck_assert(oc_ruleset_has(&a.allow, OC_R_TOOL_NAME_ONCE));
  ck_assert(oc_ruleset_has(&a.allow, OC_R_STREAM_DONE));
  ck_assert(!oc_ruleset_has(&a.allow, OC_R_STREAM_ROLE_FIRST));
  done(&a);
}
END_TEST

START_TEST(help_from_the_table)
{
  struct args a;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ck_assert_ptr_nonnull(f);
  memset(&a, 0, sizeof(a));
  const struct oc_option options[] = {
    OC_OPT_GROUP("Things:"),
    OC_OPT_INT('j', "jobs", &a.jobs, "N", 1, 8, "how many"),
    OC_OPT_STRING(0, "a-very-long-option-name", &a.name, "VALUE", "first line\nsecond line"),
    OC_OPT_END(),
  };
  const struct oc_cli cli = { "test", "Usage: oacheck test\n", "Footer.\n", options };
  oc_cli_help(&cli, f);
  fclose(f);
  ck_assert_str_eq(buf, "Usage: oacheck test\n"
                        "\n"
                        "Things:\n"
                        "  -j, --jobs N             how many\n"
                        "      --a-very-long-option-name VALUE\n"
                        "                           first line\n"
                        "                           second line\n"
                        "  -h, --help               show this help and exit\n"
                        "\n"
                        "Footer.\n");
  free(buf);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("cli");
  TCase *tc = tcase_create("options");
  tcase_add_test(tc, values_every_way);
  tcase_add_test(tc, usage_errors_exit_2);
  tcase_add_test(tc, allow_resolves_rules);
  tcase_add_test(tc, help_from_the_table);
  suite_add_tcase(s, tc);
  return oc_test_run(s);
}
