/* jdoc.h — a fast JSON reader for the hot path: one pass over the bytes
 * into an arena that is reused from document to document, every value
 * remembering its byte offset in the source.  Streamed chunks, response
 * bodies and schema instances are read with it; cJSON remains for
 * everything that is built, edited or printed (suites, reports).
 *
 * Strings are decoded (escapes resolved, may contain U+0000, so always use
 * the length).  Numbers keep their double value and whether the text was
 * an integer literal.  Duplicate member names are kept in order (lookups
 * return the last, as JSON.parse does) and counted in the document. */
#ifndef OC_JDOC_H
#define OC_JDOC_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum oc_jtype {
  OC_JNULL = 0,
  OC_JFALSE,
  OC_JTRUE,
  OC_JNUMBER,
  OC_JSTRING,
  OC_JARRAY,
  OC_JOBJECT
};

struct oc_jmember;

struct oc_jv {
  uint8_t type;        /* enum oc_jtype */
  uint8_t int_literal; /* number written without fraction or exponent */
  uint32_t len;        /* string bytes, or array/object element count */
  uint32_t offset;     /* byte offset of the value's first byte in the source */
  uint32_t end;        /* byte offset just past the value */
  union {
    double num;
    const char *str;                /* NUL-terminated too, but may hold NULs */
    struct oc_jv *items;            /* arrays: len values */
    struct oc_jmember *members;     /* objects: len members */
  } u;
};

struct oc_jmember {
  const char *key;     /* decoded, NUL-terminated */
  uint32_t key_len;
  uint32_t key_offset; /* byte offset of the key's opening quote */
  struct oc_jv value;
};

/* Why a parse failed. */
struct oc_jerr {
  size_t offset;       /* byte offset where parsing stopped */
  const char *message; /* static text, e.g. "expected ',' or '}'" */
};

struct oc_jarena_block;
struct oc_jscratch;

struct oc_jdoc {
  struct oc_jv *root;         /* NULL until a parse succeeds */
  size_t duplicate_keys;      /* member names seen twice in one object */
  size_t invalid_utf8;        /* strings holding bytes that are not UTF-8 */
  size_t first_invalid_utf8;  /* offset of the first such byte */
  size_t max_depth;           /* nesting limit, default 512 (the parser recurses:
                                 keep it in the thousands at most) */
  size_t max_bytes;           /* input limit, default OC_CAP_BODY */
  struct oc_jarena_block *blocks; /* arena, kept across parses */
  size_t arena_used;          /* bytes of the arena the current document uses */
  /* Added by jdoc.c (private): */
  struct oc_jarena_block *cur;   /* block being filled */
  size_t arena_alloc;         /* bytes held in blocks and parse stacks */
  size_t max_arena;           /* cap on arena_alloc, default OC_CAP_JDOC_ARENA */
  size_t arena_grows;         /* times a block was allocated (tests: steady state) */
  struct oc_jscratch *scratch; /* parse stacks, kept across parses */
};

/* Memory a document may hold: values cost at most ~12 bytes per input
 * byte (a 2-byte "0," becomes a 24-byte value), so this admits any
 * OC_CAP_BODY document and stops a hostile one well before the machine
 * runs out. */
#define OC_CAP_JDOC_ARENA (1024u << 20)

/* Fill *d as an empty document; cannot fail. */
void oc_jdoc_init(struct oc_jdoc *d);
/* Parse exactly one JSON text (RFC 8259; surrounding whitespace allowed)
 * from buf.  Reuses the arena: values of an earlier parse are invalid
 * afterwards.  Returns OC_OK, OC_EPARSE (err filled), OC_ETOOBIG (too
 * deep or too long) or OC_ENOMEM.  Invalid UTF-8 inside a string is kept
 * byte for byte and counted in invalid_utf8 (the SSE layer reports it;
 * one broken character should not also hide the whole chunk). */
int oc_jdoc_parse(struct oc_jdoc *d, const char *buf, size_t len, struct oc_jerr *err);
/* Copy a cJSON tree into the document (offsets are 0). */
int oc_jdoc_from_cjson(struct oc_jdoc *d, const cJSON *item);
/* Release the arena. */
void oc_jdoc_free(struct oc_jdoc *d);

/* Case-sensitive member lookup of key[0..n); the last of duplicates; NULL
 * if absent or obj is not an object. */
const struct oc_jv *oc_jv_get_n(const struct oc_jv *obj, const char *key, size_t n);
/* The same for a NUL-terminated key (NULL: none).  Inline, so that a
 * literal key's length is known where it is looked up: the streaming path
 * makes a dozen lookups per chunk. */
static inline const struct oc_jv *oc_jv_get(const struct oc_jv *obj, const char *key)
{
  return key ? oc_jv_get_n(obj, key, strlen(key)) : NULL;
}
/* Array element i, NULL when out of range or not an array. */
const struct oc_jv *oc_jv_at(const struct oc_jv *arr, size_t i);
/* Typed helpers: NULL / fallback when absent or of another type. */
const char *oc_jv_str(const struct oc_jv *obj, const char *key, size_t *len);
int oc_jv_is_integer(const struct oc_jv *v);
/* An integral number as a long, held to ±2^53 (past any index or count a
 * client meets, and where a double stops holding every integer): casting
 * a larger double is undefined, and a server may send 1e31 as an index.
 * Not finite: 0. */
long oc_jv_long(const struct oc_jv *v); /* a number with no fraction (1.0 counts) */
int oc_jv_is_null(const struct oc_jv *v);
/* "null", "boolean", "integer", "number", "string", "array", "object";
 * "absent" for NULL. */
const char *oc_jv_type_name(const struct oc_jv *v);
int oc_jv_equal(const struct oc_jv *a, const struct oc_jv *b);
/* Resolve an RFC 6901 pointer. */
const struct oc_jv *oc_jv_pointer(const struct oc_jv *root, const char *pointer);
/* A new cJSON tree (caller deletes); NULL on allocation failure. */
cJSON *oc_jv_to_cjson(const struct oc_jv *v);

#endif
