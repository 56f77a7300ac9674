/* client_messages_anthropic_stream.c — @anthropic-ai/sdk 1.15's
 * messages.stream() + finalMessage() (lib/MessageStream.js), streams
 * only.  The SDK's decoder as messages.create()'s (oc_msdk_event), then
 * its accumulator: events before message_start are ignored, a second
 * message_start throws ("Unexpected event order"); a block is pushed at
 * content_block_start and a delta goes to the block at the *position*
 * of its index (content.at(index)), so a skipped index sends the deltas
 * nowhere; message_delta reads delta.stop_reason and usage.output_tokens
 * into the snapshot's usage, throwing where either is missing; a tool's
 * input is the partial parse of its joined JSON once any input_json_delta
 * arrived ({} when they were empty, a truncated text parsed as far as it
 * goes), else the start's input as it came (none when it had none).  No
 * message_start: "request ended without sending any chunks"; a delta
 * before any block throws (its listener reads the last block's type); no
 * message_stop: "stream ended without producing a Message". */
#include "config.h"
#include "client_messages_int.h"

#include <string.h>

struct st {
  struct oc_mmsg msg;     /* by position */
  int error;
  char ename[64];
  struct oc_buf emsg;
  int rule;               /* the rule behind the exception (enum oc_rule_id), 0: none known */
  int started, received, usage;
};

static void init(void *p, const struct oc_pctx *cx)
{
  struct st *s = p;
  (void)cx;
  oc_buf_init(&s->emsg, OC_CAP_CLIENT_MESSAGE);
}

static void raise_(struct st *s, const char *msg, enum oc_rule_id rule)
{
  if(s->error)
    return;
  s->rule = (int)rule;
  s->error = 1;
  oc_strlcpy(s->ename, "AnthropicError", sizeof(s->ename));
  oc_buf_adds(&s->emsg, msg);
}

static void event(void *p, const struct oc_pctx *cx, const struct oc_pevent *ev)
{
  struct st *s = p;
  if(cx->status < 200 || cx->status >= 300 || !cx->stream)
    return;
  if(!oc_msdk_event(ev, &s->error, &s->emsg, s->ename, sizeof(s->ename)))
    return;
  const struct oc_jv *root = ev->root;
  if(oc_mev_is(ev, "message_start")) {
    if(s->started) {
      raise_(s, "Unexpected event order, got message_start before receiving \"message_stop\"",
             OC_R_MESSAGES_START);
      return;
    }
    const struct oc_jv *m = oc_jv_get(root, "message");
    if(!m || m->type != OC_JOBJECT)
      return;
    s->started = 1;
    const struct oc_jv *u = oc_jv_get(m, "usage");
    s->usage = u && u->type == OC_JOBJECT;
    const struct oc_jv *c = oc_jv_get(m, "content");
    for(uint32_t i = 0; c && c->type == OC_JARRAY && i < c->len; i++)
      oc_mmsg_add(&s->msg, -1, &c->u.items[i]);
    return;
  }
  if(!s->started || s->received)
    return;
  long ix = 0;
  if(oc_mev_is(ev, "message_delta")) {
    const struct oc_jv *d = oc_jv_get(root, "delta");
    const struct oc_jv *u = oc_jv_get(root, "usage");
    if(!d || d->type == OC_JNULL) {
      raise_(s, "Cannot read properties of undefined (reading 'stop_reason')", OC_R_MESSAGES_EVENT_SCHEMA);
      return;
    }
    if(!u || u->type == OC_JNULL) {
      raise_(s, "Cannot read properties of undefined (reading 'output_tokens')", OC_R_MESSAGES_USAGE);
      return;
    }
    if(!s->usage) {
      raise_(s, "Cannot set properties of undefined (setting 'output_tokens')", OC_R_MESSAGES_USAGE);
      return;
    }
    oc_mmsg_stop_reason(&s->msg, d);
  }
  else if(oc_mev_is(ev, "content_block_start")) {
    const struct oc_jv *cb = oc_jv_get(root, "content_block");
    oc_mmsg_add(&s->msg, (long)s->msg.nb, cb && cb->type == OC_JOBJECT ? cb : NULL);
  }
  else if(oc_mev_is(ev, "content_block_delta")) {
    const struct oc_jv *d = oc_jv_get(root, "delta");
    if(!d || d->type == OC_JNULL) {
      raise_(s, "Cannot read properties of undefined (reading 'type')", OC_R_MESSAGES_EVENT_SCHEMA);
      return;
    }
    /* its listener reads the last block's type (content.at(-1).type)
     * for every delta kind it knows: with no block yet that throws */
    const char *dt = oc_jv_str(d, "type", NULL);
    if(!s->msg.nb && dt &&
       (strcmp(dt, "text_delta") == 0 || strcmp(dt, "thinking_delta") == 0 || strcmp(dt, "signature_delta") == 0 ||
        strcmp(dt, "input_json_delta") == 0 || strcmp(dt, "citations_delta") == 0)) {
      raise_(s, "Cannot read properties of undefined (reading 'type')", OC_R_MESSAGES_BLOCK_ORDER);
      return;
    }
    if(!oc_mev_index(ev, &ix))
      return;
    if(ix < 0)
      ix += (long)s->msg.nb; /* Array.prototype.at */
    if(ix >= 0 && (size_t)ix < s->msg.nb)
      oc_mblock_delta(&s->msg, &s->msg.b[ix], d);
  }
  else if(oc_mev_is(ev, "message_stop"))
    s->received = 1;
}

static void body(void *p, const struct oc_pctx *cx, const char *text, size_t len, const struct oc_jv *root)
{
  struct st *s = p;
  (void)root;
  if(cx->status >= 400 && cx->stream) {
    oc_msdk_http_error(cx, text, len, &s->emsg);
    s->error = 1;
    oc_strlcpy(s->ename, "APIError", sizeof(s->ename));
  }
}

/* The snapshot's input: the partial parse of the joined JSON once a delta
 * came, else the start's input as it came. */
static enum oc_minput stream_input(const struct oc_mblock *b, struct oc_buf *val)
{
  if(b->deltas) {
    if(!b->json.len && !oc_buf_error(&b->json)) {
      oc_buf_adds(val, "{}");
      return OC_MI_VALUE;
    }
    struct oc_jdoc d;
    struct oc_jerr err;
    oc_jdoc_init(&d);
    if(!oc_buf_error(&b->json) && oc_cjdoc_parse(&d, b->json.data, b->json.len, &err) == OC_OK)
      oc_js_stringify(val, d.root);
    else
      oc_buf_adds(val, "(partial)"); /* parsed as far as it goes: not the reference's */
    oc_jdoc_free(&d);
    return OC_MI_VALUE;
  }
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
  if(!cx->stream) {
    v->outcome = OC_CO_NOT_EXERCISED;
    oc_client_reason(v, "the stream helper is for streamed requests");
    return;
  }
  if(!s->error && cx->status >= 200 && cx->status < 300) {
    if(!s->started)
      raise_(s, "request ended without sending any chunks",
             ((const struct oc_mref *)cx->ref)->unnamed ? OC_R_MESSAGES_EVENT_TYPE : OC_R_MESSAGES_START);
    else if(!s->received)
      raise_(s, "stream ended without producing a Message with role=assistant", OC_R_MESSAGES_STOP);
  }
  struct oc_mres got = { .error = s->error, .emsg = s->emsg.data, .emsg_len = s->emsg.len, .msg = &s->msg };
  oc_strlcpy(got.ename, s->ename, sizeof(got.ename));
  got.rule = s->rule;
  got.stop = oc_mstop_of(&s->msg);
  if(!s->error)
    oc_mres_calls(&got, stream_input);
  oc_mjudge(cx->ref, &got, v);
  oc_mres_free(&got);
}

static void free_(void *p)
{
  struct st *s = p;
  oc_mmsg_free(&s->msg);
  oc_cbuf_free(&s->emsg);
}

const struct oc_pmodel oc_pmodel_anthropic_stream = {
  .id = OC_CLIENT_ANTHROPIC_STREAM,
  .size = sizeof(struct st),
  .init = init,
  .event = event,
  .body = body,
  .finish = finish,
  .free = free_,
};
