/* regex.h — ECMA-262-flavoured regular expressions on top of PCRE2: what
 * JSON Schema's "pattern" and a suite's expectations mean by a regex.
 * Unicode (UTF-8) always, no implicit anchors, "$" only at the very end,
 * "\d" and "\w" ASCII-only, "\s" with ECMA's whitespace set, "\u" escapes,
 * a bounded match budget so no pattern can hang the program.  This is the
 * only file besides regex.c that knows PCRE2 exists (it does not even
 * include its header). */
#ifndef OC_REGEX_H
#define OC_REGEX_H

#include <stddef.h>

struct oc_regex;
/* Per-thread scratch space for matching (PCRE2 match data); lets a hot loop
 * match without allocating. */
struct oc_regex_scratch;

/* Compile pattern[0..len).  Returns NULL with err filled ("missing ) at
 * offset 3") when the pattern is not a valid ECMA-262 regex or memory runs
 * out.  Free with oc_regex_free. */
struct oc_regex *oc_regex_compile(const char *pattern, size_t len, char *err, size_t errlen);
/* The same, saying why: OC_OK with *out set, OC_EPARSE (the pattern) or
 * OC_ENOMEM (memory ran out: the pattern may be fine). */
int oc_regex_compile_rc(const char *pattern, size_t len, struct oc_regex **out, char *err,
                        size_t errlen);
/* Is pattern[0..len) a valid ECMA-262 (unicode mode) regex?  */
int oc_regex_valid(const char *pattern, size_t len);
/* Does re match anywhere in s[0..len)?  1 yes, 0 no, negative OC_E* when
 * the subject is not UTF-8 or the match budget ran out.  scratch may be
 * NULL (allocates per call); otherwise *scratch is created on first use
 * and must be released with oc_regex_scratch_free. */
int oc_regex_match(const struct oc_regex *re, const char *s, size_t len,
                   struct oc_regex_scratch **scratch);
/* The source text as given; borrowed. */
const char *oc_regex_source(const struct oc_regex *re);
void oc_regex_free(struct oc_regex *re);
void oc_regex_scratch_free(struct oc_regex_scratch *sc);

#endif
