/* good.c — a sample for tests/style/run.sh that breaks no rule, with the
 * look-alikes a careless check would trip on: snprintf, a comment that
 * says "never sprintf(buf, ...)", a string holding "strcpy(", a checked
 * cJSON add, a realloc whose reason is written down, a hexval that is a
 * call, not a definition, and argv read at a fixed place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

int oc_hexval(int c);

static int sample(int argc, char **argv, cJSON *o, char *out, size_t n)
{
  snprintf(out, n, "%s", "strcpy(out, in) is what we do not write");
  /* never sprintf(buf, ...): there is no bound */
  if(!cJSON_AddStringToObject(o, "k", "v"))
    return -1;
  /* checksrc: a sample of a realloc
   * whose reason takes two lines */
  char *p = realloc(NULL, 16);
  free(p);
  int steps = argc > 1 ? argc * 2 : 0; /* arithmetic, not a capacity */
  (void)steps;
  return argc > 1 && strcmp(argv[1], "render") == 0 ? oc_hexval(argv[1][0]) : 0;
}
