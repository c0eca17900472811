/* SPDX-License-Identifier: ISC */
/* A module's Rx power over time (issue 30, item 3): per rail, samples of every lane's Rx
 * power, at most RX_TREND_SAMPLES spread over the policy's window (a day by default), and
 * the least-squares slope of each lane's power in dBm against time. A lane whose fit falls
 * faster than the policy's dB per window is a warning before the lane crosses its module's
 * low warning threshold: a fibre or connector getting dirty, or a far-end laser ageing.
 *
 * Samples are dated on the wall clock: a module's power means the same across a daemon
 * restart or a reboot. A clock set back (a sample dated after now) clears them, as does
 * another module in the cage (another serial number). Pure. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "module_eeprom.h"
#include "timeutil.h"

#define RX_TREND_SAMPLES 64
/* The fewest samples, and the least span of the window, that make a fit. */
#define RX_TREND_MIN_SAMPLES 8
#define RX_TREND_MIN_SPAN_DIVISOR 2

struct rx_sample {
    usec_t wall;
    uint8_t valid;                          /* bit l: lane l's reading was valid and > 0 */
    uint32_t rx[MODULE_LANES_MAX];          /* 0.1 uW, as the module reads it */
};

struct rx_trend {
    char serial[17];                        /* the module the samples are of */
    struct rx_sample samples[RX_TREND_SAMPLES];
    size_t n;                               /* oldest first */
};

/* Adds INFO's Rx readings at NOW (wall clock) when the last sample is at least
 * WINDOW / (RX_TREND_SAMPLES - 1) old, after dropping the samples older than WINDOW, any
 * dated after NOW, and all of them when the module's serial changed. A module without Rx
 * readings adds nothing. */
void rx_trend_add(struct rx_trend *t, const struct module_info *info, usec_t now,
                  usec_t window);

/* A lane's fit over the samples within WINDOW of NOW. */
struct rx_fit {
    unsigned lane;                          /* 0-based */
    size_t samples;
    usec_t span;                            /* the first to the last sample fitted */
    double db_per_window;                   /* the slope, in dB per WINDOW (falling: < 0) */
    double first_dbm, last_dbm;             /* the fitted line at the first and last sample */
};

/* The lane whose fit falls fastest, among those with RX_TREND_MIN_SAMPLES samples over at
 * least WINDOW / RX_TREND_MIN_SPAN_DIVISOR: true and *RET, or false when no lane has
 * enough. */
bool rx_trend_steepest(const struct rx_trend *t, usec_t now, usec_t window, struct rx_fit *ret);

/* 0.1 uW as dBm (the raw reading must be > 0). */
double rx_raw_dbm(uint32_t raw);
