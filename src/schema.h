/* schema.h — JSON Schema (draft 2020-12, and draft-07 when $schema says
 * so): compile a schema once into an immutable form, then validate many
 * instances against it, reporting every failure with its instance path,
 * keyword location, a message a person understands and the instance byte.
 * Reading JSON is left to jdoc.h (instances) and cJSON (schemas); remote
 * references resolve only from documents registered here, never over the
 * network.  ECMA-262-style regular expressions live in regex.h. */
#ifndef OC_SCHEMA_H
#define OC_SCHEMA_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "jdoc.h"

/* URI -> schema documents.  The official draft 2020-12 (with its
 * vocabulary meta-schemas) and draft-07 meta-schemas are known without
 * being added: they are read from the data directory (schemas/meta/) the
 * first time a reference needs them. */
struct oc_schema_registry;

/* A new, empty registry; NULL on ENOMEM.  Free with oc_schema_registry_free. */
struct oc_schema_registry *oc_schema_registry_new(void);
/* Register doc under uri (an absolute URI; a trailing empty fragment "#" is
 * ignored).  doc is taken in every case (freed by the registry, also on
 * failure).  $id values inside doc are honoured when it is compiled.
 * Returns OC_OK, or an OC_E* code with err filled. */
int oc_schema_registry_add(struct oc_schema_registry *r, const char *uri, cJSON *doc,
                           char *err, size_t errlen);
/* Parse the file at path and register it under uri (NULL: the document's
 * own $id).  A JSON syntax error reports "path:line:col: ...". */
int oc_schema_registry_add_file(struct oc_schema_registry *r, const char *uri,
                                const char *path, char *err, size_t errlen);
/* Register every *.json file under dir (recursively) at base_uri + its
 * path relative to dir ("http://localhost:1234/" + "draft7/name.json"). */
int oc_schema_registry_add_dir(struct oc_schema_registry *r, const char *dir,
                               const char *base_uri, char *err, size_t errlen);
/* The base URI the shipped schemas/ folder is served at. */
#define OC_SCHEMA_SHIPPED_BASE "https://oacheck.dev/schemas/"
/* Register every shipped schema (DATADIR/schemas, see datadir.h) at
 * OC_SCHEMA_SHIPPED_BASE + its path, e.g.
 * "https://oacheck.dev/schemas/chat.completion.chunk.json". */
int oc_schema_registry_add_shipped(struct oc_schema_registry *r, char *err, size_t errlen);
/* Register the JSON text buf[0..len) under uri.  Unlike the cJSON entry
 * points this keeps strings that hold U+0000. */
int oc_schema_registry_add_text(struct oc_schema_registry *r, const char *uri,
                                const char *buf, size_t len, char *err, size_t errlen);
/* Accepts NULL. */
void oc_schema_registry_free(struct oc_schema_registry *r);

/* Compile flags. */
#define OC_SCHEMA_FORMAT_ASSERT 1u /* "format" asserts (default: annotation only) */
#define OC_SCHEMA_DRAFT7 2u        /* default dialect draft-07 when $schema is absent */

/* A compiled schema: immutable after compile, so one may be shared by many
 * threads validating at once.  It keeps no pointer into the registry or the
 * cJSON tree it came from: both may be freed right after compiling. */
struct oc_schema;

/* Compile schema (borrowed).  base_uri (may be NULL) is the document's
 * retrieval URI, against which its $id and $refs resolve.  Every reference
 * must resolve now, from the schema itself, the registry or the shipped
 * meta-schemas: an unresolved one is a compile error naming it.  Returns
 * NULL with err filled ("at /properties/x/$ref: unresolved reference
 * \"...\"").  The registry is only read (it may gain lazily loaded
 * meta-schemas), so compile and registry calls must not race. */
struct oc_schema *oc_schema_compile(struct oc_schema_registry *r, const cJSON *schema,
                                    const char *base_uri, unsigned flags, char *err,
                                    size_t errlen);
/* The same, saying why it failed: OC_OK with *out set, OC_EPARSE for a
 * schema at fault (err says where), OC_ENOMEM when memory ran out (the
 * schema may be fine). */
int oc_schema_compile_rc(struct oc_schema_registry *r, const cJSON *schema, const char *base_uri,
                         unsigned flags, struct oc_schema **out, char *err, size_t errlen);
/* The same from a jdoc value (keeps U+0000 in strings; byte offsets of
 * schema problems are reported as "byte N"). */
struct oc_schema *oc_schema_compile_jv(struct oc_schema_registry *r, const struct oc_jv *schema,
                                       const char *base_uri, unsigned flags, char *err,
                                       size_t errlen);
/* Compile the subschema that uri names in a registered document, e.g.
 * ("https://oacheck.dev/schemas/chat.completion.json", 0) or
 * ("https://example.com/s.json#/$defs/Chunk"). */
struct oc_schema *oc_schema_compile_uri(struct oc_schema_registry *r, const char *uri,
                                        unsigned flags, char *err, size_t errlen);
/* Accepts NULL. */
void oc_schema_free(struct oc_schema *s);

/* One failure.  All strings are owned by the result. */
struct oc_schema_error {
  char *instance_path;  /* JSON pointer into the instance, "" for the root */
  char *schema_path;    /* keyword location, e.g. "/properties/choices/items/required" */
  const char *keyword;  /* "required", "type", ... (static) */
  char *message;        /* "expected integer, got string \"0\"" */
  size_t offset;        /* instance byte offset (jv->offset) */
};

struct oc_schema_result {
  struct oc_schema_error *errors;
  size_t count;
  size_t max; /* cap on errors kept; 0 = default 100 */
  size_t dropped; /* failures beyond the cap; nonzero means the list was cut
                     (evaluation stops soon after, so it is a lower bound) */
  int always_report; /* take the reporting path even for a valid instance
                        (tests compare it with the fast path); default 0:
                        the fast path decides and only an invalid instance
                        is walked again for messages */
  char *undecided;   /* when validate returned -OC_ETOOBIG: why oacheck could not
                        decide (a regex's match budget, the evaluation budget, a
                        recursion that consumes nothing); owned */
};

/* Fill *res as empty (max 0 = default); cannot fail. */
void oc_schema_result_init(struct oc_schema_result *res);
/* Free the errors and leave *res empty and reusable.  Accepts NULL. */
void oc_schema_result_free(struct oc_schema_result *res);

/* Validate instance (borrowed).  Returns 1 valid, 0 invalid, negative
 * -OC_E* on internal failure: -OC_ENOMEM, or -OC_ETOOBIG when oacheck's
 * own limits left it undecided (a regex ran out of its match budget, the
 * evaluation budget ran out, a recursion consumed nothing; res->undecided
 * says which) — an error of the validation, never a verdict.  An
 * allocation that failed anywhere, in either pass, is -OC_ENOMEM even when
 * the validation was already undecided (res is then incomplete).  Time is
 * bounded whatever the schema: combinators are memoised past a few
 * thousand evaluations and stop at a budget.  res may be NULL: the fast
 * path, which stops at the first failure and builds no message.  With res,
 * every failure (up to res->max) is appended to res (earlier errors are
 * kept). */
int oc_schema_validate(const struct oc_schema *s, const struct oc_jv *instance,
                       struct oc_schema_result *res);
/* The same for a cJSON instance (converted through oc_jdoc_from_cjson;
 * offsets are then 0). */
int oc_schema_validate_cjson(const struct oc_schema *s, const cJSON *instance,
                             struct oc_schema_result *res);

/* "at /choices/0/index: expected integer, got string \"0\"" into a new
 * string (caller frees). */
char *oc_schema_error_format(const struct oc_schema_error *e);

#endif
