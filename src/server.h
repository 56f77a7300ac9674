/* server.h — `oacheck serve`'s engine: an HTTP server (libmicrohttpd)
 * that answers requests from a cassette store, in the recorded pieces,
 * optionally paced by the recorded times and broken by injected faults.
 * Option parsing and signals are cmd_serve.c's; what a recording holds
 * is cassette.h's.  The faults are documented in docs/serve.md. */
#ifndef OC_SERVER_H
#define OC_SERVER_H

#include <stddef.h>

#include "cassette.h"
#include "overload.h"

/* Bounds on fault values, so a typo cannot park a connection for days. */
#define OC_FAULT_MAX_MS 600000L    /* drip and stall: at most 10 minutes */
#define OC_FAULT_MAX_COUNT 100000000L

/* What a broken server or proxy does to a response.  -1 (or 0 for the
 * flags, NULL for the type) means "not asked for". */
struct oc_faults {
  long drip_ms;       /* wait between writes */
  long stall_ms;      /* wait before the response head */
  long truncate;      /* end the body after N events */
  long reset;         /* abort the connection after N body bytes */
  int drop_done;      /* remove the data: [DONE] event */
  int drop_terminal;  /* remove the stream's last word: [DONE], response.completed (or
                         .incomplete, .failed), message_stop */
  long corrupt;       /* cut event N (1-based) in half */
  char *content_type; /* send this Content-Type instead */
  int gzip;           /* gzip the body, Content-Encoding: gzip */
  long split;         /* write in N-byte pieces */
};

/* Fill *f with no faults.  Cannot fail. */
void oc_faults_init(struct oc_faults *f);
void oc_faults_free(struct oc_faults *f);
/* Add the faults of SPEC[,SPEC…] ("drip=50", "drop-done,gzip") to *f; a
 * later value replaces an earlier one.  On error err says which spec is
 * wrong and why, and *f may hold part of the list. */
int oc_faults_parse(struct oc_faults *f, const char *spec, char *err, size_t errlen);
/* Overlay: every fault set in over replaces the one in base. */
int oc_faults_merge(struct oc_faults *base, const struct oc_faults *over);
/* A short text for logs ("drip=50,gzip"), "" for none, into out. */
void oc_faults_describe(const struct oc_faults *f, char *out, size_t outlen);
/* The help text: one line per fault. */
extern const char oc_faults_help[];

/* Defaults of the limits below (docs/serve.md, "Limits"). */
#define OC_SERVE_MAX_BODY (8u << 20)      /* request body bytes */
#define OC_SERVE_MAX_CONNECTIONS 1024     /* connections open at once */
#define OC_SERVE_REQUEST_TIMEOUT 10       /* s to send a whole request */
#define OC_SERVE_IDLE_TIMEOUT 60          /* s without a byte either way */

struct oc_server_options {
  const char *host;       /* "127.0.0.1" (default), "::1", "localhost", "0.0.0.0" */
  int port;               /* 0: any free port (read it back with oc_server_port) */
  double speed;           /* 0: no pacing; 1: the recorded times; 2: twice as fast */
  struct oc_faults faults;/* applied to every request (per-request faults overlay them) */
  /* Limits; 0 means the default above, and a negative timeout none. */
  size_t max_body;        /* a bigger request body gets 413 */
  size_t max_connections; /* beyond it the connection waiting longest for its
                             request is closed to make room */
  long request_timeout_s; /* from opening (or the previous answer) to a complete
                             request: headers and body */
  long idle_timeout_s;    /* nothing sent or received for this long */
  struct oc_overload *overload; /* --overload N=DIR, or NULL (borrowed, as store is) */
};

/* Fill *o with the defaults (127.0.0.1:8080, no pacing, no faults). */
void oc_server_options_init(struct oc_server_options *o);

struct oc_server;

/* Start serving store: libmicrohttpd's event loop on a pool of one thread
 * per CPU, paced and stalled answers suspended rather than holding a
 * thread.  store and the options' strings are borrowed until
 * oc_server_stop returns.  On failure err says why and *out is NULL. */
int oc_server_start(struct oc_server **out, const struct oc_cassette_store *store,
                    const struct oc_server_options *opt, char *err, size_t errlen);
/* The port actually bound. */
int oc_server_port(const struct oc_server *s);
/* Stop: paced and stalled responses are cut short, every connection is
 * closed, the threads are joined, and s is freed.  NULL is fine. */
void oc_server_stop(struct oc_server *s);

#endif
