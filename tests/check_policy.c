/* SPDX-License-Identifier: ISC */
/* Tests of the policy loader, its errors, the defaults and the dump round trip. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "macro.h"
#include "policy.h"
#include "tuning.h"
#include "policy_cases.h"
#include "fileio.h"

static struct policy p;
static struct policy_errors errs;

static void setup(void)
{
    policy_init_defaults(&p);
    memset(&errs, 0, sizeof(errs));
}

static void teardown(void)
{
    policy_done(&p);
    policy_errors_done(&errs);
}

static int load(const char *yaml)
{
    return policy_load_string(yaml, strlen(yaml), "t.yaml", &p, &errs);
}

/* Line n (1-based) of text, without its newline. */
static char *nth_line(const char *text, unsigned n)
{
    const char *s = text;
    for (unsigned i = 1; i < n && s; i++) {
        s = strchr(s, '\n');
        if (s)
            s++;
    }
    if (!s)
        return strdup("");
    return strndup(s, strcspn(s, "\n"));
}

START_TEST(test_bad_policy)
{
    const struct bad_policy *c = &bad_policies[_i];
    char want[512];
    unsigned line, col;

    ck_assert_msg(load(c->yaml) < 0, "%s: accepted", c->name);
    ck_assert_int_ge(errs.n, 1);

    /* First line: FILE:LINE:COL: message, exactly. */
    snprintf(want, sizeof(want), "t.yaml:%s", c->error);
    _cleanup_free_ char *first = nth_line(errs.msgs[0], 1);
    ck_assert_msg(streq(first, want), "%s:\n got  '%s'\n want '%s'", c->name, first, want);

    /* Then the source line and a caret under the column. */
    ck_assert_int_eq(sscanf(c->error, "%u:%u:", &line, &col), 2);
    if (*c->yaml) {
        _cleanup_free_ char *src = nth_line(errs.msgs[0], 2);
        _cleanup_free_ char *caret = nth_line(errs.msgs[0], 3);
        _cleanup_free_ char *orig = nth_line(c->yaml, line);
        ck_assert_str_eq(src, orig);
        ck_assert_uint_eq(strlen(caret), col);
        ck_assert_int_eq(caret[col - 1], '^');
    }
}
END_TEST

START_TEST(test_errors_collected)
{
    ck_assert_int_lt(load("rails:\n  expect_count: x\n  link_layer: y\nzzz: 1\n"), 0);
    ck_assert_uint_eq(errs.n, 3);
    ck_assert_ptr_nonnull(strstr(errs.msgs[0], "t.yaml:2:17:"));
    ck_assert_ptr_nonnull(strstr(errs.msgs[1], "t.yaml:3:15:"));
    ck_assert_ptr_nonnull(strstr(errs.msgs[2], "t.yaml:4:1:"));
}
END_TEST

START_TEST(test_errors_capped)
{
    char yaml[4096] = "";
    for (int i = 0; i < 40; i++)
        snprintf(yaml + strlen(yaml), sizeof(yaml) - strlen(yaml), "bad%d: 1\n", i);
    ck_assert_int_lt(load(yaml), 0);
    ck_assert_uint_eq(errs.n, POLICY_MAX_ERRORS);
    ck_assert_uint_eq(errs.n_dropped, 40 - POLICY_MAX_ERRORS);
}
END_TEST

START_TEST(test_defaults)
{
    struct policy d;
    policy_init_defaults(&d);
    /* Without tuning.sysctl a policy keeps the built-in profile (test_builtin_profile_kept):
     * with no keys it is the defaults exactly. */
    ck_assert_int_eq(load("version: 1\ntuning: {sysctl: {}}\n"), 0);
    ck_assert(policy_equal(&p, &d));
    policy_done(&d);

    ck_assert_uint_eq(p.version, 1);
    ck_assert_int_eq(p.rails.select, RAIL_SELECT_ALL);
    ck_assert_int_eq(p.rails.link_layer, LINK_LAYER_ANY);
    ck_assert_uint_eq(p.rails.expect_count, POLICY_COUNT_UNSET);
    ck_assert_int_eq(p.rails.roce.gid_index, POLICY_GID_INDEX_AUTO);
    ck_assert_uint_eq(p.rails.roce.version, 2);
    ck_assert(!p.rails.roce.subnet.set);
    ck_assert_uint_eq(p.rails.qos.dscp, 26);
    ck_assert_uint_eq(p.rails.qos.pfc_priority, 3);
    ck_assert_uint_eq(p.rails.qos.cnp_dscp, 48);
    ck_assert_uint_eq(p.checks.interval, 30 * USEC_PER_SEC);
    ck_assert_uint_eq(p.checks.flaps.window, 10 * USEC_PER_MINUTE);
    ck_assert_int_eq(p.tuning.mode, TUNING_VERIFY);
    ck_assert_uint_eq(p.tuning.n_sysctl, 0);
    ck_assert_uint_eq(p.probes.rdma.size, 8);
    ck_assert_uint_eq(p.probes.tcp.bandwidth.duration, 200 * USEC_PER_MSEC);
    ck_assert_double_eq(p.probes.regression.ratio, 1.5);
    ck_assert_double_eq(p.probes.defer.busy_gbps, 1);
    ck_assert_uint_eq(p.probes.defer.hold, 60 * USEC_PER_SEC);
    ck_assert(p.probes.defer.jobs);
    ck_assert_uint_eq(p.probes.defer.light_bytes, 1048576);
    ck_assert_int_eq(p.probes.light_dscp, 0);
    ck_assert(p.jobs.ras.enabled);
    ck_assert_uint_eq(p.jobs.ras.interval, 10 * USEC_PER_SEC);
    ck_assert_uint_eq(p.jobs.ras.timeout, 8 * USEC_PER_SEC);
    ck_assert_double_eq(p.probes.regression.rdma_min_excess_us, 5);
    ck_assert_double_eq(p.probes.regression.tcp_min_excess_us, 100);
    ck_assert_str_eq(p.outputs.nccl_env, "/run/fabtune/nccl.env");
    ck_assert_str_eq(p.outputs.nccl_conf, "/run/fabtune/nccl.conf");
    ck_assert_str_eq(p.control.socket, "/run/fabtune/fabtuned.sock");
    ck_assert_str_eq(p.control.group, "fabtune");
}
END_TEST

/* An empty file, or one of comments alone, is "version: 1": every key its default (the
 * version too), as a file that leaves out version is valid. */
START_TEST(test_empty_is_defaults)
{
    struct policy v1;
    struct policy_errors e1 = { 0 };
    policy_init_defaults(&v1);
    ck_assert_int_eq(policy_load_string("version: 1\n", 11, "v1.yaml", &v1, &e1), 0);
    static const char *const empty[] = { "", "\n", "# nothing but a comment\n", "{}\n" };
    for (size_t i = 0; i < ARRAY_SIZE(empty); i++) {
        ck_assert_msg(load(empty[i]) == 0, "'%s' is refused: %s", empty[i],
                      errs.n ? errs.msgs[0] : "");
        ck_assert_msg(policy_equal(&p, &v1), "'%s' is not the defaults", empty[i]);
    }
    policy_done(&v1);
    policy_errors_done(&e1);
}
END_TEST

START_TEST(test_builtin)
{
    ck_assert_int_eq(policy_load_builtin(&p, &errs), 0);
    ck_assert_uint_eq(p.tuning.n_sysctl, 11);
    ck_assert_str_eq(policy_sysctl_get(&p, "net.core.rmem_max"), "134217728");
    /* The multi-rail trio (NVIDIA/nccl#1269, #1405): per rail, on nodes with two or more. */
    ck_assert_str_eq(policy_sysctl_get(&p, "net.ipv4.conf.@multirail.arp_ignore"), "1");
    ck_assert_str_eq(policy_sysctl_get(&p, "net.ipv4.conf.@multirail.arp_announce"), "2");
    ck_assert_str_eq(policy_sysctl_get(&p, "net.ipv4.conf.@multirail.rp_filter"), "2");
    ck_assert_str_eq(policy_sysctl_get(&p, "net.ipv4.tcp_rmem"), "4096 87380 134217728");
    ck_assert_str_eq(policy_sysctl_get(&p, "vm.zone_reclaim_mode"), "0");
    ck_assert_int_eq(p.tuning.mode, TUNING_VERIFY);
    ck_assert_uint_eq(p.rails.expect_count, POLICY_COUNT_UNSET);
}
END_TEST

/* A policy without tuning.sysctl keeps the built-in profile: "tuning: {mode: enforce}"
 * enforced 0 keys. Keys a policy lists replace the profile whole; an empty map means none. */
START_TEST(test_builtin_profile_kept)
{
    ck_assert_int_eq(load("version: 1\ntuning: {mode: enforce}\n"), 0);
    ck_assert_int_eq(p.tuning.mode, TUNING_ENFORCE);
    ck_assert_uint_eq(p.tuning.n_sysctl, 11);
    ck_assert_str_eq(policy_sysctl_get(&p, "net.core.netdev_max_backlog"), "250000");
    ck_assert_int_eq(load("version: 1\ntuning: {sysctl: {net.core.somaxconn: 4096}}\n"), 0);
    ck_assert_uint_eq(p.tuning.n_sysctl, 1);
    ck_assert_ptr_null(policy_sysctl_get(&p, "net.core.rmem_max"));
    ck_assert_int_eq(load("version: 1\ntuning:\n  mode: enforce\n  sysctl: {}\n"), 0);
    ck_assert_uint_eq(p.tuning.n_sysctl, 0);
}
END_TEST

/* unreachable_degraded's default (2) follows k: with k 1 it could never trip. A value the
 * policy gives is kept. */
START_TEST(test_unreachable_degraded_follows_k)
{
    ck_assert_int_eq(load("version: 1\nprobes: {peers: {hosts: [a, b], k: 1}}\n"), 0);
    ck_assert_uint_eq(p.probes.peers.unreachable_degraded, 1);
    ck_assert_int_eq(load("version: 1\nprobes: {peers: {hosts: [a, b], k: 3}}\n"), 0);
    ck_assert_uint_eq(p.probes.peers.unreachable_degraded, 2);
    ck_assert_int_eq(load("version: 1\nprobes: {peers: {k: 1, unreachable_degraded: 2}}\n"), 0);
    ck_assert_uint_eq(p.probes.peers.unreachable_degraded, 2);
    ck_assert_int_eq(load("version: 1\nprobes: {peers: {k: 1, unreachable_degraded: 0}}\n"), 0);
    ck_assert_uint_eq(p.probes.peers.unreachable_degraded, 0);
}
END_TEST

/* The built-in policy is conf/fabtune.yaml byte for byte, not a hand copy. */
START_TEST(test_builtin_is_conf_file)
{
    _cleanup_free_ char *text = NULL;
    size_t len;
    char path[1024];
    snprintf(path, sizeof(path), "%s/conf/fabtune.yaml", TEST_SRCDIR);
    ck_assert_int_eq(read_file_full(path, POLICY_MAX_FILE_SIZE, &text, &len), 0);
    ck_assert_uint_eq(len, policy_builtin_yaml_len);
    ck_assert(memcmp(text, policy_builtin_yaml, len) == 0);
}
END_TEST

START_TEST(test_full_policy)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/conf/examples/roce-8rail.yaml", TEST_SRCDIR);
    ck_assert_int_eq(policy_load_file(path, &p, &errs), 0);
    ck_assert_int_eq(p.rails.link_layer, LINK_LAYER_ETHERNET);
    ck_assert_uint_eq(p.rails.expect_count, 8);
    ck_assert_uint_eq(p.rails.min_rate_gbps, 400);
    ck_assert_uint_eq(p.rails.mtu.netdev_min, 4200);
    ck_assert_uint_eq(p.rails.mtu.rdma_active_min, 4096);
    ck_assert(p.rails.roce.subnet.set);
    ck_assert_uint_eq(p.rails.roce.subnet.prefix_len, 8);
    ck_assert_int_eq(p.rails.qos.ecn, REQ_REQUIRED);
    ck_assert_double_eq(p.rails.pcie.min_speed_gts, 32);
    ck_assert_int_eq(p.rails.gpudirect, REQ_REQUIRED);
    ck_assert_int_eq(p.tuning.mode, TUNING_ENFORCE);
    ck_assert_double_eq(p.probes.limits.rdma_p99_us, 10);
    ck_assert_double_eq(p.probes.limits.rdma_min_bw_fraction, 0.8);
    ck_assert_str_eq(p.outputs.nccl_conf, "/run/fabtune/nccl.conf");
}
END_TEST

static void assert_round_trip(void)
{
    _cleanup_free_ char *first = policy_dump(&p);
    ck_assert_ptr_nonnull(first);

    struct policy q;
    struct policy_errors e2 = { 0 };
    policy_init_defaults(&q);
    int r = policy_load_string(first, strlen(first), "dump.yaml", &q, &e2);
    if (r < 0)
        policy_errors_print(&e2, stderr);
    ck_assert_int_eq(r, 0);
    ck_assert_msg(policy_equal(&p, &q), "dump does not load back equal:\n%s", first);

    _cleanup_free_ char *second = policy_dump(&q);
    ck_assert_str_eq(first, second);
    policy_done(&q);
    policy_errors_done(&e2);
}

/* rails.expect_count: null (unset, the default: at least one rail) and 0 (a TCP-only node)
 * are two values, and the dump keeps them apart. */
START_TEST(test_expect_count_null)
{
    ck_assert_int_eq(load("rails: {expect_count: 0}\n"), 0);
    ck_assert_uint_eq(p.rails.expect_count, 0);
    _cleanup_free_ char *zero = policy_dump(&p);
    ck_assert_ptr_nonnull(strstr(zero, "  expect_count: 0\n"));
    assert_round_trip();

    ck_assert_int_eq(load("rails: {expect_count: 4}\n"), 0);
    ck_assert_int_eq(load("rails: {expect_count: null}\n"), 0);
    ck_assert_uint_eq(p.rails.expect_count, POLICY_COUNT_UNSET);
    ck_assert_int_eq(load("rails: {expect_count: ~}\n"), 0);
    ck_assert_uint_eq(p.rails.expect_count, POLICY_COUNT_UNSET);
    _cleanup_free_ char *null = policy_dump(&p);
    ck_assert_ptr_nonnull(strstr(null, "  expect_count: null\n"));
    assert_round_trip();

    /* A null elsewhere is still refused: only this count is nullable. */
    ck_assert_int_lt(load("rails: {min_rate_gbps: null}\n"), 0);
}
END_TEST

/* probes.defer.light_bytes, an integer past 32 bits (up to 1e12); probes.light_dscp, 0..63
 * or the word default. Each dumps as it loads. */
START_TEST(test_light_probe_keys)
{
    ck_assert_int_eq(load("probes: {defer: {light_bytes: 1000000000000}, light_dscp: default}\n"), 0);
    ck_assert_uint_eq(p.probes.defer.light_bytes, 1000000000000ULL);
    ck_assert_int_eq(p.probes.light_dscp, POLICY_DSCP_DEFAULT);
    _cleanup_free_ char *big = policy_dump(&p);
    ck_assert_ptr_nonnull(strstr(big, "    light_bytes: 1000000000000\n"));
    ck_assert_ptr_nonnull(strstr(big, "  light_dscp: default\n"));
    assert_round_trip();

    ck_assert_int_eq(load("probes: {defer: {light_bytes: 0}, light_dscp: 26}\n"), 0);
    ck_assert_uint_eq(p.probes.defer.light_bytes, 0);
    ck_assert_int_eq(p.probes.light_dscp, 26);
    _cleanup_free_ char *small = policy_dump(&p);
    ck_assert_ptr_nonnull(strstr(small, "  light_dscp: 26\n"));
    assert_round_trip();
    /* two policies apart by the new keys alone are not equal (a reload sees the change) */
    struct policy d;
    policy_init_defaults(&d);
    ck_assert(!policy_equal(&p, &d));
    policy_done(&d);
}
END_TEST

START_TEST(test_round_trip_builtin)
{
    ck_assert_int_eq(policy_load_builtin(&p, &errs), 0);
    assert_round_trip();
}
END_TEST

START_TEST(test_round_trip_everything_set)
{
    ck_assert_int_eq(load(
        "version: 1\n"
        "rails:\n"
        "  select: [{device: mlx5_0, port: 1}, {device: 'true', port: 2}, {device: bnxt_re3, port: 255}]\n"
        "  link_layer: infiniband\n"
        "  expect_count: 3\n"
        "  min_rate_gbps: 200\n"
        "  mtu: {netdev_min: 9000, rdma_active_min: 2048}\n"
        "  roce: {version: 1, address_family: ipv6, gid_index: 3, subnet: 'fd00:10::/64'}\n"
        "  qos: {dscp: 24, pfc_priority: 5, pfc_exclusive: false, trust: pcp, ecn: ignore, cnp_dscp: 46}\n"
        "  pcie: {min_width: 8, min_speed_gts: 2.5}\n"
        "  gpudirect: ignore\n"
        "checks: {interval: 90s, flaps: {window: 1h, max: 0}, counters: {interval: 1500ms}}\n"
        "tuning: {mode: off, revert_on_stop: true, sysctl: {net.core.somaxconn: 4096, "
        "kernel.numa_balancing: 0, net.ipv4.tcp_mem: '1 2 3'}}\n"
        "probes:\n"
        "  interval: 2m\n"
        "  rdma: {iterations: 10, size: 65536, bandwidth: {duration: 10ms, size: 1}}\n"
        "  tcp: {iterations: 1000000, size: 1, bandwidth: {duration: 10s}}\n"
        "  regression: {baseline_runs: 1, ratio: 1.1, consecutive: 100}\n"
        "  limits: {rdma_p99_us: 12.75, tcp_p99_us: 0.1, rdma_min_bw_fraction: 0.333}\n"
        "  peers: {hosts: [node-b, '::1', 10.0.0.7, node-a.example.com, node-b], file: /etc/fabtune/peers,\n"
        "          k: 3, port: 4791, max_sessions: 64, session_limit: 5s, unreachable_degraded: 0}\n"
        "outputs: {nccl_env: /tmp/x.env, nccl_conf: /etc/nccl.conf, prometheus_textfile: /p.prom}\n"
        "control: {socket: /tmp/ft.sock, group: wheel}\n"), 0);
    ck_assert_int_eq(p.rails.select, RAIL_SELECT_LIST);
    ck_assert_uint_eq(p.rails.n_list, 3);
    ck_assert_str_eq(p.rails.list[1].device, "true");
    ck_assert_uint_eq(p.rails.list[2].port, 255);
    ck_assert_int_eq(p.rails.roce.subnet.family, AF_INET6);
    ck_assert_uint_eq(p.checks.counters.interval, 1500 * USEC_PER_MSEC);
    ck_assert_int_eq(p.tuning.mode, TUNING_OFF);
    ck_assert_str_eq(policy_sysctl_get(&p, "net.ipv4.tcp_mem"), "1 2 3");
    ck_assert_uint_eq(p.probes.peers.n_hosts, 4);      /* sorted, the duplicate once */
    ck_assert_str_eq(p.probes.peers.hosts[0], "10.0.0.7");
    ck_assert_str_eq(p.probes.peers.hosts[1], "::1");
    ck_assert_str_eq(p.probes.peers.hosts[3], "node-b");
    ck_assert_uint_eq(p.probes.peers.session_limit, 5 * USEC_PER_SEC);
    assert_round_trip();
}
END_TEST

START_TEST(test_failed_load_keeps_old)
{
    ck_assert_int_eq(load("rails: {expect_count: 4}\ntuning: {sysctl: {net.core.somaxconn: 1}}\n"), 0);
    ck_assert_int_lt(load("rails: {expect_count: 5}\ntuning: {sysctl: {kernel.panic: 1}}\n"), 0);
    ck_assert_uint_eq(p.rails.expect_count, 4);
    ck_assert_uint_eq(p.tuning.n_sysctl, 1);
    ck_assert_str_eq(policy_sysctl_get(&p, "net.core.somaxconn"), "1");
}
END_TEST

START_TEST(test_aliases)
{
    ck_assert_int_eq(load("probes:\n  rdma: &p {iterations: 500, size: 16}\n  tcp: *p\n"), 0);
    ck_assert_uint_eq(p.probes.tcp.iterations, 500);
    ck_assert_uint_eq(p.probes.tcp.size, 16);
}
END_TEST

/* Exponential alias nesting ("billion laughs") must cost time linear in the text. */
START_TEST(test_alias_bomb)
{
    char yaml[8192] = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (int i = 1; i < 30; i++) {
        char line[256];
        snprintf(line, sizeof(line), "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n",
                 i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
        strcat(yaml, line);
    }
    strcat(yaml, "rails:\n  select: *a29\n");
    ck_assert_int_lt(load(yaml), 0);
    /* 30 unknown top-level keys, and one error for each of the 8 entries of *a29
     * (a sequence, not a {device, port} mapping): nothing was expanded. */
    ck_assert_uint_eq(errs.n + errs.n_dropped, 38);
    ck_assert_ptr_nonnull(strstr(errs.msgs[0], "unknown key 'a0' at top level"));
}
END_TEST

START_TEST(test_sysctl_allowlist)
{
    ck_assert(policy_sysctl_key_allowed("net.core.rmem_max"));
    ck_assert(policy_sysctl_key_allowed("vm.zone_reclaim_mode"));
    ck_assert(policy_sysctl_key_allowed("kernel.numa_balancing"));
    ck_assert(policy_sysctl_key_allowed("kernel.numa_balancing_scan_delay_ms"));
    ck_assert(!policy_sysctl_key_allowed("kernel.numa_balancingx"));
    ck_assert(!policy_sysctl_key_allowed("kernel.panic"));
    ck_assert(!policy_sysctl_key_allowed("net."));
    ck_assert(!policy_sysctl_key_allowed("network.x"));
}
END_TEST

START_TEST(test_file_errors)
{
    ck_assert_int_eq(policy_load_file("/nonexistent/fabtune.yaml", &p, &errs), -ENOENT);
    ck_assert_uint_eq(errs.n, 0);
    ck_assert_int_lt(policy_load_file("/", &p, &errs), 0);
    ck_assert_uint_eq(errs.n, 1);
    ck_assert_ptr_nonnull(strstr(errs.msgs[0], "/: cannot read policy: Is a directory"));
}
END_TEST

/* One limit for sysctl keys and values, from the policy to the tuning state: the longest
 * the policy accepts is applied whole, one character more is refused at load (before, a
 * 256-character value was written truncated and reported "applied"). */
START_TEST(test_sysctl_limits)
{
    char yaml[1024], key[POLICY_SYSCTL_KEY_MAX + 2], val[POLICY_SYSCTL_VALUE_MAX + 2];
    struct policy pol;
    struct policy_errors perr = { 0 };
    memset(val, '7', sizeof(val) - 1);
    val[sizeof(val) - 1] = '\0';                        /* 256 characters */
    snprintf(yaml, sizeof(yaml), "tuning:\n  sysctl:\n    net.core.x: \"%s\"\n", val);
    policy_init_defaults(&pol);
    ck_assert_int_lt(policy_load_string(yaml, strlen(yaml), "t.yaml", &pol, &perr), 0);
    ck_assert_msg(strstr(perr.msgs[0], "1..255 characters"), "%s", perr.msgs[0]);
    policy_errors_done(&perr);
    policy_done(&pol);

    val[POLICY_SYSCTL_VALUE_MAX] = '\0';                /* 255: accepted, and it fits */
    snprintf(yaml, sizeof(yaml), "tuning:\n  sysctl:\n    net.core.x: \"%s\"\n", val);
    policy_init_defaults(&pol);
    ck_assert_int_eq(policy_load_string(yaml, strlen(yaml), "t.yaml", &pol, &perr), 0);
    ck_assert_uint_eq(strlen(pol.tuning.sysctl[0].value), POLICY_SYSCTL_VALUE_MAX);
    ck_assert_uint_le(strlen(pol.tuning.sysctl[0].value) + 1, sizeof(((struct tuning_key *)0)->wanted));
    policy_done(&pol);

    memset(key, 'a', sizeof(key) - 1);
    memcpy(key, "net.", 4);
    key[sizeof(key) - 1] = '\0';                        /* 128 characters */
    snprintf(yaml, sizeof(yaml), "tuning:\n  sysctl:\n    %s: 1\n", key);
    policy_init_defaults(&pol);
    ck_assert_int_lt(policy_load_string(yaml, strlen(yaml), "t.yaml", &pol, &perr), 0);
    ck_assert_msg(strstr(perr.msgs[0], "at most 127 characters"), "%s", perr.msgs[0]);
    policy_errors_done(&perr);
    policy_done(&pol);
}
END_TEST

static Suite *policy_suite(void)
{
    Suite *s = suite_create("policy");
    TCase *tc = tcase_create("load");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, test_bad_policy, 0, (int)ARRAY_SIZE(bad_policies));
    tcase_add_test(tc, test_errors_collected);
    tcase_add_test(tc, test_errors_capped);
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_empty_is_defaults);
    tcase_add_test(tc, test_builtin);
    tcase_add_test(tc, test_builtin_is_conf_file);
    tcase_add_test(tc, test_full_policy);
    tcase_add_test(tc, test_light_probe_keys);
    tcase_add_test(tc, test_round_trip_builtin);
    tcase_add_test(tc, test_expect_count_null);
    tcase_add_test(tc, test_round_trip_everything_set);
    tcase_add_test(tc, test_failed_load_keeps_old);
    tcase_add_test(tc, test_aliases);
    tcase_add_test(tc, test_alias_bomb);
    tcase_add_test(tc, test_sysctl_allowlist);
    tcase_add_test(tc, test_file_errors);
    tcase_add_test(tc, test_sysctl_limits);
    tcase_add_test(tc, test_builtin_profile_kept);
    tcase_add_test(tc, test_unreachable_degraded_follows_k);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return check_run(policy_suite());
}
