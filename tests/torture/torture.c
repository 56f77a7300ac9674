/* torture.c — the allocation-failure run over one input file: the
 * response decoder is run once for reference, then once more for every
 * allocation it makes, with exactly that allocation failing.  Each run
 * must end cleanly: no crash (ASan), no block left (the shim's live set;
 * LeakSanitizer at exit), and either OC_ENOMEM or the very findings of the
 * reference — a failure that changes a verdict without saying so is the
 * bug this looks for.  The shipped schemas are loaded before counting
 * starts.  Inputs: a recording (*.cassette.gz: decoded and analysed, both
 * counted) or a fuzz seed (tests/fuzz/fuzz_input.h's format).  Which files
 * make the corpus is tests/torture/run.sh's business.
 *
 *   torture [--profile P] [--only N] [--verbose] FILE
 *
 * (--verbose names every failure that was absorbed; TORTURE_STACK=1 prints
 * the stack of the failing allocation, with --only the place to look)
 *
 * prints one line: how many allocation points were failed and how each
 * run ended; exit 0 when every run held, 1 when one did not (each named,
 * with the command that repeats it alone), 99 on a setup error. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cassette.h"
#include "finding.h"
#include "fuzz_input.h"
#include "response.h"
#include "rules.h"
#include "shim.h"
#include "util.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define OC_HAVE_DEATH_CALLBACK 1
#endif

static struct oc_schemas schemas;
static const char *file;
static long current; /* the allocation being failed, for a crash report */

struct input {
  int cassette;
  char *bytes;
  size_t len;
  const char *profile;
};

/* What a recording was read as, beside its findings: a failure in the
 * reader must not change them without saying so either (a key computed
 * from the raw bytes instead of the canonical JSON would miss on replay). */
static char decoded[1024];

/* One analysis.  Everything it allocates is freed before it returns,
 * except the findings (the caller renders, then frees them). */
static int run(const struct input *in, struct oc_findings *f)
{
  struct oc_check c;
  int rc;
  if(in->cassette) {
    struct oc_cassette k;
    char err[512];
    oc_cassette_init(&k);
    rc = oc_cassette_decode(in->bytes, in->len, file, &k, err, sizeof(err));
    size_t *ends = NULL;
    if(!rc && k.npieces && !(ends = calloc(k.npieces, sizeof(*ends))))
      rc = OC_ENOMEM;
    for(size_t i = 0; !rc && i < k.npieces; i++)
      ends[i] = k.pieces[i].end;
    if(!rc)
      snprintf(decoded, sizeof(decoded),
               "name=%s key=%s %s %s status=%d reason=%s pieces=%zu timing=%d complete=%d "
               "source=%s recorded_at=%s server=%s note=%s test_only=%d headers=%zu/%zu\n",
               k.name ? k.name : "-", k.key, k.method ? k.method : "-", k.path ? k.path : "-",
               k.status, k.reason ? k.reason : "-", k.npieces, k.timing_recorded, k.complete,
               k.source ? k.source : "-", k.recorded_at ? k.recorded_at : "-",
               k.server ? k.server : "-", k.note ? k.note : "-", k.test_only, k.req_headers.count,
               k.headers.count);
    if(!rc) {
      oc_check_init(&c, f, oc_profile_find(in->profile));
      rc = oc_response_analyze(&schemas, &c, k.method, k.path, k.req_body, k.req_body_len, k.status,
                               &k.headers, k.body, k.body_len, ends, k.npieces);
    }
    free(ends);
    oc_cassette_free(&k);
    return rc;
  }
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
  fprintf(stderr, "usage: torture [--profile P] [--only N] [--verbose] FILE\n");
  exit(99);
}

int main(int argc, char **argv)
{
  struct input in = { 0, NULL, 0, "openai" };
  long only = 0;
  int i = 1, verbose = 0;
  for(; i < argc && argv[i][0] == '-'; i++) {
    if(strcmp(argv[i], "--profile") == 0 && i + 1 < argc)
      in.profile = argv[++i];
    else if(strcmp(argv[i], "--verbose") == 0)
      verbose = 1;
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
  in.cassette = oc_endswith(file, OC_CASSETTE_EXT);
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
      fprintf(stderr, "; repeat it alone with tests/torture/torture --only %ld%s%s %s\n", n,
              in.cassette ? " --profile " : "", in.cassette ? in.profile : "", file);
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
  oc_schemas_free(&schemas);
  return bad ? 1 : 0;
}
