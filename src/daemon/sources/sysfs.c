/* SPDX-License-Identifier: ISC */
/* Reads under a sysfs or procfs root: the one seam between fabtune and /sys and /proc. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "strutil.h"
#include "sysfs.h"

__attribute__((format(printf, 4, 0)))
static int build_path(char *path, size_t len, const char *root, const char *fmt, va_list ap)
{
    char rel[PATH_MAX];
    int n = vsnprintf(rel, sizeof(rel), fmt, ap);
    if (n < 0 || (size_t)n >= sizeof(rel))
        return -ENAMETOOLONG;
    n = snprintf(path, len, "%s/%s", root, rel[0] == '/' ? rel + 1 : rel);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int read_line_at(const char *path, char *buf, size_t len)
{
    _cleanup_close_ int fd = open_regular(path);
    if (fd < 0)
        return fd;
    ssize_t k;
    do
        k = read(fd, buf, len - 1);
    while (k < 0 && errno == EINTR);
    if (k < 0)
        return -errno;   /* sysfs says EINVAL for an empty GID slot's type */
    buf[k] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* The first line of root/fmt..., for the readers below. */
__attribute__((format(printf, 4, 0)))
static int vread_line(const char *root, char *buf, size_t len, const char *fmt, va_list ap)
{
    char path[PATH_MAX];
    int r = build_path(path, sizeof(path), root, fmt, ap);
    return r < 0 ? r : read_line_at(path, buf, len);
}

int sysfs_read_line(const char *root, char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = vread_line(root, buf, len, fmt, ap);
    va_end(ap);
    return r;
}

static int parse_int(const char *s, int64_t *ret)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);     /* "010" is ten, as the kernel writes it */
    if (errno || end == s)
        return -EINVAL;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return -EINVAL;
    *ret = v;
    return 0;
}

int sysfs_read_int(const char *root, int64_t *ret, const char *fmt, ...)
{
    char buf[64];
    va_list ap;
    va_start(ap, fmt);
    int r = vread_line(root, buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (r < 0)
        return r;
    return parse_int(buf, ret);
}

int sysfs_read_u64(const char *root, uint64_t *ret, const char *fmt, ...)
{
    char buf[64];
    va_list ap;
    va_start(ap, fmt);
    int r = vread_line(root, buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (r < 0)
        return r;
    if (!isdigit((unsigned char)buf[0]))
        return -EINVAL;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(buf, &end, 10);
    if (errno || (*end && !isspace((unsigned char)*end)))
        return -EINVAL;
    *ret = v;
    return 0;
}

int sysfs_link_name(const char *root, char *buf, size_t len, const char *fmt, ...)
{
    char path[PATH_MAX], target[PATH_MAX];
    va_list ap;
    va_start(ap, fmt);
    int r = build_path(path, sizeof(path), root, fmt, ap);
    va_end(ap);
    if (r < 0)
        return r;
    ssize_t k = readlink(path, target, sizeof(target) - 1);
    if (k < 0)
        return -errno;
    target[k] = '\0';
    const char *base = strrchr(target, '/');
    strscpy(buf, base ? base + 1 : target, len);
    return 0;
}

int sysfs_exists(const char *root, const char *fmt, ...)
{
    char path[PATH_MAX];
    va_list ap;
    va_start(ap, fmt);
    int r = build_path(path, sizeof(path), root, fmt, ap);
    va_end(ap);
    return r == 0 && access(path, F_OK) == 0;
}

void strv_free(char **v)
{
    for (char **p = v; p && *p; p++)
        free(*p);
    free(v);
}

/* Version order (strverscmp), so that gids/10 sorts after gids/9 and mlx5_10 after mlx5_9. */
static int version_cmp(const void *a, const void *b)
{
    return strverscmp(*(char *const *)a, *(char *const *)b);
}

int sysfs_list(const char *root, char ***ret, size_t *ret_n, const char *fmt, ...)
{
    char path[PATH_MAX];
    va_list ap;
    va_start(ap, fmt);
    int r = build_path(path, sizeof(path), root, fmt, ap);
    va_end(ap);
    if (r < 0)
        return r;

    DIR *d = opendir(path);
    if (!d)
        return -errno;
    char **v = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (streq(de->d_name, ".") || streq(de->d_name, ".."))
            continue;
        if (n + 2 > cap) {
            cap = cap ? cap * 2 : 16;
            char **nv = realloc(v, cap * sizeof(*v));
            if (!nv)
                goto oom;
            v = nv;
        }
        if (!(v[n] = strdup(de->d_name)))
            goto oom;
        v[++n] = NULL;
    }
    closedir(d);
    if (!v && !(v = calloc(1, sizeof(*v))))
        return -ENOMEM;
    qsort(v, n, sizeof(*v), version_cmp);
    *ret = v;
    if (ret_n)
        *ret_n = n;
    return 0;
oom:
    closedir(d);
    if (v)
        v[n] = NULL;
    strv_free(v);
    return -ENOMEM;
}
