/* request.h — what a request asked for, as the rules need to know it:
 * streaming, usage, tools and tool_choice, n, response_format.  Derived
 * once from the request body; the checks read this instead of digging in
 * JSON.  Building and sending requests is suite.c's and http.c's job. */
#ifndef OC_REQUEST_H
#define OC_REQUEST_H

#include <cjson/cJSON.h>

enum oc_api {
  OC_API_OTHER = 0,     /* /health, /props, ... */
  OC_API_CHAT,          /* /v1/chat/completions */
  OC_API_COMPLETIONS,   /* legacy /v1/completions */
  OC_API_MODELS,        /* /v1/models */
  OC_API_EMBEDDINGS,
  OC_API_RESPONSES,     /* /v1/responses (the Responses API, responses.c) */
  OC_API_RESPONSES_INPUT_TOKENS, /* /v1/responses/input_tokens */
  OC_API_MESSAGES,      /* /v1/messages (Anthropic's Messages API, messages.c) */
  OC_API_MESSAGES_COUNT_TOKENS /* /v1/messages/count_tokens */
};

enum oc_tool_choice {
  OC_TOOL_CHOICE_UNSET = 0, /* not given: auto when tools are offered */
  OC_TOOL_CHOICE_AUTO,
  OC_TOOL_CHOICE_NONE,
  OC_TOOL_CHOICE_REQUIRED,
  OC_TOOL_CHOICE_NAMED
};

enum oc_response_format {
  OC_FORMAT_TEXT = 0,
  OC_FORMAT_JSON_OBJECT,
  OC_FORMAT_JSON_SCHEMA
};

struct oc_request_info {
  enum oc_api api;
  const char *method;       /* borrowed */
  const char *path;         /* borrowed */
  const cJSON *body;        /* borrowed; NULL when absent or not JSON */
  int body_is_json;         /* the request body parsed as JSON */
  int stream;
  int include_usage;        /* stream_options.include_usage */
  int n;                    /* 1 unless given */
  const cJSON *tools;       /* the tools array, borrowed, or NULL */
  int ntools;
  enum oc_tool_choice tool_choice;
  const char *named_tool;   /* with OC_TOOL_CHOICE_NAMED */
  int parallel_tool_calls;  /* -1 unset, 0 false, 1 true */
  enum oc_response_format format;
  const cJSON *format_schema; /* json_schema.schema, borrowed */
  long max_tokens;          /* -1 unset (max_tokens or max_completion_tokens) */
  /* Thinking turned off by the request: reasoning_effort "none",
   * chat_template_kwargs.enable_thinking false, or DeepSeek's
   * thinking {"type": "disabled"}; the name of the control that did it
   * (static), NULL when thinking was left on or to the server. */
  const char *thinking_off;
  /* The request sends back an assistant turn carrying reasoning
   * (reasoning_content or reasoning, null included): the index in
   * messages of the first, -1 when none. */
  int history_reasoning_at;
  /* The Responses API (OC_API_RESPONSES): the tools, tool_choice,
   * parallel_tool_calls, text.format (into format / format_schema) and
   * max_output_tokens (into max_tokens) above, and these: */
  const char *previous_response_id; /* borrowed, NULL when not given */
  int store;                /* -1 unset, 0 false, 1 true */
  /* Anthropic's Messages API (OC_API_MESSAGES): tools (input_schema),
   * tool_choice (auto / any -> REQUIRED / {"type":"tool","name"} / none),
   * disable_parallel_tool_use (into parallel_tool_calls 0) and max_tokens
   * above, and these: */
  const cJSON *stop_sequences; /* the stop_sequences array, borrowed, or NULL */
  int thinking_enabled;     /* thinking {"type": "enabled"} */
  int has_messages;         /* a messages array was sent */
};

/* Fill *info from a request.  body may be NULL (GET) or not JSON; the
 * info then says so.  Borrowed pointers live as long as body. */
void oc_request_info_init(struct oc_request_info *info, const char *method, const char *path,
                          const cJSON *body);
/* The parameters schema of a tool by name, or NULL.  Tools in chat's
 * shape ({"type":"function","function":{name, parameters}}) and in the
 * Responses API's ({"type":"function",name, parameters}) both count. */
const cJSON *oc_request_tool_parameters(const struct oc_request_info *info, const char *name);
/* Was a tool of this name offered? */
int oc_request_has_tool(const struct oc_request_info *info, const char *name);
/* Classify a path ("/v1/chat/completions", "/chat/completions", ...). */
enum oc_api oc_api_from_path(const char *path);
/* Does the endpoint answer with an event stream when asked (chat, legacy
 * completions, responses, messages)? */
int oc_api_streams(enum oc_api api);

#endif
