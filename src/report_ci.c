/* report_ci.c — GitHub Actions workflow commands and the Markdown
 * summary.  Formats: GitHub's "Workflow commands for GitHub Actions"
 * (::error file=F,line=L,title=T::MESSAGE; data escapes % CR LF,
 * properties also : and ,) and GitHub-flavoured Markdown for
 * $GITHUB_STEP_SUMMARY.  Text from a results file passes the terminal
 * escaper first (valid UTF-8, controls visible, cut at a length), then
 * the escaping of its medium.  The statuses are the runner's; shard
 * accounting is shard.c's. */
#include "config.h"
#include "report_ci.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "report.h"
#include "reports.h"
#include "results_json.h"
#include "secret.h"

#define OC_CI_FIELD_MAX 600     /* bytes of one message or cell */
#define OC_CI_CAP (1u << 20)    /* GitHub takes at most 1 MiB of summary per step */

/* ---- escaping ------------------------------------------------------------ */

enum medium { WF_DATA, WF_PROP, MD_CELL };

/* s (untrusted, may be NULL) made safe for a terminal and cut at max
 * bytes, then escaped for the medium. */
static int add_esc(struct oc_buf *b, const char *s, size_t max, enum medium m)
{
  if(!s)
    return OC_OK;
  struct oc_buf t;
  oc_buf_init(&t, max * 8 + 64);
  int rc = OC_OK;
  {
    /* the terminal escaper shows CR as \u000D; the workflow rules want it
     * as %0D and Markdown as a space: keep it apart, segment by segment */
    size_t n = strlen(s), cut = n > max ? max : n;
    while(cut < n && cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
      cut--;
    for(size_t at = 0; !rc && at <= cut;) {
      const char *cr = memchr(s + at, '\r', cut - at);
      size_t seg = cr ? (size_t)(cr - (s + at)) : cut - at;
      rc = oc_esc_add(&t, s + at, seg, OC_ESC_TEXT);
      if(!rc && cr)
        rc = oc_buf_addc(&t, '\r');
      at += seg + 1;
    }
    if(!rc && cut < n)
      rc = oc_buf_adds(&t, "\xE2\x80\xA6");
  }
  const char *p = oc_buf_str(&t);
  for(; !rc && *p; p++) {
    char c = *p;
    const char *rep = NULL;
    char one[3] = { '\\', c, '\0' };
    if(m == WF_DATA || m == WF_PROP) {
      if(c == '%')
        rep = "%25";
      else if(c == '\r')
        rep = "%0D";
      else if(c == '\n')
        rep = "%0A";
      else if(m == WF_PROP && c == ':')
        rep = "%3A";
      else if(m == WF_PROP && c == ',')
        rep = "%2C";
    }
    else {
      switch(c) {
      case '&': rep = "&amp;"; break;
      case '<': rep = "&lt;"; break;
      case '>': rep = "&gt;"; break;
      case '@': rep = "&#64;"; break; /* no one gets mentioned */
      case '\n':
      case '\r':
      case '\t': rep = " "; break;
      case '\\': case '`': case '*': case '_': case '[': case ']': case '|':
      case '#': case '~': case '!': case '$':
        rep = one;
        break;
      default: break;
      }
    }
    rc = rep ? oc_buf_adds(b, rep) : oc_buf_addc(b, c);
  }
  oc_buf_free(&t);
  return rc;
}

/* ---- annotations ---------------------------------------------------------- */

#define OC_CI_PATH_SEGS 256 /* segments of a suite file's path; deeper is not annotated */

/* path with empty and "." segments dropped and each ".." taking the one
 * before it off, appended to out; lexical only (the results may be read
 * on another machine than the one that ran): a relative path keeps the
 * ".." that climb above its start, an absolute one stops at "/". */
static int clean_path(struct oc_buf *out, const char *path)
{
  const char *seg[OC_CI_PATH_SEGS];
  size_t len[OC_CI_PATH_SEGS], n = 0, ups = 0;
  int abs = path[0] == '/';
  for(const char *p = path; *p;) {
    if(*p == '/') {
      p++;
      continue;
    }
    size_t l = strcspn(p, "/");
    int dot = l == 1 && p[0] == '.', dotdot = l == 2 && p[0] == '.' && p[1] == '.';
    if(dotdot && n > ups)
      n--; /* the ".." are all in front: the last one is a name */
    else if(!dot && !(dotdot && abs)) {
      if(n == OC_CI_PATH_SEGS)
        return OC_ETOOBIG;
      seg[n] = p;
      len[n++] = l;
      ups += dotdot;
    }
    p += l;
  }
  int rc = abs ? oc_buf_addc(out, '/') : OC_OK;
  for(size_t i = 0; !rc && i < n; i++)
    rc = (i ? oc_buf_addc(out, '/') : OC_OK) || oc_buf_add(out, seg[i], len[i]) ? OC_ETOOBIG : OC_OK;
  return rc ? rc : oc_buf_error(out);
}

/* The suite file as GitHub can show it, into t: relative to the
 * repository's root, which GitHub resolves file= against.  With a
 * workspace ($GITHUB_WORKSPACE, the root) a relative file is taken from
 * cwd (where oacheck runs: a step's working-directory may be below the
 * root) and must end up under the workspace.  Without one, cwd is taken
 * for the root, as it is in a step by default: a relative path that stays
 * inside it is kept, one that climbs out of it ("../s/env.json") or an
 * absolute one is not known to be in the repository.  NULL then: no
 * file= rather than one GitHub cannot resolve, or resolves to another
 * file. */
static const char *repo_path(struct oc_buf *t, const char *file, const char *workspace,
                             const char *cwd)
{
  if(!file || !*file)
    return NULL;
  if(!workspace || !*workspace) {
    if(file[0] == '/' || clean_path(t, file))
      return NULL;
    const char *p = oc_buf_str(t);
    return *p && !oc_streq(p, "..") && !oc_startswith(p, "../") ? p : NULL;
  }
  /* both made absolute (a relative one from cwd; a relative file with no
   * cwd known from the root), then cleaned, and the file under the root */
  char *root = oc_path_join(cwd, workspace);
  char *full = root ? oc_path_join(cwd ? cwd : root, file) : NULL;
  struct oc_buf w;
  oc_buf_init(&w, 8 * OC_CAP_MESSAGE);
  const char *out = NULL;
  if(full && root[0] == '/' && full[0] == '/' && !clean_path(&w, root) && !clean_path(t, full)) {
    const char *r = oc_buf_str(&w), *p = oc_buf_str(t);
    size_t n = oc_streq(r, "/") ? 0 : w.len;
    if(strncmp(p, r, n) == 0 && p[n] == '/' && p[n + 1])
      out = p + n + 1;
  }
  free(root);
  free(full);
  oc_buf_free(&w);
  return out;
}

static int case_label_of(struct oc_buf *b, const char *target, const char *suite, const char *kase,
                         enum medium m)
{
  int rc = add_esc(b, target, 200, m);
  if(!rc)
    rc = oc_buf_adds(b, m == MD_CELL ? " · " : " ");
  if(!rc)
    rc = add_esc(b, suite, 200, m);
  if(!rc)
    rc = oc_buf_addc(b, '/');
  if(!rc)
    rc = add_esc(b, kase, 200, m);
  return rc;
}

static int case_label(struct oc_buf *b, const cJSON *r, enum medium m)
{
  return case_label_of(b, oc_json_str(r, "target"), oc_json_str(r, "suite"), oc_json_str(r, "case"), m);
}

/* "[error] RULE at chunk 3 (/path): message" for the finding a failure is
 * reported as, else the reason. */
static int why_text(struct oc_buf *t, const cJSON *r)
{
  const cJSON *first = oc_result_status(r) == OC_ST_FAIL ? oc_result_first_error(r) : NULL;
  if(first)
    return oc_finding_text(t, first, NULL);
  const char *reason = oc_json_str(r, "reason");
  return oc_buf_adds(t, reason ? reason : oc_result_status(r) == OC_ST_FAIL ? "failed" : "error");
}

static int annotation(struct oc_buf *b, const cJSON *r, const char *workspace, const char *cwd)
{
  enum oc_status st = oc_result_status(r);
  const cJSON *first = st == OC_ST_FAIL ? oc_result_first_error(r) : NULL;
  const char *title = first && oc_json_str(first, "rule") ? oc_json_str(first, "rule")
                      : st == OC_ST_FAIL                  ? "failed"
                                                          : "error";
  struct oc_buf path;
  oc_buf_init(&path, 8 * OC_CAP_MESSAGE);
  const char *file = repo_path(&path, oc_json_str(r, "suite_file"), workspace, cwd);
  const cJSON *line = oc_json_get(r, "suite_line");
  int rc = oc_buf_adds(b, "::error ");
  if(!rc && file) {
    rc = oc_buf_adds(b, "file=");
    if(!rc)
      rc = add_esc(b, file, 1000, WF_PROP);
    if(!rc && oc_json_is_integer(line) && line->valuedouble >= 1)
      rc = oc_buf_printf(b, ",line=%.0f", line->valuedouble);
    if(!rc)
      rc = oc_buf_addc(b, ',');
  }
  if(!rc)
    rc = oc_buf_adds(b, "title=");
  if(!rc)
    rc = add_esc(b, title, 200, WF_PROP);
  if(!rc)
    rc = oc_buf_adds(b, "::");
  if(!rc)
    rc = case_label(b, r, WF_DATA);
  if(!rc)
    rc = oc_buf_adds(b, st == OC_ST_FAIL ? " failed: " : " errored: ");
  struct oc_buf t;
  oc_buf_init(&t, OC_CAP_MESSAGE * 4);
  if(!rc && !(rc = why_text(&t, r)))
    rc = add_esc(b, oc_buf_str(&t), OC_CI_FIELD_MAX, WF_DATA);
  oc_buf_free(&t);
  oc_buf_free(&path);
  if(!rc)
    rc = oc_buf_addc(b, '\n');
  return rc;
}

/* Result i of rs, borrowed until the next read; NULL (logged) when it
 * cannot be read back. */
static const cJSON *read_result(struct oc_results *rs, size_t i)
{
  char err[700];
  const cJSON *r = oc_results_get(rs, i, err, sizeof(err));
  if(!r)
    oc_error("%s", err);
  return r;
}

/* An unreachable target's cases (oc_results_not_run): one ::error for
 * all of them, with how many and why (its first case's reason, which
 * every case of it shares), after the real failures and outside their
 * cap.  No file: no one case is meant. */
static int not_run_annotations(struct oc_results *rs, struct oc_buf *b)
{
  struct oc_not_run *g;
  size_t n;
  int rc = oc_results_not_run(rs, &g, &n);
  struct oc_buf t;
  oc_buf_init(&t, OC_CAP_MESSAGE * 4);
  for(size_t k = 0; !rc && k < n; k++) {
    const cJSON *r = read_result(rs, g[k].first);
    if(!r) {
      rc = OC_EIO;
      break;
    }
    oc_buf_reset(&t);
    rc = oc_buf_adds(b, "::error title=target unreachable::");
    if(!rc)
      rc = add_esc(b, g[k].target, 200, WF_DATA);
    if(!rc)
      rc = oc_buf_adds(b, ": ");
    if(!rc && !(rc = oc_not_run_text(&t, &g[k], oc_json_str(r, "reason"))))
      rc = add_esc(b, oc_buf_str(&t), OC_CI_FIELD_MAX, WF_DATA);
    if(!rc)
      rc = oc_buf_addc(b, '\n');
  }
  oc_buf_free(&t);
  free(g);
  return rc;
}

int oc_ci_github_annotations_from(struct oc_results *rs, const char *workspace, const char *cwd,
                                  struct oc_buf *b)
{
  const cJSON *doc = rs->doc;
  int rc = OC_OK;
  long shown = 0, more = 0;
  for(size_t i = 0; i < rs->count; i++) {
    enum oc_status st = rs->refs[i].status;
    /* a case never sent is said with the rest of its target's, below:
     * 53 copies of one connection error took the room of real failures */
    if(st == OC_ST_PASS || st == OC_ST_SKIP || (rs->refs[i].flags & OC_REF_NOT_RUN))
      continue;
    if(shown >= OC_CI_ANNOTATIONS) {
      more++;
      continue;
    }
    const cJSON *r = read_result(rs, i);
    if(!r)
      return OC_EIO;
    if((rc = annotation(b, r, workspace, cwd)))
      return rc;
    shown++;
  }
  if(more && (rc = oc_buf_printf(b, "::warning title=oacheck::%ld more failing cases are not "
                                    "annotated (GitHub shows %d per job); the step summary and the "
                                    "reports list them\n", more, OC_CI_ANNOTATIONS)))
    return rc;
  if((rc = not_run_annotations(rs, b)))
    return rc;
  struct oc_buf t;
  oc_buf_init(&t, OC_CAP_MESSAGE * 16);
  if(oc_shards_problems(doc, &t)) {
    /* one command per line of the shard report */
    const char *p = oc_buf_str(&t);
    while(!rc && *p) {
      const char *nl = strchr(p, '\n');
      size_t n = nl ? (size_t)(nl - p) : strlen(p);
      char *line = oc_strndup(p, n);
      rc = line ? oc_buf_adds(b, "::error title=oacheck shards::") : OC_ENOMEM;
      if(!rc)
        rc = add_esc(b, line, OC_CI_FIELD_MAX, WF_DATA);
      if(!rc)
        rc = oc_buf_addc(b, '\n');
      free(line);
      p += n + (nl ? 1 : 0);
    }
  }
  oc_buf_free(&t);
  return rc;
}

int oc_ci_github_annotations(const cJSON *doc, const char *workspace, const char *cwd,
                             struct oc_buf *b)
{
  struct oc_results rs;
  if(oc_results_from_doc(&rs, doc))
    return OC_ENOMEM;
  int rc = oc_ci_github_annotations_from(&rs, workspace, cwd, b);
  oc_results_free(&rs);
  return rc;
}

/* ---- the Markdown summary ------------------------------------------------- */

/* A sticky-error writer, as report_html.c has. */
struct md {
  struct oc_buf *b;
  int rc;
  struct oc_results *rs;
};

static void put(struct md *o, const char *s)
{
  if(!o->rc && s)
    o->rc = oc_buf_adds(o->b, s);
}

static void putf(struct md *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct md *o, const char *fmt, ...)
{
  if(o->rc)
    return;
  va_list ap;
  va_start(ap, fmt);
  o->rc = oc_buf_vprintf(o->b, fmt, ap);
  va_end(ap);
}

static void cell(struct md *o, const char *s)
{
  if(!o->rc)
    o->rc = s ? add_esc(o->b, s, OC_CI_FIELD_MAX, MD_CELL) : oc_buf_adds(o->b, "—");
}

/* The URL of the report (checked to be http(s) without spaces, quotes or
 * angle brackets when parsed), with a fragment. */
static void md_link(struct md *o, const char *url, const char *fragment, const char *text)
{
  if(!url) {
    put(o, text);
    return;
  }
  putf(o, "[%s](%s%s%s)", text, url, fragment ? "#" : "", fragment ? fragment : "");
}

/* A link to case index of the report, labelled from its ref. */
static void case_cell(struct md *o, size_t index, const char *url)
{
  const struct oc_result_ref *f = &o->rs->refs[index];
  struct oc_buf t;
  oc_buf_init(&t, OC_CAP_MESSAGE * 4);
  int rc = case_label_of(&t, f->target, f->suite, f->kase, MD_CELL);
  if(rc) {
    o->rc = rc;
    oc_buf_free(&t);
    return;
  }
  char frag[32];
  snprintf(frag, sizeof(frag), "c-%zu", index);
  md_link(o, url, frag, oc_buf_str(&t));
  oc_buf_free(&t);
}

static void targets_table(struct md *o, const cJSON *doc)
{
  const struct oc_results *rs = o->rs;
  put(o, "| target | profile | model | cases | pass | fail | error | skip |\n"
         "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
  const cJSON *t;
  cJSON_ArrayForEach(t, oc_json_arr(doc, "targets")) {
    const char *name = oc_json_str(t, "name");
    struct oc_counts c;
    oc_results_counts(rs, name, NULL, &c);
    int unreachable = cJSON_IsFalse(oc_json_get(t, "reachable"));
    put(o, "| ");
    cell(o, name);
    if(unreachable)
      put(o, " (unreachable)");
    put(o, " | ");
    /* an unreachable target's automatic profile is a guess from nothing
     * (it said nothing): no profile; one given by the user is still its */
    const char *src = oc_json_str(t, "profile_source");
    int guessed = !oc_streq(src, "option") && !oc_streq(src, "targets-file");
    cell(o, unreachable && guessed ? NULL : oc_json_str(t, "profile"));
    put(o, " | ");
    cell(o, oc_json_str(oc_json_obj(t, "identity"), "model"));
    putf(o, " | %ld | %ld | %ld | %ld | %ld |\n", c.total, c.pass, c.fail, c.error, c.skip);
  }
}

/* Issue 12's per-case "clients": {name: {works, reason, ...}}: a row per
 * client with how many cases it works on (cases that ended in error left
 * out), how many the server breaks it
 * on (its first break shown), how many it returned faithfully an answer
 * the server cut or made unusable ("server_fault"; a column only when some
 * case has one, its first shown when there is no break), and how many break it the way OpenAI's own
 * answers do ("limitation": its own, no failure).  Counted from the refs
 * (each says what every client made of its case); only the result of a
 * client's first break is read, for its reason.  Nothing when no result
 * carries clients. */
static void clients_table(struct md *o, const char *url)
{
  struct oc_results *rs = o->rs;
  long works[OC_CLIENT__COUNT] = { 0 }, breaks[OC_CLIENT__COUNT] = { 0 },
       limits[OC_CLIENT__COUNT] = { 0 }, faults[OC_CLIENT__COUNT] = { 0 }, first[OC_CLIENT__COUNT],
       first_fault[OC_CLIENT__COUNT];
  int seen[OC_CLIENT__COUNT] = { 0 }, any = 0, any_fault = 0;
  for(int k = 0; k < OC_CLIENT__COUNT; k++)
    first[k] = first_fault[k] = -1;
  for(size_t i = 0; i < rs->count; i++) {
    const struct oc_result_ref *f = &rs->refs[i];
    if(!(f->flags & OC_REF_CLIENTS))
      continue;
    for(int k = 0; k < OC_CLIENT__COUNT; k++) {
      unsigned st = OC_REF_CL_STATE(f->clients[k]);
      any |= seen[k] |= st != OC_REF_CL_ABSENT;
      /* a case that ended in error is no evidence that a client works
       * (the matrix shows its row as no verdict); a break seen on it
       * still counts */
      works[k] += st == OC_REF_CL_WORKS && f->status != OC_ST_ERROR;
      limits[k] += st == OC_REF_CL_LIMIT;
      if(st == OC_REF_CL_BREAKS && !breaks[k]++)
        first[k] = (long)i;
      if(st == OC_REF_CL_FAULT && !faults[k]++)
        first_fault[k] = (long)i;
      any_fault |= st == OC_REF_CL_FAULT;
    }
  }
  if(!any)
    return;
  /* the server-fault column only when there is one: every other summary
   * stays as it was */
  if(any_fault)
    put(o, "\n#### Will my client work?\n\n| client | works | breaks | server's fault | its limitation | "
           "first break (else the server's first fault) |\n| --- | ---: | ---: | ---: | ---: | --- |\n");
  else
    put(o, "\n#### Will my client work?\n\n| client | works | breaks | its limitation | first break |\n"
           "| --- | ---: | ---: | ---: | --- |\n");
  for(int k = 0; k < OC_CLIENT__COUNT && !o->rc; k++) {
    if(!seen[k])
      continue;
    const char *name = oc_client_name((enum oc_client_id)k);
    put(o, "| ");
    cell(o, name);
    if(any_fault)
      putf(o, " | %ld | %ld | %ld | %ld | ", works[k], breaks[k], faults[k], limits[k]);
    else
      putf(o, " | %ld | %ld | %ld | ", works[k], breaks[k], limits[k]);
    long shown = first[k] >= 0 ? first[k] : first_fault[k];
    if(shown >= 0) {
      /* read before the link is written: case_cell reads only refs */
      const cJSON *r = read_result(rs, (size_t)shown);
      if(!r) {
        o->rc = OC_EIO;
        break;
      }
      char *why = oc_strdup(oc_json_str(oc_json_obj(oc_json_obj(r, "clients"), name), "reason"));
      if(first[k] < 0)
        put(o, "the server's fault: ");
      case_cell(o, (size_t)shown, url);
      if(why && *why) {
        put(o, ": ");
        cell(o, why);
      }
      free(why);
    }
    else
      put(o, "—");
    put(o, " |\n");
  }
}

/* A row of the failing rules table: the rule (borrowed from the list),
 * its cases, its first failing case and that finding's message. */
struct rule_row {
  const char *rule;
  long cases;
  long first;
  char *msg;
};

/* The summary's order: most cases first, then by rule ID. */
static int rule_row_cmp(const void *a, const void *b)
{
  const struct rule_row *x = a, *y = b;
  if(x->cases != y->cases)
    return x->cases > y->cases ? -1 : 1;
  return strcmp(x->rule, y->rule);
}

/* The failing rules with the first case each failed in: the failures are
 * read in order until every rule has its first case.  The cases never
 * sent are counted in the run's summary under their HTTP-TRANSPORT
 * finding; here they are said once per target (not_run_rows), so what
 * they counted is taken back out, reading only them. */
static void rules_table(struct md *o, const cJSON *doc, const char *url)
{
  struct oc_results *rs = o->rs;
  cJSON *rules = rs->items ? oc_results_failing_rules(doc)
                           : cJSON_Duplicate(oc_json_arr(oc_json_obj(doc, "summary"), "failing_rules"), 1);
  if(!rules) {
    o->rc = o->rc ? o->rc : OC_ENOMEM;
    return;
  }
  struct oc_summary minus;
  oc_summary_init(&minus);
  for(size_t i = 0; i < rs->count && !o->rc; i++) {
    if(!(rs->refs[i].flags & OC_REF_NOT_RUN))
      continue;
    const cJSON *r = read_result(rs, i);
    if(r)
      oc_summary_add(&minus, r);
    else
      o->rc = OC_EIO;
  }
  if(minus.oom && !o->rc)
    o->rc = OC_ENOMEM;
  size_t nr = 0, all = (size_t)cJSON_GetArraySize(rules);
  struct rule_row *rows = all ? calloc(all, sizeof(*rows)) : NULL;
  if(all && !rows && !o->rc)
    o->rc = OC_ENOMEM;
  for(const cJSON *fr = rules->child; fr && rows && !o->rc; fr = fr->next) {
    const char *rule = oc_json_str(fr, "rule");
    long cases = (long)oc_json_num(fr, "cases", 0);
    for(size_t m = 0; rule && m < minus.nrules; m++)
      if(strcmp(minus.rules[m].rule, rule) == 0)
        cases -= minus.rules[m].cases;
    if(rule && cases > 0)
      rows[nr++] = (struct rule_row){ rule, cases, -1, NULL };
  }
  if(nr)
    qsort(rows, nr, sizeof(*rows), rule_row_cmp);
  size_t found = 0;
  for(size_t i = 0; i < rs->count && found < nr && !o->rc; i++) {
    if(rs->refs[i].status != OC_ST_FAIL)
      continue;
    const cJSON *r = read_result(rs, i), *f;
    if(!r) {
      o->rc = OC_EIO;
      break;
    }
    for(size_t k = 0; k < nr; k++) {
      if(rows[k].first >= 0)
        continue;
      cJSON_ArrayForEach(f, oc_json_arr(r, "findings"))
        if(oc_finding_counts(f) && oc_streq(oc_json_str(f, "rule"), rows[k].rule)) {
          rows[k].first = (long)i;
          const char *m = oc_json_str(f, "message");
          rows[k].msg = oc_strdup(m ? m : "");
          found++;
          break;
        }
    }
  }
  if(nr) {
    put(o, "\n#### Failing rules\n\n| rule | cases | first case |\n| --- | ---: | --- |\n");
    for(size_t k = 0; k < nr; k++) {
      put(o, "| ");
      cell(o, rows[k].rule);
      putf(o, " | %ld | ", rows[k].cases);
      if(rows[k].first >= 0) {
        case_cell(o, (size_t)rows[k].first, url);
        put(o, ": ");
        cell(o, rows[k].msg);
      }
      put(o, " |\n");
    }
  }
  for(size_t k = 0; k < nr; k++)
    free(rows[k].msg);
  free(rows);
  oc_summary_free(&minus);
  cJSON_Delete(rules);
}

/* A row per unreachable target (oc_results_not_run): its name, linked to
 * its first case, how many cases were not run, and why. */
static void not_run_rows(struct md *o, const char *url)
{
  struct oc_not_run *g;
  size_t n;
  int rc = oc_results_not_run(o->rs, &g, &n);
  if(rc) {
    o->rc = o->rc ? o->rc : rc;
    return;
  }
  struct oc_buf t;
  oc_buf_init(&t, OC_CAP_MESSAGE * 4);
  for(size_t k = 0; k < n && !o->rc; k++) {
    const cJSON *r = read_result(o->rs, g[k].first);
    if(!r) {
      o->rc = OC_EIO;
      break;
    }
    /* the reason first: the result is borrowed until the next read */
    char *why = oc_strdup(oc_json_str(r, "reason"));
    oc_buf_reset(&t);
    int trc = add_esc(&t, g[k].target, 200, MD_CELL);
    char frag[32];
    snprintf(frag, sizeof(frag), "c-%zu", g[k].first);
    put(o, "| error | ");
    if(trc)
      o->rc = trc;
    md_link(o, url, frag, oc_buf_str(&t));
    oc_buf_reset(&t);
    if(oc_not_run_text(&t, &g[k], NULL))
      o->rc = o->rc ? o->rc : OC_ENOMEM;
    put(o, ": ");
    cell(o, oc_buf_str(&t));
    put(o, " | ");
    cell(o, why ? why : "target unreachable");
    put(o, " |\n");
    free(why);
  }
  oc_buf_free(&t);
  free(g);
}

static void cases_table(struct md *o, const char *url)
{
  struct oc_results *rs = o->rs;
  long bad = 0, notrun = 0, shown = 0;
  for(size_t i = 0; i < rs->count; i++)
    if(oc_status_is_failure(rs->refs[i].status)) {
      if(rs->refs[i].flags & OC_REF_NOT_RUN)
        notrun++;
      else
        bad++;
    }
  if(!bad && !notrun)
    return;
  /* the cases never sent are a row per target after the real failures,
   * outside their cap, so that a dead target cannot push them out */
  if(!notrun)
    putf(o, "\n#### Failing cases (%ld)\n\n", bad);
  else if(!bad)
    putf(o, "\n#### Failing cases (%ld not run)\n\n", notrun);
  else
    putf(o, "\n#### Failing cases (%ld, and %ld not run)\n\n", bad, notrun);
  put(o, "| status | case | why |\n| --- | --- | --- |\n");
  struct oc_buf t;
  oc_buf_init(&t, OC_CAP_MESSAGE * 4);
  for(size_t i = 0; i < rs->count && !o->rc; i++) {
    enum oc_status st = rs->refs[i].status;
    if(!oc_status_is_failure(st) || (rs->refs[i].flags & OC_REF_NOT_RUN))
      continue;
    if(shown++ >= OC_CI_SUMMARY_CASES)
      break;
    const cJSON *r = read_result(rs, i);
    if(!r) {
      o->rc = OC_EIO;
      break;
    }
    putf(o, "| %s | ", oc_status_name(st));
    case_cell(o, i, url);
    put(o, " | ");
    oc_buf_reset(&t);
    if(why_text(&t, r))
      oc_buf_reset(&t); /* no reason rather than half of one */
    cell(o, oc_buf_str(&t));
    put(o, " |\n");
  }
  oc_buf_free(&t);
  if(notrun)
    not_run_rows(o, url);
  if(bad > OC_CI_SUMMARY_CASES)
    putf(o, "\n… and %ld more: see the reports.\n", bad - OC_CI_SUMMARY_CASES);
}

int oc_ci_markdown_summary_from(struct oc_results *rs, const char *url, struct oc_buf *b)
{
  const cJSON *doc = rs->doc;
  struct md o = { b, OC_OK, rs };
  struct oc_counts c;
  oc_results_counts(rs, NULL, NULL, &c);
  const cJSON *run = oc_json_obj(doc, "oacheck");
  putf(&o, "### oacheck: %s — %ld case%s: %ld pass, %ld fail, %ld error, %ld skip\n\n",
       c.fail || c.error ? "failed" : "passed", c.total, c.total == 1 ? "" : "s", c.pass, c.fail, c.error,
       c.skip);
  struct oc_buf t;
  oc_buf_init(&t, OC_CAP_MESSAGE * 16);
  if(oc_shards_problems(doc, &t)) {
    const char *p = oc_buf_str(&t);
    while(*p && !o.rc) {
      const char *nl = strchr(p, '\n');
      size_t n = nl ? (size_t)(nl - p) : strlen(p);
      char *line = oc_strndup(p, n);
      put(&o, "> **Warning:** ");
      cell(&o, line);
      put(&o, "\n>\n");
      free(line);
      p += n + (nl ? 1 : 0);
    }
    put(&o, "\n");
  }
  oc_buf_free(&t);
  targets_table(&o, doc);
  clients_table(&o, url);
  rules_table(&o, doc, url);
  cases_table(&o, url);
  put(&o, "\n");
  if(url) {
    md_link(&o, url, NULL, "The HTML report");
    put(&o, " has every finding, the request and response, and a command that reproduces each case.\n\n");
  }
  put(&o, "<sub>oacheck ");
  cell(&o, oc_json_str(run, "version"));
  put(&o, ", ");
  cell(&o, oc_json_str(run, "mode"));
  put(&o, ", started ");
  cell(&o, oc_json_str(run, "started"));
  const cJSON *sh = oc_json_obj(run, "shard");
  if(sh)
    putf(&o, ", shard %.0f of %.0f", oc_json_num(sh, "index", 0), oc_json_num(sh, "count", 0));
  const cJSON *mf = oc_json_get(run, "merged_from");
  if(oc_json_is_integer(mf))
    putf(&o, ", merged from %.0f file%s", mf->valuedouble, mf->valuedouble == 1 ? "" : "s");
  put(&o, "</sub>\n");
  return o.rc;
}

int oc_ci_markdown_summary(const cJSON *doc, const char *url, struct oc_buf *b)
{
  struct oc_results rs;
  if(oc_results_from_doc(&rs, doc))
    return OC_ENOMEM;
  int rc = oc_ci_markdown_summary_from(&rs, url, b);
  oc_results_free(&rs);
  return rc;
}

/* ---- writing --------------------------------------------------------------- */

int oc_ci_opt_report_url(const struct oc_option *o, const char *arg, char *err, size_t errlen)
{
  if(!oc_startswith(arg, "https://") && !oc_startswith(arg, "http://")) {
    snprintf(err, errlen, "wants an http:// or https:// URL, not '%.200s'", arg);
    return 1;
  }
  /* it goes into Markdown link syntax as it is */
  for(const unsigned char *p = (const unsigned char *)arg; *p; p++)
    if(*p <= ' ' || *p == 0x7f || strchr("()<>\"'`\\", *p)) {
      snprintf(err, errlen, "a URL without spaces, quotes, brackets or backslashes, not '%.200s' "
               "(percent-encode them)", arg);
      return 1;
    }
  *(const char **)o->value = arg;
  return 0;
}

static int append_file(const char *path, const char *data, size_t n, char *err, size_t errlen)
{
  FILE *f = fopen(path, "a");
  if(!f) {
    snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
    return OC_EIO;
  }
  int bad = n && fwrite(data, 1, n, f) != n; /* masked by the caller */
  if(fclose(f) || bad) {
    snprintf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
    return OC_EIO;
  }
  return OC_OK;
}

/* Where oacheck runs, as the shell names it ($PWD when that is this
 * directory: through the same symlinks as $GITHUB_WORKSPACE), else as the
 * system resolves it; NULL when neither can say. */
static const char *current_dir(oc_getenv_fn env, char *buf, size_t n)
{
  const char *pwd = env("PWD");
  struct stat a, b;
  if(pwd && pwd[0] == '/' && stat(pwd, &a) == 0 && stat(".", &b) == 0 && a.st_dev == b.st_dev &&
     a.st_ino == b.st_ino)
    return pwd;
  return getcwd(buf, n);
}

int oc_ci_reports_write_from(struct oc_results *rs, const struct oc_ci_args *a, FILE *out,
                             oc_getenv_fn env)
{
  int bad = 0;
  char err[700];
  if(!a->github && !a->markdown)
    return 0;
  struct oc_buf md;
  oc_buf_init(&md, OC_CI_CAP);
  if(oc_ci_markdown_summary_from(rs, a->report_url, &md)) {
    oc_error("cannot build the Markdown summary: %s",
             oc_buf_error(&md) == OC_ETOOBIG ? "larger than 1 MiB" : "out of memory");
    oc_buf_free(&md);
    return (a->github ? 1 : 0) + (a->markdown ? 1 : 0);
  }
  /* the results are masked when built and when loaded; a document handed
   * over by other means is masked here all the same */
  oc_secret_mask(md.data, md.len);
  /* each file written is named, as the other reports are; on stderr when
   * a report is stdout's */
  FILE *said = a->stdout_report || oc_streq(a->markdown, "-") ? stderr : stdout;
  if(a->github) {
    struct oc_buf ann;
    oc_buf_init(&ann, OC_CI_CAP);
    char cwdbuf[4096];
    if(oc_ci_github_annotations_from(rs, env("GITHUB_WORKSPACE"), current_dir(env, cwdbuf, sizeof(cwdbuf)),
                                     &ann)) {
      oc_error("cannot build the GitHub annotations: out of memory");
      bad++;
    }
    else {
      oc_secret_mask(ann.data, ann.len);
      if(ann.len && (fwrite(ann.data, 1, ann.len, out) != ann.len || fflush(out))) {
        oc_error("cannot write the GitHub annotations");
        bad++;
      }
    }
    oc_buf_free(&ann);
    const char *summary = env("GITHUB_STEP_SUMMARY");
    /* appended, not renamed into place: the file holds the job's other
     * steps' summaries too (GitHub's contract for GITHUB_STEP_SUMMARY) */
    if(!summary || !*summary)
      oc_warn("--github: GITHUB_STEP_SUMMARY is not set (not on GitHub Actions?): no step summary written");
    else if(append_file(summary, oc_buf_str(&md), md.len, err, sizeof(err))) {
      oc_error("--github: the step summary: %s", err);
      bad++;
    }
    else
      oc_report_said(said, summary, "GitHub step summary, appended");
  }
  if(a->markdown) {
    if(oc_write_file(a->markdown, oc_buf_str(&md), md.len, err, sizeof(err))) { /* masked above */
      oc_error("--markdown: %s", err);
      bad++;
    }
    else if(!oc_streq(a->markdown, "-"))
      oc_report_said(said, a->markdown, "Markdown summary");
  }
  fflush(said);
  oc_buf_free(&md);
  return bad;
}

int oc_ci_reports_write(const cJSON *doc, const struct oc_ci_args *a, FILE *out, oc_getenv_fn env)
{
  if(!a->github && !a->markdown)
    return 0;
  struct oc_results rs;
  if(oc_results_from_doc(&rs, doc)) {
    oc_error("out of memory writing the CI reports");
    return (a->github ? 1 : 0) + (a->markdown ? 1 : 0);
  }
  int bad = oc_ci_reports_write_from(&rs, a, out, env);
  oc_results_free(&rs);
  return bad;
}
