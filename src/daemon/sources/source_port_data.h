/* SPDX-License-Identifier: ISC */
/* The RDMA ports' data counters for the netdevs of a link_traffic reading (route.isolation,
 * model/link_traffic.h): an HCA that offloads RoCE (mlx5 and the like) moves its RDMA bytes
 * past the netdev, whose rx_bytes/tx_bytes never see them; the port's IB PMA counters
 * ports/N/counters/port_rcv_data and port_xmit_data do (in units of 4 octets:
 * Documentation/ABI/stable/sysfs-class-infiniband). Soft-RoCE counts its bytes on the
 * netdev and has no counters/ directory. */
#pragma once

#include "link_traffic.h"

/* For each RDMA port under SYSROOT whose netdev (source_sysfs_port_netdev()) is one of
 * T's entries, that entry's port_rx_bytes and port_tx_bytes (the counters times 4), and
 * has_port_data when both read. Every other entry's has_port_data is false. The probes,
 * live only, pass "/sys"; a test passes a fixture tree. */
void source_port_data_read(const char *sysroot, struct link_traffic *t);
