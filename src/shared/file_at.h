/* SPDX-License-Identifier: ISC */
/* Files read and replaced relative to a directory fd, never through a symlink: state files
 * in a directory that someone else could once have written stay fabtune's own. */
#pragma once

#include <stddef.h>

/* Opens DIR as a directory without following a symlink at its last component. An fd
 * (O_CLOEXEC), or -errno (-ENOTDIR or -ELOOP for a symlink). */
int dir_open_nofollow(const char *dir);
/* Reads DIRFD/NAME whole (at most MAX bytes, -EFBIG beyond), NUL-terminated. A symlink is
 * -ELOOP, anything but a regular file -EINVAL. */
int read_file_at(int dirfd, const char *name, size_t max, char **ret, size_t *ret_len);
/* Replaces DIRFD/NAME atomically: a new temp file (O_EXCL | O_NOFOLLOW) in the same
 * directory, fsync, renameat over NAME (a symlink there is replaced, never followed),
 * fsync of the directory. 0 or -errno; nothing is left behind on failure. */
int write_file_at(int dirfd, const char *name, const void *data, size_t len, unsigned mode);
