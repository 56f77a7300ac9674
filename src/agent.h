/* agent.h — "will my agent work?": what a coding agent's user sees from one
 * exchange of the protocol the agent speaks, predicted by a model of the
 * agent (agent_codex.c: Codex CLI, Responses; claude_code.c: Claude Code,
 * Messages) and judged against what the
 * server sent: works (the user sees the answer, or the tool runs), breaks
 * (the server's stream leaves the user with nothing or an error the server
 * did not mean), or the agent's own limitation (OpenAI's answers of that
 * shape end the same way).  Beside the client verdicts (client.h), never
 * changing a case's verdict: the findings that cause a break are already
 * the server's rules.  The results carry them as "agents"; the reports'
 * "Will my agent work?" section counts them (report_console.c). */
#ifndef OC_AGENT_H
#define OC_AGENT_H

#include <cjson/cJSON.h>

struct oc_response;

/* Append only: the order of every report. */
enum oc_agent_id {
  OC_AGENT_CODEX = 0,
  OC_AGENT_CLAUDE_CODE,
  OC_AGENT__COUNT
};

#define OC_AGENT_REASON 240

struct oc_agent_verdict {
  int judged;             /* the exchange is one the agent speaks (Codex: a streamed
                             Responses answer); 0: nothing below is set */
  int works;              /* the user sees what the server sent */
  int limitation;         /* a break OpenAI's own answers of this shape cause too */
  const char *outcome;    /* the agent's own words: Codex "answer", "empty", "tool", "error";
                             Claude Code "answer", "tool", "re-ask" (without streaming),
                             "retry", "error" */
  int exit_status;        /* the process's, -1 while the turn goes on (a tool ran) */
  int measured;           /* this shape was measured with the real agent (else read
                             from its source) */
  const char *rule;       /* the server's rule behind a break, or NULL */
  char reason[OC_AGENT_REASON];
};

/* "codex"; static storage. */
const char *oc_agent_name(enum oc_agent_id a);
/* The protocol it speaks ("responses") and the version modelled. */
const char *oc_agent_protocol(enum oc_agent_id a);
const char *oc_agent_version(enum oc_agent_id a);
/* An agent by name; -1 when unknown. */
int oc_agent_find(const char *name);

/* Every agent's verdict on the finished response r (oc_response_finish
 * done) into out[OC_AGENT__COUNT]; complete is 0 when the transport cut
 * the body. */
void oc_agents_judge(const struct oc_response *r, int complete, struct oc_agent_verdict *out);
/* The results' "agents": an object with a member per judged agent; NULL
 * when none was judged (or memory ran out). */
cJSON *oc_agents_json(const struct oc_agent_verdict *v);

#endif
