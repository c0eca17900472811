/* SPDX-License-Identifier: ISC */
/* The rtnetlink source, through libnl-route's link and address caches. */
#include "config.h"

#include <errno.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "source_rtnl.h"

struct caches {
    struct nl_sock *sk;
    struct nl_cache *links, *addrs;
};

static void caches_free(struct caches *c)
{
    if (c->addrs)
        nl_cache_free(c->addrs);
    if (c->links)
        nl_cache_free(c->links);
    if (c->sk)
        nl_socket_free(c->sk);
}

static int caches_load(struct caches *c)
{
    memset(c, 0, sizeof(*c));
    if (!(c->sk = nl_socket_alloc()))
        return -ENOMEM;
    if (nl_connect(c->sk, NETLINK_ROUTE) < 0 ||
        rtnl_link_alloc_cache(c->sk, AF_UNSPEC, &c->links) < 0 ||
        rtnl_addr_alloc_cache(c->sk, &c->addrs) < 0) {
        caches_free(c);
        return -EIO;
    }
    return 0;
}

static void fill_addresses(struct nl_cache *addrs, int ifindex, struct netdev_info *nd)
{
    nd->addresses_known = true;
    nd->n_addrs = 0;
    for (struct nl_object *o = nl_cache_get_first(addrs); o; o = nl_cache_get_next(o)) {
        struct rtnl_addr *a = (struct rtnl_addr *)o;
        struct nl_addr *local = rtnl_addr_get_local(a);
        if (rtnl_addr_get_ifindex(a) != ifindex || !local || nd->n_addrs >= INV_MAX_ADDRS)
            continue;
        struct ip_address *ip = &nd->addrs[nd->n_addrs];
        ip->family = nl_addr_get_family(local);
        unsigned len = nl_addr_get_len(local);
        if ((ip->family != AF_INET && ip->family != AF_INET6) || len > 16)
            continue;
        memset(ip->addr, 0, sizeof(ip->addr));
        memcpy(ip->addr, nl_addr_get_binary_addr(local), len);
        ip->prefix_len = (uint8_t)rtnl_addr_get_prefixlen(a);
        nd->n_addrs++;
    }
}

static int fill_one(struct caches *c, struct netdev_info *nd)
{
    char buf[32];
    struct rtnl_link *l = rtnl_link_get_by_name(c->links, nd->name);
    if (!l) {
        nd->present = false;
        return -ENODEV;
    }
    nd->present = true;
    snprintf(nd->operstate, sizeof(nd->operstate), "%s",
             rtnl_link_operstate2str(rtnl_link_get_operstate(l), buf, sizeof(buf)));
    nd->carrier = rtnl_link_get_carrier(l);
    nd->mtu = rtnl_link_get_mtu(l);
    uint32_t changes;
    if (rtnl_link_get_carrier_changes(l, &changes) == 0) {
        nd->has_carrier_changes = true;
        nd->carrier_changes = changes;
    }
    fill_addresses(c->addrs, rtnl_link_get_ifindex(l), nd);
    rtnl_link_put(l);
    return 0;
}

int source_rtnl_netdev(struct netdev_info *nd)
{
    struct caches c;
    int err = caches_load(&c);
    if (err < 0)
        return err;
    err = fill_one(&c, nd);
    caches_free(&c);
    return err;
}

void source_rtnl_fill(struct inventory *inv)
{
    struct caches c;
    if (inv->n_rails == 0)
        return;
    if (caches_load(&c) < 0) {
        inventory_note(inv, "rtnetlink unavailable; netdev state unknown");
        return;
    }
    for (size_t i = 0; i < inv->n_rails; i++)
        if (inv->rails[i].netdev.name[0])
            (void)fill_one(&c, &inv->rails[i].netdev);
    caches_free(&c);
}
