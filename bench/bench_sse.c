/* bench_sse.c — how fast oacheck frames (and optionally decodes) a
 * streamed chat completion.  Modes:
 *   frame   SSE framing alone (sse.c), events counted;
 *   decode  framing plus a jdoc parse of every data payload and a lookup
 *           of choices[0].delta.content, as the chunk decoder does.
 * The stream comes from a file (read once into memory, then fed in
 * PIECE-byte pieces, best of RUNS) or, with --gigabyte, from a 4 MiB
 * block of generated events replayed until 1 GiB has passed: memory then
 * shows that the parser's footprint does not depend on stream length.
 * Prints one line of key=value pairs for bench/section-*.sh to format.
 * Built by `make bench` only, without sanitizers. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "jdoc.h"
#include "sse.h"
#include "stream_gen.h"
#include "util.h"

struct ctx {
  int decode;
  struct oc_jdoc doc;
  uint64_t events, content_bytes, issues, bad_json;
};

static void on_event(void *ud, const struct oc_sse_event *ev)
{
  struct ctx *c = ud;
  c->events++;
  if(!c->decode)
    return;
  if(ev->data_len == 6 && memcmp(ev->data, "[DONE]", 6) == 0)
    return;
  struct oc_jerr err;
  if(oc_jdoc_parse(&c->doc, ev->data, ev->data_len, &err) != OC_OK) {
    c->bad_json++;
    return;
  }
  const struct oc_jv *delta = oc_jv_get(oc_jv_at(oc_jv_get(c->doc.root, "choices"), 0), "delta");
  size_t n = 0;
  if(oc_jv_str(delta, "content", &n))
    c->content_bytes += n;
}

static void on_issue(void *ud, const struct oc_sse_issue *is)
{
  struct ctx *c = ud;
  c->issues++;
  (void)is;
}

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long peak_rss_kb(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* One pass over buf, repeated `repeat` times as one stream. */
static int one_run(const char *buf, size_t len, size_t repeat, size_t piece, struct ctx *c)
{
  static const struct oc_sse_callbacks cb = {on_event, on_issue, NULL};
  struct oc_sse_parser p;
  oc_sse_init(&p, &cb, c);
  c->events = c->content_bytes = c->issues = c->bad_json = 0;
  int rc = OC_OK;
  for(size_t r = 0; r < repeat && !rc; r++)
    for(size_t at = 0; at < len && !rc; at += piece)
      rc = oc_sse_push(&p, buf + at, len - at < piece ? len - at : piece, 0);
  oc_sse_finish(&p, 0);
  oc_sse_free(&p);
  return rc;
}

static void usage(void)
{
  fprintf(stderr, "usage: bench_sse [--mode frame|decode] [--runs N] [--piece BYTES] FILE\n"
                  "       bench_sse [--mode frame|decode] --gigabyte\n");
}

int main(int argc, char **argv)
{
  const char *mode = "frame", *path = NULL;
  long runs = 3, piece = 16384;
  int gigabyte = 0;
  for(int i = 1; i < argc; i++) {
    if(strcmp(argv[i], "--mode") == 0 && i + 1 < argc)
      mode = argv[++i];
    else if(strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      if(oc_parse_long(argv[++i], 1, 1000, &runs))
        return usage(), 2;
    }
    else if(strcmp(argv[i], "--piece") == 0 && i + 1 < argc) {
      if(oc_parse_long(argv[++i], 1, 1L << 30, &piece))
        return usage(), 2;
    }
    else if(strcmp(argv[i], "--gigabyte") == 0)
      gigabyte = 1;
    else if(!path && argv[i][0] != '-')
      path = argv[i];
    else
      return usage(), 2;
  }
  if(strcmp(mode, "frame") != 0 && strcmp(mode, "decode") != 0)
    return usage(), 2;
  if(!gigabyte && !path)
    return usage(), 2;

  struct ctx c;
  memset(&c, 0, sizeof(c));
  c.decode = strcmp(mode, "decode") == 0;
  oc_jdoc_init(&c.doc);
  char *buf = NULL;
  size_t len = 0, repeat = 1;
  uint64_t expect_events = 0;
  if(gigabyte) {
    /* 4 MiB of content chunks, whole events only, replayed 256 times */
    size_t cap = 4u << 20;
    buf = malloc(cap);
    if(!buf)
      return 1;
    char ev[GEN_EVENT_MAX];
    uint64_t per = 0;
    for(uint64_t i = 1;; i++) {
      size_t n = gen_event(i, UINT64_MAX, ev);
      if(len + n > cap)
        break;
      memcpy(buf + len, ev, n);
      len += n;
      per++;
    }
    repeat = (size_t)((UINT64_C(1) << 30) / len);
    expect_events = per * repeat;
    runs = 1;
  }
  else {
    char err[512];
    if(oc_read_file(path, 1u << 30, &buf, &len, err, sizeof(err))) {
      fprintf(stderr, "bench_sse: %s\n", err);
      return 1;
    }
    /* every event ends in a blank line: count them to check the parser */
    for(size_t i = 0; i + 1 < len; i++)
      if(buf[i] == '\n' && buf[i + 1] == '\n') {
        expect_events++;
        i++;
      }
  }

  double best = 1e30;
  for(long r = 0; r < runs; r++) {
    double t0 = now_s();
    if(one_run(buf, len, repeat, (size_t)piece, &c)) {
      fprintf(stderr, "bench_sse: out of memory\n");
      return 1;
    }
    double dt = now_s() - t0;
    if(dt < best)
      best = dt;
  }
  if(c.events != expect_events || c.issues || c.bad_json) {
    fprintf(stderr, "bench_sse: wrong result: %llu events (want %llu), %llu issues, %llu bad JSON\n",
            (unsigned long long)c.events, (unsigned long long)expect_events,
            (unsigned long long)c.issues, (unsigned long long)c.bad_json);
    return 1;
  }
  double bytes = (double)len * (double)repeat;
  printf("impl=oacheck mode=%s bytes=%.0f events=%llu content_bytes=%llu runs=%ld piece=%ld "
         "best_s=%.4f mb_s=%.1f events_s=%.0f rss_kb=%ld\n",
         mode, bytes, (unsigned long long)c.events, (unsigned long long)c.content_bytes, runs, piece,
         best, bytes / best / 1e6, (double)c.events / best, peak_rss_kb());
  oc_jdoc_free(&c.doc);
  free(buf);
  return 0;
}
