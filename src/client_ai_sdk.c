/* client_ai_sdk.c — the Vercel ai SDK 7 with @ai-sdk/openai-compatible 3
 * (generateText / streamText with the request's tools, each with an
 * execute stub, and for a non-streamed OpenAI-shaped response_format an
 * `output`), modelled from their source and verified against
 * the real library (the oracle).  What it does that the reference does
 * not: every chunk is validated (zod) and a failing one is an error part;
 * [DONE] is skipped, not the end, so chunks after it count; only
 * choices[0] of each chunk is read, whatever its index (an n>1 stream's
 * choices are mixed); a refusal arrives as answer text (and a "stop"
 * becomes "content-filter"); a stream that never says a finish reason is
 * an error; a required or named tool choice the answer does not honour
 * raises ToolChoiceViolationError (ai 7; ai 5, the model ai-sdk@5, differs
 * where ai_init_5 says); tool-call
 * fragments are matched by id, index and name (StreamingToolCallTracker),
 * a fragment without index takes its position; every call's input is
 * parsed against the request's tools (an unknown tool or unparsable
 * arguments: flagged invalid); an error body that is not OpenAI's
 * envelope shows only the HTTP status text; a structured answer needs
 * finish_reason "stop" and JSON content. */
#include "config.h"
#include "client_int.h"
#include "message.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* ---- zod, as the provider's schemas say it ------------------------------------------------ */

static int nullish(const struct oc_jv *v)
{
  return !v || v->type == OC_JNULL;
}

static int z_str(const struct oc_jv *v)
{
  return nullish(v) || v->type == OC_JSTRING;
}

static int z_num(const struct oc_jv *v)
{
  return nullish(v) || v->type == OC_JNUMBER;
}

static int z_numbers(const struct oc_jv *o, const char *const *keys, size_t n)
{
  for(size_t i = 0; i < n; i++)
    if(!z_num(oc_jv_get(o, keys[i])))
      return 0;
  return 1;
}

static int z_usage(const struct oc_jv *u)
{
  static const char *const top[] = { "prompt_tokens", "completion_tokens", "total_tokens" };
  static const char *const pd[] = { "cached_tokens" };
  static const char *const cd[] = { "reasoning_tokens", "accepted_prediction_tokens",
                                    "rejected_prediction_tokens" };
  if(nullish(u))
    return 1;
  if(u->type != OC_JOBJECT || !z_numbers(u, top, 3))
    return 0;
  const struct oc_jv *p = oc_jv_get(u, "prompt_tokens_details");
  const struct oc_jv *c = oc_jv_get(u, "completion_tokens_details");
  if(!nullish(p) && (p->type != OC_JOBJECT || !z_numbers(p, pd, 1)))
    return 0;
  if(!nullish(c) && (c->type != OC_JOBJECT || !z_numbers(c, cd, 3)))
    return 0;
  return 1;
}

static int z_head(const struct oc_jv *root, const struct oc_jv *id, const struct oc_jv *created,
                  const struct oc_jv *model, const struct oc_jv *usage)
{
  return root && root->type == OC_JOBJECT && z_str(id) && z_num(created) && z_str(model) && z_usage(usage);
}

/* createOpenAICompatibleChatChunkSchema's first member; the digest holds
 * the members it names (the last of duplicates, as zod sees them). */
static int z_chunk(const struct oc_cevent *ev)
{
  if(!z_head(ev->root, ev->id, ev->created, ev->model, ev->usage) || !ev->choices ||
     ev->choices->type != OC_JARRAY)
    return 0;
  for(size_t i = 0; i < ev->nentries; i++) {
    const struct oc_centry *e = &ev->entries[i];
    if(e->v->type != OC_JOBJECT || !z_str(e->finish) || !z_usage(e->usage))
      return 0;
    const struct oc_jv *d = e->delta;
    if(nullish(d))
      continue;
    if(d->type != OC_JOBJECT)
      return 0;
    const struct oc_jv *role = e->role;
    if(!nullish(role) && !(role->type == OC_JSTRING && role->len == 9 && memcmp(role->u.str, "assistant", 9) == 0))
      return 0;
    if(!z_str(e->content) || !z_str(e->reasoning_content) || !z_str(e->reasoning))
      return 0;
    const struct oc_jv *tcs = e->tool_calls;
    if(nullish(tcs))
      continue;
    if(tcs->type != OC_JARRAY)
      return 0;
    for(uint32_t k = 0; k < tcs->len; k++) {
      const struct oc_jv *tc = &tcs->u.items[k];
      const struct oc_jv *fn = oc_jv_get(tc, "function");
      if(tc->type != OC_JOBJECT || !z_num(oc_jv_get(tc, "index")) || !z_str(oc_jv_get(tc, "id")) ||
         !fn || fn->type != OC_JOBJECT || !z_str(oc_jv_get(fn, "name")) ||
         !z_str(oc_jv_get(fn, "arguments")))
        return 0;
    }
  }
  /* elements past the digest's cap are validated the slow way */
  for(uint32_t i = (uint32_t)ev->nentries; i < ev->choices->len; i++)
    if(ev->choices->u.items[i].type != OC_JOBJECT)
      return 0;
  return 1;
}

/* A reasoning field that is present, not null and not a string: what
 * fails the schema then is REASONING-NOT-STRING. */
static int reasoning_not_string(const struct oc_centry *e, size_t n)
{
  for(size_t i = 0; i < n; i++)
    if(!z_str(e[i].reasoning_content) || !z_str(e[i].reasoning))
      return 1;
  return 0;
}

/* openaiCompatibleErrorDataSchema. */
static int z_error(const struct oc_jv *root)
{
  const struct oc_jv *e = oc_jv_get(root, "error");
  if(!root || root->type != OC_JOBJECT || !e || e->type != OC_JOBJECT)
    return 0;
  const struct oc_jv *m = oc_jv_get(e, "message");
  const struct oc_jv *code = oc_jv_get(e, "code");
  return m && m->type == OC_JSTRING && z_str(oc_jv_get(e, "type")) &&
         (nullish(code) || code->type == OC_JSTRING || code->type == OC_JNUMBER);
}

/* OpenAICompatibleChatResponseSchema. */
static int z_response(const struct oc_cbody *b)
{
  if(!z_head(b->root, b->id, b->created, b->model, b->usage) || !b->choices || b->choices->type != OC_JARRAY)
    return 0;
  for(uint32_t i = 0; i < b->choices->len; i++) {
    const struct oc_jv *ch = &b->choices->u.items[i];
    const struct oc_jv *m = oc_jv_get(ch, "message");
    if(ch->type != OC_JOBJECT || !m || m->type != OC_JOBJECT || !z_str(oc_jv_get(ch, "finish_reason")))
      return 0;
    const struct oc_jv *role = oc_jv_get(m, "role");
    if(!nullish(role) && !(role->type == OC_JSTRING && role->len == 9 && memcmp(role->u.str, "assistant", 9) == 0))
      return 0;
    if(!z_str(oc_jv_get(m, "content")) || !z_str(oc_jv_get(m, "reasoning_content")) ||
       !z_str(oc_jv_get(m, "reasoning")))
      return 0;
    const struct oc_jv *tcs = oc_jv_get(m, "tool_calls");
    if(nullish(tcs))
      continue;
    if(tcs->type != OC_JARRAY)
      return 0;
    for(uint32_t k = 0; k < tcs->len; k++) {
      const struct oc_jv *tc = &tcs->u.items[k];
      const struct oc_jv *fn = oc_jv_get(tc, "function");
      const struct oc_jv *name = oc_jv_get(fn, "name"), *args = oc_jv_get(fn, "arguments");
      if(tc->type != OC_JOBJECT || !z_str(oc_jv_get(tc, "id")) || !fn || fn->type != OC_JOBJECT ||
         !name || name->type != OC_JSTRING || !args || args->type != OC_JSTRING)
        return 0;
    }
  }
  return 1;
}

/* ---- the streaming tool-call tracker ------------------------------------------------------ */

#define MAX_ASSOC 4

struct argstate {
  int kind;               /* 0 undetermined, 1 other, 2 structured */
  int complete;
  int in_str, esc;
  unsigned depth;         /* stack height; the brackets themselves */
  char stack[64];
};

struct tcall {
  size_t pos;             /* its slot in the message's calls (the array may move) */
  long index;
  int has_index;
  struct oc_ctext ids[MAX_ASSOC];
  size_t nids;
  long indexes[MAX_ASSOC];
  size_t nindexes;
  struct argstate as;
};

static void as_append(struct argstate *a, const char *p, size_t n)
{
  for(size_t i = 0; i < n; i++) {
    char c = p[i];
    if(a->kind == 0) {
      if(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')
        continue;
      if(c != '{' && c != '[') {
        a->kind = 1;
        continue;
      }
      a->kind = 2;
      a->depth = 1;
      a->stack[0] = c;
      continue;
    }
    if(a->kind != 2 || a->complete)
      continue;
    if(a->in_str) {
      if(a->esc)
        a->esc = 0;
      else if(c == '\\')
        a->esc = 1;
      else if(c == '"')
        a->in_str = 0;
      continue;
    }
    if(c == '"')
      a->in_str = 1;
    else if(c == '{' || c == '[') {
      if(a->depth < sizeof(a->stack))
        a->stack[a->depth] = c;
      a->depth++;
    }
    else if(c == '}' || c == ']') {
      char open = c == '}' ? '{' : '[';
      char top = a->depth && a->depth <= sizeof(a->stack) ? a->stack[a->depth - 1] : open;
      if(top != open) {
        a->kind = 1;
        continue;
      }
      if(--a->depth == 0)
        a->complete = 1;
    }
  }
}

/* non-blank: not null and not all whitespace */
static int nonblank(const struct oc_jv *v)
{
  if(!v || v->type != OC_JSTRING)
    return 0;
  for(uint32_t i = 0; i < v->len; i++) {
    char c = v->u.str[i];
    if(!(c == ' ' || (c >= '\t' && c <= '\r')))
      return 1;
  }
  return 0;
}

static int starts_structured(const struct oc_jv *args)
{
  if(!args || args->type != OC_JSTRING)
    return 0;
  for(uint32_t i = 0; i < args->len; i++) {
    char c = args->u.str[i];
    if(c == ' ' || (c >= '\t' && c <= '\r'))
      continue;
    return c == '{' || c == '[';
  }
  return 0;
}

/* ---- the model ------------------------------------------------------------------------------ */

/* The tracker's tables grow with the calls a stream holds (at most
 * OC_MAX_TOOL_CALLS each): a case without tool calls keeps none. */
struct ai {
  struct oc_cview view;   /* one message (choice 0) */
  struct tcall *calls;
  size_t ncalls, acalls;
  struct oc_ctext *used;  /* ids handed out */
  size_t nused, aused;
  int gen;                /* generated ids */
  int finish_set;
  char finish[20];
  int refusal;            /* a refusal came: it is text, and "stop" is "content-filter" */
  struct oc_cfollow follow; /* the message's content, in step with the reference */
  long first_index;       /* the index of the first choices[0] seen */
  int have_first;
  int mixed;              /* choices[0] of some chunk was another choice */
  uint64_t clean[8];      /* chunk shapes secure-json-parse let through */
  size_t nclean;
  int past_done;          /* something read after [DONE] changed the answer */
  int raised_stream;      /* an error part came from the stream */
  enum oc_client_cause cause;
  enum oc_rule_id rule;
  int have_rule;
  struct oc_cview body;
  int have_body;
  int major;              /* 7, or 5 (oc_cmodel_ai_sdk_5: ai 5 with openai-compatible 1) */
};

static void ai_init(void *st, const struct oc_cctx *cx)
{
  (void)cx;
  struct ai *a = st;
  oc_cview_init(&a->view);
  oc_cview_init(&a->body);
  a->major = 7;
}

/* ai 5 differs from 7 where measured: a refusal never reaches the
 * application, a stream without a finish reason and an unhonoured tool
 * choice raise nothing, and its structured output is read only from a
 * "stop" answer (NoOutputSpecifiedError otherwise).  Its "unknown" finish
 * reason is ai 7's "other" under another name: the judges map both alike. */
static void ai_init_5(void *st, const struct oc_cctx *cx)
{
  ai_init(st, cx);
  ((struct ai *)st)->major = 5;
}

static void ai_raise(struct ai *a, struct oc_cview *v, const char *cls, const char *msg, size_t len,
                     enum oc_client_cause cause, enum oc_rule_id rule)
{
  if(oc_cview_raised(v))
    return;
  oc_cview_raise(v, cls, msg, len);
  a->cause = cause;
  a->rule = rule;
  a->have_rule = 1;
}

static struct oc_cchoice *message(struct ai *a)
{
  return oc_cview_choice(&a->view, 0, 1);
}

static const char *map_finish(const struct oc_jv *f)
{
  if(f->len == 4 && memcmp(f->u.str, "stop", 4) == 0)
    return "stop";
  if(f->len == 6 && memcmp(f->u.str, "length", 6) == 0)
    return "length";
  if(f->len == 14 && memcmp(f->u.str, "content_filter", 14) == 0)
    return "content-filter";
  if((f->len == 10 && memcmp(f->u.str, "tool_calls", 10) == 0) ||
     (f->len == 13 && memcmp(f->u.str, "function_call", 13) == 0))
    return "tool-calls";
  return "other";
}

static int has_id(const struct tcall *t, const struct oc_jv *id)
{
  for(size_t i = 0; i < t->nids; i++)
    if(oc_ctext_eqs(&t->ids[i], id->u.str, id->len))
      return 1;
  return 0;
}

static int has_index(const struct tcall *t, long index)
{
  for(size_t i = 0; i < t->nindexes; i++)
    if(t->indexes[i] == index)
      return 1;
  return 0;
}

static struct oc_ccall *call_of(struct ai *a, const struct tcall *t)
{
  struct oc_cchoice *ch = oc_cview_choice(&a->view, 0, 0);
  return ch && t->pos < ch->ncalls ? &ch->calls[t->pos] : NULL;
}

static int name_is(struct ai *a, const struct tcall *t, const struct oc_jv *name)
{
  struct oc_ccall *c = call_of(a, t);
  return !name || (c && oc_ctext_eqs(&c->name, name->u.str, name->len));
}

enum rkind { R_NEW, R_EXISTING, R_AMBIGUOUS };

/* resolveMatchingToolCall over the calls whose bit is set in sel. */
static enum rkind resolve_matching(struct ai *a, const unsigned char *sel, int explicit_start,
                                   struct tcall **out)
{
  size_t n = 0, cont = 0;
  struct tcall *one = NULL, *onecont = NULL;
  for(size_t i = 0; i < a->ncalls; i++)
    if(sel[i]) {
      n++;
      one = &a->calls[i];
      if(!(a->calls[i].as.kind == 2 && a->calls[i].as.complete)) {
        cont++;
        onecont = &a->calls[i];
      }
    }
  if(n == 0)
    return R_NEW;
  if(!explicit_start) {
    if(n == 1) {
      *out = one;
      return R_EXISTING;
    }
    return R_AMBIGUOUS;
  }
  if(cont == 1) {
    *out = onecont;
    return R_EXISTING;
  }
  return cont > 1 ? R_AMBIGUOUS : R_NEW;
}

static enum rkind resolve(struct ai *a, const struct oc_jv *wire_id, long index,
                          const struct oc_jv *name, int explicit_start, struct tcall **out)
{
  unsigned char matching[OC_MAX_TOOL_CALLS] = { 0 },
                with_id[OC_MAX_TOOL_CALLS] = { 0 }, sel[OC_MAX_TOOL_CALLS] = { 0 };
  size_t nindexed = 0, nmatching = 0, nwith = 0;
  for(size_t i = 0; i < a->ncalls; i++) {
    struct tcall *t = &a->calls[i];
    if(has_index(t, index)) {
      nindexed++;
      if(name_is(a, t, name)) {
        matching[i] = 1;
        nmatching++;
      }
    }
    if(wire_id && has_id(t, wire_id)) {
      with_id[i] = 1;
      nwith++;
    }
  }
  if(wire_id) {
    if(nwith) {
      for(size_t i = 0; i < a->ncalls; i++)
        sel[i] = matching[i] && with_id[i];
      enum rkind k = resolve_matching(a, sel, explicit_start, out);
      if(k != R_NEW)
        return k;
      if(name)
        return R_NEW;
      if(nindexed)
        return R_AMBIGUOUS;
      return resolve_matching(a, with_id, 0, out);
    }
    if(nmatching)
      return explicit_start ? R_NEW : resolve_matching(a, matching, 0, out);
    return R_NEW;
  }
  if(nindexed)
    return resolve_matching(a, matching, explicit_start, out);
  return name ? R_NEW : R_NEW; /* an index is always known here (the position fallback) */
}

static void associate_id(struct tcall *t, const struct oc_jv *id)
{
  if(!has_id(t, id) && t->nids < MAX_ASSOC)
    oc_ctext_set(&t->ids[t->nids++], id->u.str, id->len);
}

static void associate_index(struct tcall *t, long index)
{
  if(!has_index(t, index) && t->nindexes < MAX_ASSOC)
    t->indexes[t->nindexes++] = index;
}

static int id_used(struct ai *a, const char *p, size_t n)
{
  for(size_t i = 0; i < a->nused; i++)
    if(oc_ctext_eqs(&a->used[i], p, n))
      return 1;
  return 0;
}

static void process_delta(struct ai *a, const struct oc_jv *tc, long index)
{
  const struct oc_jv *fn = oc_jv_get(tc, "function");
  const struct oc_jv *wname = oc_jv_get(fn, "name");
  const struct oc_jv *args = oc_jv_get(fn, "arguments");
  const struct oc_jv *id = oc_jv_get(tc, "id");
  int blank_name = wname && wname->type == OC_JSTRING && !nonblank(wname);
  const struct oc_jv *wire_id = nonblank(id) ? id : NULL;
  const struct oc_jv *name = nonblank(wname) ? wname : NULL;
  struct tcall *t = NULL;
  enum rkind k = resolve(a, wire_id, index, name, name && starts_structured(args), &t);
  if(k == R_AMBIGUOUS)
    return;
  if(k == R_NEW) {
    if(blank_name)
      return;
    if(!name) {
      ai_raise(a, &a->view, "InvalidResponseDataError", "Expected 'function.name' to be a string.", 40,
               OC_CAUSE_SERVER, OC_R_TOOL_DELTA_HEAD);
      a->raised_stream = 1;
      return;
    }
    struct oc_cchoice *ch = message(a);
    if(!ch || a->ncalls >= OC_MAX_TOOL_CALLS)
      return;
    /* room in both tables before the call exists, so that running out
     * leaves no call without its tracker */
    struct tcall *grown = oc_array_grow_from(a->calls, &a->acalls, a->ncalls + 1, sizeof(*a->calls), 1);
    if(!grown) {
      oc_cnote_oom();
      return;
    }
    a->calls = grown;
    if(a->nused < OC_MAX_TOOL_CALLS) {
      struct oc_ctext *u = oc_array_grow_from(a->used, &a->aused, a->nused + 1, sizeof(*a->used), 1);
      if(!u) {
        oc_cnote_oom();
        return;
      }
      a->used = u;
    }
    size_t pos = ch->ncalls;
    struct oc_ccall *c = oc_cchoice_call(ch, LONG_MIN + (long)pos, 1);
    if(!c)
      return;
    c->key = index; /* flush() lists them by index, then arrival */
    t = &a->calls[a->ncalls++];
    memset(t, 0, sizeof(*t));
    t->pos = pos;
    t->index = index;
    t->has_index = 1;
    if(wire_id && !id_used(a, wire_id->u.str, wire_id->len)) {
      oc_ctext_set(&c->id, wire_id->u.str, wire_id->len);
    }
    else {
      char gen[40];
      int n = snprintf(gen, sizeof(gen), "ai-sdk-generated-%d", ++a->gen);
      oc_ctext_set(&c->id, gen, (size_t)n);
    }
    if(a->nused < OC_MAX_TOOL_CALLS)
      a->used[a->nused++] = c->id;
    oc_ctext_set(&c->name, name->u.str, name->len);
    c->args_set = 1;
    if(args && args->type == OC_JSTRING) {
      oc_ccall_args_add(c, args->u.str, args->len);
      as_append(&t->as, args->u.str, args->len);
    }
    if(wire_id)
      associate_id(t, wire_id);
  }
  else {
    if(wire_id)
      associate_id(t, wire_id);
    struct oc_ccall *c = call_of(a, t);
    if(c && args && args->type == OC_JSTRING) {
      oc_ccall_args_add(c, args->u.str, args->len);
      as_append(&t->as, args->u.str, args->len);
    }
  }
  associate_index(t, index);
}

/* secure-json-parse's refusal depends on member names and nesting alone,
 * and the zod schema on types and the role's value, all of which the
 * chunk's shape covers: both are decided once per shape, not per chunk
 * (secure-json-parse's walk was the costliest step of all six models on
 * a long stream).  A shape is remembered only when it passed both. */
static int ai_clean(const struct ai *a, const struct oc_cevent *ev)
{
  size_t n = a->nclean < OC_ARRAY_LEN(a->clean) ? a->nclean : OC_ARRAY_LEN(a->clean);
  for(size_t i = 0; ev->shape && i < n; i++)
    if(a->clean[i] == ev->shape)
      return 1;
  return 0;
}

static void ai_remember(struct ai *a, const struct oc_cevent *ev)
{
  if(ev->shape)
    a->clean[a->nclean++ % OC_ARRAY_LEN(a->clean)] = ev->shape;
}

static void ai_event(void *st, const struct oc_cctx *cx, const struct oc_cevent *ev)
{
  struct ai *a = st;
  if(!cx->stream || ev->done)
    return;
  int clean = ev->root && ai_clean(a, ev);
  if(!ev->root || (!clean && oc_client_json_forbidden(ev->root))) {
    char msg[200];
    int n = snprintf(msg, sizeof(msg), "JSON parsing failed: Text: %.*s", (int)(ev->len < 120 ? ev->len : 120),
                     ev->data);
    ai_raise(a, &a->view, "JSONParseError", msg, (size_t)n, OC_CAUSE_SERVER,
             ev->after_done ? OC_R_STREAM_AFTER_DONE : OC_R_STREAM_CHUNK_JSON);
    a->raised_stream = 1;
    return;
  }
  if(!clean && !z_chunk(ev)) {
    if(z_error(ev->root)) {
      /* an error part holding the server's error object */
      const struct oc_jv *m = oc_jv_get(ev->error, "message");
      ai_raise(a, &a->view, "in-band error object", m->u.str, m->len, OC_CAUSE_SERVER,
               OC_R_STREAM_ERROR_EVENT);
    }
    else {
      struct oc_buf b;
      oc_buf_init(&b, OC_CAP_CLIENT_MESSAGE);
      oc_buf_adds(&b, "Type validation failed: Value: ");
      oc_js_stringify(&b, ev->root);
      ai_raise(a, &a->view, "TypeValidationError", oc_buf_str(&b), b.len, OC_CAUSE_SERVER,
               ev->after_done                                   ? OC_R_STREAM_AFTER_DONE
               : reasoning_not_string(ev->entries, ev->nentries) ? OC_R_REASONING_NOT_STRING
                                                                 : OC_R_STREAM_CHUNK_SCHEMA);
      oc_cbuf_free(&b);
    }
    a->raised_stream = 1;
    return;
  }
  if(!clean)
    ai_remember(a, ev);
  if(oc_cview_raised(&a->view) || ev->nentries == 0)
    return;
  const struct oc_centry *e = &ev->entries[0];
  long idx = e->int_index ? e->index_val : 0;
  int changes = 0;
  struct oc_cchoice *msg = message(a);
  if(!msg)
    return;
  if(!a->have_first) {
    a->have_first = 1;
    a->first_index = idx;
    oc_cfollow_init(&a->follow, cx, e->index_val);
  }
  oc_cfollow_chunk(&a->follow, &msg->content, cx,  ev,
                   e->delta && e->delta->type == OC_JOBJECT ? e : NULL);
  if(e->finish && e->finish->type == OC_JSTRING) {
    const char *f = map_finish(e->finish);
    if(!a->finish_set || strcmp(a->finish, f) != 0)
      changes = 1;
    a->finish_set = 1;
    oc_strlcpy(a->finish, f, sizeof(a->finish));
  }
  if(e->delta && e->delta->type == OC_JOBJECT) {
    if(e->content && e->content->type == OC_JSTRING && e->content->len) {
      oc_cfollow_add(&a->follow, &msg->content, e->content->u.str, e->content->len);
      changes = 1;
    }
    if(a->major >= 7 && e->refusal && e->refusal->type == OC_JSTRING && e->refusal->len) {
      /* enqueueTextDelta(refusal): the answer's text from here */
      oc_cfollow_leave(&a->follow, &msg->content, cx);
      if(e->content && e->content->type == OC_JSTRING && e->content->len)
        oc_ctext_add(&msg->content, e->content->u.str, e->content->len);
      oc_ctext_add(&msg->content, e->refusal->u.str, e->refusal->len);
      a->refusal = 1;
      changes = 1;
    }
    if(e->tool_calls && e->tool_calls->type == OC_JARRAY)
      for(uint32_t t = 0; t < e->tool_calls->len && !oc_cview_raised(&a->view); t++) {
        const struct oc_jv *tc = &e->tool_calls->u.items[t];
        const struct oc_jv *index = oc_jv_get(tc, "index");
        process_delta(a, tc, index && index->type == OC_JNUMBER ? oc_jv_long(index) : (long)t);
        changes = 1;
      }
  }
  if(changes && idx != a->first_index)
    a->mixed = 1;
  if(changes && ev->after_done)
    a->past_done = 1;
}

static int tools_offered(const struct oc_request_info *req, const struct oc_ctext *name)
{
  const cJSON *t;
  if(!req->tools)
    return 0;
  cJSON_ArrayForEach(t, req->tools) {
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(t, "type");
    const cJSON *fn = cJSON_GetObjectItemCaseSensitive(t, "function");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(fn, "name");
    if(cJSON_IsString(type) && strcmp(type->valuestring, "function") == 0 && cJSON_IsString(n) &&
       (!name || oc_ctext_eqs(name, n->valuestring, strlen(n->valuestring))))
      return 1;
  }
  return 0;
}

/* parseToolCall: an unknown tool, or input that does not parse, is
 * flagged invalid; empty input is {}. */
static void parse_calls(const struct oc_cctx *cx, struct oc_cchoice *ch)
{
  for(size_t i = 0; ch && i < ch->ncalls; i++) {
    struct oc_ccall *c = &ch->calls[i];
    if(!tools_offered(cx->req, NULL) || !tools_offered(cx->req, &c->name)) {
      c->invalid = 1;
      snprintf(c->error, sizeof(c->error), "NoSuchToolError");
      continue;
    }
    int blank = 1;
    for(size_t k = 0; k < c->args.len && blank; k++) {
      char x = c->args.data[k];
      blank = x == ' ' || (x >= '\t' && x <= '\r');
    }
    if(blank) {
      oc_cbuf_reset(&c->args);
      oc_buf_adds(&c->args, "{}");
      c->args_len = 2;
      continue;
    }
    struct oc_jdoc d;
    struct oc_jerr err;
    oc_jdoc_init(&d);
    if(c->args_over || oc_cjdoc_parse(&d, oc_buf_str(&c->args), c->args.len, &err) != OC_OK ||
       oc_client_json_forbidden(d.root)) {
      c->invalid = 1;
      snprintf(c->error, sizeof(c->error), "InvalidToolInputError");
    }
    oc_jdoc_free(&d);
  }
}

/* ai 7's check of an enforced tool choice after the step: "required"
 * wants a call, a named tool a call of it, "none" no call.  1 when it
 * raised ToolChoiceViolationError. */
static int tool_choice_violated(struct ai *a, const struct oc_cctx *cx, const struct oc_cchoice *ch,
                                struct oc_cview *v)
{
  if(a->major < 7)
    return 0; /* ai 5 has no such check */
  const cJSON *tc = cx->req->body ? cJSON_GetObjectItemCaseSensitive(cx->req->body, "tool_choice") : NULL;
  if(!tc || !tools_offered(cx->req, NULL))
    return 0;
  char msg[200];
  int bad = 0;
  if(cJSON_IsString(tc) && strcmp(tc->valuestring, "required") == 0) {
    bad = ch->ncalls == 0;
    snprintf(msg, sizeof(msg), "Model response did not contain a tool call even though tool choice was "
                               "required.");
  }
  else if(cJSON_IsString(tc) && strcmp(tc->valuestring, "none") == 0) {
    bad = ch->ncalls > 0;
    snprintf(msg, sizeof(msg), "Model response contained a tool call even though tool choice was none.");
  }
  else if(cJSON_IsObject(tc)) {
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(tc, "function"), "name");
    if(!cJSON_IsString(n))
      return 0;
    bad = 1;
    for(size_t i = 0; i < ch->ncalls && bad; i++)
      bad = !oc_ctext_eqs(&ch->calls[i].name, n->valuestring, strlen(n->valuestring));
    snprintf(msg, sizeof(msg), "Model response did not contain a call to the required tool '%.100s'.",
             n->valuestring);
  }
  if(!bad)
    return 0;
  ai_raise(a, v, "ToolChoiceViolationError", msg, strlen(msg), OC_CAUSE_SERVER, OC_R_TOOL_CHOICE_HONOURED);
  return 1;
}

static int rf_openai_shaped(const struct oc_request_info *req)
{
  const cJSON *rf = req->body ? cJSON_GetObjectItemCaseSensitive(req->body, "response_format") : NULL;
  const cJSON *type = cJSON_GetObjectItemCaseSensitive(rf, "type");
  if(!cJSON_IsObject(rf) || !cJSON_IsString(type))
    return 0;
  if(strcmp(type->valuestring, "json_schema") == 0)
    return cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(rf, "json_schema"));
  return strcmp(type->valuestring, "json_object") == 0;
}

static void error_body(struct ai *a, const struct oc_cctx *cx, const struct oc_cbody *b)
{
  /* createJsonErrorResponseHandler: OpenAI's envelope gives the message,
   * anything else the status text */
  int blank = 1;
  for(size_t i = 0; i < b->len && blank; i++) {
    char x = b->text[i];
    blank = x == ' ' || (x >= '\t' && x <= '\r');
  }
  const char *msg = cx->reason;
  size_t len = strlen(msg);
  if(!blank && b->root && !oc_client_json_forbidden(b->root) && z_error(b->root)) {
    const struct oc_jv *m = oc_jv_get(b->error, "message");
    msg = m->u.str;
    len = m->len;
  }
  ai_raise(a, &a->body, "APICallError", msg, len, OC_CAUSE_SERVER, OC_R_ERROR_SHAPE);
}

static void ai_body(void *st, const struct oc_cctx *cx, const struct oc_cbody *b)
{
  struct ai *a = st;
  a->have_body = 1;
  if(cx->status < 200 || cx->status >= 300) {
    error_body(a, cx, b);
    return;
  }
  if(cx->stream)
    return;
  if(!b->root || oc_client_json_forbidden(b->root) || !z_response(b)) {
    ai_raise(a, &a->body, "APICallError", "Invalid JSON response", 21, OC_CAUSE_SERVER,
             !b->root                                       ? OC_R_JSON_BODY
             : reasoning_not_string(b->entries, b->nentries) ? OC_R_REASONING_NOT_STRING
                                                            : OC_R_CHAT_SCHEMA);
    if(b->root && b->error && b->error->type != OC_JNULL)
      a->rule = OC_R_ERROR_STATUS;
    return;
  }
  if(b->nentries == 0) {
    ai_raise(a, &a->body, "InvalidResponseDataError", "Response did not contain any choices.", 37,
             OC_CAUSE_SERVER, OC_R_CHAT_SCHEMA);
    return;
  }
  const struct oc_centry *e = &b->entries[0];
  struct oc_cchoice *ch = oc_cview_choice(&a->body, 0, 1);
  if(!ch)
    return;
  if(e->content && e->content->type == OC_JSTRING)
    oc_ctext_set(&ch->content, e->content->u.str, e->content->len);
  if(a->major >= 7 && e->refusal && e->refusal->type == OC_JSTRING && e->refusal->len) {
    oc_ctext_add(&ch->content, e->refusal->u.str, e->refusal->len);
    a->refusal = 1;
  }
  if(e->tool_calls && e->tool_calls->type == OC_JARRAY)
    for(uint32_t k = 0; k < e->tool_calls->len; k++) {
      const struct oc_jv *tc = &e->tool_calls->u.items[k];
      struct oc_ccall *c = oc_cchoice_call(ch, (long)k, 1);
      if(!c)
        break;
      const struct oc_jv *id = oc_jv_get(tc, "id");
      const struct oc_jv *fn = oc_jv_get(tc, "function");
      const struct oc_jv *name = oc_jv_get(fn, "name"), *args = oc_jv_get(fn, "arguments");
      if(id && id->type == OC_JSTRING)
        oc_ctext_set(&c->id, id->u.str, id->len);
      else {
        char gen[40];
        int n = snprintf(gen, sizeof(gen), "ai-sdk-generated-%d", ++a->gen);
        oc_ctext_set(&c->id, gen, (size_t)n);
      }
      oc_ctext_set(&c->name, name->u.str, name->len);
      oc_ccall_args_add(c, args->u.str, args->len);
    }
  const char *f = e->finish && e->finish->type == OC_JSTRING ? map_finish(e->finish) : "other";
  if(a->refusal && strcmp(f, "stop") == 0)
    f = "content-filter";
  oc_ctext_set(&ch->finish, f, strlen(f));
  parse_calls(cx, ch);
  if(tool_choice_violated(a, cx, ch, &a->body))
    return;
  if(!rf_openai_shaped(cx->req))
    return;
  /* `output`: parsed for a "stop", or for any other answer but tool calls
   * that has text; none otherwise (NoOutputGeneratedError on reading it).
   * ai 5's experimental_output: a "stop" answer only (NoOutputSpecifiedError) */
  int has_text = e->content && e->content->type == OC_JSTRING && e->content->len > 0;
  if(strcmp(f, "stop") != 0 && (a->major < 7 || strcmp(f, "tool-calls") == 0 || !has_text)) {
    ai_raise(a, &a->body, a->major < 7 ? "NoOutputSpecifiedError" : "NoOutputGeneratedError",
             a->major < 7 ? "No output specified." : "No output generated.", 20,
             strcmp(f, "length") == 0 ? OC_CAUSE_LENGTH
             : strcmp(f, "content-filter") == 0 ? OC_CAUSE_CONTENT_FILTER : OC_CAUSE_SERVER,
             OC_R_SCHEMA_OUTPUT);
    return;
  }
  struct oc_jdoc d;
  struct oc_jerr err;
  oc_jdoc_init(&d);
  const char *text = e->content && e->content->type == OC_JSTRING ? e->content->u.str : "";
  size_t tlen = e->content && e->content->type == OC_JSTRING ? e->content->len : 0;
  if(oc_cjdoc_parse(&d, text, tlen, &err) != OC_OK || oc_client_json_forbidden(d.root))
    ai_raise(a, &a->body, "NoObjectGeneratedError", "No object generated: could not parse the response.",
             50, strcmp(f, "length") == 0 ? OC_CAUSE_LENGTH : OC_CAUSE_SERVER,
             cx->req->format == OC_FORMAT_JSON_OBJECT ? OC_R_JSON_OBJECT_OUTPUT : OC_R_SCHEMA_OUTPUT);
  else if(d.root->type == OC_JNULL)
    ai_raise(a, &a->body, a->major < 7 ? "NoOutputSpecifiedError" : "NoOutputGeneratedError",
             a->major < 7 ? "No output specified." : "No output generated.", 20, OC_CAUSE_SERVER,
             OC_R_SCHEMA_OUTPUT);
  oc_jdoc_free(&d);
}

static void ai_finish(void *st, const struct oc_cctx *cx, struct oc_cview *got,
                      struct oc_client_verdict *v)
{
  struct ai *a = st;
  if(a->have_body && (oc_cview_raised(&a->body) || !cx->stream))
    oc_cview_move(got, &a->body);
  else {
    struct oc_cchoice *ch = message(a);
    if(ch && a->have_first)
      oc_cfollow_final(&a->follow, &ch->content, cx);
    if(ch && !oc_cview_raised(&a->view) && !a->finish_set && !cx->partial && a->major >= 7) {
      /* flush(): no finish reason at all is an error part (a cut capture
       * does not show how the stream ended) */
      static const char m[] = "Response stream ended without a finish reason.";
      ai_raise(a, &a->view, "InvalidResponseDataError", m, sizeof(m) - 1, OC_CAUSE_SERVER,
               OC_R_STREAM_FINISH_ONCE);
    }
    if(ch && !oc_cview_raised(&a->view)) {
      const char *f = !a->finish_set                              ? "other"
                      : a->refusal && strcmp(a->finish, "stop") == 0 ? "content-filter"
                                                                     : a->finish;
      oc_ctext_set(&ch->finish, f, strlen(f));
      oc_cchoice_sort_calls(ch);
      parse_calls(cx, ch);
      tool_choice_violated(a, cx, ch, &a->view);
    }
    oc_cview_move(got, &a->view);
  }
  if(a->have_rule) {
    v->cause = a->cause;
    oc_client_add_rule(v, a->rule);
  }
  else if(a->refusal)
    v->cause = OC_CAUSE_REFUSAL; /* the refusal read as the answer's text */
  else if(a->past_done) {
    v->cause = OC_CAUSE_SERVER;
    oc_client_add_rule(v, OC_R_STREAM_AFTER_DONE);
  }
  else if(a->mixed) {
    v->cause = cx->req->n > 1 ? OC_CAUSE_N : OC_CAUSE_SERVER;
    if(cx->req->n <= 1)
      oc_client_add_rule(v, OC_R_CHAT_CHOICES_COUNT);
  }
}

static void ai_free(void *st)
{
  struct ai *a = st;
  oc_cview_free(&a->view);
  oc_cview_free(&a->body);
  free(a->calls);
  free(a->used);
}

const struct oc_cmodel oc_cmodel_ai_sdk = {
  .id = OC_CLIENT_AI_SDK,
  .size = sizeof(struct ai),
  .init = ai_init,
  .event = ai_event,
  .body = ai_body,
  .finish = ai_finish,
  .free = ai_free,
  .after_done = 1,
};

const struct oc_cmodel oc_cmodel_ai_sdk_5 = {
  .id = OC_CLIENT_AI_SDK_5,
  .size = sizeof(struct ai),
  .init = ai_init_5,
  .event = ai_event,
  .body = ai_body,
  .finish = ai_finish,
  .free = ai_free,
  .after_done = 1,
};
