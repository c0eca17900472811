/* SPDX-License-Identifier: ISC */
/* A snapshot tarball in memory, through libarchive: a sorted table of its entries, and
 * path resolution that follows sysfs's relative symlinks inside it. */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "macro.h"
#include "strutil.h"
#include "tarfs.h"

/* libarchive is loaded at the first snapshot read, not linked: every fabtuned would map it
 * and all it links (its compressors, libxml2, ICU, libstdc++) at start, for a snapshot that
 * only fabtuned --snapshot reads: 2.5 MiB of the idle daemon's RSS, and 4 ms of each start.
 * Its soname has been libarchive.so.13 since 3.0 (configure wants >= 3.4). */
#define LIBARCHIVE_SONAME "libarchive.so.13"
#define LIBARCHIVE_FUNCS(X) \
    X(archive_entry_filetype) \
    X(archive_entry_pathname) \
    X(archive_entry_size) \
    X(archive_entry_symlink) \
    X(archive_errno) \
    X(archive_error_string) \
    X(archive_read_data) \
    X(archive_read_data_skip) \
    X(archive_read_free) \
    X(archive_read_new) \
    X(archive_read_next_header) \
    X(archive_read_open_filename) \
    X(archive_read_open_memory) \
    X(archive_read_support_filter_all) \
    X(archive_read_support_format_tar)
#define LIBARCHIVE_DECLARE(f) __typeof__(f) *f;
static struct {
    LIBARCHIVE_FUNCS(LIBARCHIVE_DECLARE)
} la;
static pthread_once_t la_once = PTHREAD_ONCE_INIT;
static char la_error[256];      /* why it could not be loaded; empty once it is */

static void libarchive_load_once(void)
{
    void *lib = dlopen(LIBARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(la_error, sizeof(la_error), "cannot load %s: %s", LIBARCHIVE_SONAME, dlerror());
        return;
    }
#define LIBARCHIVE_LOAD(f) \
    if (!(la.f = (__typeof__(la.f))dlsym(lib, #f))) { \
        snprintf(la_error, sizeof(la_error), "%s has no %s", LIBARCHIVE_SONAME, #f); \
        dlclose(lib); \
        return; \
    }
    LIBARCHIVE_FUNCS(LIBARCHIVE_LOAD)
    la_error[0] = '\0';
}

static int libarchive_load(char *why, size_t whylen)
{
    if (pthread_once(&la_once, libarchive_load_once) != 0 || la_error[0]) {
        snprintf(why, whylen, "%s", la_error[0] ? la_error : "cannot load " LIBARCHIVE_SONAME);
        return -ENOSYS;
    }
    return 0;
}

struct tarfs_entry {
    char *path;                 /* "sys/class/net/eth0" (no leading "./" or "/") */
    char kind;                  /* 'f', 'd', 'l' */
    bool implied;               /* a parent directory the archive did not list */
    char *data;                 /* file contents, or the symlink's target */
    size_t size;
};

struct tarfs {
    struct tarfs_entry *e;
    size_t n, cap;
    size_t total;
};

static int add(struct tarfs *t, const char *path, char kind, bool implied, char *data, size_t size)
{
    if (t->n >= TARFS_MAX_ENTRIES)
        return -E2BIG;
    if (GROW_ARRAY(t->e, t->cap, t->n + 1, TARFS_MAX_ENTRIES) < 0)
        return -ENOMEM;         /* the bound is checked above, with its own error */
    char *p = strdup(path);
    if (!p)
        return -ENOMEM;
    t->e[t->n++] = (struct tarfs_entry){ .path = p, .kind = kind, .implied = implied,
                                        .data = data, .size = size };
    return 0;
}

/* "./sys//class/" -> "sys/class"; false for the top itself or a name with ".." in it. */
static bool normalize(const char *in, char *out, size_t len)
{
    size_t w = 0;
    const char *c = in;
    while (*c) {
        while (*c == '/')
            c++;
        const char *end = strchrnul(c, '/');
        size_t k = (size_t)(end - c);
        if (k == 0)
            break;
        if (k == 1 && c[0] == '.') {
            c = end;
            continue;
        }
        if (k == 2 && c[0] == '.' && c[1] == '.')
            return false;
        if (w + k + 2 > len)
            return false;
        if (w)
            out[w++] = '/';
        memcpy(out + w, c, k);
        w += k;
        c = end;
    }
    out[w] = '\0';
    return w > 0;
}

static int entry_cmp(const void *a, const void *b)
{
    const struct tarfs_entry *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    /* Among equal paths the archive's own entry wins over an implied directory, and the
     * last one the archive wrote over earlier ones (tar's rule): stable by insertion. */
    if (c)
        return c;
    if (x->implied != y->implied)
        return x->implied ? 1 : -1;
    return x < y ? 1 : -1;
}

static void entry_free(struct tarfs_entry *e)
{
    free(e->path);
    free(e->data);
}

/* Every parent of PATH as an implied directory; the sort drops duplicates. */
static int add_parents(struct tarfs *t, const char *path)
{
    char buf[PATH_MAX];
    strscpy(buf, path, sizeof(buf));
    for (char *s = strrchr(buf, '/'); s; s = strrchr(buf, '/')) {
        *s = '\0';
        int r = add(t, buf, 'd', true, NULL, 0);
        if (r < 0)
            return r;
    }
    return 0;
}

/* The entry and its parents; says why when the entry limit stops it, whichever add hits it. */
static int add_with_parents(struct tarfs *t, const char *path, char kind, char *data, size_t size,
                            char *why, size_t whylen)
{
    int e = add(t, path, kind, false, data, size);
    if (e < 0)
        free(data);
    else
        e = add_parents(t, path);
    if (e == -E2BIG)
        snprintf(why, whylen, "more than %d entries", TARFS_MAX_ENTRIES);
    return e;
}

/* The size that ENTRY's header declares, judged before anything else, its name included:
 * even skipping an entry inflates its data through the decompressor, so the limits bound
 * what a skipped entry may cost too (a gzip bomb under a bad name). */
static int admit_size(struct tarfs *t, struct archive_entry *ae, char *why, size_t whylen)
{
    la_int64_t want = la.archive_entry_size(ae);
    const char *name = la.archive_entry_pathname(ae);
    if (want < 0 || want > TARFS_MAX_FILE) {
        snprintf(why, whylen, "%s: %lld bytes, more than a snapshot file holds",
                 name ? name : "an entry without a name", (long long)want);
        return -EFBIG;
    }
    if (t->total + (size_t)want > TARFS_MAX_TOTAL) {
        snprintf(why, whylen, "more than %u MiB of files", TARFS_MAX_TOTAL >> 20);
        return -EFBIG;
    }
    t->total += (size_t)want;
    return 0;
}

/* A regular file's data, up to its admitted size. */
static int read_file_data(struct archive *a, struct archive_entry *ae, const char *path,
                          char **ret, size_t *ret_size, char *why, size_t whylen)
{
    size_t want = (size_t)la.archive_entry_size(ae);
    char *data = malloc(want + 1);
    if (!data)
        return -ENOMEM;
    la_ssize_t k = want ? la.archive_read_data(a, data, want) : 0;
    if (k < 0) {
        free(data);
        snprintf(why, whylen, "%s: %s", path, la.archive_error_string(a));
        return -EIO;
    }
    data[k] = '\0';
    *ret = data;
    *ret_size = (size_t)k;
    return 0;
}

/* One entry the archive lists, once its size is admitted: added, or skipped (a name that
 * leaves the top, a device, fifo or hard link: never in a snapshot) without reading it. */
static int read_entry(struct archive *a, struct archive_entry *ae, struct tarfs *t,
                      char *why, size_t whylen)
{
    const char *name = la.archive_entry_pathname(ae);
    mode_t type = la.archive_entry_filetype(ae);
    char path[PATH_MAX], *data = NULL;
    size_t size = 0;
    int r;
    if (!name || !normalize(name, path, sizeof(path)) ||
        (type != AE_IFDIR && type != AE_IFLNK && type != AE_IFREG)) {
        if (la.archive_read_data_skip(a) == ARCHIVE_OK)
            return 0;
        snprintf(why, whylen, "%s", la.archive_error_string(a) ? la.archive_error_string(a) : "a read error");
        return -EIO;
    }
    if (type == AE_IFLNK) {
        const char *target = la.archive_entry_symlink(ae);
        if (!target) {
            snprintf(why, whylen, "%s: a symlink without a target", path);
            return -EINVAL;
        }
        if (!(data = strdup(target)))
            return -ENOMEM;
        size = strlen(data);
    } else if (type == AE_IFREG && (r = read_file_data(a, ae, path, &data, &size, why, whylen)) < 0)
        return r;
    char kind = type == AE_IFDIR ? 'd' : type == AE_IFLNK ? 'l' : 'f';
    return add_with_parents(t, path, kind, data, size, why, whylen);
}

static int read_entries(struct archive *a, struct tarfs *t, char *why, size_t whylen)
{
    struct archive_entry *ae;
    int r;
    while ((r = la.archive_read_next_header(a, &ae)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
        int e = admit_size(t, ae, why, whylen);
        if (e < 0 || (e = read_entry(a, ae, t, why, whylen)) < 0)
            return e;
    }
    if (r != ARCHIVE_EOF) {
        snprintf(why, whylen, "%s", la.archive_error_string(a) ? la.archive_error_string(a) : "not an archive");
        return -EINVAL;
    }
    return 0;
}

int tarfs_load(const char *path, const void *data, size_t len, struct tarfs **ret,
               char *why, size_t whylen)
{
    int r = libarchive_load(why, whylen);
    if (r < 0)
        return r;
    struct tarfs *t = calloc(1, sizeof(*t));
    struct archive *a = la.archive_read_new();
    if (!t || !a) {
        free(t);
        if (a)
            la.archive_read_free(a);
        snprintf(why, whylen, "out of memory");
        return -ENOMEM;
    }
    la.archive_read_support_filter_all(a);
    la.archive_read_support_format_tar(a);
    r = path ? la.archive_read_open_filename(a, path, 64 * 1024) : la.archive_read_open_memory(a, data, len);
    if (r != ARCHIVE_OK) {
        int e = la.archive_errno(a);
        snprintf(why, whylen, "%s%s%s", la.archive_error_string(a) ? la.archive_error_string(a) : "cannot open",
                 e > 0 ? ": " : "", e > 0 ? errno_text(e) : "");
        r = -EINVAL;
        goto fail;
    }
    if ((r = read_entries(a, t, why, whylen)) < 0) {
        if (r == -ENOMEM)
            snprintf(why, whylen, "out of memory");
        goto fail;
    }
    la.archive_read_free(a);
    if (t->n)
        qsort(t->e, t->n, sizeof(*t->e), entry_cmp);
    size_t w = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (w && streq(t->e[w - 1].path, t->e[i].path))
            entry_free(&t->e[i]);
        else
            t->e[w++] = t->e[i];
    }
    t->n = w;
    *ret = t;
    return 0;
fail:
    la.archive_read_free(a);
    tarfs_free(t);
    return r;
}

void tarfs_free(struct tarfs *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        entry_free(&t->e[i]);
    free(t->e);
    free(t);
}

size_t tarfs_count(const struct tarfs *t)
{
    return t->n;
}

static const struct tarfs_entry *find(const struct tarfs *t, const char *path)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(t->e[mid].path, path);
        if (c == 0)
            return &t->e[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Resolves PATH to an entry, following symlinks on every component (and on the last one
 * when FOLLOW_LAST). The top of the archive is "/" of the node it was taken on. */
static const struct tarfs_entry *resolve(const struct tarfs *t, const char *path, bool follow_last,
                                         char *cur, size_t curlen)
{
    char rest[PATH_MAX * 2];
    const struct tarfs_entry *e = NULL;
    int hops = 0;
    size_t w = 0;
    if (strlen(path) >= sizeof(rest))
        return NULL;
    strcpy(rest, path);
    cur[0] = '\0';
    char *c = rest;
    for (;;) {
        while (*c == '/')
            c++;
        if (!*c)
            break;
        char *end = strchrnul(c, '/');
        size_t k = (size_t)(end - c);
        bool last = !*end || !end[strspn(end, "/")];
        if (k == 1 && c[0] == '.') {
            c = end;
            continue;
        }
        if (k == 2 && c[0] == '.' && c[1] == '.') {
            char *s = strrchr(cur, '/');
            w = s ? (size_t)(s - cur) : 0;
            cur[w] = '\0';
            c = end;
            e = w ? find(t, cur) : NULL;
            continue;
        }
        if (w + k + 2 > curlen)
            return NULL;
        size_t before = w;
        if (w)
            cur[w++] = '/';
        memcpy(cur + w, c, k);
        w += k;
        cur[w] = '\0';
        if (!(e = find(t, cur)))
            return NULL;
        if (e->kind == 'l' && (!last || follow_last)) {
            if (++hops > 40)
                return NULL;
            /* rest := target + "/" + what follows this component */
            char next[PATH_MAX * 2];
            int n = snprintf(next, sizeof(next), "%s/%s", e->data, end);
            if (n < 0 || (size_t)n >= sizeof(next))
                return NULL;
            if (e->data[0] == '/')
                before = 0;
            w = before;
            cur[w] = '\0';
            strcpy(rest, next);
            c = rest;
            continue;
        }
        if (!last && e->kind != 'd')
            return NULL;
        c = end;
    }
    if (!w)
        return NULL;            /* the top itself: nothing asks for it */
    return e;
}

char tarfs_lookup(const struct tarfs *t, const char *path, const char **data, size_t *size,
                  char *ret_real, size_t real_len)
{
    char cur[PATH_MAX];
    const struct tarfs_entry *e = resolve(t, path, true, cur, sizeof(cur));
    if (!e)
        return 0;
    if (data)
        *data = e->data;
    if (size)
        *size = e->size;
    if (ret_real)
        strscpy(ret_real, cur, real_len);
    return e->kind;
}

int tarfs_readlink(const struct tarfs *t, const char *path, char *buf, size_t len)
{
    char cur[PATH_MAX];
    const struct tarfs_entry *e = resolve(t, path, false, cur, sizeof(cur));
    if (!e)
        return -ENOENT;
    if (e->kind != 'l')
        return -EINVAL;
    strscpy(buf, e->data, len);
    return 0;
}

int tarfs_list(const struct tarfs *t, const char *path, int (*each)(const char *name, void *u), void *u)
{
    char dir[PATH_MAX];
    const struct tarfs_entry *e = resolve(t, path, true, dir, sizeof(dir));
    if (!e)
        return -ENOENT;
    if (e->kind != 'd')
        return -ENOTDIR;
    size_t dl = strlen(dir);
    /* The entries under "dir/" are contiguous in strcmp order: find the first. */
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strncmp(t->e[mid].path, dir, dl);
        if (c < 0 || (c == 0 && t->e[mid].path[dl] < '/'))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < t->n; i++) {
        const char *p = t->e[i].path;
        if (strncmp(p, dir, dl) != 0 || p[dl] != '/')
            break;
        if (strchr(p + dl + 1, '/'))
            continue;
        int r = each(p + dl + 1, u);
        if (r < 0)
            return r;
    }
    return 0;
}

static struct tarfs *mounted;
static char mount_prefix[PATH_MAX + 8];

int tarfs_mount(const char *path, char *why, size_t whylen)
{
    struct tarfs *t;
    int r = tarfs_load(path, NULL, 0, &t, why, whylen);
    if (r < 0)
        return r;
    tarfs_unmount();
    mounted = t;
    snprintf(mount_prefix, sizeof(mount_prefix), "tar:%s!", path);
    return 0;
}

void tarfs_unmount(void)
{
    tarfs_free(mounted);
    mounted = NULL;
    mount_prefix[0] = '\0';
}

const char *tarfs_prefix(void)
{
    return mounted ? mount_prefix : NULL;
}

const struct tarfs *tarfs_owner(const char *p, const char **inside)
{
    if (!mounted)
        return NULL;
    size_t n = strlen(mount_prefix);
    if (strncmp(p, mount_prefix, n) != 0)
        return NULL;
    *inside = p + n;
    return mounted;
}
