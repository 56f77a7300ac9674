/* client_responses.c — the Responses API's client family (pclient.h): the
 * view its models share, the reference they are judged against (what a
 * correct client hands over, as tests/node/oracle/responses-reference.mjs
 * has it), the judge (responses-judge.mjs) and the list of its models, one
 * file per library (client_responses_*.c).  A client without a model
 * verified against its real library is not in the list. */
#include "config.h"
#include "client_responses_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the view ------------------------------------------------------------ */

void oc_rview_init(struct oc_rview *v)
{
  memset(v, 0, sizeof(*v));
  oc_ctext_init(&v->text);
  oc_buf_init(&v->msg, OC_CAP_CLIENT_MESSAGE);
}

void oc_rview_free(struct oc_rview *v)
{
  oc_cbuf_free(&v->msg);
}

void oc_rview_raise(struct oc_rview *v, const char *name, const char *msg, size_t len)
{
  if(v->kind == OC_CV_ERROR)
    return;
  v->kind = OC_CV_ERROR;
  oc_strlcpy(v->err_name, name, sizeof(v->err_name));
  oc_cbuf_reset(&v->msg);
  if(msg) {
    v->msg_set = 1;
    /* a message past the cap is kept to the cap: the judge looks for the
     * server's message in what is kept */
    oc_buf_add(&v->msg, msg, len < OC_CAP_CLIENT_MESSAGE ? len : OC_CAP_CLIENT_MESSAGE);
  }
}

void oc_rview_status(struct oc_rview *v, const struct oc_jv *status)
{
  if(status && status->type == OC_JSTRING)
    oc_strlcpy(v->status, status->u.str, sizeof(v->status));
}

static void set_call(struct oc_rcall *c, const struct oc_jv *item)
{
  oc_ctext_init(&c->name);
  oc_ctext_init(&c->call_id);
  oc_ctext_init(&c->args);
  const struct oc_jv *n = oc_jv_get(item, "name"), *id = oc_jv_get(item, "call_id");
  const struct oc_jv *a = oc_jv_get(item, "arguments");
  if(n && n->type == OC_JSTRING)
    oc_ctext_set(&c->name, n->u.str, n->len);
  if(id && id->type == OC_JSTRING)
    oc_ctext_set(&c->call_id, id->u.str, id->len);
  if(a && a->type == OC_JSTRING) {
    oc_ctext_set(&c->args, a->u.str, a->len);
    c->args_object = oc_client_is_json_object(a->u.str, a->len);
  } else {
    oc_ctext_set(&c->args, "", 0);
  }
}

void oc_rview_item(struct oc_rview *v, const struct oc_jv *it)
{
  if(!it || it->type != OC_JOBJECT)
    return;
  const struct oc_jv *t = oc_jv_get(it, "type");
  if(!t || t->type != OC_JSTRING)
    return;
  if(strcmp(t->u.str, "message") == 0) {
    v->message_item = 1;
    const struct oc_jv *content = oc_jv_get(it, "content");
    for(size_t i = 0; content && content->type == OC_JARRAY && i < content->len; i++) {
      const struct oc_jv *p = &content->u.items[i];
      const struct oc_jv *pt = oc_jv_get(p, "type"), *tx = oc_jv_get(p, "text");
      if(pt && pt->type == OC_JSTRING && strcmp(pt->u.str, "output_text") == 0 && tx &&
         tx->type == OC_JSTRING)
        oc_ctext_add(&v->text, tx->u.str, tx->len);
    }
  } else if(strcmp(t->u.str, "function_call") == 0) {
    if(v->ncalls < OC_RCALLS)
      set_call(&v->calls[v->ncalls], it);
    v->ncalls++;
  }
}

void oc_rview_output(struct oc_rview *v, const struct oc_jv *output, const struct oc_jv *status)
{
  v->kind = OC_CV_ANSWER;
  oc_ctext_init(&v->text);
  oc_ctext_set(&v->text, "", 0);
  v->ncalls = 0;
  v->message_item = 0;
  v->status[0] = '\0';
  for(size_t i = 0; output && output->type == OC_JARRAY && i < output->len; i++)
    oc_rview_item(v, &output->u.items[i]);
  oc_rview_status(v, status);
}

void oc_rview_copy_answer(struct oc_rview *dst, const struct oc_rview *src)
{
  dst->kind = OC_CV_ANSWER;
  dst->text = src->text;
  memcpy(dst->calls, src->calls, sizeof(dst->calls));
  dst->ncalls = src->ncalls;
  dst->message_item = src->message_item;
  memcpy(dst->status, src->status, sizeof(dst->status));
}

int oc_rtype_is(const struct oc_pevent *ev, const char *s)
{
  size_t n = strlen(s);
  return ev->type && ev->type_len == n && memcmp(ev->type, s, n) == 0;
}

void oc_rjs_http_error(const struct oc_pctx *cx, const char *text, size_t len, const struct oc_jv *root,
                       struct oc_rview *v)
{
  struct oc_cctx c = { .req = cx->req, .status = cx->status, .reason = "", .media = cx->media };
  struct oc_cbody b = { .status = cx->status, .media = cx->media, .text = text, .len = len, .root = root };
  struct oc_cview cv;
  oc_cview_init(&cv);
  oc_cjs_http_error(&c, &b, &cv, 7);
  oc_rview_raise(v, cv.err_name, oc_buf_str(&cv.err_msg), cv.err_msg.len);
  oc_cview_free(&cv);
}

/* ---- the reference -------------------------------------------------------- */

#define OC_RITEMS 64
/* The bytes the reference keeps of all its items' texts: a single message
 * is judged by its exact hash whatever its size, several are joined from
 * these bytes, and arguments past the budget are judged unparsable. */
#define OC_RREF_TEXT (16u << 20)

enum { RI_OTHER = 0, RI_MESSAGE, RI_CALL };

struct ritem {
  struct oc_ctext id;     /* unset: an item without id (never matched again) */
  int type;
  struct oc_ctext exact;  /* a message's text, a call's arguments */
  struct oc_buf text;     /* the same bytes, within the reference's budget */
  int over;               /* some did not fit */
  struct oc_ctext name, call_id;
};

struct rref {
  struct oc_rview view;
  struct ritem items[OC_RITEMS];
  size_t nitems;
  int stopped;            /* an error or a terminal event decided the view */
  char status[24];
  size_t kept;            /* bytes in the items' buffers (OC_RREF_TEXT) */
};

static void ref_init(void *st, const struct oc_pctx *cx)
{
  struct rref *r = st;
  (void)cx;
  oc_rview_init(&r->view);
}

static void ref_free(void *st)
{
  struct rref *r = st;
  oc_rview_free(&r->view);
  for(size_t i = 0; i < r->nitems && i < OC_RITEMS; i++)
    oc_cbuf_free(&r->items[i].text);
}

/* The error message of a JSON value as errorMessageOf has it (no body text). */
static void ref_raise(struct rref *r, const struct oc_jv *v)
{
  size_t n = 0;
  char *m = oc_client_error_message(v, &n);
  oc_rview_raise(&r->view, "ServerError", m, n);
  free(m);
  r->stopped = 1;
}

static int type_of(const struct oc_jv *t)
{
  if(!t || t->type != OC_JSTRING)
    return RI_OTHER;
  if(strcmp(t->u.str, "message") == 0)
    return RI_MESSAGE;
  if(strcmp(t->u.str, "function_call") == 0)
    return RI_CALL;
  return RI_OTHER;
}

static struct ritem *ref_item(struct rref *r, const struct oc_jv *id, int type)
{
  if(id && id->type == OC_JSTRING)
    for(size_t i = 0; i < r->nitems && i < OC_RITEMS; i++)
      if(r->items[i].id.set && oc_ctext_eqs(&r->items[i].id, id->u.str, id->len))
        return &r->items[i];
  if(r->nitems >= OC_RITEMS) {
    r->nitems++;
    return NULL;
  }
  struct ritem *it = &r->items[r->nitems++];
  oc_ctext_init(&it->id);
  oc_ctext_init(&it->exact);
  oc_ctext_set(&it->exact, "", 0);
  oc_ctext_init(&it->name);
  oc_ctext_init(&it->call_id);
  if(id && id->type == OC_JSTRING)
    oc_ctext_set(&it->id, id->u.str, id->len);
  it->type = type;
  oc_buf_init(&it->text, OC_RREF_TEXT);
  return it;
}

/* Replace (set) or extend an item's text. */
static void item_text(struct rref *r, struct ritem *it, const char *p, size_t n, int set)
{
  if(set) {
    r->kept -= it->text.len;
    oc_cbuf_reset(&it->text);
    oc_ctext_set(&it->exact, p, n);
    it->over = 0;
  } else {
    oc_ctext_add(&it->exact, p, n);
  }
  if(it->over || n > OC_RREF_TEXT - r->kept || oc_buf_add(&it->text, p, n) != OC_OK) {
    it->over = 1;
    return;
  }
  r->kept += n;
}

static void ref_from_item(struct rref *r, const struct oc_jv *item, int done)
{
  if(!item || item->type != OC_JOBJECT)
    return;
  const struct oc_jv *t = oc_jv_get(item, "type");
  struct ritem *it = ref_item(r, oc_jv_get(item, "id"), type_of(t));
  if(!it)
    return;
  if(t && t->type == OC_JSTRING)
    it->type = type_of(t);
  if(it->type == RI_CALL) {
    const struct oc_jv *n = oc_jv_get(item, "name"), *c = oc_jv_get(item, "call_id");
    const struct oc_jv *a = oc_jv_get(item, "arguments");
    if(n && n->type == OC_JSTRING)
      oc_ctext_set(&it->name, n->u.str, n->len);
    if(c && c->type == OC_JSTRING)
      oc_ctext_set(&it->call_id, c->u.str, c->len);
    if(done && a && a->type == OC_JSTRING)
      item_text(r, it, a->u.str, a->len, 1);
  } else if(it->type == RI_MESSAGE && done) {
    const struct oc_jv *content = oc_jv_get(item, "content");
    if(content && content->type == OC_JARRAY) {
      item_text(r, it, "", 0, 1);
      for(size_t i = 0; i < content->len; i++) {
        const struct oc_jv *p = &content->u.items[i];
        const struct oc_jv *pt = oc_jv_get(p, "type"), *tx = oc_jv_get(p, "text");
        if(pt && pt->type == OC_JSTRING && strcmp(pt->u.str, "output_text") == 0 && tx &&
           tx->type == OC_JSTRING)
          item_text(r, it, tx->u.str, tx->len, 0);
      }
    }
  }
}

static void ref_text(struct rref *r, const struct oc_jv *root, int type, const char *member, int set)
{
  const struct oc_jv *s = oc_jv_get(root, member);
  if(!s || s->type != OC_JSTRING)
    return;
  struct ritem *it = ref_item(r, oc_jv_get(root, "item_id"), type);
  if(!it)
    return;
  item_text(r, it, s->u.str, s->len, set);
}

static void ref_event(void *st, const struct oc_pctx *cx, const struct oc_pevent *ev)
{
  struct rref *r = st;
  (void)cx;
  if(r->stopped)
    return;
  if(!ev->root) {
    oc_rview_raise(&r->view, "ServerError", NULL, 0);
    r->stopped = 1;
    return;
  }
  if(ev->root->type != OC_JOBJECT)
    return;
  const struct oc_jv *d = ev->root, *tv = oc_jv_get(d, "type");
  if(oc_rtype_is(ev, "error")) {
    const struct oc_jv *m = oc_jv_get(d, "message");
    if(m && m->type == OC_JSTRING) {
      oc_rview_raise(&r->view, "ServerError", m->u.str, m->len);
      r->stopped = 1;
    } else {
      ref_raise(r, d);
    }
    return;
  }
  const struct oc_jv *err = oc_jv_get(d, "error");
  if(!tv && err && err->type != OC_JNULL) {
    ref_raise(r, d);
    return;
  }
  const struct oc_jv *resp = oc_jv_get(d, "response");
  if(oc_rtype_is(ev, "response.failed")) {
    ref_raise(r, resp && resp->type == OC_JOBJECT ? resp : NULL);
    return;
  }
  if(ev->type && ev->type_len > 9 && memcmp(ev->type, "response.", 9) == 0 && resp &&
     resp->type == OC_JOBJECT) {
    const struct oc_jv *s = oc_jv_get(resp, "status");
    if(s && s->type == OC_JSTRING)
      oc_strlcpy(r->status, s->u.str, sizeof(r->status));
  }
  if(oc_rtype_is(ev, "response.output_item.added"))
    ref_from_item(r, oc_jv_get(d, "item"), 0);
  else if(oc_rtype_is(ev, "response.output_item.done"))
    ref_from_item(r, oc_jv_get(d, "item"), 1);
  else if(oc_rtype_is(ev, "response.output_text.delta"))
    ref_text(r, d, RI_MESSAGE, "delta", 0);
  else if(oc_rtype_is(ev, "response.output_text.done"))
    ref_text(r, d, RI_MESSAGE, "text", 1);
  else if(oc_rtype_is(ev, "response.function_call_arguments.delta"))
    ref_text(r, d, RI_CALL, "delta", 0);
  else if(oc_rtype_is(ev, "response.function_call_arguments.done"))
    ref_text(r, d, RI_CALL, "arguments", 1);
  else if((oc_rtype_is(ev, "response.completed") || oc_rtype_is(ev, "response.incomplete")) && resp &&
          resp->type == OC_JOBJECT) {
    r->stopped = 1;
    const struct oc_jv *out = oc_jv_get(resp, "output");
    if(out && out->type == OC_JARRAY && out->len)
      oc_rview_output(&r->view, out, oc_jv_get(resp, "status"));
    else
      r->stopped = 2; /* the items, with this status */
  }
}

static void ref_body(void *st, const struct oc_pctx *cx, const char *text, size_t len,
                     const struct oc_jv *root)
{
  struct rref *r = st;
  r->stopped = 1;
  if(cx->status >= 400) {
    size_t n = 0;
    char *m = oc_client_error_message(root, &n);
    if(m)
      oc_rview_raise(&r->view, "ServerError", m, n);
    else
      oc_rview_raise(&r->view, "ServerError", len ? text : NULL, len);
    free(m);
    return;
  }
  if(!root || (root->type != OC_JOBJECT && root->type != OC_JARRAY)) {
    oc_rview_raise(&r->view, "ServerError", NULL, 0);
    return;
  }
  const struct oc_jv *err = oc_jv_get(root, "error"), *out = oc_jv_get(root, "output");
  if(err && err->type != OC_JNULL && !(out && out->type == OC_JARRAY)) {
    ref_raise(r, root);
    return;
  }
  oc_rview_output(&r->view, out, oc_jv_get(root, "status"));
}

static void ref_finish(void *st, const struct oc_pctx *cx)
{
  struct rref *r = st;
  (void)cx;
  if(r->stopped == 1)
    return;
  /* the items as the events built them */
  struct oc_rview *v = &r->view;
  v->kind = OC_CV_ANSWER;
  oc_ctext_init(&v->text);
  oc_ctext_set(&v->text, "", 0);
  size_t messages = 0;
  const struct ritem *only = NULL;
  for(size_t i = 0; i < r->nitems && i < OC_RITEMS; i++)
    if(r->items[i].type == RI_MESSAGE) {
      messages++;
      only = &r->items[i];
    }
  if(messages == 1)
    v->text = only->exact;
  for(size_t i = 0; i < r->nitems && i < OC_RITEMS; i++) {
    struct ritem *it = &r->items[i];
    if(it->type == RI_MESSAGE) {
      v->message_item = 1;
      if(messages > 1)
        oc_ctext_add(&v->text, oc_buf_str(&it->text), it->text.len);
    } else if(it->type == RI_CALL) {
      if(v->ncalls < OC_RCALLS) {
        struct oc_rcall *c = &v->calls[v->ncalls];
        c->name = it->name;
        c->call_id = it->call_id;
        c->args = it->exact;
        c->args_object = !it->over && oc_client_is_json_object(oc_buf_str(&it->text), it->text.len);
      }
      v->ncalls++;
    }
  }
  memcpy(v->status, r->status, sizeof(v->status));
}

const struct oc_rview *oc_rref_view(const struct oc_pctx *cx)
{
  return &((const struct rref *)cx->ref)->view;
}

/* ---- the judge ------------------------------------------------------------ */

static void quote(const struct oc_ctext *t, char *out, size_t n)
{
  oc_ctext_quote(t, out, n);
}

void oc_responses_judge(unsigned flags, const struct oc_rview *ref, const struct oc_rview *got,
                        struct oc_client_verdict *v)
{
  char a[80], b[80];
  if(ref->kind == OC_CV_ERROR) {
    if(got->kind != OC_CV_ERROR) {
      v->outcome = OC_CO_WRONG;
      v->works = 0;
      oc_client_reason(v, "no error (expected \"%.60s\")", ref->msg_set ? oc_buf_str(&ref->msg) : "null");
      return;
    }
    v->outcome = OC_CO_RAISES;
    int kept = !ref->msg_set || (got->msg_set && oc_client_keeps_message(oc_buf_str(&got->msg), got->msg.len,
                                                                          oc_buf_str(&ref->msg), ref->msg.len));
    v->works = kept;
    oc_client_reason(v, "%s: \"%.60s\"%s", got->err_name, got->msg_set ? oc_buf_str(&got->msg) : "",
                     kept ? "" : " lost the server's message");
    return;
  }
  if(got->kind == OC_CV_ERROR) {
    v->outcome = OC_CO_RAISES;
    v->works = 0;
    oc_client_reason(v, "%s: \"%.60s\"", got->err_name, got->msg_set ? oc_buf_str(&got->msg) : "");
    return;
  }
  v->outcome = OC_CO_WRONG;
  v->works = 0;
  if(!oc_ctext_eq(&got->text, &ref->text) && !(oc_ctext_empty(&got->text) && oc_ctext_empty(&ref->text))) {
    quote(&got->text, a, sizeof(a));
    quote(&ref->text, b, sizeof(b));
    oc_client_reason(v, "text %s (expected %s)", a, b);
    return;
  }
  if(got->ncalls != ref->ncalls) {
    oc_client_reason(v, "calls: %zu (expected %zu)", got->ncalls, ref->ncalls);
    return;
  }
  for(size_t i = 0; i < ref->ncalls && i < OC_RCALLS; i++) {
    const struct oc_rcall *r = &ref->calls[i], *g = &got->calls[i];
    if(!oc_ctext_eq(&g->name, &r->name)) {
      quote(&g->name, a, sizeof(a));
      quote(&r->name, b, sizeof(b));
      oc_client_reason(v, "call %zu name %s (expected %s)", i, a, b);
      return;
    }
    if(!oc_ctext_empty(&r->call_id) && !oc_ctext_eq(&g->call_id, &r->call_id)) {
      quote(&g->call_id, a, sizeof(a));
      quote(&r->call_id, b, sizeof(b));
      oc_client_reason(v, "call %zu call_id %s (expected %s)", i, a, b);
      return;
    }
    if(flags & OC_RJ_PARSES) {
      /* the parsing client's value is the reference's parsed, or flagged invalid */
      if(!r->args_object && !g->invalid) {
        quote(&r->args, b, sizeof(b));
        oc_client_reason(v, "call %zu arguments %s not flagged invalid", i, b);
        return;
      }
      if(r->args_object && (g->invalid || !oc_ctext_eq(&g->args, &r->args))) {
        quote(&g->args, a, sizeof(a));
        quote(&r->args, b, sizeof(b));
        oc_client_reason(v, "call %zu input %s%s (expected %s)", i, a, g->invalid ? " flagged invalid" : "", b);
        return;
      }
    } else if(!oc_ctext_eq(&g->args, &r->args)) {
      quote(&g->args, a, sizeof(a));
      quote(&r->args, b, sizeof(b));
      oc_client_reason(v, "call %zu arguments %s (expected %s)", i, a, b);
      return;
    }
  }
  if((flags & OC_RJ_STATUS) && strcmp(got->status, ref->status) != 0) {
    oc_client_reason(v, "status \"%s\" (expected \"%s\")", got->status, ref->status);
    return;
  }
  v->outcome = OC_CO_OK;
  v->works = 1;
  quote(&got->text, a, sizeof(a));
  oc_client_reason(v, "text %s, %zu call%s%s%s", a, got->ncalls, got->ncalls == 1 ? "" : "s",
                   got->status[0] ? ", status " : "", got->status);
}

/* ---- the family --------------------------------------------------------------- */

static const struct oc_pmodel *const models[] = {
  &oc_rmodel_openai_node,
  &oc_rmodel_openai_node_stream,
  &oc_rmodel_ai_sdk,
  &oc_rmodel_openai_agents,
};

const struct oc_pfamily oc_pfamily_responses = {
  .api = OC_API_RESPONSES,
  .ref_size = sizeof(struct rref),
  .ref_init = ref_init,
  .ref_event = ref_event,
  .ref_body = ref_body,
  .ref_finish = ref_finish,
  .ref_free = ref_free,
  .models = models,
  .nmodels = sizeof(models) / sizeof(models[0]),
};
