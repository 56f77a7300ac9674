/* templates.c — rendering fixtures through chat templates and checking
 * what came out.  The checks compare text the conversation carries with
 * the rendered prompt, the way a person reading it would: a system
 * prompt that is absent was dropped, one after the first user turn was
 * moved; an offered tool's name and description, the assistant's call
 * (name and argument values, between the text before it and the tool's
 * result) and the result itself must be there — re-encoded content
 * counts when its values are (gemma-4's <|"|> quoting), a JSON string of
 * the JSON is worth its own warning; a date is the server's clock when
 * it is today's and the template text does not hold it.  A failed render
 * is a refusal when the error carries the template's own words. */
#include "config.h"
#include "templates.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "response.h"
#include "result.h"
#include "secret.h"
#include "util.h"

static int known_role(const char *r)
{
  static const char *const roles[] = { "system", "developer", "user", "assistant", "tool",
                                       "function" };
  for(size_t i = 0; i < OC_ARRAY_LEN(roles); i++)
    if(oc_streq(r, roles[i]))
      return 1;
  return 0;
}

/* ---- text helpers ----------------------------------------------------------------- */

/* Where needle (n bytes) first appears in prompt at or after start, or -1. */
static long find_n(const char *prompt, size_t plen, const char *needle, size_t n, long start)
{
  if(!prompt || !needle || !n || start < 0 || (size_t)start > plen || n > plen - (size_t)start)
    return -1;
  for(size_t i = (size_t)start; i + n <= plen; i++)
    if(prompt[i] == needle[0] && memcmp(prompt + i, needle, n) == 0)
      return (long)i;
  return -1;
}

static long find_from(const char *prompt, size_t plen, const char *needle, long start)
{
  return needle ? find_n(prompt, plen, needle, strlen(needle), start) : -1;
}

static int lower(int ch)
{
  return ch >= 'A' && ch <= 'Z' ? ch + 32 : ch;
}

/* Does s[0..n) contain word, ignoring ASCII case? */
static int has_ci(const char *s, size_t n, const char *word)
{
  size_t wl = strlen(word);
  for(size_t i = 0; i + wl <= n; i++) {
    size_t k = 0;
    while(k < wl && lower((unsigned char)s[i + k]) == word[k])
      k++;
    if(k == wl)
      return 1;
  }
  return 0;
}

static int is_space(int ch)
{
  return ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r';
}

/* A server's error message on one line, cut to fit a finding: template
 * engines answer with multi-line excerpts of the template.  The
 * template's own words come after "Jinja Exception: " when there is one. */
static void one_line(const char *in, char *out, size_t outlen)
{
  size_t o = 0;
  int space = 0;
  const char *p = in ? in : "no message";
  const char *jinja = in ? strstr(in, "Jinja Exception: ") : NULL;
  if(jinja)
    p = jinja;
  for(; *p && o + 1 < outlen; p++) {
    if(is_space(*p)) {
      space = o > 0;
      continue;
    }
    if(space && o + 2 < outlen)
      out[o++] = ' ';
    space = 0;
    out[o++] = *p;
  }
  out[o] = '\0';
}

/* A value as text, the way a template shows it: strings as they are,
 * numbers and booleans as JSON writes them.  Caller frees. */
static char *leaf_text(const cJSON *v)
{
  if(cJSON_IsString(v))
    return oc_strdup(v->valuestring);
  if(cJSON_IsNumber(v) || cJSON_IsBool(v))
    return oc_json_print(v);
  return NULL;
}

struct leaves {
  char *items[64];
  size_t n;
};

static void leaves_free(struct leaves *l)
{
  for(size_t i = 0; i < l->n; i++)
    free(l->items[i]);
  l->n = 0;
}

static void leaves_add(struct leaves *l, char *s)
{
  if(s && *s && l->n < OC_ARRAY_LEN(l->items))
    l->items[l->n++] = s;
  else
    free(s);
}

/* Every member name and scalar value of a JSON text: what a template
 * that re-encodes the text (gemma-4's <|"|> quoting, a JSON string of
 * the JSON) still shows.  keys_too 0: values only. */
static void leaves_of(const cJSON *v, int keys_too, struct leaves *l)
{
  const cJSON *x;
  if(cJSON_IsObject(v) || cJSON_IsArray(v)) {
    cJSON_ArrayForEach(x, v)
    {
      if(keys_too && x->string)
        leaves_add(l, oc_strdup(x->string));
      leaves_of(x, keys_too, l);
    }
  }
  else
    leaves_add(l, leaf_text(v));
}

static int leaves_has(const struct leaves *l, const char *s)
{
  for(size_t i = 0; i < l->n; i++)
    if(strcmp(l->items[i], s) == 0)
      return 1;
  return 0;
}

/* text as the inside of a JSON string (quotes escaped): how a template
 * that applies tojson to a string shows it.  Caller frees; NULL when it
 * needs no escaping. */
static char *json_escaped(const char *text)
{
  cJSON *s = cJSON_CreateString(text);
  char *out = s ? oc_json_print(s) : NULL;
  cJSON_Delete(s);
  if(!out)
    return NULL;
  size_t n = strlen(out);
  if(n < 2 || (n - 2 == strlen(text) && memcmp(out + 1, text, n - 2) == 0)) {
    free(out);
    return NULL;
  }
  memmove(out, out + 1, n - 2);
  out[n - 2] = '\0';
  return out;
}

/* Where the content of a message is rendered at or after start: as it
 * is, as a JSON string, or (re-encoded) where its first value not in
 * avoid appears when all its values do.  -1 when it is not there. */
static long locate(const char *P, size_t plen, const char *content, long start,
                   const struct leaves *avoid)
{
  long at = find_from(P, plen, content, start);
  if(at >= 0)
    return at;
  char *esc = json_escaped(content);
  at = esc ? find_from(P, plen, esc, start) : -1;
  free(esc);
  if(at >= 0)
    return at;
  cJSON *j = cJSON_Parse(content);
  struct leaves l = { { NULL }, 0 };
  leaves_of(j, 1, &l);
  cJSON_Delete(j);
  long best = -1, any = -1;
  int missing = l.n == 0;
  for(size_t i = 0; i < l.n; i++) {
    long p = find_from(P, plen, l.items[i], start);
    if(p < 0) {
      missing = 1;
      break;
    }
    if(any < 0 || p < any)
      any = p;
    if((!avoid || !leaves_has(avoid, l.items[i])) && (best < 0 || p < best))
      best = p;
  }
  leaves_free(&l);
  return missing ? -1 : best >= 0 ? best : any;
}

/* ---- an empty tool list ------------------------------------------------------------ */

/* A control token starts at p: "<|…", "<｜…", "[INST]", "[/INST]",
 * "</s>", or a closing "<word|>" (gemma's <turn|>).  Its length, or 0. */
static size_t control_at(const char *p, const char *end)
{
  size_t left = (size_t)(end - p);
  if(left >= 2 && p[0] == '<' && p[1] == '|')
    goto to_gt;
  if(left >= 4 && p[0] == '<' && (unsigned char)p[1] == 0xEF && (unsigned char)p[2] == 0xBD &&
     (unsigned char)p[3] == 0x9C)
    goto to_gt;
  if(left >= 6 && memcmp(p, "[INST]", 6) == 0)
    return 6;
  if(left >= 7 && memcmp(p, "[/INST]", 7) == 0)
    return 7;
  if(left >= 4 && memcmp(p, "</s>", 4) == 0)
    return 4;
  if(left >= 3 && p[0] == '<') {
    const char *q = p + 1;
    while(q < end && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_'))
      q++;
    if(q > p + 1 && q + 1 < end && q[0] == '|' && q[1] == '>')
      return (size_t)(q + 2 - p);
  }
  return 0;
to_gt:
  for(const char *q = p + 2; q < end && q - p < 64; q++)
    if(*q == '>')
      return (size_t)(q + 1 - p);
  return 0;
}

static const char *skip_space(const char *p, const char *end)
{
  while(p < end && is_space(*p))
    p++;
  return p;
}

/* An empty list or block right at p: [ ], { }, ```json [ ], <tools> </tools>. */
static int empty_container(const char *p, const char *end)
{
  if(end - p >= 3 && memcmp(p, "```", 3) == 0) {
    p += 3;
    while(p < end && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
      p++;
    p = skip_space(p, end);
  }
  if(p < end && (*p == '[' || *p == '{')) {
    char close = *p == '[' ? ']' : '}';
    const char *q = skip_space(p + 1, end);
    return q < end && *q == close;
  }
  if(p < end && *p == '<') {
    const char *q = p + 1, *name = q;
    while(q < end && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_'))
      q++;
    size_t n = (size_t)(q - name);
    if(!n || q >= end || *q != '>')
      return 0;
    q = skip_space(q + 1, end);
    return end - q >= (ptrdiff_t)(n + 3) && q[0] == '<' && q[1] == '/' &&
           memcmp(q + 2, name, n) == 0 && q[2 + n] == '>';
  }
  return 0;
}

/* A heading that announces a list of tools ("Available functions as JSON
 * spec:", "# Available Tools", "Here is a list of tools that you have
 * available to you:") with nothing under it: an empty list, straight to
 * the end of the turn, or (after a colon) prose with nothing that could
 * define a tool.  Returns the heading's offset, or -1. */
static long tools_header_empty(const char *P, size_t plen)
{
  static const char *const first[] = { "available", "following", "list of" };
  static const char *const second[] = { "tools", "functions" };
  const char *end = P + plen;
  for(size_t i = 0; i < plen; i++) {
    for(size_t a = 0; a < OC_ARRAY_LEN(first); a++) {
      size_t al = strlen(first[a]);
      if(i + al > plen || !has_ci(P + i, al, first[a]))
        continue;
      const char *q = P + i + al;
      if(q >= end || !is_space(*q))
        continue;
      q = skip_space(q, end);
      const char *word_end = NULL;
      for(size_t b = 0; b < OC_ARRAY_LEN(second); b++) {
        size_t bl = strlen(second[b]);
        if((size_t)(end - q) >= bl && has_ci(q, bl, second[b]))
          word_end = q + bl;
      }
      if(!word_end)
        continue;
      /* the rest of the heading's line */
      const char *nl = memchr(word_end, '\n', (size_t)(end - word_end));
      const char *line_end = nl ? nl : end;
      const char *colon = memchr(word_end, ':', (size_t)(line_end - word_end));
      const char *dot = memchr(word_end, '.', (size_t)(line_end - word_end));
      const char *ls = P + i;
      while(ls > P && ls[-1] != '\n')
        ls--;
      ls = skip_space(ls, P + i);
      int by_colon = colon && colon - word_end <= 40 && (!dot || dot > colon);
      int heading = !by_colon && *ls == '#';
      if(!by_colon && !heading)
        continue;
      const char *after = skip_space(by_colon ? colon + 1 : line_end, end);
      /* a token that opens the list itself (<|tool_list_start|>) is not the end of it */
      for(size_t n; (n = control_at(after, end)) != 0 &&
                    (has_ci(after, n, "tool") || has_ci(after, n, "func"));)
        after = skip_space(after + n, end);
      if(empty_container(after, end) || after >= end || control_at(after, end))
        return (long)i;
      if(by_colon) {
        const char *seg_end = after;
        while(seg_end < end && seg_end - after < 300 && !control_at(seg_end, end))
          seg_end++;
        size_t sl = (size_t)(seg_end - after);
        int structure = memchr(after, '{', sl) || memchr(after, '[', sl) || memchr(after, '<', sl) ||
                        memchr(after, '(', sl) || has_ci(after, sl, "```") ||
                        has_ci(after, sl, "def ") || has_ci(after, sl, "function ");
        if(!structure)
          return (long)i;
      }
    }
  }
  return -1;
}

/* ---- dates ------------------------------------------------------------------------- */

/* Days since 1970-01-01 of a civil date, and back (proleptic Gregorian). */
static long days_from_civil(int y, int m, int d)
{
  y -= m <= 2;
  long era = (y >= 0 ? y : y - 399) / 400;
  long yoe = y - era * 400;
  long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

static void civil_from_days(long z, int *y, int *m, int *d)
{
  z += 719468;
  long era = (z >= 0 ? z : z - 146096) / 146097;
  long doe = z - era * 146097;
  long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  long mp = (5 * doy + 2) / 153;
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = (int)(yoe + era * 400 + (*m <= 2));
}

static const char *const month_abbr[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
static const char *const month_name[] = { "January", "February", "March", "April", "May", "June",
                                          "July", "August", "September", "October", "November",
                                          "December" };

int oc_templates_set_day(struct oc_template_context *ctx, const char *s)
{
  int y, m, d;
  char mon[4];
  if(!s)
    return 0;
  if(sscanf(s, "%4d-%2d-%2d", &y, &m, &d) == 3 && m >= 1 && m <= 12 && d >= 1 && d <= 31)
    goto ok;
  /* IMF-fixdate: "Tue, 01 Dec 2026 06:44:58 GMT" */
  const char *comma = strchr(s, ',');
  if(comma && sscanf(comma + 1, "%2d %3s %4d", &d, mon, &y) == 3)
    for(m = 1; m <= 12; m++)
      if(strcmp(mon, month_abbr[m - 1]) == 0 && d >= 1 && d <= 31)
        goto ok;
  return 0;
ok:
  ctx->year = y;
  ctx->month = m;
  ctx->day = d;
  return 1;
}

/* The server's today (and the days either side, for a render across
 * midnight) in the forms templates print: ISO, "01 Dec 2026",
 * "Dec 01 2026", "December 1, 2026", and their variants.  The first one
 * found in the prompt that neither the template text (a knowledge
 * cutoff) nor the conversation contains goes to out. */
static int is_digit(int ch)
{
  return ch >= '0' && ch <= '9';
}

/* Digits at p (at most max), as a number; *n gets how many. */
static int digits(const char *p, const char *end, int max, int *n)
{
  int v = 0;
  *n = 0;
  while(p + *n < end && *n < max && is_digit(p[*n]))
    v = v * 10 + (p[(*n)++] - '0');
  return v;
}

/* A whole date at p, in one of the forms server_date knows; its length. */
static size_t date_at(const char *P, const char *p, const char *end)
{
  int n, k;
  if(p > P && (is_digit(p[-1]) || (p[-1] >= 'A' && p[-1] <= 'z')))
    return 0;
  /* 2026-12-01 */
  int y = digits(p, end, 4, &n);
  if(n == 4 && p + 10 <= end && p[4] == '-' && p[7] == '-') {
    int m = digits(p + 5, end, 2, &k), d = k == 2 ? digits(p + 8, end, 2, &k) : 0;
    if(k == 2 && m >= 1 && m <= 12 && d >= 1 && d <= 31 && (p + 10 == end || !is_digit(p[10])))
      return 10;
    return 0;
  }
  (void)y;
  /* 01 Dec 2026, 1 December 2026 */
  const char *q = p;
  int d = digits(q, end, 2, &n);
  if(n) {
    q += n;
    if(q >= end || *q != ' ' || d < 1 || d > 31)
      return 0;
    q++;
  }
  int month = 0;
  for(int m = 0; m < 12 && !month; m++) {
    size_t fl = strlen(month_name[m]);
    if((size_t)(end - q) >= fl && memcmp(q, month_name[m], fl) == 0) {
      month = m + 1;
      q += fl;
    }
    else if(end - q >= 3 && memcmp(q, month_abbr[m], 3) == 0 && (end - q == 3 || q[3] == ' ')) {
      month = m + 1;
      q += 3;
    }
  }
  if(!month || q >= end || *q != ' ')
    return 0;
  q++;
  if(!n) {
    /* Dec 01 2026, December 1, 2026 */
    d = digits(q, end, 2, &n);
    if(!n || d < 1 || d > 31)
      return 0;
    q += n;
    if(q < end && *q == ',')
      q++;
    if(q >= end || *q != ' ')
      return 0;
    q++;
  }
  digits(q, end, 4, &n);
  if(n != 4 || (q + 4 < end && is_digit(q[4])))
    return 0;
  return (size_t)(q + 4 - p);
}

static int server_date(const char *P, size_t plen, const struct oc_template_context *ctx,
                       const char *request_text, char *out, size_t outlen)
{
  if(!ctx || (!ctx->year && !ctx->template_text))
    return 0;
  if(!ctx->year) {
    /* The day is unknown (a recording without its time): any whole date
     * that neither the template's text nor the conversation holds came
     * from the server when it rendered. */
    for(const char *p = P; p < P + plen; p++) {
      size_t n = date_at(P, p, P + plen);
      if(!n)
        continue;
      snprintf(out, outlen, "%.*s", (int)n, p);
      if(!strstr(ctx->template_text, out) && !(request_text && strstr(request_text, out)))
        return 1;
      p += n - 1;
    }
    out[0] = '\0';
    return 0;
  }
  long today = days_from_civil(ctx->year, ctx->month, ctx->day);
  for(long delta = 0; delta <= 2; delta++) {
    long z = today + (delta == 0 ? 0 : delta == 1 ? -1 : 1);
    int y, m, d;
    civil_from_days(z, &y, &m, &d);
    const char *ab = month_abbr[m - 1], *full = month_name[m - 1];
    char forms[12][40];
    snprintf(forms[0], sizeof(forms[0]), "%04d-%02d-%02d", y, m, d);
    snprintf(forms[1], sizeof(forms[1]), "%02d %s %d", d, ab, y);
    snprintf(forms[2], sizeof(forms[2]), "%d %s %d", d, ab, y);
    snprintf(forms[3], sizeof(forms[3]), "%s %02d %d", ab, d, y);
    snprintf(forms[4], sizeof(forms[4]), "%s %d %d", ab, d, y);
    snprintf(forms[5], sizeof(forms[5]), "%s %d, %d", full, d, y);
    snprintf(forms[6], sizeof(forms[6]), "%s %02d, %d", full, d, y);
    snprintf(forms[7], sizeof(forms[7]), "%d %s %d", d, full, y);
    snprintf(forms[8], sizeof(forms[8]), "%s %d, %d", ab, d, y);
    snprintf(forms[9], sizeof(forms[9]), "%s %02d, %d", ab, d, y);
    snprintf(forms[10], sizeof(forms[10]), "%04d/%02d/%02d", y, m, d);
    snprintf(forms[11], sizeof(forms[11]), "%02d/%02d/%04d", m, d, y);
    for(size_t i = 0; i < OC_ARRAY_LEN(forms); i++) {
      if(find_from(P, plen, forms[i], 0) < 0)
        continue;
      if((ctx->template_text && strstr(ctx->template_text, forms[i])) ||
         (request_text && strstr(request_text, forms[i])))
        continue;
      oc_strlcpy(out, forms[i], outlen);
      return 1;
    }
  }
  return 0;
}

/* ---- the checks --------------------------------------------------------------------- */

/* The template's own refusals: raise_exception('…') texts in its source. */
static int template_raises(const char *tmpl, const char *msg)
{
  static const char call[] = "raise_exception(";
  for(const char *p = tmpl ? strstr(tmpl, call) : NULL; p; p = strstr(p + 1, call)) {
    const char *q = p + sizeof(call) - 1;
    while(*q == ' ')
      q++;
    if(*q != '\'' && *q != '"')
      continue;
    char quote = *q++;
    const char *e = strchr(q, quote);
    if(e && e - q >= 8 && find_n(msg, strlen(msg), q, (size_t)(e - q), 0) >= 0)
      return 1;
  }
  return 0;
}

/* Does the message name ids ("Tool call IDs should be …")? */
static int names_ids(const char *msg)
{
  for(const char *p = msg; p && *p; p++) {
    if(lower((unsigned char)p[0]) != 'i' || lower((unsigned char)p[1]) != 'd')
      continue;
    int before = p == msg || !((lower((unsigned char)p[-1]) >= 'a' && lower((unsigned char)p[-1]) <= 'z'));
    const char *a = p + 2;
    if(*a == 's' || *a == 'S')
      a++;
    int after = !((lower((unsigned char)*a) >= 'a' && lower((unsigned char)*a) <= 'z'));
    if(before && after)
      return 1;
  }
  return 0;
}

static void check_refusal(struct oc_check *c, const cJSON *request, int status,
                          const char *error_message, const struct oc_template_context *ctx,
                          const char *fx, const char *call_id, int unknown)
{
  char emsg[320], act[16];
  one_line(error_message, emsg, sizeof(emsg));
  snprintf(act, sizeof(act), "%d", status);
  const char *msg = error_message ? error_message : "";
  int tools = oc_json_arr(request, "tools") != NULL;
  if(call_id && names_ids(msg)) {
    oc_emit(c, OC_R_TEMPLATE_TOOL_ID, OC_AT(.expected = "200", .actual = act),
            "%s: the template refuses the tool-call id '%s': %s", fx, call_id, emsg);
    return;
  }
  int refusal = strstr(msg, "Jinja Exception") || strstr(msg, "raise_exception") ||
                template_raises(ctx ? ctx->template_text : NULL, msg);
  if(refusal) {
    /* refusing an unknown role with a 4xx is the right answer; anything
     * else refused is a conversation clients send, or the wrong status */
    int server = status >= 500;
    int sev = unknown && !server && status >= 400 ? OC_SEV_INFO : OC_SEV_ERROR;
    oc_emit(c, OC_R_TEMPLATE_REFUSED,
            OC_AT(.expected = unknown ? "a 4xx refusal or a render" : "200",
                  .actual = act, .severity = sev),
            "%s: the template refuses the conversation%s with HTTP %d%s: %s", fx,
            unknown ? " (a message of an unknown role)" : tools || call_id ? " (a tool call and its result)" : "",
            status, server ? ", a server error for what is the request's fault (clients retry a 5xx)" : "",
            emsg);
    return;
  }
  if(unknown && status >= 400 && status < 500)
    return; /* the server itself refuses the unknown role: the right answer */
  oc_emit(c, OC_R_TEMPLATE_RENDER, OC_AT(.expected = "200", .actual = act),
          "%s: the template cannot render a well-formed conversation: %s", fx, emsg);
}

/* What the template's text says about a missing part: nothing when its
 * text is unknown or reads the variable, else that it never does (the
 * template cannot render it, whatever the server does). */
static const char *never_reads(const struct oc_template_context *ctx, const char *var)
{
  if(!ctx || !ctx->template_text || strstr(ctx->template_text, var))
    return "";
  return strcmp(var, "tools") == 0 ? " (the template's text never reads `tools`)"
                                   : " (the template's text never reads `tool_calls`)";
}

/* The assistant's tool calls of message i, between the text before them
 * (cursor) and the next tool message's rendering. */
static void check_tool_calls(struct oc_check *c, const char *P, size_t plen, const cJSON *msgs,
                             const cJSON *m, long cursor, const char *fx,
                             const struct oc_template_context *ctx)
{
  const cJSON *calls = oc_json_arr(m, "tool_calls");
  struct leaves avoid = { { NULL }, 0 };
  const cJSON *tc;
  cJSON_ArrayForEach(tc, calls)
  {
    const cJSON *fn = oc_json_obj(tc, "function");
    leaves_add(&avoid, oc_strdup(oc_json_str(fn, "name")));
    cJSON *args = cJSON_Parse(oc_json_str(fn, "arguments") ? oc_json_str(fn, "arguments") : "");
    leaves_of(args, 1, &avoid);
    cJSON_Delete(args);
  }
  long end = (long)plen;
  const cJSON *next;
  int after = 0;
  cJSON_ArrayForEach(next, msgs)
  {
    if(next == m) {
      after = 1;
      continue;
    }
    if(after && oc_streq(oc_json_str(next, "role"), "tool") && oc_json_str(next, "content")) {
      long at = locate(P, plen, oc_json_str(next, "content"), cursor, &avoid);
      if(at >= 0)
        end = at;
      break;
    }
  }
  leaves_free(&avoid);
  size_t wlen = end > cursor ? (size_t)(end - cursor) : 0;
  const char *win = P + cursor;
  cJSON_ArrayForEach(tc, calls)
  {
    const cJSON *fn = oc_json_obj(tc, "function");
    const char *name = oc_json_str(fn, "name");
    const char *argtext = oc_json_str(fn, "arguments");
    cJSON *args = argtext ? cJSON_Parse(argtext) : NULL;
    struct leaves vals = { { NULL }, 0 };
    leaves_of(args, 0, &vals);
    const char *missing = NULL;
    char *missing_owned = NULL;
    if(name && find_from(win, wlen, name, 0) < 0)
      missing = name;
    for(size_t i = 0; !missing && i < vals.n; i++)
      if(find_from(win, wlen, vals.items[i], 0) < 0)
        missing = missing_owned = oc_strdup(vals.items[i]);
    if(missing)
      oc_emit(c, OC_R_TEMPLATE_TOOL_CALL_RENDERED,
              OC_AT(.path = "/prompt", .expected = missing, .actual = "absent"),
              "%s: the assistant's call of '%s' is not in the prompt where the assistant's turn "
              "is (missing: '%s')%s", fx, name ? name : "?", missing,
              never_reads(ctx, "tool_calls"));
    /* arguments shown as a JSON string of the JSON text */
    char *esc = argtext ? json_escaped(argtext) : NULL;
    if(esc && find_from(P, plen, esc, 0) >= 0 && find_from(P, plen, argtext, 0) < 0)
      oc_emit(c, OC_R_TEMPLATE_DOUBLE_ENCODED,
              OC_AT(.path = "/prompt", .expected = argtext, .actual = esc),
              "%s: the arguments of the call of '%s' are rendered as a JSON string of their "
              "JSON text (every quote escaped)", fx, name ? name : "?");
    free(esc);
    free(missing_owned);
    leaves_free(&vals);
    cJSON_Delete(args);
  }
}

/* A tool message's content: rendered, as a tool result (not a bare user
 * turn), and not encoded twice. */
static void check_tool_result(struct oc_check *c, const char *P, size_t plen, const char *content,
                              long cursor, long first_user, const char *fx)
{
  long at = find_from(P, plen, content, cursor);
  char *esc = json_escaped(content);
  if(at < 0 && esc && (at = find_from(P, plen, esc, cursor)) >= 0)
    oc_emit(c, OC_R_TEMPLATE_DOUBLE_ENCODED,
            OC_AT(.path = "/prompt", .expected = content, .actual = esc),
            "%s: the tool result is rendered as a JSON string of its JSON text (every quote "
            "escaped): the model reads the result as one string", fx);
  free(esc);
  if(at < 0)
    at = locate(P, plen, content, cursor, NULL);
  if(at < 0) {
    oc_emit(c, OC_R_TEMPLATE_TOOL_RESULT_RENDERED,
            OC_AT(.path = "/prompt", .expected = content, .actual = "absent"),
            "%s: the tool message's content is missing from the prompt: the model never sees "
            "the result", fx);
    return;
  }
  /* What comes right before the result, compared with what comes right
   * before the first user message: the same user-turn opener means the
   * result sits in a user turn of its own, without any tool marker (the
   * Qwen convention <tool_response> inside a user turn is a tool result). */
  if(first_user < 0)
    return;
  size_t k = 0;
  while(k < (size_t)first_user && k < (size_t)at && P[first_user - 1 - (long)k] == P[at - 1 - (long)k])
    k++;
  const char *common = P + first_user - (long)k;
  if(k && (has_ci(common, k, "user") || has_ci(common, k, "human")))
    oc_emit(c, OC_R_TEMPLATE_TOOL_RESULT_RENDERED,
            OC_AT(.path = "/prompt", .expected = "a tool result", .actual = "a user turn"),
            "%s: the tool message's content is rendered as a plain user turn (the same opener as "
            "the user's messages, no tool marker): the model takes the result for the user's words",
            fx);
}

/* ---- reasoning sent back ------------------------------------------------------------ */

const char *oc_templates_reasoning_name(enum oc_template_reasoning state)
{
  switch(state) {
  case OC_TPL_REASONING_KEPT: return "kept";
  case OC_TPL_REASONING_DROPPED: return "dropped";
  case OC_TPL_REASONING_UNREAD: return "unread";
  case OC_TPL_REASONING_NONE: break;
  }
  return NULL;
}

/* Does a template's text deal with reasoning: think markup (<think>,
 * </think>, <thinking>, [THINK]), or "reasoning" / "thinking" as part of
 * a name (reasoning_content, enable_thinking, message.thinking,
 * 'thinking' in message, reasoning_effort)?  The words in prose ("a
 * logical chain of reasoning", as GigaChat's and Devstral's system
 * prompts say) are not a reasoning model's template. */
static int reads_reasoning(const char *t)
{
  static const char *const words[] = { "reasoning", "thinking" };
  size_t tl = strlen(t);
  if(has_ci(t, tl, "think>") || has_ci(t, tl, "[think]"))
    return 1;
  for(size_t w = 0; w < OC_ARRAY_LEN(words); w++) {
    size_t wl = strlen(words[w]);
    for(size_t i = 0; i + wl <= tl; i++) {
      if(!has_ci(t + i, wl, words[w]))
        continue;
      char before = i ? t[i - 1] : ' ', after = t[i + wl];
      if(before == '_' || before == '.' || before == '\'' || before == '"' || before == '[' ||
         after == '_' || after == '\'' || after == '"')
        return 1;
    }
  }
  return 0;
}

void oc_templates_reasoning(const cJSON *request, const char *prompt, const char *template_text,
                            struct oc_template_reasoning_seen *out)
{
  memset(out, 0, sizeof(*out));
  /* the last assistant turn that sends reasoning back, and what follows it */
  const char *text = NULL, *followed_by = NULL;
  const cJSON *m;
  cJSON_ArrayForEach(m, oc_json_arr(request, "messages"))
  {
    const char *role = oc_json_str(m, "role");
    const char *r = oc_json_str(m, "reasoning_content");
    if(oc_streq(role, "assistant") && r && *r) {
      text = r;
      followed_by = NULL;
    }
    else if(text && !followed_by && oc_streq(role, "tool"))
      followed_by = "tool";
    else if(text && oc_streq(role, "user"))
      followed_by = "user";
  }
  if(!text || !followed_by || !prompt)
    return; /* none sent back, or a trailing turn (a prefill): no history question */
  while(is_space(*text))
    text++;
  size_t n = strlen(text);
  while(n && is_space(text[n - 1]))
    n--;
  if(!n)
    return;
  out->followed_by = followed_by;
  out->template_known = template_text != NULL;
  if(template_text) {
    size_t tl = strlen(template_text);
    out->preserve_switch = has_ci(template_text, tl, "preserve_thinking") ||
                           has_ci(template_text, tl, "clear_thinking") ||
                           has_ci(template_text, tl, "truncate_history_thinking") ||
                           has_ci(template_text, tl, "drop_thinking");
  }
  if(find_n(prompt, strlen(prompt), text, n, 0) >= 0) {
    out->state = OC_TPL_REASONING_KEPT;
    return;
  }
  /* a template that reads no reasoning in any form (no reasoning field,
   * no think markup) is not a reasoning model's: nothing to keep */
  int reads = !template_text || reads_reasoning(template_text);
  out->state = reads ? OC_TPL_REASONING_DROPPED : OC_TPL_REASONING_UNREAD;
}

/* The behaviour worth a word: the reasoning of the turn before a tool
 * result dropped (the prompt cache misses every tool round), and old
 * reasoning kept after a user turn (it stays in the context). */
static void check_reasoning(struct oc_check *c, const cJSON *request, const char *prompt,
                            const struct oc_template_context *ctx, const char *fx)
{
  struct oc_template_reasoning_seen rs;
  oc_templates_reasoning(request, prompt, ctx ? ctx->template_text : NULL, &rs);
  if(rs.state == OC_TPL_REASONING_DROPPED && oc_streq(rs.followed_by, "tool"))
    oc_emit(c, OC_R_TEMPLATE_REASONING_HISTORY,
            OC_AT(.path = "/prompt", .expected = "the reasoning of the turn before the tool result",
                  .actual = "dropped", .severity = rs.template_known ? OC_SEV_WARNING : OC_SEV_INFO),
            "%s: the template drops the reasoning (reasoning_content) of the assistant's turn that "
            "the tool result follows: the next prompt no longer starts with what the server "
            "generated, so the prompt cache misses from that turn on at every tool round (the "
            "whole prompt where the cache cannot be cut back)%s",
            fx,
            !rs.template_known ? "; the template's text is unknown: this matters if the model reasons"
            : rs.preserve_switch ? "; the template has a switch for it: llama-server --reasoning-preserve"
                                 : "; the template has no switch for it (--reasoning-preserve does "
                                   "nothing here): serve one that keeps the reasoning of the turns "
                                   "after the last user message");
  else if(rs.state == OC_TPL_REASONING_KEPT && oc_streq(rs.followed_by, "user"))
    oc_emit(c, OC_R_TEMPLATE_REASONING_HISTORY,
            OC_AT(.path = "/prompt", .expected = "the old reasoning dropped", .actual = "kept",
                  .severity = OC_SEV_INFO),
            "%s: the template keeps the reasoning of a finished turn after a new user message: "
            "every past turn's reasoning stays in the context (more tokens each turn, and a "
            "history the model was trained without, unless --reasoning-preserve asked for it)", fx);
}

void oc_templates_check(struct oc_check *c, const cJSON *request, int status, const char *prompt,
                        const char *error_message, const struct oc_template_context *ctx)
{
  const char *fx = ctx && ctx->fixture ? ctx->fixture : "the conversation";
  const cJSON *msgs = oc_json_arr(request, "messages");
  const cJSON *tools = oc_json_arr(request, "tools");
  const cJSON *m;
  const char *call_id = NULL;
  int unknown = 0;
  cJSON_ArrayForEach(m, msgs)
  {
    const cJSON *calls = oc_json_arr(m, "tool_calls");
    if(calls && !call_id)
      call_id = oc_json_str(cJSON_GetArrayItem(calls, 0), "id");
    if(!known_role(oc_json_str(m, "role")))
      unknown = 1;
  }
  if(status < 200 || status >= 300) {
    check_refusal(c, request, status, error_message, ctx, fx, call_id, unknown);
    return;
  }
  if(!prompt) {
    oc_emit(c, OC_R_TEMPLATE_RENDER,
            OC_AT(.path = "/prompt", .expected = "a string", .actual = "absent"),
            "%s: the render answered without a prompt", fx);
    return;
  }
  size_t plen = strlen(prompt);
  long first_user = -1;
  const char *system = NULL;
  cJSON_ArrayForEach(m, msgs)
  {
    const char *role = oc_json_str(m, "role");
    const char *text = oc_json_str(m, "content");
    if(!text || !*text)
      continue;
    long at = find_from(prompt, plen, text, 0);
    if(oc_streq(role, "system") || oc_streq(role, "developer")) {
      if(!system)
        system = text;
      continue;
    }
    if(oc_streq(role, "user") && first_user < 0)
      first_user = at;
    if(!known_role(role)) {
      if(at < 0)
        oc_emit(c, OC_R_TEMPLATE_UNKNOWN_ROLE,
                OC_AT(.path = "/prompt", .expected = text, .actual = "absent"),
                "%s: the message with role '%s' is silently dropped from the prompt", fx,
                role ? role : "?");
      continue;
    }
    if(oc_streq(role, "user") && at < 0)
      oc_emit(c, OC_R_TEMPLATE_RENDER,
              OC_AT(.path = "/prompt", .expected = text, .actual = "absent"),
              "%s: a user message is missing from the rendered prompt", fx);
  }
  if(system) {
    long at = find_from(prompt, plen, system, 0);
    if(at < 0)
      oc_emit(c, OC_R_TEMPLATE_SYSTEM_KEPT,
              OC_AT(.path = "/prompt", .expected = system, .actual = "absent"),
              "%s: the system prompt is dropped from the rendered prompt", fx);
    else if(first_user >= 0 && at > first_user)
      oc_emit(c, OC_R_TEMPLATE_SYSTEM_MOVED,
              OC_AT(.path = "/prompt", .expected = "the system prompt before the first user turn",
                    .actual = "after it"),
              "%s: the system prompt is moved after the first user turn (byte %ld of the prompt)",
              fx, at);
  }
  /* every offered tool: its name and description */
  const cJSON *t;
  cJSON_ArrayForEach(t, tools)
  {
    const cJSON *fn = oc_json_obj(t, "function");
    const char *name = oc_json_str(fn, "name"), *desc = oc_json_str(fn, "description");
    const char *missing = name && find_from(prompt, plen, name, 0) < 0 ? name
                        : desc && *desc && find_from(prompt, plen, desc, 0) < 0 ? desc : NULL;
    if(missing)
      oc_emit(c, OC_R_TEMPLATE_TOOLS_RENDERED,
              OC_AT(.path = "/prompt", .expected = missing, .actual = "absent"),
              "%s: the offered tool '%s' is not rendered: its %s is missing from the prompt, so "
              "the model cannot know the tool%s", fx, name ? name : "?",
              missing == name ? "name" : "description", never_reads(ctx, "tools"));
  }
  long hdr = tools_header_empty(prompt, plen);
  if(hdr >= 0) {
    char ex[80];
    snprintf(ex, sizeof(ex), "%.60s", prompt + hdr);
    for(char *q = ex; *q; q++)
      if(*q == '\n')
        *q = ' ';
    oc_emit(c, OC_R_TEMPLATE_TOOLS_EMPTY,
            OC_AT(.path = "/prompt", .expected = tools ? "the offered tools under it" : "no tool list",
                  .actual = "an empty tool list", .excerpt = ex),
            "%s: the prompt announces a tool list with nothing in it (byte %ld: \"%s…\")%s", fx,
            hdr, ex, tools ? "" : "; no tools were passed");
  }
  /* tool calls and their results, in conversation order */
  long cursor = 0;
  cJSON_ArrayForEach(m, msgs)
  {
    const char *role = oc_json_str(m, "role");
    const char *text = oc_json_str(m, "content");
    if(text && *text && !oc_streq(role, "tool")) {
      long at = find_from(prompt, plen, text, cursor);
      if(at >= 0)
        cursor = at + (long)strlen(text);
    }
    if(oc_json_arr(m, "tool_calls"))
      check_tool_calls(c, prompt, plen, msgs, m, cursor, fx, ctx);
    if(oc_streq(role, "tool") && text && *text)
      check_tool_result(c, prompt, plen, text, cursor, first_user, fx);
  }
  /* A date from the server's clock: the same conversation renders
   * differently tomorrow (and misses the cache). */
  char date[48];
  char *rtext = oc_json_print(request);
  if(server_date(prompt, plen, ctx, rtext, date, sizeof(date)))
    oc_emit(c, OC_R_TEMPLATE_SERVER_DATE,
            OC_AT(.path = "/prompt", .expected = "no date", .actual = date),
            "%s: the template stamps the server's current date into the prompt (\"%s\"): "
            "renders are not reproducible from one day to the next", fx, date);
  free(rtext);
  check_reasoning(c, request, prompt, ctx, fx);
}

/* The prompt's tokens as the server counts them (POST /tokenize, as the
 * context probe asks), or -1 when the target cannot say (no such
 * endpoint, not recorded). */
static long count_tokens(struct oc_target *t, const struct oc_identify_options *o,
                         const char *prompt)
{
  int oom = 0;
  cJSON *req = cJSON_CreateObject();
  oc_json_put_str(&oom, req, "content", prompt);
  oc_json_put(&oom, req, "add_special", cJSON_CreateTrue());
  oc_json_put(&oom, req, "parse_special", cJSON_CreateTrue());
  char *body = oom ? NULL : oc_json_print(req); /* no body: the target cannot say */
  cJSON_Delete(req);
  int status = 0;
  char *resp = NULL, err[600];
  size_t len = 0;
  long n = -1;
  struct oc_headers h;
  oc_headers_init(&h);
  if(body && !oc_target_fetch(t, o, "POST", "/tokenize", body, &status, &h, &resp, &len, err,
                              sizeof(err)) && status == 200) {
    cJSON *doc = oc_json_parse(resp, len, NULL);
    const cJSON *tokens = oc_json_arr(doc, "tokens");
    if(tokens)
      n = cJSON_GetArraySize(tokens);
    cJSON_Delete(doc);
  }
  oc_headers_free(&h);
  free(resp);
  free(body);
  return n;
}

/* Is a non-2xx answer to a render the template's doing?  A render that
 * fails comes back as the request's fault (400, 422: llama-server's
 * invalid_request_error carrying the Jinja exception) or the server's
 * (500: its server_error); any other status says nothing about the
 * template (a key refused, a proxy or a loading model's 502/503/504, a
 * limit's 408/413/429, a redirect), and blaming the template for it sent
 * people reading a chat template for an API key's fault. */
static int render_status(int status)
{
  return status == 400 || status == 422 || status == 500;
}

/* A non-2xx answer that is not the template's, said as the HTTP failure
 * it is: "POST /apply-template answered HTTP 401: <its message>", with
 * the key to check after a 401 or 403. */
static void http_failure(const struct oc_target *t, int status, const struct oc_headers *h,
                         const cJSON *parsed, char *out, size_t outlen)
{
  const cJSON *e = oc_json_get(parsed, "error");
  const char *msg = cJSON_IsString(e) ? e->valuestring : oc_json_str(e, "message");
  char line[320], media[128], hint[300] = "";
  if(msg)
    one_line(msg, line, sizeof(line));
  else {
    const char *ct = oc_headers_get(h, "Content-Type");
    oc_media_type(ct ? ct : "", media, sizeof(media));
    snprintf(line, sizeof(line), "(%s)", media[0] ? media : "no Content-Type");
  }
  if(status == 401 || status == 403)
    oc_target_key_hint(t, hint, sizeof(hint));
  snprintf(out, outlen, "POST /apply-template answered HTTP %d%s%s%s%s", status, msg ? ": " : " ",
           line, hint[0] ? "; " : "", hint);
}

/* One (target, fixture) result object in the results schema's shape. */
static cJSON *render_one(struct oc_target *t, const cJSON *fx, size_t index,
                         const struct oc_identify_options *o)
{
  const char *name = oc_json_str(fx, "name");
  const char *desc = oc_json_str(fx, "description");
  const cJSON *request = oc_json_get(fx, "request");
  char *body = request ? oc_json_print(request) : NULL;
  int status = 0;
  char *resp = NULL, err[600] = "";
  size_t len = 0;
  struct oc_headers h;
  oc_headers_init(&h);
  struct oc_findings f;
  oc_findings_init(&f);
  struct oc_check c;
  oc_check_init(&c, &f, t->profile);
  c.allow = &t->allow;
  uint64_t t0 = oc_now_ns();
  struct oc_fetch_meta meta;
  int rc = body ? oc_target_fetch_ex(t, o, "POST", "/apply-template", body, &status, &h, &resp,
                                     &len, &meta, err, sizeof(err))
                : OC_ENOMEM;
  const char *result_status = "pass", *reason = NULL;
  char why[800];
  cJSON *parsed = resp ? oc_json_parse(resp, len, NULL) : NULL;
  if(rc == OC_ENOTFOUND) {
    result_status = "skip";
    reason = "not recorded";
  }
  else if(rc) {
    result_status = "error";
    reason = err;
  }
  else if(oc_headers_get(&h, "X-Oacheck-Unmatched")) {
    /* oacheck serve's 404 for a request it has no recording of, as run
     * reads it: a miss of the recordings, not a server without the
     * endpoint (the other fixtures were rendered there) */
    result_status = "skip";
    reason = "not recorded";
  }
  else if(status == 404 || status == 405 || status == 501) {
    /* vLLM, OpenAI, Ollama: no template endpoint at all */
    result_status = "skip";
    reason = "unsupported: the target has no POST /apply-template";
  }
  else if((status < 200 || status >= 300) && !render_status(status)) {
    result_status = "error";
    http_failure(t, status, &h, parsed, why, sizeof(why));
    reason = why;
  }
  else {
    const char *emsg = oc_json_str(oc_json_get(parsed, "error"), "message");
    struct oc_template_context ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.fixture = name;
    ctx.template_text = t->chat_template;
    /* "today" is the server's: its Date header, else when the exchange
     * was recorded, else (live) this run's clock */
    if(!oc_templates_set_day(&ctx, oc_headers_get(&h, "Date")) &&
       !oc_templates_set_day(&ctx, meta.recorded_at) && t->live) {
      char now[32];
      oc_now_rfc3339(now);
      oc_templates_set_day(&ctx, now);
    }
    oc_templates_check(&c, request, status, oc_json_str(parsed, "prompt"), emsg, &ctx);
    if(oc_findings_worst(&f) == OC_SEV_ERROR)
      result_status = "fail";
  }
  int oom = c.oom;
  cJSON *r = cJSON_CreateObject();
  oc_json_put_str(&oom, r, "target", t->name);
  oc_json_put_str(&oom, r, "suite", "templates");
  oc_json_put_str(&oom, r, "case", name ? name : "?");
  oc_json_put(&oom, r, "index", cJSON_CreateNumber((double)index));
  oc_json_put_str(&oom, r, "description", desc);
  oc_json_put_str(&oom, r, "status", result_status);
  oc_json_put_str_or_null(&oom, r, "reason", reason);
  oc_json_put_str(&oom, r, "profile", t->profile ? t->profile->name : "openai");
  oc_json_put(&oom, r, "duration_ms", cJSON_CreateNumber((double)(oc_now_ns() - t0) / 1e6));
  cJSON *fs = oc_json_put(&oom, r, "findings", cJSON_CreateArray());
  for(size_t i = 0; !oom && i < f.count; i++)
    oc_json_put(&oom, fs, NULL, oc_finding_json(&f.items[i]));
  cJSON *rq = oc_json_put(&oom, r, "request", cJSON_CreateObject());
  oc_json_put_str(&oom, rq, "method", "POST");
  oc_json_put_str(&oom, rq, "path", "/apply-template");
  if(body) {
    cJSON *b = oc_json_put(&oom, rq, "body", oc_body_json(body, strlen(body), OC_CAP_RESULT_BODY));
    if(request)
      oc_json_put(&oom, b, "json", cJSON_Duplicate(request, 1));
  }
  if(status) {
    cJSON *rs = oc_json_put(&oom, r, "response", cJSON_CreateObject());
    oc_json_put(&oom, rs, "status", cJSON_CreateNumber(status));
    oc_json_put(&oom, rs, "headers", oc_headers_json(&h));
    oc_json_put_str_or_null(&oom, rs, "content_type", oc_headers_get(&h, "Content-Type"));
    oc_json_put(&oom, rs, "body", oc_body_json(resp ? resp : "", len, OC_CAP_RESULT_BODY));
    oc_json_put_str(&oom, rs, "source", t->live ? "live" : "recording");
  }
  else
    oc_json_put(&oom, r, "response", cJSON_CreateNull());
  /* the rendered prompt, for the side-by-side view, and its size */
  const char *prompt = oc_json_str(parsed, "prompt");
  if(prompt) {
    oc_json_put_str(&oom, r, "message", prompt);
    cJSON *rd = oc_json_put(&oom, r, "render", cJSON_CreateObject());
    oc_json_put(&oom, rd, "prompt_bytes", cJSON_CreateNumber((double)strlen(prompt)));
    long n = oom ? -1 : count_tokens(t, o, prompt);
    oc_json_put(&oom, rd, "prompt_tokens", n >= 0 ? cJSON_CreateNumber((double)n) : cJSON_CreateNull());
    /* what the template did with the reasoning sent back: its behaviour,
     * reported whatever the verdict */
    struct oc_template_reasoning_seen rs;
    oc_templates_reasoning(request, prompt, t->chat_template, &rs);
    if(rs.state != OC_TPL_REASONING_NONE) {
      cJSON *rr = oc_json_put(&oom, rd, "reasoning", cJSON_CreateObject());
      oc_json_put_str(&oom, rr, "followed_by", rs.followed_by);
      oc_json_put_str(&oom, rr, "state", oc_templates_reasoning_name(rs.state));
    }
  }
  if(oom) {
    cJSON_Delete(r);
    r = NULL;
  }
  cJSON_Delete(parsed);
  oc_findings_free(&f);
  oc_headers_free(&h);
  free(resp);
  free(body);
  return r;
}

cJSON *oc_templates_run(struct oc_target *targets, size_t ntargets, const cJSON *fixtures,
                        const struct oc_identify_options *o)
{
  int oom = 0;
  cJSON *all = cJSON_CreateArray();
  const cJSON *list = oc_json_arr(fixtures, "fixtures");
  for(size_t i = 0; all && !oom && i < ntargets; i++) {
    const cJSON *fx;
    size_t k = 0;
    cJSON_ArrayForEach(fx, list)
    {
      /* an unreachable target is not asked again for every fixture */
      if(!targets[i].reachable && targets[i].live) {
        cJSON *r = oc_json_put(&oom, all, NULL, cJSON_CreateObject());
        oc_json_put_str(&oom, r, "target", targets[i].name);
        oc_json_put_str(&oom, r, "suite", "templates");
        oc_json_put_str(&oom, r, "case", oc_json_str(fx, "name") ? oc_json_str(fx, "name") : "?");
        oc_json_put(&oom, r, "index", cJSON_CreateNumber((double)k++));
        oc_json_put_str(&oom, r, "status", "error");
        oc_json_put_str(&oom, r, "reason", targets[i].error ? targets[i].error : "unreachable");
        oc_json_put(&oom, r, "findings", cJSON_CreateArray());
        continue;
      }
      /* a result that could not be built fails the whole run: a matrix
       * with a hole would read as a fixture that was never tried */
      oc_json_put(&oom, all, NULL, render_one(&targets[i], fx, k++, o));
    }
  }
  if(oom) {
    cJSON_Delete(all);
    return NULL;
  }
  /* prompts are the server's text, printed by --show and kept in reports */
  oc_secret_mask_json(all);
  return all;
}
