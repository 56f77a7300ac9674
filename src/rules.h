/* rules.h — the rule catalogue (one table: ID, family, layer, statement,
 * why it matters to a client, source, default severity), the profiles
 * that adjust severities per server, and the check context through which
 * every check reports a finding.  The checks themselves live where the
 * data is (chat.c, message.c, response.c, client.c, expect.c). */
#ifndef OC_RULES_H
#define OC_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "finding.h"

struct oc_rule {
  const char *id;          /* "TOOL-DELTA-INDEX" */
  const char *family;      /* "TOOL" */
  const char *layer;       /* http, sse, chunk, stream, tools, semantics, client, case */
  enum oc_severity severity; /* default */
  const char *statement;   /* one line: what a conforming server does */
  const char *why;         /* what breaks in a client when it does not */
  const char *source;      /* spec section or public issues */
};

/* The catalogue, in documentation order; terminated by a NULL id. */
extern const struct oc_rule oc_rules[];
size_t oc_rules_count(void);
const struct oc_rule *oc_rule_find(const char *id);

/* A profile adjusts severities for one kind of server.  "openai" is the
 * spec, strictly; server profiles know that server's accepted deviations
 * and downgrade them to warnings (they are still reported). */
struct oc_profile_override {
  const char *rule;
  enum oc_severity severity;
  const char *reason;      /* shown in findings: why this server gets a pass */
};

struct oc_profile {
  const char *name;        /* "openai", "llama-server", "vllm", "ollama" */
  const char *description;
  /* severity of a required field that may be null but is missing
   * (message.refusal, choices[].logprobs, error.param, error.code) */
  enum oc_severity nullable_required;
  const struct oc_profile_override *overrides; /* NULL-rule terminated */
};

extern const struct oc_profile oc_profiles[];     /* NULL-name terminated */
const struct oc_profile *oc_profile_find(const char *name);
const struct oc_profile *oc_profile_default(void); /* "openai" */

/* Everything a check needs to report: where findings go, which profile
 * and allow list apply.  One per checked response. */
struct oc_check {
  struct oc_findings *out;
  const struct oc_profile *profile;
  const char *const *allow;  /* rule IDs (or family prefixes "TOOL-*") downgraded to warnings */
  size_t nallow;
  int partial;               /* the body is a capture cut short by whoever made it (a pasted
                                excerpt): its end is not the stream's end, so the end-of-stream
                                rules (STREAM-DONE, STREAM-FINISH-ONCE, STREAM-TRUNCATED, …)
                                do not judge it; everything that arrived still is */
  int oom;                   /* an allocation failed while reporting */
};

void oc_check_init(struct oc_check *c, struct oc_findings *out, const struct oc_profile *profile);

/* Report a finding of rule id.  sev < 0 takes the rule's default severity
 * (then the profile's override); a check passes an explicit severity only
 * where the rule itself depends on the situation (e.g. TOOL-FINISH-REASON
 * under a named tool_choice).  chunk < 0 and byte < 0 mean "not known".
 * The message is formatted; expected/actual/path/excerpt may be NULL. */
void oc_check_emit(struct oc_check *c, const char *id, int sev, long chunk, int64_t byte,
                   const char *path, const char *expected, const char *actual,
                   const char *excerpt, const char *fmt, ...)
    __attribute__((format(printf, 10, 11)));

/* The severity rule id would get under this check's profile (without an
 * explicit override), before the allow list. */
enum oc_severity oc_check_severity(const struct oc_check *c, const char *id);
int oc_check_allowed(const struct oc_check *c, const char *id);

#endif
