/* sse.c — the text/event-stream push parser of sse.h: WHATWG "parsing an
 * event stream" and "interpreting an event stream", byte for byte, over
 * pieces of any size.  It does no I/O and knows nothing of JSON: chat.c
 * gives the events meaning, the rules give the issues meaning.
 *
 * Speed: lines are found with memchr (CR and LF positions are each
 * searched once per piece), a line that lies inside one piece is handled
 * where it lies, and only a line cut by a piece boundary is copied into
 * the line buffer.  Data is copied once, into the data buffer.  UTF-8 is
 * checked as the bytes arrive (8 ASCII bytes at a time), so a character
 * cut by a piece boundary is fine and the issue names the exact byte. */
#include "config.h"
#include "sse.h"

#include <limits.h>
#include <string.h>

static const unsigned char bom_bytes[3] = {0xEF, 0xBB, 0xBF};

void oc_sse_init(struct oc_sse_parser *p, const struct oc_sse_callbacks *cb, void *ud)
{
  memset(p, 0, sizeof(*p));
  if(cb)
    p->cb = *cb;
  p->ud = ud;
  oc_buf_init(&p->line, OC_CAP_SSE_LINE);
  oc_buf_init(&p->data, OC_CAP_SSE_EVENT);
  oc_buf_init(&p->type, OC_CAP_SSE_LINE);
  oc_buf_init(&p->last_id, OC_CAP_SSE_LINE);
  oc_buf_init(&p->id_buf, OC_CAP_SSE_LINE);
  p->retry = -1;
}

void oc_sse_free(struct oc_sse_parser *p)
{
  if(!p)
    return;
  oc_buf_free(&p->line);
  oc_buf_free(&p->data);
  oc_buf_free(&p->type);
  oc_buf_free(&p->last_id);
  oc_buf_free(&p->id_buf);
}

uint64_t oc_sse_offset(const struct oc_sse_parser *p)
{
  return p->offset;
}

static void issue(struct oc_sse_parser *p, enum oc_sse_issue_kind kind, uint64_t offset, uint64_t t_ns,
                  const char *detail, size_t detail_len)
{
  if(!p->cb.on_issue)
    return;
  struct oc_sse_issue is = {kind, offset, t_ns, detail, detail_len};
  p->cb.on_issue(p->ud, &is);
}

/* ---- UTF-8, checked incrementally ------------------------------------- */

static void utf8_bad(struct oc_sse_parser *p, uint64_t off, uint64_t t)
{
  if(p->line_bad_utf8)
    return; /* once per line: a binary blob must not flood the report */
  p->line_bad_utf8 = 1;
  issue(p, OC_SSE_ISSUE_INVALID_UTF8, off, t, NULL, 0);
}

/* Check n bytes of line content starting at stream offset off.  The
 * sequence state carries over to the next call (next piece). */
static void utf8_check(struct oc_sse_parser *p, const unsigned char *s, size_t n, uint64_t off,
                       uint64_t t)
{
  size_t i = 0;
  while(i < n) {
    if(p->utf8_need) {
      unsigned char c = s[i];
      if(c < p->utf8_lo || c > p->utf8_hi) {
        /* the sequence is broken; c itself may start a new one */
        utf8_bad(p, p->utf8_seq_start, p->utf8_seq_t);
        p->utf8_need = 0;
        continue;
      }
      p->utf8_lo = 0x80;
      p->utf8_hi = 0xBF;
      p->utf8_need--;
      i++;
      continue;
    }
    while(n - i >= 32) {
      uint64_t w[4];
      memcpy(w, s + i, 32);
      if((w[0] | w[1] | w[2] | w[3]) & UINT64_C(0x8080808080808080))
        break;
      i += 32;
    }
    while(n - i >= 8) {
      uint64_t w;
      memcpy(&w, s + i, 8);
      if(w & UINT64_C(0x8080808080808080))
        break;
      i += 8;
    }
    while(i < n && s[i] < 0x80)
      i++;
    if(i >= n)
      break;
    unsigned char c = s[i];
    int need;
    unsigned char lo = 0x80, hi = 0xBF;
    /* RFC 3629 table: no overlongs, no surrogates, nothing past U+10FFFF */
    if(c >= 0xC2 && c <= 0xDF)
      need = 1;
    else if(c == 0xE0) {
      need = 2;
      lo = 0xA0;
    }
    else if(c == 0xED) {
      need = 2;
      hi = 0x9F;
    }
    else if(c >= 0xE1 && c <= 0xEF)
      need = 2;
    else if(c == 0xF0) {
      need = 3;
      lo = 0x90;
    }
    else if(c >= 0xF1 && c <= 0xF3)
      need = 3;
    else if(c == 0xF4) {
      need = 3;
      hi = 0x8F;
    }
    else {
      utf8_bad(p, off + i, t);
      i++;
      continue;
    }
    if(n - i > (size_t)need && s[i + 1] >= lo && s[i + 1] <= hi &&
       (need < 2 || (s[i + 2] & 0xC0) == 0x80) && (need < 3 || (s[i + 3] & 0xC0) == 0x80)) {
      i += (size_t)need + 1; /* whole and well-formed: the common case */
      continue;
    }
    p->utf8_need = need;
    p->utf8_lo = lo;
    p->utf8_hi = hi;
    p->utf8_seq_start = off + i;
    p->utf8_seq_t = t;
    i++;
  }
}

/* A line end (ASCII) cuts any open sequence. */
static void utf8_line_end(struct oc_sse_parser *p)
{
  if(p->utf8_need) {
    utf8_bad(p, p->utf8_seq_start, p->utf8_seq_t);
    p->utf8_need = 0;
  }
  p->line_bad_utf8 = 0;
}

/* ---- interpreting lines ----------------------------------------------- */

static void block_start(struct oc_sse_parser *p, uint64_t first, uint64_t t_first)
{
  if(!p->in_block) {
    p->in_block = 1;
    p->block_first = first;
    p->block_t_first = t_first;
  }
}

static void clear_block(struct oc_sse_parser *p)
{
  oc_buf_reset(&p->data);
  oc_buf_reset(&p->type);
  p->data_lines = 0;
  p->event_dropped = 0;
  p->in_block = 0;
  p->block_fields = 0;
}

/* A blank line ended at end_off: the spec's "dispatch the event". */
static int dispatch(struct oc_sse_parser *p, uint64_t end_off, uint64_t t_end)
{
  if(p->id_changed) {
    /* step 1: the last event ID string takes the buffer, even when
     * nothing is dispatched (an id-only block still commits) */
    oc_buf_reset(&p->last_id);
    int rc = oc_buf_add(&p->last_id, p->id_buf.data, p->id_buf.len);
    if(rc)
      return rc;
    p->id_changed = 0;
  }
  if(p->event_dropped) {
    clear_block(p); /* its cap issue was reported when it happened */
    return OC_OK;
  }
  if(p->data.len == 0) {
    if(p->block_fields)
      issue(p, OC_SSE_ISSUE_NO_DISPATCH, p->block_first, p->block_t_first,
            p->type.len ? p->type.data : "", p->type.len);
    else
      issue(p, OC_SSE_ISSUE_BLANK, p->in_block ? p->block_first : end_off, t_end, NULL, 0);
    clear_block(p);
    return OC_OK;
  }
  p->data.len--; /* the one trailing LF */
  p->data.data[p->data.len] = '\0';
  struct oc_sse_event ev = {
    .index = p->events,
    .type = p->type.len ? p->type.data : "message",
    .type_len = p->type.len ? p->type.len : 7,
    .data = p->data.data,
    .data_len = p->data.len,
    .last_id = p->last_id.len ? p->last_id.data : "",
    .last_id_len = p->last_id.len,
    .retry = p->retry,
    .first_byte = p->block_first,
    .last_byte = end_off,
    .t_first_ns = p->block_t_first,
    .t_last_ns = t_end,
    .data_lines = p->data_lines,
    .data_first = p->data_first,
  };
  p->events++;
  if(p->cb.on_event)
    p->cb.on_event(p->ud, &ev);
  clear_block(p);
  return OC_OK;
}

/* A line too long to keep: note what it was and drop it.  head holds its
 * first bytes (enough to see the field name). */
static void line_overflow(struct oc_sse_parser *p, const char *head, size_t head_len, uint64_t first,
                          uint64_t t_first)
{
  block_start(p, first, t_first);
  size_t name_len = head_len;
  const char *colon = memchr(head, ':', head_len);
  if(colon)
    name_len = (size_t)(colon - head);
  if(head_len && head[0] != ':')
    p->block_fields++;
  if(colon && name_len == 4 && memcmp(head, "data", 4) == 0) {
    /* an event missing one of its data lines would be a lie */
    p->event_dropped = 1;
    oc_buf_reset(&p->data);
  }
  issue(p, OC_SSE_ISSUE_LINE_TOO_LONG, first, t_first, head, name_len);
}

static int set_buf(struct oc_buf *b, const char *v, size_t n)
{
  oc_buf_reset(b);
  return oc_buf_add(b, v, n);
}

static int field(struct oc_sse_parser *p, const char *name, size_t nlen, const char *v, size_t vlen,
                 uint64_t first, uint64_t t_first)
{
  switch(nlen) {
  case 4:
    if(memcmp(name, "data", 4) == 0) {
      if(p->event_dropped)
        return OC_OK;
      if(p->data.len + vlen + 1 > OC_CAP_SSE_EVENT) {
        issue(p, OC_SSE_ISSUE_EVENT_TOO_BIG, first, t_first, NULL, 0);
        p->event_dropped = 1;
        oc_buf_reset(&p->data);
        return OC_OK;
      }
      int rc = oc_buf_add(&p->data, v, vlen);
      if(!rc)
        rc = oc_buf_addc(&p->data, '\n');
      if(!p->data_lines++)
        p->data_first = first + (uint64_t)(v - name);
      return rc;
    }
    break;
  case 5:
    if(memcmp(name, "event", 5) == 0)
      return set_buf(&p->type, v, vlen);
    if(memcmp(name, "retry", 5) == 0) {
      long ms = 0;
      int ok = vlen > 0;
      for(size_t i = 0; ok && i < vlen; i++) {
        if(v[i] < '0' || v[i] > '9' || ms > (LONG_MAX - 9) / 10)
          ok = 0;
        else
          ms = ms * 10 + (v[i] - '0');
      }
      if(ok)
        p->retry = ms;
      else
        issue(p, OC_SSE_ISSUE_RETRY_INVALID, first, t_first, v, vlen);
      return OC_OK;
    }
    break;
  case 2:
    if(memcmp(name, "id", 2) == 0) {
      if(memchr(v, 0, vlen)) {
        issue(p, OC_SSE_ISSUE_ID_NUL, first, t_first, NULL, 0);
        return OC_OK;
      }
      p->id_changed = 1;
      return set_buf(&p->id_buf, v, vlen);
    }
    break;
  default:
    break;
  }
  issue(p, OC_SSE_ISSUE_UNKNOWN_FIELD, first, t_first, name, nlen);
  return OC_OK;
}

/* One complete line (without its line end) that started at stream offset
 * first; its line end is at end_off. */
static int process_line(struct oc_sse_parser *p, const char *l, size_t len, uint64_t first,
                        uint64_t t_first, uint64_t end_off, uint64_t t_end)
{
  if(len == 0)
    return dispatch(p, end_off, t_end);
  block_start(p, first, t_first);
  if(l[0] == ':') {
    if(p->cb.on_comment)
      p->cb.on_comment(p->ud, l, len, first, t_first);
    return OC_OK;
  }
  p->block_fields++;
  const char *colon = memchr(l, ':', len);
  if(!colon)
    return field(p, l, len, l + len, 0, first, t_first);
  size_t nlen = (size_t)(colon - l);
  const char *v = colon + 1;
  size_t vlen = len - nlen - 1;
  if(vlen && *v == ' ') {
    v++;
    vlen--;
  }
  return field(p, l, nlen, v, vlen, first, t_first);
}

/* ---- splitting into lines --------------------------------------------- */

/* Bytes of a line that continues past this piece. */
static int line_add(struct oc_sse_parser *p, const unsigned char *s, size_t n, uint64_t off, uint64_t t)
{
  if(!p->line_pending) {
    p->line_pending = 1;
    p->line_first = off;
    p->line_t_first = t;
  }
  utf8_check(p, s, n, off, t);
  if(p->line_too_long)
    return OC_OK;
  if(n > OC_CAP_SSE_LINE - p->line.len) {
    char head[64];
    size_t have = p->line.len < sizeof(head) ? p->line.len : sizeof(head);
    memcpy(head, p->line.data ? p->line.data : "", have);
    size_t more = sizeof(head) - have < n ? sizeof(head) - have : n;
    memcpy(head + have, s, more);
    line_overflow(p, head, have + more, p->line_first, p->line_t_first);
    oc_buf_reset(&p->line);
    p->line_too_long = 1;
    return OC_OK;
  }
  return oc_buf_add(&p->line, s, n);
}

static int feed(struct oc_sse_parser *p, const unsigned char *s, size_t n, uint64_t t)
{
  uint64_t base = p->offset;
  size_t i = 0;
  int rc = OC_OK;
  if(p->saw_cr && n) { /* an empty piece must not forget the CR */
    p->saw_cr = 0;
    if(s[0] == '\n')
      i = 1; /* the LF of a CRLF cut between pieces */
  }
  const unsigned char *lf = i < n ? memchr(s + i, '\n', n - i) : NULL;
  const unsigned char *cr = i < n ? memchr(s + i, '\r', n - i) : NULL;
  while(i < n) {
    if(lf && lf < s + i)
      lf = memchr(s + i, '\n', n - i);
    if(cr && cr < s + i)
      cr = memchr(s + i, '\r', n - i);
    const unsigned char *e = lf;
    if(cr && (!e || cr < e))
      e = cr;
    if(!e) {
      rc = line_add(p, s + i, n - i, base + i, t);
      i = n;
      break;
    }
    size_t k = (size_t)(e - s);
    if(p->line_pending) {
      rc = line_add(p, s + i, k - i, base + i, t);
      if(rc)
        break;
      utf8_line_end(p);
      if(!p->line_too_long)
        rc = process_line(p, p->line.data ? p->line.data : "", p->line.len, p->line_first,
                          p->line_t_first, base + k, t);
      oc_buf_reset(&p->line);
      p->line_pending = 0;
      p->line_too_long = 0;
    }
    else {
      size_t ln = k - i;
      utf8_check(p, s + i, ln, base + i, t);
      utf8_line_end(p);
      if(ln > OC_CAP_SSE_LINE)
        line_overflow(p, (const char *)s + i, 64, base + i, t);
      else
        rc = process_line(p, (const char *)s + i, ln, base + i, t, base + k, t);
    }
    if(rc)
      break;
    if(*e == '\r') {
      if(k + 1 < n)
        i = k + (s[k + 1] == '\n' ? 2 : 1);
      else {
        p->saw_cr = 1;
        i = n;
      }
    }
    else
      i = k + 1;
  }
  p->offset = base + n;
  return rc;
}

int oc_sse_push(struct oc_sse_parser *p, const void *buf, size_t len, uint64_t t_ns)
{
  const unsigned char *s = buf;
  if(p->bom_state < 3) {
    /* one leading BOM, possibly cut between pieces: hold its bytes until
     * it is complete or turns out not to be one */
    size_t i = 0;
    while(p->bom_state < 3 && i < len && s[i] == bom_bytes[p->bom_state]) {
      if(p->bom_state == 0)
        p->bom_t = t_ns;
      p->bom_state++;
      i++;
    }
    if(p->bom_state == 3) {
      p->offset = 3;
      issue(p, OC_SSE_ISSUE_BOM, 0, p->bom_t, NULL, 0);
    }
    else if(i == len)
      return OC_OK;
    else {
      int held = p->bom_state;
      p->bom_state = 3;
      if(held) {
        int rc = feed(p, bom_bytes, (size_t)held, p->bom_t);
        if(rc)
          return rc;
      }
    }
    s += i;
    len -= i;
  }
  return feed(p, s, len, t_ns);
}

void oc_sse_finish(struct oc_sse_parser *p, uint64_t t_ns)
{
  if(p->bom_state < 3) {
    int held = p->bom_state;
    p->bom_state = 3;
    if(held)
      (void)feed(p, bom_bytes, (size_t)held, p->bom_t);
  }
  p->saw_cr = 0;
  int unterminated = p->in_block && p->block_fields;
  uint64_t at = p->block_first, t_at = p->block_t_first;
  if(p->line_pending) {
    utf8_line_end(p);
    if(!p->line_too_long && p->line.len && p->line.data[0] != ':')
      unterminated = 1;
    if(!p->in_block) {
      at = p->line_first;
      t_at = p->line_t_first;
    }
  }
  if(unterminated)
    issue(p, OC_SSE_ISSUE_UNTERMINATED, at, t_at, NULL, 0);
  (void)t_ns;
  oc_buf_reset(&p->line);
  p->line_pending = 0;
  p->line_too_long = 0;
  clear_block(p);
}
