/* capture.h — a response someone captured, read without a server: curl -i
 * output (status line, headers, body), a bare event-stream or JSON body
 * (curl -N, a paste), a HAR 1.2 file from a browser (each chat-completion
 * entry), a cassette, or a rule test file.  The kind is told from the
 * content; each exchange becomes a cassette with what the capture knows
 * (and says what it does not: the HTTP layer, the request, the end).
 * Judging it is the decoder's (response.c), reporting cmd_check.c's. */
#ifndef OC_CAPTURE_H
#define OC_CAPTURE_H

#include <stddef.h>

#include "cassette.h"
#include "rules.h"

enum oc_capture_kind {
  OC_CAPTURE_AUTO = 0,   /* tell from the content */
  OC_CAPTURE_HTTP,       /* curl -i -N: status line, headers, body */
  OC_CAPTURE_SSE,        /* curl -N: a bare text/event-stream body */
  OC_CAPTURE_JSON,       /* a bare JSON body */
  OC_CAPTURE_HAR,        /* HAR 1.2 (browser devtools) */
  OC_CAPTURE_CASSETTE,   /* NAME.cassette.gz */
  OC_CAPTURE_TEST        /* a rule test file (tests/rules/README.md) */
};

/* "http", "sse", "json", "har", "cassette", "test" (and "auto"). */
const char *oc_capture_kind_name(enum oc_capture_kind k);
/* The kind a name means; -1 when none. */
int oc_capture_kind_parse(const char *name);
/* What the kind is, for people: "a raw HTTP response (curl -i)". */
const char *oc_capture_kind_text(enum oc_capture_kind k);

struct oc_capture_entry {
  char *name;              /* the case name: the file's base name, "#N" for a HAR entry */
  /* The exchange.  Without has_request, req_body is NULL and method/path
   * are inferred (POST, the endpoint the body's "object" names). */
  struct oc_cassette ex;
  int has_http;            /* status and headers are the server's, not assumed */
  int has_request;         /* the request body came with the capture */
  int partial;             /* the capture looks cut by whoever made it (oc_capture_cut) */
  char partial_why[200];   /* why it looks cut, or "" */
  char note[200];          /* how it was read ("de-chunked", "status assumed 400"), or "" */
  const struct oc_profile *profile; /* a rule test file's own profile, else NULL */
  int har_index;           /* 1-based entry in a HAR file; 0 otherwise */
};

struct oc_capture {
  char *file;
  enum oc_capture_kind kind;
  int detected;            /* the kind came from the content */
  struct oc_capture_entry *entries;
  size_t count;
  size_t alloc;
  size_t har_skipped;      /* HAR entries that are not chat or legacy completions */
};

/* Read path as kind (OC_CAPTURE_AUTO: detect).  err names the file and
 * where ("FILE: byte 17: …", "FILE:3:9: …"); the exit status for that is
 * 2.  Caller frees with oc_capture_free (also after a failure). */
int oc_capture_read(const char *path, enum oc_capture_kind kind, struct oc_capture *cap,
                    char *err, size_t errlen);
/* The same from bytes in memory; name is used as the file. */
int oc_capture_parse(const char *buf, size_t len, const char *name, enum oc_capture_kind kind,
                     struct oc_capture *cap, char *err, size_t errlen);
void oc_capture_free(struct oc_capture *cap);

/* The kind the bytes look like, or OC_CAPTURE_AUTO when they look like
 * none. */
enum oc_capture_kind oc_capture_detect(const char *buf, size_t len);

/* Does an event-stream body look cut by whoever captured it?  It does when
 * it does not end with a blank line (the end of an event): a paste loses
 * the trailing blank line, curl's own output keeps it.  why says so. */
int oc_capture_cut(const char *body, size_t len, char *why, size_t whylen);

/* The rules whose verdict depends on what the request asked (stream,
 * stream_options, n, tools, tool_choice, parallel_tool_calls,
 * response_format): not judged when the request is unknown. */
void oc_capture_request_rules(struct oc_ruleset *out);

#endif
