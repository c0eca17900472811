/* SPDX-License-Identifier: ISC */
/* Tests of the sources on their own: the sysfs inventory of the 8-rail fixture, the PCI
 * config space walk (built spaces and the real H200's), the memlock limit's sources, and a
 * sysfs tree of hostile shapes. */
#include "config.h"

#include <errno.h>
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "check_findings.h"
#include "check_run.h"
#include "inventory_take.h"
#include "pci_config.h"
#include "source_limits.h"
#include "source_port_data.h"
#include "source_sysfs.h"
#include "fileio.h"
#include "macro.h"
#include "sysfs.h"

static char fixtures[256];

/* The offline inventory of FIXTURE (tests/fixtures/make-fixtures.sh) under the default
 * policy, as a snapshot gives it. */
static void take_offline(struct policy *p, struct inventory *inv, const char *fixture)
{
    char root[512], proc[512];
    policy_init_defaults(p);
    snprintf(root, sizeof(root), "%s/%s/sys", fixtures, fixture);
    snprintf(proc, sizeof(proc), "%s/%s/proc", fixtures, fixture);
    ck_assert_int_eq(inventory_take(root, proc, p, inv), 0);
    ck_assert_int_eq(inv->source, INVENTORY_OFFLINE);
}

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

START_TEST(test_mlx5_8rail_inventory)
{
    struct policy p;
    struct inventory inv;
    take_offline(&p, &inv, "mlx5_8rail");
    ck_assert_uint_eq(inv.n_rails, 8);
    const struct rail *r = &inv.rails[5];
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
    inventory_done(&inv);
    policy_done(&p);
}
END_TEST

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
    char tmp[] = "/tmp/check_hostile.XXXXXX", sys[600], path[700];
    ck_assert_ptr_nonnull(mkdtemp(tmp));
    sh("cp -a %s/soft_roce/sys %s/ && cd %s/sys/class/infiniband/rxe0/ports && "
       "cp -a 1 0 && cp -a 1 x && mkdir 1/gids/x && rm 1/state && mkfifo 1/state && "
       "mkfifo %s/policy.yaml && printf '010\n' > %s/numa", fixtures, tmp, tmp, tmp, tmp);
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
    checks_run(&(struct check_input){ .inventory = &inv, .policy = &p }, &out);
    ck_assert_int_eq(one_finding(&out, "port.state", "rxe0/1")->severity, SEVERITY_UNKNOWN);
    findings_done(&out);
    inventory_done(&inv);
    policy_done(&p);

    char *text = NULL;
    snprintf(path, sizeof(path), "%s/policy.yaml", tmp);
    ck_assert_int_eq(read_file_full(path, 65536, &text, NULL), -EINVAL);
    int64_t v = 0;
    ck_assert_int_eq(sysfs_read_int(tmp, &v, "numa"), 0);
    ck_assert_int_eq(v, 10);
    sh("rm -rf %s", tmp);
}
END_TEST

/* A bond's slaves as drivers/net/bonding/bond_sysfs.c lists them (bonding/slaves: names,
 * space-separated; "++more++" past a page): names no netdev can have are no slaves, at
 * most BOND_SLAVES_MAX are kept, and a slave the tree does not hold is not called down.
 * netdev.oper names the one that is down. */
START_TEST(test_bond_slaves)
{
    char tmp[] = "/tmp/check_bond.XXXXXX", sys[600];
    ck_assert_ptr_nonnull(mkdtemp(tmp));
    snprintf(sys, sizeof(sys), "%s/sys", tmp);
    sh("d=%s/class/net && mkdir -p $d/bond0/bonding $d/s1 $d/s2 && "
       "printf '../x b:c . ++more++ s1 s2 s3 s4 s5 s6 s7 s8 s9\n' > $d/bond0/bonding/slaves && "
       "echo 'balance-xor 2' > $d/bond0/bonding/mode && echo up > $d/bond0/operstate && "
       "echo down > $d/s1/operstate && echo 0 > $d/s1/carrier && "
       "echo up > $d/s2/operstate && echo 1 > $d/s2/carrier", sys);
    struct rail r = { .name = "mlx5_bond_0/1", .link_layer = "Ethernet" };
    snprintf(r.netdev.name, sizeof(r.netdev.name), "bond0");
    source_sysfs_netdev(sys, &r.netdev);
    const struct bond_info *b = &r.netdev.bond;
    ck_assert(b->is_bond && b->more);
    ck_assert_str_eq(b->mode, "balance-xor");
    ck_assert_uint_eq(b->n_slaves, BOND_SLAVES_MAX);
    ck_assert_str_eq(b->slaves[0].name, "s1");
    ck_assert_str_eq(b->slaves[7].name, "s8");
    ck_assert(b->slaves[0].present && b->slaves[0].carrier == 0);
    ck_assert(!b->slaves[2].present);
    struct inventory inv = { .rails = &r, .n_rails = 1 };
    struct policy p;
    struct findings out = { 0 };
    policy_init_defaults(&p);
    check_netdevs(&inv, &p, &out);
    const struct finding *f = one_finding(&out, "netdev.oper", "mlx5_bond_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_str_eq(f->message, "bond0 is up, but not its slave s1 (operstate down, no carrier): "
                                 "the rail runs on 7 of its 8 links' bandwidth");
    findings_done(&out);
    /* Both slaves it holds down, the others absent: still a warning, never "all down". */
    sh("echo down > %s/class/net/s2/operstate", sys);
    memset(&r.netdev.bond, 0, sizeof(r.netdev.bond));
    source_sysfs_netdev(sys, &r.netdev);
    check_netdevs(&inv, &p, &out);
    f = one_finding(&out, "netdev.oper", "mlx5_bond_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_ptr_nonnull(strstr(f->message, "not its slaves s1 (operstate down, no carrier), "
                                             "s2 (operstate down)"));
    findings_done(&out);
    policy_done(&p);
    sh("rm -rf %s", tmp);
}
END_TEST

/* route.isolation's port data: each RDMA port's counters/port_rcv_data and port_xmit_data
 * (times 4) on the entry of the netdev its GIDs name, or its PCI function's (IPoIB); none
 * for Soft-RoCE (no counters/), bnxt_re (no counters/) or a netdev without an RDMA port. */
START_TEST(test_port_data)
{
    char root[512], ifname[IFNAMSIZ];
    static const char *const names[] = { "enp26s0f0np0", "enp60s0f0np0", "ibp26s1", "v0",
                                         "ens65f0np0", "eth9" };
    struct link_traffic t = { .n = ARRAY_SIZE(names) };
    snprintf(root, sizeof(root), "%s/port_data/sys", fixtures);

    ck_assert_int_eq(source_sysfs_port_netdev(root, "mlx5_0", 1, ifname, sizeof(ifname)), 0);
    ck_assert_str_eq(ifname, "enp26s0f0np0");
    ck_assert_int_eq(source_sysfs_port_netdev(root, "mlx5_8", 1, ifname, sizeof(ifname)), 0);
    ck_assert_str_eq(ifname, "ibp26s1");        /* no GID names it: device/net/ */
    ck_assert_int_eq(source_sysfs_port_netdev(root, "rxe0", 1, ifname, sizeof(ifname)), 0);
    ck_assert_str_eq(ifname, "v0");
    ck_assert_int_eq(source_sysfs_port_netdev(root, "mlx5_7", 1, ifname, sizeof(ifname)), -ENOENT);
    ck_assert_str_eq(ifname, "");

    for (size_t i = 0; i < t.n; i++) {
        snprintf(t.e[i].name, sizeof(t.e[i].name), "%s", names[i]);
        t.e[i].rx_bytes = t.e[i].tx_bytes = 99;
    }
    t.e[5].has_port_data = true;            /* a stale figure: cleared */
    t.e[5].port_rx_bytes = 5;
    source_port_data_read(root, &t);
    ck_assert(t.e[0].has_port_data);
    ck_assert_uint_eq(t.e[0].port_rx_bytes, 4 * 250000);
    ck_assert_uint_eq(t.e[0].port_tx_bytes, 4 * 125000);
    ck_assert(t.e[1].has_port_data);
    ck_assert_uint_eq(t.e[1].port_rx_bytes, 28);
    ck_assert(t.e[1].port_tx_bytes == 4 * 1099511627776ull);    /* 64-bit, not truncated */
    ck_assert(t.e[2].has_port_data);
    ck_assert_uint_eq(t.e[2].port_rx_bytes, 4000);
    ck_assert_uint_eq(t.e[2].port_tx_bytes, 8000);
    for (size_t i = 3; i < t.n; i++) {
        ck_assert_msg(!t.e[i].has_port_data, "%s has port data", names[i]);
        ck_assert_uint_eq(t.e[i].port_rx_bytes, 0);
    }
    ck_assert_uint_eq(t.e[0].rx_bytes, 99);    /* the netdev's own counters untouched */

    /* A tree without RDMA devices: none, and no error. */
    snprintf(root, sizeof(root), "%s/no_rdma/sys", fixtures);
    source_port_data_read(root, &t);
    for (size_t i = 0; i < t.n; i++)
        ck_assert(!t.e[i].has_port_data);
}
END_TEST

static Suite *sources_suite(void)
{
    Suite *s = suite_create("sources");
    TCase *tc = tcase_create("fixtures");
    tcase_add_test(tc, test_mlx5_8rail_inventory);
    tcase_add_test(tc, test_pci_config_parse);
    tcase_add_test(tc, test_pci_config_h200);
    tcase_add_test(tc, test_memlock_sources);
    tcase_add_test(tc, test_hostile_tree);
    tcase_add_test(tc, test_bond_slaves);
    tcase_add_test(tc, test_port_data);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (check_shared_fixtures(fixtures, sizeof(fixtures)) < 0)
        return 99;
    return check_run(sources_suite());
}
