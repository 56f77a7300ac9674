/* protocol.c — the table of wire protocols (protocol.h): for each, its
 * endpoints, its client models, its shipped suite and recordings, and the
 * adapters that put its stream decoder behind the opaque handle
 * response.c holds.  Adding a protocol is a decoder of its own (a file
 * like responses.c) and one entry here. */
#include "config.h"
#include "protocol.h"

#include <stdlib.h>
#include <string.h>

#include "chat.h"
#include "chat_body.h"
#include "client.h"
#include "messages.h"
#include "response.h"
#include "responses.h"

/* ---- Chat Completions: chat.c's stream, kept inside the response --------
 * (expectations and the results read its choices), so opening it
 * allocates nothing and closing it frees only what it holds. */

static void *chat_open(struct oc_response *r, int ok)
{
  const struct oc_schema *chunk = NULL;
  if(r->schemas)
    chunk = r->req->api == OC_API_CHAT          ? r->schemas->chunk
            : r->req->api == OC_API_COMPLETIONS ? r->schemas->text_completion_chunk
                                                : NULL;
  oc_stream_init(&r->stream, r->req, r->check, chunk, r->schemas ? r->schemas->reg : NULL,
                 r->t_sent, r->timing_recorded, r->keep_events);
  if(ok)
    r->stream.clients = r->clients;
  r->stream.schemas = r->schemas;
  r->stream.chunk_rel = r->req->api == OC_API_COMPLETIONS ? "text_completion.chunk.json"
                                                          : "chat.completion.chunk.json";
  return &r->stream;
}

static int chat_push(void *s, const void *p, size_t n, uint64_t t)
{
  return oc_stream_push(s, p, n, t);
}

static int chat_cut(void *s)
{
  struct oc_stream *st = s;
  if(st->truncated)
    return 0;
  return st->truncated = 1;
}

static void chat_finish(void *s, uint64_t t)
{
  oc_stream_finish(s, t);
}

static void chat_close(void *s)
{
  oc_stream_free(s);
}

static long chat_events(const void *s)
{
  return (long)((const struct oc_stream *)s)->events;
}

static cJSON *chat_events_json(const void *s, int *cut)
{
  return oc_stream_events_json(s, cut);
}

static cJSON *chat_answer(const void *s)
{
  return oc_stream_completion(s);
}

static cJSON *chat_timing_json(const void *s)
{
  return oc_stream_timing_json(s);
}

static struct oc_stream_timing *chat_timing(void *s)
{
  return &((struct oc_stream *)s)->timing;
}

/* ---- the Responses API: responses.c ------------------------------------ */

static void *responses_open(struct oc_response *r, int ok)
{
  struct oc_rstream *s = malloc(sizeof(*s));
  if(!s)
    return NULL;
  oc_rstream_init(s, r->req, r->check, r->schemas, r->t_sent, r->timing_recorded, r->keep_events);
  if(ok)
    s->clients = r->clients;
  return s;
}

static int responses_push(void *s, const void *p, size_t n, uint64_t t)
{
  return oc_rstream_push(s, p, n, t);
}

static int responses_cut(void *s)
{
  struct oc_rstream *st = s;
  if(st->truncated)
    return 0;
  return st->truncated = 1;
}

static void responses_finish(void *s, uint64_t t)
{
  oc_rstream_finish(s, t);
}

static void responses_close(void *s)
{
  oc_rstream_free(s);
  free(s);
}

static long responses_events(const void *s)
{
  return ((const struct oc_rstream *)s)->events;
}

static cJSON *responses_events_json(const void *s, int *cut)
{
  return oc_rstream_events_json(s, cut);
}

static cJSON *responses_answer(const void *s)
{
  return oc_rstream_response(s);
}

static cJSON *responses_timing_json(const void *s)
{
  return oc_rstream_timing_json(s);
}

static struct oc_stream_timing *responses_timing(void *s)
{
  return &((struct oc_rstream *)s)->timing;
}

static void responses_body(struct oc_response *r, const struct oc_jv *root)
{
  oc_responses_check_body(r->check, r->req, r->schemas, root);
}

/* ---- Anthropic's Messages API: messages.c ------------------------------ */

static void *messages_open(struct oc_response *r, int ok)
{
  struct oc_mstream *s = malloc(sizeof(*s));
  if(!s)
    return NULL;
  oc_mstream_init(s, r->req, r->check, r->schemas, r->t_sent, r->timing_recorded, r->keep_events);
  if(ok)
    s->clients = r->clients;
  return s;
}

static int messages_push(void *s, const void *p, size_t n, uint64_t t)
{
  return oc_mstream_push(s, p, n, t);
}

static int messages_cut(void *s)
{
  struct oc_mstream *st = s;
  if(st->truncated)
    return 0;
  return st->truncated = 1;
}

static void messages_finish(void *s, uint64_t t)
{
  oc_mstream_finish(s, t);
}

static void messages_close(void *s)
{
  oc_mstream_free(s);
  free(s);
}

static long messages_events(const void *s)
{
  return ((const struct oc_mstream *)s)->events;
}

static cJSON *messages_events_json(const void *s, int *cut)
{
  return oc_mstream_events_json(s, cut);
}

static cJSON *messages_answer(const void *s)
{
  return oc_mstream_message(s);
}

static cJSON *messages_timing_json(const void *s)
{
  return oc_mstream_timing_json(s);
}

static struct oc_stream_timing *messages_timing(void *s)
{
  return &((struct oc_mstream *)s)->timing;
}

static void messages_body(struct oc_response *r, const struct oc_jv *root)
{
  oc_messages_check_body(r->check, r->req, r->schemas, root);
}

/* ---- the table ---------------------------------------------------------- */

static const struct oc_protocol chat = {
  .id = OC_PROTO_CHAT, .name = "chat", .title = "Chat Completions", .rule_family = "CHAT-",
  .apis = { OC_API_CHAT, OC_API_COMPLETIONS, OC_API_MODELS, OC_API_EMBEDDINGS },
  .main_api = OC_API_CHAT, .suite = "streaming", .recordings = "llama-server",
  .clients = OC_CLIENTS_CHAT,
  .stream_open = chat_open, .stream_push = chat_push, .stream_cut = chat_cut,
  .stream_finish = chat_finish, .stream_close = chat_close, .stream_events = chat_events,
  .stream_events_json = chat_events_json, .stream_answer = chat_answer,
  .stream_timing_json = chat_timing_json, .stream_timing = chat_timing,
  .check_head = oc_chat_check_head, .check_body = oc_chat_check_body,
};

static const struct oc_protocol responses = {
  .id = OC_PROTO_RESPONSES, .name = "responses", .title = "Responses API",
  .rule_family = "RESPONSES-",
  .apis = { OC_API_RESPONSES, OC_API_RESPONSES_INPUT_TOKENS },
  .main_api = OC_API_RESPONSES, .suite = "responses", .recordings = "llama-server-responses",
  .clients = OC_CLIENTS_RESPONSES,
  .stream_open = responses_open, .stream_push = responses_push, .stream_cut = responses_cut,
  .stream_finish = responses_finish, .stream_close = responses_close,
  .stream_events = responses_events, .stream_events_json = responses_events_json,
  .stream_answer = responses_answer, .stream_timing_json = responses_timing_json,
  .stream_timing = responses_timing,
  .check_head = oc_responses_check_head, .check_body = responses_body,
};

static const struct oc_protocol messages = {
  .id = OC_PROTO_MESSAGES, .name = "messages", .title = "Messages API (Anthropic)",
  .rule_family = "MESSAGES-",
  .apis = { OC_API_MESSAGES, OC_API_MESSAGES_COUNT_TOKENS },
  .main_api = OC_API_MESSAGES, .suite = "messages", .recordings = "llama-server-messages",
  .clients = OC_CLIENTS_MESSAGES,
  .stream_open = messages_open, .stream_push = messages_push, .stream_cut = messages_cut,
  .stream_finish = messages_finish, .stream_close = messages_close,
  .stream_events = messages_events, .stream_events_json = messages_events_json,
  .stream_answer = messages_answer, .stream_timing_json = messages_timing_json,
  .stream_timing = messages_timing,
  .check_head = oc_messages_check_head, .check_body = messages_body,
  .check_error_body = oc_messages_check_error_body,
};

const struct oc_protocol *const oc_protocols[OC_PROTO__COUNT] = {
  [OC_PROTO_CHAT] = &chat,
  [OC_PROTO_RESPONSES] = &responses,
  [OC_PROTO_MESSAGES] = &messages,
};

const struct oc_protocol *oc_protocol_of(enum oc_api api)
{
  if(api == OC_API_OTHER)
    return NULL;
  for(int i = 0; i < OC_PROTO__COUNT; i++)
    for(size_t k = 0; k < sizeof(oc_protocols[i]->apis) / sizeof(oc_protocols[i]->apis[0]); k++)
      if(oc_protocols[i]->apis[k] == api)
        return oc_protocols[i];
  return NULL;
}

const struct oc_protocol *oc_protocol_find(const char *name)
{
  for(int i = 0; name && i < OC_PROTO__COUNT; i++)
    if(strcmp(name, oc_protocols[i]->name) == 0)
      return oc_protocols[i];
  return NULL;
}

const char *oc_protocol_name_of(enum oc_api api)
{
  const struct oc_protocol *p = oc_protocol_of(api);
  return p ? p->name : "other";
}

void *oc_response_stream_of(const struct oc_response *r, enum oc_protocol_id id)
{
  return r->proto && r->proto->id == id ? r->pstream : NULL;
}
