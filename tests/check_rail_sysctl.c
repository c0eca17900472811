/* SPDX-License-Identifier: ISC */
/* Per-rail sysctl keys (model/rail_sysctl): the @rail and @multirail components, their
 * expansion for each rail netdev, and the netdev list the expansion runs over. (The
 * transaction on them: check_tuning; on the real kernel: tuning-rails.sh; the loader's
 * errors: policy_cases.h.) */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <string.h>

#include "check_run.h"
#include "inventory.h"
#include "rail_sysctl.h"

static enum rail_sysctl_scope scope_of(const char *key)
{
    enum rail_sysctl_scope s;
    const char *why;
    ck_assert_msg(rail_sysctl_parse(key, 127, &s, &why) == 0, "%s: %s", key, why);
    ck_assert_ptr_null(why);
    return s;
}

static const char *why_refused(const char *key)
{
    enum rail_sysctl_scope s;
    const char *why;
    ck_assert_msg(rail_sysctl_parse(key, 127, &s, &why) == -EINVAL, "%s was taken", key);
    ck_assert_ptr_nonnull(why);
    return why;
}

START_TEST(test_parse)
{
    ck_assert_int_eq(scope_of("net.core.rmem_max"), RAIL_SYSCTL_PLAIN);
    ck_assert_int_eq(scope_of("net.ipv4.conf.eth0.arp_ignore"), RAIL_SYSCTL_PLAIN);
    ck_assert_int_eq(scope_of("net.ipv4.conf.@rail.arp_ignore"), RAIL_SYSCTL_RAIL);
    ck_assert_int_eq(scope_of("net.ipv4.conf.@multirail.rp_filter"), RAIL_SYSCTL_MULTIRAIL);
    ck_assert_int_eq(scope_of("net.ipv6.conf.@rail.accept_ra"), RAIL_SYSCTL_RAIL);
    ck_assert_int_eq(scope_of("net.ipv4.neigh.@multirail.base_reachable_time_ms"),
                     RAIL_SYSCTL_MULTIRAIL);
    ck_assert_int_eq(scope_of("net.ipv6.neigh.@rail.gc_stale_time"), RAIL_SYSCTL_RAIL);

    ck_assert_ptr_nonnull(strstr(why_refused("net.ipv4.conf.x@rail.arp_ignore"), "begin"));
    ck_assert_ptr_nonnull(strstr(why_refused("net.ipv4.conf.@Rail.arp_ignore"), "@multirail"));
    ck_assert_ptr_nonnull(strstr(why_refused("net.ipv4.conf.@.arp_ignore"), "@multirail"));
    ck_assert_ptr_nonnull(strstr(why_refused("net.ipv4.conf.@railx.arp_ignore"), "@multirail"));
    ck_assert_ptr_nonnull(strstr(why_refused("net.ipv4.conf.@rail.@rail"), "at most one"));
    ck_assert_ptr_nonnull(strstr(why_refused("net.ipv4.conf.@rail.x@y"), "at most one"));
    ck_assert_ptr_nonnull(strstr(why_refused("net.core.@rail.rmem_max"), "per-interface"));
    ck_assert_ptr_nonnull(strstr(why_refused("net.ipv4.@rail.conf.x"), "per-interface"));
    ck_assert_ptr_nonnull(strstr(why_refused("xnet.ipv4.conf.@rail.x"), "per-interface"));
    ck_assert_ptr_nonnull(strstr(why_refused("net.ipv4.conf.@rail"), "after it"));
    ck_assert_ptr_nonnull(strstr(why_refused("net.ipv4.conf.@rail."), "after it"));

    /* The limit: the key with a 15-character name in place of the component. */
    char key[200];
    snprintf(key, sizeof(key), "net.ipv4.conf.@rail.%0*d", 127 - 15 - 15, 0);
    ck_assert_uint_eq(strlen(key) - 5 + 15, 127);
    ck_assert_int_eq(scope_of(key), RAIL_SYSCTL_RAIL);
    strcat(key, "1");
    ck_assert_ptr_nonnull(strstr(why_refused(key), "too long"));
}
END_TEST

START_TEST(test_expand)
{
    char buf[128];
    ck_assert_int_eq(rail_sysctl_expand("net.ipv4.conf.@rail.arp_ignore", "ens1f0np0", buf,
                                        sizeof(buf)), 0);
    ck_assert_str_eq(buf, "net.ipv4.conf.ens1f0np0.arp_ignore");
    ck_assert_int_eq(rail_sysctl_expand("net.ipv4.conf.@multirail.rp_filter", "rxe-veth1", buf,
                                        sizeof(buf)), 0);
    ck_assert_str_eq(buf, "net.ipv4.conf.rxe-veth1.rp_filter");
    /* sysctl(8)'s form of a dotted name: '/' inside the component. */
    ck_assert_int_eq(rail_sysctl_expand("net.ipv4.conf.@rail.arp_announce", "eth0.100", buf,
                                        sizeof(buf)), 0);
    ck_assert_str_eq(buf, "net.ipv4.conf.eth0/100.arp_announce");
    ck_assert_int_eq(rail_sysctl_expand("net.core.rmem_max", "eth0", buf, sizeof(buf)), 0);
    ck_assert_str_eq(buf, "net.core.rmem_max");
    ck_assert_int_eq(rail_sysctl_expand("net.ipv4.conf.@rail.arp_ignore", "eth0", buf, 20),
                     -ENAMETOOLONG);
    ck_assert_int_eq(rail_sysctl_expand("net.ipv4.conf.@bad.arp_ignore", "eth0", buf,
                                        sizeof(buf)), -EINVAL);

    rail_sysctl_canonical("net.ipv4.conf.@multirail.rp_filter", buf, sizeof(buf));
    ck_assert_str_eq(buf, "net.ipv4.conf.@rail.rp_filter");
    rail_sysctl_canonical("net.core.rmem_max", buf, sizeof(buf));
    ck_assert_str_eq(buf, "net.core.rmem_max");
}
END_TEST

START_TEST(test_applies)
{
    struct rail_netdevs r = { 0 };
    ck_assert(rail_sysctl_applies(RAIL_SYSCTL_PLAIN, &r));
    ck_assert(!rail_sysctl_applies(RAIL_SYSCTL_RAIL, &r));
    ck_assert(!rail_sysctl_applies(RAIL_SYSCTL_MULTIRAIL, &r));
    rail_netdevs_add(&r, "eth0");
    rail_netdevs_add(&r, "eth0");       /* two ports of one netdev: still one */
    ck_assert_uint_eq(r.n, 1);
    ck_assert(rail_sysctl_applies(RAIL_SYSCTL_RAIL, &r));
    ck_assert(!rail_sysctl_applies(RAIL_SYSCTL_MULTIRAIL, &r));
    rail_netdevs_add(&r, "eth1");
    ck_assert(rail_sysctl_applies(RAIL_SYSCTL_MULTIRAIL, &r));
}
END_TEST

START_TEST(test_netdevs)
{
    struct rail_netdevs r = { 0 };
    /* Names that are no netdev's, and the directories that mean every interface. */
    const char *bad[] = { "", ".", "..", "all", "default", "a/b", "a:1", "a b", "a\tb",
                          "sixteen-chars-xx" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        rail_netdevs_add(&r, bad[i]);
    ck_assert_uint_eq(r.n, 0);
    ck_assert_uint_eq(r.n_dropped, sizeof(bad) / sizeof(bad[0]));
    rail_netdevs_add(&r, "fifteen-chars-x");
    rail_netdevs_add(&r, "eth0.100");
    ck_assert_uint_eq(r.n, 2);

    struct rail_netdevs many = { 0 };
    char name[IFNAMSIZ];
    for (int i = 0; i < RAIL_SYSCTL_MAX_NETDEVS + 3; i++) {
        snprintf(name, sizeof(name), "vf%d", i);
        rail_netdevs_add(&many, name);
    }
    ck_assert_uint_eq(many.n, RAIL_SYSCTL_MAX_NETDEVS);
    ck_assert_uint_eq(many.n_dropped, 3);
}
END_TEST

/* The inventory's rails: distinct netdevs in its order; a rail without one adds none. */
START_TEST(test_from_inventory)
{
    struct inventory inv = { 0 };
    struct rail *a = inventory_add_rail(&inv, "mlx5_0", 1);
    struct rail *b = inventory_add_rail(&inv, "mlx5_1", 1);
    struct rail *c = inventory_add_rail(&inv, "mlx5_1", 2);
    struct rail *d = inventory_add_rail(&inv, "mlx5_2", 1);
    ck_assert(a && b && c && d);
    a = &inv.rails[0], b = &inv.rails[1], c = &inv.rails[2], d = &inv.rails[3];
    a->netdev.present = b->netdev.present = c->netdev.present = true;
    strcpy(a->netdev.name, "ens2");
    strcpy(b->netdev.name, "ens1");
    strcpy(c->netdev.name, "ens1");
    strcpy(d->netdev.name, "stale");    /* not present: the rail has no netdev */
    struct rail_netdevs r;
    rail_netdevs_from_inventory(&inv, &r);
    ck_assert_uint_eq(r.n, 2);
    ck_assert_str_eq(r.name[0], "ens2");
    ck_assert_str_eq(r.name[1], "ens1");
    inventory_done(&inv);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rail_sysctl");
    TCase *tc = tcase_create("model");
    tcase_add_test(tc, test_parse);
    tcase_add_test(tc, test_expand);
    tcase_add_test(tc, test_applies);
    tcase_add_test(tc, test_netdevs);
    tcase_add_test(tc, test_from_inventory);
    suite_add_tcase(s, tc);
    return check_run(s);
}
