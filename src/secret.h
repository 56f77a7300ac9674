/* secret.h — the one registry of the secrets a run knows (the API key of
 * every target, the values of secret headers, URL passwords and key-like
 * query values), and masking every occurrence of them out of what oacheck
 * writes: results, reports, cassettes, `record --show`, the console and
 * the log.  A server may quote a key back anywhere (a 401 body, a header,
 * a streamed chunk, a Location query), so writers do not look for keys by
 * shape: they ask here.  Which header names are secrets is headers.c's. */
#ifndef OC_SECRET_H
#define OC_SECRET_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* Values shorter than this are not registered: masking "abc" would mask
 * every "abc" in every body while hiding nothing worth hiding.  A warning
 * says so. */
#define OC_SECRET_MIN 6
/* The registry holds at most this many values (variants included). */
#define OC_SECRET_MAX 64

/* Register a secret (copied); a value already known is not added twice.
 * Its percent-encoded and JSON-escaped forms are registered with it when
 * they differ.  Returns OC_OK, OC_ENOMEM or OC_ETOOBIG (registry full:
 * logged as an error, since an unmasked secret is a leak). */
int oc_secret_add(const char *value);
/* A header as sent: its value when the name is a secret one
 * (oc_header_is_secret), and the credential after "Bearer " or "Basic ". */
int oc_secret_add_header(const char *name, const char *value);
/* The password and user information of a URL, and the values of query
 * parameters whose names look like credentials (key, token, secret,
 * password, sig, code, auth). */
int oc_secret_add_url(const char *url);
/* Does a query parameter called name[0..n) carry a credential (key,
 * token, secret, password, sig, code, auth, credential)? */
int oc_secret_param_name(const char *name, size_t n);
/* $NAME's value, when set. */
int oc_secret_add_env(const char *name);
size_t oc_secret_count(void);
/* Forget every secret (tests). */
void oc_secrets_clear(void);

/* Replace every occurrence of every secret in p[0..n) by a mask of the
 * same length, so offsets, lengths and piece boundaries stay true:
 * "[secret" + '*'... + "]" (a secret of 8 bytes or more) or '*'s.
 * Returns how many occurrences were masked.  Safe from several threads,
 * also while another registers a secret (a proxy's client). */
size_t oc_secret_mask(char *p, size_t n);
/* A masked copy (NUL-terminated; caller frees); NULL when memory runs out. */
char *oc_secret_masked(const char *p, size_t n);
/* Mask every string value and member name under v, in place. */
void oc_secret_mask_json(cJSON *v);
/* Mask p[0..n) in place, then write it to path (oc_write_file: a
 * temporary file renamed into place).  Every report file goes out through
 * here. */
int oc_secret_write_file(const char *path, char *p, size_t n, char *err, size_t errlen);

#endif
