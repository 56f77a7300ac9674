/* bad-banned.c — a sample for tests/style/run.sh: the banned functions. */
/* expect: 9 BANNED */
/* expect: 10 BANNED */
/* expect: 11 BANNED */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void sample(char *out, const char *in)
{ sprintf(out, "%s", in);
  strcpy(out, in);
  (void)atoi(in);
}
