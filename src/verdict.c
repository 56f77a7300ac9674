/* verdict.c — the verdict policy (verdict.h): naming on every finding the
 * clients it breaks, one CLIENT-BREAKS finding per broken client (an
 * error for a selected client, info for a limitation or a client not
 * selected), and, unless strict, the errors that are neither contract nor
 * behind a selected client's break turned into warnings.  The models
 * themselves are client*.c's; the severities before this are rules.c's. */
#include "config.h"
#include "verdict.h"

#include <string.h>

#include "json.h"
#include "util.h"

static int names_rule(const struct oc_client_verdict *v, enum oc_rule_id r)
{
  for(size_t i = 0; i < v->nrules; i++)
    if(v->rules[i] == r)
      return 1;
  return 0;
}

/* An agent's break: the user does not see what the server sent, and it
 * is not the agent's own limitation. */
static int agent_broken(const struct oc_agent_verdict *a)
{
  return a->judged && !a->works;
}

void oc_verdict_apply(struct oc_check *c, const struct oc_client_verdict *v,
                      const struct oc_agent_verdict *agents)
{
  struct oc_findings *f = c->out;
  unsigned broken = 0, failing = 0;
  for(int i = 0; v && i < OC_CLIENT__COUNT; i++)
    if(oc_client_broken(&v[i])) {
      broken |= 1u << i;
      if((c->clients & (1u << i)) && !v[i].limitation)
        failing |= 1u << i;
    }
  for(int a = 0; agents && a < OC_AGENT__COUNT; a++)
    if(agent_broken(&agents[a])) {
      broken |= OC_CLIENTS_AGENT(a);
      if((c->clients & OC_CLIENTS_AGENT(a)) && !agents[a].limitation)
        failing |= OC_CLIENTS_AGENT(a);
    }
  size_t before = f->count;
  for(size_t k = 0; k < before; k++) {
    struct oc_finding *x = &f->items[k];
    for(int i = 0; i < OC_CLIENT__COUNT; i++)
      if((broken & (1u << i)) && names_rule(&v[i], x->rule))
        x->clients |= 1u << i;
    for(int a = 0; a < OC_AGENT__COUNT; a++)
      if((broken & OC_CLIENTS_AGENT(a)) && agents[a].rule && oc_streq(agents[a].rule, oc_rule_name(x->rule)))
        x->clients |= OC_CLIENTS_AGENT(a);
    if(!c->strict && x->severity == OC_SEV_ERROR && !oc_rule_contract(x->rule) &&
       !(x->clients & failing)) {
      x->severity = OC_SEV_WARNING;
      x->spec_only = 1;
    }
  }
  for(int i = 0; i < OC_CLIENT__COUNT; i++) {
    if(!(broken & (1u << i)))
      continue;
    const struct oc_client_verdict *b = &v[i];
    const struct oc_client_limitation *lim = b->limitation
      ? oc_client_limitation((enum oc_client_id)i, b->cause) : NULL;
    int selected = (c->clients & (1u << i)) != 0;
    char note[200] = "";
    if(lim)
      snprintf(note, sizeof(note), "; the client's limitation (%s), on OpenAI's own answers too", lim->what);
    else if(!selected)
      snprintf(note, sizeof(note), "; not selected (--clients)");
    size_t n = f->count;
    oc_emit(c, OC_R_CLIENT_BREAKS,
            OC_AT(.expected = "what the server sent", .actual = oc_client_outcome_name(b->outcome),
                  .severity = (failing & (1u << i)) ? OC_SEV_ERROR : OC_SEV_INFO),
            "%s %s (%s): %s%s", oc_client_name((enum oc_client_id)i),
            b->outcome == OC_CO_RAISES ? "raises" : "gets a wrong answer",
            oc_client_basis_name(oc_client_basis((enum oc_client_id)i)), b->reason, note);
    if(f->count > n && f->items[f->count - 1].rule == OC_R_CLIENT_BREAKS)
      f->items[f->count - 1].clients = 1u << i;
  }
  /* an agent's break: what its user sees, in the same finding; its
   * limitation (OpenAI's answers of that shape end the same way) is no
   * finding at all, only its verdict says it: the server did nothing
   * wrong, and a clean exchange stays without findings */
  for(int a = 0; a < OC_AGENT__COUNT; a++) {
    if(!(broken & OC_CLIENTS_AGENT(a)) || agents[a].limitation)
      continue;
    const struct oc_agent_verdict *b = &agents[a];
    const char *note = !(c->clients & OC_CLIENTS_AGENT(a)) ? "; not selected (--clients)" : "";
    size_t n = f->count;
    oc_emit(c, OC_R_CLIENT_BREAKS,
            OC_AT(.expected = "what the server sent", .actual = b->outcome,
                  .severity = (failing & OC_CLIENTS_AGENT(a)) ? OC_SEV_ERROR : OC_SEV_INFO),
            "%s %s (agent, %s): %s%s", oc_agent_name((enum oc_agent_id)a), oc_agent_version((enum oc_agent_id)a),
            b->measured ? "measured" : "from its source", b->reason, note);
    if(f->count > n && f->items[f->count - 1].rule == OC_R_CLIENT_BREAKS)
      f->items[f->count - 1].clients = OC_CLIENTS_AGENT(a);
  }
}

void oc_verdict_policy_text(int strict, unsigned clients, char *out, size_t outlen)
{
  char names[300] = "";
  size_t n = 0;
  /* today's majors said as such, a previous major or an agent by its name
   * beside them */
  int today = (clients & OC_CLIENTS_TODAY) == OC_CLIENTS_TODAY;
  if(today)
    n = (size_t)snprintf(names, sizeof(names), "any of today's clients");
  for(int i = 0; i < OC_CLIENT__COUNT; i++)
    if((clients & (1u << i)) && !(today && (OC_CLIENTS_TODAY & (1u << i))))
      n += (size_t)snprintf(names + n, n < sizeof(names) ? sizeof(names) - n : 0, "%s%s",
                            !n ? "" : today ? " or " : ", ", oc_client_name((enum oc_client_id)i));
  for(int a = 0; a < OC_AGENT__COUNT; a++)
    if(clients & OC_CLIENTS_AGENT(a))
      n += (size_t)snprintf(names + n, n < sizeof(names) ? sizeof(names) - n : 0, "%s%s",
                            !n ? "" : today ? " or " : ", ", oc_agent_name((enum oc_agent_id)a));
  const char *who = clients ? names : "no client (--clients none)";
  if(strict)
    snprintf(out, outlen, "strict: every error fails its case (the specification's verdict), and so "
             "does a break of %s", who);
  else
    snprintf(out, outlen, "clients: a case fails on its own expectations, a contract rule or a break "
             "of %s; a deviation from the specification that breaks no selected client is a "
             "warning (--strict makes it an error)", who);
}

cJSON *oc_verdict_policy_json(int strict, unsigned clients)
{
  int oom = 0;
  cJSON *o = cJSON_CreateObject();
  char text[600];
  oc_verdict_policy_text(strict, clients, text, sizeof(text));
  oc_json_put_str(&oom, o, "mode", strict ? "strict" : "clients");
  cJSON *names = oc_json_put(&oom, o, "clients", cJSON_CreateArray());
  for(int i = 0; !oom && i < OC_CLIENT__COUNT; i++)
    if(clients & (1u << i))
      oc_json_put_str(&oom, names, NULL, oc_client_name((enum oc_client_id)i));
  for(int a = 0; !oom && a < OC_AGENT__COUNT; a++)
    if(clients & OC_CLIENTS_AGENT(a))
      oc_json_put_str(&oom, names, NULL, oc_agent_name((enum oc_agent_id)a));
  oc_json_put_str(&oom, o, "text", text);
  if(oom) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}
