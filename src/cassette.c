/* cassette.c — cassettes on disk (gzip of a JSON metadata line plus the
 * body bytes), request keys, the conversion of raw exchanges and the
 * store that loads and looks them up.  The only file that includes
 * <zlib.h>.  Serving and interpreting the bytes is left to server.c and
 * the decoders; the format is described in docs/cassette.md. */
#include "config.h"
#include "cassette.h"

#include <dirent.h>
#include <errno.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "jdoc.h"
#include "json.h"
#include "secret.h"
#include "util.h"

/* Integers in the metadata are JSON numbers, which cJSON holds as doubles:
 * anything above 2^53 would silently lose precision, so it is refused. */
#define MAX_EXACT_INT 9007199254740992.0

static const char TIME_CLOCK[] = "ns since the request was sent";

void oc_cassette_init(struct oc_cassette *c)
{
  memset(c, 0, sizeof(*c));
  oc_headers_init(&c->req_headers);
  oc_headers_init(&c->headers);
  c->complete = 1;
}

void oc_cassette_free(struct oc_cassette *c)
{
  if(!c)
    return;
  free(c->name);
  free(c->method);
  free(c->path);
  free(c->req_body);
  oc_headers_free(&c->req_headers);
  free(c->http_version);
  free(c->reason);
  oc_headers_free(&c->headers);
  free(c->body);
  free(c->pieces);
  free(c->source);
  free(c->recorded_at);
  free(c->server);
  free(c->note);
  free(c->file);
  oc_cassette_init(c);
}

/* ---- keys ----------------------------------------------------------- */

/* SHA-256, fetched once: an implicit fetch on every digest costs more
 * than hashing a chat request. */
static const EVP_MD *sha256_md;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static void sha256_fetch(void)
{
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
  sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
#endif
  if(!sha256_md)
    sha256_md = EVP_sha256();
}

/* The canonical form is written straight into the digest through a small
 * staging buffer: no copy of it is ever built. */
struct csink {
  EVP_MD_CTX *md;
  size_t n;
  int failed;
  char buf[4096];
};

static void sink_flush(struct csink *s)
{
  if(s->n && EVP_DigestUpdate(s->md, s->buf, s->n) != 1)
    s->failed = 1;
  s->n = 0;
}

static void sink_add(struct csink *s, const void *p, size_t n)
{
  if(n > sizeof(s->buf) - s->n) {
    sink_flush(s);
    if(n >= sizeof(s->buf)) {
      if(EVP_DigestUpdate(s->md, p, n) != 1)
        s->failed = 1;
      return;
    }
  }
  memcpy(s->buf + s->n, p, n);
  s->n += n;
}

static void sink_c(struct csink *s, char c)
{
  if(s->n == sizeof(s->buf))
    sink_flush(s);
  s->buf[s->n++] = c;
}

/* A string as RFC 8785 writes it: only '"', '\\' and controls escaped. */
static void canon_str(struct csink *s, const char *p, size_t n)
{
  static const char hex[] = "0123456789abcdef";
  size_t run = 0;
  sink_c(s, '"');
  for(size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)p[i];
    if(c >= 0x20 && c != '"' && c != '\\')
      continue;
    sink_add(s, p + run, i - run);
    run = i + 1;
    char esc[6] = { '\\', 0 };
    size_t elen = 2;
    switch(c) {
    case '"': esc[1] = '"'; break;
    case '\\': esc[1] = '\\'; break;
    case '\b': esc[1] = 'b'; break;
    case '\f': esc[1] = 'f'; break;
    case '\n': esc[1] = 'n'; break;
    case '\r': esc[1] = 'r'; break;
    case '\t': esc[1] = 't'; break;
    default:
      memcpy(esc + 1, "u00", 3);
      esc[4] = hex[c >> 4];
      esc[5] = hex[c & 15];
      elen = 6;
    }
    sink_add(s, esc, elen);
  }
  sink_add(s, p + run, n - run);
  sink_c(s, '"');
}

static int cmp_jmembers(const void *pa, const void *pb)
{
  const struct oc_jmember *a = *(const struct oc_jmember *const *)pa;
  const struct oc_jmember *b = *(const struct oc_jmember *const *)pb;
  return oc_json_utf16_cmp(a->key, a->key_len, b->key, b->key_len);
}

/* Recursion is bounded by the parser's depth limit. */
static int canon_jv(struct csink *s, const struct oc_jv *v)
{
  char num[OC_JSON_NUMBER_MAX];
  switch(v->type) {
  case OC_JNULL: sink_add(s, "null", 4); return OC_OK;
  case OC_JTRUE: sink_add(s, "true", 4); return OC_OK;
  case OC_JFALSE: sink_add(s, "false", 5); return OC_OK;
  case OC_JNUMBER: {
    size_t n = oc_json_number_es6(v->u.num, num);
    if(!n)
      return OC_ENOMEM;
    sink_add(s, num, n);
    return OC_OK;
  }
  case OC_JSTRING: canon_str(s, v->u.str, v->len); return OC_OK;
  case OC_JARRAY:
    sink_c(s, '[');
    for(uint32_t i = 0; i < v->len; i++) {
      if(i)
        sink_c(s, ',');
      int rc = canon_jv(s, &v->u.items[i]);
      if(rc)
        return rc;
    }
    sink_c(s, ']');
    return OC_OK;
  case OC_JOBJECT: {
    const struct oc_jmember *small[16], **m = small;
    if(v->len > OC_ARRAY_LEN(small) && !(m = malloc(v->len * sizeof(*m))))
      return OC_ENOMEM;
    for(uint32_t i = 0; i < v->len; i++)
      m[i] = &v->u.members[i];
    qsort(m, v->len, sizeof(*m), cmp_jmembers);
    int rc = OC_OK;
    sink_c(s, '{');
    for(uint32_t i = 0; i < v->len && !rc; i++) {
      if(i)
        sink_c(s, ',');
      canon_str(s, m[i]->key, m[i]->key_len);
      sink_c(s, ':');
      rc = canon_jv(s, &m[i]->value);
    }
    sink_c(s, '}');
    if(m != small)
      free(m);
    return rc;
  }
  }
  return OC_EPARSE;
}

/* Whether a body whose first non-blank byte is c may be a JSON text. */
static int may_start_json(unsigned char c)
{
  return c == '{' || c == '[' || c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 't' ||
         c == 'f' || c == 'n';
}

static int is_json_blank(unsigned char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The parser's arena is kept per thread from one key to the next (a
 * server keys every request): a fresh 64 KiB arena each time cost a page
 * fault per page once the allocator had handed it back to the system.
 * A document that needed more than KEY_ARENA_KEEP is not kept. */
#define KEY_ARENA_KEEP (4u << 20)
static pthread_key_t key_doc_key;
static pthread_once_t key_doc_once = PTHREAD_ONCE_INIT;
static int key_doc_ok;

static void key_doc_release(void *p)
{
  oc_jdoc_free(p);
  free(p);
}

static void key_doc_setup(void)
{
  key_doc_ok = pthread_key_create(&key_doc_key, key_doc_release) == 0;
}

/* This thread's document (NULL when out of memory). */
static struct oc_jdoc *key_doc(void)
{
  pthread_once(&key_doc_once, key_doc_setup);
  struct oc_jdoc *d = key_doc_ok ? pthread_getspecific(key_doc_key) : NULL;
  if(!d && (d = malloc(sizeof(*d)))) {
    oc_jdoc_init(d);
    if(!key_doc_ok || pthread_setspecific(key_doc_key, d)) {
      free(d);
      d = NULL;
    }
  }
  return d;
}

static void key_doc_done(struct oc_jdoc *d)
{
  if(d->arena_alloc > KEY_ARENA_KEEP) {
    oc_jdoc_free(d);
    oc_jdoc_init(d);
  }
}

/* Hash a whole body into md: its canonical form when it is I-JSON (parses
 * strictly, valid UTF-8, no duplicate member names), its bytes otherwise. */
static int hash_body(EVP_MD_CTX *md, const char *body, size_t len)
{
  size_t i = 0;
  while(i < len && is_json_blank((unsigned char)body[i]))
    i++;
  if(i < len && may_start_json((unsigned char)body[i])) {
    struct oc_jdoc *d = key_doc();
    struct oc_jerr jerr;
    if(!d)
      return OC_ENOMEM;
    int prc = oc_jdoc_parse(d, body, len, &jerr);
    if(prc == OC_ENOMEM) {
      key_doc_done(d);
      return OC_ENOMEM;
    }
    if(!prc && !d->duplicate_keys && !d->invalid_utf8) {
      /* on the stack: a request key is worked out for every request
       * `oacheck serve` answers, and a heap block per request made its
       * pool threads' heaps grow and shrink under load */
      struct csink s;
      s.md = md;
      s.n = 0;
      s.failed = 0;
      int rc = canon_jv(&s, d->root);
      sink_flush(&s);
      if(!rc && s.failed)
        rc = OC_ENOMEM;
      key_doc_done(d);
      return rc;
    }
    key_doc_done(d);
  }
  return len && EVP_DigestUpdate(md, body, len) != 1 ? OC_ENOMEM : OC_OK;
}

/* Percent-decoding of one query component ('+' is a space, as in forms
 * and as libmicrohttpd decodes arguments); an invalid escape stays as it
 * is. */
static int query_unescape(struct oc_buf *b, const char *s, size_t n)
{
  int rc = OC_OK;
  for(size_t i = 0; !rc && i < n; i++) {
    int hi, lo;
    if(s[i] == '%' && i + 2 < n && (hi = oc_hexval(s[i + 1])) >= 0 && (lo = oc_hexval(s[i + 2])) >= 0) {
      rc = oc_buf_addc(b, (char)(hi << 4 | lo));
      i += 2;
    }
    else
      rc = oc_buf_addc(b, s[i] == '+' ? ' ' : s[i]);
  }
  return rc;
}

int oc_cassette_query_append(struct oc_buf *q, const char *name, const char *value)
{
  static const char hex[] = "0123456789ABCDEF";
  int rc = q->len ? oc_buf_addc(q, '&') : OC_OK;
  for(int part = 0; !rc && part < 2; part++) {
    const char *s = part ? value : name;
    if(part) {
      if(!value)
        break;
      rc = oc_buf_addc(q, '=');
    }
    for(const unsigned char *p = (const unsigned char *)(s ? s : ""); !rc && *p; p++) {
      if((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
         *p == '-' || *p == '.' || *p == '_' || *p == '~')
        rc = oc_buf_addc(q, (char)*p);
      else {
        char e[3] = { '%', hex[*p >> 4], hex[*p & 15] };
        rc = oc_buf_add(q, e, 3);
      }
    }
  }
  return rc;
}

struct qparam {
  char *name, *value; /* decoded; value NULL for "?flag" */
};

static int qparam_cmp(const void *a, const void *b)
{
  const struct qparam *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  if(c)
    return c;
  if(!x->value || !y->value) /* "?flag" before "?flag=" */
    return (x->value != NULL) - (y->value != NULL);
  return strcmp(x->value, y->value);
}

char *oc_cassette_key_path(const char *path)
{
  const char *q = path ? strchr(path, '?') : NULL;
  if(!q || !q[1])
    return oc_strndup(path ? path : "", q ? (size_t)(q - path) : strlen(path ? path : ""));
  struct qparam *ps = NULL;
  size_t n = 0, alloc = 0;
  char *out = NULL;
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_HTTP_HEAD);
  for(const char *p = q + 1; *p;) {
    size_t len = strcspn(p, "&");
    if(len) {
      struct qparam *g = oc_array_grow(ps, &alloc, n + 1, sizeof(*ps));
      if(!g)
        goto out;
      ps = g;
      const char *eq = memchr(p, '=', len);
      size_t nl = eq ? (size_t)(eq - p) : len;
      struct oc_buf t;
      oc_buf_init(&t, OC_CAP_HTTP_HEAD);
      /* a component fits the head's cap: only memory can fail it, and a
       * key with a component gone would be another request's */
      query_unescape(&t, p, nl);
      ps[n].name = oc_buf_take(&t, NULL);
      ps[n].value = NULL;
      if(eq) {
        query_unescape(&t, eq + 1, len - nl - 1);
        ps[n].value = oc_buf_take(&t, NULL);
      }
      oc_buf_free(&t);
      n++;
      if(!ps[n - 1].name || (eq && !ps[n - 1].value))
        goto out;
    }
    p += len;
    if(*p == '&')
      p++;
  }
  qsort(ps, n, sizeof(*ps), qparam_cmp);
  if(oc_buf_add(&b, path, (size_t)(q - path)))
    goto out;
  struct oc_buf query;
  oc_buf_init(&query, OC_CAP_HTTP_HEAD);
  int rc = OC_OK;
  for(size_t i = 0; !rc && i < n; i++)
    rc = oc_cassette_query_append(&query, ps[i].name, ps[i].value);
  if(!rc && query.len)
    rc = oc_buf_addc(&b, '?') || oc_buf_add(&b, query.data, query.len);
  oc_buf_free(&query);
  if(!rc)
    out = oc_buf_take(&b, NULL);
out:
  for(size_t i = 0; i < n; i++) {
    free(ps[i].name);
    free(ps[i].value);
  }
  free(ps);
  oc_buf_free(&b);
  return out;
}

static EVP_MD_CTX *key_begin(const char *method, const char *path)
{
  pthread_once(&sha256_once, sha256_fetch);
  /* the query is part of the key, canonical: a router's GET /props?model=a
   * is not its /props?model=b; without a query the key is as it always was */
  char *kpath = !path || !strchr(path, '?') ? NULL : oc_cassette_key_path(path);
  if(path && strchr(path, '?') && !kpath)
    return NULL;
  EVP_MD_CTX *md = EVP_MD_CTX_new();
  const char *m = method ? method : "";
  const char *p = kpath ? kpath : path ? path : "";
  if(md && (EVP_DigestInit_ex(md, sha256_md, NULL) != 1 ||
            EVP_DigestUpdate(md, m, strlen(m) + 1) != 1 || /* the NUL separates the fields */
            EVP_DigestUpdate(md, p, strlen(p) + 1) != 1)) {
    EVP_MD_CTX_free(md);
    md = NULL;
  }
  free(kpath);
  return md;
}

static int key_end(EVP_MD_CTX *md, char out[65])
{
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int dlen = 0;
  if(EVP_DigestFinal_ex(md, digest, &dlen) != 1 || dlen != 32)
    return OC_ENOMEM;
  oc_hex(digest, 32, out);
  return OC_OK;
}

int oc_cassette_request_key(const char *method, const char *path, const char *body,
                            size_t len, char out[65])
{
  out[0] = '\0';
  EVP_MD_CTX *md = key_begin(method, path);
  int rc = md ? hash_body(md, body ? body : "", body ? len : 0) : OC_ENOMEM;
  if(!rc)
    rc = key_end(md, out);
  EVP_MD_CTX_free(md);
  return rc;
}

void oc_keyer_init(struct oc_keyer *k, size_t max_body)
{
  memset(k, 0, sizeof(*k));
  k->max = max_body;
  oc_buf_init(&k->body, max_body);
}

int oc_keyer_begin(struct oc_keyer *k, const char *method, const char *path)
{
  EVP_MD_CTX_free(k->md);
  k->md = key_begin(method, path);
  return k->md ? OC_OK : OC_ENOMEM;
}

int oc_keyer_add(struct oc_keyer *k, const void *p, size_t n)
{
  const unsigned char *b = p;
  if(!k->md)
    return OC_ENOMEM;
  if(n > k->max - k->total) {
    oc_buf_free(&k->body);
    return OC_ETOOBIG;
  }
  k->total += n;
  if(!k->streaming && !k->decided) {
    /* the first byte that is not blank says whether this may be JSON */
    size_t i = 0;
    while(i < n && is_json_blank(b[i]))
      i++;
    if(i < n) {
      k->decided = 1;
      if(!may_start_json(b[i])) {
        k->streaming = 1;
        if(k->body.len && EVP_DigestUpdate(k->md, k->body.data, k->body.len) != 1)
          return OC_ENOMEM;
        oc_buf_free(&k->body);
      }
    }
  }
  if(k->streaming)
    return n && EVP_DigestUpdate(k->md, p, n) != 1 ? OC_ENOMEM : OC_OK;
  return oc_buf_add(&k->body, p, n);
}

int oc_keyer_end(struct oc_keyer *k, char out[65])
{
  out[0] = '\0';
  if(!k->md)
    return OC_ENOMEM;
  int rc = k->streaming ? OC_OK : hash_body(k->md, k->body.data, k->body.len);
  if(!rc)
    rc = key_end(k->md, out);
  EVP_MD_CTX_free(k->md);
  k->md = NULL;
  return rc;
}

const char *oc_keyer_body(const struct oc_keyer *k, size_t *len)
{
  *len = k->streaming ? 0 : k->body.len;
  return k->streaming ? NULL : k->body.data;
}

size_t oc_keyer_held(const struct oc_keyer *k)
{
  return k->body.alloc;
}

void oc_keyer_free(struct oc_keyer *k)
{
  EVP_MD_CTX_free(k->md);
  k->md = NULL;
  oc_buf_free(&k->body);
}

int oc_cassette_update_key(struct oc_cassette *c)
{
  return oc_cassette_request_key(c->method, c->path, c->req_body, c->req_body_len, c->key);
}

/* ---- pieces --------------------------------------------------------- */

static int push_piece(struct oc_cassette *c, size_t end, uint64_t t_ns)
{
  if(c->npieces >= OC_CAP_CASSETTE_PIECES)
    return OC_ETOOBIG;
  struct oc_cassette_piece *p = oc_array_grow(c->pieces, &c->apieces, c->npieces + 1, sizeof(*p));
  if(!p)
    return OC_ENOMEM;
  c->pieces = p;
  c->pieces[c->npieces].end = end;
  c->pieces[c->npieces].t_ns = t_ns;
  c->npieces++;
  return OC_OK;
}

int oc_cassette_add_piece(struct oc_cassette *c, const void *p, size_t n, uint64_t t_ns)
{
  if(n == 0)
    return OC_OK;
  if(n > OC_CAP_BODY || c->body_len > OC_CAP_BODY - n)
    return OC_ETOOBIG;
  /* checksrc: the body grows by exactly what arrived (capped above); a
   * recording is written once, so the copies do not add up */
  char *b = realloc(c->body, c->body_len + n + 1);
  if(!b)
    return OC_ENOMEM;
  c->body = b;
  int rc = push_piece(c, c->body_len + n, t_ns);
  if(rc) {
    c->body[c->body_len] = '\0';
    return rc;
  }
  memcpy(c->body + c->body_len, p, n);
  c->body_len += n;
  c->body[c->body_len] = '\0';
  return OC_OK;
}

/* ---- zlib ----------------------------------------------------------- */

/* zlib allocates through these, so that its allocations are the
 * program's own (the allocation-failure run counts and fails them too) */
static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
  (void)opaque;
  return calloc(items, size);
}

static void z_free(voidpf opaque, voidpf p)
{
  (void)opaque;
  free(p);
}

int oc_gzip(const void *p, size_t n, char **out, size_t *outlen)
{
  z_stream zs;
  memset(&zs, 0, sizeof(zs));
  zs.zalloc = z_alloc;
  zs.zfree = z_free;
  *out = NULL;
  *outlen = 0;
  /* 15 + 16: a gzip wrapper; zlib writes mtime 0, so the bytes depend on
   * the input only and re-imported cassettes do not churn in git. */
  if(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return OC_ENOMEM;
  int rc = OC_ENOMEM;
  uLong bound = deflateBound(&zs, (uLong)n);
  char *buf = malloc(bound ? bound : 1);
  if(!buf)
    goto out;
  zs.next_in = (Bytef *)(uintptr_t)p;
  zs.avail_in = (uInt)n;
  zs.next_out = (Bytef *)buf;
  zs.avail_out = (uInt)bound;
  if(deflate(&zs, Z_FINISH) != Z_STREAM_END)
    goto out;
  *outlen = zs.total_out;
  *out = buf;
  buf = NULL;
  rc = OC_OK;
out:
  deflateEnd(&zs);
  free(buf);
  return rc;
}

/* gunzip with a reason for failure in err (without a file name). */
static int gunzip_err(const void *p, size_t n, size_t max, char **out, size_t *outlen,
                      char *err, size_t errlen)
{
  z_stream zs;
  memset(&zs, 0, sizeof(zs));
  zs.zalloc = z_alloc;
  zs.zfree = z_free;
  *out = NULL;
  *outlen = 0;
  if(inflateInit2(&zs, 15 + 16) != Z_OK) {
    snprintf(err, errlen, "out of memory");
    return OC_ENOMEM;
  }
  struct oc_buf b;
  oc_buf_init(&b, max);
  int rc = OC_OK;
  unsigned char chunk[65536];
  zs.next_in = (Bytef *)(uintptr_t)p;
  zs.avail_in = (uInt)n;
  for(;;) {
    zs.next_out = chunk;
    zs.avail_out = sizeof(chunk);
    int z = inflate(&zs, Z_NO_FLUSH);
    size_t got = sizeof(chunk) - zs.avail_out;
    if(got && (rc = oc_buf_add(&b, chunk, got))) {
      snprintf(err, errlen, "%s", rc == OC_ETOOBIG ? "decompressed data larger than the cap"
                                                   : "out of memory");
      goto out;
    }
    if(z == Z_STREAM_END)
      break;
    if(z == Z_MEM_ERROR) {
      snprintf(err, errlen, "out of memory");
      rc = OC_ENOMEM;
      goto out;
    }
    if(z == Z_BUF_ERROR || (z == Z_OK && zs.avail_in == 0 && got == 0)) {
      snprintf(err, errlen, "gzip data truncated after %zu compressed bytes", n);
      rc = OC_EPARSE;
      goto out;
    }
    if(z != Z_OK) {
      snprintf(err, errlen, "not valid gzip data at compressed byte %zu (%s)",
               n - zs.avail_in, zs.msg ? zs.msg : "corrupt");
      rc = OC_EPARSE;
      goto out;
    }
  }
  if(zs.avail_in) {
    snprintf(err, errlen, "%u stray bytes after the gzip data", zs.avail_in);
    rc = OC_EPARSE;
    goto out;
  }
  *out = oc_buf_take(&b, outlen);
  if(!*out)
    rc = OC_ENOMEM;
out:
  inflateEnd(&zs);
  oc_buf_free(&b);
  return rc;
}

int oc_gunzip(const void *p, size_t n, size_t max, char **out, size_t *outlen)
{
  char err[128];
  return gunzip_err(p, n, max, out, outlen, err, sizeof(err));
}

/* ---- encoding ------------------------------------------------------- */

static cJSON *headers_json(const struct oc_headers *h)
{
  cJSON *arr = cJSON_CreateArray();
  int oom = !arr;
  for(size_t i = 0; !oom && i < h->count; i++) {
    if(oc_header_is_secret(h->items[i].name))
      continue; /* never written, whatever the caller forgot to strip */
    const char *pair[2] = { h->items[i].name, h->items[i].value };
    oc_json_put(&oom, arr, NULL, cJSON_CreateStringArray(pair, 2));
  }
  if(oom) {
    cJSON_Delete(arr);
    return NULL;
  }
  return arr;
}

static cJSON *meta_json(const struct oc_cassette *c, const char *key)
{
  int oom = 0;
  cJSON *root = cJSON_CreateObject();
  oc_json_put(&oom, root, "oacheck_cassette", cJSON_CreateNumber(OC_CASSETTE_VERSION));
  oc_json_put_str_or_null(&oom, root, "name", c->name);
  cJSON *req = oc_json_put(&oom, root, "request", cJSON_CreateObject());
  cJSON *resp = oc_json_put(&oom, root, "response", cJSON_CreateObject());
  cJSON *timing = oc_json_put(&oom, root, "timing", cJSON_CreateObject());
  cJSON *prov = oc_json_put(&oom, root, "provenance", cJSON_CreateObject());
  oc_json_put_str_or_null(&oom, req, "method", c->method);
  oc_json_put_str_or_null(&oom, req, "path", c->path);
  oc_json_put_str_or_null(&oom, req, "key", key);
  oc_json_put(&oom, req, "headers", headers_json(&c->req_headers));
  oc_json_put(&oom, req, "body_bytes",
              c->req_body ? cJSON_CreateNumber((double)c->req_body_len) : cJSON_CreateNull());
  oc_json_put_str_or_null(&oom, resp, "http_version", c->http_version);
  oc_json_put(&oom, resp, "status", cJSON_CreateNumber(c->status));
  oc_json_put_str_or_null(&oom, resp, "reason", c->reason);
  oc_json_put(&oom, resp, "headers", headers_json(&c->headers));
  oc_json_put(&oom, resp, "body_bytes", cJSON_CreateNumber((double)c->body_len));
  oc_json_put(&oom, resp, "complete", cJSON_CreateBool(c->complete));
  oc_json_put(&oom, timing, "recorded", cJSON_CreateBool(c->timing_recorded));
  if(c->timing_recorded) {
    oc_json_put_str_or_null(&oom, timing, "clock", TIME_CLOCK);
    oc_json_put(&oom, timing, "headers_ns", cJSON_CreateNumber((double)c->headers_ns));
  }
  cJSON *ends = oc_json_put(&oom, timing, "piece_ends", cJSON_CreateArray());
  cJSON *times = c->timing_recorded ? oc_json_put(&oom, timing, "piece_ns", cJSON_CreateArray())
                                    : NULL;
  for(size_t i = 0; !oom && i < c->npieces; i++) {
    oc_json_put(&oom, ends, NULL, cJSON_CreateNumber((double)c->pieces[i].end));
    if(times)
      oc_json_put(&oom, times, NULL, cJSON_CreateNumber((double)c->pieces[i].t_ns));
  }
  oc_json_put_str_or_null(&oom, prov, "source", c->source);
  oc_json_put_str_or_null(&oom, prov, "recorded_at", c->recorded_at);
  oc_json_put_str_or_null(&oom, prov, "server", c->server);
  oc_json_put_str_or_null(&oom, prov, "note", c->note);
  oc_json_put(&oom, prov, "test_only", cJSON_CreateBool(c->test_only));
  if(oom) {
    cJSON_Delete(root);
    return NULL;
  }
  return root;
}

/* Check what a reader would refuse, so a bad cassette is never written. */
static int check_consistent(const struct oc_cassette *c, char *err, size_t errlen)
{
  if(!c->method || !c->path || !*c->method || !*c->path) {
    snprintf(err, errlen, "cassette '%s' has no request method or path",
             c->name ? c->name : "(unnamed)");
    return OC_EUSAGE;
  }
  if(c->status < 100 || c->status > 999) {
    snprintf(err, errlen, "cassette '%s': status %d is not an HTTP status",
             c->name ? c->name : "(unnamed)", c->status);
    return OC_EUSAGE;
  }
  size_t prev = 0;
  for(size_t i = 0; i < c->npieces; i++) {
    if(c->pieces[i].end <= prev && !(i == 0 && c->pieces[i].end == 0 && c->body_len == 0)) {
      snprintf(err, errlen, "cassette '%s': piece %zu ends at %zu, not after %zu",
               c->name ? c->name : "(unnamed)", i, c->pieces[i].end, prev);
      return OC_EUSAGE;
    }
    prev = c->pieces[i].end;
  }
  if(c->npieces && prev != c->body_len) {
    snprintf(err, errlen, "cassette '%s': the pieces cover %zu bytes, the body has %zu",
             c->name ? c->name : "(unnamed)", prev, c->body_len);
    return OC_EUSAGE;
  }
  return OC_OK;
}

int oc_cassette_encode(const struct oc_cassette *c, char **out, size_t *outlen, char *err,
                       size_t errlen)
{
  char key[65];
  char *line = NULL;
  cJSON *meta = NULL;
  struct oc_buf raw;
  oc_buf_init(&raw, OC_CAP_CASSETTE);
  *out = NULL;
  *outlen = 0;
  int rc = check_consistent(c, err, errlen);
  if(rc)
    goto out;
  rc = OC_ENOMEM;
  if(oc_cassette_request_key(c->method, c->path, c->req_body, c->req_body_len, key) ||
     !(meta = meta_json(c, key)) || !(line = oc_json_print(meta))) {
    snprintf(err, errlen, "out of memory");
    goto out;
  }
  if(strlen(line) > OC_CAP_CASSETTE_META) {
    snprintf(err, errlen, "cassette '%s': metadata larger than the cap", c->name ? c->name : "");
    rc = OC_ETOOBIG;
    goto out;
  }
  if((rc = oc_buf_adds(&raw, line)) || (rc = oc_buf_addc(&raw, '\n')) ||
     (c->req_body && (rc = oc_buf_add(&raw, c->req_body, c->req_body_len))) ||
     (rc = oc_buf_add(&raw, c->body ? c->body : "", c->body_len))) {
    snprintf(err, errlen, "cassette '%s': %s", c->name ? c->name : "",
             rc == OC_ETOOBIG ? "larger than the cap" : "out of memory");
    goto out;
  }
  /* whatever the server quoted back is masked in the recorded bytes too
   * (the mask keeps lengths, so body_bytes and piece ends stay true) */
  oc_secret_mask(raw.data, raw.len);
  rc = oc_gzip(raw.data, raw.len, out, outlen);
  if(rc)
    snprintf(err, errlen, "out of memory");
out:
  cJSON_Delete(meta);
  free(line);
  oc_buf_free(&raw);
  return rc;
}

/* The tally of what record mode wrote: the paths, not a count, since one
 * run writes some files twice (a case run again alone, an identification
 * request asked again for a router's model) and the operator wants the
 * cassettes in the directory, not the writes.  Off unless a command turns
 * it on: a proxy recording for days would keep every path. */
static pthread_mutex_t tally_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
  int on, lost;
  char **paths;
  size_t n, alloc;
} tally;

void oc_cassette_tally_start(void)
{
  pthread_mutex_lock(&tally_lock);
  tally.on = 1;
  pthread_mutex_unlock(&tally_lock);
}

static void tally_add(const char *path)
{
  pthread_mutex_lock(&tally_lock);
  if(tally.on) {
    char *p = oc_strdup(path);
    char **grown = p ? oc_array_grow(tally.paths, &tally.alloc, tally.n + 1, sizeof(*grown)) : NULL;
    if(grown) {
      tally.paths = grown;
      tally.paths[tally.n++] = p;
    }
    else {
      free(p);
      tally.lost = 1;
    }
  }
  pthread_mutex_unlock(&tally_lock);
}

static int path_cmp(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t oc_cassette_tally_stop(int *lost)
{
  pthread_mutex_lock(&tally_lock);
  size_t distinct = 0;
  if(tally.n)
    qsort(tally.paths, tally.n, sizeof(*tally.paths), path_cmp);
  for(size_t i = 0; i < tally.n; i++) {
    distinct += i == 0 || strcmp(tally.paths[i - 1], tally.paths[i]) != 0;
    if(i)
      free(tally.paths[i - 1]);
  }
  if(tally.n)
    free(tally.paths[tally.n - 1]);
  free(tally.paths);
  if(lost)
    *lost = tally.lost;
  memset(&tally, 0, sizeof(tally));
  pthread_mutex_unlock(&tally_lock);
  return distinct;
}

int oc_cassette_write(const char *path, const struct oc_cassette *c, char *err, size_t errlen)
{
  char *gz = NULL;
  size_t gzlen = 0;
  int rc = oc_cassette_encode(c, &gz, &gzlen, err, errlen);
  if(!rc)
    rc = oc_write_file(path, gz, gzlen, err, errlen);
  free(gz);
  if(!rc)
    tally_add(path);
  return rc;
}

static void mask_str(char *s)
{
  if(s)
    oc_secret_mask(s, strlen(s));
}

static void mask_headers(struct oc_headers *h)
{
  for(size_t i = 0; i < h->count; i++) {
    mask_str(h->items[i].name);
    mask_str(h->items[i].value);
  }
}

void oc_cassette_mask(struct oc_cassette *c)
{
  if(!oc_secret_count())
    return;
  mask_str(c->name);
  mask_str(c->path);
  mask_str(c->reason);
  mask_str(c->source);
  mask_str(c->server);
  mask_str(c->note);
  mask_str(c->file);
  mask_headers(&c->req_headers);
  mask_headers(&c->headers);
  if(c->req_body)
    oc_secret_mask(c->req_body, c->req_body_len);
  if(c->body)
    oc_secret_mask(c->body, c->body_len);
}

/* ---- decoding ------------------------------------------------------- */

/* Decoding context: error messages name the source and the member. */
struct dec {
  const char *what;
  char *err;
  size_t errlen;
};

__attribute__((format(printf, 2, 3))) static int dec_fail(struct dec *d, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  oc_errv(NULL, d->err, d->errlen, d->what, fmt, ap);
  va_end(ap);
  return OC_EPARSE;
}

/* An optional string member: absent or null leaves *out NULL. */
static int dec_str(struct dec *d, const cJSON *obj, const char *where, const char *key,
                   int required, char **out)
{
  const cJSON *it = oc_json_get(obj, key);
  if(!it || cJSON_IsNull(it)) {
    if(required)
      return dec_fail(d, "metadata: %s/%s is missing", where, key);
    return OC_OK;
  }
  if(!cJSON_IsString(it))
    return dec_fail(d, "metadata: %s/%s should be a string, found %s", where, key,
                    oc_json_type_name(it));
  *out = oc_strdup(it->valuestring);
  return *out ? OC_OK : OC_ENOMEM;
}

static int dec_uint(struct dec *d, const cJSON *it, const char *where, double max, uint64_t *out)
{
  if(!cJSON_IsNumber(it))
    return dec_fail(d, "metadata: %s should be an integer from 0 to %.0f, found %s", where, max,
                    it ? oc_json_type_name(it) : "nothing");
  if(!oc_json_is_integer(it) || it->valuedouble < 0 || it->valuedouble > max)
    return dec_fail(d, "metadata: %s should be an integer from 0 to %.0f, found %g", where, max,
                    it->valuedouble);
  *out = (uint64_t)it->valuedouble;
  return OC_OK;
}

static int dec_headers(struct dec *d, const cJSON *obj, const char *where, struct oc_headers *h)
{
  const cJSON *arr = oc_json_get(obj, "headers");
  if(!arr || cJSON_IsNull(arr))
    return OC_OK;
  if(!cJSON_IsArray(arr))
    return dec_fail(d, "metadata: %s/headers should be an array of [name, value]", where);
  size_t i = 0;
  for(const cJSON *p = arr->child; p; p = p->next, i++) {
    const cJSON *n = cJSON_IsArray(p) ? p->child : NULL;
    const cJSON *v = n ? n->next : NULL;
    if(!cJSON_IsString(n) || !cJSON_IsString(v) || v->next || !*n->valuestring)
      return dec_fail(d, "metadata: %s/headers/%zu should be [name, value] strings", where, i);
    if(oc_headers_add(h, n->valuestring, v->valuestring))
      return OC_ENOMEM;
  }
  return OC_OK;
}

static int dec_pieces(struct dec *d, const cJSON *timing, struct oc_cassette *c)
{
  const cJSON *ends = oc_json_get(timing, "piece_ends");
  const cJSON *times = oc_json_get(timing, "piece_ns");
  if(!ends || cJSON_IsNull(ends))
    return c->timing_recorded ? dec_fail(d, "metadata: timing/piece_ends is missing") : OC_OK;
  if(!cJSON_IsArray(ends))
    return dec_fail(d, "metadata: timing/piece_ends should be an array");
  if(c->timing_recorded && !cJSON_IsArray(times))
    return dec_fail(d, "metadata: timing/piece_ns should be an array when timing is recorded");
  if(c->timing_recorded && cJSON_GetArraySize(times) != cJSON_GetArraySize(ends))
    return dec_fail(d, "metadata: timing/piece_ns has %d entries, piece_ends %d",
                    cJSON_GetArraySize(times), cJSON_GetArraySize(ends));
  size_t prev = 0, i = 0;
  uint64_t prev_t = 0;
  const cJSON *t = c->timing_recorded ? times->child : NULL;
  for(const cJSON *e = ends->child; e; e = e->next, i++) {
    char where[64];
    uint64_t end, ns = 0;
    snprintf(where, sizeof(where), "timing/piece_ends/%zu", i);
    int rc = dec_uint(d, e, where, (double)c->body_len, &end);
    if(rc)
      return rc;
    if(end <= prev)
      return dec_fail(d, "metadata: %s is %llu, not after the previous end %zu", where,
                      (unsigned long long)end, prev);
    if(t) {
      snprintf(where, sizeof(where), "timing/piece_ns/%zu", i);
      if((rc = dec_uint(d, t, where, MAX_EXACT_INT, &ns)))
        return rc;
      if(ns < prev_t)
        return dec_fail(d, "metadata: %s goes back in time (%llu < %llu)", where,
                        (unsigned long long)ns, (unsigned long long)prev_t);
      prev_t = ns;
      t = t->next;
    }
    if((rc = push_piece(c, (size_t)end, ns)))
      return rc == OC_ETOOBIG ? dec_fail(d, "metadata: more pieces than the cap") : rc;
    prev = (size_t)end;
  }
  if(c->npieces && prev != c->body_len)
    return dec_fail(d, "metadata: the pieces cover %zu bytes but the body has %zu", prev,
                    c->body_len);
  return OC_OK;
}

static int dec_meta(struct dec *d, const cJSON *m, struct oc_cassette *c, uint64_t *req_len,
                    int *has_req)
{
  int rc;
  uint64_t v;
  if(!cJSON_IsObject(m))
    return dec_fail(d, "metadata: expected a JSON object on the first line");
  const cJSON *ver = oc_json_get(m, "oacheck_cassette");
  if(!ver)
    return dec_fail(d, "metadata: not an oacheck cassette (no 'oacheck_cassette' member)");
  if((rc = dec_uint(d, ver, "oacheck_cassette", 1e9, &v)))
    return rc;
  if(v < 1 || v > OC_CASSETTE_VERSION)
    return dec_fail(d, "metadata: cassette version %llu, this oacheck reads up to %d",
                    (unsigned long long)v, OC_CASSETTE_VERSION);
  const cJSON *req = oc_json_get(m, "request");
  const cJSON *resp = oc_json_get(m, "response");
  const cJSON *timing = oc_json_get(m, "timing");
  const cJSON *prov = oc_json_get(m, "provenance");
  if(!cJSON_IsObject(req) || !cJSON_IsObject(resp))
    return dec_fail(d, "metadata: 'request' and 'response' should be objects");
  if(timing && !cJSON_IsObject(timing))
    return dec_fail(d, "metadata: 'timing' should be an object");
  if(prov && !cJSON_IsObject(prov) && !cJSON_IsNull(prov))
    return dec_fail(d, "metadata: 'provenance' should be an object");
  if((rc = dec_str(d, m, "", "name", 0, &c->name)) ||
     (rc = dec_str(d, req, "request", "method", 1, &c->method)) ||
     (rc = dec_str(d, req, "request", "path", 1, &c->path)) ||
     (rc = dec_headers(d, req, "request", &c->req_headers)) ||
     (rc = dec_str(d, resp, "response", "http_version", 0, &c->http_version)) ||
     (rc = dec_str(d, resp, "response", "reason", 0, &c->reason)) ||
     (rc = dec_headers(d, resp, "response", &c->headers)))
    return rc;
  if(!*c->method || !*c->path)
    return dec_fail(d, "metadata: request/method and request/path must not be empty");
  const cJSON *rb = oc_json_get(req, "body_bytes");
  *has_req = rb && !cJSON_IsNull(rb);
  *req_len = 0;
  if(*has_req && (rc = dec_uint(d, rb, "request/body_bytes", OC_CAP_BODY, req_len)))
    return rc;
  if((rc = dec_uint(d, oc_json_get(resp, "status"), "response/status", 999, &v)))
    return rc;
  if(v < 100)
    return dec_fail(d, "metadata: response/status %llu is not an HTTP status",
                    (unsigned long long)v);
  c->status = (int)v;
  if((rc = dec_uint(d, oc_json_get(resp, "body_bytes"), "response/body_bytes", OC_CAP_BODY, &v)))
    return rc;
  c->body_len = (size_t)v;
  c->complete = oc_json_bool(resp, "complete", 1);
  if(timing) {
    c->timing_recorded = oc_json_bool(timing, "recorded", 0);
    const cJSON *h = oc_json_get(timing, "headers_ns");
    if(c->timing_recorded && h && (rc = dec_uint(d, h, "timing/headers_ns", MAX_EXACT_INT,
                                                 &c->headers_ns)))
      return rc;
  }
  if(prov && cJSON_IsObject(prov)) {
    if((rc = dec_str(d, prov, "provenance", "source", 0, &c->source)) ||
       (rc = dec_str(d, prov, "provenance", "recorded_at", 0, &c->recorded_at)) ||
       (rc = dec_str(d, prov, "provenance", "server", 0, &c->server)) ||
       (rc = dec_str(d, prov, "provenance", "note", 0, &c->note)))
      return rc;
    c->test_only = oc_json_bool(prov, "test_only", 0);
  }
  return OC_OK;
}

int oc_cassette_decode(const char *gz, size_t len, const char *what, struct oc_cassette *c,
                       char *err, size_t errlen)
{
  struct dec d = { what ? what : "cassette", err, errlen };
  char *raw = NULL;
  size_t rawlen = 0;
  cJSON *meta = NULL;
  char inner[256];
  oc_cassette_init(c);
  int rc = gunzip_err(gz, len, OC_CAP_CASSETTE, &raw, &rawlen, inner, sizeof(inner));
  if(rc) {
    dec_fail(&d, "%s", inner);
    goto out;
  }
  const char *nl = memchr(raw, '\n', rawlen);
  if(!nl) {
    rc = dec_fail(&d, "no metadata line (the decompressed data has no newline)");
    goto out;
  }
  size_t mlen = (size_t)(nl - raw);
  struct oc_json_pos pos;
  rc = oc_json_parse_rc(raw, mlen, &pos, &meta);
  if(rc == OC_ENOMEM) {
    dec_fail(&d, "out of memory");
    goto out;
  }
  if(rc) {
    rc = dec_fail(&d, "metadata line is not JSON (column %d)", pos.column);
    goto out;
  }
  uint64_t req_len = 0;
  int has_req = 0;
  rc = dec_meta(&d, meta, c, &req_len, &has_req);
  if(rc)
    goto out;
  size_t rest = rawlen - mlen - 1;
  if(rest != req_len + c->body_len) {
    rc = dec_fail(&d, "the metadata announces %llu request and %zu response body bytes, "
                      "but %zu bytes follow it",
                  (unsigned long long)req_len, c->body_len, rest);
    goto out;
  }
  const char *p = nl + 1;
  rc = OC_ENOMEM;
  if(has_req && !(c->req_body = oc_strndup(p, (size_t)req_len)))
    goto out;
  c->req_body_len = has_req ? (size_t)req_len : 0;
  if(!(c->body = oc_strndup(p + req_len, c->body_len)))
    goto out;
  rc = dec_pieces(&d, oc_json_obj(meta, "timing"), c);
  if(rc)
    goto out;
  rc = oc_cassette_update_key(c);
out:
  if(rc == OC_ENOMEM)
    snprintf(err, errlen, "%s: out of memory", d.what);
  if(rc)
    oc_cassette_free(c);
  cJSON_Delete(meta);
  free(raw);
  return rc;
}

int oc_cassette_read(const char *path, struct oc_cassette *c, char *err, size_t errlen)
{
  char *gz = NULL;
  size_t len = 0;
  oc_cassette_init(c);
  int rc = oc_read_file(path, OC_CAP_CASSETTE, &gz, &len, err, errlen);
  if(rc)
    return rc;
  rc = oc_cassette_decode(gz, len, path, c, err, errlen);
  free(gz);
  if(rc)
    return rc;
  /* The file name is what people see and select by: it wins over the
   * name inside the metadata. */
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  rc = OC_ENOMEM;
  if(!(c->file = oc_strdup(path)))
    goto out;
  if(oc_endswith(base, OC_CASSETTE_EXT) && strlen(base) > strlen(OC_CASSETTE_EXT)) {
    free(c->name);
    if(!(c->name = oc_strndup(base, strlen(base) - strlen(OC_CASSETTE_EXT))))
      goto out;
  }
  else if(!c->name && !(c->name = oc_strdup(base)))
    goto out;
  rc = OC_OK;
out:
  if(rc) {
    snprintf(err, errlen, "%s: out of memory", path);
    oc_cassette_free(c);
  }
  return rc;
}

/* ---- raw exchanges -------------------------------------------------- */

int oc_cassette_from_exchange(const struct oc_exchange *ex, struct oc_cassette *c)
{
  oc_cassette_init(c);
  int rc = OC_ENOMEM;
  if(!(c->name = oc_strdup(ex->name ? ex->name : "")) ||
     !(c->method = oc_strdup(ex->method ? ex->method : "")) ||
     !(c->path = oc_strdup(ex->path ? ex->path : "")))
    goto out;
  if(ex->request && !(c->req_body = oc_strndup(ex->request, ex->request_len)))
    goto out;
  c->req_body_len = ex->request ? ex->request_len : 0;
  if(ex->http_version && !(c->http_version = oc_strdup(ex->http_version)))
    goto out;
  if(ex->reason && !(c->reason = oc_strdup(ex->reason)))
    goto out;
  c->status = ex->status;
  if(oc_headers_copy(&c->headers, &ex->headers))
    goto out;
  if(!(c->body = oc_strndup(ex->body ? ex->body : "", ex->body_len)))
    goto out;
  c->body_len = ex->body_len;
  for(size_t i = 0; i < ex->npieces; i++) {
    /* exchange pieces are ends of the sender's writes; an empty write
     * (a repeated end) says nothing and is left out */
    if(c->npieces && ex->pieces[i] <= c->pieces[c->npieces - 1].end)
      continue;
    if(ex->pieces[i] > ex->body_len)
      break;
    if((rc = push_piece(c, ex->pieces[i], 0)))
      goto out;
  }
  if(c->npieces && c->pieces[c->npieces - 1].end != c->body_len)
    c->npieces = 0; /* boundaries that do not cover the body are no boundaries */
  c->timing_recorded = 0;
  if(ex->note) {
    if(!(c->note = oc_strdup(ex->note)))
      goto out;
    c->test_only = 1;
  }
  rc = oc_cassette_update_key(c);
out:
  if(rc)
    oc_cassette_free(c);
  return rc;
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

__attribute__((format(printf, 3, 4))) static void report(void (*on_error)(void *, const char *),
                                                        void *ctx, const char *fmt, ...)
{
  char msg[OC_CAP_MESSAGE];
  va_list ap;
  va_start(ap, fmt);
  oc_errv(NULL, msg, sizeof(msg), NULL, fmt, ap);
  va_end(ap);
  if(on_error)
    on_error(ctx, msg);
  else
    oc_warn("%s", msg);
}

/* A list of names that grows to at most max entries. */
struct names {
  char **v;
  size_t n, alloc;
};

static int names_add(struct names *ns, char *s)
{
  if(!s)
    return OC_ENOMEM;
  char **v = ns->n < 1000000 ? oc_array_grow(ns->v, &ns->alloc, ns->n + 1, sizeof(*v)) : NULL;
  if(!v) {
    free(s);
    return OC_ENOMEM;
  }
  ns->v = v;
  ns->v[ns->n++] = s;
  return OC_OK;
}

static void names_free(struct names *ns)
{
  for(size_t i = 0; i < ns->n; i++)
    free(ns->v[i]);
  free(ns->v);
  memset(ns, 0, sizeof(*ns));
}

int oc_cassette_walk_raw(const char *dir, int with_subdirs,
                         int (*take)(void *ctx, struct oc_cassette *c),
                         void (*on_error)(void *ctx, const char *msg), void *ctx)
{
  char err[OC_CAP_MESSAGE];
  struct names ns = { 0 };
  char *ipath = oc_path_join(dir, "index.json");
  cJSON *index = NULL;
  DIR *dh = NULL;
  int rc = OC_ENOMEM;
  if(!ipath)
    goto out;
  index = oc_json_parse_file(ipath, err, sizeof(err));
  if(!index || !cJSON_IsObject(index)) {
    if(index)
      snprintf(err, sizeof(err), "%s: expected an object mapping names to {method, path}", ipath);
    report(on_error, ctx, "%s", err);
    rc = OC_EPARSE;
    goto out;
  }
  for(const cJSON *e = index->child; e; e = e->next)
    if(with_subdirs || !strchr(e->string, '/'))
      if((rc = names_add(&ns, oc_strdup(e->string))))
        goto out;
  dh = opendir(dir);
  for(struct dirent *de; dh && (de = readdir(dh));) {
    const char *f = de->d_name;
    size_t fl = strlen(f);
    if(!oc_endswith(f, ".wire.http") || fl <= 10)
      continue;
    char *base = oc_strndup(f, fl - 10);
    int listed = base && cJSON_IsObject(oc_json_get(index, base));
    free(base);
    if(listed && (rc = names_add(&ns, oc_strndup(f, fl - 5))))
      goto out;
  }
  if(ns.n)
    qsort(ns.v, ns.n, sizeof(*ns.v), cmp_str);
  rc = OC_OK;
  for(size_t i = 0; i < ns.n; i++) {
    struct oc_exchange ex;
    struct oc_cassette c;
    int lrc = oc_exchange_load(dir, ns.v[i], &ex, err, sizeof(err));
    if(lrc == OC_ENOMEM) {
      rc = lrc;
      goto out;
    }
    if(lrc) {
      report(on_error, ctx, "%s: %s: %s", dir, ns.v[i], err);
      continue;
    }
    lrc = oc_cassette_from_exchange(&ex, &c);
    oc_exchange_free(&ex);
    if(lrc) {
      rc = lrc;
      goto out;
    }
    if((rc = take(ctx, &c)))
      goto out;
  }
out:
  if(rc == OC_ENOMEM)
    report(on_error, ctx, "%s: out of memory", dir);
  if(dh)
    closedir(dh);
  names_free(&ns);
  cJSON_Delete(index);
  free(ipath);
  return rc;
}

/* ---- the store ------------------------------------------------------ */

void oc_cassette_store_init(struct oc_cassette_store *s)
{
  memset(s, 0, sizeof(*s));
}

void oc_cassette_store_free(struct oc_cassette_store *s)
{
  if(!s)
    return;
  for(size_t i = 0; i < s->count; i++)
    oc_cassette_free(&s->items[i]);
  free(s->items);
  oc_cassette_store_init(s);
}

int oc_cassette_store_take(struct oc_cassette_store *s, struct oc_cassette *c)
{
  struct oc_cassette *v = s->count < 1000000 ? oc_array_grow(s->items, &s->alloc, s->count + 1, sizeof(*v))
                                              : NULL;
  if(!v) {
    oc_cassette_free(c);
    return OC_ENOMEM;
  }
  s->items = v;
  s->items[s->count++] = *c;
  oc_cassette_init(c);
  return OC_OK;
}

static int take_into(void *ctx, struct oc_cassette *c)
{
  return oc_cassette_store_take(ctx, c);
}

/* Error reporting for the loader: remembers that something was skipped. */
struct load_ctx {
  void (*on_error)(void *, const char *);
  void *ctx;
  int skipped;
  struct oc_cassette_store *tmp;
};

static void load_error(void *ctx, const char *msg)
{
  struct load_ctx *lc = ctx;
  lc->skipped = 1;
  if(lc->on_error)
    lc->on_error(lc->ctx, msg);
  else
    oc_warn("%s", msg);
}

static int load_take(void *ctx, struct oc_cassette *c)
{
  struct load_ctx *lc = ctx;
  return take_into(lc->tmp, c);
}

static int cmp_items(const void *a, const void *b)
{
  const struct oc_cassette *x = a, *y = b;
  int d = strcmp(x->name, y->name);
  if(d)
    return d;
  /* a cassette file before the raw exchange of the same name */
  return (x->file == NULL) - (y->file == NULL);
}

/* Within one directory, the same request may be recorded twice: a live
 * recording holds a case's exchange and the identification request that
 * asked the same thing (GET /props), the latter without arrival times.
 * The first match answers, so a timed one is moved ahead of an untimed
 * one with the same key: a replayed case keeps its timeline. */
static void prefer_timed(struct oc_cassette_store *tmp)
{
  for(size_t i = 0; i < tmp->count; i++) {
    if(tmp->items[i].timing_recorded)
      continue;
    for(size_t j = i + 1; j < tmp->count; j++)
      if(tmp->items[j].timing_recorded && strcmp(tmp->items[j].key, tmp->items[i].key) == 0) {
        struct oc_cassette c = tmp->items[i];
        tmp->items[i] = tmp->items[j];
        tmp->items[j] = c;
        break;
      }
  }
}

static int load_dir(struct oc_cassette_store *s, const char *dir, struct load_ctx *lc)
{
  struct oc_cassette_store tmp;
  char err[OC_CAP_MESSAGE];
  struct names ns = { 0 };
  oc_cassette_store_init(&tmp);
  lc->tmp = &tmp;
  int rc = OC_OK;
  DIR *dh = opendir(dir);
  if(!dh) {
    report(lc->on_error, lc->ctx, "%s: cannot open the recordings directory: %s", dir,
           strerror(errno));
    return OC_ENOTFOUND;
  }
  for(struct dirent *de; (de = readdir(dh));) {
    if(!oc_endswith(de->d_name, OC_CASSETTE_EXT) || de->d_name[0] == '.')
      continue;
    if((rc = names_add(&ns, oc_path_join(dir, de->d_name))))
      goto out;
  }
  if(ns.n)
    qsort(ns.v, ns.n, sizeof(*ns.v), cmp_str);
  for(size_t i = 0; i < ns.n; i++) {
    struct oc_cassette c;
    int lrc = oc_cassette_read(ns.v[i], &c, err, sizeof(err));
    if(lrc == OC_ENOMEM) {
      rc = lrc;
      goto out;
    }
    if(lrc) {
      load_error(lc, err);
      continue;
    }
    if((rc = oc_cassette_store_take(&tmp, &c)))
      goto out;
  }
  char *index = oc_path_join(dir, "index.json");
  if(!index) {
    rc = OC_ENOMEM;
    goto out;
  }
  int raw = oc_is_file(index);
  free(index);
  if(raw) {
    int wrc = oc_cassette_walk_raw(dir, 0, load_take, load_error, lc);
    if(wrc == OC_ENOMEM) {
      rc = wrc;
      goto out;
    }
  }
  if(tmp.count)
    qsort(tmp.items, tmp.count, sizeof(*tmp.items), cmp_items);
  prefer_timed(&tmp);
  for(size_t i = 0; i < tmp.count; i++)
    if((rc = oc_cassette_store_take(s, &tmp.items[i])))
      goto out;
out:
  closedir(dh);
  names_free(&ns);
  oc_cassette_store_free(&tmp);
  return rc;
}

int oc_cassette_store_load(struct oc_cassette_store *s, const char *const *dirs, size_t ndirs,
                           void (*on_error)(void *ctx, const char *msg), void *ctx)
{
  struct load_ctx lc = { on_error, ctx, 0, NULL };
  int missing = 0;
  for(size_t i = 0; i < ndirs; i++) {
    if(!oc_is_dir(dirs[i])) {
      /* a cassette given for its directory is the likely slip */
      report(on_error, ctx,
             oc_is_file(dirs[i]) ? "%s: not a directory: give the directory that holds the recordings"
                                 : "%s: no such recordings directory",
             dirs[i]);
      missing = 1;
      continue;
    }
    int rc = load_dir(s, dirs[i], &lc);
    if(rc == OC_ENOMEM)
      return rc;
    if(rc == OC_ENOTFOUND)
      missing = 1;
  }
  return missing ? OC_ENOTFOUND : lc.skipped ? OC_EPARSE : OC_OK;
}

const struct oc_cassette *oc_cassette_store_find_key(const struct oc_cassette_store *s,
                                                     const char *key)
{
  for(size_t i = 0; key && i < s->count; i++)
    if(strcmp(s->items[i].key, key) == 0)
      return &s->items[i];
  return NULL;
}

const struct oc_cassette *oc_cassette_store_find_name(const struct oc_cassette_store *s,
                                                      const char *name)
{
  for(size_t i = 0; name && i < s->count; i++)
    if(strcmp(s->items[i].name, name) == 0)
      return &s->items[i];
  return NULL;
}

/* Shared top-level members minus differing ones: how alike two bodies are. */
static long body_likeness(const cJSON *want, const struct oc_cassette *c)
{
  if(!cJSON_IsObject(want) || !c->req_body)
    return 0;
  cJSON *have = oc_json_parse(c->req_body, c->req_body_len, NULL);
  long score = 0;
  if(cJSON_IsObject(have)) {
    for(const cJSON *m = want->child; m; m = m->next) {
      const cJSON *o = oc_json_get(have, m->string);
      score += o && oc_json_equal(m, o) ? 1 : -1;
    }
    for(const cJSON *m = have->child; m; m = m->next)
      if(!oc_json_get(want, m->string))
        score--;
  }
  cJSON_Delete(have);
  return score;
}

struct ranked {
  const struct oc_cassette *c;
  int suffix;     /* the name ends with ".NAME" of the one asked for: the one meant */
  int group;      /* 0 same method and path, 1 same path, 2 other */
  long likeness;  /* higher is nearer */
  size_t distance;/* lower is nearer */
  size_t order;
};

static int cmp_ranked(const void *a, const void *b)
{
  const struct ranked *x = a, *y = b;
  if(x->suffix != y->suffix)
    return y->suffix - x->suffix;
  if(x->group != y->group)
    return x->group - y->group;
  if(x->likeness != y->likeness)
    return x->likeness > y->likeness ? -1 : 1;
  if(x->distance != y->distance)
    return x->distance < y->distance ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

size_t oc_cassette_store_nearest(const struct oc_cassette_store *s, const char *method,
                                 const char *path, const char *body, size_t len,
                                 const char *name, const struct oc_cassette **out, size_t max)
{
  if(!s->count || !max)
    return 0;
  struct ranked *r = calloc(s->count, sizeof(*r));
  if(!r)
    return 0;
  cJSON *want = body && len ? oc_json_parse(body, len, NULL) : NULL;
  for(size_t i = 0; i < s->count; i++) {
    const struct oc_cassette *c = &s->items[i];
    r[i].c = c;
    r[i].order = i;
    int same_path = oc_streq(c->path, path);
    r[i].group = same_path && oc_strcaseeq(c->method, method ? method : "") ? 0
                 : same_path                                                 ? 1
                                                                             : 2;
    if(r[i].group == 0)
      r[i].likeness = body_likeness(want, c);
    /* names ranked by their first 64 bytes: enough to rank, bounded work */
    size_t nl = name ? strlen(name) : 0, cl = name ? strlen(c->name) : 0;
    r[i].distance = name ? oc_edit_distance(name, nl < 64 ? nl : 64, c->name, cl < 64 ? cl : 64, 64) : 0;
    /* "chat-basic" asked, "plain.chat-basic" shipped: the suite's prefix left out */
    r[i].suffix = name && nl && cl > nl && c->name[cl - nl - 1] == '.' &&
                  memcmp(c->name + cl - nl, name, nl) == 0;
  }
  qsort(r, s->count, sizeof(*r), cmp_ranked);
  size_t n = 0;
  for(size_t i = 0; i < s->count && n < max; i++) {
    /* one entry per recording name: the first directory's */
    int dup = 0;
    for(size_t j = 0; j < n; j++)
      dup |= strcmp(out[j]->name, r[i].c->name) == 0;
    if(!dup)
      out[n++] = r[i].c;
  }
  cJSON_Delete(want);
  free(r);
  return n;
}
