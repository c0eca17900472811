/* SPDX-License-Identifier: ISC */
/* The DCB netlink reply parser. The layout is the kernel's: net/dcb/dcbnl.c
 * dcbnl_ieee_fill() puts DCB_ATTR_IFNAME, then the DCB_ATTR_IEEE nest (ETS, MAXRATE, QCN,
 * PFC, DCB_BUFFER, the APP_TABLE nest of DCB_ATTR_IEEE_APP / DCB_ATTR_DCB_APP entries, the
 * peer attributes), then DCB_ATTR_DCBX when the driver has getdcbx. The structs are the
 * uapi ones of <linux/dcbnl.h>. Every length is checked against the buffer first. */
#include "config.h"

#include <errno.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <string.h>

#include "dcb_parse.h"
#include "strutil.h"

#ifndef DCB_ATTR_DCB_APP
#define DCB_ATTR_DCB_APP 2      /* non-IEEE selectors (Linux 6.3); same struct dcb_app */
#endif

struct attr {
    uint16_t type;
    const uint8_t *data;
    size_t len;
};

/* The next attribute of [*pos, end), or 0 at the end, or -EBADMSG for a bad length. */
static int next_attr(const uint8_t **pos, const uint8_t *end, struct attr *a)
{
    size_t left = (size_t)(end - *pos);
    if (left == 0)
        return 0;
    if (left < NLA_HDRLEN)
        return -EBADMSG;
    struct nlattr h;
    memcpy(&h, *pos, sizeof(h));
    if (h.nla_len < NLA_HDRLEN || h.nla_len > left)
        return -EBADMSG;
    a->type = h.nla_type & NLA_TYPE_MASK;
    a->data = *pos + NLA_HDRLEN;
    a->len = h.nla_len - NLA_HDRLEN;
    size_t step = NLA_ALIGN(h.nla_len);
    *pos += step < left ? step : left;
    return 1;
}

static int bad(struct dcb_state *d, const char *what, size_t got, size_t want)
{
    snprintf(d->why, sizeof(d->why), "malformed DCB reply: %s is %zu bytes, expected %zu",
             what, got, want);
    return -EBADMSG;
}

static int bad_list(struct dcb_state *d, const char *what)
{
    snprintf(d->why, sizeof(d->why), "malformed DCB reply: an attribute overruns %s", what);
    return -EBADMSG;
}

static int parse_app_table(const struct attr *nest, struct dcb_state *d)
{
    const uint8_t *pos = nest->data, *end = nest->data + nest->len;
    struct attr a;
    int r;
    d->has_app_table = true;
    while ((r = next_attr(&pos, end, &a)) > 0) {
        if (a.type != DCB_ATTR_IEEE_APP && a.type != DCB_ATTR_DCB_APP)
            continue;
        if (a.len < sizeof(struct dcb_app))
            return bad(d, "an APP entry", a.len, sizeof(struct dcb_app));
        if (d->n_app == QOS_MAX_APPS) {
            d->app_truncated = true;
            continue;
        }
        struct dcb_app app;
        memcpy(&app, a.data, sizeof(app));
        d->app[d->n_app++] = (struct dcb_app_entry){ .selector = app.selector,
                                                     .priority = app.priority,
                                                     .protocol = app.protocol };
    }
    return r < 0 ? bad_list(d, "DCB_ATTR_IEEE_APP_TABLE") : 0;
}

static int parse_ieee(const struct attr *nest, struct dcb_state *d)
{
    const uint8_t *pos = nest->data, *end = nest->data + nest->len;
    struct attr a;
    int r;
    while ((r = next_attr(&pos, end, &a)) > 0) {
        switch (a.type) {
        case DCB_ATTR_IEEE_PFC: {
            struct ieee_pfc pfc;
            if (a.len < sizeof(pfc))
                return bad(d, "DCB_ATTR_IEEE_PFC", a.len, sizeof(pfc));
            memcpy(&pfc, a.data, sizeof(pfc));
            d->has_pfc = true;
            d->pfc_cap = pfc.pfc_cap;
            d->pfc_en = pfc.pfc_en;
            memcpy(d->pfc_requests, pfc.requests, sizeof(d->pfc_requests));
            memcpy(d->pfc_indications, pfc.indications, sizeof(d->pfc_indications));
            break;
        }
        case DCB_ATTR_IEEE_ETS: {
            struct ieee_ets ets;
            if (a.len < sizeof(ets))
                return bad(d, "DCB_ATTR_IEEE_ETS", a.len, sizeof(ets));
            memcpy(&ets, a.data, sizeof(ets));
            d->has_ets = true;
            memcpy(d->ets_prio_tc, ets.prio_tc, QOS_PRIOS);
            memcpy(d->ets_tc_tsa, ets.tc_tsa, QOS_PRIOS);
            memcpy(d->ets_tc_tx_bw, ets.tc_tx_bw, QOS_PRIOS);
            break;
        }
        case DCB_ATTR_IEEE_APP_TABLE:
            if ((r = parse_app_table(&a, d)) < 0)
                return r;
            break;
        default:                /* MAXRATE, QCN, DCB_BUFFER, the peer's view: not needed */
            break;
        }
    }
    return r < 0 ? bad_list(d, "DCB_ATTR_IEEE") : 0;
}

static int parse_error(const uint8_t *payload, size_t len, struct dcb_state *d)
{
    struct nlmsgerr e;
    if (len < sizeof(e.error))
        return bad(d, "the NLMSG_ERROR payload", len, sizeof(e.error));
    memcpy(&e.error, payload, sizeof(e.error));
    /* The kernel sends -errno; anything outside 1..4095 is not a reply it builds. */
    int err = e.error < 0 && e.error >= -4095 ? -e.error : 0;
    if (err == 0) {
        snprintf(d->why, sizeof(d->why), "malformed DCB reply: NLMSG_ERROR code %d", e.error);
        return -EBADMSG;
    }
    if (err == EOPNOTSUPP)
        snprintf(d->why, sizeof(d->why), "neither the driver nor the kernel answers DCB netlink (no dcbnl_ops)");
    else if (err == ENODEV)
        snprintf(d->why, sizeof(d->why), "the netdev is gone");
    else
        snprintf(d->why, sizeof(d->why), "the kernel refused DCB_CMD_IEEE_GET: %s", errno_text(err));
    return -err;
}

int dcb_parse_ieee_reply(const void *buf, size_t len, struct dcb_state *d)
{
    const uint8_t *p = buf;
    struct nlmsghdr h;
    memset(d, 0, sizeof(*d));
    d->dcbx = -1;
    if (len < sizeof(h))
        return bad(d, "the message", len, sizeof(h));
    memcpy(&h, p, sizeof(h));
    if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > len) {
        snprintf(d->why, sizeof(d->why),
                 "malformed DCB reply: nlmsg_len %u does not fit the %zu bytes received",
                 h.nlmsg_len, len);
        return -EBADMSG;
    }
    const uint8_t *payload = p + NLMSG_HDRLEN, *end = p + h.nlmsg_len;
    size_t plen = (size_t)(end - payload);
    if (h.nlmsg_type == NLMSG_ERROR)
        return parse_error(payload, plen, d);
    if (h.nlmsg_type != RTM_GETDCB) {
        snprintf(d->why, sizeof(d->why), "malformed DCB reply: message type %u, not RTM_GETDCB",
                 h.nlmsg_type);
        return -EBADMSG;
    }
    struct dcbmsg dm;
    if (plen < NLMSG_ALIGN(sizeof(dm)))
        return bad(d, "the dcbmsg header", plen, NLMSG_ALIGN(sizeof(dm)));
    memcpy(&dm, payload, sizeof(dm));
    if (dm.cmd != DCB_CMD_IEEE_GET) {
        snprintf(d->why, sizeof(d->why), "malformed DCB reply: command %u, not DCB_CMD_IEEE_GET",
                 dm.cmd);
        return -EBADMSG;
    }
    const uint8_t *pos = payload + NLMSG_ALIGN(sizeof(dm));
    struct attr a;
    int r;
    while ((r = next_attr(&pos, end, &a)) > 0) {
        if (a.type == DCB_ATTR_IEEE && (r = parse_ieee(&a, d)) < 0)
            return r;
        if (a.type == DCB_ATTR_DCBX) {
            if (a.len < 1)
                return bad(d, "DCB_ATTR_DCBX", a.len, 1);
            d->dcbx = a.data[0];
        }
    }
    if (r < 0)
        return bad_list(d, "the message");
    d->known = true;
    return 0;
}

void dcb_dcbx_format(int dcbx, char *buf, size_t len)
{
    static const struct { int bit; const char *name; } bits[] = {
        { DCB_CAP_DCBX_HOST, "host" }, { DCB_CAP_DCBX_LLD_MANAGED, "lld_managed" },
        { DCB_CAP_DCBX_VER_CEE, "cee" }, { DCB_CAP_DCBX_VER_IEEE, "ieee" },
        { DCB_CAP_DCBX_STATIC, "static" },
    };
    size_t n = 0;
    buf[0] = '\0';
    if (dcbx < 0) {
        snprintf(buf, len, "not reported");
        return;
    }
    for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]) && n < len; i++)
        if (dcbx & bits[i].bit)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "", bits[i].name);
    if (!buf[0])
        snprintf(buf, len, "none");
}
