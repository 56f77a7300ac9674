/* bench_schema.c — how fast oacheck validates streamed chunks: every data
 * payload of an SSE file (bench/gen_stream's 400,000 chat.completion.chunk
 * events) is parsed with jdoc and validated against the shipped
 * chat.completion.chunk schema, compiled once.  Modes:
 *   parse   jdoc parse alone (the floor);
 *   fast    parse + validation without a result (the hot path);
 *   report  parse + validation collecting messages (what a report does).
 * The payloads are cut out of the file before timing; best of RUNS.
 * Prints one key=value line for bench/section-20-schema.sh.  Built by
 * `make bench` only, without sanitizers. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "jdoc.h"
#include "schema.h"
#include "util.h"

struct payload {
  const char *p;
  size_t n;
};

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(void)
{
  fprintf(stderr, "usage: bench_schema [--mode parse|fast|report] [--runs N] [--schemas DIR] "
                  "[--schema URI] STREAM.sse\n");
}

int main(int argc, char **argv)
{
  const char *mode = "fast", *path = NULL, *dir = NULL;
  const char *uri = "https://oacheck.dev/schemas/chat.completion.chunk.json";
  long runs = 3;
  for(int i = 1; i < argc; i++) {
    if(strcmp(argv[i], "--mode") == 0 && i + 1 < argc)
      mode = argv[++i];
    else if(strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      if(oc_parse_long(argv[++i], 1, 1000, &runs))
        return usage(), 2;
    }
    else if(strcmp(argv[i], "--schemas") == 0 && i + 1 < argc)
      dir = argv[++i];
    else if(strcmp(argv[i], "--schema") == 0 && i + 1 < argc)
      uri = argv[++i];
    else if(!path && argv[i][0] != '-')
      path = argv[i];
    else
      return usage(), 2;
  }
  int m = strcmp(mode, "parse") == 0 ? 0 : strcmp(mode, "fast") == 0 ? 1 : strcmp(mode, "report") == 0 ? 2 : -1;
  if(m < 0 || !path || !dir)
    return usage(), 2;

  char err[2048];
  char *buf = NULL;
  size_t len = 0;
  if(oc_read_file(path, 1u << 30, &buf, &len, err, sizeof(err))) {
    fprintf(stderr, "bench_schema: %s\n", err);
    return 1;
  }
  /* cut out the data payloads (one "data: " line per event) */
  size_t np = 0, cap = 1024, bytes = 0;
  struct payload *ps = malloc(cap * sizeof(*ps));
  for(size_t at = 0; ps && at < len;) {
    const char *nl = memchr(buf + at, '\n', len - at);
    size_t end = nl ? (size_t)(nl - buf) : len;
    if(end - at > 6 && memcmp(buf + at, "data: ", 6) == 0 && !(end - at == 12 && memcmp(buf + at + 6, "[DONE]", 6) == 0)) {
      if(np == cap) {
        cap *= 2;
        struct payload *n2 = realloc(ps, cap * sizeof(*ps));
        if(!n2) {
          free(ps);
          ps = NULL;
          break;
        }
        ps = n2;
      }
      ps[np].p = buf + at + 6;
      ps[np].n = end - at - 6;
      bytes += ps[np].n;
      np++;
    }
    at = end + 1;
  }
  if(!ps) {
    fprintf(stderr, "bench_schema: out of memory\n");
    return 1;
  }

  double tc0 = now_s();
  struct oc_schema_registry *reg = oc_schema_registry_new();
  if(!reg || oc_schema_registry_add_dir(reg, dir, "https://oacheck.dev/schemas/", err, sizeof(err))) {
    fprintf(stderr, "bench_schema: %s\n", err);
    return 1;
  }
  struct oc_schema *s = oc_schema_compile_uri(reg, uri, 0, err, sizeof(err));
  if(!s) {
    fprintf(stderr, "bench_schema: %s\n", err);
    return 1;
  }
  double compile_s = now_s() - tc0;

  struct oc_jdoc doc;
  oc_jdoc_init(&doc);
  double best = 1e30;
  size_t valid = 0, invalid = 0, bad = 0, messages = 0;
  for(long r = 0; r < runs; r++) {
    valid = invalid = bad = messages = 0;
    double t0 = now_s();
    for(size_t i = 0; i < np; i++) {
      struct oc_jerr je;
      if(oc_jdoc_parse(&doc, ps[i].p, ps[i].n, &je) != OC_OK) {
        bad++;
        continue;
      }
      if(m == 0)
        continue;
      int v;
      if(m == 1)
        v = oc_schema_validate(s, doc.root, NULL);
      else {
        struct oc_schema_result res;
        oc_schema_result_init(&res);
        v = oc_schema_validate(s, doc.root, &res);
        messages += res.count;
        oc_schema_result_free(&res);
      }
      if(v == 1)
        valid++;
      else
        invalid++;
    }
    double dt = now_s() - t0;
    if(dt < best)
      best = dt;
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("impl=oacheck mode=%s docs=%zu bytes=%zu valid=%zu invalid=%zu bad_json=%zu messages=%zu "
         "runs=%ld best_s=%.4f docs_s=%.0f mb_s=%.1f compile_ms=%.2f rss_kb=%ld\n",
         mode, np, bytes, valid, invalid, bad, messages, runs, best, (double)np / best,
         (double)bytes / best / 1e6, compile_s * 1e3, ru.ru_maxrss);
  oc_jdoc_free(&doc);
  oc_schema_free(s);
  oc_schema_registry_free(reg);
  free(ps);
  free(buf);
  return bad ? 1 : 0;
}
