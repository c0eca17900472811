/* SPDX-License-Identifier: ISC */
/* fabtunectl snapshot: asks the kernel for a netdev's DCB netlink and ethtool replies and
 * keeps them as raw bytes (snapshot_layout.h says where and how). */
#pragma once

/* Writes IFNAME's replies under TOP/fabtune/net/IFNAME. Returns how many were kept
 * (replies or errnos), or -errno. */
int snapshot_write_replies(const char *top, const char *ifname);
