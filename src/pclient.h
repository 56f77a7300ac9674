/* pclient.h — client models of the typed-event protocols (the Responses
 * API, Anthropic's Messages API): what an application using a library of
 * that protocol ends up with for one exchange, as client.h's verdicts.
 *
 * Chat Completions' models (client_int.h) share a view built for chat's
 * choices; a Responses answer is output items and a Messages answer content
 * blocks, so each of these protocols has its own family here: the
 * reference reassembly its models are judged against (what a correct
 * client hands over, as the oracle's reference for that protocol does) and
 * its list of models, one file per library.  client.c hands a request of
 * such a protocol to its family (oc_pfamily_of) and never looks inside;
 * the stream decoders (responses.c, messages.c) feed every event to
 * oc_clients_event as chat.c does.
 *
 * A family with no model for a client leaves it unmodelled: no verdict, out
 * of every report, which is what a client without a verified model should
 * be. */
#ifndef OC_PCLIENT_H
#define OC_PCLIENT_H

#include <stddef.h>

#include "client.h"
#include "jdoc.h"
#include "request.h"

/* What every model of one exchange can read. */
struct oc_pctx {
  const struct oc_request_info *req;
  int status;             /* 0 until the head arrived */
  const char *media;      /* lower-case media type, "" when none */
  int stream;             /* the request asked for a stream */
  int complete;           /* 0: the transport cut the body (finish only) */
  int partial;            /* a capture cut by whoever made it: judge what arrived */
  int oom;                /* memory ran out in a model or the reference */
  const void *ref;        /* the family's reference, as it stands before the event being fed */
};

/* One dispatched event of a 2xx body read as an event stream. */
struct oc_pevent {
  long n;                 /* 1-based, in dispatch order */
  const char *name;       /* the event: field ("message" when none, WHATWG) */
  size_t name_len;
  int named;              /* an event: field was given */
  const char *data;
  size_t len;
  uint64_t first_byte;    /* of its block in the body */
  const struct oc_jv *root; /* the data parsed, NULL when it is not JSON */
  const char *type;       /* root's "type" when a string, else NULL */
  size_t type_len;
};

struct oc_pmodel {
  enum oc_client_id id;
  size_t size;            /* of its state (zeroed before init) */
  void (*init)(void *st, const struct oc_pctx *cx);
  void (*event)(void *st, const struct oc_pctx *cx, const struct oc_pevent *ev);
  /* The whole body of a response not read as an event stream (an error, a
   * non-streamed answer); root NULL when it is not JSON. */
  void (*body)(void *st, const struct oc_pctx *cx, const char *text, size_t len,
               const struct oc_jv *root);
  /* The verdict (outcome ok / works 1 / cause none on entry): the model
   * compares what its application got with cx->ref and fills v. */
  void (*finish)(void *st, const struct oc_pctx *cx, struct oc_client_verdict *v);
  void (*free)(void *st);
};

/* One protocol's models and their reference. */
struct oc_pfamily {
  enum oc_api api;
  size_t ref_size;
  /* the reference: fed after every model saw the event or body */
  void (*ref_init)(void *ref, const struct oc_pctx *cx);
  void (*ref_event)(void *ref, const struct oc_pctx *cx, const struct oc_pevent *ev);
  void (*ref_body)(void *ref, const struct oc_pctx *cx, const char *text, size_t len,
                   const struct oc_jv *root);
  void (*ref_finish)(void *ref, const struct oc_pctx *cx); /* before the models' finish */
  void (*ref_free)(void *ref);
  const struct oc_pmodel *const *models;
  size_t nmodels;
};

extern const struct oc_pfamily oc_pfamily_responses; /* client_responses.c */
extern const struct oc_pfamily oc_pfamily_messages;  /* client_messages.c */

/* The family of a request's protocol, or NULL (chat has client_int.h). */
const struct oc_pfamily *oc_pfamily_of(enum oc_api api);

/* ---- the set of one exchange (client.c delegates to it) ---------------- */

struct oc_pclients;

/* NULL when memory runs out; modelled as oc_clients_new's. */
struct oc_pclients *oc_pclients_new(const struct oc_pfamily *fam, const struct oc_request_info *req,
                                    unsigned modelled);
void oc_pclients_free(struct oc_pclients *ps);
void oc_pclients_set_partial(struct oc_pclients *ps, int partial);
void oc_pclients_head(struct oc_pclients *ps, int status, const char *media);
/* ev is the parser's event, root its data parsed (NULL when not JSON). */
struct oc_sse_event;
void oc_pclients_event(struct oc_pclients *ps, const struct oc_sse_event *ev,
                       const struct oc_jv *root);
int oc_pclients_body(struct oc_pclients *ps, const char *body, size_t len);
/* out[OC_CLIENT__COUNT]: the family's models' verdicts (the others untouched). */
void oc_pclients_finish(struct oc_pclients *ps, int complete, struct oc_client_verdict *out);
int oc_pclients_oom(const struct oc_pclients *ps);

#endif
