/* util.c — capped buffers, strings, files, clocks and logging.
 * Nothing here knows about the protocol; see util.h for the contracts. */
#include "config.h"
#include "util.h"
#include "secret.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- buffers ---------------------------------------------------------- */

void oc_buf_init(struct oc_buf *b, size_t max)
{
  b->data = NULL;
  b->len = 0;
  b->alloc = 0;
  b->max = max;
  b->err = OC_OK;
}

void oc_buf_free(struct oc_buf *b)
{
  free(b->data);
  b->data = NULL;
  b->len = 0;
  b->alloc = 0;
  b->err = OC_OK;
}

void oc_buf_reset(struct oc_buf *b)
{
  b->len = 0;
  b->err = OC_OK;
  if(b->data)
    b->data[0] = '\0';
}

int oc_buf_error(const struct oc_buf *b)
{
  return b->err;
}

/* Keep the first error: later adds see it and do nothing. */
static int fail(struct oc_buf *b, int rc)
{
  if(!b->err)
    b->err = rc;
  return b->err;
}

int oc_buf_add(struct oc_buf *b, const void *p, size_t n)
{
  if(b->err)
    return b->err;
  if(n > b->max || b->len > b->max - n)
    return fail(b, OC_ETOOBIG);
  if(b->len + n + 1 > b->alloc) {
    size_t want = b->alloc ? b->alloc : 64;
    while(want < b->len + n + 1)
      want *= 2;
    if(want > b->max + 1)
      want = b->max + 1;
    char *d = realloc(b->data, want); /* checksrc: the buffer's own growth, capped by max */
    if(!d)
      return fail(b, OC_ENOMEM);
    b->data = d;
    b->alloc = want;
  }
  if(n)
    memcpy(b->data + b->len, p, n);
  b->len += n;
  b->data[b->len] = '\0';
  return OC_OK;
}

int oc_buf_adds(struct oc_buf *b, const char *s)
{
  return oc_buf_add(b, s, strlen(s));
}

int oc_buf_addc(struct oc_buf *b, char c)
{
  return oc_buf_add(b, &c, 1);
}

int oc_buf_vprintf(struct oc_buf *b, const char *fmt, va_list ap)
{
  if(b->err)
    return b->err;
  char small[256];
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(small, sizeof(small), fmt, ap2);
  va_end(ap2);
  if(n < 0)
    return fail(b, OC_EUSAGE);
  if((size_t)n < sizeof(small))
    return oc_buf_add(b, small, (size_t)n);
  char *big = malloc((size_t)n + 1);
  if(!big)
    return fail(b, OC_ENOMEM);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  int rc = oc_buf_add(b, big, (size_t)n);
  free(big);
  return rc;
}

int oc_buf_printf(struct oc_buf *b, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int rc = oc_buf_vprintf(b, fmt, ap);
  va_end(ap);
  return rc;
}

char *oc_buf_take(struct oc_buf *b, size_t *len)
{
  if(len)
    *len = 0;
  if(b->err) {
    /* a failed buffer hands nothing over: its contents are not what the
     * caller meant to build */
    free(b->data);
    b->data = NULL;
    b->len = 0;
    b->alloc = 0;
    return NULL;
  }
  char *d = b->data;
  if(!d)
    d = calloc(1, 1);
  if(len && d)
    *len = b->len;
  b->data = NULL;
  b->len = 0;
  b->alloc = 0;
  return d;
}

const char *oc_buf_str(const struct oc_buf *b)
{
  return b->data ? b->data : "";
}

/* ---- strings ---------------------------------------------------------- */

char *oc_strdup(const char *s)
{
  return s ? oc_strndup(s, strlen(s)) : NULL;
}

char *oc_strndup(const char *s, size_t n)
{
  char *d = malloc(n + 1);
  if(!d)
    return NULL;
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

char *oc_asprintf(const char *fmt, ...)
{
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_FILE);
  va_list ap;
  va_start(ap, fmt);
  oc_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  return oc_buf_take(&b, NULL); /* NULL when the printf failed */
}

int oc_streq(const char *a, const char *b)
{
  if(!a || !b)
    return a == b;
  return strcmp(a, b) == 0;
}

static int ascii_lower(int c)
{
  return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

int oc_strcaseeq(const char *a, const char *b)
{
  if(!a || !b)
    return a == b;
  while(*a && *b) {
    if(ascii_lower((unsigned char)*a) != ascii_lower((unsigned char)*b))
      return 0;
    a++;
    b++;
  }
  return *a == *b;
}

int oc_startswith(const char *s, const char *prefix)
{
  return s && prefix && strncmp(s, prefix, strlen(prefix)) == 0;
}

int oc_endswith(const char *s, const char *suffix)
{
  if(!s || !suffix)
    return 0;
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

size_t oc_edit_distance(const char *a, size_t an, const char *b, size_t bn, size_t max)
{
  if(an > OC_EDIT_MAX_LEN || bn > OC_EDIT_MAX_LEN || (an > bn ? an - bn : bn - an) > max)
    return max + 1;
  /* one row of the usual table, on the stack: the names are short */
  size_t row[OC_EDIT_MAX_LEN + 1];
  for(size_t j = 0; j <= bn; j++)
    row[j] = j;
  for(size_t i = 1; i <= an; i++) {
    size_t diag = row[0], best = row[0] = i;
    for(size_t j = 1; j <= bn; j++) {
      size_t up = row[j];
      size_t d = diag + (a[i - 1] != b[j - 1]);
      if(up + 1 < d)
        d = up + 1;
      if(row[j - 1] + 1 < d)
        d = row[j - 1] + 1;
      row[j] = d;
      diag = up;
      if(d < best)
        best = d;
    }
    if(best > max) /* every later row is at least as far */
      return max + 1;
  }
  return row[bn] > max ? max + 1 : row[bn];
}

static void fold_lower(char *out, const char *in, size_t n, int nocase)
{
  for(size_t i = 0; i < n; i++)
    out[i] = nocase && in[i] >= 'A' && in[i] <= 'Z' ? (char)(in[i] - 'A' + 'a') : in[i];
}

void oc_nearest_init(struct oc_nearest *n, const char *name, size_t len, int nocase)
{
  memset(n, 0, sizeof(*n));
  n->nocase = nocase;
  n->best = 3;
  n->len = len;
  if(len <= OC_EDIT_MAX_LEN)
    fold_lower(n->name, name, len, nocase);
}

void oc_nearest_offer(struct oc_nearest *n, const char *cand, size_t len)
{
  char c[OC_EDIT_MAX_LEN];
  if(!cand || n->len > OC_EDIT_MAX_LEN || len > OC_EDIT_MAX_LEN)
    return;
  fold_lower(c, cand, len, n->nocase);
  size_t d = oc_edit_distance(n->name, n->len, c, len, 2);
  if(d < n->best && d < n->len) {
    n->best = d;
    n->near = cand;
    n->nearlen = len;
  }
}

void *oc_array_grow(void *p, size_t *alloc, size_t need, size_t elem)
{
  return oc_array_grow_from(p, alloc, need, elem, 8);
}

void *oc_array_grow_from(void *p, size_t *alloc, size_t need, size_t elem, size_t first)
{
  if(need <= *alloc && p)
    return p;
  size_t n = *alloc ? *alloc : first ? first : 1;
  while(n < need) {
    if(n > SIZE_MAX / 2)
      return NULL;
    n *= 2;
  }
  if(!elem || n > SIZE_MAX / elem)
    return NULL;
  void *d = realloc(p, n * elem);
  if(!d)
    return NULL;
  *alloc = n;
  return d;
}

const char *oc_memfind(const char *h, size_t hl, const char *needle, size_t n)
{
  if(!n || n > hl)
    return NULL;
  const char *end = h + hl - n;
  for(const char *p = h; p <= end; p++) {
    p = memchr(p, needle[0], (size_t)(end - p) + 1);
    if(!p)
      return NULL;
    if(memcmp(p, needle, n) == 0)
      return p;
  }
  return NULL;
}

size_t oc_strlcpy(char *dst, const char *src, size_t size)
{
  size_t n = strlen(src);
  if(size) {
    size_t c = n < size - 1 ? n : size - 1;
    memcpy(dst, src, c);
    dst[c] = '\0';
  }
  return n;
}

int oc_parse_long(const char *s, long min, long max, long *out)
{
  if(!s || !*s)
    return OC_EPARSE;
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if(errno || *end || v < min || v > max)
    return OC_EPARSE;
  *out = v;
  return OC_OK;
}

int oc_parse_double(const char *s, double *out)
{
  if(!s || !*s)
    return OC_EPARSE;
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if(errno || *end || !isfinite(v))
    return OC_EPARSE;
  *out = v;
  return OC_OK;
}

void oc_hex(const unsigned char *p, size_t n, char *out)
{
  static const char digits[] = "0123456789abcdef";
  for(size_t i = 0; i < n; i++) {
    out[2 * i] = digits[p[i] >> 4];
    out[2 * i + 1] = digits[p[i] & 15];
  }
  out[2 * n] = '\0';
}

int oc_utf8_valid(const unsigned char *p, size_t n, size_t *bad)
{
  size_t i = 0;
  while(i < n) {
    unsigned char c = p[i];
    size_t need;
    uint32_t cp;
    if(c < 0x80) {
      /* ASCII runs eight bytes at a time: most of a body is ASCII */
      i++;
      while(n - i >= 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        if(w & 0x8080808080808080ull)
          break;
        i += 8;
      }
      continue;
    }
    else if(c >= 0xC2 && c <= 0xDF) {
      need = 1;
      cp = c & 0x1F;
    }
    else if(c >= 0xE0 && c <= 0xEF) {
      need = 2;
      cp = c & 0x0F;
    }
    else if(c >= 0xF0 && c <= 0xF4) {
      need = 3;
      cp = c & 0x07;
    }
    else
      goto fail;
    if(n - i <= need)
      goto fail;
    for(size_t k = 1; k <= need; k++) {
      if((p[i + k] & 0xC0) != 0x80)
        goto fail;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    /* reject overlong forms, surrogates and values above U+10FFFF */
    if((need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000) ||
       (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
      goto fail;
    i += need + 1;
  }
  return 1;
fail:
  if(bad)
    *bad = i;
  return 0;
}

char *oc_utf8_sanitize(const char *p, size_t n)
{
  const unsigned char *u = (const unsigned char *)p;
  if(oc_utf8_valid(u, n, NULL) && !memchr(p, '\0', n))
    return oc_strndup(p, n);
  struct oc_buf b;
  oc_buf_init(&b, n * 3 + 1);
  size_t i = 0;
  while(i < n) {
    unsigned char c = u[i];
    size_t len = c < 0x80 ? 1 : (c >= 0xC2 && c <= 0xDF) ? 2 : (c >= 0xE0 && c <= 0xEF) ? 3
               : (c >= 0xF0 && c <= 0xF4) ? 4 : 0;
    if(c == 0 || len == 0 || len > n - i || !oc_utf8_valid(u + i, len, NULL)) {
      /* one U+FFFD per byte that does not start a valid character */
      if(oc_buf_adds(&b, "\xEF\xBF\xBD"))
        break;
      i++;
      continue;
    }
    if(oc_buf_add(&b, p + i, len))
      break;
    i += len;
  }
  return oc_buf_take(&b, NULL); /* NULL when an add failed */
}

size_t oc_utf8_codepoints(const char *s, size_t n)
{
  size_t count = 0;
  for(size_t i = 0; i < n; i++)
    if(((unsigned char)s[i] & 0xC0) != 0x80)
      count++;
  return count;
}

/* ---- errors ----------------------------------------------------------- */

void oc_errv(int *failed, char *err, size_t errlen, const char *where, const char *fmt, va_list ap)
{
  if(failed) {
    if(*failed)
      return;
    *failed = 1;
  }
  if(!errlen)
    return;
  size_t at = 0;
  if(where) {
    int n = snprintf(err, errlen, "%s: ", where);
    at = n < 0 ? 0 : (size_t)n < errlen ? (size_t)n : errlen - 1;
  }
  vsnprintf(err + at, errlen - at, fmt, ap);
}

/* ---- files ------------------------------------------------------------ */

int oc_read_file(const char *path, size_t max, char **out, size_t *outlen,
                 char *err, size_t errlen)
{
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
  if(!f) {
    snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
    return errno == ENOENT ? OC_ENOTFOUND : OC_EIO;
  }
  struct oc_buf b;
  oc_buf_init(&b, max);
  char chunk[65536];
  size_t n;
  int rc = OC_OK;
  while((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
    rc = oc_buf_add(&b, chunk, n);
    if(rc) {
      snprintf(err, errlen, "cannot read '%s': %s", path,
               rc == OC_ETOOBIG ? "file is larger than the cap" : "out of memory");
      break;
    }
  }
  if(!rc && ferror(f)) {
    snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
    rc = OC_EIO;
  }
  if(f != stdin)
    fclose(f);
  if(rc) {
    oc_buf_free(&b);
    return rc;
  }
  *out = oc_buf_take(&b, outlen);
  return *out ? OC_OK : OC_ENOMEM;
}

static int report_fd = STDOUT_FILENO;

int oc_report_fd(void)
{
  return report_fd;
}

int oc_stdout_to_report(void)
{
  if(report_fd != STDOUT_FILENO)
    return OC_OK;
  fflush(stdout);
  int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if(fd < 0)
    return OC_EIO;
  /* stderr closed (2>&-): the console goes nowhere, as it would have */
  int to = fcntl(STDERR_FILENO, F_GETFD) >= 0 ? STDERR_FILENO : open("/dev/null", O_WRONLY);
  if(to < 0 || dup2(to, STDOUT_FILENO) < 0) {
    if(to > STDERR_FILENO)
      close(to);
    close(fd);
    return OC_EIO;
  }
  if(to > STDOUT_FILENO && to != STDERR_FILENO)
    close(to);
  report_fd = fd;
  return OC_OK;
}

static int write_stdout(const void *p, size_t n, char *err, size_t errlen)
{
  const char *at = p;
  fflush(stdout);
  while(n) {
    ssize_t w = write(report_fd, at, n);
    if(w < 0 && errno == EINTR)
      continue;
    if(w <= 0) {
      snprintf(err, errlen, "cannot write to standard output: %s", w < 0 ? strerror(errno) : "nothing written");
      return OC_EIO;
    }
    at += w;
    n -= (size_t)w;
  }
  return OC_OK;
}

int oc_write_file(const char *path, const void *p, size_t n, char *err, size_t errlen)
{
  static atomic_uint serial; /* files are written from several threads (record mode) */
  if(strcmp(path, "-") == 0)
    return write_stdout(p, n, err, errlen);
  /* Written beside its final name, then renamed over it: a full disk, a
   * write error or a kill half-way leaves the previous file whole instead
   * of a truncated one that looks current.  Same directory, so the rename
   * cannot cross file systems. */
  char *tmp = oc_asprintf("%s.tmp-%ld-%u", path, (long)getpid(), atomic_fetch_add(&serial, 1));
  int fd = -1, rc = OC_EIO, saved = 0;
  const char *what = "create";
  if(!tmp) {
    snprintf(err, errlen, "cannot write '%s': out of memory", path);
    return OC_ENOMEM;
  }
  fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if(fd < 0) {
    saved = errno;
    goto out;
  }
  what = "write";
  for(const char *c = p; n;) {
    ssize_t w = write(fd, c, n);
    if(w < 0 && errno == EINTR)
      continue;
    if(w <= 0) {
      saved = w < 0 ? errno : ENOSPC;
      goto out;
    }
    c += w;
    n -= (size_t)w;
  }
  int cl = close(fd);
  fd = -1;
  if(cl) {
    saved = errno;
    goto out;
  }
  what = "replace";
  if(rename(tmp, path)) {
    saved = errno;
    goto out;
  }
  rc = OC_OK;
out:
  if(fd >= 0)
    close(fd);
  if(rc) {
    if(strcmp(what, "create") != 0)
      unlink(tmp);
    snprintf(err, errlen, "cannot %s '%s': %s%s", what, path, strerror(saved),
             oc_is_file(path) ? " (the previous file is kept)" : "");
  }
  free(tmp);
  return rc;
}

char *oc_path_join(const char *dir, const char *name)
{
  if(!dir || !*dir)
    return oc_strdup(name);
  if(name[0] == '/')
    return oc_strdup(name);
  size_t n = strlen(dir);
  return oc_asprintf("%s%s%s", dir, (n && dir[n - 1] == '/') ? "" : "/", name);
}

int oc_is_dir(const char *path)
{
  struct stat st;
  return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int oc_is_file(const char *path)
{
  struct stat st;
  return path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---- clocks ----------------------------------------------------------- */

uint64_t oc_now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void oc_now_rfc3339(char out[32])
{
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- logging ---------------------------------------------------------- */

static int log_level = OC_LOG_INFO;

void oc_log_set_level(int level)
{
  log_level = level < OC_LOG_ERROR ? OC_LOG_ERROR : level;
}

int oc_log_get_level(void)
{
  return log_level;
}

void oc_log(int level, const char *fmt, ...)
{
  static const char *const names[] = { "error", "warning", "", "debug", "trace" };
  if(level > log_level)
    return;
  /* Formatted and masked first, so that a secret quoted by a server (an
   * error message, a trace line) never reaches the terminal; then one
   * write per line, so lines from several threads (oacheck serve's pool)
   * never interleave and a busy server pays one system call per line. */
  const char *name = level != OC_LOG_INFO && level >= 0 && level < (int)OC_ARRAY_LEN(names)
                       ? names[level] : "";
  const char *sep = *name ? ": " : "";
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_LOG_LINE);
  oc_buf_printf(&b, "oacheck: %s%s", name, sep);
  va_list ap;
  va_start(ap, fmt);
  int rc = oc_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  if(rc) {
    /* a failed buffer stays failed: start the line again */
    oc_buf_reset(&b);
    oc_buf_printf(&b, "oacheck: %s%s%s", name, sep,
                  rc == OC_ETOOBIG ? "(log line over the cap)" : "(out of memory formatting a log line)");
  }
  oc_buf_addc(&b, '\n');
  if(oc_buf_error(&b)) {
    static const char oom[] = "oacheck: (out of memory formatting a log line)\n";
    fwrite(oom, 1, sizeof(oom) - 1, stderr);
  }
  else {
    oc_secret_mask(b.data, b.len);
    fwrite(b.data, 1, b.len, stderr);
  }
  oc_buf_free(&b);
}
