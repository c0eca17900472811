/* SPDX-License-Identifier: ISC */
/* Files read and replaced relative to a directory fd, never through a symlink. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_at.h"
#include "macro.h"

int dir_open_nofollow(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int read_file_at(int dirfd, const char *name, size_t max, char **ret, size_t *ret_len)
{
    /* O_NONBLOCK: a FIFO put in the file's place must not block its reader. */
    _cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
                                    O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) < 0)
        return -errno;
    if (!S_ISREG(st.st_mode))
        return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
    if ((size_t)st.st_size > max)
        return -EFBIG;
    _cleanup_free_ char *buf = malloc((size_t)st.st_size + 2);
    size_t len = 0, cap = (size_t)st.st_size + 1;
    if (!buf)
        return -ENOMEM;
    for (;;) {
        ssize_t k = read(fd, buf + len, cap - len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -errno;
        if (k == 0)
            break;
        len += (size_t)k;
        if (len == cap)
            return -EFBIG;  /* it grew while read: a file changing under us is not a state */
    }
    buf[len] = '\0';
    *ret = TAKE_PTR(buf);
    if (ret_len)
        *ret_len = len;
    return 0;
}

static int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t k = write(fd, p, len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -errno;
        p += k;
        len -= (size_t)k;
    }
    return 0;
}

/* A new temp file beside NAME: O_EXCL, so that nothing already there is ever opened. */
static int create_temp(int dirfd, const char *name, char *tmp, size_t len)
{
    for (int tries = 0; tries < 16; tries++) {
        unsigned long long rnd = 0;
        if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) < 0)
            rnd = (unsigned long long)getpid() * 2654435761u + (unsigned)tries;
        snprintf(tmp, len, ".%s.tmp%012llx", name, rnd & 0xffffffffffffULL);
        int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST)
            return fd < 0 ? -errno : fd;
    }
    return -EEXIST;
}

int write_file_at(int dirfd, const char *name, const void *data, size_t len, unsigned mode)
{
    char tmp[300];
    _cleanup_close_ int fd = create_temp(dirfd, name, tmp, sizeof(tmp));
    if (fd < 0)
        return fd;
    int r = write_all(fd, data, len);
    if (r == 0 && fchmod(fd, mode) < 0)
        r = -errno;
    if (r == 0 && fsync(fd) < 0)
        r = -errno;
    if (r == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
        r = -errno;
    if (r < 0) {
        (void)unlinkat(dirfd, tmp, 0);
        return r;
    }
    (void)fsync(dirfd);     /* the rename itself, durable */
    return 0;
}
