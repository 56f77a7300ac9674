/* url.c — target roots, joining roots with API paths, printable URLs.
 * Only the split into scheme://authority, path, query and fragment is
 * done here; validating a URL is libcurl's job when it is used. */
#include "config.h"
#include "url.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "secret.h"
#include "util.h"

/* The parts of a URL as offsets into it: [0, auth_end) is
 * "scheme://authority" (empty when there is no "://"), [auth_end,
 * path_end) the path, [query, query_end) the query without its '?'
 * (query == query_end when absent). */
struct url_parts {
  size_t auth_start; /* first byte of the authority */
  size_t auth_end;
  size_t path_end;
  size_t query;
  size_t query_end;
};

static void url_split(const char *s, size_t len, struct url_parts *u)
{
  /* "://" counts only as the first '/', '?' or '#': "/a?x=http://b" has
   * no scheme */
  size_t first = strcspn(s, "/?#");
  int scheme = first > 1 && first + 1 < len && s[first - 1] == ':' && s[first] == '/' &&
               s[first + 1] == '/';
  u->auth_start = scheme ? first + 2 : 0;
  size_t i = u->auth_start;
  if(scheme)
    while(i < len && s[i] != '/' && s[i] != '?' && s[i] != '#')
      i++;
  u->auth_end = i;
  while(i < len && s[i] != '?' && s[i] != '#')
    i++;
  u->path_end = i;
  u->query = u->query_end = i;
  if(i < len && s[i] == '?') {
    u->query = ++i;
    while(i < len && s[i] != '#')
      i++;
    u->query_end = i;
  }
}

/* base without surrounding white space: [*start, *start + *len) */
static void trim(const char *s, const char **start, size_t *len)
{
  while(*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
    s++;
  size_t n = strlen(s);
  while(n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
    n--;
  *start = s;
  *len = n;
}

/* Length of the root's path part: trailing slashes, then one "/v1", then
 * trailing slashes again are taken off [from, to). */
static size_t root_path_end(const char *s, size_t from, size_t to)
{
  while(to > from && s[to - 1] == '/')
    to--;
  if(to - from >= 3 && memcmp(s + to - 3, "/v1", 3) == 0)
    to -= 3;
  while(to > from && s[to - 1] == '/')
    to--;
  return to;
}

char *oc_url_root(const char *base)
{
  const char *s;
  size_t n;
  struct url_parts u;
  trim(base ? base : "", &s, &n);
  url_split(s, n, &u);
  return oc_strndup(s, root_path_end(s, u.auth_end, u.path_end));
}

size_t oc_url_endpoint(const char *url, size_t *len)
{
  /* longest first: "/chat/completions" also ends in "/completions" */
  static const char *const endpoints[] = { "/chat/completions", "/completions", "/embeddings",
                                           "/models" };
  const char *s;
  size_t n;
  struct url_parts u;
  *len = 0;
  trim(url ? url : "", &s, &n);
  url_split(s, n, &u);
  size_t end = u.path_end;
  while(end > u.auth_end && s[end - 1] == '/')
    end--;
  for(size_t i = 0; i < OC_ARRAY_LEN(endpoints); i++) {
    size_t el = strlen(endpoints[i]);
    if(end - u.auth_end < el || strncasecmp(s + end - el, endpoints[i], el) != 0)
      continue;
    size_t start = end - el;
    if(start - u.auth_end >= 3 && strncasecmp(s + start - 3, "/v1", 3) == 0)
      start -= 3;
    *len = end - start;
    return (size_t)(s - url) + start;
  }
  return 0;
}

char *oc_url_join(const char *base, const char *path)
{
  const char *s;
  size_t n;
  struct url_parts u;
  struct oc_buf b;
  char *out = NULL;
  trim(base ? base : "", &s, &n);
  url_split(s, n, &u);
  if(!path)
    path = "";
  oc_buf_init(&b, n + strlen(path) + 8);
  size_t root = root_path_end(s, u.auth_end, u.path_end);
  if(oc_buf_add(&b, s, root))
    goto out;
  /* the path's own fragment goes last, after the base's query */
  size_t plen = strcspn(path, "#");
  int has_q = memchr(path, '?', plen) != NULL;
  if(plen && path[0] != '/' && path[0] != '?' && oc_buf_addc(&b, '/'))
    goto out;
  if(oc_buf_add(&b, path, plen))
    goto out;
  if(u.query_end > u.query) {
    if(oc_buf_addc(&b, has_q ? '&' : '?') || oc_buf_add(&b, s + u.query, u.query_end - u.query))
      goto out;
  }
  if(oc_buf_adds(&b, path + plen))
    goto out;
  out = oc_buf_take(&b, NULL);
out:
  oc_buf_free(&b);
  return out;
}

void oc_url_redact(const char *url, char *out, size_t outlen)
{
  struct url_parts u;
  size_t n = url ? strlen(url) : 0, o = 0;
  if(!outlen)
    return;
  if(!url)
    url = "";
  url_split(url, n, &u);
  /* userinfo is everything in the authority up to its last '@' */
  size_t host = u.auth_start;
  for(size_t i = u.auth_start; i < u.auth_end; i++)
    if(url[i] == '@')
      host = i + 1;
  for(size_t i = 0; i < u.path_end && o + 1 < outlen; i++) {
    if(i == u.auth_start)
      i = host;
    if(i >= u.path_end)
      break;
    out[o++] = url[i];
  }
  out[o] = '\0';
}

void oc_url_redact_query(const char *url, char *out, size_t outlen)
{
  oc_url_redact(url, out, outlen);
  if(!url || !outlen)
    return;
  struct url_parts u;
  url_split(url, strlen(url), &u);
  size_t o = strlen(out);
  char sep = '?';
  for(size_t i = u.query; i < u.query_end;) {
    size_t end = i;
    while(end < u.query_end && url[end] != '&')
      end++;
    const char *eq = memchr(url + i, '=', end - i);
    int secret = eq && oc_secret_param_name(url + i, (size_t)(eq - (url + i)));
    size_t keep = secret ? (size_t)(eq + 1 - (url + i)) : end - i;
    size_t need = 1 + keep + (secret ? strlen("[redacted]") : 0);
    if(end > i) {
      if(o + need >= outlen)
        break; /* the parameters that fit, whole */
      out[o++] = sep;
      memcpy(out + o, url + i, keep);
      o += keep;
      if(secret) {
        memcpy(out + o, "[redacted]", strlen("[redacted]"));
        o += strlen("[redacted]");
      }
      sep = '&';
    }
    i = end + 1;
  }
  out[o] = '\0';
}
