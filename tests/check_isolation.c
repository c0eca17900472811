/* SPDX-License-Identifier: ISC */
/* route.isolation's pieces without a network: the side rule (model/link_traffic.c), the
 * responder's links answer (wire/peer_links.c) both ways and its bounds, and the check's
 * verdicts and messages on the figures tests/isolation-netns.sh measured for real; the
 * RDMA leg's port data (an offloading HCA's RDMA bytes, which its netdev never counts). */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "check_findings.h"
#include "check_run.h"
#include "checks.h"
#include "link_traffic.h"
#include "peer_links.h"
#include "report_json.h"

static void entry(struct link_traffic *t, const char *name, uint8_t mac_last, uint64_t rx, uint64_t tx,
                  const char *v4)
{
    struct link_traffic_entry *e = &t->e[t->n++];
    memset(e, 0, sizeof(*e));
    snprintf(e->name, sizeof(e->name), "%s", name);
    uint8_t mac[6] = { 0x52, 0x54, 0, 0x77, 0x0b, mac_last };
    memcpy(e->mac, mac, 6);
    e->rx_bytes = rx;
    e->tx_bytes = tx;
    uint8_t a[4];
    ck_assert_int_eq(sscanf(v4, "%hhu.%hhu.%hhu.%hhu", &a[0], &a[1], &a[2], &a[3]), 4);
    ck_assert(link_traffic_add_address(e, AF_INET, a));
}

START_TEST(test_side_rule)
{
    struct link_traffic before = { 0 }, after = { 0 };
    struct isolation_side s;
    entry(&before, "b1", 0, 1000, 10, "10.9.0.101");
    entry(&before, "b2", 1, 5000, 20, "10.9.0.102");
    entry(&after, "b1", 0, 1000 + 145000, 10, "10.9.0.101");
    entry(&after, "b2", 1, 5000 + 300, 20, "10.9.0.102");
    entry(&after, "b9", 9, 1 << 30, 0, "10.9.0.109");     /* new during the probe: no figure */

    isolation_side_measure(&before, &after, "b2", true, false, &s);
    ck_assert_str_eq(s.want, "b2");
    ck_assert_uint_eq(s.want_bytes, 300);
    ck_assert_str_eq(s.other, "b1");
    ck_assert_uint_eq(s.other_bytes, 145000);
    ck_assert_int_eq(isolation_side_judge(&s, 140000), ISOLATION_ELSEWHERE);
    /* The payload's half on the rail is enough: background elsewhere never accuses it. */
    isolation_side_measure(&before, &after, "b1", true, false, &s);
    ck_assert_int_eq(isolation_side_judge(&s, 140000), ISOLATION_RIGHT);
    ck_assert_int_eq(isolation_side_judge(&s, 300000), ISOLATION_UNSEEN);
    ck_assert_int_eq(isolation_side_judge(&s, 0), ISOLATION_UNMEASURED);
    /* A counter that went backwards (a driver reset) counts nothing. */
    after.e[1].rx_bytes = 10;
    isolation_side_measure(&before, &after, "b2", true, false, &s);
    ck_assert_uint_eq(s.want_bytes, 0);

    uint8_t want[16] = { [10] = 0xff, [11] = 0xff, 10, 9, 0, 102 };
    ck_assert_str_eq(link_traffic_owner(&after, want)->name, "b2");
    want[15] = 7;
    ck_assert_ptr_null(link_traffic_owner(&after, want));
    ck_assert_str_eq(link_traffic_by_mac(&after, after.e[0].mac)->name, "b1");

    struct isolation_leg l = { .measured = true, .out_bytes = 140000, .back_bytes = 0 };
    isolation_side_measure(&before, &after, "b1", true, false, &l.peer_rx);
    ck_assert_int_eq(isolation_leg_judge(&l), ISOLATION_RIGHT);     /* the way back unmeasured */
    l.own_rx = (struct isolation_side){ .want = "a1", .want_bytes = 100, .other = "a2", .other_bytes = 100 };
    l.back_bytes = 1000;
    ck_assert_int_eq(isolation_leg_judge(&l), ISOLATION_UNSEEN);   /* the way back: nowhere */
    isolation_side_measure(&before, &after, "b2", true, false, &l.peer_rx);
    ck_assert_int_eq(isolation_leg_judge(&l), ISOLATION_ELSEWHERE);
}
END_TEST

/* An entry's port data (the RDMA port's data counters, in bytes). */
static void port_data(struct link_traffic *t, size_t i, uint64_t rx, uint64_t tx)
{
    t->e[i].has_port_data = true;
    t->e[i].port_rx_bytes = rx;
    t->e[i].port_tx_bytes = tx;
}

/* The RDMA leg counts a netdev by its port data where both readings have it, else by the
 * netdev's counters; the TCP leg by the netdev's always. */
START_TEST(test_side_port_data)
{
    struct link_traffic before = { 0 }, after = { 0 };
    struct isolation_side s;
    /* mlx5-like: b1's netdev counts nothing of the RDMA payload, its port counts it all;
     * b2 (another mlx5) a little background, by port data too. */
    entry(&before, "b1", 0, 5000, 600, "10.9.0.101");
    entry(&before, "b2", 1, 7000, 700, "10.9.0.102");
    entry(&after, "b1", 0, 5000, 600, "10.9.0.101");
    entry(&after, "b2", 1, 7300, 700, "10.9.0.102");
    port_data(&before, 0, 1000, 2000);
    port_data(&after, 0, 1000 + 141000, 2000 + 1100);
    port_data(&before, 1, 40, 0);
    port_data(&after, 1, 40 + 512, 0);

    isolation_side_measure(&before, &after, "b1", true, true, &s);
    ck_assert_uint_eq(s.want_bytes, 141000);
    ck_assert_int_eq(s.want_counter, ISOLATION_COUNTER_PORT_DATA);
    ck_assert_str_eq(s.other, "b2");
    ck_assert_uint_eq(s.other_bytes, 512);
    ck_assert_int_eq(s.other_counter, ISOLATION_COUNTER_PORT_DATA);
    ck_assert_int_eq(isolation_side_judge(&s, 140000), ISOLATION_RIGHT);      /* not UNSEEN */
    ck_assert_str_eq(isolation_counter_name(s.want_counter), "port_data");
    isolation_side_measure(&before, &after, "b1", false, true, &s);
    ck_assert_uint_eq(s.want_bytes, 1100);
    /* The same readings on the TCP leg: the netdev's counters, which saw none of it. */
    isolation_side_measure(&before, &after, "b1", true, false, &s);
    ck_assert_uint_eq(s.want_bytes, 0);
    ck_assert_int_eq(s.want_counter, ISOLATION_COUNTER_NETDEV);
    ck_assert_uint_eq(s.other_bytes, 300);
    ck_assert_int_eq(s.other_counter, ISOLATION_COUNTER_NETDEV);
    ck_assert_str_eq(isolation_counter_name(s.want_counter), "netdev");
    ck_assert_int_eq(isolation_side_judge(&s, 140000), ISOLATION_UNSEEN);

    /* Port data in one reading only (the peer fell back to layout 0, or the port went):
     * b1 by its netdev; b2, with both, still by its port. */
    after.e[0].has_port_data = false;
    isolation_side_measure(&before, &after, "b1", true, true, &s);
    ck_assert_int_eq(s.want_counter, ISOLATION_COUNTER_NETDEV);
    ck_assert_uint_eq(s.want_bytes, 0);
    ck_assert_int_eq(s.other_counter, ISOLATION_COUNTER_PORT_DATA);
    ck_assert_uint_eq(s.other_bytes, 512);
    port_data(&after, 0, 1000 + 141000, 2000 + 1100);
    before.e[0].has_port_data = false;
    isolation_side_measure(&before, &after, "b1", true, true, &s);
    ck_assert_int_eq(s.want_counter, ISOLATION_COUNTER_NETDEV);
    ck_assert_int_eq(isolation_side_judge(&s, 140000), ISOLATION_UNSEEN);

    /* The bytes went by b2's port, not b1's: elsewhere, by port data. */
    port_data(&before, 0, 1000, 2000);
    port_data(&after, 0, 1000 + 20, 2000);
    port_data(&after, 1, 40 + 141000, 0);
    isolation_side_measure(&before, &after, "b1", true, true, &s);
    ck_assert_int_eq(isolation_side_judge(&s, 140000), ISOLATION_ELSEWHERE);
    ck_assert_uint_eq(s.other_bytes, 141000);
    ck_assert_int_eq(s.other_counter, ISOLATION_COUNTER_PORT_DATA);
}
END_TEST

START_TEST(test_links_answer)
{
    static struct link_traffic t, back;
    static uint8_t buf[PEER_LINKS_MAX_LEN];
    entry(&t, "eth0", 0, 123456789012ull, 42, "10.77.0.2");
    entry(&t, "eth1", 1, 7, 1ull << 40, "10.77.0.4");
    size_t len = peer_links_write(&t, PEER_LINKS_NETDEV, buf);
    ck_assert_uint_eq(len, 1 + 2 * PEER_LINKS_ENTRY_LEN);
    ck_assert_int_eq(peer_links_parse(buf, len, PEER_LINKS_NETDEV, &back), 0);
    ck_assert_uint_eq(back.n, 2);
    ck_assert_str_eq(back.e[1].name, "eth1");
    ck_assert(back.e[0].rx_bytes == 123456789012ull);
    ck_assert(back.e[1].tx_bytes == 1ull << 40);
    ck_assert_int_eq(memcmp(back.e[1].mac, t.e[1].mac, 6), 0);
    ck_assert_uint_eq(back.e[1].n_addrs, 1);
    ck_assert_int_eq(memcmp(back.e[1].addrs[0], t.e[1].addrs[0], 16), 0);
    /* Every length but the one the count says; a name without its NUL, or with a byte no
     * netdev name has; more addresses than the slots. */
    ck_assert_int_eq(peer_links_parse(buf, len - 1, PEER_LINKS_NETDEV, &back), -EBADMSG);
    ck_assert_int_eq(peer_links_parse(buf, len + 1, PEER_LINKS_NETDEV, &back), -EBADMSG);
    ck_assert_int_eq(peer_links_parse(buf, 0, PEER_LINKS_NETDEV, &back), -EBADMSG);
    buf[0] = LINK_TRAFFIC_MAX + 1;
    ck_assert_int_eq(peer_links_parse(buf, 1 + (LINK_TRAFFIC_MAX + 1) * PEER_LINKS_ENTRY_LEN, PEER_LINKS_NETDEV, &back), -EBADMSG);
    buf[0] = 2;
    memset(buf + 1, 'x', 16);
    ck_assert_int_eq(peer_links_parse(buf, len, PEER_LINKS_NETDEV, &back), -EBADMSG);
    memcpy(buf + 1, "et\nh0\0\0\0\0\0\0\0\0\0\0\0", 16);
    ck_assert_int_eq(peer_links_parse(buf, len, PEER_LINKS_NETDEV, &back), -EBADMSG);
    memcpy(buf + 1, "eth0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
    buf[1 + 22] = LINK_TRAFFIC_ADDRS + 1;
    ck_assert_int_eq(peer_links_parse(buf, len, PEER_LINKS_NETDEV, &back), -EBADMSG);
    buf[1 + 22] = 1;
    ck_assert_int_eq(peer_links_parse(buf, len, PEER_LINKS_NETDEV, &back), 0);
    /* No netdev: an answer still. */
    t.n = 0;
    ck_assert_uint_eq(peer_links_write(&t, PEER_LINKS_NETDEV, buf), 1);
    ck_assert_int_eq(peer_links_parse(buf, 1, PEER_LINKS_NETDEV, &back), 0);
    ck_assert_uint_eq(back.n, 0);
    ck_assert_int_eq(peer_links_parse(buf, 1, PEER_LINKS_PORT_DATA, &back), 0);
    ck_assert_uint_eq(back.n, 0);
}
END_TEST

/* Layout 0 is the wire format of every fabtuned before port data, byte for byte, whatever
 * the entries hold; layout 1 adds the port data, bounds-checked. */
START_TEST(test_links_layouts)
{
    static struct link_traffic t, back;
    static uint8_t buf[PEER_LINKS_MAX_LEN];
    entry(&t, "eth0", 0, 0x0102030405060708ull, 9, "10.77.0.2");
    t.e[0].has_port_data = true;
    t.e[0].port_rx_bytes = 4000;
    t.e[0].port_tx_bytes = 1ull << 42;
    entry(&t, "rxe-v0", 1, 7, 8, "10.77.0.4");         /* no port data (Soft-RoCE) */
    static const uint8_t prober_mac[6] = { 0x52, 0x54, 0, 0xfa, 0xb1, 0x0a };
    t.e[1].has_back_neigh = true;                       /* its entry for the prober */
    memcpy(t.e[1].back_neigh_mac, prober_mac, 6);

    /* Layout 0: the old bytes, written out by hand, and no port data. */
    uint8_t want[1 + PEER_LINKS_ENTRY_LEN] = { 1, 'e', 't', 'h', '0' };
    static const uint8_t mac[6] = { 0x52, 0x54, 0, 0x77, 0x0b, 0 };
    memcpy(want + 1 + 16, mac, 6);
    want[1 + 22] = 1;
    for (int i = 0; i < 8; i++)
        want[1 + 24 + i] = (uint8_t)(i + 1);
    want[1 + 32 + 7] = 9;
    static const uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, 10, 77, 0, 2 };
    memcpy(want + 1 + 40, v4, 16);
    t.n = 1;
    ck_assert_uint_eq(peer_links_write(&t, PEER_LINKS_NETDEV, buf), sizeof(want));
    ck_assert_int_eq(memcmp(buf, want, sizeof(want)), 0);
    ck_assert_int_eq(peer_links_parse(buf, sizeof(want), PEER_LINKS_NETDEV, &back), 0);
    ck_assert(!back.e[0].has_port_data);
    ck_assert_uint_eq(back.e[0].port_rx_bytes, 0);
    ck_assert(!back.e[0].has_back_neigh);
    /* ... which a layout-1 parser refuses (the length says layout 0). */
    ck_assert_int_eq(peer_links_parse(buf, sizeof(want), PEER_LINKS_PORT_DATA, &back), -EBADMSG);

    /* Layout 1: both entries, their port data as written. */
    t.n = 2;
    size_t len = peer_links_write(&t, PEER_LINKS_PORT_DATA, buf);
    ck_assert_uint_eq(len, 1 + 2 * (PEER_LINKS_ENTRY_LEN + PEER_LINKS_PORT_DATA_LEN));
    ck_assert_uint_eq(peer_links_entry_len(PEER_LINKS_PORT_DATA), PEER_LINKS_ENTRY_LEN + 24);
    ck_assert_int_eq(memcmp(buf + 1, want + 1, PEER_LINKS_ENTRY_LEN), 0);    /* layout 0's head */
    ck_assert_int_eq(peer_links_parse(buf, len, PEER_LINKS_PORT_DATA, &back), 0);
    ck_assert_uint_eq(back.n, 2);
    ck_assert(back.e[0].has_port_data);
    ck_assert_uint_eq(back.e[0].port_rx_bytes, 4000);
    ck_assert(back.e[0].port_tx_bytes == 1ull << 42);
    ck_assert(back.e[0].rx_bytes == 0x0102030405060708ull);
    ck_assert(!back.e[1].has_port_data);
    ck_assert(!back.e[0].has_back_neigh);
    ck_assert(back.e[1].has_back_neigh);
    ck_assert_int_eq(memcmp(back.e[1].back_neigh_mac, prober_mac, 6), 0);
    ck_assert_str_eq(back.e[1].name, "rxe-v0");
    ck_assert_uint_eq(back.e[1].tx_bytes, 8);
    ck_assert_int_eq(peer_links_parse(buf, len, PEER_LINKS_NETDEV, &back), -EBADMSG);
    ck_assert_int_eq(peer_links_parse(buf, len - 1, PEER_LINKS_PORT_DATA, &back), -EBADMSG);
    ck_assert_int_eq(peer_links_parse(buf, len + 1, PEER_LINKS_PORT_DATA, &back), -EBADMSG);
    ck_assert_int_eq(peer_links_parse(buf, len, (enum peer_links_layout)2, &back), -EBADMSG);
    ck_assert_uint_eq(peer_links_entry_len((enum peer_links_layout)2), 0);
    /* The tail's flags, a MAC without its flag, and figures without theirs. */
    uint8_t *tail0 = buf + 1 + PEER_LINKS_ENTRY_LEN, *tail1 = tail0 + PEER_LINKS_ENTRY_LEN + 24;
    tail0[0] = 2;
    ck_assert_int_eq(peer_links_parse(buf, len, PEER_LINKS_PORT_DATA, &back), -EBADMSG);
    tail0[0] = 1;
    tail0[7] = 1;
    ck_assert_int_eq(peer_links_parse(buf, len, PEER_LINKS_PORT_DATA, &back), -EBADMSG);
    tail0[7] = 0;
    tail1[1] = 2;
    ck_assert_int_eq(peer_links_parse(buf, len, PEER_LINKS_PORT_DATA, &back), -EBADMSG);
    tail1[1] = 0;                                       /* its MAC left without the flag */
    ck_assert_int_eq(peer_links_parse(buf, len, PEER_LINKS_PORT_DATA, &back), -EBADMSG);
    tail1[1] = 1;
    tail1[23] = 1;
    ck_assert_int_eq(peer_links_parse(buf, len, PEER_LINKS_PORT_DATA, &back), -EBADMSG);
    tail1[23] = 0;
    ck_assert_int_eq(peer_links_parse(buf, len, PEER_LINKS_PORT_DATA, &back), 0);
    buf[0] = LINK_TRAFFIC_MAX + 1;
    ck_assert_int_eq(peer_links_parse(buf, 1 + (LINK_TRAFFIC_MAX + 1) * (PEER_LINKS_ENTRY_LEN + 24),
                                      PEER_LINKS_PORT_DATA, &back), -EBADMSG);
}
END_TEST

static void side(struct isolation_side *s, const char *want, uint64_t wb, const char *other, uint64_t ob)
{
    snprintf(s->want, sizeof(s->want), "%s", want);
    s->want_bytes = wb;
    snprintf(s->other, sizeof(s->other), "%s", other);
    s->other_bytes = ob;
}

/* One path, rxe1/1 to 10.9.0.102, from a2 to B's b2, with tests/isolation-netns.sh's
 * stock figures (its TCP bytes left by a1). */
static void path(struct probe_run *run, struct probe_peer *e)
{
    memset(run, 0, sizeof(*run));
    memset(e, 0, sizeof(*e));
    run->peers = e;
    run->n_peers = 1;
    snprintf(e->peer, sizeof(e->peer), "10.9.0.102");
    snprintf(e->addr, sizeof(e->addr), "10.9.0.102");
    snprintf(e->rail, sizeof(e->rail), "rxe1/1");
    snprintf(e->isolation.rail, sizeof(e->isolation.rail), "a2");
    snprintf(e->isolation.peer_rail, sizeof(e->isolation.peer_rail), "b2");
    struct isolation_leg *l = &e->isolation.leg[ISOLATION_TCP];
    l->measured = true;
    l->out_bytes = 41933824;
    l->back_bytes = 56320;
    side(&l->own_tx, "a2", 0, "a1", 42026416);
    side(&l->peer_rx, "b2", 42026416, "b1", 0);
    side(&l->peer_tx, "b2", 80000, "b1", 0);
    side(&l->own_rx, "a2", 0, "a1", 80000);
}

START_TEST(test_check_verdicts)
{
    struct probe_run run;
    struct probe_peer e;
    struct findings fs = { 0 };
    path(&run, &e);
    check_isolation(&run, &fs);
    const struct finding *f = one_finding(&fs, "route.isolation", "rxe1/1");
    ck_assert_int_eq(f->severity, SEVERITY_ERROR);
    ck_assert_ptr_nonnull(strstr(f->message, "left by a1 (+42026416 B), not a2 (+0 B)"));
    ck_assert_ptr_nonnull(strstr(f->message, "arrived on a1 (+80000 B), not a2 (+0 B)"));
    ck_assert_ptr_nonnull(strstr(f->hint, "arp_ignore=1"));
    ck_assert_str_eq(f->subject, "10.9.0.102");
    findings_done(&fs);

    /* Fixed: every side on its rail. */
    struct isolation_leg *l = &e.isolation.leg[ISOLATION_TCP];
    side(&l->own_tx, "a2", 42026416, "a1", 0);
    side(&l->own_rx, "a2", 80000, "a1", 0);
    check_isolation(&run, &fs);
    f = one_finding(&fs, "route.isolation", "rxe1/1");
    ck_assert_int_eq(f->severity, SEVERITY_OK);
    ck_assert_ptr_nonnull(strstr(f->message, "arrived on the peer's b2 (+42026416 B)"));
    findings_done(&fs);

    /* A failed RDMA probe whose neighbour entry holds the peer's other NIC: flux, named. */
    e.isolation.flux = true;
    uint8_t mac[6] = { 0x52, 0x54, 0, 0x77, 0x0b, 0 };
    memcpy(e.isolation.neigh_mac, mac, 6);
    snprintf(e.isolation.neigh_owner, sizeof(e.isolation.neigh_owner), "b1");
    check_isolation(&run, &fs);
    f = one_finding(&fs, "route.isolation", "rxe1/1");
    ck_assert_int_eq(f->severity, SEVERITY_ERROR);
    ck_assert_ptr_nonnull(strstr(f->message, "ARP flux: this node's neighbour entry for 10.9.0.102 on a2 "
                                             "holds 52:54:00:77:0b:00, the MAC of the peer's b1, not of its b2"));
    findings_done(&fs);

    /* The way back: the peer's entry on b2 for a2's address holds this node's a1 MAC. */
    e.isolation.flux_back = true;
    static const uint8_t a1_mac[6] = { 0x52, 0x54, 0, 0x77, 0x0a, 0 }, a2_mac[6] = { 0x52, 0x54, 0, 0x77, 0x0a, 1 };
    memcpy(e.isolation.neigh_mac, a1_mac, 6);
    memcpy(e.isolation.rail_mac, a2_mac, 6);
    snprintf(e.isolation.neigh_owner, sizeof(e.isolation.neigh_owner), "a1");
    check_isolation(&run, &fs);
    f = one_finding(&fs, "route.isolation", "rxe1/1");
    ck_assert_int_eq(f->severity, SEVERITY_ERROR);
    ck_assert_ptr_nonnull(strstr(f->message, "ARP flux on the way back: the peer's neighbour entry on its b2 "
                                             "for this node's a2 address holds 52:54:00:77:0a:00, the MAC of "
                                             "this node's a1, not of its a2 (52:54:00:77:0a:01)"));
    ck_assert_ptr_nonnull(strstr(f->hint, "arp_ignore=1"));
    findings_done(&fs);

    /* Bytes no netdev counted (an offloading HCA): unknown, never ok. */
    e.isolation.flux = e.isolation.flux_back = false;
    side(&l->own_tx, "a2", 10, "a1", 10);
    check_isolation(&run, &fs);
    ck_assert_int_eq(one_finding(&fs, "route.isolation", "rxe1/1")->severity, SEVERITY_UNKNOWN);
    findings_done(&fs);

    /* Unmeasured, with why; a path from the host is not judged. */
    snprintf(e.isolation.error, sizeof(e.isolation.error), "no links answer from the peer");
    check_isolation(&run, &fs);
    f = one_finding(&fs, "route.isolation", "rxe1/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_ptr_nonnull(strstr(f->message, "not measured: no links answer"));
    findings_done(&fs);
    memset(&e.isolation, 0, sizeof(e.isolation));
    check_isolation(&run, &fs);
    ck_assert_uint_eq(fs.n, 0);
    findings_done(&fs);
}
END_TEST

/* JSON's SIDE of TRANSPORT in the probes report of RUN: "counter" and "other_counter". */
static void json_counters(struct probe_run *run, const char *transport, const char *side_name,
                          char *counter, char *other, size_t len)
{
    static struct report r;
    json_object *j, *peers, *iso, *leg, *side, *v;
    memset(&r, 0, sizeof(r));
    r.probed = true;
    r.probes = *run;
    j = report_probes_json(&r);
    ck_assert(json_object_object_get_ex(j, "peers", &peers));
    ck_assert(json_object_object_get_ex(json_object_array_get_idx(peers, 0), "isolation", &iso));
    ck_assert(json_object_object_get_ex(iso, transport, &leg));
    ck_assert(json_object_object_get_ex(leg, side_name, &side));
    ck_assert(json_object_object_get_ex(side, "counter", &v));
    snprintf(counter, len, "%s", json_object_get_string(v));
    snprintf(other, len, "%s", json_object_object_get_ex(side, "other_counter", &v) ? json_object_get_string(v) : "");
    json_object_put(j);
}

/* An mlx5 path: RDMA bytes in the ports' data counters, none in the netdevs': ok, with
 * "port data" figures, and the JSON names the counter of each side. */
START_TEST(test_check_port_data)
{
    struct probe_run run;
    struct probe_peer e;
    struct findings fs = { 0 };
    char counter[16], other[16];
    path(&run, &e);
    struct isolation_leg *l = &e.isolation.leg[ISOLATION_RDMA];
    struct link_traffic before = { 0 }, after = { 0 };
    entry(&before, "a2", 2, 100, 100, "10.9.0.2");
    entry(&before, "a1", 1, 100, 100, "10.9.0.1");
    entry(&after, "a2", 2, 100, 100, "10.9.0.2");
    entry(&after, "a1", 1, 100, 100, "10.9.0.1");
    port_data(&before, 0, 0, 0);
    port_data(&after, 0, 65536, 1 << 20);
    l->measured = true;
    l->out_bytes = 1000000;
    l->back_bytes = 65536;
    isolation_side_measure(&before, &after, "a2", false, true, &l->own_tx);
    isolation_side_measure(&before, &after, "a2", true, true, &l->own_rx);
    side(&l->peer_rx, "b2", 1 << 20, "b1", 0);
    l->peer_rx.want_counter = ISOLATION_COUNTER_PORT_DATA;
    side(&l->peer_tx, "b2", 65536, "b1", 0);
    l->peer_tx.want_counter = ISOLATION_COUNTER_PORT_DATA;
    /* The TCP leg on its rail too, by the netdevs' counters. */
    struct isolation_leg *tcp = &e.isolation.leg[ISOLATION_TCP];
    side(&tcp->own_tx, "a2", 42026416, "a1", 0);
    side(&tcp->own_rx, "a2", 80000, "a1", 0);
    check_isolation(&run, &fs);
    const struct finding *f = one_finding(&fs, "route.isolation", "rxe1/1");
    ck_assert_int_eq(f->severity, SEVERITY_OK);
    ck_assert_msg(strstr(f->message, "RDMA out 1000000 B, back 65536 B; left by a2 (+1048576 B port data)"),
                  "%s", f->message);
    ck_assert_msg(strstr(f->message, "arrived on a2 (+65536 B port data)"), "%s", f->message);
    ck_assert_msg(strstr(f->message, "TCP out 41933824 B, back 56320 B; left by a2 (+42026416 B);"),
                  "%s", f->message);
    findings_done(&fs);
    json_counters(&run, "rdma", "sent", counter, other, sizeof(counter));
    ck_assert_str_eq(counter, "port_data");
    ck_assert_str_eq(other, "netdev");         /* a1 has no port data */
    json_counters(&run, "tcp", "sent", counter, other, sizeof(counter));
    ck_assert_str_eq(counter, "netdev");
    ck_assert_str_eq(other, "netdev");

    /* The peer's side went by its other port: an error, in port data on both figures. */
    side(&l->peer_rx, "b2", 0, "b1", 1 << 20);
    l->peer_rx.want_counter = l->peer_rx.other_counter = ISOLATION_COUNTER_PORT_DATA;
    check_isolation(&run, &fs);
    f = one_finding(&fs, "route.isolation", "rxe1/1");
    ck_assert_int_eq(f->severity, SEVERITY_ERROR);
    ck_assert_msg(strstr(f->message, "arrived on the peer's b1 (+1048576 B port data), not b2 (+0 B port data)"),
                  "%s", f->message);
    findings_done(&fs);

    /* Neither netdevs nor ports saw it: unknown, and it says both were read. */
    side(&l->peer_rx, "b2", 0, "b1", 0);
    l->peer_rx.want_counter = l->peer_rx.other_counter = ISOLATION_COUNTER_PORT_DATA;
    check_isolation(&run, &fs);
    f = one_finding(&fs, "route.isolation", "rxe1/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_msg(strstr(f->message, "nor in their RDMA ports' data counters"), "%s", f->message);
    ck_assert_msg(strstr(f->message, "neither b2 (+0 B port data) nor another netdev"), "%s", f->message);
    findings_done(&fs);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("isolation");
    TCase *tc = tcase_create("isolation");
    tcase_add_test(tc, test_side_rule);
    tcase_add_test(tc, test_side_port_data);
    tcase_add_test(tc, test_links_answer);
    tcase_add_test(tc, test_links_layouts);
    tcase_add_test(tc, test_check_verdicts);
    tcase_add_test(tc, test_check_port_data);
    suite_add_tcase(s, tc);
    return check_run(s);
}
