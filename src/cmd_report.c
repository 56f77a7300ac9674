/* cmd_report.c — `oacheck report render|merge|diff|history`: reports from
 * JSON results after the run, shards merged into one run, what changed
 * between two runs, and nightly runs over time (report_history.c).  Reading/checking results is results_json.c's, the
 * writers are report_junit.c and report_html.c, merge and diff
 * report_merge.c; this file parses options and picks exit codes. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "report.h"
#include "reports.h"
#include "report_ci.h"
#include "report_history.h"
#include "report_html.h"
#include "report_junit.h"
#include "report_merge.h"
#include "results_json.h"
#include "secret.h"
#include "shard.h"
#include "spool.h"
#include "util.h"

static const char report_usage[] =
  "Usage: oacheck report render RESULTS.json [--junit FILE] [--html FILE] [--json FILE]\n"
  "       oacheck report merge RESULTS.json... -o FILE [--junit FILE] [--html FILE]\n"
  "       oacheck report diff OLD.json NEW.json [--json]\n"
  "       oacheck report history DIR|RESULTS.json... [--json FILE] [--html FILE]\n"
  "Reports from JSON results (the output of 'oacheck run --json').\n"
  "\n"
  "  render  write JUnit XML, a self-contained HTML report or the JSON again;\n"
  "          with no output option, print a summary\n"
  "  merge   combine results of shards (--shard K/N) or of several targets\n"
  "  diff    what changed between two runs; exit 1 when a case newly fails\n"
  "  history nightly results over time: regressions, flaky cases, pin drift,\n"
  "          latency trends\n"
  "\n"
  "'oacheck report VERB --help' describes a verb.\n"
  "Exit status: 0 done, 1 an output could not be written (diff: a case newly\n"
  "fails), 2 usage error or an input that cannot be read or is not results.\n";

static const char render_usage[] =
  "Usage: oacheck report render RESULTS.json [--junit FILE] [--html FILE] [--json FILE]\n"
  "Render reports from JSON results; the files are the same as 'oacheck run'\n"
  "writes with the same options.  '-' reads stdin or writes stdout.\n";

static const char render_footer[] =
  "With no output option, prints the counts and the failing cases (the cases\n"
  "of a target that could not be reached: one line for the target).\n"
  "Exit status: 0 written, 1 a file could not be written, 2 usage error or\n"
  "RESULTS.json cannot be read or is not valid results.\n";

static const char merge_usage[] =
  "Usage: oacheck report merge RESULTS.json... -o FILE [--junit FILE] [--html FILE]\n"
  "Combine results files into one: shards of one run from several CI machines\n"
  "('oacheck run --shard K/N'), or runs against different targets.\n"
  "\n"
  "Targets are de-duplicated by name; a case (target + suite + case) found in\n"
  "several inputs is taken from the last one given; cases are ordered by\n"
  "target, suite and their position in the suite; the summary is recomputed\n"
  "and oacheck.merged_from says how many files were combined.  When inputs\n"
  "are shards, oacheck.shards says which shards of each target the merge\n"
  "holds; a missing one is a warning in every report and exit status 1.\n";

static const char merge_footer[] =
  "Exit status: 0 written, 1 a file could not be written or a shard is missing\n"
  "(everything is written all the same), 2 usage error or an input cannot be\n"
  "read or is not valid results.\n";

static const char diff_usage[] =
  "Usage: oacheck report diff OLD.json NEW.json [--json]\n"
  "Compare two runs (\"what changed since yesterday\"): cases newly failing,\n"
  "newly passing, with another status, with changed findings, new and removed.\n"
  "Cases are matched by target + suite + case, findings by rule + JSON\n"
  "pointer + where (chunk, byte).\n";

static const char diff_footer[] =
  "Exit status: 0 no case newly fails, 1 at least one does, 2 usage error or\n"
  "an input cannot be read or is not valid results.\n";

static const char history_usage[] =
  "Usage: oacheck report history DIR|RESULTS.json... [--json FILE] [--html FILE]\n"
  "What a folder of nightly results says over time, in any number and order (each\n"
  "run placed by its start time): per target and rule, when it began failing and\n"
  "when it recovered, lined up with any change of the target's pin (model, chat\n"
  "template, context, build) in that run; flaky cases (verdicts that flip with no\n"
  "pin change); TTFT, inter-token latency and tokens/s per model and run.\n"
  "\n"
  "A DIR contributes its *.json files.  A file that is JSON but not results (no\n"
  "\"oacheck\" member: a diff, this command's own --json) is skipped with a\n"
  "warning; one that cannot be read or is not valid results is an error.\n";

static const char history_footer[] =
  "Prints a summary; --json and --html write the whole history.\n"
  "Exit status: 0 written, 1 a file could not be written, 2 usage error or an\n"
  "input cannot be read or is not valid results.\n";

static int str_cmp(const void *a, const void *b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int write_json(const cJSON *doc, const char *path, int canonical)
{
  char err[1024];
  char *text = canonical ? oc_json_canonical(doc) : oc_json_print_pretty(doc);
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_REPORT);
  int rc = text ? oc_buf_adds(&b, text) : OC_ENOMEM;
  if(!rc)
    rc = oc_buf_addc(&b, '\n');
  free(text);
  if(rc) {
    fprintf(stderr, "oacheck report: cannot write '%s': %s\n", path,
            rc == OC_ETOOBIG ? "larger than the report cap" : "out of memory");
    oc_buf_free(&b);
    return OC_EXIT_FAIL;
  }
  rc = oc_secret_write_file(path, b.data, b.len, err, sizeof(err));
  oc_buf_free(&b);
  if(rc) {
    fprintf(stderr, "oacheck report: %s\n", err);
    return OC_EXIT_FAIL;
  }
  return OC_EXIT_OK;
}

/* The outputs every verb that holds results may write. */
struct outputs {
  const char *junit, *html, *json;
  int canonical;
  struct oc_ci_args ci; /* --github, --markdown, --report-url */
};

static const char *real_getenv(const char *name)
{
  return getenv(name);
}

/* A merged run that lacks a shard says so on stderr; returns how many
 * problems oc_shards_problems found.  label is "error" where the problem
 * sets the exit status (merge: exit 1), "warning" where it does not
 * (render of a merge made earlier): a line saying warning above an exit
 * status of 1 sends the reader looking for another cause. */
static long say_shards(const cJSON *doc, const char *label)
{
  struct oc_buf t;
  oc_buf_init(&t, OC_CAP_MESSAGE * 16);
  long n = oc_shards_problems(doc, &t);
  struct oc_buf line;
  oc_buf_init(&line, OC_CAP_MESSAGE * 4);
  const char *p = oc_buf_str(&t);
  while(*p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    oc_buf_reset(&line);
    if(!oc_esc_add(&line, p, len, OC_ESC_TEXT))
      fprintf(stderr, "oacheck report: %s: %s\n", label, oc_buf_str(&line));
    /* else: the line is left out; the reset above starts the next one */
    p += len + (nl ? 1 : 0);
  }
  oc_buf_free(&line);
  oc_buf_free(&t);
  return n;
}

#define OUTPUT_OPTIONS(o)                                                                   \
  OC_OPT_STRING(0, "junit", &(o)->junit, "FILE",                                           \
                "JUnit XML: one testsuite per target and suite, one testcase\n"             \
                "per case (Jenkins, GitLab, GitHub test reporters)"),                      \
  OC_OPT_STRING(0, "html", &(o)->html, "FILE",                                             \
                "one self-contained HTML file: summary, case x target matrix,\n"            \
                "findings, request/response, stream timeline, reproduce commands"),        \
  OC_OPT_FLAG(0, "canonical", &(o)->canonical,                                             \
              "write the JSON in canonical form (members sorted, no spaces),\n"             \
              "so that two results files compare with cmp"),                                       \
  OC_OPT_CI(&(o)->ci)

/* ---- render: a results file a result at a time ------------------------------ */

/* What render keeps of a file it reads a result at a time: the results
 * in a spool, and for each what the writers know unread, its strings
 * copied into blocks that never move (the tree is gone). */
struct render_store {
  struct oc_spool spool;
  struct oc_result_ref *refs;
  size_t *at;
  double *index;             /* the case's index in its suite (NaN: none), for merge */
  size_t count, refs_alloc, at_alloc, index_alloc;
  struct oc_buf text;
  struct kept_block {
    struct kept_block *next;
    size_t used, size;
    char data[];
  } *kept;
};

static const char *keep(struct render_store *st, const char *s)
{
  if(!s)
    return NULL;
  size_t n = strlen(s) + 1;
  if(!st->kept || st->kept->size - st->kept->used < n) {
    size_t size = n > 60000 ? n : 60000;
    struct kept_block *b = malloc(sizeof(*b) + size);
    if(!b)
      return NULL;
    b->next = st->kept;
    b->used = 0;
    b->size = size;
    st->kept = b;
  }
  char *p = st->kept->data + st->kept->used;
  memcpy(p, s, n);
  st->kept->used += n;
  return p;
}

/* Result r (the i-th of its file) into the store, under the next index
 * of the spool (the store may hold several files: merge). */
static int store_result(void *ud, cJSON *r, size_t i, char *err, size_t errlen)
{
  struct render_store *st = ud;
  size_t at = st->count;
  struct oc_result_ref *refs = oc_array_grow(st->refs, &st->refs_alloc, at + 1, sizeof(*refs));
  if(refs)
    st->refs = refs;
  size_t *ats = refs ? oc_array_grow(st->at, &st->at_alloc, at + 1, sizeof(*ats)) : NULL;
  if(ats)
    st->at = ats;
  double *index = ats ? oc_array_grow(st->index, &st->index_alloc, at + 1, sizeof(*index)) : NULL;
  if(index)
    st->index = index;
  if(!index || oc_spool_reserve(&st->spool, at + 1)) {
    snprintf(err, errlen, "out of memory keeping result %zu", i);
    cJSON_Delete(r);
    return OC_ENOMEM;
  }
  int rc = oc_spool_encode(r, at, &st->text, err, errlen);
  if(!rc)
    rc = oc_spool_put(&st->spool, at, st->text.data, st->text.len, oc_result_status(r), err, errlen);
  if(!rc) {
    struct oc_result_ref *f = &st->refs[at];
    oc_result_ref_of(f, r);
    const char *t = f->target, *su = f->suite, *k = f->kase;
    f->target = keep(st, t);
    f->suite = keep(st, su);
    f->kase = keep(st, k);
    if((t && !f->target) || (su && !f->suite) || (k && !f->kase)) {
      snprintf(err, errlen, "out of memory keeping result %zu", i);
      rc = OC_ENOMEM;
    }
    const cJSON *idx = oc_json_get(r, "index");
    st->index[at] = oc_json_is_integer(idx) ? idx->valuedouble : NAN;
    st->at[at] = at;
    st->count = at + 1;
  }
  cJSON_Delete(r);
  return rc;
}

/* An empty store, safe to free before its spool is opened. */
static void store_init(struct render_store *st)
{
  memset(st, 0, sizeof(*st));
  oc_buf_init(&st->text, 0);
  st->spool.fd = -1;
}

static void store_free(struct render_store *st)
{
  oc_spool_close(&st->spool);
  free(st->refs);
  free(st->at);
  free(st->index);
  oc_buf_free(&st->text);
  while(st->kept) {
    struct kept_block *next = st->kept->next;
    free(st->kept);
    st->kept = next;
  }
}

/* The counts, then a line per case that failed or erred (its first
 * failing rule or its reason), from results read one at a time; the
 * cases never sent (an unreachable target's) last, a line per target:
 * one connection error 53 times buried the real failures. */
static void print_summary(struct oc_results *rs)
{
  struct oc_counts c;
  oc_results_counts(rs, NULL, NULL, &c);
  /* pass, fail, error and skip are the statuses' names; the nouns agree */
  printf("%ld case%s: %ld pass, %ld fail, %ld error, %ld skip, %ld warning%s\n", c.total,
         c.total == 1 ? "" : "s", c.pass, c.fail, c.error, c.skip, c.warnings, c.warnings == 1 ? "" : "s");
  struct oc_buf line;
  oc_buf_init(&line, OC_CAP_MESSAGE * 4);
  for(size_t i = 0; i < rs->count; i++) {
    enum oc_status st = rs->refs[i].status;
    if(st == OC_ST_PASS || st == OC_ST_SKIP || (rs->refs[i].flags & OC_REF_NOT_RUN))
      continue;
    char err[700];
    const cJSON *r = oc_results_get(rs, i, err, sizeof(err));
    if(!r) {
      fprintf(stderr, "oacheck report: %s\n", err);
      continue;
    }
    oc_buf_reset(&line);
    const cJSON *first = oc_result_first_error(r);
    const char *why = st == OC_ST_FAIL && first ? oc_json_str(first, "rule") : oc_json_str(r, "reason");
    if(oc_buf_printf(&line, "%-5s ", oc_status_name(st)) ||
       oc_esc_addn_cut(&line, oc_json_str(r, "target"), 200, OC_ESC_TEXT) || oc_buf_addc(&line, '.') ||
       oc_esc_addn_cut(&line, oc_json_str(r, "suite"), 200, OC_ESC_TEXT) || oc_buf_addc(&line, '/') ||
       oc_esc_addn_cut(&line, oc_json_str(r, "case"), 200, OC_ESC_TEXT) ||
       (why && (oc_buf_adds(&line, "  ") || oc_esc_addn_cut(&line, why, 300, OC_ESC_TEXT))))
      continue; /* the next reset clears the error */
    printf("%s\n", oc_buf_str(&line));
  }
  struct oc_not_run *g = NULL;
  size_t ng = 0;
  if(oc_results_not_run(rs, &g, &ng))
    fprintf(stderr, "oacheck report: out of memory counting the cases not run\n");
  struct oc_buf why;
  oc_buf_init(&why, OC_CAP_MESSAGE * 4);
  for(size_t k = 0; k < ng; k++) {
    char err[700];
    const cJSON *r = oc_results_get(rs, g[k].first, err, sizeof(err));
    if(!r) {
      fprintf(stderr, "oacheck report: %s\n", err);
      continue;
    }
    oc_buf_reset(&line);
    oc_buf_reset(&why);
    if(oc_not_run_text(&why, &g[k], oc_json_str(r, "reason")) ||
       oc_buf_printf(&line, "%-5s ", oc_status_name(rs->refs[g[k].first].status)) ||
       oc_esc_addn_cut(&line, g[k].target, 200, OC_ESC_TEXT) || oc_buf_adds(&line, "  ") ||
       oc_esc_addn_cut(&line, oc_buf_str(&why), 300, OC_ESC_TEXT))
      continue;
    printf("%s\n", oc_buf_str(&line));
  }
  oc_buf_free(&why);
  free(g);
  oc_buf_free(&line);
}

/* --canonical from results read one at a time: the frame canonical with a
 * marker where "results" goes (members sorted, so it is not last), each
 * result's canonical text written in its place. */
static int canonical_render(struct oc_results *rs, struct oc_sink *s)
{
  static const char marker[] = "oacheck-results-go-here-7f3a";
  cJSON *copy = cJSON_Duplicate(rs->doc, 1);
  int oom = !copy;
  oc_json_set(&oom, copy, "results", cJSON_CreateString(marker));
  int rc = oom ? OC_ENOMEM : OC_OK;
  char *frame = rc ? NULL : oc_json_canonical(copy);
  cJSON_Delete(copy);
  char quoted[sizeof(marker) + 2];
  snprintf(quoted, sizeof(quoted), "\"%s\"", marker);
  const char *at = frame ? strstr(frame, quoted) : NULL;
  if(!at)
    rc = OC_ENOMEM;
  char err[700];
  if(!rc)
    rc = oc_buf_add(s->b, frame, (size_t)(at - frame)) || oc_buf_addc(s->b, '[');
  for(size_t i = 0; !rc && i < rs->count; i++) {
    const cJSON *r = oc_results_get(rs, i, err, sizeof(err));
    char *t = r ? oc_json_canonical(r) : NULL;
    if(!r)
      fprintf(stderr, "oacheck report: %s\n", err);
    rc = !t || (i && oc_buf_addc(s->b, ',')) || oc_buf_adds(s->b, t) ? OC_ENOMEM : oc_sink_flush(s);
    free(t);
  }
  if(!rc)
    rc = oc_buf_addc(s->b, ']') || oc_buf_adds(s->b, at + strlen(quoted)) || oc_buf_addc(s->b, '\n');
  free(frame);
  return rc ? rc : oc_buf_error(s->b);
}

/* The outputs of render, from results read one at a time. */
static int write_outputs_of(struct oc_results *rs, const struct outputs *out)
{
  int status = OC_EXIT_OK;
  struct oc_ci_args ci = out->ci;
  ci.stdout_report = oc_streq(out->json, "-") || oc_streq(out->junit, "-") || oc_streq(out->html, "-");
  /* a report on stdout has it alone: the annotations and the "wrote"
   * lines go to stderr (oc_stdout_to_report) */
  const struct oc_report_args ra = { out->json, out->junit, out->html };
  if(oc_cli_reports_take_stdout("report", &ra, ci.markdown))
    return OC_EXIT_FAIL;
  if(out->json && out->canonical) {
    char err[1024];
    struct oc_sink s;
    if(oc_sink_open(&s, out->json, err, sizeof(err)) ||
       oc_sink_close(&s, canonical_render(rs, &s), err, sizeof(err))) {
      fprintf(stderr, "oacheck report: %s\n", err);
      status = OC_EXIT_FAIL;
    }
  }
  if(oc_reports_write_from(rs, out->canonical ? NULL : out->json, out->junit, out->html))
    status = OC_EXIT_FAIL;
  if(oc_ci_reports_write_from(rs, &ci, stdout, real_getenv))
    status = OC_EXIT_FAIL;
  return status;
}

static int cmd_render(int argc, char **argv)
{
  struct outputs out = { 0 };
  struct oc_strlist inputs = { NULL, 0, 0 };
  const struct oc_option options[] = {
    OUTPUT_OPTIONS(&out),
    OC_OPT_STRING(0, "json", &out.json, "FILE", "the results again (checked), pretty-printed"),
    OC_OPT_END(),
  };
  const struct oc_cli cli = { "report render", render_usage, render_footer, options };
  int prc = oc_cli_parse(&cli, argc, argv, &inputs);
  const char *input = inputs.n ? inputs.items[0] : NULL;
  size_t ninputs = inputs.n;
  const char *second = inputs.n > 1 ? inputs.items[1] : NULL;
  oc_strlist_free(&inputs);
  if(prc >= 0)
    return prc;
  if(ninputs > 1)
    return oc_cli_usage_error("report render", "one results file at a time ('%s' and '%s'); "
                                               "use 'report merge' to combine", input, second);
  if(!input)
    return oc_cli_usage_error("report render", "which results file?");
  /* a result at a time into a spool beside the output, so that a file
   * of any size renders in the memory of one result */
  char err[1024], dirbuf[600];
  struct render_store st;
  store_init(&st);
  const char *dir = oc_spool_dir_for(out.json ? out.json : out.html ? out.html : out.junit, dirbuf,
                                     sizeof(dirbuf));
  if(oc_spool_open(&st.spool, dir, 0, err, sizeof(err))) {
    fprintf(stderr, "oacheck report: %s\n", err);
    store_free(&st);
    return OC_EXIT_FAIL;
  }
  cJSON *frame = NULL;
  if(oc_results_load_each(input, store_result, &st, &frame, err, sizeof(err))) {
    fprintf(stderr, "oacheck report: %s\n", err);
    store_free(&st);
    return OC_EXIT_USAGE;
  }
  struct oc_results rs;
  oc_results_from_spool(&rs, frame, &st.spool, st.refs, st.at, st.count);
  st.refs = NULL; /* rs has them */
  st.at = NULL;
  int status;
  say_shards(frame, "warning");
  if(!out.junit && !out.html && !out.json && !out.ci.github && !out.ci.markdown) {
    print_summary(&rs);
    status = OC_EXIT_OK;
  }
  else
    status = write_outputs_of(&rs, &out);
  oc_results_free(&rs);
  store_free(&st);
  cJSON_Delete(frame);
  return status;
}

/* Merge: every input read a result at a time into one store (the
 * spool), merged by key (oc_results_merge_frame), counted again and
 * written from the spool in the merged order. */
static int cmd_merge(int argc, char **argv)
{
  struct outputs out = { 0 };
  struct oc_strlist inputs = { NULL, 0, 0 };
  cJSON **frames = NULL;
  cJSON *merged = NULL;
  struct oc_merge_item *items = NULL;
  size_t *order = NULL, kept = 0, n = 0;
  struct oc_result_ref *refs = NULL;
  size_t *at = NULL;
  struct render_store st;
  store_init(&st);
  int status = OC_EXIT_OK;
  const struct oc_option options[] = {
    OC_OPT_STRING('o', "output", &out.json, "FILE", "the merged JSON results ('-': stdout, the default)"),
    OUTPUT_OPTIONS(&out),
    OC_OPT_END(),
  };
  const struct oc_cli cli = { "report merge", merge_usage, merge_footer, options };
  int prc = oc_cli_parse(&cli, argc, argv, &inputs);
  if(prc >= 0) {
    status = prc;
    goto out;
  }
  if(!inputs.n) {
    status = oc_cli_usage_error("report merge", "which results files?");
    goto out;
  }
  n = inputs.n;
  if(!out.json)
    out.json = "-";
  if(out.ci.github && strcmp(out.json, "-") == 0) {
    status = oc_cli_usage_error("report merge", "--github prints workflow commands on stdout: "
                                                "write the merged results with -o FILE");
    goto out;
  }
  char err[1024], dirbuf[600];
  frames = calloc(n, sizeof(*frames));
  if(!frames) {
    fprintf(stderr, "oacheck report: out of memory\n");
    status = OC_EXIT_FAIL;
    goto out;
  }
  if(oc_spool_open(&st.spool, oc_spool_dir_for(out.json, dirbuf, sizeof(dirbuf)), 0, err, sizeof(err))) {
    fprintf(stderr, "oacheck report: %s\n", err);
    status = OC_EXIT_FAIL;
    goto out;
  }
  for(size_t k = 0; k < n; k++) {
    if(oc_results_load_each(inputs.items[k], store_result, &st, &frames[k], err, sizeof(err))) {
      fprintf(stderr, "oacheck report: %s\n", err);
      status = OC_EXIT_USAGE;
      goto out;
    }
  }
  items = calloc(st.count ? st.count : 1, sizeof(*items));
  if(!items) {
    fprintf(stderr, "oacheck report: out of memory\n");
    status = OC_EXIT_FAIL;
    goto out;
  }
  for(size_t i = 0; i < st.count; i++)
    items[i] = (struct oc_merge_item){ st.refs[i].target, st.refs[i].suite, st.refs[i].kase, st.index[i] };
  merged = oc_results_merge_frame((const cJSON *const *)frames, n, items, st.count, &order, &kept, err,
                                  sizeof(err));
  refs = merged ? calloc(kept ? kept : 1, sizeof(*refs)) : NULL;
  at = refs ? calloc(kept ? kept : 1, sizeof(*at)) : NULL;
  if(!at) {
    fprintf(stderr, "oacheck report: %s\n", merged ? "out of memory" : err);
    status = OC_EXIT_FAIL;
    goto out;
  }
  /* said here rather than by the merge, in the prefix of every other line
   * report merge writes */
  if(kept < st.count)
    fprintf(stderr, "oacheck report: warning: %zu duplicate case result%s; the later input wins\n",
            st.count - kept, st.count - kept == 1 ? "" : "s");
  /* the summary counted again over what was kept, read back one at a time */
  struct oc_summary sum;
  oc_summary_init(&sum);
  for(size_t j = 0; j < kept; j++) {
    refs[j] = st.refs[order[j]];
    at[j] = order[j];
    cJSON *r = oc_spool_get(&st.spool, order[j], err, sizeof(err));
    if(!r) {
      sum.oom = 1;
      break;
    }
    oc_summary_add(&sum, r);
    cJSON_Delete(r);
  }
  int oom = sum.oom;
  cJSON *summary = oom ? NULL
                       : oc_summary_json(&sum, oc_json_num(oc_json_obj(merged, "summary"), "duration_ms", -1));
  oc_summary_free(&sum);
  oc_json_set(&oom, merged, "summary", summary);
  if(oom) {
    fprintf(stderr, "oacheck report: cannot merge results: out of memory\n");
    status = OC_EXIT_FAIL;
    goto out;
  }
  struct oc_results rs;
  oc_results_from_spool(&rs, merged, &st.spool, refs, at, kept);
  refs = NULL; /* rs has them */
  at = NULL;
  status = write_outputs_of(&rs, &out);
  oc_results_free(&rs);
  /* everything is written all the same: the reports show the gap too */
  if(say_shards(merged, "error"))
    status = OC_EXIT_FAIL;
out:
  for(size_t k = 0; frames && k < n; k++)
    cJSON_Delete(frames[k]);
  free(frames);
  cJSON_Delete(merged);
  free(items);
  free(order);
  free(refs);
  free(at);
  store_free(&st);
  oc_strlist_free(&inputs);
  return status;
}

static int cmd_diff(int argc, char **argv)
{
  struct oc_strlist args = { NULL, 0, 0 };
  int as_json = 0;
  const struct oc_option options[] = {
    OC_OPT_FLAG(0, "json", &as_json, "print the differences as JSON instead of text"),
    OC_OPT_END(),
  };
  const struct oc_cli cli = { "report diff", diff_usage, diff_footer, options };
  int prc = oc_cli_parse(&cli, argc, argv, &args);
  const char *files[2] = { args.n > 0 ? args.items[0] : NULL, args.n > 1 ? args.items[1] : NULL };
  size_t nfiles = args.n;
  oc_strlist_free(&args);
  if(prc >= 0)
    return prc;
  if(nfiles != 2)
    return oc_cli_usage_error("report diff", "needs OLD.json and NEW.json");
  char err[1024];
  cJSON *frames[2] = { NULL, NULL }, *machine = NULL;
  struct oc_buf human;
  oc_buf_init(&human, OC_CAP_REPORT);
  int status = OC_EXIT_USAGE;
  /* each side read a result at a time into its own spool */
  struct render_store st[2];
  struct oc_results rs[2];
  int have_rs = 0;
  for(int k = 0; k < 2; k++)
    store_init(&st[k]);
  for(int k = 0; k < 2; k++) {
    if(oc_spool_open(&st[k].spool, NULL, 0, err, sizeof(err)) ||
       oc_results_load_each(files[k], store_result, &st[k], &frames[k], err, sizeof(err))) {
      fprintf(stderr, "oacheck report: %s\n", err);
      goto out;
    }
  }
  for(int k = 0; k < 2; k++) {
    oc_results_from_spool(&rs[k], frames[k], &st[k].spool, st[k].refs, st[k].at, st[k].count);
    st[k].refs = NULL; /* rs has them */
    st[k].at = NULL;
  }
  have_rs = 1;
  int failing = oc_results_diff_of(&rs[0], &rs[1], as_json ? NULL : &human, as_json ? &machine : NULL);
  if(failing < 0) {
    fprintf(stderr, "oacheck report: cannot compare '%s' and '%s': %s\n", files[0], files[1],
            failing == -OC_ENOMEM ? "out of memory" : "a result could not be read back");
    status = OC_EXIT_USAGE;
    goto out;
  }
  if(as_json) {
    if(!cJSON_AddStringToObject(machine, "old", files[0]) ||
       !cJSON_AddStringToObject(machine, "new", files[1])) {
      fprintf(stderr, "oacheck report: out of memory\n");
      goto out;
    }
    char *text = oc_json_print_pretty(machine);
    if(!text) {
      fprintf(stderr, "oacheck report: out of memory\n");
      goto out;
    }
    printf("%s\n", text);
    free(text);
  }
  else {
    struct oc_buf head;
    oc_buf_init(&head, OC_CAP_MESSAGE * 4);
    if(!oc_buf_adds(&head, "oacheck report diff ") &&
       !oc_esc_addn_cut(&head, files[0], 1000, OC_ESC_TEXT) && !oc_buf_adds(&head, " -> ") &&
       !oc_esc_addn_cut(&head, files[1], 1000, OC_ESC_TEXT))
      printf("%s\n", oc_buf_str(&head));
    oc_buf_free(&head);
    fputs(oc_buf_str(&human), stdout);
  }
  if(fflush(stdout)) {
    fprintf(stderr, "oacheck report: cannot write to stdout\n");
    goto out;
  }
  status = failing > 0 ? OC_EXIT_FAIL : OC_EXIT_OK;
out:
  oc_buf_free(&human);
  cJSON_Delete(machine);
  for(int k = 0; k < 2; k++) {
    if(have_rs)
      oc_results_free(&rs[k]);
    store_free(&st[k]);
    cJSON_Delete(frames[k]);
  }
  return status;
}

/* history's reader: each result pruned to what the history reads, kept */
static int keep_pruned(void *ud, cJSON *r, size_t i, char *err, size_t errlen)
{
  oc_history_prune_result(r);
  if(oc_json_add(ud, NULL, r)) {
    snprintf(err, errlen, "out of memory keeping result %zu", i);
    return OC_ENOMEM;
  }
  return OC_OK;
}

/* RESULTS files named by path (a DIR's *.json, sorted by name) into paths;
 * each a new string. */
static int history_paths(const char *arg, struct oc_strlist *owned, int *is_dir)
{
  *is_dir = oc_is_dir(arg);
  if(!*is_dir)
    return oc_strlist_add(owned, oc_strdup(arg));
  DIR *d = opendir(arg);
  if(!d)
    return OC_EIO;
  size_t first = owned->n;
  struct dirent *e;
  int rc = OC_OK;
  while(!rc && (e = readdir(d)))
    if(e->d_name[0] != '.' && oc_endswith(e->d_name, ".json")) {
      char *p = oc_path_join(arg, e->d_name);
      rc = p ? oc_strlist_add(owned, p) : OC_ENOMEM;
      if(rc)
        free(p);
    }
  closedir(d);
  if(!rc && owned->n > first)
    qsort(owned->items + first, owned->n - first, sizeof(*owned->items), str_cmp);
  return rc;
}

static int cmd_history(int argc, char **argv)
{
  struct oc_strlist args = { NULL, 0, 0 }, paths = { NULL, 0, 0 };
  const char *json = NULL, *html = NULL;
  cJSON **docs = NULL, *hist = NULL;
  const char **names = NULL;
  size_t n = 0;
  int status = OC_EXIT_USAGE;
  char err[1024];
  struct oc_buf text;
  oc_buf_init(&text, OC_CAP_REPORT);
  const struct oc_option options[] = {
    OC_OPT_STRING(0, "json", &json, "FILE", "the whole history as JSON (schemas/history.schema.json)"),
    OC_OPT_STRING(0, "html", &html, "FILE",
                  "one self-contained HTML page: a timeline per target and\n"
                  "TTFT, ITL and tokens/s charts, inline SVG, no script"),
    OC_OPT_END(),
  };
  const struct oc_cli cli = { "report history", history_usage, history_footer, options };
  int prc = oc_cli_parse(&cli, argc, argv, &args);
  if(prc >= 0) {
    status = prc;
    goto out;
  }
  if(!args.n) {
    status = oc_cli_usage_error("report history", "which folder of results?");
    goto out;
  }
  const struct oc_report_args ra = { json, NULL, html };
  if(oc_cli_reports_take_stdout("report history", &ra, NULL)) {
    status = OC_EXIT_FAIL;
    goto out;
  }
  for(size_t i = 0; i < args.n; i++) {
    int is_dir = 0;
    size_t before = paths.n;
    int rc = history_paths(args.items[i], &paths, &is_dir);
    if(rc) {
      fprintf(stderr, "oacheck report: cannot read '%s': %s\n", args.items[i],
              rc == OC_ENOMEM ? "out of memory" : strerror(errno));
      goto out;
    }
    if(is_dir && paths.n == before)
      fprintf(stderr, "oacheck report: warning: '%s' holds no *.json file\n", args.items[i]);
  }
  docs = calloc(paths.n + 1, sizeof(*docs));
  names = calloc(paths.n + 1, sizeof(*names));
  if(!docs || !names) {
    fprintf(stderr, "oacheck report: out of memory\n");
    goto out;
  }
  /* a file named twice (itself and in its folder) is one run */
  char **real = calloc(paths.n + 1, sizeof(*real));
  if(!real) {
    fprintf(stderr, "oacheck report: out of memory\n");
    goto out;
  }
  for(size_t k = 0; k < paths.n; k++)
    real[k] = realpath(paths.items[k], NULL);
  for(size_t k = 0; k < paths.n; k++) {
    int dup = 0;
    for(size_t j = 0; j < k && real[k] && !dup; j++)
      dup = real[j] && strcmp(real[j], real[k]) == 0;
    if(dup)
      continue;
    /* a result at a time, pruned as it comes: a big night costs what
     * the history keeps of it */
    cJSON *pruned = cJSON_CreateArray();
    cJSON *doc = NULL;
    if(pruned)
      oc_results_load_each(paths.items[k], keep_pruned, pruned, &doc, err, sizeof(err));
    if(!pruned)
      snprintf(err, sizeof(err), "out of memory");
    if(doc) {
      int oom = 0;
      oc_json_set(&oom, doc, "results", pruned);
      pruned = NULL;
      if(oom) {
        cJSON_Delete(doc);
        doc = NULL;
        snprintf(err, sizeof(err), "%s: out of memory", paths.items[k]);
      }
    }
    cJSON_Delete(pruned);
    if(!doc) {
      /* JSON that is not results at all (a diff, a history) is skipped */
      char e2[256];
      cJSON *any = oc_json_parse_file(paths.items[k], e2, sizeof(e2));
      int foreign = any && !oc_json_obj(any, "oacheck");
      cJSON_Delete(any);
      if(foreign) {
        fprintf(stderr, "oacheck report: warning: '%s' is not results (no \"oacheck\" member): skipped\n",
                paths.items[k]);
        continue;
      }
      fprintf(stderr, "oacheck report: %s\n", err);
      for(size_t j = 0; j < paths.n; j++)
        free(real[j]);
      free(real);
      goto out;
    }
    docs[n] = doc;
    names[n++] = paths.items[k];
  }
  for(size_t j = 0; j < paths.n; j++)
    free(real[j]);
  free(real);
  if(!n) {
    fprintf(stderr, "oacheck report: no results to make a history of\n");
    goto out;
  }
  hist = oc_history_build((const cJSON *const *)docs, names, n, err, sizeof(err));
  if(!hist || oc_history_text(hist, &text)) {
    fprintf(stderr, "oacheck report: %s\n", hist ? "out of memory" : err);
    status = OC_EXIT_FAIL;
    goto out;
  }
  fputs(oc_buf_str(&text), stdout);
  status = OC_EXIT_OK;
  if(json && write_json(hist, json, 0))
    status = OC_EXIT_FAIL;
  if(html) {
    struct oc_buf page;
    oc_buf_init(&page, OC_CAP_REPORT);
    if(oc_history_html(hist, NULL, &page, err, sizeof(err)) ||
       oc_secret_write_file(html, page.data ? page.data : "", page.len, err, sizeof(err))) {
      fprintf(stderr, "oacheck report: cannot write '%s': %s\n", html, err);
      status = OC_EXIT_FAIL;
    }
    oc_buf_free(&page);
  }
out:
  for(size_t k = 0; docs && k < n; k++)
    cJSON_Delete(docs[k]);
  free(docs);
  free(names);
  cJSON_Delete(hist);
  for(size_t k = 0; k < paths.n; k++)
    free((char *)paths.items[k]);
  oc_strlist_free(&paths);
  oc_strlist_free(&args);
  oc_buf_free(&text);
  return status;
}

int oc_cmd_report(int argc, char **argv)
{
  /* a results file holds what a server said: the key of this environment
   * is masked out of whatever is made of it (results_json.c, the writers) */
  oc_secret_add_env("OPENAI_API_KEY");
  if(argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
    fputs(report_usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? OC_EXIT_USAGE : OC_EXIT_OK;
  }
  if(strcmp(argv[1], "render") == 0)
    return cmd_render(argc - 1, argv + 1);
  if(strcmp(argv[1], "merge") == 0)
    return cmd_merge(argc - 1, argv + 1);
  if(strcmp(argv[1], "diff") == 0)
    return cmd_diff(argc - 1, argv + 1);
  if(strcmp(argv[1], "history") == 0)
    return cmd_history(argc - 1, argv + 1);
  return oc_cli_usage_error("report", "unknown verb '%s' (render, merge, diff or history)", argv[1]);
}
