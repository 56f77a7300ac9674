/* fuzz_stream.c — libFuzzer target for the response decoder on event
 * streams: the input's first byte picks a request (chat, tools, usage,
 * json_schema, legacy completions), the next ones how the body is cut
 * into pieces, the rest is the body.  Anything a server can send must be
 * decoded without a crash, a leak or unbounded memory.  What the bytes
 * mean is fuzz_input.h's (the allocation-failure run reads seeds the same
 * way).  Build with
 * `make fuzz` (clang, -fsanitize=fuzzer,address,undefined). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "response.h"
#include "rules.h"

static struct oc_schemas schemas;
static int loaded;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if(!loaded) {
    char err[512];
    if(oc_schemas_load(&schemas, err, sizeof(err)))
      abort(); /* OACHECK_DATADIR must point at the source tree */
    loaded = 1;
  }
  static struct oc_fuzz_input in;
  if(!oc_fuzz_input_decode(data, size, &in))
    return 0;
  struct oc_findings f;
  oc_findings_init(&f);
  struct oc_check c;
  oc_check_init(&c, &f, oc_profile_find(in.profile));
  struct oc_headers h;
  oc_headers_init(&h);
  oc_headers_add(&h, "Content-Type", in.content_type);
  oc_response_analyze(&schemas, &c, "POST", in.path, in.request, strlen(in.request), 200, &h, in.body,
                      in.len, in.pieces, in.npieces);
  oc_headers_free(&h);
  oc_findings_free(&f);
  return 0;
}
