/* exchange.h — reads raw recorded HTTP exchanges: NAME.request.json (the
 * request body as sent), NAME.response.http (status line, headers, blank
 * line, body as received) and the folder's index.json (method and path).
 * This is the form of every recording in the team's reference data; the
 * cassette importer, the replay server and the tests all read it here. */
#ifndef OC_EXCHANGE_H
#define OC_EXCHANGE_H

#include <stddef.h>

#include "headers.h"

struct oc_exchange {
  char *name;         /* "chat-stream" */
  char *method;       /* "POST" */
  char *path;         /* "/v1/chat/completions" */
  char *request;      /* request body bytes, NUL-terminated; NULL for none */
  size_t request_len;
  char *http_version; /* "HTTP/1.1" */
  int status;         /* 200 */
  char *reason;       /* "OK" */
  struct oc_headers headers;
  char *body;         /* response body bytes, NUL-terminated */
  size_t body_len;
  /* Where the sender's writes ended, when the recording kept them (a
   * .wire.http file holds the HTTP chunk framing): body offsets, ascending,
   * the last equal to body_len.  npieces == 0 means "not recorded". */
  size_t *pieces;
  size_t npieces;
  char *note;         /* index.json "test_only" reason, else NULL */
};

struct oc_exchange_set {
  char *dir;
  struct oc_exchange *items;
  size_t count;
};

/* Parse a raw HTTP/1.x response.  With wire set, a chunked body is
 * de-chunked and its chunk boundaries kept in pieces.  err names the byte
 * where parsing stopped.  On failure *ex is left empty. */
int oc_exchange_parse_response(const char *buf, size_t len, int wire, struct oc_exchange *ex,
                               char *err, size_t errlen);
/* Load one recording NAME from DIR.  NAME may end in ".wire" to read
 * NAME.wire.http with its chunk framing (method and path then come from
 * the index entry of the name without ".wire").  Caller frees with
 * oc_exchange_free. */
int oc_exchange_load(const char *dir, const char *name, struct oc_exchange *ex, char *err,
                     size_t errlen);
/* Load every recording listed in DIR/index.json, in name order.  A broken
 * entry fails the whole load with a message naming it. */
int oc_exchange_load_dir(const char *dir, struct oc_exchange_set *set, char *err, size_t errlen);
const struct oc_exchange *oc_exchange_find(const struct oc_exchange_set *set, const char *name);
void oc_exchange_free(struct oc_exchange *ex);
void oc_exchange_set_free(struct oc_exchange_set *set);

#endif
