/* cli.c — the subcommand table, global options (--help, --version, -v,
 * -q) and usage errors.  Subcommands parse their own options. */
#include "config.h"
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

/* A subcommand that is planned but not built yet must say so and fail:
 * never a silent success that a CI job could mistake for a pass. */
const struct oc_command oc_commands[] = {
  { "run", oc_cmd_run, "run suites against targets (or the shipped recordings) and report" },
  { "record", oc_cmd_record, "run suites live and write a cassette per case" },
  { "serve", oc_cmd_serve, "serve recordings over HTTP, with injected faults" },
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
          "  -q, --quiet    print errors only\n"
          "\n"
          "'oacheck COMMAND --help' describes a command.  With no command, 'oacheck'\n"
          "shows this help.\n"
          "Exit status: 0 all passed or skipped, 1 a case failed or errored,\n"
          "2 usage error or a suite or schema that cannot be loaded, 3 no target reachable.\n");
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

void oc_cli_verbose(void)
{
  oc_log_set_level(oc_log_get_level() + 1);
}

void oc_cli_quiet(void)
{
  oc_log_set_level(OC_LOG_ERROR);
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
      oc_cli_verbose();
    else if(strcmp(a, "-vv") == 0) {
      oc_cli_verbose();
      oc_cli_verbose();
    }
    else if(strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0)
      oc_cli_quiet();
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
