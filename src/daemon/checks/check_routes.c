/* SPDX-License-Identifier: ISC */
/* The route checks: where each rail's packets go on a multi-rail node (issue 29).
 *  - route.egress: from the rail's address, the kernel sends to each peer and gateway by
 *    the rail's netdev; bound to it, the peer is reachable at all;
 *  - route.arp: with two or more rails, no rail answers ARP for another's address
 *    (arp_ignore >= 1) or announces another's (arp_announce = 2);
 *  - route.rp_filter: strict reverse-path filtering drops what arrives on a rail whose
 *    subnet another rail shares (the route back leaves by the first);
 *  - route.subnets: rails that share a subnet need source routing (a rule from the
 *    rail's address to a table routing the subnet through the rail); one rail's addresses
 *    in two subnets;
 *  - route.neighbor: two peer addresses resolved to one MAC (the peer's ARP flux), or a
 *    peer resolved to a local rail's own MAC (nccl#1405).
 * Each finding says which packets go where and prints the fix: sysctls, "ip rule" and
 * "ip route" lines. fabtune never changes routes: NetworkManager, netplan or
 * systemd-networkd own them. */
#include "config.h"

#include <errno.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "macro.h"
#include "strutil.h"

#define TABLE_BASE 100      /* the printed fix's table: 100 + the rail's index */

static bool has_routes_addr(const struct rail *r)
{
    return rail_is_roce(r) && r->netdev.name[0] && r->routes.addr && r->routes.prefix_len;
}

static uint32_t subnet_of(const struct rail *r)
{
    return routes_subnet(r->routes.addr, r->routes.prefix_len);
}

/* Another rail whose address is in R's subnet, or NULL. */
static const struct rail *sharing_rail(const struct inventory *inv, const struct rail *r)
{
    if (!has_routes_addr(r))
        return NULL;
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *o = &inv->rails[i];
        if (o != r && has_routes_addr(o) && !streq(o->netdev.name, r->netdev.name) &&
            routes_subnet(o->routes.addr, r->routes.prefix_len) == subnet_of(r))
            return o;
    }
    return NULL;
}

static size_t roce_rails(const struct inventory *inv)
{
    size_t n = 0;
    for (size_t i = 0; i < inv->n_rails; i++)
        n += rail_is_roce(&inv->rails[i]) && inv->rails[i].netdev.name[0];
    return n;
}

/* The netdev name of IFINDEX among the rails, or "ifindex N". */
static const char *ifname_of(const struct inventory *inv, int ifindex, char *buf, size_t len)
{
    for (size_t i = 0; i < inv->n_rails; i++)
        if (inv->rails[i].routes.ifindex == ifindex && inv->rails[i].netdev.name[0])
            return inv->rails[i].netdev.name;
    snprintf(buf, len, "ifindex %d", ifindex);
    return buf;
}

/* The table the rail's source routing uses: its rule's, or 100 + its index. */
static uint32_t fix_table(const struct inventory *inv, const struct rail *r)
{
    for (size_t i = 0; i < r->routes.n_rules; i++) {
        const struct route_rule *u = &r->routes.rules[i];
        if (u->src_len == 32 && u->src == r->routes.addr && u->action == FR_ACT_TO_TBL)
            return u->table;
    }
    return TABLE_BASE + (uint32_t)(r - inv->rails);
}

/* "ip rule add from ADDR table N; ip route add SUBNET/LEN dev IF table N" */
static void source_routing_fix(const struct inventory *inv, const struct rail *r, char *buf,
                               size_t len)
{
    char a[16], s[16];
    uint32_t t = fix_table(inv, r);
    snprintf(buf, len, "ip rule add from %s table %u; ip route add %s/%u dev %s table %u "
             "(in netplan: routing-policy 'from: %s, table: %u' and a route 'to: %s/%u, "
             "table: %u' on %s)",
             routes_addr_text(r->routes.addr, a, sizeof(a)), t,
             routes_addr_text(subnet_of(r), s, sizeof(s)), r->routes.prefix_len,
             r->netdev.name, t, a, t, s, r->routes.prefix_len, t, r->netdev.name);
}

static void check_egress(const struct inventory *inv, const struct rail *r, struct findings *out)
{
    const struct rail_routes *rr = &r->routes;
    const struct rail *other = sharing_rail(inv, r);
    char a[16], d[16], ifb[32], fix[512];
    size_t asked = 0, wrong = 0, unreachable = 0;
    const struct route_lookup *first_wrong = NULL, *first_unreach = NULL;
    for (size_t i = 0; i < rr->n_lookups; i++) {
        const struct route_lookup *l = &rr->lookups[i];
        if (l->oif_asked) {
            if (l->err && !unreachable++)
                first_unreach = l;
            continue;
        }
        asked++;
        if (!l->err && l->type != RTN_LOCAL && l->oif != rr->ifindex && !wrong++)
            first_wrong = l;
    }
    routes_addr_text(rr->addr, a, sizeof(a));
    if (first_unreach) {
        findings_add(out, "route.egress", SEVERITY_ERROR, r->name, "reachable", "unreachable",
                     "give the rail a route to the peers' subnet, or remove the peer from "
                     "probes.peers",
                     "%zu of %zu peers/gateways are unreachable from %s bound to %s: %s (%s)",
                     unreachable, asked, a, r->netdev.name,
                     routes_addr_text(first_unreach->dst, d, sizeof(d)),
                     errno_text(-first_unreach->err));
    } else if (first_wrong) {
        source_routing_fix(inv, r, fix, sizeof(fix));
        const char *via = ifname_of(inv, first_wrong->oif, ifb, sizeof(ifb));
        findings_add(out, "route.egress", other ? SEVERITY_ERROR : SEVERITY_WARNING, r->name,
                     r->netdev.name, via, fix,
                     "packets from %s to %s (and %zu more of %zu) leave by %s, not %s: what is "
                     "not bound to the rail (TCP, NCCL's bootstrap, RDMA CM without a "
                     "device) crosses another rail%s",
                     a, routes_addr_text(first_wrong->dst, d, sizeof(d)), wrong - 1, asked, via,
                     r->netdev.name, other ? ", which shares the subnet" : "");
    } else if (asked == 0) {
        findings_add(out, "route.egress", SEVERITY_OK, r->name, NULL, NULL, NULL,
                     "no peer or gateway to look up from %s", a);
    } else {
        findings_add(out, "route.egress", SEVERITY_OK, r->name, r->netdev.name, r->netdev.name,
                     NULL, "packets from %s to its %zu peers and gateways leave by %s", a,
                     asked, r->netdev.name);
    }
}

static void check_arp(const struct inventory *inv, const struct rail *r, struct findings *out)
{
    const struct rail_routes *rr = &r->routes;
    char got[64], hint[400];
    if (roce_rails(inv) < 2) {
        findings_add(out, "route.arp", SEVERITY_OK, r->name, NULL, NULL, NULL,
                     "one rail: no other rail can answer ARP for its address");
        return;
    }
    if (!rr->sysctls_known) {
        findings_add(out, "route.arp", SEVERITY_UNKNOWN, r->name, "arp_ignore>=1 arp_announce=2",
                     NULL, NULL, "%s", rr->sysctls_why);
        return;
    }
    int ign = rail_routes_arp_ignore(rr), ann = rail_routes_arp_announce(rr);
    snprintf(got, sizeof(got), "arp_ignore=%d arp_announce=%d", ign, ann);
    if (ign >= 1 && ann == 2) {
        findings_add(out, "route.arp", SEVERITY_OK, r->name, "arp_ignore>=1 arp_announce=2", got,
                     NULL, "%s answers and announces only its own address", r->netdev.name);
        return;
    }
    snprintf(hint, sizeof(hint), "sysctl -w net.ipv4.conf.%s.arp_ignore=1 "
             "net.ipv4.conf.%s.arp_announce=2 (or net.ipv4.conf.all.*; the kernel takes the "
             "larger), or fabtune's tuning.sysctl keys net.ipv4.conf.@multirail.arp_ignore: 1 "
             "and net.ipv4.conf.@multirail.arp_announce: 2; then 'ip neigh flush dev IF' on "
             "the peers", r->netdev.name, r->netdev.name);
    findings_add(out, "route.arp", SEVERITY_ERROR, r->name, "arp_ignore>=1 arp_announce=2", got,
                 hint, "%s%s%s: peers may send another rail's RoCE traffic to %s's MAC (ARP flux)",
                 ign < 1 ? "answers ARP for the other rails' addresses" : "",
                 ign < 1 && ann != 2 ? " and " : "",
                 ann != 2 ? "asks ARP from any local address" : "", r->netdev.name);
}

static void check_rp_filter(const struct inventory *inv, const struct rail *r, struct findings *out)
{
    const struct rail_routes *rr = &r->routes;
    const struct rail *other = sharing_rail(inv, r);
    char got[16], hint[320];
    if (roce_rails(inv) < 2) {
        findings_add(out, "route.rp_filter", SEVERITY_OK, r->name, NULL, NULL, NULL,
                     "one rail: the route back always leaves by it");
        return;
    }
    if (!rr->known || !has_routes_addr(r)) {
        findings_add(out, "route.rp_filter", SEVERITY_UNKNOWN, r->name, "0 or 2", NULL, NULL,
                     "which rails share its subnet is unknown: %s", rr->known ?
                     "the rail has no IPv4 address" : rr->why[0] ? rr->why : "not read");
        return;
    }
    if (!other) {
        findings_add(out, "route.rp_filter", SEVERITY_OK, r->name, NULL, NULL, NULL,
                     "%s shares its subnet with no other rail", r->netdev.name);
        return;
    }
    int v = rail_routes_rp_filter(rr);
    if (v < 0) {
        findings_add(out, "route.rp_filter", SEVERITY_UNKNOWN, r->name, "0 or 2", NULL, NULL,
                     "%s", rr->sysctls_why[0] ? rr->sysctls_why : "rp_filter unread");
        return;
    }
    snprintf(got, sizeof(got), "%d", v);
    if (v != 1) {
        findings_add(out, "route.rp_filter", SEVERITY_OK, r->name, "0 or 2", got, NULL,
                     "%s: rp_filter %d (%s)", r->netdev.name, v, v == 2 ? "loose" : "off");
        return;
    }
    snprintf(hint, sizeof(hint), "sysctl -w net.ipv4.conf.%s.rp_filter=2 (the kernel takes the "
             "larger of conf.all and conf.%s; with source routing 1 would hold too), or "
             "fabtune's tuning.sysctl key net.ipv4.conf.@multirail.rp_filter: 2",
             r->netdev.name, r->netdev.name);
    findings_add(out, "route.rp_filter", SEVERITY_ERROR, r->name, "0 or 2", got, hint,
                 "strict rp_filter on %s: packets from peers that arrive on %s are dropped "
                 "while the route back leaves by %s (they share the subnet); the kernel counts "
                 "them as IPReversePathFilter", r->netdev.name, r->netdev.name,
                 other->netdev.name);
}

static void check_subnets(const struct inventory *inv, const struct rail *r, struct findings *out)
{
    const struct rail_routes *rr = &r->routes;
    const struct rail *other = sharing_rail(inv, r);
    char a[16], s1[16], s2[16], fix[512];
    uint32_t table = 0;
    for (size_t i = 1; i < rr->n_addrs; i++) {
        uint32_t n0 = routes_subnet(rr->addrs[0], rr->addr_prefix[0]);
        uint32_t ni = routes_subnet(rr->addrs[i], rr->addr_prefix[i]);
        if (n0 != ni) {
            findings_add(out, "route.subnets", SEVERITY_WARNING, r->name, "one subnet",
                         "two subnets", "keep one subnet per rail; NCCL and RDMA CM pick one "
                         "address per netdev",
                         "%s holds addresses in two subnets: %s/%u and %s/%u", r->netdev.name,
                         routes_addr_text(n0, s1, sizeof(s1)), rr->addr_prefix[0],
                         routes_addr_text(ni, s2, sizeof(s2)), rr->addr_prefix[i]);
            return;
        }
    }
    routes_addr_text(rr->addr, a, sizeof(a));
    if (!other) {
        findings_add(out, "route.subnets", SEVERITY_OK, r->name, NULL, NULL, NULL,
                     "%s/%u is %s's alone among the rails", routes_addr_text(subnet_of(r), s1,
                     sizeof(s1)), rr->prefix_len, r->netdev.name);
        return;
    }
    if (rail_routes_source_routed(&r->routes, &table)) {
        findings_add(out, "route.subnets", SEVERITY_OK, r->name, "source routing",
                     "source routing", NULL, "packets from %s look up table %u, which routes "
                     "the subnet through %s", a, table, r->netdev.name);
        return;
    }
    source_routing_fix(inv, r, fix, sizeof(fix));
    findings_add(out, "route.subnets", SEVERITY_ERROR, r->name, "source routing",
                 table ? "table without the subnet" : "no rule", fix,
                 "%s and %s share %s/%u %s: packets from %s leave by whichever route of the "
                 "subnet comes first", r->netdev.name, other->netdev.name,
                 routes_addr_text(subnet_of(r), s1, sizeof(s1)), rr->prefix_len,
                 table ? "and the rule's table has no route of it" : "without a rule from the "
                 "rail's address", a);
}

static bool is_peer(const struct rail_routes *rr, uint32_t addr)
{
    for (size_t i = 0; i < rr->n_lookups; i++)
        if (rr->lookups[i].dst == addr)
            return true;
    return false;
}

static void mac_text(const uint8_t *m, char *buf, size_t len)
{
    snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

static void check_neighbor(const struct inventory *inv, const struct rail *r, struct findings *out)
{
    const struct rail_routes *rr = &r->routes;
    char p1[16], p2[16], mac[24];
    size_t seen = 0;
    for (size_t i = 0; i < rr->n_neigh; i++) {
        const struct neigh_entry *n = &rr->neigh[i];
        if (!n->has_mac || !(n->state & ROUTES_NUD_VALID) || !is_peer(rr, n->addr))
            continue;
        seen++;
        mac_text(n->mac, mac, sizeof(mac));
        for (size_t j = 0; j < inv->n_rails; j++) {
            const struct rail *o = &inv->rails[j];
            if (o->routes.has_mac && !memcmp(o->routes.mac, n->mac, 6)) {
                findings_add(out, "route.neighbor", SEVERITY_ERROR, r->name, "the peer's MAC",
                             mac, "the peer address is this node's own: remove it from the "
                             "peers, or fix the ARP flux that answered it (route.arp)",
                             "%s resolves peer %s to %s, the MAC of this node's own %s: its "
                             "packets never leave the node (nccl#1405)", r->netdev.name,
                             routes_addr_text(n->addr, p1, sizeof(p1)), mac, o->netdev.name);
                return;
            }
        }
        for (size_t j = 0; j < inv->n_rails; j++) {
            const struct rail_routes *or = &inv->rails[j].routes;
            for (size_t k = 0; k < or->n_neigh; k++) {
                const struct neigh_entry *m = &or->neigh[k];
                if (m->addr == n->addr || !m->has_mac || !(m->state & ROUTES_NUD_VALID) ||
                    memcmp(m->mac, n->mac, 6) || !is_peer(or, m->addr))
                    continue;
                findings_add(out, "route.neighbor", SEVERITY_ERROR, r->name, "one MAC per peer "
                             "address", mac, "on the peer: sysctl -w net.ipv4.conf.all."
                             "arp_ignore=1 net.ipv4.conf.all.arp_announce=2; then here: "
                             "ip neigh flush dev IF",
                             "peers %s and %s both resolve to %s: the peer answered ARP for "
                             "one rail's address on another (ARP flux), so %s's packets to %s "
                             "arrive on the peer's wrong NIC, where RoCE drops them",
                             routes_addr_text(n->addr, p1, sizeof(p1)),
                             routes_addr_text(m->addr, p2, sizeof(p2)), mac, r->netdev.name,
                             p1);
                return;
            }
        }
    }
    findings_add(out, "route.neighbor", SEVERITY_OK, r->name, NULL, NULL, NULL,
                 "%zu peer neighbour entr%s on %s, each its own MAC", seen, seen == 1 ? "y" : "ies",
                 r->netdev.name);
}

void check_routes(const struct inventory *inv, const struct policy *p, struct findings *out)
{
    (void)p;
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        if (!rail_is_roce(r) || !r->netdev.name[0])
            continue;
        const char *why = r->routes.known ? (r->routes.addr ? NULL : "the rail has no IPv4 address")
                                          : r->routes.why[0] ? r->routes.why : "not read";
        if (why) {
            static const char *const ids[] = { "route.egress", "route.subnets", "route.neighbor" };
            for (size_t k = 0; k < ARRAY_SIZE(ids); k++)
                findings_add(out, ids[k], SEVERITY_UNKNOWN, r->name, NULL, NULL, NULL, "%s", why);
        } else {
            check_egress(inv, r, out);
            check_subnets(inv, r, out);
            check_neighbor(inv, r, out);
        }
        check_arp(inv, r, out);
        check_rp_filter(inv, r, out);
    }
}
