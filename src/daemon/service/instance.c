/* SPDX-License-Identifier: ISC */
/* The single-instance lock: flock(2) on DIR/fabtuned.lock, the holder's PID written in it.
 * flock dies with its holder, so a crash leaves no stale lock behind. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "file_at.h"
#include "instance.h"
#include "macro.h"

#define LOCK_FILE "fabtuned.lock"
#define HOLDER_WAIT_TRIES 20            /* the winner's PID, read for up to 20 x 10 ms */

/* The PID that the kernel lists for the flock on FD's file in /proc/locks: the holder,
 * whether or not it has written its PID yet. 0 if not found (another PID namespace). */
static pid_t holder_from_proc_locks(int fd)
{
    struct stat st;
    char line[256], want[64];
    pid_t found = 0;
    if (fstat(fd, &st) < 0)
        return 0;
    snprintf(want, sizeof(want), "%02x:%02x:%lu", major(st.st_dev), minor(st.st_dev),
             (unsigned long)st.st_ino);
    FILE *f = fopen("/proc/locks", "re");
    if (!f)
        return 0;
    while (!found && fgets(line, sizeof(line), f)) {
        char type[16], id[64];
        long pid;
        /* "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"; a waiter's line has "->". */
        if (sscanf(line, "%*s %15s %*s %*s %ld %63s", type, &pid, id) == 3 &&
            streq(type, "FLOCK") && streq(id, want) && pid > 0)
            found = (pid_t)pid;
    }
    fclose(f);
    return found;
}

/* The PID the holder wrote; it may not have written it yet, so wait a little for it. */
static pid_t holder_from_file(int fd)
{
    char buf[32];
    for (int i = 0; i < HOLDER_WAIT_TRIES; i++) {
        ssize_t k = pread(fd, buf, sizeof(buf) - 1, 0);
        buf[k > 0 ? k : 0] = '\0';
        long pid = strtol(buf, NULL, 10);
        if (pid > 0)
            return (pid_t)pid;
        nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
    }
    return 0;
}

static pid_t lock_holder(int fd)
{
    pid_t pid = holder_from_proc_locks(fd);
    return pid > 0 ? pid : holder_from_file(fd);
}

/* The lock file, created if need be. A read-only directory (full or mounted so) still
 * locks through an existing file opened read-only: flock needs no write access. */
static int open_lock_file(int dfd, bool *ret_writable)
{
    int fd = openat(dfd, LOCK_FILE, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    int err = errno;
    *ret_writable = fd >= 0;
    if (fd < 0 && err != ELOOP)
        fd = openat(dfd, LOCK_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    return fd >= 0 ? fd : errno == ENOENT ? -err : -errno;
}

int instance_write_pid(int fd)
{
    char buf[32];
    int n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
    /* Written before the truncation, so a reader never sees an empty file once it held
     * a PID. */
    if (pwrite(fd, buf, (size_t)n, 0) != n || ftruncate(fd, n) < 0)
        return errno ? -errno : -EIO;
    return 0;
}

int instance_lock(const char *dir, int *ret_fd, pid_t *ret_holder)
{
    bool writable;
    *ret_fd = -1;
    *ret_holder = 0;
    _cleanup_close_ int dfd = dir_open_nofollow(dir);
    if (dfd < 0)
        return dfd;
    _cleanup_close_ int fd = open_lock_file(dfd, &writable);
    if (fd < 0)
        return fd;
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int err = errno == EWOULDBLOCK ? EBUSY : errno;
        if (err == EBUSY)
            *ret_holder = lock_holder(fd);
        return -err;
    }
    int r = writable ? instance_write_pid(fd) : -EROFS;
    *ret_fd = TAKE_FD(fd);
    return r;
}

bool instance_held(const char *dir, pid_t *ret_holder)
{
    *ret_holder = 0;
    _cleanup_close_ int dfd = dir_open_nofollow(dir);
    if (dfd < 0)
        return false;
    _cleanup_close_ int fd = openat(dfd, LOCK_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return false;
    if (flock(fd, LOCK_SH | LOCK_NB) == 0 || errno != EWOULDBLOCK)
        return false;   /* closing the fd lets it go */
    *ret_holder = holder_from_proc_locks(fd);
    return true;
}

void instance_hold_retry(struct instance_hold *h, const char *dir)
{
    if (h->fd >= 0 && h->error == 0)
        return;
    if (h->fd >= 0 && (h->error = instance_write_pid(h->fd)) != -EBADF)
        return;
    /* Not locked, or locked through a read-only fd (the directory was read-only then):
     * a lock taken anew, as the kernel lets a process hold one lock of a file. */
    if (h->fd >= 0)
        close(h->fd);
    h->error = instance_lock(dir, &h->fd, &h->holder);
}
