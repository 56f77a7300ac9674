/* message.c — the assistant message model and the rules every message
 * answers to, streamed or not: tool calls (arguments, ids, finish reason,
 * tool_choice honoured, parallel_tool_calls), markup leaking into text,
 * structured output.  Rebuilding from deltas is chat.c's job. */
#include "config.h"
#include "message.h"

#include <stdlib.h>
#include <string.h>

#include "dialect.h"
#include "json.h"
#include "schema.h"

void oc_message_init(struct oc_message *m, int index, int streamed)
{
  memset(m, 0, sizeof(*m));
  m->index = index;
  m->streamed = streamed;
  m->content_null = 1;
  m->finish_chunk = -1;
  m->content_byte = -1;
  m->finish_byte = -1;
  oc_reasoning_trace_init(&m->rtrace);
  oc_buf_init(&m->content, OC_CAP_CONTENT);
  oc_buf_init(&m->reasoning, OC_CAP_CONTENT);
  oc_buf_init(&m->refusal, OC_CAP_CONTENT);
}

static void call_free(struct oc_tool_call *t)
{
  free(t->id);
  free(t->type);
  free(t->name);
  free(t->args_actual_type);
  oc_buf_free(&t->args);
}

void oc_message_free(struct oc_message *m)
{
  if(!m)
    return;
  free(m->role);
  oc_buf_free(&m->content);
  oc_buf_free(&m->reasoning);
  oc_buf_free(&m->refusal);
  for(size_t i = 0; i < m->ncalls; i++)
    call_free(&m->calls[i]);
  free(m->calls);
  free(m->finish_reason);
  memset(m, 0, sizeof(*m));
}

struct oc_tool_call *oc_message_call(struct oc_message *m, long index, int create)
{
  for(size_t i = 0; i < m->ncalls; i++)
    if(m->calls[i].index == index)
      return &m->calls[i];
  if(!create)
    return NULL;
  struct oc_tool_call *d = oc_array_grow(m->calls, &m->acalls, m->ncalls + 1, sizeof(*d));
  if(!d)
    return NULL;
  m->calls = d;
  struct oc_tool_call *t = &m->calls[m->ncalls++];
  memset(t, 0, sizeof(*t));
  t->index = index;
  t->first_chunk = -1;
  t->first_byte = -1;
  t->args_byte = -1;
  oc_buf_init(&t->args, OC_CAP_ARGUMENTS);
  return t;
}

static char *jv_strdup(const struct oc_jv *v)
{
  if(!v || v->type != OC_JSTRING)
    return NULL;
  return oc_strndup(v->u.str, v->len);
}

/* Text into one of the message's buffers: past the cap it is marked cut
 * (CHAT-SIZE says so), out of memory is the caller's failure. */
static int add_text_to(struct oc_buf *b, const struct oc_jv *v, int *overflow)
{
  int rc = oc_buf_add(b, v->u.str, v->len);
  if(rc == OC_ETOOBIG) {
    *overflow = 1;
    return OC_OK;
  }
  return rc;
}

/* A copy of a string value; *rc says when a string was there and could
 * not be copied (NULL alone would read as "absent"). */
static char *jv_strdup_rc(const struct oc_jv *v, int *rc)
{
  char *s = jv_strdup(v);
  if(v && v->type == OC_JSTRING && !s)
    *rc = OC_ENOMEM;
  return s;
}

int oc_message_from_choice(struct oc_message *m, const struct oc_jv *choice, enum oc_api api)
{
  const struct oc_jv *fr = oc_jv_get(choice, "finish_reason");
  if(fr && fr->type == OC_JSTRING) {
    m->finish_reason = jv_strdup(fr);
    m->finish_byte = fr->offset;
    if(!m->finish_reason)
      return OC_ENOMEM;
  }
  if(api == OC_API_COMPLETIONS) {
    const struct oc_jv *text = oc_jv_get(choice, "text");
    if(text && text->type == OC_JSTRING) {
      m->content_null = 0;
      m->content_seen = 1;
      m->content_byte = text->offset;
      return add_text_to(&m->content, text, &m->overflow);
    }
    return OC_OK;
  }
  const struct oc_jv *msg = oc_jv_get(choice, "message");
  if(!msg || msg->type != OC_JOBJECT)
    return OC_OK;
  const struct oc_jv *role = oc_jv_get(msg, "role");
  if(role && role->type == OC_JSTRING && !(m->role = jv_strdup(role)))
    return OC_ENOMEM;
  m->role_null = role && role->type == OC_JNULL;
  const struct oc_jv *content = oc_jv_get(msg, "content");
  if(content && content->type == OC_JSTRING) {
    m->content_null = 0;
    m->content_seen = 1;
    m->content_byte = content->offset;
    if(add_text_to(&m->content, content, &m->overflow))
      return OC_ENOMEM;
  }
  const struct oc_jv *r = oc_reasoning_read(&m->rtrace, msg, -1, 0, 1, 0, 0);
  if(r) {
    m->reasoning_field = (m->rtrace.sources & OC_RSRC_REASONING_CONTENT) ? "reasoning_content"
                                                                          : "reasoning";
    if(add_text_to(&m->reasoning, r, &m->overflow))
      return OC_ENOMEM;
  }
  const struct oc_jv *refusal = oc_jv_get(msg, "refusal");
  if(refusal && refusal->type == OC_JSTRING) {
    m->refusal_seen = 1;
    if(add_text_to(&m->refusal, refusal, &m->overflow))
      return OC_ENOMEM;
  }
  const struct oc_jv *calls = oc_jv_get(msg, "tool_calls");
  if(calls && calls->type == OC_JARRAY) {
    if(calls->len == 0)
      m->tool_calls_empty_array = 1;
    uint32_t ncalls = calls->len;
    if(ncalls > OC_MAX_TOOL_CALLS) {
      m->calls_dropped = ncalls - OC_MAX_TOOL_CALLS;
      ncalls = OC_MAX_TOOL_CALLS;
    }
    for(uint32_t i = 0; i < ncalls; i++) {
      const struct oc_jv *c = &calls->u.items[i];
      struct oc_tool_call *t = oc_message_call(m, (long)i, 1);
      if(!t)
        return OC_ENOMEM;
      t->first_byte = c->offset;
      t->fragments = 1;
      const struct oc_jv *fn = oc_jv_get(c, "function");
      int rc = OC_OK;
      t->id = jv_strdup_rc(oc_jv_get(c, "id"), &rc);
      t->type = jv_strdup_rc(oc_jv_get(c, "type"), &rc);
      t->name = jv_strdup_rc(oc_jv_get(fn, "name"), &rc);
      const struct oc_jv *args = oc_jv_get(fn, "arguments");
      if(args) {
        t->args_seen = 1;
        t->args_byte = args->offset;
        if(args->type == OC_JSTRING) {
          if(!rc)
            rc = add_text_to(&t->args, args, &t->args_overflow);
        }
        else {
          t->args_not_string = 1;
          if(!(t->args_actual_type = oc_strdup(oc_jv_type_name(args))))
            rc = OC_ENOMEM;
        }
      }
      if(rc)
        return rc;
    }
  }
  return OC_OK;
}

/* Add server text as a JSON string: invalid UTF-8 and NUL become U+FFFD. */
static void add_text(int *oom, cJSON *o, const char *key, const char *p, size_t n)
{
  char *t = oc_utf8_sanitize(p ? p : "", p ? n : 0);
  oc_json_put(oom, o, key, t ? cJSON_CreateString(t) : NULL);
  free(t);
}

cJSON *oc_message_to_json(const struct oc_message *m)
{
  int oom = 0;
  cJSON *o = cJSON_CreateObject();
  add_text(&oom, o, "role", m->role ? m->role : "assistant", m->role ? strlen(m->role) : 9);
  if(m->content_null)
    oc_json_put(&oom, o, "content", cJSON_CreateNull());
  else
    add_text(&oom, o, "content", m->content.data, m->content.len);
  if(m->reasoning.len)
    add_text(&oom, o, "reasoning_content", m->reasoning.data, m->reasoning.len);
  if(m->refusal_seen)
    add_text(&oom, o, "refusal", m->refusal.data, m->refusal.len);
  if(m->ncalls) {
    cJSON *arr = oc_json_put(&oom, o, "tool_calls", cJSON_CreateArray());
    for(size_t i = 0; !oom && i < m->ncalls; i++) {
      const struct oc_tool_call *t = &m->calls[i];
      cJSON *c = oc_json_put(&oom, arr, NULL, cJSON_CreateObject());
      if(t->id)
        add_text(&oom, c, "id", t->id, strlen(t->id));
      else
        oc_json_put(&oom, c, "id", cJSON_CreateNull());
      add_text(&oom, c, "type", t->type ? t->type : "function", strlen(t->type ? t->type : "function"));
      cJSON *fn = oc_json_put(&oom, c, "function", cJSON_CreateObject());
      if(t->name)
        add_text(&oom, fn, "name", t->name, strlen(t->name));
      add_text(&oom, fn, "arguments", t->args.data, t->args.len);
    }
  }
  if(m->finish_reason)
    add_text(&oom, o, "finish_reason", m->finish_reason, strlen(m->finish_reason));
  else
    oc_json_put(&oom, o, "finish_reason", cJSON_CreateNull());
  if(oom) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

/* ---- text scanning ------------------------------------------------------- */

const char *oc_message_find_template_token(const char *s, size_t len)
{
  /* Control tokens of the chat templates in common use (ChatML/Qwen,
   * Llama 2/3, Mistral, Gemma, Phi).  "<s>" alone is left out: it is
   * also ordinary HTML. */
  static const char *const tokens[] = {
    "<|im_end|>", "<|im_start|>", "<|endoftext|>", "</s>", "<|eot_id|>",
    "<|start_header_id|>", "<|end_header_id|>", "<|begin_of_text|>", "<|eom_id|>",
    "[INST]", "[/INST]", "<end_of_turn>", "<start_of_turn>", "<|end|>",
    "<|assistant|>", "<|user|>", "<|system|>",
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(tokens); i++)
    if(oc_memfind(s, len, tokens[i], strlen(tokens[i])))
      return tokens[i];
  return NULL;
}

/* A marker on one line for a message ("Action:\n```json"). */
static void marker_shown(const char *m, char *out, size_t outlen)
{
  size_t o = 0;
  for(; *m && o + 3 < outlen; m++) {
    if(*m == '\n') {
      out[o++] = '\\';
      out[o++] = 'n';
    }
    else
      out[o++] = *m;
  }
  out[o] = '\0';
}

int oc_message_find_tool_markup(const struct oc_request_info *req, const struct oc_dialect *d,
                                const char *s, size_t len, const char *field, char *out,
                                size_t outlen)
{
  size_t at = 0;
  const char *family = NULL;
  const char *marker = oc_dialect_find_marker(s, len, d, &at, &family);
  if(marker) {
    char shown[64];
    marker_shown(marker, shown, sizeof(shown));
    snprintf(out, outlen, "'%s' (%s) at offset %zu of the %s", shown, family, at, field);
    return 1;
  }
  /* A bare JSON object {"name": <offered tool>, "arguments"|"parameters": …}:
   * how Llama 3.1 and Hermes-style templates write calls.  Try the first
   * few '{' only: content is model text, not an attacker's maze. */
  int tries = 0;
  for(const char *p = memchr(s, '{', len); p && tries < 32;
      p = memchr(p + 1, '{', len - (size_t)(p + 1 - s)), tries++) {
    const char *end = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(p, len - (size_t)(p - s), &end, 0);
    if(!j)
      continue;
    const char *name = oc_json_str(j, "name");
    int has_args = oc_json_get(j, "arguments") || oc_json_get(j, "parameters");
    if(name && has_args && oc_request_has_tool(req, name)) {
      snprintf(out, outlen, "a JSON tool call to '%s' at offset %zu of the %s", name,
               (size_t)(p - s), field);
      cJSON_Delete(j);
      return 1;
    }
    cJSON_Delete(j);
    if((size_t)(p - s) + 1 >= len)
      break;
  }
  return 0;
}

/* ---- rules ---------------------------------------------------------------- */

static long where_chunk(const struct oc_message *m, long chunk)
{
  return m->streamed ? chunk : -1;
}

static void path_for(char *out, size_t outlen, const struct oc_message *m, const char *field)
{
  snprintf(out, outlen, "/choices/%d/%s%s%s", m->index, m->streamed ? "delta" : "message",
           field ? "/" : "", field ? field : "");
}

static void check_content_text(struct oc_check *c, const struct oc_request_info *req,
                               const struct oc_message *m)
{
  char path[128];
  path_for(path, sizeof(path), m, "content");
  const char *tok = oc_message_find_template_token(m->content.data ? m->content.data : "",
                                                   m->content.len);
  if(tok)
    oc_emit(c, OC_R_CHAT_CONTENT_STRING,
            OC_AT(.byte = m->content_byte, .path = path, .expected = "text without template tokens",
                  .actual = tok),
            "content of choice %d contains the template token '%s'", m->index, tok);
  if(req->tools && req->tool_choice != OC_TOOL_CHOICE_NONE && m->content.len) {
    char what[256];
    if(oc_message_find_tool_markup(req, c->dialect, m->content.data, m->content.len, "content",
                                   what, sizeof(what)))
      oc_emit(c, OC_R_TOOL_TEXT_LEAK,
              OC_AT(.byte = m->content_byte, .path = path, .expected = "tool calls in tool_calls",
                    .actual = what),
              "tools were offered but choice %d's content holds tool-call markup: %s",
              m->index, what);
  }
  if(m->streamed && oc_memfind(m->content.data ? m->content.data : "", m->content.len, "\xEF\xBF\xBD", 3))
    oc_emit(c, OC_R_STREAM_REPLACEMENT_CHAR,
            OC_AT(.path = path, .expected = "no U+FFFD", .actual = "U+FFFD"),
            "the rebuilt content of choice %d holds U+FFFD, the trace of a character "
            "split and decoded in halves", m->index);
}

static int is_known_finish(const char *f)
{
  static const char *const ok[] = { "stop", "length", "tool_calls", "content_filter",
                                    "function_call" };
  for(size_t i = 0; i < OC_ARRAY_LEN(ok); i++)
    if(oc_streq(f, ok[i]))
      return 1;
  return 0;
}

static void check_args(struct oc_check *c, const struct oc_request_info *req,
                       const struct oc_message *m, const struct oc_tool_call *t, size_t i,
                       struct oc_schema_registry *reg)
{
  char path[160];
  snprintf(path, sizeof(path), "/choices/%d/%s/tool_calls/%zu/function/arguments", m->index,
           m->streamed ? "delta" : "message", m->streamed ? (size_t)t->index : i);
  long chunk = where_chunk(m, t->first_chunk);
  int64_t byte = m->streamed ? t->first_byte : t->args_byte;
  if(t->args_not_string) {
    oc_emit(c, OC_R_TOOL_ARGS_STRING,
            OC_AT(.chunk = chunk, .byte = byte, .path = path, .expected = "string",
                  .actual = t->args_actual_type ? t->args_actual_type : "not a string"),
            "tool call %zu ('%s'): arguments is %s %s, not a string holding JSON", i,
            t->name ? t->name : "?",
            t->args_actual_type && t->args_actual_type[0] == 'o' ? "an" : "a",
            t->args_actual_type ? t->args_actual_type : "non-string");
    return;
  }
  if(t->args_overflow) {
    oc_emit(c, OC_R_TOOL_ARGS_JSON,
            OC_AT(.chunk = chunk, .byte = byte, .path = path, .expected = "arguments under 4 MiB",
                  .actual = "larger"),
            "tool call %zu's arguments exceed oacheck's cap", i);
    return;
  }
  /* A call cut off by max_tokens is truncated, not wrong: the last call
   * of a "length" message gets a warning when its arguments are the start
   * of a JSON document (the parser ran out of input, D7).  Text that
   * could never become JSON, or JSON that did end, is wrong all the same. */
  int truncated = oc_streq(m->finish_reason, "length") && i + 1 == m->ncalls;
  const char *text = t->args.data ? t->args.data : "";
  struct oc_jdoc doc;
  struct oc_jerr jerr;
  oc_jdoc_init(&doc);
  int rc = oc_jdoc_parse(&doc, text, t->args.len, &jerr);
  if(rc == OC_ENOMEM) { /* no verdict on arguments that could not be read */
    c->oom = 1;
    goto out;
  }
  if(rc) {
    int cut = truncated && jerr.offset >= t->args.len;
    char actual[96];
    snprintf(actual, sizeof(actual), "%.60s%s", text, t->args.len > 60 ? "…" : "");
    oc_emit(c, OC_R_TOOL_ARGS_JSON,
            OC_AT(.chunk = chunk, .byte = byte, .path = path, .expected = "a JSON object",
                  .actual = actual, .severity = cut ? OC_SEV_WARNING : -1),
            "tool call %zu ('%s'): arguments are not JSON (%s at byte %zu of the "
            "arguments)%s", i, t->name ? t->name : "?", jerr.message ? jerr.message : "parse error",
            jerr.offset, cut ? "; the answer was cut by finish_reason length" :
            truncated ? "; finish_reason is length, but the text is not the start of a "
            "JSON document" : "");
    goto out;
  }
  if(doc.root->type != OC_JOBJECT) {
    oc_emit(c, OC_R_TOOL_ARGS_JSON,
            OC_AT(.chunk = chunk, .byte = byte, .path = path, .expected = "a JSON object",
                  .actual = oc_jv_type_name(doc.root)),
            "tool call %zu ('%s'): arguments are JSON %s, not an object",
            i, t->name ? t->name : "?", oc_jv_type_name(doc.root));
    goto out;
  }
  const cJSON *params = oc_request_tool_parameters(req, t->name);
  if(params && reg) {
    char err[512];
    struct oc_schema *s;
    if(oc_schema_compile_rc(reg, params, NULL, 0, &s, err, sizeof(err)) == OC_ENOMEM)
      c->oom = 1;
    if(s) {
      struct oc_schema_result res;
      oc_schema_result_init(&res);
      int v = oc_schema_validate(s, doc.root, &res);
      if(v == -OC_ETOOBIG)
        oc_check_limit(c, "tool call %zu's arguments could not be validated against the tool's "
                       "parameters: %s", i, res.undecided);
      else if(v < 0)
        c->oom = 1;
      else if(v == 0) {
        for(size_t k = 0; k < res.count && k < 5; k++) {
          const struct oc_schema_error *e = &res.errors[k];
          oc_emit(c, OC_R_TOOL_ARGS_JSON,
                  OC_AT(.chunk = chunk, .byte = byte, .path = path, .expected = e->keyword,
                        .actual = e->message),
                  "tool call %zu ('%s'): arguments do not match the tool's parameters "
                  "schema at '%s': %s", i, t->name, e->instance_path, e->message);
        }
      }
      oc_schema_result_free(&res);
      oc_schema_free(s);
    }
  }
out:
  oc_jdoc_free(&doc);
}

static void check_tools(struct oc_check *c, const struct oc_request_info *req,
                        const struct oc_message *m, struct oc_schema_registry *reg)
{
  char path[128];
  path_for(path, sizeof(path), m, "tool_calls");
  if(m->tool_calls_empty_array && m->ncalls == 0)
    oc_emit(c, OC_R_TOOL_CALLS_EMPTY, OC_AT(.path = path, .expected = "absent", .actual = "[]"),
            "choice %d carries an empty tool_calls array", m->index);
  if(!req->tools)
    return;
  int forced = req->tool_choice == OC_TOOL_CHOICE_REQUIRED || req->tool_choice == OC_TOOL_CHOICE_NAMED;
  /* stopped inside reasoning, the call never had its turn: REASONING-BUDGET
   * says so instead of blaming the server's tool calling */
  if(forced && m->ncalls == 0 && !oc_reasoning_cut_inside(m))
    oc_emit(c, OC_R_TOOL_CHOICE_HONOURED,
            OC_AT(.byte = m->content_byte, .path = path,
                  .expected = req->tool_choice == OC_TOOL_CHOICE_NAMED ? req->named_tool : "a tool call",
                  .actual = m->content.len ? "text only" : "no tool call"),
            "tool_choice was %s but choice %d has no tool call (finish_reason %s)",
            req->tool_choice == OC_TOOL_CHOICE_NAMED ? "a named function" : "\"required\"",
            m->index, m->finish_reason ? m->finish_reason : "null");
  if(req->tool_choice == OC_TOOL_CHOICE_NAMED)
    for(size_t i = 0; i < m->ncalls; i++)
      if(m->calls[i].name && !oc_streq(m->calls[i].name, req->named_tool))
        oc_emit(c, OC_R_TOOL_CHOICE_HONOURED,
                OC_AT(.chunk = where_chunk(m, m->calls[i].first_chunk),
                      .byte = m->calls[i].first_byte, .path = path, .expected = req->named_tool,
                      .actual = m->calls[i].name),
                "tool_choice named '%s' but tool call %zu calls '%s'", req->named_tool, i,
                m->calls[i].name);
  if(req->parallel_tool_calls == 0 && m->ncalls > 1)
    oc_emit(c, OC_R_TOOL_PARALLEL_FALSE,
            OC_AT(.chunk = where_chunk(m, m->calls[1].first_chunk), .byte = m->calls[1].first_byte,
                  .path = path, .expected = "at most 1 tool call"),
            "parallel_tool_calls was false but choice %d has %zu tool calls", m->index,
            m->ncalls);
  if(m->ncalls == 0)
    return;
  for(size_t i = 0; i < m->ncalls; i++) {
    const struct oc_tool_call *t = &m->calls[i];
    if(!m->streamed && (!t->id || !t->id[0] || !oc_streq(t->type, "function"))) {
      char p[160];
      snprintf(p, sizeof(p), "/choices/%d/message/tool_calls/%zu/%s", m->index, i,
               (!t->id || !t->id[0]) ? "id" : "type");
      oc_emit(c, OC_R_TOOL_CALL_ID,
              OC_AT(.byte = t->first_byte, .path = p,
                    .expected = (!t->id || !t->id[0]) ? "a non-empty id" : "\"function\"",
                    .actual = (!t->id || !t->id[0]) ? (t->id ? "\"\"" : "absent") : (t->type ? t->type : "absent")),
              "tool call %zu has %s", i,
              (!t->id || !t->id[0]) ? "no usable id to answer with" : "no type \"function\"");
    }
    if(req->tools && t->name && !oc_request_has_tool(req, t->name)) {
      char p[160];
      snprintf(p, sizeof(p), "%s/%zu/function/name", path, m->streamed ? (size_t)t->index : i);
      oc_emit(c, OC_R_TOOL_CHOICE_HONOURED,
              OC_AT(.chunk = where_chunk(m, t->first_chunk), .byte = t->first_byte, .path = p,
                    .expected = "an offered tool", .actual = t->name),
              "tool call %zu calls '%s', which the request did not offer", i, t->name);
    }
    check_args(c, req, m, t, i, reg);
  }
  if(!m->finish_reason)
    return; /* STREAM-FINISH-ONCE / CHAT-FINISH-REASON report it */
  char fpath[128];
  snprintf(fpath, sizeof(fpath), "/choices/%d/finish_reason", m->index);
  if(strcmp(m->finish_reason, "tool_calls") != 0 && strcmp(m->finish_reason, "length") != 0) {
    int named = req->tool_choice == OC_TOOL_CHOICE_NAMED;
    oc_emit(c, OC_R_TOOL_FINISH_REASON,
            OC_AT(.chunk = where_chunk(m, m->finish_chunk), .byte = m->finish_byte, .path = fpath,
                  .expected = "tool_calls", .actual = m->finish_reason,
                  .severity = named ? OC_SEV_WARNING : -1),
            "choice %d has %zu tool call%s but finish_reason \"%s\"%s", m->index, m->ncalls,
            m->ncalls == 1 ? "" : "s", m->finish_reason,
            named ? " (OpenAI itself answers \"stop\" for a named tool_choice)" : "");
  }
  char cpath[128];
  path_for(cpath, sizeof(cpath), m, "content");
  if(!m->content_null && m->content.len == 0 && !m->streamed)
    oc_emit(c, OC_R_TOOL_CONTENT_NULL,
            OC_AT(.byte = m->content_byte, .path = cpath, .expected = "null", .actual = "\"\""),
            "choice %d has tool calls and content \"\" where OpenAI sends null", m->index);
}

static void check_output_format(struct oc_check *c, const struct oc_request_info *req,
                                const struct oc_message *m, struct oc_schema_registry *reg)
{
  if(req->format == OC_FORMAT_TEXT || m->ncalls || m->refusal.len || oc_reasoning_cut_inside(m))
    return; /* a message stopped inside reasoning is REASONING-BUDGET's */
  enum oc_rule_id rule = req->format == OC_FORMAT_JSON_SCHEMA ? OC_R_SCHEMA_OUTPUT : OC_R_JSON_OBJECT_OUTPUT;
  /* finish_reason length excuses JSON that max_tokens cut short (the
   * parser ran out of input), not text that never was JSON (D3) nor JSON
   * that ended and is wrong. */
  int truncated = oc_streq(m->finish_reason, "length");
  char path[128];
  path_for(path, sizeof(path), m, "content");
  const char *text = m->content.data ? m->content.data : "";
  struct oc_jdoc doc;
  struct oc_jerr jerr;
  oc_jdoc_init(&doc);
  int prc = oc_jdoc_parse(&doc, text, m->content.len, &jerr);
  if(prc == OC_ENOMEM) { /* no verdict on content that could not be read */
    c->oom = 1;
    goto out;
  }
  if(prc) {
    int cut = truncated && jerr.offset >= m->content.len;
    char actual[96];
    snprintf(actual, sizeof(actual), "%.60s%s", text, m->content.len > 60 ? "…" : "");
    oc_emit(c, rule,
            OC_AT(.byte = m->content_byte, .path = path, .expected = "JSON", .actual = actual,
                  .severity = cut ? OC_SEV_WARNING : -1),
            "response_format %s was asked but choice %d's content is not JSON (%s at "
            "byte %zu of the content)%s", req->format == OC_FORMAT_JSON_SCHEMA ? "json_schema" : "json_object",
            m->index, jerr.message ? jerr.message : "parse error", jerr.offset,
            cut ? " (the answer was cut by finish_reason length)" :
            truncated ? " (finish_reason is length, but the content is not the start of a "
            "JSON document: the format was not applied)" : "");
    goto out;
  }
  if(req->format == OC_FORMAT_JSON_OBJECT) {
    if(doc.root->type != OC_JOBJECT)
      oc_emit(c, rule,
              OC_AT(.byte = m->content_byte, .path = path, .expected = "a JSON object",
                    .actual = oc_jv_type_name(doc.root)),
              "response_format json_object was asked but choice %d's content is JSON %s",
              m->index, oc_jv_type_name(doc.root));
    goto out;
  }
  if(req->format_schema && reg) {
    char err[512];
    struct oc_schema *s;
    if(oc_schema_compile_rc(reg, req->format_schema, NULL, 0, &s, err, sizeof(err)) == OC_ENOMEM)
      c->oom = 1;
    if(!s)
      goto out; /* the request's schema is the suite's problem, reported at load */
    struct oc_schema_result res;
    oc_schema_result_init(&res);
    int v = oc_schema_validate(s, doc.root, &res);
    if(v == -OC_ETOOBIG)
      oc_check_limit(c, "choice %d's content could not be validated against the requested "
                     "schema: %s", m->index, res.undecided);
    else if(v < 0)
      c->oom = 1;
    else if(v == 0)
      for(size_t k = 0; k < res.count && k < 5; k++)
        oc_emit(c, rule,
                OC_AT(.byte = m->content_byte, .path = path, .expected = res.errors[k].keyword,
                      .actual = res.errors[k].message),
                "choice %d's content does not match the requested schema at '%s': %s",
                m->index, res.errors[k].instance_path, res.errors[k].message);
    oc_schema_result_free(&res);
    oc_schema_free(s);
  }
out:
  oc_jdoc_free(&doc);
}

void oc_message_check(struct oc_check *c, const struct oc_request_info *req,
                      const struct oc_message *m, struct oc_schema_registry *reg)
{
  if(m->calls_dropped && !m->streamed) { /* a stream reported it as it happened */
    char path[96];
    path_for(path, sizeof(path), m, "tool_calls");
    oc_emit(c, OC_R_CHAT_SIZE,
            OC_AT(.path = path, .expected = "at most 128 tool calls", .actual = "more"),
            "choice %d carries %zu tool calls more than the %d oacheck reads", m->index,
            m->calls_dropped, OC_MAX_TOOL_CALLS);
  }
  check_content_text(c, req, m);
  if(!m->streamed) {
    char fpath[128];
    snprintf(fpath, sizeof(fpath), "/choices/%d/finish_reason", m->index);
    if(!m->finish_reason)
      oc_emit(c, OC_R_CHAT_FINISH_REASON,
              OC_AT(.byte = m->finish_byte, .path = fpath,
                    .expected = "stop, length, tool_calls or content_filter",
                    .actual = "null or absent"),
              "choice %d has no finish_reason", m->index);
    else if(!is_known_finish(m->finish_reason))
      oc_emit(c, OC_R_CHAT_FINISH_REASON,
              OC_AT(.byte = m->finish_byte, .path = fpath,
                    .expected = "stop, length, tool_calls or content_filter",
                    .actual = m->finish_reason),
              "choice %d has finish_reason \"%s\", which no client knows", m->index,
              m->finish_reason);
  }
  check_tools(c, req, m, reg);
  check_output_format(c, req, m, reg);
  oc_reasoning_check(c, req, m);
}
