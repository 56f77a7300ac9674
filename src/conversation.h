/* conversation.h — what only a proxy can see: the requests a real client
 * sends (roles, tool results that answer no call, arguments sent back as
 * objects, stream_options without stream, a conversation over the
 * target's context) and the conversation across turns (a tool-call id the
 * server issued and its own template then refuses; a tool result the
 * template drops).  Pure checks over JSON; no I/O: proxy.c feeds them the
 * exchanges and renders the prompts when the target can. */
#ifndef OC_CONVERSATION_H
#define OC_CONVERSATION_H

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stddef.h>

#include "rules.h"

/* The tool-call ids a server issued, remembered across exchanges so that
 * a later request echoing one can be recognised.  Bounded: the oldest id
 * is forgotten first.  Thread-safe (the proxy's connections share one). */
#define OC_CONV_IDS 4096

struct oc_conversation {
  pthread_mutex_t lock;
  char *ids[OC_CONV_IDS];    /* ring of ids, each owned */
  size_t next;               /* where the next id goes */
  size_t count;
};

void oc_conversation_init(struct oc_conversation *cv);
void oc_conversation_free(struct oc_conversation *cv);
/* Remember every tool-call id of an answer: message (a rebuilt or
 * non-streamed assistant message as oc_response_json gives it: an object
 * with "choices", or one choice's message) is borrowed. */
void oc_conversation_learn(struct oc_conversation *cv, const cJSON *message);
/* Did this server issue id? */
int oc_conversation_issued(struct oc_conversation *cv, const char *id);

/* The request-side rules on a client's chat request body (borrowed).
 * n_ctx > 0 with prompt_tokens >= 0 (the target's own count of this
 * request's prompt, when it could give one) judges the context. */
void oc_conversation_check_request(struct oc_check *c, const cJSON *body, long n_ctx,
                                   long prompt_tokens);

/* After the answer: an error answer (status >= 400, message the server's
 * error text) to a request that echoes ids this server issued, when the
 * message says the id was refused (CONV-TOOL-ID-REJECTED). */
void oc_conversation_check_answer(struct oc_conversation *cv, struct oc_check *c,
                                  const cJSON *body, int status, const char *error_message);

/* The prompt the target's template made of body's messages (POST
 * /apply-template): every tool message's content must appear in it —
 * its text, or for JSON content every string and number value
 * (CONV-TOOL-RESULT-DROPPED). */
void oc_conversation_check_prompt(struct oc_check *c, const cJSON *body, const char *prompt);

/* Does body hold a tool message (worth rendering the prompt for)? */
int oc_conversation_has_tool_result(const cJSON *body);

#endif
