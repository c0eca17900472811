/* SPDX-License-Identifier: ISC */
/* The QoS sources of Ethernet rails: DCB netlink (live), the qos/trust and ecn/ sysfs
 * files (live and snapshot), and the ethtool pause parameters (live). */
#pragma once

#include "inventory.h"

/* Asks the kernel for IFNAME's IEEE DCB state (RTM_GETDCB, DCB_CMD_IEEE_GET) on a libnl
 * nl_sock and parses the reply. Returns 0, or -errno with D->why set. */
int source_dcb_query(const char *ifname, struct dcb_state *d);
/* Trust, ECN and the CNP marking from ROOT/class/net/IF/{qos,ecn}; trust falls back to the
 * APP table already in Q->dcb. */
void source_qos_sysfs(const char *root, const char *ifname, struct qos_state *q);
/* The 802.3x pause parameters through SIOCETHTOOL / ETHTOOL_GPAUSEPARAM, and a reply's
 * or an error's meaning for Q. */
void source_ethtool_pause(const char *ifname, struct qos_state *q);
struct ethtool_pauseparam;
void source_ethtool_pause_apply(const struct ethtool_pauseparam *pp, struct qos_state *q);
void source_ethtool_pause_why(int err, struct qos_state *q);
/* All of the above for every Ethernet rail; LIVE says whether netlink and ethtool apply. */
void source_qos_fill(const char *sysroot, bool live, struct inventory *inv);
