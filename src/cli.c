/* cli.c — the subcommand table, global options (--help, --version, -v,
 * -q), usage errors, and the option parser every subcommand calls with
 * its table (cli.h).  What an option means is the command's business. */
#include "config.h"
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "json.h"
#include "rules.h"
#include "util.h"

/* A subcommand that is planned but not built yet must say so and fail:
 * never a silent success that a CI job could mistake for a pass. */
const struct oc_command oc_commands[] = {
  { "run", oc_cmd_run, "run suites against targets (or the shipped recordings) and report" },
  { "check", oc_cmd_check, "judge a captured response (curl output, HAR, cassette) without a server" },
  { "record", oc_cmd_record, "run suites live and write a cassette per case" },
  { "serve", oc_cmd_serve, "serve recordings over HTTP, with injected faults" },
  { "proxy", oc_cmd_proxy, "judge the live traffic of a real client with a real server" },
  { "templates", oc_cmd_templates, "compare chat templates across targets" },
  { "pin", oc_cmd_pin, "check that a deployment still serves what was pinned" },
  { "report", oc_cmd_report, "render, merge and diff JSON results" },
  { "validate", oc_cmd_validate, "validate JSON files against a JSON Schema" },
  { "rules", oc_cmd_rules, "list the rule catalogue or explain one rule" },
  { "help", oc_cmd_help, "show help for oacheck or a subcommand" },
  { NULL, NULL, NULL },
};

static const struct oc_command *find_command(const char *name)
{
  for(const struct oc_command *c = oc_commands; c->name; c++)
    if(strcmp(c->name, name) == 0)
      return c;
  return NULL;
}

static void print_usage(FILE *out)
{
  fprintf(out,
          "Usage: oacheck [-v|-q] COMMAND [ARGS]...\n"
          "Conformance checks for OpenAI-compatible HTTP endpoints.\n"
          "\n"
          "Commands:\n");
  for(const struct oc_command *c = oc_commands; c->name; c++)
    fprintf(out, "  %-10s %s%s\n", c->name, c->summary, c->run ? "" : " (not built yet)");
  fprintf(out,
          "\n"
          "Options:\n"
          "  -h, --help     show this help and exit\n"
          "      --version  show the version and exit\n"
          "  -v, --verbose  say more (repeat for trace output)\n"
          "  -q, --quiet    no warnings; no line for a case that passed or was skipped\n"
          "\n"
          "'oacheck COMMAND --help' describes a command.  With no command, 'oacheck'\n"
          "shows this help.\n"
          "Exit status: 0 all passed or skipped, 1 a case failed or errored,\n"
          "2 usage error or a suite or schema that cannot be loaded, 3 no target reachable,\n"
          "130/143 stopped by SIGINT/SIGTERM (the finished cases are written, marked incomplete).\n");
}

int oc_cli_reports_take_stdout(const char *cmd, const struct oc_report_args *ra, const char *also)
{
  if(!oc_streq(ra->json, "-") && !oc_streq(ra->junit, "-") && !oc_streq(ra->html, "-") &&
     !oc_streq(also, "-"))
    return OC_OK;
  if(oc_stdout_to_report() == OC_OK)
    return OC_OK;
  fprintf(stderr, "oacheck %s: cannot keep standard output for the report: %s\n", cmd, strerror(errno));
  return OC_EIO;
}

int oc_cli_usage_error(const char *cmd, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "oacheck%s%s: ", cmd ? " " : "", cmd ? cmd : "");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\nTry 'oacheck%s%s --help'\n", cmd ? " " : "", cmd ? cmd : "");
  va_end(ap);
  return OC_EXIT_USAGE;
}

static void cli_verbose(void)
{
  oc_log_set_level(oc_log_get_level() + 1);
}

static void cli_quiet(void)
{
  oc_log_set_level(OC_LOG_ERROR);
}

/* ---- options ------------------------------------------------------------- */

int oc_strlist_add(struct oc_strlist *l, const char *s)
{
  const char **d = oc_array_grow(l->items, &l->alloc, l->n + 1, sizeof(*d));
  if(!d)
    return OC_ENOMEM;
  d[l->n++] = s;
  l->items = d;
  return OC_OK;
}

void oc_strlist_free(struct oc_strlist *l)
{
  free(l->items);
  memset(l, 0, sizeof(*l));
}

/* "--jobs" or "-j" as the user wrote it, for messages. */
static const char *opt_label(const struct oc_option *o, int as_short, char buf[8])
{
  if(as_short || !o->long_name) {
    snprintf(buf, 8, "-%c", o->short_name);
    return buf;
  }
  return NULL;
}

/* Store arg (NULL when the option takes none) into o->value. */
static int opt_apply(const struct oc_cli *cli, const struct oc_option *o, int as_short,
                     const char *arg)
{
  char sb[8];
  const char *s = opt_label(o, as_short, sb);
  const char *pre = s ? "" : "--";
  const char *name = s ? s : o->long_name;
  char err[512];
  long v;
  double d;
  switch(o->kind) {
  case OC_OPT__FLAG:
    *(int *)o->value = 1;
    return 0;
  case OC_OPT__VERBOSE:
    if(o->value)
      (*(int *)o->value)++;
    cli_verbose();
    return 0;
  case OC_OPT__QUIET:
    cli_quiet();
    return 0;
  case OC_OPT__STRING:
    *(const char **)o->value = arg;
    return 0;
  case OC_OPT__LIST:
    if(oc_strlist_add(o->value, arg))
      return oc_cli_usage_error(cli->cmd, "out of memory");
    return 0;
  case OC_OPT__INT:
  case OC_OPT__LONG:
    if(oc_parse_long(arg, o->min, o->max, &v))
      return oc_cli_usage_error(cli->cmd, "%s%s wants a whole number in %ld..%ld, not '%s'", pre,
                                name, o->min, o->max, arg);
    if(o->kind == OC_OPT__INT)
      *(int *)o->value = (int)v;
    else
      *(long *)o->value = v;
    return 0;
  case OC_OPT__SECONDS:
    if(oc_parse_double(arg, &d) || !(d > 0) || d > (double)o->max)
      return oc_cli_usage_error(cli->cmd, "%s%s wants seconds (0 < S <= %ld), not '%s'", pre, name,
                                o->max, arg);
    *(long *)o->value = (long)(d * 1000.0);
    return 0;
  case OC_OPT__DOUBLE:
    if(oc_parse_double(arg, &d) || !(d > (double)o->min) || d > (double)o->max)
      return oc_cli_usage_error(cli->cmd, "%s%s wants a number in (%ld, %ld], not '%s'", pre, name,
                                o->min, o->max, arg);
    *(double *)o->value = d;
    return 0;
  case OC_OPT__CALLBACK:
    err[0] = '\0';
    if(o->callback(o, arg, err, sizeof(err)))
      return oc_cli_usage_error(cli->cmd, "%s%s: %s", pre, name, err[0] ? err : "invalid value");
    return 0;
  case OC_OPT__END:
  case OC_OPT__GROUP:
    break;
  }
  return oc_cli_usage_error(cli->cmd, "%s%s: not an option", pre, name);
}

static const struct oc_option *find_long(const struct oc_option *opts, const char *name, size_t n)
{
  for(const struct oc_option *o = opts; o->kind != OC_OPT__END; o++)
    if(o->kind != OC_OPT__GROUP && o->long_name && strlen(o->long_name) == n &&
       strncmp(o->long_name, name, n) == 0)
      return o;
  return NULL;
}

static const struct oc_option *find_short(const struct oc_option *opts, char c)
{
  for(const struct oc_option *o = opts; o->kind != OC_OPT__END; o++)
    if(o->kind != OC_OPT__GROUP && o->short_name == c)
      return o;
  return NULL;
}

int oc_cli_parse(const struct oc_cli *cli, int argc, char **argv, struct oc_strlist *args)
{
  int only_args = 0;
  for(int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if(only_args || a[0] != '-' || !a[1]) {
      if(!args)
        return oc_cli_usage_error(cli->cmd, "unexpected argument '%s'", a);
      if(oc_strlist_add(args, a))
        return oc_cli_usage_error(cli->cmd, "out of memory");
      continue;
    }
    if(strcmp(a, "--") == 0) {
      only_args = 1;
      continue;
    }
    if(strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      oc_cli_help(cli, stdout);
      return OC_EXIT_OK;
    }
    if(a[1] == '-') {
      const char *name = a + 2, *eq = strchr(name, '=');
      size_t n = eq ? (size_t)(eq - name) : strlen(name);
      const struct oc_option *o = find_long(cli->options, name, n);
      if(!o)
        return oc_cli_usage_error(cli->cmd, "unknown option '%.*s'", (int)(n + 2), a);
      const char *arg = NULL;
      if(o->argh) {
        if(eq)
          arg = eq + 1;
        else if(i + 1 < argc)
          arg = argv[++i];
        else
          return oc_cli_usage_error(cli->cmd, "option '--%s' needs a value (%s)", o->long_name,
                                    o->argh);
      }
      else if(eq)
        return oc_cli_usage_error(cli->cmd, "option '--%s' takes no value", o->long_name);
      int rc = opt_apply(cli, o, 0, arg);
      if(rc)
        return rc;
      continue;
    }
    /* short options: "-vq" bundles flags, "-j4" and "-j 4" take a value */
    for(const char *p = a + 1; *p; p++) {
      const struct oc_option *o = find_short(cli->options, *p);
      if(!o)
        return oc_cli_usage_error(cli->cmd, "unknown option '-%c'", *p);
      const char *arg = NULL;
      if(o->argh) {
        if(p[1])
          arg = p + 1;
        else if(i + 1 < argc)
          arg = argv[++i];
        else
          return oc_cli_usage_error(cli->cmd, "option '-%c' needs a value (%s)", *p, o->argh);
      }
      int rc = opt_apply(cli, o, 1, arg);
      if(rc)
        return rc;
      if(arg)
        break;
    }
  }
  return -1;
}

int oc_cli_opt_allow(const struct oc_option *o, const char *arg, char *err, size_t errlen)
{
  if(oc_ruleset_add_pattern(o->value, arg) == OC_OK)
    return 0;
  char near[140];
  if(oc_rule_suggest(arg, near, sizeof(near)))
    snprintf(err, errlen, "unknown rule or family '%s': did you mean '%s'? ('oacheck rules' lists them)",
             arg, near);
  else
    snprintf(err, errlen, "unknown rule or family '%s' ('oacheck rules' lists them)", arg);
  return 1;
}

int oc_cli_opt_clients(const struct oc_option *o, const char *arg, char *err, size_t errlen)
{
  struct oc_verdict_args *a = o->value;
  unsigned mask;
  if(oc_clients_parse(arg, &mask, err, errlen))
    return 1;
  a->clients = a->clients_given ? a->clients | mask : mask;
  a->clients_given = 1;
  return 0;
}

unsigned oc_verdict_args_clients(const struct oc_verdict_args *a)
{
  return a->clients_given ? a->clients : OC_CLIENTS_DEFAULT;
}

#define HELP_COLUMN 27

static void help_line(FILE *out, const char *left, const char *help)
{
  int w = fprintf(out, "%s", left);
  const char *h = help ? help : "";
  for(int first = 1; first || *h; first = 0) {
    size_t n = strcspn(h, "\n");
    if(w >= HELP_COLUMN || !first) {
      if(first) {
        fputc('\n', out);
        w = 0;
      }
      fprintf(out, "%*s", HELP_COLUMN, "");
    }
    else
      fprintf(out, "%*s", HELP_COLUMN - w, "");
    fprintf(out, "%.*s\n", (int)n, h);
    h += n;
    if(*h == '\n')
      h++;
  }
}

void oc_cli_help(const struct oc_cli *cli, FILE *out)
{
  fputs(cli->usage, out);
  const struct oc_option *o = cli->options;
  if(o->kind != OC_OPT__GROUP)
    fputs("\nOptions:\n", out);
  for(; o->kind != OC_OPT__END; o++) {
    if(o->kind == OC_OPT__GROUP) {
      fprintf(out, "\n%s\n", o->long_name);
      continue;
    }
    char left[96];
    char sh[8] = "    ";
    if(o->short_name)
      snprintf(sh, sizeof(sh), "-%c, ", o->short_name);
    snprintf(left, sizeof(left), "  %s%s%s%s%s", sh, o->long_name ? "--" : "",
             o->long_name ? o->long_name : "", o->argh ? " " : "", o->argh ? o->argh : "");
    help_line(out, left, o->help);
  }
  help_line(out, "  -h, --help", "show this help and exit");
  if(cli->footer)
    fprintf(out, "\n%s", cli->footer);
}

static int not_built(const struct oc_command *c)
{
  fprintf(stderr, "oacheck: '%s' is not built yet in this version (%s)\n", c->name, PACKAGE_VERSION);
  return OC_EXIT_USAGE;
}

int oc_cmd_help(int argc, char **argv)
{
  if(argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    print_usage(stdout);
    return OC_EXIT_OK;
  }
  const struct oc_command *c = find_command(argv[1]);
  if(!c)
    return oc_cli_usage_error(NULL, "unknown command '%s'", argv[1]);
  if(!c->run)
    return not_built(c);
  char *sub[] = { argv[1], (char *)"--help", NULL };
  return c->run(2, sub);
}

int oc_cli_main(int argc, char **argv)
{
  oc_json_init();
  int i = 1;
  for(; i < argc && argv[i][0] == '-'; i++) {
    const char *a = argv[i];
    if(strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      print_usage(stdout);
      return OC_EXIT_OK;
    }
    else if(strcmp(a, "--version") == 0) {
      printf("oacheck %s\n", PACKAGE_VERSION);
      return OC_EXIT_OK;
    }
    else if(strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0)
      cli_verbose();
    else if(strcmp(a, "-vv") == 0) {
      cli_verbose();
      cli_verbose();
    }
    else if(strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0)
      cli_quiet();
    else
      return oc_cli_usage_error(NULL, "unknown option '%s'", a);
  }
  if(i >= argc) {
    print_usage(stdout);
    return OC_EXIT_OK;
  }
  const struct oc_command *c = find_command(argv[i]);
  if(!c)
    return oc_cli_usage_error(NULL, "unknown command '%s'", argv[i]);
  if(!c->run)
    return not_built(c);
  return c->run(argc - i, argv + i);
}
