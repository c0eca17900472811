/* SPDX-License-Identifier: ISC */
/* The DCB netlink reply parser. The layout is the kernel's: net/dcb/dcbnl.c
 * dcbnl_ieee_fill() puts DCB_ATTR_IFNAME, then the DCB_ATTR_IEEE nest (ETS, MAXRATE, QCN,
 * PFC, DCB_BUFFER, the APP_TABLE nest of DCB_ATTR_IEEE_APP / DCB_ATTR_DCB_APP entries, the
 * peer attributes), then DCB_ATTR_DCBX when the driver has getdcbx. The structs are the
 * uapi ones of <linux/dcbnl.h>; the attributes are walked with libnl (nla_parse,
 * nla_for_each_nested) on the raw buffer, and every payload length is checked. */
#include "config.h"

#include <errno.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <stdio.h>
#include <string.h>

#include "dcb_parse.h"
#include "strutil.h"

#ifndef DCB_ATTR_DCB_APP
#define DCB_ATTR_DCB_APP 2      /* non-IEEE selectors (Linux 6.3); same struct dcb_app */
#endif

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

/* The attributes of [head, head + len) into tb (as nla_parse() fills it), walked with
 * libnl's nla_for_each_attr in order: the first attribute shorter than its minimum (min,
 * indexed by type) is the error, and so are bytes left over that are no whole attribute,
 * which nla_parse() would only log. */
struct attr_min {
    size_t len;
    const char *name;
};

static int parse_attrs(struct nlattr **tb, int maxtype, const void *head, size_t len,
                       const struct attr_min *min, struct dcb_state *d, const char *what)
{
    struct nlattr *nla;
    int rem;
    memset(tb, 0, (size_t)(maxtype + 1) * sizeof(*tb));
    nla_for_each_attr(nla, (struct nlattr *)head, (int)len, rem) {
        int type = nla_type(nla);
        if (type > maxtype)
            continue;
        if ((size_t)nla_len(nla) < min[type].len)
            return bad(d, min[type].name, (size_t)nla_len(nla), min[type].len);
        tb[type] = nla;
    }
    return rem > 0 ? bad_list(d, what) : 0;
}

static int parse_app_table(struct nlattr *nest, struct dcb_state *d)
{
    struct nlattr *a;
    int rem;
    d->has_app_table = true;
    nla_for_each_nested(a, nest, rem) {
        int type = nla_type(a);
        if (type != DCB_ATTR_IEEE_APP && type != DCB_ATTR_DCB_APP)
            continue;
        if ((size_t)nla_len(a) < sizeof(struct dcb_app))
            return bad(d, "an APP entry", (size_t)nla_len(a), sizeof(struct dcb_app));
        if (d->n_app == QOS_MAX_APPS) {
            d->app_truncated = true;
            continue;
        }
        struct dcb_app app;
        memcpy(&app, nla_data(a), sizeof(app));
        d->app[d->n_app++] = (struct dcb_app_entry){ .selector = app.selector,
                                                     .priority = app.priority,
                                                     .protocol = app.protocol };
    }
    return rem > 0 ? bad_list(d, "DCB_ATTR_IEEE_APP_TABLE") : 0;
}

static int parse_ieee(struct nlattr *nest, struct dcb_state *d)
{
    static const struct attr_min min[DCB_ATTR_IEEE_MAX + 1] = {
        [DCB_ATTR_IEEE_PFC] = { sizeof(struct ieee_pfc), "DCB_ATTR_IEEE_PFC" },
        [DCB_ATTR_IEEE_ETS] = { sizeof(struct ieee_ets), "DCB_ATTR_IEEE_ETS" },
    };
    struct nlattr *tb[DCB_ATTR_IEEE_MAX + 1];
    struct ieee_pfc pfc;
    struct ieee_ets ets;
    int r = parse_attrs(tb, DCB_ATTR_IEEE_MAX, nla_data(nest), (size_t)nla_len(nest), min, d,
                        "DCB_ATTR_IEEE");
    if (r < 0)
        return r;
    /* MAXRATE, QCN, DCB_BUFFER and the peer's view are not needed. */
    if (tb[DCB_ATTR_IEEE_PFC]) {
        memcpy(&pfc, nla_data(tb[DCB_ATTR_IEEE_PFC]), sizeof(pfc));
        d->has_pfc = true;
        d->pfc_cap = pfc.pfc_cap;
        d->pfc_en = pfc.pfc_en;
        memcpy(d->pfc_requests, pfc.requests, sizeof(d->pfc_requests));
        memcpy(d->pfc_indications, pfc.indications, sizeof(d->pfc_indications));
    }
    if (tb[DCB_ATTR_IEEE_ETS]) {
        memcpy(&ets, nla_data(tb[DCB_ATTR_IEEE_ETS]), sizeof(ets));
        d->has_ets = true;
        memcpy(d->ets_prio_tc, ets.prio_tc, QOS_PRIOS);
        memcpy(d->ets_tc_tsa, ets.tc_tsa, QOS_PRIOS);
        memcpy(d->ets_tc_tx_bw, ets.tc_tx_bw, QOS_PRIOS);
    }
    return tb[DCB_ATTR_IEEE_APP_TABLE] ? parse_app_table(tb[DCB_ATTR_IEEE_APP_TABLE], d) : 0;
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

void dcb_state_unknown(struct dcb_state *d, const char *why)
{
    memset(d, 0, sizeof(*d));
    d->dcbx = -1;
    snprintf(d->why, sizeof(d->why), "%s", why);
}

int dcb_parse_ieee_reply(const void *buf, size_t len, struct dcb_state *d)
{
    const uint8_t *p = buf;
    struct nlmsghdr h;
    dcb_state_unknown(d, "");
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
    static const struct attr_min min[DCB_ATTR_MAX + 1] = {
        [DCB_ATTR_DCBX] = { 1, "DCB_ATTR_DCBX" },
    };
    struct nlattr *tb[DCB_ATTR_MAX + 1];
    int r = parse_attrs(tb, DCB_ATTR_MAX, payload + NLMSG_ALIGN(sizeof(dm)),
                        plen - NLMSG_ALIGN(sizeof(dm)), min, d, "the message");
    if (r < 0 || (tb[DCB_ATTR_IEEE] && (r = parse_ieee(tb[DCB_ATTR_IEEE], d)) < 0))
        return r;
    if (tb[DCB_ATTR_DCBX])
        d->dcbx = nla_get_u8(tb[DCB_ATTR_DCBX]);
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
