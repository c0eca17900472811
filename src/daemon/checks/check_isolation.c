/* SPDX-License-Identifier: ISC */
/* route.isolation: where each peer path's probe bytes really went (model/link_traffic.h).
 * For a path from rail R to the peer's address A, the bytes should leave by R's netdev
 * and arrive on the peer's netdev that holds A, and the answers come back the same way.
 *  - error: a side's bytes went by another netdev (its counters and the rail's, both
 *    nodes), or a failed RDMA probe with this node's neighbour entry for A holding the MAC
 *    of the peer's other NIC: ARP flux, the packets land on a NIC whose rxe drops them;
 *  - ok: every measured side on its rail, with the figures;
 *  - unknown: not measured (why), or the bytes counted by no netdev.
 * The RDMA leg counts a netdev by its RDMA port's data counters where both readings have
 * them (an HCA that offloads RoCE, mlx5, counts RDMA apart from its netdev's counters:
 * "+N B port data"), else, as the TCP leg always, by the netdev's ("+N B").
 * A path from the host, without a rail, is not judged. */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "link_traffic.h"
#include "macro.h"

struct text {
    char buf[640];
    size_t len;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
    va_list ap;
    if (t->len >= sizeof(t->buf) - 1)
        return;
    va_start(ap, fmt);
    int k = vsnprintf(t->buf + t->len, sizeof(t->buf) - t->len, fmt, ap);
    va_end(ap);
    if (k > 0)
        t->len += (size_t)k < sizeof(t->buf) - t->len ? (size_t)k : sizeof(t->buf) - 1 - t->len;
}

/* A figure: "+N B" from the netdev's counters, "+N B port data" from its RDMA port's. */
static const char *port_data(enum isolation_counter c)
{
    return c == ISOLATION_COUNTER_PORT_DATA ? " port data" : "";
}

static void side(struct text *t, const char *what, const struct isolation_side *s, uint64_t payload)
{
    switch (isolation_side_judge(s, payload)) {
    case ISOLATION_RIGHT:
        put(t, "; %s %s (+%llu B%s)", what, s->want, (unsigned long long)s->want_bytes,
            port_data(s->want_counter));
        break;
    case ISOLATION_ELSEWHERE:
        put(t, "; %s %s (+%llu B%s), not %s (+%llu B%s)", what, s->other,
            (unsigned long long)s->other_bytes, port_data(s->other_counter), s->want,
            (unsigned long long)s->want_bytes, port_data(s->want_counter));
        break;
    case ISOLATION_UNSEEN:
        put(t, "; %s neither %s (+%llu B%s) nor another netdev", what, s->want,
            (unsigned long long)s->want_bytes, port_data(s->want_counter));
        break;
    case ISOLATION_UNMEASURED:
        break;
    }
}

/* Whether a measured side of L counted its rail by port data. */
static bool leg_port_data(const struct isolation_leg *l)
{
    return l->measured && (l->own_tx.want_counter == ISOLATION_COUNTER_PORT_DATA ||
                           l->peer_rx.want_counter == ISOLATION_COUNTER_PORT_DATA ||
                           l->peer_tx.want_counter == ISOLATION_COUNTER_PORT_DATA ||
                           l->own_rx.want_counter == ISOLATION_COUNTER_PORT_DATA);
}

static void leg(struct text *t, enum isolation_transport tr, const struct isolation_leg *l)
{
    if (!l->measured)
        return;
    put(t, "%s%s out %llu B, back %llu B", t->len ? "; " : "", isolation_transport_name(tr),
        (unsigned long long)l->out_bytes, (unsigned long long)l->back_bytes);
    side(t, "left by", &l->own_tx, l->out_bytes);
    side(t, "arrived on the peer's", &l->peer_rx, l->out_bytes);
    side(t, "came back by the peer's", &l->peer_tx, l->back_bytes);
    side(t, "arrived on", &l->own_rx, l->back_bytes);
}

static const char fix[] =
    "on both nodes: net.ipv4.conf.all.arp_ignore=1 and arp_announce=2 (route.arp), source "
    "routing per rail (route.subnets prints the lines), then ip neigh flush on each rail";

static void judge_path(const struct probe_peer *e, struct findings *out)
{
    const struct path_isolation *p = &e->isolation;
    enum isolation_verdict worst = ISOLATION_UNMEASURED;
    struct text t = { .len = 0 };
    char got[64], want[2 * IFNAMSIZ + 8];

    if (*p->error) {
        findings_add(out, "route.isolation", SEVERITY_UNKNOWN, e->rail, NULL, "unmeasured", NULL,
                     "%s (%s): not measured: %s", e->peer, e->addr, p->error);
        findings_set_subject(out, e->peer);
        return;
    }
    if (!*p->rail)
        return;                 /* from the host, or never run */
    for (int k = 0; k < ISOLATION_TRANSPORTS; k++) {
        enum isolation_verdict v = isolation_leg_judge(&p->leg[k]);
        if (v == ISOLATION_ELSEWHERE || (v == ISOLATION_UNSEEN && worst != ISOLATION_ELSEWHERE) ||
            (v == ISOLATION_RIGHT && worst == ISOLATION_UNMEASURED))
            worst = v;
        leg(&t, k, &p->leg[k]);
    }
    snprintf(want, sizeof(want), "%s to %s", p->rail, p->peer_rail);
    if (p->flux) {
        char mac[18], rail_mac[18], what[320];
        const char *owner = *p->neigh_owner ? p->neigh_owner : "(unknown netdev)";
        link_traffic_mac_text(p->neigh_mac, mac, sizeof(mac));
        link_traffic_mac_text(p->flux_back ? p->rail_mac : p->peer_rail_mac, rail_mac, sizeof(rail_mac));
        if (p->flux_back)
            snprintf(what, sizeof(what), "ARP flux on the way back: the peer's neighbour entry on its %s "
                     "for this node's %s address holds %s, the MAC of this node's %s, not of its %s (%s); "
                     "the peer's RDMA answers", p->peer_rail, p->rail, mac, owner, p->rail, rail_mac);
        else
            snprintf(what, sizeof(what), "ARP flux: this node's neighbour entry for %s on %s holds %s, "
                     "the MAC of the peer's %s, not of its %s (%s) that holds the address; RDMA "
                     "packets", e->addr, p->rail, mac, owner, p->peer_rail, rail_mac);
        findings_add(out, "route.isolation", SEVERITY_ERROR, e->rail, want, "ARP flux", fix,
                     "%s (%s): %s land on a NIC that drops them, so the probe failed%s%s", e->peer,
                     e->addr, what, t.len ? "; " : "", t.buf);
    } else if (worst == ISOLATION_ELSEWHERE) {
        findings_add(out, "route.isolation", SEVERITY_ERROR, e->rail, want, "another netdev", fix,
                     "%s (%s): this rail's probe bytes went by another netdev: %s", e->peer, e->addr, t.buf);
    } else if (worst == ISOLATION_RIGHT) {
        snprintf(got, sizeof(got), "%s to %s", p->rail, p->peer_rail);
        findings_add(out, "route.isolation", SEVERITY_OK, e->rail, NULL, got, NULL,
                     "%s (%s): on its own rail both ways: %s", e->peer, e->addr, t.buf);
    } else if (leg_port_data(&p->leg[ISOLATION_RDMA])) {
        findings_add(out, "route.isolation", SEVERITY_UNKNOWN, e->rail, NULL, "unseen", NULL,
                     "%s (%s): the probe's bytes were not seen in the netdevs' counters nor in "
                     "their RDMA ports' data counters%s%s", e->peer, e->addr, t.len ? ": " : "", t.buf);
    } else {
        findings_add(out, "route.isolation", SEVERITY_UNKNOWN, e->rail, NULL, "unseen", NULL,
                     "%s (%s): the probe's bytes were not seen in the netdevs' counters (an HCA "
                     "that offloads RoCE counts it apart, in its port's data counters, which "
                     "this node or the peer did not give)%s%s", e->peer, e->addr, t.len ? ": " : "", t.buf);
    }
    findings_set_subject(out, e->peer);
}

void check_isolation(const struct probe_run *run, struct findings *out)
{
    for (size_t i = 0; i < run->n_peers; i++)
        judge_path(&run->peers[i], out);
}
