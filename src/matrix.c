/* matrix.c — the checklist rows and the "Will my client work?" matrix
 * (matrix.h).  Rows are told apart by what the request asks, so a user's
 * own suite lands in the right row without tags; a tag overrides. */
#include "config.h"
#include "matrix.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"

static const struct {
  const char *name, *title;
} rows[OC_ROW__COUNT] = {
  [OC_ROW_PLAIN] = { "plain", "plain" },
  [OC_ROW_STREAMING] = { "streaming", "streaming" },
  [OC_ROW_TOOL_CALL] = { "tool-call", "tool call" },
  [OC_ROW_TOOL_CALL_STREAM] = { "tool-call-stream", "tool call streamed" },
  [OC_ROW_JSON_SCHEMA] = { "json-schema", "JSON schema" },
  [OC_ROW_ERRORS] = { "errors", "errors" },
  [OC_ROW_CONTEXT_OVERFLOW] = { "context-overflow", "context overflow" },
};

const char *oc_row_name(int row)
{
  return row >= 0 && row < OC_ROW__COUNT ? rows[row].name : NULL;
}

const char *oc_row_title(int row)
{
  return row >= 0 && row < OC_ROW__COUNT ? rows[row].title : NULL;
}

int oc_row_find(const char *name)
{
  for(int i = 0; name && i < OC_ROW__COUNT; i++)
    if(strcmp(name, rows[i].name) == 0)
      return i;
  return -1;
}

int oc_row_of(const char *suite, const char *const *tags, size_t ntags,
              const struct oc_request_info *info)
{
  static const char prefix[] = "checklist:";
  for(size_t i = 0; i < ntags; i++)
    if(tags[i] && strncmp(tags[i], prefix, sizeof(prefix) - 1) == 0)
      return oc_row_find(tags[i] + sizeof(prefix) - 1);
  if(suite && strcmp(suite, "errors") == 0)
    return OC_ROW_ERRORS;
  if(suite && strcmp(suite, "context-overflow") == 0)
    return OC_ROW_CONTEXT_OVERFLOW;
  if(!info || info->api != OC_API_CHAT)
    return -1;
  if(info->format == OC_FORMAT_JSON_SCHEMA || info->format == OC_FORMAT_JSON_OBJECT)
    return OC_ROW_JSON_SCHEMA;
  if(info->ntools > 0)
    return info->stream ? OC_ROW_TOOL_CALL_STREAM : OC_ROW_TOOL_CALL;
  return info->stream ? OC_ROW_STREAMING : OC_ROW_PLAIN;
}

const char *oc_cell_state_name(enum oc_cell_state s)
{
  switch(s) {
  case OC_CELL_WORKS: return "works";
  case OC_CELL_BREAKS: return "breaks";
  case OC_CELL_LIMITATION: return "limitation";
  case OC_CELL_NOT_EXERCISED: break;
  }
  return "not exercised";
}

static void count(struct oc_cell *cell, const cJSON *v, const cJSON *result, int index)
{
  const char *outcome = oc_json_str(v, "outcome");
  if(!outcome || strcmp(outcome, "not-exercised") == 0)
    return;
  const cJSON *works = oc_json_get(v, "works");
  if(cJSON_IsTrue(works)) {
    cell->works++;
    return;
  }
  if(!cJSON_IsFalse(works))
    return;
  int limitation = cJSON_IsTrue(oc_json_get(v, "limitation"));
  /* the reason shown is the first break's, else the first limitation's */
  if(limitation ? !cell->breaks && !cell->limits : !cell->breaks) {
    cell->reason = oc_json_str(v, "reason");
    cell->suite = oc_json_str(result, "suite");
    cell->kase = oc_json_str(result, "case");
    cell->result_index = index;
  }
  if(limitation)
    cell->limits++;
  else
    cell->breaks++;
}

int oc_matrix_build(const cJSON *doc, struct oc_matrix **out, size_t *n)
{
  *out = NULL;
  *n = 0;
  size_t cap = (size_t)cJSON_GetArraySize(oc_json_arr(doc, "targets"));
  struct oc_matrix *m = calloc(cap ? cap : 1, sizeof(*m));
  if(!m)
    return OC_ENOMEM;
  size_t used = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, oc_json_arr(doc, "targets")) {
    const char *name = oc_json_str(t, "name");
    if(name && used < cap)
      m[used++].target = name;
  }
  int index = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, oc_json_arr(doc, "results")) {
    int row = oc_row_find(oc_json_str(r, "checklist"));
    const char *target = oc_json_str(r, "target");
    size_t k = 0;
    while(k < used && !oc_streq(m[k].target, target))
      k++;
    if(row >= 0 && k < used) {
      const cJSON *v;
      cJSON_ArrayForEach(v, oc_json_obj(r, "clients")) {
        int c = v->string ? oc_client_find(v->string) : -1;
        if(c >= 0)
          count(&m[k].cells[row][c], v, r, index);
      }
    }
    index++;
  }
  /* keep the targets something ran on; settle each cell */
  size_t kept = 0;
  for(size_t k = 0; k < used; k++) {
    int any = 0;
    for(int row = 0; row < OC_ROW__COUNT; row++)
      for(int c = 0; c < OC_CLIENT__COUNT; c++) {
        struct oc_cell *cell = &m[k].cells[row][c];
        cell->state = cell->breaks  ? OC_CELL_BREAKS
                      : cell->limits ? OC_CELL_LIMITATION
                      : cell->works  ? OC_CELL_WORKS
                                     : OC_CELL_NOT_EXERCISED;
        any |= cell->state != OC_CELL_NOT_EXERCISED;
      }
    m[k].exercised = any;
    if(any)
      m[kept++] = m[k];
  }
  *out = m;
  *n = kept;
  return OC_OK;
}
