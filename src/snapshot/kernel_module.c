/* SPDX-License-Identifier: ISC */
/* ETHTOOL_MSG_MODULE_EEPROM_GET and ETHTOOL_MSG_FEC_GET on a libnl nl_sock, by hand: libnl-genl is not a
 * dependency, so the "ethtool" family's id comes from the generic netlink controller
 * (CTRL_CMD_GETFAMILY), as genl_ctrl_resolve() would ask it. */
#include "config.h"

#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "kernel_module.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

static struct nl_msg *genl_msg(int family, uint8_t cmd)
{
    struct genlmsghdr g = { .cmd = cmd, .version = 1 };
    struct nl_msg *msg = nlmsg_alloc_simple(family, NLM_F_REQUEST);
    if (msg && nlmsg_append(msg, &g, sizeof(g), NLMSG_ALIGNTO) < 0) {
        nlmsg_free(msg);
        return NULL;
    }
    return msg;
}

/* Sends MSG (freed) and returns the first message of the answer in *RET. */
static int exchange(struct nl_sock *sk, struct nl_msg *msg, unsigned char **ret)
{
    struct sockaddr_nl peer;
    int r = nl_send_auto(sk, msg);
    nlmsg_free(msg);
    if (r < 0)
        return -EIO;
    r = nl_recv(sk, &peer, ret, NULL);
    return r > 0 ? r : -EIO;
}

static int ethtool_family(struct nl_sock *sk, char *why, size_t whylen)
{
    struct nl_msg *msg = genl_msg(GENL_ID_CTRL, CTRL_CMD_GETFAMILY);
    unsigned char *buf = NULL;
    if (!msg || nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME) < 0) {
        nlmsg_free(msg);
        snprintf(why, whylen, "out of memory");
        return -ENOMEM;
    }
    int len = exchange(sk, msg, &buf), id = -ENOENT;
    struct nlmsghdr *h = (struct nlmsghdr *)buf;
    struct nlattr *tb[CTRL_ATTR_MAX + 1];
    if (len >= (int)sizeof(*h) && nlmsg_ok(h, len) && h->nlmsg_type == GENL_ID_CTRL &&
        nlmsg_parse(h, GENL_HDRLEN, tb, CTRL_ATTR_MAX, NULL) == 0 && tb[CTRL_ATTR_FAMILY_ID])
        id = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
    free(buf);
    if (id < 0)
        snprintf(why, whylen, "the kernel has no ethtool netlink family (CONFIG_ETHTOOL_NETLINK)");
    return id;
}

static struct nl_msg *eeprom_request(int family, const char *ifname, uint8_t page,
                                     uint32_t offset, uint32_t len)
{
    struct nl_msg *msg = genl_msg(family, ETHTOOL_MSG_MODULE_EEPROM_GET);
    struct nlattr *hdr;
    if (!msg || !(hdr = nla_nest_start(msg, ETHTOOL_A_MODULE_EEPROM_HEADER)) ||
        nla_put_string(msg, ETHTOOL_A_HEADER_DEV_NAME, ifname) < 0 ||
        nla_nest_end(msg, hdr) < 0 ||
        nla_put_u32(msg, ETHTOOL_A_MODULE_EEPROM_OFFSET, offset) < 0 ||
        nla_put_u32(msg, ETHTOOL_A_MODULE_EEPROM_LENGTH, len) < 0 ||
        nla_put_u8(msg, ETHTOOL_A_MODULE_EEPROM_PAGE, page) < 0 ||
        nla_put_u8(msg, ETHTOOL_A_MODULE_EEPROM_BANK, 0) < 0 ||
        nla_put_u8(msg, ETHTOOL_A_MODULE_EEPROM_I2C_ADDRESS, 0x50) < 0) {
        nlmsg_free(msg);
        return NULL;
    }
    return msg;
}

/* One request on a fresh socket: MAKE builds it once the family is known. */
static int ask(struct nl_msg *(*make)(int family, const void *arg), const void *arg,
               const char *what, unsigned char **ret, char *why, size_t whylen)
{
    struct nl_sock *sk = nl_socket_alloc();
    int r, one = 1;
    *ret = NULL;
    if (!sk) {
        snprintf(why, whylen, "out of memory");
        return -ENOMEM;
    }
    nl_socket_disable_auto_ack(sk);
    if (nl_connect(sk, NETLINK_GENERIC) < 0) {
        snprintf(why, whylen, "cannot open a generic netlink socket");
        r = -EIO;
        goto out;
    }
    /* A driver that never answers must not stall the check cycle; the kernel's reason
     * comes in the extended ack. */
    struct timeval tv = { .tv_sec = 2 };
    (void)setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    (void)setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
    r = ethtool_family(sk, why, whylen);
    if (r < 0)
        goto out;
    struct nl_msg *msg = make(r, arg);
    if (!msg) {
        snprintf(why, whylen, "out of memory");
        r = -ENOMEM;
        goto out;
    }
    r = exchange(sk, msg, ret);
    if (r < 0)
        snprintf(why, whylen, "no reply to %s", what);
out:
    nl_socket_free(sk);
    return r;
}

struct eeprom_arg {
    const char *ifname;
    uint8_t page;
    uint32_t offset, len;
};

static struct nl_msg *make_eeprom(int family, const void *arg)
{
    const struct eeprom_arg *e = arg;
    return eeprom_request(family, e->ifname, e->page, e->offset, e->len);
}

int kernel_module_eeprom_get(const char *ifname, uint8_t page, uint32_t offset, uint32_t len,
                             unsigned char **ret, char *why, size_t whylen)
{
    struct eeprom_arg e = { ifname, page, offset, len };
    return ask(make_eeprom, &e, "ETHTOOL_MSG_MODULE_EEPROM_GET", ret, why, whylen);
}

/* FEC_GET with its statistics (ETHTOOL_FLAG_STATS) and the modes as a compact bit set. */
static struct nl_msg *make_fec(int family, const void *arg)
{
    const char *ifname = arg;
    struct nl_msg *msg = genl_msg(family, ETHTOOL_MSG_FEC_GET);
    struct nlattr *hdr;
    if (!msg || !(hdr = nla_nest_start(msg, ETHTOOL_A_FEC_HEADER)) ||
        nla_put_string(msg, ETHTOOL_A_HEADER_DEV_NAME, ifname) < 0 ||
        nla_put_u32(msg, ETHTOOL_A_HEADER_FLAGS,
                    ETHTOOL_FLAG_STATS | ETHTOOL_FLAG_COMPACT_BITSETS) < 0 ||
        nla_nest_end(msg, hdr) < 0) {
        nlmsg_free(msg);
        return NULL;
    }
    return msg;
}

int kernel_fec_get(const char *ifname, unsigned char **ret, char *why, size_t whylen)
{
    return ask(make_fec, ifname, "ETHTOOL_MSG_FEC_GET", ret, why, whylen);
}
