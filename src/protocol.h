/* protocol.h — the wire protocols oacheck checks, each a handler behind
 * one seam, the way a URL scheme is a handler behind curl's one transfer
 * engine: Chat Completions (chat.c, chat_body.c), the Responses API
 * (responses.c) and Anthropic's Messages API (messages.c).
 *
 * A protocol owns its endpoints (enum oc_api), its stream decoder (opened,
 * fed, finished and freed through the handler, which response.c holds as an
 * opaque pointer), the rules of its non-streamed and error bodies, its
 * client models (a bit set of enum oc_client_id; their family is
 * pclient.h's for the typed-event protocols), its agents, and the shipped
 * suite and recordings that `oacheck run NAME` finds.  The response
 * decoder, the runner, the reports, serve, proxy, check and record go
 * through this table and never ask which protocol they carry; a protocol is
 * added as one file of its own and one line in protocol.c's table
 * (HACKING.md, "Add a protocol"). */
#ifndef OC_PROTOCOL_H
#define OC_PROTOCOL_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "jdoc.h"
#include "request.h"

struct oc_check;
struct oc_response;
struct oc_stream_timing;

/* Append only: the order of every report's protocol blocks. */
enum oc_protocol_id {
  OC_PROTO_CHAT = 0,
  OC_PROTO_RESPONSES,
  OC_PROTO_MESSAGES,
  OC_PROTO__COUNT
};

struct oc_protocol {
  enum oc_protocol_id id;
  const char *name;             /* "chat": results, options, suites */
  const char *title;            /* "Chat Completions": what the reports print */
  const char *rule_family;      /* the prefix of the rules that are its own ("RESPONSES-");
                                   chat's are the catalogue's older families */
  enum oc_api apis[4];          /* the endpoints it owns, OC_API_OTHER-terminated */
  enum oc_api main_api;         /* the one that answers (the others count or list) */
  const char *suite;            /* the shipped suite `oacheck run NAME` runs */
  const char *recordings;       /* shipped recordings it replays with no target; NULL: none */
  unsigned clients;             /* its client models (client.h's OC_CLIENTS_CHAT, …) */

  /* ---- its event-stream decoder, behind an opaque handle ---- */
  /* Start decoding r's body as an event stream (ok: a 2xx, whose events
   * the client models read).  NULL when memory runs out. */
  void *(*stream_open)(struct oc_response *r, int ok);
  int (*stream_push)(void *s, const void *p, size_t n, uint64_t t_ns);
  /* The transport cut the body: 1 the first time (the caller says so once) */
  int (*stream_cut)(void *s);
  void (*stream_finish)(void *s, uint64_t t_ns);
  void (*stream_close)(void *s); /* frees what stream_open made */
  long (*stream_events)(const void *s);
  cJSON *(*stream_events_json)(const void *s, int *truncated);
  /* the answer it rebuilt (a chat.completion, a Response, a Message) */
  cJSON *(*stream_answer)(const void *s);
  cJSON *(*stream_timing_json)(const void *s);
  struct oc_stream_timing *(*stream_timing)(void *s);

  /* ---- its bodies ---- */
  /* Rules on the status alone, before any body (NULL: none). */
  void (*check_head)(struct oc_check *c, const struct oc_request_info *req, int status);
  /* A 2xx JSON body of one of its endpoints. */
  void (*check_body)(struct oc_response *r, const struct oc_jv *root);
  /* An error body (root NULL: not JSON); NULL: the OpenAI error shape
   * response.c checks by default. */
  void (*check_error_body)(struct oc_check *c, int status, const struct oc_jv *root);
};

extern const struct oc_protocol *const oc_protocols[OC_PROTO__COUNT];

/* The protocol that owns an endpoint; NULL for the server's extras
 * (/health, /props, …: response.c's generic JSON rules). */
const struct oc_protocol *oc_protocol_of(enum oc_api api);
/* By name ("chat", "responses", "messages"); NULL when unknown. */
const struct oc_protocol *oc_protocol_find(const char *name);
/* Its name for an endpoint, "other" when none owns it. */
const char *oc_protocol_name_of(enum oc_api api);

/* The decoder state of r's stream when r is of protocol id (agents and
 * expectations of one protocol read it), else NULL. */
void *oc_response_stream_of(const struct oc_response *r, enum oc_protocol_id id);

#endif
