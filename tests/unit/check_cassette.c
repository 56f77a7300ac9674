/* check_cassette.c — cassettes: binary-safe round trips, secrets never
 * written, request keys, import of raw exchanges, errors that name the
 * file, and the store's lookups (first directory wins, nearest). */
#define _GNU_SOURCE /* memmem */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cassette.h"
#include "testutil.h"

/* A fresh temporary directory (caller frees the name; files are left to
 * the system's tmp cleaning only when a test fails midway). */
static char *tmpdir_new(void)
{
  const char *t = getenv("TMPDIR");
  char *tmpl = oc_asprintf("%s/check_cassette.XXXXXX", t && *t ? t : "/tmp");
  ck_assert_ptr_nonnull(tmpl);
  ck_assert_ptr_nonnull(mkdtemp(tmpl));
  return tmpl;
}

static void rm_rf(const char *dir)
{
  char *cmd = oc_asprintf("rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
  free(cmd);
}

static void put(const char *dir, const char *name, const void *p, size_t n)
{
  char err[256];
  char *path = oc_path_join(dir, name);
  ck_assert_int_eq(oc_write_file(path, p, n, err, sizeof(err)), 0);
  free(path);
}

static void fill(struct oc_cassette *c, const char *name, const char *body_json)
{
  oc_cassette_init(c);
  c->name = oc_strdup(name);
  c->method = oc_strdup("POST");
  c->path = oc_strdup("/v1/chat/completions");
  c->req_body = oc_strdup(body_json);
  c->req_body_len = strlen(body_json);
  c->status = 200;
  c->reason = oc_strdup("OK");
  c->http_version = oc_strdup("HTTP/1.1");
  ck_assert_int_eq(oc_headers_add(&c->headers, "Content-Type", "application/json"), 0);
  ck_assert_int_eq(oc_cassette_add_piece(c, "{\"ok\":true}", 11, 0), 0);
  ck_assert_int_eq(oc_cassette_update_key(c), 0);
}

static void write_in(const char *dir, const struct oc_cassette *c)
{
  char err[256];
  char *file = oc_asprintf("%s/%s%s", dir, c->name, OC_CASSETTE_EXT);
  ck_assert_int_eq(oc_cassette_write(file, c, err, sizeof(err)), 0);
  free(file);
}

START_TEST(round_trip_is_byte_exact)
{
  static const char body[] = "data: {\"a\":1}\n\n\0\xff\xfe" "data: \xc3\x28\n\ndata: [DONE]\n\n";
  size_t blen = sizeof(body) - 1;
  static const char req[] = "{\"x\":\"\xe2\x82\xac\"}\0tail";
  size_t rlen = sizeof(req) - 1;
  struct oc_cassette c, d;
  char err[512];
  char *dir = tmpdir_new();
  oc_cassette_init(&c);
  c.name = oc_strdup("bin");
  c.method = oc_strdup("POST");
  c.path = oc_strdup("/v1/chat/completions");
  c.req_body = oc_strndup(req, rlen);
  c.req_body_len = rlen;
  c.status = 200;
  c.reason = oc_strdup("OK");
  c.timing_recorded = 1;
  c.headers_ns = 1000;
  c.source = oc_strdup("unit test");
  c.recorded_at = oc_strdup("2026-11-30T02:50:53Z");
  c.server = oc_strdup("llama.cpp b1");
  c.note = oc_strdup("a note");
  c.test_only = 1;
  ck_assert_int_eq(oc_headers_add(&c.headers, "Content-Type", "text/event-stream"), 0);
  ck_assert_int_eq(oc_headers_add(&c.headers, "Access-Control-Allow-Origin", ""), 0);
  ck_assert_int_eq(oc_cassette_add_piece(&c, body, 16, 5000), 0);
  ck_assert_int_eq(oc_cassette_add_piece(&c, body + 16, 3, 6000), 0);
  ck_assert_int_eq(oc_cassette_add_piece(&c, body + 19, blen - 19, 9000000000ull), 0);
  ck_assert_int_eq(oc_cassette_update_key(&c), 0);
  write_in(dir, &c);
  char *file = oc_asprintf("%s/bin%s", dir, OC_CASSETTE_EXT);
  ck_assert_int_eq(oc_cassette_read(file, &d, err, sizeof(err)), 0);
  ck_assert_str_eq(d.name, "bin");
  ck_assert_str_eq(d.file, file);
  ck_assert_str_eq(d.method, "POST");
  ck_assert_str_eq(d.path, "/v1/chat/completions");
  ck_assert_uint_eq(d.req_body_len, rlen);
  ck_assert_mem_eq(d.req_body, req, rlen);
  ck_assert_int_eq(d.status, 200);
  ck_assert_str_eq(d.reason, "OK");
  ck_assert_uint_eq(d.body_len, blen);
  ck_assert_mem_eq(d.body, body, blen);
  ck_assert_str_eq(oc_headers_get(&d.headers, "content-type"), "text/event-stream");
  ck_assert_str_eq(oc_headers_get(&d.headers, "Access-Control-Allow-Origin"), "");
  ck_assert_int_eq(d.timing_recorded, 1);
  ck_assert(d.headers_ns == 1000);
  ck_assert_uint_eq(d.npieces, 3);
  ck_assert_uint_eq(d.pieces[0].end, 16);
  ck_assert_uint_eq(d.pieces[1].end, 19);
  ck_assert_uint_eq(d.pieces[2].end, blen);
  ck_assert(d.pieces[0].t_ns == 5000 && d.pieces[2].t_ns == 9000000000ull);
  ck_assert_str_eq(d.key, c.key);
  ck_assert_str_eq(d.source, "unit test");
  ck_assert_str_eq(d.recorded_at, "2026-11-30T02:50:53Z");
  ck_assert_str_eq(d.server, "llama.cpp b1");
  ck_assert_str_eq(d.note, "a note");
  ck_assert_int_eq(d.test_only, 1);
  ck_assert_int_eq(d.complete, 1);
  /* encoding is deterministic: the same cassette gives the same bytes */
  char *a = NULL, *b = NULL;
  size_t al = 0, bl = 0;
  ck_assert_int_eq(oc_cassette_encode(&c, &a, &al, err, sizeof(err)), 0);
  ck_assert_int_eq(oc_cassette_encode(&d, &b, &bl, err, sizeof(err)), 0);
  ck_assert_uint_eq(al, bl);
  ck_assert_mem_eq(a, b, al);
  free(a);
  free(b);
  free(file);
  oc_cassette_free(&c);
  oc_cassette_free(&d);
  rm_rf(dir);
  free(dir);
}
END_TEST

START_TEST(no_body_and_no_pieces_round_trip)
{
  struct oc_cassette c, d;
  char err[512];
  char *gz = NULL;
  size_t gzlen = 0;
  oc_cassette_init(&c);
  c.name = oc_strdup("health");
  c.method = oc_strdup("GET");
  c.path = oc_strdup("/health");
  c.status = 204;
  c.body = oc_strdup("");
  ck_assert_int_eq(oc_cassette_encode(&c, &gz, &gzlen, err, sizeof(err)), 0);
  ck_assert_int_eq(oc_cassette_decode(gz, gzlen, "mem", &d, err, sizeof(err)), 0);
  ck_assert_ptr_null(d.req_body);
  ck_assert_uint_eq(d.body_len, 0);
  ck_assert_uint_eq(d.npieces, 0);
  ck_assert_int_eq(d.timing_recorded, 0);
  ck_assert_int_eq(d.status, 204);
  ck_assert_ptr_null(d.source);
  free(gz);
  oc_cassette_free(&c);
  oc_cassette_free(&d);
}
END_TEST

/* Record mode counts the files it left, not its writes: a case run again
 * alone rewrites its cassette, and that is still one; nothing is kept
 * before the tally starts or after it stops. */
START_TEST(tally_counts_distinct_files)
{
  char *dir = tmpdir_new();
  struct oc_cassette a, b;
  fill(&a, "plain.a", "{\"model\":\"m\"}");
  fill(&b, "plain.b", "{\"model\":\"n\"}");
  write_in(dir, &a); /* before the tally: not counted */
  oc_cassette_tally_start();
  write_in(dir, &a);
  write_in(dir, &b);
  write_in(dir, &a);
  char err[256];
  char *bad = oc_asprintf("%s/no/such/dir/x%s", dir, OC_CASSETTE_EXT);
  ck_assert_int_ne(oc_cassette_write(bad, &a, err, sizeof(err)), 0); /* failed: not counted */
  int lost = 1;
  ck_assert_uint_eq(oc_cassette_tally_stop(&lost), 2);
  ck_assert_int_eq(lost, 0);
  write_in(dir, &b);
  oc_cassette_tally_start();
  ck_assert_uint_eq(oc_cassette_tally_stop(NULL), 0);
  free(bad);
  oc_cassette_free(&a);
  oc_cassette_free(&b);
  rm_rf(dir);
  free(dir);
}
END_TEST

START_TEST(secrets_never_written)
{
  struct oc_cassette c;
  char err[512];
  char *gz = NULL, *raw = NULL;
  size_t gzlen = 0, rawlen = 0;
  fill(&c, "secret", "{\"model\":\"m\"}");
  ck_assert_int_eq(oc_headers_add(&c.req_headers, "Authorization", "Bearer sk-SECRET-AUTH-1"), 0);
  ck_assert_int_eq(oc_headers_add(&c.req_headers, "x-api-key", "SECRET-XAPI-2"), 0);
  ck_assert_int_eq(oc_headers_add(&c.req_headers, "X-Custom-Token", "SECRET-TOKEN-3"), 0);
  ck_assert_int_eq(oc_headers_add(&c.req_headers, "Content-Type", "application/json"), 0);
  ck_assert_int_eq(oc_headers_add(&c.headers, "Set-Cookie", "session=SECRET-COOKIE-4"), 0);
  ck_assert_int_eq(oc_cassette_encode(&c, &gz, &gzlen, err, sizeof(err)), 0);
  ck_assert_int_eq(oc_gunzip(gz, gzlen, OC_CAP_CASSETTE, &raw, &rawlen), 0);
  ck_assert_ptr_null(memmem(raw, rawlen, "SECRET", 6));
  ck_assert_ptr_null(memmem(raw, rawlen, "Authorization", 13));
  ck_assert_ptr_null(memmem(raw, rawlen, "x-api-key", 9));
  /* what is not secret is kept */
  ck_assert_ptr_nonnull(memmem(raw, rawlen, "application/json", 16));
  free(gz);
  free(raw);
  oc_cassette_free(&c);
}
END_TEST

START_TEST(keys_are_canonical)
{
  char a[65], b[65], c[65], d[65], e[65], f[65];
  const char *x = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"n\":1.0}";
  const char *y = "{ \"messages\" : [ { \"content\":\"hi\", \"role\":\"user\" } ],\n \"n\":1, \"model\":\"m\" }";
  const char *z = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi!\"}],\"n\":1}";
  ck_assert_int_eq(oc_cassette_request_key("POST", "/v1/chat/completions", x, strlen(x), a), 0);
  ck_assert_int_eq(oc_cassette_request_key("POST", "/v1/chat/completions", y, strlen(y), b), 0);
  ck_assert_int_eq(oc_cassette_request_key("POST", "/v1/chat/completions", z, strlen(z), c), 0);
  ck_assert_int_eq(oc_cassette_request_key("POST", "/v1/completions", x, strlen(x), d), 0);
  ck_assert_uint_eq(strlen(a), 64);
  ck_assert_str_eq(a, b);
  ck_assert_str_ne(a, c);
  ck_assert_str_ne(a, d);
  /* a body that is not JSON is keyed by its raw bytes */
  const char *bad1 = "{\"model\": \"m\", \"messages\": [";
  const char *bad2 = "{\"model\":\"m\",\"messages\":[";
  ck_assert_int_eq(oc_cassette_request_key("POST", "/p", bad1, strlen(bad1), e), 0);
  ck_assert_int_eq(oc_cassette_request_key("POST", "/p", bad2, strlen(bad2), f), 0);
  ck_assert_str_ne(e, f);
  /* no body and an empty body are the same request; GET differs from POST */
  ck_assert_int_eq(oc_cassette_request_key("GET", "/health", NULL, 0, e), 0);
  ck_assert_int_eq(oc_cassette_request_key("GET", "/health", "", 0, f), 0);
  ck_assert_str_eq(e, f);
  ck_assert_int_eq(oc_cassette_request_key("POST", "/health", NULL, 0, f), 0);
  ck_assert_str_ne(e, f);
  /* stable across versions: SHA-256 of "GET\0/health\0" */
  ck_assert_int_eq(oc_cassette_request_key("GET", "/health", NULL, 0, e), 0);
  ck_assert_str_eq(e, "e46a5c62b2c5cffafa290e3036183a54c0ae9e19376d558dda0146eac7deb28d");
}
END_TEST

/* A body keyed as it arrives gets the key of the whole body; one that
 * cannot be JSON is hashed on the way and not kept; the cap holds. */
START_TEST(keys_in_pieces)
{
  const char *bodies[] = {
    "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"h\\u00e9 \\\"x\\\"\\n\"}],\"n\":1.5e3}",
    "  \n[1,2,{\"b\":null,\"a\":[true,false]}]",
    "model=m&messages=hi",
    "{\"model\": \"m\", \"messages\": [",
    "{\"a\":1,\"a\":2}",
    "   ",
    "",
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(bodies); i++) {
    const char *b = bodies[i];
    size_t n = strlen(b);
    char whole[65], piecewise[65];
    ck_assert_int_eq(oc_cassette_request_key("POST", "/p", b, n, whole), 0);
    for(size_t step = 1; step <= 7; step += 3) {
      struct oc_keyer k;
      oc_keyer_init(&k, 1000);
      ck_assert_int_eq(oc_keyer_begin(&k, "POST", "/p"), 0);
      for(size_t off = 0; off < n; off += step)
        ck_assert_int_eq(oc_keyer_add(&k, b + off, n - off < step ? n - off : step), 0);
      ck_assert_int_eq(oc_keyer_end(&k, piecewise), 0);
      ck_assert_msg(strcmp(whole, piecewise) == 0, "body %zu in %zu-byte pieces", i, step);
      size_t len = 0;
      const char *kept = oc_keyer_body(&k, &len);
      if(i == 2) {
        ck_assert_ptr_null(kept); /* form data cannot be JSON: streamed, not kept */
        ck_assert_uint_eq(oc_keyer_held(&k), 0);
      }
      else {
        ck_assert_uint_eq(len, n);
        if(n)
          ck_assert_mem_eq(kept, b, n);
      }
      oc_keyer_free(&k);
    }
  }
  /* the cap counts every byte, kept or streamed */
  struct oc_keyer k;
  oc_keyer_init(&k, 8);
  ck_assert_int_eq(oc_keyer_begin(&k, "POST", "/p"), 0);
  ck_assert_int_eq(oc_keyer_add(&k, "xxxxxx", 6), 0);
  ck_assert_int_eq(oc_keyer_add(&k, "xxx", 3), OC_ETOOBIG);
  oc_keyer_free(&k);
  /* a number keeps its value, not its spelling; keys sort by UTF-16 units */
  char a[65], b[65];
  ck_assert_int_eq(oc_cassette_request_key("POST", "/p", "{\"n\":1e2,\"\xef\xbd\xa1\":0,\"\xf0\x9f\x98\x80\":1}", 26, a), 0);
  ck_assert_int_eq(oc_cassette_request_key("POST", "/p", "{\"\xf0\x9f\x98\x80\":1,\"n\":100,\"\xef\xbd\xa1\":0}", 26, b), 0);
  ck_assert_str_eq(a, b);
}
END_TEST

static long peak_rss_kb(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* Keying a big JSON body holds the body and the parser's copy of its
 * strings, never a canonical copy besides (issue 18: 170 MB for 64 MiB). */
START_TEST(keying_a_big_body_makes_no_canonical_copy)
{
  size_t fill = 48u << 20;
  const char *head = "{\"messages\":[{\"role\":\"user\",\"content\":\"";
  const char *tail = "\"}],\"model\":\"m\"}";
  size_t n = strlen(head) + fill + strlen(tail);
  char *body = malloc(n + 1);
  ck_assert_ptr_nonnull(body);
  memcpy(body, head, strlen(head));
  memset(body + strlen(head), 'x', fill);
  memcpy(body + strlen(head) + fill, tail, strlen(tail) + 1);
  long before = peak_rss_kb();
  char key[65];
  ck_assert_int_eq(oc_cassette_request_key("POST", "/v1/chat/completions", body, n, key), 0);
  long grew_kb = peak_rss_kb() - before;
  ck_assert_msg(grew_kb < (long)(fill / 1024) * 3 / 2,
                "keying a %zu MiB body took %ld MiB more at its peak", fill >> 20, grew_kb / 1024);
  free(body);
}
END_TEST

/* The inline exchange: the importer keeps status, headers and body bytes. */
START_TEST(import_equals_source)
{
  const char *raw = "HTTP/1.1 200 OK\r\nServer: llama.cpp\r\nContent-Type: text/event-stream\r\n"
                    "Transfer-Encoding: chunked\r\n\r\n"
                    "6\r\ndata: \r\n8\r\n{}\n\ndata\r\n9\r\n: [DONE]\n\r\n1\r\n\n\r\n0\r\n\r\n";
  struct oc_exchange ex;
  struct oc_cassette c, d;
  char err[512];
  char *gz = NULL;
  size_t gzlen = 0;
  ck_assert_int_eq(oc_exchange_parse_response(raw, strlen(raw), 1, &ex, err, sizeof(err)), 0);
  ex.name = oc_strdup("wire");
  ex.method = oc_strdup("POST");
  ex.path = oc_strdup("/v1/chat/completions");
  ex.request = oc_strdup("{\"stream\":true}");
  ex.request_len = strlen(ex.request);
  ck_assert_int_eq(oc_cassette_from_exchange(&ex, &c), 0);
  ck_assert_int_eq(oc_cassette_encode(&c, &gz, &gzlen, err, sizeof(err)), 0);
  ck_assert_int_eq(oc_cassette_decode(gz, gzlen, "mem", &d, err, sizeof(err)), 0);
  ck_assert_int_eq(d.status, ex.status);
  ck_assert_str_eq(d.reason, ex.reason);
  ck_assert_uint_eq(d.headers.count, ex.headers.count);
  for(size_t i = 0; i < ex.headers.count; i++) {
    ck_assert_str_eq(d.headers.items[i].name, ex.headers.items[i].name);
    ck_assert_str_eq(d.headers.items[i].value, ex.headers.items[i].value);
  }
  ck_assert_uint_eq(d.body_len, ex.body_len);
  ck_assert_mem_eq(d.body, ex.body, ex.body_len);
  ck_assert_uint_eq(d.npieces, ex.npieces);
  for(size_t i = 0; i < ex.npieces; i++)
    ck_assert_uint_eq(d.pieces[i].end, ex.pieces[i]);
  ck_assert_int_eq(d.timing_recorded, 0);
  ck_assert_str_eq(d.req_body, "{\"stream\":true}");
  ck_assert_int_eq(d.test_only, 0);
  free(gz);
  oc_exchange_free(&ex);
  oc_cassette_free(&c);
  oc_cassette_free(&d);
}
END_TEST

/* Every shipped llama-server recording converts to a cassette equal to it. */
START_TEST(import_shared_recordings)
{
  char *dir = oc_test_shared("recordings/llama-server");
  if(!dir)
    return;
  const char *names[] = { "chat-stream", "chat-stream.wire", "health", "bad-invalid-json",
                          "tools-required-steered-stream" };
  for(size_t i = 0; i < OC_ARRAY_LEN(names); i++) {
    struct oc_exchange ex;
    struct oc_cassette c, d;
    char err[512];
    char *gz = NULL;
    size_t gzlen = 0;
    ck_assert_msg(oc_exchange_load(dir, names[i], &ex, err, sizeof(err)) == 0, "%s", err);
    ck_assert_int_eq(oc_cassette_from_exchange(&ex, &c), 0);
    ck_assert_int_eq(oc_cassette_encode(&c, &gz, &gzlen, err, sizeof(err)), 0);
    ck_assert_int_eq(oc_cassette_decode(gz, gzlen, names[i], &d, err, sizeof(err)), 0);
    ck_assert_int_eq(d.status, ex.status);
    ck_assert_uint_eq(d.headers.count, ex.headers.count);
    ck_assert_uint_eq(d.body_len, ex.body_len);
    ck_assert_mem_eq(d.body, ex.body, ex.body_len);
    ck_assert_uint_eq(d.req_body_len, ex.request_len);
    if(ex.request_len)
      ck_assert_mem_eq(d.req_body, ex.request, ex.request_len);
    ck_assert_uint_eq(d.npieces, ex.npieces);
    ck_assert_int_eq(d.timing_recorded, 0);
    ck_assert_int_eq(d.test_only, ex.note != NULL);
    free(gz);
    oc_exchange_free(&ex);
    oc_cassette_free(&c);
    oc_cassette_free(&d);
  }
  free(dir);
}
END_TEST

START_TEST(malformed_cassettes_name_the_file)
{
  struct oc_cassette c, d;
  char err[512];
  char *gz = NULL;
  size_t gzlen = 0;
  fill(&c, "ok", "{}");
  ck_assert_int_eq(oc_cassette_encode(&c, &gz, &gzlen, err, sizeof(err)), 0);
  /* truncated gzip */
  ck_assert_int_ne(oc_cassette_decode(gz, gzlen / 2, "cut.cassette.gz", &d, err, sizeof(err)), 0);
  ck_assert_msg(strstr(err, "cut.cassette.gz: ") == err, "%s", err);
  ck_assert_msg(strstr(err, "truncated") != NULL, "%s", err);
  /* corrupt gzip */
  gz[gzlen / 2] ^= 0x55;
  gz[gzlen / 2 + 1] ^= 0x55;
  ck_assert_int_ne(oc_cassette_decode(gz, gzlen, "bad.cassette.gz", &d, err, sizeof(err)), 0);
  ck_assert_msg(strstr(err, "bad.cassette.gz: ") == err, "%s", err);
  free(gz);
  /* not gzip at all */
  ck_assert_int_ne(oc_cassette_decode("hello", 5, "plain.txt", &d, err, sizeof(err)), 0);
  ck_assert_msg(strstr(err, "plain.txt: ") == err, "%s", err);
  /* valid gzip, bad metadata */
  const char *metas[][2] = {
    { "not json\n", "not JSON" },
    { "{\"x\":1}\n", "not an oacheck cassette" },
    { "{\"oacheck_cassette\":99,\"request\":{},\"response\":{}}\n", "version 99" },
    { "{\"oacheck_cassette\":1,\"request\":{\"method\":\"GET\"},\"response\":{}}\n", "request/path" },
    { "{\"oacheck_cassette\":1,\"request\":{\"method\":\"GET\",\"path\":\"/\"},"
      "\"response\":{\"status\":200,\"body_bytes\":10}}\nshort", "5 bytes follow" },
    { "{\"oacheck_cassette\":1,\"request\":{\"method\":\"GET\",\"path\":\"/\"},"
      "\"response\":{\"status\":\"200\",\"body_bytes\":0}}\n", "response/status" },
    { "{\"oacheck_cassette\":1,\"request\":{\"method\":\"GET\",\"path\":\"/\"},"
      "\"response\":{\"status\":200,\"body_bytes\":4},\"timing\":{\"piece_ends\":[3,2]}}\nabcd",
      "piece_ends/1" },
    { "{\"oacheck_cassette\":1,\"request\":{\"method\":\"GET\",\"path\":\"/\"},"
      "\"response\":{\"status\":200,\"body_bytes\":4},\"timing\":{\"piece_ends\":[3]}}\nabcd",
      "cover 3 bytes" },
    { "{\"oacheck_cassette\":1,\"request\":{\"method\":\"GET\",\"path\":\"/\","
      "\"headers\":[[\"a\"]]},\"response\":{\"status\":200,\"body_bytes\":0}}\n", "headers/0" },
    { "nonewline", "no metadata line" },
  };
  for(size_t i = 0; i < OC_ARRAY_LEN(metas); i++) {
    ck_assert_int_eq(oc_gzip(metas[i][0], strlen(metas[i][0]), &gz, &gzlen), 0);
    ck_assert_int_ne(oc_cassette_decode(gz, gzlen, "m.cassette.gz", &d, err, sizeof(err)), 0);
    ck_assert_msg(strstr(err, "m.cassette.gz: ") == err, "%s", err);
    ck_assert_msg(strstr(err, metas[i][1]) != NULL, "case %zu: '%s' not in '%s'", i, metas[i][1],
                  err);
    ck_assert_ptr_null(d.method);
    free(gz);
  }
  /* a missing file */
  ck_assert_int_ne(oc_cassette_read("/nonexistent/x.cassette.gz", &d, err, sizeof(err)), 0);
  ck_assert_ptr_nonnull(strstr(err, "/nonexistent/x.cassette.gz"));
  /* an inconsistent cassette is not written */
  c.pieces[0].end = 3;
  ck_assert_int_ne(oc_cassette_encode(&c, &gz, &gzlen, err, sizeof(err)), 0);
  ck_assert_ptr_nonnull(strstr(err, "cover"));
  oc_cassette_free(&c);
}
END_TEST

struct errs {
  int n;
  char last[512];
};

static void collect(void *ctx, const char *msg)
{
  struct errs *e = ctx;
  e->n++;
  oc_strlcpy(e->last, msg, sizeof(e->last));
}

START_TEST(store_lookups_and_first_dir_wins)
{
  char *d1 = tmpdir_new(), *d2 = tmpdir_new();
  struct oc_cassette a, b, b2, x;
  fill(&a, "alpha", "{\"model\":\"m\",\"max_tokens\":1}");
  fill(&b, "beta", "{\"model\":\"m\",\"max_tokens\":2}");
  fill(&b2, "beta-again", "{\"max_tokens\":2, \"model\":\"m\"}"); /* same key as beta */
  free(b2.reason);
  b2.reason = oc_strdup("From d2");
  write_in(d1, &a);
  write_in(d1, &b);
  write_in(d2, &b2);
  /* a second "alpha" in d2 under a different request */
  fill(&x, "alpha", "{\"model\":\"m\",\"max_tokens\":9}");
  write_in(d2, &x);
  /* a broken file in d1: reported, the rest loads */
  put(d1, "broken" OC_CASSETTE_EXT, "garbage", 7);
  struct oc_cassette_store s;
  struct errs e = { 0 };
  const char *dirs[] = { d1, d2 };
  oc_cassette_store_init(&s);
  ck_assert_int_eq(oc_cassette_store_load(&s, dirs, 2, collect, &e), OC_EPARSE);
  ck_assert_int_eq(e.n, 1);
  ck_assert_msg(strstr(e.last, "broken" OC_CASSETTE_EXT) != NULL, "%s", e.last);
  ck_assert_uint_eq(s.count, 4);
  const struct oc_cassette *f = oc_cassette_store_find_key(&s, b.key);
  ck_assert_ptr_nonnull(f);
  ck_assert_str_eq(f->name, "beta"); /* d1 wins over d2's beta-again */
  f = oc_cassette_store_find_name(&s, "beta-again");
  ck_assert_ptr_nonnull(f);
  ck_assert_str_eq(f->reason, "From d2");
  f = oc_cassette_store_find_name(&s, "alpha");
  ck_assert_str_eq(f->key, a.key); /* d1's alpha */
  f = oc_cassette_store_find_key(&s, x.key);
  ck_assert_ptr_nonnull(f); /* d2's alpha still reachable by its key */
  ck_assert_ptr_null(oc_cassette_store_find_name(&s, "gamma"));
  ck_assert_ptr_null(oc_cassette_store_find_key(&s, "0000"));
  oc_cassette_store_free(&s);
  /* the other order: d2 first */
  const char *rdirs[] = { d2, d1 };
  oc_cassette_store_init(&s);
  memset(&e, 0, sizeof(e));
  oc_cassette_store_load(&s, rdirs, 2, collect, &e);
  ck_assert_str_eq(oc_cassette_store_find_key(&s, b.key)->name, "beta-again");
  oc_cassette_store_free(&s);
  /* a missing directory is reported; the others still load */
  const char *mdirs[] = { "/nonexistent-oacheck-dir", d1 };
  oc_cassette_store_init(&s);
  memset(&e, 0, sizeof(e));
  ck_assert_int_eq(oc_cassette_store_load(&s, mdirs, 2, collect, &e), OC_ENOTFOUND);
  ck_assert_uint_eq(s.count, 2);
  oc_cassette_store_free(&s);
  oc_cassette_free(&a);
  oc_cassette_free(&b);
  oc_cassette_free(&b2);
  oc_cassette_free(&x);
  rm_rf(d1);
  rm_rf(d2);
  free(d1);
  free(d2);
}
END_TEST

/* Within one directory a timed recording of a request answers before an
 * untimed one of the same request (a live recording's case beside its
 * identification request); across directories the first still wins. */
START_TEST(store_prefers_timed_within_a_directory)
{
  char *d1 = tmpdir_new(), *d2 = tmpdir_new();
  struct oc_cassette ident, kase, other;
  fill(&ident, "identify-props-x", "{\"model\":\"m\"}");
  fill(&kase, "llama-server.props", "{\"model\":\"m\"}");
  kase.timing_recorded = 1;
  kase.pieces[0].t_ns = 1000;
  fill(&other, "zz-timed-elsewhere", "{\"model\":\"m\"}");
  other.timing_recorded = 1;
  write_in(d1, &ident);
  write_in(d1, &kase);
  write_in(d2, &other);
  struct oc_cassette_store s;
  const char *dirs[] = { d1, d2 };
  oc_cassette_store_init(&s);
  ck_assert_int_eq(oc_cassette_store_load(&s, dirs, 2, NULL, NULL), OC_OK);
  const struct oc_cassette *f = oc_cassette_store_find_key(&s, ident.key);
  ck_assert_ptr_nonnull(f);
  ck_assert_str_eq(f->name, "llama-server.props");
  oc_cassette_store_free(&s);
  /* d1 holding only the untimed one still wins over d2's timed one */
  const char *dirs2[] = { d1, d2 };
  char *gone = oc_asprintf("%s/llama-server.props%s", d1, OC_CASSETTE_EXT);
  ck_assert_int_eq(remove(gone), 0);
  free(gone);
  oc_cassette_store_init(&s);
  ck_assert_int_eq(oc_cassette_store_load(&s, dirs2, 2, NULL, NULL), OC_OK);
  ck_assert_str_eq(oc_cassette_store_find_key(&s, ident.key)->name, "identify-props-x");
  oc_cassette_store_free(&s);
  oc_cassette_free(&ident);
  oc_cassette_free(&kase);
  oc_cassette_free(&other);
  rm_rf(d1);
  rm_rf(d2);
  free(d1);
  free(d2);
}
END_TEST

START_TEST(store_nearest)
{
  char *d = tmpdir_new();
  struct oc_cassette a, b, g;
  fill(&a, "chat-basic", "{\"model\":\"m\",\"max_tokens\":16,\"messages\":[]}");
  fill(&b, "chat-stream", "{\"model\":\"m\",\"stream\":true,\"messages\":[]}");
  oc_cassette_init(&g);
  g.name = oc_strdup("health");
  g.method = oc_strdup("GET");
  g.path = oc_strdup("/health");
  g.status = 200;
  g.body = oc_strdup("");
  write_in(d, &a);
  write_in(d, &b);
  write_in(d, &g);
  struct oc_cassette_store s;
  oc_cassette_store_init(&s);
  const char *dirs[] = { d };
  ck_assert_int_eq(oc_cassette_store_load(&s, dirs, 1, NULL, NULL), 0);
  const struct oc_cassette *out[3];
  const char *want = "{\"model\":\"m\",\"stream\":true,\"messages\":[],\"seed\":1}";
  size_t n = oc_cassette_store_nearest(&s, "POST", "/v1/chat/completions", want, strlen(want),
                                       NULL, out, 3);
  ck_assert_uint_eq(n, 3);
  ck_assert_str_eq(out[0]->name, "chat-stream");
  ck_assert_str_eq(out[1]->name, "chat-basic");
  ck_assert_str_eq(out[2]->name, "health");
  /* by name: a typo finds the recording */
  n = oc_cassette_store_nearest(&s, "GET", "/nowhere", NULL, 0, "helth", out, 1);
  ck_assert_uint_eq(n, 1);
  ck_assert_str_eq(out[0]->name, "health");
  oc_cassette_store_free(&s);
  oc_cassette_free(&a);
  oc_cassette_free(&b);
  oc_cassette_free(&g);
  rm_rf(d);
  free(d);
}
END_TEST

/* X-Oacheck-Case: chat-basic means the shipped plain.chat-basic: a name
 * that ends with what was asked, after a '.', comes first, before the
 * recordings whose bodies are more like the request's (issue 25). */
START_TEST(store_nearest_suffix_first)
{
  char *d = tmpdir_new();
  const char *body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
  struct oc_cassette e1, e2, e3, p, q;
  fill(&e1, "errors.bad-model", body);
  fill(&e2, "errors.bad-role", body);
  fill(&e3, "errors.chat-basics", body);
  fill(&p, "plain.chat-basic", "{\"model\":\"m\",\"max_tokens\":16,\"messages\":[]}");
  fill(&q, "xchat-basic", body);
  write_in(d, &e1);
  write_in(d, &e2);
  write_in(d, &e3);
  write_in(d, &p);
  write_in(d, &q);
  struct oc_cassette_store s;
  oc_cassette_store_init(&s);
  const char *dirs[] = { d };
  ck_assert_int_eq(oc_cassette_store_load(&s, dirs, 1, NULL, NULL), 0);
  const struct oc_cassette *out[5];
  size_t n = oc_cassette_store_nearest(&s, "POST", "/v1/chat/completions", body, strlen(body),
                                       "chat-basic", out, 5);
  ck_assert_uint_eq(n, 5);
  ck_assert_str_eq(out[0]->name, "plain.chat-basic");
  /* "xchat-basic" ends with it but not after a '.': ranked as before */
  ck_assert_str_ne(out[1]->name, "plain.chat-basic");
  oc_cassette_store_free(&s);
  oc_cassette_free(&e1);
  oc_cassette_free(&e2);
  oc_cassette_free(&e3);
  oc_cassette_free(&p);
  oc_cassette_free(&q);
  rm_rf(d);
  free(d);
}
END_TEST

/* A directory of raw exchanges loads in memory, wire variants after
 * their plain recording, broken entries reported and skipped. */
START_TEST(store_loads_raw_exchanges)
{
  char *d = tmpdir_new();
  const char *index = "{\"health\":{\"method\":\"GET\",\"path\":\"/health\"},"
                      "\"chat\":{\"method\":\"POST\",\"path\":\"/v1/chat/completions\","
                      "\"test_only\":\"steered\"},"
                      "\"nopath\":{\"request_body\":false},"
                      "\"sub/x\":{\"method\":\"GET\",\"path\":\"/x\"}}";
  put(d, "index.json", index, strlen(index));
  const char *h = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
  put(d, "health.response.http", h, strlen(h));
  put(d, "nopath.response.http", h, strlen(h));
  const char *c = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: 1\n\n";
  put(d, "chat.response.http", c, strlen(c));
  put(d, "chat.request.json", "{\"stream\":true}", 15);
  const char *w = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nda2\r\n"
                  "6\r\nta: 1\n\r\n1\r\n\n\r\n0\r\n\r\n";
  put(d, "chat.wire.http", w, strlen(w));
  struct oc_cassette_store s;
  struct errs e = { 0 };
  oc_cassette_store_init(&s);
  const char *dirs[] = { d };
  ck_assert_int_eq(oc_cassette_store_load(&s, dirs, 1, collect, &e), OC_EPARSE);
  ck_assert_int_eq(e.n, 1);
  ck_assert_msg(strstr(e.last, "nopath") != NULL, "%s", e.last);
  ck_assert_uint_eq(s.count, 3);
  ck_assert_str_eq(s.items[0].name, "chat");
  ck_assert_str_eq(s.items[1].name, "chat.wire");
  ck_assert_str_eq(s.items[2].name, "health");
  ck_assert_int_eq(s.items[0].test_only, 1);
  ck_assert_int_eq(s.items[1].test_only, 1);
  ck_assert_uint_eq(s.items[1].npieces, 3);
  ck_assert_str_eq(s.items[0].key, s.items[1].key);
  ck_assert_str_eq(oc_cassette_store_find_key(&s, s.items[1].key)->name, "chat");
  ck_assert_str_eq(s.items[2].body, "ok");
  oc_cassette_store_free(&s);
  rm_rf(d);
  free(d);
}
END_TEST

START_TEST(gzip_round_trip_and_cap)
{
  char big[10000];
  for(size_t i = 0; i < sizeof(big); i++)
    big[i] = (char)(i * 7);
  char *gz = NULL, *back = NULL;
  size_t gzlen = 0, backlen = 0;
  ck_assert_int_eq(oc_gzip(big, sizeof(big), &gz, &gzlen), 0);
  ck_assert_int_eq(oc_gunzip(gz, gzlen, sizeof(big), &back, &backlen), 0);
  ck_assert_uint_eq(backlen, sizeof(big));
  ck_assert_mem_eq(back, big, sizeof(big));
  free(back);
  ck_assert_int_eq(oc_gunzip(gz, gzlen, 100, &back, &backlen), OC_ETOOBIG);
  ck_assert_ptr_null(back);
  free(gz);
}
END_TEST

static Suite *cassette_suite(void)
{
  Suite *s = suite_create("cassette");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, round_trip_is_byte_exact);
  tcase_add_test(tc, no_body_and_no_pieces_round_trip);
  tcase_add_test(tc, tally_counts_distinct_files);
  tcase_add_test(tc, secrets_never_written);
  tcase_add_test(tc, keys_are_canonical);
  tcase_add_test(tc, keys_in_pieces);
  tcase_add_test(tc, keying_a_big_body_makes_no_canonical_copy);
  tcase_add_test(tc, import_equals_source);
  tcase_add_test(tc, import_shared_recordings);
  tcase_add_test(tc, malformed_cassettes_name_the_file);
  tcase_add_test(tc, store_lookups_and_first_dir_wins);
  tcase_add_test(tc, store_prefers_timed_within_a_directory);
  tcase_add_test(tc, store_nearest);
  tcase_add_test(tc, store_nearest_suffix_first);
  tcase_add_test(tc, store_loads_raw_exchanges);
  tcase_add_test(tc, gzip_round_trip_and_cap);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return oc_test_run(cassette_suite());
}
