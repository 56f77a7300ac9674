/* claude_code.c — the Claude Code model (claude_code.h).  Each decision
 * says whether it was measured with 2.1.332 (expect.json holds those) or
 * carried over from 2.1.328 (shared research notes, clients-measured.md),
 * where it was not measured again. */
#include "config.h"
#include "claude_code.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "json.h"
#include "messages.h"
#include "protocol.h"
#include "request.h"
#include "util.h"

void oc_cc_env_init(struct oc_cc_env *e)
{
  e->no_fallback = 0;
  e->max_retries = 10;
  e->model = "MODEL";
}

const char *oc_cc_outcome_name(enum oc_cc_outcome o)
{
  switch(o) {
  case OC_CC_OUT_ANSWER:
    return "answer";
  case OC_CC_OUT_SILENT_REASK:
    return "silent-re-ask";
  case OC_CC_OUT_FAILURE:
    break;
  }
  return "failure";
}

/* The server's message in an error body: error.message (Anthropic's and
 * OpenAI's shape alike), a string error, a top-level message; NULL. */
static const char *error_message(const cJSON *root)
{
  const cJSON *e = cJSON_GetObjectItemCaseSensitive(root, "error");
  if(cJSON_IsString(e))
    return e->valuestring;
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
  if(cJSON_IsString(m))
    return m->valuestring;
  m = cJSON_GetObjectItemCaseSensitive(root, "message");
  return cJSON_IsString(m) ? m->valuestring : NULL;
}

static int contains_nocase(const char *hay, const char *needle)
{
  size_t n = strlen(needle);
  for(; hay && *hay; hay++)
    if(!strncasecmp(hay, needle, n))
      return 1;
  return 0;
}

/* A context overflow, in either shape: measured with llama-server's
 * "exceeds the available context size" and Anthropic's "prompt is too
 * long"; the other wordings are the usual servers' (an approximation of
 * whatever Claude Code matches). */
static int is_overflow(int status, const char *msg)
{
  return (status == 400 || status == 413) && msg &&
         (contains_nocase(msg, "prompt is too long") || contains_nocase(msg, "context size") ||
          contains_nocase(msg, "context length") || contains_nocase(msg, "context window"));
}

static enum oc_cc_step fail(char *printed, size_t len, const char *what, const char *detail)
{
  snprintf(printed, len, "%s%s", what, detail ? detail : "");
  return OC_CC_FAIL;
}

/* A finding of rule id whose `actual` is what (NULL: any). */
static int has_finding(const struct oc_findings *f, enum oc_rule_id id, const char *what)
{
  for(size_t i = 0; f && i < f->count; i++)
    if(f->items[i].rule == id && (!what || (f->items[i].actual && !strcmp(f->items[i].actual, what))))
      return 1;
  return 0;
}

static enum oc_cc_step error_status(const struct oc_response *r, int streamed,
                                    const struct oc_cc_env *env, char *printed, size_t len)
{
  const char *msg = r->parsed ? error_message(r->parsed) : NULL;
  if(r->status == 404) {
    /* measured: a 404 to the streamed request is asked again without
     * streaming; a second one blames the model */
    if(streamed && !env->no_fallback)
      return OC_CC_REASK;
    snprintf(printed, len,
             "There's an issue with the selected model (%s). It may not exist or you may not "
             "have access to it.",
             env->model);
    return OC_CC_FAIL;
  }
  if(is_overflow(r->status, msg)) {
    /* measured, no retry: Anthropic's "prompt is too long: N tokens > M
     * maximum" is read; any other wording is quoted */
    unsigned long n, m;
    if(sscanf(msg, "prompt is too long: %lu tokens > %lu maximum", &n, &m) == 2)
      snprintf(printed, len, "Prompt is too long · the request is ~%lu tokens (limit %lu)", n, m);
    else
      snprintf(printed, len, "Prompt is too long · the provider said: %s", msg);
    return OC_CC_FAIL;
  }
  /* what is printed once the retries are spent, or at once */
  snprintf(printed, len, "API Error: %d %s%s", r->status, msg ? msg : "",
           r->status >= 500 ? ". This is a server-side issue, usually temporary" : "");
  if(r->status == 408 || r->status == 409 || r->status == 429 || r->status >= 500)
    return OC_CC_RETRY; /* measured for 500, CLAUDE_CODE_MAX_RETRIES times */
  return OC_CC_FAIL;
}

static enum oc_cc_step streamed_answer(const struct oc_response *r, const struct oc_findings *f,
                                       const struct oc_cc_env *env, char *printed, size_t len)
{
  const struct oc_mstream *s = oc_response_stream_of(r, OC_PROTO_MESSAGES);
  const char *why = NULL;
  if(!s)
    why = "not an event stream"; /* 2.1.328: a stream it cannot read is asked again */
  else if(s->error_at) {
    /* measured: an error event (even overloaded_error) is asked again */
    why = s->error ? error_message(s->error) : NULL;
    if(!why)
      why = "error";
  }
  else if(has_finding(f, OC_R_MESSAGES_BLOCK_ORDER, "a block never started"))
    why = "Content block not found"; /* measured: the SDK's error */
  else if(!s->start_at || !s->stop_at)
    why = "the stream ended early"; /* 2.1.328: a cut stream is asked again */
  if(why) {
    if(!env->no_fallback)
      return OC_CC_REASK;
    return fail(printed, len, "API Error: ", why); /* measured for the two above */
  }
  /* measured: no usage, a tool_use start without input, blocks left open
   * until the end are all fine */
  for(size_t i = 0; i < s->nblocks; i++)
    if(s->blocks[i].kind == OC_MBLOCK_TOOL_USE)
      return OC_CC_TOOL;
  return OC_CC_ANSWER;
}

static enum oc_cc_step whole_answer(const struct oc_response *r, char *printed, size_t len)
{
  if(strstr(r->media, "text/event-stream"))
    /* measured: the re-ask answered with a stream */
    return fail(printed, len,
                "API Error: API returned an empty or malformed response (HTTP 200) — the "
                "non-streaming request was answered with a stream",
                NULL);
  const cJSON *content = cJSON_GetObjectItemCaseSensitive(r->parsed, "content");
  if(!cJSON_IsArray(content))
    return fail(printed, len, "API Error: API returned an empty or malformed response (HTTP 200)",
                NULL);
  const cJSON *b;
  cJSON_ArrayForEach(b, content)
  {
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(b, "type");
    if(cJSON_IsString(t) && !strcmp(t->valuestring, "tool_use"))
      return OC_CC_TOOL;
  }
  return OC_CC_ANSWER;
}

enum oc_cc_step oc_claude_code_step(const struct oc_response *r, const struct oc_findings *f,
                                    int streamed, const struct oc_cc_env *env, char *printed,
                                    size_t printedlen)
{
  if(printedlen)
    printed[0] = '\0';
  if(r->status >= 400 || r->status < 200)
    return error_status(r, streamed, env, printed, printedlen);
  return streamed ? streamed_answer(r, f, env, printed, printedlen)
                  : whole_answer(r, printed, printedlen);
}

/* Decode one recorded answer to a Messages request and step. */
static int one(const struct oc_cassette *c, int streamed, const struct oc_cc_env *env,
               const struct oc_schemas *schemas, enum oc_cc_step *step, char *printed,
               size_t len)
{
  cJSON *body = cJSON_Parse(streamed ? "{\"model\":\"m\",\"max_tokens\":32000,\"stream\":true,"
                                       "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"
                                     : "{\"model\":\"m\",\"max_tokens\":32000,\"stream\":false,"
                                       "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
  if(!body)
    return OC_ENOMEM;
  struct oc_request_info info;
  struct oc_findings f;
  struct oc_check check;
  struct oc_response r;
  oc_request_info_init(&info, "POST", "/v1/messages?beta=true", body);
  oc_findings_init(&f);
  oc_check_init(&check, &f, oc_profile_find("openai"));
  oc_response_init(&r, &info, &check, schemas, 0, 0, 0);
  uint64_t t_end = 0;
  int rc = oc_response_replay(&r, c, 0, &t_end);
  oc_response_finish(&r, t_end, c->complete);
  if(check.oom)
    rc = OC_ENOMEM;
  if(!rc)
    *step = oc_claude_code_step(&r, &f, streamed, env, printed, len);
  oc_response_free(&r);
  oc_findings_free(&f);
  cJSON_Delete(body);
  return rc ? (rc == OC_ENOMEM ? OC_ENOMEM : OC_EIO) : OC_OK;
}

int oc_claude_code_run(const struct oc_cassette *(*next)(void *ctx, long n), void *ctx,
                       const struct oc_cc_env *env, const struct oc_schemas *schemas,
                       struct oc_cc_run *run)
{
  memset(run, 0, sizeof(*run));
  run->outcome = OC_CC_OUT_FAILURE;
  run->exit_status = 1;
  int streamed = 1, reasked = 0;
  long retries = 0;
  while(run->requests < OC_CC_MAX_REQUESTS) {
    long n = run->requests;
    run->streamed[n] = streamed;
    run->requests++;
    const struct oc_cassette *c = next(ctx, n);
    enum oc_cc_step step;
    if(!c) {
      /* nothing answers: oacheck serve's 404 */
      step = streamed && !env->no_fallback ? OC_CC_REASK : OC_CC_FAIL;
      if(step == OC_CC_FAIL)
        snprintf(run->printed, sizeof(run->printed),
                 "There's an issue with the selected model (%s).", env->model);
    }
    else {
      int rc = one(c, streamed, env, schemas, &step, run->printed, sizeof(run->printed));
      if(rc)
        return rc;
    }
    switch(step) {
    case OC_CC_ANSWER:
      run->outcome = reasked ? OC_CC_OUT_SILENT_REASK : OC_CC_OUT_ANSWER;
      run->exit_status = 0;
      return OC_OK;
    case OC_CC_TOOL:
      streamed = 1;
      retries = 0;
      break;
    case OC_CC_REASK:
      streamed = 0;
      reasked = 1;
      break;
    case OC_CC_RETRY:
      if(retries++ < env->max_retries)
        break;
      return OC_OK; /* printed says the last error */
    case OC_CC_FAIL:
      return OC_OK;
    }
  }
  snprintf(run->printed, sizeof(run->printed), "(more than %d requests: not modelled)",
           OC_CC_MAX_REQUESTS);
  return OC_OK;
}
