/* headers.c — header lists and the secret/hop-by-hop classification.
 * Parsing of whole HTTP messages lives in exchange.c and http.c. */
#include "config.h"
#include "headers.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void oc_headers_init(struct oc_headers *h)
{
  h->items = NULL;
  h->count = 0;
  h->alloc = 0;
}

void oc_headers_free(struct oc_headers *h)
{
  for(size_t i = 0; i < h->count; i++) {
    free(h->items[i].name);
    free(h->items[i].value);
  }
  free(h->items);
  oc_headers_init(h);
}

int oc_headers_addn(struct oc_headers *h, const char *name, size_t nlen,
                    const char *value, size_t vlen)
{
  while(vlen && (*value == ' ' || *value == '\t')) {
    value++;
    vlen--;
  }
  while(vlen && (value[vlen - 1] == ' ' || value[vlen - 1] == '\t' || value[vlen - 1] == '\r'))
    vlen--;
  struct oc_header *d = oc_array_grow(h->items, &h->alloc, h->count + 1, sizeof(*d));
  if(!d)
    return OC_ENOMEM;
  h->items = d;
  char *nm = oc_strndup(name, nlen);
  char *v = oc_strndup(value, vlen);
  if(!nm || !v) {
    free(nm);
    free(v);
    return OC_ENOMEM;
  }
  h->items[h->count].name = nm;
  h->items[h->count].value = v;
  h->count++;
  return OC_OK;
}

int oc_headers_add(struct oc_headers *h, const char *name, const char *value)
{
  return oc_headers_addn(h, name, strlen(name), value, strlen(value));
}

void oc_headers_remove(struct oc_headers *h, const char *name)
{
  size_t o = 0;
  for(size_t i = 0; i < h->count; i++) {
    if(oc_strcaseeq(h->items[i].name, name)) {
      free(h->items[i].name);
      free(h->items[i].value);
    }
    else
      h->items[o++] = h->items[i];
  }
  h->count = o;
}

int oc_headers_set(struct oc_headers *h, const char *name, const char *value)
{
  oc_headers_remove(h, name);
  return oc_headers_add(h, name, value);
}

const char *oc_headers_get(const struct oc_headers *h, const char *name)
{
  for(size_t i = 0; i < h->count; i++)
    if(oc_strcaseeq(h->items[i].name, name))
      return h->items[i].value;
  return NULL;
}

int oc_headers_copy(struct oc_headers *dst, const struct oc_headers *src)
{
  for(size_t i = 0; i < src->count; i++)
    if(oc_headers_add(dst, src->items[i].name, src->items[i].value))
      return OC_ENOMEM;
  return OC_OK;
}

int oc_headers_parse_line(struct oc_headers *h, const char *line, size_t len)
{
  const char *colon = memchr(line, ':', len);
  if(!colon || colon == line)
    return OC_EPARSE;
  size_t nlen = (size_t)(colon - line);
  return oc_headers_addn(h, line, nlen, colon + 1, len - nlen - 1);
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
  size_t m = strlen(suffix);
  return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

static int is_secret_lower(const char *name, size_t n)
{
  static const char *const exact[] = { "authorization", "proxy-authorization", "cookie",
                                       "set-cookie", "api-key", "x-api-key", "openai-organization",
                                       "openai-project" };
  for(size_t i = 0; i < OC_ARRAY_LEN(exact); i++)
    if(strcmp(name, exact[i]) == 0)
      return 1;
  if(ends_with(name, n, "-key") || ends_with(name, n, "-token") || ends_with(name, n, "-secret"))
    return 1;
  /* gateways invent their own names (apikey, X-Auth, X-Goog-Api-Key,
   * Ocp-Apim-Subscription-Key): anything that sounds like a credential
   * is treated as one */
  static const char *const parts[] = { "auth", "key", "token", "secret", "passw", "cookie",
                                       "credential", "session", "signature" };
  if(strncmp(name, "x-ratelimit", 11) == 0)
    return 0; /* x-ratelimit-remaining-tokens counts, it authorises nothing */
  for(size_t i = 0; i < OC_ARRAY_LEN(parts); i++)
    if(strstr(name, parts[i]))
      return 1;
  return 0;
}

int oc_header_is_secret(const char *name)
{
  /* one lower-cased copy, then libc's string search: this runs for every
   * header of every request, response and reproduce command */
  char small[128];
  size_t n = strlen(name);
  char *low = n < sizeof(small) ? small : malloc(n + 1);
  if(!low)
    return 1; /* out of memory: hiding a value is the safe side */
  for(size_t i = 0; i < n; i++)
    low[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] | 0x20 : name[i]);
  low[n] = '\0';
  int secret = is_secret_lower(low, n);
  if(low != small)
    free(low);
  return secret;
}

int oc_header_is_hop_by_hop(const char *name)
{
  static const char *const hop[] = { "connection", "keep-alive", "transfer-encoding",
                                     "content-length", "te", "trailer", "upgrade",
                                     "proxy-connection" };
  for(size_t i = 0; i < OC_ARRAY_LEN(hop); i++)
    if(oc_strcaseeq(name, hop[i]))
      return 1;
  return 0;
}

void oc_media_type(const char *content_type, char *out, size_t outlen)
{
  size_t o = 0;
  if(!outlen)
    return;
  if(content_type) {
    const char *p = content_type;
    while(*p == ' ' || *p == '\t')
      p++;
    for(; *p && *p != ';' && *p != ' ' && *p != '\t' && o + 1 < outlen; p++)
      out[o++] = (char)((*p >= 'A' && *p <= 'Z') ? *p + 32 : *p);
  }
  out[o] = '\0';
}
