/* client_responses.c — the Responses API's client family (pclient.h): the
 * reference its models are judged against and the list of its models, one
 * file per library (client_responses_*.c).  A client without a model
 * verified against its real library is not in the list. */
#include "config.h"
#include "pclient.h"

static const struct oc_pmodel *const models[] = { NULL };

const struct oc_pfamily oc_pfamily_responses = {
  .api = OC_API_RESPONSES,
  .models = models,
  .nmodels = 0,
};
