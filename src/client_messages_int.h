/* client_messages_int.h — what the Messages API's client models share
 * (client_messages.c): content blocks as a model holds them, the
 * reference's reassembly, and the judge of one model's result against
 * it.  Each model (client_messages_*.c) reads the events as its library
 * does and hands the judge a struct oc_mres. */
#ifndef OC_CLIENT_MESSAGES_INT_H
#define OC_CLIENT_MESSAGES_INT_H

#include "client_int.h"
#include "pclient.h"

/* Blocks a model keeps; past it the rest of the stream is not read and
 * the verdict says so (MESSAGES-SIZE caps a stream at 1024). */
#define OC_MBLOCKS 128
/* A tool's joined JSON is kept up to OC_CAP_CLIENT_ARGS / 4, and a
 * message's in all up to OC_CAP_CLIENT_ARGS: past either the call's input
 * is judged unreadable, as the reference's is. */
#define OC_MJSON_TOTAL OC_CAP_CLIENT_ARGS

enum oc_mkind {
  OC_MB_OTHER = 0,
  OC_MB_TEXT,
  OC_MB_THINKING,
  OC_MB_TOOL
};

/* One content block. */
struct oc_mblock {
  long index;             /* the event's index */
  enum oc_mkind kind;
  int open;               /* started, not stopped */
  struct oc_ctext text;   /* text or thinking */
  struct oc_ctext id, name;
  int has_input;          /* the start (or the body's block) has an `input` member */
  int deltas;             /* input_json_delta events applied */
  struct oc_buf input;    /* that input, JSON.stringify'd, when it is an object */
  int input_keys;         /* its member count */
  struct oc_buf json;     /* the input_json_delta pieces joined */
};

/* The blocks of one message, in the order they were started. */
struct oc_mmsg {
  struct oc_mblock *b;
  size_t nb, ab;
  int over;               /* a block past OC_MBLOCKS was dropped */
  int started;            /* message_start read */
  int stopped;            /* message_stop read */
  size_t json_total;      /* tool JSON kept, all blocks */
  int stop_set;           /* stop_reason a string */
  struct oc_ctext stop;
};

void oc_mmsg_free(struct oc_mmsg *m);
/* A new block at the end (content_block_start's or a body's); NULL when
 * past the cap (m->over set) or out of memory. */
struct oc_mblock *oc_mmsg_add(struct oc_mmsg *m, long index, const struct oc_jv *block);
/* The last block started with this index, NULL when none. */
struct oc_mblock *oc_mmsg_find(struct oc_mmsg *m, long index);
/* A delta applied to a block of its kind (text_delta to text, …); returns
 * 1 when applied. */
int oc_mblock_delta(struct oc_mmsg *m, struct oc_mblock *b, const struct oc_jv *delta);
/* One event read as the reference reads it (message_start, the blocks
 * by index, message_delta's stop_reason, message_stop ends it). */
void oc_mmsg_event(struct oc_mmsg *m, const struct oc_pevent *ev);
/* A body's `content` blocks and stop_reason into m. */
void oc_mmsg_body(struct oc_mmsg *m, const struct oc_jv *root);
/* message_delta's stop_reason into m. */
void oc_mmsg_stop_reason(struct oc_mmsg *m, const struct oc_jv *delta);

/* The event's integer `index` into *out; 0 when it has none. */
int oc_mev_index(const struct oc_pevent *ev, long *out);
int oc_mev_is(const struct oc_pevent *ev, const char *type);

/* What a tool call's input ends up as. */
enum oc_minput {
  OC_MI_VALUE = 0,        /* value holds it as JSON text */
  OC_MI_INVALID,          /* flagged invalid (or, for the reference, not a JSON object) */
  OC_MI_MISSING           /* the call has no input at all */
};

/* What the application got (or the reference says it should get). */
struct oc_mres {
  int error;              /* an exception / the server's error */
  char ename[64];
  const char *emsg;       /* the message (borrowed), NULL: none */
  size_t emsg_len;
  const struct oc_mmsg *msg; /* the blocks (text and thinking: by kind, in order) */
  /* the tool calls' inputs, one per tool block of msg in the same order */
  enum oc_minput *in;
  struct oc_buf *val;
  size_t ncalls;
  /* the stop reason as the judge compares it: OC_MSTOP_* */
  int stop;
  int ai_finish;          /* the ai SDK: compare unified finish reasons */
  int rule;               /* an exception's rule (enum oc_rule_id), 0: not known */
};

enum { OC_MSTOP_NONE = 0, OC_MSTOP_END, OC_MSTOP_SEQ, OC_MSTOP_MAX, OC_MSTOP_TOOL, OC_MSTOP_OTHER };
int oc_mstop_of(const struct oc_mmsg *m);

/* Fill the tool calls of r from its msg: the block list in order, each
 * tool block's input by in_fn (the model's way). */
typedef enum oc_minput (*oc_minput_fn)(const struct oc_mblock *b, struct oc_buf *val);
int oc_mres_calls(struct oc_mres *r, oc_minput_fn fn);
void oc_mres_free(struct oc_mres *r);
/* The reference's way: the joined JSON parsed when any arrived (not an
 * object: invalid), else the start's input, else {}. */
enum oc_minput oc_minput_reference(const struct oc_mblock *b, struct oc_buf *val);

/* The family's reference (client_messages.c). */
struct oc_mref {
  int error;
  int http;               /* the error is an HTTP status's */
  char *emsg;             /* NULL: none */
  size_t emsg_len;
  int anthropic_shape;    /* the error body / event is {"type":"error","error":{type,message}} */
  struct oc_mmsg msg;
  int done;               /* message_stop or an error: the rest is not part of it */
  int stop_event;         /* the n of message_stop (0: none) */
  struct oc_mres res;     /* set by ref_finish */
  /* what the server did that a model may break on (for the rules) */
  int unnamed;            /* events without an event: line */
  int no_usage;           /* message_start or message_delta without usage */
  int orphan;             /* a delta for a block never started */
  int gap;                /* a block index that skips a number */
  int no_input;           /* a tool_use start without input */
  int bad_json;           /* a tool input that is not a JSON object */
  int openai_error;       /* an error not in Anthropic's shape */
  int no_stop;            /* no message_stop */
};

/* The judge: outcome, works, reason and the rules behind a break. */
void oc_mjudge(const struct oc_mref *ref, const struct oc_mres *got, struct oc_client_verdict *v);
/* The rules a break stems from, from what the reference saw. */
void oc_mrules(const struct oc_mref *ref, struct oc_client_verdict *v);

/* @anthropic-ai/sdk's event decoder (client_messages_anthropic.c): 1 when
 * the event reaches the application; an event it throws on sets *raised
 * with the error's class and message. */
int oc_msdk_event(const struct oc_pevent *ev, int *raised, struct oc_buf *emsg, char *ename, size_t enlen);

/* The SDK's status error text: "STATUS BODY" (what keepsMessage reads). */
void oc_msdk_http_error(const struct oc_pctx *cx, const char *text, size_t len, struct oc_buf *out);

extern const struct oc_pmodel oc_pmodel_anthropic;
extern const struct oc_pmodel oc_pmodel_anthropic_stream;
extern const struct oc_pmodel oc_pmodel_ai_sdk_anthropic;
extern const struct oc_pmodel oc_pmodel_langchain_anthropic;

#endif
