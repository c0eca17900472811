/* SPDX-License-Identifier: ISC */
/* The QoS state of every Ethernet rail, from its sources in order: DCB netlink first,
 * since trust may be derived from its APP table; offline, the replies a snapshot kept. */
#include "config.h"

#include <linux/ethtool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcb_parse.h"
#include "macro.h"
#include "snapshot_read.h"
#include "source_qos.h"

/* Offline: the DCB and pause replies the snapshot kept, through the live parsers. */
static bool qos_from_snapshot(const char *sysroot, const char *ifname, struct qos_state *q)
{
    char *buf = NULL;
    size_t len;
    int err, r;
    if (!snapshot_read_has_replies(sysroot, ifname))
        return false;
    r = snapshot_read_reply(sysroot, ifname, "dcb_ieee", &buf, &len, &err);
    if (r == 1)
        (void)dcb_parse_ieee_reply(buf, len, &q->dcb);
    else
        dcb_state_unknown(&q->dcb, r == 0 ? "no reply to RTM_GETDCB when the snapshot was taken"
                                          : "the snapshot holds no DCB reply for it");
    free(buf);
    buf = NULL;
    r = snapshot_read_reply(sysroot, ifname, "ethtool_pause", &buf, &len, &err);
    struct ethtool_pauseparam pp = { 0 };
    if (r == 1 && len == sizeof(pp))
        memcpy(&pp, buf, sizeof(pp));
    if (pp.cmd == ETHTOOL_GPAUSEPARAM)
        source_ethtool_pause_apply(&pp, q);
    else if (r == 0)
        source_ethtool_pause_why(err, q);
    else
        snprintf(q->pause_why, sizeof(q->pause_why), "%s", r == 1
                 ? "the snapshot's ethtool pause reply is malformed"
                 : "the snapshot holds no ethtool pause reply for it");
    free(buf);
    return true;
}

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
        } else if (!qos_from_snapshot(sysroot, r->netdev.name, q)) {
            snprintf(q->dcb.why, sizeof(q->dcb.why), "a captured tree holds no DCB netlink state");
            snprintf(q->pause_why, sizeof(q->pause_why),
                     "a captured tree holds no ethtool pause parameters");
        }
        source_qos_sysfs(sysroot, r->netdev.name, q);
    }
}
