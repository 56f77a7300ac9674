/* transfer_floor.c — the transport's floor for `oacheck run`: the same
 * POSTs through libcurl's multi interface, K in flight on one thread with
 * connections kept alive, every answer read and thrown away.  Nothing is
 * parsed, checked or written, so its rate is the most a libcurl client
 * on one thread can do against the endpoint; bench/section-50-run.sh sets
 * oacheck beside it and beside wrk.
 *
 *   transfer_floor URL BODY-FILE TOTAL IN-FLIGHT
 *
 * Prints "done N failed F"; exits 1 when a transfer failed or answered
 * other than 200. */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IN_FLIGHT 256

static size_t discard(char *p, size_t size, size_t n, void *ud)
{
  (void)p;
  (void)ud;
  return size * n;
}

static char *slurp(const char *path, long *len)
{
  FILE *f = fopen(path, "rb");
  if(!f)
    return NULL;
  char *buf = NULL;
  if(fseek(f, 0, SEEK_END) == 0 && (*len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
     (buf = malloc((size_t)*len + 1)) && fread(buf, 1, (size_t)*len, f) != (size_t)*len) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  return buf;
}

/* a whole decimal number in [lo, hi], else -1 */
static long number(const char *s, long lo, long hi)
{
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  return errno || end == s || *end || v < lo || v > hi ? -1 : v;
}

int main(int argc, char **argv)
{
  if(argc != 5) {
    fprintf(stderr, "usage: transfer_floor URL BODY-FILE TOTAL IN-FLIGHT\n");
    return 2;
  }
  long body_len = 0;
  char *body = slurp(argv[2], &body_len);
  long total = number(argv[3], 1, 100000000);
  int k = (int)number(argv[4], 1, MAX_IN_FLIGHT);
  if(!body || total < 1 || k < 1) {
    fprintf(stderr, "transfer_floor: bad arguments (or %s unreadable)\n", argv[2]);
    return 2;
  }
  if(k > total)
    k = (int)total;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  CURLM *multi = curl_multi_init();
  struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
  CURL *easy[MAX_IN_FLIGHT];
  long started = 0, done = 0, failed = 0;
  for(int i = 0; i < k; i++) {
    easy[i] = curl_easy_init();
    curl_easy_setopt(easy[i], CURLOPT_URL, argv[1]);
    curl_easy_setopt(easy[i], CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(easy[i], CURLOPT_POSTFIELDSIZE, body_len);
    curl_easy_setopt(easy[i], CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(easy[i], CURLOPT_WRITEFUNCTION, discard);
    curl_multi_add_handle(multi, easy[i]);
    started++;
  }
  while(done < total) {
    int running = 0;
    if(curl_multi_perform(multi, &running) != CURLM_OK)
      break;
    CURLMsg *m;
    int left;
    while((m = curl_multi_info_read(multi, &left))) {
      if(m->msg != CURLMSG_DONE)
        continue;
      CURL *e = m->easy_handle;
      long status = 0;
      curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
      if(m->data.result != CURLE_OK || status != 200)
        failed++;
      done++;
      /* the handle goes round again: its connection stays open */
      curl_multi_remove_handle(multi, e);
      if(started < total) {
        curl_multi_add_handle(multi, e);
        started++;
      }
    }
    if(done < total && curl_multi_poll(multi, NULL, 0, 1000, NULL) != CURLM_OK)
      break;
  }
  printf("done %ld failed %ld\n", done, failed);
  for(int i = 0; i < k; i++) {
    curl_multi_remove_handle(multi, easy[i]);
    curl_easy_cleanup(easy[i]);
  }
  curl_multi_cleanup(multi);
  curl_slist_free_all(headers);
  curl_global_cleanup();
  free(body);
  return done == total && failed == 0 ? 0 : 1;
}
