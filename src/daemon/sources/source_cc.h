/* SPDX-License-Identifier: ISC */
/* The congestion-control (DCQCN) source of Ethernet rails: the running parameters from
 * MLNX_OFED's ecn/ sysfs or the upstream driver's debugfs, the next-boot ones from the
 * firmware tool (live, bounded, cached) or the snapshot's copy of its answer. */
#pragma once

#include "inventory.h"
#include "policy.h"
#include "timeutil.h"

/* The firmware tool's live answers, kept per PCI function as parsed (a function is always
 * the same port): a query takes seconds, and the next-boot values change only when someone
 * runs the tool. Kept between passes by whoever runs them (the daemon's loop hands its own
 * to each pass and takes it back). */
struct fw_answer {
    char pci[16];
    usec_t at;                  /* CLOCK_BOOTTIME; 0: never asked */
    struct cc_state fw;         /* its fw_* fields */
};
struct fw_answers {
    struct fw_answer *v;
    size_t n, cap;              /* at most INVENTORY_MAX_RAILS */
};
void fw_answers_done(struct fw_answers *a);

/* Every Ethernet rail's cc state; call after source_qos_fill (the switches come from its
 * ecn/ enable bits). LIVE: ask the firmware tool (as P's rails.cc says), or take its
 * answer from ANSWERS when asked within rails.cc.firmware_every (NULL: ask, keep
 * nothing); offline, read what the snapshot kept. */
void source_cc_fill(const char *sysroot, bool live, const struct policy *p,
                    struct fw_answers *answers, struct inventory *inv);
/* The running parameters of one rail from ROOT's ecn/ and debugfs files. */
void source_cc_running(const char *root, const struct rail *r, struct cc_state *c);
