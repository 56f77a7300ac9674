/* rulefile.h — the rule test file: one exchange (the request, the response
 * bytes as received) and the findings it must produce, in a text file a
 * person writes and reads (tests/rules/README.md is the format's
 * definition).  This module reads such a file into a cassette and a list
 * of expected findings and compares findings with them; running the
 * exchange is response.c's, and which files exist is the caller's
 * business (tests/unit/check_rulefiles.c, `oacheck check`). */
#ifndef OC_RULEFILE_H
#define OC_RULEFILE_H

#include <stddef.h>
#include <stdint.h>

#include "cassette.h"
#include "finding.h"
#include "rules.h"
#include "util.h"

/* The extension every rule test file has. */
#define OC_RULEFILE_EXT ".test"

/* One "finding" line: the rule, its severity and where, exactly. */
struct oc_rulefile_finding {
  enum oc_rule_id rule;
  enum oc_severity severity;
  long chunk;              /* -1: the finding has no chunk */
  int64_t byte;            /* -1: the finding has no byte */
  char *path;              /* NULL: the finding has no JSON pointer */
  int line;                /* where it is written, for messages */
};

struct oc_rulefile {
  char *file;              /* as given to oc_rulefile_read, or the name parsed */
  char *what;              /* "what": what the response does; may be NULL */
  const struct oc_profile *profile; /* "profile"; default openai */
  int partial;             /* "partial yes": a capture cut by whoever made it */
  char *expect_case;       /* "case": a suite case's "expect" object (JSON text), or NULL */
  struct oc_ruleset related;  /* "related": rules that may fire too, anyhow */
  struct oc_ruleset listed;   /* the rules named by "finding" lines */
  /* "breaks": the clients (a bit per enum oc_client_id) CLIENT-BREAKS
   * findings name, exactly, whatever their severity and place */
  unsigned breaks;
  int breaks_given;
  struct oc_rulefile_finding *findings;
  size_t nfindings;
  size_t afindings;
  /* The exchange: request (method, path, body) and response (status,
   * headers, body).  "timing MS" sets timing_recorded, with the head and
   * the whole body arriving MS milliseconds after the request was sent. */
  struct oc_cassette ex;
};

/* Fill *rf as empty; cannot fail. */
void oc_rulefile_init(struct oc_rulefile *rf);
void oc_rulefile_free(struct oc_rulefile *rf);

/* Parse a rule test file's bytes; name is used in messages ("NAME:LINE:
 * what is wrong").  On failure *rf is left empty and err says where. */
int oc_rulefile_parse(const char *buf, size_t len, const char *name, struct oc_rulefile *rf,
                      char *err, size_t errlen);
/* Read and parse path. */
int oc_rulefile_read(const char *path, struct oc_rulefile *rf, char *err, size_t errlen);

/* Does the text look like a rule test file (directives, then a
 * "--- response" line)?  For content sniffing (capture.c). */
int oc_rulefile_sniff(const char *buf, size_t len);

/* Decode the section escapes of the format into *out (capped at
 * OC_CAP_BODY): "\x{HH HH*N …}" bytes in hex (N repeats), and a
 * backslash at the end of a line, which removes itself and the newline.
 * Everything else is copied as it is.  name and line place errors. */
int oc_rulefile_unescape(const char *p, size_t n, struct oc_buf *out, const char *name,
                         int line, char *err, size_t errlen);

/* Compare findings f with what rf expects: every finding of a listed rule
 * matches one "finding" line (rule, severity, chunk, byte, path) and every
 * line is matched once; rules in "related" may fire anyhow; with "breaks",
 * CLIENT-BREAKS findings name exactly those clients; nothing else may
 * fire; every finding has a message.  Returns 0 when they agree, else
 * the number of disagreements, each written as one line into *why. */
size_t oc_rulefile_compare(const struct oc_rulefile *rf, const struct oc_findings *f,
                           struct oc_buf *why);

/* Every *.test file under dir (one level of subdirectories: dir/RULE/x.test),
 * sorted, appended to *paths / *n (caller frees each and the array). */
int oc_rulefile_list(const char *dir, char ***paths, size_t *n, char *err, size_t errlen);

#endif
