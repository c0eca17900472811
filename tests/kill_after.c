/* Test helper: runs a command and SIGKILLs it after exactly DELAY_US microseconds, for
 * crash trials; prints how long the child ran. With DELAY_US -1 it only times the run.
 *   kill_after DELAY_US COMMAND [ARGS...]
 * Exits 137 when the kill landed, else with the command's own status. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: kill_after DELAY_US COMMAND [ARGS...]\n");
        return 64;
    }
    long long delay = atoll(argv[1]);
    long long t0 = now_us();
    pid_t pid = fork();
    if (pid < 0)
        return 70;
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    if (delay >= 0) {
        struct timespec ts = { .tv_sec = delay / 1000000, .tv_nsec = (delay % 1000000) * 1000 };
        while (nanosleep(&ts, &ts) != 0)
            ;
        kill(pid, SIGKILL);
    }
    int status;
    waitpid(pid, &status, 0);
    printf("%lld\n", now_us() - t0);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}
