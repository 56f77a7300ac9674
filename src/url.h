/* url.h — target URLs: joining a target's root with an API path, and a
 * form of a URL that is safe to print.  Plain string work, no parsing
 * beyond scheme://authority/path?query#fragment; libcurl does the rest. */
#ifndef OC_URL_H
#define OC_URL_H

#include <stddef.h>

/* A target URL is the server's root: surrounding spaces, trailing slashes
 * and one trailing "/v1" (with or without a slash after it) are taken off
 * the path; a query or fragment is dropped.  "http://h:8080/v1/" ->
 * "http://h:8080", "http://h/llm/" -> "http://h/llm".  Caller frees; NULL
 * when memory runs out. */
char *oc_url_root(const char *base);

/* The root of base (see oc_url_root) followed by path, with exactly one
 * slash between them; a query on base is kept and placed after path's
 * own query (joined with '&'), so "https://h/openai?api-version=1" +
 * "/v1/models" -> "https://h/openai/v1/models?api-version=1".  A path of
 * NULL or "" gives the root.  Caller frees; NULL when memory runs out. */
char *oc_url_join(const char *base, const char *path);

/* Whether url's path ends in an API endpoint that oacheck joins to a
 * root itself: "/chat/completions", "/completions", "/embeddings" or
 * "/models", each with or without "/v1" before it (trailing slashes and
 * letter case aside; the query is not looked at).  The offset in url of
 * that endpoint's first '/' and its length in *len, or 0 when the path
 * ends in none: "http://h/v1/chat/completions" -> 8, *len 20.  A base
 * with a path of its own ("https://h/openai/v1", "https://h/llm") ends
 * in none.  Cannot fail. */
size_t oc_url_endpoint(const char *url, size_t *len);

/* The URL without user:password@ and without its query and fragment
 * (which may carry keys), for messages and logs:
 * "http://u:p@h/v1/x?key=1" -> "http://h/v1/x", written into out (outlen
 * bytes, truncated if needed, always terminated).  Cannot fail. */
void oc_url_redact(const char *url, char *out, size_t outlen);
/* The same, keeping the query, with the value of each key-like parameter
 * (oc_secret_param_name: api-key, token, sig, ...) as "[redacted]", for
 * the commands a result gives to reproduce it: an Azure-style
 * ?api-version=... is part of where the request went.
 * "http://u:p@h/v1?api-version=1&key=s#f" -> "http://h/v1?api-version=1&key=[redacted]".
 * A URL that does not fit is cut at a parameter's end, never in a value. */
void oc_url_redact_query(const char *url, char *out, size_t outlen);

#endif
