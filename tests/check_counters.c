/* SPDX-License-Identifier: ISC */
/* Tests of the counter classes, rates, resets, reboots, the state file and the link-flap
 * window, on the 8-rail mlx5 fixture's real counter layout: two snapshots of the same tree
 * taken 10 s apart give the rates. The port error counters (counters/): their classes,
 * the PMA counters' saturation, and their totals from one sample (the H100 NDR fixture). */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checks.h"
#include "check_findings.h"
#include "check_run.h"
#include "counters.h"
#include "counters_store.h"
#include "macro.h"
#include "inventory_take.h"
#include "pipeline.h"
#include "probe_defer.h"

static char fixtures[256], scratch[256], tree[320];

/* Zero limits: no peak held past its sample (counter_limits_of makes the policy's). */
static const struct counter_limits no_limits;

/* Writes VALUE into DEV's DIR/NAME (port 1) of the working tree. */
static void set_in(const char *dir, const char *dev, const char *name, unsigned long long value)
{
    char path[600];
    snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/1/%s/%s", tree, dev, dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "%s", path);
    fprintf(f, "%llu\n", value);
    fclose(f);
}

/* hw_counters/NAME and counters/NAME */
static void set_counter(const char *dev, const char *name, unsigned long long value)
{
    set_in("hw_counters", dev, name, value);
}

static void set_port_counter(const char *dev, const char *name, unsigned long long value)
{
    set_in("counters", dev, name, value);
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

static void setup(void)
{
    snprintf(tree, sizeof(tree), "%s/work", scratch);
    char src[300];
    snprintf(src, sizeof(src), "%s/mlx5_8rail/sys", fixtures);
    sh("rm -rf %s && cp -a %s %s", tree, src, tree);
}

/* The class of a value read from counters/ (the PMA's). */
static enum counter_class pma_class(const char *name, const struct counter_sample *s)
{
    struct counter_value v = { .pma = true };
    snprintf(v.name, sizeof(v.name), "%s", name);
    return counter_value_class(&v, s);
}

static struct counter_value pma_value(const char *name, uint64_t value)
{
    struct counter_value v = { .value = value, .pma = true };
    snprintf(v.name, sizeof(v.name), "%s", name);
    return v;
}

START_TEST(test_classify)
{
    struct counter_sample s = { .pfc_known = true, .pfc_en = 0x08 };
    ck_assert_int_eq(counter_classify("out_of_sequence", &s), COUNTER_LOSS);
    ck_assert_int_eq(counter_classify("req_rnr_retries_exceeded", &s), COUNTER_LOSS);
    ck_assert_int_eq(counter_classify("req_transport_retries_exceeded", &s), COUNTER_LOSS);
    ck_assert_int_eq(counter_classify("req_cqe_error", &s), COUNTER_QP_ERROR);
    ck_assert_int_eq(counter_classify("resp_cqe_flush_error", &s), COUNTER_QP_ERROR);
    ck_assert_int_eq(counter_classify("resp_local_length_error", &s), COUNTER_UNCLASSIFIED);
    ck_assert_int_eq(counter_classify("roce_adp_retrans", &s), COUNTER_LOSS);
    ck_assert_int_eq(counter_classify("duplicate_request", &s), COUNTER_LOSS);
    ck_assert_int_eq(counter_classify("roce_slow_restart_cnps", &s), COUNTER_LOSS);
    ck_assert_int_eq(counter_classify("rx_icrc_encapsulated", &s), COUNTER_LOSS);
    ck_assert_int_eq(pma_class("port_xmit_discards", &s), COUNTER_LOSS);
    ck_assert_int_eq(counter_classify("rnr_nak_retry_err", &s), COUNTER_STARVATION);
    ck_assert_int_eq(pma_class("VL15_dropped", &s), COUNTER_STARVATION);
    ck_assert_int_eq(pma_class("port_xmit_wait", &s), COUNTER_CONGESTION);
    ck_assert_int_eq(pma_class("port_rcv_constraint_errors", &s), COUNTER_MISCONFIG);
    ck_assert_int_eq(pma_class("port_xmit_constraint_errors", &s), COUNTER_MISCONFIG);
    ck_assert_int_eq(pma_class("symbol_error", &s), COUNTER_LINK);
    ck_assert_int_eq(pma_class("link_error_recovery", &s), COUNTER_LINK);
    ck_assert_int_eq(pma_class("port_rcv_errors", &s), COUNTER_LINK);
    ck_assert_int_eq(pma_class("port_rcv_remote_physical_errors", &s), COUNTER_LINK);
    ck_assert_int_eq(pma_class("local_link_integrity_errors", &s), COUNTER_LINK);
    ck_assert_int_eq(pma_class("excessive_buffer_overrun_errors", &s), COUNTER_LINK);
    ck_assert_int_eq(pma_class("link_downed", &s), COUNTER_LINK_DOWN);
    ck_assert_int_eq(pma_class("port_rcv_switch_relay_errors", &s), COUNTER_UNCLASSIFIED);
    ck_assert_int_eq(pma_class("port_xmit_data", &s), COUNTER_UNCLASSIFIED);
    /* A PMA name is classified only as the PMA's: rxe's own hw_counters/link_downed and
     * duplicate_request are driver counters. */
    struct counter_value hw = { .name = "link_downed", .value = 1 };
    ck_assert_int_eq(counter_value_class(&hw, &s), COUNTER_UNCLASSIFIED);
    ck_assert_int_eq(counter_classify("link_downed", &s), COUNTER_UNCLASSIFIED);
    ck_assert_str_eq(counter_class_name(COUNTER_LINK), "link");
    ck_assert_str_eq(counter_class_name(COUNTER_LINK_DOWN), "link_down");
    ck_assert_str_eq(counter_class_name(COUNTER_QP_ERROR), "qp_error");
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
    ck_assert_int_eq(counters_fold_inventory(&st, &no_limits, "boot-1", &a.inv, 600 * USEC_PER_SEC), 0);
    check_counters(&a.inv, &st, &a.policy, &a.findings);
    ck_assert_int_eq(one_finding(&a.findings, "counters.loss", "mlx5_0/1")->severity,
                     SEVERITY_UNKNOWN);
    ck_assert_ptr_nonnull(strstr(one_finding(&a.findings, "counters.loss", "mlx5_0/1")->message,
                                 "first sample"));

    set_counter("mlx5_1", "out_of_sequence", 500);
    set_counter("mlx5_1", "np_cnp_sent", 1000);
    set_counter("mlx5_3", "rp_cnp_ignored", 5);
    set_counter("mlx5_4", "out_of_buffer", 100);
    scan_at(&b, 110);
    ck_assert_int_eq(counters_fold_inventory(&st, &no_limits, "boot-1", &b.inv, 600 * USEC_PER_SEC), 0);
    check_counters(&b.inv, &st, &b.policy, &b.findings);
    const struct finding *loss = one_finding(&b.findings, "counters.loss", "mlx5_1/1");
    ck_assert_int_eq(loss->severity, SEVERITY_WARNING);
    ck_assert_str_eq(loss->actual, "50/s");
    ck_assert_ptr_nonnull(strstr(loss->message, "out_of_sequence"));
    ck_assert_int_eq(one_finding(&b.findings, "counters.congestion", "mlx5_1/1")->severity,
                     SEVERITY_OK);
    ck_assert_str_eq(one_finding(&b.findings, "counters.congestion", "mlx5_1/1")->actual, "100/s");
    ck_assert_int_eq(one_finding(&b.findings, "counters.misconfig", "mlx5_3/1")->severity,
                     SEVERITY_WARNING);
    ck_assert_int_eq(one_finding(&b.findings, "counters.starvation", "mlx5_4/1")->severity,
                     SEVERITY_WARNING);
    ck_assert_int_eq(one_finding(&b.findings, "counters.loss", "mlx5_0/1")->severity, SEVERITY_OK);
    /* No ethtool statistics in a snapshot: no pfc_storm counters, so unknown. */
    ck_assert_int_eq(one_finding(&b.findings, "counters.pfc_storm", "mlx5_0/1")->severity,
                     SEVERITY_UNKNOWN);
    ck_assert_int_eq(findings_rail_verdict(&b.findings, "mlx5_1/1"), VERDICT_DEGRADED);
    ck_assert_int_eq(findings_rail_verdict(&b.findings, "mlx5_2/1"), VERDICT_READY);

    /* The policy's threshold decides: 60 losses a second are tolerated at loss: 60. */
    findings_done(&b.findings);
    b.policy.checks.counters.loss = 60;
    check_counters(&b.inv, &st, &b.policy, &b.findings);
    ck_assert_int_eq(one_finding(&b.findings, "counters.loss", "mlx5_1/1")->severity, SEVERITY_OK);
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
    counters_fold_inventory(&st, &no_limits, "boot-1", &a.inv, 600 * USEC_PER_SEC);
    set_counter("mlx5_2", "out_of_sequence", 3);
    scan_at(&b, 110);
    counters_fold_inventory(&st, &no_limits, "boot-1", &b.inv, 600 * USEC_PER_SEC);
    check_counters(&b.inv, &st, &b.policy, &b.findings);
    const struct rail_counters *rc = counters_find_const(&st, "mlx5_2/1");
    ck_assert_uint_eq(rc->resets, 1);
    ck_assert(rc->rates[COUNTER_LOSS].per_second >= 0);
    ck_assert_int_eq(one_finding(&b.findings, "counters.loss", "mlx5_2/1")->severity, SEVERITY_OK);
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
    counters_fold_inventory(&st, &no_limits, "boot-1", &a.inv, 600 * USEC_PER_SEC);
    set_counter("mlx5_0", "out_of_sequence", 400);
    scan_at(&b, 30);            /* boot time restarted too */
    counters_fold_inventory(&st, &no_limits, "boot-2", &b.inv, 600 * USEC_PER_SEC);
    check_counters(&b.inv, &st, &b.policy, &b.findings);
    const struct finding *f = one_finding(&b.findings, "counters.loss", "mlx5_0/1");
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
    sh("rm -rf %s && mkdir -p %s", dir, dir);
    scan_at(&a, 100);
    counters_fold_inventory(&st, &no_limits, "boot-1", &a.inv, 600 * USEC_PER_SEC);
    ck_assert_int_eq(counters_save(dir, &st), 0);
    counters_done(&st);
    ck_assert_int_eq(counters_load(dir, &back), 0);
    ck_assert_str_eq(back.boot_id, "boot-1");
    ck_assert_uint_eq(back.n, 8);
    set_counter("mlx5_5", "local_ack_timeout_err", 40);
    scan_at(&b, 120);
    counters_fold_inventory(&back, &no_limits, "boot-1", &b.inv, 600 * USEC_PER_SEC);
    const struct rail_counters *rc = counters_find_const(&back, "mlx5_5/1");
    ck_assert(rc->rates[COUNTER_LOSS].known);
    ck_assert_double_eq_tol(rc->rates[COUNTER_LOSS].per_second, 2.0, 1e-9);
    counters_done(&back);

    /* A damaged state file is an error to report, not a crash or a silent zero. */
    sh("echo '{\"boot_id\": 7}' > %s/counters.json", dir);
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
    char dir[400], path[450];
    snprintf(dir, sizeof(dir), "%s/state-big", scratch);
    sh("rm -rf %s && mkdir -p %s", dir, dir);
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
    counters_fold_inventory(&st, &no_limits, "boot-1", &a.inv, 600 * USEC_PER_SEC);
    ck_assert_uint_eq(st.n, a.inv.n_rails);             /* only the node's own rails */
    ck_assert_int_eq(counters_save(dir, &st), 0);
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_int_lt(sb.st_size, 64 * 1024);
    sh("test $(wc -l < %s) -le 1", path);     /* compact */
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
    ck_assert_int_eq(counters_fold(&st, &no_limits, "b", "rxe0/1", &s, true, 5, window), 0);
    s.taken = 12 * USEC_PER_SEC;     /* the timer, after the carrier went down */
    ck_assert_int_eq(counters_fold(&st, &no_limits, "b", "rxe0/1", &s, true, 6, window), 0);
    s.taken = 11 * USEC_PER_SEC;     /* the pass that began before it ends now */
    ck_assert_int_eq(counters_fold(&st, &no_limits, "b", "rxe0/1", &s, true, 6, window), 0);
    ck_assert_uint_eq(counters_find(&st, "rxe0/1")->last.taken, 12 * USEC_PER_SEC);
    s.taken = 14 * USEC_PER_SEC;     /* carrier up again */
    ck_assert_int_eq(counters_fold(&st, &no_limits, "b", "rxe0/1", &s, true, 7, window), 0);
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
        ck_assert_int_eq(counters_fold(&st, &no_limits, "b", "mlx5_0/1", &s, true, changes[i], p.checks.flaps.window), 0);
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
        counters_fold(&st, &no_limits, "b", "mlx5_0/1", &s, true, changes[i], p.checks.flaps.window);
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

/* The state keeps a copy of each sample with values of its own, and its room right: the
 * sample freed, the state and a copy still read, and the copy grows alone (ASan in
 * build-asan sees any shared or freed buffer). */
START_TEST(test_sample_copies_are_deep)
{
    struct counter_sample s = { .taken = 1 }, copy = { 0 };
    struct counter_state st = { 0 };
    ck_assert_int_eq(counter_sample_add(&s, "out_of_sequence", 5), 0);
    ck_assert_int_eq(counter_sample_add(&s, "np_cnp_sent", 6), 0);
    ck_assert_int_eq(counter_sample_copy(&copy, &s), 0);
    ck_assert_int_eq(counters_fold(&st, &no_limits, "boot-1", "mlx5_0/1", &s, false, 0, 0), 0);
    counter_sample_done(&s);
    const struct rail_counters *rc = counters_find_const(&st, "mlx5_0/1");
    ck_assert_uint_eq(rc->last.n, 2);
    ck_assert_uint_eq(rc->last.cap, 2);
    ck_assert_uint_eq(rc->last.values[1].value, 6);
    ck_assert_uint_eq(copy.cap, 2);
    ck_assert_int_eq(counter_sample_add(&copy, "rp_cnp_handled", 7), 0);
    ck_assert_uint_eq(copy.n, 3);
    ck_assert_str_eq(copy.values[0].name, "out_of_sequence");
    ck_assert_uint_eq(rc->last.n, 2);
    counter_sample_done(&copy);
    counters_done(&st);
}
END_TEST

/* The copy a pass gets of the loop's counter state (issue 42): its own rails and samples.
 * A sample folded into the copy leaves the state as it was, and the state freed, the copy
 * still reads and folds (ASan in build-asan sees any shared or freed buffer). */
START_TEST(test_state_copy_is_deep)
{
    struct counter_state st = { 0 }, copy;
    struct counter_sample s = { .taken = 1 * USEC_PER_SEC };
    ck_assert_int_eq(counter_sample_add(&s, "out_of_sequence", 5), 0);
    ck_assert_int_eq(counters_fold(&st, &no_limits, "boot-1", "mlx5_0/1", &s, true, 1, 600 * USEC_PER_SEC), 0);
    ck_assert_int_eq(counters_fold(&st, &no_limits, "boot-1", "mlx5_1/1", &s, true, 1, 600 * USEC_PER_SEC), 0);
    ck_assert_int_eq(counters_copy(&st, &copy), 0);
    ck_assert_uint_eq(copy.n, 2);
    ck_assert_str_eq(copy.boot_id, "boot-1");
    ck_assert_ptr_ne(copy.rails, st.rails);
    ck_assert_ptr_ne(copy.rails[0].last.values, st.rails[0].last.values);
    s.taken = 2 * USEC_PER_SEC;
    s.values[0].value = 9;
    ck_assert_int_eq(counters_fold(&copy, &no_limits, "boot-1", "mlx5_0/1", &s, true, 2, 600 * USEC_PER_SEC), 0);
    ck_assert_uint_eq(counters_find(&copy, "mlx5_0/1")->last.values[0].value, 9);
    ck_assert_uint_eq(counters_find(&st, "mlx5_0/1")->last.values[0].value, 5);
    ck_assert_uint_eq(counters_find(&st, "mlx5_0/1")->n_carrier, 1);
    ck_assert_uint_eq(counters_find(&copy, "mlx5_0/1")->n_carrier, 2);
    counters_done(&st);
    s.taken = 3 * USEC_PER_SEC;
    ck_assert_int_eq(counters_fold(&copy, &no_limits, "boot-1", "mlx5_1/1", &s, false, 0, 0), 0);
    ck_assert_uint_eq(counters_find(&copy, "mlx5_1/1")->last.values[0].value, 9);
    counters_done(&copy);
    counter_sample_done(&s);
}
END_TEST

/* One rail of the state per inventory rail: one past COUNTER_MAX_RAILS is refused, and a
 * sample keeps its first COUNTER_MAX_VALUES values. */
START_TEST(test_state_bounds)
{
    struct counter_state st = { 0 };
    struct counter_sample s = { .taken = 1 };
    char name[32];
    for (int i = 0; i <= COUNTER_MAX_RAILS; i++) {
        snprintf(name, sizeof(name), "mlx5_%d/1", i);
        ck_assert_int_eq(counters_fold(&st, &no_limits, "boot-1", name, &s, false, 0, 0),
                         i < COUNTER_MAX_RAILS ? 0 : -EFBIG);
    }
    ck_assert_uint_eq(st.n, COUNTER_MAX_RAILS);
    counters_done(&st);
    for (int i = 0; i <= COUNTER_MAX_VALUES; i++) {
        snprintf(name, sizeof(name), "c%d", i);
        ck_assert_int_eq(counter_sample_add(&s, name, (uint64_t)i), 0);
    }
    ck_assert_uint_eq(s.n, COUNTER_MAX_VALUES);
    ck_assert_str_eq(s.values[COUNTER_MAX_VALUES - 1].name, "c1023");
    counter_sample_done(&s);
}
END_TEST

/* The PMA counters' widths as drivers/infiniband/core/sysfs.c gives them, and their
 * saturation values (all ones); the 64-bit and driver counters have none. */
START_TEST(test_pma_widths)
{
    static const struct { const char *name; unsigned width; } widths[] = {
        { "link_downed", 8 }, { "link_error_recovery", 8 }, { "symbol_error", 16 },
        { "port_rcv_errors", 16 }, { "local_link_integrity_errors", 4 },
        { "excessive_buffer_overrun_errors", 4 }, { "port_xmit_wait", 32 },
        { "port_xmit_data", 0 },
    };
    for (size_t i = 0; i < ARRAY_SIZE(widths); i++) {
        struct counter_value v = pma_value(widths[i].name, 0);
        ck_assert_msg(counter_width(&v) == widths[i].width, "%s", widths[i].name);
    }
    struct counter_value v = pma_value("link_downed", 255);
    ck_assert(counter_saturated(&v));
    v.value = 254;
    ck_assert(!counter_saturated(&v));
    v = pma_value("symbol_error", 65535);
    ck_assert(counter_saturated(&v));
    v.value = 255;
    ck_assert(!counter_saturated(&v));
    v = pma_value("excessive_buffer_overrun_errors", 15);
    ck_assert(counter_saturated(&v));
    v = pma_value("port_xmit_wait", 4294967295ULL);
    ck_assert(counter_saturated(&v));
    v = pma_value("port_xmit_data", UINT64_MAX);
    ck_assert(!counter_saturated(&v));
    /* Not the PMA's: no width, never saturated (rxe's link_downed is 64-bit). */
    struct counter_value hw = { .name = "link_downed", .value = 255 };
    ck_assert_uint_eq(counter_width(&hw), 0);
    ck_assert(!counter_saturated(&hw));
}
END_TEST

/* Each port error counter raised between two samples 10 s apart is found in its class,
 * on its rail, at its rate; link_downed's one rise is an error. */
/* A port counter and a driver counter of one name (counters/link_downed and
 * hw_counters/link_downed, as a fixture of a driver that has both may) are two counters:
 * neither's previous value is the other's. Once, two unchanged ones read 15 link downs a
 * second. */
START_TEST(test_same_name_two_dirs)
{
    struct counter_state st = { 0 };
    struct run a, b;
    set_port_counter("mlx5_0", "link_downed", 3);
    set_counter("mlx5_0", "link_downed", 153);
    scan_at(&a, 100);
    ck_assert_int_eq(counters_fold_inventory(&st, &no_limits, "boot-1", &a.inv, 600 * USEC_PER_SEC), 0);
    scan_at(&b, 110);
    ck_assert_int_eq(counters_fold_inventory(&st, &no_limits, "boot-1", &b.inv, 600 * USEC_PER_SEC), 0);
    check_counters(&b.inv, &st, &b.policy, &b.findings);
    const struct finding *f = one_finding(&b.findings, "counters.link_down", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_OK);
    ck_assert_str_eq(f->actual, "0/s");
    ck_assert_uint_eq(counters_find_const(&st, "mlx5_0/1")->resets, 0);
    run_done(&a);
    run_done(&b);
    counters_done(&st);
}
END_TEST

START_TEST(test_port_errors_raised)
{
    struct counter_state st = { 0 };
    struct run a, b;
    scan_at(&a, 100);
    ck_assert_int_eq(counters_fold_inventory(&st, &no_limits, "boot-1", &a.inv, 600 * USEC_PER_SEC), 0);
    set_port_counter("mlx5_0", "symbol_error", 100);
    set_port_counter("mlx5_1", "link_downed", 1);
    set_counter("mlx5_2", "resp_cqe_error", 7 + 5000);          /* 500/s: under 1000 */
    set_counter("mlx5_3", "req_cqe_flush_error", 20000);        /* 2000/s */
    set_port_counter("mlx5_4", "port_xmit_wait", 123456789 + 10000000ULL);
    set_counter("mlx5_5", "duplicate_request", 7 + 300);
    set_counter("mlx5_6", "rnr_nak_retry_err", 7 + 50);
    set_port_counter("mlx5_7", "port_rcv_constraint_errors", 2);
    set_port_counter("mlx5_7", "excessive_buffer_overrun_errors", 14);  /* 4-bit: 15 is its top */
    scan_at(&b, 110);
    ck_assert_int_eq(counters_fold_inventory(&st, &no_limits, "boot-1", &b.inv, 600 * USEC_PER_SEC), 0);
    check_counters(&b.inv, &st, &b.policy, &b.findings);

    const struct finding *f = one_finding(&b.findings, "counters.link", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_str_eq(f->actual, "10/s");
    ck_assert_ptr_nonnull(strstr(f->message, "symbol_error"));
    f = one_finding(&b.findings, "counters.link_down", "mlx5_1/1");
    ck_assert_int_eq(f->severity, SEVERITY_ERROR);
    ck_assert_str_eq(f->actual, "0.1/s");
    ck_assert_int_eq(findings_rail_verdict(&b.findings, "mlx5_1/1"), VERDICT_NOT_READY);
    f = one_finding(&b.findings, "counters.qp_error", "mlx5_2/1");
    ck_assert_int_eq(f->severity, SEVERITY_OK);
    ck_assert_str_eq(f->actual, "500/s");
    ck_assert_int_eq(one_finding(&b.findings, "counters.qp_error", "mlx5_3/1")->severity,
                     SEVERITY_WARNING);
    f = one_finding(&b.findings, "counters.congestion", "mlx5_4/1");
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_ptr_nonnull(strstr(f->message, "port_xmit_wait"));
    f = one_finding(&b.findings, "counters.loss", "mlx5_5/1");
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_ptr_nonnull(strstr(f->message, "duplicate_request"));
    ck_assert_int_eq(one_finding(&b.findings, "counters.starvation", "mlx5_6/1")->severity,
                     SEVERITY_WARNING);
    ck_assert_int_eq(one_finding(&b.findings, "counters.misconfig", "mlx5_7/1")->severity,
                     SEVERITY_WARNING);
    ck_assert_int_eq(one_finding(&b.findings, "counters.link", "mlx5_7/1")->severity,
                     SEVERITY_WARNING);           /* 1.4/s */
    /* The class totals (fabtune_rail_class_events_total): the sums of the last sample. */
    ck_assert_uint_eq(counters_find_const(&st, "mlx5_0/1")->rates[COUNTER_LINK].total, 100);
    ck_assert_uint_eq(counters_find_const(&st, "mlx5_1/1")->rates[COUNTER_LINK_DOWN].total, 1);
    ck_assert_uint_eq(counters_find_const(&st, "mlx5_3/1")->rates[COUNTER_QP_ERROR].total,
                      7 + 7 + 7 + 20000);
    /* Quiet rails: ok, at 0/s. */
    ck_assert_int_eq(one_finding(&b.findings, "counters.link", "mlx5_2/1")->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&b.findings, "counters.link_down", "mlx5_0/1")->severity,
                     SEVERITY_OK);

    /* The policy's thresholds decide. */
    findings_done(&b.findings);
    b.policy.checks.counters.link = 20;
    b.policy.checks.counters.link_down = 1;
    b.policy.checks.counters.qp_error = 100;
    check_counters(&b.inv, &st, &b.policy, &b.findings);
    ck_assert_int_eq(one_finding(&b.findings, "counters.link", "mlx5_0/1")->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&b.findings, "counters.link_down", "mlx5_1/1")->severity,
                     SEVERITY_OK);
    ck_assert_int_eq(one_finding(&b.findings, "counters.qp_error", "mlx5_2/1")->severity,
                     SEVERITY_WARNING);
    run_done(&a);
    run_done(&b);
    counters_done(&st);
}
END_TEST

/* perfquery -R within an interval, then 30 more symbol errors: the 30 rose in it, and are
 * seen (a lower bound), not lost for that interval (issue 41, item 10). */
START_TEST(test_rise_after_a_reset)
{
    struct counter_state st = { 0 };
    struct run a, b;
    set_port_counter("mlx5_0", "symbol_error", 60000);
    scan_at(&a, 100);
    counters_fold_inventory(&st, &no_limits, "boot-1", &a.inv, 600 * USEC_PER_SEC);
    set_port_counter("mlx5_0", "symbol_error", 30);
    scan_at(&b, 110);
    counters_fold_inventory(&st, &no_limits, "boot-1", &b.inv, 600 * USEC_PER_SEC);
    check_counters(&b.inv, &st, &b.policy, &b.findings);
    const struct rail_counters *rc = counters_find_const(&st, "mlx5_0/1");
    ck_assert_uint_eq(rc->resets, 1);
    ck_assert_double_eq_tol(rc->rates[COUNTER_LINK].per_second, 3, 1e-9);
    ck_assert(rc->symbols.known);
    ck_assert_double_eq_tol(rc->symbols.per_second, 3, 1e-9);
    ck_assert_int_eq(one_finding(&b.findings, "counters.link", "mlx5_0/1")->severity, SEVERITY_WARNING);
    run_done(&a);
    run_done(&b);
    counters_done(&st);
}
END_TEST

/* A PMA counter at its maximum stops: its class's rate is unknown with the reset hint, not
 * ok; a rise into the maximum is still seen (a lower bound); perfquery -R's reset gives no
 * alarm, and the next rise is seen again. A 32-bit hw_counter that wraps gives none. */
START_TEST(test_saturated_and_reset)
{
    struct counter_state st = { 0 };
    struct run a, b, c, d;
    set_port_counter("mlx5_0", "symbol_error", 65535);
    set_port_counter("mlx5_1", "link_downed", 254);
    set_counter("mlx5_2", "out_of_sequence", 4294967290ULL);
    scan_at(&a, 100);
    counters_fold_inventory(&st, &no_limits, "boot-1", &a.inv, 600 * USEC_PER_SEC);
    set_port_counter("mlx5_1", "link_downed", 255);
    set_counter("mlx5_2", "out_of_sequence", 5);            /* wrapped at 2^32 */
    scan_at(&b, 110);
    counters_fold_inventory(&st, &no_limits, "boot-1", &b.inv, 600 * USEC_PER_SEC);
    check_counters(&b.inv, &st, &b.policy, &b.findings);
    const struct finding *f = one_finding(&b.findings, "counters.link", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_ptr_nonnull(strstr(f->message, "symbol_error stopped at its 16-bit maximum"));
    ck_assert_ptr_nonnull(strstr(f->message, "symbol_error 65535 (saturated, 16-bit)"));
    ck_assert_ptr_nonnull(f->hint);
    ck_assert_ptr_nonnull(strstr(f->hint, "perfquery -R"));
    f = one_finding(&b.findings, "counters.link_down", "mlx5_1/1");
    ck_assert_int_eq(f->severity, SEVERITY_ERROR);
    ck_assert_ptr_nonnull(strstr(f->message, "at least"));
    ck_assert_int_eq(one_finding(&b.findings, "counters.loss", "mlx5_2/1")->severity, SEVERITY_OK);
    ck_assert_uint_eq(counters_find_const(&st, "mlx5_2/1")->resets, 1);
    /* The port's symbol errors (fabtunectl links' SYMBOL ERR/H): a counter stopped at its
     * maximum has no rate, not 0/h. */
    const struct symbol_rate *y = &counters_find_const(&st, "mlx5_0/1")->symbols;
    ck_assert(y->present && y->saturated && !y->known);
    ck_assert_uint_eq(y->total, 65535);

    /* perfquery -R: both back to 0. A reset is no rise; the peak of the link down stays
     * for the hold time (checks.interval), as any burst does: these folds hold none. */
    set_port_counter("mlx5_0", "symbol_error", 0);
    set_port_counter("mlx5_1", "link_downed", 0);
    scan_at(&c, 120);
    counters_fold_inventory(&st, &no_limits, "boot-1", &c.inv, 600 * USEC_PER_SEC);
    check_counters(&c.inv, &st, &c.policy, &c.findings);
    ck_assert_int_eq(one_finding(&c.findings, "counters.link", "mlx5_0/1")->severity, SEVERITY_OK);
    ck_assert_int_eq(one_finding(&c.findings, "counters.link_down", "mlx5_1/1")->severity,
                     SEVERITY_OK);
    ck_assert_uint_eq(counters_find_const(&st, "mlx5_0/1")->resets, 1);

    set_port_counter("mlx5_0", "symbol_error", 50);
    scan_at(&d, 130);
    counters_fold_inventory(&st, &no_limits, "boot-1", &d.inv, 600 * USEC_PER_SEC);
    check_counters(&d.inv, &st, &d.policy, &d.findings);
    ck_assert_int_eq(one_finding(&d.findings, "counters.link", "mlx5_0/1")->severity,
                     SEVERITY_WARNING);
    y = &counters_find_const(&st, "mlx5_0/1")->symbols;
    ck_assert(y->known && !y->saturated);
    ck_assert_double_eq_tol(y->per_second, 5, 1e-9);
    run_done(&a);
    run_done(&b);
    run_done(&c);
    run_done(&d);
    counters_done(&st);
}
END_TEST

/* One sample of the H100 NDR fixture (as fabtuned --once or a snapshot folds it): no rate,
 * so unknown, but the totals since the last reset are named, saturated ones as such. */
START_TEST(test_offline_totals)
{
    struct counter_state st = { .snapshot = true };
    struct run a;
    char src[300];
    snprintf(src, sizeof(src), "%s/h100_ndr_ib/sys", fixtures);
    sh("rm -rf %s && cp -a %s %s", tree, src, tree);
    scan_at(&a, 100);
    ck_assert_uint_eq(a.inv.n_rails, 8);
    ck_assert_int_eq(counters_fold_inventory(&st, &no_limits, "snapshot", &a.inv, 600 * USEC_PER_SEC), 0);
    check_counters(&a.inv, &st, &a.policy, &a.findings);
    const struct finding *f = one_finding(&a.findings, "counters.link_down", "mlx5_1/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_ptr_null(f->actual);
    ck_assert_ptr_nonnull(strstr(f->message, "a captured tree is a single sample"));
    ck_assert_ptr_nonnull(strstr(f->message, "since the last reset: link_downed 255 (saturated, 8-bit)"));
    ck_assert_ptr_nonnull(f->hint);
    ck_assert_ptr_nonnull(strstr(f->hint, "perfquery -R"));
    f = one_finding(&a.findings, "counters.link", "mlx5_1/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_ptr_nonnull(strstr(f->message, "port_rcv_errors 14"));
    ck_assert_ptr_nonnull(strstr(f->message, "excessive_buffer_overrun_errors 15 (saturated, 4-bit)"));
    ck_assert_ptr_null(strstr(f->message, "port_rcv_switch_relay_errors"));  /* unclassified */
    /* A rail whose counters are all 0 names none, and has no hint. */
    f = one_finding(&a.findings, "counters.link_down", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_ptr_null(strstr(f->message, "since the last reset"));
    ck_assert_ptr_null(f->hint);
    /* An IB port has no RoCE congestion counters but port_xmit_wait: present. */
    ck_assert_ptr_null(strstr(one_finding(&a.findings, "counters.congestion", "mlx5_0/1")->message,
                              "no congestion counters"));
    ck_assert_int_eq(findings_rail_verdict(&a.findings, "mlx5_1/1"), VERDICT_READY);
    run_done(&a);
    counters_done(&st);
}
END_TEST

/* The daemon's pass (pipeline_run with the memory lent, as manager.c lends it) on the
 * working tree, judged under P; offline: this host's kernel log is not read. */
static void daemon_pass(struct pass_memory *mem, const struct policy *p, struct report *r)
{
    const struct pipeline_input in = {
        .sysfs_root = tree, .procfs_root = tree, .procfs_given = true, .state_dir = scratch,
        .policy = p, .policy_source = "defaults", .tuning = TUNING_READ, .memory = mem,
        .boot_id = "boot-1", .daemon_pass = true, .offline = true, .state_read_only = true,
    };
    ck_assert_int_eq(pipeline_run(&in, r), 0);
}

/* The pass judges the counters by the policy it is handed (issue 42, item 3), not by
 * values someone copied into the state: a burst of symbol errors between two passes stays
 * judged for checks.interval, as the daemon promises, with only the policy set. */
START_TEST(test_pass_holds_peaks_by_its_policy)
{
    struct pass_memory mem = { 0 };
    struct policy p;
    struct report a, b, c;
    policy_init_defaults(&p);
    p.checks.interval = 10 * USEC_PER_MINUTE;  /* far longer than three passes take */
    set_port_counter("mlx5_0", "symbol_error", 100);
    daemon_pass(&mem, &p, &a);
    set_port_counter("mlx5_0", "symbol_error", 1100);
    daemon_pass(&mem, &p, &b);
    ck_assert_int_eq(one_finding(&b.findings, "counters.link", "mlx5_0/1")->severity,
                     SEVERITY_WARNING);
    daemon_pass(&mem, &p, &c);                  /* no rise since: the peak is held */
    const struct finding *f = one_finding(&c.findings, "counters.link", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_ptr_nonnull(strstr(f->message, "(the peak of the last 10m; now 0/s)"));
    report_done(&a);
    report_done(&b);
    report_done(&c);
    counters_done(&mem.counters);
    link_memory_done(&mem.links);
    policy_done(&p);
}
END_TEST

/* --once and the daemon judge alike: the same samples, folded by --once (each run loads
 * the state the last one saved) and by the daemon (its state kept in memory), under the
 * same policy, give the same findings: the burst, then its peak held for checks.interval.
 * (The rail's traffic is not compared: the state file keeps no byte counts.) */
START_TEST(test_once_and_daemon_judge_alike)
{
    struct counter_state kept = { 0 };
    struct policy p;
    policy_init_defaults(&p);
    p.checks.interval = 10 * USEC_PER_MINUTE;
    const struct counter_limits lim = counter_limits_of(&p);
    char state[320];
    snprintf(state, sizeof(state), "%s/once-state", scratch);
    sh("rm -rf %s && mkdir -p %s", state, state);
    const unsigned long long symbols[] = { 100, 1100, 1100 };
    for (int pass = 0; pass < 3; pass++) {
        struct run daemon, once;
        struct counter_state loaded = { 0 };
        set_port_counter("mlx5_0", "symbol_error", symbols[pass]);
        scan_at(&daemon, 100 + 10 * pass);
        scan_at(&once, 100 + 10 * pass);
        ck_assert_int_eq(counters_fold_inventory(&kept, &lim, "boot-1", &daemon.inv,
                                                 p.checks.flaps.window), 0);
        ck_assert_int_eq(counters_load(state, &loaded), 0);
        ck_assert_int_eq(counters_fold_inventory(&loaded, &lim, "boot-1", &once.inv,
                                                 p.checks.flaps.window), 0);
        ck_assert_int_eq(counters_save(state, &loaded), 0);
        check_counters(&daemon.inv, &kept, &p, &daemon.findings);
        check_counters(&once.inv, &loaded, &p, &once.findings);
        const struct finding *d = one_finding(&daemon.findings, "counters.link", "mlx5_0/1");
        const struct finding *o = one_finding(&once.findings, "counters.link", "mlx5_0/1");
        ck_assert_int_eq(o->severity, d->severity);
        ck_assert_str_eq(o->message, d->message);
        ck_assert_int_eq(d->severity, pass == 0 ? SEVERITY_UNKNOWN : SEVERITY_WARNING);
        ck_assert(pass < 2 || strstr(o->message, "(the peak of the last 10m; now 0/s)"));
        const struct rail_counters *dr = counters_find_const(&kept, "mlx5_0/1"),
                                   *or = counters_find_const(&loaded, "mlx5_0/1");
        ck_assert(or->rates[COUNTER_LINK].peak == dr->rates[COUNTER_LINK].peak);
        ck_assert_uint_eq(or->link_over_at, dr->link_over_at);
        counters_done(&loaded);
        run_done(&daemon);
        run_done(&once);
    }
    counters_done(&kept);
    policy_done(&p);
}
END_TEST

/* probes.defer.light_bytes: a ping-pong whose payload both ways (iterations x size x 2)
 * exceeds it is intensive; the default ping-pongs (RDMA 1000 x 8 B, TCP 1000 x 64 B) are
 * light; a payload of the budget exactly is light; a budget of 0 makes every one intensive. */
START_TEST(test_pingpong_byte_budget)
{
    struct policy p;
    policy_init_defaults(&p);
    ck_assert_uint_eq(probe_pingpong_bytes(1000, 8), 16000);
    ck_assert_uint_eq(probe_pingpong_bytes(1000000, 65536), 131072000000ULL);    /* no 32-bit wrap */
    ck_assert(!probe_pingpong_intensive(&p, PROBE_RDMA));
    ck_assert(!probe_pingpong_intensive(&p, PROBE_TCP));
    p.probes.tcp.iterations = 8192;             /* 8192 x 64 x 2 = 1 MiB, the budget */
    ck_assert(!probe_pingpong_intensive(&p, PROBE_TCP));
    p.probes.tcp.iterations = 8193;
    ck_assert(probe_pingpong_intensive(&p, PROBE_TCP));
    ck_assert(!probe_pingpong_intensive(&p, PROBE_RDMA));   /* each transport by its own size */
    p.probes.rdma.size = 65536;                 /* 1000 x 64 KiB x 2 */
    ck_assert(probe_pingpong_intensive(&p, PROBE_RDMA));
    p.probes.defer.light_bytes = 1000000000000ULL;
    ck_assert(!probe_pingpong_intensive(&p, PROBE_RDMA));
    policy_done(&p);
    policy_init_defaults(&p);
    p.probes.defer.light_bytes = 0;
    ck_assert(probe_pingpong_intensive(&p, PROBE_RDMA));
    ck_assert(probe_pingpong_intensive(&p, PROBE_TCP));
    policy_done(&p);
}
END_TEST

/* A rail's traffic (probes.defer): the larger of rx and tx between two samples with byte
 * counts; quiet from the start of the first interval under busy_bps, busy again at once;
 * an interval in which the daemon's own streams ran is not judged. */
static void fold_bytes(struct counter_state *st, double at, uint64_t rx, uint64_t tx)
{
    static const struct counter_limits busy_1g = { .busy_bps = 1e9 };  /* busy_gbps 1 */
    struct counter_sample s = { .taken = (usec_t)(at * USEC_PER_SEC), .has_bytes = true,
                                .rx_bytes = rx, .tx_bytes = tx };
    ck_assert_int_eq(counters_fold(st, &busy_1g, "boot", "mlx5_0/1", &s, false, 0, 0), 0);
}

START_TEST(test_traffic_quiet)
{
    struct counter_state st = { 0 };
    struct policy p;
    char why[96];
    policy_init_defaults(&p);
    p.probes.defer.busy_gbps = 1;
    p.probes.defer.hold = 30 * USEC_PER_SEC;
    ck_assert(probe_defer_why(&p, true, NULL, NULL, 0, why, sizeof(why)));
    ck_assert_str_eq(why, "rail traffic not measured yet");

    fold_bytes(&st, 100, 0, 0);
    const struct rail_counters *rc = counters_find_const(&st, "mlx5_0/1");
    ck_assert(!rc->traffic_known);
    ck_assert(probe_defer_why(&p, true, rc, "", 100 * USEC_PER_SEC, why, sizeof(why)));
    ck_assert_str_eq(why, "rail traffic not measured yet");
    /* 4.65 GB sent in 1 s: 37.2 Gbit/s, busy (tx counts though rx is 0) */
    fold_bytes(&st, 101, 1000, 4650000000ULL);
    ck_assert(rc->traffic_known);
    ck_assert_double_eq_tol(rc->traffic_bps, 37.2e9, 1e6);
    ck_assert_uint_eq(rc->quiet_since, 0);
    ck_assert(probe_defer_why(&p, true, rc, "", 101 * USEC_PER_SEC, why, sizeof(why)));
    ck_assert_str_eq(why, "rail busy 37.2 Gbit/s");
    /* 10 MB/s: quiet from 101 s, not yet for the hold */
    fold_bytes(&st, 111, 100001000ULL, 4650000000ULL);
    ck_assert_uint_eq(rc->quiet_since, 101 * USEC_PER_SEC);
    ck_assert(probe_defer_why(&p, true, rc, "", 111 * USEC_PER_SEC, why, sizeof(why)));
    ck_assert_str_eq(why, "rail quiet for 10 s of 30 s");
    fold_bytes(&st, 131, 100001000ULL, 4650000000ULL);
    ck_assert(!probe_defer_why(&p, true, rc, "", 131 * USEC_PER_SEC, why, sizeof(why)));
    ck_assert_str_eq(why, "");
    /* a job defers whatever the rail; jobs: false, or the host's path, ignore the rail */
    ck_assert(probe_defer_why(&p, true, rc, "1234", 131 * USEC_PER_SEC, why, sizeof(why)));
    ck_assert_str_eq(why, "job 1234 running");
    p.probes.defer.jobs = false;
    ck_assert(!probe_defer_why(&p, true, rc, "1234", 131 * USEC_PER_SEC, why, sizeof(why)));
    ck_assert(!probe_defer_why(&p, false, NULL, NULL, 0, why, sizeof(why)));

    /* The daemon's own stream ended at 131.5 s: the interval it ran in is not judged... */
    st.own_traffic_until = 131 * USEC_PER_SEC + 500000;
    fold_bytes(&st, 132, 100001000ULL, 9650000000ULL);
    ck_assert_uint_eq(rc->quiet_since, 101 * USEC_PER_SEC);
    /* ...a later one is: busy again at once, the hold starts anew. */
    fold_bytes(&st, 133, 100001000ULL, 14650000000ULL);
    ck_assert_uint_eq(rc->quiet_since, 0);
    ck_assert(probe_defer_why(&p, true, rc, "", 133 * USEC_PER_SEC, why, sizeof(why)));
    ck_assert_str_eq(why, "rail busy 40 Gbit/s");
    /* a counter going back (a reset): not measured until the next interval */
    fold_bytes(&st, 134, 0, 0);
    ck_assert(!rc->traffic_known);
    ck_assert(probe_defer_why(&p, true, rc, "", 134 * USEC_PER_SEC, why, sizeof(why)));
    ck_assert_str_eq(why, "rail traffic not measured yet");
    /* ...nor by the next interval if the daemon's own probes ran in it: not "rail busy 40
     * Gbit/s" from before the reset (nor "rail busy 0 Gbit/s" on a rail never judged) */
    st.own_traffic_until = 134 * USEC_PER_SEC + 500000;
    fold_bytes(&st, 135, 1000, 1000);
    ck_assert(rc->traffic_known && !rc->traffic_judged);
    ck_assert(probe_defer_why(&p, true, rc, "", 135 * USEC_PER_SEC, why, sizeof(why)));
    ck_assert_str_eq(why, "rail traffic not measured yet");
    /* busy_gbps 0: traffic never defers */
    p.probes.defer.busy_gbps = 0;
    ck_assert(!probe_defer_why(&p, true, rc, "", 134 * USEC_PER_SEC, why, sizeof(why)));
    /* a rail without byte counters is never deferred for its traffic */
    struct counter_sample none = { .taken = 136 * USEC_PER_SEC };
    ck_assert_int_eq(counters_fold(&st, &no_limits, "boot", "mlx5_0/1", &none, false, 0, 0), 0);
    p.probes.defer.busy_gbps = 1;
    ck_assert(!probe_defer_why(&p, true, rc, "", 136 * USEC_PER_SEC, why, sizeof(why)));
    policy_done(&p);
    counters_done(&st);
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
    tcase_add_test(tc, test_traffic_quiet);
    tcase_add_test(tc, test_pingpong_byte_budget);
    tcase_add_test(tc, test_sample_copies_are_deep);
    tcase_add_test(tc, test_state_copy_is_deep);
    tcase_add_test(tc, test_state_bounds);
    tcase_add_test(tc, test_pma_widths);
    tcase_add_test(tc, test_port_errors_raised);
    tcase_add_test(tc, test_same_name_two_dirs);
    tcase_add_test(tc, test_saturated_and_reset);
    tcase_add_test(tc, test_rise_after_a_reset);
    tcase_add_test(tc, test_offline_totals);
    tcase_add_test(tc, test_pass_holds_peaks_by_its_policy);
    tcase_add_test(tc, test_once_and_daemon_judge_alike);
    /* Each test copies a fixture tree and scans it up to four times: seconds on a loaded
     * machine, under ASan more. */
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return check_run(s);
}
