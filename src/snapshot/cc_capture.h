/* SPDX-License-Identifier: ISC */
/* fabtunectl snapshot's part for congestion control: what the qos.cc* checks read of a
 * netdev that sysfs, debugfs and the firmware tool hold (snapshot_layout.h says where). */
#pragma once

/* Copies /sys/class/net/IFNAME/ecn/ whole, and for an mlx5 PCI function its debugfs
 * cc_params/ and the firmware tool's answer, under TOP (the snapshot's scratch tree). */
void cc_capture_netdev(const char *top, const char *ifname);
