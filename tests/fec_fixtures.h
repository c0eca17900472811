/* SPDX-License-Identifier: ISC */
/* ETHTOOL_MSG_FEC_GET answers built from the UAPI's attribute layout
 * (include/uapi/linux/ethtool_netlink.h: ETHTOOL_A_FEC_*, ETHTOOL_A_FEC_STAT_*,
 * ETHTOOL_A_BITSET_*; Documentation/networking/ethtool-netlink.rst "FEC_GET" and "Bit
 * sets") as net/ethtool/fec.c lays them out: the header nest naming the device, the
 * configured modes as a bit set of link modes (compact, NOMASK, as asked with
 * ETHTOOL_FLAG_COMPACT_BITSETS; or verbose), ETHTOOL_A_FEC_AUTO, ETHTOOL_A_FEC_ACTIVE (the
 * active mode's link-mode bit), and ETHTOOL_A_FEC_STATS: each statistic a u64 array, the
 * total then one value per lane (fec_stats_recalc: the total is the lanes' sum), put by
 * nla_put_64bit with an ETHTOOL_A_FEC_STAT_PAD where the payload would not be 8-aligned;
 * a statistic the driver does not give is an empty attribute. None came from hardware:
 * no driver on the project's machines implements FEC (veth, virtio, rxe: EOPNOTSUPP).
 *   rs400      RS-FEC 400G PAM4 (4 x 100G lanes, 400GBASE-DR4): configured RS, active
 *              RS; after a day up at a pre-FEC BER near 2e-8 (3.456e16 bits): corrected
 *              bits 691,234,567 (per lane), corrected blocks 652,001,234 (per lane),
 *              uncorrectable 3 (total only, as mlx5 gives it)
 *   rs400v     the same with the modes as a verbose bit set (INDEX and NAME per set bit)
 *   off100     FEC off on 100G (4 x 25G NRZ lanes, 100GBASE-LR4): configured off
 *              (FEC_NONE), active off, the statistics empty
 *   eopnotsupp the kernel's refusal when the driver has no get_fecparam (veth): an
 *              NLMSG_ERROR of -EOPNOTSUPP without an extended ack
 * Held against ethtool 6.1 (Debian's source package, its netlink/fec.c reply handler
 * linked unmodified: bench/fec-vs-ethtool.sh): on rs400, rs400v and off100 the modes,
 * the active mode, every statistic's total and lanes agree; both refuse eopnotsupp. */
#pragma once

#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <string.h>

static const uint64_t fec_fixture_rs400_corr_bits[4] = {
    172801234, 168402345, 176503456, 173527532,
};
static const uint64_t fec_fixture_rs400_corrected[4] = {
    163000111, 159000222, 167000333, 163000568,
};

static size_t fx_attr(unsigned char *b, size_t at, uint16_t type, const void *data, size_t len)
{
    struct nlattr a = { .nla_len = (uint16_t)(NLA_HDRLEN + len), .nla_type = type };
    memcpy(b + at, &a, sizeof(a));
    if (len)
        memcpy(b + at + NLA_HDRLEN, data, len);
    memset(b + at + NLA_HDRLEN + len, 0, NLA_ALIGN(a.nla_len) - a.nla_len);
    return at + NLA_ALIGN(a.nla_len);
}

/* Closes the nest begun at START (its header written now). */
static void fx_nest_end(unsigned char *b, size_t start, size_t end, uint16_t type)
{
    struct nlattr a = { .nla_len = (uint16_t)(end - start), .nla_type = type | NLA_F_NESTED };
    memcpy(b + start, &a, sizeof(a));
}

/* nla_put_64bit: a PAD first where the payload would not be 8-aligned. */
static size_t fx_attr64(unsigned char *b, size_t at, uint16_t type, const uint64_t *v, size_t n)
{
    if ((at + NLA_HDRLEN) % 8)
        at = fx_attr(b, at, ETHTOOL_A_FEC_STAT_PAD, NULL, 0);
    return fx_attr(b, at, type, v, n * sizeof(uint64_t));
}

static size_t fx_stat(unsigned char *b, size_t at, uint16_t type, const uint64_t *lanes,
                      size_t n, uint64_t total_only, int have)
{
    uint64_t v[1 + 8] = { 0 };
    if (!have)
        return fx_attr64(b, at, type, v, 0);
    if (!lanes) {
        v[0] = total_only;
        return fx_attr64(b, at, type, v, 1);
    }
    for (size_t i = 0; i < n; i++) {
        v[0] += lanes[i];
        v[1 + i] = lanes[i];
    }
    return fx_attr64(b, at, type, v, 1 + n);
}

/* Builds KIND's answer for IFNAME into B (at least 1024 bytes, 8-aligned), with
 * MORE_BITS corrected bits more on lane 1 and MORE_UNCORR uncorrectable blocks more (a
 * later read of the same port); its length, or 0 for an unknown KIND. */
static size_t fec_fixture_build_more(const char *kind, const char *ifname, unsigned char *b,
                                     uint64_t more_bits, uint64_t more_uncorr)
{
    int rs = !strcmp(kind, "rs400") || !strcmp(kind, "rs400v"), off = !strcmp(kind, "off100");
    memset(b, 0, 1024);
    if (!strcmp(kind, "eopnotsupp")) {
        /* The error echoes the request's header only (NLM_F_CAPPED, as the kernel caps
         * an ack whose extended ack is off or empty of a message). */
        struct nlmsgerr e = { .error = -EOPNOTSUPP };
        e.msg.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN + 24;
        e.msg.nlmsg_type = GENL_ID_CTRL + 1;
        e.msg.nlmsg_flags = NLM_F_REQUEST;
        struct nlmsghdr h = { .nlmsg_len = NLMSG_HDRLEN + sizeof(e), .nlmsg_type = NLMSG_ERROR,
                              .nlmsg_flags = NLM_F_CAPPED };
        memcpy(b, &h, sizeof(h));
        memcpy(b + NLMSG_HDRLEN, &e, sizeof(e));
        return h.nlmsg_len;
    }
    if (!rs && !off)
        return 0;
    struct genlmsghdr g = { .cmd = ETHTOOL_MSG_FEC_GET_REPLY, .version = 1 };
    memcpy(b + NLMSG_HDRLEN, &g, sizeof(g));
    size_t at = NLMSG_HDRLEN + GENL_HDRLEN, nest = at, inner;
    at += NLA_HDRLEN;
    at = fx_attr(b, at, ETHTOOL_A_HEADER_DEV_NAME, ifname, strlen(ifname) + 1);
    fx_nest_end(b, nest, at, ETHTOOL_A_FEC_HEADER);

    uint32_t bit = rs ? ETHTOOL_LINK_MODE_FEC_RS_BIT : ETHTOOL_LINK_MODE_FEC_NONE_BIT;
    nest = at;
    at += NLA_HDRLEN;
    at = fx_attr(b, at, ETHTOOL_A_BITSET_NOMASK, NULL, 0);
    uint32_t size = __ETHTOOL_LINK_MODE_MASK_NBITS;
    at = fx_attr(b, at, ETHTOOL_A_BITSET_SIZE, &size, sizeof(size));
    if (!strcmp(kind, "rs400v")) {
        static const char name[] = "RS";
        inner = at;
        at += NLA_HDRLEN;
        size_t one = at;
        at += NLA_HDRLEN;
        at = fx_attr(b, at, ETHTOOL_A_BITSET_BIT_INDEX, &bit, sizeof(bit));
        at = fx_attr(b, at, ETHTOOL_A_BITSET_BIT_NAME, name, sizeof(name));
        fx_nest_end(b, one, at, ETHTOOL_A_BITSET_BITS_BIT);
        fx_nest_end(b, inner, at, ETHTOOL_A_BITSET_BITS);
    } else {
        uint32_t words[(__ETHTOOL_LINK_MODE_MASK_NBITS + 31) / 32] = { 0 };
        words[bit / 32] |= 1u << (bit % 32);
        at = fx_attr(b, at, ETHTOOL_A_BITSET_VALUE, words, sizeof(words));
    }
    fx_nest_end(b, nest, at, ETHTOOL_A_FEC_MODES);
    uint8_t autoneg = 0;
    at = fx_attr(b, at, ETHTOOL_A_FEC_AUTO, &autoneg, 1);
    at = fx_attr(b, at, ETHTOOL_A_FEC_ACTIVE, &bit, sizeof(bit));

    nest = at;
    at += NLA_HDRLEN;
    at = fx_stat(b, at, ETHTOOL_A_FEC_STAT_CORRECTED, fec_fixture_rs400_corrected, 4, 0, rs);
    uint64_t bits[4];
    memcpy(bits, fec_fixture_rs400_corr_bits, sizeof(bits));
    bits[0] += more_bits;
    at = fx_stat(b, at, ETHTOOL_A_FEC_STAT_UNCORR, NULL, 0, 3 + more_uncorr, rs);
    at = fx_stat(b, at, ETHTOOL_A_FEC_STAT_CORR_BITS, bits, 4, 0, rs);
    fx_nest_end(b, nest, at, ETHTOOL_A_FEC_STATS);

    /* The ethtool family's id is dynamic; the parser does not judge it. */
    struct nlmsghdr h = { .nlmsg_len = (uint32_t)at, .nlmsg_type = GENL_ID_CTRL + 1 };
    memcpy(b, &h, sizeof(h));
    return at;
}

static inline size_t fec_fixture_build(const char *kind, const char *ifname, unsigned char *b)
{
    return fec_fixture_build_more(kind, ifname, b, 0, 0);
}
