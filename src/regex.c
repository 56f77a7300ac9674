/* regex.c — ECMA-262 patterns run by PCRE2.  A pattern is first rewritten
 * where the two dialects disagree (\s, \S, ., \v, \0, \xHH, \uXXXX and
 * surrogate pairs, a literal '[' inside a class), escapes that ECMA-262
 * rejects in unicode mode are refused, and the result is compiled once
 * (JIT when available) with a match budget.  Callers never see PCRE2. */
#include "config.h"
#include "regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Enough for any sane schema pattern; bounds the rewritten text. */
#define OC_CAP_REGEX (256u << 10)
/* Backtracking budget per match: a catastrophic pattern fails instead of
 * hanging the validator. */
#define OC_REGEX_MATCH_LIMIT 2000000u
#define OC_REGEX_DEPTH_LIMIT 10000u

struct oc_regex {
  pcre2_code *code;
  pcre2_match_context *mctx;
  char *source;
};

struct oc_regex_scratch {
  pcre2_match_data *md;
};

/* ECMA-262 WhiteSpace and LineTerminator code points beyond ASCII's. */
#define ECMA_WS "\\t\\n\\x{0b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}"

/* Read exactly n hex digits at p; -1 when they are not there. */
static long hexn(const char *p, size_t avail, size_t n)
{
  if(avail < n)
    return -1;
  long v = 0;
  for(size_t i = 0; i < n; i++) {
    int h = oc_hexval(p[i]);
    if(h < 0)
      return -1;
    v = v * 16 + h;
  }
  return v;
}

/* ECMA-262 spells Unicode properties with long names and "Name=Value";
 * PCRE2 wants the short general-category names and bare script names. */
static const struct {
  const char *ecma, *pcre;
} gc_names[] = {
  { "Letter", "L" }, { "Cased_Letter", "L&" }, { "Uppercase_Letter", "Lu" },
  { "Lowercase_Letter", "Ll" }, { "Titlecase_Letter", "Lt" }, { "Modifier_Letter", "Lm" },
  { "Other_Letter", "Lo" }, { "Mark", "M" }, { "Combining_Mark", "M" }, { "Nonspacing_Mark", "Mn" },
  { "Spacing_Mark", "Mc" }, { "Enclosing_Mark", "Me" }, { "Number", "N" },
  { "Decimal_Number", "Nd" }, { "digit", "Nd" }, { "Letter_Number", "Nl" }, { "Other_Number", "No" },
  { "Punctuation", "P" }, { "punct", "P" }, { "Connector_Punctuation", "Pc" },
  { "Dash_Punctuation", "Pd" }, { "Open_Punctuation", "Ps" }, { "Close_Punctuation", "Pe" },
  { "Initial_Punctuation", "Pi" }, { "Final_Punctuation", "Pf" }, { "Other_Punctuation", "Po" },
  { "Symbol", "S" }, { "Math_Symbol", "Sm" }, { "Currency_Symbol", "Sc" },
  { "Modifier_Symbol", "Sk" }, { "Other_Symbol", "So" }, { "Separator", "Z" },
  { "Space_Separator", "Zs" }, { "Line_Separator", "Zl" }, { "Paragraph_Separator", "Zp" },
  { "Other", "C" }, { "Control", "Cc" }, { "cntrl", "Cc" }, { "Format", "Cf" },
  { "Surrogate", "Cs" }, { "Private_Use", "Co" }, { "Unassigned", "Cn" },
};

/* p[*i] is 'p' or 'P' after a backslash: copy \p{...} with its name
 * translated, leaving *i on the closing brace. */
static int property_escape(const char *p, size_t n, size_t *i, struct oc_buf *out, char *err,
                           size_t errlen)
{
  size_t at = *i;
  if(at + 1 >= n || p[at + 1] != '{') {
    snprintf(err, errlen, "\\%c at offset %zu needs {Name}", p[at], at - 1);
    return OC_EPARSE;
  }
  const char *close = memchr(p + at + 2, '}', n - at - 2);
  if(!close) {
    snprintf(err, errlen, "unterminated \\%c{ at offset %zu", p[at], at - 1);
    return OC_EPARSE;
  }
  const char *name = p + at + 2;
  size_t len = (size_t)(close - name);
  const char *eq = memchr(name, '=', len);
  if(eq) { /* General_Category=X, gc=X, Script=X, sc=X, Script_Extensions=X, scx=X */
    size_t kl = (size_t)(eq - name);
    int scx = (kl == 3 && memcmp(name, "scx", 3) == 0) || (kl == 17 && memcmp(name, "Script_Extensions", 17) == 0);
    len -= kl + 1;
    name = eq + 1;
    if(scx) {
      *i = (size_t)(close - p);
      return oc_buf_printf(out, "\\%c{scx:%.*s}", p[at], (int)len, name);
    }
  }
  const char *mapped = NULL;
  for(size_t k = 0; k < sizeof(gc_names) / sizeof(gc_names[0]); k++)
    if(strlen(gc_names[k].ecma) == len && memcmp(gc_names[k].ecma, name, len) == 0)
      mapped = gc_names[k].pcre;
  *i = (size_t)(close - p);
  if(mapped)
    return oc_buf_printf(out, "\\%c{%s}", p[at], mapped);
  return oc_buf_printf(out, "\\%c{%.*s}", p[at], (int)len, name);
}

/* Rewrite an ECMA-262 pattern into PCRE2 syntax.  Returns OC_OK, or
 * OC_EPARSE with err saying which escape is not ECMA-262. */
static int translate(const char *p, size_t n, struct oc_buf *out, char *err, size_t errlen)
{
  int in_class = 0, rc = OC_OK;
  for(size_t i = 0; i < n && !rc; i++) {
    char c = p[i];
    if(c == '\\') {
      if(i + 1 >= n) {
        snprintf(err, errlen, "trailing backslash at offset %zu", i);
        return OC_EPARSE;
      }
      char d = p[++i];
      switch(d) {
      case 's':
        rc = oc_buf_adds(out, in_class ? ECMA_WS : "[" ECMA_WS "]");
        break;
      case 'S':
        rc = oc_buf_adds(out, in_class ? "\\S" : "[^" ECMA_WS "]");
        break;
      case 'v':
        rc = oc_buf_adds(out, "\\x{0b}");
        break;
      case '0':
        if(i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '9') {
          snprintf(err, errlen, "octal escape at offset %zu is not ECMA-262", i - 1);
          return OC_EPARSE;
        }
        rc = oc_buf_adds(out, "\\x{0}");
        break;
      case 'x': {
        long v = hexn(p + i + 1, n - i - 1, 2);
        if(v < 0) {
          snprintf(err, errlen, "\\x at offset %zu needs two hex digits", i - 1);
          return OC_EPARSE;
        }
        rc = oc_buf_printf(out, "\\x{%lx}", v);
        i += 2;
        break;
      }
      case 'u': {
        long v;
        if(i + 1 < n && p[i + 1] == '{') {
          size_t j = i + 2;
          v = 0;
          while(j < n && p[j] != '}' && oc_hexval(p[j]) >= 0 && v <= 0x10FFFF)
            v = v * 16 + oc_hexval(p[j++]);
          if(j >= n || p[j] != '}' || j == i + 2 || v > 0x10FFFF) {
            snprintf(err, errlen, "bad \\u{...} escape at offset %zu", i - 1);
            return OC_EPARSE;
          }
          i = j;
        }
        else {
          v = hexn(p + i + 1, n - i - 1, 4);
          if(v < 0) {
            snprintf(err, errlen, "\\u at offset %zu needs four hex digits", i - 1);
            return OC_EPARSE;
          }
          i += 4;
          /* a surrogate pair written as two escapes is one code point */
          if(v >= 0xD800 && v <= 0xDBFF && i + 6 < n + 0 && p[i + 1] == '\\' && p[i + 2] == 'u') {
            long lo = hexn(p + i + 3, n - i - 3, 4);
            if(lo >= 0xDC00 && lo <= 0xDFFF) {
              v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
              i += 6;
            }
          }
          if(v >= 0xD800 && v <= 0xDFFF) {
            snprintf(err, errlen, "lone surrogate \\u%04lx in pattern", v);
            return OC_EPARSE;
          }
        }
        rc = oc_buf_printf(out, "\\x{%lx}", v);
        break;
      }
      case 'c':
        if(i + 1 >= n || !((p[i + 1] >= 'a' && p[i + 1] <= 'z') || (p[i + 1] >= 'A' && p[i + 1] <= 'Z'))) {
          snprintf(err, errlen, "\\c at offset %zu needs a letter", i - 1);
          return OC_EPARSE;
        }
        rc = oc_buf_printf(out, "\\x{%x}", (unsigned)(p[i + 1] & 0x1F));
        i++;
        break;
      case 'p':
      case 'P':
        rc = property_escape(p, n, &i, out, err, errlen);
        if(rc == OC_EPARSE)
          return rc;
        break;
      case 'd': case 'D': case 'w': case 'W': case 'b': case 'B':
      case 'f': case 'n': case 'r': case 't': case 'k':
      case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
        rc = oc_buf_addc(out, '\\');
        if(!rc)
          rc = oc_buf_addc(out, d);
        break;
      default:
        if((d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z') || (unsigned char)d >= 0x80) {
          snprintf(err, errlen, "\\%c at offset %zu is not an ECMA-262 escape", d, i - 1);
          return OC_EPARSE;
        }
        /* identity escape of a syntax character */
        rc = oc_buf_addc(out, '\\');
        if(!rc)
          rc = oc_buf_addc(out, d);
      }
      continue;
    }
    if(in_class) {
      if(c == ']')
        in_class = 0;
      else if(c == '[') { /* literal in ECMA; POSIX class opener in PCRE2 */
        rc = oc_buf_adds(out, "\\[");
        continue;
      }
      rc = oc_buf_addc(out, c);
      continue;
    }
    if(c == '[') {
      in_class = 1;
      rc = oc_buf_addc(out, c);
      if(!rc && i + 1 < n && p[i + 1] == '^')
        rc = oc_buf_addc(out, p[++i]);
      /* "[]" and "[^]" are legal ECMA classes (PCRE2_ALLOW_EMPTY_CLASS) */
      if(!rc && i + 1 < n && p[i + 1] == ']') {
        rc = oc_buf_addc(out, p[++i]);
        in_class = 0;
      }
      continue;
    }
    if(c == '(' && i + 1 < n && p[i + 1] == '?') {
      /* ECMA-262 groups: (?:  (?=  (?!  (?<=  (?<!  (?<name> ; no inline
       * flags, comments or Python's (?P...) */
      char g = i + 2 < n ? p[i + 2] : '\0';
      char h = i + 3 < n ? p[i + 3] : '\0';
      int ok = g == ':' || g == '=' || g == '!' ||
               (g == '<' && (h == '=' || h == '!' || (h >= 'a' && h <= 'z') || (h >= 'A' && h <= 'Z') ||
                             h == '_' || h == '$'));
      if(!ok) {
        snprintf(err, errlen, "group \"(?%c\" at offset %zu is not ECMA-262", g ? g : ' ', i);
        return OC_EPARSE;
      }
    }
    if(c == '.') {
      rc = oc_buf_adds(out, "[^\\n\\r\\x{2028}\\x{2029}]");
      continue;
    }
    rc = oc_buf_addc(out, c);
  }
  if(rc) {
    snprintf(err, errlen, "%s", rc == OC_ENOMEM ? "out of memory" : "pattern too long");
    return rc == OC_ENOMEM ? OC_ENOMEM : OC_EPARSE;
  }
  return OC_OK;
}

int oc_regex_compile_rc(const char *pattern, size_t len, struct oc_regex **out, char *err,
                        size_t errlen)
{
  struct oc_regex *re = NULL;
  struct oc_buf t;
  oc_buf_init(&t, OC_CAP_REGEX);
  int rc = translate(pattern, len, &t, err, errlen);
  if(rc)
    goto out;
  rc = OC_ENOMEM;
  re = calloc(1, sizeof(*re));
  if(!re || !(re->source = oc_strndup(pattern, len))) {
    snprintf(err, errlen, "out of memory");
    goto fail;
  }
  int ecode = 0;
  PCRE2_SIZE eoff = 0;
  re->code = pcre2_compile((PCRE2_SPTR)oc_buf_str(&t), t.len,
                           PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_ALLOW_EMPTY_CLASS |
                               PCRE2_NEVER_BACKSLASH_C,
                           &ecode, &eoff, NULL);
  if(!re->code) {
    PCRE2_UCHAR msg[160];
    pcre2_get_error_message(ecode, msg, sizeof(msg));
    snprintf(err, errlen, "%s", (const char *)msg);
    if(ecode != PCRE2_ERROR_HEAP_FAILED)
      rc = OC_EPARSE;
    goto fail;
  }
  (void)pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE); /* optional speed-up */
  re->mctx = pcre2_match_context_create(NULL);
  if(!re->mctx) {
    snprintf(err, errlen, "out of memory");
    goto fail;
  }
  pcre2_set_match_limit(re->mctx, OC_REGEX_MATCH_LIMIT);
  pcre2_set_depth_limit(re->mctx, OC_REGEX_DEPTH_LIMIT);
  rc = OC_OK;
  goto out;
fail:
  oc_regex_free(re);
  re = NULL;
out:
  oc_buf_free(&t);
  *out = re;
  return rc;
}

struct oc_regex *oc_regex_compile(const char *pattern, size_t len, char *err, size_t errlen)
{
  struct oc_regex *re;
  oc_regex_compile_rc(pattern, len, &re, err, errlen);
  return re;
}

int oc_regex_valid(const char *pattern, size_t len)
{
  char err[200];
  struct oc_regex *re = oc_regex_compile(pattern, len, err, sizeof(err));
  oc_regex_free(re);
  return re != NULL;
}

int oc_regex_match(const struct oc_regex *re, const char *s, size_t len,
                   struct oc_regex_scratch **scratch)
{
  struct oc_regex_scratch local = { NULL }, *sc = &local;
  if(scratch) {
    if(!*scratch) {
      *scratch = calloc(1, sizeof(**scratch));
      if(!*scratch)
        return -OC_ENOMEM;
    }
    sc = *scratch;
  }
  if(!sc->md) {
    sc->md = pcre2_match_data_create(1, NULL);
    if(!sc->md)
      return -OC_ENOMEM;
  }
  int r = pcre2_match(re->code, (PCRE2_SPTR)s, len, 0, 0, sc->md, re->mctx);
  if(sc == &local)
    pcre2_match_data_free(local.md);
  if(r >= 0)
    return 1;
  if(r == PCRE2_ERROR_NOMATCH)
    return 0;
  if(r == PCRE2_ERROR_MATCHLIMIT || r == PCRE2_ERROR_DEPTHLIMIT || r == PCRE2_ERROR_HEAPLIMIT)
    return -OC_ETOOBIG;
  if(r == PCRE2_ERROR_NOMEMORY)
    return -OC_ENOMEM;
  return -OC_EPARSE; /* invalid UTF-8 in the subject, mostly */
}

const char *oc_regex_source(const struct oc_regex *re)
{
  return re->source;
}

void oc_regex_free(struct oc_regex *re)
{
  if(!re)
    return;
  pcre2_code_free(re->code);
  pcre2_match_context_free(re->mctx);
  free(re->source);
  free(re);
}

void oc_regex_scratch_free(struct oc_regex_scratch *sc)
{
  if(!sc)
    return;
  pcre2_match_data_free(sc->md);
  free(sc);
}
