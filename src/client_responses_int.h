/* client_responses_int.h — what the Responses API's client models share
 * (client_responses*.c): the view an application ends up with (the text of
 * the message items, the function calls, the Response's status, or an
 * exception), the reference's view of the exchange, and the judge that
 * compares the two exactly as tests/node/oracle/responses-judge.mjs does.
 * Texts are struct oc_ctext (length, hash, head): a view has a fixed size
 * whatever the stream. */
#ifndef OC_CLIENT_RESPONSES_INT_H
#define OC_CLIENT_RESPONSES_INT_H

#include "client_int.h"
#include "pclient.h"

/* Calls a view keeps; past it the count still counts. */
#define OC_RCALLS 16

struct oc_rcall {
  struct oc_ctext name, call_id, args;
  int args_object;        /* the arguments parse as one JSON object */
  int invalid;            /* a parsing client flagged the call invalid */
};

struct oc_rview {
  enum oc_cview_kind kind;
  char err_name[48];
  struct oc_buf msg;      /* its message (OC_CAP_CLIENT_MESSAGE) */
  int msg_set;            /* the reference: the server gave a message */
  struct oc_ctext text;
  struct oc_rcall calls[OC_RCALLS];
  size_t ncalls;          /* all of them, also past OC_RCALLS */
  char status[24];        /* "" when no Response reached the application */
  int message_item;       /* a message item is in the output (the Agents SDK's final output) */
};

void oc_rview_init(struct oc_rview *v);
void oc_rview_free(struct oc_rview *v);
/* Make v an exception of class name with message msg (NULL: none); the
 * first one stays. */
void oc_rview_raise(struct oc_rview *v, const char *name, const char *msg, size_t len);
/* v's answer from a Response's output list and status (both may be NULL). */
void oc_rview_output(struct oc_rview *v, const struct oc_jv *output, const struct oc_jv *status);
/* Add one output item (a message's text, a function call). */
void oc_rview_item(struct oc_rview *v, const struct oc_jv *item);
void oc_rview_status(struct oc_rview *v, const struct oc_jv *status);
/* Copy the reference's answer (not its exception). */
void oc_rview_copy_answer(struct oc_rview *dst, const struct oc_rview *src);

/* The reference's view at finish (pclient.c finishes it first). */
const struct oc_rview *oc_rref_view(const struct oc_pctx *cx);
/* The response's `type` member compared with s. */
int oc_rtype_is(const struct oc_pevent *ev, const char *s);

/* An error body (status >= 400) as openai-node's APIError has it. */
void oc_rjs_http_error(const struct oc_pctx *cx, const char *text, size_t len, const struct oc_jv *root,
                       struct oc_rview *v);

/* What openai-node's Stream does with one event before the application
 * sees it: v raises on data that is not JSON, an `event: error` block, a
 * truthy top-level `error` (client_responses_openai_node.c). */
void oc_rjs_stream_event(struct oc_rview *v, const struct oc_pevent *ev);

enum {
  OC_RJ_PARSES = 1,       /* the client parses arguments (invalid ones flagged) */
  OC_RJ_STATUS = 2        /* the client shows the Response's status */
};
void oc_responses_judge(unsigned flags, const struct oc_rview *ref, const struct oc_rview *got,
                        struct oc_client_verdict *v);

extern const struct oc_pmodel oc_rmodel_openai_node;
extern const struct oc_pmodel oc_rmodel_openai_node_stream;
extern const struct oc_pmodel oc_rmodel_ai_sdk;
extern const struct oc_pmodel oc_rmodel_openai_agents;

#endif
