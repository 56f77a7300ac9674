/* cmd_report.c — `oacheck report render|merge|diff`: reports from JSON
 * results after the run, shards merged into one run, and what changed
 * between two runs.  Reading/checking results is results_json.c's, the
 * writers are report_junit.c and report_html.c, merge and diff
 * report_merge.c; this file parses options and picks exit codes. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "report_html.h"
#include "report_junit.h"
#include "report_merge.h"
#include "results_json.h"
#include "secret.h"
#include "util.h"

static const char report_usage[] =
  "Usage: oacheck report render RESULTS.json [--junit FILE] [--html FILE] [--json FILE]\n"
  "       oacheck report merge RESULTS.json... -o FILE [--junit FILE] [--html FILE]\n"
  "       oacheck report diff OLD.json NEW.json [--json]\n"
  "Reports from JSON results (the output of 'oacheck run --json').\n"
  "\n"
  "  render  write JUnit XML, a self-contained HTML report or the JSON again;\n"
  "          with no output option, print a summary\n"
  "  merge   combine results of shards (--shard K/N) or of several targets\n"
  "  diff    what changed between two runs; exit 1 when a case newly fails\n"
  "\n"
  "'oacheck report VERB --help' describes a verb.\n"
  "Exit status: 0 done, 1 an output could not be written (diff: a case newly\n"
  "fails), 2 usage error or an input that cannot be read or is not results.\n";

static const char render_usage[] =
  "Usage: oacheck report render RESULTS.json [--junit FILE] [--html FILE] [--json FILE]\n"
  "Render reports from JSON results; the files are the same as 'oacheck run'\n"
  "writes with the same options.  '-' reads stdin or writes stdout.\n"
  "\n"
  "  --junit FILE   JUnit XML: one testsuite per target and suite, one testcase\n"
  "                 per case (Jenkins, GitLab, GitHub test reporters)\n"
  "  --html FILE    one self-contained HTML file: summary, case x target matrix,\n"
  "                 findings, request/response, stream timeline, reproduce commands\n"
  "  --json FILE    the results again (checked), pretty-printed\n"
  "  --canonical    write --json in canonical form (members sorted, no spaces),\n"
  "                 so that two results files compare with cmp\n"
  "  -h, --help     show this help\n"
  "\n"
  "With no output option, prints the counts and the failing cases.\n"
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
  "and oacheck.merged_from says how many files were combined.\n"
  "\n"
  "  -o, --output FILE  the merged JSON results ('-': stdout, the default)\n"
  "  --junit FILE       also write JUnit XML of the merged results\n"
  "  --html FILE        also write the HTML report of the merged results\n"
  "  --canonical        write the JSON in canonical form\n"
  "  -h, --help         show this help\n"
  "\n"
  "Exit status: 0 written, 1 a file could not be written, 2 usage error or an\n"
  "input cannot be read or is not valid results.\n";

static const char diff_usage[] =
  "Usage: oacheck report diff OLD.json NEW.json [--json]\n"
  "Compare two runs (\"what changed since yesterday\"): cases newly failing,\n"
  "newly passing, with another status, with changed findings, new and removed.\n"
  "Cases are matched by target + suite + case, findings by rule + JSON\n"
  "pointer + where (chunk, byte).\n"
  "\n"
  "  --json      print the differences as JSON instead of text\n"
  "  -h, --help  show this help\n"
  "\n"
  "Exit status: 0 no case newly fails, 1 at least one does, 2 usage error or\n"
  "an input cannot be read or is not valid results.\n";

static int is_help(const char *a)
{
  return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0;
}

/* "--opt VALUE" or "--opt=VALUE"; advances *i.  NULL when not this option;
 * *missing set when the value is absent. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, int *missing)
{
  const char *a = argv[*i];
  size_t n = strlen(name);
  if(strncmp(a, name, n) != 0)
    return NULL;
  if(a[n] == '=')
    return a + n + 1;
  if(a[n] != '\0')
    return NULL;
  if(*i + 1 >= argc) {
    *missing = 1;
    return NULL;
  }
  return argv[++*i];
}

static int write_json(const cJSON *doc, const char *path, int canonical)
{
  char err[1024];
  char *text = canonical ? oc_json_canonical(doc) : cJSON_Print(doc);
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_REPORT);
  int rc = text ? oc_buf_adds(&b, text) : OC_ENOMEM;
  if(!rc)
    rc = oc_buf_addc(&b, '\n');
  free(text);
  if(rc) {
    fprintf(stderr, "oacheck report: cannot write '%s': %s\n", path,
            rc == OC_ETOOBIG ? "larger than the report cap" : "out of memory");
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
};

static int write_outputs(const cJSON *doc, const struct outputs *out)
{
  char err[1024];
  int status = OC_EXIT_OK;
  if(out->json && write_json(doc, out->json, out->canonical))
    status = OC_EXIT_FAIL;
  if(out->junit && oc_report_junit_write(doc, out->junit, err, sizeof(err))) {
    fprintf(stderr, "oacheck report: %s\n", err);
    status = OC_EXIT_FAIL;
  }
  if(out->html && oc_report_html_write(doc, out->html, err, sizeof(err))) {
    fprintf(stderr, "oacheck report: %s\n", err);
    status = OC_EXIT_FAIL;
  }
  return status;
}

static void print_summary(const cJSON *doc)
{
  struct oc_counts c;
  oc_results_count(doc, NULL, NULL, &c);
  printf("%ld cases: %ld pass, %ld fail, %ld error, %ld skip, %ld warnings\n", c.total, c.pass,
         c.fail, c.error, c.skip, c.warnings);
  const cJSON *r;
  struct oc_buf line;
  oc_buf_init(&line, OC_CAP_MESSAGE * 4);
  cJSON_ArrayForEach(r, oc_json_arr(doc, "results")) {
    enum oc_status st = oc_result_status(r);
    if(st == OC_ST_PASS || st == OC_ST_SKIP)
      continue;
    oc_buf_reset(&line);
    const cJSON *first = oc_result_first_error(r);
    const char *why = st == OC_ST_FAIL && first ? oc_json_str(first, "rule") : oc_json_str(r, "reason");
    if(oc_buf_printf(&line, "%-5s ", oc_status_name(st)) ||
       oc_esc_addn_cut(&line, oc_json_str(r, "target"), 200, OC_ESC_TEXT) || oc_buf_addc(&line, '.') ||
       oc_esc_addn_cut(&line, oc_json_str(r, "suite"), 200, OC_ESC_TEXT) || oc_buf_addc(&line, '/') ||
       oc_esc_addn_cut(&line, oc_json_str(r, "case"), 200, OC_ESC_TEXT) ||
       (why && (oc_buf_adds(&line, "  ") || oc_esc_addn_cut(&line, why, 300, OC_ESC_TEXT)))) {
      oc_buf_init(&line, OC_CAP_MESSAGE * 4);
      continue;
    }
    printf("%s\n", oc_buf_str(&line));
  }
  oc_buf_free(&line);
}

static int parse_outputs(const char *verb, int argc, char **argv, int *i, struct outputs *out,
                         int allow_json, int *handled)
{
  int missing = 0;
  const char *v;
  *handled = 1;
  if((v = opt_value(argc, argv, i, "--junit", &missing)))
    out->junit = v;
  else if((v = opt_value(argc, argv, i, "--html", &missing)))
    out->html = v;
  else if(allow_json && (v = opt_value(argc, argv, i, "--json", &missing)))
    out->json = v;
  else if(strcmp(argv[*i], "--canonical") == 0)
    out->canonical = 1;
  else
    *handled = 0;
  if(missing)
    return oc_cli_usage_error("report", "%s: option '%s' needs a file name", verb, argv[*i]);
  return OC_EXIT_OK;
}

static int cmd_render(int argc, char **argv)
{
  struct outputs out = { 0 };
  const char *input = NULL;
  for(int i = 1; i < argc; i++) {
    if(is_help(argv[i])) {
      fputs(render_usage, stdout);
      return OC_EXIT_OK;
    }
    int handled, rc = parse_outputs("render", argc, argv, &i, &out, 1, &handled);
    if(rc)
      return rc;
    if(handled)
      continue;
    if(argv[i][0] == '-' && argv[i][1])
      return oc_cli_usage_error("report", "render: unknown option '%s'", argv[i]);
    if(input)
      return oc_cli_usage_error("report", "render: one results file at a time ('%s' and '%s'); "
                                          "use 'report merge' to combine", input, argv[i]);
    input = argv[i];
  }
  if(!input)
    return oc_cli_usage_error("report", "render: which results file?");
  char err[1024];
  cJSON *doc = oc_results_load(input, err, sizeof(err));
  if(!doc) {
    fprintf(stderr, "oacheck report: %s\n", err);
    return OC_EXIT_USAGE;
  }
  int status;
  if(!out.junit && !out.html && !out.json) {
    print_summary(doc);
    status = OC_EXIT_OK;
  }
  else
    status = write_outputs(doc, &out);
  cJSON_Delete(doc);
  return status;
}

static int cmd_merge(int argc, char **argv)
{
  struct outputs out = { 0 };
  const char **inputs = calloc((size_t)argc, sizeof(*inputs));
  cJSON **docs = calloc((size_t)argc, sizeof(*docs));
  cJSON *merged = NULL;
  size_t n = 0;
  int status = OC_EXIT_OK;
  if(!inputs || !docs) {
    fprintf(stderr, "oacheck report: out of memory\n");
    status = OC_EXIT_FAIL;
    goto out;
  }
  for(int i = 1; i < argc; i++) {
    if(is_help(argv[i])) {
      fputs(merge_usage, stdout);
      goto out;
    }
    int missing = 0, handled;
    const char *v;
    if((v = opt_value(argc, argv, &i, "--output", &missing)) ||
       (!missing && (v = opt_value(argc, argv, &i, "-o", &missing)))) {
      out.json = v;
      continue;
    }
    if(missing) {
      status = oc_cli_usage_error("report", "merge: option '%s' needs a file name", argv[i]);
      goto out;
    }
    if((status = parse_outputs("merge", argc, argv, &i, &out, 0, &handled)))
      goto out;
    if(handled)
      continue;
    if(argv[i][0] == '-' && argv[i][1]) {
      status = oc_cli_usage_error("report", "merge: unknown option '%s'", argv[i]);
      goto out;
    }
    inputs[n++] = argv[i];
  }
  if(!n) {
    status = oc_cli_usage_error("report", "merge: which results files?");
    goto out;
  }
  if(!out.json)
    out.json = "-";
  char err[1024];
  for(size_t k = 0; k < n; k++) {
    docs[k] = oc_results_load(inputs[k], err, sizeof(err));
    if(!docs[k]) {
      fprintf(stderr, "oacheck report: %s\n", err);
      status = OC_EXIT_USAGE;
      goto out;
    }
  }
  merged = oc_results_merge((const cJSON *const *)docs, n, err, sizeof(err));
  if(!merged) {
    fprintf(stderr, "oacheck report: %s\n", err);
    status = OC_EXIT_FAIL;
    goto out;
  }
  status = write_outputs(merged, &out);
out:
  for(size_t k = 0; docs && k < n; k++)
    cJSON_Delete(docs[k]);
  cJSON_Delete(merged);
  free(docs);
  free(inputs);
  return status;
}

static int cmd_diff(int argc, char **argv)
{
  const char *files[2] = { NULL, NULL };
  int nfiles = 0, as_json = 0;
  for(int i = 1; i < argc; i++) {
    if(is_help(argv[i])) {
      fputs(diff_usage, stdout);
      return OC_EXIT_OK;
    }
    if(strcmp(argv[i], "--json") == 0)
      as_json = 1;
    else if(argv[i][0] == '-' && argv[i][1])
      return oc_cli_usage_error("report", "diff: unknown option '%s'", argv[i]);
    else if(nfiles == 2)
      return oc_cli_usage_error("report", "diff: two results files, OLD and NEW ('%s' is a third)", argv[i]);
    else
      files[nfiles++] = argv[i];
  }
  if(nfiles != 2)
    return oc_cli_usage_error("report", "diff: needs OLD.json and NEW.json");
  char err[1024];
  cJSON *old = NULL, *nw = NULL, *machine = NULL;
  struct oc_buf human;
  oc_buf_init(&human, OC_CAP_REPORT);
  int status = OC_EXIT_USAGE;
  if(!(old = oc_results_load(files[0], err, sizeof(err))) ||
     !(nw = oc_results_load(files[1], err, sizeof(err)))) {
    fprintf(stderr, "oacheck report: %s\n", err);
    goto out;
  }
  int failing = oc_results_diff(old, nw, as_json ? NULL : &human, as_json ? &machine : NULL);
  if(failing < 0) {
    fprintf(stderr, "oacheck report: cannot compare '%s' and '%s': out of memory\n", files[0], files[1]);
    status = OC_EXIT_USAGE;
    goto out;
  }
  if(as_json) {
    if(!cJSON_AddStringToObject(machine, "old", files[0]) ||
       !cJSON_AddStringToObject(machine, "new", files[1])) {
      fprintf(stderr, "oacheck report: out of memory\n");
      goto out;
    }
    char *text = cJSON_Print(machine);
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
  cJSON_Delete(old);
  cJSON_Delete(nw);
  return status;
}

int oc_cmd_report(int argc, char **argv)
{
  if(argc < 2 || is_help(argv[1])) {
    fputs(report_usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? OC_EXIT_USAGE : OC_EXIT_OK;
  }
  if(strcmp(argv[1], "render") == 0)
    return cmd_render(argc - 1, argv + 1);
  if(strcmp(argv[1], "merge") == 0)
    return cmd_merge(argc - 1, argv + 1);
  if(strcmp(argv[1], "diff") == 0)
    return cmd_diff(argc - 1, argv + 1);
  return oc_cli_usage_error("report", "unknown verb '%s' (render, merge or diff)", argv[1]);
}
