/* report_console.c — the console report.  On a terminal a progress line is
 * redrawn in place and only failing cases get their own line; without a
 * terminal (CI logs) every case gets one plain line and nothing is
 * redrawn.  Everything printed comes from the result objects. */
#include "config.h"
#include "report_console.h"

#include "deployment.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "matrix.h"
#include "protocol.h"
#include "report.h"
#include "results_json.h"
#include "secret.h"
#include "util.h"

void oc_console_init(struct oc_console *c, FILE *out)
{
  memset(c, 0, sizeof(*c));
  c->out = out;
  c->tty = isatty(fileno(out));
  const char *nc = getenv("NO_COLOR");
  const char *term = getenv("TERM");
  c->color = c->tty && !(nc && *nc) && !oc_streq(term, "dumb");
  /* -q: a CI log of a long run keeps what failed and the summary */
  c->quiet = oc_log_get_level() == OC_LOG_ERROR;
}

static const char *paint(const struct oc_console *c, const char *status)
{
  if(!c->color)
    return "";
  if(oc_streq(status, "pass"))
    return "\033[32m";
  if(oc_streq(status, "fail"))
    return "\033[31m";
  if(oc_streq(status, "error"))
    return "\033[35m";
  if(oc_streq(status, "skip"))
    return "\033[33m";
  return "\033[1m";
}

static const char *reset(const struct oc_console *c)
{
  return c->color ? "\033[0m" : "";
}

/* bytes of a client's reason shown in the matrix's lines (the reports
 * keep it whole) */
#define OC_CONSOLE_REASON_MAX 160

/* Server and suite text on the terminal: escape sequences, other
 * controls and invalid UTF-8 made visible, never interpreted. */
static const char *safe(struct oc_buf *b, const char *s)
{
  oc_buf_reset(b);
  if(!s || oc_esc_adds(b, s, OC_ESC_TEXT))
    return s ? "?" : "";
  oc_secret_mask(b->data, b->len); /* results are masked already; what a caller passes may not be */
  return oc_buf_str(b);
}

static void clear_progress(struct oc_console *c)
{
  if(c->progress_shown) {
    fputs("\r\033[K", c->out);
    c->progress_shown = 0;
  }
}

static void upper(const char *s, char *out, size_t n)
{
  size_t i = 0;
  for(; s && s[i] && i + 1 < n; i++)
    out[i] = (char)(s[i] >= 'a' && s[i] <= 'z' ? s[i] - 32 : s[i]);
  out[i] = '\0';
}

static void print_finding(struct oc_console *c, const cJSON *f)
{
  const cJSON *where = oc_json_obj(f, "where");
  const char *wt = oc_json_str(where, "text");
  const char *path = oc_json_str(f, "path");
  char loc[256] = "";
  if(wt && *wt && path && *path)
    snprintf(loc, sizeof(loc), " [%s, %s]", wt, path);
  else if(wt && *wt)
    snprintf(loc, sizeof(loc), " [%s]", wt);
  else if(path && *path)
    snprintf(loc, sizeof(loc), " [%s]", path);
  const char *sev = oc_json_str(f, "severity");
  struct oc_buf b1, b2, b3;
  oc_buf_init(&b1, 64u << 10);
  oc_buf_init(&b2, 64u << 10);
  oc_buf_init(&b3, 64u << 10);
  fprintf(c->out, "      %s %s%s: %s%s\n", safe(&b1, oc_json_str(f, "rule")), sev ? sev : "",
          oc_json_bool(f, "allowed", 0) ? " (allowed)" : "", safe(&b2, oc_json_str(f, "message")),
          safe(&b3, loc));
  oc_buf_free(&b1);
  oc_buf_free(&b2);
  oc_buf_free(&b3);
}

/* Under a case's findings: the deployment's diagnosis (its fix with -v),
 * and a case that ran again alone says what it got first. */
static void print_deployment_notes(struct oc_console *c, const cJSON *r)
{
  struct oc_buf b1, b2;
  oc_buf_init(&b1, 64u << 10);
  oc_buf_init(&b2, 64u << 10);
  const cJSON *dg = oc_result_diagnosis(r);
  if(dg) {
    fprintf(c->out, "      cause (%s): ", safe(&b1, oc_json_str(dg, "id")));
    fprintf(c->out, "%s\n", safe(&b2, oc_json_str(dg, "cause")));
    if(c->verbose) {
      fprintf(c->out, "      fix (%s): ", safe(&b1, oc_json_str(dg, "flags")));
      fprintf(c->out, "%s\n", safe(&b2, oc_json_str(dg, "fix")));
    }
  }
  const cJSON *first = oc_json_obj(r, "rerun");
  if(first) {
    const cJSON *fdg = oc_json_obj(first, "diagnosis");
    const char *msg = oc_json_str(first, "message");
    fprintf(c->out, "      ran again alone: with %.0f requests in flight it had failed (%s)\n",
            oc_json_num(first, "in_flight", 0), safe(&b1, msg ? msg : "?"));
    if(fdg && c->verbose)
      fprintf(c->out, "      then: %s\n", safe(&b2, oc_json_str(fdg, "cause")));
  }
  oc_buf_free(&b1);
  oc_buf_free(&b2);
}

/* On a terminal, the progress line (redrawn in place) while cases remain. */
static void progress(struct oc_console *c, const char *suite, const char *kase, size_t done,
                     size_t total)
{
  if(c->tty && !c->quiet && done < total) {
    struct oc_buf b1, b2;
    oc_buf_init(&b1, 4096);
    oc_buf_init(&b2, 4096);
    fprintf(c->out, "\r[%zu/%zu] %s/%s", done, total, safe(&b1, suite), safe(&b2, kase));
    oc_buf_free(&b1);
    oc_buf_free(&b2);
    c->progress_shown = 1;
  }
  fflush(c->out);
}

void oc_console_result(struct oc_console *c, const cJSON *r, size_t done, size_t total)
{
  const char *status = oc_json_str(r, "status");
  const char *target = oc_json_str(r, "target");
  const char *suite = oc_json_str(r, "suite");
  const char *kase = oc_json_str(r, "case");
  char st[8];
  upper(status, st, sizeof(st));
  int interesting = !oc_streq(status, "pass") && !oc_streq(status, "skip");
  clear_progress(c);
  if(interesting || (!c->quiet && (!c->tty || c->verbose))) {
    const char *reason = oc_json_str(r, "reason");
    int nfind = cJSON_GetArraySize(oc_json_arr(r, "findings"));
    struct oc_buf b1, b2, b3, b4;
    oc_buf_init(&b1, 64u << 10);
    oc_buf_init(&b2, 64u << 10);
    oc_buf_init(&b3, 64u << 10);
    oc_buf_init(&b4, 64u << 10);
    fprintf(c->out, "%s%-5s%s %s %s/%s", paint(c, status), st, reset(c), safe(&b1, target),
            safe(&b2, suite), safe(&b3, kase));
    if(reason)
      fprintf(c->out, " (%s)", safe(&b4, reason));
    else if(nfind)
      fprintf(c->out, " (%d finding%s)", nfind, nfind == 1 ? "" : "s");
    oc_buf_free(&b1);
    oc_buf_free(&b2);
    oc_buf_free(&b3);
    oc_buf_free(&b4);
    fputc('\n', c->out);
    const cJSON *f;
    int shown = 0;
    cJSON_ArrayForEach(f, oc_json_arr(r, "findings"))
    {
      int counts = oc_finding_counts(f);
      if(c->verbose || (counts && shown < 3)) {
        print_finding(c, f);
        shown += counts;
      }
    }
    print_deployment_notes(c, r);
  }
  progress(c, suite, kase, done, total);
}

void oc_console_not_run(struct oc_console *c, const cJSON *r, size_t ncases, const char *why,
                        size_t done, size_t total)
{
  const char *suite = oc_json_str(r, "suite");
  clear_progress(c);
  if(ncases) {
    struct oc_buf b1, b2, b3;
    oc_buf_init(&b1, 64u << 10);
    oc_buf_init(&b2, 64u << 10);
    oc_buf_init(&b3, 64u << 10);
    fprintf(c->out, "%s%-5s%s %s suite %s: %zu case%s not run: %s\n", paint(c, "error"), "ERROR",
            reset(c), safe(&b1, oc_json_str(r, "target")), safe(&b2, suite), ncases,
            ncases == 1 ? "" : "s", safe(&b3, why));
    oc_buf_free(&b1);
    oc_buf_free(&b2);
    oc_buf_free(&b3);
  }
  progress(c, suite, oc_json_str(r, "case"), done, total);
}

/* ---- "Will my client work?" ------------------------------------------------------ */

/* A cell's reason for one console line, into b: masked whole before it is
 * cut (a secret cut in two would not be recognised any more), escaped,
 * and cut at OC_CONSOLE_REASON_MAX bytes on a character with an ellipsis. */
static const char *cell_reason(struct oc_buf *b, const struct oc_cell *cell)
{
  const char *full = cell->reason ? cell->reason : "";
  char *masked = oc_secret_masked(full, strlen(full));
  oc_buf_reset(b);
  int rc = masked ? oc_esc_addn_cut(b, masked, OC_CONSOLE_REASON_MAX, OC_ESC_TEXT) : OC_ENOMEM;
  free(masked);
  return rc ? "?" : oc_buf_str(b);
}

static const char *cell_word(enum oc_cell_state s)
{
  switch(s) {
  case OC_CELL_WORKS: return "ok";
  case OC_CELL_BREAKS: return "BREAKS";
  case OC_CELL_LIMITATION: return "limit";
  case OC_CELL_ERROR: return "error";
  case OC_CELL_SERVER_FAULT: return "fault";
  case OC_CELL_NOT_EXERCISED: break;
  }
  return "-";
}

static const char *cell_paint(const struct oc_console *c, enum oc_cell_state s)
{
  if(!c->color)
    return "";
  switch(s) {
  case OC_CELL_WORKS: return "\033[32m";
  case OC_CELL_BREAKS: return "\033[31m";
  case OC_CELL_LIMITATION: return "\033[33m";
  case OC_CELL_ERROR: return "\033[35m"; /* as an ERROR case */
  case OC_CELL_SERVER_FAULT: return "\033[31m"; /* the server's, as BREAKS */
  case OC_CELL_NOT_EXERCISED: break;
  }
  return "";
}

/* One line per cell in state want (breaks, server faults, limitations),
 * at most max. */
static int cell_lines(struct oc_console *c, const struct oc_matrix *m, unsigned clients,
                      enum oc_cell_state want, int shown, int max, int *more)
{
  struct oc_buf b1, b2, b3;
  oc_buf_init(&b1, 64u << 10);
  oc_buf_init(&b2, 64u << 10);
  oc_buf_init(&b3, 64u << 10);
  for(int row = 0; row < OC_ROW__COUNT; row++)
    for(int k = 0; k < OC_CLIENT__COUNT; k++) {
      const struct oc_cell *cell = &m->cells[row][k];
      if(cell->state != want || !oc_matrix_has(m, k) || !(clients & (1u << k)))
        continue;
      if(shown >= max) {
        (*more)++;
        continue;
      }
      fprintf(c->out, "  %s%-6s%s %s, %s: %s (%s/%s)\n", cell_paint(c, want), cell_word(want), reset(c),
              oc_client_name((enum oc_client_id)k), oc_row_title(row), cell_reason(&b1, cell),
              safe(&b2, cell->suite), safe(&b3, cell->kase));
      shown++;
    }
  oc_buf_free(&b1);
  oc_buf_free(&b2);
  oc_buf_free(&b3);
  return shown;
}

/* One line per row with error cells, at most max: the clients of the
 * row have no verdict for the same reason, so it is said once, with the
 * first errored case. */
static int error_lines(struct oc_console *c, const struct oc_matrix *m, unsigned clients, int shown,
                       int max, int *more)
{
  struct oc_buf b1, b2, b3;
  oc_buf_init(&b1, 64u << 10);
  oc_buf_init(&b2, 64u << 10);
  oc_buf_init(&b3, 64u << 10);
  for(int row = 0; row < OC_ROW__COUNT; row++) {
    const struct oc_cell *cell = NULL;
    int errors = 0;
    for(int k = 0; k < OC_CLIENT__COUNT; k++)
      if(m->cells[row][k].state == OC_CELL_ERROR && oc_matrix_has(m, k) && (clients & (1u << k))) {
        if(!cell || m->cells[row][k].errors > errors)
          cell = &m->cells[row][k];
        if(m->cells[row][k].errors > errors)
          errors = m->cells[row][k].errors;
      }
    if(!cell)
      continue;
    if(shown >= max) {
      (*more)++;
      continue;
    }
    fprintf(c->out, "  %s%-6s%s %s: no verdict, %d case%s ended in error: %s (%s/%s)\n",
            cell_paint(c, OC_CELL_ERROR), cell_word(OC_CELL_ERROR), reset(c), oc_row_title(row), errors,
            errors == 1 ? "" : "s", cell_reason(&b1, cell), safe(&b2, cell->suite), safe(&b3, cell->kase));
    shown++;
  }
  oc_buf_free(&b1);
  oc_buf_free(&b2);
  oc_buf_free(&b3);
  return shown;
}

void oc_console_matrix(struct oc_console *c, const cJSON *doc)
{
  struct oc_results rs;
  if(oc_results_from_doc(&rs, doc))
    return;
  oc_console_matrix_from(c, &rs);
  oc_results_free(&rs);
}

/* One protocol's block of the matrix: a column per client of it, a line
 * per row (chat: every row, as the checklist stands; the others: the rows
 * their cases asked), and its legend.  titled: say which protocol (more
 * than one on the target, or not chat). */
static void matrix_block(struct oc_console *c, const struct oc_matrix *m, const struct oc_protocol *p,
                         int titled, struct oc_buf *b)
{
  if(titled)
    fprintf(c->out, "\nWill my client work? (%s) — %s\n%-20s", safe(b, m->target), p->title, "");
  else
    fprintf(c->out, "\nWill my client work? (%s)\n%-20s", safe(b, m->target), "");
  /* the columns: the clients the run modelled, the last without
   * trailing blanks */
  int width[OC_CLIENT__COUNT], last = -1;
  for(int k = 0; k < OC_CLIENT__COUNT; k++)
    if(oc_matrix_has(m, k) && (p->clients & (1u << k)))
      last = k;
  for(int k = 0; k < OC_CLIENT__COUNT; k++) {
    const char *name = oc_client_short_name((enum oc_client_id)k);
    width[k] = (int)strlen(name) < 6 ? 6 : (int)strlen(name);
    if(oc_matrix_has(m, k) && (p->clients & (1u << k)))
      fprintf(c->out, k < last ? "  %-*s" : "  %.*s", width[k], name);
  }
  fputc('\n', c->out);
  for(int row = 0; row < OC_ROW__COUNT; row++) {
    int asked = p->id == OC_PROTO_CHAT;
    for(int k = 0; k < OC_CLIENT__COUNT && !asked; k++)
      asked = (p->clients & (1u << k)) && m->cells[row][k].state != OC_CELL_NOT_EXERCISED;
    if(!asked)
      continue;
    fprintf(c->out, "  %-18s", oc_row_title(row));
    for(int k = 0; k < OC_CLIENT__COUNT; k++) {
      enum oc_cell_state st = m->cells[row][k].state;
      int w = k < last ? width[k] : 0; /* no trailing blanks */
      if(oc_matrix_has(m, k) && (p->clients & (1u << k)))
        fprintf(c->out, "  %s%-*s%s", cell_paint(c, st), w, cell_word(st), reset(c));
    }
    fputc('\n', c->out);
  }
  /* what each client shows of the reasoning the server sent, over every
   * case whose answer carried some; '*': markup reached the answer */
  int rsn = 0;
  for(int k = 0; k < OC_CLIENT__COUNT; k++)
    if(p->clients & (1u << k))
      rsn |= oc_cell_reasoning_word(&m->cells[OC_ROW_REASONING][k]) || m->cells[OC_ROW_REASONING][k].rsn_leaks;
  if(rsn) {
    fprintf(c->out, "  %-18s", "  reads reasoning");
    for(int k = 0; k < OC_CLIENT__COUNT; k++) {
      const struct oc_cell *cell = &m->cells[OC_ROW_REASONING][k];
      if(!oc_matrix_has(m, k) || !(p->clients & (1u << k)))
        continue;
      const char *w = oc_cell_reasoning_word(cell);
      char word[32];
      snprintf(word, sizeof(word), "%s%s", w ? w : "-", cell->rsn_leaks ? "*" : "");
      if(k < last)
        fprintf(c->out, "  %-*s", width[k], word);
      else
        fprintf(c->out, "  %s", word); /* no trailing blanks */
    }
    fputc('\n', c->out);
  }
  switch(p->id) {
  case OC_PROTO_CHAT:
    fprintf(c->out, "  node, python: openai-node, openai-python; -stream: their stream helpers; agents: the\n"
            "  Agents SDK on Chat Completions\n");
    break;
  case OC_PROTO_RESPONSES:
    fprintf(c->out, "  node: openai-node responses.create(); node-stream: responses.stream(); ai-sdk: the ai\n"
            "  SDK's @ai-sdk/openai Responses model; agents: the OpenAI Agents SDK\n");
    break;
  case OC_PROTO_MESSAGES:
    fprintf(c->out, "  sdk: @anthropic-ai/sdk messages.create(); sdk-stream: messages.stream(); ai-sdk:\n"
            "  @ai-sdk/anthropic; langchain: @langchain/anthropic\n");
    break;
  default:
    break;
  }
  if(m->columns & p->clients & ~OC_CLIENTS_TODAY)
    fprintf(c->out, "  @N: last year's major of the same client (openai 6, ai 5, @langchain/openai 0.6)\n");
  if(rsn)
    fprintf(c->out, "  reads reasoning: what the application can read of the reasoning the server sent\n"
            "  (seen, partial, hidden: the field it does not read); *: think or harmony markup in the answer\n");
}

void oc_console_matrix_from(struct oc_console *c, struct oc_results *rs)
{
  struct oc_matrix *ms = NULL;
  size_t n = 0;
  if(!rs || oc_matrix_build_from(rs, &ms, &n))
    return;
  struct oc_buf b;
  oc_buf_init(&b, 64u << 10);
  for(size_t t = 0; t < n; t++) {
    const struct oc_matrix *m = &ms[t];
    /* a block per protocol whose clients ran on this target */
    int blocks = 0;
    for(int p = 0; p < OC_PROTO__COUNT; p++)
      blocks += oc_matrix_block_exercised(m, oc_protocols[p]->clients);
    for(int p = 0; p < OC_PROTO__COUNT; p++)
      if(oc_matrix_block_exercised(m, oc_protocols[p]->clients))
        matrix_block(c, m, oc_protocols[p], blocks > 1 || p != OC_PROTO_CHAT, &b);
    fprintf(c->out, "  ok: works; BREAKS: the server breaks it; limit: the client's own limitation (OpenAI's\n"
            "  or Anthropic's own answers break it too); -: not exercised\n");
    int errors = 0, faults = 0;
    for(int row = 0; row < OC_ROW__COUNT; row++)
      for(int k = 0; k < OC_CLIENT__COUNT; k++) {
        errors |= m->cells[row][k].state == OC_CELL_ERROR;
        faults |= m->cells[row][k].state == OC_CELL_SERVER_FAULT;
      }
    /* only when they show: the legend of every other run stays as it was */
    if(faults)
      fprintf(c->out, "  fault: the client returns what the server sent, but the server left the\n"
              "  application an answer cut or unusable (the server's fault, not the client's)\n");
    if(errors)
      fprintf(c->out, "  error: a case of the row ended in error, so no verdict\n");
    /* each protocol's lines together, each with the same room: a server
     * that breaks every Responses client does not push chat's out */
    int more = 0;
    for(int p = 0; p < OC_PROTO__COUNT; p++) {
      unsigned cl = oc_protocols[p]->clients;
      if(!oc_matrix_block_exercised(m, cl))
        continue;
      int shown = cell_lines(c, m, cl, OC_CELL_BREAKS, 0, 8, &more);
      shown = cell_lines(c, m, cl, OC_CELL_SERVER_FAULT, shown, 8 + shown, &more);
      /* a line per row in error (seven at most), limitations as many as before */
      int before = shown;
      shown = error_lines(c, m, cl, shown, shown + OC_ROW__COUNT, &more);
      cell_lines(c, m, cl, OC_CELL_LIMITATION, shown, 10 + (shown - before), &more);
    }
    if(more)
      fprintf(c->out, "  … and %d more (the JSON report has every verdict)\n", more);
  }
  oc_buf_free(&b);
  oc_matrix_free(ms, n);
}

/* ---- "Will my agent work?" ----------------------------------------------------------- */

/* Per target and agent: how many exchanges its user saw as the server
 * sent them, how many the server broke, how many ended as OpenAI's own
 * answers of that shape end (its limitation), and the first of each of
 * the last two with its reason and case.  Nothing when no agent judged
 * anything (a run without its protocol's cases). */
void oc_console_agents_from(struct oc_console *c, struct oc_results *rs)
{
  if(!rs)
    return;
  const cJSON *t;
  struct oc_buf b1, b2, b3;
  oc_buf_init(&b1, 64u << 10);
  oc_buf_init(&b2, 64u << 10);
  oc_buf_init(&b3, 64u << 10);
  cJSON_ArrayForEach(t, oc_json_arr(rs->doc, "targets")) {
    const char *target = oc_json_str(t, "name");
    struct oc_agent_tally tl[OC_AGENT__COUNT];
    if(!oc_agents_tally(rs, target, tl))
      continue;
    fprintf(c->out, "\nWill my agent work? (%s)\n", safe(&b1, target));
    for(int a = 0; a < OC_AGENT__COUNT; a++) {
      if(!tl[a].works && !tl[a].breaks && !tl[a].limits && !tl[a].errors)
        continue;
      char who[64];
      snprintf(who, sizeof(who), "%s %s (%s)", oc_agent_name((enum oc_agent_id)a),
               oc_agent_version((enum oc_agent_id)a), oc_agent_protocol((enum oc_agent_id)a));
      char etxt[48] = "";
      if(tl[a].errors)
        snprintf(etxt, sizeof(etxt), ", the server's error shown %ld", tl[a].errors);
      fprintf(c->out, "  %-30s %sok %ld%s%s, %s%s %ld%s, limit %ld\n", who, paint(c, "pass"), tl[a].works,
              reset(c), etxt, tl[a].breaks ? paint(c, "fail") : "", "BREAKS", tl[a].breaks,
              tl[a].breaks ? reset(c) : "", tl[a].limits);
      long shown[2] = { tl[a].first_break, tl[a].first_limit };
      for(int k = 0; k < 2; k++) {
        if(shown[k] < 0)
          continue;
        char err[700];
        const cJSON *r = oc_results_get(rs, (size_t)shown[k], err, sizeof(err));
        const cJSON *v = r ? oc_json_obj(oc_json_obj(r, "agents"), oc_agent_name((enum oc_agent_id)a)) : NULL;
        const char *why = v ? oc_json_str(v, "reason") : NULL;
        const char *rule = v ? oc_json_str(v, "rule") : NULL;
        char *masked = why ? oc_secret_masked(why, strlen(why)) : NULL;
        oc_buf_reset(&b1);
        if(!masked || oc_esc_addn_cut(&b1, masked, OC_CONSOLE_REASON_MAX, OC_ESC_TEXT))
          oc_buf_reset(&b1);
        free(masked);
        fprintf(c->out, "  %s%-6s%s %s: %s%s%s%s (%s/%s)\n", paint(c, k ? "skip" : "fail"),
                k ? "limit" : "BREAKS", reset(c), oc_agent_name((enum oc_agent_id)a), oc_buf_str(&b1),
                rule ? " [" : "", rule ? rule : "", rule ? "]" : "", safe(&b2, rs->refs[shown[k]].suite),
                safe(&b3, rs->refs[shown[k]].kase));
      }
    }
    fprintf(c->out, "  what the agent's user sees, predicted from each answer of its protocol by a model\n"
            "  measured with the real agent (docs/agents.md); ok: the answer printed, the tool run or\n"
            "  the server's error shown; BREAKS: the server leaves the user without it\n");
  }
  oc_buf_free(&b1);
  oc_buf_free(&b2);
  oc_buf_free(&b3);
}

void oc_console_summary(struct oc_console *c, const cJSON *doc)
{
  struct oc_results rs;
  if(oc_results_from_doc(&rs, doc)) {
    oc_console_summary_from(c, doc, NULL);
    return;
  }
  oc_console_summary_from(c, doc, &rs);
  oc_results_free(&rs);
}

void oc_console_summary_from(struct oc_console *c, const cJSON *doc, struct oc_results *rs)
{
  clear_progress(c);
  oc_console_matrix_from(c, rs);
  oc_console_agents_from(c, rs);
  const cJSON *s = oc_json_obj(doc, "summary");
  long total = (long)oc_json_num(s, "total", 0), pass = (long)oc_json_num(s, "pass", 0);
  long fail = (long)oc_json_num(s, "fail", 0), error = (long)oc_json_num(s, "error", 0);
  long skip = (long)oc_json_num(s, "skip", 0), warn = (long)oc_json_num(s, "warnings", 0);
  /* the nouns agree with their counts (a one-case `pin --check` or
   * `check` said "1 cases"); passed, failed and skipped need not */
  fprintf(c->out, "\n%ld case%s: %s%ld passed%s, %s%ld failed%s, %s%ld error%s%s, %s%ld skipped%s; %ld warning%s\n",
          total, total == 1 ? "" : "s", paint(c, "pass"), pass, reset(c), fail ? paint(c, "fail") : "",
          fail, fail ? reset(c) : "", error ? paint(c, "error") : "", error, error == 1 ? "" : "s",
          error ? reset(c) : "", skip ? paint(c, "skip") : "", skip, skip ? reset(c) : "", warn,
          warn == 1 ? "" : "s");
  if(oc_json_bool(doc, "incomplete", 0)) {
    struct oc_buf b1;
    oc_buf_init(&b1, 64u << 10);
    fprintf(c->out, "%srun incomplete%s: %s\n", paint(c, "error"), reset(c),
            safe(&b1, oc_json_str(doc, "incomplete_reason")));
    oc_buf_free(&b1);
  }
  const cJSON *rules = oc_json_arr(s, "failing_rules");
  if(cJSON_GetArraySize(rules) > 0) {
    fprintf(c->out, "failing rules:");
    const cJSON *r;
    int n = 0;
    cJSON_ArrayForEach(r, rules)
    {
      if(n++ == 12) {
        fprintf(c->out, " …");
        break;
      }
      fprintf(c->out, " %s (%ld)", oc_json_str(r, "rule"), (long)oc_json_num(r, "cases", 0));
    }
    fprintf(c->out, "\n'oacheck rules RULE' explains a rule.\n");
  }
  const cJSON *t;
  cJSON_ArrayForEach(t, oc_json_arr(doc, "targets"))
  {
    if(!oc_json_bool(t, "reachable", 1)) {
      struct oc_buf b1, b2;
      oc_buf_init(&b1, 64u << 10);
      oc_buf_init(&b2, 64u << 10);
      fprintf(c->out, "%starget %s unreachable%s: %s\n", paint(c, "error"),
              safe(&b1, oc_json_str(t, "name")), reset(c), safe(&b2, oc_json_str(t, "error")));
      oc_buf_free(&b1);
      oc_buf_free(&b2);
    }
  }
  fflush(c->out);
}
