/* dialect.c — the tool-call markup of chat-template families and of one
 * template's own text, and the parser-failure signatures of servers.
 * Pure text work: no I/O, no findings. */
#include "config.h"
#include "dialect.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static const struct {
  const char *text;
  const char *family;
} table[] = {
#define MARKER(text, family) { text, family },
#include "tool_markers.def"
#undef MARKER
};

size_t oc_dialect_table_size(void)
{
  return OC_ARRAY_LEN(table);
}

const char *oc_dialect_table_marker(size_t i)
{
  return i < OC_ARRAY_LEN(table) ? table[i].text : NULL;
}

void oc_dialect_init(struct oc_dialect *d)
{
  memset(d, 0, sizeof(*d));
}

void oc_dialect_free(struct oc_dialect *d)
{
  if(!d)
    return;
  for(size_t i = 0; i < d->n; i++)
    free(d->markers[i]);
  free(d->markers);
  oc_dialect_init(d);
}

const char *oc_dialect_find_marker(const char *s, size_t len, const struct oc_dialect *d,
                                   size_t *at, const char **family)
{
  /* the earliest marker wins: it names what the text starts to be */
  const char *best = NULL, *best_family = NULL;
  size_t best_at = 0;
  for(size_t i = 0; s && i < OC_ARRAY_LEN(table); i++) {
    const char *p = oc_memfind(s, len, table[i].text, strlen(table[i].text));
    if(p && (!best || (size_t)(p - s) < best_at)) {
      best = table[i].text;
      best_family = table[i].family;
      best_at = (size_t)(p - s);
    }
  }
  for(size_t i = 0; s && d && i < d->n; i++) {
    const char *p = oc_memfind(s, len, d->markers[i], strlen(d->markers[i]));
    if(p && (!best || (size_t)(p - s) < best_at)) {
      best = d->markers[i];
      best_family = "this target's chat template";
      best_at = (size_t)(p - s);
    }
  }
  if(best) {
    if(at)
      *at = best_at;
    if(family)
      *family = best_family;
  }
  return best;
}

/* ---- markers from a template's text ------------------------------------------- */

/* "｜" (U+FF5C), DeepSeek's token delimiter, as UTF-8 */
static int fullwidth_bar(const char *p, const char *end)
{
  return end - p >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBD &&
         (unsigned char)p[2] == 0x9C;
}

/* The length of a token starting at p ("<|x|>", "<x>", "</x>", "<｜x｜>",
 * "[X_Y]"), or 0. */
static size_t token_at(const char *p, const char *end)
{
  const char *q = p;
  if(*q == '[') {
    q++;
    const char *name = q;
    while(q < end && ((*q >= 'A' && *q <= 'Z') || *q == '_'))
      q++;
    return q < end && *q == ']' && q - name >= 3 ? (size_t)(q + 1 - p) : 0;
  }
  if(*q != '<')
    return 0;
  q++;
  if(q < end && *q == '|')
    q++;
  else if(fullwidth_bar(q, end))
    q += 3;
  if(q < end && *q == '/')
    q++;
  if(q >= end || !((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_'))
    return 0;
  const char *name = q;
  while(q < end && q - name <= 40 && *q != '<' && *q != '>' && *q != ' ' && *q != '\n' &&
        *q != '\t' && *q != '\'' && *q != '"' && *q != '{' && *q != '}' && *q != '|' &&
        !fullwidth_bar(q, end))
    q++;
  if(q < end && *q == '|')
    q++;
  else if(fullwidth_bar(q, end))
    q += 3;
  return q < end && *q == '>' ? (size_t)(q + 1 - p) : 0;
}

static int has_word(const char *s, size_t n, const char *const *words, size_t nwords)
{
  for(size_t w = 0; w < nwords; w++) {
    size_t wl = strlen(words[w]);
    for(size_t i = 0; i + wl <= n; i++) {
      size_t k = 0;
      while(k < wl && ((s[i + k] | 0x20) == words[w][k] || s[i + k] == words[w][k]))
        k++;
      if(k == wl)
        return 1;
    }
  }
  return 0;
}

static int add_marker(struct oc_dialect *d, const char *p, size_t n)
{
  for(size_t i = 0; i < d->n; i++)
    if(strlen(d->markers[i]) == n && memcmp(d->markers[i], p, n) == 0)
      return OC_OK;
  for(size_t i = 0; i < OC_ARRAY_LEN(table); i++)
    if(strlen(table[i].text) == n && memcmp(table[i].text, p, n) == 0)
      return OC_OK;
  if(d->n >= OC_DIALECT_MAX_MARKERS)
    return OC_OK;
  char **m = oc_array_grow(d->markers, &d->alloc, d->n + 1, sizeof(*m));
  if(!m)
    return OC_ENOMEM;
  d->markers = m;
  if(!(d->markers[d->n] = oc_strndup(p, n)))
    return OC_ENOMEM;
  d->n++;
  return OC_OK;
}

int oc_dialect_from_template(struct oc_dialect *d, const char *text, size_t len)
{
  /* A tool call's markup sits next to the template's use of the call
   * (message.tool_calls, tool_call.name): look at the text around each
   * use.  Names about results, lists or placeholders are not calls. */
  static const char *const yes[] = { "call", "function", "invoke", "action", "tool_", "tools_" };
  static const char *const no[] = { "response", "result", "output", "avail", "list",
                                    "-name", "example", "..." };
  static const char *const anchors[] = { "tool_call", "tool\xe2\x96\x81" "call" };
  const char *end = text + len;
  for(size_t a = 0; text && a < OC_ARRAY_LEN(anchors); a++) {
    size_t al = strlen(anchors[a]);
    for(const char *hit = oc_memfind(text, len, anchors[a], al); hit;
        hit = oc_memfind(hit + al, (size_t)(end - hit - (ptrdiff_t)al), anchors[a], al)) {
      const char *from = hit - text > 80 ? hit - 80 : text;
      const char *to = end - hit > 600 ? hit + 600 : end;
      for(const char *p = from; p < to; p++) {
        if(*p != '<' && *p != '[')
          continue;
        size_t n = token_at(p, to);
        if(!n)
          continue;
        if(has_word(p, n, yes, OC_ARRAY_LEN(yes)) && !has_word(p, n, no, OC_ARRAY_LEN(no)) &&
           add_marker(d, p, n))
          return OC_ENOMEM;
        p += n - 1;
      }
      if(end - hit <= (ptrdiff_t)al)
        break;
    }
  }
  return OC_OK;
}

/* ---- the server could not parse the model's output ---------------------------- */

int oc_dialect_parse_failure(const char *msg, size_t len, char *fmt, size_t fmtlen)
{
  /* llama-server (common/chat.cpp): "The model produced output that does
   * not match the expected <format> format" (a 500, or in a stream an
   * in-band error after the role chunk).  Other servers hand text they
   * could not parse over as content, which TOOL-TEXT-LEAK sees. */
  static const char expected[] = "does not match the expected ";
  if(fmt && fmtlen)
    fmt[0] = '\0';
  if(!msg)
    return 0;
  const char *p = oc_memfind(msg, len, expected, sizeof(expected) - 1);
  if(p) {
    const char *f = p + sizeof(expected) - 1, *e = f;
    while(e < msg + len && *e != ' ' && e - f < 40)
      e++;
    if(fmt && fmtlen)
      snprintf(fmt, fmtlen, "%.*s", (int)(e - f), f);
    return 1;
  }
  return 0;
}
