/* fuzz_stream.c — libFuzzer target for the response decoder on event
 * streams: the input's first byte picks a request (chat, tools, usage,
 * json_schema, legacy completions), the next ones how the body is cut
 * into pieces, the rest is the body.  Anything a server can send must be
 * decoded without a crash, a leak or unbounded memory.  Build with
 * `make fuzz` (clang, -fsanitize=fuzzer,address,undefined). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "response.h"
#include "rules.h"

static struct oc_schemas schemas;
static int loaded;

static const char *const requests[] = {
  "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
  "{\"model\":\"m\",\"stream\":true,\"tool_choice\":\"required\",\"parallel_tool_calls\":false,"
  "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"parameters\":"
  "{\"type\":\"object\",\"properties\":{\"location\":{\"type\":\"string\"}},\"required\":[\"location\"]}}}],"
  "\"messages\":[]}",
  "{\"model\":\"m\",\"stream\":true,\"n\":2,\"stream_options\":{\"include_usage\":true},\"messages\":[]}",
  "{\"model\":\"m\",\"stream\":true,\"response_format\":{\"type\":\"json_schema\",\"json_schema\":"
  "{\"name\":\"p\",\"schema\":{\"type\":\"object\",\"required\":[\"a\"]}}},\"messages\":[]}",
  "{\"model\":\"m\",\"prompt\":\"x\",\"stream\":true}",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if(!loaded) {
    char err[512];
    if(oc_schemas_load(&schemas, err, sizeof(err)))
      abort(); /* OACHECK_DATADIR must point at the source tree */
    loaded = 1;
  }
  if(size < 2)
    return 0;
  size_t which = data[0] % (sizeof(requests) / sizeof(requests[0]));
  size_t piece = 1 + data[1] % 64;
  const char *path = which == 4 ? "/v1/completions" : "/v1/chat/completions";
  size_t pieces[4096];
  size_t np = 0;
  for(size_t at = piece; at < size - 2 && np < 4096; at += piece)
    pieces[np++] = at;
  struct oc_findings f;
  oc_findings_init(&f);
  struct oc_check c;
  oc_check_init(&c, &f, oc_profile_find(data[1] & 0x80 ? "llama-server" : "openai"));
  struct oc_headers h;
  oc_headers_init(&h);
  oc_headers_add(&h, "Content-Type", data[0] & 0x80 ? "application/json" : "text/event-stream");
  oc_response_analyze(&schemas, &c, "POST", path, requests[which], strlen(requests[which]), 200, &h,
                      (const char *)data + 2, size - 2, pieces, np);
  oc_headers_free(&h);
  oc_findings_free(&f);
  return 0;
}
