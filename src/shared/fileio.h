/* SPDX-License-Identifier: ISC */
/* Files: open only regular ones, read one whole, write one atomically. */
#pragma once

#include <stddef.h>
#include <stdio.h>

/* Opens path for reading only if it is a regular file: a FIFO, socket or device in place of
 * a sysfs, procfs, state or policy file would block its reader forever. -EISDIR for a
 * directory, -EINVAL for the others;
 * fopen_regular() sets errno and returns NULL instead. */
int open_regular(const char *path);
FILE *fopen_regular(const char *path);
/* Reads a whole regular file, at most max bytes (-EFBIG beyond), NUL-terminated. */
int read_file_full(const char *path, size_t max, char **ret, size_t *ret_len);
/* Writes data to path atomically: temp file in the same dir, fsync, rename, fsync dir
 * (write_file_at()). A symlink at path is followed: the file at its end is replaced, the
 * link kept; for a file of the state or runtime directory, use write_file_at() itself. */
int write_file_atomic(const char *path, const void *data, size_t len, unsigned mode);

/* Makes directory PATH and those above it that are missing (mode 0755), as mkdir -p. */
int mkdir_parents(const char *path);

/* Whether a write_file_atomic() to PATH could land here: the nearest existing directory
 * above where it lands (through PATH's symlinks) is writable. 0, or -errno (-EROFS on a
 * read-only mount, as under ProtectSystem=strict); DIR gets that directory. */
int write_target_check(const char *path, char *dir, size_t len);
