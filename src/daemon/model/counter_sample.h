/* SPDX-License-Identifier: ISC */
/* The HCA counters as the sources sample them, and their classes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timeutil.h"

enum counter_class {
    COUNTER_LOSS, COUNTER_CONGESTION, COUNTER_MISCONFIG, COUNTER_STARVATION,
    COUNTER_PFC_STORM,
    COUNTER_LINK,               /* physical errors: symbols, integrity, overruns */
    COUNTER_LINK_DOWN,          /* the link went down (link_downed) */
    COUNTER_QP_ERROR,           /* work completions in error, flushes */
    COUNTER_CLASSES, COUNTER_UNCLASSIFIED = COUNTER_CLASSES,
};

#define COUNTER_NAME_MAX 48

struct counter_value {
    char name[COUNTER_NAME_MAX]; /* "out_of_sequence"; ethtool ones as "ethtool:rx_discards_phy" */
    uint64_t value;
    bool pma;                   /* read from ports/N/counters/: the IB PMA's PortCounters */
};

/* One rail's counters at one moment. */
struct counter_sample {
    struct counter_value *values;
    size_t n, cap;              /* cap: room in values (grown by doubling) */
    usec_t taken;               /* CLOCK_BOOTTIME */
    uint8_t pfc_en;             /* for the pause-without-PFC rule */
    bool pfc_known;
    /* The rail's traffic so far: its netdev's statistics/{rx,tx}_bytes, else the port's
     * PMA port_{rcv,xmit}_data (in 4-byte words, converted). Not kept in the state file. */
    bool has_bytes;
    uint64_t rx_bytes, tx_bytes;
};

/* Per rail sample. mlx5 exposes about 60 hw_counters and a few hundred classified ethtool
 * statistics per port; rxe about 20: 1024 is more than any HCA exposes. */
#define COUNTER_MAX_VALUES 1024

/* The class of a driver's counter (hw_counters/, ethtool) by its name. */
enum counter_class counter_classify(const char *name, const struct counter_sample *s);
/* The class of a sampled value: a PMA counter's (v->pma) by the PMA's table, any other by
 * counter_classify(). rxe's hw_counters/link_downed, say, is no PMA counter. */
enum counter_class counter_value_class(const struct counter_value *v, const struct counter_sample *s);
const char *counter_class_name(enum counter_class c);    /* "loss" */
/* The width in bits that drivers/infiniband/core/sysfs.c gives a PMA counter of
 * counters/: 4, 8, 16 or 32; 0 for a 64-bit one, or a value that is not the PMA's. Such a
 * counter saturates at 2^width - 1. */
unsigned counter_width(const struct counter_value *v);
/* V sits at its saturation value: it stopped counting until the port's counters are
 * reset, so a rise since is not seen. */
bool counter_saturated(const struct counter_value *v);

/* What a class's counters of one sample hold since their last reset. */
struct class_totals {
    char text[256];             /* "link_downed 255 (saturated, 8-bit), port_rcv_errors 14";
                                 * the non-zero ones, "" when all are 0 */
    size_t n_saturated;
    char saturated[COUNTER_NAME_MAX];   /* the first saturated one */
    unsigned saturated_width;
};
void counter_class_totals(const struct counter_sample *s, enum counter_class c,
                          struct class_totals *t);

void counter_sample_done(struct counter_sample *s);
/* Adds a value; a name too long to classify, or one past COUNTER_MAX_VALUES, is dropped
 * (0): the sample keeps what it has. -ENOMEM. */
int counter_sample_add(struct counter_sample *s, const char *name, uint64_t value);
/* The same for a value of ports/N/counters/ (the PMA's). */
int counter_sample_add_pma(struct counter_sample *s, const char *name, uint64_t value);
/* A deep copy of FROM into TO (whose own values are freed first): TO gets its own values,
 * so either can be freed or grown alone. -ENOMEM leaves TO as it was. */
int counter_sample_copy(struct counter_sample *to, const struct counter_sample *from);
