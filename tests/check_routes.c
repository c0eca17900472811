/* SPDX-License-Identifier: ISC */
/* Tests of the routing conversation's parser on conversations captured from the real
 * kernel (tests/fixtures/routes/, see its capture.sh: node A's three rails in one subnet,
 * before and after the fix), and of the route.* checks on inventories built from them. */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_findings.h"
#include "check_run.h"
#include "checks.h"
#include "hexfile.h"
#include "macro.h"
#include "route_parse.h"
#include "strutil.h"

static uint32_t ip(const char *s)
{
    uint32_t a;
    ck_assert_int_eq(inet_pton(AF_INET, s, &a), 1);
    return a;
}

static void parse(const char *name, struct rail_routes *rr)
{
    char path[512];
    unsigned char *buf;
    snprintf(path, sizeof(path), "%s/tests/fixtures/routes/%s.hex", TEST_SRCDIR, name);
    long n = hexfile_read(path, &buf);
    ck_assert_msg(n > 0, "cannot read %s", path);
    memset(rr, 0, sizeof(*rr));
    ck_assert_int_eq(route_parse_stream(buf, (size_t)n, rr), 0);
    free(buf);
}

/* The stock node: every unbound lookup from rail 2's address leaves by rail 1 (the first
 * route of the shared subnet); the bound one by rail 2; the three default rules. */
START_TEST(test_parse_stock)
{
    struct rail_routes a1, a2;
    parse("stock-a1", &a1);
    parse("stock-a2", &a2);
    ck_assert(a2.known && a2.has_mac && a2.ifindex > 0 && a2.ifindex != a1.ifindex);
    ck_assert_uint_eq(a2.addr, ip("10.9.0.2"));
    ck_assert_uint_eq(a2.prefix_len, 24);
    ck_assert_uint_eq(a2.n_lookups, 6);
    for (const char *const *p = (const char *const[]){ "10.9.0.101", "10.9.0.102", "10.9.0.103", NULL }; *p; p++) {
        const struct route_lookup *u = rail_routes_lookup(&a2, ip(*p), false);
        const struct route_lookup *b = rail_routes_lookup(&a2, ip(*p), true);
        ck_assert(u && b);
        ck_assert_int_eq(u->err, 0);
        ck_assert_int_eq(u->oif, a1.ifindex);
        ck_assert_int_eq(b->oif_asked, a2.ifindex);
        ck_assert_int_eq(b->oif, a2.ifindex);
        ck_assert_uint_eq(u->src, ip("10.9.0.2"));
    }
    ck_assert_uint_eq(a2.n_rules, 3);       /* local, main, default */
    ck_assert_uint_eq(a2.rules[1].table, RT_TABLE_MAIN);
    ck_assert_uint_eq(a2.rules[1].priority, 32766);
    /* a1's gateway is asked about too, and its default route is through a1 */
    ck_assert_ptr_nonnull(rail_routes_lookup(&a1, ip("10.9.0.254"), true));
    bool dflt = false;
    for (size_t i = 0; i < a1.n_routes; i++)
        dflt |= a1.routes[i].dst_len == 0 && a1.routes[i].gateway == ip("10.9.0.254");
    ck_assert(dflt);
    /* B's flux: each of B's three addresses resolved on a1 to one MAC (b1's) */
    ck_assert_uint_eq(a1.n_neigh, 3);
    for (size_t i = 1; i < a1.n_neigh; i++)
        ck_assert_mem_eq(a1.neigh[i].mac, a1.neigh[0].mac, 6);
    rail_routes_done(&a1);
    rail_routes_done(&a2);
}
END_TEST

/* After the fix: a rule from each rail's address to its own table, which routes the subnet
 * through that rail; every lookup leaves by the rail; a2's one neighbour is b2. */
START_TEST(test_parse_fixed)
{
    struct rail_routes a2;
    parse("fixed-a2", &a2);
    const struct route_lookup *u = rail_routes_lookup(&a2, ip("10.9.0.102"), false);
    ck_assert(u);
    ck_assert_int_eq(u->oif, a2.ifindex);
    bool rule = false, table = false;
    for (size_t i = 0; i < a2.n_rules; i++)
        rule |= a2.rules[i].src == ip("10.9.0.2") && a2.rules[i].src_len == 32 && a2.rules[i].table == 102;
    for (size_t i = 0; i < a2.n_routes; i++)
        table |= a2.routes[i].table == 102 && a2.routes[i].dst == ip("10.9.0.0") && a2.routes[i].dst_len == 24;
    ck_assert(rule && table);
    ck_assert_uint_eq(a2.n_neigh, 1);
    ck_assert_uint_eq(a2.neigh[0].addr, ip("10.9.0.102"));
    ck_assert(a2.neigh[0].has_mac && (a2.neigh[0].state & ROUTES_NUD_VALID));
    rail_routes_done(&a2);
}
END_TEST

/* A refused lookup (NLMSG_ERROR after the request) is kept with its errno; a stream cut
 * inside a message is malformed, and what came before it stays. */
START_TEST(test_parse_error_and_truncated)
{
    struct {
        struct nlmsghdr h;
        struct rtmsg rtm;
        struct { uint16_t len, type; uint32_t v; } dst;
        struct nlmsghdr eh;
        struct nlmsgerr err;
    } s = {
        .h = { .nlmsg_len = sizeof(struct nlmsghdr) + sizeof(struct rtmsg) + 8,
               .nlmsg_type = RTM_GETROUTE, .nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = 7 },
        .rtm = { .rtm_family = AF_INET, .rtm_dst_len = 32 },
        .dst = { 8, RTA_DST, 0 },
        .eh = { .nlmsg_len = sizeof(struct nlmsghdr) + sizeof(struct nlmsgerr),
                .nlmsg_type = NLMSG_ERROR, .nlmsg_seq = 7 },
        .err = { .error = -ENETUNREACH },
    };
    s.dst.v = ip("198.51.100.7");
    struct rail_routes rr = { 0 };
    ck_assert_int_eq(route_parse_stream(&s, sizeof(s), &rr), 0);
    ck_assert_uint_eq(rr.n_lookups, 1);
    ck_assert_int_eq(rr.lookups[0].err, -ENETUNREACH);
    ck_assert_uint_eq(rr.lookups[0].dst, ip("198.51.100.7"));
    rail_routes_done(&rr);
    s.eh.nlmsg_len = 200;       /* beyond the stream */
    ck_assert_int_eq(route_parse_stream(&s, sizeof(s), &rr), -EBADMSG);
    ck_assert_uint_eq(rr.n_lookups, 0);
    ck_assert_ptr_nonnull(strstr(rr.why, "malformed"));
    rail_routes_done(&rr);
}
END_TEST

/* Node A's three rails from one capture set ("stock" or "fixed"), with interface sysctls
 * ARP_IGNORE, ARP_ANNOUNCE and RP_FILTER on conf.all (conf.IF at 0, as a new netdev has). */
static void node(const char *set, int arp_ignore, int arp_announce, int rp_filter,
                 struct inventory *inv)
{
    memset(inv, 0, sizeof(*inv));
    for (int i = 1; i <= 3; i++) {
        char dev[16], cap[32];
        snprintf(dev, sizeof(dev), "rxe%d", i - 1);
        struct rail *r = inventory_add_rail(inv, dev, 1);
        ck_assert_ptr_nonnull(r);
        snprintf(r->name, sizeof(r->name), "%s/1", dev);
        strscpy(r->link_layer, "Ethernet", sizeof(r->link_layer));
        r->node_type = 1;
        snprintf(r->netdev.name, sizeof(r->netdev.name), "a%d", i);
        r->netdev.present = true;
        snprintf(cap, sizeof(cap), "%s-a%d", set, i);
        parse(cap, &r->routes);
        r->routes.sysctls_known = true;
        r->routes.all = (struct if_sysctls){ arp_ignore, arp_announce, rp_filter, 0 };
        r->routes.dev = (struct if_sysctls){ 0, 0, 0, 0 };
    }
}

static void judge(const struct inventory *inv, struct findings *fs)
{
    memset(fs, 0, sizeof(*fs));
    check_routes(inv, NULL, fs);
}

static const struct finding *expect(const struct findings *fs, const char *id, const char *rail,
                                    enum severity sev, const char *text)
{
    const struct finding *f = one_finding(fs, id, rail);
    ck_assert_msg(f->severity == sev, "%s on %s: severity %d, wanted %d: %s", id, rail,
                  f->severity, sev, f->message);
    if (text)
        ck_assert_msg(strstr(f->message, text) || (f->hint && strstr(f->hint, text)),
                      "%s on %s: no '%s' in '%s' / '%s'", id, rail, text, f->message,
                      f->hint ? f->hint : "");
    return f;
}

/* The stock node (RHEL's rp_filter=1): every route.* finding names its fault and the fix. */
START_TEST(test_checks_stock)
{
    struct inventory inv;
    struct findings fs;
    node("stock", 0, 0, 1, &inv);
    judge(&inv, &fs);
    expect(&fs, "route.egress", "rxe0/1", SEVERITY_OK, "leave by a1");
    const struct finding *f = expect(&fs, "route.egress", "rxe1/1", SEVERITY_ERROR,
                                     "packets from 10.9.0.2 to 10.9.0.101");
    ck_assert_str_eq(f->actual, "a1");
    ck_assert_ptr_nonnull(strstr(f->hint, "ip rule add from 10.9.0.2 table 101"));
    ck_assert_ptr_nonnull(strstr(f->hint, "ip route add 10.9.0.0/24 dev a2 table 101"));
    expect(&fs, "route.egress", "rxe2/1", SEVERITY_ERROR, "leave by a1, not a3");
    for (const char *const *r = (const char *const[]){ "rxe0/1", "rxe1/1", "rxe2/1", NULL }; *r; r++) {
        expect(&fs, "route.arp", *r, SEVERITY_ERROR, "ARP flux");
        expect(&fs, "route.rp_filter", *r, SEVERITY_ERROR, "IPReversePathFilter");
        expect(&fs, "route.subnets", *r, SEVERITY_ERROR, "without a rule");
    }
    f = one_finding(&fs, "route.arp", "rxe2/1");
    ck_assert_ptr_nonnull(strstr(f->hint, "net.ipv4.conf.a3.arp_ignore=1 net.ipv4.conf.a3.arp_announce=2"));
    ck_assert_ptr_nonnull(strstr(one_finding(&fs, "route.rp_filter", "rxe1/1")->hint,
                                 "net.ipv4.conf.a2.rp_filter=2"));
    ck_assert_ptr_nonnull(strstr(f->hint, "net.ipv4.conf.@multirail.arp_announce: 2"));
    ck_assert_ptr_nonnull(strstr(one_finding(&fs, "route.subnets", "rxe2/1")->hint,
                                 "ip route add 10.9.0.0/24 dev a3 table 102"));
    /* the peer's flux, seen on a1: its three addresses on b1's one MAC */
    expect(&fs, "route.neighbor", "rxe0/1", SEVERITY_ERROR, "both resolve to");
    expect(&fs, "route.neighbor", "rxe1/1", SEVERITY_OK, "0 peer neighbour");
    findings_done(&fs);
    inventory_done(&inv);
}
END_TEST

/* After the fix every finding clears; the sysctls alone clear route.arp and rp_filter, not
 * the missing rules (conf.IF counts too: the kernel takes the larger). */
START_TEST(test_checks_fixed)
{
    struct inventory inv;
    struct findings fs;
    node("fixed", 1, 2, 2, &inv);
    judge(&inv, &fs);
    for (size_t i = 0; i < fs.n; i++)
        ck_assert_msg(fs.items[i].severity == SEVERITY_OK, "%s on %s: %s", fs.items[i].check,
                      fs.items[i].rail, fs.items[i].message);
    ck_assert_uint_eq(fs.n, 15);
    expect(&fs, "route.subnets", "rxe1/1", SEVERITY_OK, "table 102");
    expect(&fs, "route.neighbor", "rxe1/1", SEVERITY_OK, "1 peer neighbour entry");
    findings_done(&fs);
    inventory_done(&inv);

    node("stock", 1, 2, 2, &inv);
    judge(&inv, &fs);
    expect(&fs, "route.arp", "rxe1/1", SEVERITY_OK, NULL);
    expect(&fs, "route.rp_filter", "rxe1/1", SEVERITY_OK, "loose");
    expect(&fs, "route.subnets", "rxe1/1", SEVERITY_ERROR, NULL);
    findings_done(&fs);
    inventory_done(&inv);

    node("fixed", 1, 2, 0, &inv);
    inv.rails[2].routes.dev.rp_filter = 1;      /* conf.a3 strict: max(0, 1) = 1 */
    inv.rails[2].routes.dev.arp_announce = 1;   /* max(2, 1) = 2: still announced right */
    judge(&inv, &fs);
    expect(&fs, "route.rp_filter", "rxe2/1", SEVERITY_ERROR, NULL);
    expect(&fs, "route.arp", "rxe2/1", SEVERITY_OK, NULL);
    findings_done(&fs);
    inventory_done(&inv);
}
END_TEST

/* One rail: nothing to flux with and one way back (ok); a bound lookup the kernel refused
 * is an unreachable peer; a peer resolved to a local rail's own MAC is nccl#1405; without
 * the conversation (a sysfs tree) the route checks are unknown, with the reason. */
START_TEST(test_checks_edges)
{
    struct inventory inv;
    struct findings fs;
    node("stock", 0, 0, 1, &inv);
    inv.n_rails = 1;
    judge(&inv, &fs);
    expect(&fs, "route.arp", "rxe0/1", SEVERITY_OK, "one rail");
    expect(&fs, "route.rp_filter", "rxe0/1", SEVERITY_OK, "one rail");
    expect(&fs, "route.subnets", "rxe0/1", SEVERITY_OK, "alone");
    findings_done(&fs);
    inv.n_rails = 3;

    struct rail_routes *a2 = &inv.rails[1].routes;
    for (size_t i = 0; i < a2->n_lookups; i++)
        if (a2->lookups[i].oif_asked && a2->lookups[i].dst == ip("10.9.0.103"))
            a2->lookups[i].err = -ENETUNREACH;
    memcpy(inv.rails[0].routes.neigh[0].mac, inv.rails[2].routes.mac, 6);
    judge(&inv, &fs);
    expect(&fs, "route.egress", "rxe1/1", SEVERITY_ERROR, "unreachable from 10.9.0.2 bound to a2: 10.9.0.103");
    expect(&fs, "route.neighbor", "rxe0/1", SEVERITY_ERROR, "own a3");
    findings_done(&fs);

    rail_routes_done(&inv.rails[1].routes);
    snprintf(inv.rails[1].routes.why, sizeof(inv.rails[1].routes.why), "the snapshot holds no routes for a2");
    judge(&inv, &fs);
    expect(&fs, "route.egress", "rxe1/1", SEVERITY_UNKNOWN, "holds no routes");
    expect(&fs, "route.subnets", "rxe1/1", SEVERITY_UNKNOWN, NULL);
    expect(&fs, "route.neighbor", "rxe1/1", SEVERITY_UNKNOWN, NULL);
    expect(&fs, "route.rp_filter", "rxe1/1", SEVERITY_UNKNOWN, NULL);
    findings_done(&fs);
    inventory_done(&inv);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("routes");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, test_parse_stock);
    tcase_add_test(tc, test_parse_fixed);
    tcase_add_test(tc, test_parse_error_and_truncated);
    suite_add_tcase(s, tc);
    tc = tcase_create("checks");
    tcase_add_test(tc, test_checks_stock);
    tcase_add_test(tc, test_checks_fixed);
    tcase_add_test(tc, test_checks_edges);
    suite_add_tcase(s, tc);
    return check_run(s);
}
