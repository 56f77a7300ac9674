/* shim.c — the --wrap allocator of the allocation-failure run: counts,
 * fails the Nth allocation, remembers live blocks (see shim.h).  Only the
 * program's own calls come here (the linker rewrites them); libraries call
 * their own malloc, except cJSON, whose hooks point here. */
#include "config.h"
#include "shim.h"

#include "json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
void __wrap_free(void *p);

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

static int armed, show_stack;
static long counter, fail_at, failed;

/* The live blocks of the armed run: an open-addressing set of pointers
 * (TOMB marks a freed slot) and a journal of the slots used, so that the
 * next run starts clean without clearing the whole table. */
#define SLOTS (1u << 20)
#define TOMB ((void *)1)
static void **slots;
static size_t *journal, njournal, ajournal;
static long live;

static size_t slot_of(const void *p)
{
  uintptr_t h = (uintptr_t)p;
  h ^= h >> 33;
  h *= UINT64_C(0xff51afd7ed558ccd);
  h ^= h >> 33;
  return (size_t)h & (SLOTS - 1);
}

static void remember(void *p)
{
  if(!p)
    return;
  if(njournal >= SLOTS / 2) {
    fprintf(stderr, "torture: more than %u live blocks in one run; raise SLOTS\n", SLOTS / 2);
    abort();
  }
  size_t i = slot_of(p);
  while(slots[i] && slots[i] != TOMB)
    i = (i + 1) & (SLOTS - 1);
  slots[i] = p;
  if(njournal == ajournal) {
    ajournal = ajournal ? ajournal * 2 : 4096;
    journal = __real_realloc(journal, ajournal * sizeof(*journal));
    if(!journal)
      abort();
  }
  journal[njournal++] = i;
  live++;
}

static void forget(void *p)
{
  if(!p || !slots || !live)
    return;
  for(size_t i = slot_of(p); slots[i]; i = (i + 1) & (SLOTS - 1))
    if(slots[i] == p) {
      slots[i] = TOMB;
      live--;
      return;
    }
}

/* Count one allocation; 1 when this one must fail. */
static int must_fail(void)
{
  if(!armed)
    return 0;
  if(++counter == fail_at) {
    failed = 1;
#if defined(__SANITIZE_ADDRESS__)
    if(show_stack) {
      fprintf(stderr, "torture: allocation %ld fails here:\n", counter);
      __sanitizer_print_stack_trace();
    }
#endif
    return 1;
  }
  return 0;
}

void *__wrap_malloc(size_t n)
{
  if(must_fail())
    return NULL;
  void *p = __real_malloc(n);
  if(armed)
    remember(p);
  return p;
}

void *__wrap_calloc(size_t k, size_t n)
{
  if(must_fail())
    return NULL;
  void *p = __real_calloc(k, n);
  if(armed)
    remember(p);
  return p;
}

void *__wrap_realloc(void *p, size_t n)
{
  if(must_fail())
    return NULL; /* p stays valid, as after a real failure */
  void *d = __real_realloc(p, n);
  if(d) {
    forget(p);
    if(armed)
      remember(d);
  }
  return d;
}

char *__wrap_strdup(const char *s)
{
  if(must_fail())
    return NULL;
  char *p = __real_strdup(s);
  if(armed)
    remember(p);
  return p;
}

char *__wrap_strndup(const char *s, size_t n)
{
  if(must_fail())
    return NULL;
  char *p = __real_strndup(s, n);
  if(armed)
    remember(p);
  return p;
}

void __wrap_free(void *p)
{
  forget(p);
  __real_free(p);
}

/* cJSON's own allocations go through json.c's hooks, whose calls to
 * malloc and free are wrapped like every other of the program's */
void torture_init(void)
{
  oc_json_init();
  const char *s = getenv("TORTURE_STACK");
  show_stack = s && *s && strcmp(s, "0") != 0;
}

void torture_arm(long n)
{
  if(!slots && !(slots = __real_calloc(SLOTS, sizeof(*slots))))
    abort();
  for(size_t i = 0; i < njournal; i++)
    slots[journal[i]] = NULL;
  njournal = 0;
  live = 0;
  counter = 0;
  failed = 0;
  fail_at = n;
  armed = 1;
}

void torture_disarm(void)
{
  armed = 0;
}

long torture_count(void)
{
  return counter;
}

int torture_failed(void)
{
  return (int)failed;
}

long torture_live(void)
{
  return live;
}
