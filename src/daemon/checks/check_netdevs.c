/* SPDX-License-Identifier: ISC */
/* The netdev checks: oper state, carrier and MTU of each rail's netdev. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "macro.h"

/* An InfiniBand port needs no netdev (IPoIB is optional); a RoCE port cannot work
 * without. One finding, under netdev.oper: without a netdev there is no carrier or MTU to
 * judge. A captured tree without class/net says nothing of the netdevs, and fabtune does
 * not judge iWARP rails (port.link_layer says so): unknown, not an error. */
static bool netdev_missing(const struct inventory *inv, const struct rail *r, struct findings *out)
{
    if (r->netdev.present)
        return false;
    if (!streq(r->link_layer, "Ethernet") && !rail_is_iwarp(r))
        findings_add(out, "netdev.oper", SEVERITY_OK, r->name, NULL, NULL, NULL,
                     "no netdev (InfiniBand port without IPoIB)");
    else if (inv->net_class_absent)
        findings_add(out, "netdev.oper", SEVERITY_UNKNOWN, r->name, NULL, NULL, NULL,
                     "the captured tree holds no netdev (no class/net)");
    else if (rail_is_iwarp(r))
        findings_add(out, "netdev.oper", SEVERITY_UNKNOWN, r->name, NULL, NULL, NULL,
                     "the iWARP device's netdev%s%s is not visible; fabtune judges InfiniBand "
                     "and RoCE rails only", r->netdev.name[0] ? " " : "", r->netdev.name);
    else if (r->netdev.name[0])
        findings_add(out, "netdev.oper", SEVERITY_ERROR, r->name, r->netdev.name, "absent",
                     "the port's netdev vanished: was it renamed or its driver unloaded?",
                     "netdev %s does not exist", r->netdev.name);
    else
        findings_add(out, "netdev.oper", SEVERITY_ERROR, r->name, "a netdev", "none",
                     "a RoCE port's GIDs come from its netdev: check 'rdma link show'",
                     "the RoCE port has no netdev");
    return true;
}

static void check_oper(const struct rail *r, struct findings *out)
{
    const struct netdev_info *nd = &r->netdev;
    if (streq(nd->operstate, "up"))
        findings_add(out, "netdev.oper", SEVERITY_OK, r->name, "up", "up", NULL, "%s is up", nd->name);
    else if (!nd->operstate[0] || streq(nd->operstate, "unknown"))
        findings_add(out, "netdev.oper", SEVERITY_UNKNOWN, r->name, "up", nd->operstate, NULL,
                     "%s reports no oper state", nd->name);
    else
        findings_add(out, "netdev.oper", SEVERITY_ERROR, r->name, "up", nd->operstate,
                     "'ip link set dev NETDEV up'; lowerlayerdown means the link below it is down",
                     "%s is %s", nd->name, nd->operstate);
}

static void check_carrier(const struct rail *r, struct findings *out)
{
    const struct netdev_info *nd = &r->netdev;
    if (nd->carrier == 1)
        findings_add(out, "netdev.carrier", SEVERITY_OK, r->name, "1", "1", NULL, "%s has carrier",
                     nd->name);
    else if (nd->carrier == 0)
        findings_add(out, "netdev.carrier", SEVERITY_ERROR, r->name, "1", "0",
                     "no carrier: the cable, the transceiver or the switch port is down",
                     "%s has no carrier", nd->name);
    else if (nd->carrier_absent)        /* a capture left it out: down says not why */
        findings_add(out, "netdev.carrier", SEVERITY_UNKNOWN, r->name, "1", NULL, NULL,
                     "%s has no carrier file in this tree (oper state %s)", nd->name,
                     nd->operstate[0] ? nd->operstate : "unknown");
    else
        findings_add(out, "netdev.carrier", SEVERITY_UNKNOWN, r->name, "1", NULL, NULL,
                     "%s carrier not readable (the link is administratively down)", nd->name);
}

static void check_netdev_mtu(const struct rail *r, const struct policy *p, struct findings *out)
{
    char want[32], got[32];
    uint32_t min = p->rails.mtu.netdev_min;
    snprintf(want, sizeof(want), ">= %u", min);
    snprintf(got, sizeof(got), "%u", r->netdev.mtu);
    if (r->netdev.mtu == 0)
        findings_add(out, "netdev.mtu", SEVERITY_UNKNOWN, r->name,
                     min ? want : NULL, NULL, NULL, "%s MTU not readable", r->netdev.name);
    else if (r->netdev.mtu < min)
        findings_add(out, "netdev.mtu", SEVERITY_ERROR, r->name, want, got,
                     "set the MTU on the netdev and on the switch ports alike",
                     "%s MTU %u is below %u", r->netdev.name, r->netdev.mtu, min);
    else
        findings_add(out, "netdev.mtu", SEVERITY_OK, r->name, min ? want : NULL, got, NULL,
                     "%s MTU %u", r->netdev.name, r->netdev.mtu);
}

void check_netdevs(const struct inventory *inv, const struct policy *p, struct findings *out)
{
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        if (netdev_missing(inv, r, out))
            continue;
        check_oper(r, out);
        check_carrier(r, out);
        check_netdev_mtu(r, p, out);
    }
}
