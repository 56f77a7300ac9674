/* maxrss.c — run a command and say how much memory it peaked at: the
 * hostile matrix asserts that no server can make oacheck's memory grow
 * without bound.  /usr/bin/time -v would do, but CI's Debian has no
 * `time` package unless asked; wait4's rusage is always there.
 *
 *   maxrss FILE CMD [ARG]...
 *
 * runs CMD, writes its peak resident set in KiB to FILE and exits with
 * CMD's status (128 + N when a signal N killed it). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  if(argc < 3) {
    fprintf(stderr, "usage: maxrss FILE CMD [ARG]...\n");
    return 2;
  }
  pid_t pid = fork();
  if(pid < 0) {
    perror("maxrss: fork");
    return 2;
  }
  if(pid == 0) {
    execvp(argv[2], argv + 2);
    perror("maxrss: exec");
    _exit(127);
  }
  int st = 0;
  struct rusage ru;
  if(wait4(pid, &st, 0, &ru) < 0) {
    perror("maxrss: wait4");
    return 2;
  }
  FILE *f = fopen(argv[1], "w");
  if(!f) {
    perror("maxrss: cannot write the result");
    return 2;
  }
  fprintf(f, "%ld\n", ru.ru_maxrss);
  fclose(f);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
