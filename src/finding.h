/* finding.h — the findings model: one observation that a response breaks
 * (or bends) a named rule, with where it happened (chunk, byte, JSON
 * pointer), what was expected and what arrived.  Every check in oacheck
 * produces these; the result model and every report consume them.  Which
 * rules exist and how severe they are is rules.h's business. */
#ifndef OC_FINDING_H
#define OC_FINDING_H

#include <stddef.h>
#include <stdint.h>

#include "rule_id.h"

enum oc_severity {
  OC_SEV_INFO = 0,
  OC_SEV_WARNING,
  OC_SEV_ERROR
};

const char *oc_severity_name(enum oc_severity s);
/* "error"/"warning"/"info" -> severity; -1 when unknown. */
int oc_severity_parse(const char *s);

struct oc_finding {
  enum oc_rule_id rule;        /* oc_rule_name() gives its public ID */
  enum oc_severity severity;   /* after profile and allow list */
  int allowed;                 /* an allow list downgraded it */
  long chunk;                  /* 1-based SSE event number, -1 when not in a stream */
  int64_t byte;                /* offset in the response body, -1 when unknown */
  char *path;                  /* JSON pointer inside the chunk or body, or NULL */
  char *message;               /* one sentence, no trailing full stop */
  char *expected;              /* may be NULL */
  char *actual;                /* may be NULL */
  char *excerpt;               /* the raw SSE line or body bytes around it, or NULL */
  unsigned clients;            /* the client models it breaks (a bit per enum oc_client_id) */
  int spec_only;               /* an error the verdict policy made a warning: a deviation from the
                                  specification that breaks no selected client (verdict.c) */
};

/* The findings of one case.  Each rule keeps at most per_rule_max of its
 * findings (a rule broken by every one of 400,000 chunks must not take
 * 400,000 entries); the rest are only counted, and reports say so. */
struct oc_rule_count {
  enum oc_rule_id rule;
  size_t total;                /* how many times it fired */
  size_t kept;
};

struct oc_findings {
  struct oc_finding *items;
  size_t count;
  size_t alloc;
  struct oc_rule_count *counts;
  size_t ncounts;
  size_t acounts;
  size_t per_rule_max;         /* default OC_FINDINGS_PER_RULE */
};

#define OC_FINDINGS_PER_RULE 20

/* Fill *f as empty; cannot fail. */
void oc_findings_init(struct oc_findings *f);
void oc_findings_free(struct oc_findings *f);
/* Add a copy of *x (its strings are copied; any may be NULL).  Returns
 * OC_OK, or OC_ENOMEM.  Over the per-rule cap it only counts.  Checks
 * report through oc_emit (rules.h), which applies the profile first. */
int oc_findings_add(struct oc_findings *f, const struct oc_finding *x);
/* Highest severity among findings that are not allowed; -1 when none. */
int oc_findings_worst(const struct oc_findings *f);
/* How many times a rule fired (counting those over the cap). */
size_t oc_findings_total(const struct oc_findings *f, enum oc_rule_id rule);
/* The first finding of a rule, or NULL. */
const struct oc_finding *oc_findings_first(const struct oc_findings *f, enum oc_rule_id rule);
/* Move every finding of src to the end of dst (src is left empty). */
int oc_findings_take(struct oc_findings *dst, struct oc_findings *src);
/* "chunk 17, byte 4211" / "byte 12" / "" into out. */
void oc_finding_where_text(const struct oc_finding *x, char *out, size_t outlen);

#endif
