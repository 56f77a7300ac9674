/* chat_body.h — Chat Completions' non-streamed bodies (chat_body.c). */
#ifndef OC_CHAT_BODY_H
#define OC_CHAT_BODY_H

#include "jdoc.h"

struct oc_check;
struct oc_response;
struct oc_request_info;

/* Rules on the status alone: a conversation that carries reasoning back
 * refused. */
void oc_chat_check_head(struct oc_check *c, const struct oc_request_info *req, int status);

/* A 2xx JSON body of chat's endpoints (completions, models, embeddings). */
void oc_chat_check_body(struct oc_response *r, const struct oc_jv *root);

#endif
