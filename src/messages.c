/* messages.c — Anthropic's Messages API: its stream and body
 * (messages.h).  Each SSE event is parsed, its event: line compared with
 * its type, validated against its schema and run through the state
 * machine: message_start first, the blocks (started with contiguous
 * indexes, delta'd with deltas of their kind, stopped once, one after
 * another), message_delta and message_stop last.  Texts keep their
 * length and their first bytes only, so that a 50 MB input_json_delta
 * costs no more memory than the text kept for the results.  What the
 * answer holds (tool calls, stop reason, usage) then meets the request's
 * contract, streamed or not. */
#include "config.h"
#include "messages.h"

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

#define OC_CAP_MSG_ID 4096u

/* once-per-stream findings */
enum {
  ONCE_START = 1u << 0,
  ONCE_EVENT_NAME = 1u << 1,
  ONCE_EVENT_UNNAMED = 1u << 2,
  ONCE_INDEX = 1u << 3,
  ONCE_ORDER = 1u << 4,
  ONCE_OVERLAP = 1u << 5,
  ONCE_KIND = 1u << 6,
  ONCE_SIZE = 1u << 7,
  ONCE_AFTER = 1u << 8,
  ONCE_STOP_TWICE = 1u << 9,
  ONCE_BLOCK_STOP = 1u << 10,
  ONCE_TOOL_INPUT = 1u << 11,
  ONCE_DELTA_USAGE = 1u << 12
};

#define EMIT(s, rule, at, ...)                                                             \
  do {                                                                                     \
    const struct oc_at *at_ = (at);                                                        \
    oc_event_log_mark(&(s)->log, at_->chunk);                                              \
    oc_emit((s)->check, (rule), at_, __VA_ARGS__);                                         \
  } while(0)

static int once(struct oc_mstream *s, unsigned bit)
{
  if(s->reported & bit)
    return 0;
  s->reported |= bit;
  return 1;
}

/* The stream offset of a value at jv_offset inside the data of ev (exact
 * for a one-line data field, else the event's start). */
/* ---- texts and blocks ------------------------------------------------------------------- */

static void mtext_add(struct oc_mstream *s, struct oc_mtext *t, const char *p, size_t n)
{
  t->len += n;
  size_t room = t->head.max > t->head.len ? t->head.max - t->head.len : 0;
  size_t sroom = s->rebuilt < s->max_rebuilt ? s->max_rebuilt - s->rebuilt : 0;
  size_t take = n < room ? n : room;
  if(take > sroom)
    take = sroom;
  if(take && oc_buf_add(&t->head, p, take))
    s->check->oom = 1;
  else
    s->rebuilt += take;
}

static enum oc_mblock_kind kind_of(const char *type)
{
  if(oc_streq(type, "text"))
    return OC_MBLOCK_TEXT;
  if(oc_streq(type, "tool_use"))
    return OC_MBLOCK_TOOL_USE;
  if(oc_streq(type, "thinking"))
    return OC_MBLOCK_THINKING;
  return OC_MBLOCK_OTHER;
}

static char *dup_str(struct oc_mstream *s, const struct oc_jv *v)
{
  if(!v || v->type != OC_JSTRING || v->len > OC_CAP_MSG_ID)
    return NULL;
  char *c = oc_strndup(v->u.str, v->len);
  if(!c)
    s->check->oom = 1;
  return c;
}

static void set_buf(struct oc_mstream *s, struct oc_buf *b, const struct oc_jv *v)
{
  oc_buf_reset(b);
  if(v && v->type == OC_JSTRING && oc_buf_add(b, v->u.str, v->len < b->max ? v->len : b->max))
    s->check->oom = 1;
}

/* The block a delta or stop names by its index, or NULL. */
static struct oc_mblock *block_at(struct oc_mstream *s, double index)
{
  if(index >= 0 && index < (double)s->nblocks) {
    struct oc_mblock *b = &s->blocks[(size_t)index];
    if(b->index == index)
      return b;
  }
  for(size_t i = s->nblocks; i-- > 0;)
    if(s->blocks[i].index == index)
      return &s->blocks[i];
  return NULL;
}

static const char *delta_kind_for(enum oc_mblock_kind k)
{
  switch(k) {
  case OC_MBLOCK_TEXT:
    return "text_delta";
  case OC_MBLOCK_TOOL_USE:
    return "input_json_delta";
  case OC_MBLOCK_THINKING:
    return "thinking_delta or signature_delta";
  default:
    return "a delta of the block's kind";
  }
}

/* ---- the answer's contract (streamed and not) --------------------------------------------- */

struct answer_call {
  const char *name;
  long chunk;
  int64_t byte;
  char path[48];
};

/* A tool_use block's input (parsed: in NULL when it is not JSON) against
 * the tool's input_schema. */
static void check_input(struct oc_check *c, const struct oc_request_info *req,
                        struct oc_schema_registry *reg, const struct answer_call *k,
                        const struct oc_jv *in, const char *excerpt)
{
  if(!in || in->type != OC_JOBJECT) {
    oc_emit(c, OC_R_MESSAGES_TOOL_ARGS,
            OC_AT(.chunk = k->chunk, .byte = k->byte, .path = k->path,
                  .expected = "a JSON object", .actual = excerpt && *excerpt ? excerpt : "empty"),
            "tool_use '%s': its input is %s, not a JSON object", k->name ? k->name : "?",
            in ? oc_jv_type_name(in) : "not JSON");
    return;
  }
  const cJSON *params = oc_request_tool_parameters(req, k->name);
  if(!params || !reg)
    return;
  char err[512];
  struct oc_schema *sc = NULL;
  if(oc_schema_compile_rc(reg, params, NULL, 0, &sc, err, sizeof(err)) == OC_ENOMEM)
    c->oom = 1;
  if(!sc)
    return;
  struct oc_schema_result res;
  oc_schema_result_init(&res);
  int v = oc_schema_validate(sc, in, &res);
  if(v == -OC_ETOOBIG)
    oc_check_limit(c, "tool_use '%s': its input could not be validated against the tool's "
                   "input_schema: %s", k->name ? k->name : "?", res.undecided);
  else if(v < 0)
    c->oom = 1;
  else if(v == 0)
    for(size_t e = 0; e < res.count && e < 5; e++)
      oc_emit(c, OC_R_MESSAGES_TOOL_ARGS,
              OC_AT(.chunk = k->chunk, .byte = k->byte, .path = k->path,
                    .expected = res.errors[e].keyword, .actual = res.errors[e].message),
              "tool_use '%s': its input does not match the tool's input_schema at '%s': %s",
              k->name ? k->name : "?", res.errors[e].instance_path, res.errors[e].message);
  oc_schema_result_free(&res);
  oc_schema_free(sc);
}

/* Is s one of the request's stop_sequences? */
static int requested_stop(const struct oc_request_info *req, const char *s)
{
  const cJSON *x;
  if(!req->stop_sequences || !s)
    return 0;
  cJSON_ArrayForEach(x, req->stop_sequences)
    if(cJSON_IsString(x) && strcmp(x->valuestring, s) == 0)
      return 1;
  return 0;
}

/* stop_reason, tool_choice and disable_parallel_tool_use over the calls. */
static void check_answer(struct oc_check *c, const struct oc_request_info *req,
                         const struct answer_call *calls, size_t ncalls, const char *stop_reason,
                         const char *stop_sequence, double output_tokens, long chunk,
                         const char *rpath)
{
  char act[96];
  int cut = oc_streq(stop_reason, "max_tokens");
  if(ncalls > 0 && stop_reason && !cut && strcmp(stop_reason, "tool_use") != 0) {
    snprintf(act, sizeof(act), "%.40s with %zu tool call%s", stop_reason, ncalls,
             ncalls == 1 ? "" : "s");
    oc_emit(c, OC_R_MESSAGES_STOP_REASON,
            OC_AT(.chunk = chunk, .path = rpath, .expected = "tool_use", .actual = act),
            "the answer calls '%s' but its stop_reason is \"%s\": an agent loop stops "
            "instead of running the tool", calls[0].name ? calls[0].name : "?", stop_reason);
  }
  else if(ncalls == 0 && oc_streq(stop_reason, "tool_use"))
    oc_emit(c, OC_R_MESSAGES_STOP_REASON,
            OC_AT(.chunk = chunk, .path = rpath, .expected = "a tool_use block",
                  .actual = "stop_reason tool_use, no tool call"),
            "stop_reason is \"tool_use\" but the answer calls no tool");
  if(req->max_tokens > 0 && !isnan(output_tokens) && output_tokens >= (double)req->max_tokens &&
     oc_streq(stop_reason, "end_turn")) {
    snprintf(act, sizeof(act), "end_turn, %.0f output tokens", output_tokens);
    oc_emit(c, OC_R_MESSAGES_STOP_REASON,
            OC_AT(.chunk = chunk, .path = rpath, .expected = "max_tokens", .actual = act),
            "the answer used all %ld tokens max_tokens allowed, yet its stop_reason is "
            "\"end_turn\": a client takes the cut answer for a whole one", req->max_tokens);
  }
  if(oc_streq(stop_reason, "stop_sequence") && req->body_is_json &&
     !requested_stop(req, stop_sequence))
    oc_emit(c, OC_R_MESSAGES_STOP_REASON,
            OC_AT(.chunk = chunk, .path = rpath, .expected = "one of the request's stop_sequences",
                  .actual = stop_sequence ? stop_sequence : "null"),
            "stop_reason is \"stop_sequence\" but stop_sequence names none the request gave");
  if(stop_reason && !oc_streq(stop_reason, "stop_sequence") && requested_stop(req, stop_sequence))
    oc_emit(c, OC_R_MESSAGES_STOP_REASON,
            OC_AT(.chunk = chunk, .path = rpath, .expected = "stop_sequence", .actual = stop_reason),
            "the answer stopped at the stop sequence \"%s\" but its stop_reason is \"%s\"",
            stop_sequence, stop_reason);
  if(req->ntools > 0 && !cut) {
    snprintf(act, sizeof(act), "%zu tool call%s", ncalls, ncalls == 1 ? "" : "s");
    if(req->tool_choice == OC_TOOL_CHOICE_REQUIRED && ncalls == 0)
      oc_emit(c, OC_R_MESSAGES_TOOL_CHOICE,
              OC_AT(.chunk = chunk, .path = "/content", .expected = "a tool call", .actual = act),
              "tool_choice {\"type\": \"any\"} was asked but the answer calls no tool");
    else if(req->tool_choice == OC_TOOL_CHOICE_NAMED && ncalls == 0)
      oc_emit(c, OC_R_MESSAGES_TOOL_CHOICE,
              OC_AT(.chunk = chunk, .path = "/content", .expected = req->named_tool,
                    .actual = act),
              "tool_choice names '%s' but the answer calls no tool", req->named_tool);
    else if(req->tool_choice == OC_TOOL_CHOICE_NONE && ncalls > 0)
      oc_emit(c, OC_R_MESSAGES_TOOL_CHOICE,
              OC_AT(.chunk = calls[0].chunk, .byte = calls[0].byte, .path = calls[0].path,
                    .expected = "no tool call", .actual = act),
              "tool_choice {\"type\": \"none\"} was asked but the answer calls '%s'",
              calls[0].name ? calls[0].name : "?");
  }
  for(size_t i = 0; i < ncalls; i++) {
    const struct answer_call *k = &calls[i];
    if(req->tool_choice == OC_TOOL_CHOICE_NAMED && !oc_streq(k->name, req->named_tool))
      oc_emit(c, OC_R_MESSAGES_TOOL_CHOICE,
              OC_AT(.chunk = k->chunk, .byte = k->byte, .path = k->path,
                    .expected = req->named_tool, .actual = k->name ? k->name : "no name"),
              "tool_choice names '%s' but the answer calls '%s'", req->named_tool,
              k->name ? k->name : "?");
    else if(req->body_is_json && !oc_request_has_tool(req, k->name))
      oc_emit(c, OC_R_MESSAGES_TOOL_CHOICE,
              OC_AT(.chunk = k->chunk, .byte = k->byte, .path = k->path,
                    .expected = "a tool the request offered",
                    .actual = k->name ? k->name : "no name"),
              "the answer calls '%s', which the request did not offer", k->name ? k->name : "?");
  }
  if(req->parallel_tool_calls == 0 && ncalls > 1) {
    snprintf(act, sizeof(act), "%zu tool calls", ncalls);
    oc_emit(c, OC_R_MESSAGES_PARALLEL,
            OC_AT(.chunk = calls[1].chunk, .byte = calls[1].byte, .path = calls[1].path,
                  .expected = "at most one tool call", .actual = act),
            "disable_parallel_tool_use was asked but the answer makes %zu tool calls", ncalls);
  }
}

/* ---- one event ---------------------------------------------------------------------------- */

/* The prompt tokens a cache held (cache_read_input_tokens) or filled
 * (cache_creation_input_tokens): input_tokens leaves them out, so the
 * answer's whole input is the three together (the count contract,
 * token_count.c).  The last value said wins, as for input_tokens. */
static void read_cache_usage(struct oc_mstream *s, const struct oc_jv *usage)
{
  const struct oc_jv *r = oc_jv_get(usage, "cache_read_input_tokens");
  const struct oc_jv *c = oc_jv_get(usage, "cache_creation_input_tokens");
  if(oc_jv_is_integer(r))
    s->cache_read_tokens = r->u.num;
  if(oc_jv_is_integer(c))
    s->cache_creation_tokens = c->u.num;
}

static void check_usage_field(struct oc_mstream *s, const struct oc_sse_event *ev, long n,
                              const struct oc_jv *u, const char *key, const char *path,
                              double *out)
{
  const struct oc_jv *v = u && u->type == OC_JOBJECT ? oc_jv_get(u, key) : NULL;
  if(oc_jv_is_integer(v)) {
    *out = v->u.num;
    return;
  }
  char pp[64];
  snprintf(pp, sizeof(pp), "%s/%s", path, key);
  EMIT(s, OC_R_MESSAGES_USAGE,
       OC_AT(.chunk = n, .byte = (int64_t)ev->first_byte, .path = u ? pp : path,
             .expected = u ? "an integer" : "a usage object",
             .actual = oc_jv_type_name(u && u->type == OC_JOBJECT ? v : u)),
       "event %ld: %s lacks an integer %s, which clients read (a proxy without it crashed "
       "Claude Code)", n, path, key);
}

static void on_start(struct oc_mstream *s, const struct oc_sse_event *ev, long n,
                     const struct oc_jv *root)
{
  if(s->start_at) {
    EMIT(s, OC_R_MESSAGES_START,
         OC_AT(.chunk = n, .byte = (int64_t)ev->first_byte, .path = "/type",
               .expected = "one message_start", .actual = "a second message_start"),
         "event %ld is a second message_start (the first was event %ld)", n, s->start_at);
    return;
  }
  s->start_at = n;
  const struct oc_jv *m = oc_jv_get(root, "message");
  if(!m || m->type != OC_JOBJECT)
    return; /* the schema says so */
  set_buf(s, &s->msg_id, oc_jv_get(m, "id"));
  set_buf(s, &s->model, oc_jv_get(m, "model"));
  const struct oc_jv *content = oc_jv_get(m, "content");
  if(content && content->type == OC_JARRAY && content->len > 0)
    EMIT(s, OC_R_MESSAGES_START,
         OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, content->offset), .path = "/message/content",
               .expected = "[]", .actual = "a non-empty array"),
         "message_start carries %u content blocks: the SDKs build the blocks from "
         "content_block_start and would hold them twice", content->len);
  check_usage_field(s, ev, n, oc_jv_get(m, "usage"), "input_tokens", "/message/usage",
                    &s->input_tokens);
  read_cache_usage(s, oc_jv_get(m, "usage"));
}

static void on_block_start(struct oc_mstream *s, const struct oc_sse_event *ev, long n,
                           const struct oc_jv *root)
{
  const struct oc_jv *iv = oc_jv_get(root, "index");
  const struct oc_jv *cb = oc_jv_get(root, "content_block");
  if(!oc_jv_is_integer(iv) || !cb || cb->type != OC_JOBJECT)
    return; /* the schema says so */
  double index = iv->u.num;
  if(s->nblocks >= OC_MSG_MAX_BLOCKS) {
    if(once(s, ONCE_SIZE))
      EMIT(s, OC_R_MESSAGES_SIZE,
           OC_AT(.chunk = n, .byte = (int64_t)ev->first_byte, .path = "/index",
                 .expected = "at most 1024 content blocks", .actual = "more"),
           "event %ld starts a content block past oacheck's cap of %d; the rest are not read",
           n, OC_MSG_MAX_BLOCKS);
    return;
  }
  struct oc_mblock *prev = block_at(s, index);
  if(prev) {
    if(once(s, ONCE_INDEX))
      EMIT(s, OC_R_MESSAGES_BLOCK_INDEX,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, iv->offset), .path = "/index",
                 .expected = "a new index", .actual = "an index already started"),
           "event %ld starts block %.0f again (it was started at event %ld)", n, index,
           prev->started_at);
    return;
  }
  if(index != (double)s->nblocks && once(s, ONCE_INDEX)) {
    char exp[32], act[32];
    snprintf(exp, sizeof(exp), "%zu", s->nblocks);
    snprintf(act, sizeof(act), "%.0f", index);
    EMIT(s, OC_R_MESSAGES_BLOCK_INDEX,
         OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, iv->offset), .path = "/index", .expected = exp,
               .actual = act),
         "event %ld starts block %s where %s was next: the Python SDK raises IndexError and "
         "messages.stream() loses a tool's input", n, act, exp);
  }
  if(s->open > 0 && once(s, ONCE_OVERLAP))
    EMIT(s, OC_R_MESSAGES_BLOCK_OVERLAP,
         OC_AT(.chunk = n, .byte = (int64_t)ev->first_byte, .expected = "the open block stopped",
               .actual = "a new block started"),
         "event %ld starts block %.0f while %ld block%s still open", n, index, s->open,
         s->open == 1 ? " is" : "s are");
  struct oc_mblock *d = oc_array_grow(s->blocks, &s->ablocks, s->nblocks + 1, sizeof(*d));
  if(!d) {
    s->check->oom = 1;
    return;
  }
  s->blocks = d;
  struct oc_mblock *b = &s->blocks[s->nblocks++];
  memset(b, 0, sizeof(*b));
  oc_buf_init(&b->text.head, OC_CAP_CONTENT);
  b->index = index;
  b->started_at = n;
  b->start_byte = (int64_t)ev->first_byte;
  s->open++;
  const struct oc_jv *tv = oc_jv_get(cb, "type");
  b->type = dup_str(s, tv);
  b->kind = kind_of(b->type);
  size_t tn = 0;
  const char *t;
  switch(b->kind) {
  case OC_MBLOCK_TEXT:
    if((t = oc_jv_str(cb, "text", &tn)) != NULL)
      mtext_add(s, &b->text, t, tn);
    break;
  case OC_MBLOCK_THINKING:
    if((t = oc_jv_str(cb, "thinking", &tn)) != NULL)
      mtext_add(s, &b->text, t, tn);
    if(oc_jv_str(cb, "signature", &tn) && tn > 0)
      b->signed_ = 1;
    break;
  case OC_MBLOCK_TOOL_USE: {
    b->id = dup_str(s, oc_jv_get(cb, "id"));
    b->name = dup_str(s, oc_jv_get(cb, "name"));
    const struct oc_jv *in = oc_jv_get(cb, "input");
    b->has_input = in != NULL;
    if(!in && once(s, ONCE_TOOL_INPUT))
      EMIT(s, OC_R_MESSAGES_TOOL_INPUT,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, cb->offset), .path = "/content_block/input",
                 .expected = "{}", .actual = "absent"),
           "event %ld starts tool_use '%s' without input: messages.stream() hands the "
           "application a tool call with no input when no argument delta follows", n,
           b->name ? b->name : "?");
    else if(in && !(in->type == OC_JOBJECT && in->len == 0))
      /* a start carrying the whole input: the deltas (if any) are not it */
      b->has_input = 2;
    break;
  }
  default:
    break;
  }
}

static void on_block_delta(struct oc_mstream *s, const struct oc_sse_event *ev, long n,
                           const struct oc_jv *root, int stop)
{
  const struct oc_jv *iv = oc_jv_get(root, "index");
  if(!oc_jv_is_integer(iv))
    return; /* the schema says so */
  struct oc_mblock *b = block_at(s, iv->u.num);
  const char *what = stop ? "content_block_stop" : "content_block_delta";
  if(!b) {
    if(s->nblocks >= OC_MSG_MAX_BLOCKS && (s->reported & ONCE_SIZE))
      return; /* past the cap: blocks not kept */
    if(once(s, ONCE_ORDER))
      EMIT(s, OC_R_MESSAGES_BLOCK_ORDER,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, iv->offset), .path = "/index",
                 .expected = "a started block", .actual = "a block never started"),
           "event %ld: a %s for block %.0f, which was never started: the SDKs drop it and "
           "Claude Code asks again without streaming", n, what, iv->u.num);
    return;
  }
  if(b->stopped_at) {
    if(stop) {
      if(once(s, ONCE_STOP_TWICE))
        EMIT(s, OC_R_MESSAGES_BLOCK_STOP,
             OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, iv->offset), .path = "/index",
                   .expected = "one content_block_stop", .actual = "a second one"),
             "event %ld stops block %.0f again (it was stopped at event %ld)", n, b->index,
             b->stopped_at);
    }
    else if(once(s, ONCE_ORDER))
      EMIT(s, OC_R_MESSAGES_BLOCK_ORDER,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, iv->offset), .path = "/index",
                 .expected = "an open block", .actual = "a stopped block"),
           "event %ld: a content_block_delta for block %.0f, stopped at event %ld", n,
           b->index, b->stopped_at);
    return;
  }
  if(stop) {
    b->stopped_at = n;
    s->open--;
    return;
  }
  const struct oc_jv *d = oc_jv_get(root, "delta");
  const char *dt = oc_jv_str(d, "type", NULL);
  if(!dt)
    return; /* the schema says so */
  const char *key = NULL;
  int ok = 0;
  if(strcmp(dt, "text_delta") == 0) {
    key = "text";
    ok = b->kind == OC_MBLOCK_TEXT;
  }
  else if(strcmp(dt, "input_json_delta") == 0) {
    key = "partial_json";
    ok = b->kind == OC_MBLOCK_TOOL_USE;
  }
  else if(strcmp(dt, "thinking_delta") == 0) {
    key = "thinking";
    ok = b->kind == OC_MBLOCK_THINKING;
  }
  else if(strcmp(dt, "signature_delta") == 0) {
    ok = b->kind == OC_MBLOCK_THINKING;
    if(ok)
      b->signed_ = 1;
  }
  else
    ok = b->kind == OC_MBLOCK_OTHER; /* a delta of a kind oacheck does not know */
  if(!ok) {
    if(once(s, ONCE_KIND))
      EMIT(s, OC_R_MESSAGES_DELTA_KIND,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, d->offset), .path = "/delta/type",
                 .expected = delta_kind_for(b->kind), .actual = dt),
           "event %ld: a %s for block %.0f, a %s block", n, dt, b->index,
           b->type ? b->type : "untyped");
    return;
  }
  size_t tn = 0;
  const char *t = key ? oc_jv_str(d, key, &tn) : NULL;
  if(t) {
    mtext_add(s, &b->text, t, tn);
    if(oc_timing_content(&s->timing, ev->t_last_ns, n))
      s->check->oom = 1;
  }
}

static void on_message_delta(struct oc_mstream *s, const struct oc_sse_event *ev, long n,
                             const struct oc_jv *root)
{
  if(s->delta_at) {
    EMIT(s, OC_R_MESSAGES_STOP,
         OC_AT(.chunk = n, .byte = (int64_t)ev->first_byte, .path = "/type",
               .expected = "one message_delta", .actual = "a second message_delta"),
         "event %ld is a second message_delta (the first was event %ld)", n, s->delta_at);
    return;
  }
  s->delta_at = n;
  if(s->open > 0 && once(s, ONCE_BLOCK_STOP)) {
    for(size_t i = 0; i < s->nblocks; i++)
      if(!s->blocks[i].stopped_at) {
        EMIT(s, OC_R_MESSAGES_BLOCK_STOP,
             OC_AT(.chunk = n, .byte = (int64_t)ev->first_byte,
                   .expected = "content_block_stop", .actual = "message_delta"),
             "message_delta (event %ld) arrives while block %.0f (started at event %ld) was "
             "never stopped", n, s->blocks[i].index, s->blocks[i].started_at);
        break;
      }
  }
  const struct oc_jv *d = oc_jv_get(root, "delta");
  const struct oc_jv *sr = oc_jv_get(d, "stop_reason");
  if(!sr || sr->type != OC_JSTRING)
    EMIT(s, OC_R_MESSAGES_STOP,
         OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, (sr ? sr : root)->offset),
               .path = "/delta/stop_reason", .expected = "a stop reason",
               .actual = oc_jv_type_name(sr)),
         "message_delta (event %ld) carries no stop_reason: clients cannot tell why the "
         "answer ended", n);
  else
    set_buf(s, &s->stop_reason, sr);
  const struct oc_jv *ss = oc_jv_get(d, "stop_sequence");
  if(ss && ss->type == OC_JSTRING) {
    set_buf(s, &s->stop_sequence, ss);
    s->have_stop_sequence = 1;
  }
  check_usage_field(s, ev, n, oc_jv_get(root, "usage"), "output_tokens", "/usage",
                    &s->output_tokens);
  const struct oc_jv *in = oc_jv_get(oc_jv_get(root, "usage"), "input_tokens");
  if(oc_jv_is_integer(in))
    s->input_tokens = in->u.num;
  read_cache_usage(s, oc_jv_get(root, "usage"));
}

/* An error event: Anthropic's {"type":"error","error":{type, message}}. */
static void on_error(struct oc_mstream *s, const struct oc_sse_event *ev, long n,
                     const struct oc_jv *root)
{
  if(!s->error_at) {
    s->error_at = n;
    cJSON_Delete(s->error);
    if(!(s->error = oc_jv_to_cjson(root)))
      s->check->oom = 1;
  }
  const struct oc_jv *err = oc_jv_get(root, "error");
  if(!oc_streq(oc_jv_str(root, "type", NULL), "error") || !err || err->type != OC_JOBJECT ||
     !oc_jv_str(err, "type", NULL) || !oc_jv_str(err, "message", NULL)) {
    size_t mlen = 0;
    const char *msg = oc_jv_str(err && err->type == OC_JOBJECT ? err : root, "message", &mlen);
    EMIT(s, OC_R_MESSAGES_ERROR_SHAPE,
         OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, root->offset), .path = "",
               .expected = "{\"type\": \"error\", \"error\": {\"type\", \"message\"}}",
               .actual = "another shape"),
         "event %ld is an error in another shape than Anthropic's (\"%.*s\"): the SDK cannot "
         "raise its typed error and the message is lost", n, (int)(mlen < 200 ? mlen : 200),
         msg ? msg : "");
  }
}

static void on_event(void *ud, const struct oc_sse_event *ev)
{
  struct oc_mstream *s = ud;
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
  if(s->clients) /* every event, also past message_stop: each client reads on or not */
    oc_clients_event(s->clients, ev, rc ? NULL : s->doc.root, 0, &s->sse);
  if(s->stop_at) {
    s->after_stop++;
    if(once(s, ONCE_AFTER))
      EMIT(s, OC_R_MESSAGES_STOP,
           OC_AT(.chunk = n, .byte = (int64_t)ev->first_byte, .expected = "end of stream",
                 .actual = "another event"),
           "event %ld arrives after message_stop (event %ld)", n, s->stop_at);
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
  const char *etype = oc_jv_str(root, "type", NULL);
  int named = !(ev->type_len == 7 && memcmp(ev->type, "message", 7) == 0);
  int name_error = named && ev->type_len == 5 && memcmp(ev->type, "error", 5) == 0;
  /* an error: a typed event, an 'event: error' with another shape
   * (llama-server's), or an untyped {"error": …} */
  if(oc_streq(etype, "error") || name_error ||
     (!etype && oc_jv_get(root, "error") && !oc_jv_is_null(oc_jv_get(root, "error")))) {
    on_error(s, ev, n, root);
    return;
  }
  /* the event: line names the data's type */
  if(etype && named && (strlen(etype) != ev->type_len || memcmp(etype, ev->type, ev->type_len) != 0)) {
    if(once(s, ONCE_EVENT_NAME)) {
      char act[80];
      snprintf(act, sizeof(act), "%.*s", (int)(ev->type_len < 60 ? ev->type_len : 60), ev->type);
      EMIT(s, OC_R_MESSAGES_EVENT_TYPE,
           OC_AT(.chunk = n, .byte = (int64_t)ev->first_byte, .expected = etype, .actual = act),
           "event %ld's 'event:' line says '%s' but its data is a %s: the official SDK "
           "dispatches on the name", n, act, etype);
    }
  }
  else if(etype && !named && once(s, ONCE_EVENT_UNNAMED))
    EMIT(s, OC_R_MESSAGES_EVENT_TYPE,
         OC_AT(.chunk = n, .byte = (int64_t)ev->first_byte, .expected = etype,
               .actual = "no event: line"),
         "event %ld (%s) has no 'event:' line: the official SDK skips it", n, etype);
  oc_event_schema_check(s->event_schema, s->schemas, "messages/stream-event.json", OC_R_MESSAGES_EVENT_SCHEMA, s->check,
                        &s->log, &s->schema_seen, &s->shapes, ev, n, root);
  if(!etype)
    return; /* the schema said so */
  if(strcmp(etype, "ping") == 0)
    return;
  if(!s->start_at && strcmp(etype, "message_start") != 0 && once(s, ONCE_START))
    EMIT(s, OC_R_MESSAGES_START,
         OC_AT(.chunk = n, .byte = (int64_t)ev->first_byte, .path = "/type",
               .expected = "message_start", .actual = etype),
         "event %ld (%s) comes before message_start: messages.stream() throws", n, etype);
  if(strcmp(etype, "message_start") == 0)
    on_start(s, ev, n, root);
  else if(strcmp(etype, "content_block_start") == 0)
    on_block_start(s, ev, n, root);
  else if(strcmp(etype, "content_block_delta") == 0)
    on_block_delta(s, ev, n, root, 0);
  else if(strcmp(etype, "content_block_stop") == 0)
    on_block_delta(s, ev, n, root, 1);
  else if(strcmp(etype, "message_delta") == 0)
    on_message_delta(s, ev, n, root);
  else if(strcmp(etype, "message_stop") == 0) {
    s->stop_at = n;
    if(!s->delta_at)
      EMIT(s, OC_R_MESSAGES_STOP,
           OC_AT(.chunk = n, .byte = (int64_t)ev->first_byte, .expected = "message_delta first",
                 .actual = "message_stop"),
           "message_stop (event %ld) comes without a message_delta: the stop reason and the "
           "output usage are lost", n);
  }
}

static void on_issue(void *ud, const struct oc_sse_issue *is)
{
  struct oc_mstream *s = ud;
  long n = s->events + 1; /* the event being read */
  struct oc_sse_finding f;
  if(oc_sse_issue_finding(is, n, s->check->partial, &s->truncated, &f))
    EMIT(s, f.rule, OC_AT(.chunk = n, .byte = f.byte, .expected = f.expected, .actual = f.actual),
         "%s", f.message);
}

/* ---- lifecycle ---------------------------------------------------------------------------- */

void oc_mstream_init(struct oc_mstream *s, const struct oc_request_info *req,
                     struct oc_check *check, const struct oc_schemas *schemas, uint64_t t_sent,
                     int timing_recorded, int keep_events)
{
  memset(s, 0, offsetof(struct oc_mstream, log));
  oc_event_log_start(&s->log, keep_events);
  memset(&s->timing, 0, sizeof(s->timing));
  s->req = req;
  s->check = check;
  s->schemas = schemas;
  s->event_schema = schemas ? schemas->messages_event : NULL;
  oc_shape_memo_init(&s->shapes, &oc_messages_shape_keys);
  struct oc_sse_callbacks cb = { on_event, on_issue, NULL };
  oc_sse_init(&s->sse, &cb, s);
  oc_jdoc_init(&s->doc);
  oc_buf_init(&s->msg_id, OC_CAP_MSG_ID);
  oc_buf_init(&s->model, OC_CAP_MSG_ID);
  oc_buf_init(&s->stop_reason, 64);
  oc_buf_init(&s->stop_sequence, OC_CAP_MSG_ID);
  s->input_tokens = NAN;
  s->output_tokens = NAN;
  s->cache_read_tokens = NAN;
  s->cache_creation_tokens = NAN;
  s->max_rebuilt = OC_CAP_STREAM_TEXT;
  s->timing.recorded = timing_recorded;
  s->timing.t_sent = t_sent;
  s->timing.max_gap_chunk = -1;
}

int oc_mstream_push(struct oc_mstream *s, const void *buf, size_t len, uint64_t t_ns)
{
  if(!s->timing.t_first_byte && len)
    s->timing.t_first_byte = t_ns ? t_ns : 1;
  s->body_bytes += len;
  return oc_sse_push(&s->sse, buf, len, t_ns);
}

/* The answer the stream built, through the contract. */
static void stream_contract(struct oc_mstream *s)
{
  struct answer_call *calls = NULL;
  size_t ncalls = 0;
  for(size_t i = 0; i < s->nblocks; i++)
    ncalls += s->blocks[i].kind == OC_MBLOCK_TOOL_USE;
  if(ncalls && !(calls = calloc(ncalls, sizeof(*calls)))) {
    s->check->oom = 1;
    return;
  }
  const char *reason = s->stop_reason.len ? oc_buf_str(&s->stop_reason) : NULL;
  struct oc_schema_registry *reg = s->schemas ? s->schemas->reg : NULL;
  size_t k = 0;
  for(size_t i = 0; i < s->nblocks; i++) {
    const struct oc_mblock *b = &s->blocks[i];
    if(b->kind == OC_MBLOCK_THINKING && !b->signed_)
      EMIT(s, OC_R_MESSAGES_THINKING_SIGNATURE,
           OC_AT(.chunk = b->stopped_at ? b->stopped_at : b->started_at, .byte = b->start_byte,
                 .expected = "a signature_delta", .actual = "none"),
           "thinking block %.0f carries no signature: a client sending it back to Anthropic "
           "is refused", b->index);
    if(b->kind != OC_MBLOCK_TOOL_USE)
      continue;
    struct answer_call *c = &calls[k++];
    c->name = b->name;
    c->chunk = b->started_at;
    c->byte = b->start_byte;
    snprintf(c->path, sizeof(c->path), "/content_block");
    if(oc_streq(reason, "max_tokens") || b->text.head.len != b->text.len)
      continue; /* cut, or more than oacheck keeps */
    if(b->has_input == 2 && b->text.len == 0)
      continue; /* the start carried the whole input */
    struct oc_jdoc doc;
    struct oc_jerr jerr;
    oc_jdoc_init(&doc);
    /* no delta: the input is the start's {} (or nothing, said by TOOL-INPUT) */
    const char *js = b->text.len ? oc_buf_str(&b->text.head) : "{}";
    size_t jn = b->text.len ? b->text.head.len : 2;
    int rc = oc_jdoc_parse(&doc, js, jn, &jerr);
    if(rc == OC_ENOMEM)
      s->check->oom = 1;
    else {
      char ex[96];
      snprintf(ex, sizeof(ex), "%.*s%s", (int)(jn < 60 ? jn : 60), js, jn > 60 ? "…" : "");
      check_input(s->check, s->req, reg, c, rc ? NULL : doc.root, ex);
    }
    oc_jdoc_free(&doc);
  }
  check_answer(s->check, s->req, calls, ncalls, reason,
               s->have_stop_sequence ? oc_buf_str(&s->stop_sequence) : NULL, s->output_tokens,
               s->delta_at, "/delta/stop_reason");
  free(calls);
}

void oc_mstream_finish(struct oc_mstream *s, uint64_t t_ns)
{
  if(s->finished)
    return;
  s->finished = 1;
  oc_sse_finish(&s->sse, t_ns);
  s->timing.t_end = t_ns;
  if(s->check->partial && !s->stop_at)
    return; /* a capture cut by whoever made it: its end is not the stream's */
  if(s->error_at && !s->stop_at)
    return; /* an error ends a Messages stream */
  if(!s->start_at && once(s, ONCE_START))
    EMIT(s, OC_R_MESSAGES_START,
         OC_AT(.chunk = s->events ? s->events : -1, .byte = (int64_t)s->body_bytes,
               .expected = "message_start", .actual = "none"),
         "the stream has no message_start");
  if(!s->stop_at) {
    EMIT(s, OC_R_MESSAGES_STOP,
         OC_AT(.chunk = s->events ? s->events : -1, .byte = (int64_t)s->body_bytes,
               .expected = "message_delta, then message_stop", .actual = "end of stream"),
         "the stream ends after %ld event%s without message_stop: the SDKs wait for an end "
         "that never comes, or throw", s->events, s->events == 1 ? "" : "s");
    if(s->open > 0 && once(s, ONCE_BLOCK_STOP))
      for(size_t i = 0; i < s->nblocks; i++)
        if(!s->blocks[i].stopped_at) {
          EMIT(s, OC_R_MESSAGES_BLOCK_STOP,
               OC_AT(.chunk = s->events, .byte = (int64_t)s->body_bytes,
                     .expected = "content_block_stop", .actual = "end of stream"),
               "block %.0f was started at event %ld and never stopped", s->blocks[i].index,
               s->blocks[i].started_at);
          break;
        }
    return;
  }
  stream_contract(s);
}

void oc_mstream_free(struct oc_mstream *s)
{
  oc_sse_free(&s->sse);
  oc_jdoc_free(&s->doc);
  for(size_t i = 0; i < s->nblocks; i++) {
    free(s->blocks[i].type);
    free(s->blocks[i].id);
    free(s->blocks[i].name);
    oc_buf_free(&s->blocks[i].text.head);
  }
  free(s->blocks);
  oc_buf_free(&s->msg_id);
  oc_buf_free(&s->model);
  oc_buf_free(&s->stop_reason);
  oc_buf_free(&s->stop_sequence);
  cJSON_Delete(s->error);
  oc_event_log_free(&s->log);
  free(s->timing.gaps_us);
  memset(s, 0, offsetof(struct oc_mstream, log));
}

/* ---- output ------------------------------------------------------------------------------- */

static void put_text(int *oom, cJSON *o, const char *key, const struct oc_mtext *t, size_t *left,
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

cJSON *oc_mstream_message(const struct oc_mstream *s)
{
  int oom = 0;
  cJSON *o = cJSON_CreateObject();
  oc_json_put_str(&oom, o, "id", oc_buf_str(&s->msg_id));
  oc_json_put_str(&oom, o, "type", "message");
  oc_json_put_str(&oom, o, "role", "assistant");
  oc_json_put_str(&oom, o, "model", oc_buf_str(&s->model));
  cJSON *content = oc_json_put(&oom, o, "content", cJSON_CreateArray());
  size_t left = OC_CAP_RESULT_MESSAGE;
  uint64_t total = 0;
  for(size_t i = 0; !oom && i < s->nblocks; i++) {
    const struct oc_mblock *b = &s->blocks[i];
    cJSON *x = oc_json_put(&oom, content, NULL, cJSON_CreateObject());
    oc_json_put_str(&oom, x, "type", b->type ? b->type : "?");
    if(b->kind == OC_MBLOCK_TEXT)
      put_text(&oom, x, "text", &b->text, &left, &total);
    else if(b->kind == OC_MBLOCK_THINKING) {
      put_text(&oom, x, "thinking", &b->text, &left, &total);
      oc_json_put(&oom, x, "signed", cJSON_CreateBool(b->signed_));
    }
    else if(b->kind == OC_MBLOCK_TOOL_USE) {
      if(b->id)
        oc_json_put_str(&oom, x, "id", b->id);
      if(b->name)
        oc_json_put_str(&oom, x, "name", b->name);
      /* the input as JSON when it parses whole, else its text */
      cJSON *in = b->text.len && b->text.head.len == b->text.len
                ? oc_json_parse(oc_buf_str(&b->text.head), b->text.head.len, NULL) : NULL;
      if(in || !b->text.len)
        oc_json_put(&oom, x, "input", in ? in : cJSON_CreateObject());
      else
        put_text(&oom, x, "input_json", &b->text, &left, &total);
    }
  }
  if(s->stop_reason.len)
    oc_json_put_str(&oom, o, "stop_reason", oc_buf_str(&s->stop_reason));
  else
    oc_json_put(&oom, o, "stop_reason", cJSON_CreateNull());
  if(s->have_stop_sequence)
    oc_json_put_str(&oom, o, "stop_sequence", oc_buf_str(&s->stop_sequence));
  else
    oc_json_put(&oom, o, "stop_sequence", cJSON_CreateNull());
  if(!isnan(s->input_tokens) || !isnan(s->output_tokens)) {
    cJSON *u = oc_json_put(&oom, o, "usage", cJSON_CreateObject());
    if(!isnan(s->input_tokens))
      oc_json_put(&oom, u, "input_tokens", cJSON_CreateNumber(s->input_tokens));
    if(!isnan(s->output_tokens))
      oc_json_put(&oom, u, "output_tokens", cJSON_CreateNumber(s->output_tokens));
    if(!isnan(s->cache_read_tokens))
      oc_json_put(&oom, u, "cache_read_input_tokens", cJSON_CreateNumber(s->cache_read_tokens));
    if(!isnan(s->cache_creation_tokens))
      oc_json_put(&oom, u, "cache_creation_input_tokens",
                  cJSON_CreateNumber(s->cache_creation_tokens));
  }
  if(s->error)
    oc_json_put(&oom, o, "error", cJSON_Duplicate(s->error, 1));
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

cJSON *oc_mstream_events_json(const struct oc_mstream *s, int *truncated)
{
  return oc_event_log_json(&s->log, &s->timing, s->events, truncated);
}

cJSON *oc_mstream_timing_json(const struct oc_mstream *s)
{
  return oc_timing_json(&s->timing, s->events);
}

/* ---- a non-streamed Message, an error body, the request ------------------------------------ */

static void schema_body(struct oc_check *c, const struct oc_schemas *schemas,
                        const struct oc_schema *sc, const char *rel, const struct oc_jv *root)
{
  if(!sc)
    return;
  struct oc_schema_result res;
  oc_schema_result_init(&res);
  res.max = 20;
  int v = oc_schema_validate(sc, root, &res);
  if(v == -OC_ETOOBIG)
    oc_check_limit(c, "the answer could not be validated against %s: %s", rel, res.undecided);
  else if(v < 0)
    c->oom = 1;
  else if(v == 0)
    for(size_t i = 0; i < res.count; i++) {
      const struct oc_schema_error *e = &res.errors[i];
      int sev = oc_schemas_error_severity(schemas, c, rel, e);
      oc_emit(c, OC_R_MESSAGES_SCHEMA,
              OC_AT(.byte = (int64_t)e->offset, .path = e->instance_path, .expected = e->keyword,
                    .actual = e->message, .severity = sev),
              "%s: at '%s': %s", rel, e->instance_path, e->message);
    }
  oc_schema_result_free(&res);
}

void oc_messages_check_body(struct oc_check *c, const struct oc_request_info *req,
                            const struct oc_schemas *schemas, const struct oc_jv *root)
{
  if(req->api == OC_API_MESSAGES_COUNT_TOKENS) {
    const struct oc_jv *n = oc_jv_get(root, "input_tokens");
    if(!oc_jv_is_integer(n))
      oc_emit(c, OC_R_MESSAGES_SCHEMA,
              OC_AT(.byte = (int64_t)(n ? n : root)->offset, .path = "/input_tokens",
                    .expected = "an integer", .actual = oc_jv_type_name(n)),
              "the count_tokens answer has no integer input_tokens: Claude Code's "
              "auto-compaction cannot tell how full the context is");
    return;
  }
  schema_body(c, schemas, schemas ? schemas->messages_message : NULL, "messages/message.json",
              root);
  const struct oc_jv *u = oc_jv_get(root, "usage");
  double out_tokens = NAN;
  if(!u || u->type != OC_JOBJECT || !oc_jv_is_integer(oc_jv_get(u, "input_tokens")) ||
     !oc_jv_is_integer(oc_jv_get(u, "output_tokens")))
    oc_emit(c, OC_R_MESSAGES_USAGE,
            OC_AT(.byte = (int64_t)(u ? u : root)->offset, .path = "/usage",
                  .expected = "integer input_tokens and output_tokens",
                  .actual = u && u->type == OC_JOBJECT ? "missing or not integers"
                                                       : oc_jv_type_name(u)),
            "the Message's usage lacks integer input_tokens or output_tokens");
  else
    out_tokens = oc_jv_get(u, "output_tokens")->u.num;
  const struct oc_jv *content = oc_jv_get(root, "content");
  if(!content || content->type != OC_JARRAY)
    return; /* the schema says so */
  uint32_t nc = content->len < OC_MSG_MAX_BLOCKS ? content->len : OC_MSG_MAX_BLOCKS;
  if(content->len > OC_MSG_MAX_BLOCKS)
    oc_emit(c, OC_R_MESSAGES_SIZE,
            OC_AT(.byte = (int64_t)content->offset, .path = "/content",
                  .expected = "at most 1024 content blocks", .actual = "more"),
            "the Message carries %u content blocks; oacheck reads the first %d", content->len,
            OC_MSG_MAX_BLOCKS);
  struct answer_call *calls = calloc(nc ? nc : 1, sizeof(*calls));
  if(!calls) {
    c->oom = 1;
    return;
  }
  const char *reason = oc_jv_str(root, "stop_reason", NULL);
  size_t ncalls = 0;
  for(uint32_t i = 0; i < nc; i++) {
    const struct oc_jv *b = &content->u.items[i];
    const char *type = oc_jv_str(b, "type", NULL);
    char path[48];
    if(oc_streq(type, "thinking") && !oc_jv_str(b, "signature", NULL)) {
      snprintf(path, sizeof(path), "/content/%u/signature", i);
      oc_emit(c, OC_R_MESSAGES_THINKING_SIGNATURE,
              OC_AT(.byte = (int64_t)b->offset, .path = path, .expected = "a signature",
                    .actual = "none"),
              "thinking block %u carries no signature: a client sending it back to Anthropic "
              "is refused", i);
    }
    if(!oc_streq(type, "tool_use"))
      continue;
    struct answer_call *k = &calls[ncalls++];
    k->name = oc_jv_str(b, "name", NULL);
    k->chunk = -1;
    k->byte = (int64_t)b->offset;
    snprintf(k->path, sizeof(k->path), "/content/%u/input", i);
    const struct oc_jv *in = oc_jv_get(b, "input");
    if(!in)
      oc_emit(c, OC_R_MESSAGES_TOOL_INPUT,
              OC_AT(.byte = k->byte, .path = k->path, .expected = "an object", .actual = "absent"),
              "tool_use block %u ('%s') has no input", i, k->name ? k->name : "?");
    else if(!oc_streq(reason, "max_tokens"))
      check_input(c, req, schemas ? schemas->reg : NULL, k, in, oc_jv_type_name(in));
  }
  const struct oc_jv *ss = oc_jv_get(root, "stop_sequence");
  check_answer(c, req, calls, ncalls, reason,
               ss && ss->type == OC_JSTRING ? ss->u.str : NULL, out_tokens, -1, "/stop_reason");
  free(calls);
}

void oc_messages_check_error_body(struct oc_check *c, int status, const struct oc_jv *root)
{
  const struct oc_jv *err = root ? oc_jv_get(root, "error") : NULL;
  if(root && oc_streq(oc_jv_str(root, "type", NULL), "error") && err &&
     err->type == OC_JOBJECT && oc_jv_str(err, "type", NULL) && oc_jv_str(err, "message", NULL))
    return;
  size_t mlen = 0;
  const char *msg = err && err->type == OC_JOBJECT ? oc_jv_str(err, "message", &mlen) : NULL;
  const char *actual = !root ? "not JSON"
                     : err && err->type == OC_JOBJECT && !oc_jv_get(root, "type")
                     ? "OpenAI's {\"error\": {…}}" : "another shape";
  oc_emit(c, OC_R_MESSAGES_ERROR_SHAPE,
          OC_AT(.byte = root ? (int64_t)root->offset : 0, .path = "",
                .expected = "{\"type\": \"error\", \"error\": {\"type\", \"message\"}}",
                .actual = actual),
          "the HTTP %d body is not Anthropic's error shape (%s%s%.*s%s): the SDK raises a "
          "generic error without the server's type", status, actual, msg ? ": \"" : "",
          (int)(mlen < 200 ? mlen : 200), msg ? msg : "", msg ? "\"" : "");
}

void oc_messages_check_head(struct oc_check *c, const struct oc_request_info *req, int status)
{
  if(req->api != OC_API_MESSAGES || !req->body_is_json || (status >= 400 && status < 500))
    return;
  char act[16];
  snprintf(act, sizeof(act), "HTTP %d", status);
  if(!req->has_messages)
    oc_emit(c, OC_R_MESSAGES_INVALID_REQUEST,
            OC_AT(.path = "/messages", .expected = "a 4xx", .actual = act),
            "a request without messages is answered %d, not refused with a 4xx", status);
  else if(!oc_json_get(req->body, "max_tokens"))
    oc_emit(c, OC_R_MESSAGES_INVALID_REQUEST,
            OC_AT(.path = "/max_tokens", .expected = "a 4xx", .actual = act,
                  .severity = OC_SEV_WARNING),
            "a request without max_tokens (required by the Messages API) is answered %d: "
            "the server defaulted it, so a client's missing max_tokens goes unnoticed", status);
}
