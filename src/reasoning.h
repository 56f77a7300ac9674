/* reasoning.h — reasoning ("thinking") in an assistant message: where it
 * came (which field, or markup left in the content), in what order beside
 * the answer, and the REASONING-* rules that judge it.  The servers
 * disagree here more than anywhere (research: reasoning.md): llama-server
 * and SGLang send reasoning_content, vLLM and Ollama reasoning, OpenRouter
 * adds reasoning_details[], a server without a reasoning parser leaves
 * <think> or gpt-oss's harmony channels in content; and every client reads
 * a different one.  chat.c (streams) and message.c (bodies) read the
 * fields through oc_reasoning_read; message.c runs oc_reasoning_check on
 * every finished message. */
#ifndef OC_REASONING_H
#define OC_REASONING_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "jdoc.h"

struct oc_check;
struct oc_message;
struct oc_request_info;

/* Where reasoning came from; a message may show several. */
enum {
  OC_RSRC_REASONING_CONTENT = 1u << 0, /* llama-server, SGLang, DeepSeek, LiteLLM */
  OC_RSRC_REASONING = 1u << 1,         /* vLLM, Ollama /v1, OpenRouter */
  OC_RSRC_DETAILS = 1u << 2,           /* OpenRouter's reasoning_details[] */
  OC_RSRC_THINK_TAGS = 1u << 3,        /* <think>…</think> left in content */
  OC_RSRC_HARMONY = 1u << 4            /* gpt-oss <|channel|>analysis… left in content */
};

/* The two fields disagreeing in one message or delta. */
enum oc_reasoning_conflict {
  OC_RCONFLICT_NONE = 0,
  OC_RCONFLICT_DIFFERENT,   /* both non-empty, different text */
  OC_RCONFLICT_EMPTY_HIDES  /* reasoning_content "" beside a non-empty reasoning */
};

/* What was seen of a message's reasoning as it was read; bounded whatever
 * the stream (first places and counts only). */
struct oc_reasoning_trace {
  unsigned sources;            /* OC_RSRC_* of the fields (content markup is found at check) */
  long first_chunk;            /* 1-based event of the first reasoning, -1 (or a body) */
  int before_content;          /* reasoning arrived while the content was still empty */
  int after_content;           /* reasoning arrived after content had begun */
  enum oc_reasoning_conflict conflict;
  long conflict_chunk;
  int64_t conflict_byte;
  const char *bad_field;       /* a field that was neither a string nor null (static) */
  char bad_type[16];
  long bad_chunk;
  int64_t bad_byte;
  long mixed;                  /* deltas carrying both reasoning and content */
  long mixed_chunk;
  int64_t mixed_byte;
  /* usage.completion_tokens_details.reasoning_tokens, where usage came */
  int usage_seen;
  double completion_tokens;    /* -1 when not an integer */
  int reasoning_tokens_state;  /* 0 absent, 1 a non-negative integer, 2 something else */
  double reasoning_tokens;
  char reasoning_tokens_actual[24];
};

void oc_reasoning_trace_init(struct oc_reasoning_trace *t);

/* Read the reasoning fields of obj (a non-streamed message or a stream
 * delta): note where they came and what is wrong with them, and return the
 * one string to rebuild from (reasoning_content before reasoning; the
 * other when the first is ""), or NULL.  content_had: the choice's content
 * so far was non-empty; content_here: obj itself carries non-empty
 * content.  A value's body offset is base + its offset when exact, else
 * base (an event of several data lines).  chunk is -1 for a body. */
const struct oc_jv *oc_reasoning_read(struct oc_reasoning_trace *t, const struct oc_jv *obj,
                                      long chunk, int64_t base, int exact, int content_had,
                                      int content_here);

/* Note the usage object (a body's or the stream's last), for REASONING-TOKENS. */
void oc_reasoning_usage_jv(struct oc_reasoning_trace *t, const struct oc_jv *usage);
void oc_reasoning_usage_json(struct oc_reasoning_trace *t, const cJSON *usage);

/* Reasoning markup in text: the first of <think>, </think>, [THINK],
 * harmony's <|channel|>, <|message|>, <|start|>, <|end|>, … found, with
 * its offset in *at; NULL when none. */
const char *oc_reasoning_find_markup(const char *s, size_t len, size_t *at);

/* The answer a client gets after markup is taken into account: when the
 * content opens with a think block or a harmony analysis channel (no
 * reasoning parser), what follows its end; else the whole content.
 * *sources gets OC_RSRC_THINK_TAGS / OC_RSRC_HARMONY for what it found. */
size_t oc_reasoning_answer(const char *s, size_t len, size_t *answer_at, unsigned *sources);

/* Generation stopped inside reasoning: finish_reason "length", reasoning
 * and no answer.  The rules that judge the answer (a forced tool call,
 * JSON mode, an empty stream) leave such a message to REASONING-BUDGET. */
int oc_reasoning_cut_inside(const struct oc_message *m);

/* The REASONING-* rules over one finished message (message.c calls it). */
void oc_reasoning_check(struct oc_check *c, const struct oc_request_info *req,
                        const struct oc_message *m);

/* A choice's reasoning for the results: {"index", "source": [...],
 * "order", "bytes", "text", "truncated"?}, text cut at cap bytes; NULL
 * when the message carries none (or on ENOMEM: *oom is set). */
cJSON *oc_reasoning_json(const struct oc_message *m, size_t cap, int *oom);

#endif
