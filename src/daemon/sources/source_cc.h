/* SPDX-License-Identifier: ISC */
/* The congestion-control (DCQCN) source of Ethernet rails: the running parameters from
 * MLNX_OFED's ecn/ sysfs or the upstream driver's debugfs, the next-boot ones from the
 * firmware tool (live, bounded, cached) or the snapshot's copy of its answer. */
#pragma once

#include "inventory.h"
#include "policy.h"

/* Every Ethernet rail's cc state; call after source_qos_fill (the switches come from its
 * ecn/ enable bits). LIVE: ask the firmware tool (as P's rails.cc says); offline, read
 * what the snapshot kept. */
void source_cc_fill(const char *sysroot, bool live, const struct policy *p, struct inventory *inv);
/* The running parameters of one rail from ROOT's ecn/ and debugfs files. */
void source_cc_running(const char *root, const struct rail *r, struct cc_state *c);
