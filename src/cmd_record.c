/* cmd_record.c — `oacheck record`: shows a cassette for people (--show)
 * and imports directories of raw recorded exchanges into cassettes
 * (--import), and records live traffic (--target …): the run itself is
 * cmd_run.c's, told where to write a cassette per case.  Each mode is a
 * static function of its own. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cassette.h"
#include "cli.h"
#include "headers.h"
#include "json.h"
#include "request.h"
#include "secret.h"
#include "util.h"

static const char record_usage[] =
  "Usage: oacheck record [SUITE]... --target [NAME=]URL... --out DIR [RUN OPTIONS]\n"
  "       oacheck record --show FILE...\n"
  "       oacheck record --import RAWDIR --out DIR [--test-only-out DIR]\n"
  "                      [--server BUILD] [--route NAME=METHOD PATH]...\n"
  "Record live traffic, show cassettes, or turn raw recorded exchanges into\n"
  "cassettes.\n"
  "\n"
  "Live: the suites run against the targets exactly as 'oacheck run' does (same\n"
  "options, same report: 'oacheck record --target URL --help' lists them), and\n"
  "every case's exchange, with the arrival time of every piece, is also written\n"
  "to DIR/SUITE.CASE" OC_CASSETTE_EXT ", plus the target identification requests.\n"
  "'oacheck run --replay DIR' then reaches the same verdicts with no network;\n"
  "'oacheck serve DIR' serves them.  API keys and other secret headers are never\n"
  "written.\n";

static const char record_footer[] =
  "Imported recordings say \"timing not recorded\": the raw files hold no arrival\n"
  "times.\n"
  "The format is described in docs/cassette.md.\n"
  "\n"
  "Exit status: 0 done, 1 a cassette or exchange could not be read or written,\n"
  "2 usage error.\n";

/* ---- --show --------------------------------------------------------- */

/* Print bytes for a terminal: valid UTF-8 and line ends as they are,
 * everything else escaped so that a NUL or an invalid byte is visible. */
static void put_escaped(FILE *out, const char *p, size_t n)
{
  for(size_t i = 0; i < n;) {
    unsigned char ch = (unsigned char)p[i];
    if(ch == '\n' || (ch >= 0x20 && ch < 0x7f && ch != '\\')) {
      fputc(ch, out);
      i++;
    }
    else if(ch == '\\') {
      fputs("\\\\", out);
      i++;
    }
    else if(ch == '\r') {
      fputs("\\r", out);
      i++;
    }
    else if(ch == '\t') {
      fputs("\\t", out);
      i++;
    }
    else if(ch >= 0x80) {
      size_t len = ch >= 0xf0 ? 4 : ch >= 0xe0 ? 3 : ch >= 0xc0 ? 2 : 1;
      size_t bad = 0;
      if(len > 1 && i + len <= n && oc_utf8_valid((const unsigned char *)p + i, len, &bad)) {
        fwrite(p + i, 1, len, out);
        i += len;
      }
      else {
        fprintf(out, "\\x%02x", ch);
        i++;
      }
    }
    else {
      fprintf(out, "\\x%02x", ch);
      i++;
    }
  }
}

static void show_headers(FILE *out, const struct oc_headers *h)
{
  for(size_t i = 0; i < h->count; i++) {
    fprintf(out, "  %s: ", h->items[i].name);
    put_escaped(out, h->items[i].value, strlen(h->items[i].value));
    fputc('\n', out);
  }
}

static int show_one(const char *file)
{
  struct oc_cassette c;
  char err[OC_CAP_MESSAGE];
  if(oc_cassette_read(file, &c, err, sizeof(err))) {
    fprintf(stderr, "oacheck record: %s\n", err);
    return OC_EXIT_FAIL;
  }
  /* a cassette recorded before its secrets were masked shows them masked */
  oc_cassette_mask(&c);
  FILE *out = stdout;
  fprintf(out, "cassette: %s\nname: %s\nkey: %s\n", file, c.name, c.key);
  fprintf(out, "request: %s %s\n", c.method, c.path);
  show_headers(out, &c.req_headers);
  if(c.req_body) {
    fprintf(out, "request body: %zu byte%s\n", c.req_body_len, c.req_body_len == 1 ? "" : "s");
    put_escaped(out, c.req_body, c.req_body_len);
    if(c.req_body_len && c.req_body[c.req_body_len - 1] != '\n')
      fputs("\n(no newline at the end)\n", out);
  }
  else
    fputs("request body: none\n", out);
  fprintf(out, "response: %s %d %s\n", c.http_version ? c.http_version : "HTTP/1.1", c.status,
          c.reason ? c.reason : "");
  show_headers(out, &c.headers);
  if(!c.complete)
    fputs("response incomplete: the connection ended before the body did\n", out);
  fprintf(out, "provenance:\n");
  fprintf(out, "  source: %s\n", c.source ? c.source : "(unknown)");
  fprintf(out, "  recorded at: %s\n", c.recorded_at ? c.recorded_at : "(unknown)");
  fprintf(out, "  server: %s\n", c.server ? c.server : "(unknown)");
  if(c.note)
    fprintf(out, "  note: %s\n", c.note);
  fprintf(out, "  test only: %s\n", c.test_only ? "yes (not for shipped suites)" : "no");
  if(c.timing_recorded)
    fprintf(out, "timing: recorded (ns since the request was sent); head at %.3f ms\n",
            (double)c.headers_ns / 1e6);
  else
    fputs("timing: not recorded\n", out);
  if(c.npieces)
    fprintf(out, "body: %zu byte%s in %zu piece%s\n", c.body_len, c.body_len == 1 ? "" : "s", c.npieces,
            c.npieces == 1 ? "" : "s");
  else
    fprintf(out, "body: %zu byte%s (piece boundaries not recorded)\n", c.body_len, c.body_len == 1 ? "" : "s");
  size_t start = 0;
  for(size_t i = 0; i < c.npieces; i++) {
    fprintf(out, "--- piece %zu: bytes %zu..%zu", i + 1, start, c.pieces[i].end);
    if(c.timing_recorded)
      fprintf(out, " at %.3f ms", (double)c.pieces[i].t_ns / 1e6);
    fputc('\n', out);
    put_escaped(out, c.body + start, c.pieces[i].end - start);
    start = c.pieces[i].end;
  }
  if(!c.npieces)
    put_escaped(out, c.body, c.body_len);
  if(c.body_len && c.body[c.body_len - 1] != '\n')
    fputs("\n(no newline at the end)\n", out);
  fputs("--- end\n", out);
  oc_cassette_free(&c);
  return OC_EXIT_OK;
}

static int cmd_show(int nfiles, const char *const *files)
{
  int rc = OC_EXIT_OK;
  oc_secret_add_env("OPENAI_API_KEY");
  for(int i = 0; i < nfiles; i++) {
    if(i)
      fputc('\n', stdout);
    if(show_one(files[i]))
      rc = OC_EXIT_FAIL;
  }
  if(fflush(stdout)) {
    fprintf(stderr, "oacheck record: cannot write to standard output: %s\n", strerror(errno));
    rc = OC_EXIT_FAIL;
  }
  return rc;
}

/* ---- --to-suite ----------------------------------------------------- */

/* A suite case name from a cassette's name: lower case, [a-z0-9._-]. */
static void case_name(const char *from, char *out, size_t outlen)
{
  size_t n = 0;
  for(const char *p = from; *p && n + 1 < outlen && n < 80; p++) {
    char c = *p >= 'A' && *p <= 'Z' ? (char)(*p + 32) : *p;
    int ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if(!n && !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
      continue;
    out[n++] = ok ? c : '-';
  }
  if(!n)
    n = (size_t)snprintf(out, outlen, "exchange");
  out[n < outlen ? n : outlen - 1] = '\0';
}

/* Which protocol a recorded request speaks, by its path: its name
 * ("chat", "responses", "messages", NULL for another endpoint) and the
 * words for a description. */
static void protocol_of(const char *path, const char **proto, const char **what)
{
  switch(oc_api_from_path(path)) {
  case OC_API_CHAT:
    *proto = "chat", *what = "chat completions ";
    break;
  case OC_API_RESPONSES:
    *proto = "responses", *what = "Responses API ";
    break;
  case OC_API_RESPONSES_INPUT_TOKENS:
    *proto = "responses", *what = "Responses input_tokens ";
    break;
  case OC_API_MESSAGES:
    *proto = "messages", *what = "Messages API ";
    break;
  case OC_API_MESSAGES_COUNT_TOKENS:
    *proto = "messages", *what = "Messages count_tokens ";
    break;
  default:
    break;
  }
}

/* One case that sends exactly the cassette's request again: against the
 * recorded server (or `run --replay` of the cassette's folder) it gets the
 * same answer and so the same findings. */
static cJSON *case_from(const struct oc_cassette *c, const char *file)
{
  int oom = 0;
  char name[96];
  case_name(c->name ? c->name : "exchange", name, sizeof(name));
  /* the protocol is the request's path: a Responses or Messages
   * exchange becomes a case of that protocol (its decoder and rules), and
   * says so in its description and a tag (--tag protocol:messages) */
  const char *proto = NULL, *what = "";
  protocol_of(c->path, &proto, &what);
  char *desc = oc_asprintf("reproduces the %sexchange recorded in %s%s%s%s", what, file,
                           c->source ? " (" : "", c->source ? c->source : "", c->source ? ")" : "");
  cJSON *k = cJSON_CreateObject();
  oc_json_put_str(&oom, k, "name", name);
  oc_json_put(&oom, k, "description", desc ? cJSON_CreateString(desc) : NULL);
  free(desc);
  cJSON *tags = oc_json_put(&oom, k, "tags", cJSON_CreateArray());
  oc_json_put(&oom, tags, NULL, cJSON_CreateString("from-cassette"));
  if(proto && strcmp(proto, "chat") != 0) {
    char tag[40];
    snprintf(tag, sizeof(tag), "protocol:%s", proto);
    oc_json_put(&oom, tags, NULL, cJSON_CreateString(tag));
  }
  cJSON *rq = oc_json_put(&oom, k, "request", cJSON_CreateObject());
  oc_json_put_str(&oom, rq, "method", c->method ? c->method : "GET");
  oc_json_put_str(&oom, rq, "path", c->path ? c->path : "/");
  cJSON *hdrs = NULL;
  for(size_t i = 0; i < c->req_headers.count; i++) {
    const struct oc_header *h = &c->req_headers.items[i];
    /* what the transport writes itself, and what is nobody's to keep */
    if(oc_header_is_secret(h->name) || oc_strcaseeq(h->name, "Host") ||
       oc_strcaseeq(h->name, "Content-Length") || oc_strcaseeq(h->name, "Content-Type") ||
       oc_strcaseeq(h->name, "Accept-Encoding") || oc_strcaseeq(h->name, "Connection") ||
       oc_strcaseeq(h->name, "User-Agent"))
      continue;
    if(!hdrs)
      hdrs = oc_json_put(&oom, rq, "headers", cJSON_CreateObject());
    oc_json_put_str(&oom, hdrs, h->name, h->value);
  }
  if(c->req_body) {
    /* a JSON body stays readable unless it holds "${", which the suite
     * would take for a variable: then the bytes go as they are */
    cJSON *body = oc_memfind(c->req_body, c->req_body_len, "${", 2) ? NULL
                  : oc_json_parse(c->req_body, c->req_body_len, NULL);
    if(body)
      oc_json_put(&oom, rq, "body", body);
    else
      oc_json_put_str(&oom, rq, "raw_body", c->req_body);
  }
  if(oom) {
    cJSON_Delete(k);
    return NULL;
  }
  return k;
}

static int cmd_to_suite(int nfiles, const char *const *files, const char *suite, const char *out)
{
  int oom = 0, rc = OC_EXIT_FAIL;
  char err[700];
  cJSON *doc = cJSON_CreateObject();
  oc_json_put_str(&oom, doc, "suite", suite ? suite : "from-cassettes");
  oc_json_put_str(&oom, doc, "description", "exchanges turned into cases by 'oacheck record "
                                            "--to-suite': each sends its recorded request again");
  cJSON *cases = oc_json_put(&oom, doc, "cases", cJSON_CreateArray());
  for(int i = 0; i < nfiles && !oom; i++) {
    struct oc_cassette c;
    oc_cassette_init(&c);
    if(oc_cassette_read(files[i], &c, err, sizeof(err))) {
      fprintf(stderr, "oacheck record: %s\n", err);
      oc_cassette_free(&c);
      goto out;
    }
    cJSON *k = case_from(&c, files[i]);
    oc_cassette_free(&c);
    /* two cassettes of the same name in different folders: keep both */
    const cJSON *prev;
    int clash = 0;
    cJSON_ArrayForEach(prev, cases)
      clash |= k && oc_streq(oc_json_str(prev, "name"), oc_json_str(k, "name"));
    if(clash) {
      char nn[120];
      snprintf(nn, sizeof(nn), "%.80s-%d", oc_json_str(k, "name"), i + 1);
      oc_json_set(&oom, k, "name", cJSON_CreateString(nn));
    }
    oc_json_put(&oom, cases, NULL, k);
  }
  char *text = oom ? NULL : oc_json_print_pretty(doc);
  if(!text) {
    fprintf(stderr, "oacheck record: out of memory\n");
    goto out;
  }
  /* the recorded exchange is a server's text: whatever it quotes of a
   * secret this environment knows stays out of the suite */
  oc_secret_mask(text, strlen(text));
  if(!out || strcmp(out, "-") == 0) {
    printf("%s\n", text);
    rc = fflush(stdout) ? OC_EXIT_FAIL : OC_EXIT_OK;
  }
  else if(oc_write_file(out, text, strlen(text), err, sizeof(err)))
    fprintf(stderr, "oacheck record: %s\n", err);
  else
    rc = OC_EXIT_OK;
  free(text);
out:
  cJSON_Delete(doc);
  return rc;
}

/* ---- --import ------------------------------------------------------- */

struct route {
  char *name;       /* the part of --route before "=" */
  char *method;
  char *path;
};

struct import {
  const char *rawdir;
  const char *out;
  const char *test_out;
  const char *server;
  char *readme;          /* RAWDIR/README.md, NULL when absent */
  char *title;           /* its first "# " heading */
  struct route *routes;
  size_t nroutes;
  size_t written, written_test, failed;
};

/* mkdir -p for the directories of a path that we are about to create. */
static int make_dirs(const char *dir)
{
  char *d = oc_strdup(dir);
  int rc = OC_OK;
  if(!d)
    return OC_ENOMEM;
  for(char *p = d + 1;; p++) {
    if(*p == '/' || *p == '\0') {
      char save = *p;
      *p = '\0';
      if(mkdir(d, 0777) && errno != EEXIST) {
        fprintf(stderr, "oacheck record: cannot create '%s': %s\n", d, strerror(errno));
        rc = OC_EIO;
        break;
      }
      *p = save;
      if(!save)
        break;
    }
  }
  free(d);
  return rc;
}

/* The README table row whose first cell is NAME ("| NAME | …"), trimmed;
 * NULL when there is none.  Caller frees. */
static char *readme_row(const char *readme, const char *name)
{
  if(!readme)
    return NULL;
  size_t nl = strlen(name);
  for(const char *line = readme; line && *line;) {
    const char *eol = strchr(line, '\n');
    size_t len = eol ? (size_t)(eol - line) : strlen(line);
    const char *p = line;
    if(*p == '|') {
      p++;
      while(*p == ' ')
        p++;
      if(*p == '`')
        p++;
      if(strncmp(p, name, nl) == 0 && (p[nl] == ' ' || p[nl] == '|' || p[nl] == '`'))
        return oc_strndup(line, len);
    }
    line = eol ? eol + 1 : NULL;
  }
  return NULL;
}

static char *readme_title(const char *readme)
{
  for(const char *line = readme; line && *line;) {
    const char *eol = strchr(line, '\n');
    size_t len = eol ? (size_t)(eol - line) : strlen(line);
    if(strncmp(line, "# ", 2) == 0)
      return oc_strndup(line + 2, len - 2);
    line = eol ? eol + 1 : NULL;
  }
  return NULL;
}

static int import_take(void *ctx, struct oc_cassette *c)
{
  struct import *im = ctx;
  char err[OC_CAP_MESSAGE];
  char *dir = NULL, *file = NULL, *row = NULL;
  int rc = OC_ENOMEM;
  const char *base_dir = c->test_only && im->test_out ? im->test_out : im->out;
  const char *slash = strrchr(c->name, '/');
  if(slash) {
    char *sub = oc_strndup(c->name, (size_t)(slash - c->name));
    dir = sub ? oc_path_join(base_dir, sub) : NULL;
    free(sub);
  }
  else
    dir = oc_strdup(base_dir);
  const char *leaf = slash ? slash + 1 : c->name;
  if(!dir || !(file = oc_asprintf("%s/%s%s", dir, leaf, OC_CASSETTE_EXT)))
    goto out;
  row = readme_row(im->readme, c->name);
  if(im->title && !(c->source = oc_asprintf("%s (README.md beside this cassette)", im->title)))
    goto out;
  if(!c->source && !(c->source = oc_strdup("imported raw exchange")))
    goto out;
  if(im->server && !(c->server = oc_strdup(im->server)))
    goto out;
  if(row || c->note) {
    /* the test-only reason first, then the README's row for this name */
    char *note = oc_asprintf("%s%s%s%s", c->test_only ? "test only: " : "",
                             c->note ? c->note : "", c->note && row ? "; " : "", row ? row : "");
    if(!note)
      goto out;
    free(c->note);
    c->note = note;
  }
  if((rc = make_dirs(dir)))
    goto out;
  /* the leaf name is what the file is called and what the store uses */
  char *leafname = oc_strdup(leaf);
  if(!leafname) {
    rc = OC_ENOMEM;
    goto out;
  }
  free(c->name);
  c->name = leafname;
  if(oc_cassette_write(file, c, err, sizeof(err))) {
    fprintf(stderr, "oacheck record: %s\n", err);
    im->failed++;
  }
  else if(c->test_only)
    im->written_test++;
  else
    im->written++;
  oc_debug("wrote %s", file);
  rc = OC_OK;
out:
  if(rc == OC_ENOMEM)
    fprintf(stderr, "oacheck record: out of memory\n");
  oc_cassette_free(c);
  free(dir);
  free(file);
  free(row);
  return rc;
}

static void import_error(void *ctx, const char *msg)
{
  struct import *im = ctx;
  /* an entry that a --route completes is expected to fail in the walk */
  for(size_t i = 0; i < im->nroutes; i++) {
    char *prefix = oc_asprintf("%s: %s: ", im->rawdir, im->routes[i].name);
    int routed = prefix && oc_startswith(msg, prefix);
    free(prefix);
    if(routed)
      return;
  }
  fprintf(stderr, "oacheck record: %s\n", msg);
  im->failed++;
}

/* An entry whose method and path the index does not give, completed by
 * --route: read its files directly. */
static int import_routed(struct import *im, const struct route *r)
{
  char err[OC_CAP_MESSAGE], inner[1024];
  char *resp = oc_asprintf("%s/%s.response.http", im->rawdir, r->name);
  char *req = oc_asprintf("%s/%s.request.json", im->rawdir, r->name);
  char *raw = NULL;
  size_t rawlen = 0;
  struct oc_exchange ex;
  struct oc_cassette c;
  int rc = OC_ENOMEM, unreadable = 0;
  memset(&ex, 0, sizeof(ex));
  oc_headers_init(&ex.headers);
  oc_cassette_init(&c);
  err[0] = '\0';
  if(!resp || !req)
    goto out;
  unreadable = 1;
  if((rc = oc_read_file(resp, OC_CAP_BODY, &raw, &rawlen, err, sizeof(err))))
    goto out;
  if((rc = oc_exchange_parse_response(raw, rawlen, 0, &ex, inner, sizeof(inner)))) {
    snprintf(err, sizeof(err), "%s: %s", resp, inner);
    goto out;
  }
  if(oc_is_file(req) &&
     (rc = oc_read_file(req, OC_CAP_BODY, &ex.request, &ex.request_len, err, sizeof(err))))
    goto out;
  unreadable = 0;
  rc = OC_ENOMEM;
  if(!(ex.name = oc_strdup(r->name)) || !(ex.method = oc_strdup(r->method)) ||
     !(ex.path = oc_strdup(r->path)))
    goto out;
  if((rc = oc_cassette_from_exchange(&ex, &c)))
    goto out;
  rc = OC_ENOMEM;
  if(!(c.note = oc_strdup("method and path from the README (index.json gives none)")))
    goto out;
  rc = import_take(im, &c); /* takes c, also when it fails */
out:
  if(unreadable && rc != OC_ENOMEM) {
    fprintf(stderr, "oacheck record: %s\n", err);
    im->failed++;
    rc = OC_OK;
  }
  else if(rc == OC_ENOMEM)
    fprintf(stderr, "oacheck record: out of memory\n");
  oc_cassette_free(&c);
  oc_exchange_free(&ex);
  free(raw);
  free(resp);
  free(req);
  return rc;
}

static int copy_readme(const struct import *im, const char *dir)
{
  char err[OC_CAP_MESSAGE];
  char *to = oc_path_join(dir, "README.md");
  int rc = to ? oc_write_file(to, im->readme, strlen(im->readme), err, sizeof(err)) : OC_ENOMEM;
  if(rc)
    fprintf(stderr, "oacheck record: %s\n", to ? err : "out of memory");
  free(to);
  return rc;
}

static int cmd_import(struct import *im)
{
  char err[OC_CAP_MESSAGE];
  int rc = OC_EXIT_FAIL;
  char *readme_path = oc_path_join(im->rawdir, "README.md");
  if(!readme_path)
    goto out;
  if(oc_is_file(readme_path)) {
    size_t len = 0;
    if(oc_read_file(readme_path, OC_CAP_FILE, &im->readme, &len, err, sizeof(err))) {
      fprintf(stderr, "oacheck record: %s\n", err);
      goto out;
    }
    im->title = readme_title(im->readme);
  }
  if(make_dirs(im->out) || (im->test_out && make_dirs(im->test_out)))
    goto out;
  int wrc = oc_cassette_walk_raw(im->rawdir, 1, import_take, import_error, im);
  if(wrc && wrc != OC_EPARSE)
    goto out;
  if(wrc == OC_EPARSE)
    im->failed++;
  for(size_t i = 0; i < im->nroutes; i++)
    if(import_routed(im, &im->routes[i]) == OC_ENOMEM)
      goto out;
  if(im->readme) {
    if(copy_readme(im, im->out))
      im->failed++;
    if(im->test_out && im->written_test && strcmp(im->test_out, im->out) != 0 &&
       copy_readme(im, im->test_out))
      im->failed++;
  }
  oc_info("imported %zu recording%s from %s into %s", im->written, im->written == 1 ? "" : "s",
          im->rawdir, im->out);
  if(im->written_test)
    oc_info("imported %zu test-only recording%s into %s", im->written_test,
            im->written_test == 1 ? "" : "s", im->test_out ? im->test_out : im->out);
  rc = im->failed ? OC_EXIT_FAIL : OC_EXIT_OK;
out:
  free(readme_path);
  return rc;
}

static int parse_route(const char *arg, struct route *r)
{
  const char *eq = strchr(arg, '=');
  const char *sp = eq ? strchr(eq + 1, ' ') : NULL;
  if(!eq || !sp || eq == arg || sp == eq + 1 || sp[1] != '/')
    return OC_EUSAGE;
  r->name = NULL;
  r->method = oc_strndup(eq + 1, (size_t)(sp - eq - 1));
  r->path = oc_strdup(sp + 1);
  return r->method && r->path ? OC_OK : OC_ENOMEM;
}

/* ---- live ------------------------------------------------------------ */

/* `oacheck record [SUITE…] --target URL… --out DIR [run options]`: the
 * run itself is cmd_run.c's, with every live case (and the identification
 * requests) also written to DIR as a cassette that `run --replay DIR` or
 * `serve DIR` plays back. */
static int is_live(int argc, char **argv)
{
  /* not an option parser: which parser gets argv, cmd_run's or ours */
  for(int i = 1; i < argc; i++) /* checksrc: a look, not a parse */
    if(strcmp(argv[i], "--show") == 0 || strcmp(argv[i], "--import") == 0 ||
       oc_startswith(argv[i], "--import="))
      return 0;
  for(int i = 1; i < argc; i++)
    if(oc_startswith(argv[i], "--target") || oc_startswith(argv[i], "-t"))
      return 1;
  return 0;
}

struct route_list {
  struct route *items;
  size_t n, alloc;
};

static int opt_route(const struct oc_option *o, const char *arg, char *err, size_t errlen)
{
  struct route_list *l = o->value;
  struct route *d = oc_array_grow(l->items, &l->alloc, l->n + 1, sizeof(*d));
  if(!d) {
    snprintf(err, errlen, "out of memory");
    return 1;
  }
  l->items = d;
  struct route *r = &d[l->n];
  memset(r, 0, sizeof(*r));
  if(parse_route(arg, r)) {
    free(r->method);
    free(r->path);
    snprintf(err, errlen, "wants 'NAME=METHOD /PATH', got '%s'", arg);
    return 1;
  }
  r->name = oc_strndup(arg, (size_t)(strchr(arg, '=') - arg));
  if(!r->name) {
    free(r->method);
    free(r->path);
    snprintf(err, errlen, "out of memory");
    return 1;
  }
  l->n++;
  return 0;
}

int oc_cmd_record(int argc, char **argv)
{
  if(is_live(argc, argv))
    return oc_run_main(argc, argv, "record", 1);
  /* --show, --to-suite and --import write what a server said: this
   * environment's key is masked out of it, as a live recording's is */
  oc_secret_add_env("OPENAI_API_KEY");
  struct import im;
  struct route_list routes = { NULL, 0, 0 };
  struct oc_strlist files = { NULL, 0, 0 };
  memset(&im, 0, sizeof(im));
  int show = 0, to_suite = 0, rc = OC_EXIT_USAGE;
  const char *suite_name = NULL;
  const struct oc_option options[] = {
    OC_OPT_FLAG(0, "show", &show,
                "print each cassette FILE: its request, response head,\n"
                "provenance and body, piece by piece, with non-printable\n"
                "bytes escaped (\\xNN, \\r, \\t, \\\\; line ends kept)"),
    OC_OPT_FLAG(0, "to-suite", &to_suite,
                "turn each cassette FILE into a suite case that sends its\n"
                "recorded request again (a failing exchange from 'oacheck\n"
                "proxy --record' becomes a test); the suite goes to --out\n"
                "FILE, or standard output"),
    OC_OPT_STRING(0, "suite", &suite_name, "NAME", "--to-suite: the suite's name (default from-cassettes)"),
    OC_OPT_STRING(0, "import", &im.rawdir, "RAWDIR",
                  "convert every exchange listed in RAWDIR/index.json\n"
                  "(NAME.request.json + NAME.response.http, and NAME.wire.http\n"
                  "as NAME.wire) into DIR/NAME" OC_CASSETTE_EXT "; an index name\n"
                  "with slashes (templates/X/props) goes to that subdirectory.\n"
                  "RAWDIR/README.md is copied beside them and its title and\n"
                  "table row for NAME become the cassette's provenance"),
    OC_OPT_STRING(0, "out", &im.out, "DIR", "where the cassettes go (created when missing)"),
    OC_OPT_STRING(0, "test-only-out", &im.test_out, "DIR",
                  "where recordings that index.json marks \"test_only\" go\n"
                  "(default: DIR as well)"),
    OC_OPT_STRING(0, "server", &im.server, "BUILD",
                  "the server build the recordings came from, kept in each\n"
                  "cassette (e.g. 'llama.cpp b10587-3f545becc')"),
    OC_OPT_CALLBACK(0, "route", &routes, "'NAME=METHOD PATH'", opt_route,
                    "method and path for an entry whose index.json\n"
                    "entry has none (taken from its README by a person)"),
    OC_OPT_VERBOSITY(NULL),
    OC_OPT_END(),
  };
  const struct oc_cli cli = { "record", record_usage, record_footer, options };
  int prc = oc_cli_parse(&cli, argc, argv, &files);
  if(prc >= 0) {
    rc = prc;
    goto out;
  }
  im.routes = routes.items;
  im.nroutes = routes.n;
  int nfiles = (int)files.n;
  if(to_suite) {
    if(show || im.rawdir || !nfiles) {
      rc = oc_cli_usage_error("record", nfiles ? "--to-suite does not mix with --show or --import"
                                               : "--to-suite needs cassette files");
      goto out;
    }
    rc = cmd_to_suite(nfiles, files.items, suite_name, im.out);
  }
  else if(show) {
    if(im.rawdir || !nfiles) {
      rc = oc_cli_usage_error("record", im.rawdir ? "--show and --import do not mix"
                                                  : "--show needs a cassette file");
      goto out;
    }
    rc = cmd_show(nfiles, files.items);
  }
  else if(im.rawdir) {
    if(!im.out || nfiles) {
      rc = oc_cli_usage_error("record", nfiles ? "unexpected argument '%s'"
                                               : "--import needs --out DIR%s",
                              nfiles ? files.items[0] : "");
      goto out;
    }
    rc = cmd_import(&im);
  }
  else
    rc = oc_cli_usage_error("record", "give --target URL (live), --show FILE or --import RAWDIR");
out:
  for(size_t i = 0; i < routes.n; i++) {
    free(routes.items[i].name);
    free(routes.items[i].method);
    free(routes.items[i].path);
  }
  free(routes.items);
  free(im.readme);
  free(im.title);
  oc_strlist_free(&files);
  return rc;
}
