/* client_openai_python_stream.c — openai-python 3.3.1's stream helper
 * (`chat.completions.stream()` and get_final_completion()), emulated from
 * its published behaviour and lib/streaming/chat/_completions.py (no
 * Python runs here; docs/clients.md lists the facts).  On top of
 * openai-python's decoding (client_openai_python.c): chunks whose object
 * is not "chat.completion.chunk" are dropped; the snapshot is built by
 * accumulate_delta, which concatenates every repeated string (a role,
 * id or name sent twice reads "assistantassistant"), merges list entries
 * by their `index` (an entry without one: RuntimeError or, first,
 * TypeError; an index past the list: IndexError), and keeps choices by
 * position; the final completion raises LengthFinishReasonError for any
 * choice that ended in "length" (ContentFilterFinishReasonError for
 * "content_filter"), with or without tools or a response_format. */
#include "config.h"
#include "client_int.h"
#include "message.h"

#include <stdlib.h>
#include <string.h>

/* A value accumulate_delta holds: absent, None, a string, a number, or
 * something it neither joins nor adds. */
enum pkind { P_ABSENT = 0, P_NONE, P_STR, P_INT, P_FLOAT, P_OTHER };

struct pval {
  enum pkind kind;
  struct oc_ctext text;
  double num;
};

static enum pkind kind_of(const struct oc_jv *v)
{
  if(!v)
    return P_ABSENT;
  switch(v->type) {
  case OC_JNULL: return P_NONE;
  case OC_JSTRING: return P_STR;
  case OC_JTRUE:
  case OC_JFALSE: return P_INT; /* bool is an int in Python */
  case OC_JNUMBER: return v->int_literal ? P_INT : P_FLOAT;
  default: return P_OTHER;
  }
}

static void pset(struct pval *p, const struct oc_jv *v)
{
  p->kind = kind_of(v);
  oc_ctext_init(&p->text);
  if(p->kind == P_STR)
    oc_ctext_set(&p->text, v->u.str, v->len);
  else if(v && v->type == OC_JNUMBER)
    p->num = v->u.num;
  else if(v && v->type == OC_JTRUE)
    p->num = 1;
}

/* acc[key] = accumulate(acc[key], delta[key]) for a scalar key. */
static void pacc(struct pval *p, const struct oc_jv *v, int replace)
{
  if(!v)
    return;
  if(p->kind == P_ABSENT || p->kind == P_NONE || replace) {
    pset(p, v);
    return;
  }
  enum pkind k = kind_of(v);
  if(p->kind == P_STR && k == P_STR)
    oc_ctext_add(&p->text, v->u.str, v->len);
  else if((p->kind == P_INT || p->kind == P_FLOAT) && (k == P_INT || k == P_FLOAT)) {
    p->num += v->type == OC_JNUMBER ? v->u.num : v->type == OC_JTRUE;
    if(k == P_FLOAT)
      p->kind = P_FLOAT;
  }
}

/* One entry of the snapshot's tool_calls list. */
struct pentry {
  int dict;
  struct pval index, id, type;
  int fn;                 /* a function dict */
  struct pval name, args;
  struct oc_buf argtext;  /* args in full, for the comparison (OC_CAP_ARGUMENTS) */
};

/* args as pacc/pset leave them, kept whole. */
static void args_take(struct pentry *e, const struct oc_jv *v, int set)
{
  enum pkind before = e->args.kind;
  if(set)
    pset(&e->args, v);
  else
    pacc(&e->args, v, 0);
  if(!v || v->type != OC_JSTRING)
    return;
  if(set || before == P_ABSENT || before == P_NONE)
    oc_cbuf_reset(&e->argtext);
  if(e->args.kind == P_STR)
    oc_cargs_add(&e->argtext, v->u.str, v->len); /* freed on failure: shorter than args.text */
}

struct pchoice {
  long index;             /* of the entry that created it */
  struct pval role, content, refusal, finish;
  struct oc_cfollow follow; /* content's text, in step with the reference */
  struct pentry *calls;
  size_t ncalls, acalls;
  int tool_calls;         /* the message has a tool_calls list */
  int calls_scalar;       /* every entry so far is a str/int/float (or none): lists extend */
};

struct pystream {
  struct oc_cpy_stream s;
  struct oc_cview err;    /* a raised error */
  int snapshot;
  struct pchoice *choices;
  size_t nchoices, achoices;
  int strict;
  struct oc_buf *content; /* full content per position, for the structured check */
  struct oc_cview body;
  int have_body;
  int retried;
  enum oc_client_cause cause;
  enum oc_rule_id rule;
  int have_rule;
};

static void ps_init(void *st, const struct oc_cctx *cx)
{
  struct pystream *p = st;
  oc_cview_init(&p->err);
  oc_cview_init(&p->body);
  p->strict = oc_cjs_strict_tools(cx->req);
}

static void ps_raise(struct pystream *p, const char *cls, const char *msg, enum oc_client_cause cause,
                     enum oc_rule_id rule)
{
  if(oc_cview_raised(&p->err))
    return;
  oc_cview_raise(&p->err, cls, msg, strlen(msg));
  p->cause = cause;
  p->rule = rule;
  p->have_rule = rule != OC_R__COUNT;
}

static void entry_set(struct pentry *e, const struct oc_jv *tc)
{
  memset(e, 0, sizeof(*e));
  oc_buf_init(&e->argtext, OC_CAP_ARGUMENTS);
  e->dict = tc->type == OC_JOBJECT;
  if(!e->dict)
    return;
  const struct oc_jv *fn = oc_jv_get(tc, "function");
  pset(&e->index, oc_jv_get(tc, "index"));
  pset(&e->id, oc_jv_get(tc, "id"));
  pset(&e->type, oc_jv_get(tc, "type"));
  e->fn = fn && fn->type == OC_JOBJECT;
  pset(&e->name, e->fn ? oc_jv_get(fn, "name") : NULL);
  args_take(e, e->fn ? oc_jv_get(fn, "arguments") : NULL, 1);
}

static void entry_merge(struct pentry *e, const struct oc_jv *tc)
{
  const struct oc_jv *fn = oc_jv_get(tc, "function");
  pacc(&e->index, oc_jv_get(tc, "index"), 1);
  pacc(&e->type, oc_jv_get(tc, "type"), 1);
  pacc(&e->id, oc_jv_get(tc, "id"), 0);
  if(fn && fn->type == OC_JOBJECT) {
    if(!e->fn) {
      e->fn = 1;
      pset(&e->name, oc_jv_get(fn, "name"));
      args_take(e, oc_jv_get(fn, "arguments"), 1);
    }
    else {
      pacc(&e->name, oc_jv_get(fn, "name"), 0);
      args_take(e, oc_jv_get(fn, "arguments"), 0);
    }
  }
}

static struct pentry *entry_insert(struct pchoice *c, size_t at)
{
  if(c->ncalls >= OC_MAX_TOOL_CALLS)
    return NULL;
  struct pentry *d = oc_array_grow_from(c->calls, &c->acalls, c->ncalls + 1, sizeof(*d), 1);
  if(!d) {
    oc_cnote_oom();
    return NULL;
  }
  c->calls = d;
  if(at > c->ncalls)
    at = c->ncalls;
  memmove(&c->calls[at + 1], &c->calls[at], (c->ncalls - at) * sizeof(*d));
  c->ncalls++;
  return &c->calls[at];
}

/* accumulate_delta for the tool_calls key. */
static int merge_calls(struct pystream *p, struct pchoice *c, const struct oc_jv *list)
{
  if(!list || list->type == OC_JNULL)
    return 0;
  if(list->type != OC_JARRAY)
    return 0;
  if(!c->tool_calls || c->calls_scalar) {
    /* a first list is taken as it is; a list of scalars (or none) is extended */
    c->tool_calls = 1;
    for(uint32_t i = 0; i < list->len; i++) {
      struct pentry *e = entry_insert(c, c->ncalls);
      if(!e)
        return 0;
      entry_set(e, &list->u.items[i]);
      if(e->dict)
        c->calls_scalar = 0;
    }
    if(c->ncalls == 0)
      c->calls_scalar = 1;
    return 0;
  }
  for(uint32_t i = 0; i < list->len; i++) {
    const struct oc_jv *tc = &list->u.items[i];
    if(tc->type != OC_JOBJECT) {
      ps_raise(p, "TypeError", "Unexpected list delta entry is not a dictionary", OC_CAUSE_SERVER,
               OC_R_STREAM_CHUNK_SCHEMA);
      return -1;
    }
    const struct oc_jv *index = oc_jv_get(tc, "index");
    if(!index) {
      ps_raise(p, "RuntimeError", "Expected list delta entry to have an `index` key", OC_CAUSE_SERVER,
               OC_R_TOOL_DELTA_INDEX);
      return -1;
    }
    if(kind_of(index) != P_INT) {
      ps_raise(p, "TypeError", "Unexpected, list delta entry `index` value is not an integer",
               OC_CAUSE_SERVER, OC_R_TOOL_DELTA_INDEX);
      return -1;
    }
    long k = index->type == OC_JNUMBER ? oc_jv_long(index) : index->type == OC_JTRUE;
    long n = (long)c->ncalls;
    long at = k < 0 ? k + n : k;
    if(at >= 0 && at < n) {
      if(!c->calls[at].dict) {
        ps_raise(p, "TypeError", "not handled yet", OC_CAUSE_SERVER, OC_R_STREAM_CHUNK_SCHEMA);
        return -1;
      }
      entry_merge(&c->calls[at], tc);
    }
    else {
      struct pentry *e = entry_insert(c, (size_t)(at < 0 ? 0 : at));
      if(!e)
        return 0;
      entry_set(e, tc);
    }
  }
  return 0;
}

/* content as pset/pacc leave it; while in step with the reference only
 * its kind is kept here, its text being the reference's */
static void content_take(struct pchoice *c, const struct oc_jv *v, int set)
{
  if(!c->follow.on) {
    if(set)
      pset(&c->content, v);
    else
      pacc(&c->content, v, 0);
    return;
  }
  if(!set && !v)
    return;
  enum pkind k = kind_of(v);
  if(set || c->content.kind == P_ABSENT || c->content.kind == P_NONE)
    c->content.kind = k;
}

static void message_set(struct pystream *p, struct pchoice *c, const struct oc_centry *e)
{
  pset(&c->role, e->role);
  content_take(c, e->content, 1);
  pset(&c->refusal, e->refusal);
  c->tool_calls = 0;
  merge_calls(p, c, e->tool_calls);
}

static void message_acc(struct pystream *p, struct pchoice *c, const struct oc_centry *e)
{
  pacc(&c->role, e->role, 0);
  content_take(c, e->content, 0);
  pacc(&c->refusal, e->refusal, 0);
  merge_calls(p, c, e->tool_calls);
}

static struct pchoice *choice_add(struct pystream *p)
{
  if(p->nchoices >= OC_MAX_CHOICES)
    return NULL;
  struct pchoice *d = oc_array_grow_from(p->choices, &p->achoices, p->nchoices + 1, sizeof(*d), 1);
  if(!d) {
    oc_cnote_oom();
    return NULL;
  }
  p->choices = d;
  struct pchoice *c = &p->choices[p->nchoices++];
  memset(c, 0, sizeof(*c));
  return c;
}

/* A Python list index into the snapshot's choices: the position, or -1
 * (IndexError), or -2 (not an int: TypeError). */
static long position(const struct pystream *p, const struct oc_jv *index, size_t n)
{
  if(kind_of(index) != P_INT)
    return -2;
  long k = index->type == OC_JNUMBER ? oc_jv_long(index) : index->type == OC_JTRUE;
  long at = k < 0 ? k + (long)n : k;
  (void)p;
  return at >= 0 && at < (long)n ? at : -1;
}

/* Before a chunk changes the snapshot: each choice's text stays in step
 * only if it gets just what the reference's gets (entry is the one it
 * takes at position pos, or NULL). */
static void follow_chunk(struct pystream *p, const struct oc_cctx *cx, const struct oc_cevent *ev)
{
  for(size_t q = 0; q < p->nchoices; q++) {
    struct pchoice *c = &p->choices[q];
    const struct oc_centry *take = NULL;
    for(size_t i = 0; i < ev->nentries && !take; i++)
      if(position(p, ev->entries[i].index, p->nchoices) == (long)q)
        take = &ev->entries[i];
    int was = c->follow.on;
    oc_cfollow_chunk(&c->follow, &c->content.text, cx, ev, take);
    if(was && !c->follow.on && c->content.kind != P_STR)
      oc_ctext_init(&c->content.text); /* its text was never a string */
  }
}

/* An event the helper does not accumulate (dropped, or not a chunk): the
 * choices stay in step only while the reference takes nothing either. */
static void follow_skip(struct pystream *p, const struct oc_cctx *cx, const struct oc_cevent *ev)
{
  for(size_t q = 0; q < p->nchoices; q++) {
    struct pchoice *c = &p->choices[q];
    int was = c->follow.on;
    oc_cfollow_chunk(&c->follow, &c->content.text, cx, ev, NULL);
    if(was && !c->follow.on && c->content.kind != P_STR)
      oc_ctext_init(&c->content.text);
  }
}

static int finish_is(const struct oc_jv *f, const char *s)
{
  return f && f->type == OC_JSTRING && f->len == strlen(s) && memcmp(f->u.str, s, f->len) == 0;
}

static void content_keep(struct pystream *p, size_t pos, const struct oc_jv *content, int reset)
{
  if(!p->content) {
    p->content = calloc(OC_MAX_CHOICES, sizeof(*p->content));
    if(!p->content) {
      oc_cnote_oom();
      return;
    }
    for(size_t i = 0; i < OC_MAX_CHOICES; i++)
      oc_buf_init(&p->content[i], OC_CAP_CONTENT);
  }
  if(pos >= OC_MAX_CHOICES)
    return;
  if(reset)
    oc_cbuf_reset(&p->content[pos]);
  if(content && content->type == OC_JSTRING)
    oc_buf_add(&p->content[pos], content->u.str, content->len);
}

static void ps_chunk(struct pystream *p, const struct oc_cctx *cx, const struct oc_cevent *ev)
{
  int keep = oc_cpy_uses_parse(cx->req);
  for(size_t i = 0; i < ev->nentries && !oc_cview_raised(&p->err); i++) {
    const struct oc_centry *e = &ev->entries[i];
    if(!e->delta || e->delta->type != OC_JOBJECT) {
      ps_raise(p, "AttributeError", "'NoneType' object has no attribute 'to_dict' (a choice without delta)",
               OC_CAUSE_SERVER, OC_R_STREAM_CHUNK_SCHEMA);
      return;
    }
  }
  follow_chunk(p, cx, ev);
  if(!p->snapshot) {
    /* _convert_initial_chunk_into_snapshot: choices[choice.index] = … */
    p->snapshot = 1;
    size_t n = ev->nentries;
    for(size_t i = 0; i < n; i++)
      if(!choice_add(p))
        return;
    for(size_t i = 0; i < n && !oc_cview_raised(&p->err); i++) {
      const struct oc_centry *e = &ev->entries[i];
      long at = position(p, e->index, n);
      if(at == -2) {
        ps_raise(p, "TypeError", "list indices must be integers or slices, not NoneType (a choice "
                 "without index)", OC_CAUSE_SERVER, OC_R_STREAM_CHUNK_SCHEMA);
        return;
      }
      if(at < 0) {
        ps_raise(p, "IndexError", "list assignment index out of range (the first choice's index is "
                 "not 0)", OC_CAUSE_SERVER, OC_R_CHAT_CHOICES_COUNT);
        return;
      }
      struct pchoice *c = &p->choices[at];
      c->index = oc_jv_long(e->index);
      oc_cfollow_init(&c->follow, cx, c->index);
      oc_cfollow_chunk(&c->follow, &c->content.text, cx, ev, e);
      message_set(p, c, e);
      pset(&c->finish, e->finish);
      if(keep)
        content_keep(p, (size_t)at, e->content, 1);
    }
  }
  else
    for(size_t i = 0; i < ev->nentries && !oc_cview_raised(&p->err); i++) {
      const struct oc_centry *e = &ev->entries[i];
      long at = position(p, e->index, p->nchoices);
      if(at == -2) {
        ps_raise(p, "TypeError", "list indices must be integers or slices, not NoneType (a choice "
                 "without index)", OC_CAUSE_SERVER, OC_R_STREAM_CHUNK_SCHEMA);
        return;
      }
      struct pchoice *c;
      if(at < 0) {
        c = choice_add(p);
        if(!c)
          continue;
        c->index = oc_jv_long(e->index);
        oc_cfollow_init(&c->follow, cx, c->index);
        oc_cfollow_chunk(&c->follow, &c->content.text, cx, ev, e);
        message_set(p, c, e);
        pset(&c->finish, NULL);
        c->finish.kind = P_ABSENT;
        if(keep)
          content_keep(p, p->nchoices - 1, e->content, 1);
      }
      else {
        c = &p->choices[at];
        message_acc(p, c, e);
        if(keep)
          content_keep(p, (size_t)at, e->content, 0);
      }
      if(oc_py_truthy(e->finish)) {
        pset(&c->finish, e->finish);
        if(p->strict && finish_is(e->finish, "length")) {
          ps_raise(p, "LengthFinishReasonError", "Could not parse response content as the length limit "
                   "was reached", OC_CAUSE_LENGTH, OC_R_CHAT_FINISH_REASON);
          return;
        }
        if(p->strict && finish_is(e->finish, "content_filter")) {
          ps_raise(p, "ContentFilterFinishReasonError", "Could not parse response content as the request "
                   "was rejected by the content filter", OC_CAUSE_CONTENT_FILTER, OC_R_CHAT_FINISH_REASON);
          return;
        }
      }
    }
  /* _build_events reads the snapshot by each delta's indexes */
  for(size_t i = 0; i < ev->nentries && !oc_cview_raised(&p->err); i++) {
    const struct oc_centry *e = &ev->entries[i];
    long at = position(p, e->index, p->nchoices);
    if(at < 0) {
      ps_raise(p, "IndexError", "list index out of range (choices out of order)", OC_CAUSE_SERVER,
               OC_R_CHAT_CHOICES_COUNT);
      return;
    }
    struct pchoice *c = &p->choices[at];
    const struct oc_jv *list = e->tool_calls;
    if(!list || list->type != OC_JARRAY || list->len == 0)
      continue;
    for(uint32_t t = 0; t < list->len; t++) {
      const struct oc_jv *tc = &list->u.items[t];
      const struct oc_jv *index = oc_jv_get(tc, "index");
      if(kind_of(index) != P_INT) {
        ps_raise(p, "TypeError", "list indices must be integers or slices, not NoneType (a tool-call "
                 "fragment without index)", OC_CAUSE_SERVER, OC_R_TOOL_DELTA_INDEX);
        return;
      }
      long k = index->type == OC_JNUMBER ? oc_jv_long(index) : index->type == OC_JTRUE;
      long pos = k < 0 ? k + (long)c->ncalls : k;
      if(pos < 0 || pos >= (long)c->ncalls) {
        /* accumulate_delta inserted the call at the end of the list, so an
         * index past the calls so far (a first index of 1, a skipped one)
         * reads past the snapshot's list */
        ps_raise(p, "IndexError", "list index out of range (a tool-call index skipped)", OC_CAUSE_SERVER, OC_R_TOOL_INDEX_GAP);
        return;
      }
      const struct pentry *snap = &c->calls[pos];
      const struct oc_jv *fn = oc_jv_get(tc, "function");
      if(snap->type.kind == P_STR && oc_ctext_eqs(&snap->type.text, "function", 8) && !fn) {
        ps_raise(p, "AttributeError", "'NoneType' object has no attribute 'arguments' (a fragment "
                 "without function)", OC_CAUSE_SERVER, OC_R_STREAM_CHUNK_SCHEMA);
        return;
      }
    }
  }
}

static void ps_event(void *st, const struct oc_cctx *cx, const struct oc_cevent *ev)
{
  struct pystream *p = st;
  if(!cx->stream || oc_cview_raised(&p->err))
    return;
  int r = oc_cpy_stream_event(&p->s, ev, &p->err);
  if(r < 0) {
    p->cause = OC_CAUSE_SERVER;
    p->rule = ev->bom_line ? OC_R_CLIENT_BREAKS : ev->root ? OC_R_STREAM_ERROR_EVENT : OC_R_STREAM_CHUNK_JSON;
    p->have_rule = !ev->bom_line;
    return;
  }
  /* _is_valid_chat_completion_chunk_weak: object must be chat.completion.chunk */
  if(r == 0 || ev->root->type != OC_JOBJECT || !ev->object || ev->object->type != OC_JSTRING ||
     ev->object->len != 21 || memcmp(ev->object->u.str, "chat.completion.chunk", 21) != 0) {
    follow_skip(p, cx, ev);
    return;
  }
  ps_chunk(p, cx, ev);
}

static void ps_extra(void *st, const struct oc_cctx *cx, const struct oc_cextra *x)
{
  struct pystream *p = st;
  if(!cx->stream || oc_cview_raised(&p->err))
    return;
  oc_cpy_stream_extra(&p->s, x, &p->err);
  if(oc_cview_raised(&p->err)) {
    p->cause = OC_CAUSE_SERVER;
    p->rule = OC_R_SSE_UTF8;
    p->have_rule = x->kind == OC_CX_INVALID_UTF8;
  }
}

static void ps_body(void *st, const struct oc_cctx *cx, const struct oc_cbody *b)
{
  struct pystream *p = st;
  if(!cx->stream)
    return;
  p->have_body = 1;
  if(cx->status < 200 || cx->status >= 300)
    oc_cpy_http_error(cx, b, &p->body, &p->retried);
}

static void text_of(struct oc_ctext *t, const struct pval *v)
{
  if(v->kind == P_STR)
    *t = v->text;
}

/* get_final_completion: parse_chat_completion over the snapshot. */
static void final(struct pystream *p, const struct oc_cctx *cx, struct oc_cview *got)
{
  if(!p->snapshot) {
    ps_raise(p, "AssertionError", "the stream ended without a chat.completion.chunk", OC_CAUSE_SERVER,
             OC_R_STREAM_EMPTY);
    return;
  }
  for(size_t i = 0; i < p->nchoices; i++) {
    struct pchoice *c = &p->choices[i];
    oc_cfollow_final(&c->follow, &c->content.text, cx);
    c->follow.on = 0;
  }
  for(size_t i = 0; i < p->nchoices; i++) {
    struct pchoice *c = &p->choices[i];
    if(c->finish.kind == P_STR && oc_ctext_eqs(&c->finish.text, "length", 6)) {
      ps_raise(p, "LengthFinishReasonError", "Could not parse response content as the length limit was "
               "reached", OC_CAUSE_LENGTH, OC_R_CHAT_FINISH_REASON);
      return;
    }
    if(c->finish.kind == P_STR && oc_ctext_eqs(&c->finish.text, "content_filter", 14)) {
      ps_raise(p, "ContentFilterFinishReasonError", "Could not parse response content as the request was "
               "rejected by the content filter", OC_CAUSE_CONTENT_FILTER, OC_R_CHAT_FINISH_REASON);
      return;
    }
    if(oc_cpy_uses_parse(cx->req) && c->content.kind == P_STR && c->content.text.len &&
       !(c->refusal.kind == P_STR && c->refusal.text.len) && p->content && i < OC_MAX_CHOICES) {
      char why[300];
      if(oc_cpy_validate_content(cx, oc_buf_str(&p->content[i]), p->content[i].len, why, sizeof(why))) {
        ps_raise(p, "ValidationError", why, OC_CAUSE_SERVER, OC_R_SCHEMA_OUTPUT);
        return;
      }
    }
  }
  for(size_t i = 0; i < p->nchoices; i++) {
    const struct pchoice *c = &p->choices[i];
    struct oc_cchoice *ch = oc_cview_append(got, c->index);
    if(!ch)
      break;
    text_of(&ch->role, &c->role);
    text_of(&ch->content, &c->content);
    text_of(&ch->refusal, &c->refusal);
    text_of(&ch->finish, &c->finish);
    for(size_t k = 0; k < c->ncalls; k++) {
      const struct pentry *e = &c->calls[k];
      struct oc_ccall *cl = oc_cchoice_call(ch, (long)k, 1);
      if(!cl)
        break;
      text_of(&cl->id, &e->id);
      text_of(&cl->name, &e->name);
      text_of(&cl->type, &e->type);
      if(e->args.kind == P_STR) {
        oc_ccall_args_add(cl, oc_buf_str(&e->argtext), e->argtext.len);
        cl->args_len = e->args.text.len;
        cl->args_over = e->args.text.len > e->argtext.len;
      }
    }
  }
}

static void ps_finish(void *st, const struct oc_cctx *cx, struct oc_cview *got,
                      struct oc_client_verdict *v)
{
  struct pystream *p = st;
  if(!cx->stream) {
    v->outcome = OC_CO_NOT_EXERCISED;
    oc_client_reason(v, "the stream helper is for streamed requests");
    return;
  }
  if(p->have_body && oc_cview_raised(&p->body)) {
    oc_cview_move(got, &p->body);
    return;
  }
  if(!oc_cview_raised(&p->err)) {
    final(p, cx, got);
    oc_cpy_mark_lost_roles(&p->s, got);
  }
  if(oc_cview_raised(&p->err))
    oc_cview_move(got, &p->err);
  if(p->have_rule) {
    v->cause = p->cause;
    oc_client_add_rule(v, p->rule);
  }
  else if(p->cause)
    v->cause = p->cause;
}

static void ps_free(void *st)
{
  struct pystream *p = st;
  oc_cview_free(&p->err);
  oc_cview_free(&p->body);
  for(size_t i = 0; i < p->nchoices; i++) {
    for(size_t k = 0; k < p->choices[i].ncalls; k++)
      oc_cbuf_free(&p->choices[i].calls[k].argtext);
    free(p->choices[i].calls);
  }
  free(p->choices);
  if(p->content) {
    for(size_t i = 0; i < OC_MAX_CHOICES; i++)
      oc_cbuf_free(&p->content[i]);
    free(p->content);
  }
}

const struct oc_cmodel oc_cmodel_openai_python_stream = {
  .id = OC_CLIENT_OPENAI_PYTHON_STREAM,
  .size = sizeof(struct pystream),
  .init = ps_init,
  .event = ps_event,
  .extra = ps_extra,
  .body = ps_body,
  .finish = ps_finish,
  .free = ps_free,
};
