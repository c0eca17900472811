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
/* All of ROOT/PATH, at most MAX bytes (-EFBIG beyond), NUL-terminated, malloc'd in *RET. */
int sysfs_read_file(const char *root, size_t max, char **ret, size_t *ret_len, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
int sysfs_exists(const char *root, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strv_free(char **v);
/* ROOT/REL with every symlink resolved, relative to ROOT ("devices/pci0000:00/..." from
 * "class/infiniband/mlx5_0/device"); false when it does not exist or leaves ROOT. */
bool sysfs_resolve(const char *root, const char *rel, char *buf, size_t len);

/* fabtuned --snapshot FILE.tar: reads under the roots "tar:FILE!/sys" and "tar:FILE!/proc"
 * come from the tarball, through libarchive (tarfs.h), with nothing unpacked. Returns 0,
 * or -errno with WHY set. */
int sysfs_mount_snapshot(const char *tar, char *why, size_t whylen);
void sysfs_unmount_snapshot(void);
