/* SPDX-License-Identifier: ISC */
/* One probe's result (latency statistics, bandwidth, or why it could not run), its
 * parameters and endpoint, and what every probe shares to fill one: failures, clocks. */
#pragma once

#include <string.h>

#include <stdbool.h>
#include <stdint.h>

#include "stats.h"
#include "timeutil.h"

#define PROBE_DEFERRED_MAX 96

struct probe_result {
    bool ran;                   /* the probe was attempted */
    int error;                  /* 0, or -errno */
    char error_text[160];
    struct stats latency;       /* one-way, in seconds (half the round trip) */
    double bandwidth;           /* bytes per second */
    /* The probe's cost, its part of the run alone (the latency's ping-pong and setup, the
     * bandwidth's stream): CPU time of this node's threads, wall time, and the payload
     * bytes it put on the wire, both ways. */
    double cpu_seconds;
    double wall_seconds;
    uint64_t bytes;
    /* How long those threads were runnable but waited for a CPU (the scheduler's run_delay,
     * /proc/thread-self/schedstat): a niced probe on a busy node waits, and its tail is then
     * the node's, not the path's. NAN where the kernel does not say (no CONFIG_SCHED_INFO). */
    double cpu_wait_seconds;
    usec_t at;                  /* CLOCK_REALTIME when it ran; 0: never */
    usec_t at_boot;             /* the same moment on CLOCK_BOOTTIME, the clock of its age:
                                 * the wall clock may step (NTP) after the run */
    /* A ping-pong's traffic class as the kernel holds it once connected: the socket's IP
     * TOS (IPv6: traffic class), the QP's GRH traffic class. */
    bool has_tclass;
    uint8_t tclass;
    /* Why this (intensive) probe waits: "rail busy 37.2 Gbit/s", "job 1234 running";
     * "" when it ran. A deferred result keeps the last run's figure (ran, at; its cost
     * is this run's, none), if there was one: stale, never fresh. */
    char deferred[PROBE_DEFERRED_MAX];
};

/* A deferred result that holds an earlier run's figure. */
static inline bool probe_result_stale(const struct probe_result *r)
{
    return r->deferred[0] && r->ran;
}

struct probe_params {
    uint32_t iterations;        /* ping-pong round trips */
    uint32_t size;              /* ping-pong message size */
    usec_t bw_duration;         /* length of the bandwidth stream */
    uint32_t bw_size;           /* message size of the stream */
    usec_t timeout;             /* hard bound on the whole probe */
    int tos;                    /* the ping-pong's IP TOS byte (DSCP << 2); -1: the port's own */
};

struct rdma_endpoint {
    char device[64];
    uint8_t port;
    int gid_index;              /* RoCE: the rail's GID; -1 on InfiniBand (LID routing) */
};

/* Seconds since R ran (probe_result_age's clock: CLOCK_BOOTTIME, so that a step of the wall
 * clock neither ages a figure nor makes an old one fresh); 0 for one that never ran. */
double probe_result_age(const struct probe_result *r);

void probe_fail(struct probe_result *r, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
double probe_now(void);        /* CLOCK_MONOTONIC seconds */

double probe_thread_cpu(void); /* this thread's CPU seconds */
/* This thread's time runnable but not running, in seconds since it started; NAN unknown. */
double probe_thread_cpu_wait(void);

/* A point in a probe's time, to charge what follows to a result: probe_cost_charge adds the
 * CPU, wall and CPU wait time since the mark to r and marks anew. */
struct probe_mark {
    double t, cpu, cpu_wait;
};
void probe_mark(struct probe_mark *m);
void probe_cost_charge(struct probe_result *r, struct probe_mark *m);
