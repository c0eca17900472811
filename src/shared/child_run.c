/* SPDX-License-Identifier: ISC */
/* A child program bounded in time and output: posix_spawn in a process group of its own,
 * its output read through a pipe with poll(), the group killed at either bound. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child_run.h"
#include "macro.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

int child_find(const char *name, char *buf, size_t len)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = DEFAULT_PATH;
    for (const char *p = path; *p; ) {
        size_t k = strcspn(p, ":");
        if (k > 0 && p[0] == '/' && (size_t)snprintf(buf, len, "%.*s/%s", (int)k, p, name) < len &&
            access(buf, X_OK) == 0)
            return 0;
        p += k + (p[k] == ':');
    }
    return -ENOENT;
}

static int spawn(const char *path, char *const argv[], int out_fd, pid_t *pid)
{
    char lc_all[] = "LC_ALL=C", path_env[1024], *envp[] = { lc_all, path_env, NULL };
    const char *p = getenv("PATH");
    snprintf(path_env, sizeof(path_env), "PATH=%s", p && *p ? p : DEFAULT_PATH);
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, dfl;
    sigemptyset(&none);
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGPIPE);
    sigaddset(&dfl, SIGTERM);
    sigaddset(&dfl, SIGINT);
    sigaddset(&dfl, SIGHUP);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, out_fd, STDERR_FILENO);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                    POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &dfl);
    int r = posix_spawn(pid, path, &fa, &attr, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    return -r;
}

static int remaining_ms(usec_t deadline)
{
    usec_t now = now_usec(CLOCK_MONOTONIC);
    return now >= deadline ? 0 : (int)((deadline - now + 999) / 1000);
}

/* Reads FD to EOF, or until the deadline or past MAX bytes. */
static void collect(int fd, usec_t deadline, size_t max, struct child_result *res)
{
    size_t cap = 0;
    for (;;) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        int ms = remaining_ms(deadline);
        int n = ms > 0 ? poll(&pfd, 1, ms) : 0;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            res->timed_out = true;
            return;
        }
        if (res->len + 4096 + 1 > cap) {
            size_t ncap = cap ? cap * 2 : 8192;
            char *nb = realloc(res->out, ncap);
            if (!nb) {
                res->truncated = true;
                return;
            }
            res->out = nb;
            cap = ncap;
        }
        ssize_t k = read(fd, res->out + res->len, cap - res->len - 1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return;
        res->len += (size_t)k;
        if (res->len > max) {
            res->len = max;
            res->truncated = true;
            return;
        }
    }
}

/* The child's end: its status by the deadline, or the group killed. */
static void reap(pid_t pid, usec_t deadline, bool kill_now, struct child_result *res)
{
    int status = 0;
    pid_t w = 0;
    while (!kill_now && (w = waitpid(pid, &status, WNOHANG)) == 0 && remaining_ms(deadline) > 0) {
        struct timespec ts = { 0, 5 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    if (w == 0) {
        if (!kill_now)
            res->timed_out = true;
        (void)kill(-pid, SIGKILL);
        while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
            ;
    }
    if (w == pid && WIFEXITED(status))
        res->exit_status = WEXITSTATUS(status);
    else if (w == pid && WIFSIGNALED(status))
        res->signal = WTERMSIG(status);
}

int child_run(const char *path, char *const argv[], usec_t timeout, size_t max_out,
              struct child_result *res)
{
    int fds[2];
    pid_t pid;
    memset(res, 0, sizeof(*res));
    res->exit_status = -1;
    if (pipe2(fds, O_CLOEXEC) < 0)
        return -errno;
    int r = spawn(path, argv, fds[1], &pid);
    close(fds[1]);
    if (r < 0) {
        close(fds[0]);
        return r;
    }
    usec_t deadline = now_usec(CLOCK_MONOTONIC) + timeout;
    collect(fds[0], deadline, max_out, res);
    close(fds[0]);
    /* A bound hit: the whole group goes, a shell's sleeping child with it. */
    reap(pid, deadline, res->timed_out || res->truncated, res);
    if (res->out)
        res->out[res->len] = '\0';
    else if (!(res->out = strdup("")))
        return -ENOMEM;
    return 0;
}

void child_result_done(struct child_result *res)
{
    free(res->out);
    res->out = NULL;
}

const char *child_result_why(const struct child_result *res, char *buf, size_t len)
{
    char first[128] = "";
    if (res->out) {
        const char *s = res->out;
        s += strspn(s, " \t\r\n");
        snprintf(first, sizeof(first), "%.*s", (int)strcspn(s, "\r\n"), s);
        for (char *c = first; *c; c++)     /* a line for people and logs */
            if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
                *c = '?';
    }
    if (res->timed_out)
        snprintf(buf, len, "no answer within its time bound (killed)");
    else if (res->truncated)
        snprintf(buf, len, "more output than its bound (killed)");
    else if (res->signal)
        snprintf(buf, len, "killed by signal %d", res->signal);
    else if (res->exit_status != 0)
        snprintf(buf, len, "exit status %d%s%s", res->exit_status, first[0] ? ": " : "", first);
    else
        return NULL;
    return buf;
}
