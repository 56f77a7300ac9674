/* fuzz_exchange.c — libFuzzer target for raw captures: the input is an HTTP
 * response as `curl -i` (or `curl --raw -i`, when the first byte is odd)
 * writes it, read by the raw exchange reader (src/exchange.c), turned into a
 * cassette as the importer does, and its body run through the whole
 * response decoder as the answer to a streamed chat request.  Captures are
 * pasted from anywhere: none may crash, leak or hang the reader.  Build
 * with `make fuzz`. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cassette.h"
#include "exchange.h"
#include "response.h"
#include "rules.h"
#include "util.h"

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
  if(size < 1)
    return 0;
  int wire = data[0] & 1;
  struct oc_exchange ex;
  char err[512];
  if(oc_exchange_parse_response((const char *)data + 1, size - 1, wire, &ex, err, sizeof(err)))
    return 0;
  static const char req[] = "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
  ex.method = oc_strdup("POST");
  ex.path = oc_strdup("/v1/chat/completions");
  ex.name = oc_strdup("fuzz");
  ex.request = oc_strdup(req);
  ex.request_len = sizeof(req) - 1;
  struct oc_cassette c;
  if(ex.method && ex.path && ex.name && ex.request && oc_cassette_from_exchange(&ex, &c) == OC_OK)
    oc_cassette_free(&c);
  struct oc_findings f;
  oc_findings_init(&f);
  struct oc_check chk;
  oc_check_init(&chk, &f, oc_profile_find(data[0] & 2 ? "llama-server" : "openai"));
  oc_response_analyze(&schemas, &chk, "POST", "/v1/chat/completions", req, sizeof(req) - 1, ex.status,
                      &ex.headers, ex.body, ex.body_len, ex.pieces, ex.npieces);
  oc_findings_free(&f);
  oc_exchange_free(&ex);
  return 0;
}
