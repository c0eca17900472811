/* SPDX-License-Identifier: ISC */
/* When a bandwidth stream may end early: its rate, measured in windows of a twentieth of
 * its duration, has held steady. A stream at a stable rate learns nothing more from the
 * rest of its duration, and a training node pays for every byte of it. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define STREAM_METER_WINDOWS 20        /* windows in a full duration */
#define STREAM_METER_STEADY 3          /* consecutive windows that must agree */
#define STREAM_METER_TOLERANCE 0.05    /* within 5 % of their mean */
#define STREAM_METER_MIN_FRACTION 0.25 /* never before a quarter of the duration */

struct stream_meter {
    double t0, window, min_end;
    double window_start;
    uint64_t bytes_at_window;
    double rates[STREAM_METER_STEADY];
    unsigned n_rates;              /* windows measured, the last STEADY kept */
};

/* A stream that began at t0 (seconds) and may last duration seconds. */
void stream_meter_start(struct stream_meter *m, double t0, double duration);
/* The stream has moved bytes in all by now: true once it may end (steady for
 * STREAM_METER_STEADY windows, and past the minimum). */
bool stream_meter_steady(struct stream_meter *m, double now, uint64_t bytes);
