/* json.c — positions for parse errors, case-sensitive getters, JSON
 * Pointers, equality and a canonical form (request keys for recordings).
 * The trees themselves are cJSON's. */
#include "config.h"
#include "json.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define ARENA_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define ARENA_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define ARENA_POISON(p, n) ((void)(p), (void)(n))
#define ARENA_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

void oc_json_locate(const char *buf, size_t len, size_t offset, struct oc_json_pos *pos)
{
  int line = 1, col = 1;
  if(offset > len)
    offset = len;
  for(size_t i = 0; i < offset; i++) {
    if(buf[i] == '\n') {
      line++;
      col = 1;
    }
    else
      col++;
  }
  pos->offset = offset;
  pos->line = line;
  pos->column = col;
}

/* Set when an allocation of cJSON's failed (per thread: oacheck serve
 * parses on several). */
static _Thread_local int json_alloc_failed;
static int hooks_installed;

/* the result arena (below) */
static void *arena_malloc(size_t n);
static int arena_free(void *p);

static void *json_malloc(size_t n)
{
  void *p = arena_malloc(n);
  if(!p)
    json_alloc_failed = 1;
  return p;
}

static void json_free(void *p)
{
  if(!arena_free(p))
    free(p);
}

void oc_json_init(void)
{
  if(hooks_installed)
    return;
  cJSON_Hooks hooks = { json_malloc, json_free };
  cJSON_InitHooks(&hooks);
  hooks_installed = 1;
}

int oc_json_parse_rc(const char *buf, size_t len, struct oc_json_pos *pos, cJSON **out)
{
  oc_json_init();
  *out = NULL;
  const char *end = NULL;
  json_alloc_failed = 0;
  /* cJSON stops at a NUL; a NUL inside the text is therefore a parse error
   * at that byte, which is what a strict reader wants anyway. */
  cJSON *item = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
  if(item) {
    /* allow trailing whitespace only */
    size_t off = (size_t)(end - buf);
    while(off < len && (buf[off] == ' ' || buf[off] == '\t' || buf[off] == '\n' || buf[off] == '\r'))
      off++;
    if(off == len) {
      *out = item;
      return OC_OK;
    }
    cJSON_Delete(item);
    if(pos)
      oc_json_locate(buf, len, off, pos);
    return OC_EPARSE;
  }
  if(json_alloc_failed)
    return OC_ENOMEM;
  if(pos) {
    /* cJSON reports the error through a global pointer into buf */
    const char *e = cJSON_GetErrorPtr();
    size_t off = (e && e >= buf && e <= buf + len) ? (size_t)(e - buf) : 0;
    oc_json_locate(buf, len, off, pos);
  }
  return OC_EPARSE;
}

cJSON *oc_json_parse(const char *buf, size_t len, struct oc_json_pos *pos)
{
  cJSON *item;
  oc_json_parse_rc(buf, len, pos, &item);
  return item;
}

cJSON *oc_json_parse_file(const char *path, char *err, size_t errlen)
{
  char *buf = NULL;
  size_t len = 0;
  if(oc_read_file(path, OC_CAP_FILE, &buf, &len, err, errlen))
    return NULL;
  struct oc_json_pos pos;
  cJSON *item = oc_json_parse(buf, len, &pos);
  if(!item) {
    if(len == 0)
      snprintf(err, errlen, "%s: empty file, expected JSON", path);
    else if(pos.offset >= len)
      snprintf(err, errlen, "%s:%d:%d: invalid JSON: unexpected end of file", path,
               pos.line, pos.column);
    else
      snprintf(err, errlen, "%s:%d:%d: invalid JSON near '%.20s'", path, pos.line,
               pos.column, buf + pos.offset);
  }
  free(buf);
  return item;
}

cJSON *oc_json_get(const cJSON *obj, const char *key)
{
  if(!cJSON_IsObject(obj))
    return NULL;
  return cJSON_GetObjectItemCaseSensitive(obj, key);
}

const char *oc_json_str(const cJSON *obj, const char *key)
{
  cJSON *it = oc_json_get(obj, key);
  return cJSON_IsString(it) ? it->valuestring : NULL;
}

cJSON *oc_json_obj(const cJSON *obj, const char *key)
{
  cJSON *it = oc_json_get(obj, key);
  return cJSON_IsObject(it) ? it : NULL;
}

cJSON *oc_json_arr(const cJSON *obj, const char *key)
{
  cJSON *it = oc_json_get(obj, key);
  return cJSON_IsArray(it) ? it : NULL;
}

double oc_json_num(const cJSON *obj, const char *key, double fallback)
{
  cJSON *it = oc_json_get(obj, key);
  return cJSON_IsNumber(it) ? it->valuedouble : fallback;
}

int oc_json_bool(const cJSON *obj, const char *key, int fallback)
{
  cJSON *it = oc_json_get(obj, key);
  return cJSON_IsBool(it) ? cJSON_IsTrue(it) : fallback;
}

int oc_json_is_integer(const cJSON *item)
{
  return cJSON_IsNumber(item) && isfinite(item->valuedouble) &&
         floor(item->valuedouble) == item->valuedouble;
}

/* Decode one pointer token (~1 → /, ~0 → ~) into out (outlen bytes). */
static int pointer_token(const char *p, size_t n, char *out, size_t outlen)
{
  size_t k = 0;
  for(size_t i = 0; i < n; i++) {
    char c = p[i];
    if(c == '~') {
      if(i + 1 >= n || (p[i + 1] != '0' && p[i + 1] != '1'))
        return OC_EPARSE;
      c = p[i + 1] == '0' ? '~' : '/';
      i++;
    }
    if(k + 1 >= outlen)
      return OC_ETOOBIG;
    out[k++] = c;
  }
  out[k] = '\0';
  return OC_OK;
}

/* No allocation: "names nothing" must never mean "memory ran out". */
cJSON *oc_json_pointer(const cJSON *root, const char *pointer)
{
  if(!pointer || !*pointer)
    return (cJSON *)root;
  if(pointer[0] != '/')
    return NULL;
  char key[4096];
  const cJSON *cur = root;
  const char *p = pointer + 1;
  for(;;) {
    const char *slash = strchr(p, '/');
    size_t n = slash ? (size_t)(slash - p) : strlen(p);
    if(pointer_token(p, n, key, sizeof(key))) {
      cur = NULL;
      break;
    }
    if(cJSON_IsObject(cur))
      cur = cJSON_GetObjectItemCaseSensitive(cur, key);
    else if(cJSON_IsArray(cur)) {
      long idx;
      if((key[0] == '0' && key[1]) || oc_parse_long(key, 0, 1L << 30, &idx))
        cur = NULL;
      else
        cur = cJSON_GetArrayItem(cur, (int)idx);
    }
    else
      cur = NULL;
    if(!cur || !slash)
      break;
    p = slash + 1;
  }
  return (cJSON *)cur;
}

int oc_json_pointer_push(struct oc_buf *ptr, const char *token)
{
  int rc = oc_buf_addc(ptr, '/');
  for(const char *s = token; !rc && *s; s++) {
    if(*s == '~')
      rc = oc_buf_adds(ptr, "~0");
    else if(*s == '/')
      rc = oc_buf_adds(ptr, "~1");
    else
      rc = oc_buf_addc(ptr, *s);
  }
  return rc;
}

int oc_json_pointer_push_index(struct oc_buf *ptr, size_t index)
{
  return oc_buf_printf(ptr, "/%zu", index);
}

const char *oc_json_type_name(const cJSON *item)
{
  if(!item)
    return "absent";
  if(cJSON_IsNull(item))
    return "null";
  if(cJSON_IsBool(item))
    return "boolean";
  if(cJSON_IsNumber(item))
    return oc_json_is_integer(item) ? "integer" : "number";
  if(cJSON_IsString(item))
    return "string";
  if(cJSON_IsArray(item))
    return "array";
  if(cJSON_IsObject(item))
    return "object";
  return "invalid";
}

static char *print_with(const cJSON *item, int pretty)
{
  struct oc_buf b;
  oc_buf_init(&b, OC_JSON_PRINT_MAX);
  if(oc_json_write(&b, item, pretty)) {
    oc_buf_free(&b);
    return NULL;
  }
  return oc_buf_take(&b, NULL);
}

char *oc_json_print(const cJSON *item)
{
  return print_with(item, 0);
}

char *oc_json_print_pretty(const cJSON *item)
{
  return print_with(item, 1);
}

/* ---- writing ------------------------------------------------------------------ */

static const char hexdigits[] = "0123456789abcdef";

/* The writer gathers its output in a local piece and adds it to the
 * buffer when full, so a token costs a few instructions, not a call. */
struct jw {
  struct oc_buf *b;
  int rc;
  size_t n;
  char piece[8192];
};

static void jw_flush(struct jw *w)
{
  if(!w->rc && w->n)
    w->rc = oc_buf_add(w->b, w->piece, w->n);
  w->n = 0;
}

/* room for k more bytes (k at most half the piece) */
static inline void jw_room(struct jw *w, size_t k)
{
  if(w->n + k > sizeof(w->piece))
    jw_flush(w);
}

static void jw_put(struct jw *w, const char *p, size_t k)
{
  if(k > sizeof(w->piece) / 2) {
    jw_flush(w);
    if(!w->rc)
      w->rc = oc_buf_add(w->b, p, k);
    return;
  }
  jw_room(w, k);
  memcpy(w->piece + w->n, p, k);
  w->n += k;
}

static inline void jw_putc(struct jw *w, char c)
{
  jw_room(w, 1);
  w->piece[w->n++] = c;
}

/* the bytes a JSON string cannot hold as they are: the controls, '"',
 * '\\' (and NUL, which ends a C string, so the scan stops there too) */
static const unsigned char json_escaped[256] = {
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
  ['"'] = 1, ['\\'] = 1,
};

/* One escaped byte at o (room for six); returns the new end. */
static inline char *escape_at(char *o, unsigned char c)
{
  *o++ = '\\';
  switch(c) {
  case '"': *o++ = '"'; break;
  case '\\': *o++ = '\\'; break;
  case '\b': *o++ = 'b'; break;
  case '\f': *o++ = 'f'; break;
  case '\n': *o++ = 'n'; break;
  case '\r': *o++ = 'r'; break;
  case '\t': *o++ = 't'; break;
  default:
    *o++ = 'u';
    *o++ = '0';
    *o++ = '0';
    *o++ = hexdigits[c >> 4];
    *o++ = hexdigits[c & 15];
    break;
  }
  return o;
}

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define JW_WORDS 1
/* The bytes of v (eight, the first in the lowest bits) that need escaping
 * (below 0x20, '"', '\\'), each as its high bit.  Exact up to the first
 * one: a borrow runs on only past a byte that matches, so the lowest bit
 * set is the first byte to escape, which is all the writer asks. */
static inline uint64_t word_specials(uint64_t v)
{
  const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
  uint64_t below = (v - ones * 0x20) & ~v;
  uint64_t quote = v ^ (ones * '"'), bslash = v ^ (ones * '\\');
  quote = (quote - ones) & ~quote;
  bslash = (bslash - ones) & ~bslash;
  return (below | quote | bslash) & highs;
}
#endif

static void jw_string(struct jw *w, const char *s)
{
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  size_t left = strlen((const char *)p);
  jw_putc(w, '"');
  /* in blocks of 64 input bytes (room made for six output bytes each,
   * and eight to spare), written straight into the piece */
  while(left && !w->rc) {
    jw_room(w, 64 * 6 + 8);
    char *o = w->piece + w->n;
    size_t take = left < 64 ? left : 64;
    const unsigned char *end = p + take;
#ifdef JW_WORDS
    /* eight bytes at a time: copied whole, then the output goes on after
     * the plain ones and the first to escape is escaped over the rest
     * (the results' strings are text and JSON, a quote every few bytes) */
    while(end - p >= 8) {
      uint64_t v;
      memcpy(&v, p, 8);
      memcpy(o, p, 8);
      uint64_t m = word_specials(v);
      if(!m) {
        o += 8;
        p += 8;
        continue;
      }
      unsigned k = (unsigned)__builtin_ctzll(m) >> 3;
      o = escape_at(o + k, p[k]);
      p += k + 1;
    }
#endif
    for(; p < end; p++) {
      unsigned char c = *p;
      if(!json_escaped[c])
        *o++ = (char)c;
      else
        o = escape_at(o, c);
    }
    left -= take;
    w->n = (size_t)(o - w->piece);
  }
  jw_putc(w, '"');
}

/* the decimal digits of v (v < 2^63) before end; returns where they start */
static char *digits_before(char *end, unsigned long long v)
{
  do {
    *--end = (char)('0' + v % 10);
    v /= 10;
  } while(v);
  return end;
}

static size_t format_number(double d, char out[40])
{
  static const double p10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
  const double two53 = 9007199254740992.0;
  if(!isfinite(d)) {
    memcpy(out, "null", 5);
    return 4;
  }
  char tmp[40], *end = tmp + sizeof(tmp);
  int neg = d < 0;
  double a = fabs(d);
  if(a == floor(a) && a < two53) {
    char *s = digits_before(end, (unsigned long long)a);
    if(neg && a != 0)
      *--s = '-';
    memcpy(out, s, (size_t)(end - s));
    return (size_t)(end - s);
  }
  /* the fewest decimals that read back as d: v / 10^k is rounded once,
   * exactly as strtod rounds the decimal v·10^-k, so equal means equal */
  for(int k = 1; a >= 1e-6 && a < 1e9 && k <= 9; k++) {
    double v = round(a * p10[k]);
    if(v >= two53)
      break;
    if(v / p10[k] != a)
      continue;
    unsigned long long iv = (unsigned long long)v, ip = iv / (unsigned long long)p10[k],
                       fp = iv % (unsigned long long)p10[k];
    char *s = end;
    for(int i = 0; i < k; i++) {
      *--s = (char)('0' + fp % 10);
      fp /= 10;
    }
    *--s = '.';
    s = digits_before(s, ip);
    if(neg)
      *--s = '-';
    memcpy(out, s, (size_t)(end - s));
    return (size_t)(end - s);
  }
  int n = snprintf(out, 40, "%1.15g", d);
  if(strtod(out, NULL) != d)
    n = snprintf(out, 40, "%1.17g", d);
  return n > 0 ? (size_t)n : 0;
}

static void jw_indent(struct jw *w, int depth)
{
  jw_putc(w, '\n');
  for(int i = 0; i < depth; i++)
    jw_put(w, "  ", 2);
}

static void jw_item(struct jw *w, const cJSON *it, int pretty, int depth)
{
  char num[40];
  size_t n;
  switch(it->type & 0xFF) {
  case cJSON_NULL: jw_put(w, "null", 4); return;
  case cJSON_False: jw_put(w, "false", 5); return;
  case cJSON_True: jw_put(w, "true", 4); return;
  case cJSON_Number:
    n = format_number(it->valuedouble, num);
    if(n)
      jw_put(w, num, n);
    else
      jw_put(w, "null", 4);
    return;
  case cJSON_String: jw_string(w, it->valuestring); return;
  case cJSON_Raw:
    jw_put(w, it->valuestring ? it->valuestring : "null",
           it->valuestring ? strlen(it->valuestring) : 4);
    return;
  case cJSON_Array:
  case cJSON_Object: break;
  default: jw_put(w, "null", 4); return;
  }
  /* pretty as cJSON_Print lays it out (with spaces for its tabs): an
   * object's members one per line, an array's elements on one line */
  int obj = (it->type & 0xFF) == cJSON_Object;
  jw_putc(w, obj ? '{' : '[');
  for(const cJSON *c = it->child; c && !w->rc; c = c->next) {
    if(c != it->child) {
      jw_putc(w, ',');
      if(pretty && !obj)
        jw_putc(w, ' ');
    }
    if(obj) {
      if(pretty)
        jw_indent(w, depth + 1);
      jw_string(w, c->string);
      if(pretty)
        jw_put(w, ": ", 2);
      else
        jw_putc(w, ':');
    }
    jw_item(w, c, pretty, obj ? depth + 1 : depth);
  }
  if(pretty && obj && it->child)
    jw_indent(w, depth);
  jw_putc(w, obj ? '}' : ']');
}

int oc_json_write(struct oc_buf *b, const cJSON *item, int pretty)
{
  return oc_json_write_at(b, item, pretty, 0);
}

int oc_json_write_at(struct oc_buf *b, const cJSON *item, int pretty, int depth)
{
  struct jw w;
  w.b = b;
  w.rc = OC_OK;
  w.n = 0;
  if(item)
    jw_item(&w, item, pretty, depth);
  else
    jw_put(&w, "null", 4);
  jw_flush(&w);
  return w.rc;
}

int oc_json_reindent(struct oc_buf *b, const char *text, size_t len, int depth)
{
  struct jw w;
  w.b = b;
  w.rc = OC_OK;
  w.n = 0;
  /* which containers are open: 1 for an object (cJSON's nesting limit is
   * 1000; deeper text is laid out as if in arrays, still valid JSON) */
  unsigned char open[1024];
  size_t nopen = 0;
  size_t i = 0;
  while(i < len && !w.rc) {
    char c = text[i];
    int in_obj = nopen && nopen <= sizeof(open) && open[nopen - 1];
    if(c == '"') {
      /* a string, escapes and all, as it is */
      size_t j = i + 1;
      while(j < len && text[j] != '"')
        j += text[j] == '\\' ? 2 : 1;
      size_t end = j < len ? j + 1 : len; /* past the closing quote */
      jw_put(&w, text + i, end - i);
      i = end;
      continue;
    }
    if((c == '{' || c == '[') && i + 1 < len && (text[i + 1] == '}' || text[i + 1] == ']')) {
      jw_put(&w, text + i, 2); /* {} and [] stay whole */
      i += 2;
      continue;
    }
    if(c == '{' || c == '[') {
      jw_putc(&w, c);
      if(nopen < sizeof(open))
        open[nopen] = c == '{';
      nopen++;
      if(c == '{')
        jw_indent(&w, ++depth);
    }
    else if(c == '}' || c == ']') {
      if(nopen)
        nopen--;
      if(c == '}')
        jw_indent(&w, --depth);
      jw_putc(&w, c);
    }
    else if(c == ',') {
      jw_putc(&w, ',');
      if(in_obj)
        jw_indent(&w, depth);
      else
        jw_putc(&w, ' ');
    }
    else if(c == ':' && in_obj)
      jw_put(&w, ": ", 2);
    else
      jw_putc(&w, c);
    i++;
  }
  jw_flush(&w);
  return w.rc;
}

/* ---- the result arena ----------------------------------------------------------- */

struct arena_block {
  struct arena_block *next;
  size_t size, used;
  _Alignas(16) unsigned char data[];
};

#define ARENA_BASE (256u << 10)   /* kept between uses */
#define ARENA_BIG (32u << 10)     /* larger requests get a block of their own */

static _Thread_local struct arena_block *arena_blocks; /* every block, newest first */
static _Thread_local struct arena_block *arena_base;   /* the one kept between uses */
static _Thread_local int arena_active;

static int in_arena(const void *p)
{
  const unsigned char *q = p;
  for(const struct arena_block *bl = arena_blocks; bl; bl = bl->next)
    if(q >= bl->data && q < bl->data + bl->size)
      return 1;
  return 0;
}

static struct arena_block *arena_block_new(size_t size)
{
  struct arena_block *bl = malloc(sizeof(*bl) + size);
  if(!bl)
    return NULL;
  bl->next = NULL;
  bl->size = size;
  bl->used = 0;
  ARENA_POISON(bl->data, size);
  return bl;
}

static void *arena_malloc(size_t n)
{
  if(!arena_active)
    return malloc(n);
  size_t need = (n + 15) & ~(size_t)15;
  if(need < n)
    return NULL;
  struct arena_block *bl = arena_blocks;
  if(need > ARENA_BIG) {
    /* its own block, behind the current one so bumping goes on there */
    struct arena_block *big = arena_block_new(need);
    if(!big)
      return NULL;
    big->used = need;
    big->next = bl->next;
    bl->next = big;
    ARENA_UNPOISON(big->data, n);
    return big->data;
  }
  if(bl->size - bl->used < need) {
    struct arena_block *nb = arena_block_new(ARENA_BASE);
    if(!nb)
      return NULL;
    nb->next = bl;
    arena_blocks = bl = nb;
  }
  void *p = bl->data + bl->used;
  bl->used += need;
  ARENA_UNPOISON(p, n);
  return p;
}

/* Is p the arena's (and so freed with it)? */
static int arena_free(void *p)
{
  return p && in_arena(p);
}

int oc_json_arena_begin(void)
{
  if(arena_active)
    return OC_EUSAGE;
  if(!arena_base && !(arena_blocks = arena_base = arena_block_new(ARENA_BASE)))
    return OC_ENOMEM;
  oc_json_init(); /* the hooks that send cJSON's allocations here */
  arena_active = 1;
  return OC_OK;
}

void oc_json_arena_end(void)
{
  if(!arena_active)
    return;
  arena_active = 0;
  /* keep the base block, give the rest back */
  struct arena_block *bl = arena_blocks;
  while(bl) {
    struct arena_block *next = bl->next;
    if(bl != arena_base)
      free(bl);
    bl = next;
  }
  arena_blocks = arena_base;
  arena_base->next = NULL;
  arena_base->used = 0;
  ARENA_POISON(arena_base->data, arena_base->size);
}

static _Thread_local int arena_paused;

int oc_json_arena_active(void)
{
  return arena_active;
}

void oc_json_arena_pause(void)
{
  if(arena_active) {
    arena_active = 0;
    arena_paused = 1;
  }
}

void oc_json_arena_resume(void)
{
  if(arena_paused) {
    arena_paused = 0;
    arena_active = 1;
  }
}

void oc_json_arena_release(void)
{
  if(arena_active || arena_paused || !arena_base)
    return;
  free(arena_base);
  arena_base = arena_blocks = NULL;
}

size_t oc_json_arena_resident(void)
{
  size_t n = 0;
  for(const struct arena_block *bl = arena_blocks; bl; bl = bl->next)
    n += sizeof(*bl) + bl->size;
  return n;
}

char *oc_json_brief(const cJSON *item, size_t max)
{
  if(!item)
    return oc_strdup("absent");
  if(cJSON_IsObject(item))
    return oc_strdup(item->child ? "{…}" : "{}");
  if(cJSON_IsArray(item))
    return oc_strdup(item->child ? "[…]" : "[]");
  char *s = oc_json_print(item);
  if(!s)
    return NULL;
  size_t n = strlen(s);
  if(n > max && max > 8) {
    /* cut on a UTF-8 boundary */
    size_t cut = max;
    while(cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
      cut--;
    char *t = oc_asprintf("%.*s…%s", (int)cut, s, cJSON_IsString(item) ? "\"" : "");
    free(s);
    return t;
  }
  return s;
}

int oc_json_equal(const cJSON *a, const cJSON *b)
{
  if(!a || !b)
    return a == b;
  if(cJSON_IsNumber(a) && cJSON_IsNumber(b))
    return a->valuedouble == b->valuedouble;
  if((a->type & 0xFF) != (b->type & 0xFF))
    return 0;
  if(cJSON_IsString(a))
    return strcmp(a->valuestring, b->valuestring) == 0;
  if(cJSON_IsArray(a)) {
    const cJSON *x = a->child, *y = b->child;
    for(; x && y; x = x->next, y = y->next)
      if(!oc_json_equal(x, y))
        return 0;
    return !x && !y;
  }
  if(cJSON_IsObject(a)) {
    int na = cJSON_GetArraySize(a), nb = cJSON_GetArraySize(b);
    if(na != nb)
      return 0;
    for(const cJSON *x = a->child; x; x = x->next) {
      const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, x->string);
      if(!y || !oc_json_equal(x, y))
        return 0;
    }
    return 1;
  }
  return 1; /* null, true, false */
}

/* ---- canonical form --------------------------------------------------- */

/* One UTF-16 ordering key from UTF-8 at *p (at most n bytes left): code
 * points above U+FFFF sort as their high surrogate (0xD800…), as RFC
 * 8785 sorts keys. */
static uint32_t utf16_unit_key(const unsigned char **p, size_t n)
{
  const unsigned char *s = *p;
  uint32_t cp;
  size_t k;
  if(s[0] < 0x80 || n < 2) {
    cp = s[0];
    k = 1;
  }
  else if((s[0] & 0xE0) == 0xC0) {
    cp = ((uint32_t)(s[0] & 0x1F) << 6) | (s[1] & 0x3F);
    k = 2;
  }
  else if((s[0] & 0xF0) == 0xE0 && n >= 3) {
    cp = ((uint32_t)(s[0] & 0x0F) << 12) | ((uint32_t)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
    k = 3;
  }
  else if((s[0] & 0xF8) == 0xF0 && n >= 4) {
    cp = ((uint32_t)(s[0] & 0x07) << 18) | ((uint32_t)(s[1] & 0x3F) << 12) |
         ((uint32_t)(s[2] & 0x3F) << 6) | (s[3] & 0x3F);
    k = 4;
  }
  else {
    cp = s[0];
    k = 1;
  }
  *p = s + k;
  if(cp >= 0x10000)
    return 0xD800 + ((cp - 0x10000) >> 10); /* high surrogate decides */
  return cp;
}

int oc_json_utf16_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
  const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  const unsigned char *xe = x + alen, *ye = y + blen;
  while(x < xe && y < ye) {
    if(*x < 0x80 && *y < 0x80) { /* ASCII: the common case */
      if(*x != *y)
        return *x < *y ? -1 : 1;
      x++;
      y++;
      continue;
    }
    uint32_t kx = utf16_unit_key(&x, (size_t)(xe - x)), ky = utf16_unit_key(&y, (size_t)(ye - y));
    if(kx != ky)
      return kx < ky ? -1 : 1;
  }
  return x < xe ? 1 : (y < ye ? -1 : 0);
}

static int canon_string(struct oc_buf *b, const char *s)
{
  int rc = oc_buf_addc(b, '"');
  for(; !rc && *s; s++) {
    unsigned char c = (unsigned char)*s;
    switch(c) {
    case '"': rc = oc_buf_adds(b, "\\\""); break;
    case '\\': rc = oc_buf_adds(b, "\\\\"); break;
    case '\b': rc = oc_buf_adds(b, "\\b"); break;
    case '\f': rc = oc_buf_adds(b, "\\f"); break;
    case '\n': rc = oc_buf_adds(b, "\\n"); break;
    case '\r': rc = oc_buf_adds(b, "\\r"); break;
    case '\t': rc = oc_buf_adds(b, "\\t"); break;
    default:
      if(c < 0x20)
        rc = oc_buf_printf(b, "\\u%04x", c);
      else
        rc = oc_buf_addc(b, (char)c);
    }
  }
  return rc ? rc : oc_buf_addc(b, '"');
}

size_t oc_json_number_es6(double v, char out[OC_JSON_NUMBER_MAX])
{
  if(!isfinite(v))
    return (size_t)snprintf(out, OC_JSON_NUMBER_MAX, "null");
  if(v == 0)
    return (size_t)snprintf(out, OC_JSON_NUMBER_MAX, "0");
  /* integers below 2^53 are their own shortest round-trip digits */
  if(v == floor(v) && fabs(v) < 9007199254740992.0)
    return (size_t)snprintf(out, OC_JSON_NUMBER_MAX, "%lld", (long long)v);
  char tmp[40];
  for(int prec = 1; prec <= 17; prec++) {
    snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, v);
    if(strtod(tmp, NULL) == v)
      break;
  }
  /* tmp is [-]d[.ddd]e[+-]xx: collect the digits and the exponent */
  char digits[24];
  int k = 0, neg = 0;
  const char *p = tmp;
  if(*p == '-') {
    neg = 1;
    p++;
  }
  for(; *p && *p != 'e'; p++)
    if(*p >= '0' && *p <= '9' && k < (int)sizeof(digits) - 1)
      digits[k++] = *p;
  while(k > 1 && digits[k - 1] == '0')
    k--;
  digits[k] = '\0';
  long e = 0;
  if(*p == 'e')
    e = strtol(p + 1, NULL, 10);
  int n = (int)e + 1; /* value = 0.digits × 10^n */
  struct oc_buf b;
  oc_buf_init(&b, OC_JSON_NUMBER_MAX - 1);
  int rc = oc_buf_adds(&b, neg ? "-" : "");
  if(rc) {
    /* nothing to write (the buffer is freed below) */
  }
  else if(k <= n && n <= 21) {
    rc = oc_buf_add(&b, digits, (size_t)k);
    for(int i = 0; !rc && i < n - k; i++)
      rc = oc_buf_addc(&b, '0');
  }
  else if(0 < n && n <= 21)
    rc = oc_buf_printf(&b, "%.*s.%s", n, digits, digits + n);
  else if(-6 < n && n <= 0) {
    rc = oc_buf_adds(&b, "0.");
    for(int i = 0; !rc && i < -n; i++)
      rc = oc_buf_addc(&b, '0');
    if(!rc)
      rc = oc_buf_adds(&b, digits);
  }
  else {
    rc = oc_buf_addc(&b, digits[0]);
    if(!rc && k > 1)
      rc = oc_buf_printf(&b, ".%s", digits + 1);
    if(!rc)
      rc = oc_buf_printf(&b, "e%c%d", n - 1 < 0 ? '-' : '+', abs(n - 1));
  }
  size_t len = rc ? 0 : b.len;
  memcpy(out, rc ? "" : oc_buf_str(&b), len + 1);
  oc_buf_free(&b);
  return len;
}

/* ECMAScript Number::toString (RFC 8785 §3.2.2.3): oc_json_number_es6. */
static int canon_number(struct oc_buf *b, double v)
{
  char tmp[OC_JSON_NUMBER_MAX];
  size_t n = oc_json_number_es6(v, tmp);
  return n ? oc_buf_add(b, tmp, n) : OC_ENOMEM;
}

static int canon_item(struct oc_buf *b, const cJSON *it, int depth);

static int cmp_members(const void *pa, const void *pb)
{
  const cJSON *a = *(const cJSON *const *)pa, *c = *(const cJSON *const *)pb;
  return oc_json_utf16_cmp(a->string, strlen(a->string), c->string, strlen(c->string));
}

static int canon_object(struct oc_buf *b, const cJSON *it, int depth)
{
  int n = cJSON_GetArraySize(it);
  const cJSON **members = NULL;
  int rc = OC_OK;
  if(n > 0) {
    members = malloc(sizeof(*members) * (size_t)n);
    if(!members)
      return OC_ENOMEM;
    int i = 0;
    for(const cJSON *m = it->child; m && i < n; m = m->next)
      members[i++] = m;
    qsort(members, (size_t)n, sizeof(*members), cmp_members);
  }
  rc = oc_buf_addc(b, '{');
  for(int i = 0; !rc && i < n; i++) {
    if(i)
      rc = oc_buf_addc(b, ',');
    if(!rc)
      rc = canon_string(b, members[i]->string);
    if(!rc)
      rc = oc_buf_addc(b, ':');
    if(!rc)
      rc = canon_item(b, members[i], depth + 1);
  }
  if(!rc)
    rc = oc_buf_addc(b, '}');
  free(members);
  return rc;
}

static int canon_item(struct oc_buf *b, const cJSON *it, int depth)
{
  if(depth > 1000)
    return OC_ETOOBIG;
  if(cJSON_IsNull(it))
    return oc_buf_adds(b, "null");
  if(cJSON_IsTrue(it))
    return oc_buf_adds(b, "true");
  if(cJSON_IsFalse(it))
    return oc_buf_adds(b, "false");
  if(cJSON_IsNumber(it))
    return canon_number(b, it->valuedouble);
  if(cJSON_IsString(it))
    return canon_string(b, it->valuestring);
  if(cJSON_IsArray(it)) {
    int rc = oc_buf_addc(b, '[');
    for(const cJSON *e = it->child; !rc && e; e = e->next) {
      if(e != it->child)
        rc = oc_buf_addc(b, ',');
      if(!rc)
        rc = canon_item(b, e, depth + 1);
    }
    return rc ? rc : oc_buf_addc(b, ']');
  }
  if(cJSON_IsObject(it))
    return canon_object(b, it, depth);
  return OC_EPARSE;
}

char *oc_json_canonical(const cJSON *item)
{
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_FILE);
  if(canon_item(&b, item, 0)) {
    oc_buf_free(&b);
    return NULL;
  }
  return oc_buf_take(&b, NULL);
}

/* ---- building ------------------------------------------------------------ */

int oc_json_add(cJSON *parent, const char *name, cJSON *item)
{
  if(!parent || !item) {
    cJSON_Delete(item);
    return OC_ENOMEM;
  }
  /* checksrc: the one place cJSON's own adders are called */
  cJSON_bool ok = name ? cJSON_AddItemToObject(parent, name, item) : cJSON_AddItemToArray(parent, item);
  if(!ok) {
    cJSON_Delete(item);
    return OC_ENOMEM;
  }
  return OC_OK;
}

cJSON *oc_json_put(int *oom, cJSON *parent, const char *name, cJSON *item)
{
  if(*oom) {
    cJSON_Delete(item);
    return NULL;
  }
  if(oc_json_add(parent, name, item)) {
    *oom = 1;
    return NULL;
  }
  return item;
}

cJSON *oc_json_put_str(int *oom, cJSON *parent, const char *name, const char *s)
{
  return s ? oc_json_put(oom, parent, name, cJSON_CreateString(s)) : NULL;
}

cJSON *oc_json_put_str_or_null(int *oom, cJSON *parent, const char *name, const char *s)
{
  return oc_json_put(oom, parent, name, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

/* Not cJSON_ReplaceItemInObject: when copying the name fails it goes on
 * with none (the member is printed as "") and says it succeeded. */
cJSON *oc_json_set(int *oom, cJSON *obj, const char *name, cJSON *item)
{
  cJSON *old = *oom || !obj || !item ? NULL : cJSON_GetObjectItemCaseSensitive(obj, name);
  if(!old)
    return oc_json_put(oom, obj, name, item);
  /* through cJSON's hooks, as cJSON_Delete frees it: the result arena's
   * while a result is built (whose trees are dropped whole, not deleted) */
  size_t klen = strlen(name) + 1;
  char *key = cJSON_malloc(klen);
  if(key)
    memcpy(key, name, klen);
  if(!key) {
    cJSON_Delete(item);
    *oom = 1;
    return NULL;
  }
  if(!(item->type & cJSON_StringIsConst))
    cJSON_free(item->string); /* through the hooks: it may be the arena's */
  item->string = key;
  item->type &= ~cJSON_StringIsConst;
  cJSON_ReplaceItemViaPointer(obj, old, item);
  return item;
}
