/* verdict.h — the verdict policy: which findings fail a case.  A case
 * fails on its own expectations (expect.c runs after this), on a contract
 * rule (rules.def's CONTRACT rows), or when a selected client breaks
 * (the client models, client.h); a break that OpenAI's own answers cause
 * in that client too is the client's limitation and fails nothing.  Any
 * other error is a deviation from the specification that breaks no
 * selected client: a warning, still reported, unless the check is strict
 * (--strict, the specification's own verdict).  This is also where every
 * finding learns which clients it breaks and where each broken client gets
 * its CLIENT-BREAKS finding. */
#ifndef OC_VERDICT_H
#define OC_VERDICT_H

#include <cjson/cJSON.h>

#include "client.h"
#include "rules.h"

/* Apply the policy of c to the findings it holds so far, given the models'
 * verdicts (OC_CLIENT__COUNT of them; NULL when none ran) and the agents'
 * (OC_AGENT__COUNT; NULL when none was judged), and add one CLIENT-BREAKS
 * finding per broken client or agent. */
void oc_verdict_apply(struct oc_check *c, const struct oc_client_verdict *v,
                      const struct oc_agent_verdict *agents);

/* The policy in one line for report headers: "clients (a case fails on its
 * expectations, a contract rule or a break of: openai-node, …;
 * deviations that break no client are warnings; --strict makes them
 * errors)" or "strict (…)".  Into out. */
void oc_verdict_policy_text(int strict, unsigned clients, char *out, size_t outlen);
/* The same as the results' "policy" object: {"mode": "clients"|"strict",
 * "clients": [selected names], "text": …}; NULL when out of memory. */
cJSON *oc_verdict_policy_json(int strict, unsigned clients);

#endif
