/* fuzz_messages.c — libFuzzer target for the Messages API decoder
 * (messages.c through response.c): the input's first byte picks a
 * /v1/messages request (plain; tools with a named tool_choice and
 * disable_parallel_tool_use; tool_choice any with stop_sequences and
 * thinking) and, in bit 7, a JSON body instead of an event stream; the
 * second how the body is cut into pieces and, in bit 7, the llama-server
 * profile; the rest is the body.  Anything a server can send must end as
 * findings without a crash, a leak or unbounded memory.  The seeds are
 * the MESSAGES-* rule files' bodies (run.sh). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "response.h"
#include "rules.h"

#define TOOLS                                                                                     \
  "\"tools\":[{\"name\":\"get_weather\",\"input_schema\":{\"type\":\"object\",\"properties\":"     \
  "{\"location\":{\"type\":\"string\"}},\"required\":[\"location\"]}}]"

static const char *const requests[] = {
  "{\"model\":\"m\",\"max_tokens\":64,\"stream\":true,\"messages\":[{\"role\":\"user\","
  "\"content\":\"hi\"}]}",
  "{\"model\":\"m\",\"max_tokens\":64,\"stream\":true,\"messages\":[{\"role\":\"user\","
  "\"content\":\"hi\"}],\"tool_choice\":{\"type\":\"tool\",\"name\":\"get_weather\","
  "\"disable_parallel_tool_use\":true}," TOOLS "}",
  "{\"model\":\"m\",\"max_tokens\":8,\"stream\":true,\"messages\":[{\"role\":\"user\","
  "\"content\":\"hi\"}],\"stop_sequences\":[\"END\"],\"thinking\":{\"type\":\"enabled\","
  "\"budget_tokens\":1024},\"tool_choice\":{\"type\":\"any\"}," TOOLS "}",
};

#define MAX_PIECES 4096

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
  if(size < 2)
    return 0;
  const char *req = requests[(data[0] & 0x7f) % (sizeof(requests) / sizeof(requests[0]))];
  size_t piece = 1 + data[1] % 64;
  static size_t pieces[MAX_PIECES];
  size_t npieces = 0;
  for(size_t at = piece; at < size - 2 && npieces < MAX_PIECES; at += piece)
    pieces[npieces++] = at;
  struct oc_findings f;
  oc_findings_init(&f);
  struct oc_check c;
  oc_check_init(&c, &f, oc_profile_find(data[1] & 0x80 ? "llama-server" : "openai"));
  struct oc_headers h;
  oc_headers_init(&h);
  oc_headers_add(&h, "Content-Type", data[0] & 0x80 ? "application/json" : "text/event-stream");
  oc_response_analyze(&schemas, &c, "POST", "/v1/messages", req, strlen(req), 200, &h,
                      (const char *)data + 2, size - 2, pieces, npieces);
  oc_headers_free(&h);
  oc_findings_free(&f);
  return 0;
}
