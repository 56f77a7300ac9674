/* capture.c — reading captured responses: telling the kind from the bytes,
 * then one reader per kind (curl -i output, a bare body, HAR, cassette,
 * rule test file), each ending in a cassette per exchange and flags for
 * what the capture does not hold.  Raw HTTP goes through exchange.c,
 * cassettes through cassette.c, rule files through rulefile.c; what the
 * bytes mean is the decoder's. */
#include "config.h"
#include "capture.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "json.h"
#include "request.h"
#include "response.h"
#include "rulefile.h"
#include "util.h"

static const struct {
  enum oc_capture_kind kind;
  const char *name, *text;
} kinds[] = {
  { OC_CAPTURE_AUTO, "auto", "detected from the content" },
  { OC_CAPTURE_HTTP, "http", "a raw HTTP response (curl -i)" },
  { OC_CAPTURE_SSE, "sse", "a bare event-stream body (curl -N)" },
  { OC_CAPTURE_JSON, "json", "a bare JSON body" },
  { OC_CAPTURE_HAR, "har", "a HAR file" },
  { OC_CAPTURE_CASSETTE, "cassette", "a cassette" },
  { OC_CAPTURE_TEST, "test", "a rule test file" },
};

const char *oc_capture_kind_name(enum oc_capture_kind k)
{
  for(size_t i = 0; i < OC_ARRAY_LEN(kinds); i++)
    if(kinds[i].kind == k)
      return kinds[i].name;
  return "?";
}

const char *oc_capture_kind_text(enum oc_capture_kind k)
{
  for(size_t i = 0; i < OC_ARRAY_LEN(kinds); i++)
    if(kinds[i].kind == k)
      return kinds[i].text;
  return "?";
}

int oc_capture_kind_parse(const char *name)
{
  for(size_t i = 0; i < OC_ARRAY_LEN(kinds); i++)
    if(strcmp(kinds[i].name, name) == 0)
      return (int)kinds[i].kind;
  return -1;
}

void oc_capture_free(struct oc_capture *cap)
{
  if(!cap)
    return;
  for(size_t i = 0; i < cap->count; i++) {
    free(cap->entries[i].name);
    oc_cassette_free(&cap->entries[i].ex);
  }
  free(cap->entries);
  free(cap->file);
  memset(cap, 0, sizeof(*cap));
}

/* A new entry at the end of cap, its cassette empty; NULL without memory. */
static struct oc_capture_entry *add_entry(struct oc_capture *cap, const char *name)
{
  struct oc_capture_entry *e = oc_array_grow(cap->entries, &cap->alloc, cap->count + 1, sizeof(*e));
  if(!e)
    return NULL;
  cap->entries = e;
  e = &cap->entries[cap->count];
  memset(e, 0, sizeof(*e));
  oc_cassette_init(&e->ex);
  e->name = oc_strdup(name);
  if(!e->name)
    return NULL;
  cap->count++;
  return e;
}

/* ---- detection -------------------------------------------------------------------- */

static size_t skip_space(const char *buf, size_t len, size_t i)
{
  while(i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
    i++;
  return i;
}

/* Does the text start like an event stream: a field (data, event, id,
 * retry) or a comment on its first non-empty line? */
static int looks_sse(const char *buf, size_t len)
{
  size_t i = skip_space(buf, len, 0);
  /* a UTF-8 BOM may open a stream */
  if(len - i >= 3 && memcmp(buf + i, "\xEF\xBB\xBF", 3) == 0)
    i += 3;
  static const char *const fields[] = { "data:", "data\n", "event:", "id:", "retry:", ":" };
  for(size_t k = 0; k < OC_ARRAY_LEN(fields); k++) {
    size_t n = strlen(fields[k]);
    if(len - i >= n && memcmp(buf + i, fields[k], n) == 0)
      return 1;
  }
  return 0;
}

enum oc_capture_kind oc_capture_detect(const char *buf, size_t len)
{
  if(len >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b)
    return OC_CAPTURE_CASSETTE;
  size_t i = skip_space(buf, len, 0);
  if(len - i >= 5 && memcmp(buf + i, "HTTP/", 5) == 0)
    return OC_CAPTURE_HTTP;
  if(oc_rulefile_sniff(buf, len))
    return OC_CAPTURE_TEST;
  if(i < len && (buf[i] == '{' || buf[i] == '[')) {
    /* a HAR is a JSON object with log.entries; anything else is a body */
    cJSON *j = oc_json_parse(buf, len, NULL);
    int har = j && cJSON_IsArray(oc_json_arr(oc_json_obj(j, "log"), "entries"));
    cJSON_Delete(j);
    return har ? OC_CAPTURE_HAR : OC_CAPTURE_JSON;
  }
  if(looks_sse(buf, len))
    return OC_CAPTURE_SSE;
  return OC_CAPTURE_AUTO;
}

/* ---- what a body says about itself -------------------------------------------------- */

int oc_capture_cut(const char *body, size_t len, char *why, size_t whylen)
{
  why[0] = '\0';
  if(len == 0)
    return 0;
  int blank_end = (len >= 2 && body[len - 1] == '\n' && (body[len - 2] == '\n' || body[len - 2] == '\r')) ||
                  (len >= 2 && body[len - 1] == '\r' && body[len - 2] == '\r');
  if(blank_end)
    return 0;
  const char *nl = NULL;
  for(size_t i = len; i > 0 && !nl; i--)
    if(body[i - 1] == '\n')
      nl = body + i - 1;
  if(body[len - 1] == '\n' || body[len - 1] == '\r')
    snprintf(why, whylen, "the capture ends after a line but without the blank line that ends "
             "an event (byte %zu)", len);
  else
    snprintf(why, whylen, "the capture ends in the middle of a line (byte %zu, line starting "
             "at byte %zu)", len, nl ? (size_t)(nl - body) + 1 : (size_t)0);
  return 1;
}

/* The endpoint a body comes from, by its "object" (or a Responses event's
 * "type"): chat completions unless it says otherwise.  For a stream, the
 * first data line that is a JSON object says it. */
static const char *infer_path(const char *body, size_t len, int sse)
{
  cJSON *j = NULL;
  if(!sse)
    j = oc_json_parse(body, len, NULL);
  for(size_t i = 0; sse && i < len && !j;) {
    const char *nl = memchr(body + i, '\n', len - i);
    size_t n = nl ? (size_t)(nl - body) - i : len - i;
    if(n > 5 && strncmp(body + i, "data:", 5) == 0)
      j = oc_json_parse(body + i + 5, n - 5, NULL);
    if(j && !cJSON_IsObject(j)) {
      cJSON_Delete(j);
      j = NULL;
    }
    i += n + 1;
  }
  const char *object = oc_json_str(j, "object");
  const char *type = oc_json_str(j, "type");
  const char *path = "/v1/chat/completions";
  /* the Responses API: a Response body, or a stream of typed events */
  if(oc_streq(object, "response") || (type && oc_startswith(type, "response.")))
    path = "/v1/responses";
  /* Anthropic's Messages API: a Message body, or a stream whose first
   * event is message_start (or a ping before it) */
  else if(oc_streq(type, "message") || oc_streq(type, "message_start") || oc_streq(type, "ping"))
    path = "/v1/messages";
  else if(oc_streq(object, "text_completion"))
    path = "/v1/completions";
  else if(oc_streq(object, "list") && oc_json_arr(j, "data") && !oc_json_get(j, "usage"))
    path = "/v1/models";
  cJSON_Delete(j);
  return path;
}

/* The request that can be inferred without one: the endpoint from the
 * body, and for a stream that streaming was asked. */
static int assume_request(struct oc_capture_entry *e, int sse)
{
  free(e->ex.method);
  free(e->ex.path);
  e->ex.method = oc_strdup("POST");
  e->ex.path = oc_strdup(infer_path(e->ex.body, e->ex.body_len, sse));
  if(e->ex.path && strcmp(e->ex.path, "/v1/models") == 0) {
    free(e->ex.method);
    e->ex.method = oc_strdup("GET");
  }
  return e->ex.method && e->ex.path ? OC_OK : OC_ENOMEM;
}

void oc_capture_request_rules(struct oc_ruleset *out)
{
  oc_ruleset_init(out);
  /* response.c: stream asked or not decides which Content-Type is right */
  oc_ruleset_set(out, OC_R_STREAM_CONTENT_TYPE);
  /* chat.c: stream_options.include_usage */
  oc_ruleset_set(out, OC_R_USAGE_CHUNK);
  oc_ruleset_set(out, OC_R_USAGE_UNREQUESTED);
  oc_ruleset_set(out, OC_R_STREAM_EMPTY_CHOICES);
  /* chat.c and response.c: n */
  oc_ruleset_set(out, OC_R_CHAT_CHOICES_COUNT);
  /* message.c: tools, tool_choice, parallel_tool_calls, response_format */
  oc_ruleset_set(out, OC_R_TOOL_CHOICE_HONOURED);
  oc_ruleset_set(out, OC_R_TOOL_PARALLEL_FALSE);
  oc_ruleset_set(out, OC_R_TOOL_FINISH_REASON);
  oc_ruleset_set(out, OC_R_TOOL_TEXT_LEAK);
  oc_ruleset_set(out, OC_R_SCHEMA_OUTPUT);
  oc_ruleset_set(out, OC_R_JSON_OBJECT_OUTPUT);
  /* responses.c: tools, tool_choice, parallel_tool_calls, text.format,
   * previous_response_id */
  oc_ruleset_set(out, OC_R_RESPONSES_TOOL_CHOICE);
  oc_ruleset_set(out, OC_R_RESPONSES_PARALLEL_FALSE);
  oc_ruleset_set(out, OC_R_RESPONSES_TEXT_FORMAT);
  oc_ruleset_set(out, OC_R_RESPONSES_STATELESS);
  /* messages.c: tools, tool_choice, disable_parallel_tool_use, messages,
   * max_tokens */
  oc_ruleset_set(out, OC_R_MESSAGES_TOOL_CHOICE);
  oc_ruleset_set(out, OC_R_MESSAGES_PARALLEL);
  oc_ruleset_set(out, OC_R_MESSAGES_INVALID_REQUEST);
}

/* ---- the readers ---------------------------------------------------------------------- */

/* The body of a head that is one of curl's interim ones (100 Continue,
 * a proxy's 200 Connection established): where the next head starts, or
 * 0 when this is the final one. */
static size_t next_head(const char *buf, size_t len, size_t at)
{
  size_t i = at;
  /* the end of this head: a blank line (LF or CRLF) */
  for(;;) {
    const char *nl = memchr(buf + i, '\n', len - i);
    if(!nl)
      return 0;
    size_t e = (size_t)(nl - buf);
    size_t s = i;
    i = e + 1;
    if(e == s || (e == s + 1 && buf[s] == '\r'))
      break;
  }
  /* the status line: "HTTP/1.1 100 Continue", "HTTP/2 103", a proxy's
   * "HTTP/1.1 200 Connection established" */
  const char *eol = memchr(buf + at, '\n', len - at);
  size_t sl = eol ? (size_t)(eol - buf) - at : 0;
  const char *sp = memchr(buf + at, ' ', sl);
  int interim = sp && (size_t)(sp - buf) + 1 < at + sl && sp[1] == '1';
  for(size_t k = at; !interim && k + 22 <= at + sl; k++)
    interim = strncmp(buf + k, "Connection established", 22) == 0;
  if(interim && len - i >= 5 && memcmp(buf + i, "HTTP/", 5) == 0)
    return i;
  return 0;
}

static int read_http(struct oc_capture *cap, const char *buf, size_t len, const char *base,
                     char *err, size_t errlen)
{
  size_t at = skip_space(buf, len, 0), next;
  while((next = next_head(buf, len, at)) != 0)
    at = next;
  struct oc_exchange ex;
  char perr[300];
  int rc = oc_exchange_parse_response(buf + at, len - at, 0, &ex, perr, sizeof(perr));
  if(rc) {
    snprintf(err, errlen, "%s: %s%s", cap->file, perr,
             at ? " (counted from the last status line)" : "");
    return rc;
  }
  struct oc_capture_entry *e = add_entry(cap, base);
  if(!e) {
    oc_exchange_free(&ex);
    return OC_ENOMEM;
  }
  /* curl --raw keeps the chunk framing: then the chunks are the pieces */
  const char *te = oc_headers_get(&ex.headers, "Transfer-Encoding");
  struct oc_exchange wire;
  if(te && strstr(te, "chunked") &&
     oc_exchange_parse_response(buf + at, len - at, 1, &wire, perr, sizeof(perr)) == OC_OK) {
    oc_exchange_free(&ex);
    ex = wire;
    snprintf(e->note, sizeof(e->note), "the body kept its chunk framing (curl --raw): de-chunked, "
             "each chunk a piece");
  }
  /* a gzip body curl did not decode (no --compressed) */
  const char *ce = oc_headers_get(&ex.headers, "Content-Encoding");
  if(ce && strstr(ce, "gzip") && ex.body_len >= 2 && (unsigned char)ex.body[0] == 0x1f &&
     (unsigned char)ex.body[1] == 0x8b) {
    char *plain = NULL;
    size_t plen = 0;
    if(oc_gunzip(ex.body, ex.body_len, OC_CAP_BODY, &plain, &plen) == OC_OK) {
      free(ex.body);
      ex.body = plain;
      ex.body_len = plen;
      free(ex.pieces);
      ex.pieces = NULL;
      ex.npieces = 0;
      snprintf(e->note, sizeof(e->note), "the body was gzip-encoded: decoded");
    }
  }
  rc = oc_cassette_from_exchange(&ex, &e->ex);
  oc_exchange_free(&ex);
  if(rc)
    return rc;
  e->has_http = 1;
  const char *ct = oc_headers_get(&e->ex.headers, "Content-Type");
  char media[96];
  oc_media_type(ct, media, sizeof(media));
  return assume_request(e, strcmp(media, "text/event-stream") == 0);
}

static int read_body(struct oc_capture *cap, const char *buf, size_t len, const char *base, int sse)
{
  struct oc_capture_entry *e = add_entry(cap, base);
  if(!e)
    return OC_ENOMEM;
  e->ex.body = oc_strndup(buf, len);
  e->ex.body_len = len;
  if(!e->ex.body)
    return OC_ENOMEM;
  e->ex.status = 200;
  if(!sse) {
    /* a bare error body came with an error status, whichever it was */
    cJSON *j = oc_json_parse(buf, len, NULL);
    const cJSON *er = oc_json_get(j, "error");
    if(er && !cJSON_IsNull(er)) {
      e->ex.status = 400;
      snprintf(e->note, sizeof(e->note), "the body is an error: status assumed 400");
    }
    cJSON_Delete(j);
  }
  if(oc_headers_add(&e->ex.headers, "Content-Type", sse ? "text/event-stream" : "application/json"))
    return OC_ENOMEM;
  return assume_request(e, sse);
}

static int read_cassette(struct oc_capture *cap, const char *buf, size_t len, const char *base,
                         char *err, size_t errlen)
{
  struct oc_capture_entry *e = add_entry(cap, base);
  if(!e)
    return OC_ENOMEM;
  int rc = oc_cassette_decode(buf, len, cap->file, &e->ex, err, errlen);
  if(rc)
    return rc;
  e->has_http = 1;
  e->has_request = e->ex.req_body != NULL || oc_streq(e->ex.method, "GET");
  return OC_OK;
}

static int read_test(struct oc_capture *cap, const char *buf, size_t len, const char *base,
                     char *err, size_t errlen)
{
  struct oc_rulefile rf;
  int rc = oc_rulefile_parse(buf, len, cap->file, &rf, err, errlen);
  if(rc)
    return rc;
  struct oc_capture_entry *e = add_entry(cap, base);
  if(!e) {
    oc_rulefile_free(&rf);
    return OC_ENOMEM;
  }
  oc_cassette_free(&e->ex);
  e->ex = rf.ex;
  oc_cassette_init(&rf.ex);
  e->has_http = 1;
  e->has_request = 1;
  e->partial = rf.partial;
  if(rf.partial)
    snprintf(e->partial_why, sizeof(e->partial_why), "the file says 'partial yes'");
  e->profile = rf.profile;
  if(rf.expect_case)
    snprintf(e->note, sizeof(e->note), "its 'case' expectations are not applied (they are a "
             "suite's, for oacheck run)");
  oc_rulefile_free(&rf);
  return OC_OK;
}

/* "http://host:port/v1/chat/completions?x" -> "/v1/chat/completions" */
static char *url_path(const char *url)
{
  const char *p = strstr(url, "://");
  p = p ? strchr(p + 3, '/') : (url[0] == '/' ? url : NULL);
  if(!p)
    return oc_strdup("/");
  return oc_strndup(p, strcspn(p, "?#"));
}

/* Chromium's devtools decode a text body whose Content-Type names no
 * charset as windows-1252 (the HTTP default for text/event-stream), so a
 * HAR holds UTF-8 streams as mojibake.  When every character of the text
 * maps back to a windows-1252 byte (WHATWG's table: 0x81, 0x8D, 0x8F,
 * 0x90 and 0x9D stay C1 controls) and those bytes are UTF-8 with at least
 * one multi-byte character, they are what arrived.  Returns 1 with the
 * bytes in *out (caller frees), 0 when the text is to be taken as it is. */
static int restore_1252(const char *text, size_t n, char **out, size_t *outlen)
{
  static const uint16_t c1[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
  };
  size_t bad;
  if(!oc_utf8_valid((const unsigned char *)text, n, &bad))
    return 0;
  unsigned char *b = malloc(n + 1);
  if(!b)
    return 0;
  size_t k = 0;
  int high = 0;
  for(size_t i = 0; i < n;) {
    /* the text is valid UTF-8: the lead byte gives the length */
    unsigned char c = (unsigned char)text[i];
    size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    uint32_t cp = len == 1 ? c : (uint32_t)(c & (0x3F >> (len - 1)));
    for(size_t j = 1; j < len; j++)
      cp = cp << 6 | ((unsigned char)text[i + j] & 0x3F);
    i += len;
    int byte = -1;
    if(cp < 0x80 || (cp >= 0xA0 && cp <= 0xFF))
      byte = (int)cp;
    for(int t = 0; byte < 0 && t < 32; t++)
      if(c1[t] == cp)
        byte = 0x80 + t;
    if(byte < 0) {
      free(b);
      return 0;
    }
    high |= byte >= 0x80;
    b[k++] = (unsigned char)byte;
  }
  if(!high || !oc_utf8_valid(b, k, &bad)) {
    free(b);
    return 0;
  }
  b[k] = '\0';
  *out = (char *)b;
  *outlen = k;
  return 1;
}

static int har_entry(struct oc_capture *cap, const cJSON *ent, int index, const char *base,
                     char *err, size_t errlen)
{
  const cJSON *rq = oc_json_obj(ent, "request"), *rs = oc_json_obj(ent, "response");
  const char *method = oc_json_str(rq, "method"), *url = oc_json_str(rq, "url");
  if(!rq || !rs || !method || !url) {
    snprintf(err, errlen, "%s: log/entries/%d: no request.method, request.url or response", cap->file,
             index - 1);
    return OC_EPARSE;
  }
  char *path = url_path(url);
  if(!path)
    return OC_ENOMEM;
  enum oc_api api = oc_api_from_path(path);
  if(strcmp(method, "POST") != 0 || (api != OC_API_CHAT && api != OC_API_COMPLETIONS &&
                                 api != OC_API_RESPONSES && api != OC_API_MESSAGES &&
                                 api != OC_API_MESSAGES_COUNT_TOKENS)) {
    cap->har_skipped++;
    free(path);
    return OC_OK;
  }
  char name[300];
  snprintf(name, sizeof(name), "%s#%d", base, index);
  struct oc_capture_entry *e = add_entry(cap, name);
  if(!e) {
    free(path);
    return OC_ENOMEM;
  }
  e->har_index = index;
  struct oc_cassette *c = &e->ex;
  c->method = oc_strdup(method);
  c->path = path;
  const char *text = oc_json_str(oc_json_obj(rq, "postData"), "text");
  if(text) {
    c->req_body = oc_strdup(text);
    c->req_body_len = strlen(text);
    e->has_request = 1;
  }
  const cJSON *st = oc_json_get(rs, "status");
  if(!oc_json_is_integer(st) || st->valuedouble < 100 || st->valuedouble > 999) {
    snprintf(err, errlen, "%s: log/entries/%d/response/status: not an HTTP status", cap->file,
             index - 1);
    return OC_EPARSE;
  }
  c->status = (int)st->valuedouble;
  const char *sv = oc_json_str(rs, "httpVersion"), *reason = oc_json_str(rs, "statusText");
  c->http_version = oc_strdup(sv ? sv : "HTTP/1.1");
  c->reason = oc_strdup(reason ? reason : "");
  const cJSON *h;
  cJSON_ArrayForEach(h, oc_json_arr(rs, "headers"))
  {
    const char *hn = oc_json_str(h, "name"), *hv = oc_json_str(h, "value");
    /* HTTP/2 pseudo-headers (":status") are not headers */
    if(hn && hv && hn[0] != ':' && oc_headers_add(&c->headers, hn, hv))
      return OC_ENOMEM;
  }
  const cJSON *content = oc_json_obj(rs, "content");
  const char *body = oc_json_str(content, "text");
  const char *enc = oc_json_str(content, "encoding");
  if(body && oc_streq(enc, "base64")) {
    size_t n = 0;
    unsigned char *raw = oc_base64_decode(body, &n);
    if(!raw) {
      snprintf(err, errlen, "%s: log/entries/%d/response/content/text: not base64", cap->file,
               index - 1);
      return OC_EPARSE;
    }
    c->body = (char *)raw;
    c->body_len = n;
  }
  else if(body) {
    /* cJSON strings stop at U+0000: the text is what a browser shows */
    const char *ct = oc_headers_get(&c->headers, "Content-Type");
    if(!(ct && strstr(ct, "charset")) && restore_1252(body, strlen(body), &c->body, &c->body_len))
      snprintf(e->note, sizeof(e->note), "the browser decoded the text as windows-1252 (no charset "
               "in Content-Type): the UTF-8 bytes that arrived are restored");
    else {
      c->body = oc_strdup(body);
      c->body_len = strlen(body);
    }
  }
  else {
    c->body = oc_strdup("");
    snprintf(e->note, sizeof(e->note), "the HAR holds no response text for this entry");
  }
  if(!c->method || !c->http_version || !c->reason || !c->body || (text && !c->req_body))
    return OC_ENOMEM;
  e->has_http = 1;
  return oc_cassette_update_key(c);
}

static int read_har(struct oc_capture *cap, const char *buf, size_t len, const char *base,
                    char *err, size_t errlen)
{
  struct oc_json_pos pos;
  cJSON *j = oc_json_parse(buf, len, &pos);
  if(!j) {
    snprintf(err, errlen, "%s:%d:%d: not JSON (byte %zu)", cap->file, pos.line, pos.column,
             pos.offset);
    return OC_EPARSE;
  }
  const cJSON *entries = oc_json_arr(oc_json_obj(j, "log"), "entries");
  int rc = OC_OK, i = 0;
  if(!entries) {
    snprintf(err, errlen, "%s: no log.entries array: not a HAR file", cap->file);
    rc = OC_EPARSE;
  }
  const cJSON *ent;
  cJSON_ArrayForEach(ent, entries)
  {
    if(rc)
      break;
    rc = har_entry(cap, ent, ++i, base, err, errlen);
  }
  if(!rc && cap->count == 0) {
    snprintf(err, errlen, "%s: none of its %d entr%s is a POST to a chat or legacy completions "
             "endpoint", cap->file, i, i == 1 ? "y" : "ies");
    rc = OC_ENOTFOUND;
  }
  cJSON_Delete(j);
  return rc;
}

int oc_capture_parse(const char *buf, size_t len, const char *name, enum oc_capture_kind kind,
                     struct oc_capture *cap, char *err, size_t errlen)
{
  memset(cap, 0, sizeof(*cap));
  cap->file = oc_strdup(name);
  if(!cap->file)
    return OC_ENOMEM;
  const char *slash = strrchr(name, '/');
  const char *base = slash ? slash + 1 : name;
  cap->kind = kind;
  if(kind == OC_CAPTURE_AUTO) {
    cap->kind = oc_capture_detect(buf, len);
    cap->detected = 1;
    if(cap->kind == OC_CAPTURE_AUTO) {
      size_t i = skip_space(buf, len, 0);
      char what[24];
      size_t k = 0;
      for(; i < len && k < 16 && buf[i] != '\n'; i++)
        what[k++] = (buf[i] >= 0x20 && buf[i] < 0x7f) ? buf[i] : '.';
      what[k] = '\0';
      snprintf(err, errlen, "%s: byte %zu: cannot tell what this is ('%s'): not a cassette, HAR, "
               "HTTP response (HTTP/…), event stream (data: …), JSON body or rule test file; "
               "--as KIND says which", name, skip_space(buf, len, 0), len ? what : "empty");
      return OC_EPARSE;
    }
  }
  int rc;
  switch(cap->kind) {
  case OC_CAPTURE_HTTP:
    rc = read_http(cap, buf, len, base, err, errlen);
    break;
  case OC_CAPTURE_SSE:
  case OC_CAPTURE_JSON:
    rc = read_body(cap, buf, len, base, cap->kind == OC_CAPTURE_SSE);
    break;
  case OC_CAPTURE_HAR:
    rc = read_har(cap, buf, len, base, err, errlen);
    break;
  case OC_CAPTURE_CASSETTE:
    rc = read_cassette(cap, buf, len, base, err, errlen);
    break;
  case OC_CAPTURE_TEST:
    rc = read_test(cap, buf, len, base, err, errlen);
    break;
  default:
    rc = OC_EUSAGE;
    snprintf(err, errlen, "%s: unknown kind", name);
    break;
  }
  if(rc == OC_ENOMEM)
    snprintf(err, errlen, "%s: out of memory", name);
  if(rc)
    return rc;
  /* only what curl or a paste captured can be cut by whoever made it: a
   * cassette says itself whether it is complete, a browser saw the end */
  for(size_t i = 0; i < cap->count; i++) {
    struct oc_capture_entry *e = &cap->entries[i];
    char media[96];
    oc_media_type(oc_headers_get(&e->ex.headers, "Content-Type"), media, sizeof(media));
    if((cap->kind == OC_CAPTURE_HTTP || cap->kind == OC_CAPTURE_SSE) &&
       strcmp(media, "text/event-stream") == 0)
      e->partial = oc_capture_cut(e->ex.body, e->ex.body_len, e->partial_why, sizeof(e->partial_why));
    if(!e->ex.key[0] && oc_cassette_update_key(&e->ex))
      return OC_ENOMEM;
  }
  return OC_OK;
}

int oc_capture_read(const char *path, enum oc_capture_kind kind, struct oc_capture *cap,
                    char *err, size_t errlen)
{
  memset(cap, 0, sizeof(*cap));
  char *buf = NULL;
  size_t len = 0;
  /* a cassette holds up to two bodies and its metadata; anything else a body */
  int rc = oc_read_file(path, OC_CAP_CASSETTE, &buf, &len, err, errlen);
  if(rc)
    return rc;
  rc = oc_capture_parse(buf, len, path, kind, cap, err, errlen);
  free(buf);
  return rc;
}
