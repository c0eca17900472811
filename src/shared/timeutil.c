/* SPDX-License-Identifier: ISC */
/* Durations: parsing and formatting the policy's time values. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "macro.h"
#include "timeutil.h"

static const struct {
    const char *suffix;
    usec_t factor;
} units[] = {
    /* Largest first: duration_format() picks the first exact one. */
    { "h", USEC_PER_HOUR },
    { "m", USEC_PER_MINUTE },
    { "s", USEC_PER_SEC },
    { "ms", USEC_PER_MSEC },
    { "us", 1 },
};

int duration_parse(const char *s, usec_t *ret)
{
    if (!s || !isdigit((unsigned char)s[0]))
        return -EINVAL;

    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE)
        return -ERANGE;

    for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
        if (!streq(end, units[i].suffix))
            continue;
        if (v > UINT64_MAX / units[i].factor)
            return -ERANGE;
        *ret = (usec_t)v * units[i].factor;
        return 0;
    }
    return -EINVAL;
}

const char *duration_format(usec_t usec, char *buf, size_t len)
{
    if (usec == 0) {
        snprintf(buf, len, "0s");
        return buf;
    }
    for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
        if (usec % units[i].factor == 0) {
            snprintf(buf, len, "%llu%s",
                     (unsigned long long)(usec / units[i].factor), units[i].suffix);
            return buf;
        }
    }
    return buf; /* unreachable: "us" always divides */
}

usec_t now_usec(int clock_id)
{
    struct timespec ts;
    clock_gettime(clock_id, &ts);
    return (usec_t)ts.tv_sec * USEC_PER_SEC + (usec_t)ts.tv_nsec / 1000;
}

const char *utc_text(usec_t wall, int date, char *buf, size_t len)
{
    time_t t = (time_t)(wall / USEC_PER_SEC);
    struct tm tm;
    size_t n = 0;
    if (gmtime_r(&t, &tm))
        n = date ? strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) : strftime(buf, len, "%H:%M:%SZ", &tm);
    if (n == 0)
        snprintf(buf, len, "?");
    return buf;
}
