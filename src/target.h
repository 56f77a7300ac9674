/* target.h — what a run is pointed at: a live server (URL, API key from an
 * environment variable, extra headers) or a set of recordings replayed
 * without network; its name (which keys reports, never the URL), its
 * profile, and its identity as learnt before the cases run (/v1/models,
 * and on llama-server /props: model, n_ctx, chat template hash, build).
 * Sending case requests is runner.c's job. */
#ifndef OC_TARGET_H
#define OC_TARGET_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "cli.h"

#include "cassette.h"
#include "protocol.h"
#include "deployment.h"
#include "dialect.h"
#include "headers.h"
#include "serves.h"
#include "rules.h"

struct oc_target {
  char *name;
  int live;                     /* 1: a server; 0: recordings */
  char *url;                    /* live: the server root (credentials kept; redact for output) */
  char *base;                   /* live: the URL as given, whose query (?api-version=…, Azure)
                                   every request keeps: join paths to this (oc_url_join) */
  char *recordings;             /* replay: the directory */
  /* the shipped default target: each protocol's own recordings directory
   * (protocol.h), for a case's reproducing command; NULL otherwise */
  char *proto_recordings[OC_PROTO__COUNT];
  /* and each folder's variables where its server named the model
   * otherwise (${MODEL} as its recordings were keyed); NULL: vars */
  cJSON *proto_vars[OC_PROTO__COUNT];
  struct oc_cassette_store store;
  char *profile_name;           /* "auto" until identified */
  const struct oc_profile *profile;
  const char *profile_source;   /* "auto", "option", "targets-file", "default" */
  char *model;                  /* --model / targets file; NULL: first id of /v1/models */
  char *key_env;                /* environment variable holding the API key */
  int key_env_given;            /* a targets file named it (else OPENAI_API_KEY, optional) */
  struct oc_headers headers;    /* extra headers for every request */
  struct oc_ruleset allow;      /* rules allowed for this target */
  long ctx_size;                /* --ctx-size; 0: learn it */
  /* learnt by oc_target_identify */
  int reachable;
  char *error;                  /* why it is unreachable */
  const char *error_kind;       /* the same in a few words ("connection refused"; static) */
  cJSON *identity;              /* results "identity" object; "models_problem" when
                                   /v1/models is not an OpenAI model list */
  int models_status;            /* the HTTP status of that /v1/models; 0: not asked */
  cJSON *vars;                  /* variables for substitution: MODEL, N_CTX, ... */
  int timing_recorded;          /* replay: every cassette carries arrival times */
  struct oc_deployment deployment; /* /props, /slots, /metrics (deployment.h) */
  int jobs;                     /* live cases in flight; 0: the run's --jobs */
  const char *jobs_source;      /* "option", "total_slots", "default" */
  char *chat_template;          /* its template's text (/props chat_template), or NULL */
  struct oc_dialect dialect;    /* the tool-call markers that text uses (dialect.c) */
  /* routers (llama-server --models-preset: several models behind one URL) */
  int router;                   /* /props says role "router": every request names its model */
  char *router_name;            /* made by oc_targets_expand_models from this target */
  char *record_dir;             /* record mode: this target's cassettes go here (NULL: the run's) */
  struct oc_serves serves;     /* which protocols it serves: the run's cases, then
                                    oc_target_probe_protocols (serves.h) */
  /* a protocol the probe before the run found not served (the status that
   * said so; 0: served or unknown): its cases are skipped, never failed.
   * Set before the run starts; the runner's lanes only read it. */
  int unserved[OC_PROTO__COUNT];
};

/* Fill *t as an empty target; cannot fail. */
void oc_target_init(struct oc_target *t);
void oc_target_free(struct oc_target *t);

/* "URL", "NAME=URL" or "env" (OPENAI_BASE_URL) into a live target.  A
 * trailing "/v1" is taken off the URL.  err says what is wrong. */
int oc_target_from_spec(struct oc_target *t, const char *spec, char *err, size_t errlen);
/* A replay target over DIR (cassettes or raw exchanges), named name, or
 * after the directory's last component when name is NULL. */
int oc_target_from_recordings(struct oc_target *t, const char *name, const char *dir, char *err,
                              size_t errlen);
/* The default target of a run with no target: the shipped llama-server
 * recordings of every protocol (protocol.h's table: chat's, the Responses
 * API's, the Messages API's) in one store, named name; a protocol whose
 * folder is not installed is left out. */
int oc_target_from_shipped(struct oc_target *t, const char *name, char *err, size_t errlen);
/* The variables a case of protocol p is built with on t (its folder's
 * ${MODEL} on the shipped default target, else t's own). */
const cJSON *oc_target_vars_for(const struct oc_target *t, const struct oc_protocol *p);
/* A targets file: [{"name","url"|"recordings","profile","model","key_env",
 * "headers":{…},"allow":[…],"ctx_size"}, …] or {"targets": [...]}, checked
 * against schemas/targets.schema.json.  Appends to *ts.  OC_EPARSE for a
 * file at fault: err holds a "FILE:LINE:COL: what" line per error. */
int oc_targets_load(const char *path, struct oc_target **ts, size_t *n, char *err, size_t errlen);
/* The targets a command's shared target options name (cli.h), in order:
 * each --target, each --replay, then the --targets file; names must be
 * unique.  Appends to *ts.  OC_EUSAGE for a malformed --target (a usage
 * error), OC_EPARSE for a targets file at fault (a line per error),
 * another code for recordings or a file that cannot be read; err says
 * which and why. */
int oc_targets_build(const struct oc_target_args *a, struct oc_target **ts, size_t *n, char *err,
                     size_t errlen);
/* The same for command cmd ("run"), saying what went wrong the one way
 * every command does: a usage error (Try 'oacheck CMD --help'), else the
 * reason.  Returns -1 when the targets were built, else the exit status. */
int oc_targets_build_for(const char *cmd, const struct oc_target_args *a, struct oc_target **ts,
                         size_t *n);
void oc_targets_free(struct oc_target *ts, size_t n);

struct oc_identify_options {
  long timeout_ms;          /* per identification request */
  int insecure;
  const char *cacert;
  const char *record_dir;   /* live: also write each exchange as a cassette here */
  long idle_timeout_ms;     /* no byte for this long; 0: none */
  long connect_timeout_ms;  /* 0: timeout_ms, at most 10 s */
  long budget_ms;           /* oc_target_identify in all (up to 20 token probes); 0: none */
  uint64_t deadline;        /* set by oc_target_identify from budget_ms (oc_now_ns) */
  int models_only;          /* just /v1/models and /props: enough to expand by model
                               (oc_targets_expand_models), before each model is identified */
};

/* Learn the target's identity and decide its profile when it is "auto".
 * Live: GET /v1/models, GET /props; replay: the same from the recordings.
 * Where the target can count tokens (POST /apply-template and /tokenize,
 * as llama-server does), the context probe sets CTX_WORDS_UNDER,
 * CTX_WORDS_AT and CTX_WORDS_OVER: how many filler words make a one-message
 * prompt of N_CTX-1, N_CTX and N_CTX+1 tokens.  Sets reachable/error;
 * returns OC_OK even when unreachable. */
int oc_target_identify(struct oc_target *t, const struct oc_identify_options *o);

/* One small request to t, outside any case (identification, template
 * rendering, pinning): live over HTTP, or looked up in the recordings by
 * its request key; recorded as a cassette when o->record_dir is set.
 * rbody (may be NULL) is a NUL-terminated JSON text.  *body is the whole
 * response body (caller frees), hdrs gets the response headers.  Returns
 * OC_OK when a response arrived (any status), OC_ENOTFOUND when a replay
 * target has no recording of it, OC_EIO when the transport failed (err
 * names the URL). */
int oc_target_fetch(struct oc_target *t, const struct oc_identify_options *o, const char *method,
                    const char *path, const char *rbody, int *status, struct oc_headers *hdrs,
                    char **body, size_t *len, char *err, size_t errlen);

/* A second request that goes with a case (the count of its request,
 * token_count.c), as oc_target_fetch, but with Anthropic's credentials
 * (oc_target_messages_headers) on a Messages path, as the case had them,
 * and recorded, when o->record_dir or t->record_dir is set, as the
 * cassette NAME (not as identification). */
int oc_target_fetch_beside(struct oc_target *t, const struct oc_identify_options *o,
                           const char *method, const char *path, const char *rbody,
                           const char *name, int *status, struct oc_headers *hdrs, char **body,
                           size_t *len, char *err, size_t errlen);

/* What oc_target_fetch_ex says beside the response. */
struct oc_fetch_meta {
  char recorded_at[40];     /* replay: when the exchange was recorded (RFC 3339); "" live */
  double duration_ms;       /* live: measured; replay: as recorded; -1 unknown */
  int transport;            /* live, a failure: the http.h enum oc_http_error of it (OC_HTTP_OTHER
                               when the request could not be sent); OC_HTTP_OK otherwise */
};

/* The request as t sends it.  On a router (t->router) with a model, a
 * request without a body carries ?model=MODEL and a JSON object body a
 * "model" member, unless it names one already; the router's own
 * endpoints (/v1/models, /models, /health) are left alone.  *path_out
 * and *body_out are NULL when nothing changes (caller frees).  Returns
 * OC_OK or OC_ENOMEM. */
int oc_target_route(const struct oc_target *t, const char *method, const char *path,
                    const char *body, size_t len, char **path_out, char **body_out,
                    size_t *len_out);
/* What a router's /v1/models says one model runs with, from its
 * "status": {"args": [...], "preset": "..."} without what changes by
 * itself (--port, the load state) and with the values of secret flags
 * (--api-key, --hf-token, …: names holding key, token, secret, password)
 * masked; args[0] is cut to the binary's name.  NULL when status has
 * neither.  Caller deletes. */
cJSON *oc_target_model_flags(const cJSON *status);

/* The model t's requests name (--model, or the first id of /v1/models), or NULL. */
const char *oc_target_model(const struct oc_target *t);

/* One target per model: spec "all" (every id the target's /v1/models
 * lists) or "a,b,…".  Each identified target in ts is replaced by
 * targets named NAME/MODEL, configured as it was, with the model set;
 * a replay target reads DIR/MODEL first (where `record --model` writes
 * each model's cassettes), then DIR; record_dir (may be NULL) gives each
 * DIR/MODEL.  The new targets still have to be identified.  err says why
 * a target could not be expanded (a model it does not list). */
int oc_targets_expand_models(struct oc_target **ts, size_t *n, const char *spec,
                             const char *record_dir, char *err, size_t errlen);
/* Is spec a model list to expand ("all", or names with a comma)? */
int oc_model_spec_is_list(const char *spec);

/* A model id as a directory name: '/', '\\' and leading dots replaced. */
void oc_model_dirname(const char *model, char *out, size_t outlen);
/* oc_target_fetch, and meta (may be NULL) filled. */
int oc_target_fetch_ex(struct oc_target *t, const struct oc_identify_options *o, const char *method,
                       const char *path, const char *rbody, int *status, struct oc_headers *hdrs,
                       char **body, size_t *len, struct oc_fetch_meta *meta, char *err,
                       size_t errlen);

/* The prompt t's chat template makes of messages (and tools, may be
 * NULL), through POST /apply-template as llama-server offers it; caller
 * frees; NULL when the target cannot render (or runs out of memory), and
 * then *status (may be NULL) is the HTTP status it answered, 0 for none.  And
 * how many tokens t's tokenizer makes of a prompt (POST /tokenize), -1
 * when it cannot say. */
char *oc_target_render(struct oc_target *t, const struct oc_identify_options *o,
                       const cJSON *messages, const cJSON *tools, int *status);
long oc_target_count_tokens(struct oc_target *t, const struct oc_identify_options *o,
                            const char *prompt);

/* The headers every request to t carries: its extra headers, and
 * Authorization: Bearer $KEY when the key variable is set (never logged). */
int oc_target_request_headers(const struct oc_target *t, struct oc_headers *out);
/* For a request to Anthropic's Messages API (after the case's own headers
 * are in out): the credentials as its SDK sends them, `x-api-key` from
 * the target's key variable when one was given (key_env), else from
 * $ANTHROPIC_API_KEY, unless out has an x-api-key already; and
 * `anthropic-version: 2023-06-01` unless out has one. */
int oc_target_messages_headers(const struct oc_target *t, struct oc_headers *out);
/* What to check when t answered 401 or 403: where the key it was sent
 * comes from (the variable's name, or its Authorization header), as a
 * question ("is OPENAI_API_KEY (or the target's key_env) set to a key
 * this server accepts?"); never the key.  A replay target's answer is
 * what was recorded: "as recorded". */
void oc_target_key_hint(const struct oc_target *t, char *out, size_t outlen);
/* What identification says once about a /v1/models that is no model
 * list, with what to check: "GET URL answered HTTP 401
 * (application/json): " and the key hint after a 401 or 403, else
 * whether the URL is the server's root; "" when the list was fine. */
void oc_target_models_note(const struct oc_target *t, char *out, size_t outlen);

/* Decide which protocols t serves (t->serves): each protocol the
 * run's cases did not decide is probed — live, one invalid request with
 * X-Oacheck-Probe (oacheck serve answers it from its recordings) within
 * timeout_ms, never recorded; a replay target from its recordings.  An
 * unreachable target is not asked.  Never fails: an answer that says
 * nothing leaves the protocol unknown. */
/* Before a live run: probe every protocol, and mark the ones not served
 * (t->unserved) so that their cases are skipped with the reason. */
void oc_target_probe_before(struct oc_target *t, long timeout_ms, int insecure, const char *cacert);
void oc_target_probe_protocols(struct oc_target *t, long timeout_ms, int insecure,
                               const char *cacert);

/* The results "targets" entry (URL without credentials). */
cJSON *oc_target_json(const struct oc_target *t);

/* Choose a profile from an identity: llama-server when /props answered
 * with build_info or the Server header says llama.cpp, vllm/ollama from
 * their model lists, else openai. */
const char *oc_profile_guess(const cJSON *identity);

#endif
