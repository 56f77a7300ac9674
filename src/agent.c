/* agent.c — the agents' verdicts (agent.h): each agent's model says what
 * its user sees, and this file says whether that is what the server sent.
 * One judge per agent; adding an agent is a row in `agents` and a judge. */
#include "config.h"
#include "agent.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "agent_codex.h"
#include "claude_code.h"
#include "json.h"
#include "messages.h"
#include "response.h"
#include "responses.h"

static void say(struct oc_agent_verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct oc_agent_verdict *v, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v->reason, sizeof(v->reason), fmt, ap);
  va_end(ap);
}

/* ---- Codex CLI: a streamed Responses answer --------------------------------------------- */

static void judge_codex(const struct oc_response *r, int complete, struct oc_agent_verdict *v)
{
  const struct oc_rstream *s = oc_response_stream_of(r, OC_PROTO_RESPONSES);
  /* Codex always streams; what it does with an HTTP error before the
   * stream was not measured, so that is left unjudged */
  if(!s || !r->is_sse || r->status < 200 || r->status >= 300)
    return;
  struct oc_codex_view cv;
  oc_codex_predict(s, !complete, &cv);
  v->judged = 1;
  v->outcome = oc_codex_outcome_name(cv.outcome);
  v->exit_status = cv.exit_status;
  v->measured = cv.measured;
  /* what the server sent: an answer's text, a call, items it never closed */
  const struct oc_ritem *unclosed = NULL;
  int text = 0, call = 0;
  for(size_t i = 0; i < s->nitems; i++) {
    const struct oc_ritem *it = &s->items[i];
    text |= it->kind == OC_RITEM_MESSAGE && (it->deltas.len || it->done.len || it->final.len);
    call |= it->kind == OC_RITEM_FUNCTION_CALL;
    if(!it->final_seen && (it->kind == OC_RITEM_MESSAGE || it->kind == OC_RITEM_FUNCTION_CALL) && !unclosed)
      unclosed = it;
  }
  const char *term = s->terminal_type;
  switch(cv.outcome) {
  case OC_CODEX_ANSWER:
    v->works = 1;
    say(v, "prints the answer (%llu bytes) and exits 0", (unsigned long long)cv.answer->len);
    return;
  case OC_CODEX_TOOL:
    v->works = 1;
    say(v, "runs %s (call %s) and sends its output back", cv.name ? cv.name : "the tool",
        cv.call_id ? cv.call_id : "without an id");
    return;
  case OC_CODEX_EMPTY:
    if(!text && !call) {
      v->works = 1;
      say(v, "exits 0 with the empty answer the server sent");
      return;
    }
    v->rule = "RESPONSES-ITEM-DONE";
    say(v, "exits 0 and prints nothing: the server's %s (item %ld) never came with "
        "response.output_item.done, the only event Codex takes an item from",
        unclosed && unclosed->kind == OC_RITEM_FUNCTION_CALL ? "function call" : "answer",
        unclosed ? unclosed->index : 0L);
    return;
  case OC_CODEX_ERROR:
    break;
  }
  if(term && strcmp(term, "response.failed") == 0) {
    v->works = 1; /* the server said it failed, and Codex fails */
    say(v, "exits 1 on the server's response.failed");
  }
  else if(term && strcmp(term, "response.incomplete") == 0) {
    v->limitation = 1;
    say(v, "exits 1 (\"Incomplete response returned\"): Codex ends a turn the server stopped "
        "as incomplete (a length stop) as it ends OpenAI's own");
  }
  else if(term) {
    v->rule = "RESPONSES-SCHEMA";
    say(v, "exits 1: response.completed carries no response.id, which Codex reads");
  }
  else if(!complete) {
    v->rule = "STREAM-TRUNCATED";
    say(v, "retries, then exits 1 (\"%s\"): the connection was cut before response.completed",
        cv.says);
  }
  else if(s->error) {
    v->rule = "RESPONSES-ERROR-EVENT";
    say(v, "retries 5 times, then exits 1 (\"stream closed before response.completed\"): the "
        "server's error came mid-stream without response.failed, so its message is never shown");
  }
  else {
    v->rule = "RESPONSES-TERMINAL";
    say(v, "retries 5 times, then exits 1 (\"stream closed before response.completed\"): the "
        "stream ended without a terminal event%s", text || call ? ", whatever it carried" : "");
  }
}

/* ---- Claude Code: a Messages answer -------------------------------------------------------- */

/* The first error the rules found before the verdict policy: the server's
 * rule behind a break (static storage). */
static const char *first_error_rule(const struct oc_findings *f)
{
  for(size_t i = 0; f && i < f->count; i++)
    if(f->items[i].severity == OC_SEV_ERROR && f->items[i].rule != OC_R_CLIENT_BREAKS)
      return oc_rule_name(f->items[i].rule);
  return NULL;
}

static void judge_claude_code(const struct oc_response *r, int complete, struct oc_agent_verdict *v)
{
  (void)complete; /* a cut stream is the model's own case (no message_stop) */
  if(r->req->api != OC_API_MESSAGES)
    return;
  const struct oc_mstream *ms;
  struct oc_cc_env env;
  oc_cc_env_init(&env);
  char printed[512];
  /* it streams; a non-streamed request is its fallback after a broken stream */
  enum oc_cc_step st = oc_claude_code_step(r, r->check->out, r->req->stream, &env, printed,
                                           sizeof(printed));
  v->judged = 1;
  v->measured = 1;
  v->exit_status = -1;
  switch(st) {
  case OC_CC_ANSWER:
    v->works = 1;
    v->outcome = "answer";
    v->exit_status = 0;
    say(v, "prints the answer and exits 0");
    return;
  case OC_CC_TOOL:
    v->works = 1;
    v->outcome = "tool";
    say(v, "runs the tool and asks again with its tool_result");
    return;
  case OC_CC_RETRY:
    v->works = 1; /* the server's error, shown once the retries are spent */
    v->outcome = "retry";
    say(v, "asks again (CLAUDE_CODE_MAX_RETRIES, default 10: minutes of silence), then prints \"%.160s\"",
        printed);
    return;
  case OC_CC_FAIL:
    v->outcome = "error";
    v->exit_status = 1;
    v->works = r->status >= 400; /* the server's error reached the user as one */
    if(!v->works)
      v->rule = first_error_rule(r->check->out);
    say(v, "exits 1 printing \"%.180s\"", printed);
    return;
  case OC_CC_REASK:
    break;
  }
  v->outcome = "re-ask";
  if(r->status == 404) {
    v->rule = "HTTP-STATUS";
    say(v, "a 404 to its streamed request: asks again without streaming, then blames the model "
        "(\"There's an issue with the selected model\"), not the missing endpoint");
  }
  else if((ms = oc_response_stream_of(r, OC_PROTO_MESSAGES)) && ms->error_at && ms->error) {
    v->limitation = 1; /* Anthropic's own overloaded_error ends the same way */
    say(v, "the stream's error event is never shown: Claude Code asks again without streaming "
        "and the user sees only that answer");
  }
  else {
    v->rule = first_error_rule(r->check->out);
    say(v, "the stream breaks%s%s: Claude Code asks again without streaming, so the user waits "
        "for a second, whole answer and sees only it", v->rule ? " on " : "", v->rule ? v->rule : "");
  }
}

/* ---- the table ---------------------------------------------------------------------------- */

static const struct {
  const char *name, *protocol, *version;
  void (*judge)(const struct oc_response *r, int complete, struct oc_agent_verdict *v);
} agents[OC_AGENT__COUNT] = {
  [OC_AGENT_CODEX] = { "codex", "responses", OC_CODEX_VERSION, judge_codex },
  [OC_AGENT_CLAUDE_CODE] = { "claude-code", "messages", OC_CLAUDE_CODE_VERSION, judge_claude_code },
};

const char *oc_agent_name(enum oc_agent_id a)
{
  return (unsigned)a < OC_AGENT__COUNT ? agents[a].name : "?";
}

const char *oc_agent_protocol(enum oc_agent_id a)
{
  return (unsigned)a < OC_AGENT__COUNT ? agents[a].protocol : "?";
}

const char *oc_agent_version(enum oc_agent_id a)
{
  return (unsigned)a < OC_AGENT__COUNT ? agents[a].version : "?";
}

int oc_agent_find(const char *name)
{
  for(int i = 0; name && i < OC_AGENT__COUNT; i++)
    if(strcmp(name, agents[i].name) == 0)
      return i;
  return -1;
}

void oc_agents_judge(const struct oc_response *r, int complete, struct oc_agent_verdict *out)
{
  memset(out, 0, OC_AGENT__COUNT * sizeof(*out));
  for(int i = 0; i < OC_AGENT__COUNT; i++)
    agents[i].judge(r, complete, &out[i]);
}

cJSON *oc_agents_json(const struct oc_agent_verdict *v)
{
  int oom = 0, any = 0;
  cJSON *o = cJSON_CreateObject();
  for(int i = 0; !oom && i < OC_AGENT__COUNT; i++) {
    if(!v[i].judged)
      continue;
    any = 1;
    cJSON *a = oc_json_put(&oom, o, agents[i].name, cJSON_CreateObject());
    oc_json_put(&oom, a, "works", cJSON_CreateBool(v[i].works));
    oc_json_put_str(&oom, a, "outcome", v[i].outcome ? v[i].outcome : "?");
    oc_json_put(&oom, a, "exit_status",
                v[i].exit_status >= 0 ? cJSON_CreateNumber(v[i].exit_status) : cJSON_CreateNull());
    oc_json_put_str(&oom, a, "reason", v[i].reason);
    oc_json_put_str(&oom, a, "version", agents[i].version);
    oc_json_put(&oom, a, "measured", cJSON_CreateBool(v[i].measured));
    if(!v[i].works)
      oc_json_put(&oom, a, "limitation", cJSON_CreateBool(v[i].limitation));
    if(v[i].rule)
      oc_json_put_str(&oom, a, "rule", v[i].rule);
  }
  if(oom || !any) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}
