/* serves.c — which protocols a target serves (serves.h): the run's
 * own answers noted as its cases end, a probe's answer classified, what
 * recordings hold for a path, and the line and JSON the reports show.
 * Sending a probe is cmd_run.c's (through target.c); answering one is
 * server.c's. */
#include "config.h"
#include "serves.h"

#include <stdio.h>
#include <string.h>

#include "json.h"
#include "util.h"

/* the main endpoint of each protocol, in protocol.h's order */
static const char *const paths[OC_PROTO__COUNT] = { "/v1/chat/completions", "/v1/responses",
                                                    "/v1/messages" };

void oc_serves_init(struct oc_serves *p)
{
  memset(p, 0, sizeof(*p));
  p->stateful = -1;
}

const char *oc_serves_name(enum oc_protocol_id k)
{
  return k < OC_PROTO__COUNT ? oc_protocols[k]->name : "";
}

const char *oc_serves_path(enum oc_protocol_id k)
{
  return k < OC_PROTO__COUNT ? paths[k] : "";
}

enum oc_protocol_id oc_serves_protocol_of(enum oc_api api)
{
  const struct oc_protocol *p = oc_protocol_of(api);
  return p && p->main_api == api ? p->id : OC_PROTO__COUNT;
}

static int absent(int status)
{
  return status == 404 || status == 405;
}

void oc_serves_note(struct oc_serves *p, enum oc_api api, int status, int prev_id,
                       int unmatched)
{
  enum oc_protocol_id k = oc_serves_protocol_of(api);
  if(k == OC_PROTO__COUNT)
    return;
  enum oc_proto_state st = unmatched ? OC_PS_NOT_RECORDED
                           : !status ? OC_PS_UNKNOWN
                           : absent(status) ? OC_PS_NOT_SERVED
                           : status == 401 || status == 403 ? OC_PS_UNKNOWN
                                                            : OC_PS_SERVED;
  /* served wins; then what an answer said over what no answer said; a
   * case's served answer also over the probe before the run (its 400 to
   * an invalid body is weaker evidence than an answer) */
  int better = (p->state[k] != OC_PS_SERVED &&
                (st == OC_PS_SERVED || (st == OC_PS_NOT_SERVED && p->state[k] != OC_PS_NOT_SERVED) ||
                 p->state[k] == OC_PS_UNKNOWN)) ||
               (st == OC_PS_SERVED && p->from[k] == OC_PF_PROBE);
  if(better && st != OC_PS_UNKNOWN) {
    p->state[k] = (unsigned char)st;
    p->from[k] = OC_PF_RUN;
    p->status[k] = status;
  }
  if(k == OC_PROTO_RESPONSES && prev_id && !unmatched && status) {
    if(status >= 200 && status < 300)
      p->stateful = 1;
    else if(status >= 400 && status < 500 && p->stateful < 0)
      p->stateful = 0;
  }
}

enum oc_proto_state oc_serves_classify(enum oc_protocol_id k, int status,
                                          const struct oc_headers *headers, const char *body,
                                          size_t len, signed char *stateful)
{
  const char *said = headers ? oc_headers_get(headers, OC_PROBE_HEADER) : NULL;
  if(said) {
    /* oacheck serve answered from its recordings */
    const char *st = oc_headers_get(headers, OC_PROBE_STATEFUL_HEADER);
    if(st && stateful)
      *stateful = oc_streq(st, "yes") ? 1 : oc_streq(st, "no") ? 0 : *stateful;
    return oc_streq(said, "recorded") ? OC_PS_SERVED : OC_PS_NOT_RECORDED;
  }
  if(!status || status == 401 || status == 403)
    return OC_PS_UNKNOWN;
  /* a stateful server looks the id up (and may say 404 "not found"); a
   * stateless one refuses the member itself: both name it */
  int names_prev = body && (oc_memfind(body, len, "revious_response", 16) ||
                            oc_memfind(body, len, "revious response", 16));
  if(k == OC_PROTO_RESPONSES && names_prev && status >= 400) {
    int refuses = oc_memfind(body, len, "not support", 11) || oc_memfind(body, len, "unsupported", 11) ||
                  oc_memfind(body, len, "not implemented", 15);
    if(stateful)
      *stateful = refuses ? 0 : 1;
    return OC_PS_SERVED;
  }
  return absent(status) ? OC_PS_NOT_SERVED : OC_PS_SERVED;
}

/* The path without its query and a leading /v1. */
static int same_path(const char *a, const char *b)
{
  size_t na = strcspn(a, "?"), nb = strcspn(b, "?");
  if(oc_startswith(a, "/v1/"))
    a += 3, na -= 3;
  if(oc_startswith(b, "/v1/"))
    b += 3, nb -= 3;
  return na == nb && memcmp(a, b, na) == 0;
}

enum oc_proto_state oc_serves_recorded(const struct oc_cassette_store *s, enum oc_protocol_id k,
                                          signed char *stateful)
{
  enum oc_proto_state st = OC_PS_NOT_RECORDED;
  if(k >= OC_PROTO__COUNT)
    return st;
  for(size_t i = 0; i < s->count; i++) {
    const struct oc_cassette *c = &s->items[i];
    if(!c->path || !same_path(c->path, paths[k]))
      continue;
    if(!absent(c->status))
      st = OC_PS_SERVED;
    else if(st == OC_PS_NOT_RECORDED)
      st = OC_PS_NOT_SERVED;
    if(stateful && k == OC_PROTO_RESPONSES && c->req_body &&
       oc_memfind(c->req_body, c->req_body_len, "\"previous_response_id\"", 22)) {
      if(c->status >= 200 && c->status < 300)
        *stateful = 1;
      else if(c->status >= 400 && c->status < 500 && *stateful < 0)
        *stateful = 0;
    }
  }
  return st;
}

const char *oc_serves_probe_body(enum oc_protocol_id k)
{
  /* invalid on purpose (no model, no messages, an empty input): no server
   * runs a model for it; the Responses one names a response that cannot
   * exist, which a stateless server refuses by name (llama-server checks
   * that input is there first) */
  return k == OC_PROTO_RESPONSES ? "{\"previous_response_id\":\"resp_oacheck_probe\",\"input\":[]}"
                                 : "{}";
}

static const char *from_name(unsigned char f)
{
  return f == OC_PF_RUN ? "run" : f == OC_PF_PROBE ? "probe" : f == OC_PF_RECORDINGS ? "recordings"
                                                                                   : "none";
}

void oc_serves_text(const struct oc_serves *p, char *out, size_t outlen)
{
  struct oc_buf b;
  oc_buf_init(&b, 1024);
  static const struct {
    enum oc_proto_state st;
    const char *label;
  } groups[] = { { OC_PS_SERVED, "" },
                 { OC_PS_NOT_SERVED, "not served: " },
                 { OC_PS_NOT_RECORDED, "not in the recordings: " },
                 { OC_PS_UNKNOWN, "unknown: " } };
  for(size_t g = 0; g < OC_ARRAY_LEN(groups); g++) {
    int n = 0;
    for(int k = 0; k < OC_PROTO__COUNT; k++) {
      if(p->state[k] != groups[g].st)
        continue;
      oc_buf_printf(&b, "%s%s%s", n ? ", " : b.len ? "; " : "", n ? "" : groups[g].label, oc_protocols[k]->name);
      if(k == OC_PROTO_RESPONSES && groups[g].st == OC_PS_SERVED && p->stateful >= 0)
        oc_buf_printf(&b, " (%s)", p->stateful ? "stateful: takes previous_response_id"
                                               : "stateless: refuses previous_response_id");
      n++;
    }
  }
  if(!b.len)
    oc_buf_printf(&b, "none known");
  oc_strlcpy(out, oc_buf_error(&b) ? "?" : oc_buf_str(&b), outlen);
  oc_buf_free(&b);
}

cJSON *oc_serves_json(const struct oc_serves *p)
{
  int oom = 0;
  cJSON *o = cJSON_CreateObject();
  for(int k = 0; k < OC_PROTO__COUNT; k++) {
    cJSON *e = oc_json_put(&oom, o, oc_protocols[k]->name, cJSON_CreateObject());
    if(!e)
      break;
    unsigned char st = p->state[k];
    oc_json_put(&oom, e, "served", st == OC_PS_SERVED       ? cJSON_CreateTrue()
                                   : st == OC_PS_NOT_SERVED ? cJSON_CreateFalse()
                                                            : cJSON_CreateNull());
    oc_json_put_str(&oom, e, "from", from_name(p->from[k]));
    if(st == OC_PS_NOT_RECORDED)
      oc_json_put_str(&oom, e, "note", "not recorded");
    if(p->status[k])
      oc_json_put(&oom, e, "status", cJSON_CreateNumber(p->status[k]));
    if(k == OC_PROTO_RESPONSES && p->stateful >= 0)
      oc_json_put(&oom, e, "stateful", cJSON_CreateBool(p->stateful));
  }
  if(oom) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

int oc_serves_from_json(struct oc_serves *p, const cJSON *j)
{
  oc_serves_init(p);
  if(!cJSON_IsObject(j))
    return OC_ENOTFOUND;
  for(int k = 0; k < OC_PROTO__COUNT; k++) {
    const cJSON *e = oc_json_obj(j, oc_protocols[k]->name);
    const cJSON *served = oc_json_get(e, "served");
    const char *from = oc_json_str(e, "from");
    p->state[k] = cJSON_IsTrue(served)                      ? OC_PS_SERVED
                  : cJSON_IsFalse(served)                   ? OC_PS_NOT_SERVED
                  : oc_streq(oc_json_str(e, "note"), "not recorded") ? OC_PS_NOT_RECORDED
                                                            : OC_PS_UNKNOWN;
    p->from[k] = oc_streq(from, "run")          ? OC_PF_RUN
                 : oc_streq(from, "probe")      ? OC_PF_PROBE
                 : oc_streq(from, "recordings") ? OC_PF_RECORDINGS
                                                : OC_PF_NONE;
    p->status[k] = (int)oc_json_num(e, "status", 0);
    const cJSON *sf = oc_json_get(e, "stateful");
    if(k == OC_PROTO_RESPONSES && cJSON_IsBool(sf))
      p->stateful = cJSON_IsTrue(sf) ? 1 : 0;
  }
  p->decided = 1;
  return OC_OK;
}

void oc_serves_text_of(const cJSON *j, char *out, size_t outlen)
{
  struct oc_serves p;
  if(oc_serves_from_json(&p, j)) {
    if(outlen)
      out[0] = '\0';
    return;
  }
  oc_serves_text(&p, out, outlen);
}
