/* server.c — the replay server: libmicrohttpd's own event loop on a
 * small thread pool (epoll), matching each request to a cassette
 * (X-Oacheck-Case, else the request key, computed as the body arrives),
 * planning the writes (recorded pieces, SSE events, faults) and pacing
 * them without holding a thread: a response that must wait (stall, drip,
 * recorded times) suspends its connection, and one timer thread resumes
 * it when its time comes.  The same thread closes connections that take
 * too long to send a request, and a connection beyond the limit makes
 * room by closing the one that has waited longest for its request.  The
 * only file that includes <microhttpd.h>.  Loading recordings is
 * cassette.c's; options and signals are cmd_serve.c's. */
#include "config.h"
#include "server.h"

#include <errno.h>
#include <limits.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "case_seq.h"
#include "json.h"
#include "serves.h"
#include "util.h"

/* How many nearest recordings an unmatched request is told about. */
#define NEAREST_MAX 5
/* Request bodies up to this size take part in ranking the nearest
 * recordings of a miss (parsing a bigger one again is not worth it). */
#define NEAREST_BODY_MAX (1u << 20)
/* All request bodies held at once: at most this many times --max-body. */
#define BODY_BUDGET_FACTOR 16
/* Pool threads when the machine does not say how many CPUs it has, and
 * at most. */
#define THREADS_DEFAULT 2
#define THREADS_MAX 16
/* The most the library is asked to buffer of one response at a time. */
#define RESPONSE_BLOCK_MAX (64u * 1024u)

/* One write: body bytes [start, end) that arrived t_ns after the request. */
struct write {
  size_t end;
  uint64_t t_ns;
};

/* An answer's writes framed as the chunks the library would make of them
 * ("SIZE-IN-HEX CRLF data CRLF"; empty writes make none), for direct
 * writing (write_direct). */
struct wire {
  char *bytes;
  size_t len;
  size_t *end;   /* where chunk i ends in bytes */
  size_t *write; /* the write chunk i holds */
  size_t n;
};

/* What every response of one cassette shares when no fault rewrites it,
 * worked out once at start; its wire when it is first answered directly
 * (read by every pool thread once published, never changed after). */
struct prep {
  struct write *w;
  size_t nw;
  _Atomic(struct wire *) wire;
  int sse;     /* Content-Type text/event-stream */
  int chunked; /* sent chunked: recorded so, or an event stream recorded
                  without a length */
  size_t missing; /* a cut recording: the bytes its Content-Length
                     announced beyond those recorded */
};

/* One TCP connection (libmicrohttpd's socket context).  While it waits
 * for a complete request it is on the server's waiting list, oldest
 * first: the timer closes those past the request timeout, and a
 * connection beyond the limit closes the oldest of them. */
struct conn {
  struct conn *prev, *next;
  int fd;
  int listed;
  uint64_t since; /* when it began to wait for its request */
};

/* A suspended connection and when to resume it. */
struct waiter {
  uint64_t deadline;
  struct MHD_Connection *conn;
};

struct oc_server {
  struct MHD_Daemon *daemon;
  const struct oc_cassette_store *store;
  struct prep *prep; /* one per store item */
  struct oc_overload *overload; /* --overload, or NULL */
  struct oc_case_seq *seq;      /* X-Oacheck-Case sequences seen so far */
  struct prep *oprep;           /* one per item of the overload's store */
  double speed;
  struct oc_faults faults;
  int port;
  size_t max_body;
  size_t body_budget;
  atomic_size_t body_bytes;     /* request bodies held now */
  uint64_t request_timeout_ns;  /* 0: none */
  uint64_t idle_timeout_ns;     /* 0: none */
  size_t max_connections;
  /* Everything below is under lock.  Stopping wakes the timer, which
   * resumes every suspended connection, so shutdown never waits for a
   * drip or a stall. */
  pthread_mutex_t lock;
  pthread_cond_t wake; /* on CLOCK_MONOTONIC */
  pthread_t timer;
  int timer_running;
  int stopping;
  atomic_int stopping_flag; /* the same, read without the lock */
  uint64_t timer_next;      /* when the timer wakes next (UINT64_MAX: when told) */
  struct waiter *heap;
  size_t nheap, aheap;
  struct conn *wait_head, *wait_tail;
  size_t nconns;
  unsigned long timed_out, evicted, refused;
  char start_error[256]; /* the HTTP library's reason when start fails */
  pthread_t starter;     /* the thread that starts the daemon: the only one writing start_error */
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
  "  drop-terminal    leave out the stream's last word, whatever the protocol:\n"
  "                   [DONE], response.completed/.incomplete/.failed (Responses),\n"
  "                   message_stop (Messages): a server that ends by closing\n"
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
  if(strcmp(key, "drop-done") == 0 || strcmp(key, "gzip") == 0 || strcmp(key, "drop-terminal") == 0) {
    if(eq) {
      snprintf(err, errlen, "fault '%s' takes no value", key);
      return OC_EUSAGE;
    }
    if(key[0] == 'g')
      f->gzip = 1;
    else if(strcmp(key, "drop-done") == 0)
      f->drop_done = 1;
    else
      f->drop_terminal = 1;
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
                        "drop-terminal, corrupt, content-type, gzip, split)", key);
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
  base->drop_terminal |= over->drop_terminal;
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
  oc_buf_init(&b, OC_CAP_MESSAGE);
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
  if(f->drop_terminal) {
    oc_buf_printf(&b, "%sdrop-terminal", sep);
    sep = ",";
  }
  if(f->gzip) {
    oc_buf_printf(&b, "%sgzip", sep);
    sep = ",";
  }
  if(f->content_type)
    oc_buf_printf(&b, "%scontent-type=%s", sep, f->content_type);
  /* checked once: what does not fit is cut at the end and says so, never
   * left out from the middle */
  if(outlen) {
    if(oc_buf_error(&b) == OC_ENOMEM)
      oc_strlcpy(out, "(out of memory)", outlen);
    else if(oc_strlcpy(out, oc_buf_str(&b), outlen) >= outlen || oc_buf_error(&b))
      oc_strlcpy(out + (outlen > 4 ? outlen - 4 : 0), "...", outlen > 4 ? 4 : outlen);
  }
  oc_buf_free(&b);
}

void oc_server_options_init(struct oc_server_options *o)
{
  memset(o, 0, sizeof(*o));
  o->host = "127.0.0.1";
  o->port = 8080;
  oc_faults_init(&o->faults);
}

/* ---- the timer: suspended connections and request timeouts -------- */

static void heap_swap(struct waiter *h, size_t a, size_t b)
{
  struct waiter t = h[a];
  h[a] = h[b];
  h[b] = t;
}

static int heap_push(struct oc_server *srv, uint64_t deadline, struct MHD_Connection *conn)
{
  if(srv->nheap == srv->aheap) {
    struct waiter *h = oc_array_grow(srv->heap, &srv->aheap, srv->nheap + 1, sizeof(*h));
    if(!h)
      return OC_ENOMEM;
    srv->heap = h;
  }
  size_t i = srv->nheap++;
  srv->heap[i].deadline = deadline;
  srv->heap[i].conn = conn;
  while(i && srv->heap[(i - 1) / 2].deadline > srv->heap[i].deadline) {
    heap_swap(srv->heap, i, (i - 1) / 2);
    i = (i - 1) / 2;
  }
  return OC_OK;
}

static struct MHD_Connection *heap_pop(struct oc_server *srv)
{
  struct MHD_Connection *top = srv->heap[0].conn;
  srv->heap[0] = srv->heap[--srv->nheap];
  for(size_t i = 0;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if(l < srv->nheap && srv->heap[l].deadline < srv->heap[m].deadline)
      m = l;
    if(r < srv->nheap && srv->heap[r].deadline < srv->heap[m].deadline)
      m = r;
    if(m == i)
      break;
    heap_swap(srv->heap, i, m);
    i = m;
  }
  return top;
}

/* Suspend conn until deadline (monotonic ns): the thread goes back to the
 * event loop, and the timer resumes the connection, after which
 * libmicrohttpd calls the same callback again.  Only from the access
 * handler or the content reader.  Returns 0 when suspended, non-zero when
 * the server is stopping or memory ran out (answer with an error). */
static int suspend_until(struct oc_server *srv, struct MHD_Connection *conn, uint64_t deadline)
{
  int rc = OC_OK;
  pthread_mutex_lock(&srv->lock);
  if(srv->stopping)
    rc = OC_EIO;
  else if(!(rc = heap_push(srv, deadline, conn))) {
    if(deadline < srv->timer_next)
      pthread_cond_signal(&srv->wake);
    MHD_suspend_connection(conn);
  }
  pthread_mutex_unlock(&srv->lock);
  return rc;
}

static void conn_unlink(struct oc_server *srv, struct conn *c)
{
  if(!c->listed)
    return;
  if(c->prev)
    c->prev->next = c->next;
  else
    srv->wait_head = c->next;
  if(c->next)
    c->next->prev = c->prev;
  else
    srv->wait_tail = c->prev;
  c->prev = c->next = NULL;
  c->listed = 0;
}

/* c begins to wait for a request (opened, or its response ended). */
static void conn_wait(struct oc_server *srv, struct conn *c)
{
  pthread_mutex_lock(&srv->lock);
  conn_unlink(srv, c);
  c->since = oc_now_ns();
  c->prev = srv->wait_tail;
  if(srv->wait_tail)
    srv->wait_tail->next = c;
  else
    srv->wait_head = c;
  srv->wait_tail = c;
  c->listed = 1;
  /* wake the timer only when it would sleep past this one's deadline: a
   * busy server does not wake it on every answer */
  if(srv->wait_head == c && srv->request_timeout_ns &&
     c->since + srv->request_timeout_ns < srv->timer_next)
    pthread_cond_signal(&srv->wake);
  pthread_mutex_unlock(&srv->lock);
}

/* c's request is complete: no request timeout while it is answered. */
static void conn_busy(struct oc_server *srv, struct conn *c)
{
  if(!c)
    return;
  pthread_mutex_lock(&srv->lock);
  conn_unlink(srv, c);
  pthread_mutex_unlock(&srv->lock);
}

/* Close a connection from outside its thread: shutdown() makes its
 * socket readable at end of file, and its thread closes it as a client
 * that went away.  Under lock, so the socket is still open: it leaves the
 * list (on MHD_CONNECTION_NOTIFY_CLOSED) before it is closed. */
static void conn_cut(struct oc_server *srv, struct conn *c)
{
  conn_unlink(srv, c);
  if(c->fd >= 0)
    shutdown(c->fd, SHUT_RDWR);
}

static void *timer_main(void *arg)
{
  struct oc_server *srv = arg;
  pthread_mutex_lock(&srv->lock);
  while(!srv->stopping) {
    uint64_t now = oc_now_ns();
    while(srv->nheap && srv->heap[0].deadline <= now)
      MHD_resume_connection(heap_pop(srv));
    while(srv->request_timeout_ns && srv->wait_head &&
          now - srv->wait_head->since >= srv->request_timeout_ns) {
      conn_cut(srv, srv->wait_head);
      srv->timed_out++;
    }
    uint64_t next = UINT64_MAX;
    if(srv->nheap)
      next = srv->heap[0].deadline;
    if(srv->request_timeout_ns && srv->wait_head &&
       srv->wait_head->since + srv->request_timeout_ns < next)
      next = srv->wait_head->since + srv->request_timeout_ns;
    srv->timer_next = next;
    if(next == UINT64_MAX)
      pthread_cond_wait(&srv->wake, &srv->lock);
    else {
      struct timespec ts = { (time_t)(next / 1000000000u), (long)(next % 1000000000u) };
      pthread_cond_timedwait(&srv->wake, &srv->lock, &ts);
    }
    srv->timer_next = 0; /* awake: it looks at everything before sleeping again */
  }
  pthread_mutex_unlock(&srv->lock);
  return NULL;
}

static void on_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
  struct oc_server *srv = cls;
  if(code == MHD_CONNECTION_NOTIFY_CLOSED) {
    struct conn *c = *socket_context;
    pthread_mutex_lock(&srv->lock);
    srv->nconns--;
    if(c)
      conn_unlink(srv, c);
    pthread_mutex_unlock(&srv->lock);
    free(c);
    *socket_context = NULL;
    return;
  }
  if(code != MHD_CONNECTION_NOTIFY_STARTED)
    return;
  const union MHD_ConnectionInfo *ci =
    MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  int fd = ci ? ci->connect_fd : -1;
  struct conn *c = calloc(1, sizeof(*c));
  pthread_mutex_lock(&srv->lock);
  srv->nconns++;
  if(srv->nconns > srv->max_connections) {
    /* Make room: the connection that has waited longest for its request
     * goes (a slow or idle client, the cheapest to lose); when every
     * connection is busy with an answer, this new one is refused. */
    if(srv->wait_head) {
      conn_cut(srv, srv->wait_head);
      srv->evicted++;
    }
    else if(fd >= 0) {
      shutdown(fd, SHUT_RDWR);
      srv->refused++;
    }
  }
  pthread_mutex_unlock(&srv->lock);
  if(c) {
    c->fd = fd;
    conn_wait(srv, c);
  }
  else if(fd >= 0)
    shutdown(fd, SHUT_RDWR); /* out of memory: not tracked, not served */
  *socket_context = c;
}

static struct conn *conn_of(struct MHD_Connection *conn)
{
  const union MHD_ConnectionInfo *ci =
    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return ci ? ci->socket_context : NULL;
}

/* ---- planning the writes -------------------------------------------- */

/* Everything one response needs, owned by the response (freed by MHD's
 * free callback, or by the request when the response was never made). */
struct plan {
  struct oc_server *srv;
  struct MHD_Connection *conn; /* to suspend between paced writes */
  const char *body;   /* borrowed from the cassette, or owned_body */
  char *owned_body;
  size_t len;
  const struct write *w; /* borrowed from the cassette's prep, or owned_w */
  struct write *owned_w;
  size_t nw;
  size_t limit;       /* reset: bytes to send before aborting; else len */
  int abort_at_limit;
  size_t missing;     /* announced beyond len: the Content-Length a cut
                         recording announced */
  int paced;          /* t_ns are real and speed > 0 */
  double speed;
  long drip_ms;
  uint64_t t0;        /* oc_now_ns() when the request arrived */
  size_t pos;         /* bytes handed to MHD so far */
  size_t cur;         /* the write in progress */
  int cur_started;
  uint64_t deadline;  /* when the write in progress may go; 0: not yet worked out */
  /* Direct writing (unpaced chunked answers): every chunk framed here and
   * written to the socket in one call, see write_direct. */
  int direct;
  int fd;
  _Atomic(struct wire *) *shared; /* the recording's wire (its prep's), when
                                     the answer is the recording's own */
  const struct wire *wire; /* shared, or owned */
  struct wire *owned;
  size_t wire_pos, wire_stop;
  uint64_t progress_at; /* the last time the socket took bytes */
  struct oc_overload_ticket ticket; /* --overload: given back with the last byte */
};

static void wire_free(struct wire *wi)
{
  if(!wi)
    return;
  free(wi->bytes);
  free(wi->end);
  free(wi->write);
  free(wi);
}

static void plan_free(void *cls)
{
  struct plan *p = cls;
  if(!p)
    return;
  oc_overload_leave(&p->ticket);
  free(p->owned_body);
  free(p->owned_w);
  wire_free(p->owned);
  free(p);
}

static int push_write(struct write **w, size_t *n, size_t *alloc, size_t end, uint64_t t)
{
  if(*n >= OC_CAP_CASSETTE_PIECES * 2)
    return OC_ETOOBIG;
  struct write *v = oc_array_grow(*w, alloc, *n + 1, sizeof(*v));
  if(!v)
    return OC_ENOMEM;
  *w = v;
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

/* Does hay (n bytes, not a C string) hold needle? */
static int has_bytes(const char *hay, size_t n, const char *needle, size_t m)
{
  for(size_t i = 0; m && i + m <= n; i++)
    if(hay[i] == needle[0] && memcmp(hay + i, needle, m) == 0)
      return 1;
  return 0;
}

/* Does the event end its stream: chat's [DONE], a Responses terminal
 * event, Messages' message_stop?  By its event: line, else by the type
 * its data names (a stream without event: lines). */
static int is_terminal_event(const char *b, size_t len)
{
  static const char *const types[] = { "response.completed", "response.incomplete", "response.failed",
                                       "message_stop" };
  if(is_done_event(b, len))
    return 1;
  for(size_t i = 0; i < len;) {
    size_t j = i;
    while(j < len && b[j] != '\n' && b[j] != '\r')
      j++;
    const char *line = b + i;
    size_t l = j - i;
    for(size_t t = 0; t < OC_ARRAY_LEN(types); t++) {
      size_t tl = strlen(types[t]);
      char quoted[40];
      int ql = snprintf(quoted, sizeof(quoted), "\"type\":\"%s\"", types[t]);
      if(l >= 6 && memcmp(line, "event:", 6) == 0) {
        size_t k = 6;
        while(k < l && line[k] == ' ')
          k++;
        if(l - k == tl && memcmp(line + k, types[t], tl) == 0)
          return 1;
      }
      else if(l >= 5 && memcmp(line, "data:", 5) == 0 && ql > 0 && has_bytes(line, l, quoted, (size_t)ql))
        return 1;
    }
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

/* The writes of cassette c with no fault: its recorded pieces; without
 * them one write per SSE event, as servers send them, or one for a body
 * that is not a stream. */
static int prep_build(struct prep *pr, const struct oc_cassette *c)
{
  size_t alloc = 0;
  int rc = OC_OK;
  char mt[128];
  oc_media_type(oc_headers_get(&c->headers, "Content-Type"), mt, sizeof(mt));
  atomic_init(&pr->wire, NULL);
  pr->sse = strcmp(mt, "text/event-stream") == 0;
  const char *te = oc_headers_get(&c->headers, "Transfer-Encoding");
  const char *cl = oc_headers_get(&c->headers, "Content-Length");
  /* an event stream keeps its recorded length when it had one; one
   * recorded with neither (reconstructed, or ended by closing) is sent
   * chunked, as streams are */
  pr->chunked = (te && strstr(te, "chunked")) || (pr->sse && !cl);
  long announced;
  if(!c->complete && !pr->chunked && cl && oc_parse_long(cl, 0, LONG_MAX, &announced) == 0 &&
     (size_t)announced > c->body_len)
    pr->missing = (size_t)announced - c->body_len;
  if(c->npieces) {
    for(size_t i = 0; i < c->npieces && !rc; i++)
      rc = push_write(&pr->w, &pr->nw, &alloc, c->pieces[i].end, c->pieces[i].t_ns);
  }
  else if(pr->sse) {
    for(size_t s = 0; s < c->body_len && !rc;) {
      size_t e = event_end(c->body, c->body_len, s);
      rc = push_write(&pr->w, &pr->nw, &alloc, e, 0);
      s = e;
    }
  }
  else if(c->body_len)
    rc = push_write(&pr->w, &pr->nw, &alloc, c->body_len, time_at(c, c->body_len));
  return rc;
}

/* Build the writes for cassette c under faults f.  The body and the
 * writes stay the cassette's unless a fault rewrites them. */
/* A recording's prepared writes: from the main store, or --overload's. */
static const struct prep *prep_of(const struct oc_server *srv, const struct oc_cassette *c)
{
  const struct oc_cassette_store *m = srv->store;
  if(c >= m->items && c < m->items + m->count)
    return &srv->prep[c - m->items];
  return &srv->oprep[c - srv->overload->store.items];
}

static int plan_build(struct plan *p, const struct oc_cassette *c, const struct prep *pr,
                      const struct oc_faults *f)
{
  size_t alloc = 0;
  int rc = OC_OK;
  int rewrite = f->truncate >= 0 || f->drop_done || f->drop_terminal || f->corrupt >= 0;
  int truncated = 0; /* truncate ended the body before its recorded end */
  p->body = c->body;
  p->len = c->body_len;
  p->w = pr->w;
  p->nw = pr->nw;
  if(rewrite) {
    /* Rebuild the body event by event (a body that is not an event
     * stream is one event). */
    struct oc_buf nb;
    oc_buf_init(&nb, OC_CAP_BODY);
    long kept = 0, index = 0;
    p->nw = 0;
    for(size_t s = 0; s < c->body_len;) {
      size_t e = pr->sse ? event_end(c->body, c->body_len, s) : c->body_len;
      index++;
      if(f->truncate >= 0 && kept >= f->truncate) {
        truncated = 1;
        break;
      }
      if(pr->sse && ((f->drop_done && is_done_event(c->body + s, e - s)) ||
                     (f->drop_terminal && is_terminal_event(c->body + s, e - s)))) {
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
        rc = push_write(&p->owned_w, &p->nw, &alloc, nb.len, time_at(c, e));
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
    p->w = p->owned_w;
  }
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
    free(p->owned_w);
    p->owned_w = NULL;
    p->nw = 0;
    alloc = 0;
    if(gzlen && (rc = push_write(&p->owned_w, &p->nw, &alloc, gzlen, t)))
      return rc;
    p->w = p->owned_w;
  }
  if(f->split > 0) {
    struct write *nw = NULL;
    size_t n = 0, k = 0;
    alloc = 0;
    for(size_t end = 0; end < p->len && !rc;) {
      end = (size_t)f->split < p->len - end ? end + (size_t)f->split : p->len;
      while(k + 1 < p->nw && p->w[k].end < end)
        k++;
      rc = push_write(&nw, &n, &alloc, end, p->nw ? p->w[k].t_ns : 0);
    }
    free(p->owned_w);
    p->owned_w = nw;
    p->w = nw;
    p->nw = n;
    if(rc)
      return rc;
  }
  p->limit = p->len;
  if(f->reset >= 0) {
    p->abort_at_limit = 1;
    if((size_t)f->reset < p->len)
      p->limit = (size_t)f->reset;
  }
  /* A recording of a connection that was cut (a reset, a timeout while
   * recording) is cut again: its bytes, then the connection aborted, not
   * ended properly -- and a length announces what was announced then.
   * Unless truncate ended the body first: that end is a proper one. */
  if(!c->complete && !truncated) {
    p->abort_at_limit = 1;
    p->missing = pr->missing;
  }
  p->drip_ms = f->drip_ms;
  return OC_OK;
}

/* When the write in progress may go: its recorded time under pacing, and
 * with drip, drip_ms after the previous write was taken. */
static uint64_t write_deadline(const struct plan *p)
{
  uint64_t deadline = 0;
  if(p->paced)
    deadline = p->t0 + (uint64_t)((double)p->w[p->cur].t_ns / p->speed);
  if(p->drip_ms > 0 && p->cur > 0) {
    uint64_t d = oc_now_ns() + (uint64_t)p->drip_ms * 1000000u;
    if(d > deadline)
      deadline = d;
  }
  return deadline ? deadline : 1;
}

/* The ordinary way: one write per call, each a chunk of its own. */
static ssize_t read_writes(struct plan *p, char *buf, size_t max)
{
  if(p->pos >= p->limit || p->cur >= p->nw) {
    oc_overload_leave(&p->ticket);
    return p->abort_at_limit ? MHD_CONTENT_READER_END_WITH_ERROR
                             : MHD_CONTENT_READER_END_OF_STREAM;
  }
  if(!p->cur_started) {
    if(!p->deadline)
      p->deadline = write_deadline(p);
    if(p->deadline > 1 && oc_now_ns() < p->deadline) {
      /* not yet: give the thread back, the timer resumes us */
      if(suspend_until(p->srv, p->conn, p->deadline))
        return MHD_CONTENT_READER_END_WITH_ERROR;
      return 0;
    }
    p->cur_started = 1;
    p->deadline = 0;
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

/* Frame writes w[from..nw) of body as the chunks the library would make
 * of them.  NULL when out of memory. */
static struct wire *wire_build(const char *body, const struct write *w, size_t nw, size_t from)
{
  struct oc_buf b;
  size_t n = 0;
  struct wire *wi = calloc(1, sizeof(*wi));
  if(!wi)
    return NULL;
  size_t most = 1; /* the bytes, and a size line and CRLF per chunk */
  for(size_t i = from; i < nw; i++) {
    size_t start = i ? w[i - 1].end : 0;
    if(w[i].end > start)
      most += w[i].end - start + 24;
  }
  oc_buf_init(&b, most);
  wi->end = malloc((nw + 1) * sizeof(*wi->end));
  wi->write = malloc((nw + 1) * sizeof(*wi->write));
  if(!wi->end || !wi->write) {
    wire_free(wi);
    return NULL;
  }
  for(size_t i = from; i < nw; i++) {
    size_t start = i ? w[i - 1].end : 0;
    if(w[i].end <= start)
      continue;
    oc_buf_printf(&b, "%zx\r\n", w[i].end - start);
    oc_buf_add(&b, body + start, w[i].end - start);
    oc_buf_add(&b, "\r\n", 2);
    wi->end[n] = b.len;
    wi->write[n++] = i;
  }
  wi->n = n;
  wi->bytes = oc_buf_take(&b, &wi->len); /* checked once: NULL when an add failed */
  if(!wi->bytes) {
    wire_free(wi);
    return NULL;
  }
  return wi;
}

/* The wire of p's remaining writes.  The recording's own answer, from the
 * first write, frames the same bytes every time: that one is built once
 * per recording and shared (the first thread to publish it wins; a
 * thread that lost the race frees its copy). */
static const struct wire *plan_wire(struct plan *p)
{
  if(!p->shared || p->cur)
    return p->owned = wire_build(p->body, p->w, p->nw, p->cur);
  struct wire *wi = atomic_load_explicit(p->shared, memory_order_acquire);
  if(wi)
    return wi;
  struct wire *mine = wire_build(p->body, p->w, p->nw, 0);
  if(!mine)
    return NULL;
  if(atomic_compare_exchange_strong_explicit(p->shared, &wi, mine, memory_order_acq_rel,
                                             memory_order_acquire))
    return mine;
  wire_free(mine);
  return wi;
}

/* Leave direct writing: the rest goes the ordinary way from write cur. */
static void direct_off(struct plan *p, size_t cur)
{
  p->direct = 0;
  p->cur = cur;
  p->pos = cur < p->nw ? (cur ? p->w[cur - 1].end : 0) : p->len;
  p->cur_started = 0;
}

/* An answer with no wait between its writes, written straight to the
 * socket: libmicrohttpd sends a chunk per call of its content reader, a
 * system call each, where one call can carry every chunk.  The reader is
 * first called once the head is sent and the library's buffer is empty,
 * so the bytes go in order; the chunks are the same the library would
 * make (one per write), and its own end of the body follows when this
 * returns the end of the stream.  When the socket takes only part:
 * at a chunk boundary, the rest goes the ordinary way; inside a chunk,
 * that chunk is finished here as the client reads (polling every 5 ms,
 * given up after the idle timeout without progress). */
static ssize_t write_direct(struct plan *p, char *buf, size_t max)
{
  uint64_t now = oc_now_ns();
  if(!p->wire) {
    if(!(p->wire = plan_wire(p))) {
      direct_off(p, p->cur); /* out of memory: the ordinary way needs none */
      return read_writes(p, buf, max);
    }
    p->wire_stop = p->wire->len;
    p->progress_at = now;
  }
  const struct wire *wi = p->wire;
  ssize_t n = p->wire_pos < p->wire_stop
                ? send(p->fd, wi->bytes + p->wire_pos, p->wire_stop - p->wire_pos,
                       MSG_DONTWAIT | MSG_NOSIGNAL)
                : 0;
  if(n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    return MHD_CONTENT_READER_END_WITH_ERROR;
  if(n > 0) {
    p->wire_pos += (size_t)n;
    p->progress_at = now;
  }
  if(p->wire_pos == wi->len) {
    oc_overload_leave(&p->ticket); /* the library's end of the body is still to come */
    direct_off(p, p->nw);
    return MHD_CONTENT_READER_END_OF_STREAM;
  }
  size_t k = 0; /* chunks sent whole */
  while(k < wi->n && wi->end[k] <= p->wire_pos)
    k++;
  if(p->wire_pos == (k ? wi->end[k - 1] : 0)) {
    direct_off(p, k < wi->n ? wi->write[k] : p->nw);
    return read_writes(p, buf, max);
  }
  p->wire_stop = wi->end[k]; /* finish this chunk, then the ordinary way */
  uint64_t idle = p->srv->idle_timeout_ns ? p->srv->idle_timeout_ns : 600000000000u;
  if(now - p->progress_at > idle || suspend_until(p->srv, p->conn, now + 5000000u))
    return MHD_CONTENT_READER_END_WITH_ERROR;
  return 0;
}

static ssize_t read_body(void *cls, uint64_t pos, char *buf, size_t max)
{
  struct plan *p = cls;
  (void)pos;
  if(atomic_load(&p->srv->stopping_flag))
    return MHD_CONTENT_READER_END_WITH_ERROR;
  return p->direct ? write_direct(p, buf, max) : read_writes(p, buf, max);
}

/* ---- requests ------------------------------------------------------- */

enum req_state {
  REQ_RECEIVING = 0, /* headers in, body arriving */
  REQ_HEAD_WAIT,     /* answer planned, suspended until its head may go */
  REQ_ANSWERED
};

/* One request, from its headers to the end of its answer. */
struct req {
  enum req_state state;
  struct oc_keyer key; /* the body, keyed as it arrives */
  size_t held;         /* body bytes counted against the server's budget */
  unsigned refused;    /* 413, 503 or 500: answer that once the body is in */
  uint64_t t0;
  struct conn *cc;
  int corked;          /* TCP_CORK set for this answer; lifted when it is done */
  int http11;          /* the request was HTTP/1.1: a body of unknown size is chunked */
  struct oc_overload_ticket ticket; /* --overload: counted in flight until answered */
  /* REQ_HEAD_WAIT: what to send when the head may go */
  const struct oc_cassette *c;
  struct plan *plan;
  struct oc_faults f;
  uint64_t head_at;
};

/* Count what r holds now against the server's budget for bodies. */
static void budget_set(struct oc_server *srv, struct req *r, size_t held)
{
  if(held > r->held)
    atomic_fetch_add(&srv->body_bytes, held - r->held);
  else
    atomic_fetch_sub(&srv->body_bytes, r->held - held);
  r->held = held;
}

static void request_done(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
  struct oc_server *srv = cls;
  struct req *r = *con_cls;
  (void)conn;
  if(!r)
    return;
  if(r->corked && r->cc && r->cc->fd >= 0) {
    int off = 0; /* the whole answer leaves now, in as few segments as fit */
    setsockopt(r->cc->fd, IPPROTO_TCP, TCP_CORK, &off, sizeof(off));
  }
  if(r->cc && toe == MHD_REQUEST_TERMINATED_COMPLETED_OK)
    conn_wait(srv, r->cc); /* kept alive: the next request is awaited */
  budget_set(srv, r, 0);
  oc_keyer_free(&r->key);
  plan_free(r->plan);
  oc_overload_leave(&r->ticket);
  oc_faults_free(&r->f);
  free(r);
  *con_cls = NULL;
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

static enum MHD_Result answer_refused(struct oc_server *srv, struct MHD_Connection *conn,
                                      const char *method, const char *url, unsigned status)
{
  char msg[256];
  if(status == MHD_HTTP_CONTENT_TOO_LARGE) {
    snprintf(msg, sizeof(msg),
             "request body larger than oacheck serve accepts (%zu bytes; see --max-body)",
             srv->max_body);
    oc_info("%s %s -> 413 body over %zu bytes", method, url, srv->max_body);
    return answer_error(conn, status, "invalid_request_error", "request_too_large", msg, NULL,
                        NULL);
  }
  if(status == MHD_HTTP_SERVICE_UNAVAILABLE) {
    snprintf(msg, sizeof(msg),
             "oacheck serve holds %zu bytes of request bodies already, its limit "
             "(16 x --max-body); retry when fewer are in flight", srv->body_budget);
    oc_info("%s %s -> 503 request bodies over their budget", method, url);
    return answer_error(conn, status, "server_error", "server_busy", msg, "Retry-After", "1");
  }
  return answer_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "server_error", "replay_failed",
                      "oacheck serve ran out of memory reading this request", NULL, NULL);
}

static enum MHD_Result answer_unmatched(struct oc_server *srv, struct MHD_Connection *conn,
                                        const char *method, const char *url, const char *name,
                                        const char *body, size_t len, const char *key)
{
  const struct oc_cassette *near[NEAREST_MAX];
  if(len > NEAREST_BODY_MAX) {
    body = NULL; /* ranked by method, path and name only */
    len = 0;
  }
  size_t n =
    oc_cassette_store_nearest(srv->store, method, url, body, len, name, near, NEAREST_MAX);
  struct oc_buf msg, list;
  oc_buf_init(&msg, OC_CAP_MESSAGE);
  oc_buf_init(&list, OC_CAP_MESSAGE);
  /* every piece is bounded so that the whole fits OC_CAP_MESSAGE: five
   * names and routes of at most 300 bytes, the client's name and URL */
  for(size_t i = 0; i < n; i++)
    oc_buf_printf(&list, "%s%.200s (%.16s %.80s)", i ? ", " : "", near[i]->name, near[i]->method,
                  near[i]->path);
  if(name)
    oc_buf_printf(&msg, "no recording named '%.300s' (X-Oacheck-Case)", name);
  else
    oc_buf_printf(&msg, "no recording matches %.16s %.300s with this body (request key %.12s)",
                  method, url, key);
  oc_buf_printf(&msg, "; nearest: %s", n ? oc_buf_str(&list) : "none (no recordings loaded)");
  oc_info("%s %s -> 404 not recorded%s%s", method, url, name ? " as " : "", name ? name : "");
  struct oc_buf names;
  oc_buf_init(&names, OC_CAP_MESSAGE);
  for(size_t i = 0; i < n; i++)
    oc_buf_printf(&names, "%s%.200s", i ? ", " : "", near[i]->name);
  enum MHD_Result ret;
  cJSON *root = cJSON_CreateObject();
  cJSON *e = cJSON_AddObjectToObject(root, "error");
  char *text = NULL;
  struct MHD_Response *resp = NULL;
  ret = MHD_NO;
  /* checked once: only memory can fail them (see above) */
  if(oc_buf_error(&list) || oc_buf_error(&msg) || oc_buf_error(&names))
    goto out;
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

/* The buffer the library gives the response: the largest write, at most
 * RESPONSE_BLOCK_MAX.  The reader hands over one write per call at most,
 * so this asks for exactly the calls a bigger one would.  The library
 * allocates and zeroes it for every response (calloc); a fixed 64 KiB
 * did that for a 5 KB answer, and with hundreds of answers in flight the
 * pool threads' heaps grew and shrank by megabytes per second, each
 * block faulted in again page by page: most of the server's time at 256
 * connections (BENCHMARKS.md, the serve section). */
static size_t plan_block(const struct plan *p)
{
  size_t most = 1;
  for(size_t i = p->cur, start = p->pos; i < p->nw; i++) {
    size_t end = p->w[i].end < p->limit ? p->w[i].end : p->limit;
    if(end > start && end - start > most)
      most = end - start;
    start = p->w[i].end;
  }
  return most < RESPONSE_BLOCK_MAX ? most : RESPONSE_BLOCK_MAX;
}

/* Queue r's planned answer (the head may go now).  The plan passes to
 * the response. */
static enum MHD_Result queue_plan(struct oc_server *srv, struct MHD_Connection *conn,
                                  struct req *r)
{
  const struct oc_cassette *c = r->c;
  const struct prep *pr = prep_of(srv, c);
  const struct oc_faults *f = &r->f;
  struct plan *p = r->plan;
  /* A recording that was chunked stays chunked; one with a length gets
   * the (possibly rewritten) length. */
  uint64_t size = pr->chunked ? MHD_SIZE_UNKNOWN : (uint64_t)p->len + p->missing;
  struct MHD_Response *resp =
    MHD_create_response_from_callback(size, plan_block(p), read_body, p, plan_free);
  if(!resp)
    return MHD_NO;
  r->plan = NULL; /* the response frees it */
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
  /* Writes with no wait between them are corked: the chunks stay one per
   * write, but leave in as few TCP segments as fit instead of one each
   * (paced, dripping, split and reset answers keep a segment per write). */
  if(!p->paced && p->drip_ms <= 0 && f->split < 0 && !p->abort_at_limit && r->cc &&
     r->cc->fd >= 0) {
    int on = 1;
    r->corked = setsockopt(r->cc->fd, IPPROTO_TCP, TCP_CORK, &on, sizeof(on)) == 0;
    /* and when the library will chunk them, one system call for them all */
    if(pr->chunked && r->http11 && p->nw > 1) {
      p->direct = 1;
      p->fd = r->cc->fd;
      /* no fault rewrote it: the recording's wire serves */
      if(p->body == c->body && p->w == pr->w && p->len == c->body_len)
        p->shared = (_Atomic(struct wire *) *)&pr->wire;
    }
  }
  r->state = REQ_ANSWERED;
  enum MHD_Result ret = MHD_queue_response(conn, (unsigned)c->status, resp);
  MHD_destroy_response(resp);
  return ret;
}

static enum MHD_Result answer_recording(struct oc_server *srv, struct MHD_Connection *conn,
                                        struct req *r)
{
  const struct oc_cassette *c = r->c;
  struct plan *p = calloc(1, sizeof(*p));
  if(!p)
    return MHD_NO;
  p->srv = srv;
  p->conn = conn;
  p->t0 = r->t0;
  p->speed = srv->speed;
  p->paced = srv->speed > 0 && c->timing_recorded;
  oc_overload_hand(&p->ticket, &r->ticket);
  r->plan = p;
  if(plan_build(p, c, prep_of(srv, c), &r->f))
    return answer_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "server_error", "replay_failed",
                        "oacheck serve could not prepare this recording (out of memory?)", NULL,
                        NULL);
  /* stall before the head; with pacing, the head waits for its time too */
  uint64_t head = 0;
  if(p->paced)
    head = r->t0 + (uint64_t)((double)c->headers_ns / p->speed);
  if(r->f.stall_ms > 0) {
    uint64_t s = oc_now_ns() + (uint64_t)r->f.stall_ms * 1000000u;
    if(s > head)
      head = s;
  }
  if(head > oc_now_ns()) {
    r->state = REQ_HEAD_WAIT;
    r->head_at = head;
    return suspend_until(srv, conn, head) ? MHD_NO : MHD_YES;
  }
  return queue_plan(srv, conn, r);
}

/* The recording name an X-Oacheck-Case value asks for now: a sequence
 * "A,B" gives its next name (case_seq.h), said in desc for the log line;
 * anything else is the value itself.  NULL when out of memory. */
static const char *case_name(struct oc_server *srv, const char *value, char *buf, size_t len,
                             char *desc, size_t desclen)
{
  unsigned long nth, n;
  const char *name = oc_case_seq_pick(srv->seq, srv->store, value, buf, len, &nth, &n);
  if(name && n)
    snprintf(desc, desclen, " [X-Oacheck-Case sequence: request %lu, name %lu of %lu]", nth,
             nth < n ? nth : n, n);
  return name;
}

/* A probe (X-Oacheck-Probe, serves.h) asks whether the server serves
 * a protocol: a replay says what its recordings hold for the path, as
 * 400 "recorded" (the route is there) or 404 "not-recorded", never as a
 * miss of the replay. */
static enum MHD_Result answer_probe(struct oc_server *srv, struct MHD_Connection *conn,
                                    const char *method, const char *url)
{
  enum oc_protocol_id k = oc_serves_protocol_of(oc_api_from_path(url));
  signed char stateful = -1;
  enum oc_proto_state st = k < OC_PROTO__COUNT ? oc_serves_recorded(srv->store, k, &stateful)
                                          : OC_PS_NOT_RECORDED;
  int served = st == OC_PS_SERVED;
  char msg[400];
  snprintf(msg, sizeof(msg), "oacheck serve: a probe of %.300s: %s", url,
           served ? "the recordings hold answers on this path" : "no recording answers this path");
  oc_info("%s %s -> %d probe: %s", method, url, served ? 400 : 404,
          served ? "answers on this path are recorded" : "nothing on this path is recorded");
  cJSON *root = cJSON_CreateObject();
  cJSON *e = cJSON_AddObjectToObject(root, "error");
  char *text = NULL;
  enum MHD_Result ret = MHD_NO;
  struct MHD_Response *resp = NULL;
  if(!e || !cJSON_AddStringToObject(e, "message", msg) ||
     !cJSON_AddStringToObject(e, "type", served ? "invalid_request_error" : "not_found_error") ||
     !cJSON_AddStringToObject(e, "code", "probe") || !(text = oc_json_print(root)))
    goto out;
  resp = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_COPY);
  if(!resp)
    goto out;
  MHD_add_response_header(resp, "Content-Type", "application/json");
  MHD_add_response_header(resp, OC_PROBE_HEADER, served ? "recorded" : "not-recorded");
  if(k == OC_PROTO_RESPONSES && stateful >= 0)
    MHD_add_response_header(resp, OC_PROBE_STATEFUL_HEADER, stateful ? "yes" : "no");
  ret = MHD_queue_response(conn, served ? MHD_HTTP_BAD_REQUEST : MHD_HTTP_NOT_FOUND, resp);
out:
  if(resp)
    MHD_destroy_response(resp);
  cJSON_Delete(root);
  free(text);
  return ret;
}

/* The request is complete: match it and answer. */
static enum MHD_Result answer_request(struct oc_server *srv, struct MHD_Connection *conn,
                                      const char *url, const char *method, struct req *r)
{
  char err[OC_CAP_MESSAGE];
  if(r->refused)
    return answer_refused(srv, conn, method, url, r->refused);
  if(oc_faults_merge(&r->f, &srv->faults))
    return MHD_NO;
  const char *fh = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Oacheck-Fault");
  if(fh && oc_faults_parse(&r->f, fh, err, sizeof(err))) {
    oc_info("%s %s -> 400 bad X-Oacheck-Fault: %s", method, url, err);
    return answer_error(conn, MHD_HTTP_BAD_REQUEST, "invalid_request_error", "bad_fault", err,
                        NULL, NULL);
  }
  if(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, OC_PROBE_HEADER)) {
    budget_set(srv, r, 0);
    oc_keyer_free(&r->key);
    return answer_probe(srv, conn, method, url);
  }
  const char *name = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Oacheck-Case");
  char seqname[512], seqdesc[600] = "";
  if(name && !(name = case_name(srv, name, seqname, sizeof(seqname), seqdesc, sizeof(seqdesc))))
    return MHD_NO;
  char key[65] = "";
  long busy = 0;
  if(!name && oc_keyer_end(&r->key, key))
    return MHD_NO;
  /* more than --overload N in flight: the overloaded recordings answer */
  const struct oc_cassette *c = oc_overload_find(srv->overload, srv->store, key, name, &busy);
  if(!c) {
    size_t len = 0;
    const char *body = oc_keyer_body(&r->key, &len);
    if(name && oc_keyer_end(&r->key, key))
      return MHD_NO;
    return answer_unmatched(srv, conn, method, url, name, body, len, key);
  }
  /* The body has done its work: give its memory back before answering. */
  budget_set(srv, r, 0);
  oc_keyer_free(&r->key);
  if(c->status < 200) {
    /* A 1xx is an interim response: sent as the answer, the client would
     * wait for the final one forever. */
    snprintf(err, sizeof(err),
             "recording '%s' holds status %d, an interim (1xx) response that cannot end an "
             "exchange; oacheck serve answers 502 instead of leaving the client waiting",
             c->name, c->status);
    oc_info("%s %s -> %s (%d) -> 502 interim status recorded", method, url, c->name, c->status);
    return answer_error(conn, MHD_HTTP_BAD_GATEWAY, "server_error", "interim_status_recorded",
                        err, NULL, NULL);
  }
  char desc[256];
  oc_faults_describe(&r->f, desc, sizeof(desc));
  oc_info("%s %s -> %s (%d)%s%s%s%s", method, url, c->name, c->status, *desc ? " faults: " : "",
          desc, busy ? " [overloaded: from the --overload recordings]" : "", seqdesc);
  r->c = c;
  return answer_recording(srv, conn, r);
}

/* PATH?QUERY for the request key, built from the decoded arguments
 * (oc_cassette_query_append puts them in the key's canonical form). */
struct query_walk {
  struct oc_buf *query;
  int failed;
};

static enum MHD_Result add_query_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value)
{
  struct query_walk *qw = cls;
  (void)kind;
  if(oc_cassette_query_append(qw->query, key, value))
    qw->failed = 1;
  return qw->failed ? MHD_NO : MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
  struct oc_server *srv = cls;
  struct req *r = *con_cls;
  if(!r) {
    /* the head is in; the body (if any) follows */
    if(atomic_load(&srv->stopping_flag) || !(r = calloc(1, sizeof(*r))))
      return MHD_NO;
    r->t0 = oc_now_ns();
    r->cc = conn_of(conn);
    r->http11 = version && strcmp(version, MHD_HTTP_VERSION_1_1) == 0;
    oc_faults_init(&r->f);
    *con_cls = r;
    size_t cap = srv->max_body;
    const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
    long declared;
    if(cl && !oc_parse_long(cl, 0, LONG_MAX, &declared)) {
      /* refused before a byte of it is read; the library closes the
       * connection after the answer */
      if((unsigned long)declared > srv->max_body) {
        conn_busy(srv, r->cc);
        return answer_refused(srv, conn, method, url, MHD_HTTP_CONTENT_TOO_LARGE);
      }
      if(atomic_load(&srv->body_bytes) + (size_t)declared > srv->body_budget) {
        conn_busy(srv, r->cc);
        return answer_refused(srv, conn, method, url, MHD_HTTP_SERVICE_UNAVAILABLE);
      }
      cap = (size_t)declared;
    }
    oc_keyer_init(&r->key, cap);
    oc_overload_enter(srv->overload, &r->ticket);
    /* the query is part of the request key (a router's ?model=): the
     * library hands over the path and the decoded arguments apart */
    struct oc_buf query, target;
    oc_buf_init(&query, OC_CAP_HTTP_HEAD);
    oc_buf_init(&target, OC_CAP_HTTP_HEAD);
    struct query_walk qw = { &query, 0 };
    int bad = MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, add_query_arg, &qw) < 0 ||
              qw.failed;
    if(!bad && query.len)
      bad = oc_buf_printf(&target, "%s?%s", url, oc_buf_str(&query)) != OC_OK;
    bad = bad || oc_keyer_begin(&r->key, method, query.len ? oc_buf_str(&target) : url);
    oc_buf_free(&query);
    oc_buf_free(&target);
    return bad ? MHD_NO : MHD_YES;
  }
  if(*upload_data_size) {
    if(!r->refused) {
      int rc = oc_keyer_add(&r->key, upload_data, *upload_data_size);
      budget_set(srv, r, oc_keyer_held(&r->key));
      if(rc)
        r->refused = rc == OC_ETOOBIG ? MHD_HTTP_CONTENT_TOO_LARGE
                                      : MHD_HTTP_INTERNAL_SERVER_ERROR;
      else if(atomic_load(&srv->body_bytes) > srv->body_budget)
        r->refused = MHD_HTTP_SERVICE_UNAVAILABLE;
      if(r->refused) {
        /* keep reading (and dropping) the body, answer when it is in */
        oc_keyer_free(&r->key);
        budget_set(srv, r, 0);
      }
    }
    *upload_data_size = 0;
    return MHD_YES;
  }
  if(atomic_load(&srv->stopping_flag))
    return MHD_NO;
  if(r->state == REQ_HEAD_WAIT) {
    /* resumed by the timer */
    if(oc_now_ns() < r->head_at)
      return suspend_until(srv, conn, r->head_at) ? MHD_NO : MHD_YES;
    return queue_plan(srv, conn, r);
  }
  if(r->state != REQ_RECEIVING)
    return MHD_NO;
  conn_busy(srv, r->cc);
  enum MHD_Result ret = answer_request(srv, conn, url, method, r);
  oc_overload_leave(&r->ticket); /* an answer of our own: out before it is sent */
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
  /* the starting thread's messages are the reasons a start fails: kept
   * for the error message.  The pool's threads log as soon as they run,
   * before MHD_start_daemon has returned and set srv->daemon, so which
   * thread logs is what tells (it was written before they were made) */
  if(pthread_equal(pthread_self(), srv->starter))
    oc_strlcpy(srv->start_error, msg, sizeof(srv->start_error));
  oc_debug("microhttpd: %s", msg);
}

/* ---- lifecycle ------------------------------------------------------ */

static unsigned pool_threads(void)
{
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if(n < 1)
    n = THREADS_DEFAULT;
  return (unsigned)(n > THREADS_MAX ? THREADS_MAX : n);
}

/* Descriptors for the connections allowed, the pool's own and some to
 * spare; raise the soft limit towards the hard one when it is lower. */
static size_t fit_descriptors(size_t want)
{
  struct rlimit rl;
  if(getrlimit(RLIMIT_NOFILE, &rl))
    return want;
  rlim_t need = (rlim_t)want + 64;
  if(rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
    rlim_t old = rl.rlim_cur;
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? need : rl.rlim_max;
    if(setrlimit(RLIMIT_NOFILE, &rl))
      rl.rlim_cur = old;
  }
  if(rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need)
    return rl.rlim_cur > 128 ? (size_t)rl.rlim_cur - 64 : 64;
  return want;
}

int oc_server_start(struct oc_server **out, const struct oc_cassette_store *store,
                    const struct oc_server_options *opt, char *err, size_t errlen)
{
  struct addrinfo hints, *ai = NULL;
  char port[16];
  pthread_condattr_t ca;
  *out = NULL;
  if(errlen)
    err[0] = '\0';
  struct oc_server *srv = calloc(1, sizeof(*srv));
  if(!srv) {
    snprintf(err, errlen, "out of memory");
    return OC_ENOMEM;
  }
  srv->store = store;
  srv->overload = opt->overload;
  srv->speed = opt->speed;
  srv->max_body = opt->max_body ? opt->max_body : OC_SERVE_MAX_BODY;
  srv->body_budget = srv->max_body * BODY_BUDGET_FACTOR;
  atomic_init(&srv->body_bytes, 0);
  long rt = opt->request_timeout_s ? opt->request_timeout_s : OC_SERVE_REQUEST_TIMEOUT;
  long it = opt->idle_timeout_s ? opt->idle_timeout_s : OC_SERVE_IDLE_TIMEOUT;
  srv->request_timeout_ns = rt > 0 ? (uint64_t)rt * 1000000000u : 0;
  unsigned idle = it > 0 ? (unsigned)it : 0;
  srv->idle_timeout_ns = (uint64_t)idle * 1000000000u;
  srv->max_connections = opt->max_connections ? opt->max_connections : OC_SERVE_MAX_CONNECTIONS;
  oc_faults_init(&srv->faults);
  pthread_mutex_init(&srv->lock, NULL);
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&srv->wake, &ca);
  pthread_condattr_destroy(&ca);
  atomic_init(&srv->stopping_flag, 0);
  int rc = OC_ENOMEM;
  if(!(srv->seq = oc_case_seq_new()))
    goto out;
  if(oc_faults_merge(&srv->faults, &opt->faults))
    goto out;
  if(store->count && !(srv->prep = calloc(store->count, sizeof(*srv->prep))))
    goto out;
  for(size_t i = 0; i < store->count; i++) {
    if(prep_build(&srv->prep[i], &store->items[i]))
      goto out;
    if(store->items[i].status < 200)
      oc_warn("recording '%s' holds status %d, an interim (1xx) response: it is answered "
              "with 502", store->items[i].name, store->items[i].status);
  }
  const struct oc_cassette_store *os = srv->overload ? &srv->overload->store : NULL;
  if(os && os->count && !(srv->oprep = calloc(os->count, sizeof(*srv->oprep))))
    goto out;
  for(size_t i = 0; os && i < os->count; i++)
    if(prep_build(&srv->oprep[i], &os->items[i]))
      goto out;
  /* libmicrohttpd's own ceiling sits well above ours, so that it is this
   * server's policy (make room by closing the oldest waiting connection)
   * that decides, not a full pool thread turning a client away. */
  size_t lib_limit = fit_descriptors(srv->max_connections * 2 + 64);
  if(srv->max_connections > lib_limit)
    srv->max_connections = lib_limit;
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
  if(pthread_create(&srv->timer, NULL, timer_main, srv)) {
    snprintf(err, errlen, "cannot start the timer thread");
    goto out;
  }
  srv->timer_running = 1;
  srv->starter = pthread_self();
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_ALLOW_SUSPEND_RESUME |
                   MHD_USE_ERROR_LOG;
  if(ai->ai_family == AF_INET6)
    flags |= MHD_USE_IPv6;
  srv->daemon = MHD_start_daemon(
    flags, (uint16_t)opt->port, NULL, NULL, on_request, srv, MHD_OPTION_SOCK_ADDR, ai->ai_addr,
    MHD_OPTION_THREAD_POOL_SIZE, pool_threads(), MHD_OPTION_NOTIFY_COMPLETED, request_done, srv,
    MHD_OPTION_NOTIFY_CONNECTION, on_connection, srv, MHD_OPTION_CONNECTION_LIMIT,
    (unsigned)lib_limit, MHD_OPTION_CONNECTION_TIMEOUT, idle, MHD_OPTION_EXTERNAL_LOGGER,
    log_mhd, srv, MHD_OPTION_END);
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
  if(rc && !err[0])
    snprintf(err, errlen, "out of memory");
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
  /* Resume every suspended connection: the callbacks see the server
   * stopping and end their answers, and none is suspended when the
   * library stops (which it requires). */
  pthread_mutex_lock(&s->lock);
  s->stopping = 1;
  atomic_store(&s->stopping_flag, 1);
  while(s->nheap)
    MHD_resume_connection(heap_pop(s));
  pthread_cond_broadcast(&s->wake);
  pthread_mutex_unlock(&s->lock);
  if(s->timer_running)
    pthread_join(s->timer, NULL);
  if(s->daemon)
    MHD_stop_daemon(s->daemon);
  if(s->timed_out || s->evicted || s->refused)
    oc_info("closed %lu connection%s that sent no complete request in time, %lu to make room "
            "for new ones; refused %lu while every connection was busy",
            s->timed_out, s->timed_out == 1 ? "" : "s", s->evicted, s->refused);
  for(size_t i = 0; s->prep && i < s->store->count; i++) {
    free(s->prep[i].w);
    wire_free(atomic_load(&s->prep[i].wire));
  }
  free(s->prep);
  for(size_t i = 0; s->oprep && i < s->overload->store.count; i++) {
    free(s->oprep[i].w);
    wire_free(atomic_load(&s->oprep[i].wire));
  }
  free(s->oprep);
  free(s->heap);
  oc_case_seq_free(s->seq);
  pthread_cond_destroy(&s->wake);
  pthread_mutex_destroy(&s->lock);
  oc_faults_free(&s->faults);
  free(s);
}
