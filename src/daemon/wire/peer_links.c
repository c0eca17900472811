/* SPDX-License-Identifier: ISC */
/* The responder's links answer (peer_links.h). */
#include "config.h"

#include <endian.h>
#include <stdbool.h>
#include <errno.h>
#include <string.h>

#include "peer_links.h"

static void put64(uint8_t *p, uint64_t v) { v = htobe64(v); memcpy(p, &v, 8); }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return be64toh(v); }

size_t peer_links_entry_len(enum peer_links_layout layout)
{
    switch (layout) {
    case PEER_LINKS_NETDEV: return PEER_LINKS_ENTRY_LEN;
    case PEER_LINKS_PORT_DATA: return PEER_LINKS_ENTRY_LEN + PEER_LINKS_PORT_DATA_LEN;
    }
    return 0;
}

size_t peer_links_write(const struct link_traffic *t, enum peer_links_layout layout, uint8_t *out)
{
    size_t n = t->n < LINK_TRAFFIC_MAX ? t->n : LINK_TRAFFIC_MAX, step = peer_links_entry_len(layout);
    uint8_t *p = out + 1;
    if (!step)
        layout = PEER_LINKS_NETDEV, step = PEER_LINKS_ENTRY_LEN;
    out[0] = (uint8_t)n;
    memset(p, 0, n * step);
    for (size_t i = 0; i < n; i++, p += step) {
        const struct link_traffic_entry *e = &t->e[i];
        size_t len = strnlen(e->name, sizeof(e->name));
        memcpy(p, e->name, len < 16 ? len : 15);
        memcpy(p + 16, e->mac, 6);
        p[22] = e->n_addrs < LINK_TRAFFIC_ADDRS ? e->n_addrs : LINK_TRAFFIC_ADDRS;
        put64(p + 24, e->rx_bytes);
        put64(p + 32, e->tx_bytes);
        memcpy(p + 40, e->addrs, (size_t)p[22] * 16);
        uint8_t *q = p + PEER_LINKS_ENTRY_LEN;
        if (layout == PEER_LINKS_PORT_DATA && e->has_port_data) {
            q[0] = 1;
            put64(q + 8, e->port_rx_bytes);
            put64(q + 16, e->port_tx_bytes);
        }
        if (layout == PEER_LINKS_PORT_DATA && e->has_back_neigh) {
            q[1] = 1;
            memcpy(q + 2, e->back_neigh_mac, 6);
        }
    }
    return 1 + n * step;
}

static bool all_zero(const uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i])
            return false;
    return true;
}

/* Layout 1's tail of an entry: has_port_data, has_back_neigh, its MAC, the two figures. */
static int parse_port_data(const uint8_t *q, struct link_traffic_entry *e)
{
    if (q[0] > 1 || q[1] > 1 || (!q[1] && !all_zero(q + 2, 6)) || (!q[0] && !all_zero(q + 8, 16)))
        return -EBADMSG;
    e->has_back_neigh = q[1] == 1;
    memcpy(e->back_neigh_mac, q + 2, 6);
    e->has_port_data = q[0] == 1;
    e->port_rx_bytes = get64(q + 8);
    e->port_tx_bytes = get64(q + 16);
    return 0;
}

int peer_links_parse(const uint8_t *in, size_t len, enum peer_links_layout layout, struct link_traffic *ret)
{
    size_t step = peer_links_entry_len(layout);
    if (!in || !step || len < 1 || in[0] > LINK_TRAFFIC_MAX || len != 1 + (size_t)in[0] * step)
        return -EBADMSG;
    struct link_traffic t = { .n = in[0] };
    const uint8_t *p = in + 1;
    for (size_t i = 0; i < t.n; i++, p += step) {
        struct link_traffic_entry *e = &t.e[i];
        size_t len_name = strnlen((const char *)p, 16);
        if (len_name == 0 || len_name == 16 || p[22] > LINK_TRAFFIC_ADDRS || p[23])
            return -EBADMSG;
        for (size_t k = 0; k < len_name; k++)
            if (p[k] <= ' ' || p[k] > '~' || p[k] == '/')
                return -EBADMSG;        /* what the kernel allows in a netdev's name */
        memcpy(e->name, p, len_name);
        e->name[len_name] = '\0';
        memcpy(e->mac, p + 16, 6);
        e->n_addrs = p[22];
        e->rx_bytes = get64(p + 24);
        e->tx_bytes = get64(p + 32);
        memcpy(e->addrs, p + 40, sizeof(e->addrs));
        if (layout == PEER_LINKS_PORT_DATA && parse_port_data(p + PEER_LINKS_ENTRY_LEN, e) < 0)
            return -EBADMSG;
    }
    *ret = t;
    return 0;
}
