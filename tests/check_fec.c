/* SPDX-License-Identifier: ISC */
/* Tests of FEC and BER (issue 30 item 2): the FEC_GET answer's parser (sources/fec_reply)
 * on answers built from the UAPI's attribute layout (tests/fec_fixtures.h: an RS-FEC 400G
 * PAM4 port, a FEC-off 100G port, the verbose bit set, veth's EOPNOTSUPP) and on every
 * truncation of them; the lane rate, the mode it needs, the FEC limits and the BER maths
 * (model/fec); the rates of the FEC and PHY counts between two samples, across a reset
 * (model/counters); and the link.fec and link.ber checks (checks/check_fec). */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check_findings.h"
#include "check_run.h"
#include "checks.h"
#include "counters.h"
#include "fec.h"
#include "fec_fixtures.h"
#include "fec_reply.h"
#include "link_memory.h"
#include "metrics.h"
#include "report.h"
#include "source_counters.h"
#include "source_fec.h"
#include "strutil.h"

static _Alignas(8) unsigned char buf[1024];

static int parse(const char *kind, struct fec_info *info, char *why, size_t whylen)
{
    size_t n = fec_fixture_build(kind, "eth0", buf);
    ck_assert_uint_gt(n, 0);
    return fec_reply_parse(buf, n, info, why, whylen);
}

static void assert_near(double a, double b)
{
    ck_assert_msg(fabs(a - b) <= 1e-9 * fabs(b), "%g != %g", a, b);
}

START_TEST(test_parse_rs400)
{
    static const char *const kinds[] = { "rs400", "rs400v" };
    for (size_t k = 0; k < 2; k++) {
        struct fec_info f;
        char why[160] = "";
        ck_assert_int_eq(parse(kinds[k], &f, why, sizeof(why)), 0);
        ck_assert(f.configured_known);
        ck_assert_uint_eq(f.configured, 1u << FEC_MODE_RS);
        ck_assert(!f.autoneg);
        ck_assert_int_eq(f.active, FEC_MODE_RS);
        const struct fec_counter *bits = &f.stats[FEC_STAT_CORRECTED_BITS],
                                 *corr = &f.stats[FEC_STAT_CORRECTED],
                                 *unc = &f.stats[FEC_STAT_UNCORRECTABLE];
        ck_assert(bits->valid && corr->valid && unc->valid);
        ck_assert_uint_eq(bits->total, 691234567);
        ck_assert_uint_eq(corr->total, 652001234);
        ck_assert_uint_eq(bits->n_lanes, 4);
        ck_assert_uint_eq(corr->n_lanes, 4);
        for (int l = 0; l < 4; l++) {
            ck_assert_uint_eq(bits->lanes[l], fec_fixture_rs400_corr_bits[l]);
            ck_assert_uint_eq(corr->lanes[l], fec_fixture_rs400_corrected[l]);
        }
        ck_assert_uint_eq(unc->total, 3);
        ck_assert_uint_eq(unc->n_lanes, 0);
    }
}
END_TEST

START_TEST(test_parse_off100)
{
    struct fec_info f;
    char why[160] = "";
    ck_assert_int_eq(parse("off100", &f, why, sizeof(why)), 0);
    ck_assert(f.configured_known);
    ck_assert_uint_eq(f.configured, 1u << FEC_MODE_OFF);
    ck_assert_int_eq(f.active, FEC_MODE_OFF);
    /* The kernel's empty statistics: none valid. */
    for (int s = 0; s < FEC_STATS; s++)
        ck_assert(!f.stats[s].valid);
}
END_TEST

START_TEST(test_parse_eopnotsupp)
{
    struct fec_info f;
    char why[160] = "";
    ck_assert_int_eq(parse("eopnotsupp", &f, why, sizeof(why)), -EOPNOTSUPP);
    ck_assert_str_eq(why, "the driver reports no FEC (Operation not supported)");
}
END_TEST

/* Every truncation and a flipped byte at every offset: no crash, a well-formed result. */
START_TEST(test_parse_hostile)
{
    static const char *const kinds[] = { "rs400", "rs400v", "off100", "eopnotsupp" };
    for (size_t k = 0; k < 4; k++) {
        size_t n = fec_fixture_build(kinds[k], "eth0", buf);
        unsigned char copy[1024];
        for (size_t len = 0; len <= n; len++) {
            struct fec_info f;
            char why[160];
            memcpy(copy, buf, n);
            /* the header's length says the full answer: a short read is refused */
            int r = fec_reply_parse(copy, len, &f, why, sizeof(why));
            ck_assert(len == n ? r == 0 || r == -EOPNOTSUPP : r < 0);
        }
        for (size_t at = 0; at < n; at++) {
            struct fec_info f;
            char why[160];
            memcpy(copy, buf, n);
            copy[at] ^= 0xa5;
            (void)fec_reply_parse(copy, n, &f, why, sizeof(why));
            ck_assert(f.active < FEC_MODES);
            for (int s = 0; s < FEC_STATS; s++)
                ck_assert_uint_le(f.stats[s].n_lanes, FEC_LANES_MAX);
        }
    }
}
END_TEST

START_TEST(test_maths)
{
    assert_near(fec_lane_gbps(400, "400 Gb/sec (4X NDR)"), 100);
    assert_near(fec_lane_gbps(200, "200 Gb/sec (4X HDR)"), 50);
    assert_near(fec_lane_gbps(100, "100 Gb/sec (4X EDR)"), 25);
    assert_near(fec_lane_gbps(25, "25 Gb/sec (1X EDR)"), 25);
    ck_assert(fec_lane_gbps(100, "100 Gb/sec") == 0);
    ck_assert(fec_lane_gbps(0, "0 Gb/sec (4X)") == 0);
    ck_assert_int_eq(fec_need_of_lane(100), FEC_NEED_RS_KP4);
    ck_assert_int_eq(fec_need_of_lane(50), FEC_NEED_RS_KP4);
    ck_assert_int_eq(fec_need_of_lane(25), FEC_NEED_RS_KR4);
    ck_assert_int_eq(fec_need_of_lane(10), FEC_NEED_NONE);
    assert_near(fec_ber_limit(FEC_NEED_RS_KP4), 2.4e-4);
    assert_near(fec_ber_limit(FEC_NEED_RS_KR4), 5e-5);
    ck_assert(fec_ber_limit(FEC_NEED_NONE) == 0);
    /* 9600 corrected bits a second at 400 Gb/s: 2.4e-8 */
    assert_near(fec_ber(9600, 400), 2.4e-8);
    ck_assert(fec_ber(1, 0) < 0);
    /* 1e-12 at 400 Gb/s is 0.4 errors a second, 1440 an hour; 0.1/s at 100 Gb/s */
    assert_near(fec_errors_per_second(1e-12, 400), 0.4);
    assert_near(fec_errors_per_second(1e-12, 100), 0.1);
    ck_assert_int_eq(fec_mode_of_link_bit(ETHTOOL_LINK_MODE_FEC_NONE_BIT), FEC_MODE_OFF);
    ck_assert_int_eq(fec_mode_of_link_bit(ETHTOOL_LINK_MODE_FEC_RS_BIT), FEC_MODE_RS);
    ck_assert_int_eq(fec_mode_of_link_bit(ETHTOOL_LINK_MODE_FEC_BASER_BIT), FEC_MODE_BASER);
    ck_assert_int_eq(fec_mode_of_link_bit(ETHTOOL_LINK_MODE_FEC_LLRS_BIT), FEC_MODE_LLRS);
    ck_assert_int_eq(fec_mode_of_link_bit(0), FEC_MODE_UNKNOWN);
}
END_TEST

/* A sample at T seconds with corrected bits BITS and uncorrectable blocks UNC. */
static void sample(struct counter_sample *s, double t, uint64_t bits, uint64_t unc)
{
    memset(s, 0, sizeof(*s));
    s->taken = (usec_t)(t * USEC_PER_SEC);
    ck_assert_int_eq(counter_sample_add(s, "fec:corrected_bits", bits), 0);
    ck_assert_int_eq(counter_sample_add(s, "fec:uncorrectable", unc), 0);
}

/* Zero limits: no peak held past its sample; a test that judges bursts hands the
 * policy's link limit (fold_judged). */
static const struct counter_limits no_limits;

static void fold_judged(struct counter_state *st, const struct counter_limits *lim,
                        const char *rail, double t, uint64_t bits, uint64_t unc)
{
    struct counter_sample s;
    sample(&s, t, bits, unc);
    ck_assert_int_eq(counters_fold(st, lim, "boot", rail, &s, false, 0, 0), 0);
    counter_sample_done(&s);
}

static void fold(struct counter_state *st, const char *rail, double t, uint64_t bits, uint64_t unc)
{
    fold_judged(st, &no_limits, rail, t, bits, unc);
}

START_TEST(test_rates)
{
    struct counter_state st = { 0 };
    struct link_ber b;
    fold(&st, "r", 100, 1000000, 3);
    const struct rail_counters *rc = counters_find_const(&st, "r");
    link_ber_of(rc->link, 400, &b);
    /* one sample: totals, no rate */
    ck_assert(b.pre_present && b.post_present && !b.pre_known && !b.post_known);
    ck_assert_uint_eq(b.pre.total, 1000000);
    ck_assert_int_eq(b.post_from, LINK_RATE_FEC_UNCORRECTABLE);
    ck_assert_uint_eq(b.post.total, 3);
    /* 10 s later 96000 more bits (2.4e-8 at 400 G), 4 more blocks (1e-12) */
    fold(&st, "r", 110, 1096000, 7);
    link_ber_of(counters_find_const(&st, "r")->link, 400, &b);
    ck_assert(b.pre_known && b.post_known);
    assert_near(b.pre_ber, 2.4e-8);
    assert_near(b.post_ber, 1e-12);
    assert_near(b.pre.per_second, 9600);
    /* a reset (the counters go back): what they hold rose since it, a lower bound (50
     * bits a second), never negative, never huge */
    fold(&st, "r", 120, 500, 0);
    link_ber_of(counters_find_const(&st, "r")->link, 400, &b);
    ck_assert(b.pre_known && b.post_known);
    assert_near(b.pre.per_second, 50);
    assert_near(b.post_ber, 0);
    ck_assert_uint_eq(b.pre.total, 500);
    /* and known again from the next */
    fold(&st, "r", 130, 500 + 4000, 0);
    link_ber_of(counters_find_const(&st, "r")->link, 400, &b);
    ck_assert(b.pre_known);
    assert_near(b.pre_ber, 1e-9);
    /* an unknown rate: no BER */
    link_ber_of(counters_find_const(&st, "r")->link, 0, &b);
    ck_assert(!b.pre_known);
    /* mlx5's PHY counts when FEC_GET gives none; the symbol errors before the blocks.
     * The symbol errors FEC left are rx_pcs_symbol_err_phy (the PHY statistical group's
     * phy_symbol_errors); rx_symbol_err_phy counts packets dropped for a symbol error
     * (the 802.3 group's), no bits. */
    struct counter_sample s = { .taken = 200 * USEC_PER_SEC };
    counter_sample_add(&s, "ethtool:rx_corrected_bits_phy", 0);
    counter_sample_add(&s, "ethtool:rx_pcs_symbol_err_phy", 0);
    counter_sample_add(&s, "ethtool:rx_symbol_err_phy", 0);
    ck_assert_int_eq(counters_fold(&st, &no_limits, "boot", "m", &s, false, 0, 0), 0);
    s.taken = 210 * USEC_PER_SEC;
    s.values[0].value = 2000000;        /* 2e5/s at 200 G: 1e-6 */
    s.values[1].value = 20;             /* 2/s at 200 G: 1e-11 */
    s.values[2].value = 3;              /* three packets dropped */
    ck_assert_int_eq(counters_fold(&st, &no_limits, "boot", "m", &s, false, 0, 0), 0);
    link_ber_of(counters_find_const(&st, "m")->link, 200, &b);
    ck_assert_int_eq(b.pre_from, LINK_RATE_PHY_CORRECTED_BITS);
    ck_assert_int_eq(b.post_from, LINK_RATE_PHY_SYMBOL_ERR);
    assert_near(b.pre_ber, 1e-6);
    assert_near(b.post_ber, 1e-11);
    counter_sample_done(&s);
    counters_done(&st);
}
END_TEST

/* A rail NAME of RATE_TEXT whose FEC is KIND's answer. */
static struct rail *add_rail(struct inventory *inv, const char *dev, double gbps,
                             const char *rate_text, const char *kind)
{
    struct rail *r = inventory_add_rail(inv, dev, 1);
    ck_assert_ptr_nonnull(r);
    snprintf(r->name, sizeof(r->name), "%s/1", dev);
    snprintf(r->link_layer, sizeof(r->link_layer), "Ethernet");
    r->rate_gbps = gbps;
    snprintf(r->rate_text, sizeof(r->rate_text), "%s", rate_text);
    r->netdev.present = true;
    snprintf(r->netdev.name, sizeof(r->netdev.name), "eth_%s", dev);
    r->fec.read = true;
    size_t n = fec_fixture_build(kind, r->netdev.name, buf);
    int e = fec_reply_parse(buf, n, &r->fec.info, r->fec.why, sizeof(r->fec.why));
    r->fec.known = e == 0;
    r->fec.err = e;
    return r;
}

static const struct finding *judge(struct findings *fs, const char *check, const char *rail)
{
    return one_finding(fs, check, rail);
}

START_TEST(test_check_mode)
{
    struct inventory inv = { 0 };
    struct policy p;
    struct findings fs = { 0 };
    policy_init_defaults(&p);
    add_rail(&inv, "rs400", 400, "400 Gb/sec (4X NDR)", "rs400");
    add_rail(&inv, "off100", 100, "100 Gb/sec (4X EDR)", "off100");
    add_rail(&inv, "off400", 400, "400 Gb/sec (4X NDR)", "off100");
    add_rail(&inv, "veth", 100, "100 Gb/sec (4X EDR)", "eopnotsupp");
    add_rail(&inv, "off10", 10, "10 Gb/sec (1X SDR)", "off100");
    add_rail(&inv, "norate", 0, "", "rs400");
    struct rail *ib = inventory_add_rail(&inv, "ib", 1);
    snprintf(ib->name, sizeof(ib->name), "ib/1");
    check_fec(&inv, NULL, &p, &fs);
    const struct finding *f = judge(&fs, "link.fec", "rs400/1");
    ck_assert_int_eq(f->severity, SEVERITY_OK);
    ck_assert_str_eq(f->actual, "rs");
    ck_assert_str_eq(f->message, "eth_rs400: FEC rs on 100 Gb/s lanes (RS(544,514) (IEEE 802.3 "
                     "clause 134, PAM4 lanes) needed)");
    f = judge(&fs, "link.fec", "off100/1");
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_str_eq(f->message, "eth_off100: FEC off on 25 Gb/s lanes, which need RS(528,514) "
                     "(IEEE 802.3 clause 91, 25G lanes)");
    ck_assert_ptr_nonnull(f->hint);
    ck_assert_int_eq(judge(&fs, "link.fec", "off400/1")->severity, SEVERITY_ERROR);
    f = judge(&fs, "link.fec", "veth/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_str_eq(f->message, "eth_veth: FEC unknown: the driver reports no FEC (Operation "
                     "not supported)");
    ck_assert_int_eq(judge(&fs, "link.fec", "off10/1")->severity, SEVERITY_OK);
    ck_assert_int_eq(judge(&fs, "link.fec", "norate/1")->severity, SEVERITY_UNKNOWN);
    /* no counter state: no link.ber; a rail whose FEC no source read: nothing */
    for (size_t i = 0; i < fs.n; i++) {
        ck_assert_str_ne(fs.items[i].check, "link.ber");
        ck_assert_str_ne(fs.items[i].rail, "ib/1");
    }
    ck_assert_uint_eq(fs.n, 6);
    findings_done(&fs);
    inventory_done(&inv);
    policy_done(&p);
}
END_TEST

/* link.ber on a 400G RS rail whose corrected bits rise by BITS and uncorrectable blocks
 * by UNC over 10 s: the finding's severity. */
static enum severity ber_case(uint64_t bits, uint64_t unc, const struct policy *p, char *msg,
                              size_t len)
{
    struct inventory inv = { 0 };
    struct findings fs = { 0 };
    struct counter_state st = { 0 };
    add_rail(&inv, "r", 400, "400 Gb/sec (4X NDR)", "rs400");
    fold(&st, "r/1", 100, 691234567, 3);
    fold(&st, "r/1", 110, 691234567 + bits, 3 + unc);
    check_fec(&inv, &st, p, &fs);
    const struct finding *f = judge(&fs, "link.ber", "r/1");
    enum severity sev = f->severity;
    snprintf(msg, len, "%s", f->message);
    findings_done(&fs);
    counters_done(&st);
    inventory_done(&inv);
    return sev;
}

START_TEST(test_check_ber)
{
    struct policy p;
    char msg[512];
    policy_init_defaults(&p);
    /* 2.4e-8 and no uncorrectable block: ok */
    ck_assert_int_eq(ber_case(96000, 0, &p, msg, sizeof(msg)), SEVERITY_OK);
    ck_assert_str_eq(msg, "eth_r: pre-FEC BER 2.40e-08 (9.6e+03 corrected bits/s), "
                     "RS(544,514)'s limit 0.00024, warning from 2.4e-05; post-FEC BER 0.00e+00 "
                     "(0 uncorrectable blocks/s; 1e-12 allows 0.4/s at 400 Gb/s)");
    /* 5e-5: past the warning margin (2.4e-5), under the limit */
    ck_assert_int_eq(ber_case(200000000, 0, &p, msg, sizeof(msg)), SEVERITY_WARNING);
    /* 3e-4: past RS(544,514)'s limit */
    ck_assert_int_eq(ber_case(1200000000, 0, &p, msg, sizeof(msg)), SEVERITY_ERROR);
    /* 2 blocks in 10 s (0.2/s, 5e-13): under 1e-12; 10 (1/s, 2.5e-12): past it */
    ck_assert_int_eq(ber_case(96000, 2, &p, msg, sizeof(msg)), SEVERITY_OK);
    ck_assert_int_eq(ber_case(96000, 10, &p, msg, sizeof(msg)), SEVERITY_ERROR);
    /* the policy's margin moves the warning */
    p.checks.fec.pre_fec_margin = 0.5;
    ck_assert_int_eq(ber_case(200000000, 0, &p, msg, sizeof(msg)), SEVERITY_OK);
    p.checks.fec.post_fec_ber = 1e-11;
    ck_assert_int_eq(ber_case(96000, 10, &p, msg, sizeof(msg)), SEVERITY_OK);
    policy_done(&p);
}
END_TEST

/* One lane of N_LANES bad (the others +24,000 corrected bits in 10 s, lane 2 +LANE2):
 * FEC_GET's per-lane counts, or mlx5's rx_err_lane_N_phy when PHY, on a rail of LINK_LAYER
 * whose port's rate text (drivers/infiniband/core/sysfs.c rate_show) is RATE_TEXT; the
 * finding's severity and message, and the lanes' BERs. */
static enum severity lanes_case(const char *link_layer, double gbps, const char *rate_text,
                                unsigned n_lanes, uint64_t lane2, bool phy, char *msg,
                                size_t len, struct lane_ber *lb)
{
    struct inventory inv = { 0 };
    struct findings fs = { 0 };
    struct counter_state st = { 0 };
    struct policy p;
    char name[COUNTER_NAME_MAX];
    policy_init_defaults(&p);
    struct rail *r = add_rail(&inv, "r", gbps, rate_text, "rs400");
    snprintf(r->link_layer, sizeof(r->link_layer), "%s", link_layer);
    for (int k = 0; k < 2; k++) {
        struct counter_sample s;
        uint64_t total = 0;
        memset(&s, 0, sizeof(s));
        s.taken = (usec_t)(100 + 10 * k) * USEC_PER_SEC;
        for (unsigned l = 0; l < n_lanes; l++) {
            uint64_t v = 1000000 + (k ? (l == 2 ? lane2 : 24000) : 0);
            total += v;
            ck_assert_int_eq(counter_sample_add(&s, link_lane_counter(l, phy, name, sizeof(name)), v), 0);
        }
        ck_assert_int_eq(counter_sample_add(&s, phy ? "ethtool:rx_corrected_bits_phy"
                                                    : "fec:corrected_bits", total), 0);
        ck_assert_int_eq(counters_fold(&st, &no_limits, "boot", "r/1", &s, false, 0, 0), 0);
        counter_sample_done(&s);
    }
    check_fec(&inv, &st, &p, &fs);
    const struct finding *f = judge(&fs, "link.ber", "r/1");
    enum severity sev = f->severity;
    snprintf(msg, len, "%s", f->message);
    const struct rail_counters *rc = counters_find_const(&st, "r/1");
    link_lane_ber_of(rc->lanes, rc->lanes_phy, &inv.rails[0], lb);
    findings_done(&fs);
    counters_done(&st);
    inventory_done(&inv);
    policy_done(&p);
    return sev;
}

/* Four lanes of a 400G Ethernet link whose RDMA port reads 4X. */
static enum severity lane_case(uint64_t lane2, bool phy, char *msg, size_t len,
                               struct lane_ber *lb)
{
    return lanes_case("Ethernet", 400, "400 Gb/sec (4X NDR)", 4, lane2, phy, msg, len, lb);
}

START_TEST(test_check_ber_lanes)
{
    char msg[512];
    struct lane_ber lb;
    /* Even lanes: 2.4e-8 each, ok, the worst named. */
    ck_assert_int_eq(lane_case(24000, false, msg, sizeof(msg), &lb), SEVERITY_OK);
    ck_assert_uint_eq(lb.n, 4);
    ck_assert(lb.known[2] && fabs(lb.ber[2] - 2.4e-8) < 1e-12);
    ck_assert_msg(strstr(msg, "lane 0's pre-FEC BER 2.40e-08, the worst of 4"), "%s", msg);
    /* Lane 2 at 3e-5 (30,000,000 bits in 10 s of 100 Gb/s): the link's mean is 7.5e-6,
     * under the 2.4e-5 warning; the lane is past it. */
    ck_assert_int_eq(lane_case(30000000, false, msg, sizeof(msg), &lb), SEVERITY_WARNING);
    ck_assert_int_eq(lb.worst, 2);
    ck_assert_msg(strstr(msg, "pre-FEC BER 7.52e-06") && strstr(msg, "lane 2's pre-FEC BER "
                  "3.00e-05, the worst of 4"), "%s", msg);
    /* Past RS(544,514)'s limit on that lane alone: an error. */
    ck_assert_int_eq(lane_case(300000000, false, msg, sizeof(msg), &lb), SEVERITY_ERROR);
}
END_TEST

/* A lane's rate is what the kernel says of the link's lanes (issue 41, item 10). On
 * InfiniBand the port's rate text's width is the IB link width; on Ethernet it is the RDMA
 * core's translation of the netdev's speed (ib_get_eth_speed: 100G reads "4X EDR", 25G
 * "1X EDR", whatever the lanes), so the lanes are FEC_GET's: a 400G link of 8 lanes of
 * 50G whose port reads 4X, or a 100G link of two lanes (100GBASE-CR2) that reads 4X EDR.
 * mlx5's PHY per-lane counts (a fixed set) give no lane count: unknown, and said. */
START_TEST(test_lane_count_is_the_kernels)
{
    char msg[512];
    struct lane_ber lb;
    /* Lane 2 at 30,000,000 bits in 10 s of 50 Gb/s: 6e-5, the worst of 8 (at the width's
     * 100 Gb/s it read 3e-5). */
    ck_assert_int_eq(lanes_case("Ethernet", 400, "400 Gb/sec (4X NDR)", 8, 30000000, false,
                                msg, sizeof(msg), &lb), SEVERITY_WARNING);
    ck_assert_uint_eq(lb.n, 8);
    assert_near(lb.lane_gbps, 50);
    ck_assert_int_eq(lb.worst, 2);
    ck_assert_msg(strstr(msg, "lane 2's pre-FEC BER 6.00e-05, the worst of 8"), "%s", msg);
    ck_assert_int_eq(lanes_case("Ethernet", 100, "100 Gb/sec (4X EDR)", 2, 24000, false,
                                msg, sizeof(msg), &lb), SEVERITY_OK);
    assert_near(lb.lane_gbps, 50);
    ck_assert_msg(strstr(msg, "lane 0's pre-FEC BER 4.80e-08, the worst of 2"), "%s", msg);
    /* mlx5's raw errors per lane on Ethernet: the lane count is unknown, and so are the
     * lanes' BERs; the link's BER is still judged. */
    ck_assert_int_eq(lanes_case("Ethernet", 400, "400 Gb/sec (4X NDR)", 4, 30000000, true,
                                msg, sizeof(msg), &lb), SEVERITY_OK);
    ck_assert_int_eq(lb.worst, -1);
    ck_assert(!(lb.lane_gbps > 0));
    ck_assert_msg(strstr(msg, "pre-FEC BER 7.52e-06") &&
                  strstr(msg, "lanes' BERs unknown: the Ethernet link's lane count is unknown"),
                  "%s", msg);
    /* InfiniBand: the width of the rate text (rate_show's "%d Gb/sec (%dX%s)"). */
    ck_assert_int_eq(lanes_case("InfiniBand", 200, "200 Gb/sec (2X NDR)", 2, 0, false,
                                msg, sizeof(msg), &lb), SEVERITY_OK);
    assert_near(lb.lane_gbps, 100);
    ck_assert_msg(strstr(msg, "lane 0's pre-FEC BER 2.40e-08, the worst of 2"), "%s", msg);
    ck_assert_int_eq(lanes_case("InfiniBand", 400, "400 Gb/sec (4X NDR)", 4, 30000000, false,
                                msg, sizeof(msg), &lb), SEVERITY_WARNING);
    assert_near(lb.lane_gbps, 100);
    ck_assert_msg(strstr(msg, "lane 2's pre-FEC BER 3.00e-05, the worst of 4"), "%s", msg);
    ck_assert_int_eq(lanes_case("InfiniBand", 10, "10 Gb/sec (4X)", 4, 24000, false,
                                msg, sizeof(msg), &lb), SEVERITY_OK);
    assert_near(lb.lane_gbps, 2.5);
}
END_TEST

/* One sample (a snapshot, a first pass): the totals, the rate unknown. */
START_TEST(test_check_ber_one_sample)
{
    struct inventory inv = { 0 };
    struct policy p;
    struct findings fs = { 0 };
    struct counter_state st = { .snapshot = true };
    policy_init_defaults(&p);
    add_rail(&inv, "r", 400, "400 Gb/sec (4X NDR)", "rs400");
    add_rail(&inv, "veth", 100, "100 Gb/sec (4X EDR)", "eopnotsupp");
    fold(&st, "r/1", 100, 691234567, 3);
    check_fec(&inv, &st, &p, &fs);
    const struct finding *f = judge(&fs, "link.ber", "r/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_str_eq(f->message, "eth_r: BER unknown: a captured tree is a single sample; rates need "
                     "two; since the counters' reset: 691234567 corrected bits, 3 uncorrectable "
                     "blocks");
    f = judge(&fs, "link.ber", "veth/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_str_eq(f->message, "eth_veth: no FEC or PHY error counts: the driver reports no "
                     "FEC (Operation not supported)");
    findings_done(&fs);
    counters_done(&st);
    inventory_done(&inv);
    policy_done(&p);
}
END_TEST

/* link.ber's warnings escalate as the other link checks' (checks.counters.escalate,
 * NVSentinel's 5 in 24 h): a pass at T hours whose corrected bits rose by BITS over 10 s
 * since a quiet one, with the memory noting the raises as pipeline.c does. */
static enum severity ber_pass(struct inventory *inv, struct counter_state *st,
                              struct link_memory *m, const struct policy *p, double t,
                              uint64_t *bits, uint64_t rise, char *msg, size_t len)
{
    struct findings fs = { 0 };
    const struct counter_limits lim = { .link_limit = p->checks.counters.link };
    for (int k = 0; k < 2; k++) {
        double at = t * 3600 + 10 * k;
        *bits += k ? rise : 96000;
        fold_judged(st, &lim, "r/1", at, *bits, 3);
        ck_assert_int_eq(link_memory_observe(m, "boot", (usec_t)(at * USEC_PER_SEC),
                                             (usec_t)((1800000000.0 + at) * USEC_PER_SEC), inv,
                                             st, &lim), 0);
        findings_done(&fs);
        memset(&fs, 0, sizeof(fs));
        check_fec(inv, st, p, &fs);
        check_link_memory(inv, m, p, &fs);
        ck_assert_int_eq(link_memory_note_findings(m, &fs), 0);
    }
    const struct finding *f = judge(&fs, "link.ber", "r/1");
    enum severity sev = f->severity;
    snprintf(msg, len, "%s", f->message);
    findings_done(&fs);
    return sev;
}

START_TEST(test_ber_escalation)
{
    struct inventory inv = { 0 };
    struct policy p;
    struct counter_state st = { 0 };
    struct link_memory m = { 0 };
    uint64_t bits = 0;
    char msg[512];
    policy_init_defaults(&p);
    add_rail(&inv, "r", 400, "400 Gb/sec (4X NDR)", "rs400");
    ck_assert_int_eq(link_tracked_index("link.ber"), LINK_TRACKED - 1);
    ck_assert_str_eq(link_tracked_name(LINK_TRACKED - 1), "link.ber");
    for (int i = 1; i <= 4; i++)
        ck_assert_int_eq(ber_pass(&inv, &st, &m, &p, i, &bits, 200000000, msg, sizeof(msg)),
                         SEVERITY_WARNING);
    ck_assert_uint_eq(link_memory_warnings(&m, "r/1", "link.ber", 24 * USEC_PER_HOUR, false), 4);
    ck_assert_int_eq(ber_pass(&inv, &st, &m, &p, 5, &bits, 200000000, msg, sizeof(msg)),
                     SEVERITY_ERROR);
    static const char lead[] = "escalated, warning 5 of link.ber on this rail in 24h (limit 5)";
    ck_assert_msg(strncmp(msg, lead, strlen(lead)) == 0, "%s", msg);
    /* A quiet pass is ok again */
    ck_assert_int_eq(ber_pass(&inv, &st, &m, &p, 6, &bits, 96000, msg, sizeof(msg)), SEVERITY_OK);
    link_memory_done(&m);
    counters_done(&st);
    inventory_done(&inv);
    policy_done(&p);
}
END_TEST

/* Writes LEN bytes of DATA to DIR/NAME. */
static void put_file(const char *dir, const char *name, const void *data, size_t len)
{
    char path[700];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

static const struct counter_value *value(const struct counter_sample *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (streq(s->values[i].name, name))
            return &s->values[i];
    return NULL;
}

/* A snapshot of an mlx5 netdev: its ETHTOOL_GSTRINGS and ETHTOOL_GSTATS replies with the
 * PHY statistics of drivers/net/ethernet/mellanox/mlx5/core/en_stats.c (and two it does
 * not keep), and its FEC_GET answer. The offline sample keeps the PHY counts (unclassified:
 * no counters.* class counts them) and the FEC totals. */
START_TEST(test_sample_phy_and_fec)
{
    static const char *const names[] = {
        "rx_bytes_phy", "rx_corrected_bits_phy", "rx_symbol_err_phy", "rx_pcs_symbol_err_phy",
        "rx_crc_errors_phy", "link_down_events_phy", "rx_err_lane_0_phy", "rx_err_lane_3_phy",
        "rx_err_lane_9_phy", "tx_packets_phy",
    };
    enum { N = sizeof(names) / sizeof(names[0]) };
    char top[256], dir[512], sys[512];
    ck_assert_int_eq(check_scratch_dir(top, sizeof(top), "check_fec_phy"), 0);
    snprintf(dir, sizeof(dir), "%s/fabtune/net/eth9", top);
    snprintf(sys, sizeof(sys), "%s/sys", top);
    sh("mkdir -p '%s' '%s'", dir, sys);
    size_t slen = sizeof(struct ethtool_gstrings) + N * ETH_GSTRING_LEN;
    struct ethtool_gstrings *gs = calloc(1, slen);
    gs->cmd = ETHTOOL_GSTRINGS;
    gs->string_set = ETH_SS_STATS;
    gs->len = N;
    for (size_t i = 0; i < N; i++)
        strscpy((char *)gs->data + i * ETH_GSTRING_LEN, names[i], ETH_GSTRING_LEN);
    size_t vlen = sizeof(struct ethtool_stats) + N * sizeof(uint64_t);
    struct ethtool_stats *st = calloc(1, vlen);
    st->cmd = ETHTOOL_GSTATS;
    st->n_stats = N;
    for (size_t i = 0; i < N; i++)
        st->data[i] = 1000 + i;
    put_file(dir, "ethtool_strings", gs, slen);
    put_file(dir, "ethtool_stats", st, vlen);
    free(gs);
    free(st);
    size_t n = fec_fixture_build("rs400", "eth9", buf);
    put_file(dir, "fec", buf, n);

    struct inventory inv = { .source = INVENTORY_OFFLINE };
    struct rail *r = inventory_add_rail(&inv, "mlx5_9", 1);
    strscpy(r->link_layer, "Ethernet", sizeof(r->link_layer));
    strscpy(r->netdev.name, "eth9", sizeof(r->netdev.name));
    r->netdev.present = true;
    source_fec_fill(sys, false, &inv);
    ck_assert(r->fec.read && r->fec.known);
    struct counter_sample s;
    source_counters_sample(sys, false, r, &s);
    static const char *const kept[] = {
        "ethtool:rx_corrected_bits_phy", "ethtool:rx_symbol_err_phy",
        "ethtool:rx_pcs_symbol_err_phy", "ethtool:rx_crc_errors_phy",
        "ethtool:link_down_events_phy", "ethtool:rx_err_lane_0_phy", "ethtool:rx_err_lane_3_phy",
    };
    for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
        const struct counter_value *v = value(&s, kept[i]);
        ck_assert_msg(v, "%s not kept", kept[i]);
        ck_assert_int_eq(counter_value_class(v, &s), COUNTER_UNCLASSIFIED);
    }
    ck_assert_uint_eq(value(&s, "ethtool:rx_corrected_bits_phy")->value, 1001);
    ck_assert_uint_eq(value(&s, "ethtool:rx_symbol_err_phy")->value, 1002);
    ck_assert_ptr_null(value(&s, "ethtool:rx_bytes_phy"));
    ck_assert_ptr_null(value(&s, "ethtool:rx_err_lane_9_phy"));
    ck_assert_ptr_null(value(&s, "ethtool:tx_packets_phy"));
    ck_assert_uint_eq(value(&s, "fec:corrected_bits")->value, 691234567);
    ck_assert_uint_eq(value(&s, "fec:corrected")->value, 652001234);
    ck_assert_uint_eq(value(&s, "fec:uncorrectable")->value, 3);
    /* FEC_GET's corrected bits come before the PHY's for the pre-FEC BER, the PHY's
     * symbol errors before the uncorrectable blocks for the post-FEC BER */
    struct counter_state cs = { .snapshot = true };
    ck_assert_int_eq(counters_fold(&cs, &no_limits, "boot", r->name, &s, false, 0, 0), 0);
    struct link_ber b;
    link_ber_of(counters_find_const(&cs, r->name)->link, 400, &b);
    ck_assert_int_eq(b.pre_from, LINK_RATE_FEC_CORRECTED_BITS);
    ck_assert_int_eq(b.post_from, LINK_RATE_PHY_SYMBOL_ERR);
    ck_assert_uint_eq(b.post.total, 1003);         /* rx_pcs_symbol_err_phy */
    counters_done(&cs);
    counter_sample_done(&s);
    inventory_done(&inv);
}
END_TEST

/* The FEC series: the mode, the totals as counters, the BER gauges from the rates kept in
 * the report; promtool finds them clean. */
START_TEST(test_fec_metrics)
{
    struct report rep;
    struct policy p;
    struct counter_state st = { 0 };
    char dir[512], path[600];
    policy_init_defaults(&p);
    memset(&rep, 0, sizeof(rep));
    report_init(&rep, &p, "<built-in>");
    struct rail *x = add_rail(&rep.inventory, "mlx5_0", 400, "400 Gb/sec (4X NDR)", "rs400");
    snprintf(x->netdev.name, sizeof(x->netdev.name), "ens1");
    add_rail(&rep.inventory, "mlx5_1", 100, "100 Gb/sec (4X EDR)", "eopnotsupp");
    fold(&st, "mlx5_0/1", 100, 691234567, 3);
    fold(&st, "mlx5_0/1", 110, 691234567 + 96000, 3 + 4);
    /* Per lane, on a second 400G rail: lane 1 +240,000 bits in 10 s of 100 Gb/s. */
    struct rail *y = add_rail(&rep.inventory, "mlx5_2", 400, "400 Gb/sec (4X NDR)", "rs400");
    snprintf(y->netdev.name, sizeof(y->netdev.name), "ens3");
    for (int k = 0; k < 2; k++) {
        struct counter_sample s;
        char name[COUNTER_NAME_MAX];
        memset(&s, 0, sizeof(s));
        s.taken = (usec_t)(100 + 10 * k) * USEC_PER_SEC;
        for (unsigned lane = 0; lane < 4; lane++)
            ck_assert_int_eq(counter_sample_add(&s, link_lane_counter(lane, false, name, sizeof(name)),
                                                1000 + (k && lane == 1 ? 240000 : 0)), 0);
        ck_assert_int_eq(counters_fold(&st, &no_limits, "boot", "mlx5_2/1", &s, false, 0, 0), 0);
        counter_sample_done(&s);
    }
    report_keep_rates(&rep, &st);
    report_finish(&rep);
    char *text = metrics_render(&rep);
    ck_assert_ptr_nonnull(text);
    if (getenv("DUMP"))
        fputs(text, stderr);
    ck_assert_msg(strstr(text, "\nfabtune_rail_fec_info{device=\"mlx5_0\",port=\"1\","
                               "netdev=\"ens1\",mode=\"rs\"} 1\n"), "%s", text);
    ck_assert_msg(strstr(text, "\nfabtune_rail_fec_bit_errors_corrected_total{device=\"mlx5_0\","
                               "port=\"1\",netdev=\"ens1\"} 691234567\n"), "%s", text);
    ck_assert_msg(strstr(text, "\nfabtune_rail_fec_uncorrectable_blocks_total{device=\"mlx5_0\","
                               "port=\"1\",netdev=\"ens1\"} 3\n"), "%s", text);
    ck_assert_msg(strstr(text, "\nfabtune_rail_pre_fec_ber{device=\"mlx5_0\",port=\"1\","
                               "netdev=\"ens1\"} 2.4e-08\n"), "%s", text);
    ck_assert_msg(strstr(text, "\nfabtune_rail_post_fec_ber{device=\"mlx5_0\",port=\"1\","
                               "netdev=\"ens1\"} 1e-12\n"), "%s", text);
    ck_assert_msg(strstr(text, "\nfabtune_rail_lane_pre_fec_ber{device=\"mlx5_2\",port=\"1\","
                               "netdev=\"ens3\",lane=\"1\"} 2.4e-07\n"), "%s", text);
    ck_assert_msg(strstr(text, "\nfabtune_rail_lane_pre_fec_ber{device=\"mlx5_2\",port=\"1\","
                               "netdev=\"ens3\",lane=\"3\"} 0\n"), "%s", text);
    ck_assert_ptr_null(strstr(text, "fabtune_rail_lane_pre_fec_ber{device=\"mlx5_0\""));
    ck_assert_ptr_null(strstr(text, "fabtune_rail_fec_info{device=\"mlx5_1\""));
    ck_assert_int_eq(check_scratch_dir(dir, sizeof(dir), "check_fec_metrics"), 0);
    snprintf(path, sizeof(path), "%s/fabtune.prom", dir);
    promtool_clean(text, path);
    free(text);
    counters_done(&st);
    report_done(&rep);
    policy_done(&p);
}
END_TEST

static Suite *fec_suite(void)
{
    Suite *s = suite_create("fec");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, test_parse_rs400);
    tcase_add_test(tc, test_parse_off100);
    tcase_add_test(tc, test_parse_eopnotsupp);
    tcase_add_test(tc, test_parse_hostile);
    suite_add_tcase(s, tc);
    tc = tcase_create("ber");
    tcase_add_test(tc, test_maths);
    tcase_add_test(tc, test_rates);
    tcase_add_test(tc, test_sample_phy_and_fec);
    suite_add_tcase(s, tc);
    tc = tcase_create("check");
    tcase_add_test(tc, test_check_mode);
    tcase_add_test(tc, test_check_ber);
    tcase_add_test(tc, test_check_ber_lanes);
    tcase_add_test(tc, test_lane_count_is_the_kernels);
    tcase_add_test(tc, test_check_ber_one_sample);
    tcase_add_test(tc, test_fec_metrics);
    tcase_add_test(tc, test_ber_escalation);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run(fec_suite());
}
