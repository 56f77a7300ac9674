/* conversation.c — the request-side and cross-turn rules the proxy
 * applies to a real client's traffic (conversation.h).  The checks read
 * the client's own JSON; what the server answered comes in as plain
 * values, so every check is testable without a socket. */
#include "config.h"
#include "conversation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"

void oc_conversation_init(struct oc_conversation *cv)
{
  memset(cv, 0, sizeof(*cv));
  pthread_mutex_init(&cv->lock, NULL);
}

void oc_conversation_free(struct oc_conversation *cv)
{
  for(size_t i = 0; i < OC_CONV_IDS; i++)
    free(cv->ids[i]);
  pthread_mutex_destroy(&cv->lock);
  memset(cv->ids, 0, sizeof(cv->ids));
}

static void learn_id(struct oc_conversation *cv, const char *id)
{
  if(!id || !*id || oc_conversation_issued(cv, id))
    return;
  char *copy = oc_strdup(id);
  if(!copy)
    return; /* forgetting an id only costs a finding later */
  pthread_mutex_lock(&cv->lock);
  free(cv->ids[cv->next]);
  cv->ids[cv->next] = copy;
  cv->next = (cv->next + 1) % OC_CONV_IDS;
  if(cv->count < OC_CONV_IDS)
    cv->count++;
  pthread_mutex_unlock(&cv->lock);
}

/* Every "tool_calls" array under v (a message, a choice, or a whole
 * answer with "choices"). */
static void learn_from(struct oc_conversation *cv, const cJSON *v, int depth)
{
  if(!v || depth > 4)
    return;
  const cJSON *calls = oc_json_arr(v, "tool_calls");
  const cJSON *call;
  cJSON_ArrayForEach(call, calls)
    learn_id(cv, oc_json_str(call, "id"));
  const cJSON *choice;
  cJSON_ArrayForEach(choice, oc_json_arr(v, "choices"))
    learn_from(cv, choice, depth + 1);
  learn_from(cv, oc_json_obj(v, "message"), depth + 1);
}

void oc_conversation_learn(struct oc_conversation *cv, const cJSON *message)
{
  learn_from(cv, message, 0);
}

int oc_conversation_issued(struct oc_conversation *cv, const char *id)
{
  int found = 0;
  pthread_mutex_lock(&cv->lock);
  for(size_t i = 0; i < OC_CONV_IDS && !found; i++)
    found = cv->ids[i] && strcmp(cv->ids[i], id) == 0;
  pthread_mutex_unlock(&cv->lock);
  return found;
}

/* ---- the request ----------------------------------------------------------------- */

static int known_role(const char *r)
{
  static const char *const roles[] = { "system", "developer", "user", "assistant", "tool", "function" };
  for(size_t i = 0; r && i < OC_ARRAY_LEN(roles); i++)
    if(strcmp(r, roles[i]) == 0)
      return 1;
  return 0;
}

/* Is id among the assistant tool calls of messages[0..upto)? */
static int answers_earlier_call(const cJSON *messages, int upto, const char *id)
{
  int i = 0;
  const cJSON *m;
  cJSON_ArrayForEach(m, messages)
  {
    if(i++ >= upto)
      break;
    const cJSON *call;
    cJSON_ArrayForEach(call, oc_json_arr(m, "tool_calls"))
      if(oc_streq(oc_json_str(call, "id"), id))
        return 1;
  }
  return 0;
}

static void check_tool_calls(struct oc_check *c, const cJSON *m, int i)
{
  int k = 0;
  const cJSON *call;
  cJSON_ArrayForEach(call, oc_json_arr(m, "tool_calls"))
  {
    const cJSON *args = oc_json_get(oc_json_obj(call, "function"), "arguments");
    if(args && !cJSON_IsString(args)) {
      char path[96];
      snprintf(path, sizeof(path), "/messages/%d/tool_calls/%d/function/arguments", i, k);
      oc_emit(c, OC_R_REQUEST_TOOL_ARGS_STRING,
              OC_AT(.path = path, .expected = "a string holding JSON", .actual = oc_json_type_name(args)),
              "message %d sends tool call %d's arguments back as %s, not as the string the server "
              "sent", i, k, oc_json_type_name(args));
    }
    k++;
  }
}

void oc_conversation_check_request(struct oc_check *c, const cJSON *body, long n_ctx,
                                   long prompt_tokens)
{
  if(!cJSON_IsObject(body))
    return;
  const cJSON *messages = oc_json_arr(body, "messages");
  int i = 0;
  const cJSON *m;
  char path[96];
  cJSON_ArrayForEach(m, messages)
  {
    const char *role = oc_json_str(m, "role");
    if(!known_role(role)) {
      snprintf(path, sizeof(path), "/messages/%d/role", i);
      oc_emit(c, OC_R_REQUEST_ROLE,
              OC_AT(.path = path, .expected = "system, developer, user, assistant or tool",
                    .actual = role ? role : "none"),
              "message %d has the role '%.60s', which chat templates drop or refuse", i,
              role ? role : "(none)");
    }
    if(oc_streq(role, "assistant"))
      check_tool_calls(c, m, i);
    if(oc_streq(role, "tool")) {
      const char *id = oc_json_str(m, "tool_call_id");
      snprintf(path, sizeof(path), "/messages/%d/tool_call_id", i);
      if(!id)
        oc_emit(c, OC_R_REQUEST_TOOL_RESULT_ID,
                OC_AT(.path = path, .expected = "the id of an earlier tool call", .actual = "none"),
                "tool message %d has no tool_call_id: the server cannot tell which call it answers",
                i);
      else if(!answers_earlier_call(messages, i, id))
        oc_emit(c, OC_R_REQUEST_TOOL_RESULT_ID,
                OC_AT(.path = path, .expected = "the id of an earlier tool call", .actual = id),
                "tool message %d answers '%.80s', which no earlier assistant message called", i, id);
    }
    i++;
  }
  const cJSON *so = oc_json_get(body, "stream_options");
  if(so && !cJSON_IsNull(so) && !cJSON_IsTrue(oc_json_get(body, "stream")))
    oc_emit(c, OC_R_REQUEST_STREAM_OPTIONS,
            OC_AT(.path = "/stream_options", .expected = "stream: true", .actual = "not streaming"),
            "stream_options is sent without stream: true (OpenAI answers 400; other servers "
            "ignore it)");
  if(n_ctx > 0 && prompt_tokens >= n_ctx) {
    char exp[48], act[48];
    snprintf(exp, sizeof(exp), "under %ld tokens", n_ctx);
    snprintf(act, sizeof(act), "%ld tokens", prompt_tokens);
    oc_emit(c, OC_R_REQUEST_CONTEXT, OC_AT(.path = "/messages", .expected = exp, .actual = act),
            "the conversation is %ld tokens, the target's context %ld: the client must shorten it "
            "before sending", prompt_tokens, n_ctx);
  }
}

/* ---- across turns ---------------------------------------------------------------- */

/* Does the error text say that an id was refused? ("Tool call IDs should
 * be alphanumeric strings with length 9!", "invalid tool_call_id …") */
static int mentions_id(const char *msg)
{
  static const char *const words[] = { "tool call id", "tool_call_id", "tool call ids", " id ",
                                       " ids ", "call id" };
  if(!msg)
    return 0;
  char low[512];
  size_t n = 0;
  low[n++] = ' ';
  for(const char *p = msg; *p && n + 2 < sizeof(low); p++)
    low[n++] = (char)((*p >= 'A' && *p <= 'Z') ? *p + 32 : (*p == '!' || *p == '.' || *p == ',' ||
                                                           *p == ':' ? ' ' : *p));
  low[n++] = ' ';
  low[n] = '\0';
  for(size_t i = 0; i < OC_ARRAY_LEN(words); i++)
    if(strstr(low, words[i]))
      return 1;
  return 0;
}

void oc_conversation_check_answer(struct oc_conversation *cv, struct oc_check *c,
                                  const cJSON *body, int status, const char *error_message)
{
  if(status < 400 || !mentions_id(error_message))
    return;
  int i = 0;
  const cJSON *m;
  cJSON_ArrayForEach(m, oc_json_arr(body, "messages"))
  {
    int k = 0;
    const cJSON *call;
    cJSON_ArrayForEach(call, oc_json_arr(m, "tool_calls"))
    {
      const char *id = oc_json_str(call, "id");
      if(id && oc_conversation_issued(cv, id)) {
        char path[96], act[64];
        snprintf(path, sizeof(path), "/messages/%d/tool_calls/%d/id", i, k);
        snprintf(act, sizeof(act), "HTTP %d", status);
        oc_emit(c, OC_R_CONV_TOOL_ID_REJECTED,
                OC_AT(.path = path, .expected = "the server accepts its own ids", .actual = act),
                "the server issued the tool-call id '%.80s', and refused it when the conversation "
                "came back: %.200s", id, error_message);
        return;
      }
      k++;
    }
    i++;
  }
}

int oc_conversation_has_tool_result(const cJSON *body)
{
  const cJSON *m;
  cJSON_ArrayForEach(m, oc_json_arr(body, "messages"))
    if(oc_streq(oc_json_str(m, "role"), "tool"))
      return 1;
  return 0;
}

/* The text of a message's content: a string, or the text parts of an
 * array of parts, joined; caller frees. */
static char *content_text(const cJSON *m)
{
  const cJSON *content = oc_json_get(m, "content");
  if(cJSON_IsString(content))
    return oc_strdup(content->valuestring);
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_CONTENT);
  const cJSON *part, *parts = cJSON_IsArray(content) ? content : NULL;
  cJSON_ArrayForEach(part, parts)
  {
    const char *t = oc_json_str(part, "text");
    if(t && (oc_buf_adds(&b, t) || oc_buf_addc(&b, '\n')))
      break;
  }
  char *s = oc_buf_take(&b, NULL);
  return s;
}

/* The first value of v (a JSON tool result) that the prompt lacks: every
 * string of two or more bytes and every number must appear, in whatever
 * quoting the template gave the whole (JSON encoded twice keeps them). */
static const cJSON *missing_value(const cJSON *v, const char *prompt, int depth)
{
  if(depth > 32)
    return NULL;
  if(cJSON_IsString(v))
    return strlen(v->valuestring) >= 2 && !strstr(prompt, v->valuestring) ? v : NULL;
  if(cJSON_IsNumber(v)) {
    char num[64];
    snprintf(num, sizeof(num), "%.15g", v->valuedouble);
    return strstr(prompt, num) ? NULL : v;
  }
  const cJSON *it, *children = (cJSON_IsArray(v) || cJSON_IsObject(v)) ? v : NULL;
  cJSON_ArrayForEach(it, children)
  {
    const cJSON *miss = missing_value(it, prompt, depth + 1);
    if(miss)
      return miss;
  }
  return NULL;
}

void oc_conversation_check_prompt(struct oc_check *c, const cJSON *body, const char *prompt)
{
  if(!prompt)
    return;
  int i = 0;
  const cJSON *m;
  cJSON_ArrayForEach(m, oc_json_arr(body, "messages"))
  {
    if(oc_streq(oc_json_str(m, "role"), "tool")) {
      char *text = content_text(m);
      const char *missing = NULL;
      char num[64];
      cJSON *parsed = text ? cJSON_Parse(text) : NULL;
      if(parsed && (cJSON_IsObject(parsed) || cJSON_IsArray(parsed))) {
        const cJSON *miss = missing_value(parsed, prompt, 0);
        if(miss && cJSON_IsString(miss))
          missing = miss->valuestring;
        else if(miss) {
          snprintf(num, sizeof(num), "%.15g", miss->valuedouble);
          missing = num;
        }
      }
      else if(text && *text && !strstr(prompt, text))
        missing = text;
      if(missing) {
        char path[64];
        snprintf(path, sizeof(path), "/messages/%d/content", i);
        oc_emit(c, OC_R_CONV_TOOL_RESULT_DROPPED,
                OC_AT(.path = path, .expected = missing, .actual = "absent from the prompt"),
                "the tool result of message %d does not reach the model: the target's template "
                "rendered a prompt without '%.80s'", i, missing);
      }
      cJSON_Delete(parsed);
      free(text);
    }
    i++;
  }
}
