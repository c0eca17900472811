/* SPDX-License-Identifier: ISC */
/* The kernel's raw replies: DCB netlink on a libnl nl_sock (libnl has no DCB objects: the
 * request is a libnl message carrying a struct dcbmsg and DCB_ATTR_IFNAME, what iproute2's
 * "dcb" tool sends), and the ethtool ioctl (SIOCETHTOOL) for pause and statistics. */
#include "config.h"

#include <errno.h>
#include <linux/dcbnl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "kernel_replies.h"
#include "macro.h"

int kernel_dcb_ieee_get(const char *ifname, unsigned char **ret, char *why, size_t whylen)
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

int kernel_ethtool_pause(const char *ifname, struct ethtool_pauseparam *pp)
{
    struct ifreq ifr = { 0 };
    _cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    *pp = (struct ethtool_pauseparam){ .cmd = ETHTOOL_GPAUSEPARAM };
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    ifr.ifr_data = (void *)pp;
    return ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

/* One ethtool string set's length (ETHTOOL_GSSET_INFO), or -errno. */
static int stats_count(int fd, struct ifreq *ifr)
{
    struct {
        struct ethtool_sset_info hdr;
        uint32_t len;
    } info = { .hdr = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ULL << ETH_SS_STATS } };
    ifr->ifr_data = (void *)&info;
    if (ioctl(fd, SIOCETHTOOL, ifr) < 0)
        return -errno;
    return info.hdr.sset_mask ? (int)info.len : 0;
}

/* GSTRINGS and GSTATS write as many entries as the driver counts at that moment, not as
 * many as asked for: the set can grow between calls (ethtool -L adds per-queue stats).
 * So each call gets a buffer for twice the count read just before it, plus slack, and a
 * count beyond that starts over. */
static size_t capacity_for(int n)
{
    return 2 * (size_t)n + 64;
}

static int read_names(int fd, struct ifreq *ifr, struct ethtool_gstrings **ret, size_t *ret_cap)
{
    for (int attempt = 0; attempt < 3; attempt++) {
        int n = stats_count(fd, ifr);
        if (n <= 0 || n > 65536)
            return n <= 0 ? n : -E2BIG;
        size_t cap = capacity_for(n);
        struct ethtool_gstrings *names = calloc(1, sizeof(*names) + cap * ETH_GSTRING_LEN);
        if (!names)
            return -ENOMEM;
        names->cmd = ETHTOOL_GSTRINGS;
        names->string_set = ETH_SS_STATS;
        names->len = (uint32_t)n;
        ifr->ifr_data = (void *)names;
        if (ioctl(fd, SIOCETHTOOL, ifr) < 0) {
            int r = -errno;
            free(names);
            return r;
        }
        if (names->len <= cap) {
            *ret = names;
            *ret_cap = cap;
            return 0;
        }
        free(names);
    }
    return -EAGAIN;
}

int kernel_ethtool_stats(const char *ifname, struct ethtool_gstrings **ret_names,
                         struct ethtool_stats **ret_stats, size_t *ret_cap)
{
    struct ifreq ifr = { 0 };
    size_t cap;
    _cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    _cleanup_free_ struct ethtool_gstrings *names = NULL;
    int r = read_names(fd, &ifr, &names, &cap);
    if (r < 0 || !names)
        return r < 0 ? r : -ENODATA;
    /* The count again, right before GSTATS: a set grown past the buffer is not read. */
    int n = stats_count(fd, &ifr);
    if (n < 0)
        return n;
    if ((size_t)n > cap)
        return -EAGAIN;
    struct ethtool_stats *stats = calloc(1, sizeof(*stats) + cap * sizeof(uint64_t));
    if (!stats)
        return -ENOMEM;
    stats->cmd = ETHTOOL_GSTATS;
    stats->n_stats = (uint32_t)n;
    ifr.ifr_data = (void *)stats;
    if (ioctl(fd, SIOCETHTOOL, &ifr) < 0) {
        r = -errno;
        free(stats);
        return r;
    }
    *ret_names = TAKE_PTR(names);
    *ret_stats = stats;
    *ret_cap = cap;
    return 0;
}
