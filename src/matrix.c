/* matrix.c — the checklist rows and the "Will my client work?" matrix
 * (matrix.h).  Rows are told apart by what the request asks, so a user's
 * own suite lands in the right row without tags; a tag overrides.  The
 * cells are counted from the results' refs; reading results is report.c's. */
#include "config.h"
#include "matrix.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "report.h"
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
  [OC_ROW_REASONING] = { "reasoning", "reasoning" },
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

int oc_row_of(const char *suite, const char *const *tags, size_t ntags, int expects_error,
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
  /* a refusal every client raises on would otherwise make "plain" ok
   * with no plain answer seen */
  if(expects_error)
    return OC_ROW_ERRORS;
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
  case OC_CELL_ERROR: return "error";
  case OC_CELL_SERVER_FAULT: return "server fault";
  case OC_CELL_NOT_EXERCISED: break;
  }
  return "not exercised";
}

/* Would a case have reached client c?  A verdict says so; a case that
 * ended in error before the models judged it has none, and reaches every
 * client but the stream helpers, which only streamed requests reach. */
static int reaches(unsigned code, const struct oc_result_ref *f, int c)
{
  if(code & OC_REF_CL_RAN)
    return 1;
  if(OC_REF_CL_STATE(code) != OC_REF_CL_ABSENT) /* "not-exercised" */
    return 0;
  int helper = c == OC_CLIENT_OPENAI_NODE_STREAM || c == OC_CLIENT_OPENAI_PYTHON_STREAM ||
               c == OC_CLIENT_OPENAI_NODE_STREAM_6;
  return !helper || (f->flags & OC_REF_STREAM);
}

/* A cell's first break (or, while it has none, its first server fault,
 * else its first limitation) is the one it shows.  A case that ended in error is no evidence that a
 * client works: it counts as an error of the cell, unless its client
 * verdict is a break (or limitation), which stands. */
static void count(struct oc_cell *cell, unsigned code, const struct oc_result_ref *f, int index, int c)
{
  unsigned st = OC_REF_CL_STATE(code);
  if(f->status == OC_ST_ERROR &&
     !((code & OC_REF_CL_RAN) && (st == OC_REF_CL_LIMIT || st == OC_REF_CL_BREAKS || st == OC_REF_CL_FAULT))) {
    if(!reaches(code, f, c))
      return;
    if(!cell->errors++) {
      cell->error_suite = f->suite;
      cell->error_kase = f->kase;
      cell->error_index = index;
    }
    return;
  }
  if(!(code & OC_REF_CL_RAN)) /* no outcome, or "not-exercised" */
    return;
  code = st;
  if(code == OC_REF_CL_WORKS) {
    cell->works++;
    return;
  }
  if(code != OC_REF_CL_LIMIT && code != OC_REF_CL_BREAKS && code != OC_REF_CL_FAULT)
    return;
  int shown = code == OC_REF_CL_BREAKS  ? !cell->breaks
              : code == OC_REF_CL_FAULT ? !cell->breaks && !cell->faults
                                        : !cell->breaks && !cell->faults && !cell->limits;
  if(shown) {
    cell->suite = f->suite;
    cell->kase = f->kase;
    cell->result_index = index;
  }
  if(code == OC_REF_CL_LIMIT)
    cell->limits++;
  else if(code == OC_REF_CL_FAULT)
    cell->faults++;
  else
    cell->breaks++;
}

/* What client c showed of the reasoning of a case (any row), into the
 * reasoning row's cell. */
static void count_reasoning(struct oc_cell *cell, unsigned code)
{
  switch(OC_REF_CL_RSN(code)) {
  case OC_REF_CL_RSN_SEEN: cell->rsn_seen++; break;
  case OC_REF_CL_RSN_PARTIAL: cell->rsn_partial++; break;
  case OC_REF_CL_RSN_HIDDEN: cell->rsn_hidden++; break;
  default: break;
  }
  if(code & OC_REF_CL_RSN_LEAK)
    cell->rsn_leaks++;
}

const char *oc_cell_reasoning_word(const struct oc_cell *cell)
{
  return cell->rsn_hidden ? "hidden" : cell->rsn_partial ? "partial" : cell->rsn_seen ? "seen" : NULL;
}

void oc_matrix_free(struct oc_matrix *m, size_t n)
{
  for(size_t k = 0; m && k < n; k++)
    for(int row = 0; row < OC_ROW__COUNT; row++)
      for(int c = 0; c < OC_CLIENT__COUNT; c++)
        free(m[k].cells[row][c].reason);
  free(m);
}

/* The reason client c gave in result index (for an error cell, the
 * case's own reason), copied into the cell. */
static int cell_reason(struct oc_results *rs, struct oc_cell *cell, int c)
{
  char err[700];
  const cJSON *r = oc_results_get(rs, (size_t)cell->result_index, err, sizeof(err));
  if(!r) {
    oc_error("%s", err);
    return OC_EIO;
  }
  const char *why = cell->state == OC_CELL_ERROR
                      ? oc_json_str(r, "reason")
                      : oc_json_str(oc_json_obj(oc_json_obj(r, "clients"), oc_client_name((enum oc_client_id)c)),
                                    "reason");
  if(why && !(cell->reason = oc_strdup(why)))
    return OC_ENOMEM;
  return OC_OK;
}

int oc_matrix_build_from(struct oc_results *rs, struct oc_matrix **out, size_t *n)
{
  *out = NULL;
  *n = 0;
  const cJSON *doc = rs->doc;
  size_t cap = (size_t)cJSON_GetArraySize(oc_json_arr(doc, "targets"));
  struct oc_matrix *m = calloc(cap ? cap : 1, sizeof(*m));
  if(!m)
    return OC_ENOMEM;
  size_t used = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, oc_json_arr(doc, "targets")) {
    const char *name = oc_json_str(t, "name");
    if(name && used < cap) {
      m[used].columns = OC_CLIENTS_TODAY & OC_CLIENTS_CHAT; /* chat's seven, even in results older than one */
      m[used++].target = name;
    }
  }
  /* one pass over the refs; consecutive results mostly share a target */
  size_t k = 0;
  for(size_t i = 0; i < rs->count; i++) {
    const struct oc_result_ref *f = &rs->refs[i];
    if(f->row < 0 || f->row >= OC_ROW__COUNT ||
       (!(f->flags & OC_REF_CLIENTS) && f->status != OC_ST_ERROR))
      continue;
    if(k >= used || !oc_streq(m[k].target, f->target))
      for(k = 0; k < used && !oc_streq(m[k].target, f->target); k++)
        ;
    if(k == used)
      continue;
    for(int c = 0; c < OC_CLIENT__COUNT; c++) {
      if(f->clients[c])
        m[k].columns |= 1u << c;
      count(&m[k].cells[f->row][c], f->clients[c], f, (int)i, c);
    }
    for(int c = 0; (f->flags & OC_REF_CLIENTS) && c < OC_CLIENT__COUNT; c++)
      count_reasoning(&m[k].cells[OC_ROW_REASONING][c], f->clients[c]);
  }
  /* keep the targets some client ran on (errors alone, as on a target
   * that could not be reached, make no matrix); settle each cell, and
   * read the reason of each that shows a break, limitation or error */
  size_t kept = 0;
  int rc = OC_OK;
  for(k = 0; k < used; k++) {
    int any = 0;
    for(int row = 0; row < OC_ROW__COUNT; row++)
      for(int c = 0; c < OC_CLIENT__COUNT; c++) {
        struct oc_cell *cell = &m[k].cells[row][c];
        /* a server fault is known, as a break is; an error outranks a
         * limitation: the row's verdict is missing */
        cell->state = cell->breaks   ? OC_CELL_BREAKS
                      : cell->faults ? OC_CELL_SERVER_FAULT
                      : cell->errors ? OC_CELL_ERROR
                      : cell->limits ? OC_CELL_LIMITATION
                      : cell->works  ? OC_CELL_WORKS
                                     : OC_CELL_NOT_EXERCISED;
        any |= cell->works || cell->breaks || cell->limits || cell->faults || cell->rsn_seen ||
               cell->rsn_partial || cell->rsn_hidden || cell->rsn_leaks;
        if(cell->state == OC_CELL_ERROR) {
          cell->suite = cell->error_suite;
          cell->kase = cell->error_kase;
          cell->result_index = cell->error_index;
        }
        if(!rc && (cell->breaks || cell->limits || cell->errors || cell->faults))
          rc = cell_reason(rs, cell, c);
      }
    m[k].exercised = any;
    if(any)
      m[kept++] = m[k];
    else
      for(int row = 0; row < OC_ROW__COUNT; row++)
        for(int c = 0; c < OC_CLIENT__COUNT; c++)
          free(m[k].cells[row][c].reason);
  }
  if(rc) {
    oc_matrix_free(m, kept);
    return rc;
  }
  *out = m;
  *n = kept;
  return OC_OK;
}

int oc_matrix_build(const cJSON *doc, struct oc_matrix **out, size_t *n)
{
  struct oc_results rs;
  *out = NULL;
  *n = 0;
  if(oc_results_from_doc(&rs, doc))
    return OC_ENOMEM;
  int rc = oc_matrix_build_from(&rs, out, n);
  oc_results_free(&rs);
  return rc;
}
