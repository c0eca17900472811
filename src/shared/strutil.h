/* SPDX-License-Identifier: ISC */
/* String helpers: edit distance for "did you mean", file reading. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include <stddef.h>

/* strerror() for any thread: strerror() may use one static buffer, strerrordesc_np()
 * returns a constant. The check pipeline and the probes run in worker threads. */
static inline const char *errno_text(int err)
{
    const char *s = strerrordesc_np(err);
    return s ? s : "unknown error";
}

/* Whether a write_file_atomic() to PATH could land here: the nearest existing directory
 * above where it lands (through PATH's symlinks) is writable. 0, or -errno (-EROFS on a
 * read-only mount, as under ProtectSystem=strict); DIR gets that directory. */
int write_target_check(const char *path, char *dir, size_t len);

size_t str_edit_distance(const char *a, const char *b);
/* The candidate closest to s, or NULL if none is close enough to be a likely typo. */
const char *str_closest(const char *s, const char *const *candidates, size_t n);
/* Opens path for reading only if it is a regular file: a FIFO, socket or device in place of
 * a sysfs, procfs, state or policy file would block its reader forever. -EISDIR for a
 * directory, -EINVAL for the others;
 * fopen_regular() sets errno and returns NULL instead. */
int open_regular(const char *path);
FILE *fopen_regular(const char *path);
/* Routes open_regular() of the paths FN claims (it returns true and sets *FD, an fd or
 * -errno) elsewhere: fabtuned --snapshot serves its tarball's files so. NULL: none. */
void open_regular_divert(bool (*fn)(const char *path, int *fd));
/* Reads a whole regular file, at most max bytes (-EFBIG beyond), NUL-terminated. */
int read_file_full(const char *path, size_t max, char **ret, size_t *ret_len);
/* Writes data to path atomically: temp file in the same dir, fsync, rename, fsync dir.
 * A symlink at path is followed: the file at its end is replaced, the link kept. */
int write_file_atomic(const char *path, const void *data, size_t len, unsigned mode);

/* A copy of s (len bytes) in which every invalid UTF-8 sequence is replaced by U+FFFD, so
 * that outside bytes cannot make a reply invalid JSON or a line unreadable. NULL on ENOMEM. */
char *utf8_sanitize(const char *s, size_t len, size_t *ret_len);

/* The kernel's strscpy(): copies src into dst of size bytes, always NUL-terminated (size
 * > 0). Returns the length copied, or -E2BIG when src had to be cut. */
static inline ssize_t strscpy(char *dst, const char *src, size_t size)
{
    size_t i = 0;
    if (size == 0)
        return -E2BIG;
    for (; i + 1 < size && src[i]; i++)
        dst[i] = src[i];
    dst[i] = '\0';
    return src[i] ? -E2BIG : (ssize_t)i;
}
