/* results_json.h — helpers shared by the report writers and `oacheck
 * report`: reading a results document (schemas/results.schema.json)
 * without trusting it, counting statuses, recomputing the summary, and
 * escaping untrusted text for XML, HTML and terminals.  The writers
 * themselves live in report_junit.c and report_html.c; merge and diff in
 * report_merge.c; the results are produced by the runner. */
#ifndef OC_RESULTS_JSON_H
#define OC_RESULTS_JSON_H

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stddef.h>

#include "util.h"

/* A results file may hold many cases with their streams; a merge of
 * shards is bigger than any one run. */
#define OC_CAP_RESULTS (256u << 20)

enum oc_status {
  OC_ST_PASS = 0,
  OC_ST_FAIL,
  OC_ST_ERROR,
  OC_ST_SKIP,
  OC_ST_INVALID /* absent or not one of the four: reports treat it as an error */
};

/* "pass" -> OC_ST_PASS ...; anything else OC_ST_INVALID. */
enum oc_status oc_status_parse(const char *s);
/* The schema's spelling; "invalid" for OC_ST_INVALID. */
const char *oc_status_name(enum oc_status st);
/* The status of one result object. */
enum oc_status oc_result_status(const cJSON *result);

/* Counts over the results of a document, optionally only one target
 * and/or suite (NULL: all). */
struct oc_counts {
  long total, pass, fail, error, skip;
  long warnings;      /* findings of severity warning, allowed ones included */
  double duration_ms; /* sum of the cases' durations */
};
void oc_results_count(const cJSON *doc, const char *target, const char *suite,
                      struct oc_counts *c);

/* A summary built one result at a time, for runs whose results are not
 * all in memory (the runner adds each as it ends; oc_results_summarize
 * adds a document's).  The counts are oc_results_count's, the failing
 * rules oc_results_failing_rules'. */
struct oc_summary_rule {
  char *rule;
  long cases;
};
struct oc_summary {
  struct oc_counts counts;
  struct oc_summary_rule *rules;
  size_t nrules, arules;
  int oom;                /* a rule could not be counted */
};
void oc_summary_init(struct oc_summary *s);
/* Count one result object (borrowed). */
void oc_summary_add(struct oc_summary *s, const cJSON *result);
/* The failing rules so far as summary.failing_rules (new array, caller
 * deletes); NULL when memory runs out. */
cJSON *oc_summary_failing_rules(const struct oc_summary *s);
/* The schema's summary object; duration_ms < 0 leaves it out.  Caller
 * deletes; NULL when memory runs out. */
cJSON *oc_summary_json(const struct oc_summary *s, double duration_ms);
void oc_summary_free(struct oc_summary *s);

/* The rules with error findings (not allowed), as the schema's
 * summary.failing_rules: [{"rule", "cases"}], most cases first, then by
 * rule ID.  New array (caller deletes); NULL when memory runs out. */
cJSON *oc_results_failing_rules(const cJSON *doc);
/* Replace doc.summary by one recomputed from doc.results (duration_ms is
 * kept from the old summary when there is one).  OC_OK or OC_ENOMEM. */
int oc_results_summarize(cJSON *doc);

/* The target object named name in doc.targets, or NULL; borrowed. */
const cJSON *oc_results_target(const cJSON *doc, const char *name);
/* The first finding of severity error that no allow list downgraded, or
 * NULL; borrowed.  This is what a failure is reported as. */
const cJSON *oc_result_first_error(const cJSON *result);
/* Is this finding an error that counts (severity error, not allowed)? */
int oc_finding_counts(const cJSON *finding);

/* Check what every reader of a results document relies on: the required
 * members of the root, oacheck, targets, summary, results and findings,
 * with their types and enums; then the whole of
 * schemas/results.schema.json (from the data directory, compiled once per
 * process; not thread-safe).  Returns OC_OK, OC_EPARSE with err saying
 * "FILE: at /results/3/status: ...", or OC_ENOMEM when memory ran out
 * checking (err says so too). */
int oc_results_check(const cJSON *doc, const char *file, char *err, size_t errlen);
/* Read, parse and check a results file ("-" is stdin), whole: what
 * oc_results_load_each reads, its results put back in the frame.  New
 * tree (caller deletes) or NULL with err naming the file (and line/column
 * or JSON pointer). */
cJSON *oc_results_load(const char *path, char *err, size_t errlen);
/* The same for a file of any size, a result at a time: the text is read
 * in pieces, and what is held is the rest of the document (the frame:
 * oacheck, targets, summary, with "results" empty) and one result.  Each
 * result is checked as oc_results_check checks it (the hand checks, then
 * the schema's result definition), scrubbed and masked as
 * oc_results_load does, and handed to each, which takes it over, in
 * document order (i from 0); then the frame is checked and set in *frame
 * (caller deletes).  Returns OC_OK; OC_EPARSE with err naming the file and
 * the line, column and byte (JSON that does not parse or ends early) or
 * the JSON pointer (a result or the frame not matching); OC_ENOMEM;
 * OC_EIO (unreadable); or each's non-zero return, with err as each filled
 * it.  *frame is NULL then.  A result bigger than OC_CAP_RESULT_TEXT is an
 * error naming it. */
typedef int (*oc_result_each_cb)(void *ud, cJSON *result, size_t i, char *err, size_t errlen);
int oc_results_load_each(const char *path, oc_result_each_cb each, void *ud, cJSON **frame,
                         char *err, size_t errlen);
/* The same from an open stream, name in the messages (the fuzz target
 * reads memory this way). */
int oc_results_read_each(FILE *f, const char *name, oc_result_each_cb each, void *ud, cJSON **frame,
                         char *err, size_t errlen);
#define OC_CAP_RESULT_TEXT (256u << 20)

/* Escaping untrusted text (server output, suite names, anything in a
 * results file).  Every mode decodes UTF-8 strictly: each byte of an
 * invalid sequence becomes U+FFFD; C0 controls other than tab and line
 * feed, DEL, C1 controls and U+FFFE/U+FFFF become the visible text
 * "\u001B" (none of them can be carried by XML 1.0, and on a terminal they
 * are escape sequences).  Then per mode:
 *   OC_ESC_TEXT       nothing more (terminal and plain-text output)
 *   OC_ESC_XML_TEXT   & < >
 *   OC_ESC_XML_ATTR   & < > " ' and tab, line feed as &#9; &#10;
 *   OC_ESC_HTML_TEXT  & < >
 *   OC_ESC_HTML_ATTR  & < > " '
 * An adder that fails leaves the buffer with its first error (as oc_buf
 * does); the owner frees it. */
enum oc_esc { OC_ESC_TEXT, OC_ESC_XML_TEXT, OC_ESC_XML_ATTR, OC_ESC_HTML_TEXT, OC_ESC_HTML_ATTR };
int oc_esc_add(struct oc_buf *b, const char *s, size_t n, enum oc_esc mode);
/* The same for a C string; NULL adds nothing. */
int oc_esc_adds(struct oc_buf *b, const char *s, enum oc_esc mode);
/* At most max bytes of s (cut on a UTF-8 boundary), then "…" when cut. */
int oc_esc_addn_cut(struct oc_buf *b, const char *s, size_t max, enum oc_esc mode);

/* A command line from a results file with any literal bearer token
 * replaced by the variable reference "$OPENAI_API_KEY", every URL's
 * user:password@ dropped and key-like query values "[redacted]" (a report
 * must never carry a credential, even when its input did).  New string
 * (caller frees). */
char *oc_results_scrub_command(const char *cmd);
/* A URL without user information ("https://u:p@h/x" -> "https://h/x")
 * and without its query string (keys travel there too).  Caller frees. */
char *oc_results_clean_url(const char *url);

/* Plain-text pieces shared by the JUnit body, system-out and `report
 * diff` (raw: the caller escapes the whole for its medium).
 * "[error] RULE at chunk 17, byte 4211 (/choices/0/delta): message" and,
 * when indent is not NULL, indented lines for expected, actual and the
 * excerpt (each cut at a few hundred bytes). */
int oc_finding_text(struct oc_buf *b, const cJSON *finding, const char *indent);
/* "TTFT 12.3 ms, ITL p50 0.6 / p90 0.9 / p99 1.2 ms, longest gap ..." or
 * "not recorded". */
int oc_timing_text(struct oc_buf *b, const cJSON *timing);

/* One line per choice of the result's response.reasoning, for a reader:
 * "reasoning (choice 0): 31 bytes in reasoning_content, before the
 * answer: TEXT" with TEXT cut at textmax bytes (a character boundary) and
 * its newlines shown as \n.  Adds nothing when there is none. */
int oc_reasoning_text(struct oc_buf *b, const cJSON *result, size_t textmax);

/* The events of a streamed response worth showing: those within two of a
 * chunk a finding points at, else the first three and the last two.
 * Fills out (borrowed pointers, in order) and returns how many, at most
 * max. */
size_t oc_result_excerpt_events(const cJSON *result, const cJSON **out, size_t max);
/* Does a finding of this result (other than info) point at chunk n? */
int oc_result_chunk_flagged(const cJSON *result, double n);

/* A number, string or boolean as text ("512", "0.25", "true"); NULL for
 * anything else.  Into out (at least 64 bytes). */
const char *oc_json_scalar_text(const cJSON *v, char *out, size_t outlen);

/* Milliseconds as seconds for JUnit's time attributes: a plain decimal
 * with three places, "0.000" for anything negative or not finite. */
void oc_ms_to_seconds(double ms, char out[32]);

#endif
