/* SPDX-License-Identifier: ISC */
/* The cycle counter, its calibration against CLOCK_MONOTONIC and the sparse deadline. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <time.h>

#include "probe_clock.h"
#include "probe_result.h"

#define BRACKET_TRIES 16
#define PROCESS_CALIBRATION_SECONDS 0.010

uint64_t cycle_counter(void)
{
#if defined(__x86_64__)
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
    return v;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* One end of a calibration: a counter read between two clock reads, the tightest of
 * BRACKET_TRIES; t is the middle of its bracket, width its length. */
struct bracket {
    double t, width;
    uint64_t cycles;
};

static void bracket_take(struct bracket *b)
{
    b->width = INFINITY;
    for (int i = 0; i < BRACKET_TRIES; i++) {
        double t0 = probe_now();
        uint64_t c = cycle_counter();
        double t1 = probe_now();
        if (t1 - t0 < b->width) {
            b->width = t1 - t0;
            b->t = (t0 + t1) / 2;
            b->cycles = c;
        }
    }
}

static void sleep_until(double t)
{
    double left;
    while ((left = t - probe_now()) > 0) {
        struct timespec ts = { .tv_sec = (time_t)left,
                               .tv_nsec = (long)((left - (double)(time_t)left) * 1e9) };
        nanosleep(&ts, NULL);
    }
}

int cycle_clock_calibrate(double interval, struct cycle_calibration *c)
{
    struct cycle_calibration best = { .uncertainty = INFINITY };
    unsigned attempt;
    for (attempt = 1; attempt <= CYCLE_CALIBRATION_ATTEMPTS; attempt++) {
        struct bracket a, b;
        bracket_take(&a);
        sleep_until(a.t + interval);
        bracket_take(&b);
        if (b.cycles <= a.cycles || b.t <= a.t) {
            *c = (struct cycle_calibration){ .attempts = attempt };
            return -EIO;
        }
        double span = b.t - a.t;
        double u = (a.width + b.width) / span;
        if (u < best.uncertainty)
            best = (struct cycle_calibration){ .seconds_per_cycle = span / (double)(b.cycles - a.cycles),
                                               .uncertainty = u, .interval = span };
        if (best.uncertainty <= CYCLE_CALIBRATION_TRUSTED)
            break;
    }
    best.attempts = attempt > CYCLE_CALIBRATION_ATTEMPTS ? CYCLE_CALIBRATION_ATTEMPTS : attempt;
    *c = best;
    return 0;
}

static pthread_once_t process_once = PTHREAD_ONCE_INIT;
static double process_seconds_per_cycle;

static void process_calibrate(void)
{
    struct cycle_calibration c;
    if (cycle_clock_calibrate(PROCESS_CALIBRATION_SECONDS, &c) == 0)
        process_seconds_per_cycle = c.seconds_per_cycle;
}

double cycle_clock_seconds_per_cycle(void)
{
    pthread_once(&process_once, process_calibrate);
    return process_seconds_per_cycle;
}

double cycles_to_seconds(uint64_t cycles)
{
    return (double)cycles * cycle_clock_seconds_per_cycle();
}

uint64_t seconds_to_cycles(double seconds)
{
    double per = cycle_clock_seconds_per_cycle();
    if (per <= 0 || !(seconds > 0))
        return 0;
    double c = seconds / per;
    return c >= 1.8e19 ? UINT64_MAX : (uint64_t)c;
}

void sparse_deadline_init(struct sparse_deadline *d, double at)
{
    *d = (struct sparse_deadline){ .at = at, .period = seconds_to_cycles(SPARSE_CLOCK_PERIOD),
                                   .last_read = cycle_counter() };
}

bool sparse_deadline_passed(struct sparse_deadline *d)
{
    if (d->passed)
        return true;
    if (++d->calls % SPARSE_COUNTER_EVERY)
        return false;
    uint64_t now = cycle_counter();
    /* Unsigned: a counter that stepped back reads as a long time gone by. */
    if (now - d->last_read < d->period && d->calls % SPARSE_CLOCK_FORCE_EVERY)
        return false;
    d->last_read = now;
    d->clock_reads++;
    d->passed = probe_now() > d->at;
    return d->passed;
}
