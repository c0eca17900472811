/* SPDX-License-Identifier: ISC */
/* What the kernel answers about a netdev that is not a file, as raw bytes: the DCB netlink
 * reply and the ethtool pause and statistics replies. fabtuned's sources ask for them live
 * and parse them; fabtunectl snapshot keeps them (snapshot_write.h). */
#pragma once

#include <stddef.h>

struct ethtool_pauseparam;
struct ethtool_gstrings;
struct ethtool_stats;

/* Sends RTM_GETDCB / DCB_CMD_IEEE_GET for IFNAME and returns the raw reply's length with
 * the reply (malloc'd) in *RET, or -errno with WHY set. */
int kernel_dcb_ieee_get(const char *ifname, unsigned char **ret, char *why, size_t whylen);
/* ETHTOOL_GPAUSEPARAM: 0 with *PP filled, or -errno. */
int kernel_ethtool_pause(const char *ifname, struct ethtool_pauseparam *pp);
/* The raw GSTRINGS and GSTATS replies (malloc'd), each buffer *RET_CAP entries long;
 * -ENODATA when the driver has no statistics. */
int kernel_ethtool_stats(const char *ifname, struct ethtool_gstrings **ret_names,
                         struct ethtool_stats **ret_stats, size_t *ret_cap);
