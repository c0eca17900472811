/* SPDX-License-Identifier: ISC */
/* The QoS state of every Ethernet rail, from its sources in order: DCB netlink first,
 * since trust may be derived from its APP table. */
#include "config.h"

#include <stdio.h>

#include "macro.h"
#include "source_qos.h"

void source_qos_fill(const char *sysroot, bool live, struct inventory *inv)
{
    for (size_t i = 0; i < inv->n_rails; i++) {
        struct rail *r = &inv->rails[i];
        struct qos_state *q = &r->qos;
        if (!streq(r->link_layer, "Ethernet") || !r->netdev.present)
            continue;
        if (live) {
            (void)source_dcb_query(r->netdev.name, &q->dcb);
            source_ethtool_pause(r->netdev.name, q);
        } else {
            snprintf(q->dcb.why, sizeof(q->dcb.why), "a sysfs snapshot holds no DCB netlink state");
            snprintf(q->pause_why, sizeof(q->pause_why),
                     "a sysfs snapshot holds no ethtool pause parameters");
        }
        source_qos_sysfs(sysroot, r->netdev.name, q);
    }
}
