/* client_responses_ai_sdk.c — ai 7 with @ai-sdk/openai 4's Responses model
 * (generateText / streamText, the request's tools executed), as the oracle
 * drives it.
 *
 * Streamed, every event's data is checked against the provider's chunk
 * schema (openaiResponsesChunkSchema): an event of a type it models that
 * lacks a member it requires — response.created without created_at or
 * model (llama-server), an output_item or arguments event without
 * output_index, an `error` or response.failed without sequence_number —
 * or data that is not a JSON object with a string `type` (llama-server's
 * untyped error) is an error part: TypeValidationError, and the oracle's
 * application raises it.  Otherwise the text is the output_text (and
 * refusal) deltas as they came, a function call exists only once its
 * response.output_item.done arrives, the finish reason comes from
 * response.completed / response.incomplete ("interrupted" without one),
 * a valid `error` event and a response.failed with an error raise with
 * the server's message.  Not streamed, the body must be an object with an
 * output list; its message text and function calls are the answer, a
 * non-null error raises with its message.  Either way the ai core parses
 * each call's arguments (a call whose arguments are not a JSON object, or
 * names no offered tool, is flagged invalid) and throws
 * ToolChoiceViolationError when tool_choice was required or named and no
 * such call came (or none was, and one came). */
#include "config.h"
#include "client_responses_int.h"

#include <stdio.h>
#include <string.h>

struct st {
  struct oc_rview v;
  int stream;
  int finished;           /* response.completed or .incomplete: a finish reason */
  int invalid_chunk;      /* the break: a chunk the schema refused */
  int created_bad;        /* ... response.created or .in_progress */
  int index_missing;      /* ... an event without output_index */
};

static int is_str(const struct oc_jv *v)
{
  return v && v->type == OC_JSTRING;
}

static int is_num(const struct oc_jv *v)
{
  return v && v->type == OC_JNUMBER;
}

static int nullish(const struct oc_jv *v)
{
  return !v || v->type == OC_JNULL;
}

static int is_obj(const struct oc_jv *v)
{
  return v && v->type == OC_JOBJECT;
}

#define M(o, k) oc_jv_get((o), (k))

static void init(void *p, const struct oc_pctx *cx)
{
  struct st *s = p;
  oc_rview_init(&s->v);
  oc_ctext_set(&s->v.text, "", 0);
  s->stream = cx->stream;
}

static void release(void *p)
{
  oc_rview_free(&((struct st *)p)->v);
}

static int usage_ok(const struct oc_jv *u)
{
  return nullish(u) || (is_obj(u) && is_num(M(u, "input_tokens")) && is_num(M(u, "output_tokens")));
}

/* An output item of output_item.added/done: 1 valid (or a type the schema
 * does not model), 0 not. */
static int item_ok(const struct oc_jv *it, int done)
{
  if(!is_obj(it) || !is_str(M(it, "type")))
    return 0;
  const char *t = M(it, "type")->u.str;
  if(strcmp(t, "message") == 0 || strcmp(t, "reasoning") == 0)
    return is_str(M(it, "id"));
  if(strcmp(t, "function_call") == 0) {
    if(!is_str(M(it, "id")) || !is_str(M(it, "call_id")) || !is_str(M(it, "name")) ||
       !is_str(M(it, "arguments")))
      return 0;
    if(!done)
      return 1;
    const struct oc_jv *st = M(it, "status");
    return is_str(st) && (strcmp(st->u.str, "in_progress") == 0 || strcmp(st->u.str, "completed") == 0 ||
                          strcmp(st->u.str, "incomplete") == 0);
  }
  return 1;
}

/* The chunk schema: 1 the event passes, 0 it is an error part. */
static int chunk_ok(struct st *s, const struct oc_pevent *ev)
{
  const struct oc_jv *d = ev->root;
  if(!is_obj(d) || !ev->type)
    return 0;
  const struct oc_jv *oi = M(d, "output_index"), *item_id = M(d, "item_id");
  if(oc_rtype_is(ev, "response.output_text.delta"))
    return is_str(item_id) && is_str(M(d, "delta")) && (nullish(oi) || is_num(oi)) &&
           (nullish(M(d, "logprobs")) || M(d, "logprobs")->type == OC_JARRAY);
  if(oc_rtype_is(ev, "response.refusal.delta") || oc_rtype_is(ev, "response.refusal.done"))
    return is_str(item_id) && (nullish(oi) || is_num(oi)) &&
           is_str(M(d, oc_rtype_is(ev, "response.refusal.delta") ? "delta" : "refusal"));
  if(oc_rtype_is(ev, "response.completed") || oc_rtype_is(ev, "response.incomplete")) {
    const struct oc_jv *r = M(d, "response");
    const struct oc_jv *inc = is_obj(r) ? M(r, "incomplete_details") : NULL;
    return is_obj(r) && usage_ok(M(r, "usage")) && (nullish(inc) || (is_obj(inc) && is_str(M(inc, "reason"))));
  }
  if(oc_rtype_is(ev, "response.failed")) {
    const struct oc_jv *r = M(d, "response");
    const struct oc_jv *e = is_obj(r) ? M(r, "error") : NULL;
    return is_num(M(d, "sequence_number")) && is_obj(r) && usage_ok(M(r, "usage")) &&
           (nullish(e) || (is_obj(e) && is_str(M(e, "message")) &&
                           (nullish(M(e, "code")) || is_str(M(e, "code")))));
  }
  if(oc_rtype_is(ev, "response.created") || oc_rtype_is(ev, "response.in_progress")) {
    const struct oc_jv *r = M(d, "response");
    int ok = is_obj(r) && is_str(M(r, "id")) && is_num(M(r, "created_at")) && is_str(M(r, "model"));
    s->created_bad = !ok;
    return ok;
  }
  if(oc_rtype_is(ev, "response.output_item.added") || oc_rtype_is(ev, "response.output_item.done")) {
    if(!is_num(oi))
      s->index_missing = 1;
    return is_num(oi) && item_ok(M(d, "item"), oc_rtype_is(ev, "response.output_item.done"));
  }
  if(oc_rtype_is(ev, "response.function_call_arguments.delta") ||
     oc_rtype_is(ev, "response.function_call_arguments.done") ||
     oc_rtype_is(ev, "response.custom_tool_call_input.delta") ||
     oc_rtype_is(ev, "response.code_interpreter_call_code.delta") ||
     oc_rtype_is(ev, "response.code_interpreter_call_code.done") ||
     oc_rtype_is(ev, "response.image_generation_call.partial_image") ||
     oc_rtype_is(ev, "response.apply_patch_call_operation_diff.delta") ||
     oc_rtype_is(ev, "response.apply_patch_call_operation_diff.done")) {
    if(!is_num(oi))
      s->index_missing = 1;
    return is_str(item_id) && is_num(oi);
  }
  if(oc_rtype_is(ev, "response.reasoning_summary_part.added") ||
     oc_rtype_is(ev, "response.reasoning_summary_part.done") ||
     oc_rtype_is(ev, "response.reasoning_summary_text.delta"))
    return is_str(item_id) && is_num(M(d, "summary_index")) && (nullish(oi) || is_num(oi)) &&
           (!oc_rtype_is(ev, "response.reasoning_summary_text.delta") || is_str(M(d, "delta")));
  if(oc_rtype_is(ev, "response.output_text.annotation.added"))
    return is_obj(M(d, "annotation"));
  if(oc_rtype_is(ev, "error")) {
    if(!is_num(M(d, "sequence_number")))
      return 0;
    const struct oc_jv *e = M(d, "error");
    if(is_obj(e) && is_str(M(e, "type")) && is_str(M(e, "message")))
      return 1;
    return is_str(M(d, "message")) && (nullish(M(d, "code")) || is_str(M(d, "code")));
  }
  return 1; /* a type the schema does not model: an unknown chunk, ignored */
}

/* The ai core's parse of a call: invalid when its arguments are not a
 * JSON object or it names no offered tool. */
static void mark_calls(const struct oc_pctx *cx, struct oc_rview *v)
{
  for(size_t i = 0; i < v->ncalls && i < OC_RCALLS; i++) {
    struct oc_rcall *c = &v->calls[i];
    char name[OC_CTEXT_HEAD + 1];
    int known = 0;
    if(c->name.set && c->name.len == c->name.nhead && c->name.nhead <= OC_CTEXT_HEAD) {
      memcpy(name, c->name.head, c->name.nhead);
      name[c->name.nhead] = '\0';
      known = strlen(name) == c->name.nhead && oc_request_has_tool(cx->req, name);
    }
    c->invalid = !c->args_object || !known;
  }
}

static void raise_invalid(struct st *s, const struct oc_pevent *ev)
{
  struct oc_buf m;
  oc_buf_init(&m, OC_CAP_CLIENT_MESSAGE);
  oc_buf_adds(&m, "Type validation failed: Value: ");
  oc_buf_add(&m, ev->data, ev->len < 4096 ? ev->len : 4096);
  oc_rview_raise(&s->v, "TypeValidationError", oc_buf_str(&m), m.len);
  oc_cbuf_free(&m);
  s->invalid_chunk = 1;
}

static void event(void *p, const struct oc_pctx *cx, const struct oc_pevent *ev)
{
  struct st *s = p;
  (void)cx;
  if(s->v.kind == OC_CV_ERROR)
    return;
  if(!ev->root) {
    oc_rview_raise(&s->v, "JSONParseError", "the event's data is not JSON", 28);
    s->invalid_chunk = 1;
    return;
  }
  if(!chunk_ok(s, ev)) {
    raise_invalid(s, ev);
    return;
  }
  const struct oc_jv *d = ev->root;
  if(oc_rtype_is(ev, "response.output_text.delta") || oc_rtype_is(ev, "response.refusal.delta")) {
    const struct oc_jv *delta = M(d, "delta");
    oc_ctext_add(&s->v.text, delta->u.str, delta->len);
  } else if(oc_rtype_is(ev, "response.output_item.done")) {
    const struct oc_jv *it = M(d, "item");
    if(strcmp(M(it, "type")->u.str, "function_call") == 0)
      oc_rview_item(&s->v, it);
  } else if(oc_rtype_is(ev, "response.completed") || oc_rtype_is(ev, "response.incomplete")) {
    s->finished = 1;
    oc_rview_status(&s->v, M(M(d, "response"), "status"));
  } else if(oc_rtype_is(ev, "response.failed")) {
    const struct oc_jv *e = M(M(d, "response"), "error");
    if(is_obj(e))
      oc_rview_raise(&s->v, "StreamProviderError", M(e, "message")->u.str, M(e, "message")->len);
  } else if(oc_rtype_is(ev, "error")) {
    const struct oc_jv *e = M(d, "error");
    const struct oc_jv *m = is_obj(e) ? M(e, "message") : M(d, "message");
    oc_rview_raise(&s->v, "StreamProviderError", m->u.str, m->len);
  }
}

static void body(void *p, const struct oc_pctx *cx, const char *text, size_t len, const struct oc_jv *root)
{
  struct st *s = p;
  (void)text;
  (void)len;
  if(cx->status >= 400) {
    /* the error schema's error.message, else the status text */
    const struct oc_jv *e = is_obj(root) ? M(root, "error") : NULL;
    const struct oc_jv *m = is_obj(e) ? M(e, "message") : NULL;
    if(is_str(m)) {
      oc_rview_raise(&s->v, "APICallError", m->u.str, m->len);
    } else {
      const char *st = oc_client_status_text(cx->status);
      oc_rview_raise(&s->v, "APICallError", st, strlen(st));
    }
    return;
  }
  const struct oc_jv *out = is_obj(root) ? M(root, "output") : NULL;
  if(!out || out->type != OC_JARRAY) {
    oc_rview_raise(&s->v, "TypeValidationError", "Type validation failed", 22);
    s->invalid_chunk = 1;
    return;
  }
  const struct oc_jv *e = M(root, "error");
  if(is_obj(e) && is_str(M(e, "message"))) {
    oc_rview_raise(&s->v, "APICallError", M(e, "message")->u.str, M(e, "message")->len);
    return;
  }
  s->finished = 1;
  oc_rview_output(&s->v, out, M(root, "status"));
}

/* ToolChoiceViolationError: 1 when the ai core throws it. */
static int violates(const struct oc_pctx *cx, const struct st *s)
{
  const struct oc_request_info *q = cx->req;
  if(!q->ntools || !s->finished)
    return 0;
  switch(q->tool_choice) {
  case OC_TOOL_CHOICE_NONE:
    return s->v.ncalls > 0;
  case OC_TOOL_CHOICE_REQUIRED:
    return s->v.ncalls == 0;
  case OC_TOOL_CHOICE_NAMED:
    for(size_t i = 0; i < s->v.ncalls && i < OC_RCALLS; i++)
      if(q->named_tool && oc_ctext_eqs(&s->v.calls[i].name, q->named_tool, strlen(q->named_tool)))
        return 0;
    return 1;
  default:
    return 0;
  }
}

static void finish(void *p, const struct oc_pctx *cx, struct oc_client_verdict *v)
{
  struct st *s = p;
  const struct oc_rview *ref = oc_rref_view(cx);
  int violation = 0;
  if(s->v.kind != OC_CV_ERROR) {
    mark_calls(cx, &s->v);
    if((violation = violates(cx, s))) {
      static const char m[] = "Model response did not contain a call to the required tool";
      oc_rview_raise(&s->v, "ToolChoiceViolationError", m, sizeof(m) - 1);
    }
  }
  oc_responses_judge(OC_RJ_PARSES, ref, &s->v, v);
  if(v->works)
    return;
  v->cause = OC_CAUSE_SERVER;
  if(s->created_bad)
    oc_client_add_rule(v, OC_R_RESPONSES_CREATED);
  else if(s->index_missing)
    oc_client_add_rule(v, OC_R_RESPONSES_OUTPUT_INDEX);
  else if(s->invalid_chunk)
    oc_client_add_rule(v, OC_R_RESPONSES_ERROR_EVENT);
  else if(violation)
    oc_client_add_rule(v, OC_R_RESPONSES_TOOL_CHOICE);
  else if(s->v.kind != OC_CV_ERROR && s->v.ncalls != ref->ncalls)
    oc_client_add_rule(v, OC_R_RESPONSES_ITEM_DONE);
  else if(s->v.kind != OC_CV_ERROR)
    oc_client_add_rule(v, OC_R_RESPONSES_TEXT_JOIN);
}

const struct oc_pmodel oc_rmodel_ai_sdk = {
  .id = OC_CLIENT_AI_SDK_RESPONSES,
  .size = sizeof(struct st),
  .init = init,
  .event = event,
  .body = body,
  .finish = finish,
  .free = release,
};
