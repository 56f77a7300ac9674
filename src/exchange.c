/* exchange.c — the raw-exchange reader: index.json, request bodies and
 * HTTP/1.x response files (optionally with chunk framing kept).  What the
 * bytes mean is decided downstream (sse.c, chat.c, rules.c). */
#include "config.h"
#include "exchange.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"

static void exchange_zero(struct oc_exchange *ex)
{
  memset(ex, 0, sizeof(*ex));
  oc_headers_init(&ex->headers);
}

void oc_exchange_free(struct oc_exchange *ex)
{
  if(!ex)
    return;
  free(ex->name);
  free(ex->method);
  free(ex->path);
  free(ex->request);
  free(ex->http_version);
  free(ex->reason);
  oc_headers_free(&ex->headers);
  free(ex->body);
  free(ex->pieces);
  free(ex->note);
  exchange_zero(ex);
}

/* Find the end of the line starting at p: returns the offset of the line
 * terminator and sets *next past it (CRLF or LF). */
static int next_line(const char *buf, size_t len, size_t p, size_t *eol, size_t *next)
{
  const char *nl = memchr(buf + p, '\n', len - p);
  if(!nl)
    return 0;
  size_t e = (size_t)(nl - buf);
  *next = e + 1;
  if(e > p && buf[e - 1] == '\r')
    e--;
  *eol = e;
  return 1;
}

static int dechunk(const char *buf, size_t len, size_t start, struct oc_exchange *ex,
                   char *err, size_t errlen)
{
  struct oc_buf body;
  oc_buf_init(&body, OC_CAP_BODY);
  size_t *pieces = NULL, npieces = 0, apieces = 0;
  size_t p = start;
  int rc = OC_OK;
  for(;;) {
    size_t eol, next;
    if(!next_line(buf, len, p, &eol, &next)) {
      snprintf(err, errlen, "byte %zu: chunk size line not terminated", p);
      rc = OC_EPARSE;
      goto out;
    }
    char *endp = NULL;
    unsigned long size = strtoul(buf + p, &endp, 16);
    if(endp == buf + p) {
      snprintf(err, errlen, "byte %zu: expected a hexadecimal chunk size", p);
      rc = OC_EPARSE;
      goto out;
    }
    p = next;
    if(size == 0)
      break;
    if(size > len - p) {
      snprintf(err, errlen, "byte %zu: chunk of %lu bytes runs past the end of the file", p, size);
      rc = OC_EPARSE;
      goto out;
    }
    rc = oc_buf_add(&body, buf + p, size);
    if(rc) {
      snprintf(err, errlen, "byte %zu: body larger than the cap", p);
      goto out;
    }
    size_t *d = oc_array_grow(pieces, &apieces, npieces + 1, sizeof(*d));
    if(!d) {
      rc = OC_ENOMEM;
      goto out;
    }
    pieces = d;
    pieces[npieces++] = body.len;
    p += size;
    if(p + 2 <= len && buf[p] == '\r' && buf[p + 1] == '\n')
      p += 2;
    else if(p < len && buf[p] == '\n')
      p += 1;
    else {
      snprintf(err, errlen, "byte %zu: chunk data not followed by CRLF", p);
      rc = OC_EPARSE;
      goto out;
    }
  }
  ex->body = oc_buf_take(&body, &ex->body_len);
  ex->pieces = pieces;
  ex->npieces = npieces;
  pieces = NULL;
  if(!ex->body)
    rc = OC_ENOMEM;
out:
  oc_buf_free(&body);
  free(pieces);
  return rc;
}

int oc_exchange_parse_response(const char *buf, size_t len, int wire, struct oc_exchange *ex,
                               char *err, size_t errlen)
{
  exchange_zero(ex);
  size_t eol, next, p = 0;
  int rc = OC_EPARSE;
  /* "HTTP/2 200" is the shortest status line (curl -i prints it so) */
  if(!next_line(buf, len, 0, &eol, &next) || eol < 10 || strncmp(buf, "HTTP/", 5) != 0) {
    snprintf(err, errlen, "byte 0: expected a status line such as 'HTTP/1.1 200 OK'");
    goto fail;
  }
  {
    const char *sp = memchr(buf, ' ', eol);
    if(!sp || (size_t)(sp - buf) + 4 > eol) {
      snprintf(err, errlen, "byte 0: malformed status line");
      goto fail;
    }
    size_t vlen = (size_t)(sp - buf);
    char code[4] = { sp[1], sp[2], sp[3], 0 };
    long status;
    if(oc_parse_long(code, 100, 999, &status)) {
      snprintf(err, errlen, "byte %zu: status code '%s' is not a number", vlen + 1, code);
      goto fail;
    }
    ex->status = (int)status;
    ex->http_version = oc_strndup(buf, vlen);
    size_t rstart = vlen + 4;
    while(rstart < eol && buf[rstart] == ' ')
      rstart++;
    ex->reason = oc_strndup(buf + rstart, eol > rstart ? eol - rstart : 0);
    if(!ex->http_version || !ex->reason) {
      rc = OC_ENOMEM;
      goto fail;
    }
  }
  p = next;
  for(;;) {
    if(!next_line(buf, len, p, &eol, &next)) {
      snprintf(err, errlen, "byte %zu: headers not terminated by a blank line", p);
      goto fail;
    }
    if(eol == p)
      break;
    int hrc = oc_headers_parse_line(&ex->headers, buf + p, eol - p);
    if(hrc == OC_ENOMEM) {
      snprintf(err, errlen, "out of memory");
      rc = OC_ENOMEM;
      goto fail;
    }
    if(hrc) {
      snprintf(err, errlen, "byte %zu: header line without a colon", p);
      goto fail;
    }
    p = next;
  }
  p = next;
  const char *te = oc_headers_get(&ex->headers, "Transfer-Encoding");
  if(wire && te && strstr(te, "chunked")) {
    rc = dechunk(buf, len, p, ex, err, errlen);
    if(rc)
      goto fail;
  }
  else {
    ex->body = oc_strndup(buf + p, len - p);
    ex->body_len = len - p;
    if(!ex->body) {
      rc = OC_ENOMEM;
      goto fail;
    }
  }
  return OC_OK;
fail:
  oc_exchange_free(ex);
  return rc;
}

static int load_with_index(const char *dir, const char *name, const cJSON *index,
                           struct oc_exchange *ex, char *err, size_t errlen)
{
  int wire = oc_endswith(name, ".wire");
  char *base = oc_strndup(name, strlen(name) - (wire ? 5 : 0));
  char *resp_name = oc_asprintf(wire ? "%s.http" : "%s.response.http", name);
  char *req_name = oc_asprintf("%s.request.json", base);
  char *resp_path = resp_name ? oc_path_join(dir, resp_name) : NULL;
  char *req_path = req_name ? oc_path_join(dir, req_name) : NULL;
  char *raw = NULL;
  size_t rawlen = 0;
  int rc = OC_ENOMEM;
  exchange_zero(ex);
  if(!base || !resp_path || !req_path)
    goto out;
  const cJSON *entry = oc_json_get(index, base);
  if(!cJSON_IsObject(entry)) {
    snprintf(err, errlen, "%s/index.json: no entry for '%s'", dir, base);
    rc = OC_ENOTFOUND;
    goto out;
  }
  const char *method = oc_json_str(entry, "method");
  const char *path = oc_json_str(entry, "path");
  if(!method || !path) {
    snprintf(err, errlen, "%s/index.json: entry '%s' lacks a string 'method' or 'path'", dir, base);
    rc = OC_EPARSE;
    goto out;
  }
  char inner[512];
  rc = oc_read_file(resp_path, OC_CAP_BODY, &raw, &rawlen, err, errlen);
  if(rc)
    goto out;
  rc = oc_exchange_parse_response(raw, rawlen, wire, ex, inner, sizeof(inner));
  if(rc) {
    snprintf(err, errlen, "%s: %s", resp_path, inner);
    goto out;
  }
  rc = OC_ENOMEM;
  ex->name = oc_strdup(name);
  ex->method = oc_strdup(method);
  ex->path = oc_strdup(path);
  const char *note = oc_json_str(entry, "test_only");
  if(note)
    ex->note = oc_strdup(note);
  if(!ex->name || !ex->method || !ex->path || (note && !ex->note))
    goto out;
  if(oc_json_bool(entry, "request_body", oc_is_file(req_path))) {
    rc = oc_read_file(req_path, OC_CAP_BODY, &ex->request, &ex->request_len, err, errlen);
    if(rc)
      goto out;
  }
  rc = OC_OK;
out:
  if(rc)
    oc_exchange_free(ex);
  free(raw);
  free(base);
  free(resp_name);
  free(req_name);
  free(resp_path);
  free(req_path);
  return rc;
}

static cJSON *load_index(const char *dir, char *err, size_t errlen)
{
  char *ipath = oc_path_join(dir, "index.json");
  if(!ipath)
    return NULL;
  cJSON *index = oc_json_parse_file(ipath, err, errlen);
  if(index && !cJSON_IsObject(index)) {
    snprintf(err, errlen, "%s: expected an object mapping names to {method, path}", ipath);
    cJSON_Delete(index);
    index = NULL;
  }
  free(ipath);
  return index;
}

int oc_exchange_load(const char *dir, const char *name, struct oc_exchange *ex, char *err,
                     size_t errlen)
{
  cJSON *index = load_index(dir, err, errlen);
  if(!index) {
    exchange_zero(ex);
    return OC_EPARSE;
  }
  int rc = load_with_index(dir, name, index, ex, err, errlen);
  cJSON_Delete(index);
  return rc;
}

static int cmp_names(const void *a, const void *b)
{
  return strcmp(((const struct oc_exchange *)a)->name, ((const struct oc_exchange *)b)->name);
}

int oc_exchange_load_dir(const char *dir, struct oc_exchange_set *set, char *err, size_t errlen)
{
  memset(set, 0, sizeof(*set));
  cJSON *index = load_index(dir, err, errlen);
  if(!index)
    return OC_EPARSE;
  int rc = OC_ENOMEM;
  size_t n = (size_t)cJSON_GetArraySize(index);
  set->dir = oc_strdup(dir);
  set->items = calloc(n ? n : 1, sizeof(*set->items));
  if(!set->dir || !set->items)
    goto out;
  for(const cJSON *e = index->child; e; e = e->next) {
    rc = load_with_index(dir, e->string, index, &set->items[set->count], err, errlen);
    if(rc)
      goto out;
    set->count++;
  }
  qsort(set->items, set->count, sizeof(*set->items), cmp_names);
  rc = OC_OK;
out:
  cJSON_Delete(index);
  if(rc)
    oc_exchange_set_free(set);
  return rc;
}

const struct oc_exchange *oc_exchange_find(const struct oc_exchange_set *set, const char *name)
{
  for(size_t i = 0; i < set->count; i++)
    if(strcmp(set->items[i].name, name) == 0)
      return &set->items[i];
  return NULL;
}

void oc_exchange_set_free(struct oc_exchange_set *set)
{
  for(size_t i = 0; i < set->count; i++)
    oc_exchange_free(&set->items[i]);
  free(set->items);
  free(set->dir);
  memset(set, 0, sizeof(*set));
}
