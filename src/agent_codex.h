/* agent_codex.h — a model of Codex CLI (`codex exec`, 0.171.0) reading one
 * Responses stream: what the user sees — the answer printed (exit 0),
 * nothing at all (exit 0, an empty answer), the tool the model asked for
 * run (the turn goes on with a second request), or an error after Codex's
 * retries (exit 1) — predicted from the stream as responses.c decoded it.
 * Measured with the real Codex by tests/e2e/agent-codex.sh on the crafted
 * streams of tests/data/crafted/agents/codex/ (expect.json), and held to
 * the same file by tests/unit/check_agent_codex.c; docs/agents.md. */
#ifndef OC_AGENT_CODEX_H
#define OC_AGENT_CODEX_H

#include "responses.h"

#define OC_CODEX_VERSION "0.171.0"

enum oc_codex_outcome {
  OC_CODEX_ANSWER = 0, /* the last message's text printed, exit 0 */
  OC_CODEX_EMPTY,      /* exit 0 with nothing printed */
  OC_CODEX_TOOL,       /* a function call run; its output goes back in the next request */
  OC_CODEX_ERROR       /* retried, then exit 1 */
};

struct oc_codex_view {
  enum oc_codex_outcome outcome;
  int exit_status;            /* 0 or 1; -1 for a tool call (the turn goes on) */
  const struct oc_rtext *answer; /* ANSWER: the text printed (its head); else NULL */
  const char *call_id, *name; /* TOOL: the call run (borrowed from the stream) */
  const char *says;           /* what Codex says on stderr, one line (static) */
  int measured;               /* 1: this shape was measured with the real Codex; 0: from its source */
};

/* What Codex makes of the stream s (finished).  cut: the transport cut the
 * body before its end. */
void oc_codex_predict(const struct oc_rstream *s, int cut, struct oc_codex_view *v);
const char *oc_codex_outcome_name(enum oc_codex_outcome o);

#endif
