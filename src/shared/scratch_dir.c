/* SPDX-License-Identifier: ISC */
/* A private scratch directory, removed on every way out (a signal included). */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exit_status.h"
#include "macro.h"
#include "scratch_dir.h"

/* $TMPDIR, else /dev/shm (a tmpfs: a snapshot's thousands of small files cost no disk
 * I/O; on an ext4 /tmp here, writing 3000 took a second), else /tmp. */
static const char *scratch_parent(void)
{
    const char *tmp = secure_getenv("TMPDIR");
    struct stat st;
    if (tmp && tmp[0] == '/')
        return tmp;
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK | X_OK) == 0)
        return "/dev/shm";
    return "/tmp";
}

int scratch_dir_make(const char *name, char *dir, size_t len)
{
    int n = snprintf(dir, len, "%s/%s.XXXXXX", scratch_parent(), name);
    if (n < 0 || (size_t)n >= len)
        return -ENAMETOOLONG;
    return mkdtemp(dir) ? 0 : -errno;
}

static int first_error;

/* nftw's callback: depth first, no link followed, nothing of another mount touched. */
static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    if (remove(path) < 0 && errno != ENOENT && !first_error)
        first_error = -errno;
    return 0;
}

int scratch_dir_remove(const char *dir)
{
    first_error = 0;
    if (nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) < 0 && errno != ENOENT)
        return -errno;
    return first_error;
}

static const int guarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static struct sigaction saved[ARRAY_SIZE(guarded)];
static volatile sig_atomic_t kept;
static volatile sig_atomic_t child;

static void on_signal(int sig)
{
    if (!kept)
        kept = sig;
    if (child > 0)
        kill((pid_t)child, sig);
}

void scratch_guard_begin(void)
{
    /* No SA_RESTART: a read or wait it interrupts returns, so that the caller sees it. */
    struct sigaction sa = { .sa_handler = on_signal };
    sigemptyset(&sa.sa_mask);
    kept = 0;
    child = 0;
    for (size_t i = 0; i < ARRAY_SIZE(guarded); i++) {
        sigaction(guarded[i], NULL, &saved[i]);
        /* One ignored (a background job's SIGINT, nohup's SIGHUP) stays ignored. */
        if (saved[i].sa_handler != SIG_IGN)
            sigaction(guarded[i], &sa, NULL);
    }
}

void scratch_guard_child(pid_t pid)
{
    child = pid;
    if (pid > 0 && kept)
        kill(pid, kept);
}

int scratch_guard_end(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(guarded); i++)
        sigaction(guarded[i], &saved[i], NULL);
    child = 0;
    return kept;
}

void scratch_guard_raise(int sig)
{
    sigset_t set;
    signal(sig, SIG_DFL);
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
}

int scratch_guard_exit_code(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
    /* These end a process without a core: the caller's shell sees what it would have. */
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGPIPE)
        scratch_guard_raise(sig);
    return 128 + sig;
}

int scratch_dir_run(const char *name, int (*fn)(const char *dir, void *u), void *u)
{
    char dir[PATH_MAX];
    int status = 0, r;
    fflush(NULL);       /* nothing buffered is written twice */
    /* The guard first: a signal between the directory's making and the guard would leave
     * it behind. */
    scratch_guard_begin();
    if ((r = scratch_dir_make(name, dir, sizeof(dir))) < 0) {
        int sig = scratch_guard_end();
        fprintf(stderr, "%s: cannot make a scratch directory: %s\n",
                program_invocation_short_name, strerror(-r));
        if (sig)
            scratch_guard_raise(sig);
        return EXIT_SOFTWARE;
    }
    pid_t pid = fork();
    if (pid == 0) {
        int sig = scratch_guard_end();
        if (sig)
            scratch_guard_raise(sig);
        exit(fn(dir, u));
    }
    if (pid < 0)
        fprintf(stderr, "%s: cannot fork: %m\n", program_invocation_short_name);
    scratch_guard_child(pid);
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    scratch_guard_child(0);     /* reaped: its pid may be another's now */
    /* Removed still under the guard: a signal during the removal (our caller ending us as
     * we finish) waits for it, instead of ending us with the directory half gone. */
    if ((r = scratch_dir_remove(dir)) < 0)
        fprintf(stderr, "%s: cannot remove %s: %s\n", program_invocation_short_name, dir,
                strerror(-r));
    int sig = scratch_guard_end();
    if (sig)
        scratch_guard_raise(sig);
    return pid < 0 ? EXIT_SOFTWARE : scratch_guard_exit_code(status);
}
