/* SPDX-License-Identifier: ISC */
/* The sysfs source: RDMA ports, GID tables and netdevs from /sys (or a captured tree). */
#pragma once

#include "inventory.h"
#include "policy.h"

/* Finds the RDMA ports the policy selects and fills each rail from sysfs alone. */
int source_sysfs_scan(const char *sysroot, const struct policy *p, struct inventory *inv);
/* Fills a netdev from /sys/class/net/IF (offline, where rtnetlink is not available). */
void source_sysfs_netdev(const char *sysroot, struct netdev_info *nd);
