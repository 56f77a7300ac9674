/* bench_pipeline.c — the whole streaming path a live case takes, as fast
 * as it goes: SSE framing, JSON decoding of every chunk, validation
 * against the shipped chat.completion.chunk schema, the accumulator that
 * rebuilds the message, every stream rule, and at the end the message
 * rules — the same oc_response code `oacheck run` uses, fed the
 * benchmark stream in 16 KiB pieces.  Also counts findings so a broken
 * run cannot pass as a fast one.  With --gigabyte, a role chunk and then
 * 4 MiB of generated content chunks replayed until 1 GiB has passed (one
 * stream): peak RSS then shows that the whole pipeline's memory does not
 * grow with the stream.  With --api responses or --api messages, the
 * stream is a Responses or Messages one (bench/gen_stream -a) and the
 * request a /v1/responses or /v1/messages one declaring the tool its
 * calls use: the typed-event decoders (responses.c, messages.c) take it,
 * schema, state machine and joins.  Prints one key=value line for
 * bench/section-30-pipeline.sh and bench/section-35-typed.sh (with
 * rules=RULE:N,… the findings by rule).  Built by `make bench` only. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "json.h"
#include "request.h"
#include "messages.h"
#include "response.h"
#include "responses.h"
#include "rules.h"
#include "stream_gen.h"
#include "util.h"

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
  long runs = 3, piece = 16384;
  const char *path = NULL;
  int gigabyte = 0, show = 0;
  const char *api = "chat";
  for(int i = 1; i < argc; i++) {
    if(strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      if(oc_parse_long(argv[++i], 1, 1000, &runs))
        return 2;
    }
    else if(strcmp(argv[i], "--piece") == 0 && i + 1 < argc) {
      if(oc_parse_long(argv[++i], 1, 1 << 24, &piece))
        return 2;
    }
    else if(strcmp(argv[i], "--gigabyte") == 0)
      gigabyte = 1;
    else if(strcmp(argv[i], "--findings") == 0)
      show = 1; /* each finding of the first run on stderr */
    else if(strcmp(argv[i], "--api") == 0 && i + 1 < argc) {
      api = argv[++i];
      if(strcmp(api, "chat") != 0 && strcmp(api, "responses") != 0 && strcmp(api, "messages") != 0)
        return 2;
    }
    else if(!path && argv[i][0] != '-')
      path = argv[i];
    else {
      fprintf(stderr, "usage: bench_pipeline [--runs N] [--piece BYTES] [--api chat|responses|messages] "
                      "STREAM.sse\n");
      return 2;
    }
  }
  if(!path && !gigabyte) {
    fprintf(stderr, "usage: bench_pipeline [--runs N] [--piece BYTES] STREAM.sse | --gigabyte\n");
    return 2;
  }
  char err[600];
  char *buf = NULL, head[GEN_EVENT_MAX];
  size_t len = 0, headlen = 0, repeat = 1;
  if(gigabyte) {
    size_t cap = 4u << 20;
    buf = malloc(cap);
    if(!buf)
      return 1;
    char ev[GEN_EVENT_MAX];
    headlen = gen_event(0, UINT64_MAX, head); /* the role chunk, once */
    for(uint64_t i = 1;; i++) {
      size_t n = gen_event(i, UINT64_MAX, ev);
      if(len + n > cap)
        break;
      memcpy(buf + len, ev, n);
      len += n;
    }
    repeat = (size_t)((UINT64_C(1) << 30) / len);
    runs = 1;
  }
  else if(oc_read_file(path, 1u << 30, &buf, &len, err, sizeof(err))) {
    fprintf(stderr, "bench_pipeline: %s\n", err);
    return 1;
  }
  struct oc_schemas sch;
  if(oc_schemas_load(&sch, err, sizeof(err))) {
    fprintf(stderr, "bench_pipeline: %s (set OACHECK_DATADIR to the source tree)\n", err);
    return 1;
  }
  /* the request each stream answers; the typed streams call get_weather */
  static const char chat_body[] =
    "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
#define BENCH_TOOL_PARAMS                                                                          \
  "{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\"}},\"required\":[\"query\"]}"
  static const char responses_body[] =
    "{\"model\":\"bench-model\",\"stream\":true,\"input\":\"What is the weather in Oslo?\","
    "\"tools\":[{\"type\":\"function\",\"name\":\"get_weather\",\"parameters\":" BENCH_TOOL_PARAMS "}]}";
  static const char messages_body[] =
    "{\"model\":\"bench-model\",\"stream\":true,\"max_tokens\":1000000,"
    "\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":500000},"
    "\"messages\":[{\"role\":\"user\",\"content\":\"What is the weather in Oslo?\"}],"
    "\"tools\":[{\"name\":\"get_weather\",\"input_schema\":" BENCH_TOOL_PARAMS "}]}";
  const char *body = api[0] == 'r' ? responses_body : api[0] == 'm' ? messages_body : chat_body;
  const char *url = api[0] == 'r' ? "/v1/responses" : api[0] == 'm' ? "/v1/messages"
                                                                      : "/v1/chat/completions";
  cJSON *req = cJSON_Parse(body);
  struct oc_request_info info;
  oc_request_info_init(&info, "POST", url, req);
  struct oc_headers h;
  oc_headers_init(&h);
  oc_headers_add(&h, "Content-Type", "text/event-stream");
  double best = 1e30;
  long events = 0;
  size_t findings = 0, content = 0, reasoning = 0;
  char rules[512] = "";
  for(long r = 0; r < runs; r++) {
    struct oc_findings f;
    oc_findings_init(&f);
    struct oc_check check;
    oc_check_init(&check, &f, oc_profile_find("llama-server"));
    struct oc_response resp;
    double t0 = now_s();
    oc_response_init(&resp, &info, &check, &sch, 1, 1, 0);
    oc_response_head(&resp, 200, &h, 1);
    if(headlen)
      oc_response_body(&resp, head, headlen, 2);
    for(size_t rep = 0; rep < repeat; rep++)
      for(size_t at = 0; at < len; at += (size_t)piece) {
        size_t n = len - at < (size_t)piece ? len - at : (size_t)piece;
        oc_response_body(&resp, buf + at, n, 2);
      }
    oc_response_finish(&resp, 3, 1);
    double dt = now_s() - t0;
    if(dt < best)
      best = dt;
    if(resp.rstream) {
      /* content: the message's text and the calls' arguments; reasoning apart */
      events = resp.rstream->events;
      content = reasoning = 0;
      for(size_t i = 0; i < resp.rstream->nitems; i++) {
        content += (size_t)resp.rstream->items[i].deltas.len;
        reasoning += (size_t)resp.rstream->items[i].reasoning.len;
      }
    }
    else if(resp.mstream) {
      events = resp.mstream->events;
      content = reasoning = 0;
      for(size_t i = 0; i < resp.mstream->nblocks; i++) {
        const struct oc_mblock *b = &resp.mstream->blocks[i];
        if(b->type && strcmp(b->type, "thinking") == 0)
          reasoning += (size_t)b->text.len;
        else
          content += (size_t)b->text.len;
      }
    }
    else {
      events = resp.stream.events;
      content = resp.stream.nchoices ? resp.stream.choices[0].content.len : 0;
      reasoning = resp.stream.nchoices ? resp.stream.choices[0].reasoning.len : 0;
    }
    if(show && r == 0)
      for(size_t i = 0; i < f.count; i++)
        fprintf(stderr, "%s event %ld %s: %s\n", oc_rule_name(f.items[i].rule), f.items[i].chunk,
                f.items[i].path ? f.items[i].path : "", f.items[i].message);
    findings = 0;
    rules[0] = '\0';
    for(size_t i = 0; i < f.ncounts; i++) {
      findings += f.counts[i].total;
      size_t at = strlen(rules);
      snprintf(rules + at, sizeof(rules) - at, "%s%s:%zu", at ? "," : "",
               oc_rule_name(f.counts[i].rule), f.counts[i].total);
    }
    oc_response_free(&resp);
    oc_findings_free(&f);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  size_t total = headlen + len * repeat;
  printf("impl=oacheck mode=%s bytes=%zu events=%ld content_bytes=%zu reasoning_bytes=%zu "
         "findings=%zu runs=%ld piece=%ld best_s=%.4f mb_s=%.1f events_s=%.0f rss_kb=%ld%s%s\n",
         gigabyte ? "pipeline-gigabyte" : api[0] == 'c' ? "pipeline" : api, total, events, content,
         reasoning, findings, runs, piece, best, (double)total / best / 1e6, (double)events / best,
         ru.ru_maxrss, *rules ? " rules=" : "", rules);
  oc_headers_free(&h);
  cJSON_Delete(req);
  oc_schemas_free(&sch);
  free(buf);
  return 0;
}
