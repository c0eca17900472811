/* SPDX-License-Identifier: ISC */
/* Where each rail's packets go. Live, the destinations are this node's probed peers (each
 * host resolved once per pass; of several addresses, the one in the rail's subnet) and the
 * rails' gateways; kernel_routes_capture() asks rtnetlink and route_parse_stream() reads
 * the answers, the same parser a snapshot's kept conversation goes through. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_routes.h"
#include "macro.h"
#include "peers.h"
#include "route_parse.h"
#include "snapshot_read.h"
#include "source_routes.h"
#include "sysfs.h"

#define PEERS_ASKED 64      /* probes.peers.k's maximum */
#define ADDRS_PER_PEER 8

struct peer_addrs {
    uint32_t a[PEERS_ASKED][ADDRS_PER_PEER];
    size_t n[PEERS_ASKED];
    size_t n_peers;
};

/* The probed peers' IPv4 addresses, resolved once for every rail. */
static void resolve_peers(const struct policy *p, struct peer_addrs *pa)
{
    struct peer_list l = { 0 };
    size_t idx[PEERS_ASKED];
    char err[160];
    pa->n_peers = 0;
    if (!policy_peers_configured(p))
        return;
    (void)peers_load(p, &l, err, sizeof(err));
    size_t k = p->probes.peers.k < PEERS_ASKED ? p->probes.peers.k : PEERS_ASKED;
    size_t n = peers_neighbours(&l, k, idx);
    for (size_t i = 0; i < n; i++) {
        uint8_t all[ADDRS_PER_PEER * 2][16];
        size_t m = peers_resolve_all(l.hosts[idx[i]], all, ARRAY_SIZE(all)), got = 0;
        static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
        for (size_t j = 0; j < m && got < ADDRS_PER_PEER; j++)
            if (!memcmp(all[j], mapped, 12))
                memcpy(&pa->a[pa->n_peers][got++], all[j] + 12, 4);
        if (got)
            pa->n[pa->n_peers++] = got;
    }
    peer_list_done(&l);
}

/* The rail's RoCE address: its GID's IPv4, else its netdev's first IPv4 address. */
static void rail_address(const struct rail *r, uint32_t *addr, uint8_t *prefix)
{
    static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
    *addr = 0;
    *prefix = 0;
    if (r->gid_index >= 0 && (uint32_t)r->gid_index < r->n_gids &&
        !memcmp(r->gids[r->gid_index].raw, mapped, 12))
        memcpy(addr, r->gids[r->gid_index].raw + 12, 4);
    for (size_t i = 0; i < r->netdev.n_addrs; i++) {
        const struct ip_address *ip = &r->netdev.addrs[i];
        uint32_t a;
        if (ip->family != AF_INET)
            continue;
        memcpy(&a, ip->addr, 4);
        if (!*addr)
            *addr = a;
        if (a == *addr) {
            *prefix = ip->prefix_len;
            return;
        }
    }
}

static void rail_live(struct rail *r, const struct peer_addrs *pa)
{
    struct rail_routes *rr = &r->routes;
    struct kernel_capture c = { 0 };
    uint32_t src, dsts[PEERS_ASKED];
    uint8_t prefix;
    size_t n = 0;
    rail_address(r, &src, &prefix);
    for (size_t i = 0; i < pa->n_peers; i++) {
        size_t pick = 0;
        for (size_t j = 0; j < pa->n[i] && src && prefix; j++)
            if (routes_subnet(pa->a[i][j], prefix) == routes_subnet(src, prefix)) {
                pick = j;
                break;
            }
        dsts[n++] = pa->a[i][pick];
    }
    int err = kernel_routes_capture(r->netdev.name, src, dsts, n, false, &c, rr->why,
                                    sizeof(rr->why));
    if (err == 0)
        (void)route_parse_stream(c.buf, c.len, rr);
    kernel_capture_done(&c);
    memcpy(rr->peers, dsts, n * sizeof(dsts[0]));
    rr->n_peers = n;
}

static void rail_snapshot(const char *sysroot, struct rail *r)
{
    struct rail_routes *rr = &r->routes;
    char *buf = NULL;
    size_t len;
    int e, k = snapshot_read_reply(sysroot, r->netdev.name, "routes", &buf, &len, &e);
    if (k == 1)
        (void)route_parse_stream(buf, len, rr);
    else
        snprintf(rr->why, sizeof(rr->why), k == 0
                 ? "rtnetlink did not answer when the snapshot was taken"
                 : snapshot_read_by_fabtunectl(sysroot) ? "the snapshot holds no routes for %s"
                 : "a captured tree holds no routes for %s (they come with a fabtunectl "
                   "snapshot)", r->netdev.name);
    free(buf);
}

static int conf_read(const char *procroot, const char *dev, const char *key)
{
    int64_t v;
    if (sysfs_read_int(procroot, &v, "sys/net/ipv4/conf/%s/%s", dev, key) < 0 || v < 0 || v > 255)
        return -1;
    return (int)v;
}

static void read_conf(const char *procroot, const char *dev, struct if_sysctls *s)
{
    s->arp_ignore = conf_read(procroot, dev, "arp_ignore");
    s->arp_announce = conf_read(procroot, dev, "arp_announce");
    s->rp_filter = conf_read(procroot, dev, "rp_filter");
    s->accept_local = conf_read(procroot, dev, "accept_local");
}

static void rail_sysctls(const char *procroot, struct rail *r)
{
    struct rail_routes *rr = &r->routes;
    if (!procroot) {
        snprintf(rr->sysctls_why, sizeof(rr->sysctls_why), "no procfs was given with the "
                 "captured tree (--procfs-root): its interface sysctls are not read");
        return;
    }
    read_conf(procroot, "all", &rr->all);
    read_conf(procroot, r->netdev.name, &rr->dev);
    rr->sysctls_known = rr->all.rp_filter >= 0 && rr->dev.rp_filter >= 0;
    if (!rr->sysctls_known)
        snprintf(rr->sysctls_why, sizeof(rr->sysctls_why),
                 "no net.ipv4.conf.%s.rp_filter under the procfs root", r->netdev.name);
}

void source_routes_fill(const char *sysroot, const char *procroot, bool live,
                        const struct policy *p, struct inventory *inv)
{
    struct peer_addrs *pa = NULL;
    for (size_t i = 0; i < inv->n_rails; i++) {
        struct rail *r = &inv->rails[i];
        if (!rail_is_roce(r) || !r->netdev.name[0])
            continue;
        rail_sysctls(procroot, r);
        if (!live) {
            rail_snapshot(sysroot, r);
            continue;
        }
        if (!r->netdev.present) {
            snprintf(r->routes.why, sizeof(r->routes.why), "netdev %s is absent", r->netdev.name);
            continue;
        }
        if (!pa) {
            if (!(pa = calloc(1, sizeof(*pa))))
                return;
            resolve_peers(p, pa);
        }
        rail_live(r, pa);
    }
    free(pa);
}
