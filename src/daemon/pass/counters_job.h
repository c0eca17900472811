/* SPDX-License-Identifier: ISC */
/* One round of the counters timer off the event loop: each rail's counters, ethtool
 * statistics, FEC_GET and carrier_changes read in a thread of their own, so that a driver
 * that does not answer delays no reply. The loop joins the round when its notification
 * byte arrives and folds the samples into the counter state it owns. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "counter_sample.h"
#include "inventory.h"

struct counters_job;

/* One rail's sample of a round, as counters_fold() takes it. */
struct rail_sample {
    char rail[INV_NAME_MAX + 8];
    struct counter_sample sample;
    bool has_carrier;
    uint64_t carrier_changes;
};

/* The samples of a round, in the inventory's rail order. */
struct counters_round {
    struct rail_sample *v;
    size_t n;
};
void counters_round_done(struct counters_round *r);

/* Samples the rails of INV (copied: the caller may change or free INV meanwhile) under
 * SYSROOT, which must stay valid until the join, in a thread; one byte goes to notify_fd
 * when it is done. LIVE adds the ethtool statistics and FEC_GET. */
int counters_job_start(const char *sysroot, bool live, const struct inventory *inv,
                       int notify_fd, struct counters_job **ret);
/* Waits for the round and frees the job; ret gets its samples (the caller's). */
void counters_job_join(struct counters_job *job, struct counters_round *ret);
