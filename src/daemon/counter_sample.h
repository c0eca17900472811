/* SPDX-License-Identifier: ISC */
/* The HCA counters as the sources sample them, and their classes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timeutil.h"

enum counter_class {
    COUNTER_LOSS, COUNTER_CONGESTION, COUNTER_MISCONFIG, COUNTER_STARVATION,
    COUNTER_PFC_STORM, COUNTER_CLASSES, COUNTER_UNCLASSIFIED = COUNTER_CLASSES,
};

#define COUNTER_NAME_MAX 48

struct counter_value {
    char name[COUNTER_NAME_MAX]; /* "out_of_sequence"; ethtool ones as "ethtool:rx_discards_phy" */
    uint64_t value;
};

/* One rail's counters at one moment. */
struct counter_sample {
    struct counter_value *values;
    size_t n;
    usec_t taken;               /* CLOCK_BOOTTIME */
    uint8_t pfc_en;             /* for the pause-without-PFC rule */
    bool pfc_known;
};

#define COUNTER_MAX_VALUES 1024    /* per rail sample: more than any HCA exposes */

enum counter_class counter_classify(const char *name, const struct counter_sample *s);
const char *counter_class_name(enum counter_class c);    /* "loss" */

void counter_sample_done(struct counter_sample *s);
int counter_sample_add(struct counter_sample *s, const char *name, uint64_t value);
