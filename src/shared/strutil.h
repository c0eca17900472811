/* SPDX-License-Identifier: ISC */
/* String helpers: a thread-safe strerror(), edit distance for "did you mean", UTF-8
 * repair, the kernel's strscpy(). Files are fileio.h's. */
#pragma once

#include <errno.h>
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

size_t str_edit_distance(const char *a, const char *b);
/* The candidate closest to s, or NULL if none is close enough to be a likely typo. */
const char *str_closest(const char *s, const char *const *candidates, size_t n);
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
