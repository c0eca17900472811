/* SPDX-License-Identifier: ISC */
/* sysctl reads and writes through a procfs root, and value comparison by fields. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "policy.h"
#include "fileio.h"
#include "strutil.h"
#include "sysctl.h"

/* Entries of one /proc/sys directory looked at for a did-you-mean; net/ipv4/conf of a
 * node with many netdevs is the largest. */
#define CLOSEST_MAX_ENTRIES 4096

/* sysctl(8)'s dotted form: '.' separates, '/' stands for a '.' inside a component
 * ("net.ipv4.conf.eth0/100.rp_filter" is net/ipv4/conf/eth0.100/rp_filter). A component
 * that would be "", "." or ".." is refused: a key (or a tampered snapshot's) never
 * leaves the procfs root's sys/. */
static int key_path(const char *root, const char *key, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s/sys/%s", root, key);
    if (n < 0 || (size_t)n >= len)
        return -ENAMETOOLONG;
    char *start = buf + strlen(root) + 5;
    for (char *c = start; *c; c++)
        *c = *c == '.' ? '/' : *c == '/' ? '.' : *c;
    for (char *c = start;;) {
        size_t k = strcspn(c, "/");
        if (k == 0 || (k == 1 && c[0] == '.') || (k == 2 && c[0] == '.' && c[1] == '.'))
            return -EINVAL;
        if (!c[k])
            return 0;
        c += k + 1;
    }
}

int sysctl_read(const char *root, const char *key, char *buf, size_t len)
{
    char path[512];
    int r = key_path(root, key, path, sizeof(path));
    if (r < 0)
        return r;
    _cleanup_close_ int fd = open_regular(path);
    if (fd < 0)
        return fd;
    ssize_t k = read(fd, buf, len - 1);
    if (k < 0)
        return -errno;
    buf[k] = '\0';
    /* "4096\t131072\t6291456\n" -> "4096 131072 6291456": one space between fields. */
    char *w = buf;
    for (const char *c = buf; *c; c++) {
        if (!isspace((unsigned char)*c))
            *w++ = *c;
        else if (w > buf && w[-1] != ' ')
            *w++ = ' ';
    }
    if (w > buf && w[-1] == ' ')
        w--;
    *w = '\0';
    return 0;
}

int sysctl_write(const char *root, const char *key, const char *value)
{
    char path[512], line[POLICY_SYSCTL_VALUE_MAX + 3];     /* the value, "\n", NUL */
    int r = key_path(root, key, path, sizeof(path));
    if (r < 0)
        return r;
    /* O_TRUNC only matters for a captured tree; procfs ignores it. */
    _cleanup_close_ int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int n = snprintf(line, sizeof(line), "%s\n", value);
    if (n < 0 || (size_t)n >= sizeof(line))
        return -E2BIG;
    ssize_t k = write(fd, line, (size_t)n);
    if (k < 0)
        return -errno;
    return k == n ? 0 : -EIO;
}

/* The next whitespace-separated field of *p, as [start, start+len). */
static bool next_field(const char **p, const char **start, size_t *len)
{
    while (isspace((unsigned char)**p))
        (*p)++;
    if (!**p)
        return false;
    *start = *p;
    while (**p && !isspace((unsigned char)**p))
        (*p)++;
    *len = (size_t)(*p - *start);
    return true;
}

bool sysctl_values_equal(const char *a, const char *b)
{
    const char *fa, *fb;
    size_t la, lb;
    for (;;) {
        bool ha = next_field(&a, &fa, &la), hb = next_field(&b, &fb, &lb);
        if (!ha || !hb)
            return ha == hb;
        if (la != lb || memcmp(fa, fb, la) != 0)
            return false;
    }
}

bool sysctl_netns_is_child(const char *root)
{
    char v[32];
    /* somaxconn is per namespace in every kernel: without it, no net tree was read. */
    return sysctl_read(root, "net.core.somaxconn", v, sizeof(v)) == 0 &&
           sysctl_read(root, "net.core.netdev_max_backlog", v, sizeof(v)) == -ENOENT;
}

/* The entry of directory DIR nearest NAME into BUF (NAME itself when present): 0, or
 * -ENOENT. */
static int closest_entry(const char *dir, const char *name, char *buf, size_t len)
{
    DIR *d = opendir(dir);
    char **names = NULL;
    size_t n = 0;
    int r = -ENOENT;
    if (!d)
        return -ENOENT;
    for (struct dirent *e; (e = readdir(d)) && n < CLOSEST_MAX_ENTRIES;) {
        if (e->d_name[0] == '.')
            continue;
        char **grown = realloc(names, (n + 1) * sizeof(*names));
        if (!grown || !(grown[n] = strdup(e->d_name))) {
            names = grown ? grown : names;
            break;
        }
        names = grown;
        n++;
    }
    closedir(d);
    const char *best = str_closest(name, (const char *const *)names, n);
    if (best && strscpy(buf, best, len) >= 0)
        r = 0;
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return r;
}

int sysctl_closest_key(const char *root, const char *key, char *buf, size_t len)
{
    char path[512], want[256], got[256], out[256] = "";
    int n = snprintf(path, sizeof(path), "%s/sys", root);
    size_t o = 0;
    struct stat st;
    if (n < 0 || (size_t)n >= sizeof(path) || strscpy(want, key, sizeof(want)) < 0)
        return -ENOENT;
    for (char *c = want, *next; c; c = next) {
        next = strchr(c, '.');
        if (next)
            *next++ = '\0';
        for (char *s = c; *s; s++)     /* sysctl(8)'s '/' is a '.' inside the name */
            *s = *s == '/' ? '.' : *s;
        if (closest_entry(path, c, got, sizeof(got)) < 0)
            return -ENOENT;
        size_t pl = strlen(path);
        if (pl + 1 + strlen(got) >= sizeof(path))
            return -ENOENT;
        snprintf(path + pl, sizeof(path) - pl, "/%s", got);
        for (char *s = got; *s; s++)
            *s = *s == '.' ? '/' : *s;
        int k = snprintf(out + o, sizeof(out) - o, "%s%s", o ? "." : "", got);
        if (k < 0 || (size_t)k >= sizeof(out) - o)
            return -ENOENT;
        o += (size_t)k;
    }
    if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || streq(out, key))
        return -ENOENT;
    return strscpy(buf, out, len) < 0 ? -ENOENT : 0;
}
