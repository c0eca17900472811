/* SPDX-License-Identifier: ISC */
/* A bandwidth stream's rate in windows, and whether it has settled. */
#include "config.h"

#include <math.h>

#include "stream_meter.h"

void stream_meter_start(struct stream_meter *m, double t0, double duration)
{
    *m = (struct stream_meter){
        .t0 = t0, .window = duration / STREAM_METER_WINDOWS,
        .min_end = t0 + duration * STREAM_METER_MIN_FRACTION, .window_start = t0,
    };
}

static bool rates_agree(const struct stream_meter *m)
{
    double sum = 0;
    for (unsigned i = 0; i < STREAM_METER_STEADY; i++)
        sum += m->rates[i];
    double mean = sum / STREAM_METER_STEADY;
    if (mean <= 0)
        return false;
    for (unsigned i = 0; i < STREAM_METER_STEADY; i++)
        if (fabs(m->rates[i] - mean) > STREAM_METER_TOLERANCE * mean)
            return false;
    return true;
}

bool stream_meter_steady(struct stream_meter *m, double now, uint64_t bytes)
{
    if (m->window <= 0 || now - m->window_start < m->window || bytes < m->bytes_at_window)
        return false;
    m->rates[m->n_rates++ % STREAM_METER_STEADY] =
        (double)(bytes - m->bytes_at_window) / (now - m->window_start);
    m->window_start = now;
    m->bytes_at_window = bytes;
    return m->n_rates >= STREAM_METER_STEADY && now >= m->min_end && rates_agree(m);
}
