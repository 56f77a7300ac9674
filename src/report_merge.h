/* report_merge.h — combining results (shards of one run from several CI
 * machines, or runs against different targets) and comparing two runs
 * ("what changed since yesterday").  Reading and checking results files
 * is results_json.h's; rendering is the writers'. */
#ifndef OC_REPORT_MERGE_H
#define OC_REPORT_MERGE_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "util.h"

/* Merge n results documents (borrowed; checked or not, members of the
 * wrong type are skipped) into a new one (caller deletes):
 *   - targets de-duplicated by name, the first description wins, in order
 *     of first appearance;
 *   - results keyed by target + suite + case; when two inputs hold the
 *     same case the later input wins (silently: the caller says how many
 *     results were dropped);
 *   - results ordered by target (as above), suite (as oacheck.suites
 *     lists them, then first appearance), the case's index in its suite
 *     (cases without one after those with), case name, input order — so
 *     shards merge into the order of the unsharded run;
 *   - oacheck.started the earliest, finished the latest, mode "mixed"
 *     when the inputs differ, suites the union, note/command/shard kept
 *     only when every input agrees, merged_from the number of files
 *     combined (inputs that were merges count theirs), shards which
 *     shards of each target it holds and misses (oc_shards_merge, shard.h);
 *   - the summary recomputed; its duration_ms is the sum of the inputs'.
 * NULL with err filled when memory runs out or n is 0. */
cJSON *oc_results_merge(const cJSON *const *docs, size_t n, char *err, size_t errlen);

/* The same merge for results that are not in the documents (read a
 * result at a time into a spool): items[0..nitems) are the results of
 * every input, in input order, each by its key and its index in its suite
 * (NaN when it has none; strings borrowed).  Returns the merged document
 * with "results" empty and a summary holding only duration_ms (the caller
 * counts the results it writes), and sets *order to the items kept, in
 * the merged order (*kept of them; caller frees).  docs are the inputs'
 * frames.  NULL with err filled when memory runs out or n is 0. */
struct oc_merge_item {
  const char *target, *suite, *name;
  double index;
};
cJSON *oc_results_merge_frame(const cJSON *const *docs, size_t n, const struct oc_merge_item *items,
                              size_t nitems, size_t **order, size_t *kept, char *err,
                              size_t errlen);

/* Compare two runs, keyed by target + suite + case, findings by rule +
 * path + where.  Appends a human summary to human (may be NULL; text is
 * escaped for a terminal) and, when machine is not NULL, sets *machine to
 * a new object (caller deletes):
 *   { "new_failures": N, "newly_failing": [...], "newly_passing": [...],
 *     "status_changed": [...], "findings_changed": [...],
 *     "added_cases": [...], "removed_cases": [...],
 *     "old_summary": {...}, "new_summary": {...} }
 * Each case entry holds target, suite, case, old_status, new_status
 * (null when absent on that side) and findings {added, removed, changed}.
 * A case is newly failing when it fails or errors in new and passed,
 * was skipped or did not exist in old.  Returns the number of newly
 * failing cases, or a negative -OC_E* code when memory runs out. */
int oc_results_diff(const cJSON *old, const cJSON *new, struct oc_buf *human, cJSON **machine);
/* The same over results read one at a time (report.h: a document's or a
 * spool's); the two sides are read side by side, a case's pair at once.
 * Also -OC_EIO when a result cannot be read back (logged). */
struct oc_results;
int oc_results_diff_of(struct oc_results *old, struct oc_results *nw, struct oc_buf *human,
                       cJSON **machine);

#endif
