/* responses.c — the Responses API's stream and body (responses.h).  Each
 * SSE event is parsed, validated against its schema and run through the
 * state machine: the lifecycle (created first, one terminal event last),
 * the sequence numbers, the items and their parts (opened, indexed,
 * named by a stable item_id, closed in order before the end), and the
 * texts and arguments, which are compared as length and hash so that a
 * 50 MB delta costs no more memory than the text kept for the results.
 * What the answer holds (calls, text, status) then meets the request's
 * contract, streamed or not. */
#include "config.h"
#include "responses.h"

#include "client.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "response.h"
#include "schema.h"
#include "sse_issue.h"
#include "typed_events.h"
#include "util.h"

#define OC_CAP_RESP_ID 4096u

/* once-per-stream findings */
enum {
  ONCE_SEQ_MISSING = 1u << 0,
  ONCE_SEQ_ORDER = 1u << 1,
  ONCE_OI_MISSING = 1u << 2,
  ONCE_OI_WRONG = 1u << 3,
  ONCE_CI_MISSING = 1u << 4,
  ONCE_CI_WRONG = 1u << 5,
  ONCE_EVENT_NAME = 1u << 6,
  ONCE_EVENT_UNNAMED = 1u << 7,
  ONCE_ORDER = 1u << 8,
  ONCE_AFTER = 1u << 9,
  ONCE_SIZE = 1u << 10,
  ONCE_ITEM_ID = 1u << 11,
  ONCE_LATE_DELTA = 1u << 12
};

#define EMIT(s, rule, at, ...)                                                             \
  do {                                                                                     \
    const struct oc_at *at_ = (at);                                                        \
    oc_event_log_mark(&(s)->log, at_->chunk);                                              \
    oc_emit((s)->check, (rule), at_, __VA_ARGS__);                                         \
  } while(0)

static int once(struct oc_rstream *s, unsigned bit)
{
  if(s->reported & bit)
    return 0;
  s->reported |= bit;
  return 1;
}

/* The stream offset of a value at jv_offset inside the data of ev (exact
 * for a one-line data field, else the event's start). */
/* ---- texts ------------------------------------------------------------------------ */

static void rtext_init(struct oc_rtext *t)
{
  memset(t, 0, sizeof(*t));
  t->hash = OC_FNV_OFFSET;
  oc_buf_init(&t->head, OC_CAP_CONTENT);
}

static void rtext_reset(struct oc_rtext *t)
{
  t->len = 0;
  t->hash = OC_FNV_OFFSET;
  t->seen = 0;
  oc_buf_reset(&t->head);
}

/* Add a piece; the stream's budget bounds what all items keep together. */
static void rtext_add(struct oc_rstream *s, struct oc_rtext *t, const char *p, size_t n)
{
  t->seen = 1;
  t->len += n;
  t->hash = oc_fnv1a(t->hash, p, n);
  size_t room = t->head.max > t->head.len ? t->head.max - t->head.len : 0;
  size_t sroom = s->rebuilt < s->max_rebuilt ? s->max_rebuilt - s->rebuilt : 0;
  size_t take = n < room ? n : room;
  if(take > sroom) {
    s->rebuilt_dropped += take - sroom;
    take = sroom;
  }
  if(take && oc_buf_add(&t->head, p, take))
    s->check->oom = 1;
  else
    s->rebuilt += take;
}

static int rtext_equal(const struct oc_rtext *a, const struct oc_rtext *b)
{
  return a->len == b->len && a->hash == b->hash;
}

/* An excerpt of a text for expected/actual: its first bytes. */
static void rtext_excerpt(const struct oc_rtext *t, char *out, size_t outlen)
{
  size_t n = t->head.len < 60 ? t->head.len : 60;
  while(n > 0 && n < t->head.len && ((unsigned char)t->head.data[n] & 0xC0) == 0x80)
    n--;
  snprintf(out, outlen, "\"%.*s%s\" (%llu bytes)", (int)n, oc_buf_str(&t->head),
           n < t->len ? "…" : "", (unsigned long long)t->len);
}

static void rtext_free(struct oc_rtext *t)
{
  oc_buf_free(&t->head);
}

/* ---- items --------------------------------------------------------------------------- */

static enum oc_ritem_kind kind_of(const char *type)
{
  if(oc_streq(type, "message"))
    return OC_RITEM_MESSAGE;
  if(oc_streq(type, "function_call"))
    return OC_RITEM_FUNCTION_CALL;
  if(oc_streq(type, "reasoning"))
    return OC_RITEM_REASONING;
  return OC_RITEM_OTHER;
}

static void item_free(struct oc_ritem *it)
{
  free(it->id);
  free(it->type);
  free(it->name);
  free(it->call_id);
  free(it->status);
  rtext_free(&it->deltas);
  rtext_free(&it->done);
  rtext_free(&it->final);
  rtext_free(&it->reasoning);
}

static struct oc_ritem *item_new(struct oc_rstream *s)
{
  struct oc_ritem *d = oc_array_grow(s->items, &s->aitems, s->nitems + 1, sizeof(*d));
  if(!d) {
    s->check->oom = 1;
    return NULL;
  }
  s->items = d;
  struct oc_ritem *it = &s->items[s->nitems];
  memset(it, 0, sizeof(*it));
  it->index = (long)s->nitems++;
  rtext_init(&it->deltas);
  rtext_init(&it->done);
  rtext_init(&it->final);
  rtext_init(&it->reasoning);
  return it;
}

static struct oc_ritem *item_by_id(struct oc_rstream *s, const char *id, size_t n)
{
  if(!id)
    return NULL;
  if(s->last_item < s->nitems) {
    const char *x = s->items[s->last_item].id;
    if(x && strlen(x) == n && memcmp(x, id, n) == 0)
      return &s->items[s->last_item];
  }
  for(size_t i = s->nitems; i-- > 0;) {
    const char *x = s->items[i].id;
    if(x && strlen(x) == n && memcmp(x, id, n) == 0) {
      s->last_item = i;
      return &s->items[i];
    }
  }
  return NULL;
}

static void set_str(struct oc_rstream *s, char **dst, const struct oc_jv *v)
{
  if(!v || v->type != OC_JSTRING || v->len > OC_CAP_RESP_ID)
    return;
  char *c = oc_strndup(v->u.str, v->len);
  if(!c) {
    s->check->oom = 1;
    return;
  }
  free(*dst);
  *dst = c;
}

/* The text of a message item's output_text parts (or a reasoning item's
 * content texts), joined, into t. */
static void item_text(struct oc_rstream *s, const struct oc_jv *item, struct oc_rtext *t,
                      const char *part_type)
{
  const struct oc_jv *content = oc_jv_get(item, "content");
  rtext_reset(t);
  t->seen = 1;
  for(uint32_t i = 0; content && content->type == OC_JARRAY && i < content->len; i++) {
    const struct oc_jv *p = &content->u.items[i];
    size_t tn = 0;
    const char *pt = oc_jv_str(p, "type", NULL);
    const char *text = oc_jv_str(p, "text", &tn);
    if(text && (!part_type || oc_streq(pt, part_type)))
      rtext_add(s, t, text, tn);
  }
}

/* ---- the event's indexes ---------------------------------------------------------------- */

/* output_index on an event about item it: present, and its position. */
static void check_output_index(struct oc_rstream *s, const struct oc_sse_event *ev, long n,
                               const struct oc_jv *root, const char *etype,
                               const struct oc_ritem *it)
{
  const struct oc_jv *oi = oc_jv_get(root, "output_index");
  if(!oi || !oc_jv_is_integer(oi)) {
    s->oi_missing++;
    if(once(s, ONCE_OI_MISSING))
      EMIT(s, OC_R_RESPONSES_OUTPUT_INDEX,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, root->offset), .path = "/output_index",
                 .expected = "an integer", .actual = oc_jv_type_name(oi)),
           "event %ld (%s) has no integer output_index: openai-node's responses.stream() "
           "throws \"missing output at index undefined\" and the ai SDK drops the event", n, etype);
    return;
  }
  if(!it)
    return;
  double want = (double)it->index;
  if(oi->u.num != want && once(s, ONCE_OI_WRONG)) {
    char exp[24], act[32];
    snprintf(exp, sizeof(exp), "%ld", it->index);
    snprintf(act, sizeof(act), "%.0f", oi->u.num);
    EMIT(s, OC_R_RESPONSES_OUTPUT_INDEX,
         OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, oi->offset), .path = "/output_index",
               .expected = exp, .actual = act),
         "event %ld (%s) says output_index %s for item '%s', the stream's item %ld", n, etype,
         act, it->id ? it->id : "?", it->index);
  }
}

/* content_index on an event about a part of item it; part_new: the event
 * opens the part (its index is the next one), else one opened earlier. */
static void check_content_index(struct oc_rstream *s, const struct oc_sse_event *ev, long n,
                                const struct oc_jv *root, const char *etype,
                                const struct oc_ritem *it, int part_new)
{
  const struct oc_jv *ci = oc_jv_get(root, "content_index");
  if(!ci || !oc_jv_is_integer(ci)) {
    s->ci_missing++;
    if(once(s, ONCE_CI_MISSING))
      EMIT(s, OC_R_RESPONSES_CONTENT_INDEX,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, root->offset), .path = "/content_index",
                 .expected = "an integer", .actual = oc_jv_type_name(ci)),
           "event %ld (%s) has no integer content_index: Codex drops reasoning deltas without "
           "one", n, etype);
    return;
  }
  if(!it || it->kind == OC_RITEM_REASONING)
    return; /* reasoning parts are not announced by content_part.added */
  int ok = part_new ? ci->u.num == (double)(it->parts - 1)
                    : ci->u.num >= 0 && ci->u.num < (double)it->parts;
  if(!ok && once(s, ONCE_CI_WRONG)) {
    char exp[48], act[32];
    if(part_new)
      snprintf(exp, sizeof(exp), "%ld", it->parts - 1);
    else
      snprintf(exp, sizeof(exp), "0..%ld", it->parts - 1);
    snprintf(act, sizeof(act), "%.0f", ci->u.num);
    EMIT(s, OC_R_RESPONSES_CONTENT_INDEX,
         OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, ci->offset), .path = "/content_index",
               .expected = exp, .actual = act),
         "event %ld (%s) says content_index %s, but item '%s' has %ld part%s opened", n, etype,
         act, it->id ? it->id : "?", it->parts, it->parts == 1 ? "" : "s");
  }
}

/* The item an event names by item_id; a finding when none was opened. */
static struct oc_ritem *named_item(struct oc_rstream *s, const struct oc_sse_event *ev, long n,
                                   const struct oc_jv *root, const char *etype)
{
  const struct oc_jv *id = oc_jv_get(root, "item_id");
  if(!id || id->type != OC_JSTRING)
    return NULL; /* the schema says so */
  struct oc_ritem *it = item_by_id(s, id->u.str, id->len);
  if(!it && !s->items_dropped && once(s, ONCE_ITEM_ID)) {
    char act[80];
    snprintf(act, sizeof(act), "%.*s", (int)(id->len < 60 ? id->len : 60), id->u.str);
    EMIT(s, OC_R_RESPONSES_ITEM_ID,
         OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, id->offset), .path = "/item_id",
               .expected = "the id of an item opened by response.output_item.added", .actual = act),
         "event %ld (%s) names item '%s', which no response.output_item.added opened", n, etype,
         act);
  }
  return it;
}

/* ---- lifecycle events ------------------------------------------------------------------ */

static void read_response_identity(struct oc_rstream *s, const struct oc_jv *resp)
{
  size_t n = 0;
  const char *id = oc_jv_str(resp, "id", &n);
  if(id && n <= OC_CAP_RESP_ID) {
    oc_buf_reset(&s->resp_id);
    if(oc_buf_add(&s->resp_id, id, n))
      s->check->oom = 1;
  }
  const char *model = oc_jv_str(resp, "model", &n);
  if(model && n <= OC_CAP_RESP_ID) {
    oc_buf_reset(&s->model);
    if(oc_buf_add(&s->model, model, n))
      s->check->oom = 1;
  }
  const char *status = oc_jv_str(resp, "status", &n);
  if(status && n <= 64) {
    oc_buf_reset(&s->status);
    if(oc_buf_add(&s->status, status, n))
      s->check->oom = 1;
  }
  const struct oc_jv *ca = oc_jv_get(resp, "created_at");
  if(ca && ca->type == OC_JNUMBER)
    s->created_at = ca->u.num;
}

static void on_created(struct oc_rstream *s, const struct oc_sse_event *ev, long n,
                       const struct oc_jv *root)
{
  const struct oc_jv *resp = oc_jv_get(root, "response");
  if(s->created_at_event)
    return;
  s->created_at_event = n;
  if(!resp || resp->type != OC_JOBJECT)
    return; /* the schema says so */
  read_response_identity(s, resp);
  /* what the libraries read from it: the ai SDK's schema wants id,
   * created_at and model; openai-node's accumulator starts from output */
  static const struct {
    const char *key;
    enum oc_jtype type;
  } want[] = {
    { "id", OC_JSTRING }, { "created_at", OC_JNUMBER }, { "model", OC_JSTRING },
    { "output", OC_JARRAY }, { "status", OC_JSTRING },
  };
  char lacks[96] = "";
  size_t k = 0;
  for(size_t i = 0; i < OC_ARRAY_LEN(want); i++) {
    const struct oc_jv *v = oc_jv_get(resp, want[i].key);
    if(!v || v->type != want[i].type)
      k += (size_t)snprintf(lacks + k, k < sizeof(lacks) ? sizeof(lacks) - k : 0, "%s%s",
                            k ? ", " : "", want[i].key);
  }
  if(k)
    EMIT(s, OC_R_RESPONSES_CREATED,
         OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, resp->offset), .path = "/response",
               .expected = "id, created_at, model, output and status", .actual = lacks),
         "response.created's response lacks %s: the ai SDK's Responses model rejects the event "
         "and with it the whole stream", lacks);
}

/* usage of a Response; ev is the event that carried it (NULL for a
 * body), pre the pointer to the Response ("/response" or ""). */
static void check_usage_obj(struct oc_check *c, const struct oc_sse_event *ev, long n,
                            const char *pre, const struct oc_jv *resp)
{
  const struct oc_jv *u = oc_jv_get(resp, "usage");
  char path[64];
  snprintf(path, sizeof(path), "%s/usage", pre);
#define BYTE(v) (ev ? oc_sse_data_byte(ev, (v)->offset) : (int64_t)(v)->offset)
  if(!u || u->type != OC_JOBJECT) {
    oc_emit(c, OC_R_RESPONSES_USAGE,
            OC_AT(.chunk = n, .byte = BYTE(u ? u : resp), .path = path,
                  .expected = "a usage object", .actual = oc_jv_type_name(u)),
            "the response has no usage object");
    return;
  }
  const struct oc_jv *in = oc_jv_get(u, "input_tokens");
  const struct oc_jv *out = oc_jv_get(u, "output_tokens");
  const struct oc_jv *tot = oc_jv_get(u, "total_tokens");
  if(!oc_jv_is_integer(in) || !oc_jv_is_integer(out) || !oc_jv_is_integer(tot)) {
    oc_emit(c, OC_R_RESPONSES_USAGE,
            OC_AT(.chunk = n, .byte = BYTE(u), .path = path,
                  .expected = "integer input_tokens, output_tokens and total_tokens",
                  .actual = "missing or not integers"),
            "usage lacks integer input_tokens, output_tokens or total_tokens, which Codex reads");
    return;
  }
  if(in->u.num + out->u.num != tot->u.num) {
    char exp[32], act[32];
    snprintf(exp, sizeof(exp), "%.0f", in->u.num + out->u.num);
    snprintf(act, sizeof(act), "%.0f", tot->u.num);
    snprintf(path, sizeof(path), "%s/usage/total_tokens", pre);
    oc_emit(c, OC_R_RESPONSES_USAGE,
            OC_AT(.chunk = n, .byte = BYTE(tot), .path = path, .expected = exp, .actual = act),
            "usage total_tokens %s is not input_tokens + output_tokens (%s)", act, exp);
  }
#undef BYTE
}

/* status and incomplete_details against the terminal event and the
 * request: shared by the stream and the body.  etype is the terminal
 * event's type, NULL for a body. */
static void check_status(struct oc_check *c, const struct oc_request_info *req, long n,
                         int64_t byte, const char *etype, const struct oc_jv *resp)
{
  const char *status = oc_jv_str(resp, "status", NULL);
  const struct oc_jv *inc = oc_jv_get(resp, "incomplete_details");
  const char *want = !etype ? NULL
                   : strcmp(etype, "response.completed") == 0 ? "completed"
                   : strcmp(etype, "response.incomplete") == 0 ? "incomplete" : "failed";
  if(want && status && strcmp(status, want) != 0) {
    oc_emit(c, OC_R_RESPONSES_STATUS,
            OC_AT(.chunk = n, .byte = byte, .path = "/response/status", .expected = want,
                  .actual = status),
            "%s carries a response whose status is \"%s\"", etype, status);
    return;
  }
  if(oc_streq(status, "incomplete") &&
     (!inc || inc->type != OC_JOBJECT || !oc_jv_str(inc, "reason", NULL)))
    oc_emit(c, OC_R_RESPONSES_STATUS,
            OC_AT(.chunk = n, .byte = byte, .path = etype ? "/response/incomplete_details"
                                                          : "/incomplete_details",
                  .expected = "incomplete_details.reason", .actual = oc_jv_type_name(inc)),
            "an incomplete response does not say why (incomplete_details.reason)");
  if(oc_streq(status, "completed") && inc && inc->type != OC_JNULL)
    oc_emit(c, OC_R_RESPONSES_STATUS,
            OC_AT(.chunk = n, .byte = byte, .path = etype ? "/response/incomplete_details"
                                                          : "/incomplete_details",
                  .expected = "null", .actual = oc_jv_type_name(inc)),
            "a completed response carries incomplete_details");
  /* the length limit reached but reported as a complete answer */
  const struct oc_jv *out = oc_jv_get(oc_jv_get(resp, "usage"), "output_tokens");
  if(oc_streq(status, "completed") && req->max_tokens > 0 && oc_jv_is_integer(out) &&
     out->u.num >= (double)req->max_tokens) {
    char act[64];
    snprintf(act, sizeof(act), "completed, %.0f output tokens", out->u.num);
    oc_emit(c, OC_R_RESPONSES_STATUS,
            OC_AT(.chunk = n, .byte = byte, .path = etype ? "/response/status" : "/status",
                  .expected = "incomplete (max_output_tokens)", .actual = act),
            "the answer used all %ld tokens max_output_tokens allowed, yet its status is "
            "\"completed\" with no incomplete_details: a client takes the cut answer for a "
            "whole one", req->max_tokens);
  }
}

/* ---- the answer's contract (streamed and not) -------------------------------------------- */

struct answer_call {
  const char *name;
  const char *args;
  size_t args_len;
  int args_whole;           /* args holds every byte */
  long chunk;
  int64_t byte;
  char path[48];
};

static void check_args(struct oc_check *c, const struct oc_request_info *req,
                       struct oc_schema_registry *reg, const struct answer_call *k, size_t i)
{
  if(!k->args_whole)
    return;
  struct oc_jdoc doc;
  struct oc_jerr jerr;
  oc_jdoc_init(&doc);
  int rc = oc_jdoc_parse(&doc, k->args ? k->args : "", k->args_len, &jerr);
  if(rc == OC_ENOMEM) {
    c->oom = 1;
    goto out;
  }
  if(rc || doc.root->type != OC_JOBJECT) {
    char act[96];
    snprintf(act, sizeof(act), "%.*s%s", (int)(k->args_len < 60 ? k->args_len : 60),
             k->args ? k->args : "", k->args_len > 60 ? "…" : "");
    oc_emit(c, OC_R_RESPONSES_ARGS_JSON,
            OC_AT(.chunk = k->chunk, .byte = k->byte, .path = k->path,
                  .expected = "a JSON object", .actual = k->args_len ? act : "empty"),
            "function call %zu ('%s'): arguments are %s, not a JSON object: every library "
            "fails on them, and Codex sends the parse error back to the model", i,
            k->name ? k->name : "?", rc ? "not JSON" : oc_jv_type_name(doc.root));
    goto out;
  }
  const cJSON *params = oc_request_tool_parameters(req, k->name);
  if(!params || !reg)
    goto out;
  char err[512];
  struct oc_schema *sc = NULL;
  if(oc_schema_compile_rc(reg, params, NULL, 0, &sc, err, sizeof(err)) == OC_ENOMEM)
    c->oom = 1;
  if(!sc)
    goto out;
  struct oc_schema_result res;
  oc_schema_result_init(&res);
  int v = oc_schema_validate(sc, doc.root, &res);
  if(v == -OC_ETOOBIG)
    oc_check_limit(c, "function call %zu's arguments could not be validated against the tool's "
                   "parameters: %s", i, res.undecided);
  else if(v < 0)
    c->oom = 1;
  else if(v == 0)
    for(size_t e = 0; e < res.count && e < 5; e++)
      oc_emit(c, OC_R_RESPONSES_ARGS_JSON,
              OC_AT(.chunk = k->chunk, .byte = k->byte, .path = k->path,
                    .expected = res.errors[e].keyword, .actual = res.errors[e].message),
              "function call %zu ('%s'): arguments do not match the tool's parameters at "
              "'%s': %s", i, k->name ? k->name : "?", res.errors[e].instance_path,
              res.errors[e].message);
  oc_schema_result_free(&res);
  oc_schema_free(sc);
out:
  oc_jdoc_free(&doc);
}

static void check_format(struct oc_check *c, const struct oc_request_info *req,
                         struct oc_schema_registry *reg, const char *text, size_t len,
                         long chunk, const char *path)
{
  struct oc_jdoc doc;
  struct oc_jerr jerr;
  oc_jdoc_init(&doc);
  int rc = oc_jdoc_parse(&doc, text ? text : "", len, &jerr);
  const char *fmt = req->format == OC_FORMAT_JSON_SCHEMA ? "json_schema" : "json_object";
  if(rc == OC_ENOMEM) {
    c->oom = 1;
    goto out;
  }
  if(rc || doc.root->type != OC_JOBJECT) {
    char act[96];
    snprintf(act, sizeof(act), "%.*s%s", (int)(len < 60 ? len : 60), text ? text : "",
             len > 60 ? "…" : "");
    oc_emit(c, OC_R_RESPONSES_TEXT_FORMAT,
            OC_AT(.chunk = chunk, .path = path, .expected = "a JSON object",
                  .actual = len ? act : "no text"),
            "text.format %s was asked but the answer's text is %s", fmt,
            len == 0 ? "empty" : rc ? "not JSON" : "not a JSON object");
    goto out;
  }
  if(!req->format_schema || !reg)
    goto out;
  char err[512];
  struct oc_schema *sc = NULL;
  if(oc_schema_compile_rc(reg, req->format_schema, NULL, 0, &sc, err, sizeof(err)) == OC_ENOMEM)
    c->oom = 1;
  if(!sc)
    goto out;
  struct oc_schema_result res;
  oc_schema_result_init(&res);
  int v = oc_schema_validate(sc, doc.root, &res);
  if(v == -OC_ETOOBIG)
    oc_check_limit(c, "the answer could not be validated against text.format's schema: %s",
                   res.undecided);
  else if(v < 0)
    c->oom = 1;
  else if(v == 0)
    for(size_t e = 0; e < res.count && e < 5; e++)
      oc_emit(c, OC_R_RESPONSES_TEXT_FORMAT,
              OC_AT(.chunk = chunk, .path = path, .expected = res.errors[e].keyword,
                    .actual = res.errors[e].message),
              "the answer's text does not match text.format's schema at '%s': %s",
              res.errors[e].instance_path, res.errors[e].message);
  oc_schema_result_free(&res);
  oc_schema_free(sc);
out:
  oc_jdoc_free(&doc);
}

/* tool_choice and parallel_tool_calls over the calls the answer made. */
static void check_calls(struct oc_check *c, const struct oc_request_info *req,
                        const struct answer_call *calls, size_t ncalls, long chunk,
                        const char *status)
{
  int cut = status && !oc_streq(status, "completed");
  if(req->ntools > 0 && !cut) {
    char act[32];
    snprintf(act, sizeof(act), "%zu function call%s", ncalls, ncalls == 1 ? "" : "s");
    if(req->tool_choice == OC_TOOL_CHOICE_REQUIRED && ncalls == 0)
      oc_emit(c, OC_R_RESPONSES_TOOL_CHOICE,
              OC_AT(.chunk = chunk, .path = "/output", .expected = "a function call",
                    .actual = act),
              "tool_choice \"required\" was asked but the answer calls no function");
    else if(req->tool_choice == OC_TOOL_CHOICE_NAMED && ncalls == 0)
      oc_emit(c, OC_R_RESPONSES_TOOL_CHOICE,
              OC_AT(.chunk = chunk, .path = "/output", .expected = req->named_tool,
                    .actual = act),
              "tool_choice names '%s' but the answer calls no function", req->named_tool);
    else if(req->tool_choice == OC_TOOL_CHOICE_NONE && ncalls > 0)
      oc_emit(c, OC_R_RESPONSES_TOOL_CHOICE,
              OC_AT(.chunk = calls[0].chunk, .byte = calls[0].byte, .path = calls[0].path,
                    .expected = "no function call", .actual = act),
              "tool_choice \"none\" was asked but the answer calls '%s'",
              calls[0].name ? calls[0].name : "?");
  }
  for(size_t i = 0; i < ncalls; i++) {
    const struct answer_call *k = &calls[i];
    if(req->tool_choice == OC_TOOL_CHOICE_NAMED && !oc_streq(k->name, req->named_tool))
      oc_emit(c, OC_R_RESPONSES_TOOL_CHOICE,
              OC_AT(.chunk = k->chunk, .byte = k->byte, .path = k->path,
                    .expected = req->named_tool, .actual = k->name ? k->name : "no name"),
              "tool_choice names '%s' but the answer calls '%s'", req->named_tool,
              k->name ? k->name : "?");
    else if(req->body_is_json && !oc_request_has_tool(req, k->name))
      oc_emit(c, OC_R_RESPONSES_TOOL_CHOICE,
              OC_AT(.chunk = k->chunk, .byte = k->byte, .path = k->path,
                    .expected = "a function the request offered",
                    .actual = k->name ? k->name : "no name"),
              "the answer calls '%s', which the request did not offer", k->name ? k->name : "?");
  }
  if(req->parallel_tool_calls == 0 && ncalls > 1) {
    char act[32];
    snprintf(act, sizeof(act), "%zu calls", ncalls);
    oc_emit(c, OC_R_RESPONSES_PARALLEL_FALSE,
            OC_AT(.chunk = calls[1].chunk, .byte = calls[1].byte, .path = calls[1].path,
                  .expected = "at most one call", .actual = act),
            "parallel_tool_calls false was asked but the answer makes %zu function calls", ncalls);
  }
}

/* ---- one event ------------------------------------------------------------------------------ */

static int is_terminal(const char *t)
{
  return oc_streq(t, "response.completed") || oc_streq(t, "response.incomplete") ||
         oc_streq(t, "response.failed");
}

static void on_item_added(struct oc_rstream *s, const struct oc_sse_event *ev, long n,
                          const struct oc_jv *root, const char *etype)
{
  const struct oc_jv *item = oc_jv_get(root, "item");
  if(!item || item->type != OC_JOBJECT)
    return; /* the schema says so */
  const struct oc_jv *id = oc_jv_get(item, "id");
  if(s->nitems >= OC_RESP_MAX_ITEMS) {
    s->items_dropped++;
    if(once(s, ONCE_SIZE))
      EMIT(s, OC_R_RESPONSES_SIZE,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, item->offset), .path = "/item",
                 .expected = "at most 1024 output items", .actual = "more"),
           "the stream opens more than %d output items; the rest are not read",
           OC_RESP_MAX_ITEMS);
    return;
  }
  if(id && id->type == OC_JSTRING && item_by_id(s, id->u.str, id->len)) {
    EMIT(s, OC_R_RESPONSES_ITEM_ID,
         OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, id->offset), .path = "/item/id",
               .expected = "a new item id", .actual = id->u.str),
         "event %ld opens item '%s' a second time", n, id->u.str);
    return;
  }
  /* one item at a time: the one before is closed before the next opens */
  for(size_t i = s->nitems; i-- > 0;)
    if(!s->items[i].done_at) {
      if(once(s, ONCE_ORDER))
        EMIT(s, OC_R_RESPONSES_ITEM_ORDER,
             OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, item->offset), .path = "/item",
                   .expected = "the item before closed first",
                   .actual = s->items[i].id ? s->items[i].id : "an open item"),
             "event %ld opens item %zu while item %zu ('%s') is still open: items come one "
             "after another", n, s->nitems, i, s->items[i].id ? s->items[i].id : "?");
      break;
    }
  struct oc_ritem *it = item_new(s);
  if(!it)
    return;
  s->last_item = (size_t)it->index;
  it->added_at = n;
  it->added_byte = oc_sse_data_byte(ev, item->offset);
  set_str(s, &it->id, id);
  set_str(s, &it->type, oc_jv_get(item, "type"));
  set_str(s, &it->name, oc_jv_get(item, "name"));
  set_str(s, &it->call_id, oc_jv_get(item, "call_id"));
  set_str(s, &it->status, oc_jv_get(item, "status"));
  it->kind = kind_of(it->type);
  if(!it->id)
    EMIT(s, OC_R_RESPONSES_ITEM_ID,
         OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, item->offset), .path = "/item/id",
               .expected = "a string id", .actual = oc_jv_type_name(id)),
         "output item %ld has no id: the events that follow cannot name it", it->index);
  check_output_index(s, ev, n, root, etype, it);
}

static void on_item_done(struct oc_rstream *s, const struct oc_sse_event *ev, long n,
                         const struct oc_jv *root, const char *etype)
{
  const struct oc_jv *item = oc_jv_get(root, "item");
  if(!item || item->type != OC_JOBJECT)
    return;
  const struct oc_jv *id = oc_jv_get(item, "id");
  struct oc_ritem *it = id && id->type == OC_JSTRING ? item_by_id(s, id->u.str, id->len) : NULL;
  if(!it) {
    if(!s->items_dropped && id && id->type == OC_JSTRING)
      EMIT(s, OC_R_RESPONSES_ITEM_ID,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, id->offset), .path = "/item/id",
                 .expected = "an item opened by response.output_item.added", .actual = id->u.str),
           "event %ld closes item '%s', which no response.output_item.added opened", n,
           id->u.str);
    return;
  }
  check_output_index(s, ev, n, root, etype, it);
  if(it->done_at) {
    EMIT(s, OC_R_RESPONSES_ITEM_DONE,
         OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, item->offset), .path = "/item",
               .expected = "one response.output_item.done", .actual = "a second one"),
         "item '%s' is closed a second time (event %ld, first at %ld)", it->id, n, it->done_at);
    return;
  }
  it->done_at = n;
  it->done_byte = oc_sse_data_byte(ev, item->offset);
  if(it->parts_open > 0)
    EMIT(s, OC_R_RESPONSES_ITEM_DONE,
         OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, item->offset), .path = "/item",
               .expected = "every content part closed by response.content_part.done",
               .actual = "a part still open"),
         "item '%s' is closed with %ld content part%s still open", it->id, it->parts_open,
         it->parts_open == 1 ? "" : "s");
  /* items close in the order they opened: an earlier one still open */
  for(size_t i = 0; i < (size_t)it->index && i < s->nitems; i++)
    if(!s->items[i].done_at) {
      if(once(s, ONCE_ORDER))
        EMIT(s, OC_R_RESPONSES_ITEM_ORDER,
             OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, item->offset), .path = "/item",
                   .expected = s->items[i].id ? s->items[i].id : "the earlier item",
                   .actual = it->id),
             "item %ld ('%s') is closed while item %zu ('%s') is still open: items close in "
             "the order they opened", it->index, it->id, i, s->items[i].id ? s->items[i].id : "?");
      break;
    }
  it->final_seen = 1;
  set_str(s, &it->status, oc_jv_get(item, "status"));
  if(!it->name)
    set_str(s, &it->name, oc_jv_get(item, "name"));
  if(!it->call_id)
    set_str(s, &it->call_id, oc_jv_get(item, "call_id"));
  if(it->kind == OC_RITEM_MESSAGE) {
    item_text(s, item, &it->final, "output_text");
    const struct oc_rtext *was = it->done.seen ? &it->done : it->deltas.seen ? &it->deltas : NULL;
    if(was && !rtext_equal(was, &it->final)) {
      char exp[128], act[128];
      rtext_excerpt(was, exp, sizeof(exp));
      rtext_excerpt(&it->final, act, sizeof(act));
      EMIT(s, OC_R_RESPONSES_TEXT_JOIN,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, item->offset), .path = "/item/content",
                 .expected = exp, .actual = act),
           "item '%s': the text in response.output_item.done is not the %s", it->id,
           it->done.seen ? "text of response.output_text.done" : "text deltas joined");
    }
  }
  else if(it->kind == OC_RITEM_FUNCTION_CALL) {
    size_t an = 0;
    const char *args = oc_jv_str(item, "arguments", &an);
    rtext_reset(&it->final);
    if(args)
      rtext_add(s, &it->final, args, an);
    const struct oc_rtext *was = it->done.seen ? &it->done : it->deltas.seen ? &it->deltas : NULL;
    if(args && was && !rtext_equal(was, &it->final)) {
      char exp[128], act[128];
      rtext_excerpt(was, exp, sizeof(exp));
      rtext_excerpt(&it->final, act, sizeof(act));
      EMIT(s, OC_R_RESPONSES_ARGS_JOIN,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, item->offset), .path = "/item/arguments",
                 .expected = exp, .actual = act),
           "function call '%s': the arguments in response.output_item.done are not the %s",
           it->id, it->done.seen ? "arguments of response.function_call_arguments.done"
                                 : "argument deltas joined");
    }
  }
  else if(it->kind == OC_RITEM_REASONING && !it->reasoning.seen)
    item_text(s, item, &it->reasoning, NULL);
}

static void on_part(struct oc_rstream *s, const struct oc_sse_event *ev, long n,
                    const struct oc_jv *root, const char *etype, int added)
{
  struct oc_ritem *it = named_item(s, ev, n, root, etype);
  if(it) {
    check_output_index(s, ev, n, root, etype, it);
    if(added)
      it->parts++, it->parts_open++;
    check_content_index(s, ev, n, root, etype, it, added);
    if(!added) {
      if(it->parts_open <= 0)
        EMIT(s, OC_R_RESPONSES_ITEM_DONE,
             OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, root->offset), .path = "/part",
                   .expected = "a part opened by response.content_part.added",
                   .actual = "no open part"),
             "event %ld closes a content part of item '%s' that is not open", n, it->id);
      else
        it->parts_open--;
    }
  }
  else {
    check_output_index(s, ev, n, root, etype, NULL);
    check_content_index(s, ev, n, root, etype, NULL, added);
  }
}

/* output_text / arguments / reasoning deltas and their .done events */
static void on_text(struct oc_rstream *s, const struct oc_sse_event *ev, long n,
                    const struct oc_jv *root, const char *etype, int args, int done)
{
  struct oc_ritem *it = named_item(s, ev, n, root, etype);
  check_output_index(s, ev, n, root, etype, it);
  if(!args)
    check_content_index(s, ev, n, root, etype, it, 0);
  if(!it)
    return;
  int reasoning = strstr(etype, "reasoning") != NULL;
  const struct oc_jv *v = oc_jv_get(root, done ? (args ? "arguments" : "text") : "delta");
  if(!v || v->type != OC_JSTRING)
    return;
  if(reasoning) {
    if(!done)
      rtext_add(s, &it->reasoning, v->u.str, v->len);
    return;
  }
  if(!done) {
    if(it->done_seen && once(s, ONCE_LATE_DELTA))
      EMIT(s, args ? OC_R_RESPONSES_ARGS_JOIN : OC_R_RESPONSES_TEXT_JOIN,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, v->offset), .path = "/delta",
                 .expected = "no delta after the .done event", .actual = "a delta"),
           "event %ld adds to item '%s' after its %s.done", n, it->id, etype);
    rtext_add(s, &it->deltas, v->u.str, v->len);
    return;
  }
  it->done_seen = 1;
  rtext_reset(&it->done);
  rtext_add(s, &it->done, v->u.str, v->len);
  if(it->deltas.seen && !rtext_equal(&it->deltas, &it->done)) {
    char exp[128], act[128];
    rtext_excerpt(&it->deltas, exp, sizeof(exp));
    rtext_excerpt(&it->done, act, sizeof(act));
    EMIT(s, args ? OC_R_RESPONSES_ARGS_JOIN : OC_R_RESPONSES_TEXT_JOIN,
         OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, v->offset), .path = args ? "/arguments" : "/text",
               .expected = exp, .actual = act),
         "item '%s': %s is not the deltas joined: responses.create() iterated and the ai SDK "
         "show the deltas, responses.stream(), the Agents SDK and Codex this text", it->id, etype);
  }
}

/* The terminal response's output against the items streamed. */
static void check_terminal_output(struct oc_rstream *s, const struct oc_sse_event *ev, long n,
                                  const struct oc_jv *resp)
{
  const struct oc_jv *out = oc_jv_get(resp, "output");
  if(!out || out->type != OC_JARRAY)
    return; /* the schema says so */
  unsigned char *seen = s->nitems ? calloc(s->nitems, 1) : NULL;
  if(s->nitems && !seen) {
    s->check->oom = 1;
    return;
  }
  for(uint32_t i = 0; i < out->len; i++) {
    const struct oc_jv *o = &out->u.items[i];
    const struct oc_jv *id = oc_jv_get(o, "id");
    struct oc_ritem *it = id && id->type == OC_JSTRING ? item_by_id(s, id->u.str, id->len) : NULL;
    if(!it)
      continue;
    seen[it->index] = 1;
    char path[48];
    struct oc_rtext t;
    rtext_init(&t);
    const struct oc_rtext *was = it->final.seen ? &it->final : it->done.seen ? &it->done
                               : it->deltas.seen ? &it->deltas : NULL;
    if(it->kind == OC_RITEM_MESSAGE) {
      item_text(s, o, &t, "output_text");
      snprintf(path, sizeof(path), "/response/output/%u/content", i);
    }
    else if(it->kind == OC_RITEM_FUNCTION_CALL) {
      size_t an = 0;
      const char *a = oc_jv_str(o, "arguments", &an);
      if(a)
        rtext_add(s, &t, a, an);
      else
        was = NULL;
      snprintf(path, sizeof(path), "/response/output/%u/arguments", i);
    }
    else
      was = NULL;
    if(was && !rtext_equal(was, &t)) {
      char exp[128], act[128];
      rtext_excerpt(was, exp, sizeof(exp));
      rtext_excerpt(&t, act, sizeof(act));
      EMIT(s, it->kind == OC_RITEM_MESSAGE ? OC_R_RESPONSES_TEXT_JOIN : OC_R_RESPONSES_ARGS_JOIN,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, o->offset), .path = path, .expected = exp,
                 .actual = act),
           "item '%s' in the terminal response's output differs from what the stream sent",
           it->id);
    }
    /* what the results show is the last word on it */
    if(!it->final.seen && (it->kind == OC_RITEM_MESSAGE || it->kind == OC_RITEM_FUNCTION_CALL) &&
       t.seen) {
      struct oc_rtext tmp = it->final;
      it->final = t;
      t = tmp;
    }
    rtext_free(&t);
  }
  for(size_t i = 0; i < s->nitems; i++)
    if(!seen[i]) {
      char act[32];
      snprintf(act, sizeof(act), "%u item%s", out->len, out->len == 1 ? "" : "s");
      EMIT(s, OC_R_RESPONSES_OUTPUT,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, out->offset), .path = "/response/output",
                 .expected = s->items[i].id ? s->items[i].id : "every streamed item", .actual = act),
           "the terminal response's output lacks item %zu ('%s') that the stream sent: the "
           "libraries that read response.completed lose it", i,
           s->items[i].id ? s->items[i].id : "?");
      break;
    }
  free(seen);
}

static void on_terminal(struct oc_rstream *s, const struct oc_sse_event *ev, long n,
                        const struct oc_jv *root, const char *etype)
{
  s->terminal_at = n;
  s->terminal_type = strcmp(etype, "response.completed") == 0 ? "response.completed"
                   : strcmp(etype, "response.incomplete") == 0 ? "response.incomplete"
                                                               : "response.failed";
  const struct oc_jv *resp = oc_jv_get(root, "response");
  if(!resp || resp->type != OC_JOBJECT)
    return;
  read_response_identity(s, resp);
  int64_t byte = oc_sse_data_byte(ev, resp->offset);
  /* every item and part closed before the end */
  for(size_t i = 0; i < s->nitems; i++) {
    const struct oc_ritem *it = &s->items[i];
    if(!it->done_at) {
      EMIT(s, OC_R_RESPONSES_ITEM_DONE,
           OC_AT(.chunk = n, .byte = (int64_t)ev->first_byte,
                 .expected = "response.output_item.done", .actual = it->id ? it->id : "an open item"),
           "item %zu ('%s') was opened at event %ld and never closed by "
           "response.output_item.done: Codex commits items only from it (an empty answer)",
           i, it->id ? it->id : "?", it->added_at);
      break;
    }
  }
  check_status(s->check, s->req, n, byte, s->terminal_type, resp);
  const struct oc_jv *usage = oc_jv_get(resp, "usage");
  if(strcmp(s->terminal_type, "response.failed") != 0)
    check_usage_obj(s->check, ev, n, "/response", resp);
  if(usage && usage->type == OC_JOBJECT) {
    cJSON_Delete(s->usage);
    if(!(s->usage = oc_jv_to_cjson(usage)))
      s->check->oom = 1;
  }
  const struct oc_jv *inc = oc_jv_get(resp, "incomplete_details");
  if(inc && inc->type == OC_JOBJECT) {
    cJSON_Delete(s->incomplete_details);
    if(!(s->incomplete_details = oc_jv_to_cjson(inc)))
      s->check->oom = 1;
  }
  if(strcmp(s->terminal_type, "response.failed") == 0) {
    const struct oc_jv *err = oc_jv_get(resp, "error");
    if(!err || err->type != OC_JOBJECT || !oc_jv_str(err, "message", NULL))
      EMIT(s, OC_R_RESPONSES_ERROR_EVENT,
           OC_AT(.chunk = n, .byte = byte, .path = "/response/error",
                 .expected = "{\"code\", \"message\"}", .actual = oc_jv_type_name(err)),
           "response.failed does not say why (no error.message)");
    else if(!s->error) {
      s->error_at = n;
      if(!(s->error = oc_jv_to_cjson(err)))
        s->check->oom = 1;
    }
  }
  check_terminal_output(s, ev, n, resp);
}

static void on_event(void *ud, const struct oc_sse_event *ev)
{
  struct oc_rstream *s = ud;
  long n = (long)++s->events;
  uint64_t t = ev->t_last_ns;
  if(oc_event_log_add(&s->log, ev, n, t))
    s->check->oom = 1;
  if(!s->timing.t_first_event)
    s->timing.t_first_event = t ? t : 1;
  s->timing.t_last_event = t;
  struct oc_jerr jerr;
  int rc = oc_jdoc_parse(&s->doc, ev->data, ev->data_len, &jerr);
  if(rc == OC_ENOMEM) {
    s->check->oom = 1;
    return;
  }
  if(s->clients) /* every event, also past the terminal one: each client reads on or not */
    oc_clients_event(s->clients, ev, rc ? NULL : s->doc.root, 0, &s->sse);
  if(s->terminal_at) {
    s->after_terminal++;
    if(once(s, ONCE_AFTER))
      EMIT(s, OC_R_RESPONSES_TERMINAL,
           OC_AT(.chunk = n, .byte = (int64_t)ev->first_byte, .expected = "end of stream",
                 .actual = "another event"),
           "event %ld arrives after the terminal %s (event %ld)", n, s->terminal_type,
           s->terminal_at);
    return;
  }
  if(rc || s->doc.root->type != OC_JOBJECT) {
    char ex[128];
    size_t k = ev->data_len < 100 ? ev->data_len : 100;
    snprintf(ex, sizeof(ex), "%.*s%s", (int)k, ev->data, k < ev->data_len ? "…" : "");
    EMIT(s, OC_R_STREAM_CHUNK_JSON,
         OC_AT(.chunk = n,
               .byte = rc ? oc_sse_data_byte(ev, (uint32_t)jerr.offset) : (int64_t)ev->first_byte,
               .expected = "a JSON object", .actual = ev->data_len ? ex : "empty data"),
         ev->data_len == 0 ? "event %ld has empty data" :
         rc ? "event %ld's data is not JSON (%s)" : "event %ld's data is JSON but not an object",
         n, rc ? (jerr.message ? jerr.message : "parse error") : "");
    return;
  }
  const struct oc_jv *root = s->doc.root;
  const struct oc_jv *tv = oc_jv_get(root, "type");
  const char *etype = tv && tv->type == OC_JSTRING ? tv->u.str : NULL;
  /* an untyped error object: what llama-server writes mid-stream */
  const struct oc_jv *err = oc_jv_get(root, "error");
  if(!etype && err && err->type != OC_JNULL) {
    size_t mlen = 0;
    const char *msg = err->type == OC_JOBJECT ? oc_jv_str(err, "message", &mlen) : NULL;
    if(!s->error_at) {
      s->error_at = n;
      cJSON_Delete(s->error);
      if(!(s->error = oc_jv_to_cjson(err)))
        s->check->oom = 1;
    }
    EMIT(s, OC_R_RESPONSES_ERROR_EVENT,
         OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, root->offset), .path = "/type",
               .expected = "an 'error' event or response.failed", .actual = "data: {\"error\": …}"),
         "event %ld is an untyped error (\"%.*s\"): Codex ignores it, retries and never shows "
         "the message; send a typed 'error' event or response.failed", n,
         (int)(mlen < 200 ? mlen : 200), msg ? msg : "");
    return;
  }
  /* the event: line names the data's type */
  int named = !(ev->type_len == 7 && memcmp(ev->type, "message", 7) == 0);
  if(etype && named && (strlen(etype) != ev->type_len || memcmp(etype, ev->type, ev->type_len) != 0)) {
    if(once(s, ONCE_EVENT_NAME)) {
      char act[80];
      snprintf(act, sizeof(act), "%.*s", (int)(ev->type_len < 60 ? ev->type_len : 60), ev->type);
      EMIT(s, OC_R_RESPONSES_EVENT_TYPE,
           OC_AT(.chunk = n, .byte = (int64_t)ev->first_byte, .expected = etype, .actual = act),
           "event %ld's 'event:' line says '%s' but its data is a %s", n, act, etype);
    }
  }
  else if(etype && !named && once(s, ONCE_EVENT_UNNAMED))
    EMIT(s, OC_R_RESPONSES_EVENT_TYPE,
         OC_AT(.chunk = n, .byte = (int64_t)ev->first_byte, .expected = etype,
               .actual = "no event: line"),
         "event %ld (%s) has no 'event:' line; OpenAI names every event", n, etype);
  oc_event_schema_check(s->event_schema, s->schemas, "responses/stream-event.json", OC_R_RESPONSES_EVENT_SCHEMA, s->check,
                        &s->log, &s->schema_seen, ev, n, root);
  if(!etype)
    return; /* the schema said so */
  /* the sequence */
  const struct oc_jv *seq = oc_jv_get(root, "sequence_number");
  if(!seq || !oc_jv_is_integer(seq)) {
    s->seq_missing++;
    if(once(s, ONCE_SEQ_MISSING))
      EMIT(s, OC_R_RESPONSES_SEQUENCE,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, root->offset), .path = "/sequence_number",
                 .expected = "an integer", .actual = oc_jv_type_name(seq)),
           "event %ld (%s) has no integer sequence_number", n, etype);
  }
  else {
    if(s->have_seq && !(seq->u.num > s->last_seq) && once(s, ONCE_SEQ_ORDER)) {
      char exp[48], act[32];
      snprintf(exp, sizeof(exp), "more than %.0f", s->last_seq);
      snprintf(act, sizeof(act), "%.0f", seq->u.num);
      EMIT(s, OC_R_RESPONSES_SEQUENCE,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, seq->offset), .path = "/sequence_number",
                 .expected = exp, .actual = act),
           "event %ld's sequence_number %s does not increase (the one before was %.0f)", n, act,
           s->last_seq);
    }
    s->last_seq = seq->u.num;
    s->have_seq = 1;
  }
  if(n == 1 && strcmp(etype, "response.created") != 0)
    EMIT(s, OC_R_RESPONSES_CREATED,
         OC_AT(.chunk = n, .byte = (int64_t)ev->first_byte, .path = "/type",
               .expected = "response.created", .actual = etype),
         "the stream opens with %s, not response.created", etype);
  int content = 0;
  if(strcmp(etype, "response.created") == 0)
    on_created(s, ev, n, root);
  else if(strcmp(etype, "response.output_item.added") == 0)
    on_item_added(s, ev, n, root, etype);
  else if(strcmp(etype, "response.output_item.done") == 0)
    on_item_done(s, ev, n, root, etype);
  else if(strcmp(etype, "response.content_part.added") == 0)
    on_part(s, ev, n, root, etype, 1);
  else if(strcmp(etype, "response.content_part.done") == 0)
    on_part(s, ev, n, root, etype, 0);
  else if(strcmp(etype, "response.output_text.delta") == 0 ||
          strcmp(etype, "response.reasoning_text.delta") == 0) {
    on_text(s, ev, n, root, etype, 0, 0);
    content = 1;
  }
  else if(strcmp(etype, "response.output_text.done") == 0)
    on_text(s, ev, n, root, etype, 0, 1);
  else if(strcmp(etype, "response.function_call_arguments.delta") == 0) {
    on_text(s, ev, n, root, etype, 1, 0);
    content = 1;
  }
  else if(strcmp(etype, "response.function_call_arguments.done") == 0)
    on_text(s, ev, n, root, etype, 1, 1);
  else if(strcmp(etype, "error") == 0) {
    if(!s->error_at) {
      s->error_at = n;
      if(!(s->error = oc_jv_to_cjson(root)))
        s->check->oom = 1;
    }
  }
  else if(is_terminal(etype))
    on_terminal(s, ev, n, root, etype);
  if(content && oc_timing_content(&s->timing, t, n))
    s->check->oom = 1;
}

static void on_issue(void *ud, const struct oc_sse_issue *is)
{
  struct oc_rstream *s = ud;
  long n = s->events + 1; /* the event being read */
  struct oc_sse_finding f;
  if(oc_sse_issue_finding(is, n, s->check->partial, &s->truncated, &f))
    EMIT(s, f.rule, OC_AT(.chunk = n, .byte = f.byte, .expected = f.expected, .actual = f.actual),
         "%s", f.message);
}

/* ---- lifecycle ----------------------------------------------------------------------------- */

void oc_rstream_init(struct oc_rstream *s, const struct oc_request_info *req,
                     struct oc_check *check, const struct oc_schemas *schemas, uint64_t t_sent,
                     int timing_recorded, int keep_events)
{
  memset(s, 0, offsetof(struct oc_rstream, log));
  oc_event_log_start(&s->log, keep_events);
  memset(&s->timing, 0, sizeof(s->timing));
  s->req = req;
  s->check = check;
  s->schemas = schemas;
  s->event_schema = schemas ? schemas->responses_event : NULL;
  struct oc_sse_callbacks cb = { on_event, on_issue, NULL };
  oc_sse_init(&s->sse, &cb, s);
  oc_jdoc_init(&s->doc);
  oc_buf_init(&s->resp_id, OC_CAP_RESP_ID);
  oc_buf_init(&s->model, OC_CAP_RESP_ID);
  oc_buf_init(&s->status, 64);
  s->created_at = NAN;
  s->max_rebuilt = OC_CAP_STREAM_TEXT;
  s->timing.recorded = timing_recorded;
  s->timing.t_sent = t_sent;
  s->timing.max_gap_chunk = -1;
}

int oc_rstream_push(struct oc_rstream *s, const void *buf, size_t len, uint64_t t_ns)
{
  if(!s->timing.t_first_byte && len)
    s->timing.t_first_byte = t_ns ? t_ns : 1;
  s->body_bytes += len;
  return oc_sse_push(&s->sse, buf, len, t_ns);
}

/* The answer the stream built, through the contract. */
static void stream_contract(struct oc_rstream *s)
{
  struct answer_call *calls = NULL;
  size_t ncalls = 0;
  for(size_t i = 0; i < s->nitems; i++)
    ncalls += s->items[i].kind == OC_RITEM_FUNCTION_CALL;
  if(ncalls && !(calls = calloc(ncalls, sizeof(*calls)))) {
    s->check->oom = 1;
    return;
  }
  size_t k = 0;
  const struct oc_ritem *msg = NULL;
  struct oc_schema_registry *reg = s->schemas ? s->schemas->reg : NULL;
  for(size_t i = 0; i < s->nitems; i++) {
    const struct oc_ritem *it = &s->items[i];
    if(it->kind == OC_RITEM_MESSAGE && !msg)
      msg = it;
    if(it->kind != OC_RITEM_FUNCTION_CALL)
      continue;
    struct answer_call *c = &calls[k++];
    const struct oc_rtext *a = it->final.seen ? &it->final : it->done.seen ? &it->done : &it->deltas;
    c->name = it->name;
    c->args = oc_buf_str(&a->head);
    c->args_len = a->head.len;
    c->args_whole = a->head.len == a->len;
    c->chunk = it->done_at ? it->done_at : it->added_at;
    c->byte = it->done_at ? it->done_byte : it->added_byte;
    snprintf(c->path, sizeof(c->path), "%s", it->done_at ? "/item/arguments" : "/item");
    const char *st = oc_buf_str(&s->status);
    if(!st[0] || oc_streq(st, "completed"))
      check_args(s->check, s->req, reg, c, k - 1);
  }
  const char *status = s->status.len ? oc_buf_str(&s->status) : NULL;
  if(s->terminal_at && !oc_streq(s->terminal_type, "response.failed"))
    check_calls(s->check, s->req, calls, ncalls, s->terminal_at, status);
  if(s->terminal_at && oc_streq(status, "completed") && ncalls == 0 &&
     (s->req->format == OC_FORMAT_JSON_SCHEMA || s->req->format == OC_FORMAT_JSON_OBJECT)) {
    const struct oc_rtext *t = !msg ? NULL : msg->final.seen ? &msg->final
                             : msg->done.seen ? &msg->done : &msg->deltas;
    if(!t || t->head.len == t->len)
      check_format(s->check, s->req, reg, t ? oc_buf_str(&t->head) : "", t ? t->head.len : 0,
                   s->terminal_at, "/output");
  }
  free(calls);
}

void oc_rstream_finish(struct oc_rstream *s, uint64_t t_ns)
{
  if(s->finished)
    return;
  s->finished = 1;
  oc_sse_finish(&s->sse, t_ns);
  s->timing.t_end = t_ns;
  if(s->check->partial && !s->terminal_at)
    return; /* a capture cut by whoever made it: its end is not the stream's */
  if(!s->terminal_at) {
    EMIT(s, OC_R_RESPONSES_TERMINAL,
         OC_AT(.chunk = s->events ? s->events : -1, .byte = (int64_t)s->body_bytes,
               .expected = "response.completed, response.incomplete or response.failed",
               .actual = s->error_at ? "an error, then the end" : "end of stream"),
         "the stream ends after %ld event%s without response.completed, .incomplete or .failed: "
         "Codex retries (\"stream closed before response.completed\") and the Agents SDK throws",
         s->events, s->events == 1 ? "" : "s");
    for(size_t i = 0; i < s->nitems; i++)
      if(!s->items[i].done_at) {
        EMIT(s, OC_R_RESPONSES_ITEM_DONE,
             OC_AT(.chunk = s->events, .byte = (int64_t)s->body_bytes,
                   .expected = "response.output_item.done",
                   .actual = s->items[i].id ? s->items[i].id : "an open item"),
             "item %zu ('%s') was opened at event %ld and never closed", i,
             s->items[i].id ? s->items[i].id : "?", s->items[i].added_at);
        break;
      }
    return;
  }
  stream_contract(s);
}

void oc_rstream_free(struct oc_rstream *s)
{
  oc_sse_free(&s->sse);
  oc_jdoc_free(&s->doc);
  for(size_t i = 0; i < s->nitems; i++)
    item_free(&s->items[i]);
  free(s->items);
  oc_buf_free(&s->resp_id);
  oc_buf_free(&s->model);
  oc_buf_free(&s->status);
  cJSON_Delete(s->usage);
  cJSON_Delete(s->incomplete_details);
  cJSON_Delete(s->error);
  oc_event_log_free(&s->log);
  free(s->timing.gaps_us);
  memset(s, 0, offsetof(struct oc_rstream, log));
}

/* ---- output ------------------------------------------------------------------------------- */

static void put_text(int *oom, cJSON *o, const char *key, const struct oc_rtext *t, size_t *left,
                     uint64_t *total)
{
  size_t n = t->head.len < *left ? t->head.len : *left;
  while(n > 0 && n < t->head.len && ((unsigned char)t->head.data[n] & 0xC0) == 0x80)
    n--;
  char *v = oc_utf8_sanitize(oc_buf_str(&t->head), n);
  oc_json_put(oom, o, key, v ? cJSON_CreateString(v) : NULL);
  free(v);
  *left -= n;
  *total += t->len;
}

cJSON *oc_rstream_response(const struct oc_rstream *s)
{
  int oom = 0;
  cJSON *o = cJSON_CreateObject();
  oc_json_put_str(&oom, o, "id", oc_buf_str(&s->resp_id));
  oc_json_put_str(&oom, o, "object", "response");
  if(!isnan(s->created_at))
    oc_json_put(&oom, o, "created_at", cJSON_CreateNumber(s->created_at));
  oc_json_put_str(&oom, o, "model", oc_buf_str(&s->model));
  oc_json_put(&oom, o, "status", s->terminal_at ? cJSON_CreateString(oc_buf_str(&s->status))
                                                : cJSON_CreateNull());
  if(s->incomplete_details)
    oc_json_put(&oom, o, "incomplete_details", cJSON_Duplicate(s->incomplete_details, 1));
  if(s->error)
    oc_json_put(&oom, o, "error", cJSON_Duplicate(s->error, 1));
  cJSON *out = oc_json_put(&oom, o, "output", cJSON_CreateArray());
  size_t left = OC_CAP_RESULT_MESSAGE;
  uint64_t total = 0;
  for(size_t i = 0; !oom && i < s->nitems; i++) {
    const struct oc_ritem *it = &s->items[i];
    cJSON *x = oc_json_put(&oom, out, NULL, cJSON_CreateObject());
    oc_json_put_str(&oom, x, "type", it->type ? it->type : "?");
    if(it->id)
      oc_json_put_str(&oom, x, "id", it->id);
    if(it->status)
      oc_json_put_str(&oom, x, "status", it->status);
    const struct oc_rtext *t = it->final.seen ? &it->final : it->done.seen ? &it->done : &it->deltas;
    if(it->kind == OC_RITEM_MESSAGE) {
      oc_json_put_str(&oom, x, "role", "assistant");
      put_text(&oom, x, "text", t, &left, &total);
    }
    else if(it->kind == OC_RITEM_FUNCTION_CALL) {
      if(it->call_id)
        oc_json_put_str(&oom, x, "call_id", it->call_id);
      if(it->name)
        oc_json_put_str(&oom, x, "name", it->name);
      put_text(&oom, x, "arguments", t, &left, &total);
    }
    else if(it->kind == OC_RITEM_REASONING)
      put_text(&oom, x, "text", &it->reasoning, &left, &total);
  }
  if(s->usage)
    oc_json_put(&oom, o, "usage", cJSON_Duplicate(s->usage, 1));
  if(total > OC_CAP_RESULT_MESSAGE) {
    oc_json_put(&oom, o, "truncated", cJSON_CreateBool(1));
    oc_json_put(&oom, o, "bytes", cJSON_CreateNumber((double)total));
    oc_json_put(&oom, o, "cap", cJSON_CreateNumber(OC_CAP_RESULT_MESSAGE));
  }
  if(oom) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

cJSON *oc_rstream_events_json(const struct oc_rstream *s, int *truncated)
{
  return oc_event_log_json(&s->log, &s->timing, s->events, truncated);
}

cJSON *oc_rstream_timing_json(const struct oc_rstream *s)
{
  return oc_timing_json(&s->timing, s->events);
}

/* ---- a non-streamed Response --------------------------------------------------------------- */

void oc_responses_check_body(struct oc_check *c, const struct oc_request_info *req,
                             const struct oc_schemas *schemas, const struct oc_jv *root)
{
  const struct oc_schema *sc = schemas ? schemas->responses_response : NULL;
  if(sc) {
    struct oc_schema_result res;
    oc_schema_result_init(&res);
    res.max = 20;
    int v = oc_schema_validate(sc, root, &res);
    if(v == -OC_ETOOBIG)
      oc_check_limit(c, "the response could not be validated against responses/response.json: %s",
                     res.undecided);
    else if(v < 0)
      c->oom = 1;
    else if(v == 0)
      for(size_t i = 0; i < res.count; i++) {
        const struct oc_schema_error *e = &res.errors[i];
        int sev = oc_schemas_error_severity(schemas, c, "responses/response.json", e);
        oc_emit(c, OC_R_RESPONSES_SCHEMA,
                OC_AT(.byte = (int64_t)e->offset, .path = e->instance_path, .expected = e->keyword,
                      .actual = e->message, .severity = sev),
                "response: at '%s': %s", e->instance_path, e->message);
      }
    oc_schema_result_free(&res);
  }
  check_status(c, req, -1, (int64_t)root->offset, NULL, root);
  const char *status = oc_jv_str(root, "status", NULL);
  if(!oc_streq(status, "failed"))
    check_usage_obj(c, NULL, -1, "", root);
  const struct oc_jv *out = oc_jv_get(root, "output");
  if(!out || out->type != OC_JARRAY)
    return;
  uint32_t nout = out->len < OC_RESP_MAX_ITEMS ? out->len : OC_RESP_MAX_ITEMS;
  if(out->len > OC_RESP_MAX_ITEMS)
    oc_emit(c, OC_R_RESPONSES_SIZE,
            OC_AT(.byte = (int64_t)out->offset, .path = "/output",
                  .expected = "at most 1024 output items", .actual = "more"),
            "the response carries %u output items; oacheck reads the first %d", out->len,
            OC_RESP_MAX_ITEMS);
  struct answer_call *calls = calloc(nout ? nout : 1, sizeof(*calls));
  if(!calls) {
    c->oom = 1;
    return;
  }
  size_t ncalls = 0;
  const struct oc_jv *msg = NULL;
  for(uint32_t i = 0; i < nout; i++) {
    const struct oc_jv *o = &out->u.items[i];
    const char *type = oc_jv_str(o, "type", NULL);
    if(oc_streq(type, "message") && !msg)
      msg = o;
    if(!oc_streq(type, "function_call"))
      continue;
    struct answer_call *k = &calls[ncalls++];
    k->name = oc_jv_str(o, "name", NULL);
    k->args = oc_jv_str(o, "arguments", &k->args_len);
    k->args_whole = k->args != NULL;
    k->chunk = -1;
    k->byte = (int64_t)o->offset;
    snprintf(k->path, sizeof(k->path), "/output/%u/arguments", i);
    if(k->args && (!status || oc_streq(status, "completed")))
      check_args(c, req, schemas ? schemas->reg : NULL, k, ncalls - 1);
  }
  if(!oc_streq(status, "failed"))
    check_calls(c, req, calls, ncalls, -1, status);
  if(oc_streq(status, "completed") && ncalls == 0 &&
     (req->format == OC_FORMAT_JSON_SCHEMA || req->format == OC_FORMAT_JSON_OBJECT)) {
    /* the message's output_text parts, joined */
    struct oc_buf text;
    oc_buf_init(&text, OC_CAP_CONTENT);
    const struct oc_jv *content = oc_jv_get(msg, "content");
    for(uint32_t i = 0; content && content->type == OC_JARRAY && i < content->len; i++) {
      size_t tn = 0;
      const char *t = oc_jv_str(&content->u.items[i], "text", &tn);
      if(t && oc_buf_add(&text, t, tn) == OC_ENOMEM)
        c->oom = 1;
    }
    check_format(c, req, schemas ? schemas->reg : NULL, oc_buf_str(&text), text.len, -1, "/output");
    oc_buf_free(&text);
  }
  free(calls);
}

void oc_responses_check_head(struct oc_check *c, const struct oc_request_info *req, int status)
{
  if(status >= 400 && req->api == OC_API_RESPONSES && req->previous_response_id) {
    char act[16];
    snprintf(act, sizeof(act), "HTTP %d", status);
    oc_emit(c, OC_R_RESPONSES_STATELESS,
            OC_AT(.path = "/previous_response_id", .expected = "an answer", .actual = act),
            "the server answers %d to a request that continues an earlier response "
            "(previous_response_id): it keeps no state; clients must send the whole history",
            status);
  }
}
