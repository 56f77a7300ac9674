/* html_out.h — what every HTML page oacheck writes is made with: the
 * run report (report_html.c) and the history page (report_history.c).
 *
 * A page is written into a buffer with a sticky error: once an adder
 * fails (the buffer keeps its first error) every later call does nothing,
 * and the page's writer checks rc once at the end.  Text from a results
 * file is untrusted and goes through oc_html_txt* or oc_html_attr, never
 * oc_html_put.  A page's stylesheet and script are read from the data
 * directory (or a directory given for tests) and inlined, admitted by a
 * Content-Security-Policy that names their SHA-256 hashes. */
#ifndef OC_HTML_OUT_H
#define OC_HTML_OUT_H

#include <stddef.h>

#include "util.h"

#define OC_CAP_ASSET (1u << 20) /* one template, stylesheet or script */

struct oc_html {
  struct oc_buf *b;
  int rc; /* the first error; OC_OK while every adder succeeded */
};

/* Markup, as it is. */
void oc_html_put(struct oc_html *h, const char *s);
void oc_html_putf(struct oc_html *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Untrusted text in element content: whole, its first n bytes, or cut at
 * max bytes (on a character boundary, with an ellipsis). */
void oc_html_txt(struct oc_html *h, const char *s);
void oc_html_txtn(struct oc_html *h, const char *s, size_t n);
void oc_html_txtcut(struct oc_html *h, const char *s, size_t max);
/* Untrusted text in a double-quoted attribute value, cut at OC_CAP_MESSAGE. */
void oc_html_attr(struct oc_html *h, const char *s);

/* Asset NAME of a page, from dir, or when dir is NULL from reports/ in the
 * data directory, into *out (caller frees).  Refused (OC_EPARSE) when it
 * holds a NUL byte, or, for a stylesheet, "</" or "<!", which would end
 * its <style> element early.  what names the page in errors ("report",
 * "history"). */
int oc_html_read_asset(const char *dir, const char *name, const char *what, char **out,
                       char *err, size_t errlen);
/* "sha256-BASE64" of s, for a CSP source list (out holds 64 bytes). */
int oc_html_csp_hash(const char *s, char out[64]);

#endif
