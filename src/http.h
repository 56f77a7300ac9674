/* http.h — the live transport: many HTTP requests in flight over one
 * thread on libcurl's multi interface, body bytes handed over as they
 * arrive with their arrival times, bounded 429/503 retries, and every
 * transport failure turned into an outcome with a kind and a message.
 * What the bytes mean (SSE, JSON, rules) is left to the caller; this is
 * the only file pair that knows about libcurl (src/http.c includes it).
 *
 * Contract (libuv's, word for word): "When a function which takes a
 * callback returns an error, the callback will never be called."  Every
 * request that oc_http_submit() accepted gets exactly one on_done, from
 * oc_http_run() or oc_http_free().
 *
 * Timing, all from oc_now_ns() (CLOCK_MONOTONIC), for the final attempt:
 *   t_start       the attempt's transfer was handed to libcurl
 *   t_sent        the last byte of the request (head and body) was written
 *                 to the socket: the time of the last CURLINFO_HEADER_OUT /
 *                 CURLINFO_DATA_OUT debug callback, which libcurl makes
 *                 right after each successful send.  TTFT counts from here.
 *                 (Over HTTP/2 it is when the frames were handed to the
 *                 HTTP/2 layer, which normally writes them at once.)
 *   t_first_byte  libcurl handed over the first line of the response head
 *                 (parsed from the same recv() as the first byte)
 *   on_body t_ns  when each decoded piece was handed over
 *   t_done        the transfer finished or failed
 *
 * Defaults and decisions:
 * - HTTP/1.1 for http://; HTTP/2 over TLS when ALPN agrees (http1_only
 *   turns that off).  TLS peers are verified unless insecure is set.
 * - Accept-Encoding: gzip is sent and bodies are handed over decoded.
 * - Redirects are NOT followed: a 3xx is the final response, a finding for
 *   the rules, never a silent hop to another URL.
 * - "Expect: 100-continue" is never sent; libcurl's default Accept (any
 *   media type) is, unless the caller sets Accept.  A header with an empty
 *   value ("Accept:") removes the field libcurl would add.  When a body is sent without a
 *   Content-Type, "Content-Type: application/json" is added.  User-Agent
 *   defaults to "oacheck/VERSION".
 * - Secret headers (oc_header_is_secret) and URL passwords are sent but
 *   never logged: at trace level (-vv) the wire log shows "[redacted]". */
#ifndef OC_HTTP_H
#define OC_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "headers.h"

#define OC_HTTP_MAX_RETRIES 10                /* max_retries is clamped to this */
#define OC_HTTP_DEFAULT_CONNECT_TIMEOUT_MS 10000L
#define OC_HTTP_DEFAULT_RETRY_BACKOFF_MS 500L /* first wait without Retry-After; doubles */
#define OC_HTTP_DEFAULT_RETRY_MAX_DELAY_MS 60000L

/* One request.  oc_http_submit() copies everything it needs, so the
 * struct and what it points to may go away once submit returns. */
struct oc_http_request {
  const char *method;                /* "GET", "POST", ...; NULL: POST with a body, else GET */
  const char *url;                   /* full URL (see url.h oc_url_join) */
  const struct oc_headers *headers;  /* sent as given; may be NULL */
  const char *body;                  /* may be NULL (no body) */
  size_t body_len;
  long connect_timeout_ms;           /* DNS + TCP + TLS; <= 0: libcurl's (300 s) */
  long idle_timeout_ms;              /* no byte received for this long after t_sent; <= 0: none */
  long total_timeout_ms;             /* whole request, retries and waits included; <= 0: none */
  int max_retries;                   /* 429 and 503 are retried this often (0: never) */
  long retry_backoff_ms;             /* wait when there is no Retry-After, doubled per retry */
  long retry_max_delay_ms;           /* cap on any wait, Retry-After included */
  int insecure;                      /* do not verify the TLS peer or host name */
  const char *cacert;                /* CA bundle file; NULL: the system's */
  int http1_only;                    /* never negotiate HTTP/2 */
  size_t max_body;                   /* stop after this many decoded body bytes; 0: no cap */
};

/* Transport outcome kinds.  An HTTP error status is not one of these: a 500
 * that arrived whole is OC_HTTP_OK with status 500.  Append only. */
enum oc_http_error {
  OC_HTTP_OK = 0,
  OC_HTTP_REFUSED,         /* connection refused */
  OC_HTTP_RESET,           /* connection reset or closed before the response was complete */
  OC_HTTP_TIMEOUT_CONNECT, /* DNS + TCP + TLS took longer than connect_timeout_ms */
  OC_HTTP_TIMEOUT_IDLE,    /* no byte for idle_timeout_ms after the request was sent */
  OC_HTTP_TIMEOUT_TOTAL,   /* total_timeout_ms passed */
  OC_HTTP_DNS,             /* the host name could not be resolved */
  OC_HTTP_TLS,             /* handshake or certificate verification failed */
  OC_HTTP_TOO_BIG,         /* body over max_body, head over OC_CAP_HTTP_HEAD, trailers over
                              OC_CAP_HTTP_TRAILERS */
  OC_HTTP_PROTOCOL,        /* the server's bytes are not HTTP (bad status line, bad chunking, ...) */
  OC_HTTP_OTHER,           /* anything else libcurl reports */
  OC_HTTP_CONNECT,         /* could not connect for another reason (unreachable, ...) */
  OC_HTTP_URL,             /* the URL is malformed or its scheme unsupported */
  OC_HTTP_ABORTED          /* stopped by the caller: a callback returned nonzero, or oc_http_free */
};

/* A short stable name for reports: "ok", "refused", "reset",
 * "timeout-connect", "timeout-idle", "timeout-total", "dns", "tls",
 * "too-big", "protocol", "other", "connect", "url", "aborted". */
const char *oc_http_error_name(enum oc_http_error e);
/* The same in words, for a line that says what happened once for many
 * cases ("connection refused", "connect timeout", "TLS failure", ...). */
const char *oc_http_error_phrase(enum oc_http_error e);

/* The response head of the final attempt.  Borrowed for the callback only. */
struct oc_http_head {
  int status;                         /* 200 */
  const char *http_version;           /* "HTTP/1.1", "HTTP/2" */
  const char *reason;                 /* "OK"; "" when the server sent none (HTTP/2) */
  const struct oc_headers *headers;   /* in arrival order, names as sent */
  uint64_t t_first_byte;              /* see the top of this file */
  uint64_t t_ns;                      /* the head was complete */
};

struct oc_http_outcome {
  enum oc_http_error error;
  char message[512];        /* "" when OK; else what failed, naming the URL (no credentials, no query) */
  int status;               /* final HTTP status; 0 when no response head arrived */
  const char *http_version; /* "HTTP/1.1", "HTTP/2", "" when unknown; static */
  int retries;              /* how many 429/503 attempts were retried */
  uint64_t t_submit;        /* oc_http_submit() was called */
  uint64_t t_start, t_sent, t_first_byte, t_done; /* final attempt; 0 when it did not happen */
  uint64_t bytes;           /* decoded body bytes handed to on_body */
  int body_complete;        /* the body had ended when the exchange failed (a chunked body's
                               last chunk arrived, then its trailers broke a cap) */
  uint64_t bytes_sent;      /* request bytes written, head included (final attempt) */
};

/* Callbacks; ud is the pointer given to oc_http_submit().  Only on_done is
 * required.  on_head and on_body see the final attempt only: a 429 or 503
 * that is retried is reported through on_retry and nothing else.  Inside a
 * callback only oc_http_submit() may be called on the same handle. */
struct oc_http_callbacks {
  /* The final response head (1xx interim responses are skipped).  Return
   * nonzero to stop the transfer (outcome OC_HTTP_ABORTED). */
  int (*on_head)(void *ud, const struct oc_http_head *head);
  /* A piece of the decoded body, in order, as it arrived; t_ns never
   * decreases.  Return nonzero to stop the transfer (OC_HTTP_ABORTED). */
  int (*on_body)(void *ud, const void *p, size_t n, uint64_t t_ns);
  /* Attempt number attempt (1-based) got status and will be retried after
   * delay_ms (Retry-After in seconds or an HTTP-date, capped; else backoff). */
  void (*on_retry)(void *ud, int attempt, int status, long delay_ms);
  /* Exactly once per accepted request.  o is borrowed for the call. */
  void (*on_done)(void *ud, const struct oc_http_outcome *o);
};

struct oc_http;

/* Fill *r with the defaults: method NULL, connect timeout 10 s, no idle or
 * total timeout, 2 retries, 500 ms backoff, 60 s cap, TLS verified, no body
 * cap.  Cannot fail. */
void oc_http_request_init(struct oc_http_request *r);

/* A transport with at most max_in_flight transfers at once (< 1 means 1);
 * more are queued in submission order.  Initialises libcurl (reference
 * counted by libcurl itself).  NULL when memory runs out.  Free with
 * oc_http_free(). */
struct oc_http *oc_http_new(int max_in_flight);

/* Queue a request.  Copies req (headers, body, strings) and cb; ud is
 * borrowed until on_done.  Returns OC_OK, or OC_EUSAGE (NULL url or
 * callbacks without on_done) / OC_ENOMEM, in which case no callback is
 * ever called.  A malformed URL is not an error here: it is an
 * OC_HTTP_URL outcome. */
int oc_http_submit(struct oc_http *h, const struct oc_http_request *req,
                   const struct oc_http_callbacks *cb, void *ud);

/* Drive the transfers for at most timeout_ms (0: one pass without
 * waiting; < 0: until none is left).  Callbacks run from here.  Returns how
 * many requests are still in flight, queued or waiting to retry; -1 when
 * called from inside a callback. */
int oc_http_run(struct oc_http *h, long timeout_ms);

/* Like oc_http_run, but returns as soon as one wait has ended (a socket
 * ready, a timer, a deadline) and what it brought has run, or after
 * timeout_ms (> 0) without anything: for a caller that hands bytes on as
 * they arrive (the proxy), where waiting out the time would hold them. */
int oc_http_step(struct oc_http *h, long timeout_ms);

/* Requests in flight, queued or waiting to retry. */
int oc_http_pending(const struct oc_http *h);

/* Abort what is left (each gets on_done with OC_HTTP_ABORTED, "aborted"),
 * then free.  Accepts NULL.  Never from inside a callback. */
void oc_http_free(struct oc_http *h);

/* A whole response, for the small synchronous fetches (GET /v1/models,
 * /props). */
struct oc_http_response {
  int status;
  struct oc_headers headers;
  char *body;                 /* NUL-terminated; caller frees with oc_http_response_free */
  size_t body_len;
  struct oc_http_outcome outcome;
};

/* Run one request to completion on a private handle.  The body is capped at
 * req->max_body, or OC_CAP_BODY when that is 0.  Returns OC_OK when a
 * response arrived whole (any status); otherwise OC_EIO with err naming the
 * URL and what failed (resp->outcome says more).  resp is always filled and
 * must be freed with oc_http_response_free. */
int oc_http_fetch(const struct oc_http_request *req, struct oc_http_response *resp, char *err,
                  size_t errlen);
void oc_http_response_free(struct oc_http_response *resp);

/* GET url with headers (may be NULL) and a total timeout, body capped at
 * OC_CAP_BODY, TLS verified.  *body is NUL-terminated and the caller frees
 * it; it is NULL on failure.  Returns OC_OK or OC_EIO (err says why). */
int oc_http_get_simple(const char *url, const struct oc_headers *headers, long timeout_ms,
                       int *status, char **body, size_t *len, char *err, size_t errlen);

#endif
