/* fuzz_results.c — libFuzzer target for reading a results file a result
 * at a time (oc_results_read_each, what `report render` reads): the input
 * is a results document.  Results files come from other machines and
 * other versions: the splitter must follow any bytes without a crash, a
 * leak or a hang, and whatever it hands over must be a result the checks
 * passed, which is written back (oc_spool_encode) to prove it whole.
 * Build with `make fuzz`. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "json.h"
#include "results_json.h"
#include "secret.h"
#include "spool.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int take(void *ud, cJSON *r, size_t i, char *err, size_t errlen)
{
  struct oc_buf *text = ud;
  int rc = oc_spool_encode(r, i, text, err, errlen);
  /* a result handed over passed the checks: it has its status */
  if(!rc && oc_result_status(r) == OC_ST_INVALID)
    abort();
  cJSON_Delete(r);
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static int once;
  if(!once++)
    oc_secret_add("sk-fuzz-secret-0123456789"); /* the mask runs too */
  if(size == 0)
    return 0;
  FILE *f = fmemopen((void *)data, size, "rb");
  if(!f)
    return 0;
  struct oc_buf text;
  oc_buf_init(&text, 0);
  char err[1024];
  cJSON *frame = NULL;
  oc_results_read_each(f, "fuzz", take, &text, &frame, err, sizeof(err));
  fclose(f);
  cJSON_Delete(frame);
  oc_buf_free(&text);
  return 0;
}
