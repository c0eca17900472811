/* SPDX-License-Identifier: ISC */
/* Tests of the sysfs source, every check and the NCCL contract, on fixture trees that
 * mirror real kernel sysfs layouts (tests/fixtures/make-fixtures.sh says which). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "checks.h"
#include "check_run.h"
#include "macro.h"
#include "nccl.h"
#include "findings_text.h"
#include "cpulist.h"
#include "pci_config.h"
#include "topology.h"
#include "nccl_gid.h"
#include "report.h"
#include "inventory_take.h"
#include "source_limits.h"
#include "strutil.h"
#include "sysfs.h"

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
    checks_run(&s->inv, &s->policy, &s->findings);
    nccl_contract_compute(&s->inv, &s->policy, &s->nccl);
}

static void scan_done(struct scan *s)
{
    inventory_done(&s->inv);
    findings_done(&s->findings);
    policy_done(&s->policy);
}

/* The severity of the one finding (check, rail); fails the test if there is none or two. */
static enum severity sev(const struct scan *s, const char *check, const char *rail)
{
    const struct finding *hit = NULL;
    for (size_t i = 0; i < s->findings.n; i++) {
        const struct finding *f = &s->findings.items[i];
        if (streq(f->check, check) && ((!rail && !f->rail) || (rail && f->rail && streq(rail, f->rail)))) {
            ck_assert_msg(!hit, "two findings %s %s", check, rail ? rail : "");
            hit = f;
        }
    }
    ck_assert_msg(hit, "no finding %s %s", check, rail ? rail : "(node)");
    return hit->severity;
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

START_TEST(test_mlx5_8rail_inventory)
{
    struct scan s;
    scan(&s, "mlx5_8rail", NULL);
    ck_assert_uint_eq(s.inv.n_rails, 8);
    const struct rail *r = &s.inv.rails[5];
    ck_assert_str_eq(r->name, "mlx5_5/1");
    ck_assert_str_eq(r->driver, "mlx5_core");
    ck_assert_str_eq(r->fw_ver, "28.39.1002");
    ck_assert_str_eq(r->pci_addr, "0000:bc:00.0");
    ck_assert_int_eq(r->numa_node, 1);
    ck_assert_str_eq(r->link_layer, "Ethernet");
    ck_assert_int_eq(r->state, 4);
    ck_assert_str_eq(r->state_name, "ACTIVE");
    ck_assert_int_eq(r->phys_state, 5);
    ck_assert_double_eq(r->rate_gbps, 400);
    ck_assert_uint_eq(r->n_gids, 256);
    ck_assert_int_eq(r->gids[3].type, GID_TYPE_ROCE_V2);
    ck_assert_int_eq(r->gids[2].type, GID_TYPE_IB_ROCE_V1);
    ck_assert_int_eq(r->gids[200].type, GID_TYPE_UNREADABLE);
    ck_assert(r->has_counters && r->has_hw_counters);
    ck_assert_str_eq(r->netdev.name, "enp188s0f0np0");
    ck_assert(r->netdev.present);
    ck_assert_str_eq(r->netdev.operstate, "up");
    ck_assert_int_eq(r->netdev.carrier, 1);
    ck_assert_uint_eq(r->netdev.mtu, 9000);
    ck_assert_uint_eq(r->netdev.carrier_changes, 2);
    ck_assert_uint_eq(r->active_mtu, 0);     /* verbs only */
    scan_done(&s);
}
END_TEST

START_TEST(test_mlx5_8rail_ready)
{
    struct scan s;
    scan(&s, "mlx5_8rail", "rails: {link_layer: ethernet, expect_count: 8, min_rate_gbps: 400,"
                           " mtu: {netdev_min: 4200}, roce: {subnet: 10.0.0.0/16}}\n");
    ck_assert_int_eq(sev(&s, "rails.count", NULL), SEVERITY_OK);
    for (size_t i = 0; i < ARRAY_SIZE(rails8); i++) {
        ck_assert_int_eq(sev(&s, "port.state", rails8[i]), SEVERITY_OK);
        ck_assert_int_eq(sev(&s, "port.rate", rails8[i]), SEVERITY_OK);
        ck_assert_int_eq(sev(&s, "netdev.mtu", rails8[i]), SEVERITY_OK);
        ck_assert_int_eq(sev(&s, "gid.roce_v2", rails8[i]), SEVERITY_OK);
        ck_assert_int_eq(sev(&s, "gid.family", rails8[i]), SEVERITY_OK);
        ck_assert_int_eq(sev(&s, "gid.subnet", rails8[i]), SEVERITY_OK);
        ck_assert_int_eq(sev(&s, "gid.nccl", rails8[i]), SEVERITY_OK);
        ck_assert_int_eq(s.inv.rails[i].gid_index, 3);
    }
    ck_assert_int_eq(sev(&s, "gid.consistent", NULL), SEVERITY_OK);
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
    ck_assert_int_eq(sev(&s, "gid.family", "mlx5_5/1"), SEVERITY_OK);
    ck_assert_int_eq(sev(&s, "gid.nccl_legacy", "mlx5_5/1"), SEVERITY_OK);
    ck_assert_int_eq(sev(&s, "gid.consistent", NULL), SEVERITY_WARNING);
    ck_assert_int_eq(findings_verdict(&s.findings), VERDICT_DEGRADED);
    /* One index cannot serve every rail: hand the choice back to NCCL, inside the subnet. */
    ck_assert_str_eq(nccl_contract_get(&s.nccl, "NCCL_IB_GID_INDEX"), "-1");
    ck_assert_str_eq(nccl_contract_get(&s.nccl, "NCCL_IB_ADDR_RANGE"), "10.0.0.0/8");
    scan_done(&s);

    /* A fixed index 3 is the IPv6 entry on rail 5: an error on that rail only. */
    scan(&s, "mlx5_8rail_gid_shift", "rails: {roce: {gid_index: 3}}\n");
    ck_assert_int_eq(sev(&s, "gid.family", "mlx5_5/1"), SEVERITY_ERROR);
    ck_assert_int_eq(sev(&s, "gid.family", "mlx5_4/1"), SEVERITY_OK);
    ck_assert_int_eq(sev(&s, "gid.consistent", NULL), SEVERITY_OK);
    ck_assert_int_eq(sev(&s, "gid.nccl", "mlx5_5/1"), SEVERITY_WARNING);
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
    ck_assert_int_eq(sev(&s, "port.state", "mlx5_3/1"), SEVERITY_ERROR);
    ck_assert_int_eq(sev(&s, "port.phys_state", "mlx5_3/1"), SEVERITY_ERROR);
    ck_assert_int_eq(sev(&s, "netdev.oper", "mlx5_3/1"), SEVERITY_ERROR);
    ck_assert_int_eq(sev(&s, "netdev.carrier", "mlx5_3/1"), SEVERITY_ERROR);
    ck_assert_int_eq(sev(&s, "port.state", "mlx5_2/1"), SEVERITY_OK);
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
    ck_assert_int_eq(sev(&s, "netdev.mtu", "mlx5_6/1"), SEVERITY_ERROR);
    ck_assert_int_eq(sev(&s, "netdev.mtu", "mlx5_5/1"), SEVERITY_OK);
    /* A snapshot has no active MTU: unknown, never a false error. */
    ck_assert_int_eq(sev(&s, "port.mtu", "mlx5_6/1"), SEVERITY_UNKNOWN);
    ck_assert_uint_eq(count_sev(&s, SEVERITY_ERROR), 1);
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
    ck_assert_int_eq(sev(&s, "port.link_layer", "mlx5_0/1"), SEVERITY_OK);
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
    ck_assert_int_eq(sev(&s, "rails.count", NULL), SEVERITY_ERROR);
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
    ck_assert_int_eq(sev(&s, "qos.pfc", "mlx5_0/1"), SEVERITY_UNKNOWN);
    ck_assert_int_eq(sev(&s, "qos.trust", "mlx5_0/1"), SEVERITY_OK);
    ck_assert_int_eq(sev(&s, "qos.ecn", "mlx5_0/1"), SEVERITY_OK);
    ck_assert_int_eq(sev(&s, "qos.cnp", "mlx5_0/1"), SEVERITY_OK);
    ck_assert_int_eq(sev(&s, "qos.ecn", "mlx5_2/1"), SEVERITY_ERROR);
    ck_assert_int_eq(sev(&s, "qos.cnp", "mlx5_4/1"), SEVERITY_WARNING);
    ck_assert_int_eq(sev(&s, "qos.trust", "mlx5_7/1"), SEVERITY_ERROR);
    ck_assert_int_eq(sev(&s, "qos.global_pause", "mlx5_7/1"), SEVERITY_UNKNOWN);
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

/* A config space: header with a capability list, the PCIe capability at 0x60 with Device
 * Control DEVCTL, and (when ACS is nonzero) an ACS extended capability at 0x100. */
static void config_space(uint8_t *b, uint16_t devctl, uint16_t acs_ctrl)
{
    memset(b, 0, 4096);
    b[0] = 0xb3, b[1] = 0x15, b[2] = 0x21, b[3] = 0x10;
    b[6] = 0x10;                /* Status: capability list */
    b[0x34] = 0x60;
    b[0x60] = 0x10, b[0x61] = 0x00, b[0x62] = 0x02;
    b[0x68] = (uint8_t)devctl, b[0x69] = (uint8_t)(devctl >> 8);
    if (acs_ctrl) {
        b[0x100] = 0x0d, b[0x102] = 0x01;    /* ACS, version 1, next 0 */
        b[0x104] = 0x7f;
        b[0x106] = (uint8_t)acs_ctrl, b[0x107] = (uint8_t)(acs_ctrl >> 8);
    }
}

START_TEST(test_pci_config_parse)
{
    static uint8_t b[4096];
    struct pci_config c;
    config_space(b, 0x5020, PCI_ACS_SV | PCI_ACS_RR | PCI_ACS_CR | PCI_ACS_UF);
    ck_assert_int_eq(pci_config_parse(b, sizeof(b), &c), 0);
    ck_assert_uint_eq(c.vendor, 0x15b3);
    ck_assert(c.pcie);
    ck_assert_uint_eq(c.max_read_request, 4096);
    ck_assert_uint_eq(c.max_payload, 256);
    ck_assert(c.acs);
    ck_assert_uint_eq(c.acs_ctrl & PCI_ACS_P2P_REDIRECT, PCI_ACS_P2P_REDIRECT);
    /* 256 bytes (no extended space): the PCIe capability, no ACS. */
    ck_assert_int_eq(pci_config_parse(b, 256, &c), 0);
    ck_assert(c.pcie && !c.extended && !c.acs);
    /* 64 bytes, what non-root reads: the header only. */
    ck_assert_int_eq(pci_config_parse(b, 64, &c), 0);
    ck_assert(c.header && !c.pcie);
    ck_assert_int_eq(pci_config_parse(b, 63, &c), -EBADMSG);
    /* A function gone reads all ones. */
    memset(b, 0xff, 64);
    ck_assert_int_eq(pci_config_parse(b, 64, &c), -EBADMSG);
    /* A capability that points at itself, and one past the buffer: the walk ends. */
    config_space(b, 0x2020, 0);
    b[0x61] = 0x60;
    ck_assert_int_eq(pci_config_parse(b, sizeof(b), &c), 0);
    ck_assert_uint_eq(c.max_read_request, 512);
    b[0x34] = 0xfc;
    ck_assert_int_eq(pci_config_parse(b, 0xfd, &c), 0);
    ck_assert(!c.pcie);
    /* An extended capability whose next pointer loops back: bounded. */
    config_space(b, 0x5020, PCI_ACS_SV);
    b[0x102] = 0x01, b[0x103] = 0x10;          /* next = 0x100: itself */
    ck_assert_int_eq(pci_config_parse(b, sizeof(b), &c), 0);
    ck_assert(c.acs);
}
END_TEST

/* The real H200's GPU config space (tests/fixtures/README): the walk finds what pciutils'
 * lspci finds in it. */
START_TEST(test_pci_config_h200)
{
    static uint8_t b[8192];
    char path[512];
    snprintf(path, sizeof(path), "%s/tests/fixtures/h200-vm-gpu-config.bin", TEST_SRCDIR);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f, "%s", path);
    size_t n = fread(b, 1, sizeof(b), f);
    fclose(f);
    ck_assert_uint_eq(n, 4096);
    struct pci_config c;
    ck_assert_int_eq(pci_config_parse(b, n, &c), 0);
    ck_assert_uint_eq(c.vendor, 0x10de);
    ck_assert_uint_eq(c.n_capabilities, 4);     /* 40 48 60 b0 */
    ck_assert(c.pcie);
    ck_assert_uint_eq(c.pcie_type, 0);          /* Endpoint */
    ck_assert_uint_eq(c.max_payload, 256);
    ck_assert_uint_eq(c.max_read_request, 4096);
    ck_assert(c.extended);
    ck_assert_uint_eq(c.n_extended, 9);         /* 100 12c 134 1b8 248 250 2a4 2b8 2f0 */
    ck_assert(!c.acs);
}
END_TEST

/* pcie.mrrs on the 8-rail node: 4096 everywhere but rail 6's 512 (mlnx_tune's warning). */
START_TEST(test_mrrs)
{
    struct scan s;
    scan(&s, "mlx5_8rail_mrrs512", NULL);
    ck_assert_uint_eq(s.inv.rails[0].pcie.max_read_request, 4096);
    ck_assert_uint_eq(s.inv.rails[6].pcie.max_read_request, 512);
    ck_assert_int_eq(sev(&s, "pcie.mrrs", "mlx5_0/1"), SEVERITY_OK);
    ck_assert_int_eq(sev(&s, "pcie.mrrs", "mlx5_6/1"), SEVERITY_WARNING);
    ck_assert_int_eq(findings_verdict(&s.findings), VERDICT_DEGRADED);
    /* A policy minimum of 512 accepts it; the software device says why it is unknown. */
    struct scan t;
    scan(&t, "mlx5_8rail_mrrs512", "rails: {pcie: {min_mrrs: 512}}\n");
    ck_assert_int_eq(sev(&t, "pcie.mrrs", "mlx5_6/1"), SEVERITY_OK);
    struct scan u;
    scan(&u, "soft_roce", NULL);
    ck_assert_int_eq(sev(&u, "pcie.mrrs", "rxe0/1"), SEVERITY_UNKNOWN);
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
    ck_assert_int_eq(sev(&off, "pcie.acs", "mlx5_0/1"), SEVERITY_OK);
    ck_assert_int_eq(sev(&off, "pcie.acs", "mlx5_1/1"), SEVERITY_OK);
    const struct pci_bridge *b = inventory_find_bridge(&off.inv, "0000:17:00.0");
    ck_assert(b && b->read && b->acs && b->acs_ctrl == 0);
    scan(&on, "gpu_node_acs", NULL);
    ck_assert_int_eq(sev(&on, "pcie.acs", "mlx5_0/1"), SEVERITY_WARNING);
    ck_assert_int_eq(sev(&on, "pcie.acs", "mlx5_1/1"), SEVERITY_OK);
    scan(&req, "gpu_node_acs", "rails: {gpudirect: required}\n");
    ck_assert_int_eq(sev(&req, "pcie.acs", "mlx5_0/1"), SEVERITY_ERROR);
    scan(&sw, "soft_roce", NULL);
    ck_assert_int_eq(sev(&sw, "pcie.acs", "rxe0/1"), SEVERITY_UNKNOWN);
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

START_TEST(test_cpulist)
{
    struct cpuset a, b;
    ck_assert_int_eq(cpulist_parse("0-3,8-11\n", &a), 0);
    ck_assert_int_eq(cpuset_first(&a), 0);
    ck_assert_int_eq(cpulist_parse("10", &b), 0);
    ck_assert(cpuset_intersects(&a, &b));
    ck_assert_int_eq(cpulist_parse("12-4095", &b), 0);
    ck_assert(!cpuset_intersects(&a, &b));
    ck_assert_int_eq(cpuset_first(&b), 12);
    ck_assert_int_eq(cpulist_parse("", &b), 0);
    ck_assert_int_eq(cpuset_first(&b), -1);
    ck_assert_int_eq(cpulist_parse("4096", &b), -ERANGE);
    ck_assert_int_eq(cpulist_parse("5-3", &b), -EINVAL);
    ck_assert_int_eq(cpulist_parse("1,,2", &b), -EINVAL);
    ck_assert_int_eq(cpulist_parse("ff", &b), -EINVAL);
    ck_assert_int_eq(cpulist_parse("1-", &b), -EINVAL);
    ck_assert_int_eq(cpulist_parse("99999999999999999999", &b), -ERANGE);
}
END_TEST

/* host.iommu, host.cpufreq, host.irq_affinity: the 8-rail node tuned (identity groups, the
 * performance governor, interrupts on each HCA's node), then as a stock kernel leaves it. */
START_TEST(test_host_path)
{
    struct scan tuned, stock, req, sw;
    scan(&tuned, "mlx5_8rail", NULL);
    ck_assert_int_eq(sev(&tuned, "host.iommu", "mlx5_0/1"), SEVERITY_OK);
    ck_assert_int_eq(sev(&tuned, "host.cpufreq", "mlx5_4/1"), SEVERITY_OK);
    ck_assert_int_eq(sev(&tuned, "host.irq_affinity", "mlx5_5/1"), SEVERITY_OK);
    ck_assert_uint_eq(tuned.inv.rails[5].host.irqs, 4);
    scan(&stock, "mlx5_8rail_host_stock", NULL);
    ck_assert_int_eq(sev(&stock, "host.iommu", "mlx5_0/1"), SEVERITY_WARNING);
    ck_assert_str_eq(stock.inv.iommu_cmdline, "intel_iommu=on");
    ck_assert_int_eq(sev(&stock, "host.cpufreq", "mlx5_7/1"), SEVERITY_WARNING);
    ck_assert_str_eq(stock.inv.rails[7].host.governor, "powersave");
    ck_assert_int_eq(sev(&stock, "host.irq_affinity", "mlx5_2/1"), SEVERITY_WARNING);
    ck_assert_uint_eq(stock.inv.rails[2].host.irqs_off_node, 4);
    ck_assert_int_eq(sev(&stock, "host.irq_affinity", "mlx5_3/1"), SEVERITY_OK);
    ck_assert_int_eq(findings_verdict(&stock.findings), VERDICT_DEGRADED);
    scan(&req, "mlx5_8rail_host_stock", "host: {iommu: required, cpufreq: powersave}\n");
    ck_assert_int_eq(sev(&req, "host.iommu", "mlx5_0/1"), SEVERITY_ERROR);
    ck_assert_int_eq(sev(&req, "host.cpufreq", "mlx5_0/1"), SEVERITY_OK);
    scan(&sw, "soft_roce", NULL);
    ck_assert_int_eq(sev(&sw, "host.iommu", "rxe0/1"), SEVERITY_UNKNOWN);
    ck_assert_int_eq(sev(&sw, "host.irq_affinity", "rxe0/1"), SEVERITY_UNKNOWN);
    ck_assert_int_eq(sev(&sw, "host.cpufreq", "rxe0/1"), SEVERITY_UNKNOWN);
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
    const char *ib_only = "rails: {link_layer: infiniband}\n";
    scan(&s, "gpu_node_acs", ib_only);
    ck_assert_uint_eq(s.inv.n_rails, 0);
    ck_assert_uint_eq(s.inv.n_gpus, 2);
    ck_assert_int_eq(sev(&s, "pcie.acs", NULL), SEVERITY_UNKNOWN);
    ck_assert_int_eq(sev(&s, "pcie.mrrs", NULL), SEVERITY_UNKNOWN);
    ck_assert_int_eq(sev(&s, "host.irq_affinity", NULL), SEVERITY_UNKNOWN);
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
    ck_assert_int_eq(sev(&s, "host.iommu", NULL), SEVERITY_UNKNOWN);
    ck_assert_int_eq(sev(&s, "host.cpufreq", NULL), SEVERITY_UNKNOWN);
    ck_assert_str_eq(s.inv.node_host.governor, "powersave");
    scan_done(&s);
    scan(&s, "mlx5_8rail", ib_only);
    ck_assert_int_eq(sev(&s, "host.cpufreq", NULL), SEVERITY_OK);
    scan_done(&s);
}
END_TEST

/* The H200 VM's layout (a flat bus, no IOMMU groups, no cpufreq) with a rail beside its
 * GPU: what that host cannot say is unknown with its reason, never an error. */
START_TEST(test_host_path_h200_vm)
{
    struct scan s;
    scan(&s, "h200_vm_rail", NULL);
    ck_assert_int_eq(sev(&s, "host.iommu", "mlx5_0/1"), SEVERITY_UNKNOWN);
    ck_assert_int_eq(sev(&s, "host.cpufreq", "mlx5_0/1"), SEVERITY_UNKNOWN);
    ck_assert_int_eq(sev(&s, "pcie.acs", "mlx5_0/1"), SEVERITY_OK);
    ck_assert_int_eq(sev(&s, "pcie.mrrs", "mlx5_0/1"), SEVERITY_OK);
    ck_assert_int_eq(sev(&s, "host.irq_affinity", "mlx5_0/1"), SEVERITY_OK);
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
    ck_assert_int_eq(r->gids[6].type, GID_TYPE_UNREADABLE);
    ck_assert_int_eq(r->gid_index, 5);
    ck_assert_int_eq(sev(&s, "gid.family", "mlx5_0/1"), SEVERITY_OK);
    ck_assert_int_eq(sev(&s, "gid.nccl", "mlx5_0/1"), SEVERITY_OK);
    /* NCCL 2.21-2.25 read entry 6's type (IPv4, valid) and fail on it. */
    ck_assert_int_eq(sev(&s, "gid.nccl_legacy", "mlx5_0/1"), SEVERITY_WARNING);

    /* The version comparison skips the unreadable entry 6 ... */
    struct cidr wide;
    ck_assert_int_eq(cidr_parse("10.0.0.0/24", &wide), 0);
    ck_assert_int_eq(nccl_replay_gid_index(r, AF_INET, 2, &wide), 5);
    /* ... but NCCL's family switch takes the first IPv4 entry in range without reading its
     * type, so a range that only 6 matches picks 6. */
    struct cidr only6;
    ck_assert_int_eq(cidr_parse("10.0.0.10/32", &only6), 0);
    ck_assert_int_eq(nccl_replay_gid_index(r, AF_INET, 2, &only6), 6);
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
    ck_assert_int_eq(sev(&s, "rails.count", "mlx5_9/1"), SEVERITY_ERROR);
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
    ck_assert_int_eq(sev(&s, "rails.count", NULL), SEVERITY_ERROR);
    scan_done(&s);

    scan(&s, "no_rdma", NULL);
    ck_assert_int_eq(sev(&s, "rails.count", NULL), SEVERITY_UNKNOWN);
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
    ck_assert_int_eq(sev(&s, "pcie.link", "mlx5_0/1"), SEVERITY_WARNING);
    ck_assert_int_eq(sev(&s, "pcie.link", "mlx5_1/1"), SEVERITY_OK);
    ck_assert_int_eq(sev(&s, "gpudirect.affinity", "mlx5_0/1"), SEVERITY_OK);       /* PXB */
    ck_assert_int_eq(sev(&s, "gpudirect.affinity", "mlx5_1/1"), SEVERITY_WARNING);  /* PHB */
    ck_assert_int_eq(sev(&s, "gpudirect.peermem", NULL), SEVERITY_WARNING);
    ck_assert_int_eq(sev(&s, "host.memlock", NULL), SEVERITY_WARNING);
    scan_done(&s);

    /* The policy's minimum and "required" make them errors. */
    scan(&s, "gpu_node", "rails: {pcie: {min_width: 16}, gpudirect: required}\n");
    ck_assert_int_eq(sev(&s, "pcie.link", "mlx5_0/1"), SEVERITY_ERROR);
    ck_assert_int_eq(sev(&s, "gpudirect.affinity", "mlx5_1/1"), SEVERITY_ERROR);
    ck_assert_int_eq(sev(&s, "gpudirect.peermem", NULL), SEVERITY_ERROR);
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

/* What jobs get, not fabtuned's own limit: slurmd first, then limits.conf and limits.d, then
 * the process's own limit, each named (tests/fixtures/limits mirrors the kernel's
 * /proc/PID/limits and pam_limits' files). */
START_TEST(test_memlock_sources)
{
    char proc[512], etc[512], where[256], gpu_proc[512];
    snprintf(proc, sizeof(proc), "%s/tests/fixtures/limits/proc", TEST_SRCDIR);
    snprintf(etc, sizeof(etc), "%s/tests/fixtures/limits", TEST_SRCDIR);
    snprintf(gpu_proc, sizeof(gpu_proc), "%s/gpu_node/proc", fixtures);
    uint64_t v = 0;

    ck_assert_int_eq(limits_file_memlock(strcat(strcpy((char[600]){ 0 }, proc), "/4242/limits"), &v), 0);
    ck_assert_uint_eq(v, 65536);
    ck_assert_int_eq(limits_file_memlock(strcat(strcpy((char[600]){ 0 }, proc), "/1/comm"), &v), -ENOENT);

    /* limits.d comes after limits.conf; README is not a .conf file. */
    ck_assert_int_eq(limits_conf_memlock(etc, &v, where, sizeof(where)), 0);
    ck_assert_uint_eq(v, UINT64_MAX);
    ck_assert_str_eq(where, "/etc/security/limits.d/90-rdma.conf:2");
    ck_assert_int_eq(limits_conf_memlock(proc, &v, where, sizeof(where)), -ENOENT);

    struct inventory inv;
    memset(&inv, 0, sizeof(inv));
    source_limits_scan(proc, etc, false, &inv);     /* slurmd wins, even offline */
    ck_assert(inv.memlock_known);
    ck_assert_uint_eq(inv.memlock_soft, 65536);
    ck_assert_msg(strstr(inv.memlock_source, "slurmd (pid 4242)"), "%s", inv.memlock_source);

    memset(&inv, 0, sizeof(inv));
    source_limits_scan(gpu_proc, etc, true, &inv);  /* no slurmd: limits.d */
    ck_assert_uint_eq(inv.memlock_soft, UINT64_MAX);
    ck_assert_msg(strstr(inv.memlock_source, "90-rdma.conf:2"), "%s", inv.memlock_source);

    memset(&inv, 0, sizeof(inv));
    source_limits_scan(gpu_proc, etc, false, &inv); /* offline: the captured process's own */
    ck_assert_uint_eq(inv.memlock_soft, 8388608);
    ck_assert_msg(strstr(inv.memlock_source, "captured process"), "%s", inv.memlock_source);

    /* The finding names where the limit came from (no rails here: unknown, not warning). */
    struct findings out = { 0 };
    struct policy p;
    policy_init_defaults(&p);
    check_host(&inv, &p, &out);
    policy_done(&p);
    bool seen = false;
    for (size_t i = 0; i < out.n; i++)
        if (streq(out.items[i].check, "host.memlock")) {
            seen = true;
            ck_assert_int_eq(out.items[i].severity, SEVERITY_UNKNOWN);
            ck_assert_msg(strstr(out.items[i].message, "8388608 bytes, from the captured process"), "%s", out.items[i].message);
        }
    ck_assert(seen);
    findings_done(&out);
}
END_TEST

/* A tree of an unexpected shape: ports/0 and ports/x (once a SEGV), a gids/x entry, a
 * FIFO in place of a port's state and of a policy (once a hang), "010" (once read as 8). */
START_TEST(test_hostile_tree)
{
    char tmp[] = "/tmp/check_hostile.XXXXXX", cmd[1024], sys[600], path[700];
    ck_assert_ptr_nonnull(mkdtemp(tmp));
    snprintf(cmd, sizeof(cmd), "cp -a %s/soft_roce/sys %s/ && cd %s/sys/class/infiniband/rxe0/ports && "
             "cp -a 1 0 && cp -a 1 x && mkdir 1/gids/x && rm 1/state && mkfifo 1/state && "
             "mkfifo %s/policy.yaml && printf '010\n' > %s/numa", fixtures, tmp, tmp, tmp, tmp);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(sys, sizeof(sys), "%s/sys", tmp);

    struct policy p;
    struct inventory inv;
    policy_init_defaults(&p);
    ck_assert_int_eq(inventory_take(sys, "/nonexistent", &p, &inv), 0);
    ck_assert_uint_eq(inv.n_rails, 1);
    ck_assert_uint_eq(inv.rails[0].port, 1);
    ck_assert_int_eq(inv.rails[0].state, 0);            /* the FIFO: not read, unknown */
    ck_assert_uint_eq(inv.rails[0].n_gids, 1024);       /* gids/x ignored */
    bool noted = false;
    for (size_t i = 0; i < inv.n_notes; i++)
        noted |= strstr(inv.notes[i], "ignoring ports/") != NULL;
    ck_assert(noted);
    struct findings out = { 0 };
    checks_run(&inv, &p, &out);
    ck_assert_int_eq(sev(&(struct scan){ .findings = out }, "port.state", "rxe0/1"), SEVERITY_UNKNOWN);
    findings_done(&out);
    inventory_done(&inv);
    policy_done(&p);

    char *text = NULL;
    snprintf(path, sizeof(path), "%s/policy.yaml", tmp);
    ck_assert_int_eq(read_file_full(path, 65536, &text, NULL), -EINVAL);
    int64_t v = 0;
    ck_assert_int_eq(sysfs_read_int(tmp, &v, "numa"), 0);
    ck_assert_int_eq(v, 10);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
    ck_assert_int_eq(system(cmd), 0);
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

/* The rails' verdicts are worked out once per report, in one walk of the findings, and
 * each is what findings_rail_verdict() says for that rail: rails with no finding, ok,
 * warning and error ones, two rails of one name, findings of rails the inventory does not
 * have and node-wide ones, then a lost finding. health, status and metrics ask for every
 * rail: walking all findings once a rail took ~1 ms a health query on 72 rails. */
START_TEST(test_rail_verdicts_cached)
{
    struct report r;
    uint32_t seed = 12345;
    memset(&r, 0, sizeof(r));
    for (int i = 0; i < 300; i++) {
        char dev[32];
        snprintf(dev, sizeof(dev), "mlx5_%d", i == 299 ? 7 : i);   /* 299 is named as 7 */
        ck_assert_ptr_nonnull(inventory_add_rail(&r.inventory, dev, 1 + (i % 3 == 0)));
    }
    for (int i = 0; i < 3000; i++) {
        seed = seed * 1103515245 + 12345;
        char rail[32];
        unsigned dev = (seed >> 8) % 400, port = 1 + (seed >> 20) % 2;
        enum severity sev = (enum severity)((seed >> 24) % 4);
        snprintf(rail, sizeof(rail), "mlx5_%u/%u", dev, port);
        ck_assert_int_eq(findings_add(&r.findings, "port.state", sev, dev < 350 ? rail : NULL,
                                      NULL, NULL, NULL, "x"), 0);
    }
    report_finish(&r);
    ck_assert_ptr_nonnull(r.rail_verdicts);
    size_t by[VERDICT_UNKNOWN + 1] = { 0 };
    for (size_t i = 0; i < r.inventory.n_rails; i++) {
        enum verdict v = report_rail_verdict(&r, i);
        ck_assert_int_eq(v, findings_rail_verdict(&r.findings, r.inventory.rails[i].name));
        by[v]++;
    }
    for (enum verdict v = VERDICT_READY; v <= VERDICT_UNKNOWN; v++)
        ck_assert_msg(by[v] > 0, "no rail with verdict %s", verdict_to_string(v));
    ck_assert_int_eq(report_rail_verdict(&r, 299), report_rail_verdict(&r, 7));
    r.findings.lost = true;
    report_finish(&r);
    for (size_t i = 0; i < r.inventory.n_rails; i++)
        ck_assert_int_eq(report_rail_verdict(&r, i), VERDICT_UNKNOWN);
    report_done(&r);
}
END_TEST

static int renders;

static json_object *render_counted(const struct report *r)
{
    renders++;
    return json_object_new_string(r->hostname);
}

/* A reply that takes long to render (the metrics: ~15 ms on 72 rails) is rendered once per
 * report and then served serialized, its text kept for the textfile output; without a
 * cache, each time. */
START_TEST(test_reply_rendered_once)
{
    struct report r;
    struct policy p;
    policy_init_defaults(&p);
    memset(&r, 0, sizeof(r));
    report_init(&r, &p, "<built-in>");
    ck_assert_ptr_nonnull(r.cache);
    strcpy(r.hostname, "node\"17");
    renders = 0;
    json_object *a = report_reply(&r, REPORT_REPLY_METRICS, render_counted);
    json_object *b = report_reply(&r, REPORT_REPLY_METRICS, render_counted);
    ck_assert_int_eq(renders, 1);
    ck_assert_str_eq(json_object_to_json_string(a), "\"node\\\"17\"");
    ck_assert_str_eq(json_object_to_json_string(b), json_object_to_json_string(a));
    /* The text as rendered, for the textfile output: not rendered again. */
    ck_assert_str_eq(report_reply_text(&r, REPORT_REPLY_METRICS), "node\"17");
    ck_assert_ptr_null(report_reply_text(&r, REPORT_REPLY_CHECKS));
    ck_assert_int_eq(renders, 1);
    json_object_put(a);
    json_object_put(b);
    report_done(&r);
    ck_assert_ptr_null(r.cache);
    a = report_reply(&r, REPORT_REPLY_METRICS, render_counted);
    json_object_put(a);
    a = report_reply(&r, REPORT_REPLY_METRICS, render_counted);
    json_object_put(a);
    ck_assert_int_eq(renders, 3);
    policy_done(&p);
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
    ck_assert_int_eq(sev(&s, "pcie.link", "rxe0/1"), SEVERITY_UNKNOWN);
    ck_assert_int_eq(sev(&s, "gpudirect.affinity", "rxe0/1"), SEVERITY_UNKNOWN);
    ck_assert_int_eq(sev(&s, "gpudirect.peermem", NULL), SEVERITY_UNKNOWN);
    ck_assert_int_eq(sev(&s, "host.memlock", NULL), SEVERITY_UNKNOWN);
    ck_assert_int_eq(findings_verdict(&s.findings), VERDICT_READY);
    scan_done(&s);
}
END_TEST

static Suite *checks_suite(void)
{
    Suite *s = suite_create("checks");
    TCase *tc = tcase_create("fixtures");
    tcase_add_test(tc, test_mlx5_8rail_inventory);
    tcase_add_test(tc, test_mlx5_8rail_ready);
    tcase_add_test(tc, test_contract_rendering);
    tcase_add_test(tc, test_gid_shift);
    tcase_add_test(tc, test_rail_down);
    tcase_add_test(tc, test_mtu1500);
    tcase_add_test(tc, test_infiniband);
    tcase_add_test(tc, test_soft_roce);
    tcase_add_test(tc, test_bnxt_re_no_counters);
    tcase_add_test(tc, test_gid_holes);
    tcase_add_test(tc, test_rails_compact);
    tcase_add_test(tc, test_pci_config_parse);
    tcase_add_test(tc, test_mrrs);
    tcase_add_test(tc, test_pci_config_h200);
    tcase_add_test(tc, test_acs);
    tcase_add_test(tc, test_cpulist);
    tcase_add_test(tc, test_host_path);
    tcase_add_test(tc, test_host_path_h200_vm);
    tcase_add_test(tc, test_host_path_railless);
    tcase_add_test(tc, test_ofed_qos_sysfs);
    tcase_add_test(tc, test_rail_list);
    tcase_add_test(tc, test_no_rdma);
    tcase_add_test(tc, test_gpu_node);
    tcase_add_test(tc, test_no_gpus);
    tcase_add_test(tc, test_memlock_sources);
    tcase_add_test(tc, test_hostile_tree);
    tcase_add_test(tc, test_lost_finding_is_unknown);
    tcase_add_test(tc, test_rail_verdicts_cached);
    tcase_add_test(tc, test_reply_rendered_once);
    tcase_add_test(tc, test_hca_list_never_cut);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (check_shared_fixtures(fixtures, sizeof(fixtures)) < 0)
        return 99;
    return check_run(checks_suite());
}
