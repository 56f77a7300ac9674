/* case_seq.c — X-Oacheck-Case sequences for `oacheck serve` (case_seq.h):
 * a list of the values seen, newest first, each with how many requests
 * carried it. */
#include "config.h"
#include "case_seq.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct seq_entry {
  struct seq_entry *next;
  unsigned long count; /* requests that carried this value so far */
  char value[];
};

struct oc_case_seq {
  pthread_mutex_t lock;
  struct seq_entry *head; /* most recently used first */
  size_t n;
};

struct oc_case_seq *oc_case_seq_new(void)
{
  struct oc_case_seq *s = calloc(1, sizeof(*s));
  if(s)
    pthread_mutex_init(&s->lock, NULL);
  return s;
}

void oc_case_seq_free(struct oc_case_seq *s)
{
  if(!s)
    return;
  while(s->head) {
    struct seq_entry *e = s->head;
    s->head = e->next;
    free(e);
  }
  pthread_mutex_destroy(&s->lock);
  free(s);
}

static int is_space(char c)
{
  return c == ' ' || c == '\t';
}

/* The names of a list: how many, and the one at (0-based) index want
 * into out (none for a negative want). */
static unsigned long list_name(const char *value, long want, char *out, size_t outlen)
{
  unsigned long n = 0;
  const char *p = value;
  for(;;) {
    const char *end = strchr(p, ',');
    if(!end)
      end = p + strlen(p);
    const char *a = p, *b = end;
    while(a < b && is_space(*a))
      a++;
    while(b > a && is_space(b[-1]))
      b--;
    if(b > a) {
      if(want >= 0 && (unsigned long)want == n) {
        size_t l = (size_t)(b - a);
        if(outlen) {
          if(l >= outlen)
            l = outlen - 1;
          memcpy(out, a, l);
          out[l] = '\0';
        }
      }
      n++;
    }
    if(!*end)
      break;
    p = end + 1;
  }
  return n;
}

/* Count one more request for value: the count it now has (0 when out of
 * memory).  The list stays newest first and at most OC_CASE_SEQ_MAX long. */
static unsigned long bump(struct oc_case_seq *s, const char *value)
{
  unsigned long count = 0;
  pthread_mutex_lock(&s->lock);
  struct seq_entry **pp = &s->head, *e = NULL;
  for(; *pp; pp = &(*pp)->next)
    if(!strcmp((*pp)->value, value)) {
      e = *pp;
      *pp = e->next;
      break;
    }
  if(!e) {
    size_t l = strlen(value);
    e = malloc(sizeof(*e) + l + 1);
    if(e) {
      e->count = 0;
      memcpy(e->value, value, l + 1);
      s->n++;
    }
  }
  if(e) {
    e->next = s->head;
    s->head = e;
    count = ++e->count;
    if(s->n > OC_CASE_SEQ_MAX) {
      struct seq_entry **last = &s->head;
      while((*last)->next)
        last = &(*last)->next;
      free(*last);
      *last = NULL;
      s->n--;
    }
  }
  pthread_mutex_unlock(&s->lock);
  return count;
}

const char *oc_case_seq_pick(struct oc_case_seq *s, const struct oc_cassette_store *store,
                             const char *value, char *out, size_t outlen, unsigned long *nth,
                             unsigned long *len)
{
  *nth = *len = 0;
  if(!strchr(value, ',') || oc_cassette_store_find_name(store, value))
    return value;
  unsigned long n = list_name(value, -1, NULL, 0);
  if(!n || !outlen)
    return value; /* no name in it: matches nothing, said as asked */
  unsigned long count = bump(s, value);
  if(!count)
    return NULL;
  *nth = count;
  *len = n;
  list_name(value, (long)(count < n ? count - 1 : n - 1), out, outlen);
  return out;
}
