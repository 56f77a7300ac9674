/* secret.c — the run's secrets and masking them.  One process-wide
 * registry, mostly learnt while targets and requests are set up, but
 * `oacheck proxy` learns each client's credentials on that client's
 * connection thread while other threads mask: a read-write lock keeps the
 * table whole (masking reads, learning writes; nothing is logged while the
 * lock is held, since a log line is masked too).  Masks keep the length of
 * what they hide, so byte offsets in findings, Content-Length and cassette
 * piece boundaries stay true. */
#include "config.h"
#include "secret.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "headers.h"
#include "util.h"

struct secret {
  char *v;
  size_t n;
};

static struct secret secrets[OC_SECRET_MAX];
static size_t nsecrets;
static int full_reported;
static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;

size_t oc_secret_count(void)
{
  pthread_rwlock_rdlock(&lock);
  size_t n = nsecrets;
  pthread_rwlock_unlock(&lock);
  return n;
}

void oc_secrets_clear(void)
{
  pthread_rwlock_wrlock(&lock);
  for(size_t i = 0; i < nsecrets; i++) {
    memset(secrets[i].v, 0, secrets[i].n);
    free(secrets[i].v);
  }
  nsecrets = 0;
  full_reported = 0;
  pthread_rwlock_unlock(&lock);
}

/* Insert keeping the longest first: a secret that contains another must
 * be masked whole before the shorter one breaks it up.  The copy is made
 * before the lock is taken, the error logged after it is given back. */
static int add_one(const char *v, size_t n)
{
  char *c = oc_strndup(v, n);
  if(!c)
    return OC_ENOMEM;
  int rc = OC_OK, report = 0;
  pthread_rwlock_wrlock(&lock);
  for(size_t i = 0; i < nsecrets && c; i++)
    if(secrets[i].n == n && memcmp(secrets[i].v, v, n) == 0) {
      free(c);
      c = NULL;
    }
  if(c && nsecrets >= OC_SECRET_MAX) {
    report = !full_reported++;
    rc = OC_ETOOBIG;
  }
  else if(c) {
    size_t at = nsecrets;
    while(at > 0 && secrets[at - 1].n < n) {
      secrets[at] = secrets[at - 1];
      at--;
    }
    secrets[at].v = c;
    secrets[at].n = n;
    nsecrets++;
    c = NULL;
  }
  pthread_rwlock_unlock(&lock);
  free(c);
  if(report)
    oc_error("more than %d secrets to mask: later ones may show in the output", OC_SECRET_MAX);
  return rc;
}

static int lower(int c)
{
  return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static int prefix_ci(const char *s, size_t n, const char *prefix)
{
  size_t k = strlen(prefix);
  if(n < k)
    return 0;
  for(size_t i = 0; i < k; i++)
    if(lower((unsigned char)s[i]) != lower((unsigned char)prefix[i]))
      return 0;
  return 1;
}

/* The first occurrence of needle in [p, p+n), or NULL. */
static char *find(char *p, size_t n, const char *needle, size_t k)
{
  while(n >= k) {
    char *c = memchr(p, needle[0], n - k + 1);
    if(!c)
      return NULL;
    if(memcmp(c, needle, k) == 0)
      return c;
    n -= (size_t)(c + 1 - p);
    p = c + 1;
  }
  return NULL;
}

static int unreserved(unsigned char c)
{
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

int oc_secret_add(const char *value)
{
  if(!value)
    return OC_OK;
  size_t n = strlen(value);
  if(n == 0)
    return OC_OK;
  if(n < OC_SECRET_MIN) {
    oc_warn("a secret of %zu characters is too short to be masked in the output", n);
    return OC_OK;
  }
  int rc = add_one(value, n);
  if(rc)
    return rc;
  /* the forms a server may quote it in: percent-encoded (a URL query),
   * JSON-escaped ("\/" for "/", as PHP and others write it) */
  struct oc_buf pct, js;
  oc_buf_init(&pct, 3 * n + 1);
  oc_buf_init(&js, 2 * n + 1);
  int pdiff = 0, jdiff = 0;
  for(size_t i = 0; i < n && !rc; i++) {
    unsigned char c = (unsigned char)value[i];
    if(unreserved(c))
      rc = oc_buf_addc(&pct, (char)c);
    else {
      pdiff = 1;
      rc = oc_buf_printf(&pct, "%%%02X", c);
    }
    if(!rc && (c == '/' || c == '"' || c == '\\')) {
      jdiff = 1;
      rc = oc_buf_addc(&js, '\\');
    }
    if(!rc)
      rc = oc_buf_addc(&js, (char)c);
  }
  if(!rc && pdiff)
    rc = add_one(pct.data, pct.len);
  if(!rc && jdiff)
    rc = add_one(js.data, js.len);
  oc_buf_free(&pct);
  oc_buf_free(&js);
  return rc;
}

int oc_secret_add_header(const char *name, const char *value)
{
  if(!name || !value || !oc_header_is_secret(name))
    return OC_OK;
  while(*value == ' ' || *value == '\t')
    value++;
  int rc = oc_secret_add(value);
  static const char *const schemes[] = { "bearer ", "basic ", "token " };
  for(size_t i = 0; !rc && i < OC_ARRAY_LEN(schemes); i++) {
    size_t k = strlen(schemes[i]);
    if(strlen(value) > k && prefix_ci(value, strlen(value), schemes[i])) {
      const char *cred = value + k;
      while(*cred == ' ')
        cred++;
      rc = oc_secret_add(cred);
    }
  }
  return rc;
}

int oc_secret_param_name(const char *name, size_t n)
{
  static const char *const parts[] = { "key", "token", "secret", "passw", "sig", "code", "auth",
                                       "credential" };
  for(size_t i = 0; i < OC_ARRAY_LEN(parts); i++)
    for(size_t j = 0; j < n; j++)
      if(prefix_ci(name + j, n - j, parts[i]))
        return 1;
  return 0;
}

int oc_secret_add_url(const char *url)
{
  if(!url)
    return OC_OK;
  int rc = OC_OK;
  const char *s = strstr(url, "://");
  const char *auth = s ? s + 3 : url;
  size_t alen = strcspn(auth, "/?#");
  const char *at = NULL;
  for(size_t i = 0; i < alen; i++)
    if(auth[i] == '@')
      at = auth + i;
  if(at) {
    const char *colon = memchr(auth, ':', (size_t)(at - auth));
    char *v = colon ? oc_strndup(colon + 1, (size_t)(at - colon - 1)) : NULL;
    char *ui = oc_strndup(auth, (size_t)(at - auth));
    if(!ui || (colon && !v))
      rc = OC_ENOMEM;
    if(!rc && v)
      rc = oc_secret_add(v);
    if(!rc && colon)
      rc = oc_secret_add(ui);
    free(v);
    free(ui);
  }
  const char *q = strchr(url, '?');
  while(!rc && q && *q && *q != '#') {
    q++;
    size_t plen = strcspn(q, "&#");
    const char *eq = memchr(q, '=', plen);
    if(eq && oc_secret_param_name(q, (size_t)(eq - q))) {
      char *v = oc_strndup(eq + 1, plen - (size_t)(eq + 1 - q));
      rc = v ? oc_secret_add(v) : OC_ENOMEM;
      free(v);
    }
    q += plen;
    if(*q != '&')
      break;
  }
  return rc;
}

int oc_secret_add_env(const char *name)
{
  const char *v = name ? getenv(name) : NULL;
  return v && *v ? oc_secret_add(v) : OC_OK;
}

size_t oc_secret_mask(char *p, size_t n)
{
  size_t hits = 0;
  if(!p)
    return 0;
  pthread_rwlock_rdlock(&lock);
  for(size_t i = 0; i < nsecrets; i++) {
    const struct secret *s = &secrets[i];
    char *at = p, *end = p + n;
    while((at = find(at, (size_t)(end - at), s->v, s->n))) {
      if(s->n >= 8) {
        memcpy(at, "[secret", 7);
        memset(at + 7, '*', s->n - 8);
        at[s->n - 1] = ']';
      }
      else
        memset(at, '*', s->n);
      at += s->n;
      hits++;
    }
  }
  pthread_rwlock_unlock(&lock);
  return hits;
}

char *oc_secret_masked(const char *p, size_t n)
{
  char *c = oc_strndup(p ? p : "", p ? n : 0);
  if(c)
    oc_secret_mask(c, p ? n : 0);
  return c;
}

void oc_secret_mask_json(cJSON *v)
{
  if(!oc_secret_count())
    return;
  /* iterative, so a deep document cannot exhaust the stack: walk down the
   * first child, across to the next sibling, and back up via the stack */
  cJSON **stack = NULL;
  size_t depth = 0, alloc = 0;
  while(v) {
    if(v->string)
      oc_secret_mask(v->string, strlen(v->string));
    if(cJSON_IsString(v) && v->valuestring)
      oc_secret_mask(v->valuestring, strlen(v->valuestring));
    if(v->child) {
      cJSON **d = oc_array_grow(stack, &alloc, depth + 1, sizeof(*stack));
      if(!d)
        break; /* out of memory: what was walked is masked, writers mask again */
      stack = d;
      stack[depth++] = v;
      v = v->child;
      continue;
    }
    while(v && !v->next && depth)
      v = stack[--depth];
    v = (v && depth) ? v->next : NULL;
  }
  free(stack);
}

int oc_secret_write_file(const char *path, char *p, size_t n, char *err, size_t errlen)
{
  oc_secret_mask(p, n);
  return oc_write_file(path, p, n, err, errlen);
}
