/* SPDX-License-Identifier: ISC */
/* Live rtnetlink tests: the rtnetlink source and the netdev checks against real veth
 * pairs in a private network namespace (the host's links are never touched). */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks.h"
#include "check_run.h"
#include "macro.h"
#include "source_counters.h"
#include "snapshot_write.h"
#include "source_fec.h"
#include "source_module.h"
#include "source_qos.h"
#include "source_rtnl.h"
#include "strutil.h"

static void setup(void)
{
    /* Each test runs in its own forked child, in a fresh namespace of its own. */
    ck_assert_msg(unshare(CLONE_NEWNET) == 0, "unshare(CLONE_NEWNET): %s (needs root)",
                  strerror(errno));
    sh("ip link set lo up && ip link add r0 type veth peer name r1 && "
       "ip link set r0 up && ip link set r1 up");
}

static struct netdev_info query(const char *name)
{
    struct netdev_info nd = { .carrier = -1 };
    strscpy(nd.name, name, sizeof(nd.name));
    ck_assert_int_eq(source_rtnl_netdev(&nd), 0);
    return nd;
}

/* Carrier changes at once; operstate follows from the kernel's deferred linkwatch work. */
static struct netdev_info wait_operstate(const char *name, const char *want)
{
    struct netdev_info nd;
    for (int i = 0; i < 100; i++) {
        nd = query(name);
        if (streq(nd.operstate, want))
            break;
        usleep(20000);
    }
    return nd;
}

static bool has_addr(const struct netdev_info *nd, int family, const char *text)
{
    uint8_t want[16] = { 0 };
    ck_assert_int_eq(inet_pton(family, text, want), 1);
    for (size_t i = 0; i < nd->n_addrs; i++)
        if (nd->addrs[i].family == family &&
            memcmp(nd->addrs[i].addr, want, family == AF_INET ? 4 : 16) == 0)
            return true;
    return false;
}

START_TEST(test_up_and_mtu)
{
    struct netdev_info nd = query("r0");
    ck_assert(nd.present);
    ck_assert_str_eq(nd.operstate, "up");
    ck_assert_int_eq(nd.carrier, 1);
    ck_assert_uint_eq(nd.mtu, 1500);
    sh("ip link set r0 mtu 9000");
    nd = query("r0");
    ck_assert_uint_eq(nd.mtu, 9000);
}
END_TEST

START_TEST(test_carrier_loss)
{
    struct netdev_info before = query("r0");
    ck_assert(before.has_carrier_changes);
    sh("ip link set r1 down");
    struct netdev_info nd = wait_operstate("r0", "lowerlayerdown");
    ck_assert_int_eq(nd.carrier, 0);
    ck_assert_str_eq(nd.operstate, "lowerlayerdown");
    ck_assert_uint_gt(nd.carrier_changes, before.carrier_changes);
    sh("ip link set r1 up");
    nd = wait_operstate("r0", "up");
    ck_assert_int_eq(nd.carrier, 1);
    ck_assert_str_eq(nd.operstate, "up");
}
END_TEST

START_TEST(test_link_down)
{
    sh("ip link set r0 down");
    struct netdev_info nd = wait_operstate("r0", "down");
    ck_assert_str_eq(nd.operstate, "down");
}
END_TEST

START_TEST(test_addresses)
{
    struct netdev_info nd = query("r0");
    ck_assert(nd.addresses_known);
    ck_assert(!has_addr(&nd, AF_INET, "198.51.100.7"));
    sh("ip addr add 198.51.100.7/24 dev r0 && ip addr add 2001:db8::7/64 dev r0 nodad");
    nd = query("r0");
    ck_assert(has_addr(&nd, AF_INET, "198.51.100.7"));
    ck_assert(has_addr(&nd, AF_INET6, "2001:db8::7"));
    sh("ip addr del 198.51.100.7/24 dev r0");
    nd = query("r0");
    ck_assert(!has_addr(&nd, AF_INET, "198.51.100.7"));
    ck_assert(has_addr(&nd, AF_INET6, "2001:db8::7"));
}
END_TEST

/* Among 200 other interfaces with addresses of their own (containers' veths on a GPU
 * node), the rail's netdev gets exactly its own: the dump is asked for r0 alone. */
START_TEST(test_many_interfaces)
{
    FILE *f = fopen("/tmp/fabtune-rtnl-batch", "w");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 100; i++)
        fprintf(f, "link add c%d type veth peer name p%d\naddr add 10.9.%d.1/24 dev c%d\n", i, i, i, i);
    fclose(f);
    sh("ip -batch /tmp/fabtune-rtnl-batch && rm /tmp/fabtune-rtnl-batch");
    sh("ip addr add 192.0.2.10/24 dev r0");
    struct netdev_info nd = query("r0");
    ck_assert(nd.addresses_known);
    ck_assert(has_addr(&nd, AF_INET, "192.0.2.10"));
    for (size_t i = 0; i < nd.n_addrs; i++)
        ck_assert_msg(nd.addrs[i].family != AF_INET || nd.addrs[i].addr[0] != 10,
                      "an address of another interface");
    ck_assert_uint_le(nd.n_addrs, 2);   /* its IPv4 one, and at most a link-local IPv6 */
}
END_TEST

START_TEST(test_absent)
{
    struct netdev_info nd = { .carrier = -1 };
    strscpy(nd.name, "nosuchdev0", sizeof(nd.name));
    ck_assert_int_eq(source_rtnl_netdev(&nd), -ENODEV);
    ck_assert(!nd.present);
}
END_TEST

/* The netdev checks on live data: a RoCE rail whose netdev is the veth. */
START_TEST(test_checks_on_live_netdev)
{
    struct policy p;
    struct inventory inv = { .source = INVENTORY_LIVE };
    struct findings fs = { 0 };
    policy_init_defaults(&p);
    p.rails.mtu.netdev_min = 4200;

    struct rail *r = inventory_add_rail(&inv, "rxe0", 1);
    strscpy(r->link_layer, "Ethernet", sizeof(r->link_layer));
    strscpy(r->netdev.name, "r0", sizeof(r->netdev.name));
    sh("ip link set r1 down");
    (void)wait_operstate("r0", "lowerlayerdown");
    source_rtnl_fill(&inv);
    check_netdevs(&inv, &p, &fs);

    size_t errors = 0;
    for (size_t i = 0; i < fs.n; i++) {
        const struct finding *f = &fs.items[i];
        if (streq(f->check, "netdev.carrier") || streq(f->check, "netdev.oper") ||
            streq(f->check, "netdev.mtu")) {
            ck_assert_int_eq(f->severity, SEVERITY_ERROR);
            errors++;
        }
    }
    ck_assert_uint_eq(errors, 3);
    findings_done(&fs);
    inventory_done(&inv);
    policy_done(&p);
}
END_TEST

/* veth has no dcbnl_ops and no pause parameters: the live DCB netlink request gets the
 * kernel's EOPNOTSUPP, ethtool says nothing, and every qos.* check is unknown with its
 * reason, never an error. */
START_TEST(test_qos_unknown_on_veth)
{
    struct dcb_state d;
    ck_assert_int_eq(source_dcb_query("r0", &d), -EOPNOTSUPP);
    ck_assert(!d.known);
    ck_assert_msg(strstr(d.why, "dcbnl_ops"), "why: %s", d.why);
    ck_assert_int_eq(source_dcb_query("nosuchdev0", &d), -ENODEV);

    struct inventory inv = { .source = INVENTORY_LIVE };
    struct policy p;
    struct findings fs = { 0 };
    policy_init_defaults(&p);
    struct rail *r = inventory_add_rail(&inv, "rxe0", 1);
    strscpy(r->link_layer, "Ethernet", sizeof(r->link_layer));
    strscpy(r->netdev.name, "r0", sizeof(r->netdev.name));
    r->netdev.present = true;
    source_qos_fill("/sys", true, &inv);
    ck_assert_int_eq(r->qos.pause_rx, -1);
    ck_assert_msg(r->qos.pause_why[0], "no reason for the missing pause parameters");
    ck_assert(!r->qos.ecn_known);
    ck_assert_str_eq(r->qos.trust, "");
    check_qos(&inv, &p, &fs);
    ck_assert_uint_eq(fs.n, 7);
    for (size_t i = 0; i < fs.n; i++)
        ck_assert_msg(fs.items[i].severity == SEVERITY_UNKNOWN, "%s: %s", fs.items[i].check,
                      fs.items[i].message);
    ck_assert_int_eq(findings_verdict(&fs), VERDICT_READY);
    findings_done(&fs);
    inventory_done(&inv);
    policy_done(&p);
}
END_TEST

/* The ethtool statistics reader on a real driver: veth's "peer_ifindex" is its peer's
 * ifindex, and the filter keeps only what it accepts. */
static bool only_peer(const char *name)
{
    return streq(name, "peer_ifindex");
}

START_TEST(test_ethtool_stats_on_veth)
{
    struct counter_sample s = { 0 };
    int n = source_ethtool_stats("r0", NULL, &s);
    ck_assert_int_gt(n, 0);
    ck_assert_uint_eq(s.n, (size_t)n);
    uint64_t peer = 0;
    bool found = false;
    for (size_t i = 0; i < s.n; i++)
        if (streq(s.values[i].name, "ethtool:peer_ifindex")) {
            peer = s.values[i].value;
            found = true;
        }
    ck_assert(found);
    ck_assert_uint_eq(peer, if_nametoindex("r1"));
    counter_sample_done(&s);
    ck_assert_int_eq(source_ethtool_stats("r0", only_peer, &s), n);
    ck_assert_uint_eq(s.n, 1);
    counter_sample_done(&s);
    ck_assert_int_lt(source_ethtool_stats("nosuchdev0", NULL, &s), 0);
}
END_TEST

/* veth has no module EEPROM: the live ETHTOOL_MSG_MODULE_EEPROM_GET gets the kernel's
 * EOPNOTSUPP, and the module reads as unknown with that reason (not as an error); a
 * netdev that does not exist is the kernel's ENODEV. */
START_TEST(test_module_unknown_on_veth)
{
    struct module_state m;
    source_module_read("r0", &m);
    ck_assert(!m.known);
    ck_assert_int_eq(m.err, -EOPNOTSUPP);
    ck_assert_msg(strstr(m.why, "not supported"), "why: %s", m.why);
    source_module_read("nosuchdev0", &m);
    ck_assert(!m.known);
    ck_assert_int_eq(m.err, -ENODEV);
    ck_assert_msg(m.why[0], "no reason for the missing netdev");
}
END_TEST

/* A snapshot taken on veth keeps the kernel's answer (its NLMSG_ERROR, as sent) and the
 * offline source reads the same unknown, with the same reason, out of it. */
START_TEST(test_module_snapshot_on_veth)
{
    char top[512], sys[600];
    struct module_state live;
    ck_assert_int_eq(check_scratch_dir(top, sizeof(top), "check_rtnl_module"), 0);
    ck_assert_int_gt(snapshot_write_replies(top, "r0"), 0);
    sh("test -s '%s/fabtune/net/r0/module_lower' && ! test -e '%s/fabtune/net/r0/module_page_00'",
       top, top);
    source_module_read("r0", &live);
    snprintf(sys, sizeof(sys), "%s/sys", top);
    sh("mkdir -p '%s'", sys);
    struct inventory inv = { .source = INVENTORY_OFFLINE };
    struct rail *r = inventory_add_rail(&inv, "rxe0", 1);
    strscpy(r->link_layer, "Ethernet", sizeof(r->link_layer));
    strscpy(r->netdev.name, "r0", sizeof(r->netdev.name));
    r->netdev.present = true;
    source_module_fill(sys, false, &inv);
    ck_assert(r->module.read && !r->module.known);
    ck_assert_int_eq(r->module.err, -EOPNOTSUPP);
    ck_assert_str_eq(r->module.why, live.why);
    /* A snapshot that kept no module answer (taken before they were kept): not read. */
    sh("rm '%s/fabtune/net/r0/module_lower'", top);
    memset(&r->module, 0, sizeof(r->module));
    source_module_fill(sys, false, &inv);
    ck_assert(!r->module.read);
    inventory_done(&inv);
}
END_TEST

/* veth has no FEC: the live ETHTOOL_MSG_FEC_GET (with ETHTOOL_FLAG_STATS) gets the
 * kernel's EOPNOTSUPP and reads "the driver reports no FEC", unknown, never an error; a
 * snapshot keeps that answer (fabtune/net/IF/fec) and the offline source reads the same;
 * a counter sample gets no FEC counts; a missing netdev is the kernel's ENODEV. */
START_TEST(test_fec_unknown_on_veth)
{
    char top[512], sys[600];
    struct fec_state live;
    source_fec_read("r0", &live);
    ck_assert(live.read && !live.known);
    ck_assert_int_eq(live.err, -EOPNOTSUPP);
    ck_assert_str_eq(live.why, "the driver reports no FEC (Operation not supported)");
    struct fec_state none;
    source_fec_read("nosuchdev0", &none);
    ck_assert(!none.known);
    ck_assert_int_eq(none.err, -ENODEV);
    ck_assert_msg(none.why[0], "no reason for the missing netdev");

    ck_assert_int_eq(check_scratch_dir(top, sizeof(top), "check_rtnl_fec"), 0);
    ck_assert_int_gt(snapshot_write_replies(top, "r0"), 0);
    sh("test -s '%s/fabtune/net/r0/fec'", top);
    snprintf(sys, sizeof(sys), "%s/sys", top);
    sh("mkdir -p '%s'", sys);
    struct inventory inv = { .source = INVENTORY_OFFLINE };
    struct rail *r = inventory_add_rail(&inv, "rxe0", 1);
    strscpy(r->link_layer, "Ethernet", sizeof(r->link_layer));
    strscpy(r->netdev.name, "r0", sizeof(r->netdev.name));
    r->netdev.present = true;
    source_fec_fill(sys, false, &inv);
    ck_assert(r->fec.read && !r->fec.known);
    ck_assert_int_eq(r->fec.err, -EOPNOTSUPP);
    ck_assert_str_eq(r->fec.why, live.why);
    struct counter_sample s = { 0 };
    source_fec_sample(true, r, &s);
    ck_assert_uint_eq(s.n, 0);
    counter_sample_done(&s);
    inventory_done(&inv);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rtnl");
    TCase *tc = tcase_create("netns");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_up_and_mtu);
    tcase_add_test(tc, test_carrier_loss);
    tcase_add_test(tc, test_link_down);
    tcase_add_test(tc, test_addresses);
    tcase_add_test(tc, test_absent);
    tcase_add_test(tc, test_many_interfaces);
    tcase_add_test(tc, test_checks_on_live_netdev);
    tcase_add_test(tc, test_qos_unknown_on_veth);
    tcase_add_test(tc, test_ethtool_stats_on_veth);
    tcase_add_test(tc, test_module_unknown_on_veth);
    tcase_add_test(tc, test_module_snapshot_on_veth);
    tcase_add_test(tc, test_fec_unknown_on_veth);
    suite_add_tcase(s, tc);
    return check_run(s);
}
