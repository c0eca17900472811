/* SPDX-License-Identifier: ISC */
/* Tests of the counter classes, rates, resets, reboots, the state file and the link-flap
 * window, on the 8-rail mlx5 fixture's real counter layout: two snapshots of the same tree
 * taken 10 s apart give the rates. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checks.h"
#include "check_run.h"
#include "counters.h"
#include "macro.h"
#include "inventory_take.h"

static char fixtures[256], scratch[256], tree[320];

static void sh(const char *cmd)
{
    ck_assert_msg(system(cmd) == 0, "failed: %s", cmd);
}

/* Writes VALUE into DEV's hw_counters/NAME (port 1) of the working tree. */
static void set_counter(const char *dev, const char *name, unsigned long long value)
{
    char path[600];
    snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/1/hw_counters/%s", tree, dev, name);
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "%s", path);
    fprintf(f, "%llu\n", value);
    fclose(f);
}

struct run {
    struct policy policy;
    struct inventory inv;
    struct findings findings;
};

/* Scans the working tree as if at boot time AT (seconds). */
static void scan_at(struct run *r, double at)
{
    memset(r, 0, sizeof(*r));
    policy_init_defaults(&r->policy);
    ck_assert_int_eq(inventory_take(tree, tree, &r->policy, &r->inv), 0);
    for (size_t i = 0; i < r->inv.n_rails; i++)
        r->inv.rails[i].counters.taken = (usec_t)(at * USEC_PER_SEC);
}

static void run_done(struct run *r)
{
    inventory_done(&r->inv);
    findings_done(&r->findings);
    policy_done(&r->policy);
}

static const struct finding *find(const struct run *r, const char *check, const char *rail)
{
    for (size_t i = 0; i < r->findings.n; i++)
        if (streq(r->findings.items[i].check, check) && r->findings.items[i].rail &&
            streq(r->findings.items[i].rail, rail))
            return &r->findings.items[i];
    ck_abort_msg("no %s on %s", check, rail);
    return NULL;
}

static void setup(void)
{
    snprintf(tree, sizeof(tree), "%s/work", scratch);
    char src[300];
    snprintf(src, sizeof(src), "%s/mlx5_8rail/sys", fixtures);
    char cmd[1200];
    snprintf(cmd, sizeof(cmd), "rm -rf %s && cp -a %s %s", tree, src, tree);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_classify)
{
    struct counter_sample s = { .pfc_known = true, .pfc_en = 0x08 };
    ck_assert_int_eq(counter_classify("out_of_sequence", &s), COUNTER_LOSS);
    ck_assert_int_eq(counter_classify("req_rnr_retries_exceeded", &s), COUNTER_LOSS);
    ck_assert_int_eq(counter_classify("req_transport_retries_exceeded", &s), COUNTER_LOSS);
    ck_assert_int_eq(counter_classify("req_cqe_error", &s), COUNTER_UNCLASSIFIED);
    ck_assert_int_eq(counter_classify("np_cnp_sent", &s), COUNTER_CONGESTION);
    ck_assert_int_eq(counter_classify("rp_cnp_ignored", &s), COUNTER_MISCONFIG);
    ck_assert_int_eq(counter_classify("out_of_buffer", &s), COUNTER_STARVATION);
    ck_assert_int_eq(counter_classify("ethtool:rx_discards_phy", &s), COUNTER_STARVATION);
    ck_assert_int_eq(counter_classify("ethtool:tx_pause_storm_error_events", &s), COUNTER_PFC_STORM);
    /* Pause frames: misconfig only on a priority without PFC, and only when PFC is known. */
    ck_assert_int_eq(counter_classify("ethtool:rx_prio2_pause", &s), COUNTER_MISCONFIG);
    ck_assert_int_eq(counter_classify("ethtool:tx_prio3_pause", &s), COUNTER_UNCLASSIFIED);
    ck_assert_int_eq(counter_classify("ethtool:rx_prio2_pause_duration", &s), COUNTER_UNCLASSIFIED);
    s.pfc_known = false;
    ck_assert_int_eq(counter_classify("ethtool:rx_prio2_pause", &s), COUNTER_UNCLASSIFIED);
}
END_TEST

/* Two snapshots 10 s apart: each planted rise is found on its rail, at its rate. */
START_TEST(test_rates_from_two_snapshots)
{
    struct counter_state st = { 0 };
    struct run a, b;
    scan_at(&a, 100);
    ck_assert_uint_eq(a.inv.rails[0].counters.n, 31 + 21);    /* lifespan is not a counter */
    ck_assert_int_eq(counters_fold_inventory(&st, "boot-1", &a.inv, 600 * USEC_PER_SEC), 0);
    check_counters(&a.inv, &st, &a.policy, &a.findings);
    ck_assert_int_eq(find(&a, "counters.loss", "mlx5_0/1")->severity, SEVERITY_UNKNOWN);
    ck_assert_ptr_nonnull(strstr(find(&a, "counters.loss", "mlx5_0/1")->message, "first sample"));

    set_counter("mlx5_1", "out_of_sequence", 500);
    set_counter("mlx5_1", "np_cnp_sent", 1000);
    set_counter("mlx5_3", "rp_cnp_ignored", 5);
    set_counter("mlx5_4", "out_of_buffer", 100);
    scan_at(&b, 110);
    ck_assert_int_eq(counters_fold_inventory(&st, "boot-1", &b.inv, 600 * USEC_PER_SEC), 0);
    check_counters(&b.inv, &st, &b.policy, &b.findings);
    const struct finding *loss = find(&b, "counters.loss", "mlx5_1/1");
    ck_assert_int_eq(loss->severity, SEVERITY_WARNING);
    ck_assert_str_eq(loss->actual, "50/s");
    ck_assert_ptr_nonnull(strstr(loss->message, "out_of_sequence"));
    ck_assert_int_eq(find(&b, "counters.congestion", "mlx5_1/1")->severity, SEVERITY_OK);
    ck_assert_str_eq(find(&b, "counters.congestion", "mlx5_1/1")->actual, "100/s");
    ck_assert_int_eq(find(&b, "counters.misconfig", "mlx5_3/1")->severity, SEVERITY_WARNING);
    ck_assert_int_eq(find(&b, "counters.starvation", "mlx5_4/1")->severity, SEVERITY_WARNING);
    ck_assert_int_eq(find(&b, "counters.loss", "mlx5_0/1")->severity, SEVERITY_OK);
    /* No ethtool statistics in a snapshot: no pfc_storm counters, so unknown. */
    ck_assert_int_eq(find(&b, "counters.pfc_storm", "mlx5_0/1")->severity, SEVERITY_UNKNOWN);
    ck_assert_int_eq(findings_rail_verdict(&b.findings, "mlx5_1/1"), VERDICT_DEGRADED);
    ck_assert_int_eq(findings_rail_verdict(&b.findings, "mlx5_2/1"), VERDICT_READY);

    /* The policy's threshold decides: 60 losses a second are tolerated at loss: 60. */
    findings_done(&b.findings);
    b.policy.checks.counters.loss = 60;
    check_counters(&b.inv, &st, &b.policy, &b.findings);
    ck_assert_int_eq(find(&b, "counters.loss", "mlx5_1/1")->severity, SEVERITY_OK);
    run_done(&a);
    run_done(&b);
    counters_done(&st);
}
END_TEST

/* A counter that goes backwards (reset, driver reload) gives no rate and no negative one. */
START_TEST(test_counter_reset)
{
    struct counter_state st = { 0 };
    struct run a, b;
    set_counter("mlx5_2", "out_of_sequence", 900000);
    scan_at(&a, 100);
    counters_fold_inventory(&st, "boot-1", &a.inv, 600 * USEC_PER_SEC);
    set_counter("mlx5_2", "out_of_sequence", 3);
    scan_at(&b, 110);
    counters_fold_inventory(&st, "boot-1", &b.inv, 600 * USEC_PER_SEC);
    check_counters(&b.inv, &st, &b.policy, &b.findings);
    const struct rail_counters *rc = counters_find_const(&st, "mlx5_2/1");
    ck_assert_uint_eq(rc->resets, 1);
    ck_assert(rc->rates[COUNTER_LOSS].per_second >= 0);
    ck_assert_int_eq(find(&b, "counters.loss", "mlx5_2/1")->severity, SEVERITY_OK);
    run_done(&a);
    run_done(&b);
    counters_done(&st);
}
END_TEST

/* A new boot id: the old samples mean nothing (the counters restarted at zero). */
START_TEST(test_reboot)
{
    struct counter_state st = { 0 };
    struct run a, b;
    set_counter("mlx5_0", "out_of_sequence", 10);
    scan_at(&a, 5000);
    counters_fold_inventory(&st, "boot-1", &a.inv, 600 * USEC_PER_SEC);
    set_counter("mlx5_0", "out_of_sequence", 400);
    scan_at(&b, 30);            /* boot time restarted too */
    counters_fold_inventory(&st, "boot-2", &b.inv, 600 * USEC_PER_SEC);
    check_counters(&b.inv, &st, &b.policy, &b.findings);
    const struct finding *f = find(&b, "counters.loss", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_ptr_nonnull(strstr(f->message, "rebooted"));
    ck_assert_str_eq(st.boot_id, "boot-2");
    run_done(&a);
    run_done(&b);
    counters_done(&st);
}
END_TEST

/* The state file carries the last sample across processes (fabtuned --once runs). */
START_TEST(test_state_file_roundtrip)
{
    char dir[400];
    struct counter_state st = { 0 }, back;
    struct run a, b;
    snprintf(dir, sizeof(dir), "%s/state", scratch);
    char cmd[1000];
    snprintf(cmd, sizeof(cmd), "rm -rf %s && mkdir -p %s", dir, dir);
    sh(cmd);
    scan_at(&a, 100);
    counters_fold_inventory(&st, "boot-1", &a.inv, 600 * USEC_PER_SEC);
    ck_assert_int_eq(counters_save(dir, &st), 0);
    counters_done(&st);
    ck_assert_int_eq(counters_load(dir, &back), 0);
    ck_assert_str_eq(back.boot_id, "boot-1");
    ck_assert_uint_eq(back.n, 8);
    set_counter("mlx5_5", "local_ack_timeout_err", 40);
    scan_at(&b, 120);
    counters_fold_inventory(&back, "boot-1", &b.inv, 600 * USEC_PER_SEC);
    const struct rail_counters *rc = counters_find_const(&back, "mlx5_5/1");
    ck_assert(rc->rates[COUNTER_LOSS].known);
    ck_assert_double_eq_tol(rc->rates[COUNTER_LOSS].per_second, 2.0, 1e-9);
    counters_done(&back);

    /* A damaged state file is an error to report, not a crash or a silent zero. */
    snprintf(cmd, sizeof(cmd), "echo '{\"boot_id\": 7}' > %s/counters.json", dir);
    sh(cmd);
    ck_assert_int_lt(counters_load(dir, &back), 0);
    ck_assert_uint_eq(back.n, 0);
    run_done(&a);
    run_done(&b);
}
END_TEST

/* A state file of 10,000 stale rails (15 MB once took start-up to 5.8 s and was re-saved
 * at 40 MB every check): at most COUNTER_MAX_RAILS are read, rails that are gone leave at
 * the next fold, and the file is written compact. */
START_TEST(test_state_file_bounded)
{
    char dir[400], path[450], cmd[1000];
    snprintf(dir, sizeof(dir), "%s/state-big", scratch);
    snprintf(cmd, sizeof(cmd), "rm -rf %s && mkdir -p %s", dir, dir);
    sh(cmd);
    snprintf(path, sizeof(path), "%s/counters.json", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "{\"boot_id\":\"boot-1\",\"rails\":[");
    for (int i = 0; i < 10000; i++)
        fprintf(f, "%s{\"rail\":\"gone%d/1\",\"taken_usec\":1,\"values\":{\"a\":1,\"b\":2,\"c\":3}}",
                i ? "," : "", i);
    fprintf(f, "]}\n");
    fclose(f);

    struct counter_state st;
    ck_assert_int_eq(counters_load(dir, &st), 0);
    ck_assert_uint_eq(st.n, COUNTER_MAX_RAILS);
    struct run a;
    scan_at(&a, 100);
    counters_fold_inventory(&st, "boot-1", &a.inv, 600 * USEC_PER_SEC);
    ck_assert_uint_eq(st.n, a.inv.n_rails);             /* only the node's own rails */
    ck_assert_int_eq(counters_save(dir, &st), 0);
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_int_lt(sb.st_size, 64 * 1024);
    snprintf(cmd, sizeof(cmd), "test $(wc -l < %s) -le 1", path);     /* compact */
    sh(cmd);
    counters_done(&st);
    run_done(&a);
}
END_TEST

/* A check pass folds the sample it took when it began, which may be older than the
 * counters timer's latest: that late sample is dropped, and the carrier history keeps
 * the flap seen before it (it once restarted the history: "1 in 4s" for a down and up). */
START_TEST(test_late_sample_dropped)
{
    struct counter_state st = { 0 };
    struct counter_sample s = { 0 };
    usec_t window = 600 * USEC_PER_SEC, span = 0;
    s.taken = 10 * USEC_PER_SEC;     /* the first pass: carrier up, 5 changes so far */
    ck_assert_int_eq(counters_fold(&st, "b", "rxe0/1", &s, true, 5, window), 0);
    s.taken = 12 * USEC_PER_SEC;     /* the timer, after the carrier went down */
    ck_assert_int_eq(counters_fold(&st, "b", "rxe0/1", &s, true, 6, window), 0);
    s.taken = 11 * USEC_PER_SEC;     /* the pass that began before it ends now */
    ck_assert_int_eq(counters_fold(&st, "b", "rxe0/1", &s, true, 6, window), 0);
    ck_assert_uint_eq(counters_find(&st, "rxe0/1")->last.taken, 12 * USEC_PER_SEC);
    s.taken = 14 * USEC_PER_SEC;     /* carrier up again */
    ck_assert_int_eq(counters_fold(&st, "b", "rxe0/1", &s, true, 7, window), 0);
    ck_assert_int_eq(counters_carrier_changes(counters_find(&st, "rxe0/1"), window, &span), 2);
    ck_assert_uint_eq(span, 4 * USEC_PER_SEC);
    counters_done(&st);
}
END_TEST

/* Carrier changes inside the sliding window, on marks a minute apart. */
START_TEST(test_flaps_window)
{
    struct counter_state st = { 0 };
    struct counter_sample s = { 0 };
    struct policy p;
    policy_init_defaults(&p);   /* window 10m, max 2 */
    static const uint64_t changes[] = { 2, 2, 4, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8 };
    for (size_t i = 0; i < ARRAY_SIZE(changes); i++) {
        s.taken = (usec_t)(i * 60) * USEC_PER_SEC;
        ck_assert_int_eq(counters_fold(&st, "b", "mlx5_0/1", &s, true, changes[i], p.checks.flaps.window), 0);
        usec_t span = 0;
        int64_t n = counters_carrier_changes(counters_find(&st, "mlx5_0/1"), p.checks.flaps.window, &span);
        if (i == 0)
            ck_assert_int_eq(n, -1);
        else if (i <= 10)
            ck_assert_int_eq(n, (int64_t)(changes[i] - changes[0]));   /* all inside 10m */
        else if (i == 13)
            ck_assert_int_eq(n, 0);     /* the flaps at minutes 2 and 3 left the window */
    }

    struct inventory inv = { 0 };
    struct findings fs = { 0 };
    struct rail *r = inventory_add_rail(&inv, "mlx5_0", 1);
    strcpy(r->netdev.name, "eth0");
    r->netdev.present = r->netdev.has_carrier_changes = true;
    counters_done(&st);
    for (size_t i = 0; i < 4; i++) {
        s.taken = (usec_t)(i * 60) * USEC_PER_SEC;
        counters_fold(&st, "b", "mlx5_0/1", &s, true, changes[i], p.checks.flaps.window);
    }
    check_counters(&inv, &st, &p, &fs);
    ck_assert_str_eq(fs.items[0].check, "netdev.flaps");
    ck_assert_int_eq(fs.items[0].severity, SEVERITY_WARNING);
    ck_assert_str_eq(fs.items[0].actual, "6 in 180s");
    findings_done(&fs);
    inventory_done(&inv);
    counters_done(&st);
    policy_done(&p);
}
END_TEST

int main(void)
{
    if (check_shared_fixtures(fixtures, sizeof(fixtures)) < 0 ||
        check_scratch_dir(scratch, sizeof(scratch), "out-counters") < 0)
        return 99;
    Suite *s = suite_create("counters");
    TCase *tc = tcase_create("counters");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_classify);
    tcase_add_test(tc, test_rates_from_two_snapshots);
    tcase_add_test(tc, test_counter_reset);
    tcase_add_test(tc, test_reboot);
    tcase_add_test(tc, test_state_file_roundtrip);
    tcase_add_test(tc, test_state_file_bounded);
    tcase_add_test(tc, test_flaps_window);
    tcase_add_test(tc, test_late_sample_dropped);
    suite_add_tcase(s, tc);
    return check_run(s);
}
