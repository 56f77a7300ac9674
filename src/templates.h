/* templates.h — chat-template comparison: the same conversations rendered
 * through each target's chat template (POST /apply-template), checked for
 * what templates are known to do wrong (drop or move the system prompt,
 * drop unknown roles, reject common tool-call ids, stamp the server's
 * date) and put side by side.  The results are ordinary results-schema
 * objects (suite "templates", one case per fixture), so every report
 * renders them.  Option parsing is cmd_templates.c's. */
#ifndef OC_TEMPLATES_H
#define OC_TEMPLATES_H

#include <cjson/cJSON.h>

#include "rules.h"
#include "target.h"

/* Render every fixture ({"fixtures": [{name, description, request}]}) on
 * every (identified) target and return the result objects, target by
 * target, fixture by fixture.  Caller deletes; NULL when memory runs out. */
cJSON *oc_templates_run(struct oc_target *targets, size_t ntargets, const cJSON *fixtures,
                        const struct oc_identify_options *o);

/* Check one rendered prompt against the conversation that produced it;
 * findings go through c.  status is the HTTP status of the render. */
void oc_templates_check(struct oc_check *c, const cJSON *request, int status, const char *prompt,
                        const char *error_message);

#endif
