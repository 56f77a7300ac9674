/* http.c — the live transport on libcurl's multi interface: one thread,
 * N transfers in flight, bytes handed over as they arrive, our own idle
 * and total timeouts, bounded 429/503 retries, outcomes instead of
 * crashes.  The only file that includes <curl/curl.h>; what the bytes mean
 * is left to the caller (runner, SSE parser, rules).
 *
 * Life of a request: QUEUED (submitted, no slot yet) -> ACTIVE (an easy
 * handle in the multi handle) -> either done, or WAITING (a 429/503 will
 * be retried at `due`; the slot stays held so a rate-limited server does
 * not get more traffic) -> ACTIVE again.  Timeouts other than connect are
 * checked here, between polls, against the times the callbacks record,
 * because libcurl's low-speed limit is too coarse for "no byte for S
 * seconds" and a total deadline must span retries and their waits. */
#include "config.h"
#include "http.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "secret.h"
#include "url.h"
#include "util.h"

#define SAFE_URL_LEN 256      /* a redacted URL in messages; longer ones are cut */
#define TRACE_LINE_CAP 8192u  /* one line of the trace log; longer ones are cut */
#define MS 1000000ull         /* nanoseconds per millisecond */

enum req_state { REQ_QUEUED, REQ_ACTIVE, REQ_WAITING };

struct req {
  struct oc_http *h;
  struct req *prev, *next;   /* in h->queue or h->inflight */
  enum req_state state;
  unsigned id;               /* for log lines: "http #7" */

  /* copied from the request */
  char *method, *url, *body, *cacert;
  size_t body_len;
  int has_body;
  struct curl_slist *hdrs;
  char **secrets;            /* values masked in the trace log */
  size_t nsecrets;
  size_t asecrets;
  long connect_timeout_ms, idle_timeout_ms, total_timeout_ms;
  long retry_backoff_ms, retry_max_delay_ms;
  int max_retries, insecure, http1_only;
  size_t max_body;
  struct oc_http_callbacks cb;
  void *ud;
  char safe_url[SAFE_URL_LEN];

  /* the request as a whole */
  uint64_t t_submit;
  uint64_t deadline;         /* total timeout, from the first attempt's start; 0: none */
  uint64_t due;              /* WAITING: when the next attempt starts */
  int retries;
  int retry_status;          /* the status being retried */
  long retry_delay_ms;

  /* the current attempt */
  CURL *easy;
  char errbuf[CURL_ERROR_SIZE];
  int retry_decided;         /* the head was a 429/503 that will be retried */
  enum oc_http_error forced; /* set by a callback before it stops the transfer */
  char forced_msg[384];
  struct oc_headers head;
  size_t head_bytes;
  size_t trailer_bytes;      /* after the body of a chunked response */
  int status;
  char *reason;
  const char *version;       /* static */
  int head_done;             /* the final head was delivered (or retry decided) */
  uint64_t t_start, t_sent, t_first_byte, t_last_rx;
  uint64_t bytes, bytes_sent;
};

struct oc_http {
  CURLM *multi;
  int max_in_flight;
  int depth;                 /* > 0 while a user callback runs */
  int closing;               /* oc_http_free is aborting what is left */
  unsigned next_id;
  struct req *queue, *queue_tail;
  struct req *inflight;      /* ACTIVE and WAITING */
  int nqueued, ninflight;
};

const char *oc_http_error_name(enum oc_http_error e)
{
  static const char *const names[] = { "ok",        "refused",       "reset",   "timeout-connect",
                                       "timeout-idle", "timeout-total", "dns",  "tls",
                                       "too-big",   "protocol",      "other",   "connect",
                                       "url",       "aborted" };
  if((unsigned)e < OC_ARRAY_LEN(names))
    return names[e];
  return "other";
}

const char *oc_http_error_phrase(enum oc_http_error e)
{
  static const char *const phrases[] = { "no error",          "connection refused",
                                         "connection closed early", "connect timeout",
                                         "idle timeout",       "timeout",
                                         "host name not resolved", "TLS failure",
                                         "response too big",   "not an HTTP response",
                                         "transfer failed",    "cannot connect",
                                         "unusable URL",       "stopped" };
  if((unsigned)e < OC_ARRAY_LEN(phrases))
    return phrases[e];
  return "transfer failed";
}

void oc_http_request_init(struct oc_http_request *r)
{
  memset(r, 0, sizeof(*r));
  r->connect_timeout_ms = OC_HTTP_DEFAULT_CONNECT_TIMEOUT_MS;
  r->max_retries = 2;
  r->retry_backoff_ms = OC_HTTP_DEFAULT_RETRY_BACKOFF_MS;
  r->retry_max_delay_ms = OC_HTTP_DEFAULT_RETRY_MAX_DELAY_MS;
}

/* ---- lists ------------------------------------------------------------- */

static void list_unlink(struct req **head, struct req *r)
{
  if(r->prev)
    r->prev->next = r->next;
  else
    *head = r->next;
  if(r->next)
    r->next->prev = r->prev;
  r->prev = r->next = NULL;
}

static void list_push(struct req **head, struct req *r)
{
  r->prev = NULL;
  r->next = *head;
  if(*head)
    (*head)->prev = r;
  *head = r;
}

static void queue_unlink(struct oc_http *h, struct req *r);

/* ---- requests ---------------------------------------------------------- */

static void req_free(struct req *r)
{
  if(!r)
    return;
  if(r->easy)
    curl_easy_cleanup(r->easy);
  free(r->method);
  free(r->url);
  free(r->body);
  free(r->cacert);
  curl_slist_free_all(r->hdrs);
  for(size_t i = 0; i < r->nsecrets; i++)
    free(r->secrets[i]);
  free(r->secrets);
  oc_headers_free(&r->head);
  free(r->reason);
  free(r);
}

static int add_secret(struct req *r, const char *v, size_t n)
{
  if(!n)
    return OC_OK;
  char **s = oc_array_grow(r->secrets, &r->asecrets, r->nsecrets + 1, sizeof(*s));
  if(!s)
    return OC_ENOMEM;
  r->secrets = s;
  if(!(s[r->nsecrets] = oc_strndup(v, n)))
    return OC_ENOMEM;
  r->nsecrets++;
  return OC_OK;
}

/* The password of user:password@ in url, if any, becomes a secret too. */
static int add_url_secret(struct req *r)
{
  oc_secret_add_url(r->url);
  const char *p = strstr(r->url, "://");
  if(!p)
    return OC_OK;
  p += 3;
  size_t auth = strcspn(p, "/?#");
  const char *at = NULL;
  for(size_t i = 0; i < auth; i++)
    if(p[i] == '@')
      at = p + i;
  if(!at)
    return OC_OK;
  const char *colon = memchr(p, ':', (size_t)(at - p));
  if(!colon)
    return OC_OK;
  return add_secret(r, colon + 1, (size_t)(at - colon - 1));
}

static int slist_add(struct curl_slist **l, const char *s)
{
  struct curl_slist *n = curl_slist_append(*l, s);
  if(!n)
    return OC_ENOMEM;
  *l = n;
  return OC_OK;
}

/* Build the header list curl sends; see the defaults in http.h. */
static int build_headers(struct req *r, const struct oc_headers *hs)
{
  int have_ct = 0, have_expect = 0, rc = OC_OK;
  char *line = NULL;
  for(size_t i = 0; hs && i < hs->count; i++) {
    const char *n = hs->items[i].name, *v = hs->items[i].value ? hs->items[i].value : "";
    if(!n || !*n || strpbrk(n, "\r\n: \t") || strpbrk(v, "\r\n")) {
      rc = OC_EUSAGE;
      goto out;
    }
    have_ct |= oc_strcaseeq(n, "Content-Type");
    have_expect |= oc_strcaseeq(n, "Expect");
    /* "Name:" tells curl to drop its own field of that name */
    if(!(line = *v ? oc_asprintf("%s: %s", n, v) : oc_asprintf("%s:", n))) {
      rc = OC_ENOMEM;
      goto out;
    }
    if((rc = slist_add(&r->hdrs, line)))
      goto out;
    free(line);
    line = NULL;
    if(oc_header_is_secret(n) && (rc = add_secret(r, v, strlen(v))))
      goto out;
    /* and in the run's registry, so that whatever the server quotes back
     * is masked wherever it is written (secret.h) */
    oc_secret_add_header(n, v);
  }
  if(r->has_body && !have_ct && (rc = slist_add(&r->hdrs, "Content-Type: application/json")))
    goto out;
  if(!have_expect)
    rc = slist_add(&r->hdrs, "Expect:");
out:
  free(line);
  return rc;
}

/* ---- logging ----------------------------------------------------------- */

/* Append [p, p+n) to b with every secret value replaced by "[redacted]". */
static int mask_secrets(const struct req *r, struct oc_buf *b, const char *p, size_t n)
{
  size_t i = 0;
  while(i < n) {
    size_t hit = 0;
    for(size_t s = 0; s < r->nsecrets && !hit; s++) {
      size_t sl = strlen(r->secrets[s]);
      if(sl && sl <= n - i && memcmp(p + i, r->secrets[s], sl) == 0)
        hit = sl;
    }
    if(hit) {
      if(oc_buf_adds(b, "[redacted]"))
        return OC_ETOOBIG;
      i += hit;
    }
    else if(oc_buf_addc(b, p[i++] == '\0' ? '.' : p[i - 1]))
      return OC_ETOOBIG;
  }
  return OC_OK;
}

/* Log one line of the wire at trace level: a secret header by name shows
 * "[redacted]", and any secret value anywhere in the line is masked too
 * (libcurl's own text may quote request headers). */
static void trace_line(const struct req *r, char dir, const char *p, size_t n, int is_header)
{
  struct oc_buf b;
  while(n && (p[n - 1] == '\n' || p[n - 1] == '\r'))
    n--;
  if(!n)
    return;
  oc_buf_init(&b, TRACE_LINE_CAP);
  const char *colon = is_header ? memchr(p, ':', n) : NULL;
  int ok;
  if(colon && colon > p) {
    char name[128];
    size_t nl = (size_t)(colon - p);
    oc_strlcpy(name, p, nl + 1 < sizeof(name) ? nl + 1 : sizeof(name));
    if(oc_header_is_secret(name))
      ok = oc_buf_add(&b, p, nl) == OC_OK && oc_buf_adds(&b, ": [redacted]") == OC_OK;
    else
      ok = mask_secrets(r, &b, p, n) == OC_OK;
  }
  else
    ok = mask_secrets(r, &b, p, n) == OC_OK;
  oc_log(OC_LOG_TRACE, "http #%u %c %s%s", r->id, dir, oc_buf_str(&b), ok ? "" : " [cut]");
  oc_buf_free(&b);
}

static void trace_block(const struct req *r, char dir, const char *p, size_t n, int is_header)
{
  while(n) {
    const char *nl = memchr(p, '\n', n);
    size_t len = nl ? (size_t)(nl - p) + 1 : n;
    trace_line(r, dir, p, len, is_header);
    p += len;
    n -= len;
  }
}

/* ---- libcurl callbacks --------------------------------------------------- */

static int on_debug(CURL *easy, curl_infotype type, char *p, size_t n, void *ud)
{
  struct req *r = ud;
  int trace = oc_log_get_level() >= OC_LOG_TRACE;
  (void)easy;
  switch(type) {
  case CURLINFO_HEADER_OUT:
  case CURLINFO_DATA_OUT:
    /* libcurl reports sent bytes right after each successful send: the
     * last of these is the request's last byte handed to the socket */
    r->t_sent = oc_now_ns();
    r->bytes_sent += n;
    if(trace) {
      if(type == CURLINFO_HEADER_OUT)
        trace_block(r, '>', p, n, 1);
      else
        oc_log(OC_LOG_TRACE, "http #%u > [%zu body bytes]", r->id, n);
    }
    break;
  case CURLINFO_HEADER_IN:
    r->t_last_rx = oc_now_ns();
    if(trace)
      trace_block(r, '<', p, n, 1);
    break;
  case CURLINFO_DATA_IN:
    /* raw (still encoded) bytes: they count for the idle timeout even when
     * the decoder has nothing to hand over yet */
    r->t_last_rx = oc_now_ns();
    if(trace)
      oc_log(OC_LOG_TRACE, "http #%u < [%zu body bytes]", r->id, n);
    break;
  case CURLINFO_TEXT:
    if(trace)
      trace_block(r, '*', p, n, 0);
    break;
  default:
    break;
  }
  return 0;
}

static const char *version_name(const char *p, size_t n)
{
  if(n == 8 && memcmp(p, "HTTP/1.1", 8) == 0)
    return "HTTP/1.1";
  if(n == 8 && memcmp(p, "HTTP/1.0", 8) == 0)
    return "HTTP/1.0";
  if((n == 6 && memcmp(p, "HTTP/2", 6) == 0) || (n == 8 && memcmp(p, "HTTP/2.0", 8) == 0))
    return "HTTP/2";
  if(n >= 6 && memcmp(p, "HTTP/3", 6) == 0)
    return "HTTP/3";
  return "";
}

static void set_forced(struct req *r, enum oc_http_error e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_forced(struct req *r, enum oc_http_error e, const char *fmt, ...)
{
  va_list ap;
  if(r->forced)
    return; /* first reason wins */
  r->forced = e;
  va_start(ap, fmt);
  oc_errv(NULL, r->forced_msg, sizeof(r->forced_msg), NULL, fmt, ap);
  va_end(ap);
}

/* Milliseconds to wait before retrying: Retry-After in seconds or as an
 * HTTP-date, else the doubling backoff; capped either way. */
static long retry_delay(const struct req *r)
{
  const char *ra = oc_headers_get(&r->head, "Retry-After");
  long cap = r->retry_max_delay_ms > 0 ? r->retry_max_delay_ms : 0, d = -1, secs;
  if(ra && *ra) {
    if(oc_parse_long(ra, 0, 100000000L, &secs) == OC_OK)
      d = secs > cap / 1000 + 1 ? cap : secs * 1000;
    else {
      time_t when = curl_getdate(ra, NULL);
      if(when != -1) {
        time_t now = time(NULL);
        d = when <= now ? 0 : (when - now > cap / 1000 + 1 ? cap : (long)(when - now) * 1000);
      }
    }
  }
  if(d < 0) {
    d = r->retry_backoff_ms > 0 ? r->retry_backoff_ms : 0;
    for(int i = 0; i < r->retries && d < cap; i++)
      d = d > cap / 2 ? cap : d * 2;
  }
  return d > cap ? cap : d;
}

/* The blank line after a head: deliver a final head, decide on a retry, or
 * skip a 1xx.  Returns nonzero to stop the transfer. */
static int head_complete(struct req *r, uint64_t now)
{
  struct oc_http *h = r->h;
  if(r->status >= 100 && r->status < 200) {
    /* interim response: the real head follows */
    oc_headers_free(&r->head);
    r->head_bytes = 0;
    r->status = 0;
    return 0;
  }
  if((r->status == 429 || r->status == 503) && r->retries < r->max_retries) {
    long d = retry_delay(r);
    if(!r->deadline || now + (uint64_t)d * MS < r->deadline) {
      r->retry_decided = 1;
      r->retry_status = r->status;
      r->retry_delay_ms = d;
      r->head_done = 1;
      return 1;
    }
  }
  r->head_done = 1;
  if(!r->status) {
    set_forced(r, OC_HTTP_PROTOCOL, "malformed HTTP response from %s: no status line", r->safe_url);
    return 1;
  }
  if(r->cb.on_head) {
    struct oc_http_head hd = { r->status,        r->version, r->reason ? r->reason : "",
                               &r->head,         r->t_first_byte, now };
    h->depth++;
    int stop = r->cb.on_head(r->ud, &hd);
    h->depth--;
    if(stop) {
      set_forced(r, OC_HTTP_ABORTED, "stopped by the caller after the head of %s", r->safe_url);
      return 1;
    }
  }
  return 0;
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *ud)
{
  struct req *r = ud;
  size_t n = size * nmemb;
  uint64_t now = oc_now_ns();
  r->t_last_rx = now;
  if(!r->t_first_byte)
    r->t_first_byte = now;
  if(r->head_done) {
    /* Trailers after a chunked body: not part of the head, but libcurl
     * keeps every header line it hands over (for curl_easy_header), so a
     * trailer section that never ends would grow without bound. */
    r->trailer_bytes += n;
    if(r->trailer_bytes > OC_CAP_HTTP_TRAILERS) {
      set_forced(r, OC_HTTP_TOO_BIG, "trailers from %s over %u bytes", r->safe_url,
                 OC_CAP_HTTP_TRAILERS);
      return 0;
    }
    return n;
  }
  r->head_bytes += n;
  if(r->head_bytes > OC_CAP_HTTP_HEAD) {
    set_forced(r, OC_HTTP_TOO_BIG, "response head from %s over %u bytes", r->safe_url,
               OC_CAP_HTTP_HEAD);
    return 0;
  }
  size_t len = n;
  while(len && (p[len - 1] == '\n' || p[len - 1] == '\r'))
    len--;
  if(!len)
    return head_complete(r, now) ? 0 : n;
  if(len >= 5 && memcmp(p, "HTTP/", 5) == 0) {
    /* a status line: a new head starts (after a 1xx, or a proxy's) */
    oc_headers_free(&r->head);
    free(r->reason);
    r->reason = NULL;
    size_t v = 0;
    while(v < len && p[v] != ' ')
      v++;
    r->version = version_name(p, v);
    size_t s = v;
    while(s < len && p[s] == ' ')
      s++;
    long code = 0;
    size_t digits = 0;
    while(s + digits < len && digits < 3 && p[s + digits] >= '0' && p[s + digits] <= '9')
      code = code * 10 + (p[s + digits++] - '0');
    r->status = digits == 3 ? (int)code : 0;
    s += digits;
    while(s < len && p[s] == ' ')
      s++;
    if(!(r->reason = oc_strndup(p + s, len - s))) {
      set_forced(r, OC_HTTP_OTHER, "out of memory reading the head of %s", r->safe_url);
      return 0;
    }
    return n;
  }
  if((p[0] == ' ' || p[0] == '\t') && r->head.count) {
    /* obsolete line folding: continue the previous value */
    struct oc_header *last = &r->head.items[r->head.count - 1];
    size_t ws = 0;
    while(ws < len && (p[ws] == ' ' || p[ws] == '\t'))
      ws++;
    char *joined = oc_asprintf("%s %.*s", last->value, (int)(len - ws), p + ws);
    if(!joined) {
      set_forced(r, OC_HTTP_OTHER, "out of memory reading the head of %s", r->safe_url);
      return 0;
    }
    free(last->value);
    last->value = joined;
    return n;
  }
  int rc = oc_headers_parse_line(&r->head, p, len);
  if(rc == OC_ENOMEM) {
    set_forced(r, OC_HTTP_OTHER, "out of memory reading the head of %s", r->safe_url);
    return 0;
  }
  /* a line without a colon is curl's business to reject; we skip it */
  return n;
}

static size_t on_write(char *p, size_t size, size_t nmemb, void *ud)
{
  struct req *r = ud;
  struct oc_http *h = r->h;
  size_t n = size * nmemb, give = n;
  uint64_t now = oc_now_ns();
  r->t_last_rx = now;
  if(r->retry_decided || r->forced)
    return 0;
  if(!r->head_done && head_complete(r, now))
    return 0;
  if(r->max_body && r->bytes + n > r->max_body)
    give = r->max_body - r->bytes;
  if(give && r->cb.on_body) {
    h->depth++;
    int stop = r->cb.on_body(r->ud, p, give, now);
    h->depth--;
    r->bytes += give;
    if(stop) {
      set_forced(r, OC_HTTP_ABORTED, "stopped by the caller after %llu body bytes of %s",
                 (unsigned long long)r->bytes, r->safe_url);
      return 0;
    }
  }
  else
    r->bytes += give;
  if(give < n) {
    set_forced(r, OC_HTTP_TOO_BIG, "response body from %s over the %zu-byte cap", r->safe_url,
               r->max_body);
    return 0;
  }
  return n;
}

/* ---- attempts ------------------------------------------------------------ */

static void attempt_reset(struct req *r)
{
  if(r->easy) {
    curl_easy_cleanup(r->easy);
    r->easy = NULL;
  }
  r->errbuf[0] = '\0';
  r->retry_decided = 0;
  r->forced = OC_HTTP_OK;
  r->forced_msg[0] = '\0';
  oc_headers_free(&r->head);
  r->head_bytes = 0;
  r->trailer_bytes = 0;
  r->status = 0;
  free(r->reason);
  r->reason = NULL;
  r->version = "";
  r->head_done = 0;
  r->t_start = r->t_sent = r->t_first_byte = r->t_last_rx = 0;
  r->bytes = r->bytes_sent = 0;
}

#define SETOPT(opt, val)                                                                          \
  do {                                                                                            \
    if(curl_easy_setopt(e, opt, val) != CURLE_OK)                                                 \
      goto out;                                                                                   \
  } while(0)

/* A configured easy handle for the next attempt; NULL when libcurl refuses
 * an option (out of memory, or built without something we need). */
static CURL *make_easy(struct req *r)
{
  CURL *e = curl_easy_init(), *ok = NULL;
  if(!e)
    return NULL;
  SETOPT(CURLOPT_PRIVATE, r);
  SETOPT(CURLOPT_URL, r->url);
  SETOPT(CURLOPT_NOSIGNAL, 1L);
  SETOPT(CURLOPT_ERRORBUFFER, r->errbuf);
#if LIBCURL_VERSION_NUM >= 0x075500
  SETOPT(CURLOPT_PROTOCOLS_STR, "http,https");
#else
  SETOPT(CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
  SETOPT(CURLOPT_FOLLOWLOCATION, 0L);
  SETOPT(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);
  SETOPT(CURLOPT_ACCEPT_ENCODING, "gzip");
  SETOPT(CURLOPT_USERAGENT, "oacheck/" PACKAGE_VERSION);
  SETOPT(CURLOPT_HTTPHEADER, r->hdrs);
  if(r->http1_only)
    SETOPT(CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
  else /* a libcurl without HTTP/2 refuses this: then HTTP/1.1 it is */
    (void)curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
  if(r->connect_timeout_ms > 0)
    SETOPT(CURLOPT_CONNECTTIMEOUT_MS, r->connect_timeout_ms);
  SETOPT(CURLOPT_SSL_VERIFYPEER, r->insecure ? 0L : 1L);
  SETOPT(CURLOPT_SSL_VERIFYHOST, r->insecure ? 0L : 2L);
  if(r->cacert)
    SETOPT(CURLOPT_CAINFO, r->cacert);
  if(r->has_body) {
    SETOPT(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
    SETOPT(CURLOPT_POSTFIELDS, r->body ? r->body : "");
    if(strcmp(r->method, "POST") != 0)
      SETOPT(CURLOPT_CUSTOMREQUEST, r->method);
  }
  else if(strcmp(r->method, "HEAD") == 0)
    SETOPT(CURLOPT_NOBODY, 1L);
  else if(strcmp(r->method, "GET") != 0)
    SETOPT(CURLOPT_CUSTOMREQUEST, r->method);
  SETOPT(CURLOPT_HEADERFUNCTION, on_header);
  SETOPT(CURLOPT_HEADERDATA, r);
  SETOPT(CURLOPT_WRITEFUNCTION, on_write);
  SETOPT(CURLOPT_WRITEDATA, r);
  /* verbose with a debug function prints nothing itself: it is how we
   * learn when the request's last byte went out */
  SETOPT(CURLOPT_DEBUGFUNCTION, on_debug);
  SETOPT(CURLOPT_DEBUGDATA, r);
  SETOPT(CURLOPT_VERBOSE, 1L);
  ok = e;
  e = NULL;
out:
  if(e)
    curl_easy_cleanup(e);
  return ok;
}

static void finish(struct req *r, enum oc_http_error err, const char *msg);

/* Start the next attempt of r (which holds an in-flight slot). */
static void start_attempt(struct req *r)
{
  struct oc_http *h = r->h;
  attempt_reset(r);
  r->state = REQ_ACTIVE;
  r->t_start = oc_now_ns();
  if(r->total_timeout_ms > 0 && !r->deadline)
    r->deadline = r->t_start + (uint64_t)r->total_timeout_ms * MS;
  if(!(r->easy = make_easy(r))) {
    finish(r, OC_HTTP_OTHER, "cannot set up the transfer (out of memory?)");
    return;
  }
  if(curl_multi_add_handle(h->multi, r->easy) != CURLM_OK) {
    finish(r, OC_HTTP_OTHER, "cannot start the transfer");
    return;
  }
  oc_log(OC_LOG_TRACE, "http #%u start %s %s (attempt %d)", r->id, r->method, r->safe_url,
         r->retries + 1);
}

/* Take r out of its list, report it exactly once and free it.  msg (a
 * format-free string) is used when err is not OC_HTTP_OK; NULL means the
 * kind's own wording with the URL. */
static void finish(struct req *r, enum oc_http_error err, const char *msg)
{
  struct oc_http *h = r->h;
  struct oc_http_outcome o;
  memset(&o, 0, sizeof(o));
  if(r->state == REQ_QUEUED)
    queue_unlink(h, r);
  else {
    list_unlink(&h->inflight, r);
    h->ninflight--;
  }
  if(r->easy) {
    curl_multi_remove_handle(h->multi, r->easy);
    if(!r->t_sent && r->t_first_byte) {
      /* no debug callback saw the request go out: fall back to libcurl's
       * "about to transfer" time */
      curl_off_t us = 0;
      if(curl_easy_getinfo(r->easy, CURLINFO_PRETRANSFER_TIME_T, &us) == CURLE_OK && us > 0)
        r->t_sent = r->t_start + (uint64_t)us * 1000u;
    }
  }
  o.error = err;
  if(err != OC_HTTP_OK)
    oc_strlcpy(o.message, msg ? msg : oc_http_error_name(err), sizeof(o.message));
  o.status = r->head_done ? r->status : 0;
  o.http_version = r->version ? r->version : "";
  o.retries = r->retries;
  o.t_submit = r->t_submit;
  o.t_start = r->t_start;
  o.t_sent = r->t_sent;
  o.t_first_byte = r->t_first_byte;
  o.t_done = oc_now_ns();
  o.bytes = r->bytes;
  o.bytes_sent = r->bytes_sent;
  o.body_complete = err == OC_HTTP_OK || r->trailer_bytes > 0;
  if(err == OC_HTTP_OK)
    oc_debug("http #%u %s %s -> %d %s, %llu bytes, %.1f ms", r->id, r->method, r->safe_url,
             o.status, o.http_version, (unsigned long long)o.bytes,
             (double)(o.t_done - (o.t_start ? o.t_start : o.t_done)) / 1e6);
  else
    oc_debug("http #%u %s: %s", r->id, oc_http_error_name(err), o.message);
  h->depth++;
  r->cb.on_done(r->ud, &o);
  h->depth--;
  req_free(r);
}

/* Does a TLS handshake's failure read as a peer that is not speaking TLS
 * at all (an https:// URL for a plain-HTTP port)?  What each TLS library
 * says when the first bytes back are "HTTP/1.1 …": OpenSSL 1.1–3.1
 * "wrong version number", 3.2 and later "packet length too long" or
 * "record layer failure", GnuTLS "An unexpected TLS packet was received",
 * wolfSSL "record layer version error". */
/* What a TLS handshake's failure says about the peer: 1 when the TLS
 * library read something that is not TLS (a plain HTTP answer), 2 when
 * the peer closed or reset the connection during the handshake (a plain
 * HTTP server that gave up on the ClientHello before answering: which of
 * the two a client sees is a race), else 0. */
static int tls_peer_not_tls(CURLcode cc, const char *msg)
{
  static const char *const said[] = { "wrong version number", "packet length too long",
                                      "record layer failure", "unexpected tls packet",
                                      "record layer version error", "unknown protocol" };
  static const char *const closed[] = { "ssl_error_syscall", "unexpected eof",
                                        "connection reset", "connection was reset" };
  char low[CURL_ERROR_SIZE];
  size_t n = 0;
  if(cc != CURLE_SSL_CONNECT_ERROR || !msg)
    return 0;
  for(; msg[n] && n + 1 < sizeof(low); n++)
    low[n] = (char)(msg[n] >= 'A' && msg[n] <= 'Z' ? msg[n] + 32 : msg[n]);
  low[n] = '\0';
  for(size_t i = 0; i < OC_ARRAY_LEN(said); i++)
    if(strstr(low, said[i]))
      return 1;
  for(size_t i = 0; i < OC_ARRAY_LEN(closed); i++)
    if(strstr(low, closed[i]))
      return 2;
  return 0;
}

/* Map libcurl's verdict on a finished attempt to an outcome. */
static void finish_curl(struct req *r, CURLcode cc)
{
  enum oc_http_error e;
  const char *what;
  char msg[1024];
  if(r->forced) {
    finish(r, r->forced, r->forced_msg);
    return;
  }
  if(cc == CURLE_OK) {
    if(!r->head_done) {
      snprintf(msg, sizeof(msg), "malformed HTTP response from %s: no final status line",
               r->safe_url);
      finish(r, OC_HTTP_PROTOCOL, msg);
    }
    else
      finish(r, OC_HTTP_OK, NULL);
    return;
  }
  switch(cc) {
  case CURLE_COULDNT_RESOLVE_HOST:
  case CURLE_COULDNT_RESOLVE_PROXY:
    e = OC_HTTP_DNS;
    what = "cannot resolve the host of";
    break;
  case CURLE_COULDNT_CONNECT: {
    long os = 0;
    curl_easy_getinfo(r->easy, CURLINFO_OS_ERRNO, &os);
    e = os == ECONNREFUSED ? OC_HTTP_REFUSED : OC_HTTP_CONNECT;
    what = os == ECONNREFUSED ? "connection refused by" : "cannot connect to";
    break;
  }
  case CURLE_OPERATION_TIMEDOUT:
    /* the only libcurl timeout we set is the connect one */
    e = OC_HTTP_TIMEOUT_CONNECT;
    what = "connect timeout for";
    break;
  case CURLE_SSL_CONNECT_ERROR:
  case CURLE_PEER_FAILED_VERIFICATION:
  case CURLE_SSL_CERTPROBLEM:
  case CURLE_SSL_CIPHER:
  case CURLE_SSL_CACERT_BADFILE:
  case CURLE_SSL_ISSUER_ERROR:
  case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
  case CURLE_SSL_INVALIDCERTSTATUS:
  case CURLE_SSL_CRL_BADFILE:
  case CURLE_SSL_ENGINE_NOTFOUND:
  case CURLE_SSL_ENGINE_SETFAILED:
  case CURLE_SSL_ENGINE_INITFAILED:
  case CURLE_USE_SSL_FAILED:
    e = OC_HTTP_TLS;
    what = "TLS failure with";
    break;
  case CURLE_RECV_ERROR:
  case CURLE_SEND_ERROR:
  case CURLE_PARTIAL_FILE:
  case CURLE_GOT_NOTHING:
  case CURLE_HTTP2_STREAM:
    e = OC_HTTP_RESET;
    what = "connection closed early by";
    break;
  case CURLE_UNSUPPORTED_PROTOCOL:
    /* before anything was sent it is the URL's scheme; after, libcurl
     * uses it for a reply that is not HTTP at all ("HTTP/0.9") */
    if(!r->t_sent) {
      e = OC_HTTP_URL;
      what = "unsupported URL";
      break;
    }
    /* fall through */
  case CURLE_WEIRD_SERVER_REPLY:
  case CURLE_BAD_CONTENT_ENCODING:
  case CURLE_HTTP2:
    e = OC_HTTP_PROTOCOL;
    what = "malformed HTTP response from";
    break;
  case CURLE_URL_MALFORMAT:
    e = OC_HTTP_URL;
    what = "malformed URL";
    break;
  case CURLE_FILESIZE_EXCEEDED:
    e = OC_HTTP_TOO_BIG;
    what = "response too big from";
    break;
  default:
    e = OC_HTTP_OTHER;
    what = "transfer failed for";
    break;
  }
  const char *why = r->errbuf[0] ? r->errbuf : curl_easy_strerror(cc);
  /* OpenSSL's own words do not say what is wrong: the usual cause is */
  int not_tls = tls_peer_not_tls(cc, why);
  snprintf(msg, sizeof(msg), "%s %s: %s%s", what, r->safe_url, why,
           not_tls == 1   ? " (is the server plain HTTP? try http://)"
           : not_tls == 2 ? " (the connection closed during the TLS handshake: is the server plain "
                            "HTTP? try http://)"
                          : "");
  finish(r, e, msg);
}

/* A finished attempt whose head asked for a retry: wait, holding the slot. */
static void schedule_retry(struct req *r)
{
  struct oc_http *h = r->h;
  curl_multi_remove_handle(h->multi, r->easy);
  /* nothing of the retried attempt may show in the outcome */
  attempt_reset(r);
  r->retries++;
  r->state = REQ_WAITING;
  r->due = oc_now_ns() + (uint64_t)r->retry_delay_ms * MS;
  oc_debug("http #%u %s -> %d, retry %d in %ld ms", r->id, r->safe_url, r->retry_status,
           r->retries, r->retry_delay_ms);
  if(r->cb.on_retry) {
    h->depth++;
    r->cb.on_retry(r->ud, r->retries, r->retry_status, r->retry_delay_ms);
    h->depth--;
  }
}

/* ---- the handle ---------------------------------------------------------- */

struct oc_http *oc_http_new(int max_in_flight)
{
  struct oc_http *h = NULL;
  if(curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
    return NULL;
  if(!(h = calloc(1, sizeof(*h))))
    goto fail;
  if(!(h->multi = curl_multi_init()))
    goto fail;
  h->max_in_flight = max_in_flight < 1 ? 1 : max_in_flight;
  return h;
fail:
  free(h);
  curl_global_cleanup();
  return NULL;
}

int oc_http_submit(struct oc_http *h, const struct oc_http_request *req,
                   const struct oc_http_callbacks *cb, void *ud)
{
  struct req *r = NULL;
  int rc = OC_EUSAGE;
  if(!h || !req || !req->url || !cb || !cb->on_done || h->closing)
    return OC_EUSAGE;
  if(req->method && (!*req->method || strpbrk(req->method, " \t\r\n")))
    return OC_EUSAGE;
  rc = OC_ENOMEM;
  if(!(r = calloc(1, sizeof(*r))))
    goto out;
  r->h = h;
  r->has_body = req->body != NULL;
  const char *method = req->method ? req->method : r->has_body ? "POST" : "GET";
  if(!(r->method = oc_strdup(method)) || !(r->url = oc_strdup(req->url)))
    goto out;
  if(r->has_body && !(r->body = oc_strndup(req->body, req->body_len)))
    goto out;
  r->body_len = req->body_len;
  if(req->cacert && !(r->cacert = oc_strdup(req->cacert)))
    goto out;
  if((rc = build_headers(r, req->headers)) || (rc = add_url_secret(r)))
    goto out;
  r->connect_timeout_ms = req->connect_timeout_ms;
  r->idle_timeout_ms = req->idle_timeout_ms;
  r->total_timeout_ms = req->total_timeout_ms;
  r->max_retries = req->max_retries < 0                     ? 0
                   : req->max_retries > OC_HTTP_MAX_RETRIES ? OC_HTTP_MAX_RETRIES
                                                            : req->max_retries;
  r->retry_backoff_ms = req->retry_backoff_ms;
  r->retry_max_delay_ms = req->retry_max_delay_ms;
  r->insecure = req->insecure;
  r->http1_only = req->http1_only;
  r->max_body = req->max_body;
  r->cb = *cb;
  r->ud = ud;
  r->version = "";
  oc_url_redact(r->url, r->safe_url, sizeof(r->safe_url));
  r->id = ++h->next_id;
  r->t_submit = oc_now_ns();
  r->state = REQ_QUEUED;
  /* append to the FIFO queue */
  r->prev = h->queue_tail;
  if(h->queue_tail)
    h->queue_tail->next = r;
  else
    h->queue = r;
  h->queue_tail = r;
  h->nqueued++;
  r = NULL;
  rc = OC_OK;
out:
  req_free(r);
  return rc;
}

int oc_http_pending(const struct oc_http *h)
{
  return h ? h->nqueued + h->ninflight : 0;
}

static void queue_unlink(struct oc_http *h, struct req *r)
{
  if(h->queue_tail == r)
    h->queue_tail = r->prev;
  list_unlink(&h->queue, r);
  h->nqueued--;
}

/* Start waiting requests whose time came, then move queued ones into free
 * slots. */
static void start_ready(struct oc_http *h, uint64_t now)
{
  struct req *r, *next;
  for(r = h->inflight; r; r = next) {
    next = r->next;
    if(r->state == REQ_WAITING && r->due <= now)
      start_attempt(r);
  }
  while(h->queue && h->ninflight < h->max_in_flight) {
    r = h->queue;
    queue_unlink(h, r);
    list_push(&h->inflight, r);
    h->ninflight++;
    start_attempt(r);
  }
}

/* Collect what libcurl finished. */
static void drain_messages(struct oc_http *h)
{
  CURLMsg *m;
  int left;
  while((m = curl_multi_info_read(h->multi, &left))) {
    if(m->msg != CURLMSG_DONE)
      continue;
    struct req *r = NULL;
    CURLcode cc = m->data.result;
    curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&r);
    if(!r)
      continue;
    if(r->retry_decided && !r->forced)
      schedule_retry(r);
    else
      finish_curl(r, cc);
  }
}

/* Our own timeouts: total (spanning retries and waits) and idle (no byte
 * since the request went out or since the last byte came in). */
static void check_deadlines(struct oc_http *h, uint64_t now)
{
  struct req *r, *next;
  char msg[1024];
  for(r = h->inflight; r; r = next) {
    next = r->next;
    if(r->deadline && now >= r->deadline) {
      snprintf(msg, sizeof(msg), "no complete response from %s within %ld ms (%llu body bytes)",
               r->safe_url, r->total_timeout_ms, (unsigned long long)r->bytes);
      finish(r, OC_HTTP_TIMEOUT_TOTAL, msg);
      continue;
    }
    if(r->state != REQ_ACTIVE || r->idle_timeout_ms <= 0 || !r->t_sent)
      continue;
    uint64_t last = r->t_last_rx > r->t_sent ? r->t_last_rx : r->t_sent;
    if(now > last && now - last >= (uint64_t)r->idle_timeout_ms * MS) {
      snprintf(msg, sizeof(msg), "no byte from %s for %ld ms (%s; %llu body bytes)", r->safe_url,
               r->idle_timeout_ms, r->t_first_byte ? "after the response began" : "no response yet",
               (unsigned long long)r->bytes);
      finish(r, OC_HTTP_TIMEOUT_IDLE, msg);
    }
  }
}

/* The earliest of our own deadlines, 0 when none. */
static uint64_t next_deadline(const struct oc_http *h)
{
  uint64_t best = 0;
  for(const struct req *r = h->inflight; r; r = r->next) {
    uint64_t t[3] = { r->deadline, 0, 0 };
    if(r->state == REQ_WAITING)
      t[1] = r->due;
    else if(r->idle_timeout_ms > 0 && r->t_sent)
      t[2] = (r->t_last_rx > r->t_sent ? r->t_last_rx : r->t_sent) +
             (uint64_t)r->idle_timeout_ms * MS;
    for(int i = 0; i < 3; i++)
      if(t[i] && (!best || t[i] < best))
        best = t[i];
  }
  return best;
}

/* oc_http_run and oc_http_step: once, return after the first wait that
 * ended (what it brought has been run) instead of going on until the
 * time is up. */
static int run(struct oc_http *h, long timeout_ms, int once)
{
  if(!h)
    return 0;
  if(h->depth)
    return -1;
  uint64_t end = timeout_ms > 0 ? oc_now_ns() + (uint64_t)timeout_ms * MS : 0;
  int waited = 0;
  for(;;) {
    int running = 0;
    uint64_t now = oc_now_ns();
    start_ready(h, now);
    curl_multi_perform(h->multi, &running);
    drain_messages(h);
    now = oc_now_ns();
    check_deadlines(h, now);
    /* finished requests may have freed slots or submitted more */
    start_ready(h, now);
    if(!oc_http_pending(h) || timeout_ms == 0 || (end && now >= end) || waited)
      break;
    /* sleep until a socket is ready, libcurl wants a timer, or one of our
     * deadlines comes; never longer than a second so a stuck timer cannot
     * stall the loop */
    long wait = 1000, cw = -1;
    if(curl_multi_timeout(h->multi, &cw) == CURLM_OK && cw >= 0 && cw < wait)
      wait = cw;
    uint64_t d = next_deadline(h);
    if(end && (!d || end < d))
      d = end;
    if(d) {
      uint64_t left = d > now ? (d - now + MS - 1) / MS : 0;
      if(left < (uint64_t)wait)
        wait = (long)left;
    }
    if(wait > 0)
      curl_multi_poll(h->multi, NULL, 0, (int)wait, NULL);
    waited = once;
  }
  return oc_http_pending(h);
}

int oc_http_run(struct oc_http *h, long timeout_ms)
{
  return run(h, timeout_ms, 0);
}

int oc_http_step(struct oc_http *h, long timeout_ms)
{
  return run(h, timeout_ms, 1);
}

void oc_http_free(struct oc_http *h)
{
  char msg[1024];
  if(!h)
    return;
  if(h->depth) {
    oc_error("internal: oc_http_free called from inside a transfer callback");
    return;
  }
  h->closing = 1;
  while(h->inflight || h->queue) {
    struct req *r = h->inflight ? h->inflight : h->queue;
    snprintf(msg, sizeof(msg), "aborted: %s %s", r->method, r->safe_url);
    finish(r, OC_HTTP_ABORTED, msg);
  }
  curl_multi_cleanup(h->multi);
  free(h);
  curl_global_cleanup();
}

/* ---- synchronous fetch ----------------------------------------------------- */

struct fetch {
  struct oc_http_response *resp;
  struct oc_buf body;
  int head_rc;
};

static int fetch_head(void *ud, const struct oc_http_head *hd)
{
  struct fetch *f = ud;
  f->resp->status = hd->status;
  f->head_rc = oc_headers_copy(&f->resp->headers, hd->headers);
  return f->head_rc != OC_OK;
}

static int fetch_body(void *ud, const void *p, size_t n, uint64_t t_ns)
{
  struct fetch *f = ud;
  (void)t_ns;
  return oc_buf_add(&f->body, p, n) != OC_OK;
}

static void fetch_done(void *ud, const struct oc_http_outcome *o)
{
  struct fetch *f = ud;
  f->resp->outcome = *o;
}

int oc_http_fetch(const struct oc_http_request *req, struct oc_http_response *resp, char *err,
                  size_t errlen)
{
  static const struct oc_http_callbacks cb = { fetch_head, fetch_body, NULL, fetch_done };
  struct oc_http_request r = *req;
  struct fetch f = { resp, { 0 }, OC_OK };
  struct oc_http *h = NULL;
  int rc = OC_EIO;
  memset(resp, 0, sizeof(*resp));
  oc_headers_init(&resp->headers);
  if(!r.max_body)
    r.max_body = OC_CAP_BODY;
  oc_buf_init(&f.body, r.max_body);
  if(!(h = oc_http_new(1))) {
    snprintf(err, errlen, "cannot start a transfer for %s: out of memory", req->url ? req->url : "");
    rc = OC_ENOMEM;
    goto out;
  }
  if((rc = oc_http_submit(h, &r, &cb, &f))) {
    char safe[SAFE_URL_LEN];
    oc_url_redact(req->url, safe, sizeof(safe));
    snprintf(err, errlen, "cannot request %s: %s", safe,
             rc == OC_ENOMEM ? "out of memory" : "invalid request (method or headers)");
    goto out;
  }
  oc_http_run(h, -1);
  rc = OC_EIO;
  if(resp->outcome.error != OC_HTTP_OK) {
    snprintf(err, errlen, "%s", resp->outcome.message);
    goto out;
  }
  if(f.head_rc) {
    snprintf(err, errlen, "out of memory copying the response head");
    rc = OC_ENOMEM;
    goto out;
  }
  if(!(resp->body = oc_buf_take(&f.body, &resp->body_len))) {
    rc = OC_ENOMEM;
    snprintf(err, errlen, "out of memory");
    goto out;
  }
  rc = OC_OK;
out:
  oc_http_free(h);
  oc_buf_free(&f.body);
  return rc;
}

void oc_http_response_free(struct oc_http_response *resp)
{
  if(!resp)
    return;
  oc_headers_free(&resp->headers);
  free(resp->body);
  resp->body = NULL;
  resp->body_len = 0;
}

int oc_http_get_simple(const char *url, const struct oc_headers *headers, long timeout_ms,
                       int *status, char **body, size_t *len, char *err, size_t errlen)
{
  struct oc_http_request req;
  struct oc_http_response resp;
  oc_http_request_init(&req);
  req.url = url;
  req.headers = headers;
  req.total_timeout_ms = timeout_ms;
  *body = NULL;
  *len = 0;
  *status = 0;
  int rc = oc_http_fetch(&req, &resp, err, errlen);
  if(rc == OC_OK) {
    *status = resp.status;
    *body = resp.body;
    *len = resp.body_len;
    resp.body = NULL;
  }
  oc_http_response_free(&resp);
  return rc;
}
