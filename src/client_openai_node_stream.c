/* client_openai_node_stream.c — openai-node 7's stream helper
 * (`chat.completions.stream()` and finalChatCompletion()), modelled from
 * lib/ChatCompletionStream.ts and verified against the real client (the
 * oracle).  Its reassembly differs from the reference: choices and tool
 * calls live in JavaScript arrays keyed by `index` (a tool-call fragment
 * whose index is not an integer in [0, 128) throws, where openai 6 lost
 * it silently), unknown delta members are assigned, so of the reasoning
 * only the last fragment is kept (client.c), role,
 * id, type and name are assigned (the last truthy value wins) where the
 * reference keeps the first, strings are joined with `+` whatever their
 * type, and the finaliser throws on a missing finish_reason, role, type,
 * name or arguments, while a missing id is invented.  With a strict tool
 * or a json_schema response_format in the request (hasAutoParseableInput,
 * openai 7; strict tools only in openai 6) a length or content_filter
 * finish throws, and arguments (and a json_schema answer) are parsed.
 * The Stream underneath is openai-node's (client_openai_node.c). */
#include "config.h"
#include "client_int.h"
#include "message.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct nstream {
  struct oc_cjs_stream s;
  struct oc_cview view;   /* the snapshot */
  int snapshot;           /* a chunk was accumulated */
  int strict;             /* hasAutoParseableInput */
  int json_schema;        /* response_format json_schema: content parsed at the end */
  struct oc_buf *content; /* per choice position, only with strict && json_schema */
  size_t ncontent;
  struct oc_cview body;
  int have_body;
  enum oc_client_cause cause;
  enum oc_rule_id rule;
  int rule_set;
  int major;              /* 7, or 6 (oc_cmodel_openai_node_stream_6) */
};

static void ns_setup(struct nstream *n, const struct oc_cctx *cx, int major)
{
  oc_cview_init(&n->view);
  oc_cview_init(&n->body);
  n->major = major;
  /* hasAutoParseableInput: strict tools, or (openai 7) a json_schema
   * response_format */
  n->strict = oc_cjs_strict_tools(cx->req) || (major >= 7 && cx->req->format == OC_FORMAT_JSON_SCHEMA);
  n->json_schema = cx->req->format == OC_FORMAT_JSON_SCHEMA;
}

static void ns_init(void *st, const struct oc_cctx *cx)
{
  ns_setup(st, cx, 7);
}

static void ns_init_6(void *st, const struct oc_cctx *cx)
{
  ns_setup(st, cx, 6);
}

static void ns_raise(struct nstream *n, const char *cls, const char *msg, enum oc_client_cause cause,
                     enum oc_rule_id rule)
{
  if(oc_cview_raised(&n->view))
    return;
  oc_cview_raise(&n->view, cls, msg, strlen(msg));
  n->cause = cause;
  n->rule = rule;
  n->rule_set = 1;
}

/* A JS array key: a non-negative integer index. */
static int array_key(const struct oc_jv *v, long *key)
{
  if(!oc_jv_is_integer(v) || v->u.num < 0 || v->u.num >= 4294967295.0)
    return 0;
  *key = (long)v->u.num;
  return 1;
}

static void js_set(struct oc_ctext *t, const struct oc_jv *v)
{
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_ARGUMENTS);
  oc_js_string(&b, v);
  oc_ctext_set(t, oc_buf_str(&b), b.len);
  oc_cbuf_free(&b);
}

static void js_append(struct oc_ctext *t, const struct oc_jv *v)
{
  if(v->type == OC_JSTRING) {
    oc_ctext_add(t, v->u.str, v->len);
    return;
  }
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_ARGUMENTS);
  oc_js_string(&b, v);
  oc_ctext_add(t, oc_buf_str(&b), b.len);
  oc_cbuf_free(&b);
}

static struct oc_buf *content_buf(struct nstream *n, int pos)
{
  if(!(n->strict && n->json_schema) || pos < 0)
    return NULL;
  if((size_t)pos >= n->ncontent) {
    size_t cap = n->ncontent;
    struct oc_buf *d = oc_array_grow(n->content, &cap, (size_t)pos + 1, sizeof(*d));
    if(!d) {
      oc_cnote_oom();
      return NULL;
    }
    for(size_t i = n->ncontent; i <= (size_t)pos; i++)
      oc_buf_init(&d[i], OC_CAP_CONTENT);
    n->content = d;
    n->ncontent = (size_t)pos + 1;
  }
  return &n->content[pos];
}

static int json_parses(const char *p, size_t len)
{
  struct oc_jdoc d;
  struct oc_jerr err;
  oc_jdoc_init(&d);
  int ok = oc_cjdoc_parse(&d, p, len, &err) == OC_OK;
  oc_jdoc_free(&d);
  return ok;
}

/* The key a kept entry has in the snapshot's choices, or LONG_MIN. */
static long kept_key(const struct oc_centry *e)
{
  if(e->v->type != OC_JOBJECT || !e->int_index || e->index_val < 0 || e->index->u.num >= 4294967295.0)
    return LONG_MIN;
  return e->index_val;
}

/* emitToolCallDoneEvent: the call being streamed ends (a new index, or
 * the choice's finish_reason). */
static void call_done(struct nstream *n, const struct oc_cctx *cx, struct oc_cchoice *ch, long key)
{
  struct oc_ccall *c = oc_cchoice_call(ch, key, 0);
  if(!c) {
    ns_raise(n, "Error", "no tool call snapshot", OC_CAUSE_SERVER, OC_R_TOOL_DELTA_INDEX);
    return;
  }
  if(!c->type.set) {
    ns_raise(n, "Error", "tool call snapshot missing `type`", OC_CAUSE_SERVER, OC_R_TOOL_DELTA_HEAD);
    return;
  }
  if(c->name.set && oc_cjs_tool_strict(cx->req, c->name.head, c->name.nhead) &&
     (c->args_over || !json_parses(oc_buf_str(&c->args), c->args.len)))
    ns_raise(n, "SyntaxError", "a strict tool's arguments are not JSON (JSON.parse)", OC_CAUSE_SERVER,
             OC_R_TOOL_ARGS_JSON);
}

static void ns_chunk(struct nstream *n, const struct oc_cctx *cx, const struct oc_cevent *ev)
{
  const struct oc_jv *root = ev->root;
  if(root->type == OC_JNULL) {
    ns_raise(n, "TypeError", "Cannot destructure property 'choices' of 'chunk' as it is null.",
             OC_CAUSE_SERVER, OC_R_STREAM_CHUNK_SCHEMA);
    return;
  }
  n->snapshot = 1;
  if(!ev->choices || ev->choices->type != OC_JARRAY) {
    ns_raise(n, "TypeError", "chunk.choices is not iterable", OC_CAUSE_SERVER, OC_R_STREAM_CHUNK_SCHEMA);
    return;
  }
  /* each choice's content follows the reference's while the two agree */
  for(size_t c = 0; c < n->view.nchoices; c++) {
    struct oc_cchoice *ch = &n->view.choices[c];
    const struct oc_centry *take = NULL;
    for(size_t i = 0; i < ev->nentries && !take; i++)
      if(kept_key(&ev->entries[i]) == ch->index)
        take = &ev->entries[i];
    oc_cfollow_chunk(&ch->follow, &ch->content, cx, ev, take);
  }
  for(size_t i = 0; i < ev->nentries && !oc_cview_raised(&n->view); i++) {
    const struct oc_centry *e = &ev->entries[i];
    if(e->v->type == OC_JNULL) {
      ns_raise(n, "TypeError", "Cannot destructure a null choice", OC_CAUSE_SERVER,
               OC_R_STREAM_CHUNK_SCHEMA);
      return;
    }
    long key = e->index_val;
    int kept = e->v->type == OC_JOBJECT && e->int_index && key >= 0 && e->index->u.num < 4294967295.0;
    if(oc_js_truthy(e->finish) && n->strict) {
      if(e->finish->type == OC_JSTRING && e->finish->len == 6 &&
         memcmp(e->finish->u.str, "length", 6) == 0) {
        ns_raise(n, "LengthFinishReasonError",
                 "Could not parse response content as the length limit was reached",
                 OC_CAUSE_LENGTH, OC_R_CHAT_FINISH_REASON);
        return;
      }
      if(e->finish->type == OC_JSTRING && e->finish->len == 14 &&
         memcmp(e->finish->u.str, "content_filter", 14) == 0) {
        ns_raise(n, "ContentFilterFinishReasonError",
                 "Could not parse response content as the request was rejected by the content filter",
                 OC_CAUSE_CONTENT_FILTER, OC_R_CHAT_FINISH_REASON);
        return;
      }
    }
    if(!kept)
      continue; /* choices[undefined]: a property finalChatCompletion never lists */
    struct oc_cchoice *ch = oc_cview_choice(&n->view, key, 0);
    if(!ch) {
      ch = oc_cview_choice(&n->view, key, 1);
      if(!ch)
        continue;
      oc_cfollow_init(&ch->follow, cx, key);
      oc_cfollow_chunk(&ch->follow, &ch->content, cx, ev, e);
    }
    if(oc_js_truthy(e->finish))
      js_set(&ch->finish, e->finish);
    const struct oc_jv *d = e->delta;
    if(oc_js_truthy(d) && d->type == OC_JOBJECT) {
      if(oc_js_truthy(e->refusal))
        js_append(&ch->refusal, e->refusal);
      if(oc_js_truthy(e->role))
        js_set(&ch->role, e->role);
      if(oc_js_truthy(e->function_call)) {
        ch->function_call = 1;
        const struct oc_jv *name = oc_jv_get(e->function_call, "name");
        const struct oc_jv *args = oc_jv_get(e->function_call, "arguments");
        struct oc_ccall *c = oc_cchoice_call(ch, -1, 1);
        if(c) {
          if(oc_js_truthy(name))
            js_set(&c->name, name);
          if(args && args->type != OC_JNULL) {
            c->args_set = 1;
            if(oc_js_truthy(args))
              oc_ccall_args_add(c, args->type == OC_JSTRING ? args->u.str : "x",
                                args->type == OC_JSTRING ? args->len : 1);
          }
        }
      }
      if(oc_js_truthy(e->content)) {
        if(e->content->type == OC_JSTRING)
          oc_cfollow_add(&ch->follow, &ch->content, e->content->u.str, e->content->len);
        else
          js_append(&ch->content, e->content); /* never in step: cfollow_chunk saw it */
        struct oc_buf *cb = content_buf(n, ch->pos);
        if(cb && e->content->type == OC_JSTRING)
          oc_buf_add(cb, e->content->u.str, e->content->len);
      }
      if(oc_js_truthy(e->tool_calls)) {
        ch->tool_calls_set = 1;
        if(e->tool_calls->type != OC_JARRAY) {
          ns_raise(n, "TypeError", "tool_calls is not iterable", OC_CAUSE_SERVER,
                   OC_R_STREAM_CHUNK_SCHEMA);
          return;
        }
        for(uint32_t t = 0; t < e->tool_calls->len && t < 2 * OC_MAX_TOOL_CALLS; t++) {
          const struct oc_jv *f = &e->tool_calls->u.items[t];
          if(f->type == OC_JNULL) {
            ns_raise(n, "TypeError", "Cannot destructure a null tool call", OC_CAUSE_SERVER,
                     OC_R_STREAM_CHUNK_SCHEMA);
            return;
          }
          /* openai 7: an index that is not a safe integer in [0, 128) throws;
           * openai 6 sets tool_calls[index], which for anything but an array
           * index is a property no array method sees: the fragment is lost */
          const struct oc_jv *ix = f->type == OC_JOBJECT ? oc_jv_get(f, "index") : NULL;
          long tk = -1;
          if(n->major < 7) {
            if(f->type != OC_JOBJECT || !array_key(ix, &tk))
              continue;
          }
          else if(!ix || !oc_jv_is_integer(ix) || ix->u.num < 0 || ix->u.num >= 128) {
            char m[160];
            struct oc_buf b;
            oc_buf_init(&b, 64);
            if(ix)
              oc_js_string(&b, ix);
            else
              oc_buf_adds(&b, "undefined");
            snprintf(m, sizeof(m), "Chat completion stream contains an invalid tool call index: %.60s",
                     oc_buf_str(&b));
            oc_cbuf_free(&b);
            ns_raise(n, "OpenAIError", m, OC_CAUSE_SERVER, OC_R_TOOL_DELTA_INDEX);
            return;
          }
          else
            tk = (long)ix->u.num;
          struct oc_ccall *c = oc_cchoice_call(ch, tk, 1);
          if(!c)
            continue;
          const struct oc_jv *id = oc_jv_get(f, "id");
          const struct oc_jv *type = oc_jv_get(f, "type");
          const struct oc_jv *fn = oc_jv_get(f, "function");
          if(oc_js_truthy(id))
            js_set(&c->id, id);
          if(oc_js_truthy(type))
            js_set(&c->type, type);
          if(oc_js_truthy(fn) && !c->fn_seen) {
            /* function ??= { name: fn.name ?? '', arguments: '' } */
            c->fn_seen = 1;
            c->args_set = 1;
            const struct oc_jv *nm = oc_jv_get(fn, "name");
            if(nm && nm->type != OC_JNULL)
              js_set(&c->name, nm);
            else
              oc_ctext_set(&c->name, "", 0);
          }
          const struct oc_jv *nm = oc_jv_get(fn, "name");
          const struct oc_jv *args = oc_jv_get(fn, "arguments");
          if(oc_js_truthy(fn) && oc_js_truthy(nm))
            js_set(&c->name, nm);
          if(oc_js_truthy(fn) && oc_js_truthy(args)) {
            if(args->type == OC_JSTRING)
              oc_ccall_args_add(c, args->u.str, args->len);
            else {
              struct oc_buf b;
              oc_buf_init(&b, OC_CAP_ARGUMENTS);
              oc_js_string(&b, args);
              oc_ccall_args_add(c, oc_buf_str(&b), b.len);
              oc_cbuf_free(&b);
            }
          }
        }
      }
    }
  }
  /* _addChunk's events, after the snapshot took the chunk */
  for(size_t i = 0; i < ev->nentries && !oc_cview_raised(&n->view); i++) {
    const struct oc_centry *e = &ev->entries[i];
    long key = e->index_val;
    if(e->v->type != OC_JOBJECT || !e->int_index || key < 0 || e->index->u.num >= 4294967295.0)
      continue;
    struct oc_cchoice *ch = oc_cview_choice(&n->view, key, 0);
    if(!ch)
      continue;
    if(ch->finish.set && ch->current_call != LONG_MIN)
      call_done(n, cx, ch, ch->current_call);
    const struct oc_jv *calls = e->delta && e->delta->type == OC_JOBJECT ? e->tool_calls : NULL;
    for(uint32_t t = 0; calls && calls->type == OC_JARRAY && t < calls->len && !oc_cview_raised(&n->view); t++) {
      long tk;
      int num = array_key(oc_jv_get(&calls->u.items[t], "index"), &tk);
      long idx = num ? tk : LONG_MIN;
      if(ch->current_call != idx && ch->current_call != LONG_MIN)
        call_done(n, cx, ch, ch->current_call);
      ch->current_call = idx;
    }
  }
}

static void ns_event(void *st, const struct oc_cctx *cx, const struct oc_cevent *ev)
{
  struct nstream *n = st;
  if(!cx->stream || oc_cview_raised(&n->view))
    return;
  int r = oc_cjs_stream_event(&n->s, ev, &n->view);
  if(r < 0) {
    n->cause = OC_CAUSE_SERVER;
    return;
  }
  if(r == 1)
    ns_chunk(n, cx, ev);
}

static void ns_extra(void *st, const struct oc_cctx *cx, const struct oc_cextra *x)
{
  struct nstream *n = st;
  if(cx->stream)
    oc_cjs_stream_extra(&n->s, x, &n->view);
}

static void ns_body(void *st, const struct oc_cctx *cx, const struct oc_cbody *b)
{
  struct nstream *n = st;
  if(!cx->stream)
    return;
  n->have_body = 1;
  if(cx->status < 200 || cx->status >= 300)
    oc_cjs_http_error(cx, b, &n->body, n->major);
}

/* finalizeChatCompletion, then maybeParseChatCompletion. */
static void finalize(struct nstream *n, const struct oc_cctx *cx)
{
  char msg[200];
  if(!n->snapshot) {
    ns_raise(n, "OpenAIError", "request ended without sending any chunks", OC_CAUSE_SERVER,
             OC_R_STREAM_EMPTY);
    return;
  }
  for(size_t i = 0; i < n->view.nchoices; i++)
    oc_cfollow_final(&n->view.choices[i].follow, &n->view.choices[i].content, cx);
  oc_cview_sort(&n->view);
  for(size_t i = 0; i < n->view.nchoices; i++) {
    struct oc_cchoice *ch = &n->view.choices[i];
    /* a cut capture's missing finish_reason says nothing about the stream */
    if(!ch->finish.set && !cx->partial) {
      snprintf(msg, sizeof(msg), "missing finish_reason for choice %ld", ch->index);
      ns_raise(n, "OpenAIError", msg, OC_CAUSE_SERVER, OC_R_STREAM_FINISH_ONCE);
      return;
    }
    if(!ch->role.set) {
      snprintf(msg, sizeof(msg), "missing role for choice %ld", ch->index);
      ns_raise(n, "OpenAIError", msg, OC_CAUSE_SERVER, OC_R_STREAM_ROLE_FIRST);
      return;
    }
    oc_cchoice_sort_calls(ch);
    if(ch->function_call) {
      struct oc_ccall *fc = oc_cchoice_call(ch, -1, 0);
      if(fc && !fc->args_set) {
        snprintf(msg, sizeof(msg), "missing function_call.arguments for choice %ld", ch->index);
        ns_raise(n, "OpenAIError", msg, OC_CAUSE_SERVER, OC_R_TOOL_DELTA_HEAD);
        return;
      }
      if(!fc || oc_ctext_empty(&fc->name)) {
        snprintf(msg, sizeof(msg), "missing function_call.name for choice %ld", ch->index);
        ns_raise(n, "OpenAIError", msg, OC_CAUSE_SERVER, OC_R_TOOL_DELTA_HEAD);
        return;
      }
      /* the message carries function_call, no tool_calls */
      for(size_t k = 0; k < ch->ncalls; k++)
        oc_cbuf_free(&ch->calls[k].args);
      ch->ncalls = 0;
      continue;
    }
    for(size_t k = 0; k < ch->ncalls; k++) {
      struct oc_ccall *c = &ch->calls[k];
      const char *field = !c->type.set ? "type" : !c->fn_seen ? "function.name" : NULL;
      if(field) {
        snprintf(msg, sizeof(msg), "missing choices[%ld].tool_calls[%ld].%s", ch->index, c->key, field);
        ns_raise(n, "OpenAIError", msg, OC_CAUSE_SERVER, OC_R_TOOL_DELTA_HEAD);
        return;
      }
      if(!c->id.set || c->id.len == 0)
        oc_ctext_set(&c->id, "call_00000000-0000-4000-8000-000000000000", 41); /* invented */
    }
  }
  /* holes: a key missing below the highest one */
  for(size_t i = 0; i < n->view.nchoices; i++) {
    struct oc_cchoice *ch = &n->view.choices[i];
    long expect = 0;
    for(size_t k = 0; k < ch->ncalls; k++, expect++)
      if(ch->calls[k].key != expect) {
        /* for...of over the calls meets undefined first.  The server's
         * fault is the skipped index (TOOL-INDEX-GAP), unless the index
         * above the hole is one chat.c does not take as an index at all
         * (past 10^6: TOOL-DELTA-INDEX). */
        ns_raise(n, "TypeError", n->major < 7 ? "Cannot read properties of undefined (reading 'type')"
                                              : "Cannot read properties of undefined (reading 'id')",
                 OC_CAUSE_SERVER, ch->calls[k].key > 1000000 ? OC_R_TOOL_DELTA_INDEX : OC_R_TOOL_INDEX_GAP);
        return;
      }
    for(size_t k = 0; k < ch->ncalls; k++) {
      struct oc_ccall *c = &ch->calls[k];
      if(!oc_ctext_eqs(&c->type, "function", 8)) {
        char t[120];
        oc_ctext_quote(&c->type, t, sizeof(t));
        snprintf(msg, sizeof(msg), "Currently only `function` tool calls are supported; Received %s", t);
        ns_raise(n, "OpenAIError", msg, OC_CAUSE_SERVER, OC_R_TOOL_DELTA_HEAD);
        return;
      }
    }
    if(!n->strict)
      continue;
    if(oc_ctext_eqs(&ch->finish, "length", 6)) {
      ns_raise(n, "LengthFinishReasonError", "Could not parse response content as the length limit was reached",
               OC_CAUSE_LENGTH, OC_R_CHAT_FINISH_REASON);
      return;
    }
    if(oc_ctext_eqs(&ch->finish, "content_filter", 14)) {
      ns_raise(n, "ContentFilterFinishReasonError",
               "Could not parse response content as the request was rejected by the content filter",
               OC_CAUSE_CONTENT_FILTER, OC_R_CHAT_FINISH_REASON);
      return;
    }
    for(size_t k = 0; k < ch->ncalls; k++) {
      struct oc_ccall *c = &ch->calls[k];
      if(oc_cjs_tool_strict(cx->req, c->name.head, c->name.nhead) &&
         (c->args_over || !json_parses(oc_buf_str(&c->args), c->args.len))) {
        ns_raise(n, "SyntaxError", "a strict tool's arguments are not JSON (JSON.parse)",
                 OC_CAUSE_SERVER, OC_R_TOOL_ARGS_JSON);
        return;
      }
    }
    struct oc_buf *cb = content_buf(n, ch->pos);
    if(n->json_schema && !oc_ctext_empty(&ch->content) && oc_ctext_empty(&ch->refusal) && cb &&
       !json_parses(oc_buf_str(cb), cb->len)) {
      ns_raise(n, "SyntaxError", "the structured answer is not JSON (JSON.parse)", OC_CAUSE_SERVER,
               OC_R_SCHEMA_OUTPUT);
      return;
    }
  }
}

static void ns_finish(void *st, const struct oc_cctx *cx, struct oc_cview *got,
                      struct oc_client_verdict *v)
{
  struct nstream *n = st;
  if(!cx->stream) {
    v->outcome = OC_CO_NOT_EXERCISED;
    oc_client_reason(v, "the stream helper is for streamed requests");
    return;
  }
  if(n->have_body && oc_cview_raised(&n->body)) {
    oc_cview_move(got, &n->body);
    return;
  }
  if(!oc_cview_raised(&n->view))
    finalize(n, cx);
  if(oc_cview_raised(&n->view) && n->rule_set) {
    v->cause = n->cause;
    oc_client_add_rule(v, n->rule);
  }
  else if(!oc_cview_raised(&n->view))
    v->cause = OC_CAUSE_SERVER;
  /* a JS array lists every index below its highest: the missing ones are holes */
  long top = n->view.nchoices ? n->view.choices[n->view.nchoices - 1].index : -1;
  if(!oc_cview_raised(&n->view) && top >= (long)n->view.nchoices && top < OC_MAX_CHOICES) {
    for(long k = 0; k <= top; k++)
      if(!oc_cview_choice(&n->view, k, 0)) {
        struct oc_cchoice *h = oc_cview_append(&n->view, k);
        if(h)
          h->hole = 1;
      }
    oc_cview_sort(&n->view);
  }
  oc_cview_move(got, &n->view);
}

static void ns_free(void *st)
{
  struct nstream *n = st;
  oc_cview_free(&n->view);
  oc_cview_free(&n->body);
  for(size_t i = 0; i < n->ncontent; i++)
    oc_cbuf_free(&n->content[i]);
  free(n->content);
}

const struct oc_cmodel oc_cmodel_openai_node_stream = {
  .id = OC_CLIENT_OPENAI_NODE_STREAM,
  .size = sizeof(struct nstream),
  .init = ns_init,
  .event = ns_event,
  .extra = ns_extra,
  .body = ns_body,
  .finish = ns_finish,
  .free = ns_free,
};

const struct oc_cmodel oc_cmodel_openai_node_stream_6 = {
  .id = OC_CLIENT_OPENAI_NODE_STREAM_6,
  .size = sizeof(struct nstream),
  .init = ns_init_6,
  .event = ns_event,
  .extra = ns_extra,
  .body = ns_body,
  .finish = ns_finish,
  .free = ns_free,
};
