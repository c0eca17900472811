/* SPDX-License-Identifier: ISC */
/* The rtnetlink source, through libnl-route, asking only for the rails' netdevs: one
 * RTM_GETLINK per netdev (rtnl_link_get_kernel), and one RTM_GETADDR dump per netdev that
 * the kernel filters by ifa_index (NETLINK_GET_STRICT_CHK, Linux 4.20+). A node with
 * thousands of interfaces (containers' veths) costs the same as one with eight. Without
 * strict checking the address dump holds every interface's, and is filtered here. */
#include "config.h"

#include <errno.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netlink/cache.h>
#include <netlink/msg.h>
#include <netlink/object.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <string.h>
#include <sys/socket.h>

#include "log.h"
#include "macro.h"
#include "source_rtnl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

static struct nl_sock *rtnl_connect(void)
{
    struct nl_sock *sk = nl_socket_alloc();
    int one = 1;
    if (!sk)
        return NULL;
    if (nl_connect(sk, NETLINK_ROUTE) < 0) {
        nl_socket_free(sk);
        return NULL;
    }
    /* Filtered dumps; an older kernel refuses the option and dumps everything. */
    (void)setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one, sizeof(one));
    return sk;
}

static void add_address(struct rtnl_addr *a, int ifindex, struct netdev_info *nd)
{
    struct nl_addr *local = rtnl_addr_get_local(a);
    if (rtnl_addr_get_ifindex(a) != ifindex || !local || nd->n_addrs >= INV_MAX_ADDRS)
        return;
    struct ip_address *ip = &nd->addrs[nd->n_addrs];
    ip->family = nl_addr_get_family(local);
    unsigned len = nl_addr_get_len(local);
    if ((ip->family != AF_INET && ip->family != AF_INET6) || len > 16)
        return;
    memset(ip->addr, 0, sizeof(ip->addr));
    memcpy(ip->addr, nl_addr_get_binary_addr(local), len);
    ip->prefix_len = (uint8_t)rtnl_addr_get_prefixlen(a);
    nd->n_addrs++;
}

/* The addresses of one interface: a dump the kernel filters by ifa_index. */
static int fill_addresses(struct nl_sock *sk, int ifindex, struct netdev_info *nd)
{
    struct ifaddrmsg ifa = { .ifa_family = AF_UNSPEC, .ifa_index = (unsigned)ifindex };
    struct nl_cache *addrs;
    if (nl_cache_alloc_name("route/addr", &addrs) < 0)     /* empty: no dump yet */
        return -EIO;
    if (nl_send_simple(sk, RTM_GETADDR, NLM_F_DUMP, &ifa, sizeof(ifa)) < 0 ||
        nl_cache_pickup(sk, addrs) < 0) {
        nl_cache_free(addrs);
        return -EIO;
    }
    nd->addresses_known = true;
    nd->n_addrs = 0;
    for (struct nl_object *o = nl_cache_get_first(addrs); o; o = nl_cache_get_next(o))
        add_address((struct rtnl_addr *)o, ifindex, nd);
    nl_cache_free(addrs);
    return 0;
}

static void from_link(struct rtnl_link *l, struct netdev_info *nd)
{
    char buf[32];
    uint32_t changes;
    nd->present = true;
    snprintf(nd->operstate, sizeof(nd->operstate), "%s",
             rtnl_link_operstate2str(rtnl_link_get_operstate(l), buf, sizeof(buf)));
    nd->carrier = rtnl_link_get_carrier(l);
    nd->mtu = rtnl_link_get_mtu(l);
    if (rtnl_link_get_carrier_changes(l, &changes) == 0) {
        nd->has_carrier_changes = true;
        nd->carrier_changes = changes;
    }
}

static int fill_one(struct nl_sock *sk, struct netdev_info *nd)
{
    struct rtnl_link *l = NULL;
    int r = rtnl_link_get_kernel(sk, 0, nd->name, &l);
    if (r == -NLE_OBJ_NOTFOUND || r == -NLE_NODEV) {
        nd->present = false;
        return -ENODEV;
    }
    if (r < 0)
        return -EIO;
    from_link(l, nd);
    r = fill_addresses(sk, rtnl_link_get_ifindex(l), nd);
    rtnl_link_put(l);
    return r;
}

int source_rtnl_netdev(struct netdev_info *nd)
{
    struct nl_sock *sk = rtnl_connect();
    if (!sk)
        return -EIO;
    int err = fill_one(sk, nd);
    nl_socket_free(sk);
    return err;
}

void source_rtnl_fill(struct inventory *inv)
{
    struct nl_sock *sk;
    if (inv->n_rails == 0)
        return;
    if (!(sk = rtnl_connect())) {
        inventory_note(inv, "rtnetlink unavailable; netdev state unknown");
        return;
    }
    for (size_t i = 0; i < inv->n_rails; i++)
        if (inv->rails[i].netdev.name[0])
            (void)fill_one(sk, &inv->rails[i].netdev);
    nl_socket_free(sk);
}

struct parsed {
    struct netdev_info *nd;
    int ifindex;
};

static void on_object(struct nl_object *o, void *arg)
{
    struct parsed *p = arg;
    const char *type = nl_object_get_type(o);
    if (type && streq(type, "route/link"))
        from_link((struct rtnl_link *)o, p->nd);
    else if (type && streq(type, "route/addr"))
        add_address((struct rtnl_addr *)o, p->ifindex, p->nd);
}

int source_rtnl_parse(const struct nlmsghdr *h, int ifindex, struct netdev_info *nd)
{
    struct parsed p = { .nd = nd, .ifindex = ifindex };
    struct nl_msg *msg = nlmsg_convert((struct nlmsghdr *)h);
    if (!msg)
        return -ENOMEM;
    nlmsg_set_proto(msg, NETLINK_ROUTE);
    int r = nl_msg_parse(msg, on_object, &p);
    nlmsg_free(msg);
    return r < 0 ? -EINVAL : 0;
}
