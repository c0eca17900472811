/* SPDX-License-Identifier: ISC */
/* The single-instance lock: flock(2) on DIR/fabtuned.lock, the holder's PID written in it.
 * flock dies with its holder, so a crash leaves no stale lock behind. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <unistd.h>

#include "instance.h"
#include "macro.h"

#define LOCK_FILE "fabtuned.lock"

int instance_lock(const char *dir, int *ret_fd, pid_t *ret_holder)
{
    char path[4096], buf[32];
    snprintf(path, sizeof(path), "%s/" LOCK_FILE, dir);
    _cleanup_close_ int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return -errno;
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int err = errno == EWOULDBLOCK ? EBUSY : errno;
        ssize_t k = pread(fd, buf, sizeof(buf) - 1, 0);
        buf[k > 0 ? k : 0] = '\0';
        *ret_holder = (pid_t)strtol(buf, NULL, 10);
        return -err;
    }
    int n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n)
        return -errno;
    *ret_fd = TAKE_FD(fd);
    return 0;
}
