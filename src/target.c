/* target.c — targets and their identity.  A replay target answers the
 * identification requests from its recordings exactly as a live one does
 * over HTTP, so the rest of the run cannot tell them apart. */
#include "config.h"
#include "target.h"

#include <math.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http.h"
#include "json.h"
#include "secret.h"
#include "url.h"
#include "util.h"

void oc_target_init(struct oc_target *t)
{
  memset(t, 0, sizeof(*t));
  oc_cassette_store_init(&t->store);
  oc_headers_init(&t->headers);
  t->profile_source = "auto";
}

void oc_target_free(struct oc_target *t)
{
  if(!t)
    return;
  free(t->name);
  free(t->url);
  free(t->base);
  free(t->recordings);
  oc_cassette_store_free(&t->store);
  free(t->profile_name);
  free(t->model);
  free(t->key_env);
  oc_headers_free(&t->headers);
  free(t->error);
  cJSON_Delete(t->identity);
  cJSON_Delete(t->vars);
  memset(t, 0, sizeof(*t));
}

static int valid_name(const char *s)
{
  if(!*s)
    return 0;
  for(; *s; s++)
    if(!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
         *s == '-' || *s == '_' || *s == '.'))
      return 0;
  return 1;
}

/* A name for a URL target: host and port ("127.0.0.1-8080"). */
static char *name_from_url(const char *url)
{
  const char *p = strstr(url, "://");
  p = p ? p + 3 : url;
  const char *at = strchr(p, '@');
  const char *slash = strchr(p, '/');
  if(at && (!slash || at < slash))
    p = at + 1;
  size_t n = strcspn(p, "/?#");
  char *s = oc_strndup(p, n);
  for(char *q = s; q && *q; q++)
    if(*q == ':')
      *q = '-';
  return s;
}

int oc_target_from_spec(struct oc_target *t, const char *spec, char *err, size_t errlen)
{
  oc_target_init(t);
  const char *url = spec;
  char *name = NULL;
  const char *eq = strchr(spec, '=');
  const char *scheme = strstr(spec, "://");
  if(eq && (!scheme || eq < scheme)) {
    name = oc_strndup(spec, (size_t)(eq - spec));
    url = eq + 1;
    if(!name || !valid_name(name)) {
      snprintf(err, errlen, "target name '%s' may hold only letters, digits, '-', '_' and '.'",
               name ? name : "");
      free(name);
      return OC_EUSAGE;
    }
  }
  if(strcmp(url, "env") == 0) {
    url = getenv("OPENAI_BASE_URL");
    if(!url || !*url) {
      snprintf(err, errlen, "--target env: OPENAI_BASE_URL is not set");
      free(name);
      return OC_EUSAGE;
    }
    if(!name)
      name = oc_strdup("env");
  }
  /* everything this target sends that is secret is known before the
   * first request (or message), so nothing can show it unmasked */
  oc_secret_add_url(url);
  /* schemes are case-insensitive (RFC 3986); a message about the URL
   * never shows its user information or query */
  if(strncasecmp(url, "http://", 7) != 0 && strncasecmp(url, "https://", 8) != 0) {
    char safe[512];
    oc_url_redact(url, safe, sizeof(safe));
    snprintf(err, errlen, "target '%s' is not an http:// or https:// URL", safe);
    free(name);
    return OC_EUSAGE;
  }
  t->live = 1;
  oc_secret_add_env("OPENAI_API_KEY");
  t->url = oc_url_root(url);
  t->base = oc_strdup(url);
  t->name = name ? name : name_from_url(url);
  t->key_env = oc_strdup("OPENAI_API_KEY");
  t->profile_name = oc_strdup("auto");
  if(!t->url || !t->base || !t->name || !t->key_env || !t->profile_name) {
    oc_target_free(t);
    return OC_ENOMEM;
  }
  return OC_OK;
}

static void store_error(void *ctx, const char *msg)
{
  (void)ctx;
  oc_warn("%s", msg);
}

int oc_target_from_recordings(struct oc_target *t, const char *name, const char *dir, char *err,
                              size_t errlen)
{
  oc_target_init(t);
  if(!oc_is_dir(dir)) {
    snprintf(err, errlen, "recordings directory '%s' does not exist", dir);
    return OC_ENOTFOUND;
  }
  t->live = 0;
  t->recordings = oc_strdup(dir);
  if(name)
    t->name = oc_strdup(name);
  else {
    size_t len = strlen(dir);
    while(len > 1 && dir[len - 1] == '/')
      len--;
    size_t start = len;
    while(start > 0 && dir[start - 1] != '/')
      start--;
    t->name = oc_strndup(dir + start, len - start);
  }
  t->profile_name = oc_strdup("auto");
  if(!t->recordings || !t->name || !t->profile_name) {
    oc_target_free(t);
    return OC_ENOMEM;
  }
  const char *dirs[1] = { dir };
  int rc = oc_cassette_store_load(&t->store, dirs, 1, store_error, NULL);
  if(rc == OC_ENOMEM || rc == OC_ENOTFOUND) {
    snprintf(err, errlen, "cannot load the recordings in '%s'", dir);
    oc_target_free(t);
    return rc;
  }
  if(t->store.count == 0) {
    snprintf(err, errlen, "'%s' holds no recordings (*.cassette.gz or index.json)", dir);
    oc_target_free(t);
    return OC_ENOTFOUND;
  }
  t->timing_recorded = 1;
  for(size_t i = 0; i < t->store.count; i++)
    if(!t->store.items[i].timing_recorded)
      t->timing_recorded = 0;
  return OC_OK;
}

static int target_from_json(struct oc_target *t, const cJSON *j, const char *path, int idx,
                            char *err, size_t errlen)
{
  const char *name = oc_json_str(j, "name");
  const char *url = oc_json_str(j, "url");
  const char *rec = oc_json_str(j, "recordings");
  int rc;
  oc_target_init(t); /* the caller frees *t whatever happens */
  if(!name || (!url && !rec) || (url && rec)) {
    snprintf(err, errlen, "%s: targets[%d] needs a \"name\" and exactly one of \"url\" or \"recordings\"",
             path, idx);
    return OC_EUSAGE;
  }
  if(url) {
    char *spec = oc_asprintf("%s=%s", name, url);
    rc = spec ? oc_target_from_spec(t, spec, err, errlen) : OC_ENOMEM;
    free(spec);
  }
  else
    rc = oc_target_from_recordings(t, name, rec, err, errlen);
  if(rc)
    return rc;
  const char *profile = oc_json_str(j, "profile");
  if(profile) {
    free(t->profile_name);
    t->profile_name = oc_strdup(profile);
    t->profile_source = "targets-file";
    if(strcmp(profile, "auto") != 0 && !oc_profile_find(profile)) {
      snprintf(err, errlen, "%s: targets[%d]: unknown profile '%s'", path, idx, profile);
      return OC_EUSAGE;
    }
  }
  const char *model = oc_json_str(j, "model");
  if(model)
    t->model = oc_strdup(model);
  const char *key = oc_json_str(j, "key_env");
  if(key) {
    free(t->key_env);
    t->key_env = oc_strdup(key);
    oc_secret_add_env(key);
  }
  const cJSON *h;
  cJSON_ArrayForEach(h, oc_json_obj(j, "headers"))
  {
    if(!cJSON_IsString(h)) {
      snprintf(err, errlen, "%s: targets[%d]: header '%s' must be a string", path, idx, h->string);
      return OC_EUSAGE;
    }
    if(oc_headers_add(&t->headers, h->string, h->valuestring))
      return OC_ENOMEM;
    oc_secret_add_header(h->string, h->valuestring);
  }
  const cJSON *a;
  cJSON_ArrayForEach(a, oc_json_arr(j, "allow"))
  {
    if(!cJSON_IsString(a) || oc_ruleset_add_pattern(&t->allow, a->valuestring)) {
      snprintf(err, errlen, "%s: targets[%d]: allow: '%.80s' is not a rule or family of the "
               "catalogue ('oacheck rules' lists them)", path, idx,
               cJSON_IsString(a) ? a->valuestring : "(not a string)");
      return OC_EUSAGE;
    }
  }
  const cJSON *ctx = oc_json_get(j, "ctx_size");
  if(oc_json_is_integer(ctx) && ctx->valuedouble > 0)
    t->ctx_size = (long)ctx->valuedouble;
  return OC_OK;
}

int oc_targets_load(const char *path, struct oc_target **ts, size_t *n, char *err, size_t errlen)
{
  cJSON *doc = oc_json_parse_file(path, err, errlen);
  if(!doc)
    return OC_EPARSE;
  const cJSON *list = cJSON_IsArray(doc) ? doc : oc_json_arr(doc, "targets");
  int rc = OC_OK;
  if(!list) {
    snprintf(err, errlen, "%s: expected an array of targets or {\"targets\": [...]}", path);
    rc = OC_EPARSE;
    goto out;
  }
  int idx = 0;
  const cJSON *j;
  cJSON_ArrayForEach(j, list)
  {
    struct oc_target *d = realloc(*ts, (*n + 1) * sizeof(*d));
    if(!d) {
      rc = OC_ENOMEM;
      goto out;
    }
    *ts = d;
    rc = target_from_json(&d[*n], j, path, idx, err, errlen);
    if(rc) {
      oc_target_free(&d[*n]);
      goto out;
    }
    for(size_t i = 0; i < *n; i++)
      if(strcmp(d[i].name, d[*n].name) == 0) {
        snprintf(err, errlen, "%s: target name '%s' is used twice", path, d[*n].name);
        oc_target_free(&d[*n]);
        rc = OC_EUSAGE;
        goto out;
      }
    (*n)++;
    idx++;
  }
out:
  cJSON_Delete(doc);
  return rc;
}

int oc_target_request_headers(const struct oc_target *t, struct oc_headers *out)
{
  if(oc_headers_copy(out, &t->headers))
    return OC_ENOMEM;
  const char *key = t->key_env ? getenv(t->key_env) : NULL;
  if(key && *key && !oc_headers_get(out, "Authorization")) {
    char *v = oc_asprintf("Bearer %s", key);
    int rc = v ? oc_headers_add(out, "Authorization", v) : OC_ENOMEM;
    if(v) {
      /* the key leaves memory as soon as it is copied into the list */
      memset(v, 0, strlen(v));
      free(v);
    }
    return rc;
  }
  return OC_OK;
}

/* Identification exchanges are part of a recording: replaying a run needs
 * the same /v1/models, /props and token counts. */
static void record_identification(struct oc_target *t, const char *dir, const char *method,
                                  const char *path, const char *rbody, size_t rlen,
                                  const struct oc_http_response *resp,
                                  const char *body, size_t len)
{
  struct oc_cassette c;
  oc_cassette_init(&c);
  char name[200];
  char key[65];
  if(oc_cassette_request_key(method, path, rbody, rlen, key))
    return;
  /* the path and a key prefix keep names readable and distinct */
  size_t k = 0;
  for(const char *p = path; *p && k < 60; p++)
    name[k++] = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' ? *p : '-';
  name[k] = '\0';
  char *full = oc_asprintf("identify%s-%.8s", name, key);
  c.name = full;
  c.method = oc_strdup(method);
  c.path = oc_strdup(path);
  if(rbody) {
    c.req_body = oc_strndup(rbody, rlen);
    c.req_body_len = rlen;
  }
  /* identification sends only the target's own headers: none are recorded */
  c.status = resp->status;
  oc_headers_copy(&c.headers, &resp->headers);
  c.source = oc_asprintf("identification of target '%s', recorded live", t->name);
  char ts[32];
  oc_now_rfc3339(ts);
  c.recorded_at = oc_strdup(ts);
  char err[600];
  char *file = full ? oc_asprintf("%s/%s%s", dir, full, OC_CASSETTE_EXT) : NULL;
  if(oc_cassette_update_key(&c) || oc_cassette_add_piece(&c, body, len, 0) || !file ||
     oc_cassette_write(file, &c, err, sizeof(err)))
    oc_error("cannot record the identification request %s %s", method, path);
  free(file);
  oc_cassette_free(&c);
}

int oc_target_fetch(struct oc_target *t, const struct oc_identify_options *o, const char *method,
                    const char *path, const char *rbody, int *status, struct oc_headers *hdrs,
                    char **body, size_t *len, char *err, size_t errlen)
{
  size_t rlen = rbody ? strlen(rbody) : 0;
  *body = NULL;
  *len = 0;
  *status = 0;
  if(!t->live) {
    char key[65];
    if(oc_cassette_request_key(method, path, rbody, rlen, key))
      return OC_ENOMEM;
    const struct oc_cassette *c = oc_cassette_store_find_key(&t->store, key);
    if(!c) {
      snprintf(err, errlen, "%s %s is not recorded", method, path);
      return OC_ENOTFOUND;
    }
    *status = c->status;
    if(oc_headers_copy(hdrs, &c->headers))
      return OC_ENOMEM;
    *body = oc_strndup(c->body, c->body_len);
    *len = c->body_len;
    return *body ? OC_OK : OC_ENOMEM;
  }
  /* the run's timeouts hold here too: a target that stalls its
   * identification cannot hold the run for 20 probes × 30 s */
  long total = o->timeout_ms;
  if(o->deadline) {
    uint64_t now = oc_now_ns();
    if(now >= o->deadline) {
      snprintf(err, errlen, "%s %s: the identification of target '%s' used up its %ld ms", method,
               path, t->name, o->budget_ms);
      return OC_EIO;
    }
    long left = (long)((o->deadline - now) / 1000000u) + 1;
    if(total <= 0 || left < total)
      total = left;
  }
  char *url = oc_url_join(t->base, path);
  struct oc_headers h;
  oc_headers_init(&h);
  struct oc_http_request req;
  oc_http_request_init(&req);
  req.method = method;
  req.url = url;
  req.headers = &h;
  req.body = rbody;
  req.body_len = rlen;
  req.total_timeout_ms = total;
  req.idle_timeout_ms = o->idle_timeout_ms;
  req.connect_timeout_ms = o->connect_timeout_ms > 0 ? o->connect_timeout_ms
                                                     : (total > 0 && total < 10000 ? total : 10000);
  req.insecure = o->insecure;
  req.cacert = o->cacert;
  req.max_retries = 1;
  struct oc_http_response resp;
  memset(&resp, 0, sizeof(resp));
  oc_headers_init(&resp.headers);
  int rc = url && !oc_target_request_headers(t, &h) ? oc_http_fetch(&req, &resp, err, errlen) : OC_ENOMEM;
  if(rc == OC_OK) {
    *status = resp.status;
    if(oc_headers_copy(hdrs, &resp.headers))
      rc = OC_ENOMEM;
    *body = resp.body;
    *len = resp.body_len;
    resp.body = NULL;
    if(o->record_dir && *body)
      record_identification(t, o->record_dir, method, path, rbody, rlen, &resp, *body, *len);
  }
  oc_http_response_free(&resp);
  oc_headers_free(&h);
  free(url);
  return rc;
}

/* Server-provided text into the identity, as valid UTF-8. */
static void add_ident(cJSON *o, const char *key, const char *v)
{
  char *t = oc_utf8_sanitize(v, strlen(v));
  if(t)
    cJSON_AddStringToObject(o, key, t);
  free(t);
}

static void set_error(struct oc_target *t, const char *msg)
{
  free(t->error);
  t->error = oc_strdup(msg);
}

const char *oc_profile_guess(const cJSON *identity)
{
  const char *server = oc_json_str(identity, "server");
  if(oc_json_str(identity, "build") || (server && strstr(server, "llama.cpp")))
    return "llama-server";
  const char *owner = oc_json_str(identity, "owned_by");
  if(oc_streq(owner, "vllm"))
    return "vllm";
  if(oc_streq(owner, "library") || oc_streq(owner, "ollama"))
    return "ollama";
  return "openai";
}

/* The prompt tokens of a one-message conversation of w filler words, as the
 * server counts them: its own chat template (/apply-template), its own
 * tokenizer (/tokenize).  -1 when the target cannot say. */
static long count_tokens(struct oc_target *t, const struct oc_identify_options *o, long w)
{
  long n = -1;
  int status;
  char *body = NULL, *out = NULL, err[600];
  size_t len;
  struct oc_headers h;
  oc_headers_init(&h);
  struct oc_buf text;
  oc_buf_init(&text, OC_CAP_FILE);
  for(long i = 0; i < w; i++)
    if((i && oc_buf_addc(&text, ' ')) || oc_buf_adds(&text, "hello"))
      goto out;
  cJSON *req = cJSON_CreateObject();
  cJSON *msgs = req ? cJSON_AddArrayToObject(req, "messages") : NULL;
  cJSON *m = cJSON_CreateObject();
  if(msgs && m) {
    cJSON_AddStringToObject(m, "role", "user");
    cJSON_AddStringToObject(m, "content", oc_buf_str(&text));
    cJSON_AddItemToArray(msgs, m);
    m = NULL;
    out = cJSON_PrintUnformatted(req);
  }
  cJSON_Delete(m);
  cJSON_Delete(req);
  if(!out || oc_target_fetch(t, o, "POST", "/apply-template", out, &status, &h, &body, &len, err, sizeof(err)) ||
     status != 200)
    goto out;
  cJSON *doc = oc_json_parse(body, len, NULL);
  const char *prompt = oc_json_str(doc, "prompt");
  free(out);
  out = NULL;
  cJSON *tok = prompt ? cJSON_CreateObject() : NULL;
  if(tok) {
    cJSON_AddStringToObject(tok, "content", prompt);
    cJSON_AddBoolToObject(tok, "add_special", 1);
    cJSON_AddBoolToObject(tok, "parse_special", 1);
    out = cJSON_PrintUnformatted(tok);
    cJSON_Delete(tok);
  }
  cJSON_Delete(doc);
  free(body);
  body = NULL;
  oc_headers_free(&h);
  if(!out || oc_target_fetch(t, o, "POST", "/tokenize", out, &status, &h, &body, &len, err, sizeof(err)) ||
     status != 200)
    goto out;
  doc = oc_json_parse(body, len, NULL);
  const cJSON *tokens = oc_json_arr(doc, "tokens");
  if(tokens)
    n = cJSON_GetArraySize(tokens);
  cJSON_Delete(doc);
out:
  free(out);
  free(body);
  oc_headers_free(&h);
  oc_buf_free(&text);
  return n;
}

/* Find the filler word counts for prompts of N_CTX-1, N_CTX and N_CTX+1
 * tokens: the per-word cost from two counts, then a few corrections,
 * since templates and tokenizers are not perfectly linear. */
static void probe_context(struct oc_target *t, const struct oc_identify_options *o)
{
  const cJSON *nc = oc_json_get(t->vars, "N_CTX");
  if(!oc_json_is_integer(nc))
    return;
  long n_ctx = (long)nc->valuedouble;
  long c0 = count_tokens(t, o, 1);
  long c1 = c0 >= 0 ? count_tokens(t, o, 65) : -1;
  if(c0 < 0 || c1 <= c0)
    return;
  double per = (double)(c1 - c0) / 64.0;
  static const struct {
    const char *var;
    long delta;
  } goals[] = { { "CTX_WORDS_UNDER", -1 }, { "CTX_WORDS_AT", 0 }, { "CTX_WORDS_OVER", 1 } };
  for(size_t g = 0; g < OC_ARRAY_LEN(goals); g++) {
    long want = n_ctx + goals[g].delta;
    long w = 1 + (long)((double)(want - c0) / per + 0.5);
    long got = -1;
    for(int tries = 0; tries < 6 && w >= 1; tries++) {
      got = count_tokens(t, o, w);
      if(got < 0 || got == want)
        break;
      long step = (long)((double)(want - got) / per);
      w += step ? step : (want > got ? 1 : -1);
    }
    if(got != want) {
      oc_info("target %s: cannot build a prompt of exactly %ld tokens; the context probes will be skipped",
              t->name, want);
      return;
    }
    cJSON_AddNumberToObject(t->vars, goals[g].var, (double)w);
  }
  cJSON_AddNumberToObject(t->identity, "prompt_tokens_per_word", round(per * 1000) / 1000);
}

int oc_target_identify(struct oc_target *t, const struct oc_identify_options *opts)
{
  struct oc_identify_options local = *opts, *o = &local;
  if(o->budget_ms > 0)
    o->deadline = oc_now_ns() + (uint64_t)o->budget_ms * 1000000u;
  char err[600];
  int status;
  char *body = NULL;
  size_t len;
  struct oc_headers h;
  oc_headers_init(&h);
  cJSON_Delete(t->identity);
  cJSON_Delete(t->vars);
  t->identity = cJSON_CreateObject();
  t->vars = cJSON_CreateObject();
  if(!t->identity || !t->vars)
    return OC_ENOMEM;
  t->reachable = 0;
  int rc = oc_target_fetch(t, o, "GET", "/v1/models", NULL, &status, &h, &body, &len, err, sizeof(err));
  if(rc == OC_ENOMEM)
    goto oom;
  if(rc && t->live) {
    set_error(t, err);
    goto done;
  }
  t->reachable = 1;
  const char *server = oc_headers_get(&h, "Server");
  if(server)
    add_ident(t->identity, "server", server);
  cJSON *models = cJSON_AddArrayToObject(t->identity, "models");
  cJSON *doc = (rc == OC_OK && status == 200) ? oc_json_parse(body, len, NULL) : NULL;
  const cJSON *m;
  const char *first = NULL, *owner = NULL;
  cJSON_ArrayForEach(m, oc_json_arr(doc, "data"))
  {
    const char *id = oc_json_str(m, "id");
    if(id && models) {
      char *clean = oc_utf8_sanitize(id, strlen(id));
      if(clean)
        cJSON_AddItemToArray(models, cJSON_CreateString(clean));
      free(clean);
      if(!first) {
        first = id;
        owner = oc_json_str(m, "owned_by");
      }
    }
  }
  if(owner)
    add_ident(t->identity, "owned_by", owner);
  const char *model = t->model ? t->model : first;
  if(model) {
    add_ident(t->identity, "model", model);
    cJSON_AddStringToObject(t->vars, "MODEL", model);
  }
  else
    cJSON_AddNullToObject(t->identity, "model");
  cJSON_Delete(doc);
  free(body);
  body = NULL;
  oc_headers_free(&h);
  /* llama-server's /props: build, context per slot, chat template */
  rc = oc_target_fetch(t, o, "GET", "/props", NULL, &status, &h, &body, &len, err, sizeof(err));
  if(rc == OC_ENOMEM)
    goto oom;
  doc = (rc == OC_OK && status == 200) ? oc_json_parse(body, len, NULL) : NULL;
  if(doc) {
    const char *build = oc_json_str(doc, "build_info");
    if(build)
      add_ident(t->identity, "build", build);
    const cJSON *dgs = oc_json_obj(doc, "default_generation_settings");
    const cJSON *nctx = oc_json_get(dgs, "n_ctx");
    if(!oc_json_is_integer(nctx))
      nctx = oc_json_get(doc, "n_ctx");
    /* a hostile /props may say anything: only a plausible window counts */
    if(oc_json_is_integer(nctx) && (nctx->valuedouble < 1 || nctx->valuedouble > (double)(1 << 30))) {
      oc_warn("target %s: /props says n_ctx %g, which is not a usable context size; ignored",
              t->name, nctx->valuedouble);
      nctx = NULL;
    }
    if(oc_json_is_integer(nctx)) {
      cJSON_AddNumberToObject(t->identity, "n_ctx", nctx->valuedouble);
      cJSON_AddNumberToObject(t->vars, "N_CTX", nctx->valuedouble);
    }
    const cJSON *slots = oc_json_get(doc, "total_slots");
    if(oc_json_is_integer(slots) && slots->valuedouble >= 0 && slots->valuedouble < 1e9)
      cJSON_AddNumberToObject(t->identity, "total_slots", slots->valuedouble);
    const char *mp = oc_json_str(doc, "model_path");
    if(mp)
      add_ident(t->identity, "model_path", mp);
    const char *tmpl = oc_json_str(doc, "chat_template");
    if(tmpl) {
      unsigned char md[EVP_MAX_MD_SIZE];
      unsigned int mdlen = 0;
      char hex[2 * EVP_MAX_MD_SIZE + 1];
      if(EVP_Digest(tmpl, strlen(tmpl), md, &mdlen, EVP_sha256(), NULL)) {
        oc_hex(md, mdlen, hex);
        cJSON_AddStringToObject(t->identity, "chat_template_sha256", hex);
      }
    }
    if(!server) {
      const char *s2 = oc_headers_get(&h, "Server");
      if(s2)
        add_ident(t->identity, "server", s2);
    }
  }
  cJSON_Delete(doc);
  if(t->ctx_size > 0) {
    cJSON_DeleteItemFromObjectCaseSensitive(t->vars, "N_CTX");
    cJSON_AddNumberToObject(t->vars, "N_CTX", (double)t->ctx_size);
  }
  /* derived sizes for context cases: half the window fits with room to answer */
  const cJSON *nc = oc_json_get(t->vars, "N_CTX");
  if(oc_json_is_integer(nc))
    cJSON_AddNumberToObject(t->vars, "N_CTX_HALF", (double)((long)nc->valuedouble / 2));
  if(t->reachable)
    probe_context(t, o);
done:
  if(!t->profile_name || strcmp(t->profile_name, "auto") == 0) {
    const char *guess = oc_profile_guess(t->identity);
    free(t->profile_name);
    t->profile_name = oc_strdup(guess);
    t->profile_source = "auto";
  }
  t->profile = oc_profile_find(t->profile_name ? t->profile_name : "openai");
  if(!t->profile)
    t->profile = oc_profile_default();
  /* the server's words, printed on the console and kept in the results */
  oc_secret_mask_json(t->identity);
  if(t->error)
    oc_secret_mask(t->error, strlen(t->error));
  free(body);
  oc_headers_free(&h);
  return OC_OK;
oom:
  free(body);
  oc_headers_free(&h);
  return OC_ENOMEM;
}

cJSON *oc_target_json(const struct oc_target *t)
{
  cJSON *o = cJSON_CreateObject();
  if(!o)
    return NULL;
  cJSON_AddStringToObject(o, "name", t->name);
  cJSON_AddStringToObject(o, "kind", t->live ? "live" : "replay");
  if(t->live) {
    char red[512];
    oc_url_redact(t->url, red, sizeof(red));
    cJSON_AddStringToObject(o, "url", red);
  }
  else
    cJSON_AddStringToObject(o, "recordings", t->recordings);
  cJSON_AddStringToObject(o, "profile", t->profile ? t->profile->name : "openai");
  cJSON_AddStringToObject(o, "profile_source", t->profile_source);
  cJSON_AddBoolToObject(o, "reachable", t->reachable);
  if(t->error)
    cJSON_AddStringToObject(o, "error", t->error);
  else
    cJSON_AddNullToObject(o, "error");
  cJSON_AddBoolToObject(o, "timing_recorded", t->live ? 1 : t->timing_recorded);
  if(t->identity) {
    cJSON *id = cJSON_Duplicate(t->identity, 1);
    if(id) {
      cJSON_DeleteItemFromObjectCaseSensitive(id, "owned_by");
      cJSON_AddItemToObject(o, "identity", id);
    }
  }
  return o;
}
