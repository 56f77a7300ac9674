/* checklist.h — the rows of "Will my client work?": what kind of
 * exchange a case is (plain, streaming, tool call, tool call streamed,
 * JSON schema, errors, context overflow, reasoning), decided once when the
 * case runs (runner.c writes the row's name into its result as
 * "checklist") and read back by every report (report.c's refs, the
 * matrix).  Its own module so that the results index and the runner know
 * the rows without knowing the matrix. */
#ifndef OC_CHECKLIST_H
#define OC_CHECKLIST_H

#include "request.h"

enum oc_row {
  OC_ROW_PLAIN = 0,
  OC_ROW_STREAMING,
  OC_ROW_TOOL_CALL,
  OC_ROW_TOOL_CALL_STREAM,
  OC_ROW_JSON_SCHEMA,
  OC_ROW_ERRORS,
  OC_ROW_CONTEXT_OVERFLOW,
  OC_ROW_REASONING,          /* the cases tagged checklist:reasoning (the reasoning suite);
                                its cells also say what each client shows of the reasoning
                                of every case whose answer carried some (rsn_*) */
  OC_ROW__COUNT
};

/* "plain", "streaming", "tool-call", "tool-call-stream", "json-schema",
 * "errors", "context-overflow", "reasoning" (the results' "checklist"
 * values). */
const char *oc_row_name(int row);
/* "plain", "streaming", "tool call", "tool call streamed", "JSON schema",
 * "errors", "context overflow" (what the reports print). */
const char *oc_row_title(int row);
/* A row by name; -1 when unknown. */
int oc_row_find(const char *name);

/* The row of a case: a tag "checklist:ROW" decides; else the suite
 * "errors" and "context-overflow" are theirs, and so is a case that
 * expects an error (expects_error: its expect says "error": true) — what
 * the client makes of a refusal, which says nothing of its answers; else
 * a chat request by what it asks (response_format, tools, stream).  -1:
 * in no row (models, templates, legacy completions, server extras). */
int oc_row_of(const char *suite, const char *const *tags, size_t ntags, int expects_error,
              const struct oc_request_info *info);

#endif
