/* SPDX-License-Identifier: ISC */
/* Tests of the DCB netlink parser on reply bytes laid out as the kernel builds them (and
 * one captured from a real veth), of the QoS sysfs source on MLNX_OFED-layout fixtures,
 * and of the qos.* checks on what those give. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "check_findings.h"
#include "check_run.h"
#include "dcb_parse.h"
#include "hexfile.h"
#include "macro.h"
#include "source_qos.h"
#include "strutil.h"

static char fixtures[256], scratch[256];

static long load(const char *name, unsigned char **buf)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/tests/fixtures/dcb/%s", TEST_SRCDIR, name);
    long n = hexfile_read(path, buf);
    ck_assert_msg(n > 0, "cannot read %s", path);
    return n;
}

static int parse(const char *name, struct dcb_state *d)
{
    unsigned char *buf;
    long n = load(name, &buf);
    int r = dcb_parse_ieee_reply(buf, (size_t)n, d);
    free(buf);
    return r;
}

START_TEST(test_parse_dscp_pfc3)
{
    struct dcb_state d;
    ck_assert_int_eq(parse("mlx5-dscp-pfc3.hex", &d), 0);
    ck_assert(d.known);
    ck_assert(d.has_pfc);
    ck_assert_uint_eq(d.pfc_cap, 8);
    ck_assert_uint_eq(d.pfc_en, 0x08);
    ck_assert_uint_eq(d.pfc_requests[3], 1203);
    ck_assert_uint_eq(d.pfc_indications[3], 3403);
    ck_assert_uint_eq(d.pfc_requests[2], 0);
    ck_assert(d.has_ets);
    for (int i = 0; i < 8; i++) {
        ck_assert_uint_eq(d.ets_prio_tc[i], i);
        ck_assert_uint_eq(d.ets_tc_tsa[i], IEEE_8021QAZ_TSA_ETS);
    }
    ck_assert_uint_eq(d.ets_tc_tx_bw[1], 13);
    ck_assert(d.has_app_table);
    ck_assert_uint_eq(d.n_app, 64);
    ck_assert(!d.app_truncated);
    ck_assert_int_eq(qos_dscp_priority(&d, 26), 3);
    ck_assert_int_eq(qos_dscp_priority(&d, 48), 6);
    ck_assert_int_eq(qos_dscp_priority(&d, 64), -1);
    ck_assert_int_eq(d.dcbx, DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_CEE | DCB_CAP_DCBX_VER_IEEE);
    char text[64];
    dcb_dcbx_format(d.dcbx, text, sizeof(text));
    ck_assert_str_eq(text, "lld_managed,cee,ieee");
}
END_TEST

START_TEST(test_parse_pcp_nopfc)
{
    struct dcb_state d;
    ck_assert_int_eq(parse("mlx5-pcp-nopfc.hex", &d), 0);
    ck_assert(d.has_pfc);
    ck_assert_uint_eq(d.pfc_en, 0);
    ck_assert(d.has_app_table);
    ck_assert_uint_eq(d.n_app, 0);
    ck_assert(!qos_app_has_dscp(&d));
}
END_TEST

START_TEST(test_parse_misrouted)
{
    struct dcb_state d;
    ck_assert_int_eq(parse("mlx5-dscp-misrouted.hex", &d), 0);
    ck_assert_uint_eq(d.pfc_en, 0x48);
    ck_assert_int_eq(qos_dscp_priority(&d, 26), 4);
    ck_assert_int_eq(qos_dscp_priority(&d, 27), 3);
    ck_assert_int_eq(d.dcbx, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
}
END_TEST

/* The reply a real veth gave: the kernel's -EOPNOTSUPP, with a reason to show. */
START_TEST(test_parse_captured_eopnotsupp)
{
    struct dcb_state d;
    ck_assert_int_eq(parse("err-eopnotsupp.hex", &d), -EOPNOTSUPP);
    ck_assert(!d.known);
    ck_assert_msg(strstr(d.why, "dcbnl_ops"), "why: %s", d.why);
}
END_TEST

/* Every truncation of a reply, with nlmsg_len left as sent or made to fit, is refused or
 * parsed within its bounds: never a read past the end (ASan watches), never a crash. */
START_TEST(test_parse_truncated)
{
    unsigned char *buf;
    long n = load("mlx5-dscp-pfc3.hex", &buf);
    for (long len = 0; len < n; len++) {
        unsigned char *cut = malloc((size_t)len + 1);
        memcpy(cut, buf, (size_t)len);
        struct dcb_state d;
        ck_assert_int_eq(dcb_parse_ieee_reply(cut, (size_t)len, &d), -EBADMSG);
        ck_assert_msg(strstr(d.why, "malformed"), "len %ld: %s", len, d.why);
        if (len >= (long)sizeof(struct nlmsghdr)) {
            uint32_t l = (uint32_t)len;
            memcpy(cut, &l, sizeof(l));
            int r = dcb_parse_ieee_reply(cut, (size_t)len, &d);
            ck_assert_msg(r == 0 || r == -EBADMSG, "len %ld: %d", len, r);
        }
        free(cut);
    }
    free(buf);
}
END_TEST

/* A PFC attribute shorter than struct ieee_pfc is an error, not a partial read. */
START_TEST(test_parse_short_pfc)
{
    unsigned char *buf;
    long n = load("mlx5-pcp-nopfc.hex", &buf);
    struct dcb_state d;
    /* Find the PFC attribute header (len 140, type DCB_ATTR_IEEE_PFC) and shrink it. */
    long at = -1;
    for (long i = 0; i + 4 <= n; i += 4)
        if (buf[i] == 140 && buf[i + 1] == 0 && buf[i + 2] == DCB_ATTR_IEEE_PFC && buf[i + 3] == 0)
            at = i;
    ck_assert_int_ge(at, 0);
    buf[at] = 100;
    ck_assert_int_eq(dcb_parse_ieee_reply(buf, (size_t)n, &d), -EBADMSG);
    ck_assert_msg(strstr(d.why, "DCB_ATTR_IEEE_PFC"), "why: %s", d.why);
    free(buf);
}
END_TEST

/* A rail of the 8-rail fixture with its MLNX_OFED files, and DCB from FIXTURE (or none). */
/* The one rail of every case: its findings are the ones the tests look up. */
#define QOS_RAIL "mlx5_0/1"

struct qos_case {
    struct inventory inv;
    struct policy policy;
    struct findings findings;
};

static void qos_case(struct qos_case *c, const char *dcb_fixture, const char *sysfs_fixture,
                     const char *ifname)
{
    char root[512];
    memset(c, 0, sizeof(*c));
    policy_init_defaults(&c->policy);
    c->policy.rails.qos.ecn = REQ_REQUIRED;
    struct rail *r = inventory_add_rail(&c->inv, "mlx5_0", 1);      /* QOS_RAIL */
    strscpy(r->link_layer, "Ethernet", sizeof(r->link_layer));
    strscpy(r->netdev.name, ifname, sizeof(r->netdev.name));
    r->netdev.present = true;
    if (dcb_fixture)
        ck_assert_int_eq(parse(dcb_fixture, &r->qos.dcb), 0);
    else
        strscpy(r->qos.dcb.why, "no DCB in this case", sizeof(r->qos.dcb.why));
    snprintf(root, sizeof(root), "%s/%s/sys", fixtures, sysfs_fixture);
    source_qos_sysfs(root, ifname, &r->qos);
}

static void qos_run(struct qos_case *c)
{
    check_qos(&c->inv, &c->policy, &c->findings);
}

static void qos_done(struct qos_case *c)
{
    inventory_done(&c->inv);
    findings_done(&c->findings);
    policy_done(&c->policy);
}

static bool none_of(const struct qos_case *c, const char *check)
{
    for (size_t i = 0; i < c->findings.n; i++)
        if (streq(c->findings.items[i].check, check))
            return false;
    return true;
}

/* Set up right, on a driver with DCB but without the OFED sysfs: PFC, trust (from the APP
 * table), the DSCP map pass; ECN and the CNP marking are unknown, not errors. */
START_TEST(test_checks_good_upstream)
{
    struct qos_case c;
    qos_case(&c, "mlx5-dscp-pfc3.hex", "mlx5_8rail", "enp26s0f0np0");
    struct rail *r = &c.inv.rails[0];
    ck_assert_str_eq(r->qos.trust, "dscp");
    ck_assert_int_eq(r->qos.trust_source, TRUST_FROM_APP_TABLE);
    ck_assert(!r->qos.ecn_known);
    r->qos.pause_rx = r->qos.pause_tx = 0;
    qos_run(&c);
    ck_assert_int_eq(one_finding(&c.findings, "qos.pfc", QOS_RAIL)->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&c.findings, "qos.pfc_exclusive", QOS_RAIL)->severity,
                     SEVERITY_OK);
    ck_assert_int_eq(one_finding(&c.findings, "qos.trust", QOS_RAIL)->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&c.findings, "qos.dscp_map", QOS_RAIL)->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&c.findings, "qos.ecn", QOS_RAIL)->severity, SEVERITY_UNKNOWN);
    ck_assert_int_eq(one_finding(&c.findings, "qos.cnp", QOS_RAIL)->severity, SEVERITY_UNKNOWN);
    ck_assert_int_eq(one_finding(&c.findings, "qos.global_pause", QOS_RAIL)->severity, SEVERITY_OK);
    ck_assert_int_eq(findings_verdict(&c.findings), VERDICT_READY);
    qos_done(&c);
}
END_TEST

/* The same with the OFED sysfs: everything known and right. */
START_TEST(test_checks_good_ofed)
{
    struct qos_case c;
    qos_case(&c, "mlx5-dscp-pfc3.hex", "mlx5_8rail_ofed_qos", "enp26s0f0np0");
    struct rail *r = &c.inv.rails[0];
    ck_assert_int_eq(r->qos.trust_source, TRUST_FROM_SYSFS);
    ck_assert(r->qos.ecn_known);
    ck_assert_uint_eq(r->qos.ecn_np, 0x08);
    ck_assert_uint_eq(r->qos.ecn_rp, 0x08);
    ck_assert_int_eq(r->qos.cnp_dscp, 48);
    ck_assert_int_eq(r->qos.cnp_802p_prio, 6);
    qos_run(&c);
    ck_assert_int_eq(one_finding(&c.findings, "qos.ecn", QOS_RAIL)->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&c.findings, "qos.cnp", QOS_RAIL)->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&c.findings, "qos.global_pause", QOS_RAIL)->severity,
                     SEVERITY_UNKNOWN);
    ck_assert_int_eq(findings_verdict(&c.findings), VERDICT_READY);
    qos_done(&c);
}
END_TEST

/* Out of the box: PFC off and PCP trust are errors; the DSCP map is unknown (no entry). */
START_TEST(test_checks_out_of_the_box)
{
    struct qos_case c;
    qos_case(&c, "mlx5-pcp-nopfc.hex", "mlx5_8rail", "enp60s0f0np0");
    qos_run(&c);
    ck_assert_int_eq(one_finding(&c.findings, "qos.pfc", QOS_RAIL)->severity, SEVERITY_ERROR);
    ck_assert_int_eq(one_finding(&c.findings, "qos.trust", QOS_RAIL)->severity, SEVERITY_ERROR);
    ck_assert_int_eq(one_finding(&c.findings, "qos.dscp_map", QOS_RAIL)->severity,
                     SEVERITY_UNKNOWN);
    ck_assert_int_eq(findings_verdict(&c.findings), VERDICT_NOT_READY);
    qos_done(&c);
}
END_TEST

/* PFC on 3 and 6, DSCP 26 -> 4, CNPs (DSCP 48 -> 6) on a lossless priority, ECN rp off,
 * global pause on. */
START_TEST(test_checks_misrouted)
{
    struct qos_case c;
    qos_case(&c, "mlx5-dscp-misrouted.hex", "mlx5_8rail_ofed_qos", "enp77s0f0np0");
    c.inv.rails[0].qos.pause_rx = 1;
    c.inv.rails[0].qos.pause_tx = 0;
    qos_run(&c);
    ck_assert_int_eq(one_finding(&c.findings, "qos.pfc", QOS_RAIL)->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&c.findings, "qos.pfc_exclusive", QOS_RAIL)->severity,
                     SEVERITY_WARNING);
    ck_assert_int_eq(one_finding(&c.findings, "qos.dscp_map", QOS_RAIL)->severity, SEVERITY_ERROR);
    ck_assert_int_eq(one_finding(&c.findings, "qos.ecn", QOS_RAIL)->severity, SEVERITY_ERROR);
    ck_assert_int_eq(one_finding(&c.findings, "qos.cnp", QOS_RAIL)->severity, SEVERITY_ERROR);
    ck_assert_int_eq(one_finding(&c.findings, "qos.global_pause", QOS_RAIL)->severity,
                     SEVERITY_WARNING);
    /* ecn: optional makes the missing reaction point a warning; ignore drops the check. */
    findings_done(&c.findings);
    c.policy.rails.qos.ecn = REQ_OPTIONAL;
    qos_run(&c);
    ck_assert_int_eq(one_finding(&c.findings, "qos.ecn", QOS_RAIL)->severity, SEVERITY_WARNING);
    findings_done(&c.findings);
    c.policy.rails.qos.ecn = REQ_IGNORE;
    c.policy.rails.qos.pfc_exclusive = false;
    qos_run(&c);
    ck_assert(none_of(&c, "qos.ecn"));
    ck_assert(none_of(&c, "qos.pfc_exclusive"));
    qos_done(&c);
}
END_TEST

/* What a driver without DCB, OFED sysfs or pause parameters gives (veth, rxe): every
 * check unknown with its reason, no error, READY. */
START_TEST(test_checks_nothing_exposed)
{
    struct qos_case c;
    qos_case(&c, NULL, "mlx5_8rail", "enp26s0f0np0");
    strscpy(c.inv.rails[0].qos.pause_why, "the driver reports no pause parameters",
            sizeof(c.inv.rails[0].qos.pause_why));
    qos_run(&c);
    static const char *const ids[] = { "qos.pfc", "qos.pfc_exclusive", "qos.trust",
                                       "qos.dscp_map", "qos.ecn", "qos.cnp", "qos.global_pause" };
    for (size_t i = 0; i < ARRAY_SIZE(ids); i++)
        ck_assert_int_eq(one_finding(&c.findings, ids[i], QOS_RAIL)->severity, SEVERITY_UNKNOWN);
    for (size_t i = 0; i < c.findings.n; i++)
        ck_assert_msg(c.findings.items[i].message[0], "empty message");
    ck_assert_int_eq(findings_verdict(&c.findings), VERDICT_READY);
    qos_done(&c);
}
END_TEST

/* An InfiniBand rail has no PFC contract; it gets no qos.* finding. */
START_TEST(test_checks_infiniband_skipped)
{
    struct qos_case c;
    qos_case(&c, "mlx5-pcp-nopfc.hex", "mlx5_8rail", "ib0");
    strscpy(c.inv.rails[0].link_layer, "InfiniBand", sizeof(c.inv.rails[0].link_layer));
    qos_run(&c);
    ck_assert_uint_eq(c.findings.n, 0);
    qos_done(&c);
}
END_TEST

/* A qos/trust file of an unexpected shape is unknown with what it held, and ECN files that
 * hold other than 0/1 make ECN unknown. */
START_TEST(test_sysfs_odd_shapes)
{
    char root[300];
    snprintf(root, sizeof(root), "%s/odd", scratch);
    sh("rm -rf %s && mkdir -p %s/class/net/eth9/qos %s/class/net/eth9/ecn/roce_np/enable "
       "%s/class/net/eth9/ecn/roce_rp/enable && echo willing > %s/class/net/eth9/qos/trust && "
       "for p in 0 1 2 3 4 5 6 7; do echo 1 > %s/class/net/eth9/ecn/roce_np/enable/$p; "
       "echo 2 > %s/class/net/eth9/ecn/roce_rp/enable/$p; done",
       root, root, root, root, root, root, root);
    struct qos_state q;
    qos_state_init(&q);
    source_qos_sysfs(root, "eth9", &q);
    ck_assert_str_eq(q.trust, "");
    ck_assert_msg(strstr(q.trust_why, "willing"), "%s", q.trust_why);
    ck_assert(!q.ecn_known);
    ck_assert_msg(strstr(q.ecn_why, "roce_rp/enable/0"), "%s", q.ecn_why);
}
END_TEST

/* Without a qos/trust file or an APP table, the trust reason is the DCB source's whole
 * reason, never cut mid-word ("...DCB netlink (no dc" was). */
START_TEST(test_trust_why_whole)
{
    char root[300];
    snprintf(root, sizeof(root), "%s/notrust", scratch);
    sh("rm -rf %s && mkdir -p %s/class/net/eth8/qos", root, root);
    struct qos_state q;
    qos_state_init(&q);
    snprintf(q.dcb.why, sizeof(q.dcb.why), "%s",
             "neither the driver nor the kernel answers DCB netlink (no dcbnl_ops)");
    source_qos_sysfs(root, "eth8", &q);
    ck_assert_str_eq(q.trust, "");
    ck_assert_str_eq(q.trust_why, "no qos/trust file and no DCB APP table: neither the driver "
                     "nor the kernel answers DCB netlink (no dcbnl_ops)");
    /* The longest reason the DCB source holds fits whole too. */
    memset(q.dcb.why, 'x', sizeof(q.dcb.why) - 1);
    q.dcb.why[sizeof(q.dcb.why) - 1] = '\0';
    source_qos_sysfs(root, "eth8", &q);
    ck_assert_msg(strstr(q.trust_why, q.dcb.why), "%s", q.trust_why);
}
END_TEST

int main(void)
{
    if (check_shared_fixtures(fixtures, sizeof(fixtures)) < 0 ||
        check_scratch_dir(scratch, sizeof(scratch), "out-qos") < 0)
        return 99;

    Suite *s = suite_create("qos");
    TCase *parser = tcase_create("dcb parser");
    tcase_add_test(parser, test_parse_dscp_pfc3);
    tcase_add_test(parser, test_parse_pcp_nopfc);
    tcase_add_test(parser, test_parse_misrouted);
    tcase_add_test(parser, test_parse_captured_eopnotsupp);
    tcase_add_test(parser, test_parse_truncated);
    tcase_add_test(parser, test_parse_short_pfc);
    suite_add_tcase(s, parser);
    TCase *checks = tcase_create("qos checks");
    tcase_add_test(checks, test_checks_good_upstream);
    tcase_add_test(checks, test_checks_good_ofed);
    tcase_add_test(checks, test_checks_out_of_the_box);
    tcase_add_test(checks, test_checks_misrouted);
    tcase_add_test(checks, test_checks_nothing_exposed);
    tcase_add_test(checks, test_checks_infiniband_skipped);
    tcase_add_test(checks, test_sysfs_odd_shapes);
    tcase_add_test(checks, test_trust_why_whole);
    suite_add_tcase(s, checks);
    return check_run(s);
}
