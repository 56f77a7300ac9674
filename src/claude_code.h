/* claude_code.h — a model of Claude Code (`claude -p`, the agent) on
 * Messages exchanges: from the answers a server gives, what the user gets
 * — the answer, the answer of a silent re-ask without streaming, or a
 * failure (exit 1) with what is printed — and the requests it makes on
 * the way.  Measured with Claude Code 2.1.332 against `oacheck serve`
 * (tests/e2e/agent-claude-code.sh, the facts in
 * tests/data/crafted/agents/claude-code/expect.json, which
 * tests/unit/check_claude_code.c holds this model to; docs/clients.md,
 * "Claude Code").  agent.c judges every Messages exchange with
 * oc_claude_code_step (the "Will my agent work?" verdict). */
#ifndef OC_CLAUDE_CODE_H
#define OC_CLAUDE_CODE_H

#include <stddef.h>

#include "cassette.h"
#include "response.h"

/* What Claude Code does next with one answer. */
enum oc_cc_step {
  OC_CC_ANSWER, /* an answer with no tool call: printed, exit 0 */
  OC_CC_TOOL,   /* tool calls: it runs them and asks again, streamed */
  OC_CC_REASK,  /* the stream broke: it asks again without streaming */
  OC_CC_RETRY,  /* a retryable status: the same request again */
  OC_CC_FAIL    /* an error printed, exit 1 */
};

/* The outcome of a whole run, as expect.json names it. */
enum oc_cc_outcome {
  OC_CC_OUT_ANSWER,        /* "answer" */
  OC_CC_OUT_SILENT_REASK,  /* "silent-re-ask": an answer, after a re-ask */
  OC_CC_OUT_FAILURE        /* "failure" */
};

/* Claude Code's settings that change what it does with an answer. */
struct oc_cc_env {
  int no_fallback;  /* CLAUDE_CODE_DISABLE_NONSTREAMING_FALLBACK=1 */
  long max_retries; /* CLAUDE_CODE_MAX_RETRIES (default 10) */
  const char *model; /* --model, as its messages name it (default "MODEL") */
};

#define OC_CC_MAX_REQUESTS 32 /* a run's requests modelled, at most */
#define OC_CLAUDE_CODE_VERSION "2.1.332" /* measured */

struct oc_cc_run {
  enum oc_cc_outcome outcome;
  int exit_status;
  long requests;                    /* requests it made */
  int streamed[OC_CC_MAX_REQUESTS]; /* whether each asked for a stream */
  char printed[512];                /* what it prints on failure (the start of it) */
};

void oc_cc_env_init(struct oc_cc_env *e);

/* One step: r is the finished response (oc_response over a Messages
 * request with stream set as streamed; its check's findings in f).  On
 * OC_CC_FAIL, printed gets the start of what Claude Code prints. */
enum oc_cc_step oc_claude_code_step(const struct oc_response *r, const struct oc_findings *f,
                                    int streamed, const struct oc_cc_env *env, char *printed,
                                    size_t printedlen);

/* A whole run: next(ctx, n) is the recording that answers the nth request
 * (0-based; NULL: nothing answers, a 404).  Each answer is decoded as
 * oacheck decodes it (oc_response_replay) and stepped until an answer or
 * a failure.  OC_OK, or OC_ENOMEM / OC_EIO when a response could not be
 * decoded (*run then holds what was modelled so far). */
int oc_claude_code_run(const struct oc_cassette *(*next)(void *ctx, long n), void *ctx,
                       const struct oc_cc_env *env, const struct oc_schemas *schemas,
                       struct oc_cc_run *run);

const char *oc_cc_outcome_name(enum oc_cc_outcome o);

#endif
