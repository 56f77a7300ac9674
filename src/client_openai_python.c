/* client_openai_python.c — openai-python 3.3.1 (`chat.completions.create`,
 * the stream iterated by the application; `parse()` for a json_schema
 * request, as an application with a pydantic model uses it).  No Python
 * runs here, so this model is emulated from the library's published
 * behaviour (issue 12's facts, measured with 1.109; 3.3.1's source keeps
 * each code path behind them: docs/clients.md), not verified: its SSE
 * decoder keeps a leading BOM (the first line, "\uFEFFdata: …", is an
 * unknown field, so the first event is lost), dispatches on every blank
 * line once an id was set (an empty event: JSONDecodeError), decodes each
 * line strictly as UTF-8; an event starting with [DONE] ends the stream;
 * a truthy `error` raises APIError with error.message or a fixed text;
 * chunks and completions are built without validation (a 200 carrying
 * {"error": …} is a ChatCompletion with no choices); an HTTP error's
 * message is the status and the body's Python repr, after two retries for
 * 408, 409, 429 and 5xx; parse() raises on a length or content_filter
 * finish and validates the content as pydantic would ("36" for an
 * integer is coerced).  The helpers are shared with the stream helper
 * (client_openai_python_stream.c). */
#include "config.h"
#include "client_int.h"
#include "message.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "schema.h"

/* ---- shared: Python values ---------------------------------------------------------- */

int oc_py_truthy(const struct oc_jv *v)
{
  if(!v)
    return 0;
  switch(v->type) {
  case OC_JNULL:
  case OC_JFALSE: return 0;
  case OC_JNUMBER: return v->u.num != 0;
  case OC_JSTRING:
  case OC_JARRAY:
  case OC_JOBJECT: return v->len > 0;
  default: return 1;
  }
}

static const char *py_error_class(int status)
{
  switch(status) {
  case 400: return "BadRequestError";
  case 401: return "AuthenticationError";
  case 403: return "PermissionDeniedError";
  case 404: return "NotFoundError";
  case 409: return "ConflictError";
  case 422: return "UnprocessableEntityError";
  case 429: return "RateLimitError";
  default: return status >= 500 ? "InternalServerError" : "APIStatusError";
  }
}

void oc_cpy_http_error(const struct oc_cctx *cx, const struct oc_cbody *b, struct oc_cview *v,
                       int *retried)
{
  /* _make_status_error_from_response: "Error code: N - {body}" with the
   * body as json.loads read it, else the text (stripped), else the code */
  struct oc_buf m;
  oc_buf_init(&m, OC_CAP_CLIENT_MESSAGE);
  if(b->root) {
    oc_buf_printf(&m, "Error code: %d - ", cx->status);
    if(b->root->type == OC_JSTRING)
      oc_buf_add(&m, b->root->u.str, b->root->len);
    else
      oc_py_repr(&m, b->root);
  }
  else {
    size_t s = 0, e = b->len;
    while(s < e && (b->text[s] == ' ' || (b->text[s] >= '\t' && b->text[s] <= '\r')))
      s++;
    while(e > s && (b->text[e - 1] == ' ' || (b->text[e - 1] >= '\t' && b->text[e - 1] <= '\r')))
      e--;
    if(e > s)
      oc_buf_add(&m, b->text + s, e - s);
    else
      oc_buf_printf(&m, "Error code: %d", cx->status);
  }
  *retried = cx->status == 408 || cx->status == 409 || cx->status == 429 || cx->status >= 500;
  if(*retried)
    oc_buf_adds(&m, " (after 2 retries)");
  /* repr() escapes what the server wrote (a newline, a quote): the
   * message itself is still the application's, in e.body, unescaped */
  size_t rlen = 0;
  char *raw = b->root && b->root->type != OC_JSTRING ? oc_client_error_message(b->root, &rlen) : NULL;
  if(raw) {
    oc_buf_addc(&m, '\n');
    oc_buf_add(&m, raw, rlen);
    free(raw);
  }
  oc_cview_raise(v, py_error_class(cx->status), oc_buf_str(&m), m.len);
  oc_cbuf_free(&m);
}

int oc_cpy_stream_event(struct oc_cpy_stream *s, const struct oc_cevent *ev, struct oc_cview *v)
{
  if(s->done || oc_cview_raised(v))
    return 0;
  if(ev->bom_line) {
    /* "\uFEFFdata: …" is a field nobody knows: the event loses that line */
    if(ev->data_lines == 1) {
      /* and the role it carried with it, which no later chunk repeats */
      for(size_t i = 0; i < ev->nentries && s->nlost_role < OC_CPY_LOST_ROLES; i++)
        if(ev->entries[i].role && ev->entries[i].role->type != OC_JNULL)
          s->lost_role[s->nlost_role++] = ev->entries[i].index_val;
      return 0;
    }
    oc_cview_raise(v, "JSONDecodeError", "the first event lost its first line to the BOM", 46);
    return -1;
  }
  if(ev->done_prefix) {
    s->done = 1;
    return 0;
  }
  if(!ev->root) {
    oc_cview_raise(v, "JSONDecodeError", "the event's data is not JSON (json.loads)", 41);
    return -1;
  }
  if(ev->root->type == OC_JOBJECT && oc_py_truthy(ev->error)) {
    const struct oc_jv *m = ev->error->type == OC_JOBJECT ? oc_jv_get(ev->error, "message") : NULL;
    if(m && m->type == OC_JSTRING && m->len)
      oc_cview_raise(v, "APIError", m->u.str, m->len);
    else
      oc_cview_raise(v, "APIError", "An error occurred during streaming", 34);
    return -1;
  }
  return 1;
}

void oc_cpy_mark_lost_roles(const struct oc_cpy_stream *s, struct oc_cview *got)
{
  for(size_t i = 0; i < got->nchoices; i++)
    for(size_t k = 0; k < s->nlost_role; k++)
      if(!got->choices[i].hole && got->choices[i].index == s->lost_role[k] && !got->choices[i].role.set)
        got->choices[i].role_lost = 1;
}

void oc_cpy_stream_extra(struct oc_cpy_stream *s, const struct oc_cextra *x, struct oc_cview *v)
{
  if(s->done)
    return;
  switch(x->kind) {
  case OC_CX_FIELDS_NO_DATA:
    if(x->type_len || x->last_id_set)
      oc_cview_raise(v, "JSONDecodeError", "Expecting value: line 1 column 1 (char 0) (an event without data)",
                     65);
    break;
  case OC_CX_BLANK:
    /* F09: once an id was set, every blank line dispatches */
    if(x->last_id_set)
      oc_cview_raise(v, "JSONDecodeError", "Expecting value: line 1 column 1 (char 0) (an empty event "
                     "after an id: field)", 78);
    break;
  case OC_CX_INVALID_UTF8:
    oc_cview_raise(v, "UnicodeDecodeError", "'utf-8' codec can't decode the stream's bytes", 45);
    break;
  }
}

int oc_cpy_uses_parse(const struct oc_request_info *req)
{
  return req->format == OC_FORMAT_JSON_SCHEMA;
}

const char *oc_cpy_nonstrict_tool(const struct oc_request_info *req)
{
  const cJSON *t;
  if(!req->tools)
    return NULL;
  cJSON_ArrayForEach(t, req->tools) {
    const cJSON *fn = cJSON_GetObjectItemCaseSensitive(t, "function");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(fn, "name");
    if(cJSON_IsString(name) && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fn, "strict")))
      return name->valuestring;
  }
  return NULL;
}

static int has_type(const cJSON *type, const char *want)
{
  if(cJSON_IsString(type))
    return strcmp(type->valuestring, want) == 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, type)
    if(cJSON_IsString(t) && strcmp(t->valuestring, want) == 0)
      return 1;
  return 0;
}

/* pydantic's lax mode in JSON: a number in a string for an int or a
 * float, an integral float for an int, a bool word for a bool. */
static int coercible(const cJSON *type, const struct oc_jv *inst)
{
  if(!inst)
    return 0;
  if(inst->type == OC_JSTRING) {
    char buf[64];
    if(inst->len == 0 || inst->len >= sizeof(buf))
      return 0;
    memcpy(buf, inst->u.str, inst->len);
    buf[inst->len] = '\0';
    long l;
    double d;
    if(has_type(type, "integer") && oc_parse_long(buf, -(1L << 62), 1L << 62, &l) == 0)
      return 1;
    if(has_type(type, "number") && oc_parse_double(buf, &d) == 0)
      return 1;
    if(has_type(type, "boolean")) {
      static const char *const words[] = { "true", "false", "1", "0", "yes", "no", "on", "off",
                                           "t", "f", "y", "n" };
      for(size_t i = 0; i < OC_ARRAY_LEN(words); i++)
        if(oc_strcaseeq(buf, words[i]))
          return 1;
    }
    return 0;
  }
  if(inst->type == OC_JNUMBER)
    return (has_type(type, "integer") && oc_jv_is_integer(inst)) ||
           (has_type(type, "boolean") && (inst->u.num == 0 || inst->u.num == 1));
  if(inst->type == OC_JTRUE || inst->type == OC_JFALSE)
    return has_type(type, "integer") || has_type(type, "number");
  return 0;
}

int oc_cpy_validate_content(const struct oc_cctx *cx, const char *p, size_t n, char *why,
                            size_t whylen)
{
  struct oc_jdoc d;
  struct oc_jerr err;
  oc_jdoc_init(&d);
  int rc = 0;
  if(oc_cjdoc_parse(&d, p, n, &err) != OC_OK) {
    snprintf(why, whylen, "Invalid JSON: %s", err.message ? err.message : "parse error");
    rc = 1;
    goto out;
  }
  if(!cx->reg || !cx->req->format_schema)
    goto out;
  char cerr[256];
  struct oc_schema *s = oc_schema_compile(cx->reg, cx->req->format_schema, NULL, 0, cerr, sizeof(cerr));
  if(!s) {
    /* the request's own schema is the request's problem, unless memory ran out */
    if(strstr(cerr, "memory"))
      oc_cnote_oom();
    goto out;
  }
  struct oc_schema_result res;
  oc_schema_result_init(&res);
  res.max = 64;
  int valid = oc_schema_validate(s, d.root, &res);
  if(valid < 0)
    oc_cnote_oom();
  if(valid == 0)
    for(size_t i = 0; i < res.count && !rc; i++) {
      const struct oc_schema_error *e = &res.errors[i];
      if(strcmp(e->keyword, "additionalProperties") == 0 || strcmp(e->keyword, "unevaluatedProperties") == 0)
        continue; /* extra members are ignored */
      if(strcmp(e->keyword, "type") == 0) {
        const cJSON *type = oc_json_pointer(cx->req->format_schema, e->schema_path);
        if(coercible(type, oc_jv_pointer(d.root, e->instance_path)))
          continue;
      }
      snprintf(why, whylen, "1 validation error: %s at '%s'", e->message ? e->message : e->keyword,
               e->instance_path);
      rc = 1;
    }
  oc_schema_result_free(&res);
  oc_schema_free(s);
out:
  oc_jdoc_free(&d);
  return rc;
}

/* ---- the model ------------------------------------------------------------------------ */

struct py {
  struct oc_cpy_stream s;
  struct oc_cacc acc;
  int own;                /* acc holds the answer (else: the reference's, in step) */
  struct oc_cview body;
  int have_body;
  int retried;
  int refused;
  enum oc_client_cause cause;
  enum oc_rule_id rule;
  int have_rule;
};

static void py_raise(struct py *p, struct oc_cview *v, const char *cls, const char *msg,
                     enum oc_client_cause cause, enum oc_rule_id rule)
{
  if(oc_cview_raised(v))
    return;
  oc_cview_raise(v, cls, msg, strlen(msg));
  p->cause = cause;
  p->rule = rule;
  p->have_rule = rule != OC_R__COUNT;
}

static void py_init(void *st, const struct oc_cctx *cx)
{
  struct py *p = st;
  oc_cacc_init(&p->acc);
  oc_cview_init(&p->body);
  const char *tool = !cx->stream && oc_cpy_uses_parse(cx->req) ? oc_cpy_nonstrict_tool(cx->req) : NULL;
  if(tool) {
    char msg[200];
    snprintf(msg, sizeof(msg), "`%s` is not strict. Only `strict` function tools can be auto-parsed", tool);
    py_raise(p, &p->body, "ValueError", msg, OC_CAUSE_REQUEST, OC_R__COUNT);
    p->refused = 1;
  }
}

static void py_event(void *st, const struct oc_cctx *cx, const struct oc_cevent *ev)
{
  struct py *p = st;
  if(!cx->stream)
    return;
  int r = oc_cpy_stream_event(&p->s, ev, &p->acc.view);
  if(!p->own && !oc_cview_raised(&p->acc.view) && (r == 1) != cx->ref_takes) {
    /* the application reassembles as the reference does: in step until
     * they part, then from the reference's answer before this chunk */
    oc_cview_copy(&p->acc.view, cx->ref);
    p->acc.view.kind = OC_CV_ANSWER;
    p->own = 1;
  }
  if(r == 1 && p->own) {
    int oom = 0;
    oc_cacc_chunk(&p->acc, ev, &oom);
  }
  else if(r < 0 && !p->have_rule) {
    p->cause = OC_CAUSE_SERVER;
    p->rule = ev->bom_line ? OC_R_CLIENT_BREAKS : ev->root ? OC_R_STREAM_ERROR_EVENT : OC_R_STREAM_CHUNK_JSON;
    p->have_rule = 1;
  }
}

static void py_extra(void *st, const struct oc_cctx *cx, const struct oc_cextra *x)
{
  struct py *p = st;
  if(!cx->stream || oc_cview_raised(&p->acc.view))
    return;
  oc_cpy_stream_extra(&p->s, x, &p->acc.view);
  if(oc_cview_raised(&p->acc.view)) {
    p->cause = OC_CAUSE_SERVER;
    p->rule = x->kind == OC_CX_INVALID_UTF8 ? OC_R_SSE_UTF8 : OC_R_CLIENT_BREAKS;
    p->have_rule = x->kind == OC_CX_INVALID_UTF8;
  }
}

/* parse(): what it checks once the completion is read. */
static void parse_checks(struct py *p, const struct oc_cctx *cx, const struct oc_cbody *b)
{
  for(size_t i = 0; i < b->nentries; i++) {
    const struct oc_centry *e = &b->entries[i];
    if(e->finish && e->finish->type == OC_JSTRING && e->finish->len == 6 &&
       memcmp(e->finish->u.str, "length", 6) == 0) {
      py_raise(p, &p->body, "LengthFinishReasonError", "Could not parse response content as the length "
               "limit was reached", OC_CAUSE_LENGTH, OC_R_CHAT_FINISH_REASON);
      return;
    }
    if(e->finish && e->finish->type == OC_JSTRING && e->finish->len == 14 &&
       memcmp(e->finish->u.str, "content_filter", 14) == 0) {
      py_raise(p, &p->body, "ContentFilterFinishReasonError", "Could not parse response content as the "
               "request was rejected by the content filter", OC_CAUSE_CONTENT_FILTER,
               OC_R_CHAT_FINISH_REASON);
      return;
    }
    if(e->tool_calls && e->tool_calls->type == OC_JARRAY)
      for(uint32_t k = 0; k < e->tool_calls->len; k++) {
        const struct oc_jv *fn = oc_jv_get(&e->tool_calls->u.items[k], "function");
        const struct oc_jv *name = oc_jv_get(fn, "name"), *args = oc_jv_get(fn, "arguments");
        if(name && name->type == OC_JSTRING && oc_cjs_tool_strict(cx->req, name->u.str, name->len) &&
           !(args && args->type == OC_JSTRING && oc_client_is_json_object(args->u.str, args->len))) {
          py_raise(p, &p->body, "JSONDecodeError", "a strict tool's arguments are not JSON",
                   OC_CAUSE_SERVER, OC_R_TOOL_ARGS_JSON);
          return;
        }
      }
    if(oc_py_truthy(e->content) && e->content->type == OC_JSTRING && !oc_py_truthy(e->refusal)) {
      char why[300];
      if(oc_cpy_validate_content(cx, e->content->u.str, e->content->len, why, sizeof(why))) {
        py_raise(p, &p->body, "ValidationError", why, OC_CAUSE_SERVER, OC_R_SCHEMA_OUTPUT);
        return;
      }
    }
  }
}

static void py_body(void *st, const struct oc_cctx *cx, const struct oc_cbody *b)
{
  struct py *p = st;
  p->have_body = 1;
  if(p->refused)
    return;
  if(cx->status < 200 || cx->status >= 300) {
    oc_cpy_http_error(cx, b, &p->body, &p->retried);
    return;
  }
  if(cx->stream)
    return;
  /* a JSON body is read as JSON whatever its label; text otherwise,
   * which has no .choices */
  int json = oc_endswith(b->media, "json");
  /* response.json() is json.loads on the bytes, which decodes them as
   * strict UTF-8 first: a Latin-1 "é" inside a string raises */
  size_t bad = 0;
  if(b->root && !oc_utf8_valid((const unsigned char *)b->text, b->len, &bad)) {
    char msg[120];
    snprintf(msg, sizeof(msg), "'utf-8' codec can't decode byte 0x%02x in position %zu",
             (unsigned)(unsigned char)b->text[bad], bad);
    py_raise(p, &p->body, "UnicodeDecodeError", msg, OC_CAUSE_SERVER, OC_R_JSON_BODY);
    return;
  }
  if(!b->root) {
    py_raise(p, &p->body, json ? "JSONDecodeError" : "AttributeError",
             json ? "Expecting value (response.json())" : "'str' object has no attribute 'choices'",
             OC_CAUSE_SERVER, OC_R_JSON_BODY);
    return;
  }
  if(b->root->type != OC_JOBJECT) {
    py_raise(p, &p->body, "AttributeError", "the completion is not an object: no attribute 'choices'",
             OC_CAUSE_SERVER, OC_R_CHAT_SCHEMA);
    return;
  }
  if(oc_cpy_uses_parse(cx->req)) {
    parse_checks(p, cx, b);
    if(oc_cview_raised(&p->body))
      return;
  }
  int oom = 0;
  oc_cacc_body(&p->acc, b, &oom);
}

static void py_finish(void *st, const struct oc_cctx *cx, struct oc_cview *got,
                      struct oc_client_verdict *v)
{
  struct py *p = st;
  if(p->refused || (p->have_body && oc_cview_raised(&p->body)))
    oc_cview_move(got, &p->body);
  else {
    if(cx->stream && !p->own && !oc_cview_raised(&p->acc.view)) {
      oc_cview_copy(&p->acc.view, cx->ref);
      p->acc.view.kind = OC_CV_ANSWER;
    }
    oc_cview_move(got, &p->acc.view);
    oc_cpy_mark_lost_roles(&p->s, got);
    oc_cview_sort(got);
    for(size_t i = 0; i < got->nchoices; i++)
      oc_cchoice_sort_calls(&got->choices[i]);
  }
  if(p->refused)
    v->cause = OC_CAUSE_REQUEST;
  else if(p->have_rule) {
    v->cause = p->cause;
    oc_client_add_rule(v, p->rule);
  }
  (void)cx;
}

static void py_free(void *st)
{
  struct py *p = st;
  oc_cacc_free(&p->acc);
  oc_cview_free(&p->body);
}

const struct oc_cmodel oc_cmodel_openai_python = {
  .id = OC_CLIENT_OPENAI_PYTHON,
  .size = sizeof(struct py),
  .init = py_init,
  .event = py_event,
  .extra = py_extra,
  .body = py_body,
  .finish = py_finish,
  .free = py_free,
};
