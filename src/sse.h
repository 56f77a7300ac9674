/* sse.h — an incremental parser for text/event-stream, following the
 * WHATWG "parsing an event stream" and "interpreting an event stream"
 * rules exactly.  Push bytes in pieces of any size, with the time they
 * arrived; events come out through a callback with the stream offsets and
 * arrival times of their first and last bytes.  No I/O and no knowledge
 * of JSON or chat completions here: chat.c decides what the data means.
 *
 * Byte transparency: data is delivered exactly as received (no U+FFFD
 * replacement).  Invalid UTF-8 is reported through on_issue with the
 * offset of the first bad byte, and the event is delivered anyway. */
#ifndef OC_SSE_H
#define OC_SSE_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* One dispatched event.  Every pointer is borrowed until the callback
 * returns; copy what you keep. */
struct oc_sse_event {
  size_t index;            /* 0-based count of dispatched events */
  const char *type;        /* the event type; "message" when no or empty event field */
  size_t type_len;
  const char *data;        /* data lines joined with LF, trailing LF removed;
                              NUL-terminated, but may hold NULs: use data_len */
  size_t data_len;
  const char *last_id;     /* the stream's last event ID string ("" until set) */
  size_t last_id_len;
  long retry;              /* reconnection time in effect (ms), -1 when none */
  uint64_t first_byte;     /* stream offset of the first byte of the block */
  uint64_t last_byte;      /* stream offset of the blank line's line end (its CR
                              or LF; the CR of a CRLF, so that it does not depend
                              on where the pieces were cut) */
  uint64_t t_first_ns;     /* arrival time of first_byte's piece */
  uint64_t t_last_ns;      /* arrival time of last_byte's piece */
  unsigned data_lines;     /* number of data fields in the block */
  uint64_t data_first;     /* stream offset of the first data line's value (after
                              "data:" and its optional space): when data_lines is
                              1, data[k] came from stream byte data_first + k */
};

/* Things a well-formed stream does not do, or that clients trip on.  They
 * are observations, not errors: the rules decide what they mean. */
enum oc_sse_issue_kind {
  OC_SSE_ISSUE_INVALID_UTF8 = 1, /* a line holds bytes that are not UTF-8 (once per line) */
  OC_SSE_ISSUE_UNKNOWN_FIELD,    /* a field other than event/data/id/retry (e.g. "error:") */
  OC_SSE_ISSUE_LINE_TOO_LONG,    /* a line passed OC_CAP_SSE_LINE; the line was dropped, and
                                    when it was a data line its whole event too */
  OC_SSE_ISSUE_EVENT_TOO_BIG,    /* an event's data passed OC_CAP_SSE_EVENT; it was dropped */
  OC_SSE_ISSUE_UNTERMINATED,     /* the stream ended inside a block holding fields (or
                                    inside a line that is not a comment); discarded */
  OC_SSE_ISSUE_ID_NUL,           /* an id field holding U+0000 was ignored */
  OC_SSE_ISSUE_RETRY_INVALID,    /* a retry field that is not all ASCII digits was ignored */
  OC_SSE_ISSUE_BOM,              /* a leading byte-order mark was stripped */
  OC_SSE_ISSUE_NO_DISPATCH,      /* a block with fields but no data field ended: nothing
                                    dispatched; detail is its event type ("" when none) */
  OC_SSE_ISSUE_BLANK             /* a blank line ended no block with fields (a comment-only
                                    keep-alive, or a stray blank line): nothing dispatched, but
                                    decoders that dispatch on any blank line once an id was
                                    set (openai-python's) yield an empty event here */
};

struct oc_sse_issue {
  enum oc_sse_issue_kind kind;
  uint64_t offset;          /* stream offset of the byte in question: the first byte of
                               the bad UTF-8 sequence, of the block (UNTERMINATED,
                               NO_DISPATCH), of the BOM, else of the line */
  uint64_t t_ns;            /* arrival time of that byte's piece */
  const char *detail;       /* e.g. the unknown field's name; borrowed */
  size_t detail_len;
};

struct oc_sse_callbacks {
  void (*on_event)(void *ud, const struct oc_sse_event *ev);
  /* optional: NULL ignores issues */
  void (*on_issue)(void *ud, const struct oc_sse_issue *issue);
  /* optional: a comment line (":" and the rest), offset of its ':' */
  void (*on_comment)(void *ud, const char *text, size_t len, uint64_t offset, uint64_t t_ns);
};

/* Parser state.  Fields are private; the struct is public so that a
 * parser can live on the stack or inside another struct. */
struct oc_sse_parser {
  struct oc_sse_callbacks cb;
  void *ud;
  struct oc_buf line;       /* a line that spans pieces (OC_CAP_SSE_LINE) */
  struct oc_buf data;       /* the data buffer (OC_CAP_SSE_EVENT) */
  struct oc_buf type;       /* the event type buffer (OC_CAP_SSE_LINE) */
  struct oc_buf last_id;    /* the last event ID string (committed) */
  struct oc_buf id_buf;     /* the last event ID buffer (committed at dispatch) */
  int id_changed;           /* id_buf set since the last dispatch */
  long retry;
  uint64_t offset;          /* stream offset of the next byte */
  uint64_t block_first;     /* offset of the first byte of the current block */
  uint64_t block_t_first;
  int in_block;             /* a non-blank line has been seen since the last blank line */
  int block_fields;         /* field lines (not comments) in the current block */
  int saw_cr;               /* the previous piece ended in CR: a following LF is part of it */
  int bom_state;            /* 0..2 BOM bytes held, 3 past the start */
  uint64_t bom_t;           /* arrival time of the first held BOM byte */
  int line_pending;         /* a line has started in an earlier piece */
  int line_too_long;        /* the pending line passed the cap: skip to its end */
  int event_dropped;        /* this block lost data (a cap): dispatch nothing */
  unsigned data_lines;
  uint64_t data_first;      /* see oc_sse_event.data_first */
  size_t events;
  uint64_t line_first;      /* offset of the first byte of the current line */
  uint64_t line_t_first;
  int line_bad_utf8;        /* INVALID_UTF8 already reported for this line */
  int utf8_need;            /* continuation bytes still expected */
  unsigned char utf8_lo, utf8_hi; /* allowed range of the next continuation byte */
  uint64_t utf8_seq_start;  /* offset of the lead byte of the open sequence */
  uint64_t utf8_seq_t;
  int finished;
};

/* Fill *p; cannot fail. */
void oc_sse_init(struct oc_sse_parser *p, const struct oc_sse_callbacks *cb, void *ud);
/* Feed len bytes that arrived at t_ns (monotonic).  Returns OC_OK, or
 * OC_ENOMEM when an allocation failed (the parser is then unusable).
 * Callbacks run before this returns. */
int oc_sse_push(struct oc_sse_parser *p, const void *buf, size_t len, uint64_t t_ns);
/* The stream has ended: an unterminated block is discarded and reported
 * as OC_SSE_ISSUE_UNTERMINATED. */
void oc_sse_finish(struct oc_sse_parser *p, uint64_t t_ns);
/* Release buffers; the parser may be initialised again. */
void oc_sse_free(struct oc_sse_parser *p);
/* Bytes consumed so far. */
uint64_t oc_sse_offset(const struct oc_sse_parser *p);

#endif
