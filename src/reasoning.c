/* reasoning.c — where a message's reasoning came from, and the
 * REASONING-* rules: markup left in the answer, the two fields that
 * disagree, a budget spent on thinking, an answer trapped in reasoning, a
 * tool call written inside it, thinking controls ignored, history refused.
 * The facts behind each rule, with their sources, are in the catalogue
 * (rules.def); which client reads which field is docs/clients.md. */
#include "config.h"
#include "reasoning.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "message.h"
#include "request.h"
#include "rules.h"
#include "util.h"

void oc_reasoning_trace_init(struct oc_reasoning_trace *t)
{
  memset(t, 0, sizeof(*t));
  t->first_chunk = -1;
  t->conflict_chunk = -1;
  t->conflict_byte = -1;
  t->bad_chunk = -1;
  t->bad_byte = -1;
  t->mixed_chunk = -1;
  t->mixed_byte = -1;
  t->completion_tokens = -1;
}

static int64_t byte_of(const struct oc_jv *v, int64_t base, int exact)
{
  return exact ? base + (int64_t)v->offset : base;
}

const struct oc_jv *oc_reasoning_read(struct oc_reasoning_trace *t, const struct oc_jv *obj,
                                      long chunk, int64_t base, int exact, int content_had,
                                      int content_here)
{
  static const struct {
    const char *key;
    unsigned source;
  } fields[] = {
    { "reasoning_content", OC_RSRC_REASONING_CONTENT },
    { "reasoning", OC_RSRC_REASONING },
  };
  const struct oc_jv *v[2] = { NULL, NULL };
  for(size_t i = 0; i < 2; i++) {
    const struct oc_jv *f = oc_jv_get(obj, fields[i].key);
    if(!f || f->type == OC_JNULL)
      continue;
    if(f->type != OC_JSTRING) {
      if(!t->bad_field) {
        t->bad_field = fields[i].key;
        oc_strlcpy(t->bad_type, oc_jv_type_name(f), sizeof(t->bad_type));
        t->bad_chunk = chunk;
        t->bad_byte = byte_of(f, base, exact);
      }
      continue;
    }
    v[i] = f;
    if(f->len)
      t->sources |= fields[i].source;
  }
  const struct oc_jv *details = oc_jv_get(obj, "reasoning_details");
  if(details && details->type == OC_JARRAY && details->len)
    t->sources |= OC_RSRC_DETAILS;
  if(v[0] && v[1] && t->conflict == OC_RCONFLICT_NONE) {
    enum oc_reasoning_conflict k = OC_RCONFLICT_NONE;
    if(v[0]->len == 0 && v[1]->len > 0)
      k = OC_RCONFLICT_EMPTY_HIDES;
    else if(v[0]->len && v[1]->len &&
            (v[0]->len != v[1]->len || memcmp(v[0]->u.str, v[1]->u.str, v[0]->len) != 0))
      k = OC_RCONFLICT_DIFFERENT;
    if(k) {
      t->conflict = k;
      t->conflict_chunk = chunk;
      t->conflict_byte = byte_of(v[1], base, exact);
    }
  }
  /* One text to rebuild from, never both: a delta that carries the same
   * fragment in both fields is one fragment (adding both doubled it). */
  const struct oc_jv *take = v[0] && v[0]->len ? v[0] : v[1] && v[1]->len ? v[1] : NULL;
  if(!take)
    return NULL;
  if(t->first_chunk < 0)
    t->first_chunk = chunk;
  if(content_had)
    t->after_content = 1;
  else
    t->before_content = 1;
  if(content_here) {
    if(!t->mixed++) {
      t->mixed_chunk = chunk;
      t->mixed_byte = byte_of(take, base, exact);
    }
  }
  return take;
}

static void usage_numbers(struct oc_reasoning_trace *t, double completion, int completion_int,
                          int has_rt, int rt_int, double rt, const char *rt_type)
{
  t->usage_seen = 1;
  t->completion_tokens = completion_int ? completion : -1;
  if(!has_rt)
    return;
  if(rt_int && rt >= 0) {
    t->reasoning_tokens_state = 1;
    t->reasoning_tokens = rt;
  }
  else {
    t->reasoning_tokens_state = 2;
    if(rt_int)
      snprintf(t->reasoning_tokens_actual, sizeof(t->reasoning_tokens_actual), "%.0f", rt);
    else
      oc_strlcpy(t->reasoning_tokens_actual, rt_type, sizeof(t->reasoning_tokens_actual));
  }
}

void oc_reasoning_usage_jv(struct oc_reasoning_trace *t, const struct oc_jv *usage)
{
  if(!usage || usage->type != OC_JOBJECT)
    return;
  const struct oc_jv *ct = oc_jv_get(usage, "completion_tokens");
  const struct oc_jv *d = oc_jv_get(usage, "completion_tokens_details");
  const struct oc_jv *rt = d && d->type == OC_JOBJECT ? oc_jv_get(d, "reasoning_tokens") : NULL;
  if(rt && rt->type == OC_JNULL)
    rt = NULL;
  usage_numbers(t, ct && oc_jv_is_integer(ct) ? ct->u.num : -1, ct && oc_jv_is_integer(ct),
                rt != NULL, rt && oc_jv_is_integer(rt), rt && rt->type == OC_JNUMBER ? rt->u.num : 0,
                rt ? oc_jv_type_name(rt) : NULL);
}

void oc_reasoning_usage_json(struct oc_reasoning_trace *t, const cJSON *usage)
{
  if(!cJSON_IsObject(usage))
    return;
  const cJSON *ct = oc_json_get(usage, "completion_tokens");
  const cJSON *d = oc_json_obj(usage, "completion_tokens_details");
  const cJSON *rt = d ? oc_json_get(d, "reasoning_tokens") : NULL;
  if(cJSON_IsNull(rt))
    rt = NULL;
  const char *type = !rt ? NULL : cJSON_IsString(rt) ? "string" : cJSON_IsNumber(rt) ? "number"
                     : cJSON_IsBool(rt) ? "boolean" : cJSON_IsArray(rt) ? "array" : "object";
  usage_numbers(t, oc_json_is_integer(ct) ? ct->valuedouble : -1, oc_json_is_integer(ct),
                rt != NULL, oc_json_is_integer(rt), cJSON_IsNumber(rt) ? rt->valuedouble : 0, type);
}

/* ---- markup ---------------------------------------------------------------- */

/* Reasoning markup that a client shows as answer text: DeepSeek/Qwen
 * think tags, Mistral's [THINK], gpt-oss harmony's control tokens. */
static const char *const markup[] = {
  "<think>", "</think>", "<thinking>", "</thinking>", "[THINK]", "[/THINK]",
  "<|channel|>", "<|message|>", "<|start|>", "<|end|>", "<|constrain|>", "<|return|>",
  "<|call|>",
};

const char *oc_reasoning_find_markup(const char *s, size_t len, size_t *at)
{
  const char *best = NULL;
  size_t best_at = 0;
  if(!s || !len)
    return NULL;
  for(size_t i = 0; i < OC_ARRAY_LEN(markup); i++) {
    const char *p = oc_memfind(s, len, markup[i], strlen(markup[i]));
    if(p && (!best || (size_t)(p - s) < best_at)) {
      best = markup[i];
      best_at = (size_t)(p - s);
    }
  }
  if(best && at)
    *at = best_at;
  return best;
}

static size_t skip_space(const char *s, size_t len, size_t i)
{
  while(i < len && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t'))
    i++;
  return i;
}

static int starts(const char *s, size_t len, size_t i, const char *lit)
{
  size_t n = strlen(lit);
  return len - i >= n && memcmp(s + i, lit, n) == 0;
}

size_t oc_reasoning_answer(const char *s, size_t len, size_t *answer_at, unsigned *sources)
{
  *answer_at = 0;
  if(!s || !len)
    return 0;
  size_t i = skip_space(s, len, 0);
  static const char *const opens[] = { "<think>", "<thinking>", "[THINK]" };
  static const char *const closes[] = { "</think>", "</thinking>", "[/THINK]" };
  for(size_t k = 0; k < OC_ARRAY_LEN(opens); k++) {
    if(!starts(s, len, i, opens[k]))
      continue;
    *sources |= OC_RSRC_THINK_TAGS;
    const char *close = oc_memfind(s + i, len - i, closes[k], strlen(closes[k]));
    if(!close) { /* cut inside the block: all of it is reasoning */
      *answer_at = len;
      return 0;
    }
    size_t a = skip_space(s, len, (size_t)(close - s) + strlen(closes[k]));
    *answer_at = a;
    return len - a;
  }
  /* gpt-oss: <|channel|>analysis<|message|>…<|end|><|start|>assistant
   * <|channel|>final<|message|>ANSWER<|return|> */
  if(starts(s, len, i, "<|channel|>analysis") || starts(s, len, i, "<|start|>assistant<|channel|>analysis")) {
    *sources |= OC_RSRC_HARMONY;
    static const char final[] = "<|channel|>final<|message|>";
    const char *f = oc_memfind(s + i, len - i, final, sizeof(final) - 1);
    if(!f) {
      *answer_at = len;
      return 0;
    }
    size_t a = (size_t)(f - s) + sizeof(final) - 1;
    size_t end = len;
    const char *ret = oc_memfind(s + a, len - a, "<|return|>", 10);
    if(ret)
      end = (size_t)(ret - s);
    *answer_at = a;
    return end - a;
  }
  return len;
}

static int has_text(const char *s, size_t len)
{
  return s && skip_space(s, len, 0) < len;
}

/* Some text in a block of content markup besides the markup itself: an
 * empty <think>\n\n</think> (a template's thinking-off prefill passed on)
 * is no reasoning. */
static int block_has_text(const char *s, size_t len)
{
  size_t i = 0;
  while(s && (i = skip_space(s, len, i)) < len) {
    size_t k = 0;
    for(; k < OC_ARRAY_LEN(markup); k++)
      if(starts(s, len, i, markup[k]))
        break;
    if(k == OC_ARRAY_LEN(markup))
      return 1;
    i += strlen(markup[k]);
  }
  return 0;
}

int oc_reasoning_cut_inside(const struct oc_message *m)
{
  if(!oc_streq(m->finish_reason, "length") || m->ncalls || m->refusal.len)
    return 0;
  unsigned src = 0;
  size_t at;
  size_t ans = oc_reasoning_answer(m->content.data, m->content.len, &at, &src);
  int answered = has_text(m->content.data ? m->content.data + at : NULL, ans);
  int reasoned = has_text(m->reasoning.data, m->reasoning.len) || (src && block_has_text(m->content.data, at));
  return reasoned && !answered;
}

/* ---- the rules ---------------------------------------------------------------- */

static void path_for(char *out, size_t outlen, const struct oc_message *m, const char *field)
{
  snprintf(out, outlen, "/choices/%d/%s/%s", m->index, m->streamed ? "delta" : "message", field);
}

static long where(const struct oc_message *m, long chunk)
{
  return m->streamed ? chunk : -1;
}

/* Which clients read the field, from the oracle's measurements and the
 * clients' sources (docs/clients.md, "Reasoning"). */
static const char *field_readers(unsigned fields)
{
  if(fields & OC_RSRC_REASONING_CONTENT)
    return "the ai SDK, LangChain.js (additional_kwargs.reasoning_content) and openai-python "
           "read it; the OpenAI Agents SDK (JS) reads only 'reasoning' and does not see it";
  if(fields & OC_RSRC_REASONING)
    return "the ai SDK and the OpenAI Agents SDK (JS) read it; LangChain.js reads only "
           "'reasoning_content' and does not see it";
  return "only clients that read reasoning_details see it";
}

static void check_fields(struct oc_check *c, const struct oc_message *m)
{
  const struct oc_reasoning_trace *t = &m->rtrace;
  char path[128];
  unsigned fields = t->sources & (OC_RSRC_REASONING_CONTENT | OC_RSRC_REASONING | OC_RSRC_DETAILS);
  unsigned both = OC_RSRC_REASONING_CONTENT | OC_RSRC_REASONING;
  /* in both fields every client that reads either sees it: nothing to say */
  if(fields && (fields & both) != both) {
    const char *name = (fields & OC_RSRC_REASONING_CONTENT) ? "reasoning_content"
                         : (fields & OC_RSRC_REASONING) ? "reasoning" : "reasoning_details";
    path_for(path, sizeof(path), m,
             (fields & OC_RSRC_REASONING_CONTENT) ? "reasoning_content"
             : (fields & OC_RSRC_REASONING) ? "reasoning" : "reasoning_details");
    oc_emit(c, OC_R_REASONING_FIELD,
            OC_AT(.chunk = where(m, t->first_chunk), .path = path, .actual = name),
            "choice %d's reasoning comes in %s: %s", m->index, name, field_readers(fields));
  }
  if(t->conflict) {
    path_for(path, sizeof(path), m, "reasoning");
    int hides = t->conflict == OC_RCONFLICT_EMPTY_HIDES;
    oc_emit(c, OC_R_REASONING_FIELD_CONFLICT,
            OC_AT(.chunk = where(m, t->conflict_chunk), .byte = t->conflict_byte, .path = path,
                  .expected = hides ? "no empty reasoning_content beside reasoning"
                                    : "the same text in both fields",
                  .actual = hides ? "reasoning_content \"\"" : "different text"),
            hides ? "choice %d sends reasoning_content \"\" beside a non-empty reasoning: the ai "
                    "SDK reads reasoning_content ?? reasoning and LangChain.js only "
                    "reasoning_content, so both see no reasoning"
                  : "choice %d sends reasoning_content and reasoning with different text: "
                    "what the application sees depends on which one its client reads",
            m->index);
  }
  if(t->bad_field) {
    char p[128];
    path_for(p, sizeof(p), m, t->bad_field);
    oc_emit(c, OC_R_REASONING_NOT_STRING,
            OC_AT(.chunk = where(m, t->bad_chunk), .byte = t->bad_byte, .path = p,
                  .expected = "a string or null", .actual = t->bad_type),
            "choice %d's %s is %s %s, not a string", m->index, t->bad_field,
            t->bad_type[0] == 'a' || t->bad_type[0] == 'o' ? "an" : "a", t->bad_type);
  }
  if(t->mixed && m->streamed) {
    snprintf(path, sizeof(path), "/choices/%d/delta", m->index);
    oc_emit(c, OC_R_REASONING_MIXED_DELTA,
            OC_AT(.chunk = t->mixed_chunk, .byte = t->mixed_byte, .path = path,
                  .expected = "reasoning and content in separate deltas",
                  .actual = "both in one delta"),
            "%ld delta%s of choice %d carr%s reasoning and content together (the first in chunk "
            "%ld): clients that take one field per delta drop or double one of them",
            t->mixed, t->mixed == 1 ? "" : "s", m->index, t->mixed == 1 ? "ies" : "y",
            t->mixed_chunk);
  }
}

/* The content is one opening tag and blanks. */
static int only_open_tag(const char *s, size_t len)
{
  static const char *const opens[] = { "<think>", "<thinking>", "[THINK]" };
  size_t i = skip_space(s, len, 0);
  for(size_t k = 0; s && k < OC_ARRAY_LEN(opens); k++)
    if(starts(s, len, i, opens[k]))
      return skip_space(s, len, i + strlen(opens[k])) == len;
  return 0;
}

static void check_markup(struct oc_check *c, const struct oc_message *m, unsigned src, size_t at,
                         size_t ans)
{
  char path[128];
  path_for(path, sizeof(path), m, "content");
  unsigned fields = m->rtrace.sources & (OC_RSRC_REASONING_CONTENT | OC_RSRC_REASONING);
  /* The opening tag alone (max_tokens 1 on llama-server, whose stream
   * parses the same tag away): no sign of a missing parser, but the
   * application still gets the tag as its answer. */
  if(src && !fields && only_open_tag(m->content.data, m->content.len)) {
    oc_emit(c, OC_R_REASONING_MARKUP_LEAK,
            OC_AT(.byte = m->content_byte, .path = path, .expected = "an answer without reasoning markup",
                  .actual = "the opening tag alone", .severity = OC_SEV_WARNING),
            "choice %d's content is the opening tag of a think block and nothing else: the "
            "budget ended as the model began to think, and the server passed the tag on as the "
            "answer", m->index);
    return;
  }
  if(src && !fields)
    oc_emit(c, OC_R_REASONING_UNPARSED,
            OC_AT(.byte = m->content_byte, .path = path, .expected = "reasoning in its own field",
                  .actual = (src & OC_RSRC_HARMONY) ? "a harmony analysis channel in content"
                                                    : "a think block in content"),
            "choice %d's content opens with %s and no reasoning field carries it: the server "
            "runs without a reasoning parser, and every client shows the reasoning as part "
            "of the answer", m->index,
            (src & OC_RSRC_HARMONY) ? "gpt-oss's analysis channel" : "the model's think block");
  /* Markup the parse above did not account for: in the answer, or
   * anywhere in the content of a server that does separate reasoning. */
  size_t from = src && !fields ? at : 0;
  size_t len = src && !fields ? ans : m->content.len;
  size_t off = 0;
  const char *mk = m->content.data ? oc_reasoning_find_markup(m->content.data + from, len, &off) : NULL;
  if(mk)
    oc_emit(c, OC_R_REASONING_MARKUP_LEAK,
            OC_AT(.byte = m->content_byte, .path = path, .expected = "an answer without reasoning markup",
                  .actual = mk),
            "choice %d's answer holds the reasoning markup '%s' at offset %zu of the content%s: "
            "every client passes it to the application as answer text", m->index, mk, from + off,
            fields ? ", although the server parses reasoning into its own field" : "");
  for(size_t i = 0; i < m->ncalls; i++) {
    const struct oc_tool_call *t = &m->calls[i];
    const char *tm = t->name ? oc_reasoning_find_markup(t->name, strlen(t->name), NULL) : NULL;
    if(!tm)
      continue;
    char p[160];
    snprintf(p, sizeof(p), "/choices/%d/%s/tool_calls/%zu/function/name", m->index,
             m->streamed ? "delta" : "message", m->streamed ? (size_t)t->index : i);
    oc_emit(c, OC_R_REASONING_MARKUP_LEAK,
            OC_AT(.chunk = where(m, t->first_chunk), .byte = t->first_byte, .path = p,
                  .expected = "a tool name", .actual = t->name),
            "tool call %zu's name '%s' holds the reasoning markup '%s': no application has a "
            "tool of that name", i, t->name, tm);
  }
}

static void check_budget_and_answer(struct oc_check *c, const struct oc_request_info *req,
                                    const struct oc_message *m, unsigned src, size_t at, size_t ans)
{
  const char *answer = m->content.data ? m->content.data + at : NULL;
  int answered = has_text(answer, ans) || m->ncalls || m->refusal.len;
  const char *rtext = m->reasoning.len ? m->reasoning.data : (src ? m->content.data : NULL);
  size_t rlen = m->reasoning.len ? m->reasoning.len : (src ? at : 0);
  int reasoned = m->reasoning.len ? has_text(rtext, rlen) : block_has_text(rtext, rlen);
  if(!reasoned)
    return;
  const struct oc_reasoning_trace *t = &m->rtrace;
  char usage[160] = "";
  if(t->usage_seen && t->completion_tokens >= 0) {
    if(t->reasoning_tokens_state == 1)
      snprintf(usage, sizeof(usage), " (usage: %.0f completion tokens, %.0f of them reasoning)",
               t->completion_tokens, t->reasoning_tokens);
    else
      snprintf(usage, sizeof(usage), " (usage: %.0f completion tokens)", t->completion_tokens);
  }
  char fpath[96];
  snprintf(fpath, sizeof(fpath), "/choices/%d/finish_reason", m->index);
  char cpath[128];
  path_for(cpath, sizeof(cpath), m, "content");
  int json = req->format != OC_FORMAT_TEXT;
  int trapped = !answered && !oc_streq(m->finish_reason, "length") && (req->thinking_off || json);
  if(!answered && oc_streq(m->finish_reason, "length")) {
    char budget[48] = "its max_tokens";
    if(req->max_tokens >= 0)
      snprintf(budget, sizeof(budget), "max_tokens (%ld)", req->max_tokens);
    oc_emit(c, OC_R_REASONING_BUDGET,
            OC_AT(.chunk = where(m, m->finish_chunk), .byte = m->finish_byte, .path = fpath,
                  .expected = "room for an answer after thinking",
                  .actual = "length inside the reasoning"),
            "choice %d spent %s on thinking and stopped inside its reasoning (%zu bytes) with "
            "no answer%s%s", m->index, budget, rlen, usage,
            req->tools || json ? ": the tool call or the JSON never had its turn, so it is not "
            "judged" : "");
  }
  else if(trapped)
    oc_emit(c, OC_R_REASONING_ANSWER_TRAPPED,
            OC_AT(.byte = m->content_byte, .path = cpath,
                  .expected = json ? "the JSON in content" : "the answer in content",
                  .actual = "everything in reasoning"),
            "choice %d's content is empty and its answer is in the reasoning, although %s%s",
            m->index,
            req->thinking_off ? req->thinking_off : "response_format asked for JSON",
            req->thinking_off ? " turned thinking off" : ": a grammar that makes the end of "
            "thinking impossible, or a template that pre-opened it, trapped the answer");
  else if(!answered && oc_streq(m->finish_reason, "stop"))
    oc_emit(c, OC_R_REASONING_EMPTY_ANSWER,
            OC_AT(.chunk = where(m, m->finish_chunk), .byte = m->finish_byte, .path = fpath,
                  .expected = "an answer, or length",
                  .actual = "stop with an empty answer"),
            "choice %d ends with finish_reason \"stop\" and an empty answer; all %zu bytes went "
            "to reasoning%s, and the application gets nothing and no sign why", m->index, rlen,
            usage);
  char rpath[128];
  path_for(rpath, sizeof(rpath), m, m->reasoning.len && m->reasoning_field ? m->reasoning_field
                                                                          : "content");
  if(req->thinking_off && !trapped)
    oc_emit(c, OC_R_REASONING_CONTROL_IGNORED,
            OC_AT(.chunk = where(m, t->first_chunk), .path = rpath, .expected = "no reasoning",
                  .actual = "reasoning"),
            "the request turned thinking off (%s) but choice %d still reasons (%zu bytes)",
            req->thinking_off, m->index, rlen);
  /* A tool call written inside the think block: the tool grammar is
   * suppressed there (llama.cpp), so it is never parsed into tool_calls. */
  if(req->tools && req->tool_choice != OC_TOOL_CHOICE_NONE && !m->ncalls) {
    char what[256];
    if(oc_message_find_tool_markup(req, c->dialect, rtext, rlen, "reasoning", what, sizeof(what))) {
      oc_emit(c, OC_R_REASONING_TOOL_CALL_INSIDE,
              OC_AT(.chunk = where(m, t->first_chunk), .path = rpath,
                    .expected = "the tool call in tool_calls", .actual = what),
              "tools were offered, choice %d has no tool call, and its reasoning holds one: %s",
              m->index, what);
    }
  }
}

static void check_tokens(struct oc_check *c, const struct oc_message *m)
{
  const struct oc_reasoning_trace *t = &m->rtrace;
  if(m->index != 0 || t->reasoning_tokens_state == 0)
    return; /* usage is the response's: judged once */
  const char *path = "/usage/completion_tokens_details/reasoning_tokens";
  if(t->reasoning_tokens_state == 2)
    oc_emit(c, OC_R_REASONING_TOKENS,
            OC_AT(.path = path, .expected = "a non-negative integer", .actual = t->reasoning_tokens_actual),
            "usage.completion_tokens_details.reasoning_tokens is %s, not a non-negative integer",
            t->reasoning_tokens_actual);
  else if(t->completion_tokens >= 0 && t->reasoning_tokens > t->completion_tokens) {
    char exp[40], act[24];
    snprintf(exp, sizeof(exp), "at most %.0f", t->completion_tokens);
    snprintf(act, sizeof(act), "%.0f", t->reasoning_tokens);
    oc_emit(c, OC_R_REASONING_TOKENS, OC_AT(.path = path, .expected = exp, .actual = act),
            "usage counts %s reasoning tokens, more than its %.0f completion tokens", act,
            t->completion_tokens);
  }
}

void oc_reasoning_check(struct oc_check *c, const struct oc_request_info *req,
                        const struct oc_message *m)
{
  if(req->api != OC_API_CHAT)
    return;
  unsigned src = 0;
  size_t at = 0;
  size_t ans = oc_reasoning_answer(m->content.data, m->content.len, &at, &src);
  check_fields(c, m);
  check_markup(c, m, src, at, ans);
  check_budget_and_answer(c, req, m, src, at, ans);
  check_tokens(c, m);
}

/* ---- results ------------------------------------------------------------------ */

cJSON *oc_reasoning_json(const struct oc_message *m, size_t cap, int *oom)
{
  unsigned src = m->rtrace.sources;
  size_t at = 0;
  oc_reasoning_answer(m->content.data, m->content.len, &at, &src);
  const char *text = m->reasoning.len ? m->reasoning.data : (src & (OC_RSRC_THINK_TAGS | OC_RSRC_HARMONY)) ? m->content.data : NULL;
  size_t len = m->reasoning.len ? m->reasoning.len : text ? at : 0;
  if(!src)
    return NULL;
  cJSON *o = cJSON_CreateObject();
  int bad = 0;
  oc_json_put(&bad, o, "index", cJSON_CreateNumber(m->index));
  cJSON *s = oc_json_put(&bad, o, "source", cJSON_CreateArray());
  static const struct {
    unsigned bit;
    const char *name;
  } names[] = {
    { OC_RSRC_REASONING_CONTENT, "reasoning_content" }, { OC_RSRC_REASONING, "reasoning" },
    { OC_RSRC_DETAILS, "reasoning_details" }, { OC_RSRC_THINK_TAGS, "think-tags-in-content" },
    { OC_RSRC_HARMONY, "harmony-in-content" },
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(names); i++)
    if(src & names[i].bit)
      oc_json_put(&bad, s, NULL, cJSON_CreateString(names[i].name));
  /* The order a stream showed; a body's fields carry none, markup in
   * content opens the content. */
  const char *order = "unknown";
  if(src & (OC_RSRC_THINK_TAGS | OC_RSRC_HARMONY))
    order = "before";
  else if(m->streamed)
    order = m->rtrace.before_content && m->rtrace.after_content ? "interleaved"
            : m->rtrace.after_content ? "after" : "before";
  oc_json_put_str(&bad, o, "order", order);
  oc_json_put(&bad, o, "bytes", cJSON_CreateNumber((double)len));
  size_t keep = len < cap ? len : cap;
  while(keep > 0 && keep < len && ((unsigned char)text[keep] & 0xC0) == 0x80)
    keep--;
  char *t = oc_utf8_sanitize(text ? text : "", keep);
  oc_json_put(&bad, o, "text", t ? cJSON_CreateString(t) : NULL);
  free(t);
  if(keep < len)
    oc_json_put(&bad, o, "truncated", cJSON_CreateTrue());
  if(bad) {
    cJSON_Delete(o);
    *oom = 1;
    return NULL;
  }
  return o;
}
