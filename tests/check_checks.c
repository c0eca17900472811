/* SPDX-License-Identifier: ISC */
/* Tests of every check and the NCCL contract, on fixture trees that mirror real kernel
 * sysfs layouts (tests/fixtures/make-fixtures.sh says which); the sources alone are
 * check_sources.c's. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "check_findings.h"
#include "check_run.h"
#include "findings_text.h"
#include "inventory_take.h"
#include "macro.h"
#include "nccl.h"
#include "nccl_gid.h"
#include "strutil.h"
#include "topology.h"

static char fixtures[256];

struct scan {
    struct policy policy;
    struct inventory inv;
    struct findings findings;
    struct nccl_contract nccl;
};

static void scan(struct scan *s, const char *fixture, const char *policy_yaml)
{
    struct policy_errors errs = { 0 };
    char root[512], proc[512];
    memset(s, 0, sizeof(*s));
    policy_init_defaults(&s->policy);
    if (policy_yaml)
        ck_assert_int_eq(policy_load_string(policy_yaml, strlen(policy_yaml), "t.yaml",
                                            &s->policy, &errs), 0);
    snprintf(root, sizeof(root), "%s/%s/sys", fixtures, fixture);
    snprintf(proc, sizeof(proc), "%s/%s/proc", fixtures, fixture);
    ck_assert_int_eq(inventory_take(root, proc, &s->policy, &s->inv), 0);
    ck_assert_int_eq(s->inv.source, INVENTORY_OFFLINE);
    checks_run(&(struct check_input){ .inventory = &s->inv, .policy = &s->policy }, &s->findings);
    nccl_contract_compute(&s->inv, &s->policy, &s->nccl);
}

static void scan_done(struct scan *s)
{
    inventory_done(&s->inv);
    findings_done(&s->findings);
    policy_done(&s->policy);
}

static size_t count_sev(const struct scan *s, enum severity v)
{
    size_t n = 0;
    for (size_t i = 0; i < s->findings.n; i++)
        n += s->findings.items[i].severity == v;
    return n;
}

static const char *const rails8[] = {
    "mlx5_0/1", "mlx5_1/1", "mlx5_2/1", "mlx5_3/1", "mlx5_4/1", "mlx5_5/1", "mlx5_6/1", "mlx5_7/1",
};

/* host.state_dir: judged only for the daemon; an error naming the cause and that nothing
 * persists; a lock held by another names its PID, or says it is not known. */
START_TEST(test_state_dir)
{
    struct persistence s = { .judged = false };
    struct findings fs = { 0 };
    check_persistence(&s, &fs);
    ck_assert_uint_eq(fs.n, 0);
    s = (struct persistence){ .judged = true, .dir = "/var/lib/fabtune" };
    check_persistence(&s, &fs);
    ck_assert_int_eq(fs.items[0].severity, SEVERITY_OK);
    s.write_error = -ENOSPC;
    snprintf(s.failed, sizeof(s.failed), "save the counter state");
    check_persistence(&s, &fs);
    ck_assert_int_eq(fs.items[1].severity, SEVERITY_ERROR);
    ck_assert_str_eq(fs.items[1].message, "/var/lib/fabtune: cannot save the counter state: No "
                     "space left on device; judging from memory, nothing will persist (sysctl "
                     "originals, probe baselines, counter state)");
    s.lock_error = -EBUSY;
    s.holder = 4242;
    check_persistence(&s, &fs);
    ck_assert_ptr_nonnull(strstr(fs.items[2].message, "another process (pid 4242) holds its lock"));
    /* Free space would not help a lock another holds (issue 41, item 4). */
    ck_assert_ptr_nonnull(strstr(fs.items[1].hint, "free space"));
    ck_assert_ptr_nonnull(strstr(fs.items[2].hint, "stop the process that holds the lock"));
    ck_assert_ptr_null(strstr(fs.items[2].hint, "free space"));
    s.holder = 0;
    check_persistence(&s, &fs);
    ck_assert_ptr_nonnull(strstr(fs.items[3].message, "of unknown PID"));
    ck_assert_ptr_null(strstr(fs.items[3].message, "pid 0"));
    findings_done(&fs);
}
END_TEST

START_TEST(test_mlx5_8rail_ready)
{
    struct scan s;
    scan(&s, "mlx5_8rail", "rails: {link_layer: ethernet, expect_count: 8, min_rate_gbps: 400,"
                           " mtu: {netdev_min: 4200}, roce: {subnet: 10.0.0.0/16}}\n");
    ck_assert_int_eq(one_finding(&s.findings, "rails.count", NULL)->severity, SEVERITY_OK);
    for (size_t i = 0; i < ARRAY_SIZE(rails8); i++) {
        ck_assert_int_eq(one_finding(&s.findings, "port.state", rails8[i])->severity, SEVERITY_OK);
        ck_assert_int_eq(one_finding(&s.findings, "port.rate", rails8[i])->severity, SEVERITY_OK);
        ck_assert_int_eq(one_finding(&s.findings, "netdev.mtu", rails8[i])->severity, SEVERITY_OK);
        ck_assert_int_eq(one_finding(&s.findings, "gid.roce_v2", rails8[i])->severity, SEVERITY_OK);
        ck_assert_int_eq(one_finding(&s.findings, "gid.family", rails8[i])->severity, SEVERITY_OK);
        ck_assert_int_eq(one_finding(&s.findings, "gid.subnet", rails8[i])->severity, SEVERITY_OK);
        ck_assert_int_eq(one_finding(&s.findings, "gid.nccl", rails8[i])->severity, SEVERITY_OK);
        ck_assert_int_eq(s.inv.rails[i].gid_index, 3);
    }
    ck_assert_int_eq(one_finding(&s.findings, "gid.consistent", NULL)->severity, SEVERITY_OK);
    ck_assert_uint_eq(count_sev(&s, SEVERITY_ERROR) + count_sev(&s, SEVERITY_WARNING), 0);
    ck_assert_int_eq(findings_verdict(&s.findings), VERDICT_READY);

    ck_assert_str_eq(nccl_contract_get(&s.nccl, "NCCL_IB_HCA"),
                     "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1");
    ck_assert_str_eq(nccl_contract_get(&s.nccl, "NCCL_IB_GID_INDEX"), "3");
    ck_assert_str_eq(nccl_contract_get(&s.nccl, "NCCL_IB_ROCE_VERSION_NUM"), "2");
    ck_assert_str_eq(nccl_contract_get(&s.nccl, "NCCL_IB_ADDR_FAMILY"), "AF_INET");
    ck_assert_str_eq(nccl_contract_get(&s.nccl, "NCCL_IB_TC"), "106");
    ck_assert_ptr_null(nccl_contract_get(&s.nccl, "NCCL_IB_ADDR_RANGE"));
    scan_done(&s);
}
END_TEST

START_TEST(test_contract_rendering)
{
    struct scan s;
    scan(&s, "soft_roce", "rails: {qos: {dscp: 24, ecn: ignore}}\n");
    _cleanup_free_ char *env = nccl_contract_render(&s.nccl, false);
    _cleanup_free_ char *conf = nccl_contract_render(&s.nccl, true);
    ck_assert_str_eq(env, "# written by fabtune; do not edit\n"
                          "export NCCL_IB_HCA==rxe0:1\n"
                          "export NCCL_IB_GID_INDEX=1\n"
                          "export NCCL_IB_ROCE_VERSION_NUM=2\n"
                          "export NCCL_IB_ADDR_FAMILY=AF_INET\n"
                          "export NCCL_IB_TC=96\n");
    ck_assert_ptr_nonnull(strstr(conf, "\nNCCL_IB_HCA==rxe0:1\nNCCL_IB_GID_INDEX=1\n"));
    ck_assert_ptr_null(strstr(conf, "export"));
    scan_done(&s);
}
END_TEST

START_TEST(test_gid_shift)
{
    struct scan s;
    scan(&s, "mlx5_8rail_gid_shift", "rails: {roce: {subnet: 10.0.0.0/8}}\n");
    ck_assert_int_eq(s.inv.rails[5].gid_index, 5);
    ck_assert_int_eq(s.inv.rails[4].gid_index, 3);
    ck_assert_int_eq(one_finding(&s.findings, "gid.family", "mlx5_5/1")->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&s.findings, "gid.nccl_legacy", "mlx5_5/1")->severity,
                     SEVERITY_OK);
    ck_assert_int_eq(one_finding(&s.findings, "gid.consistent", NULL)->severity, SEVERITY_WARNING);
    ck_assert_int_eq(findings_verdict(&s.findings), VERDICT_DEGRADED);
    /* One index cannot serve every rail: hand the choice back to NCCL, inside the subnet. */
    ck_assert_str_eq(nccl_contract_get(&s.nccl, "NCCL_IB_GID_INDEX"), "-1");
    ck_assert_str_eq(nccl_contract_get(&s.nccl, "NCCL_IB_ADDR_RANGE"), "10.0.0.0/8");
    scan_done(&s);

    /* A fixed index 3 is the IPv6 entry on rail 5: an error on that rail only. */
    scan(&s, "mlx5_8rail_gid_shift", "rails: {roce: {gid_index: 3}}\n");
    ck_assert_int_eq(one_finding(&s.findings, "gid.family", "mlx5_5/1")->severity, SEVERITY_ERROR);
    ck_assert_int_eq(one_finding(&s.findings, "gid.family", "mlx5_4/1")->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&s.findings, "gid.consistent", NULL)->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&s.findings, "gid.nccl", "mlx5_5/1")->severity, SEVERITY_WARNING);
    ck_assert_int_eq(findings_rail_verdict(&s.findings, "mlx5_5/1"), VERDICT_NOT_READY);
    ck_assert_int_eq(findings_rail_verdict(&s.findings, "mlx5_4/1"), VERDICT_READY);
    scan_done(&s);
}
END_TEST

START_TEST(test_rail_down)
{
    struct scan s;
    scan(&s, "mlx5_8rail_rail_down", "rails: {expect_count: 8}\n");
    ck_assert_uint_eq(s.inv.n_rails, 8);
    ck_assert_int_eq(one_finding(&s.findings, "port.state", "mlx5_3/1")->severity, SEVERITY_ERROR);
    ck_assert_int_eq(one_finding(&s.findings, "port.phys_state", "mlx5_3/1")->severity,
                     SEVERITY_ERROR);
    ck_assert_int_eq(one_finding(&s.findings, "netdev.oper", "mlx5_3/1")->severity, SEVERITY_ERROR);
    ck_assert_int_eq(one_finding(&s.findings, "netdev.carrier", "mlx5_3/1")->severity,
                     SEVERITY_ERROR);
    ck_assert_int_eq(one_finding(&s.findings, "port.state", "mlx5_2/1")->severity, SEVERITY_OK);
    ck_assert_int_eq(findings_rail_verdict(&s.findings, "mlx5_3/1"), VERDICT_NOT_READY);
    ck_assert_int_eq(findings_rail_verdict(&s.findings, "mlx5_2/1"), VERDICT_READY);
    ck_assert_int_eq(findings_verdict(&s.findings), VERDICT_NOT_READY);
    ck_assert_int_eq(verdict_exit_code(findings_verdict(&s.findings), HEALTH_NPD), 1);
    ck_assert_uint_eq(count_sev(&s, SEVERITY_ERROR), 4);
    scan_done(&s);
}
END_TEST

START_TEST(test_mtu1500)
{
    struct scan s;
    scan(&s, "mlx5_8rail_mtu1500", "rails: {mtu: {netdev_min: 4200, rdma_active_min: 4096}}\n");
    ck_assert_int_eq(one_finding(&s.findings, "netdev.mtu", "mlx5_6/1")->severity, SEVERITY_ERROR);
    ck_assert_int_eq(one_finding(&s.findings, "netdev.mtu", "mlx5_5/1")->severity, SEVERITY_OK);
    /* A snapshot has no active MTU: unknown, never a false error. */
    ck_assert_int_eq(one_finding(&s.findings, "port.mtu", "mlx5_6/1")->severity, SEVERITY_UNKNOWN);
    ck_assert_uint_eq(count_sev(&s, SEVERITY_ERROR), 1);
    scan_done(&s);
}
END_TEST

static size_t count_check(const struct scan *s, const char *check, enum severity v)
{
    size_t n = 0;
    for (size_t i = 0; i < s->findings.n; i++)
        n += streq(s->findings.items[i].check, check) && s->findings.items[i].severity == v;
    return n;
}

/* rails.uniform: the rail that differs from its siblings, under the built-in policy, which
 * sets no MTU; off where the policy says the difference is meant; no second finding where
 * the policy's own bound (netdev.mtu) already names it. */
START_TEST(test_uniform)
{
    struct scan s;
    scan(&s, "mlx5_8rail", NULL);
    ck_assert_uint_eq(count_check(&s, "rails.uniform", SEVERITY_WARNING), 0);
    const struct finding *f = one_finding(&s.findings, "rails.uniform", NULL);
    ck_assert_str_eq(f->message, "8 rails alike in rate, width, mtu, firmware, vendor, driver");
    scan_done(&s);

    scan(&s, "mlx5_8rail_mtu1500", NULL);
    ck_assert_uint_eq(count_check(&s, "rails.uniform", SEVERITY_WARNING), 1);
    f = one_finding(&s.findings, "rails.uniform", "mlx5_6/1");
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_str_eq(f->expected, "9000");
    ck_assert_str_eq(f->actual, "1500");
    ck_assert_str_eq(f->message, "netdev MTU 1500, where 7 of the 8 Ethernet rails of PCI ID "
                                 "0x15b3:0x1021 have 9000");
    ck_assert_int_eq(findings_verdict(&s.findings), VERDICT_DEGRADED);
    scan_done(&s);

    scan(&s, "mlx5_8rail_mtu1500", "rails: {uniform: {mtu: false}}\n");
    ck_assert_uint_eq(count_check(&s, "rails.uniform", SEVERITY_WARNING), 0);
    ck_assert_str_eq(one_finding(&s.findings, "rails.uniform", NULL)->message,
                     "8 rails alike in rate, width, firmware, vendor, driver (not compared, as "
                     "rails.uniform says: mtu)");
    ck_assert_int_eq(findings_verdict(&s.findings), VERDICT_READY);
    scan_done(&s);

    scan(&s, "mlx5_8rail_mtu1500", "rails: {mtu: {netdev_min: 4200}}\n");
    ck_assert_int_eq(one_finding(&s.findings, "netdev.mtu", "mlx5_6/1")->severity, SEVERITY_ERROR);
    ck_assert_uint_eq(count_check(&s, "rails.uniform", SEVERITY_WARNING), 0);
    scan_done(&s);

    /* One rail has no siblings: nothing to compare. */
    scan(&s, "bnxt_re", NULL);
    ck_assert_uint_eq(count_check(&s, "rails.uniform", SEVERITY_OK) +
                      count_check(&s, "rails.uniform", SEVERITY_WARNING), 0);
    scan_done(&s);
}
END_TEST

/* pcie.link on a switched path: a Gen6 card behind a Gen5 switch is ok, the switch's port
 * named as the limit; a link above the card trained down names that link, not the card; the
 * card's own link trained down is the card's. */
START_TEST(test_pcie_path)
{
    struct scan s;
    scan(&s, "pcie_gen6_behind_gen5", NULL);
    const struct finding *f = one_finding(&s.findings, "pcie.link", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_OK);
    ck_assert_str_eq(f->message, "PCIe x16 32 GT/s; the card can x16 64 GT/s, its path x16 32 GT/s "
                                 "(limited at 0000:17:00.0)");
    scan_done(&s);

    scan(&s, "pcie_path_downtrain", NULL);
    f = one_finding(&s.findings, "pcie.link", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_str_eq(f->message, "PCIe path: the link between 0000:00:01.0 and 0000:16:00.0 "
                                 "trained at x16 16 GT/s, below the x16 32 GT/s the path can carry "
                                 "(the card: x16 32 GT/s)");
    ck_assert_str_eq(f->actual, "x16 16 GT/s");
    scan_done(&s);

    scan(&s, "pcie_card_downtrain_switched", NULL);
    f = one_finding(&s.findings, "pcie.link", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_str_eq(f->message, "PCIe x16 16 GT/s, below x16 32 GT/s (device max)");
    scan_done(&s);

    /* The policy's bound: the path's link below it is an error. */
    scan(&s, "pcie_path_downtrain", "rails: {pcie: {min_speed_gts: 32}}\n");
    ck_assert_int_eq(one_finding(&s.findings, "pcie.link", "mlx5_0/1")->severity, SEVERITY_ERROR);
    scan_done(&s);
}
END_TEST

START_TEST(test_infiniband)
{
    struct scan s;
    scan(&s, "infiniband", "rails: {link_layer: infiniband, expect_count: 4}\n");
    ck_assert_uint_eq(s.inv.n_rails, 4);
    ck_assert_str_eq(s.inv.rails[0].link_layer, "InfiniBand");
    ck_assert_str_eq(s.inv.rails[0].netdev.name, "ibp26s0");
    ck_assert_int_eq(one_finding(&s.findings, "port.link_layer", "mlx5_0/1")->severity,
                     SEVERITY_OK);
    for (size_t i = 0; i < s.findings.n; i++)
        ck_assert_msg(strncmp(s.findings.items[i].check, "gid.", 4) != 0, "GID check on IB");
    ck_assert_int_eq(findings_verdict(&s.findings), VERDICT_READY);
    ck_assert_uint_eq(s.nccl.n, 1);
    ck_assert_str_eq(nccl_contract_get(&s.nccl, "NCCL_IB_HCA"), "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1");
    scan_done(&s);

    /* An Ethernet policy on an IB node: no rails, and why. */
    scan(&s, "infiniband", "rails: {link_layer: ethernet, expect_count: 4}\n");
    ck_assert_uint_eq(s.inv.n_rails, 0);
    ck_assert_uint_eq(s.inv.n_ports_seen, 4);
    ck_assert_str_eq(s.inv.why_no_rails, "4 RDMA ports found, none selected by the policy "
                                         "(link_layer ethernet)");
    ck_assert_int_eq(one_finding(&s.findings, "rails.count", NULL)->severity, SEVERITY_ERROR);
    ck_assert_uint_eq(s.nccl.n, 0);
    scan_done(&s);
}
END_TEST

START_TEST(test_soft_roce)
{
    struct scan s;
    scan(&s, "soft_roce", NULL);
    ck_assert_uint_eq(s.inv.n_rails, 1);
    const struct rail *r = &s.inv.rails[0];
    ck_assert_str_eq(r->name, "rxe0/1");
    ck_assert_str_eq(r->driver, "rdma_rxe");
    ck_assert_str_eq(r->pci_addr, "");
    ck_assert_uint_eq(r->n_gids, 1024);
    ck_assert_double_eq(r->rate_gbps, 10);
    ck_assert(!r->has_counters);
    ck_assert_str_eq(r->netdev.name, "v0");
    ck_assert_int_eq(r->gid_index, 1);
    ck_assert_int_eq(findings_verdict(&s.findings), VERDICT_READY);
    scan_done(&s);
}
END_TEST

START_TEST(test_bnxt_re_no_counters)
{
    struct scan s;
    scan(&s, "bnxt_re", "rails: {expect_count: 1, min_rate_gbps: 200}\n");
    ck_assert_str_eq(s.inv.rails[0].driver, "bnxt_en");
    ck_assert(!s.inv.rails[0].has_counters);
    ck_assert(s.inv.rails[0].has_hw_counters);
    ck_assert_uint_eq(count_sev(&s, SEVERITY_ERROR), 0);
    ck_assert_int_eq(findings_verdict(&s.findings), VERDICT_READY);
    scan_done(&s);
}
END_TEST

/* The 8-rail node under MLNX_OFED, through the offline inventory: the QoS sysfs is read,
 * DCB is unknown (a snapshot has no netlink), and each planted fault is found on its rail
 * alone. */
START_TEST(test_ofed_qos_sysfs)
{
    struct scan s;
    scan(&s, "mlx5_8rail_ofed_qos", "rails: {qos: {ecn: required}}\n");
    ck_assert_str_eq(s.inv.rails[0].qos.trust, "dscp");
    ck_assert_int_eq(one_finding(&s.findings, "qos.pfc", "mlx5_0/1")->severity, SEVERITY_UNKNOWN);
    ck_assert_int_eq(one_finding(&s.findings, "qos.trust", "mlx5_0/1")->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&s.findings, "qos.ecn", "mlx5_0/1")->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&s.findings, "qos.cnp", "mlx5_0/1")->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&s.findings, "qos.ecn", "mlx5_2/1")->severity, SEVERITY_ERROR);
    ck_assert_int_eq(one_finding(&s.findings, "qos.cnp", "mlx5_4/1")->severity, SEVERITY_WARNING);
    ck_assert_int_eq(one_finding(&s.findings, "qos.trust", "mlx5_7/1")->severity, SEVERITY_ERROR);
    ck_assert_int_eq(one_finding(&s.findings, "qos.global_pause", "mlx5_7/1")->severity,
                     SEVERITY_UNKNOWN);
    ck_assert_int_eq(findings_rail_verdict(&s.findings, "mlx5_1/1"), VERDICT_READY);
    ck_assert_int_eq(findings_rail_verdict(&s.findings, "mlx5_2/1"), VERDICT_NOT_READY);
    ck_assert_int_eq(findings_rail_verdict(&s.findings, "mlx5_4/1"), VERDICT_DEGRADED);
    scan_done(&s);

    /* Upstream mlx5 has none of these files: every qos.* check is unknown, none fails. */
    scan(&s, "mlx5_8rail", "rails: {qos: {ecn: required}}\n");
    for (size_t i = 0; i < s.findings.n; i++)
        if (strncmp(s.findings.items[i].check, "qos.", 4) == 0)
            ck_assert_int_eq(s.findings.items[i].severity, SEVERITY_UNKNOWN);
    ck_assert_int_eq(findings_verdict(&s.findings), VERDICT_READY);
    scan_done(&s);
}
END_TEST

/* pcie.mrrs on the 8-rail node: 4096 everywhere but rail 6's 512 (mlnx_tune's warning). */
START_TEST(test_mrrs)
{
    struct scan s;
    scan(&s, "mlx5_8rail_mrrs512", NULL);
    ck_assert_uint_eq(s.inv.rails[0].pcie.max_read_request, 4096);
    ck_assert_uint_eq(s.inv.rails[6].pcie.max_read_request, 512);
    ck_assert_int_eq(one_finding(&s.findings, "pcie.mrrs", "mlx5_0/1")->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&s.findings, "pcie.mrrs", "mlx5_6/1")->severity, SEVERITY_WARNING);
    ck_assert_int_eq(findings_verdict(&s.findings), VERDICT_DEGRADED);
    /* A policy minimum of 512 accepts it; the software device says why it is unknown. */
    struct scan t;
    scan(&t, "mlx5_8rail_mrrs512", "rails: {pcie: {min_mrrs: 512}}\n");
    ck_assert_int_eq(one_finding(&t.findings, "pcie.mrrs", "mlx5_6/1")->severity, SEVERITY_OK);
    struct scan u;
    scan(&u, "soft_roce", NULL);
    ck_assert_int_eq(one_finding(&u.findings, "pcie.mrrs", "rxe0/1")->severity, SEVERITY_UNKNOWN);
    scan_done(&s);
    scan_done(&t);
    scan_done(&u);
}
END_TEST

/* pcie.acs: the switch's downstream ports between GPU0 and mlx5_0, ACS P2P redirect off
 * (ok) and on (a warning; an error when GPUDirect is required); mlx5_1 shares only the host
 * bridge with its GPU (ok: no switch); a software device is unknown. */
START_TEST(test_acs)
{
    struct scan off, on, req, sw;
    scan(&off, "gpu_node", NULL);
    ck_assert_int_eq(one_finding(&off.findings, "pcie.acs", "mlx5_0/1")->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&off.findings, "pcie.acs", "mlx5_1/1")->severity, SEVERITY_OK);
    const struct pci_bridge *b = inventory_find_bridge(&off.inv, "0000:17:00.0");
    ck_assert(b && b->read && b->acs && b->acs_ctrl == 0);
    scan(&on, "gpu_node_acs", NULL);
    ck_assert_int_eq(one_finding(&on.findings, "pcie.acs", "mlx5_0/1")->severity, SEVERITY_WARNING);
    ck_assert_int_eq(one_finding(&on.findings, "pcie.acs", "mlx5_1/1")->severity, SEVERITY_OK);
    scan(&req, "gpu_node_acs", "rails: {gpudirect: required}\n");
    ck_assert_int_eq(one_finding(&req.findings, "pcie.acs", "mlx5_0/1")->severity, SEVERITY_ERROR);
    scan(&sw, "soft_roce", NULL);
    ck_assert_int_eq(one_finding(&sw.findings, "pcie.acs", "rxe0/1")->severity, SEVERITY_UNKNOWN);
    char between[TOPOLOGY_MAX_BRIDGES][16];
    size_t n = topology_bridges_between("devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:19:00.0",
                                        "devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/0000:18:00.0",
                                        between, TOPOLOGY_MAX_BRIDGES);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(between[0], "0000:17:01.0");
    ck_assert_str_eq(between[1], "0000:17:00.0");
    scan_done(&off);
    scan_done(&on);
    scan_done(&req);
    scan_done(&sw);
}
END_TEST

/* host.iommu, host.cpufreq, host.irq_affinity: the 8-rail node tuned (identity groups, the
 * performance governor, interrupts on each HCA's node), then as a stock kernel leaves it. */
START_TEST(test_host_path)
{
    struct scan tuned, stock, req, sw;
    scan(&tuned, "mlx5_8rail", NULL);
    ck_assert_int_eq(one_finding(&tuned.findings, "host.iommu", "mlx5_0/1")->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&tuned.findings, "host.cpufreq", "mlx5_4/1")->severity,
                     SEVERITY_OK);
    ck_assert_int_eq(one_finding(&tuned.findings, "host.irq_affinity", "mlx5_5/1")->severity,
                     SEVERITY_OK);
    ck_assert_uint_eq(tuned.inv.rails[5].host.irqs, 4);
    scan(&stock, "mlx5_8rail_host_stock", NULL);
    ck_assert_int_eq(one_finding(&stock.findings, "host.iommu", "mlx5_0/1")->severity,
                     SEVERITY_WARNING);
    ck_assert_str_eq(stock.inv.iommu_cmdline, "intel_iommu=on");
    ck_assert_int_eq(one_finding(&stock.findings, "host.cpufreq", "mlx5_7/1")->severity,
                     SEVERITY_WARNING);
    ck_assert_str_eq(stock.inv.rails[7].host.governor, "powersave");
    ck_assert_int_eq(one_finding(&stock.findings, "host.irq_affinity", "mlx5_2/1")->severity,
                     SEVERITY_WARNING);
    ck_assert_uint_eq(stock.inv.rails[2].host.irqs_off_node, 4);
    ck_assert_int_eq(one_finding(&stock.findings, "host.irq_affinity", "mlx5_3/1")->severity,
                     SEVERITY_OK);
    ck_assert_int_eq(findings_verdict(&stock.findings), VERDICT_DEGRADED);
    scan(&req, "mlx5_8rail_host_stock", "host: {iommu: required, cpufreq: powersave}\n");
    ck_assert_int_eq(one_finding(&req.findings, "host.iommu", "mlx5_0/1")->severity,
                     SEVERITY_ERROR);
    ck_assert_int_eq(one_finding(&req.findings, "host.cpufreq", "mlx5_0/1")->severity, SEVERITY_OK);
    scan(&sw, "soft_roce", NULL);
    ck_assert_int_eq(one_finding(&sw.findings, "host.iommu", "rxe0/1")->severity, SEVERITY_UNKNOWN);
    ck_assert_int_eq(one_finding(&sw.findings, "host.irq_affinity", "rxe0/1")->severity,
                     SEVERITY_UNKNOWN);
    ck_assert_int_eq(one_finding(&sw.findings, "host.cpufreq", "rxe0/1")->severity,
                     SEVERITY_UNKNOWN);
    scan_done(&tuned);
    scan_done(&stock);
    scan_done(&req);
    scan_done(&sw);
}
END_TEST

/* A GPU node whose rails are not selected (or not up): the host path is judged once for
 * the node, unknown (nothing degraded yet) but with what the node shows: the ACS redirect
 * on the switch port above the GPU, the GPUs' IOMMU groups. */
START_TEST(test_host_path_railless)
{
    struct scan s;
    /* expect_count: 0, so that rails.count's error (no rail, test_no_rdma) is not in it. */
    const char *ib_only = "rails: {link_layer: infiniband, expect_count: 0}\n";
    scan(&s, "gpu_node_acs", ib_only);
    ck_assert_uint_eq(s.inv.n_rails, 0);
    ck_assert_uint_eq(s.inv.n_gpus, 2);
    ck_assert_int_eq(one_finding(&s.findings, "pcie.acs", NULL)->severity, SEVERITY_UNKNOWN);
    ck_assert_int_eq(one_finding(&s.findings, "pcie.mrrs", NULL)->severity, SEVERITY_UNKNOWN);
    ck_assert_int_eq(one_finding(&s.findings, "host.irq_affinity", NULL)->severity,
                     SEVERITY_UNKNOWN);
    for (size_t i = 0; i < s.findings.n; i++) {
        const struct finding *f = &s.findings.items[i];
        if (streq(f->check, "pcie.acs"))
            ck_assert_msg(strstr(f->message, "no RDMA rail; 1 of the"), "%s", f->message);
        ck_assert_msg((f->severity != SEVERITY_ERROR && f->severity != SEVERITY_WARNING) ||
                      strncmp(f->check, "tuning.", 7) == 0, "%s: %s", f->check, f->message);
    }
    scan_done(&s);
    scan(&s, "gpu_node", ib_only);
    for (size_t i = 0; i < s.findings.n; i++)
        if (streq(s.findings.items[i].check, "pcie.acs"))
            ck_assert_msg(strstr(s.findings.items[i].message, "0 of the"), "%s", s.findings.items[i].message);
    scan_done(&s);
    /* The stock 8-rail node's GPUs sit in DMA groups: said, without degrading. */
    scan(&s, "mlx5_8rail_host_stock", ib_only);
    ck_assert_uint_eq(s.inv.n_rails, 0);
    ck_assert_int_eq(one_finding(&s.findings, "host.iommu", NULL)->severity, SEVERITY_UNKNOWN);
    ck_assert_int_eq(one_finding(&s.findings, "host.cpufreq", NULL)->severity, SEVERITY_UNKNOWN);
    ck_assert_str_eq(s.inv.node_host.governor, "powersave");
    scan_done(&s);
    scan(&s, "mlx5_8rail", ib_only);
    ck_assert_int_eq(one_finding(&s.findings, "host.cpufreq", NULL)->severity, SEVERITY_OK);
    scan_done(&s);
}
END_TEST

/* The H200 VM's layout (a flat bus, no IOMMU groups, no cpufreq) with a rail beside its
 * GPU: what that host cannot say is unknown with its reason, never an error. */
START_TEST(test_host_path_h200_vm)
{
    struct scan s;
    scan(&s, "h200_vm_rail", NULL);
    ck_assert_int_eq(one_finding(&s.findings, "host.iommu", "mlx5_0/1")->severity,
                     SEVERITY_UNKNOWN);
    ck_assert_int_eq(one_finding(&s.findings, "host.cpufreq", "mlx5_0/1")->severity,
                     SEVERITY_UNKNOWN);
    ck_assert_int_eq(one_finding(&s.findings, "pcie.acs", "mlx5_0/1")->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&s.findings, "pcie.mrrs", "mlx5_0/1")->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&s.findings, "host.irq_affinity", "mlx5_0/1")->severity,
                     SEVERITY_OK);
    for (size_t i = 0; i < s.findings.n; i++) {
        const struct finding *f = &s.findings.items[i];
        if (strncmp(f->check, "host.", 5) == 0 || strncmp(f->check, "pcie.", 5) == 0)
            ck_assert_msg(f->severity != SEVERITY_ERROR, "%s: %s", f->check, f->message);
        if (streq(f->check, "host.iommu"))
            ck_assert_msg(strstr(f->message, "no IOMMU groups"), "%s", f->message);
        if (streq(f->check, "host.cpufreq"))
            ck_assert_msg(strstr(f->message, "no cpufreq for cpu0"), "%s", f->message);
    }
    ck_assert_uint_eq(s.inv.n_gpus, 1);
    scan_done(&s);
}
END_TEST

START_TEST(test_rails_compact)
{
    char buf[128];
    const char *run[] = { "mlx5_0/1", "mlx5_1/1", "mlx5_2/1", "mlx5_3/1" };
    rails_compact(run, 4, buf, sizeof(buf));
    ck_assert_str_eq(buf, "mlx5_0..3/1");
    const char *gap[] = { "mlx5_0/1", "mlx5_2/1" };
    rails_compact(gap, 2, buf, sizeof(buf));
    ck_assert_str_eq(buf, "mlx5_0/1, mlx5_2/1");
    const char *ports[] = { "mlx5_0/1", "mlx5_1/2" };
    rails_compact(ports, 2, buf, sizeof(buf));
    ck_assert_str_eq(buf, "mlx5_0/1, mlx5_1/2");
    const char *mixed[] = { "rxe0/1", "mlx5_1/1" };
    rails_compact(mixed, 2, buf, sizeof(buf));
    ck_assert_str_eq(buf, "rxe0/1, mlx5_1/1");
    const char *odd[] = { "/1", "x/" };
    rails_compact(odd, 2, buf, sizeof(buf));
    ck_assert_str_eq(buf, "/1, x/");
}
END_TEST

START_TEST(test_gid_holes)
{
    struct scan s;
    scan(&s, "gid_holes", NULL);
    const struct rail *r = &s.inv.rails[0];
    ck_assert(gid_is_zero(r->gids[2].raw) && gid_is_zero(r->gids[3].raw));
    ck_assert_int_eq(r->gids[6].type, GID_TYPE_MISSING);
    ck_assert_int_eq(r->gid_index, 5);
    ck_assert_int_eq(one_finding(&s.findings, "gid.family", "mlx5_0/1")->severity, SEVERITY_OK);
    /* Every NCCL since 2.21 reads entry 6's type (IPv4, valid), cannot open the file and
     * fails its selection: an error (issue 27, item 33), not a legacy-only warning. */
    ck_assert_int_eq(one_finding(&s.findings, "gid.nccl", "mlx5_0/1")->severity, SEVERITY_ERROR);
    ck_assert_int_eq(one_finding(&s.findings, "gid.nccl_legacy", "mlx5_0/1")->severity, SEVERITY_OK);
    ck_assert_int_eq(nccl_replay_failure(r, AF_INET, 2, NULL, NCCL_2_26), 6);
    ck_assert_int_eq(nccl_replay_failure(r, AF_INET, 2, NULL, NCCL_2_21), 6);

    /* fabtune's own pick takes the missing entry 6 as one of no version ... */
    struct cidr wide;
    ck_assert_int_eq(cidr_parse("10.0.0.0/24", &wide), 0);
    ck_assert_int_eq(nccl_replay_gid_index(r, AF_INET, 2, &wide), 5);
    /* ... but NCCL's family switch takes the first IPv4 entry in range without reading its
     * type, so a range that only 6 matches picks 6. */
    struct cidr only6;
    ck_assert_int_eq(cidr_parse("10.0.0.10/32", &only6), 0);
    ck_assert_int_eq(nccl_replay_gid_index(r, AF_INET, 2, &only6), 6);
    ck_assert_int_eq(nccl_replay_failure(r, AF_INET, 2, &only6, NCCL_2_26), -1);
    /* RoCE v1 requested: the v1 entry of the first IPv4 address. */
    ck_assert_int_eq(nccl_replay_gid_index(r, AF_INET, 1, NULL), 4);
    /* IPv6 requested and only link-local IPv6: NCCL stays at index 0. */
    ck_assert_int_eq(nccl_replay_gid_index(r, AF_INET6, 2, NULL), 0);
    scan_done(&s);
}
END_TEST

START_TEST(test_rail_list)
{
    struct scan s;
    scan(&s, "mlx5_8rail", "rails: {select: [{device: mlx5_7, port: 1}, {device: mlx5_2, port: 1},"
                           " {device: mlx5_9, port: 1}]}\n");
    ck_assert_uint_eq(s.inv.n_rails, 2);
    ck_assert_str_eq(s.inv.rails[0].name, "mlx5_7/1");   /* policy order is rail order */
    ck_assert_str_eq(s.inv.rails[1].name, "mlx5_2/1");
    ck_assert_int_eq(one_finding(&s.findings, "rails.count", "mlx5_9/1")->severity, SEVERITY_ERROR);
    ck_assert_str_eq(nccl_contract_get(&s.nccl, "NCCL_IB_HCA"), "=mlx5_7:1,mlx5_2:1");
    scan_done(&s);
}
END_TEST

START_TEST(test_no_rdma)
{
    struct scan s;
    scan(&s, "no_rdma", "rails: {expect_count: 8}\n");
    ck_assert_uint_eq(s.inv.n_rails, 0);
    ck_assert_ptr_nonnull(strstr(s.inv.why_no_rails, "class/infiniband does not exist"));
    ck_assert_int_eq(one_finding(&s.findings, "rails.count", NULL)->severity, SEVERITY_ERROR);
    ck_assert_msg(strncmp(one_finding(&s.findings, "rails.count", NULL)->message,
                          "0 of 8 expected rails: ", 23) == 0, "%s",
                  one_finding(&s.findings, "rails.count", NULL)->message);
    scan_done(&s);
    /* One rail expected: "rail", not "rails". */
    scan(&s, "no_rdma", "rails: {expect_count: 1}\n");
    ck_assert_msg(strncmp(one_finding(&s.findings, "rails.count", NULL)->message,
                          "0 of 1 expected rail: ", 22) == 0, "%s",
                  one_finding(&s.findings, "rails.count", NULL)->message);
    scan_done(&s);

    /* No rail and rails.expect_count unset (null, the default): NOT_READY's error, whose
     * hint names the TCP-only setting (issue 27 item 13: such a node was READY). */
    scan(&s, "no_rdma", NULL);
    ck_assert_uint_eq(s.policy.rails.expect_count, POLICY_COUNT_UNSET);
    const struct finding *f = one_finding(&s.findings, "rails.count", NULL);
    ck_assert_int_eq(f->severity, SEVERITY_ERROR);
    ck_assert_str_eq(f->expected, "at least 1");
    ck_assert_ptr_nonnull(strstr(f->message, "class/infiniband does not exist"));
    ck_assert_ptr_nonnull(strstr(f->hint, "rails: {expect_count: 0}"));
    scan_done(&s);
    scan(&s, "no_rdma", "rails: {expect_count: null}\n");
    ck_assert_int_eq(one_finding(&s.findings, "rails.count", NULL)->severity, SEVERITY_ERROR);
    scan_done(&s);

    /* An explicit 0: a TCP-only node, no rail is as expected. */
    scan(&s, "no_rdma", "rails: {expect_count: 0}\n");
    f = one_finding(&s.findings, "rails.count", NULL);
    ck_assert_int_eq(f->severity, SEVERITY_OK);
    ck_assert_ptr_nonnull(strstr(f->message, "as the policy expects"));
    scan_done(&s);

    /* GPUs without a rail (gpu_node's mlx5 ports are Ethernet, filtered out): the error
     * says the GPUs are there. */
    scan(&s, "gpu_node", "rails: {link_layer: infiniband}\n");
    ck_assert_uint_eq(s.inv.n_rails, 0);
    f = one_finding(&s.findings, "rails.count", NULL);
    ck_assert_int_eq(f->severity, SEVERITY_ERROR);
    ck_assert_msg(strncmp(f->message, "no rails (2 GPUs on this node): ", 32) == 0, "%s", f->message);
    scan_done(&s);
}
END_TEST

/* rails.expect_count 0 where rails exist: a warning, the TCP-only setting on an RDMA node;
 * unset with rails: ok, whatever their number. */
START_TEST(test_expect_count_zero_with_rails)
{
    struct scan s;
    scan(&s, "soft_roce", "rails: {expect_count: 0}\n");
    ck_assert_uint_eq(s.inv.n_rails, 1);
    const struct finding *f = one_finding(&s.findings, "rails.count", NULL);
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_str_eq(f->expected, "0");
    ck_assert_str_eq(f->actual, "1");
    ck_assert_str_eq(f->message, "1 rail, where the policy expects none (expect_count: 0)");
    scan_done(&s);

    scan(&s, "mlx5_8rail", NULL);
    f = one_finding(&s.findings, "rails.count", NULL);
    ck_assert_int_eq(f->severity, SEVERITY_OK);
    ck_assert_str_eq(f->message, "8 rails (no count expected)");
    scan_done(&s);
}
END_TEST

START_TEST(test_gpu_node)
{
    struct scan s;
    scan(&s, "gpu_node", NULL);
    ck_assert_uint_eq(s.inv.n_gpus, 2);
    ck_assert_str_eq(s.inv.gpus[0].pci_addr, "0000:18:00.0");
    ck_assert_int_eq(s.inv.gpus[1].numa_node, 1);
    ck_assert(s.inv.nvidia_loaded && !s.inv.peermem_loaded);
    ck_assert(s.inv.memlock_known);
    ck_assert_uint_eq(s.inv.memlock_soft, 8388608);
    const struct rail *r = &s.inv.rails[0];
    ck_assert(r->pcie.known);
    ck_assert_uint_eq(r->pcie.width, 8);
    ck_assert_uint_eq(r->pcie.max_width, 16);
    ck_assert_double_eq(r->pcie.speed_gts, 32);
    ck_assert_int_eq(one_finding(&s.findings, "pcie.link", "mlx5_0/1")->severity, SEVERITY_WARNING);
    ck_assert_int_eq(one_finding(&s.findings, "pcie.link", "mlx5_1/1")->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&s.findings, "gpudirect.affinity", "mlx5_0/1")->severity,
                     SEVERITY_OK);       /* PXB */
    ck_assert_int_eq(one_finding(&s.findings, "gpudirect.affinity", "mlx5_1/1")->severity,
                     SEVERITY_WARNING);  /* PHB */
    ck_assert_int_eq(one_finding(&s.findings, "gpudirect.peermem", NULL)->severity,
                     SEVERITY_WARNING);
    ck_assert_int_eq(one_finding(&s.findings, "host.memlock", NULL)->severity, SEVERITY_WARNING);
    scan_done(&s);

    /* The policy's minimum and "required" make them errors. */
    scan(&s, "gpu_node", "rails: {pcie: {min_width: 16}, gpudirect: required}\n");
    ck_assert_int_eq(one_finding(&s.findings, "pcie.link", "mlx5_0/1")->severity, SEVERITY_ERROR);
    ck_assert_int_eq(one_finding(&s.findings, "gpudirect.affinity", "mlx5_1/1")->severity,
                     SEVERITY_ERROR);
    ck_assert_int_eq(one_finding(&s.findings, "gpudirect.peermem", NULL)->severity, SEVERITY_ERROR);
    ck_assert_int_eq(findings_verdict(&s.findings), VERDICT_NOT_READY);
    scan_done(&s);

    /* GPUDirect is not ready (no nvidia_peermem, and mlx5_1 is only PHB to a GPU):
     * the contract leaves NCCL_NET_GDR_LEVEL to NCCL. */
    scan(&s, "gpu_node", NULL);
    ck_assert_ptr_null(nccl_contract_get(&s.nccl, "NCCL_NET_GDR_LEVEL"));
    scan_done(&s);
    scan(&s, "gpu_node_peermem", NULL);
    ck_assert(s.inv.peermem_loaded);
    ck_assert_ptr_null(nccl_contract_get(&s.nccl, "NCCL_NET_GDR_LEVEL"));
    scan_done(&s);
    /* With peermem and only the rail behind its GPU's switch, GPUDirect is ready. */
    scan(&s, "gpu_node_peermem", "rails: {select: [{device: mlx5_0, port: 1}]}\n");
    ck_assert_str_eq(nccl_contract_get(&s.nccl, "NCCL_NET_GDR_LEVEL"), "PXB");
    scan_done(&s);

    /* "ignore": no GPUDirect findings at all. */
    scan(&s, "gpu_node", "rails: {gpudirect: ignore}\n");
    for (size_t i = 0; i < s.findings.n; i++)
        ck_assert(strncmp(s.findings.items[i].check, "gpudirect.", 10) != 0);
    scan_done(&s);
}
END_TEST

/* A finding that could not be added (no memory, or past FINDINGS_MAX) may be the error
 * that keeps the node from READY: the verdict is UNKNOWN, never READY by omission. */
START_TEST(test_lost_finding_is_unknown)
{
    struct findings fs = { 0 };
    for (size_t i = 0; i < FINDINGS_MAX; i++)
        ck_assert_int_eq(findings_add(&fs, "port.state", SEVERITY_OK, NULL, NULL, NULL, NULL, "ok"), 0);
    ck_assert_int_eq(findings_verdict(&fs), VERDICT_READY);
    ck_assert_int_eq(findings_add(&fs, "port.state", SEVERITY_ERROR, "mlx5_0/1", NULL, NULL, NULL,
                                  "down"), -ENOBUFS);
    ck_assert_int_eq(findings_verdict(&fs), VERDICT_UNKNOWN);
    ck_assert_int_eq(findings_rail_verdict(&fs, "mlx5_0/1"), VERDICT_UNKNOWN);
    findings_done(&fs);
}
END_TEST

/* The inventory takes INVENTORY_MAX_RAILS rails and refuses one more. */
START_TEST(test_inventory_rails_bounded)
{
    struct inventory inv = { 0 };
    char dev[32];
    for (int i = 0; i <= INVENTORY_MAX_RAILS; i++) {
        snprintf(dev, sizeof(dev), "mlx5_%d", i);
        struct rail *r = inventory_add_rail(&inv, dev, 1);
        ck_assert(i < INVENTORY_MAX_RAILS ? r != NULL : r == NULL);
    }
    ck_assert_uint_eq(inv.n_rails, INVENTORY_MAX_RAILS);
    ck_assert_str_eq(inv.rails[INVENTORY_MAX_RAILS - 1].name, "mlx5_1023/1");
    inventory_done(&inv);
}
END_TEST

/* NCCL_IB_HCA is never cut short: a list that does not fit withholds the contract, and
 * says why (a cut list would steer NCCL off the rails it leaves out). */
START_TEST(test_hca_list_never_cut)
{
    struct inventory inv = { 0 };
    struct policy p;
    struct nccl_contract c;
    policy_init_defaults(&p);
    for (int i = 0; i < 600; i++) {
        char dev[32];
        snprintf(dev, sizeof(dev), "mlx5_%d", i);
        struct rail *r = inventory_add_rail(&inv, dev, 1);
        ck_assert_ptr_nonnull(r);
        strcpy(r->link_layer, "InfiniBand");
        r->gid_index = -1;
    }
    nccl_contract_compute(&inv, &p, &c);
    ck_assert_ptr_null(nccl_contract_get(&c, "NCCL_IB_HCA"));
    ck_assert_msg(strstr(c.why_empty, "do not fit NCCL_IB_HCA"), "%s", c.why_empty);
    inv.n_rails = 8;            /* eight fit, whole */
    nccl_contract_compute(&inv, &p, &c);
    ck_assert_str_eq(nccl_contract_get(&c, "NCCL_IB_HCA"),
                     "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1");
    inv.n_rails = 600;
    inventory_done(&inv);
    policy_done(&p);
}
END_TEST

START_TEST(test_no_gpus)
{
    struct scan s;
    scan(&s, "soft_roce", NULL);
    ck_assert_uint_eq(s.inv.n_gpus, 0);
    /* A software device: no PCIe link, no GPUs, memlock not in this tree: never an error. */
    ck_assert_int_eq(one_finding(&s.findings, "pcie.link", "rxe0/1")->severity, SEVERITY_UNKNOWN);
    ck_assert_int_eq(one_finding(&s.findings, "gpudirect.affinity", "rxe0/1")->severity,
                     SEVERITY_UNKNOWN);
    ck_assert_int_eq(one_finding(&s.findings, "gpudirect.peermem", NULL)->severity,
                     SEVERITY_UNKNOWN);
    ck_assert_int_eq(one_finding(&s.findings, "host.memlock", NULL)->severity, SEVERITY_UNKNOWN);
    ck_assert_int_eq(findings_verdict(&s.findings), VERDICT_READY);
    scan_done(&s);
}
END_TEST

/* Issue 27, "What it judges, on captures of real hosts" and "NCCL's GID selection,
 * replayed": each test below fails without its item's fix. */

/* Judges the scan's inventory again after a test changed it, as a pass would. */
static void rejudge(struct scan *s)
{
    for (size_t i = 0; i < s->inv.n_rails; i++)
        if (rail_is_roce(&s->inv.rails[i]))
            s->inv.rails[i].gid_index = rail_gid_index(&s->inv.rails[i], &s->policy);
    findings_done(&s->findings);
    checks_run(&(struct check_input){ .inventory = &s->inv, .policy = &s->policy }, &s->findings);
}

/* The one finding (check, rail), or NULL; fails the test on two. */
static const struct finding *finding_of(const struct scan *s, const char *check, const char *rail)
{
    const struct finding *hit = NULL;
    for (size_t i = 0; i < s->findings.n; i++) {
        const struct finding *f = &s->findings.items[i];
        if (streq(f->check, check) && f->rail && streq(f->rail, rail)) {
            ck_assert_msg(!hit, "two findings %s %s", check, rail);
            hit = f;
        }
    }
    return hit;
}

static bool has_text(const char *text, const char *part)
{
    return text && strstr(text, part);
}

static void set_gid(struct rail *r, uint32_t i, const char *sysfs_form, enum gid_type t)
{
    ck_assert_int_eq(gid_parse_sysfs(sysfs_form, r->gids[i].raw), 0);
    r->gids[i].type = t;
}

/* Item 23: InfiniBand takes index 0, or NCCL_IB_ROUTABLE_FLID_GID_INDEX (1) with a FLID. */
START_TEST(test_ib_gid_pick)
{
    struct scan s;
    scan(&s, "infiniband", NULL);
    struct rail *r = &s.inv.rails[0];
    ck_assert_int_eq(nccl_ib_gid_index(r), 0);
    ck_assert_ptr_null(nccl_ib_skip_reason(r, 0));
    set_gid(r, 1, "fe80:0000:0000:0000:b83f:d203:00b1:2b30", GID_TYPE_IB_ROCE_V1);
    ck_assert_int_eq(nccl_ib_gid_index(r), 0);
    ck_assert_str_eq(nccl_ib_skip_reason(r, 1), "no-flid");
    set_gid(r, 1, "fec0:0000:0007:0000:b83f:d203:00b1:2b30", GID_TYPE_IB_ROCE_V1);
    ck_assert_int_eq(nccl_ib_gid_index(r), 1);
    ck_assert_str_eq(nccl_ib_skip_reason(r, 0), "infiniband");
    scan_done(&s);
}
END_TEST

/* Item 24: the only RoCE v2 IPv4 address outside the subnet is gid.subnet's error. */
START_TEST(test_subnet_names_outside_address)
{
    struct scan s;
    scan(&s, "mlx5_8rail", "rails: {roce: {subnet: 10.1.0.0/16}}\n");
    const struct finding *f = finding_of(&s, "gid.subnet", "mlx5_2/1");
    ck_assert_int_eq(f->severity, SEVERITY_ERROR);
    ck_assert_str_eq(f->actual, "10.0.2.1");
    ck_assert_msg(has_text(f->message, "10.0.2.1 (GID index 3) is outside 10.1.0.0/16"), "%s", f->message);
    ck_assert_int_eq(one_finding(&s.findings, "gid.family", "mlx5_2/1")->severity, SEVERITY_OK);
    scan_done(&s);
}
END_TEST

/* Item 25: each physical state its own hint; a value the kernel does not name is unknown. */
START_TEST(test_phys_state_hints)
{
    static const struct { int state; const char *name, *hint; } cases[] = {
        { 1, "Sleep", "Sleep:" }, { 2, "Polling", "Polling:" }, { 3, "Disabled", "Disabled:" },
        { 4, "PortConfigurationTraining", "PortConfigurationTraining:" },
        { 6, "LinkErrorRecovery", "LinkErrorRecovery:" }, { 7, "Phy Test", "Phy Test:" },
    };
    struct scan s;
    scan(&s, "mlx5_8rail_rail_down", NULL);
    struct rail *r = &s.inv.rails[3];
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        r->phys_state = cases[i].state;
        strscpy(r->phys_state_name, cases[i].name, sizeof(r->phys_state_name));
        rejudge(&s);
        const struct finding *f = finding_of(&s, "port.phys_state", "mlx5_3/1");
        ck_assert_int_eq(f->severity, SEVERITY_ERROR);
        ck_assert_msg(f->hint && strncmp(f->hint, cases[i].hint, strlen(cases[i].hint)) == 0,
                      "state %d: %s", cases[i].state, f->hint);
    }
    r->phys_state = 9;
    strscpy(r->phys_state_name, "<unknown>", sizeof(r->phys_state_name));
    rejudge(&s);
    ck_assert_int_eq(one_finding(&s.findings, "port.phys_state", "mlx5_3/1")->severity, SEVERITY_UNKNOWN);
    scan_done(&s);
}
END_TEST

/* Items 26, 27, 28: what a capture lacks is said as such. */
START_TEST(test_capture_gaps)
{
    struct scan s;
    scan(&s, "capture_gaps", "rails: {mtu: {netdev_min: 0}}\n");
    const struct finding *f = finding_of(&s, "pcie.link", "mlx5_0/1");
    ck_assert_str_eq(f->message, "no PCI device link in this tree");
    f = finding_of(&s, "netdev.carrier", "mlx5_1/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_str_eq(f->message, "enp60s0f0np0 has no carrier file in this tree (oper state up)");
    /* Oper state down without a carrier file: the tree does not say why it is down (no
     * cable, or set down); never "administratively down" (issue 41, item 10). */
    strscpy(s.inv.rails[1].netdev.operstate, "down", sizeof(s.inv.rails[1].netdev.operstate));
    rejudge(&s);
    f = finding_of(&s, "netdev.carrier", "mlx5_1/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_str_eq(f->message, "enp60s0f0np0 has no carrier file in this tree (oper state down)");
    /* A carrier file the kernel would not read (EINVAL, not ENOENT): set down. */
    s.inv.rails[1].netdev.carrier_absent = false;
    rejudge(&s);
    ck_assert_str_eq(finding_of(&s, "netdev.carrier", "mlx5_1/1")->message,
                     "enp60s0f0np0 carrier not readable (the link is administratively down)");
    /* One finding for a missing netdev: no carrier or MTU of it to judge. */
    ck_assert_int_eq(one_finding(&s.findings, "netdev.oper", "mlx5_2/1")->severity, SEVERITY_ERROR);
    ck_assert_ptr_null(finding_of(&s, "netdev.carrier", "mlx5_2/1"));
    ck_assert_ptr_null(finding_of(&s, "netdev.mtu", "mlx5_2/1"));
    /* No gids/ at all: unknown, "no GID table". */
    ck_assert(!s.inv.rails[3].has_gid_table && s.inv.rails[2].has_gid_table);
    f = finding_of(&s, "gid.roce_v2", "mlx5_3/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_msg(has_text(f->message, "no GID table"), "%s", f->message);
    ck_assert_int_eq(one_finding(&s.findings, "gid.nccl", "mlx5_3/1")->severity, SEVERITY_UNKNOWN);
    ck_assert_ptr_null(finding_of(&s, "gid.family", "mlx5_3/1"));
    scan_done(&s);

    scan(&s, "soft_roce", NULL);
    ck_assert_str_eq(finding_of(&s, "pcie.link", "rxe0/1")->message,
                     "not a PCI function (a software device)");
    scan_done(&s);
}
END_TEST

/* Item 29: NCCL's fallback to a v1 link-local index 0 is a warning with the reason. */
START_TEST(test_link_local_fallback)
{
    struct scan s;
    scan(&s, "mlx5_8rail", NULL);
    struct rail *r = &s.inv.rails[0];
    set_gid(r, 2, "0000:0000:0000:0000:0000:0000:0000:0000", GID_TYPE_UNREADABLE);
    set_gid(r, 3, "0000:0000:0000:0000:0000:0000:0000:0000", GID_TYPE_UNREADABLE);
    rejudge(&s);
    ck_assert_int_eq(r->gid_index, 0);
    const struct finding *f = finding_of(&s, "gid.nccl", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_msg(has_text(f->message, "falls back to index 0: IB/RoCE v1 fe80::") &&
                  has_text(f->hint, "link-local GID does not route"), "%s", f->message);
    scan_done(&s);
}
END_TEST

/* Item 30: data that is not there is unknown, whatever the policy's bounds. */
START_TEST(test_absent_is_unknown)
{
    struct scan s;
    scan(&s, "mlx5_8rail", "rails: {min_rate_gbps: 0, mtu: {netdev_min: 0}}\n");
    s.inv.rails[0].rate_gbps = 0;
    s.inv.rails[0].netdev.mtu = 0;
    rejudge(&s);
    ck_assert_int_eq(one_finding(&s.findings, "port.rate", "mlx5_0/1")->severity, SEVERITY_UNKNOWN);
    ck_assert_int_eq(one_finding(&s.findings, "netdev.mtu", "mlx5_0/1")->severity, SEVERITY_UNKNOWN);
    ck_assert_int_eq(one_finding(&s.findings, "port.mtu", "mlx5_0/1")->severity, SEVERITY_UNKNOWN);
    ck_assert_int_eq(one_finding(&s.findings, "port.rate", "mlx5_1/1")->severity, SEVERITY_OK);
    scan_done(&s);
}
END_TEST

/* Item 32: an iWARP device is said to be one, and not judged as RoCE or InfiniBand. */
START_TEST(test_iwarp)
{
    struct scan s;
    scan(&s, "iwarp", NULL);
    ck_assert_uint_eq(s.inv.n_rails, 1);
    const struct rail *r = &s.inv.rails[0];
    ck_assert_int_eq(r->node_type, RAIL_NODE_TYPE_RNIC);
    ck_assert(rail_is_iwarp(r) && !rail_is_roce(r));
    ck_assert_int_eq(r->gid_index, -1);
    const struct finding *f = finding_of(&s, "port.link_layer", "cxgb4_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_msg(has_text(f->message, "an iWARP device"), "%s", f->message);
    ck_assert_ptr_null(finding_of(&s, "gid.roce_v2", "cxgb4_0/1"));
    ck_assert_ptr_null(finding_of(&s, "gid.nccl", "cxgb4_0/1"));
    ck_assert_int_eq(one_finding(&s.findings, "netdev.oper", "cxgb4_0/1")->severity, SEVERITY_OK);
    scan_done(&s);
}
END_TEST

/* The kernel's %pI6 text, as an inventory reads it from gids/N: eight groups of one to
 * four hex digits, and nothing else (the parser is by hand, not sscanf()). */
START_TEST(test_gid_parse_sysfs)
{
    static const uint8_t want[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
                                      0xba, 0x3f, 0xd2, 0xff, 0xfe, 0xa1, 0x2b, 0x3c };
    uint8_t raw[16];
    ck_assert_int_eq(gid_parse_sysfs("fe80:0000:0000:0000:ba3f:d2ff:fea1:2b3c", raw), 0);
    ck_assert_mem_eq(raw, want, 16);
    ck_assert_int_eq(gid_parse_sysfs("FE80:0:0:0:BA3F:D2FF:FEA1:2B3C", raw), 0);
    ck_assert_mem_eq(raw, want, 16);
    static const char *const bad[] = {
        "", "fe80:0000:0000:0000:ba3f:d2ff:fea1", "fe80:0000:0000:0000:ba3f:d2ff:fea1:2b3c:0",
        "fe80:0000:0000:0000:ba3f:d2ff:fea1:2b3c ", " fe80:0000:0000:0000:ba3f:d2ff:fea1:2b3c",
        "fe80:00000:0000:0000:ba3f:d2ff:fea1:2b3c", "fe80::ba3f:d2ff:fea1:2b3c",
        "fe80:0000:0000:0000:ba3f:d2ff:fea1:2b3g", "0xfe:0:0:0:0:0:0:0", "-1:0:0:0:0:0:0:0",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(gid_parse_sysfs(bad[i], raw) < 0, "took \"%s\"", bad[i]);
}
END_TEST

/* Item 33: a read that fails with EINVAL (not a missing file) is what 2.26+ skip. */
START_TEST(test_gid_type_einval)
{
    struct scan s;
    scan(&s, "gid_holes", NULL);
    s.inv.rails[0].gids[6].type = GID_TYPE_UNREADABLE;
    rejudge(&s);
    ck_assert_int_eq(one_finding(&s.findings, "gid.nccl", "mlx5_0/1")->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&s.findings, "gid.nccl_legacy", "mlx5_0/1")->severity, SEVERITY_WARNING);
    ck_assert_int_eq(nccl_replay_failure(&s.inv.rails[0], AF_INET, 2, NULL, NCCL_2_26), -1);
    ck_assert_int_eq(nccl_replay_failure(&s.inv.rails[0], AF_INET, 2, NULL, NCCL_2_21), 6);
    scan_done(&s);
}
END_TEST

/* Item 34: gid.nccl_legacy under the policy's family, on the entries 2.21 reads. */
START_TEST(test_legacy_as_policy)
{
    struct scan s;
    /* IPv6: 2.21 reads fd00::5:1's v2 entry (index 3), whose read fails. */
    scan(&s, "mlx5_8rail_gid_shift", "rails: {roce: {address_family: ipv6}}\n");
    s.inv.rails[5].gids[3].type = GID_TYPE_UNREADABLE;
    rejudge(&s);
    ck_assert_int_eq(one_finding(&s.findings, "gid.nccl_legacy", "mlx5_5/1")->severity, SEVERITY_WARNING);
    scan_done(&s);

    scan(&s, "mlx5_8rail", NULL);
    /* Readable text NCCL does not recognise: 2.21 reads it without failing. */
    s.inv.rails[1].gids[3].type = GID_TYPE_OTHER;
    /* The only IPv4 entry, taken by the family switch without reading its type. */
    set_gid(&s.inv.rails[2], 3, "0000:0000:0000:0000:0000:0000:0000:0000", GID_TYPE_UNREADABLE);
    s.inv.rails[2].gids[2].type = GID_TYPE_UNREADABLE;
    rejudge(&s);
    ck_assert_int_eq(one_finding(&s.findings, "gid.nccl_legacy", "mlx5_1/1")->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&s.findings, "gid.nccl_legacy", "mlx5_2/1")->severity, SEVERITY_OK);
    scan_done(&s);
}
END_TEST

/* Item 35: a range NCCL cannot parse for the family is ignored: every GID matches. */
START_TEST(test_range_other_family_ignored)
{
    struct scan s;
    struct cidr v6;
    scan(&s, "mlx5_8rail_gid_shift", NULL);
    ck_assert_int_eq(cidr_parse("fd00::/16", &v6), 0);
    ck_assert_int_eq(nccl_replay_gid_index(&s.inv.rails[5], AF_INET, 2, &v6),
                     nccl_replay_gid_index(&s.inv.rails[5], AF_INET, 2, NULL));
    ck_assert_int_eq(nccl_replay_gid_index(&s.inv.rails[5], AF_INET, 2, &v6), 5);
    scan_done(&s);
}
END_TEST

static Suite *checks_suite(void)
{
    Suite *s = suite_create("checks");
    TCase *tc = tcase_create("fixtures");
    tcase_add_test(tc, test_mlx5_8rail_ready);
    tcase_add_test(tc, test_contract_rendering);
    tcase_add_test(tc, test_gid_shift);
    tcase_add_test(tc, test_rail_down);
    tcase_add_test(tc, test_mtu1500);
    tcase_add_test(tc, test_uniform);
    tcase_add_test(tc, test_pcie_path);
    tcase_add_test(tc, test_infiniband);
    tcase_add_test(tc, test_soft_roce);
    tcase_add_test(tc, test_bnxt_re_no_counters);
    tcase_add_test(tc, test_gid_holes);
    tcase_add_test(tc, test_rails_compact);
    tcase_add_test(tc, test_mrrs);
    tcase_add_test(tc, test_acs);
    tcase_add_test(tc, test_host_path);
    tcase_add_test(tc, test_host_path_h200_vm);
    tcase_add_test(tc, test_host_path_railless);
    tcase_add_test(tc, test_ofed_qos_sysfs);
    tcase_add_test(tc, test_rail_list);
    tcase_add_test(tc, test_no_rdma);
    tcase_add_test(tc, test_expect_count_zero_with_rails);
    tcase_add_test(tc, test_gpu_node);
    tcase_add_test(tc, test_no_gpus);
    tcase_add_test(tc, test_lost_finding_is_unknown);
    tcase_add_test(tc, test_hca_list_never_cut);
    tcase_add_test(tc, test_inventory_rails_bounded);
    tcase_add_test(tc, test_state_dir);
    suite_add_tcase(s, tc);
    tc = tcase_create("issue27");
    tcase_add_test(tc, test_ib_gid_pick);
    tcase_add_test(tc, test_subnet_names_outside_address);
    tcase_add_test(tc, test_phys_state_hints);
    tcase_add_test(tc, test_capture_gaps);
    tcase_add_test(tc, test_link_local_fallback);
    tcase_add_test(tc, test_absent_is_unknown);
    tcase_add_test(tc, test_iwarp);
    tcase_add_test(tc, test_gid_type_einval);
    tcase_add_test(tc, test_gid_parse_sysfs);
    tcase_add_test(tc, test_legacy_as_policy);
    tcase_add_test(tc, test_range_other_family_ignored);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (check_shared_fixtures(fixtures, sizeof(fixtures)) < 0)
        return 99;
    return check_run(checks_suite());
}
