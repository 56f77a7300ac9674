/* bad-copies.c — a sample for tests/style/run.sh: helpers written again
 * that have their home elsewhere (a hex digit, an option loop, an error
 * formatter, the targets' errors). */
/* expect: 15 ONE-HOME */
/* expect: 22 ONE-HOME */
/* expect: 24 ONE-HOME */
/* expect: 36 ONE-HOME */
/* expect: 41 ONE-HOME */
/* expect: 46 ONE-HOME */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int hexval(char c)
{
  return c >= '0' && c <= '9' ? c - '0' : -1;
}

static int options(int argc, char **argv)
{
  while(getopt_long(argc, argv, "v", NULL, NULL) != -1) {}
  for(int i = 1; i < argc; i++)
    if(strcmp(argv[i], "--verbose") == 0)
      return 1;
  return hexval(argv[0][0]);
}

static void fail(char *err, size_t errlen, const char *file, const char *fmt, ...)
{
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  snprintf(err, errlen, "%s: %s", file, msg);
}

struct oc_target_args;
struct oc_target;
int oc_targets_build(const struct oc_target_args *a, struct oc_target **ts, size_t *n, char *err,
                     size_t errlen);
static int targets(const struct oc_target_args *a, struct oc_target **ts, size_t *n)
{
  char err[100];
  return oc_targets_build(a, ts, n, err, sizeof(err)); /* and then its errors, said again */
}
