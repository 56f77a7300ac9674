/* cli.h — the subcommand table, exit codes and the helpers every
 * subcommand shares (usage errors, -v/-q).  Each subcommand lives in its
 * own cmd_<name>.c and returns the process exit status. */
#ifndef OC_CLI_H
#define OC_CLI_H

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
/* Print "oacheck CMD: MESSAGE" and "Try 'oacheck CMD --help'" to stderr;
 * returns OC_EXIT_USAGE. */
int oc_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Apply a verbosity flag seen by a subcommand's option parser. */
void oc_cli_verbose(void);
void oc_cli_quiet(void);

int oc_cmd_help(int argc, char **argv);
int oc_cmd_validate(int argc, char **argv);
int oc_cmd_rules(int argc, char **argv);
int oc_cmd_run(int argc, char **argv);
int oc_cmd_record(int argc, char **argv);
int oc_cmd_serve(int argc, char **argv);
int oc_cmd_report(int argc, char **argv);
int oc_cmd_templates(int argc, char **argv);
int oc_cmd_pin(int argc, char **argv);

/* `run`, and `record` when record_dir is given (cmd_run.c). */
int oc_run_main(int argc, char **argv, const char *cmd, const char *record_dir);

#endif
