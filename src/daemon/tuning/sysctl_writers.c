/* SPDX-License-Identifier: ISC */
/* Who else sets a sysctl. systemd-sysctl(8) reads *.conf from /etc/sysctl.d, /run/sysctl.d,
 * /usr/local/lib/sysctl.d and /usr/lib/sysctl.d (and /lib/sysctl.d); a file name in an
 * earlier directory masks the same name in a later one; files apply in name order and a
 * later setting wins. procps' "sysctl --system" then reads /etc/sysctl.conf. tuned applies
 * its active profile's [sysctl] section after boot, so it wins over all of them. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "macro.h"
#include "policy.h"
#include "fileio.h"
#include "strutil.h"
#include "sysctl.h"
#include "sysctl_writers.h"

#define TUNED_RANK 1000000
/* The tuned profiles one scan follows (below). */
#define TUNED_MAX_PROFILES 32

static const char *const dirs[] = {
    "/etc/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d", "/usr/lib/sysctl.d",
    "/lib/sysctl.d",
};

/* Setting lines remembered in one scan: a node's sysctl.d files and tuned profiles hold a
 * few hundred; a scan that finds more fails (no writer is named) rather than grow without
 * bound on a file of millions of lines. */
#define SYSCTL_WRITERS_MAX_SITES 4096
/* Files read in one scan, likewise: a node has tens. */
#define SYSCTL_WRITERS_MAX_FILES 1024

/* Keys are cut as long as the policy's keys may be: a longer one names no key fabtune
 * sets. The text then holds at most 4096 such keys and the names of the files read. */
#define SYSCTL_WRITERS_KEY_MAX POLICY_SYSCTL_KEY_MAX

/* The offset of a copy of s (at most len bytes) in w->text. */
static int add_text(struct sysctl_writers *w, const char *s, size_t len, uint32_t *ret)
{
    size_t max = SYSCTL_WRITERS_MAX_SITES * (SYSCTL_WRITERS_KEY_MAX + 1) +
                 (SYSCTL_WRITERS_MAX_FILES + TUNED_MAX_PROFILES + 1) * (PATH_MAX + 64);
    int r = GROW_ARRAY(w->text, w->text_cap, w->text_len + len + 1, max);
    if (r < 0)
        return r;
    memcpy(w->text + w->text_len, s, len);
    w->text[w->text_len + len] = '\0';
    *ret = (uint32_t)w->text_len;
    w->text_len += len + 1;
    return 0;
}

static int add_site(struct sysctl_writers *w, const char *key, uint32_t source, int line,
                    int rank)
{
    int r = GROW_ARRAY(w->e, w->cap, w->n + 1, SYSCTL_WRITERS_MAX_SITES);
    if (r < 0)
        return r;
    struct sysctl_setting_site *s = &w->e[w->n];
    r = add_text(w, key, strnlen(key, SYSCTL_WRITERS_KEY_MAX), &s->key);
    if (r < 0)
        return r;
    s->source = source;
    s->line = line;
    s->rank = rank;
    w->n++;
    return 0;
}

/* A file that cannot be read is skipped; running out of room fails the scan, since a
 * later, overriding site may be the one left out. */
static int too_many(int r)
{
    return r == -EFBIG || r == -ENOMEM ? r : 0;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
        *--e = '\0';
    return s;
}

/* "net/ipv4/tcp_rmem" -> "net.ipv4.tcp_rmem": with '/' first, '/' separates, '.' is literal. */
static void normalize_key(char *k)
{
    char *slash = strchr(k, '/'), *dot = strchr(k, '.');
    if (!slash || (dot && dot < slash))
        return;
    for (char *c = k; *c; c++)
        *c = *c == '/' ? '.' : *c == '.' ? '/' : *c;
}

/* Adds each "key = value" line of a sysctl.d file (or a tuned [sysctl] section). */
static int scan_file(struct sysctl_writers *w, const char *path, const char *shown, int rank,
                     const char *section)
{
    _cleanup_fclose_ FILE *f = fopen_regular(path);
    char line[1024];
    bool in_section = !section;
    uint32_t source;
    if (!f)
        return -errno;
    int r = add_text(w, shown, strlen(shown), &source);
    if (r < 0)
        return r;
    for (int no = 1; fgets(line, sizeof(line), f); no++) {
        char *s = trim(line);
        if (*s == '[') {
            in_section = section && strncmp(s, section, strlen(section)) == 0;
            continue;
        }
        char *eq = strchr(s, '=');
        if (!in_section || !eq || *s == '#' || *s == ';')
            continue;
        *eq = '\0';
        char *key = trim(s);
        if (*key == '-')
            key++;      /* systemd: ignore failures to set it */
        normalize_key(key);
        r = add_site(w, key, source, no, rank);
        if (r < 0)
            return r;
    }
    return 0;
}

struct conf_file {
    char name[NAME_MAX + 1];
    char path[PATH_MAX];
};

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct conf_file *)a)->name, ((const struct conf_file *)b)->name);
}

/* Every *.conf, the first directory's copy of each name only, sorted by name. */
static int collect(const char *root, struct conf_file **ret, size_t *ret_n)
{
    struct conf_file *v = NULL;
    size_t n = 0, cap = 0;
    for (size_t d = 0; d < ARRAY_SIZE(dirs); d++) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof(dir), "%s%s", root, dirs[d]);
        DIR *dh = opendir(dir);
        if (!dh)
            continue;
        struct dirent *de;
        while ((de = readdir(dh))) {
            size_t len = strlen(de->d_name);
            bool masked = false;
            if (len < 6 || strcmp(de->d_name + len - 5, ".conf") != 0)
                continue;
            for (size_t i = 0; i < n && !masked; i++)
                masked = streq(v[i].name, de->d_name);
            if (masked)
                continue;
            int r = GROW_ARRAY(v, cap, n + 1, SYSCTL_WRITERS_MAX_FILES);
            if (r < 0) {
                closedir(dh);
                free(v);
                return r;
            }
            strscpy(v[n].name, de->d_name, sizeof(v[n].name));
            if (snprintf(v[n].path, sizeof(v[n].path), "%s/%s", dir, de->d_name) <
                (int)sizeof(v[n].path))
                n++;
        }
        closedir(dh);
    }
    if (n)
        qsort(v, n, sizeof(*v), by_name);
    *ret = v;
    *ret_n = n;
    return 0;
}

/* The tuned profiles one scan has followed: each is read once, however many profiles
 * include it (an include on every line of a profile that includes itself would otherwise
 * read it lines^depth times), and at most TUNED_MAX_PROFILES in all. tuned merges the
 * profiles in the order it finishes loading them (loader.py: a profile's includes, in
 * their order, then the profile itself; then the next active one), a later one winning:
 * that order is each profile's rank. */
struct tuned_walk {
    char names[TUNED_MAX_PROFILES][NAME_MAX + 1];
    size_t n;
    int loaded;
};

/* True the first time NAME is met in this scan, while there is room to remember it. */
static bool tuned_first_visit(struct tuned_walk *walk, const char *name)
{
    for (size_t i = 0; i < walk->n; i++)
        if (streq(walk->names[i], name))
            return false;
    if (walk->n == TUNED_MAX_PROFILES)
        return false;
    strscpy(walk->names[walk->n++], name, sizeof(walk->names[0]));
    return true;
}

/* tuned's own rule for a profile name (loader.py safe_name): no '/', nothing empty. */
static bool tuned_safe_name(const char *name)
{
    return *name && strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                 "0123456789_.-") == strlen(name) &&
           !streq(name, ".") && !streq(name, "..");
}

static int scan_tuned_profile(struct sysctl_writers *w, const char *root, const char *name,
                              int depth, struct tuned_walk *walk);

/* "include=a, b;c" in [main]: each profile in turn, before the one that includes them. */
static int scan_tuned_includes(struct sysctl_writers *w, const char *root, char *list,
                               int depth, struct tuned_walk *walk)
{
    int r = 0;
    for (char *save = NULL, *n = strtok_r(list, ",;", &save); n && r >= 0;
         n = strtok_r(NULL, ",;", &save))
        r = scan_tuned_profile(w, root, trim(n), depth, walk);
    return r;
}

/* The active tuned profiles' [sysctl] sections, following include= a few levels deep. */
static int scan_tuned_profile(struct sysctl_writers *w, const char *root, const char *name,
                              int depth, struct tuned_walk *walk)
{
    char path[PATH_MAX], shown[PATH_MAX + 64], line[512];
    static const char *const bases[] = { "/etc/tuned", "/usr/lib/tuned" };
    if (depth >= 5 || !tuned_safe_name(name) || !tuned_first_visit(walk, name))
        return 0;
    for (size_t b = 0; b < ARRAY_SIZE(bases); b++) {
        snprintf(path, sizeof(path), "%s%s/%s/tuned.conf", root, bases[b], name);
        _cleanup_fclose_ FILE *f = fopen_regular(path);
        if (!f)
            continue;
        snprintf(shown, sizeof(shown), "tuned profile '%s' (%s/%s/tuned.conf)", name, bases[b], name);
        bool in_main = false;
        while (fgets(line, sizeof(line), f)) {
            char *s = trim(line), *eq = strchr(s, '=');
            if (*s == '[') {
                in_main = strncmp(s, "[main]", 6) == 0;
                continue;
            }
            if (!in_main || !eq)
                continue;
            *eq = '\0';
            if (!streq(trim(s), "include"))
                continue;
            int r = scan_tuned_includes(w, root, eq + 1, depth + 1, walk);
            if (r < 0)
                return r;
        }
        return too_many(scan_file(w, path, shown, TUNED_RANK + walk->loaded++, "[sysctl]"));
    }
    return 0;
}

static int scan_tuned(struct sysctl_writers *w, const char *root)
{
    char path[PATH_MAX], names[256] = "";
    struct tuned_walk walk = { .n = 0 };
    snprintf(path, sizeof(path), "%s/etc/tuned/active_profile", root);
    _cleanup_fclose_ FILE *f = fopen_regular(path);
    if (!f || !fgets(names, sizeof(names), f))
        return 0;
    int r = 0;
    for (char *save = NULL, *n = strtok_r(names, " \t\n", &save); n && r >= 0;
         n = strtok_r(NULL, " \t\n", &save))
        r = scan_tuned_profile(w, root, n, 0, &walk);
    return r;
}

int sysctl_writers_scan(const char *root, struct sysctl_writers *ret)
{
    struct conf_file *files = NULL;
    size_t n = 0;
    char shown[PATH_MAX], conf[PATH_MAX], real_conf[PATH_MAX], real[PATH_MAX];
    bool conf_seen = false;

    memset(ret, 0, sizeof(*ret));
    int r = collect(root, &files, &n);
    if (r < 0)
        return r;
    snprintf(conf, sizeof(conf), "%s/etc/sysctl.conf", root);
    bool have_conf = realpath(conf, real_conf) != NULL;
    for (size_t i = 0; i < n && r >= 0; i++) {
        /* Show the path as the host sees it, without the test root. */
        strscpy(shown, files[i].path + strlen(root), sizeof(shown));
        conf_seen |= have_conf && realpath(files[i].path, real) && streq(real, real_conf);
        r = scan_file(ret, files[i].path, shown, (int)i, NULL);
        if (r == -ENOENT || r == -EACCES)
            r = 0;
    }
    free(files);
    /* Debian links /etc/sysctl.d/99-sysctl.conf to it; otherwise procps reads it last. */
    if (r >= 0 && have_conf && !conf_seen)
        r = too_many(scan_file(ret, conf, "/etc/sysctl.conf", (int)n, NULL));
    if (r >= 0)
        r = scan_tuned(ret, root);
    if (r < 0)
        sysctl_writers_done(ret);
    return r;
}

bool sysctl_writers_find(const struct sysctl_writers *w, const char *key, char *where, size_t size)
{
    const struct sysctl_setting_site *best = NULL;
    for (size_t i = 0; i < w->n; i++)
        if (fnmatch(sysctl_writers_key(w, i), key, 0) == 0 && (!best || w->e[i].rank >= best->rank))
            best = &w->e[i];
    if (best)
        snprintf(where, size, "%s:%d", w->text + best->source, best->line);
    return best;
}

void sysctl_writers_done(struct sysctl_writers *w)
{
    free(w->e);
    free(w->text);
    memset(w, 0, sizeof(*w));
}
