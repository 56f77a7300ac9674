/* response.c — one HTTP response through the generic rules: status and
 * media type, OpenAI error bodies, JSON bodies against their endpoint's
 * schema, non-streamed chat choices through the message rules, and event
 * streams through chat.c.  The decode path follows what arrived (an SSE
 * body is parsed as a stream even when JSON was asked for), so a server
 * answering in the wrong mode is both reported and still examined. */
#include "config.h"
#include "response.h"

#include <openssl/evp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cassette.h"
#include "datadir.h"
#include "dialect.h"
#include "json.h"
#include "schema.h"
#include "secret.h"
#include "util.h"
#include "verdict.h"

/* ---- schemas ------------------------------------------------------------------ */

struct schema_slot {
  const char *rel;
  size_t offset;
};

#define SLOT(rel, field) { rel, offsetof(struct oc_schemas, field) }
static const struct schema_slot schema_slots[] = {
  SLOT("chat.completion.json", chat),
  SLOT("chat.completion.chunk.json", chunk),
  SLOT("error.json", error),
  SLOT("models.list.json", models),
  SLOT("text_completion.json", text_completion),
  SLOT("text_completion.chunk.json", text_completion_chunk),
  SLOT("embeddings.json", embeddings),
  SLOT("llama-server/health.json", ls_health),
  SLOT("llama-server/props.json", ls_props),
  SLOT("llama-server/slots.json", ls_slots),
  SLOT("llama-server/tokenize.json", ls_tokenize),
  SLOT("llama-server/apply-template.json", ls_apply_template),
  SLOT("responses/response.json", responses_response),
  SLOT("responses/stream-event.json", responses_event),
  SLOT("messages/message.json", messages_message),
  SLOT("messages/stream-event.json", messages_event),
};
#undef SLOT

/* The documents the nullable-required walk may pass through: every
 * compiled one, and common.json that they refer to. */
static const char *doc_rel(size_t i)
{
  return i < OC_ARRAY_LEN(schema_slots) ? schema_slots[i].rel
       : i == OC_ARRAY_LEN(schema_slots) ? "common.json" : NULL;
}

int oc_schemas_load_registry(struct oc_schemas *s, char *err, size_t errlen)
{
  memset(s, 0, sizeof(*s));
  s->reg = oc_schema_registry_new();
  if(!s->reg) {
    snprintf(err, errlen, "out of memory");
    return OC_ENOMEM;
  }
  int rc = oc_schema_registry_add_shipped(s->reg, err, errlen);
  if(rc)
    oc_schemas_free(s);
  return rc;
}

int oc_schemas_compile(struct oc_schemas *s, char *err, size_t errlen)
{
  if(s->chat)
    return OC_OK; /* compiled already */
  int rc = OC_ENOMEM;
  char *dir = oc_data_path("schemas");
  if(!dir)
    goto out;
  _Static_assert(OC_ARRAY_LEN(schema_slots) + 1 <= OC_ARRAY_LEN(s->docs), "docs[] too small");
  for(size_t i = 0; doc_rel(i); i++) {
    char *path = oc_path_join(dir, doc_rel(i));
    s->docs[i] = path ? oc_json_parse_file(path, err, errlen) : NULL;
    free(path);
    if(!s->docs[i]) {
      rc = path ? OC_EPARSE : OC_ENOMEM;
      goto out;
    }
  }
  for(size_t i = 0; i < OC_ARRAY_LEN(schema_slots); i++) {
    char uri[256];
    snprintf(uri, sizeof(uri), "%s%s", OC_SCHEMA_SHIPPED_BASE, schema_slots[i].rel);
    char inner[512];
    struct oc_schema *c = oc_schema_compile_uri(s->reg, uri, 0, inner, sizeof(inner));
    if(!c) {
      snprintf(err, errlen, "%s/%s: %s", dir, schema_slots[i].rel, inner);
      rc = OC_EPARSE;
      goto out;
    }
    *(struct oc_schema **)((char *)s + schema_slots[i].offset) = c;
  }
  rc = OC_OK;
out:
  free(dir);
  if(rc)
    oc_schemas_free(s);
  return rc;
}

int oc_schemas_load(struct oc_schemas *s, char *err, size_t errlen)
{
  int rc = oc_schemas_load_registry(s, err, errlen);
  return rc ? rc : oc_schemas_compile(s, err, errlen);
}

void oc_schemas_free(struct oc_schemas *s)
{
  if(!s)
    return;
  for(size_t i = 0; i < OC_ARRAY_LEN(schema_slots); i++)
    oc_schema_free(*(struct oc_schema **)((char *)s + schema_slots[i].offset));
  oc_schema_registry_free(s->reg);
  for(size_t i = 0; i < OC_ARRAY_LEN(s->docs); i++)
    cJSON_Delete(s->docs[i]);
  memset(s, 0, sizeof(*s));
}

static const cJSON *schema_doc(const struct oc_schemas *s, const char *rel)
{
  for(size_t i = 0; doc_rel(i); i++)
    if(strcmp(doc_rel(i), rel) == 0)
      return s->docs[i];
  return NULL;
}

int oc_schemas_error_severity(const struct oc_schemas *s, const struct oc_check *c,
                              const char *rel, const struct oc_schema_error *e)
{
  if(!s || !rel || !e->keyword || strcmp(e->keyword, "required") != 0 || !e->message ||
     !e->schema_path)
    return -1;
  /* the property: the validator quotes it in the message */
  const char *q = strchr(e->message, '"');
  const char *qe = q ? strchr(q + 1, '"') : NULL;
  if(!qe || qe - q - 1 >= 128)
    return -1;
  char prop[128];
  memcpy(prop, q + 1, (size_t)(qe - q - 1));
  prop[qe - q - 1] = '\0';
  char dir[128]; /* folder of the current document, relative to schemas/ */
  oc_strlcpy(dir, rel, sizeof(dir));
  char *slash = strrchr(dir, '/');
  *(slash ? slash + 1 : dir) = '\0';
  const cJSON *root = schema_doc(s, rel), *node = root;
  for(const char *p = e->schema_path; node && *p == '/';) {
    size_t n = strcspn(p + 1, "/");
    char tok[128];
    if(n >= sizeof(tok))
      return -1;
    /* RFC 6901 unescaping: ~1 is '/', ~0 is '~' */
    size_t k = 0;
    for(size_t i = 0; i < n; i++) {
      char ch = p[1 + i];
      if(ch == '~' && i + 1 < n && (p[2 + i] == '0' || p[2 + i] == '1'))
        ch = p[2 + i++] == '1' ? '/' : '~';
      tok[k++] = ch;
    }
    tok[k] = '\0';
    p += n + 1;
    if(!*p && strcmp(tok, "required") == 0) {
      const cJSON *ps = oc_json_obj(oc_json_obj(node, "properties"), prop);
      return cJSON_IsTrue(oc_json_get(ps, "x-oacheck-nullable-required"))
               ? (int)c->profile->nullable_required : -1;
    }
    if(strcmp(tok, "$ref") == 0) {
      const char *ref = oc_json_str(node, "$ref");
      if(!ref)
        return -1;
      const char *hash = strchr(ref, '#');
      size_t rn = hash ? (size_t)(hash - ref) : strlen(ref);
      if(rn) {
        /* another shipped document, relative to this one's folder */
        char target[256];
        if(rn >= 3 && strncmp(ref, "../", 3) == 0)
          snprintf(target, sizeof(target), "%.*s", (int)(rn - 3), ref + 3);
        else
          snprintf(target, sizeof(target), "%s%.*s", dir, (int)rn, ref);
        root = schema_doc(s, target);
        oc_strlcpy(dir, target, sizeof(dir));
        slash = strrchr(dir, '/');
        *(slash ? slash + 1 : dir) = '\0';
      }
      node = root && hash && hash[1] ? oc_json_pointer(root, hash + 1) : root;
      continue;
    }
    if(cJSON_IsArray(node)) {
      long i = 0;
      node = oc_parse_long(tok, 0, 1L << 20, &i) == 0 ? cJSON_GetArrayItem(node, (int)i) : NULL;
    }
    else
      node = oc_json_get(node, tok);
  }
  return -1;
}

/* ---- lifecycle ---------------------------------------------------------------- */

/* Everything zero but the stream, which oc_stream_init prepares when a
 * stream starts (stream_started says so) and which is 25 KB to clear. */
static void response_zero(struct oc_response *r)
{
  memset(r, 0, offsetof(struct oc_response, stream));
  memset(&r->body, 0, sizeof(*r) - offsetof(struct oc_response, body));
}

void oc_response_init(struct oc_response *r, const struct oc_request_info *req,
                      struct oc_check *check, const struct oc_schemas *schemas, uint64_t t_sent,
                      int timing_recorded, int keep_events)
{
  response_zero(r);
  r->req = req;
  r->check = check;
  r->schemas = schemas;
  r->t_sent = t_sent;
  r->timing_recorded = timing_recorded;
  r->keep_events = keep_events;
  r->proto = oc_protocol_of(req->api);
  oc_headers_init(&r->headers);
  oc_buf_init(&r->body, OC_CAP_BODY);
  for(int i = 0; i < OC_CLIENT__COUNT; i++) {
    r->verdicts[i].outcome = OC_CO_NOT_EXERCISED;
    r->verdicts[i].works = -1;
  }
}

/* The protocol's stream decoder takes the body from here on. */
static void start_stream(struct oc_response *r, int ok)
{
  if(!r->proto) /* an extra of the server's (/health, …) read as chat's stream */
    r->proto = oc_protocols[OC_PROTO_CHAT];
  if(!(r->pstream = r->proto->stream_open(r, ok))) {
    r->check->oom = 1;
    return;
  }
  r->stream_started = 1;
}

struct oc_stream_timing *oc_response_stream_timing(struct oc_response *r)
{
  return r->stream_started ? r->proto->stream_timing(r->pstream) : NULL;
}

int oc_response_head(struct oc_response *r, int status, const struct oc_headers *headers,
                     uint64_t t_ns)
{
  r->status = status;
  r->t_head = t_ns;
  oc_headers_free(&r->headers);
  if(headers && oc_headers_copy(&r->headers, headers))
    return OC_ENOMEM;
  oc_media_type(oc_headers_get(&r->headers, "Content-Type"), r->media, sizeof(r->media));
  r->is_sse = strcmp(r->media, "text/event-stream") == 0;
  struct oc_check *c = r->check;
  const char *acao = oc_headers_get(&r->headers, "Access-Control-Allow-Origin");
  if(acao && !*acao)
    oc_emit(c, OC_R_HTTP_CORS_ORIGIN, OC_AT(.expected = "'*' or an origin", .actual = "empty"),
            "the response carries an empty Access-Control-Allow-Origin header");
  int ok = status >= 200 && status < 300;
  if(r->proto && r->proto->check_head)
    r->proto->check_head(c, r->req, status);
  int chatlike = oc_api_streams(r->req->api);
  if(ok && chatlike && r->req->stream && !r->is_sse)
    oc_emit(c, OC_R_STREAM_CONTENT_TYPE,
            OC_AT(.expected = "text/event-stream",
                  .actual = r->media[0] ? r->media : "no Content-Type"),
            "stream:true was asked but the response is %s", r->media[0] ? r->media : "untyped");
  else if(ok && r->req->api != OC_API_OTHER && !r->req->stream && strcmp(r->media, "application/json") != 0)
    oc_emit(c, OC_R_HTTP_CONTENT_TYPE,
            OC_AT(.expected = "application/json",
                  .actual = r->media[0] ? r->media : "no Content-Type"),
            "a non-streamed response is %s, not application/json",
            r->media[0] ? r->media : "untyped");
  if(oc_clients_of_api(r->req->api) && !r->clients) {
    /* a model that cannot be set up leaves its clients not exercised */
    r->clients = oc_clients_new(r->req, r->schemas ? r->schemas->reg : NULL, OC_CLIENTS_MODELLED(c->clients));
    if(r->clients) {
      oc_clients_set_partial(r->clients, c->partial);
      oc_clients_head(r->clients, status, NULL, &r->headers);
    }
    else
      c->oom = 1;
  }
  if(r->is_sse)
    start_stream(r, ok);
  else if(ok && chatlike && r->req->stream)
    r->sniffing = 1;
  return OC_OK;
}

/* stream:true answered under another media type: an event stream all the
 * same unless the body is JSON (a server ignoring stream), which is how
 * every client reads it (client.c decodes it as a stream), so a stream
 * relabelled by a proxy is judged as the stream it is and its label alone
 * is the finding.  The blank bytes before the first that decides are in
 * r->body and go to the stream first. */
static int sniff(struct oc_response *r, const void *p, size_t n, uint64_t t_ns)
{
  const char *q = p;
  size_t i = 0;
  while(i < n && (q[i] == ' ' || q[i] == '\t' || q[i] == '\r' || q[i] == '\n'))
    i++;
  if(i == n)
    return OC_OK;
  r->sniffing = 0;
  if(q[i] == '{' || q[i] == '[')
    return OC_OK;
  r->is_sse = 1;
  start_stream(r, 1);
  return r->body.len && r->stream_started
           ? r->proto->stream_push(r->pstream, r->body.data, r->body.len, t_ns)
           : OC_OK;
}

int oc_response_body(struct oc_response *r, const void *p, size_t n, uint64_t t_ns)
{
  r->body_bytes += n;
  if(r->sniffing) {
    int rc = sniff(r, p, n, t_ns);
    if(rc)
      return rc;
  }
  if(r->is_sse) {
    /* keep the first bytes for the report; the stream keeps its events */
    if(r->body.len < OC_CAP_RESULT_BODY) {
      size_t room = OC_CAP_RESULT_BODY - r->body.len;
      if(oc_buf_add(&r->body, p, n < room ? n : room))
        r->check->oom = 1; /* it fits the cap: only memory ran out */
    }
    return r->stream_started ? r->proto->stream_push(r->pstream, p, n, t_ns) : OC_OK;
  }
  if(!r->body_overflow) {
    /* past the cap the body is not examined (the bytes before it stay
     * for the report); running out of memory is the check's failure */
    int rc = oc_buf_add(&r->body, p, n);
    if(rc == OC_ENOMEM)
      r->check->oom = 1;
    else if(rc)
      r->body_overflow = 1;
  }
  return OC_OK;
}

/* ---- non-streamed bodies ---------------------------------------------------------- */

void oc_response_schema_findings(struct oc_response *r, const struct oc_schema *schema, const char *rel,
                                 const struct oc_jv *root, enum oc_rule_id rule, const char *what)
{
  if(!schema)
    return;
  struct oc_schema_result res;
  oc_schema_result_init(&res);
  res.max = 20;
  int v = oc_schema_validate(schema, root, &res);
  if(v == -OC_ETOOBIG)
    oc_check_limit(r->check, "the %s could not be validated against %s: %s", what, rel ? rel : "its schema",
                   res.undecided);
  else if(v < 0)
    r->check->oom = 1; /* no verdict from a validation that could not finish */
  else if(v == 0)
    for(size_t i = 0; i < res.count; i++) {
      const struct oc_schema_error *e = &res.errors[i];
      int sev = oc_schemas_error_severity(r->schemas, r->check, rel, e);
      oc_emit(r->check, rule,
              OC_AT(.byte = (int64_t)e->offset, .path = e->instance_path, .expected = e->keyword,
                    .actual = e->message, .severity = sev),
              "%s: at '%s': %s", what, e->instance_path, e->message);
    }
  oc_schema_result_free(&res);
}

static void check_error_body(struct oc_response *r, const struct oc_jv *root)
{
  struct oc_check *c = r->check;
  if(r->proto && r->proto->check_error_body) {
    r->proto->check_error_body(c, r->status, root);
    return;
  }
  if(!root) {
    char ex[96];
    size_t n = r->body.len < 60 ? r->body.len : 60;
    snprintf(ex, sizeof(ex), "%.*s%s", (int)n, oc_buf_str(&r->body), r->body.len > 60 ? "…" : "");
    /* an empty body is not "JSON of the wrong type": nothing says why */
    if(!r->body.len)
      oc_emit(c, OC_R_ERROR_SHAPE,
              OC_AT(.byte = 0, .expected = "{\"error\": {message, type, param, code}}", .actual = "an empty body"),
              "the HTTP %d body is empty: no error object says why", r->status);
    else
      oc_emit(c, OC_R_ERROR_SHAPE,
              OC_AT(.byte = 0, .expected = "{\"error\": {message, type, param, code}}", .actual = ex),
              "the HTTP %d body is not JSON (%s)", r->status, r->media[0] ? r->media : "untyped");
    return;
  }
  const struct oc_jv *err = oc_jv_get(root, "error");
  if(!err || err->type != OC_JOBJECT) {
    /* the byte of what is there instead, or of the body that lacks it */
    oc_emit(c, OC_R_ERROR_SHAPE,
            OC_AT(.byte = (err ? err : root)->offset, .path = "/error", .expected = "an object",
                  .actual = err ? oc_jv_type_name(err) : "absent"),
            "the HTTP %d body has no \"error\" object%s", r->status,
            err && err->type == OC_JSTRING ? " (a bare string: openai-node shows '(no body)')" : "");
    return;
  }
  oc_response_schema_findings(r, r->schemas ? r->schemas->error : NULL, "error.json", root, OC_R_ERROR_SHAPE,
                  "error body");
  size_t mlen = 0;
  const char *msg = oc_jv_str(err, "message", &mlen);
  char fmt[64];
  if(msg && r->status >= 500 && oc_dialect_parse_failure(msg, mlen, fmt, sizeof(fmt)))
    oc_emit(c, OC_R_CHAT_OUTPUT_PARSE,
            OC_AT(.byte = err->offset, .path = "/error/message",
                  .expected = "the model's output as an answer", .actual = "a parser error"),
            "HTTP %d: the server could not parse the model's output as its template's %s "
            "format (\"%.*s\")", r->status, *fmt ? fmt : "output", (int)(mlen < 200 ? mlen : 200),
            msg);
}

static const struct oc_schema *other_schema(const struct oc_response *r, const char **rel)
{
  const char *p = r->req->path;
  if(!r->schemas || !p)
    return NULL;
  size_t n = strcspn(p, "?");
  struct {
    const char *path, *rel;
    const struct oc_schema *schema;
  } map[] = {
    { "/health", "llama-server/health.json", r->schemas->ls_health },
    { "/props", "llama-server/props.json", r->schemas->ls_props },
    { "/slots", "llama-server/slots.json", r->schemas->ls_slots },
    { "/tokenize", "llama-server/tokenize.json", r->schemas->ls_tokenize },
    { "/apply-template", "llama-server/apply-template.json", r->schemas->ls_apply_template },
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(map); i++)
    if(strlen(map[i].path) == n && strncmp(p, map[i].path, n) == 0) {
      *rel = map[i].rel;
      return map[i].schema;
    }
  return NULL;
}

static void finish_decode(struct oc_response *r, uint64_t t_ns, int complete);

static void finish_json(struct oc_response *r)
{
  struct oc_check *c = r->check;
  int ok = r->status >= 200 && r->status < 300;
  int want_json = r->req->api != OC_API_OTHER || strcmp(r->media, "application/json") == 0 ||
                  (!ok && r->status >= 400);
  if(r->body_overflow) {
    oc_emit(c, OC_R_JSON_BODY, OC_AT(.expected = "a body under 64 MiB", .actual = "larger"),
            "the response body exceeds oacheck's cap and was not examined");
    return;
  }
  if(!want_json)
    return;
  struct oc_jdoc doc;
  struct oc_jerr jerr;
  oc_jdoc_init(&doc);
  int rc = oc_jdoc_parse(&doc, oc_buf_str(&r->body), r->body.len, &jerr);
  if(rc == OC_ENOMEM) { /* a body that could not be read has no verdict */
    c->oom = 1;
    goto out;
  }
  const struct oc_jv *root = rc ? NULL : doc.root;
  if(root && doc.arena_used > OC_CAP_PARSED_ARENA)
    r->parsed_too_big = 1;
  else if(root && !(r->parsed = oc_jv_to_cjson(root)))
    c->oom = 1;
  if(r->status >= 400) {
    check_error_body(r, root);
    goto out;
  }
  if(!root) {
    char ex[96];
    size_t at = jerr.offset < r->body.len ? jerr.offset : r->body.len;
    snprintf(ex, sizeof(ex), "%.40s", oc_buf_str(&r->body) + at);
    oc_emit(c, OC_R_JSON_BODY,
            OC_AT(.byte = (int64_t)jerr.offset, .expected = "JSON",
                  .actual = r->body.len ? ex : "an empty body"),
            "the response body is not JSON: %s at byte %zu",
            jerr.message ? jerr.message : "parse error", jerr.offset);
    goto out;
  }
  /* RFC 8259 section 8.1: JSON exchanged between systems is UTF-8.  The
   * parser reads other bytes inside strings; openai-python's json.loads
   * on the body's bytes raises UnicodeDecodeError. */
  size_t bad = 0;
  if(!oc_utf8_valid((const unsigned char *)oc_buf_str(&r->body), r->body.len, &bad)) {
    char act[32];
    snprintf(act, sizeof(act), "byte 0x%02X", (unsigned)(unsigned char)oc_buf_str(&r->body)[bad]);
    oc_emit(c, OC_R_JSON_BODY, OC_AT(.byte = (int64_t)bad, .expected = "UTF-8", .actual = act),
            "the response body is not UTF-8 (RFC 8259 section 8.1): byte 0x%02X at byte %zu",
            (unsigned)(unsigned char)oc_buf_str(&r->body)[bad], bad);
  }
  if(!ok)
    goto out;
  /* An error body under a success status (LM Studio's unknown route, L1):
   * clients see success and then miss every field.  Said once, with the
   * error's own shape, instead of as a pile of missing completion fields. */
  const struct oc_jv *err = oc_jv_get(root, "error");
  if(r->req->api != OC_API_OTHER && err && err->type != OC_JNULL && err->type != OC_JFALSE) {
    size_t mlen = 0;
    const char *msg = err->type == OC_JSTRING ? err->u.str : oc_jv_str(err, "message", &mlen);
    if(err->type == OC_JSTRING)
      mlen = err->len;
    char act[16];
    snprintf(act, sizeof(act), "%d", r->status);
    oc_emit(c, OC_R_ERROR_STATUS,
            OC_AT(.byte = err->offset, .path = "/error", .expected = "a 4xx or 5xx status",
                  .actual = act),
            "the HTTP %d body is an error (\"%.*s\"): clients take it for a success",
            r->status, (int)(mlen < 200 ? mlen : 200), msg ? msg : "");
    check_error_body(r, root);
    goto out;
  }
  if(r->proto) {
    r->proto->check_body(r, root);
    goto out;
  }
  {
    const char *rel = NULL;
    const struct oc_schema *sc = other_schema(r, &rel);
    oc_response_schema_findings(r, sc, rel, root, OC_R_JSON_SCHEMA, r->req->path);
  }
out:
  oc_jdoc_free(&doc);
}

/* The client models' verdicts, then the verdict policy over the findings. */
static void judge_clients(struct oc_response *r, int complete)
{
  if(r->clients) {
    if(!(r->is_sse && r->status >= 200 && r->status < 300) && !r->body_overflow)
      oc_clients_body(r->clients, oc_buf_str(&r->body), r->body.len);
    if(!r->body_overflow) {
      oc_clients_finish(r->clients, complete, r->verdicts);
      /* a protocol whose clients have no model yet has no verdict */
      for(int i = 0; i < OC_CLIENT__COUNT && !r->judged; i++)
        r->judged = r->verdicts[i].modelled;
    }
    if(oc_clients_oom(r->clients))
      r->check->oom = 1;
  }
  oc_verdict_apply(r->check, r->judged ? r->verdicts : NULL, r->agents);
}

void oc_response_finish(struct oc_response *r, uint64_t t_ns, int complete)
{
  if(r->finished)
    return;
  r->finished = 1;
  r->t_end = t_ns;
  finish_decode(r, t_ns, complete);
  /* cut by whoever captured it (the proxy's client leaving, its stop,
   * oacheck's own budget), which is known only now: the models judge
   * what arrived, and a cut connection is no client's break by the server */
  if(r->check->partial && r->clients)
    oc_clients_set_partial(r->clients, 1);
  /* a capture cut by whoever made it does not show how the stream ended,
   * which is what the agents read; they are judged before the verdict
   * policy, which weighs their breaks with the clients' */
  if(!r->check->partial)
    oc_agents_judge(r, complete, r->agents);
  judge_clients(r, complete || r->check->partial);
}

static void finish_decode(struct oc_response *r, uint64_t t_ns, int complete)
{
  if(r->is_sse) {
    if(r->status >= 400)
      check_error_body(r, NULL);
    else if(r->stream_started) {
      /* A connection that ended before the body was complete cut the
       * stream, even when the cut fell between two events. */
      if(!complete && !r->check->partial && r->proto->stream_cut(r->pstream))
        oc_emit(r->check, OC_R_STREAM_TRUNCATED,
                OC_AT(.byte = (int64_t)r->body_bytes, .expected = "a complete body",
                      .actual = "the connection ended early"),
                "the connection ended after %llu body bytes, before the response was "
                "complete", (unsigned long long)r->body_bytes);
      r->proto->stream_finish(r->pstream, t_ns);
    }
    return;
  }
  if(!complete) {
    if(r->check->partial)
      return; /* cut by whoever captured it (oacheck's own timeout): not the server's doing */
    oc_emit(r->check, OC_R_JSON_BODY,
            OC_AT(.byte = (int64_t)r->body_bytes, .expected = "a complete body",
                  .actual = "the connection ended early"),
            "the connection ended after %llu body bytes, before the body was complete",
            (unsigned long long)r->body_bytes);
    return;
  }
  finish_json(r);
}

void oc_response_free(struct oc_response *r)
{
  oc_clients_free(r->clients);
  oc_headers_free(&r->headers);
  if(r->stream_started)
    r->proto->stream_close(r->pstream);
  oc_buf_free(&r->body);
  cJSON_Delete(r->parsed);
  for(size_t i = 0; i < r->nmessages; i++)
    oc_message_free(&r->messages[i]);
  free(r->messages);
  response_zero(r);
}

int oc_response_replay(struct oc_response *r, const struct oc_cassette *c, uint64_t t0,
                       uint64_t *t_end)
{
  int timing = c->timing_recorded;
  uint64_t last = timing && c->npieces ? t0 + c->pieces[c->npieces - 1].t_ns : 0;
  *t_end = last;
  /* every piece is pushed whatever an earlier one returned, as live
   * traffic keeps arriving: the first failure is what is returned */
  int rc = oc_response_head(r, c->status, &c->headers, timing ? t0 + c->headers_ns : 0);
  size_t at = 0;
  for(size_t i = 0; i < c->npieces && at < c->body_len; i++) {
    size_t end = c->pieces[i].end < c->body_len ? c->pieces[i].end : c->body_len;
    if(end > at) {
      int brc = oc_response_body(r, c->body + at, end - at, timing ? t0 + c->pieces[i].t_ns : 0);
      rc = rc ? rc : brc;
    }
    at = end;
  }
  if(at < c->body_len) {
    int brc = oc_response_body(r, c->body + at, c->body_len - at, last);
    rc = rc ? rc : brc;
  }
  return rc;
}

/* ---- JSON for the results ------------------------------------------------------------ */

cJSON *oc_headers_json(const struct oc_headers *h)
{
  int oom = 0;
  cJSON *arr = cJSON_CreateArray();
  for(size_t i = 0; arr && !oom && h && i < h->count; i++) {
    const char *value = oc_header_is_secret(h->items[i].name) ? "[redacted]" : h->items[i].value;
    char *name = oc_utf8_sanitize(h->items[i].name, strlen(h->items[i].name));
    char *v = oc_utf8_sanitize(value, strlen(value));
    const char *pair[2] = { name, v };
    oc_json_put(&oom, arr, NULL, name && v ? cJSON_CreateStringArray(pair, 2) : NULL);
    free(name);
    free(v);
  }
  if(oom) {
    cJSON_Delete(arr);
    return NULL;
  }
  return arr;
}

cJSON *oc_body_json(const char *body, size_t n, size_t cap)
{
  int oom = 0;
  cJSON *o = cJSON_CreateObject();
  size_t keep = n < cap ? n : cap;
  /* masked as bytes: in base64 a quoted key would pass any later mask.
   * The copy reaches a little past the cut, so that a secret straddling
   * it is masked whole and the cut can find a character boundary. */
  size_t span = n - keep < 1024 ? n : keep + 1024;
  char *p = oc_secret_masked(body, span);
  if(!p) {
    cJSON_Delete(o);
    return NULL;
  }
  /* cut on a character boundary */
  while(keep > 0 && keep < n && ((unsigned char)p[keep] & 0xC0) == 0x80)
    keep--;
  size_t bad;
  int text = oc_utf8_valid((const unsigned char *)p, keep, &bad) && !memchr(p, '\0', keep);
  if(text) {
    char *s = oc_strndup(p, keep);
    oc_json_put(&oom, o, "text", s ? cJSON_CreateString(s) : NULL);
    free(s);
  }
  else {
    size_t blen = 4 * ((keep + 2) / 3) + 1;
    unsigned char *b = malloc(blen);
    if(b)
      EVP_EncodeBlock(b, (const unsigned char *)p, (int)keep);
    oc_json_put(&oom, o, "base64", b ? cJSON_CreateString((const char *)b) : NULL);
    free(b);
  }
  oc_json_put(&oom, o, "bytes", cJSON_CreateNumber((double)n));
  oc_json_put(&oom, o, "truncated", cJSON_CreateBool(keep < n));
  oc_json_put(&oom, o, "cap", cJSON_CreateNumber((double)cap));
  free(p);
  if(oom) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

/* Timing of a response that is not a stream; NULL when memory runs out. */
static cJSON *plain_timing_json(const struct oc_response *r)
{
  int oom = 0;
  cJSON *t = cJSON_CreateObject();
  int rec = r->timing_recorded && r->t_sent && r->t_end >= r->t_sent;
  oc_json_put(&oom, t, "recorded", cJSON_CreateBool(rec));
  /* a server may answer before the request was sent in full: then
   * there is no meaningful time to the first byte */
  if(rec && r->t_head >= r->t_sent)
    oc_json_put(&oom, t, "first_byte_ms", cJSON_CreateNumber((double)(r->t_head - r->t_sent) / 1e6));
  else if(rec)
    oc_json_put(&oom, t, "first_byte_ms", cJSON_CreateNull());
  if(rec)
    oc_json_put(&oom, t, "total_ms", cJSON_CreateNumber((double)(r->t_end - r->t_sent) / 1e6));
  if(oom) {
    cJSON_Delete(t);
    return NULL;
  }
  return t;
}

unsigned char *oc_base64_decode(const char *s, size_t *outlen)
{
  size_t n = strlen(s);
  char *clean = malloc(n + 4);
  unsigned char *out = NULL;
  if(!clean)
    return NULL;
  size_t k = 0;
  for(size_t i = 0; i < n; i++)
    if(s[i] != '\n' && s[i] != '\r' && s[i] != ' ')
      clean[k++] = s[i];
  while(k % 4)
    clean[k++] = '=';
  out = malloc(k / 4 * 3 + 1);
  if(!out)
    goto out;
  int got = EVP_DecodeBlock(out, (const unsigned char *)clean, (int)k);
  if(got < 0) {
    free(out);
    out = NULL;
    goto out;
  }
  size_t pad = 0;
  while(pad < 2 && k > pad && clean[k - 1 - pad] == '=')
    pad++;
  *outlen = (size_t)got >= pad ? (size_t)got - pad : 0;
  out[*outlen] = '\0';
out:
  free(clean);
  return out;
}

cJSON *oc_response_json(const struct oc_response *r, cJSON **message, cJSON **timing)
{
  if(message)
    *message = NULL;
  if(timing)
    *timing = NULL;
  int oom = 0;
  cJSON *o = cJSON_CreateObject();
  oc_json_put(&oom, o, "status", cJSON_CreateNumber(r->status));
  oc_json_put(&oom, o, "headers", oc_headers_json(&r->headers));
  if(r->media[0]) {
    const char *ct = oc_headers_get(&r->headers, "Content-Type");
    char *t = oc_utf8_sanitize(ct, strlen(ct));
    oc_json_put(&oom, o, "content_type", t ? cJSON_CreateString(t) : NULL);
    free(t);
  }
  else
    oc_json_put(&oom, o, "content_type", cJSON_CreateNull());
  cJSON *body = oc_json_put(&oom, o, "body",
                            oc_body_json(oc_buf_str(&r->body), r->body.len, OC_CAP_RESULT_BODY));
  /* the real size, not just what was kept */
  oc_json_set(&oom, body, "bytes", cJSON_CreateNumber((double)r->body_bytes));
  if(r->body_bytes > r->body.len)
    oc_json_set(&oom, body, "truncated", cJSON_CreateTrue());
  /* each choice's reasoning beside its answer: where it came, in what
   * order, and its text (bounded as a result's message is) */
  int chat_stream = r->is_sse && r->stream_started && r->proto->id == OC_PROTO_CHAT;
  const struct oc_message *ms = chat_stream ? r->stream.choices : r->messages;
  size_t nms = chat_stream ? r->stream.nchoices : r->nmessages;
  cJSON *reasoning = NULL;
  for(size_t i = 0; !oom && i < nms && i < 8; i++) {
    cJSON *one = oc_reasoning_json(&ms[i], OC_CAP_RESULT_REASONING, &oom);
    if(one && !reasoning && !(reasoning = oc_json_put(&oom, o, "reasoning", cJSON_CreateArray()))) {
      cJSON_Delete(one);
      break;
    }
    if(one)
      oc_json_put(&oom, reasoning, NULL, one);
  }
  if(r->is_sse && r->stream_started) {
    int cut = 0;
    oc_json_put(&oom, o, "events", r->proto->stream_events_json(r->pstream, &cut));
    oc_json_put(&oom, o, "events_total", cJSON_CreateNumber((double)r->proto->stream_events(r->pstream)));
    oc_json_put(&oom, o, "events_truncated", cJSON_CreateBool(cut));
    if(message && !oom && !(*message = r->proto->stream_answer(r->pstream)))
      oom = 1;
    if(timing && !oom && !(*timing = r->proto->stream_timing_json(r->pstream)))
      oom = 1;
  }
  else if(timing && !oom && !(*timing = plain_timing_json(r)))
    oom = 1;
  if(oom) {
    cJSON_Delete(o);
    if(message) {
      cJSON_Delete(*message);
      *message = NULL;
    }
    if(timing) {
      cJSON_Delete(*timing);
      *timing = NULL;
    }
    return NULL;
  }
  return o;
}

int oc_response_analyze(const struct oc_schemas *schemas, const struct oc_check *policy,
                        const char *method, const char *path, const char *req_body,
                        size_t req_len, int status, const struct oc_headers *headers,
                        const char *body, size_t len, const size_t *pieces, size_t npieces)
{
  return oc_response_analyze_clients(schemas, policy, method, path, req_body, req_len, status,
                                     headers, body, len, pieces, npieces, NULL);
}

int oc_response_analyze_clients(const struct oc_schemas *schemas, const struct oc_check *policy,
                                const char *method, const char *path, const char *req_body,
                                size_t req_len, int status, const struct oc_headers *headers,
                                const char *body, size_t len, const size_t *pieces,
                                size_t npieces, struct oc_client_verdict *verdicts)
{
  /* a request that does not parse is analysed as one without a body; one
   * that could not be parsed for want of memory is not analysed at all */
  cJSON *req_json = NULL;
  if(req_body && oc_json_parse_rc(req_body, req_len, NULL, &req_json) == OC_ENOMEM)
    return OC_ENOMEM;
  struct oc_request_info info;
  oc_request_info_init(&info, method, path, req_json);
  struct oc_check check = *policy;
  struct oc_response r;
  oc_response_init(&r, &info, &check, schemas, 0, 0, 0);
  int rc = oc_response_head(&r, status, headers, 0);
  size_t at = 0;
  for(size_t i = 0; !rc && i < npieces && at < len; i++) {
    size_t end = pieces[i] < len ? pieces[i] : len;
    if(end > at)
      rc = oc_response_body(&r, body + at, end - at, 0);
    at = end;
  }
  if(!rc && at < len)
    rc = oc_response_body(&r, body + at, len - at, 0);
  oc_response_finish(&r, 0, 1);
  if(verdicts)
    memcpy(verdicts, r.verdicts, sizeof(r.verdicts));
  oc_response_free(&r);
  cJSON_Delete(req_json);
  if(!rc && check.oom)
    rc = OC_ENOMEM;
  return rc;
}
