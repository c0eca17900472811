/* SPDX-License-Identifier: ISC */
/* Event sources: rtnetlink link and address notifications (libnl), and each RDMA device's
 * verbs async fd (PORT_ERR, PORT_ACTIVE, GID_CHANGE, DEVICE_FATAL). An event about a
 * rail (its netdev, its device) has the manager re-check at once; the check reads the
 * sources anew. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "log.h"
#include "macro.h"
#include "source_verbs.h"
#include "strutil.h"

#define MAX_WATCHED 64

struct events;

struct device_watch {
    struct events *ev;
    char name[INV_NAME_MAX];
    struct ibv_context *ctx;
    sd_event_source *src;
    bool seen;                  /* still in the latest inventory */
};

struct events {
    sd_event *event;
    events_changed_fn changed;
    void *userdata;
    struct nl_sock *rtnl;
    sd_event_source *rtnl_src;
    struct device_watch dev[MAX_WATCHED];
    /* The rails' netdevs: only their link and address changes warrant a re-check. */
    char netdevs[MAX_WATCHED][IFNAMSIZ];
    size_t n_netdevs;
    bool any_netdev;            /* no rails, or one whose netdev is unknown: every change */
};

/* The interface a link or address message is about: "" when it does not say. */
static void message_ifname(struct nlmsghdr *h, char *buf)
{
    buf[0] = '\0';
    if (h->nlmsg_type == RTM_NEWLINK || h->nlmsg_type == RTM_DELLINK) {
        struct nlattr *a = nlmsg_find_attr(h, sizeof(struct ifinfomsg), IFLA_IFNAME);
        if (a)
            nla_strlcpy(buf, a, IFNAMSIZ);
    } else if ((h->nlmsg_type == RTM_NEWADDR || h->nlmsg_type == RTM_DELADDR) &&
               nlmsg_datalen(h) >= (int)sizeof(struct ifaddrmsg)) {
        const struct ifaddrmsg *ifa = nlmsg_data(h);
        if (!if_indextoname(ifa->ifa_index, buf))
            buf[0] = '\0';
    }
}

static bool about_a_rail(const struct events *ev, struct nlmsghdr *h)
{
    char name[IFNAMSIZ];
    if (ev->any_netdev)
        return true;
    message_ifname(h, name);
    if (!name[0])
        return true;            /* an address of an interface already gone: look again */
    for (size_t i = 0; i < ev->n_netdevs; i++)
        if (streq(ev->netdevs[i], name))
            return true;
    return false;
}

static int on_rtnl_msg(struct nl_msg *msg, void *arg)
{
    struct events *ev = arg;
    struct nlmsghdr *h = nlmsg_hdr(msg);
    if (!about_a_rail(ev, h))
        return NL_OK;
    log_debug("events", "rtnetlink event %u", h->nlmsg_type);
    ev->changed(ev->userdata);
    return NL_OK;
}

static int on_rtnl(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
    struct events *ev = userdata;
    int r = nl_recvmsgs_default(ev->rtnl);
    if (r < 0 && r != -NLE_AGAIN)
        log_debug("events", "rtnetlink: %s", nl_geterror(r));
    return 0;
}

static int rtnl_open(struct events *ev)
{
    if (!(ev->rtnl = nl_socket_alloc()))
        return -ENOMEM;
    nl_socket_disable_seq_check(ev->rtnl);
    nl_socket_modify_cb(ev->rtnl, NL_CB_VALID, NL_CB_CUSTOM, on_rtnl_msg, ev);
    if (nl_connect(ev->rtnl, NETLINK_ROUTE) < 0 ||
        nl_socket_add_memberships(ev->rtnl, RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR,
                                  RTNLGRP_IPV6_IFADDR, 0) < 0 ||
        nl_socket_set_nonblocking(ev->rtnl) < 0)
        return -EIO;
    return sd_event_add_io(ev->event, &ev->rtnl_src, nl_socket_get_fd(ev->rtnl), EPOLLIN,
                           on_rtnl, ev);
}

static void unwatch(struct device_watch *w)
{
    sd_event_source_unref(w->src);
    if (w->ctx)
        ibv_close_device(w->ctx);
    memset(w, 0, sizeof(*w));
}

static int on_async(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
    struct device_watch *w = userdata;
    struct ibv_async_event e;
    bool fatal = false;
    while (ibv_get_async_event(w->ctx, &e) == 0) {
        log_debug("events", "%s: %s", w->name, ibv_event_type_str(e.event_type));
        fatal |= e.event_type == IBV_EVENT_DEVICE_FATAL;
        ibv_ack_async_event(&e);
    }
    struct events *ev = w->ev;
    if (fatal) {
        /* The device is gone or being reset: reopen it after the next inventory. */
        log_warning("%s: fatal device event", w->name);
        unwatch(w);
    }
    ev->changed(ev->userdata);
    return 0;
}

static void watch(struct events *ev, struct device_watch *w, const char *name)
{
    char why[256];
    if (verbs_open(name, &w->ctx, why, sizeof(why)) < 0) {
        log_debug("events", "No async events for %s: %s", name, why);
        return;
    }
    int flags = fcntl(w->ctx->async_fd, F_GETFL);
    if (fcntl(w->ctx->async_fd, F_SETFL, flags | O_NONBLOCK) < 0 ||
        sd_event_add_io(ev->event, &w->src, w->ctx->async_fd, EPOLLIN, on_async, w) < 0) {
        unwatch(w);
        return;
    }
    w->ev = ev;
    strscpy(w->name, name, sizeof(w->name));
    w->seen = true;
    log_debug("events", "watching %s's async events", name);
}

/* The rails' netdevs, live or in a --sysfs-root tree whose netdevs are this netns's. */
static void watch_netdevs(struct events *ev, const struct inventory *inv)
{
    ev->n_netdevs = 0;
    ev->any_netdev = inv->n_rails == 0;
    for (size_t r = 0; r < inv->n_rails; r++) {
        const char *name = inv->rails[r].netdev.name;
        if (!name[0] || ev->n_netdevs == MAX_WATCHED)
            ev->any_netdev = true;
        else
            strscpy(ev->netdevs[ev->n_netdevs++], name, IFNAMSIZ);
    }
}

void events_watch_devices(struct events *ev, const struct inventory *inv)
{
    if (!ev)
        return;
    watch_netdevs(ev, inv);
    if (inv->source != INVENTORY_LIVE)
        return;
    for (size_t i = 0; i < MAX_WATCHED; i++)
        ev->dev[i].seen = false;
    for (size_t r = 0; r < inv->n_rails; r++) {
        const char *name = inv->rails[r].device;
        struct device_watch *free_slot = NULL, *w = NULL;
        for (size_t i = 0; i < MAX_WATCHED && !w; i++) {
            if (ev->dev[i].ctx && streq(ev->dev[i].name, name))
                w = &ev->dev[i];
            else if (!ev->dev[i].ctx && !free_slot)
                free_slot = &ev->dev[i];
        }
        if (w)
            w->seen = true;
        else if (free_slot)
            watch(ev, free_slot, name);
    }
    /* Devices that vanished (unregistered, hot-unplugged) are let go. */
    for (size_t i = 0; i < MAX_WATCHED; i++)
        if (ev->dev[i].ctx && !ev->dev[i].seen)
            unwatch(&ev->dev[i]);
}

int events_new(sd_event *event, events_changed_fn changed, void *userdata, struct events **ret)
{
    struct events *ev = calloc(1, sizeof(*ev));
    if (!ev)
        return -ENOMEM;
    ev->event = event;
    ev->changed = changed;
    ev->userdata = userdata;
    int r = rtnl_open(ev);
    if (r < 0)
        log_warning_errno(r, "No rtnetlink events (%m): netdev changes wait for the timer");
    *ret = ev;
    return 0;
}

void events_free(struct events *ev)
{
    if (!ev)
        return;
    for (size_t i = 0; i < MAX_WATCHED; i++)
        if (ev->dev[i].ctx)
            unwatch(&ev->dev[i]);
    sd_event_source_unref(ev->rtnl_src);
    if (ev->rtnl)
        nl_socket_free(ev->rtnl);
    free(ev);
}
