/* schema.c — JSON Schema draft 2020-12 and draft-07: a registry of
 * documents, a compiler that turns a schema into a graph of nodes (each a
 * short list of keyword operations, references resolved to node pointers)
 * and a validator that walks an instance against that graph.  The hot path
 * (no result requested) builds no path or message and stops at the first
 * failure; the reporting path keeps instance and keyword locations and
 * explains each failure.  JSON reading is jdoc's and cJSON's, regexes are
 * regex.c's; nothing here does I/O except loading registered files. */
#include "config.h"
#include "schema.h"

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datadir.h"
#include "json.h"
#include "regex.h"
#include "util.h"

/* Caps: each names what it bounds. */
#define OC_SCHEMA_MAX_ERRORS 100      /* default errors kept per validation */
#define OC_SCHEMA_EVAL_DEPTH 1000     /* nested evaluations (recursive $refs) */
#define OC_SCHEMA_COMPILE_DEPTH 2000  /* nested subschemas while compiling */
#define OC_SCHEMA_META_DEPTH 8        /* custom meta-schema chains */
#define OC_CAP_SCHEMA_PATH (64u << 10) /* one JSON pointer in a report */
#define OC_SCHEMA_DIR_DEPTH 16        /* --remotes directory nesting */
/* Work per validation pass: evaluations of a subschema at a value.  Far
 * above what any real schema needs per value of a big instance, and a
 * fraction of a second of work; combinators cannot make a validation
 * exponential past it (it is then undecided, never a hang). */
#define OC_SCHEMA_EVAL_BUDGET (1u << 24)
/* Past this many evaluations, results of (subschema, value) pairs are
 * remembered (where they cannot depend on context), so an anyOf of
 * recursive branches costs linear instead of exponential time. */
#define OC_SCHEMA_MEMO_AFTER 4096u
#define OC_SCHEMA_MEMO_MAX (1u << 20) /* remembered pairs, at most */
/* Nested "why did this branch fail" reasons in one message. */
#define OC_SCHEMA_REASON_DEPTH 2

#define DEFAULT_BASE "urn:oacheck:schema"

/* ======================================================================
 * Arena: every compiled node, string and constant of one schema lives in
 * it, so freeing a schema is freeing a few blocks.
 * ====================================================================== */

struct ablock {
  struct ablock *next;
  size_t used, cap;
  max_align_t data[];
};

struct arena {
  struct ablock *head;
};

static void *arena_alloc(struct arena *a, size_t n)
{
  n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
  if(n == 0)
    n = sizeof(max_align_t);
  struct ablock *b = a->head;
  if(!b || b->cap - b->used < n) {
    size_t cap = n > 16384 ? n : 16384;
    b = malloc(sizeof(*b) + cap);
    if(!b)
      return NULL;
    b->used = 0;
    b->cap = cap;
    b->next = a->head;
    a->head = b;
  }
  void *p = (char *)b->data + b->used;
  b->used += n;
  memset(p, 0, n);
  return p;
}

static char *arena_strndup(struct arena *a, const char *s, size_t n)
{
  char *d = arena_alloc(a, n + 1);
  if(d) {
    memcpy(d, s, n);
    d[n] = '\0';
  }
  return d;
}

static void arena_free(struct arena *a)
{
  struct ablock *b = a->head;
  while(b) {
    struct ablock *n = b->next;
    free(b);
    b = n;
  }
  a->head = NULL;
}

/* ======================================================================
 * Pointer map (open addressing), used at compile time only.
 * ====================================================================== */

struct pmap {
  const void **keys;
  void **vals;
  size_t cap, n;
};

static size_t phash(const void *p, size_t cap)
{
  uintptr_t x = (uintptr_t)p;
  x ^= x >> 17;
  x *= 0x9E3779B97F4A7C15ull;
  return (size_t)(x >> 7) & (cap - 1);
}

static void *pmap_get(const struct pmap *m, const void *k)
{
  if(!m->cap)
    return NULL;
  for(size_t i = phash(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
    if(!m->keys[i])
      return NULL;
    if(m->keys[i] == k)
      return m->vals[i];
  }
}

static int pmap_put(struct pmap *m, const void *k, void *v)
{
  if((m->n + 1) * 2 > m->cap) {
    /* checksrc: a rehash into new tables, not an array grown in place */
    size_t ncap = m->cap ? m->cap * 2 : 64;
    const void **nk = calloc(ncap, sizeof(*nk));
    void **nv = calloc(ncap, sizeof(*nv));
    if(!nk || !nv) {
      free(nk);
      free(nv);
      return OC_ENOMEM;
    }
    for(size_t i = 0; i < m->cap; i++) {
      if(!m->keys[i])
        continue;
      size_t j = phash(m->keys[i], ncap);
      while(nk[j])
        j = (j + 1) & (ncap - 1);
      nk[j] = m->keys[i];
      nv[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = nk;
    m->vals = nv;
    m->cap = ncap;
  }
  size_t i = phash(k, m->cap);
  while(m->keys[i] && m->keys[i] != k)
    i = (i + 1) & (m->cap - 1);
  if(!m->keys[i])
    m->n++;
  m->keys[i] = k;
  m->vals[i] = v;
  return OC_OK;
}

static void pmap_free(struct pmap *m)
{
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof(*m));
}

/* ======================================================================
 * Small JSON helpers over oc_jv.
 * ====================================================================== */

static const struct oc_jv *jget(const struct oc_jv *obj, const char *key)
{
  if(!obj || obj->type != OC_JOBJECT)
    return NULL;
  size_t kl = strlen(key);
  for(size_t i = obj->len; i-- > 0;) {
    const struct oc_jmember *m = &obj->u.members[i];
    if(m->key_len == kl && memcmp(m->key, key, kl) == 0)
      return &m->value;
  }
  return NULL;
}

static const struct oc_jv *jget_n(const struct oc_jv *obj, const char *key, size_t kl)
{
  if(!obj || obj->type != OC_JOBJECT)
    return NULL;
  for(size_t i = obj->len; i-- > 0;) {
    const struct oc_jmember *m = &obj->u.members[i];
    if(m->key_len == kl && memcmp(m->key, key, kl) == 0)
      return &m->value;
  }
  return NULL;
}

static int jis_int(const struct oc_jv *v)
{
  return v->type == OC_JNUMBER && isfinite(v->u.num) && floor(v->u.num) == v->u.num;
}

/* Structural equality as "const", "enum" and "uniqueItems" mean it. */
static int jeq(const struct oc_jv *a, const struct oc_jv *b)
{
  if(a->type == OC_JNUMBER && b->type == OC_JNUMBER)
    return a->u.num == b->u.num;
  if(a->type != b->type)
    return 0;
  switch(a->type) {
  case OC_JSTRING:
    return a->len == b->len && memcmp(a->u.str, b->u.str, a->len) == 0;
  case OC_JARRAY:
    if(a->len != b->len)
      return 0;
    for(uint32_t i = 0; i < a->len; i++)
      if(!jeq(&a->u.items[i], &b->u.items[i]))
        return 0;
    return 1;
  case OC_JOBJECT:
    if(a->len != b->len)
      return 0;
    for(uint32_t i = 0; i < a->len; i++) {
      const struct oc_jmember *m = &a->u.members[i];
      const struct oc_jv *o = jget_n(b, m->key, m->key_len);
      if(!o || !jeq(&m->value, o))
        return 0;
    }
    return 1;
  default:
    return 1;
  }
}

/* A hash consistent with jeq (numbers by value, members in any order). */
static uint64_t jhash(const struct oc_jv *v)
{
  uint64_t h = 1469598103934665603ull;
  switch(v->type) {
  case OC_JNUMBER: {
    double d = v->u.num == 0 ? 0.0 : v->u.num; /* -0 == 0 */
    uint64_t bits;
    memcpy(&bits, &d, sizeof(bits));
    return bits * 0x9E3779B97F4A7C15ull + 3;
  }
  case OC_JSTRING:
    for(uint32_t i = 0; i < v->len; i++)
      h = (h ^ (unsigned char)v->u.str[i]) * 1099511628211ull;
    return h + 5;
  case OC_JARRAY:
    for(uint32_t i = 0; i < v->len; i++)
      h = (h ^ jhash(&v->u.items[i])) * 1099511628211ull;
    return h + 7;
  case OC_JOBJECT: {
    uint64_t sum = 11;
    for(uint32_t i = 0; i < v->len; i++) {
      const struct oc_jmember *m = &v->u.members[i];
      uint64_t k = 1469598103934665603ull;
      for(uint32_t j = 0; j < m->key_len; j++)
        k = (k ^ (unsigned char)m->key[j]) * 1099511628211ull;
      sum += k * 31 + jhash(&m->value);
    }
    return sum;
  }
  default:
    return v->type;
  }
}

/* Deep copy into the arena, so a compiled schema owns its constants. */
static int jcopy(struct arena *a, struct oc_jv *dst, const struct oc_jv *src)
{
  *dst = *src;
  switch(src->type) {
  case OC_JSTRING: {
    char *s = arena_strndup(a, src->u.str, src->len);
    if(!s)
      return OC_ENOMEM;
    dst->u.str = s;
    return OC_OK;
  }
  case OC_JARRAY: {
    struct oc_jv *items = arena_alloc(a, sizeof(*items) * (src->len ? src->len : 1));
    if(!items)
      return OC_ENOMEM;
    for(uint32_t i = 0; i < src->len; i++)
      if(jcopy(a, &items[i], &src->u.items[i]))
        return OC_ENOMEM;
    dst->u.items = items;
    return OC_OK;
  }
  case OC_JOBJECT: {
    struct oc_jmember *ms = arena_alloc(a, sizeof(*ms) * (src->len ? src->len : 1));
    if(!ms)
      return OC_ENOMEM;
    for(uint32_t i = 0; i < src->len; i++) {
      ms[i] = src->u.members[i];
      ms[i].key = arena_strndup(a, src->u.members[i].key, src->u.members[i].key_len);
      if(!ms[i].key || jcopy(a, &ms[i].value, &src->u.members[i].value))
        return OC_ENOMEM;
    }
    dst->u.members = ms;
    return OC_OK;
  }
  default:
    return OC_OK;
  }
}

/* Shortest text that reads back as d. */
static void fmt_num(char out[40], double d)
{
  if(isfinite(d) && floor(d) == d && fabs(d) < 1e16) {
    snprintf(out, 40, "%.0f", d);
    return;
  }
  for(int prec = 6; prec <= 17; prec++) {
    snprintf(out, 40, "%.*g", prec, d);
    if(strtod(out, NULL) == d)
      return;
  }
}

/* Append a JSON string literal of s[0..n), cut at max bytes. */
static int add_quoted(struct oc_buf *b, const char *s, size_t n, size_t max)
{
  int rc = oc_buf_addc(b, '"');
  size_t lim = n > max ? max : n;
  while(lim > 0 && lim < n && ((unsigned char)s[lim] & 0xC0) == 0x80)
    lim--; /* do not cut a UTF-8 sequence */
  for(size_t i = 0; !rc && i < lim; i++) {
    unsigned char c = (unsigned char)s[i];
    if(c == '"' || c == '\\')
      rc = oc_buf_printf(b, "\\%c", c);
    else if(c == '\n')
      rc = oc_buf_adds(b, "\\n");
    else if(c == '\t')
      rc = oc_buf_adds(b, "\\t");
    else if(c == '\r')
      rc = oc_buf_adds(b, "\\r");
    else if(c < 0x20)
      rc = oc_buf_printf(b, "\\u%04x", c);
    else
      rc = oc_buf_addc(b, (char)c);
  }
  if(!rc && lim < n)
    rc = oc_buf_adds(b, "…");
  return rc ? rc : oc_buf_addc(b, '"');
}

/* A value as a person reads it in a message: "string \"0\"", "integer 5". */
static int add_brief(struct oc_buf *b, const struct oc_jv *v, int with_type)
{
  char num[40];
  switch(v->type) {
  case OC_JNULL:
    return oc_buf_adds(b, "null");
  case OC_JTRUE:
    return oc_buf_adds(b, with_type ? "boolean true" : "true");
  case OC_JFALSE:
    return oc_buf_adds(b, with_type ? "boolean false" : "false");
  case OC_JNUMBER:
    fmt_num(num, v->u.num);
    return oc_buf_printf(b, "%s%s", with_type ? (jis_int(v) ? "integer " : "number ") : "", num);
  case OC_JSTRING:
    if(with_type && oc_buf_adds(b, "string "))
      return OC_ENOMEM;
    return add_quoted(b, v->u.str, v->len, 60);
  case OC_JARRAY:
    return v->len ? oc_buf_printf(b, "array of %u item%s", v->len, v->len == 1 ? "" : "s")
                  : oc_buf_adds(b, "empty array");
  default:
    return v->len ? oc_buf_printf(b, "object with %u propert%s", v->len, v->len == 1 ? "y" : "ies")
                  : oc_buf_adds(b, "empty object");
  }
}

/* Append a JSON-pointer token (escaping ~ and /) for s[0..n). */
static int add_ptr_token(struct oc_buf *b, const char *s, size_t n)
{
  int rc = oc_buf_addc(b, '/');
  for(size_t i = 0; !rc && i < n; i++) {
    if(s[i] == '~')
      rc = oc_buf_adds(b, "~0");
    else if(s[i] == '/')
      rc = oc_buf_adds(b, "~1");
    else
      rc = oc_buf_addc(b, s[i]);
  }
  return rc;
}

/* ======================================================================
 * URIs (RFC 3986 reference resolution).
 * ====================================================================== */

struct uparts {
  const char *scheme, *auth, *path, *query, *frag;
  size_t scheme_len, auth_len, path_len, query_len, frag_len;
  int has_scheme, has_auth, has_query, has_frag;
};

static void uri_split(const char *s, struct uparts *u)
{
  memset(u, 0, sizeof(*u));
  const char *p = s;
  if((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) {
    const char *q = p + 1;
    while((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
          *q == '+' || *q == '-' || *q == '.')
      q++;
    if(*q == ':') {
      u->has_scheme = 1;
      u->scheme = p;
      u->scheme_len = (size_t)(q - p);
      p = q + 1;
    }
  }
  if(p[0] == '/' && p[1] == '/') {
    p += 2;
    u->has_auth = 1;
    u->auth = p;
    while(*p && *p != '/' && *p != '?' && *p != '#')
      p++;
    u->auth_len = (size_t)(p - u->auth);
  }
  u->path = p;
  while(*p && *p != '?' && *p != '#')
    p++;
  u->path_len = (size_t)(p - u->path);
  if(*p == '?') {
    u->has_query = 1;
    u->query = ++p;
    while(*p && *p != '#')
      p++;
    u->query_len = (size_t)(p - u->query);
  }
  if(*p == '#') {
    u->has_frag = 1;
    u->frag = p + 1;
    u->frag_len = strlen(p + 1);
  }
}

/* RFC 3986 §5.2.4 on path[0..n) into out. */
static int remove_dots(struct oc_buf *out, const char *path, size_t n)
{
  struct oc_buf in;
  oc_buf_init(&in, OC_CAP_SCHEMA_PATH);
  int rc = oc_buf_add(&in, path, n);
  if(rc) {
    oc_buf_free(&in);
    return rc;
  }
  char *s = in.data ? in.data : (char *)"";
  size_t len = in.len, i = 0;
  while(i < len && !rc) {
    if(strncmp(s + i, "../", 3) == 0)
      i += 3;
    else if(strncmp(s + i, "./", 2) == 0)
      i += 2;
    else if(strncmp(s + i, "/./", 3) == 0)
      i += 2;
    else if(len - i == 2 && strncmp(s + i, "/.", 2) == 0) {
      s[i + 1] = '/';
      i += 1;
    }
    else if(strncmp(s + i, "/../", 4) == 0 || (len - i == 3 && strncmp(s + i, "/..", 3) == 0)) {
      if(len - i == 3) {
        i += 2;
        s[i] = '/';
      }
      else
        i += 3;
      /* drop the last segment of out */
      while(out->len > 0 && out->data[out->len - 1] != '/')
        out->len--;
      if(out->len > 0)
        out->len--;
      if(out->data)
        out->data[out->len] = '\0';
    }
    else if((len - i == 1 && s[i] == '.') || (len - i == 2 && strncmp(s + i, "..", 2) == 0))
      i = len;
    else {
      size_t j = i;
      if(s[j] == '/')
        j++;
      while(j < len && s[j] != '/')
        j++;
      rc = oc_buf_add(out, s + i, j - i);
      i = j;
    }
  }
  oc_buf_free(&in);
  return rc;
}

/* Resolve ref against base (both NUL-terminated; base may be NULL).  The
 * result is a new string (caller frees); NULL on ENOMEM. */
static char *uri_resolve(const char *base, const char *ref)
{
  struct uparts r, b;
  uri_split(ref, &r);
  struct oc_buf o;
  oc_buf_init(&o, OC_CAP_SCHEMA_PATH);
  int rc = OC_OK;
  if(!base || r.has_scheme) {
    rc = r.has_scheme ? oc_buf_printf(&o, "%.*s:", (int)r.scheme_len, r.scheme) : OC_OK;
    if(!rc && r.has_auth)
      rc = oc_buf_printf(&o, "//%.*s", (int)r.auth_len, r.auth);
    if(!rc)
      rc = remove_dots(&o, r.path, r.path_len);
    if(!rc && r.has_query)
      rc = oc_buf_printf(&o, "?%.*s", (int)r.query_len, r.query);
  }
  else {
    uri_split(base, &b);
    if(b.has_scheme)
      rc = oc_buf_printf(&o, "%.*s:", (int)b.scheme_len, b.scheme);
    if(r.has_auth) {
      if(!rc)
        rc = oc_buf_printf(&o, "//%.*s", (int)r.auth_len, r.auth);
      if(!rc)
        rc = remove_dots(&o, r.path, r.path_len);
      if(!rc && r.has_query)
        rc = oc_buf_printf(&o, "?%.*s", (int)r.query_len, r.query);
    }
    else {
      if(!rc && b.has_auth)
        rc = oc_buf_printf(&o, "//%.*s", (int)b.auth_len, b.auth);
      if(r.path_len == 0) {
        if(!rc)
          rc = oc_buf_add(&o, b.path, b.path_len);
        if(!rc && (r.has_query || b.has_query))
          rc = r.has_query ? oc_buf_printf(&o, "?%.*s", (int)r.query_len, r.query)
                           : oc_buf_printf(&o, "?%.*s", (int)b.query_len, b.query);
      }
      else {
        if(!rc && r.path[0] == '/')
          rc = remove_dots(&o, r.path, r.path_len);
        else if(!rc) {
          struct oc_buf m;
          oc_buf_init(&m, OC_CAP_SCHEMA_PATH);
          if(b.has_auth && b.path_len == 0)
            rc = oc_buf_addc(&m, '/');
          else {
            size_t k = b.path_len;
            while(k > 0 && b.path[k - 1] != '/')
              k--;
            rc = oc_buf_add(&m, b.path, k);
          }
          if(!rc)
            rc = oc_buf_add(&m, r.path, r.path_len);
          if(!rc)
            rc = remove_dots(&o, oc_buf_str(&m), m.len);
          oc_buf_free(&m);
        }
        if(!rc && r.has_query)
          rc = oc_buf_printf(&o, "?%.*s", (int)r.query_len, r.query);
      }
    }
  }
  if(!rc && r.has_frag && r.frag_len)
    rc = oc_buf_printf(&o, "#%s", r.frag);
  if(rc) {
    oc_buf_free(&o);
    return NULL;
  }
  return oc_buf_take(&o, NULL);
}

/* Split uri at '#': *frag points into uri (after '#') or to "". Returns a
 * new string with the part before '#'. */
static char *uri_strip_frag(const char *uri, const char **frag)
{
  const char *h = strchr(uri, '#');
  if(frag)
    *frag = h ? h + 1 : "";
  return h ? oc_strndup(uri, (size_t)(h - uri)) : oc_strdup(uri);
}

/* Percent-decode s into out (a fragment, before JSON-pointer parsing). */
static int pct_decode(struct oc_buf *out, const char *s)
{
  int rc = OC_OK;
  for(; *s && !rc; s++) {
    int h1, h2;
    if(*s == '%' && s[1] && s[2] && (h1 = (s[1] >= '0' && s[1] <= '9') ? s[1] - '0'
                                          : (s[1] | 32) >= 'a' && (s[1] | 32) <= 'f' ? (s[1] | 32) - 'a' + 10 : -1) >= 0 &&
       (h2 = (s[2] >= '0' && s[2] <= '9') ? s[2] - '0'
             : (s[2] | 32) >= 'a' && (s[2] | 32) <= 'f' ? (s[2] | 32) - 'a' + 10 : -1) >= 0) {
      rc = oc_buf_addc(out, (char)(h1 * 16 + h2));
      s += 2;
    }
    else
      rc = oc_buf_addc(out, *s);
  }
  return rc;
}

/* ======================================================================
 * Registry.
 * ====================================================================== */

struct rdoc {
  char *uri;
  char *id;               /* the root's own $id, resolved, or NULL */
  struct oc_jdoc doc;
  char *pending;          /* a shipped file not read yet (its path), or NULL */
  struct rdoc *next;
};

struct oc_schema_registry {
  struct rdoc *docs;
};

struct oc_schema_registry *oc_schema_registry_new(void)
{
  return calloc(1, sizeof(struct oc_schema_registry));
}

void oc_schema_registry_free(struct oc_schema_registry *r)
{
  if(!r)
    return;
  struct rdoc *d = r->docs;
  while(d) {
    struct rdoc *n = d->next;
    free(d->uri);
    free(d->id);
    free(d->pending);
    oc_jdoc_free(&d->doc);
    free(d);
    d = n;
  }
  free(r);
}

static char *normalize_uri(const char *uri)
{
  char *u = oc_strdup(uri);
  if(u) {
    size_t n = strlen(u);
    if(n && u[n - 1] == '#')
      u[n - 1] = '\0';
  }
  return u;
}

static void set_id(struct rdoc *e);

/* Take over a parsed document (d is moved into the registry). */
static int registry_take(struct oc_schema_registry *r, const char *uri, struct oc_jdoc *d,
                         char *err, size_t errlen)
{
  struct rdoc *e = calloc(1, sizeof(*e));
  char *u = uri ? normalize_uri(uri) : NULL;
  if(!e || (uri && !u)) {
    free(e);
    free(u);
    oc_jdoc_free(d);
    snprintf(err, errlen, "out of memory");
    return OC_ENOMEM;
  }
  e->doc = *d;
  memset(d, 0, sizeof(*d));
  e->uri = u;
  set_id(e);
  if(!e->uri && !e->id) {
    snprintf(err, errlen, "schema has no URI: give one or an \"$id\"");
    oc_jdoc_free(&e->doc);
    free(e);
    return OC_EUSAGE;
  }
  e->next = r->docs;
  r->docs = e;
  return OC_OK;
}

/* The root's own $id, resolved against the document's URI. */
static void set_id(struct rdoc *e)
{
  const char *u = e->uri;
  const struct oc_jv *idv = jget(e->doc.root, "$id");
  if(idv && idv->type == OC_JSTRING) {
    char *abs = uri_resolve(u, idv->u.str);
    e->id = abs ? normalize_uri(abs) : NULL;
    free(abs);
    if(e->id && strchr(e->id, '#')) { /* draft-07 "#anchor" ids name no document */
      free(e->id);
      e->id = NULL;
    }
  }
}

int oc_schema_registry_add(struct oc_schema_registry *r, const char *uri, cJSON *doc,
                           char *err, size_t errlen)
{
  struct oc_jdoc d;
  oc_jdoc_init(&d);
  int rc = doc ? oc_jdoc_from_cjson(&d, doc) : OC_EUSAGE;
  cJSON_Delete(doc);
  if(rc) {
    oc_jdoc_free(&d);
    snprintf(err, errlen, "cannot register schema \"%s\": %s", uri ? uri : "",
             rc == OC_ENOMEM ? "out of memory" : "not a JSON document");
    return rc;
  }
  return registry_take(r, uri, &d, err, errlen);
}

/* Parse buf as one JSON document; on failure err says "NAME:LINE:COL: why". */
static int parse_text(struct oc_jdoc *d, const char *name, const char *buf, size_t len,
                      char *err, size_t errlen)
{
  struct oc_jerr je = { 0, NULL };
  int rc = oc_jdoc_parse(d, buf, len, &je);
  if(rc) {
    struct oc_json_pos pos;
    oc_json_locate(buf, len, je.offset, &pos);
    snprintf(err, errlen, "%s:%d:%d: invalid JSON: %s", name, pos.line, pos.column,
             rc == OC_ENOMEM ? "out of memory" : je.message ? je.message : "syntax error");
  }
  return rc;
}

int oc_schema_registry_add_text(struct oc_schema_registry *r, const char *uri,
                                const char *buf, size_t len, char *err, size_t errlen)
{
  struct oc_jdoc d;
  oc_jdoc_init(&d);
  int rc = parse_text(&d, uri ? uri : "schema", buf, len, err, errlen);
  if(rc) {
    oc_jdoc_free(&d);
    return rc;
  }
  return registry_take(r, uri, &d, err, errlen);
}

int oc_schema_registry_add_file(struct oc_schema_registry *r, const char *uri,
                                const char *path, char *err, size_t errlen)
{
  char *buf = NULL;
  size_t len = 0;
  int rc = oc_read_file(path, OC_CAP_FILE, &buf, &len, err, errlen);
  if(rc)
    return rc;
  struct oc_jdoc d;
  oc_jdoc_init(&d);
  rc = parse_text(&d, path, buf, len, err, errlen);
  free(buf);
  if(rc) {
    oc_jdoc_free(&d);
    return rc;
  }
  return registry_take(r, uri, &d, err, errlen);
}

/* A shipped file registered by URI and read on first use (registry_get):
 * a command that validates against one schema reads one file. */
static int add_pending(struct oc_schema_registry *r, const char *uri, const char *path)
{
  struct rdoc *e = calloc(1, sizeof(*e));
  if(!e || !(e->uri = normalize_uri(uri)) || !(e->pending = oc_strdup(path))) {
    if(e)
      free(e->uri);
    free(e);
    return OC_ENOMEM;
  }
  oc_jdoc_init(&e->doc);
  e->next = r->docs;
  r->docs = e;
  return OC_OK;
}

/* Read a pending document in place.  OC_OK, or the error with err. */
static int load_pending(struct rdoc *e, char *err, size_t errlen)
{
  char *buf = NULL;
  size_t len = 0;
  int rc = oc_read_file(e->pending, OC_CAP_FILE, &buf, &len, err, errlen);
  if(!rc)
    rc = parse_text(&e->doc, e->pending, buf, len, err, errlen);
  free(buf);
  if(rc)
    return rc;
  free(e->pending);
  e->pending = NULL;
  set_id(e);
  return OC_OK;
}

static int add_dir_rec(struct oc_schema_registry *r, const char *dir, const char *base,
                       int depth, int lazy, char *err, size_t errlen)
{
  if(depth > OC_SCHEMA_DIR_DEPTH) {
    snprintf(err, errlen, "%s: directories nested too deep", dir);
    return OC_ETOOBIG;
  }
  DIR *dh = opendir(dir);
  if(!dh) {
    snprintf(err, errlen, "%s: cannot open directory", dir);
    return OC_EIO;
  }
  int rc = OC_OK;
  struct dirent *de;
  while(!rc && (de = readdir(dh))) {
    if(de->d_name[0] == '.')
      continue;
    char *path = oc_path_join(dir, de->d_name);
    char *uri = oc_asprintf("%s%s", base, de->d_name);
    if(!path || !uri)
      rc = OC_ENOMEM;
    else if(oc_is_dir(path)) {
      char *sub = oc_asprintf("%s/", uri);
      rc = sub ? add_dir_rec(r, path, sub, depth + 1, lazy, err, errlen) : OC_ENOMEM;
      free(sub);
    }
    else if(oc_endswith(de->d_name, ".json"))
      rc = lazy ? add_pending(r, uri, path) : oc_schema_registry_add_file(r, uri, path, err, errlen);
    free(path);
    free(uri);
  }
  closedir(dh);
  if(rc == OC_ENOMEM)
    snprintf(err, errlen, "out of memory");
  return rc;
}

int oc_schema_registry_add_dir(struct oc_schema_registry *r, const char *dir,
                               const char *base_uri, char *err, size_t errlen)
{
  if(!oc_is_dir(dir)) {
    snprintf(err, errlen, "%s: not a directory", dir);
    return OC_ENOTFOUND;
  }
  char *base = oc_endswith(base_uri, "/") ? oc_strdup(base_uri) : oc_asprintf("%s/", base_uri);
  if(!base)
    return OC_ENOMEM;
  int rc = add_dir_rec(r, dir, base, 0, 0, err, errlen);
  free(base);
  return rc;
}

int oc_schema_registry_add_shipped(struct oc_schema_registry *r, char *err, size_t errlen)
{
  char *dir = oc_data_path("schemas");
  if(!dir) {
    snprintf(err, errlen, "out of memory");
    return OC_ENOMEM;
  }
  int rc = OC_ENOTFOUND;
  if(!oc_is_dir(dir))
    snprintf(err, errlen, "%s: not a directory", dir);
  else if((rc = add_dir_rec(r, dir, OC_SCHEMA_SHIPPED_BASE, 0, 1, err, errlen)) == OC_ENOMEM)
    snprintf(err, errlen, "out of memory");
  free(dir);
  return rc;
}

/* The shipped meta-schemas, by URI (normalized, without "#"). */
static const struct {
  const char *uri;
  const char *file;
} meta_files[] = {
  { "https://json-schema.org/draft/2020-12/schema", "schemas/meta/draft2020-12/schema.json" },
  { "https://json-schema.org/draft/2020-12/meta/core", "schemas/meta/draft2020-12/meta/core.json" },
  { "https://json-schema.org/draft/2020-12/meta/applicator", "schemas/meta/draft2020-12/meta/applicator.json" },
  { "https://json-schema.org/draft/2020-12/meta/unevaluated", "schemas/meta/draft2020-12/meta/unevaluated.json" },
  { "https://json-schema.org/draft/2020-12/meta/validation", "schemas/meta/draft2020-12/meta/validation.json" },
  { "https://json-schema.org/draft/2020-12/meta/meta-data", "schemas/meta/draft2020-12/meta/meta-data.json" },
  { "https://json-schema.org/draft/2020-12/meta/format-annotation", "schemas/meta/draft2020-12/meta/format-annotation.json" },
  { "https://json-schema.org/draft/2020-12/meta/format-assertion", "schemas/meta/draft2020-12/meta/format-assertion.json" },
  { "https://json-schema.org/draft/2020-12/meta/content", "schemas/meta/draft2020-12/meta/content.json" },
  { "http://json-schema.org/draft-07/schema", "schemas/meta/draft7/schema.json" },
  { "https://json-schema.org/draft-07/schema", "schemas/meta/draft7/schema.json" },
};

/* The registered document named uri (by its registered URI or its $id),
 * loading a shipped meta-schema on first use.  NULL when unknown; err is
 * filled only when a meta-schema file exists but cannot be read. */
static const struct oc_jv *registry_get(struct oc_schema_registry *r, const char *uri,
                                        char *err, size_t errlen)
{
  for(struct rdoc *d = r->docs; d; d = d->next)
    if(oc_streq(d->uri, uri))
      return d->pending && load_pending(d, err, errlen) ? NULL : d->doc.root;
  for(int pass = 0; pass < 2; pass++) {
    int pending = 0;
    for(struct rdoc *d = r->docs; d; d = d->next) {
      if(d->pending) {
        /* a $id is known only once its file is read: read them all */
        if(pass == 1 && load_pending(d, err, errlen))
          return NULL;
        pending = 1;
      }
      if(!d->pending && oc_streq(d->id, uri))
        return d->doc.root;
    }
    if(!pending)
      break;
  }
  for(size_t i = 0; i < OC_ARRAY_LEN(meta_files); i++) {
    if(strcmp(meta_files[i].uri, uri) != 0)
      continue;
    char *path = oc_data_path(meta_files[i].file);
    if(!path)
      return NULL;
    int rc = oc_schema_registry_add_file(r, uri, path, err, errlen);
    free(path);
    return rc ? NULL : r->docs->doc.root;
  }
  return NULL;
}

/* ======================================================================
 * Compiled form.
 * ====================================================================== */

enum { D_2020 = 0, D_7 = 1 };

#define V_CORE 1u
#define V_APPL 2u
#define V_UNEVAL 4u
#define V_VALID 8u
#define V_META 16u
#define V_FMT_ANNOT 32u
#define V_FMT_ASSERT 64u
#define V_CONTENT 128u
#define V_ALL (V_CORE | V_APPL | V_UNEVAL | V_VALID | V_META | V_FMT_ANNOT | V_CONTENT)

enum { T_NULL = 1, T_BOOL = 2, T_INT = 4, T_NUM = 8, T_STR = 16, T_ARR = 32, T_OBJ = 64 };
#define T_NUMBER (T_INT | T_NUM)

enum opcode {
  OP_TYPE, OP_CONST, OP_ENUM,
  OP_MINIMUM, OP_MAXIMUM, OP_EXMIN, OP_EXMAX, OP_MULTIPLE,
  OP_MINLEN, OP_MAXLEN, OP_PATTERN, OP_FORMAT,
  OP_MINITEMS, OP_MAXITEMS, OP_UNIQUE, OP_ITEMS, OP_CONTAINS,
  OP_MINPROPS, OP_MAXPROPS, OP_REQUIRED, OP_DEPREQ, OP_PROPS, OP_PROPNAMES, OP_DEPSCHEMAS,
  OP_ALLOF, OP_ANYOF, OP_ONEOF, OP_NOT, OP_IF, OP_REF, OP_DYNREF,
  OP_UNEVAL_PROPS, OP_UNEVAL_ITEMS
};

enum fmt {
  F_NONE, F_DATE_TIME, F_DATE, F_TIME, F_DURATION, F_EMAIL, F_IDN_EMAIL, F_HOSTNAME,
  F_IDN_HOSTNAME, F_IPV4, F_IPV6, F_URI, F_URI_REF, F_IRI, F_IRI_REF, F_URI_TEMPLATE,
  F_UUID, F_REGEX, F_JSON_POINTER, F_REL_JSON_POINTER
};

struct node;

/* A subschema and the keyword-location segment that leads to it. */
struct sub {
  const struct node *n;
  const char *seg;
};

struct jstr {
  const char *s;
  uint32_t len;
};

struct prop {
  struct jstr name;
  struct sub s;
};

struct pprop {
  struct oc_regex *re;
  struct sub s;
};

struct depreq {
  struct jstr name;
  struct jstr *req;
  size_t n;
};

struct depsch {
  struct jstr name;
  struct sub s;
};

struct op {
  uint8_t code;
  uint8_t itype;     /* instance types it applies to; 0 = all */
  const char *kw;    /* keyword name, static */
  const char *seg;   /* "/minimum" */
  union {
    unsigned types;
    double num;
    size_t count;
    int format;
    struct oc_regex *re;
    struct { const struct oc_jv *vals; size_t n; } en;
    struct { struct sub *prefix; size_t nprefix; struct sub rest; const char *prefix_kw, *rest_kw; } items;
    struct { struct sub s; size_t min, max; int has_max; } contains;
    struct { struct jstr *names; size_t n; } req;
    struct { struct depreq *d; size_t n; } dreq;
    struct {
      struct prop *props;
      size_t nprops;
      uint32_t *table; /* hash slots holding index+1; NULL for short lists */
      uint32_t tmask;
      struct pprop *pats;
      size_t npats;
      struct sub addl; /* n NULL when absent */
    } props;
    struct sub one;
    struct { struct sub *subs; size_t n; } list;
    struct { struct sub ifs, thens, elses; } cond;
    struct { struct sub s; const char *anchor; } ref;
    struct { struct depsch *d; size_t n; } dsch;
  } u;
};

/* A schema resource as the dynamic scope sees it. */
struct dyn_anchor {
  const char *name;
  const struct node *n;
};

struct cres {
  const char *uri;
  struct dyn_anchor *da;
  size_t nda;
};

enum { N_TRUE, N_FALSE, N_OBJ };

struct node {
  uint8_t kind;
  uint8_t uneval_props, uneval_items; /* needs its own annotation sets */
  uint16_t nops;
  const struct op *ops;
  const struct cres *res;
};

struct oc_schema {
  struct arena arena;
  const struct node *root;
  struct oc_regex **regexes;
  size_t nregex, capregex;
  int uses_dynamic;
  unsigned flags;
};

/* ======================================================================
 * Compiler.
 * ====================================================================== */

struct anchor {
  char *name;
  const struct oc_jv *jv;
  int dynamic;
};

struct res {
  char *uri;
  const struct oc_jv *root;
  struct res *alias; /* another name for that resource */
  int dialect;
  unsigned vocab;
  struct anchor *anchors;
  size_t nanchors, capanchors;
  struct cres *c;
  struct res *next;
};

struct compiler {
  struct oc_schema_registry *reg;
  struct oc_schema *s;
  unsigned flags;
  struct res *resources;
  struct pmap scanned; /* jv -> struct res * */
  struct pmap nodes;   /* jv -> struct node * */
  struct oc_buf path;  /* keyword location of what is being compiled */
  int depth;
  int failed;
  int nomem;           /* memory ran out: the schema is not at fault */
  char *err;
  size_t errlen;
};

static void cerr(struct compiler *c, const struct oc_jv *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void cerr(struct compiler *c, const struct oc_jv *at, const char *fmt, ...)
{
  char where[1024]; /* err is shorter still */
  const char *p = oc_buf_str(&c->path);
  if(at && at->offset)
    snprintf(where, sizeof(where), "schema at %s (byte %u)", *p ? p : "(root)", at->offset);
  else
    snprintf(where, sizeof(where), "schema at %s", *p ? p : "(root)");
  va_list ap;
  va_start(ap, fmt);
  oc_errv(&c->failed, c->err, c->errlen, where, fmt, ap);
  va_end(ap);
}

static void oom(struct compiler *c)
{
  c->nomem = 1;
  cerr(c, NULL, "out of memory");
}

static struct res *find_res(struct compiler *c, const char *uri)
{
  for(struct res *r = c->resources; r; r = r->next)
    if(strcmp(r->uri, uri) == 0) {
      while(r->alias)
        r = r->alias;
      return r;
    }
  return NULL;
}

static struct res *new_res(struct compiler *c, const char *uri, const struct oc_jv *root,
                           int dialect, unsigned vocab)
{
  for(struct res *r = c->resources; r; r = r->next)
    if(strcmp(r->uri, uri) == 0)
      return r; /* the first definition of a URI wins */
  struct res *r = calloc(1, sizeof(*r));
  if(!r || !(r->uri = oc_strdup(uri))) {
    free(r);
    oom(c);
    return NULL;
  }
  r->root = root;
  r->dialect = dialect;
  r->vocab = vocab;
  r->next = c->resources;
  c->resources = r;
  return r;
}

static int add_anchor(struct compiler *c, struct res *r, const char *name, size_t len,
                      const struct oc_jv *jv, int dynamic)
{
  for(size_t i = 0; i < r->nanchors; i++)
    if(strlen(r->anchors[i].name) == len && memcmp(r->anchors[i].name, name, len) == 0) {
      if(dynamic)
        r->anchors[i].dynamic = 1;
      return OC_OK;
    }
  struct anchor *na = oc_array_grow(r->anchors, &r->capanchors, r->nanchors + 1, sizeof(*na));
  if(!na) {
    oom(c);
    return OC_ENOMEM;
  }
  r->anchors = na;
  struct anchor *a = &r->anchors[r->nanchors];
  a->name = oc_strndup(name, len);
  if(!a->name) {
    oom(c);
    return OC_ENOMEM;
  }
  a->jv = jv;
  a->dynamic = dynamic;
  r->nanchors++;
  return OC_OK;
}

static int is_known_2020(const char *u)
{
  return strcmp(u, "https://json-schema.org/draft/2020-12/schema") == 0 ||
         strcmp(u, "https://json-schema.org/draft/2019-09/schema") == 0;
}

static int is_known_7(const char *u)
{
  return strcmp(u, "http://json-schema.org/draft-07/schema") == 0 ||
         strcmp(u, "https://json-schema.org/draft-07/schema") == 0 ||
         strcmp(u, "http://json-schema.org/draft-06/schema") == 0 ||
         strcmp(u, "http://json-schema.org/draft-04/schema") == 0;
}

/* Which dialect and vocabularies "$schema": uri selects. */
static int dialect_of(struct compiler *c, const struct oc_jv *at, const char *uri_in,
                      int *dialect, unsigned *vocab, int depth)
{
  char *uri = normalize_uri(uri_in);
  int rc = OC_OK;
  if(!uri) {
    oom(c);
    return OC_ENOMEM;
  }
  if(is_known_2020(uri)) {
    *dialect = D_2020;
    *vocab = V_ALL;
    goto out;
  }
  if(is_known_7(uri)) {
    *dialect = D_7;
    *vocab = V_ALL;
    goto out;
  }
  char lerr[512] = "";
  const struct oc_jv *meta = depth < OC_SCHEMA_META_DEPTH ? registry_get(c->reg, uri, lerr, sizeof(lerr)) : NULL;
  if(!meta || meta->type != OC_JOBJECT) {
    cerr(c, at, "unknown meta-schema \"%s\" in $schema%s%s", uri, *lerr ? ": " : "", lerr);
    rc = OC_ENOTFOUND;
    goto out;
  }
  const struct oc_jv *ms = jget(meta, "$schema");
  if(ms && ms->type == OC_JSTRING && strcmp(ms->u.str, uri_in) != 0) {
    rc = dialect_of(c, at, ms->u.str, dialect, vocab, depth + 1);
    if(rc)
      goto out;
  }
  else {
    *dialect = D_2020;
    *vocab = V_ALL;
  }
  const struct oc_jv *voc = jget(meta, "$vocabulary");
  if(voc && voc->type == OC_JOBJECT) {
    static const struct {
      const char *name;
      unsigned bit;
    } vocabs[] = {
      { "core", V_CORE }, { "applicator", V_APPL }, { "unevaluated", V_UNEVAL },
      { "validation", V_VALID }, { "meta-data", V_META }, { "format-annotation", V_FMT_ANNOT },
      { "format-assertion", V_FMT_ASSERT }, { "content", V_CONTENT }, { "format", V_FMT_ANNOT },
    };
    unsigned v = 0;
    for(uint32_t i = 0; i < voc->len; i++) {
      const struct oc_jmember *m = &voc->u.members[i];
      const char *name = NULL;
      if(oc_startswith(m->key, "https://json-schema.org/draft/2020-12/vocab/"))
        name = m->key + strlen("https://json-schema.org/draft/2020-12/vocab/");
      else if(oc_startswith(m->key, "https://json-schema.org/draft/2019-09/vocab/"))
        name = m->key + strlen("https://json-schema.org/draft/2019-09/vocab/");
      unsigned bit = 0;
      for(size_t k = 0; name && k < OC_ARRAY_LEN(vocabs); k++)
        if(strcmp(vocabs[k].name, name) == 0)
          bit = vocabs[k].bit;
      if(!bit) {
        if(m->value.type == OC_JTRUE) {
          cerr(c, at, "meta-schema \"%s\" requires the unknown vocabulary \"%s\"", uri, m->key);
          rc = OC_EUNSUPPORTED;
          goto out;
        }
        continue;
      }
      v |= bit;
    }
    *vocab = v | V_CORE;
  }
out:
  free(uri);
  return rc;
}

static int scan(struct compiler *c, const struct oc_jv *jv, struct res *cur);

static int scan_map(struct compiler *c, const struct oc_jv *obj, struct res *r)
{
  if(!obj || obj->type != OC_JOBJECT)
    return OC_OK;
  for(uint32_t i = 0; i < obj->len; i++)
    if(scan(c, &obj->u.members[i].value, r))
      return OC_ENOMEM;
  return OC_OK;
}

static int scan_arr(struct compiler *c, const struct oc_jv *arr, struct res *r)
{
  if(!arr || arr->type != OC_JARRAY)
    return OC_OK;
  for(uint32_t i = 0; i < arr->len; i++)
    if(scan(c, &arr->u.items[i], r))
      return OC_ENOMEM;
  return OC_OK;
}

/* Find the resources ($id), anchors and dialects of a schema subtree,
 * walking only where a keyword holds subschemas (an "$id" inside "enum"
 * names nothing). */
static int scan(struct compiler *c, const struct oc_jv *jv, struct res *cur)
{
  if(c->failed)
    return OC_EPARSE;
  if(pmap_get(&c->scanned, jv))
    return OC_OK;
  if(jv->type == OC_JTRUE || jv->type == OC_JFALSE)
    return pmap_put(&c->scanned, jv, cur) ? (oom(c), OC_ENOMEM) : OC_OK;
  if(jv->type != OC_JOBJECT)
    return OC_OK;
  if(++c->depth > OC_SCHEMA_COMPILE_DEPTH) {
    cerr(c, jv, "schema nested too deep");
    return OC_ETOOBIG;
  }
  struct res *r = cur;
  int dialect = cur->dialect;
  unsigned vocab = cur->vocab;
  const struct oc_jv *id = jget(jv, "$id");
  if(dialect == D_7 && jget(jv, "$ref"))
    id = NULL; /* draft-07: $ref makes every sibling, $id too, ignored */
  if(id && id->type == OC_JSTRING && !(dialect == D_7 && id->u.str[0] == '#')) {
    const struct oc_jv *sch = jget(jv, "$schema");
    if(sch && sch->type == OC_JSTRING && dialect_of(c, sch, sch->u.str, &dialect, &vocab, 0))
      return OC_EPARSE;
    char *abs = uri_resolve(cur->uri, id->u.str);
    char *base = abs ? uri_strip_frag(abs, NULL) : NULL;
    free(abs);
    if(!base) {
      oom(c);
      return OC_ENOMEM;
    }
    r = new_res(c, base, jv, dialect, vocab);
    free(base);
    if(!r)
      return OC_ENOMEM;
    if(r->root == jv && cur->root == jv && r != cur)
      cur->alias = r;
  }
  else if(id && id->type == OC_JSTRING) {
    if(add_anchor(c, cur, id->u.str + 1, strlen(id->u.str + 1), jv, 0))
      return OC_ENOMEM;
  }
  if(pmap_put(&c->scanned, jv, r)) {
    oom(c);
    return OC_ENOMEM;
  }
  if(r->dialect == D_2020) {
    const struct oc_jv *a = jget(jv, "$anchor");
    if(a && a->type == OC_JSTRING && add_anchor(c, r, a->u.str, a->len, jv, 0))
      return OC_ENOMEM;
    a = jget(jv, "$dynamicAnchor");
    if(a && a->type == OC_JSTRING && add_anchor(c, r, a->u.str, a->len, jv, 1))
      return OC_ENOMEM;
  }
  static const char *const single2020[] = { "items", "contains", "additionalProperties", "propertyNames",
                                            "if", "then", "else", "not", "unevaluatedItems",
                                            "unevaluatedProperties", "contentSchema" };
  static const char *const arr2020[] = { "prefixItems", "allOf", "anyOf", "oneOf" };
  static const char *const map2020[] = { "$defs", "properties", "patternProperties", "dependentSchemas",
                                         "definitions" };
  static const char *const single7[] = { "additionalItems", "contains", "additionalProperties",
                                         "propertyNames", "if", "then", "else", "not" };
  static const char *const arr7[] = { "allOf", "anyOf", "oneOf" };
  static const char *const map7[] = { "definitions", "properties", "patternProperties" };
  int rc = OC_OK;
  if(r->dialect == D_2020) {
    for(size_t i = 0; !rc && i < OC_ARRAY_LEN(single2020); i++) {
      const struct oc_jv *s = jget(jv, single2020[i]);
      if(s)
        rc = scan(c, s, r);
    }
    for(size_t i = 0; !rc && i < OC_ARRAY_LEN(arr2020); i++)
      rc = scan_arr(c, jget(jv, arr2020[i]), r);
    for(size_t i = 0; !rc && i < OC_ARRAY_LEN(map2020); i++)
      rc = scan_map(c, jget(jv, map2020[i]), r);
  }
  else {
    for(size_t i = 0; !rc && i < OC_ARRAY_LEN(single7); i++) {
      const struct oc_jv *s = jget(jv, single7[i]);
      if(s)
        rc = scan(c, s, r);
    }
    const struct oc_jv *items = jget(jv, "items");
    if(!rc && items)
      rc = items->type == OC_JARRAY ? scan_arr(c, items, r) : scan(c, items, r);
    for(size_t i = 0; !rc && i < OC_ARRAY_LEN(arr7); i++)
      rc = scan_arr(c, jget(jv, arr7[i]), r);
    for(size_t i = 0; !rc && i < OC_ARRAY_LEN(map7); i++)
      rc = scan_map(c, jget(jv, map7[i]), r);
    const struct oc_jv *deps = jget(jv, "dependencies");
    if(!rc && deps && deps->type == OC_JOBJECT)
      for(uint32_t i = 0; !rc && i < deps->len; i++)
        if(deps->u.members[i].value.type != OC_JARRAY)
          rc = scan(c, &deps->u.members[i].value, r);
  }
  c->depth--;
  return rc;
}

/* Register a whole document under uri, honouring its $schema. */
static struct res *scan_doc(struct compiler *c, const struct oc_jv *root, const char *uri,
                            int dialect, unsigned vocab)
{
  const struct oc_jv *sch = jget(root, "$schema");
  if(sch && sch->type == OC_JSTRING && dialect_of(c, sch, sch->u.str, &dialect, &vocab, 0))
    return NULL;
  struct res *prev = pmap_get(&c->scanned, root);
  if(prev) { /* the same document reached under a second name */
    struct res *r = new_res(c, uri, root, prev->dialect, prev->vocab);
    if(r && r != prev && !r->alias && r->root == root)
      r->alias = prev;
    return r ? find_res(c, uri) : NULL;
  }
  struct res *r = new_res(c, uri, root, dialect, vocab);
  if(!r || scan(c, root, r))
    return NULL;
  return find_res(c, uri);
}

/* The resource for an absolute URI without fragment: already known, or a
 * registered document scanned now. */
static struct res *load_res(struct compiler *c, const char *docuri, const struct res *from)
{
  struct res *r = find_res(c, docuri);
  if(r)
    return r;
  char lerr[512] = "";
  const struct oc_jv *root = registry_get(c->reg, docuri, lerr, sizeof(lerr));
  if(!root) {
    if(*lerr)
      cerr(c, NULL, "%s", lerr);
    return NULL;
  }
  return scan_doc(c, root, docuri, from ? from->dialect : D_2020, from ? from->vocab : V_ALL);
}

/* Resolve a reference to (target value, the resource it belongs to).
 * *dynamic is set when the fragment names a $dynamicAnchor. */
static const struct oc_jv *resolve(struct compiler *c, const struct oc_jv *at, struct res *from,
                                   const char *ref, struct res **tres, int *dynamic)
{
  const struct oc_jv *target = NULL;
  char *abs = uri_resolve(from ? from->uri : NULL, ref);
  const char *frag = "";
  char *docuri = abs ? uri_strip_frag(abs, &frag) : NULL;
  struct oc_buf f, tok;
  oc_buf_init(&f, OC_CAP_SCHEMA_PATH);
  oc_buf_init(&tok, OC_CAP_SCHEMA_PATH);
  if(dynamic)
    *dynamic = 0;
  if(!docuri) {
    oom(c);
    goto out;
  }
  struct res *r = load_res(c, docuri, from);
  if(!r) {
    cerr(c, at, "unresolved reference \"%s\" (resolved to \"%s\"): no schema with that URI is "
                "registered", ref, abs);
    goto out;
  }
  if(pct_decode(&f, frag)) {
    oom(c);
    goto out;
  }
  const char *fr = oc_buf_str(&f);
  if(!*fr) {
    target = r->root;
    *tres = r;
  }
  else if(fr[0] == '/') {
    const struct oc_jv *cur = r->root;
    struct res *cr = r;
    const char *p = fr + 1;
    for(;;) {
      const char *slash = strchr(p, '/');
      size_t n = slash ? (size_t)(slash - p) : strlen(p);
      oc_buf_reset(&tok);
      int bad = 0;
      for(size_t i = 0; i < n && !bad; i++) {
        char ch = p[i];
        if(ch == '~') {
          if(i + 1 < n && (p[i + 1] == '0' || p[i + 1] == '1'))
            ch = p[++i] == '0' ? '~' : '/';
          else
            bad = 1;
        }
        if(oc_buf_addc(&tok, ch))
          bad = 2;
      }
      if(bad == 2) { /* a token we could not hold, not one that is absent */
        oom(c);
        goto out;
      }
      if(bad) {
        cur = NULL;
        break;
      }
      if(cur->type == OC_JOBJECT)
        cur = jget_n(cur, oc_buf_str(&tok), tok.len);
      else if(cur->type == OC_JARRAY) {
        long idx;
        const char *t = oc_buf_str(&tok);
        if((t[0] == '0' && t[1]) || oc_parse_long(t, 0, (long)cur->len - 1, &idx))
          cur = NULL;
        else
          cur = &cur->u.items[idx];
      }
      else
        cur = NULL;
      if(!cur)
        break;
      struct res *sr = pmap_get(&c->scanned, cur);
      if(sr)
        cr = sr;
      if(!slash)
        break;
      p = slash + 1;
    }
    if(!cur) {
      cerr(c, at, "unresolved reference \"%s\": no value at \"#%s\" in \"%s\"", ref, fr, r->uri);
      goto out;
    }
    target = cur;
    *tres = cr;
  }
  else {
    for(size_t i = 0; i < r->nanchors; i++)
      if(strcmp(r->anchors[i].name, fr) == 0) {
        target = r->anchors[i].jv;
        if(dynamic)
          *dynamic = r->anchors[i].dynamic;
        *tres = pmap_get(&c->scanned, target);
        if(!*tres)
          *tres = r;
        break;
      }
    if(!target)
      cerr(c, at, "unresolved reference \"%s\": no anchor \"%s\" in \"%s\"", ref, fr, r->uri);
  }
out:
  oc_buf_free(&f);
  oc_buf_free(&tok);
  free(docuri);
  free(abs);
  return target;
}

static struct node *compile(struct compiler *c, const struct oc_jv *jv, struct res *parent);

/* Compile a subschema reached through segment seg (already escaped). */
static int compile_sub(struct compiler *c, const struct oc_jv *jv, struct res *r,
                       const char *seg, struct sub *out)
{
  size_t mark = c->path.len;
  if(oc_buf_adds(&c->path, seg)) {
    oom(c);
    return OC_ENOMEM;
  }
  out->seg = arena_strndup(&c->s->arena, seg, strlen(seg));
  out->n = out->seg ? compile(c, jv, r) : NULL;
  if(!out->seg)
    oom(c);
  c->path.len = mark;
  if(c->path.data)
    c->path.data[mark] = '\0';
  return out->n ? OC_OK : OC_EPARSE;
}

/* "/kw/name" with name escaped as a pointer token. */
static char *seg2(const char *kw, const char *name, size_t n)
{
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_SCHEMA_PATH);
  oc_buf_printf(&b, "/%s", kw);
  add_ptr_token(&b, name, n);
  return oc_buf_take(&b, NULL); /* NULL when an add failed */
}

static int compile_sub_named(struct compiler *c, const struct oc_jv *jv, struct res *r,
                             const char *kw, const char *name, size_t n, struct sub *out)
{
  char *seg = seg2(kw, name, n);
  if(!seg) {
    oom(c);
    return OC_ENOMEM;
  }
  int rc = compile_sub(c, jv, r, seg, out);
  free(seg);
  return rc;
}

static int compile_sub_idx(struct compiler *c, const struct oc_jv *jv, struct res *r,
                           const char *kw, size_t i, struct sub *out)
{
  char seg[128];
  snprintf(seg, sizeof(seg), "/%s/%zu", kw, i);
  return compile_sub(c, jv, r, seg, out);
}

static int is_nonneg_int(const struct oc_jv *v)
{
  return v->type == OC_JNUMBER && jis_int(v) && v->u.num >= 0;
}

static int add_regex(struct compiler *c, const struct oc_jv *at, const char *pat, size_t len,
                     struct oc_regex **out)
{
  char rerr[256];
  struct oc_regex *re;
  if(oc_regex_compile_rc(pat, len, &re, rerr, sizeof(rerr)) == OC_ENOMEM) {
    oom(c);
    return OC_ENOMEM;
  }
  if(!re) {
    cerr(c, at, "invalid regular expression \"%.*s\": %s", (int)(len > 200 ? 200 : len), pat, rerr);
    return OC_EPARSE;
  }
  struct oc_schema *s = c->s;
  {
    struct oc_regex **nr = oc_array_grow(s->regexes, &s->capregex, s->nregex + 1, sizeof(*nr));
    if(!nr) {
      oc_regex_free(re);
      oom(c);
      return OC_ENOMEM;
    }
    s->regexes = nr;
  }
  s->regexes[s->nregex++] = re;
  *out = re;
  return OC_OK;
}

static unsigned type_bit(const char *name, size_t len)
{
  static const struct {
    const char *n;
    unsigned b;
  } t[] = {
    { "null", T_NULL }, { "boolean", T_BOOL }, { "integer", T_INT }, { "number", T_NUMBER },
    { "string", T_STR }, { "array", T_ARR }, { "object", T_OBJ },
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(t); i++)
    if(strlen(t[i].n) == len && memcmp(t[i].n, name, len) == 0)
      return t[i].b;
  return 0;
}

static int format_id(const char *f)
{
  static const struct {
    const char *n;
    int id;
  } t[] = {
    { "date-time", F_DATE_TIME }, { "date", F_DATE }, { "time", F_TIME }, { "duration", F_DURATION },
    { "email", F_EMAIL }, { "idn-email", F_IDN_EMAIL }, { "hostname", F_HOSTNAME },
    { "idn-hostname", F_IDN_HOSTNAME }, { "ipv4", F_IPV4 }, { "ipv6", F_IPV6 }, { "uri", F_URI },
    { "uri-reference", F_URI_REF }, { "iri", F_IRI }, { "iri-reference", F_IRI_REF },
    { "uri-template", F_URI_TEMPLATE }, { "uuid", F_UUID }, { "regex", F_REGEX },
    { "json-pointer", F_JSON_POINTER }, { "relative-json-pointer", F_REL_JSON_POINTER },
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(t); i++)
    if(strcmp(t[i].n, f) == 0)
      return t[i].id;
  return F_NONE;
}

/* A growing list of ops while one node compiles. */
struct oplist {
  struct op *ops;
  size_t n, cap;
};

static struct op *op_add(struct compiler *c, struct oplist *l, int code, const char *kw, unsigned itype)
{
  struct op *no = oc_array_grow(l->ops, &l->cap, l->n + 1, sizeof(*no));
  if(!no) {
    oom(c);
    return NULL;
  }
  l->ops = no;
  struct op *o = &l->ops[l->n++];
  memset(o, 0, sizeof(*o));
  o->code = (uint8_t)code;
  o->kw = kw;
  o->itype = (uint8_t)itype;
  char seg[64];
  snprintf(seg, sizeof(seg), "/%s", kw);
  o->seg = arena_strndup(&c->s->arena, seg, strlen(seg));
  if(!o->seg) {
    oom(c);
    return NULL;
  }
  return o;
}

static int need_num(struct compiler *c, const struct oc_jv *v, const char *kw)
{
  if(v->type != OC_JNUMBER) {
    cerr(c, v, "\"%s\" must be a number", kw);
    return 0;
  }
  return 1;
}

static int need_count(struct compiler *c, const struct oc_jv *v, const char *kw)
{
  if(!is_nonneg_int(v)) {
    cerr(c, v, "\"%s\" must be a non-negative integer", kw);
    return 0;
  }
  return 1;
}

static int copy_strs(struct compiler *c, const struct oc_jv *arr, const char *kw,
                     struct jstr **out, size_t *n)
{
  if(arr->type != OC_JARRAY) {
    cerr(c, arr, "\"%s\" must be an array of strings", kw);
    return OC_EPARSE;
  }
  struct jstr *s = arena_alloc(&c->s->arena, sizeof(*s) * (arr->len ? arr->len : 1));
  if(!s) {
    oom(c);
    return OC_ENOMEM;
  }
  for(uint32_t i = 0; i < arr->len; i++) {
    const struct oc_jv *e = &arr->u.items[i];
    if(e->type != OC_JSTRING) {
      cerr(c, e, "\"%s\" must be an array of strings", kw);
      return OC_EPARSE;
    }
    s[i].s = arena_strndup(&c->s->arena, e->u.str, e->len);
    s[i].len = e->len;
    if(!s[i].s) {
      oom(c);
      return OC_ENOMEM;
    }
  }
  *out = s;
  *n = arr->len;
  return OC_OK;
}

static int compile_list(struct compiler *c, struct oplist *l, const struct oc_jv *jv,
                        struct res *r, const char *kw, int code, int allow_empty)
{
  const struct oc_jv *a = jget(jv, kw);
  if(!a)
    return OC_OK;
  if(a->type != OC_JARRAY || (!allow_empty && a->len == 0)) {
    cerr(c, a, "\"%s\" must be a non-empty array of schemas", kw);
    return OC_EPARSE;
  }
  struct op *o = op_add(c, l, code, kw, 0);
  if(!o)
    return OC_ENOMEM;
  struct sub *subs = arena_alloc(&c->s->arena, sizeof(*subs) * (a->len ? a->len : 1));
  if(!subs) {
    oom(c);
    return OC_ENOMEM;
  }
  for(uint32_t i = 0; i < a->len; i++)
    if(compile_sub_idx(c, &a->u.items[i], r, kw, i, &subs[i]))
      return OC_EPARSE;
  /* subschemas compile into their own op lists, so o is still valid */
  o->u.list.subs = subs;
  o->u.list.n = a->len;
  return OC_OK;
}

static uint32_t str_hash(const char *s, size_t n)
{
  uint32_t h = 2166136261u;
  for(size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

/* properties + patternProperties + additionalProperties as one pass over
 * the instance's members. */
static int compile_props(struct compiler *c, struct oplist *l, const struct oc_jv *jv, struct res *r)
{
  const struct oc_jv *props = jget(jv, "properties");
  const struct oc_jv *pats = jget(jv, "patternProperties");
  const struct oc_jv *addl = jget(jv, "additionalProperties");
  if(!props && !pats && !addl)
    return OC_OK;
  if(props && props->type != OC_JOBJECT) {
    cerr(c, props, "\"properties\" must be an object of schemas");
    return OC_EPARSE;
  }
  if(pats && pats->type != OC_JOBJECT) {
    cerr(c, pats, "\"patternProperties\" must be an object of schemas");
    return OC_EPARSE;
  }
  struct prop *pr = NULL;
  struct pprop *pp = NULL;
  struct sub addl_sub = { NULL, NULL };
  size_t np = props ? props->len : 0, npp = pats ? pats->len : 0;
  struct arena *a = &c->s->arena;
  if(np && !(pr = arena_alloc(a, sizeof(*pr) * np))) {
    oom(c);
    return OC_ENOMEM;
  }
  if(npp && !(pp = arena_alloc(a, sizeof(*pp) * npp))) {
    oom(c);
    return OC_ENOMEM;
  }
  for(size_t i = 0; i < np; i++) {
    const struct oc_jmember *m = &props->u.members[i];
    pr[i].name.s = arena_strndup(a, m->key, m->key_len);
    pr[i].name.len = m->key_len;
    if(!pr[i].name.s) {
      oom(c);
      return OC_ENOMEM;
    }
    if(compile_sub_named(c, &m->value, r, "properties", m->key, m->key_len, &pr[i].s))
      return OC_EPARSE;
  }
  for(size_t i = 0; i < npp; i++) {
    const struct oc_jmember *m = &pats->u.members[i];
    size_t mark = c->path.len;
    char *seg = seg2("patternProperties", m->key, m->key_len);
    if(!seg || oc_buf_adds(&c->path, seg)) {
      free(seg);
      oom(c);
      return OC_ENOMEM;
    }
    int bad = add_regex(c, &m->value, m->key, m->key_len, &pp[i].re);
    c->path.len = mark;
    if(c->path.data)
      c->path.data[mark] = '\0';
    if(bad || compile_sub(c, &m->value, r, seg, &pp[i].s)) {
      free(seg);
      return OC_EPARSE;
    }
    free(seg);
  }
  if(addl && compile_sub(c, addl, r, "/additionalProperties", &addl_sub))
    return OC_EPARSE;
  struct op *o = op_add(c, l, OP_PROPS, addl ? "additionalProperties" : props ? "properties" : "patternProperties", T_OBJ);
  if(!o)
    return OC_ENOMEM;
  o->u.props.props = pr;
  o->u.props.nprops = np;
  o->u.props.pats = pp;
  o->u.props.npats = npp;
  o->u.props.addl = addl_sub;
  if(np > 8) {
    uint32_t size = 16;
    while(size < np * 2)
      size *= 2;
    uint32_t *t = arena_alloc(a, sizeof(*t) * size);
    if(!t) {
      oom(c);
      return OC_ENOMEM;
    }
    for(size_t i = 0; i < np; i++) {
      uint32_t h = str_hash(pr[i].name.s, pr[i].name.len) & (size - 1);
      while(t[h])
        h = (h + 1) & (size - 1);
      t[h] = (uint32_t)i + 1;
    }
    o->u.props.table = t;
    o->u.props.tmask = size - 1;
  }
  return OC_OK;
}

static int compile_enum(struct compiler *c, struct oplist *l, const struct oc_jv *v, int is_const)
{
  struct op *o = op_add(c, l, is_const ? OP_CONST : OP_ENUM, is_const ? "const" : "enum", 0);
  if(!o)
    return OC_ENOMEM;
  if(!is_const && v->type != OC_JARRAY) {
    cerr(c, v, "\"enum\" must be an array");
    return OC_EPARSE;
  }
  size_t n = is_const ? 1 : v->len;
  struct oc_jv *vals = arena_alloc(&c->s->arena, sizeof(*vals) * (n ? n : 1));
  if(!vals) {
    oom(c);
    return OC_ENOMEM;
  }
  for(size_t i = 0; i < n; i++)
    if(jcopy(&c->s->arena, &vals[i], is_const ? v : &v->u.items[i])) {
      oom(c);
      return OC_ENOMEM;
    }
  o->u.en.vals = vals;
  o->u.en.n = n;
  return OC_OK;
}

/* The compiled resource (dynamic anchors) of r, built on first use. */
static struct cres *compile_res(struct compiler *c, struct res *r)
{
  if(r->c)
    return r->c;
  struct cres *cr = arena_alloc(&c->s->arena, sizeof(*cr));
  if(!cr || !(cr->uri = arena_strndup(&c->s->arena, r->uri, strlen(r->uri)))) {
    oom(c);
    return NULL;
  }
  r->c = cr;
  size_t nd = 0;
  for(size_t i = 0; i < r->nanchors; i++)
    nd += r->anchors[i].dynamic;
  if(!nd)
    return cr;
  struct dyn_anchor *da = arena_alloc(&c->s->arena, sizeof(*da) * nd);
  if(!da) {
    oom(c);
    return NULL;
  }
  cr->da = da;
  for(size_t i = 0; i < r->nanchors; i++) {
    if(!r->anchors[i].dynamic)
      continue;
    struct dyn_anchor *d = &da[cr->nda++];
    d->name = arena_strndup(&c->s->arena, r->anchors[i].name, strlen(r->anchors[i].name));
    size_t mark = c->path.len;
    if(oc_buf_printf(&c->path, "/$dynamicAnchor(%s)", r->anchors[i].name) || !d->name) {
      oom(c);
      return NULL;
    }
    d->n = compile(c, r->anchors[i].jv, r);
    c->path.len = mark;
    c->path.data[mark] = '\0';
    if(!d->n)
      return NULL;
  }
  return cr;
}

static int compile_keywords(struct compiler *c, struct node *node, const struct oc_jv *jv, struct res *r);

static struct node *compile(struct compiler *c, const struct oc_jv *jv, struct res *parent)
{
  if(c->failed)
    return NULL;
  struct node *n = pmap_get(&c->nodes, jv);
  if(n)
    return n;
  struct res *r = pmap_get(&c->scanned, jv);
  if(!r) {
    if(jv->type != OC_JOBJECT && jv->type != OC_JTRUE && jv->type != OC_JFALSE) {
      cerr(c, jv, "a schema must be an object or a boolean, got %s", oc_jv_type_name(jv));
      return NULL;
    }
    if(scan(c, jv, parent))
      return NULL;
    r = pmap_get(&c->scanned, jv);
    if(!r) {
      cerr(c, jv, "internal error: schema not scanned");
      return NULL;
    }
  }
  if(++c->depth > OC_SCHEMA_COMPILE_DEPTH) {
    cerr(c, jv, "schema nested too deep");
    return NULL;
  }
  n = arena_alloc(&c->s->arena, sizeof(*n));
  if(!n || pmap_put(&c->nodes, jv, n)) {
    oom(c);
    return NULL;
  }
  if(jv->type == OC_JTRUE)
    n->kind = N_TRUE;
  else if(jv->type == OC_JFALSE)
    n->kind = N_FALSE;
  else {
    n->kind = N_OBJ;
    if(!(n->res = compile_res(c, r)) || compile_keywords(c, n, jv, r))
      n = NULL;
  }
  c->depth--;
  return n;
}

static int compile_ref(struct compiler *c, struct oplist *l, const struct oc_jv *jv, struct res *r,
                       const char *kw)
{
  const struct oc_jv *ref = jget(jv, kw);
  if(!ref)
    return OC_OK;
  if(ref->type != OC_JSTRING) {
    cerr(c, ref, "\"%s\" must be a string", kw);
    return OC_EPARSE;
  }
  struct res *tr = NULL;
  int dynamic = 0;
  size_t mark = c->path.len;
  if(oc_buf_printf(&c->path, "/%s", kw)) {
    oom(c);
    return OC_ENOMEM;
  }
  const struct oc_jv *t = resolve(c, ref, r, ref->u.str, &tr, &dynamic);
  c->path.len = mark;
  c->path.data[mark] = '\0';
  if(!t)
    return OC_EPARSE;
  int is_dyn = strcmp(kw, "$dynamicRef") == 0;
  struct op *o = op_add(c, l, is_dyn ? OP_DYNREF : OP_REF, kw, 0);
  if(!o)
    return OC_ENOMEM;
  size_t idx = l->n - 1;
  struct sub s;
  char seg[32];
  snprintf(seg, sizeof(seg), "/%s", kw);
  if(compile_sub(c, t, tr, seg, &s))
    return OC_EPARSE;
  o = &l->ops[idx];
  o->u.ref.s = s;
  if(is_dyn && dynamic) {
    const char *h = strchr(ref->u.str, '#');
    o->u.ref.anchor = arena_strndup(&c->s->arena, h + 1, strlen(h + 1));
    if(!o->u.ref.anchor) {
      oom(c);
      return OC_ENOMEM;
    }
    c->s->uses_dynamic = 1;
  }
  return OC_OK;
}

static int compile_keywords(struct compiler *c, struct node *node, const struct oc_jv *jv, struct res *r)
{
  struct oplist l = { NULL, 0, 0 };
  struct arena *a = &c->s->arena;
  const struct oc_jv *v;
  int d7 = r->dialect == D_7;
  unsigned voc = r->vocab;
  int rc = OC_EPARSE;

  if(d7 && jget(jv, "$ref")) {
    if(compile_ref(c, &l, jv, r, "$ref"))
      goto out;
    goto done;
  }
  /* ---- assertions (validation vocabulary) */
  if(voc & V_VALID) {
    if((v = jget(jv, "type"))) {
      unsigned mask = 0;
      if(v->type == OC_JSTRING)
        mask = type_bit(v->u.str, v->len);
      else if(v->type == OC_JARRAY) {
        for(uint32_t i = 0; i < v->len; i++) {
          unsigned b = v->u.items[i].type == OC_JSTRING ? type_bit(v->u.items[i].u.str, v->u.items[i].len) : 0;
          if(!b) {
            mask = 0;
            break;
          }
          mask |= b;
        }
        if(v->len == 0)
          mask = 0;
      }
      if(!mask) {
        cerr(c, v, "\"type\" must be one of null, boolean, integer, number, string, array, "
                   "object, or an array of them");
        goto out;
      }
      struct op *o = op_add(c, &l, OP_TYPE, "type", 0);
      if(!o)
        goto out;
      o->u.types = mask;
    }
    if((v = jget(jv, "const")) && compile_enum(c, &l, v, 1))
      goto out;
    if((v = jget(jv, "enum")) && compile_enum(c, &l, v, 0))
      goto out;
    static const struct {
      const char *kw;
      int code;
    } nums[] = { { "minimum", OP_MINIMUM }, { "maximum", OP_MAXIMUM }, { "exclusiveMinimum", OP_EXMIN },
                 { "exclusiveMaximum", OP_EXMAX }, { "multipleOf", OP_MULTIPLE } };
    for(size_t i = 0; i < OC_ARRAY_LEN(nums); i++) {
      if(!(v = jget(jv, nums[i].kw)))
        continue;
      if(!need_num(c, v, nums[i].kw))
        goto out;
      if(nums[i].code == OP_MULTIPLE && !(v->u.num > 0)) {
        cerr(c, v, "\"multipleOf\" must be greater than 0");
        goto out;
      }
      struct op *o = op_add(c, &l, nums[i].code, nums[i].kw, T_NUMBER);
      if(!o)
        goto out;
      o->u.num = v->u.num;
    }
    static const struct {
      const char *kw;
      int code;
      unsigned itype;
    } counts[] = { { "minLength", OP_MINLEN, T_STR }, { "maxLength", OP_MAXLEN, T_STR },
                   { "minItems", OP_MINITEMS, T_ARR }, { "maxItems", OP_MAXITEMS, T_ARR },
                   { "minProperties", OP_MINPROPS, T_OBJ }, { "maxProperties", OP_MAXPROPS, T_OBJ } };
    for(size_t i = 0; i < OC_ARRAY_LEN(counts); i++) {
      if(!(v = jget(jv, counts[i].kw)))
        continue;
      if(!need_count(c, v, counts[i].kw))
        goto out;
      struct op *o = op_add(c, &l, counts[i].code, counts[i].kw, counts[i].itype);
      if(!o)
        goto out;
      o->u.count = v->u.num > 4e18 ? (size_t)4e18 : (size_t)v->u.num;
    }
    if((v = jget(jv, "pattern"))) {
      if(v->type != OC_JSTRING) {
        cerr(c, v, "\"pattern\" must be a string");
        goto out;
      }
      struct oc_regex *re;
      if(add_regex(c, v, v->u.str, v->len, &re))
        goto out;
      struct op *o = op_add(c, &l, OP_PATTERN, "pattern", T_STR);
      if(!o)
        goto out;
      o->u.re = re;
    }
    if((v = jget(jv, "uniqueItems"))) {
      if(v->type != OC_JTRUE && v->type != OC_JFALSE) {
        cerr(c, v, "\"uniqueItems\" must be a boolean");
        goto out;
      }
      if(v->type == OC_JTRUE && !op_add(c, &l, OP_UNIQUE, "uniqueItems", T_ARR))
        goto out;
    }
    if((v = jget(jv, "required"))) {
      struct jstr *names;
      size_t n;
      if(copy_strs(c, v, "required", &names, &n))
        goto out;
      if(n) {
        struct op *o = op_add(c, &l, OP_REQUIRED, "required", T_OBJ);
        if(!o)
          goto out;
        o->u.req.names = names;
        o->u.req.n = n;
      }
    }
    const struct oc_jv *dr = d7 ? jget(jv, "dependencies") : jget(jv, "dependentRequired");
    if(dr) {
      if(dr->type != OC_JOBJECT) {
        cerr(c, dr, "\"%s\" must be an object", d7 ? "dependencies" : "dependentRequired");
        goto out;
      }
      struct depreq *ds = arena_alloc(a, sizeof(*ds) * (dr->len ? dr->len : 1));
      size_t nd = 0;
      if(!ds) {
        oom(c);
        goto out;
      }
      for(uint32_t i = 0; i < dr->len; i++) {
        const struct oc_jmember *m = &dr->u.members[i];
        if(d7 && m->value.type != OC_JARRAY)
          continue; /* a schema dependency: compiled below */
        ds[nd].name.s = arena_strndup(a, m->key, m->key_len);
        ds[nd].name.len = m->key_len;
        if(!ds[nd].name.s) {
          oom(c);
          goto out;
        }
        if(copy_strs(c, &m->value, d7 ? "dependencies" : "dependentRequired", &ds[nd].req, &ds[nd].n))
          goto out;
        nd++;
      }
      if(nd) {
        struct op *o = op_add(c, &l, OP_DEPREQ, d7 ? "dependencies" : "dependentRequired", T_OBJ);
        if(!o)
          goto out;
        o->u.dreq.d = ds;
        o->u.dreq.n = nd;
      }
    }
  }
  /* ---- format */
  if((v = jget(jv, "format")) && (voc & (V_FMT_ANNOT | V_FMT_ASSERT))) {
    if(v->type != OC_JSTRING) {
      cerr(c, v, "\"format\" must be a string");
      goto out;
    }
    int f = format_id(v->u.str);
    if(f != F_NONE && ((c->flags & OC_SCHEMA_FORMAT_ASSERT) || (voc & V_FMT_ASSERT))) {
      struct op *o = op_add(c, &l, OP_FORMAT, "format", T_STR);
      if(!o)
        goto out;
      o->u.format = f;
    }
  }
  /* ---- applicators */
  if(voc & V_APPL) {
    if(compile_props(c, &l, jv, r))
      goto out;
    if((v = jget(jv, "propertyNames"))) {
      struct sub s;
      if(compile_sub(c, v, r, "/propertyNames", &s))
        goto out;
      struct op *o = op_add(c, &l, OP_PROPNAMES, "propertyNames", T_OBJ);
      if(!o)
        goto out;
      o->u.one = s;
    }
    const struct oc_jv *ds = d7 ? jget(jv, "dependencies") : jget(jv, "dependentSchemas");
    if(ds && ds->type == OC_JOBJECT) {
      struct depsch *dd = arena_alloc(a, sizeof(*dd) * (ds->len ? ds->len : 1));
      size_t nd = 0;
      if(!dd) {
        oom(c);
        goto out;
      }
      for(uint32_t i = 0; i < ds->len; i++) {
        const struct oc_jmember *m = &ds->u.members[i];
        if(d7 && m->value.type == OC_JARRAY)
          continue;
        dd[nd].name.s = arena_strndup(a, m->key, m->key_len);
        dd[nd].name.len = m->key_len;
        if(!dd[nd].name.s) {
          oom(c);
          goto out;
        }
        if(compile_sub_named(c, &m->value, r, d7 ? "dependencies" : "dependentSchemas", m->key,
                             m->key_len, &dd[nd].s))
          goto out;
        nd++;
      }
      if(nd) {
        struct op *o = op_add(c, &l, OP_DEPSCHEMAS, d7 ? "dependencies" : "dependentSchemas", T_OBJ);
        if(!o)
          goto out;
        o->u.dsch.d = dd;
        o->u.dsch.n = nd;
      }
    }
    else if(ds) {
      cerr(c, ds, "\"dependentSchemas\" must be an object of schemas");
      goto out;
    }
    /* items */
    const struct oc_jv *prefix = d7 ? NULL : jget(jv, "prefixItems");
    const struct oc_jv *rest = d7 ? NULL : jget(jv, "items");
    if(d7) {
      const struct oc_jv *it = jget(jv, "items");
      if(it && it->type == OC_JARRAY) {
        prefix = it;
        rest = jget(jv, "additionalItems");
      }
      else
        rest = it;
    }
    if(prefix || rest) {
      struct sub *ps = NULL;
      struct sub rs = { NULL, NULL };
      const char *pkw = d7 ? "items" : "prefixItems";
      const char *rkw = d7 && prefix ? "additionalItems" : "items";
      if(prefix) {
        if(prefix->type != OC_JARRAY || (!d7 && prefix->len == 0)) {
          cerr(c, prefix, "\"%s\" must be a non-empty array of schemas", pkw);
          goto out;
        }
        ps = arena_alloc(a, sizeof(*ps) * (prefix->len ? prefix->len : 1));
        if(!ps) {
          oom(c);
          goto out;
        }
        for(uint32_t i = 0; i < prefix->len; i++)
          if(compile_sub_idx(c, &prefix->u.items[i], r, pkw, i, &ps[i]))
            goto out;
      }
      if(rest) {
        if(!d7 && rest->type == OC_JARRAY) {
          cerr(c, rest, "\"items\" must be a schema in draft 2020-12 (an array of schemas is "
                        "\"prefixItems\")");
          goto out;
        }
        char seg[32];
        snprintf(seg, sizeof(seg), "/%s", rkw);
        if(compile_sub(c, rest, r, seg, &rs))
          goto out;
      }
      struct op *o = op_add(c, &l, OP_ITEMS, prefix ? pkw : rkw, T_ARR);
      if(!o)
        goto out;
      o->u.items.prefix = ps;
      o->u.items.nprefix = prefix ? prefix->len : 0;
      o->u.items.rest = rs;
      o->u.items.prefix_kw = pkw;
      o->u.items.rest_kw = rkw;
    }
    if((v = jget(jv, "contains"))) {
      struct sub s;
      if(compile_sub(c, v, r, "/contains", &s))
        goto out;
      size_t min = 1, max = 0;
      int has_max = 0;
      const struct oc_jv *mn = d7 ? NULL : jget(jv, "minContains");
      const struct oc_jv *mx = d7 ? NULL : jget(jv, "maxContains");
      if(mn && (voc & V_VALID)) {
        if(!need_count(c, mn, "minContains"))
          goto out;
        min = mn->u.num > 4e18 ? (size_t)4e18 : (size_t)mn->u.num;
      }
      if(mx && (voc & V_VALID)) {
        if(!need_count(c, mx, "maxContains"))
          goto out;
        max = mx->u.num > 4e18 ? (size_t)4e18 : (size_t)mx->u.num;
        has_max = 1;
      }
      struct op *o = op_add(c, &l, OP_CONTAINS, "contains", T_ARR);
      if(!o)
        goto out;
      o->u.contains.s = s;
      o->u.contains.min = min;
      o->u.contains.max = max;
      o->u.contains.has_max = has_max;
    }
    if(compile_list(c, &l, jv, r, "allOf", OP_ALLOF, 0) ||
       compile_list(c, &l, jv, r, "anyOf", OP_ANYOF, 0) ||
       compile_list(c, &l, jv, r, "oneOf", OP_ONEOF, 0))
      goto out;
    if((v = jget(jv, "not"))) {
      struct sub s;
      if(compile_sub(c, v, r, "/not", &s))
        goto out;
      struct op *o = op_add(c, &l, OP_NOT, "not", 0);
      if(!o)
        goto out;
      o->u.one = s;
    }
    if((v = jget(jv, "if"))) {
      struct sub is = { NULL, NULL }, ts = { NULL, NULL }, es = { NULL, NULL };
      const struct oc_jv *tv = jget(jv, "then"), *ev = jget(jv, "else");
      if(compile_sub(c, v, r, "/if", &is) || (tv && compile_sub(c, tv, r, "/then", &ts)) ||
         (ev && compile_sub(c, ev, r, "/else", &es)))
        goto out;
      /* kept even without then/else: its annotations count for unevaluated* */
      struct op *o = op_add(c, &l, OP_IF, "if", 0);
      if(!o)
        goto out;
      o->u.cond.ifs = is;
      o->u.cond.thens = ts;
      o->u.cond.elses = es;
    }
  }
  /* ---- references (core) */
  if(compile_ref(c, &l, jv, r, "$ref"))
    goto out;
  if(!d7 && compile_ref(c, &l, jv, r, "$dynamicRef"))
    goto out;
  /* ---- unevaluated, always last: they read what everything else did */
  if(!d7 && (voc & V_UNEVAL)) {
    if((v = jget(jv, "unevaluatedItems"))) {
      struct sub s;
      if(compile_sub(c, v, r, "/unevaluatedItems", &s))
        goto out;
      struct op *o = op_add(c, &l, OP_UNEVAL_ITEMS, "unevaluatedItems", T_ARR);
      if(!o)
        goto out;
      o->u.one = s;
      node->uneval_items = 1;
    }
    if((v = jget(jv, "unevaluatedProperties"))) {
      struct sub s;
      if(compile_sub(c, v, r, "/unevaluatedProperties", &s))
        goto out;
      struct op *o = op_add(c, &l, OP_UNEVAL_PROPS, "unevaluatedProperties", T_OBJ);
      if(!o)
        goto out;
      o->u.one = s;
      node->uneval_props = 1;
    }
  }
done:
  if(l.n > UINT16_MAX) {
    cerr(c, jv, "too many keywords");
    goto out;
  }
  if(l.n) {
    struct op *ops = arena_alloc(a, sizeof(*ops) * l.n);
    if(!ops) {
      oom(c);
      goto out;
    }
    memcpy(ops, l.ops, sizeof(*ops) * l.n);
    node->ops = ops;
    node->nops = (uint16_t)l.n;
  }
  rc = OC_OK;
out:
  free(l.ops);
  return rc;
}

static void compiler_free(struct compiler *c)
{
  struct res *r = c->resources;
  while(r) {
    struct res *n = r->next;
    for(size_t i = 0; i < r->nanchors; i++)
      free(r->anchors[i].name);
    free(r->anchors);
    free(r->uri);
    free(r);
    r = n;
  }
  pmap_free(&c->scanned);
  pmap_free(&c->nodes);
  oc_buf_free(&c->path);
}

void oc_schema_free(struct oc_schema *s)
{
  if(!s)
    return;
  for(size_t i = 0; i < s->nregex; i++)
    oc_regex_free(s->regexes[i]);
  free(s->regexes);
  arena_free(&s->arena);
  free(s);
}

static struct oc_schema *compile_common(struct oc_schema_registry *reg, const struct oc_jv *root,
                                        const char *uri, unsigned flags, int *rc, char *err,
                                        size_t errlen)
{
  *rc = OC_ENOMEM;
  struct compiler c;
  memset(&c, 0, sizeof(c));
  c.reg = reg;
  c.flags = flags;
  c.err = err;
  c.errlen = errlen;
  oc_buf_init(&c.path, OC_CAP_SCHEMA_PATH);
  if(errlen)
    err[0] = '\0';
  c.s = calloc(1, sizeof(*c.s));
  if(!c.s) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  c.s->flags = flags;
  int dialect = (flags & OC_SCHEMA_DRAFT7) ? D_7 : D_2020;
  const struct oc_jv *target = root;
  struct res *tr = NULL;
  if(root) {
    tr = scan_doc(&c, root, uri ? uri : DEFAULT_BASE, dialect, V_ALL);
  }
  else {
    /* compile_uri: resolve uri as a reference from nowhere */
    struct res dummy;
    memset(&dummy, 0, sizeof(dummy));
    dummy.uri = (char *)DEFAULT_BASE;
    dummy.dialect = dialect;
    dummy.vocab = V_ALL;
    target = resolve(&c, NULL, &dummy, uri, &tr, NULL);
  }
  if(target && tr && !c.failed)
    c.s->root = compile(&c, target, tr);
  if(!c.s->root || c.failed) {
    if(!c.failed)
      snprintf(err, errlen, "schema cannot be compiled");
    oc_schema_free(c.s);
    c.s = NULL;
  }
  *rc = c.s ? OC_OK : c.nomem ? OC_ENOMEM : OC_EPARSE;
  struct oc_schema *s = c.s;
  compiler_free(&c);
  return s;
}

static struct oc_schema *compile_jv_rc(struct oc_schema_registry *r, const struct oc_jv *schema,
                                       const char *base_uri, unsigned flags, int *rc, char *err,
                                       size_t errlen)
{
  char *base = base_uri ? normalize_uri(base_uri) : NULL;
  struct oc_schema *s = base_uri && !base ? NULL : compile_common(r, schema, base, flags, rc, err, errlen);
  if(base_uri && !base) {
    *rc = OC_ENOMEM;
    snprintf(err, errlen, "out of memory");
  }
  free(base);
  return s;
}

struct oc_schema *oc_schema_compile_jv(struct oc_schema_registry *r, const struct oc_jv *schema,
                                       const char *base_uri, unsigned flags, char *err,
                                       size_t errlen)
{
  int rc;
  return compile_jv_rc(r, schema, base_uri, flags, &rc, err, errlen);
}

int oc_schema_compile_rc(struct oc_schema_registry *r, const cJSON *schema, const char *base_uri,
                         unsigned flags, struct oc_schema **out, char *err, size_t errlen)
{
  struct oc_jdoc d;
  oc_jdoc_init(&d);
  *out = NULL;
  int rc = schema ? oc_jdoc_from_cjson(&d, schema) : OC_EPARSE;
  if(rc || !d.root) {
    oc_jdoc_free(&d);
    snprintf(err, errlen, "schema cannot be read (%s)", rc == OC_ENOMEM ? "out of memory" : "not JSON");
    return rc == OC_ENOMEM ? OC_ENOMEM : OC_EPARSE;
  }
  *out = compile_jv_rc(r, d.root, base_uri, flags, &rc, err, errlen);
  oc_jdoc_free(&d);
  return rc;
}

struct oc_schema *oc_schema_compile(struct oc_schema_registry *r, const cJSON *schema,
                                    const char *base_uri, unsigned flags, char *err,
                                    size_t errlen)
{
  struct oc_schema *s;
  oc_schema_compile_rc(r, schema, base_uri, flags, &s, err, errlen);
  return s;
}

struct oc_schema *oc_schema_compile_uri(struct oc_schema_registry *r, const char *uri,
                                        unsigned flags, char *err, size_t errlen)
{
  int rc;
  return compile_common(r, NULL, uri, flags, &rc, err, errlen);
}

/* ======================================================================
 * Formats (assertions only with OC_SCHEMA_FORMAT_ASSERT or the
 * format-assertion vocabulary).
 * ====================================================================== */

static int isdig(char c)
{
  return c >= '0' && c <= '9';
}

static int isalpha_(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int ishex(char c)
{
  return isdig(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int digits(const char *s, size_t n, int *out)
{
  int v = 0;
  for(size_t i = 0; i < n; i++) {
    if(!isdig(s[i]))
      return 0;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return 1;
}

static int fmt_date(const char *s, size_t n)
{
  int y, m, d;
  if(n != 10 || s[4] != '-' || s[7] != '-' || !digits(s, 4, &y) || !digits(s + 5, 2, &m) ||
     !digits(s + 8, 2, &d))
    return 0;
  static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
  if(m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
    return 0;
  if(m == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
    return 0;
  return 1;
}

static int fmt_time(const char *s, size_t n)
{
  int h, mi, se, oh = 0, om = 0;
  if(n < 9 || s[2] != ':' || s[5] != ':' || !digits(s, 2, &h) || !digits(s + 3, 2, &mi) ||
     !digits(s + 6, 2, &se))
    return 0;
  size_t i = 8;
  if(i < n && s[i] == '.') {
    i++;
    size_t st = i;
    while(i < n && isdig(s[i]))
      i++;
    if(i == st)
      return 0;
  }
  if(i >= n)
    return 0;
  int sign = 0;
  if((s[i] == 'Z' || s[i] == 'z') && i + 1 == n)
    ;
  else if((s[i] == '+' || s[i] == '-') && n - i == 6 && s[i + 3] == ':' && digits(s + i + 1, 2, &oh) &&
          digits(s + i + 4, 2, &om)) {
    sign = s[i] == '+' ? 1 : -1;
    if(oh > 23 || om > 59)
      return 0;
  }
  else
    return 0;
  if(h > 23 || mi > 59 || se > 60)
    return 0;
  if(se == 60) {
    int utc = (h * 60 + mi - sign * (oh * 60 + om)) % 1440;
    if(utc < 0)
      utc += 1440;
    if(utc != 23 * 60 + 59)
      return 0;
  }
  return 1;
}

static int fmt_date_time(const char *s, size_t n)
{
  return n > 11 && (s[10] == 'T' || s[10] == 't') && fmt_date(s, 10) && fmt_time(s + 11, n - 11);
}

static int fmt_duration(const char *s, size_t n)
{
  if(n < 2 || s[0] != 'P')
    return 0;
  size_t i = 1;
  const char *date_units = "YMD", *time_units = "HMS";
  int in_time = 0, any = 0, last = -1, weeks = 0;
  while(i < n) {
    if(s[i] == 'T') {
      if(in_time)
        return 0;
      in_time = 1;
      last = -1;
      i++;
      if(i >= n)
        return 0;
      continue;
    }
    size_t st = i;
    while(i < n && isdig(s[i]))
      i++;
    if(i == st || i >= n)
      return 0;
    char u = s[i++];
    if(u == 'W') {
      if(in_time || any)
        return 0;
      weeks = 1;
      any = 1;
      continue;
    }
    if(weeks)
      return 0;
    const char *units = in_time ? time_units : date_units;
    const char *p = strchr(units, u);
    /* units come in order and without gaps: P1Y2D and PT1H2S are invalid */
    if(!p || (last >= 0 && (int)(p - units) != last + 1))
      return 0;
    last = (int)(p - units);
    any = 1;
  }
  if(!any)
    return 0;
  /* "P1YT" was rejected above; a 'T' must be followed by a time unit */
  return s[n - 1] != 'T';
}

static int fmt_ipv4(const char *s, size_t n)
{
  int parts = 0;
  size_t i = 0;
  while(parts < 4) {
    size_t st = i;
    int v = 0;
    while(i < n && isdig(s[i]) && i - st < 4)
      v = v * 10 + (s[i++] - '0');
    size_t len = i - st;
    if(len == 0 || len > 3 || v > 255 || (len > 1 && s[st] == '0'))
      return 0;
    parts++;
    if(parts < 4) {
      if(i >= n || s[i] != '.')
        return 0;
      i++;
    }
  }
  return i == n;
}

static int fmt_ipv6(const char *s, size_t n)
{
  int groups = 0, dbl = 0;
  size_t i = 0;
  if(n < 2)
    return 0;
  if(s[0] == ':') {
    if(s[1] != ':')
      return 0;
    dbl = 1;
    i = 2;
    if(i == n)
      return 1;
  }
  while(i < n) {
    size_t st = i;
    while(i < n && ishex(s[i]) && i - st < 5)
      i++;
    size_t len = i - st;
    if(i < n && s[i] == '.') { /* embedded IPv4 as the last 32 bits */
      if(!fmt_ipv4(s + st, n - st))
        return 0;
      groups += 2;
      i = n;
      break;
    }
    if(len == 0 || len > 4)
      return 0;
    groups++;
    if(i == n)
      break;
    if(s[i] != ':')
      return 0;
    i++;
    if(i < n && s[i] == ':') {
      if(dbl)
        return 0;
      dbl = 1;
      i++;
      if(i == n)
        break;
    }
    else if(i == n)
      return 0;
  }
  return dbl ? groups <= 7 : groups == 8;
}

static int hostname_label_ok(const char *s, size_t n)
{
  if(n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
    return 0;
  for(size_t i = 0; i < n; i++)
    if(!(isalpha_(s[i]) || isdig(s[i]) || s[i] == '-'))
      return 0;
  /* "--" in positions 3 and 4 is reserved for A-labels ("xn--") */
  if(n >= 4 && s[2] == '-' && s[3] == '-' && !((s[0] | 32) == 'x' && (s[1] | 32) == 'n'))
    return 0;
  return 1;
}

static int fmt_hostname(const char *s, size_t n)
{
  if(n == 0 || n > 253)
    return 0;
  size_t st = 0;
  for(size_t i = 0; i <= n; i++)
    if(i == n || s[i] == '.') {
      if(!hostname_label_ok(s + st, i - st))
        return 0;
      st = i + 1;
    }
  return 1;
}

/* Internationalised hostnames: ASCII labels as above; labels holding
 * non-ASCII are accepted when they are valid UTF-8 without dots or
 * spaces of other scripts.  Full IDNA2008 is not implemented. */
static int fmt_idn_hostname(const char *s, size_t n)
{
  size_t bad;
  if(n == 0 || !oc_utf8_valid((const unsigned char *)s, n, &bad))
    return 0;
  size_t st = 0;
  for(size_t i = 0; i <= n; i++) {
    int dot = i < n && (s[i] == '.' || (i + 2 < n && (unsigned char)s[i] == 0xE3 &&
                                        (unsigned char)s[i + 1] == 0x80 && (unsigned char)s[i + 2] == 0x82));
    if(i == n || dot) {
      size_t len = i - st;
      int ascii = 1;
      for(size_t k = st; k < i; k++)
        if((unsigned char)s[k] >= 0x80)
          ascii = 0;
      if(ascii ? !hostname_label_ok(s + st, len) : (len == 0 || s[st] == '-' || s[i - 1] == '-'))
        return 0;
      if(dot && (unsigned char)s[i] == 0xE3)
        i += 2;
      st = i + 1;
    }
  }
  return 1;
}

static int fmt_email(const char *s, size_t n, int idn)
{
  const char *at = NULL;
  size_t i = 0;
  if(n && s[0] == '"') { /* quoted local part */
    for(i = 1; i < n && s[i] != '"'; i++)
      if(s[i] == '\\')
        i++;
    if(i >= n)
      return 0;
    i++;
    if(i >= n || s[i] != '@')
      return 0;
    at = s + i;
  }
  else {
    for(i = 0; i < n; i++) {
      char ch = s[i];
      if(ch == '@') {
        at = s + i;
        break;
      }
      if(!(isalpha_(ch) || isdig(ch) || strchr("!#$%&'*+-/=?^_`{|}~.", ch) || (idn && (unsigned char)ch >= 0x80)))
        return 0;
      if(ch == '.' && (i == 0 || s[i - 1] == '.'))
        return 0;
    }
    if(!at || i == 0 || s[i - 1] == '.')
      return 0;
  }
  const char *dom = at + 1;
  size_t dn = n - (size_t)(dom - s);
  if(dn >= 2 && dom[0] == '[' && dom[dn - 1] == ']') {
    if(dn > 7 && strncmp(dom + 1, "IPv6:", 5) == 0)
      return fmt_ipv6(dom + 6, dn - 7);
    return fmt_ipv4(dom + 1, dn - 2);
  }
  return idn ? fmt_idn_hostname(dom, dn) : fmt_hostname(dom, dn);
}

static int fmt_uuid(const char *s, size_t n)
{
  if(n != 36)
    return 0;
  for(size_t i = 0; i < n; i++) {
    if(i == 8 || i == 13 || i == 18 || i == 23) {
      if(s[i] != '-')
        return 0;
    }
    else if(!ishex(s[i]))
      return 0;
  }
  return 1;
}

static int fmt_json_pointer(const char *s, size_t n)
{
  if(n && s[0] != '/')
    return 0;
  for(size_t i = 0; i < n; i++)
    if(s[i] == '~' && (i + 1 >= n || (s[i + 1] != '0' && s[i + 1] != '1')))
      return 0;
  return 1;
}

static int fmt_rel_json_pointer(const char *s, size_t n)
{
  size_t i = 0;
  while(i < n && isdig(s[i]))
    i++;
  if(i == 0 || (i > 1 && s[0] == '0'))
    return 0;
  if(i < n && (s[i] == '+' || s[i] == '-')) { /* index manipulation */
    size_t st = ++i;
    while(i < n && isdig(s[i]))
      i++;
    if(i == st || (i - st > 1 && s[st] == '0'))
      return 0;
  }
  if(i == n)
    return 1;
  if(s[i] == '#')
    return i + 1 == n;
  return fmt_json_pointer(s + i, n - i);
}

/* RFC 3986 (iri: RFC 3987, any non-ASCII allowed where unreserved is). */
static int uri_chars_ok(const char *s, size_t n, const char *extra, int iri)
{
  for(size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)s[i];
    if(ch == '%') {
      if(i + 2 >= n + 0 || !ishex(s[i + 1]) || !ishex(s[i + 2]))
        return 0;
      i += 2;
      continue;
    }
    if(ch >= 0x80) {
      if(!iri)
        return 0;
      continue;
    }
    if(isalpha_((char)ch) || isdig((char)ch) || strchr("-._~!$&'()*+,;=", ch) || (ch && strchr(extra, ch)))
      continue;
    return 0;
  }
  return 1;
}

static int fmt_uri_ref(const char *s, size_t n, int absolute, int iri)
{
  if(memchr(s, '\0', n))
    return 0;
  struct uparts u;
  uri_split(s, &u);
  if(absolute && !u.has_scheme)
    return 0;
  if(u.has_scheme && !isalpha_(u.scheme[0]))
    return 0;
  if(u.has_auth) {
    /* userinfo@host:port; an IP literal in brackets */
    const char *a = u.auth, *end = u.auth + u.auth_len;
    const char *atp = memchr(a, '@', u.auth_len);
    if(atp) {
      if(!uri_chars_ok(a, (size_t)(atp - a), ":", iri))
        return 0;
      a = atp + 1;
    }
    if(a < end && *a == '[') {
      const char *rb = memchr(a, ']', (size_t)(end - a));
      if(!rb)
        return 0;
      const char *lit = a + 1;
      size_t ll = (size_t)(rb - lit);
      if(ll > 2 && (lit[0] == 'v' || lit[0] == 'V')) { /* IPvFuture */
        size_t k = 1;
        while(k < ll && ishex(lit[k]))
          k++;
        if(k == 1 || k >= ll - 1 || lit[k] != '.' || !uri_chars_ok(lit + k + 1, ll - k - 1, ":", 0))
          return 0;
      }
      else if(!fmt_ipv6(lit, ll))
        return 0;
      a = rb + 1;
    }
    else {
      const char *colon = memchr(a, ':', (size_t)(end - a));
      const char *hend = colon ? colon : end;
      if(!uri_chars_ok(a, (size_t)(hend - a), "", iri))
        return 0;
      a = hend;
    }
    if(a < end) {
      if(*a != ':')
        return 0;
      for(a++; a < end; a++)
        if(!isdig(*a))
          return 0;
    }
  }
  if(!uri_chars_ok(u.path, u.path_len, ":@/", iri))
    return 0;
  if(!u.has_scheme && !u.has_auth) {
    /* a relative path's first segment may not hold ':' */
    const char *slash = memchr(u.path, '/', u.path_len);
    const char *colon = memchr(u.path, ':', u.path_len);
    if(colon && (!slash || colon < slash))
      return 0;
  }
  if(u.has_query && !uri_chars_ok(u.query, u.query_len, ":@/?", iri))
    return 0;
  if(u.has_frag && !uri_chars_ok(u.frag, u.frag_len, ":@/?", iri))
    return 0;
  return 1;
}

/* RFC 6570 level 4. */
static int fmt_uri_template(const char *s, size_t n)
{
  size_t i = 0;
  while(i < n) {
    unsigned char ch = (unsigned char)s[i];
    if(ch == '%') {
      if(i + 2 >= n || !ishex(s[i + 1]) || !ishex(s[i + 2]))
        return 0;
      i += 3;
      continue;
    }
    if(ch != '{') {
      if(!(ch == 0x21 || ch == 0x23 || ch == 0x24 || ch == 0x26 || ch == 0x27 || (ch >= 0x28 && ch <= 0x3B) ||
           ch == 0x3D || (ch >= 0x3F && ch <= 0x5B) || ch == 0x5D || ch == 0x5F ||
           (ch >= 0x61 && ch <= 0x7A) || ch == 0x7E || ch >= 0x80))
        return 0;
      i++;
      continue;
    }
    i++;
    if(i < n && strchr("+#./;?&=,!@|", s[i]))
      i++;
    for(;;) { /* varspec */
      size_t st = i;
      int need_char = 1;
      while(i < n) {
        if(s[i] == '%') {
          if(i + 2 >= n || !ishex(s[i + 1]) || !ishex(s[i + 2]))
            return 0;
          i += 3;
          need_char = 0;
        }
        else if(isalpha_(s[i]) || isdig(s[i]) || s[i] == '_') {
          i++;
          need_char = 0;
        }
        else if(s[i] == '.' && !need_char) {
          i++;
          need_char = 1;
        }
        else
          break;
      }
      if(i == st || need_char)
        return 0;
      if(i < n && s[i] == ':') {
        size_t ds = ++i;
        while(i < n && isdig(s[i]))
          i++;
        if(i == ds || i - ds > 4 || s[ds] == '0')
          return 0;
      }
      else if(i < n && s[i] == '*')
        i++;
      if(i < n && s[i] == ',') {
        i++;
        continue;
      }
      break;
    }
    if(i >= n || s[i] != '}')
      return 0;
    i++;
  }
  return 1;
}

static int check_format(int f, const char *s, size_t n)
{
  switch(f) {
  case F_DATE_TIME: return fmt_date_time(s, n);
  case F_DATE: return fmt_date(s, n);
  case F_TIME: return fmt_time(s, n);
  case F_DURATION: return fmt_duration(s, n);
  case F_EMAIL: return fmt_email(s, n, 0);
  case F_IDN_EMAIL: return fmt_email(s, n, 1);
  case F_HOSTNAME: return fmt_hostname(s, n);
  case F_IDN_HOSTNAME: return fmt_idn_hostname(s, n);
  case F_IPV4: return fmt_ipv4(s, n);
  case F_IPV6: return fmt_ipv6(s, n);
  case F_URI: return fmt_uri_ref(s, n, 1, 0);
  case F_URI_REF: return fmt_uri_ref(s, n, 0, 0);
  case F_IRI: return fmt_uri_ref(s, n, 1, 1);
  case F_IRI_REF: return fmt_uri_ref(s, n, 0, 1);
  case F_URI_TEMPLATE: return fmt_uri_template(s, n);
  case F_UUID: return fmt_uuid(s, n);
  case F_REGEX: return oc_regex_valid(s, n);
  case F_JSON_POINTER: return fmt_json_pointer(s, n);
  case F_REL_JSON_POINTER: return fmt_rel_json_pointer(s, n);
  default: return 1;
  }
}

static const char *format_name(int f)
{
  static const char *const names[] = {
    "", "date-time", "date", "time", "duration", "email", "idn-email", "hostname",
    "idn-hostname", "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference",
    "uri-template", "uuid", "regex", "json-pointer", "relative-json-pointer",
  };
  return f >= 0 && (size_t)f < OC_ARRAY_LEN(names) ? names[f] : "format";
}

/* ======================================================================
 * Validation.
 * ====================================================================== */

/* A remembered verdict of a subschema at a value. */
struct memo {
  const void *n, *v;
  int ok;
};

/* The evaluations in progress, innermost last: the same subschema at the
 * same value twice among them is a recursion that consumes nothing. */
struct frame {
  const void *n, *v;
};

struct vctx {
  const struct oc_schema *s;
  struct oc_schema_result *res; /* NULL: fast path */
  int quiet;                    /* >0: inside a trial (anyOf branch, not, if, contains) */
  int full;                     /* the result is at its cap: stop soon */
  int depth;
  int rc;                       /* internal failure (OC_E*); OC_ETOOBIG: undecided */
  char why[320];                /* what left the validation undecided */
  uint64_t evals;               /* against OC_SCHEMA_EVAL_BUDGET */
  int reasons;                  /* first_reason nesting */
  struct memo *memo;
  size_t nmemo, capmemo;
  struct frame stack[OC_SCHEMA_EVAL_DEPTH + 1];
  struct oc_buf ip, sp;         /* instance path, keyword location */
  const struct cres **dyn;
  size_t ndyn, capdyn;
  const struct cres *dyn_inl[32];
  struct oc_regex_scratch *rx;
};

static size_t res_max(const struct oc_schema_result *r)
{
  return r->max ? r->max : OC_SCHEMA_MAX_ERRORS;
}

#define TRACK(c) ((c)->res && !(c)->quiet)
/* May stop at the first failure: nobody is collecting messages, or no
 * more can be kept. */
#define FAST(c) (!(c)->res || (c)->quiet || (c)->full)

static void path_pop(struct oc_buf *b, size_t mark)
{
  b->len = mark;
  if(b->data)
    b->data[mark] = '\0';
}

/* Out of memory wins over undecided: an undecided validation still hands
 * back its reason and the errors it recorded, and a failure after that
 * point would leave them short without saying so. */
static void fail_nomem(struct vctx *c)
{
  c->rc = OC_ENOMEM;
}

/* oacheck's own limit stopped the validation: it is undecided, an error of
 * the validation and not a verdict on the instance. */
static void undecided(struct vctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void undecided(struct vctx *c, const char *fmt, ...)
{
  if(c->rc)
    return;
  c->rc = OC_ETOOBIG;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->why, sizeof(c->why), fmt, ap);
  va_end(ap);
}

static size_t memo_slot(const struct vctx *c, const void *n, const void *v)
{
  uintptr_t h = ((uintptr_t)n >> 4) * 0x9E3779B97F4A7C15ull ^ ((uintptr_t)v >> 3) * 0xC2B2AE3D27D4EB4Full;
  return (size_t)(h ^ (h >> 29)) & (c->capmemo - 1);
}

/* The remembered verdict of n at v: 0 or 1, -1 when not known. */
static int memo_get(const struct vctx *c, const void *n, const void *v)
{
  if(!c->nmemo)
    return -1;
  for(size_t i = memo_slot(c, n, v);; i = (i + 1) & (c->capmemo - 1)) {
    if(!c->memo[i].n)
      return -1;
    if(c->memo[i].n == n && c->memo[i].v == v)
      return c->memo[i].ok;
  }
}

static void memo_put(struct vctx *c, const void *n, const void *v, int ok)
{
  if(c->nmemo + 1 > c->capmemo / 2) {
    /* checksrc: a hash table's power-of-two size, bounded just below */
    size_t cap = c->capmemo ? c->capmemo * 2 : 4096;
    if(cap > 2 * OC_SCHEMA_MEMO_MAX)
      return; /* full: evaluate, as before */
    struct memo *m = calloc(cap, sizeof(*m)), *old = c->memo;
    if(!m)
      return; /* the memo is an optimisation: go without */
    size_t oldcap = c->capmemo;
    c->memo = m;
    c->capmemo = cap;
    for(size_t i = 0; i < oldcap; i++)
      if(old[i].n) {
        size_t j = memo_slot(c, old[i].n, old[i].v);
        while(m[j].n)
          j = (j + 1) & (cap - 1);
        m[j] = old[i];
      }
    free(old);
  }
  size_t i = memo_slot(c, n, v);
  while(c->memo[i].n) {
    if(c->memo[i].n == n && c->memo[i].v == v)
      return;
    i = (i + 1) & (c->capmemo - 1);
  }
  c->memo[i].n = n;
  c->memo[i].v = v;
  c->memo[i].ok = ok;
  c->nmemo++;
}

/* Record one failure at the current instance location (plus iextra, a
 * member or index below it, when not NULL) for op's keyword. */
static void report(struct vctx *c, const char *kw, const char *seg, const struct oc_jv *at,
                   const char *ikey, size_t iklen, long iidx, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 9, 10)));

static void report(struct vctx *c, const char *kw, const char *seg, const struct oc_jv *at,
                   const char *ikey, size_t iklen, long iidx, size_t offset, const char *fmt, ...)
{
  if(!TRACK(c))
    return;
  struct oc_schema_result *r = c->res;
  if(r->count >= res_max(r)) {
    r->dropped++;
    c->full = 1;
    return;
  }
  if(!r->errors) {
    r->errors = calloc(res_max(r), sizeof(*r->errors));
    if(!r->errors) {
      fail_nomem(c);
      return;
    }
  }
  struct oc_schema_error *e = &r->errors[r->count];
  struct oc_buf ip, sp, msg;
  oc_buf_init(&ip, OC_CAP_SCHEMA_PATH);
  oc_buf_init(&sp, OC_CAP_SCHEMA_PATH);
  oc_buf_init(&msg, OC_CAP_MESSAGE);
  int rc = oc_buf_add(&ip, oc_buf_str(&c->ip), c->ip.len);
  if(!rc && ikey)
    rc = add_ptr_token(&ip, ikey, iklen);
  else if(!rc && iidx >= 0)
    rc = oc_buf_printf(&ip, "/%ld", iidx);
  if(!rc)
    rc = oc_buf_add(&sp, oc_buf_str(&c->sp), c->sp.len);
  if(!rc && seg)
    rc = oc_buf_adds(&sp, seg);
  va_list ap;
  va_start(ap, fmt);
  int mrc = oc_buf_vprintf(&msg, fmt, ap);
  va_end(ap);
  if(mrc == OC_ETOOBIG) { /* a message is cut, never lost */
    oc_buf_reset(&msg);
    mrc = oc_buf_adds(&msg, "(message too long)");
  }
  if(rc || mrc) {
    oc_buf_free(&ip);
    oc_buf_free(&sp);
    oc_buf_free(&msg);
    fail_nomem(c);
    return;
  }
  e->instance_path = oc_buf_take(&ip, NULL);
  e->schema_path = oc_buf_take(&sp, NULL);
  e->message = oc_buf_take(&msg, NULL);
  e->keyword = kw;
  e->offset = offset ? offset : (at ? at->offset : 0);
  if(!e->instance_path || !e->schema_path || !e->message) {
    free(e->instance_path);
    free(e->schema_path);
    free(e->message);
    fail_nomem(c);
    return;
  }
  r->count++;
}

static inline unsigned jtype_bit(const struct oc_jv *v)
{
  switch(v->type) {
  case OC_JNULL: return T_NULL;
  case OC_JTRUE:
  case OC_JFALSE: return T_BOOL;
  case OC_JNUMBER: return jis_int(v) ? T_INT : T_NUM;
  case OC_JSTRING: return T_STR;
  case OC_JARRAY: return T_ARR;
  default: return T_OBJ;
  }
}

static int eval(struct vctx *c, const struct node *n, const struct oc_jv *v, uint64_t *pb, uint64_t *ib);

/* Bit sets of evaluated members/items for unevaluated*; small ones live on
 * the stack. */
struct bits {
  uint64_t *w;
  size_t nw;
  uint64_t inl[4];
};

static int bits_init(struct vctx *c, struct bits *b, size_t n)
{
  b->nw = (n + 63) / 64;
  if(b->nw <= OC_ARRAY_LEN(b->inl)) {
    b->w = b->inl;
    memset(b->inl, 0, sizeof(b->inl));
    return 1;
  }
  b->w = calloc(b->nw, sizeof(uint64_t));
  if(!b->w) {
    fail_nomem(c);
    return 0;
  }
  return 1;
}

static void bits_free(struct bits *b)
{
  if(b->w != b->inl)
    free(b->w);
}

static void bits_merge(uint64_t *dst, const struct bits *src)
{
  for(size_t i = 0; i < src->nw; i++)
    dst[i] |= src->w[i];
}

#define BIT_SET(w, i) ((w)[(i) >> 6] |= 1ull << ((i) & 63))
#define BIT_GET(w, i) (((w)[(i) >> 6] >> ((i) & 63)) & 1u)

/* Evaluate a subschema at a member or element of v. */
static int eval_key(struct vctx *c, const struct sub *s, const struct oc_jmember *m)
{
  size_t im = c->ip.len, sm = c->sp.len;
  if(TRACK(c)) {
    if(add_ptr_token(&c->ip, m->key, m->key_len) || oc_buf_adds(&c->sp, s->seg))
      fail_nomem(c);
  }
  int ok = eval(c, s->n, &m->value, NULL, NULL);
  path_pop(&c->ip, im);
  path_pop(&c->sp, sm);
  return ok;
}

static int eval_idx(struct vctx *c, const struct sub *s, const struct oc_jv *item, size_t idx)
{
  size_t im = c->ip.len, sm = c->sp.len;
  if(TRACK(c)) {
    if(oc_buf_printf(&c->ip, "/%zu", idx) || oc_buf_adds(&c->sp, s->seg))
      fail_nomem(c);
  }
  int ok = eval(c, s->n, item, NULL, NULL);
  path_pop(&c->ip, im);
  path_pop(&c->sp, sm);
  return ok;
}

/* Evaluate a subschema in place (same instance). */
static int eval_here(struct vctx *c, const struct sub *s, const struct oc_jv *v, uint64_t *pb, uint64_t *ib)
{
  size_t sm = c->sp.len;
  if(TRACK(c) && oc_buf_adds(&c->sp, s->seg))
    fail_nomem(c);
  int ok = eval(c, s->n, v, pb, ib);
  path_pop(&c->sp, sm);
  return ok;
}

/* In place, keeping annotations only when the subschema passes. */
static int eval_trial(struct vctx *c, const struct sub *s, const struct oc_jv *v, uint64_t *pb, uint64_t *ib)
{
  if(!pb && !ib)
    return eval_here(c, s, v, NULL, NULL);
  struct bits tp, ti;
  size_t n = v->type == OC_JOBJECT || v->type == OC_JARRAY ? v->len : 0;
  if(!bits_init(c, &tp, n))
    return 0;
  if(!bits_init(c, &ti, n)) {
    bits_free(&tp);
    return 0;
  }
  int ok = eval_here(c, s, v, pb ? tp.w : NULL, ib ? ti.w : NULL);
  if(ok) {
    if(pb)
      bits_merge(pb, &tp);
    if(ib)
      bits_merge(ib, &ti);
  }
  bits_free(&tp);
  bits_free(&ti);
  return ok;
}

/* Why a subschema failed, in one line: run it again collecting messages. */
static int first_reason(struct vctx *c, const struct sub *s, const struct oc_jv *v, struct oc_buf *out)
{
  /* a reason inside a reason inside a reason is noise, and finding each
   * one walks the branch again: nested anyOfs would make it exponential */
  if(c->reasons >= OC_SCHEMA_REASON_DEPTH)
    return out->len + 8 > OC_CAP_MESSAGE ? OC_OK : oc_buf_adds(out, "(…)");
  struct oc_schema_result tmp;
  oc_schema_result_init(&tmp);
  tmp.max = 1;
  struct oc_schema_result *saved = c->res;
  int saved_quiet = c->quiet, saved_full = c->full;
  size_t ipmark = c->ip.len;
  c->res = &tmp;
  c->quiet = 0;
  c->full = 0;
  c->reasons++;
  eval_here(c, s, v, NULL, NULL);
  c->reasons--;
  c->res = saved;
  c->quiet = saved_quiet;
  c->full = saved_full;
  /* one reason is a part of a message: keep it short enough that several
   * fit under OC_CAP_MESSAGE, cutting on a UTF-8 boundary */
  struct oc_buf why;
  oc_buf_init(&why, OC_CAP_MESSAGE);
  int rc = OC_OK;
  if(tmp.count) {
    const struct oc_schema_error *e = &tmp.errors[0];
    if(strlen(e->instance_path) > ipmark)
      rc = oc_buf_printf(&why, "at %.200s: ", e->instance_path);
    if(!rc)
      rc = oc_buf_adds(&why, e->message);
  }
  else
    rc = oc_buf_adds(&why, "(no reason recorded)");
  oc_schema_result_free(&tmp);
  if(rc == OC_ETOOBIG) {
    oc_buf_reset(&why);
    rc = oc_buf_adds(&why, "(reason too long)");
  }
  if(rc) {
    oc_buf_free(&why);
    return rc;
  }
  size_t n = why.len, max = OC_CAP_MESSAGE / 8;
  if(n > max) {
    n = max;
    while(n > 0 && ((unsigned char)why.data[n] & 0xC0) == 0x80)
      n--;
  }
  rc = out->len + n + 8 > OC_CAP_MESSAGE ? oc_buf_adds(out, "…") : oc_buf_add(out, why.data, n);
  if(!rc && n < why.len && out->len + 8 < OC_CAP_MESSAGE)
    rc = oc_buf_adds(out, "…");
  oc_buf_free(&why);
  return rc;
}

static size_t utf8_len(const char *s, size_t n)
{
  size_t k = 0;
  for(size_t i = 0; i < n; i++)
    k += ((unsigned char)s[i] & 0xC0) != 0x80;
  return k;
}

static int multiple_of(double x, double m)
{
  if(!isfinite(x))
    return 0;
  if(floor(m) == m && floor(x) == x && fabs(x) < 9e15 && m < 9e15)
    return fmod(x, m) == 0;
  double q = x / m;
  if(!isfinite(q))
    return 0;
  double r = nearbyint(q);
  return fabs(q - r) <= 1e-9 * (fabs(q) > 1 ? fabs(q) : 1);
}

static const struct prop *find_prop(const struct op *o, const char *k, uint32_t kl)
{
  const struct prop *pr = o->u.props.props;
  if(o->u.props.table) {
    uint32_t h = str_hash(k, kl) & o->u.props.tmask;
    for(;; h = (h + 1) & o->u.props.tmask) {
      uint32_t i = o->u.props.table[h];
      if(!i)
        return NULL;
      if(pr[i - 1].name.len == kl && (kl == 0 || (pr[i - 1].name.s[0] == k[0] && memcmp(pr[i - 1].name.s, k, kl) == 0)))
        return &pr[i - 1];
    }
  }
  for(size_t i = 0; i < o->u.props.nprops; i++)
    if(pr[i].name.len == kl && (kl == 0 || (pr[i].name.s[0] == k[0] && memcmp(pr[i].name.s, k, kl) == 0)))
      return &pr[i];
  return NULL;
}

/* The declared property a member not allowed was most likely meant to be
 * ("profle" for "profile"), by the one "did you mean" (oc_nearest: within
 * two edits, so that "x" never suggests "y").  Only on the reporting
 * path: a misspelt member of a hand-written file (a suite, a targets
 * file) is the usual reason for this error. */
static const struct prop *near_prop(const struct op *o, const char *k, uint32_t kl)
{
  struct oc_nearest n;
  oc_nearest_init(&n, k, kl, 0);
  const struct prop *best = NULL;
  for(size_t i = 0; i < o->u.props.nprops; i++) {
    const struct prop *p = &o->u.props.props[i];
    const char *before = n.near;
    oc_nearest_offer(&n, p->name.s, p->name.len);
    if(n.near != before)
      best = p;
  }
  return best;
}

static inline int has_member(const struct oc_jv *obj, const struct jstr *name)
{
  /* length and first byte rule out almost every member before memcmp */
  char first = name->len ? name->s[0] : '\0';
  for(uint32_t i = 0; i < obj->len; i++) {
    const struct oc_jmember *m = &obj->u.members[i];
    if(m->key_len == name->len && (name->len == 0 || (m->key[0] == first && memcmp(m->key, name->s, name->len) == 0)))
      return 1;
  }
  return 0;
}

static int add_type_names(struct oc_buf *b, unsigned mask)
{
  static const struct {
    unsigned bit;
    const char *name;
  } t[] = { { T_OBJ, "object" }, { T_ARR, "array" }, { T_STR, "string" }, { T_NUMBER, "number" },
            { T_INT, "integer" }, { T_BOOL, "boolean" }, { T_NULL, "null" } };
  int first = 1, rc = OC_OK;
  unsigned left = mask;
  for(size_t i = 0; i < OC_ARRAY_LEN(t) && !rc; i++) {
    if((left & t[i].bit) != t[i].bit)
      continue;
    left &= ~t[i].bit;
    int last = !left;
    rc = oc_buf_printf(b, "%s%s", first ? "" : last ? " or " : ", ", t[i].name);
    first = 0;
  }
  return rc;
}

/* Messages are built in a small buffer and handed to report() as "%s". */
#define REPORT_BUF(c, o, at, ikey, iklen, iidx, off, ...)                           \
  do {                                                                              \
    if(TRACK(c) && (c)->res->count >= res_max((c)->res)) {                          \
      /* the list is full: count it, but build no message nobody keeps */           \
      (c)->res->dropped++;                                                          \
      (c)->full = 1;                                                                \
    }                                                                               \
    else if(TRACK(c)) {                                                             \
      struct oc_buf mb_;                                                            \
      oc_buf_init(&mb_, OC_CAP_MESSAGE);                                            \
      int rc_ = OC_OK;                                                              \
      __VA_ARGS__;                                                                  \
      if(rc_ == OC_ENOMEM)                                                          \
        fail_nomem(c);                                                              \
      report(c, (o)->kw, (o)->seg, at, ikey, iklen, iidx, off, "%s", oc_buf_str(&mb_)); \
      oc_buf_free(&mb_);                                                            \
    }                                                                               \
  } while(0)

static int run_op(struct vctx *c, const struct op *o, const struct oc_jv *v, uint64_t *pb, uint64_t *ib)
{
  switch(o->code) {
  case OP_TYPE: {
    if(o->u.types & jtype_bit(v))
      return 1;
    REPORT_BUF(c, o, v, NULL, 0, -1, 0, {
      rc_ = oc_buf_adds(&mb_, "expected ");
      if(!rc_) rc_ = add_type_names(&mb_, o->u.types);
      if(!rc_) rc_ = oc_buf_adds(&mb_, ", got ");
      if(!rc_) rc_ = add_brief(&mb_, v, 1);
    });
    return 0;
  }
  case OP_CONST:
    if(jeq(v, &o->u.en.vals[0]))
      return 1;
    REPORT_BUF(c, o, v, NULL, 0, -1, 0, {
      rc_ = oc_buf_adds(&mb_, "expected ");
      if(!rc_) rc_ = add_brief(&mb_, &o->u.en.vals[0], 0);
      if(!rc_) rc_ = oc_buf_adds(&mb_, " (const), got ");
      if(!rc_) rc_ = add_brief(&mb_, v, 1);
    });
    return 0;
  case OP_ENUM:
    for(size_t i = 0; i < o->u.en.n; i++)
      if(jeq(v, &o->u.en.vals[i]))
        return 1;
    REPORT_BUF(c, o, v, NULL, 0, -1, 0, {
      rc_ = oc_buf_adds(&mb_, o->u.en.n == 0 ? "no value is allowed (enum is empty)" : "expected one of ");
      for(size_t i = 0; !rc_ && i < o->u.en.n && i < 10; i++) {
        if(i)
          rc_ = oc_buf_adds(&mb_, ", ");
        if(!rc_)
          rc_ = add_brief(&mb_, &o->u.en.vals[i], 0);
      }
      if(!rc_ && o->u.en.n > 10)
        rc_ = oc_buf_printf(&mb_, " (and %zu more)", o->u.en.n - 10);
      if(!rc_) rc_ = oc_buf_adds(&mb_, ", got ");
      if(!rc_) rc_ = add_brief(&mb_, v, 1);
    });
    return 0;
  case OP_MINIMUM:
  case OP_MAXIMUM:
  case OP_EXMIN:
  case OP_EXMAX: {
    double x = v->u.num, lim = o->u.num;
    int ok = o->code == OP_MINIMUM ? x >= lim : o->code == OP_MAXIMUM ? x <= lim
             : o->code == OP_EXMIN ? x > lim : x < lim;
    if(ok)
      return 1;
    static const char *const rel[] = { ">=", "<=", ">", "<" };
    char a[40], b[40];
    fmt_num(a, lim);
    fmt_num(b, x);
    report(c, o->kw, o->seg, v, NULL, 0, -1, 0, "expected a number %s %s, got %s",
           rel[o->code - OP_MINIMUM], a, b);
    return 0;
  }
  case OP_MULTIPLE: {
    if(multiple_of(v->u.num, o->u.num))
      return 1;
    char a[40], b[40];
    fmt_num(a, o->u.num);
    fmt_num(b, v->u.num);
    report(c, o->kw, o->seg, v, NULL, 0, -1, 0, "expected a multiple of %s, got %s", a, b);
    return 0;
  }
  case OP_MINLEN:
  case OP_MAXLEN: {
    /* byte length bounds the code-point count from above */
    if(o->code == OP_MAXLEN && v->len <= o->u.count)
      return 1;
    size_t k = utf8_len(v->u.str, v->len);
    if(o->code == OP_MINLEN ? k >= o->u.count : k <= o->u.count)
      return 1;
    report(c, o->kw, o->seg, v, NULL, 0, -1, 0, "expected %s %zu character%s, got %zu",
           o->code == OP_MINLEN ? "at least" : "at most", o->u.count, o->u.count == 1 ? "" : "s", k);
    return 0;
  }
  case OP_PATTERN: {
    int m = oc_regex_match(o->u.re, v->u.str, v->len, &c->rx);
    if(m == 1)
      return 1;
    if(m == -OC_ENOMEM)
      fail_nomem(c);
    if(m == -OC_ETOOBIG) {
      /* "no match" would be a verdict the regex engine never reached
       * (and valid under "not") */
      undecided(c, "the pattern /%.120s/ ran out of its match budget on the string at byte %zu",
                oc_regex_source(o->u.re), (size_t)v->offset);
      return 0;
    }
    REPORT_BUF(c, o, v, NULL, 0, -1, 0, {
      rc_ = oc_buf_adds(&mb_, "expected a string matching /");
      if(!rc_) rc_ = oc_buf_adds(&mb_, oc_regex_source(o->u.re));
      if(!rc_) rc_ = oc_buf_adds(&mb_, "/, got ");
      if(!rc_) rc_ = add_brief(&mb_, v, 0);
      if(!rc_ && m < 0) rc_ = oc_buf_adds(&mb_, m == -OC_ETOOBIG ? " (match budget exhausted)" : " (not valid UTF-8)");
    });
    return 0;
  }
  case OP_FORMAT:
    if(check_format(o->u.format, v->u.str, v->len))
      return 1;
    REPORT_BUF(c, o, v, NULL, 0, -1, 0, {
      rc_ = oc_buf_printf(&mb_, "expected a valid %s, got ", format_name(o->u.format));
      if(!rc_) rc_ = add_brief(&mb_, v, 0);
    });
    return 0;
  case OP_MINITEMS:
  case OP_MAXITEMS:
  case OP_MINPROPS:
  case OP_MAXPROPS: {
    int min = o->code == OP_MINITEMS || o->code == OP_MINPROPS;
    if(min ? v->len >= o->u.count : v->len <= o->u.count)
      return 1;
    int items = o->code == OP_MINITEMS || o->code == OP_MAXITEMS;
    report(c, o->kw, o->seg, v, NULL, 0, -1, 0, "expected %s %zu %s, got %u", min ? "at least" : "at most",
           o->u.count, items ? (o->u.count == 1 ? "item" : "items") : (o->u.count == 1 ? "property" : "properties"),
           v->len);
    return 0;
  }
  case OP_UNIQUE: {
    size_t n = v->len;
    if(n < 2)
      return 1;
    if(n <= 32) {
      for(size_t i = 0; i < n; i++)
        for(size_t j = i + 1; j < n; j++)
          if(jeq(&v->u.items[i], &v->u.items[j])) {
            report(c, o->kw, o->seg, v, NULL, 0, -1, 0, "items %zu and %zu are equal, expected unique items", i, j);
            return 0;
          }
      return 1;
    }
    /* sort (hash, index) pairs and compare neighbours with equal hashes */
    struct hi {
      uint64_t h;
      size_t i;
    } *hs = malloc(n * sizeof(*hs));
    if(!hs) {
      fail_nomem(c);
      return 0;
    }
    for(size_t i = 0; i < n; i++) {
      hs[i].h = jhash(&v->u.items[i]);
      hs[i].i = i;
    }
    /* insertion into order by hash: shell sort keeps this allocation-free */
    for(size_t gap = n / 2; gap > 0; gap /= 2)
      for(size_t i = gap; i < n; i++) {
        struct hi t = hs[i];
        size_t j = i;
        for(; j >= gap && hs[j - gap].h > t.h; j -= gap)
          hs[j] = hs[j - gap];
        hs[j] = t;
      }
    int ok = 1;
    for(size_t i = 0; i < n && ok; i++)
      for(size_t j = i + 1; j < n && hs[j].h == hs[i].h && ok; j++)
        if(jeq(&v->u.items[hs[i].i], &v->u.items[hs[j].i])) {
          size_t a = hs[i].i < hs[j].i ? hs[i].i : hs[j].i, b = hs[i].i < hs[j].i ? hs[j].i : hs[i].i;
          report(c, o->kw, o->seg, v, NULL, 0, -1, 0, "items %zu and %zu are equal, expected unique items", a, b);
          ok = 0;
        }
    free(hs);
    return ok;
  }
  case OP_ITEMS: {
    int ok = 1;
    size_t np = o->u.items.nprefix, n = v->len;
    for(size_t i = 0; i < n && i < np; i++) {
      if(!eval_idx(c, &o->u.items.prefix[i], &v->u.items[i], i)) {
        ok = 0;
        if(FAST(c))
          return 0;
      }
      if(ib)
        BIT_SET(ib, i);
    }
    const struct sub *rest = &o->u.items.rest;
    if(rest->n && n > np) {
      if(rest->n->kind == N_FALSE) {
        report(c, o->u.items.rest_kw, rest->seg, v, NULL, 0, -1, 0,
               "expected at most %zu item%s (%s is false), got %zu", np, np == 1 ? "" : "s",
               o->u.items.rest_kw, n);
        return 0;
      }
      for(size_t i = np; i < n; i++) {
        if(!eval_idx(c, rest, &v->u.items[i], i)) {
          ok = 0;
          if(FAST(c))
            return 0;
        }
        if(ib)
          BIT_SET(ib, i);
      }
    }
    return ok;
  }
  case OP_CONTAINS: {
    size_t count = 0, n = v->len;
    int need_all = ib != NULL || o->u.contains.has_max;
    c->quiet++;
    for(size_t i = 0; i < n; i++) {
      if(eval_idx(c, &o->u.contains.s, &v->u.items[i], i)) {
        count++;
        if(ib)
          BIT_SET(ib, i);
        if(!need_all && count >= o->u.contains.min)
          break;
        if(o->u.contains.has_max && count > o->u.contains.max && !ib && FAST(c))
          break;
      }
    }
    c->quiet--;
    if(count < o->u.contains.min) {
      REPORT_BUF(c, o, v, NULL, 0, -1, 0, {
        rc_ = oc_buf_printf(&mb_, "expected at least %zu item%s matching \"contains\", got %zu",
                            o->u.contains.min, o->u.contains.min == 1 ? "" : "s", count);
        if(!rc_ && n && count == 0) {
          rc_ = oc_buf_adds(&mb_, " (item 0: ");
          if(!rc_) rc_ = first_reason(c, &o->u.contains.s, &v->u.items[0], &mb_);
          if(!rc_) rc_ = oc_buf_addc(&mb_, ')');
        }
      });
      return 0;
    }
    if(o->u.contains.has_max && count > o->u.contains.max) {
      report(c, "maxContains", "/maxContains", v, NULL, 0, -1, 0,
             "expected at most %zu item%s matching \"contains\", got %zu", o->u.contains.max,
             o->u.contains.max == 1 ? "" : "s", count);
      return 0;
    }
    return 1;
  }
  case OP_REQUIRED: {
    int ok = 1;
    for(size_t i = 0; i < o->u.req.n; i++)
      if(!has_member(v, &o->u.req.names[i])) {
        ok = 0;
        if(FAST(c))
          return 0;
        REPORT_BUF(c, o, v, NULL, 0, -1, 0, {
          rc_ = oc_buf_adds(&mb_, "missing required property ");
          if(!rc_) rc_ = add_quoted(&mb_, o->u.req.names[i].s, o->u.req.names[i].len, 200);
        });
      }
    return ok;
  }
  case OP_DEPREQ: {
    int ok = 1;
    for(size_t i = 0; i < o->u.dreq.n; i++) {
      const struct depreq *d = &o->u.dreq.d[i];
      if(!has_member(v, &d->name))
        continue;
      for(size_t k = 0; k < d->n; k++)
        if(!has_member(v, &d->req[k])) {
          ok = 0;
          if(FAST(c))
            return 0;
          REPORT_BUF(c, o, v, NULL, 0, -1, 0, {
            rc_ = oc_buf_adds(&mb_, "missing property ");
            if(!rc_) rc_ = add_quoted(&mb_, d->req[k].s, d->req[k].len, 200);
            if(!rc_) rc_ = oc_buf_adds(&mb_, ", required when ");
            if(!rc_) rc_ = add_quoted(&mb_, d->name.s, d->name.len, 200);
            if(!rc_) rc_ = oc_buf_adds(&mb_, " is present");
          });
        }
    }
    return ok;
  }
  case OP_PROPS: {
    int ok = 1;
    for(uint32_t i = 0; i < v->len; i++) {
      const struct oc_jmember *m = &v->u.members[i];
      int matched = 0;
      const struct prop *p = o->u.props.nprops ? find_prop(o, m->key, m->key_len) : NULL;
      if(p) {
        matched = 1;
        if(!eval_key(c, &p->s, m)) {
          ok = 0;
          if(FAST(c))
            return 0;
        }
      }
      for(size_t k = 0; k < o->u.props.npats; k++) {
        const struct pprop *pp = &o->u.props.pats[k];
        int r = oc_regex_match(pp->re, m->key, m->key_len, &c->rx);
        if(r < 0 && r == -OC_ENOMEM)
          fail_nomem(c);
        if(r == -OC_ETOOBIG) {
          undecided(c, "the patternProperties pattern /%.120s/ ran out of its match budget on the "
                    "member name at byte %zu", oc_regex_source(pp->re), (size_t)m->key_offset);
          return 0;
        }
        if(r != 1)
          continue;
        matched = 1;
        if(!eval_key(c, &pp->s, m)) {
          ok = 0;
          if(FAST(c))
            return 0;
        }
      }
      if(!matched && o->u.props.addl.n) {
        const struct sub *a = &o->u.props.addl;
        if(a->n->kind == N_FALSE) {
          ok = 0;
          if(FAST(c))
            return 0;
          REPORT_BUF(c, o, &m->value, m->key, m->key_len, -1, m->key_offset, {
            rc_ = oc_buf_adds(&mb_, "property ");
            if(!rc_) rc_ = add_quoted(&mb_, m->key, m->key_len, 200);
            if(!rc_) rc_ = oc_buf_adds(&mb_, " is not allowed (additionalProperties is false)");
            const struct prop *near = near_prop(o, m->key, m->key_len);
            if(near && !rc_) rc_ = oc_buf_adds(&mb_, "; did you mean ");
            if(near && !rc_) rc_ = add_quoted(&mb_, near->name.s, near->name.len, 200);
            if(near && !rc_) rc_ = oc_buf_addc(&mb_, '?');
          });
        }
        else if(!eval_key(c, a, m)) {
          ok = 0;
          if(FAST(c))
            return 0;
        }
        matched = 1;
      }
      if(pb && matched)
        BIT_SET(pb, i);
    }
    return ok;
  }
  case OP_PROPNAMES: {
    int ok = 1;
    for(uint32_t i = 0; i < v->len; i++) {
      const struct oc_jmember *m = &v->u.members[i];
      struct oc_jv name;
      memset(&name, 0, sizeof(name));
      name.type = OC_JSTRING;
      name.len = m->key_len;
      name.offset = m->key_offset;
      name.u.str = m->key;
      c->quiet++;
      int r = eval_here(c, &o->u.one, &name, NULL, NULL);
      c->quiet--;
      if(r)
        continue;
      ok = 0;
      if(FAST(c))
        return 0;
      REPORT_BUF(c, o, &name, NULL, 0, -1, 0, {
        rc_ = oc_buf_adds(&mb_, "property name ");
        if(!rc_) rc_ = add_quoted(&mb_, m->key, m->key_len, 200);
        if(!rc_) rc_ = oc_buf_adds(&mb_, " is not allowed by propertyNames: ");
        if(!rc_) rc_ = first_reason(c, &o->u.one, &name, &mb_);
      });
    }
    return ok;
  }
  case OP_DEPSCHEMAS: {
    int ok = 1;
    for(size_t i = 0; i < o->u.dsch.n; i++) {
      const struct depsch *d = &o->u.dsch.d[i];
      if(!has_member(v, &d->name))
        continue;
      if(!eval_here(c, &d->s, v, pb, ib)) {
        ok = 0;
        if(FAST(c))
          return 0;
      }
    }
    return ok;
  }
  case OP_ALLOF: {
    int ok = 1;
    for(size_t i = 0; i < o->u.list.n; i++)
      if(!eval_here(c, &o->u.list.subs[i], v, pb, ib)) {
        ok = 0;
        if(FAST(c))
          return 0;
      }
    return ok;
  }
  case OP_ANYOF:
  case OP_ONEOF: {
    size_t nvalid = 0, first = 0, second = 0;
    int any = o->code == OP_ANYOF;
    c->quiet++;
    for(size_t i = 0; i < o->u.list.n; i++) {
      if(eval_trial(c, &o->u.list.subs[i], v, pb, ib)) {
        if(nvalid == 0)
          first = i;
        else if(nvalid == 1)
          second = i;
        nvalid++;
        if(any && !pb && !ib)
          break;
        if(!any && nvalid > 1 && !pb && !ib)
          break;
      }
    }
    c->quiet--;
    if(any ? nvalid >= 1 : nvalid == 1)
      return 1;
    if(nvalid > 1) {
      report(c, o->kw, o->seg, v, NULL, 0, -1, 0,
             "matches more than one alternative of oneOf (%zu and %zu), expected exactly one", first, second);
      return 0;
    }
    REPORT_BUF(c, o, v, NULL, 0, -1, 0, {
      rc_ = oc_buf_printf(&mb_, "matches none of the alternatives of %s:", o->kw);
      for(size_t i = 0; !rc_ && i < o->u.list.n; i++) {
        if(mb_.len > OC_CAP_MESSAGE - OC_CAP_MESSAGE / 4) {
          rc_ = oc_buf_printf(&mb_, "; (%zu more)", o->u.list.n - i);
          break;
        }
        rc_ = oc_buf_printf(&mb_, "%s (%zu) ", i ? ";" : "", i);
        if(!rc_)
          rc_ = first_reason(c, &o->u.list.subs[i], v, &mb_);
      }
    });
    return 0;
  }
  case OP_NOT: {
    c->quiet++;
    int r = eval_here(c, &o->u.one, v, NULL, NULL);
    c->quiet--;
    if(!r)
      return 1;
    REPORT_BUF(c, o, v, NULL, 0, -1, 0, {
      rc_ = oc_buf_adds(&mb_, "must not match the schema in \"not\", got ");
      if(!rc_) rc_ = add_brief(&mb_, v, 1);
    });
    return 0;
  }
  case OP_IF: {
    if(!o->u.cond.thens.n && !o->u.cond.elses.n && !pb && !ib)
      return 1;
    c->quiet++;
    int r = eval_trial(c, &o->u.cond.ifs, v, pb, ib);
    c->quiet--;
    const struct sub *next = r ? &o->u.cond.thens : &o->u.cond.elses;
    if(!next->n)
      return 1;
    return eval_here(c, next, v, pb, ib);
  }
  case OP_REF:
    return eval_here(c, &o->u.ref.s, v, pb, ib);
  case OP_DYNREF: {
    struct sub s = o->u.ref.s;
    if(o->u.ref.anchor) {
      int found = 0;
      for(size_t i = 0; i < c->ndyn && !found; i++) {
        const struct cres *r = c->dyn[i];
        for(size_t k = 0; k < r->nda; k++)
          if(strcmp(r->da[k].name, o->u.ref.anchor) == 0) {
            s.n = r->da[k].n;
            found = 1;
            break;
          }
      }
    }
    return eval_here(c, &s, v, pb, ib);
  }
  case OP_UNEVAL_PROPS: {
    int ok = 1;
    for(uint32_t i = 0; i < v->len; i++) {
      if(BIT_GET(pb, i))
        continue;
      const struct oc_jmember *m = &v->u.members[i];
      if(o->u.one.n->kind == N_FALSE) {
        ok = 0;
        if(FAST(c))
          return 0;
        REPORT_BUF(c, o, &m->value, m->key, m->key_len, -1, m->key_offset, {
          rc_ = oc_buf_adds(&mb_, "property ");
          if(!rc_) rc_ = add_quoted(&mb_, m->key, m->key_len, 200);
          if(!rc_) rc_ = oc_buf_adds(&mb_, " is not allowed (unevaluatedProperties is false)");
        });
        continue;
      }
      if(!eval_key(c, &o->u.one, m)) {
        ok = 0;
        if(FAST(c))
          return 0;
      }
      BIT_SET(pb, i);
    }
    return ok;
  }
  case OP_UNEVAL_ITEMS: {
    int ok = 1;
    for(uint32_t i = 0; i < v->len; i++) {
      if(BIT_GET(ib, i))
        continue;
      if(o->u.one.n->kind == N_FALSE) {
        ok = 0;
        if(FAST(c))
          return 0;
        report(c, o->kw, o->seg, &v->u.items[i], NULL, 0, (long)i, 0,
               "item %u is not allowed (unevaluatedItems is false)", i);
        continue;
      }
      if(!eval_idx(c, &o->u.one, &v->u.items[i], i)) {
        ok = 0;
        if(FAST(c))
          return 0;
      }
      BIT_SET(ib, i);
    }
    return ok;
  }
  default:
    return 1;
  }
}

static int eval(struct vctx *c, const struct node *n, const struct oc_jv *v, uint64_t *pb, uint64_t *ib)
{
  /* A node that is only a "$ref" (with annotations beside it) is its
   * target, unless paths are being kept or the dynamic scope matters; the
   * bound stops a cycle of such nodes, which then meets the depth limit. */
  for(int hops = 0; hops < 16 && n->nops == 1 && n->ops[0].code == OP_REF && !n->uneval_props &&
                    !n->uneval_items && !TRACK(c) && !c->s->uses_dynamic;
      hops++)
    n = n->ops[0].u.ref.s.n;
  if(n->kind == N_TRUE)
    return 1;
  if(n->kind == N_FALSE) {
    report(c, "false", NULL, v, NULL, 0, -1, 0, "no value is allowed here (the schema is false), got %s",
           oc_jv_type_name(v));
    return 0;
  }
  if(c->rc)
    return 0; /* undecided or out of memory: unwind */
  if(++c->evals > OC_SCHEMA_EVAL_BUDGET) {
    undecided(c, "the validation needed more than %u evaluations (combinators over recursive "
              "schemas); oacheck stopped it", OC_SCHEMA_EVAL_BUDGET);
    return 0;
  }
  if(c->depth >= OC_SCHEMA_EVAL_DEPTH) {
    undecided(c, "schema recursion deeper than %d evaluations at the value at byte %zu",
              OC_SCHEMA_EVAL_DEPTH, (size_t)v->offset);
    return 0;
  }
  /* Without a dynamic scope a subschema's verdict on a value depends on
   * nothing else: the same pair again inside itself recurses forever, and
   * a pair seen before (outside annotation tracking and reporting) has its
   * verdict already. */
  int pure = !c->s->uses_dynamic;
  if(pure) {
    for(int i = c->depth - 1; i >= 0 && c->stack[i].v == v; i--)
      if(c->stack[i].n == n) {
        undecided(c, "the schema recurses on the value at byte %zu without consuming it "
                  "(a $ref cycle through combinators)", (size_t)v->offset);
        return 0;
      }
  }
  int memoise = pure && !pb && !ib && !TRACK(c) && c->evals > OC_SCHEMA_MEMO_AFTER;
  if(memoise) {
    int known = memo_get(c, n, v);
    if(known >= 0)
      return known;
  }
  c->stack[c->depth].n = n;
  c->stack[c->depth].v = v;
  c->depth++;
  int pushed = 0;
  if(c->s->uses_dynamic && (c->ndyn == 0 || c->dyn[c->ndyn - 1] != n->res)) {
    if(c->ndyn == c->capdyn) {
      size_t ncap = c->capdyn * 2;
      const struct cres **nd = malloc(ncap * sizeof(*nd));
      if(!nd) {
        fail_nomem(c);
        c->depth--;
        return 0;
      }
      memcpy(nd, c->dyn, c->ndyn * sizeof(*nd));
      if(c->dyn != c->dyn_inl)
        free(c->dyn);
      c->dyn = nd;
      c->capdyn = ncap;
    }
    c->dyn[c->ndyn++] = n->res;
    pushed = 1;
  }
  struct bits lp, li;
  int have_lp = 0, have_li = 0;
  if(n->uneval_props && v->type == OC_JOBJECT) {
    if(!bits_init(c, &lp, v->len))
      goto nomem;
    have_lp = 1;
  }
  if(n->uneval_items && v->type == OC_JARRAY) {
    if(!bits_init(c, &li, v->len)) {
      if(have_lp)
        bits_free(&lp);
      goto nomem;
    }
    have_li = 1;
  }
  uint64_t *mpb = have_lp ? lp.w : pb, *mib = have_li ? li.w : ib;
  unsigned tb = jtype_bit(v);
  int ok = 1;
  for(uint16_t i = 0; i < n->nops; i++) {
    const struct op *o = &n->ops[i];
    if(o->itype && !(o->itype & tb))
      continue;
    if(!run_op(c, o, v, mpb, mib)) {
      ok = 0;
      if(FAST(c))
        break;
    }
  }
  if(have_lp) {
    if(ok && pb)
      bits_merge(pb, &lp);
    bits_free(&lp);
  }
  if(have_li) {
    if(ok && ib)
      bits_merge(ib, &li);
    bits_free(&li);
  }
  if(pushed)
    c->ndyn--;
  c->depth--;
  if(memoise && !c->rc)
    memo_put(c, n, v, ok);
  return ok;
nomem:
  if(pushed)
    c->ndyn--;
  c->depth--;
  return 0;
}

void oc_schema_result_init(struct oc_schema_result *res)
{
  memset(res, 0, sizeof(*res));
}

void oc_schema_result_free(struct oc_schema_result *res)
{
  if(!res)
    return;
  for(size_t i = 0; i < res->count; i++) {
    free(res->errors[i].instance_path);
    free(res->errors[i].schema_path);
    free(res->errors[i].message);
  }
  free(res->errors);
  free(res->undecided);
  size_t max = res->max;
  int always = res->always_report;
  memset(res, 0, sizeof(*res));
  res->max = max;
  res->always_report = always;
}

static int validate_pass(const struct oc_schema *s, const struct oc_jv *instance,
                         struct oc_schema_result *res)
{
  /* the frame stack makes the context large: it lives on the heap */
  struct vctx *c = malloc(sizeof(*c));
  if(!c)
    return -OC_ENOMEM;
  c->s = s;
  c->res = res;
  c->quiet = 0;
  c->full = 0;
  c->depth = 0;
  c->rc = OC_OK;
  c->why[0] = '\0';
  c->evals = 0;
  c->reasons = 0;
  c->memo = NULL;
  c->nmemo = c->capmemo = 0;
  c->dyn = c->dyn_inl;
  c->ndyn = 0;
  c->capdyn = OC_ARRAY_LEN(c->dyn_inl);
  c->rx = NULL;
  oc_buf_init(&c->ip, OC_CAP_SCHEMA_PATH);
  oc_buf_init(&c->sp, OC_CAP_SCHEMA_PATH);
  int ok = eval(c, s->root, instance, NULL, NULL);
  oc_buf_free(&c->ip);
  oc_buf_free(&c->sp);
  if(c->dyn != c->dyn_inl)
    free(c->dyn);
  oc_regex_scratch_free(c->rx);
  free(c->memo);
  int rc = c->rc;
  if(rc == OC_ETOOBIG && res && !res->undecided && !(res->undecided = oc_strdup(c->why)))
    rc = OC_ENOMEM; /* the reason is part of the answer */
  free(c);
  if(rc)
    return -rc;
  return ok ? 1 : 0;
}

int oc_schema_validate(const struct oc_schema *s, const struct oc_jv *instance,
                       struct oc_schema_result *res)
{
  /* Most instances are valid: the fast pass decides, and only a failure
   * pays for a second pass that keeps paths and builds messages. */
  if(res && res->always_report)
    return validate_pass(s, instance, res);
  int v = validate_pass(s, instance, NULL);
  if(v == -OC_ETOOBIG && res) {
    /* undecided: run again only to learn why, in the same bounded time;
     * out of memory there leaves the reason or the errors short, and
     * says so rather than pass for the answer */
    if(validate_pass(s, instance, res) == -OC_ENOMEM)
      return -OC_ENOMEM;
    if(!res->undecided && !(res->undecided = oc_strdup("the validation ran out of oacheck's budget")))
      return -OC_ENOMEM;
    return v;
  }
  if(v != 0 || !res)
    return v;
  int r = validate_pass(s, instance, res);
  if(r == -OC_ETOOBIG) {
    /* the verdict stands (the fast pass reached it); only the reasons ran
     * out of budget */
    free(res->undecided);
    res->undecided = NULL;
    if(!res->count) {
      struct oc_schema_error *e = calloc(1, sizeof(*e));
      if(!e)
        return -OC_ENOMEM;
      free(res->errors);
      res->errors = e;
      res->count = 1;
      e->instance_path = oc_strdup("");
      e->schema_path = oc_strdup("");
      e->keyword = "$schema";
      e->message = oc_strdup("invalid (the reasons were not found within oacheck's budget)");
      if(!e->instance_path || !e->schema_path || !e->message)
        return -OC_ENOMEM; /* the caller's oc_schema_result_free takes what was made */
    }
    return 0;
  }
  return r;
}

int oc_schema_validate_cjson(const struct oc_schema *s, const cJSON *instance,
                             struct oc_schema_result *res)
{
  struct oc_jdoc d;
  oc_jdoc_init(&d);
  int rc = oc_jdoc_from_cjson(&d, instance);
  if(rc || !d.root) {
    oc_jdoc_free(&d);
    return -(rc ? rc : OC_EUSAGE);
  }
  rc = oc_schema_validate(s, d.root, res);
  oc_jdoc_free(&d);
  return rc;
}

char *oc_schema_error_format(const struct oc_schema_error *e)
{
  return oc_asprintf("at %s: %s", e->instance_path[0] ? e->instance_path : "(root)", e->message);
}
