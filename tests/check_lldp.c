/* SPDX-License-Identifier: ISC */
/* The LLDP neighbours: the capture's parser (sources/lldp_parse) on lldpd's real text
 * (fixtures/lldp/real-lldpd.txt) and a leaf's (leaf.txt), its refusals; the fabric.*
 * checks (checks/check_neighbors.c) on inventories built here: a rail-optimized node, two
 * rails on one switch port, two on one switch under distinct_switches, patterns with
 * {index}, a recabled port's stale neighbour, a small frame size, a missing VLAN, no neighbour before and after the bound,
 * no lldpd (with the mlx5 firmware agent's hint), InfiniBand; the policy keys' round trip;
 * the capture against no socket and against a socket that never answers. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "check_findings.h"
#include "check_run.h"
#include "checks.h"
#include "fileio.h"
#include "lldp_capture.h"
#include "lldp_parse.h"

static char *fixture(const char *name, size_t *len)
{
    char path[512], *buf = NULL;
    snprintf(path, sizeof(path), "%s/tests/fixtures/lldp/%s", TEST_SRCDIR, name);
    ck_assert_int_eq(read_file_full(path, 1 << 20, &buf, len), 0);
    return buf;
}

START_TEST(test_parse_real_lldpd)
{
    size_t len;
    char *buf = fixture("real-lldpd.txt", &len);
    struct rail_lldp l;
    ck_assert_int_eq(lldp_parse(buf, len, &l), 0);
    ck_assert(l.known);
    ck_assert_uint_eq(l.n, 1);
    ck_assert_str_eq(l.nb[0].sysname, "leaf-a");
    ck_assert_str_eq(l.nb[0].chassis_subtype, "mac");
    ck_assert_str_eq(l.nb[0].chassis_id, "5e:16:23:b4:3c:8a");
    ck_assert_str_eq(l.nb[0].port_subtype, "mac");
    ck_assert_str_eq(l.nb[0].port_descr, "s0");
    ck_assert_str_eq(lldp_port_name(&l.nb[0]), "s0");   /* a MAC id: the description */
    ck_assert_ptr_nonnull(strstr(l.nb[0].sysdescr, "Debian GNU/Linux 12 (bookworm)"));
    ck_assert_uint_eq(l.nb[0].mfs, 0);
    ck_assert_uint_eq(l.nb[0].n_vlans, 0);
    free(buf);
}
END_TEST

START_TEST(test_parse_leaf)
{
    size_t len;
    char *buf = fixture("leaf.txt", &len);
    struct rail_lldp l;
    ck_assert_int_eq(lldp_parse(buf, len, &l), 0);
    ck_assert_str_eq(l.nb[0].sysname, "leaf-r@N@");
    ck_assert_str_eq(l.nb[0].port_descr, "uplink to node-17 rail @N@");
    ck_assert_str_eq(lldp_port_name(&l.nb[0]), "swp@P@");
    ck_assert_uint_eq(l.nb[0].n_mgmt, 1);
    ck_assert_str_eq(l.nb[0].mgmt[0], "192.0.2.1@N@");
    ck_assert_uint_eq(l.nb[0].n_vlans, 1);
    ck_assert_uint_eq(l.nb[0].vlans[0], 100);
    ck_assert_uint_eq(l.nb[0].pvid, 100);
    ck_assert_uint_eq(l.nb[0].mfs, 9216);
    ck_assert_uint_eq(l.nb[0].age_s, 37);
    free(buf);
}
END_TEST

static void refused(const char *text, const char *why)
{
    struct rail_lldp l;
    ck_assert_int_eq(lldp_parse(text, strlen(text), &l), -EINVAL);
    ck_assert(!l.known);
    ck_assert_msg(strstr(l.why, why), "'%s' lacks '%s'", l.why, why);
}

START_TEST(test_parse_refusals)
{
    refused("", "empty");
    refused("lldp\nneighbor\n", "line 1: not a fabtune LLDP capture");
    refused("fabtune-lldp 1\nsysname x\n", "line 2: a key before the first");
    refused("fabtune-lldp 1\nneighbor\nsysname\n", "line 3: a line without a value");
    refused("fabtune-lldp 1\nneighbor\nsysname a%2\n", "bad %XX escape in sysname");
    refused("fabtune-lldp 1\nneighbor\nsysname a%00b\n", "bad %XX escape");
    refused("fabtune-lldp 1\nneighbor\nvlan 4096\n", "vlan is not a VLAN id");
    refused("fabtune-lldp 1\nneighbor\nmfs 9k\n", "mfs is not a frame size");
    refused("fabtune-lldp 1\nneighbor\nage -1\n", "age is not");
}
END_TEST

START_TEST(test_parse_bounds)
{
    char text[8192] = "fabtune-lldp 1\n";
    for (int i = 0; i < 3; i++)
        strcat(text, "neighbor\nsysname sw\nfuture.key whatever\n");
    for (int i = 0; i < LLDP_MAX_VLANS + 5; i++)
        snprintf(text + strlen(text), sizeof(text) - strlen(text), "vlan %d\n", i + 1);
    strcat(text, "port.descr ");
    for (int i = 0; i < 300; i++)
        strcat(text, "x");
    struct rail_lldp l;
    ck_assert_int_eq(lldp_parse(text, strlen(text), &l), 0);
    ck_assert_uint_eq(l.n, LLDP_MAX_NEIGHBORS);
    ck_assert_uint_eq(l.n_dropped, 1);
    ck_assert_str_eq(l.nb[1].sysname, "sw");
}
END_TEST

/* lldpd's socket absent, or an lldpd that accepts and never answers: the capture says why,
 * the latter within LLDP_CAPTURE_TIMEOUT (liblldpctl's own transport would block forever). */
START_TEST(test_capture_unanswered)
{
    char dir[64], path[96], why[160], *text;
    size_t len;
    ck_assert_int_eq(check_socket_dir(dir, sizeof(dir)), 0);
    snprintf(path, sizeof(path), "%s/mute.sock", dir);
    unlink(path);
    ck_assert_int_eq(lldp_capture(path, "eth0", &text, &len, why, sizeof(why)), -ENOENT);
    ck_assert_ptr_nonnull(strstr(why, "No such file or directory"));
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    ck_assert_uint_lt(strlen(path), sizeof(sa.sun_path));
    memcpy(sa.sun_path, path, strlen(path) + 1);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    ck_assert_int_eq(listen(fd, 4), 0);     /* connects complete; nothing ever answers */
    usec_t t0 = now_usec(CLOCK_MONOTONIC);
    ck_assert_int_eq(lldp_capture(path, "eth0", &text, &len, why, sizeof(why)), -ETIMEDOUT);
    usec_t took = now_usec(CLOCK_MONOTONIC) - t0;
    ck_assert_msg(took >= LLDP_CAPTURE_TIMEOUT && took < LLDP_CAPTURE_TIMEOUT + USEC_PER_SEC,
                  "took %llu us", (unsigned long long)took);
    ck_assert_msg(strstr(why, "did not answer within 2 s"), "%s", why);
    ck_assert_ptr_null(text);
    close(fd);
    unlink(path);
    ck_assert_int_eq(lldp_capture(path, "eth0", &text, &len, why, sizeof(why)), -ENOENT);
    rmdir(dir);
}
END_TEST

/* ---- the checks ------------------------------------------------------------------- */

static struct inventory inv;
static struct policy pol;
static struct findings fs;

static void add_rail(const char *name, const char *driver, const char *sw, const char *chassis,
                     const char *port, uint32_t mfs)
{
    char dev[32];
    snprintf(dev, sizeof(dev), "%.*s", (int)(strchr(name, '/') - name), name);
    struct rail *r = inventory_add_rail(&inv, dev, 1);
    ck_assert_ptr_nonnull(r);
    strcpy(r->name, name);
    strcpy(r->driver, driver);
    strcpy(r->link_layer, "Ethernet");
    snprintf(r->netdev.name, sizeof(r->netdev.name), "eth%zu", inv.n_rails - 1);
    r->netdev.present = true;
    strcpy(r->netdev.operstate, "up");
    r->netdev.carrier = 1;
    r->netdev.mtu = 9000;
    r->lldp.known = true;
    if (!sw)
        return;
    struct lldp_neighbor *n = &r->lldp.nb[r->lldp.n++];
    strcpy(n->sysname, sw);
    strcpy(n->chassis_subtype, "mac");
    strcpy(n->chassis_id, chassis);
    strcpy(n->port_subtype, "ifname");
    strcpy(n->port_id, port);
    n->mfs = mfs;
    n->vlans[n->n_vlans++] = 100;
}

static void setup(void)
{
    memset(&inv, 0, sizeof(inv));
    memset(&fs, 0, sizeof(fs));
    policy_init_defaults(&pol);
}

static void teardown(void)
{
    findings_done(&fs);
    inventory_done(&inv);
    policy_done(&pol);
}

/* The one finding CHECK on RAIL after the checks ran again, or NULL where there is none. */
static const struct finding *judge(const char *check, const char *rail)
{
    findings_done(&fs);
    memset(&fs, 0, sizeof(fs));
    check_neighbors(&inv, NULL, &pol, &fs);
    for (size_t i = 0; i < fs.n; i++)
        if (streq(fs.items[i].check, check) && fs.items[i].rail && streq(fs.items[i].rail, rail))
            return one_finding(&fs, check, rail);
    return NULL;
}

static void expect(const char *check, const char *rail, enum severity sev, const char *text)
{
    const struct finding *f = judge(check, rail);
    ck_assert_msg(f, "no %s on %s", check, rail);
    ck_assert_msg(f->severity == sev, "%s on %s: %s, not %s: %s", check, rail,
                  severity_to_string(f->severity), severity_to_string(sev), f->message);
    if (text)
        ck_assert_msg(strstr(f->message, text) || (f->hint && strstr(f->hint, text)),
                      "%s on %s: '%s' (hint '%s') lacks '%s'", check, rail, f->message,
                      f->hint ? f->hint : "", text);
}

static void rail_optimized(void)
{
    add_rail("mlx5_0/1", "mlx5_core", "leaf-r0-a", "0c:42:a1:00:00:00", "swp1", 9216);
    add_rail("mlx5_1/1", "mlx5_core", "leaf-r1-a", "0c:42:a1:00:00:10", "swp1", 9216);
    add_rail("mlx5_2/1", "mlx5_core", "leaf-r2-a", "0c:42:a1:00:00:20", "swp1", 9216);
}

START_TEST(test_rail_optimized_ok)
{
    rail_optimized();
    pol.rails.topology = TOPOLOGY_DISTINCT_SWITCHES;
    pol.rails.neighbors.switch_pattern = strdup("leaf-r{index}-*");
    pol.rails.neighbors.port_pattern = strdup("swp*");
    pol.rails.neighbors.vlan = 100;
    for (int i = 0; i < 3; i++) {
        char rail[16];
        snprintf(rail, sizeof(rail), "mlx5_%d/1", i);
        expect("fabric.neighbor", rail, SEVERITY_OK, "port swp1");
        expect("fabric.cabling", rail, SEVERITY_OK, NULL);
        expect("fabric.mtu", rail, SEVERITY_OK, NULL);
        expect("fabric.vlan", rail, SEVERITY_OK, NULL);
    }
    ck_assert_str_eq(judge("fabric.cabling", "mlx5_2/1")->expected, "switch leaf-r2-*, port swp*");
}
END_TEST

START_TEST(test_same_switch_port)
{
    rail_optimized();
    /* Cables of rails 1 and 2 both at leaf-r1-a swp1 (a patch-panel slip). */
    struct lldp_neighbor *n = &inv.rails[2].lldp.nb[0];
    strcpy(n->sysname, "leaf-r1-a");
    strcpy(n->chassis_id, "0c:42:a1:00:00:10");
    expect("fabric.cabling", "mlx5_1/1", SEVERITY_ERROR,
           "mlx5_2/1 reaches the same switch port, leaf-r1-a port swp1");
    expect("fabric.cabling", "mlx5_2/1", SEVERITY_ERROR,
           "mlx5_1/1 reaches the same switch port, leaf-r1-a port swp1");
    expect("fabric.cabling", "mlx5_0/1", SEVERITY_OK, NULL);
}
END_TEST

START_TEST(test_distinct_switches)
{
    rail_optimized();
    struct lldp_neighbor *n = &inv.rails[2].lldp.nb[0];
    strcpy(n->sysname, "leaf-r1-a");
    strcpy(n->chassis_id, "0c:42:a1:00:00:10");
    strcpy(n->port_id, "swp2");
    /* any: two rails on one switch, other ports, is no fault */
    expect("fabric.cabling", "mlx5_2/1", SEVERITY_OK, NULL);
    pol.rails.topology = TOPOLOGY_DISTINCT_SWITCHES;
    expect("fabric.cabling", "mlx5_2/1", SEVERITY_ERROR,
           "mlx5_1/1 reaches the same switch, leaf-r1-a (rails.topology is distinct_switches)");
    expect("fabric.cabling", "mlx5_1/1", SEVERITY_ERROR, "mlx5_2/1 reaches the same switch");
}
END_TEST

START_TEST(test_patterns)
{
    rail_optimized();
    pol.rails.neighbors.switch_pattern = strdup("leaf-r{index}-*");
    strcpy(inv.rails[1].lldp.nb[0].sysname, "leaf-r7-b");
    expect("fabric.cabling", "mlx5_1/1", SEVERITY_ERROR, "switch leaf-r7-b does not match leaf-r1-*");
    expect("fabric.cabling", "mlx5_0/1", SEVERITY_OK, NULL);
    pol.rails.neighbors.port_pattern = strdup("swp{index}");
    expect("fabric.cabling", "mlx5_0/1", SEVERITY_ERROR, "port swp1 does not match swp0");
    expect("fabric.cabling", "mlx5_1/1", SEVERITY_ERROR,
           "switch leaf-r7-b does not match leaf-r1-*");
    /* No system name: the chassis id is the switch's name. */
    inv.rails[2].lldp.nb[0].sysname[0] = '\0';
    expect("fabric.cabling", "mlx5_2/1", SEVERITY_ERROR,
           "switch 0c:42:a1:00:00:20 does not match leaf-r2-*");
}
END_TEST

/* lldpd keeps a recabled port's old neighbour until its TTL runs out: the fresh one counts. */
START_TEST(test_recabled_stale_neighbor)
{
    rail_optimized();
    pol.rails.topology = TOPOLOGY_DISTINCT_SWITCHES;
    struct rail_lldp *l = &inv.rails[2].lldp;
    l->nb[0].age_s = 50;                    /* leaf-r2-a, before the move */
    struct lldp_neighbor *n = &l->nb[l->n++];
    *n = inv.rails[1].lldp.nb[0];           /* now on leaf-r1-a, port swp2 */
    strcpy(n->port_id, "swp2");
    n->age_s = 1;
    expect("fabric.neighbor", "mlx5_2/1", SEVERITY_WARNING, "leaf-r1-a port swp2 (seen 1 s ago), and older neighbours");
    expect("fabric.cabling", "mlx5_2/1", SEVERITY_ERROR, "mlx5_1/1 reaches the same switch, leaf-r1-a");
    expect("fabric.cabling", "mlx5_1/1", SEVERITY_ERROR, "mlx5_2/1 reaches the same switch, leaf-r1-a");
}
END_TEST

START_TEST(test_mtu)
{
    rail_optimized();
    inv.rails[1].lldp.nb[0].mfs = 1518;     /* a leaf port left at the default */
    expect("fabric.mtu", "mlx5_1/1", SEVERITY_ERROR, "frames up to 1518 bytes, below MTU 9000 + 18");
    inv.rails[1].lldp.nb[0].mfs = 9018;
    expect("fabric.mtu", "mlx5_1/1", SEVERITY_OK, NULL);
    pol.rails.neighbors.vlan = 100;         /* a tagged frame is 4 bytes longer */
    expect("fabric.mtu", "mlx5_1/1", SEVERITY_ERROR, "below MTU 9000 + 22");
    inv.rails[1].lldp.nb[0].mfs = 0;
    expect("fabric.mtu", "mlx5_1/1", SEVERITY_UNKNOWN, "does not advertise its maximum frame size");
}
END_TEST

START_TEST(test_vlan)
{
    rail_optimized();
    ck_assert_ptr_null(judge("fabric.vlan", "mlx5_0/1"));  /* no VLAN in the policy */
    pol.rails.neighbors.vlan = 200;
    expect("fabric.vlan", "mlx5_0/1", SEVERITY_ERROR, "VLAN 200 is not among leaf-r0-a port swp1's VLANs (100)");
    inv.rails[0].lldp.nb[0].pvid = 200;
    expect("fabric.vlan", "mlx5_0/1", SEVERITY_OK, NULL);
    inv.rails[1].lldp.nb[0].n_vlans = 0;
    expect("fabric.vlan", "mlx5_1/1", SEVERITY_UNKNOWN, "advertises no VLAN");
}
END_TEST

START_TEST(test_no_neighbor)
{
    add_rail("mlx5_0/1", "mlx5_core", NULL, NULL, NULL, 0);
    add_rail("bnxt_re0/1", "bnxt_en", NULL, NULL, NULL, 0);
    expect("fabric.neighbor", "mlx5_0/1", SEVERITY_WARNING, "LLDP_NB_RX_MODE_P1");
    expect("fabric.neighbor", "bnxt_re0/1", SEVERITY_WARNING, "no LLDP neighbour on eth1");
    ck_assert_ptr_null(strstr(judge("fabric.neighbor", "bnxt_re0/1")->hint, "mlx5"));
    ck_assert_ptr_null(judge("fabric.cabling", "mlx5_0/1"));
    pol.rails.neighbors.lldp = REQ_REQUIRED;
    expect("fabric.neighbor", "mlx5_0/1", SEVERITY_ERROR, "no LLDP neighbour on eth0");
    /* Link down: port.state and netdev.carrier say so; no neighbour is expected. */
    inv.rails[1].netdev.carrier = 0;
    expect("fabric.neighbor", "bnxt_re0/1", SEVERITY_UNKNOWN, "while eth1 is down");
    pol.rails.neighbors.lldp = REQ_IGNORE;
    ck_assert_ptr_null(judge("fabric.neighbor", "mlx5_0/1"));
}
END_TEST

START_TEST(test_within_bound)
{
    add_rail("mlx5_0/1", "mlx5_core", NULL, NULL, NULL, 0);
    struct counter_state st = { 0 };
    struct rail_counters rc = { .rail = "mlx5_0/1", .n_carrier = 3 };
    rc.carrier[0] = (struct carrier_mark){ 0, 4 };
    rc.carrier[1] = (struct carrier_mark){ 60 * USEC_PER_SEC, 6 };  /* down and up */
    rc.carrier[2] = (struct carrier_mark){ 80 * USEC_PER_SEC, 6 };
    st.rails = &rc;
    st.n = st.cap = 1;
    findings_done(&fs);
    memset(&fs, 0, sizeof(fs));
    check_neighbors(&inv, &st, &pol, &fs);
    const struct finding *f = one_finding(&fs, "fabric.neighbor", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_msg(strstr(f->message, "the link came up 20 s ago, within the 90s bound"),
                  "%s", f->message);
    rc.carrier[2].at = 200 * USEC_PER_SEC;  /* 140 s after: past the bound */
    findings_done(&fs);
    memset(&fs, 0, sizeof(fs));
    check_neighbors(&inv, &st, &pol, &fs);
    ck_assert_int_eq(one_finding(&fs, "fabric.neighbor", "mlx5_0/1")->severity, SEVERITY_WARNING);
}
END_TEST

START_TEST(test_unknown)
{
    add_rail("mlx5_0/1", "mlx5_core", NULL, NULL, NULL, 0);
    inv.rails[0].lldp.known = false;
    inv.rails[0].lldp.err = -ENOENT;
    strcpy(inv.rails[0].lldp.why, "lldpd's socket /run/lldpd.socket: No such file or directory; "
           "lldpd is not running: install and enable it (apt-get install lldpd; systemctl "
           "enable --now lldpd)");
    expect("fabric.neighbor", "mlx5_0/1", SEVERITY_UNKNOWN, "lldpd is not running");
    expect("fabric.neighbor", "mlx5_0/1", SEVERITY_UNKNOWN, "systemctl enable --now lldpd");
    expect("fabric.neighbor", "mlx5_0/1", SEVERITY_UNKNOWN, "mlxconfig -d PCI query");
    ck_assert_ptr_null(judge("fabric.mtu", "mlx5_0/1"));
    /* A captured tree without lldpd's answers (issue 41, item 4): its reason, and no
     * "install lldpd": the node it comes from may well run it. */
    inv.rails[0].lldp.err = 0;
    strcpy(inv.rails[0].lldp.why, "a captured tree holds no LLDP neighbours for eth0 (lldpd's "
           "answers come with a fabtunectl snapshot)");
    ck_assert_ptr_null(judge("fabric.neighbor", "mlx5_0/1")->hint);
    /* InfiniBand: the reason, no lldpd hint. */
    strcpy(inv.rails[0].link_layer, "InfiniBand");
    strcpy(inv.rails[0].lldp.why, "InfiniBand has no LLDP");
    const struct finding *f = judge("fabric.neighbor", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_ptr_null(f->hint);
}
END_TEST

START_TEST(test_policy_keys)
{
    static const char yaml[] = "version: 1\nrails:\n  topology: distinct_switches\n"
        "  neighbors:\n    lldp: required\n    lldpd_socket: /tmp/leaf.sock\n    bound: 30s\n"
        "    switch: \"leaf-r{index}-*\"\n    port: \"swp*\"\n    vlan: 100\n";
    struct policy p;
    struct policy_errors errs = { 0 };
    policy_init_defaults(&p);
    ck_assert_int_eq(policy_load_string(yaml, sizeof(yaml) - 1, "t.yaml", &p, &errs), 0);
    ck_assert_int_eq(p.rails.topology, TOPOLOGY_DISTINCT_SWITCHES);
    ck_assert_int_eq(p.rails.neighbors.lldp, REQ_REQUIRED);
    ck_assert_str_eq(p.rails.neighbors.lldpd_socket, "/tmp/leaf.sock");
    ck_assert_uint_eq(p.rails.neighbors.bound, 30 * USEC_PER_SEC);
    ck_assert_str_eq(p.rails.neighbors.switch_pattern, "leaf-r{index}-*");
    ck_assert_str_eq(p.rails.neighbors.port_pattern, "swp*");
    ck_assert_uint_eq(p.rails.neighbors.vlan, 100);
    policy_done(&p);
    policy_init_defaults(&p);
    static const char bad[] = "version: 1\nrails:\n  neighbors:\n    switch: \"leaf r\"\n";
    ck_assert_int_lt(policy_load_string(bad, sizeof(bad) - 1, "t.yaml", &p, &errs), 0);
    ck_assert_uint_ge(errs.n, 1);
    ck_assert_ptr_nonnull(strstr(errs.msgs[0], "invalid pattern 'leaf r' for rails.neighbors.switch"));
    policy_errors_done(&errs);
    policy_done(&p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lldp");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, test_parse_real_lldpd);
    tcase_add_test(tc, test_parse_leaf);
    tcase_add_test(tc, test_parse_refusals);
    tcase_add_test(tc, test_parse_bounds);
    tcase_add_test(tc, test_policy_keys);
    tcase_add_test(tc, test_capture_unanswered);
    suite_add_tcase(s, tc);
    tc = tcase_create("checks");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_rail_optimized_ok);
    tcase_add_test(tc, test_same_switch_port);
    tcase_add_test(tc, test_distinct_switches);
    tcase_add_test(tc, test_patterns);
    tcase_add_test(tc, test_recabled_stale_neighbor);
    tcase_add_test(tc, test_mtu);
    tcase_add_test(tc, test_vlan);
    tcase_add_test(tc, test_no_neighbor);
    tcase_add_test(tc, test_within_bound);
    tcase_add_test(tc, test_unknown);
    suite_add_tcase(s, tc);
    return check_run(s);
}
