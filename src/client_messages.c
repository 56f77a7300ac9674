/* client_messages.c — Anthropic's Messages API's client family
 * (pclient.h): the reference its models are judged against (what a
 * correct client hands over, as tests/node/oracle/messages-reference.mjs
 * has it, from Anthropic's documentation), the blocks and judge the
 * models share (client_messages_int.h) and the list of its models, one
 * file per library (client_messages_*.c).  A client without a model
 * verified against its real library is not in the list. */
#include "config.h"
#include "client_messages_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- blocks ---------------------------------------------------------------- */

void oc_mmsg_free(struct oc_mmsg *m)
{
  for(size_t i = 0; i < m->nb; i++) {
    oc_cbuf_free(&m->b[i].input);
    oc_cbuf_free(&m->b[i].json);
  }
  free(m->b);
  m->b = NULL;
  m->nb = m->ab = 0;
}

static enum oc_mkind kind_of(const char *t)
{
  if(!t)
    return OC_MB_OTHER;
  if(strcmp(t, "text") == 0)
    return OC_MB_TEXT;
  if(strcmp(t, "thinking") == 0)
    return OC_MB_THINKING;
  if(strcmp(t, "tool_use") == 0)
    return OC_MB_TOOL;
  return OC_MB_OTHER;
}

struct oc_mblock *oc_mmsg_add(struct oc_mmsg *m, long index, const struct oc_jv *block)
{
  if(m->nb >= OC_MBLOCKS) {
    m->over = 1;
    return NULL;
  }
  struct oc_mblock *nb = oc_array_grow(m->b, &m->ab, m->nb + 1, sizeof(*nb));
  if(!nb) {
    oc_cnote_oom();
    return NULL;
  }
  m->b = nb;
  struct oc_mblock *b = &m->b[m->nb++];
  memset(b, 0, sizeof(*b));
  b->index = index;
  b->open = 1;
  oc_ctext_init(&b->text);
  oc_ctext_init(&b->id);
  oc_ctext_init(&b->name);
  oc_buf_init(&b->input, OC_CAP_CLIENT_ARGS);
  oc_buf_init(&b->json, OC_CAP_CLIENT_ARGS / 4);
  b->kind = kind_of(oc_jv_str(block, "type", NULL));
  size_t n = 0;
  const char *s;
  if(b->kind == OC_MB_TEXT && (s = oc_jv_str(block, "text", &n)))
    oc_ctext_add(&b->text, s, n);
  if(b->kind == OC_MB_THINKING && (s = oc_jv_str(block, "thinking", &n)))
    oc_ctext_add(&b->text, s, n);
  if((s = oc_jv_str(block, "id", &n)))
    oc_ctext_set(&b->id, s, n);
  if((s = oc_jv_str(block, "name", &n)))
    oc_ctext_set(&b->name, s, n);
  const struct oc_jv *in = oc_jv_get(block, "input");
  b->has_input = in != NULL;
  if(in && in->type == OC_JOBJECT) {
    b->input_keys = (int)in->len + 1; /* 1: an object, more: with members */
    oc_js_stringify(&b->input, in);
  }
  return b;
}

struct oc_mblock *oc_mmsg_find(struct oc_mmsg *m, long index)
{
  for(size_t i = m->nb; i-- > 0;)
    if(m->b[i].index == index)
      return &m->b[i];
  return NULL;
}

int oc_mblock_delta(struct oc_mmsg *m, struct oc_mblock *b, const struct oc_jv *delta)
{
  const char *t = oc_jv_str(delta, "type", NULL);
  size_t n = 0;
  const char *s;
  if(!t)
    return 0;
  if(strcmp(t, "text_delta") == 0 && b->kind == OC_MB_TEXT && (s = oc_jv_str(delta, "text", &n))) {
    oc_ctext_add(&b->text, s, n);
    return 1;
  }
  if(strcmp(t, "thinking_delta") == 0 && b->kind == OC_MB_THINKING &&
     (s = oc_jv_str(delta, "thinking", &n))) {
    oc_ctext_add(&b->text, s, n);
    return 1;
  }
  if(strcmp(t, "input_json_delta") == 0 && b->kind == OC_MB_TOOL &&
     (s = oc_jv_str(delta, "partial_json", &n))) {
    if(m->json_total + n > OC_MJSON_TOTAL)
      b->json.err = OC_ETOOBIG;
    else if(oc_buf_add(&b->json, s, n) == OC_OK)
      m->json_total += n;
    b->deltas++;
    return 1;
  }
  return 0;
}

void oc_mmsg_stop_reason(struct oc_mmsg *m, const struct oc_jv *delta)
{
  const struct oc_jv *sr = oc_jv_get(delta, "stop_reason");
  if(!sr)
    return;
  m->stop_set = sr->type == OC_JSTRING;
  oc_ctext_init(&m->stop);
  if(m->stop_set)
    oc_ctext_set(&m->stop, sr->u.str, sr->len);
}

void oc_mmsg_body(struct oc_mmsg *m, const struct oc_jv *root)
{
  const struct oc_jv *content = oc_jv_get(root, "content");
  for(uint32_t i = 0; content && content->type == OC_JARRAY && i < content->len; i++) {
    const struct oc_jv *blk = &content->u.items[i];
    if(blk->type != OC_JOBJECT)
      continue;
    struct oc_mblock *b = oc_mmsg_add(m, (long)i, blk);
    if(b)
      b->open = 0;
  }
  oc_mmsg_stop_reason(m, root);
  m->started = m->stopped = 1;
}

int oc_mev_index(const struct oc_pevent *ev, long *out)
{
  const struct oc_jv *ix = oc_jv_get(ev->root, "index");
  if(!ix || ix->type != OC_JNUMBER || !oc_jv_is_integer(ix))
    return 0;
  /* past 2^53 no index is exact; all such share one (no conversion
   * outside long's range) */
  *out = ix->u.num > 9007199254740992.0 ? LONG_MAX : ix->u.num < -9007199254740992.0 ? LONG_MIN : (long)ix->u.num;
  return 1;
}

int oc_mev_is(const struct oc_pevent *ev, const char *type)
{
  size_t n = strlen(type);
  return ev->type && ev->type_len == n && memcmp(ev->type, type, n) == 0;
}

int oc_mstop_of(const struct oc_mmsg *m)
{
  if(!m->stop_set)
    return OC_MSTOP_NONE;
  if(oc_ctext_eqs(&m->stop, "end_turn", 8))
    return OC_MSTOP_END;
  if(oc_ctext_eqs(&m->stop, "stop_sequence", 13))
    return OC_MSTOP_SEQ;
  if(oc_ctext_eqs(&m->stop, "max_tokens", 10))
    return OC_MSTOP_MAX;
  if(oc_ctext_eqs(&m->stop, "tool_use", 8))
    return OC_MSTOP_TOOL;
  return OC_MSTOP_OTHER;
}

void oc_mmsg_event(struct oc_mmsg *m, const struct oc_pevent *ev)
{
  const struct oc_jv *root = ev->root;
  long ix = 0;
  if(m->stopped || !root)
    return;
  if(oc_mev_is(ev, "message_start"))
    m->started = 1;
  else if(oc_mev_is(ev, "content_block_start") && oc_mev_index(ev, &ix)) {
    const struct oc_jv *cb = oc_jv_get(root, "content_block");
    if(cb && cb->type == OC_JOBJECT)
      oc_mmsg_add(m, ix, cb);
  }
  else if(oc_mev_is(ev, "content_block_delta") && oc_mev_index(ev, &ix)) {
    const struct oc_jv *d = oc_jv_get(root, "delta");
    struct oc_mblock *b = oc_mmsg_find(m, ix);
    if(b && d && d->type == OC_JOBJECT)
      oc_mblock_delta(m, b, d);
  }
  else if(oc_mev_is(ev, "content_block_stop") && oc_mev_index(ev, &ix)) {
    struct oc_mblock *b = oc_mmsg_find(m, ix);
    if(b)
      b->open = 0;
  }
  else if(oc_mev_is(ev, "message_delta")) {
    const struct oc_jv *d = oc_jv_get(root, "delta");
    if(d && d->type == OC_JOBJECT)
      oc_mmsg_stop_reason(m, d);
  }
  else if(oc_mev_is(ev, "message_stop"))
    m->stopped = 1;
}

/* ---- tool inputs ------------------------------------------------------------- */

enum oc_minput oc_minput_reference(const struct oc_mblock *b, struct oc_buf *val)
{
  if(b->json.len || oc_buf_error(&b->json)) {
    if(oc_buf_error(&b->json) || !oc_client_is_json_object(b->json.data, b->json.len))
      return OC_MI_INVALID;
    /* canonical: parsed and written again */
    struct oc_jdoc d;
    struct oc_jerr err;
    oc_jdoc_init(&d);
    if(oc_cjdoc_parse(&d, b->json.data, b->json.len, &err) == OC_OK)
      oc_js_stringify(val, d.root);
    oc_jdoc_free(&d);
    return OC_MI_VALUE;
  }
  if(b->input_keys)
    oc_buf_add(val, b->input.data, b->input.len);
  else
    oc_buf_adds(val, "{}");
  return OC_MI_VALUE;
}

int oc_mres_calls(struct oc_mres *r, oc_minput_fn fn)
{
  size_t n = 0;
  for(size_t i = 0; r->msg && i < r->msg->nb; i++)
    n += r->msg->b[i].kind == OC_MB_TOOL;
  r->ncalls = 0;
  if(!n)
    return 0;
  r->in = calloc(n, sizeof(*r->in));
  r->val = calloc(n, sizeof(*r->val));
  if(!r->in || !r->val) {
    oc_cnote_oom();
    return -1;
  }
  for(size_t i = 0; i < r->msg->nb; i++) {
    if(r->msg->b[i].kind != OC_MB_TOOL)
      continue;
    oc_buf_init(&r->val[r->ncalls], OC_CAP_CLIENT_ARGS);
    r->in[r->ncalls] = fn(&r->msg->b[i], &r->val[r->ncalls]);
    r->ncalls++;
  }
  return 0;
}

void oc_mres_free(struct oc_mres *r)
{
  for(size_t i = 0; r->val && i < r->ncalls; i++)
    oc_cbuf_free(&r->val[i]);
  free(r->val);
  free(r->in);
  r->val = NULL;
  r->in = NULL;
  r->ncalls = 0;
}

/* ---- the SDK's error text ---------------------------------------------------- */

void oc_msdk_http_error(const struct oc_pctx *cx, const char *text, size_t len, struct oc_buf *out)
{
  oc_buf_printf(out, "%d ", cx->status);
  if(len)
    oc_buf_add(out, text, len < OC_CAP_CLIENT_MESSAGE ? len : OC_CAP_CLIENT_MESSAGE);
  else
    oc_buf_adds(out, "status code (no body)");
}

/* ---- the reference ----------------------------------------------------------- */

static void ref_init(void *st, const struct oc_pctx *cx)
{
  (void)st;
  (void)cx;
}

/* errorMessage of the reference: error.message, a string error, a
 * top-level message; NULL when none. */
static char *error_message(const struct oc_jv *root, size_t *len)
{
  const struct oc_jv *e = oc_jv_get(root, "error");
  const struct oc_jv *m = e && e->type == OC_JOBJECT ? oc_jv_get(e, "message") : NULL;
  if(!m || m->type != OC_JSTRING)
    m = e && e->type == OC_JSTRING ? e : oc_jv_get(root, "message");
  if(!m || m->type != OC_JSTRING)
    return NULL;
  char *s = malloc(m->len + 1);
  if(!s) {
    oc_cnote_oom();
    return NULL;
  }
  memcpy(s, m->u.str, m->len);
  s[m->len] = '\0';
  *len = m->len;
  return s;
}

static void ref_error(struct oc_mref *r, const struct oc_jv *root)
{
  r->error = 1;
  r->done = 1;
  if(root && root->type == OC_JOBJECT) {
    r->emsg = error_message(root, &r->emsg_len);
    const struct oc_jv *e = oc_jv_get(root, "error");
    r->anthropic_shape = oc_streq(oc_jv_str(root, "type", NULL), "error") && e && e->type == OC_JOBJECT &&
                         oc_jv_str(e, "type", NULL) && oc_jv_str(e, "message", NULL);
  }
  r->openai_error = root && !r->anthropic_shape;
}

static void ref_event(void *st, const struct oc_pctx *cx, const struct oc_pevent *ev)
{
  struct oc_mref *r = st;
  if(r->done || cx->status < 200 || cx->status >= 300)
    return;
  if(!ev->named)
    r->unnamed = 1;
  if(!ev->root) {
    ref_error(r, NULL);
    return;
  }
  const struct oc_jv *root = ev->root;
  const struct oc_jv *e = oc_jv_get(root, "error");
  if((ev->name_len == 5 && memcmp(ev->name, "error", 5) == 0) || oc_mev_is(ev, "error") ||
     (root->type == OC_JOBJECT && !oc_jv_get(root, "type") && e && e->type == OC_JOBJECT)) {
    ref_error(r, root);
    return;
  }
  long ix = 0;
  /* what the server did that some client breaks on */
  const struct oc_jv *u = oc_jv_get(oc_mev_is(ev, "message_start") ? oc_jv_get(root, "message") : root, "usage");
  if((oc_mev_is(ev, "message_start") || oc_mev_is(ev, "message_delta")) && (!u || u->type != OC_JOBJECT))
    r->no_usage = 1;
  if(oc_mev_is(ev, "content_block_start") && oc_mev_index(ev, &ix)) {
    const struct oc_jv *cb = oc_jv_get(root, "content_block");
    if(ix != (long)r->msg.nb)
      r->gap = 1;
    if(oc_streq(oc_jv_str(cb, "type", NULL), "tool_use") && !oc_jv_get(cb, "input"))
      r->no_input = 1;
  }
  if(oc_mev_is(ev, "content_block_delta") && oc_mev_index(ev, &ix) && !oc_mmsg_find(&r->msg, ix))
    r->orphan = 1;
  oc_mmsg_event(&r->msg, ev);
  if(r->msg.stopped) {
    r->done = 1;
    r->stop_event = (int)ev->n;
  }
}

static void ref_body(void *st, const struct oc_pctx *cx, const char *text, size_t len,
                     const struct oc_jv *root)
{
  struct oc_mref *r = st;
  (void)text;
  if(cx->status >= 400) {
    r->http = 1;
    ref_error(r, root);
    /* no message: the body text is the message */
    if(!r->emsg && len && (r->emsg = malloc(len < OC_CAP_CLIENT_MESSAGE ? len + 1 : OC_CAP_CLIENT_MESSAGE + 1))) {
      r->emsg_len = len < OC_CAP_CLIENT_MESSAGE ? len : OC_CAP_CLIENT_MESSAGE;
      memcpy(r->emsg, text, r->emsg_len);
      r->emsg[r->emsg_len] = '\0';
    }
    return;
  }
  if(cx->stream)
    return; /* a stream not sent as one: no model reads it (not modelled) */
  if(!root || root->type != OC_JOBJECT) {
    ref_error(r, NULL);
    return;
  }
  const struct oc_jv *content = oc_jv_get(root, "content");
  if(!content || content->type != OC_JARRAY) {
    ref_error(r, root);
    return;
  }
  oc_mmsg_body(&r->msg, root);
  for(size_t i = 0; i < r->msg.nb; i++)
    if(r->msg.b[i].kind == OC_MB_TOOL && !r->msg.b[i].has_input)
      r->no_input = 1;
}

static void ref_finish(void *st, const struct oc_pctx *cx)
{
  struct oc_mref *r = st;
  if(cx->stream && cx->status >= 200 && cx->status < 300 && !r->msg.stopped && !r->error)
    r->no_stop = 1;
  r->res.error = r->error;
  r->res.emsg = r->emsg;
  r->res.emsg_len = r->emsg_len;
  r->res.msg = &r->msg;
  r->res.stop = oc_mstop_of(&r->msg);
  if(!r->error) {
    oc_mres_calls(&r->res, oc_minput_reference);
    for(size_t i = 0; i < r->res.ncalls; i++)
      r->bad_json |= r->res.in[i] == OC_MI_INVALID;
  }
}

static void ref_free(void *st)
{
  struct oc_mref *r = st;
  oc_mres_free(&r->res);
  oc_mmsg_free(&r->msg);
  free(r->emsg);
}

/* The Messages judge's keepsMessage (messages-judge.mjs): got contains
 * want or want's JSON form, whitespace left out of all three. */
static void add_stripped(struct oc_buf *b, const char *p, size_t n, int quote)
{
  static const char *const esc[256] = { ['"'] = "\\\"", ['\\'] = "\\\\", ['\n'] = "\\n", ['\r'] = "\\r",
                                        ['\t'] = "\\t", ['\b'] = "\\b", ['\f'] = "\\f" };
  for(size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)p[i];
    if(quote && esc[c])
      oc_buf_adds(b, esc[c]);
    else if(quote && c < 0x20)
      oc_buf_printf(b, "\\u%04x", c);
    else if(c != ' ' && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v')
      oc_buf_addc(b, (char)c);
  }
}

static int has(const struct oc_buf *hay, const struct oc_buf *needle)
{
  if(!needle->len)
    return 1;
  for(size_t i = 0; i + needle->len <= hay->len; i++)
    if(hay->data[i] == needle->data[0] && memcmp(hay->data + i, needle->data, needle->len) == 0)
      return 1;
  return 0;
}

static int keeps_message(const char *got, size_t glen, const char *want, size_t wlen)
{
  if(!want)
    return 1;
  struct oc_buf g, w, j;
  oc_buf_init(&g, 2 * OC_CAP_CLIENT_MESSAGE);
  oc_buf_init(&w, 2 * OC_CAP_CLIENT_MESSAGE);
  oc_buf_init(&j, 8 * OC_CAP_CLIENT_MESSAGE);
  add_stripped(&g, got ? got : "", got ? glen : 0, 0);
  add_stripped(&w, want, wlen, 0);
  add_stripped(&j, want, wlen, 1);
  int kept = has(&g, &w) || has(&g, &j);
  oc_cbuf_free(&g);
  oc_cbuf_free(&w);
  oc_cbuf_free(&j);
  return kept;
}

/* ---- the judge ---------------------------------------------------------------- */

/* The i-th block of kind k, NULL past the last. */
static const struct oc_mblock *nth(const struct oc_mmsg *m, enum oc_mkind k, size_t i)
{
  for(size_t j = 0; m && j < m->nb; j++)
    if(m->b[j].kind == k && !oc_ctext_empty(&m->b[j].text) && i-- == 0)
      return &m->b[j];
  return NULL;
}

/* The texts of kind k, block by block in their order (empty ones left
 * out): equal, or the index of the first that differs. */
static int texts_differ(const struct oc_mmsg *g, const struct oc_mmsg *r, enum oc_mkind k,
                        const struct oc_mblock **gb, const struct oc_mblock **rb)
{
  for(size_t i = 0;; i++) {
    *gb = nth(g, k, i);
    *rb = nth(r, k, i);
    if(!*gb && !*rb)
      return 0;
    if(!*gb || !*rb || !oc_ctext_eq(&(*gb)->text, &(*rb)->text))
      return 1;
  }
}

static void quote_block(const struct oc_mblock *b, char *out, size_t n)
{
  if(!b) {
    snprintf(out, n, "\"\"");
    return;
  }
  oc_ctext_quote(&b->text, out, n);
}

static int ai_class(int stop)
{
  switch(stop) {
  case OC_MSTOP_END:
  case OC_MSTOP_SEQ:
    return 1;
  case OC_MSTOP_MAX:
    return 2;
  case OC_MSTOP_TOOL:
    return 3;
  default:
    return 0;
  }
}

void oc_mrules(const struct oc_mref *ref, struct oc_client_verdict *v)
{
  if(ref->unnamed)
    oc_client_add_rule(v, OC_R_MESSAGES_EVENT_TYPE);
  if(ref->no_usage)
    oc_client_add_rule(v, OC_R_MESSAGES_USAGE);
  if(ref->orphan)
    oc_client_add_rule(v, OC_R_MESSAGES_BLOCK_ORDER);
  if(ref->gap)
    oc_client_add_rule(v, OC_R_MESSAGES_BLOCK_INDEX);
  if(ref->no_input)
    oc_client_add_rule(v, OC_R_MESSAGES_TOOL_INPUT);
  if(ref->bad_json)
    oc_client_add_rule(v, OC_R_MESSAGES_TOOL_ARGS);
  if(ref->error && ref->openai_error)
    oc_client_add_rule(v, OC_R_MESSAGES_ERROR_SHAPE);
  if(ref->no_stop)
    oc_client_add_rule(v, OC_R_MESSAGES_STOP);
}

/* A break: the rule behind it when one is known (rule >= 0), else every
 * rule the server broke that some client trips on. */
static void broke_r(const struct oc_mref *ref, struct oc_client_verdict *v, enum oc_client_outcome o, int rule)
{
  v->outcome = o;
  v->works = 0;
  v->cause = OC_CAUSE_SERVER;
  if(rule >= 0)
    oc_client_add_rule(v, (enum oc_rule_id)rule);
  else
    oc_mrules(ref, v);
}

static void broke(const struct oc_mref *ref, struct oc_client_verdict *v, enum oc_client_outcome o)
{
  broke_r(ref, v, o, -1);
}

/* The rule of a difference in the text: unnamed events or a delta for a
 * block never started, else any. */
static int text_rule(const struct oc_mref *ref)
{
  return ref->unnamed ? (int)OC_R_MESSAGES_EVENT_TYPE : ref->orphan ? (int)OC_R_MESSAGES_BLOCK_ORDER : -1;
}

/* The rule of a difference in a tool call's input. */
static int input_rule(const struct oc_mref *ref)
{
  return ref->bad_json ? (int)OC_R_MESSAGES_TOOL_ARGS : ref->gap ? (int)OC_R_MESSAGES_BLOCK_INDEX :
         ref->no_input ? (int)OC_R_MESSAGES_TOOL_INPUT : -1;
}

void oc_mjudge(const struct oc_mref *ref, const struct oc_mres *got, struct oc_client_verdict *v)
{
  const struct oc_mres *r = &ref->res;
  if(r->error) {
    if(got->error) {
      int keeps = keeps_message(got->emsg, got->emsg_len, r->emsg, r->emsg_len);
      v->outcome = OC_CO_RAISES;
      v->works = keeps;
      oc_client_reason(v, "%s: %.*s%s", got->ename, (int)(got->emsg_len < 100 ? got->emsg_len : 100),
                       got->emsg ? got->emsg : "", keeps ? "" : " (the server's message is lost)");
      if(!keeps)
        broke_r(ref, v, OC_CO_RAISES, OC_R_MESSAGES_ERROR_SHAPE);
      return;
    }
    broke_r(ref, v, OC_CO_WRONG, ref->unnamed ? OC_R_MESSAGES_EVENT_TYPE : OC_R_MESSAGES_ERROR_SHAPE);
    oc_client_reason(v, "returns an answer where the server sent an error%s%.*s%s", r->emsg ? " (\"" : "",
                     (int)(r->emsg_len < 80 ? r->emsg_len : 80), r->emsg ? r->emsg : "", r->emsg ? "\")" : "");
    return;
  }
  if(got->error) {
    broke_r(ref, v, OC_CO_RAISES, got->rule ? got->rule : -1);
    oc_client_reason(v, "%s: %.*s", got->ename, (int)(got->emsg_len < 120 ? got->emsg_len : 120),
                     got->emsg ? got->emsg : "");
    return;
  }
  char a[96], b[96];
  const struct oc_mblock *gb, *rb;
  if(texts_differ(got->msg, r->msg, OC_MB_TEXT, &gb, &rb)) {
    quote_block(gb, a, sizeof(a));
    quote_block(rb, b, sizeof(b));
    broke_r(ref, v, OC_CO_WRONG, text_rule(ref));
    oc_client_reason(v, "text %s (expected %s)", a, b);
    return;
  }
  if(got->ncalls != r->ncalls) {
    broke_r(ref, v, OC_CO_WRONG, text_rule(ref));
    oc_client_reason(v, "tool calls: %zu (expected %zu)", got->ncalls, r->ncalls);
    return;
  }
  for(size_t i = 0, gi = 0, ri = 0; i < r->ncalls; i++) {
    while(got->msg->b[gi].kind != OC_MB_TOOL)
      gi++;
    while(r->msg->b[ri].kind != OC_MB_TOOL)
      ri++;
    const struct oc_mblock *g = &got->msg->b[gi++], *w = &r->msg->b[ri++];
    if(!oc_ctext_eq(&g->name, &w->name) && !(oc_ctext_empty(&g->name) && oc_ctext_empty(&w->name))) {
      oc_ctext_quote(&g->name, a, sizeof(a));
      oc_ctext_quote(&w->name, b, sizeof(b));
      broke(ref, v, OC_CO_WRONG);
      oc_client_reason(v, "tool call %zu name %s (expected %s)", i, a, b);
      return;
    }
    if(!oc_ctext_empty(&w->id) && !oc_ctext_eq(&g->id, &w->id)) {
      broke(ref, v, OC_CO_WRONG);
      oc_client_reason(v, "tool call %zu id differs", i);
      return;
    }
    if(r->in[i] == OC_MI_INVALID) {
      if(got->in[i] != OC_MI_INVALID) {
        broke_r(ref, v, OC_CO_WRONG, input_rule(ref));
        oc_client_reason(v, "tool call %zu input %s%.*s from invalid JSON (expected it flagged invalid)", i,
                         got->in[i] == OC_MI_MISSING ? "missing" : "",
                         got->in[i] == OC_MI_VALUE ? (int)(got->val[i].len < 60 ? got->val[i].len : 60) : 0,
                         got->in[i] == OC_MI_VALUE && got->val[i].data ? got->val[i].data : "");
        return;
      }
      continue;
    }
    if(got->in[i] == OC_MI_INVALID) {
      broke_r(ref, v, OC_CO_WRONG, input_rule(ref));
      oc_client_reason(v, "tool call %zu flagged invalid (expected input %.*s)", i,
                       (int)(r->val[i].len < 60 ? r->val[i].len : 60), r->val[i].data ? r->val[i].data : "");
      return;
    }
    if(got->in[i] == OC_MI_MISSING) {
      broke_r(ref, v, OC_CO_WRONG, input_rule(ref));
      oc_client_reason(v, "tool call %zu has no input (expected %.*s)", i,
                       (int)(r->val[i].len < 60 ? r->val[i].len : 60), r->val[i].data ? r->val[i].data : "");
      return;
    }
    if(got->val[i].len != r->val[i].len ||
       (r->val[i].len && memcmp(got->val[i].data, r->val[i].data, r->val[i].len) != 0)) {
      broke_r(ref, v, OC_CO_WRONG, input_rule(ref));
      oc_client_reason(v, "tool call %zu input %.*s (expected %.*s)", i,
                       (int)(got->val[i].len < 60 ? got->val[i].len : 60), got->val[i].data ? got->val[i].data : "",
                       (int)(r->val[i].len < 60 ? r->val[i].len : 60), r->val[i].data ? r->val[i].data : "");
      return;
    }
  }
  if(got->ai_finish ? ai_class(got->stop) != ai_class(r->stop) : got->stop != r->stop) {
    broke(ref, v, OC_CO_WRONG);
    oc_client_reason(v, "the stop reason differs from the server's");
    return;
  }
  if(texts_differ(got->msg, r->msg, OC_MB_THINKING, &gb, &rb)) {
    quote_block(gb, a, sizeof(a));
    quote_block(rb, b, sizeof(b));
    broke(ref, v, OC_CO_WRONG);
    oc_client_reason(v, "thinking %s (expected %s)", a, b);
    return;
  }
  uint64_t tl = 0, kl = 0;
  for(size_t i = 0; got->msg && i < got->msg->nb; i++) {
    if(got->msg->b[i].kind == OC_MB_TEXT)
      tl += got->msg->b[i].text.len;
    if(got->msg->b[i].kind == OC_MB_THINKING)
      kl += got->msg->b[i].text.len;
  }
  oc_client_reason(v, "text %llu chars, %zu tool call%s, thinking %llu chars", (unsigned long long)tl,
                   got->ncalls, got->ncalls == 1 ? "" : "s", (unsigned long long)kl);
}

static const struct oc_pmodel *const models[] = {
  &oc_pmodel_anthropic,
  &oc_pmodel_anthropic_stream,
  &oc_pmodel_ai_sdk_anthropic,
  &oc_pmodel_langchain_anthropic,
};

const struct oc_pfamily oc_pfamily_messages = {
  .api = OC_API_MESSAGES,
  .ref_size = sizeof(struct oc_mref),
  .ref_init = ref_init,
  .ref_event = ref_event,
  .ref_body = ref_body,
  .ref_finish = ref_finish,
  .ref_free = ref_free,
  .models = models,
  .nmodels = sizeof(models) / sizeof(models[0]),
};
