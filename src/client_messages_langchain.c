/* client_messages_langchain.c — @langchain/anthropic 1.5 (ChatAnthropic,
 * the request's tools bound): invoke, or stream + concat.  It reads
 * through @anthropic-ai/sdk's decoder (oc_msdk_event: an event without an
 * `event:` line never arrives), then turns each event into a message
 * chunk (utils/message_outputs.js): message_start and message_delta read
 * their usage (throwing where it is missing); a delta becomes content at
 * its index whether or not a block was started there (a delta for a block
 * never started joins the answer); a tool call's arguments are its
 * input_json_delta pieces joined, read with @langchain/core's
 * parsePartialJson, which closes what a truncated text left open (a
 * "repaired" call; text it cannot read is an invalid tool call), {} when
 * none came; the stop reason is message_delta's.  A non-streamed answer
 * is the body's blocks as the SDK returned them. */
#include "config.h"
#include "client_messages_int.h"

#include <string.h>

struct st {
  struct oc_mmsg msg;
  int error;
  char ename[64];
  struct oc_buf emsg;
  int rule;               /* the rule behind the exception (enum oc_rule_id), 0: none known */
  int body;
};

static void init(void *p, const struct oc_pctx *cx)
{
  struct st *s = p;
  (void)cx;
  oc_buf_init(&s->emsg, OC_CAP_CLIENT_MESSAGE);
}

static void raise_(struct st *s, const char *name, const char *msg)
{
  if(s->error)
    return;
  s->error = 1;
  oc_strlcpy(s->ename, name, sizeof(s->ename));
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
  long ix = 0;
  if(oc_mev_is(ev, "message_start")) {
    const struct oc_jv *u = oc_jv_get(oc_jv_get(root, "message"), "usage");
    if(!u || u->type != OC_JOBJECT) {
      raise_(s, "TypeError", "Cannot read properties of undefined (reading 'cache_creation_input_tokens')");
      s->rule = OC_R_MESSAGES_USAGE;
    }
    s->msg.started = 1;
  }
  else if(oc_mev_is(ev, "message_delta")) {
    const struct oc_jv *u = oc_jv_get(root, "usage");
    if(!u || u->type != OC_JOBJECT) {
      raise_(s, "TypeError", "Cannot read properties of undefined (reading 'output_tokens')");
      s->rule = OC_R_MESSAGES_USAGE;
    }
    else
      oc_mmsg_stop_reason(&s->msg, oc_jv_get(root, "delta"));
  }
  else if(oc_mev_is(ev, "content_block_start") && oc_mev_index(ev, &ix)) {
    const struct oc_jv *cb = oc_jv_get(root, "content_block");
    if(!oc_mmsg_find(&s->msg, ix))
      oc_mmsg_add(&s->msg, ix, cb);
  }
  else if(oc_mev_is(ev, "content_block_delta") && oc_mev_index(ev, &ix)) {
    const struct oc_jv *d = oc_jv_get(root, "delta");
    struct oc_mblock *b = oc_mmsg_find(&s->msg, ix);
    const char *dt = oc_jv_str(d, "type", NULL);
    if(!b && dt && (strcmp(dt, "text_delta") == 0 || strcmp(dt, "thinking_delta") == 0)) {
      /* content at an index nobody started: merged in all the same */
      b = oc_mmsg_add(&s->msg, ix, NULL);
      if(b)
        b->kind = dt[1] == 'e' ? OC_MB_TEXT : OC_MB_THINKING;
    }
    if(b)
      oc_mblock_delta(&s->msg, b, d);
  }
}

static void body(void *p, const struct oc_pctx *cx, const char *text, size_t len, const struct oc_jv *root)
{
  struct st *s = p;
  if(cx->status >= 400) {
    struct oc_buf b;
    oc_buf_init(&b, 2 * OC_CAP_CLIENT_MESSAGE);
    oc_msdk_http_error(cx, text, len, &b);
    raise_(s, "APIError", b.data ? b.data : "");
    oc_cbuf_free(&b);
    return;
  }
  if(cx->stream)
    return;
  if(!root) {
    raise_(s, "SyntaxError", "the body is not JSON");
    return;
  }
  s->body = 1;
  oc_mmsg_body(&s->msg, root);
}

/* The joined pieces read by parsePartialJson; {} when none. */
static enum oc_minput lc_input(const struct oc_mblock *b, struct oc_buf *val)
{
  if(!b->json.len && !oc_buf_error(&b->json)) {
    oc_buf_adds(val, "{}");
    return OC_MI_VALUE;
  }
  struct oc_buf fixed;
  oc_buf_init(&fixed, OC_CAP_CLIENT_ARGS);
  enum oc_minput r = OC_MI_INVALID;
  if(!oc_buf_error(&b->json) && oc_client_partial_json(b->json.data, b->json.len, &fixed) == 0) {
    struct oc_jdoc d;
    struct oc_jerr err;
    oc_jdoc_init(&d);
    if(oc_cjdoc_parse(&d, fixed.data, fixed.len, &err) == OC_OK && d.root->type == OC_JOBJECT) {
      oc_js_stringify(val, d.root);
      r = OC_MI_VALUE;
    }
    oc_jdoc_free(&d);
  }
  oc_cbuf_free(&fixed);
  return r;
}

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
  struct oc_mres got = { .error = s->error, .emsg = s->emsg.data, .emsg_len = s->emsg.len, .msg = &s->msg };
  oc_strlcpy(got.ename, s->ename, sizeof(got.ename));
  got.rule = s->rule;
  got.stop = oc_mstop_of(&s->msg);
  if(!s->error)
    oc_mres_calls(&got, s->body ? body_input : lc_input);
  oc_mjudge(cx->ref, &got, v);
  oc_mres_free(&got);
}

static void free_(void *p)
{
  struct st *s = p;
  oc_mmsg_free(&s->msg);
  oc_cbuf_free(&s->emsg);
}

const struct oc_pmodel oc_pmodel_langchain_anthropic = {
  .id = OC_CLIENT_LANGCHAIN_ANTHROPIC,
  .size = sizeof(struct st),
  .init = init,
  .event = event,
  .body = body,
  .finish = finish,
  .free = free_,
};
