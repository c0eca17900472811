/* SPDX-License-Identifier: ISC */
/* fabtunectl snapshot: asks the kernel for a netdev's DCB netlink and ethtool replies and
 * keeps them as raw bytes (captured_replies.h says where and how). */
#pragma once

/* Writes IFNAME's replies under TOP/fabtune/net/IFNAME. Returns how many were kept
 * (replies or errnos), or -errno. */
int capture_replies_take(const char *top, const char *ifname);
