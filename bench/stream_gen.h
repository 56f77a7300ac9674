/* stream_gen.h — the benchmarks' deterministic llama-server-like stream:
 * event 0 is the role chunk, the last two are the finish chunk (with
 * timings) and "data: [DONE]", everything between is a content chunk
 * whose short text (ASCII, Cyrillic, CJK, emoji, JSON escapes) is picked
 * by a hash of its index.  The shape is that of the recording
 * recordings/llama-server/chat-stream.response.http.  With a reasoning
 * phase (gen_event_r), events 1..r carry reasoning_content instead of
 * content, before the content deltas, as llama-server sends a reasoning
 * model's thinking (suites/recordings/llama-server/
 * json-schema.json-object-stream.cassette.gz).  Any event can be
 * written on its own, so a stream can be produced piece by piece without
 * ever holding it.  Header-only: the generator and the benches share it. */
#ifndef OC_BENCH_STREAM_GEN_H
#define OC_BENCH_STREAM_GEN_H

#include <stdint.h>
#include <string.h>

#define GEN_EVENTS_DEFAULT 400000u
#define GEN_EVENT_MAX 1024u /* no event is longer */

static const char gen_prefix[] = "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{";
static const char gen_suffix[] =
    "}}],\"created\":1796004203,\"id\":\"chatcmpl-awvAcweiuV0XOXTHFDxwpAHni1Jn69zv\","
    "\"model\":\"tiny-random.gguf\",\"system_fingerprint\":\"b10587-3f545becc\","
    "\"object\":\"chat.completion.chunk\"}\n\n";
static const char gen_finish[] =
    "data: {\"choices\":[{\"finish_reason\":\"length\",\"index\":0,\"delta\":{}}],"
    "\"created\":1796004203,\"id\":\"chatcmpl-awvAcweiuV0XOXTHFDxwpAHni1Jn69zv\","
    "\"model\":\"tiny-random.gguf\",\"system_fingerprint\":\"b10587-3f545becc\","
    "\"object\":\"chat.completion.chunk\",\"timings\":{\"cache_n\":24,\"prompt_n\":1,"
    "\"prompt_ms\":0.846,\"prompt_per_token_ms\":0.846,\"prompt_per_second\":1182.033096926714,"
    "\"predicted_n\":399998,\"predicted_ms\":149827.993,\"predicted_per_token_ms\":0.37457,"
    "\"predicted_per_second\":2669.7413}}\n\n";
static const char gen_done[] = "data: [DONE]\n\n";

/* Token texts as they appear inside the JSON string (already escaped). */
static const char *const gen_tokens[] = {
    " ur",       " opinions", "\xd1\x84\xd0\xb5", "\xd2\xb1",        " cookies",
    "ieurs",     " \xd0\xba\xd0\xb0\xd0\xbf\xd0\xb8", " the",  " \xe6\x88\x91\xe5\x80\x91",
    "\xe7\x9a\x84", " \xf0\x9f\x98\x80", " na\xc3\xafve", "\xc3\xa9", "\\n",
    " \\\"ok\\\"", " r\xc3\xa9sum\xc3\xa9", " \xc3\xbc" "ber", "\\u00e9t\\u00e9", ",", ".",
    " 42",       "\xe2\x80\xa6", " \xe3\x83\x87\xe3\x83\xbc\xe3\x82\xbf", " a\\tb", " stream",
    " token",    " and",      " of"};

static inline uint64_t gen_hash(uint64_t x)
{
  x ^= x >> 33;
  x *= UINT64_C(0xff51afd7ed558ccd);
  x ^= x >> 33;
  x *= UINT64_C(0xc4ceb9fe1a85ec53);
  x ^= x >> 33;
  return x;
}

static inline size_t gen_put(char *out, size_t at, const char *s, size_t n)
{
  memcpy(out + at, s, n);
  return at + n;
}

/* Write event i of an n-event stream whose events 1..r are reasoning
 * deltas into out (GEN_EVENT_MAX bytes); returns its length. */
static inline size_t gen_event_r(uint64_t i, uint64_t n, uint64_t r, char *out)
{
  size_t at = 0;
  if(i + 1 == n)
    return gen_put(out, 0, gen_done, sizeof(gen_done) - 1);
  if(i + 2 == n)
    return gen_put(out, 0, gen_finish, sizeof(gen_finish) - 1);
  at = gen_put(out, at, gen_prefix, sizeof(gen_prefix) - 1);
  if(i == 0) {
    static const char role[] = "\"role\":\"assistant\",\"content\":null";
    at = gen_put(out, at, role, sizeof(role) - 1);
  }
  else {
    uint64_t h = gen_hash(i);
    size_t ntok = sizeof(gen_tokens) / sizeof(gen_tokens[0]);
    if(i <= r)
      at = gen_put(out, at, "\"reasoning_content\":\"", 21);
    else
      at = gen_put(out, at, "\"content\":\"", 11);
    for(int k = 0; k < 1 + (int)(h >> 62); k++) { /* one to four tokens */
      const char *t = gen_tokens[(h >> (8 * k)) % ntok];
      at = gen_put(out, at, t, strlen(t));
    }
    at = gen_put(out, at, "\"", 1);
  }
  return gen_put(out, at, gen_suffix, sizeof(gen_suffix) - 1);
}

/* Event i of an n-event stream without reasoning. */
static inline size_t gen_event(uint64_t i, uint64_t n, char *out)
{
  return gen_event_r(i, n, 0, out);
}

#endif
