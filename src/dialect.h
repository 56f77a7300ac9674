/* dialect.h — chat-template dialects: the markup chat templates wrap an
 * assistant tool call in (the table in tool_markers.def, plus the tokens
 * one target's own template text uses), and what a server says when the
 * model's text does not fit the format its template expects.  Whether a
 * marker in content is a finding is message.c's business; an error
 * message is judged by response.c and chat.c. */
#ifndef OC_DIALECT_H
#define OC_DIALECT_H

#include <stddef.h>

/* The tool-call markers read from one template's text. */
struct oc_dialect {
  char **markers;
  size_t n, alloc;
};

/* At most this many markers are kept from one template. */
#define OC_DIALECT_MAX_MARKERS 64

/* Fill *d as empty; cannot fail. */
void oc_dialect_init(struct oc_dialect *d);
/* Read the tokens a template's text writes around tool calls: token-like
 * text (<|x|>, <x>, </x>, <｜x｜>, [X_Y]) near the template's uses of
 * tool_call whose name says call, function, invoke, action or tool_ —
 * what a model trained on the template writes when it calls a tool.
 * Appends to d (duplicates and the table's own markers are skipped).
 * Returns OC_OK or OC_ENOMEM (d keeps what it had). */
int oc_dialect_from_template(struct oc_dialect *d, const char *text, size_t len);
void oc_dialect_free(struct oc_dialect *d);

/* The first tool-call marker in s: the table's, then d's (d may be NULL).
 * Returns the marker (static or borrowed from d), with its offset in *at
 * and a name for its family in *family ("this target's template" for
 * d's); NULL when none is there. */
const char *oc_dialect_find_marker(const char *s, size_t len, const struct oc_dialect *d,
                                   size_t *at, const char **family);

/* The number of markers in the table and the i-th one (tests). */
size_t oc_dialect_table_size(void);
const char *oc_dialect_table_marker(size_t i);

/* Does msg say the server could not turn the model's output into an
 * answer because it does not fit the format the template expects
 * (llama-server: "The model produced output that does not match the
 * expected peg-native format")?  The format's name goes to fmt when it
 * is given (may be NULL). */
int oc_dialect_parse_failure(const char *msg, size_t len, char *fmt, size_t fmtlen);

#endif
