/* deployment.c — a deployment's facts (/props, /slots, /metrics), the
 * flags they show, and the diagnoses that tie a finding to them.  Every
 * value read from a server is checked for type and range first: a hostile
 * /props yields "unknown", never a wrong number.  What a diagnosis says is
 * computed here from the facts and the case's own response; the general
 * cause and the fix come from fixes.def. */
#include "config.h"
#include "deployment.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jdoc.h"
#include "json.h"
#include "rules.h"
#include "cassette.h"
#include "target.h"

const struct oc_diag oc_diags[OC_DIAG__COUNT] = {
#define FIX(rule, server, fix)
#define DIAG(name, id, server, flags, rules, cause, fix) \
  [OC_DIAG_##name] = { OC_DIAG_##name, id, server, flags, rules, cause, fix },
#include "fixes.def"
#undef FIX
#undef DIAG
};

const struct oc_rule_fix oc_rule_fixes[] = {
#define FIX(rule, server, fix) { OC_R_##rule, server, fix },
#define DIAG(name, id, server, flags, rules, cause, fix)
#include "fixes.def"
#undef FIX
#undef DIAG
};
const size_t oc_rule_nfixes = sizeof(oc_rule_fixes) / sizeof(oc_rule_fixes[0]);

void oc_deployment_init(struct oc_deployment *d)
{
  memset(d, 0, sizeof(*d));
  d->n_ctx = d->total_slots = -1;
  d->endpoint_slots = d->endpoint_props = d->endpoint_metrics = -1;
  d->tools = d->tool_calls = d->parallel_tool_calls = d->system_role = -1;
}

void oc_deployment_free(struct oc_deployment *d)
{
  if(!d)
    return;
  free(d->build);
  free(d->slots);
  oc_deployment_init(d);
}

/* A count a server reports: an integer in [lo, hi], else -1. */
static long count_of(const cJSON *v, long lo, long hi)
{
  if(!oc_json_is_integer(v) || v->valuedouble < (double)lo || v->valuedouble > (double)hi)
    return -1;
  return (long)v->valuedouble;
}

static int bool_of(const cJSON *v)
{
  return cJSON_IsBool(v) ? cJSON_IsTrue(v) : -1;
}

void oc_deployment_from_props(struct oc_deployment *d, const cJSON *props)
{
  if(!cJSON_IsObject(props))
    return;
  const cJSON *dgs = oc_json_obj(props, "default_generation_settings");
  const char *build = oc_json_str(props, "build_info");
  d->llama = build || dgs || oc_json_get(props, "total_slots");
  if(!d->llama)
    return;
  if(build) {
    free(d->build);
    d->build = oc_utf8_sanitize(build, strlen(build));
  }
  d->n_ctx = count_of(oc_json_get(dgs, "n_ctx"), 1, 1L << 30);
  if(d->n_ctx < 0)
    d->n_ctx = count_of(oc_json_get(props, "n_ctx"), 1, 1L << 30);
  d->total_slots = count_of(oc_json_get(props, "total_slots"), 0, 1L << 20);
  d->endpoint_slots = bool_of(oc_json_get(props, "endpoint_slots"));
  d->endpoint_props = bool_of(oc_json_get(props, "endpoint_props"));
  d->endpoint_metrics = bool_of(oc_json_get(props, "endpoint_metrics"));
  const cJSON *caps = oc_json_obj(props, "chat_template_caps");
  d->tools = bool_of(oc_json_get(caps, "supports_tools"));
  d->tool_calls = bool_of(oc_json_get(caps, "supports_tool_calls"));
  d->parallel_tool_calls = bool_of(oc_json_get(caps, "supports_parallel_tool_calls"));
  d->system_role = bool_of(oc_json_get(caps, "supports_system_role"));
}

static void read_slots(struct oc_deployment *d, const cJSON *doc)
{
  if(!cJSON_IsArray(doc))
    return;
  size_t n = (size_t)cJSON_GetArraySize(doc);
  if(n > OC_DEPLOYMENT_MAX_SLOTS)
    n = OC_DEPLOYMENT_MAX_SLOTS;
  free(d->slots);
  d->slots = calloc(n ? n : 1, sizeof(*d->slots));
  d->nslots = 0;
  if(!d->slots)
    return;
  const cJSON *s;
  cJSON_ArrayForEach(s, doc)
  {
    if(d->nslots == n)
      break;
    if(!cJSON_IsObject(s))
      continue;
    struct oc_slot_fact *f = &d->slots[d->nslots++];
    f->id = count_of(oc_json_get(s, "id"), 0, 1L << 20);
    f->n_ctx = count_of(oc_json_get(s, "n_ctx"), 1, 1L << 30);
    f->processing = bool_of(oc_json_get(s, "is_processing"));
  }
  d->slots_known = 1;
}

/* One gauge of Prometheus text ("llamacpp:requests_processing 0"). */
static int metric(const char *text, size_t len, const char *name, double *out)
{
  size_t nl = strlen(name);
  for(size_t i = 0; i < len;) {
    size_t e = i;
    while(e < len && text[e] != '\n')
      e++;
    if(e - i > nl + 1 && memcmp(text + i, name, nl) == 0 && text[i + nl] == ' ') {
      char num[64];
      size_t k = e - i - nl - 1;
      if(k >= sizeof(num))
        k = sizeof(num) - 1;
      memcpy(num, text + i + nl + 1, k);
      num[k] = '\0';
      char *end;
      double v = strtod(num, &end);
      if(end != num && isfinite(v)) {
        *out = v;
        return 1;
      }
    }
    i = e + 1;
  }
  return 0;
}

static void read_metrics(struct oc_deployment *d, const char *text, size_t len)
{
  int n = metric(text, len, "llamacpp:requests_processing", &d->requests_processing);
  n += metric(text, len, "llamacpp:requests_deferred", &d->requests_deferred);
  n += metric(text, len, "llamacpp:n_tokens_max", &d->n_tokens_max);
  d->metrics_known = n == 3;
}

int oc_deployment_gather(struct oc_deployment *d, struct oc_target *t,
                         const struct oc_identify_options *o)
{
  if(!d->llama)
    return OC_OK;
  static const char *const paths[] = { "/slots", "/metrics" };
  for(size_t i = 0; i < OC_ARRAY_LEN(paths); i++) {
    if(i == 0 && d->endpoint_slots == 0)
      continue;
    if(i == 1 && d->endpoint_metrics != 1)
      continue;
    int status;
    char *body = NULL;
    size_t len;
    char err[600];
    struct oc_headers h;
    oc_headers_init(&h);
    int rc = oc_target_fetch(t, o, "GET", paths[i], NULL, &status, &h, &body, &len, err, sizeof(err));
    oc_headers_free(&h);
    if(rc == OC_ENOMEM)
      return rc;
    if(rc == OC_OK && status == 200 && body) {
      if(i == 0) {
        cJSON *doc = oc_json_parse(body, len, NULL);
        read_slots(d, doc);
        cJSON_Delete(doc);
      }
      else
        read_metrics(d, body, len);
    }
    else
      oc_debug("target %s: GET %s: %s", t->name, paths[i], rc ? err : "not answered with 200");
    free(body);
  }
  return OC_OK;
}

int oc_deployment_slots(const struct oc_deployment *d)
{
  return d->llama && d->total_slots > 0 && d->total_slots < 100000 ? (int)d->total_slots : 0;
}

static void add_bool(int *oom, cJSON *o, const char *key, int v)
{
  if(v >= 0)
    oc_json_put(oom, o, key, cJSON_CreateBool(v));
}

/* What n_ctx per slot means for -c: with one slot it is -c; with more, a
 * unified cache and a split one report the same, so both are named. */
static char *context_text(const struct oc_deployment *d)
{
  if(d->n_ctx < 0)
    return NULL;
  if(d->total_slots <= 1)
    return oc_asprintf("%ld tokens per request (-c %ld)", d->n_ctx, d->n_ctx);
  return oc_asprintf("%ld tokens per slot: -c %ld with --kv-unified (one cache the %ld slots "
                     "share), or -c %ld split over them",
                     d->n_ctx, d->n_ctx, d->total_slots, d->n_ctx * d->total_slots);
}

cJSON *oc_deployment_json(const struct oc_deployment *d)
{
  if(!d->llama)
    return NULL;
  int oom = 0;
  cJSON *o = cJSON_CreateObject();
  if(!o)
    return NULL;
  oc_json_put_str(&oom, o, "server", "llama-server");
  if(d->build)
    oc_json_put_str(&oom, o, "build", d->build);
  if(d->n_ctx >= 0)
    oc_json_put(&oom, o, "n_ctx", cJSON_CreateNumber((double)d->n_ctx));
  if(d->total_slots >= 0)
    oc_json_put(&oom, o, "total_slots", cJSON_CreateNumber((double)d->total_slots));
  char *ctx = context_text(d);
  if(ctx)
    oc_json_put_str(&oom, o, "context", ctx);
  free(ctx);
  if(d->slots_known) {
    cJSON *a = oc_json_put(&oom, o, "slots", cJSON_CreateArray());
    for(size_t i = 0; a && i < d->nslots; i++) {
      cJSON *s = oc_json_put(&oom, a, NULL, cJSON_CreateObject());
      if(!s)
        break;
      if(d->slots[i].id >= 0)
        oc_json_put(&oom, s, "id", cJSON_CreateNumber((double)d->slots[i].id));
      if(d->slots[i].n_ctx >= 0)
        oc_json_put(&oom, s, "n_ctx", cJSON_CreateNumber((double)d->slots[i].n_ctx));
      add_bool(&oom, s, "processing", d->slots[i].processing);
    }
  }
  cJSON *e = oc_json_put(&oom, o, "endpoints", cJSON_CreateObject());
  add_bool(&oom, e, "slots", d->endpoint_slots);
  add_bool(&oom, e, "props", d->endpoint_props);
  add_bool(&oom, e, "metrics", d->endpoint_metrics);
  cJSON *tp = oc_json_put(&oom, o, "template", cJSON_CreateObject());
  add_bool(&oom, tp, "tools", d->tools);
  add_bool(&oom, tp, "tool_calls", d->tool_calls);
  add_bool(&oom, tp, "parallel_tool_calls", d->parallel_tool_calls);
  add_bool(&oom, tp, "system_role", d->system_role);
  if(d->metrics_known) {
    cJSON *m = oc_json_put(&oom, o, "metrics", cJSON_CreateObject());
    oc_json_put(&oom, m, "requests_processing", cJSON_CreateNumber(d->requests_processing));
    oc_json_put(&oom, m, "requests_deferred", cJSON_CreateNumber(d->requests_deferred));
    oc_json_put(&oom, m, "n_tokens_max", cJSON_CreateNumber(d->n_tokens_max));
  }
  /* the flags the facts show; -c is in "context" (it cannot be told apart) */
  cJSON *fl = oc_json_put(&oom, o, "flags", cJSON_CreateArray());
  char tmp[64];
  if(fl && d->total_slots > 0) {
    snprintf(tmp, sizeof(tmp), "-np %ld", d->total_slots);
    oc_json_put(&oom, fl, NULL, cJSON_CreateString(tmp));
  }
  if(fl && d->endpoint_metrics == 1)
    oc_json_put(&oom, fl, NULL, cJSON_CreateString("--metrics"));
  if(fl && d->endpoint_slots == 0)
    oc_json_put(&oom, fl, NULL, cJSON_CreateString("--no-slots"));
  if(fl && d->endpoint_props == 1)
    oc_json_put(&oom, fl, NULL, cJSON_CreateString("--props"));
  cJSON *src = oc_json_put(&oom, o, "sources", cJSON_CreateArray());
  if(src) {
    oc_json_put(&oom, src, NULL, cJSON_CreateString("/props"));
    if(d->slots_known)
      oc_json_put(&oom, src, NULL, cJSON_CreateString("/slots"));
    if(d->metrics_known)
      oc_json_put(&oom, src, NULL, cJSON_CreateString("/metrics"));
  }
  if(oom) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

int oc_deployment_text(const cJSON *dep, struct oc_buf *b)
{
  int rc = OC_OK;
  if(!cJSON_IsObject(dep))
    return OC_OK;
  const char *server = oc_json_str(dep, "server");
  const char *build = oc_json_str(dep, "build");
  rc |= oc_buf_printf(b, "%s%s%s", server ? server : "server", build ? " " : "", build ? build : "");
  long slots = count_of(oc_json_get(dep, "total_slots"), 0, 1L << 20);
  long n_ctx = count_of(oc_json_get(dep, "n_ctx"), 1, 1L << 30);
  if(slots >= 0 || n_ctx >= 0) {
    rc |= oc_buf_adds(b, ": ");
    if(slots >= 0)
      rc |= oc_buf_printf(b, "%ld slot%s", slots, slots == 1 ? "" : "s");
    if(n_ctx >= 0)
      rc |= oc_buf_printf(b, "%s%ld tokens%s", slots >= 0 ? " × " : "", n_ctx, slots >= 0 ? " each" : "");
  }
  const char *ctx = oc_json_str(dep, "context");
  if(ctx && slots > 1)
    rc |= oc_buf_printf(b, " (-c %ld --kv-unified, or -c %ld split)", n_ctx, n_ctx * slots);
  const cJSON *sl = oc_json_arr(dep, "slots");
  if(sl) {
    int busy = 0, n = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, sl)
    {
      n++;
      busy += cJSON_IsTrue(oc_json_get(s, "processing"));
    }
    rc |= oc_buf_printf(b, "; /slots: %d, %d busy", n, busy);
  }
  const cJSON *fl = oc_json_arr(dep, "flags");
  if(cJSON_GetArraySize(fl) > 0) {
    rc |= oc_buf_adds(b, "; flags seen:");
    const cJSON *f;
    cJSON_ArrayForEach(f, fl)
      if(cJSON_IsString(f))
        rc |= oc_buf_printf(b, " %s", f->valuestring);
  }
  const cJSON *args = oc_json_arr(dep, "args");
  if(cJSON_GetArraySize(args) > 1) {
    /* a router's model: its own command line, as the router reports it */
    rc |= oc_buf_adds(b, "; started with:");
    const cJSON *x;
    int k = 0;
    cJSON_ArrayForEach(x, args)
      if(cJSON_IsString(x) && k++ > 0)
        rc |= oc_buf_printf(b, " %s", x->valuestring);
  }
  const cJSON *tp = oc_json_obj(dep, "template");
  const cJSON *tc = oc_json_get(tp, "tool_calls");
  if(cJSON_IsBool(tc))
    rc |= oc_buf_printf(b, "; template: %s", cJSON_IsTrue(tc) ? "tool calls" : "no tool syntax");
  if(cJSON_IsTrue(tc) && cJSON_IsFalse(oc_json_get(tp, "parallel_tool_calls")))
    rc |= oc_buf_adds(b, " (not parallel)");
  return rc ? OC_ENOMEM : OC_OK;
}

/* ---- diagnoses ------------------------------------------------------------------------ */

/* The server's own error in a case's response: the JSON error body of a
 * 4xx/5xx, or an in-band error event of a stream. */
struct server_error {
  char message[300];
  char type[64];
  long n_prompt_tokens, n_ctx;
  int in_stream;
  int found;
};

static void error_from(struct server_error *e, const cJSON *doc, int in_stream)
{
  const cJSON *err = oc_json_obj(doc, "error");
  if(!err)
    return;
  const char *m = oc_json_str(err, "message");
  const char *ty = oc_json_str(err, "type");
  oc_strlcpy(e->message, m ? m : "", sizeof(e->message));
  oc_strlcpy(e->type, ty ? ty : "", sizeof(e->type));
  e->n_prompt_tokens = count_of(oc_json_get(err, "n_prompt_tokens"), 0, 1L << 30);
  e->n_ctx = count_of(oc_json_get(err, "n_ctx"), 1, 1L << 30);
  e->in_stream = in_stream;
  e->found = 1;
}

static void find_error(const cJSON *result, struct server_error *e)
{
  memset(e, 0, sizeof(*e));
  e->n_prompt_tokens = e->n_ctx = -1;
  const cJSON *resp = oc_json_obj(result, "response");
  const cJSON *ev;
  /* the last in-band error of a stream */
  cJSON_ArrayForEach(ev, oc_json_arr(resp, "events"))
  {
    const char *data = oc_json_str(ev, "data");
    if(!data || !strstr(data, "\"error\""))
      continue;
    cJSON *doc = oc_json_parse(data, strlen(data), NULL);
    error_from(e, doc, 1);
    cJSON_Delete(doc);
  }
  if(e->found)
    return;
  int status = (int)oc_json_num(resp, "status", 0);
  const char *text = oc_json_str(oc_json_obj(resp, "body"), "text");
  if(status >= 400 && text) {
    cJSON *doc = oc_json_parse(text, strlen(text), NULL);
    error_from(e, doc, 0);
    cJSON_Delete(doc);
  }
}

static const cJSON *request_of(const cJSON *result)
{
  return oc_json_obj(oc_json_obj(oc_json_obj(result, "request"), "body"), "json");
}

/* The bound of llama-server's refusal of n ("Field 'n': Value must be
 * between 1 <= value <= 2, but got 3"), or -1 when the message is not it. */
static long n_bound(const char *msg)
{
  const char *p = strstr(msg, "'n'");
  const char *le = p ? strstr(p, "<= value <=") : NULL;
  if(!le)
    return -1;
  char *end;
  long v = strtol(le + strlen("<= value <="), &end, 10);
  return end != le + strlen("<= value <=") && v > 0 && v < (1L << 30) ? v : -1;
}

static int has_tools(const cJSON *result)
{
  const cJSON *req = oc_json_obj(oc_json_obj(oc_json_obj(result, "request"), "body"), "json");
  return cJSON_GetArraySize(oc_json_arr(req, "tools")) > 0;
}

static long max_tokens_of(const cJSON *result)
{
  const cJSON *req = oc_json_obj(oc_json_obj(oc_json_obj(result, "request"), "body"), "json");
  long n = count_of(oc_json_get(req, "max_tokens"), 0, 1L << 30);
  return n >= 0 ? n : count_of(oc_json_get(req, "max_completion_tokens"), 0, 1L << 30);
}

/* Did the case fail on something a tool-less template explains? */
static int failed_on_tools(const cJSON *result)
{
  const cJSON *f;
  cJSON_ArrayForEach(f, oc_json_arr(result, "findings"))
  {
    const char *rule = oc_json_str(f, "rule");
    const char *path = oc_json_str(f, "path");
    if(!oc_streq(oc_json_str(f, "severity"), "error") || oc_json_bool(f, "allowed", 0))
      continue;
    if((rule && oc_startswith(rule, "TOOL-")) || (path && strstr(path, "tool_calls")))
      return 1;
  }
  return 0;
}

static int has_error_finding(const cJSON *result)
{
  const cJSON *f;
  cJSON_ArrayForEach(f, oc_json_arr(result, "findings"))
    if(oc_streq(oc_json_str(f, "severity"), "error") && !oc_json_bool(f, "allowed", 0))
      return 1;
  return 0;
}

static void attach(cJSON *result, const struct oc_diag *dg, const char *cause,
                   const struct server_error *e)
{
  cJSON *f;
  cJSON_ArrayForEach(f, oc_json_arr(result, "findings"))
  {
    const char *msg = oc_json_str(f, "message");
    int error = oc_streq(oc_json_str(f, "severity"), "error") && !oc_json_bool(f, "allowed", 0);
    int quotes = e && e->message[0] && msg && strstr(msg, e->message);
    if(!error && !quotes)
      continue;
    int oom = 0;
    cJSON *o = cJSON_CreateObject();
    oc_json_put_str(&oom, o, "id", dg->id);
    oc_json_put_str(&oom, o, "server", dg->server);
    oc_json_put_str(&oom, o, "cause", cause);
    oc_json_put_str(&oom, o, "flags", dg->flags);
    oc_json_put_str(&oom, o, "fix", dg->fix);
    oc_json_set(&oom, f, "diagnosis", o); /* an earlier one is replaced */
    if(oom)
      return; /* out of memory: the rest stay undiagnosed */
  }
}

const struct oc_diag *oc_deployment_diagnose(const struct oc_deployment *d, cJSON *result,
                                             const struct oc_diag_context *ctx)
{
  if(!d || !d->llama || !result || !has_error_finding(result))
    return NULL;
  struct server_error e;
  find_error(result, &e);
  const struct oc_diag *dg = NULL;
  char *cause = NULL;
  long slots = d->total_slots, n_ctx = d->n_ctx;
  long prompt = e.n_prompt_tokens >= 0 ? e.n_prompt_tokens : ctx ? ctx->prompt_tokens : -1;
  int in_flight = ctx ? ctx->in_flight : 0;
  long bound;
  char ftxt[80] = "";
  if(in_flight > 1)
    snprintf(ftxt, sizeof(ftxt), " (%d requests were in flight)", in_flight);
  if(e.found && strstr(e.message, "requires --jinja")) {
    dg = &oc_diags[OC_DIAG_JINJA_OFF];
    cause = oc_asprintf("the server runs with --no-jinja: it refuses every request with tools "
                        "(\"%s\")", e.message);
  }
  else if(e.found && oc_startswith(e.message, "Context size has been exceeded") && slots >= 2 &&
          n_ctx > 0) {
    dg = &oc_diags[OC_DIAG_SHARED_CONTEXT];
    long mt = max_tokens_of(result);
    char ptxt[128] = "";
    if(prompt >= 0)
      snprintf(ptxt, sizeof(ptxt), " (%ld prompt tokens%s%s%s%.0ld%s)", prompt,
               e.n_prompt_tokens >= 0 || !ctx || !ctx->prompt_source ? "" : " by ",
               e.n_prompt_tokens >= 0 || !ctx || !ctx->prompt_source ? "" : ctx->prompt_source,
               mt > 0 ? ", up to " : "", mt > 0 ? mt : 0, mt > 0 ? " to generate" : "");
    /* /slots tells whether each slot sees the whole window */
    int whole = d->slots_known && d->nslots > 0;
    for(size_t i = 0; i < d->nslots; i++)
      whole &= d->slots[i].n_ctx == n_ctx;
    cause = oc_asprintf("the %ld slots (/props total_slots) share one %ld-token KV cache "
                        "(-c %ld --kv-unified%s): this request%s fits on its own but not beside "
                        "the others in flight%s, and the cache ran out %s",
                        slots, n_ctx, n_ctx, whole ? "; /slots: each slot may use all of it" : "",
                        ptxt, ftxt,
                        e.in_stream ? "after the stream began (no [DONE] follows)"
                                    : "after the request was admitted (HTTP 500)");
  }
  else if(e.found && oc_streq(e.type, "exceed_context_size_error")) {
    long c = e.n_ctx > 0 ? e.n_ctx : n_ctx;
    if(prompt >= 0 && c > 0 && slots >= 2 && prompt <= c * slots) {
      dg = &oc_diags[OC_DIAG_PER_SLOT_CONTEXT];
      long mt = max_tokens_of(result);
      long need = prompt + (mt > 0 ? mt : 0);
      cause = oc_asprintf("the request's %ld-token prompt does not fit a slot's %ld tokens: with "
                          "%ld slots that is -c %ld split per slot (no --kv-unified), which would "
                          "hold it whole, or -c %ld shared (--kv-unified); -c %ld or more (%ld "
                          "slots × %ld tokens%s) keeps -np %ld",
                          prompt, c, slots, c * slots, c, need * slots, slots, need,
                          mt > 0 ? " with max_tokens" : "", slots);
    }
    else if(prompt >= 0 && c > 0) {
      dg = &oc_diags[OC_DIAG_CONTEXT_OVERFLOW];
      cause = oc_asprintf("the request's %ld-token prompt is longer than a slot's %ld-token "
                          "context: llama-server refuses it before generating, and "
                          "--context-shift would not help (it acts only during generation)",
                          prompt, c);
    }
  }
  else if(e.found && !e.in_stream && (bound = n_bound(e.message)) > 0) {
    dg = &oc_diags[OC_DIAG_N_OVER_SLOTS];
    long asked = count_of(oc_json_get(request_of(result), "n"), 1, 1L << 30);
    char atxt[64] = "";
    if(asked > 0)
      snprintf(atxt, sizeof(atxt), " this request asks for n=%ld;", asked);
    char stxt[64] = "";
    if(slots > 0)
      snprintf(stxt, sizeof(stxt), " (/props total_slots %ld)", slots);
    cause = oc_asprintf("the server refuses n above %ld, its number of slots%s:%s each choice "
                        "takes a slot (-np %ld, --parallel)", bound, stxt, atxt, bound);
  }
  else if(has_tools(result) && (d->tool_calls == 0 || d->tools == 0) && failed_on_tools(result)) {
    dg = &oc_diags[OC_DIAG_TEMPLATE_NO_TOOLS];
    cause = oc_asprintf("the chat template has no tool syntax (/props chat_template_caps: "
                        "supports_tools %s, supports_tool_calls %s): the model never sees the "
                        "tools in a form it knows",
                        d->tools == 0 ? "false" : d->tools == 1 ? "true" : "?",
                        d->tool_calls == 0 ? "false" : d->tool_calls == 1 ? "true" : "?");
  }
  if(!dg || !cause) {
    free(cause);
    return NULL;
  }
  attach(result, dg, cause, &e);
  free(cause);
  return dg;
}

const cJSON *oc_result_diagnosis(const cJSON *result)
{
  const cJSON *f;
  cJSON_ArrayForEach(f, oc_json_arr(result, "findings"))
  {
    const cJSON *dg = oc_json_obj(f, "diagnosis");
    if(dg)
      return dg;
  }
  return NULL;
}

/* llama-server's "timings" from a JSON text, if it has them. */
static int timings_of(const char *text, double *prompt_ms, double *predicted_ms)
{
  if(!text || !strstr(text, "\"timings\""))
    return 0;
  /* jdoc, not cJSON: this runs once per result, and cJSON's parse of the
   * last chunk cost a live case more than all its other chunks' reading */
  struct oc_jdoc doc;
  oc_jdoc_init(&doc);
  int ok = 0;
  if(oc_jdoc_parse(&doc, text, strlen(text), NULL) == OC_OK) {
    const struct oc_jv *t = oc_jv_get(doc.root, "timings");
    const struct oc_jv *p = oc_jv_get(t, "prompt_ms"), *g = oc_jv_get(t, "predicted_ms");
    ok = p && g && p->type == OC_JNUMBER && g->type == OC_JNUMBER && isfinite(p->u.num) &&
         isfinite(g->u.num) && p->u.num >= 0 && g->u.num >= 0 && p->u.num < 1e9 && g->u.num < 1e9;
    if(ok) {
      *prompt_ms = p->u.num;
      *predicted_ms = g->u.num;
    }
  }
  oc_jdoc_free(&doc);
  return ok;
}

void oc_deployment_timing(cJSON *result)
{
  cJSON *timing = oc_json_obj(result, "timing");
  const cJSON *total = oc_json_get(timing, "total_ms");
  if(!timing || !oc_json_bool(timing, "recorded", 0) || !cJSON_IsNumber(total) ||
     !isfinite(total->valuedouble))
    return;
  const cJSON *resp = oc_json_obj(result, "response");
  double pm = 0, gm = 0;
  int found = 0;
  /* the last chunk with timings counts (llama-server's is the last one):
   * from the end, so a stream's other chunks are not searched at all
   * (cJSON keeps an array's last element as its first's prev) */
  const cJSON *events = oc_json_arr(resp, "events");
  const cJSON *first = events ? events->child : NULL;
  for(const cJSON *ev = first ? first->prev : NULL; ev && !found; ev = ev == first ? NULL : ev->prev)
    found = timings_of(oc_json_str(ev, "data"), &pm, &gm);
  if(!found && !cJSON_GetArraySize(events))
    found = timings_of(oc_json_str(oc_json_obj(resp, "body"), "text"), &pm, &gm);
  if(!found)
    return;
  double server = pm + gm;
  double wait = total->valuedouble - server;
  int oom = 0; /* out of memory: the timing just lacks these */
  oc_json_set(&oom, timing, "server_ms", cJSON_CreateNumber(round(server * 1000) / 1000));
  oc_json_set(&oom, timing, "wait_ms", cJSON_CreateNumber(wait > 0 ? round(wait * 1000) / 1000 : 0));
}

/* ---- recordings ------------------------------------------------------------------------ */

static int in_list(const cJSON *arr, const char *s)
{
  const cJSON *x;
  cJSON_ArrayForEach(x, arr)
    if(cJSON_IsString(x) && strcmp(x->valuestring, s) == 0)
      return 1;
  return 0;
}

#define OC_RECORDED_MAX_SOURCES 5 /* distinct provenance texts kept */

cJSON *oc_recorded_json(const struct oc_cassette_store *s)
{
  int oom = 0;
  cJSON *o = cJSON_CreateObject();
  if(!o)
    return NULL;
  long cases = 0, ident = 0, timed = 0;
  const char *first = NULL, *last = NULL;
  cJSON *sources = oc_json_put(&oom, o, "sources", cJSON_CreateArray());
  cJSON *servers = oc_json_put(&oom, o, "servers", cJSON_CreateArray());
  for(size_t i = 0; i < s->count; i++) {
    const struct oc_cassette *c = &s->items[i];
    if(oc_startswith(c->name, "identify-")) {
      ident++;
      continue; /* what identified the target says nothing of the recording's origin */
    }
    cases++;
    timed += c->timing_recorded;
    if(c->source && sources && cJSON_GetArraySize(sources) < OC_RECORDED_MAX_SOURCES &&
       !in_list(sources, c->source)) {
      char *t = oc_utf8_sanitize(c->source, strlen(c->source));
      if(t)
        oc_json_put(&oom, sources, NULL, cJSON_CreateString(t));
      free(t);
    }
    if(c->server && servers && cJSON_GetArraySize(servers) < OC_RECORDED_MAX_SOURCES &&
       !in_list(servers, c->server)) {
      char *t = oc_utf8_sanitize(c->server, strlen(c->server));
      if(t)
        oc_json_put(&oom, servers, NULL, cJSON_CreateString(t));
      free(t);
    }
    /* RFC 3339 UTC times compare as strings */
    if(c->recorded_at && (!first || strcmp(c->recorded_at, first) < 0))
      first = c->recorded_at;
    if(c->recorded_at && (!last || strcmp(c->recorded_at, last) > 0))
      last = c->recorded_at;
  }
  oc_json_put(&oom, o, "cases", cJSON_CreateNumber((double)cases));
  oc_json_put(&oom, o, "identification", cJSON_CreateNumber((double)ident));
  oc_json_put(&oom, o, "timed", cJSON_CreateNumber((double)timed));
  if(first) {
    char *t = oc_utf8_sanitize(first, strlen(first));
    oc_json_put_str(&oom, o, "first", t ? t : "");
    free(t);
  }
  if(last) {
    char *t = oc_utf8_sanitize(last, strlen(last));
    oc_json_put_str(&oom, o, "last", t ? t : "");
    free(t);
  }
  if(oom) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

int oc_recorded_text(const cJSON *rec, struct oc_buf *b)
{
  if(!cJSON_IsObject(rec))
    return OC_OK;
  long cases = count_of(oc_json_get(rec, "cases"), 0, 1L << 30);
  long ident = count_of(oc_json_get(rec, "identification"), 0, 1L << 30);
  long timed = count_of(oc_json_get(rec, "timed"), 0, 1L << 30);
  int rc = oc_buf_printf(b, "%ld case%s", cases, cases == 1 ? "" : "s");
  if(ident > 0)
    rc |= oc_buf_printf(b, " (and %ld identification request%s)", ident, ident == 1 ? "" : "s");
  const cJSON *x;
  int k = 0;
  cJSON_ArrayForEach(x, oc_json_arr(rec, "sources"))
    if(cJSON_IsString(x))
      rc |= oc_buf_printf(b, "%s%s", k++ ? "; " : ", ", x->valuestring);
  k = 0;
  cJSON_ArrayForEach(x, oc_json_arr(rec, "servers"))
    if(cJSON_IsString(x))
      rc |= oc_buf_printf(b, "%s%s", k++ ? ", " : ", server ", x->valuestring);
  const char *first = oc_json_str(rec, "first"), *last = oc_json_str(rec, "last");
  if(first && last && strncmp(first, last, 10) != 0)
    rc |= oc_buf_printf(b, ", %.10s to %.10s", first, last);
  else if(first)
    rc |= oc_buf_printf(b, ", %.10s", first);
  if(cases > 0)
    rc |= oc_buf_adds(b, timed == cases ? ", arrival times kept"
                                        : timed ? ", arrival times kept for some" : ", no arrival times");
  return rc ? OC_ENOMEM : OC_OK;
}

/* ---- the run as a whole ------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* A request "waited" when the time oacheck measured exceeds the server's
 * own work by more than this: a few ms of HTTP and JSON on 127.0.0.1 are
 * not a queue. */
#define OC_WAIT_MIN_MS 5.0
#define OC_WAIT_MIN_SHARE 0.2

/* A result that passed on its own: no error but the load check's. */
static int passed_alone(const cJSON *r)
{
  const cJSON *f;
  cJSON_ArrayForEach(f, oc_json_arr(r, "findings"))
    if(oc_streq(oc_json_str(f, "severity"), "error") && !oc_json_bool(f, "allowed", 0) &&
       !oc_streq(oc_json_str(f, "rule"), "DEPLOY-LOAD"))
      return 0;
  return !oc_streq(oc_json_str(r, "status"), "error") && !oc_streq(oc_json_str(r, "status"), "skip");
}

int oc_deployment_waited(const cJSON *r, double *wait_ms)
{
  const cJSON *t = oc_json_obj(r, "timing");
  const cJSON *w = oc_json_get(t, "wait_ms");
  if(!cJSON_IsNumber(w) || !isfinite(w->valuedouble))
    return -1;
  *wait_ms = w->valuedouble;
  double total = oc_json_num(t, "total_ms", 0);
  return w->valuedouble >= OC_WAIT_MIN_MS && w->valuedouble >= OC_WAIT_MIN_SHARE * total;
}

void oc_deploy_tally_init(struct oc_deploy_tally *t)
{
  memset(t, 0, sizeof(*t));
}

void oc_deploy_tally_free(struct oc_deploy_tally *t)
{
  free(t->waits);
  memset(t, 0, sizeof(*t));
}

void oc_deploy_tally_add(struct oc_deploy_tally *t, const cJSON *r)
{
  const cJSON *c = oc_json_obj(r, "concurrency");
  int fl = (int)oc_json_num(c, "in_flight", 0);
  if(fl > t->max_flight)
    t->max_flight = fl;
  if((int)oc_json_num(c, "slots", 0) > t->slots)
    t->slots = (int)oc_json_num(c, "slots", 0);
  double w;
  int waited = oc_deployment_waited(r, &w);
  t->timed += waited >= 0;
  if(waited > 0) {
    double *p = oc_array_grow(t->waits, &t->awaits, t->nw + 1, sizeof(*t->waits));
    if(p) {
      t->waits = p;
      t->waits[t->nw++] = w;
    }
    else
      t->oom = 1;
  }
  if(oc_json_obj(r, "rerun")) {
    t->reruns++;
    t->rerun_pass += passed_alone(r);
  }
  const cJSON *dg = oc_result_diagnosis(r);
  for(size_t k = 0; dg && k < OC_DIAG__COUNT; k++)
    if(oc_streq(oc_json_str(dg, "id"), oc_diags[k].id))
      t->ndiag[k]++;
}

int oc_deploy_tally_text(struct oc_deploy_tally *t, struct oc_buf *b)
{
  int rc = t->oom ? OC_ENOMEM : OC_OK;
  if(t->reruns)
    rc |= oc_buf_printf(b, "%zu case%s ran out of the target's shared context with other requests "
                           "in flight and ran again alone: %zu passed then (what one client sees); "
                           "'oacheck run --load N' makes that a check\n",
                        t->reruns, t->reruns == 1 ? "" : "s", t->rerun_pass);
  if(t->nw && t->max_flight > 0 && t->slots > 0 && t->max_flight > t->slots) {
    /* sorted in place: the tally is the caller's, its order not a fact */
    qsort(t->waits, t->nw, sizeof(*t->waits), cmp_double);
    rc |= oc_buf_printf(b, "with up to %d requests in flight on %d slot%s, %zu of %zu waited for a "
                           "slot: median %.0f ms, longest %.0f ms (TTFT and total times include "
                           "it; the server's own timings say how long it worked)\n",
                        t->max_flight, t->slots, t->slots == 1 ? "" : "s", t->nw, t->timed,
                        t->waits[t->nw / 2], t->waits[t->nw - 1]);
  }
  for(size_t k = 0; k < OC_DIAG__COUNT; k++)
    if(t->ndiag[k])
      rc |= oc_buf_printf(b, "diagnosis %s (%zu case%s, %s): %s\n  fix: %s\n", oc_diags[k].id,
                          t->ndiag[k], t->ndiag[k] == 1 ? "" : "s", oc_diags[k].flags,
                          oc_diags[k].cause, oc_diags[k].fix);
  return rc ? OC_ENOMEM : OC_OK;
}

int oc_deployment_summary(const cJSON *doc, struct oc_buf *b)
{
  struct oc_deploy_tally t;
  oc_deploy_tally_init(&t);
  const cJSON *r;
  cJSON_ArrayForEach(r, oc_json_arr(doc, "results"))
    oc_deploy_tally_add(&t, r);
  int rc = oc_deploy_tally_text(&t, b);
  oc_deploy_tally_free(&t);
  return rc;
}

/* ---- counting a prompt ------------------------------------------------------------------ */

/* POST path with body; the parsed JSON answer of a 200, else NULL. */
static cJSON *post_json(struct oc_target *t, const struct oc_identify_options *o, const char *path,
                        const cJSON *body)
{
  char *text = oc_json_print(body);
  if(!text)
    return NULL;
  int status = 0;
  char *resp = NULL, err[600];
  size_t len = 0;
  struct oc_headers h;
  oc_headers_init(&h);
  cJSON *doc = NULL;
  if(oc_target_fetch(t, o, "POST", path, text, &status, &h, &resp, &len, err, sizeof(err)) == OC_OK &&
     status == 200)
    doc = oc_json_parse(resp, len, NULL);
  oc_headers_free(&h);
  free(resp);
  free(text);
  return doc;
}

long oc_deployment_count_prompt(struct oc_target *t, const struct oc_identify_options *o,
                                const cJSON *request)
{
  if(!t->deployment.llama || !cJSON_IsArray(oc_json_get(request, "messages")))
    return -1;
  long n = -1;
  int oom = 0;
  cJSON *req = cJSON_CreateObject(), *tok = NULL, *rendered = NULL, *tokens = NULL;
  if(!req)
    return -1;
  oc_json_put(&oom, req, "messages", cJSON_Duplicate(oc_json_get(request, "messages"), 1));
  if(oc_json_arr(request, "tools"))
    oc_json_put(&oom, req, "tools", cJSON_Duplicate(oc_json_get(request, "tools"), 1));
  if(oom)
    goto out;
  rendered = post_json(t, o, "/apply-template", req);
  const char *prompt = oc_json_str(rendered, "prompt");
  if(!prompt)
    goto out;
  tok = cJSON_CreateObject();
  if(!tok)
    goto out;
  oc_json_put_str(&oom, tok, "content", prompt);
  oc_json_put(&oom, tok, "add_special", cJSON_CreateBool(1));
  oc_json_put(&oom, tok, "parse_special", cJSON_CreateBool(1));
  if(oom)
    goto out;
  tokens = post_json(t, o, "/tokenize", tok);
  if(oc_json_arr(tokens, "tokens"))
    n = cJSON_GetArraySize(oc_json_arr(tokens, "tokens"));
out:
  cJSON_Delete(req);
  cJSON_Delete(tok);
  cJSON_Delete(rendered);
  cJSON_Delete(tokens);
  return n;
}
