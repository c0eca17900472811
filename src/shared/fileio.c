/* SPDX-License-Identifier: ISC */
/* Files: open only regular ones, read one whole, write one atomically. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_at.h"
#include "fileio.h"
#include "macro.h"
#include "strutil.h"

int open_regular(const char *path)
{
    /* O_NONBLOCK: opening a FIFO with no writer must not block either. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (fd < 0)
        return -errno;
    int err = fstat(fd, &st) < 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR
                                         : !S_ISREG(st.st_mode) ? EINVAL : 0;
    if (err) {
        close(fd);
        return -err;
    }
    return fd;
}

FILE *fopen_regular(const char *path)
{
    int fd = open_regular(path);
    if (fd < 0) {
        errno = -fd;
        return NULL;
    }
    FILE *f = fdopen(fd, "r");
    if (!f)
        close(fd);
    return f;
}

int read_file_full(const char *path, size_t max, char **ret, size_t *ret_len)
{
    _cleanup_close_ int fd = open_regular(path);
    if (fd < 0)
        return fd;

    _cleanup_free_ char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *n = realloc(buf, cap);
            if (!n)
                return -ENOMEM;
            buf = n;
        }
        ssize_t k = read(fd, buf + len, cap - len - 1);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (k == 0)
            break;
        len += (size_t)k;
        if (len > max)
            return -EFBIG;
    }
    if (!buf && !(buf = malloc(1)))
        return -ENOMEM;
    buf[len] = '\0';
    *ret = TAKE_PTR(buf);
    if (ret_len)
        *ret_len = len;
    return 0;
}

/* Where a write to path lands: path itself, or the end of its chain of symlinks (at most
 * 8), even when that end does not exist yet. /etc/nccl.conf -> /run/fabtune/nccl.conf lets
 * a sandbox that keeps /etc read-only still replace the file atomically in /run. */
static int resolve_write_target(const char *path, char **ret)
{
    _cleanup_free_ char *cur = strdup(path);
    if (!cur)
        return -ENOMEM;
    for (int hops = 0; hops < 8; hops++) {
        char target[PATH_MAX];
        ssize_t n = readlink(cur, target, sizeof(target) - 1);
        if (n < 0) {
            if (errno != EINVAL && errno != ENOENT)
                return -errno;
            *ret = TAKE_PTR(cur);       /* not a symlink, or nothing there yet */
            return 0;
        }
        target[n] = '\0';
        char *next;
        if (target[0] == '/') {
            next = strdup(target);
        } else {
            _cleanup_free_ char *d = strdup(cur);
            if (!d || asprintf(&next, "%s/%s", dirname(d), target) < 0)
                next = NULL;
        }
        if (!next)
            return -ENOMEM;
        free(cur);
        cur = next;
    }
    return -ELOOP;
}

int write_target_check(const char *path, char *dir, size_t len)
{
    _cleanup_free_ char *real = NULL;
    int r = resolve_write_target(path, &real);
    if (r < 0)
        return r;
    if (strscpy(dir, real, len) < 0)
        return -ENAMETOOLONG;
    /* Up from the file's directory to the first that exists: where the write would land
     * (or fail to create what is missing). */
    for (;;) {
        char *slash = strrchr(dir, '/');
        if (!slash) {
            strscpy(dir, ".", len);
            break;
        }
        if (slash == dir)
            slash[1] = '\0';
        else
            *slash = '\0';
        if (access(dir, F_OK) == 0 || errno != ENOENT || streq(dir, "/"))
            break;
    }
    return access(dir, W_OK) < 0 ? -errno : 0;
}

int write_file_atomic(const char *path, const void *data, size_t len, unsigned mode)
{
    _cleanup_free_ char *real = NULL;
    int r = resolve_write_target(path, &real);
    if (r < 0)
        return r;
    _cleanup_free_ char *dir = strdup(real), *base = strdup(real);
    if (!dir || !base)
        return -ENOMEM;
    /* The chain of links is the policy's (/etc/nccl.conf -> /run/fabtune/nccl.conf); from
     * its end on, nothing is followed. */
    _cleanup_close_ int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return -errno;
    return write_file_at(dfd, basename(base), data, len, mode);
}

int mkdir_parents(const char *path)
{
    char tmp[PATH_MAX];
    if ((size_t)snprintf(tmp, sizeof(tmp), "%s", path) >= sizeof(tmp))
        return -ENAMETOOLONG;
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
                return -errno;
            *p = '/';
        }
    return mkdir(tmp, 0755) < 0 && errno != EEXIST ? -errno : 0;
}
