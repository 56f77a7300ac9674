/* client_openai_agents_chat.c — the OpenAI Agents SDK for JavaScript
 * (@openai/agents 0.20) on its Chat Completions model
 * (OpenAIChatCompletionsModel): one agent with the request's function
 * tools, run once, modelled from its source and verified against the real
 * SDK on every recording (the oracle).  It reads a stream through
 * openai-node 7's Stream (an event starting with [DONE] ends it, JSON that
 * does not parse throws, a truthy `error` throws APIError) and keeps only
 * the choice whose index is 0: text from truthy `content`, `refusal`, tool
 * calls keyed by their `index` as an object's property (a missing index
 * is the key "undefined", so every index-less fragment joins one call)
 * with the names concatenated and the first id kept.  A non-streamed
 * answer is the first element of `choices`: a message when `content` is
 * not null (even "", unless tool calls came with it), else its refusal,
 * and the calls whose type is "function".  Then the runner: a call to a
 * tool the agent does not have, or a call without an id, raises
 * ModelBehaviorError; an answer that is only a refusal raises
 * ModelRefusalError; a length stop with nothing at all raises; an answer
 * with neither a message nor a call is not final, and the run asks again
 * until MaxTurnsExceededError (a streamed answer whose every word went to
 * reasoning: `content` "" is no message there).  Its reasoning is
 * `reasoning` only (client.c).  No role and no finish reason reach the
 * application. */
#include "config.h"
#include "client_int.h"

#include <limits.h>
#include <string.h>

/* keys of calls whose index is not an array index, after every array
 * index (Object.values lists integer keys first) */
#define KEY_UNDEFINED (1L << 40)
#define KEY_OTHER (KEY_UNDEFINED + 1)

struct agents {
  struct oc_cjs_stream s;
  struct oc_cview view;   /* one choice: the run's message and calls */
  struct oc_cchoice *ch;
  struct oc_cfollow follow; /* the message text, in step with the reference's choice 0 */
  int text;               /* a text part exists (some truthy content came) */
  int nonempty;           /* that text is not "" */
  int refusal;            /* a refusal part exists */
  int finish_length;      /* finish_reason "length" on choice 0 */
  int finish_filter;      /* finish_reason "content_filter" on choice 0 */
  int reasoning;          /* a non-empty string `reasoning` came */
  int have_body;
  int seq;
};

static void agents_init(void *st, const struct oc_cctx *cx)
{
  struct agents *a = st;
  oc_cview_init(&a->view);
  a->ch = oc_cview_choice(&a->view, 0, 1);
  if(!a->ch)
    oc_cnote_oom();
  oc_cfollow_init(&a->follow, cx, 0);
}

static const struct oc_centry *primary(const struct oc_cevent *ev)
{
  /* chunk.choices.find((choice) => choice.index === 0) */
  for(size_t i = 0; i < ev->nentries; i++)
    if(ev->entries[i].int_index && ev->entries[i].index && ev->entries[i].index->u.num == 0)
      return &ev->entries[i];
  return NULL;
}

static void finish_of(struct agents *a, const struct oc_jv *f)
{
  if(!oc_js_truthy(f) || f->type != OC_JSTRING)
    return;
  a->finish_length = f->len == 6 && memcmp(f->u.str, "length", 6) == 0;
  a->finish_filter = f->len == 14 && memcmp(f->u.str, "content_filter", 14) == 0;
}

static long call_key(const struct oc_jv *index)
{
  if(!index)
    return KEY_UNDEFINED;
  if(oc_jv_is_integer(index) && index->u.num >= 0 && index->u.num < 4294967295.0)
    return (long)index->u.num;
  return KEY_OTHER;
}

static void agents_event(void *st, const struct oc_cctx *cx, const struct oc_cevent *ev)
{
  struct agents *a = st;
  if(!a->ch)
    return;
  int take = oc_cjs_stream_event(&a->s, ev, &a->view) == 1;
  const struct oc_centry *e = take && ev->choices && ev->choices->type == OC_JARRAY ? primary(ev) : NULL;
  const struct oc_jv *delta = e ? e->delta : NULL;
  int text = delta && delta->type == OC_JOBJECT && e->content && e->content->type == OC_JSTRING &&
             e->content->len;
  oc_cfollow_chunk(&a->follow, &a->ch->content, cx, ev, text ? e : NULL);
  if(!e)
    return;
  finish_of(a, e->finish);
  if(!delta || delta->type != OC_JOBJECT)
    return;
  if(text) {
    a->text = 1;
    a->nonempty = 1;
    oc_cfollow_add(&a->follow, &a->ch->content, e->content->u.str, e->content->len);
  }
  if(e->reasoning && e->reasoning->type == OC_JSTRING && e->reasoning->len)
    a->reasoning = 1;
  if(oc_js_truthy(e->refusal)) {
    a->refusal = 1;
    if(e->refusal->type == OC_JSTRING)
      oc_ctext_add(&a->ch->refusal, e->refusal->u.str, e->refusal->len);
  }
  if(!e->tool_calls || e->tool_calls->type != OC_JARRAY)
    return;
  for(uint32_t t = 0; t < e->tool_calls->len; t++) {
    const struct oc_jv *tc = &e->tool_calls->u.items[t];
    const struct oc_jv *type = oc_jv_get(tc, "type");
    if(type && type->type == OC_JSTRING && type->len == 6 && memcmp(type->u.str, "custom", 6) == 0)
      continue;
    long key = call_key(oc_jv_get(tc, "index"));
    struct oc_ccall *c = oc_cchoice_call(a->ch, key, 0);
    if(!c) {
      c = oc_cchoice_call(a->ch, key, 1);
      if(!c)
        return;
      c->seq = a->seq++;
      c->args_set = 1;
    }
    const struct oc_jv *fn = oc_jv_get(tc, "function");
    const struct oc_jv *name = oc_jv_get(fn, "name");
    const struct oc_jv *args = oc_jv_get(fn, "arguments");
    const struct oc_jv *id = oc_jv_get(tc, "id");
    if(args && args->type == OC_JSTRING)
      oc_ccall_args_add(c, args->u.str, args->len);
    if(name && name->type == OC_JSTRING)
      oc_ctext_add(&c->name, name->u.str, name->len);
    if(oc_js_truthy(id) && id->type == OC_JSTRING && !c->id.set)
      oc_ctext_set(&c->id, id->u.str, id->len);
  }
}

static void agents_extra(void *st, const struct oc_cctx *cx, const struct oc_cextra *x)
{
  (void)cx;
  struct agents *a = st;
  oc_cjs_stream_extra(&a->s, x, &a->view);
}

static void agents_body(void *st, const struct oc_cctx *cx, const struct oc_cbody *b)
{
  struct agents *a = st;
  a->have_body = 1;
  if(cx->status < 200 || cx->status >= 300) {
    oc_cjs_http_error(cx, b, &a->view, 7);
    return;
  }
  if(cx->stream || !a->ch)
    return; /* decoded as events (oc_clients_body) */
  int json = strstr(b->media, "application/json") != NULL || oc_endswith(b->media, "+json");
  if(!json || b->len == 0 || !b->nentries)
    return; /* no choices[0]: no output */
  if(!b->root) {
    oc_cview_raise(&a->view, "SyntaxError", "the body is not valid JSON (response.json())", 44);
    return;
  }
  const struct oc_centry *e = &b->entries[0];
  const struct oc_jv *m = e->message;
  if(!m || m->type != OC_JOBJECT) {
    oc_cview_raise(&a->view, "TypeError", "Cannot use 'in' operator to search for 'reasoning' in the message",
                   65);
    return;
  }
  finish_of(a, e->finish);
  a->follow.on = 0;
  const struct oc_jv *calls = e->tool_calls;
  int calls_listed = oc_js_truthy(calls);
  int is_content = e->content && e->content->type != OC_JNULL &&
                   !(calls_listed && e->content->type == OC_JSTRING && e->content->len == 0);
  if(e->reasoning && e->reasoning->type == OC_JSTRING && e->reasoning->len)
    a->reasoning = 1;
  if(is_content) {
    a->text = 1;
    a->nonempty = e->content->type == OC_JSTRING ? e->content->len > 0 : oc_js_truthy(e->content);
    if(e->content->type == OC_JSTRING)
      oc_ctext_set(&a->ch->content, e->content->u.str, e->content->len);
  }
  else if(oc_js_truthy(e->refusal)) {
    a->refusal = 1;
    if(e->refusal->type == OC_JSTRING)
      oc_ctext_set(&a->ch->refusal, e->refusal->u.str, e->refusal->len);
  }
  if(!calls || calls->type != OC_JARRAY)
    return;
  for(uint32_t t = 0; t < calls->len; t++) {
    const struct oc_jv *tc = &calls->u.items[t];
    const struct oc_jv *type = oc_jv_get(tc, "type");
    if(!type || type->type != OC_JSTRING || type->len != 8 || memcmp(type->u.str, "function", 8) != 0)
      continue;
    struct oc_ccall *c = oc_cchoice_call(a->ch, (long)t, 1);
    if(!c)
      return;
    c->args_set = 1;
    const struct oc_jv *fn = oc_jv_get(tc, "function");
    const struct oc_jv *name = oc_jv_get(fn, "name");
    const struct oc_jv *args = oc_jv_get(fn, "arguments");
    const struct oc_jv *id = oc_jv_get(tc, "id");
    if(name && name->type == OC_JSTRING)
      oc_ctext_set(&c->name, name->u.str, name->len);
    if(args && args->type == OC_JSTRING)
      oc_ccall_args_add(c, args->u.str, args->len);
    if(id && id->type == OC_JSTRING && id->len)
      oc_ctext_set(&c->id, id->u.str, id->len);
  }
}

/* Does the agent have a tool of this name (the request's function tools)? */
static int has_tool(const struct oc_request_info *req, const struct oc_ctext *name)
{
  const cJSON *t;
  if(!req->tools || !name->set)
    return 0;
  cJSON_ArrayForEach(t, req->tools) {
    const cJSON *fn = cJSON_GetObjectItemCaseSensitive(t, "function");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(fn, "name");
    if(cJSON_IsString(n) && oc_ctext_eqs(name, n->valuestring, strlen(n->valuestring)))
      return 1;
  }
  return 0;
}

static void agents_finish(void *st, const struct oc_cctx *cx, struct oc_cview *got,
                          struct oc_client_verdict *v)
{
  struct agents *a = st;
  if(!oc_cview_raised(&a->view) && a->ch) {
    struct oc_cchoice *ch = a->ch;
    if(cx->stream)
      oc_cfollow_final(&a->follow, &ch->content, cx);
    if(!a->text)
      oc_ctext_init(&ch->content);
    oc_cchoice_sort_calls(ch);
    /* the Bedrock workaround: "{}{…" loses its "{}" */
    for(size_t i = 0; i < ch->ncalls; i++) {
      struct oc_ccall *c = &ch->calls[i];
      if(c->args.len >= 3 && memcmp(c->args.data, "{}{", 3) == 0) {
        memmove(c->args.data, c->args.data + 2, c->args.len - 2);
        c->args.len -= 2;
        c->args.data[c->args.len] = '\0';
      }
    }
    if(a->finish_filter && !a->text && !a->refusal && !ch->ncalls) {
      a->refusal = 1;
      oc_ctext_set(&ch->refusal, "Response withheld by the provider's content filter.", 51);
    }
    if(a->finish_length && !a->nonempty && !a->refusal && !a->reasoning && !ch->ncalls) {
      static const char m[] = "Chat Completions response terminated with finish_reason='length' but "
                              "produced no assistant text, tool call, or refusal.";
      oc_cview_raise(&a->view, "ModelBehaviorError", m, sizeof(m) - 1);
      v->cause = OC_CAUSE_LENGTH;
    }
    else if(ch->ncalls) {
      for(size_t i = 0; i < ch->ncalls && !oc_cview_raised(&a->view); i++)
        if(!has_tool(cx->req, &ch->calls[i].name)) {
          char msg[200], nm[120];
          oc_ctext_quote(&ch->calls[i].name, nm, sizeof(nm));
          snprintf(msg, sizeof(msg), "Tool %s not found in agent oacheck.", nm);
          oc_cview_raise(&a->view, "ModelBehaviorError", msg, strlen(msg));
          /* names are joined: a name sent again makes one no tool has */
          if(cx->stream)
            oc_client_add_rule(v, OC_R_TOOL_NAME_ONCE);
        }
      for(size_t i = 0; i < ch->ncalls && !oc_cview_raised(&a->view); i++)
        if(oc_ctext_empty(&ch->calls[i].id)) {
          static const char m[] = "Tool invocation is missing a non-empty call ID.";
          oc_cview_raise(&a->view, "ModelBehaviorError", m, sizeof(m) - 1);
          oc_client_add_rule(v, OC_R_TOOL_CALL_ID);
        }
    }
    else if(!a->text && a->refusal) {
      char msg[OC_CTEXT_HEAD + 64];
      snprintf(msg, sizeof(msg), "Model refused to produce output: %.*s", (int)ch->refusal.nhead,
               ch->refusal.head);
      oc_cview_raise(&a->view, "ModelRefusalError", msg, strlen(msg));
      v->cause = OC_CAUSE_REFUSAL;
    }
    else if(!a->text && !cx->partial) {
      /* not a final output: the run asks again (with the default 10
       * turns, the same server nine more times); a cut capture does not
       * show whether text was still to come */
      static const char m[] = "Max turns (1) exceeded";
      oc_cview_raise(&a->view, "MaxTurnsExceededError", m, sizeof(m) - 1);
    }
  }
  oc_cview_move(got, &a->view);
}

static void agents_free(void *st)
{
  struct agents *a = st;
  oc_cview_free(&a->view);
}

const struct oc_cmodel oc_cmodel_openai_agents_chat = {
  .id = OC_CLIENT_OPENAI_AGENTS_CHAT,
  .size = sizeof(struct agents),
  .init = agents_init,
  .event = agents_event,
  .extra = agents_extra,
  .body = agents_body,
  .finish = agents_finish,
  .free = agents_free,
};
