/* client_messages_ai_sdk.c — the Vercel ai SDK 7 with @ai-sdk/anthropic 4:
 * generateText / streamText, the request's tools defined and executed,
 * its tool_choice passed on.  What it does (measured, and read in
 * @ai-sdk/anthropic's dist/index.js):
 *  - every event is read whatever its `event:` line; each data is checked
 *    against the provider's zod schema of its type (message_start needs
 *    message.usage.input_tokens, message_delta usage.output_tokens, a
 *    block start a known type with its fields, a delta a known type with
 *    its text); the first event failing it, or an error event in
 *    Anthropic's shape, raises — as the stream's very first event, an
 *    error that is not Anthropic's raises "Expected a normalized
 *    Anthropic stream error", the server's message lost;
 *  - a text or thinking delta goes to the part its index opened (a
 *    content_block_start of that kind, not yet stopped): none raises
 *    "text part N not found"; a block start's own text is dropped;
 *  - a tool call is handed over at its content_block_stop only, its
 *    input the start's non-empty input or the non-empty deltas joined
 *    ("{}" when none), parsed: not JSON is a call flagged invalid, and
 *    so is a call of a tool the request did not offer (NoSuchToolError);
 *  - finishReason is the unified one (stop, length, tool-calls, other);
 *  - tool_choice any / a named tool / none is enforced after the answer
 *    (ToolChoiceViolationError);
 *  - an HTTP error's message is error.message of an Anthropic-shaped body,
 *    else the status text: OpenAI-shaped bodies lose the server's message;
 *  - a non-streamed body must be a Message (type "message", content of
 *    known blocks, a thinking block with its signature, usage with
 *    input_tokens and output_tokens): else "Invalid JSON response". */
#include "config.h"
#include "client_messages_int.h"

#include <string.h>

struct st {
  struct oc_mmsg msg;     /* by index; a tool block counts once stopped (done) */
  int error;
  char ename[64];
  struct oc_buf emsg;
  int rule;               /* the rule behind the exception (enum oc_rule_id), 0: none known */
  int first;              /* a non-ping event was read */
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

static int is_str(const struct oc_jv *o, const char *k)
{
  const struct oc_jv *v = oc_jv_get(o, k);
  return v && v->type == OC_JSTRING;
}

static int is_num(const struct oc_jv *o, const char *k)
{
  const struct oc_jv *v = oc_jv_get(o, k);
  return v && v->type == OC_JNUMBER;
}

static int is_obj(const struct oc_jv *v)
{
  return v && v->type == OC_JOBJECT;
}

/* The provider's chunk schema, for the members the models read. */
static int valid_event(const struct oc_jv *root, const char *t)
{
  if(!t)
    return 0;
  if(strcmp(t, "ping") == 0 || strcmp(t, "message_stop") == 0)
    return 1;
  if(strcmp(t, "message_start") == 0) {
    const struct oc_jv *m = oc_jv_get(root, "message");
    return is_obj(m) && is_obj(oc_jv_get(m, "usage")) && is_num(oc_jv_get(m, "usage"), "input_tokens");
  }
  if(strcmp(t, "message_delta") == 0)
    return is_obj(oc_jv_get(root, "delta")) && is_obj(oc_jv_get(root, "usage")) &&
           is_num(oc_jv_get(root, "usage"), "output_tokens");
  if(strcmp(t, "content_block_stop") == 0)
    return is_num(root, "index");
  if(strcmp(t, "content_block_start") == 0) {
    const struct oc_jv *cb = oc_jv_get(root, "content_block");
    const char *bt = oc_jv_str(cb, "type", NULL);
    if(!is_num(root, "index") || !bt)
      return 0;
    if(strcmp(bt, "text") == 0)
      return is_str(cb, "text");
    if(strcmp(bt, "thinking") == 0)
      return is_str(cb, "thinking");
    if(strcmp(bt, "redacted_thinking") == 0)
      return is_str(cb, "data");
    if(strcmp(bt, "tool_use") == 0) {
      const struct oc_jv *in = oc_jv_get(cb, "input");
      return is_str(cb, "id") && is_str(cb, "name") && (!in || in->type == OC_JOBJECT);
    }
    return 0;
  }
  if(strcmp(t, "content_block_delta") == 0) {
    const struct oc_jv *d = oc_jv_get(root, "delta");
    const char *dt = oc_jv_str(d, "type", NULL);
    if(!is_num(root, "index") || !dt)
      return 0;
    if(strcmp(dt, "text_delta") == 0)
      return is_str(d, "text");
    if(strcmp(dt, "thinking_delta") == 0)
      return is_str(d, "thinking");
    if(strcmp(dt, "signature_delta") == 0)
      return is_str(d, "signature");
    if(strcmp(dt, "input_json_delta") == 0)
      return is_str(d, "partial_json");
    return 0;
  }
  if(strcmp(t, "error") == 0) {
    const struct oc_jv *e = oc_jv_get(root, "error");
    return is_obj(e) && is_str(e, "type") && is_str(e, "message");
  }
  return 0;
}

/* The open block of kind k at this index, or NULL. */
static struct oc_mblock *open_block(struct st *s, long ix, enum oc_mkind k)
{
  struct oc_mblock *b = oc_mmsg_find(&s->msg, ix);
  return b && b->open && b->kind == k ? b : NULL;
}

static void event(void *p, const struct oc_pctx *cx, const struct oc_pevent *ev)
{
  struct st *s = p;
  if(s->error || cx->status < 200 || cx->status >= 300 || !cx->stream)
    return;
  const struct oc_jv *root = ev->root;
  const char *t = root && root->type == OC_JOBJECT ? oc_jv_str(root, "type", NULL) : NULL;
  int first = !s->first && !(t && strcmp(t, "ping") == 0);
  if(first)
    s->first = 1;
  if(!root || !valid_event(root, t)) {
    const struct oc_jv *m = t && strcmp(t, "message_start") == 0 ? oc_jv_get(root, "message") : root;
    const struct oc_jv *u = oc_jv_get(m, "usage");
    if(!s->error)
      s->rule = root && t && (strcmp(t, "message_start") == 0 || strcmp(t, "message_delta") == 0) &&
                (!u || u->type != OC_JOBJECT) ? OC_R_MESSAGES_USAGE : OC_R_MESSAGES_EVENT_SCHEMA;
    if(first)
      raise_(s, "Error", "Expected a normalized Anthropic stream error", 44);
    else
      raise_(s, root ? "TypeValidationError" : "JSONParseError", ev->data, ev->len);
    return;
  }
  long ix = 0;
  oc_mev_index(ev, &ix);
  if(strcmp(t, "error") == 0) {
    size_t n = 0;
    const char *m = oc_jv_str(oc_jv_get(root, "error"), "message", &n);
    raise_(s, "APICallError", m, n);
  }
  else if(strcmp(t, "content_block_start") == 0) {
    const struct oc_jv *cb = oc_jv_get(root, "content_block");
    const char *bt = oc_jv_str(cb, "type", NULL);
    struct oc_mblock *b = oc_mmsg_add(&s->msg, ix, cb);
    if(b && b->kind != OC_MB_TOOL)
      oc_ctext_init(&b->text); /* the start's own text is dropped */
    if(b && bt && strcmp(bt, "redacted_thinking") == 0)
      b->kind = OC_MB_THINKING;
  }
  else if(strcmp(t, "content_block_delta") == 0) {
    const struct oc_jv *d = oc_jv_get(root, "delta");
    const char *dt = oc_jv_str(d, "type", NULL);
    char m[64];
    if(strcmp(dt, "text_delta") == 0 || strcmp(dt, "thinking_delta") == 0) {
      int text = dt[1] == 'e';
      struct oc_mblock *b = open_block(s, ix, text ? OC_MB_TEXT : OC_MB_THINKING);
      if(!b) {
        int n = snprintf(m, sizeof(m), "%s part %ld not found", text ? "text" : "reasoning", ix);
        if(!s->error)
          s->rule = OC_R_MESSAGES_BLOCK_ORDER;
        raise_(s, "String", m, (size_t)n);
        return;
      }
      oc_mblock_delta(&s->msg, b, d);
    }
    else if(strcmp(dt, "input_json_delta") == 0) {
      struct oc_mblock *b = open_block(s, ix, OC_MB_TOOL);
      size_t n = 0;
      oc_jv_str(d, "partial_json", &n);
      if(b && n)
        oc_mblock_delta(&s->msg, b, d);
    }
  }
  else if(strcmp(t, "content_block_stop") == 0) {
    struct oc_mblock *b = oc_mmsg_find(&s->msg, ix);
    if(b && b->open)
      b->open = 0;
  }
  else if(strcmp(t, "message_delta") == 0)
    oc_mmsg_stop_reason(&s->msg, oc_jv_get(root, "delta"));
}

/* A non-streamed body against the response schema. */
static int valid_body(const struct oc_jv *root)
{
  const struct oc_jv *c = oc_jv_get(root, "content"), *u = oc_jv_get(root, "usage");
  if(!oc_streq(oc_jv_str(root, "type", NULL), "message") || !c || c->type != OC_JARRAY || !is_obj(u) ||
     !is_num(u, "input_tokens") || !is_num(u, "output_tokens"))
    return 0;
  for(uint32_t i = 0; i < c->len; i++) {
    const struct oc_jv *b = &c->u.items[i];
    const char *bt = oc_jv_str(b, "type", NULL);
    if(!bt)
      return 0;
    if(strcmp(bt, "text") == 0 ? !is_str(b, "text") :
       strcmp(bt, "thinking") == 0 ? !is_str(b, "thinking") || !is_str(b, "signature") :
       strcmp(bt, "redacted_thinking") == 0 ? !is_str(b, "data") :
       strcmp(bt, "tool_use") == 0 ? !is_str(b, "id") || !is_str(b, "name") : 1)
      return 0;
  }
  return 1;
}

static void body(void *p, const struct oc_pctx *cx, const char *text, size_t len, const struct oc_jv *root)
{
  struct st *s = p;
  (void)text;
  (void)len;
  if(cx->status >= 400) {
    const struct oc_jv *e = oc_jv_get(root, "error");
    size_t n = 0;
    const char *m = oc_jv_str(e, "message", &n);
    if(oc_streq(oc_jv_str(root, "type", NULL), "error") && is_obj(e) && is_str(e, "type") && m)
      raise_(s, "APICallError", m, n);
    else {
      const char *st = oc_client_status_text(cx->status);
      raise_(s, "APICallError", st, strlen(st));
    }
    return;
  }
  if(cx->stream)
    return;
  if(!root || !valid_body(root)) {
    if(!s->error)
      s->rule = OC_R_MESSAGES_SCHEMA;
    raise_(s, "APICallError", "Invalid JSON response", 21);
    return;
  }
  oc_mmsg_body(&s->msg, root);
}

/* The tool call's input: the joined text ("{}" when empty), parsed. */
static enum oc_minput ai_input(const struct oc_mblock *b, struct oc_buf *val)
{
  struct oc_buf raw;
  oc_buf_init(&raw, OC_CAP_CLIENT_ARGS);
  if(b->input_keys > 1)
    oc_buf_add(&raw, b->input.data, b->input.len);
  oc_buf_add(&raw, b->json.data ? b->json.data : "", b->json.len);
  if(!raw.len)
    oc_buf_adds(&raw, "{}");
  struct oc_jdoc d;
  struct oc_jerr err;
  oc_jdoc_init(&d);
  enum oc_minput r = OC_MI_INVALID;
  if(!oc_buf_error(&raw) && !oc_buf_error(&b->json) && oc_cjdoc_parse(&d, raw.data, raw.len, &err) == OC_OK) {
    oc_js_stringify(val, d.root);
    r = OC_MI_VALUE;
  }
  oc_jdoc_free(&d);
  oc_cbuf_free(&raw);
  return r;
}

/* A body's tool_use: its input as it came. */
static enum oc_minput body_input(const struct oc_mblock *b, struct oc_buf *val)
{
  if(!b->has_input)
    return OC_MI_INVALID;
  if(b->input_keys)
    oc_buf_add(val, b->input.data, b->input.len);
  else
    oc_buf_adds(val, "(not an object)");
  return OC_MI_VALUE;
}

static void finish(void *p, const struct oc_pctx *cx, struct oc_client_verdict *v)
{
  struct st *s = p;
  /* a tool call not stopped never reaches the application */
  if(cx->stream)
    for(size_t i = 0; i < s->msg.nb; i++)
      if(s->msg.b[i].kind == OC_MB_TOOL && s->msg.b[i].open)
        s->msg.b[i].kind = OC_MB_OTHER;
  if(!s->error && cx->status >= 200 && cx->status < 300) {
    const struct oc_request_info *rq = cx->req;
    s->rule = OC_R_MESSAGES_TOOL_CHOICE;
    size_t calls = 0, named = 0;
    for(size_t i = 0; i < s->msg.nb; i++)
      if(s->msg.b[i].kind == OC_MB_TOOL) {
        calls++;
        named += rq->named_tool && oc_ctext_eqs(&s->msg.b[i].name, rq->named_tool, strlen(rq->named_tool));
      }
    if(rq->tool_choice == OC_TOOL_CHOICE_REQUIRED && !calls)
      raise_(s, "ToolChoiceViolationError", "Model response did not contain a tool call although tool choice was required", 76);
    else if(rq->tool_choice == OC_TOOL_CHOICE_NONE && calls)
      raise_(s, "ToolChoiceViolationError", "Model response contained a tool call even though tool choice was none", 70);
    else if(rq->tool_choice == OC_TOOL_CHOICE_NAMED && !named)
      raise_(s, "ToolChoiceViolationError", "Model response did not contain a call to the required tool", 58);
  }
  struct oc_mres got = { .error = s->error, .emsg = s->emsg.data, .emsg_len = s->emsg.len, .msg = &s->msg,
                         .ai_finish = 1 };
  oc_strlcpy(got.ename, s->ename, sizeof(got.ename));
  got.rule = s->rule;
  got.stop = oc_mstop_of(&s->msg);
  if(!s->error && oc_mres_calls(&got, cx->stream ? ai_input : body_input) == 0) {
    /* a call of a tool the request did not offer: NoSuchToolError, an
     * invalid call */
    size_t k = 0;
    for(size_t i = 0; i < s->msg.nb && k < got.ncalls; i++) {
      const struct oc_ctext *nm = &s->msg.b[i].name;
      if(s->msg.b[i].kind != OC_MB_TOOL)
        continue;
      char name[OC_CTEXT_HEAD + 1];
      int offered = nm->len <= OC_CTEXT_HEAD && nm->nhead == nm->len;
      if(offered) {
        memcpy(name, nm->head, nm->nhead);
        name[nm->nhead] = '\0';
        offered = oc_request_has_tool(cx->req, name);
      }
      if(!offered)
        got.in[k] = OC_MI_INVALID;
      k++;
    }
  }
  oc_mjudge(cx->ref, &got, v);
  oc_mres_free(&got);
}

static void free_(void *p)
{
  struct st *s = p;
  oc_mmsg_free(&s->msg);
  oc_cbuf_free(&s->emsg);
}

const struct oc_pmodel oc_pmodel_ai_sdk_anthropic = {
  .id = OC_CLIENT_AI_SDK_ANTHROPIC,
  .size = sizeof(struct st),
  .init = init,
  .event = event,
  .body = body,
  .finish = finish,
  .free = free_,
};
