/* SPDX-License-Identifier: ISC */
/* A snapshot tarball read in place (fabtuned --snapshot FILE.tar): libarchive reads it
 * once into memory, and the sysfs seam (sysfs.h) serves reads under its mount prefix
 * from there: files, directories and symlinks, with sysfs's relative links resolved
 * inside the archive. Nothing is unpacked to disk. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct tarfs;

/* The archive limits: a snapshot is a few thousand small files. */
#define TARFS_MAX_ENTRIES 200000
#define TARFS_MAX_FILE    (1u << 20)
#define TARFS_MAX_TOTAL   (256u << 20)

/* Reads a tar (plain, or compressed as libarchive knows) from PATH, or from DATA/LEN when
 * PATH is NULL (the fuzz target). Returns 0, or -errno with WHY set. */
int tarfs_load(const char *path, const void *data, size_t len, struct tarfs **ret,
               char *why, size_t whylen);
void tarfs_free(struct tarfs *t);

/* Looks PATH ("sys/class/net/eth0/mtu", relative to the archive's top) up, following
 * symlinks (at most 40, as the kernel); the kind is 'f', 'd' or 0 when absent. RET_REAL
 * (may be NULL) gets the resolved path. */
char tarfs_lookup(const struct tarfs *t, const char *path, const char **data, size_t *size,
                  char *ret_real, size_t real_len);
/* The names directly under directory PATH, through the callback. Returns 0 or -ENOENT/-ENOTDIR. */
int tarfs_list(const struct tarfs *t, const char *path, int (*each)(const char *name, void *u), void *u);
/* The target of the symlink PATH itself (the last component is not followed). */
int tarfs_readlink(const struct tarfs *t, const char *path, char *buf, size_t len);
size_t tarfs_count(const struct tarfs *t);

/* The process's mounted snapshot: its roots are "tar:FILE!/sys" and "tar:FILE!/proc". */
int tarfs_mount(const char *path, char *why, size_t whylen);
void tarfs_unmount(void);
/* The mounted archive and the part of P inside it, when P is under the mount prefix. */
const struct tarfs *tarfs_owner(const char *p, const char **inside);
/* The mount prefix ("tar:FILE!"), or NULL. */
const char *tarfs_prefix(void);
