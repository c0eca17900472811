/* SPDX-License-Identifier: ISC */
/* The netdevs' counters and one neighbour entry, through libnl-route's link, address and
 * neighbour caches (source_link_traffic.h). A dump each: a probe run asks a few times per
 * peer path, not per packet. */
#include "config.h"

#include <errno.h>
#include <net/if_arp.h>
#include <net/if.h>
#include <netlink/addr.h>
#include <netlink/cache.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/neighbour.h>
#include <string.h>
#include <sys/socket.h>

#include "macro.h"
#include "source_link_traffic.h"
#include "strutil.h"

static struct nl_sock *connect_route(void)
{
    struct nl_sock *sk = nl_socket_alloc();
    if (sk && nl_connect(sk, NETLINK_ROUTE) < 0) {
        nl_socket_free(sk);
        return NULL;
    }
    return sk;
}

/* The netdev with IFINDEX in OUT, added from the link cache when it is not there yet. */
static struct link_traffic_entry *entry_for(struct nl_cache *links, int ifindex, struct link_traffic *out)
{
    char name[IFNAMSIZ];
    if (!rtnl_link_i2name(links, ifindex, name, sizeof(name)))
        return NULL;
    for (size_t i = 0; i < out->n; i++)
        if (streq(out->e[i].name, name))
            return &out->e[i];
    struct rtnl_link *l = rtnl_link_get(links, ifindex);
    if (!l)
        return NULL;
    struct link_traffic_entry *e = NULL;
    if (rtnl_link_get_arptype(l) != ARPHRD_LOOPBACK && out->n < LINK_TRAFFIC_MAX) {
        e = &out->e[out->n++];
        memset(e, 0, sizeof(*e));
        strscpy(e->name, name, sizeof(e->name));
        struct nl_addr *mac = rtnl_link_get_addr(l);
        if (mac && nl_addr_get_len(mac) == 6)
            memcpy(e->mac, nl_addr_get_binary_addr(mac), 6);
        e->rx_bytes = rtnl_link_get_stat(l, RTNL_LINK_RX_BYTES);
        e->tx_bytes = rtnl_link_get_stat(l, RTNL_LINK_TX_BYTES);
    }
    rtnl_link_put(l);
    return e;
}

int source_link_traffic_read(struct link_traffic *out)
{
    struct nl_sock *sk = connect_route();
    struct nl_cache *links = NULL, *addrs = NULL;
    int r = -EIO;
    out->n = 0;
    if (!sk)
        return -EIO;
    if (rtnl_link_alloc_cache(sk, AF_UNSPEC, &links) < 0 || rtnl_addr_alloc_cache(sk, &addrs) < 0)
        goto done;
    for (struct nl_object *o = nl_cache_get_first(addrs); o; o = nl_cache_get_next(o)) {
        struct rtnl_addr *a = (struct rtnl_addr *)o;
        struct nl_addr *local = rtnl_addr_get_local(a);
        struct link_traffic_entry *e = entry_for(links, rtnl_addr_get_ifindex(a), out);
        int family = local ? nl_addr_get_family(local) : AF_UNSPEC;
        if (e && local && nl_addr_get_len(local) == (family == AF_INET ? 4u : 16u))
            link_traffic_add_address(e, family, nl_addr_get_binary_addr(local));
    }
    r = 0;
done:
    if (addrs)
        nl_cache_free(addrs);
    if (links)
        nl_cache_free(links);
    nl_socket_free(sk);
    return r;
}

/* The neighbour entries' MACs for ADDR on IFNAMES[0..N): FOUND[i] and MACS[i]. */
static int neighbour_macs(const char *const *ifnames, size_t n, int family, const uint8_t *addr,
                          bool *found, uint8_t (*macs)[6])
{
    struct nl_sock *sk = connect_route();
    struct nl_cache *neigh = NULL, *links = NULL;
    struct nl_addr *dst = nl_addr_build(family, addr, family == AF_INET ? 4 : 16);
    int r = -EIO;
    if (!sk || !dst)
        goto done;
    if (rtnl_link_alloc_cache(sk, AF_UNSPEC, &links) < 0 || rtnl_neigh_alloc_cache(sk, &neigh) < 0)
        goto done;
    for (size_t i = 0; i < n; i++) {
        int ifindex = rtnl_link_name2i(links, ifnames[i]);
        struct rtnl_neigh *nb = ifindex ? rtnl_neigh_get(neigh, ifindex, dst) : NULL;
        struct nl_addr *ll = nb ? rtnl_neigh_get_lladdr(nb) : NULL;
        found[i] = ll && nl_addr_get_len(ll) == 6;
        if (found[i])
            memcpy(macs[i], nl_addr_get_binary_addr(ll), 6);
        if (nb)
            rtnl_neigh_put(nb);
    }
    r = 0;
done:
    if (neigh)
        nl_cache_free(neigh);
    if (links)
        nl_cache_free(links);
    if (dst)
        nl_addr_put(dst);
    if (sk)
        nl_socket_free(sk);
    return r;
}

int source_neighbour_mac(const char *ifname, int family, const uint8_t *addr, uint8_t mac[6])
{
    bool found = false;
    int r = neighbour_macs(&ifname, 1, family, addr, &found, (uint8_t (*)[6])mac);
    return r < 0 ? r : found ? 0 : -ENOENT;
}

int source_link_traffic_back_neighbours(struct link_traffic *t, int family, const uint8_t *addr)
{
    const char *names[LINK_TRAFFIC_MAX];
    bool found[LINK_TRAFFIC_MAX] = { false };
    uint8_t macs[LINK_TRAFFIC_MAX][6];
    for (size_t i = 0; i < t->n; i++)
        names[i] = t->e[i].name;
    int r = neighbour_macs(names, t->n, family, addr, found, macs);
    for (size_t i = 0; i < t->n; i++) {
        t->e[i].has_back_neigh = r == 0 && found[i];
        memcpy(t->e[i].back_neigh_mac, found[i] ? macs[i] : (const uint8_t[6]){ 0 }, 6);
    }
    return r;
}
