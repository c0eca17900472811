/* Probe results: latency statistics, bandwidth, and why a probe could not run. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "stats.h"
#include "timeutil.h"

struct probe_result {
    bool ran;                   /* the probe was attempted */
    int error;                  /* 0, or -errno */
    char error_text[160];
    struct stats latency;       /* one-way, in seconds (half the round trip) */
    double bandwidth;           /* bytes per second */
    double cpu_seconds;         /* CPU time the probe's threads used */
};

struct probe_params {
    uint32_t iterations;        /* ping-pong round trips */
    uint32_t size;              /* ping-pong message size */
    usec_t bw_duration;         /* length of the bandwidth stream */
    uint32_t bw_size;           /* message size of the stream */
    usec_t timeout;             /* hard bound on the whole probe */
};

void probe_fail(struct probe_result *r, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
double probe_now(void);        /* CLOCK_MONOTONIC seconds */
double probe_thread_cpu(void); /* this thread's CPU seconds */
