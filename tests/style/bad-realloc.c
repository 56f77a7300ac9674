/* bad-realloc.c — a sample for tests/style/run.sh: an array doubled by
 * hand, with no overflow check. */
/* expect: 11 DOUBLING */
/* expect: 12 REALLOC */
#include <stdlib.h>
struct list { int *v; size_t n, alloc; };
static int push(struct list *l, int x)
{
  if(l->n == l->alloc) {
    /* the idiom oc_array_grow replaces */
    size_t a = l->alloc ? l->alloc * 2 : 8;
    int *d = realloc(l->v, a * sizeof(*d));
    if(!d)
      return -1;
    l->v = d;
    l->alloc = a;
  }
  l->v[l->n++] = x;
  return 0;
}
