/* SPDX-License-Identifier: ISC */
/* The RDMA ports' data counters by netdev (source_port_data.h). A few files per port: the
 * probes read it a few times per peer path, not per packet. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "link_traffic.h"
#include "source_port_data.h"
#include "source_sysfs.h"
#include "sysfs.h"

#define IB "class/infiniband"

static void read_port(const char *root, const char *dev, const char *port_name, struct link_traffic *t)
{
    char ifname[IFNAMSIZ], *end;
    uint64_t rcv, xmit;
    unsigned long port = strtoul(port_name, &end, 10);
    if (port_name[0] < '0' || port_name[0] > '9' || *end || port < 1 || port > 255 ||
        source_sysfs_port_netdev(root, dev, (uint32_t)port, ifname, sizeof(ifname)) < 0)
        return;
    const struct link_traffic_entry *found = link_traffic_find(t, ifname);
    struct link_traffic_entry *e = found ? &t->e[found - t->e] : NULL;
    if (!e || e->has_port_data)
        return;                 /* no such netdev, or another port's already (a bond) */
    if (sysfs_read_u64(root, &rcv, IB "/%s/ports/%lu/counters/port_rcv_data", dev, port) < 0 ||
        sysfs_read_u64(root, &xmit, IB "/%s/ports/%lu/counters/port_xmit_data", dev, port) < 0)
        return;
    e->has_port_data = true;
    e->port_rx_bytes = rcv * 4;         /* "octets divided by 4" */
    e->port_tx_bytes = xmit * 4;
}

void source_port_data_read(const char *sysroot, struct link_traffic *t)
{
    char **devs = NULL;
    for (size_t i = 0; i < t->n; i++) {
        t->e[i].has_port_data = false;
        t->e[i].port_rx_bytes = t->e[i].port_tx_bytes = 0;
    }
    if (sysfs_list(sysroot, &devs, NULL, IB) < 0)
        return;                 /* no RDMA device: netdev counters only */
    for (char **d = devs; *d; d++) {
        char **ports = NULL;
        if (sysfs_list(sysroot, &ports, NULL, IB "/%s/ports", *d) < 0)
            continue;
        for (char **p = ports; *p; p++)
            read_port(sysroot, *d, *p, t);
        strv_free(ports);
    }
    strv_free(devs);
}
