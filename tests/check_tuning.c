/* SPDX-License-Identifier: ISC */
/* Tests of the tuning transaction on a temp procfs root, and of the other-writer report
 * on a sysctl.d fixture. (Live per-namespace keys and kill -9 trials: tuning-live.sh and
 * tuning-crash.sh.) */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alerts.h"
#include "checks.h"
#include "check_run.h"
#include "macro.h"
#include "metrics.h"
#include "report.h"
#include "rail_sysctl.h"
#include "fileio.h"
#include "sysctl.h"
#include "sysctl_writers.h"
#include "tuning.h"
#include "tuning_snapshot.h"
#include "tuning_transaction.h"

static char dir[256], proc[300], state[300];
static struct policy p;

static void put(const char *key, const char *value)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/sys/%s", proc, key);
    for (char *c = path + strlen(proc) + 5; *c; c++)    /* sysctl(8)'s form: '/' is a '.' */
        *c = *c == '.' ? '/' : *c == '/' ? '.' : *c;
    sh("mkdir -p \"$(dirname '%s')\"", path);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "%s\n", value);
    fclose(f);
}

static const char *get(const char *key)
{
    static char buf[256];
    ck_assert_int_eq(sysctl_read(proc, key, buf, sizeof(buf)), 0);
    return buf;
}

static void setup(void)
{
    struct policy_errors errs = { 0 };
    snprintf(dir, sizeof(dir), "/tmp/check_tuning.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(proc, sizeof(proc), "%s/proc", dir);
    snprintf(state, sizeof(state), "%s/state", dir);
    mkdir(state, 0755);
    put("net.core.somaxconn", "4096");
    /* The host's network namespace: the kernel keeps netdev_max_backlog there alone. */
    put("net.core.netdev_max_backlog", "1000");
    put("net.ipv4.tcp_rmem", "4096\t131072\t6291456");
    put("vm.zone_reclaim_mode", "1");
    put("kernel.random.boot_id", "11111111-1111-1111-1111-111111111111");
    policy_init_defaults(&p);
    const char *yaml = "tuning:\n  mode: enforce\n  sysctl:\n    net.core.somaxconn: 8192\n"
                       "    net.ipv4.tcp_rmem: \"4096 87380 134217728\"\n"
                       "    vm.zone_reclaim_mode: 0\n    net.core.no_such_key: 1\n";
    ck_assert_int_eq(policy_load_string(yaml, strlen(yaml), "t.yaml", &p, &errs), 0);
}

static void teardown(void)
{
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    (void)system(cmd);
    policy_done(&p);
}

static const struct tuning_key *key(const struct tuning *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (streq(t->keys[i].key, name))
            return &t->keys[i];
    ck_abort_msg("no key %s", name);
    return NULL;
}

START_TEST(test_values_equal)
{
    ck_assert(sysctl_values_equal("4096\t87380   134217728\n", "4096 87380 134217728"));
    ck_assert(sysctl_values_equal(" 1 ", "1"));
    ck_assert(!sysctl_values_equal("4096 87380", "4096 87380 134217728"));
    ck_assert(!sysctl_values_equal("40960", "4096"));
    ck_assert(sysctl_values_equal("", "  "));
}
END_TEST

START_TEST(test_read_only)
{
    struct tuning t;
    tuning_init(&t, proc, state, dir);
    ck_assert_int_eq(tuning_read(&t, &p), 0);
    ck_assert_uint_eq(t.n, 4);
    ck_assert_int_eq(key(&t, "net.core.somaxconn")->state, TUNING_STATE_DRIFT);
    ck_assert_str_eq(key(&t, "net.ipv4.tcp_rmem")->live, "4096 131072 6291456");
    ck_assert_int_eq(key(&t, "net.core.no_such_key")->state, TUNING_STATE_MISSING);
    ck_assert(!key(&t, "net.core.somaxconn")->has_original);
    /* Nothing written, no snapshot. */
    ck_assert_str_eq(get("net.core.somaxconn"), "4096");
    ck_assert_int_ne(access(state, F_OK), -1);
    struct tuning_snapshot s;
    ck_assert_int_eq(tuning_snapshot_load(state, &s), -ENOENT);

    struct findings fs = { 0 };
    check_tuning(&t, &p, &fs);
    ck_assert_uint_eq(fs.n, 4);
    ck_assert_int_eq(findings_verdict(&fs), VERDICT_DEGRADED);
    findings_done(&fs);
    tuning_done(&t);
}
END_TEST

/* The warning of a drifted key (net.core.somaxconn) under the modes of T. */
static const char *drift_hint_in(struct tuning *t, struct findings *fs)
{
    memset(fs, 0, sizeof(*fs));
    check_tuning(t, &p, fs);
    for (size_t i = 0; i < fs->n; i++)
        if (fs->items[i].severity == SEVERITY_WARNING && strstr(fs->items[i].message, "somaxconn"))
            return fs->items[i].hint;
    ck_abort_msg("no drift warning");
    return NULL;
}

/* Each drift hint is true where it is printed (issue 41, item 4): --once never re-applies
 * anything, 'fabtuned --once --apply' exits 75 beside a running daemon and is refused on
 * a snapshot, and a suspended daemon does not re-apply either. */
START_TEST(test_drift_hint_true_in_each_mode)
{
    static const struct {
        enum tuning_mode mode;
        bool under_daemon, daemon_pass, snapshot;
        const char *says, *never;
    } modes[] = {
        { TUNING_VERIFY, false, false, false, "'fabtuned --once --apply' applies it once", "fabtunectl" },
        { TUNING_VERIFY, true, false, false, "'fabtunectl apply' applies it once", "--once --apply" },
        { TUNING_VERIFY, true, true, false, "'fabtunectl apply' applies it once", "--once --apply" },
        { TUNING_ENFORCE, false, false, false, "--once only reads: 'fabtuned --once --apply'", "re-applies" },
        { TUNING_ENFORCE, true, false, false, "the running fabtuned re-applies it at its next pass", "--once --apply" },
        { TUNING_ENFORCE, true, true, false, "suspended since 'fabtunectl revert'", "re-applies" },
        { TUNING_ENFORCE, false, false, true, "on the node this tree was captured on", "--once --apply" },
        { TUNING_VERIFY, true, false, true, "on the node this tree was captured on", "--once --apply" },
    };
    enum tuning_mode mode = p.tuning.mode;
    struct tuning t;
    struct findings fs;
    for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
        p.tuning.mode = modes[i].mode;
        tuning_init(&t, proc, state, dir);
        ck_assert_int_eq(tuning_read(&t, &p), 0);
        t.under_daemon = modes[i].under_daemon;
        t.daemon_pass = modes[i].daemon_pass;
        if (modes[i].snapshot)
            tuning_mark_snapshot(&t);
        const char *hint = drift_hint_in(&t, &fs);
        ck_assert_msg(strstr(hint, modes[i].says), "mode %zu: %s", i, hint);
        ck_assert_msg(!strstr(hint, modes[i].never), "mode %zu: %s", i, hint);
        findings_done(&fs);
        tuning_done(&t);
    }
    p.tuning.mode = mode;
}
END_TEST

/* A key this kernel lacks is a warning with the nearest key it has, never READY (issue
 * 41, item 6: a typo turned tuning off silently); in a snapshot, it is not known. */
START_TEST(test_missing_key_warns_with_the_nearest)
{
    struct policy_errors errs = { 0 };
    struct policy typo;
    struct tuning t;
    struct findings fs = { 0 };
    const char *yaml = "tuning:\n  mode: verify\n  sysctl:\n    net.core.somaxconnn: 4096\n"
                       "    net.ipv4.tcp_rmen: \"4096 131072 6291456\"\n";
    policy_init_defaults(&typo);
    ck_assert_int_eq(policy_load_string(yaml, strlen(yaml), "t.yaml", &typo, &errs), 0);
    tuning_init(&t, proc, state, dir);
    ck_assert_int_eq(tuning_read(&t, &typo), 0);
    ck_assert_int_eq(key(&t, "net.core.somaxconnn")->state, TUNING_STATE_MISSING);
    ck_assert_str_eq(key(&t, "net.core.somaxconnn")->closest, "net.core.somaxconn");
    ck_assert_str_eq(key(&t, "net.ipv4.tcp_rmen")->closest, "net.ipv4.tcp_rmem");
    check_tuning(&t, &typo, &fs);
    ck_assert_uint_eq(fs.n, 2);
    ck_assert_int_eq(fs.items[0].severity, SEVERITY_WARNING);
    ck_assert_ptr_nonnull(strstr(fs.items[0].hint, "a typo? this kernel has net.core.somaxconn"));
    ck_assert_int_eq(findings_verdict(&fs), VERDICT_DEGRADED);
    findings_done(&fs);
    tuning_mark_snapshot(&t);
    check_tuning(&t, &typo, &fs);
    ck_assert_int_eq(fs.items[0].severity, SEVERITY_UNKNOWN);
    findings_done(&fs);
    tuning_done(&t);
    policy_done(&typo);
}
END_TEST

/* In a network namespace that is not the host's (a pod without hostNetwork) the kernel
 * hides the keys it keeps in the host's alone (netdev_max_backlog; rmem_max before Linux
 * 6.18): such a key is not visible here, unknown, never "does not exist on this kernel"
 * nor drift; a vm.* key (global) is still missing. tuning-live.sh asks the real kernel. */
START_TEST(test_child_netns_key_not_visible)
{
    struct policy_errors errs = { 0 };
    struct policy pod;
    struct tuning t;
    struct findings fs = { 0 };
    char path[400];
    const char *yaml = "tuning:\n  mode: verify\n  sysctl:\n    net.core.netdev_max_backlog: 250000\n"
                       "    vm.no_such_key: 1\n";
    snprintf(path, sizeof(path), "%s/sys/net/core/netdev_max_backlog", proc);
    ck_assert_int_eq(unlink(path), 0);
    policy_init_defaults(&pod);
    ck_assert_int_eq(policy_load_string(yaml, strlen(yaml), "t.yaml", &pod, &errs), 0);
    tuning_init(&t, proc, state, dir);
    ck_assert_int_eq(tuning_read(&t, &pod), 0);
    ck_assert(t.netns_child);
    ck_assert_int_eq(key(&t, "net.core.netdev_max_backlog")->state, TUNING_STATE_NOT_VISIBLE);
    ck_assert_int_eq(key(&t, "vm.no_such_key")->state, TUNING_STATE_MISSING);
    check_tuning(&t, &pod, &fs);
    ck_assert_uint_eq(fs.n, 2);
    ck_assert_int_eq(fs.items[0].severity, SEVERITY_UNKNOWN);
    ck_assert_str_eq(fs.items[0].message, "net.core.netdev_max_backlog is not visible in this "
                     "network namespace (not the host's)");
    ck_assert_ptr_null(strstr(fs.items[0].hint, "load the module"));
    ck_assert_int_eq(fs.items[1].severity, SEVERITY_WARNING);
    findings_done(&fs);
    /* The drift metric: no sample for the key not visible here (an unknown is never 0,
     * "no drift"), nor for the one this kernel lacks (metrics.c's rule). */
    struct report rep;
    report_init(&rep, &pod, "t.yaml");
    rep.tuning = t;             /* the report's now: report_done() frees it */
    report_finish(&rep);
    char *text = metrics_render(&rep);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strstr(text, "# TYPE fabtune_tuning_drift gauge"), "%s", text);
    ck_assert_msg(!strstr(text, "fabtune_tuning_drift{key=\"net.core.netdev_max_backlog\"}"), "%s", text);
    free(text);
    report_done(&rep);
    policy_done(&pod);
}
END_TEST

START_TEST(test_apply_and_revert)
{
    struct tuning t;
    tuning_init(&t, proc, state, dir);
    ck_assert_int_eq(tuning_apply(&t, &p), 0);
    ck_assert_str_eq(get("net.core.somaxconn"), "8192");
    ck_assert_str_eq(get("net.ipv4.tcp_rmem"), "4096 87380 134217728");
    ck_assert_str_eq(get("vm.zone_reclaim_mode"), "0");
    ck_assert_int_eq(key(&t, "net.core.somaxconn")->state, TUNING_STATE_APPLIED);
    ck_assert_str_eq(key(&t, "net.core.somaxconn")->original, "4096");
    ck_assert_int_eq(key(&t, "net.core.no_such_key")->state, TUNING_STATE_MISSING);

    struct tuning_snapshot s;
    ck_assert_int_eq(tuning_snapshot_load(state, &s), 0);
    ck_assert_uint_eq(s.n, 3);  /* the missing key has no original */
    ck_assert_str_eq(tuning_snapshot_get(&s, "net.ipv4.tcp_rmem"), "4096 131072 6291456");
    ck_assert_str_eq(s.boot_id, "11111111-1111-1111-1111-111111111111");
    tuning_snapshot_done(&s);

    /* Drift, then a second apply: re-applied, and the originals are still the first ones. */
    put("net.core.somaxconn", "128");
    ck_assert_int_eq(tuning_read(&t, &p), 0);
    ck_assert_int_eq(key(&t, "net.core.somaxconn")->state, TUNING_STATE_DRIFT);
    ck_assert_str_eq(key(&t, "net.core.somaxconn")->original, "4096");
    ck_assert_int_eq(tuning_apply(&t, &p), 0);
    ck_assert(key(&t, "net.core.somaxconn")->reapplied);
    ck_assert_str_eq(key(&t, "net.core.somaxconn")->original, "4096");

    ck_assert_int_eq(tuning_revert(&t), 0);
    ck_assert_str_eq(get("net.core.somaxconn"), "4096");
    ck_assert_str_eq(get("net.ipv4.tcp_rmem"), "4096 131072 6291456");
    ck_assert_str_eq(get("vm.zone_reclaim_mode"), "1");
    ck_assert_int_eq(key(&t, "vm.zone_reclaim_mode")->state, TUNING_STATE_REVERTED);
    ck_assert_int_eq(tuning_snapshot_load(state, &s), -ENOENT);
    ck_assert_int_eq(tuning_revert(&t), -ENOENT);
    tuning_done(&t);
}
END_TEST

/* The daemon's revert (issue 41, item 7): each key's WANTED is the policy's value, which
 * the restored original is judged against from now on, not the original itself; a key
 * the policy names no more has none. */
START_TEST(test_revert_wants_the_policys_value)
{
    struct tuning t;
    tuning_init(&t, proc, state, dir);
    ck_assert_int_eq(tuning_apply(&t, &p), 0);
    tuning_done(&t);
    ck_assert_int_eq(tuning_run(&t, proc, state, &p, NULL, TUNING_REVERT), 0);
    ck_assert_str_eq(get("net.core.somaxconn"), "4096");
    ck_assert_str_eq(key(&t, "net.core.somaxconn")->wanted, "8192");
    ck_assert_str_eq(key(&t, "net.core.somaxconn")->original, "4096");
    ck_assert_str_eq(key(&t, "net.core.somaxconn")->live, "4096");
    ck_assert_int_eq(key(&t, "net.core.somaxconn")->state, TUNING_STATE_REVERTED);
    ck_assert_str_eq(key(&t, "net.ipv4.tcp_rmem")->wanted, "4096 87380 134217728");
    tuning_done(&t);

    /* A policy of its first key alone: the others were applied under the last one. */
    ck_assert_int_eq(tuning_run(&t, proc, state, NULL, NULL, TUNING_REVERT), -ENOENT);
    tuning_done(&t);
    tuning_init(&t, proc, state, dir);
    ck_assert_int_eq(tuning_apply(&t, &p), 0);
    tuning_done(&t);
    struct policy first_only = p;
    first_only.tuning.n_sysctl = 1;
    ck_assert_str_eq(first_only.tuning.sysctl[0].key, "net.core.somaxconn");
    ck_assert_int_eq(tuning_run(&t, proc, state, &first_only, NULL, TUNING_REVERT), 0);
    ck_assert_str_eq(key(&t, "net.core.somaxconn")->wanted, "8192");
    ck_assert_str_eq(key(&t, "vm.zone_reclaim_mode")->wanted, "");
    ck_assert_str_eq(key(&t, "vm.zone_reclaim_mode")->original, "1");
    ck_assert_str_eq(get("vm.zone_reclaim_mode"), "1");
    tuning_done(&t);

    /* No policy (fabtuned --revert, revert_on_stop): WANTED is the original restored. */
    tuning_init(&t, proc, state, dir);
    ck_assert_int_eq(tuning_apply(&t, &p), 0);
    tuning_done(&t);
    ck_assert_int_eq(tuning_run(&t, proc, state, NULL, NULL, TUNING_REVERT), 0);
    ck_assert_str_eq(key(&t, "net.core.somaxconn")->wanted, "4096");
    tuning_done(&t);
}
END_TEST

/* The originals reach the disk first: with nowhere to save them, nothing is written. */
START_TEST(test_no_snapshot_no_write)
{
    char nowhere[400];
    struct tuning t;
    snprintf(nowhere, sizeof(nowhere), "%s/does/not/exist", dir);
    tuning_init(&t, proc, nowhere, dir);
    ck_assert_int_lt(tuning_apply(&t, &p), 0);
    ck_assert_str_eq(get("net.core.somaxconn"), "4096");
    ck_assert_str_eq(get("vm.zone_reclaim_mode"), "1");
    tuning_done(&t);
}
END_TEST

START_TEST(test_corrupt_snapshot)
{
    char path[400];
    struct tuning t;
    snprintf(path, sizeof(path), "%s/" TUNING_SNAPSHOT_FILE, state);
    FILE *f = fopen(path, "w");
    fputs("{\"version\": 1, \"originals\": [", f);
    fclose(f);
    tuning_init(&t, proc, state, dir);
    ck_assert_int_eq(tuning_apply(&t, &p), -EBADMSG);
    ck_assert_str_eq(get("net.core.somaxconn"), "4096");
    tuning_done(&t);
}
END_TEST

/* After a reboot the kernel holds its boot values again: those are the originals. */
START_TEST(test_new_boot)
{
    struct tuning t;
    tuning_init(&t, proc, state, dir);
    ck_assert_int_eq(tuning_apply(&t, &p), 0);
    put("kernel.random.boot_id", "22222222-2222-2222-2222-222222222222");
    put("net.core.somaxconn", "1024");      /* this boot's own value */
    ck_assert_int_eq(tuning_apply(&t, &p), 0);
    ck_assert_str_eq(key(&t, "net.core.somaxconn")->original, "1024");
    ck_assert_int_eq(tuning_revert(&t), 0);
    ck_assert_str_eq(get("net.core.somaxconn"), "1024");
    tuning_done(&t);
}
END_TEST

START_TEST(test_write_failure)
{
    struct tuning t;
    char path[400];
    /* A key the kernel refuses to write (a container's read-only /proc/sys). Root ignores
     * mode bits, so the file is /proc/version: a regular procfs file that reads, and whose
     * every write fails (EIO). */
    snprintf(path, sizeof(path), "%s/sys/vm/zone_reclaim_mode", proc);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(symlink("/proc/version", path), 0);
    tuning_init(&t, proc, state, dir);
    ck_assert_int_lt(tuning_apply(&t, &p), 0);
    ck_assert_int_eq(key(&t, "vm.zone_reclaim_mode")->state, TUNING_STATE_FAILED);
    ck_assert_ptr_nonnull(strstr(key(&t, "vm.zone_reclaim_mode")->error, "cannot write"));
    ck_assert(key(&t, "vm.zone_reclaim_mode")->write_failed);
    ck_assert_int_eq(key(&t, "net.core.somaxconn")->state, TUNING_STATE_APPLIED);
    struct findings fs = { 0 };
    check_tuning(&t, &p, &fs);
    ck_assert_int_eq(findings_verdict(&fs), VERDICT_DEGRADED);
    findings_done(&fs);
    tuning_done(&t);
}
END_TEST

/* The site a key's setting takes effect from, or NULL. */
static const char *writer_of(const struct sysctl_writers *w, const char *key)
{
    static char where[512];
    return sysctl_writers_find(w, key, where, sizeof(where)) ? where : NULL;
}

/* A tree under the test directory's NAME, made by SCRIPT: shell run in it (its paths are
 * relative to the tree's root). Calling it again on the same name adds to the tree. */
static void make_tree(char *root, size_t len, const char *name, const char *script)
{
    snprintf(root, len, "%s/%s", dir, name);
    sh("mkdir -p '%s' && cd '%s' && %s", root, root, script);
}

/* A copy of the fixture with Debian's /etc/sysctl.d/99-sysctl.conf -> ../sysctl.conf link
 * (made here: a source tarball does not carry symlinks). */
static void conf_root(char *root, size_t len)
{
    snprintf(root, len, "%s/conf", dir);
    sh("cp -R %s/tests/fixtures/sysctl-conf %s && chmod -R u+w %s && "
       "ln -s ../sysctl.conf %s/etc/sysctl.d/99-sysctl.conf", TEST_SRCDIR, root, root, root);
}

START_TEST(test_other_writers)
{
    char root[512];
    struct sysctl_writers w;
    conf_root(root, sizeof(root));
    ck_assert_int_eq(sysctl_writers_scan(root, &w), 0);
    /* 60-rdma.conf in /etc masks the same name in /usr/lib. */
    ck_assert_str_eq(writer_of(&w, "net.core.rmem_max"), "/etc/sysctl.d/60-rdma.conf:4");
    /* A later file name wins over an earlier one; the slash form is the same key. */
    ck_assert_str_eq(writer_of(&w, "net.ipv4.tcp_wmem"),
                     "/usr/lib/sysctl.d/70-tcp.conf:2");
    /* tuned applies after systemd-sysctl: its profile wins where both set a key. */
    ck_assert_str_eq(writer_of(&w, "net.ipv4.tcp_rmem"),
                     "tuned profile 'network-throughput' (/usr/lib/tuned/network-throughput/tuned.conf):2");
    /* /etc/sysctl.conf, through Debian's 99-sysctl.conf link, counted once. */
    ck_assert_str_eq(writer_of(&w, "net.core.somaxconn"), "/etc/sysctl.d/99-sysctl.conf:3");
    /* A glob. */
    ck_assert_str_eq(writer_of(&w, "net.ipv4.conf.eth0.rp_filter"),
                     "/run/sysctl.d/10-rp.conf:1");
    /* tuned's active profile applies last; its include= parent counts below it. */
    ck_assert_str_eq(writer_of(&w, "vm.zone_reclaim_mode"),
                     "tuned profile 'hpc-node' (/etc/tuned/hpc-node/tuned.conf):5");
    ck_assert_str_eq(writer_of(&w, "net.core.netdev_max_backlog"),
                     "tuned profile 'network-throughput' (/usr/lib/tuned/network-throughput/tuned.conf):3");
    ck_assert_ptr_null(writer_of(&w, "net.core.wmem_default"));
    sysctl_writers_done(&w);
}
END_TEST

/* tuned profiles that include themselves, or each other more than once, are read once
 * each: one site per key. Before, a profile with an include= on each of its 6 lines was
 * read 6^5 times (the fuzzer's inputs took up to minutes) and its key had thousands of
 * sites. */
START_TEST(test_tuned_includes_read_once)
{
    char root[512];
    struct sysctl_writers w;
    make_tree(root, sizeof(root), "tuned-loop",
              "mkdir -p etc/tuned usr/lib/tuned/a usr/lib/tuned/b usr/lib/tuned/c && "
              "echo 'a' > etc/tuned/active_profile && "
              "printf '[main]\\ninclude=a\\ninclude=b\\ninclude=c\\ninclude=a\\ninclude=b\\n"
              "[sysctl]\\nvm.swappiness=1\\n' > usr/lib/tuned/a/tuned.conf && "
              "printf '[main]\\ninclude=c\\ninclude=a\\n[sysctl]\\nvm.dirty_ratio=5\\n' > usr/lib/tuned/b/tuned.conf && "
              "printf '[main]\\ninclude=b\\ninclude=c\\n[sysctl]\\nvm.dirty_ratio=6\\n' > usr/lib/tuned/c/tuned.conf");
    ck_assert_int_eq(sysctl_writers_scan(root, &w), 0);
    /* a, b and c once each: three sites. */
    ck_assert_uint_eq(w.n, 3);
    ck_assert_str_eq(writer_of(&w, "vm.swappiness"), "tuned profile 'a' (/usr/lib/tuned/a/tuned.conf):8");
    /* a includes b, which includes c first: c is below b, and b's setting is what applies. */
    ck_assert_str_eq(writer_of(&w, "vm.dirty_ratio"), "tuned profile 'b' (/usr/lib/tuned/b/tuned.conf):5");
    sysctl_writers_done(&w);
}
END_TEST

/* tuned's include= takes a list ("a, b" or "a;b", loader.py splits on , and ;), only in
 * [main], and tuned merges the profiles in the order it finishes loading them: a's, then
 * c's (b's include), then b's, then the active one's, each later one winning. Before, the
 * list was read as one profile name "a, b", an include= line in any section was followed,
 * and a deeper include counted below a shallower one, so a beat c. */
START_TEST(test_tuned_include_order)
{
    char root[512];
    struct sysctl_writers w;
    make_tree(root, sizeof(root), "tuned-order",
              "mkdir -p etc/tuned usr/lib/tuned/top usr/lib/tuned/a usr/lib/tuned/b usr/lib/tuned/c "
              "usr/lib/tuned/d && echo top > etc/tuned/active_profile && "
              "printf '[main]\\ninclude = a, b\\n[sysctl]\\nvm.top = 1\\ninclude=d\\n' > usr/lib/tuned/top/tuned.conf && "
              "printf '[sysctl]\\nvm.k = 1\\nvm.ab = 1\\n' > usr/lib/tuned/a/tuned.conf && "
              "printf '[main]\\ninclude=c\\n[sysctl]\\nvm.ab = 2\\n' > usr/lib/tuned/b/tuned.conf && "
              "printf '[sysctl]\\nvm.k = 3\\n' > usr/lib/tuned/c/tuned.conf && "
              "printf '[sysctl]\\nvm.d = 4\\n' > usr/lib/tuned/d/tuned.conf");
    ck_assert_int_eq(sysctl_writers_scan(root, &w), 0);
    ck_assert_str_eq(writer_of(&w, "vm.ab"), "tuned profile 'b' (/usr/lib/tuned/b/tuned.conf):4");
    ck_assert_str_eq(writer_of(&w, "vm.k"), "tuned profile 'c' (/usr/lib/tuned/c/tuned.conf):2");
    ck_assert_str_eq(writer_of(&w, "vm.top"), "tuned profile 'top' (/usr/lib/tuned/top/tuned.conf):4");
    ck_assert_ptr_null(writer_of(&w, "vm.d"));
    sysctl_writers_done(&w);
}
END_TEST

/* A scan remembers at most 4096 setting lines. Before, every line grew the array by one
 * (a copy of all the sites before it) without a limit: a 4 KB file of short lines slowed
 * the fuzzer to a few hundred runs a second, and a file of millions of lines would take
 * the check pass's memory with it. Past the limit the scan fails: tuned's profile applies
 * last, so naming a writer from what came before it could name the wrong one. */
START_TEST(test_sites_bounded)
{
    char root[512];
    struct sysctl_writers w;
    make_tree(root, sizeof(root), "many-sites",
              "mkdir -p etc/sysctl.d etc/tuned usr/lib/tuned/big && "
              "awk 'BEGIN { for (i = 0; i < 4095; i++) printf \"vm.k%d = 1\\n\", i }' "
              "> etc/sysctl.d/10-many.conf && "
              "echo 'vm.last = 2' > etc/sysctl.d/20-last.conf");
    ck_assert_int_eq(sysctl_writers_scan(root, &w), 0);
    ck_assert_uint_eq(w.n, 4096);
    ck_assert_str_eq(writer_of(&w, "vm.k4094"), "/etc/sysctl.d/10-many.conf:4095");
    ck_assert_str_eq(writer_of(&w, "vm.last"), "/etc/sysctl.d/20-last.conf:1");
    sysctl_writers_done(&w);

    /* One more line, in the tuned profile that overrides them all: no partial answer. */
    make_tree(root, sizeof(root), "many-sites",
              "echo big > etc/tuned/active_profile && "
              "printf '[sysctl]\\nvm.last = 3\\n' > usr/lib/tuned/big/tuned.conf");
    ck_assert_int_eq(sysctl_writers_scan(root, &w), -EFBIG);
    ck_assert_uint_eq(w.n, 0);
    ck_assert_ptr_null(w.e);
    ck_assert_ptr_null(w.text);
}
END_TEST

/* A site is 16 bytes: its key and file are kept once each in the scan's text, not in
 * fixed 128- and 320-byte fields per line (452 bytes a site made a 4096-line scan copy
 * and fault in 1.8 MiB). Keys are cut as long as the policy's may be; 1024 sysctl.d files
 * are read, one more fails the scan like one line too many. */
START_TEST(test_sites_compact)
{
    char root[512], key[200];
    struct sysctl_writers w;
    ck_assert_uint_le(sizeof(struct sysctl_setting_site), 16);
    make_tree(root, sizeof(root), "many-files",
              "mkdir -p etc/sysctl.d && cd etc/sysctl.d && "
              "awk 'BEGIN { for (i = 0; i < 1023; i++) printf \"%04d.conf\\n\", i }' | "
              "xargs touch && printf 'vm.%0150d = 1\\nvm.x = 2\\n' 0 > 1023-last.conf");
    ck_assert_int_eq(sysctl_writers_scan(root, &w), 0);
    ck_assert_uint_eq(w.n, 2);
    ck_assert_uint_eq(strlen(sysctl_writers_key(&w, 0)), POLICY_SYSCTL_KEY_MAX);
    snprintf(key, sizeof(key), "vm.%0124d", 0);
    ck_assert_str_eq(writer_of(&w, key), "/etc/sysctl.d/1023-last.conf:1");
    ck_assert_str_eq(writer_of(&w, "vm.x"), "/etc/sysctl.d/1023-last.conf:2");
    sysctl_writers_done(&w);

    make_tree(root, sizeof(root), "many-files", "touch etc/sysctl.d/1024-one-more.conf");
    ck_assert_int_eq(sysctl_writers_scan(root, &w), -EFBIG);
    ck_assert_ptr_null(w.e);
}
END_TEST

START_TEST(test_writer_in_report)
{
    struct tuning t;
    char root[512];
    conf_root(root, sizeof(root));
    tuning_init(&t, proc, state, root);
    ck_assert_int_eq(tuning_read(&t, &p), 0);
    ck_assert_str_eq(key(&t, "net.core.somaxconn")->writer, "/etc/sysctl.d/99-sysctl.conf:3");
    struct findings fs = { 0 };
    check_tuning(&t, &p, &fs);
    bool named = false;
    for (size_t i = 0; i < fs.n; i++)
        named |= fs.items[i].hint && strstr(fs.items[i].hint, "/etc/sysctl.d/99-sysctl.conf:3 sets it");
    ck_assert(named);
    findings_done(&fs);
    tuning_done(&t);
}
END_TEST

/* A snapshot is a file on disk: revert re-checks the allowlist and writes nothing else
 * (a kernel.core_pattern slipped into it would otherwise run a program as root). */
START_TEST(test_revert_refuses_tampered_snapshot)
{
    struct tuning t;
    ck_assert_int_eq(tuning_run(&t, proc, state, &p, NULL, TUNING_APPLY), 0);
    tuning_done(&t);
    put("kernel.core_pattern", "core");
    struct tuning_snapshot s;
    ck_assert_int_eq(tuning_snapshot_load(state, &s), 0);
    ck_assert_int_eq(tuning_snapshot_add(&s, "kernel.core_pattern", "|/tmp/evil %p"), 0);
    ck_assert_int_eq(tuning_snapshot_save(state, &s), 0);
    tuning_snapshot_done(&s);

    ck_assert_int_eq(tuning_run(&t, proc, state, NULL, NULL, TUNING_REVERT), -EPERM);
    ck_assert_str_eq(get("kernel.core_pattern"), "core");
    ck_assert_int_eq(key(&t, "kernel.core_pattern")->state, TUNING_STATE_FAILED);
    ck_assert_msg(strstr(key(&t, "kernel.core_pattern")->error, "refused"), "%s",
                  key(&t, "kernel.core_pattern")->error);
    /* The allowed keys are still restored. */
    ck_assert_str_eq(get("net.core.somaxconn"), "4096");
    ck_assert_str_eq(get("vm.zone_reclaim_mode"), "1");
    tuning_done(&t);
}
END_TEST

/* "apply" under tuning.mode: off is refused and writes nothing. */
START_TEST(test_apply_mode_off)
{
    struct policy_errors errs = { 0 };
    struct policy off;
    policy_init_defaults(&off);
    const char *yaml = "tuning:\n  mode: off\n  sysctl:\n    net.core.somaxconn: 8192\n";
    ck_assert_int_eq(policy_load_string(yaml, strlen(yaml), "t.yaml", &off, &errs), 0);
    struct tuning t;
    ck_assert_int_eq(tuning_run(&t, proc, state, &off, NULL, TUNING_APPLY), -ECANCELED);
    ck_assert_str_eq(get("net.core.somaxconn"), "4096");
    struct tuning_snapshot s;
    ck_assert_int_eq(tuning_snapshot_load(state, &s), -ENOENT);
    tuning_done(&t);
    /* Read still works, and says the keys are unmanaged. */
    ck_assert_int_eq(tuning_run(&t, proc, state, &off, NULL, TUNING_READ), 0);
    ck_assert_int_eq(key(&t, "net.core.somaxconn")->state, TUNING_STATE_UNMANAGED);
    tuning_done(&t);
    policy_done(&off);
}
END_TEST

/* Steady drift of one key beside one that holds: one alert, raised once, not a shared
 * alert toggled raised and cleared every cycle ("56 transitions suppressed" in 20 min). */
START_TEST(test_drift_alerts_per_key)
{
    struct alerts a = { 0 };
    struct findings fs = { 0 };
    findings_add(&fs, "tuning.drift", SEVERITY_WARNING, NULL, "134217728", "212992", NULL,
                 "net.core.rmem_max is 212992");
    findings_set_subject(&fs, "net.core.rmem_max");
    findings_add(&fs, "tuning.drift", SEVERITY_OK, NULL, "134217728", "134217728", NULL,
                 "net.core.wmem_max = 134217728");
    findings_set_subject(&fs, "net.core.wmem_max");
    ck_assert_uint_eq(alerts_update(&a, &fs, NULL, 1000000, 0), 1);     /* rmem raised */
    for (usec_t t = 2; t < 10; t++)
        ck_assert_uint_eq(alerts_update(&a, &fs, NULL, t * 1000000, 0), 0);
    findings_done(&fs);
    alerts_done(&a);
}
END_TEST

/* Writes a snapshot of N keys into the state dir. */
static void write_snapshot(size_t n)
{
    char path[400];
    snprintf(path, sizeof(path), "%s/%s", state, TUNING_SNAPSHOT_FILE);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "{\"version\":1,\"boot_id\":\"b\",\"originals\":{");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s\"net.core.k%zu\":\"1\"", i ? "," : "", i);
    fprintf(f, "}}\n");
    ck_assert_int_eq(fclose(f), 0);
}

/* The tuning state takes TUNING_MAX_KEYS keys, a snapshot as many (a revert loads them
 * all), and each refuses one more with -EFBIG. */
START_TEST(test_keys_bounded)
{
    struct tuning t;
    char name[32];
    tuning_init(&t, proc, state, "");
    for (size_t i = 0; i <= TUNING_MAX_KEYS; i++) {
        snprintf(name, sizeof(name), "net.core.k%zu", i);
        ck_assert_int_eq(tuning_add_key(&t, name, "1"), i < TUNING_MAX_KEYS ? 0 : -EFBIG);
    }
    ck_assert_uint_eq(t.n, TUNING_MAX_KEYS);
    ck_assert_str_eq(t.keys[TUNING_MAX_KEYS - 1].key, "net.core.k4095");
    tuning_done(&t);
    struct tuning_snapshot s;
    write_snapshot(TUNING_SNAPSHOT_MAX_KEYS);
    ck_assert_int_eq(tuning_snapshot_load(state, &s), 0);
    ck_assert_uint_eq(s.n, TUNING_SNAPSHOT_MAX_KEYS);
    tuning_snapshot_done(&s);
    write_snapshot(TUNING_SNAPSHOT_MAX_KEYS + 1);
    ck_assert_int_eq(tuning_snapshot_load(state, &s), -EFBIG);
    ck_assert_uint_eq(s.n, 0);
}
END_TEST

/* An output path that is a symlink (/etc/nccl.conf -> /run/fabtune/nccl.conf) is written
 * at its end, atomically, and the link stays: under ProtectSystem=strict, /etc is read-only
 * and a temporary file beside the link could not be made. */
START_TEST(test_write_through_symlink)
{
    char tdir[] = "/tmp/fabtune-link.XXXXXX", path[256], target[256], buf[64];
    ck_assert_ptr_nonnull(mkdtemp(tdir));
    snprintf(path, sizeof(path), "%s/etc", tdir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof(path), "%s/run", tdir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof(path), "%s/etc/nccl.conf", tdir);
    ck_assert_int_eq(symlink("../run/nccl.conf", path), 0);        /* relative, dangling */

    ck_assert_int_eq(write_file_atomic(path, "NCCL_IB_GID_INDEX=3\n", 20, 0644), 0);
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    snprintf(target, sizeof(target), "%s/run/nccl.conf", tdir);
    FILE *f = fopen(target, "re");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
    fclose(f);
    ck_assert_str_eq(buf, "NCCL_IB_GID_INDEX=3\n");
    /* nothing but the link in etc/: no temporary file was made there */
    sh("test \"$(ls %s/etc)\" = nccl.conf", tdir);

    /* Two hops, absolute; then a loop. */
    snprintf(target, sizeof(target), "%s/etc/nccl.conf", tdir);
    snprintf(path, sizeof(path), "%s/nccl-top.conf", tdir);
    ck_assert_int_eq(symlink(target, path), 0);
    ck_assert_int_eq(write_file_atomic(path, "x\n", 2, 0644), 0);
    snprintf(target, sizeof(target), "%s/run/nccl.conf", tdir);
    ck_assert_int_eq(stat(target, &st), 0);
    ck_assert_int_eq(st.st_size, 2);
    snprintf(path, sizeof(path), "%s/loop", tdir);
    ck_assert_int_eq(symlink("loop", path), 0);
    ck_assert_int_eq(write_file_atomic(path, "x\n", 2, 0644), -ELOOP);

    sh("rm -rf %s", tdir);
}
END_TEST

/* A node's rails as the pass hands them over: ens1, ens2 and a VLAN, eth0.100. */
static void rails_fixture(struct rail_netdevs *r, size_t n)
{
    static const char *const names[] = { "ens1", "ens2", "eth0.100" };
    memset(r, 0, sizeof(*r));
    for (size_t i = 0; i < n; i++) {
        rail_netdevs_add(r, names[i]);
        char k[96];
        snprintf(k, sizeof(k), "net.ipv4.conf.%s.arp_ignore", names[i]);
        for (char *c = k + 14; *c != '.' || strncmp(c, ".arp_ignore", 11); c++)
            if (*c == '.')
                *c = '/';
        put(k, "0");
        snprintf(k + strlen(k) - strlen("arp_ignore"), 20, "rp_filter");
        put(k, "1");
    }
}

static void load_rail_policy(struct policy *q)
{
    struct policy_errors errs = { 0 };
    policy_init_defaults(q);
    const char *yaml = "tuning:\n  mode: enforce\n  sysctl:\n    net.core.somaxconn: 8192\n"
                       "    net.ipv4.conf.@rail.arp_ignore: 1\n"
                       "    net.ipv4.conf.@multirail.rp_filter: 2\n"
                       "    net.ipv4.conf.ens2.arp_ignore: 2\n";
    ck_assert_int_eq(policy_load_string(yaml, strlen(yaml), "t.yaml", q, &errs), 0);
}

/* @rail and @multirail keys, expanded for each rail netdev, go through the one transaction:
 * applied, their originals snapshotted, drift seen and re-applied, reverted. A key the
 * policy names literally wins over the expansion. */
START_TEST(test_rail_keys)
{
    struct policy q;
    struct rail_netdevs rails;
    struct tuning t;
    load_rail_policy(&q);
    rails_fixture(&rails, 3);
    ck_assert_int_eq(tuning_run(&t, proc, state, &q, &rails, TUNING_APPLY), 0);
    ck_assert_uint_eq(t.n, 1 + 2 + 3 + 1);     /* somaxconn, @rail (ens2 literal), @multirail x3, ens2 */
    ck_assert_str_eq(get("net.ipv4.conf.ens1.arp_ignore"), "1");
    ck_assert_str_eq(get("net.ipv4.conf.ens2.arp_ignore"), "2");
    ck_assert_str_eq(get("net.ipv4.conf.eth0/100.arp_ignore"), "1");
    ck_assert_str_eq(get("net.ipv4.conf.ens1.rp_filter"), "2");
    ck_assert_str_eq(get("net.ipv4.conf.eth0/100.rp_filter"), "2");
    /* The dotted name's own directory, not eth0/100/. */
    char path[512];
    snprintf(path, sizeof(path), "%s/sys/net/ipv4/conf/eth0.100/rp_filter", proc);
    _cleanup_free_ char *text = NULL;
    ck_assert_int_eq(read_file_full(path, 64, &text, NULL), 0);
    ck_assert_str_eq(text, "2\n");
    ck_assert_int_eq(key(&t, "net.ipv4.conf.eth0/100.arp_ignore")->state, TUNING_STATE_APPLIED);
    ck_assert_str_eq(key(&t, "net.ipv4.conf.eth0/100.arp_ignore")->original, "0");
    tuning_done(&t);

    struct tuning_snapshot s;
    ck_assert_int_eq(tuning_snapshot_load(state, &s), 0);
    ck_assert_str_eq(tuning_snapshot_get(&s, "net.ipv4.conf.ens2.rp_filter"), "1");
    ck_assert_str_eq(tuning_snapshot_get(&s, "net.ipv4.conf.eth0/100.arp_ignore"), "0");
    tuning_snapshot_done(&s);

    /* Drift on one rail's key: seen under verify, written again under enforce. */
    put("net.ipv4.conf.ens1.rp_filter", "1");
    ck_assert_int_eq(tuning_run(&t, proc, state, &q, &rails, TUNING_READ), 0);
    ck_assert_int_eq(key(&t, "net.ipv4.conf.ens1.rp_filter")->state, TUNING_STATE_DRIFT);
    ck_assert_str_eq(key(&t, "net.ipv4.conf.ens1.rp_filter")->original, "1");
    struct findings fs = { 0 };
    check_tuning(&t, &q, &fs);
    ck_assert_uint_eq(fs.n, 7);     /* one finding per key */
    size_t bad = 0;
    for (size_t i = 0; i < fs.n; i++)
        if (fs.items[i].severity != SEVERITY_OK) {
            bad++;
            ck_assert_str_eq(fs.items[i].subject, "net.ipv4.conf.ens1.rp_filter");
            ck_assert_str_eq(fs.items[i].actual, "1");
        }
    ck_assert_uint_eq(bad, 1);
    findings_done(&fs);
    tuning_done(&t);
    ck_assert_int_eq(tuning_run(&t, proc, state, &q, &rails, TUNING_APPLY), 0);
    ck_assert(key(&t, "net.ipv4.conf.ens1.rp_filter")->reapplied);
    ck_assert_str_eq(get("net.ipv4.conf.ens1.rp_filter"), "2");
    tuning_done(&t);

    /* Revert needs no rails: the snapshot holds the expanded keys. */
    ck_assert_int_eq(tuning_run(&t, proc, state, NULL, NULL, TUNING_REVERT), 0);
    ck_assert_str_eq(get("net.ipv4.conf.ens1.arp_ignore"), "0");
    ck_assert_str_eq(get("net.ipv4.conf.ens2.arp_ignore"), "0");
    ck_assert_str_eq(get("net.ipv4.conf.eth0/100.rp_filter"), "1");
    ck_assert_int_eq(key(&t, "net.ipv4.conf.ens1.rp_filter")->state, TUNING_STATE_REVERTED);
    tuning_done(&t);
    policy_done(&q);
}
END_TEST

/* One rail netdev: @rail applies, @multirail names nothing (no key, no write); no rails:
 * neither does. */
START_TEST(test_multirail_needs_two)
{
    struct policy q;
    struct rail_netdevs rails;
    struct tuning t;
    load_rail_policy(&q);
    rails_fixture(&rails, 1);
    ck_assert_int_eq(tuning_run(&t, proc, state, &q, &rails, TUNING_APPLY), 0);
    ck_assert_uint_eq(t.n, 1 + 1 + 1);          /* somaxconn, ens1's @rail key, ens2's literal */
    ck_assert_str_eq(get("net.ipv4.conf.ens1.arp_ignore"), "1");
    ck_assert_str_eq(get("net.ipv4.conf.ens1.rp_filter"), "1");
    for (size_t i = 0; i < t.n; i++)
        ck_assert_ptr_null(strstr(t.keys[i].key, "rp_filter"));
    tuning_done(&t);

    memset(&rails, 0, sizeof(rails));
    ck_assert_int_eq(tuning_run(&t, proc, state, &q, &rails, TUNING_READ), 0);
    ck_assert_uint_eq(t.n, 2);
    ck_assert_str_eq(t.keys[1].key, "net.ipv4.conf.ens2.arp_ignore");
    tuning_done(&t);
    policy_done(&q);
}
END_TEST

/* '/' stands for '.', so a key could spell ".." in the path: such a component is refused,
 * in a read, a write and a tampered snapshot's revert alike. */
START_TEST(test_key_never_leaves_sys)
{
    char buf[64], outside[400];
    snprintf(outside, sizeof(outside), "%s/secret", proc);
    sh("echo keep > %s", outside);
    put("net.core.somaxconn", "4096");
    ck_assert_int_eq(sysctl_read(proc, "net.//.//.secret", buf, sizeof(buf)), -EINVAL);
    ck_assert_int_eq(sysctl_write(proc, "net.//.//.secret", "x"), -EINVAL);
    ck_assert_int_eq(sysctl_read(proc, "net./.core.somaxconn", buf, sizeof(buf)), -EINVAL);
    ck_assert_int_eq(sysctl_read(proc, "net.core.somaxconn", buf, sizeof(buf)), 0);

    struct tuning t;
    ck_assert_int_eq(tuning_run(&t, proc, state, &p, NULL, TUNING_APPLY), 0);
    tuning_done(&t);
    struct tuning_snapshot s;
    ck_assert_int_eq(tuning_snapshot_load(state, &s), 0);
    ck_assert_int_eq(tuning_snapshot_add(&s, "net.//.//.secret", "gone"), 0);
    ck_assert_int_eq(tuning_snapshot_save(state, &s), 0);
    tuning_snapshot_done(&s);
    (void)tuning_run(&t, proc, state, NULL, NULL, TUNING_REVERT);
    ck_assert_int_eq(key(&t, "net.//.//.secret")->state, TUNING_STATE_FAILED);
    ck_assert_ptr_nonnull(strstr(key(&t, "net.//.//.secret")->error, "Invalid argument"));
    tuning_done(&t);
    _cleanup_free_ char *text = NULL;
    ck_assert_int_eq(read_file_full(outside, 64, &text, NULL), 0);
    ck_assert_str_eq(text, "keep\n");
    ck_assert_str_eq(get("net.core.somaxconn"), "4096");   /* the rest is restored */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tuning");
    TCase *tc = tcase_create("procfs-root");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_values_equal);
    tcase_add_test(tc, test_read_only);
    tcase_add_test(tc, test_apply_and_revert);
    tcase_add_test(tc, test_revert_wants_the_policys_value);
    tcase_add_test(tc, test_no_snapshot_no_write);
    tcase_add_test(tc, test_corrupt_snapshot);
    tcase_add_test(tc, test_new_boot);
    tcase_add_test(tc, test_write_failure);
    tcase_add_test(tc, test_other_writers);
    tcase_add_test(tc, test_tuned_includes_read_once);
    tcase_add_test(tc, test_tuned_include_order);
    tcase_add_test(tc, test_sites_bounded);
    tcase_add_test(tc, test_sites_compact);
    tcase_add_test(tc, test_writer_in_report);
    tcase_add_test(tc, test_write_through_symlink);
    tcase_add_test(tc, test_revert_refuses_tampered_snapshot);
    tcase_add_test(tc, test_apply_mode_off);
    tcase_add_test(tc, test_drift_alerts_per_key);
    tcase_add_test(tc, test_keys_bounded);
    tcase_add_test(tc, test_drift_hint_true_in_each_mode);
    tcase_add_test(tc, test_missing_key_warns_with_the_nearest);
    tcase_add_test(tc, test_child_netns_key_not_visible);
    tcase_add_test(tc, test_rail_keys);
    tcase_add_test(tc, test_multirail_needs_two);
    tcase_add_test(tc, test_key_never_leaves_sys);
    suite_add_tcase(s, tc);
    return check_run(s);
}
