/* client.c — the client models' shared machinery: names and the
 * limitation table, the bounded text and views, one digest per event for
 * every model, the reference reassembly (what a correct client hands the
 * application, written from the specifications as
 * tests/node/oracle/reference.mjs is), the judge (judge.mjs's rules), the
 * JavaScript and Python value formatting the models need, and feeding:
 * events from chat.c, or a whole body decoded here.  Each client's own
 * behaviour is in its client_<name>.c; what a break does to the verdict is
 * verdict.c's. */
#include "config.h"
#include "client_int.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "message.h"
#include "pclient.h"


/* ---- memory running out ------------------------------------------------------------ */

/* Where a failed allocation is noted: the oom flag of the oc_clients
 * whose entry point is running (every one sets it first, with ENTER).
 * Several exchanges may be in flight on one thread, one call at a time. */
static _Thread_local int *oom_sink;
/* The room left for tool-call arguments in the view being built: the
 * model whose entry point runs, or the reference (each has its own, so
 * they run out at the same fragment).  Per call OC_CAP_ARGUMENTS is not
 * enough: 256 calls of 384 KiB are 96 MiB in each of seven views.  NULL
 * (finish, whose sources are bounded already): no limit. */
static _Thread_local uint64_t *args_room;
#define ENTER(cs) (oom_sink = &(cs)->cx.oom, args_room = NULL)

void oc_cnote_enter(int *sink)
{
  oom_sink = sink;
  args_room = NULL;
}

void oc_cnote_oom(void)
{
  if(oom_sink)
    *oom_sink = 1;
}

void oc_cbuf_free(struct oc_buf *b)
{
  if(b->err == OC_ENOMEM)
    oc_cnote_oom();
  oc_buf_free(b);
}

void oc_cbuf_reset(struct oc_buf *b)
{
  if(b->err == OC_ENOMEM)
    oc_cnote_oom();
  oc_buf_reset(b);
}

char *oc_cbuf_take(struct oc_buf *b, size_t *len)
{
  if(b->err == OC_ENOMEM)
    oc_cnote_oom();
  char *s = oc_buf_take(b, len);
  if(!s && oc_buf_error(b) == OC_ENOMEM)
    oc_cnote_oom();
  return s;
}

static char *cdup(const char *p, size_t n)
{
  char *s = oc_strndup(p, n);
  if(!s)
    oc_cnote_oom();
  return s;
}

int oc_cjdoc_parse(struct oc_jdoc *d, const char *p, size_t n, struct oc_jerr *err)
{
  int rc = oc_jdoc_parse(d, p, n, err);
  if(rc == OC_ENOMEM)
    oc_cnote_oom();
  return rc;
}

/* ---- names ------------------------------------------------------------------ */

/* Which reasoning field a client hands the application, and how it
 * joins a stream's fragments (measured: tests/data/crafted/clients/
 * reasoning-*, docs/clients.md).  The reference (RP_REF) is the server's
 * reasoning whichever field it used: a non-empty reasoning_content,
 * else reasoning. */
enum rpolicy {
  RP_REF = 0,             /* both fields reach the application untyped
                             (openai-node's and openai-python's create,
                             openai-python's stream helper, which
                             concatenates them) */
  RP_LAST,                /* openai-node's stream helper: each delta's
                             unknown fields assigned, so the last fragment */
  RP_RC_OR_R,             /* the ai SDK: reasoning_content ?? reasoning, so
                             "" beside a non-empty reasoning hides it */
  RP_RC,                  /* LangChain: reasoning_content only */
  RP_R,                   /* the Agents SDK: reasoning only */
  RP_NONE                 /* LangChain 0.6: neither */
};

static const struct {
  const char *name;
  const char *short_name; /* the matrix column */
  enum oc_client_basis basis;
  const struct oc_cmodel *model;
  struct oc_ccaps caps;
  enum rpolicy rpolicy;
} clients[OC_CLIENT__COUNT] = {
  [OC_CLIENT_OPENAI_NODE] = { "openai-node", "node", OC_BASIS_VERIFIED, &oc_cmodel_openai_node,
                              { 1, 1, OC_CARGS_STRING, 0, 0, 0 }, RP_REF },
  [OC_CLIENT_OPENAI_NODE_STREAM] = { "openai-node-stream", "node-stream", OC_BASIS_VERIFIED,
                                     &oc_cmodel_openai_node_stream, { 1, 1, OC_CARGS_STRING, 0, 0, 0 },
                                     RP_LAST },
  [OC_CLIENT_AI_SDK] = { "ai-sdk", "ai-sdk", OC_BASIS_VERIFIED, &oc_cmodel_ai_sdk,
                         { 0, 0, OC_CARGS_PARSED, 0, 1, 0 }, RP_RC_OR_R },
  [OC_CLIENT_LANGCHAIN] = { "langchain", "langchain", OC_BASIS_VERIFIED, &oc_cmodel_langchain,
                            { 0, 1, OC_CARGS_PARSED, 1, 0, 0 }, RP_RC },
  [OC_CLIENT_OPENAI_PYTHON] = { "openai-python", "python", OC_BASIS_EMULATED, &oc_cmodel_openai_python,
                                { 1, 1, OC_CARGS_STRING, 0, 0, 0 }, RP_REF },
  [OC_CLIENT_OPENAI_PYTHON_STREAM] = { "openai-python-stream", "py-stream", OC_BASIS_EMULATED,
                                       &oc_cmodel_openai_python_stream,
                                       { 1, 1, OC_CARGS_STRING, 0, 0, 0 }, RP_REF },
  [OC_CLIENT_OPENAI_AGENTS_CHAT] = { "openai-agents-chat", "agents", OC_BASIS_VERIFIED,
                                     &oc_cmodel_openai_agents_chat,
                                     { 0, 0, OC_CARGS_STRING, 0, 0, 1 }, RP_R },
  /* last year's majors: the same models with the differences measured
   * (docs/clients.md), and the same view of the answer but for what the
   * table says */
  [OC_CLIENT_OPENAI_NODE_6] = { "openai-node@6", "node@6", OC_BASIS_VERIFIED, &oc_cmodel_openai_node_6,
                                { 1, 1, OC_CARGS_STRING, 0, 0, 0 }, RP_REF },
  [OC_CLIENT_OPENAI_NODE_STREAM_6] = { "openai-node-stream@6", "node-stream@6", OC_BASIS_VERIFIED,
                                       &oc_cmodel_openai_node_stream_6,
                                       { 1, 1, OC_CARGS_STRING, 0, 0, 0 }, RP_LAST },
  [OC_CLIENT_AI_SDK_5] = { "ai-sdk@5", "ai-sdk@5", OC_BASIS_VERIFIED, &oc_cmodel_ai_sdk_5,
                           { 0, 0, OC_CARGS_PARSED, 0, 1, 0 }, RP_RC_OR_R },
  [OC_CLIENT_LANGCHAIN_0_6] = { "langchain@0.6", "langchain@0.6", OC_BASIS_VERIFIED,
                                &oc_cmodel_langchain_0_6, { 0, 1, OC_CARGS_PARSED, 1, 0, 0 }, RP_NONE },
  /* the typed-event protocols' clients: their models are their family's
   * (pclient.h), so no chat model, caps or reasoning policy here */
  [OC_CLIENT_OPENAI_NODE_RESPONSES] = { "openai-node-responses", "node", OC_BASIS_VERIFIED, NULL,
                                        { 0 }, RP_NONE },
  [OC_CLIENT_OPENAI_NODE_RESPONSES_STREAM] = { "openai-node-responses-stream", "node-stream",
                                               OC_BASIS_VERIFIED, NULL, { 0 }, RP_NONE },
  [OC_CLIENT_AI_SDK_RESPONSES] = { "ai-sdk-responses", "ai-sdk", OC_BASIS_VERIFIED, NULL, { 0 },
                                   RP_NONE },
  [OC_CLIENT_OPENAI_AGENTS] = { "openai-agents", "agents", OC_BASIS_VERIFIED, NULL, { 0 }, RP_NONE },
  [OC_CLIENT_ANTHROPIC] = { "anthropic", "sdk", OC_BASIS_VERIFIED, NULL, { 0 }, RP_NONE },
  [OC_CLIENT_ANTHROPIC_STREAM] = { "anthropic-stream", "sdk-stream", OC_BASIS_VERIFIED, NULL, { 0 },
                                   RP_NONE },
  [OC_CLIENT_AI_SDK_ANTHROPIC] = { "ai-sdk-anthropic", "ai-sdk", OC_BASIS_VERIFIED, NULL, { 0 },
                                   RP_NONE },
  [OC_CLIENT_LANGCHAIN_ANTHROPIC] = { "langchain-anthropic", "langchain", OC_BASIS_VERIFIED, NULL,
                                      { 0 }, RP_NONE },
};

const char *oc_client_name(enum oc_client_id c)
{
  return (unsigned)c < OC_CLIENT__COUNT ? clients[c].name : "?";
}

const char *oc_client_short_name(enum oc_client_id c)
{
  return (unsigned)c < OC_CLIENT__COUNT ? clients[c].short_name : "?";
}

const char *oc_client_protocol(enum oc_client_id c)
{
  return (unsigned)c < OC_CLIENT__CHAT ? "chat" : (unsigned)c < OC_CLIENT__RESPONSES ? "responses"
         : (unsigned)c < OC_CLIENT__COUNT ? "messages" : "?";
}

unsigned oc_clients_of_api(enum oc_api api)
{
  switch(api) {
  case OC_API_CHAT:
    return OC_CLIENTS_CHAT;
  case OC_API_RESPONSES:
    return OC_CLIENTS_RESPONSES;
  case OC_API_MESSAGES:
    return OC_CLIENTS_MESSAGES;
  default:
    return 0;
  }
}

enum oc_client_basis oc_client_basis(enum oc_client_id c)
{
  return (unsigned)c < OC_CLIENT__COUNT ? clients[c].basis : OC_BASIS_EMULATED;
}

const char *oc_client_basis_name(enum oc_client_basis b)
{
  return b == OC_BASIS_VERIFIED ? "verified" : "emulated";
}

const char *oc_client_outcome_name(enum oc_client_outcome o)
{
  switch(o) {
  case OC_CO_OK: return "ok";
  case OC_CO_RAISES: return "raises";
  case OC_CO_WRONG: return "wrong";
  default: return "not-exercised";
  }
}

const char *oc_client_cause_name(enum oc_client_cause c)
{
  switch(c) {
  case OC_CAUSE_SERVER: return "server";
  case OC_CAUSE_N: return "n>1";
  case OC_CAUSE_LENGTH: return "length";
  case OC_CAUSE_CONTENT_FILTER: return "content_filter";
  case OC_CAUSE_REFUSAL: return "refusal";
  case OC_CAUSE_REQUEST: return "request";
  default: return "none";
  }
}

int oc_client_find(const char *name)
{
  for(int i = 0; i < OC_CLIENT__COUNT; i++)
    if(name && strcmp(name, clients[i].name) == 0)
      return i;
  return -1;
}

int oc_clients_parse(const char *list, unsigned *mask, char *err, size_t errlen)
{
  *mask = 0;
  const char *p = list ? list : "";
  while(*p) {
    size_t n = strcspn(p, ",");
    char name[64];
    if(n == 0 || n >= sizeof(name)) {
      snprintf(err, errlen, "'%s' is not a list of client names", list);
      return OC_EUSAGE;
    }
    memcpy(name, p, n);
    name[n] = '\0';
    int none = strcmp(name, "none") == 0;
    int c = strcmp(name, "all") == 0 ? -2 : none ? -3 : oc_client_find(name);
    int agent = c == -1 ? oc_agent_find(name) : -1;
    if(c == -1 && agent < 0) {
      snprintf(err, errlen, "unknown client '%s' (openai-node, openai-node-stream, ai-sdk, "
               "langchain, openai-python, openai-python-stream, openai-agents-chat, all, none; "
               "last year's: openai-node@6, openai-node-stream@6, ai-sdk@5, langchain@0.6; "
               "agents: codex)", name);
      return OC_EUSAGE;
    }
    if(none && (p != list || p[n])) {
      snprintf(err, errlen, "'none' stands alone");
      return OC_EUSAGE;
    }
    *mask |= agent >= 0 ? OC_CLIENTS_AGENT(agent) : c == -2 ? OC_CLIENTS_DEFAULT : c == -3 ? 0u : 1u << c;
    if(none)
      return OC_OK;
    p += n;
    if(*p == ',')
      p++;
  }
  if(!*mask) {
    snprintf(err, errlen, "no client named ('none' selects none)");
    return OC_EUSAGE;
  }
  return OC_OK;
}

int oc_client_broken(const struct oc_client_verdict *v)
{
  return v->outcome != OC_CO_NOT_EXERCISED && v->works == 0;
}

int oc_client_server_fault(const struct oc_client_verdict *v)
{
  return v->outcome == OC_CO_OK && v->works == 1 && v->server_fault;
}

/* vsnprintf: reasons are cut where they are cut, by design. */
static void say(char *out, size_t outlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *out, size_t outlen, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out, outlen, fmt, ap);
  va_end(ap);
}

/* ---- limitations -------------------------------------------------------------- */

/* Each row with evidence is checked by check_clients.c: the model breaks
 * on that OpenAI recording for that cause.  The content_filter rows have
 * no recording: the SDKs raise on it by the same code path as on length
 * (ContentFilterFinishReasonError beside LengthFinishReasonError), and
 * content_filter is a finish_reason OpenAI documents.  Nor has the Agents
 * SDK's length row: OpenAI's reasoning models end with content "" and
 * finish_reason "length" when max_completion_tokens runs out inside the
 * reasoning (OpenAI's reasoning guide, "Allocating space for reasoning"),
 * and the SDK raises on any length stop that left no text, call or
 * refusal, which is the path measured on llama-server's. */
const struct oc_client_limitation oc_client_limitations[] = {
  { OC_CLIENT_AI_SDK, OC_CAUSE_N, "n3-json-schema-stream",
    "reads choices[0] of every chunk: the choices of an n>1 stream are mixed" },
  { OC_CLIENT_LANGCHAIN, OC_CAUSE_N, "n3-json-schema-stream",
    "reads choices[0] of every chunk: the choices of an n>1 stream are mixed" },
  { OC_CLIENT_AI_SDK, OC_CAUSE_REFUSAL, "refusal-stream", "shows the refusal as the answer's text" },
  { OC_CLIENT_OPENAI_AGENTS_CHAT, OC_CAUSE_REFUSAL, "refusal-stream",
    "raises ModelRefusalError on a refusal" },
  { OC_CLIENT_OPENAI_AGENTS_CHAT, OC_CAUSE_LENGTH, NULL,
    "raises ModelBehaviorError on a length stop that left no text, tool call or refusal" },
  { OC_CLIENT_OPENAI_NODE_STREAM, OC_CAUSE_LENGTH, "length-max-tokens-1-stream",
    "LengthFinishReasonError on a json_schema answer cut by max_tokens (openai 7)" },
  { OC_CLIENT_LANGCHAIN, OC_CAUSE_REFUSAL, "refusal-stream", "drops the refusal" },
  { OC_CLIENT_AI_SDK, OC_CAUSE_LENGTH, "length-max-tokens-1",
    "NoObjectGeneratedError on a structured answer cut by max_tokens" },
  { OC_CLIENT_LANGCHAIN, OC_CAUSE_LENGTH, "length-max-tokens-1",
    "LengthFinishReasonError on a structured answer cut by max_tokens" },
  { OC_CLIENT_OPENAI_PYTHON, OC_CAUSE_LENGTH, "length-max-tokens-1",
    "parse() raises LengthFinishReasonError when max_tokens is hit" },
  { OC_CLIENT_OPENAI_PYTHON_STREAM, OC_CAUSE_LENGTH, "length-max-tokens-1-stream",
    "the stream helper raises LengthFinishReasonError when max_tokens is hit" },
  { OC_CLIENT_OPENAI_PYTHON_STREAM, OC_CAUSE_CONTENT_FILTER, NULL,
    "the stream helper raises ContentFilterFinishReasonError" },
  { OC_CLIENT_OPENAI_PYTHON, OC_CAUSE_CONTENT_FILTER, NULL,
    "parse() raises ContentFilterFinishReasonError" },
  { OC_CLIENT_LANGCHAIN, OC_CAUSE_CONTENT_FILTER, NULL,
    "openai 7's parse() raises ContentFilterFinishReasonError" },
  { OC_CLIENT_OPENAI_NODE_STREAM, OC_CAUSE_REQUEST, NULL,
    "refuses the request before sending it" },
  { OC_CLIENT_LANGCHAIN, OC_CAUSE_REQUEST, NULL,
    "openai 7's parse() refuses tools without strict: true before sending" },
  { OC_CLIENT_OPENAI_PYTHON, OC_CAUSE_REQUEST, NULL,
    "parse() refuses tools without strict: true before sending" },
  /* last year's majors */
  { OC_CLIENT_AI_SDK_5, OC_CAUSE_N, "n3-json-schema-stream",
    "reads choices[0] of every chunk: the choices of an n>1 stream are mixed" },
  { OC_CLIENT_LANGCHAIN_0_6, OC_CAUSE_N, "n3-json-schema-stream",
    "reads choices[0] of every chunk: the choices of an n>1 stream are mixed" },
  { OC_CLIENT_AI_SDK_5, OC_CAUSE_REFUSAL, "refusal-stream", "drops the refusal" },
  { OC_CLIENT_LANGCHAIN_0_6, OC_CAUSE_REFUSAL, "refusal-stream", "drops the refusal" },
  { OC_CLIENT_AI_SDK_5, OC_CAUSE_LENGTH, "length-max-tokens-1",
    "NoOutputSpecifiedError on a structured answer cut by max_tokens" },
  { OC_CLIENT_LANGCHAIN_0_6, OC_CAUSE_LENGTH, "length-max-tokens-1",
    "LengthFinishReasonError on a structured answer cut by max_tokens" },
  { OC_CLIENT_OPENAI_NODE_STREAM_6, OC_CAUSE_LENGTH, NULL,
    "LengthFinishReasonError on an answer cut by max_tokens when a tool is strict (openai 6)" },
  { OC_CLIENT_LANGCHAIN_0_6, OC_CAUSE_CONTENT_FILTER, NULL,
    "openai 5's parse() raises ContentFilterFinishReasonError" },
  { OC_CLIENT_OPENAI_NODE_STREAM_6, OC_CAUSE_REQUEST, NULL,
    "refuses the request before sending it" },
  { OC_CLIENT_LANGCHAIN_0_6, OC_CAUSE_REQUEST, NULL,
    "openai 5's parse() refuses tools without strict: true before sending" },
};
const size_t oc_client_nlimitations = OC_ARRAY_LEN(oc_client_limitations);

const struct oc_client_limitation *oc_client_limitation(enum oc_client_id c,
                                                        enum oc_client_cause cause)
{
  for(size_t i = 0; i < oc_client_nlimitations; i++)
    if(oc_client_limitations[i].client == c && oc_client_limitations[i].cause == cause)
      return &oc_client_limitations[i];
  return NULL;
}

void oc_client_reason(struct oc_client_verdict *v, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v->reason, sizeof(v->reason), fmt, ap);
  va_end(ap);
}

void oc_client_add_rule(struct oc_client_verdict *v, enum oc_rule_id r)
{
  for(size_t i = 0; i < v->nrules; i++)
    if(v->rules[i] == r)
      return;
  if(v->nrules < OC_CLIENT_MAX_RULES)
    v->rules[v->nrules++] = r;
}

/* ---- text ---------------------------------------------------------------------- */

#define HASH_K UINT64_C(0x9E3779B97F4A7C15)

void oc_ctext_init(struct oc_ctext *t)
{
  t->set = 0;
  t->nword = 0;
  t->nhead = 0;
  t->len = 0;
  t->h = UINT64_C(0x243F6A8885A308D3);
}

static inline uint64_t fold(uint64_t h, uint64_t w)
{
  h = (h ^ w) * HASH_K;
  return h ^ (h >> 29);
}

static inline uint64_t load64(const unsigned char *p)
{
  uint64_t w;
  memcpy(&w, p, 8);
  return w;
}

/* Eight bytes at a time, whatever the pieces: bytes wait in word until
 * it is full, so "ab"+"c" and "a"+"bc" fold the same words. */
void oc_ctext_add(struct oc_ctext *t, const char *p, size_t n)
{
  t->set = 1;
  if(!n)
    return;
  if(t->nhead < OC_CTEXT_HEAD) {
    size_t k = OC_CTEXT_HEAD - t->nhead < n ? OC_CTEXT_HEAD - t->nhead : n;
    memcpy(t->head + t->nhead, p, k);
    t->nhead += (unsigned)k;
  }
  t->len += n;
  const unsigned char *s = (const unsigned char *)p;
  if(t->nword) {
    size_t k = 8 - t->nword < n ? 8 - t->nword : n;
    memcpy(t->word + t->nword, s, k);
    t->nword += (unsigned)k;
    s += k;
    n -= k;
    if(t->nword < 8)
      return;
    t->h = fold(t->h, load64(t->word));
    t->nword = 0;
  }
  for(; n >= 8; s += 8, n -= 8)
    t->h = fold(t->h, load64(s));
  memcpy(t->word, s, n);
  t->nword = (unsigned)n;
}

void oc_ctext_set(struct oc_ctext *t, const char *p, size_t n)
{
  oc_ctext_init(t);
  oc_ctext_add(t, p, n);
}

static uint64_t ctext_final(const struct oc_ctext *t)
{
  unsigned char w[8] = { 0 };
  memcpy(w, t->word, t->nword);
  return fold(fold(t->h, load64(w)), t->len);
}

int oc_ctext_eq(const struct oc_ctext *a, const struct oc_ctext *b)
{
  return a->len == b->len && ctext_final(a) == ctext_final(b);
}

int oc_ctext_eqs(const struct oc_ctext *a, const char *s, size_t n)
{
  struct oc_ctext b;
  oc_ctext_set(&b, s, n);
  return oc_ctext_eq(a, &b);
}

int oc_ctext_empty(const struct oc_ctext *t)
{
  return !t->set || t->len == 0;
}

/* JSON.stringify of a string into b (no allocation beyond b's cap). */
static void json_quote(struct oc_buf *b, const char *s, size_t n)
{
  oc_buf_addc(b, '"');
  for(size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    switch(c) {
    case '"': oc_buf_adds(b, "\\\""); break;
    case '\\': oc_buf_adds(b, "\\\\"); break;
    case '\n': oc_buf_adds(b, "\\n"); break;
    case '\r': oc_buf_adds(b, "\\r"); break;
    case '\t': oc_buf_adds(b, "\\t"); break;
    case '\b': oc_buf_adds(b, "\\b"); break;
    case '\f': oc_buf_adds(b, "\\f"); break;
    default:
      if(c < 0x20)
        oc_buf_printf(b, "\\u%04x", c);
      else
        oc_buf_addc(b, (char)c);
    }
  }
  oc_buf_addc(b, '"');
}

/* At most max code points of s (n bytes): the byte count. */
static size_t cut_codepoints(const char *s, size_t n, size_t max, int *cut)
{
  size_t i = 0, cps = 0;
  while(i < n && cps < max) {
    i++;
    while(i < n && ((unsigned char)s[i] & 0xC0) == 0x80)
      i++;
    cps++;
  }
  *cut = i < n;
  return i;
}

/* Quoting for a reason writes into a fixed 1 KiB on the stack, filled
 * the way a buffer capped there fills (plain bytes until it is full, an
 * escape whole or not at all; the first overflow ends it): judging is
 * run for six clients on every exchange, and a heap buffer per quote was
 * most of its cost.  The reasons that quote are cut far shorter. */
#define QUOTE_ROOM 1024

struct qbuf {
  size_t len;
  int full;
  char d[QUOTE_ROOM + 1];
};

static void q_plain(struct qbuf *q, const char *p, size_t n)
{
  if(q->full)
    return;
  size_t k = n < QUOTE_ROOM - q->len ? n : QUOTE_ROOM - q->len;
  memcpy(q->d + q->len, p, k);
  q->len += k;
  if(k < n)
    q->full = 1;
}

static void q_whole(struct qbuf *q, const char *p, size_t n)
{
  if(q->full)
    return;
  if(n > QUOTE_ROOM - q->len) {
    q->full = 1;
    return;
  }
  memcpy(q->d + q->len, p, n);
  q->len += n;
}

/* json_quote's escapes, runs of plain bytes copied at once. */
static void q_json(struct qbuf *q, const char *s, size_t n)
{
  q_plain(q, "\"", 1);
  size_t from = 0;
  for(size_t i = 0; i < n && !q->full; i++) {
    unsigned char c = (unsigned char)s[i];
    if(c >= 0x20 && c != '"' && c != '\\')
      continue;
    q_plain(q, s + from, i - from);
    from = i + 1;
    char e[8];
    switch(c) {
    case '"': q_whole(q, "\\\"", 2); break;
    case '\\': q_whole(q, "\\\\", 2); break;
    case '\n': q_whole(q, "\\n", 2); break;
    case '\r': q_whole(q, "\\r", 2); break;
    case '\t': q_whole(q, "\\t", 2); break;
    case '\b': q_whole(q, "\\b", 2); break;
    case '\f': q_whole(q, "\\f", 2); break;
    default:
      snprintf(e, sizeof(e), "\\u%04x", c);
      q_whole(q, e, 6);
    }
  }
  q_plain(q, s + from, n - from);
  q_plain(q, "\"", 1);
}

static void quote_text(const char *s, size_t n, int more, char *out, size_t outlen)
{
  struct qbuf q;
  q.len = 0;
  q.full = 0;
  int cut;
  size_t k = cut_codepoints(s, n, 60, &cut);
  q_json(&q, s, k);
  size_t shown = q.len; /* what a full buffer still shows */
  if(cut || more) {
    /* the ellipsis goes inside the quotes, as judge.mjs puts it */
    if(q.len)
      q.len--;
    if(!q.full) {
      q_whole(&q, "…\"", 4);
      if(!q.full)
        shown = q.len;
    }
  }
  q.d[shown] = '\0';
  oc_strlcpy(out, q.len ? q.d : "\"\"", outlen);
}

void oc_ctext_quote(const struct oc_ctext *t, char *out, size_t outlen)
{
  if(!t->set) {
    say(out, outlen, "null");
    return;
  }
  quote_text(t->head, t->nhead, t->len > t->nhead, out, outlen);
}

/* ---- views ---------------------------------------------------------------------- */

void oc_cview_init(struct oc_cview *v)
{
  memset(v, 0, sizeof(*v));
  oc_buf_init(&v->err_msg, OC_CAP_CLIENT_MESSAGE);
}

static void call_free(struct oc_ccall *c)
{
  oc_cbuf_free(&c->args);
}

void oc_cview_free(struct oc_cview *v)
{
  for(size_t i = 0; i < v->nchoices; i++) {
    struct oc_cchoice *ch = &v->choices[i];
    for(size_t k = 0; k < ch->ncalls; k++)
      call_free(&ch->calls[k]);
    free(ch->calls);
  }
  free(v->choices);
  oc_cbuf_free(&v->err_msg);
  memset(v, 0, sizeof(*v));
}

int oc_cview_copy(struct oc_cview *dst, const struct oc_cview *src)
{
  oc_cview_free(dst);
  oc_cview_init(dst);
  dst->kind = src->kind;
  memcpy(dst->err_name, src->err_name, sizeof(dst->err_name));
  dst->err_msg_set = src->err_msg_set;
  dst->status = src->status;
  memcpy(dst->why, src->why, sizeof(dst->why));
  if(src->err_msg.len && oc_buf_add(&dst->err_msg, src->err_msg.data, src->err_msg.len))
    return OC_ENOMEM;
  for(size_t i = 0; i < src->nchoices; i++) {
    const struct oc_cchoice *a = &src->choices[i];
    struct oc_cchoice *b = oc_cview_append(dst, a->index);
    if(!b)
      return OC_ENOMEM;
    struct oc_ccall *calls = NULL;
    size_t acalls = 0;
    if(a->ncalls && !(calls = oc_array_grow_from(NULL, &acalls, a->ncalls, sizeof(*calls), 1))) {
      oc_cnote_oom();
      return OC_ENOMEM;
    }
    *b = *a;
    b->calls = calls;
    b->acalls = acalls;
    b->ncalls = 0;
    for(size_t k = 0; k < a->ncalls; k++) {
      b->calls[k] = a->calls[k];
      oc_buf_init(&b->calls[k].args, OC_CAP_ARGUMENTS);
      b->ncalls++;
      if(a->calls[k].args.len && oc_buf_add(&b->calls[k].args, a->calls[k].args.data, a->calls[k].args.len)) {
        oc_cnote_oom();
        return OC_ENOMEM;
      }
    }
  }
  return OC_OK;
}

/* ---- following the reference's content ------------------------------------------------ */

/* The reference's content text of the choice with this index, or NULL. */
static const struct oc_ctext *ref_content(const struct oc_cctx *cx, long index)
{
  const struct oc_cview *r = cx->ref;
  for(size_t i = 0; r && i < r->nchoices; i++)
    if(r->choices[i].index == index)
      return &r->choices[i].content;
  return NULL;
}

void oc_cfollow_init(struct oc_cfollow *f, const struct oc_cctx *cx, long index)
{
  /* in step only from where both are empty */
  const struct oc_ctext *r = ref_content(cx, index);
  f->on = !r || r->len == 0;
  f->index = index;
}

static int piece_string(const struct oc_centry *e)
{
  return !e->content || e->content->type == OC_JNULL || e->content->type == OC_JSTRING;
}

void oc_cfollow_chunk(struct oc_cfollow *f, struct oc_ctext *t, const struct oc_cctx *cx,
                      const struct oc_cevent *ev, const struct oc_centry *e)
{
  if(!f->on)
    return;
  int step;
  if(e)
    /* the reference takes the same piece into the same choice, and only it */
    step = cx->ref_takes && ev->nentries == 1 && e == &ev->entries[0] && e->index_val == f->index &&
           piece_string(e);
  else {
    /* the model takes nothing: in step while the reference adds nothing */
    step = 1;
    for(size_t i = 0; cx->ref_takes && i < ev->nentries && step; i++) {
      const struct oc_centry *x = &ev->entries[i];
      step = !(x->index_val == f->index && x->content && x->content->type == OC_JSTRING && x->content->len);
    }
  }
  if(step)
    return;
  /* on its own from here: the reference's text as it stands before this chunk */
  const struct oc_ctext *r = ref_content(cx, f->index);
  if(r)
    *t = *r;
  else
    oc_ctext_init(t);
  f->on = 0;
}

void oc_cfollow_leave(struct oc_cfollow *f, struct oc_ctext *t, const struct oc_cctx *cx)
{
  oc_cfollow_final(f, t, cx);
  f->on = 0;
}

void oc_cfollow_add(struct oc_cfollow *f, struct oc_ctext *t, const char *p, size_t n)
{
  if(!f->on)
    oc_ctext_add(t, p, n);
}

void oc_cfollow_final(const struct oc_cfollow *f, struct oc_ctext *t, const struct oc_cctx *cx)
{
  if(!f->on)
    return;
  const struct oc_ctext *r = ref_content(cx, f->index);
  if(r)
    *t = *r;
  else
    oc_ctext_init(t);
}

void oc_cview_move(struct oc_cview *dst, struct oc_cview *src)
{
  oc_cview_free(dst);
  *dst = *src;
  oc_cview_init(src);
}

void oc_cview_raise(struct oc_cview *v, const char *name, const char *msg, size_t len)
{
  if(v->kind == OC_CV_ERROR)
    return;
  v->kind = OC_CV_ERROR;
  oc_strlcpy(v->err_name, name ? name : "Error", sizeof(v->err_name));
  oc_cbuf_reset(&v->err_msg);
  if(msg) {
    size_t k = len < OC_CAP_CLIENT_MESSAGE - 1 ? len : OC_CAP_CLIENT_MESSAGE - 1;
    if(oc_buf_add(&v->err_msg, msg, k))
      oc_cbuf_reset(&v->err_msg); /* notes the failure; no half message */
    v->err_msg_set = 1;
  }
}

static void choice_init(struct oc_cchoice *ch, long index)
{
  memset(ch, 0, sizeof(*ch));
  ch->index = index;
  oc_ctext_init(&ch->role);
  oc_ctext_init(&ch->content);
  oc_ctext_init(&ch->refusal);
  oc_ctext_init(&ch->finish);
  ch->current_call = LONG_MIN;
}

struct oc_cchoice *oc_cview_choice(struct oc_cview *v, long index, int create)
{
  for(size_t i = 0; i < v->nchoices; i++)
    if(v->choices[i].index == index && !v->choices[i].hole)
      return &v->choices[i];
  if(!create || v->nchoices >= OC_MAX_CHOICES)
    return NULL;
  struct oc_cchoice *d = oc_array_grow_from(v->choices, &v->achoices, v->nchoices + 1, sizeof(*d), 1);
  if(!d) {
    oc_cnote_oom();
    return NULL;
  }
  v->choices = d;
  struct oc_cchoice *ch = &v->choices[v->nchoices];
  choice_init(ch, index);
  ch->pos = (int)v->nchoices++;
  return ch;
}

struct oc_cchoice *oc_cview_append(struct oc_cview *v, long index)
{
  if(v->nchoices >= OC_MAX_CHOICES)
    return NULL;
  struct oc_cchoice *d = oc_array_grow_from(v->choices, &v->achoices, v->nchoices + 1, sizeof(*d), 1);
  if(!d) {
    oc_cnote_oom();
    return NULL;
  }
  v->choices = d;
  struct oc_cchoice *ch = &v->choices[v->nchoices];
  choice_init(ch, index);
  ch->pos = (int)v->nchoices++;
  return ch;
}

struct oc_ccall *oc_cchoice_call(struct oc_cchoice *ch, long key, int create)
{
  for(size_t i = 0; i < ch->ncalls; i++)
    if(ch->calls[i].key == key && !ch->calls[i].hole)
      return &ch->calls[i];
  if(!create || ch->ncalls >= OC_MAX_TOOL_CALLS)
    return NULL;
  struct oc_ccall *d = oc_array_grow_from(ch->calls, &ch->acalls, ch->ncalls + 1, sizeof(*d), 1);
  if(!d) {
    oc_cnote_oom();
    return NULL;
  }
  ch->calls = d;
  struct oc_ccall *c = &ch->calls[ch->ncalls];
  memset(c, 0, sizeof(*c));
  c->key = key;
  c->seq = (int)ch->ncalls++;
  oc_ctext_init(&c->id);
  oc_ctext_init(&c->name);
  oc_ctext_init(&c->type);
  oc_buf_init(&c->args, OC_CAP_ARGUMENTS);
  return c;
}

int oc_cargs_add(struct oc_buf *b, const char *p, size_t n)
{
  int rc = OC_ETOOBIG;
  if(!args_room || *args_room >= n) {
    rc = oc_buf_add(b, p, n);
    if(!rc && args_room)
      *args_room -= n;
  }
  if(rc)
    oc_cbuf_free(b); /* notes a failed allocation (not the cap); gives the memory back */
  return rc;
}

void oc_ccall_args_add(struct oc_ccall *c, const char *p, size_t n)
{
  c->args_set = 1;
  c->args_len += n;
  if(!c->args_over && n && oc_cargs_add(&c->args, p, n))
    c->args_over = 1;
}

static int cmp_choice(const void *a, const void *b)
{
  const struct oc_cchoice *x = a, *y = b;
  if(x->index != y->index)
    return x->index < y->index ? -1 : 1;
  return x->pos - y->pos; /* stable */
}

static int cmp_call(const void *a, const void *b)
{
  const struct oc_ccall *x = a, *y = b;
  if(x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->seq - y->seq;
}

void oc_cchoice_sort_calls(struct oc_cchoice *ch)
{
  if(ch->ncalls > 1)
    qsort(ch->calls, ch->ncalls, sizeof(*ch->calls), cmp_call);
}

void oc_cview_sort(struct oc_cview *v)
{
  if(v->nchoices > 1)
    qsort(v->choices, v->nchoices, sizeof(*v->choices), cmp_choice);
}

/* ---- digests -------------------------------------------------------------------------- */

static int key_is(const struct oc_jmember *m, const char *k, size_t n)
{
  return m->key_len == n && memcmp(m->key, k, n) == 0;
}

#define KEY(m, lit) key_is((m), lit, sizeof(lit) - 1)

void oc_centry_digest(struct oc_centry *e, const struct oc_jv *choice, uint32_t pos, int stream)
{
  memset(e, 0, sizeof(*e));
  e->pos = pos;
  e->v = choice;
  e->index_val = pos;
  if(!choice || choice->type != OC_JOBJECT)
    return;
  /* one pass; the last of duplicate members wins, as in JSON.parse */
  for(uint32_t i = 0; i < choice->len; i++) {
    const struct oc_jmember *m = &choice->u.members[i];
    switch(m->key_len) {
    case 5:
      if(KEY(m, "index"))
        e->index = &m->value;
      else if(KEY(m, "delta"))
        e->delta = &m->value;
      else if(KEY(m, "usage"))
        e->usage = &m->value;
      break;
    case 7:
      if(KEY(m, "message"))
        e->message = &m->value;
      break;
    case 8:
      if(KEY(m, "logprobs"))
        e->logprobs = &m->value;
      break;
    case 13:
      if(KEY(m, "finish_reason"))
        e->finish = &m->value;
      break;
    }
  }
  if(oc_jv_is_integer(e->index)) {
    e->int_index = 1;
    if(fabs(e->index->u.num) < 1e15)
      e->index_val = (long)e->index->u.num;
  }
  const struct oc_jv *d = stream ? e->delta : e->message;
  if(!d || d->type != OC_JOBJECT)
    return;
  for(uint32_t i = 0; i < d->len; i++) {
    const struct oc_jmember *m = &d->u.members[i];
    switch(m->key_len) {
    case 4:
      if(KEY(m, "role"))
        e->role = &m->value;
      break;
    case 7:
      if(KEY(m, "content"))
        e->content = &m->value;
      else if(KEY(m, "refusal"))
        e->refusal = &m->value;
      break;
    case 9:
      if(KEY(m, "reasoning"))
        e->reasoning = &m->value;
      break;
    case 10:
      if(KEY(m, "tool_calls"))
        e->tool_calls = &m->value;
      break;
    case 13:
      if(KEY(m, "function_call"))
        e->function_call = &m->value;
      break;
    case 17:
      if(KEY(m, "reasoning_content"))
        e->reasoning_content = &m->value;
      break;
    }
  }
}

struct top {
  const struct oc_jv *error, *choices, *object, *usage, *id, *model, *created;
};

static void top_digest(const struct oc_jv *root, struct top *t)
{
  memset(t, 0, sizeof(*t));
  if(!root || root->type != OC_JOBJECT)
    return;
  for(uint32_t i = 0; i < root->len; i++) {
    const struct oc_jmember *m = &root->u.members[i];
    switch(m->key_len) {
    case 2:
      if(KEY(m, "id"))
        t->id = &m->value;
      break;
    case 5:
      if(KEY(m, "error"))
        t->error = &m->value;
      else if(KEY(m, "usage"))
        t->usage = &m->value;
      else if(KEY(m, "model"))
        t->model = &m->value;
      break;
    case 6:
      if(KEY(m, "object"))
        t->object = &m->value;
      break;
    case 7:
      if(KEY(m, "choices"))
        t->choices = &m->value;
      else if(KEY(m, "created"))
        t->created = &m->value;
      break;
    }
  }
}

/* ---- the reference reassembly ---------------------------------------------------------- */

void oc_cacc_init(struct oc_cacc *a)
{
  oc_cview_init(&a->view);
}

void oc_cacc_free(struct oc_cacc *a)
{
  oc_cview_free(&a->view);
}

static int js_integer(const struct oc_jv *v)
{
  return oc_jv_is_integer(v);
}

/* A JS array element key: a non-negative integer below 2^32-1. */
static int js_array_key(const struct oc_jv *v, long *key)
{
  if(!js_integer(v) || v->u.num < 0 || v->u.num >= 4294967295.0 || v->u.num > (double)LONG_MAX)
    return 0;
  *key = (long)v->u.num;
  return 1;
}

void oc_cacc_chunk(struct oc_cacc *a, const struct oc_cevent *ev, int *oom)
{
  if(!ev->choices || ev->choices->type != OC_JARRAY)
    return;
  for(size_t i = 0; i < ev->nentries; i++) {
    const struct oc_centry *e = &ev->entries[i];
    long idx = e->index_val;
    struct oc_cchoice *ch = oc_cview_choice(&a->view, idx, 1);
    if(!ch) {
      if(a->view.nchoices < OC_MAX_CHOICES)
        *oom = 1;
      continue;
    }
    if(!ch->role.set && e->role && e->role->type == OC_JSTRING && e->role->len)
      oc_ctext_set(&ch->role, e->role->u.str, e->role->len);
    if(e->content && e->content->type == OC_JSTRING)
      oc_ctext_add(&ch->content, e->content->u.str, e->content->len);
    if(e->refusal && e->refusal->type == OC_JSTRING)
      oc_ctext_add(&ch->refusal, e->refusal->u.str, e->refusal->len);
    if(e->tool_calls && e->tool_calls->type == OC_JARRAY) {
      for(uint32_t t = 0; t < e->tool_calls->len && t < 2 * OC_MAX_TOOL_CALLS; t++) {
        const struct oc_jv *tc = &e->tool_calls->u.items[t];
        const struct oc_jv *index = oc_jv_get(tc, "index");
        long ti = (long)t;
        if(js_integer(index) && !js_array_key(index, &ti))
          continue; /* a negative or huge index: a property of the JS array, never listed */
        struct oc_ccall *c = oc_cchoice_call(ch, ti, 1);
        if(!c) {
          if(ch->ncalls < OC_MAX_TOOL_CALLS)
            *oom = 1;
          continue;
        }
        const struct oc_jv *id = oc_jv_get(tc, "id");
        const struct oc_jv *fn = oc_jv_get(tc, "function");
        const struct oc_jv *name = oc_jv_get(fn, "name");
        const struct oc_jv *args = oc_jv_get(fn, "arguments");
        if(!c->id.set && id && id->type == OC_JSTRING && id->len)
          oc_ctext_set(&c->id, id->u.str, id->len);
        if(!c->name.set && name && name->type == OC_JSTRING && name->len)
          oc_ctext_set(&c->name, name->u.str, name->len);
        if(args && args->type == OC_JSTRING)
          oc_ccall_args_add(c, args->u.str, args->len);
      }
    }
    if(e->finish && e->finish->type == OC_JSTRING)
      oc_ctext_set(&ch->finish, e->finish->u.str, e->finish->len);
  }
}

void oc_cacc_body(struct oc_cacc *a, const struct oc_cbody *b, int *oom)
{
  if(!b->choices || b->choices->type != OC_JARRAY)
    return;
  for(size_t i = 0; i < b->nentries; i++) {
    const struct oc_centry *e = &b->entries[i];
    long idx = e->index_val;
    struct oc_cchoice *ch = oc_cview_append(&a->view, idx);
    if(!ch) {
      if(a->view.nchoices < OC_MAX_CHOICES)
        *oom = 1;
      continue;
    }
    if(e->role && e->role->type == OC_JSTRING)
      oc_ctext_set(&ch->role, e->role->u.str, e->role->len);
    if(e->content && e->content->type == OC_JSTRING)
      oc_ctext_set(&ch->content, e->content->u.str, e->content->len);
    if(e->refusal && e->refusal->type == OC_JSTRING)
      oc_ctext_set(&ch->refusal, e->refusal->u.str, e->refusal->len);
    if(e->tool_calls && e->tool_calls->type == OC_JARRAY)
      for(uint32_t t = 0; t < e->tool_calls->len && t < OC_MAX_TOOL_CALLS; t++) {
        const struct oc_jv *tc = &e->tool_calls->u.items[t];
        struct oc_ccall *c = oc_cchoice_call(ch, (long)t, 1);
        if(!c) {
          *oom = 1;
          continue;
        }
        const struct oc_jv *id = oc_jv_get(tc, "id");
        const struct oc_jv *fn = oc_jv_get(tc, "function");
        const struct oc_jv *name = oc_jv_get(fn, "name");
        const struct oc_jv *args = oc_jv_get(fn, "arguments");
        if(id && id->type == OC_JSTRING && id->len)
          oc_ctext_set(&c->id, id->u.str, id->len);
        if(name && name->type == OC_JSTRING)
          oc_ctext_set(&c->name, name->u.str, name->len);
        c->args_set = 1;
        if(args && args->type == OC_JSTRING)
          oc_ccall_args_add(c, args->u.str, args->len);
      }
    if(e->finish && e->finish->type == OC_JSTRING)
      oc_ctext_set(&ch->finish, e->finish->u.str, e->finish->len);
  }
}

/* ---- JavaScript and Python formatting --------------------------------------------------- */

/* The exponent of printf's %e output ("e+05", "e-7"), 0 without one. */
static int e_exponent(const char *e)
{
  long x = 0;
  return e && *e == 'e' && oc_parse_long(e + 1, -400, 400, &x) == OC_OK ? (int)x : 0;
}

void oc_js_number(double d, char *out, size_t outlen)
{
  if(d == 0) {
    say(out, outlen, "0");
    return;
  }
  if(!isfinite(d)) {
    say(out, outlen, isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
    return;
  }
  /* the shortest digits that read back as d (what JS and Python print) */
  char e[40];
  int prec = 1;
  for(; prec <= 17; prec++) {
    snprintf(e, sizeof(e), "%.*e", prec - 1, d);
    if(strtod(e, NULL) == d)
      break;
  }
  char digits[24];
  size_t nd = 0;
  const char *p = e;
  int neg = *p == '-';
  if(neg)
    p++;
  for(; *p && *p != 'e'; p++)
    if(*p >= '0' && *p <= '9' && nd < sizeof(digits) - 1)
      digits[nd++] = *p;
  digits[nd] = '\0';
  int exp10 = e_exponent(p);
  while(nd > 1 && digits[nd - 1] == '0')
    digits[--nd] = '\0';
  /* ECMAScript Number::toString: n = exp10 + 1 */
  int n = exp10 + 1;
  struct oc_buf b;
  oc_buf_init(&b, 128);
  if(neg)
    oc_buf_addc(&b, '-');
  if((int)nd <= n && n <= 21) {
    oc_buf_add(&b, digits, nd);
    for(int i = (int)nd; i < n; i++)
      oc_buf_addc(&b, '0');
  }
  else if(0 < n && n <= 21) {
    oc_buf_add(&b, digits, (size_t)n);
    oc_buf_addc(&b, '.');
    oc_buf_adds(&b, digits + n);
  }
  else if(-6 < n && n <= 0) {
    oc_buf_adds(&b, "0.");
    for(int i = 0; i < -n; i++)
      oc_buf_addc(&b, '0');
    oc_buf_add(&b, digits, nd);
  }
  else {
    oc_buf_addc(&b, digits[0]);
    if(nd > 1) {
      oc_buf_addc(&b, '.');
      oc_buf_adds(&b, digits + 1);
    }
    oc_buf_printf(&b, "e%c%d", n - 1 >= 0 ? '+' : '-', abs(n - 1));
  }
  say(out, outlen, "%s", oc_buf_str(&b));
  oc_cbuf_free(&b);
}

static int js_stringify(struct oc_buf *b, const struct oc_jv *v, int depth)
{
  if(depth > 64)
    return oc_buf_adds(b, "null");
  switch(v->type) {
  case OC_JNULL: return oc_buf_adds(b, "null");
  case OC_JTRUE: return oc_buf_adds(b, "true");
  case OC_JFALSE: return oc_buf_adds(b, "false");
  case OC_JNUMBER: {
    char num[40];
    oc_js_number(v->u.num, num, sizeof(num));
    return oc_buf_adds(b, num);
  }
  case OC_JSTRING:
    json_quote(b, v->u.str, v->len);
    return OC_OK;
  case OC_JARRAY:
    oc_buf_addc(b, '[');
    for(uint32_t i = 0; i < v->len; i++) {
      if(i)
        oc_buf_addc(b, ',');
      js_stringify(b, &v->u.items[i], depth + 1);
    }
    return oc_buf_addc(b, ']');
  case OC_JOBJECT:
    oc_buf_addc(b, '{');
    for(uint32_t i = 0; i < v->len; i++) {
      if(i)
        oc_buf_addc(b, ',');
      json_quote(b, v->u.members[i].key, v->u.members[i].key_len);
      oc_buf_addc(b, ':');
      js_stringify(b, &v->u.members[i].value, depth + 1);
    }
    return oc_buf_addc(b, '}');
  }
  return OC_OK;
}

int oc_js_stringify(struct oc_buf *b, const struct oc_jv *v)
{
  return v ? js_stringify(b, v, 0) : oc_buf_adds(b, "undefined");
}

static int js_string(struct oc_buf *b, const struct oc_jv *v, int depth)
{
  switch(v->type) {
  case OC_JNULL: return OC_OK; /* inside an array join; alone it is "null", see below */
  case OC_JTRUE: return oc_buf_adds(b, "true");
  case OC_JFALSE: return oc_buf_adds(b, "false");
  case OC_JNUMBER: {
    char num[40];
    oc_js_number(v->u.num, num, sizeof(num));
    return oc_buf_adds(b, num);
  }
  case OC_JSTRING: return oc_buf_add(b, v->u.str, v->len);
  case OC_JARRAY:
    for(uint32_t i = 0; i < v->len && depth < 64; i++) {
      if(i)
        oc_buf_addc(b, ',');
      js_string(b, &v->u.items[i], depth + 1);
    }
    return OC_OK;
  case OC_JOBJECT: return oc_buf_adds(b, "[object Object]");
  }
  return OC_OK;
}

int oc_js_string(struct oc_buf *b, const struct oc_jv *v)
{
  if(!v)
    return oc_buf_adds(b, "undefined");
  if(v->type == OC_JNULL)
    return oc_buf_adds(b, "null");
  return js_string(b, v, 0);
}

static void py_str(struct oc_buf *b, const char *s, size_t n)
{
  int sq = memchr(s, '\'', n) != NULL, dq = memchr(s, '"', n) != NULL;
  char q = sq && !dq ? '"' : '\'';
  oc_buf_addc(b, q);
  for(size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if(c == '\\')
      oc_buf_adds(b, "\\\\");
    else if(c == (unsigned char)q)
      oc_buf_printf(b, "\\%c", q);
    else if(c == '\n')
      oc_buf_adds(b, "\\n");
    else if(c == '\r')
      oc_buf_adds(b, "\\r");
    else if(c == '\t')
      oc_buf_adds(b, "\\t");
    else if(c < 0x20 || c == 0x7f)
      oc_buf_printf(b, "\\x%02x", c);
    else
      oc_buf_addc(b, (char)c);
  }
  oc_buf_addc(b, q);
}

static void py_number(struct oc_buf *b, const struct oc_jv *v)
{
  double d = v->u.num;
  if(v->int_literal && fabs(d) < 1e300) {
    oc_buf_printf(b, "%.0f", d);
    return;
  }
  /* repr(float): shortest digits, exponent form below 1e-4 or from 1e16 */
  char e[40];
  int prec = 1;
  for(; prec <= 17; prec++) {
    snprintf(e, sizeof(e), "%.*e", prec - 1, d);
    if(strtod(e, NULL) == d)
      break;
  }
  char *ep = strchr(e, 'e');
  int x = e_exponent(ep);
  if(d != 0 && (x < -4 || x >= 16)) {
    /* mantissa without trailing zeros, exponent with at least two digits */
    char m[32];
    size_t mn = ep ? (size_t)(ep - e) : strlen(e);
    snprintf(m, sizeof(m), "%.*s", (int)mn, e);
    if(strchr(m, '.')) {
      size_t k = strlen(m);
      while(k && m[k - 1] == '0')
        m[--k] = '\0';
      if(k && m[k - 1] == '.')
        m[--k] = '\0';
    }
    oc_buf_printf(b, "%se%c%02d", m, x < 0 ? '-' : '+', abs(x));
    return;
  }
  char f[64];
  snprintf(f, sizeof(f), "%.*f", prec - 1 - x > 0 ? prec - 1 - x : 0, d);
  oc_buf_adds(b, f);
  if(!strchr(f, '.'))
    oc_buf_adds(b, ".0");
}

static int py_repr(struct oc_buf *b, const struct oc_jv *v, int depth)
{
  switch(v->type) {
  case OC_JNULL: return oc_buf_adds(b, "None");
  case OC_JTRUE: return oc_buf_adds(b, "True");
  case OC_JFALSE: return oc_buf_adds(b, "False");
  case OC_JNUMBER: py_number(b, v); return OC_OK;
  case OC_JSTRING: py_str(b, v->u.str, v->len); return OC_OK;
  case OC_JARRAY:
    oc_buf_addc(b, '[');
    for(uint32_t i = 0; i < v->len && depth < 64; i++) {
      if(i)
        oc_buf_adds(b, ", ");
      py_repr(b, &v->u.items[i], depth + 1);
    }
    return oc_buf_addc(b, ']');
  case OC_JOBJECT:
    oc_buf_addc(b, '{');
    for(uint32_t i = 0; i < v->len && depth < 64; i++) {
      /* a dict keeps the last of duplicate keys, in first-seen position */
      const struct oc_jmember *m = &v->u.members[i];
      int dup = 0;
      for(uint32_t k = 0; k < i && !dup; k++)
        dup = v->u.members[k].key_len == m->key_len && memcmp(v->u.members[k].key, m->key, m->key_len) == 0;
      if(dup)
        continue;
      if(i)
        oc_buf_adds(b, ", ");
      py_str(b, m->key, m->key_len);
      oc_buf_adds(b, ": ");
      py_repr(b, oc_jv_get(v, m->key), depth + 1);
    }
    return oc_buf_addc(b, '}');
  }
  return OC_OK;
}

int oc_py_repr(struct oc_buf *b, const struct oc_jv *v)
{
  return py_repr(b, v, 0);
}

char *oc_client_error_message(const struct oc_jv *v, size_t *len)
{
  *len = 0;
  if(!v || (v->type != OC_JOBJECT && v->type != OC_JARRAY))
    return NULL;
  const struct oc_jv *e = oc_jv_get(v, "error");
  if(e && e->type == OC_JOBJECT) {
    const struct oc_jv *m = oc_jv_get(e, "message");
    if(m && m->type == OC_JSTRING) {
      *len = m->len;
      return cdup(m->u.str, m->len);
    }
    if(m && (m->type == OC_JOBJECT || m->type == OC_JARRAY)) {
      /* LiteLLM wraps an upstream envelope in message */
      char *inner = oc_client_error_message(m, len);
      if(inner)
        return inner;
      struct oc_buf b;
      oc_buf_init(&b, OC_CAP_CLIENT_MESSAGE);
      oc_js_stringify(&b, m);
      return oc_cbuf_take(&b, len);
    }
  }
  if(e && e->type == OC_JSTRING) {
    *len = e->len;
    return cdup(e->u.str, e->len);
  }
  const struct oc_jv *m = oc_jv_get(v, "message");
  if(m && m->type == OC_JSTRING) {
    *len = m->len;
    return cdup(m->u.str, m->len);
  }
  const struct oc_jv *d = oc_jv_get(v, "detail");
  if(d && d->type == OC_JSTRING) {
    *len = d->len;
    return cdup(d->u.str, d->len);
  }
  return NULL;
}

int oc_client_is_json_object(const char *p, size_t n)
{
  struct oc_jdoc d;
  struct oc_jerr err;
  oc_jdoc_init(&d);
  int ok = oc_cjdoc_parse(&d, p, n, &err) == OC_OK && d.root->type == OC_JOBJECT;
  oc_jdoc_free(&d);
  return ok;
}

int oc_client_partial_json(const char *p, size_t n, struct oc_buf *out)
{
  oc_cbuf_reset(out);
  struct oc_jdoc d;
  struct oc_jerr err;
  oc_jdoc_init(&d);
  int ok = oc_cjdoc_parse(&d, p, n, &err) == OC_OK;
  if(ok) {
    oc_jdoc_free(&d);
    return oc_buf_add(out, p, n) ? -1 : 0;
  }
  /* @langchain/core utils/json.js parsePartialJson: walk the characters,
   * escape raw newlines inside strings, close the open string and every
   * open bracket; a mismatched closer gives up */
  char stack[256];
  size_t sp = 0;
  int in_str = 0, esc = 0;
  for(size_t i = 0; i < n; i++) {
    char c = p[i];
    if(in_str) {
      if(c == '"' && !esc)
        in_str = 0;
      else if(c == '\n' && !esc) {
        if(oc_buf_adds(out, "\\n"))
          goto fail;
        continue;
      }
      else if(c == '\\')
        esc = !esc;
      else
        esc = 0;
    }
    else if(c == '"') {
      in_str = 1;
      esc = 0;
    }
    else if(c == '{' || c == '[') {
      if(sp == sizeof(stack))
        goto fail;
      stack[sp++] = c == '{' ? '}' : ']';
    }
    else if(c == '}' || c == ']') {
      if(sp && stack[sp - 1] == c)
        sp--;
      else
        goto fail;
    }
    if(oc_buf_addc(out, c))
      goto fail;
  }
  if(in_str && oc_buf_addc(out, '"'))
    goto fail;
  while(sp)
    if(oc_buf_addc(out, stack[--sp]))
      goto fail;
  ok = oc_cjdoc_parse(&d, oc_buf_str(out), out->len, &err) == OC_OK;
  oc_jdoc_free(&d);
  return ok ? 0 : -1;
fail:
  oc_jdoc_free(&d);
  return -1;
}

int oc_client_json_forbidden(const struct oc_jv *v)
{
  if(!v)
    return 0;
  if(v->type == OC_JARRAY) {
    for(uint32_t i = 0; i < v->len; i++)
      if((v->u.items[i].type == OC_JOBJECT || v->u.items[i].type == OC_JARRAY) &&
         oc_client_json_forbidden(&v->u.items[i]))
        return 1;
    return 0;
  }
  if(v->type != OC_JOBJECT)
    return 0;
  for(uint32_t i = 0; i < v->len; i++) {
    const struct oc_jmember *m = &v->u.members[i];
    if(m->key_len == 9 && KEY(m, "__proto__"))
      return 1;
    if(m->key_len == 11 && KEY(m, "constructor") && m->value.type == OC_JOBJECT &&
       oc_jv_get(&m->value, "prototype"))
      return 1;
    if((m->value.type == OC_JOBJECT || m->value.type == OC_JARRAY) && oc_client_json_forbidden(&m->value))
      return 1;
  }
  return 0;
}

const char *oc_client_status_text(int status)
{
  /* libmicrohttpd's reason phrases, as `oacheck serve` sends them */
  switch(status) {
  case 200: return "OK";
  case 201: return "Created";
  case 204: return "No Content";
  case 400: return "Bad Request";
  case 401: return "Unauthorized";
  case 402: return "Payment Required";
  case 403: return "Forbidden";
  case 404: return "Not Found";
  case 405: return "Method Not Allowed";
  case 406: return "Not Acceptable";
  case 408: return "Request Timeout";
  case 409: return "Conflict";
  case 410: return "Gone";
  case 413: return "Content Too Large";
  case 415: return "Unsupported Media Type";
  case 422: return "Unprocessable Content";
  case 429: return "Too Many Requests";
  case 500: return "Internal Server Error";
  case 501: return "Not Implemented";
  case 502: return "Bad Gateway";
  case 503: return "Service Unavailable";
  case 504: return "Gateway Timeout";
  default: return "";
  }
}

/* ---- the judge ------------------------------------------------------------------------- */

/* The length of a JavaScript whitespace character at s (\s in a RegExp),
 * or 0. */
static size_t js_space(const unsigned char *s, size_t n)
{
  if(!n)
    return 0;
  if(s[0] == ' ' || (s[0] >= '\t' && s[0] <= '\r'))
    return 1;
  if(n >= 2 && s[0] == 0xC2 && s[1] == 0xA0)
    return 2;
  if(n >= 3) {
    unsigned c = (unsigned)s[0] << 16 | (unsigned)s[1] << 8 | s[2];
    if(c == 0xE19A80 || (c >= 0xE28080 && c <= 0xE2808A) || c == 0xE280A8 || c == 0xE280A9 ||
       c == 0xE280AF || c == 0xE2819F || c == 0xE38080 || c == 0xEFBBBF)
      return 3;
  }
  return 0;
}

/* String.prototype.trim: the bounds of s without leading and trailing
 * whitespace. */
static void js_trim(const char *p, size_t n, size_t *from, size_t *to)
{
  const unsigned char *s = (const unsigned char *)p;
  size_t i = 0, first = n, last = 0;
  while(i < n) {
    size_t k = js_space(s + i, n - i);
    if(k) {
      i += k;
      continue;
    }
    if(first == n)
      first = i;
    i++;
    while(i < n && (s[i] & 0xC0) == 0x80)
      i++;
    last = i;
  }
  *from = first == n ? 0 : first;
  *to = first == n ? 0 : last;
}

/* Runs of whitespace to one space; trim: also the ends. */
static void collapse(struct oc_buf *b, const char *p, size_t n, int trim)
{
  const unsigned char *s = (const unsigned char *)p;
  int space = 0;
  for(size_t i = 0; i < n;) {
    size_t k = js_space(s + i, n - i);
    if(k) {
      space = 1;
      i += k;
      continue;
    }
    if(space && (!trim || b->len))
      oc_buf_addc(b, ' ');
    space = 0;
    oc_buf_addc(b, (char)s[i++]);
  }
  if(space && !trim)
    oc_buf_addc(b, ' ');
}

static int contains(const struct oc_buf *hay, const struct oc_buf *needle)
{
  if(needle->len == 0)
    return 1;
  if(needle->len > hay->len)
    return 0;
  const char *h = oc_buf_str(hay), *nd = oc_buf_str(needle);
  for(size_t i = 0; i + needle->len <= hay->len; i++)
    if(h[i] == nd[0] && memcmp(h + i, nd, needle->len) == 0)
      return 1;
  return 0;
}

int oc_client_keeps_message(const char *got, size_t glen, const char *want, size_t wlen)
{
  if(!want)
    return 1;
  struct oc_buf g, w, j;
  oc_buf_init(&g, 2 * OC_CAP_CLIENT_MESSAGE);
  oc_buf_init(&w, 2 * OC_CAP_CLIENT_MESSAGE);
  oc_buf_init(&j, 4 * OC_CAP_CLIENT_MESSAGE);
  collapse(&g, got ? got : "", got ? glen : 0, 0);
  collapse(&w, want, wlen, 1);
  json_quote(&j, want, wlen);
  int kept = contains(&g, &w);
  if(!kept && j.len >= 2) {
    struct oc_buf inner;
    oc_buf_init(&inner, j.len);
    oc_buf_add(&inner, j.data + 1, j.len - 2);
    kept = contains(&g, &inner);
    oc_cbuf_free(&inner);
  }
  oc_cbuf_free(&g);
  oc_cbuf_free(&w);
  oc_cbuf_free(&j);
  return kept;
}

static void one_line(const char *s, size_t n, char *out, size_t outlen)
{
  size_t k = 0;
  while(k < n && s[k] != '\n')
    k++;
  int cut;
  size_t c = cut_codepoints(s, k, 100, &cut);
  say(out, outlen, "%.*s%s", (int)c, s, cut ? "…" : "");
}

static void quote_buf(const struct oc_buf *b, int set, char *out, size_t outlen)
{
  if(!set)
    say(out, outlen, "null");
  else
    quote_text(oc_buf_str(b), b->len, 0, out, outlen);
}

static const char *ai_finish(const struct oc_ctext *f)
{
  if(!f->set)
    return "other";
  if(oc_ctext_eqs(f, "stop", 4))
    return "stop";
  if(oc_ctext_eqs(f, "length", 6))
    return "length";
  if(oc_ctext_eqs(f, "content_filter", 14))
    return "content-filter";
  if(oc_ctext_eqs(f, "tool_calls", 10) || oc_ctext_eqs(f, "function_call", 13))
    return "tool-calls";
  return "other";
}

/* Where two texts part, for a reason: both short, or the window around
 * the first difference within their first bytes. */
static void str_diff(const char *what, const struct oc_ctext *got, const struct oc_ctext *want,
                     char *out, size_t outlen)
{
  char g[200], w[200];
  int gcut, wcut;
  cut_codepoints(got->head, got->nhead, 60, &gcut);
  cut_codepoints(want->head, want->nhead, 60, &wcut);
  if(!gcut && !wcut && got->len == got->nhead && want->len == want->nhead) {
    quote_text(got->head, got->nhead, 0, g, sizeof(g));
    quote_text(want->head, want->nhead, 0, w, sizeof(w));
    say(out, outlen, "%s %s (expected %s)", what, g, w);
    return;
  }
  size_t i = 0;
  while(i < got->nhead && i < want->nhead && got->head[i] == want->head[i])
    i++;
  if(i == got->nhead && i == want->nhead && (got->nhead < got->len || want->nhead < want->len)) {
    say(out, outlen, "%s differs after byte %u (%llu bytes, expected %llu)", what, (unsigned)i,
             (unsigned long long)got->len, (unsigned long long)want->len);
    return;
  }
  size_t from = i > 10 ? i - 10 : 0;
  while(from > 0 && ((unsigned char)got->head[from] & 0xC0) == 0x80)
    from--;
  size_t gl = got->nhead - from < 30 ? got->nhead - from : 30;
  size_t wl = want->nhead > from ? (want->nhead - from < 30 ? want->nhead - from : 30) : 0;
  quote_text(got->head + from, gl, 0, g, sizeof(g));
  quote_text(want->head + (want->nhead > from ? from : want->nhead), wl, 0, w, sizeof(w));
  say(out, outlen, "%s differs from byte %u: %s (expected %s)", what, (unsigned)i, g, w);
}

/* A parsing client's arguments as judge.mjs quotes them: the parsed
 * value written back compactly. */
static void parsed_quote(const struct oc_buf *args, char *out, size_t outlen)
{
  struct oc_jdoc d;
  struct oc_jerr err;
  oc_jdoc_init(&d);
  if(oc_cjdoc_parse(&d, oc_buf_str(args), args->len, &err) == OC_OK) {
    struct oc_buf b;
    oc_buf_init(&b, OC_CAP_ARGUMENTS);
    oc_js_stringify(&b, d.root);
    quote_text(oc_buf_str(&b), b.len, 0, out, outlen);
    oc_cbuf_free(&b);
  }
  else
    quote_text(oc_buf_str(args), args->len, 0, out, outlen);
  oc_jdoc_free(&d);
}

static int args_parse(const struct oc_buf *b, struct oc_jdoc *d)
{
  struct oc_jerr err;
  return oc_cjdoc_parse(d, oc_buf_str(b), b->len, &err) == OC_OK;
}

static int args_equal(const struct oc_ccall *g, const struct oc_ccall *r)
{
  if(g->args_len == r->args_len && g->args.len == r->args.len &&
     memcmp(oc_buf_str(&g->args), oc_buf_str(&r->args), g->args.len) == 0)
    return 1;
  struct oc_jdoc a, b;
  oc_jdoc_init(&a);
  oc_jdoc_init(&b);
  int eq = args_parse(&g->args, &a) && args_parse(&r->args, &b) && oc_jv_equal(a.root, b.root);
  oc_jdoc_free(&a);
  oc_jdoc_free(&b);
  return eq;
}

static int call_args_object(const struct oc_ccall *c)
{
  return !c->args_over && oc_client_is_json_object(oc_buf_str(&c->args), c->args.len);
}

static int compare_calls(const struct oc_ccaps *caps, const struct oc_cchoice *g,
                         const struct oc_cchoice *r, const char *pfx, char *out, size_t outlen)
{
  size_t gn = g ? g->ncalls : 0, rn = r ? r->ncalls : 0;
  if(gn != rn) {
    say(out, outlen, "%stool_calls: %zu (expected %zu)", pfx, gn, rn);
    return 1;
  }
  if(!rn)
    return 0;
  /* LangChain keeps parsed and invalid calls apart: line the reference up
   * the same way */
  const struct oc_ccall **want = calloc(rn, sizeof(*want));
  int *obj = calloc(rn, sizeof(*obj)), *obj_of = calloc(rn, sizeof(*obj_of));
  int diff = 0;
  if(!want || !obj || !obj_of) {
    oc_cnote_oom();
    free(want);
    free(obj);
    free(obj_of);
    return 0;
  }
  /* once per call: both passes must see the same answer */
  for(size_t i = 0; i < rn; i++)
    obj_of[i] = call_args_object(&r->calls[i]);
  size_t k = 0;
  for(int pass = 0; pass < (caps->valid_first ? 2 : 1); pass++)
    for(size_t i = 0; i < rn; i++) {
      int o = obj_of[i];
      if(caps->valid_first && (pass == 0) != (o != 0))
        continue;
      obj[k] = o;
      want[k++] = &r->calls[i];
    }
  free(obj_of);
  for(size_t i = 0; i < rn && !diff; i++) {
    const struct oc_ccall *gc = &g->calls[i], *rc = want[i];
    char at[64], a[200], b2[200];
    snprintf(at, sizeof(at), "%stool_calls[%zu]", pfx, i);
    if(gc->hole) {
      say(out, outlen, "%s missing", at);
      diff = 1;
      break;
    }
    int gname = !oc_ctext_empty(&gc->name), rname = !oc_ctext_empty(&rc->name);
    if(gname != rname || (gname && !oc_ctext_eq(&gc->name, &rc->name))) {
      oc_ctext_quote(&gc->name, a, sizeof(a));
      oc_ctext_quote(&rc->name, b2, sizeof(b2));
      say(out, outlen, "%s.name %s (expected %s)", at, a, b2);
      diff = 1;
      break;
    }
    /* a client may invent an id where the server sent none */
    if(!oc_ctext_empty(&rc->id) && !oc_ctext_eq(&gc->id, &rc->id)) {
      oc_ctext_quote(&gc->id, a, sizeof(a));
      oc_ctext_quote(&rc->id, b2, sizeof(b2));
      say(out, outlen, "%s.id %s (expected %s)", at, a, b2);
      diff = 1;
      break;
    }
    if(caps->args == OC_CARGS_STRING) {
      if(gc->args_len != rc->args_len || gc->args.len != rc->args.len ||
         memcmp(oc_buf_str(&gc->args), oc_buf_str(&rc->args), gc->args.len) != 0) {
        struct oc_ctext x, y;
        char what[96];
        oc_ctext_set(&x, oc_buf_str(&gc->args), gc->args.len);
        oc_ctext_set(&y, oc_buf_str(&rc->args), rc->args.len);
        snprintf(what, sizeof(what), "%s.arguments", at);
        str_diff(what, &x, &y, out, outlen);
        diff = 1;
      }
      continue;
    }
    if(obj[i]) {
      if(gc->invalid) {
        quote_buf(&rc->args, 1, b2, sizeof(b2));
        if(gc->error[0])
          say(out, outlen, "%s flagged invalid (\"%s\") (expected arguments %s)", at, gc->error, b2);
        else
          say(out, outlen, "%s flagged invalid (expected arguments %s)", at, b2);
        diff = 1;
      }
      else if(!args_equal(gc, rc)) {
        parsed_quote(&gc->args, a, sizeof(a));
        quote_buf(&rc->args, 1, b2, sizeof(b2));
        say(out, outlen, "%s.arguments %s (expected %s)", at, a, b2);
        diff = 1;
      }
    }
    else if(!gc->invalid) {
      parsed_quote(&gc->args, a, sizeof(a));
      quote_buf(&rc->args, 1, b2, sizeof(b2));
      say(out, outlen, "%s.arguments %s reached the application as a call (sent %s, not a "
               "JSON object)", at, a, b2);
      diff = 1;
    }
  }
  free(want);
  free(obj);
  return diff;
}

static enum oc_cdiff compare_choice(const struct oc_ccaps *caps, const struct oc_cchoice *g,
                          const struct oc_cchoice *r, const char *pfx, char *out, size_t outlen)
{
  static const struct oc_ctext none; /* set = 0: null */
  const struct oc_ctext *grole = g ? &g->role : &none, *rrole = r ? &r->role : &none;
  char a[200], b[200], what[64];
  if(caps->role) {
    /* a role the server left out is "assistant", the only role an answer has */
    struct oc_ctext asst;
    oc_ctext_set(&asst, "assistant", 9);
    const struct oc_ctext *gw = grole->set ? grole : &asst, *rw = rrole->set ? rrole : &asst;
    if(!oc_ctext_eq(gw, rw)) {
      oc_ctext_quote(grole, a, sizeof(a));
      oc_ctext_quote(rw, b, sizeof(b));
      say(out, outlen, "%srole %s (expected %s)", pfx, a, b);
      return OC_DIFF_ROLE;
    }
  }
  struct oc_ctext empty;
  oc_ctext_set(&empty, "", 0);
  const struct oc_ctext *gc = g && g->content.set ? &g->content : &empty;
  const struct oc_ctext *rc = r && r->content.set ? &r->content : &empty;
  if(!oc_ctext_eq(gc, rc)) {
    snprintf(what, sizeof(what), "%scontent", pfx);
    str_diff(what, gc, rc, out, outlen);
    return OC_DIFF_CONTENT;
  }
  /* a role lost with its event (after the content: what the application
   * misses most is said first) */
  if(caps->role && g && g->role_lost && !grole->set) {
    oc_ctext_quote(rrole->set ? rrole : &none, b, sizeof(b));
    say(out, outlen, "%srole never reached the application: its event came right after a BOM and "
        "was dropped (expected %s)", pfx, rrole->set ? b : "\"assistant\"");
    return OC_DIFF_ROLE;
  }
  if(r && !oc_ctext_empty(&r->refusal)) {
    const struct oc_ctext *gr = g && g->refusal.set ? &g->refusal : &empty;
    if(!oc_ctext_eq(gr, &r->refusal)) {
      if(oc_ctext_empty(gr)) {
        oc_ctext_quote(&r->refusal, b, sizeof(b));
        say(out, outlen, "%srefusal dropped (expected %s)", pfx, b);
      }
      else {
        snprintf(what, sizeof(what), "%srefusal", pfx);
        str_diff(what, gr, &r->refusal, out, outlen);
      }
      return OC_DIFF_REFUSAL;
    }
  }
  if(compare_calls(caps, g, r, pfx, out, outlen))
    return OC_DIFF_CALLS;
  if(caps->no_finish)
    return OC_DIFF_NONE;
  const struct oc_ctext *gf = g ? &g->finish : &none;
  if(caps->ai_finish) {
    const char *want = ai_finish(r ? &r->finish : &none);
    if(!gf->set || !oc_ctext_eqs(gf, want, strlen(want))) {
      oc_ctext_quote(gf, a, sizeof(a));
      say(out, outlen, "%sfinish_reason %s (expected \"%s\")", pfx, a, want);
      return OC_DIFF_FINISH;
    }
    return OC_DIFF_NONE;
  }
  const struct oc_ctext *rf = r ? &r->finish : &none;
  if(gf->set != rf->set || (gf->set && !oc_ctext_eq(gf, rf))) {
    oc_ctext_quote(gf, a, sizeof(a));
    oc_ctext_quote(rf, b, sizeof(b));
    say(out, outlen, "%sfinish_reason %s (expected %s)", pfx, a, b);
    return OC_DIFF_FINISH;
  }
  return OC_DIFF_NONE;
}

static void summary(const struct oc_cview *r, char *out, size_t outlen)
{
  if(!r->nchoices) {
    say(out, outlen, "no choices");
    return;
  }
  const struct oc_cchoice *c = &r->choices[0];
  char f[120];
  oc_ctext_quote(&c->finish, f, sizeof(f));
  char calls[48] = "", pre[48] = "";
  if(c->ncalls)
    snprintf(calls, sizeof(calls), ", %zu tool call%s", c->ncalls, c->ncalls > 1 ? "s" : "");
  if(r->nchoices > 1)
    snprintf(pre, sizeof(pre), "%zu choices, first: ", r->nchoices);
  say(out, outlen, "%s%llu bytes%s%s, finish %s", pre, (unsigned long long)c->content.len, calls,
           oc_ctext_empty(&c->refusal) ? "" : ", refusal",
           c->finish.set ? (c->finish.nhead ? f : "\"\"") : "none");
}

/* The judge; ok_reason (OC_CLIENT_REASON bytes, "" until then) keeps
 * the reference's summary, the reason of every client that gets it
 * right, so that it is written once per exchange rather than per client. */
static enum oc_cdiff judge(const struct oc_ccaps *caps, const struct oc_cview *ref,
                           const struct oc_cview *got, struct oc_client_verdict *v, char *ok_reason)
{
  char a[300], b[300];
  if(ref->kind == OC_CV_ERROR) {
    if(got->kind == OC_CV_ERROR) {
      int kept = oc_client_keeps_message(oc_buf_str(&got->err_msg), got->err_msg.len,
                                         ref->err_msg_set ? oc_buf_str(&ref->err_msg) : NULL,
                                         ref->err_msg.len);
      v->outcome = OC_CO_RAISES;
      v->works = kept;
      one_line(oc_buf_str(&got->err_msg), got->err_msg.len, a, sizeof(a));
      if(kept)
        oc_client_reason(v, "%s: %s", got->err_name, a);
      else {
        quote_buf(&got->err_msg, 1, a, sizeof(a));
        quote_buf(&ref->err_msg, 1, b, sizeof(b));
        oc_client_reason(v, "%s: %s lost the server's message %s", got->err_name, a, b);
      }
      return kept ? OC_DIFF_NONE : OC_DIFF_LOST_MESSAGE;
    }
    v->outcome = OC_CO_WRONG;
    v->works = 0;
    if(ref->err_msg_set)
      quote_buf(&ref->err_msg, 1, b, sizeof(b));
    else if(ref->why[0])
      snprintf(b, sizeof(b), "\"%s\"", ref->why);
    else
      snprintf(b, sizeof(b), "\"HTTP %d\"", ref->status);
    oc_client_reason(v, "no error reached the application (the server said %s)", b);
    return OC_DIFF_NO_ERROR;
  }
  if(got->kind == OC_CV_ERROR) {
    v->outcome = OC_CO_RAISES;
    v->works = 0;
    quote_buf(&got->err_msg, 1, a, sizeof(a));
    oc_client_reason(v, "%s: %s, on an answer that is not an error", got->err_name, a);
    return OC_DIFF_RAISED;
  }
  char why[OC_CLIENT_REASON];
  if(caps->all_choices) {
    if(got->nchoices != ref->nchoices) {
      v->outcome = OC_CO_WRONG;
      v->works = 0;
      oc_client_reason(v, "choices: %zu (expected %zu)", got->nchoices, ref->nchoices);
      return OC_DIFF_CHOICES;
    }
    for(size_t i = 0; i < ref->nchoices; i++) {
      char pfx[32] = "";
      if(ref->nchoices > 1)
        snprintf(pfx, sizeof(pfx), "choices[%zu].", i);
      const struct oc_cchoice *g = got->choices[i].hole ? NULL : &got->choices[i];
      if(!g) {
        v->outcome = OC_CO_WRONG;
        v->works = 0;
        oc_client_reason(v, "%schoice missing", pfx);
        return OC_DIFF_CHOICES;
      }
      enum oc_cdiff d = compare_choice(caps, g, &ref->choices[i], pfx, why, sizeof(why));
      if(d) {
        v->outcome = OC_CO_WRONG;
        v->works = 0;
        oc_client_reason(v, "%s", why);
        return d;
      }
    }
  }
  else {
    enum oc_cdiff d = compare_choice(caps, got->nchoices ? &got->choices[0] : NULL,
                                     ref->nchoices ? &ref->choices[0] : NULL, "", why, sizeof(why));
    if(d) {
      v->outcome = OC_CO_WRONG;
      v->works = 0;
      oc_client_reason(v, "%s", why);
      return d;
    }
  }
  v->outcome = OC_CO_OK;
  v->works = 1;
  if(!ok_reason[0])
    summary(ref, ok_reason, OC_CLIENT_REASON);
  oc_strlcpy(v->reason, ok_reason, sizeof(v->reason));
  return OC_DIFF_NONE;
}

enum oc_cdiff oc_client_judge(const struct oc_ccaps *caps, const struct oc_cview *ref,
                     const struct oc_cview *got, struct oc_client_verdict *v)
{
  char ok_reason[OC_CLIENT_REASON] = "";
  return judge(caps, ref, got, v, ok_reason);
}

/* ---- reasoning ------------------------------------------------------------------------------
 * What each client hands the application of the first choice's reasoning,
 * by its policy (enum rpolicy), beside the reference's; and whether think
 * or harmony markup came in that choice's content (every client measured
 * passes it into the answer).  Judged in oc_clients_finish; it never
 * changes an outcome (judge.mjs reasoningOutcome). */

struct creason {
  struct oc_ctext text;   /* joined as the client joins it */
  /* a joining policy's text is the reference's until a delta gives the
   * two different pieces (see reason_entries): while in step, text is not
   * kept and the reference's stands for it */
  int apart;
  /* RP_LAST: the last value of each field (a non-string: str 0) */
  struct oc_ctext rc_last, r_last;
  int rc_str, r_str;
};

static int jstr(const struct oc_jv *v)
{
  return v && v->type == OC_JSTRING;
}

/* The string a joining policy appends for one delta (NULL: none): the
 * same value for two policies means the same text added. */
static inline const struct oc_jv *reason_piece(enum rpolicy p, const struct oc_centry *e)
{
  const struct oc_jv *rc = e->reasoning_content, *r = e->reasoning;
  switch(p) {
  case RP_REF:
    return jstr(rc) && rc->len ? rc : jstr(r) ? r : NULL;
  case RP_RC_OR_R: {
    const struct oc_jv *v = rc && rc->type != OC_JNULL ? rc : r;
    return jstr(v) ? v : NULL;
  }
  case RP_RC:
    return jstr(rc) ? rc : NULL;
  case RP_R:
    return jstr(r) && r->len ? r : NULL;
  case RP_NONE:
  case RP_LAST:
    break;
  }
  return NULL;
}

static void reason_take(struct creason *t, enum rpolicy p, const struct oc_centry *e)
{
  if(p == RP_LAST) {
    const struct oc_jv *rc = e->reasoning_content, *r = e->reasoning;
    if(rc) {
      t->rc_str = jstr(rc);
      if(t->rc_str)
        oc_ctext_set(&t->rc_last, rc->u.str, rc->len);
    }
    if(r) {
      t->r_str = jstr(r);
      if(t->r_str)
        oc_ctext_set(&t->r_last, r->u.str, r->len);
    }
    return;
  }
  const struct oc_jv *v = reason_piece(p, e);
  if(v)
    oc_ctext_add(&t->text, v->u.str, v->len);
}

/* ref: the reference's, which a policy still in step with it shows */
static const struct oc_ctext *reason_final(struct creason *t, enum rpolicy p,
                                           const struct creason *ref)
{
  if(p != RP_LAST && !t->apart && ref && ref != t)
    return &ref->text;
  if(p == RP_LAST) {
    oc_ctext_init(&t->text);
    if(t->rc_str && t->rc_last.len)
      t->text = t->rc_last;
    else if(t->r_str)
      t->text = t->r_last;
  }
  return &t->text;
}

/* Markup that splits across deltas is found through the tail of the
 * content before it (the longest marker is 11 bytes). */
#define LEAK_TAIL 10

static int leak_scan(const char *p, size_t n)
{
  static const struct {
    const char *s;
    size_t n;
  } marks[] = {
    { "<think>", 7 }, { "</think>", 8 }, { "[THINK]", 7 }, { "[/THINK]", 8 },
    { "<|channel|>", 11 }, { "<|message|>", 11 }, { "<|start|>", 9 }, { "<|end|>", 7 },
  };
  for(size_t i = 0; i < n; i++) {
    if(p[i] != '<' && p[i] != '[')
      continue;
    for(size_t k = 0; k < OC_ARRAY_LEN(marks); k++)
      if(n - i >= marks[k].n && memcmp(p + i, marks[k].s, marks[k].n) == 0)
        return 1;
  }
  return 0;
}

struct cleak {
  int found;
  unsigned ntail;
  char tail[LEAK_TAIL];
};

static void leak_take(struct cleak *l, const struct oc_jv *content)
{
  if(l->found || !jstr(content) || !content->len)
    return;
  const char *p = content->u.str;
  size_t n = content->len;
  if(l->ntail) {
    /* the tail and the head of this piece, for a marker across the two */
    char joint[2 * LEAK_TAIL + 2];
    size_t k = n < LEAK_TAIL + 1 ? n : LEAK_TAIL + 1;
    memcpy(joint, l->tail, l->ntail);
    memcpy(joint + l->ntail, p, k);
    if(leak_scan(joint, l->ntail + k)) {
      l->found = 1;
      return;
    }
  }
  if(leak_scan(p, n)) {
    l->found = 1;
    return;
  }
  if(n >= LEAK_TAIL) {
    memcpy(l->tail, p + n - LEAK_TAIL, LEAK_TAIL);
    l->ntail = LEAK_TAIL;
  }
  else {
    size_t keep = l->ntail + n > LEAK_TAIL ? LEAK_TAIL - n : l->ntail;
    memmove(l->tail, l->tail + l->ntail - keep, keep);
    memcpy(l->tail + keep, p, n);
    l->ntail = (unsigned)(keep + n);
  }
}

const char *oc_client_reasoning_name(enum oc_client_reasoning r)
{
  switch(r) {
  case OC_CR_NONE: return "none";
  case OC_CR_SEEN: return "seen";
  case OC_CR_PARTIAL: return "partial";
  case OC_CR_HIDDEN: return "hidden";
  case OC_CR_EXTRA: return "extra";
  default: return NULL;
  }
}

/* ---- feeding ------------------------------------------------------------------------------ */

struct oc_clients {
  const struct oc_request_info *req;
  struct oc_pclients *typed; /* a typed-event protocol's models (pclient.h): all the rest unused */
  unsigned modelled;      /* the models that run: a state each (state[i] NULL otherwise) */
  struct oc_cctx cx;
  char reason[64];
  char media[96];
  void *state[OC_CLIENT__COUNT];
  /* the reference */
  struct oc_cacc ref;
  uint64_t args_room[OC_CLIENT__COUNT + 1]; /* each model's, then the reference's */
  int ref_done;           /* an exact [DONE] ended the answer, or an error did */
  int bom;                /* the stream began with a BOM */
  int saw_event;
  int after_done;
  struct oc_centry *entries; /* one event's digest, grown to its choices (OC_CENTRIES at most) */
  size_t aentries;
  /* reasoning of the first choice: each client's, then the reference's */
  struct creason rsn[OC_CLIENT__COUNT + 1];
  struct cleak leak;
  /* decoding a body as a stream ourselves */
  struct oc_sse_parser sse;
  struct oc_jdoc doc;
  int own_sse;
  int finished;
};

static int ref_error(struct oc_clients *cs, const char *msg, size_t len, const char *why)
{
  struct oc_cview *v = &cs->ref.view;
  if(v->kind == OC_CV_ERROR)
    return 0;
  v->kind = OC_CV_ERROR;
  v->status = cs->cx.status;
  oc_cbuf_reset(&v->err_msg);
  if(msg) {
    size_t k = len < OC_CAP_CLIENT_MESSAGE - 1 ? len : OC_CAP_CLIENT_MESSAGE - 1;
    if(oc_buf_add(&v->err_msg, msg, k))
      oc_cbuf_reset(&v->err_msg); /* notes the failure; no half message */
    v->err_msg_set = 1;
  }
  if(why)
    oc_strlcpy(v->why, why, sizeof(v->why));
  return 0;
}

struct oc_clients *oc_clients_new(const struct oc_request_info *req, struct oc_schema_registry *reg,
                                  unsigned modelled)
{
  struct oc_clients *cs = calloc(1, sizeof(*cs));
  if(!cs)
    return NULL;
  ENTER(cs);
  cs->req = req;
  const struct oc_pfamily *fam = oc_pfamily_of(req->api);
  if(fam) {
    if(!(cs->typed = oc_pclients_new(fam, req, modelled & oc_clients_of_api(req->api)))) {
      free(cs);
      return NULL;
    }
    return cs;
  }
  cs->modelled = modelled & OC_CLIENTS_CHAT;
  cs->cx.req = req;
  cs->cx.reg = reg;
  cs->cx.stream = req->stream;
  cs->cx.complete = 1;
  cs->cx.reason = "";
  cs->cx.media = "";
  oc_cacc_init(&cs->ref);
  cs->cx.ref = &cs->ref.view;
  for(int i = 0; i <= OC_CLIENT__COUNT; i++) {
    cs->args_room[i] = OC_CAP_CLIENT_ARGS;
    oc_ctext_init(&cs->rsn[i].text);
    oc_ctext_init(&cs->rsn[i].rc_last);
    oc_ctext_init(&cs->rsn[i].r_last);
  }
  for(int i = 0; i < OC_CLIENT__COUNT; i++) {
    const struct oc_cmodel *m = clients[i].model;
    if(!(cs->modelled & (1u << i)))
      continue;
    cs->state[i] = calloc(1, m->size ? m->size : 1);
    if(!cs->state[i]) {
      oc_clients_free(cs);
      return NULL;
    }
    m->init(cs->state[i], &cs->cx);
  }
  if(cs->cx.oom) {
    oc_clients_free(cs);
    return NULL;
  }
  return cs;
}

/* The models' state and the reference, freed: their buffers say now
 * whether memory ran out on the way. */
static void free_models(struct oc_clients *cs)
{
  for(int i = 0; i < OC_CLIENT__COUNT; i++)
    if(cs->state[i]) {
      if(clients[i].model->free)
        clients[i].model->free(cs->state[i]);
      free(cs->state[i]);
      cs->state[i] = NULL;
    }
  oc_cacc_free(&cs->ref);
  oc_cacc_init(&cs->ref);
}

void oc_clients_free(struct oc_clients *cs)
{
  if(!cs)
    return;
  ENTER(cs);
  oc_pclients_free(cs->typed);
  free_models(cs);
  oom_sink = NULL;
  if(cs->own_sse) {
    oc_sse_free(&cs->sse);
    oc_jdoc_free(&cs->doc);
  }
  free(cs->entries);
  free(cs);
}

void oc_clients_set_partial(struct oc_clients *cs, int partial)
{
  if(cs)
    cs->cx.partial = partial;
  if(cs && cs->typed)
    oc_pclients_set_partial(cs->typed, partial);
}

void oc_clients_head(struct oc_clients *cs, int status, const char *reason,
                     const struct oc_headers *headers)
{
  ENTER(cs);
  cs->cx.status = status;
  oc_strlcpy(cs->reason, reason && *reason ? reason : oc_client_status_text(status), sizeof(cs->reason));
  cs->cx.reason = cs->reason;
  oc_media_type(headers ? oc_headers_get(headers, "Content-Type") : NULL, cs->media, sizeof(cs->media));
  cs->cx.media = cs->media;
  if(cs->typed)
    oc_pclients_head(cs->typed, status, cs->media);
}

int oc_clients_want_after_done(const struct oc_clients *cs)
{
  for(int i = 0; cs && i < OC_CLIENT__COUNT; i++)
    if(cs->state[i] && clients[i].model->after_done)
      return 1;
  return 0;
}

int oc_clients_oom(const struct oc_clients *cs)
{
  return cs && (cs->cx.oom || oc_pclients_oom(cs->typed));
}

static size_t digest_entries(struct oc_clients *cs, const struct oc_jv *choices, int stream)
{
  if(!choices || choices->type != OC_JARRAY)
    return 0;
  size_t n = choices->len < OC_CENTRIES ? choices->len : OC_CENTRIES;
  if(n > cs->aentries) {
    struct oc_centry *d = oc_array_grow_from(cs->entries, &cs->aentries, n, sizeof(*cs->entries), 1);
    if(!d) {
      cs->cx.oom = 1;
      return 0;
    }
    cs->entries = d;
  }
  for(size_t i = 0; i < n; i++)
    oc_centry_digest(&cs->entries[i], &choices->u.items[i], (uint32_t)i, stream);
  return n;
}

/* The first choice's entry (index 0, or the first when none says so). */
static void reason_entries(struct oc_clients *cs, const struct oc_centry *e, size_t n)
{
  for(size_t i = 0; i < n; i++) {
    if(e[i].index_val != 0)
      continue;
    if(!e[i].reasoning_content && !e[i].reasoning) {
      leak_take(&cs->leak, e[i].content); /* no policy takes anything */
      return;
    }
    /* a client that joins the same pieces as the reference adds nothing
     * of its own (the ai SDK, LangChain and the three clients that show
     * both fields all do on a llama-server stream): only the reference
     * hashes the text, and a client's text is copied from it, as it stood
     * before this delta, on the first delta where their pieces part */
    struct creason *ref = &cs->rsn[OC_CLIENT__COUNT];
    const struct oc_jv *want = reason_piece(RP_REF, &e[i]);
    for(int c = 0; c < OC_CLIENT__COUNT; c++) {
      struct creason *t = &cs->rsn[c];
      enum rpolicy p = clients[c].rpolicy;
      if(!cs->state[c])
        continue;
      if(p != RP_LAST && !t->apart) {
        if(reason_piece(p, &e[i]) == want)
          continue;
        t->text = ref->text;
        t->apart = 1;
      }
      reason_take(t, p, &e[i]);
    }
    reason_take(ref, RP_REF, &e[i]);
    leak_take(&cs->leak, e[i].content);
    return;
  }
}

void oc_clients_event(struct oc_clients *cs, const struct oc_sse_event *sev,
                      const struct oc_jv *root, uint64_t shape, const struct oc_sse_parser *sse)
{
  (void)sse;
  if(!cs)
    return;
  if(cs->typed) {
    oc_pclients_event(cs->typed, sev, root);
    return;
  }
  ENTER(cs);
  struct oc_cevent ev;
  memset(&ev, 0, sizeof(ev));
  ev.n = (long)sev->index + 1;
  ev.index = sev->index;
  ev.data = sev->data;
  ev.len = sev->data_len;
  ev.type = sev->type;
  ev.type_len = sev->type_len;
  ev.data_lines = sev->data_lines;
  ev.data_first = sev->data_first;
  ev.done = sev->data_len == 6 && memcmp(sev->data, "[DONE]", 6) == 0;
  ev.done_prefix = sev->data_len >= 6 && memcmp(sev->data, "[DONE]", 6) == 0;
  ev.after_done = cs->after_done;
  /* the first line of the first event right after a leading BOM: the
   * decoders that keep the BOM read "\uFEFFdata" as an unknown field */
  ev.bom_line = cs->bom && !cs->saw_event && sev->first_byte == 3;
  cs->saw_event = 1;
  ev.root = ev.done ? NULL : root;
  ev.shape = ev.root ? shape : 0;
  struct top t;
  top_digest(ev.root, &t);
  ev.error = t.error;
  ev.choices = t.choices;
  ev.object = t.object;
  ev.usage = t.usage;
  ev.id = t.id;
  ev.model = t.model;
  ev.created = t.created;
  ev.nentries = digest_entries(cs, t.choices, 1);
  ev.entries = cs->entries;
  /* the reference: an exact [DONE] ends the answer; a non-JSON event or a
   * non-null error makes it an error.  It decides first and takes the
   * chunk last, so that a model leaving it (oc_cfollow) copies its state
   * from before this chunk */
  enum { REF_SKIP, REF_DONE, REF_NOT_JSON, REF_ERROR, REF_TAKE } ref = REF_SKIP;
  if(!cs->ref_done && !cs->after_done)
    ref = ev.done ? REF_DONE : !ev.root ? REF_NOT_JSON
        : (ev.root->type == OC_JOBJECT && ev.error && ev.error->type != OC_JNULL) ? REF_ERROR : REF_TAKE;
  cs->cx.ref_takes = ref == REF_TAKE;
  for(int i = 0; i < OC_CLIENT__COUNT; i++) {
    const struct oc_cmodel *m = clients[i].model;
    if(cs->state[i] && m->event && (!ev.after_done || m->after_done)) {
      args_room = &cs->args_room[i];
      m->event(cs->state[i], &cs->cx, &ev);
    }
  }
  args_room = &cs->args_room[OC_CLIENT__COUNT];
  cs->cx.ref_takes = 0;
  switch(ref) {
  case REF_DONE:
    cs->ref_done = 1;
    break;
  case REF_NOT_JSON: {
    char why[64];
    snprintf(why, sizeof(why), "event %ld is not JSON", ev.n);
    ref_error(cs, NULL, 0, why);
    cs->ref_done = 1;
    break;
  }
  case REF_ERROR: {
    size_t len;
    char *msg = oc_client_error_message(ev.root, &len);
    ref_error(cs, msg, len, NULL);
    free(msg);
    cs->ref_done = 1;
    break;
  }
  case REF_TAKE:
    oc_cacc_chunk(&cs->ref, &ev, &cs->cx.oom);
    reason_entries(cs, ev.entries, ev.nentries);
    break;
  default:
    break;
  }
  args_room = NULL;
  if(ev.done)
    cs->after_done = 1;
}

void oc_clients_sse_issue(struct oc_clients *cs, const struct oc_sse_issue *is,
                          const struct oc_sse_parser *sse)
{
  if(!cs || cs->typed)
    return; /* the typed protocols' models read dispatched events only */
  ENTER(cs);
  struct oc_cextra x;
  memset(&x, 0, sizeof(x));
  x.offset = is->offset;
  x.last_id_set = sse && sse->last_id.len > 0;
  x.before_done = !cs->after_done;
  switch(is->kind) {
  case OC_SSE_ISSUE_BOM:
    cs->bom = 1;
    return;
  case OC_SSE_ISSUE_NO_DISPATCH:
    x.kind = OC_CX_FIELDS_NO_DATA;
    x.type = is->detail ? is->detail : "";
    x.type_len = is->detail ? is->detail_len : 0;
    break;
  case OC_SSE_ISSUE_BLANK:
    x.kind = OC_CX_BLANK;
    break;
  case OC_SSE_ISSUE_INVALID_UTF8:
    x.kind = OC_CX_INVALID_UTF8;
    break;
  default:
    return;
  }
  for(int i = 0; i < OC_CLIENT__COUNT; i++)
    if(cs->state[i] && clients[i].model->extra)
      clients[i].model->extra(cs->state[i], &cs->cx, &x);
}

static void own_event(void *ud, const struct oc_sse_event *ev)
{
  struct oc_clients *cs = ud;
  int done = ev->data_len == 6 && memcmp(ev->data, "[DONE]", 6) == 0;
  const struct oc_jv *root = NULL;
  if(!done && (!cs->after_done || oc_clients_want_after_done(cs))) {
    struct oc_jerr err;
    int rc = oc_cjdoc_parse(&cs->doc, ev->data, ev->data_len, &err);
    if(rc == OC_ENOMEM)
      cs->cx.oom = 1;
    root = rc ? NULL : cs->doc.root;
  }
  oc_clients_event(cs, ev, root, 0, &cs->sse);
}

static void own_issue(void *ud, const struct oc_sse_issue *is)
{
  struct oc_clients *cs = ud;
  oc_clients_sse_issue(cs, is, &cs->sse);
}

int oc_clients_body(struct oc_clients *cs, const char *body, size_t len)
{
  if(!cs)
    return OC_OK;
  if(cs->typed)
    return oc_pclients_body(cs->typed, body, len);
  ENTER(cs);
  int ok = cs->cx.status >= 200 && cs->cx.status < 300;
  if(cs->cx.stream && ok) {
    /* a stream sent with another Content-Type: the clients decode it as
     * an event stream all the same */
    struct oc_sse_callbacks cb = { own_event, own_issue, NULL };
    oc_sse_init(&cs->sse, &cb, cs);
    oc_jdoc_init(&cs->doc);
    cs->own_sse = 1;
    cs->cx.decoded_sse = 1;
    int rc = oc_sse_push(&cs->sse, body, len, 0);
    oc_sse_finish(&cs->sse, 0);
    if(rc)
      cs->cx.oom = 1;
    return rc;
  }
  struct oc_jdoc doc;
  struct oc_jerr err;
  oc_jdoc_init(&doc);
  int rc = oc_cjdoc_parse(&doc, body ? body : "", body ? len : 0, &err);
  if(rc == OC_ENOMEM)
    cs->cx.oom = 1;
  struct oc_cbody b;
  memset(&b, 0, sizeof(b));
  b.status = cs->cx.status;
  b.media = cs->media;
  b.text = body ? body : "";
  b.len = body ? len : 0;
  b.root = rc ? NULL : doc.root;
  struct top t;
  top_digest(b.root, &t);
  b.error = t.error;
  b.choices = t.choices;
  b.object = t.object;
  b.usage = t.usage;
  b.id = t.id;
  b.model = t.model;
  b.created = t.created;
  b.nentries = digest_entries(cs, t.choices, 0);
  b.entries = cs->entries;
  /* the reference */
  if(cs->cx.status >= 400) {
    size_t mlen = 0;
    char *msg = b.root ? oc_client_error_message(b.root, &mlen) : NULL;
    if(!msg) {
      /* the body text, trimmed; none for an empty body */
      size_t from, to;
      js_trim(b.text, b.len, &from, &to);
      ref_error(cs, to > from ? b.text + from : NULL, to - from, NULL);
    }
    else
      ref_error(cs, msg, mlen, NULL);
    free(msg);
  }
  else if(!b.root)
    ref_error(cs, NULL, 0, "the body is not JSON");
  else if((b.root->type == OC_JOBJECT) && b.error && b.error->type != OC_JNULL &&
          !(b.choices && b.choices->type == OC_JARRAY)) {
    size_t mlen;
    char *msg = oc_client_error_message(b.root, &mlen);
    ref_error(cs, msg, mlen, NULL);
    free(msg);
  }
  else {
    args_room = &cs->args_room[OC_CLIENT__COUNT];
    oc_cacc_body(&cs->ref, &b, &cs->cx.oom);
    reason_entries(cs, b.entries, b.nentries);
  }
  for(int i = 0; i < OC_CLIENT__COUNT; i++)
    if(cs->state[i] && clients[i].model->body) {
      args_room = &cs->args_room[i];
      clients[i].model->body(cs->state[i], &cs->cx, &b);
    }
  args_room = NULL;
  oc_jdoc_free(&doc);
  return OC_OK;
}

/* Why a client broke: what its model said, else what the kind of the
 * difference says about the server. */
static void explain(const struct oc_clients *cs, enum oc_client_id c, enum oc_cdiff d,
                    enum oc_client_cause cause, struct oc_client_verdict *v)
{
  int shows_refusal = c != OC_CLIENT_AI_SDK && c != OC_CLIENT_LANGCHAIN && c != OC_CLIENT_AI_SDK_5 &&
                      c != OC_CLIENT_LANGCHAIN_0_6;
  const struct oc_cview *ref = &cs->ref.view;
  if(d == OC_DIFF_REFUSAL && !shows_refusal) {
    v->cause = OC_CAUSE_REFUSAL;
    v->nrules = 0;
    return;
  }
  v->cause = cause ? cause : OC_CAUSE_SERVER;
  if(v->nrules)
    return;
  int ok = cs->cx.status >= 200 && cs->cx.status < 300;
  switch(d) {
  case OC_DIFF_LOST_MESSAGE:
    oc_client_add_rule(v, !ok ? OC_R_ERROR_SHAPE : cs->cx.stream ? OC_R_STREAM_ERROR_EVENT : OC_R_ERROR_STATUS);
    break;
  case OC_DIFF_NO_ERROR:
    if(!ok)
      oc_client_add_rule(v, OC_R_ERROR_SHAPE);
    else if(ref->why[0])
      oc_client_add_rule(v, cs->cx.stream ? OC_R_STREAM_CHUNK_JSON : OC_R_JSON_BODY);
    else
      oc_client_add_rule(v, cs->cx.stream ? OC_R_STREAM_ERROR_EVENT : OC_R_ERROR_STATUS);
    break;
  case OC_DIFF_ROLE:
    oc_client_add_rule(v, cs->cx.stream ? OC_R_STREAM_ROLE_ONCE : OC_R_CHAT_SCHEMA);
    break;
  case OC_DIFF_CHOICES:
    oc_client_add_rule(v, cs->cx.stream ? OC_R_STREAM_CHUNK_SCHEMA : OC_R_CHAT_SCHEMA);
    break;
  default:
    break;
  }
}

/* A client that returns just what the server sent (ok) may still leave
 * the application an answer it cannot use: a stream that ended without a
 * finish_reason, returned as if whole, or tool-call arguments that are
 * not a JSON object, handed on as they came.  The client was faithful and
 * the server is at fault: 1, with both said in v's reason (ok_reason is
 * the reference's summary) and the server's rule in v's rules. */
static int server_fault(const struct oc_clients *cs, const struct oc_cview *ref, const char *ok_reason,
                        struct oc_client_verdict *v)
{
  if(ref->kind != OC_CV_ANSWER)
    return 0;
  for(size_t i = 0; i < ref->nchoices; i++) {
    const struct oc_cchoice *c = &ref->choices[i];
    if(c->hole)
      continue;
    char pfx[32] = "";
    if(ref->nchoices > 1)
      snprintf(pfx, sizeof(pfx), " for choice %ld", c->index);
    if(cs->cx.stream && !cs->cx.partial && !c->finish.set) {
      oc_client_reason(v, "returns the answer as if whole (%s), but the server ended the stream "
                       "without a finish_reason%s%s: a cut answer cannot be told from a whole one",
                       ok_reason, pfx, cs->ref_done ? "" : " and without [DONE]");
      oc_client_add_rule(v, OC_R_STREAM_FINISH_ONCE);
      return 1;
    }
    for(size_t k = 0; k < c->ncalls; k++) {
      const struct oc_ccall *call = &c->calls[k];
      if(call->hole || call->args_over || call_args_object(call))
        continue;
      char name[80], args[200];
      oc_ctext_quote(&call->name, name, sizeof(name));
      quote_text(oc_buf_str(&call->args), call->args.len, 0, args, sizeof(args));
      oc_client_reason(v, "hands on what the server sent, but tool call %zu (%s)%s has arguments "
                       "that are not a JSON object, %s: the application cannot call the function",
                       k, name, pfx, args);
      oc_client_add_rule(v, OC_R_TOOL_ARGS_JSON);
      return 1;
    }
  }
  return 0;
}

void oc_clients_finish(struct oc_clients *cs, int complete, struct oc_client_verdict *out)
{
  for(int i = 0; i < OC_CLIENT__COUNT; i++) {
    memset(&out[i], 0, sizeof(out[i]));
    out[i].outcome = OC_CO_NOT_EXERCISED;
    out[i].works = -1;
    out[i].reasoning = OC_CR_NA;
    out[i].reasoning_leak = -1;
  }
  if(!cs)
    return;
  if(cs->typed) {
    oc_pclients_finish(cs->typed, complete, out);
    return;
  }
  ENTER(cs);
  cs->cx.complete = complete;
  struct oc_cview *ref = &cs->ref.view;
  char ok_reason[OC_CLIENT_REASON] = "";
  if(ref->kind == OC_CV_ANSWER) {
    oc_cview_sort(ref);
    for(size_t i = 0; i < ref->nchoices; i++)
      oc_cchoice_sort_calls(&ref->choices[i]);
  }
  for(int i = 0; i < OC_CLIENT__COUNT; i++) {
    struct oc_client_verdict *v = &out[i];
    if(!cs->state[i])
      continue; /* not modelled: no verdict */
    v->modelled = 1;
    struct oc_cview got;
    oc_cview_init(&got);
    v->outcome = OC_CO_OK;
    v->works = 1;
    v->cause = OC_CAUSE_NONE;
    clients[i].model->finish(cs->state[i], &cs->cx, &got, v);
    if(v->outcome == OC_CO_NOT_EXERCISED) {
      v->works = -1;
      oc_cview_free(&got);
      continue;
    }
    if(!complete && !oc_cview_raised(&got)) {
      /* every client's transport raises on a cut connection */
      oc_cview_raise(&got, i == OC_CLIENT_OPENAI_PYTHON || i == OC_CLIENT_OPENAI_PYTHON_STREAM
                              ? "APIConnectionError" : "TypeError",
                     "the connection was cut before the response ended", 48);
      v->cause = OC_CAUSE_SERVER;
      oc_client_add_rule(v, OC_R_HTTP_TRANSPORT);
    }
    enum oc_client_cause cause = v->cause;
    enum oc_cdiff d = judge(&clients[i].caps, ref, &got, v, ok_reason);
    if(ref->kind == OC_CV_ANSWER && !oc_cview_raised(&got)) {
      const struct creason *rref = &cs->rsn[OC_CLIENT__COUNT];
      const struct oc_ctext *want = &rref->text;
      const struct oc_ctext *have = reason_final(&cs->rsn[i], clients[i].rpolicy, rref);
      int w = !oc_ctext_empty(want), h = !oc_ctext_empty(have);
      v->reasoning = !w && !h                ? OC_CR_NONE
                     : !h                    ? OC_CR_HIDDEN
                     : !w                    ? OC_CR_EXTRA
                     : oc_ctext_eq(have, want) ? OC_CR_SEEN
                                             : OC_CR_PARTIAL;
      v->reasoning_leak = cs->leak.found;
    }
    if(oc_client_broken(v)) {
      explain(cs, (enum oc_client_id)i, d, cause, v);
      v->limitation = oc_client_limitation((enum oc_client_id)i, v->cause) != NULL;
    }
    else {
      v->cause = OC_CAUSE_NONE;
      v->nrules = 0;
      if(v->outcome == OC_CO_OK && v->works == 1)
        v->server_fault = server_fault(cs, ref, ok_reason, v);
    }
    oc_cview_free(&got);
  }
  free_models(cs);
}
