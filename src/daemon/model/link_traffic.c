/* SPDX-License-Identifier: ISC */
/* A node's netdev byte counters and the rule that says where a probe's bytes went
 * (link_traffic.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "link_traffic.h"
#include "macro.h"
#include "strutil.h"

const struct link_traffic_entry *link_traffic_find(const struct link_traffic *t, const char *name)
{
    for (size_t i = 0; t && i < t->n; i++)
        if (streq(t->e[i].name, name))
            return &t->e[i];
    return NULL;
}

const struct link_traffic_entry *link_traffic_owner(const struct link_traffic *t, const uint8_t addr[16])
{
    for (size_t i = 0; t && i < t->n; i++)
        for (size_t k = 0; k < t->e[i].n_addrs && k < LINK_TRAFFIC_ADDRS; k++)
            if (memcmp(t->e[i].addrs[k], addr, 16) == 0)
                return &t->e[i];
    return NULL;
}

const struct link_traffic_entry *link_traffic_by_mac(const struct link_traffic *t, const uint8_t mac[6])
{
    for (size_t i = 0; t && i < t->n; i++)
        if (memcmp(t->e[i].mac, mac, 6) == 0)
            return &t->e[i];
    return NULL;
}

bool link_traffic_add_address(struct link_traffic_entry *e, int family, const uint8_t *addr)
{
    if (e->n_addrs >= LINK_TRAFFIC_ADDRS || (family != AF_INET && family != AF_INET6))
        return false;
    uint8_t *to = e->addrs[e->n_addrs++];
    memset(to, 0, 16);
    if (family == AF_INET6) {
        memcpy(to, addr, 16);
    } else {
        to[10] = to[11] = 0xff;
        memcpy(to + 12, addr, 4);
    }
    return true;
}

static uint64_t delta(uint64_t before, uint64_t after)
{
    return after >= before ? after - before : 0;
}

void isolation_side_measure(const struct link_traffic *before, const struct link_traffic *after,
                            const char *want, bool rx, bool port_data, struct isolation_side *out)
{
    memset(out, 0, sizeof(*out));
    strscpy(out->want, want, sizeof(out->want));
    for (size_t i = 0; i < after->n; i++) {
        const struct link_traffic_entry *a = &after->e[i], *b = link_traffic_find(before, a->name);
        if (!b)
            continue;           /* appeared during the probe: no count to compare */
        bool pd = port_data && a->has_port_data && b->has_port_data;
        enum isolation_counter c = pd ? ISOLATION_COUNTER_PORT_DATA : ISOLATION_COUNTER_NETDEV;
        uint64_t d = pd ? (rx ? delta(b->port_rx_bytes, a->port_rx_bytes) : delta(b->port_tx_bytes, a->port_tx_bytes))
                        : (rx ? delta(b->rx_bytes, a->rx_bytes) : delta(b->tx_bytes, a->tx_bytes));
        if (streq(a->name, want)) {
            out->want_bytes = d;
            out->want_counter = c;
        } else if (!*out->other || d > out->other_bytes) {
            strscpy(out->other, a->name, sizeof(out->other));
            out->other_bytes = d;
            out->other_counter = c;
        }
    }
}

const char *isolation_counter_name(enum isolation_counter c)
{
    return c == ISOLATION_COUNTER_PORT_DATA ? "port_data" : "netdev";
}

enum isolation_verdict isolation_side_judge(const struct isolation_side *s, uint64_t payload)
{
    if (!payload || !*s->want)
        return ISOLATION_UNMEASURED;
    if (s->want_bytes >= payload / 2)
        return ISOLATION_RIGHT;
    return *s->other && s->other_bytes >= payload / 2 ? ISOLATION_ELSEWHERE : ISOLATION_UNSEEN;
}

static enum isolation_verdict worse(enum isolation_verdict a, enum isolation_verdict b)
{
    static const int rank[] = { [ISOLATION_UNMEASURED] = 0, [ISOLATION_RIGHT] = 1,
                                [ISOLATION_UNSEEN] = 2, [ISOLATION_ELSEWHERE] = 3 };
    return rank[b] > rank[a] ? b : a;
}

enum isolation_verdict isolation_leg_judge(const struct isolation_leg *l)
{
    if (!l->measured)
        return ISOLATION_UNMEASURED;
    enum isolation_verdict v = worse(isolation_side_judge(&l->own_tx, l->out_bytes),
                                     isolation_side_judge(&l->peer_rx, l->out_bytes));
    v = worse(v, isolation_side_judge(&l->peer_tx, l->back_bytes));
    return worse(v, isolation_side_judge(&l->own_rx, l->back_bytes));
}

const char *isolation_transport_name(enum isolation_transport t)
{
    return t == ISOLATION_RDMA ? "RDMA" : "TCP";
}

void link_traffic_mac_text(const uint8_t mac[6], char *buf, size_t len)
{
    snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
}
