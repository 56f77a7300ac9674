/* client_messages_anthropic.c — @anthropic-ai/sdk 1.15's
 * messages.create(): a non-streamed answer is the body as it came (no
 * check of its fields); a stream is iterated by the application, which
 * reassembles the events the SDK yields as the documentation says (the
 * reference's own reassembly: only the SDK's decoding is modelled).  The
 * SDK's decoder (core/streaming.js) skips an event without an `event:`
 * line and one named ping, skips empty data, throws APIError on an event
 * named error (its message: the data's `message`, else the data), and
 * throws on data that is not JSON; it reads on after message_stop.  An
 * HTTP error is an APIError whose message is "STATUS BODY". */
#include "config.h"
#include "client_messages_int.h"

#include <string.h>

struct st {
  struct oc_mmsg msg;
  int error;
  char ename[64];
  struct oc_buf emsg;
  int body;               /* the answer came as a body */
};

static void init(void *p, const struct oc_pctx *cx)
{
  struct st *s = p;
  (void)cx;
  oc_buf_init(&s->emsg, OC_CAP_CLIENT_MESSAGE);
}

static void raise_(struct st *s, const char *name, const char *msg, size_t len)
{
  if(s->error)
    return;
  s->error = 1;
  oc_strlcpy(s->ename, name, sizeof(s->ename));
  oc_buf_add(&s->emsg, msg, len < OC_CAP_CLIENT_MESSAGE ? len : OC_CAP_CLIENT_MESSAGE);
}


int oc_msdk_event(const struct oc_pevent *ev, int *raised, struct oc_buf *emsg, char *ename, size_t enlen)
{
  if(*raised || !ev->named || (ev->name_len == 4 && memcmp(ev->name, "ping", 4) == 0))
    return 0;
  if(ev->name_len == 5 && memcmp(ev->name, "error", 5) == 0) {
    size_t n = 0;
    const char *m = oc_jv_str(ev->root, "message", &n);
    *raised = 1;
    oc_strlcpy(ename, "APIError", enlen);
    if(m)
      oc_buf_add(emsg, m, n);
    else
      oc_buf_add(emsg, ev->data, ev->len < OC_CAP_CLIENT_MESSAGE ? ev->len : OC_CAP_CLIENT_MESSAGE);
    return 0;
  }
  if(!ev->len)
    return 0;
  if(!ev->root) {
    *raised = 1;
    oc_strlcpy(ename, "SyntaxError", enlen);
    oc_buf_adds(emsg, "the event's data is not JSON");
    return 0;
  }
  return 1;
}

static void event(void *p, const struct oc_pctx *cx, const struct oc_pevent *ev)
{
  struct st *s = p;
  if(cx->status < 200 || cx->status >= 300)
    return;
  if(oc_msdk_event(ev, &s->error, &s->emsg, s->ename, sizeof(s->ename)))
    oc_mmsg_event(&s->msg, ev);
}

static void body(void *p, const struct oc_pctx *cx, const char *text, size_t len, const struct oc_jv *root)
{
  struct st *s = p;
  if(cx->status >= 400) {
    struct oc_buf b;
    oc_buf_init(&b, 2 * OC_CAP_CLIENT_MESSAGE);
    oc_msdk_http_error(cx, text, len, &b);
    raise_(s, "APIError", b.data ? b.data : "", b.len);
    oc_cbuf_free(&b);
    return;
  }
  if(cx->stream)
    return;
  if(!root) {
    raise_(s, "SyntaxError", "the body is not JSON", 20);
    return;
  }
  s->body = 1;
  oc_mmsg_body(&s->msg, root);
}

/* A body's block: its input as it came, none when it has none. */
static enum oc_minput body_input(const struct oc_mblock *b, struct oc_buf *val)
{
  if(!b->has_input)
    return OC_MI_MISSING;
  if(b->input_keys)
    oc_buf_add(val, b->input.data, b->input.len);
  else
    oc_buf_adds(val, "(not an object)");
  return OC_MI_VALUE;
}

static void finish(void *p, const struct oc_pctx *cx, struct oc_client_verdict *v)
{
  struct st *s = p;
  const struct oc_mref *ref = cx->ref;
  struct oc_mres got = { .error = s->error, .emsg = s->emsg.data, .emsg_len = s->emsg.len, .msg = &s->msg };
  oc_strlcpy(got.ename, s->ename, sizeof(got.ename));
  got.stop = oc_mstop_of(&s->msg);
  if(!s->error)
    oc_mres_calls(&got, s->body ? body_input : oc_minput_reference);
  oc_mjudge(ref, &got, v);
  oc_mres_free(&got);
}

static void free_(void *p)
{
  struct st *s = p;
  oc_mmsg_free(&s->msg);
  oc_cbuf_free(&s->emsg);
}

const struct oc_pmodel oc_pmodel_anthropic = {
  .id = OC_CLIENT_ANTHROPIC,
  .size = sizeof(struct st),
  .init = init,
  .event = event,
  .body = body,
  .finish = finish,
  .free = free_,
};
