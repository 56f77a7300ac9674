/* overload.c — the count of requests in flight and the choice between the
 * main recordings and the overloaded ones (overload.h).  Lock-free: one
 * atomic counter, read once per request when it is matched. */
#include "config.h"
#include "overload.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void oc_overload_init(struct oc_overload *o)
{
  memset(o, 0, sizeof(*o));
  o->above = -1;
  oc_cassette_store_init(&o->store);
  atomic_init(&o->busy, 0);
  atomic_init(&o->answered, 0);
}

void oc_overload_free(struct oc_overload *o)
{
  if(!o)
    return;
  oc_cassette_store_free(&o->store);
  free(o->dir);
  oc_overload_init(o);
}

static void load_error(void *ctx, const char *msg)
{
  (void)ctx;
  oc_warn("--overload: %s", msg);
}

int oc_overload_parse(struct oc_overload *o, const char *spec, char *err, size_t errlen)
{
  const char *eq = strchr(spec, '=');
  long n;
  char num[24];
  if(!eq || eq == spec || (size_t)(eq - spec) >= sizeof(num) || !eq[1]) {
    snprintf(err, errlen, "wants N=DIR (answer from DIR while more than N requests are in "
                          "flight), not '%s'", spec);
    return OC_EUSAGE;
  }
  memcpy(num, spec, (size_t)(eq - spec));
  num[eq - spec] = '\0';
  if(oc_parse_long(num, 0, 100000, &n)) {
    snprintf(err, errlen, "'%s' is not a number of requests (0 to 100000)", num);
    return OC_EUSAGE;
  }
  oc_overload_free(o);
  o->above = n;
  o->dir = oc_strdup(eq + 1);
  const char *dirs[1] = { eq + 1 };
  int rc = o->dir ? oc_cassette_store_load(&o->store, dirs, 1, load_error, NULL) : OC_ENOMEM;
  if(rc == OC_ENOMEM || rc == OC_ENOTFOUND || !o->store.count) {
    snprintf(err, errlen, "%s: %s", eq + 1,
             rc == OC_ENOMEM ? "out of memory" : "no recordings there (*.cassette.gz or index.json)");
    oc_overload_free(o);
    return rc == OC_ENOMEM ? OC_ENOMEM : OC_ENOTFOUND;
  }
  return OC_OK;
}

void oc_overload_enter(struct oc_overload *o, struct oc_overload_ticket *t)
{
  t->o = o;
  t->held = o != NULL;
  if(o)
    atomic_fetch_add(&o->busy, 1);
}

void oc_overload_leave(struct oc_overload_ticket *t)
{
  if(t && t->held && t->o) {
    atomic_fetch_sub(&t->o->busy, 1);
    t->held = 0;
  }
}

void oc_overload_hand(struct oc_overload_ticket *to, struct oc_overload_ticket *from)
{
  *to = *from;
  from->held = 0;
}

static const struct oc_cassette *lookup(const struct oc_cassette_store *s, const char *key,
                                        const char *name)
{
  return name ? oc_cassette_store_find_name(s, name) : oc_cassette_store_find_key(s, key);
}

const struct oc_cassette *oc_overload_find(struct oc_overload *o,
                                           const struct oc_cassette_store *main,
                                           const char *key, const char *name, long *busy_now)
{
  *busy_now = 0;
  if(o && o->above >= 0) {
    long busy = atomic_load(&o->busy);
    if(busy > o->above) {
      const struct oc_cassette *c = lookup(&o->store, key, name);
      if(c) {
        atomic_fetch_add(&o->answered, 1);
        *busy_now = busy;
        return c;
      }
    }
  }
  return lookup(main, key, name);
}
