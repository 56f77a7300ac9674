/* rule_id.h — the rule catalogue's C names: one enum value per row of
 * rules.def (OC_R_STREAM_DONE, …), so that code names a rule the compiler
 * checks.  The rows themselves (ID string, severity, texts) are rules.h's. */
#ifndef OC_RULE_ID_H
#define OC_RULE_ID_H

enum oc_rule_id {
#define RULE(name, id, family, layer, sev, statement, why, source, fix) OC_R_##name,
#include "rules.def"
#undef RULE
  OC_R__COUNT
};

#endif
