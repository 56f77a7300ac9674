/* util.h — capped growable buffers, string helpers, a monotonic clock and
 * levelled logging to stderr.  Small and boring on purpose; anything that
 * knows about HTTP, JSON or SSE lives elsewhere. */
#ifndef OC_UTIL_H
#define OC_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Result codes shared by every module.  Append only: never renumber. */
enum oc_rc {
  OC_OK = 0,
  OC_ENOMEM,      /* allocation failed */
  OC_ETOOBIG,     /* a named size cap was hit */
  OC_EIO,         /* a file or socket could not be read or written */
  OC_EPARSE,      /* input is malformed */
  OC_EUSAGE,      /* the caller asked for something impossible */
  OC_ENOTFOUND,   /* a file, key or recording does not exist */
  OC_EUNSUPPORTED /* valid but not handled */
};

/* Named caps.  Every growing buffer says which one bounds it, so no input
 * (a hostile server included) can make memory grow without limit. */
#define OC_CAP_FILE          (64u << 20) /* a suite, schema or recording file */
#define OC_CAP_HTTP_HEAD     (64u << 10) /* status line plus headers */
#define OC_CAP_HTTP_TRAILERS (64u << 10) /* the trailer section of a chunked body */
#define OC_CAP_BODY          (64u << 20) /* a non-streamed response body */
#define OC_CAP_SSE_LINE      (4u << 20)  /* one SSE line */
#define OC_CAP_SSE_EVENT     (8u << 20)  /* one event's joined data */
#define OC_CAP_CONTENT       (16u << 20) /* content rebuilt from deltas */
#define OC_CAP_ARGUMENTS     (4u << 20)  /* one tool call's arguments */
#define OC_CAP_STREAM_TEXT   (32u << 20) /* all text and arguments rebuilt from one stream */
#define OC_CAP_RESULT_MESSAGE (1u << 20) /* text of a rebuilt message kept in the results */
#define OC_CAP_RESULT_REASONING (16u << 10) /* reasoning text of one choice kept beside its answer */
#define OC_CAP_RESULT_EVENTS (4u << 20)  /* event data kept in one result */
#define OC_CAP_MESSAGE       (4096u)     /* one diagnostic message */
#define OC_CAP_REPORT        (256u << 20)/* one rendered report */
#define OC_CAP_LOG_LINE      (1u << 20)  /* one line of the log */

/* A growable byte buffer with a hard cap, always NUL-terminated when it
 * holds data.  It keeps its first error: after a failed add (the cap hit,
 * memory ran out) every later add does nothing and returns that same
 * error, and the contents stay as they were.  So a caller can add many
 * times and check once, with oc_buf_error() or at oc_buf_take() (NULL on
 * a failed buffer); whatever happens, the owner frees it. */
struct oc_buf {
  char *data;
  size_t len;
  size_t alloc;
  size_t max; /* the cap: len never exceeds it */
  int err;    /* the first error (OC_ETOOBIG, OC_ENOMEM, OC_EUSAGE), OC_OK until then */
};

/* Fill *b as an empty buffer that may grow to at most max bytes.  Cannot fail. */
void oc_buf_init(struct oc_buf *b, size_t max);
/* Append n bytes.  Returns OC_OK, or the buffer's first error (OC_ETOOBIG
 * when the cap would be passed, OC_ENOMEM) and then changes nothing. */
int oc_buf_add(struct oc_buf *b, const void *p, size_t n);
int oc_buf_adds(struct oc_buf *b, const char *s);
int oc_buf_addc(struct oc_buf *b, char c);
int oc_buf_printf(struct oc_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int oc_buf_vprintf(struct oc_buf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* The first error of any add since init, reset or free; OC_OK if none. */
int oc_buf_error(const struct oc_buf *b);
/* Keep the allocation, forget the contents and the error. */
void oc_buf_reset(struct oc_buf *b);
/* Hand the contents over (caller frees; "" for an empty buffer) and leave
 * the buffer empty and reusable.  A failed buffer hands nothing over: its
 * contents are freed, NULL is returned and oc_buf_error() still says why
 * (NULL also when allocating "" fails). */
char *oc_buf_take(struct oc_buf *b, size_t *len);
/* Release everything, the error included; the buffer is reusable. */
void oc_buf_free(struct oc_buf *b);
/* The contents as a C string ("" when empty); borrowed. */
const char *oc_buf_str(const struct oc_buf *b);

/* Room for at least need elements of elem bytes in the array p, which has
 * room for *alloc: the one way an array grows here.  Returns the (possibly
 * moved) array and updates *alloc, or NULL when memory runs out or the size
 * would overflow, leaving p and *alloc as they were (the caller still owns
 * p).  Capacity doubles from 8. */
void *oc_array_grow(void *p, size_t *alloc, size_t need, size_t elem);
/* The same, doubling from first: for tables of large elements that
 * usually hold one or two (a client view's choices), where room for 8
 * would be most of what a case in flight holds. */
void *oc_array_grow_from(void *p, size_t *alloc, size_t need, size_t elem, size_t first);

/* Strings.  The allocating ones return NULL only when memory runs out. */
char *oc_strdup(const char *s);
char *oc_strndup(const char *s, size_t n);
char *oc_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int oc_streq(const char *a, const char *b);            /* NULL-safe */
int oc_strcaseeq(const char *a, const char *b);        /* ASCII only */
int oc_startswith(const char *s, const char *prefix);
int oc_endswith(const char *s, const char *suffix);
/* The edit distance (insertions, deletions, substitutions) between a[0..an)
 * and b[0..bn), or max + 1 when it is over max: what "did you mean" asks
 * of a mistyped name (a variable, a suite, a schema member) and how the
 * nearest recordings of a miss are ranked.  Names over OC_EDIT_MAX_LEN
 * bytes are never close (a ranking compares their first bytes). */
#define OC_EDIT_MAX_LEN 128
size_t oc_edit_distance(const char *a, size_t an, const char *b, size_t bn, size_t max);
/* "Did you mean": the candidate nearest a mistyped name among those
 * offered, within two edits and fewer edits than the name has bytes (a
 * two-letter name is two edits from every other), ties going to the
 * first offered.  With nocase, ASCII case is no difference: rule IDs are
 * upper case, and what people type is often not.  near stays NULL while
 * nothing offered is that close; it points at the candidate offered
 * (borrowed), nearlen its length. */
struct oc_nearest {
  char name[OC_EDIT_MAX_LEN];
  size_t len;                /* > OC_EDIT_MAX_LEN: too long to be near anything */
  int nocase;
  size_t best;
  const char *near;
  size_t nearlen;
};
void oc_nearest_init(struct oc_nearest *n, const char *name, size_t len, int nocase);
void oc_nearest_offer(struct oc_nearest *n, const char *cand, size_t len);
/* The first n bytes of needle inside the hl bytes of h (either may hold
 * NULs), or NULL; an empty needle is never found. */
const char *oc_memfind(const char *h, size_t hl, const char *needle, size_t n);
/* Copy at most size-1 bytes and always terminate; returns strlen(src). */
size_t oc_strlcpy(char *dst, const char *src, size_t size);
/* Parse a whole string as a decimal number in [min, max]. 0 on success. */
int oc_parse_long(const char *s, long min, long max, long *out);
int oc_parse_double(const char *s, double *out);
/* Lower-case hex of n bytes into out (2n+1 bytes). */
void oc_hex(const unsigned char *p, size_t n, char *out);
/* The value of one hexadecimal digit, -1 for anything else. */
static inline int oc_hexval(int c)
{
  if(c >= '0' && c <= '9')
    return c - '0';
  if(c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if(c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}
/* Does [p, p+n) hold valid UTF-8?  On failure *bad is the offset of the
 * first byte of the invalid sequence. */
int oc_utf8_valid(const unsigned char *p, size_t n, size_t *bad);
/* A NUL-terminated copy of [p, p+n) that is valid UTF-8: every invalid
 * sequence becomes U+FFFD and NUL bytes become U+FFFD too (JSON text and
 * cJSON strings cannot carry them).  Caller frees; NULL on ENOMEM. */
char *oc_utf8_sanitize(const char *p, size_t n);
/* Length of a valid UTF-8 string in code points. */
size_t oc_utf8_codepoints(const char *s, size_t n);

/* An error message "where: what" into err (errlen bytes), formatted once:
 * with failed, nothing changes when *failed is already set (the first
 * error is the one worth reading) and *failed is set otherwise.  where may
 * be NULL (then just the message).  The one error formatter: modules wrap
 * it in their own variadic reporter. */
void oc_errv(int *failed, char *err, size_t errlen, const char *where, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));

/* Read a whole file (at most max bytes) into a NUL-terminated buffer that
 * the caller frees.  On failure returns an OC_E* code and writes why into
 * err (errlen bytes), naming the file. */
int oc_read_file(const char *path, size_t max, char **out, size_t *outlen,
                 char *err, size_t errlen);
/* Write a whole file ("-": standard output) through a temporary file in
 * the same directory renamed over path, so that a failure (a full disk, a
 * kill) never leaves a truncated file: the previous one stays as it was.
 * err says what failed and whether the previous file is kept. */
int oc_write_file(const char *path, const void *p, size_t n, char *err, size_t errlen);
/* Where a report named "-" goes: standard output, unless
 * oc_stdout_to_report moved the console off it. */
int oc_report_fd(void);
/* For a command one of whose reports is "-": from here on stdout (fd 1,
 * so every print, the libraries' too) is a copy of stderr and the
 * original stdout is the report's alone (oc_report_fd), so that a pipe
 * into jq or a file gets the report byte for byte, with no console line
 * in it.  OC_OK, or OC_EIO with nothing moved. */
int oc_stdout_to_report(void);
/* Join a directory and a relative name into a new string (caller frees). */
char *oc_path_join(const char *dir, const char *name);
int oc_is_dir(const char *path);
int oc_is_file(const char *path);

/* Monotonic clock in nanoseconds, for arrival times and durations. */
uint64_t oc_now_ns(void);
/* Wall clock as RFC 3339 UTC ("2026-11-30T02:50:53Z") into out[32]. */
void oc_now_rfc3339(char out[32]);

/* Logging to stderr.  Levels: 0 errors only (-q), 1 warnings, 2 info
 * (default), 3 debug (-v), 4 trace (-vv). */
enum oc_log_level { OC_LOG_ERROR = 0, OC_LOG_WARN, OC_LOG_INFO, OC_LOG_DEBUG, OC_LOG_TRACE };
void oc_log_set_level(int level);
int oc_log_get_level(void);
void oc_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define oc_error(...) oc_log(OC_LOG_ERROR, __VA_ARGS__)
#define oc_warn(...) oc_log(OC_LOG_WARN, __VA_ARGS__)
#define oc_info(...) oc_log(OC_LOG_INFO, __VA_ARGS__)
#define oc_debug(...) oc_log(OC_LOG_DEBUG, __VA_ARGS__)

#define OC_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
