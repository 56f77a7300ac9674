/* spool.c — the results spool: an unlinked temporary file of JSON lines,
 * appended in large pieces, and an in-memory index of where each result
 * is.  Reading is pread() at the index's offset, so any order costs the
 * same and the file is never scanned.  Parsing, status and rendering are
 * the callers'. */
#include "config.h"
#include "spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "secret.h"

#define SPOOL_PIECE (1u << 20)          /* pending bytes written at once */
#define SPOOL_MAX_RESULT (0xFFFFFFFEu)  /* one result's text */

const char *oc_spool_dir_for(const char *json_path, char *buf, size_t buflen)
{
  const char *slash = json_path ? strrchr(json_path, '/') : NULL;
  if(!slash || buflen == 0)
    return NULL;
  size_t n = (size_t)(slash - json_path);
  if(n == 0)
    n = 1; /* "/x.json": the root */
  if(n >= buflen)
    return NULL;
  memcpy(buf, json_path, n);
  buf[n] = '\0';
  return buf;
}

int oc_spool_open(struct oc_spool *s, const char *dir, size_t nitems, char *err, size_t errlen)
{
  memset(s, 0, sizeof(*s));
  s->fd = -1;
  oc_buf_init(&s->pending, SPOOL_PIECE * 2 + 64);
  if(!dir || !*dir)
    dir = getenv("TMPDIR");
  if(!dir || !*dir)
    dir = "/tmp";
  oc_strlcpy(s->dir, dir, sizeof(s->dir));
  s->items = calloc(nitems ? nitems : 1, sizeof(*s->items));
  if(!s->items) {
    snprintf(err, errlen, "out of memory for the index of %zu results", nitems);
    return OC_ENOMEM;
  }
  s->nitems = nitems;
  char path[600];
  if(snprintf(path, sizeof(path), "%s/.oacheck-spool.XXXXXX", dir) >= (int)sizeof(path)) {
    snprintf(err, errlen, "the spool directory name '%s' is too long", dir);
    goto fail;
  }
  int fd = mkstemp(path);
  if(fd < 0) {
    snprintf(err, errlen, "cannot create a results spool in '%s': %s", dir, strerror(errno));
    goto fail;
  }
  /* gone from the directory at once: the open descriptor keeps the data */
  unlink(path);
  s->fd = fd;
  return OC_OK;
fail:
  free(s->items);
  s->items = NULL;
  return OC_EIO;
}

int oc_spool_reserve(struct oc_spool *s, size_t nitems)
{
  if(nitems <= s->nitems)
    return OC_OK;
  size_t alloc = s->nitems;
  struct oc_spool_entry *n = oc_array_grow(s->items, &alloc, nitems, sizeof(*n));
  if(!n)
    return OC_ENOMEM;
  /* the new entries hold no result */
  memset(n + s->nitems, 0, (alloc - s->nitems) * sizeof(*n));
  s->items = n;
  s->nitems = alloc;
  return OC_OK;
}

static int flush_pending(struct oc_spool *s, char *err, size_t errlen)
{
  size_t done = 0;
  while(done < s->pending.len) {
    ssize_t w = pwrite(s->fd, s->pending.data + done, s->pending.len - done,
                       (off_t)(s->pending_at + done));
    if(w < 0 && errno == EINTR)
      continue;
    if(w <= 0) {
      snprintf(err, errlen, "cannot write the results spool in '%s': %s", s->dir,
               w < 0 ? strerror(errno) : "no space written");
      return OC_EIO;
    }
    done += (size_t)w;
  }
  s->pending_at += s->pending.len;
  oc_buf_reset(&s->pending);
  return OC_OK;
}

static int spool_put(struct oc_spool *s, size_t index, const char *text, size_t len, int status,
                     int replace, char *err, size_t errlen);

int oc_spool_put(struct oc_spool *s, size_t index, const char *text, size_t len, int status,
                 char *err, size_t errlen)
{
  return spool_put(s, index, text, len, status, 0, err, errlen);
}

int oc_spool_replace(struct oc_spool *s, size_t index, const char *text, size_t len, int status,
                     char *err, size_t errlen)
{
  return spool_put(s, index, text, len, status, 1, err, errlen);
}

static int spool_put(struct oc_spool *s, size_t index, const char *text, size_t len, int status,
                     int replace, char *err, size_t errlen)
{
  if(s->fd < 0 || index >= s->nitems || (s->items[index].len != 0) != (replace != 0)) {
    snprintf(err, errlen, "internal: result %zu %s", index,
             replace ? "replaced before it was stored, or out of range" : "stored twice or out of range");
    return OC_EUSAGE;
  }
  if(len == 0 || len > SPOOL_MAX_RESULT) {
    snprintf(err, errlen, "result %zu is %s", index, len ? "4 GiB or more" : "empty");
    return OC_ETOOBIG;
  }
  if(s->pending.len && s->pending.len + len + 1 > SPOOL_PIECE) {
    int rc = flush_pending(s, err, errlen);
    if(rc)
      return rc;
  }
  uint64_t at = s->size;
  if(len + 1 > SPOOL_PIECE) {
    /* a result larger than a piece goes straight to the file */
    int rc = flush_pending(s, err, errlen);
    if(rc)
      return rc;
    for(size_t done = 0; done < len;) {
      ssize_t w = pwrite(s->fd, text + done, len - done, (off_t)(at + done));
      if(w < 0 && errno == EINTR)
        continue;
      if(w <= 0) {
        snprintf(err, errlen, "cannot write the results spool in '%s': %s", s->dir,
                 w < 0 ? strerror(errno) : "no space written");
        return OC_EIO;
      }
      done += (size_t)w;
    }
    if(pwrite(s->fd, "\n", 1, (off_t)(at + len)) != 1) {
      snprintf(err, errlen, "cannot write the results spool in '%s': %s", s->dir, strerror(errno));
      return OC_EIO;
    }
    s->pending_at = at + len + 1;
  }
  else {
    size_t before = s->pending.len;
    if(oc_buf_add(&s->pending, text, len) || oc_buf_addc(&s->pending, '\n')) {
      snprintf(err, errlen, "out of memory spooling a result");
      /* the pending results stay: write them, forget this one */
      s->pending.len = before;
      int rc = flush_pending(s, err, errlen);
      return rc ? rc : OC_ENOMEM;
    }
  }
  s->size = at + len + 1;
  s->items[index].offset = at;
  s->items[index].len = (uint32_t)len;
  s->items[index].status = (uint8_t)status;
  if(!replace)
    s->stored++;
  return OC_OK;
}

int oc_spool_encode(const cJSON *result, size_t index, struct oc_buf *out, char *err,
                    size_t errlen)
{
  oc_buf_reset(out);
  out->max = SPOOL_MAX_RESULT;
  int rc = oc_json_write(out, result, 0);
  if(rc) {
    snprintf(err, errlen, "%s serialising result %zu", rc == OC_ENOMEM ? "out of memory" : "too big",
             index);
    return rc;
  }
  /* nothing the run knows as a secret reaches the disk, even unlinked;
   * every report is written from here */
  oc_secret_mask(out->data, out->len);
  return OC_OK;
}

static int put_json(struct oc_spool *s, size_t index, const cJSON *result, int status, int replace,
                    char *err, size_t errlen)
{
  struct oc_buf b;
  oc_buf_init(&b, SPOOL_MAX_RESULT);
  int rc = oc_spool_encode(result, index, &b, err, errlen);
  if(rc) {
    oc_buf_free(&b);
    return rc;
  }
  rc = spool_put(s, index, b.data, b.len, status, replace, err, errlen);
  oc_buf_free(&b);
  return rc;
}

int oc_spool_put_json(struct oc_spool *s, size_t index, const cJSON *result, int status, char *err,
                      size_t errlen)
{
  return put_json(s, index, result, status, 0, err, errlen);
}

int oc_spool_replace_json(struct oc_spool *s, size_t index, const cJSON *result, int status,
                          char *err, size_t errlen)
{
  return put_json(s, index, result, status, 1, err, errlen);
}

int oc_spool_has(const struct oc_spool *s, size_t index)
{
  return s->items && index < s->nitems && s->items[index].len != 0;
}

int oc_spool_text(struct oc_spool *s, size_t index, struct oc_buf *out, char *err, size_t errlen)
{
  if(!oc_spool_has(s, index)) {
    snprintf(err, errlen, "internal: no result %zu in the spool", index);
    return OC_EUSAGE;
  }
  const struct oc_spool_entry *e = &s->items[index];
  oc_buf_reset(out);
  if(e->offset >= s->pending_at) {
    /* still in memory */
    size_t from = (size_t)(e->offset - s->pending_at);
    if(oc_buf_add(out, s->pending.data + from, e->len)) {
      snprintf(err, errlen, "out of memory reading result %zu back", index);
      return OC_ENOMEM;
    }
    return OC_OK;
  }
  char piece[64 << 10];
  size_t done = 0;
  while(done < e->len) {
    size_t want = e->len - done < sizeof(piece) ? e->len - done : sizeof(piece);
    ssize_t r = pread(s->fd, piece, want, (off_t)(e->offset + done));
    if(r < 0 && errno == EINTR)
      continue;
    if(r <= 0) {
      snprintf(err, errlen, "cannot read the results spool in '%s': %s", s->dir,
               r < 0 ? strerror(errno) : "it is shorter than written");
      return OC_EIO;
    }
    if(oc_buf_add(out, piece, (size_t)r)) {
      snprintf(err, errlen, "out of memory reading result %zu back", index);
      return OC_ENOMEM;
    }
    done += (size_t)r;
  }
  return OC_OK;
}

cJSON *oc_spool_get(struct oc_spool *s, size_t index, char *err, size_t errlen)
{
  struct oc_buf b;
  oc_buf_init(&b, SPOOL_MAX_RESULT);
  cJSON *r = NULL;
  if(!oc_spool_text(s, index, &b, err, errlen)) {
    struct oc_json_pos pos;
    r = oc_json_parse(b.data, b.len, &pos);
    if(!r)
      snprintf(err, errlen, "result %zu in the spool does not parse at byte %zu (out of memory?)",
               index, pos.offset);
  }
  oc_buf_free(&b);
  return r;
}

void oc_spool_close(struct oc_spool *s)
{
  if(s->fd >= 0)
    close(s->fd);
  s->fd = -1;
  free(s->items);
  s->items = NULL;
  s->nitems = 0;
  oc_buf_free(&s->pending);
}
