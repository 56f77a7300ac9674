/* headers.h — an ordered list of HTTP header fields, looked up without
 * regard to case, with the secrets (Authorization, API keys, cookies)
 * recognised so that nothing downstream ever writes them out. */
#ifndef OC_HEADERS_H
#define OC_HEADERS_H

#include <stddef.h>

struct oc_header {
  char *name;
  char *value;
};

struct oc_headers {
  struct oc_header *items;
  size_t count;
  size_t alloc;
};

/* Fill *h as an empty list.  Cannot fail. */
void oc_headers_init(struct oc_headers *h);
void oc_headers_free(struct oc_headers *h);
/* Append a copy of name and value (value is trimmed of surrounding spaces). */
int oc_headers_add(struct oc_headers *h, const char *name, const char *value);
int oc_headers_addn(struct oc_headers *h, const char *name, size_t nlen,
                    const char *value, size_t vlen);
/* Replace every field called name by one with this value. */
int oc_headers_set(struct oc_headers *h, const char *name, const char *value);
void oc_headers_remove(struct oc_headers *h, const char *name);
/* The first value of a field, case-insensitive; borrowed; NULL if absent. */
const char *oc_headers_get(const struct oc_headers *h, const char *name);
int oc_headers_copy(struct oc_headers *dst, const struct oc_headers *src);
/* Parse one "Name: value" line (no line end).  OC_EPARSE when there is no colon. */
int oc_headers_parse_line(struct oc_headers *h, const char *line, size_t len);

/* Does this header carry a secret (Authorization, Proxy-Authorization,
 * Cookie, Set-Cookie, api-key, x-api-key, anything ending in -key or
 * -token)?  Such fields are dropped from cassettes and shown as
 * "[redacted]" in reports. */
int oc_header_is_secret(const char *name);
/* Hop-by-hop fields that describe one connection, not the message. */
int oc_header_is_hop_by_hop(const char *name);

/* The media type of a Content-Type value, lower-cased, without parameters
 * ("text/event-stream; charset=utf-8" -> "text/event-stream") into out. */
void oc_media_type(const char *content_type, char *out, size_t outlen);

#endif
