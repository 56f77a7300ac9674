/* cassette.h — the record/replay format: one HTTP exchange per gzip file
 * (a JSON metadata line, then the request and response body bytes), its
 * request key (SHA-256 of the canonical request), and a store that loads
 * directories of cassettes or raw exchanges and looks them up.  What the
 * bytes mean is decided downstream; serving them is server.c's job, and
 * the zlib wrapper here is the only place the program touches zlib.
 * The on-disk form is documented in docs/cassette.md. */
#ifndef OC_CASSETTE_H
#define OC_CASSETTE_H

#include <stddef.h>
#include <stdint.h>

#include "exchange.h"
#include "headers.h"
#include "util.h"

/* Version written into every cassette; readers refuse newer ones. */
#define OC_CASSETTE_VERSION 1
/* File names end in this; the name before it is the recording's name. */
#define OC_CASSETTE_EXT ".cassette.gz"
/* The metadata line (pieces included) and a decompressed cassette. */
#define OC_CAP_CASSETTE_META (16u << 20)
#define OC_CAP_CASSETTE (OC_CAP_CASSETTE_META + 2 * (size_t)OC_CAP_BODY)
/* Pieces of one response: more than this is refused. */
#define OC_CAP_CASSETTE_PIECES (1u << 20)

/* One write of the sender as it arrived: the body offset where it ends
 * and, when the cassette recorded timing, when it arrived in nanoseconds
 * since the request was sent (so the first piece's time is the time to
 * first byte).  Without timing, t_ns is 0. */
struct oc_cassette_piece {
  size_t end;
  uint64_t t_ns;
};

struct oc_cassette {
  char *name;              /* "chat-stream"; the file name without OC_CASSETTE_EXT */
  char *method;            /* "POST" */
  char *path;              /* "/v1/chat/completions", with its query string when the request
                              had one ("/props?model=qwen-tiny") */
  char *req_body;          /* request body bytes as sent, NUL-terminated; NULL for none */
  size_t req_body_len;
  struct oc_headers req_headers; /* secrets are never written (oc_header_is_secret) */
  char key[65];            /* oc_cassette_request_key of the request; "" until computed */
  char *http_version;      /* "HTTP/1.1"; may be NULL */
  int status;              /* 200 */
  char *reason;            /* "OK"; may be NULL */
  struct oc_headers headers; /* response headers as received, hop-by-hop ones included */
  char *body;              /* response body bytes, NUL-terminated (never NULL once read) */
  size_t body_len;
  /* The body as the pieces that arrived: ends ascending, the last equal
   * to body_len.  npieces == 0: the boundaries were not recorded (the
   * body arrived as one block, or nobody knows). */
  struct oc_cassette_piece *pieces;
  size_t npieces;
  size_t apieces;
  int timing_recorded;     /* pieces[].t_ns and headers_ns are real arrival times */
  uint64_t headers_ns;     /* when the response head arrived (timing only) */
  int complete;            /* 0: the response ended early (reset, timeout) */
  /* Provenance, all optional (NULL when unknown). */
  char *source;            /* where the exchange came from */
  char *recorded_at;       /* RFC 3339 UTC */
  char *server;            /* server build, e.g. "llama.cpp b10587-3f545becc" */
  char *note;              /* free text */
  int test_only;           /* belongs in tests, not in shipped suites */
  char *file;              /* the file it was read from; NULL when built in memory */
};

/* Fill *c as an empty, complete cassette with no timing.  Cannot fail. */
void oc_cassette_init(struct oc_cassette *c);
/* Free what *c owns and leave it as after oc_cassette_init.  NULL is fine. */
void oc_cassette_free(struct oc_cassette *c);

/* The request key: lower-case hex SHA-256 of METHOD NUL PATH NUL BODY,
 * where PATH is oc_cassette_key_path(path) (a query string, when there is
 * one, in canonical form; a path without a query keys exactly as before
 * queries were part of the key) and BODY is the RFC 8785 canonical form of
 * the body when it is I-JSON (parses strictly, valid UTF-8, no member name
 * twice in an object: so member order and whitespace do not matter) and
 * the raw bytes otherwise (the deliberately invalid request, non-JSON
 * bodies).  A NULL or empty body is the empty string.  Returns OC_OK or
 * OC_ENOMEM. */
int oc_cassette_request_key(const char *method, const char *path, const char *body,
                            size_t len, char out[65]);
/* The same key for a body that arrives in pieces (oacheck serve): the
 * pieces are kept while the body may be JSON (its first non-blank byte
 * can start a JSON text), since canonicalising needs it whole; a body
 * that cannot be JSON is hashed as it arrives and not kept.  Memory for
 * a JSON body: the body once, plus the parser's arena; the canonical form
 * is never built, it goes straight into the digest.
 *   oc_keyer_init(&k, max); oc_keyer_begin(&k, "POST", "/v1/chat/completions");
 *   oc_keyer_add(&k, piece, n)…; oc_keyer_end(&k, key); oc_keyer_free(&k);
 * _add returns OC_ETOOBIG past max bytes in all (and frees what it held),
 * OC_ENOMEM; _end frees the digest, the kept body stays until _free. */
struct oc_keyer {
  struct evp_md_ctx_st *md; /* METHOD NUL PATH NUL, then the bytes of a streamed body */
  struct oc_buf body;       /* the body while it may be JSON */
  size_t total;             /* bytes added */
  size_t max;
  int decided;              /* a non-blank byte has been seen */
  int streaming;            /* not JSON: hashed as it arrives, not kept */
};
void oc_keyer_init(struct oc_keyer *k, size_t max_body);
int oc_keyer_begin(struct oc_keyer *k, const char *method, const char *path);
int oc_keyer_add(struct oc_keyer *k, const void *p, size_t n);
int oc_keyer_end(struct oc_keyer *k, char out[65]);
/* The body kept (borrowed, NUL-terminated), NULL when it was streamed. */
const char *oc_keyer_body(const struct oc_keyer *k, size_t *len);
/* Bytes of memory it holds for the body now. */
size_t oc_keyer_held(const struct oc_keyer *k);
void oc_keyer_free(struct oc_keyer *k);
/* The path as the key sees it: PATH alone when there is no query (or an
 * empty one), else PATH?QUERY with the query's parameters percent-decoded
 * ('+' a space), sorted by name then value, and percent-encoded again
 * (everything but A-Z a-z 0-9 - . _ ~), so "?b=2&a=x%2Fy" and "?a=x/y&b=2"
 * are the same request.  Caller frees; NULL when memory runs out. */
char *oc_cassette_key_path(const char *path);
/* Append one query parameter, already decoded (as libmicrohttpd hands
 * them over), to a query string being built: "name=value" percent-encoded
 * as above, '&' before it when q is not empty; value NULL writes "name"
 * alone.  A server that has only decoded arguments builds PATH?QUERY with
 * this and keys it with oc_cassette_request_key. */
struct oc_buf;
int oc_cassette_query_append(struct oc_buf *q, const char *name, const char *value);

/* Compute c->key from c's request. */
int oc_cassette_update_key(struct oc_cassette *c);

/* Append n bytes that arrived at t_ns to the response body as one piece
 * (the live recorder's path).  The body is capped at OC_CAP_BODY; on
 * failure the cassette is unchanged and the code says why. */
int oc_cassette_add_piece(struct oc_cassette *c, const void *p, size_t n, uint64_t t_ns);

/* Serialise c (uncompressed metadata line + bodies) and gzip it into a new
 * buffer (caller frees).  Secret request and response headers are left
 * out.  The output is deterministic: no time stamp in the gzip header. */
int oc_cassette_encode(const struct oc_cassette *c, char **out, size_t *outlen, char *err,
                       size_t errlen);
/* Parse gzip bytes (as read from a file) into *c; `what` names the source
 * in err ("FILE: what is wrong").  On failure *c is left empty. */
int oc_cassette_decode(const char *gz, size_t len, const char *what, struct oc_cassette *c,
                       char *err, size_t errlen);
/* Write c to path (oc_cassette_encode, then the file). */
int oc_cassette_write(const char *path, const struct oc_cassette *c, char *err, size_t errlen);
/* From start to stop, every path oc_cassette_write writes (from any
 * thread) is kept; stop returns how many distinct files that was, with
 * *lost (when not NULL) set when a path could not be kept for memory (the
 * count is then short), and forgets them.  For record mode's "wrote N
 * cassettes to DIR". */
void oc_cassette_tally_start(void);
size_t oc_cassette_tally_stop(int *lost);
/* Read path into *c (c->file and, when the metadata has none, c->name
 * are set from the path).  err names the file and what is wrong. */
int oc_cassette_read(const char *path, struct oc_cassette *c, char *err, size_t errlen);

/* Mask every secret the run knows (secret.h) in c: bodies, header values,
 * provenance.  Lengths are kept.  For showing a cassette recorded before
 * its secrets were masked. */
void oc_cassette_mask(struct oc_cassette *c);

/* Convert a raw exchange (src/exchange.h) into a cassette: the request
 * body, status, reason, headers and body bytes are copied; its chunk
 * boundaries (.wire.http) become pieces without times; timing is "not
 * recorded"; the exchange's note becomes the note and marks it test-only.
 * *c is filled (init'ed first); the exchange is not changed. */
int oc_cassette_from_exchange(const struct oc_exchange *ex, struct oc_cassette *c);

/* Walk a directory of raw exchanges: every entry of DIR/index.json (names
 * with '/' only when with_subdirs) and every NAME.wire.http beside it (as
 * "NAME.wire", after NAME), converted with oc_cassette_from_exchange and
 * handed to take() in name order; take() owns the cassette from then on
 * (it must free it, also when it fails).  An entry that cannot be read is
 * reported through on_error ("DIR: NAME: why") and skipped.  Returns
 * OC_OK, the first non-zero code of take() (which stops the walk), or an
 * error when index.json itself cannot be read (also reported). */
int oc_cassette_walk_raw(const char *dir, int with_subdirs,
                         int (*take)(void *ctx, struct oc_cassette *c),
                         void (*on_error)(void *ctx, const char *msg), void *ctx);

/* gzip and gunzip whole buffers (the server's gzip fault uses these).
 * Output is capped at max bytes; caller frees *out. */
int oc_gzip(const void *p, size_t n, char **out, size_t *outlen);
int oc_gunzip(const void *p, size_t n, size_t max, char **out, size_t *outlen);

/* ---- the store ------------------------------------------------------ */

/* Every cassette of one or more directories, in load order: the
 * directories in the order given, each sorted by recording name.  Lookups
 * return the first match, so the first directory wins on a duplicate key
 * or name.  Read-only once loaded: safe to share between threads. */
struct oc_cassette_store {
  struct oc_cassette *items;
  size_t count;
  size_t alloc;
};

/* Fill *s as an empty store.  Cannot fail. */
void oc_cassette_store_init(struct oc_cassette_store *s);
/* Load every NAME.cassette.gz of each directory (not its subdirectories,
 * which are separate targets) and, when the directory holds an index.json,
 * every raw exchange listed there (oc_cassette_walk_raw without subdirs).
 * A file that cannot be loaded is reported through on_error with the file
 * name and what is wrong (NULL on_error: logged as a warning), and the
 * rest are loaded.  Returns OC_OK when everything loaded, OC_EPARSE when
 * something was skipped, OC_ENOTFOUND when a directory is missing (the
 * others are still loaded), OC_ENOMEM. */
int oc_cassette_store_load(struct oc_cassette_store *s, const char *const *dirs, size_t ndirs,
                           void (*on_error)(void *ctx, const char *msg), void *ctx);
/* Add one cassette to the end of the store; it takes *c over (leaving it
 * empty) whether or not it succeeds. */
int oc_cassette_store_take(struct oc_cassette_store *s, struct oc_cassette *c);
/* Lookups; borrowed until the store is freed; NULL when absent. */
const struct oc_cassette *oc_cassette_store_find_key(const struct oc_cassette_store *s,
                                                     const char *key);
const struct oc_cassette *oc_cassette_store_find_name(const struct oc_cassette_store *s,
                                                      const char *name);
/* The recordings nearest to a request that found nothing, best first, at
 * most max of them into out (borrowed): a name that ends with ".NAME" of
 * the name asked first (the one meant, its suite's prefix left out), then
 * those with the same method and path (ranked by how many top-level JSON
 * members of the body they share), then the rest ranked by how close
 * their names are to name (may be NULL).  Returns how many were written. */
size_t oc_cassette_store_nearest(const struct oc_cassette_store *s, const char *method,
                                 const char *path, const char *body, size_t len,
                                 const char *name, const struct oc_cassette **out, size_t max);
void oc_cassette_store_free(struct oc_cassette_store *s);

#endif
