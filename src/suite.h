/* suite.h — suite files: loading and validating them against
 * schemas/suite.schema.json (errors name file:line:column), finding the
 * shipped ones, and turning a case into a concrete request with its
 * variables (${MODEL}, ${env:NAME}, suite and target variables)
 * substituted.  What to expect of the answer is expect.c's; when and
 * where to send it is runner.c's. */
#ifndef OC_SUITE_H
#define OC_SUITE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "headers.h"
#include "rules.h"
#include "util.h"

struct oc_schema;

struct oc_case {
  const char *suite;        /* borrowed from the suite */
  const char *file;         /* the suite's file, borrowed */
  const char *name;         /* borrowed from the document */
  const char *description;
  const cJSON *json;        /* the case object */
  const cJSON *request;
  const cJSON *expect;      /* may be NULL */
  const cJSON *profiles;    /* the case's, else the suite's; may be NULL */
  const cJSON *variables;   /* the suite's variables; may be NULL */
  struct oc_ruleset allow;  /* suite + case allow lists */
  const char **tags;
  size_t ntags;
  size_t order;             /* 0-based position in its suite file */
  int line;                 /* 1-based line of the case's object in file (suite errors) */
  int shipped;              /* its file is the shipped suite of its name: a reproduce
                               command names the suite, not the file */
};

/* What oacheck builds of one request: its size, counted while building
 * (every ${words} and interpolation against what is left), and its
 * nesting.  Where the sizes are static they are checked at load. */
#define OC_CAP_REQUEST (64u << 20)
#define OC_REQUEST_MAX_DEPTH 200
#define OC_WORDS_MAX 1000000L     /* the COUNT of ${words:COUNT:WORD} */

struct oc_suite {
  char *file;               /* the path it was loaded from */
  const char *name;
  const char *description;
  cJSON *doc;               /* owns every borrowed pointer above */
  const cJSON *variables;
  int shipped;              /* file is what oc_suite_resolve(name) finds */
  struct oc_case *cases;
  size_t ncases;
};

struct oc_suite_set {
  struct oc_suite *items;
  size_t count;
};

/* Load and validate one suite file against the compiled suite schema
 * (NULL skips validation).  Errors are appended to err as
 * "FILE:LINE:COL: message" lines.  Returns OC_OK or an error code; on
 * error nothing is added to the set. */
int oc_suite_load(struct oc_suite_set *set, const char *path, const struct oc_schema *schema,
                  struct oc_buf *err);
/* The same for a suite's text already in memory (buf[0..len), borrowed);
 * path names it in errors and becomes the suite's file. */
int oc_suite_load_text(struct oc_suite_set *set, const char *path, const char *buf, size_t len,
                       const struct oc_schema *schema, struct oc_buf *err);
/* SUITE argument to path: an existing file, else a shipped suite's name
 * (DATADIR/suites/NAME.json).  Caller frees; NULL when neither exists. */
char *oc_suite_resolve(const char *arg);
/* Why oc_suite_resolve(arg) found nothing, for an error message: for a
 * path (a '/' or .json) what stat says ("no such file: ARG (reason)");
 * for a name, that no shipped suite has it, the nearest shipped name
 * when one is close, and the shipped names. */
void oc_suite_resolve_why(const char *arg, struct oc_buf *out);
/* Paths of every shipped suite, sorted (caller frees each and the array). */
int oc_suite_shipped(char ***paths, size_t *n);
void oc_suite_set_free(struct oc_suite_set *set);

/* Variables for substitution: looked up in order — the case's target
 * (MODEL, N_CTX, …), the suite's variables, then ${env:NAME}. */
struct oc_vars {
  const cJSON *target;      /* object of NAME → value, may be NULL */
  const cJSON *suite;       /* may be NULL */
  int allow_env;            /* ${env:NAME} reads the environment */
};

/* A concrete request, ready to send or to look up in recordings. */
struct oc_built_request {
  char *method;
  char *path;
  struct oc_headers headers; /* the case's headers (auth is added by the runner) */
  char *body;               /* NULL when none */
  size_t body_len;
  cJSON *body_json;         /* the substituted JSON body, or NULL (raw or none) */
};

/* Substitute variables in the case's request.  A string that is exactly
 * one "${NAME}" takes the variable's JSON value (a number stays a number);
 * otherwise values are interpolated as text.  Returns OC_OK;
 * OC_ENOTFOUND for an undefined variable (err names it: the target lacks
 * what the case needs); OC_ETOOBIG when the request would pass
 * OC_CAP_REQUEST (stopped while building, before it is built) and
 * OC_EUSAGE for a count over OC_WORDS_MAX or nesting over
 * OC_REQUEST_MAX_DEPTH (both the suite's fault: a suite error); OC_ENOMEM. */
int oc_suite_build_request(const struct oc_case *c, const struct oc_vars *vars,
                           struct oc_built_request *out, char *err, size_t errlen);
void oc_built_request_free(struct oc_built_request *r);

/* Is NAME one of the variables a target can define (MODEL, N_CTX,
 * N_CTX_HALF, CTX_WORDS_UNDER, CTX_WORDS_AT, CTX_WORDS_OVER)?  A suite
 * may reference these and its own "variables", and no other name. */
int oc_suite_target_var(const char *name);

/* Does the case apply to a target with this profile? */
int oc_case_applies(const struct oc_case *c, const char *profile);

#endif
