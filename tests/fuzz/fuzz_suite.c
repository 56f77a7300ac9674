/* fuzz_suite.c — libFuzzer target for the suite loader: the input is a
 * suite file, validated against the shipped suite schema, checked for
 * references, limits and rule names, and every case that loads is built
 * into a request with a target's variables (${MODEL}, N_CTX, the
 * CTX_WORDS_* counts) and the environment closed.  A suite is outside
 * bytes too (a CI job's, a colleague's): loading and building must end
 * without a crash, a leak or a request past OC_CAP_REQUEST.  Build with
 * `make fuzz` (tests/fuzz/README.md). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"
#include "suite.h"
#include "util.h"

static struct oc_schema_registry *reg;
static struct oc_schema *suite_schema;
static cJSON *target_vars;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if(!reg) {
    char err[512];
    reg = oc_schema_registry_new();
    if(!reg || oc_schema_registry_add_shipped(reg, err, sizeof(err)))
      abort(); /* OACHECK_DATADIR must point at the source tree */
    suite_schema = oc_schema_compile_uri(reg, OC_SCHEMA_SHIPPED_BASE "suite.schema.json", 0, err,
                                         sizeof(err));
    target_vars = cJSON_Parse("{\"MODEL\":\"m\",\"N_CTX\":4096,\"N_CTX_HALF\":2048,"
                              "\"CTX_WORDS_UNDER\":100,\"CTX_WORDS_AT\":101,\"CTX_WORDS_OVER\":102}");
    if(!suite_schema || !target_vars)
      abort();
  }
  char *buf = malloc(size + 1);
  if(!buf)
    return 0;
  memcpy(buf, data, size);
  buf[size] = '\0';
  struct oc_suite_set set = { NULL, 0 };
  struct oc_buf err;
  oc_buf_init(&err, 1u << 20);
  if(oc_suite_load_text(&set, "fuzz.json", buf, size, suite_schema, &err) == OC_OK) {
    for(size_t i = 0; i < set.count; i++)
      for(size_t k = 0; k < set.items[i].ncases; k++) {
        struct oc_vars vars = { target_vars, set.items[i].cases[k].variables, 0 };
        struct oc_built_request r;
        char why[600];
        if(oc_suite_build_request(&set.items[i].cases[k], &vars, &r, why, sizeof(why)) == OC_OK) {
          if(r.body_len > OC_CAP_REQUEST)
            abort();
          oc_built_request_free(&r);
        }
        oc_case_applies(&set.items[i].cases[k], "openai");
      }
  }
  oc_buf_free(&err);
  oc_suite_set_free(&set);
  free(buf);
  return 0;
}
