/* SPDX-License-Identifier: ISC */
/* The snapshot tarball through libarchive: the compression follows the name (.tar.xz is
 * xz, as the shipped fixtures are), and a name that says none fabtune knows is refused
 * rather than written as a plain tar under a misleading suffix. */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "snapshot_archive.h"

static const struct compression {
    const char *suffix;
    const char *filter;
    int (*add)(struct archive *);
} compressions[] = {
    { ".tar", "none", archive_write_add_filter_none },
    { ".tar.gz", "gzip", archive_write_add_filter_gzip },
    { ".tgz", "gzip", archive_write_add_filter_gzip },
    { ".tar.xz", "xz", archive_write_add_filter_xz },
    { ".tar.zst", "zstd", archive_write_add_filter_zstd },
};

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n > k && streq(s + n - k, suffix);
}

static const struct compression *compression_of(const char *tarball)
{
    for (size_t i = 0; i < ARRAY_SIZE(compressions); i++)
        if (ends_with(tarball, compressions[i].suffix))
            return &compressions[i];
    return NULL;
}

/* A writer with C's filter, or NULL: ARCHIVE_WARN means libarchive would run an external
 * program for it, which a snapshot does not depend on. */
static struct archive *writer_for(const struct compression *c)
{
    struct archive *w = archive_write_new();
    if (w && (c->add(w) != ARCHIVE_OK || archive_write_set_format_pax_restricted(w) != ARCHIVE_OK)) {
        archive_write_free(w);
        return NULL;
    }
    return w;
}

int snapshot_archive_check_name(const char *tarball, char *why, size_t whylen)
{
    const struct compression *c = compression_of(tarball);
    if (!c) {
        snprintf(why, whylen, "'%s' does not say how to compress it: name it %s", tarball,
                 SNAPSHOT_ARCHIVE_SUFFIXES);
        return -EINVAL;
    }
    struct archive *w = writer_for(c);
    if (!w) {
        snprintf(why, whylen, "this libarchive cannot write %s (%s)", c->filter, c->suffix);
        return -ENOTSUP;
    }
    archive_write_free(w);
    return 0;
}

static const char *error_of(struct archive *a)
{
    const char *e = archive_error_string(a);
    return e ? e : "unknown libarchive error";
}

/* libarchive's error and, where it has one, its errno in words ("Failed to open 'X'" says
 * neither that X's directory is missing nor that a file is in the way). */
static void say_error(struct archive *a, char *why, size_t whylen)
{
    int e = archive_errno(a);
    snprintf(why, whylen, "%s%s%s", error_of(a), e > 0 ? ": " : "", e > 0 ? strerror(e) : "");
}

static int copy_data(struct archive *disk, struct archive *w)
{
    char buf[65536];
    la_ssize_t k;
    while ((k = archive_read_data(disk, buf, sizeof(buf))) > 0)
        if (archive_write_data(w, buf, (size_t)k) != k)
            return -EIO;
    return k < 0 ? -EIO : 0;
}

/* One top directory of TREE, every entry below it; -EIO with WHY set on a failure. */
static int add_top(struct archive *w, const char *tree, const char *top, char *why, size_t whylen)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", tree, top);
    struct archive *disk = archive_read_disk_new();
    struct archive_entry *e = archive_entry_new();
    int r = 0;
    archive_read_disk_set_symlink_physical(disk);
    archive_read_disk_set_behavior(disk, ARCHIVE_READDISK_NO_XATTR | ARCHIVE_READDISK_NO_ACL |
                                             ARCHIVE_READDISK_NO_FFLAGS);
    if (archive_read_disk_open(disk, path) != ARCHIVE_OK)
        r = -EIO;
    while (r == 0) {
        archive_entry_clear(e);
        int k = archive_read_next_header2(disk, e);
        if (k == ARCHIVE_EOF)
            break;
        if (k < ARCHIVE_WARN) {
            r = -EIO;
            break;
        }
        if (archive_read_disk_can_descend(disk))
            archive_read_disk_descend(disk);
        archive_entry_copy_pathname(e, archive_entry_pathname(e) + strlen(tree) + 1);
        if (archive_write_header(w, e) < ARCHIVE_WARN ||
            (archive_entry_filetype(e) == AE_IFREG && copy_data(disk, w) < 0)) {
            snprintf(why, whylen, "%s", error_of(w));
            r = -EIO;
        }
    }
    if (r < 0 && !why[0])
        snprintf(why, whylen, "%s", error_of(disk));
    archive_entry_free(e);
    archive_read_free(disk);
    return r;
}

int snapshot_archive_write(const char *tree, const char *const *tops, const char *tarball,
                           char *why, size_t whylen)
{
    int r = snapshot_archive_check_name(tarball, why, whylen);
    if (r < 0)
        return r;
    struct archive *w = writer_for(compression_of(tarball));
    why[0] = '\0';
    if (archive_write_open_filename(w, tarball) != ARCHIVE_OK) {
        say_error(w, why, whylen);
        archive_write_free(w);
        return -EIO;
    }
    for (size_t i = 0; tops[i] && r == 0; i++)
        r = add_top(w, tree, tops[i], why, whylen);
    if (archive_write_close(w) != ARCHIVE_OK && r == 0) {
        snprintf(why, whylen, "%s", error_of(w));
        r = -EIO;
    }
    archive_write_free(w);
    if (r < 0)
        unlink(tarball);
    return r;
}
