/* SPDX-License-Identifier: ISC */
/* Taking the inventory: which sources run, in which order, live or from a snapshot. */
#pragma once

#include "inventory.h"
#include "policy.h"
#include "source_cc.h"

/* procroot may be NULL (a snapshot without its procfs): the process limits stay unknown.
 * Live when sysroot is "/sys": sysfs for the port list and GID attributes, RDMA netlink
 * for port->netdev, verbs for port attributes and GIDs, rtnetlink for netdevs. Offline,
 * sysfs alone. */
int inventory_take(const char *sysroot, const char *procroot, const struct policy *p,
                   struct inventory *inv);
/* The same, with the firmware tool's answers kept in ANSWERS (source_cc.h) between passes. */
int inventory_take_kept(const char *sysroot, const char *procroot, const struct policy *p,
                        struct fw_answers *answers, struct inventory *inv);
