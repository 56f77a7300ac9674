/* server.c — the replay server: libmicrohttpd with a thread per
 * connection, matching each request to a cassette (X-Oacheck-Case, else
 * the request key), planning the writes (recorded pieces, SSE events,
 * faults) and pacing them from a content-reader callback.  The only file
 * that includes <microhttpd.h>.  Loading recordings is cassette.c's;
 * options and signals are cmd_serve.c's. */
#include "config.h"
#include "server.h"

#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "json.h"
#include "util.h"

/* How many nearest recordings an unmatched request is told about. */
#define NEAREST_MAX 5
/* Connections served at once (one thread each). */
#define CONNECTION_LIMIT 256

struct oc_server {
  struct MHD_Daemon *daemon;
  const struct oc_cassette_store *store;
  struct oc_overload *overload;
  double speed;
  struct oc_faults faults;
  int port;
  /* Stopping wakes every paced wait, so shutdown never waits for a drip. */
  pthread_mutex_t lock;
  pthread_cond_t wake;
  atomic_int stopping;
  char start_error[256]; /* the HTTP library's reason when start fails */
};

/* ---- faults --------------------------------------------------------- */

const char oc_faults_help[] =
  "  drip=MS          wait MS milliseconds between writes (one SSE event each):\n"
  "                   a slow or overloaded server\n"
  "  stall=MS         wait MS milliseconds before the response head: a server\n"
  "                   busy with prompt processing, or a proxy holding the request\n"
  "  truncate=N       end the body after N events, without the rest and without\n"
  "                   [DONE], and close the connection: a server that stopped\n"
  "                   generating but ended the HTTP response properly\n"
  "  reset=BYTES      abort the connection after BYTES body bytes, without the\n"
  "                   end of the HTTP body: a crash, an OOM kill, a dropped link\n"
  "  drop-done        leave out the 'data: [DONE]' event: servers that end a\n"
  "                   stream by closing it\n"
  "  corrupt=N        cut event N (1-based) in half, so its JSON is broken: a\n"
  "                   buffer that split an event, an encoder bug\n"
  "  content-type=T   send Content-Type T instead of the recorded one: a proxy or\n"
  "                   framework that relabels the body\n"
  "  gzip             gzip the whole body as one block, with Content-Encoding: gzip:\n"
  "                   a compressing proxy, which also buffers a stream\n"
  "  split=N          write the body in N-byte pieces regardless of events: TCP\n"
  "                   segments and proxy buffers that cut events anywhere\n";

void oc_faults_init(struct oc_faults *f)
{
  memset(f, 0, sizeof(*f));
  f->drip_ms = f->stall_ms = f->truncate = f->reset = f->corrupt = f->split = -1;
}

void oc_faults_free(struct oc_faults *f)
{
  if(!f)
    return;
  free(f->content_type);
  oc_faults_init(f);
}

static int parse_one(struct oc_faults *f, const char *spec, size_t len, char *err, size_t errlen)
{
  const char *eq = memchr(spec, '=', len);
  size_t klen = eq ? (size_t)(eq - spec) : len;
  char key[32], val[256];
  if(klen == 0 || klen >= sizeof(key)) {
    snprintf(err, errlen, "fault '%.*s': expected NAME or NAME=VALUE", (int)len, spec);
    return OC_EUSAGE;
  }
  memcpy(key, spec, klen);
  key[klen] = '\0';
  size_t vlen = eq ? len - klen - 1 : 0;
  if(vlen >= sizeof(val)) {
    snprintf(err, errlen, "fault '%s': value too long", key);
    return OC_EUSAGE;
  }
  if(eq)
    memcpy(val, eq + 1, vlen);
  val[vlen] = '\0';
  static const struct {
    const char *name;
    size_t off;
    long min, max;
  } numeric[] = {
    { "drip", offsetof(struct oc_faults, drip_ms), 0, OC_FAULT_MAX_MS },
    { "stall", offsetof(struct oc_faults, stall_ms), 0, OC_FAULT_MAX_MS },
    { "truncate", offsetof(struct oc_faults, truncate), 0, OC_FAULT_MAX_COUNT },
    { "reset", offsetof(struct oc_faults, reset), 0, OC_FAULT_MAX_COUNT },
    { "corrupt", offsetof(struct oc_faults, corrupt), 1, OC_FAULT_MAX_COUNT },
    { "split", offsetof(struct oc_faults, split), 1, OC_FAULT_MAX_COUNT },
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(numeric); i++) {
    if(strcmp(key, numeric[i].name) != 0)
      continue;
    long v;
    if(!eq || oc_parse_long(val, numeric[i].min, numeric[i].max, &v)) {
      snprintf(err, errlen, "fault '%s' wants a whole number from %ld to %ld, got '%s'", key,
               numeric[i].min, numeric[i].max, eq ? val : "");
      return OC_EUSAGE;
    }
    *(long *)(void *)((char *)f + numeric[i].off) = v;
    return OC_OK;
  }
  if(strcmp(key, "drop-done") == 0 || strcmp(key, "gzip") == 0) {
    if(eq) {
      snprintf(err, errlen, "fault '%s' takes no value", key);
      return OC_EUSAGE;
    }
    if(key[0] == 'g')
      f->gzip = 1;
    else
      f->drop_done = 1;
    return OC_OK;
  }
  if(strcmp(key, "content-type") == 0) {
    if(!eq || !*val || strpbrk(val, "\r\n")) {
      snprintf(err, errlen, "fault 'content-type' wants a media type, e.g. content-type=text/plain");
      return OC_EUSAGE;
    }
    char *t = oc_strdup(val);
    if(!t)
      return OC_ENOMEM;
    free(f->content_type);
    f->content_type = t;
    return OC_OK;
  }
  snprintf(err, errlen, "unknown fault '%s' (known: drip, stall, truncate, reset, drop-done, "
                        "corrupt, content-type, gzip, split)", key);
  return OC_EUSAGE;
}

int oc_faults_parse(struct oc_faults *f, const char *spec, char *err, size_t errlen)
{
  const char *p = spec;
  for(;;) {
    while(*p == ' ')
      p++;
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    while(len && p[len - 1] == ' ')
      len--;
    if(len) {
      int rc = parse_one(f, p, len, err, errlen);
      if(rc)
        return rc;
    }
    else if(comma || p == spec) {
      snprintf(err, errlen, "empty fault in '%s'", spec);
      return OC_EUSAGE;
    }
    if(!comma)
      return OC_OK;
    p = comma + 1;
  }
}

int oc_faults_merge(struct oc_faults *base, const struct oc_faults *over)
{
  if(over->drip_ms >= 0)
    base->drip_ms = over->drip_ms;
  if(over->stall_ms >= 0)
    base->stall_ms = over->stall_ms;
  if(over->truncate >= 0)
    base->truncate = over->truncate;
  if(over->reset >= 0)
    base->reset = over->reset;
  if(over->corrupt >= 0)
    base->corrupt = over->corrupt;
  if(over->split >= 0)
    base->split = over->split;
  base->drop_done |= over->drop_done;
  base->gzip |= over->gzip;
  if(over->content_type) {
    char *t = oc_strdup(over->content_type);
    if(!t)
      return OC_ENOMEM;
    free(base->content_type);
    base->content_type = t;
  }
  return OC_OK;
}

void oc_faults_describe(const struct oc_faults *f, char *out, size_t outlen)
{
  struct oc_buf b;
  oc_buf_init(&b, outlen ? outlen - 1 : 0);
  const char *sep = "";
#define NUM(field, name)                                                                           \
  if(f->field >= 0) {                                                                              \
    oc_buf_printf(&b, "%s" name "=%ld", sep, f->field);                                            \
    sep = ",";                                                                                     \
  }
  NUM(drip_ms, "drip")
  NUM(stall_ms, "stall")
  NUM(truncate, "truncate")
  NUM(reset, "reset")
  NUM(corrupt, "corrupt")
  NUM(split, "split")
#undef NUM
  if(f->drop_done) {
    oc_buf_printf(&b, "%sdrop-done", sep);
    sep = ",";
  }
  if(f->gzip) {
    oc_buf_printf(&b, "%sgzip", sep);
    sep = ",";
  }
  if(f->content_type)
    oc_buf_printf(&b, "%scontent-type=%s", sep, f->content_type);
  if(outlen)
    oc_strlcpy(out, oc_buf_str(&b), outlen);
  oc_buf_free(&b);
}

/* ---- planning the writes -------------------------------------------- */

/* One write: body bytes [start, end) that arrived t_ns after the request. */
struct write {
  size_t end;
  uint64_t t_ns;
};

/* Everything one response needs, owned by the response (freed by MHD's
 * free callback). */
struct plan {
  struct oc_server *srv;
  const char *body;   /* borrowed from the cassette, or owned_body */
  char *owned_body;
  size_t len;
  struct write *w;
  size_t nw;
  size_t limit;       /* reset: bytes to send before aborting; else len */
  int abort_at_limit;
  int paced;          /* t_ns are real and speed > 0 */
  double speed;
  long drip_ms;
  uint64_t t0;        /* oc_now_ns() when the request arrived */
  size_t pos;         /* bytes handed to MHD so far */
  size_t cur;         /* the write in progress */
  int cur_started;
  struct oc_overload_ticket ticket; /* given back with the last byte */
};

static void plan_free(void *cls)
{
  struct plan *p = cls;
  if(!p)
    return;
  oc_overload_leave(&p->ticket);
  free(p->owned_body);
  free(p->w);
  free(p);
}

static int push_write(struct write **w, size_t *n, size_t *alloc, size_t end, uint64_t t)
{
  if(*n == *alloc) {
    size_t a = *alloc ? *alloc * 2 : 32;
    if(a > OC_CAP_CASSETTE_PIECES * 2)
      return OC_ETOOBIG;
    struct write *v = realloc(*w, a * sizeof(*v));
    if(!v)
      return OC_ENOMEM;
    *w = v;
    *alloc = a;
  }
  (*w)[*n].end = end;
  (*w)[*n].t_ns = t;
  (*n)++;
  return OC_OK;
}

/* Where the SSE event starting at `start` ends: past the blank line that
 * follows at least one non-empty line (LF, CRLF or CR line ends), or at
 * the end of the body for a last, unterminated event. */
static size_t event_end(const char *b, size_t n, size_t start)
{
  size_t i = start, line_start = start;
  int seen_content = 0;
  while(i < n) {
    if(b[i] != '\r' && b[i] != '\n') {
      i++;
      continue;
    }
    size_t eol = (b[i] == '\r' && i + 1 < n && b[i + 1] == '\n') ? 2 : 1;
    int empty = i == line_start;
    i += eol;
    line_start = i;
    if(empty && seen_content)
      return i;
    if(!empty)
      seen_content = 1;
  }
  return n;
}

/* The length of an event without its terminating blank line. */
static size_t event_content_len(const char *b, size_t len)
{
  while(len && (b[len - 1] == '\n' || b[len - 1] == '\r'))
    len--;
  return len;
}

static int is_done_event(const char *b, size_t len)
{
  size_t i = 0;
  while(i < len) {
    size_t j = i;
    while(j < len && b[j] != '\n' && b[j] != '\r')
      j++;
    size_t l = j - i;
    if((l == 12 && memcmp(b + i, "data: [DONE]", 12) == 0) ||
       (l == 11 && memcmp(b + i, "data:[DONE]", 11) == 0))
      return 1;
    i = j + 1;
  }
  return 0;
}

/* The arrival time of the recorded piece holding body offset end-1. */
static uint64_t time_at(const struct oc_cassette *c, size_t end)
{
  for(size_t i = 0; i < c->npieces; i++)
    if(c->pieces[i].end >= end)
      return c->pieces[i].t_ns;
  return c->npieces ? c->pieces[c->npieces - 1].t_ns : 0;
}

static int is_event_stream(const struct oc_cassette *c)
{
  char mt[128];
  oc_media_type(oc_headers_get(&c->headers, "Content-Type"), mt, sizeof(mt));
  return strcmp(mt, "text/event-stream") == 0;
}

/* Build the writes for cassette c under faults f.  The body stays the
 * cassette's unless a fault rewrites it. */
static int plan_build(struct plan *p, const struct oc_cassette *c, const struct oc_faults *f)
{
  size_t alloc = 0;
  int rc = OC_OK;
  int sse = is_event_stream(c);
  int rewrite = f->truncate >= 0 || f->drop_done || f->corrupt >= 0;
  p->body = c->body;
  p->len = c->body_len;
  if(rewrite) {
    /* Rebuild the body event by event (a body that is not an event
     * stream is one event). */
    struct oc_buf nb;
    oc_buf_init(&nb, OC_CAP_BODY);
    long kept = 0, index = 0;
    for(size_t s = 0; s < c->body_len;) {
      size_t e = sse ? event_end(c->body, c->body_len, s) : c->body_len;
      index++;
      if(f->truncate >= 0 && kept >= f->truncate)
        break;
      if(f->drop_done && sse && is_done_event(c->body + s, e - s)) {
        s = e;
        continue;
      }
      if(f->corrupt == index) {
        size_t cl = event_content_len(c->body + s, e - s);
        rc = oc_buf_add(&nb, c->body + s, cl / 2);
        if(!rc && e - s > cl)
          rc = oc_buf_add(&nb, c->body + s + cl, e - s - cl); /* keep the blank line */
      }
      else
        rc = oc_buf_add(&nb, c->body + s, e - s);
      if(!rc)
        rc = push_write(&p->w, &p->nw, &alloc, nb.len, time_at(c, e));
      if(rc) {
        oc_buf_free(&nb);
        return rc;
      }
      kept++;
      s = e;
    }
    p->owned_body = oc_buf_take(&nb, &p->len);
    if(!p->owned_body)
      return OC_ENOMEM;
    p->body = p->owned_body;
  }
  else if(c->npieces) {
    for(size_t i = 0; i < c->npieces && !rc; i++)
      rc = push_write(&p->w, &p->nw, &alloc, c->pieces[i].end, c->pieces[i].t_ns);
  }
  else if(sse) {
    /* boundaries not recorded: one write per event, as servers send them */
    for(size_t s = 0; s < c->body_len && !rc;) {
      size_t e = event_end(c->body, c->body_len, s);
      rc = push_write(&p->w, &p->nw, &alloc, e, 0);
      s = e;
    }
  }
  else if(c->body_len)
    rc = push_write(&p->w, &p->nw, &alloc, c->body_len, time_at(c, c->body_len));
  if(rc)
    return rc;
  if(f->gzip) {
    char *gz = NULL;
    size_t gzlen = 0;
    uint64_t t = p->nw ? p->w[p->nw - 1].t_ns : 0;
    if((rc = oc_gzip(p->body, p->len, &gz, &gzlen)))
      return rc;
    free(p->owned_body);
    p->owned_body = gz;
    p->body = gz;
    p->len = gzlen;
    p->nw = 0;
    if(gzlen && (rc = push_write(&p->w, &p->nw, &alloc, gzlen, t)))
      return rc;
  }
  if(f->split > 0) {
    struct write *old = p->w;
    size_t nold = p->nw;
    p->w = NULL;
    p->nw = 0;
    alloc = 0;
    size_t k = 0;
    for(size_t end = 0; end < p->len && !rc;) {
      end = (size_t)f->split < p->len - end ? end + (size_t)f->split : p->len;
      while(k + 1 < nold && old[k].end < end)
        k++;
      rc = push_write(&p->w, &p->nw, &alloc, end, nold ? old[k].t_ns : 0);
    }
    free(old);
    if(rc)
      return rc;
  }
  p->limit = p->len;
  if(f->reset >= 0) {
    p->abort_at_limit = 1;
    if((size_t)f->reset < p->len)
      p->limit = (size_t)f->reset;
  }
  p->drip_ms = f->drip_ms;
  return OC_OK;
}

/* Wait until the monotonic time `deadline` or until the server stops.
 * Returns 0 when the wait ran out, 1 when the server is stopping. */
static int wait_until(struct oc_server *srv, uint64_t deadline)
{
  int stopping = 0;
  pthread_mutex_lock(&srv->lock);
  for(;;) {
    if((stopping = atomic_load(&srv->stopping)))
      break;
    uint64_t now = oc_now_ns();
    if(now >= deadline)
      break;
    /* the condition variable runs on CLOCK_REALTIME: wait at most 100 ms
     * at a time, so a clock step cannot stretch a wait */
    uint64_t step = deadline - now < 100000000u ? deadline - now : 100000000u;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + step;
    ts.tv_sec += (time_t)(ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    pthread_cond_timedwait(&srv->wake, &srv->lock, &ts);
  }
  pthread_mutex_unlock(&srv->lock);
  return stopping;
}

static ssize_t read_body(void *cls, uint64_t pos, char *buf, size_t max)
{
  struct plan *p = cls;
  (void)pos;
  if(atomic_load(&p->srv->stopping))
    return MHD_CONTENT_READER_END_WITH_ERROR;
  if(p->pos >= p->limit || p->cur >= p->nw) {
    oc_overload_leave(&p->ticket);
    return p->abort_at_limit ? MHD_CONTENT_READER_END_WITH_ERROR
                             : MHD_CONTENT_READER_END_OF_STREAM;
  }
  if(!p->cur_started) {
    uint64_t deadline = 0;
    if(p->paced)
      deadline = p->t0 + (uint64_t)((double)p->w[p->cur].t_ns / p->speed);
    if(p->drip_ms > 0 && p->cur > 0) {
      uint64_t d = oc_now_ns() + (uint64_t)p->drip_ms * 1000000u;
      if(d > deadline)
        deadline = d;
    }
    if(deadline && wait_until(p->srv, deadline))
      return MHD_CONTENT_READER_END_WITH_ERROR;
    p->cur_started = 1;
  }
  size_t end = p->w[p->cur].end < p->limit ? p->w[p->cur].end : p->limit;
  size_t n = end - p->pos;
  if(n > max)
    n = max;
  memcpy(buf, p->body + p->pos, n);
  p->pos += n;
  if(p->pos >= p->len)
    oc_overload_leave(&p->ticket); /* before the client can see the end */
  if(p->pos >= p->w[p->cur].end) {
    p->cur++;
    p->cur_started = 0;
  }
  return (ssize_t)n;
}

/* ---- requests ------------------------------------------------------- */

/* The request body as it arrives, per connection. */
struct req {
  struct oc_buf body;
  int too_big;
  uint64_t t0;
  struct oc_overload_ticket ticket; /* counted in flight until answered */
};

static void request_done(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
  struct req *r = *con_cls;
  (void)cls;
  (void)conn;
  (void)toe;
  if(r) {
    oc_overload_leave(&r->ticket);
    oc_buf_free(&r->body);
    free(r);
    *con_cls = NULL;
  }
}

/* A small JSON answer of the server's own (errors), OpenAI-shaped. */
static enum MHD_Result answer_error(struct MHD_Connection *conn, unsigned status,
                                    const char *type, const char *code, const char *message,
                                    const char *extra_name, const char *extra_value)
{
  cJSON *root = cJSON_CreateObject();
  cJSON *e = cJSON_AddObjectToObject(root, "error");
  char *text = NULL;
  enum MHD_Result ret = MHD_NO;
  if(!e || !cJSON_AddStringToObject(e, "message", message) ||
     !cJSON_AddStringToObject(e, "type", type) || !cJSON_AddNullToObject(e, "param") ||
     !cJSON_AddStringToObject(e, "code", code) || !(text = oc_json_print(root)))
    goto out;
  struct MHD_Response *resp =
    MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_COPY);
  if(!resp)
    goto out;
  MHD_add_response_header(resp, "Content-Type", "application/json");
  if(extra_name && extra_value)
    MHD_add_response_header(resp, extra_name, extra_value);
  ret = MHD_queue_response(conn, status, resp);
  MHD_destroy_response(resp);
out:
  cJSON_Delete(root);
  free(text);
  return ret;
}

static enum MHD_Result answer_unmatched(struct oc_server *srv, struct MHD_Connection *conn,
                                        const char *method, const char *url, const char *name,
                                        const struct req *r)
{
  const struct oc_cassette *near[NEAREST_MAX];
  size_t n = oc_cassette_store_nearest(srv->store, method, url, r->body.data, r->body.len, name,
                                       near, NEAREST_MAX);
  char key[65] = "";
  oc_cassette_request_key(method, url, r->body.data, r->body.len, key);
  struct oc_buf msg, list;
  oc_buf_init(&msg, OC_CAP_MESSAGE);
  oc_buf_init(&list, OC_CAP_MESSAGE);
  for(size_t i = 0; i < n; i++)
    oc_buf_printf(&list, "%s%s (%s %s)", i ? ", " : "", near[i]->name, near[i]->method,
                  near[i]->path);
  if(name)
    oc_buf_printf(&msg, "no recording named '%s' (X-Oacheck-Case)", name);
  else
    oc_buf_printf(&msg, "no recording matches %s %s with this body (request key %.12s)", method,
                  url, key);
  oc_buf_printf(&msg, "; nearest: %s", n ? oc_buf_str(&list) : "none (no recordings loaded)");
  oc_info("%s %s -> 404 not recorded%s%s", method, url, name ? " as " : "", name ? name : "");
  struct oc_buf names;
  oc_buf_init(&names, OC_CAP_MESSAGE);
  for(size_t i = 0; i < n; i++)
    oc_buf_printf(&names, "%s%s", i ? ", " : "", near[i]->name);
  enum MHD_Result ret;
  cJSON *root = cJSON_CreateObject();
  cJSON *e = cJSON_AddObjectToObject(root, "error");
  char *text = NULL;
  struct MHD_Response *resp = NULL;
  ret = MHD_NO;
  if(!e || !cJSON_AddStringToObject(e, "message", oc_buf_str(&msg)) ||
     !cJSON_AddStringToObject(e, "type", "not_found_error") ||
     !cJSON_AddNullToObject(e, "param") || !cJSON_AddStringToObject(e, "code", "not_recorded") ||
     !(text = oc_json_print(root)))
    goto out;
  resp = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_COPY);
  if(!resp)
    goto out;
  MHD_add_response_header(resp, "Content-Type", "application/json");
  /* tells `oacheck run` to mark the case "not recorded" (skip), not failed */
  MHD_add_response_header(resp, "X-Oacheck-Unmatched", "not recorded");
  if(n)
    MHD_add_response_header(resp, "X-Oacheck-Nearest", oc_buf_str(&names));
  ret = MHD_queue_response(conn, MHD_HTTP_NOT_FOUND, resp);
out:
  if(resp)
    MHD_destroy_response(resp);
  cJSON_Delete(root);
  free(text);
  oc_buf_free(&msg);
  oc_buf_free(&list);
  oc_buf_free(&names);
  return ret;
}

/* Headers that describe the connection or the framing are MHD's to
 * write; what the faults replace is left out too. */
static int skip_header(const char *name, const struct oc_faults *f)
{
  if(oc_header_is_hop_by_hop(name))
    return 1;
  if(f->content_type && oc_strcaseeq(name, "Content-Type"))
    return 1;
  if(f->gzip && oc_strcaseeq(name, "Content-Encoding"))
    return 1;
  return 0;
}

static enum MHD_Result answer_recording(struct oc_server *srv, struct MHD_Connection *conn,
                                        const struct oc_cassette *c, struct oc_faults *f,
                                        struct req *r)
{
  uint64_t t0 = r->t0;
  struct plan *p = calloc(1, sizeof(*p));
  struct MHD_Response *resp = NULL;
  enum MHD_Result ret = MHD_NO;
  if(!p)
    return MHD_NO;
  oc_overload_hand(&p->ticket, &r->ticket);
  p->srv = srv;
  p->t0 = t0;
  p->speed = srv->speed;
  p->paced = srv->speed > 0 && c->timing_recorded;
  if(plan_build(p, c, f)) {
    plan_free(p);
    return answer_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "server_error", "replay_failed",
                        "oacheck serve could not prepare this recording (out of memory?)", NULL,
                        NULL);
  }
  /* stall before the head; with pacing, the head waits for its time too */
  uint64_t head = 0;
  if(p->paced)
    head = t0 + (uint64_t)((double)c->headers_ns / p->speed);
  if(f->stall_ms > 0) {
    uint64_t s = oc_now_ns() + (uint64_t)f->stall_ms * 1000000u;
    if(s > head)
      head = s;
  }
  if(head && wait_until(srv, head)) {
    plan_free(p);
    return MHD_NO;
  }
  /* A recording that was chunked stays chunked; one with a length gets
   * the (possibly rewritten) length. */
  const char *te = oc_headers_get(&c->headers, "Transfer-Encoding");
  int chunked = (te && strstr(te, "chunked")) || is_event_stream(c);
  uint64_t size = chunked ? MHD_SIZE_UNKNOWN : (uint64_t)p->len;
  size_t block = 64 * 1024;
  resp = MHD_create_response_from_callback(size, block, read_body, p, plan_free);
  if(!resp) {
    plan_free(p);
    return MHD_NO;
  }
  for(size_t i = 0; i < c->headers.count; i++) {
    const struct oc_header *h = &c->headers.items[i];
    if(skip_header(h->name, f))
      continue;
    /* the HTTP library refuses an empty value (llama-server sends an empty
     * Access-Control-Allow-Origin); one space is what clients trim to "" */
    if(MHD_add_response_header(resp, h->name, *h->value ? h->value : " ") != MHD_YES)
      oc_debug("recording '%s': header '%s' not replayed (refused by the HTTP library)",
               c->name, h->name);
  }
  if(f->content_type)
    MHD_add_response_header(resp, "Content-Type", f->content_type);
  if(f->gzip)
    MHD_add_response_header(resp, "Content-Encoding", "gzip");
  if(f->truncate >= 0)
    MHD_add_response_header(resp, "Connection", "close");
  ret = MHD_queue_response(conn, (unsigned)c->status, resp);
  MHD_destroy_response(resp);
  return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
  struct oc_server *srv = cls;
  struct req *r = *con_cls;
  (void)version;
  if(!r) {
    r = calloc(1, sizeof(*r));
    if(!r)
      return MHD_NO;
    oc_buf_init(&r->body, OC_CAP_BODY);
    r->t0 = oc_now_ns();
    oc_overload_enter(srv->overload, &r->ticket);
    *con_cls = r;
    return MHD_YES;
  }
  if(*upload_data_size) {
    if(!r->too_big && oc_buf_add(&r->body, upload_data, *upload_data_size))
      r->too_big = 1; /* the buffer freed itself; keep reading, answer 413 */
    *upload_data_size = 0;
    return MHD_YES;
  }
  if(r->too_big) {
    oc_overload_leave(&r->ticket);
    return answer_error(conn, 413, "invalid_request_error",
                        "request_too_large", "request body larger than oacheck serve accepts",
                        NULL, NULL);
  }
  struct oc_faults f;
  char err[OC_CAP_MESSAGE];
  oc_faults_init(&f);
  enum MHD_Result ret;
  if(oc_faults_merge(&f, &srv->faults)) {
    ret = MHD_NO;
    goto out;
  }
  const char *fh = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Oacheck-Fault");
  if(fh && oc_faults_parse(&f, fh, err, sizeof(err))) {
    oc_info("%s %s -> 400 bad X-Oacheck-Fault: %s", method, url, err);
    ret = answer_error(conn, MHD_HTTP_BAD_REQUEST, "invalid_request_error", "bad_fault", err,
                       NULL, NULL);
    goto out;
  }
  const char *name = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Oacheck-Case");
  const struct oc_cassette *c;
  char key[65] = "";
  long busy = 0;
  if(!name && oc_cassette_request_key(method, url, r->body.data, r->body.len, key)) {
    ret = MHD_NO;
    goto out;
  }
  c = oc_overload_find(srv->overload, srv->store, key, name, &busy);
  if(!c) {
    ret = answer_unmatched(srv, conn, method, url, name, r);
    goto out;
  }
  char desc[256];
  oc_faults_describe(&f, desc, sizeof(desc));
  oc_info("%s %s -> %s (%d)%s%s%s", method, url, c->name, c->status, *desc ? " faults: " : "",
          desc, busy ? " [overloaded: from the --overload recordings]" : "");
  ret = answer_recording(srv, conn, c, &f, r);
out:
  oc_overload_leave(&r->ticket); /* an answer of our own: out before it is sent */
  oc_faults_free(&f);
  return ret;
}

static void log_mhd(void *cls, const char *fmt, va_list ap)
{
  struct oc_server *srv = cls;
  char msg[OC_CAP_MESSAGE];
  vsnprintf(msg, sizeof(msg), fmt, ap);
  size_t n = strlen(msg);
  while(n && msg[n - 1] == '\n')
    msg[--n] = '\0';
  /* before the daemon runs, only this thread logs: keep the reason a
   * start failed for the error message */
  if(!srv->daemon)
    oc_strlcpy(srv->start_error, msg, sizeof(srv->start_error));
  oc_debug("microhttpd: %s", msg);
}

/* ---- lifecycle ------------------------------------------------------ */

int oc_server_start(struct oc_server **out, const struct oc_cassette_store *store,
                    const struct oc_server_options *opt, char *err, size_t errlen)
{
  struct addrinfo hints, *ai = NULL;
  char port[16];
  *out = NULL;
  struct oc_server *srv = calloc(1, sizeof(*srv));
  if(!srv) {
    snprintf(err, errlen, "out of memory");
    return OC_ENOMEM;
  }
  srv->store = store;
  srv->overload = opt->overload;
  srv->speed = opt->speed;
  oc_faults_init(&srv->faults);
  pthread_mutex_init(&srv->lock, NULL);
  pthread_cond_init(&srv->wake, NULL);
  atomic_init(&srv->stopping, 0);
  int rc = OC_ENOMEM;
  if(oc_faults_merge(&srv->faults, &opt->faults))
    goto out;
  memset(&hints, 0, sizeof(hints));
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
  snprintf(port, sizeof(port), "%d", opt->port);
  const char *host = opt->host ? opt->host : "127.0.0.1";
  int gai = getaddrinfo(host, port, &hints, &ai);
  if(gai) {
    snprintf(err, errlen, "cannot resolve host '%s': %s", host, gai_strerror(gai));
    rc = OC_EUSAGE;
    goto out;
  }
  unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                   MHD_USE_ERROR_LOG;
  if(ai->ai_family == AF_INET6)
    flags |= MHD_USE_IPv6;
  srv->daemon = MHD_start_daemon(
    flags, (uint16_t)opt->port, NULL, NULL, on_request, srv, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
    MHD_OPTION_NOTIFY_COMPLETED, request_done, NULL, MHD_OPTION_CONNECTION_LIMIT,
    (unsigned)CONNECTION_LIMIT, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)0,
    MHD_OPTION_EXTERNAL_LOGGER, log_mhd, srv, MHD_OPTION_END);
  if(!srv->daemon) {
    snprintf(err, errlen, "cannot listen on %s port %d: %s", host, opt->port,
             srv->start_error[0] ? srv->start_error : "the HTTP library refused");
    rc = OC_EIO;
    goto out;
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT);
  srv->port = info ? info->port : opt->port;
  *out = srv;
  srv = NULL;
  rc = OC_OK;
out:
  if(ai)
    freeaddrinfo(ai);
  oc_server_stop(srv);
  return rc;
}

int oc_server_port(const struct oc_server *s)
{
  return s->port;
}

void oc_server_stop(struct oc_server *s)
{
  if(!s)
    return;
  pthread_mutex_lock(&s->lock);
  atomic_store(&s->stopping, 1);
  pthread_cond_broadcast(&s->wake);
  pthread_mutex_unlock(&s->lock);
  if(s->daemon)
    MHD_stop_daemon(s->daemon);
  pthread_cond_destroy(&s->wake);
  pthread_mutex_destroy(&s->lock);
  oc_faults_free(&s->faults);
  free(s);
}
