/* proxy.h — `oacheck proxy`'s engine: an HTTP proxy in front of one live
 * target that forwards every request of a real client and streams the
 * answer back as it arrives, while the same bytes go through the decoder,
 * the rules, the client models and the request-side rules
 * (conversation.h).  Each exchange ends as one results-schema object
 * (suite "proxy").  Options, signals and reports are cmd_proxy.c's. */
#ifndef OC_PROXY_H
#define OC_PROXY_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "response.h"
#include "rules.h"
#include "target.h"

struct oc_proxy_options {
  const char *host;                 /* default 127.0.0.1 */
  int port;                         /* 0: a free one */
  struct oc_target *target;         /* live and identified; borrowed */
  const struct oc_schemas *schemas; /* borrowed */
  const struct oc_ruleset *allow;   /* may be NULL */
  const char *record_dir;           /* write a cassette per exchange here, or NULL */
  long connect_timeout_ms, idle_timeout_ms, total_timeout_ms;
  /* The verdict policy (verdict.h): strict, and the clients whose break
   * fails an exchange (a bit per enum oc_client_id). */
  int strict;
  unsigned clients;
  /* Called once per finished exchange, serialised by the proxy (never two
   * at once); result is borrowed for the call. */
  void (*on_result)(void *ud, const cJSON *result, size_t number);
  void *ud;
};

struct oc_proxy;

/* Listen and start forwarding (a thread per client connection).  Returns
 * OC_OK, or an error with err saying why (the address, the port). */
int oc_proxy_start(struct oc_proxy **out, const struct oc_proxy_options *o, char *err,
                   size_t errlen);
int oc_proxy_port(const struct oc_proxy *p);
/* Stop listening, cut the exchanges still open (each still ends as a
 * result, marked as cut short by the stop) and free.  Returns the results
 * in the order the exchanges began (caller deletes); NULL only when memory
 * ran out. */
cJSON *oc_proxy_stop(struct oc_proxy *p);

/* The hop-by-hop and framing headers a proxy never forwards (RFC 9110
 * 7.6.1, plus the ones the two HTTP libraries write themselves). */
int oc_proxy_header_is_hop(const char *name);

#endif
