/* SPDX-License-Identifier: ISC */
/* The kernel's CPU list format, strictly. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "cpulist.h"

static int number(const char **s, unsigned long *ret)
{
    unsigned long v = 0;
    const char *p = *s;
    if (*p < '0' || *p > '9')
        return -EINVAL;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (unsigned long)(*p - '0');
        if (v >= CPUSET_MAX)
            return -ERANGE;
    }
    *s = p;
    *ret = v;
    return 0;
}

int cpulist_parse(const char *s, struct cpuset *ret)
{
    memset(ret, 0, sizeof(*ret));
    while (*s == ' ')
        s++;
    if (*s == '\0' || *s == '\n')
        return 0;
    for (;;) {
        unsigned long a, b;
        int r = number(&s, &a);
        if (r < 0)
            return r;
        b = a;
        if (*s == '-') {
            s++;
            if ((r = number(&s, &b)) < 0)
                return r;
            if (b < a)
                return -EINVAL;
        }
        for (unsigned long c = a; c <= b; c++)
            ret->bits[c / 64] |= UINT64_C(1) << (c % 64);
        if (*s == ',') {
            s++;
            continue;
        }
        return *s == '\0' || (*s == '\n' && s[1] == '\0') ? 0 : -EINVAL;
    }
}

bool cpuset_intersects(const struct cpuset *a, const struct cpuset *b)
{
    for (size_t i = 0; i < CPUSET_MAX / 64; i++)
        if (a->bits[i] & b->bits[i])
            return true;
    return false;
}

int cpuset_first(const struct cpuset *s)
{
    for (size_t i = 0; i < CPUSET_MAX / 64; i++)
        if (s->bits[i])
            return (int)(i * 64 + (size_t)__builtin_ctzll(s->bits[i]));
    return -1;
}
