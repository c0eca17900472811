/* SPDX-License-Identifier: ISC */
/* Tests of sources/snapshot_extract: a hostile tarball, written here with libarchive's own
 * writer, unpacked: nothing lands or points outside the directory (absolute and climbing
 * symlinks, a chain that climbs through a link, a name with "..", a hard link, devices, a
 * fifo, a set-id bit, a name through a link), a limit refuses the tarball before a file is
 * written, and what is no snapshot says so. The scratch_dir module removes what is left. */
#include "config.h"

#include <archive.h>
#include <archive_entry.h>
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check_run.h"
#include "scratch_dir.h"
#include "snapshot_extract.h"

struct tarball {
    struct archive *w;
    char *buf;
    size_t len, used;
};

static void tar_begin(struct tarball *t, size_t len)
{
    t->len = len;
    t->buf = malloc(t->len);
    t->w = archive_write_new();
    ck_assert_ptr_nonnull(t->buf);
    archive_write_set_format_pax_restricted(t->w);
    ck_assert_int_eq(archive_write_open_memory(t->w, t->buf, t->len, &t->used), ARCHIVE_OK);
}

/* An entry of TYPE (AE_IFREG, AE_IFDIR, AE_IFLNK, AE_IFCHR, AE_IFIFO) and MODE; LINK is a
 * symlink's target, or with TYPE 0 a hard link's; DATA a file's bytes. */
static void tar_add(struct tarball *t, const char *name, mode_t type, mode_t mode,
                    const char *link, const char *data)
{
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname(e, name);
    archive_entry_set_filetype(e, type ? type : AE_IFREG);
    archive_entry_set_perm(e, mode);
    archive_entry_set_size(e, data ? (la_int64_t)strlen(data) : 0);
    if (type == AE_IFLNK)
        archive_entry_set_symlink(e, link);
    else if (!type)
        archive_entry_set_hardlink(e, link);
    if (type == AE_IFCHR)
        archive_entry_set_rdev(e, makedev(1, 3));
    ck_assert_int_eq(archive_write_header(t->w, e), ARCHIVE_OK);
    if (data)
        ck_assert_int_eq(archive_write_data(t->w, data, strlen(data)), (la_ssize_t)strlen(data));
    archive_entry_free(e);
}

static void tar_end(struct tarball *t)
{
    ck_assert_int_eq(archive_write_close(t->w), ARCHIVE_OK);
    archive_write_free(t->w);
}

/* A scratch directory with an empty "top" in it, where the tarball is unpacked: what must
 * not be written lands beside top, in the scratch directory, where the test looks. */
static void scratch(char *dir, size_t len, char *top, size_t toplen)
{
    ck_assert_int_eq(scratch_dir_make("check_snapshot_extract", dir, len), 0);
    snprintf(top, toplen, "%s/top", dir);
    ck_assert_int_eq(mkdir(top, 0700), 0);
}

static int extract(const struct tarball *t, const char *top, char *why, size_t whylen)
{
    return snapshot_extract(NULL, t->buf, t->used, top, why, whylen);
}

static void expect_link(const char *top, const char *name, const char *want)
{
    char path[PATH_MAX], target[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s", top, name);
    ssize_t k = readlink(path, target, sizeof(target) - 1);
    ck_assert_msg(k > 0, "%s is no symlink", name);
    target[k] = '\0';
    ck_assert_str_eq(target, want);
}

static bool exists(const char *top, const char *name)
{
    char path[PATH_MAX];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", top, name);
    return lstat(path, &st) == 0;
}

START_TEST(test_hostile_links)
{
    char dir[512], top[600], why[256] = "", real[PATH_MAX], path[PATH_MAX];
    struct tarball t;
    scratch(dir, sizeof(dir), top, sizeof(top));
    tar_begin(&t, 1u << 20);
    tar_add(&t, "sys/secret", AE_IFREG, 0644, NULL, "inside\n");
    /* The node's own sysfs link, kept as the same path. */
    tar_add(&t, "sys/devices/virtual/net/eth0/mtu", AE_IFREG, 0644, NULL, "9000\n");
    tar_add(&t, "sys/class/net/eth0", AE_IFLNK, 0777, "../../devices/virtual/net/eth0", NULL);
    /* "/" is the tarball's top, and ".." stops there. */
    tar_add(&t, "sys/abs", AE_IFLNK, 0777, "/etc/shadow", NULL);
    tar_add(&t, "sys/climb", AE_IFLNK, 0777, "../../../../../../../../../secret", NULL);
    tar_add(&t, "sys/top", AE_IFLNK, 0777, "../..", NULL);
    /* A chain a lexical check of each link alone passes: x is the top, and L would go from
     * x one more up, out, unless its ".." is the tarball's. */
    tar_add(&t, "sys/a/b/x", AE_IFLNK, 0777, "../../..", NULL);
    tar_add(&t, "sys/a/b/L", AE_IFLNK, 0777, "x/../secret", NULL);
    tar_end(&t);
    /* What L would reach, followed as the kernel follows it: beside the top. */
    snprintf(path, sizeof(path), "%s/secret", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    ck_assert_int_eq(extract(&t, top, why, sizeof(why)), 0);
    expect_link(top, "sys/class/net/eth0", "../../../sys/devices/virtual/net/eth0");
    expect_link(top, "sys/abs", "../etc/shadow");
    expect_link(top, "sys/climb", "../secret");
    expect_link(top, "sys/top", "..");
    expect_link(top, "sys/a/b/x", "../../..");
    expect_link(top, "sys/a/b/L", "../../../sys/a/b/secret");
    /* Every link resolves inside, or nowhere. */
    snprintf(path, sizeof(path), "%s/sys/class/net/eth0/mtu", top);
    ck_assert_int_eq(access(path, R_OK), 0);
    snprintf(path, sizeof(path), "%s/sys/top/sys/secret", top);
    ck_assert_ptr_nonnull(realpath(path, real));
    ck_assert_int_eq(strncmp(real, top, strlen(top)), 0);
    snprintf(path, sizeof(path), "%s/sys/abs", top);
    ck_assert_ptr_null(realpath(path, real));
    snprintf(path, sizeof(path), "%s/sys/a/b/L", top);
    ck_assert_ptr_null(realpath(path, real));
    ck_assert_int_eq(scratch_dir_remove(dir), 0);
    ck_assert_int_eq(access(dir, F_OK), -1);
    free(t.buf);
}
END_TEST

START_TEST(test_hostile_entries)
{
    char dir[512], top[600], why[256] = "", path[PATH_MAX];
    struct tarball t;
    struct stat st;
    scratch(dir, sizeof(dir), top, sizeof(top));
    tar_begin(&t, 1u << 20);
    tar_add(&t, "sys/secret", AE_IFREG, 0644, NULL, "inside\n");
    tar_add(&t, "../beside", AE_IFREG, 0644, NULL, "out\n");
    tar_add(&t, "sys/../../beside2", AE_IFREG, 0644, NULL, "out\n");
    tar_add(&t, "/abs", AE_IFREG, 0644, NULL, "a name from the top\n");
    tar_add(&t, "sys/hard", 0, 0644, "sys/secret", NULL);
    tar_add(&t, "sys/null", AE_IFCHR, 0666, NULL, NULL);
    tar_add(&t, "sys/fifo", AE_IFIFO, 0666, NULL, NULL);
    tar_add(&t, "sys/suid", AE_IFREG, 06777, NULL, "#!/bin/sh\n");
    tar_add(&t, "sys/shut", AE_IFDIR, 0000, NULL, NULL);
    tar_add(&t, "sys/shut/f", AE_IFREG, 0000, NULL, "x\n");
    /* A name through a link an earlier entry made: refused by libarchive's
     * SECURE_SYMLINKS, skipped (it would land beside the top). */
    tar_add(&t, "sys/up", AE_IFLNK, 0777, "../..", NULL);
    tar_add(&t, "sys/up/through", AE_IFREG, 0644, NULL, "out\n");
    tar_end(&t);
    ck_assert_int_eq(extract(&t, top, why, sizeof(why)), 0);
    ck_assert(!exists(dir, "beside") && !exists(dir, "beside2") && !exists(dir, "through"));
    ck_assert(!exists(top, "beside") && !exists(top, "sys/up/through"));
    ck_assert(exists(top, "abs"));
    ck_assert(!exists(top, "sys/hard") && !exists(top, "sys/null") && !exists(top, "sys/fifo"));
    snprintf(path, sizeof(path), "%s/sys/suid", top);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0600);
    snprintf(path, sizeof(path), "%s/sys/shut", top);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, 0700);
    ck_assert(exists(top, "sys/shut/f"));
    ck_assert_int_eq(scratch_dir_remove(dir), 0);
    ck_assert_int_eq(access(dir, F_OK), -1);
    free(t.buf);
}
END_TEST

/* A file past the per-file limit, last: refused by the pass that writes nothing. */
START_TEST(test_limit_before_any_file)
{
    char dir[512], top[600], why[256] = "";
    struct tarball t;
    char *big = malloc(SNAPSHOT_MAX_FILE + 2);
    ck_assert_ptr_nonnull(big);
    memset(big, 'x', SNAPSHOT_MAX_FILE + 1);
    big[SNAPSHOT_MAX_FILE + 1] = '\0';
    scratch(dir, sizeof(dir), top, sizeof(top));
    tar_begin(&t, 4u << 20);
    tar_add(&t, "sys/first", AE_IFREG, 0644, NULL, "1\n");
    tar_add(&t, "sys/big", AE_IFREG, 0644, NULL, big);
    tar_end(&t);
    ck_assert_int_eq(extract(&t, top, why, sizeof(why)), -EFBIG);
    ck_assert_str_eq(why, "sys/big: 1048577 bytes, more than a snapshot file holds");
    ck_assert(!exists(top, "sys"));
    ck_assert_int_eq(scratch_dir_remove(dir), 0);
    free(t.buf);
    free(big);
}
END_TEST

START_TEST(test_not_a_snapshot)
{
    char dir[512], top[600], why[256] = "", cwd[PATH_MAX], after[PATH_MAX];
    struct tarball t;
    scratch(dir, sizeof(dir), top, sizeof(top));
    ck_assert_int_eq(snapshot_extract(NULL, "not a tar\n", 10, top, why, sizeof(why)), -EINVAL);
    ck_assert_str_eq(why, "not a tar archive (plain, or compressed with gzip, bzip2, xz or zstd)");
    tar_begin(&t, 1u << 20);
    tar_add(&t, "proc/x", AE_IFREG, 0644, NULL, "1\n");
    tar_end(&t);
    ck_assert_int_eq(extract(&t, top, why, sizeof(why)), -EINVAL);
    ck_assert_str_eq(why, "not a fabtune snapshot: it holds no sys/ directory");
    /* A tarball named from the working directory, which is the same after. */
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
    ck_assert_int_eq(snapshot_extract("no-such.tar", NULL, 0, top, why, sizeof(why)), -ENOENT);
    ck_assert_str_eq(why, "No such file or directory");
    ck_assert_ptr_nonnull(getcwd(after, sizeof(after)));
    ck_assert_str_eq(cwd, after);
    ck_assert_int_eq(scratch_dir_remove(dir), 0);
    free(t.buf);
}
END_TEST

static Suite *snapshot_extract_suite(void)
{
    Suite *s = suite_create("snapshot_extract");
    TCase *tc = tcase_create("hostile");
    tcase_add_test(tc, test_hostile_links);
    tcase_add_test(tc, test_hostile_entries);
    tcase_add_test(tc, test_limit_before_any_file);
    tcase_add_test(tc, test_not_a_snapshot);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run(snapshot_extract_suite());
}
