/* client_responses_openai_agents.c — the OpenAI Agents SDK (0.20) on its
 * default Responses model, as the oracle drives it: one agent with the
 * request's tools, stopping at the first tool call, one turn.  It reads the
 * terminal event's Response only: the text and calls of its output (so
 * deltas that do not join do not matter, nor a missing output_index or
 * output_item.done).  Over openai-node's Stream, it raises what that
 * raises; a stream without response.completed is "Model did not produce a
 * final response!"; response.incomplete and response.failed are a
 * ModelBehaviorError that does not carry the server's message; an output
 * with neither a message nor a call is no final output, and the one turn
 * ends in MaxTurnsExceededError. */
#include "config.h"
#include "client_responses_int.h"

#include <string.h>

struct st {
  struct oc_rview v;
  int terminal;
  int failed;             /* response.failed: the server's message lost */
  int incomplete;         /* response.incomplete: the SDK's own policy */
};

static void init(void *p, const struct oc_pctx *cx)
{
  (void)cx;
  oc_rview_init(&((struct st *)p)->v);
}

static void release(void *p)
{
  oc_rview_free(&((struct st *)p)->v);
}

static const char unsuccessful[] = "OpenAI Responses request ended with unsuccessful terminal status";

static void terminal(struct st *s, const struct oc_jv *resp)
{
  const struct oc_jv *status = oc_jv_get(resp, "status");
  if(status && status->type == OC_JSTRING &&
     (strcmp(status->u.str, "failed") == 0 || strcmp(status->u.str, "incomplete") == 0)) {
    s->failed = strcmp(status->u.str, "failed") == 0;
    s->incomplete = !s->failed;
    oc_rview_raise(&s->v, "ModelBehaviorError", unsuccessful, sizeof(unsuccessful) - 1);
    return;
  }
  oc_rview_output(&s->v, oc_jv_get(resp, "output"), status);
  s->terminal = 1;
}

static void event(void *p, const struct oc_pctx *cx, const struct oc_pevent *ev)
{
  struct st *s = p;
  (void)cx;
  if(s->v.kind == OC_CV_ERROR || s->terminal)
    return;
  oc_rjs_stream_event(&s->v, ev);
  if(s->v.kind == OC_CV_ERROR || ev->root->type != OC_JOBJECT)
    return;
  const struct oc_jv *resp = oc_jv_get(ev->root, "response");
  if((oc_rtype_is(ev, "response.completed") || oc_rtype_is(ev, "response.incomplete") ||
      oc_rtype_is(ev, "response.failed")) && resp && resp->type == OC_JOBJECT)
    terminal(s, resp);
}

static void body(void *p, const struct oc_pctx *cx, const char *text, size_t len, const struct oc_jv *root)
{
  struct st *s = p;
  if(cx->status >= 400) {
    oc_rjs_http_error(cx, text, len, root, &s->v);
    return;
  }
  if(!root || root->type != OC_JOBJECT) {
    oc_rview_raise(&s->v, "SyntaxError", "the body is not a JSON object", 29);
    return;
  }
  terminal(s, root);
}

static void finish(void *p, const struct oc_pctx *cx, struct oc_client_verdict *v)
{
  struct st *s = p;
  const struct oc_rview *ref = oc_rref_view(cx);
  int no_terminal = 0, empty = 0;
  if(s->v.kind != OC_CV_ERROR && !s->terminal) {
    no_terminal = 1;
    static const char m[] = "Model did not produce a final response!";
    oc_rview_raise(&s->v, "ModelBehaviorError", m, sizeof(m) - 1);
  } else if(s->v.kind != OC_CV_ERROR && !s->v.ncalls && !s->v.message_item) {
    static const char m[] = "Max turns (1) exceeded";
    empty = 1;
    oc_rview_raise(&s->v, "MaxTurnsExceededError", m, sizeof(m) - 1);
  }
  oc_responses_judge(0, ref, &s->v, v);
  if(v->works)
    return;
  /* an incomplete answer (max_output_tokens) raises whoever sends it */
  v->cause = s->incomplete ? OC_CAUSE_LENGTH : OC_CAUSE_SERVER;
  if(no_terminal)
    oc_client_add_rule(v, OC_R_RESPONSES_TERMINAL);
  else if(s->failed)
    oc_client_add_rule(v, OC_R_RESPONSES_ERROR_EVENT);
  else if(empty && strcmp(ref->status, "completed") == 0)
    /* nothing to show, called completed: an answer cut short (the
     * length limit inside the reasoning) */
    oc_client_add_rule(v, OC_R_RESPONSES_STATUS);
}

const struct oc_pmodel oc_rmodel_openai_agents = {
  .id = OC_CLIENT_OPENAI_AGENTS,
  .size = sizeof(struct st),
  .init = init,
  .event = event,
  .body = body,
  .finish = finish,
  .free = release,
};
