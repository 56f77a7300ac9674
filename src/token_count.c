/* token_count.c — the count contract (token_count.h): the counting
 * request made from a case's Messages or Responses request, the numbers
 * of both answers, and the verdict.  The runner sends the count and hands
 * both answers here. */
#include "config.h"
#include "token_count.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"

static const char *const messages_keys[] = { "model", "messages", "system", "tools",
                                             "tool_choice", "thinking", "mcp_servers" };
static const char *const responses_keys[] = { "model", "input", "instructions", "tools",
                                              "tool_choice", "parallel_tool_calls",
                                              "previous_response_id", "reasoning", "text",
                                              "conversation", "truncation" };

int oc_count_request(enum oc_api api, const char *path, const cJSON *body, char **cpath,
                     char **cbody)
{
  *cpath = NULL;
  *cbody = NULL;
  const char *const *keys;
  size_t nkeys;
  const char *endpoint;
  if(api == OC_API_MESSAGES) {
    keys = messages_keys;
    nkeys = OC_ARRAY_LEN(messages_keys);
    endpoint = "/count_tokens";
  }
  else if(api == OC_API_RESPONSES) {
    keys = responses_keys;
    nkeys = OC_ARRAY_LEN(responses_keys);
    endpoint = "/input_tokens";
  }
  else
    return OC_ENOTFOUND;
  if(!path || !cJSON_IsObject(body))
    return OC_ENOTFOUND;
  /* the endpoint goes before the query, which stays (Claude Code's ?beta=true) */
  size_t n = strcspn(path, "?");
  while(n > 1 && path[n - 1] == '/')
    n--;
  *cpath = oc_asprintf("%.*s%s%s", (int)n, path, endpoint, path + strcspn(path, "?"));
  int oom = !*cpath;
  cJSON *o = cJSON_CreateObject();
  oom |= !o;
  for(size_t i = 0; i < nkeys && !oom; i++) {
    const cJSON *v = oc_json_get(body, keys[i]);
    if(v)
      oc_json_put(&oom, o, keys[i], cJSON_Duplicate(v, 1));
  }
  if(!oom && !(*cbody = oc_json_print(o)))
    oom = 1;
  cJSON_Delete(o);
  if(oom) {
    free(*cpath);
    free(*cbody);
    *cpath = *cbody = NULL;
    return OC_ENOMEM;
  }
  return OC_OK;
}

/* A usage member as a count: a non-negative integer, else -1. */
static long count_of(const cJSON *usage, const char *name)
{
  const cJSON *v = oc_json_get(usage, name);
  if(!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1e15 ||
     floor(v->valuedouble) != v->valuedouble)
    return -1;
  return (long)v->valuedouble;
}

long oc_count_answered(enum oc_api api, const cJSON *answer, char *how, size_t howlen)
{
  if(how && howlen)
    how[0] = '\0';
  const cJSON *usage = oc_json_obj(answer, "usage");
  long in = count_of(usage, "input_tokens");
  if(in < 0)
    return -1;
  if(api != OC_API_MESSAGES) {
    if(how)
      snprintf(how, howlen, "usage.input_tokens %ld", in);
    return in;
  }
  /* a cached prefix is left out of input_tokens: the input is the three */
  long rd = count_of(usage, "cache_read_input_tokens");
  long cr = count_of(usage, "cache_creation_input_tokens");
  long sum = in + (rd > 0 ? rd : 0) + (cr > 0 ? cr : 0);
  if(how)
    snprintf(how, howlen, "input_tokens %ld + cache_read_input_tokens %ld + "
             "cache_creation_input_tokens %ld", in, rd > 0 ? rd : 0, cr > 0 ? cr : 0);
  return sum;
}

long oc_count_parse(const char *body, size_t len)
{
  if(!body)
    return -1;
  cJSON *doc = oc_json_parse(body, len, NULL);
  long n = count_of(doc, "input_tokens");
  cJSON_Delete(doc);
  return n;
}

/* The kinds of content blocks (Messages) or input items (Responses) of a
 * request, a bit each, for what a count may leave out. */
enum {
  P_SYSTEM = 1u << 0,
  P_TOOLS = 1u << 1,
  P_THINKING = 1u << 2,
  P_TOOL_USE = 1u << 3,
  P_TOOL_RESULT = 1u << 4,
  P_IMAGE = 1u << 5,
  P_INSTRUCTIONS = 1u << 6,
  P_REASONING = 1u << 7,
  P_CALL = 1u << 8,
  P_CALL_OUTPUT = 1u << 9,
  P_SYSTEM_ITEM = 1u << 10
};

static unsigned block_kind(const char *type)
{
  if(!type)
    return 0;
  if(strcmp(type, "thinking") == 0 || strcmp(type, "redacted_thinking") == 0)
    return P_THINKING;
  if(strcmp(type, "tool_use") == 0)
    return P_TOOL_USE;
  if(strcmp(type, "tool_result") == 0)
    return P_TOOL_RESULT;
  if(strcmp(type, "image") == 0 || strcmp(type, "input_image") == 0 ||
     strcmp(type, "document") == 0)
    return P_IMAGE;
  if(strcmp(type, "reasoning") == 0)
    return P_REASONING;
  if(strcmp(type, "function_call") == 0)
    return P_CALL;
  if(strcmp(type, "function_call_output") == 0)
    return P_CALL_OUTPUT;
  return 0;
}

static unsigned parts_of(enum oc_api api, const cJSON *body)
{
  unsigned p = 0;
  const cJSON *tools = oc_json_arr(body, "tools");
  if(tools && cJSON_GetArraySize(tools) > 0)
    p |= P_TOOLS;
  const cJSON *it;
  if(api == OC_API_MESSAGES) {
    const cJSON *sys = oc_json_get(body, "system");
    if((cJSON_IsString(sys) && sys->valuestring[0]) || (cJSON_IsArray(sys) && cJSON_GetArraySize(sys)))
      p |= P_SYSTEM;
    cJSON_ArrayForEach(it, oc_json_arr(body, "messages")) {
      if(oc_streq(oc_json_str(it, "role"), "system"))
        p |= P_SYSTEM_ITEM;
      const cJSON *b;
      cJSON_ArrayForEach(b, oc_json_arr(it, "content"))
        p |= block_kind(oc_json_str(b, "type"));
    }
    return p;
  }
  if(oc_json_str(body, "instructions"))
    p |= P_INSTRUCTIONS;
  cJSON_ArrayForEach(it, oc_json_arr(body, "input")) {
    const char *role = oc_json_str(it, "role");
    if(oc_streq(role, "system") || oc_streq(role, "developer"))
      p |= P_SYSTEM_ITEM;
    p |= block_kind(oc_json_str(it, "type"));
    const cJSON *b;
    cJSON_ArrayForEach(b, oc_json_arr(it, "content"))
      p |= block_kind(oc_json_str(b, "type"));
  }
  return p;
}

void oc_count_parts(enum oc_api api, const cJSON *body, char *out, size_t outlen)
{
  static const struct {
    unsigned bit;
    const char *name;
  } names[] = {
    { P_SYSTEM, "the system prompt" },     { P_INSTRUCTIONS, "instructions" },
    { P_SYSTEM_ITEM, "system items" },     { P_TOOLS, "tools" },
    { P_THINKING, "thinking blocks" },     { P_REASONING, "reasoning items" },
    { P_TOOL_USE, "tool_use blocks" },     { P_TOOL_RESULT, "tool_result blocks" },
    { P_CALL, "function_call items" },    { P_CALL_OUTPUT, "function_call_output items" },
    { P_IMAGE, "images or documents" },
  };
  unsigned p = parts_of(api, body);
  size_t k = 0, count = 0, total = 0;
  for(size_t i = 0; i < OC_ARRAY_LEN(names); i++)
    total += (p & names[i].bit) != 0;
  if(outlen)
    out[0] = '\0';
  for(size_t i = 0; i < OC_ARRAY_LEN(names) && k < outlen; i++) {
    if(!(p & names[i].bit))
      continue;
    count++;
    int w = snprintf(out + k, outlen - k, "%s%s", count == 1 ? "" : count == total ? " and " : ", ",
                     names[i].name);
    if(w < 0)
      break;
    k += (size_t)w;
  }
}

void oc_count_judge(struct oc_check *c, enum oc_api api, const char *cpath, int status,
                    const char *body, size_t len, const char *err, long answered,
                    const char *how, const cJSON *req)
{
  enum oc_rule_id rule = api == OC_API_MESSAGES ? OC_R_MESSAGES_COUNT_TOKENS
                                                : OC_R_RESPONSES_INPUT_TOKENS;
  char parts[300], exp[32], act[32];
  oc_count_parts(api, req, parts, sizeof(parts));
  if(answered >= 0)
    snprintf(exp, sizeof(exp), "%ld", answered);
  else
    oc_strlcpy(exp, "a count", sizeof(exp));
  if(!status) {
    oc_emit(c, rule, OC_AT(.expected = exp, .actual = "no answer"),
            "POST %s for this request got no answer: %s", cpath, err && *err ? err : "unknown");
    return;
  }
  if(status == 404 || status == 405) {
    snprintf(act, sizeof(act), "HTTP %d", status);
    oc_emit(c, rule, OC_AT(.expected = exp, .actual = act),
            "the server does not count tokens: POST %s answered HTTP %d, so a client cannot "
            "tell how much of the context this request takes (its answer reports %s)",
            cpath, status, answered >= 0 ? exp : "no input either");
    return;
  }
  if(status < 200 || status >= 300) {
    snprintf(act, sizeof(act), "HTTP %d", status);
    oc_emit(c, rule, OC_AT(.expected = exp, .actual = act),
            "POST %s refused to count the request its endpoint answered: HTTP %d%s%s", cpath,
            status, parts[0] ? "; it holds " : "", parts);
    return;
  }
  long counted = oc_count_parse(body, len);
  if(counted < 0) {
    oc_emit(c, rule, OC_AT(.path = "/input_tokens", .expected = "an integer input_tokens",
                           .actual = "none"),
            "POST %s answered without an integer input_tokens", cpath);
    return;
  }
  if(answered < 0 || counted == answered)
    return;
  snprintf(act, sizeof(act), "%ld", counted);
  long d = counted > answered ? counted - answered : answered - counted;
  oc_emit(c, rule, OC_AT(.path = "/input_tokens", .expected = exp, .actual = act),
          "POST %s counted %ld input tokens for this request, its answer reports %ld (%s): "
          "%ld %s%s%s%s",
          cpath, counted, answered, how && *how ? how : "usage", d,
          counted < answered ? "fewer" : "more",
          parts[0] ? "; the request holds " : "", parts,
          parts[0] ? (counted < answered ? ", which the count may leave out"
                                         : ", which the count may count twice or render otherwise")
                   : "");
}
