/* templates.c — rendering fixtures through chat templates and checking
 * what came out.  The checks compare text the conversation carries with
 * the rendered prompt: a system prompt that is absent was dropped, one
 * that appears after the first user turn was moved; an unknown role's
 * text that is absent was dropped.  A render that fails on a tool-call
 * conversation is a template refusing the ids clients send. */
#include "config.h"
#include "templates.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json.h"
#include "response.h"
#include "result.h"
#include "secret.h"
#include "util.h"

static int known_role(const char *r)
{
  static const char *const roles[] = { "system", "developer", "user", "assistant", "tool",
                                       "function" };
  for(size_t i = 0; i < OC_ARRAY_LEN(roles); i++)
    if(oc_streq(r, roles[i]))
      return 1;
  return 0;
}

/* Where text first appears in prompt, or -1. */
static long find(const char *prompt, const char *text)
{
  if(!prompt || !text || !*text)
    return -1;
  const char *p = strstr(prompt, text);
  return p ? (long)(p - prompt) : -1;
}

/* A server's error message on one line, cut to fit a finding: template
 * engines answer with multi-line excerpts of the template. */
static void one_line(const char *in, char *out, size_t outlen)
{
  size_t o = 0;
  int space = 0;
  for(const char *p = in ? in : "no message"; *p && o + 1 < outlen; p++) {
    if(*p == '\n' || *p == '\r' || *p == '\t' || *p == ' ') {
      space = o > 0;
      continue;
    }
    if(space && o + 2 < outlen)
      out[o++] = ' ';
    space = 0;
    out[o++] = *p;
  }
  out[o] = '\0';
}

void oc_templates_check(struct oc_check *c, const cJSON *request, int status, const char *prompt,
                        const char *error_message)
{
  char emsg[320];
  one_line(error_message, emsg, sizeof(emsg));
  const cJSON *msgs = oc_json_arr(request, "messages");
  int tools = oc_json_arr(request, "tools") != NULL;
  const cJSON *m;
  const char *call_id = NULL;
  int unknown = 0;
  cJSON_ArrayForEach(m, msgs)
  {
    const cJSON *calls = oc_json_arr(m, "tool_calls");
    if(calls && !call_id)
      call_id = oc_json_str(cJSON_GetArrayItem(calls, 0), "id");
    if(!known_role(oc_json_str(m, "role")))
      unknown = 1;
  }
  char act[16];
  snprintf(act, sizeof(act), "%d", status);
  if(status < 200 || status >= 300) {
    if(unknown && status >= 400 && status < 500)
      return; /* refusing an unknown role is the right answer */
    if(call_id || tools)
      oc_emit(c, OC_R_TEMPLATE_TOOL_ID, OC_AT(.expected = "200", .actual = act),
              "the template refuses a tool-call conversation (tool call id '%s'): %s",
              call_id ? call_id : "?", emsg);
    else
      oc_emit(c, OC_R_TEMPLATE_RENDER, OC_AT(.expected = "200", .actual = act),
              "the template cannot render a well-formed conversation: %s", emsg);
    return;
  }
  if(!prompt) {
    oc_emit(c, OC_R_TEMPLATE_RENDER,
            OC_AT(.path = "/prompt", .expected = "a string", .actual = "absent"),
            "the render answered without a prompt");
    return;
  }
  long first_user = -1;
  const char *system = NULL;
  cJSON_ArrayForEach(m, msgs)
  {
    const char *role = oc_json_str(m, "role");
    const char *text = oc_json_str(m, "content");
    if(!text || !*text)
      continue;
    long at = find(prompt, text);
    if(oc_streq(role, "system") || oc_streq(role, "developer")) {
      if(!system)
        system = text;
      continue;
    }
    if(oc_streq(role, "user") && first_user < 0)
      first_user = at;
    if(!known_role(role)) {
      if(at < 0)
        oc_emit(c, OC_R_TEMPLATE_UNKNOWN_ROLE,
                OC_AT(.path = "/prompt", .expected = text, .actual = "absent"),
                "the message with role '%s' is silently dropped from the prompt",
                role ? role : "?");
      continue;
    }
    if(oc_streq(role, "user") && at < 0)
      oc_emit(c, OC_R_TEMPLATE_RENDER,
              OC_AT(.path = "/prompt", .expected = text, .actual = "absent"),
              "a user message is missing from the rendered prompt");
  }
  if(system) {
    long at = find(prompt, system);
    if(at < 0)
      oc_emit(c, OC_R_TEMPLATE_SYSTEM_KEPT,
              OC_AT(.path = "/prompt", .expected = system, .actual = "absent"),
              "the system prompt is dropped from the rendered prompt");
    else if(first_user >= 0 && at > first_user)
      oc_emit(c, OC_R_TEMPLATE_SYSTEM_MOVED,
              OC_AT(.path = "/prompt", .expected = "the system prompt before the first user turn",
                    .actual = "after it"),
              "the system prompt is moved after the first user turn (byte %ld of the prompt)",
              at);
  }
  /* A date in the prompt comes from the server's clock: the same
   * conversation renders differently tomorrow (and misses the cache). */
  char today[32];
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(today, sizeof(today), "%d %b %Y", &tm);
  if(strstr(prompt, "Today Date:") || strstr(prompt, today))
    oc_emit(c, OC_R_TEMPLATE_SERVER_DATE,
            OC_AT(.path = "/prompt", .expected = "no date", .actual = today),
            "the template stamps the server's current date into the prompt: renders are "
            "not reproducible from one day to the next");
}

/* One (target, fixture) result object in the results schema's shape. */
static cJSON *render_one(struct oc_target *t, const cJSON *fx, size_t index,
                         const struct oc_identify_options *o)
{
  const char *name = oc_json_str(fx, "name");
  const char *desc = oc_json_str(fx, "description");
  const cJSON *request = oc_json_get(fx, "request");
  char *body = request ? cJSON_PrintUnformatted(request) : NULL;
  int status = 0;
  char *resp = NULL, err[600] = "";
  size_t len = 0;
  struct oc_headers h;
  oc_headers_init(&h);
  struct oc_findings f;
  oc_findings_init(&f);
  struct oc_check c;
  oc_check_init(&c, &f, t->profile);
  c.allow = &t->allow;
  uint64_t t0 = oc_now_ns();
  int rc = body ? oc_target_fetch(t, o, "POST", "/apply-template", body, &status, &h, &resp, &len,
                                  err, sizeof(err))
                : OC_ENOMEM;
  const char *result_status = "pass", *reason = NULL;
  cJSON *parsed = resp ? oc_json_parse(resp, len, NULL) : NULL;
  if(rc == OC_ENOTFOUND) {
    result_status = "skip";
    reason = "not recorded";
  }
  else if(rc) {
    result_status = "error";
    reason = err;
  }
  else if(status == 404 || status == 405 || status == 501) {
    /* vLLM, OpenAI, Ollama: no template endpoint at all */
    result_status = "skip";
    reason = "unsupported: the target has no POST /apply-template";
  }
  else {
    const char *emsg = oc_json_str(oc_json_get(parsed, "error"), "message");
    oc_templates_check(&c, request, status, oc_json_str(parsed, "prompt"), emsg);
    if(oc_findings_worst(&f) == OC_SEV_ERROR)
      result_status = "fail";
  }
  cJSON *r = cJSON_CreateObject();
  if(r) {
    cJSON_AddStringToObject(r, "target", t->name);
    cJSON_AddStringToObject(r, "suite", "templates");
    cJSON_AddStringToObject(r, "case", name ? name : "?");
    cJSON_AddNumberToObject(r, "index", (double)index);
    if(desc)
      cJSON_AddStringToObject(r, "description", desc);
    cJSON_AddStringToObject(r, "status", result_status);
    if(reason)
      cJSON_AddStringToObject(r, "reason", reason);
    else
      cJSON_AddNullToObject(r, "reason");
    cJSON_AddStringToObject(r, "profile", t->profile ? t->profile->name : "openai");
    cJSON_AddNumberToObject(r, "duration_ms", (double)(oc_now_ns() - t0) / 1e6);
    cJSON *fs = cJSON_AddArrayToObject(r, "findings");
    for(size_t i = 0; fs && i < f.count; i++)
      cJSON_AddItemToArray(fs, oc_finding_json(&f.items[i]));
    cJSON *rq = cJSON_AddObjectToObject(r, "request");
    if(rq) {
      cJSON_AddStringToObject(rq, "method", "POST");
      cJSON_AddStringToObject(rq, "path", "/apply-template");
      if(body) {
        cJSON *b = oc_body_json(body, strlen(body), OC_CAP_RESULT_BODY);
        if(b && request)
          cJSON_AddItemToObject(b, "json", cJSON_Duplicate(request, 1));
        cJSON_AddItemToObject(rq, "body", b);
      }
    }
    if(status) {
      cJSON *rs = cJSON_AddObjectToObject(r, "response");
      if(rs) {
        cJSON_AddNumberToObject(rs, "status", status);
        cJSON_AddItemToObject(rs, "headers", oc_headers_json(&h));
        const char *ct = oc_headers_get(&h, "Content-Type");
        if(ct)
          cJSON_AddStringToObject(rs, "content_type", ct);
        else
          cJSON_AddNullToObject(rs, "content_type");
        cJSON_AddItemToObject(rs, "body", oc_body_json(resp ? resp : "", len, OC_CAP_RESULT_BODY));
        cJSON_AddStringToObject(rs, "source", t->live ? "live" : "recording");
      }
    }
    else
      cJSON_AddNullToObject(r, "response");
    /* the rendered prompt, for the side-by-side view */
    const char *prompt = oc_json_str(parsed, "prompt");
    if(prompt)
      cJSON_AddStringToObject(r, "message", prompt);
  }
  cJSON_Delete(parsed);
  oc_findings_free(&f);
  oc_headers_free(&h);
  free(resp);
  free(body);
  return r;
}

cJSON *oc_templates_run(struct oc_target *targets, size_t ntargets, const cJSON *fixtures,
                        const struct oc_identify_options *o)
{
  cJSON *all = cJSON_CreateArray();
  const cJSON *list = oc_json_arr(fixtures, "fixtures");
  for(size_t i = 0; all && i < ntargets; i++) {
    const cJSON *fx;
    size_t k = 0;
    cJSON_ArrayForEach(fx, list)
    {
      /* an unreachable target is not asked again for every fixture */
      if(!targets[i].reachable && targets[i].live) {
        cJSON *r = cJSON_CreateObject();
        if(r) {
          cJSON_AddStringToObject(r, "target", targets[i].name);
          cJSON_AddStringToObject(r, "suite", "templates");
          cJSON_AddStringToObject(r, "case", oc_json_str(fx, "name") ? oc_json_str(fx, "name") : "?");
          cJSON_AddNumberToObject(r, "index", (double)k++);
          cJSON_AddStringToObject(r, "status", "error");
          cJSON_AddStringToObject(r, "reason", targets[i].error ? targets[i].error : "unreachable");
          cJSON_AddArrayToObject(r, "findings");
          cJSON_AddItemToArray(all, r);
        }
        continue;
      }
      cJSON *r = render_one(&targets[i], fx, k++, o);
      if(r)
        cJSON_AddItemToArray(all, r);
    }
  }
  /* prompts are the server's text, printed by --show and kept in reports */
  oc_secret_mask_json(all);
  return all;
}
