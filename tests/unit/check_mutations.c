/* check_mutations.c — the validator's test of itself.  Clean recordings of
 * the real llama-server (../shared/recordings/llama-server: the curl
 * captures, on purpose — their bytes, chunk boundaries and names are what
 * each mutation edits, and they no longer change with what ships; the
 * live recordings that ship get their verdicts in check_recordings.c) are mutated
 * here, one failure mode at a time — drop [DONE], strip a tool call's
 * index, id or type, resend the name, turn arguments into an object,
 * change the id mid-stream, split a UTF-8 character across events, insert
 * ':' keep-alives, rewrite a 400 as a 200 stream with an in-band error, …
 * — and each mutation must make the rule it targets fire, and no rule
 * outside a declared set of related ones (rules overlap on purpose).
 * Mutations that are legal (keep-alives, a partial capture) must make no
 * new rule fire.  "New" is measured against the unmutated recording, whose
 * own findings (the empty CORS header, D16) are known.  The table of
 * mutation -> fired rules is printed to the test log.
 *
 * Mutations work on the SSE body as text: a list of events (the blocks
 * between blank lines) that each function edits with plain string
 * operations, exactly as a broken server or proxy would have sent them. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "rulesutil.h"

/* ---- events as text ----------------------------------------------------------- */

struct evs {
  char **v;
  size_t n, a;
  int trailing;   /* the body ended with a blank line (every stream; no JSON body) */
};

static void evs_insert(struct evs *e, size_t at, char *s) /* takes s */
{
  if(e->n == e->a) {
    e->a = e->a ? e->a * 2 : 64;
    e->v = realloc(e->v, e->a * sizeof(*e->v));
    ck_assert_ptr_nonnull(e->v);
  }
  memmove(e->v + at + 1, e->v + at, (e->n - at) * sizeof(*e->v));
  e->v[at] = s;
  e->n++;
}

static void evs_remove(struct evs *e, size_t at)
{
  free(e->v[at]);
  memmove(e->v + at, e->v + at + 1, (e->n - at - 1) * sizeof(*e->v));
  e->n--;
}

static void evs_set(struct evs *e, size_t at, char *s) /* takes s */
{
  free(e->v[at]);
  e->v[at] = s;
}

/* The blocks of a body separated by blank lines ("\n\n"), without them. */
static void evs_parse(struct evs *e, const char *body, size_t len)
{
  memset(e, 0, sizeof(*e));
  size_t at = 0;
  while(at < len) {
    const char *end = NULL;
    for(size_t i = at; i + 1 < len; i++)
      if(body[i] == '\n' && body[i + 1] == '\n') {
        end = body + i;
        break;
      }
    size_t n = end ? (size_t)(end - (body + at)) : len - at;
    evs_insert(e, e->n, oc_strndup(body + at, n));
    at += n + (end ? 2 : 0);
    e->trailing = end != NULL;
  }
}

static char *evs_render(const struct evs *e, size_t *len)
{
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_BODY);
  for(size_t i = 0; i < e->n; i++) {
    oc_buf_adds(&b, e->v[i]);
    if(i + 1 < e->n || e->trailing)
      oc_buf_adds(&b, "\n\n");
  }
  char *s = oc_buf_take(&b, len);
  ck_assert_ptr_nonnull(s);
  return s;
}

static void evs_free(struct evs *e)
{
  for(size_t i = 0; i < e->n; i++)
    free(e->v[i]);
  free(e->v);
  memset(e, 0, sizeof(*e));
}

/* s with the first (or every) old replaced by new; NULL when old is absent. */
static char *sub(const char *s, const char *old, const char *new, int all)
{
  const char *p = strstr(s, old);
  if(!p)
    return NULL;
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_BODY);
  const char *from = s;
  size_t ol = strlen(old);
  while(p) {
    oc_buf_add(&b, from, (size_t)(p - from));
    oc_buf_adds(&b, new);
    from = p + ol;
    p = all ? strstr(from, old) : NULL;
  }
  oc_buf_adds(&b, from);
  return oc_buf_take(&b, NULL);
}

/* Replace old by new in event i (which must hold it). */
static void ev_sub(struct evs *e, size_t i, const char *old, const char *new, int all)
{
  char *s = sub(e->v[i], old, new, all);
  ck_assert_msg(s != NULL, "mutation precondition: '%s' not in event %zu", old, i);
  evs_set(e, i, s);
}

/* Replace old by new in every event that holds it; how many did. */
static size_t evs_sub_all(struct evs *e, const char *old, const char *new)
{
  size_t k = 0;
  for(size_t i = 0; i < e->n; i++) {
    char *s = sub(e->v[i], old, new, 1);
    if(s) {
      evs_set(e, i, s);
      k++;
    }
  }
  return k;
}

/* The first event at or after from holding needle. */
static size_t evs_find(const struct evs *e, size_t from, const char *needle)
{
  for(size_t i = from; i < e->n; i++)
    if(strstr(e->v[i], needle))
      return i;
  ck_abort_msg("mutation precondition: no event holds '%s'", needle);
  return 0;
}

static size_t evs_last(const struct evs *e, const char *needle)
{
  for(size_t i = e->n; i-- > 0;)
    if(strstr(e->v[i], needle))
      return i;
  ck_abort_msg("mutation precondition: no event holds '%s'", needle);
  return 0;
}

/* Remove the member "key": <string> from the first object after anchor
 * in event i, with its comma. */
static void ev_drop_string_member(struct evs *e, size_t i, const char *anchor, const char *key)
{
  char *s = e->v[i];
  char *a = strstr(s, anchor);
  ck_assert_msg(a != NULL, "no '%s' in event %zu", anchor, i);
  char *pat = oc_asprintf("\"%s\":\"", key);
  char *k = strstr(a, pat);
  ck_assert_msg(k != NULL, "no string member %s after '%s'", key, anchor);
  char *q = k + strlen(pat);
  while(*q && *q != '"')
    q += *q == '\\' ? 2 : 1;
  q++; /* past the closing quote */
  if(*q == ',')
    q++;
  else if(k[-1] == ',')
    k--;
  memmove(k, q, strlen(q) + 1);
  free(pat);
}

/* The state a mutation edits: the events, and the head when it changes. */
struct mctx {
  struct evs e;
  int status;
  char *headers;
  size_t cut;     /* drop this many bytes from the end of the rendered body */
};

/* ---- the mutations ---------------------------------------------------------------- */

#define FIRST_TOOL "\"tool_calls\":[{\"index\":0,\"id\":"
#define ARG_FRAG "{\"index\":0,\"function\":{\"arguments\""

static void m_none(struct mctx *m)
{
  (void)m;
}

static void m_drop_done(struct mctx *m)
{
  evs_remove(&m->e, evs_last(&m->e, "data: [DONE]"));
}

static void m_pings(struct mctx *m)
{
  /* llama-server's keep-alive (":" every 30 s, F08) before, between and
   * after every event, and a comment inside one event's block */
  size_t n = m->e.n;
  for(size_t i = n; i-- > 0;)
    evs_insert(&m->e, i, oc_strdup(i % 2 ? ":" : ": keep-alive"));
  evs_insert(&m->e, m->e.n - 1, oc_strdup(":"));
  size_t k = evs_find(&m->e, m->e.n / 2, "data: {");
  char *s = oc_asprintf(": ping inside a block\n%s", m->e.v[k]);
  evs_set(&m->e, k, s);
}

static void m_pings_after_id(struct mctx *m)
{
  /* the same keep-alives from a server that also numbers its events (F09) */
  long id = 1;
  for(size_t i = 0; i < m->e.n; i++)
    evs_set(&m->e, i, oc_asprintf("id: %ld\n%s", id++, m->e.v[i]));
  evs_insert(&m->e, 3, oc_strdup(":"));
}

static void m_strip_index(struct mctx *m)
{
  ck_assert_uint_gt(evs_sub_all(&m->e, "\"tool_calls\":[{\"index\":0,", "\"tool_calls\":[{"), 10);
}

static void m_strip_id(struct mctx *m)
{
  ev_drop_string_member(&m->e, evs_find(&m->e, 0, FIRST_TOOL), "\"tool_calls\"", "id");
}

static void m_strip_type(struct mctx *m)
{
  ev_drop_string_member(&m->e, evs_find(&m->e, 0, FIRST_TOOL), "\"tool_calls\"", "type");
}

static void m_strip_role(struct mctx *m)
{
  ev_sub(&m->e, evs_find(&m->e, 0, "\"role\":\"assistant\""), "\"role\":\"assistant\",", "", 0);
}

static void m_resend_name(struct mctx *m)
{
  ck_assert_uint_gt(evs_sub_all(&m->e, ARG_FRAG, "{\"index\":0,\"function\":{\"name\":\"get_weather\",\"arguments\""), 10);
}

static void m_resend_id(struct mctx *m)
{
  /* every fragment repeats the call's id (TGI, SGLang per S6) */
  size_t k = evs_find(&m->e, 0, FIRST_TOOL);
  const char *idp = strstr(m->e.v[k], FIRST_TOOL) + strlen(FIRST_TOOL);
  char *id = oc_strndup(idp, strcspn(idp + 1, "\"") + 2);
  char *with = oc_asprintf("{\"index\":0,\"id\":%s,\"function\":{\"arguments\"", id);
  ck_assert_uint_gt(evs_sub_all(&m->e, ARG_FRAG, with), 10);
  free(with);
  free(id);
}

static void m_args_object(struct mctx *m)
{
  /* the whole call in its first fragment, arguments as an object (F27) */
  size_t k = evs_find(&m->e, 0, FIRST_TOOL);
  ev_sub(&m->e, k, "\"arguments\":\"{\"", "\"arguments\":{\"location\":\"Paris\",\"unit\":\"celsius\"}", 0);
  for(size_t i = m->e.n; i-- > k + 1;)
    if(strstr(m->e.v[i], ARG_FRAG))
      evs_remove(&m->e, i);
}

static void m_id_change(struct mctx *m)
{
  /* from the middle on, another completion's id (F19) */
  const char *p = strstr(m->e.v[0], "\"id\":\"chatcmpl-");
  ck_assert_ptr_nonnull(p);
  char *id = oc_strndup(p, strcspn(p + 6, "\"") + 7);
  for(size_t i = m->e.n / 2; i < m->e.n; i++) {
    char *s = sub(m->e.v[i], id, "\"id\":\"chatcmpl-SomebodyElsesCompletion0000000\"", 0);
    if(s)
      evs_set(&m->e, i, s);
  }
  free(id);
}

static void m_model_change(struct mctx *m)
{
  size_t k = evs_last(&m->e, "\"finish_reason\":\"");
  ev_sub(&m->e, k, "\"model\":\"tiny-random.gguf\"", "\"model\":\"other.gguf\"", 0);
}

static void m_created_change(struct mctx *m)
{
  size_t k = evs_last(&m->e, "\"finish_reason\":\"");
  char *p = strstr(m->e.v[k], "\"created\":");
  ck_assert_ptr_nonnull(p);
  p += 10;
  p[strspn(p, "0123456789") - 1] = p[strspn(p, "0123456789") - 1] == '9' ? '8' : '9';
}

/* Split the first multi-byte character of a content delta between two
 * events: the lead byte ends one event, the rest opens the next (F13).
 * With halves_as, the server instead decoded each half on its own and
 * sent that text (U+FFFD, as llama.cpp before PR #28926). */
static void split_char(struct mctx *m, const char *halves_as)
{
  for(size_t i = 0; i < m->e.n; i++) {
    char *s = m->e.v[i];
    char *v = strstr(s, "\"content\":\"");
    if(!v)
      continue;
    v += 11;
    char *end = v;
    while(*end && *end != '"')
      end += *end == '\\' ? 2 : 1;
    for(char *c = v; c < end; c++) {
      if(((unsigned char)*c & 0xE0) != 0xC0 && ((unsigned char)*c & 0xF0) != 0xE0)
        continue;
      size_t seq = ((unsigned char)*c & 0xE0) == 0xC0 ? 2 : 3;
      char *first, *second;
      if(!halves_as) {
        /* event i ends after the lead byte, event i+1 opens with the rest */
        first = oc_asprintf("%.*s%s", (int)(c + 1 - s), s, end);
        second = oc_asprintf("%.*s%s", (int)(v - s), s, c + 1);
      }
      else {
        first = oc_asprintf("%.*s%s%s", (int)(c - s), s, halves_as, end);
        second = oc_asprintf("%.*s%s%s", (int)(v - s), s, halves_as, c + seq);
      }
      evs_set(&m->e, i, first);
      evs_insert(&m->e, i + 1, second);
      return;
    }
  }
  ck_abort_msg("mutation precondition: no multi-byte character in any content delta");
}

static void m_split_utf8(struct mctx *m)
{
  split_char(m, NULL);
}

static void m_halves_decoded(struct mctx *m)
{
  split_char(m, "\\ufffd");
}

static void m_400_as_stream(struct mctx *m, int done)
{
  /* the pre-generation error of F01 (llama.cpp#14566 before PR #16486):
   * a 200 event stream whose only event is the error body */
  ck_assert_uint_eq(m->e.n, 1);
  char *body = oc_asprintf("data: %s", m->e.v[0]);
  evs_set(&m->e, 0, body);
  if(done)
    evs_insert(&m->e, 1, oc_strdup("data: [DONE]"));
  m->e.trailing = 1;
  m->status = 200;
  free(m->headers);
  m->headers = oc_strdup("Content-Type: text/event-stream\nAccess-Control-Allow-Origin: ");
}

static void m_400_as_stream_done(struct mctx *m)
{
  m_400_as_stream(m, 1);
}

static void m_400_as_stream_nodone(struct mctx *m)
{
  m_400_as_stream(m, 0);
}

static void m_error_midstream(struct mctx *m)
{
  /* D4 in general: the finish chunk and [DONE] replaced by an error event */
  size_t k = evs_last(&m->e, "\"finish_reason\":\"");
  evs_set(&m->e, k, oc_strdup("data: {\"error\":{\"code\":500,\"message\":\"generation failed\","
                              "\"type\":\"server_error\"}}"));
  m_drop_done(m);
}

static void m_error_midstream_done(struct mctx *m)
{
  size_t k = evs_last(&m->e, "\"finish_reason\":\"");
  evs_set(&m->e, k, oc_strdup("data: {\"error\":{\"code\":500,\"message\":\"generation failed\","
                              "\"type\":\"server_error\"}}"));
}

static void m_typed_error_event(struct mctx *m)
{
  size_t k = evs_last(&m->e, "\"finish_reason\":\"");
  evs_set(&m->e, k, oc_strdup("event: error\ndata: {\"message\":\"generation failed\"}"));
}

static void m_duplicate_finish(struct mctx *m)
{
  size_t k = evs_last(&m->e, "\"finish_reason\":\"");
  evs_insert(&m->e, k + 1, oc_strdup(m->e.v[k]));
}

static void m_drop_finish(struct mctx *m)
{
  evs_remove(&m->e, evs_last(&m->e, "\"finish_reason\":\""));
}

static void m_content_after_finish(struct mctx *m)
{
  size_t c = evs_find(&m->e, 0, "\"delta\":{\"content\":\"");
  size_t k = evs_last(&m->e, "\"finish_reason\":\"");
  evs_insert(&m->e, k + 1, oc_strdup(m->e.v[c]));
}

static void m_cut_mid_event(struct mctx *m)
{
  size_t k = evs_last(&m->e, "\"finish_reason\":\"");
  while(m->e.n > k + 1)
    evs_remove(&m->e, m->e.n - 1);
  m->cut = 2 + strlen(m->e.v[k]) / 2; /* the blank line and half the finish event */
}

static void m_empty_data(struct mctx *m)
{
  evs_insert(&m->e, 2, oc_strdup("data:"));
}

static void m_rewrapped_comment(struct mctx *m)
{
  /* a gateway that wraps an upstream comment into data (F08, mnfst/llm-gateway#2053) */
  evs_insert(&m->e, 2, oc_strdup("data: : OPENROUTER PROCESSING"));
}

static void m_error_field(struct mctx *m)
{
  /* legacy llama.cpp's error: line (F10) */
  evs_insert(&m->e, m->e.n - 1, oc_strdup("error: {\"message\":\"out of memory\"}"));
}

static void m_event_after_done(struct mctx *m)
{
  evs_insert(&m->e, m->e.n, oc_strdup(m->e.v[evs_find(&m->e, 0, "\"delta\":{\"content\":\"")]));
}

static void m_wrong_object(struct mctx *m)
{
  ev_sub(&m->e, evs_find(&m->e, 0, "\"delta\":{\"content\":\""), "\"chat.completion.chunk\"",
         "\"chat.completion\"", 0);
}

static void m_role_every_delta(struct mctx *m)
{
  /* Ollama (OL1), TGI (T3) */
  ck_assert_uint_gt(evs_sub_all(&m->e, "\"delta\":{\"content\":", "\"delta\":{\"role\":\"assistant\",\"content\":"), 5);
}

static void m_role_null(struct mctx *m)
{
  /* SGLang (S2) */
  ck_assert_uint_gt(evs_sub_all(&m->e, "\"delta\":{\"content\":", "\"delta\":{\"role\":null,\"content\":"), 5);
}

static void m_finish_stop(struct mctx *m)
{
  ev_sub(&m->e, evs_last(&m->e, "\"finish_reason\":\"tool_calls\""), "\"finish_reason\":\"tool_calls\"",
         "\"finish_reason\":\"stop\"", 0);
}

static void m_shared_index(struct mctx *m)
{
  /* parallel calls all on index 0 (F24) */
  ck_assert_uint_gt(evs_sub_all(&m->e, "\"tool_calls\":[{\"index\":1,", "\"tool_calls\":[{\"index\":0,"), 5);
  ck_assert_uint_gt(evs_sub_all(&m->e, "\"tool_calls\":[{\"index\":2,", "\"tool_calls\":[{\"index\":0,"), 5);
}

static void m_index_gap(struct mctx *m)
{
  /* every call one index up, so none is at 0: a gateway passing on
   * Anthropic's content-block index, whose block 0 was text
   * (BerriAI/litellm#5231); from the top down, so no call moves twice */
  ck_assert_uint_gt(evs_sub_all(&m->e, "\"tool_calls\":[{\"index\":2,", "\"tool_calls\":[{\"index\":3,"), 5);
  ck_assert_uint_gt(evs_sub_all(&m->e, "\"tool_calls\":[{\"index\":1,", "\"tool_calls\":[{\"index\":2,"), 5);
  ck_assert_uint_gt(evs_sub_all(&m->e, "\"tool_calls\":[{\"index\":0,", "\"tool_calls\":[{\"index\":1,"), 5);
}

static void m_fragment_name(struct mctx *m)
{
  /* Gemini-style name in pieces (F28, continuedev/continue PR #5849) */
  size_t k = evs_find(&m->e, 0, FIRST_TOOL);
  ev_sub(&m->e, k, "\"name\":\"get_weather\"", "\"name\":\"get_\"", 0);
  ev_sub(&m->e, evs_find(&m->e, k + 1, ARG_FRAG), ARG_FRAG,
         "{\"index\":0,\"function\":{\"name\":\"weather\",\"arguments\"", 0);
}

static void m_unrequested_usage(struct mctx *m)
{
  const char *p = strstr(m->e.v[0], "\"created\":");
  ck_assert_ptr_nonnull(p);
  char *chunk = sub(m->e.v[0], "\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null}}]",
                    "\"choices\":[]", 0);
  ck_assert_ptr_nonnull(chunk);
  char *with = sub(chunk, "\"object\":\"chat.completion.chunk\"",
                   "\"object\":\"chat.completion.chunk\",\"usage\":{\"completion_tokens\":16,"
                   "\"prompt_tokens\":25,\"total_tokens\":41}", 0);
  free(chunk);
  evs_insert(&m->e, m->e.n - 1, with);
}

static void m_drop_usage(struct mctx *m)
{
  evs_remove(&m->e, evs_find(&m->e, 0, "\"usage\":{"));
}

static void m_usage_before_finish(struct mctx *m)
{
  size_t u = evs_find(&m->e, 0, "\"usage\":{");
  char *s = oc_strdup(m->e.v[u]);
  evs_remove(&m->e, u);
  evs_insert(&m->e, evs_last(&m->e, "\"finish_reason\":\""), s);
}

static void m_usage_sum(struct mctx *m)
{
  ev_sub(&m->e, evs_find(&m->e, 0, "\"usage\":{"), "\"total_tokens\":41", "\"total_tokens\":42", 0);
}

static void m_empty_choices_first(struct mctx *m)
{
  char *s = sub(m->e.v[0], "\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null}}]",
                "\"choices\":[]", 0);
  ck_assert_ptr_nonnull(s);
  evs_insert(&m->e, 0, s);
}

static void m_drop_content(struct mctx *m)
{
  for(size_t i = m->e.n; i-- > 0;)
    if(strstr(m->e.v[i], "\"delta\":{\"content\":\""))
      evs_remove(&m->e, i);
}

static void m_template_token(struct mctx *m)
{
  ev_sub(&m->e, evs_find(&m->e, 0, "\"content\":\" ur\""), "\"content\":\" ur\"",
         "\"content\":\" ur<|im_end|>\"", 0);
}

static void m_markup_leak(struct mctx *m)
{
  /* the call as Hermes markup in content (F21) */
  size_t c = evs_find(&m->e, 0, "\"delta\":{\"content\":\"");
  char *s = oc_strdup(m->e.v[c]);
  char *v = strstr(s, "\"delta\":{\"content\":\"") + 20;
  char *end = strchr(v, '"');
  char *t = oc_asprintf("%.*s<tool_call>\\n{\\\"name\\\": \\\"get_weather\\\", \\\"arguments\\\": "
                        "{\\\"location\\\": \\\"Paris\\\"}}\\n</tool_call>%s", (int)(v - s), s, end);
  free(s);
  evs_insert(&m->e, c + 1, t);
}

static void m_drop_choice_1(struct mctx *m)
{
  size_t k = 0;
  for(size_t i = m->e.n; i-- > 0;)
    if(strstr(m->e.v[i], "\"index\":1,\"delta\"")) {
      evs_remove(&m->e, i);
      k++;
    }
  ck_assert_uint_gt(k, 2);
}

static void m_drop_args_fragment(struct mctx *m)
{
  evs_remove(&m->e, evs_last(&m->e, ARG_FRAG));
}

static void m_second_call(struct mctx *m)
{
  /* a second complete call although parallel_tool_calls is false (D6) */
  size_t k = evs_last(&m->e, ARG_FRAG);
  char *s = sub(m->e.v[evs_find(&m->e, 0, FIRST_TOOL)], "\"tool_calls\":[{\"index\":0,\"id\":\"",
                "\"tool_calls\":[{\"index\":1,\"id\":\"x", 0);
  char *t = sub(s, "\"arguments\":\"{\"", "\"arguments\":\"{\\\"location\\\":\\\"Paris\\\",\\\"unit\\\":\\\"celsius\\\"}\"", 0);
  ck_assert_ptr_nonnull(t);
  free(s);
  evs_insert(&m->e, k + 1, t);
}

static void m_required_text(struct mctx *m)
{
  /* tools ignored: text instead of the forced call (D5, F21); the first
   * fragment's envelope carries a content delta instead */
  size_t first = evs_find(&m->e, 0, FIRST_TOOL);
  const char *s = m->e.v[first];
  const char *d = strstr(s, "\"delta\":{");
  const char *after = strstr(d, "}]}}],");
  ck_assert_ptr_nonnull(after);
  char *text = oc_asprintf("%.*s\"delta\":{\"content\":\"Sunny in Paris.\"}}],%s", (int)(d - s), s,
                           after + 6);
  for(size_t i = m->e.n; i-- > 0;)
    if(strstr(m->e.v[i], "\"tool_calls\":["))
      evs_remove(&m->e, i);
  evs_insert(&m->e, first, text);
  m_finish_stop(m);
}

static void m_tool_calls_empty(struct mctx *m)
{
  /* vLLM's content deltas (V2) */
  ck_assert_uint_gt(evs_sub_all(&m->e, "\"delta\":{\"content\":\"", "\"delta\":{\"tool_calls\":[],\"content\":\""), 5);
}

static void m_schema_violation(struct mctx *m)
{
  /* "Tokyo" becomes "Toxxo", which is not in the schema's enum */
  ev_sub(&m->e, evs_find(&m->e, 0, "\"content\":\"ky\""), "\"content\":\"ky\"", "\"content\":\"xx\"", 0);
}

/* Reasoning, bent into a real stream the way reasoning servers send it:
 * the first n content deltas become the field's deltas (llama-server's
 * reasoning_content, vLLM's reasoning); n 0 means all of them. */
static size_t content_to_field(struct mctx *m, const char *field, size_t n)
{
  char *to = oc_asprintf("\"delta\":{\"%s\":\"", field);
  size_t k = 0;
  for(size_t i = 0; i < m->e.n && (!n || k < n); i++) {
    char *s = sub(m->e.v[i], "\"delta\":{\"content\":\"", to, 0);
    if(s) {
      evs_set(&m->e, i, s);
      k++;
    }
  }
  free(to);
  ck_assert_uint_gt(k, 0);
  return k;
}

static void m_reasoning_vllm(struct mctx *m)
{
  content_to_field(m, "reasoning", 3);
}

static void m_reasoning_empty_hides(struct mctx *m)
{
  /* reasoning_content "" beside vLLM's reasoning, in every reasoning delta */
  content_to_field(m, "reasoning", 3);
  ck_assert_uint_gt(evs_sub_all(&m->e, "\"delta\":{\"reasoning\":\"",
                                "\"delta\":{\"reasoning_content\":\"\",\"reasoning\":\""), 2);
}

static void m_reasoning_object(struct mctx *m)
{
  ev_sub(&m->e, evs_find(&m->e, 0, "\"content\":\" ur\""), "\"content\":\" ur\"",
         "\"reasoning\":{\"text\":\" ur\"}", 0);
}

static void m_reasoning_mixed(struct mctx *m)
{
  /* the end of the reasoning and the start of the answer in one delta */
  content_to_field(m, "reasoning_content", 3);
  ev_sub(&m->e, evs_find(&m->e, 0, "\"delta\":{\"content\":\""), "\"delta\":{\"content\":\"",
         "\"delta\":{\"reasoning_content\":\".\",\"content\":\"", 0);
}

static void m_reasoning_all(struct mctx *m)
{
  content_to_field(m, "reasoning_content", 0);
}

static void m_think_in_content(struct mctx *m)
{
  /* --reasoning-format none: the think block opens the content */
  ev_sub(&m->e, evs_find(&m->e, 0, "\"content\":\" ur\""), "\"content\":\" ur\"",
         "\"content\":\"<think>\\nThe user.\\n</think>\\n\\n ur\"", 0);
}

static void m_stray_close(struct mctx *m)
{
  /* reasoning parsed, yet a lone </think> opens the answer (llama.cpp#23320) */
  content_to_field(m, "reasoning_content", 2);
  ev_sub(&m->e, evs_find(&m->e, 0, "\"delta\":{\"content\":\""), "\"delta\":{\"content\":\"",
         "\"delta\":{\"content\":\"</think>", 0);
}

/* Non-streamed bodies are one block: the same string surgery applies. */
static void m_body_empty_call_id(struct mctx *m)
{
  ck_assert_uint_eq(m->e.n, 1);
  const char *p = strstr(m->e.v[0], "\"tool_calls\":[{\"type\":\"function\",\"function\":");
  ck_assert_ptr_nonnull(p);
  p = strstr(p, "\"id\":\"");
  ck_assert_ptr_nonnull(p);
  char *id = oc_strndup(p, strcspn(p + 6, "\"") + 7);
  ev_sub(&m->e, 0, id, "\"id\":\"\"", 0);
  free(id);
}

static void m_body_args_object(struct mctx *m)
{
  char *p = strstr(m->e.v[0], "\"arguments\":\"");
  ck_assert_ptr_nonnull(p);
  char *q = p + 13;
  while(*q != '"')
    q += *q == '\\' ? 2 : 1;
  char *s = oc_asprintf("%.*s\"arguments\":{\"location\":\"Paris\",\"unit\":\"celsius\"}%s",
                        (int)(p - m->e.v[0]), m->e.v[0], q + 1);
  evs_set(&m->e, 0, s);
}

static void m_json_content_type(struct mctx *m)
{
  free(m->headers);
  m->headers = oc_strdup("Content-Type: application/json\nAccess-Control-Allow-Origin: ");
}

/* ---- the table -------------------------------------------------------------------- */

#define CS "chat-stream"
#define CSU "chat-stream-include-usage"
#define TRS "tools-required-steered-stream"
#define TPS "tools-parallel-stream"

struct mutation {
  const char *name;
  const char *base;       /* a llama-server recording */
  void (*apply)(struct mctx *m);
  const char *target;     /* the rule it must make fire, NULL: none may fire */
  const char *related;    /* rules allowed to fire beside it */
  int partial;            /* analyse as a partial capture */
};

static const struct mutation mutations[] = {
  { "unchanged", CS, m_none, NULL, NULL, 0 },
  { "unchanged", TRS, m_none, NULL, NULL, 0 },
  { "keep-alive pings", CS, m_pings, NULL, NULL, 0 },
  { "keep-alive pings", TRS, m_pings, NULL, NULL, 0 },
  { "keep-alive pings", CSU, m_pings, NULL, NULL, 0 },
  { "drop [DONE], partial capture", CS, m_drop_done, NULL, NULL, 1 },
  { "drop [DONE]", CS, m_drop_done, "STREAM-DONE", NULL, 0 },
  { "drop [DONE]", TRS, m_drop_done, "STREAM-DONE", NULL, 0 },
  { "pings after id: fields", CS, m_pings_after_id, "CLIENT-BREAKS", NULL, 0 },
  { "strip tool-call index", TRS, m_strip_index, "TOOL-DELTA-INDEX", "STREAM-CHUNK-SCHEMA", 0 },
  { "strip tool-call id", TRS, m_strip_id, "TOOL-DELTA-HEAD", NULL, 0 },
  { "strip tool-call type", TRS, m_strip_type, "TOOL-DELTA-HEAD", NULL, 0 },
  { "strip role", CS, m_strip_role, "STREAM-ROLE-FIRST", NULL, 0 },
  { "strip role", TRS, m_strip_role, "STREAM-ROLE-FIRST", NULL, 0 },
  { "resend the name", TRS, m_resend_name, "TOOL-NAME-ONCE", NULL, 0 },
  { "resend the id", TRS, m_resend_id, "CLIENT-BREAKS", "TOOL-NAME-ONCE", 0 },
  { "arguments as an object", TRS, m_args_object, "TOOL-ARGS-STRING", "STREAM-CHUNK-SCHEMA", 0 },
  { "id changes mid-stream", CS, m_id_change, "STREAM-ID-STABLE", NULL, 0 },
  { "id changes mid-stream", TRS, m_id_change, "STREAM-ID-STABLE", NULL, 0 },
  { "model changes", CS, m_model_change, "STREAM-MODEL-STABLE", NULL, 0 },
  { "created changes", CS, m_created_change, "STREAM-CREATED-STABLE", NULL, 0 },
  { "UTF-8 character split across events", CS, m_split_utf8, "SSE-UTF8",
    "STREAM-REPLACEMENT-CHAR STREAM-CHUNK-JSON", 0 },
  { "split halves decoded as U+FFFD", CS, m_halves_decoded, "STREAM-REPLACEMENT-CHAR", NULL, 0 },
  { "400 as a 200 stream, then [DONE]", "ctx-overflow-stream", m_400_as_stream_done,
    "STREAM-EARLY-ERROR", NULL, 0 },
  { "400 as a 200 stream, no [DONE]", "ctx-overflow-stream", m_400_as_stream_nodone,
    "STREAM-EARLY-ERROR", "STREAM-ERROR-EVENT STREAM-DONE", 0 },
  { "error instead of finish and [DONE]", CS, m_error_midstream, "STREAM-ERROR-EVENT",
    "STREAM-DONE", 0 },
  { "error instead of finish, then [DONE]", CS, m_error_midstream_done, NULL, NULL, 0 },
  { "event: error instead of finish", CS, m_typed_error_event, "STREAM-ERROR-EVENT", NULL, 0 },
  { "finish chunk twice", CS, m_duplicate_finish, "STREAM-FINISH-ONCE", NULL, 0 },
  { "no finish chunk", CS, m_drop_finish, "STREAM-FINISH-ONCE", NULL, 0 },
  { "content after finish", CS, m_content_after_finish, "STREAM-FINISH-ONCE", NULL, 0 },
  { "body cut inside an event", CS, m_cut_mid_event, "STREAM-TRUNCATED",
    "STREAM-DONE STREAM-FINISH-ONCE", 0 },
  { "empty data: line", CS, m_empty_data, "STREAM-CHUNK-JSON", NULL, 0 },
  { "comment rewrapped as data", CS, m_rewrapped_comment, "STREAM-CHUNK-JSON", NULL, 0 },
  { "error: field line", CS, m_error_field, "SSE-UNKNOWN-FIELD", NULL, 0 },
  { "content after [DONE]", CS, m_event_after_done, "STREAM-AFTER-DONE", NULL, 0 },
  /* on a stream that ends in "stop": chat-stream ends in "length", on which
   * openai-python's stream helper raises before any content is compared */
  { "object chat.completion", "json-schema-stream", m_wrong_object, "CLIENT-BREAKS", "STREAM-CHUNK-SCHEMA", 0 },
  { "role on every delta", CS, m_role_every_delta, "STREAM-ROLE-ONCE", NULL, 0 },
  { "role null on later deltas", CS, m_role_null, "STREAM-ROLE-ONCE", "STREAM-CHUNK-SCHEMA", 0 },
  { "finish stop after a tool call", TRS, m_finish_stop, "TOOL-FINISH-REASON", NULL, 0 },
  { "parallel calls share index 0", TPS, m_shared_index, "TOOL-ID-INDEX",
    "TOOL-ARGS-JSON TOOL-DELTA-HEAD TOOL-CHOICE-HONOURED", 0 },
  { "tool-call indexes from 1", TPS, m_index_gap, "TOOL-INDEX-GAP", NULL, 0 },
  { "name in two pieces", TRS, m_fragment_name, "CLIENT-BREAKS", "TOOL-DELTA-HEAD", 0 },
  { "usage chunk nobody asked for", CS, m_unrequested_usage, "USAGE-UNREQUESTED", "STREAM-EMPTY-CHOICES", 0 },
  { "no usage chunk", CSU, m_drop_usage, "USAGE-CHUNK", NULL, 0 },
  { "usage before finish", CSU, m_usage_before_finish, "USAGE-CHUNK", NULL, 0 },
  { "usage that does not add up", CSU, m_usage_sum, "CHAT-USAGE", NULL, 0 },
  { "empty choices first", CS, m_empty_choices_first, "STREAM-EMPTY-CHOICES", NULL, 0 },
  { "no content at all", CS, m_drop_content, "STREAM-EMPTY", NULL, 0 },
  { "template token in content", CS, m_template_token, "CHAT-CONTENT-STRING", NULL, 0 },
  { "tool call as text", "tools-required-stream", m_markup_leak, "TOOL-TEXT-LEAK", NULL, 0 },
  { "choice 1 never streamed", "chat-n-2-stream", m_drop_choice_1, "CHAT-CHOICES-COUNT", NULL, 0 },
  { "an argument fragment lost", TRS, m_drop_args_fragment, "TOOL-ARGS-JSON", NULL, 0 },
  { "second call despite parallel false", TRS, m_second_call, "TOOL-PARALLEL-FALSE", NULL, 0 },
  { "text instead of the forced call", TRS, m_required_text, "TOOL-CHOICE-HONOURED", NULL, 0 },
  { "tool_calls: [] in content deltas", CS, m_tool_calls_empty, "TOOL-CALLS-EMPTY", NULL, 0 },
  { "content outside the schema", "json-schema-stream", m_schema_violation, "SCHEMA-OUTPUT", NULL, 0 },
  { "stream labelled application/json", CS, m_json_content_type, "STREAM-CONTENT-TYPE", "JSON-BODY", 0 },
  { "reasoning in vLLM's field", CS, m_reasoning_vllm, "REASONING-FIELD", NULL, 0 },
  { "reasoning_content \"\" beside reasoning", CS, m_reasoning_empty_hides, "REASONING-FIELD-CONFLICT",
    "REASONING-FIELD", 0 },
  { "reasoning as an object", CS, m_reasoning_object, "REASONING-NOT-STRING",
    "STREAM-CHUNK-SCHEMA CLIENT-BREAKS", 0 },
  { "reasoning and content in one delta", CS, m_reasoning_mixed, "REASONING-MIXED-DELTA",
    "REASONING-FIELD", 0 },
  { "everything went to reasoning, cut by length", CS, m_reasoning_all, "REASONING-BUDGET",
    "REASONING-FIELD", 0 },
  { "everything went to reasoning, finish stop", "json-schema-stream", m_reasoning_all,
    "REASONING-ANSWER-TRAPPED", "REASONING-FIELD SCHEMA-OUTPUT CLIENT-BREAKS", 0 },
  { "think block left in content", CS, m_think_in_content, "REASONING-UNPARSED", NULL, 0 },
  { "a lone </think> beside parsed reasoning", CS, m_stray_close, "REASONING-MARKUP-LEAK",
    "REASONING-FIELD", 0 },
  { "unchanged", "tools-required-steered", m_none, NULL, NULL, 0 },
  { "non-stream call with an empty id", "tools-required-steered", m_body_empty_call_id, "TOOL-CALL-ID", NULL, 0 },
  { "non-stream arguments as an object", "tools-required-steered", m_body_args_object, "TOOL-ARGS-STRING",
    "CHAT-SCHEMA", 0 },
};

/* ---- running one -------------------------------------------------------------------- */

static void analyze(const struct rt_rec *rec, const char *body, size_t len, int status,
                    const char *headers, int partial, struct oc_findings *f)
{
  struct rt_ex x = rec->x;
  x.body = body;
  x.len = len;
  x.pieces = NULL;
  x.npieces = 0;
  x.status = status;
  x.headers = headers;
  rt_analyze(&x, "llama-server", partial, f);
}

START_TEST(mutation_fires_its_rule)
{
  const struct mutation *mu = &mutations[_i];
  char *dir = rt_recordings("llama-server");
  if(!dir)
    return;
  struct rt_rec rec;
  rt_rec_load(&rec, dir, mu->base, NULL, NULL);

  /* the recording as it is: only the empty CORS header (D16), plus D5's
   * ignored tool_choice for tools-required-stream */
  struct oc_findings base;
  analyze(&rec, rec.ex.body, rec.ex.body_len, rec.ex.status, rec.headers_text, 0, &base);
  ck_assert_int_eq(oc_findings_total(&base, OC_R_HTTP_CORS_ORIGIN), 1);

  struct mctx m = { .status = rec.ex.status, .headers = oc_strdup(rec.headers_text) };
  evs_parse(&m.e, rec.ex.body, rec.ex.body_len);
  mu->apply(&m);
  size_t len;
  char *body = evs_render(&m.e, &len);
  ck_assert_uint_lt(m.cut, len);
  len -= m.cut;
  if(mu->apply == m_none)
    ck_assert_msg(len == rec.ex.body_len && memcmp(body, rec.ex.body, len) == 0,
                  "%s: events do not render back to the recording", mu->base);

  struct oc_findings f;
  analyze(&rec, body, len, m.status, m.headers, mu->partial, &f);
  char *fired = rt_fired_beyond(&f, &base);
  printf("%-38s %-30s -> %s\n", mu->name, mu->base, *fired ? fired : "(none)");
  fflush(stdout);
  /* a mutation may break a client beside its rule: the models are judged
   * in check_clients and against the real clients; a row whose target is
   * CLIENT-BREAKS says a client breaks where nothing else fires */
  char *related = oc_asprintf("%s CLIENT-BREAKS", mu->related ? mu->related : "");
  char *outside = rt_outside(fired, mu->target, related);
  free(related);
  if(*outside || (mu->target && !rt_in_list(fired, mu->target)))
    rt_dump(mu->name, &f);
  if(mu->target)
    ck_assert_msg(rt_in_list(fired, mu->target), "%s (%s): %s did not fire; fired: %s", mu->name,
                  mu->base, mu->target, *fired ? fired : "nothing");
  ck_assert_msg(!*outside, "%s (%s): rules outside the related set fired: %s", mu->name, mu->base,
                outside);
  free(fired);
  free(outside);
  oc_findings_free(&f);
  oc_findings_free(&base);
  free(body);
  free(m.headers);
  evs_free(&m.e);
  rt_rec_free(&rec);
  free(dir);
}
END_TEST

/* Every mutation's target and related rules exist; together the
 * mutations reach most of the stream layer (listed, so a new stream rule
 * is noticed here too). */
START_TEST(table_names_catalogue_rules)
{
  for(size_t i = 0; i < OC_ARRAY_LEN(mutations); i++) {
    const struct mutation *mu = &mutations[i];
    if(mu->target)
      ck_assert_msg(oc_rule_find(mu->target) != NULL, "%s: unknown rule %s", mu->name, mu->target);
    for(const char *p = mu->related ? mu->related : ""; *p;) {
      size_t n = strcspn(p, " ");
      char *id = oc_strndup(p, n);
      ck_assert_msg(oc_rule_find(id) != NULL, "%s: unknown related rule %s", mu->name, id);
      free(id);
      p += n;
      while(*p == ' ')
        p++;
    }
  }
  /* the stream and tool layers, each the target of some mutation, but
   * for a rule the clean recordings already show */
  static const char *const shown[] = {
    "TOOL-CONTENT-NULL", /* content "" beside tool calls is llama-server's own form (D8) */
  };
  for(const struct oc_rule *r = oc_rules; r < oc_rules + OC_R__COUNT; r++) {
    if(strcmp(r->layer, "stream") != 0 && strcmp(r->layer, "tools") != 0)
      continue;
    int known = 0;
    for(size_t i = 0; i < OC_ARRAY_LEN(shown); i++)
      known |= strcmp(shown[i], r->id) == 0;
    if(known)
      continue;
    int hit = 0;
    for(size_t i = 0; i < OC_ARRAY_LEN(mutations); i++)
      if(mutations[i].target && strcmp(mutations[i].target, r->id) == 0)
        hit = 1;
    ck_assert_msg(hit, "no mutation targets the %s-layer rule %s", r->layer, r->id);
  }
}
END_TEST

static Suite *mutations_suite(void)
{
  Suite *s = suite_create("mutations");
  TCase *tc = tcase_create("llama-server");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, mutation_fires_its_rule, 0, (int)OC_ARRAY_LEN(mutations));
  tcase_add_test(tc, table_names_catalogue_rules);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  char *dir = rt_recordings("llama-server");
  if(!dir) {
    fprintf(stderr, "skipped: the llama-server recordings are not available\n");
    return 77;
  }
  free(dir);
  rt_setup();
  printf("%-38s %-30s -> %s\n", "mutation", "of recording", "rules that fired (beyond the clean recording's)");
  fflush(stdout);
  int rc = oc_test_run(mutations_suite());
  rt_teardown();
  return rc;
}
