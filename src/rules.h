/* rules.h — the rule catalogue (one table: ID, family, layer, statement,
 * why it matters to a client, source, default severity), the profiles
 * that adjust severities per server, and the check context through which
 * every check reports a finding.  The checks themselves live where the
 * data is (chat.c, message.c, response.c, expect.c); the client models'
 * breaks are client*.c's, the verdict policy verdict.c's. */
#ifndef OC_RULES_H
#define OC_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "finding.h"
#include "rule_id.h"

struct oc_rule {
  enum oc_rule_id rid;     /* OC_R_TOOL_DELTA_INDEX: its index in oc_rules */
  const char *id;          /* "TOOL-DELTA-INDEX" */
  const char *family;      /* "TOOL" */
  const char *layer;       /* http, sse, chunk, stream, tools, semantics, client, case */
  enum oc_severity severity; /* default */
  const char *statement;   /* one line: what a conforming server does */
  const char *why;         /* what breaks in a client when it does not */
  const char *source;      /* spec section or public issues */
  const char *fix;         /* what a server operator can do, or NULL */
};

/* The catalogue (rules.def), in documentation order, indexed by
 * enum oc_rule_id: oc_rules[OC_R_STREAM_DONE].id is "STREAM-DONE". */
extern const struct oc_rule oc_rules[OC_R__COUNT];
size_t oc_rules_count(void);
/* The public ID of a rule ("STREAM-DONE"); static storage. */
const char *oc_rule_name(enum oc_rule_id rule);
/* A rule by its public ID, for names that come from outside the code
 * (suite files, --allow, results documents): NULL when there is none.
 * Resolve names once, where they are read, and report an unknown one
 * there with its file and line. */
const struct oc_rule *oc_rule_find(const char *id);

/* Is rule part of the contract (rules.def's CONTRACT and CONTRACT_FAMILY
 * rows): does its failure fail a case whatever the clients do?  why: the
 * row's reason, or NULL. */
int oc_rule_contract(enum oc_rule_id rule);
const char *oc_rule_contract_why(enum oc_rule_id rule);

/* A set of rules, such as an allow list.  Cannot fail to grow: one bit
 * per row of rules.def. */
struct oc_ruleset {
  uint64_t bits[(OC_R__COUNT + 63) / 64];
};

void oc_ruleset_init(struct oc_ruleset *s);
void oc_ruleset_set(struct oc_ruleset *s, enum oc_rule_id rule);
int oc_ruleset_has(const struct oc_ruleset *s, enum oc_rule_id rule);
/* Add every rule that pattern names: an ID ("TOOL-NAME-ONCE") or a family
 * prefix ending in '*' ("TOOL-*").  OC_ENOTFOUND when it names none. */
int oc_ruleset_add_pattern(struct oc_ruleset *s, const char *pattern);
/* For a pattern that names no rule, the one meant, within two edits and
 * regardless of case, into out: the nearest rule ID ("TOOL-NAME-ONE",
 * "tool-name-once" → TOOL-NAME-ONCE), or "FAMILY-*" for a family written
 * without its star or a mistyped family pattern ("STREEM-*").  0 when
 * nothing is that close (out is then ""). */
int oc_rule_suggest(const char *pattern, char *out, size_t outlen);
/* s |= other */
void oc_ruleset_merge(struct oc_ruleset *s, const struct oc_ruleset *other);
int oc_ruleset_empty(const struct oc_ruleset *s);

/* A profile adjusts severities for one kind of server.  "openai" is the
 * spec, strictly; server profiles know that server's accepted deviations
 * and downgrade them to warnings (they are still reported). */
struct oc_profile_override {
  enum oc_rule_id rule;
  enum oc_severity severity;
  const char *reason;      /* shown in findings: why this server gets a pass */
};

struct oc_profile {
  const char *name;        /* "openai", "llama-server", "vllm", "ollama" */
  const char *description;
  /* severity of a required field that may be null but is missing
   * (message.refusal, choices[].logprobs, error.param, error.code) */
  enum oc_severity nullable_required;
  const struct oc_profile_override *overrides;
  size_t noverrides;
};

extern const struct oc_profile oc_profiles[];     /* NULL-name terminated */
const struct oc_profile *oc_profile_find(const char *name);
const struct oc_profile *oc_profile_default(void); /* "openai" */

/* Everything a check needs to report: where findings go, which profile
 * and allow list apply.  One per checked response. */
struct oc_dialect;

struct oc_check {
  struct oc_findings *out;
  const struct oc_profile *profile;
  const struct oc_ruleset *allow; /* rules downgraded to warnings, or NULL */
  int partial;               /* the body is a capture cut short by whoever made it (a pasted
                                excerpt): its end is not the stream's end, so the end-of-stream
                                rules (STREAM-DONE, STREAM-FINISH-ONCE, STREAM-TRUNCATED, …)
                                do not judge it; everything that arrived still is */
  int oom;                   /* an allocation failed while reporting */
  char limit[400];           /* oacheck's own limit left a check undecided (a schema
                                validator's budget): "" when none.  Not a finding: the
                                case is an error of the run with this as its reason */
  const struct oc_dialect *dialect; /* the target's own tool-call markers (its chat template),
                                       looked for in content beside tool_markers.def; may be NULL */
  /* The verdict policy (verdict.c): strict makes every error fail the case
   * (the specification's verdict); otherwise an error that is no contract
   * rule and breaks none of the selected clients is a warning. */
  int strict;
  unsigned clients;          /* selected client models, a bit per enum oc_client_id (all by
                                default) */
};

/* Record that oacheck could not decide a check (the first reason is
 * kept): the case ends in error with the reason, no rule fires. */
void oc_check_limit(struct oc_check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void oc_check_init(struct oc_check *c, struct oc_findings *out, const struct oc_profile *profile);

/* Where a finding happened and what was seen.  Every member is optional;
 * write it with OC_AT, whose defaults mean "not known", and name only what
 * you know:
 *
 *   oc_emit(c, OC_R_STREAM_DONE,
 *           OC_AT(.byte = body_bytes, .expected = "data: [DONE]", .actual = "end of body"),
 *           "the stream ended after %zu events without [DONE]", n);
 */
struct oc_at {
  long chunk;              /* 1-based SSE event; -1 not in a stream */
  int64_t byte;            /* offset in the response body; -1 unknown */
  const char *path;        /* JSON pointer inside the chunk or body */
  const char *expected;
  const char *actual;
  const char *excerpt;     /* the raw SSE line or body bytes around it */
  int severity;            /* -1: the rule's default after the profile.  Set
                              only where the rule's severity depends on the
                              situation (TOOL-FINISH-REASON under a named
                              tool_choice) */
};
#define OC_AT(...) \
  (&(const struct oc_at){ .chunk = -1, .byte = -1, .severity = -1, __VA_ARGS__ })

/* Report a finding of rule under c's profile and allow list; the message
 * is formatted (one sentence, no trailing full stop).  Strings are copied.
 * An allocation failure sets c->oom and loses only this finding. */
void oc_emit(struct oc_check *c, enum oc_rule_id rule, const struct oc_at *at,
             const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The severity rule gets under this check's profile (without an explicit
 * severity), before the allow list. */
enum oc_severity oc_check_severity(const struct oc_check *c, enum oc_rule_id rule);
int oc_check_allowed(const struct oc_check *c, enum oc_rule_id rule);
/* The profile's override of rule, or NULL. */
const struct oc_profile_override *oc_profile_override(const struct oc_profile *p,
                                                      enum oc_rule_id rule);

#endif
