/* SPDX-License-Identifier: ISC */
/* A netdev's routing conversation, parsed: each message checked against its fixed header's
 * length and each attribute against its type's length (libnl's nlmsg_parse with a policy),
 * so a truncated or hostile capture yields fewer entries, never a wrong one. */
#include "config.h"

#include <errno.h>
#include <linux/fib_rules.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "macro.h"
#include "route_parse.h"

#define ATTR_MAX 64     /* above every RTA_, FRA_, NDA_, IFA_ and IFLA_ type read here */

/* The request a reply answers: the last RTM_GETROUTE request without NLM_F_DUMP. */
struct pending {
    bool asked;
    uint32_t seq, dst, src;
    int oif;
};

static bool in4(struct nlattr *a, uint32_t *v)
{
    if (!a || nla_len(a) != 4)
        return false;
    memcpy(v, nla_data(a), 4);
    return true;
}

static uint32_t u32_or(struct nlattr *a, uint32_t dflt)
{
    uint32_t v;
    return in4(a, &v) ? v : dflt;
}

static int attrs(struct nlmsghdr *h, size_t hdrlen, struct nlattr **tb)
{
    if (!nlmsg_valid_hdr(h, (int)hdrlen))
        return -EBADMSG;
    return nlmsg_parse(h, (int)hdrlen, tb, ATTR_MAX, NULL) < 0 ? -EBADMSG : 0;
}

static void on_link(struct nlmsghdr *h, struct rail_routes *rr)
{
    struct nlattr *tb[ATTR_MAX + 1];
    if (rr->ifindex || attrs(h, sizeof(struct ifinfomsg), tb) < 0)
        return;
    rr->ifindex = ((struct ifinfomsg *)nlmsg_data(h))->ifi_index;
    if (tb[IFLA_ADDRESS] && nla_len(tb[IFLA_ADDRESS]) == 6) {
        memcpy(rr->mac, nla_data(tb[IFLA_ADDRESS]), 6);
        rr->has_mac = true;
    }
}

static void on_addr(struct nlmsghdr *h, struct rail_routes *rr)
{
    struct nlattr *tb[ATTR_MAX + 1];
    uint32_t a;
    if (attrs(h, sizeof(struct ifaddrmsg), tb) < 0)
        return;
    struct ifaddrmsg *ifa = nlmsg_data(h);
    if (ifa->ifa_family != AF_INET || (int)ifa->ifa_index != rr->ifindex || ifa->ifa_prefixlen > 32 ||
        !(in4(tb[IFA_LOCAL], &a) || in4(tb[IFA_ADDRESS], &a)) || rr->n_addrs >= ARRAY_SIZE(rr->addrs))
        return;
    rr->addr_prefix[rr->n_addrs] = ifa->ifa_prefixlen;
    rr->addrs[rr->n_addrs++] = a;
}

static void on_get_route(struct nlmsghdr *h, struct pending *q)
{
    struct nlattr *tb[ATTR_MAX + 1];
    *q = (struct pending){ 0 };
    if (!(h->nlmsg_flags & NLM_F_REQUEST) || (h->nlmsg_flags & NLM_F_DUMP) ||
        attrs(h, sizeof(struct rtmsg), tb) < 0 || !in4(tb[RTA_DST], &q->dst))
        return;
    (void)in4(tb[RTA_SRC], &q->src);
    q->oif = (int)u32_or(tb[RTA_OIF], 0);
    q->seq = h->nlmsg_seq;
    q->asked = true;
}

static int add_lookup(struct rail_routes *rr, const struct route_lookup *l)
{
    if (rr->n_lookups >= ROUTES_MAX_LOOKUPS)
        return -E2BIG;
    struct route_lookup *t = realloc(rr->lookups, (rr->n_lookups + 1) * sizeof(*t));
    if (!t)
        return -ENOMEM;
    rr->lookups = t;
    rr->lookups[rr->n_lookups++] = *l;
    if (!rr->addr && l->src)
        rr->addr = l->src;
    return 0;
}

static void on_new_route(struct nlmsghdr *h, struct pending *q, struct rail_routes *rr)
{
    struct nlattr *tb[ATTR_MAX + 1];
    if (attrs(h, sizeof(struct rtmsg), tb) < 0)
        return;
    struct rtmsg *rtm = nlmsg_data(h);
    if (rtm->rtm_family != AF_INET)
        return;
    uint32_t table = u32_or(tb[RTA_TABLE], rtm->rtm_table);
    if (q->asked && h->nlmsg_seq == q->seq) {
        struct route_lookup l = { .dst = q->dst, .src = q->src, .oif_asked = q->oif,
                                  .oif = (int)u32_or(tb[RTA_OIF], 0), .table = table,
                                  .type = rtm->rtm_type };
        (void)in4(tb[RTA_GATEWAY], &l.gateway);
        (void)in4(tb[RTA_PREFSRC], &l.prefsrc);
        (void)add_lookup(rr, &l);
        q->asked = false;
        return;
    }
    if ((int)u32_or(tb[RTA_OIF], 0) != rr->ifindex || !rr->ifindex ||
        rr->n_routes >= ROUTES_MAX_ROUTES || rtm->rtm_dst_len > 32)
        return;
    struct route_entry *e = realloc(rr->routes, (rr->n_routes + 1) * sizeof(*e));
    if (!e)
        return;
    rr->routes = e;
    e = &rr->routes[rr->n_routes++];
    *e = (struct route_entry){ .dst_len = rtm->rtm_dst_len, .table = table, .type = rtm->rtm_type };
    (void)in4(tb[RTA_DST], &e->dst);
    (void)in4(tb[RTA_GATEWAY], &e->gateway);
    (void)in4(tb[RTA_PREFSRC], &e->prefsrc);
}

static void on_error(struct nlmsghdr *h, struct pending *q, struct rail_routes *rr)
{
    if (!nlmsg_valid_hdr(h, sizeof(struct nlmsgerr)) || !q->asked || h->nlmsg_seq != q->seq)
        return;
    const struct nlmsgerr *e = nlmsg_data(h);
    struct route_lookup l = { .dst = q->dst, .src = q->src, .oif_asked = q->oif,
                              .err = e->error < 0 && e->error > -4096 ? e->error : -EIO };
    (void)add_lookup(rr, &l);
    q->asked = false;
}

static void name_of(struct nlattr *a, char *buf, size_t len)
{
    if (a && nla_len(a) > 0)
        nla_strlcpy(buf, a, len);
}

static void on_rule(struct nlmsghdr *h, struct rail_routes *rr)
{
    struct nlattr *tb[ATTR_MAX + 1];
    if (attrs(h, sizeof(struct fib_rule_hdr), tb) < 0 || rr->n_rules >= ROUTES_MAX_RULES)
        return;
    struct fib_rule_hdr *f = nlmsg_data(h);
    if (f->family != AF_INET || f->src_len > 32 || f->dst_len > 32)
        return;
    struct route_rule *r = realloc(rr->rules, (rr->n_rules + 1) * sizeof(*r));
    if (!r)
        return;
    rr->rules = r;
    r = &rr->rules[rr->n_rules++];
    *r = (struct route_rule){ .priority = u32_or(tb[FRA_PRIORITY], 0), .src_len = f->src_len,
                              .dst_len = f->dst_len, .table = u32_or(tb[FRA_TABLE], f->table),
                              .action = f->action };
    (void)in4(tb[FRA_SRC], &r->src);
    (void)in4(tb[FRA_DST], &r->dst);
    name_of(tb[FRA_IFNAME], r->iif, sizeof(r->iif));
    name_of(tb[FRA_OIFNAME], r->oif, sizeof(r->oif));
}

static void on_neigh(struct nlmsghdr *h, struct rail_routes *rr)
{
    struct nlattr *tb[ATTR_MAX + 1];
    uint32_t a;
    if (attrs(h, sizeof(struct ndmsg), tb) < 0 || rr->n_neigh >= ROUTES_MAX_NEIGH)
        return;
    struct ndmsg *nd = nlmsg_data(h);
    if (nd->ndm_family != AF_INET || nd->ndm_ifindex != rr->ifindex || !rr->ifindex ||
        !in4(tb[NDA_DST], &a))
        return;
    for (size_t i = 0; i < rr->n_neigh; i++)
        if (rr->neigh[i].addr == a)
            return;         /* a snapshot's second, unfiltered dump */
    struct neigh_entry *n = realloc(rr->neigh, (rr->n_neigh + 1) * sizeof(*n));
    if (!n)
        return;
    rr->neigh = n;
    n = &rr->neigh[rr->n_neigh++];
    *n = (struct neigh_entry){ .addr = a, .ifindex = nd->ndm_ifindex, .state = nd->ndm_state };
    if (tb[NDA_LLADDR] && nla_len(tb[NDA_LLADDR]) == 6) {
        memcpy(n->mac, nla_data(tb[NDA_LLADDR]), 6);
        n->has_mac = true;
    }
}

int route_parse_stream(const void *buf, size_t len, struct rail_routes *rr)
{
    struct pending q = { 0 };
    int rem = len > (size_t)1 << 30 ? 1 << 30 : (int)len;
    struct nlmsghdr *h = (struct nlmsghdr *)buf;
    rr->known = true;
    for (; nlmsg_ok(h, rem); h = nlmsg_next(h, &rem)) {
        switch (h->nlmsg_type) {
        case RTM_NEWLINK: on_link(h, rr); break;
        case RTM_NEWADDR: on_addr(h, rr); break;
        case RTM_GETROUTE: on_get_route(h, &q); break;
        case RTM_NEWROUTE: on_new_route(h, &q, rr); break;
        case NLMSG_ERROR: on_error(h, &q, rr); break;
        case RTM_NEWRULE: on_rule(h, rr); break;
        case RTM_NEWNEIGH: on_neigh(h, rr); break;
        default: break;
        }
    }
    if (!rr->addr && rr->n_addrs) {
        rr->addr = rr->addrs[0];
        rr->prefix_len = rr->addr_prefix[0];
    }
    for (size_t i = 0; i < rr->n_addrs; i++)
        if (rr->addrs[i] == rr->addr)
            rr->prefix_len = rr->addr_prefix[i];
    if (rem >= (int)sizeof(struct nlmsghdr) || (rem > 0 && rem != (int)(len & 3))) {
        snprintf(rr->why, sizeof(rr->why), "a malformed netlink message at byte %zu of %zu",
                 len - (size_t)rem, len);
        return -EBADMSG;
    }
    return 0;
}
