/* SPDX-License-Identifier: ISC */
/* A snapshot tarball unpacked into a directory, through libarchive's secure extraction,
 * within the limits, every symlink kept inside. */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "snapshot_extract.h"
#include "strutil.h"

/* libarchive is loaded at the first snapshot, not linked: every fabtuned would map it and
 * all it links (its compressors, libxml2, ICU, libstdc++) at start, for what only
 * fabtuned --once --snapshot reads: 2.7 MiB of each daemon's RSS and 3 ms of each start.
 * Its soname has been libarchive.so.13 since 3.0 (configure wants >= 3.4). */
#define LIBARCHIVE_SONAME "libarchive.so.13"
#define LIBARCHIVE_FUNCS(X) \
    X(archive_entry_copy_pathname) \
    X(archive_entry_copy_symlink) \
    X(archive_entry_filetype) \
    X(archive_entry_hardlink) \
    X(archive_entry_pathname) \
    X(archive_entry_set_perm) \
    X(archive_entry_size) \
    X(archive_entry_symlink) \
    X(archive_errno) \
    X(archive_error_string) \
    X(archive_read_data_block) \
    X(archive_read_data_skip) \
    X(archive_read_free) \
    X(archive_read_new) \
    X(archive_read_next_header) \
    X(archive_read_open_fd) \
    X(archive_read_open_memory) \
    X(archive_read_support_filter_bzip2) \
    X(archive_read_support_filter_gzip) \
    X(archive_read_support_filter_xz) \
    X(archive_read_support_filter_zstd) \
    X(archive_read_support_format_tar) \
    X(archive_write_close) \
    X(archive_write_data_block) \
    X(archive_write_disk_new) \
    X(archive_write_disk_set_options) \
    X(archive_write_finish_entry) \
    X(archive_write_free) \
    X(archive_write_header)
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

/* "./sys//class/" -> "sys/class", its length. With CLIMB (a symlink's target) ".." goes
 * up, and stops at the top as "/.." does; else (an entry's name) a ".." refuses it. -1 when
 * refused or longer than LEN; 0 is the top itself. */
static int normalize(const char *in, bool climb, char *out, size_t len)
{
    size_t w = 0;
    for (const char *c = in, *end; *c; c = end) {
        while (*c == '/')
            c++;
        end = strchrnul(c, '/');
        size_t k = (size_t)(end - c);
        if (k == 0 || (k == 1 && c[0] == '.'))
            continue;
        if (k == 2 && c[0] == '.' && c[1] == '.') {
            if (!climb)
                return -1;
            char *up = w ? memrchr(out, '/', w) : NULL;
            w = up ? (size_t)(up - out) : 0;
            continue;
        }
        if (w + k + 2 > len)
            return -1;
        if (w)
            out[w++] = '/';
        memcpy(out + w, c, k);
        w += k;
    }
    out[w] = '\0';
    return (int)w;
}

/* The target of the symlink NAME (normalized) resolved as its node resolved it, "/" being
 * the top and ".." stopping there, then written as a path from NAME's directory: up to the
 * top through NAME's own directories, real ones (nothing is unpacked through a symlink),
 * and down with no "..". So no link, nor any chain of them, leads out of the top. */
static bool link_inside(const char *name, const char *target, char *out, size_t len)
{
    char joined[PATH_MAX * 2], down[PATH_MAX];
    const char *slash = strrchr(name, '/');
    int n = target[0] == '/' ? snprintf(joined, sizeof(joined), "%s", target)
          : snprintf(joined, sizeof(joined), "%.*s/%s", slash ? (int)(slash - name) : 0, name,
                     target);
    if (!target[0] || n < 0 || (size_t)n >= sizeof(joined))
        return false;
    int k = normalize(joined, true, down, sizeof(down));
    size_t w = 0;
    if (k < 0)
        return false;
    for (const char *c = strchr(name, '/'); c; c = strchr(c + 1, '/')) {
        if (w + 3 >= len)
            return false;
        memcpy(out + w, "../", 3);
        w += 3;
    }
    if (k == 0 && w) {  /* the top itself: "../.." */
        out[w - 1] = '\0';
        return true;
    }
    if (w + (size_t)k >= len)
        return false;
    strcpy(out + w, k ? down : ".");
    return true;
}

struct extract {
    struct archive *in, *disk;
    size_t name_max;            /* a name's room beside the directory, in PATH_MAX */
    size_t entries, total;
    char *why;
    size_t whylen;
};

/* An entry's header judged before anything else, its name included: even skipping an
 * entry inflates its data, so the limits bound what a skipped entry may cost too (a gzip
 * bomb under a bad name). */
static int admit(struct extract *x, struct archive_entry *ae)
{
    la_int64_t want = la.archive_entry_size(ae);
    const char *name = la.archive_entry_pathname(ae);
    if (++x->entries > SNAPSHOT_MAX_ENTRIES) {
        snprintf(x->why, x->whylen, "more than %d entries", SNAPSHOT_MAX_ENTRIES);
        return -E2BIG;
    }
    if (want < 0 || want > SNAPSHOT_MAX_FILE) {
        snprintf(x->why, x->whylen, "%s: %lld bytes, more than a snapshot file holds",
                 name ? name : "an entry without a name", (long long)want);
        return -EFBIG;
    }
    if (x->total + (size_t)want > SNAPSHOT_MAX_TOTAL) {
        snprintf(x->why, x->whylen, "more than %u MiB of files", SNAPSHOT_MAX_TOTAL >> 20);
        return -EFBIG;
    }
    x->total += (size_t)want;
    return 0;
}

/* Whether entry AE is unpacked: a directory, regular file or symlink under the top, with
 * its name made relative, its mode the user's alone (no set-id bit), and a symlink's
 * target kept inside. A name that leaves the top or does not fit, a device, fifo, socket
 * or hard link (never in a snapshot) is skipped. */
static bool entry_prepare(const struct extract *x, struct archive_entry *ae)
{
    const char *name = la.archive_entry_pathname(ae), *target;
    mode_t type = la.archive_entry_filetype(ae);
    char path[PATH_MAX], link[PATH_MAX];
    if (!name || la.archive_entry_hardlink(ae) || normalize(name, false, path, x->name_max) <= 0)
        return false;
    if (type == AE_IFLNK) {
        target = la.archive_entry_symlink(ae);
        if (!target || !link_inside(path, target, link, sizeof(link)))
            return false;
        la.archive_entry_copy_symlink(ae, link);
    } else if (type != AE_IFDIR && type != AE_IFREG) {
        return false;
    }
    la.archive_entry_copy_pathname(ae, path);
    la.archive_entry_set_perm(ae, type == AE_IFDIR ? 0700 : 0600);
    return true;
}

static int fail(struct extract *x, struct archive *a, const char *name)
{
    const char *e = la.archive_error_string(a);
    snprintf(x->why, x->whylen, "%s%s%s", name ? name : "", name ? ": " : "",
             e ? e : "a read error");
    return -EIO;
}

/* The reader's failure, with its errno said. libarchive's "Unrecognized archive format"
 * at the start says EILSEQ (its ARCHIVE_ERRNO_FILE_FORMAT on Linux), in words of wide
 * characters: that is a file that is no tarball. */
static int read_fail(struct extract *x)
{
    int e = la.archive_errno(x->in);
    const char *s = la.archive_error_string(x->in);
    if (e == EILSEQ && x->entries == 0) {
        snprintf(x->why, x->whylen, "not a tar archive (plain, or compressed with gzip, bzip2, "
                 "xz or zstd)");
        return -EINVAL;
    }
    if (e <= 0 || e == EILSEQ) {   /* a damaged tarball: libarchive says where */
        snprintf(x->why, x->whylen, "%s", s ? s : "a read error");
        return -EIO;
    }
    snprintf(x->why, x->whylen, "%s: %s", s ? s : "cannot read", errno_text(e));
    return -e;
}

static int skip(struct extract *x)
{
    return la.archive_read_data_skip(x->in) == ARCHIVE_OK ? 0 : fail(x, x->in, NULL);
}

/* One prepared entry onto the disk. One libarchive refuses on its own (a name through a
 * symlink an earlier entry made, a directory in a file's place) is skipped, as tar's
 * reader would find neither. */
static int entry_write(struct extract *x, struct archive_entry *ae)
{
    const char *name = la.archive_entry_pathname(ae);
    const void *buf;
    size_t size;
    la_int64_t offset;
    int r = la.archive_write_header(x->disk, ae);
    if (r == ARCHIVE_FAILED)
        return skip(x);
    if (r < ARCHIVE_WARN)
        return fail(x, x->disk, name);
    while ((r = la.archive_read_data_block(x->in, &buf, &size, &offset)) == ARCHIVE_OK)
        if (la.archive_write_data_block(x->disk, buf, size, offset) < ARCHIVE_WARN)
            return fail(x, x->disk, name);
    if (r != ARCHIVE_EOF)
        return fail(x, x->in, name);
    return la.archive_write_finish_entry(x->disk) < ARCHIVE_FAILED ? fail(x, x->disk, name) : 0;
}

/* Every entry, admitted, then unpacked or skipped; with no writer (the check before the
 * unpacking), each is only admitted. */
static int extract_all(struct extract *x)
{
    struct archive_entry *ae;
    int r;
    while ((r = la.archive_read_next_header(x->in, &ae)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
        int e = admit(x, ae);
        if (e == 0)
            e = x->disk && entry_prepare(x, ae) ? entry_write(x, ae) : skip(x);
        if (e < 0)
            return e;
    }
    if (r != ARCHIVE_EOF)
        return read_fail(x);
    if (x->disk && la.archive_write_close(x->disk) != ARCHIVE_OK)
        return fail(x, x->disk, NULL);
    return 0;
}

/* The reader of FD (or DATA/LEN), and with WRITE the writer into the working directory. */
static int extract_open(struct extract *x, int fd, const void *data, size_t len, bool write)
{
    x->in = la.archive_read_new();
    x->disk = write ? la.archive_write_disk_new() : NULL;
    if (!x->in || (write && !x->disk)) {
        snprintf(x->why, x->whylen, "out of memory");
        return -ENOMEM;
    }
    /* The compressions a snapshot is written in and bzip2, each through a library:
     * support_filter_all() would also run external programs (lrzip, lzop, grzip) on
     * another node's bytes. */
    la.archive_read_support_filter_gzip(x->in);
    la.archive_read_support_filter_bzip2(x->in);
    la.archive_read_support_filter_xz(x->in);
    la.archive_read_support_filter_zstd(x->in);
    la.archive_read_support_format_tar(x->in);
    /* No owner, mode, time, ACL, xattr or flags from the archive: the user's files. */
    if (write)
        la.archive_write_disk_set_options(x->disk, ARCHIVE_EXTRACT_SECURE_NODOTDOT |
                                          ARCHIVE_EXTRACT_SECURE_SYMLINKS |
                                          ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS);
    int r = fd >= 0 ? la.archive_read_open_fd(x->in, fd, 64 * 1024)
                    : la.archive_read_open_memory(x->in, data, len);
    return r == ARCHIVE_OK ? 0 : read_fail(x);
}

/* One pass over the tarball from its start, in the working directory. */
static int extract_pass(struct extract *x, int fd, const void *data, size_t len, bool write)
{
    x->entries = x->total = 0;
    int r = extract_open(x, fd, data, len, write);
    if (r == 0)
        r = extract_all(x);
    if (x->in)
        la.archive_read_free(x->in);
    if (x->disk)
        la.archive_write_free(x->disk);
    return r;
}

/* The tarball is read twice: once to admit it whole, writing nothing (a tarball past a
 * limit costs no file on disk: 200000 empty ones take seconds to write and remove), then
 * to unpack it, every limit held again (the file may have changed). A pipe is read once. */
static int extract_twice(struct extract *x, int fd, const void *data, size_t len)
{
    bool again = fd < 0 || lseek(fd, 0, SEEK_CUR) >= 0;
    int r = again ? extract_pass(x, fd, data, len, false) : 0;
    if (r == 0 && again && fd >= 0 && lseek(fd, 0, SEEK_SET) < 0) {
        r = -errno;
        snprintf(x->why, x->whylen, "cannot read it again: %s", errno_text(-r));
    }
    return r < 0 ? r : extract_pass(x, fd, data, len, true);
}

/* DIR's sys/: a directory of its own, or the tarball is no snapshot. */
static int snapshot_check(const char *dir, char *why, size_t whylen)
{
    char sys[PATH_MAX];
    struct stat st;
    snprintf(sys, sizeof(sys), "%s/sys", dir);
    if (lstat(sys, &st) == 0 && S_ISDIR(st.st_mode))
        return 0;
    snprintf(why, whylen, "not a fabtune snapshot: it holds no sys/ directory");
    return -EINVAL;
}

int snapshot_extract(const char *path, const void *data, size_t len, const char *dir,
                     char *why, size_t whylen)
{
    struct extract x = { .name_max = PATH_MAX - strlen(dir) - 1, .why = why, .whylen = whylen };
    int r = libarchive_load(why, whylen);
    if (r < 0)
        return r;
    if (strlen(dir) + 2 >= PATH_MAX) {
        snprintf(why, whylen, "%s: %s", dir, errno_text(ENAMETOOLONG));
        return -ENAMETOOLONG;
    }
    /* Opened here, before the working directory changes: PATH may be relative. */
    _cleanup_close_ int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY) : -1;
    if (path && fd < 0) {
        r = -errno;
        snprintf(why, whylen, "%s", errno_text(-r));
        return r;
    }
    /* libarchive's secure extraction takes relative names only: it runs in DIR. */
    _cleanup_close_ int here = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (here < 0 || chdir(dir) < 0) {
        r = -errno;
        snprintf(why, whylen, "cannot enter %s: %s", here < 0 ? "the working directory" : dir,
                 errno_text(-r));
        return r;
    }
    mode_t mask = umask(077);
    r = extract_twice(&x, fd, data, len);
    umask(mask);
    if (fchdir(here) < 0 && r == 0) {
        r = -errno;
        snprintf(why, whylen, "cannot return to the working directory: %s", errno_text(-r));
    }
    return r < 0 ? r : snapshot_check(dir, why, whylen);
}
