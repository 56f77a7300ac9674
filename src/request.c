/* request.c — reading what a request asked for.  Only the fields that
 * change what a conforming response looks like are extracted. */
#include "config.h"
#include "request.h"

#include <string.h>

#include "json.h"
#include "util.h"

enum oc_api oc_api_from_path(const char *path)
{
  if(!path)
    return OC_API_OTHER;
  /* ignore a query string */
  size_t n = strcspn(path, "?");
  char p[256];
  if(n >= sizeof(p))
    return OC_API_OTHER;
  memcpy(p, path, n);
  p[n] = '\0';
  const char *q = p;
  if(oc_startswith(q, "/v1/"))
    q += 3;
  if(strcmp(q, "/chat/completions") == 0)
    return OC_API_CHAT;
  if(strcmp(q, "/completions") == 0)
    return OC_API_COMPLETIONS;
  if(strcmp(q, "/models") == 0)
    return OC_API_MODELS;
  if(strcmp(q, "/embeddings") == 0)
    return OC_API_EMBEDDINGS;
  if(strcmp(q, "/responses") == 0)
    return OC_API_RESPONSES;
  if(strcmp(q, "/responses/input_tokens") == 0)
    return OC_API_RESPONSES_INPUT_TOKENS;
  if(strcmp(q, "/messages") == 0)
    return OC_API_MESSAGES;
  if(strcmp(q, "/messages/count_tokens") == 0)
    return OC_API_MESSAGES_COUNT_TOKENS;
  return OC_API_OTHER;
}

int oc_api_streams(enum oc_api api)
{
  return api == OC_API_CHAT || api == OC_API_COMPLETIONS || api == OC_API_RESPONSES ||
         api == OC_API_MESSAGES;
}

/* What the request says about thinking: the controls llama-server,
 * vLLM, SGLang, Ollama and DeepSeek read (research: reasoning.md, section
 * 1), and whether history carries reasoning back. */
static void thinking_controls(struct oc_request_info *info, const cJSON *body)
{
  const cJSON *ro = oc_json_obj(body, "reasoning"); /* Ollama's and OpenRouter's object form */
  if(oc_streq(oc_json_str(body, "reasoning_effort"), "none"))
    info->thinking_off = "reasoning_effort \"none\"";
  else if(ro && oc_streq(oc_json_str(ro, "effort"), "none"))
    info->thinking_off = "reasoning.effort \"none\"";
  const cJSON *kw = oc_json_obj(body, "chat_template_kwargs");
  if(kw && cJSON_IsFalse(oc_json_get(kw, "enable_thinking")))
    info->thinking_off = "chat_template_kwargs.enable_thinking false";
  const cJSON *th = oc_json_obj(body, "thinking");
  if(th && oc_streq(oc_json_str(th, "type"), "disabled"))
    info->thinking_off = "thinking.type \"disabled\"";
  const cJSON *msgs = oc_json_arr(body, "messages");
  int i = 0;
  for(const cJSON *m = msgs ? msgs->child : NULL; m; m = m->next, i++)
    if(oc_streq(oc_json_str(m, "role"), "assistant") &&
       (oc_json_get(m, "reasoning_content") || oc_json_get(m, "reasoning"))) {
      info->history_reasoning_at = i;
      break;
    }
}

void oc_request_info_init(struct oc_request_info *info, const char *method, const char *path,
                          const cJSON *body)
{
  memset(info, 0, sizeof(*info));
  info->method = method;
  info->path = path;
  info->api = oc_api_from_path(path);
  info->n = 1;
  info->parallel_tool_calls = -1;
  info->max_tokens = -1;
  info->history_reasoning_at = -1;
  info->store = -1;
  if(!cJSON_IsObject(body))
    return;
  info->body = body;
  info->body_is_json = 1;
  info->stream = oc_json_bool(body, "stream", 0);
  const cJSON *so = oc_json_obj(body, "stream_options");
  info->include_usage = so ? oc_json_bool(so, "include_usage", 0) : 0;
  const cJSON *n = oc_json_get(body, "n");
  if(oc_json_is_integer(n) && n->valuedouble >= 1 && n->valuedouble <= 128)
    info->n = (int)n->valuedouble;
  const cJSON *mt = oc_json_get(body, "max_completion_tokens");
  if(!oc_json_is_integer(mt) && info->api == OC_API_RESPONSES)
    mt = oc_json_get(body, "max_output_tokens");
  if(!oc_json_is_integer(mt))
    mt = oc_json_get(body, "max_tokens");
  if(oc_json_is_integer(mt) && mt->valuedouble >= 0 && mt->valuedouble < 1e12)
    info->max_tokens = (long)mt->valuedouble;
  const cJSON *tools = oc_json_arr(body, "tools");
  if(tools && cJSON_GetArraySize(tools) > 0) {
    info->tools = tools;
    info->ntools = cJSON_GetArraySize(tools);
  }
  const cJSON *tc = oc_json_get(body, "tool_choice");
  if(cJSON_IsString(tc)) {
    if(strcmp(tc->valuestring, "auto") == 0)
      info->tool_choice = OC_TOOL_CHOICE_AUTO;
    else if(strcmp(tc->valuestring, "none") == 0)
      info->tool_choice = OC_TOOL_CHOICE_NONE;
    else if(strcmp(tc->valuestring, "required") == 0)
      info->tool_choice = OC_TOOL_CHOICE_REQUIRED;
  }
  else if(cJSON_IsObject(tc) && info->api == OC_API_MESSAGES) {
    /* Anthropic's {"type": "auto" | "any" | "none" | "tool", "name"?,
     * "disable_parallel_tool_use"?} */
    const char *t = oc_json_str(tc, "type");
    if(oc_streq(t, "auto"))
      info->tool_choice = OC_TOOL_CHOICE_AUTO;
    else if(oc_streq(t, "any"))
      info->tool_choice = OC_TOOL_CHOICE_REQUIRED;
    else if(oc_streq(t, "none"))
      info->tool_choice = OC_TOOL_CHOICE_NONE;
    else if(oc_streq(t, "tool") && oc_json_str(tc, "name")) {
      info->tool_choice = OC_TOOL_CHOICE_NAMED;
      info->named_tool = oc_json_str(tc, "name");
    }
    if(cJSON_IsTrue(oc_json_get(tc, "disable_parallel_tool_use")))
      info->parallel_tool_calls = 0;
  }
  else if(cJSON_IsObject(tc)) {
    const cJSON *fn = oc_json_obj(tc, "function");
    const char *name = fn ? oc_json_str(fn, "name") : NULL;
    /* the Responses API's {"type": "function", "name": …} */
    if(!name && oc_streq(oc_json_str(tc, "type"), "function"))
      name = oc_json_str(tc, "name");
    if(name) {
      info->tool_choice = OC_TOOL_CHOICE_NAMED;
      info->named_tool = name;
    }
  }
  const cJSON *ptc = oc_json_get(body, "parallel_tool_calls");
  if(cJSON_IsBool(ptc) && info->api != OC_API_MESSAGES)
    info->parallel_tool_calls = cJSON_IsTrue(ptc);
  const cJSON *rf = oc_json_obj(body, "response_format");
  /* the Responses API's text.format: {"type": "json_schema", "name", "schema"} */
  const cJSON *tf = oc_json_obj(oc_json_obj(body, "text"), "format");
  if(!rf && tf && info->api == OC_API_RESPONSES)
    rf = tf;
  const char *rft = rf ? oc_json_str(rf, "type") : NULL;
  if(oc_streq(rft, "json_object"))
    info->format = OC_FORMAT_JSON_OBJECT;
  else if(oc_streq(rft, "json_schema")) {
    info->format = OC_FORMAT_JSON_SCHEMA;
    const cJSON *js = oc_json_obj(rf, "json_schema");
    info->format_schema = js ? oc_json_get(js, "schema") : oc_json_get(rf, "schema");
  }
  info->previous_response_id = oc_json_str(body, "previous_response_id");
  const cJSON *store = oc_json_get(body, "store");
  if(cJSON_IsBool(store))
    info->store = cJSON_IsTrue(store);
  if(info->api == OC_API_MESSAGES || info->api == OC_API_MESSAGES_COUNT_TOKENS) {
    info->stop_sequences = oc_json_arr(body, "stop_sequences");
    const cJSON *th = oc_json_obj(body, "thinking");
    info->thinking_enabled = th && oc_streq(oc_json_str(th, "type"), "enabled");
    info->has_messages = oc_json_arr(body, "messages") != NULL;
  }
  thinking_controls(info, body);
}

static const cJSON *tool_function(const cJSON *tool)
{
  const cJSON *fn = oc_json_obj(tool, "function");
  /* the Responses API's function tool carries name and parameters itself */
  if(!fn && oc_streq(oc_json_str(tool, "type"), "function") && oc_json_str(tool, "name"))
    fn = tool;
  /* Anthropic's tool: {name, description?, input_schema} */
  if(!fn && oc_json_str(tool, "name") && oc_json_obj(tool, "input_schema"))
    fn = tool;
  return fn;
}

const cJSON *oc_request_tool_parameters(const struct oc_request_info *info, const char *name)
{
  const cJSON *t;
  if(!info->tools || !name)
    return NULL;
  cJSON_ArrayForEach(t, info->tools)
  {
    const cJSON *fn = tool_function(t);
    if(fn && oc_streq(oc_json_str(fn, "name"), name))
      return fn == t && oc_json_obj(t, "input_schema") ? oc_json_get(t, "input_schema")
                                                       : oc_json_get(fn, "parameters");
  }
  return NULL;
}

int oc_request_has_tool(const struct oc_request_info *info, const char *name)
{
  const cJSON *t;
  if(!info->tools || !name)
    return 0;
  cJSON_ArrayForEach(t, info->tools)
  {
    const cJSON *fn = tool_function(t);
    if(fn && oc_streq(oc_json_str(fn, "name"), name))
      return 1;
  }
  return 0;
}
