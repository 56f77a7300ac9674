/* agent_codex.c — Codex CLI 0.171.0 reading a Responses stream (see
 * agent_codex.h).  Codex dispatches on each event's type, commits an
 * output item only from response.output_item.done, and ends the turn only
 * at response.completed: a stream that ends before it is retried
 * (stream_max_retries, default 5) and then fails the run, whatever it
 * carried — an untyped {"error":…} or a typed error event included, whose
 * message is never shown.  A committed function call is run and the turn
 * goes on; otherwise the last committed message is the answer, and
 * without one Codex prints nothing and still exits 0. */
#include "config.h"
#include "agent_codex.h"

#include <string.h>

const char *oc_codex_outcome_name(enum oc_codex_outcome o)
{
  switch(o) {
  case OC_CODEX_ANSWER:
    return "answer";
  case OC_CODEX_EMPTY:
    return "empty";
  case OC_CODEX_TOOL:
    return "tool";
  case OC_CODEX_ERROR:
    return "error";
  }
  return "?";
}

static void error_view(struct oc_codex_view *v, const char *says, int measured)
{
  v->outcome = OC_CODEX_ERROR;
  v->exit_status = 1;
  v->says = says;
  v->measured = measured;
}

void oc_codex_predict(const struct oc_rstream *s, int cut, struct oc_codex_view *v)
{
  memset(v, 0, sizeof(*v));
  const char *term = s->terminal_type;
  if(cut && !term) {
    error_view(v, "stream disconnected before completion", 0);
    return;
  }
  if(!term) {
    /* measured: no terminal event, and an untyped mid-stream error */
    error_view(v, "stream disconnected before completion: stream closed before "
                  "response.completed", 1);
    return;
  }
  if(strcmp(term, "response.failed") == 0) {
    error_view(v, "the server's response.failed error", 0);
    return;
  }
  if(strcmp(term, "response.incomplete") == 0) {
    error_view(v, "Incomplete response returned", 0);
    return;
  }
  if(!s->resp_id.len) {
    /* it reads response.completed's response.id */
    error_view(v, "response.completed without response.id", 0);
    return;
  }
  v->measured = 1;
  v->exit_status = 0;
  const struct oc_ritem *answer = NULL;
  for(size_t i = 0; i < s->nitems; i++) {
    const struct oc_ritem *it = &s->items[i];
    if(!it->final_seen)
      continue; /* never committed */
    if(it->kind == OC_RITEM_FUNCTION_CALL) {
      v->outcome = OC_CODEX_TOOL;
      v->exit_status = -1;
      v->call_id = it->call_id;
      v->name = it->name;
      v->says = "exec ... succeeded";
      return;
    }
    if(it->kind == OC_RITEM_MESSAGE && it->final.len)
      answer = it;
  }
  if(answer) {
    v->outcome = OC_CODEX_ANSWER;
    v->answer = &answer->final;
    v->says = "codex: the answer";
    return;
  }
  v->outcome = OC_CODEX_EMPTY;
  v->says = "nothing";
}
