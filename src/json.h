/* json.h — cJSON with the sharp edges filed off: case-sensitive typed
 * getters, parse errors with line, column and byte, JSON Pointers.
 * Validation against schemas lives in schema.h. */
#ifndef OC_JSON_H
#define OC_JSON_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "util.h"

/* Where a parse stopped, for messages like "suite.json:3:17". */
struct oc_json_pos {
  size_t offset; /* byte offset of the problem */
  int line;      /* 1-based */
  int column;    /* 1-based, in bytes */
};

/* Parse exactly one JSON text (trailing whitespace allowed).  Returns a
 * tree the caller frees with cJSON_Delete, or NULL with *pos set (when pos
 * is not NULL).  Nesting deeper than cJSON's limit is a parse error. */
cJSON *oc_json_parse(const char *buf, size_t len, struct oc_json_pos *pos);
/* Line and column of a byte offset in buf. */
void oc_json_locate(const char *buf, size_t len, size_t offset, struct oc_json_pos *pos);
/* Parse a file; on failure err says "FILE:LINE:COL: what". */
cJSON *oc_json_parse_file(const char *path, char *err, size_t errlen);

/* Case-sensitive member lookup (cJSON_GetObjectItem is case-insensitive). */
cJSON *oc_json_get(const cJSON *obj, const char *key);
/* Typed getters: NULL / fallback when absent or of another type. */
const char *oc_json_str(const cJSON *obj, const char *key);
cJSON *oc_json_obj(const cJSON *obj, const char *key);
cJSON *oc_json_arr(const cJSON *obj, const char *key);
double oc_json_num(const cJSON *obj, const char *key, double fallback);
int oc_json_bool(const cJSON *obj, const char *key, int fallback);
/* Is item a number with no fractional part (1.0 counts, as in JSON Schema)? */
int oc_json_is_integer(const cJSON *item);

/* Resolve an RFC 6901 pointer ("/choices/0/delta") against root; NULL when
 * it names nothing.  "" is the root itself. */
cJSON *oc_json_pointer(const cJSON *root, const char *pointer);
/* Append one reference token to a pointer under construction, escaping
 * '~' and '/'. */
int oc_json_pointer_push(struct oc_buf *ptr, const char *token);
int oc_json_pointer_push_index(struct oc_buf *ptr, size_t index);

/* The JSON type name of an item as JSON Schema spells it ("integer" for
 * integral numbers). */
const char *oc_json_type_name(const cJSON *item);
/* A short rendering of an item for messages: strings quoted and cut at
 * max bytes with "…", containers as {…}/[…].  Caller frees. */
char *oc_json_brief(const cJSON *item, size_t max);
/* Compact serialisation (caller frees), NULL on allocation failure. */
char *oc_json_print(const cJSON *item);
/* Structural equality as JSON Schema's "const"/"enum" mean it: numbers by
 * value, objects regardless of member order. */
int oc_json_equal(const cJSON *a, const cJSON *b);

/* RFC 8785-style canonical form (members sorted by UTF-16 code units,
 * no whitespace, shortest round-trip numbers).  Caller frees. */
char *oc_json_canonical(const cJSON *item);
/* The pieces of that form, for writers that do not build a cJSON tree
 * (request keys, cassette.c): a number as ECMAScript prints it (RFC 8785
 * §3.2.2.3; "null" when not finite) into out, its length returned (0
 * only when out of memory); and the UTF-16 code unit order of two UTF-8
 * strings of the given lengths (<0, 0, >0). */
#define OC_JSON_NUMBER_MAX 32
size_t oc_json_number_es6(double v, char out[OC_JSON_NUMBER_MAX]);
int oc_json_utf16_cmp(const char *a, size_t alen, const char *b, size_t blen);

#endif
