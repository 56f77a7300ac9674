/* json.c — positions for parse errors, case-sensitive getters, JSON
 * Pointers, equality and a canonical form (request keys for recordings).
 * The trees themselves are cJSON's. */
#include "config.h"
#include "json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static void *json_malloc(size_t n)
{
  void *p = malloc(n);
  if(!p)
    json_alloc_failed = 1;
  return p;
}

static void json_free(void *p)
{
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

char *oc_json_print(const cJSON *item)
{
  return cJSON_PrintUnformatted(item);
}

char *oc_json_brief(const cJSON *item, size_t max)
{
  if(!item)
    return oc_strdup("absent");
  if(cJSON_IsObject(item))
    return oc_strdup(item->child ? "{…}" : "{}");
  if(cJSON_IsArray(item))
    return oc_strdup(item->child ? "[…]" : "[]");
  char *s = cJSON_PrintUnformatted(item);
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
  char *key = oc_strdup(name); /* freed by cJSON_Delete: its hooks free with free() */
  if(!key) {
    cJSON_Delete(item);
    *oom = 1;
    return NULL;
  }
  if(!(item->type & cJSON_StringIsConst))
    free(item->string);
  item->string = key;
  item->type &= ~cJSON_StringIsConst;
  cJSON_ReplaceItemViaPointer(obj, old, item);
  return item;
}
