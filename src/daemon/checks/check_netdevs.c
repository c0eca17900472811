/* SPDX-License-Identifier: ISC */
/* The netdev checks: oper state (a bond's slaves with it), carrier and MTU of each rail's
 * netdev. */
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

/* A slave that the tree shows down: its oper state is another than up (or unknown), or
 * it has no carrier. One the tree does not hold says nothing. */
static bool slave_down(const struct bond_slave *s)
{
    bool oper_down = s->operstate[0] && !streq(s->operstate, "up") &&
                     !streq(s->operstate, "unknown");
    return s->present && (oper_down || s->carrier == 0);
}

/* A bond that is up runs on the slaves that are: one of a RoCE LAG's two down halves the
 * rail's bandwidth (802.3ad and the balance modes), or leaves active-backup with no backup.
 * NVIDIA's RoCE LAG keeps the bond (and mlx5_bond_0) up on the remaining port, so neither
 * bond0's oper state nor its carrier shows it. */
static void check_bond(const struct rail *r, struct findings *out)
{
    const struct netdev_info *nd = &r->netdev;
    const struct bond_info *b = &nd->bond;
    char down[320] = "", got[48], effect[128];
    size_t n_down = 0, at = 0;
    for (size_t i = 0; i < b->n_slaves; i++) {
        const struct bond_slave *s = &b->slaves[i];
        if (!slave_down(s))
            continue;
        n_down++;
        if (at < sizeof(down))
            at += (size_t)snprintf(down + at, sizeof(down) - at, "%s%s (operstate %s%s)",
                                   at ? ", " : "", s->name,
                                   s->operstate[0] ? s->operstate : "unknown",
                                   s->carrier == 0 ? ", no carrier" : "");
    }
    if (n_down == 0) {
        findings_add(out, "netdev.oper", SEVERITY_OK, r->name, "up", "up", NULL,
                     "%s is up, a bond%s%s of %zu slave%s, none down", nd->name,
                     b->mode[0] ? " in " : "", b->mode, b->n_slaves, b->n_slaves == 1 ? "" : "s");
        return;
    }
    snprintf(got, sizeof(got), "%zu of %zu slaves up", b->n_slaves - n_down, b->n_slaves);
    if (streq(b->mode, "active-backup"))
        snprintf(effect, sizeof(effect), "the bond has %s", n_down == b->n_slaves
                 ? "no link left" : "lost a backup link");
    else
        snprintf(effect, sizeof(effect), "the rail runs on %zu of its %zu links' bandwidth",
                 b->n_slaves - n_down, b->n_slaves);
    findings_add(out, "netdev.oper", n_down == b->n_slaves ? SEVERITY_ERROR : SEVERITY_WARNING,
                 r->name, "every slave up", got,
                 "bring the slave's link back: its cable, transceiver and switch port "
                 "('cat /proc/net/bonding/BOND' shows each slave's MII status and link failures)",
                 "%s is up, but not its slave%s %s: %s", nd->name, n_down > 1 ? "s" : "",
                 down, effect);
}

static void check_oper(const struct rail *r, struct findings *out)
{
    const struct netdev_info *nd = &r->netdev;
    if (streq(nd->operstate, "up") && nd->bond.is_bond && nd->bond.n_slaves > 0)
        check_bond(r, out);
    else if (streq(nd->operstate, "up"))
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
