/* chat_body.c — Chat Completions' non-streamed bodies (the protocol
 * handler's check_body, protocol.c): a chat.completion or a legacy
 * text_completion against its schema, its usage sums and its choices (each
 * a message, message.c, kept in the response for the expectations and the
 * results), a model list, an embeddings list.  The stream is chat.c's. */
#include "config.h"
#include "chat_body.h"

#include <stdio.h>
#include <stdlib.h>

#include "message.h"
#include "reasoning.h"
#include "response.h"

static void check_usage(struct oc_response *r, const struct oc_jv *root)
{
  const struct oc_jv *u = oc_jv_get(root, "usage");
  struct oc_check *c = r->check;
  if(!u || u->type != OC_JOBJECT) {
    oc_emit(c, OC_R_CHAT_USAGE,
            OC_AT(.byte = root->offset, .path = "/usage", .expected = "a usage object",
                  .actual = oc_jv_type_name(u)),
            "the completion has no usage object");
    return;
  }
  const struct oc_jv *p = oc_jv_get(u, "prompt_tokens");
  const struct oc_jv *cm = oc_jv_get(u, "completion_tokens");
  const struct oc_jv *t = oc_jv_get(u, "total_tokens");
  if(!oc_jv_is_integer(p) || !oc_jv_is_integer(cm) || !oc_jv_is_integer(t))
    return; /* the schema reports the types */
  if(p->u.num + cm->u.num != t->u.num) {
    char exp[32], act[32];
    snprintf(exp, sizeof(exp), "%.0f", p->u.num + cm->u.num);
    snprintf(act, sizeof(act), "%.0f", t->u.num);
    oc_emit(c, OC_R_CHAT_USAGE,
            OC_AT(.byte = t->offset, .path = "/usage/total_tokens", .expected = exp, .actual = act),
            "usage total_tokens %s is not prompt_tokens + completion_tokens (%s)", act, exp);
  }
}

static void check_completion(struct oc_response *r, const struct oc_jv *root)
{
  struct oc_check *c = r->check;
  int chat = r->req->api == OC_API_CHAT;
  oc_response_schema_findings(r, r->schemas ? (chat ? r->schemas->chat : r->schemas->text_completion) : NULL,
                  chat ? "chat.completion.json" : "text_completion.json", root, chat ? OC_R_CHAT_SCHEMA : OC_R_JSON_SCHEMA,
                  chat ? "chat.completion" : "text_completion");
  if(chat)
    check_usage(r, root);
  const struct oc_jv *choices = oc_jv_get(root, "choices");
  if(!choices || choices->type != OC_JARRAY)
    return;
  if(chat && r->req->n > 1 && (int)choices->len != r->req->n) {
    char exp[16], act[16];
    snprintf(exp, sizeof(exp), "%d", r->req->n);
    snprintf(act, sizeof(act), "%u", choices->len);
    oc_emit(c, OC_R_CHAT_CHOICES_COUNT,
            OC_AT(.byte = choices->offset, .path = "/choices", .expected = exp, .actual = act),
            "n=%d was requested but the response has %u choice%s", r->req->n, choices->len,
            choices->len == 1 ? "" : "s");
  }
  uint32_t nch = choices->len;
  if(nch > OC_MAX_CHOICES) {
    oc_emit(c, OC_R_CHAT_SIZE,
            OC_AT(.byte = choices->offset, .path = "/choices", .expected = "at most 128 choices",
                  .actual = "more"),
            "the response carries %u choices; oacheck reads the first %d",
            choices->len, OC_MAX_CHOICES);
    nch = OC_MAX_CHOICES;
  }
  r->messages = calloc(nch ? nch : 1, sizeof(*r->messages));
  if(!r->messages) {
    c->oom = 1;
    return;
  }
  for(uint32_t i = 0; i < nch; i++) {
    const struct oc_jv *ch = &choices->u.items[i];
    const struct oc_jv *idx = oc_jv_get(ch, "index");
    struct oc_message *m = &r->messages[r->nmessages++];
    int valid = oc_jv_is_integer(idx) && idx->u.num >= 0 && idx->u.num <= 1e6;
    oc_message_init(m, valid ? (int)idx->u.num : (int)i, 0);
    if(oc_message_from_choice(m, ch, r->req->api))
      c->oom = 1;
    oc_reasoning_usage_jv(&m->rtrace, oc_jv_get(root, "usage"));
    oc_message_check(c, r->req, m, r->schemas ? r->schemas->reg : NULL);
  }
}

static void check_models(struct oc_response *r, const struct oc_jv *root)
{
  oc_response_schema_findings(r, r->schemas ? r->schemas->models : NULL, "models.list.json", root, OC_R_MODELS_LIST,
                  "model list");
  const struct oc_jv *data = oc_jv_get(root, "data");
  if(data && data->type == OC_JARRAY && data->len == 0)
    oc_emit(r->check, OC_R_MODELS_LIST,
            OC_AT(.byte = data->offset, .path = "/data", .expected = "at least one model",
                  .actual = "[]"),
            "the model list is empty");
}

void oc_chat_check_head(struct oc_check *c, const struct oc_request_info *req, int status)
{
  if(status >= 400 && req->api == OC_API_CHAT && req->history_reasoning_at >= 0) {
    char path[48], act[16];
    snprintf(path, sizeof(path), "/messages/%d", req->history_reasoning_at);
    snprintf(act, sizeof(act), "HTTP %d", status);
    oc_emit(c, OC_R_REASONING_HISTORY_REFUSED,
            OC_AT(.path = path, .expected = "an answer", .actual = act),
            "the server answers %d to a conversation whose assistant turn (messages[%d]) "
            "carries its reasoning back, as the ai SDK and agents send it", status,
            req->history_reasoning_at);
  }
}

void oc_chat_check_body(struct oc_response *r, const struct oc_jv *root)
{
  switch(r->req->api) {
  case OC_API_CHAT:
  case OC_API_COMPLETIONS:
    check_completion(r, root);
    break;
  case OC_API_MODELS:
    check_models(r, root);
    break;
  case OC_API_EMBEDDINGS:
    oc_response_schema_findings(r, r->schemas ? r->schemas->embeddings : NULL, "embeddings.json", root,
                                OC_R_JSON_SCHEMA, "embeddings");
    break;
  default:
    break;
  }
}
