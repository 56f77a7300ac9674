/* result.c — turning a finished case into its results-schema object.  The
 * status follows from the findings exactly as DESIGN.md says: error when
 * the exchange could not be completed, fail when a finding of severity
 * error was not allowed, skip when the case could not apply, else pass. */
#include "config.h"
#include "result.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "matrix.h"
#include "url.h"
#include "util.h"

const char *oc_case_status(const struct oc_case_outcome *o)
{
  if(o->end == OC_END_SKIP)
    return "skip";
  if(o->end == OC_END_ERROR)
    return "error";
  return oc_findings_worst(o->findings) == OC_SEV_ERROR ? "fail" : "pass";
}

static void add_str_or_null(cJSON *o, const char *key, const char *v)
{
  if(v)
    cJSON_AddStringToObject(o, key, v);
  else
    cJSON_AddNullToObject(o, key);
}

cJSON *oc_finding_json(const struct oc_finding *f)
{
  cJSON *o = cJSON_CreateObject();
  if(!o)
    return NULL;
  cJSON_AddStringToObject(o, "rule", oc_rule_name(f->rule));
  cJSON_AddStringToObject(o, "severity", oc_severity_name(f->severity));
  cJSON_AddBoolToObject(o, "allowed", f->allowed);
  cJSON_AddStringToObject(o, "message", f->message ? f->message : "");
  cJSON *w = cJSON_AddObjectToObject(o, "where");
  if(w) {
    if(f->chunk >= 1)
      cJSON_AddNumberToObject(w, "chunk", (double)f->chunk);
    else
      cJSON_AddNullToObject(w, "chunk");
    if(f->byte >= 0)
      cJSON_AddNumberToObject(w, "byte", (double)f->byte);
    else
      cJSON_AddNullToObject(w, "byte");
    char text[64];
    oc_finding_where_text(f, text, sizeof(text));
    cJSON_AddStringToObject(w, "text", text);
  }
  add_str_or_null(o, "path", f->path);
  add_str_or_null(o, "expected", f->expected);
  add_str_or_null(o, "actual", f->actual);
  add_str_or_null(o, "excerpt", f->excerpt);
  if(f->clients) {
    cJSON *cl = cJSON_AddArrayToObject(o, "clients");
    for(int i = 0; cl && i < OC_CLIENT__COUNT; i++)
      if(f->clients & (1u << i))
        cJSON_AddItemToArray(cl, cJSON_CreateString(oc_client_name((enum oc_client_id)i)));
  }
  if(f->spec_only)
    cJSON_AddTrueToObject(o, "spec_only");
  return o;
}

cJSON *oc_clients_json(const struct oc_client_verdict *v)
{
  cJSON *o = cJSON_CreateObject();
  for(int i = 0; o && i < OC_CLIENT__COUNT; i++) {
    cJSON *c = cJSON_AddObjectToObject(o, oc_client_name((enum oc_client_id)i));
    if(!c)
      continue;
    if(v[i].outcome == OC_CO_NOT_EXERCISED)
      cJSON_AddNullToObject(c, "works");
    else
      cJSON_AddBoolToObject(c, "works", v[i].works == 1);
    cJSON_AddStringToObject(c, "outcome", oc_client_outcome_name(v[i].outcome));
    cJSON_AddStringToObject(c, "reason", v[i].reason);
    cJSON_AddStringToObject(c, "basis", oc_client_basis_name(oc_client_basis((enum oc_client_id)i)));
    if(oc_client_broken(&v[i]))
      cJSON_AddBoolToObject(c, "limitation", v[i].limitation != 0);
  }
  return o;
}

/* Single-quote a string for a POSIX shell. */
static int shell_quote(struct oc_buf *b, const char *s)
{
  int rc = oc_buf_addc(b, '\'');
  for(; !rc && *s; s++)
    rc = *s == '\'' ? oc_buf_adds(b, "'\\''") : oc_buf_addc(b, *s);
  return rc ? rc : oc_buf_addc(b, '\'');
}

static cJSON *reproduce(const struct oc_case_outcome *o)
{
  const struct oc_built_request *rq = o->request;
  cJSON *r = cJSON_CreateObject();
  if(!r || !rq)
    return r;
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_FILE);
  char base[512];
  if(o->target->live)
    oc_url_redact(o->target->url, base, sizeof(base));
  else
    snprintf(base, sizeof(base), "http://127.0.0.1:8080");
  oc_buf_printf(&b, "curl -sS -N -X %s ", rq->method);
  char *url = oc_asprintf("%s%s", base, rq->path);
  if(url)
    shell_quote(&b, url);
  free(url);
  for(size_t i = 0; i < rq->headers.count; i++) {
    const struct oc_header *h = &rq->headers.items[i];
    char *hv = oc_asprintf("%s: %s", h->name,
                           oc_header_is_secret(h->name) ? "[redacted]" : h->value);
    oc_buf_adds(&b, " -H ");
    if(hv)
      shell_quote(&b, hv);
    free(hv);
  }
  /* the key stays a variable reference, never a value */
  if(o->target->live)
    oc_buf_printf(&b, " -H \"Authorization: Bearer $%s\"",
                  o->target->key_env ? o->target->key_env : "OPENAI_API_KEY");
  if(rq->body) {
    oc_buf_adds(&b, " --data-binary ");
    shell_quote(&b, rq->body);
  }
  cJSON_AddStringToObject(r, "curl", oc_buf_str(&b));
  oc_buf_reset(&b);
  /* a shipped suite by name; any other by the file it came from */
  char *shipped = oc_suite_resolve(o->kase->suite);
  const char *suite = shipped && o->kase->file && strcmp(shipped, o->kase->file) == 0
                        ? o->kase->suite
                        : (o->kase->file ? o->kase->file : o->kase->suite);
  if(o->target->live) {
    char red[512];
    oc_url_redact(o->target->url, red, sizeof(red));
    oc_buf_printf(&b, "oacheck run %s --target %s=%s --filter '%s/%s'", suite,
                  o->target->name, red, o->kase->suite, o->kase->name);
  }
  else
    oc_buf_printf(&b, "oacheck run %s --replay %s --filter '%s/%s'", suite,
                  o->target->recordings, o->kase->suite, o->kase->name);
  free(shipped);
  if(o->target->profile && strcmp(o->target->profile_source, "auto") != 0)
    oc_buf_printf(&b, " --profile %s", o->target->profile->name);
  cJSON_AddStringToObject(r, "oacheck", oc_buf_str(&b));
  oc_buf_free(&b);
  return r;
}

static cJSON *request_json(const struct oc_case_outcome *o)
{
  cJSON *r = cJSON_CreateObject();
  if(!r)
    return NULL;
  const struct oc_built_request *rq = o->request;
  const char *method = rq ? rq->method : oc_json_str(o->kase->request, "method");
  const char *path = rq ? rq->path : oc_json_str(o->kase->request, "path");
  cJSON_AddStringToObject(r, "method", method ? method : "GET");
  cJSON_AddStringToObject(r, "path", path ? path : "/");
  if(o->target->live && path) {
    char red[512];
    oc_url_redact(o->target->url, red, sizeof(red));
    char *u = oc_asprintf("%s%s", red, path);
    if(u)
      cJSON_AddStringToObject(r, "url", u);
    free(u);
  }
  if(rq) {
    cJSON_AddItemToObject(r, "headers", oc_headers_json(&rq->headers));
    if(rq->body) {
      cJSON *b = oc_body_json(rq->body, rq->body_len, OC_CAP_RESULT_BODY);
      if(b && rq->body_json && rq->body_len <= OC_CAP_RESULT_BODY)
        cJSON_AddItemToObject(b, "json", cJSON_Duplicate(rq->body_json, 1));
      if(b)
        cJSON_AddItemToObject(r, "body", b);
    }
  }
  return r;
}

cJSON *oc_result_json(struct oc_case_outcome *o)
{
  cJSON *r = cJSON_CreateObject();
  if(!r)
    return NULL;
  const struct oc_case *k = o->kase;
  cJSON_AddStringToObject(r, "target", o->target->name);
  cJSON_AddStringToObject(r, "suite", k->suite);
  cJSON_AddStringToObject(r, "case", k->name);
  cJSON_AddNumberToObject(r, "index", (double)k->order);
  if(k->file) {
    cJSON_AddStringToObject(r, "suite_file", k->file);
    if(k->line >= 1)
      cJSON_AddNumberToObject(r, "suite_line", k->line);
  }
  if(k->description)
    cJSON_AddStringToObject(r, "description", k->description);
  cJSON *tags = cJSON_AddArrayToObject(r, "tags");
  for(size_t i = 0; tags && i < k->ntags; i++)
    cJSON_AddItemToArray(tags, cJSON_CreateString(k->tags[i]));
  cJSON_AddStringToObject(r, "status", oc_case_status(o));
  add_str_or_null(r, "reason", o->reason);
  if(oc_row_name(o->checklist))
    cJSON_AddStringToObject(r, "checklist", oc_row_name(o->checklist));
  cJSON_AddStringToObject(r, "profile", o->target->profile ? o->target->profile->name : "openai");
  if(o->duration_ms >= 0)
    cJSON_AddNumberToObject(r, "duration_ms", o->duration_ms);
  else
    cJSON_AddNullToObject(r, "duration_ms");
  cJSON *fs = cJSON_AddArrayToObject(r, "findings");
  cJSON *sup = cJSON_CreateArray();
  if(o->findings) {
    for(size_t i = 0; fs && i < o->findings->count; i++) {
      cJSON *f = oc_finding_json(&o->findings->items[i]);
      if(f)
        cJSON_AddItemToArray(fs, f);
    }
    for(size_t i = 0; sup && i < o->findings->ncounts; i++) {
      const struct oc_rule_count *c = &o->findings->counts[i];
      if(c->total > c->kept) {
        cJSON *s = cJSON_CreateObject();
        if(!s)
          continue;
        cJSON_AddStringToObject(s, "rule", oc_rule_name(c->rule));
        cJSON_AddNumberToObject(s, "total", (double)c->total);
        cJSON_AddNumberToObject(s, "kept", (double)c->kept);
        cJSON_AddItemToArray(sup, s);
      }
    }
  }
  if(sup && cJSON_GetArraySize(sup) > 0)
    cJSON_AddItemToObject(r, "suppressed", sup);
  else
    cJSON_Delete(sup);
  cJSON_AddItemToObject(r, "request", request_json(o));
  if(o->response) {
    cJSON_AddStringToObject(o->response, "source", o->source ? o->source : "live");
    cJSON_AddItemToObject(r, "response", o->response);
    o->response = NULL;
  }
  else
    cJSON_AddNullToObject(r, "response");
  if(o->verdicts)
    cJSON_AddItemToObject(r, "clients", oc_clients_json(o->verdicts));
  if(o->message)
    cJSON_AddItemToObject(r, "message", cJSON_Duplicate(o->message, 1));
  if(o->timing)
    cJSON_AddItemToObject(r, "timing", cJSON_Duplicate(o->timing, 1));
  if(o->retries) {
    cJSON_AddItemToObject(r, "retries", o->retries);
    o->retries = NULL;
  }
  if(o->request)
    cJSON_AddItemToObject(r, "reproduce", reproduce(o));
  return r;
}
