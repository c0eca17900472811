/* SPDX-License-Identifier: ISC */
/* The sysfs source: RDMA ports, GID tables and netdevs from /sys (or a captured tree). */
#pragma once

#include "inventory.h"
#include "policy.h"

/* Finds the RDMA ports the policy selects and fills each rail from sysfs alone. */
int source_sysfs_scan(const char *sysroot, const struct policy *p, struct inventory *inv);
/* Fills a netdev from /sys/class/net/IF (offline, where rtnetlink is not available). */
void source_sysfs_netdev(const char *sysroot, struct netdev_info *nd);
/* The netdev of DEV's PORT, as a rail's is found: the first its GID table names
 * (ports/PORT/gid_attrs/ndevs/I), else the PCI function's only netdev, or its PORT-th
 * (device/net/: an IB port's IPoIB netdev). 0, or -ENOENT with BUF "". */
int source_sysfs_port_netdev(const char *sysroot, const char *dev, uint32_t port, char *buf, size_t len);
