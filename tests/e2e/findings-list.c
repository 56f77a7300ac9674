/* findings-list.c — a test helper for the check*.sh and proxy tests:
 * print the findings of a results document one per line, "RULE SEVERITY
 * chunk=N byte=N path=P" (a dash where the finding has none) and
 * " clients=A,B" when the finding names the clients it breaks, sorted, so
 * that two documents (oacheck check's and oacheck run --replay's) can be
 * compared with cmp.  With --verdicts, each result's client verdicts
 * instead, "CLIENT works=true|false|- outcome=O".  With a CASE argument
 * only that case's are printed.  Exit 1 when the document cannot be read
 * or the case is not in it. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"

static int cmp(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
  int verdicts = argc > 1 && strcmp(argv[1], "--verdicts") == 0;
  if(verdicts) {
    argv++;
    argc--;
  }
  if(argc < 2 || argc > 3) {
    fprintf(stderr, "usage: findings-list [--verdicts] RESULTS.json [CASE]\n");
    return 2;
  }
  char err[600];
  cJSON *doc = oc_json_parse_file(argv[1], err, sizeof(err));
  if(!doc) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  char **lines = NULL;
  size_t n = 0, alloc = 0;
  int found = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, oc_json_arr(doc, "results"))
  {
    if(argc == 3 && !oc_streq(oc_json_str(r, "case"), argv[2]))
      continue;
    found = 1;
    if(verdicts) {
      const cJSON *v;
      cJSON_ArrayForEach(v, oc_json_obj(r, "clients"))
      {
        const cJSON *works = oc_json_get(v, "works");
        char **d = oc_array_grow(lines, &alloc, n + 1, sizeof(*d));
        if(!d)
          return 1;
        lines = d;
        lines[n] = oc_asprintf("%s works=%s outcome=%s", v->string,
                               cJSON_IsBool(works) ? (cJSON_IsTrue(works) ? "true" : "false") : "-",
                               oc_json_str(v, "outcome") ? oc_json_str(v, "outcome") : "-");
        if(!lines[n])
          return 1;
        n++;
      }
      continue;
    }
    const cJSON *f;
    cJSON_ArrayForEach(f, oc_json_arr(r, "findings"))
    {
      const cJSON *w = oc_json_obj(f, "where");
      const cJSON *chunk = oc_json_get(w, "chunk"), *byte = oc_json_get(w, "byte");
      const char *path = oc_json_str(f, "path");
      char c[32] = "-", b[32] = "-";
      if(cJSON_IsNumber(chunk))
        snprintf(c, sizeof(c), "%.0f", chunk->valuedouble);
      if(cJSON_IsNumber(byte))
        snprintf(b, sizeof(b), "%.0f", byte->valuedouble);
      char cl[200] = "";
      const cJSON *name;
      cJSON_ArrayForEach(name, oc_json_arr(f, "clients"))
        if(cJSON_IsString(name)) {
          size_t k = strlen(cl);
          snprintf(cl + k, sizeof(cl) - k, "%s%s", k ? "," : " clients=", name->valuestring);
        }
      char **d = oc_array_grow(lines, &alloc, n + 1, sizeof(*d));
      if(!d)
        return 1;
      lines = d;
      lines[n] = oc_asprintf("%s %s chunk=%s byte=%s path=%s%s", oc_json_str(f, "rule"),
                             oc_json_str(f, "severity"), c, b, path ? (*path ? path : "\"\"") : "-", cl);
      if(!lines[n])
        return 1;
      n++;
    }
  }
  if(!found) {
    fprintf(stderr, "%s: no result%s%s\n", argv[1], argc == 3 ? " for case " : "", argc == 3 ? argv[2] : "");
    return 1;
  }
  if(n)
    qsort(lines, n, sizeof(*lines), cmp);
  for(size_t i = 0; i < n; i++) {
    puts(lines[i]);
    free(lines[i]);
  }
  free(lines);
  cJSON_Delete(doc);
  return 0;
}
