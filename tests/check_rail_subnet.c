/* SPDX-License-Identifier: ISC */
/* A rail's RoCE v2 IPv4 subnet (model/rail_subnet), the subnet label of fabtune_rail_info:
 * the address from the GID table, the prefix from the netdev's addresses; and the series
 * in the exposition, which promtool (Debian's prometheus package) finds clean. (A daemon
 * on a --sysfs-root tree reads no netdev addresses, so fleet-prometheus.sh's rails have
 * no subnet; the rule over the series: conf/prometheus/fabtune-rules.test.yml.) */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "gid.h"
#include "inventory.h"
#include "metrics.h"
#include "rail_subnet.h"
#include "report.h"

static struct gid_entry gids[4];
static struct rail r;

/* rxe0-like: 0 fe80 v2, 1 10.0.3.7 v1, 2 10.0.3.7 v2, 3 empty; ens1 holds 10.0.3.7/20. */
static void setup(void)
{
    memset(gids, 0, sizeof(gids));
    memset(&r, 0, sizeof(r));
    ck_assert_int_eq(gid_parse_sysfs("fe80:0000:0000:0000:68d1:22ff:fe6b:a45f", gids[0].raw), 0);
    gids[0].type = GID_TYPE_ROCE_V2;
    ck_assert_int_eq(gid_parse_sysfs("0000:0000:0000:0000:0000:ffff:0a00:0307", gids[1].raw), 0);
    gids[1].type = GID_TYPE_IB_ROCE_V1;
    memcpy(gids[2].raw, gids[1].raw, 16);
    gids[2].type = GID_TYPE_ROCE_V2;
    r.gids = gids;
    r.n_gids = 4;
    r.gid_index = 2;
    r.netdev.present = r.netdev.addresses_known = true;
    strcpy(r.netdev.name, "ens1");
    r.netdev.addrs[0] = (struct ip_address){ .family = AF_INET6, .prefix_len = 64 };
    r.netdev.addrs[1] = (struct ip_address){ .family = AF_INET, .prefix_len = 20 };
    inet_pton(AF_INET, "10.0.3.7", r.netdev.addrs[1].addr);
    r.netdev.n_addrs = 2;
}

static const char *subnet(void)
{
    static char buf[64];
    struct cidr c;
    int e = rail_roce_ipv4_subnet(&r, &c);
    if (e < 0)
        return e == -ENODATA ? "ENODATA" : "error";
    return cidr_format(&c, buf, sizeof(buf));
}

START_TEST(test_subnet)
{
    ck_assert_str_eq(subnet(), "10.0.0.0/20");      /* host bits cleared */
    r.netdev.addrs[1].prefix_len = 24;
    ck_assert_str_eq(subnet(), "10.0.3.0/24");
    r.netdev.addrs[1].prefix_len = 32;
    ck_assert_str_eq(subnet(), "10.0.3.7/32");
    /* The policy chose the fe80 GID (IPv6): the table's first RoCE v2 IPv4 GID, not v1's. */
    r.gid_index = 0;
    r.netdev.addrs[1].prefix_len = 24;
    ck_assert_str_eq(subnet(), "10.0.3.0/24");
    r.gid_index = -1;
    ck_assert_str_eq(subnet(), "10.0.3.0/24");
}
END_TEST

START_TEST(test_no_subnet)
{
    r.netdev.addresses_known = false;               /* a sysfs snapshot */
    ck_assert_str_eq(subnet(), "ENODATA");
    r.netdev.addresses_known = true;
    inet_pton(AF_INET, "10.0.3.8", r.netdev.addrs[1].addr);   /* the GID's address is gone */
    ck_assert_str_eq(subnet(), "ENODATA");
    inet_pton(AF_INET, "10.0.3.7", r.netdev.addrs[1].addr);
    gids[2].type = GID_TYPE_IB_ROCE_V1;              /* only RoCE v1 for IPv4 */
    ck_assert_str_eq(subnet(), "ENODATA");
    gids[2].type = GID_TYPE_ROCE_V2;
    r.netdev.present = false;
    ck_assert_str_eq(subnet(), "ENODATA");
}
END_TEST

START_TEST(test_cidr_of_address)
{
    struct cidr c;
    char buf[64];
    uint8_t a6[16];
    inet_pton(AF_INET6, "fd00:1:2:3:4:5:6:7", a6);
    cidr_of_address(AF_INET6, a6, 64, &c);
    ck_assert_str_eq(cidr_format(&c, buf, sizeof(buf)), "fd00:1:2:3::/64");
    uint8_t a4[4] = { 192, 0, 2, 129 };
    cidr_of_address(AF_INET, a4, 25, &c);
    ck_assert_str_eq(cidr_format(&c, buf, sizeof(buf)), "192.0.2.128/25");
    cidr_of_address(AF_INET, a4, 40, &c);           /* clamped to the family's 32 */
    ck_assert_str_eq(cidr_format(&c, buf, sizeof(buf)), "192.0.2.129/32");
}
END_TEST

/* fabtune_rail_info: one sample per rail with a subnet, with the rail's labels; none for
 * a rail without (InfiniBand, addresses unknown). promtool finds the exposition clean. */
START_TEST(test_metric)
{
    struct report rep;
    struct policy p;
    char dir[512], path[600];
    policy_init_defaults(&p);
    memset(&rep, 0, sizeof(rep));
    report_init(&rep, &p, "<built-in>");
    const char *names[] = { "mlx5_0", "mlx5_1", "mlx5_2" };
    for (int i = 0; i < 3; i++) {
        struct rail *x = inventory_add_rail(&rep.inventory, names[i], 1);
        ck_assert_ptr_nonnull(x);
        struct gid_entry *g = x->gids;
        *x = r;
        strcpy(x->device, names[i]);
        x->port = 1;
        snprintf(x->name, sizeof(x->name), "%s/1", names[i]);
        x->gids = calloc(4, sizeof(*g));
        ck_assert_ptr_nonnull(x->gids);
        memcpy(x->gids, gids, sizeof(gids));
        free(g);
        snprintf(x->netdev.name, sizeof(x->netdev.name), "ens%d", i + 1);
        strcpy(x->link_layer, "Ethernet");
    }
    rep.inventory.rails[1].netdev.addrs[1].addr[2] = 9;     /* 10.0.9.7: not the GID's */
    rep.inventory.rails[2].netdev.addresses_known = false;
    report_finish(&rep);
    char *text = metrics_render(&rep);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strstr(text, "\nfabtune_rail_info{device=\"mlx5_0\",port=\"1\",netdev=\"ens1\","
                               "subnet=\"10.0.0.0/20\"} 1\n"), "%s", text);
    ck_assert_ptr_null(strstr(text, "fabtune_rail_info{device=\"mlx5_1\""));
    ck_assert_ptr_null(strstr(text, "fabtune_rail_info{device=\"mlx5_2\""));
    ck_assert_int_eq(check_scratch_dir(dir, sizeof(dir), "check_rail_subnet"), 0);
    snprintf(path, sizeof(path), "%s/fabtune.prom", dir);
    promtool_clean(text, path);
    free(text);
    report_done(&rep);
    policy_done(&p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rail_subnet");
    TCase *tc = tcase_create("model");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_subnet);
    tcase_add_test(tc, test_no_subnet);
    tcase_add_test(tc, test_cidr_of_address);
    tcase_add_test(tc, test_metric);
    suite_add_tcase(s, tc);
    return check_run(s);
}
