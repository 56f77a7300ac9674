/* decodeutil.h — one response decoded in a unit test, as the runner
 * decodes one: the shipped schemas, the request's info, a check under a
 * profile, the response fed head, body and end.  The protocol decoders'
 * and the agents' tests share it; each asserts on the findings or on the
 * protocol's stream state (oc_response_stream_of). */
#ifndef OC_DECODEUTIL_H
#define OC_DECODEUTIL_H

#include <check.h>
#include <string.h>

#include "json.h"
#include "response.h"

struct oc_decoded {
  struct oc_schemas sch;
  cJSON *req;
  struct oc_request_info info;
  struct oc_findings f;
  struct oc_check c;
  struct oc_headers h;
  struct oc_response r;
};

/* The request reqjson to path answered with status and Content-Type
 * media (NULL: none; headers: the recorded ones instead), its head
 * decoded; strict as --strict. */
static inline void oc_decoded_start(struct oc_decoded *x, const char *path, const char *reqjson,
                                    int status, const char *media, const struct oc_headers *headers,
                                    int strict)
{
  char err[512];
  memset(x, 0, sizeof(*x));
  ck_assert_msg(oc_schemas_load(&x->sch, err, sizeof(err)) == 0, "%s", err);
  x->req = cJSON_Parse(reqjson);
  ck_assert_ptr_nonnull(x->req);
  oc_request_info_init(&x->info, "POST", path, x->req);
  oc_findings_init(&x->f);
  oc_check_init(&x->c, &x->f, oc_profile_find("openai"));
  x->c.strict = strict;
  oc_headers_init(&x->h);
  if(media)
    oc_headers_add(&x->h, "Content-Type", media);
  oc_response_init(&x->r, &x->info, &x->c, &x->sch, 0, 0, 1);
  oc_response_head(&x->r, status, headers ? headers : &x->h, 0);
}

static inline void oc_decoded_push(struct oc_decoded *x, const void *p, size_t n)
{
  ck_assert_int_eq(oc_response_body(&x->r, p, n, 0), OC_OK);
}

/* The body ended (complete 0: cut by the transport); memory held out. */
static inline void oc_decoded_finish(struct oc_decoded *x, int complete)
{
  oc_response_finish(&x->r, 0, complete);
  ck_assert_int_eq(x->c.oom, 0);
}

static inline void oc_decoded_stop(struct oc_decoded *x)
{
  oc_response_free(&x->r);
  oc_headers_free(&x->h);
  oc_findings_free(&x->f);
  cJSON_Delete(x->req);
  oc_schemas_free(&x->sch);
}

/* Findings of the rule named. */
static inline size_t oc_decoded_count(const struct oc_decoded *x, const char *rule)
{
  size_t n = 0;
  for(size_t i = 0; i < x->f.count; i++)
    n += strcmp(oc_rule_name(x->f.items[i].rule), rule) == 0;
  return n;
}

#endif
