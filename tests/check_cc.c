/* SPDX-License-Identifier: ISC */
/* Congestion control (issue 46): the firmware tool's parser on answers laid out as the
 * public mlxconfig dumps are (fixtures: mlxconfig_answer), the child runner's bounds, the
 * cc source on MLNX_OFED sysfs and debugfs trees and with stand-in firmware tools on PATH
 * (absent, failing, slow, garbage, well), and qos.cc, qos.cc_next_boot, qos.cc_alike. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check_findings.h"
#include "check_run.h"
#include "checks.h"
#include "child_run.h"
#include "fw_config_parse.h"
#include "inventory_take.h"
#include "macro.h"
#include "metrics.h"
#include "report.h"
#include "source_cc.h"

static char fixtures[256], scratch[512], path_before[4096];

struct scan {
    struct policy policy;
    struct inventory inv;
    struct findings fs;
};

static void scan(struct scan *s, const char *fixture, const char *yaml)
{
    struct policy_errors errs = { 0 };
    char root[600];
    memset(s, 0, sizeof(*s));
    policy_init_defaults(&s->policy);
    ck_assert_int_eq(policy_load_string(yaml, strlen(yaml), "t.yaml", &s->policy, &errs), 0);
    snprintf(root, sizeof(root), "%s/%s/sys", fixtures, fixture);
    ck_assert_int_eq(inventory_take(root, NULL, &s->policy, &s->inv), 0);
    check_qos(&s->inv, &s->policy, &s->fs);
    check_cc(&s->inv, &s->policy, &s->fs);
}

static void scan_done(struct scan *s)
{
    findings_done(&s->fs);
    inventory_done(&s->inv);
    policy_done(&s->policy);
}

static size_t count(const struct findings *fs, const char *check, enum severity sev)
{
    size_t n = 0;
    for (size_t i = 0; i < fs->n; i++)
        n += streq(fs->items[i].check, check) && fs->items[i].severity == sev;
    return n;
}

static char *file_text(const char *fixture, const char *ifname, size_t *len)
{
    char path[700], *text = NULL;
    snprintf(path, sizeof(path), "%s/%s/fabtune/net/%s/fw_config", fixtures, fixture, ifname);
    FILE *f = fopen(path, "re");
    ck_assert_ptr_nonnull(f);
    text = calloc(1, 65536);
    *len = fread(text, 1, 65535, f);
    fclose(f);
    return text;
}

/* ---- the firmware tool's table --------------------------------------------------- */

START_TEST(test_parse_three_columns)
{
    int64_t cur[CC_PARAMS], next[CC_PARAMS];
    char why[160];
    size_t len;
    char *text = file_text("mlx5_8rail_cc", "enp94s0f0np0", &len);   /* rail 3 */
    ck_assert_int_eq(fw_config_parse(text, len, 1, cur, next, why, sizeof(why)), 20);
    ck_assert_int_eq(cur[CC_CNP_DSCP], 4);
    ck_assert_int_eq(next[CC_CNP_DSCP], 26);        /* the '*' row */
    ck_assert_int_eq(next[CC_CLAMP_TGT_RATE_ATI], 1);   /* True(1) */
    ck_assert_int_eq(next[CC_RP_PRIO_MASK], 255);
    ck_assert_int_eq(next[CC_NP_ENABLED], CC_UNKNOWN);  /* no NVConfig of its own */
    /* Port 2's rows are the defaults. */
    ck_assert_int_eq(fw_config_parse(text, len, 2, cur, next, why, sizeof(why)), 19);
    ck_assert_int_eq(next[CC_CNP_DSCP], 48);
    ck_assert_int_eq(next[CC_RP_PRIO_MASK], CC_UNKNOWN);
    free(text);
}
END_TEST

START_TEST(test_parse_next_boot_only)
{
    static const char text[] =
        "Device #1:\n----------\nDevice type:    ConnectX5\n\n"
        "Configurations:                              Next Boot\n"
        "         ROCE_CC_PRIO_MASK_P1                255\n"
        "         CNP_DSCP_P1                         48\n"
        "         CLAMP_TGT_RATE_P1                   False(0)\n";
    int64_t cur[CC_PARAMS], next[CC_PARAMS];
    char why[160];
    ck_assert_int_eq(fw_config_parse(text, sizeof(text) - 1, 1, cur, next, why, sizeof(why)), 3);
    ck_assert_int_eq(next[CC_CLAMP_TGT_RATE], 0);
    ck_assert_int_eq(cur[CC_CNP_DSCP], CC_UNKNOWN);
}
END_TEST

START_TEST(test_parse_refusals)
{
    static const char failed[] = "-E- Failed to open the device\n";
    static const char garbage[] = "\x01\x02\xff garbage\nConfigurations:\n CNP_DSCP_P1 4x\n"
                                  " CNP_DSCP_P1 99999999999\n CNP_DSCP_P1\n";
    int64_t cur[CC_PARAMS], next[CC_PARAMS];
    char why[160];
    ck_assert_int_eq(fw_config_parse(failed, sizeof(failed) - 1, 1, cur, next, why, sizeof(why)),
                     -EBADMSG);
    ck_assert_str_eq(why, "the tool said: -E- Failed to open the device");
    ck_assert_int_eq(fw_config_parse(garbage, sizeof(garbage) - 1, 1, cur, next, why, sizeof(why)),
                     -EBADMSG);
    ck_assert_ptr_nonnull(strstr(why, "no congestion-control parameter of port 1"));
    ck_assert_int_eq(fw_config_parse("", 0, 1, cur, next, why, sizeof(why)), -EBADMSG);
    ck_assert_ptr_nonnull(strstr(why, "no \"Configurations:\" table"));
}
END_TEST

/* ---- the child's bounds ------------------------------------------------------------ */

static void script(const char *dir, const char *name, const char *body)
{
    char path[700];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "we");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "#!/bin/sh\n%s\n", body);
    fclose(f);
    ck_assert_int_eq(chmod(path, 0755), 0);
}

static char *bin_dir(const char *name)
{
    static char dir[600];
    snprintf(dir, sizeof(dir), "%s/%s", scratch, name);
    sh("rm -rf '%s' && mkdir -p '%s'", dir, dir);
    return dir;
}

START_TEST(test_child_bounds)
{
    struct child_result res;
    char *dir = bin_dir("child"), path[700], pidfile[700], why[160], pid[32] = "";
    snprintf(pidfile, sizeof(pidfile), "%s/sleeper.pid", dir);
    /* A shell that leaves a sleeping child holding the pipe: the group goes at the bound. */
    char body[900];
    snprintf(body, sizeof(body), "/bin/sleep 60 & echo $! > '%s'; echo started", pidfile);
    script(dir, "hang", body);
    snprintf(path, sizeof(path), "%s/hang", dir);
    char *argv[] = { path, NULL };
    usec_t t0 = now_usec(CLOCK_MONOTONIC);
    ck_assert_int_eq(child_run(path, argv, 300 * USEC_PER_MSEC, 4096, &res), 0);
    usec_t took = now_usec(CLOCK_MONOTONIC) - t0;
    ck_assert(res.timed_out);
    ck_assert_uint_lt(took, 10 * USEC_PER_SEC);
    ck_assert_str_eq(child_result_why(&res, why, sizeof(why)), "no answer within its time bound (killed)");
    child_result_done(&res);
    FILE *f = fopen(pidfile, "re");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(pid, sizeof(pid), f));
    fclose(f);
    for (int i = 0; i < 200 && kill(atoi(pid), 0) == 0; i++)    /* init reaps it */
        usleep(10000);
    ck_assert_int_eq(kill(atoi(pid), 0), -1);
    /* Past the output bound. */
    script(dir, "flood", "/usr/bin/yes garbage");
    snprintf(path, sizeof(path), "%s/flood", dir);
    ck_assert_int_eq(child_run(path, argv, 10 * USEC_PER_SEC, 65536, &res), 0);
    ck_assert(res.truncated);
    ck_assert_uint_eq(res.len, 65536);
    child_result_done(&res);
    /* Its exit status and first line. */
    script(dir, "fail", "echo '-E- Failed to open the device'; exit 3");
    snprintf(path, sizeof(path), "%s/fail", dir);
    ck_assert_int_eq(child_run(path, argv, 10 * USEC_PER_SEC, 65536, &res), 0);
    ck_assert_str_eq(child_result_why(&res, why, sizeof(why)),
                     "exit status 3: -E- Failed to open the device");
    child_result_done(&res);
    ck_assert_int_eq(child_find("no-such-tool-for-fabtune", path, sizeof(path)), -ENOENT);
}
END_TEST

/* ---- the live firmware path with stand-in tools on PATH ---------------------------- */

/* The answers a daemon keeps between passes: one test's scans share them (each test is a
 * process of its own). */
static struct fw_answers answers;

/* The cc source as the daemon's pass runs it (live), on the cc tree, with PATH = DIR. */
static void live_scan(struct scan *s, const char *dir, const char *yaml)
{
    /* Only DIR: the stand-ins name every program they run by its path. */
    setenv("PATH", dir, 1);
    scan(s, "mlx5_8rail_cc", yaml);
    char root[600];
    snprintf(root, sizeof(root), "%s/mlx5_8rail_cc/sys", fixtures);
    source_cc_fill(root, true, &s->policy, &answers, &s->inv);
    setenv("PATH", path_before, 1);
    findings_done(&s->fs);
    check_cc(&s->inv, &s->policy, &s->fs);
}

START_TEST(test_tool_absent)
{
    struct scan s;
    live_scan(&s, bin_dir("absent"), "version: 1\n");
    const struct finding *f = one_finding(&s.fs, "qos.cc_next_boot", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_ptr_nonnull(strstr(f->message, "neither mstconfig (mstflint) nor mlxconfig is installed"));
    scan_done(&s);
}
END_TEST

START_TEST(test_tool_failing)
{
    struct scan s;
    char *dir = bin_dir("failing");
    /* The real mstconfig where mstflint is installed (it cannot open a function this host
     * lacks), else a stand-in that fails as it does. */
    char real[600];
    if (child_find("mstconfig", real, sizeof(real)) == 0 && getenv("PATH"))
        sh("ln -s '%s' '%s/mstconfig'", real, dir);
    else
        script(dir, "mstconfig", "echo '-E- Failed to open the device'; exit 3");
    live_scan(&s, dir, "version: 1\n");
    const struct finding *f = one_finding(&s.fs, "qos.cc_next_boot", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_msg(strstr(f->message, "mstconfig -d 0000:1a:00.0: exit status 3: -E- Failed to open the device"),
                  "%s", f->message);
    scan_done(&s);
}
END_TEST

START_TEST(test_tool_slow)
{
    struct scan s;
    char *dir = bin_dir("slow");
    script(dir, "mstconfig", "exec /bin/sleep 60");
    usec_t t0 = now_usec(CLOCK_MONOTONIC);
    live_scan(&s, dir, "version: 1\nrails:\n  cc: {firmware_timeout: 1s}\n");
    usec_t took = now_usec(CLOCK_MONOTONIC) - t0;
    /* Eight functions asked, each cut at 1 s. */
    ck_assert_uint_lt(took, 30 * USEC_PER_SEC);
    const struct finding *f = one_finding(&s.fs, "qos.cc_next_boot", "mlx5_2/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_msg(strstr(f->message, "no answer within its time bound (killed)"), "%s", f->message);
    scan_done(&s);
}
END_TEST

START_TEST(test_tool_garbage)
{
    struct scan s;
    char *dir = bin_dir("garbage");
    script(dir, "mstconfig", "/usr/bin/head -c 400000 /dev/urandom");
    script(dir, "mlxconfig", "exit 0");     /* never asked: mstconfig comes first */
    live_scan(&s, dir, "version: 1\n");
    const struct finding *f = one_finding(&s.fs, "qos.cc_next_boot", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_msg(strstr(f->message, "more output than its bound (killed)"), "%s", f->message);
    scan_done(&s);
}
END_TEST

/* A short answer of no table (each test is a process of its own: no answer kept). */
START_TEST(test_tool_garbage_table)
{
    struct scan s;
    char *dir = bin_dir("garbage-table");
    script(dir, "mstconfig", "printf 'Device #1:\\n\\001\\002 Configurations: ?? ??\\n CNP_DSCP_P1 x\\n'");
    live_scan(&s, dir, "version: 1\n");
    const struct finding *f;
    f = one_finding(&s.fs, "qos.cc_next_boot", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_ptr_nonnull(strstr(f->message, "mstconfig: the tool's table has no congestion-control parameter"));
    scan_done(&s);
}
END_TEST

/* A stand-in mlxconfig that prints rail 3's answer and counts its runs: one run per PCI
 * function within rails.cc.firmware_every. */
START_TEST(test_tool_answers_once)
{
    struct scan s;
    char *dir = bin_dir("answers"), body[1600], counter[700];
    snprintf(counter, sizeof(counter), "%s/runs", dir);
    snprintf(body, sizeof(body), "echo \"$*\" >> '%s'; /bin/cat "
             "'%s/mlx5_8rail_cc/fabtune/net/enp94s0f0np0/fw_config'",
             counter, fixtures);
    script(dir, "mlxconfig", body);
    live_scan(&s, dir, "version: 1\n");
    const struct finding *f = one_finding(&s.fs, "qos.cc_next_boot", "mlx5_3/1");
    ck_assert_msg(f->severity == SEVERITY_WARNING, "%s", f->message);
    ck_assert_ptr_nonnull(strstr(f->message, "(mlxconfig): brings the firmware's pending cnp_dscp 4 -> 26"));
    scan_done(&s);
    live_scan(&s, dir, "version: 1\n");
    scan_done(&s);
    sh("test $(wc -l < '%s') = 8 && grep -qx -- '-d 0000:5e:00.0 -e query' '%s'", counter, counter);
}
END_TEST

/* ---- the checks -------------------------------------------------------------------- */

/* Rail 5 came back with the driver's defaults where the profile wants roceOptimized. */
START_TEST(test_defaults_where_roce_optimized)
{
    struct scan s;
    scan(&s, "mlx5_8rail_cc", "version: 1\nrails:\n  cc: {profile: roce-optimized-v26.7}\n");
    const struct finding *f = one_finding(&s.fs, "qos.cc", "mlx5_5/1");
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_str_eq(f->message, "enp188s0f0np0: 1 DCQCN parameter differs from profile "
                                 "roce-optimized-v26.7: cnp_dscp 48 (wants 4)");
    ck_assert_str_eq(f->expected, "cnp_dscp 4");
    ck_assert_str_eq(f->actual, "cnp_dscp 48");
    ck_assert_int_eq(one_finding(&s.fs, "qos.cc", "mlx5_0/1")->severity, SEVERITY_OK);
    ck_assert_uint_eq(count(&s.fs, "qos.cc", SEVERITY_OK), 6);     /* rail 6: rpg_ai_rate */
    f = one_finding(&s.fs, "qos.cc_alike", "mlx5_5/1");
    ck_assert_str_eq(f->message, "enp188s0f0np0: its DCQCN parameters differ from the node's "
                                 "other rails: cnp_dscp 48 (the others 4)");
    /* The profile's CNP DSCP is qos.cnp's too. */
    ck_assert_int_eq(one_finding(&s.fs, "qos.cnp", "mlx5_0/1")->severity, SEVERITY_OK);
    scan_done(&s);
    /* v26.10's CNP DSCP is 48: now rail 5 is the one that matches. */
    scan(&s, "mlx5_8rail_cc", "version: 1\nrails:\n  cc: {profile: roce-optimized-v26.10}\n");
    ck_assert_int_eq(one_finding(&s.fs, "qos.cc", "mlx5_5/1")->severity, SEVERITY_OK);
    ck_assert_uint_eq(count(&s.fs, "qos.cc", SEVERITY_WARNING), 7);
    scan_done(&s);
}
END_TEST

/* Without a profile the rails are still compared with each other. */
START_TEST(test_alike_without_profile)
{
    struct scan s;
    scan(&s, "mlx5_8rail_cc", "version: 1\n");
    ck_assert_uint_eq(count(&s.fs, "qos.cc", SEVERITY_OK) + count(&s.fs, "qos.cc", SEVERITY_WARNING), 0);
    ck_assert_uint_eq(count(&s.fs, "qos.cc_alike", SEVERITY_WARNING), 2);
    ck_assert_ptr_nonnull(strstr(one_finding(&s.fs, "qos.cc_alike", "mlx5_6/1")->message,
                                 "rpg_ai_rate 10 (the others 5)"));
    scan_done(&s);
    scan(&s, "mlx5_8rail_cc_off", "version: 1\n");
    const struct finding *f = one_finding(&s.fs, "qos.cc_alike", NULL);
    ck_assert_int_eq(f->severity, SEVERITY_OK);
    scan_done(&s);
}
END_TEST

START_TEST(test_next_boot)
{
    struct scan s;
    scan(&s, "mlx5_8rail_cc", "version: 1\n");
    const struct finding *f = one_finding(&s.fs, "qos.cc_next_boot", "mlx5_6/1");
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_str_eq(f->message, "enp205s0f0np0: a reboot changes DCQCN (mstconfig): undoes "
                                 "rpg_ai_rate 10 -> 5");
    ck_assert_ptr_nonnull(strstr(one_finding(&s.fs, "qos.cc_next_boot", "mlx5_3/1")->message,
                                 "brings the firmware's pending cnp_dscp 4 -> 26"));
    ck_assert_int_eq(one_finding(&s.fs, "qos.cc_next_boot", "mlx5_0/1")->severity, SEVERITY_OK);
    f = one_finding(&s.fs, "qos.cc_next_boot", "mlx5_7/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_ptr_nonnull(strstr(f->message, "-E- Failed to open the device"));
    scan_done(&s);
    /* rails.cc.firmware off: not judged. */
    scan(&s, "mlx5_8rail_cc", "version: 1\nrails:\n  cc: {firmware: off}\n");
    ck_assert_uint_eq(count(&s.fs, "qos.cc_next_boot", SEVERITY_WARNING) +
                      count(&s.fs, "qos.cc_next_boot", SEVERITY_OK), 0);
    scan_done(&s);
}
END_TEST

/* "Off by design" with ECN off reads ok, and qos.ecn leaves the switches to qos.cc. */
START_TEST(test_off_by_design)
{
    struct scan s;
    scan(&s, "mlx5_8rail_cc_off", "version: 1\nrails:\n  qos: {ecn: required}\n  cc: {profile: off}\n");
    for (int n = 0; n < 8; n++) {
        char rail[16];
        snprintf(rail, sizeof(rail), "mlx5_%d/1", n);
        const struct finding *f = one_finding(&s.fs, "qos.cc", rail);
        ck_assert_int_eq(f->severity, SEVERITY_OK);
        ck_assert_ptr_nonnull(strstr(f->message, "DCQCN off by design"));
    }
    ck_assert_uint_eq(count(&s.fs, "qos.ecn", SEVERITY_ERROR) + count(&s.fs, "qos.ecn", SEVERITY_OK), 0);
    scan_done(&s);
    /* The same profile on a node whose DCQCN is on: the switches are named. */
    scan(&s, "mlx5_8rail_cc", "version: 1\nrails:\n  cc: {profile: off}\n");
    const struct finding *f = one_finding(&s.fs, "qos.cc", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_WARNING);
    ck_assert_ptr_nonnull(strstr(f->message, "rp_priority_mask 0-7 (wants none), np_enabled on (wants off)"));
    scan_done(&s);
}
END_TEST

/* The upstream driver's debugfs: read where MLNX_OFED's sysfs is absent; a site value. */
START_TEST(test_debugfs_and_site)
{
    struct scan s;
    scan(&s, "mlx5_8rail_cc_debugfs", "version: 1\nrails:\n  cc: {profile: driver-defaults}\n");
    ck_assert_str_eq(s.inv.rails[0].cc.source, "debugfs");
    ck_assert_int_eq(s.inv.rails[0].cc.running[CC_DCE_TCP_G], 1019);
    ck_assert_int_eq(s.inv.rails[0].cc.running[CC_RP_PRIO_MASK], CC_UNKNOWN);
    ck_assert_str_eq(one_finding(&s.fs, "qos.cc", "mlx5_1/1")->actual, "rpg_time_reset 600");
    ck_assert_uint_eq(count(&s.fs, "qos.cc", SEVERITY_OK), 7);
    scan_done(&s);
    scan(&s, "mlx5_8rail_cc_debugfs",
         "version: 1\nrails:\n  cc: {profile: site, params: {rpg_time_reset: 600}}\n");
    ck_assert_int_eq(one_finding(&s.fs, "qos.cc", "mlx5_1/1")->severity, SEVERITY_OK);
    ck_assert_str_eq(one_finding(&s.fs, "qos.cc", "mlx5_0/1")->actual, "rpg_time_reset 300");
    scan_done(&s);
}
END_TEST

/* No DCQCN files at all (the stock tree): unknown with both reasons, never an error. */
START_TEST(test_nothing_exposed)
{
    struct scan s;
    scan(&s, "mlx5_8rail", "version: 1\nrails:\n  cc: {profile: driver-defaults}\n");
    const struct finding *f = one_finding(&s.fs, "qos.cc", "mlx5_0/1");
    ck_assert_int_eq(f->severity, SEVERITY_UNKNOWN);
    ck_assert_str_eq(f->message, "enp26s0f0np0: DCQCN parameters unknown: no ecn/roce_rp parameters "
                                 "(MLNX_OFED's sysfs), and debugfs holds no mlx5 directory");
    ck_assert_uint_eq(count(&s.fs, "qos.cc_next_boot", SEVERITY_UNKNOWN), 0);
    ck_assert_uint_eq(count(&s.fs, "qos.cc_alike", SEVERITY_OK), 0);
    scan_done(&s);
}
END_TEST

START_TEST(test_digest)
{
    int64_t a[CC_PARAMS], b[CC_PARAMS];
    char da[17], db[17];
    for (size_t i = 0; i < CC_PARAMS; i++)
        a[i] = b[i] = cc_wanted(CC_PROFILE_DRIVER_DEFAULTS, NULL, i);
    cc_digest(a, da);
    cc_digest(b, db);
    ck_assert_str_eq(da, db);
    b[CC_CNP_DSCP] = 4;
    cc_digest(b, db);
    ck_assert_str_ne(da, db);
    ck_assert_uint_eq(strlen(da), 16);
}
END_TEST

/* fabtune_rail_cc_info: one series per rail with parameters, the profile and the digest
 * as labels, clean under promtool check metrics. */
START_TEST(test_metrics)
{
    struct policy p;
    struct report rep;
    struct policy_errors errs = { 0 };
    char root[600], path[700], d0[17], d5[17], want[300];
    static const char yaml[] = "version: 1\nrails:\n  cc: {profile: roce-optimized-v26.7}\n";
    policy_init_defaults(&p);
    ck_assert_int_eq(policy_load_string(yaml, strlen(yaml), "t.yaml", &p, &errs), 0);
    memset(&rep, 0, sizeof(rep));
    report_init(&rep, &p, "t.yaml");
    snprintf(root, sizeof(root), "%s/mlx5_8rail_cc/sys", fixtures);
    ck_assert_int_eq(inventory_take(root, NULL, &p, &rep.inventory), 0);
    report_finish(&rep);
    char *text = metrics_render(&rep);
    ck_assert_ptr_nonnull(text);
    cc_digest(rep.inventory.rails[0].cc.running, d0);
    cc_digest(rep.inventory.rails[5].cc.running, d5);
    ck_assert_str_ne(d0, d5);
    snprintf(want, sizeof(want), "\nfabtune_rail_cc_info{device=\"mlx5_5\",port=\"1\",netdev="
             "\"enp188s0f0np0\",profile=\"roce-optimized-v26.7\",digest=\"%s\"} 1\n", d5);
    ck_assert_msg(strstr(text, want), "%s", text);
    snprintf(path, sizeof(path), "%s/cc.prom", scratch);
    promtool_clean(text, path);
    sh("test $(grep -c '^fabtune_rail_cc_info{' '%s') = 8", path);
    free(text);
    report_done(&rep);
    policy_done(&p);
}
END_TEST

int main(void)
{
    snprintf(path_before, sizeof(path_before), "%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    if (check_shared_fixtures(fixtures, sizeof(fixtures)) < 0 ||
        check_scratch_dir(scratch, sizeof(scratch), "out-cc") < 0)
        return 99;
    Suite *s = suite_create("cc");
    TCase *parser = tcase_create("firmware tool");
    tcase_add_test(parser, test_parse_three_columns);
    tcase_add_test(parser, test_parse_next_boot_only);
    tcase_add_test(parser, test_parse_refusals);
    tcase_add_test(parser, test_child_bounds);
    tcase_add_test(parser, test_tool_absent);
    tcase_add_test(parser, test_tool_failing);
    tcase_add_test(parser, test_tool_slow);
    tcase_add_test(parser, test_tool_garbage);
    tcase_add_test(parser, test_tool_garbage_table);
    tcase_add_test(parser, test_tool_answers_once);
    tcase_set_timeout(parser, 120);
    suite_add_tcase(s, parser);
    TCase *checks = tcase_create("checks");
    tcase_add_test(checks, test_defaults_where_roce_optimized);
    tcase_add_test(checks, test_alike_without_profile);
    tcase_add_test(checks, test_next_boot);
    tcase_add_test(checks, test_off_by_design);
    tcase_add_test(checks, test_debugfs_and_site);
    tcase_add_test(checks, test_nothing_exposed);
    tcase_add_test(checks, test_digest);
    tcase_add_test(checks, test_metrics);
    tcase_set_timeout(checks, 120);
    suite_add_tcase(s, checks);
    return check_run(s);
}
