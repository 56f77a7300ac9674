/* client.h — "will my client work?": models of seven real client libraries
 * (openai-node's create() and its stream helper, the ai SDK, LangChain,
 * openai-python's create() and its stream helper, the Agents SDK on Chat
 * Completions), and of last year's majors of four where they differ
 * (openai-node 6 both ways, ai 5, LangChain 0.6), each predicting what
 * an application using it ends up with for one exchange: the answer it
 * should get (ok), an exception (raises) or a wrong answer (wrong), with
 * a one-line reason.  They are fed as the response is decoded (chat.c
 * pushes every event, response.c the status and the non-streamed body),
 * keep bounded state, and are judged against a spec-following reassembly
 * of the same exchange (the reference).  The Node models are verified
 * against the real clients (tests/e2e/client-oracle.sh); the Python ones
 * are emulated from openai-python's published behaviour.  What a break
 * means for the case (the verdict policy) is response.c's business; how
 * each model works is docs/clients.md. */
#ifndef OC_CLIENT_H
#define OC_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "agent.h"
#include "headers.h"
#include "jdoc.h"
#include "request.h"
#include "rule_id.h"
#include "sse.h"

/* Append only: the order is the order of every report. */
enum oc_client_id {
  OC_CLIENT_OPENAI_NODE = 0,
  OC_CLIENT_OPENAI_NODE_STREAM,
  OC_CLIENT_AI_SDK,
  OC_CLIENT_LANGCHAIN,
  OC_CLIENT_OPENAI_PYTHON,
  OC_CLIENT_OPENAI_PYTHON_STREAM,
  OC_CLIENT_OPENAI_AGENTS_CHAT,
  OC_CLIENT__TODAY,       /* the clients above: today's majors */
  /* Last year's majors, kept where each behaves differently from its
   * successor (docs/clients.md): modelled only when --clients names them */
  OC_CLIENT_OPENAI_NODE_6 = OC_CLIENT__TODAY,
  OC_CLIENT_OPENAI_NODE_STREAM_6,
  OC_CLIENT_AI_SDK_5,
  OC_CLIENT_LANGCHAIN_0_6,
  OC_CLIENT__CHAT,        /* the clients above speak Chat Completions */
  /* The Responses API's clients (client_responses*.c, pclient.h) */
  OC_CLIENT_OPENAI_NODE_RESPONSES = OC_CLIENT__CHAT, /* responses.create(), iterated */
  OC_CLIENT_OPENAI_NODE_RESPONSES_STREAM,            /* responses.stream() + finalResponse() */
  OC_CLIENT_AI_SDK_RESPONSES,                        /* ai 7 with @ai-sdk/openai's Responses model */
  OC_CLIENT_OPENAI_AGENTS,                           /* the Agents SDK's default (Responses) model */
  OC_CLIENT__RESPONSES,
  /* Anthropic's Messages API's clients (client_messages*.c) */
  OC_CLIENT_ANTHROPIC = OC_CLIENT__RESPONSES,        /* @anthropic-ai/sdk messages.create() */
  OC_CLIENT_ANTHROPIC_STREAM,                        /* messages.stream() + finalMessage() */
  OC_CLIENT_AI_SDK_ANTHROPIC,                        /* ai 7 with @ai-sdk/anthropic */
  OC_CLIENT_LANGCHAIN_ANTHROPIC,                     /* @langchain/anthropic */
  OC_CLIENT__COUNT
};
#define OC_CLIENTS_RANGE(from, to) (((1u << (to)) - 1u) & ~((1u << (from)) - 1u))
/* Each protocol's clients. */
#define OC_CLIENTS_CHAT OC_CLIENTS_RANGE(0, OC_CLIENT__CHAT)
#define OC_CLIENTS_RESPONSES OC_CLIENTS_RANGE(OC_CLIENT__CHAT, OC_CLIENT__RESPONSES)
#define OC_CLIENTS_MESSAGES OC_CLIENTS_RANGE(OC_CLIENT__RESPONSES, OC_CLIENT__COUNT)
/* Today's majors: modelled in every run. */
#define OC_CLIENTS_TODAY (OC_CLIENTS_RANGE(0, OC_CLIENT__TODAY) | OC_CLIENTS_RESPONSES | OC_CLIENTS_MESSAGES)
/* Every client model there is. */
#define OC_CLIENTS_EVERY ((1u << OC_CLIENT__COUNT) - 1u)
/* The agents (agent.h) share the selection, a bit each from bit 24: a
 * break of a selected agent fails a case as a client's does. */
#define OC_CLIENTS_AGENT_BIT 24
#define OC_CLIENTS_AGENT(a) (1u << (OC_CLIENTS_AGENT_BIT + (a)))
#define OC_CLIENTS_AGENTS (((1u << OC_AGENT__COUNT) - 1u) << OC_CLIENTS_AGENT_BIT)
/* What the default and "all" select: today's clients and every agent. */
#define OC_CLIENTS_DEFAULT (OC_CLIENTS_TODAY | OC_CLIENTS_AGENTS)
/* The client models that run for a selection: today's, and any other it
 * names. */
#define OC_CLIENTS_MODELLED(selected) (OC_CLIENTS_TODAY | ((selected) & OC_CLIENTS_EVERY))

enum oc_client_outcome {
  OC_CO_OK = 0,           /* the application gets the answer (or the server's error) */
  OC_CO_RAISES,           /* an exception reaches the application */
  OC_CO_WRONG,            /* a result that differs from what the server sent */
  OC_CO_NOT_EXERCISED     /* this client does not make this kind of request */
};

enum oc_client_basis {
  OC_BASIS_VERIFIED = 0,  /* checked against the real client on every recording */
  OC_BASIS_EMULATED       /* built from the library's published behaviour */
};

/* What a break comes from.  A break caused by a feature of the request or
 * of a legitimate answer that OpenAI's own answers break the same client
 * on is that client's limitation, not the server's fault (oc_client_limitation). */
enum oc_client_cause {
  OC_CAUSE_NONE = 0,
  OC_CAUSE_SERVER,        /* something the server sent */
  OC_CAUSE_N,             /* several choices in one answer (n > 1) */
  OC_CAUSE_LENGTH,        /* finish_reason "length": max_tokens was hit */
  OC_CAUSE_CONTENT_FILTER,/* finish_reason "content_filter" */
  OC_CAUSE_REFUSAL,       /* the answer is a refusal */
  OC_CAUSE_REQUEST        /* the client refuses the request before sending it */
};

/* What the application can read of the first choice's reasoning, against
 * the reasoning the server sent in either field (docs/clients.md). */
enum oc_client_reasoning {
  OC_CR_NA = 0,           /* no answer reached the application */
  OC_CR_NONE,             /* none sent, none shown */
  OC_CR_SEEN,             /* all of it */
  OC_CR_PARTIAL,          /* some, not all (openai-node's stream helper: the last fragment) */
  OC_CR_HIDDEN,           /* sent, not shown (the field the client does not read) */
  OC_CR_EXTRA             /* shown where the reference has none */
};
/* "none", "seen", …; NULL for OC_CR_NA. */
const char *oc_client_reasoning_name(enum oc_client_reasoning r);

#define OC_CLIENT_REASON 240
#define OC_CLIENT_MAX_RULES 4

struct oc_client_verdict {
  enum oc_client_outcome outcome;
  int works;              /* what the application sees is right; -1 not exercised */
  int limitation;         /* a break OpenAI's own answers cause in this client too */
  enum oc_client_cause cause;
  /* the catalogue rules that name what the server did to cause a break */
  enum oc_rule_id rules[OC_CLIENT_MAX_RULES];
  size_t nrules;
  char reason[OC_CLIENT_REASON];
  /* ok, and faithful to what the server sent, but that leaves the
   * application with a silently incomplete or unusable answer (a stream
   * ended with no finish_reason, tool-call arguments that are not a JSON
   * object): the server's fault, said in reason, its rule in rules */
  int server_fault;
  /* beside the outcome, never changing it */
  enum oc_client_reasoning reasoning;
  int reasoning_leak;     /* think/harmony markup in the answer text; -1 no answer */
  int modelled;           /* 0: the model did not run (a previous major nobody selected): no
                             verdict, left out of every report */
};

/* "openai-node", …, "openai-node@6"; static storage. */
const char *oc_client_name(enum oc_client_id c);
/* The short name of a matrix column ("node", "node@6"); static storage. */
const char *oc_client_short_name(enum oc_client_id c);
/* The protocol it speaks: "chat", "responses" or "messages". */
const char *oc_client_protocol(enum oc_client_id c);
/* The clients of a request's protocol (OC_CLIENTS_CHAT, …; 0 for an
 * endpoint no client model reads). */
unsigned oc_clients_of_api(enum oc_api api);
enum oc_client_basis oc_client_basis(enum oc_client_id c);
const char *oc_client_basis_name(enum oc_client_basis b); /* "verified" / "emulated" */
const char *oc_client_outcome_name(enum oc_client_outcome o); /* "ok", "raises", … */
const char *oc_client_cause_name(enum oc_client_cause c);     /* "n>1", "length", … */
/* A client by name; -1 when unknown. */
int oc_client_find(const char *name);
/* "a,b,c" (or "all": today's majors and the agents, or "none": no
 * client's break fails a case) into a bit set of clients (an agent's
 * name: OC_CLIENTS_AGENT).  Unknown names are an error naming them, with
 * the list of known ones. */
int oc_clients_parse(const char *list, unsigned *mask, char *err, size_t errlen);
/* Does this verdict break the application (works false)? */
int oc_client_broken(const struct oc_client_verdict *v);
/* Is it ok but left the application an answer the server cut or made
 * unusable (server_fault)? */
int oc_client_server_fault(const struct oc_client_verdict *v);

/* One entry of the limitation table: a client that breaks, for this
 * cause, on OpenAI's own answer too.  evidence names the recording of
 * tests/data/recordings/openai that shows it (check_clients runs the
 * model on it), or is NULL where the break is the SDK's documented
 * behaviour for a finish_reason OpenAI documents but no recording has. */
struct oc_client_limitation {
  enum oc_client_id client;
  enum oc_client_cause cause;
  const char *evidence;
  const char *what;       /* one line for the matrix */
};
extern const struct oc_client_limitation oc_client_limitations[];
extern const size_t oc_client_nlimitations;
const struct oc_client_limitation *oc_client_limitation(enum oc_client_id c,
                                                        enum oc_client_cause cause);

/* ---- feeding the models ------------------------------------------------ */

struct oc_clients;

struct oc_schema_registry;

/* The models for one exchange of req (borrowed, must outlive them); reg
 * (may be NULL) compiles the request's response_format schema for the
 * clients that validate structured answers; modelled (a bit per client,
 * OC_CLIENTS_MODELLED) says which models run: the others' verdicts have
 * modelled 0.  NULL when memory runs out. */
struct oc_clients *oc_clients_new(const struct oc_request_info *req, struct oc_schema_registry *reg,
                                  unsigned modelled);
void oc_clients_free(struct oc_clients *cs);
/* The body is a capture cut short by whoever made it (struct
 * oc_check.partial): the models judge what arrived, not how it ends. */
void oc_clients_set_partial(struct oc_clients *cs, int partial);
/* The response head (status line and headers; copied what is needed). */
void oc_clients_head(struct oc_clients *cs, int status, const char *reason,
                     const struct oc_headers *headers);
/* One dispatched event of a 2xx body decoded as an event stream, in
 * order, with its data parsed (root, NULL when the data is not JSON), the
 * hash of root's skeleton (chat.c's chunk-shape memo: every member name
 * and every value but the free text; 0 when not known), and
 * whether it comes after the first exact [DONE] (chat.c parses those too,
 * for the clients that read past it).  Borrowed for the call only. */
void oc_clients_event(struct oc_clients *cs, const struct oc_sse_event *ev,
                      const struct oc_jv *root, uint64_t shape, const struct oc_sse_parser *sse);
/* The parser's observations that some clients' decoders treat otherwise
 * (a leading BOM, a block without data, a blank line that ends no event,
 * bytes that are not UTF-8). */
void oc_clients_sse_issue(struct oc_clients *cs, const struct oc_sse_issue *is,
                          const struct oc_sse_parser *sse);
/* Do the models want events after [DONE] parsed? */
int oc_clients_want_after_done(const struct oc_clients *cs);
/* The whole body of a response that was not decoded as a stream (an error,
 * a non-streamed completion, or a stream sent with another Content-Type:
 * the models then decode it as their clients do). */
int oc_clients_body(struct oc_clients *cs, const char *body, size_t len);
/* The exchange ended; complete is 0 when the transport cut it.  Every
 * model's verdict into out[OC_CLIENT__COUNT]. */
void oc_clients_finish(struct oc_clients *cs, int complete, struct oc_client_verdict *out);
/* Did memory run out somewhere (verdicts may then be incomplete)? */
int oc_clients_oom(const struct oc_clients *cs);

#endif
