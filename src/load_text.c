/* load_text.c — the load check's figures as the reports say them: one
 * wording for the run's progress lines (loadcheck.c) and for the console
 * and HTML reports, which read them back from a results document and so
 * need nothing of the runner. */
#include "config.h"
#include "load_text.h"

#include <stdio.h>

#include "json.h"


/* How the failures under load divide: those of the ncases cases that
 * pass alone (the cases that fail only under load) and the others.  One
 * wording for the progress lines and the console's load section, so that
 * "1560 failed" never stands beside "0 cases fail only under load" as if
 * the two disagreed. */
static void failed_text(char *out, size_t len, size_t failed, size_t passing, size_t ncases)
{
  size_t rest = failed - (passing < failed ? passing : failed);
  const char *s = ncases == 1 ? "" : "s", *fail = ncases == 1 ? "fails" : "fail";
  if(!failed)
    snprintf(out, len, "0 failed");
  else if(!passing)
    snprintf(out, len, "%zu failed, all in cases that do not pass alone either", failed);
  else if(!rest)
    snprintf(out, len, "%zu failed, all in the %zu case%s that %s only under load", failed, ncases, s,
             fail);
  else
    snprintf(out, len, "%zu failed: %zu in the %zu case%s that %s only under load, %zu in cases "
             "that do not pass alone either", failed, passing, ncases, s, fail, rest);
}

/* "7 cases run with 2 in flight (3 skipped), 1 failed, …" */
void oc_load_runs_line(char *out, size_t len, const struct oc_load_runs *rn, size_t ncases, int in_flight)
{
  char f[300], sk[64] = "";
  failed_text(f, sizeof(f), rn->failed, rn->failed_passing_alone, ncases);
  if(rn->skipped)
    snprintf(sk, sizeof(sk), " (%zu skipped)", rn->skipped);
  snprintf(out, len, "%zu case%s run with %d in flight%s, %s", rn->ran, rn->ran == 1 ? "" : "s",
           in_flight, sk, f);
}

/* A count from a results document (which may come from anywhere). */
static size_t count_of(const cJSON *o, const char *name)
{
  double v = oc_json_num(o, name, 0);
  return v > 0 && v < 1e15 ? (size_t)v : 0;
}

int oc_load_runs_text(const cJSON *load, char *out, size_t len)
{
  /* results written before the load counted its runs have no "runs" */
  const cJSON *rj = oc_json_obj(load, "runs");
  if(!rj || !len)
    return 0;
  struct oc_load_runs rn = { count_of(rj, "ran"), count_of(rj, "skipped"), count_of(rj, "failed"),
                     count_of(rj, "failed_passing_alone") };
  size_t n = (size_t)cJSON_GetArraySize(oc_json_arr(load, "only_under_load"));
  oc_load_runs_line(out, len, &rn, n, (int)oc_json_num(load, "in_flight", 0));
  return 1;
}

int oc_load_text(const cJSON *load, struct oc_buf *b)
{
  if(!cJSON_IsObject(load))
    return OC_OK;
  const cJSON *only = oc_json_arr(load, "only_under_load");
  int n = cJSON_GetArraySize(only);
  double cases = oc_json_num(load, "cases", 0);
  int rc = oc_buf_printf(b, "load: %.0f requests in flight per target, %.0f round%s of %.0f case%s: "
                            "%d case%s fail%s only under load%s\n",
                         oc_json_num(load, "in_flight", 0), oc_json_num(load, "rounds", 0),
                         oc_json_num(load, "rounds", 0) == 1 ? "" : "s", cases, cases == 1 ? "" : "s",
                         n, n == 1 ? "" : "s", n == 1 ? "s" : "", n ? ":" : "");
  const char *stopped = oc_json_str(load, "stopped_reason");
  if(stopped)
    rc |= oc_buf_printf(b, "  %s\n", stopped);
  char counts[400];
  if(oc_load_runs_text(load, counts, sizeof(counts)))
    rc |= oc_buf_printf(b, "  %s\n", counts);
  const cJSON *w = oc_json_obj(load, "waited");
  if(w && oc_json_num(w, "requests", 0) > 0)
    rc |= oc_buf_printf(b, "  under load %.0f of %.0f requests waited for a slot: %.0f ms on "
                           "average, %.0f ms at most (the server's timings against oacheck's "
                           "clock; TTFT includes it)\n",
                        oc_json_num(w, "requests", 0), oc_json_num(w, "timed", 0),
                        oc_json_num(w, "mean_ms", 0), oc_json_num(w, "max_ms", 0));
  const cJSON *e;
  cJSON_ArrayForEach(e, only)
  {
    rc |= oc_buf_printf(b, "  %s %s/%s: %s\n", oc_json_str(e, "target") ? oc_json_str(e, "target") : "",
                        oc_json_str(e, "suite") ? oc_json_str(e, "suite") : "",
                        oc_json_str(e, "case") ? oc_json_str(e, "case") : "",
                        oc_json_str(e, "failure") ? oc_json_str(e, "failure") : "");
    const cJSON *dg = oc_json_obj(e, "diagnosis");
    if(dg)
      rc |= oc_buf_printf(b, "    cause (%s): %s\n    fix: %s\n",
                          oc_json_str(dg, "id") ? oc_json_str(dg, "id") : "",
                          oc_json_str(dg, "cause") ? oc_json_str(dg, "cause") : "",
                          oc_json_str(dg, "fix") ? oc_json_str(dg, "fix") : "");
    else
      rc |= oc_buf_adds(b, "    cause: not one the deployment's facts explain\n");
  }
  return rc ? OC_ENOMEM : OC_OK;
}
