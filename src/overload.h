/* overload.h — `oacheck serve --overload N=DIR`: a stand-in for a server
 * that fails under load.  While more than N requests are in flight, a
 * request is answered from DIR's recordings (the same requests recorded
 * under concurrency, e.g. a shared context running out), otherwise from
 * the main ones.  The decision and the count live here; the HTTP server
 * only takes a ticket when a request arrives, gives it back once the
 * answer's last byte is handed to the HTTP library (so a client never
 * sees an answer end before its request stopped counting), and asks
 * which recording answers.  With no overload configured every call is a
 * plain lookup or does nothing. */
#ifndef OC_OVERLOAD_H
#define OC_OVERLOAD_H

#include <stdatomic.h>
#include <stddef.h>

#include "cassette.h"

struct oc_overload {
  long above;                       /* N: more than this in flight is overload */
  struct oc_cassette_store store;   /* DIR's recordings */
  char *dir;
  atomic_long busy;                 /* requests in flight */
  atomic_long answered;             /* requests answered from DIR */
};

/* A request's share of the count.  Zeroed memory is a ticket not held. */
struct oc_overload_ticket {
  struct oc_overload *o;
  int held;
};

/* Fill *o as "no overload".  Cannot fail. */
void oc_overload_init(struct oc_overload *o);
void oc_overload_free(struct oc_overload *o);
/* "N=DIR": load DIR's recordings.  err says what is wrong (the spec, or
 * the directory) on failure. */
int oc_overload_parse(struct oc_overload *o, const char *spec, char *err, size_t errlen);

/* A request arrived (o may be NULL: nothing is counted). */
void oc_overload_enter(struct oc_overload *o, struct oc_overload_ticket *t);
/* Its answer is out; a ticket not held (or given back) is ignored. */
void oc_overload_leave(struct oc_overload_ticket *t);
/* Move the ticket from *from to *to (the answer takes it over). */
void oc_overload_hand(struct oc_overload_ticket *to, struct oc_overload_ticket *from);

/* The recording that answers a request: by name when name is set, else by
 * key; while more than o->above requests are in flight, DIR's recording
 * of it when DIR has one.  *busy_now is the count when DIR answered, else
 * 0.  o may be NULL. */
const struct oc_cassette *oc_overload_find(struct oc_overload *o,
                                           const struct oc_cassette_store *main,
                                           const char *key, const char *name, long *busy_now);

#endif
