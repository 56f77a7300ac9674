/* fuzz_cassette.c — libFuzzer target for the cassette reader: the input is
 * a cassette, either as found on disk (gzip) or, when it does not start
 * with the gzip magic, its uncompressed form (metadata line and bodies),
 * gzipped here so that the fuzzer explores the metadata rather than CRCs.
 * Cassettes come from other people's recordings: decoding must end without
 * a crash or a leak, and a decoded one must encode, decode again and show
 * (masked) without one either.  Build with `make fuzz`. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cassette.h"
#include "secret.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static int once;
  if(!once++)
    oc_secret_add("sk-fuzz-secret-0123456789"); /* the mask runs too */
  char *gz = NULL;
  size_t gzlen = 0;
  const char *in = (const char *)data;
  size_t inlen = size;
  if(size < 2 || data[0] != 0x1f || data[1] != 0x8b) {
    if(oc_gzip(data, size, &gz, &gzlen))
      return 0;
    in = gz;
    inlen = gzlen;
  }
  struct oc_cassette c;
  char err[1024];
  if(oc_cassette_decode(in, inlen, "fuzz", &c, err, sizeof(err)) == OC_OK) {
    char *again = NULL;
    size_t alen = 0;
    if(oc_cassette_encode(&c, &again, &alen, err, sizeof(err)) == OC_OK) {
      struct oc_cassette d;
      if(oc_cassette_decode(again, alen, "fuzz again", &d, err, sizeof(err)) == OC_OK)
        oc_cassette_free(&d);
      free(again);
    }
    oc_cassette_mask(&c);
    oc_cassette_free(&c);
  }
  free(gz);
  return 0;
}
