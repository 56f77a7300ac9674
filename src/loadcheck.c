/* loadcheck.c — the load check: the live cases again with N in flight,
 * compared case by case with the baseline.  A case that failed under load
 * but passed alone gets a DEPLOY-LOAD finding in its baseline result,
 * through the same oc_emit as every finding (profile and allow lists
 * apply), carrying the load failure's diagnosis computed with the
 * prompt's token count (the server's own /tokenize where it has one, else
 * the baseline's usage).  Nothing here sends a request itself except that
 * count (deployment.c).  Results are read from the runs' spools one at a
 * time; a baseline result that gains a finding is replaced in its spool. */
#include "config.h"
#include "loadcheck.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "deployment.h"
#include "json.h"
#include "load_text.h"
#include "result.h"
#include "results_json.h"
#include "rules.h"
#include "util.h"

/* One case that failed under load. */
struct loaded {
  size_t base;          /* index in the baseline's plan */
  cJSON *result;        /* its first failing result under load (owned) */
  int in_flight;
  int rounds_failed;
};

static int failed(const cJSON *res)
{
  const char *st = oc_json_str(res, "status");
  return oc_streq(st, "fail") || oc_streq(st, "error");
}

/* The first error finding of a result: "RULE: message". */
static char *first_error(const cJSON *res)
{
  const cJSON *f;
  cJSON_ArrayForEach(f, oc_json_arr(res, "findings"))
  {
    if(!oc_streq(oc_json_str(f, "severity"), "error") || oc_json_bool(f, "allowed", 0))
      continue;
    return oc_asprintf("%s: %s", oc_json_str(f, "rule") ? oc_json_str(f, "rule") : "?",
                       oc_json_str(f, "message") ? oc_json_str(f, "message") : "");
  }
  const char *reason = oc_json_str(res, "reason");
  return oc_strdup(reason ? reason : oc_json_str(res, "status"));
}

/* The prompt's tokens: the server's count, else the baseline's usage. */
static long prompt_tokens(struct oc_plan_item *it, const cJSON *base_res,
                          const struct oc_identify_options *identify, const char **source)
{
  *source = "the server's /tokenize";
  const cJSON *req = oc_json_obj(oc_json_obj(oc_json_obj(base_res, "request"), "body"), "json");
  long n = -1;
  if(identify && it->target->live)
    n = oc_deployment_count_prompt(it->target, identify, req);
  if(n < 0) {
    *source = "the usage of its run alone";
    const cJSON *pt = NULL;
    const cJSON *msg = oc_json_obj(base_res, "message");
    pt = oc_json_get(oc_json_obj(msg, "usage"), "prompt_tokens");
    if(!pt) {
      const char *text = oc_json_str(oc_json_obj(oc_json_obj(base_res, "response"), "body"), "text");
      cJSON *doc = text ? oc_json_parse(text, strlen(text), NULL) : NULL;
      const cJSON *v = oc_json_get(oc_json_obj(doc, "usage"), "prompt_tokens");
      if(oc_json_is_integer(v) && v->valuedouble >= 0 && v->valuedouble < 1e9)
        n = (long)v->valuedouble;
      cJSON_Delete(doc);
    }
    else if(oc_json_is_integer(pt) && pt->valuedouble >= 0 && pt->valuedouble < 1e9)
      n = (long)pt->valuedouble;
  }
  return n;
}

/* The DEPLOY-LOAD finding, through the case's profile and allow lists,
 * into the baseline result; the status follows its severity. */
static void add_finding(struct oc_run *base, struct loaded *l, int n, int rounds,
                        const char *what, const cJSON *diag)
{
  struct oc_plan_item *it = &base->items[l->base];
  cJSON *res = oc_run_result(base, l->base);
  if(!res)
    return;
  struct oc_findings fs;
  oc_findings_init(&fs);
  struct oc_check ck;
  oc_check_init(&ck, &fs, it->target->profile);
  struct oc_ruleset allow = it->kase->allow;
  oc_ruleset_merge(&allow, &it->target->allow);
  oc_ruleset_merge(&allow, base->opts->allow);
  ck.allow = &allow;
  char expected[64], actual[64];
  snprintf(expected, sizeof(expected), "the answer it gets alone");
  snprintf(actual, sizeof(actual), "%s with %d in flight", oc_json_str(l->result, "status"), n);
  oc_emit(&ck, OC_R_DEPLOY_LOAD, OC_AT(.expected = expected, .actual = actual),
          "works for one client, fails with %d requests in flight (in %d of %d load round%s): %s",
          n, l->rounds_failed, rounds, rounds == 1 ? "" : "s", what);
  if(fs.count) {
    int oom = 0;
    cJSON *f = oc_json_put(&oom, oc_json_arr(res, "findings"), NULL, oc_finding_json(&fs.items[0]));
    if(diag)
      oc_json_put(&oom, f, "diagnosis", cJSON_Duplicate(diag, 1));
    if(!oom && fs.items[0].severity == OC_SEV_ERROR && !fs.items[0].allowed &&
       oc_streq(oc_json_str(res, "status"), "pass"))
      oc_json_set(&oom, res, "status", cJSON_CreateString("fail"));
    if(oom || oc_run_replace_result(base, l->base, res))
      oc_warn("%s/%s: out of memory recording its load finding", it->kase->suite, it->kase->name);
  }
  oc_findings_free(&fs);
  cJSON_Delete(res);
}

static int under_load(const struct oc_target *t)
{
  return t->live && t->reachable;
}

int oc_load_check(struct oc_run *base, const struct oc_load_options *lo, cJSON **out)
{
  *out = NULL;
  int rc = OC_ENOMEM;
  /* the cases of a target that could not be reached end at once as
   * errors without a request: no load, and rounds of them would only
   * spin until the duration was over */
  size_t nlive = 0;
  for(size_t i = 0; i < base->nitems; i++)
    nlive += under_load(base->items[i].target);
  struct oc_plan_item *items = calloc(nlive + 1, sizeof(*items));
  size_t *map = calloc(nlive + 1, sizeof(*map));
  struct loaded *ld = calloc(nlive + 1, sizeof(*ld));
  cJSON *load = cJSON_CreateObject();
  if(!items || !map || !ld || !load)
    goto out;
  size_t k = 0;
  for(size_t i = 0; i < base->nitems; i++)
    if(under_load(base->items[i].target)) {
      items[k] = base->items[i];
      items[k].index = k;
      map[k++] = i;
    }
  struct oc_run_options opts = *base->opts;
  opts.jobs = lo->in_flight;
  opts.rerun_alone = 0;
  opts.record_dir = NULL;
  uint64_t t0 = oc_now_ns();
  int rounds = 0, oom = 0;
  size_t nld = 0;
  size_t nwait = 0, ntimed = 0;
  double wait_max = 0, wait_sum = 0;
  /* Progress at most once a second, terminal or not: a round of a few
   * fast cases takes milliseconds, and a line per round was thousands of
   * lines in a few seconds.  The counts are the run's so far, so a line
   * skipped loses nothing, and the last line has the totals.  They count
   * only the cases that ran: a case the signal kept from starting, or one
   * skipped, sent nothing (or nothing judged) and is no run under load. */
  struct oc_load_runs runs = { 0, 0, 0, 0 };
  uint64_t said = t0;
  /* why the load ended before its duration: the signal, or a round that
   * ran nothing (which would only repeat, as fast as it can) */
  int sig = 0, cut = 0;
  char nothing[160] = "";
  int more;
  do {
    struct oc_run r;
    memset(&r, 0, sizeof(r));
    r.opts = &opts;
    r.targets = base->targets;
    r.ntargets = base->ntargets;
    r.suites = base->suites;
    r.schemas = base->schemas;
    r.nitems = nlive;
    r.in_flight = calloc(nlive + 1, sizeof(*r.in_flight));
    r.deferred = calloc(nlive + 1, sizeof(*r.deferred));
    r.firsts = calloc(nlive + 1, sizeof(*r.firsts));
    r.items = items;
    char err[700];
    int erc = r.in_flight && r.deferred && r.firsts ? oc_run_execute(&r, err, sizeof(err)) : OC_ENOMEM;
    if(erc && erc != OC_ENOMEM)
      oc_error("load round: %s", err);
    size_t ran = 0, skipped = 0;
    for(size_t j = 0; erc == OC_OK && j < nlive; j++) {
      /* no result: the signal stopped the round before the case ended
       * (abandoned in flight or never started) */
      if(!oc_spool_has(&r.spool, j))
        continue;
      if(r.refs[j].status == OC_ST_SKIP) {
        skipped++;
        continue;
      }
      ran++;
      /* what the round needs of a result is in its ref, but for its wait
       * and, when it failed, the result itself */
      cJSON *res = oc_run_result(&r, j);
      double w;
      int waited = res ? oc_deployment_waited(res, &w) : -1;
      ntimed += waited >= 0;
      if(waited > 0) {
        nwait++;
        wait_sum += w;
        if(w > wait_max)
          wait_max = w;
      }
      if(!res || !failed(res)) {
        cJSON_Delete(res);
        continue;
      }
      runs.failed++;
      if(base->refs[map[j]].status != OC_ST_PASS) {
        cJSON_Delete(res);
        continue; /* it fails (or is skipped) alone too: not the load's doing */
      }
      runs.failed_passing_alone++;
      size_t m = 0;
      while(m < nld && ld[m].base != map[j])
        m++;
      if(m == nld) {
        ld[nld].base = map[j];
        ld[nld].result = res;
        ld[nld].in_flight = r.in_flight[j];
        res = NULL;
        nld++;
      }
      cJSON_Delete(res);
      ld[m].rounds_failed++;
    }
    /* a round counts when a case of it ran; one the signal cut short
     * counts with the cases it finished, one it stopped before any did
     * does not */
    rounds += ran > 0;
    runs.ran += ran;
    runs.skipped += skipped;
    sig = r.stopped ? r.stopped : oc_run_signal();
    cut = sig && ran + skipped < nlive;
    r.items = NULL; /* borrowed */
    oc_run_free(&r);
    if(erc) {
      rc = erc;
      goto out;
    }
    if(!sig && !ran) {
      if(!nlive)
        snprintf(nothing, sizeof(nothing), "no live target was reachable");
      else if(skipped)
        snprintf(nothing, sizeof(nothing), "round %d ran no case: %s %zu case%s skipped", rounds + 1,
                 skipped == 1 ? "its" : "all", skipped, skipped == 1 ? " was" : "s were");
      else
        snprintf(nothing, sizeof(nothing), "round %d ran no case", rounds + 1);
    }
    uint64_t now = oc_now_ns();
    more = !sig && ran && lo->duration_ms > 0 && (now - t0) / 1000000u < (uint64_t)lo->duration_ms;
    if(more && now - said >= 1000000000u) {
      char counts[400];
      oc_load_runs_line(counts, sizeof(counts), &runs, nld, lo->in_flight);
      oc_info("load: %d round%s in %.0f s: %s", rounds, rounds == 1 ? "" : "s",
              (double)(now - t0) / 1e9, counts);
      said = now;
    }
  } while(more);
  /* "stopped by SIGINT after 3 rounds (the last cut short)": the load
   * object's, and the last line's in pieces */
  const char *head = sig ? oc_run_signal_name(sig) : NULL;
  char why[200] = "";
  if(sig && cut && rounds)
    snprintf(why, sizeof(why), " (the last cut short)");
  else if(!sig && nothing[0])
    snprintf(why, sizeof(why), " (%s)", nothing);
  char stopped[300] = "";
  if(sig || nothing[0])
    snprintf(stopped, sizeof(stopped), "stopped%s%s after %d round%s%s", head ? " by " : "",
             head ? head : "", rounds, rounds == 1 ? "" : "s", why);
  char counts[400];
  oc_load_runs_line(counts, sizeof(counts), &runs, nld, lo->in_flight);
  oc_info("load: %s%s%s, %d round%s%s in %.1f s: %s", stopped[0] ? "stopped" : "done",
          head ? " by " : "", head ? head : "", rounds, rounds == 1 ? "" : "s", why,
          (double)(oc_now_ns() - t0) / 1e9, counts);
  oc_json_put(&oom, load, "in_flight", cJSON_CreateNumber(lo->in_flight));
  oc_json_put(&oom, load, "duration_ms", cJSON_CreateNumber((double)((oc_now_ns() - t0) / 1000000u)));
  oc_json_put(&oom, load, "rounds", cJSON_CreateNumber(rounds));
  oc_json_put(&oom, load, "cases", cJSON_CreateNumber((double)nlive));
  cJSON *rn = oc_json_put(&oom, load, "runs", cJSON_CreateObject());
  if(rn) {
    oc_json_put(&oom, rn, "ran", cJSON_CreateNumber((double)runs.ran));
    oc_json_put(&oom, rn, "skipped", cJSON_CreateNumber((double)runs.skipped));
    oc_json_put(&oom, rn, "failed", cJSON_CreateNumber((double)runs.failed));
    oc_json_put(&oom, rn, "failed_passing_alone", cJSON_CreateNumber((double)runs.failed_passing_alone));
  }
  if(stopped[0]) {
    oc_json_put_str(&oom, load, "stopped", sig ? oc_run_signal_name(sig) : "nothing-ran");
    oc_json_put_str(&oom, load, "stopped_reason", stopped);
  }
  if(ntimed) {
    cJSON *w = oc_json_put(&oom, load, "waited", cJSON_CreateObject());
    if(w) {
      oc_json_put(&oom, w, "requests", cJSON_CreateNumber((double)nwait));
      oc_json_put(&oom, w, "timed", cJSON_CreateNumber((double)ntimed));
      oc_json_put(&oom, w, "mean_ms", cJSON_CreateNumber(nwait ? round(wait_sum / (double)nwait) : 0));
      oc_json_put(&oom, w, "max_ms", cJSON_CreateNumber(round(wait_max)));
    }
  }
  cJSON *only = oc_json_put(&oom, load, "only_under_load", cJSON_CreateArray());
  for(size_t m = 0; only && m < nld; m++) {
    struct oc_plan_item *it = &base->items[ld[m].base];
    cJSON *was = oc_run_result(base, ld[m].base);
    /* the load failure diagnosed with the prompt's size, now known */
    struct oc_diag_context ctx = { ld[m].in_flight, -1, NULL };
    /* after a signal, nothing more is asked of the server: the user
     * wants the run to end, and the baseline's usage will do */
    ctx.prompt_tokens = prompt_tokens(it, was, sig ? NULL : lo->identify, &ctx.prompt_source);
    oc_deployment_diagnose(&it->target->deployment, ld[m].result, &ctx);
    const cJSON *dg = oc_result_diagnosis(ld[m].result);
    char *what = first_error(ld[m].result);
    cJSON *e = oc_json_put(&oom, only, NULL, cJSON_CreateObject());
    if(e) {
      oc_json_put_str(&oom, e, "target", it->target->name);
      oc_json_put_str(&oom, e, "suite", it->kase->suite);
      oc_json_put_str(&oom, e, "case", it->kase->name);
      oc_json_put_str(&oom, e, "status", oc_json_str(ld[m].result, "status"));
      oc_json_put_str(&oom, e, "failure", what ? what : "");
      oc_json_put(&oom, e, "in_flight", cJSON_CreateNumber(ld[m].in_flight));
      oc_json_put(&oom, e, "rounds_failed", cJSON_CreateNumber(ld[m].rounds_failed));
      if(ctx.prompt_tokens >= 0)
        oc_json_put(&oom, e, "prompt_tokens", cJSON_CreateNumber((double)ctx.prompt_tokens));
      if(dg)
        oc_json_put(&oom, e, "diagnosis", cJSON_Duplicate(dg, 1));
      cJSON *rules = oc_json_put(&oom, e, "rules", cJSON_CreateArray());
      const cJSON *f;
      cJSON_ArrayForEach(f, oc_json_arr(ld[m].result, "findings"))
        if(rules && oc_streq(oc_json_str(f, "severity"), "error") && !oc_json_bool(f, "allowed", 0))
          oc_json_put(&oom, rules, NULL, cJSON_CreateString(oc_json_str(f, "rule")));
    }
    cJSON_Delete(was);
    add_finding(base, &ld[m], lo->in_flight, rounds, what ? what : "", dg);
    free(what);
  }
  /* results changed: the run's counts are made again from its spool */
  if(nld && oc_run_recount(base))
    oom = 1;
  if(oom) {
    rc = OC_ENOMEM;
    goto out;
  }
  *out = load;
  load = NULL;
  rc = OC_OK;
out:
  for(size_t m = 0; ld && m < nlive; m++)
    cJSON_Delete(ld[m].result);
  free(ld);
  free(items);
  free(map);
  cJSON_Delete(load);
  return rc;
}
