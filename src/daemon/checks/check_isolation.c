/* SPDX-License-Identifier: ISC */
/* route.isolation: where each peer path's probe bytes really went (model/link_traffic.h).
 * For a path from rail R to the peer's address A, the bytes should leave by R's netdev
 * and arrive on the peer's netdev that holds A, and the answers come back the same way.
 *  - error: a side's bytes went by another netdev (its counters and the rail's, both
 *    nodes), or a failed RDMA probe with this node's neighbour entry for A holding the MAC
 *    of the peer's other NIC: ARP flux, the packets land on a NIC whose rxe drops them;
 *  - ok: every measured side on its rail, with the figures;
 *  - unknown: not measured (why), or the bytes counted by no netdev (an HCA that offloads
 *    RoCE counts it apart from its netdev's counters).
 * A path from the host, without a rail, is not judged. */
#include "config.h"

#include <stdarg.h>
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

static void side(struct text *t, const char *what, const struct isolation_side *s, uint64_t payload)
{
    switch (isolation_side_judge(s, payload)) {
    case ISOLATION_RIGHT:
        put(t, "; %s %s (+%llu B)", what, s->want, (unsigned long long)s->want_bytes);
        break;
    case ISOLATION_ELSEWHERE:
        put(t, "; %s %s (+%llu B), not %s (+%llu B)", what, s->other, (unsigned long long)s->other_bytes,
            s->want, (unsigned long long)s->want_bytes);
        break;
    case ISOLATION_UNSEEN:
        put(t, "; %s neither %s (+%llu B) nor another netdev", what, s->want, (unsigned long long)s->want_bytes);
        break;
    case ISOLATION_UNMEASURED:
        break;
    }
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
        char mac[18], rail_mac[18];
        link_traffic_mac_text(p->neigh_mac, mac, sizeof(mac));
        link_traffic_mac_text(p->peer_rail_mac, rail_mac, sizeof(rail_mac));
        findings_add(out, "route.isolation", SEVERITY_ERROR, e->rail, want, "ARP flux", fix,
                     "%s (%s): ARP flux: this node's neighbour entry for %s on %s holds %s, the MAC "
                     "of the peer's %s, not of its %s (%s) that holds the address; RDMA packets "
                     "land on a NIC that drops them, so the probe failed%s%s", e->peer, e->addr,
                     e->addr, p->rail, mac, *p->neigh_owner ? p->neigh_owner : "(unknown netdev)",
                     p->peer_rail, rail_mac, t.len ? "; " : "", t.buf);
    } else if (worst == ISOLATION_ELSEWHERE) {
        findings_add(out, "route.isolation", SEVERITY_ERROR, e->rail, want, "another netdev", fix,
                     "%s (%s): this rail's probe bytes went by another netdev: %s", e->peer, e->addr, t.buf);
    } else if (worst == ISOLATION_RIGHT) {
        snprintf(got, sizeof(got), "%s to %s", p->rail, p->peer_rail);
        findings_add(out, "route.isolation", SEVERITY_OK, e->rail, NULL, got, NULL,
                     "%s (%s): on its own rail both ways: %s", e->peer, e->addr, t.buf);
    } else {
        findings_add(out, "route.isolation", SEVERITY_UNKNOWN, e->rail, NULL, "unseen", NULL,
                     "%s (%s): the probe's bytes were not seen in the netdevs' counters (an HCA "
                     "that offloads RoCE counts it apart)%s%s", e->peer, e->addr, t.len ? ": " : "", t.buf);
    }
    findings_set_subject(out, e->peer);
}

void check_isolation(const struct probe_run *run, struct findings *out)
{
    for (size_t i = 0; i < run->n_peers; i++)
        judge_path(&run->peers[i], out);
}
