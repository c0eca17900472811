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

#include "grow.h"
#include "macro.h"
#include "fileio.h"
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

static int read_line_fd(int fd, char *buf, size_t len)
{
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

static int read_line_at(const char *path, char *buf, size_t len)
{
    _cleanup_close_ int fd = open_regular(path);
    return fd < 0 ? fd : read_line_fd(fd, buf, len);
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

/* A counter's text: decimal digits, then at most whitespace. */
static int parse_u64(const char *buf, uint64_t *ret)
{
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

int sysfs_read_u64(const char *root, uint64_t *ret, const char *fmt, ...)
{
    char buf[64];
    va_list ap;
    va_start(ap, fmt);
    int r = vread_line(root, buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return r < 0 ? r : parse_u64(buf, ret);
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

int sysfs_read_file(const char *root, size_t max, char **ret, size_t *ret_len, const char *fmt, ...)
{
    char path[PATH_MAX];
    va_list ap;
    va_start(ap, fmt);
    int r = build_path(path, sizeof(path), root, fmt, ap);
    va_end(ap);
    return r < 0 ? r : read_file_full(path, max, ret, ret_len);
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

struct names {
    char **v;
    size_t n, cap;
};

static int names_add(const char *name, struct names *l)
{
    int r = GROW_ARRAY(l->v, l->cap, l->n + 2, SYSFS_LIST_MAX + 1);     /* + the NULL */
    if (r < 0)
        return r;
    if (!(l->v[l->n] = strdup(name)))
        return -ENOMEM;
    l->v[++l->n] = NULL;
    return 0;
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

    struct names l = { 0 };
    DIR *d = opendir(path);
    if (!d)
        return -errno;
    struct dirent *de;
    while (r == 0 && (de = readdir(d)))
        if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
            r = names_add(de->d_name, &l);
    closedir(d);
    if (r == 0 && !l.v && !(l.v = calloc(1, sizeof(*l.v))))
        r = -ENOMEM;
    if (r < 0) {
        strv_free(l.v);
        return r;
    }
    qsort(l.v, l.n, sizeof(*l.v), version_cmp);
    *ret = l.v;
    if (ret_n)
        *ret_n = l.n;
    return 0;
}

struct sysfs_dir_entry {
    char *name;
    unsigned char type;         /* d_type: DT_UNKNOWN when the listing did not say */
};

struct sysfs_dir {
    DIR *dir;
    char path[PATH_MAX];
    struct sysfs_dir_entry *v;
    size_t n, cap;
};

static int dir_entry_cmp(const void *a, const void *b)
{
    return strverscmp(((const struct sysfs_dir_entry *)a)->name,
                      ((const struct sysfs_dir_entry *)b)->name);
}

static int dir_add(struct sysfs_dir *d, const char *name, unsigned char type)
{
    int r = GROW_ARRAY(d->v, d->cap, d->n + 1, SYSFS_LIST_MAX);
    if (r < 0)
        return r;
    if (!(d->v[d->n].name = strdup(name)))
        return -ENOMEM;
    d->v[d->n++].type = type;
    return 0;
}

int sysfs_dir_open(const char *root, struct sysfs_dir **ret, const char *fmt, ...)
{
    struct sysfs_dir *d = calloc(1, sizeof(*d));
    if (!d)
        return -ENOMEM;
    va_list ap;
    va_start(ap, fmt);
    int r = build_path(d->path, sizeof(d->path), root, fmt, ap);
    va_end(ap);
    if (r == 0 && !(d->dir = opendir(d->path)))
        r = -errno;
    else if (r == 0) {
        struct dirent *de;
        while (r == 0 && (de = readdir(d->dir)))
            if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
                r = dir_add(d, de->d_name, de->d_type);
    }
    if (r < 0) {
        sysfs_dir_free(d);
        return r;
    }
    if (d->n > 0) /* an empty directory has no array: qsort(NULL, 0) is undefined */
        qsort(d->v, d->n, sizeof(*d->v), dir_entry_cmp);
    *ret = d;
    return 0;
}

size_t sysfs_dir_count(const struct sysfs_dir *d)
{
    return d->n;
}

const char *sysfs_dir_name(const struct sysfs_dir *d, size_t i)
{
    return i < d->n ? d->v[i].name : NULL;
}

/* The first line of listed entry E: one openat() on the directory where the listing said
 * it is a regular file (no fstat()); O_NOFOLLOW, so that one that has become a symlink since
 * goes the long way, by PATH through open_regular()'s checks, as does any entry of a
 * listing that did not give its type. */
static int dir_entry_read_line(const struct sysfs_dir *d, const struct sysfs_dir_entry *e,
                               const char *name, char *buf, size_t len)
{
    if (e && e->type == DT_REG) {
        int fd = openat(dirfd(d->dir), name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
        if (fd >= 0) {
            int r = read_line_fd(fd, buf, len);
            close(fd);
            return r;
        }
        if (errno != ELOOP)
            return -errno;
    }
    char path[PATH_MAX];
    int n = snprintf(path, sizeof(path), "%s/%s", d->path, name);
    if (n < 0 || (size_t)n >= sizeof(path))
        return -ENAMETOOLONG;
    return read_line_at(path, buf, len);
}

int sysfs_dir_read_line(const struct sysfs_dir *d, const char *name, char *buf, size_t len)
{
    struct sysfs_dir_entry key = { .name = (char *)name };
    const struct sysfs_dir_entry *e = d->n > 0 ? bsearch(&key, d->v, d->n, sizeof(*d->v),
                                                       dir_entry_cmp) : NULL;
    return dir_entry_read_line(d, e, name, buf, len);
}

int sysfs_dir_read_entry(const struct sysfs_dir *d, size_t i, char *buf, size_t len)
{
    if (i >= d->n)
        return -ENOENT;
    return dir_entry_read_line(d, &d->v[i], d->v[i].name, buf, len);
}

int sysfs_dir_read_u64(const struct sysfs_dir *d, size_t i, uint64_t *ret)
{
    char buf[64];
    int r = sysfs_dir_read_entry(d, i, buf, sizeof(buf));
    return r < 0 ? r : parse_u64(buf, ret);
}

void sysfs_dir_free(struct sysfs_dir *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++)
        free(d->v[i].name);
    free(d->v);
    if (d->dir)
        closedir(d->dir);
    free(d);
}

bool sysfs_resolve(const char *root, const char *rel, char *buf, size_t len)
{
    char full[PATH_MAX], real[PATH_MAX], base[PATH_MAX];
    snprintf(full, sizeof(full), "%s/%s", root, rel);
    if (!realpath(full, real) || !realpath(root, base))
        return false;
    size_t n = strlen(base);
    if (strncmp(real, base, n) != 0 || (n && real[n] != '/'))
        return false;
    strscpy(buf, real + n + (n ? 1 : 0), len);
    return true;
}
