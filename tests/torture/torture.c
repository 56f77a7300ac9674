/* torture.c — the allocation-failure run over one input file: the
 * response decoder is run once for reference, then once more for every
 * allocation it makes, with exactly that allocation failing.  Each run
 * must end cleanly: no crash (ASan), no block left (the shim's live set;
 * LeakSanitizer at exit), and either OC_ENOMEM or the very findings of the
 * reference — a failure that changes a verdict without saying so is the
 * bug this looks for.  The shipped schemas are loaded before counting
 * starts.  Inputs: a rule test file (*.test, tests/rules/), a recording
 * (*.cassette.gz), both read and then replayed as `oacheck check` and
 * `run --replay` replay them (reading counted too), or a fuzz seed
 * (tests/fuzz/fuzz_input.h's format); with --kind, a seed of another fuzz
 * target, taken as that target takes it (tests/fuzz/fuzz_KIND.c):
 * `schema` (a mode byte, SCHEMA NUL INSTANCE: compiled, then validated on
 * both paths), `suite` (a suite file: loaded, every case's request built),
 * `exchange` (a flag byte, an HTTP response: read as a raw capture,
 * converted to a cassette, decoded) or `results` (a results document,
 * read a result at a time as `report render` reads it).  Those compare what they produced
 * (verdict and errors, the load's messages and the built requests, the
 * findings) the same way.  Which files make the corpus is
 * tests/torture/run.sh's business.
 *
 *   torture [--profile P] [--kind K] [--only N] [--verbose] FILE
 *
 * (--verbose names every failure that was absorbed; TORTURE_STACK=1 prints
 * the stack of the failing allocation, with --only the place to look)
 *
 * prints one line: how many allocation points were failed and how each
 * run ended; exit 0 when every run held, 1 when one did not (each named,
 * with the command that repeats it alone), 99 on a setup error. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cassette.h"
#include "exchange.h"
#include "finding.h"
#include "fuzz_input.h"
#include "json.h"
#include "response.h"
#include "results_json.h"
#include "rulefile.h"
#include "rules.h"
#include "schema.h"
#include "shim.h"
#include "suite.h"
#include "util.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define OC_HAVE_DEATH_CALLBACK 1
#endif

static struct oc_schemas schemas;
static struct oc_schema *suite_schema; /* for --kind suite, compiled before counting */
static cJSON *target_vars;             /* the variables a target gives a suite */
static const char *file;
static long current; /* the allocation being failed, for a crash report */

enum kind { SEED, CASSETTE, RULEFILE, SCHEMA, SUITE, EXCHANGE, RESULTS };

struct input {
  enum kind kind;
  char *bytes;
  size_t len;
  const char *profile;
};

/* What a recording was read as, beside its findings: a failure in the
 * reader must not change them without saying so either (a key computed
 * from the raw bytes instead of the canonical JSON would miss on replay). */
static char decoded[1024];

/* A recorded exchange through the decoder the way `run --replay` and
 * `oacheck check` take it (oc_response_replay: head, then the recorded
 * pieces with their times). */
static int replay(const struct oc_cassette *k, const struct oc_profile *profile, int partial,
                  struct oc_findings *f)
{
  cJSON *req = NULL;
  if(k->req_body && oc_json_parse_rc(k->req_body, k->req_body_len, NULL, &req) == OC_ENOMEM)
    return OC_ENOMEM;
  struct oc_request_info info;
  oc_request_info_init(&info, k->method ? k->method : "POST", k->path ? k->path : "/", req);
  struct oc_check c;
  oc_check_init(&c, f, profile);
  c.partial = partial;
  struct oc_response r;
  uint64_t t0 = k->timing_recorded ? 1000000 : 0, t_end = 0;
  oc_response_init(&r, &info, &c, &schemas, t0, k->timing_recorded, 0);
  int rc = oc_response_replay(&r, k, t0, &t_end);
  oc_response_finish(&r, t_end, k->complete);
  oc_response_free(&r);
  cJSON_Delete(req);
  return !rc && c.oom ? OC_ENOMEM : rc;
}

static void describe(const struct oc_cassette *k, const char *more)
{
  snprintf(decoded, sizeof(decoded),
           "name=%s key=%s %s %s status=%d reason=%s pieces=%zu timing=%d complete=%d "
           "source=%s recorded_at=%s server=%s note=%s test_only=%d headers=%zu/%zu body=%zu %s\n",
           k->name ? k->name : "-", k->key, k->method ? k->method : "-", k->path ? k->path : "-",
           k->status, k->reason ? k->reason : "-", k->npieces, k->timing_recorded, k->complete,
           k->source ? k->source : "-", k->recorded_at ? k->recorded_at : "-",
           k->server ? k->server : "-", k->note ? k->note : "-", k->test_only, k->req_headers.count,
           k->headers.count, k->body_len, more);
}

/* What a run produced besides findings, for --kind schema and suite (the
 * reference and every failing run must agree on it).  Its room is taken
 * before counting starts and it never grows past it (a longer product
 * fails the buffer, the same way in every run): its own allocations would
 * be counted, and read as leaks, otherwise.  A built body goes in as its
 * length and a hash. */
#define PRODUCT_ROOM (4u << 20)
static struct oc_buf product;

/* A line of the product, formatted without allocating (oc_buf_printf
 * allocates past 256 bytes), cut at 64 KiB the same way in every run. */
static char pline[1u << 16];
static void pf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void pf(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(pline, sizeof(pline), fmt, ap);
  va_end(ap);
  if(n > 0)
    oc_buf_add(&product, pline, (size_t)n < sizeof(pline) ? (size_t)n : sizeof(pline) - 1);
}

static unsigned long long fnv1a(const char *p, size_t n)
{
  unsigned long long h = 14695981039346656037ull;
  for(size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
  return h;
}

/* fuzz_schema's input: compile, then validate on both paths.  A compile
 * or validation that ran out of memory must say OC_ENOMEM; a schema at
 * fault, a verdict or an undecided validation must be the reference's. */
static int run_schema(const struct input *in)
{
  if(in->len < 2)
    return OC_EPARSE;
  unsigned mode = (unsigned char)in->bytes[0];
  const char *p = in->bytes + 1;
  size_t n = in->len - 1;
  const char *nul = memchr(p, '\0', n);
  size_t slen = nul ? (size_t)(nul - p) : n;
  const char *inst = nul ? nul + 1 : "null";
  size_t ilen = nul ? n - slen - 1 : 4;
  cJSON *sd = NULL;
  struct oc_jdoc id;
  struct oc_jerr je;
  struct oc_schema *s = NULL;
  struct oc_schema_result res;
  oc_jdoc_init(&id);
  oc_schema_result_init(&res);
  char err[512] = "";
  int rc = OC_ENOMEM;
  struct oc_schema_registry *reg = oc_schema_registry_new();
  if(!reg)
    goto out;
  rc = oc_json_parse_rc(p, slen, NULL, &sd);
  if(rc) {
    pf("schema is not JSON\n");
    goto out;
  }
  unsigned flags = (mode & 1 ? OC_SCHEMA_DRAFT7 : 0) | (mode & 2 ? OC_SCHEMA_FORMAT_ASSERT : 0);
  rc = oc_schema_compile_rc(reg, sd, mode & 8 ? "https://oacheck.test/s.json" : NULL, flags, &s, err,
                            sizeof(err));
  if(rc) {
    pf("compile %d: %s\n", rc, err);
    goto out;
  }
  rc = oc_jdoc_parse(&id, inst, ilen, &je);
  if(rc) {
    pf("instance is not JSON\n");
    goto out;
  }
  res.max = 1 + (mode >> 4);
  res.always_report = (mode & 4) != 0;
  int fast = oc_schema_validate(s, id.root, NULL);
  int full = oc_schema_validate(s, id.root, &res);
  if(fast == -OC_ENOMEM || full == -OC_ENOMEM) {
    rc = OC_ENOMEM;
    goto out;
  }
  pf("fast %d full %d undecided %s dropped %zu\n", fast, full,
                res.undecided ? res.undecided : "-", res.dropped);
  for(size_t i = 0; i < res.count; i++) {
    const struct oc_schema_error *e = &res.errors[i];
    pf("%s %s %s %s @%zu\n", e->instance_path, e->schema_path, e->keyword,
                  e->message, e->offset);
  }
  rc = OC_OK;
out:
  oc_schema_result_free(&res);
  oc_schema_free(s);
  oc_schema_registry_free(reg);
  cJSON_Delete(sd);
  oc_jdoc_free(&id);
  return rc == OC_ENOMEM ? OC_ENOMEM : OC_OK; /* a schema at fault is a product, not an error */
}

/* fuzz_suite's input: the loader and every case's request. */
static int run_suite(const struct input *in)
{
  struct oc_suite_set set = { NULL, 0 };
  struct oc_buf err;
  oc_buf_init(&err, 1u << 20);
  int rc = oc_suite_load_text(&set, "seed.json", in->bytes, in->len, suite_schema, &err);
  if(rc == OC_ENOMEM || (oc_buf_error(&err) == OC_ENOMEM))
    rc = OC_ENOMEM;
  else if(rc) {
    pf("load %d:\n%s", rc, oc_buf_str(&err));
    rc = OC_OK; /* a suite at fault is a product, not an error */
  }
  else {
    for(size_t i = 0; !rc && i < set.count; i++)
      for(size_t k = 0; !rc && k < set.items[i].ncases; k++) {
        const struct oc_case *c = &set.items[i].cases[k];
        struct oc_vars vars = { target_vars, c->variables, 0 };
        struct oc_built_request r;
        char why[600] = "";
        int brc = oc_suite_build_request(c, &vars, &r, why, sizeof(why));
        if(brc == OC_ENOMEM)
          rc = OC_ENOMEM;
        else if(brc)
          pf("%s/%s: %d %s\n", c->suite, c->name, brc, why);
        else {
          pf("%s/%s line %d: %s %s %zu %016llx headers %zu\n", c->suite, c->name,
                        c->line, r.method, r.path, r.body_len, fnv1a(r.body ? r.body : "", r.body_len),
                        r.headers.count);
          oc_built_request_free(&r);
        }
      }
  }
  oc_buf_free(&err);
  oc_suite_set_free(&set);
  return rc;
}

/* fuzz_exchange's input: a raw capture read, converted, decoded. */
static int run_exchange(const struct input *in, struct oc_findings *f)
{
  if(in->len < 1)
    return OC_EPARSE;
  int wire = in->bytes[0] & 1;
  struct oc_exchange ex;
  char err[512];
  int rc = oc_exchange_parse_response(in->bytes + 1, in->len - 1, wire, &ex, err, sizeof(err));
  if(rc) {
    /* the reader says OC_ENOMEM itself: a parse error here is the input's */
    if(rc == OC_ENOMEM)
      return OC_ENOMEM;
    pf("not a response: %s\n", err);
    return OC_OK;
  }
  static const char req[] = "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
  rc = OC_ENOMEM;
  ex.method = oc_strdup("POST");
  ex.path = oc_strdup("/v1/chat/completions");
  ex.name = oc_strdup("seed");
  ex.request = oc_strdup(req);
  ex.request_len = sizeof(req) - 1;
  struct oc_cassette c;
  oc_cassette_init(&c);
  if(ex.method && ex.path && ex.name && ex.request && (rc = oc_cassette_from_exchange(&ex, &c)) == OC_OK) {
    describe(&c, "");
    struct oc_check chk;
    oc_check_init(&chk, f, oc_profile_find(in->bytes[0] & 2 ? "llama-server" : "openai"));
    rc = oc_response_analyze(&schemas, &chk, "POST", "/v1/chat/completions", req, sizeof(req) - 1,
                             ex.status, &ex.headers, ex.body, ex.body_len, ex.pieces, ex.npieces);
  }
  oc_cassette_free(&c);
  oc_exchange_free(&ex);
  return rc;
}

/* fuzz_results' input: a results document read a result at a time.  Each
 * result handed over is a line of the product, then the frame's; memory
 * running out must say OC_ENOMEM, a document at fault must be refused
 * with the reference's message. */
static int take_result(void *ud, cJSON *r, size_t i, char *err, size_t errlen)
{
  (void)ud;
  (void)err;
  (void)errlen;
  const char *t = oc_json_str(r, "target"), *s = oc_json_str(r, "suite"), *c = oc_json_str(r, "case");
  const char *st = oc_json_str(r, "status");
  pf("result %zu: %s/%s/%s %s\n", i, t ? t : "-", s ? s : "-", c ? c : "-", st ? st : "-");
  cJSON_Delete(r);
  return OC_OK;
}

static int run_results(const struct input *in)
{
  if(!in->len) {
    pf("empty\n");
    return OC_OK;
  }
  FILE *f = fmemopen((void *)in->bytes, in->len, "rb");
  if(!f) {
    fprintf(stderr, "torture: fmemopen failed\n");
    exit(99);
  }
  cJSON *frame = NULL;
  char err[1024];
  int rc = oc_results_read_each(f, "seed", take_result, NULL, &frame, err, sizeof(err));
  fclose(f);
  if(!rc)
    pf("frame: %d targets, total %g\n", cJSON_GetArraySize(oc_json_arr(frame, "targets")),
       oc_json_num(oc_json_obj(frame, "summary"), "total", -1));
  else if(rc != OC_ENOMEM)
    pf("refused (%d): %s\n", rc, err);
  cJSON_Delete(frame);
  /* a document at fault is a product like any other */
  return rc == OC_ENOMEM ? rc : OC_OK;
}

/* One analysis.  Everything it allocates is freed before it returns,
 * except the findings (the caller renders, then frees them). */
static int run(const struct input *in, struct oc_findings *f)
{
  int rc;
  char err[512];
  if(in->kind == SCHEMA)
    return run_schema(in);
  if(in->kind == SUITE)
    return run_suite(in);
  if(in->kind == EXCHANGE)
    return run_exchange(in, f);
  if(in->kind == RESULTS)
    return run_results(in);
  if(in->kind == CASSETTE) {
    struct oc_cassette k;
    oc_cassette_init(&k);
    rc = oc_cassette_decode(in->bytes, in->len, file, &k, err, sizeof(err));
    if(!rc) {
      describe(&k, "");
      rc = replay(&k, oc_profile_find(in->profile), 0, f);
    }
    oc_cassette_free(&k);
    return rc;
  }
  if(in->kind == RULEFILE) {
    /* the file's own profile and "partial"; a "case" line's expectations
     * are a suite's (not counted here): the generic rules run */
    struct oc_rulefile rf;
    oc_rulefile_init(&rf);
    rc = oc_rulefile_parse(in->bytes, in->len, file, &rf, err, sizeof(err));
    if(!rc) {
      char more[512];
      snprintf(more, sizeof(more), "what=%s profile=%s partial=%d case=%s findings=%zu",
               rf.what ? rf.what : "-", rf.profile->name, rf.partial, rf.expect_case ? "yes" : "no",
               rf.nfindings);
      describe(&rf.ex, more);
      rc = replay(&rf.ex, rf.profile, rf.partial, f);
    }
    oc_rulefile_free(&rf);
    return rc;
  }
  struct oc_check c;
  static struct oc_fuzz_input fz;
  if(!oc_fuzz_input_decode((const uint8_t *)in->bytes, in->len, &fz))
    return OC_EPARSE;
  struct oc_headers h;
  oc_headers_init(&h);
  rc = oc_headers_add(&h, "Content-Type", fz.content_type);
  if(!rc) {
    oc_check_init(&c, f, oc_profile_find(fz.profile));
    rc = oc_response_analyze(&schemas, &c, "POST", fz.path, fz.request, strlen(fz.request), 200, &h,
                             fz.body, fz.len, fz.pieces, fz.npieces);
  }
  oc_headers_free(&h);
  return rc;
}

/* The findings, every field of every one, as text (not counted). */
static char *render(const struct oc_findings *f)
{
  struct oc_buf b;
  oc_buf_init(&b, 1u << 26);
  oc_buf_adds(&b, decoded);
  oc_buf_add(&b, product.data ? product.data : "", product.len);
  for(size_t i = 0; i < f->count; i++) {
    const struct oc_finding *x = &f->items[i];
    oc_buf_printf(&b, "%s %s%s chunk=%ld byte=%lld path=%s\n  %s\n  expected=%s actual=%s\n",
                  oc_rule_name(x->rule), oc_severity_name(x->severity), x->allowed ? " allowed" : "",
                  x->chunk, (long long)x->byte, x->path ? x->path : "-", x->message ? x->message : "",
                  x->expected ? x->expected : "-", x->actual ? x->actual : "-");
  }
  for(size_t i = 0; i < f->ncounts; i++)
    oc_buf_printf(&b, "%s fired %zu, kept %zu\n", oc_rule_name(f->counts[i].rule), f->counts[i].total,
                  f->counts[i].kept);
  char *s = oc_buf_take(&b, NULL);
  if(!s) {
    fprintf(stderr, "torture: out of memory rendering findings\n");
    exit(99);
  }
  return s;
}

/* One counted run failing allocation n (0: none).  Returns the rendered
 * findings (caller frees) and the outcome through *rc, *leaked, *reached. */
static char *attempt(const struct input *in, long n, int *rc, long *leaked, int *reached, long *count)
{
  struct oc_findings f;
  oc_findings_init(&f);
  current = n;
  decoded[0] = '\0';
  oc_buf_reset(&product);
  torture_arm(n);
  *rc = run(in, &f);
  torture_disarm();
  *count = torture_count();
  *reached = torture_failed();
  char *text = render(&f);
  oc_findings_free(&f);
  *leaked = torture_live();
  current = 0;
  return text;
}

#ifdef OC_HAVE_DEATH_CALLBACK
static void on_death(void)
{
  if(current)
    fprintf(stderr, "torture: %s: crashed while allocation %ld was failed; repeat it alone with "
                    "tests/torture/torture --only %ld %s\n", file, current, current, file);
}
#endif

static void usage(void)
{
  fprintf(stderr, "usage: torture [--profile P] [--kind schema|suite|exchange|results] [--only N] [--verbose] FILE\n");
  exit(99);
}

int main(int argc, char **argv)
{
  struct input in = { SEED, NULL, 0, "openai" };
  long only = 0;
  int i = 1, verbose = 0;
  const char *kind = NULL;
  for(; i < argc && argv[i][0] == '-'; i++) {
    if(strcmp(argv[i], "--profile") == 0 && i + 1 < argc)
      in.profile = argv[++i];
    else if(strcmp(argv[i], "--verbose") == 0)
      verbose = 1;
    else if(strcmp(argv[i], "--kind") == 0 && i + 1 < argc)
      kind = argv[++i];
    else if(strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      if(oc_parse_long(argv[++i], 1, 1L << 40, &only))
        usage();
    }
    else
      usage();
  }
  if(i + 1 != argc)
    usage();
  file = argv[i];
  torture_init();
#ifdef OC_HAVE_DEATH_CALLBACK
  __sanitizer_set_death_callback(on_death);
#endif
  const char *src = getenv("OACHECK_SRCDIR");
  if(src && *src)
    setenv("OACHECK_DATADIR", src, 1);
  char err[1024];
  if(oc_schemas_load(&schemas, err, sizeof(err))) {
    fprintf(stderr, "torture: cannot load the shipped schemas: %s\n", err);
    return 99;
  }
  if(oc_read_file(file, OC_CAP_FILE, &in.bytes, &in.len, err, sizeof(err))) {
    fprintf(stderr, "torture: %s\n", err);
    return 99;
  }
  in.kind = oc_endswith(file, OC_CASSETTE_EXT) ? CASSETTE
            : oc_endswith(file, OC_RULEFILE_EXT) ? RULEFILE : SEED;
  if(kind) {
    if(strcmp(kind, "schema") == 0)
      in.kind = SCHEMA;
    else if(strcmp(kind, "suite") == 0)
      in.kind = SUITE;
    else if(strcmp(kind, "exchange") == 0)
      in.kind = EXCHANGE;
    else if(strcmp(kind, "results") == 0)
      in.kind = RESULTS;
    else
      usage();
  }
  if(in.kind == RESULTS) {
    /* the results schemas are compiled on first use and kept: compiled
     * here, before anything is counted, by a document that needs both */
    static const char warm[] =
      "{\"oacheck\":{\"version\":\"0\",\"started\":\"2026-01-01T00:00:00Z\",\"mode\":\"live\"},"
      "\"targets\":[],\"summary\":{\"total\":1,\"pass\":1,\"fail\":0,\"error\":0,\"skip\":0},"
      "\"results\":[{\"target\":\"a\",\"suite\":\"s\",\"case\":\"c\",\"status\":\"pass\",\"findings\":[]}]}";
    FILE *wf = fmemopen((void *)warm, sizeof(warm) - 1, "rb");
    cJSON *frame = NULL;
    int wrc = wf ? oc_results_read_each(wf, "warm-up", take_result, NULL, &frame, err, sizeof(err)) : OC_EIO;
    if(wf)
      fclose(wf);
    cJSON_Delete(frame);
    if(wrc) {
      fprintf(stderr, "torture: the results schemas do not load: %s\n", err);
      return 99;
    }
  }
  if(in.kind == SUITE) {
    suite_schema = oc_schema_compile_uri(schemas.reg, OC_SCHEMA_SHIPPED_BASE "suite.schema.json", 0, err,
                                         sizeof(err));
    target_vars = cJSON_Parse("{\"MODEL\":\"m\",\"N_CTX\":4096,\"N_CTX_HALF\":2048,"
                              "\"CTX_WORDS_UNDER\":100,\"CTX_WORDS_AT\":101,\"CTX_WORDS_OVER\":102}");
    if(!suite_schema || !target_vars) {
      fprintf(stderr, "torture: cannot compile the suite schema: %s\n", err);
      return 99;
    }
  }
  /* the product's room, taken before anything is counted */
  oc_buf_init(&product, PRODUCT_ROOM);
  {
    char *fill = calloc(1, PRODUCT_ROOM);
    if(!fill || oc_buf_add(&product, fill, PRODUCT_ROOM - 1)) {
      fprintf(stderr, "torture: out of memory\n");
      return 99;
    }
    free(fill);
    oc_buf_reset(&product);
  }
  if(!oc_profile_find(in.profile)) {
    fprintf(stderr, "torture: no profile '%s'\n", in.profile);
    return 99;
  }

  /* a warm-up fills what is built once per process (lazy tables), so
   * that the reference counts only what every run allocates */
  int rc, reached;
  long leaked, total;
  free(attempt(&in, 0, &rc, &leaked, &reached, &total));
  char *want = attempt(&in, 0, &rc, &leaked, &reached, &total);
  if(rc || leaked) {
    fprintf(stderr, "torture: %s: the reference run %s\n", file,
            rc ? "failed" : "leaked");
    return 99;
  }
  long points = total;
  long from = only ? only : 1, to = only ? only : points;
  long nomem = 0, absorbed = 0, bad = 0;
  for(long n = from; n <= to; n++) {
    char *got = attempt(&in, n, &rc, &leaked, &reached, &total);
    const char *why = NULL;
    if(!reached)
      why = "never reached that allocation: a failure in an earlier run changed what later runs do";
    else if(leaked)
      why = "left blocks allocated";
    else if(rc == OC_ENOMEM)
      nomem++;
    else if(rc)
      why = "failed with an error other than OC_ENOMEM";
    else if(strcmp(got, want) != 0)
      why = "returned OC_OK with other findings than the reference: a silent wrong verdict";
    else {
      absorbed++;
      if(verbose)
        fprintf(stderr, "torture: %s: allocation %ld: absorbed, same findings\n", file, n);
    }
    if(why) {
      bad++;
      fprintf(stderr, "torture: %s: allocation %ld of %ld failed: the run %s", file, n, points, why);
      if(leaked)
        fprintf(stderr, " (%ld blocks)", leaked);
      if(rc && rc != OC_ENOMEM)
        fprintf(stderr, " (rc %d)", rc);
      fprintf(stderr, "; repeat it alone with tests/torture/torture --only %ld%s%s%s%s %s\n", n,
              in.kind == CASSETTE ? " --profile " : "", in.kind == CASSETTE ? in.profile : "",
              kind ? " --kind " : "", kind ? kind : "", file);
      if(only && !rc && strcmp(got, want) != 0)
        fprintf(stderr, "--- reference\n%s--- with allocation %ld failed\n%s", want, n, got);
    }
    free(got);
  }
  printf("torture: %s: %ld allocation points failed one at a time: %ld ran out of memory cleanly "
         "(OC_ENOMEM), %ld were absorbed with the same findings, %ld did not hold\n",
         file, to - from + 1, nomem, absorbed, bad);
  free(want);
  free(in.bytes);
  oc_buf_free(&product);
  oc_schema_free(suite_schema);
  cJSON_Delete(target_vars);
  oc_schemas_free(&schemas);
  return bad ? 1 : 0;
}
