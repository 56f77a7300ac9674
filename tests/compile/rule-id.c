/* rule-id.c — compiled by tests/compile/rule-id.sh, never linked: code
 * names rules by enum, so a mistyped rule is a compile error.  Built as it
 * is it must compile; with -DTYPO it must not. */
#include "config.h"
#include "rules.h"

enum oc_rule_id oc_test_rule(void);

enum oc_rule_id oc_test_rule(void)
{
#ifdef TYPO
  return OC_R_STREAM_DOEN;
#else
  return OC_R_STREAM_DONE;
#endif
}
