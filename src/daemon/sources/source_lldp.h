/* SPDX-License-Identifier: ISC */
/* The neighbours source: each Ethernet rail's LLDP neighbours, from lldpd (live, through
 * its control socket: snapshot/lldp_capture.h) or from what a snapshot kept
 * (fabtune/net/IFNAME/lldp), parsed by sources/lldp_parse.h either way. */
#pragma once

#include <stdbool.h>

#include "inventory.h"
#include "policy.h"

void source_lldp_fill(const char *sysroot, bool live, const struct policy *p,
                      struct inventory *inv);
