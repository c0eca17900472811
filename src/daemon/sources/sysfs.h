/* SPDX-License-Identifier: ISC */
/* Reads under a sysfs or procfs root ("/sys", or a captured tree for --sysfs-root). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reads the first line of ROOT/PATH (newline stripped). Returns 0 or -errno. */
int sysfs_read_line(const char *root, char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int sysfs_read_u64(const char *root, uint64_t *ret, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int sysfs_read_int(const char *root, int64_t *ret, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The last component of the symlink target of ROOT/PATH (a PCI address for "device"). */
int sysfs_link_name(const char *root, char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The most entries sysfs_list() takes from one directory. The largest fabtune lists are
 * bus/pci/devices and kernel/iommu_groups: a few thousand on a host with SR-IOV. */
#define SYSFS_LIST_MAX 65536

/* The entries of directory ROOT/PATH, sorted naturally ("2" before "10"), without "." and
 * "..". *ret is a NULL-terminated array to free with strv_free(). -EFBIG past
 * SYSFS_LIST_MAX entries. */
int sysfs_list(const char *root, char ***ret, size_t *ret_n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A directory under a root, listed once and kept open for many reads of the small files
 * in it (a port's GID table is 256 files, or more): each read is an openat() of a name, with
 * no path to build and walk again, and a file the listing says is regular needs no fstat()
 * to prove it. */
struct sysfs_dir;
/* Opens and lists ROOT/PATH: -errno as sysfs_list(), whose order sysfs_dir_name() keeps. */
int sysfs_dir_open(const char *root, struct sysfs_dir **ret, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
size_t sysfs_dir_count(const struct sysfs_dir *d);
const char *sysfs_dir_name(const struct sysfs_dir *d, size_t i);
/* sysfs_read_line() of DIR/NAME, with the same results. */
int sysfs_dir_read_line(const struct sysfs_dir *d, const char *name, char *buf, size_t len);
/* The same for the I-th listed entry, with no lookup of its name: for a scan of them all. */
int sysfs_dir_read_entry(const struct sysfs_dir *d, size_t i, char *buf, size_t len);
/* sysfs_read_u64() of the I-th listed entry. */
int sysfs_dir_read_u64(const struct sysfs_dir *d, size_t i, uint64_t *ret);
void sysfs_dir_free(struct sysfs_dir *d);
static inline void sysfs_dir_freep(struct sysfs_dir **d)
{
    sysfs_dir_free(*d);
}

/* All of ROOT/PATH, at most MAX bytes (-EFBIG beyond), NUL-terminated, malloc'd in *RET. */
int sysfs_read_file(const char *root, size_t max, char **ret, size_t *ret_len, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
int sysfs_exists(const char *root, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strv_free(char **v);
/* ROOT/REL with every symlink resolved, relative to ROOT ("devices/pci0000:00/..." from
 * "class/infiniband/mlx5_0/device"); false when it does not exist or leaves ROOT. */
bool sysfs_resolve(const char *root, const char *rel, char *buf, size_t len);
