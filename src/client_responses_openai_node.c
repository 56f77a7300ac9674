/* client_responses_openai_node.c — openai-node 7's responses.create() as the
 * oracle's application uses it (tests/node/oracle/responses-clients.mjs):
 * stream:false, the Response's output; stream:true, the events the SDK's
 * Stream yields, iterated: the text is the output_text deltas as they came,
 * the calls those of the terminal Response (else of the output_item.done
 * items), the status the last Response seen had.
 *
 * What the SDK's Stream does with each event (core/streaming.js, legacy
 * mode): data that is not JSON throws SyntaxError; an `event: error` block
 * throws APIError with data.error ?? data; a truthy top-level `error`
 * throws APIError with it.  The application throws on a typed `error`
 * event and on response.failed, with their message. */
#include "config.h"
#include "client_responses_int.h"

#include <stdlib.h>
#include <string.h>

struct st {
  struct oc_rview v;
  struct oc_rview done;   /* the output_item.done items */
  int terminal;           /* a terminal Response with output replaced the calls */
};

static void init(void *p, const struct oc_pctx *cx)
{
  struct st *s = p;
  (void)cx;
  oc_rview_init(&s->v);
  oc_rview_init(&s->done);
  oc_ctext_set(&s->v.text, "", 0);
}

static void release(void *p)
{
  struct st *s = p;
  oc_rview_free(&s->v);
  oc_rview_free(&s->done);
}

/* APIError's message for an error object (makeMessage without a status):
 * its message when a string, else its JSON. */
static void api_error(struct oc_rview *v, const struct oc_jv *e)
{
  const struct oc_jv *m = e && e->type == OC_JOBJECT ? oc_jv_get(e, "message") : NULL;
  if(m && m->type == OC_JSTRING) {
    oc_rview_raise(v, "APIError", m->u.str, m->len);
    return;
  }
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_CLIENT_MESSAGE);
  if(e)
    oc_js_stringify(&b, e);
  oc_rview_raise(v, "APIError", oc_buf_str(&b), b.len);
  oc_cbuf_free(&b);
}

void oc_rjs_stream_event(struct oc_rview *v, const struct oc_pevent *ev)
{
  if(!ev->root) {
    oc_rview_raise(v, "SyntaxError", "Error reading response: malformed server-sent event JSON.", 57);
    return;
  }
  if(ev->named && ev->name_len == 5 && memcmp(ev->name, "error", 5) == 0) {
    const struct oc_jv *e = ev->root->type == OC_JOBJECT ? oc_jv_get(ev->root, "error") : NULL;
    api_error(v, e && e->type != OC_JNULL ? e : ev->root);
    return;
  }
  const struct oc_jv *e = ev->root->type == OC_JOBJECT ? oc_jv_get(ev->root, "error") : NULL;
  if(oc_js_truthy(e))
    api_error(v, e);
}

static void event(void *p, const struct oc_pctx *cx, const struct oc_pevent *ev)
{
  struct st *s = p;
  (void)cx;
  if(s->v.kind == OC_CV_ERROR)
    return;
  oc_rjs_stream_event(&s->v, ev);
  if(s->v.kind == OC_CV_ERROR || ev->root->type != OC_JOBJECT)
    return;
  const struct oc_jv *d = ev->root, *resp = oc_jv_get(d, "response");
  if(resp && resp->type == OC_JOBJECT)
    oc_rview_status(&s->v, oc_jv_get(resp, "status"));
  if(oc_rtype_is(ev, "response.output_text.delta")) {
    const struct oc_jv *delta = oc_jv_get(d, "delta");
    if(delta && delta->type == OC_JSTRING)
      oc_ctext_add(&s->v.text, delta->u.str, delta->len);
  } else if(oc_rtype_is(ev, "response.output_item.done")) {
    oc_rview_item(&s->done, oc_jv_get(d, "item"));
  } else if(oc_rtype_is(ev, "error")) {
    const struct oc_jv *m = oc_jv_get(d, "message");
    oc_rview_raise(&s->v, "StreamErrorEvent", m && m->type == OC_JSTRING ? m->u.str : "error event",
                   m && m->type == OC_JSTRING ? m->len : 11);
  } else if(oc_rtype_is(ev, "response.failed")) {
    const struct oc_jv *e = resp && resp->type == OC_JOBJECT ? oc_jv_get(resp, "error") : NULL;
    const struct oc_jv *m = e && e->type == OC_JOBJECT ? oc_jv_get(e, "message") : NULL;
    oc_rview_raise(&s->v, "ResponseFailed", m && m->type == OC_JSTRING ? m->u.str : "response.failed",
                   m && m->type == OC_JSTRING ? m->len : 15);
  } else if((oc_rtype_is(ev, "response.completed") || oc_rtype_is(ev, "response.incomplete")) && resp &&
            resp->type == OC_JOBJECT) {
    const struct oc_jv *out = oc_jv_get(resp, "output");
    if(out && out->type == OC_JARRAY && out->len) {
      /* the calls of the terminal Response; the text stays the deltas */
      struct oc_rview t;
      oc_rview_init(&t);
      oc_rview_output(&t, out, NULL);
      memcpy(s->v.calls, t.calls, sizeof(t.calls));
      s->v.ncalls = t.ncalls;
      oc_rview_free(&t);
      s->terminal = 1;
    }
  }
}

static void body(void *p, const struct oc_pctx *cx, const char *text, size_t len, const struct oc_jv *root)
{
  struct st *s = p;
  if(cx->status >= 400) {
    oc_rjs_http_error(cx, text, len, root, &s->v);
    return;
  }
  if(!root) {
    oc_rview_raise(&s->v, "SyntaxError", "the body is not JSON", 20);
    return;
  }
  s->terminal = 1;
  oc_rview_output(&s->v, root->type == OC_JOBJECT ? oc_jv_get(root, "output") : NULL,
                  root->type == OC_JOBJECT ? oc_jv_get(root, "status") : NULL);
}

static void finish(void *p, const struct oc_pctx *cx, struct oc_client_verdict *v)
{
  struct st *s = p;
  if(s->v.kind != OC_CV_ERROR && !s->terminal) {
    memcpy(s->v.calls, s->done.calls, sizeof(s->done.calls));
    s->v.ncalls = s->done.ncalls;
  }
  const struct oc_rview *ref = oc_rref_view(cx);
  oc_responses_judge(OC_RJ_STATUS, ref, &s->v, v);
  if(!v->works && s->v.kind != OC_CV_ERROR && !oc_ctext_eq(&s->v.text, &ref->text)) {
    v->cause = OC_CAUSE_SERVER;
    oc_client_add_rule(v, OC_R_RESPONSES_TEXT_JOIN);
  } else if(!v->works) {
    v->cause = OC_CAUSE_SERVER;
  }
}

const struct oc_pmodel oc_rmodel_openai_node = {
  .id = OC_CLIENT_OPENAI_NODE_RESPONSES,
  .size = sizeof(struct st),
  .init = init,
  .event = event,
  .body = body,
  .finish = finish,
  .free = release,
};
