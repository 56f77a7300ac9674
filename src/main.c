/* main.c — the oacheck entry point.  It only dispatches: every subcommand
 * lives in cmd_<name>.c, the table in cli.c. */
#include "config.h"
#include "cli.h"

int main(int argc, char **argv)
{
  return oc_cli_main(argc, argv);
}
