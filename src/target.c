/* target.c — targets and their identity.  A replay target answers the
 * identification requests from its recordings exactly as a live one does
 * over HTTP, so the rest of the run cannot tell them apart. */
#include "config.h"
#include "target.h"

#include <errno.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "datadir.h"
#include "http.h"
#include "jdoc.h"
#include "json.h"
#include "request.h"
#include "schema.h"
#include "secret.h"
#include "url.h"
#include "util.h"

void oc_target_init(struct oc_target *t)
{
  memset(t, 0, sizeof(*t));
  oc_cassette_store_init(&t->store);
  oc_headers_init(&t->headers);
  oc_deployment_init(&t->deployment);
  oc_dialect_init(&t->dialect);
  oc_serves_init(&t->serves);
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
  for(int i = 0; i < OC_PROTO__COUNT; i++) {
    free(t->proto_recordings[i]);
    cJSON_Delete(t->proto_vars[i]);
  }
  oc_cassette_store_free(&t->store);
  free(t->profile_name);
  free(t->model);
  free(t->key_env);
  oc_headers_free(&t->headers);
  free(t->error);
  cJSON_Delete(t->identity);
  cJSON_Delete(t->vars);
  oc_deployment_free(&t->deployment);
  free(t->chat_template);
  oc_dialect_free(&t->dialect);
  free(t->router_name);
  free(t->record_dir);
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
  /* the full endpoint is a common mistake: joined with /v1/models it
   * gives a URL that answers 404 on every server, and the run would go on
   * as if the server listed no model */
  size_t eplen, ep = oc_url_endpoint(url, &eplen);
  if(ep) {
    char *before = oc_strndup(url, ep);
    char safe[512], root[512];
    oc_url_redact(url, safe, sizeof(safe));
    oc_url_redact(before, root, sizeof(root));
    snprintf(err, errlen, "target '%s' ends in the endpoint %.*s: give the server's root (%s or "
             "%s/v1); oacheck adds /v1/chat/completions and the other paths itself",
             safe, (int)eplen, url + ep, root, root);
    free(before);
    free(name);
    return OC_EUSAGE;
  }
  t->live = 1;
  oc_secret_add_env("OPENAI_API_KEY");
  oc_secret_add_env("ANTHROPIC_API_KEY");
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
  /* the cases' recordings decide: identification requests are recorded
   * without arrival times (they are not judged, only read) */
  t->timing_recorded = 1;
  for(size_t i = 0; i < t->store.count; i++)
    if(!t->store.items[i].timing_recorded && !oc_startswith(t->store.items[i].name, "identify-"))
      t->timing_recorded = 0;
  return OC_OK;
}

/* The model protocol i's folder was recorded with (its /v1/models
 * answer's first id), kept as that folder's ${MODEL} when the target's
 * own identification says another (a server started with another -m
 * path): its requests are keyed with it. */
static int folder_model(struct oc_target *t, int i)
{
  struct oc_cassette_store one;
  oc_cassette_store_init(&one);
  const char *dir = t->proto_recordings[i];
  if(oc_cassette_store_load(&one, &dir, 1, store_error, NULL) == OC_ENOMEM) {
    oc_cassette_store_free(&one);
    return OC_ENOMEM;
  }
  int rc = OC_OK;
  for(size_t k = 0; k < one.count && !rc; k++) {
    const struct oc_cassette *c = &one.items[k];
    if(!oc_startswith(c->name, "identify-v1-models"))
      continue;
    cJSON *doc = oc_json_parse(c->body, c->body_len, NULL);
    const char *id = oc_json_str(cJSON_GetArrayItem(oc_json_arr(doc, "data"), 0), "id");
    int oom = 0;
    if(id && !oc_json_put_str(&oom, (t->proto_vars[i] = cJSON_CreateObject()), "MODEL", id))
      rc = OC_ENOMEM;
    cJSON_Delete(doc);
    break;
  }
  oc_cassette_store_free(&one);
  return rc;
}

const cJSON *oc_target_vars_for(const struct oc_target *t, const struct oc_protocol *p)
{
  return p && t->proto_vars[p->id] ? t->proto_vars[p->id] : t->vars;
}

/* Once the target is identified (one thread; the runner's lanes only read):
 * each folder's variables are the identified ones with the folder's model
 * over MODEL, or none when the model is the same. */
static int settle_proto_vars(struct oc_target *t)
{
  for(int i = 0; i < OC_PROTO__COUNT; i++) {
    cJSON *pv = t->proto_vars[i];
    const char *m = pv ? oc_json_str(pv, "MODEL") : NULL;
    const char *mine = t->vars ? oc_json_str(t->vars, "MODEL") : NULL;
    if(!pv)
      continue;
    if(!m || !t->vars || (mine && strcmp(m, mine) == 0)) {
      cJSON_Delete(pv);
      t->proto_vars[i] = NULL;
      continue;
    }
    for(const cJSON *v = t->vars->child; v; v = v->next)
      if(strcmp(v->string, "MODEL") != 0 && !oc_json_get(pv, v->string)) {
        if(oc_json_add(pv, v->string, cJSON_Duplicate(v, 1)))
          return OC_ENOMEM;
      }
  }
  return OC_OK;
}

int oc_target_from_shipped(struct oc_target *t, const char *name, char *err, size_t errlen)
{
  char *dir = oc_data_path("suites/recordings/llama-server");
  if(!dir) {
    snprintf(err, errlen, "out of memory");
    return OC_ENOMEM;
  }
  int rc = oc_target_from_recordings(t, name, dir, err, errlen);
  free(dir);
  if(rc)
    return rc;
  /* the other protocols' folders into the same store: one server, one
   * model, recorded the same day (their READMEs) */
  const char *dirs[OC_PROTO__COUNT];
  size_t n = 0;
  for(int i = 0; i < OC_PROTO__COUNT; i++) {
    char *rel = oc_asprintf("suites/recordings/%s", oc_protocols[i]->recordings);
    char *d = rel ? oc_data_path(rel) : NULL;
    free(rel);
    if(!d) {
      oc_target_free(t);
      snprintf(err, errlen, "out of memory");
      return OC_ENOMEM;
    }
    if(!oc_is_dir(d)) {
      free(d);
      continue;
    }
    t->proto_recordings[i] = d;
    if(i != OC_PROTO_CHAT)
      dirs[n++] = d;
  }
  for(int i = 0; i < OC_PROTO__COUNT; i++)
    if(t->proto_recordings[i] && i != OC_PROTO_CHAT && folder_model(t, i)) {
      oc_target_free(t);
      snprintf(err, errlen, "out of memory");
      return OC_ENOMEM;
    }
  if(n && oc_cassette_store_load(&t->store, dirs, n, store_error, NULL) == OC_ENOMEM) {
    oc_target_free(t);
    snprintf(err, errlen, "out of memory");
    return OC_ENOMEM;
  }
  for(size_t i = 0; i < t->store.count; i++)
    if(!t->store.items[i].timing_recorded && !oc_startswith(t->store.items[i].name, "identify-"))
      t->timing_recorded = 0;
  return OC_OK;
}

/* Make room for one more target at the end of *ts. */
static struct oc_target *target_slot(struct oc_target **ts, size_t n)
{
  size_t alloc = n; /* a handful of targets: their array is kept exactly full */
  struct oc_target *d = oc_array_grow(*ts, &alloc, n + 1, sizeof(*d));
  if(d) {
    *ts = d;
    memset(&d[n], 0, sizeof(d[n]));
    return &d[n];
  }
  return NULL;
}

/* A targets file is read as suite files are: with jdoc, which keeps each
 * value's offset, so that every error, the schema's and the checks the
 * schema cannot make, is said as FILE:LINE:COL: what. */
struct tfile {
  const char *path;
  const char *buf;
  size_t len;
  struct oc_buf *errs;
};


/* Messages quote values (a schema error says what arrived): each line is
 * masked of the secrets the file holds, registered before it is checked. */
static void tfile_err(const struct tfile *f, size_t offset, const char *msg)
{
  struct oc_json_pos pos;
  oc_json_locate(f->buf, f->len, offset, &pos);
  size_t from = f->errs->len;
  if(oc_buf_printf(f->errs, "%s%s:%d:%d: %s", from ? "\n" : "", f->path, pos.line, pos.column,
                   msg) == OC_OK)
    oc_secret_mask(f->errs->data + from, f->errs->len - from);
}

/* Every credential the file holds is known before anything about it is
 * said: URL passwords and key-like queries, secret headers' values (also
 * one given as a number, which a schema error would quote) and the keys
 * key_env names. */
static void tfile_secrets(const struct oc_jv *root, const struct tfile *f)
{
  const struct oc_jv *list = root->type == OC_JARRAY ? root : oc_jv_get(root, "targets");
  for(uint32_t i = 0; list && list->type == OC_JARRAY && i < list->len; i++) {
    const struct oc_jv *j = &list->u.items[i];
    const char *url = oc_jv_str(j, "url", NULL);
    if(url)
      oc_secret_add_url(url);
    const char *key = oc_jv_str(j, "key_env", NULL);
    if(key)
      oc_secret_add_env(key);
    const struct oc_jv *hs = oc_jv_get(j, "headers");
    for(uint32_t k = 0; hs && hs->type == OC_JOBJECT && k < hs->len; k++) {
      const struct oc_jv *v = &hs->u.members[k].value;
      if(v->type == OC_JSTRING) {
        oc_secret_add_header(hs->u.members[k].key, v->u.str);
        continue;
      }
      char *text = v->end > v->offset ? oc_strndup(f->buf + v->offset, v->end - v->offset) : NULL;
      if(text)
        oc_secret_add_header(hs->u.members[k].key, text);
      free(text);
    }
  }
}

/* An environment variable's name.  Checked here, not by a schema
 * pattern, whose message would quote the value: someone who wrote the key
 * itself where its variable's name goes must not see it printed. */
static int env_name_ok(const char *s)
{
  if(!*s || (*s >= '0' && *s <= '9'))
    return 0;
  for(; *s; s++)
    if(!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
      return 0;
  return 1;
}

static int target_from_jv(struct oc_target *t, const struct oc_jv *j, const struct tfile *f)
{
  char msg[700];
  const char *name = oc_jv_str(j, "name", NULL);
  const char *url = oc_jv_str(j, "url", NULL);
  const char *rec = oc_jv_str(j, "recordings", NULL);
  int rc;
  oc_target_init(t); /* the caller frees *t whatever happens */
  if(!name || (!url && !rec) || (url && rec)) {
    tfile_err(f, j->offset, "a target needs a \"name\" and exactly one of \"url\" or \"recordings\"");
    return OC_EPARSE;
  }
  if(url) {
    char *spec = oc_asprintf("%s=%s", name, url);
    rc = spec ? oc_target_from_spec(t, spec, msg, sizeof(msg)) : OC_ENOMEM;
    free(spec);
  }
  else
    rc = oc_target_from_recordings(t, name, rec, msg, sizeof(msg));
  if(rc == OC_ENOMEM)
    return rc;
  if(rc) {
    tfile_err(f, oc_jv_get(j, url ? "url" : "recordings")->offset, msg);
    return OC_EPARSE;
  }
  const char *profile = oc_jv_str(j, "profile", NULL);
  if(profile) {
    free(t->profile_name);
    t->profile_name = oc_strdup(profile);
    t->profile_source = "targets-file";
    /* the schema's list of profiles could fall behind the code's */
    if(strcmp(profile, "auto") != 0 && !oc_profile_find(profile)) {
      snprintf(msg, sizeof(msg), "unknown profile '%.80s'", profile);
      tfile_err(f, oc_jv_get(j, "profile")->offset, msg);
      return OC_EPARSE;
    }
  }
  const char *model = oc_jv_str(j, "model", NULL);
  if(model)
    t->model = oc_strdup(model);
  const char *key = oc_jv_str(j, "key_env", NULL);
  if(key && !env_name_ok(key)) {
    tfile_err(f, oc_jv_get(j, "key_env")->offset, "key_env must be the name of an environment "
              "variable (letters, digits and '_', not first a digit); its value is not shown, "
              "in case it is the key itself");
    return OC_EPARSE;
  }
  if(key) {
    free(t->key_env);
    t->key_env = oc_strdup(key);
    t->key_env_given = 1;
    oc_secret_add_env(key);
  }
  const struct oc_jv *hs = oc_jv_get(j, "headers");
  for(uint32_t i = 0; hs && hs->type == OC_JOBJECT && i < hs->len; i++) {
    const struct oc_jmember *m = &hs->u.members[i];
    if(m->value.type != OC_JSTRING)
      continue; /* refused by the schema */
    /* checked here, not by a schema pattern, whose message would quote
     * the value: a header that cannot be sent, said before any request */
    if(strpbrk(m->key, "\r\n") || memchr(m->value.u.str, '\r', m->value.len) ||
       memchr(m->value.u.str, '\n', m->value.len) || memchr(m->value.u.str, '\0', m->value.len)) {
      snprintf(msg, sizeof(msg), "header '%.80s' holds a line break or a NUL byte: it cannot be sent "
               "(its value is not shown)", strpbrk(m->key, "\r\n") ? "(its name)" : m->key);
      tfile_err(f, m->value.offset, msg);
      return OC_EPARSE;
    }
    if(oc_headers_add(&t->headers, m->key, m->value.u.str))
      return OC_ENOMEM;
    oc_secret_add_header(m->key, m->value.u.str);
  }
  const struct oc_jv *as = oc_jv_get(j, "allow");
  for(uint32_t i = 0; as && as->type == OC_JARRAY && i < as->len; i++) {
    const struct oc_jv *a = &as->u.items[i];
    if(a->type == OC_JSTRING && !oc_ruleset_add_pattern(&t->allow, a->u.str))
      continue;
    char near[140];
    if(a->type == OC_JSTRING && oc_rule_suggest(a->u.str, near, sizeof(near)))
      snprintf(msg, sizeof(msg), "allow: '%.80s' is not a rule or family of the catalogue: did you "
               "mean '%s'? ('oacheck rules' lists them)", a->u.str, near);
    else
      snprintf(msg, sizeof(msg), "allow: '%.80s' is not a rule or family of the catalogue "
               "('oacheck rules' lists them)", a->type == OC_JSTRING ? a->u.str : "(not a string)");
    tfile_err(f, a->offset, msg);
    return OC_EPARSE;
  }
  const struct oc_jv *ctx = oc_jv_get(j, "ctx_size");
  if(ctx && oc_jv_is_integer(ctx) && ctx->u.num > 0)
    t->ctx_size = oc_jv_long(ctx);
  if(!t->profile_name || (model && !t->model) || (key && !t->key_env))
    return OC_ENOMEM;
  return OC_OK;
}

/* The targets schema, compiled from the data directory alone (not the
 * whole shipped registry: a command reads its targets before anything
 * else needs a schema). */
static int targets_schema(struct oc_schema **out, char *err, size_t errlen)
{
  static const char uri[] = OC_SCHEMA_SHIPPED_BASE "targets.schema.json";
  char msg[600];
  int rc = OC_ENOMEM;
  *out = NULL;
  struct oc_schema_registry *reg = oc_schema_registry_new();
  char *file = oc_data_path("schemas/targets.schema.json");
  if(reg && file) {
    rc = oc_schema_registry_add_file(reg, uri, file, msg, sizeof(msg));
    if(!rc && !(*out = oc_schema_compile_uri(reg, uri, 0, msg, sizeof(msg))))
      rc = OC_EPARSE;
    if(rc && rc != OC_ENOMEM)
      snprintf(err, errlen, "cannot load the targets schema: %s", msg);
  }
  free(file);
  oc_schema_registry_free(reg);
  return rc;
}

static int targets_validate(const struct oc_jv *root, const struct tfile *f, char *err, size_t errlen)
{
  struct oc_schema *schema;
  int rc = targets_schema(&schema, err, errlen);
  if(rc)
    return rc;
  struct oc_schema_result res;
  oc_schema_result_init(&res);
  res.max = 20; /* a hand-written file: the first twenty say what is wrong */
  int v = oc_schema_validate(schema, root, &res);
  char msg[800];
  if(v == -OC_ENOMEM)
    rc = OC_ENOMEM;
  else if(v != 1) {
    for(size_t i = 0; i < res.count; i++) {
      snprintf(msg, sizeof(msg), "at '%s': %s", res.errors[i].instance_path, res.errors[i].message);
      tfile_err(f, res.errors[i].offset, msg);
    }
    if(res.dropped)
      oc_buf_printf(f->errs, "\n%s: … and at least %zu more errors", f->path, res.dropped);
    if(v < 0)
      oc_buf_printf(f->errs, "\n%s: the targets schema could not be applied: %s", f->path,
                    res.undecided ? res.undecided : "oacheck's validation budget ran out");
    rc = OC_EPARSE;
  }
  oc_schema_result_free(&res);
  oc_schema_free(schema);
  return rc;
}

/* Whether a target sends a credential header of its own (Authorization,
 * Azure's api-key, …): then its key_env is not what authorises it. */
static int sends_own_key(const struct oc_target *t)
{
  for(size_t i = 0; i < t->headers.count; i++)
    if(oc_header_is_secret(t->headers.items[i].name))
      return 1;
  return 0;
}

/* Looks like a conventional variable name (OPENAI_API_KEY): upper case,
 * digits and '_'.  Anything else is not echoed, since some keys are only
 * letters, digits and '_' (hf_…, gsk_…) and may have been written where
 * their variable's name goes. */
static int shown_env_name(const char *s)
{
  size_t n = 0;
  for(; s[n]; n++)
    if(!((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= '0' && s[n] <= '9') || s[n] == '_'))
      return 0;
  return n > 0 && n <= 64;
}

/* A key_env the file names that holds no key sends every request without
 * one: said, so that a 401 is not the first sign (the name only when it
 * looks like one, never a value).  OPENAI_API_KEY, the default, is
 * optional (a local server needs none) and not warned about. */
static void warn_missing_key(const struct oc_target *t)
{
  if(!t->live || !t->key_env || !t->key_env_given || sends_own_key(t))
    return;
  const char *v = getenv(t->key_env);
  if(v && *v)
    return;
  if(shown_env_name(t->key_env))
    oc_warn("target %s: key_env %s is %s: requests go without a key", t->name, t->key_env,
            v ? "empty" : "not set");
  else
    oc_warn("target %s: its key_env names a variable that is %s: requests go without a key (the "
            "name is not shown: it is not upper case, and may be a key written where its "
            "variable's name goes)", t->name, v ? "empty" : "not set");
}

int oc_targets_load(const char *path, struct oc_target **ts, size_t *n, char *err, size_t errlen)
{
  char *buf = NULL;
  size_t len = 0;
  int rc = oc_read_file(path, OC_CAP_FILE, &buf, &len, err, errlen);
  if(rc)
    return rc;
  struct oc_buf errs;
  oc_buf_init(&errs, 1u << 16);
  struct tfile f = { path, buf, len, &errs };
  struct oc_jdoc doc;
  oc_jdoc_init(&doc);
  struct oc_jerr jerr;
  size_t first = *n;
  rc = oc_jdoc_parse(&doc, buf, len, &jerr);
  if(rc == OC_EPARSE || rc == OC_ETOOBIG) {
    char msg[300];
    snprintf(msg, sizeof(msg), "invalid JSON: %s", jerr.message ? jerr.message : "parse error");
    tfile_err(&f, jerr.offset, msg);
    rc = OC_EPARSE;
  }
  if(!rc) {
    tfile_secrets(doc.root, &f);
    rc = targets_validate(doc.root, &f, err, errlen);
  }
  const struct oc_jv *list = rc ? NULL : doc.root->type == OC_JARRAY ? doc.root
                                                                      : oc_jv_get(doc.root, "targets");
  for(uint32_t i = 0; list && i < list->len && !rc; i++) {
    struct oc_target *slot = target_slot(ts, *n);
    if(!slot) {
      rc = OC_ENOMEM;
      break;
    }
    const struct oc_jv *j = &list->u.items[i];
    rc = target_from_jv(slot, j, &f);
    for(size_t k = first; !rc && k < *n; k++)
      if(strcmp((*ts)[k].name, slot->name) == 0) {
        char msg[200];
        snprintf(msg, sizeof(msg), "target name '%.100s' is used twice", slot->name);
        tfile_err(&f, oc_jv_get(j, "name")->offset, msg);
        rc = OC_EPARSE;
      }
    if(rc)
      oc_target_free(slot);
    else
      (*n)++;
  }
  /* warned only for a file that loads: a broken one says what to fix first */
  for(size_t k = first; !rc && k < *n; k++)
    warn_missing_key(&(*ts)[k]);
  if(rc == OC_EPARSE && errs.len) /* a failed buffer keeps what it held */
    oc_strlcpy(err, oc_buf_str(&errs), errlen);
  else if(rc == OC_ENOMEM)
    snprintf(err, errlen, "out of memory");
  oc_buf_free(&errs);
  oc_jdoc_free(&doc);
  free(buf);
  return rc;
}

int oc_targets_build(const struct oc_target_args *a, struct oc_target **ts, size_t *n, char *err,
                     size_t errlen)
{
  int rc;
  for(size_t i = 0; i < a->targets.n; i++) {
    struct oc_target *t = target_slot(ts, *n);
    if(!t)
      return OC_ENOMEM;
    if(oc_target_from_spec(t, a->targets.items[i], err, errlen))
      return OC_EUSAGE;
    (*n)++;
  }
  for(size_t i = 0; i < a->replays.n; i++) {
    struct oc_target *t = target_slot(ts, *n);
    if(!t)
      return OC_ENOMEM;
    if((rc = oc_target_from_recordings(t, NULL, a->replays.items[i], err, errlen)) != OC_OK)
      return rc;
    (*n)++;
  }
  if(a->targets_file && (rc = oc_targets_load(a->targets_file, ts, n, err, errlen)) != OC_OK)
    return rc;
  for(size_t i = 0; i < *n; i++)
    for(size_t k = 0; k < i; k++)
      if(strcmp((*ts)[k].name, (*ts)[i].name) == 0) {
        snprintf(err, errlen, "two targets are named '%s': give them names (NAME=URL)",
                 (*ts)[i].name);
        return OC_EUSAGE;
      }
  return OC_OK;
}

int oc_targets_build_for(const char *cmd, const struct oc_target_args *a, struct oc_target **ts,
                         size_t *n)
{
  char err[8192]; /* a targets file's errors, a line each */
  int rc = oc_targets_build(a, ts, n, err, sizeof(err));
  if(rc == OC_EUSAGE)
    return oc_cli_usage_error(cmd, "%s", err);
  if(rc == OC_EPARSE) {
    /* as suite errors are said: FILE:LINE:COL lines, then the verdict */
    fprintf(stderr, "%s\n", err);
    oc_error("targets file errors: nothing was run");
    return OC_EXIT_USAGE;
  }
  if(rc) {
    oc_error("%s", rc == OC_ENOMEM ? "out of memory" : err);
    return OC_EXIT_USAGE;
  }
  return -1;
}

void oc_targets_free(struct oc_target *ts, size_t n)
{
  for(size_t i = 0; i < n; i++)
    oc_target_free(&ts[i]);
  free(ts);
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

int oc_target_messages_headers(const struct oc_target *t, struct oc_headers *out)
{
  const char *key = getenv(t->key_env_given && t->key_env ? t->key_env : "ANTHROPIC_API_KEY");
  if(key && *key && !oc_headers_get(out, "x-api-key")) {
    oc_secret_add(key);
    if(oc_headers_add(out, "x-api-key", key))
      return OC_ENOMEM;
  }
  if(!oc_headers_get(out, "anthropic-version") && oc_headers_add(out, "anthropic-version", "2023-06-01"))
    return OC_ENOMEM;
  return OC_OK;
}

void oc_target_key_hint(const struct oc_target *t, char *out, size_t outlen)
{
  if(!t->live) {
    oc_strlcpy(out, "as recorded", outlen);
    return;
  }
  /* a header of the target's own wins over the variable: that is the key sent */
  if(oc_headers_get(&t->headers, "Authorization")) {
    oc_strlcpy(out, "does the target's Authorization header hold a key this server accepts?",
               outlen);
    return;
  }
  const char *env = t->key_env ? t->key_env : "OPENAI_API_KEY";
  /* the default variable may be what the user meant to override, per
   * target, in a targets file: both are named */
  const char *which = strcmp(env, "OPENAI_API_KEY") == 0 ? " (or the target's key_env)"
                                                         : " (the target's key_env)";
  const char *v = getenv(env);
  if(!v || !*v)
    snprintf(out, outlen, "%s%s is %s, so no key was sent: set it to a key this server accepts",
             env, which, v ? "empty" : "not set");
  else
    snprintf(out, outlen, "is %s%s set to a key this server accepts?", env, which);
}

void oc_target_models_note(const struct oc_target *t, char *out, size_t outlen)
{
  const char *problem = oc_json_str(t->identity, "models_problem");
  out[0] = '\0';
  if(!problem)
    return;
  char hint[300];
  if(t->live && (t->models_status == 401 || t->models_status == 403))
    oc_target_key_hint(t, hint, sizeof(hint));
  else
    oc_strlcpy(hint, t->live ? "is this the server's root? oacheck adds /v1/… to it" : "as recorded",
               sizeof(hint));
  snprintf(out, outlen, "%s: %s", problem, hint);
}

/* Identification exchanges are part of a recording: replaying a run needs
 * the same /v1/models, /props and token counts. */
static void record_identification(struct oc_target *t, const char *dir, const char *method,
                                  const char *path, const char *rbody, size_t rlen,
                                  const struct oc_http_response *resp,
                                  const char *body, size_t len, uint64_t took_ns,
                                  const char *as)
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
  /* a case's own second request (its count) is named after the case */
  char *full = as ? oc_strdup(as) : oc_asprintf("identify%s-%.8s", name, key);
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
  c.source = as ? oc_asprintf("recorded live from target '%s' beside its case", t->name)
               : oc_asprintf("identification of target '%s', recorded live", t->name);
  char ts[32];
  oc_now_rfc3339(ts);
  c.recorded_at = oc_strdup(ts);
  char err[600];
  char *file = full ? oc_asprintf("%s/%s%s", dir, full, OC_CASSETTE_EXT) : NULL;
  /* how long it took (a router's first request for a model loads it): the
   * whole body as one piece at the end */
  c.timing_recorded = 1;
  c.headers_ns = took_ns;
  if(oc_cassette_update_key(&c) || oc_cassette_add_piece(&c, body, len, took_ns) || !file ||
     oc_cassette_write(file, &c, err, sizeof(err)))
    oc_error("cannot record the identification request %s %s", method, path);
  free(file);
  oc_cassette_free(&c);
}

static int fetch(struct oc_target *t, const struct oc_identify_options *o, const char *method,
                 const char *path, const char *rbody, size_t rlen, int *status,
                 struct oc_headers *hdrs, char **body, size_t *len, struct oc_fetch_meta *meta,
                 const char *as, char *err, size_t errlen);

int oc_target_fetch(struct oc_target *t, const struct oc_identify_options *o, const char *method,
                    const char *path, const char *rbody, int *status, struct oc_headers *hdrs,
                    char **body, size_t *len, char *err, size_t errlen)
{
  return oc_target_fetch_ex(t, o, method, path, rbody, status, hdrs, body, len, NULL, err, errlen);
}

int oc_target_fetch_ex(struct oc_target *t, const struct oc_identify_options *o, const char *method,
                       const char *path, const char *rbody, int *status, struct oc_headers *hdrs,
                       char **body, size_t *len, struct oc_fetch_meta *meta, char *err,
                       size_t errlen)
{
  char *rpath = NULL, *rbody2 = NULL;
  size_t rlen = rbody ? strlen(rbody) : 0, rlen2 = 0;
  *body = NULL;
  *len = 0;
  *status = 0;
  if(meta) {
    memset(meta, 0, sizeof(*meta));
    meta->duration_ms = -1;
  }
  if(oc_target_route(t, method, path, rbody, rlen, &rpath, &rbody2, &rlen2))
    return OC_ENOMEM;
  if(rpath)
    path = rpath;
  if(rbody2) {
    rbody = rbody2;
    rlen = rlen2;
  }
  int rc = fetch(t, o, method, path, rbody, rlen, status, hdrs, body, len, meta, NULL, err, errlen);
  free(rpath);
  free(rbody2);
  return rc;
}

int oc_target_fetch_beside(struct oc_target *t, const struct oc_identify_options *o,
                           const char *method, const char *path, const char *rbody,
                           const char *name, int *status, struct oc_headers *hdrs, char **body,
                           size_t *len, char *err, size_t errlen)
{
  char *rpath = NULL, *rbody2 = NULL;
  size_t rlen = rbody ? strlen(rbody) : 0, rlen2 = 0;
  *body = NULL;
  *len = 0;
  *status = 0;
  if(oc_target_route(t, method, path, rbody, rlen, &rpath, &rbody2, &rlen2))
    return OC_ENOMEM;
  int rc = fetch(t, o, method, rpath ? rpath : path, rbody2 ? rbody2 : rbody,
                 rbody2 ? rlen2 : rlen, status, hdrs, body, len, NULL, name ? name : "", err,
                 errlen);
  free(rpath);
  free(rbody2);
  return rc;
}

static int fetch(struct oc_target *t, const struct oc_identify_options *o, const char *method,
                 const char *path, const char *rbody, size_t rlen, int *status,
                 struct oc_headers *hdrs, char **body, size_t *len, struct oc_fetch_meta *meta,
                 const char *as, char *err, size_t errlen)
{
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
    if(meta && c->recorded_at)
      oc_strlcpy(meta->recorded_at, c->recorded_at, sizeof(meta->recorded_at));
    if(meta && c->timing_recorded && c->npieces)
      meta->duration_ms = (double)c->pieces[c->npieces - 1].t_ns / 1e6;
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
      if(meta)
        meta->transport = OC_HTTP_TIMEOUT_TOTAL;
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
  uint64_t t0 = oc_now_ns();
  /* beside a case (as non-NULL), a Messages request carries Anthropic's
   * credentials as the case's own did */
  enum oc_api api = as ? oc_api_from_path(path) : OC_API_OTHER;
  int anthropic = api == OC_API_MESSAGES || api == OC_API_MESSAGES_COUNT_TOKENS;
  int rc = url && !oc_target_request_headers(t, &h) &&
               !(anthropic && oc_target_messages_headers(t, &h))
             ? oc_http_fetch(&req, &resp, err, errlen)
             : OC_ENOMEM;
  uint64_t took = oc_now_ns() - t0;
  if(meta)
    meta->duration_ms = (double)took / 1e6;
  /* every failure but memory's has a transport kind: a request that could
   * not even be sent (OC_EUSAGE: a header with a line break in it) is not
   * "no error" */
  if(meta && rc != OC_OK && rc != OC_ENOMEM)
    meta->transport = resp.outcome.error != OC_HTTP_OK ? (int)resp.outcome.error : (int)OC_HTTP_OTHER;
  if(rc == OC_OK) {
    *status = resp.status;
    if(oc_headers_copy(hdrs, &resp.headers))
      rc = OC_ENOMEM;
    *body = resp.body;
    *len = resp.body_len;
    resp.body = NULL;
    const char *rdir = t->record_dir ? t->record_dir : o->record_dir;
    if(rdir && *body)
      record_identification(t, rdir, method, path, rbody, rlen, &resp, *body, *len, took,
                            as && *as ? as : NULL);
  }
  oc_http_response_free(&resp);
  oc_headers_free(&h);
  free(url);
  return rc;
}

/* Server-provided text into the identity, as valid UTF-8. */
static void add_ident(int *oom, cJSON *o, const char *key, const char *v)
{
  char *t = oc_utf8_sanitize(v, strlen(v));
  oc_json_put(oom, o, key, t ? cJSON_CreateString(t) : NULL);
  free(t);
}

static void set_error(struct oc_target *t, const char *msg)
{
  free(t->error);
  t->error = oc_strdup(msg);
}

/* Keep the template's text: the template checks read what it can
 * render, and its tool-call tokens are looked for in content. */
static void set_template(struct oc_target *t, const char *tmpl)
{
  free(t->chat_template);
  oc_dialect_free(&t->dialect);
  t->chat_template = oc_strdup(tmpl);
  if(t->chat_template && oc_dialect_from_template(&t->dialect, tmpl, strlen(tmpl)))
    oc_warn("target %s: out of memory reading its template's tool-call markers", t->name);
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

char *oc_target_render(struct oc_target *t, const struct oc_identify_options *o,
                       const cJSON *messages, const cJSON *tools, int *status_out)
{
  int oom = 0, status = 0;
  char *out = NULL, *body = NULL, *prompt = NULL, err[600];
  size_t len;
  struct oc_headers h;
  oc_headers_init(&h);
  cJSON *req = cJSON_CreateObject();
  oc_json_put(&oom, req, "messages", cJSON_Duplicate(messages, 1));
  if(tools)
    oc_json_put(&oom, req, "tools", cJSON_Duplicate(tools, 1));
  if(!oom)
    out = oc_json_print(req);
  cJSON_Delete(req);
  if(out && !oc_target_fetch(t, o, "POST", "/apply-template", out, &status, &h, &body, &len, err,
                             sizeof(err)) && status == 200) {
    cJSON *doc = oc_json_parse(body, len, NULL);
    const char *p = oc_json_str(doc, "prompt");
    prompt = p ? oc_strdup(p) : NULL;
    cJSON_Delete(doc);
  }
  free(out);
  free(body);
  oc_headers_free(&h);
  if(status_out)
    *status_out = prompt ? 200 : status;
  return prompt;
}

long oc_target_count_tokens(struct oc_target *t, const struct oc_identify_options *o,
                            const char *prompt)
{
  int oom = 0, status;
  long n = -1;
  char *out = NULL, *body = NULL, err[600];
  size_t len;
  struct oc_headers h;
  oc_headers_init(&h);
  cJSON *tok = cJSON_CreateObject();
  oc_json_put(&oom, tok, "content", cJSON_CreateString(prompt));
  oc_json_put(&oom, tok, "add_special", cJSON_CreateTrue());
  oc_json_put(&oom, tok, "parse_special", cJSON_CreateTrue());
  if(!oom)
    out = oc_json_print(tok);
  cJSON_Delete(tok);
  if(out && !oc_target_fetch(t, o, "POST", "/tokenize", out, &status, &h, &body, &len, err,
                             sizeof(err)) && status == 200) {
    cJSON *doc = oc_json_parse(body, len, NULL);
    const cJSON *tokens = oc_json_arr(doc, "tokens");
    if(tokens)
      n = cJSON_GetArraySize(tokens);
    cJSON_Delete(doc);
  }
  free(out);
  free(body);
  oc_headers_free(&h);
  return n;
}

/* The prompt tokens of a one-message conversation of w filler words, as the
 * server counts them.  -1 when the target cannot say. */
static long count_tokens(struct oc_target *t, const struct oc_identify_options *o, long w)
{
  long n = -1;
  int oom = 0;
  char *prompt = NULL;
  struct oc_buf text;
  oc_buf_init(&text, OC_CAP_FILE);
  for(long i = 0; i < w; i++)
    if((i && oc_buf_addc(&text, ' ')) || oc_buf_adds(&text, "hello"))
      goto out;
  cJSON *msgs = cJSON_CreateArray();
  cJSON *m = oc_json_put(&oom, msgs, NULL, cJSON_CreateObject());
  oc_json_put_str(&oom, m, "role", "user");
  oc_json_put(&oom, m, "content", cJSON_CreateString(oc_buf_str(&text)));
  if(!oom)
    prompt = oc_target_render(t, o, msgs, NULL, NULL);
  cJSON_Delete(msgs);
  if(prompt)
    n = oc_target_count_tokens(t, o, prompt);
out:
  free(prompt);
  oc_buf_free(&text);
  return n;
}

/* Find the filler word counts for prompts of N_CTX-1, N_CTX and N_CTX+1
 * tokens: the per-word cost from two counts, then a few corrections,
 * since templates and tokenizers are not perfectly linear. */
static void probe_context(int *oom, struct oc_target *t, const struct oc_identify_options *o)
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
    oc_json_put(oom, t->vars, goals[g].var, cJSON_CreateNumber((double)w));
  }
  oc_json_put(oom, t->identity, "prompt_tokens_per_word", cJSON_CreateNumber(round(per * 1000) / 1000));
}

/* ---- routers ------------------------------------------------------------------------ */

const char *oc_target_model(const struct oc_target *t)
{
  const char *m = oc_json_str(t->vars, "MODEL");
  return m ? m : t->model;
}

/* The router's own endpoints: they answer for every model at once. */
static int router_own_path(const char *path)
{
  size_t n = strcspn(path, "?");
  static const char *const own[] = { "/v1/models", "/models", "/health", "/v1/health" };
  for(size_t i = 0; i < OC_ARRAY_LEN(own); i++)
    if(n == strlen(own[i]) && memcmp(path, own[i], n) == 0)
      return 1;
  return 0;
}

static int has_model_param(const char *path)
{
  const char *q = strchr(path, '?');
  for(const char *p = q; p && *p; p = strchr(p + 1, '&'))
    if(strncmp(p + 1, "model=", 6) == 0)
      return 1;
  return 0;
}

int oc_target_route(const struct oc_target *t, const char *method, const char *path,
                    const char *body, size_t len, char **path_out, char **body_out,
                    size_t *len_out)
{
  *path_out = NULL;
  *body_out = NULL;
  *len_out = 0;
  const char *model = oc_target_model(t);
  if(!t->router || !model || !path || router_own_path(path))
    return OC_OK;
  if(!body || !len) {
    (void)method;
    if(has_model_param(path))
      return OC_OK;
    struct oc_buf q;
    oc_buf_init(&q, OC_CAP_HTTP_HEAD);
    int rc = oc_cassette_query_append(&q, "model", model);
    if(!rc)
      *path_out = oc_asprintf("%s%c%s", path, strchr(path, '?') ? '&' : '?', oc_buf_str(&q));
    oc_buf_free(&q);
    return rc ? rc : *path_out ? OC_OK : OC_ENOMEM;
  }
  /* a JSON object without a model gets one; anything else (the deliberately
   * invalid request) goes as it is */
  cJSON *j = NULL;
  if(oc_json_parse_rc(body, len, NULL, &j) == OC_ENOMEM)
    return OC_ENOMEM; /* not "invalid, send it as it is" */
  if(!cJSON_IsObject(j) || cJSON_GetObjectItemCaseSensitive(j, "model")) {
    cJSON_Delete(j);
    return OC_OK;
  }
  int rc = cJSON_AddStringToObject(j, "model", model) ? OC_OK : OC_ENOMEM;
  if(!rc && !(*body_out = oc_json_print(j)))
    rc = OC_ENOMEM;
  if(*body_out)
    *len_out = strlen(*body_out);
  cJSON_Delete(j);
  return rc;
}

/* Does this flag's value hold a secret (an API key, a token)? */
static int secret_flag(const char *flag)
{
  static const char *const words[] = { "key", "token", "secret", "password", "passwd" };
  for(size_t i = 0; i < OC_ARRAY_LEN(words); i++)
    if(strstr(flag, words[i]))
      return 1;
  return 0;
}

/* What the router says it runs a model with (/v1/models status.args and
 * status.preset), without what changes by itself — the --port of every
 * load, the load state — and with secret values masked: the flags an
 * operator audits and `pin` holds. */
static cJSON *model_flags(const cJSON *status, int *oom)
{
  const cJSON *args = oc_json_arr(status, "args");
  const char *preset = oc_json_str(status, "preset");
  if(!args && !preset)
    return NULL;
  cJSON *o = cJSON_CreateObject();
  cJSON *a = args ? oc_json_put(oom, o, "args", cJSON_CreateArray()) : NULL;
  int skip_value = 0, mask_value = 0, first = 1;
  const cJSON *x;
  cJSON_ArrayForEach(x, args)
  {
    if(!cJSON_IsString(x) || *oom)
      continue;
    const char *v = x->valuestring;
    if(first) {
      /* the binary's path is the machine's, not a flag */
      const char *slash = strrchr(v, '/');
      oc_json_put(oom, a, NULL, cJSON_CreateString(slash ? slash + 1 : v));
      first = 0;
      continue;
    }
    if(skip_value || mask_value) {
      int was_mask = mask_value;
      skip_value = mask_value = 0;
      if(v[0] != '-') {
        if(was_mask)
          oc_json_put(oom, a, NULL, cJSON_CreateString("[masked]"));
        continue;
      }
    }
    if(v[0] == '-') {
      const char *eq = strchr(v, '=');
      char flag[96];
      snprintf(flag, sizeof(flag), "%.*s", (int)(eq ? (size_t)(eq - v) : strlen(v)), v);
      if(strcmp(flag, "--port") == 0) {
        skip_value = !eq;
        continue;
      }
      if(secret_flag(flag)) {
        if(eq) {
          char *m = oc_asprintf("%s=[masked]", flag);
          oc_json_put(oom, a, NULL, m ? cJSON_CreateString(m) : NULL);
          free(m);
        }
        else {
          oc_json_put(oom, a, NULL, cJSON_CreateString(flag));
          mask_value = 1;
        }
        continue;
      }
    }
    char *clean = oc_utf8_sanitize(v, strlen(v));
    oc_json_put(oom, a, NULL, clean ? cJSON_CreateString(clean) : NULL);
    free(clean);
  }
  if(preset && !*oom) {
    /* "key = value" lines: a secret's value masked, the port left out */
    struct oc_buf b;
    oc_buf_init(&b, OC_CAP_FILE);
    for(const char *p = preset; *p;) {
      size_t n = strcspn(p, "\n");
      const char *eq = memchr(p, '=', n);
      char key[96];
      size_t kl = eq ? (size_t)(eq - p) : 0;
      while(kl && p[kl - 1] == ' ')
        kl--;
      snprintf(key, sizeof(key), "%.*s", (int)(kl < 95 ? kl : 95), p);
      if(eq && strcmp(key, "port") == 0)
        ;
      else if(eq && secret_flag(key))
        oc_buf_printf(&b, "%s = [masked]\n", key);
      else {
        oc_buf_add(&b, p, n);
        if(p[n])
          oc_buf_addc(&b, '\n');
      }
      p += n + (p[n] ? 1 : 0);
    }
    char *clean = oc_buf_error(&b) ? NULL : oc_utf8_sanitize(oc_buf_str(&b), b.len);
    oc_json_put(oom, o, "preset", clean ? cJSON_CreateString(clean) : NULL);
    free(clean);
    oc_buf_free(&b);
  }
  if(*oom) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

cJSON *oc_target_model_flags(const cJSON *status)
{
  int oom = 0;
  return model_flags(status, &oom);
}



/* A router's /v1/models: every model's flags into the identity
 * ("model_flags": {id: {args, preset}}), and the load state of t's own.
 * OC_ENOMEM when a part of it could not be written down. */
static int router_models(struct oc_target *t, const cJSON *doc, const char **state)
{
  int oom = 0;
  cJSON *flags = NULL;
  const cJSON *m;
  *state = NULL;
  cJSON_ArrayForEach(m, oc_json_arr(doc, "data"))
  {
    const char *id = oc_json_str(m, "id");
    const cJSON *st = oc_json_obj(m, "status");
    cJSON *f = id ? model_flags(st, &oom) : NULL;
    if(!f)
      continue;
    if(!flags)
      flags = oc_json_put(&oom, t->identity, "model_flags", cJSON_CreateObject());
    char *clean = oc_utf8_sanitize(id, strlen(id));
    if(clean)
      oc_json_put(&oom, flags, clean, f);
    else {
      cJSON_Delete(f);
      oom = 1;
    }
    free(clean);
    if(oc_streq(id, oc_target_model(t)))
      *state = oc_json_str(st, "value");
  }
  return oom ? OC_ENOMEM : OC_OK;
}

/* A router's /props is its own (role "router", n_ctx 0): the model's
 * instance answers /props?model=MODEL.  That first request may load the
 * model (slow once): its time is noted, not judged.  *doc becomes the
 * instance's props when it answers. */
static void router_props(struct oc_target *t, const struct oc_identify_options *o, cJSON **doc,
                         const char *state)
{
  if(!oc_streq(oc_json_str(*doc, "role"), "router"))
    return;
  t->router = 1;
  if(!cJSON_AddBoolToObject(t->identity, "router", 1))
    oc_warn("target %s: out of memory noting that it is a router", t->name);
  if(!oc_target_model(t) || o->models_only)
    return;
  if(!t->live) {
    /* recordings of a router by `record --model`: DIR/MODEL holds the model's */
    char sub[256];
    oc_model_dirname(oc_target_model(t), sub, sizeof(sub));
    char *mine = oc_path_join(t->recordings, sub);
    if(mine && oc_is_dir(mine) && !t->router_name) {
      const char *dirs[1] = { mine };
      if(oc_cassette_store_load(&t->store, dirs, 1, store_error, NULL) == OC_ENOMEM)
        oc_warn("target %s: out of memory loading '%s'", t->name, mine);
    }
    free(mine);
  }
  int status;
  char *body = NULL, err[600];
  size_t len;
  struct oc_headers h;
  oc_headers_init(&h);
  struct oc_fetch_meta meta;
  int rc = oc_target_fetch_ex(t, o, "GET", "/props", NULL, &status, &h, &body, &len, &meta, err,
                              sizeof(err));
  cJSON *mine = rc == OC_OK && status == 200 ? oc_json_parse(body, len, NULL) : NULL;
  if(mine) {
    cJSON_Delete(*doc);
    *doc = mine;
  }
  else
    oc_warn("target %s: GET /props?model=%s: %s", t->name, oc_target_model(t),
            rc ? err : "no props for the model");
  if(state && !oc_streq(state, "loaded") && meta.duration_ms >= 0) {
    int oom = 0;
    cJSON *l = oc_json_put(&oom, t->identity, "load", cJSON_CreateObject());
    add_ident(&oom, l, "was", state);
    oc_json_put(&oom, l, "first_request_ms", cJSON_CreateNumber(round(meta.duration_ms * 10) / 10));
    if(oom)
      oc_warn("target %s: out of memory noting the model's first load", t->name);
  }
  free(body);
  oc_headers_free(&h);
}

int oc_model_spec_is_list(const char *spec)
{
  return spec && (strcmp(spec, "all") == 0 || strchr(spec, ','));
}

void oc_model_dirname(const char *model, char *out, size_t outlen)
{
  size_t o = 0;
  for(const char *p = model; *p && o + 1 < outlen; p++, o++)
    out[o] = (*p == '/' || *p == '\\' || (*p == '.' && o == 0)) ? '_' : *p;
  out[o] = '\0';
}

/* A copy of src's configuration (not its identity) for one model. */
static int target_for_model(struct oc_target *d, const struct oc_target *src, const char *model,
                            const char *record_dir, char *err, size_t errlen)
{
  char sub[256];
  oc_model_dirname(model, sub, sizeof(sub));
  char *name = oc_asprintf("%s/%s", src->name, model);
  int rc = OC_ENOMEM;
  oc_target_init(d);
  if(!name)
    return OC_ENOMEM;
  if(src->live) {
    d->live = 1;
    d->url = oc_strdup(src->url);
    d->base = oc_strdup(src->base);
    d->name = name;
    name = NULL;
    if(!d->url || !d->base)
      goto out;
  }
  else {
    char *mine = oc_path_join(src->recordings, sub);
    if(!mine)
      goto out;
    const char *dirs[2] = { mine, src->recordings };
    int own = oc_is_dir(mine);
    d->recordings = oc_strdup(own ? mine : src->recordings);
    d->name = name;
    name = NULL;
    rc = d->recordings ? oc_cassette_store_load(&d->store, own ? dirs : dirs + 1, own ? 2 : 1,
                                                store_error, NULL)
                       : OC_ENOMEM;
    free(mine);
    if(rc == OC_ENOMEM || rc == OC_ENOTFOUND) {
      snprintf(err, errlen, "cannot load the recordings of model '%s' of target '%s'", model,
               src->name);
      goto out;
    }
    d->timing_recorded = src->timing_recorded;
  }
  rc = OC_ENOMEM;
  d->profile_name = oc_strdup(src->profile_name ? src->profile_name : "auto");
  d->profile_source = src->profile_source;
  d->model = oc_strdup(model);
  d->key_env = src->key_env ? oc_strdup(src->key_env) : NULL;
  d->key_env_given = src->key_env_given;
  d->allow = src->allow;
  d->ctx_size = src->ctx_size;
  d->router_name = oc_strdup(src->name);
  if(src->record_dir) /* one of several recorded targets: its models under its own */
    record_dir = src->record_dir;
  if(record_dir) {
    d->record_dir = oc_path_join(record_dir, sub);
    if(d->record_dir && !oc_is_dir(d->record_dir) && mkdir(d->record_dir, 0777) != 0) {
      snprintf(err, errlen, "cannot create '%s': %s", d->record_dir, strerror(errno));
      rc = OC_EIO;
      goto out;
    }
  }
  if(!d->profile_name || !d->model || (src->key_env && !d->key_env) || !d->router_name ||
     (record_dir && !d->record_dir) || oc_headers_copy(&d->headers, &src->headers))
    goto out;
  rc = OC_OK;
out:
  free(name);
  return rc;
}

int oc_targets_expand_models(struct oc_target **ts, size_t *n, const char *spec,
                             const char *record_dir, char *err, size_t errlen)
{
  struct oc_target *out = NULL;
  size_t nout = 0, alloc = 0;
  int rc = OC_OK;
  for(size_t i = 0; i < *n && !rc; i++) {
    struct oc_target *t = &(*ts)[i];
    const cJSON *listed = oc_json_arr(t->identity, "models");
    /* the models: every listed id, or the names given */
    struct oc_strlist want = { NULL, 0, 0 };
    char *copy = NULL;
    if(strcmp(spec, "all") == 0) {
      const cJSON *m;
      cJSON_ArrayForEach(m, listed)
        if(cJSON_IsString(m) && oc_strlist_add(&want, m->valuestring))
          rc = OC_ENOMEM;
      if(!want.n && t->reachable) {
        snprintf(err, errlen, "--model all: target '%s' lists no model in /v1/models", t->name);
        rc = OC_EUSAGE;
      }
    }
    else if((copy = oc_strdup(spec)) != NULL) {
      for(char *p = copy; p && *p && !rc;) {
        char *comma = strchr(p, ',');
        if(comma)
          *comma = '\0';
        if(*p && oc_strlist_add(&want, p))
          rc = OC_ENOMEM;
        p = comma ? comma + 1 : NULL;
      }
    }
    else
      rc = OC_ENOMEM;
    /* a router only serves what it lists */
    for(size_t k = 0; !rc && t->router && k < want.n; k++) {
      int found = 0;
      const cJSON *m;
      cJSON_ArrayForEach(m, listed)
        found |= cJSON_IsString(m) && strcmp(m->valuestring, want.items[k]) == 0;
      if(!found) {
        snprintf(err, errlen, "--model: router '%s' does not list model '%s' in /v1/models",
                 t->name, want.items[k]);
        rc = OC_EUSAGE;
      }
    }
    if(!t->reachable && !rc) {
      /* nothing to ask: it stays as it is, and reports unreachable */
      struct oc_target *d = oc_array_grow(out, &alloc, nout + 1, sizeof(*out));
      if(!d)
        rc = OC_ENOMEM;
      else {
        out = d;
        out[nout++] = *t;
        oc_target_init(t);
      }
    }
    else
      for(size_t k = 0; !rc && k < want.n; k++) {
        struct oc_target *d = oc_array_grow(out, &alloc, nout + 1, sizeof(*out));
        if(!d) {
          rc = OC_ENOMEM;
          break;
        }
        out = d;
        rc = target_for_model(&out[nout], t, want.items[k], record_dir, err, errlen);
        nout++;
      }
    oc_strlist_free(&want);
    free(copy);
  }
  if(rc) {
    oc_targets_free(out, nout);
    return rc;
  }
  oc_targets_free(*ts, *n);
  *ts = out;
  *n = nout;
  return OC_OK;
}

/* What is wrong with the answer to GET /v1/models, when it is not an
 * OpenAI model list: a status other than 200, a body that is not JSON, or
 * JSON without a "data" array (a web application's page, a proxy's 404,
 * a path that is not the API's root).  An empty list is an answer, not a
 * problem.  "" when nothing is wrong. */
static void models_problem(const struct oc_target *t, int status, const struct oc_headers *h,
                           const cJSON *doc, char *out, size_t outlen)
{
  char media[128], where[600];
  out[0] = '\0';
  if(status == 200 && cJSON_IsArray(oc_json_get(doc, "data")))
    return;
  const char *ct = oc_headers_get(h, "Content-Type");
  oc_media_type(ct ? ct : "", media, sizeof(media));
  if(!media[0])
    oc_strlcpy(media, "no Content-Type", sizeof(media));
  char *url = t->live ? oc_url_join(t->base, "/v1/models") : NULL;
  if(url)
    oc_url_redact(url, where, sizeof(where));
  else
    oc_strlcpy(where, "/v1/models", sizeof(where));
  free(url);
  snprintf(out, outlen, "GET %s answered HTTP %d (%s)%s", where, status, media,
           status != 200 ? ""
           : !doc        ? ", not JSON"
                         : " without a \"data\" array: not an OpenAI model list");
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
  free(t->chat_template);
  t->chat_template = NULL;
  oc_dialect_free(&t->dialect);
  t->identity = cJSON_CreateObject();
  t->vars = cJSON_CreateObject();
  oc_deployment_free(&t->deployment);
  if(!t->identity || !t->vars)
    return OC_ENOMEM;
  int oom = 0;
  t->reachable = 0;
  t->error_kind = NULL;
  t->models_status = 0;
  t->router = 0; /* its own /props says, below */
  struct oc_fetch_meta meta;
  int rc = oc_target_fetch_ex(t, o, "GET", "/v1/models", NULL, &status, &h, &body, &len, &meta, err,
                              sizeof(err));
  if(rc == OC_ENOMEM)
    goto nomem;
  if(rc && t->live) {
    set_error(t, err);
    /* the few words every case of this target is reported with */
    t->error_kind = meta.transport != OC_HTTP_OK ? oc_http_error_phrase((enum oc_http_error)meta.transport)
                                                 : NULL;
    goto done;
  }
  t->reachable = 1;
  const char *server = oc_headers_get(&h, "Server");
  if(server)
    add_ident(&oom, t->identity, "server", server);
  cJSON *models = oc_json_put(&oom, t->identity, "models", cJSON_CreateArray());
  cJSON *doc = NULL;
  /* out of memory must not read as "not a model list" */
  if(rc == OC_OK && status == 200 && oc_json_parse_rc(body, len, NULL, &doc) == OC_ENOMEM)
    goto nomem;
  if(rc == OC_OK) {
    /* said once, before the cases: every case that needs ${MODEL} would
     * otherwise only say that the target "lists no model" */
    char problem[800];
    models_problem(t, status, &h, doc, problem, sizeof(problem));
    if(problem[0])
      add_ident(&oom, t->identity, "models_problem", problem);
    t->models_status = status;
  }
  const cJSON *m;
  const char *first = NULL, *owner = NULL;
  cJSON_ArrayForEach(m, oc_json_arr(doc, "data"))
  {
    const char *id = oc_json_str(m, "id");
    if(id && models) {
      char *clean = oc_utf8_sanitize(id, strlen(id));
      oc_json_put(&oom, models, NULL, clean ? cJSON_CreateString(clean) : NULL);
      free(clean);
      if(!first) {
        first = id;
        owner = oc_json_str(m, "owned_by");
      }
    }
  }
  if(owner)
    add_ident(&oom, t->identity, "owned_by", owner);
  const char *model = t->model ? t->model : first;
  if(model) {
    add_ident(&oom, t->identity, "model", model);
    oc_json_put_str(&oom, t->vars, "MODEL", model);
  }
  else
    oc_json_put(&oom, t->identity, "model", cJSON_CreateNull());
  const char *load_state = NULL;
  if(router_models(t, doc, &load_state))
    oom = 1;
  char *state = load_state ? oc_strdup(load_state) : NULL;
  if(load_state && !state)
    oom = 1;
  cJSON_Delete(doc);
  free(body);
  body = NULL;
  oc_headers_free(&h);
  /* llama-server's /props: build, context per slot, chat template */
  rc = oc_target_fetch(t, o, "GET", "/props", NULL, &status, &h, &body, &len, err, sizeof(err));
  if(rc == OC_ENOMEM) {
    free(state);
    goto nomem;
  }
  doc = (rc == OC_OK && status == 200) ? oc_json_parse(body, len, NULL) : NULL;
  if(doc)
    router_props(t, o, &doc, state);
  free(state);
  state = NULL;
  if(doc) {
    const char *build = oc_json_str(doc, "build_info");
    if(build)
      add_ident(&oom, t->identity, "build", build);
    const cJSON *dgs = oc_json_obj(doc, "default_generation_settings");
    const cJSON *nctx = oc_json_get(dgs, "n_ctx");
    if(!oc_json_is_integer(nctx))
      nctx = oc_json_get(doc, "n_ctx");
    if(oc_streq(oc_json_str(doc, "role"), "router"))
      nctx = NULL; /* the router's own 0: its models each have theirs */
    /* a hostile /props may say anything: only a plausible window counts */
    if(oc_json_is_integer(nctx) && (nctx->valuedouble < 1 || nctx->valuedouble > (double)(1 << 30))) {
      oc_warn("target %s: /props says n_ctx %g, which is not a usable context size; ignored",
              t->name, nctx->valuedouble);
      nctx = NULL;
    }
    if(oc_json_is_integer(nctx)) {
      oc_json_put(&oom, t->identity, "n_ctx", cJSON_CreateNumber(nctx->valuedouble));
      oc_json_put(&oom, t->vars, "N_CTX", cJSON_CreateNumber(nctx->valuedouble));
    }
    const cJSON *slots = oc_json_get(doc, "total_slots");
    if(oc_json_is_integer(slots) && slots->valuedouble >= 0 && slots->valuedouble < 1e9)
      oc_json_put(&oom, t->identity, "total_slots", cJSON_CreateNumber(slots->valuedouble));
    const char *mp = oc_json_str(doc, "model_path");
    if(mp)
      add_ident(&oom, t->identity, "model_path", mp);
    const char *tmpl = oc_json_str(doc, "chat_template");
    if(tmpl) {
      unsigned char md[EVP_MAX_MD_SIZE];
      unsigned int mdlen = 0;
      char hex[2 * EVP_MAX_MD_SIZE + 1];
      if(EVP_Digest(tmpl, strlen(tmpl), md, &mdlen, EVP_sha256(), NULL)) {
        oc_hex(md, mdlen, hex);
        oc_json_put_str(&oom, t->identity, "chat_template_sha256", hex);
      }
      set_template(t, tmpl);
    }
    if(!server) {
      const char *s2 = oc_headers_get(&h, "Server");
      if(s2)
        add_ident(&oom, t->identity, "server", s2);
    }
    oc_deployment_from_props(&t->deployment, doc);
  }
  cJSON_Delete(doc);
  if(t->reachable && !o->models_only && oc_deployment_gather(&t->deployment, t, o) == OC_ENOMEM)
    goto nomem;
  if(t->ctx_size > 0) {
    cJSON_DeleteItemFromObjectCaseSensitive(t->vars, "N_CTX");
    oc_json_put(&oom, t->vars, "N_CTX", cJSON_CreateNumber((double)t->ctx_size));
  }
  /* derived sizes for context cases: half the window fits with room to answer */
  const cJSON *nc = oc_json_get(t->vars, "N_CTX");
  if(oc_json_is_integer(nc))
    oc_json_put(&oom, t->vars, "N_CTX_HALF", cJSON_CreateNumber((double)((long)nc->valuedouble / 2)));
  if(t->reachable && !o->models_only && !oom)
    probe_context(&oom, t, o);
  /* an identity with a part missing would choose the profile wrongly */
  if(oom)
    goto nomem;
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
  return settle_proto_vars(t);
nomem:
  free(body);
  oc_headers_free(&h);
  return OC_ENOMEM;
}

void oc_target_probe_before(struct oc_target *t, long timeout_ms, int insecure, const char *cacert)
{
  if(!t->live || !t->reachable)
    return;
  oc_target_probe_protocols(t, timeout_ms, insecure, cacert);
  /* chat is never skipped: a 404 there can be a model the server lacks */
  for(int k = 0; k < OC_PROTO__COUNT; k++)
    if(k != OC_PROTO_CHAT && t->serves.state[k] == OC_PS_NOT_SERVED)
      t->unserved[k] = t->serves.status[k] ? t->serves.status[k] : 404;
  t->serves.decided = 0; /* the run's cases decide the rest; asked once */
}

void oc_target_probe_protocols(struct oc_target *t, long timeout_ms, int insecure,
                               const char *cacert)
{
  struct oc_serves *p = &t->serves;
  if(!t->reachable)
    return;
  if(!t->live && p->stateful < 0)
    oc_serves_recorded(&t->store, OC_PROTO_RESPONSES, &p->stateful);
  for(int k = 0; k < OC_PROTO__COUNT; k++) {
    enum oc_protocol_id id = (enum oc_protocol_id)k;
    /* the run's own cases said; a Responses server they did not ask with
     * previous_response_id is still asked whether it keeps state */
    int state_unknown = k == OC_PROTO_RESPONSES && p->state[k] == OC_PS_SERVED && p->stateful < 0;
    if(p->from[k] == OC_PF_RUN && p->state[k] != OC_PS_NOT_RECORDED && (!state_unknown || !t->live))
      continue;
    /* asked before the run already (oc_target_probe_before) */
    if(p->from[k] == OC_PF_PROBE && !state_unknown)
      continue;
    if(!t->live) {
      signed char sf = p->stateful;
      enum oc_proto_state st = oc_serves_recorded(&t->store, id, &sf);
      if(p->from[k] != OC_PF_RUN || st == OC_PS_SERVED) {
        p->state[k] = (unsigned char)st;
        p->from[k] = OC_PF_RECORDINGS;
      }
      if(p->stateful < 0)
        p->stateful = sf;
      continue;
    }
    const char *body = oc_serves_probe_body(id);
    char *path = NULL, *rbody = NULL;
    size_t rlen = 0;
    if(oc_target_route(t, "POST", oc_serves_path(id), body, strlen(body), &path, &rbody, &rlen))
      continue;
    char *url = oc_url_join(t->base, path ? path : oc_serves_path(id));
    struct oc_headers h;
    oc_headers_init(&h);
    struct oc_http_request req;
    oc_http_request_init(&req);
    req.method = "POST";
    req.url = url;
    req.headers = &h;
    req.body = rbody ? rbody : body;
    req.body_len = rbody ? rlen : strlen(body);
    req.total_timeout_ms = timeout_ms;
    req.connect_timeout_ms = timeout_ms;
    req.insecure = insecure;
    req.cacert = cacert;
    req.max_retries = 0;
    struct oc_http_response resp;
    memset(&resp, 0, sizeof(resp));
    oc_headers_init(&resp.headers);
    char err[600];
    int ok = url && !oc_target_request_headers(t, &h) &&
             !oc_headers_add(&h, "Content-Type", "application/json") &&
             !oc_headers_add(&h, OC_PROBE_HEADER, "1") &&
             !(k == OC_PROTO_MESSAGES && oc_target_messages_headers(t, &h)) &&
             oc_http_fetch(&req, &resp, err, sizeof(err)) == OC_OK;
    signed char sf = p->stateful;
    enum oc_proto_state st =
      ok ? oc_serves_classify(id, resp.status, &resp.headers, resp.body, resp.body_len, &sf)
         : OC_PS_UNKNOWN;
    if(p->from[k] != OC_PF_RUN || (st == OC_PS_SERVED && p->state[k] != OC_PS_SERVED)) {
      p->state[k] = (unsigned char)st;
      p->from[k] = OC_PF_PROBE;
      p->status[k] = ok && !oc_headers_get(&resp.headers, OC_PROBE_HEADER) ? resp.status : 0;
    }
    if(p->stateful < 0)
      p->stateful = sf;
    oc_http_response_free(&resp);
    oc_headers_free(&h);
    free(url);
    free(path);
    free(rbody);
  }
  p->decided = 1;
}

cJSON *oc_target_json(const struct oc_target *t)
{
  int oom = 0;
  cJSON *o = cJSON_CreateObject();
  oc_json_put_str(&oom, o, "name", t->name);
  oc_json_put_str(&oom, o, "kind", t->live ? "live" : "replay");
  if(t->live) {
    char red[512];
    oc_url_redact(t->url, red, sizeof(red));
    oc_json_put_str(&oom, o, "url", red);
  }
  else
    oc_json_put_str(&oom, o, "recordings", t->recordings);
  oc_json_put_str(&oom, o, "profile", t->profile ? t->profile->name : "openai");
  oc_json_put_str(&oom, o, "profile_source", t->profile_source);
  if(t->router_name) {
    /* one model of a router (or of a model list): the model matrix's row */
    oc_json_put_str(&oom, o, "router", t->router_name);
    const char *m = oc_target_model(t);
    if(m)
      add_ident(&oom, o, "model", m);
  }
  oc_json_put(&oom, o, "reachable", cJSON_CreateBool(t->reachable));
  oc_json_put_str_or_null(&oom, o, "error", t->error);
  oc_json_put(&oom, o, "timing_recorded", cJSON_CreateBool(t->live ? 1 : t->timing_recorded));
  if(t->identity) {
    cJSON *id = oc_json_put(&oom, o, "identity", cJSON_Duplicate(t->identity, 1));
    if(id)
      cJSON_DeleteItemFromObjectCaseSensitive(id, "owned_by");
  }
  /* what the deployment says about itself (deployment.c); for one model
   * of a router, with the command line the router says it started */
  cJSON *dep = oc_deployment_json(&t->deployment);
  const char *rm = t->router ? oc_target_model(t) : NULL;
  const cJSON *given = rm ? oc_json_arr(oc_json_obj(oc_json_obj(t->identity, "model_flags"), rm), "args")
                          : NULL;
  if(dep && given)
    oc_json_put(&oom, dep, "args", cJSON_Duplicate(given, 1));
  if(dep)
    oc_json_put(&oom, o, "deployment", dep);
  if(!t->live && t->store.count)
    oc_json_put(&oom, o, "recorded", oc_recorded_json(&t->store));
  if(t->serves.decided)
    oc_json_put(&oom, o, "protocols", oc_serves_json(&t->serves));
  if(t->live && t->jobs > 0) {
    oc_json_put(&oom, o, "jobs", cJSON_CreateNumber(t->jobs));
    oc_json_put_str(&oom, o, "jobs_source", t->jobs_source ? t->jobs_source : "option");
  }
  if(oom) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}
