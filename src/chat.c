/* chat.c — decoding a streamed completion: every SSE event becomes a
 * chunk, every chunk updates the per-choice message a client would
 * rebuild, and the stream-level rules watch the sequence (role first,
 * stable id/model, one finish_reason, [DONE] last, usage placement,
 * tool-call deltas).  At the end the message rules (message.c) run on
 * each rebuilt message.  Every event also goes to the client models
 * (client.h) when the response has them: what real SDKs make of the
 * stream is theirs to say.  The hot path allocates nothing per chunk in
 * steady state: the JSON arena, the identity buffers and the event-log
 * slots are reused. */
#include "config.h"
#include "chat.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "dialect.h"
#include "json.h"
#include "response.h"
#include "schema.h"
#include "sse_issue.h"
#include "typed_events.h"
#include "util.h"

#define OC_CAP_IDENTITY 4096u
#define OC_CAP_GAPS (1u << 20) /* inter-token gaps kept for percentiles */

/* ---- the event log ------------------------------------------------------ */

static void logged_init(struct oc_logged_event *e)
{
  memset(e, 0, sizeof(*e));
  oc_buf_init(&e->type, 256);
  oc_buf_init(&e->data, OC_CAP_LOG_EVENT);
}

static void logged_free(struct oc_logged_event *e)
{
  oc_buf_free(&e->type);
  oc_buf_free(&e->data);
}

/* Returns OC_OK or the buffers' first error (the entry then holds less). */
static int logged_set(struct oc_logged_event *e, const struct oc_sse_event *ev, long n,
                      uint64_t t)
{
  e->n = n;
  e->offset = ev->first_byte;
  e->end = ev->last_byte;
  e->t_ns = t;
  e->pinned = 0;
  oc_buf_reset(&e->type);
  oc_buf_reset(&e->data);
  /* a type past the entry's cap is left out, as before */
  if(!(ev->type_len == 7 && memcmp(ev->type, "message", 7) == 0) && ev->type_len <= 256)
    oc_buf_add(&e->type, ev->type, ev->type_len);
  size_t n_data = ev->data_len < OC_CAP_LOG_EVENT ? ev->data_len : OC_CAP_LOG_EVENT;
  oc_buf_add(&e->data, ev->data, n_data);
  return oc_buf_error(&e->type) ? oc_buf_error(&e->type) : oc_buf_error(&e->data);
}

static int log_pin(struct oc_event_log *log, const struct oc_logged_event *e)
{
  if(log->npinned >= OC_LOG_PINNED)
    return OC_OK;
  struct oc_logged_event *d = oc_array_grow(log->pinned, &log->apinned, log->npinned + 1, sizeof(*d));
  if(!d)
    return OC_ENOMEM;
  log->pinned = d;
  struct oc_logged_event *p = &log->pinned[log->npinned++];
  logged_init(p);
  p->n = e->n;
  p->offset = e->offset;
  p->end = e->end;
  p->t_ns = e->t_ns;
  p->pinned = 1;
  oc_buf_add(&p->type, oc_buf_str(&e->type), e->type.len);
  oc_buf_add(&p->data, oc_buf_str(&e->data), e->data.len);
  int rc = oc_buf_error(&p->type) ? oc_buf_error(&p->type) : oc_buf_error(&p->data);
  if(rc) {
    logged_free(p);
    log->npinned--;
  }
  return rc;
}

/* Returns OC_OK or OC_ENOMEM (the log then misses part of this event). */
static int log_event(struct oc_event_log *log, const struct oc_sse_event *ev, long n, uint64_t t)
{
  if(!log->enabled)
    return OC_OK;
  /* a slot is made ready when first used: most streams fill a few */
  if(log->nhead < OC_LOG_HEAD) {
    logged_init(&log->head[log->nhead]);
    return logged_set(&log->head[log->nhead++], ev, n, t);
  }
  int rc = OC_OK;
  struct oc_logged_event *slot;
  if(log->ntail < OC_LOG_TAIL) {
    /* tail_start stays 0 until the ring is full */
    slot = &log->tail[log->ntail++];
    logged_init(slot);
  }
  else {
    slot = &log->tail[log->tail_start];
    if(slot->pinned)
      rc = log_pin(log, slot); /* evicted but near a finding: keep a copy */
    log->tail_start = (log->tail_start + 1) % OC_LOG_TAIL;
  }
  int rc2 = logged_set(slot, ev, n, t);
  if(n <= log->pin_until)
    slot->pinned = 1;
  return rc ? rc : rc2;
}

/* A finding at event n: keep events n-2..n+2. */
static void log_mark(struct oc_event_log *log, long n)
{
  if(!log->enabled || n < 0)
    return;
  for(size_t i = 0; i < log->ntail; i++) {
    struct oc_logged_event *e = &log->tail[(log->tail_start + i) % OC_LOG_TAIL];
    if(e->n >= n - 2 && e->n <= n)
      e->pinned = 1;
  }
  if(log->pin_until < n + 2)
    log->pin_until = n + 2;
}

static void log_free(struct oc_event_log *log)
{
  /* only the slots used were made ready (log_event) */
  for(size_t i = 0; i < log->nhead; i++)
    logged_free(&log->head[i]);
  for(size_t i = 0; i < log->ntail; i++)
    logged_free(&log->tail[i]);
  for(size_t i = 0; i < log->npinned; i++)
    logged_free(&log->pinned[i]);
  free(log->pinned);
}

/* The log, for other protocols' stream decoders (responses.c). */
int oc_event_log_add(struct oc_event_log *log, const struct oc_sse_event *ev, long n, uint64_t t)
{
  return log_event(log, ev, n, t);
}

void oc_event_log_mark(struct oc_event_log *log, long n)
{
  log_mark(log, n);
}

void oc_event_log_start(struct oc_event_log *log, int enabled)
{
  log->enabled = enabled;
  log->nhead = log->ntail = log->tail_start = 0;
  log->pinned = NULL;
  log->npinned = log->apinned = 0;
  log->pin_until = 0;
}

void oc_event_log_free(struct oc_event_log *log)
{
  if(log->enabled)
    log_free(log);
  oc_event_log_start(log, 0);
}

/* ---- reporting helpers ------------------------------------------------------ */

/* Every stream finding goes through here so that the events around it are
 * kept for the report. */
#define EMIT(s, rule, at, ...)                                                             \
  do {                                                                                     \
    const struct oc_at *at_ = (at);                                                        \
    log_mark(&(s)->log, at_->chunk);                                                       \
    oc_emit((s)->check, (rule), at_, __VA_ARGS__);                                         \
  } while(0)

/* The stream offset of a value at jv_offset inside the data of ev: exact
 * for a one-line data field (the parser says where its value starts, CRLF
 * or not), else the event's start. */
static void excerpt_of(const char *data, size_t len, char *out, size_t outlen)
{
  size_t n = len < 120 ? len : 120;
  /* cut on a character boundary */
  while(n > 0 && n < len && ((unsigned char)data[n] & 0xC0) == 0x80)
    n--;
  snprintf(out, outlen, "%.*s%s", (int)n, data, n < len ? "…" : "");
}

/* What the stream may still keep of rebuilt text and arguments. */
static size_t stream_room(const struct oc_stream *s)
{
  return s->rebuilt < s->max_rebuilt ? s->max_rebuilt - s->rebuilt : 0;
}

static struct oc_message *choice_slot(struct oc_stream *s, int index, int *created)
{
  *created = 0;
  for(size_t i = 0; i < s->nchoices; i++)
    if(s->choices[i].index == index)
      return &s->choices[i];
  if(s->nchoices >= OC_MAX_CHOICES)
    return NULL;
  struct oc_message *d = oc_array_grow(s->choices, &s->achoices, s->nchoices + 1, sizeof(*d));
  if(!d)
    return NULL;
  s->choices = d;
  struct oc_message *m = &s->choices[s->nchoices++];
  oc_message_init(m, index, 1);
  *created = 1;
  return m;
}

/* ---- one chunk ----------------------------------------------------------------- */

static void check_tool_fragment(struct oc_stream *s, struct oc_message *m,
                                const struct oc_sse_event *ev, long n, const struct oc_jv *frag,
                                uint32_t pos)
{
  char path[160] = "";
#define TPATH()                                                                                  \
  (path[0] ? path : (snprintf(path, sizeof(path), "/choices/%d/delta/tool_calls/%u", m->index, pos), path))
  const struct oc_jv *index = oc_jv_get(frag, "index");
  long idx;
  if(!index || !oc_jv_is_integer(index) || index->u.num < 0 || index->u.num > 1e6) {
    char p2[176];
    snprintf(p2, sizeof(p2), "%s/index", TPATH());
    EMIT(s, OC_R_TOOL_DELTA_INDEX,
         OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, frag->offset), .path = p2, .expected = "integer",
               .actual = oc_jv_type_name(index)),
            "tool-call fragment without an integer index");
    /* accumulate as a client that guesses would: by position */
    idx = (long)pos;
  }
  else
    idx = (long)index->u.num;
  struct oc_tool_call *t = oc_message_call(m, idx, 0);
  int first = t == NULL;
  if(first && m->ncalls >= OC_MAX_TOOL_CALLS) {
    if(!m->calls_dropped++)
      EMIT(s, OC_R_CHAT_SIZE,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, frag->offset), .path = TPATH(),
                 .expected = "at most 128 tool calls", .actual = "more"),
              "choice %d opens more than %d tool calls; the rest are not read", m->index,
              OC_MAX_TOOL_CALLS);
    return;
  }
  if(first) {
    t = oc_message_call(m, idx, 1);
    if(!t) {
      s->check->oom = 1;
      return;
    }
    t->first_chunk = n;
    t->first_byte = oc_sse_data_byte(ev, frag->offset);
    t->first_pos = pos;
  }
  t->fragments++;
  s->payload_seen = 1;
  const struct oc_jv *id = oc_jv_get(frag, "id");
  const struct oc_jv *type = oc_jv_get(frag, "type");
  const struct oc_jv *fn = oc_jv_get(frag, "function");
  const struct oc_jv *name = oc_jv_get(fn, "name");
  const struct oc_jv *args = oc_jv_get(fn, "arguments");
  int id_str = id && id->type == OC_JSTRING;
  int name_str = name && name->type == OC_JSTRING;
  if(first) {
    /* every part it lacks, each said once: "lacks id and type" and
     * "no id, no type" (a named tool_choice on vLLM sends neither) */
    int no_id = !id_str || id->len == 0;
    int no_type = !type || type->type != OC_JSTRING || strcmp(type->u.str, "function") != 0;
    int no_name = !name_str || name->len == 0;
    if(no_id || no_type || no_name) {
      char lacks[96], actual[96];
      snprintf(lacks, sizeof(lacks), "%s%s%s%s%s", no_id ? "id" : "",
               no_id && (no_type || no_name) ? (no_type && no_name ? ", " : " and ") : "",
               no_type ? "type \"function\"" : "", no_type && no_name ? " and " : "",
               no_name ? "function.name" : "");
      snprintf(actual, sizeof(actual), "%s%s%s%s%s", no_id ? "no id" : "",
               no_id && (no_type || no_name) ? ", " : "", no_type ? "no type \"function\"" : "",
               no_type && no_name ? ", " : "", no_name ? "no name" : "");
      EMIT(s, OC_R_TOOL_DELTA_HEAD,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, frag->offset), .path = TPATH(),
                 .expected = "id, type \"function\" and name on the first fragment",
                 .actual = actual),
              "the first fragment of tool call %ld (choice %d) lacks %s", idx, m->index, lacks);
    }
    if(id_str && !(t->id = oc_strndup(id->u.str, id->len)))
      s->check->oom = 1;
    if(type && type->type == OC_JSTRING && !(t->type = oc_strndup(type->u.str, type->len)))
      s->check->oom = 1;
    if(name_str && !(t->name = oc_strndup(name->u.str, name->len)))
      s->check->oom = 1;
  }
  else {
    if(id_str && id->len) {
      /* an id already known (and not empty) makes a second one either a
       * resend (openai-python doubles it) or another call on this index */
      int had = t->id && t->id[0];
      int same = had && strlen(t->id) == id->len && memcmp(t->id, id->u.str, id->len) == 0;
      char idpath[176]; /* the byte is the id's: so is the pointer */
      snprintf(idpath, sizeof(idpath), "%s/id", TPATH());
      if(had && !same)
        EMIT(s, OC_R_TOOL_ID_INDEX,
             OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, id->offset), .path = idpath,
                   .expected = t->id, .actual = id->u.str),
                "a fragment with a new id '%s' arrived on index %ld, which belongs to tool call "
                "'%s': distinct calls share an index", id->u.str, idx, t->id);
      else if(same) {
        EMIT(s, OC_R_TOOL_NAME_ONCE,
             OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, id->offset), .path = idpath,
                   .expected = "id only on the first fragment", .actual = "id resent"),
                "tool call %ld's id is resent on a later fragment", idx);
      }
      if(!had) {
        free(t->id);
        if(!(t->id = oc_strndup(id->u.str, id->len)))
          s->check->oom = 1;
      }
    }
    if(name_str && name->len) {
      char p2[176];
      snprintf(p2, sizeof(p2), "%s/function/name", TPATH());
      if(t->name && strlen(t->name) == name->len && memcmp(t->name, name->u.str, name->len) == 0) {
        EMIT(s, OC_R_TOOL_NAME_ONCE,
             OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, name->offset), .path = p2,
                   .expected = "the name only on the first fragment", .actual = "name resent"),
                "tool call %ld's name '%s' is resent on a later fragment", idx, t->name);
      }
      else if(t->name) {
        EMIT(s, OC_R_TOOL_DELTA_HEAD,
             OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, name->offset), .path = p2, .expected = t->name,
                   .actual = name->u.str),
                "tool call %ld's name changes from '%s' to '%s' on a later fragment", idx, t->name,
                name->u.str);
        /* A name sent in pieces (Gemini: "edit_ex" + "isting_file") means
         * their concatenation, which is also what openai-python rebuilds;
         * the message rules judge that name, not its first piece. */
        char *joined = oc_asprintf("%s%.*s", t->name, (int)name->len, name->u.str);
        if(joined) {
          free(t->name);
          t->name = joined;
        }
        else
          s->check->oom = 1;
      }
      else if(!(t->name = oc_strndup(name->u.str, name->len)))
        s->check->oom = 1;
    }
  }
  if(args) {
    t->args_seen = 1;
    if(args->type == OC_JSTRING) {
      size_t room = stream_room(s);
      if(args->len > room) {
        s->rebuilt_dropped += args->len - room;
        t->args_overflow = 1;
      }
      else if(!t->args_overflow) {
        int rc = oc_buf_add(&t->args, args->u.str, args->len);
        if(rc == OC_ENOMEM)
          s->check->oom = 1;
        else if(rc)
          t->args_overflow = 1;
        else
          s->rebuilt += args->len;
      }
    }
    else if(args->type != OC_JNULL && !t->args_not_string) {
      t->args_not_string = 1;
      if(!(t->args_actual_type = oc_strdup(oc_jv_type_name(args))))
        s->check->oom = 1;
      if(t->first_chunk != n) {
        /* report where it happened, not where the call began */
        t->first_chunk = n;
        t->first_byte = oc_sse_data_byte(ev, args->offset);
      }
    }
  }
#undef TPATH
}

static void append_text(struct oc_stream *s, struct oc_buf *b, const struct oc_jv *v,
                        struct oc_message *m)
{
  if(!v || v->type != OC_JSTRING || v->len == 0)
    return;
  /* past the cap the text is cut, not lost: the first OC_CAP_CONTENT
   * bytes stay for the rules and the report; all choices together keep
   * at most max_rebuilt */
  if(!m->overflow) {
    size_t room = b->max - b->len, sroom = stream_room(s);
    size_t take = v->len < room ? v->len : room;
    if(take > sroom) {
      s->rebuilt_dropped += take - sroom;
      take = sroom;
    }
    if(take && oc_buf_add(b, v->u.str, take))
      s->check->oom = 1; /* only when memory ran out */
    else
      s->rebuilt += take;
    if(take < v->len && b->len >= b->max)
      m->overflow = 1;
  }
  s->payload_seen = 1;
}

static int handle_choice(struct oc_stream *s, const struct oc_sse_event *ev, long n,
                         const struct oc_jv *ch, uint32_t pos)
{
  const struct oc_jv *index = oc_jv_get(ch, "index");
  int idx = (index && oc_jv_is_integer(index) && index->u.num >= 0 && index->u.num < 1024)
              ? (int)index->u.num
              : (int)pos;
  int created;
  struct oc_message *m = choice_slot(s, idx, &created);
  if(!m) {
    if(s->nchoices < OC_MAX_CHOICES)
      s->check->oom = 1;
    else if(!s->size_reported++)
      EMIT(s, OC_R_CHAT_SIZE,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, ch->offset), .path = "/choices",
                 .expected = "at most 128 choices", .actual = "more"),
              "the stream opens more than %d choices; the rest are not read", OC_MAX_CHOICES);
    return 0;
  }
  int content_event = 0;
  const char *delta_key = s->req->api == OC_API_COMPLETIONS ? NULL : "delta";
  const struct oc_jv *delta = delta_key ? oc_jv_get(ch, delta_key) : ch;
  /* the pointer is only formatted when a finding needs it: this runs for
   * every chunk */
  char path[96] = "";
#define DPATH() (path[0] ? path : (snprintf(path, sizeof(path), "/choices/%u/delta", pos), path))
  if(s->req->api != OC_API_COMPLETIONS) {
    const struct oc_jv *role = oc_jv_get(delta, "role");
    if(created) {
      if(!role || role->type != OC_JSTRING || strcmp(role->u.str, "assistant") != 0)
        EMIT(s, OC_R_STREAM_ROLE_FIRST,
             OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, delta ? delta->offset : ch->offset),
                   .path = DPATH(), .expected = "role \"assistant\"",
                   .actual = role ? (role->type == OC_JSTRING ? role->u.str : oc_jv_type_name(role)) : "absent"),
                "the first delta of choice %d has no role \"assistant\"", idx);
      if(role && role->type == OC_JSTRING && !(m->role = oc_strndup(role->u.str, role->len)))
        s->check->oom = 1;
    }
    else if(role) {
      char p2[112];
      snprintf(p2, sizeof(p2), "%s/role", DPATH());
      if(role->type == OC_JNULL)
        EMIT(s, OC_R_STREAM_ROLE_ONCE,
             OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, role->offset), .path = p2,
                   .expected = "absent", .actual = "null"),
                "a later delta of choice %d carries role null", idx);
      else {
        EMIT(s, OC_R_STREAM_ROLE_ONCE,
             OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, role->offset), .path = p2,
                   .expected = "absent",
                   .actual = role->type == OC_JSTRING ? role->u.str : oc_jv_type_name(role)),
                "role is sent again on a later delta of choice %d", idx);
      }
    }
    if(role && role->type == OC_JNULL && created)
      m->role_null = 1;
  }
  /* text fields */
  const struct oc_jv *content = oc_jv_get(delta, s->req->api == OC_API_COMPLETIONS ? "text" : "content");
  if(content && content->type == OC_JSTRING) {
    m->content_seen = 1;
    m->content_null = 0;
    if(content->len) {
      if(m->finish_reason)
        EMIT(s, OC_R_STREAM_FINISH_ONCE,
             OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, content->offset), .path = DPATH(),
                   .expected = "nothing after finish_reason", .actual = "content"),
                "choice %d receives content after its finish_reason \"%s\" (chunk %ld)",
                idx, m->finish_reason, m->finish_chunk);
      content_event = 1;
    }
    append_text(s, &m->content, content, m);
  }
  if(delta) {
    int content_here = content && content->type == OC_JSTRING && content->len;
    int multi = ev->data_lines != 1;
    const struct oc_jv *r = oc_reasoning_read(&m->rtrace, delta, n,
                                              multi ? (int64_t)ev->first_byte : (int64_t)ev->data_first,
                                              !multi, m->content.len > (content_here ? content->len : 0),
                                              content_here);
    if(r) {
      if(!m->reasoning_field)
        m->reasoning_field = r == oc_jv_get(delta, "reasoning_content") ? "reasoning_content"
                                                                       : "reasoning";
      append_text(s, &m->reasoning, r, m);
      content_event = 1;
    }
    const struct oc_jv *refusal = oc_jv_get(delta, "refusal");
    if(refusal && refusal->type == OC_JSTRING) {
      m->refusal_seen = 1;
      if(refusal->len)
        content_event = 1;
      append_text(s, &m->refusal, refusal, m);
    }
    const struct oc_jv *calls = oc_jv_get(delta, "tool_calls");
    if(calls && calls->type == OC_JARRAY) {
      if(calls->len == 0)
        m->tool_calls_empty_array = 1;
      uint32_t ncalls = calls->len < 2 * OC_MAX_TOOL_CALLS ? calls->len : 2 * OC_MAX_TOOL_CALLS;
      for(uint32_t i = 0; i < ncalls; i++) {
        if(m->finish_reason)
          EMIT(s, OC_R_STREAM_FINISH_ONCE,
               OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, calls->offset), .path = DPATH(),
                     .expected = "nothing after finish_reason", .actual = "a tool call fragment"),
                  "choice %d receives a tool call after its finish_reason", idx);
        check_tool_fragment(s, m, ev, n, &calls->u.items[i], i);
        content_event = 1;
      }
    }
  }
  const struct oc_jv *fr = oc_jv_get(ch, "finish_reason");
  /* "" is no finish (SGLang sends it on every delta, F16): the chunk
   * schema reports it, and the real finish that follows is not a second */
  if(fr && fr->type == OC_JSTRING && fr->len) {
    char p2[96];
    snprintf(p2, sizeof(p2), "/choices/%u/finish_reason", pos);
    if(m->finish_reason)
      EMIT(s, OC_R_STREAM_FINISH_ONCE,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, fr->offset), .path = p2,
                 .expected = "one finish_reason", .actual = fr->u.str),
              "choice %d gets a second finish_reason \"%s\" (the first, \"%s\", came in "
              "chunk %ld)", idx, fr->u.str, m->finish_reason, m->finish_chunk);
    else {
      if(!(m->finish_reason = oc_strndup(fr->u.str, fr->len)))
        s->check->oom = 1;
      m->finish_chunk = n;
    }
  }
  return content_event;
#undef DPATH
}

static void check_identity(struct oc_stream *s, const struct oc_sse_event *ev, long n,
                           const struct oc_jv *root)
{
  const struct oc_jv *id = oc_jv_get(root, "id");
  const struct oc_jv *model = oc_jv_get(root, "model");
  const struct oc_jv *created = oc_jv_get(root, "created");
  if(!s->have_identity) {
    s->have_identity = 1;
    /* an identity past its cap stays empty, and so does any later
     * comparison's "expected"; running out of memory is the check's */
    if(id && id->type == OC_JSTRING && oc_buf_add(&s->id, id->u.str, id->len) == OC_ENOMEM)
      s->check->oom = 1;
    if(model && model->type == OC_JSTRING &&
       oc_buf_add(&s->model, model->u.str, model->len) == OC_ENOMEM)
      s->check->oom = 1;
    s->created = created && created->type == OC_JNUMBER ? created->u.num : NAN;
    return;
  }
  if(id && id->type == OC_JSTRING && (id->len != s->id.len || memcmp(id->u.str, oc_buf_str(&s->id), id->len)))
    EMIT(s, OC_R_STREAM_ID_STABLE,
         OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, id->offset), .path = "/id",
               .expected = oc_buf_str(&s->id), .actual = id->u.str),
            "the chunk id changes from '%s' to '%s'", oc_buf_str(&s->id), id->u.str);
  if(model && model->type == OC_JSTRING &&
     (model->len != s->model.len || memcmp(model->u.str, oc_buf_str(&s->model), model->len)))
    EMIT(s, OC_R_STREAM_MODEL_STABLE,
         OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, model->offset), .path = "/model",
               .expected = oc_buf_str(&s->model), .actual = model->u.str),
            "the chunk model changes from '%s' to '%s'",
            oc_buf_str(&s->model), model->u.str);
  if(created && created->type == OC_JNUMBER && !isnan(s->created) && created->u.num != s->created) {
    char a[32], b[32];
    snprintf(a, sizeof(a), "%.0f", s->created);
    snprintf(b, sizeof(b), "%.0f", created->u.num);
    EMIT(s, OC_R_STREAM_CREATED_STABLE,
         OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, created->offset), .path = "/created",
               .expected = a, .actual = b),
            "the chunk created timestamp changes from %s to %s", a, b);
  }
}

static int mem_has(const char *h, size_t hl, const char *n)
{
  size_t nl = strlen(n);
  for(size_t i = 0; h && i + nl <= hl; i++)
    if(memcmp(h + i, n, nl) == 0)
      return 1;
  return 0;
}

/* Was the in-band error known before generating?  The stream's first
 * event, or a verdict on the request itself: invalid_request_error (a
 * 4xx code), a prompt over the context window.  What the server found
 * out later is not: its own parser failing on the model's text, or
 * llama-server's "Context size has been exceeded." (server_error: the
 * shared cache ran out after the request was admitted) — those are
 * STREAM-ERROR-EVENT (and STREAM-DONE) when they break the stream. */
static int known_before_generation(const struct oc_stream *s, const struct oc_jv *err,
                                   const char *msg, size_t mlen)
{
  if(mem_has(msg, mlen, "Context size has been exceeded"))
    return 0;
  if(s->chunks <= 1)
    return 1; /* this error event is the stream's first chunk */
  size_t tlen = 0;
  const char *type = err->type == OC_JOBJECT ? oc_jv_str(err, "type", &tlen) : NULL;
  if(type && tlen == 21 && memcmp(type, "invalid_request_error", 21) == 0)
    return 1;
  const struct oc_jv *code = err->type == OC_JOBJECT ? oc_jv_get(err, "code") : NULL;
  if(code && code->type == OC_JNUMBER && code->u.num >= 400 && code->u.num < 500)
    return 1;
  return (mem_has(msg, mlen, "context") || mem_has(msg, mlen, "Context")) &&
         mem_has(msg, mlen, "exceed");
}

/* An in-band error: err is the "error" member of the chunk, or for an
 * event typed "error" (typed) the whole chunk. */
static void handle_error_event(struct oc_stream *s, const struct oc_sse_event *ev, long n,
                               const struct oc_jv *err, int typed)
{
  const char *msg = NULL;
  size_t mlen = 0;
  if(err->type == OC_JOBJECT)
    msg = oc_jv_str(err, "message", &mlen);
  else if(err->type == OC_JSTRING) {
    msg = err->u.str;
    mlen = err->len;
  }
  if(!s->error_at) {
    s->error_at = n;
    if(oc_buf_add(&s->error_message, msg ? msg : "", msg ? (mlen < 400 ? mlen : 400) : 0))
      s->check->oom = 1; /* 400 bytes fit its cap: only memory can run out */
    /* the one form every SDK turns into a readable APIError */
    if(typed)
      s->error_shape = "an 'event: error' instead of a data: {\"error\": {...}} chunk";
    else if(err->type != OC_JOBJECT)
      s->error_shape = "\"error\" is not an object";
    else if(!msg)
      s->error_shape = "the error object has no string \"message\"";
  }
  char fmt[64];
  int parser = msg && oc_dialect_parse_failure(msg, mlen, fmt, sizeof(fmt));
  if(parser)
    EMIT(s, OC_R_CHAT_OUTPUT_PARSE,
         OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, err->offset), .path = "/error",
               .expected = "the model's output as chunks", .actual = "a parser error"),
            "chunk %ld: the server could not parse the model's output as its template's %s "
            "format, after the stream had begun (\"%.*s\")", n, *fmt ? fmt : "output",
            (int)(mlen < 200 ? mlen : 200), msg);
  if(!s->payload_seen && !parser && known_before_generation(s, err, msg, mlen))
    EMIT(s, OC_R_STREAM_EARLY_ERROR,
         OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, err->offset), .path = "/error",
               .expected = "an HTTP 4xx/5xx JSON error before the stream",
               .actual = "an error event at HTTP 200"),
            "an error known before generation comes in-band at chunk %ld, before any content "
            "(\"%.*s\"): it should have been an HTTP error response", n,
            (int)(mlen < 200 ? mlen : 200), msg ? msg : "");
}

/* ---- the chunk-shape memo ------------------------------------------------------ */

/* The shipped chunk schemas constrain these fields by type alone (no
 * enum, pattern or length; check_chat.c keeps that true), so two chunks
 * that differ only in their string values validate alike.  Every other
 * value (finish_reason, role, object, index, created, …) is part of the
 * shape, so a chunk that breaks a constraint never matches a valid one. */
static int free_text_key(const char *k, uint32_t n)
{
  switch(n) {
  case 2: return memcmp(k, "id", 2) == 0;
  case 4: return memcmp(k, "text", 4) == 0;
  case 5: return memcmp(k, "model", 5) == 0;
  case 7: return memcmp(k, "content", 7) == 0 || memcmp(k, "refusal", 7) == 0;
  case 9: return memcmp(k, "reasoning", 9) == 0 || memcmp(k, "arguments", 9) == 0;
  case 17: return memcmp(k, "reasoning_content", 17) == 0;
  case 18: return memcmp(k, "system_fingerprint", 18) == 0;
  }
  return 0;
}

static inline uint64_t fold(uint64_t h, uint64_t w)
{
  h = (h ^ w) * UINT64_C(0x9E3779B97F4A7C15);
  return h ^ (h >> 29); /* carries high bits back down, which a multiply never does */
}

/* Eight bytes at a time, then the tail with the length in its top byte
 * (so "a" and "a\0" differ).  Byte at a time (FNV-1a), with a call per
 * type tag and length, the shape was an eighth of the streaming path. */
static uint64_t mix(uint64_t h, const char *b, size_t n)
{
  for(; n >= 8; b += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, b, 8);
    h = fold(h, w);
  }
  uint64_t w = (uint64_t)n << 56;
  unsigned shift = 0;
  if(n & 4) {
    uint32_t x;
    memcpy(&x, b, 4);
    w |= x;
    b += 4;
    shift = 32;
  }
  if(n & 2) {
    uint16_t x;
    memcpy(&x, b, 2);
    w |= (uint64_t)x << shift;
    b += 2;
    shift += 16;
  }
  if(n & 1)
    w |= (uint64_t)(unsigned char)*b << shift;
  return fold(h, w);
}

static uint64_t shape_of(const struct oc_jv *v, uint64_t h, int elide, int depth)
{
  /* the type tag and, for containers, the size in one word */
  uint64_t tag = (uint64_t)v->type;
  if(v->type == OC_JARRAY || v->type == OC_JOBJECT)
    tag |= (uint64_t)v->len << 8;
  h = fold(h, tag);
  if(depth > 64)
    return fold(h, (uint64_t)v->end); /* deep: never shared by accident */
  switch(v->type) {
  case OC_JSTRING:
    return elide ? fold(h, UINT64_C(0xff)) : mix(h, v->u.str, v->len);
  case OC_JNUMBER: {
    uint64_t w;
    memcpy(&w, &v->u.num, sizeof(w));
    return fold(h, w);
  }
  case OC_JARRAY:
    for(uint32_t i = 0; i < v->len; i++)
      h = shape_of(&v->u.items[i], h, 0, depth + 1);
    return h;
  case OC_JOBJECT:
    for(uint32_t i = 0; i < v->len; i++) {
      const struct oc_jmember *m = &v->u.members[i];
      h = mix(h, m->key, m->key_len);
      h = shape_of(&m->value, h, free_text_key(m->key, m->key_len), depth + 1);
    }
    return h;
  default:
    return h;
  }
}

/* Has a chunk of this shape validated already? */
static int shape_known(const struct oc_stream *s, uint64_t shape)
{
  size_t n = s->nvalid_shapes < OC_ARRAY_LEN(s->valid_shapes) ? s->nvalid_shapes
                                                              : OC_ARRAY_LEN(s->valid_shapes);
  for(size_t i = 0; i < n; i++)
    if(s->valid_shapes[i] == shape)
      return 1;
  return 0;
}

int oc_timing_content(struct oc_stream_timing *tm, uint64_t t, long n)
{
  int oom = 0;
  tm->content_events++;
  if(!tm->t_first_content)
    tm->t_first_content = t ? t : 1;
  else if(t >= tm->t_last_content) {
    uint64_t gap = t - tm->t_last_content;
    if(gap > tm->max_gap) {
      tm->max_gap = gap;
      tm->max_gap_chunk = n;
    }
    if(tm->ngaps < OC_CAP_GAPS) {
      uint32_t *d = oc_array_grow(tm->gaps_us, &tm->agaps, tm->ngaps + 1, sizeof(*d));
      if(d)
        tm->gaps_us = d;
      else
        oom = 1;
      if(tm->ngaps < tm->agaps)
        tm->gaps_us[tm->ngaps++] = (uint32_t)(gap / 1000 > UINT32_MAX ? UINT32_MAX : gap / 1000);
    }
  }
  tm->t_last_content = t;
  return oom ? OC_ENOMEM : OC_OK;
}

static void on_event(void *ud, const struct oc_sse_event *ev)
{
  struct oc_stream *s = ud;
  long n = (long)++s->events;
  uint64_t t = ev->t_last_ns;
  if(log_event(&s->log, ev, n, t))
    s->check->oom = 1;
  if(!s->timing.t_first_event)
    s->timing.t_first_event = t ? t : 1;
  s->timing.t_last_event = t;
  if(s->done_at) {
    s->after_done++;
    if(s->after_done == 1)
      EMIT(s, OC_R_STREAM_AFTER_DONE,
           OC_AT(.chunk = n, .byte = (int64_t)ev->first_byte, .expected = "end of stream",
                 .actual = "another event"),
              "an event arrives after 'data: [DONE]' (chunk %ld)", s->done_at);
    if(s->clients && oc_clients_want_after_done(s->clients)) {
      /* some clients read on: they get the chunk, the rules do not */
      struct oc_jerr jerr;
      int rc = oc_jdoc_parse(&s->doc, ev->data, ev->data_len, &jerr);
      if(rc == OC_ENOMEM)
        s->check->oom = 1;
      oc_clients_event(s->clients, ev, rc ? NULL : s->doc.root, 0, &s->sse);
    }
    return;
  }
  if(ev->data_len == 6 && memcmp(ev->data, "[DONE]", 6) == 0) {
    s->done_at = n;
    oc_clients_event(s->clients, ev, NULL, 0, &s->sse);
    return;
  }
  struct oc_jerr jerr;
  int rc = oc_jdoc_parse(&s->doc, ev->data, ev->data_len, &jerr);
  /* the chunk's skeleton, hashed once for the schema memo below and for
   * what the client models decide by skeleton alone */
  uint64_t shape = 0;
  if(rc == 0 && (s->chunk_schema || s->clients))
    shape = shape_of(s->doc.root, UINT64_C(0xcbf29ce484222325), 0, 0);
  if(rc == 0)
    oc_clients_event(s->clients, ev, s->doc.root, shape, &s->sse);
  else if(rc != OC_ENOMEM)
    oc_clients_event(s->clients, ev, NULL, 0, &s->sse);
  if(rc || s->doc.root->type != OC_JOBJECT) {
    char ex[160];
    excerpt_of(ev->data, ev->data_len, ex, sizeof(ex));
    s->chunk_json_bad = 1;
    if(rc == OC_ENOMEM) {
      s->check->oom = 1;
      return;
    }
    log_mark(&s->log, n);
    oc_emit(s->check, OC_R_STREAM_CHUNK_JSON,
            OC_AT(.chunk = n,
                  .byte = rc ? oc_sse_data_byte(ev, (uint32_t)jerr.offset) : (int64_t)ev->first_byte,
                  .expected = "a JSON object or [DONE]", .actual = ev->data_len ? ex : "empty data",
                  .excerpt = ex),
            ev->data_len == 0 ? "chunk %ld has empty data" :
            rc ? "chunk %ld's data is not JSON (%s)" : "chunk %ld's data is JSON but not an object",
            n, rc ? (jerr.message ? jerr.message : "parse error") : "");
    return;
  }
  s->chunks++;
  const struct oc_jv *root = s->doc.root;
  const struct oc_jv *err = oc_jv_get(root, "error");
  if(err && err->type != OC_JNULL && !(err->type == OC_JFALSE)) {
    handle_error_event(s, ev, n, err, 0);
    return;
  }
  if(ev->type_len == 5 && memcmp(ev->type, "error", 5) == 0) {
    handle_error_event(s, ev, n, root, 1);
    return;
  }
  if(s->chunk_schema && !shape_known(s, shape)) {
    struct oc_schema_result res;
    oc_schema_result_init(&res);
    res.max = 8;
    s->schema_validations++;
    int valid = oc_schema_validate(s->chunk_schema, root, &res);
    if(valid == -OC_ETOOBIG)
      oc_check_limit(s->check, "chunk %ld could not be validated against %s: %s", n, s->chunk_rel,
                     res.undecided);
    else if(valid < 0)
      s->check->oom = 1; /* no verdict from a validation that could not finish */
    if(valid == 1)
      s->valid_shapes[s->nvalid_shapes++ % OC_ARRAY_LEN(s->valid_shapes)] = shape;
    if(valid == 0) {
      for(size_t i = 0; i < res.count; i++) {
        const struct oc_schema_error *e = &res.errors[i];
        int sev = oc_schemas_error_severity(s->schemas, s->check, s->chunk_rel, e);
        EMIT(s, OC_R_STREAM_CHUNK_SCHEMA,
             OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, (uint32_t)e->offset), .path = e->instance_path,
                   .expected = e->keyword, .actual = e->message, .severity = sev),
                "chunk %ld: at '%s': %s", n,
                e->instance_path, e->message);
      }
    }
    oc_schema_result_free(&res);
  }
  check_identity(s, ev, n, root);
  const struct oc_jv *usage = oc_jv_get(root, "usage");
  int usage_chunk = usage && usage->type != OC_JNULL;
  if(usage_chunk) {
    s->usage_chunks++;
    s->usage_chunk_at = n;
    cJSON_Delete(s->usage);
    if(!(s->usage = oc_jv_to_cjson(usage)))
      s->check->oom = 1;
    int finished_all = s->nchoices > 0;
    for(size_t i = 0; i < s->nchoices; i++)
      if(!s->choices[i].finish_reason)
        finished_all = 0;
    if(!finished_all)
      s->usage_before_finish = n;
    if(!s->req->include_usage && s->usage_chunks == 1)
      EMIT(s, OC_R_USAGE_UNREQUESTED,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, usage->offset), .path = "/usage",
                 .expected = "no usage", .actual = "usage"),
              "chunk %ld carries usage although stream_options.include_usage was not set",
              n);
  }
  const struct oc_jv *choices = oc_jv_get(root, "choices");
  int content_event = 0;
  if(choices && choices->type == OC_JARRAY) {
    if(choices->len == 0 && !(usage_chunk && s->req->include_usage))
      EMIT(s, OC_R_STREAM_EMPTY_CHOICES,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, choices->offset), .path = "/choices",
                 .expected = "at least one choice", .actual = "[]"),
              "chunk %ld has an empty choices array%s", n,
              usage_chunk ? " (a usage chunk nobody asked for)" : "");
    else if(choices->len > 0 && usage_chunk && s->req->include_usage)
      EMIT(s, OC_R_USAGE_CHUNK,
           OC_AT(.chunk = n, .byte = oc_sse_data_byte(ev, choices->offset), .path = "/choices",
                 .expected = "[]", .actual = "choices"),
              "the usage chunk %ld also carries choices; the spec's usage chunk has "
              "an empty choices array", n);
    /* past the cap nothing more is read, so a giant array costs nothing */
    uint32_t nch = choices->len < 2 * OC_MAX_CHOICES ? choices->len : 2 * OC_MAX_CHOICES;
    for(uint32_t i = 0; i < nch; i++)
      content_event |= handle_choice(s, ev, n, &choices->u.items[i], i);
  }
  if(content_event && oc_timing_content(&s->timing, t, n))
    s->check->oom = 1; /* percentiles from some of the gaps would be made up */
}

static void on_issue(void *ud, const struct oc_sse_issue *is)
{
  struct oc_stream *s = ud;
  long n = s->events + 1; /* the event being read */
  oc_clients_sse_issue(s->clients, is, &s->sse);
  struct oc_sse_finding f;
  if(oc_sse_issue_finding(is, n, s->check->partial, &s->truncated, &f))
    EMIT(s, f.rule, OC_AT(.chunk = n, .byte = f.byte, .expected = f.expected, .actual = f.actual),
         "%s", f.message);
}

/* ---- lifecycle -------------------------------------------------------------------- */

/* Everything zero but the event log's slots (250 of them, 20 KB): those
 * are made ready one by one as events arrive, so a short stream does not
 * pay for clearing them twice per case. */
static void stream_zero(struct oc_stream *s)
{
  memset(s, 0, offsetof(struct oc_stream, log));
  struct oc_event_log *l = &s->log;
  l->enabled = 0;
  l->nhead = l->ntail = l->tail_start = 0;
  l->pinned = NULL;
  l->npinned = l->apinned = 0;
  l->pin_until = 0;
  memset(&s->timing, 0, sizeof(*s) - offsetof(struct oc_stream, timing));
}

void oc_stream_init(struct oc_stream *s, const struct oc_request_info *req, struct oc_check *check,
                    const struct oc_schema *chunk_schema, struct oc_schema_registry *reg,
                    uint64_t t_sent, int timing_recorded, int keep_events)
{
  stream_zero(s);
  s->req = req;
  s->check = check;
  s->chunk_schema = chunk_schema;
  s->reg = reg;
  s->object_expected = req->api == OC_API_COMPLETIONS ? "text_completion" : "chat.completion.chunk";
  struct oc_sse_callbacks cb = { on_event, on_issue, NULL };
  oc_sse_init(&s->sse, &cb, s);
  oc_jdoc_init(&s->doc);
  oc_buf_init(&s->id, OC_CAP_IDENTITY);
  oc_buf_init(&s->model, OC_CAP_IDENTITY);
  oc_buf_init(&s->error_message, 1024);
  s->max_rebuilt = OC_CAP_STREAM_TEXT;
  s->created = NAN;
  s->log.enabled = keep_events;
  s->timing.recorded = timing_recorded;
  s->timing.t_sent = t_sent;
  s->timing.max_gap_chunk = -1;
}

int oc_stream_push(struct oc_stream *s, const void *buf, size_t len, uint64_t t_ns)
{
  if(!s->timing.t_first_byte && len)
    s->timing.t_first_byte = t_ns ? t_ns : 1;
  s->body_bytes += len;
  return oc_sse_push(&s->sse, buf, len, t_ns);
}

/* TOOL-INDEX-GAP: the indexes of a choice's tool calls must be 0..n-1.
 * Judged at the end, not when a call opens: an index that a later
 * fragment fills (calls out of order, index 2 before 1) leaves no hole in
 * what a client built, and only a hole is this rule's.  Reported at the first
 * fragment of the lowest call above the first missing index, the call a
 * client that keeps calls in an array at their index finds a hole before. */
static void check_tool_index_gap(struct oc_stream *s, const struct oc_message *m)
{
  /* calls past OC_MAX_TOOL_CALLS were not kept: their indexes are unknown */
  if(m->ncalls == 0 || m->calls_dropped)
    return;
  long missing = -1;
  for(long want = 0; want < (long)m->ncalls && missing < 0; want++) {
    int seen = 0;
    for(size_t i = 0; i < m->ncalls && !seen; i++)
      seen = m->calls[i].index == want;
    if(!seen)
      missing = want;
  }
  /* ncalls distinct indexes with none of 0..ncalls-1 missing are exactly those */
  if(missing < 0)
    return;
  const struct oc_tool_call *above = NULL;
  for(size_t i = 0; i < m->ncalls; i++)
    if(m->calls[i].index > missing && (!above || m->calls[i].index < above->index))
      above = &m->calls[i];
  char path[160], exp[48], act[48];
  snprintf(path, sizeof(path), "/choices/%d/delta/tool_calls/%u", m->index, above->first_pos);
  snprintf(exp, sizeof(exp), "a call at index %ld", missing);
  snprintf(act, sizeof(act), "none below index %ld", above->index);
  EMIT(s, OC_R_TOOL_INDEX_GAP,
       OC_AT(.chunk = above->first_chunk, .byte = above->first_byte, .path = path,
             .expected = exp, .actual = act),
          "choice %d has %zu tool call%s but no call at index %ld: the call at index %ld leaves a "
          "hole below it", m->index, m->ncalls, m->ncalls == 1 ? "" : "s", missing, above->index);
}

void oc_stream_finish(struct oc_stream *s, uint64_t t_ns)
{
  if(s->finished)
    return;
  s->finished = 1;
  oc_sse_finish(&s->sse, t_ns);
  s->timing.t_end = t_ns;
  struct oc_check *c = s->check;
  int partial = c->partial;
  if(!s->done_at && !partial)
    oc_emit(c, OC_R_STREAM_DONE,
            OC_AT(.byte = (int64_t)s->body_bytes, .expected = "data: [DONE]",
                  .actual = s->truncated ? "a cut event" : (s->events ? "end of body" : "an empty body")),
            "the stream ends after %ld event%s without 'data: [DONE]'%s", s->events,
            s->events == 1 ? "" : "s", s->error_at ? " (after an in-band error)" : "");
  /* An in-band error that could not be avoided is acceptable in the one
   * form every SDK reports (F12: vLLM's {"error": {...}} then [DONE]);
   * STREAM-EARLY-ERROR and the client models say the rest. */
  int done_missing = s->error_at && !partial && s->done_at <= s->error_at;
  if(s->error_at && (done_missing || s->error_shape))
    oc_emit(c, OC_R_STREAM_ERROR_EVENT,
            OC_AT(.chunk = s->error_at, .path = "/error",
                  .expected = "{\"error\": {\"message\": ...}} followed by data: [DONE]",
                  .actual = s->error_shape ? s->error_shape : "no [DONE] after it"),
            "the stream carries an in-band error at chunk %ld (\"%s\")%s%s%s", s->error_at,
            oc_buf_str(&s->error_message), s->error_shape ? ": " : "",
            s->error_shape ? s->error_shape : "",
            done_missing ? (s->error_shape ? ", and no 'data: [DONE]' follows it"
            : " and no 'data: [DONE]' follows it") : "");
  for(size_t i = 0; i < s->nchoices; i++)
    if(s->choices[i].overflow)
      oc_emit(c, OC_R_CHAT_SIZE, OC_AT(.expected = "at most 16 MiB of text", .actual = "more"),
              "the rebuilt text of choice %d passed oacheck's 16 MiB cap; only the first "
              "16 MiB were kept", s->choices[i].index);
  if(s->rebuilt_dropped) {
    char exp[64];
    snprintf(exp, sizeof(exp), "at most %zu MiB of text and arguments in all", s->max_rebuilt >> 20);
    oc_emit(c, OC_R_CHAT_SIZE, OC_AT(.expected = exp, .actual = "more"),
            "the choices of the stream rebuild more than oacheck's %zu-byte cap for a whole "
            "stream; %llu more bytes of text and arguments were not kept",
            s->max_rebuilt, (unsigned long long)s->rebuilt_dropped);
  }
  else if(s->rebuilt > OC_CAP_RESULT_MESSAGE) {
    char act[32];
    snprintf(act, sizeof(act), "%zu bytes", s->rebuilt);
    oc_emit(c, OC_R_CHAT_SIZE,
            OC_AT(.expected = "a message the results keep whole", .actual = act,
                  .severity = OC_SEV_INFO),
            "the rebuilt message holds %zu bytes of text and arguments; the results keep "
            "the first %u (the rules saw all of it)", s->rebuilt, OC_CAP_RESULT_MESSAGE);
  }
  int unfinished = -1;
  for(size_t i = 0; i < s->nchoices && !partial; i++) {
    struct oc_message *m = &s->choices[i];
    if(!m->finish_reason && !s->error_at) {
      oc_emit(c, OC_R_STREAM_FINISH_ONCE, OC_AT(.expected = "one finish_reason", .actual = "none"),
              "choice %d never gets a finish_reason", m->index);
      if(unfinished < 0)
        unfinished = m->index;
    }
  }
  /* A stream that ends with neither [DONE] nor a finish_reason was cut,
   * even when the cut fell between two events (F06: "always classify EOF
   * without finish_reason as truncation"); the SDKs stop without an error
   * and the rest of the answer is silently lost. */
  if(unfinished >= 0 && !s->done_at && !s->truncated)
    oc_emit(c, OC_R_STREAM_TRUNCATED,
            OC_AT(.byte = (int64_t)s->body_bytes, .expected = "finish_reason and [DONE]",
                  .actual = "end of body"),
            "the stream ends after %llu bytes with choice %d unfinished and no "
            "'data: [DONE]': it was cut", (unsigned long long)s->body_bytes, unfinished);
  /* Empty also when nothing but [DONE] came (a body without any event
   * is reported by STREAM-DONE alone). */
  if((s->chunks > 0 || s->done_at) && !s->payload_seen && !s->error_at && !partial) {
    /* max_tokens spent before anything visible (a reasoning model's first
     * token is its <think>, which the parser takes away) is the request's
     * budget, not an empty answer */
    int all_length = s->nchoices > 0;
    for(size_t i = 0; i < s->nchoices; i++)
      all_length &= oc_streq(s->choices[i].finish_reason, "length");
    if(all_length)
      oc_emit(c, OC_R_STREAM_EMPTY,
              OC_AT(.expected = "content, reasoning or a tool call", .actual = "nothing",
                    .severity = OC_SEV_WARNING),
              "the stream stops at max_tokens%s before any visible token: a reasoning model "
              "spends its first tokens on markup such as <think>, which the server's parser "
              "takes out", s->req->max_tokens == 1 ? " (1)" : "");
    else
      oc_emit(c, OC_R_STREAM_EMPTY,
              OC_AT(.expected = "content, reasoning or a tool call", .actual = "nothing"),
              "the stream completes without any content, reasoning, "
              "refusal or tool call");
  }
  if(s->req->include_usage && s->req->api == OC_API_CHAT && !s->error_at) {
    if(s->usage_chunks == 0 && !partial)
      oc_emit(c, OC_R_USAGE_CHUNK,
              OC_AT(.path = "/usage", .expected = "a final usage chunk", .actual = "none"),
              "stream_options.include_usage was set but no chunk carries usage");
    else if(s->usage_chunks > 1)
      oc_emit(c, OC_R_USAGE_CHUNK,
              OC_AT(.chunk = s->usage_chunk_at, .path = "/usage", .expected = "one usage chunk",
                    .actual = "several"),
              "%ld chunks carry usage; exactly one should",
              s->usage_chunks);
    else if(s->usage_before_finish)
      oc_emit(c, OC_R_USAGE_CHUNK,
              OC_AT(.chunk = s->usage_before_finish, .path = "/usage",
                    .expected = "after the last finish_reason", .actual = "before it"),
              "the usage chunk %ld arrives before every choice has finished",
              s->usage_before_finish);
    else if(s->done_at && s->usage_chunk_at != s->done_at - 1)
      oc_emit(c, OC_R_USAGE_CHUNK,
              OC_AT(.chunk = s->usage_chunk_at, .path = "/usage",
                    .expected = "the last chunk before [DONE]", .actual = "an earlier chunk"),
              "the usage chunk %ld is not the last chunk before [DONE] (chunk %ld)",
              s->usage_chunk_at, s->done_at);
  }
  if(s->usage && s->req->api == OC_API_CHAT) {
    const cJSON *p = oc_json_get(s->usage, "prompt_tokens");
    const cJSON *cm = oc_json_get(s->usage, "completion_tokens");
    const cJSON *tt = oc_json_get(s->usage, "total_tokens");
    if(!oc_json_is_integer(p) || !oc_json_is_integer(cm) || !oc_json_is_integer(tt))
      oc_emit(c, OC_R_CHAT_USAGE,
              OC_AT(.chunk = s->usage_chunk_at, .path = "/usage",
                    .expected = "integer prompt_tokens, completion_tokens, total_tokens",
                    .actual = "missing or not integers"),
              "the usage in chunk %ld lacks integer token counts", s->usage_chunk_at);
    else if(p->valuedouble + cm->valuedouble != tt->valuedouble) {
      char exp[64], act[64];
      snprintf(exp, sizeof(exp), "%.0f", p->valuedouble + cm->valuedouble);
      snprintf(act, sizeof(act), "%.0f", tt->valuedouble);
      oc_emit(c, OC_R_CHAT_USAGE,
              OC_AT(.chunk = s->usage_chunk_at, .path = "/usage/total_tokens", .expected = exp,
                    .actual = act),
              "usage total_tokens %s is not prompt_tokens + completion_tokens (%s)", act,
              exp);
    }
  }
  if(s->req->api == OC_API_CHAT && s->req->n > 1 && (int)s->nchoices != s->req->n && !s->error_at &&
     !partial) {
    char exp[16], act[16];
    snprintf(exp, sizeof(exp), "%d", s->req->n);
    snprintf(act, sizeof(act), "%zu", s->nchoices);
    oc_emit(c, OC_R_CHAT_CHOICES_COUNT, OC_AT(.path = "/choices", .expected = exp, .actual = act),
            "n=%d was requested but the stream carries %zu choice%s", s->req->n,
            s->nchoices, s->nchoices == 1 ? "" : "s");
  }
  /* A capture cut by whoever made it may have lost the call that fills a
   * gap; a failed stream is already reported. */
  for(size_t i = 0; i < s->nchoices && !partial && !s->error_at; i++)
    check_tool_index_gap(s, &s->choices[i]);
  /* The message rules judge finished answers only: a cut or failed stream
   * is already reported, and judging half an answer would only add noise. */
  for(size_t i = 0; i < s->nchoices; i++)
    if(s->choices[i].finish_reason && !s->error_at) {
      oc_reasoning_usage_json(&s->choices[i].rtrace, s->usage);
      oc_message_check(c, s->req, &s->choices[i], s->reg);
    }
}

void oc_stream_free(struct oc_stream *s)
{
  oc_sse_free(&s->sse);
  oc_jdoc_free(&s->doc);
  for(size_t i = 0; i < s->nchoices; i++)
    oc_message_free(&s->choices[i]);
  free(s->choices);
  oc_buf_free(&s->id);
  oc_buf_free(&s->model);
  oc_buf_free(&s->error_message);
  cJSON_Delete(s->usage);
  if(s->log.enabled)
    log_free(&s->log);
  free(s->timing.gaps_us);
  stream_zero(s);
}

/* ---- output ------------------------------------------------------------------------ */

/* Cut the string values under v so that together they keep at most *left
 * bytes (each cut on a character boundary); *total counts what they held. */
static void cut_strings(cJSON *v, size_t *left, size_t *total, int depth)
{
  for(; v && depth < 64; v = v->next) {
    if(cJSON_IsString(v) && v->valuestring) {
      size_t n = strlen(v->valuestring), keep = n < *left ? n : *left;
      while(keep > 0 && keep < n && ((unsigned char)v->valuestring[keep] & 0xC0) == 0x80)
        keep--;
      v->valuestring[keep] = '\0';
      *left -= keep;
      *total += n;
    }
    if(v->child)
      cut_strings(v->child, left, total, depth + 1);
  }
}

cJSON *oc_stream_completion(const struct oc_stream *s)
{
  int oom = 0;
  cJSON *o = cJSON_CreateObject();
  oc_json_put_str(&oom, o, "id", oc_buf_str(&s->id));
  oc_json_put_str(&oom, o, "model", oc_buf_str(&s->model));
  if(!isnan(s->created))
    oc_json_put(&oom, o, "created", cJSON_CreateNumber(s->created));
  cJSON *choices = oc_json_put(&oom, o, "choices", cJSON_CreateArray());
  for(size_t i = 0; !oom && i < s->nchoices; i++) {
    cJSON *ch = oc_json_put(&oom, choices, NULL, cJSON_CreateObject());
    oc_json_put(&oom, ch, "index", cJSON_CreateNumber(s->choices[i].index));
    cJSON *msg = oc_message_to_json(&s->choices[i]);
    cJSON *fr = msg ? cJSON_DetachItemFromObjectCaseSensitive(msg, "finish_reason") : NULL;
    oc_json_put(&oom, ch, "message", msg);
    if(fr)
      oc_json_put(&oom, ch, "finish_reason", fr);
  }
  if(s->usage)
    oc_json_put(&oom, o, "usage", cJSON_Duplicate(s->usage, 1));
  /* what goes into the results is bounded whatever the stream rebuilt
   * (CHAT-SIZE says when it was cut) */
  size_t left = OC_CAP_RESULT_MESSAGE, total = 0;
  if(!oom)
    cut_strings(choices, &left, &total, 0);
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

static int cmp_logged(const void *a, const void *b)
{
  long x = (*(const struct oc_logged_event *const *)a)->n;
  long y = (*(const struct oc_logged_event *const *)b)->n;
  return x < y ? -1 : x > y;
}

cJSON *oc_stream_events_json(const struct oc_stream *s, int *truncated)
{
  return oc_event_log_json(&s->log, &s->timing, s->events, truncated);
}

cJSON *oc_event_log_json(const struct oc_event_log *log, const struct oc_stream_timing *timing,
                         long events, int *truncated)
{
  cJSON *arr = cJSON_CreateArray();
  if(!arr || !log->enabled)
    return arr;
  size_t total = log->nhead + log->ntail + log->npinned;
  const struct oc_logged_event **all = calloc(total ? total : 1, sizeof(*all));
  int oom = !all;
  size_t k = 0;
  for(size_t i = 0; all && i < log->nhead; i++)
    all[k++] = &log->head[i];
  for(size_t i = 0; all && i < log->npinned; i++)
    all[k++] = &log->pinned[i];
  for(size_t i = 0; all && i < log->ntail; i++)
    all[k++] = &log->tail[(log->tail_start + i) % OC_LOG_TAIL];
  if(all)
    qsort(all, k, sizeof(*all), cmp_logged);
  long prev = 0;
  size_t data_left = OC_CAP_RESULT_EVENTS; /* every kept event's data together */
  for(size_t i = 0; !oom && i < k; i++) {
    const struct oc_logged_event *e = all[i];
    if(e->n == prev)
      continue; /* a pinned copy of an event still in the ring */
    prev = e->n;
    cJSON *ev = oc_json_put(&oom, arr, NULL, cJSON_CreateObject());
    oc_json_put(&oom, ev, "n", cJSON_CreateNumber((double)e->n));
    oc_json_put(&oom, ev, "offset", cJSON_CreateNumber((double)e->offset));
    oc_json_put(&oom, ev, "end", cJSON_CreateNumber((double)e->end));
    if(timing->recorded && e->t_ns >= timing->t_sent)
      oc_json_put(&oom, ev, "t_ms", cJSON_CreateNumber((double)(e->t_ns - timing->t_sent) / 1e6));
    else
      oc_json_put(&oom, ev, "t_ms", cJSON_CreateNull());
    if(e->type.len)
      oc_json_put_str(&oom, ev, "type", oc_buf_str(&e->type));
    /* data may hold bytes that are not UTF-8, or NUL: the results carry
     * them as U+FFFD (the raw bytes are in the body excerpt) */
    size_t dn = e->data.len < data_left ? e->data.len : data_left;
    while(dn > 0 && dn < e->data.len && ((unsigned char)e->data.data[dn] & 0xC0) == 0x80)
      dn--;
    data_left -= dn;
    char *data = oc_utf8_sanitize(oc_buf_str(&e->data), dn);
    oc_json_put(&oom, ev, "data", data ? cJSON_CreateString(data) : NULL);
    free(data);
    if(dn < e->data.len)
      oc_json_put(&oom, ev, "cut", cJSON_CreateBool(1));
  }
  free(all);
  if(oom) {
    cJSON_Delete(arr);
    return NULL;
  }
  if(truncated)
    *truncated = (long)cJSON_GetArraySize(arr) < events;
  return arr;
}

static int cmp_u32(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

static void add_ms(int *oom, cJSON *o, const char *key, int ok, double ms)
{
  oc_json_put(oom, o, key, ok ? cJSON_CreateNumber(round(ms * 1000.0) / 1000.0) : cJSON_CreateNull());
}

cJSON *oc_stream_timing_json(const struct oc_stream *s)
{
  return oc_timing_json(&s->timing, s->events);
}

cJSON *oc_timing_json(const struct oc_stream_timing *tm, long events)
{
  int oom = 0;
  cJSON *o = cJSON_CreateObject();
  oc_json_put(&oom, o, "recorded", cJSON_CreateBool(tm->recorded));
  int rec = tm->recorded && tm->t_sent;
  add_ms(&oom, o, "ttft_ms", rec && tm->t_first_content >= tm->t_sent && tm->t_first_content,
         (double)(tm->t_first_content - tm->t_sent) / 1e6);
  add_ms(&oom, o, "role_ms", rec && tm->t_first_event >= tm->t_sent && tm->t_first_event,
         (double)(tm->t_first_event - tm->t_sent) / 1e6);
  add_ms(&oom, o, "first_byte_ms", rec && tm->t_first_byte >= tm->t_sent && tm->t_first_byte,
         (double)(tm->t_first_byte - tm->t_sent) / 1e6);
  add_ms(&oom, o, "total_ms", rec && tm->t_end >= tm->t_sent, (double)(tm->t_end - tm->t_sent) / 1e6);
  double p50 = 0, p90 = 0, p99 = 0;
  int have = rec && tm->ngaps > 0;
  if(have) {
    uint32_t *g = malloc(tm->ngaps * sizeof(*g));
    oom |= !g;
    if(g) {
      memcpy(g, tm->gaps_us, tm->ngaps * sizeof(*g));
      qsort(g, tm->ngaps, sizeof(*g), cmp_u32);
      p50 = g[(tm->ngaps - 1) * 50 / 100] / 1000.0;
      p90 = g[(tm->ngaps - 1) * 90 / 100] / 1000.0;
      p99 = g[(tm->ngaps - 1) * 99 / 100] / 1000.0;
      free(g);
    }
    else
      have = 0;
  }
  add_ms(&oom, o, "itl_p50_ms", have, p50);
  add_ms(&oom, o, "itl_p90_ms", have, p90);
  add_ms(&oom, o, "itl_p99_ms", have, p99);
  add_ms(&oom, o, "max_gap_ms", have, (double)tm->max_gap / 1e6);
  oc_json_put(&oom, o, "max_gap_chunk", have && tm->max_gap_chunk > 0
                                           ? cJSON_CreateNumber((double)tm->max_gap_chunk)
                                           : cJSON_CreateNull());
  oc_json_put(&oom, o, "chunks", cJSON_CreateNumber((double)events));
  double span = (double)(tm->t_last_content - tm->t_first_content) / 1e9;
  add_ms(&oom, o, "tokens_per_s", rec && tm->content_events > 1 && span > 0,
         (double)(tm->content_events - 1) / (span > 0 ? span : 1));
  if(oom) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}
