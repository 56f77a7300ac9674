/* pclient.c — one exchange's typed-protocol client models: a state per
 * model of the request's family, fed each event (then the reference),
 * judged at the end.  What each model does is its own file's. */
#include "config.h"
#include "pclient.h"

#include <stdlib.h>
#include <string.h>

#include "client_int.h"
#include "sse.h"
#include "util.h"

struct oc_pclients {
  const struct oc_pfamily *fam;
  struct oc_pctx cx;
  char media[96];
  void *ref;
  void *state[OC_CLIENT__COUNT]; /* by client id; NULL: not modelled */
  const struct oc_pmodel *model[OC_CLIENT__COUNT];
  int finished;
};

const struct oc_pfamily *oc_pfamily_of(enum oc_api api)
{
  switch(api) {
  case OC_API_RESPONSES:
    return &oc_pfamily_responses;
  case OC_API_MESSAGES:
    return &oc_pfamily_messages;
  default:
    return NULL;
  }
}

struct oc_pclients *oc_pclients_new(const struct oc_pfamily *fam, const struct oc_request_info *req,
                                    unsigned modelled)
{
  struct oc_pclients *ps = calloc(1, sizeof(*ps));
  if(!ps)
    return NULL;
  ps->fam = fam;
  ps->cx.req = req;
  ps->cx.stream = req->stream;
  ps->cx.complete = 1;
  ps->cx.media = "";
  oc_cnote_enter(&ps->cx.oom);
  if(fam->ref_size && !(ps->ref = calloc(1, fam->ref_size)))
    goto fail;
  if(fam->ref_init)
    fam->ref_init(ps->ref, &ps->cx);
  ps->cx.ref = ps->ref;
  for(size_t i = 0; i < fam->nmodels; i++) {
    const struct oc_pmodel *m = fam->models[i];
    if((unsigned)m->id >= OC_CLIENT__COUNT || !(modelled & (1u << m->id)))
      continue;
    if(!(ps->state[m->id] = calloc(1, m->size ? m->size : 1)))
      goto fail;
    ps->model[m->id] = m;
    m->init(ps->state[m->id], &ps->cx);
  }
  if(ps->cx.oom)
    goto fail;
  oc_cnote_enter(NULL);
  return ps;
fail:
  oc_pclients_free(ps);
  return NULL;
}

static void free_states(struct oc_pclients *ps)
{
  for(int i = 0; i < OC_CLIENT__COUNT; i++)
    if(ps->state[i]) {
      if(ps->model[i]->free)
        ps->model[i]->free(ps->state[i]);
      free(ps->state[i]);
      ps->state[i] = NULL;
    }
  if(ps->ref) {
    if(ps->fam->ref_free)
      ps->fam->ref_free(ps->ref);
    free(ps->ref);
    ps->ref = NULL;
  }
}

void oc_pclients_free(struct oc_pclients *ps)
{
  if(!ps)
    return;
  oc_cnote_enter(&ps->cx.oom);
  free_states(ps);
  oc_cnote_enter(NULL);
  free(ps);
}

void oc_pclients_set_partial(struct oc_pclients *ps, int partial)
{
  if(ps)
    ps->cx.partial = partial;
}

void oc_pclients_head(struct oc_pclients *ps, int status, const char *media)
{
  if(!ps)
    return;
  ps->cx.status = status;
  oc_strlcpy(ps->media, media ? media : "", sizeof(ps->media));
  ps->cx.media = ps->media;
}

void oc_pclients_event(struct oc_pclients *ps, const struct oc_sse_event *sev,
                       const struct oc_jv *root)
{
  if(!ps || ps->finished)
    return;
  struct oc_pevent ev = {
    .n = (long)sev->index + 1, .name = sev->type, .name_len = sev->type_len,
    .named = !(sev->type_len == 7 && memcmp(sev->type, "message", 7) == 0),
    .data = sev->data, .len = sev->data_len, .first_byte = sev->first_byte, .root = root,
  };
  const struct oc_jv *t = root && root->type == OC_JOBJECT ? oc_jv_get(root, "type") : NULL;
  if(t && t->type == OC_JSTRING) {
    ev.type = t->u.str;
    ev.type_len = t->len;
  }
  oc_cnote_enter(&ps->cx.oom);
  for(int i = 0; i < OC_CLIENT__COUNT; i++)
    if(ps->state[i] && ps->model[i]->event)
      ps->model[i]->event(ps->state[i], &ps->cx, &ev);
  if(ps->fam->ref_event)
    ps->fam->ref_event(ps->ref, &ps->cx, &ev);
  oc_cnote_enter(NULL);
}

int oc_pclients_body(struct oc_pclients *ps, const char *body, size_t len)
{
  if(!ps || ps->finished)
    return OC_OK;
  struct oc_jdoc doc;
  struct oc_jerr jerr;
  oc_jdoc_init(&doc);
  oc_cnote_enter(&ps->cx.oom);
  int rc = oc_cjdoc_parse(&doc, body ? body : "", len, &jerr);
  const struct oc_jv *root = rc == OC_OK ? doc.root : NULL;
  for(int i = 0; i < OC_CLIENT__COUNT; i++)
    if(ps->state[i] && ps->model[i]->body)
      ps->model[i]->body(ps->state[i], &ps->cx, body ? body : "", len, root);
  if(ps->fam->ref_body)
    ps->fam->ref_body(ps->ref, &ps->cx, body ? body : "", len, root);
  oc_cnote_enter(NULL);
  oc_jdoc_free(&doc);
  return rc == OC_ENOMEM ? OC_ENOMEM : OC_OK;
}

void oc_pclients_finish(struct oc_pclients *ps, int complete, struct oc_client_verdict *out)
{
  if(!ps || ps->finished)
    return;
  ps->finished = 1;
  ps->cx.complete = complete;
  oc_cnote_enter(&ps->cx.oom);
  if(ps->fam->ref_finish)
    ps->fam->ref_finish(ps->ref, &ps->cx);
  for(int i = 0; i < OC_CLIENT__COUNT; i++) {
    if(!ps->state[i])
      continue;
    struct oc_client_verdict *v = &out[i];
    v->modelled = 1;
    v->outcome = OC_CO_OK;
    v->works = 1;
    v->cause = OC_CAUSE_NONE;
    ps->model[i]->finish(ps->state[i], &ps->cx, v);
    if(v->outcome == OC_CO_NOT_EXERCISED)
      v->works = -1;
    else if(oc_client_broken(v))
      v->limitation = oc_client_limitation((enum oc_client_id)i, v->cause) != NULL;
    else {
      v->cause = OC_CAUSE_NONE;
      v->nrules = 0;
    }
  }
  free_states(ps);
  oc_cnote_enter(NULL);
}

int oc_pclients_oom(const struct oc_pclients *ps)
{
  return ps && ps->cx.oom;
}
