/* rules.c — the rule catalogue, the profiles and the reporting path every
 * check goes through.  The table is the single source: `oacheck rules`,
 * docs/rules.md and the severity of every finding come from it.  The
 * facts behind each rule (F-numbers, issues, SDK behaviour) are cited in
 * its source field; Fnn refers to the failure-mode catalogue the team's
 * research collected (each with its public issue). */
#include "config.h"
#include "rules.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "util.h"

const struct oc_rule oc_rules[OC_R__COUNT] = {
#define RULE(name, id, family, layer, sev, statement, why, source, fix) \
  [OC_R_##name] = { OC_R_##name, id, family, layer, OC_SEV_##sev, statement, why, source, fix },
#include "rules.def"
#undef RULE
};

static const char *const contract_why[OC_R__COUNT] = {
#define RULE(name, id, family, layer, sev, statement, why, source, fix)
#define CONTRACT(name, why) [OC_R_##name] = why,
#define CONTRACT_FAMILY(family, why)
#include "rules.def"
#undef CONTRACT_FAMILY
#undef CONTRACT
#undef RULE
};

static const struct {
  const char *family, *why;
} contract_families[] = {
#define RULE(name, id, family, layer, sev, statement, why, source, fix)
#define CONTRACT(name, why)
#define CONTRACT_FAMILY(family, why) { family, why },
#include "rules.def"
#undef CONTRACT_FAMILY
#undef CONTRACT
#undef RULE
};

const char *oc_rule_contract_why(enum oc_rule_id rule)
{
  if((unsigned)rule >= OC_R__COUNT)
    return NULL;
  if(contract_why[rule])
    return contract_why[rule];
  for(size_t i = 0; i < OC_ARRAY_LEN(contract_families); i++)
    if(strcmp(oc_rules[rule].family, contract_families[i].family) == 0)
      return contract_families[i].why;
  return NULL;
}

int oc_rule_contract(enum oc_rule_id rule)
{
  return oc_rule_contract_why(rule) != NULL;
}

size_t oc_rules_count(void)
{
  return OC_R__COUNT;
}

const char *oc_rule_name(enum oc_rule_id rule)
{
  return (unsigned)rule < OC_R__COUNT ? oc_rules[rule].id : "UNKNOWN-RULE";
}

const struct oc_rule *oc_rule_find(const char *id)
{
  if(!id)
    return NULL;
  for(size_t i = 0; i < OC_R__COUNT; i++)
    if(strcmp(oc_rules[i].id, id) == 0)
      return &oc_rules[i];
  return NULL;
}

/* ---- rule sets ----------------------------------------------------------- */

void oc_ruleset_init(struct oc_ruleset *s)
{
  memset(s, 0, sizeof(*s));
}

void oc_ruleset_set(struct oc_ruleset *s, enum oc_rule_id rule)
{
  if((unsigned)rule < OC_R__COUNT)
    s->bits[rule / 64] |= (uint64_t)1 << (rule % 64);
}

int oc_ruleset_has(const struct oc_ruleset *s, enum oc_rule_id rule)
{
  return s && (unsigned)rule < OC_R__COUNT && (s->bits[rule / 64] >> (rule % 64)) & 1;
}

int oc_ruleset_add_pattern(struct oc_ruleset *s, const char *pattern)
{
  size_t n = strlen(pattern);
  int prefix = n >= 2 && pattern[n - 1] == '*';
  int found = 0;
  for(size_t i = 0; i < OC_R__COUNT; i++)
    if(prefix ? strncmp(oc_rules[i].id, pattern, n - 1) == 0 : strcmp(oc_rules[i].id, pattern) == 0) {
      oc_ruleset_set(s, (enum oc_rule_id)i);
      found = 1;
    }
  return found ? OC_OK : OC_ENOTFOUND;
}

int oc_rule_suggest(const char *pattern, char *out, size_t outlen)
{
  size_t n = strlen(pattern);
  int prefix = n >= 2 && pattern[n - 1] == '*';
  /* "STREEM-*" is compared as the family STREEM */
  size_t base = prefix ? n - 1 - (pattern[n - 2] == '-') : n;
  struct oc_nearest nr;
  oc_nearest_init(&nr, pattern, base, 1);
  int family = 0;
  for(size_t i = 0; i < OC_R__COUNT; i++) {
    const char *was = nr.near;
    if(!prefix) {
      oc_nearest_offer(&nr, oc_rules[i].id, strlen(oc_rules[i].id));
      if(nr.near != was)
        family = 0;
      was = nr.near;
    }
    oc_nearest_offer(&nr, oc_rules[i].family, strlen(oc_rules[i].family));
    if(nr.near != was)
      family = 1;
  }
  out[0] = '\0';
  if(!nr.near)
    return 0;
  snprintf(out, outlen, "%.*s%s", (int)nr.nearlen, nr.near, family ? "-*" : "");
  return 1;
}

void oc_ruleset_merge(struct oc_ruleset *s, const struct oc_ruleset *other)
{
  if(other)
    for(size_t i = 0; i < OC_ARRAY_LEN(s->bits); i++)
      s->bits[i] |= other->bits[i];
}

int oc_ruleset_empty(const struct oc_ruleset *s)
{
  for(size_t i = 0; s && i < OC_ARRAY_LEN(s->bits); i++)
    if(s->bits[i])
      return 0;
  return 1;
}

/* ---- profiles ------------------------------------------------------------ */

/* What llama-server does by design, per its recordings' README (Dn) and
 * source: an error envelope with an integer code and no param, its own
 * context-overflow type, content "" beside tool calls. */
static const struct oc_profile_override llama_server_overrides[] = {
  { OC_R_ERROR_SHAPE, OC_SEV_WARNING, "llama-server's error envelope has an integer code and no param (D14)" },
  { OC_R_USAGE_UNREQUESTED, OC_SEV_INFO, "llama-server's legacy completions stream always ends with usage (D12)" },
  { OC_R_HTTP_CORS_ORIGIN, OC_SEV_INFO, "llama-server sends an empty Access-Control-Allow-Origin (D16)" },
};

/* vLLM's streams per its recordings (V1-V6). */
static const struct oc_profile_override vllm_overrides[] = {
  { OC_R_ERROR_SHAPE, OC_SEV_WARNING, "vLLM's errors use an exception class as type and an integer code (V6)" },
  { OC_R_TOOL_NAME_ONCE, OC_SEV_WARNING, "vLLM repeats the name for a named tool_choice (V3)" },
  { OC_R_TOOL_DELTA_HEAD, OC_SEV_WARNING, "vLLM sends no id for a named tool_choice (V3)" },
};

/* Ollama's OpenAI layer per its recordings (OL1-OL8). */
static const struct oc_profile_override ollama_overrides[] = {
  { OC_R_STREAM_ROLE_ONCE, OC_SEV_INFO, "Ollama repeats role on every delta (OL1)" },
  { OC_R_ERROR_SHAPE, OC_SEV_WARNING, "Ollama's error type does not follow the status (OL6)" },
};

const struct oc_profile oc_profiles[] = {
#define OVERRIDES(list) list, OC_ARRAY_LEN(list)
  { "openai", "the OpenAI API as specified, strictly", OC_SEV_ERROR, NULL, 0 },
  { "llama-server", "llama.cpp's llama-server: its documented envelope and extras accepted",
    OC_SEV_WARNING, OVERRIDES(llama_server_overrides) },
  { "vllm", "vLLM's OpenAI-compatible server", OC_SEV_WARNING, OVERRIDES(vllm_overrides) },
  { "ollama", "Ollama's /v1 OpenAI compatibility layer", OC_SEV_WARNING, OVERRIDES(ollama_overrides) },
  { NULL, NULL, OC_SEV_ERROR, NULL, 0 },
#undef OVERRIDES
};

const struct oc_profile *oc_profile_find(const char *name)
{
  for(const struct oc_profile *p = oc_profiles; p->name; p++)
    if(strcmp(p->name, name) == 0)
      return p;
  return NULL;
}

const struct oc_profile *oc_profile_default(void)
{
  return &oc_profiles[0];
}

/* ---- reporting ----------------------------------------------------------- */

void oc_check_init(struct oc_check *c, struct oc_findings *out, const struct oc_profile *profile)
{
  memset(c, 0, sizeof(*c));
  c->out = out;
  c->profile = profile ? profile : oc_profile_default();
  c->clients = OC_CLIENTS_DEFAULT;
}

void oc_check_limit(struct oc_check *c, const char *fmt, ...)
{
  if(c->limit[0])
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->limit, sizeof(c->limit), fmt, ap);
  va_end(ap);
}

const struct oc_profile_override *oc_profile_override(const struct oc_profile *p,
                                                      enum oc_rule_id rule)
{
  for(size_t i = 0; p && i < p->noverrides; i++)
    if(p->overrides[i].rule == rule)
      return &p->overrides[i];
  return NULL;
}

enum oc_severity oc_check_severity(const struct oc_check *c, enum oc_rule_id rule)
{
  const struct oc_profile_override *o = oc_profile_override(c->profile, rule);
  if(o)
    return o->severity;
  return (unsigned)rule < OC_R__COUNT ? oc_rules[rule].severity : OC_SEV_ERROR;
}

int oc_check_allowed(const struct oc_check *c, enum oc_rule_id rule)
{
  return oc_ruleset_has(c->allow, rule);
}

void oc_emit(struct oc_check *c, enum oc_rule_id rule, const struct oc_at *at, const char *fmt, ...)
{
  enum oc_severity s = at->severity >= 0 ? (enum oc_severity)at->severity : oc_check_severity(c, rule);
  int allowed = 0;
  if(oc_check_allowed(c, rule) && s > OC_SEV_WARNING) {
    s = OC_SEV_WARNING;
    allowed = 1;
  }
  char msg[OC_CAP_MESSAGE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  struct oc_finding x = {
    .rule = rule, .severity = s, .allowed = allowed, .chunk = at->chunk, .byte = at->byte,
    .path = (char *)at->path, .message = msg, .expected = (char *)at->expected,
    .actual = (char *)at->actual, .excerpt = (char *)at->excerpt,
  };
  if(oc_findings_add(c->out, &x))
    c->oom = 1;
}
