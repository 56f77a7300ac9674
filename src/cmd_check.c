/* cmd_check.c — `oacheck check`: judge responses someone captured, with no
 * server.  Each FILE is read by capture.c (curl -i or -N output, a pasted
 * body, a HAR file, a cassette, a rule test file), each exchange in it is
 * pushed through the decoder exactly as `run --replay` pushes a cassette
 * (oc_response_replay), and the findings go to the console in a form meant
 * for pasting into an issue, and into a results document like run's
 * (suite "check", a case per file and entry).  What the capture lacks
 * (the HTTP layer, the request, the end of the stream) is said, and the
 * rules that would need it are not judged. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "cli.h"
#include "json.h"
#include "protocol.h"
#include "checklist.h"
#include "report.h"
#include "reports.h"
#include "response.h"
#include "result.h"
#include "results_json.h"
#include "rules.h"
#include "secret.h"
#include "target.h"
#include "util.h"
#include "verdict.h"

static const char check_usage[] =
  "Usage: oacheck check [--request FILE] [--profile P] [OPTION]... FILE...\n"
  "Judge captured responses with no server: each FILE is curl -i -N output (status\n"
  "line, headers, body), a bare event-stream or JSON body (curl -N, a paste), a HAR\n"
  "file from a browser's devtools (every chat-completion entry in it), a cassette\n"
  "(*.cassette.gz) or a rule test file; the kind is told from the content.  Every\n"
  "rule that applies runs as in 'oacheck run --replay'.  A stream that does not end\n"
  "with a blank line was cut by whoever captured it: it is judged as partial (what\n"
  "arrived is judged, its end is not).  docs/check.md has examples.\n";

static const char check_footer[] =
  "Exit status: 0 no finding of severity error, 1 at least one (or a report not\n"
  "written), 2 usage error or a FILE that cannot be read (the message names the\n"
  "file and the byte).\n";

struct check_args {
  const char *request, *profile, *as;
  int partial, complete, verbose;
  struct oc_ruleset allow;
  struct oc_verdict_args verdict;
  struct oc_report_args reports;
  struct oc_strlist files;
};

static int opt_profile(const struct oc_option *o, const char *arg, char *err, size_t errlen)
{
  if(strcmp(arg, "auto") != 0 && !oc_profile_find(arg)) {
    snprintf(err, errlen, "unknown profile '%s' (openai, llama-server, vllm, ollama, auto)", arg);
    return 1;
  }
  *(const char **)o->value = arg;
  return 0;
}

static int opt_as(const struct oc_option *o, const char *arg, char *err, size_t errlen)
{
  if(oc_capture_kind_parse(arg) < 0) {
    snprintf(err, errlen, "unknown kind '%s' (http, sse, json, har, cassette, test, auto)", arg);
    return 1;
  }
  *(const char **)o->value = arg;
  return 0;
}

/* Terminal-safe text of a server-provided string. */
static const char *safe(struct oc_buf *b, const char *s)
{
  oc_buf_reset(b);
  if(oc_esc_adds(b, s ? s : "", OC_ESC_TEXT))
    return "?";
  oc_secret_mask(b->data, b->len);
  return oc_buf_str(b);
}

/* ---- one exchange ------------------------------------------------------------------ */

struct judged {
  cJSON *result;           /* the results-schema object */
  const char *profile;     /* the profile's name, static */
  const char *profile_why; /* "option", "the file's", "Server: llama.cpp", "default" */
  int no_request;
  const char *request_from; /* "the capture", "--request" */
};

/* The profile for an entry: --profile, the rule file's own, or a guess
 * from the Server header (as run guesses from a target's identity). */
static const struct oc_profile *pick_profile(const struct check_args *a,
                                             const struct oc_capture_entry *e, const char **why)
{
  if(a->profile && strcmp(a->profile, "auto") != 0) {
    *why = "--profile";
    return oc_profile_find(a->profile);
  }
  if(e->profile) {
    *why = "the file's";
    return e->profile;
  }
  const char *server = oc_headers_get(&e->ex.headers, "Server");
  int oom = 0;
  cJSON *id = cJSON_CreateObject();
  oc_json_put_str(&oom, id, "server", server);
  const struct oc_profile *p = oom ? NULL : oc_profile_find(oc_profile_guess(id));
  cJSON_Delete(id);
  if(oom) {
    *why = "the default: out of memory reading the Server header";
    return oc_profile_default();
  }
  *why = server && p != oc_profile_default() ? "auto, from the Server header" : "auto";
  return p ? p : oc_profile_default();
}

static cJSON *request_json(int *oom, const struct oc_cassette *c, const cJSON *body)
{
  cJSON *r = cJSON_CreateObject();
  oc_json_put_str_or_null(oom, r, "method", c->method ? c->method : "POST");
  oc_json_put_str_or_null(oom, r, "path", c->path ? c->path : "/v1/chat/completions");
  oc_json_put(oom, r, "headers", oc_headers_json(&c->req_headers));
  if(c->req_body) {
    cJSON *b = oc_json_put(oom, r, "body", oc_body_json(c->req_body, c->req_body_len, OC_CAP_RESULT_BODY));
    if(body && c->req_body_len <= OC_CAP_RESULT_BODY)
      oc_json_put(oom, b, "json", cJSON_Duplicate(body, 1));
  }
  if(*oom) {
    cJSON_Delete(r);
    return NULL;
  }
  return r;
}

static int judge(const struct check_args *a, const struct oc_schemas *sch,
                 const struct oc_capture *cap, struct oc_capture_entry *e, const char *reqtext,
                 size_t reqlen, size_t index, struct judged *out)
{
  memset(out, 0, sizeof(*out));
  struct oc_cassette *c = &e->ex;
  /* the request: the capture's, --request's, or what the body implies */
  out->request_from = e->has_request ? (reqtext ? "the capture (--request not used)" : "the capture")
                                     : "--request";
  if(!e->has_request && reqtext) {
    free(c->req_body);
    c->req_body = oc_strndup(reqtext, reqlen);
    if(!c->req_body)
      return OC_ENOMEM;
    c->req_body_len = reqlen;
    e->has_request = 1;
  }
  char media[96];
  oc_media_type(oc_headers_get(&c->headers, "Content-Type"), media, sizeof(media));
  int sse = strcmp(media, "text/event-stream") == 0;
  out->no_request = !e->has_request;
  cJSON *req = c->req_body ? oc_json_parse(c->req_body, c->req_body_len, NULL) : NULL;
  if(out->no_request) {
    /* streaming is known from the Content-Type; nothing else is */
    req = cJSON_CreateObject();
    if(!req || (sse && !cJSON_AddTrueToObject(req, "stream"))) {
      cJSON_Delete(req);
      return OC_ENOMEM;
    }
  }
  const struct oc_profile *profile = pick_profile(a, e, &out->profile_why);
  out->profile = profile->name;
  struct oc_findings all, f;
  oc_findings_init(&all);
  oc_findings_init(&f);
  all.per_rule_max = 0; /* capped below, after what is not judged is taken out */
  struct oc_check ck;
  oc_check_init(&ck, &all, profile);
  ck.allow = &a->allow;
  ck.partial = a->partial ? 1 : a->complete ? 0 : e->partial;
  ck.strict = a->verdict.strict;
  ck.clients = oc_verdict_args_clients(&a->verdict);
  struct oc_request_info info;
  oc_request_info_init(&info, c->method, c->path, req);
  struct oc_response r;
  uint64_t t0 = c->timing_recorded ? oc_now_ns() : 0, t_end = 0;
  double started = (double)oc_now_ns();
  oc_response_init(&r, &info, &ck, sch, t0, c->timing_recorded, 1);
  int rc = oc_response_replay(&r, c, t0, &t_end);
  if(!c->complete)
    /* as run --replay says it of the same cassette */
    oc_emit(&ck, OC_R_HTTP_TRANSPORT,
            OC_AT(.byte = (int64_t)c->body_len, .expected = "a complete exchange", .actual = "cut"),
            "the recorded exchange ended early (the connection was cut while recording)");
  oc_response_finish(&r, t_end, c->complete);
  cJSON *message = NULL, *timing = NULL;
  cJSON *response = oc_response_json(&r, &message, &timing);
  struct oc_ruleset unjudged;
  oc_capture_request_rules(&unjudged);
  for(size_t i = 0; !rc && i < all.count; i++)
    if(!(out->no_request && oc_ruleset_has(&unjudged, all.items[i].rule)))
      rc = oc_findings_add(&f, &all.items[i]);
  if(!rc && ck.oom)
    rc = OC_ENOMEM;

  if(rc)
    goto out;
  int oom = 0;
  cJSON *o = cJSON_CreateObject();
  oc_json_put_str_or_null(&oom, o, "target", "capture");
  oc_json_put_str_or_null(&oom, o, "suite", "check");
  oc_json_put_str_or_null(&oom, o, "case", e->name);
  oc_json_put(&oom, o, "index", cJSON_CreateNumber((double)index));
  char *desc = oc_asprintf("%s, %s", cap->file, oc_capture_kind_text(cap->kind));
  oc_json_put(&oom, o, "description", desc ? cJSON_CreateString(desc) : NULL);
  free(desc);
  oc_json_put(&oom, o, "tags", cJSON_CreateArray());
  int worst = oc_findings_worst(&f);
  oc_json_put_str_or_null(&oom, o, "status", !c->complete ? "error" : worst == OC_SEV_ERROR ? "fail" : "pass");
  oc_json_put_str_or_null(&oom, o, "reason", c->complete ? NULL : "the recorded exchange is incomplete");
  oc_json_put_str_or_null(&oom, o, "profile", profile->name);
  oc_json_put(&oom, o, "duration_ms", cJSON_CreateNumber(((double)oc_now_ns() - started) / 1e6));
  cJSON *fs = oc_json_put(&oom, o, "findings", cJSON_CreateArray());
  for(size_t i = 0; i < f.count; i++)
    oc_json_put(&oom, fs, NULL, oc_finding_json(&f.items[i]));
  cJSON *sup = NULL;
  for(size_t i = 0; i < f.ncounts; i++)
    if(f.counts[i].total > f.counts[i].kept) {
      if(!sup)
        sup = oc_json_put(&oom, o, "suppressed", cJSON_CreateArray());
      cJSON *sp = oc_json_put(&oom, sup, NULL, cJSON_CreateObject());
      oc_json_put_str_or_null(&oom, sp, "rule", oc_rule_name(f.counts[i].rule));
      oc_json_put(&oom, sp, "total", cJSON_CreateNumber((double)f.counts[i].total));
      oc_json_put(&oom, sp, "kept", cJSON_CreateNumber((double)f.counts[i].kept));
    }
  oc_json_put(&oom, o, "request", request_json(&oom, c, out->no_request ? NULL : req));
  if(r.judged)
    oc_json_put(&oom, o, "clients", oc_clients_json(r.verdicts));
  cJSON *agents = oc_agents_json(r.agents);
  if(agents)
    oc_json_put(&oom, o, "agents", agents);
  oc_json_put_str(&oom, o, "checklist", oc_row_name(oc_row_of(NULL, NULL, 0, 0, &info)));
  oc_json_put_str(&oom, o, "protocol", oc_protocol_name_of(info.api));
  oc_json_put_str_or_null(&oom, response, "source", cap->file);
  oc_json_put(&oom, o, "response", response ? response : cJSON_CreateNull());
  response = NULL;
  if(message)
    oc_json_put(&oom, o, "message", message);
  if(timing)
    oc_json_put(&oom, o, "timing", timing);
  message = timing = NULL;
  cJSON *rep = oc_json_put(&oom, o, "reproduce", cJSON_CreateObject());
  char *cmd = oc_asprintf("oacheck check%s%s%s%s%s%s %s", a->request ? " --request " : "",
                          a->request ? a->request : "", a->profile ? " --profile " : "",
                          a->profile ? a->profile : "", a->as ? " --as " : "", a->as ? a->as : "",
                          cap->file);
  oc_json_put(&oom, rep, "oacheck", cmd ? cJSON_CreateString(cmd) : NULL);
  free(cmd);
  if(oom) {
    cJSON_Delete(o);
    rc = OC_ENOMEM;
    goto out;
  }
  out->result = o;
out:
  cJSON_Delete(response);
  cJSON_Delete(message);
  cJSON_Delete(timing);
  oc_response_free(&r);
  oc_findings_free(&all);
  oc_findings_free(&f);
  cJSON_Delete(req);
  return rc;
}

/* ---- the console ------------------------------------------------------------------- */

/* What was read and what it lacks, before the verdict. */
static void print_header(FILE *out, const struct check_args *a, const struct oc_capture *cap,
                         const struct oc_capture_entry *e, const struct judged *j)
{
  struct oc_buf b;
  oc_buf_init(&b, 64u << 10);
  const struct oc_cassette *c = &e->ex;
  fprintf(out, "%s: %s%s", safe(&b, e->name), oc_capture_kind_text(cap->kind),
          cap->detected ? "" : " (--as)");
  if(c->method && c->path)
    fprintf(out, ", %s %s", c->method, safe(&b, c->path));
  fprintf(out, ", %zu body bytes\n", c->body_len);
  if(e->note[0])
    fprintf(out, "  read: %s\n", e->note);
  if(!e->has_http)
    fprintf(out, "  http: not captured (status %d and Content-Type assumed): the HTTP layer is not "
            "judged\n", c->status);
  else {
    fprintf(out, "  http: %s", c->http_version ? safe(&b, c->http_version) : "HTTP");
    fprintf(out, " %d%s%s\n", c->status, c->reason && *c->reason ? " " : "",
            c->reason ? safe(&b, c->reason) : "");
  }
  if(j->no_request) {
    struct oc_ruleset rs;
    oc_capture_request_rules(&rs);
    fprintf(out, "  request: not captured (give --request FILE): not judged:");
    for(size_t i = 0; i < OC_R__COUNT; i++)
      if(oc_ruleset_has(&rs, (enum oc_rule_id)i))
        fprintf(out, " %s", oc_rule_name((enum oc_rule_id)i));
    fputc('\n', out);
  }
  else
    fprintf(out, "  request: from %s\n", j->request_from);
  if(a->partial)
    fprintf(out, "  end: partial (--partial): what arrived is judged, the end of the stream is not\n");
  else if(a->complete && e->partial)
    fprintf(out, "  end: judged as complete (--complete), although %s\n", e->partial_why);
  else if(e->partial)
    fprintf(out, "  end: partial: %s; what arrived is judged, the end of the stream is not "
            "(--complete judges it)\n", e->partial_why);
  if(!c->timing_recorded)
    fprintf(out, "  timing: not captured\n");
  fprintf(out, "  profile: %s (%s)\n", j->profile, j->profile_why);
  oc_buf_free(&b);
}

static void print_verdict(FILE *out, const cJSON *res)
{
  struct oc_buf b, t;
  oc_buf_init(&b, 1u << 20);
  oc_buf_init(&t, 1u << 20);
  const cJSON *fs = oc_json_arr(res, "findings");
  int errors = 0, warnings = 0, infos = 0;
  const cJSON *f;
  cJSON_ArrayForEach(f, fs)
  {
    const char *sev = oc_json_str(f, "severity");
    errors += oc_streq(sev, "error");
    warnings += oc_streq(sev, "warning");
    infos += oc_streq(sev, "info");
  }
  const char *st = oc_json_str(res, "status");
  char up[8];
  snprintf(up, sizeof(up), "%s", st ? st : "?");
  for(char *p = up; *p; p++)
    *p = (char)(*p - 'a' + 'A');
  const cJSON *rs = oc_json_obj(res, "response");
  fprintf(out, "%s %s: %d error%s, %d warning%s, %d info", up, safe(&b, oc_json_str(res, "case")),
          errors, errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s", infos);
  if(oc_json_get(rs, "events_total"))
    fprintf(out, " (%ld event%s)", (long)oc_json_num(rs, "events_total", 0),
            (long)oc_json_num(rs, "events_total", 0) == 1 ? "" : "s");
  fputc('\n', out);
  cJSON_ArrayForEach(f, fs)
  {
    oc_buf_reset(&t);
    oc_finding_text(&t, f, "      ");
    fprintf(out, "  %s\n", safe(&b, oc_buf_str(&t)));
    const struct oc_rule *r = oc_rule_find(oc_json_str(f, "rule") ? oc_json_str(f, "rule") : "");
    if(r && r->fix)
      fprintf(out, "      fix: %s\n", r->fix);
  }
  const cJSON *s;
  cJSON_ArrayForEach(s, oc_json_arr(res, "suppressed"))
    fprintf(out, "  (%s fired %ld times; the first %ld are listed)\n", oc_json_str(s, "rule"),
            (long)oc_json_num(s, "total", 0), (long)oc_json_num(s, "kept", 0));
  /* what each agent that speaks this protocol would show its user */
  const cJSON *ag;
  cJSON_ArrayForEach(ag, oc_json_obj(res, "agents"))
    fprintf(out, "  agent %s: %s, %s\n", safe(&t, ag->string),
            oc_json_bool(ag, "works", 0) ? "works" : oc_json_bool(ag, "limitation", 0) ? "its limitation" : "BREAKS",
            safe(&b, oc_json_str(ag, "reason")));
  oc_buf_free(&b);
  oc_buf_free(&t);
}

/* ---- the command --------------------------------------------------------------------- */

int oc_cmd_check(int argc, char **argv)
{
  struct check_args a;
  memset(&a, 0, sizeof(a));
  oc_ruleset_init(&a.allow);
  const struct oc_option options[] = {
    OC_OPT_GROUP("Input:"),
    OC_OPT_STRING(0, "request", &a.request, "FILE",
                  "the request's JSON body, for captures without one\n"
                  "(curl output, pasted bodies)"),
    OC_OPT_CALLBACK(0, "as", &a.as, "KIND", opt_as,
                    "read every FILE as http, sse, json, har, cassette or test\n"
                    "(default: told from the content)"),
    OC_OPT_FLAG(0, "partial", &a.partial, "the captures are cut: do not judge the end of a stream"),
    OC_OPT_FLAG(0, "complete", &a.complete,
                "the captures are whole: judge the end even when it looks cut"),
    OC_OPT_GROUP("Findings and reports:"),
    OC_OPT_CALLBACK(0, "profile", &a.profile, "P", opt_profile,
                    "openai, llama-server, vllm, ollama or auto (default:\n"
                    "llama-server for 'Server: llama.cpp', else openai)"),
    OC_OPT_VERDICT(&a.verdict),
    OC_OPT_ALLOW(&a.allow),
    OC_OPT_REPORTS(&a.reports),
    OC_OPT_VERBOSITY(&a.verbose),
    OC_OPT_END(),
  };
  const struct oc_cli cli = { "check", check_usage, check_footer, options };
  int status = oc_cli_parse(&cli, argc, argv, &a.files);
  struct oc_capture *caps = NULL;
  struct oc_schemas sch;
  memset(&sch, 0, sizeof(sch));
  char *reqtext = NULL;
  size_t reqlen = 0;
  cJSON *doc = NULL;
  char err[1024];
  if(status >= 0)
    goto out;
  if(a.files.n == 0) {
    status = oc_cli_usage_error("check", "give at least one FILE to check");
    goto out;
  }
  if(a.partial && a.complete) {
    status = oc_cli_usage_error("check", "--partial and --complete contradict each other");
    goto out;
  }
  if(oc_cli_reports_take_stdout("check", &a.reports, NULL)) {
    status = OC_EXIT_FAIL;
    goto out;
  }
  status = OC_EXIT_USAGE;
  /* a captured answer may quote the key it was sent with (a 401): this
   * environment's key is masked out of the console and the reports */
  oc_secret_add_env("OPENAI_API_KEY");
  if(a.request) {
    if(oc_read_file(a.request, OC_CAP_FILE, &reqtext, &reqlen, err, sizeof(err))) {
      oc_error("%s", err);
      goto out;
    }
    struct oc_json_pos pos;
    cJSON *j = oc_json_parse(reqtext, reqlen, &pos);
    if(!j) {
      oc_error("%s:%d:%d: the request is not JSON (byte %zu)", a.request, pos.line, pos.column,
               pos.offset);
      goto out;
    }
    cJSON_Delete(j);
  }
  /* every file is read before anything is judged: one unreadable file
   * stops the command with its name and byte */
  caps = calloc(a.files.n, sizeof(*caps));
  if(!caps)
    goto out;
  int kind = a.as ? oc_capture_kind_parse(a.as) : OC_CAPTURE_AUTO;
  int unreadable = 0;
  for(size_t i = 0; i < a.files.n; i++)
    if(oc_capture_read(a.files.items[i], (enum oc_capture_kind)kind, &caps[i], err, sizeof(err))) {
      oc_error("%s", err);
      unreadable = 1;
    }
  if(unreadable)
    goto out;
  if(oc_schemas_load(&sch, err, sizeof(err))) {
    oc_error("cannot load the shipped schemas: %s", err);
    goto out;
  }
  doc = oc_results_doc_new("replay", NULL, "oacheck check: captured responses judged without a server",
                           NULL);
  if(!doc)
    goto oom;
  cJSON *results = oc_json_arr(doc, "results");
  const char *first_profile = NULL;
  int mixed = 0, oom = 0;
  unsigned selected = oc_verdict_args_clients(&a.verdict);
  oc_json_put(&oom, oc_json_obj(doc, "oacheck"), "policy", oc_verdict_policy_json(a.verdict.strict, selected));
  char policy[600];
  oc_verdict_policy_text(a.verdict.strict, selected, policy, sizeof(policy));
  printf("verdict: %s\n\n", policy);
  size_t n = 0, shown = 0;
  int quiet = oc_log_get_level() == OC_LOG_ERROR;
  for(size_t i = 0; i < a.files.n; i++)
    for(size_t k = 0; k < caps[i].count; k++) {
      struct judged j;
      if(judge(&a, &sch, &caps[i], &caps[i].entries[k], reqtext, reqlen, ++n, &j))
        goto oom;
      if(!first_profile)
        first_profile = j.profile;
      mixed |= strcmp(first_profile, j.profile) != 0;
      /* -q: what passed is only counted */
      if(!quiet || !oc_streq(oc_json_str(j.result, "status"), "pass")) {
        if(shown++)
          fputc('\n', stdout);
        print_header(stdout, &a, &caps[i], &caps[i].entries[k], &j);
        print_verdict(stdout, j.result);
      }
      if(!oc_json_put(&oom, results, NULL, j.result))
        goto oom;
    }
  for(size_t i = 0; i < a.files.n; i++)
    if(caps[i].har_skipped)
      printf("%s: %zu other HAR entr%s (not a POST to a completions endpoint) not checked\n",
             caps[i].file, caps[i].har_skipped, caps[i].har_skipped == 1 ? "y" : "ies");
  cJSON *t = oc_json_put(&oom, oc_json_arr(doc, "targets"), NULL, cJSON_CreateObject());
  oc_json_put_str_or_null(&oom, t, "name", "capture");
  oc_json_put_str_or_null(&oom, t, "kind", "replay");
  oc_json_put_str_or_null(&oom, t, "recordings", a.files.items[0]);
  oc_json_put_str_or_null(&oom, t, "profile", mixed ? "mixed" : first_profile ? first_profile : "openai");
  oc_json_put_str_or_null(&oom, t, "profile_source", a.profile && strcmp(a.profile, "auto") != 0 ? "option" : "auto");
  oc_json_put(&oom, t, "reachable", cJSON_CreateTrue());
  oc_json_put(&oom, t, "timing_recorded", cJSON_CreateFalse());
  if(oom)
    goto oom;
  if(oc_results_summarize(doc))
    goto oom;
  struct oc_counts counts;
  oc_results_count(doc, NULL, NULL, &counts);
  printf("\n%zu exchange%s checked: %ld passed, %ld failed, %ld errors\n", n, n == 1 ? "" : "s",
         (long)counts.pass, (long)counts.fail, (long)counts.error);
  fflush(stdout);
  int bad = oc_reports_write(doc, a.reports.json, a.reports.junit, a.reports.html);
  status = counts.fail || counts.error || bad ? OC_EXIT_FAIL : OC_EXIT_OK;
  goto out;
oom:
  oc_error("out of memory");
  status = OC_EXIT_FAIL;
out:
  cJSON_Delete(doc);
  for(size_t i = 0; caps && i < a.files.n; i++)
    oc_capture_free(&caps[i]);
  free(caps);
  free(reqtext);
  oc_schemas_free(&sch);
  oc_strlist_free(&a.files);
  return status;
}
