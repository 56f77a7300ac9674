/* templates.h — chat-template comparison: the same conversations rendered
 * through each target's chat template (POST /apply-template) and checked
 * against the conversation that produced them: the system prompt kept
 * and first, every message there (an unknown role rendered or refused),
 * every offered tool, the assistant's tool call and the tool's result
 * rendered (as a tool result, and not encoded twice), no empty tool list,
 * no date from the server's clock, a refusal told from a render failure;
 * and, reported as the template's behaviour, what it does with the
 * reasoning a conversation sends back (kept before a tool result, dropped
 * after a user turn).
 * The results are ordinary results-schema objects (suite "templates",
 * one case per fixture), so every report renders them.  Option parsing
 * and the grid are cmd_templates.c's. */
#ifndef OC_TEMPLATES_H
#define OC_TEMPLATES_H

#include <cjson/cJSON.h>

#include "rules.h"
#include "target.h"

/* Render every fixture ({"fixtures": [{name, description, request}]}) on
 * every (identified) target and return the result objects, target by
 * target, fixture by fixture.  Caller deletes; NULL when memory runs out. */
cJSON *oc_templates_run(struct oc_target *targets, size_t ntargets, const cJSON *fixtures,
                        const struct oc_identify_options *o);

/* What a check knows beside the conversation and its render. */
struct oc_template_context {
  const char *fixture;        /* named in every finding; may be NULL */
  const char *template_text;  /* the template's own text (/props chat_template), or NULL:
                                 what it can render, its raise_exception messages, the dates
                                 written in it */
  int year, month, day;       /* the server's today (its Date header, the recording's
                                 time, or the run's clock); 0: unknown, no date check */
};

/* Check one rendered prompt against the conversation that produced it;
 * findings go through c.  status is the HTTP status of the render;
 * error_message the error body's message when it failed.  ctx may be
 * NULL. */
void oc_templates_check(struct oc_check *c, const cJSON *request, int status, const char *prompt,
                        const char *error_message, const struct oc_template_context *ctx);

/* What a render did with the reasoning (reasoning_content) of the last
 * assistant turn that carries one: the template's behaviour, reported per
 * template.  followed_by says which turn it is: "tool", the turn a tool
 * result follows with no user message after it (the agent loop, where a
 * dropped reasoning makes the prompt cache miss every tool round), or
 * "user", a finished turn a new user message follows (where kept
 * reasoning is old reasoning left in the context). */
enum oc_template_reasoning {
  OC_TPL_REASONING_NONE = 0, /* no reasoning sent back, or no prompt to look in */
  OC_TPL_REASONING_KEPT,     /* its text is in the prompt */
  OC_TPL_REASONING_DROPPED,  /* it is not, and the template's text reads reasoning (or is unknown) */
  OC_TPL_REASONING_UNREAD    /* it is not, and the template's text never reads reasoning at all */
};

struct oc_template_reasoning_seen {
  enum oc_template_reasoning state;
  const char *followed_by; /* "tool" or "user"; NULL with OC_TPL_REASONING_NONE */
  int template_known;      /* the template's text was there to read */
  int preserve_switch;     /* the template reads preserve_thinking, clear_thinking, … */
};

/* Fill *out for a render of request (prompt NULL: nothing rendered). */
void oc_templates_reasoning(const cJSON *request, const char *prompt, const char *template_text,
                            struct oc_template_reasoning_seen *out);

/* "kept", "dropped", "unread", or NULL for OC_TPL_REASONING_NONE. */
const char *oc_templates_reasoning_name(enum oc_template_reasoning state);

/* The server's day from an HTTP Date header ("Tue, 01 Dec 2026 06:44:58
 * GMT") or an RFC 3339 time ("2026-12-01T06:44:58Z") into ctx; returns 0
 * when s is neither. */
int oc_templates_set_day(struct oc_template_context *ctx, const char *s);

#endif
