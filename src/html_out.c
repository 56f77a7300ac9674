/* html_out.c — the page writer's adders, assets and CSP hashes
 * (html_out.h). */
#include "config.h"
#include "html_out.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "datadir.h"
#include "results_json.h"

void oc_html_put(struct oc_html *h, const char *s)
{
  if(!h->rc && s)
    h->rc = oc_buf_adds(h->b, s);
}

void oc_html_putf(struct oc_html *h, const char *fmt, ...)
{
  if(h->rc)
    return;
  va_list ap;
  va_start(ap, fmt);
  h->rc = oc_buf_vprintf(h->b, fmt, ap);
  va_end(ap);
}

void oc_html_txt(struct oc_html *h, const char *s)
{
  if(!h->rc && s)
    h->rc = oc_esc_adds(h->b, s, OC_ESC_HTML_TEXT);
}

void oc_html_txtn(struct oc_html *h, const char *s, size_t n)
{
  if(!h->rc && s)
    h->rc = oc_esc_add(h->b, s, n, OC_ESC_HTML_TEXT);
}

void oc_html_txtcut(struct oc_html *h, const char *s, size_t max)
{
  if(!h->rc && s)
    h->rc = oc_esc_addn_cut(h->b, s, max, OC_ESC_HTML_TEXT);
}

void oc_html_attr(struct oc_html *h, const char *s)
{
  if(!h->rc && s)
    h->rc = oc_esc_addn_cut(h->b, s, OC_CAP_MESSAGE, OC_ESC_HTML_ATTR);
}

int oc_html_read_asset(const char *dir, const char *name, const char *what, char **out,
                       char *err, size_t errlen)
{
  char *path = NULL;
  if(dir)
    path = oc_path_join(dir, name);
  else {
    char *rel = oc_asprintf("reports/%s", name);
    path = rel ? oc_data_path(rel) : NULL;
    free(rel);
  }
  if(!path) {
    snprintf(err, errlen, "out of memory");
    return OC_ENOMEM;
  }
  size_t n;
  int rc = oc_read_file(path, OC_CAP_ASSET, out, &n, err, errlen);
  /* an edited stylesheet must not end its own element */
  if(!rc && (strlen(*out) != n || (oc_endswith(name, ".css") && (strstr(*out, "</") || strstr(*out, "<!"))))) {
    snprintf(err, errlen, "%s asset '%s' holds a NUL byte, or '</' or '<!' in a stylesheet", what, path);
    free(*out);
    *out = NULL;
    rc = OC_EPARSE;
  }
  free(path);
  return rc;
}

int oc_html_csp_hash(const char *s, char out[64])
{
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int mdlen = 0;
  if(!EVP_Digest(s, strlen(s), md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
    return OC_ENOMEM;
  memcpy(out, "sha256-", 7);
  EVP_EncodeBlock((unsigned char *)out + 7, md, (int)mdlen); /* 44 chars + NUL */
  return OC_OK;
}
