// cryptobench-spawn: runs a command as a child and prints what that child cost, as the kernel
// counts it: one line "status wall_ns user_us sys_us maxrss_kib".
//
// Why a launcher of its own: ru_maxrss is a high-water mark that survives exec, so a child
// forked from a large process (the Python coordinator, 100+ MiB) inherits its parent's mark
// and reports it. Forked from this small program instead, the measured program's peak RSS is
// its own (plus at most this launcher's few hundred KiB, which exec discards). The wall time
// is taken here, between fork and wait4, so the launcher's own start-up is not in it. If the
// launcher is killed, its child dies with it (PR_SET_PDEATHSIG): nothing is left running.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: cryptobench-spawn COMMAND [ARG]...\n");
    return 2;
  }
  timespec start{}, end{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("cryptobench-spawn: fork");
    return 2;
  }
  if (pid == 0) {
    // If the launcher is killed (a timeout), the kernel ends the measured program too.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) _exit(127);  // the launcher died before prctl took effect
    execvp(argv[1], argv + 1);
    std::perror("cryptobench-spawn: exec");
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) < 0) {
    std::perror("cryptobench-spawn: wait4");
    return 2;
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  const long long wall = (end.tv_sec - start.tv_sec) * 1000000000LL + (end.tv_nsec - start.tv_nsec);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  const long long user = usage.ru_utime.tv_sec * 1000000LL + usage.ru_utime.tv_usec;
  const long long sys = usage.ru_stime.tv_sec * 1000000LL + usage.ru_stime.tv_usec;
  std::printf("%d %lld %lld %lld %ld\n", code, wall, user, sys, usage.ru_maxrss);
  return 0;
}
