/* SPDX-License-Identifier: ISC */
/* The RDMA ping-pong's clock (src/daemon/model/probe_clock.c): the cycle counter's rate,
 * calibrated against CLOCK_MONOTONIC, agrees with CLOCK_MONOTONIC over an interval measured
 * apart from it; cycles convert to seconds monotonically; the ping-pong's samples are
 * converted at that rate; the sparse deadline ends past its time with a clock read every
 * few milliseconds, not every round trip. Judged by ratios, each with a bounded retry, so
 * that a loaded machine passes. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <time.h>

#include "check_run.h"
#include "probe_clock.h"
#include "probe_result.h"
#include "rdma_pingpong.h"

#define TRIES 5

static void sleep_seconds(double s)
{
    struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Seconds on the counter at RATE over an interval of about S seconds of CLOCK_MONOTONIC,
 * divided by that interval's CLOCK_MONOTONIC seconds. Neither end is bracketed: a
 * preemption between the two reads of an end skews it, which the callers' retries absorb. */
static double counter_over_monotonic(double rate, double s)
{
    double t0 = probe_now();
    uint64_t c0 = cycle_counter();
    sleep_seconds(s);
    uint64_t c1 = cycle_counter();
    double t1 = probe_now();
    return (double)(c1 - c0) * rate / (t1 - t0);
}

START_TEST(test_calibration_agrees_with_monotonic)
{
    struct cycle_calibration c;
    double best = INFINITY, ratio = 0;
    ck_assert_int_eq(cycle_clock_calibrate(0.02, &c), 0);
    ck_assert(c.seconds_per_cycle > 0);
    ck_assert(c.interval >= 0.02);
    ck_assert(c.attempts >= 1 && c.attempts <= CYCLE_CALIBRATION_ATTEMPTS);
    ck_assert(c.uncertainty >= 0 && c.uncertainty < 0.05);
    /* Over a five times longer interval, measured apart from the calibration: within 1 %. */
    for (int i = 0; i < TRIES && best > 0.01; i++) {
        ratio = counter_over_monotonic(c.seconds_per_cycle, 0.1);
        best = fmin(best, fabs(ratio - 1));
    }
    ck_assert_msg(best <= 0.01, "counter / CLOCK_MONOTONIC: %.4f (best of %d off by %.4f)",
                  ratio, TRIES, best);
}
END_TEST

START_TEST(test_process_rate_once)
{
    double rate = cycle_clock_seconds_per_cycle();
    ck_assert(rate > 0);
    /* Kept, not measured anew: the same value on every call. */
    for (int i = 0; i < 100; i++)
        ck_assert(cycle_clock_seconds_per_cycle() == rate);
    /* And as good as a calibration of its own over a longer interval. */
    double best = INFINITY;
    for (int i = 0; i < TRIES && best > 0.01; i++) {
        struct cycle_calibration c;
        ck_assert_int_eq(cycle_clock_calibrate(0.05, &c), 0);
        best = fmin(best, fabs(rate / c.seconds_per_cycle - 1));
    }
    ck_assert_msg(best <= 0.01, "the process's rate off a 50 ms calibration by %.4f", best);
}
END_TEST

START_TEST(test_cycles_to_seconds_monotonic)
{
    ck_assert(cycles_to_seconds(0) == 0);
    double prev = -1;
    for (uint64_t c = 1; c < UINT64_MAX / 4; c = c * 3 + 1) {
        double s = cycles_to_seconds(c);
        ck_assert_msg(s > prev, "cycles_to_seconds(%llu) = %g after %g",
                      (unsigned long long)c, s, prev);
        prev = s;
        /* And back, to a part in a million. */
        if (c > 1000000)
            ck_assert(fabs((double)seconds_to_cycles(s) / (double)c - 1) < 1e-6);
    }
    ck_assert_uint_eq(seconds_to_cycles(-1), 0);
    ck_assert_uint_eq(seconds_to_cycles(NAN), 0);
    ck_assert_uint_eq(seconds_to_cycles(1e30), UINT64_MAX);
    /* Successive reads of the counter, converted, never go back and add up to the
     * CLOCK_MONOTONIC time they span (within 10 %, best of TRIES). */
    double best = INFINITY;
    for (int t = 0; t < TRIES && best > 0.1; t++) {
        double t0 = probe_now();
        uint64_t first = cycle_counter(), last = first;
        for (int i = 0; i < 200000; i++) {
            uint64_t c = cycle_counter();
            ck_assert_msg(c >= last, "the counter went back: %llu after %llu",
                          (unsigned long long)c, (unsigned long long)last);
            last = c;
        }
        double span = probe_now() - t0;
        best = fmin(best, fabs(cycles_to_seconds(last - first) / span - 1));
    }
    ck_assert_msg(best <= 0.1, "200000 reads: counter seconds off CLOCK_MONOTONIC's by %.3f", best);
}
END_TEST

START_TEST(test_pingpong_samples_at_the_rate)
{
    double rate = cycle_clock_seconds_per_cycle();
    uint64_t posted[4] = { 1000000, 1000000 + 2000, 1000000 + 2000 + 50000, 0 };
    posted[3] = posted[2] + 2000;
    double samples[3];
    ck_assert_int_eq(rdma_one_way_samples(posted, 3, samples), 0);
    ck_assert_double_eq_tol(samples[0], 2000 * rate / 2, 1e-15);
    ck_assert_double_eq_tol(samples[1], 50000 * rate / 2, 1e-15);
    ck_assert(samples[0] == samples[2]);
    /* A counter that goes back is no timing. */
    posted[2] = posted[1] - 1;
    ck_assert_int_eq(rdma_one_way_samples(posted, 3, samples), -EIO);
}
END_TEST

START_TEST(test_sparse_deadline)
{
    struct sparse_deadline d;
    double t0 = probe_now(), at = t0 + 0.05, now = t0;
    sparse_deadline_init(&d, at);
    uint64_t calls = 0;
    while (!sparse_deadline_passed(&d) && (now = probe_now()) < at + 10)
        calls++;
    now = probe_now();
    ck_assert_msg(now < at + 10, "the deadline was never seen");
    ck_assert_msg(now >= at, "passed %.6f s early", at - now);
    ck_assert(sparse_deadline_passed(&d));     /* and stays passed */
    /* CLOCK_MONOTONIC read once a period or so (twice, with slack), not once per spin:
     * the loop above read it itself calls times. */
    double periods = (now - t0) / SPARSE_CLOCK_PERIOD;
    ck_assert_msg(d.clock_reads >= 1 && d.clock_reads <= 2 * periods + 2,
                  "%u clock reads in %.1f periods (%llu calls)", d.clock_reads, periods,
                  (unsigned long long)calls);

    /* A deadline already past is seen within a period or so. */
    sparse_deadline_init(&d, probe_now() - 1);
    t0 = probe_now();
    while (!sparse_deadline_passed(&d) && probe_now() < t0 + 10)
        ;
    ck_assert(d.passed);
    ck_assert_uint_le(d.clock_reads, 2);
}
END_TEST

static Suite *probe_clock_suite(void)
{
    Suite *s = suite_create("probe_clock");
    TCase *tc = tcase_create("clock");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_calibration_agrees_with_monotonic);
    tcase_add_test(tc, test_process_rate_once);
    tcase_add_test(tc, test_cycles_to_seconds_monotonic);
    tcase_add_test(tc, test_pingpong_samples_at_the_rate);
    tcase_add_test(tc, test_sparse_deadline);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run(probe_clock_suite());
}
