/* message.h — an assistant message as a client ends up with it (content,
 * reasoning, refusal, tool calls, finish_reason), whether it was rebuilt
 * from stream deltas (chat.c) or read from a non-streamed body; and the
 * message-level rules that apply to both: tool calls, structured output,
 * template-token leaks, finish reasons.  Stream framing rules are chat.c's;
 * HTTP and error-body rules are response.c's. */
#ifndef OC_MESSAGE_H
#define OC_MESSAGE_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "jdoc.h"
#include "reasoning.h"
#include "request.h"
#include "rules.h"
#include "util.h"

struct oc_schema_registry;

/* A response with more choices, or a message with more tool calls, than
 * any real client handles is hostile or runaway: the rest are not read
 * (CHAT-SIZE says so), so neither time nor memory grows with them. */
#define OC_MAX_CHOICES 128
#define OC_MAX_TOOL_CALLS 128

struct oc_tool_call {
  long index;             /* stream index, or position in the array */
  char *id;               /* NULL when never sent */
  char *type;
  char *name;
  struct oc_buf args;     /* concatenated arguments (capped OC_CAP_ARGUMENTS) */
  int args_seen;          /* some arguments value arrived */
  int args_not_string;    /* an arguments value was not a string (first seen as actual) */
  char *args_actual_type; /* the JSON type it had */
  int args_overflow;      /* the cap was hit */
  long first_chunk;       /* 1-based event of its first fragment, -1 for a body */
  int64_t first_byte;     /* body offset of its first fragment / of the call */
  uint32_t first_pos;     /* its first fragment's place in that chunk's tool_calls (the path) */
  int64_t args_byte;      /* body offset of the arguments value (non-stream) */
  size_t fragments;
};

struct oc_message {
  int index;              /* choice index */
  char *role;
  int role_null;          /* role was present but null */
  struct oc_buf content;
  int content_seen;       /* content was a string at least once */
  int content_null;       /* content is null/absent */
  struct oc_buf reasoning; /* reasoning_content or reasoning */
  const char *reasoning_field; /* which field carried reasoning, static */
  struct oc_reasoning_trace rtrace; /* where reasoning came, and what was wrong with it */
  struct oc_buf refusal;
  int refusal_seen;
  struct oc_tool_call *calls;
  size_t ncalls;
  size_t acalls;
  int tool_calls_empty_array; /* "tool_calls": [] was seen */
  char *finish_reason;    /* NULL until a non-null one arrives */
  long finish_chunk;      /* 1-based event, -1 */
  int64_t content_byte;   /* non-stream: body offset of content, -1 */
  int64_t finish_byte;
  int streamed;
  int overflow;           /* a content/reasoning cap was hit */
  size_t calls_dropped;   /* tool calls beyond OC_MAX_TOOL_CALLS, not read */
};

/* Fill *m as empty; cannot fail. */
void oc_message_init(struct oc_message *m, int index, int streamed);
void oc_message_free(struct oc_message *m);
/* The tool call with this stream index, created when absent; NULL on ENOMEM. */
struct oc_tool_call *oc_message_call(struct oc_message *m, long index, int create);

/* Fill *m from one element of a non-streamed response's choices (a chat
 * completion's message, or a legacy completion's text).  Returns OC_OK or
 * OC_ENOMEM; shape problems are left to the schema rule. */
int oc_message_from_choice(struct oc_message *m, const struct oc_jv *choice, enum oc_api api);

/* The message as JSON, shaped like a non-streamed choice's message plus
 * finish_reason: {"role","content","reasoning_content"?,"refusal"?,
 * "tool_calls"?,"finish_reason"}.  Caller deletes. */
cJSON *oc_message_to_json(const struct oc_message *m);

/* Apply the message-level rules.  base is the JSON-pointer prefix of the
 * message for findings ("/choices/0/message" or "/choices/0/delta").
 * reg (may be NULL) compiles tool parameter and response_format schemas. */
void oc_message_check(struct oc_check *c, const struct oc_request_info *req,
                      const struct oc_message *m, struct oc_schema_registry *reg);

/* Chat-template control tokens that must never reach content; the first
 * one found in s, or NULL. */
const char *oc_message_find_template_token(const char *s, size_t len);
/* Tool-call markup in text: a marker of tool_markers.def or of the
 * target's own template (d, may be NULL), or a JSON object naming an
 * offered tool; describes what was found in out, naming field ("content",
 * "reasoning") as where. */
int oc_message_find_tool_markup(const struct oc_request_info *req, const struct oc_dialect *d,
                                const char *s, size_t len, const char *field, char *out,
                                size_t outlen);

#endif
