/* report_html.c — JSON results to one self-contained HTML file, streamed
 * (report.h): counts, the matrix and the grouping come from the results'
 * refs, and each case is read once and written out, failures first.  The
 * template, stylesheet and script come from reports/ in the data
 * directory and are inlined; everything from a results file is escaped
 * here, for text or attribute context, and no result data ever goes into
 * the script, which pages and filters the cases the page holds (a long
 * run's later pages in <noscript> blocks it turns into elements).  A
 * Content-Security-Policy allowing only the report's own script and style
 * (by hash) is a second wall behind the escaping.  Deciding statuses is
 * the runner's; this file only shows them. */
#include "config.h"
#include "report_html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "deployment.h"
#include "headers.h"
#include "html_out.h"
#include "json.h"
#include "load_text.h"
#include "matrix.h"
#include "protocol.h"
#include "serves.h"
#include "report.h"
#include "response.h"
#include "results_json.h"
#include "secret.h"
#include "shard.h"

#define OC_HTML_BODY_MAX (64u << 10)  /* bytes of one body shown */
#define OC_HTML_FIELD_MAX 2000        /* bytes of expected/actual/excerpt */
#define OC_HTML_EVENT_MAX 2000        /* bytes of one SSE event shown */
#define OC_HTML_EXCERPT_EVENTS 40     /* events around failing chunks */
#define OC_HTML_ALL_EVENTS 500        /* events in the "all kept events" list */
#define OC_HTML_TOP_RULES 10          /* rules in "failed most" */
#define OC_HTML_HEX_MAX 512           /* bytes of a hex dump of a binary body */
#define OC_HTML_MATRIX_CELLS (1u << 20) /* cases x targets beyond this: no matrix */
/* The page of a long run.  The first OC_HTML_FULL_CASES cases (failures
 * first) are shown whole: request, response, events, commands.  The rest
 * are brief (the verdict, one line per finding, the duration; the JSON
 * results keep everything) and wait in <noscript> blocks of
 * OC_HTML_PAGE_CASES: with scripts off a browser parses them as the rest
 * of the page, so every case shows; with scripts on it keeps each block
 * as one text node, which the script turns into elements when the reader
 * pages to it.  That keeps the DOM of a 10,000-case run at one page's
 * worth.  The script pages by the same number (PAGE in report.js). */
#define OC_HTML_FULL_CASES 100
#define OC_HTML_PAGE_CASES 100
#define OC_HTML_BRIEF_FINDINGS 10     /* finding lines of a brief case */

/* The page (html_out.h) and where it reads and writes its cases. */
struct out {
  struct oc_html h;
  struct oc_results *rs;   /* the results, one at a time */
  struct oc_sink *sink;    /* where h.b goes as it fills */
};

/* A hash shown by its first cut characters, whole on hover. */
static void hash_code(struct out *o, const char *hash, size_t cut)
{
  oc_html_put(&o->h, "<code title=\"");
  oc_html_attr(&o->h, hash);
  oc_html_put(&o->h, "\">");
  oc_html_txtcut(&o->h, hash, cut);
  oc_html_put(&o->h, "</code>");
}

static void num_ms(struct out *o, const cJSON *v)
{
  if(cJSON_IsNumber(v) && isfinite(v->valuedouble))
    oc_html_putf(&o->h, "%.1f ms", v->valuedouble);
  else
    oc_html_put(&o->h, "—");
}

/* ---- pieces ----------------------------------------------------------- */

static void header_section(struct out *o, const cJSON *doc)
{
  const cJSON *run = oc_json_obj(doc, "oacheck");
  oc_html_put(&o->h, "<h1>oacheck report</h1>\n<div class=\"meta\">");
  oc_html_put(&o->h, "<span>oacheck ");
  oc_html_txt(&o->h, oc_json_str(run, "version"));
  oc_html_put(&o->h, "</span><span>mode: ");
  oc_html_txt(&o->h, oc_json_str(run, "mode"));
  oc_html_put(&o->h, "</span><span>started ");
  oc_html_txt(&o->h, oc_json_str(run, "started"));
  oc_html_put(&o->h, "</span>");
  if(oc_json_str(run, "finished")) {
    oc_html_put(&o->h, "<span>finished ");
    oc_html_txt(&o->h, oc_json_str(run, "finished"));
    oc_html_put(&o->h, "</span>");
  }
  const cJSON *sh = oc_json_obj(run, "shard");
  if(oc_json_is_integer(oc_json_get(sh, "index")) && oc_json_is_integer(oc_json_get(sh, "count")))
    oc_html_putf(&o->h, "<span>shard %.0f of %.0f</span>", oc_json_num(sh, "index", 0),
         oc_json_num(sh, "count", 0));
  const cJSON *mf = oc_json_get(run, "merged_from");
  if(oc_json_is_integer(mf))
    oc_html_putf(&o->h, "<span>merged from %.0f result file%s</span>", mf->valuedouble,
                 mf->valuedouble == 1 ? "" : "s");
  const char *mode = oc_json_str(oc_json_obj(run, "policy"), "mode");
  if(mode) {
    oc_html_put(&o->h, "<span id=\"verdict-mode\">verdict: ");
    oc_html_txt(&o->h, mode);
    oc_html_put(&o->h, "</span>");
  }
  oc_html_put(&o->h, "</div>\n");
  if(oc_json_bool(doc, "incomplete", 0)) {
    oc_html_put(&o->h, "<div class=\"meta incomplete\"><b>Run incomplete:</b> ");
    oc_html_txt(&o->h, oc_json_str(doc, "incomplete_reason") ? oc_json_str(doc, "incomplete_reason")
                                                  : "the run was stopped early");
    oc_html_put(&o->h, "</div>\n");
  }
  /* a merge without all its shards is not the whole run: say so first */
  struct oc_buf sp;
  oc_buf_init(&sp, OC_CAP_MESSAGE * 16);
  if(oc_shards_problems(doc, &sp)) {
    oc_html_put(&o->h, "<div class=\"banner\" id=\"shards-problem\" role=\"alert\"><b>Incomplete run.</b>");
    for(const char *p = oc_buf_str(&sp); *p;) {
      const char *nl = strchr(p, '\n');
      size_t n = nl ? (size_t)(nl - p) : strlen(p);
      oc_html_put(&o->h, "<br>");
      oc_html_txtn(&o->h, p, n);
      p += n + (nl ? 1 : 0);
    }
    oc_html_put(&o->h, "</div>\n");
  }
  oc_buf_free(&sp);
  if(oc_json_str(run, "note")) {
    oc_html_put(&o->h, "<div class=\"meta\">");
    oc_html_txt(&o->h, oc_json_str(run, "note"));
    oc_html_put(&o->h, "</div>\n");
  }
  if(oc_json_str(run, "command")) {
    char *cmd = oc_results_scrub_command(oc_json_str(run, "command"));
    oc_html_put(&o->h, "<div class=\"meta\">command: <code>");
    oc_html_txt(&o->h, cmd);
    oc_html_put(&o->h, "</code></div>\n");
    free(cmd);
  }
}

/* ---- "Will my agent work?" -------------------------------------------------- */

/* A table per target whose exchanges an agent judged: per agent, what its
 * user saw, and the first break and limitation with their reason, linked
 * to their case (the console's section, report_console.c). */
static void agents_section(struct out *o)
{
  const cJSON *t;
  int opened = 0;
  cJSON_ArrayForEach(t, oc_json_arr(o->rs->doc, "targets")) {
    const char *target = oc_json_str(t, "name");
    struct oc_agent_tally tl[OC_AGENT__COUNT];
    if(!oc_agents_tally(o->rs, target, tl))
      continue;
    if(!opened++)
      oc_html_put(&o->h, "<section id=\"agents\">\n<h2>Will my agent work?</h2>\n");
    oc_html_put(&o->h, "<h3>");
    oc_html_txt(&o->h, target);
    oc_html_put(&o->h, "</h3>\n<div class=\"scroll\"><table class=\"clients\"><thead><tr><th>agent</th>"
                "<th>works</th><th>the server's error shown</th><th>breaks</th><th>its limitation</th>"
                "<th>first break (else limitation)</th></tr></thead>\n<tbody>\n");
    for(int a = 0; a < OC_AGENT__COUNT; a++) {
      if(!tl[a].works && !tl[a].errors && !tl[a].breaks && !tl[a].limits)
        continue;
      oc_html_putf(&o->h, "<tr><th>%s %s (%s)</th><td>%ld</td><td>%ld</td><td class=\"cl %s\">%ld</td><td>%ld</td><td>",
                   oc_agent_name((enum oc_agent_id)a), oc_agent_version((enum oc_agent_id)a),
                   oc_agent_protocol((enum oc_agent_id)a), tl[a].works, tl[a].errors,
                   tl[a].breaks ? "cl-breaks" : "cl-works", tl[a].breaks, tl[a].limits);
      long shown = tl[a].first_break >= 0 ? tl[a].first_break : tl[a].first_limit;
      if(shown >= 0) {
        char err[700];
        const cJSON *r = oc_results_get(o->rs, (size_t)shown, err, sizeof(err));
        const cJSON *v = r ? oc_json_obj(oc_json_obj(r, "agents"), oc_agent_name((enum oc_agent_id)a)) : NULL;
        oc_html_putf(&o->h, "<a href=\"#c-%ld\">", shown);
        oc_html_txt(&o->h, o->rs->refs[shown].suite);
        oc_html_put(&o->h, "/");
        oc_html_txt(&o->h, o->rs->refs[shown].kase);
        oc_html_put(&o->h, "</a><div class=\"why\">");
        oc_html_txtcut(&o->h, v ? oc_json_str(v, "reason") : "", OC_HTML_FIELD_MAX);
        oc_html_put(&o->h, "</div>");
      }
      oc_html_put(&o->h, "</td></tr>\n");
    }
    oc_html_put(&o->h, "</tbody></table></div>\n");
  }
  if(opened)
    oc_html_put(&o->h, "<p class=\"muted\">What the agent's user sees, predicted from each answer of its "
                "protocol by a model measured with the real agent (docs/agents.md).</p>\n</section>\n");
}

/* ---- "Will my client work?" ------------------------------------------------- */

static void clients_section(struct out *o, const cJSON *doc)
{
  struct oc_matrix *ms = NULL;
  size_t n = 0;
  int mrc = oc_matrix_build_from(o->rs, &ms, &n);
  if(mrc) {
    if(!o->h.rc)
      o->h.rc = mrc;
    return;
  }
  if(!n) {
    oc_matrix_free(ms, n);
    agents_section(o);
    return;
  }
  const cJSON *policy = oc_json_obj(oc_json_obj(doc, "oacheck"), "policy");
  oc_html_put(&o->h, "<section id=\"clients\">\n<h2>Will my client work?</h2>\n");
  if(oc_json_str(policy, "text")) {
    oc_html_put(&o->h, "<p class=\"muted\" id=\"policy\">Verdict: ");
    oc_html_txt(&o->h, oc_json_str(policy, "text"));
    oc_html_put(&o->h, "</p>\n");
  }
  int faults = 0;
  for(size_t t = 0; t < n; t++) {
    const struct oc_matrix *m = &ms[t];
    if(n > 1) {
      oc_html_put(&o->h, "<h3>");
      oc_html_txt(&o->h, m->target);
      oc_html_put(&o->h, "</h3>\n");
    }
    int blocks = 0;
    for(int p = 0; p < OC_PROTO__COUNT; p++)
      blocks += oc_matrix_block_exercised(m, oc_protocols[p]->clients);
    for(int pi = 0; pi < OC_PROTO__COUNT; pi++) {
      const struct oc_protocol *p = oc_protocols[pi];
      if(!oc_matrix_block_exercised(m, p->clients))
        continue;
      if(blocks > 1 || pi != OC_PROTO_CHAT) {
        oc_html_putf(&o->h, "<h4 class=\"protocol\" id=\"clients-%zu-%s\">", t, p->name);
        oc_html_txt(&o->h, p->title);
        oc_html_put(&o->h, "</h4>\n");
      }
      oc_html_put(&o->h, "<div class=\"scroll\"><table class=\"clients\"><thead><tr><th></th>");
      for(int k = 0; k < OC_CLIENT__COUNT; k++) {
        if(!oc_matrix_has(m, k) || !(p->clients & (1u << k)))
          continue;
        oc_html_put(&o->h, "<th>");
        oc_html_txt(&o->h, oc_client_name((enum oc_client_id)k));
        oc_html_put(&o->h, "</th>");
      }
      oc_html_put(&o->h, "</tr></thead>\n<tbody>\n");
      for(int row = 0; row < OC_ROW__COUNT; row++) {
        /* chat: every row, as the checklist stands; the others: the rows
         * their cases asked */
        int asked = p->id == OC_PROTO_CHAT;
        for(int k = 0; k < OC_CLIENT__COUNT && !asked; k++)
          asked = (p->clients & (1u << k)) && m->cells[row][k].state != OC_CELL_NOT_EXERCISED;
        if(!asked)
          continue;
        oc_html_put(&o->h, "<tr><th>");
        oc_html_txt(&o->h, oc_row_title(row));
        oc_html_put(&o->h, "</th>");
        for(int k = 0; k < OC_CLIENT__COUNT; k++) {
          const struct oc_cell *c = &m->cells[row][k];
          if(!oc_matrix_has(m, k) || !(p->clients & (1u << k)))
            continue;
          switch(c->state) {
          case OC_CELL_NOT_EXERCISED:
            oc_html_put(&o->h, "<td class=\"cl cl-none\">—</td>");
            break;
          case OC_CELL_WORKS:
            oc_html_putf(&o->h, "<td class=\"cl cl-works\">works <span class=\"muted\">(%d)</span></td>", c->works);
            break;
          case OC_CELL_BREAKS:
          case OC_CELL_LIMITATION:
          case OC_CELL_ERROR:
          case OC_CELL_SERVER_FAULT:
            faults |= c->state == OC_CELL_SERVER_FAULT;
            oc_html_putf(&o->h, "<td class=\"cl cl-%s\"><a href=\"#c-%d\">%s</a><div class=\"why\">",
                 c->state == OC_CELL_BREAKS ? "breaks" : c->state == OC_CELL_ERROR ? "error"
                 : c->state == OC_CELL_SERVER_FAULT ? "fault" : "limit",
                 c->result_index,
                 c->state == OC_CELL_BREAKS ? "breaks" : c->state == OC_CELL_ERROR ? "no verdict"
                 : c->state == OC_CELL_SERVER_FAULT ? "server fault" : "its limitation");
            oc_html_txtcut(&o->h, c->reason ? c->reason : "", OC_HTML_FIELD_MAX);
            oc_html_put(&o->h, " <span class=\"muted\">(");
            oc_html_txt(&o->h, c->suite);
            oc_html_put(&o->h, "/");
            oc_html_txt(&o->h, c->kase);
            oc_html_put(&o->h, ")</span></div></td>");
            break;
          }
        }
        oc_html_put(&o->h, "</tr>\n");
      }
      /* what each client reads of the reasoning the server sent (every
       * case whose answer carried some), and markup left in the answer */
      int rsn = 0;
      for(int k = 0; k < OC_CLIENT__COUNT; k++)
        if(p->clients & (1u << k))
          rsn |= oc_cell_reasoning_word(&m->cells[OC_ROW_REASONING][k]) || m->cells[OC_ROW_REASONING][k].rsn_leaks;
      if(rsn) {
        oc_html_put(&o->h, "<tr class=\"rsn\"><th>reads reasoning</th>");
        for(int k = 0; k < OC_CLIENT__COUNT; k++) {
          const struct oc_cell *c = &m->cells[OC_ROW_REASONING][k];
          const char *w = oc_cell_reasoning_word(c);
          if(!oc_matrix_has(m, k) || !(p->clients & (1u << k)))
            continue;
          oc_html_putf(&o->h, "<td class=\"cl %s\">%s <span class=\"muted\">(%d/%d/%d)</span>%s</td>",
                       !w ? "cl-none" : c->rsn_hidden || c->rsn_partial ? "cl-limit" : "cl-works", w ? w : "—",
                       c->rsn_seen, c->rsn_partial, c->rsn_hidden,
                       c->rsn_leaks ? "<div class=\"why\">markup in the answer</div>" : "");
        }
        oc_html_put(&o->h, "</tr>\n");
      }
      oc_html_put(&o->h, "</tbody></table></div>\n");
    }
  }
  if(faults) /* only when one shows: every other report's legend stays as it was */
    oc_html_put(&o->h, "<p class=\"muted\" id=\"fault-legend\"><b>server fault</b>: the client returns "
                "what the server sent, but the server left the application an answer cut or unusable "
                "(a stream ended without a finish_reason, tool-call arguments that are not a JSON "
                "object): the server's fault, not the client's (the first such case is linked).</p>\n");
  oc_html_put(&o->h, "<p class=\"muted\">A row is what a case asks (a tag <code>checklist:ROW</code> overrides). "
         "<b>works</b>: the application gets the server's answer, or its error with the server's message "
         "(cases); <b>breaks</b>: the server's answer breaks the client (the first such case is linked); "
         "<b>its limitation</b>: a break OpenAI's own answers cause in this client too; <b>no verdict</b>: "
         "a case of the row ended in error (the first is linked), so the row is not known to work; —: no case "
         "exercised it. <b>reads reasoning</b> (when an answer carried some): what the application can read "
         "of the reasoning the server sent, over every such case (counted seen/partial/hidden; partial is "
         "openai-node's stream helper keeping the last fragment, hidden a field the client does not read), "
         "and whether think or harmony markup reached the answer text. openai-node, the ai SDK, LangChain "
         "and the Agents SDK are verified against the real libraries, openai-python is emulated from its "
         "published behaviour (docs/clients.md).</p>\n</section>\n");
  oc_matrix_free(ms, n);
  agents_section(o);
}

static void count_box(struct out *o, const char *cls, long n, const char *label)
{
  oc_html_putf(&o->h, "<div class=\"count %s\"><span class=\"n\" id=\"count-%s\">%ld</span>"
          "<span class=\"l\">%s</span></div>\n", cls, cls, n, label);
}

static void target_row(struct out *o, const cJSON *doc, const cJSON *t)
{
  const char *name = oc_json_str(t, "name");
  const cJSON *id = oc_json_obj(t, "identity");
  struct oc_counts c;
  oc_results_counts(o->rs, name ? name : "", NULL, &c);
  char tmp[64];
  oc_html_put(&o->h, "<tr><td><b>");
  oc_html_txt(&o->h, name);
  oc_html_putf(&o->h, "</b></td><td class=\"num\">%ld</td><td class=\"num\">%ld</td><td class=\"num\">%ld</td>"
          "<td class=\"num\">%ld</td><td>", c.pass, c.fail, c.error, c.skip);
  oc_html_txt(&o->h, oc_json_str(t, "kind"));
  oc_html_put(&o->h, "</td><td><code>");
  if(oc_json_str(t, "url")) {
    char *u = oc_results_clean_url(oc_json_str(t, "url"));
    oc_html_txt(&o->h, u);
    free(u);
  }
  else
    oc_html_txt(&o->h, oc_json_str(t, "recordings"));
  oc_html_put(&o->h, "</code></td><td>");
  oc_html_txt(&o->h, oc_json_str(t, "profile"));
  if(oc_json_str(t, "profile_source")) {
    oc_html_put(&o->h, " <span class=\"muted\">(");
    oc_html_txt(&o->h, oc_json_str(t, "profile_source"));
    oc_html_put(&o->h, ")</span>");
  }
  char protocols[600];
  oc_serves_text_of(oc_json_obj(t, "protocols"), protocols, sizeof(protocols));
  if(protocols[0]) {
    oc_html_put(&o->h, "<br><span class=\"muted\">protocols: ");
    oc_html_txt(&o->h, protocols);
    oc_html_put(&o->h, "</span>");
  }
  oc_html_put(&o->h, "</td><td>");
  oc_html_txt(&o->h, oc_json_str(id, "model"));
  if(oc_json_str(id, "models_problem")) {
    /* why there is no model: the cases that needed one say only that */
    oc_html_put(&o->h, " <span class=\"st st-error\">no model list</span> ");
    oc_html_txt(&o->h, oc_json_str(id, "models_problem"));
  }
  const cJSON *load = oc_json_obj(id, "load");
  if(load && cJSON_IsNumber(oc_json_get(load, "first_request_ms")))
    /* a router's model loaded by its first request: slow once, not judged */
    oc_html_putf(&o->h, " <span class=\"muted\">(loaded on first use: %.1f ms)</span>",
         oc_json_num(load, "first_request_ms", 0));
  oc_html_put(&o->h, "</td><td class=\"num\">");
  oc_html_txt(&o->h, oc_json_scalar_text(oc_json_get(id, "n_ctx"), tmp, sizeof(tmp)));
  oc_html_put(&o->h, "</td><td>");
  oc_html_txt(&o->h, oc_json_str(id, "build"));
  oc_html_put(&o->h, "</td><td>");
  oc_html_txt(&o->h, oc_json_str(id, "server"));
  oc_html_put(&o->h, "</td><td>");
  const char *sha = oc_json_str(id, "chat_template_sha256");
  if(sha)
    hash_code(o, sha, 16);
  oc_html_put(&o->h, "</td><td>");
  if(cJSON_IsFalse(oc_json_get(t, "reachable"))) {
    oc_html_put(&o->h, "<span class=\"st st-error\">unreachable</span> ");
    oc_html_txt(&o->h, oc_json_str(t, "error"));
  }
  else
    oc_html_put(&o->h, "yes");
  oc_html_put(&o->h, "</td><td>");
  const cJSON *tr = oc_json_get(t, "timing_recorded");
  oc_html_put(&o->h, cJSON_IsBool(tr) ? (cJSON_IsTrue(tr) ? "recorded" : "not recorded") : "");
  oc_html_put(&o->h, "</td></tr>\n");
}

/* `oacheck run --load`: what failed only with N in flight, and why. */
static void load_table(struct out *o, const cJSON *load)
{
  if(!load)
    return;
  const cJSON *only = oc_json_arr(load, "only_under_load");
  int n = cJSON_GetArraySize(only);
  double cases = oc_json_num(load, "cases", 0);
  oc_html_putf(&o->h, "<h3 id=\"load\">Fails only under load</h3>\n<p>%.0f requests in flight per target, "
          "%.0f round%s of %.0f case%s: %d case%s passed alone and failed under load.",
       oc_json_num(load, "in_flight", 0), oc_json_num(load, "rounds", 0),
       oc_json_num(load, "rounds", 0) == 1 ? "" : "s", cases, cases == 1 ? "" : "s", n,
       n == 1 ? "" : "s");
  /* the same counts and stop as the console's load section */
  char counts[400];
  if(oc_load_runs_text(load, counts, sizeof(counts))) {
    oc_html_put(&o->h, " ");
    oc_html_txt(&o->h, counts);
    oc_html_put(&o->h, ".");
  }
  if(oc_json_str(load, "stopped_reason")) {
    oc_html_put(&o->h, " <b>Load ");
    oc_html_txt(&o->h, oc_json_str(load, "stopped_reason"));
    oc_html_put(&o->h, ".</b>");
  }
  oc_html_put(&o->h, "</p>\n");
  if(!n)
    return;
  oc_html_put(&o->h, "<div class=\"scroll\"><table class=\"load\"><thead><tr><th>target</th><th>case</th>"
         "<th>under load</th><th>cause</th><th>fix</th></tr></thead><tbody>\n");
  const cJSON *e;
  cJSON_ArrayForEach(e, only)
  {
    const cJSON *dg = oc_json_obj(e, "diagnosis");
    oc_html_put(&o->h, "<tr><td>");
    oc_html_txt(&o->h, oc_json_str(e, "target"));
    oc_html_put(&o->h, "</td><td>");
    oc_html_txt(&o->h, oc_json_str(e, "suite"));
    oc_html_put(&o->h, "/");
    oc_html_txt(&o->h, oc_json_str(e, "case"));
    oc_html_put(&o->h, "</td><td>");
    oc_html_txt(&o->h, oc_json_str(e, "failure"));
    oc_html_put(&o->h, "</td><td>");
    if(dg) {
      oc_html_put(&o->h, "<code>");
      oc_html_txt(&o->h, oc_json_str(dg, "id"));
      oc_html_put(&o->h, "</code>: ");
      oc_html_txt(&o->h, oc_json_str(dg, "cause"));
    }
    else
      oc_html_put(&o->h, "<span class=\"muted\">not one the deployment's facts explain</span>");
    oc_html_put(&o->h, "</td><td>");
    oc_html_txt(&o->h, oc_json_str(dg, "fix"));
    oc_html_put(&o->h, "</td></tr>\n");
  }
  oc_html_put(&o->h, "</tbody></table></div>\n");
}

/* Under the targets table: what each target's recordings are, what the
 * deployment says about itself, how many cases it ran at once, and what
 * the run learnt about it (cases run again alone, waits for a slot, the
 * diagnoses with their fixes). */
static void deployment_section(struct out *o, const cJSON *doc)
{
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_MESSAGE * 4);
  int any = 0;
  const cJSON *t;
  cJSON_ArrayForEach(t, oc_json_arr(doc, "targets"))
  {
    const cJSON *rec = oc_json_obj(t, "recorded"), *dep = oc_json_obj(t, "deployment");
    const cJSON *jobs = oc_json_get(t, "jobs");
    if(!rec && !dep && !jobs)
      continue;
    if(!any++)
      oc_html_put(&o->h, "<h3>Deployment</h3>\n<dl class=\"deployment\">\n");
    oc_html_put(&o->h, "<dt>");
    oc_html_txt(&o->h, oc_json_str(t, "name"));
    oc_html_put(&o->h, "</dt>\n");
    oc_buf_reset(&b);
    if(rec && oc_recorded_text(rec, &b) == OC_OK) {
      oc_html_put(&o->h, "<dd class=\"recorded\">recorded: ");
      oc_html_txt(&o->h, oc_buf_str(&b));
      oc_html_put(&o->h, "</dd>\n");
    }
    oc_buf_reset(&b);
    if(dep && oc_deployment_text(dep, &b) == OC_OK) {
      oc_html_put(&o->h, "<dd class=\"facts\">");
      oc_html_txt(&o->h, oc_buf_str(&b));
      oc_html_put(&o->h, "</dd>\n");
    }
    if(oc_json_str(dep, "context")) {
      oc_html_put(&o->h, "<dd class=\"muted\">context: ");
      oc_html_txt(&o->h, oc_json_str(dep, "context"));
      oc_html_put(&o->h, "</dd>\n");
    }
    if(oc_json_is_integer(jobs)) {
      oc_html_putf(&o->h, "<dd>%.0f case%s in flight (", jobs->valuedouble, jobs->valuedouble == 1 ? "" : "s");
      oc_html_txt(&o->h, oc_streq(oc_json_str(t, "jobs_source"), "total_slots") ? "the target's total_slots"
                                                                     : oc_json_str(t, "jobs_source"));
      oc_html_put(&o->h, ")</dd>\n");
    }
  }
  if(any)
    oc_html_put(&o->h, "</dl>\n");
  load_table(o, oc_json_obj(doc, "load"));
  oc_buf_reset(&b);
  int drc = o->rs->deploy ? oc_deploy_tally_text(o->rs->deploy, &b) : oc_deployment_summary(doc, &b);
  if(drc == OC_OK && b.len) {
    oc_html_put(&o->h, "<pre class=\"deployment-summary\">");
    oc_html_txt(&o->h, oc_buf_str(&b));
    oc_html_put(&o->h, "</pre>\n");
  }
  oc_buf_free(&b);
}

/* A finding's diagnosis, beside it: the cause in this deployment's own
 * numbers, the flags and the fix. */
static void diagnosis_row(struct out *o, const cJSON *f)
{
  const cJSON *dg = oc_json_obj(f, "diagnosis");
  if(!dg)
    return;
  oc_html_put(&o->h, "<tr class=\"diagnosis\"><td colspan=\"7\"><b>cause</b> <code>");
  oc_html_txt(&o->h, oc_json_str(dg, "id"));
  oc_html_put(&o->h, "</code>: ");
  oc_html_txt(&o->h, oc_json_str(dg, "cause"));
  oc_html_put(&o->h, "<br><b>fix</b> (<code>");
  oc_html_txt(&o->h, oc_json_str(dg, "flags"));
  oc_html_put(&o->h, "</code>): ");
  oc_html_txt(&o->h, oc_json_str(dg, "fix"));
  oc_html_put(&o->h, "</td></tr>\n");
}

/* A case that ran again alone says what it got with others in flight. */
static void rerun_note(struct out *o, const cJSON *r)
{
  const cJSON *first = oc_json_obj(r, "rerun");
  if(!first)
    return;
  const char *st = oc_json_str(first, "status");
  oc_html_putf(&o->h, "<p class=\"rerun\">Ran again alone: with %.0f requests in flight it had %s (",
       oc_json_num(first, "in_flight", 0), oc_streq(st, "error") ? "ended in an error" : "failed");
  oc_html_txt(&o->h, oc_json_str(first, "message"));
  oc_html_put(&o->h, ")");
  const cJSON *dg = oc_json_obj(first, "diagnosis");
  if(dg) {
    oc_html_put(&o->h, ": ");
    oc_html_txt(&o->h, oc_json_str(dg, "cause"));
  }
  oc_html_put(&o->h, ".</p>\n");
}

static void summary_section(struct out *o, const cJSON *doc)
{
  struct oc_counts c;
  oc_results_counts(o->rs, NULL, NULL, &c);
  oc_html_put(&o->h, "<section id=\"summary\">\n<h2>Summary</h2>\n<div class=\"counts\">\n");
  count_box(o, "total", c.total, "cases");
  count_box(o, "pass", c.pass, "pass");
  count_box(o, "fail", c.fail, "fail");
  count_box(o, "error", c.error, "error");
  count_box(o, "skip", c.skip, "skip");
  count_box(o, "warnings", c.warnings, "warnings");
  oc_html_put(&o->h, "</div>\n");
  const cJSON *d = oc_json_get(oc_json_obj(doc, "summary"), "duration_ms");
  oc_html_put(&o->h, "<p class=\"muted\">");
  if(cJSON_IsNumber(d) && isfinite(d->valuedouble)) {
    oc_html_put(&o->h, "run time ");
    num_ms(o, d);
    oc_html_put(&o->h, "; ");
  }
  oc_html_putf(&o->h, "cases took %.1f ms in all.</p>\n", c.duration_ms);

  int many = cJSON_GetArraySize(oc_json_arr(doc, "targets")) > 8;
  if(many)
    oc_html_putf(&o->h, "<details class=\"targets\"><summary><h3>Targets (%d)</h3></summary>\n",
         cJSON_GetArraySize(oc_json_arr(doc, "targets")));
  else
    oc_html_put(&o->h, "<h3>Targets</h3>\n");
  oc_html_put(&o->h, "<div class=\"scroll\"><table class=\"targets\"><thead><tr><th>target</th>"
         "<th class=\"num\">pass</th><th class=\"num\">fail</th><th class=\"num\">error</th>"
         "<th class=\"num\">skip</th><th>kind</th><th>where</th><th>profile</th><th>model</th>"
         "<th class=\"num\">n_ctx</th><th>build</th><th>server</th><th>chat template SHA-256</th>"
         "<th>reachable</th><th>timing</th></tr></thead>\n<tbody>\n");
  const cJSON *t;
  cJSON_ArrayForEach(t, oc_json_arr(doc, "targets"))
    if(cJSON_IsObject(t))
      target_row(o, doc, t);
  oc_html_put(&o->h, "</tbody></table></div>\n");
  if(many)
    oc_html_put(&o->h, "</details>\n");
  deployment_section(o, doc);

  oc_html_put(&o->h, "<h3>Rules that failed most</h3>\n");
  /* a document's results are counted again (its summary may be stale); a
   * run's summary was counted as its cases ended */
  cJSON *rules = o->rs->items ? oc_results_failing_rules(doc)
                              : cJSON_Duplicate(oc_json_arr(oc_json_obj(doc, "summary"), "failing_rules"), 1);
  if(!rules) {
    if(!o->h.rc)
      o->h.rc = OC_ENOMEM;
    return;
  }
  if(!cJSON_GetArraySize(rules))
    oc_html_put(&o->h, "<p class=\"muted\">No rule failed.</p>\n");
  else {
    oc_html_put(&o->h, "<table class=\"rules\"><thead><tr><th>rule</th><th class=\"num\">cases</th></tr></thead><tbody>\n");
    int k = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, rules) {
      if(k++ >= OC_HTML_TOP_RULES)
        break;
      oc_html_put(&o->h, "<tr><td><code>");
      oc_html_txt(&o->h, oc_json_str(r, "rule"));
      oc_html_putf(&o->h, "</code></td><td class=\"num\">%.0f</td></tr>\n", oc_json_num(r, "cases", 0));
    }
    oc_html_put(&o->h, "</tbody></table>\n");
  }
  cJSON_Delete(rules);
  oc_html_put(&o->h, "</section>\n");
}

/* ---- the matrix ------------------------------------------------------- */

struct pair {
  const char *suite, *name;
};

static int is_templates_run(const struct out *o);

static void matrix_section(struct out *o, const cJSON *doc)
{
  if(is_templates_run(o))
    return; /* the grid shows it, a row per template */
  const struct oc_results *rs = o->rs;
  struct oc_pairs cols, rows;
  oc_pairs_init(&cols);
  oc_pairs_init(&rows);
  size_t *row_of = NULL, *col_of = NULL;
  long *grid = NULL;
  size_t nres = rs->count;
  if(!nres)
    return;
  row_of = calloc(nres, sizeof(*row_of));
  col_of = calloc(nres, sizeof(*col_of));
  if(!row_of || !col_of)
    goto nomem;
  /* columns: the targets in the order given, then any only results name */
  const cJSON *t;
  size_t id;
  cJSON_ArrayForEach(t, oc_json_arr(doc, "targets"))
    if(oc_json_str(t, "name") && oc_pairs_id(&cols, oc_json_str(t, "name"), "", &id))
      goto nomem;
  size_t given = cols.count;
  unsigned char *used = NULL;
  for(size_t i = 0; i < nres; i++)
    if(oc_pairs_id(&cols, rs->refs[i].target ? rs->refs[i].target : "", "", &col_of[i]) ||
       oc_pairs_id(&rows, rs->refs[i].suite, rs->refs[i].kase, &row_of[i]))
      goto nomem;
  size_t nt = cols.count, nrows = rows.count;
  /* targets that ran nothing need no column */
  used = calloc(nt + 1, 1);
  if(!used)
    goto nomem;
  size_t used_cols = 0;
  for(size_t i = 0; i < nres; i++)
    if(!used[col_of[i]]) {
      used[col_of[i]] = 1;
      used_cols++;
    }
  free(used);
  (void)given;
  if(used_cols < 2)
    goto out;
  if(nrows * nt > OC_HTML_MATRIX_CELLS) {
    oc_html_putf(&o->h, "<section id=\"matrix\">\n<h2>Cases × targets</h2>\n<p class=\"muted\">%zu cases on "
            "%zu targets are too many for a matrix; see the cases below.</p>\n</section>\n", nrows, nt);
    goto out;
  }
  grid = malloc(nrows * nt * sizeof(*grid));
  if(!grid)
    goto nomem;
  for(size_t k = 0; k < nrows * nt; k++)
    grid[k] = -1;
  for(size_t j = 0; j < nres; j++)
    grid[row_of[j] * nt + col_of[j]] = (long)j;

  /* a router's (or a model list's) targets are its models: the model matrix */
  int models = 1;
  cJSON_ArrayForEach(t, oc_json_arr(doc, "targets"))
    models &= oc_json_str(t, "router") != NULL;
  oc_html_putf(&o->h, "<section id=\"matrix\">\n<h2>Cases × %s</h2>\n<div class=\"scroll\"><table class=\"matrix\"><thead><tr>"
          "<th>suite</th><th>case</th>", models ? "models" : "targets");
  for(size_t k = 0; k < nt; k++) {
    oc_html_put(&o->h, "<th>");
    oc_html_txt(&o->h, cols.as[k]);
    oc_html_put(&o->h, "</th>");
  }
  oc_html_put(&o->h, "</tr></thead>\n<tbody>\n");
  for(size_t row = 0; row < nrows && !o->h.rc; row++) {
    oc_html_put(&o->h, "<tr><td>");
    oc_html_txt(&o->h, rows.as[row]);
    oc_html_put(&o->h, "</td><td class=\"case-name\">");
    oc_html_txt(&o->h, rows.bs[row]);
    oc_html_put(&o->h, "</td>");
    for(size_t k = 0; k < nt; k++) {
      long j = grid[row * nt + k];
      if(j < 0) {
        oc_html_put(&o->h, "<td><span class=\"st st-none\">—</span></td>");
        continue;
      }
      const char *st = oc_status_name(rs->refs[j].status);
      oc_html_putf(&o->h, "<td><a class=\"st st-%s\" href=\"#c-%ld\">%s</a></td>", st, j, st);
    }
    oc_html_put(&o->h, "</tr>\n");
    if(!o->h.rc)
      o->h.rc = oc_sink_flush(o->sink);
  }
  oc_html_put(&o->h, "</tbody></table></div>\n</section>\n");
  goto out;
nomem:
  if(!o->h.rc)
    o->h.rc = OC_ENOMEM;
out:
  oc_pairs_free(&cols);
  oc_pairs_free(&rows);
  free(row_of);
  free(col_of);
  free(grid);
}

/* ---- many templates: the grid ------------------------------------------ */

#define OC_HTML_DIFF_LINES 4000       /* lines of one prompt compared */
#define OC_HTML_DIFF_CELLS (4u << 20) /* LCS table cells: beyond, no diff */

/* A run of `oacheck templates`: every result is a render of its suite. */
static int is_templates_run(const struct out *o)
{
  for(size_t i = 0; i < o->rs->count; i++)
    if(!oc_streq(o->rs->refs[i].suite, "templates"))
      return 0;
  return o->rs->count > 0;
}

/* The order a cell sorts in: worst first (fail, error, warning, info,
 * ok, skip). */
static int verdict_rank(const cJSON *r, const cJSON **worst, int *nfind)
{
  static const char *const sev[] = { "error", "warning", "info" };
  enum oc_status st = oc_result_status(r);
  int best = 3;
  *worst = NULL;
  *nfind = 0;
  const cJSON *f;
  cJSON_ArrayForEach(f, oc_json_arr(r, "findings")) {
    (*nfind)++;
    for(int k = 0; k < 3; k++)
      if(oc_streq(oc_json_str(f, "severity"), sev[k]) && k < best) {
        best = k;
        *worst = f;
      }
  }
  if(st == OC_ST_FAIL)
    return 0;
  if(st == OC_ST_ERROR || st == OC_ST_INVALID)
    return 1;
  if(st == OC_ST_SKIP)
    return 6;
  return best == 1 ? 2 : best == 0 ? 2 : best == 2 ? 3 : 4;
}

/* The index of the first result of target × case, -1 when none (from the
 * refs: a templates run is fixtures × targets, a few hundred at most). */
static long result_index(const struct oc_results *rs, const char *target, const char *kase)
{
  for(size_t i = 0; i < rs->count; i++)
    if(oc_streq(rs->refs[i].target, target) && oc_streq(rs->refs[i].kase, kase))
      return (long)i;
  return -1;
}

/* Result index read (borrowed until the next read), NULL when there is
 * none or it cannot be read (o->h.rc then says so). */
static const cJSON *result_read(struct out *o, long index)
{
  if(index < 0)
    return NULL;
  char err[700];
  const cJSON *r = oc_results_get(o->rs, (size_t)index, err, sizeof(err));
  if(!r) {
    oc_error("%s", err);
    if(!o->h.rc)
      o->h.rc = OC_EIO;
  }
  return r;
}

static void grid_section(struct out *o, const cJSON *doc)
{
  if(!is_templates_run(o))
    return;
  /* fixtures in the order they ran, targets in the order given */
  const char *fx[64];
  size_t nf = 0;
  const cJSON *t;
  for(size_t i = 0; i < o->rs->count; i++) {
    const char *c = o->rs->refs[i].kase;
    size_t k = 0;
    while(c && k < nf && strcmp(fx[k], c))
      k++;
    if(c && k == nf && nf < OC_ARRAY_LEN(fx))
      fx[nf++] = c;
  }
  oc_html_put(&o->h, "<section id=\"grid\">\n<h2>Templates × fixtures</h2>\n<p class=\"muted\">Each cell is "
         "the verdict on one conversation rendered by one target's chat template, with its worst "
         "finding; click it for the rendered prompt, compared with the first target's. Click a "
         "column heading to sort.</p>\n<div class=\"scroll\"><table class=\"grid sortable\" "
         "id=\"template-grid\"><thead><tr><th data-sort=\"text\">template</th>"
         "<th data-sort=\"text\">chat template SHA-256</th><th data-sort=\"num\">findings</th>");
  for(size_t k = 0; k < nf; k++) {
    oc_html_put(&o->h, "<th data-sort=\"num\">");
    oc_html_txt(&o->h, fx[k]);
    oc_html_put(&o->h, "</th>");
  }
  oc_html_put(&o->h, "</tr></thead>\n<tbody>\n");
  cJSON_ArrayForEach(t, oc_json_arr(doc, "targets")) {
    const char *name = oc_json_str(t, "name");
    if(!name)
      continue;
    const cJSON *id = oc_json_obj(t, "identity");
    long total = 0;
    for(size_t k = 0; k < nf; k++) {
      const cJSON *x = result_read(o, result_index(o->rs, name, fx[k]));
      total += x ? cJSON_GetArraySize(oc_json_arr(x, "findings")) : 0;
    }
    oc_html_put(&o->h, "<tr><td class=\"tname\">");
    oc_html_txt(&o->h, name);
    const char *model = oc_json_str(t, "model");
    if(model) {
      oc_html_put(&o->h, " <span class=\"muted\">");
      oc_html_txt(&o->h, model);
      oc_html_put(&o->h, "</span>");
    }
    oc_html_put(&o->h, "</td><td>");
    const char *sha = oc_json_str(id, "chat_template_sha256");
    if(sha)
      hash_code(o, sha, 12);
    else
      oc_html_put(&o->h, "<span class=\"muted\">unknown</span>");
    oc_html_putf(&o->h, "</td><td class=\"num\" data-v=\"%ld\">%ld</td>", total, total);
    for(size_t k = 0; k < nf; k++) {
      int idx = (int)result_index(o->rs, name, fx[k]);
      const cJSON *x = result_read(o, idx);
      if(!x) {
        oc_html_put(&o->h, "<td class=\"cell\" data-v=\"9000000000\"><span class=\"st st-none\">—</span></td>");
        continue;
      }
      const cJSON *worst;
      int nfind;
      int rank = verdict_rank(x, &worst, &nfind);
      const cJSON *rd = oc_json_obj(x, "render");
      const cJSON *tok = oc_json_get(rd, "prompt_tokens"), *bytes = oc_json_get(rd, "prompt_bytes");
      double size = oc_json_is_integer(tok) ? tok->valuedouble
                  : oc_json_is_integer(bytes) ? bytes->valuedouble : 0;
      static const char *const cls[] = { "fail", "error", "warn", "info", "pass", "pass", "skip" };
      static const char *const word[] = { "fail", "error", "warn", "info", "ok", "ok", "skip" };
      oc_html_putf(&o->h, "<td class=\"cell cell-%s\" data-v=\"%.0f\"><a class=\"st st-%s\" href=\"#c-%d\">%s</a>",
           cls[rank], (double)rank * 1e9 + (size < 1e9 ? size : 1e9 - 1), cls[rank], idx,
           word[rank]);
      if(worst) {
        const char *rule = oc_json_str(worst, "rule");
        oc_html_put(&o->h, " <code class=\"rule\" title=\"");
        oc_html_attr(&o->h, oc_json_str(worst, "message"));
        oc_html_put(&o->h, "\">");
        oc_html_txt(&o->h, rule && oc_startswith(rule, "TEMPLATE-") ? rule + 9 : rule);
        oc_html_put(&o->h, "</code>");
        if(nfind > 1)
          oc_html_putf(&o->h, " <span class=\"more\">+%d</span>", nfind - 1);
      }
      /* a render of reasoning sent back: the template's behaviour */
      const char *beh = oc_json_str(oc_json_obj(rd, "reasoning"), "state");
      if(beh) {
        const char *after = oc_json_str(oc_json_obj(rd, "reasoning"), "followed_by");
        oc_html_put(&o->h, "<br><span class=\"beh\" title=\"");
        oc_html_attr(&o->h, oc_streq(after, "tool") ? "the reasoning of the turn a tool result follows"
                                                    : "the reasoning of a turn a user message follows");
        oc_html_put(&o->h, "\">reasoning ");
        oc_html_txt(&o->h, beh);
        oc_html_put(&o->h, "</span>");
      }
      if(oc_json_is_integer(tok))
        oc_html_putf(&o->h, "<br><span class=\"tok\">%.0f tokens</span>", tok->valuedouble);
      else if(oc_json_is_integer(bytes))
        oc_html_putf(&o->h, "<br><span class=\"tok\">%.0f bytes</span>", bytes->valuedouble);
      oc_html_put(&o->h, "</td>");
    }
    oc_html_put(&o->h, "</tr>\n");
  }
  oc_html_put(&o->h, "</tbody></table></div>\n</section>\n");
}

/* Lines of s (each with its '\n'), at most max. */
static size_t split_lines(const char *s, const char **starts, size_t *lens, size_t max)
{
  size_t n = 0;
  while(*s && n < max) {
    const char *nl = strchr(s, '\n');
    size_t len = nl ? (size_t)(nl - s) + 1 : strlen(s);
    starts[n] = s;
    lens[n++] = len;
    s += len;
  }
  return n;
}

/* A line diff of two rendered prompts (longest common subsequence):
 * lines only in the first target's prompt struck out, lines only in this
 * one marked as inserted. */
static void prompt_diff(struct out *o, const char *base, const char *mine)
{
  const char **as = NULL, **bs = NULL;
  size_t *al = NULL, *bl = NULL;
  unsigned *lcs = NULL;
  as = calloc(OC_HTML_DIFF_LINES, sizeof(*as));
  bs = calloc(OC_HTML_DIFF_LINES, sizeof(*bs));
  al = calloc(OC_HTML_DIFF_LINES, sizeof(*al));
  bl = calloc(OC_HTML_DIFF_LINES, sizeof(*bl));
  if(!as || !bs || !al || !bl)
    goto nomem;
  size_t na = split_lines(base, as, al, OC_HTML_DIFF_LINES);
  size_t nb = split_lines(mine, bs, bl, OC_HTML_DIFF_LINES);
  if((na + 1) * (nb + 1) > OC_HTML_DIFF_CELLS) {
    oc_html_put(&o->h, "<p class=\"muted\">The prompts are too long to compare here.</p>\n");
    goto out;
  }
  lcs = calloc((na + 1) * (nb + 1), sizeof(*lcs));
  if(!lcs)
    goto nomem;
#define L(i, j) lcs[(i) * (nb + 1) + (j)]
  for(size_t i = na; i-- > 0;)
    for(size_t j = nb; j-- > 0;)
      L(i, j) = al[i] == bl[j] && memcmp(as[i], bs[j], al[i]) == 0
                  ? L(i + 1, j + 1) + 1
                  : (L(i + 1, j) > L(i, j + 1) ? L(i + 1, j) : L(i, j + 1));
  oc_html_put(&o->h, "<pre class=\"diff\">");
  size_t i = 0, j = 0;
  while(i < na || j < nb) {
    if(i < na && j < nb && al[i] == bl[j] && memcmp(as[i], bs[j], al[i]) == 0) {
      oc_html_txtn(&o->h, as[i], al[i]);
      i++;
      j++;
    }
    else if(j < nb && (i == na || L(i, j + 1) >= L(i + 1, j))) {
      oc_html_put(&o->h, "<ins>");
      oc_html_txtn(&o->h, bs[j], bl[j]);
      oc_html_put(&o->h, "</ins>");
      j++;
    }
    else {
      oc_html_put(&o->h, "<del>");
      oc_html_txtn(&o->h, as[i], al[i]);
      oc_html_put(&o->h, "</del>");
      i++;
    }
  }
#undef L
  oc_html_put(&o->h, "</pre>\n");
  goto out;
nomem:
  if(!o->h.rc)
    o->h.rc = OC_ENOMEM;
out:
  free(as);
  free(bs);
  free(al);
  free(bl);
  free(lcs);
}

/* A render's prompt, and how it differs from the first target's render
 * of the same fixture. */
static void render_block(struct out *o, const cJSON *doc, const cJSON *r, const char *base_prompt,
                         int have_base)
{
  const char *prompt = oc_json_str(r, "message");
  if(!oc_streq(oc_json_str(r, "suite"), "templates") || !prompt)
    return;
  oc_html_put(&o->h, "<h4>Rendered prompt</h4>\n<pre class=\"prompt\">");
  oc_html_txtcut(&o->h, prompt, OC_HTML_BODY_MAX);
  oc_html_put(&o->h, "</pre>\n");
  const cJSON *first = cJSON_GetArrayItem(oc_json_arr(doc, "targets"), 0);
  const char *fname = oc_json_str(first, "name");
  if(!fname || oc_streq(fname, oc_json_str(r, "target")))
    return;
  const char *bp = have_base ? base_prompt : NULL;
  oc_html_put(&o->h, "<h4>Compared with ");
  oc_html_txt(&o->h, fname);
  oc_html_put(&o->h, "</h4>\n");
  if(!bp) {
    oc_html_put(&o->h, "<p class=\"muted\">That target has no rendered prompt for this fixture.</p>\n");
    return;
  }
  if(strcmp(bp, prompt) == 0) {
    oc_html_put(&o->h, "<p class=\"muted\">The same prompt, byte for byte.</p>\n");
    return;
  }
  oc_html_put(&o->h, "<p class=\"muted\">Lines only in its prompt are struck out; lines only in this one "
         "are marked.</p>\n");
  prompt_diff(o, bp, prompt);
}

/* ---- one case --------------------------------------------------------- */

static void findings_block(struct out *o, const cJSON *r)
{
  const cJSON *fs = oc_json_arr(r, "findings");
  oc_html_put(&o->h, "<h4>Findings</h4>\n");
  rerun_note(o, r);
  if(!cJSON_GetArraySize(fs))
    oc_html_put(&o->h, "<p class=\"muted\">No findings.</p>\n");
  else {
    oc_html_put(&o->h, "<div class=\"scroll\"><table class=\"findings\"><thead><tr><th>rule</th><th>severity</th><th>where</th>"
           "<th>path</th><th>message</th><th>expected</th><th>actual</th></tr></thead><tbody>\n");
    const cJSON *f;
    cJSON_ArrayForEach(f, fs) {
      const char *sev = oc_json_str(f, "severity");
      int allowed = oc_json_bool(f, "allowed", 0);
      static const char *const sevs[] = { "error", "warning", "info" };
      const char *cls = "info";
      for(size_t k = 0; k < OC_ARRAY_LEN(sevs); k++)
        if(oc_streq(sev, sevs[k]))
          cls = sevs[k];
      oc_html_putf(&o->h, "<tr class=\"sev-%s%s\"><td><code>", cls, allowed ? " allowed" : "");
      oc_html_txt(&o->h, oc_json_str(f, "rule"));
      oc_html_put(&o->h, "</code></td><td>");
      oc_html_txt(&o->h, sev);
      if(allowed)
        oc_html_put(&o->h, " (allowed)");
      oc_html_put(&o->h, "</td><td>");
      oc_html_txt(&o->h, oc_json_str(oc_json_obj(f, "where"), "text"));
      oc_html_put(&o->h, "</td><td><code>");
      oc_html_txt(&o->h, oc_json_str(f, "path"));
      oc_html_put(&o->h, "</code></td><td>");
      oc_html_txt(&o->h, oc_json_str(f, "message"));
      oc_html_put(&o->h, "</td><td><code>");
      oc_html_txtcut(&o->h, oc_json_str(f, "expected"), OC_HTML_FIELD_MAX);
      oc_html_put(&o->h, "</code></td><td><code>");
      oc_html_txtcut(&o->h, oc_json_str(f, "actual"), OC_HTML_FIELD_MAX);
      oc_html_put(&o->h, "</code></td></tr>\n");
      if(oc_json_str(f, "excerpt")) {
        oc_html_put(&o->h, "<tr class=\"excerpt\"><td colspan=\"7\"><pre>");
        oc_html_txtcut(&o->h, oc_json_str(f, "excerpt"), OC_HTML_FIELD_MAX);
        oc_html_put(&o->h, "</pre></td></tr>\n");
      }
      diagnosis_row(o, f);
    }
    oc_html_put(&o->h, "</tbody></table></div>\n");
  }
  const cJSON *s;
  cJSON_ArrayForEach(s, oc_json_arr(r, "suppressed")) {
    oc_html_put(&o->h, "<p class=\"muted\"><code>");
    oc_html_txt(&o->h, oc_json_str(s, "rule"));
    oc_html_putf(&o->h, "</code> fired %.0f times; %.0f kept.</p>\n", oc_json_num(s, "total", 0),
         oc_json_num(s, "kept", 0));
  }
}

static int is_stream(const cJSON *r)
{
  const cJSON *resp = oc_json_obj(r, "response");
  if(cJSON_GetArraySize(oc_json_arr(resp, "events")) > 0)
    return 1;
  const char *ct = oc_json_str(resp, "content_type");
  if(ct && strstr(ct, "text/event-stream"))
    return 1;
  return cJSON_IsTrue(oc_json_get(oc_json_obj(oc_json_obj(oc_json_obj(r, "request"), "body"), "json"), "stream"));
}

/* A streamed request answered without a stream (a 400 before any event,
 * as llama-server answers an overflow): the answer's arrival on the same
 * axis, so every streamed case has its timeline. */
static void answer_timeline(struct out *o, const cJSON *r, const cJSON *timing)
{
  const cJSON *fb = oc_json_get(timing, "first_byte_ms");
  double total = oc_json_num(timing, "total_ms", 0);
  if(!cJSON_IsNumber(fb) || !isfinite(fb->valuedouble) || fb->valuedouble < 0) {
    oc_html_put(&o->h, "<p class=\"muted\">No event arrival times were kept, so there is no timeline.</p>\n");
    return;
  }
  double tmax = isfinite(total) && total > fb->valuedouble ? total : fb->valuedouble;
  if(tmax <= 0)
    tmax = 1;
  const double W = 760, L = 12, R = 12, AXIS = 62;
  double x = L + (fb->valuedouble / tmax) * (W - L - R);
  double status = oc_json_num(oc_json_obj(r, "response"), "status", 0);
  oc_html_put(&o->h, "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 760 84\" "
         "width=\"760\" height=\"84\" role=\"img\" aria-label=\"the answer's arrival over time\">\n");
  oc_html_putf(&o->h, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", L, AXIS,
       W - R, AXIS);
  oc_html_putf(&o->h, "<line class=\"tick flag\" x1=\"%.1f\" y1=\"26\" x2=\"%.1f\" y2=\"%.1f\">"
          "<title>HTTP %.0f answer at %.1f ms</title></line>\n", x, x, AXIS, status, fb->valuedouble);
  oc_html_putf(&o->h, "<text x=\"%.1f\" y=\"18\" text-anchor=\"%s\">HTTP %.0f, no stream, at %.1f ms</text>\n",
       x + (x > W / 2 ? -4 : 4), x > W / 2 ? "end" : "start", status, fb->valuedouble);
  oc_html_putf(&o->h, "<text x=\"%.1f\" y=\"78\">0 ms</text>\n", L);
  oc_html_putf(&o->h, "<text x=\"%.1f\" y=\"78\" text-anchor=\"end\">%.1f ms</text>\n", W - R, tmax);
  oc_html_put(&o->h, "</svg>\n");
}

/* Chunk arrivals over time as inline SVG, with TTFT and the longest gap
 * marked.  Every number is computed here and checked to be finite; the
 * only text from the results goes through the escaper. */
static void timeline_svg(struct out *o, const cJSON *r, const cJSON *timing)
{
  const cJSON *events = oc_json_arr(oc_json_obj(r, "response"), "events");
  double tmax = oc_json_num(timing, "total_ms", 0);
  int with_times = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, events) {
    const cJSON *tm = oc_json_get(e, "t_ms");
    if(cJSON_IsNumber(tm) && isfinite(tm->valuedouble) && tm->valuedouble >= 0) {
      with_times++;
      if(tm->valuedouble > tmax)
        tmax = tm->valuedouble;
    }
  }
  if(!with_times) {
    answer_timeline(o, r, timing);
    return;
  }
  if(!isfinite(tmax) || tmax <= 0)
    tmax = 1;
  const double W = 760, L = 12, R = 12, AXIS = 62;
#define X(t) (L + ((t) / tmax) * (W - L - R))
  oc_html_put(&o->h, "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 760 84\" "
         "width=\"760\" height=\"84\" role=\"img\" aria-label=\"chunk arrivals over time\">\n");
  /* the longest gap first, so the ticks draw over it */
  const cJSON *gc = oc_json_get(timing, "max_gap_chunk");
  const cJSON *gm = oc_json_get(timing, "max_gap_ms");
  if(oc_json_is_integer(gc) && cJSON_IsNumber(gm) && isfinite(gm->valuedouble)) {
    double end = -1;
    cJSON_ArrayForEach(e, events)
      if(oc_json_num(e, "n", -1) == gc->valuedouble)
        end = oc_json_num(e, "t_ms", -1);
    if(isfinite(end) && end >= 0) {
      double start = end - gm->valuedouble;
      if(!isfinite(start) || start < 0)
        start = 0;
      oc_html_putf(&o->h, "<rect class=\"gap\" x=\"%.1f\" y=\"22\" width=\"%.1f\" height=\"40\">"
              "<title>longest gap %.1f ms, before chunk %.0f</title></rect>\n",
           X(start), X(end) - X(start) < 1 ? 1 : X(end) - X(start), gm->valuedouble,
           gc->valuedouble);
      double mid = (X(start) + X(end)) / 2;
      oc_html_putf(&o->h, "<text x=\"%.1f\" y=\"18\" text-anchor=\"middle\">gap %.1f ms</text>\n",
           mid < 60 ? 60 : mid > W - 60 ? W - 60 : mid, gm->valuedouble);
    }
  }
  oc_html_putf(&o->h, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", L, AXIS,
       W - R, AXIS);
  cJSON_ArrayForEach(e, events) {
    const cJSON *tm = oc_json_get(e, "t_ms");
    if(!cJSON_IsNumber(tm) || !isfinite(tm->valuedouble) || tm->valuedouble < 0)
      continue;
    double n = oc_json_num(e, "n", 0);
    int flag = oc_result_chunk_flagged(r, n);
    oc_html_putf(&o->h, "<line class=\"tick%s\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\">"
            "<title>chunk %.0f at %.1f ms</title></line>\n",
         flag ? " flag" : "", X(tm->valuedouble), flag ? 26 : 36, X(tm->valuedouble), AXIS, n,
         tm->valuedouble);
  }
  const cJSON *ttft = oc_json_get(timing, "ttft_ms");
  if(cJSON_IsNumber(ttft) && isfinite(ttft->valuedouble) && ttft->valuedouble >= 0) {
    double x = X(ttft->valuedouble);
    oc_html_putf(&o->h, "<line class=\"ttft\" x1=\"%.1f\" y1=\"8\" x2=\"%.1f\" y2=\"%.1f\"><title>time to first token</title></line>\n",
         x, x, AXIS + 4);
    oc_html_putf(&o->h, "<text x=\"%.1f\" y=\"10\" text-anchor=\"%s\">TTFT %.1f ms</text>\n",
         x + (x > W / 2 ? -4 : 4), x > W / 2 ? "end" : "start", ttft->valuedouble);
  }
  oc_html_putf(&o->h, "<text x=\"%.1f\" y=\"78\">0 ms</text>\n", L);
  oc_html_putf(&o->h, "<text x=\"%.1f\" y=\"78\" text-anchor=\"end\">%.1f ms</text>\n", W - R, tmax);
  oc_html_put(&o->h, "</svg>\n");
#undef X
}

static void timing_block(struct out *o, const cJSON *r)
{
  const cJSON *timing = oc_json_obj(r, "timing");
  int stream = is_stream(r);
  if(!timing && !stream)
    return;
  oc_html_put(&o->h, "<h4>Timing</h4>\n");
  if(!timing || !oc_json_bool(timing, "recorded", 0)) {
    oc_html_put(&o->h, "<p class=\"muted timing-none\">timing not recorded</p>\n");
    return;
  }
  struct oc_buf t;
  oc_buf_init(&t, OC_CAP_MESSAGE * 4);
  if(oc_timing_text(&t, timing) == OC_OK) {
    oc_html_put(&o->h, "<p class=\"timing\">");
    oc_html_txt(&o->h, oc_buf_str(&t));
    oc_html_put(&o->h, "</p>\n");
  }
  oc_buf_free(&t);
  if(stream)
    timeline_svg(o, r, timing);
}

static void headers_table(struct out *o, const cJSON *headers)
{
  if(!cJSON_GetArraySize(headers))
    return;
  oc_html_put(&o->h, "<table class=\"kv headers\"><tbody>\n");
  const cJSON *h;
  cJSON_ArrayForEach(h, headers) {
    const cJSON *n = cJSON_GetArrayItem(h, 0), *v = cJSON_GetArrayItem(h, 1);
    if(!cJSON_IsArray(h) || !cJSON_IsString(n) || !cJSON_IsString(v))
      continue;
    oc_html_put(&o->h, "<tr><th><code>");
    oc_html_txt(&o->h, n->valuestring);
    oc_html_put(&o->h, "</code></th><td><code>");
    /* a key must not reach a report even when the results carried one */
    oc_html_txtcut(&o->h, oc_header_is_secret(n->valuestring) ? "[redacted]" : v->valuestring, OC_HTML_FIELD_MAX);
    oc_html_put(&o->h, "</code></td></tr>\n");
  }
  oc_html_put(&o->h, "</tbody></table>\n");
}

/* A body: JSON pretty-printed, text as text, base64 decoded with invalid
 * bytes shown as U+FFFD and a hex dump. */
static void body_block(struct out *o, const cJSON *body)
{
  if(!cJSON_IsObject(body))
    return;
  const cJSON *json = oc_json_get(body, "json");
  const char *text = oc_json_str(body, "text"), *b64 = oc_json_str(body, "base64");
  char *pretty = NULL;
  if(json)
    pretty = oc_json_print_pretty(json);
  else if(text) {
    cJSON *parsed = oc_json_parse(text, strlen(text), NULL);
    if(parsed && (cJSON_IsObject(parsed) || cJSON_IsArray(parsed)))
      pretty = oc_json_print_pretty(parsed);
    cJSON_Delete(parsed);
  }
  if(pretty || text) {
    oc_html_put(&o->h, "<pre class=\"body\">");
    oc_html_txtcut(&o->h, pretty ? pretty : text, OC_HTML_BODY_MAX);
    oc_html_put(&o->h, "</pre>\n");
  }
  else if(b64) {
    size_t n = 0;
    unsigned char *raw = oc_base64_decode(b64, &n);
    if(!raw) {
      oc_html_put(&o->h, "<p class=\"muted\">The body is base64 that does not decode:</p><pre>");
      oc_html_txtcut(&o->h, b64, OC_HTML_FIELD_MAX);
      oc_html_put(&o->h, "</pre>\n");
    }
    else {
      size_t bad = 0;
      if(!oc_utf8_valid(raw, n, &bad))
        oc_html_putf(&o->h, "<p class=\"muted\">Not valid UTF-8 (first bad byte at offset %zu); invalid "
                "bytes are shown as U+FFFD, then as hex.</p>\n", bad);
      oc_html_put(&o->h, "<pre class=\"body\">");
      oc_html_txtn(&o->h, (const char *)raw, n < OC_HTML_BODY_MAX ? n : OC_HTML_BODY_MAX);
      oc_html_put(&o->h, "</pre>\n<pre class=\"hex\">");
      for(size_t i = 0; i < n && i < OC_HTML_HEX_MAX; i++)
        oc_html_putf(&o->h, "%02x%s", raw[i], (i % 16 == 15) ? "\n" : " ");
      if(n > OC_HTML_HEX_MAX)
        oc_html_put(&o->h, "…");
      oc_html_put(&o->h, "</pre>\n");
      free(raw);
    }
  }
  if(oc_json_bool(body, "truncated", 0)) {
    oc_html_put(&o->h, "<p class=\"muted\">The results kept only part of this body");
    const cJSON *bytes = oc_json_get(body, "bytes");
    if(oc_json_is_integer(bytes))
      oc_html_putf(&o->h, " (%.0f bytes in all)", bytes->valuedouble);
    oc_html_put(&o->h, ".</p>\n");
  }
  free(pretty);
}

static void event_line(struct out *o, const cJSON *r, const cJSON *e)
{
  double n = oc_json_num(e, "n", 0);
  int flag = oc_result_chunk_flagged(r, n);
  oc_html_putf(&o->h, "<span class=\"ev%s\"><span class=\"n\">#%.0f", flag ? " flag" : "", n);
  const cJSON *tm = oc_json_get(e, "t_ms");
  if(cJSON_IsNumber(tm) && isfinite(tm->valuedouble))
    oc_html_putf(&o->h, " +%.1fms", tm->valuedouble);
  const cJSON *off = oc_json_get(e, "offset");
  if(oc_json_is_integer(off))
    oc_html_putf(&o->h, " @%.0f", off->valuedouble);
  oc_html_put(&o->h, "</span> ");
  const char *raw = oc_json_str(e, "raw");
  if(raw) {
    size_t len = strlen(raw);
    while(len && raw[len - 1] == '\n') /* the event's blank line */
      len--;
    if(len > OC_HTML_EVENT_MAX) {
      oc_html_txtcut(&o->h, raw, OC_HTML_EVENT_MAX);
    }
    else
      oc_html_txtn(&o->h, raw, len);
  }
  else {
    if(oc_json_str(e, "type")) {
      oc_html_put(&o->h, "event: ");
      oc_html_txtcut(&o->h, oc_json_str(e, "type"), 200);
      oc_html_put(&o->h, "\n");
    }
    oc_html_put(&o->h, "data: ");
    oc_html_txtcut(&o->h, oc_json_str(e, "data"), OC_HTML_EVENT_MAX);
  }
  oc_html_put(&o->h, "</span>\n");
}

static void events_block(struct out *o, const cJSON *r)
{
  const cJSON *resp = oc_json_obj(r, "response");
  const cJSON *events = oc_json_arr(resp, "events");
  int kept = cJSON_GetArraySize(events);
  if(!kept)
    return;
  const cJSON *ex[OC_HTML_EXCERPT_EVENTS];
  size_t n = oc_result_excerpt_events(r, ex, OC_HTML_EXCERPT_EVENTS);
  oc_html_put(&o->h, "<h4>Stream events</h4>\n<p class=\"muted\">");
  oc_html_putf(&o->h, "%zu shown here", n);
  const cJSON *total = oc_json_get(resp, "events_total");
  if(oc_json_is_integer(total))
    oc_html_putf(&o->h, " of %.0f events", total->valuedouble);
  if(oc_json_bool(resp, "events_truncated", 0))
    oc_html_putf(&o->h, "; the results kept %d (the first, the last and those around findings)", kept);
  oc_html_put(&o->h, ". Highlighted: chunks a finding points at.</p>\n<pre class=\"sse\">");
  for(size_t i = 0; i < n; i++)
    event_line(o, r, ex[i]);
  oc_html_put(&o->h, "</pre>\n");
  if((size_t)kept > n) {
    oc_html_putf(&o->h, "<details class=\"all-events\"><summary>all %d kept events</summary>\n<pre class=\"sse\">", kept);
    int k = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, events) {
      if(k++ >= OC_HTML_ALL_EVENTS) {
        oc_html_put(&o->h, "…");
        break;
      }
      event_line(o, r, e);
    }
    oc_html_put(&o->h, "</pre></details>\n");
  }
}

static void shell_quote(struct oc_buf *b, int *rc, const char *s)
{
  if(*rc)
    return;
  *rc = oc_buf_addc(b, '\'');
  for(; !*rc && *s; s++)
    *rc = *s == '\'' ? oc_buf_adds(b, "'\\''") : oc_buf_addc(b, *s);
  if(!*rc)
    *rc = oc_buf_addc(b, '\'');
}

/* A curl command that sends the same request.  The key is always the
 * variable reference, never a value. */
static char *build_curl(const cJSON *doc, const cJSON *r)
{
  const cJSON *req = oc_json_obj(r, "request");
  const cJSON *t = oc_results_target(doc, oc_json_str(r, "target"));
  const char *method = oc_json_str(req, "method") ?: "GET";
  const char *path = oc_json_str(req, "path") ?: "/";
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_BODY);
  int rc = oc_buf_adds(&b, "curl -sS");
  if(!rc && is_stream(r))
    rc = oc_buf_adds(&b, " -N");
  if(!rc && strcmp(method, "GET") && strcmp(method, "POST"))
    rc = oc_buf_printf(&b, " -X %s", method);
  if(!rc)
    rc = oc_buf_addc(&b, ' ');
  char *url = NULL;
  if(oc_json_str(req, "url"))
    url = oc_results_clean_url(oc_json_str(req, "url"));
  else if(oc_json_str(t, "url")) {
    char *root = oc_results_clean_url(oc_json_str(t, "url"));
    size_t rl = root ? strlen(root) : 0;
    if(root && rl && root[rl - 1] == '/')
      root[rl - 1] = '\0';
    url = root ? oc_asprintf("%s%s", root, path) : NULL;
    free(root);
  }
  if(url)
    shell_quote(&b, &rc, url);
  else if(!rc) { /* a replayed case: whatever serves the recordings */
    rc = oc_buf_adds(&b, "\"${OACHECK_URL:-http://127.0.0.1:8080}\"");
    shell_quote(&b, &rc, path);
  }
  free(url);
  int auth = 0;
  const cJSON *h;
  cJSON_ArrayForEach(h, oc_json_arr(req, "headers")) {
    const cJSON *hn = cJSON_GetArrayItem(h, 0), *hv = cJSON_GetArrayItem(h, 1);
    if(rc || !cJSON_IsString(hn) || !cJSON_IsString(hv))
      continue;
    const char *name = hn->valuestring;
    if(oc_header_is_hop_by_hop(name) || oc_strcaseeq(name, "host") ||
       oc_strcaseeq(name, "accept-encoding") || oc_strcaseeq(name, "user-agent"))
      continue;
    if(oc_header_is_secret(name)) {
      if(oc_strcaseeq(name, "authorization")) {
        auth = 1;
        rc = oc_buf_adds(&b, " -H \"Authorization: Bearer $OPENAI_API_KEY\"");
      }
      else {
        /* the name is shell-quoted; the value is the variable */
        rc = oc_buf_adds(&b, " -H ");
        struct oc_buf hb;
        oc_buf_init(&hb, OC_CAP_MESSAGE);
        if(!rc && !oc_buf_printf(&hb, "%s: ", name)) {
          shell_quote(&b, &rc, oc_buf_str(&hb));
          if(!rc)
            rc = oc_buf_adds(&b, "\"$OPENAI_API_KEY\"");
        }
        oc_buf_free(&hb);
      }
      continue;
    }
    struct oc_buf hb;
    oc_buf_init(&hb, OC_CAP_HTTP_HEAD);
    if(oc_buf_printf(&hb, "%s: %s", name, hv->valuestring) == OC_OK) {
      rc = oc_buf_adds(&b, " -H ");
      shell_quote(&b, &rc, oc_buf_str(&hb));
    }
    oc_buf_free(&hb);
  }
  if(!rc && !auth && oc_streq(oc_json_str(t, "kind"), "live"))
    rc = oc_buf_adds(&b, " -H \"Authorization: Bearer $OPENAI_API_KEY\"");
  const cJSON *body = oc_json_obj(req, "body");
  char *compact = oc_json_get(body, "json") ? oc_json_print(oc_json_get(body, "json")) : NULL;
  const char *data = compact ? compact : oc_json_str(body, "text");
  if(!rc && data) {
    rc = oc_buf_adds(&b, " -d ");
    shell_quote(&b, &rc, data);
  }
  free(compact);
  if(!rc && oc_json_bool(body, "truncated", 0))
    rc = oc_buf_adds(&b, "  # the results kept only part of this body");
  if(rc) {
    oc_buf_free(&b);
    return NULL;
  }
  return oc_buf_take(&b, NULL);
}

/* `oacheck run SUITE --target|--replay ... --filter 'SUITE/CASE'`, as the
 * runner writes it when the results carry none. */
static char *build_oacheck(const cJSON *doc, const cJSON *r)
{
  const cJSON *t = oc_results_target(doc, oc_json_str(r, "target"));
  const char *suite = oc_json_str(r, "suite") ?: "", *kase = oc_json_str(r, "case") ?: "";
  struct oc_buf b;
  oc_buf_init(&b, OC_CAP_MESSAGE * 4);
  int rc = oc_buf_adds(&b, "oacheck run ");
  shell_quote(&b, &rc, suite);
  if(!rc && oc_streq(oc_json_str(t, "kind"), "live") && oc_json_str(t, "url")) {
    char *u = oc_results_clean_url(oc_json_str(t, "url"));
    char *spec = u ? oc_asprintf("%s=%s", oc_json_str(t, "name"), u) : NULL;
    rc = spec ? oc_buf_adds(&b, " --target ") : OC_ENOMEM;
    if(spec)
      shell_quote(&b, &rc, spec);
    free(u);
    free(spec);
  }
  else if(!rc && oc_json_str(t, "recordings")) {
    rc = oc_buf_adds(&b, " --replay ");
    shell_quote(&b, &rc, oc_json_str(t, "recordings"));
  }
  char *filter = oc_asprintf("%s/%s", suite, kase);
  rc = rc ? rc : filter ? oc_buf_adds(&b, " --filter ") : OC_ENOMEM;
  if(filter)
    shell_quote(&b, &rc, filter);
  free(filter);
  if(rc) {
    oc_buf_free(&b);
    return NULL;
  }
  return oc_buf_take(&b, NULL);
}

static void reproduce_block(struct out *o, const cJSON *doc, const cJSON *r)
{
  const cJSON *rep = oc_json_obj(r, "reproduce");
  char *curl = oc_json_str(rep, "curl") ? oc_results_scrub_command(oc_json_str(rep, "curl"))
               : oc_json_obj(r, "request") ? build_curl(doc, r) : NULL;
  char *oac = oc_json_str(rep, "oacheck") ? oc_results_scrub_command(oc_json_str(rep, "oacheck"))
                                          : build_oacheck(doc, r);
  if(curl || oac) {
    oc_html_put(&o->h, "<h4>Reproduce</h4>\n");
    if(curl) {
      oc_html_put(&o->h, "<pre class=\"cmd curl\">");
      oc_html_txtcut(&o->h, curl, OC_HTML_BODY_MAX);
      oc_html_put(&o->h, "</pre>\n");
    }
    if(oac) {
      oc_html_put(&o->h, "<pre class=\"cmd oacheck\">");
      oc_html_txtcut(&o->h, oac, OC_HTML_FIELD_MAX);
      oc_html_put(&o->h, "</pre>\n");
    }
  }
  free(curl);
  free(oac);
}

/* What each client model makes of this exchange (the result's "clients"). */
static void clients_block(struct out *o, const cJSON *r)
{
  const cJSON *cs = oc_json_obj(r, "clients");
  if(!cJSON_GetArraySize(cs))
    return;
  oc_html_put(&o->h, "<h4>Clients</h4>\n<table class=\"case-clients\"><tbody>\n");
  const cJSON *c;
  cJSON_ArrayForEach(c, cs) {
    if(!c->string || !cJSON_IsObject(c))
      continue;
    const cJSON *w = oc_json_get(c, "works");
    int fault = cJSON_IsTrue(w) && cJSON_IsTrue(oc_json_get(c, "server_fault"));
    const char *cls = fault ? "fault" : cJSON_IsTrue(w) ? "works" : !cJSON_IsFalse(w) ? "none"
                      : cJSON_IsTrue(oc_json_get(c, "limitation")) ? "limit" : "breaks";
    oc_html_put(&o->h, "<tr><th>");
    oc_html_txt(&o->h, c->string);
    oc_html_putf(&o->h, "</th><td class=\"cl cl-%s\">", cls);
    oc_html_txt(&o->h, oc_json_str(c, "outcome"));
    if(!strcmp(cls, "limit"))
      oc_html_put(&o->h, " (its limitation)");
    else if(fault)
      oc_html_put(&o->h, " (the server's fault)");
    oc_html_put(&o->h, "</td><td>");
    oc_html_txtcut(&o->h, oc_json_str(c, "reason"), OC_HTML_FIELD_MAX);
    oc_html_put(&o->h, "</td><td class=\"muted\">");
    oc_html_txt(&o->h, oc_json_str(c, "basis"));
    oc_html_put(&o->h, "</td></tr>\n");
  }
  oc_html_put(&o->h, "</tbody></table>\n");
}

/* A case past the first OC_HTML_FULL_CASES: its reason and its findings
 * one line each (at most OC_HTML_BRIEF_FINDINGS; its duration is in the
 * summary line): a handful of elements.  It goes inside a <noscript>
 * block, read as raw text up to the first "</noscript": everything from
 * the results is escaped, so no '<' of theirs reaches the page. */
static void brief_block(struct out *o, const cJSON *r, enum oc_status st)
{
  if(oc_json_str(r, "reason")) {
    oc_html_put(&o->h, "<p class=\"reason\"><b>");
    oc_html_put(&o->h, st == OC_ST_SKIP ? "Skipped" : "Reason");
    oc_html_put(&o->h, ":</b> ");
    oc_html_txtcut(&o->h, oc_json_str(r, "reason"), OC_HTML_FIELD_MAX);
    oc_html_put(&o->h, "</p>\n");
  }
  const cJSON *fs = oc_json_arr(r, "findings"), *f;
  int nf = cJSON_GetArraySize(fs), k = 0;
  if(nf > 0) {
    oc_html_put(&o->h, "<p class=\"brief\">");
    cJSON_ArrayForEach(f, fs) {
      if(k == OC_HTML_BRIEF_FINDINGS) {
        oc_html_putf(&o->h, "<br>and %d more", nf - k);
        break;
      }
      if(k++)
        oc_html_put(&o->h, "<br>");
      oc_html_put(&o->h, "<code>");
      oc_html_txt(&o->h, oc_json_str(f, "rule"));
      oc_html_put(&o->h, "</code> ");
      oc_html_txt(&o->h, oc_json_str(f, "severity"));
      if(oc_json_bool(f, "allowed", 0))
        oc_html_put(&o->h, " (allowed)");
      const char *where = oc_json_str(oc_json_obj(f, "where"), "text");
      if(where) {
        oc_html_put(&o->h, ", ");
        oc_html_txt(&o->h, where);
      }
      oc_html_put(&o->h, ": ");
      oc_html_txtcut(&o->h, oc_json_str(f, "message"), OC_HTML_FIELD_MAX);
    }
    oc_html_put(&o->h, "</p>\n");
  }
  else
    oc_html_put(&o->h, "<p class=\"muted\">No findings.</p>\n");
  /* the clients the server's answer breaks, by name (the matrix above has
   * the reasons; a client's own limitation is no break) */
  const cJSON *c;
  k = 0;
  cJSON_ArrayForEach(c, oc_json_obj(r, "clients")) {
    if(!c->string || !cJSON_IsFalse(oc_json_get(c, "works")) || cJSON_IsTrue(oc_json_get(c, "limitation")))
      continue;
    oc_html_put(&o->h, k++ ? ", " : "<p class=\"brief clients\">Breaks ");
    oc_html_txt(&o->h, c->string);
  }
  if(k)
    oc_html_put(&o->h, ".</p>\n");
  oc_html_put(&o->h, "</div>\n</details>\n");
}

/* One case; full: with its request, response, events and commands (else
 * brief_block: the verdict, findings and timing).
 * base_prompt: a templates render's first-target prompt, when have_base. */
static void case_block(struct out *o, const cJSON *doc, const cJSON *r, size_t i, int full,
                       const char *base_prompt, int have_base)
{
  enum oc_status st = oc_result_status(r);
  const char *sn = oc_status_name(st);
  oc_html_putf(&o->h, "<details class=\"case\" id=\"c-%zu\" data-status=\"%s\"%s%s>\n<summary>"
          "<span class=\"badge st-%s\">%s</span><span class=\"cname\">",
       i, sn, is_stream(r) ? " data-stream=\"1\"" : "", full && oc_status_is_failure(st) ? " open" : "",
       sn, sn);
  oc_html_txt(&o->h, oc_json_str(r, "case"));
  oc_html_put(&o->h, "</span><span class=\"muted\">");
  oc_html_txt(&o->h, oc_json_str(r, "target"));
  oc_html_put(&o->h, " · ");
  oc_html_txt(&o->h, oc_json_str(r, "suite"));
  oc_html_put(&o->h, "</span>");
  const cJSON *d = oc_json_get(r, "duration_ms");
  if(cJSON_IsNumber(d)) {
    oc_html_put(&o->h, "<span class=\"dur\">");
    num_ms(o, d);
    oc_html_put(&o->h, "</span>");
  }
  const cJSON *first = oc_result_first_error(r);
  if(first && st == OC_ST_FAIL) {
    oc_html_put(&o->h, "<span class=\"first\">");
    oc_html_txt(&o->h, oc_json_str(first, "rule"));
    oc_html_put(&o->h, "</span>");
  }
  oc_html_put(&o->h, "</summary>\n<div class=\"body\">\n");
  if(!full) {
    brief_block(o, r, st);
    return;
  }
  if(oc_json_str(r, "description")) {
    oc_html_put(&o->h, "<p class=\"desc\">");
    oc_html_txt(&o->h, oc_json_str(r, "description"));
    oc_html_put(&o->h, "</p>\n");
  }
  if(oc_json_str(r, "reason")) {
    oc_html_put(&o->h, "<p class=\"reason\"><b>");
    oc_html_put(&o->h, st == OC_ST_SKIP ? "Skipped" : "Reason");
    oc_html_put(&o->h, ":</b> ");
    oc_html_txt(&o->h, oc_json_str(r, "reason"));
    oc_html_put(&o->h, "</p>\n");
  }
  if(st == OC_ST_INVALID)
    oc_html_put(&o->h, "<p class=\"reason\"><b>The results file gives no valid status for this case.</b></p>\n");
  const cJSON *tags = oc_json_arr(r, "tags");
  if(cJSON_GetArraySize(tags) > 0 || oc_json_str(r, "profile")) {
    oc_html_put(&o->h, "<p class=\"muted\">");
    if(oc_json_str(r, "profile")) {
      oc_html_put(&o->h, "profile ");
      oc_html_txt(&o->h, oc_json_str(r, "profile"));
      oc_html_put(&o->h, " ");
    }
    const cJSON *tg;
    cJSON_ArrayForEach(tg, tags)
      if(cJSON_IsString(tg)) {
        oc_html_put(&o->h, " <code>");
        oc_html_txt(&o->h, tg->valuestring);
        oc_html_put(&o->h, "</code>");
      }
    oc_html_put(&o->h, "</p>\n");
  }
  findings_block(o, r);
  clients_block(o, r);
  render_block(o, doc, r, base_prompt, have_base);
  timing_block(o, r);

  const cJSON *req = oc_json_obj(r, "request");
  if(req) {
    oc_html_put(&o->h, "<h4>Request</h4>\n<pre class=\"reqline\">");
    oc_html_txt(&o->h, oc_json_str(req, "method"));
    oc_html_put(&o->h, " ");
    oc_html_txt(&o->h, oc_json_str(req, "path"));
    oc_html_put(&o->h, "</pre>\n");
    headers_table(o, oc_json_arr(req, "headers"));
    body_block(o, oc_json_obj(req, "body"));
  }
  const cJSON *resp = oc_json_obj(r, "response");
  if(resp) {
    oc_html_putf(&o->h, "<h4>Response</h4>\n<p>status <b>%.0f</b>", oc_json_num(resp, "status", 0));
    if(oc_json_str(resp, "content_type")) {
      oc_html_put(&o->h, ", <code>");
      oc_html_txt(&o->h, oc_json_str(resp, "content_type"));
      oc_html_put(&o->h, "</code>");
    }
    if(oc_json_str(resp, "source")) {
      oc_html_put(&o->h, " <span class=\"muted\">from ");
      oc_html_txt(&o->h, oc_json_str(resp, "source"));
      oc_html_put(&o->h, "</span>");
    }
    oc_html_put(&o->h, "</p>\n");
    headers_table(o, oc_json_arr(resp, "headers"));
    events_block(o, r);
    if(cJSON_GetArraySize(oc_json_arr(resp, "events")) > 0) {
      oc_html_put(&o->h, "<details><summary>raw body</summary>\n");
      body_block(o, oc_json_obj(resp, "body"));
      oc_html_put(&o->h, "</details>\n");
    }
    else
      body_block(o, oc_json_obj(resp, "body"));
  }
  else if(oc_json_get(r, "response"))
    oc_html_put(&o->h, "<h4>Response</h4>\n<p class=\"muted\">No response.</p>\n");
  if(cJSON_GetArraySize(oc_json_arr(oc_json_obj(r, "response"), "reasoning")) > 0) {
    struct oc_buf rb;
    oc_buf_init(&rb, 1u << 20);
    if(oc_reasoning_text(&rb, r, OC_CAP_RESULT_REASONING) == OC_OK && rb.len) {
      oc_html_put(&o->h, "<h4>Reasoning</h4>\n<pre class=\"reasoning\">");
      oc_html_txtn(&o->h, rb.data, rb.len);
      oc_html_put(&o->h, "</pre>\n");
    }
    oc_buf_free(&rb);
  }
  const cJSON *msg = oc_json_get(r, "message");
  if(msg && !cJSON_IsNull(msg)) {
    char *p = oc_json_print_pretty(msg);
    if(p) {
      oc_html_put(&o->h, "<h4>Rebuilt message</h4>\n<pre>");
      oc_html_txtcut(&o->h, p, OC_HTML_BODY_MAX);
      oc_html_put(&o->h, "</pre>\n");
      free(p);
    }
  }
  const cJSON *retries = oc_json_arr(r, "retries");
  if(cJSON_GetArraySize(retries) > 0) {
    oc_html_put(&o->h, "<h4>Retries</h4>\n<table><thead><tr><th>attempt</th><th>status</th><th>waited</th></tr></thead><tbody>\n");
    const cJSON *x;
    cJSON_ArrayForEach(x, retries)
      oc_html_putf(&o->h, "<tr><td class=\"num\">%.0f</td><td class=\"num\">%.0f</td><td class=\"num\">%.0f ms</td></tr>\n",
           oc_json_num(x, "attempt", 0), oc_json_num(x, "status", 0), oc_json_num(x, "delay_ms", 0));
    oc_html_put(&o->h, "</tbody></table>\n");
  }
  reproduce_block(o, doc, r);
  oc_html_put(&o->h, "</div>\n</details>\n");
}

/* The first target's prompt for a templates render of case kase, copied
 * (reading it would end the borrow of any other result). */
static char *base_prompt_of(struct out *o, const cJSON *doc, size_t i, int *have)
{
  *have = 0;
  const struct oc_result_ref *f = &o->rs->refs[i];
  const char *fname = oc_json_str(cJSON_GetArrayItem(oc_json_arr(doc, "targets"), 0), "name");
  if(!oc_streq(f->suite, "templates") || !fname || oc_streq(fname, f->target))
    return NULL;
  long bi = result_index(o->rs, fname, f->kase);
  const cJSON *base = result_read(o, bi);
  *have = base != NULL;
  const char *bp = oc_json_str(base, "message");
  return bp ? oc_strdup(bp) : NULL;
}

/* Before what belongs to the case at order position at (its headings
 * included): past the whole cases, every OC_HTML_PAGE_CASES-th case ends
 * the <noscript> block open and opens the next; *block_at is the open
 * block's first position (0: none). */
static void page_block(struct out *o, size_t at, size_t *block_at)
{
  if(at < OC_HTML_FULL_CASES || (at - OC_HTML_FULL_CASES) % OC_HTML_PAGE_CASES || *block_at == at)
    return;
  if(*block_at)
    oc_html_put(&o->h, "</noscript>\n");
  oc_html_put(&o->h, "<noscript class=\"page\">\n");
  *block_at = at;
}

/* Every case, failures first, grouped by target and suite as they come;
 * each read once and written out before the next. */
static void cases_section(struct out *o, const cJSON *doc)
{
  struct oc_results *rs = o->rs;
  if(!rs->count) {
    oc_html_put(&o->h, "<p class=\"muted\">No cases ran.</p>\n");
    return;
  }
  /* each target × suite's counts, for the group headings */
  struct oc_pairs groups;
  oc_pairs_init(&groups);
  size_t *group_of = calloc(rs->count, sizeof(*group_of));
  struct oc_counts *gc = NULL;
  size_t nfail = 0;
  if(!group_of)
    goto nomem;
  for(size_t i = 0; i < rs->count; i++) {
    if(oc_pairs_id(&groups, rs->refs[i].target, rs->refs[i].suite, &group_of[i]))
      goto nomem;
    nfail += oc_status_is_failure(rs->refs[i].status);
  }
  gc = calloc(groups.count + 1, sizeof(*gc));
  if(!gc)
    goto nomem;
  for(size_t i = 0; i < rs->count; i++) {
    struct oc_counts *c = &gc[group_of[i]];
    switch(rs->refs[i].status) {
    case OC_ST_PASS: c->pass++; break;
    case OC_ST_FAIL: c->fail++; break;
    case OC_ST_SKIP: c->skip++; break;
    default: c->error++; break;
    }
  }
  if(rs->count > OC_HTML_FULL_CASES)
    oc_html_putf(&o->h, "<p class=\"muted\" id=\"brief-note\" data-cases=\"%zu\" data-failures=\"%zu\">"
            "The first %d cases (failures first) are shown whole; the other %zu with their verdict, "
            "findings and duration. The JSON results have every case's request, response and "
            "reproducing commands.</p>\n",
         rs->count, nfail, OC_HTML_FULL_CASES, rs->count - OC_HTML_FULL_CASES);
  size_t shown = 0, block_at = 0; /* block_at: the open <noscript> block's first case, or 0 */
  for(int part = 0; part < 2 && !o->h.rc; part++) {
    size_t n = part ? rs->count - nfail : nfail;
    if(!n)
      continue;
    page_block(o, shown, &block_at);
    oc_html_putf(&o->h, "<h3 class=\"part\" id=\"%s\">%zu %s</h3>\n", part ? "passed" : "failures", n,
         part ? (n == 1 ? "case passed or skipped" : "cases passed or skipped")
              : (n == 1 ? "case failed or errored" : "cases failed or errored"));
    size_t prev = (size_t)-1;
    for(size_t i = 0; i < rs->count && !o->h.rc; i++) {
      if(oc_status_is_failure(rs->refs[i].status) == part)
        continue;
      page_block(o, shown, &block_at);
      if(group_of[i] != prev) {
        const struct oc_counts *c = &gc[group_of[i]];
        oc_html_put(&o->h, "<h3 class=\"group\">target <b>");
        oc_html_txt(&o->h, groups.as[group_of[i]]);
        oc_html_put(&o->h, "</b> · suite <b>");
        oc_html_txt(&o->h, groups.bs[group_of[i]]);
        oc_html_putf(&o->h, "</b> <span class=\"muted\">%ld pass, %ld fail, %ld error, %ld skip</span></h3>\n",
             c->pass, c->fail, c->error, c->skip);
        prev = group_of[i];
      }
      int full = shown < OC_HTML_FULL_CASES, have = 0;
      char *bp = full ? base_prompt_of(o, doc, i, &have) : NULL;
      const cJSON *r = result_read(o, (long)i);
      if(r && cJSON_IsObject(r))
        case_block(o, doc, r, i, full, bp, have);
      free(bp);
      shown++;
      if(!o->h.rc)
        o->h.rc = oc_sink_flush(o->sink);
    }
  }
  if(block_at)
    oc_html_put(&o->h, "</noscript>\n");
  if(rs->count > OC_HTML_FULL_CASES)
    oc_html_putf(&o->h, "<p class=\"muted\" id=\"paged-note\">Cases %d to %zu are in this page for its script, "
            "which shows them %d at a time; it has not run. Opened with scripts off, the page shows "
            "them all.</p>\n",
         OC_HTML_FULL_CASES + 1, rs->count, OC_HTML_PAGE_CASES);
  goto out;
nomem:
  if(!o->h.rc)
    o->h.rc = OC_ENOMEM;
out:
  oc_pairs_free(&groups);
  free(group_of);
  free(gc);
}

/* ---- the page --------------------------------------------------------- */

static int contains_ci(const char *hay, const char *needle)
{
  size_t n = strlen(needle);
  for(; *hay; hay++) {
    size_t i = 0;
    while(i < n && hay[i] && (hay[i] | 0x20) == (needle[i] | 0x20))
      i++;
    if(i == n)
      return 1;
  }
  return 0;
}

int oc_report_html_stream(struct oc_results *rs, const char *assets_dir, struct oc_sink *sink,
                          char *err, size_t errlen)
{
  char *tmpl = NULL, *css = NULL, *js = NULL;
  const cJSON *doc = rs->doc;
  struct oc_buf *b = sink->b;
  struct out o = { { b, OC_OK }, rs, sink };
  int rc;
  if((rc = oc_html_read_asset(assets_dir, "report.html.in", "report", &tmpl, err, errlen)) ||
     (rc = oc_html_read_asset(assets_dir, "report.css", "report", &css, err, errlen)) ||
     (rc = oc_html_read_asset(assets_dir, "report.js", "report", &js, err, errlen)))
    goto out;
  /* the assets are ours, but an edited copy must not end its own element */
  /* the stylesheet was checked as it was read (oc_html_read_asset: no
   * "</" at all); a script may hold "</" in its strings, not "</script" */
  if(contains_ci(js, "</script")) {
    snprintf(err, errlen, "report asset report.js must not contain '</script'");
    rc = OC_EPARSE;
    goto out;
  }
  char css_hash[64], js_hash[64];
  if((rc = oc_html_csp_hash(css, css_hash)) || (rc = oc_html_csp_hash(js, js_hash))) {
    snprintf(err, errlen, "cannot hash the report assets");
    goto out;
  }
  struct oc_counts c;
  oc_results_counts(rs, NULL, NULL, &c);

  for(const char *p = tmpl; *p && !o.h.rc;) {
    const char *at = strchr(p, '@');
    if(!at) {
      oc_html_put(&o.h, p);
      break;
    }
    if(at > p && !o.h.rc)
      o.h.rc = oc_buf_add(b, p, (size_t)(at - p));
    size_t len = strspn(at + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    if(!len || at[1 + len] != '@') {
      oc_html_put(&o.h, "@");
      p = at + 1;
      continue;
    }
    char name[32];
    if(len >= sizeof(name))
      len = sizeof(name) - 1;
    memcpy(name, at + 1, len);
    name[len] = '\0';
    const char *version = oc_json_str(oc_json_obj(doc, "oacheck"), "version");
    if(strcmp(name, "CSP") == 0)
      oc_html_putf(&o.h, "default-src 'none'; style-src '%s'; script-src '%s'; img-src data:; "
               "base-uri 'none'; form-action 'none'", css_hash, js_hash);
    else if(strcmp(name, "VERSION") == 0)
      oc_html_attr(&o.h, PACKAGE_VERSION);
    else if(strcmp(name, "TITLE") == 0)
      oc_html_putf(&o.h, "oacheck: %ld pass, %ld fail, %ld error, %ld skip", c.pass, c.fail, c.error, c.skip);
    else if(strcmp(name, "STYLE") == 0)
      oc_html_put(&o.h, css);
    else if(strcmp(name, "SCRIPT") == 0)
      oc_html_put(&o.h, js);
    else if(strcmp(name, "HEADER") == 0)
      header_section(&o, doc);
    else if(strcmp(name, "SUMMARY") == 0)
      summary_section(&o, doc);
    else if(strcmp(name, "CLIENTS") == 0)
      clients_section(&o, doc);
    else if(strcmp(name, "MATRIX") == 0)
      matrix_section(&o, doc);
    else if(strcmp(name, "GRID") == 0)
      grid_section(&o, doc);
    else if(strcmp(name, "CASES") == 0)
      cases_section(&o, doc);
    else if(strcmp(name, "FOOTER") == 0) {
      oc_html_put(&o.h, "Rendered by oacheck " PACKAGE_VERSION " from results of oacheck ");
      oc_html_txt(&o.h, version);
      oc_html_put(&o.h, ". Everything shown comes from the results file; the report fetches nothing.");
    }
    else {
      /* not ours: keep it as it was */
      oc_html_put(&o.h, "@");
      p = at + 1;
      continue;
    }
    p = at + 2 + len;
  }
  rc = o.h.rc;
  if(rc)
    snprintf(err, errlen, "cannot render the HTML report: %s",
             rc == OC_ETOOBIG ? "larger than the report cap" : "out of memory");
out:
  free(tmpl);
  free(css);
  free(js);
  return rc;
}

int oc_report_html_render(const cJSON *doc, const char *assets_dir, struct oc_buf *b, char *err,
                          size_t errlen)
{
  struct oc_results rs;
  if(oc_results_from_doc(&rs, doc)) {
    snprintf(err, errlen, "cannot render the HTML report: out of memory");
    return OC_ENOMEM;
  }
  struct oc_sink sink;
  oc_sink_init_mem(&sink, b);
  int rc = oc_report_html_stream(&rs, assets_dir, &sink, err, errlen);
  if(rc)
    oc_buf_free(b);
  oc_results_free(&rs);
  return rc;
}

int oc_report_html_write(const cJSON *results, const char *path, char *err, size_t errlen)
{
  struct oc_results rs;
  if(oc_results_from_doc(&rs, results)) {
    snprintf(err, errlen, "cannot write HTML report '%s': out of memory", path);
    return OC_ENOMEM;
  }
  struct oc_sink sink;
  char why[512];
  int rc = oc_sink_open(&sink, path, err, errlen);
  if(!rc) {
    int r = oc_report_html_stream(&rs, NULL, &sink, why, sizeof(why));
    rc = oc_sink_close(&sink, r, err, errlen);
    if(r)
      snprintf(err, errlen, "cannot write HTML report '%s': %s", path, why);
  }
  oc_results_free(&rs);
  return rc;
}
