/* result.c — turning a finished case into its results-schema object.  The
 * status follows from the findings exactly as DESIGN.md says: error when
 * the exchange could not be completed, fail when a finding of severity
 * error was not allowed, skip when the case could not apply, else pass. */
#include "config.h"
#include "result.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "protocol.h"
#include "request.h"
#include "secret.h"
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

cJSON *oc_finding_json(const struct oc_finding *f)
{
  int oom = 0;
  cJSON *o = cJSON_CreateObject();
  oc_json_put_str(&oom, o, "rule", oc_rule_name(f->rule));
  oc_json_put_str(&oom, o, "severity", oc_severity_name(f->severity));
  oc_json_put(&oom, o, "allowed", cJSON_CreateBool(f->allowed));
  oc_json_put_str(&oom, o, "message", f->message ? f->message : "");
  cJSON *w = oc_json_put(&oom, o, "where", cJSON_CreateObject());
  oc_json_put(&oom, w, "chunk", f->chunk >= 1 ? cJSON_CreateNumber((double)f->chunk) : cJSON_CreateNull());
  oc_json_put(&oom, w, "byte", f->byte >= 0 ? cJSON_CreateNumber((double)f->byte) : cJSON_CreateNull());
  char text[64];
  oc_finding_where_text(f, text, sizeof(text));
  oc_json_put_str(&oom, w, "text", text);
  oc_json_put_str_or_null(&oom, o, "path", f->path);
  oc_json_put_str_or_null(&oom, o, "expected", f->expected);
  oc_json_put_str_or_null(&oom, o, "actual", f->actual);
  oc_json_put_str_or_null(&oom, o, "excerpt", f->excerpt);
  if(f->clients) {
    cJSON *cl = oc_json_put(&oom, o, "clients", cJSON_CreateArray());
    for(int i = 0; !oom && i < OC_CLIENT__COUNT; i++)
      if(f->clients & (1u << i))
        oc_json_put_str(&oom, cl, NULL, oc_client_name((enum oc_client_id)i));
    for(int a = 0; !oom && a < OC_AGENT__COUNT; a++)
      if(f->clients & OC_CLIENTS_AGENT(a))
        oc_json_put_str(&oom, cl, NULL, oc_agent_name((enum oc_agent_id)a));
  }
  if(f->spec_only)
    oc_json_put(&oom, o, "spec_only", cJSON_CreateTrue());
  if(oom) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

cJSON *oc_clients_json(const struct oc_client_verdict *v)
{
  int oom = 0;
  cJSON *o = cJSON_CreateObject();
  for(int i = 0; !oom && i < OC_CLIENT__COUNT; i++) {
    if(!v[i].modelled)
      continue; /* a previous major the run did not select */
    cJSON *c = oc_json_put(&oom, o, oc_client_name((enum oc_client_id)i), cJSON_CreateObject());
    oc_json_put(&oom, c, "works",
                v[i].outcome == OC_CO_NOT_EXERCISED ? cJSON_CreateNull() : cJSON_CreateBool(v[i].works == 1));
    oc_json_put_str(&oom, c, "outcome", oc_client_outcome_name(v[i].outcome));
    oc_json_put_str(&oom, c, "reason", v[i].reason);
    oc_json_put_str(&oom, c, "basis", oc_client_basis_name(oc_client_basis((enum oc_client_id)i)));
    if(oc_client_broken(&v[i]))
      oc_json_put(&oom, c, "limitation", cJSON_CreateBool(v[i].limitation != 0));
    else if(oc_client_server_fault(&v[i]))
      oc_json_put(&oom, c, "server_fault", cJSON_CreateTrue());
    if(v[i].reasoning != OC_CR_NA) {
      oc_json_put_str(&oom, c, "reasoning", oc_client_reasoning_name(v[i].reasoning));
      oc_json_put(&oom, c, "reasoning_leak", cJSON_CreateBool(v[i].reasoning_leak == 1));
    }
  }
  if(oom) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

/* Single-quote a string for a POSIX shell. */
static int shell_quote(struct oc_buf *b, const char *s)
{
  int rc = oc_buf_addc(b, '\'');
  /* the runs between quotes at once: a body is long and has few */
  while(!rc && *s) {
    size_t run = strcspn(s, "'");
    rc = oc_buf_add(b, s, run);
    s += run;
    if(!rc && *s == '\'') {
      rc = oc_buf_adds(b, "'\\''");
      s++;
    }
  }
  return rc ? rc : oc_buf_addc(b, '\'');
}

/* A word for the shell: bare when it holds nothing the shell would read
 * (so the usual names stay as they are), single-quoted otherwise. */
static int shell_word(struct oc_buf *b, const char *s)
{
  if(*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=@%+,-") ==
             strlen(s))
    return oc_buf_adds(b, s);
  return shell_quote(b, s);
}

/* u as a command or a report may show it: user information dropped, the
 * query kept with key-like values "[redacted]" (url.h).  Caller frees;
 * NULL when memory runs out. */
static char *shown_url(const char *u)
{
  size_t room = strlen(u) * 6 + 16; /* "k=" may become "k=[redacted]" */
  char *out = malloc(room);
  if(out)
    oc_url_redact_query(u, out, room);
  return out;
}

/* Where the request went, as shown: a live target's base URL joined with
 * the path as the runner joined them (its query, such as Azure's
 * api-version, after the path's own), a replay's stand-in server's. */
static char *request_url(const struct oc_case_outcome *o, const char *path)
{
  if(!o->target->live)
    return oc_asprintf("http://127.0.0.1:8080%s", path);
  char *full = oc_url_join(o->target->base, path);
  char *u = full ? shown_url(full) : NULL;
  free(full);
  return u;
}

/* The commands, each built in one buffer and checked once: a command
 * that cannot be built whole is left out (past its cap) or fails the
 * object (out of memory, NULL), never written with a piece missing. */
static cJSON *reproduce(const struct oc_case_outcome *o)
{
  const struct oc_built_request *rq = o->request;
  cJSON *r = cJSON_CreateObject();
  if(!r || !rq)
    return r;
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_FILE);
  oc_buf_printf(&b, "curl -sS -N -X %s ", rq->method);
  char *url = request_url(o, rq->path);
  if(url)
    shell_quote(&b, url);
  int oom = !url;
  free(url);
  /* the key stays a variable reference, never a value; a request that
   * carries its own credential header (a proxied client's) gets the
   * variable in its place, not a literal "[redacted]" that curl would
   * send beside it */
  const char *key_env = o->target->key_env ? o->target->key_env : "OPENAI_API_KEY";
  /* Anthropic's Messages API: the key as its SDK sends it, x-api-key from
   * $ANTHROPIC_API_KEY unless the target names its own variable
   * (oc_target_messages_headers) */
  enum oc_api api = oc_api_from_path(rq->path);
  int messages = api == OC_API_MESSAGES || api == OC_API_MESSAGES_COUNT_TOKENS;
  if(messages && !o->target->key_env_given)
    key_env = "ANTHROPIC_API_KEY";
  int auth = 0;
  for(size_t i = 0; i < rq->headers.count; i++) {
    const struct oc_header *h = &rq->headers.items[i];
    if(oc_header_is_secret(h->name) && oc_strcaseeq(h->name, "authorization")) {
      if(!auth)
        oc_buf_printf(&b, " -H \"Authorization: Bearer $%s\"", key_env);
      auth = 1;
      continue;
    }
    /* another credential header (api-key, x-api-key): its name, then the variable */
    int secret = oc_header_is_secret(h->name);
    char *hv = oc_asprintf("%s: %s", h->name, secret ? "" : h->value);
    oc_buf_adds(&b, " -H ");
    if(hv)
      shell_quote(&b, hv);
    if(secret)
      oc_buf_printf(&b, "\"$%s\"", key_env);
    oom |= !hv;
    free(hv);
  }
  if(o->target->live && !auth && messages) {
    if(!oc_headers_get(&rq->headers, "x-api-key"))
      oc_buf_printf(&b, " -H \"x-api-key: $%s\"", key_env);
    if(!oc_headers_get(&rq->headers, "anthropic-version"))
      oc_buf_adds(&b, " -H 'anthropic-version: 2023-06-01'");
  }
  else if(o->target->live && !auth)
    oc_buf_printf(&b, " -H \"Authorization: Bearer $%s\"", key_env);
  if(rq->body) {
    oc_buf_adds(&b, " --data-binary ");
    shell_quote(&b, rq->body);
  }
  if(oom || oc_buf_error(&b) == OC_ENOMEM)
    goto fail;
  if(!oc_buf_error(&b) && !oc_json_put_str(&oom, r, "curl", oc_buf_str(&b)))
    goto fail;
  oc_buf_reset(&b);
  if(o->no_suite) {
    /* no suite file behind it (proxy traffic): its own command, if any */
    if(o->reproduce_oacheck && !oc_json_put_str(&oom, r, "oacheck", o->reproduce_oacheck))
      goto fail;
    oc_buf_free(&b);
    return r;
  }
  /* a shipped suite by name; any other by the file it came from */
  const char *suite = o->kase->shipped || !o->kase->file ? o->kase->suite : o->kase->file;
  /* every word quoted for the shell where it needs it: a case named
   * "it's" must not end the command early.  A target's key in another
   * variable (a targets file's key_env) goes where --target looks for
   * it, as a reference, never a value (the form of key_env is checked
   * when the file loads: letters, digits, _) */
  const struct oc_target *t = o->target;
  if(t->live && t->key_env && !oc_streq(t->key_env, "OPENAI_API_KEY"))
    oc_buf_printf(&b, "OPENAI_API_KEY=$%s ", t->key_env);
  oc_buf_adds(&b, "oacheck run ");
  shell_word(&b, suite);
  if(o->target->live) {
    char *red = shown_url(o->target->base);
    /* a router's model is a target NAME/MODEL, which --target does not
     * take: the router's own name, and the model below */
    char *spec = red ? oc_asprintf("%s=%s", t->router_name ? t->router_name : t->name, red) : NULL;
    free(red);
    oom |= !spec;
    oc_buf_adds(&b, " --target ");
    shell_word(&b, spec ? spec : "");
    free(spec);
  }
  else {
    /* the shipped default target holds every protocol's folder: the
     * case's own */
    const char *path = o->request ? o->request->path : oc_json_str(o->kase->request, "path");
    const struct oc_protocol *p = oc_protocol_of(oc_api_from_path(path));
    const char *dir = p && o->target->proto_recordings[p->id] ? o->target->proto_recordings[p->id]
                                                               : o->target->recordings;
    oc_buf_adds(&b, " --replay ");
    shell_word(&b, dir);
  }
  char *filter = oc_asprintf("%s/%s", o->kase->suite, o->kase->name);
  oom |= !filter;
  oc_buf_adds(&b, " --filter ");
  shell_quote(&b, filter ? filter : "");
  free(filter);
  if(o->target->profile && strcmp(o->target->profile_source, "auto") != 0)
    oc_buf_printf(&b, " --profile %s", o->target->profile->name);
  /* the model and context the case ran with, when they were given (an
   * option, a targets file, a router's model): the first id of
   * /v1/models may be another model */
  if(t->model) {
    oc_buf_adds(&b, " --model ");
    shell_word(&b, t->model);
  }
  if(t->ctx_size > 0)
    oc_buf_printf(&b, " --ctx-size %ld", t->ctx_size);
  if(oom || oc_buf_error(&b) == OC_ENOMEM)
    goto fail;
  if(!oc_buf_error(&b) && !oc_json_put_str(&oom, r, "oacheck", oc_buf_str(&b)))
    goto fail;
  oc_buf_free(&b);
  return r;
fail:
  oc_buf_free(&b);
  cJSON_Delete(r);
  return NULL;
}

static cJSON *request_json(const struct oc_case_outcome *o)
{
  int oom = 0;
  cJSON *r = cJSON_CreateObject();
  const struct oc_built_request *rq = o->request;
  const char *method = rq ? rq->method : oc_json_str(o->kase->request, "method");
  const char *path = rq ? rq->path : oc_json_str(o->kase->request, "path");
  oc_json_put_str(&oom, r, "method", method ? method : "GET");
  oc_json_put_str(&oom, r, "path", path ? path : "/");
  if(o->target->live && path) {
    char *u = request_url(o, path);
    oc_json_put(&oom, r, "url", u ? cJSON_CreateString(u) : NULL);
    free(u);
  }
  if(rq) {
    oc_json_put(&oom, r, "headers", oc_headers_json(&rq->headers));
    if(rq->body) {
      cJSON *b = oc_json_put(&oom, r, "body", oc_body_json(rq->body, rq->body_len, OC_CAP_RESULT_BODY));
      if(rq->body_json && rq->body_len <= OC_CAP_RESULT_BODY)
        oc_json_put(&oom, b, "json", cJSON_Duplicate(rq->body_json, 1));
    }
  }
  if(oom) {
    cJSON_Delete(r);
    return NULL;
  }
  return r;
}

/* NULL when memory runs out: a result with a part missing would be read
 * as the whole story. */
cJSON *oc_result_json(struct oc_case_outcome *o)
{
  int oom = 0;
  cJSON *r = cJSON_CreateObject();
  const struct oc_case *k = o->kase;
  oc_json_put_str(&oom, r, "target", o->target->name);
  oc_json_put_str(&oom, r, "suite", k->suite);
  oc_json_put_str(&oom, r, "case", k->name);
  oc_json_put(&oom, r, "index", cJSON_CreateNumber((double)k->order));
  if(k->file) {
    oc_json_put_str(&oom, r, "suite_file", k->file);
    if(k->line >= 1)
      oc_json_put(&oom, r, "suite_line", cJSON_CreateNumber(k->line));
  }
  oc_json_put_str(&oom, r, "description", k->description);
  cJSON *tags = oc_json_put(&oom, r, "tags", cJSON_CreateArray());
  for(size_t i = 0; !oom && i < k->ntags; i++)
    oc_json_put(&oom, tags, NULL, cJSON_CreateString(k->tags[i]));
  oc_json_put_str(&oom, r, "status", oc_case_status(o));
  oc_json_put_str_or_null(&oom, r, "reason", o->reason);
  if(o->not_run)
    oc_json_put_str(&oom, r, "not_run", o->not_run);
  oc_json_put_str(&oom, r, "checklist", o->checklist);
  {
    const char *path = o->request ? o->request->path : oc_json_str(o->kase->request, "path");
    oc_json_put_str(&oom, r, "protocol", oc_protocol_name_of(oc_api_from_path(path)));
  }
  oc_json_put_str(&oom, r, "profile", o->target->profile ? o->target->profile->name : "openai");
  oc_json_put(&oom, r, "duration_ms",
              o->duration_ms >= 0 ? cJSON_CreateNumber(o->duration_ms) : cJSON_CreateNull());
  cJSON *fs = oc_json_put(&oom, r, "findings", cJSON_CreateArray());
  cJSON *sup = NULL;
  if(o->findings) {
    for(size_t i = 0; !oom && i < o->findings->count; i++)
      oc_json_put(&oom, fs, NULL, oc_finding_json(&o->findings->items[i]));
    for(size_t i = 0; !oom && i < o->findings->ncounts; i++) {
      const struct oc_rule_count *c = &o->findings->counts[i];
      if(c->total <= c->kept)
        continue;
      if(!sup)
        sup = oc_json_put(&oom, r, "suppressed", cJSON_CreateArray());
      cJSON *s = oc_json_put(&oom, sup, NULL, cJSON_CreateObject());
      oc_json_put_str(&oom, s, "rule", oc_rule_name(c->rule));
      oc_json_put(&oom, s, "total", cJSON_CreateNumber((double)c->total));
      oc_json_put(&oom, s, "kept", cJSON_CreateNumber((double)c->kept));
    }
  }
  oc_json_put(&oom, r, "request", request_json(o));
  if(o->response) {
    oc_json_put_str(&oom, o->response, "source", o->source ? o->source : "live");
    oc_json_put(&oom, r, "response", o->response);
    o->response = NULL; /* taken over, also when it failed */
  }
  else
    oc_json_put(&oom, r, "response", cJSON_CreateNull());
  if(o->verdicts)
    oc_json_put(&oom, r, "clients", oc_clients_json(o->verdicts));
  cJSON *agents = o->agents ? oc_agents_json(o->agents) : NULL;
  if(agents)
    oc_json_put(&oom, r, "agents", agents);
  if(o->message)
    oc_json_put(&oom, r, "message", cJSON_Duplicate(o->message, 1));
  if(o->timing)
    oc_json_put(&oom, r, "timing", cJSON_Duplicate(o->timing, 1));
  if(o->retries) {
    oc_json_put(&oom, r, "retries", o->retries);
    o->retries = NULL;
  }
  if(o->request)
    oc_json_put(&oom, r, "reproduce", reproduce(o));
  if(oom) {
    cJSON_Delete(r);
    return NULL;
  }
  /* whatever the server quoted back (a key in an error message, a header,
   * a chunk) is masked before anyone sees the result */
  oc_secret_mask_json(r);
  return r;
}
