/* checklist.c — the checklist rows (checklist.h).  Rows are told apart by
 * what the request asks, so a user's own suite lands in the right row
 * without tags; a tag overrides. */
#include "config.h"
#include "checklist.h"

#include <string.h>

static const struct {
  const char *name, *title;
} rows[OC_ROW__COUNT] = {
  [OC_ROW_PLAIN] = { "plain", "plain" },
  [OC_ROW_STREAMING] = { "streaming", "streaming" },
  [OC_ROW_TOOL_CALL] = { "tool-call", "tool call" },
  [OC_ROW_TOOL_CALL_STREAM] = { "tool-call-stream", "tool call streamed" },
  [OC_ROW_JSON_SCHEMA] = { "json-schema", "JSON schema" },
  [OC_ROW_ERRORS] = { "errors", "errors" },
  [OC_ROW_CONTEXT_OVERFLOW] = { "context-overflow", "context overflow" },
  [OC_ROW_REASONING] = { "reasoning", "reasoning" },
};

const char *oc_row_name(int row)
{
  return row >= 0 && row < OC_ROW__COUNT ? rows[row].name : NULL;
}

const char *oc_row_title(int row)
{
  return row >= 0 && row < OC_ROW__COUNT ? rows[row].title : NULL;
}

int oc_row_find(const char *name)
{
  for(int i = 0; name && i < OC_ROW__COUNT; i++)
    if(strcmp(name, rows[i].name) == 0)
      return i;
  return -1;
}

int oc_row_of(const char *suite, const char *const *tags, size_t ntags, int expects_error,
              const struct oc_request_info *info)
{
  static const char prefix[] = "checklist:";
  for(size_t i = 0; i < ntags; i++)
    if(tags[i] && strncmp(tags[i], prefix, sizeof(prefix) - 1) == 0)
      return oc_row_find(tags[i] + sizeof(prefix) - 1);
  if(suite && strcmp(suite, "errors") == 0)
    return OC_ROW_ERRORS;
  if(suite && strcmp(suite, "context-overflow") == 0)
    return OC_ROW_CONTEXT_OVERFLOW;
  /* the protocols whose clients have models: the rows are the same
   * questions asked of each */
  if(!info || (info->api != OC_API_CHAT && info->api != OC_API_RESPONSES && info->api != OC_API_MESSAGES))
    return -1;
  /* a refusal every client raises on would otherwise make "plain" ok
   * with no plain answer seen */
  if(expects_error)
    return OC_ROW_ERRORS;
  if(info->format == OC_FORMAT_JSON_SCHEMA || info->format == OC_FORMAT_JSON_OBJECT)
    return OC_ROW_JSON_SCHEMA;
  if(info->ntools > 0)
    return info->stream ? OC_ROW_TOOL_CALL_STREAM : OC_ROW_TOOL_CALL;
  return info->stream ? OC_ROW_STREAMING : OC_ROW_PLAIN;
}
