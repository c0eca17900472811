/* SPDX-License-Identifier: ISC */
/* Exact statistics over a run's samples. */
#pragma once

#include <stddef.h>

struct stats {
    size_t n;
    double min, p50, p90, p99, p999, max, mean, stddev;
};

/* Sorts samples in place and fills *ret; n == 0 gives all zeros. Percentiles are by
 * nearest rank (the smallest sample with at least p% of samples at or below it). */
void stats_compute(double *samples, size_t n, struct stats *ret);
double stats_percentile_sorted(const double *sorted, size_t n, double p);
