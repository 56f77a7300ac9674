/* client_openai_node.c — openai-node 7 (`chat.completions.create`, the
 * stream iterated by the application), modelled from its source and
 * verified against the real client on every recording (the oracle): how
 * its Stream decodes events (an event starting with [DONE] ends it, JSON
 * that does not parse throws, a truthy top-level `error` throws APIError),
 * how APIError words an HTTP error (makeMessage), and what a non-streamed
 * completion looks like once parsed (the body as JSON when it is labelled
 * so, else text, which has no choices).  The application reassembles the
 * chunks itself, with the reference's algorithm.  The helpers here are
 * shared by the stream helper (client_openai_node_stream.c) and by
 * LangChain 1 and the Agents SDK, which run openai 7 (client_langchain.c,
 * client_openai_agents_chat.c). */
#include "config.h"
#include "client_int.h"
#include "message.h"

#include <stdlib.h>
#include <string.h>

/* ---- shared: JavaScript values ----------------------------------------------------- */

int oc_js_truthy(const struct oc_jv *v)
{
  if(!v)
    return 0;
  switch(v->type) {
  case OC_JNULL:
  case OC_JFALSE: return 0;
  case OC_JNUMBER: return v->u.num != 0;
  case OC_JSTRING: return v->len > 0;
  default: return 1;
  }
}

static int tool_strict(const cJSON *tool)
{
  const cJSON *fn = cJSON_GetObjectItemCaseSensitive(tool, "function");
  return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fn, "strict"));
}

int oc_cjs_strict_tools(const struct oc_request_info *req)
{
  const cJSON *t;
  if(!req->tools)
    return 0;
  cJSON_ArrayForEach(t, req->tools)
    if(tool_strict(t))
      return 1;
  return 0;
}

int oc_cjs_tool_strict(const struct oc_request_info *req, const char *name, size_t len)
{
  const cJSON *t;
  if(!req->tools)
    return 0;
  cJSON_ArrayForEach(t, req->tools) {
    const cJSON *fn = cJSON_GetObjectItemCaseSensitive(t, "function");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(fn, "name");
    if(cJSON_IsString(n) && strlen(n->valuestring) == len && memcmp(n->valuestring, name, len) == 0)
      return tool_strict(t);
  }
  return 0;
}

/* APIError.makeMessage(status, error, message). */
static void make_message(struct oc_buf *b, int status, const struct oc_jv *error, const char *message,
                         size_t mlen)
{
  struct oc_buf msg;
  oc_buf_init(&msg, OC_CAP_CLIENT_MESSAGE);
  const struct oc_jv *m = error && error->type == OC_JOBJECT ? oc_jv_get(error, "message") : NULL;
  int have = 0;
  if(oc_js_truthy(m)) {
    if(m->type == OC_JSTRING)
      oc_buf_add(&msg, m->u.str, m->len);
    else
      oc_js_stringify(&msg, m);
    have = 1;
  }
  else if(oc_js_truthy(error)) {
    oc_js_stringify(&msg, error);
    have = 1;
  }
  else if(message && mlen) {
    oc_buf_add(&msg, message, mlen);
    have = 1;
  }
  if(status && have)
    oc_buf_printf(b, "%d %s", status, oc_buf_str(&msg));
  else if(status)
    oc_buf_printf(b, "%d status code (no body)", status);
  else if(have)
    oc_buf_add(b, oc_buf_str(&msg), msg.len);
  else
    oc_buf_adds(b, "(no status code or body)");
  oc_cbuf_free(&msg);
}

static const char *error_class(int status)
{
  switch(status) {
  case 400: return "BadRequestError";
  case 401: return "AuthenticationError";
  case 403: return "PermissionDeniedError";
  case 404: return "NotFoundError";
  case 409: return "ConflictError";
  case 422: return "UnprocessableEntityError";
  case 429: return "RateLimitError";
  default: return status >= 500 ? "InternalServerError" : "APIError";
  }
}

void oc_cjs_http_error(const struct oc_cctx *cx, const struct oc_cbody *b, struct oc_cview *v,
                       int major)
{
  /* errJSON = safeJSON(body); the text is the message only when errJSON
   * is falsy; the error is errJSON.error, or errJSON itself when that is
   * nullish */
  const struct oc_jv *json = b->root;
  int json_truthy = oc_js_truthy(json);
  const struct oc_jv *error = json && json->type == OC_JOBJECT ? oc_jv_get(json, "error") : NULL;
  /* openai 7's makeStatusError: a body object whose `error` is nullish is
   * the error itself ({error: body}), so a top-level message is kept */
  if(major >= 7 && json && (json->type == OC_JOBJECT || json->type == OC_JARRAY) &&
     (!error || error->type == OC_JNULL))
    error = json;
  struct oc_buf m;
  oc_buf_init(&m, OC_CAP_CLIENT_MESSAGE);
  make_message(&m, cx->status, error, json_truthy ? NULL : b->text, json_truthy ? 0 : b->len);
  oc_cview_raise(v, error_class(cx->status), oc_buf_str(&m), m.len);
  oc_cbuf_free(&m);
}

int oc_cjs_stream_event(struct oc_cjs_stream *s, const struct oc_cevent *ev, struct oc_cview *v)
{
  if(s->done || oc_cview_raised(v))
    return 0;
  if(ev->done_prefix) {
    s->done = 1;
    return 0;
  }
  if(!ev->root) {
    oc_cview_raise(v, "SyntaxError", "the event's data is not valid JSON (JSON.parse)", 45);
    return -1;
  }
  const struct oc_jv *error = ev->root->type == OC_JOBJECT ? ev->error : NULL;
  if(oc_js_truthy(error)) {
    struct oc_buf m;
    oc_buf_init(&m, OC_CAP_CLIENT_MESSAGE);
    make_message(&m, 0, error, NULL, 0);
    oc_cview_raise(v, "APIError", oc_buf_str(&m), m.len);
    oc_cbuf_free(&m);
    return -1;
  }
  return 1;
}

void oc_cjs_stream_extra(struct oc_cjs_stream *s, const struct oc_cextra *x, struct oc_cview *v)
{
  /* SSEDecoder dispatches a block that set a non-empty event type even
   * without data: JSON.parse("") throws */
  if(!s->done && x->kind == OC_CX_FIELDS_NO_DATA && x->type_len)
    oc_cview_raise(v, "SyntaxError", "Unexpected end of JSON input (an event without data)", 52);
}

/* ---- the model ------------------------------------------------------------------------ */

struct node {
  struct oc_cjs_stream s;
  struct oc_cacc acc;     /* the application's reassembly of the chunks */
  int own;                /* acc holds it; until then it is the reference's, chunk for chunk */
  struct oc_cview body;   /* a non-streamed answer, or any HTTP error */
  int have_body;
  int major;              /* 7, or 6 (oc_cmodel_openai_node_6) */
};

static void node_init(void *st, const struct oc_cctx *cx)
{
  (void)cx;
  struct node *n = st;
  oc_cacc_init(&n->acc);
  oc_cview_init(&n->body);
  n->major = 7;
}

/* openai 6 differs from 7 in the one place measured: a flat error
 * envelope's message (oc_cjs_http_error). */
static void node_init_6(void *st, const struct oc_cctx *cx)
{
  node_init(st, cx);
  ((struct node *)st)->major = 6;
}

/* The application reassembles with the reference's own algorithm: while
 * it takes exactly the chunks the reference takes, its answer is the
 * reference's, and nothing is kept twice. */
static void node_event(void *st, const struct oc_cctx *cx, const struct oc_cevent *ev)
{
  struct node *n = st;
  int take = oc_cjs_stream_event(&n->s, ev, &n->acc.view) == 1;
  if(!n->own && !oc_cview_raised(&n->acc.view) && take != cx->ref_takes) {
    /* the two part: from the reference's answer before this chunk */
    oc_cview_copy(&n->acc.view, cx->ref);
    n->acc.view.kind = OC_CV_ANSWER;
    n->own = 1;
  }
  if(take && n->own) {
    int oom = 0;
    oc_cacc_chunk(&n->acc, ev, &oom);
  }
}

static void node_extra(void *st, const struct oc_cctx *cx, const struct oc_cextra *x)
{
  (void)cx;
  struct node *n = st;
  oc_cjs_stream_extra(&n->s, x, &n->acc.view);
}

/* textOf(message.content): a string, the text parts of a list joined, ""
 * for none, else the value's JSON. */
static void text_of(struct oc_ctext *t, const struct oc_jv *c)
{
  if(!c || c->type == OC_JNULL) {
    oc_ctext_set(t, "", 0);
    return;
  }
  if(c->type == OC_JSTRING) {
    oc_ctext_set(t, c->u.str, c->len);
    return;
  }
  oc_ctext_set(t, "", 0);
  if(c->type == OC_JARRAY) {
    for(uint32_t i = 0; i < c->len; i++) {
      const struct oc_jv *p = &c->u.items[i];
      const struct oc_jv *text = oc_jv_get(p, "text");
      if(p->type == OC_JSTRING)
        oc_ctext_add(t, p->u.str, p->len);
      else if(text && text->type == OC_JSTRING)
        oc_ctext_add(t, text->u.str, text->len);
    }
    return;
  }
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_CONTENT);
  oc_js_stringify(&b, c);
  oc_ctext_set(t, oc_buf_str(&b), b.len);
  oc_cbuf_free(&b);
}

/* A value as the driver reads it (x ?? null): a string as is, anything
 * else but null as its JSON (so that it never equals a string the
 * reference holds). */
static void js_value(struct oc_ctext *t, const struct oc_jv *v)
{
  if(!v || v->type == OC_JNULL)
    return;
  if(v->type == OC_JSTRING) {
    oc_ctext_set(t, v->u.str, v->len);
    return;
  }
  struct oc_buf b;
  oc_buf_init(&b, 4096);
  oc_js_stringify(&b, v);
  oc_ctext_set(t, oc_buf_str(&b), b.len);
  oc_cbuf_free(&b);
}

static void node_body(void *st, const struct oc_cctx *cx, const struct oc_cbody *b)
{
  struct node *n = st;
  n->have_body = 1;
  if(cx->status < 200 || cx->status >= 300) {
    oc_cjs_http_error(cx, b, &n->body, n->major);
    return;
  }
  if(cx->stream)
    return; /* decoded as events (oc_clients_body) */
  /* defaultParseResponse: JSON when the media type says so, else text */
  int json = strstr(b->media, "application/json") != NULL || oc_endswith(b->media, "+json");
  if(cx->status == 204 || !json || b->len == 0)
    return; /* no completion object: no choices */
  if(!b->root) {
    oc_cview_raise(&n->body, "SyntaxError", "the body is not valid JSON (response.json())", 44);
    return;
  }
  if(!b->choices || b->choices->type != OC_JARRAY)
    return;
  for(size_t i = 0; i < b->nentries; i++) {
    const struct oc_centry *e = &b->entries[i];
    long idx = oc_jv_is_integer(e->index) ? oc_jv_long(e->index) : (long)e->pos;
    struct oc_cchoice *ch = oc_cview_append(&n->body, idx);
    if(!ch)
      break;
    js_value(&ch->role, e->role);
    text_of(&ch->content, e->content);
    js_value(&ch->refusal, e->refusal);
    js_value(&ch->finish, e->finish);
    if(e->tool_calls && e->tool_calls->type == OC_JARRAY)
      for(uint32_t k = 0; k < e->tool_calls->len; k++) {
        const struct oc_jv *tc = &e->tool_calls->u.items[k];
        struct oc_ccall *c = oc_cchoice_call(ch, (long)k, 1);
        if(!c)
          break;
        const struct oc_jv *fn = oc_jv_get(tc, "function");
        js_value(&c->id, oc_jv_get(tc, "id"));
        js_value(&c->name, oc_jv_get(fn, "name"));
        const struct oc_jv *args = oc_jv_get(fn, "arguments");
        if(args && args->type == OC_JSTRING)
          oc_ccall_args_add(c, args->u.str, args->len);
        else if(args && args->type != OC_JNULL) {
          struct oc_buf j;
          oc_buf_init(&j, OC_CAP_ARGUMENTS);
          oc_js_stringify(&j, args);
          oc_ccall_args_add(c, oc_buf_str(&j), j.len);
          oc_cbuf_free(&j);
        }
      }
  }
}

static void node_finish(void *st, const struct oc_cctx *cx, struct oc_cview *got,
                        struct oc_client_verdict *v)
{
  (void)v;
  struct node *n = st;
  /* an HTTP error or a non-streamed answer came as a body; a stream as
   * events (from chat.c, or decoded from a body by client.c) */
  if(n->have_body && (oc_cview_raised(&n->body) || !cx->stream)) {
    oc_cview_move(got, &n->body);
    return;
  }
  if(!n->own && !oc_cview_raised(&n->acc.view)) {
    /* in step to the end: the reference's chunks, an answer even where
     * the reference ended in an error this client never saw */
    oc_cview_copy(got, cx->ref);
    got->kind = OC_CV_ANSWER;
  }
  else
    oc_cview_move(got, &n->acc.view);
  oc_cview_sort(got);
  for(size_t i = 0; i < got->nchoices; i++)
    oc_cchoice_sort_calls(&got->choices[i]);
}

static void node_free(void *st)
{
  struct node *n = st;
  oc_cacc_free(&n->acc);
  oc_cview_free(&n->body);
}

const struct oc_cmodel oc_cmodel_openai_node = {
  .id = OC_CLIENT_OPENAI_NODE,
  .size = sizeof(struct node),
  .init = node_init,
  .event = node_event,
  .extra = node_extra,
  .body = node_body,
  .finish = node_finish,
  .free = node_free,
};

const struct oc_cmodel oc_cmodel_openai_node_6 = {
  .id = OC_CLIENT_OPENAI_NODE_6,
  .size = sizeof(struct node),
  .init = node_init_6,
  .event = node_event,
  .extra = node_extra,
  .body = node_body,
  .finish = node_finish,
  .free = node_free,
};
