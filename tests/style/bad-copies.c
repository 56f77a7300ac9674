/* bad-copies.c — a sample for tests/style/run.sh: helpers written again
 * that have their home elsewhere (a hex digit, an option loop, an error
 * formatter, the targets' errors, a tree printed by cJSON). */
/* expect: 17 ONE-HOME */
/* expect: 24 ONE-HOME */
/* expect: 26 ONE-HOME */
/* expect: 38 ONE-HOME */
/* expect: 43 ONE-HOME */
/* expect: 48 ONE-HOME */
/* expect: 54 ONE-HOME */
/* expect: 51 ONE-HOME */
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

char *cJSON_PrintUnformatted(const void *item);
static char *printed(const void *item)
{
  return cJSON_PrintUnformatted(item); /* from cJSON hooks: maybe the arena */
}
