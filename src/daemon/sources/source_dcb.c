/* SPDX-License-Identifier: ISC */
/* DCB netlink on a libnl nl_sock. libnl has no DCB objects: the request is a libnl
 * message carrying a struct dcbmsg and DCB_ATTR_IFNAME (what iproute2's "dcb" tool sends),
 * and the raw reply goes to dcb_parse, the parser the captured fixtures are tested through. */
#include "config.h"

#include <errno.h>
#include <linux/dcbnl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "dcb_parse.h"
#include "source_qos.h"

int source_dcb_fetch(const char *ifname, unsigned char **ret, char *why, size_t whylen)
{
    struct dcbmsg dm = { .dcb_family = AF_UNSPEC, .cmd = DCB_CMD_IEEE_GET };
    struct nl_sock *sk = nl_socket_alloc();
    struct nl_msg *msg = NULL;
    struct sockaddr_nl peer;
    int r;

    if (!sk) {
        snprintf(why, whylen, "out of memory");
        return -ENOMEM;
    }
    nl_socket_disable_auto_ack(sk);
    if (nl_connect(sk, NETLINK_ROUTE) < 0) {
        r = -EIO;
        snprintf(why, whylen, "cannot open an rtnetlink socket");
        goto out;
    }
    /* A driver that never answers must not stall the check cycle. */
    struct timeval tv = { .tv_sec = 2 };
    (void)setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    if (!(msg = nlmsg_alloc_simple(RTM_GETDCB, NLM_F_REQUEST)) ||
        nlmsg_append(msg, &dm, sizeof(dm), NLMSG_ALIGNTO) < 0 ||
        nla_put_string(msg, DCB_ATTR_IFNAME, ifname) < 0) {
        r = -ENOMEM;
        snprintf(why, whylen, "out of memory");
        goto out;
    }
    if (nl_send_auto(sk, msg) < 0) {
        r = -EIO;
        snprintf(why, whylen, "cannot send RTM_GETDCB");
        goto out;
    }
    r = nl_recv(sk, &peer, ret, NULL);
    if (r <= 0) {
        snprintf(why, whylen, "no reply to RTM_GETDCB (%s)", r == 0 ? "end of stream" : nl_geterror(r));
        r = -EIO;
    }
out:
    nlmsg_free(msg);
    nl_socket_free(sk);
    return r;
}

int source_dcb_query(const char *ifname, struct dcb_state *d)
{
    unsigned char *buf = NULL;
    char why[sizeof(d->why)] = "";
    int n = source_dcb_fetch(ifname, &buf, why, sizeof(why));
    if (n < 0) {
        dcb_state_unknown(d, why);
        return n;
    }
    int r = dcb_parse_ieee_reply(buf, (size_t)n, d);
    free(buf);
    return r;
}
