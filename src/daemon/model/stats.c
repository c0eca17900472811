/* SPDX-License-Identifier: ISC */
/* Exact statistics: sort, then nearest-rank percentiles and a two-pass mean/stddev. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double stats_percentile_sorted(const double *sorted, size_t n, double p)
{
    if (n == 0)
        return 0;
    /* 99.9 / 100 * 1000 is 999.0000000000001 in binary: without the epsilon the rank of
     * an exact boundary would round up to the next sample. */
    size_t rank = (size_t)ceil(p / 100.0 * (double)n - 1e-9);
    return sorted[rank == 0 ? 0 : rank - 1];
}

void stats_compute(double *s, size_t n, struct stats *ret)
{
    memset(ret, 0, sizeof(*ret));
    if (n == 0)
        return;
    qsort(s, n, sizeof(*s), cmp_double);
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++)
        sum += s[i];
    double mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        sq += (s[i] - mean) * (s[i] - mean);
    *ret = (struct stats){
        .n = n, .min = s[0], .max = s[n - 1], .mean = mean,
        .stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0,
        .p50 = stats_percentile_sorted(s, n, 50), .p90 = stats_percentile_sorted(s, n, 90),
        .p99 = stats_percentile_sorted(s, n, 99), .p999 = stats_percentile_sorted(s, n, 99.9),
    };
}
