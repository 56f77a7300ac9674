/* cli.h — the subcommand table, exit codes, and the one option parser
 * every subcommand uses: a table of options (git's parse-options shape)
 * from which parsing, validation of values and --help all come, with the
 * groups several commands share (targets, transport, reports,
 * verbosity).  Each subcommand lives in its own cmd_<name>.c, declares its
 * table and returns the process exit status. */
#ifndef OC_CLI_H
#define OC_CLI_H

#include <stddef.h>
#include <stdio.h>

/* Exit statuses, as DESIGN.md fixes them. */
enum oc_exit {
  OC_EXIT_OK = 0,          /* every case passed or was skipped */
  OC_EXIT_FAIL = 1,        /* a case failed or errored; an instance is invalid */
  OC_EXIT_USAGE = 2,       /* bad usage, or a suite/schema that cannot be loaded */
  OC_EXIT_UNREACHABLE = 3  /* no target could be reached at all */
};

struct oc_command {
  const char *name;
  int (*run)(int argc, char **argv); /* NULL: not built yet */
  const char *summary;               /* one line for `oacheck --help` */
};

/* The table, terminated by a NULL name. */
extern const struct oc_command oc_commands[];

int oc_cli_main(int argc, char **argv);

/* ---- options ------------------------------------------------------------- */

/* Strings given to a repeatable option, or positional arguments, in
 * order; borrowed from argv. */
struct oc_strlist {
  const char **items;
  size_t n, alloc;
};
int oc_strlist_add(struct oc_strlist *l, const char *s);
void oc_strlist_free(struct oc_strlist *l);

enum oc_opt_kind {
  OC_OPT__END = 0,
  OC_OPT__GROUP,      /* a heading in --help */
  OC_OPT__FLAG,       /* int *value = 1 */
  OC_OPT__STRING,     /* const char **value; the last one given wins */
  OC_OPT__LIST,       /* struct oc_strlist *value; every one, in order */
  OC_OPT__INT,        /* int *value, in [min, max] */
  OC_OPT__LONG,       /* long *value, in [min, max] */
  OC_OPT__SECONDS,    /* long *value in milliseconds, from seconds in (0, max] */
  OC_OPT__DOUBLE,     /* double *value, in (min, max] */
  OC_OPT__CALLBACK,   /* callback(o, arg, err) with arg NULL when argh is NULL */
  OC_OPT__VERBOSE,    /* -v: one level more; int *value (may be NULL) counts */
  OC_OPT__QUIET       /* -q: errors only */
};

struct oc_option;
/* Takes the option's value; returns 0, or writes why into err (errlen
 * bytes, no trailing full stop) and returns nonzero: a usage error. */
typedef int (*oc_opt_cb)(const struct oc_option *o, const char *arg, char *err, size_t errlen);

struct oc_option {
  enum oc_opt_kind kind;
  char short_name;        /* 'j', or 0 */
  const char *long_name;  /* "jobs" (for a group: its heading) */
  void *value;
  const char *argh;       /* the value's name in --help ("N"); NULL: takes none */
  const char *help;       /* may hold '\n' for further lines */
  long min, max;
  oc_opt_cb callback;
};

#define OC_OPT_END() { OC_OPT__END, 0, NULL, NULL, NULL, NULL, 0, 0, NULL }
#define OC_OPT_GROUP(title) { OC_OPT__GROUP, 0, title, NULL, NULL, NULL, 0, 0, NULL }
#define OC_OPT_FLAG(s, l, v, h) { OC_OPT__FLAG, s, l, v, NULL, h, 0, 0, NULL }
#define OC_OPT_STRING(s, l, v, a, h) { OC_OPT__STRING, s, l, v, a, h, 0, 0, NULL }
#define OC_OPT_LIST(s, l, v, a, h) { OC_OPT__LIST, s, l, v, a, h, 0, 0, NULL }
#define OC_OPT_INT(s, l, v, a, lo, hi, h) { OC_OPT__INT, s, l, v, a, h, lo, hi, NULL }
#define OC_OPT_LONG(s, l, v, a, lo, hi, h) { OC_OPT__LONG, s, l, v, a, h, lo, hi, NULL }
#define OC_OPT_SECONDS(s, l, v, h) { OC_OPT__SECONDS, s, l, v, "S", h, 0, 86400, NULL }
#define OC_OPT_DOUBLE(s, l, v, a, lo, hi, h) { OC_OPT__DOUBLE, s, l, v, a, h, lo, hi, NULL }
#define OC_OPT_CALLBACK(s, l, v, a, cb, h) { OC_OPT__CALLBACK, s, l, v, a, h, 0, 0, cb }
#define OC_OPT_VERBOSE(v, h) { OC_OPT__VERBOSE, 'v', "verbose", v, NULL, h, 0, 0, NULL }
#define OC_OPT_QUIET() { OC_OPT__QUIET, 'q', "quiet", NULL, NULL, "quiet: no warnings, and no line for a case\nthat passed or was skipped", 0, 0, NULL }

/* One command's parser: what --help prints above and below the table. */
struct oc_cli {
  const char *cmd;                 /* "run" (NULL: the top level) */
  const char *usage;               /* "Usage: …" and what the command does */
  const char *footer;              /* after the options (exit statuses), or NULL */
  const struct oc_option *options; /* ended by OC_OPT_END() */
};

/* Parse argv[1..argc) against cli->options; options and positional
 * arguments may be mixed, "--" ends the options, "--name=value" and
 * "-j4" work.  Positional arguments are appended to args (may be NULL
 * when the command takes none).  Returns -1 to go on, OC_EXIT_OK after
 * printing --help, or OC_EXIT_USAGE after printing a usage error. */
int oc_cli_parse(const struct oc_cli *cli, int argc, char **argv, struct oc_strlist *args);
/* --help, generated from the table. */
void oc_cli_help(const struct oc_cli *cli, FILE *out);

/* ---- shared groups ------------------------------------------------------- */

/* Where a command's targets come from (built by oc_targets_build,
 * target.h). */
struct oc_target_args {
  struct oc_strlist targets;       /* --target [NAME=]URL */
  struct oc_strlist replays;       /* --replay DIR */
  const char *targets_file;        /* --targets FILE */
};

#define OC_OPT_TARGETS(ta)                                                                  \
  OC_OPT_GROUP("Targets:"),                                                                 \
  OC_OPT_LIST('t', "target", &(ta)->targets, "[NAME=]URL",                                  \
              "a live server (its root; a trailing /v1 is taken off, a\n"                  \
              "full endpoint such as /v1/chat/completions refused);\n"                      \
              "'env' uses $OPENAI_BASE_URL; repeatable"),                                   \
  OC_OPT_STRING(0, "targets", &(ta)->targets_file, "FILE",                                  \
                "several targets, each with name, url or recordings,\n"                     \
                "profile, model, key_env, headers, allow, ctx_size;\n"                      \
                "a member not of these is an error"),                                      \
  OC_OPT_LIST(0, "replay", &(ta)->replays, "DIR",                                           \
              "replay the recordings in DIR (cassettes or raw exchanges)")

/* Where reports go. */
struct oc_report_args {
  const char *json, *junit, *html;
};

/* When a report (or also, another output such as --markdown) is "-",
 * stdout becomes the report's alone and everything else a command says
 * goes to stderr (oc_stdout_to_report).  Called once the arguments are
 * read, before the command's first line.  OC_OK, or OC_EIO said as the
 * command's error. */
int oc_cli_reports_take_stdout(const char *cmd, const struct oc_report_args *ra, const char *also);

#define OC_OPT_REPORTS(ra)                                                                  \
  OC_OPT_STRING(0, "json", &(ra)->json, "FILE", "write the results (the canonical report)"), \
  OC_OPT_STRING(0, "junit", &(ra)->junit, "FILE", "write JUnit XML"),                        \
  OC_OPT_STRING(0, "html", &(ra)->html, "FILE", "write a self-contained HTML report")

/* --allow RULE: into a struct oc_ruleset (rules.h), checked against the
 * catalogue as it is read. */
int oc_cli_opt_allow(const struct oc_option *o, const char *arg, char *err, size_t errlen);
#define OC_OPT_ALLOW(set)                                                                   \
  OC_OPT_CALLBACK(0, "allow", set, "RULE", oc_cli_opt_allow,                                \
                  "downgrade a rule (or FAMILY-*) to a warning; repeatable")

/* The verdict policy (verdict.h, docs/clients.md): whose breaks fail a
 * case, and --strict, the specification's verdict. */
struct oc_verdict_args {
  unsigned clients;                /* a bit per enum oc_client_id */
  int clients_given;               /* --clients was given (else today's seven) */
  int strict;
};
int oc_cli_opt_clients(const struct oc_option *o, const char *arg, char *err, size_t errlen);
#define OC_OPT_VERDICT(va)                                                                  \
  OC_OPT_CALLBACK(0, "clients", va, "LIST", oc_cli_opt_clients,                             \
                  "the clients whose break fails a case (default all:\n"                    \
                  "openai-node, openai-node-stream, ai-sdk, langchain,\n"                   \
                  "openai-python, openai-python-stream,\n"                                  \
                  "openai-agents-chat; or none); last year's majors\n"                      \
                  "by name: openai-node@6, openai-node-stream@6,\n"                         \
                  "ai-sdk@5, langchain@0.6; the agents codex and\n"                         \
                  "claude-code (in all)"),                                                  \
  OC_OPT_FLAG(0, "strict", &(va)->strict,                                                   \
              "every error fails its case, whether it breaks a client\n"                    \
              "or not (the specification's verdict)")
/* The selected clients of a (today's seven when --clients was not given). */
unsigned oc_verdict_args_clients(const struct oc_verdict_args *a);

#define OC_OPT_VERBOSITY(count)                                                             \
  OC_OPT_VERBOSE(count, "say more (repeat for trace output)"),                              \
  OC_OPT_QUIET()
/* Print "oacheck CMD: MESSAGE" and "Try 'oacheck CMD --help'" to stderr;
 * returns OC_EXIT_USAGE. */
int oc_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

int oc_cmd_help(int argc, char **argv);
int oc_cmd_validate(int argc, char **argv);
int oc_cmd_rules(int argc, char **argv);
int oc_cmd_run(int argc, char **argv);
int oc_cmd_record(int argc, char **argv);
int oc_cmd_serve(int argc, char **argv);
int oc_cmd_proxy(int argc, char **argv);
int oc_cmd_report(int argc, char **argv);
int oc_cmd_templates(int argc, char **argv);
int oc_cmd_pin(int argc, char **argv);
int oc_cmd_check(int argc, char **argv);

/* `run`, and live `record` (cmd_run.c): record adds --out DIR, where a
 * cassette of every exchange goes. */
int oc_run_main(int argc, char **argv, const char *cmd, int record);

#endif
