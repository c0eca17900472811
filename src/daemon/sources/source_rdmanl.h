/* SPDX-License-Identifier: ISC */
/* The RDMA netlink source: every RDMA port and its netdev, as the kernel's nldev tells. */
#pragma once

#include <net/if.h>
#include <stddef.h>
#include <stdint.h>

#include "inventory.h"

/* Every RDMA port of the host, not only the rails: 16 HCAs of two ports, and SR-IOV
 * functions on the host, stay far below. A port is about 100 bytes. */
#define RDMANL_MAX_PORTS 4096

struct rdmanl_port {
    char device[INV_NAME_MAX];
    uint32_t port;
    char netdev[IFNAMSIZ];
};

/* One RDMA_NLDEV_CMD_PORT_GET reply message: -EINVAL unless it names a device and port. */
struct nlmsghdr;
int source_rdmanl_parse_port(struct nlmsghdr *h, struct rdmanl_port *ret);
/* Dumps RDMA_NLDEV_CMD_PORT_GET. Returns the count, or -errno (-EPROTONOSUPPORT on a
 * kernel without InfiniBand; -EFBIG past RDMANL_MAX_PORTS). *ret is freed by the caller. */
int source_rdmanl_ports(struct rdmanl_port **ret);
/* Sets each rail's netdev from the kernel's own port->netdev binding. */
void source_rdmanl_fill(struct inventory *inv);
