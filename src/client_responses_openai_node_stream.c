/* client_responses_openai_node_stream.c — openai-node 7's responses.stream()
 * + finalResponse() (stream:true exchanges only).  Its accumulator
 * (internal/responses/response-accumulator.js) finds the item of every
 * item-scoped event by output_index: an event without an integer one
 * throws "missing output at index undefined" (llama-server's shape).  The
 * final Response is the terminal event's, whatever its status: a
 * response.failed comes back as an answer, not an error.  Without a
 * terminal event it is the snapshot the events built, which is the
 * reference's own reassembly. */
#include "config.h"
#include "client_responses_int.h"

#include <string.h>

struct st {
  struct oc_rview v;
  int stream;
  int terminal;
  int no_index;           /* the first item event without output_index */
};

static void init(void *p, const struct oc_pctx *cx)
{
  struct st *s = p;
  oc_rview_init(&s->v);
  s->stream = cx->stream;
}

static void release(void *p)
{
  oc_rview_free(&((struct st *)p)->v);
}

static int item_scoped(const struct oc_pevent *ev)
{
  static const char *const prefixes[] = {
    "response.output_item.", "response.content_part.", "response.output_text.",
    "response.function_call_arguments.", "response.reasoning_text.", "response.reasoning_summary_",
    "response.refusal.",
  };
  if(!ev->type)
    return 0;
  for(size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
    size_t n = strlen(prefixes[i]);
    if(ev->type_len > n && memcmp(ev->type, prefixes[i], n) == 0)
      return 1;
  }
  return 0;
}

static void event(void *p, const struct oc_pctx *cx, const struct oc_pevent *ev)
{
  struct st *s = p;
  (void)cx;
  if(s->v.kind == OC_CV_ERROR || s->terminal)
    return;
  oc_rjs_stream_event(&s->v, ev);
  if(s->v.kind == OC_CV_ERROR || ev->root->type != OC_JOBJECT)
    return;
  const struct oc_jv *d = ev->root, *resp = oc_jv_get(d, "response");
  if(item_scoped(ev) && !oc_jv_is_integer(oc_jv_get(d, "output_index"))) {
    oc_rview_raise(&s->v, "OpenAIError", "missing output at index undefined", 33);
    s->no_index = 1;
    return;
  }
  if(oc_rtype_is(ev, "error")) {
    const struct oc_jv *m = oc_jv_get(d, "message");
    oc_rview_raise(&s->v, "APIError", m && m->type == OC_JSTRING ? m->u.str : NULL,
                   m && m->type == OC_JSTRING ? m->len : 0);
    return;
  }
  if((oc_rtype_is(ev, "response.completed") || oc_rtype_is(ev, "response.incomplete") ||
      oc_rtype_is(ev, "response.failed")) && resp && resp->type == OC_JOBJECT) {
    oc_rview_output(&s->v, oc_jv_get(resp, "output"), oc_jv_get(resp, "status"));
    s->terminal = 1;
  }
}

static void body(void *p, const struct oc_pctx *cx, const char *text, size_t len, const struct oc_jv *root)
{
  struct st *s = p;
  if(cx->status >= 400)
    oc_rjs_http_error(cx, text, len, root, &s->v);
  else if(!root)
    oc_rview_raise(&s->v, "SyntaxError", "the body is not JSON", 20);
  else
    s->terminal = 1; /* a stream answered with one JSON body: not measured */
}

static void finish(void *p, const struct oc_pctx *cx, struct oc_client_verdict *v)
{
  struct st *s = p;
  if(!s->stream) {
    v->outcome = OC_CO_NOT_EXERCISED;
    oc_client_reason(v, "the stream helper is for streamed requests");
    return;
  }
  const struct oc_rview *ref = oc_rref_view(cx);
  if(s->v.kind != OC_CV_ERROR && !s->terminal && ref->kind == OC_CV_ANSWER)
    oc_rview_copy_answer(&s->v, ref);
  oc_responses_judge(OC_RJ_STATUS, ref, &s->v, v);
  if(v->works)
    return;
  v->cause = OC_CAUSE_SERVER;
  if(s->no_index)
    oc_client_add_rule(v, OC_R_RESPONSES_OUTPUT_INDEX);
  else if(ref->kind == OC_CV_ERROR && s->v.kind != OC_CV_ERROR)
    oc_client_add_rule(v, OC_R_RESPONSES_ERROR_EVENT);
}

const struct oc_pmodel oc_rmodel_openai_node_stream = {
  .id = OC_CLIENT_OPENAI_NODE_RESPONSES_STREAM,
  .size = sizeof(struct st),
  .init = init,
  .event = event,
  .body = body,
  .finish = finish,
  .free = release,
};
