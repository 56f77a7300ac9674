/* typed_gen.h — the benchmarks' deterministic typed streams: a long
 * Responses API stream and a long Anthropic Messages stream, each with an
 * `event:` line naming every event as the protocols send them, written
 * to a FILE.  Both carry a reasoning phase, a text answer and two
 * function calls whose arguments arrive in deltas:
 *
 * Responses (OpenAI's shape: sequence_number, output_index,
 * content_index, item_id on every event): response.created,
 * response.in_progress; a reasoning item (reasoning_text deltas, its
 * .done); a message item (content_part.added, output_text deltas,
 * output_text.done, content_part.done); two function_call items
 * (function_call_arguments deltas, .done); each item closed by
 * output_item.done with its whole text; response.completed with every
 * item and the usage.
 *
 * Messages: message_start, ping; a thinking block (thinking deltas, a
 * signature_delta); a text block; two tool_use blocks (input_json_delta
 * pieces of one JSON object each); message_delta (stop_reason tool_use,
 * usage), message_stop.
 *
 * Of EVENTS events, REASONING are reasoning deltas; of the rest, three
 * fifths are text deltas and the remainder argument deltas, split
 * between the two calls.  Every delta is one or two of stream_gen.h's
 * token texts (ASCII, Cyrillic, CJK, emoji, JSON escapes), picked by a
 * hash of its number, so that the same arguments give the same bytes.
 * The texts are kept to write the .done events and the final response;
 * no line may reach 4 MiB (oacheck's cap on one SSE line), which bounds
 * EVENTS to about 400,000.  Used by gen_stream -a; header-only. */
#ifndef OC_BENCH_TYPED_GEN_H
#define OC_BENCH_TYPED_GEN_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "stream_gen.h"
#include "util.h"

#define TYPED_LINE_MAX ((4u << 20) - 1024u)

/* Pieces of the calls' arguments as they appear inside the JSON string
 * that carries them: the decoded pieces join to a JSON object whose one
 * member holds words, UTF-8, an escaped newline and an escaped quote. */
static const char *const typed_arg_tokens[] = {
    " weather", " in", " Oslo", " \xc3\xa9t\xc3\xa9", " \xe6\x88\x91\xe5\x80\x91",
    " \xd0\xba\xd0\xb0\xd0\xbf", "\\\\n", " \\\\\\\"q\\\\\\\"", " 42", ",", " \xf0\x9f\x98\x80",
    " and"};
static const char typed_arg_open[] = "{\\\"query\\\":\\\"";
static const char typed_arg_close[] = "\\\"}";

struct typed_text {
  char *p;
  size_t n, a;
};

struct typed_out {
  FILE *f;
  uint64_t seq;   /* the next sequence_number (Responses) */
  long events;
  uint64_t bytes;
  size_t line;    /* bytes of the data line being written */
  int failed;     /* a write failed or a line grew too long */
  struct typed_text text[5]; /* reasoning, answer, call 1, call 2 (escaped) */
};

static inline void typed_put(struct typed_out *o, const char *s, size_t n)
{
  if(o->failed)
    return;
  if(fwrite(s, 1, n, o->f) != n)
    o->failed = 1;
  o->bytes += n;
  o->line += n;
  if(o->line > TYPED_LINE_MAX)
    o->failed = 2;
}

static inline void typed_puts(struct typed_out *o, const char *s)
{
  typed_put(o, s, strlen(s));
}

static inline void typed_printf(struct typed_out *o, const char *fmt, ...)
{
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if(n < 0 || (size_t)n >= sizeof(buf))
    o->failed = 1;
  else
    typed_put(o, buf, (size_t)n);
}

static inline void typed_text_add(struct typed_out *o, struct typed_text *t, const char *s, size_t n)
{
  if(t->n + n > t->a) {
    size_t a = t->a ? t->a * 2 : 65536;
    while(a < t->n + n)
      a *= 2;
    char *p = realloc(t->p, a);
    if(!p) {
      o->failed = 1;
      return;
    }
    t->p = p;
    t->a = a;
  }
  memcpy(t->p + t->n, s, n);
  t->n += n;
}

/* The escaped text of delta number k: one or two tokens. */
static inline size_t typed_delta(uint64_t k, int args, char *out)
{
  uint64_t h = gen_hash(k + 1);
  size_t at = 0;
  for(int i = 0; i < 1 + (int)(h >> 63); i++) {
    const char *t = args ? typed_arg_tokens[(h >> (8 * i)) % OC_ARRAY_LEN(typed_arg_tokens)]
                         : gen_tokens[(h >> (8 * i)) % OC_ARRAY_LEN(gen_tokens)];
    at = gen_put(out, at, t, strlen(t));
  }
  return at;
}

/* "event: TYPE\ndata: {"type":"TYPE"" (and the sequence number when
 * seq), the rest of the object to follow. */
static inline void typed_open(struct typed_out *o, const char *type, int seq)
{
  typed_printf(o, "event: %s\n", type);
  o->line = 0;
  typed_printf(o, "data: {\"type\":\"%s\"", type);
  if(seq)
    typed_printf(o, ",\"sequence_number\":%llu", (unsigned long long)o->seq++);
}

static inline void typed_close(struct typed_out *o)
{
  typed_puts(o, "}\n\n");
  o->events++;
}

/* How many deltas of each phase: reasoning, text, call 1, call 2. */
static inline void typed_split(long events, long reasoning, long fixed, long out[4])
{
  long rest = events - fixed - reasoning;
  if(rest < 4)
    rest = 4;
  out[0] = reasoning;
  out[1] = rest * 3 / 5;
  out[2] = (rest - out[1]) / 2;
  out[3] = rest - out[1] - out[2];
  if(out[2] < 2)
    out[2] = 2;
  if(out[3] < 2)
    out[3] = 2;
}

/* ---- Responses ------------------------------------------------------------------------ */

static const char typed_resp_head[] =
    "\"id\":\"resp_bench0001\",\"object\":\"response\",\"created_at\":1796004203,";
static const char typed_model[] = "bench-model";

static inline void typed_resp_item(struct typed_out *o, int which, const char *status)
{
  static const char *const fc_id[] = { "fc_bench0001", "fc_bench0002" };
  static const char *const call_id[] = { "call_bench0001", "call_bench0002" };
  if(which == 0) {
    typed_puts(o, "{\"id\":\"rs_bench0001\",\"type\":\"reasoning\",\"summary\":[],\"content\":[");
    if(status) {
      typed_puts(o, "{\"type\":\"reasoning_text\",\"text\":\"");
      typed_put(o, o->text[0].p, o->text[0].n);
      typed_puts(o, "\"}");
    }
    typed_puts(o, "]}");
  }
  else if(which == 1) {
    typed_printf(o, "{\"id\":\"msg_bench0001\",\"type\":\"message\",\"role\":\"assistant\","
                    "\"status\":\"%s\",\"content\":[", status ? status : "in_progress");
    if(status) {
      typed_puts(o, "{\"type\":\"output_text\",\"text\":\"");
      typed_put(o, o->text[1].p, o->text[1].n);
      typed_puts(o, "\",\"annotations\":[],\"logprobs\":[]}");
    }
    typed_puts(o, "]}");
  }
  else {
    int c = which - 2;
    typed_printf(o, "{\"id\":\"%s\",\"type\":\"function_call\",\"status\":\"%s\",\"call_id\":\"%s\","
                    "\"name\":\"get_weather\",\"arguments\":\"", fc_id[c],
                 status ? status : "in_progress", call_id[c]);
    if(status)
      typed_put(o, o->text[which].p, o->text[which].n);
    typed_puts(o, "\"}");
  }
}

static inline int typed_responses(FILE *f, long events, long reasoning, uint64_t *bytes, long *written)
{
  static const char *const item_ids[] = { "rs_bench0001", "msg_bench0001", "fc_bench0001",
                                          "fc_bench0002" };
  struct typed_out o;
  memset(&o, 0, sizeof(o));
  o.f = f;
  long n[4];
  typed_split(events, reasoning, 17, n);
  char d[GEN_EVENT_MAX];
  uint64_t k = 0;
  for(int phase = 0; phase < 2; phase++) {
    typed_open(&o, phase ? "response.in_progress" : "response.created", 1);
    typed_printf(&o, ",\"response\":{%s\"status\":\"in_progress\",\"model\":\"%s\",\"output\":[]}",
                 typed_resp_head, typed_model);
    typed_close(&o);
  }
  for(int item = 0; item < 4 && !o.failed; item++) {
    typed_open(&o, "response.output_item.added", 1);
    typed_printf(&o, ",\"output_index\":%d,\"item\":", item);
    typed_resp_item(&o, item, NULL);
    typed_close(&o);
    if(item == 1) {
      typed_open(&o, "response.content_part.added", 1);
      typed_puts(&o, ",\"item_id\":\"msg_bench0001\",\"output_index\":1,\"content_index\":0,"
                     "\"part\":{\"type\":\"output_text\",\"text\":\"\",\"annotations\":[],"
                     "\"logprobs\":[]}");
      typed_close(&o);
    }
    const char *delta = item == 0 ? "response.reasoning_text.delta"
                        : item == 1 ? "response.output_text.delta"
                                    : "response.function_call_arguments.delta";
    for(long i = 0; i < n[item] && !o.failed; i++) {
      size_t dl;
      if(item >= 2 && i == 0)
        dl = gen_put(d, 0, typed_arg_open, sizeof(typed_arg_open) - 1);
      else if(item >= 2 && i + 1 == n[item])
        dl = gen_put(d, 0, typed_arg_close, sizeof(typed_arg_close) - 1);
      else
        dl = typed_delta(k++, item >= 2, d);
      typed_text_add(&o, &o.text[item], d, dl);
      typed_open(&o, delta, 1);
      typed_printf(&o, ",\"item_id\":\"%s\",\"output_index\":%d", item_ids[item], item);
      if(item < 2)
        typed_puts(&o, ",\"content_index\":0");
      typed_puts(&o, ",\"delta\":\"");
      typed_put(&o, d, dl);
      typed_puts(&o, item == 1 ? "\",\"logprobs\":[]" : "\"");
      typed_close(&o);
    }
    const struct typed_text *t = &o.text[item];
    typed_open(&o, item == 0 ? "response.reasoning_text.done"
                   : item == 1 ? "response.output_text.done"
                               : "response.function_call_arguments.done", 1);
    typed_printf(&o, ",\"item_id\":\"%s\",\"output_index\":%d", item_ids[item], item);
    if(item < 2)
      typed_puts(&o, ",\"content_index\":0");
    typed_puts(&o, item < 2 ? ",\"text\":\"" : ",\"arguments\":\"");
    typed_put(&o, t->p, t->n);
    typed_puts(&o, item == 1 ? "\",\"logprobs\":[]" : "\"");
    typed_close(&o);
    if(item == 1) {
      typed_open(&o, "response.content_part.done", 1);
      typed_puts(&o, ",\"item_id\":\"msg_bench0001\",\"output_index\":1,\"content_index\":0,"
                     "\"part\":{\"type\":\"output_text\",\"text\":\"");
      typed_put(&o, t->p, t->n);
      typed_puts(&o, "\",\"annotations\":[],\"logprobs\":[]}");
      typed_close(&o);
    }
    typed_open(&o, "response.output_item.done", 1);
    typed_printf(&o, ",\"output_index\":%d,\"item\":", item);
    typed_resp_item(&o, item, "completed");
    typed_close(&o);
  }
  typed_open(&o, "response.completed", 1);
  typed_printf(&o, ",\"response\":{%s\"status\":\"completed\",\"model\":\"%s\",\"output\":[",
               typed_resp_head, typed_model);
  for(int item = 0; item < 4; item++) {
    if(item)
      typed_puts(&o, ",");
    typed_resp_item(&o, item, "completed");
  }
  typed_printf(&o, "],\"error\":null,\"incomplete_details\":null,\"instructions\":null,"
                  "\"tools\":[{\"type\":\"function\",\"name\":\"get_weather\",\"parameters\":"
                  "{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\"}},"
                  "\"required\":[\"query\"]},\"strict\":false}],\"parallel_tool_calls\":true,"
                  "\"metadata\":{},\"tool_choice\":\"auto\",\"temperature\":1,\"top_p\":1,"
                  "\"usage\":{\"input_tokens\":24,\"input_tokens_details\":{\"cached_tokens\":0},"
                  "\"output_tokens\":%ld,\"output_tokens_details\":{\"reasoning_tokens\":%ld},"
                  "\"total_tokens\":%ld}}", events, reasoning, events + 24);
  typed_close(&o);
  for(int i = 0; i < 5; i++)
    free(o.text[i].p);
  *bytes = o.bytes;
  *written = o.events;
  return o.failed;
}

/* ---- Messages ------------------------------------------------------------------------- */

static inline int typed_messages(FILE *f, long events, long reasoning, uint64_t *bytes, long *written)
{
  struct typed_out o;
  memset(&o, 0, sizeof(o));
  o.f = f;
  long n[4];
  typed_split(events, reasoning, 13, n);
  char d[GEN_EVENT_MAX];
  uint64_t k = 0;
  typed_open(&o, "message_start", 0);
  typed_printf(&o, ",\"message\":{\"id\":\"msg_bench0001\",\"type\":\"message\",\"role\":\"assistant\","
                   "\"content\":[],\"model\":\"%s\",\"stop_reason\":null,\"stop_sequence\":null,"
                   "\"usage\":{\"input_tokens\":24,\"output_tokens\":1}}", typed_model);
  typed_close(&o);
  typed_open(&o, "ping", 0);
  typed_close(&o);
  static const char *const start[] = {
    "{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}",
    "{\"type\":\"text\",\"text\":\"\"}",
    "{\"type\":\"tool_use\",\"id\":\"toolu_bench0001\",\"name\":\"get_weather\",\"input\":{}}",
    "{\"type\":\"tool_use\",\"id\":\"toolu_bench0002\",\"name\":\"get_weather\",\"input\":{}}",
  };
  for(int b = 0; b < 4 && !o.failed; b++) {
    typed_open(&o, "content_block_start", 0);
    typed_printf(&o, ",\"index\":%d,\"content_block\":%s", b, start[b]);
    typed_close(&o);
    for(long i = 0; i < n[b] && !o.failed; i++) {
      size_t dl;
      if(b >= 2 && i == 0)
        dl = gen_put(d, 0, typed_arg_open, sizeof(typed_arg_open) - 1);
      else if(b >= 2 && i + 1 == n[b])
        dl = gen_put(d, 0, typed_arg_close, sizeof(typed_arg_close) - 1);
      else
        dl = typed_delta(k++, b >= 2, d);
      typed_open(&o, "content_block_delta", 0);
      typed_printf(&o, ",\"index\":%d,\"delta\":{\"type\":\"%s\",\"%s\":\"", b,
                   b == 0 ? "thinking_delta" : b == 1 ? "text_delta" : "input_json_delta",
                   b == 0 ? "thinking" : b == 1 ? "text" : "partial_json");
      typed_put(&o, d, dl);
      typed_puts(&o, "\"}");
      typed_close(&o);
    }
    if(b == 0) {
      typed_open(&o, "content_block_delta", 0);
      typed_puts(&o, ",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":"
                     "\"RXJiZW5jaC1zaWduYXR1cmUtMDAwMQ==\"}");
      typed_close(&o);
    }
    typed_open(&o, "content_block_stop", 0);
    typed_printf(&o, ",\"index\":%d", b);
    typed_close(&o);
  }
  typed_open(&o, "message_delta", 0);
  typed_printf(&o, ",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},"
                   "\"usage\":{\"output_tokens\":%ld}", events);
  typed_close(&o);
  typed_open(&o, "message_stop", 0);
  typed_close(&o);
  *bytes = o.bytes;
  *written = o.events;
  return o.failed;
}

#endif
