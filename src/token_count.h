/* token_count.h — the count contract of the Messages and Responses APIs:
 * a case's request counted by its protocol's counting endpoint
 * (POST /v1/messages/count_tokens, POST /v1/responses/input_tokens) must
 * give the input its own answer reports (Messages: usage.input_tokens +
 * cache_read_input_tokens + cache_creation_input_tokens; Responses:
 * usage.input_tokens).  Here: the counting request made from the case's,
 * the two numbers read, and the verdict (MESSAGES-COUNT-TOKENS,
 * RESPONSES-INPUT-TOKENS) naming both numbers and the parts of the request
 * a count may leave out.  Sending the count is the runner's job (a case
 * with expect.count_tokens); no I/O here. */
#ifndef OC_TOKEN_COUNT_H
#define OC_TOKEN_COUNT_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "request.h"
#include "rules.h"

/* The counting request for a request of api to path with body: *cpath
 * the counting endpoint (the query kept: `/v1/messages?beta=true` →
 * `/v1/messages/count_tokens?beta=true`), *cbody the body with only the
 * members the counting endpoint takes (Messages: model, messages,
 * system, tools, tool_choice, thinking, mcp_servers; Responses: model,
 * input, instructions, tools, tool_choice, parallel_tool_calls,
 * previous_response_id, reasoning, text, conversation, truncation), as
 * compact JSON.  Caller frees both.  OC_OK; OC_ENOTFOUND when api has no
 * counting endpoint or body is no object; OC_ENOMEM. */
int oc_count_request(enum oc_api api, const char *path, const cJSON *body, char **cpath,
                     char **cbody);

/* The input an answer (a Message or Response, the body or the one rebuilt
 * from a stream) reports, or -1 when its usage does not say; how (may be
 * NULL) gets the sum spelt out ("input_tokens 12 + cache_read_input_tokens
 * 40 + cache_creation_input_tokens 0"). */
long oc_count_answered(enum oc_api api, const cJSON *answer, char *how, size_t howlen);

/* A counting endpoint's answer's input_tokens (an integer), or -1. */
long oc_count_parse(const char *body, size_t len);

/* What a request holds beside its plain text turns that a count may
 * leave out ("system, tools, thinking blocks, tool_use blocks"), "" for
 * none. */
void oc_count_parts(enum oc_api api, const cJSON *body, char *out, size_t outlen);

/* The verdict on one case: the count request went to cpath and was
 * answered status with body (status 0: no answer, err says why);
 * answered is oc_count_answered's value (with how) for the case's own
 * answer; req the case's request body.  Emits the api's count rule when
 * the endpoint is missing (404, 405), fails, gives no integer, or gives
 * another number than the answer. */
void oc_count_judge(struct oc_check *c, enum oc_api api, const char *cpath, int status,
                    const char *body, size_t len, const char *err, long answered,
                    const char *how, const cJSON *req);

#endif
