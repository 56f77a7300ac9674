/* case_seq.h — `oacheck serve`'s case sequences: one X-Oacheck-Case
 * value that names a conversation rather than one answer.  An agent
 * (Claude Code, Codex) sends the same headers on every request of a run
 * and a body that changes every run, so neither a name nor a request key
 * can say "first the tool call, then the final text".  The value
 * "A,B,C" does: the Nth request carrying exactly that value is answered
 * by its Nth name, the last one repeating.  A value with no comma, or one
 * that is itself a recording's name, is a plain name as before.  The
 * counts live as long as the server; the HTTP server asks which name
 * answers and nothing else.  Thread-safe (one lock, held for a lookup). */
#ifndef OC_CASE_SEQ_H
#define OC_CASE_SEQ_H

#include <stddef.h>

#include "cassette.h"

/* At most this many distinct sequences are counted at once: the oldest
 * one is forgotten (and starts again at its first name) beyond it. */
#define OC_CASE_SEQ_MAX 1024

struct oc_case_seq;

/* NULL when out of memory. */
struct oc_case_seq *oc_case_seq_new(void);
void oc_case_seq_free(struct oc_case_seq *s);

/* The recording name that answers a request whose X-Oacheck-Case is
 * value.  value itself when it is not a sequence (no comma, or a name in
 * store); otherwise the name due now, copied into out (outlen bytes; a
 * name that does not fit is cut, and then matches nothing), with *nth the
 * request's position in its sequence (1-based) and *len the sequence's
 * length; both are 0 for a plain name.  Empty names in the list are
 * skipped and surrounding spaces trimmed; a list of no names is value
 * itself (it then matches nothing).  NULL only when out of memory. */
const char *oc_case_seq_pick(struct oc_case_seq *s, const struct oc_cassette_store *store,
                             const char *value, char *out, size_t outlen, unsigned long *nth,
                             unsigned long *len);

#endif
