/* jdoc.c — a strict RFC 8259 reader into a reusable arena, plus the
 * getters, pointers, equality and cJSON conversions of jdoc.h.  It knows
 * nothing of SSE, chat chunks or schemas; callers decide what the values
 * mean and how to report the counters (duplicates, invalid UTF-8).
 *
 * Shape of a parse: recursive descent.  Elements of open containers wait
 * on two scratch stacks (values, members) and are copied into the arena
 * in one piece when their container closes, so every array and object is
 * contiguous.  The arena's blocks and the stacks are kept across parses:
 * parsing document after document of similar size allocates nothing. */
#include "config.h"
#include "jdoc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"

#define ARENA_MIN_BLOCK (64u << 10)
#define DUP_LINEAR_MAX 16 /* objects up to this size are checked pairwise */

struct oc_jarena_block {
  struct oc_jarena_block *next;
  size_t size; /* bytes in data */
  size_t used;
  unsigned char data[]; /* offset 24: 8-byte aligned, all we need */
};

/* Parse stacks and the duplicate-key hash table, reused across parses. */
struct oc_jscratch {
  struct oc_jv *vals;
  size_t nvals, avals;
  struct oc_jmember *mems;
  size_t nmems, amems;
  uint32_t *htab;
  size_t ahtab;
  int alloc_rc; /* why the last allocation failed: OC_ENOMEM or OC_ETOOBIG */
};

/* ---- arena ------------------------------------------------------------ */

void oc_jdoc_init(struct oc_jdoc *d)
{
  memset(d, 0, sizeof(*d));
  d->max_depth = 512;
  d->max_bytes = OC_CAP_BODY;
  d->max_arena = OC_CAP_JDOC_ARENA;
}

void oc_jdoc_free(struct oc_jdoc *d)
{
  if(!d)
    return;
  struct oc_jarena_block *b = d->blocks;
  while(b) {
    struct oc_jarena_block *next = b->next;
    free(b);
    b = next;
  }
  if(d->scratch) {
    free(d->scratch->vals);
    free(d->scratch->mems);
    free(d->scratch->htab);
    free(d->scratch);
  }
  size_t depth = d->max_depth, bytes = d->max_bytes, arena = d->max_arena;
  memset(d, 0, sizeof(*d));
  d->max_depth = depth;
  d->max_bytes = bytes;
  d->max_arena = arena;
}

/* Forget the previous document; keep every block. */
static int arena_reset(struct oc_jdoc *d)
{
  for(struct oc_jarena_block *b = d->blocks; b; b = b->next)
    b->used = 0;
  d->cur = d->blocks;
  d->arena_used = 0;
  d->root = NULL;
  d->duplicate_keys = 0;
  d->invalid_utf8 = 0;
  d->first_invalid_utf8 = 0;
  if(!d->max_arena)
    d->max_arena = OC_CAP_JDOC_ARENA;
  if(!d->scratch) {
    d->scratch = calloc(1, sizeof(*d->scratch));
    if(!d->scratch)
      return OC_ENOMEM;
  }
  d->scratch->nvals = 0;
  d->scratch->nmems = 0;
  d->scratch->alloc_rc = OC_OK;
  return OC_OK;
}

static void *arena_alloc_slow(struct oc_jdoc *d, size_t n)
{
  /* An unused block further down the list that is big enough?  Move it
   * right after the current one, so the next parse walks the same path. */
  struct oc_jarena_block *prev = d->cur, *b = d->cur ? d->cur->next : NULL;
  while(b && b->size < n) {
    prev = b;
    b = b->next;
  }
  if(b) {
    if(prev != d->cur) {
      prev->next = b->next;
      b->next = d->cur->next;
      d->cur->next = b;
    }
  }
  else {
    size_t size = d->arena_alloc > ARENA_MIN_BLOCK ? d->arena_alloc : ARENA_MIN_BLOCK;
    if(size < n)
      size = n;
    if(d->arena_alloc + size > d->max_arena)
      size = n; /* the last stretch: exactly what is needed */
    if(d->arena_alloc + size > d->max_arena || size > SIZE_MAX - sizeof(*b)) {
      d->scratch->alloc_rc = OC_ETOOBIG;
      return NULL;
    }
    b = malloc(sizeof(*b) + size);
    if(!b) {
      d->scratch->alloc_rc = OC_ENOMEM;
      return NULL;
    }
    b->size = size;
    b->used = 0;
    d->arena_alloc += size;
    d->arena_grows++;
    if(d->cur) {
      b->next = d->cur->next;
      d->cur->next = b;
    }
    else {
      b->next = d->blocks;
      d->blocks = b;
    }
  }
  d->cur = b;
  b->used = n;
  d->arena_used += n;
  return b->data;
}

static inline void *arena_alloc(struct oc_jdoc *d, size_t n)
{
  n = (n + 7) & ~(size_t)7;
  struct oc_jarena_block *b = d->cur;
  if(b && b->size - b->used >= n) {
    void *p = b->data + b->used;
    b->used += n;
    d->arena_used += n;
    return p;
  }
  return arena_alloc_slow(d, n);
}

/* Give back the tail of the most recent allocation (decoded strings are
 * shorter than their source text). */
static inline void arena_shrink(struct oc_jdoc *d, size_t had, size_t now)
{
  had = (had + 7) & ~(size_t)7;
  now = (now + 7) & ~(size_t)7;
  d->cur->used -= had - now;
  d->arena_used -= had - now;
}

/* Grow a scratch array to hold at least want elements of size sz. */
static int scratch_grow(struct oc_jdoc *d, void **arr, size_t *alloc, size_t want, size_t sz)
{
  /* the size it will grow to, first, so the cap is checked before any
   * memory is taken; oc_array_grow then lands on exactly that size */
  size_t n = *alloc ? *alloc : 64;
  while(n < want) {
    if(n > SIZE_MAX / 2 / sz)
      return OC_ETOOBIG;
    n *= 2;
  }
  size_t extra = (n - *alloc) * sz;
  if(d->arena_alloc + extra > d->max_arena)
    return OC_ETOOBIG;
  void *p = oc_array_grow(*arr, alloc, n, sz);
  if(!p)
    return OC_ENOMEM;
  *arr = p;
  d->arena_alloc += extra;
  return OC_OK;
}

/* ---- parser ----------------------------------------------------------- */

struct ps {
  const unsigned char *start, *p, *end;
  struct oc_jdoc *d;
  struct oc_jerr *err;
};

static int fail(struct ps *s, const unsigned char *at, const char *msg, int rc)
{
  if(s->err) {
    s->err->offset = (size_t)(at - s->start);
    s->err->message = msg;
  }
  return rc;
}

static int fail_alloc(struct ps *s)
{
  int rc = s->d->scratch->alloc_rc ? s->d->scratch->alloc_rc : OC_ENOMEM;
  return fail(s, s->p, rc == OC_ETOOBIG ? "document needs more memory than its cap" : "out of memory",
              rc);
}

static inline void skip_ws(struct ps *s)
{
  const unsigned char *p = s->p, *end = s->end;
  if(p < end && *p > ' ')
    return; /* the common case: compact JSON */
  while(p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
    p++;
  s->p = p;
}

/* Byte classes inside a string: 0 plain, 1 '"', 2 '\\', 3 control, 4 non-ASCII. */
static const unsigned char str_class[256] = {
  3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
  0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
  4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
  4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
  4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4};

/* Does w hold a byte that a string scan must look at: '"', '\\', a
 * control character or a non-ASCII byte?  (Bit tricks from "Bit
 * Twiddling Hacks": a zero byte in x is flagged by (x - 0x01..) & ~x.) */
static inline uint64_t word_special(uint64_t w)
{
  const uint64_t ones = UINT64_C(0x0101010101010101), high = UINT64_C(0x8080808080808080);
  uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
  uint64_t t = ((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w) | w;
  /* Borrows can flag bytes above a special one, never below it: on a
   * little-endian machine the lowest flag marks the first special byte. */
  return t & high;
}

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlongs,
 * no surrogates, nothing above U+10FFFF), or 0. */
static inline size_t utf8_seq(const unsigned char *p, const unsigned char *end)
{
  unsigned char c = p[0];
  size_t left = (size_t)(end - p);
  if(c >= 0xC2 && c <= 0xDF)
    return left >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
  if(c >= 0xE0 && c <= 0xEF) {
    if(left < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80)
      return 0;
    if((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0))
      return 0;
    return 3;
  }
  if(c >= 0xF0 && c <= 0xF4) {
    if(left < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80)
      return 0;
    if((c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] >= 0x90))
      return 0;
    return 4;
  }
  return 0;
}

static inline unsigned read_hex4(const unsigned char *p)
{
  return (unsigned)(oc_hexval(p[0]) << 12 | oc_hexval(p[1]) << 8 | oc_hexval(p[2]) << 4 | oc_hexval(p[3]));
}

static inline unsigned char *put_utf8(unsigned char *o, uint32_t cp)
{
  if(cp < 0x80)
    *o++ = (unsigned char)cp;
  else if(cp < 0x800) {
    *o++ = (unsigned char)(0xC0 | (cp >> 6));
    *o++ = (unsigned char)(0x80 | (cp & 0x3F));
  }
  else if(cp < 0x10000) {
    /* lone surrogates land here too, as their 3-byte (WTF-8) form */
    *o++ = (unsigned char)(0xE0 | (cp >> 12));
    *o++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    *o++ = (unsigned char)(0x80 | (cp & 0x3F));
  }
  else {
    *o++ = (unsigned char)(0xF0 | (cp >> 18));
    *o++ = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    *o++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    *o++ = (unsigned char)(0x80 | (cp & 0x3F));
  }
  return o;
}

static inline void note_bad_utf8(size_t off, size_t *first_bad)
{
  if(*first_bad == SIZE_MAX)
    *first_bad = off;
}

/* Resolve the escapes of a validated string body [q, end_q) into o; lone
 * surrogates are written as 3-byte sequences and reported in first_bad.
 * Returns the end of the output. */
static unsigned char *decode_escapes(struct ps *s, const unsigned char *q, const unsigned char *end_q,
                                     unsigned char *o, size_t *first_bad)
{
  while(q < end_q) {
    const unsigned char *bs = memchr(q, '\\', (size_t)(end_q - q));
    if(!bs)
      bs = end_q;
    memcpy(o, q, (size_t)(bs - q));
    o += bs - q;
    q = bs;
    if(q >= end_q)
      break;
    unsigned char c = q[1];
    switch(c) {
    case 'b': *o++ = '\b'; break;
    case 'f': *o++ = '\f'; break;
    case 'n': *o++ = '\n'; break;
    case 'r': *o++ = '\r'; break;
    case 't': *o++ = '\t'; break;
    case 'u': {
      uint32_t cp = read_hex4(q + 2);
      if(cp >= 0xD800 && cp <= 0xDBFF && end_q - q >= 12 && q[6] == '\\' && q[7] == 'u') {
        uint32_t lo = read_hex4(q + 8);
        if(lo >= 0xDC00 && lo <= 0xDFFF) {
          o = put_utf8(o, 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00));
          q += 12;
          continue;
        }
      }
      if(cp >= 0xD800 && cp <= 0xDFFF)
        note_bad_utf8((size_t)(q - s->start), first_bad);
      o = put_utf8(o, cp);
      q += 6;
      continue;
    }
    default: *o++ = c; break; /* '"', '\\', '/' */
    }
    q += 2;
  }
  return o;
}

/* Parse the string at s->p (on its opening quote) into the arena. */
static int parse_string(struct ps *s, const char **out, uint32_t *out_len)
{
  const unsigned char *q = s->p + 1, *end = s->end, *body = q;
  int escapes = 0;
  size_t first_bad = SIZE_MAX;
  for(;;) {
    /* eight bytes at a time while none of them is special */
    while(end - q >= 8) {
      uint64_t w, m;
      memcpy(&w, q, 8);
      if((m = word_special(w))) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        q += __builtin_ctzll(m) >> 3;
#endif
        break;
      }
      q += 8;
    }
    while(q < end && !str_class[*q])
      q++;
    if(q >= end)
      return fail(s, end, "unterminated string", OC_EPARSE);
    switch(str_class[*q]) {
    case 1:
      goto closed;
    case 2:
      escapes = 1;
      if(q + 1 >= end)
        return fail(s, end, "unterminated string", OC_EPARSE);
      switch(q[1]) {
      case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
        q += 2;
        break;
      case 'u':
        for(int i = 2; i < 6; i++) {
          if(q + i >= end)
            return fail(s, end, "unterminated string", OC_EPARSE);
          if(oc_hexval(q[i]) < 0)
            return fail(s, q + i, "invalid \\u escape: expected 4 hex digits", OC_EPARSE);
        }
        q += 6;
        break;
      default:
        return fail(s, q + 1, "invalid escape in string", OC_EPARSE);
      }
      break;
    case 3:
      return fail(s, q, "control character in string (must be escaped)", OC_EPARSE);
    default: {
      size_t n = utf8_seq(q, end);
      if(n)
        q += n;
      else {
        note_bad_utf8((size_t)(q - s->start), &first_bad);
        q++;
      }
    }
    }
  }
closed:;
  size_t raw = (size_t)(q - body);
  if(raw >= UINT32_MAX)
    return fail(s, s->p, "string too long", OC_ETOOBIG);
  unsigned char *dst = arena_alloc(s->d, raw + 1);
  if(!dst)
    return fail_alloc(s);
  size_t len = raw;
  if(!escapes)
    memcpy(dst, body, raw);
  else {
    len = (size_t)(decode_escapes(s, body, q, dst, &first_bad) - dst);
    arena_shrink(s->d, raw + 1, len + 1);
  }
  dst[len] = 0;
  if(first_bad != SIZE_MAX) {
    if(!s->d->invalid_utf8 || first_bad < s->d->first_invalid_utf8)
      s->d->first_invalid_utf8 = first_bad;
    s->d->invalid_utf8++;
  }
  *out = (const char *)dst;
  *out_len = (uint32_t)len;
  s->p = q + 1;
  return OC_OK;
}

static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int parse_number(struct ps *s, struct oc_jv *v)
{
  const unsigned char *p = s->p, *end = s->end, *start = p;
  int neg = 0, is_int = 1;
  uint64_t mant = 0;
  int digits = 0;     /* significant digits in mant */
  int truncated = 0;  /* digits did not fit in mant */
  long e10 = 0;
  if(*p == '-') {
    neg = 1;
    p++;
  }
  if(p >= end)
    return fail(s, end, "unexpected end of input in number", OC_EPARSE);
  if(*p == '0') {
    p++;
    if(p < end && *p >= '0' && *p <= '9')
      return fail(s, p, "leading zeros are not allowed in numbers", OC_EPARSE);
  }
  else if(*p >= '1' && *p <= '9') {
    while(p < end && *p >= '0' && *p <= '9') {
      if(digits < 19) {
        mant = mant * 10 + (uint64_t)(*p - '0');
        digits++;
      }
      else {
        truncated = 1;
        e10++;
      }
      p++;
    }
  }
  else
    return fail(s, p, "expected a digit in number", OC_EPARSE);
  if(p < end && *p == '.') {
    is_int = 0;
    p++;
    if(p >= end || *p < '0' || *p > '9')
      return fail(s, p, "expected a digit after '.' in number", OC_EPARSE);
    while(p < end && *p >= '0' && *p <= '9') {
      if(digits < 19) {
        if(mant || *p != '0')
          digits++;
        mant = mant * 10 + (uint64_t)(*p - '0');
        e10--;
      }
      else
        truncated = 1;
      p++;
    }
  }
  if(p < end && (*p == 'e' || *p == 'E')) {
    is_int = 0;
    p++;
    int eneg = 0;
    if(p < end && (*p == '+' || *p == '-')) {
      eneg = *p == '-';
      p++;
    }
    if(p >= end || *p < '0' || *p > '9')
      return fail(s, p, "expected a digit in the exponent", OC_EPARSE);
    long ex = 0;
    while(p < end && *p >= '0' && *p <= '9') {
      if(ex < 100000)
        ex = ex * 10 + (*p - '0');
      p++;
    }
    e10 += eneg ? -ex : ex;
  }
  double d;
  if(!truncated && mant <= (UINT64_C(1) << 53) && e10 >= -22 && e10 <= 22) {
    /* Clinger's fast path: both operands exact, one rounding */
    d = (double)mant;
    d = e10 < 0 ? d / pow10_exact[-e10] : d * pow10_exact[e10];
    if(neg)
      d = -d;
  }
  else {
    /* The program never calls setlocale, so strtod reads '.' as in C. */
    size_t n = (size_t)(p - start);
    char small[128], *tmp = n < sizeof(small) ? small : malloc(n + 1);
    if(!tmp)
      return fail(s, start, "out of memory", OC_ENOMEM);
    memcpy(tmp, start, n);
    tmp[n] = 0;
    d = strtod(tmp, NULL);
    if(tmp != small)
      free(tmp);
  }
  if(!isfinite(d))
    return fail(s, start, "number out of range (not a finite double)", OC_EPARSE);
  v->type = OC_JNUMBER;
  v->int_literal = (uint8_t)is_int;
  v->u.num = d;
  s->p = p;
  return OC_OK;
}

static int parse_literal(struct ps *s, const char *lit, size_t n, enum oc_jtype t, struct oc_jv *v)
{
  for(size_t i = 0; i < n; i++) {
    if(s->p + i >= s->end)
      return fail(s, s->end, "unexpected end of input in literal", OC_EPARSE);
    if(s->p[i] != (unsigned char)lit[i])
      return fail(s, s->p + i,
                  t == OC_JTRUE    ? "invalid literal (expected true)"
                  : t == OC_JFALSE ? "invalid literal (expected false)"
                                   : "invalid literal (expected null)",
                  OC_EPARSE);
  }
  s->p += n;
  v->type = (uint8_t)t;
  return OC_OK;
}

static inline int key_eq(const struct oc_jmember *a, const struct oc_jmember *b)
{
  /* keys are NUL-terminated, so key[0] is readable even when empty */
  return a->key_len == b->key_len && a->key[0] == b->key[0] &&
         memcmp(a->key, b->key, a->key_len) == 0;
}

static uint32_t key_hash(const char *k, size_t n)
{
  uint32_t h = 2166136261u;
  for(size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)k[i]) * 16777619u;
  return h;
}

/* Count member names that occur more than once in m[0..n).  Pairwise for
 * small objects, a hash table for big ones (a hostile 100k-member object
 * must not take quadratic time). */
static int count_duplicates(struct oc_jdoc *d, const struct oc_jmember *m, size_t n, size_t *dups)
{
  *dups = 0;
  if(n <= DUP_LINEAR_MAX) {
    for(size_t i = 1; i < n; i++)
      for(size_t j = 0; j < i; j++)
        if(key_eq(&m[i], &m[j])) {
          (*dups)++;
          break;
        }
    return OC_OK;
  }
  struct oc_jscratch *sc = d->scratch;
  size_t cap = 64;
  while(cap < 2 * n)
    cap *= 2;
  if(sc->ahtab < cap) {
    int rc = scratch_grow(d, (void **)&sc->htab, &sc->ahtab, cap, sizeof(uint32_t));
    if(rc)
      return rc;
  }
  memset(sc->htab, 0xFF, cap * sizeof(uint32_t));
  for(size_t i = 0; i < n; i++) {
    size_t h = key_hash(m[i].key, m[i].key_len) & (cap - 1);
    for(;;) {
      uint32_t slot = sc->htab[h];
      if(slot == UINT32_MAX) {
        sc->htab[h] = (uint32_t)i;
        break;
      }
      if(key_eq(&m[slot], &m[i])) {
        (*dups)++;
        break;
      }
      h = (h + 1) & (cap - 1);
    }
  }
  return OC_OK;
}

static int parse_value(struct ps *s, struct oc_jv *v, size_t depth);

static int parse_array(struct ps *s, struct oc_jv *v, size_t depth)
{
  struct oc_jscratch *sc = s->d->scratch;
  size_t base = sc->nvals;
  int rc;
  s->p++;
  skip_ws(s);
  if(s->p < s->end && *s->p == ']') {
    s->p++;
    goto done;
  }
  for(;;) {
    struct oc_jv item;
    rc = parse_value(s, &item, depth);
    if(rc)
      return rc;
    if(sc->nvals == sc->avals) {
      rc = scratch_grow(s->d, (void **)&sc->vals, &sc->avals, sc->nvals + 1, sizeof(item));
      if(rc)
        return fail(s, s->p, rc == OC_ETOOBIG ? "document needs more memory than its cap" : "out of memory", rc);
    }
    sc->vals[sc->nvals++] = item;
    skip_ws(s);
    if(s->p >= s->end)
      return fail(s, s->end, "unexpected end of input in array", OC_EPARSE);
    if(*s->p == ',') {
      s->p++;
      skip_ws(s);
      continue;
    }
    if(*s->p == ']') {
      s->p++;
      break;
    }
    return fail(s, s->p, "expected ',' or ']' in array", OC_EPARSE);
  }
done:;
  size_t n = sc->nvals - base;
  v->type = OC_JARRAY;
  v->len = (uint32_t)n;
  v->u.items = NULL;
  if(n) {
    v->u.items = arena_alloc(s->d, n * sizeof(struct oc_jv));
    if(!v->u.items)
      return fail_alloc(s);
    memcpy(v->u.items, sc->vals + base, n * sizeof(struct oc_jv));
  }
  sc->nvals = base;
  return OC_OK;
}

static int parse_object(struct ps *s, struct oc_jv *v, size_t depth)
{
  struct oc_jscratch *sc = s->d->scratch;
  size_t base = sc->nmems;
  int rc;
  s->p++;
  skip_ws(s);
  if(s->p < s->end && *s->p == '}') {
    s->p++;
    goto done;
  }
  for(;;) {
    struct oc_jmember m;
    if(s->p >= s->end)
      return fail(s, s->end, "unexpected end of input in object", OC_EPARSE);
    if(*s->p != '"')
      return fail(s, s->p, "expected a string (member name) in object", OC_EPARSE);
    m.key_offset = (uint32_t)(s->p - s->start);
    rc = parse_string(s, &m.key, &m.key_len);
    if(rc)
      return rc;
    skip_ws(s);
    if(s->p >= s->end)
      return fail(s, s->end, "unexpected end of input in object", OC_EPARSE);
    if(*s->p != ':')
      return fail(s, s->p, "expected ':' after member name", OC_EPARSE);
    s->p++;
    skip_ws(s);
    rc = parse_value(s, &m.value, depth);
    if(rc)
      return rc;
    if(sc->nmems == sc->amems) {
      rc = scratch_grow(s->d, (void **)&sc->mems, &sc->amems, sc->nmems + 1, sizeof(m));
      if(rc)
        return fail(s, s->p, rc == OC_ETOOBIG ? "document needs more memory than its cap" : "out of memory", rc);
    }
    sc->mems[sc->nmems++] = m;
    skip_ws(s);
    if(s->p >= s->end)
      return fail(s, s->end, "unexpected end of input in object", OC_EPARSE);
    if(*s->p == ',') {
      s->p++;
      skip_ws(s);
      continue;
    }
    if(*s->p == '}') {
      s->p++;
      break;
    }
    return fail(s, s->p, "expected ',' or '}' in object", OC_EPARSE);
  }
done:;
  size_t n = sc->nmems - base;
  v->type = OC_JOBJECT;
  v->len = (uint32_t)n;
  v->u.members = NULL;
  if(n) {
    size_t dups;
    rc = count_duplicates(s->d, sc->mems + base, n, &dups);
    if(rc)
      return fail(s, s->p, "out of memory", rc);
    s->d->duplicate_keys += dups;
    v->u.members = arena_alloc(s->d, n * sizeof(struct oc_jmember));
    if(!v->u.members)
      return fail_alloc(s);
    memcpy(v->u.members, sc->mems + base, n * sizeof(struct oc_jmember));
  }
  sc->nmems = base;
  return OC_OK;
}

static int parse_value(struct ps *s, struct oc_jv *v, size_t depth)
{
  const unsigned char *at = s->p;
  int rc;
  if(at >= s->end)
    return fail(s, s->end, "unexpected end of input (expected a value)", OC_EPARSE);
  v->int_literal = 0;
  v->len = 0;
  v->u.num = 0;
  v->offset = (uint32_t)(at - s->start);
  switch(*at) {
  case '{':
  case '[':
    if(depth >= s->d->max_depth)
      return fail(s, at, "nested deeper than the depth limit", OC_ETOOBIG);
    rc = *at == '{' ? parse_object(s, v, depth + 1) : parse_array(s, v, depth + 1);
    break;
  case '"':
    v->type = OC_JSTRING;
    rc = parse_string(s, &v->u.str, &v->len);
    break;
  case 't': rc = parse_literal(s, "true", 4, OC_JTRUE, v); break;
  case 'f': rc = parse_literal(s, "false", 5, OC_JFALSE, v); break;
  case 'n': rc = parse_literal(s, "null", 4, OC_JNULL, v); break;
  case '-': case '0': case '1': case '2': case '3': case '4':
  case '5': case '6': case '7': case '8': case '9':
    rc = parse_number(s, v);
    break;
  default:
    return fail(s, at, "expected a JSON value", OC_EPARSE);
  }
  if(rc)
    return rc;
  v->end = (uint32_t)(s->p - s->start);
  return OC_OK;
}

int oc_jdoc_parse(struct oc_jdoc *d, const char *buf, size_t len, struct oc_jerr *err)
{
  struct ps s = {(const unsigned char *)buf, (const unsigned char *)buf,
                 (const unsigned char *)buf + len, d, err};
  struct oc_jv root;
  int rc = arena_reset(d);
  if(rc)
    return fail(&s, s.p, "out of memory", rc);
  size_t max = d->max_bytes;
  if(max > UINT32_MAX - 1)
    max = UINT32_MAX - 1; /* offsets are 32-bit */
  if(len > max)
    return fail(&s, s.start + max, "document larger than its size limit", OC_ETOOBIG);
  skip_ws(&s);
  rc = parse_value(&s, &root, 0);
  if(rc)
    return rc;
  skip_ws(&s);
  if(s.p < s.end)
    return fail(&s, s.p, "unexpected data after the JSON text", OC_EPARSE);
  d->root = arena_alloc(d, sizeof(*d->root));
  if(!d->root)
    return fail_alloc(&s);
  *d->root = root;
  return OC_OK;
}

/* ---- from cJSON ------------------------------------------------------- */

static int from_cjson(struct oc_jdoc *d, const cJSON *c, struct oc_jv *v, size_t depth)
{
  memset(v, 0, sizeof(*v));
  if(cJSON_IsNull(c))
    v->type = OC_JNULL;
  else if(cJSON_IsFalse(c))
    v->type = OC_JFALSE;
  else if(cJSON_IsTrue(c))
    v->type = OC_JTRUE;
  else if(cJSON_IsNumber(c)) {
    double x = c->valuedouble;
    v->type = OC_JNUMBER;
    v->u.num = x;
    /* cJSON forgets the literal; integral values are the best guess */
    v->int_literal = isfinite(x) && floor(x) == x;
  }
  else if(cJSON_IsString(c)) {
    size_t n = strlen(c->valuestring);
    if(n >= UINT32_MAX)
      return OC_ETOOBIG;
    char *s = arena_alloc(d, n + 1);
    if(!s)
      return d->scratch->alloc_rc ? d->scratch->alloc_rc : OC_ENOMEM;
    memcpy(s, c->valuestring, n + 1);
    v->type = OC_JSTRING;
    v->u.str = s;
    v->len = (uint32_t)n;
    if(!oc_utf8_valid((const unsigned char *)s, n, NULL))
      d->invalid_utf8++;
  }
  else if(cJSON_IsArray(c) || cJSON_IsObject(c)) {
    if(depth >= d->max_depth)
      return OC_ETOOBIG;
    size_t n = 0;
    for(const cJSON *k = c->child; k; k = k->next)
      n++;
    if(n >= UINT32_MAX)
      return OC_ETOOBIG;
    v->len = (uint32_t)n;
    if(cJSON_IsArray(c)) {
      v->type = OC_JARRAY;
      if(!n)
        return OC_OK;
      struct oc_jv *items = arena_alloc(d, n * sizeof(*items));
      if(!items)
        return d->scratch->alloc_rc ? d->scratch->alloc_rc : OC_ENOMEM;
      v->u.items = items;
      size_t i = 0;
      for(const cJSON *k = c->child; k; k = k->next, i++) {
        int rc = from_cjson(d, k, &items[i], depth + 1);
        if(rc)
          return rc;
      }
    }
    else {
      v->type = OC_JOBJECT;
      if(!n)
        return OC_OK;
      struct oc_jmember *m = arena_alloc(d, n * sizeof(*m));
      if(!m)
        return d->scratch->alloc_rc ? d->scratch->alloc_rc : OC_ENOMEM;
      v->u.members = m;
      size_t i = 0;
      for(const cJSON *k = c->child; k; k = k->next, i++) {
        const char *key = k->string ? k->string : "";
        size_t kn = strlen(key);
        char *kc = arena_alloc(d, kn + 1);
        if(!kc)
          return d->scratch->alloc_rc ? d->scratch->alloc_rc : OC_ENOMEM;
        memcpy(kc, key, kn + 1);
        m[i].key = kc;
        m[i].key_len = (uint32_t)kn;
        m[i].key_offset = 0;
        if(!oc_utf8_valid((const unsigned char *)kc, kn, NULL))
          d->invalid_utf8++;
        int rc = from_cjson(d, k, &m[i].value, depth + 1);
        if(rc)
          return rc;
      }
      size_t dups;
      int rc = count_duplicates(d, m, n, &dups);
      if(rc)
        return rc;
      d->duplicate_keys += dups;
    }
  }
  else
    return OC_EUNSUPPORTED; /* cJSON_Raw or an invalid item */
  return OC_OK;
}

int oc_jdoc_from_cjson(struct oc_jdoc *d, const cJSON *item)
{
  struct oc_jv root;
  int rc = arena_reset(d);
  if(rc)
    return rc;
  if(!item)
    return OC_EUSAGE;
  rc = from_cjson(d, item, &root, 0);
  if(rc)
    return rc;
  d->root = arena_alloc(d, sizeof(*d->root));
  if(!d->root)
    return d->scratch->alloc_rc ? d->scratch->alloc_rc : OC_ENOMEM;
  *d->root = root;
  return OC_OK;
}

/* ---- getters ---------------------------------------------------------- */

/* The last member named key[0..n) (duplicates: the last wins, as in
 * JSON.parse). */
static const struct oc_jv *get_n(const struct oc_jv *obj, const char *key, size_t n)
{
  if(!obj || obj->type != OC_JOBJECT)
    return NULL;
  /* the first byte before the call: most members differ there */
  for(size_t i = obj->len; i-- > 0;) {
    const struct oc_jmember *m = &obj->u.members[i];
    if(m->key_len == n && (n == 0 || m->key[0] == key[0]) && memcmp(m->key, key, n) == 0)
      return &m->value;
  }
  return NULL;
}

const struct oc_jv *oc_jv_get_n(const struct oc_jv *obj, const char *key, size_t n)
{
  return get_n(obj, key, n);
}

const struct oc_jv *oc_jv_at(const struct oc_jv *arr, size_t i)
{
  if(!arr || arr->type != OC_JARRAY || i >= arr->len)
    return NULL;
  return &arr->u.items[i];
}

const char *oc_jv_str(const struct oc_jv *obj, const char *key, size_t *len)
{
  const struct oc_jv *v = oc_jv_get(obj, key);
  if(!v || v->type != OC_JSTRING) {
    if(len)
      *len = 0;
    return NULL;
  }
  if(len)
    *len = v->len;
  return v->u.str;
}

int oc_jv_is_integer(const struct oc_jv *v)
{
  return v && v->type == OC_JNUMBER && isfinite(v->u.num) && floor(v->u.num) == v->u.num;
}

long oc_jv_long(const struct oc_jv *v)
{
  const double lim = 9007199254740992.0; /* 2^53 */
  if(!v || v->type != OC_JNUMBER || !isfinite(v->u.num))
    return 0;
  double d = v->u.num > lim ? lim : v->u.num < -lim ? -lim : v->u.num;
  return (long)d;
}

int oc_jv_is_null(const struct oc_jv *v)
{
  return v && v->type == OC_JNULL;
}

const char *oc_jv_type_name(const struct oc_jv *v)
{
  if(!v)
    return "absent";
  switch(v->type) {
  case OC_JNULL: return "null";
  case OC_JFALSE:
  case OC_JTRUE: return "boolean";
  case OC_JNUMBER: return oc_jv_is_integer(v) ? "integer" : "number";
  case OC_JSTRING: return "string";
  case OC_JARRAY: return "array";
  case OC_JOBJECT: return "object";
  default: return "unknown";
  }
}

/* ---- equality --------------------------------------------------------- */

static int mem_cmp(const void *x, const void *y)
{
  const struct oc_jmember *a = *(const struct oc_jmember *const *)x;
  const struct oc_jmember *b = *(const struct oc_jmember *const *)y;
  size_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
  int c = memcmp(a->key, b->key, n);
  if(c)
    return c;
  if(a->key_len != b->key_len)
    return a->key_len < b->key_len ? -1 : 1;
  return a < b ? -1 : a > b; /* members are contiguous: keep source order */
}

/* The effective members of obj (the last of each name), sorted by name,
 * into a new array; *n gets their count.  NULL when memory runs out. */
static const struct oc_jmember **effective_sorted(const struct oc_jv *obj, size_t *n)
{
  const struct oc_jmember **m = malloc(obj->len * sizeof(*m));
  if(!m)
    return NULL;
  for(size_t i = 0; i < obj->len; i++)
    m[i] = &obj->u.members[i];
  qsort(m, obj->len, sizeof(*m), mem_cmp);
  size_t k = 0;
  for(size_t i = 0; i < obj->len; i++) {
    if(i + 1 < obj->len && m[i + 1]->key_len == m[i]->key_len &&
       memcmp(m[i + 1]->key, m[i]->key, m[i]->key_len) == 0)
      continue; /* a later duplicate follows */
    m[k++] = m[i];
  }
  *n = k;
  return m;
}

static int objects_equal_sorted(const struct oc_jv *a, const struct oc_jv *b, int *ok)
{
  size_t na, nb;
  const struct oc_jmember **ma = effective_sorted(a, &na), **mb = NULL;
  int eq = 0;
  *ok = 0;
  if(!ma)
    goto out;
  mb = effective_sorted(b, &nb);
  if(!mb)
    goto out;
  *ok = 1;
  if(na != nb)
    goto out;
  for(size_t i = 0; i < na; i++)
    if(!key_eq(ma[i], mb[i]) || !oc_jv_equal(&ma[i]->value, &mb[i]->value))
      goto out;
  eq = 1;
out:
  free(ma);
  free(mb);
  return eq;
}

/* Distinct names of obj each equal under lookup in other; returns the
 * number of distinct names, or -1 on a mismatch. */
static long lookup_side(const struct oc_jv *obj, const struct oc_jv *other, int compare)
{
  long distinct = 0;
  for(size_t i = 0; i < obj->len; i++) {
    const struct oc_jmember *m = &obj->u.members[i];
    if(get_n(obj, m->key, m->key_len) != &m->value)
      continue; /* a later duplicate decides */
    distinct++;
    if(compare) {
      const struct oc_jv *o = get_n(other, m->key, m->key_len);
      if(!o || !oc_jv_equal(&m->value, o))
        return -1;
    }
  }
  return distinct;
}

int oc_jv_equal(const struct oc_jv *a, const struct oc_jv *b)
{
  if(!a || !b)
    return a == b;
  if(a->type != b->type)
    return 0;
  switch(a->type) {
  case OC_JNUMBER: return a->u.num == b->u.num;
  case OC_JSTRING: return a->len == b->len && memcmp(a->u.str, b->u.str, a->len) == 0;
  case OC_JARRAY:
    if(a->len != b->len)
      return 0;
    for(size_t i = 0; i < a->len; i++)
      if(!oc_jv_equal(&a->u.items[i], &b->u.items[i]))
        return 0;
    return 1;
  case OC_JOBJECT: {
    if(a->len > 32 || b->len > 32) {
      int ok, eq = objects_equal_sorted(a, b, &ok);
      if(ok)
        return eq;
    }
    long na = lookup_side(a, b, 1);
    if(na < 0)
      return 0;
    return na == lookup_side(b, a, 0);
  }
  default: return 1; /* null, true, false */
  }
}

/* ---- pointers --------------------------------------------------------- */

/* Does the escaped reference token tok[0..tn) name key[0..kn)?  -1 when
 * the token holds an invalid escape. */
static int token_matches(const char *tok, size_t tn, const char *key, size_t kn)
{
  size_t k = 0;
  for(size_t i = 0; i < tn; i++) {
    char c = tok[i];
    if(c == '~') {
      if(i + 1 >= tn || (tok[i + 1] != '0' && tok[i + 1] != '1'))
        return -1;
      c = tok[++i] == '0' ? '~' : '/';
    }
    if(k >= kn || key[k] != c)
      return 0;
    k++;
  }
  return k == kn;
}

const struct oc_jv *oc_jv_pointer(const struct oc_jv *root, const char *pointer)
{
  if(!root || !pointer)
    return NULL;
  const struct oc_jv *v = root;
  const char *p = pointer;
  if(!*p)
    return v;
  if(*p != '/')
    return NULL;
  while(*p == '/' && v) {
    const char *tok = ++p;
    while(*p && *p != '/')
      p++;
    size_t tn = (size_t)(p - tok);
    if(v->type == OC_JOBJECT) {
      const struct oc_jv *found = NULL;
      for(size_t i = v->len; i-- > 0;) {
        const struct oc_jmember *m = &v->u.members[i];
        int r = token_matches(tok, tn, m->key, m->key_len);
        if(r < 0)
          return NULL;
        if(r) {
          found = &m->value;
          break;
        }
      }
      v = found;
    }
    else if(v->type == OC_JARRAY) {
      if(!tn || tn > 10 || (tok[0] == '0' && tn > 1))
        return NULL;
      size_t idx = 0;
      for(size_t i = 0; i < tn; i++) {
        if(tok[i] < '0' || tok[i] > '9')
          return NULL;
        idx = idx * 10 + (size_t)(tok[i] - '0');
      }
      v = oc_jv_at(v, idx);
    }
    else
      return NULL;
  }
  return v;
}

/* ---- to cJSON --------------------------------------------------------- */

cJSON *oc_jv_to_cjson(const struct oc_jv *v)
{
  cJSON *c = NULL;
  if(!v)
    return NULL;
  switch(v->type) {
  case OC_JNULL: return cJSON_CreateNull();
  case OC_JFALSE: return cJSON_CreateFalse();
  case OC_JTRUE: return cJSON_CreateTrue();
  case OC_JNUMBER: return cJSON_CreateNumber(v->u.num);
  case OC_JSTRING: return cJSON_CreateString(v->u.str); /* cJSON stops at a NUL */
  case OC_JARRAY:
  case OC_JOBJECT: break;
  default: return NULL;
  }
  c = v->type == OC_JARRAY ? cJSON_CreateArray() : cJSON_CreateObject();
  if(!c)
    goto out;
  for(size_t i = 0; i < v->len; i++) {
    const struct oc_jv *item = v->type == OC_JARRAY ? &v->u.items[i] : &v->u.members[i].value;
    if(oc_json_add(c, v->type == OC_JARRAY ? NULL : v->u.members[i].key, oc_jv_to_cjson(item)))
      goto out;
  }
  return c;
out:
  cJSON_Delete(c);
  return NULL;
}
