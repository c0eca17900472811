/* SPDX-License-Identifier: ISC */
/* Durations: parsing "250ms"/"30s"/"10m" and formatting them back. */
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef uint64_t usec_t;

#define USEC_PER_MSEC ((usec_t)1000)
#define USEC_PER_SEC ((usec_t)1000000)
#define USEC_PER_MINUTE (60 * USEC_PER_SEC)
#define USEC_PER_HOUR (60 * USEC_PER_MINUTE)

/* Parses "<integer><unit>" with unit us, ms, s, m or h. Returns 0 or -EINVAL/-ERANGE. */
int duration_parse(const char *s, usec_t *ret);
/* Writes the shortest exact form ("10m", "250ms"); returns buf. */
const char *duration_format(usec_t usec, char *buf, size_t len);
usec_t now_usec(int clock_id);
/* WALL (CLOCK_REALTIME) in UTC, "2026-12-07T11:02:23Z" (or only "11:02:23Z" without
 * DATE); "?" when it cannot be shown. Returns buf. */
const char *utc_text(usec_t wall, int date, char *buf, size_t len);
