/* shim.h — the allocation-failure shim: a program linked with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup,
 * --wrap=strndup,--wrap=free (tests/torture/, mk) sends every allocation
 * its own objects make (liboacheck.a's included) through here, and cJSON's
 * too once torture_init() has routed them through json.c's hooks.  While armed, the
 * shim counts allocations, fails exactly the Nth one (returns NULL, as an
 * exhausted heap would) and remembers every block handed out, so that a
 * block still live when the work is done is a leak of that run, found
 * without waiting for LeakSanitizer at exit.  What to run and what counts
 * as a right answer is the caller's (torture.c, check_failpaths.c). */
#ifndef OC_TORTURE_SHIM_H
#define OC_TORTURE_SHIM_H

#include <stddef.h>

/* Route cJSON through json.c (oc_json_init); call once, before anything
 * allocates JSON.  With TORTURE_STACK=1 in the environment (and ASan), the
 * failing allocation prints its stack: where the failure starts. */
void torture_init(void);
/* Start counting from zero; fail allocation number fail_at (1-based; 0
 * fails none).  Forgets the blocks of the previous run. */
void torture_arm(long fail_at);
/* Stop counting and failing (blocks stay remembered until freed). */
void torture_disarm(void);
/* Allocations counted since torture_arm. */
long torture_count(void);
/* Did the armed run reach its failure point? */
int torture_failed(void);
/* Blocks handed out while armed and not freed since. */
long torture_live(void);

#endif
