/* SPDX-License-Identifier: ISC */
/* A netdev's FEC, live: one ETHTOOL_MSG_FEC_GET with its statistics, parsed into a
 * fec_state. A driver without FEC (veth, virtio, rxe) leaves it unknown with the kernel's
 * reason ("the driver reports no FEC"): never an error. */
#pragma once

#include <stdbool.h>

#include "counter_sample.h"
#include "fec.h"

struct inventory;
struct rail;

void source_fec_read(const char *ifname, struct fec_state *s);
/* Every Ethernet rail with a netdev: its FEC, into rail.fec; live, or (LIVE false) from
 * the answer the snapshot whose sys/ is SYSROOT kept (none kept: not read). */
void source_fec_fill(const char *sysroot, bool live, struct inventory *inv);
/* The FEC statistics of R into its counter sample S, as "fec:corrected",
 * "fec:uncorrectable" and "fec:corrected_bits" (the totals): live, a fresh read (none
 * where the inventory's read said the driver has no FEC); offline, the inventory's. */
void source_fec_sample(bool live, const struct rail *r, struct counter_sample *s);
