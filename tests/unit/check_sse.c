/* check_sse.c — the event-stream parser against the team's 85 spec
 * vectors, fed whole, byte by byte, at the vectors' split points and cut
 * at every single offset (all must agree, offsets included); plus our
 * own cases: offsets and arrival times, comments, caps, issues, and the
 * real llama-server stream piece by piece as it came off the wire. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "exchange.h"
#include "json.h"
#include "sse.h"
#include "testutil.h"

/* ---- a collector ------------------------------------------------------ */

struct got_event {
  char *type, *data, *id;
  size_t type_len, data_len;
  long retry;
  uint64_t first, last, t_first, t_last, data_first;
  unsigned data_lines;
  size_t index;
};

struct got_issue {
  enum oc_sse_issue_kind kind;
  uint64_t offset, t;
  char detail[64];
};

struct got {
  struct got_event *ev;
  size_t nev, aev;
  struct got_issue *is;
  size_t nis, ais;
  size_t comments;
  char last_comment[64];
  uint64_t last_comment_off, last_comment_t;
  char *final_id;
  long final_retry;
};

static void on_event(void *ud, const struct oc_sse_event *e)
{
  struct got *g = ud;
  if(g->nev == g->aev) {
    g->aev = g->aev ? 2 * g->aev : 16;
    g->ev = realloc(g->ev, g->aev * sizeof(*g->ev));
    ck_assert_ptr_nonnull(g->ev);
  }
  struct got_event *x = &g->ev[g->nev++];
  ck_assert_int_eq(e->type[e->type_len], 0);
  ck_assert_uint_eq(strlen(e->last_id), e->last_id_len);
  ck_assert_int_eq(e->data[e->data_len], 0);
  x->type = malloc(e->type_len + 1);
  memcpy(x->type, e->type, e->type_len + 1);
  x->type_len = e->type_len;
  x->data = malloc(e->data_len + 1);
  memcpy(x->data, e->data, e->data_len + 1);
  x->data_len = e->data_len;
  x->id = oc_strndup(e->last_id, e->last_id_len);
  x->retry = e->retry;
  x->first = e->first_byte;
  x->last = e->last_byte;
  x->t_first = e->t_first_ns;
  x->t_last = e->t_last_ns;
  x->data_lines = e->data_lines;
  x->data_first = e->data_first;
  x->index = e->index;
}

static void on_issue(void *ud, const struct oc_sse_issue *i)
{
  struct got *g = ud;
  if(g->nis == g->ais) {
    g->ais = g->ais ? 2 * g->ais : 16;
    g->is = realloc(g->is, g->ais * sizeof(*g->is));
    ck_assert_ptr_nonnull(g->is);
  }
  struct got_issue *x = &g->is[g->nis++];
  x->kind = i->kind;
  x->offset = i->offset;
  x->t = i->t_ns;
  size_t n = i->detail_len < sizeof(x->detail) - 1 ? i->detail_len : sizeof(x->detail) - 1;
  memcpy(x->detail, i->detail ? i->detail : "", n);
  x->detail[n] = 0;
}

static void on_comment(void *ud, const char *text, size_t len, uint64_t off, uint64_t t)
{
  struct got *g = ud;
  g->comments++;
  size_t n = len < sizeof(g->last_comment) - 1 ? len : sizeof(g->last_comment) - 1;
  memcpy(g->last_comment, text, n);
  g->last_comment[n] = 0;
  g->last_comment_off = off;
  g->last_comment_t = t;
}

static const struct oc_sse_callbacks callbacks = {on_event, on_issue, on_comment};

static void got_free(struct got *g)
{
  for(size_t i = 0; i < g->nev; i++) {
    free(g->ev[i].type);
    free(g->ev[i].data);
    free(g->ev[i].id);
  }
  free(g->ev);
  free(g->is);
  free(g->final_id);
  memset(g, 0, sizeof(*g));
}

static size_t count_issues(const struct got *g, enum oc_sse_issue_kind kind)
{
  size_t n = 0;
  for(size_t i = 0; i < g->nis; i++)
    n += g->is[i].kind == kind;
  return n;
}

static const struct got_issue *find_issue(const struct got *g, enum oc_sse_issue_kind kind)
{
  for(size_t i = 0; i < g->nis; i++)
    if(g->is[i].kind == kind)
      return &g->is[i];
  return NULL;
}

/* Feed buf cut at the ascending offsets cuts[0..ncuts); piece k arrives
 * at time 1000 * (k + 1). */
static void run(const unsigned char *buf, size_t len, const size_t *cuts, size_t ncuts, struct got *g)
{
  struct oc_sse_parser p;
  memset(g, 0, sizeof(*g));
  oc_sse_init(&p, &callbacks, g);
  size_t at = 0;
  for(size_t k = 0; k <= ncuts; k++) {
    size_t to = k < ncuts ? cuts[k] : len;
    ck_assert_int_eq(oc_sse_push(&p, buf + at, to - at, 1000 * (k + 1)), OC_OK);
    at = to;
  }
  ck_assert_uint_eq(oc_sse_offset(&p), len);
  oc_sse_finish(&p, 1000 * (ncuts + 2));
  g->final_id = oc_strndup(oc_buf_str(&p.last_id), p.last_id.len);
  g->final_retry = p.retry;
  oc_sse_free(&p);
}

/* The same events (offsets included) and the same issues. */
static void assert_same(const struct got *a, const struct got *b, const char *what)
{
  ck_assert_msg(a->nev == b->nev, "%s: %zu events, want %zu", what, b->nev, a->nev);
  for(size_t i = 0; i < a->nev; i++) {
    const struct got_event *x = &a->ev[i], *y = &b->ev[i];
    ck_assert_msg(x->type_len == y->type_len && memcmp(x->type, y->type, x->type_len) == 0 &&
                      x->data_len == y->data_len &&
                      memcmp(x->data, y->data, x->data_len) == 0 && strcmp(x->id, y->id) == 0 &&
                      x->retry == y->retry && x->first == y->first && x->last == y->last &&
                      x->data_lines == y->data_lines && x->data_first == y->data_first &&
                      y->index == i,
                  "%s: event %zu differs", what, i);
  }
  ck_assert_msg(a->nis == b->nis, "%s: %zu issues, want %zu", what, b->nis, a->nis);
  for(size_t i = 0; i < a->nis; i++)
    ck_assert_msg(a->is[i].kind == b->is[i].kind && a->is[i].offset == b->is[i].offset &&
                      strcmp(a->is[i].detail, b->is[i].detail) == 0,
                  "%s: issue %zu differs (kind %d at %llu, want kind %d at %llu)", what, i,
                  b->is[i].kind, (unsigned long long)b->is[i].offset, a->is[i].kind,
                  (unsigned long long)a->is[i].offset);
  ck_assert_str_eq(a->final_id, b->final_id);
  ck_assert_int_eq(a->final_retry, b->final_retry);
}

/* ---- the spec vectors ------------------------------------------------- */

static unsigned char *unhex(const char *hex, size_t *len)
{
  size_t n = strlen(hex) / 2;
  unsigned char *out = malloc(n + 1);
  ck_assert_ptr_nonnull(out);
  for(size_t i = 0; i < n; i++) {
    unsigned v = 0;
    ck_assert(sscanf(hex + 2 * i, "%2x", &v) == 1);
    out[i] = (unsigned char)v;
  }
  out[n] = 0;
  *len = n;
  return out;
}

/* What a browser's UTF-8 decoder makes of bytes: each maximal ill-formed
 * subpart becomes U+FFFD (WHATWG Encoding).  We are byte-transparent, so
 * the vectors that expect U+FFFD are compared after this. */
static char *replace_invalid(const char *s, size_t n, size_t *outlen)
{
  const unsigned char *p = (const unsigned char *)s;
  char *out = malloc(3 * n + 1);
  size_t o = 0, i = 0;
  while(i < n) {
    unsigned char c = p[i];
    size_t need = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if(c < 0x80) {
      out[o++] = (char)c;
      i++;
      continue;
    }
    if(c >= 0xC2 && c <= 0xDF)
      need = 1;
    else if(c >= 0xE0 && c <= 0xEF) {
      need = 2;
      if(c == 0xE0)
        lo = 0xA0;
      if(c == 0xED)
        hi = 0x9F;
    }
    else if(c >= 0xF0 && c <= 0xF4) {
      need = 3;
      if(c == 0xF0)
        lo = 0x90;
      if(c == 0xF4)
        hi = 0x8F;
    }
    size_t k = 1;
    int ok = need > 0;
    while(ok && k <= need) {
      if(i + k >= n || p[i + k] < lo || p[i + k] > hi) {
        ok = 0;
        break;
      }
      lo = 0x80;
      hi = 0xBF;
      k++;
    }
    if(ok) {
      memcpy(out + o, p + i, need + 1);
      o += need + 1;
      i += need + 1;
    }
    else {
      memcpy(out + o, "\xef\xbf\xbd", 3);
      o += 3;
      i += need ? k : 1;
    }
  }
  out[o] = 0;
  *outlen = o;
  return out;
}

static void check_expected(const cJSON *c, const struct got *g, const char *name)
{
  const cJSON *exp = oc_json_arr(c, "expected");
  int invalid = 0;
  const cJSON *tag;
  cJSON_ArrayForEach(tag, oc_json_arr(c, "tags")) invalid |= oc_streq(tag->valuestring, "invalid-utf8");
  ck_assert_msg(g->nev == (size_t)cJSON_GetArraySize(exp), "%s: %zu events, want %d", name, g->nev,
                cJSON_GetArraySize(exp));
  size_t i = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, exp)
  {
    const struct got_event *x = &g->ev[i];
    /* cJSON stops at a NUL, so the one type holding U+0000 is checked
     * up to it here and in full below */
    ck_assert_msg(strcmp(x->type, oc_json_str(e, "event")) == 0, "%s: event %zu type '%s'", name, i,
                  x->type);
    if(oc_streq(name, "spec-nul-in-event-type"))
      ck_assert(x->type_len == 3 && memcmp(x->type, "a\0b", 3) == 0);
    size_t wlen;
    unsigned char *want = unhex(oc_json_str(e, "data_hex"), &wlen);
    size_t dlen = x->data_len;
    char *data = invalid ? replace_invalid(x->data, x->data_len, &dlen) : oc_strndup(x->data, dlen);
    ck_assert_msg(dlen == wlen && memcmp(data, want, wlen) == 0, "%s: event %zu data '%s'", name, i,
                  data);
    free(data);
    free(want);
    ck_assert_msg(strcmp(x->id, oc_json_str(e, "id")) == 0, "%s: event %zu id '%s'", name, i, x->id);
    const cJSON *r = oc_json_get(e, "retry");
    long wr = cJSON_IsNumber(r) ? (long)r->valuedouble : -1;
    ck_assert_msg(x->retry == wr, "%s: event %zu retry %ld, want %ld", name, i, x->retry, wr);
    i++;
  }
  const cJSON *fs = oc_json_obj(c, "final_state");
  ck_assert_msg(strcmp(g->final_id, oc_json_str(fs, "last_event_id")) == 0, "%s: final id '%s'", name,
                g->final_id);
  const cJSON *rt = oc_json_get(fs, "reconnection_time");
  ck_assert_int_eq(g->final_retry, cJSON_IsNumber(rt) ? (long)rt->valuedouble : -1);
  if(oc_streq(name, "spec-invalid-utf8-in-data"))
    ck_assert_msg(count_issues(g, OC_SSE_ISSUE_INVALID_UTF8) == 1, "%s: no INVALID_UTF8 issue", name);
  else if(invalid)
    ck_assert_msg(count_issues(g, OC_SSE_ISSUE_INVALID_UTF8) >= 1, "%s: no INVALID_UTF8 issue", name);
  else
    ck_assert_msg(count_issues(g, OC_SSE_ISSUE_INVALID_UTF8) == 0, "%s: unexpected INVALID_UTF8", name);
}

START_TEST(spec_vectors_every_split)
{
  char *path = oc_test_shared("reference/sse-vectors/vectors.json");
  if(!path)
    return;
  char err[512];
  cJSON *all = oc_json_parse_file(path, err, sizeof(err));
  ck_assert_msg(all != NULL, "%s", err);
  size_t ncases = 0, nevents = 0, runs = 0;
  const cJSON *c;
  cJSON_ArrayForEach(c, all)
  {
    const char *name = oc_json_str(c, "name");
    size_t len;
    unsigned char *bytes = unhex(oc_json_str(c, "input_hex"), &len);
    struct got whole, other;
    run(bytes, len, NULL, 0, &whole);
    check_expected(c, &whole, name);
    /* byte by byte */
    size_t *cuts = malloc((len + 1) * sizeof(*cuts));
    for(size_t k = 1; k < len; k++)
      cuts[k - 1] = k;
    run(bytes, len, cuts, len ? len - 1 : 0, &other);
    assert_same(&whole, &other, name);
    got_free(&other);
    /* the vector's own split points */
    size_t n = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, oc_json_arr(c, "split_at")) cuts[n++] = (size_t)s->valuedouble;
    run(bytes, len, cuts, n, &other);
    check_expected(c, &other, name);
    assert_same(&whole, &other, name);
    got_free(&other);
    /* every single cut into two pieces */
    for(size_t k = 0; k <= len; k++) {
      cuts[0] = k;
      run(bytes, len, cuts, 1, &other);
      assert_same(&whole, &other, name);
      got_free(&other);
      runs++;
    }
    nevents += whole.nev;
    ncases++;
    free(cuts);
    free(bytes);
    got_free(&whole);
  }
  ck_assert_uint_eq(ncases, 85);
  ck_assert_uint_eq(nevents, 109);
  ck_assert_uint_gt(runs, 5000);
  cJSON_Delete(all);
  free(path);
}
END_TEST

/* ---- our own cases ---------------------------------------------------- */

static void run_str(const char *s, struct got *g)
{
  run((const unsigned char *)s, strlen(s), NULL, 0, g);
}

START_TEST(offsets_and_arrival_times)
{
  const char *s = ": hi\ndata: a\n\n\nevent: x\r\ndata: b\r\ndata: c\r\n\r\n";
  size_t cuts[] = {8, 20, 36};
  struct got g;
  run((const unsigned char *)s, strlen(s), cuts, 3, &g);
  ck_assert_uint_eq(g.nev, 2);
  ck_assert_uint_eq(g.ev[0].first, 0); /* the block begins with its comment */
  ck_assert_uint_eq(g.ev[0].last, 13);
  ck_assert_uint_eq(g.ev[0].t_first, 1000);
  ck_assert_uint_eq(g.ev[0].t_last, 2000);
  ck_assert_uint_eq(g.ev[1].first, 15);
  ck_assert_uint_eq(g.ev[1].last, 43); /* the CR of the closing CRLF */
  ck_assert_uint_eq(g.ev[1].t_first, 2000);
  ck_assert_uint_eq(g.ev[1].t_last, 4000);
  ck_assert_str_eq(g.ev[1].type, "x");
  ck_assert_str_eq(g.ev[1].data, "b\nc");
  ck_assert_uint_eq(g.ev[1].data_lines, 2);
  ck_assert_uint_eq(g.ev[0].data_first, 11);
  ck_assert_uint_eq(g.ev[1].data_first, 31);
  ck_assert_uint_eq(g.ev[1].index, 1);
  ck_assert_uint_eq(g.comments, 1);
  ck_assert_str_eq(g.last_comment, ": hi");
  ck_assert_uint_eq(g.last_comment_off, 0);
  /* the stray blank line after the first event ends nothing */
  ck_assert_uint_eq(g.nis, 1);
  ck_assert_uint_eq(count_issues(&g, OC_SSE_ISSUE_BLANK), 1);
  ck_assert_uint_eq(find_issue(&g, OC_SSE_ISSUE_BLANK)->offset, 14);
  got_free(&g);
  /* a BOM moves nothing: offsets stay stream offsets */
  run_str("\xef\xbb\xbf" "data: a\n\n", &g);
  ck_assert_uint_eq(g.nev, 1);
  ck_assert_uint_eq(g.ev[0].first, 3);
  ck_assert_uint_eq(g.ev[0].last, 11);
  ck_assert_uint_eq(count_issues(&g, OC_SSE_ISSUE_BOM), 1);
  got_free(&g);
}
END_TEST

START_TEST(issues_are_reported)
{
  struct got g;
  run_str("error: {\"message\":\"boom\"}\n\n", &g);
  ck_assert_uint_eq(g.nev, 0);
  const struct got_issue *i = find_issue(&g, OC_SSE_ISSUE_UNKNOWN_FIELD);
  ck_assert_ptr_nonnull(i);
  ck_assert_str_eq(i->detail, "error");
  ck_assert_uint_eq(i->offset, 0);
  ck_assert_uint_eq(count_issues(&g, OC_SSE_ISSUE_NO_DISPATCH), 1);
  got_free(&g);

  run_str("data: a\n\ndata: b\n", &g);
  ck_assert_uint_eq(g.nev, 1);
  i = find_issue(&g, OC_SSE_ISSUE_UNTERMINATED);
  ck_assert_ptr_nonnull(i);
  ck_assert_uint_eq(i->offset, 9);
  got_free(&g);

  run_str("data: a\n\ndata: b", &g); /* inside the line */
  ck_assert_uint_eq(count_issues(&g, OC_SSE_ISSUE_UNTERMINATED), 1);
  ck_assert_uint_eq(find_issue(&g, OC_SSE_ISSUE_UNTERMINATED)->offset, 9);
  got_free(&g);

  run_str("data: a\n\n: ping\n", &g); /* a trailing keep-alive is fine */
  ck_assert_uint_eq(g.nis, 0);
  got_free(&g);
  /* keep-alives dispatch nothing; each blank line that ends one is said
   * (openai-python dispatches there once an id was set) */
  run_str(": ping\n\n: ping\n\n", &g);
  ck_assert_uint_eq(g.nis, 2);
  ck_assert_uint_eq(count_issues(&g, OC_SSE_ISSUE_BLANK), 2);
  ck_assert_uint_eq(find_issue(&g, OC_SSE_ISSUE_BLANK)->offset, 0); /* the block's first byte */
  ck_assert_uint_eq(g.comments, 2);
  got_free(&g);
  /* a block of fields without data names its event type */
  run_str("event: ping\n\nid: 7\n\n", &g);
  ck_assert_uint_eq(g.nev, 0);
  ck_assert_uint_eq(count_issues(&g, OC_SSE_ISSUE_NO_DISPATCH), 2);
  ck_assert_str_eq(find_issue(&g, OC_SSE_ISSUE_NO_DISPATCH)->detail, "ping");
  got_free(&g);

  const char idnul[] = "id: a\0b\nretry: 1x\nretry: 99999999999999999999999\ndata: x\n\n";
  run((const unsigned char *)idnul, sizeof(idnul) - 1, NULL, 0, &g);
  ck_assert_uint_eq(count_issues(&g, OC_SSE_ISSUE_ID_NUL), 1);
  ck_assert_uint_eq(count_issues(&g, OC_SSE_ISSUE_RETRY_INVALID), 2);
  ck_assert_uint_eq(find_issue(&g, OC_SSE_ISSUE_RETRY_INVALID)->offset, 8);
  ck_assert_str_eq(find_issue(&g, OC_SSE_ISSUE_RETRY_INVALID)->detail, "1x");
  ck_assert_int_eq(g.ev[0].retry, -1);
  ck_assert_str_eq(g.ev[0].id, "");
  got_free(&g);

  /* invalid UTF-8: the first byte of the bad sequence, once per line */
  run_str("data: a\xe2\x82" "b\xff\xff\n\ndata: \xc3\xa9\xf0\x9f\x98\x80\n\n", &g);
  ck_assert_uint_eq(g.nev, 2);
  ck_assert_uint_eq(count_issues(&g, OC_SSE_ISSUE_INVALID_UTF8), 1);
  ck_assert_uint_eq(find_issue(&g, OC_SSE_ISSUE_INVALID_UTF8)->offset, 7);
  ck_assert_uint_eq(g.ev[0].data_len, 6); /* delivered byte for byte */
  got_free(&g);
  run_str("data: ok\xe2\x82\ndata: x\xed\xa0\x80\n\n", &g); /* cut by a line end; a surrogate */
  ck_assert_uint_eq(count_issues(&g, OC_SSE_ISSUE_INVALID_UTF8), 2);
  ck_assert_uint_eq(g.is[0].offset, 8);
  ck_assert_uint_eq(g.is[1].offset, 18);
  got_free(&g);
  /* a character cut between pieces is fine, byte by byte too */
  const char *heart = "data: \xe2\x99\xa5\xf0\x9f\x98\x80\n\n";
  size_t cuts[16];
  for(size_t k = 0; k < 15; k++)
    cuts[k] = k + 1;
  run((const unsigned char *)heart, strlen(heart), cuts, 15, &g);
  ck_assert_uint_eq(g.nis, 0);
  ck_assert_uint_eq(g.nev, 1);
  got_free(&g);
  /* invalid at the very end of the stream */
  run_str("data: \xe2\x99", &g);
  ck_assert_uint_eq(count_issues(&g, OC_SSE_ISSUE_INVALID_UTF8), 1);
  ck_assert_uint_eq(count_issues(&g, OC_SSE_ISSUE_UNTERMINATED), 1);
  got_free(&g);
  /* a BOM that is not one is data */
  run_str("\xef\xbbx: 1\n\n", &g);
  ck_assert_uint_eq(count_issues(&g, OC_SSE_ISSUE_BOM), 0);
  ck_assert_uint_eq(count_issues(&g, OC_SSE_ISSUE_INVALID_UTF8), 1);
  ck_assert_uint_eq(find_issue(&g, OC_SSE_ISSUE_UNKNOWN_FIELD)->offset, 0);
  got_free(&g);
}
END_TEST

/* A line ten times past the cap, fed in 64 KiB pieces and in one piece:
 * memory stays at the caps, the issue is reported, later events arrive. */
static void big_line_case(size_t piece)
{
  size_t big = 10u << 20;
  const char *tail = "\n\ndata: after\n\n";
  size_t len = 6 + big + strlen(tail);
  unsigned char *buf = malloc(len);
  memcpy(buf, "data: ", 6);
  memset(buf + 6, 'x', big);
  memcpy(buf + 6 + big, tail, strlen(tail));
  struct got g;
  memset(&g, 0, sizeof(g));
  struct oc_sse_parser p;
  oc_sse_init(&p, &callbacks, &g);
  for(size_t at = 0; at < len; at += piece) {
    size_t n = len - at < piece ? len - at : piece;
    ck_assert_int_eq(oc_sse_push(&p, buf + at, n, 1), OC_OK);
    ck_assert_uint_le(p.line.alloc, (size_t)OC_CAP_SSE_LINE + 1);
    ck_assert_uint_le(p.data.alloc, (size_t)OC_CAP_SSE_EVENT + 1);
  }
  oc_sse_finish(&p, 2);
  ck_assert_uint_eq(g.nev, 1);
  ck_assert_str_eq(g.ev[0].data, "after");
  ck_assert_uint_eq(count_issues(&g, OC_SSE_ISSUE_LINE_TOO_LONG), 1);
  const struct got_issue *i = find_issue(&g, OC_SSE_ISSUE_LINE_TOO_LONG);
  ck_assert_uint_eq(i->offset, 0);
  ck_assert_str_eq(i->detail, "data");
  ck_assert_uint_eq(count_issues(&g, OC_SSE_ISSUE_UNTERMINATED), 0);
  oc_sse_free(&p);
  got_free(&g);
  free(buf);
}

START_TEST(caps_are_survived)
{
  big_line_case(64u << 10);
  big_line_case(SIZE_MAX / 2);
  /* three 3 MiB data lines make a 9 MiB event: dropped, later ones arrive */
  size_t line = 3u << 20;
  struct oc_buf b;
  oc_buf_init(&b, 64u << 20);
  for(int k = 0; k < 3; k++) {
    oc_buf_adds(&b, "data: ");
    for(size_t j = 0; j < line; j += 4096) {
      char x[4096];
      memset(x, 'y', sizeof(x));
      oc_buf_add(&b, x, sizeof(x));
    }
    oc_buf_addc(&b, '\n');
  }
  oc_buf_adds(&b, "\ndata: next\n\n");
  struct got g;
  size_t cuts[] = {1000, 5000000, 9000000};
  run((const unsigned char *)b.data, b.len, cuts, 3, &g);
  ck_assert_uint_eq(g.nev, 1);
  ck_assert_str_eq(g.ev[0].data, "next");
  ck_assert_uint_eq(g.ev[0].index, 0);
  ck_assert_uint_eq(count_issues(&g, OC_SSE_ISSUE_EVENT_TOO_BIG), 1);
  ck_assert_uint_eq(find_issue(&g, OC_SSE_ISSUE_EVENT_TOO_BIG)->offset, 2 * (line + 7));
  got_free(&g);
  oc_buf_free(&b);
  /* a too-long comment or unknown field loses nothing else */
  oc_buf_init(&b, 64u << 20);
  oc_buf_adds(&b, "data: keep\n:");
  char x[4096];
  memset(x, 'z', sizeof(x));
  for(size_t j = 0; j < (5u << 20); j += sizeof(x))
    oc_buf_add(&b, x, sizeof(x));
  oc_buf_adds(&b, "\n\n");
  run((const unsigned char *)b.data, b.len, NULL, 0, &g);
  ck_assert_uint_eq(g.nev, 1);
  ck_assert_str_eq(g.ev[0].data, "keep");
  ck_assert_uint_eq(count_issues(&g, OC_SSE_ISSUE_LINE_TOO_LONG), 1);
  ck_assert_uint_eq(g.comments, 0);
  got_free(&g);
  oc_buf_free(&b);
}
END_TEST

/* ---- the real llama-server stream ------------------------------------- */

START_TEST(llama_server_recording)
{
  char *dir = oc_test_shared("recordings/llama-server");
  if(!dir)
    return;
  struct oc_exchange ex, wire;
  char err[512];
  ck_assert_msg(oc_exchange_load(dir, "chat-stream", &ex, err, sizeof(err)) == 0, "%s", err);
  struct got g;
  run((const unsigned char *)ex.body, ex.body_len, NULL, 0, &g);
  ck_assert_uint_eq(g.nev, 19);
  ck_assert_uint_eq(g.nis, 0);
  ck_assert_str_eq(g.ev[18].data, "[DONE]");
  ck_assert_uint_eq(g.ev[18].last, ex.body_len - 1);
  for(size_t i = 0; i < 19; i++) {
    /* data_first maps the data back onto the body, byte for byte */
    ck_assert_uint_eq(g.ev[i].data_lines, 1);
    ck_assert(memcmp(ex.body + g.ev[i].data_first, g.ev[i].data, g.ev[i].data_len) == 0);
    ck_assert_uint_eq(g.ev[i].data_first, g.ev[i].first + 6);
  }
  for(size_t i = 0; i < 18; i++) {
    ck_assert_str_eq(g.ev[i].type, "message");
    ck_assert(oc_startswith(g.ev[i].data, "{\"choices\":"));
    ck_assert_uint_eq(g.ev[i].data_lines, 1);
    if(i)
      ck_assert_uint_eq(g.ev[i].first, g.ev[i - 1].last + 1);
  }
  /* as it came off the wire: the HTTP chunks are the pieces */
  ck_assert_msg(oc_exchange_load(dir, "chat-stream.wire", &wire, err, sizeof(err)) == 0, "%s", err);
  ck_assert_uint_gt(wire.npieces, 1);
  ck_assert_uint_eq(wire.pieces[wire.npieces - 1], wire.body_len);
  struct got w;
  run((const unsigned char *)wire.body, wire.body_len, wire.pieces, wire.npieces - 1, &w);
  ck_assert_uint_eq(w.nev, 19);
  ck_assert_str_eq(w.ev[18].data, "[DONE]");
  if(wire.body_len == ex.body_len && memcmp(wire.body, ex.body, ex.body_len) == 0)
    assert_same(&g, &w, "wire");
  got_free(&g);
  got_free(&w);
  oc_exchange_free(&ex);
  oc_exchange_free(&wire);
  free(dir);
}
END_TEST

/* Empty pieces change nothing, even between the CR and LF of a CRLF. */
START_TEST(empty_pieces)
{
  const char *s = "data: a\r\n\r\ndata: b\r\n\r\n";
  struct got whole, cut;
  run((const unsigned char *)s, strlen(s), NULL, 0, &whole);
  ck_assert_uint_eq(whole.nev, 2);
  size_t cuts[] = {0, 0, 8, 8, 8, 9, 10, 10, 22, 22};
  run((const unsigned char *)s, strlen(s), cuts, OC_ARRAY_LEN(cuts), &cut);
  assert_same(&whole, &cut, "empty pieces");
  got_free(&whole);
  got_free(&cut);
}
END_TEST

/* Random streams over the bytes that matter (field names, colons, spaces,
 * CR, LF, BOM and UTF-8 pieces, NUL): cutting them anywhere, into many
 * pieces, must change nothing. */
START_TEST(random_streams_do_not_depend_on_cuts)
{
  static const char *atoms[] = {"data", "event", "id", "retry", ":", " ", "\r", "\n", "\r\n",
                                "x", "1", "\xef\xbb\xbf", "\xe2\x99\xa5", "\xe2", "\xff", "\0",
                                ": c\n", "data: {}\n\n", "\n\n"};
  unsigned seed = 12345;
  unsigned char buf[512];
  for(int round = 0; round < 3000; round++) {
    size_t len = 0;
    int natoms = 1 + (int)(rand_r(&seed) % 60);
    for(int k = 0; k < natoms; k++) {
      size_t a = (size_t)rand_r(&seed) % OC_ARRAY_LEN(atoms);
      size_t n = a == 15 ? 1 : strlen(atoms[a]);
      if(len + n > sizeof(buf))
        break;
      memcpy(buf + len, atoms[a], n);
      len += n;
    }
    struct got whole, cut;
    run(buf, len, NULL, 0, &whole);
    size_t cuts[8], ncuts = (size_t)rand_r(&seed) % 8;
    for(size_t k = 0; k < ncuts; k++)
      cuts[k] = len ? (size_t)rand_r(&seed) % (len + 1) : 0;
    for(size_t a = 0; a < ncuts; a++) /* ascending */
      for(size_t b = a + 1; b < ncuts; b++)
        if(cuts[b] < cuts[a]) {
          size_t t = cuts[a];
          cuts[a] = cuts[b];
          cuts[b] = t;
        }
    run(buf, len, cuts, ncuts, &cut);
    assert_same(&whole, &cut, "random stream");
    got_free(&cut);
    got_free(&whole);
  }
}
END_TEST

START_TEST(parser_reusable_after_free)
{
  struct oc_sse_parser p;
  struct got g;
  memset(&g, 0, sizeof(g));
  oc_sse_init(&p, &callbacks, &g);
  ck_assert_int_eq(oc_sse_push(&p, "data: 1\n\n", 9, 5), OC_OK);
  oc_sse_free(&p);
  oc_sse_free(NULL);
  oc_sse_init(&p, NULL, NULL); /* no callbacks at all */
  ck_assert_int_eq(oc_sse_push(&p, "data: 1\n\nbad\n", 13, 5), OC_OK);
  oc_sse_finish(&p, 6);
  oc_sse_free(&p);
  ck_assert_uint_eq(g.nev, 1);
  got_free(&g);
}
END_TEST

static Suite *sse_suite(void)
{
  Suite *s = suite_create("sse");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, spec_vectors_every_split);
  tcase_add_test(tc, offsets_and_arrival_times);
  tcase_add_test(tc, issues_are_reported);
  tcase_add_test(tc, caps_are_survived);
  tcase_add_test(tc, llama_server_recording);
  tcase_add_test(tc, empty_pieces);
  tcase_add_test(tc, random_streams_do_not_depend_on_cuts);
  tcase_add_test(tc, parser_reusable_after_free);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return oc_test_run(sse_suite());
}
