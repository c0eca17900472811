/* SPDX-License-Identifier: ISC */
/* Test helper: runs a command and SIGKILLs it after exactly DELAY_US microseconds, for
 * crash trials; prints how long the child ran. With DELAY_US -1 it only times the run.
 * With --after-file PATH the delay (and the printed time) counts from the moment PATH
 * appears (created or renamed into place, seen through inotify on its directory), so a
 * kill can be aimed inside a phase that starts at a jittery point in time.
 *   kill_after [--after-file PATH] DELAY_US COMMAND [ARGS...]
 * Exits 137 when the kill landed, else with the command's own status. */
#include "config.h"

#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static bool exited(pid_t pid)
{
    siginfo_t info = { 0 };
    return waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

/* Blocks until NAME shows up in the watched directory; 0, or -1 if the child exited
 * first (looked at every millisecond without reaping it, so a run that never writes NAME
 * does not hang). */
static int wait_for_file(int fd, const char *name, pid_t pid)
{
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        if (poll(&pfd, 1, 1) == 0) {
            if (exited(pid))
                return -1;
            continue;
        }
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n <= 0)
            return -1;
        for (char *p = buf; p < buf + n;) {
            struct inotify_event *e = (struct inotify_event *)p;
            if (e->len && strcmp(e->name, name) == 0)
                return 0;
            p += sizeof(*e) + e->len;
        }
    }
}

int main(int argc, char **argv)
{
    const char *anchor = NULL;
    if (argc > 2 && strcmp(argv[1], "--after-file") == 0) {
        anchor = argv[2];
        argc -= 2;
        argv += 2;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: kill_after [--after-file PATH] DELAY_US COMMAND [ARGS...]\n");
        return 64;
    }
    long long delay = atoll(argv[1]);
    int fd = -1;
    char dir[PATH_MAX], base[PATH_MAX];
    if (anchor) {
        snprintf(dir, sizeof(dir), "%s", anchor);
        snprintf(base, sizeof(base), "%s", anchor);
        fd = inotify_init1(IN_CLOEXEC);
        /* The watch is in place before the child starts: no event can be missed. */
        if (fd < 0 || inotify_add_watch(fd, dirname(dir), IN_CREATE | IN_MOVED_TO) < 0) {
            perror("inotify");
            return 70;
        }
    }
    long long t0 = now_us();
    pid_t pid = fork();
    if (pid < 0)
        return 70;
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    bool armed = true;
    if (anchor) {
        armed = wait_for_file(fd, basename(base), pid) == 0;
        t0 = now_us();
    }
    if (armed && delay >= 0) {
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
