/* expect.c — case expectations.  The order matters: an answer that the
 * case declares as "unsupported" skips everything else; an expected error
 * or overflow replaces the plain status check; assertions run on the body
 * or on the message rebuilt from the stream. */
#include "config.h"
#include "expect.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "regex.h"
#include "schema.h"
#include "util.h"

static int status_item_matches(const cJSON *it, int status)
{
  if(cJSON_IsNumber(it))
    return (int)it->valuedouble == status;
  if(cJSON_IsString(it) && strlen(it->valuestring) == 3 && it->valuestring[1] == 'x')
    return status / 100 == it->valuestring[0] - '0';
  return 0;
}

int oc_expect_status_matches(const cJSON *spec, int status)
{
  if(!spec)
    return status == 200;
  if(cJSON_IsArray(spec)) {
    const cJSON *it;
    cJSON_ArrayForEach(it, spec)
    {
      if(status_item_matches(it, status))
        return 1;
    }
    return 0;
  }
  return status_item_matches(spec, status);
}

static char *status_text(const cJSON *spec)
{
  if(!spec)
    return oc_strdup("200");
  if(cJSON_IsString(spec))
    return oc_strdup(spec->valuestring);
  return oc_json_print(spec);
}

static const char *error_message(const struct oc_response *r)
{
  const cJSON *err = oc_json_get(r->parsed, "error");
  const char *m = oc_json_str(err, "message");
  if(!m)
    m = oc_json_str(r->parsed, "error"); /* {"error": "text"} */
  if(!m)
    m = oc_json_str(r->parsed, "message");
  return m;
}

static int unsupported(const cJSON *spec, const struct oc_response *r, char *reason, size_t len)
{
  if(!spec)
    return 0;
  const cJSON *st = oc_json_get(spec, "status");
  if(st && !oc_expect_status_matches(st, r->status))
    return 0;
  if(!st && r->status < 400)
    return 0;
  const char *re = oc_json_str(spec, "message_regex");
  const char *msg = error_message(r);
  if(re) {
    char err[256];
    struct oc_regex *rx = oc_regex_compile(re, strlen(re), err, sizeof(err));
    int m = rx && msg ? oc_regex_match(rx, msg, strlen(msg), NULL) : 0;
    oc_regex_free(rx);
    if(m != 1)
      return 0;
  }
  snprintf(reason, len, "unsupported: HTTP %d%s%.200s", r->status, msg ? ": " : "", msg ? msg : "");
  return 1;
}

/* The context-overflow signature each profile expects. */
static void check_overflow_shape(const struct oc_response *r, struct oc_check *c)
{
  const cJSON *err = oc_json_get(r->parsed, "error");
  const char *type = oc_json_str(err, "type");
  const char *msg = oc_json_str(err, "message");
  const cJSON *code = oc_json_get(err, "code");
  const char *profile = c->profile->name;
  if(!cJSON_IsObject(err)) {
    oc_emit(c, OC_R_CTX_OVERFLOW_SHAPE,
            OC_AT(.path = "/error", .expected = "an error object", .actual = "none"),
            "the overflow answer carries no error object to recognise it by");
    return;
  }
  if(strcmp(profile, "llama-server") == 0) {
    const cJSON *np = oc_json_get(err, "n_prompt_tokens"), *nc = oc_json_get(err, "n_ctx");
    if(!oc_streq(type, "exceed_context_size_error") || !oc_json_is_integer(np) || !oc_json_is_integer(nc))
      oc_emit(c, OC_R_CTX_OVERFLOW_SHAPE,
              OC_AT(.path = "/error",
                    .expected = "type exceed_context_size_error with integer n_prompt_tokens and n_ctx",
                    .actual = type ? type : "no type"),
              "the overflow error does not carry llama-server's signature (type '%s')",
              type ? type : "absent");
    return;
  }
  if(strcmp(profile, "vllm") == 0) {
    if(!msg || !strstr(msg, "maximum context length"))
      oc_emit(c, OC_R_CTX_OVERFLOW_SHAPE,
              OC_AT(.path = "/error/message",
                    .expected = "a message with \"maximum context length\"",
                    .actual = msg ? msg : "none"),
              "the overflow error does not carry vLLM's message");
    return;
  }
  /* openai (and anything else): the spec's own signature */
  if(!oc_streq(type, "invalid_request_error") || !cJSON_IsString(code) ||
     strcmp(code->valuestring, "context_length_exceeded") != 0) {
    char actual[160];
    snprintf(actual, sizeof(actual), "type %s, code %s", type ? type : "absent",
             cJSON_IsString(code) ? code->valuestring : (code ? oc_json_type_name(code) : "absent"));
    oc_emit(c, OC_R_CTX_OVERFLOW_SHAPE,
            OC_AT(.path = "/error",
                  .expected = "type invalid_request_error, code context_length_exceeded",
                  .actual = actual),
            "the overflow error is not OpenAI's (%s): clients that match on "
            "context_length_exceeded will not recognise it", actual);
  }
}

static void check_status(const struct oc_case *k, const cJSON *expect, const struct oc_response *r,
                         struct oc_check *c)
{
  char act[16];
  snprintf(act, sizeof(act), "%d", r->status);
  if(oc_json_bool(expect, "error", 0)) {
    if(r->status < 400 || r->status >= 500)
      oc_emit(c, OC_R_ERROR_STATUS, OC_AT(.expected = "4xx", .actual = act),
              "case '%s' sends an invalid request but the answer is HTTP %d%s", k->name,
              r->status, r->status >= 500 ? " (clients retry a 5xx)" : " (the input was accepted)");
    return;
  }
  if(oc_json_bool(expect, "context_overflow", 0)) {
    if(r->status < 400 || r->status >= 500)
      oc_emit(c, OC_R_CTX_OVERFLOW_STATUS,
              OC_AT(.expected = "4xx before any stream byte", .actual = act),
              "a prompt over the context window gets HTTP %d%s", r->status,
              r->is_sse ? " and an event stream" : "");
    else
      check_overflow_shape(r, c);
    return;
  }
  if(oc_json_bool(expect, "under_limit", 0)) {
    if(r->status < 200 || r->status >= 300)
      oc_emit(c, OC_R_CTX_UNDER_LIMIT, OC_AT(.expected = "2xx", .actual = act),
              "a prompt that fits the context window gets HTTP %d", r->status);
    return;
  }
  const cJSON *spec = oc_json_get(expect, "status");
  if(!oc_expect_status_matches(spec, r->status)) {
    char *exp = status_text(spec);
    const char *msg = error_message(r);
    oc_emit(c, OC_R_HTTP_STATUS, OC_AT(.expected = exp ? exp : "200", .actual = act),
            "expected HTTP %s, got %d%s%.200s", exp ? exp : "200", r->status,
            msg ? ": " : "", msg ? msg : "");
    free(exp);
  }
}

static const cJSON *choice_list(const struct oc_response *r, const cJSON *message)
{
  return oc_json_arr(message ? message : r->parsed, "choices");
}

static void check_finish(const cJSON *expect, const struct oc_response *r, const cJSON *message,
                         struct oc_check *c)
{
  const cJSON *allowed = oc_json_arr(expect, "finish_reasons");
  if(!allowed || r->status < 200 || r->status >= 300)
    return;
  const cJSON *ch;
  int i = 0;
  cJSON_ArrayForEach(ch, choice_list(r, message))
  {
    const char *fr = oc_json_str(ch, "finish_reason");
    int ok = 0;
    const cJSON *a;
    cJSON_ArrayForEach(a, allowed)
    {
      if(cJSON_IsString(a) && oc_streq(a->valuestring, fr))
        ok = 1;
    }
    if(!ok) {
      char *exp = oc_json_print(allowed);
      char path[64];
      snprintf(path, sizeof(path), "/choices/%d/finish_reason", i);
      oc_emit(c, OC_R_CHAT_FINISH_REASON,
              OC_AT(.path = path, .expected = exp, .actual = fr ? fr : "null"),
              "choice %d ends with finish_reason %s, the case allows %s", i, fr ? fr : "null",
              exp ? exp : "others");
      free(exp);
    }
    i++;
  }
}

/* The first choice's message as the decoder rebuilt it, or NULL. */
static const struct oc_message *first_message(const struct oc_response *r)
{
  if(r->is_sse && r->stream_started && r->proto->id == OC_PROTO_CHAT)
    return r->stream.nchoices ? &r->stream.choices[0] : NULL;
  return r->nmessages ? &r->messages[0] : NULL;
}

static void check_tool_call(const cJSON *expect, const struct oc_response *r, const cJSON *message,
                            struct oc_check *c)
{
  const cJSON *tc = oc_json_obj(expect, "tool_call");
  if(!tc || r->status < 200 || r->status >= 300)
    return;
  const cJSON *ch = cJSON_GetArrayItem(choice_list(r, message), 0);
  const cJSON *calls = oc_json_arr(oc_json_obj(ch, "message"), "tool_calls");
  int n = calls ? cJSON_GetArraySize(calls) : 0;
  double min = oc_json_num(tc, "min", 1), max = oc_json_num(tc, "max", 1e9);
  if(n < min || n > max) {
    char exp[64], act[16];
    snprintf(exp, sizeof(exp), "at least %.0f tool call%s", min, min == 1 ? "" : "s");
    if(max < 1e9)
      snprintf(exp, sizeof(exp), "%.0f..%.0f tool calls", min, max);
    snprintf(act, sizeof(act), "%d", n);
    oc_emit(c, OC_R_CASE_ASSERT,
            OC_AT(.path = "/choices/0/message/tool_calls", .expected = exp, .actual = act),
            "choice 0 has %d tool call%s, the case wants %s%s", n, n == 1 ? "" : "s", exp,
            first_message(r) && oc_reasoning_cut_inside(first_message(r))
              ? " (max_tokens ran out inside the reasoning before the call: REASONING-BUDGET; give "
                "the case room to think)" : "");
  }
  const char *name = oc_json_str(tc, "name");
  const cJSON *call;
  int i = 0;
  cJSON_ArrayForEach(call, calls)
  {
    const cJSON *fn = oc_json_obj(call, "function");
    const char *got = oc_json_str(fn, "name");
    char path[96];
    snprintf(path, sizeof(path), "/choices/0/message/tool_calls/%d/function", i);
    if(name && !oc_streq(name, got))
      oc_emit(c, OC_R_TOOL_CHOICE_HONOURED,
              OC_AT(.path = path, .expected = name, .actual = got ? got : "none"),
              "tool call %d calls '%s', the case wants '%s'", i, got ? got : "?", name);
    const cJSON *schema = oc_json_get(tc, "arguments_schema");
    const char *args = oc_json_str(fn, "arguments");
    if(schema && args && c->out) {
      cJSON *parsed = NULL;
      if(oc_json_parse_rc(args, strlen(args), NULL, &parsed) == OC_ENOMEM)
        c->oom = 1;
      struct oc_schema_registry *reg = oc_schema_registry_new();
      char err[256] = "out of memory";
      struct oc_schema *s = NULL;
      if(!reg || oc_schema_compile_rc(reg, schema, NULL, 0, &s, err, sizeof(err)) == OC_ENOMEM)
        c->oom = 1;
      else if(!s)
        oc_emit(c, OC_R_CASE_ASSERT,
                OC_AT(.path = path, .expected = "a schema that compiles", .actual = err),
                "the case's arguments_schema does not compile: %s", err);
      if(parsed && s) {
        struct oc_schema_result res;
        oc_schema_result_init(&res);
        int v = oc_schema_validate_cjson(s, parsed, &res);
        if(v == -OC_ETOOBIG)
          oc_check_limit(c, "tool call %d's arguments could not be validated against the case's "
                         "arguments_schema: %s", i, res.undecided);
        else if(v < 0)
          c->oom = 1;
        else if(v == 0)
          for(size_t k = 0; k < res.count && k < 5; k++)
            oc_emit(c, OC_R_TOOL_ARGS_JSON,
                    OC_AT(.path = path, .expected = res.errors[k].keyword,
                          .actual = res.errors[k].message),
                    "tool call %d's arguments do not match the case's schema at '%s': %s", i,
                    res.errors[k].instance_path, res.errors[k].message);
        oc_schema_result_free(&res);
      }
      oc_schema_free(s);
      oc_schema_registry_free(reg);
      cJSON_Delete(parsed);
    }
    i++;
  }
}

/* Where choice 0's reasoning is and how long: a non-blank string in
 * reasoning_content or reasoning (llama-server and SGLang send the first,
 * vLLM and Ollama the second), a non-empty reasoning_details (OpenRouter),
 * or a think block or harmony analysis channel left in content (a server
 * without a reasoning parser).  Returns the length in characters (UTF-8
 * code points), 0 when there is none; *where names the place. */
static size_t count_chars(const char *s, size_t n)
{
  size_t k = 0;
  for(size_t i = 0; i < n; i++)
    k += ((unsigned char)s[i] & 0xC0) != 0x80;
  return k;
}

static int blank(const char *s, size_t n)
{
  for(size_t i = 0; i < n; i++)
    if(!strchr(" \t\r\n", s[i]))
      return 0;
  return 1;
}

static size_t reasoning_in_content(const char *text, const char **where)
{
  static const struct {
    const char *open, *close, *name;
  } marks[] = {
    { "<think>", "</think>", "a think block in content" },
    { "<|channel|>analysis<|message|>", "<|end|>", "harmony's analysis channel in content" },
  };
  for(size_t i = 0; text && i < OC_ARRAY_LEN(marks); i++) {
    const char *o = strstr(text, marks[i].open), *c = strstr(text, marks[i].close);
    /* a template may pre-open the block in the prompt: a lone close tag */
    const char *from = o ? o + strlen(marks[i].open) : c ? text : NULL;
    if(!from)
      continue;
    const char *to = c && c >= from ? c : from + strlen(from);
    /* an empty block is the template's "thinking off" prefill that a
     * server without a parser passes on: markup, not reasoning */
    if(blank(from, (size_t)(to - from)))
      return 0;
    *where = marks[i].name;
    return count_chars(from, (size_t)(to - from));
  }
  return 0;
}

static size_t reasoning_of(const cJSON *msg, const char **where)
{
  static const char *const fields[] = { "reasoning_content", "reasoning" };
  for(size_t i = 0; i < OC_ARRAY_LEN(fields); i++) {
    const char *s = oc_json_str(msg, fields[i]);
    if(s && !blank(s, strlen(s))) {
      *where = fields[i];
      return count_chars(s, strlen(s));
    }
  }
  const cJSON *details = oc_json_arr(msg, "reasoning_details");
  if(cJSON_GetArraySize(details) > 0) {
    size_t n = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, details)
    {
      const char *s = oc_json_str(d, "text");
      if(!s)
        s = oc_json_str(d, "summary");
      n += s ? count_chars(s, strlen(s)) : 0;
    }
    *where = "reasoning_details";
    return n ? n : 1;
  }
  return reasoning_in_content(oc_json_str(msg, "content"), where);
}

/* "reasoning": true (choice 0 reasons), false (it does not: thinking was
 * turned off), or {"max_chars": N} (at most N characters of it: a budget). */
static void check_reasoning(const cJSON *expect, const struct oc_response *r, const cJSON *message,
                            struct oc_check *c)
{
  const cJSON *spec = oc_json_get(expect, "reasoning");
  if(!spec || r->status < 200 || r->status >= 300)
    return;
  const cJSON *ch = cJSON_GetArrayItem(choice_list(r, message), 0);
  const cJSON *msg = oc_json_obj(ch, "message");
  if(!msg)
    return; /* no choice: the generic rules say so */
  const char *where = "nowhere";
  size_t n = reasoning_of(msg, &where);
  char act[128];
  snprintf(act, sizeof(act), n ? "%zu characters in %s" : "none", n, where);
  if(cJSON_IsTrue(spec) && !n)
    oc_emit(c, OC_R_CASE_ASSERT,
            OC_AT(.path = "/choices/0/message", .expected = "reasoning", .actual = act),
            "choice 0 carries no reasoning (no reasoning_content, reasoning, "
            "reasoning_details or think block), the case expects the model to reason");
  else if(cJSON_IsFalse(spec) && n)
    oc_emit(c, OC_R_CASE_ASSERT,
            OC_AT(.path = "/choices/0/message", .expected = "no reasoning", .actual = act),
            "choice 0 carries reasoning (%s), the case turned thinking off: the control was "
            "ignored", act);
  const cJSON *max = oc_json_get(spec, "max_chars");
  if(cJSON_IsNumber(max) && (double)n > max->valuedouble) {
    char exp[64];
    snprintf(exp, sizeof(exp), "at most %.0f characters of reasoning", max->valuedouble);
    oc_emit(c, OC_R_CASE_ASSERT, OC_AT(.path = "/choices/0/message", .expected = exp, .actual = act),
            "choice 0 reasons for %s, the case's budget allows %.0f: the budget was not "
            "honoured", act, max->valuedouble);
  }
}

static void assertion(const cJSON *a, size_t idx, const struct oc_response *r, const cJSON *message,
                      struct oc_check *c)
{
  const char *ptr = oc_json_str(a, "pointer");
  const char *in = oc_json_str(a, "in");
  const cJSON *root = oc_streq(in, "body") ? r->parsed
                    : oc_streq(in, "message") ? message
                    : (message ? message : r->parsed);
  const cJSON *v = root ? oc_json_pointer(root, ptr ? ptr : "") : NULL;
  const char *what = oc_json_str(a, "description");
  /* the suite loader refused names that are not in the catalogue */
  const struct oc_rule *named = oc_rule_find(oc_json_str(a, "rule"));
  enum oc_rule_id rule = named ? named->rid : OC_R_CASE_ASSERT;
  char label[160];
  snprintf(label, sizeof(label), "assertion %zu%s%s%s", idx + 1, what ? " (" : "", what ? what : "",
           what ? ")" : "");
  const cJSON *exists = oc_json_get(a, "exists");
  if(cJSON_IsBool(exists)) {
    if(cJSON_IsTrue(exists) != (v != NULL))
      oc_emit(c, rule,
              OC_AT(.path = ptr, .expected = cJSON_IsTrue(exists) ? "present" : "absent",
                    .actual = v ? "present" : "absent"),
              "%s: '%s' is %s", label, ptr,
              v ? "present" : "absent");
    if(!v)
      return;
  }
  if(!v) {
    if(oc_json_get(a, "equals") || oc_json_get(a, "type") || oc_json_get(a, "regex") ||
       oc_json_get(a, "contains") || oc_json_get(a, "schema"))
      oc_emit(c, rule, OC_AT(.path = ptr, .expected = "a value", .actual = "absent"),
              "%s: nothing at '%s'", label, ptr);
    return;
  }
  const cJSON *eq = oc_json_get(a, "equals");
  if(eq && !oc_json_equal(eq, v)) {
    char *e = oc_json_brief(eq, 80), *g = oc_json_brief(v, 80);
    oc_emit(c, rule, OC_AT(.path = ptr, .expected = e, .actual = g),
            "%s: '%s' is %s, expected %s",
            label, ptr, g ? g : "?", e ? e : "?");
    free(e);
    free(g);
  }
  const char *type = oc_json_str(a, "type");
  if(type) {
    const char *t = oc_json_type_name(v);
    int ok = strcmp(type, t) == 0 || (strcmp(type, "number") == 0 && strcmp(t, "integer") == 0);
    if(!ok)
      oc_emit(c, rule, OC_AT(.path = ptr, .expected = type, .actual = t),
              "%s: '%s' is %s, expected %s",
              label, ptr, t, type);
  }
  const char *text = cJSON_IsString(v) ? v->valuestring : NULL;
  const char *re = oc_json_str(a, "regex");
  if(re) {
    char err[256];
    struct oc_regex *rx = oc_regex_compile(re, strlen(re), err, sizeof(err));
    int m = rx && text ? oc_regex_match(rx, text, strlen(text), NULL) : 0;
    if(m == -OC_ETOOBIG) /* as oacheck validate says of the same pattern */
      oc_check_limit(c, "%s: whether '%s' matches /%.120s/ cannot be decided: the pattern ran out of "
                     "its match budget on the string", label, ptr, re);
    else if(m == -OC_ENOMEM)
      c->oom = 1;
    else if(m != 1) {
      char *g = oc_json_brief(v, 80);
      oc_emit(c, rule, OC_AT(.path = ptr, .expected = re, .actual = g),
              "%s: '%s' does not match /%s/%s",
              label, ptr, re, rx ? "" : " (the pattern does not compile)");
      free(g);
    }
    oc_regex_free(rx);
  }
  const char *contains = oc_json_str(a, "contains");
  if(contains && (!text || !strstr(text, contains)))
    oc_emit(c, rule,
            OC_AT(.path = ptr, .expected = contains,
                  .actual = text ? "text without it" : oc_json_type_name(v)),
            "%s: '%s' does not contain \"%s\"", label, ptr, contains);
  const char *nc = oc_json_str(a, "not_contains");
  if(nc && text && strstr(text, nc))
    oc_emit(c, rule, OC_AT(.path = ptr, .expected = "text without it", .actual = nc),
            "%s: '%s' contains \"%s\"", label, ptr, nc);
  const cJSON *schema = oc_json_get(a, "schema");
  if(schema) {
    struct oc_schema_registry *reg = oc_schema_registry_new();
    char err[256] = "out of memory";
    struct oc_schema *s = NULL;
    if(!reg || oc_schema_compile_rc(reg, schema, NULL, 0, &s, err, sizeof(err)) == OC_ENOMEM)
      c->oom = 1;
    else if(!s)
      oc_emit(c, rule, OC_AT(.path = ptr, .expected = "a schema that compiles", .actual = err),
              "%s: the assertion's schema does not compile: %s", label, err);
    if(s) {
      struct oc_schema_result res;
      oc_schema_result_init(&res);
      int verdict = oc_schema_validate_cjson(s, v, &res);
      if(verdict == -OC_ETOOBIG)
        oc_check_limit(c, "%s: '%s' could not be validated against the assertion's schema: %s",
                       label, ptr, res.undecided);
      else if(verdict < 0)
        c->oom = 1;
      else if(verdict == 0)
        for(size_t k = 0; k < res.count && k < 5; k++)
          oc_emit(c, rule,
                  OC_AT(.path = ptr, .expected = res.errors[k].keyword,
                        .actual = res.errors[k].message),
                  "%s: '%s%s' does not match the schema: %s",
                  label, ptr, res.errors[k].instance_path, res.errors[k].message);
      oc_schema_result_free(&res);
    }
    oc_schema_free(s);
    oc_schema_registry_free(reg);
  }
}

static void check_timing(const cJSON *expect, const cJSON *timing, struct oc_check *c)
{
  if(!timing || !oc_json_bool(timing, "recorded", 0))
    return;
  static const struct {
    const char *budget, *measure, *what;
  } budgets[] = {
    { "ttft_ms", "ttft_ms", "time to first token" },
    { "total_ms", "total_ms", "total time" },
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(budgets); i++) {
    const cJSON *b = oc_json_get(expect, budgets[i].budget);
    const cJSON *m = oc_json_get(timing, budgets[i].measure);
    if(cJSON_IsNumber(b) && cJSON_IsNumber(m) && m->valuedouble > b->valuedouble) {
      char exp[32], act[32];
      snprintf(exp, sizeof(exp), "<= %.0f ms", b->valuedouble);
      snprintf(act, sizeof(act), "%.1f ms", m->valuedouble);
      oc_emit(c, OC_R_CASE_TIMING, OC_AT(.expected = exp, .actual = act),
              "%s %.1f ms exceeds the "
              "budget of %.0f ms", budgets[i].what, m->valuedouble, b->valuedouble);
    }
  }
}

enum oc_expect_outcome oc_expect_apply(const struct oc_case *k, const struct oc_response *r,
                                       const cJSON *message, const cJSON *timing,
                                       struct oc_check *c, char *reason, size_t reasonlen)
{
  const cJSON *expect = k->expect;
  int unread = r->parsed_too_big && !message; /* no parsed copy of the body */
  if(!unread && unsupported(oc_json_obj(expect, "unsupported"), r, reason, reasonlen))
    return OC_EXPECT_UNSUPPORTED;
  check_status(k, expect, r, c);
  const cJSON *want_stream = oc_json_get(expect, "stream");
  if(cJSON_IsBool(want_stream) && cJSON_IsTrue(want_stream) != r->is_sse && r->status < 300)
    oc_emit(c, OC_R_STREAM_CONTENT_TYPE,
            OC_AT(.expected = cJSON_IsTrue(want_stream) ? "text/event-stream" : "not a stream",
                  .actual = r->media[0] ? r->media : "untyped"),
            "the case expects %s but got %s",
            cJSON_IsTrue(want_stream) ? "an event stream" : "a plain body",
            r->media[0] ? r->media : "no Content-Type");
  if(unread && (oc_json_get(expect, "unsupported") || oc_json_get(expect, "finish_reasons") ||
                oc_json_get(expect, "tool_call") || oc_json_get(expect, "reasoning") ||
                oc_json_get(expect, "assert"))) {
    /* not a verdict on the server: oacheck keeps no parsed copy that large */
    oc_check_limit(c, "the %llu-byte body is too large for oacheck to check the case's "
                   "expectations on its content", (unsigned long long)r->body_bytes);
    check_timing(expect, timing, c);
    return OC_EXPECT_CHECKED;
  }
  check_finish(expect, r, message, c);
  check_tool_call(expect, r, message, c);
  check_reasoning(expect, r, message, c);
  size_t i = 0;
  const cJSON *a;
  /* An error the case accepts ("status": [200, "4xx"]: a template may
   * refuse an unknown role) is not the body the assertions describe: a
   * 400 has no /prompt to look for the message in.  An error the case
   * does not accept still fails its assertions (CTX-RECOVERY: the trimmed
   * conversation must be answered).  Assertions that point into the
   * error itself always run. */
  const cJSON *spec = oc_json_get(expect, "status");
  int error_body = r->status >= 400 && spec && oc_expect_status_matches(spec, r->status) &&
                   oc_json_get(r->parsed, "error");
  cJSON_ArrayForEach(a, oc_json_arr(expect, "assert"))
  {
    const char *ptr = oc_json_str(a, "pointer");
    if(error_body && !(ptr && (strcmp(ptr, "/error") == 0 || strncmp(ptr, "/error/", 7) == 0))) {
      i++;
      continue;
    }
    assertion(a, i++, r, message, c);
  }
  check_timing(expect, timing, c);
  return OC_EXPECT_CHECKED;
}
