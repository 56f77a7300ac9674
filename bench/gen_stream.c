/* gen_stream.c — writes the benchmarks' deterministic SSE stream (see
 * stream_gen.h) to a file: `gen_stream [-n EVENTS] [-r REASONING] FILE`,
 * where -r makes events 1..REASONING reasoning_content deltas; with
 * `-a responses` or `-a messages`, the typed stream of that API instead
 * (typed_gen.h: reasoning, text, two function calls).  The same
 * arguments always give the same bytes, so our figures and the Node
 * peer's are measured on one input. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream_gen.h"
#include "typed_gen.h"
#include "util.h"

int main(int argc, char **argv)
{
  long n = GEN_EVENTS_DEFAULT, r = 0;
  const char *path = NULL, *api = "chat";
  for(int i = 1; i < argc; i++) {
    if(strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
      if(oc_parse_long(argv[++i], 3, 1000000000L, &n)) {
        fprintf(stderr, "gen_stream: '-n %s': expected a number of events >= 3\n", argv[i]);
        return 2;
      }
    }
    else if(strcmp(argv[i], "-r") == 0 && i + 1 < argc) {
      if(oc_parse_long(argv[++i], 0, 1000000000L, &r)) {
        fprintf(stderr, "gen_stream: '-r %s': expected a number of reasoning events\n", argv[i]);
        return 2;
      }
    }
    else if(strcmp(argv[i], "-a") == 0 && i + 1 < argc) {
      api = argv[++i];
      if(strcmp(api, "chat") != 0 && strcmp(api, "responses") != 0 && strcmp(api, "messages") != 0) {
        fprintf(stderr, "gen_stream: '-a %s': expected chat, responses or messages\n", api);
        return 2;
      }
    }
    else if(!path && argv[i][0] != '-')
      path = argv[i];
    else {
      fprintf(stderr, "usage: gen_stream [-n EVENTS] [-r REASONING] [-a chat|responses|messages] FILE\n");
      return 2;
    }
  }
  if(!path) {
    fprintf(stderr, "usage: gen_stream [-n EVENTS] [-r REASONING] [-a chat|responses|messages] FILE\n");
    return 2;
  }
  FILE *f = fopen(path, "wb");
  if(!f) {
    fprintf(stderr, "gen_stream: cannot write '%s': %s\n", path, strerror(errno));
    return 1;
  }
  char ev[GEN_EVENT_MAX];
  uint64_t bytes = 0;
  if(strcmp(api, "chat") != 0) {
    long written = 0;
    int failed = api[0] == 'r' ? typed_responses(f, n, r, &bytes, &written)
                               : typed_messages(f, n, r, &bytes, &written);
    if(fclose(f) != 0 || failed) {
      fprintf(stderr, "gen_stream: writing '%s' failed: %s\n", path,
              failed == 2 ? "a line would reach 4 MiB (fewer events)" : strerror(errno));
      return 1;
    }
    fprintf(stderr, "gen_stream: %s stream, %ld events (%ld reasoning), %llu bytes -> %s\n", api,
            written, r, (unsigned long long)bytes, path);
    return 0;
  }
  for(long i = 0; i < n; i++) {
    size_t len = gen_event_r((uint64_t)i, (uint64_t)n, (uint64_t)r, ev);
    if(fwrite(ev, 1, len, f) != len)
      break;
    bytes += len;
  }
  int bad = ferror(f);
  if(fclose(f) != 0 || bad) {
    fprintf(stderr, "gen_stream: writing '%s' failed: %s\n", path, strerror(errno));
    return 1;
  }
  fprintf(stderr, "gen_stream: %ld events (%ld reasoning), %llu bytes -> %s\n", n, r,
          (unsigned long long)bytes, path);
  return 0;
}
