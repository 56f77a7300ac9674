/* sse_issue.c — the SSE parser's issues as findings, one wording for
 * every protocol's stream decoder (see sse_issue.h). */
#include "config.h"
#include "sse_issue.h"

#include <stdio.h>
#include <string.h>

int oc_sse_issue_finding(const struct oc_sse_issue *is, long n, int partial, int *truncated,
                         struct oc_sse_finding *f)
{
  memset(f, 0, sizeof(*f));
  f->byte = (int64_t)is->offset;
  unsigned long long at = (unsigned long long)is->offset;
  switch(is->kind) {
  case OC_SSE_ISSUE_INVALID_UTF8:
    f->rule = OC_R_SSE_UTF8;
    f->expected = "UTF-8";
    f->actual = "invalid byte sequence";
    snprintf(f->message, sizeof(f->message),
             "byte %llu of the stream (in event %ld) is not valid UTF-8", at, n);
    return 1;
  case OC_SSE_ISSUE_UNKNOWN_FIELD:
    snprintf(f->field, sizeof(f->field), "%.*s",
             (int)(is->detail_len < 40 ? is->detail_len : 40), is->detail ? is->detail : "");
    f->rule = OC_R_SSE_UNKNOWN_FIELD;
    f->expected = "data, event, id or retry";
    f->actual = f->field;
    snprintf(f->message, sizeof(f->message),
             "the stream uses the field '%s', which every client ignores", f->field);
    return 1;
  case OC_SSE_ISSUE_LINE_TOO_LONG:
  case OC_SSE_ISSUE_EVENT_TOO_BIG:
    f->rule = OC_R_SSE_EVENT_SIZE;
    f->expected = "a bounded event";
    f->actual = "over the cap";
    snprintf(f->message, sizeof(f->message), "%s at byte %llu exceeds oacheck's cap and was dropped",
             is->kind == OC_SSE_ISSUE_LINE_TOO_LONG ? "a line" : "an event", at);
    return 1;
  case OC_SSE_ISSUE_UNTERMINATED:
    *truncated = 1;
    if(partial)
      return 0; /* the capture was cut there, not the stream */
    f->rule = OC_R_STREAM_TRUNCATED;
    f->expected = "a blank line ending the event";
    f->actual = "end of body";
    snprintf(f->message, sizeof(f->message),
             "the body ends inside an event (at byte %llu): the last event is lost", at);
    return 1;
  default:
    return 0;
  }
}
