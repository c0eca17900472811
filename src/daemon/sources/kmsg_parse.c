/* SPDX-License-Identifier: ISC */
/* The /dev/kmsg record's parser: the header's numbers, the message, DEVICE=. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "kmsg_parse.h"

/* A decimal number of *P up to LEN, no sign, no overflow; *P past it. -EINVAL. */
static int parse_u64(const char **p, const char *end, uint64_t *ret)
{
    uint64_t v = 0;
    const char *s = *p;
    if (s >= end || *s < '0' || *s > '9')
        return -EINVAL;
    for (; s < end && *s >= '0' && *s <= '9'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -EINVAL;
        v = v * 10 + d;
    }
    *p = s;
    *ret = v;
    return 0;
}

/* "PRIO,SEQ,TS,FLAGS[,more]" before END. */
static int parse_header(const char *s, const char *end, struct kmsg_record *r)
{
    uint64_t prio;
    if (parse_u64(&s, end, &prio) < 0 || prio > 0xffffff || s >= end || *s++ != ',' ||
        parse_u64(&s, end, &r->seq) < 0 || s >= end || *s++ != ',' ||
        parse_u64(&s, end, &r->ts_usec) < 0 || s >= end || *s++ != ',')
        return -EINVAL;
    r->facility = (unsigned)(prio >> 3);
    r->level = (unsigned)(prio & 7);
    for (; s < end && *s != ','; s++)       /* flags: '-' or 'c'; others may come */
        if (*s == 'c')
            r->continuation = true;
    return 0;
}

static void copy_text(char *dst, size_t size, const char *s, size_t n)
{
    if (n >= size)
        n = size - 1;
    memcpy(dst, s, n);
    dst[n] = 0;
    for (size_t i = 0; i < n; i++)      /* the kernel escapes these; a record is outside data */
        if (dst[i] == 0)
            dst[i] = ' ';
}

int kmsg_parse(const char *buf, size_t len, struct kmsg_record *ret)
{
    memset(ret, 0, sizeof(*ret));
    const char *end = buf + len;
    const char *semi = memchr(buf, ';', len);
    if (!semi || parse_header(buf, semi, ret) < 0)
        return -EINVAL;
    const char *msg = semi + 1;
    const char *nl = memchr(msg, '\n', (size_t)(end - msg));
    const char *msg_end = nl ? nl : end;
    copy_text(ret->text, sizeof(ret->text), msg, (size_t)(msg_end - msg));
    /* Continuation lines: " KEY=VALUE\n" each. */
    for (const char *p = nl ? nl + 1 : end; p < end;) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        if (e - p > 8 && memcmp(p, " DEVICE=", 8) == 0)
            copy_text(ret->device, sizeof(ret->device), p + 8, (size_t)(e - p - 8));
        p = e + 1;
    }
    return 0;
}
