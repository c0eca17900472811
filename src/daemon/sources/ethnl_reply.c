/* SPDX-License-Identifier: ISC */
/* The framing of a raw ethtool genetlink answer (ethnl_reply.h). The layouts:
 * include/uapi/linux/netlink.h (struct nlmsgerr, NLM_F_CAPPED, NLM_F_ACK_TLVS,
 * NLMSGERR_ATTR_MSG), include/uapi/linux/genetlink.h and
 * Documentation/networking/ethtool-netlink.rst. */
#include "config.h"

#include "ethnl_reply.h"

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "strutil.h"

const unsigned char *nl_attr_find(const unsigned char *p, size_t len, uint16_t type,
                                  size_t *ret_len)
{
    while (len >= NLA_HDRLEN) {
        struct nlattr a;
        memcpy(&a, p, sizeof(a));
        if (a.nla_len < NLA_HDRLEN || a.nla_len > len)
            return NULL;
        if ((a.nla_type & NLA_TYPE_MASK) == type) {
            *ret_len = a.nla_len - NLA_HDRLEN;
            return p + NLA_HDRLEN;
        }
        size_t step = NLA_ALIGN(a.nla_len);
        if (step >= len)
            break;
        p += step;
        len -= step;
    }
    return NULL;
}

int nl_reply_error(const unsigned char *buf, size_t len, const char *unsupported,
                   const char *refused, char *why, size_t whylen)
{
    struct nlmsghdr hh, *h = &hh;
    struct nlmsgerr e;
    if (len < NLMSG_HDRLEN + sizeof(e)) {
        snprintf(why, whylen, "a truncated netlink error");
        return -EBADMSG;
    }
    memcpy(&hh, buf, sizeof(hh));
    memcpy(&e, buf + NLMSG_HDRLEN, sizeof(e));
    if (e.error >= 0 || e.error < -4095) {
        snprintf(why, whylen, "a netlink error without an errno (%d)", e.error);
        return -EBADMSG;
    }
    /* The extended ack's TLVs follow the echoed request: its header alone when capped. */
    size_t at = NLMSG_HDRLEN + offsetof(struct nlmsgerr, msg) +
                ((h->nlmsg_flags & NLM_F_CAPPED) ? sizeof(e.msg) : (size_t)e.msg.nlmsg_len);
    at = NLMSG_ALIGN(at);
    size_t mlen = 0;
    const unsigned char *msg = NULL;
    if ((h->nlmsg_flags & NLM_F_ACK_TLVS) && at < len)
        msg = nl_attr_find(buf + at, len - at, NLMSGERR_ATTR_MSG, &mlen);
    if (msg && mlen > 0)
        snprintf(why, whylen, "%.*s (%s)", (int)strnlen((const char *)msg, mlen),
                 (const char *)msg, errno_text(-e.error));
    else if (e.error == -EOPNOTSUPP)
        snprintf(why, whylen, "%s (%s)", unsupported, errno_text(-e.error));
    else
        snprintf(why, whylen, "%s (%s)", refused, errno_text(-e.error));
    return e.error;
}

int ethnl_reply_attrs(const unsigned char *buf, size_t len, uint8_t cmd, const char *name,
                      const char *unsupported, const char *refused,
                      const unsigned char **attrs, size_t *attrs_len, char *why, size_t whylen)
{
    struct nlmsghdr h;
    if (len < NLMSG_HDRLEN) {
        snprintf(why, whylen, "a truncated netlink answer (%zu bytes)", len);
        return -EBADMSG;
    }
    memcpy(&h, buf, sizeof(h));
    if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > len) {
        snprintf(why, whylen, "a netlink answer whose length (%u) is not its size (%zu)",
                 h.nlmsg_len, len);
        return -EBADMSG;
    }
    len = h.nlmsg_len;
    if (h.nlmsg_type == NLMSG_ERROR)
        return nl_reply_error(buf, len, unsupported, refused, why, whylen);
    if (len < NLMSG_HDRLEN + GENL_HDRLEN || buf[NLMSG_HDRLEN] != cmd) {
        snprintf(why, whylen, "not a %s reply", name);
        return -EBADMSG;
    }
    *attrs = buf + NLMSG_HDRLEN + GENL_HDRLEN;
    *attrs_len = len - NLMSG_HDRLEN - GENL_HDRLEN;
    return 0;
}
