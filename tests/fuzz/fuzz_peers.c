/* SPDX-License-Identifier: ISC */
/* libFuzzer target for what a peer or a cluster tool hands fabtuned: the peers file
 * (probes.peers.file) and the probe session's hello. Any bytes: never a crash or undefined
 * behaviour; every host that comes out of the file is one peer_host_valid() accepts, the
 * list is sorted without duplicates, a hello that parses (TCP's, or the RDMA CM's
 * private data both ways) says a valid session, and a responder's links answer that
 * parses, in either layout (0: netdev counters; 1: and the RDMA ports' data counters), is
 * in bounds and reads the same once written again. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "peer_list.h"
#include "peer_links.h"
#include "peer_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool is_self(const char *host, void *data)
{
    return strcmp(host, data) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size ? size : 1), err[160];
    struct peer_list l;
    if (!buf)
        return 0;
    memcpy(buf, data, size);    /* exactly size bytes: ASan sees a read past the end */
    if (peer_list_parse(buf, size, &l, err, sizeof(err)) == 0) {
        for (size_t i = 0; i < l.n; i++)
            if (!peer_host_valid(l.hosts[i]) || (i && strcmp(l.hosts[i - 1], l.hosts[i]) >= 0))
                abort();
        size_t pick[8];
        char none[] = "x";
        char *self = l.n ? l.hosts[0] : none;
        size_t n = peer_list_neighbours(&l, self, is_self, self, 8, pick);
        for (size_t i = 0; i < n; i++)
            if (pick[i] >= l.n || (l.n && pick[i] == 0))
                abort();
        peer_list_done(&l);
    } else if (!err[0]) {
        abort();                /* an error always says why */
    }
    struct peer_rdma_hello rh;
    struct peer_rdma_accept ra;
    if (peer_rdma_hello_parse((const uint8_t *)buf, size, &rh) == 0 &&
        (rh.size < 1 || rh.size > PEER_WIRE_MAX_SIZE || rh.rounds < 1 || rh.rounds > PEER_RDMA_MAX_ROUNDS))
        abort();
    if (peer_rdma_accept_parse((const uint8_t *)buf, size, &ra) == 0 && (ra.len < 1 || ra.len > PEER_WIRE_MAX_SIZE))
        abort();
    if (size >= PEER_WIRE_HELLO_LEN) {
        struct peer_hello h;
        if (peer_hello_parse(data, &h) == 0 &&
            !((h.kind == PEER_SESSION_ECHO && h.size >= 1 && h.size <= PEER_WIRE_MAX_SIZE) ||
              (h.kind == PEER_SESSION_SINK && h.size == 0) ||
              (h.kind == PEER_SESSION_LINKS && h.size <= PEER_LINKS_LAYOUT_MAX)))
            abort();
    }
    /* The links answer, in each layout: what parses is in bounds, says the same once
     * written again, and has port data only in layout 1. */
    static struct link_traffic t, again;
    static uint8_t out[PEER_LINKS_MAX_LEN];
    for (int layout = PEER_LINKS_NETDEV; layout <= PEER_LINKS_LAYOUT_MAX + 1; layout++) {
        if (peer_links_parse((const uint8_t *)buf, size, (enum peer_links_layout)layout, &t) != 0)
            continue;
        if (layout > PEER_LINKS_LAYOUT_MAX || t.n > LINK_TRAFFIC_MAX ||
            size != 1 + t.n * peer_links_entry_len((enum peer_links_layout)layout))
            abort();
        for (size_t i = 0; i < t.n; i++)
            if (!t.e[i].name[0] || t.e[i].n_addrs > LINK_TRAFFIC_ADDRS ||
                (layout == PEER_LINKS_NETDEV && t.e[i].has_port_data) ||
                (!t.e[i].has_port_data && (t.e[i].port_rx_bytes || t.e[i].port_tx_bytes)))
                abort();
        size_t len = peer_links_write(&t, (enum peer_links_layout)layout, out);
        if (len != size ||
            peer_links_parse(out, len, (enum peer_links_layout)layout, &again) != 0 || again.n != t.n)
            abort();
        for (size_t i = 0; i < t.n; i++)
            if (strcmp(again.e[i].name, t.e[i].name) || again.e[i].rx_bytes != t.e[i].rx_bytes ||
                again.e[i].tx_bytes != t.e[i].tx_bytes || memcmp(again.e[i].mac, t.e[i].mac, 6) ||
                again.e[i].has_port_data != t.e[i].has_port_data ||
                again.e[i].port_rx_bytes != t.e[i].port_rx_bytes ||
                again.e[i].port_tx_bytes != t.e[i].port_tx_bytes)
                abort();
    }
    free(buf);
    return 0;
}
