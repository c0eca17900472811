/* SPDX-License-Identifier: ISC */
/* One FEC_GET answer (fec_reply.h). The layout: include/uapi/linux/ethtool_netlink.h
 * (ETHTOOL_A_FEC_*, ETHTOOL_A_FEC_STAT_*, ETHTOOL_A_BITSET_*) and
 * Documentation/networking/ethtool-netlink.rst, "FEC_GET" and "Bit sets"; the statistics'
 * arrays as net/ethtool/fec.c's fec_put_stats() writes them (u64 total, then the lanes). */
#include "config.h"

#include "fec_reply.h"

#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <string.h>

#include "ethnl_reply.h"

static uint32_t get_u32(const unsigned char *p, size_t len)
{
    uint32_t v = 0;
    if (len >= sizeof(v))
        memcpy(&v, p, sizeof(v));
    return v;
}

static void set_mode_bit(struct fec_info *info, uint32_t bit)
{
    enum fec_mode m = fec_mode_of_link_bit(bit);
    if (m != FEC_MODE_UNKNOWN)
        info->configured |= 1u << m;
}

/* A bit set (ethtool-netlink.rst "Bit sets"): compact (ETHTOOL_A_BITSET_VALUE, u32 words)
 * or verbose (ETHTOOL_A_BITSET_BITS: a BIT nest per bit, INDEX and, unless NOMASK, the
 * VALUE flag of a set bit). */
static void parse_modes(const unsigned char *p, size_t len, struct fec_info *info)
{
    size_t vlen = 0, blen = 0;
    const unsigned char *value = nl_attr_find(p, len, ETHTOOL_A_BITSET_VALUE, &vlen),
                        *bits = nl_attr_find(p, len, ETHTOOL_A_BITSET_BITS, &blen),
                        *nomask = nl_attr_find(p, len, ETHTOOL_A_BITSET_NOMASK, &(size_t){ 0 });
    if (value) {
        info->configured_known = true;
        for (uint32_t w = 0; (w + 1) * 4 <= vlen && w < 8; w++) {
            uint32_t word = get_u32(value + w * 4, 4);
            for (uint32_t b = 0; b < 32; b++)
                if (word & (1u << b))
                    set_mode_bit(info, w * 32 + b);
        }
        return;
    }
    if (!bits)
        return;
    info->configured_known = true;
    for (size_t at = 0; at + NLA_HDRLEN <= blen;) {
        struct nlattr a;
        memcpy(&a, bits + at, sizeof(a));
        if (a.nla_len < NLA_HDRLEN || a.nla_len > blen - at)
            break;
        const unsigned char *pl = bits + at + NLA_HDRLEN;
        size_t plen = a.nla_len - NLA_HDRLEN;
        at += NLA_ALIGN(a.nla_len);
        if ((a.nla_type & NLA_TYPE_MASK) != ETHTOOL_A_BITSET_BITS_BIT)
            continue;
        size_t ilen = 0;
        const unsigned char *idx = nl_attr_find(pl, plen, ETHTOOL_A_BITSET_BIT_INDEX, &ilen);
        bool set = nomask || nl_attr_find(pl, plen, ETHTOOL_A_BITSET_BIT_VALUE, &(size_t){ 0 });
        if (idx && ilen >= 4 && set)
            set_mode_bit(info, get_u32(idx, ilen));
    }
}

static void parse_stats(const unsigned char *p, size_t len, struct fec_info *info)
{
    static const uint16_t types[FEC_STATS] = {
        [FEC_STAT_CORRECTED] = ETHTOOL_A_FEC_STAT_CORRECTED,
        [FEC_STAT_UNCORRECTABLE] = ETHTOOL_A_FEC_STAT_UNCORR,
        [FEC_STAT_CORRECTED_BITS] = ETHTOOL_A_FEC_STAT_CORR_BITS,
    };
    for (int s = 0; s < FEC_STATS; s++) {
        size_t n = 0;
        const unsigned char *v = nl_attr_find(p, len, types[s], &n);
        struct fec_counter *c = &info->stats[s];
        if (!v || n < sizeof(uint64_t))
            continue;
        n /= sizeof(uint64_t);
        c->valid = true;
        memcpy(&c->total, v, sizeof(uint64_t));
        c->n_lanes = (unsigned)(n - 1 < FEC_LANES_MAX ? n - 1 : FEC_LANES_MAX);
        for (unsigned l = 0; l < c->n_lanes; l++)
            memcpy(&c->lanes[l], v + (l + 1) * sizeof(uint64_t), sizeof(uint64_t));
    }
}

int fec_reply_parse(const unsigned char *buf, size_t len, struct fec_info *info, char *why,
                    size_t whylen)
{
    const unsigned char *p;
    memset(info, 0, sizeof(*info));
    int r = ethnl_reply_attrs(buf, len, ETHTOOL_MSG_FEC_GET_REPLY, "FEC_GET",
                              "the driver reports no FEC", "the kernel refused the FEC read",
                              &p, &len, why, whylen);
    if (r < 0)
        return r;
    size_t n = 0;
    const unsigned char *v;
    if ((v = nl_attr_find(p, len, ETHTOOL_A_FEC_MODES, &n)))
        parse_modes(v, n, info);
    if ((v = nl_attr_find(p, len, ETHTOOL_A_FEC_AUTO, &n)) && n >= 1)
        info->autoneg = v[0] != 0;
    /* 0 or absent: the driver named no active mode (net/ethtool/fec.c). */
    if ((v = nl_attr_find(p, len, ETHTOOL_A_FEC_ACTIVE, &n)) && n >= 4)
        info->active = fec_mode_of_link_bit(get_u32(v, n));
    if ((v = nl_attr_find(p, len, ETHTOOL_A_FEC_STATS, &n)))
        parse_stats(v, n, info);
    return 0;
}
