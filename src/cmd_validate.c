/* cmd_validate.c — `oacheck validate`: check JSON files (or stdin, or JSON
 * Lines) against a JSON Schema and print each failure as "FILE: PATH:
 * MESSAGE".  The schemas shipped under schemas/ and those given with
 * --remotes are the only places a "$ref" may lead; nothing is fetched.
 * Validation itself is schema.c's; this file reads files and prints. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "datadir.h"
#include "jdoc.h"
#include "json.h"
#include "schema.h"
#include "util.h"

/* The base URI the shipped schemas/ folder is registered under (their own
 * $id values are honoured too). */
#define OC_SCHEMAS_BASE OC_SCHEMA_SHIPPED_BASE
#define OC_VALIDATE_MAX_ERRORS 100

static const char validate_usage[] =
  "Usage: oacheck validate [OPTION]... SCHEMA FILE...\n"
  "Validate JSON files against a JSON Schema (draft 2020-12; draft-07 when the\n"
  "schema's $schema says so).\n"
  "\n"
  "SCHEMA is a schema file, or the URI of a registered schema, e.g.\n"
  "  " OC_SCHEMAS_BASE "chat.completion.chunk.json\n"
  "  " OC_SCHEMAS_BASE "chat.completion.json#/$defs/Usage\n"
  "FILE is a JSON file, or - for standard input.\n";

static const char validate_footer[] =
  "Each failure is printed as 'FILE: PATH: MESSAGE (line L, column C)', with\n"
  "PATH the JSON pointer of the failing value ('(root)' for the whole document);\n"
  "with --jsonl as 'FILE:LINE: PATH: MESSAGE (column C)'.  The shipped schemas\n"
  "(" OC_SCHEMAS_BASE "...) and the draft 2020-12 and draft-07 meta-schemas\n"
  "are always known.\n"
  "\n"
  "Exit status: 0 every instance is valid, 1 an instance is invalid, 2 the\n"
  "schema or a file cannot be used (a JSON syntax error is reported as\n"
  "FILE:LINE:COLUMN).\n";

struct vopts {
  int jsonl, quiet;
  size_t max_errors;
};

/* Print the failures of one instance.  text/len is the buffer the offsets
 * refer to (for line and column); line > 0 for JSON Lines. */
static void print_errors(const char *file, long line, const char *text, size_t len,
                         size_t base_off, const struct oc_schema_result *res)
{
  for(size_t i = 0; i < res->count; i++) {
    const struct oc_schema_error *e = &res->errors[i];
    const char *path = e->instance_path[0] ? e->instance_path : "(root)";
    struct oc_json_pos pos;
    oc_json_locate(text, len, e->offset, &pos);
    if(line > 0)
      printf("%s:%ld: %s: %s (column %zu)\n", file, line, path, e->message, e->offset - base_off + 1);
    else
      printf("%s: %s: %s (line %d, column %d)\n", file, path, e->message, pos.line, pos.column);
    oc_debug("%s: keyword location %s", file, e->schema_path);
  }
  if(res->dropped && line > 0)
    printf("%s:%ld: ... and %zu more failure%s\n", file, line, res->dropped, res->dropped == 1 ? "" : "s");
  else if(res->dropped)
    printf("%s: ... and %zu more failure%s\n", file, res->dropped, res->dropped == 1 ? "" : "s");
}

/* Validate one JSON text.  Returns 0 valid, 1 invalid, 2 unusable. */
static int check_text(const struct oc_schema *s, struct oc_jdoc *doc, const char *file, long line,
                      const char *text, size_t len, size_t base_off, const struct vopts *o)
{
  struct oc_jerr je = { 0, NULL };
  int rc = oc_jdoc_parse(doc, text + base_off, len - base_off, &je);
  if(rc) {
    struct oc_json_pos pos;
    oc_json_locate(text + base_off, len - base_off, je.offset, &pos);
    if(line > 0)
      fprintf(stderr, "%s:%ld:%zu: invalid JSON: %s\n", file, line, je.offset + 1,
              je.message ? je.message : rc == OC_ETOOBIG ? "too deep or too long" : "cannot parse");
    else
      fprintf(stderr, "%s:%d:%d: invalid JSON: %s\n", file, pos.line, pos.column,
              len == 0 ? "empty file"
              : je.message ? je.message : rc == OC_ETOOBIG ? "too deep or too long" : "cannot parse");
    return 2;
  }
  struct oc_schema_result res;
  oc_schema_result_init(&res);
  res.max = o->max_errors;
  /* jdoc offsets are relative to the text it parsed */
  int v = oc_schema_validate(s, doc->root, &res);
  if(v < 0) {
    /* undecided is an error of the validation, not a verdict on the file */
    if(v == -OC_ETOOBIG)
      fprintf(stderr, "%s: cannot be decided: %s\n", file,
              res.undecided ? res.undecided : "oacheck's validation budget ran out");
    else
      fprintf(stderr, "%s: validation failed: out of memory\n", file);
    oc_schema_result_free(&res);
    return 2;
  }
  if(v == 0) {
    for(size_t i = 0; i < res.count; i++)
      res.errors[i].offset += base_off;
    print_errors(file, line, text, len, base_off, &res);
  }
  else if(!o->quiet && line <= 0)
    printf("%s: valid\n", file);
  oc_schema_result_free(&res);
  return v == 0 ? 1 : 0;
}

static int check_file(const struct oc_schema *s, const char *file, const struct vopts *o)
{
  char *buf = NULL, err[1024];
  size_t len = 0;
  int rc = oc_read_file(strcmp(file, "-") == 0 ? "/dev/stdin" : file, OC_CAP_FILE, &buf, &len, err, sizeof(err));
  if(rc) {
    fprintf(stderr, "oacheck validate: %s\n", err);
    return 2;
  }
  const char *name = strcmp(file, "-") == 0 ? "(stdin)" : file;
  struct oc_jdoc doc;
  oc_jdoc_init(&doc);
  int worst = 0;
  if(!o->jsonl)
    worst = check_text(s, &doc, name, 0, buf, len, 0, o);
  else {
    size_t start = 0, nlines = 0, ninvalid = 0;
    long lineno = 0;
    while(start < len) {
      const char *nl = memchr(buf + start, '\n', len - start);
      size_t end = nl ? (size_t)(nl - buf) : len;
      lineno++;
      /* a line is its own text: jdoc sees only [start, end) */
      size_t k = start;
      while(k < end && (buf[k] == ' ' || buf[k] == '\t' || buf[k] == '\r'))
        k++;
      if(k < end) {
        nlines++;
        int r = check_text(s, &doc, name, lineno, buf, end, start, o);
        if(r)
          ninvalid++;
        if(r > worst)
          worst = r;
      }
      start = end + 1;
    }
    if(!o->quiet)
      printf("%s: %zu of %zu line%s valid\n", name, nlines - ninvalid, nlines, nlines == 1 ? "" : "s");
  }
  oc_jdoc_free(&doc);
  free(buf);
  return worst;
}

static int looks_like_uri(const char *s)
{
  return strstr(s, "://") != NULL || oc_startswith(s, "urn:");
}

int oc_cmd_validate(int argc, char **argv)
{
  struct vopts o = { 0, 0, OC_VALIDATE_MAX_ERRORS };
  unsigned flags = 0;
  int status = OC_EXIT_USAGE;
  char err[2048];
  struct oc_schema_registry *reg = oc_schema_registry_new();
  struct oc_schema *s = NULL;
  if(!reg) {
    fprintf(stderr, "oacheck validate: out of memory\n");
    return OC_EXIT_USAGE;
  }
  int format_assert = 0, draft7 = 0;
  long max_errors = OC_VALIDATE_MAX_ERRORS;
  struct oc_strlist remotes = { NULL, 0, 0 }, args = { NULL, 0, 0 };
  const struct oc_option options[] = {
    OC_OPT_LIST(0, "remotes", &remotes, "DIR=BASE_URI",
                "register every *.json file under DIR at BASE_URI\n"
                "plus its path below DIR, so that \"$ref\"s to BASE_URI\n"
                "resolve locally (repeatable).  Nothing is ever fetched\n"
                "over the network: an unresolved reference is an error"),
    OC_OPT_FLAG(0, "format-assert", &format_assert,
                "make \"format\" an assertion (date-time, date, time,\n"
                "duration, email, hostname, ipv4, ipv6, uri, uri-reference,\n"
                "iri, uri-template, uuid, regex, json-pointer, ...);\n"
                "by default it is an annotation, as draft 2020-12 says"),
    OC_OPT_FLAG(0, "draft7", &draft7, "read a schema without $schema as draft-07"),
    OC_OPT_FLAG(0, "jsonl", &o.jsonl, "each FILE holds JSON Lines: one instance per line"),
    OC_OPT_LONG(0, "max-errors", &max_errors, "N", 1, 100000,
                "report at most N failures per instance (default 100)"),
    OC_OPT_FLAG('q', "quiet", &o.quiet, "print failures only, not \"FILE: valid\""),
    OC_OPT_VERBOSE(NULL, "say more"),
    OC_OPT_END(),
  };
  const struct oc_cli cli = { "validate", validate_usage, validate_footer, options };
  int prc = oc_cli_parse(&cli, argc, argv, &args);
  if(prc >= 0) {
    status = prc;
    goto out;
  }
  flags |= format_assert ? OC_SCHEMA_FORMAT_ASSERT : 0;
  flags |= draft7 ? OC_SCHEMA_DRAFT7 : 0;
  o.max_errors = (size_t)max_errors;
  for(size_t k = 0; k < remotes.n; k++) {
    const char *val = remotes.items[k];
    const char *eq = strchr(val, '=');
    if(!eq || eq == val || !eq[1]) {
      status = oc_cli_usage_error("validate", "--remotes needs DIR=BASE_URI, e.g. "
                                              "remotes=http://localhost:1234/");
      goto out;
    }
    char *dir = oc_strndup(val, (size_t)(eq - val));
    int rc = dir ? oc_schema_registry_add_dir(reg, dir, eq + 1, err, sizeof(err)) : OC_ENOMEM;
    free(dir);
    if(rc) {
      fprintf(stderr, "oacheck validate: --remotes: %s\n", rc == OC_ENOMEM ? "out of memory" : err);
      goto out;
    }
  }
  if(args.n < 2) {
    oc_cli_usage_error("validate", args.n < 1 ? "missing SCHEMA and FILE" : "missing FILE");
    goto out;
  }
  size_t i = 0;
  const char *schema_arg = args.items[i++];
  /* The shipped schemas; a missing data directory only matters when a
   * reference needs them, and then it is reported as unresolved. */
  if(oc_schema_registry_add_shipped(reg, err, sizeof(err)))
    oc_warn("shipped schemas not loaded: %s", err);
  if(!oc_is_file(schema_arg) && looks_like_uri(schema_arg))
    s = oc_schema_compile_uri(reg, schema_arg, flags, err, sizeof(err));
  else {
    char *text = NULL;
    size_t len = 0;
    if(oc_read_file(schema_arg, OC_CAP_FILE, &text, &len, err, sizeof(err)) == 0) {
      struct oc_jdoc d;
      oc_jdoc_init(&d);
      struct oc_jerr je = { 0, NULL };
      int rc = oc_jdoc_parse(&d, text, len, &je);
      if(rc) {
        struct oc_json_pos pos;
        oc_json_locate(text, len, je.offset, &pos);
        snprintf(err, sizeof(err), "%s:%d:%d: invalid JSON: %s", schema_arg, pos.line, pos.column,
                 len == 0 ? "empty file" : je.message ? je.message : "cannot parse");
      }
      else {
        char *abs = realpath(schema_arg, NULL);
        char *uri = abs ? oc_asprintf("file://%s", abs) : NULL;
        char cerr[1536];
        s = oc_schema_compile_jv(reg, d.root, uri, flags, cerr, sizeof(cerr));
        if(!s)
          snprintf(err, sizeof(err), "%s: %s", schema_arg, cerr);
        free(uri);
        free(abs);
      }
      oc_jdoc_free(&d);
      free(text);
    }
  }
  if(!s) {
    fprintf(stderr, "oacheck validate: %s\n", err);
    goto out;
  }
  int worst = 0;
  for(; i < args.n; i++) {
    int r = check_file(s, args.items[i], &o);
    if(r > worst)
      worst = r;
  }
  fflush(stdout);
  status = worst == 2 ? OC_EXIT_USAGE : worst == 1 ? OC_EXIT_FAIL : OC_EXIT_OK;
out:
  oc_schema_free(s);
  oc_schema_registry_free(reg);
  oc_strlist_free(&remotes);
  oc_strlist_free(&args);
  return status;
}
