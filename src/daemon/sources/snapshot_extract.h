/* SPDX-License-Identifier: ISC */
/* A snapshot tarball (fabtuned --once --snapshot FILE) unpacked into a directory, which the
 * pass then reads as a --sysfs-root tree: DIR/sys, DIR/proc, and what the snapshot kept
 * beside them in DIR/fabtune (snapshot_layout.h, read back by snapshot_read.h). The
 * tarball is another node's, so nothing in it may reach outside DIR: libarchive's secure
 * extraction (no "..", no absolute name, nothing written through a symlink), no device,
 * fifo, hard link or set-id bit, and every symlink's target rewritten to stay inside DIR
 * (its "/" is DIR, and ".." stops there, as the tarball's node saw its own "/"). */
#pragma once

#include <stddef.h>

/* The limits: a snapshot is a few thousand small files. Each is checked on an entry's
 * header, before a byte of it is inflated (a skipped entry is inflated too). */
#define SNAPSHOT_MAX_ENTRIES 200000
#define SNAPSHOT_MAX_FILE    (1u << 20)
#define SNAPSHOT_MAX_TOTAL   (256u << 20)

/* Unpacks the tarball at PATH (plain, or gzip, bzip2, xz or zstd compressed), or DATA/LEN
 * when PATH is NULL (the fuzz target), into the existing, empty directory DIR. Returns 0,
 * or -errno with WHY set; what it unpacked before a failure is the caller's to remove. */
int snapshot_extract(const char *path, const void *data, size_t len, const char *dir,
                     char *why, size_t whylen);
