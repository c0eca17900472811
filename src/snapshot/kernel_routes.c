/* SPDX-License-Identifier: ISC */
/* A netdev's routing conversation with the kernel on a libnl nl_sock: the requests that
 * "ip link show", "ip addr show", "ip rule", "ip route show table all dev IF",
 * "ip neigh show dev IF" and "ip route get DST from SRC [oif IF]" send, each kept with
 * the kernel's replies as raw bytes. Only the destinations' IPv4 addresses are read back
 * here (gateways, neighbours); sources/route_parse.c parses the rest. */
#include "config.h"

#include <errno.h>
#include <linux/fib_rules.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "kernel_routes.h"
#include "macro.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* A dump past this is not a rail's: a capture stops there (a router's full table). */
#define CAPTURE_MAX (8u << 20)

void kernel_capture_done(struct kernel_capture *c)
{
    free(c->buf);
    *c = (struct kernel_capture){ 0 };
}

static int append(struct kernel_capture *c, const struct nlmsghdr *h)
{
    size_t n = NLMSG_ALIGN(h->nlmsg_len);
    if (c->len + n > CAPTURE_MAX)
        return -E2BIG;
    if (c->len + n > c->cap) {
        size_t cap = c->cap ? c->cap : 16384;
        while (cap < c->len + n)
            cap *= 2;
        unsigned char *b = realloc(c->buf, cap);
        if (!b)
            return -ENOMEM;
        c->buf = b;
        c->cap = cap;
    }
    memset(c->buf + c->len, 0, n);
    memcpy(c->buf + c->len, h, h->nlmsg_len);
    c->len += n;
    return 0;
}

struct dests {
    uint32_t a[KERNEL_ROUTES_MAX_DSTS];
    size_t n;
};

static void dest_add(struct dests *d, uint32_t a)
{
    if (!a)
        return;
    for (size_t i = 0; i < d->n; i++)
        if (d->a[i] == a)
            return;
    if (d->n < ARRAY_SIZE(d->a))
        d->a[d->n++] = a;
}

/* What one exchange learns on the way: the link's ifindex, its first IPv4 address, the
 * gateways of its routes and its neighbours' addresses. */
struct learned {
    int ifindex;
    uint32_t addr;
    struct dests *dests;
    bool neighbours;            /* IFNAME's neighbours are destinations */
    bool any_neighbour;         /* so are every netdev's (an unfiltered dump) */
};

static uint32_t attr_in4(struct nlmsghdr *h, int hdrlen, int type)
{
    struct nlattr *a = nlmsg_find_attr(h, hdrlen, type);
    uint32_t v = 0;
    if (a && nla_len(a) == 4)
        memcpy(&v, nla_data(a), 4);
    return v;
}

static void learn(struct nlmsghdr *h, struct learned *l)
{
    if (h->nlmsg_type == RTM_NEWLINK && nlmsg_valid_hdr(h, sizeof(struct ifinfomsg))) {
        l->ifindex = ((struct ifinfomsg *)nlmsg_data(h))->ifi_index;
    } else if (h->nlmsg_type == RTM_NEWADDR && nlmsg_valid_hdr(h, sizeof(struct ifaddrmsg))) {
        struct ifaddrmsg *ifa = nlmsg_data(h);
        if (ifa->ifa_family == AF_INET && (int)ifa->ifa_index == l->ifindex && !l->addr)
            l->addr = attr_in4(h, sizeof(*ifa), IFA_LOCAL);
    } else if (h->nlmsg_type == RTM_NEWROUTE && nlmsg_valid_hdr(h, sizeof(struct rtmsg))) {
        struct nlattr *oif = nlmsg_find_attr(h, sizeof(struct rtmsg), RTA_OIF);
        if (oif && nla_len(oif) == 4 && (int)nla_get_u32(oif) == l->ifindex)
            dest_add(l->dests, attr_in4(h, sizeof(struct rtmsg), RTA_GATEWAY));
    } else if (h->nlmsg_type == RTM_NEWNEIGH && l->neighbours &&
               nlmsg_valid_hdr(h, sizeof(struct ndmsg))) {
        struct ndmsg *nd = nlmsg_data(h);
        if (nd->ndm_family == AF_INET && (nd->ndm_ifindex == l->ifindex || l->any_neighbour))
            dest_add(l->dests, attr_in4(h, sizeof(*nd), NDA_DST));
    }
}

/* Sends MSG, keeps it and every reply until the dump's NLMSG_DONE (or the one reply). */
static int exchange(struct nl_sock *sk, struct nl_msg *msg, bool dump, struct kernel_capture *c,
                    struct learned *l)
{
    struct sockaddr_nl peer;
    int r = nl_send_auto(sk, msg);
    if (r < 0)
        return -EIO;
    if ((r = append(c, nlmsg_hdr(msg))) < 0)
        return r;
    for (;;) {
        unsigned char *buf = NULL;
        int n = nl_recv(sk, &peer, &buf, NULL);
        if (n <= 0) {
            free(buf);
            return -EIO;
        }
        bool done = !dump;
        struct nlmsghdr *h = (struct nlmsghdr *)buf;
        for (; nlmsg_ok(h, n); h = nlmsg_next(h, &n)) {
            if (h->nlmsg_seq != nlmsg_hdr(msg)->nlmsg_seq)
                continue;
            if ((r = append(c, h)) < 0) {
                free(buf);
                return r;
            }
            learn(h, l);
            if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
                done = true;
        }
        free(buf);
        if (done)
            return 0;
    }
}

static struct nl_msg *request(int type, int flags, const void *hdr, size_t len)
{
    struct nl_msg *m = nlmsg_alloc_simple(type, NLM_F_REQUEST | flags);
    if (m && nlmsg_append(m, (void *)hdr, len, NLMSG_ALIGNTO) < 0) {
        nlmsg_free(m);
        return NULL;
    }
    return m;
}

static int ask(struct nl_sock *sk, struct nl_msg *m, bool dump, struct kernel_capture *c,
               struct learned *l)
{
    if (!m)
        return -ENOMEM;
    int r = exchange(sk, m, dump, c, l);
    nlmsg_free(m);
    return r;
}

static int route_get(struct nl_sock *sk, uint32_t dst, uint32_t src, int oif,
                     struct kernel_capture *c, struct learned *l)
{
    struct rtmsg rtm = { .rtm_family = AF_INET, .rtm_dst_len = 32, .rtm_src_len = src ? 32 : 0 };
    struct nl_msg *m = request(RTM_GETROUTE, 0, &rtm, sizeof(rtm));
    if (m && (nla_put(m, RTA_DST, 4, &dst) < 0 || (src && nla_put(m, RTA_SRC, 4, &src) < 0) ||
              (oif && nla_put_u32(m, RTA_OIF, (uint32_t)oif) < 0))) {
        nlmsg_free(m);
        m = NULL;
    }
    return ask(sk, m, false, c, l);
}

static int capture(struct nl_sock *sk, const char *ifname, uint32_t src, const uint32_t *dsts,
                   size_t n_dsts, struct learned *l, struct kernel_capture *out)
{
    struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
    struct nl_msg *m = request(RTM_GETLINK, 0, &ifi, sizeof(ifi));
    if (m && nla_put_string(m, IFLA_IFNAME, ifname) < 0) {
        nlmsg_free(m);
        m = NULL;
    }
    int r = ask(sk, m, false, out, l);
    if (r < 0)
        return r;
    if (l->ifindex <= 0)
        return -ENODEV;
    struct ifaddrmsg ifa = { .ifa_family = AF_INET, .ifa_index = (unsigned)l->ifindex };
    if ((r = ask(sk, request(RTM_GETADDR, NLM_F_DUMP, &ifa, sizeof(ifa)), true, out, l)) < 0)
        return r;
    struct fib_rule_hdr frh = { .family = AF_INET };
    if ((r = ask(sk, request(RTM_GETRULE, NLM_F_DUMP, &frh, sizeof(frh)), true, out, l)) < 0)
        return r;
    struct rtmsg rtm = { .rtm_family = AF_INET };
    m = request(RTM_GETROUTE, NLM_F_DUMP, &rtm, sizeof(rtm));
    if (m && nla_put_u32(m, RTA_OIF, (uint32_t)l->ifindex) < 0) {
        nlmsg_free(m);
        m = NULL;
    }
    if ((r = ask(sk, m, true, out, l)) < 0)
        return r;
    /* The kernel filters a neighbour dump by NDA_IFINDEX; a strict one refuses ndm_ifindex. */
    struct ndmsg ndm = { .ndm_family = AF_INET };
    m = request(RTM_GETNEIGH, NLM_F_DUMP, &ndm, sizeof(ndm));
    if (m && nla_put_u32(m, NDA_IFINDEX, (uint32_t)l->ifindex) < 0) {
        nlmsg_free(m);
        m = NULL;
    }
    if ((r = ask(sk, m, true, out, l)) < 0)
        return r;
    /* Without a policy (a snapshot), the peers are whoever any rail has talked to: every
     * netdev's neighbours are asked about from this one too, so that a rail whose traffic
     * left by another still has its lookups. */
    if (l->neighbours) {
        l->any_neighbour = true;
        r = ask(sk, request(RTM_GETNEIGH, NLM_F_DUMP, &ndm, sizeof(ndm)), true, out, l);
        l->any_neighbour = false;
        if (r < 0)
            return r;
    }
    for (size_t i = 0; i < n_dsts; i++)
        dest_add(l->dests, dsts[i]);
    if (!src)
        src = l->addr;
    for (size_t i = 0; i < l->dests->n; i++)
        if ((r = route_get(sk, l->dests->a[i], src, 0, out, l)) < 0 ||
            (r = route_get(sk, l->dests->a[i], src, l->ifindex, out, l)) < 0)
            return r;
    return 0;
}

int kernel_routes_capture(const char *ifname, uint32_t src, const uint32_t *dsts, size_t n_dsts,
                          bool with_neighbours, struct kernel_capture *out, char *why,
                          size_t whylen)
{
    struct dests *d = calloc(1, sizeof(*d));
    struct nl_sock *sk = nl_socket_alloc();
    int one = 1, r;
    if (!d || !sk) {
        r = -ENOMEM;
        snprintf(why, whylen, "out of memory");
        goto out;
    }
    nl_socket_disable_auto_ack(sk);
    if (nl_connect(sk, NETLINK_ROUTE) < 0) {
        r = -EIO;
        snprintf(why, whylen, "cannot open an rtnetlink socket");
        goto out;
    }
    /* Dumps filtered by the kernel (Linux 4.20+); older kernels dump all, parsed the same. */
    (void)setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one, sizeof(one));
    struct timeval tv = { .tv_sec = 2 };
    (void)setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    struct learned l = { .dests = d, .neighbours = with_neighbours };
    r = capture(sk, ifname, src, dsts, n_dsts, &l, out);
    if (r == -ENODEV)
        snprintf(why, whylen, "netdev %s does not exist", ifname);
    else if (r == -E2BIG)
        snprintf(why, whylen, "the routing replies for %s exceed %u bytes", ifname, CAPTURE_MAX);
    else if (r < 0)
        snprintf(why, whylen, "rtnetlink did not answer about %s", ifname);
out:
    nl_socket_free(sk);
    free(d);
    return r;
}
