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

/* Route cJSON's allocations through json.c, so that a parse that failed
 * for want of memory is told apart from invalid JSON.  Called once at
 * start (oc_cli_main); idempotent, and oc_json_parse_rc calls it too. */
void oc_json_init(void);
/* Parse exactly one JSON text (trailing whitespace allowed) into *out (a
 * tree the caller frees with cJSON_Delete).  OC_EPARSE with *pos set (when
 * pos is not NULL) for invalid JSON, OC_ENOMEM when memory ran out: cJSON
 * itself says NULL for both.  Nesting deeper than cJSON's limit is a parse
 * error. */
int oc_json_parse_rc(const char *buf, size_t len, struct oc_json_pos *pos, cJSON **out);
/* The same, NULL for either failure: for input whose failure to parse
 * means the same as its absence (or where either failure ends the job). */
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
/* Compact serialisation (oc_json_write), and the pretty one: malloc'd,
 * caller frees with free(), NULL on allocation failure (or past 1 GiB).
 * The one way to print a tree to a string: cJSON_Print's memory comes
 * from cJSON's hooks, which is the result arena while a result is built,
 * and free() of it would be a bad free. */
#define OC_JSON_PRINT_MAX (1u << 30)
char *oc_json_print(const cJSON *item);
char *oc_json_print_pretty(const cJSON *item);
/* Append item to b as JSON text: compact (no whitespace at all), or
 * pretty (members and elements one per line, indented by two spaces).
 * Strings are escaped as cJSON escapes them (", \\, the C escapes,
 * other controls as \\u00XX, every other byte as it is); numbers are
 * integers when integral below 2^53, else the fewest decimals (up to 9)
 * that read back as the same double, else %.15g or %.17g as cJSON does;
 * NaN and infinities are null.  Much cheaper than cJSON_Print (no
 * sscanf per number, one buffer).  OC_OK, or the buffer's error (the
 * buffer freed itself). */
int oc_json_write(struct oc_buf *b, const cJSON *item, int pretty);
/* The same, pretty-printed as if it stood depth levels deep (a member
 * of a document written piece by piece). */
int oc_json_write_at(struct oc_buf *b, const cJSON *item, int pretty, int depth);
/* Compact JSON text (as oc_json_write writes it: no whitespace outside
 * strings) re-indented as the pretty form at depth, without parsing it
 * into a tree: a spooled result goes into the JSON report this way. */
int oc_json_reindent(struct oc_buf *b, const char *text, size_t len, int depth);

/* cJSON allocations from an arena, for a tree built to be written once
 * and thrown away whole (a case's result, made and spooled as the case
 * ends): between oc_json_arena_begin() and oc_json_arena_end() every
 * cJSON allocation of this thread comes from one reused arena, freeing
 * arena memory does nothing and oc_json_arena_end() takes it all back at
 * once; memory malloc'd outside it is still freed normally.  Nothing
 * allocated inside may be kept after the end (under AddressSanitizer the
 * arena is poisoned then, so a test catches it).  Not nestable: begin
 * returns OC_EUSAGE when an arena is already active on this thread. */
int oc_json_arena_begin(void);
void oc_json_arena_end(void);
/* Is the arena in use on this thread?  And a pause in it: what is made
 * between pause and resume is malloc'd as usual (a tree that must outlive
 * the one being built). */
int oc_json_arena_active(void);
void oc_json_arena_pause(void);
void oc_json_arena_resume(void);
/* Bytes the arena keeps between uses (for the bench and tests). */
size_t oc_json_arena_resident(void);
/* Give back the block this thread's arena keeps between uses (a thread
 * that ends); the next begin makes a new one.  Nothing while active. */
void oc_json_arena_release(void);

/* Structural equality as JSON Schema's "const"/"enum" mean it: numbers by
 * value, objects regardless of member order. */
int oc_json_equal(const cJSON *a, const cJSON *b);

/* Building JSON, checked.  cJSON_AddItemToObject and cJSON_AddItemToArray
 * leave the item with the caller when they fail (a leak and a field lost
 * without a word), and cJSON_Add*ToObject's results are easy to drop; here
 * the parent takes the item whatever happens.
 *
 * oc_json_add: add item to parent, under name in an object, at the end of
 * an array when name is NULL.  When parent or item is NULL (a failed
 * cJSON_Create*, passed straight in) or memory runs out, item is deleted
 * and OC_ENOMEM returned.
 *
 * oc_json_put: the same, keeping the first failure in *oom so that a
 * whole document is built and checked once; once *oom is set nothing more
 * is added (item is deleted).  Returns item when it was added, so that a
 * nested container can be filled next (a NULL parent fails the same way):
 *
 *   int oom = 0;
 *   cJSON *o = cJSON_CreateObject();
 *   oc_json_put(&oom, o, "id", cJSON_CreateString(id));
 *   cJSON *tags = oc_json_put(&oom, o, "tags", cJSON_CreateArray());
 *   oc_json_put(&oom, tags, NULL, cJSON_CreateString("fast"));
 *   if(oom) { cJSON_Delete(o); return NULL; }
 *
 * oc_json_put_str adds a string member and nothing (no failure) when s is
 * NULL, as cJSON_AddStringToObject did; oc_json_put_str_or_null writes
 * null for NULL.  oc_json_set replaces a member of that name when there
 * is one and adds it otherwise. */
int oc_json_add(cJSON *parent, const char *name, cJSON *item);
cJSON *oc_json_put(int *oom, cJSON *parent, const char *name, cJSON *item);
cJSON *oc_json_put_str(int *oom, cJSON *parent, const char *name, const char *s);
cJSON *oc_json_put_str_or_null(int *oom, cJSON *parent, const char *name, const char *s);
cJSON *oc_json_set(int *oom, cJSON *obj, const char *name, cJSON *item);

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
