/* SPDX-License-Identifier: ISC */
/* String helpers: edit distance for "did you mean", whole-file read and atomic write. */
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

#include "macro.h"
#include "strutil.h"

size_t str_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return (size_t)-1;  /* not a typo of any key we know */

    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t best = diag + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *str_closest(const char *s, const char *const *candidates, size_t n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    size_t len = strlen(s);

    for (size_t i = 0; i < n; i++) {
        size_t d = str_edit_distance(s, candidates[i]);
        if (d < best_d) {
            best_d = d;
            best = candidates[i];
        }
        /* A prefix ("pfc_prio" of "pfc_priority") is a likely truncation. */
        if (len >= 3 && strncmp(s, candidates[i], len) == 0 && best_d > 2) {
            best_d = 2;
            best = candidates[i];
        }
    }
    size_t limit = len / 3 > 2 ? len / 3 : 2;
    return best_d <= limit ? best : NULL;
}

static bool (*divert)(const char *path, int *fd);

void open_regular_divert(bool (*fn)(const char *path, int *fd))
{
    divert = fn;
}

int open_regular(const char *path)
{
    int diverted;
    if (divert && divert(path, &diverted))
        return diverted;
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

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t k = write(fd, p, len);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        p += k;
        len -= (size_t)k;
    }
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
    path = real;
    _cleanup_free_ char *tmp = NULL, *dir = strdup(path);
    if (!dir || asprintf(&tmp, "%s.tmpXXXXXX", path) < 0)
        return -ENOMEM;

    _cleanup_close_ int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return -errno;
    r = write_all(fd, data, len);
    if (r == 0 && fchmod(fd, mode) < 0)
        r = -errno;
    if (r == 0 && fsync(fd) < 0)
        r = -errno;
    if (r == 0 && rename(tmp, path) < 0)
        r = -errno;
    if (r < 0) {
        unlink(tmp);
        return r;
    }
    /* Make the rename itself durable. */
    _cleanup_close_ int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0)
        (void)fsync(dfd);
    return 0;
}

/* The length of the valid UTF-8 sequence at s (at most n bytes), or 0 if there is none:
 * no overlong forms, no surrogates, nothing past U+10FFFF. */
static size_t utf8_valid_len(const unsigned char *s, size_t n)
{
    if (s[0] < 0x80)
        return 1;
    size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (len == 0 || len > n || s[0] > 0xf4)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
        (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
        return 0;
    return len;
}

char *utf8_sanitize(const char *s, size_t len, size_t *ret_len)
{
    char *out = malloc(len * 3 + 1), *o = out;     /* each bad byte may become 3 */
    if (!out)
        return NULL;
    for (size_t i = 0; i < len;) {
        size_t k = utf8_valid_len((const unsigned char *)s + i, len - i);
        if (k) {
            memcpy(o, s + i, k);
            o += k;
            i += k;
        } else {
            memcpy(o, "\xef\xbf\xbd", 3);     /* U+FFFD REPLACEMENT CHARACTER */
            o += 3;
            i++;
        }
    }
    *o = '\0';
    if (ret_len)
        *ret_len = (size_t)(o - out);
    return out;
}
