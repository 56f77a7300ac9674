/* client_int.h — what the client models share and nobody else needs: the
 * text a view holds (length, hash and the first bytes, so that a 1 GiB
 * stream costs a fixed amount per field), the view an application ends
 * up with (an answer's choices or an error), the digest of one event that
 * every model reads instead of looking members up again, the model
 * interface (one file per client), the judge that compares a view with
 * the reference exactly as tests/node/oracle/judge.mjs does, and the
 * helpers that reproduce how the JavaScript and Python libraries turn
 * values into text.  The public face is client.h. */
#ifndef OC_CLIENT_INT_H
#define OC_CLIENT_INT_H

#include "client.h"
#include "util.h"

/* ---- text ---------------------------------------------------------------- */

#define OC_CTEXT_HEAD 96

/* A string as a view holds it: its length, a hash of all of it (equal
 * texts have equal hashes whatever pieces they arrived in) and its first
 * bytes for reasons.  Fixed size: no allocation ever. */
struct oc_ctext {
  int set;                /* a string was given (null/absent otherwise) */
  unsigned nword;         /* bytes waiting in word */
  unsigned nhead;
  uint64_t len;
  uint64_t h;             /* words folded so far */
  unsigned char word[8];  /* bytes not yet folded */
  char head[OC_CTEXT_HEAD];
};

void oc_ctext_init(struct oc_ctext *t);
void oc_ctext_add(struct oc_ctext *t, const char *p, size_t n);
void oc_ctext_set(struct oc_ctext *t, const char *p, size_t n);
int oc_ctext_eq(const struct oc_ctext *a, const struct oc_ctext *b);
int oc_ctext_eqs(const struct oc_ctext *a, const char *s, size_t n);
int oc_ctext_empty(const struct oc_ctext *t); /* null or "" */
/* The text quoted for a reason: "\"Hello\"" or "null", cut at 60
 * characters with an ellipsis. */
void oc_ctext_quote(const struct oc_ctext *t, char *out, size_t outlen);

/* A model's content text in step with the reference (oc_cfollow_*, below). */
struct oc_cfollow {
  int on;                 /* still in step */
  long index;             /* the reference choice it follows */
};

/* ---- views ---------------------------------------------------------------- */

struct oc_ccall {
  long key;               /* the model's slot key (an index, a position) */
  int hole;               /* an empty slot of a JS array */
  struct oc_ctext id, name, type;
  struct oc_buf args;     /* the arguments text (OC_CAP_ARGUMENTS) */
  uint64_t args_len;      /* all of it, also past the cap */
  int args_over;
  int args_set;           /* some arguments value arrived */
  int invalid;            /* a parsing client flagged the call invalid */
  char error[80];         /* why (LangChain's "Malformed args.") */
  int seq;                /* arrival order among the calls */
  /* model bookkeeping */
  int finished;           /* ai SDK: the call was closed */
  int fn_seen;            /* a function object arrived */
  int name_null_seen;     /* openai-node-stream: function.name never set */
};

struct oc_cchoice {
  long index;
  int hole;
  struct oc_ctext role, content, refusal, finish;
  struct oc_ccall *calls;
  size_t ncalls, acalls;
  int tool_calls_set;     /* a tool_calls list exists (openai-node-stream: even []) */
  int role_lost;          /* no role because the event that carried it came right after a
                             BOM and was dropped (openai-python): the judge does not take
                             the missing role for "assistant" */
  int function_call;      /* a legacy function_call was seen */
  /* model bookkeeping */
  int pos;                /* first-appearance position */
  long current_call;      /* openai-node-stream: the call being streamed, or LONG_MIN */
  int reasoning_seen;
  struct oc_cfollow follow; /* content in step with the reference */
};

enum oc_cview_kind { OC_CV_ANSWER = 0, OC_CV_ERROR };

#define OC_CAP_CLIENT_MESSAGE (8u << 10)

struct oc_cview {
  enum oc_cview_kind kind;
  char err_name[64];      /* the exception class */
  struct oc_buf err_msg;  /* its message (OC_CAP_CLIENT_MESSAGE) */
  int err_msg_set;        /* the reference: the server gave a message */
  int status;
  char why[160];          /* the reference's error without a message: why */
  struct oc_cchoice *choices;
  size_t nchoices, achoices;
};

void oc_cview_init(struct oc_cview *v);
void oc_cview_free(struct oc_cview *v);
/* Hand src's contents to dst (freed first); src is left empty. */
void oc_cview_move(struct oc_cview *dst, struct oc_cview *src);
/* A deep copy of src into dst (freed first).  OC_OK or OC_ENOMEM. */
int oc_cview_copy(struct oc_cview *dst, const struct oc_cview *src);
/* Turn v into an error of class name with message msg (may be NULL),
 * unless it already is one: the first exception is the one raised. */
void oc_cview_raise(struct oc_cview *v, const char *name, const char *msg, size_t len);
/* Memory running out inside the models must not change a verdict
 * silently: every buffer of theirs is reset and freed through
 * oc_cbuf_reset and oc_cbuf_free (which note a failed add), every
 * JSON text parsed through oc_cjdoc_parse, and every other allocation
 * that fails calls oc_cnote_oom; oc_clients_finish frees the models'
 * state before it hands the verdicts over, and says OC_ENOMEM (through
 * oc_clients_oom) when any of them failed. */
void oc_cnote_oom(void);
/* Where oc_cnote_oom notes for this thread from now on (NULL: nowhere):
 * the typed-protocol models' set (pclient.c) points it at its own flag. */
void oc_cnote_enter(int *sink);
void oc_cbuf_free(struct oc_buf *b);
void oc_cbuf_reset(struct oc_buf *b);
char *oc_cbuf_take(struct oc_buf *b, size_t *len);
int oc_cjdoc_parse(struct oc_jdoc *d, const char *p, size_t n, struct oc_jerr *err);

static inline int oc_cview_raised(const struct oc_cview *v)
{
  return v->kind == OC_CV_ERROR;
}
/* The choice with this index, created at the end (NULL on ENOMEM or past
 * OC_MAX_CHOICES). */
struct oc_cchoice *oc_cview_choice(struct oc_cview *v, long index, int create);
/* A new choice at the end whatever its index (bodies may repeat one). */
struct oc_cchoice *oc_cview_append(struct oc_cview *v, long index);
/* The call with this key in ch, created at the end. */
struct oc_ccall *oc_cchoice_call(struct oc_cchoice *ch, long key, int create);
void oc_ccall_args_add(struct oc_ccall *c, const char *p, size_t n);
/* All the tool-call arguments one view keeps from one exchange: each
 * model's and the reference's, whatever the number of calls. */
#define OC_CAP_CLIENT_ARGS (16u << 20)
/* Add arguments text to b within the view's OC_CAP_CLIENT_ARGS (and b's
 * own cap); on any failure b is freed and the result is not OC_OK.
 * Every buffer of a model's that keeps arguments adds through here. */
int oc_cargs_add(struct oc_buf *b, const char *p, size_t n);
/* Sort a choice's calls by key (stable). */
void oc_cchoice_sort_calls(struct oc_cchoice *ch);
/* Sort choices by index (the reference and the clients that show every
 * choice by its index). */
void oc_cview_sort(struct oc_cview *v);

/* ---- one event, digested once ---------------------------------------------- */

#define OC_CENTRIES 256

/* One element of a chunk's choices array: the members the models read. */
struct oc_centry {
  uint32_t pos;
  int int_index;          /* index is an integer (JavaScript's Number.isInteger) */
  long index_val;         /* its value (|index| < 1e15), else pos */
  const struct oc_jv *v;          /* the element */
  const struct oc_jv *index, *delta, *finish, *usage, *message, *logprobs;
  /* members of delta (or of message for a non-streamed choice) */
  const struct oc_jv *role, *content, *refusal, *tool_calls, *reasoning_content,
    *reasoning, *function_call;
};

struct oc_cevent {
  long n;                 /* 1-based, in WHATWG dispatch order */
  const char *data;
  size_t len;
  const char *type;       /* "message" when none */
  size_t type_len;
  unsigned data_lines;
  uint64_t data_first;
  size_t index;           /* 0-based dispatch count */
  int done;               /* data is exactly [DONE] */
  int done_prefix;        /* data starts with [DONE] */
  int after_done;         /* an event after the first exact [DONE] */
  int bom_line;           /* its first line followed the stream's leading BOM */
  const struct oc_jv *root; /* NULL when the data is not JSON */
  uint64_t shape;         /* root's skeleton (client.h), 0 when not known: a
                             model may decide what depends on member names
                             and structure alone once per shape */
  const struct oc_jv *error, *choices, *object, *usage, *id, *model, *created;
  const struct oc_centry *entries;
  size_t nentries;
};

/* A non-streamed body, digested. */
struct oc_cbody {
  int status;
  const char *media;      /* lower-case media type, "" when none */
  const char *text;       /* the body bytes */
  size_t len;
  const struct oc_jv *root; /* NULL when not JSON */
  const struct oc_jv *error, *choices, *object, *usage, *id, *model, *created;
  const struct oc_centry *entries;
  size_t nentries;
};

/* The members of one choice element into e (delta's for a stream, the
 * message's for a body). */
void oc_centry_digest(struct oc_centry *e, const struct oc_jv *choice, uint32_t pos, int stream);

/* Pseudo-events: the places where a client's decoder dispatches or
 * fails where WHATWG's does not. */
enum oc_cextra_kind {
  OC_CX_FIELDS_NO_DATA = 1, /* a block with fields but no data (detail: its event type) */
  OC_CX_BLANK,              /* a blank line that ended no event (comment-only block, stray) */
  OC_CX_INVALID_UTF8,       /* bytes that are not UTF-8 */
};

struct oc_cextra {
  enum oc_cextra_kind kind;
  uint64_t offset;
  const char *type;       /* FIELDS_NO_DATA: the event type given, "" when none */
  size_t type_len;
  int last_id_set;        /* the stream's last event id is not empty */
  int before_done;        /* no exact [DONE] has been dispatched yet */
};

/* ---- the models ------------------------------------------------------------ */

struct oc_schema_registry;

struct oc_cctx {
  const struct oc_request_info *req;
  struct oc_schema_registry *reg; /* for schemas in the request; may be NULL */
  int status;
  const char *reason;     /* the reason phrase ("" when none) */
  const char *media;      /* lower-case media type of the response */
  int stream;             /* the request's stream is true */
  int decoded_sse;        /* the body was read as an event stream */
  int complete;
  int partial;            /* a cut capture: its end is not the stream's end */
  int oom;
  /* The reference as it stands before the event being fed (client.c
   * applies each event to it after every model saw it), and whether it
   * will take this event's chunk. */
  const struct oc_cview *ref;
  int ref_takes;
};

struct oc_cmodel {
  enum oc_client_id id;
  size_t size;            /* of its state */
  void (*init)(void *st, const struct oc_cctx *cx);
  void (*event)(void *st, const struct oc_cctx *cx, const struct oc_cevent *ev);
  void (*extra)(void *st, const struct oc_cctx *cx, const struct oc_cextra *x);
  void (*body)(void *st, const struct oc_cctx *cx, const struct oc_cbody *b);
  /* The view the application ends up with, and what the model knows
   * about why a break happens (cause, rules). */
  void (*finish)(void *st, const struct oc_cctx *cx, struct oc_cview *got,
                 struct oc_client_verdict *v);
  void (*free)(void *st);
  int after_done;         /* reads events after [DONE] */
};

extern const struct oc_cmodel oc_cmodel_openai_node;
extern const struct oc_cmodel oc_cmodel_openai_node_stream;
extern const struct oc_cmodel oc_cmodel_ai_sdk;
extern const struct oc_cmodel oc_cmodel_langchain;
extern const struct oc_cmodel oc_cmodel_openai_python;
extern const struct oc_cmodel oc_cmodel_openai_python_stream;
extern const struct oc_cmodel oc_cmodel_openai_agents_chat;
/* last year's majors: the same files, a flag in their state */
extern const struct oc_cmodel oc_cmodel_openai_node_6;
extern const struct oc_cmodel oc_cmodel_openai_node_stream_6;
extern const struct oc_cmodel oc_cmodel_ai_sdk_5;
extern const struct oc_cmodel oc_cmodel_langchain_0_6;

/* ---- following the reference -----------------------------------------------
 * A model's content text that is the reference's content of one choice
 * until the two part: while they go in step (one choice per chunk, the
 * same piece) the model hashes nothing, which is what keeps six models
 * cheap on a long stream.  Before touching its text for a chunk a model
 * calls oc_cfollow_chunk with the entry whose content it will append (NULL:
 * none); out of step, the text becomes the reference's as it stood before
 * this chunk and the model goes on alone.  The reference must not change
 * between oc_cfollow_chunk and the end of the event (client.c applies it
 * last). */

/* Start following the reference's choice index, with the model's text
 * empty: in step only if the reference's is empty too. */
void oc_cfollow_init(struct oc_cfollow *f, const struct oc_cctx *cx, long index);
void oc_cfollow_chunk(struct oc_cfollow *f, struct oc_ctext *t, const struct oc_cctx *cx,
                      const struct oc_cevent *ev, const struct oc_centry *e);
/* Leave the reference before touching the text for a chunk in a way
 * oc_cfollow_chunk cannot tell (a refusal read as text): the text becomes
 * the reference's as it stood before this chunk. */
void oc_cfollow_leave(struct oc_cfollow *f, struct oc_ctext *t, const struct oc_cctx *cx);
/* Append as the model does (nothing while in step). */
void oc_cfollow_add(struct oc_cfollow *f, struct oc_ctext *t, const char *p, size_t n);
/* The text the model holds at the end. */
void oc_cfollow_final(const struct oc_cfollow *f, struct oc_ctext *t, const struct oc_cctx *cx);

/* ---- the reference reassembly, shared by the clients whose applications
 * reassemble chunks themselves (openai-node's and openai-python's create) */

struct oc_cacc {
  struct oc_cview view;
};
void oc_cacc_init(struct oc_cacc *a);
/* Add one chunk (a JSON value) the way reference.mjs accumulateChunks does. */
void oc_cacc_chunk(struct oc_cacc *a, const struct oc_cevent *ev, int *oom);
/* The choices of a non-streamed body, the way reference.mjs choiceView does. */
void oc_cacc_body(struct oc_cacc *a, const struct oc_cbody *b, int *oom);
void oc_cacc_free(struct oc_cacc *a);

/* ---- openai's JavaScript SDK (openai-node 7 and 6, and 5 under LangChain 0.6) ------- */

/* What Stream.fromSSEResponse does with the events. */
struct oc_cjs_stream {
  int done;               /* an event starting with [DONE] was seen */
};
/* 1: ev's data is yielded as a chunk; 0: skipped; -1: the stream raised
 * (v holds the error). */
int oc_cjs_stream_event(struct oc_cjs_stream *s, const struct oc_cevent *ev, struct oc_cview *v);
void oc_cjs_stream_extra(struct oc_cjs_stream *s, const struct oc_cextra *x, struct oc_cview *v);
/* The APIError of a response that is not 2xx (makeMessage's text), as
 * openai-node of this major makes it (6 and 5 lose a top-level message
 * that 7 keeps). */
void oc_cjs_http_error(const struct oc_cctx *cx, const struct oc_cbody *b, struct oc_cview *v,
                       int major);
/* JavaScript truthiness of a JSON value (NULL: undefined). */
int oc_js_truthy(const struct oc_jv *v);
/* Does the request offer a tool with function.strict === true (the SDK's
 * hasAutoParseableInput)? */
int oc_cjs_strict_tools(const struct oc_request_info *req);
/* Is the named tool strict? */
int oc_cjs_tool_strict(const struct oc_request_info *req, const char *name, size_t len);

/* ---- openai-python 1.x ------------------------------------------------------------------ */

#define OC_CPY_LOST_ROLES 8
struct oc_cpy_stream {
  int done;               /* an event starting with [DONE] was seen: iteration stopped */
  /* the choices whose role came in the event the leading BOM made
   * unreadable: the application never gets it (measured, SDK 1.109) */
  long lost_role[OC_CPY_LOST_ROLES];
  size_t nlost_role;
};
int oc_cpy_stream_event(struct oc_cpy_stream *s, const struct oc_cevent *ev, struct oc_cview *v);
/* Mark the choices of got that have no role because the BOM ate the event
 * that carried it (struct oc_cchoice.role_lost). */
void oc_cpy_mark_lost_roles(const struct oc_cpy_stream *s, struct oc_cview *got);
void oc_cpy_stream_extra(struct oc_cpy_stream *s, const struct oc_cextra *x, struct oc_cview *v);
/* APIStatusError for a response that is not 2xx; *retried says whether
 * the SDK retried it twice first (408, 409, 429, 5xx). */
void oc_cpy_http_error(const struct oc_cctx *cx, const struct oc_cbody *b, struct oc_cview *v,
                       int *retried);
/* Python truthiness of a JSON value. */
int oc_py_truthy(const struct oc_jv *v);
/* parse()'s checks of a structured answer as a pydantic model of the
 * request's schema would do them (lax mode: "36" for an integer is
 * coerced, extra members ignored): 0 valid, else why into why. */
int oc_cpy_validate_content(const struct oc_cctx *cx, const char *p, size_t n, char *why,
                            size_t whylen);
/* Does the request use parse() (a json_schema response_format)? */
int oc_cpy_uses_parse(const struct oc_request_info *req);
/* parse()'s refusal of tools that are not strict: the name of the first,
 * or NULL. */
const char *oc_cpy_nonstrict_tool(const struct oc_request_info *req);

/* ---- the judge --------------------------------------------------------------- */

enum oc_cargs { OC_CARGS_STRING = 0, OC_CARGS_PARSED };

struct oc_ccaps {
  int all_choices;        /* shows every choice (else: one message, compared with the first) */
  int role;               /* a role reaches the application */
  enum oc_cargs args;
  int valid_first;        /* parsed calls come before the invalid ones (LangChain) */
  int ai_finish;          /* finish reasons mapped onto the ai SDK's enum */
  int no_finish;          /* no finish reason reaches the application (the Agents SDK) */
};

/* Where the first difference is. */
enum oc_cdiff {
  OC_DIFF_NONE = 0,
  OC_DIFF_LOST_MESSAGE,   /* an error whose message the client lost */
  OC_DIFF_NO_ERROR,       /* an error the client returned as an answer */
  OC_DIFF_RAISED,         /* an exception on a valid answer */
  OC_DIFF_CHOICES,
  OC_DIFF_ROLE,
  OC_DIFF_CONTENT,
  OC_DIFF_REFUSAL,
  OC_DIFF_CALLS,
  OC_DIFF_FINISH
};

/* Outcome, works and reason of got against ref (judge.mjs's rules); the
 * kind of the first difference. */
enum oc_cdiff oc_client_judge(const struct oc_ccaps *caps, const struct oc_cview *ref,
                              const struct oc_cview *got, struct oc_client_verdict *v);
/* keepsMessage: does got contain want (whitespace runs collapsed), or
 * want's JSON form? */
int oc_client_keeps_message(const char *got, size_t glen, const char *want, size_t wlen);

/* ---- how the libraries write values ------------------------------------------ */

/* JSON.stringify of a parsed value (JavaScript's number formatting). */
int oc_js_stringify(struct oc_buf *b, const struct oc_jv *v);
/* JavaScript's String(number). */
void oc_js_number(double d, char *out, size_t outlen);
/* JavaScript's String(value) for what `+` does with it. */
int oc_js_string(struct oc_buf *b, const struct oc_jv *v);
/* Python's repr() of json.loads' result. */
int oc_py_repr(struct oc_buf *b, const struct oc_jv *v);
/* The message an error body yields in reference.mjs (errorMessageOf):
 * error.message, LiteLLM's object message, a string error, message, a
 * string detail; NULL when none.  *alloc is set when the result must be
 * freed. */
char *oc_client_error_message(const struct oc_jv *v, size_t *len);
/* Does text parse as one JSON object? */
int oc_client_is_json_object(const char *p, size_t n);
/* LangChain's parsePartialJson: JSON.parse, else close what is open and
 * try again.  The text that parses into out (caller's buffer), or -1 when
 * nothing does. */
int oc_client_partial_json(const char *p, size_t n, struct oc_buf *out);
/* Secure-JSON-parse's refusal of __proto__ and constructor.prototype. */
int oc_client_json_forbidden(const struct oc_jv *v);
/* The reason phrase libmicrohttpd sends for a status (what fetch's
 * statusText shows through `oacheck serve`), or "" when unknown. */
const char *oc_client_status_text(int status);
/* A bounded copy of a verdict reason. */
void oc_client_reason(struct oc_client_verdict *v, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));
void oc_client_add_rule(struct oc_client_verdict *v, enum oc_rule_id r);

#endif
