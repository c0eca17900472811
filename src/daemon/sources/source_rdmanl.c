/* SPDX-License-Identifier: ISC */
/* The RDMA netlink source, on a libnl nl_sock (NETLINK_RDMA), the way rdma-core's
 * util/rdma_nl.c and iproute2's "rdma link" ask the kernel for ports and their netdevs. */
#include "config.h"

#include <errno.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <rdma/rdma_netlink.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "log.h"
#include "macro.h"
#include "strutil.h"
#include "source_rdmanl.h"

struct dump {
    struct rdmanl_port *ports;
    size_t n, cap;
    int err;
};

static struct nla_policy nldev_policy[RDMA_NLDEV_ATTR_MAX] = {
    [RDMA_NLDEV_ATTR_DEV_INDEX] = { .type = NLA_U32 },
    [RDMA_NLDEV_ATTR_DEV_NAME] = { .type = NLA_NUL_STRING },
    [RDMA_NLDEV_ATTR_PORT_INDEX] = { .type = NLA_U32 },
    [RDMA_NLDEV_ATTR_NDEV_INDEX] = { .type = NLA_U32 },
    [RDMA_NLDEV_ATTR_NDEV_NAME] = { .type = NLA_NUL_STRING },
};

int source_rdmanl_parse_port(struct nlmsghdr *h, struct rdmanl_port *p)
{
    struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = { 0 };
    if (nlmsg_parse(h, 0, tb, RDMA_NLDEV_ATTR_MAX - 1, nldev_policy) < 0 ||
        !tb[RDMA_NLDEV_ATTR_DEV_NAME] || !tb[RDMA_NLDEV_ATTR_PORT_INDEX])
        return -EINVAL;
    memset(p, 0, sizeof(*p));
    /* nla_strlcpy, bounded by the attribute: libnl's NLA_NUL_STRING policy does not check
     * the NUL, and a name without one was read past its end (fuzz_netlink found it). */
    nla_strlcpy(p->device, tb[RDMA_NLDEV_ATTR_DEV_NAME], sizeof(p->device));
    p->port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
    if (tb[RDMA_NLDEV_ATTR_NDEV_NAME])
        nla_strlcpy(p->netdev, tb[RDMA_NLDEV_ATTR_NDEV_NAME], sizeof(p->netdev));
    return 0;
}

static int on_port(struct nl_msg *msg, void *arg)
{
    struct dump *d = arg;
    struct rdmanl_port port;
    if (source_rdmanl_parse_port(nlmsg_hdr(msg), &port) < 0)
        return NL_SKIP;
    int r = GROW_ARRAY(d->ports, d->cap, d->n + 1, RDMANL_MAX_PORTS);
    if (r < 0) {
        d->err = r;
        return NL_STOP;
    }
    d->ports[d->n++] = port;
    return NL_OK;
}

int source_rdmanl_ports(struct rdmanl_port **ret)
{
    struct dump d = { 0 };
    struct nl_sock *sk = nl_socket_alloc();
    if (!sk)
        return -ENOMEM;

    int err = nl_connect(sk, NETLINK_RDMA);
    if (err < 0) {
        err = err == -NLE_PROTO_MISMATCH || err == -NLE_NOADDR ? -EPROTONOSUPPORT : -EIO;
        goto out;
    }
    err = nl_send_simple(sk, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET),
                         NLM_F_DUMP, NULL, 0);
    if (err < 0) {
        err = -EIO;
        goto out;
    }
    nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_port, &d);
    err = nl_recvmsgs_default(sk);
    err = d.err ? d.err : err < 0 ? -EIO : 0;
out:
    nl_socket_free(sk);
    if (err < 0) {
        free(d.ports);
        return err;
    }
    *ret = d.ports;
    return (int)d.n;
}

void source_rdmanl_fill(struct inventory *inv)
{
    struct rdmanl_port *ports = NULL;
    int n = source_rdmanl_ports(&ports);
    if (n < 0) {
        if (inv->n_rails)
            inventory_note(inv, "RDMA netlink unavailable (%s); netdevs from sysfs", errno_text(-n));
        return;
    }
    for (size_t i = 0; i < inv->n_rails; i++) {
        struct rail *r = &inv->rails[i];
        for (int j = 0; j < n; j++) {
            if (!streq(ports[j].device, r->device) || ports[j].port != r->port || !ports[j].netdev[0])
                continue;
            if (r->netdev.name[0] && !streq(r->netdev.name, ports[j].netdev))
                inventory_note(inv, "%s: RDMA netlink binds netdev %s, sysfs GIDs name %s",
                               r->name, ports[j].netdev, r->netdev.name);
            strscpy(r->netdev.name, ports[j].netdev, sizeof(r->netdev.name));
        }
    }
    free(ports);
}
