/* matrix.h — "Will my client work?": the checklist rows a case belongs to
 * (plain, streaming, tool call, tool call streamed, JSON schema, errors,
 * context overflow) and, from a results document, a matrix per target of
 * row × client cells: works, breaks (with the first reason and case), the
 * client's own limitation, error (a case of the row ended in error: no
 * verdict), or not exercised.  The console, HTML and JUnit reports
 * render it (the CI Markdown summary counts per client from the same
 * refs, report_ci.c); which case is in which row is decided here once
 * (runner.c writes it into each result as "checklist"), and the cells come
 * from the results' "clients" verdicts only, like every report: counted
 * from the results' refs (report.h: each ref carries its row and each
 * client's verdict), so a matrix of 100,000 results reads only the few
 * whose break a cell shows. */
#ifndef OC_MATRIX_H
#define OC_MATRIX_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "checklist.h"
#include "client.h"

enum oc_cell_state {
  OC_CELL_NOT_EXERCISED = 0, /* no case of the row ran this client */
  OC_CELL_WORKS,             /* every case that ran it: the application gets its answer */
  OC_CELL_LIMITATION,        /* a break OpenAI's own answers cause too, and no other */
  OC_CELL_BREAKS,            /* a break that is the server's */
  OC_CELL_ERROR,             /* no break, but a case of the row that would have reached the
                                client ended in error: no verdict, never "works" */
  OC_CELL_SERVER_FAULT       /* no break: the client returned what the server sent, but the
                                server left the application an answer cut or unusable (a
                                stream ended without a finish_reason, tool-call arguments
                                that are not a JSON object) */
};

struct oc_cell {
  enum oc_cell_state state;
  int works, breaks, limits;  /* cases */
  int errors;                 /* cases of the row that ended in error without a break */
  int faults;                 /* cases the client was faithful on, and the server at fault */
  char *reason;               /* the shown case's: the first break's (or server fault's, or
                                 limitation's, or for an error cell the first errored case's
                                 "reason"); owned */
  const char *suite, *kase;   /* its case; borrowed from the results' refs */
  int result_index;           /* its position in the results array */
  const char *error_suite, *error_kase; /* the first errored case, while counting */
  int error_index;
  /* the reasoning row only: of the cases (of any row) whose answer carried
   * reasoning, how many the client showed it all, in part, or not at all;
   * and of all its answers, how many had think/harmony markup left in the
   * text (the results' clients.*.reasoning, reasoning_leak) */
  int rsn_seen, rsn_partial, rsn_hidden, rsn_leaks;
};
/* What the reasoning row's cell says of the reasoning: "seen", "partial",
 * "hidden" (the worst of its cases), or NULL when no answer carried any. */
const char *oc_cell_reasoning_word(const struct oc_cell *cell);

struct oc_matrix {
  const char *target;         /* borrowed from doc */
  struct oc_cell cells[OC_ROW__COUNT][OC_CLIENT__COUNT];
  int exercised;              /* some cell is exercised */
  unsigned columns;           /* the clients the reports show (a bit per enum oc_client_id):
                                 today's seven always, a previous major where some result
                                 has its verdict (the run selected it) */
};

/* Is client c a column of m? */
static inline int oc_matrix_has(const struct oc_matrix *m, int c)
{
  return (m->columns >> c) & 1u;
}
/* Did any of these clients (one protocol's, OC_CLIENTS_CHAT, …) run on
 * the target's cases?  The reports show a block per protocol that did. */
int oc_matrix_block_exercised(const struct oc_matrix *m, unsigned clients);

struct oc_results;

/* One matrix per target of the results, in the order of the frame's
 * "targets" (targets on which no client ran are left out): one pass over
 * the refs, then the result of each cell's first break (or limitation)
 * read for its reason.  *out is allocated (oc_matrix_free), *n set;
 * OC_ENOMEM (or the read's error, logged) on failure.  Results without
 * "clients" count as not exercised.  suite and kase stay borrowed from
 * rs's refs. */
int oc_matrix_build_from(struct oc_results *rs, struct oc_matrix **out, size_t *n);
/* The same over a results document (its strings borrowed from doc). */
int oc_matrix_build(const cJSON *doc, struct oc_matrix **out, size_t *n);
/* Free what oc_matrix_build[_from] made; NULL is fine. */
void oc_matrix_free(struct oc_matrix *m, size_t n);

/* "works", "breaks", "limitation", "not exercised", "error", "server fault". */
const char *oc_cell_state_name(enum oc_cell_state s);

#endif
