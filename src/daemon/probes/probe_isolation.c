/* SPDX-License-Identifier: ISC */
/* Where a peer path's bytes went: readings around each transport's probes
 * (probe_isolation.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "log.h"
#include "probe_isolation.h"
#include "probe_tcp.h"
#include "source_link_traffic.h"
#include "source_port_data.h"
#include "strutil.h"

#define LINKS_TIMEOUT 2.0       /* seconds for the peer's links answer */

struct reading {
    struct link_traffic own, peer;
};

struct probe_isolation {
    uint8_t dst[16];
    enum peer_links_layout layout;      /* the peer's links answer: 1, or 0 from an older one */
    struct reading last, now;
    /* This node's neighbour entry for the peer on the rail: the one the QP took when the
     * RDMA probe connected, else the one right after the probe. */
    struct rdma_connect_neighbour at_connect;
    /* Right after the RDMA probe, before the TCP probe's ARP traffic can mend them: the
     * peer's links answer, with its entries for this node's address. */
    bool rdma_read;
    struct link_traffic peer_after_rdma;
};

struct rdma_connect_neighbour *probe_isolation_neighbour(struct probe_isolation *iso)
{
    return iso ? &iso->at_connect : NULL;
}

/* This node's counters and the peer's links answer; this node's own RDMA ports' data
 * counters too (live: probes run only live). */
static bool read_both(struct probe_isolation *iso, struct probe_peer *e, struct reading *r)
{
    const char *why = "";
    enum peer_links_layout asked = iso->layout;
    int err = source_link_traffic_read(&r->own);
    if (err < 0) {
        snprintf(e->isolation.error, sizeof(e->isolation.error), "this node's link counters: %s",
                 errno_text(-err));
        return false;
    }
    source_port_data_read("/sys", &r->own);
    err = probe_tcp_peer_links(e->family, e->src, iso->dst, e->port, LINKS_TIMEOUT, &iso->layout,
                               &r->peer, &why);
    if (err < 0) {
        snprintf(e->isolation.error, sizeof(e->isolation.error), "no links answer from the peer: %s: %s",
                 why, errno_text(-err));
        return false;
    }
    if (iso->layout != asked)
        log_info("probe: %s (%s): its responder gives no RDMA port data (links layout %d, an "
                 "older fabtuned): the peer's side of route.isolation is its netdev counters",
                 e->peer, e->addr, (int)iso->layout);
    return true;
}

static void mapped(int family, const uint8_t *addr, uint8_t out[16])
{
    struct link_traffic_entry tmp = { 0 };
    link_traffic_add_address(&tmp, family, addr);
    memcpy(out, tmp.addrs[0], 16);
}

struct probe_isolation *probe_isolation_start(struct probe_peer *e, const uint8_t dst[16])
{
    struct path_isolation *p = &e->isolation;
    uint8_t want[16];
    memset(p, 0, sizeof(*p));
    if (!e->has_src || !*e->netdev)
        return NULL;
    struct probe_isolation *iso = calloc(1, sizeof(*iso));
    if (!iso) {
        strscpy(p->error, "out of memory", sizeof(p->error));
        return NULL;
    }
    memcpy(iso->dst, dst, 16);
    iso->layout = PEER_LINKS_PORT_DATA;
    if (!read_both(iso, e, &iso->last)) {
        free(iso);
        return NULL;
    }
    strscpy(p->rail, e->netdev, sizeof(p->rail));
    strscpy(iso->at_connect.netdev, e->netdev, sizeof(iso->at_connect.netdev));
    mapped(e->family, dst, want);
    const struct link_traffic_entry *owner = link_traffic_owner(&iso->last.peer, want);
    if (!owner) {
        snprintf(p->error, sizeof(p->error), "the peer reports no netdev that holds %s", e->addr);
        free(iso);
        return NULL;
    }
    const struct link_traffic_entry *mine = link_traffic_find(&iso->last.own, p->rail);
    if (mine)
        memcpy(p->rail_mac, mine->mac, 6);
    strscpy(p->peer_rail, owner->name, sizeof(p->peer_rail));
    memcpy(p->peer_rail_mac, owner->mac, 6);
    return iso;
}

/* The payload each way of transport T's probes. A failed probe's own payload is not
 * known, so the bytes this node's rail sent stand for it on the way out, once they are
 * more than the links answers' own few hundred bytes (a probe that sent nothing, as one
 * without an RDMA device, is unmeasured). */
#define FAILED_PROBE_MIN_BYTES 1024
static void payload(const struct probe_peer *e, enum isolation_transport t, struct isolation_leg *l)
{
    const struct probe_result *lat = &e->result[t == ISOLATION_RDMA ? PROBE_RDMA_LATENCY : PROBE_TCP_LATENCY],
                              *bw = &e->result[t == ISOLATION_RDMA ? PROBE_RDMA_BANDWIDTH : PROBE_TCP_BANDWIDTH];
    l->out_bytes = lat->bytes / 2 + (bw->deferred[0] ? 0 : bw->bytes);
    l->back_bytes = lat->bytes / 2;
    if (lat->error && !l->out_bytes && l->own_tx.want_bytes >= FAILED_PROBE_MIN_BYTES)
        l->out_bytes = l->own_tx.want_bytes;
}

void probe_isolation_after(struct probe_isolation *iso, struct probe_peer *e, enum isolation_transport t)
{
    struct path_isolation *p = &e->isolation;
    if (!iso)
        return;
    /* First: the links session below is traffic too. */
    if (t == ISOLATION_RDMA && !iso->at_connect.read)
        iso->at_connect.read = source_neighbour_mac(p->rail, e->family, iso->dst, iso->at_connect.mac) == 0;
    if (!read_both(iso, e, &iso->now))
        return;
    struct isolation_leg *l = &p->leg[t];
    bool pd = t == ISOLATION_RDMA;      /* TCP always goes through the netdev */
    isolation_side_measure(&iso->last.own, &iso->now.own, p->rail, false, pd, &l->own_tx);
    isolation_side_measure(&iso->last.peer, &iso->now.peer, p->peer_rail, true, pd, &l->peer_rx);
    isolation_side_measure(&iso->last.peer, &iso->now.peer, p->peer_rail, false, pd, &l->peer_tx);
    isolation_side_measure(&iso->last.own, &iso->now.own, p->rail, true, pd, &l->own_rx);
    payload(e, t, l);
    l->measured = true;
    iso->last = iso->now;
    if (t == ISOLATION_RDMA) {
        iso->rdma_read = true;
        iso->peer_after_rdma = iso->now.peer;
    }
}

/* The peer's way back: its entry on PEER_RAIL for this node's rail address, when the
 * peer reports one and it is not RAIL's MAC; false otherwise. */
static bool flux_back(const struct probe_isolation *iso, const struct path_isolation *p, uint8_t mac[6])
{
    const struct link_traffic_entry *theirs = link_traffic_find(&iso->peer_after_rdma, p->peer_rail);
    if (!theirs || !theirs->has_back_neigh || !memcmp(theirs->back_neigh_mac, p->rail_mac, 6))
        return false;
    memcpy(mac, theirs->back_neigh_mac, 6);
    return true;
}

void probe_isolation_finish(struct probe_isolation *iso, struct probe_peer *e)
{
    struct path_isolation *p = &e->isolation;
    struct probe_result *lat = &e->result[PROBE_RDMA_LATENCY];
    uint8_t mac[6];
    if (!iso)
        return;
    if (lat->ran && lat->error && iso->rdma_read) {
        const struct link_traffic_entry *owner = NULL;
        /* The entry when the route was resolved is the MAC the QP sent to; a later one
         * may be mended already (the peer's ARP requests override it). */
        if (iso->at_connect.read && memcmp(iso->at_connect.mac, p->peer_rail_mac, 6)) {
            p->flux = true;
            memcpy(mac, iso->at_connect.mac, 6);
            owner = link_traffic_by_mac(&iso->peer_after_rdma, mac);
        } else if (flux_back(iso, p, mac)) {
            p->flux = p->flux_back = true;
            owner = link_traffic_by_mac(&iso->last.own, mac);
        }
        if (p->flux) {
            memcpy(p->neigh_mac, mac, 6);
            strscpy(p->neigh_owner, owner ? owner->name : "", sizeof(p->neigh_owner));
            char was[sizeof(lat->error_text)];
            strscpy(was, lat->error_text, sizeof(was));
            /* Cut where it must: the flux leads, the old text follows as far as it fits. */
            int k = p->flux_back
                ? snprintf(lat->error_text, sizeof(lat->error_text),
                           "ARP flux on the way back: the peer's %s entry for %s's address is "
                           "this node's %s MAC (%s)", p->peer_rail, p->rail,
                           owner ? owner->name : "unknown", was)
                : snprintf(lat->error_text, sizeof(lat->error_text),
                           "ARP flux: %s's entry for %s is the peer's %s MAC, not its %s's (%s)",
                           p->rail, e->addr, owner ? owner->name : "unknown", p->peer_rail, was);
            if (k < 0)
                strscpy(lat->error_text, was, sizeof(lat->error_text));
        }
    }
    free(iso);
}
