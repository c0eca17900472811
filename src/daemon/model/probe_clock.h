/* SPDX-License-Identifier: ISC */
/* The RDMA ping-pong's clock, as perftest's ib_write_lat keeps it: the CPU's cycle counter
 * per round trip (get_cycles), its rate calibrated once per process against CLOCK_MONOTONIC
 * (get_cpu_mhz measures it; /proc/cpuinfo is not read), and deadlines checked on
 * CLOCK_MONOTONIC only every few milliseconds, so that a clock_gettime that costs a
 * microsecond (a system call where the clocksource is hpet or acpi_pm: 1.27 us in the
 * Soft-RoCE guest) lands in almost no measured round trip. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* The counter: x86-64's TSC (rdtsc), aarch64's virtual counter (cntvct_el0), elsewhere
 * CLOCK_MONOTONIC in nanoseconds. */
uint64_t cycle_counter(void);

/* What one calibration measured. */
struct cycle_calibration {
    double seconds_per_cycle;   /* 0: the counter did not advance with CLOCK_MONOTONIC */
    double uncertainty;         /* relative: both ends' bracket widths over the interval */
    double interval;            /* CLOCK_MONOTONIC seconds between the two ends */
    unsigned attempts;
};
#define CYCLE_CALIBRATION_ATTEMPTS 4
#define CYCLE_CALIBRATION_TRUSTED 1e-3  /* an uncertainty this small ends the retries */

/* Calibrates over at least interval seconds (sleeping between the ends). Each end is one
 * counter read between two CLOCK_MONOTONIC reads, the tightest of several, so that a
 * preemption at either end is seen and not counted; at most CYCLE_CALIBRATION_ATTEMPTS
 * tries while the uncertainty exceeds CYCLE_CALIBRATION_TRUSTED, keeping the best.
 * 0, or -EIO when the counter does not advance (c->seconds_per_cycle 0). */
int cycle_clock_calibrate(double interval, struct cycle_calibration *c);

/* The process's rate: calibrated over 10 ms on first use (thread-safe), then kept, as
 * perftest measures it once per run of the program. 0 where the counter is unusable. */
double cycle_clock_seconds_per_cycle(void);
/* Cycles to seconds, and back, at the process's rate. */
double cycles_to_seconds(uint64_t cycles);
uint64_t seconds_to_cycles(double seconds);

/* A deadline on CLOCK_MONOTONIC, checked from a busy-poll loop without a clock read per
 * spin: sparse_deadline_passed reads the cycle counter every SPARSE_COUNTER_EVERY calls and
 * CLOCK_MONOTONIC only once SPARSE_CLOCK_PERIOD has gone by on the counter (or every
 * SPARSE_CLOCK_FORCE_EVERY calls, should the counter stall or step back). */
#define SPARSE_COUNTER_EVERY 256u
#define SPARSE_CLOCK_PERIOD 0.005
#define SPARSE_CLOCK_FORCE_EVERY (1u << 24)
struct sparse_deadline {
    double at;                  /* CLOCK_MONOTONIC seconds (probe_now) */
    uint64_t period;            /* SPARSE_CLOCK_PERIOD in cycles */
    uint64_t last_read;         /* the counter at the last CLOCK_MONOTONIC read */
    uint32_t calls;
    uint32_t clock_reads;       /* CLOCK_MONOTONIC reads so far (the tests count them) */
    bool passed;
};
void sparse_deadline_init(struct sparse_deadline *d, double at);
bool sparse_deadline_passed(struct sparse_deadline *d);
