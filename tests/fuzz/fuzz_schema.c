/* fuzz_schema.c — libFuzzer target for the JSON Schema validator, schema
 * and instance both from the input: the first byte picks the flags
 * (draft-07 default, format assertion) and whether a result is collected,
 * the rest is SCHEMA NUL INSTANCE.  Whatever the schema (a suite's
 * response_format, a tool's parameters) and the instance (a server's
 * answer), compiling and validating must end without a crash, a leak or
 * unbounded time: oacheck's limits leave it undecided instead.  Build with
 * `make fuzz` (tests/fuzz/README.md). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jdoc.h"
#include "schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if(size < 2)
    return 0;
  unsigned mode = data[0];
  const char *p = (const char *)data + 1;
  size_t n = size - 1;
  const char *nul = memchr(p, '\0', n);
  size_t slen = nul ? (size_t)(nul - p) : n;
  const char *inst = nul ? nul + 1 : "null";
  size_t ilen = nul ? n - slen - 1 : 4;
  struct oc_jdoc sd, id;
  struct oc_jerr je;
  oc_jdoc_init(&sd);
  oc_jdoc_init(&id);
  struct oc_schema_registry *reg = oc_schema_registry_new();
  struct oc_schema *s = NULL;
  char err[512];
  if(!reg || oc_jdoc_parse(&sd, p, slen, &je))
    goto out;
  unsigned flags = (mode & 1 ? OC_SCHEMA_DRAFT7 : 0) | (mode & 2 ? OC_SCHEMA_FORMAT_ASSERT : 0);
  s = oc_schema_compile_jv(reg, sd.root, mode & 8 ? "https://oacheck.test/s.json" : NULL, flags, err,
                           sizeof(err));
  if(!s || oc_jdoc_parse(&id, inst, ilen, &je))
    goto out;
  struct oc_schema_result res;
  oc_schema_result_init(&res);
  res.max = 1 + (mode >> 4);
  res.always_report = (mode & 4) != 0;
  int fast = oc_schema_validate(s, id.root, NULL);
  int full = oc_schema_validate(s, id.root, &res);
  /* both paths reach the same verdict (or the same undecided) */
  if(fast >= 0 && full >= 0 && fast != full)
    abort();
  for(size_t i = 0; i < res.count; i++) {
    char *m = oc_schema_error_format(&res.errors[i]);
    free(m);
  }
  oc_schema_result_free(&res);
out:
  oc_schema_free(s);
  oc_schema_registry_free(reg);
  oc_jdoc_free(&sd);
  oc_jdoc_free(&id);
  return 0;
}
