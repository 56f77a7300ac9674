/* measure.c — `bench/measure -o FILE COMMAND [ARG]...`: runs COMMAND and
 * writes one "wall_s=… user_s=… sys_s=… cpu_s=… maxrss_kb=… status=…" line
 * to FILE from wait4()'s rusage of the child, so every bench section
 * measures oacheck and its peers the same way (no /usr/bin/time needed).
 * COMMAND's own output is left alone; the exit status is COMMAND's. */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double secs(struct timeval tv)
{
  return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
  if(argc < 4 || strcmp(argv[1], "-o") != 0) {
    fputs("usage: measure -o FILE COMMAND [ARG]...\n", stderr);
    return 2;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pid_t pid = fork();
  if(pid < 0) {
    perror("measure: fork");
    return 2;
  }
  if(pid == 0) {
    execvp(argv[3], argv + 3);
    perror("measure: exec");
    _exit(127);
  }
  int st = 0;
  struct rusage ru;
  if(wait4(pid, &st, 0, &ru) < 0) {
    perror("measure: wait4");
    return 2;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  int status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  FILE *f = fopen(argv[2], "w");
  if(!f) {
    perror(argv[2]);
    return 2;
  }
  fprintf(f, "wall_s=%.4f user_s=%.4f sys_s=%.4f cpu_s=%.4f maxrss_kb=%ld status=%d\n", wall,
          secs(ru.ru_utime), secs(ru.ru_stime), secs(ru.ru_utime) + secs(ru.ru_stime), ru.ru_maxrss,
          status);
  fclose(f);
  return status;
}
