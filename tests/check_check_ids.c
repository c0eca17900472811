/* SPDX-License-Identifier: ISC */
/* Tests of the check-id table (src/shared/check_ids.c) against what uses it: every id the
 * checks emit on the fixture trees is a row, every finding row is emitted, fabtuned(8)'s
 * CHECKS list and the generated fabtune-checks(7) name the same ids, every row has its
 * texts for fabtunectl explain, systemd/fabtune.catalog has the same MESSAGE_IDs. */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "baseline.h"
#include "check_ids.h"
#include "check_run.h"
#include "checks.h"
#include "counters.h"
#include "inventory_take.h"
#include "macro.h"
#include "module_pages.h"
#include "fec_fixtures.h"
#include "fec_reply.h"
#include "probes_runner.h"
#include "tuning.h"

static char fixtures[256];

/* A policy that also has neighbours to probe, for probe.peer and probe.peers, a VLAN
 * for the rails, for fabric.vlan, and a congestion-control profile, for qos.cc. */
static const char *const peers_policy =
    "version: 1\nprobes:\n  peers:\n    hosts: [peer-a.invalid, peer-b.invalid]\n"
    "rails:\n  neighbors: {vlan: 100}\n  cc: {profile: driver-defaults}\n";

/* Each row's emitted count, by the row's index. */
static unsigned emitted[256];

static void tally(const struct findings *fs, const char *fixture)
{
    for (size_t i = 0; i < fs->n; i++) {
        const struct check_id *c = check_id_find(fs->items[i].check);
        ck_assert_msg(c, "%s: %s is in no row of the check-id table", fixture, fs->items[i].check);
        ck_assert_msg(c->family != CHECK_FAMILY_DIFF, "%s: %s is a diff-only row", fixture, c->id);
        emitted[c - check_ids]++;
    }
}

/* Every state a sysctl key can be judged in, one key each in turn. */
static void fake_tuning(const struct policy *p, struct tuning *t)
{
    static const enum tuning_state states[] = { TUNING_STATE_APPLIED, TUNING_STATE_DRIFT,
                                                TUNING_STATE_MISSING, TUNING_STATE_FAILED };
    tuning_init(t, "/proc", NULL, "");
    for (size_t i = 0; i < p->tuning.n_sysctl; i++) {
        ck_assert_int_eq(tuning_add_key(t, p->tuning.sysctl[i].key, p->tuning.sysctl[i].value), 0);
        t->keys[i].state = states[i % ARRAY_SIZE(states)];
    }
}

/* A result that ran: failed when FAIL, else 10 us and 1 GB/s. */
static void fake_result(struct probe_result *r, bool fail)
{
    r->ran = true;
    if (fail) {
        probe_fail(r, -ETIMEDOUT, "no answer");
        return;
    }
    r->latency.n = 1;
    r->latency.p50 = r->latency.p99 = 10e-6;
    r->bandwidth = 1e9;
}

/* The plan of the inventory's probes, every other target's probes failed. */
static void fake_probes(const struct inventory *inv, const struct policy *p, struct probe_run *run)
{
    ck_assert_int_eq(probes_plan(inv, p, run), 0);
    for (size_t i = 0; i < run->n; i++) {
        struct probe_target *t = &run->targets[i];
        fake_result(&t->result[PROBE_RDMA_LATENCY], i % 2);
        fake_result(&t->result[PROBE_RDMA_BANDWIDTH], i % 2);
        fake_result(&t->result[PROBE_TCP_LATENCY], i % 2);
        fake_result(&t->result[PROBE_TCP_BANDWIDTH], i % 2);
    }
    for (size_t i = 0; i < run->n_cross; i++) {
        fake_result(&run->cross[i].lat, false);
        fake_result(&run->cross[i].bw, false);
    }
    for (size_t i = 0; i < run->n_peers; i++) {
        fake_result(&run->peers[i].result[PROBE_TCP_LATENCY], i % 2);
        fake_result(&run->peers[i].result[PROBE_TCP_BANDWIDTH], false);
        /* route.isolation: the peer's links answer did not come (a probe run measures it). */
        if (run->peers[i].has_src)
            snprintf(run->peers[i].isolation.error, sizeof(run->peers[i].isolation.error),
                     "no links answer from the peer");
    }
}

/* The first rail's module, as the live source reads it: no tree holds one (link.module). */
static void fake_module(struct inventory *inv)
{
    char path[512];
    int line;
    struct module_eeprom m;
    if (inv->n_rails == 0)
        return;
    snprintf(path, sizeof(path), "%s/tests/fixtures/module/qsfp28-sr4.pages", TEST_SRCDIR);
    ck_assert_int_eq(module_pages_read(path, &m, &line), 0);
    inv->rails[0].module.read = true;
    inv->rails[0].module.known = module_eeprom_decode(&m, &inv->rails[0].module.info) == 0;
}

/* The first rail's FEC, as the live source reads it from an RS-FEC 400G port (tests/
 * fec_fixtures.h): no tree holds one (link.fec, link.ber). */
static void fake_fec(struct inventory *inv)
{
    static _Alignas(8) unsigned char b[1024];
    if (inv->n_rails == 0)
        return;
    size_t n = fec_fixture_build("rs400", "eth0", b);
    struct fec_state *f = &inv->rails[0].fec;
    f->read = true;
    f->known = fec_reply_parse(b, n, &f->info, f->why, sizeof(f->why)) == 0;
}

/* A job as the daemon keeps it: a RAS reply folded and its start GIDs recorded, so that
 * each job.* id comes out of checks_run. */
static void fake_jobs(const struct inventory *inv, struct jobs *js)
{
    struct job_proc proc = { .pid = 7, .env_read = true };
    memset(js, 0, sizeof(*js));
    ck_assert_int_eq(job_proc_env_add(&proc, "NCCL_IB_TC", "0"), 0);
    ck_assert_int_eq(jobs_add_proc(js, JOB_SLURM, "1", &proc), 0);
    js->jobs[0].ras.replies = 1;
    ck_assert_int_eq(job_record_gids(&js->jobs[0], inv), 0);
}

/* Every check group on FIXTURE's tree, under the built-in policy (conf/fabtune.yaml, with
 * its sysctl profile) or POLICY_YAML. */
static void check_tree(const char *fixture, const char *policy_yaml)
{
    struct policy p;
    struct policy_errors errs = { 0 };
    struct inventory inv;
    struct counter_state st = { .snapshot = true };
    /* The daemon's, which read the kernel log: counters.sticky and nic.* are ok on each rail. */
    struct link_memory links = { .kernel_read = true };
    struct tuning t;
    struct probe_run run;
    struct baselines all = { 0 };
    struct findings fs = { 0 };
    char sys[512], proc[512];
    policy_init_defaults(&p);
    if (policy_yaml)
        ck_assert_int_eq(policy_load_string(policy_yaml, strlen(policy_yaml), "t.yaml", &p, &errs), 0);
    else
        ck_assert_int_eq(policy_load_builtin(&p, &errs), 0);
    snprintf(sys, sizeof(sys), "%s/%s/sys", fixtures, fixture);
    snprintf(proc, sizeof(proc), "%s/%s/proc", fixtures, fixture);
    ck_assert_int_eq(inventory_take(sys, proc, &p, &inv), 0);
    fake_module(&inv);
    fake_fec(&inv);
    const struct counter_limits lim = counter_limits_of(&p);
    (void)counters_fold_inventory(&st, &lim, "snapshot", &inv, p.checks.flaps.window);
    fake_tuning(&p, &t);
    fake_probes(&inv, &p, &run);
    baselines_fold(&all, &run, &p);
    /* As the daemon judges its state directory (--once has none to judge). */
    struct persistence kept = { .judged = true, .dir = "/var/lib/fabtune" };
    struct jobs js;
    fake_jobs(&inv, &js);
    checks_run(&(struct check_input){ .inventory = &inv, .policy = &p, .counters = &st,
                                      .links = &links, .persistence = &kept, .tuning = &t, .probes = &run,
                                      .baselines = &all, .jobs = &js }, &fs);
    jobs_done(&js);
    tally(&fs, fixture);
    findings_done(&fs);
    baselines_done(&all);
    probes_done(&run);
    tuning_done(&t);
    counters_done(&st);
    inventory_done(&inv);
    policy_done(&p);
}

START_TEST(test_emitted_ids_are_rows)
{
    DIR *d = opendir(fixtures);
    struct dirent *e;
    struct stat sb;
    char sys[600];
    size_t trees = 0;
    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d))) {
        snprintf(sys, sizeof(sys), "%s/%s/sys", fixtures, e->d_name);
        if (e->d_name[0] == '.' || stat(sys, &sb) < 0 || !S_ISDIR(sb.st_mode))
            continue;
        check_tree(e->d_name, NULL);
        check_tree(e->d_name, peers_policy);
        trees++;
    }
    closedir(d);
    ck_assert_uint_ge(trees, 10);
    /* And no row is stale: each finding id came out of some tree. */
    for (size_t i = 0; i < check_ids_count; i++)
        ck_assert_msg(check_ids[i].family == CHECK_FAMILY_DIFF || emitted[i] > 0,
                      "%s: no check emitted it on %zu trees", check_ids[i].id, trees);
}
END_TEST

/* ID's position in a list of N, or N. */
static size_t index_of(char (*list)[64], size_t n, const char *id)
{
    size_t i = 0;
    while (i < n && !streq(list[i], id))
        i++;
    return i;
}

/* The ids a man page's SECTION ("CHECKS\n") heads its entries with (".TP" then ".B ID"
 * or ".BR ID ", " ID ..."): fabtuned(8)'s, or the generated fabtune-checks(7)'s. */
static size_t man_check_ids(const char *path, const char *section, char (*ret)[64], size_t max)
{
    char line[1024], head_line[80];
    bool in_checks = false, head = false;
    size_t n = 0;
    snprintf(head_line, sizeof(head_line), ".SH %s", section);
    FILE *f = fopen(path, "re");
    ck_assert_msg(f, "%s", path);
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, ".SH ", 4) == 0)
            in_checks = streq(line, head_line);
        bool is_head = head;
        head = in_checks && streq(line, ".TP\n");
        if (!is_head || (strncmp(line, ".B ", 3) != 0 && strncmp(line, ".BR ", 4) != 0))
            continue;
        for (char *w = strtok(strchr(line, ' '), " \",\n"); w; w = strtok(NULL, " \",\n")) {
            ck_assert_uint_lt(n, max);
            snprintf(ret[n++], sizeof(ret[0]), "%s", w);
        }
    }
    fclose(f);
    return n;
}

static void fabtuned_page(char *path, size_t len)
{
    snprintf(path, len, "%s/man/fabtuned.8", TEST_SRCDIR);
}

/* fabtune-checks(7) as the build wrote it (man/gen-fabtune-checks). */
static void checks_page(char *path, size_t len)
{
    const char *b = getenv("top_builddir");
    snprintf(path, len, "%s/man/fabtune-checks.7", b && *b ? b : ".");
}

START_TEST(test_man_page_lists_the_rows)
{
    char listed[128][64], path[512];
    fabtuned_page(path, sizeof(path));
    size_t n = man_check_ids(path, "CHECKS\n", listed, ARRAY_SIZE(listed));
    ck_assert_uint_ge(n, 40);
    for (size_t i = 0; i < n; i++) {
        const struct check_id *c = check_id_find(listed[i]);
        ck_assert_msg(c && c->family != CHECK_FAMILY_DIFF,
                      "fabtuned(8) lists %s, which the check-id table lacks", listed[i]);
        ck_assert_msg(index_of(listed, i, listed[i]) == i, "fabtuned(8) lists %s twice", listed[i]);
    }
    for (size_t i = 0; i < check_ids_count; i++)
        ck_assert_msg(check_ids[i].family == CHECK_FAMILY_DIFF || index_of(listed, n, check_ids[i].id) < n,
                      "fabtuned(8)'s CHECKS lacks %s", check_ids[i].id);
}
END_TEST

START_TEST(test_catalog_has_the_families)
{
    char path[512], line[256], ids[32][64];
    size_t n = 0;
    snprintf(path, sizeof(path), "%s/systemd/fabtune.catalog", TEST_SRCDIR);
    FILE *f = fopen(path, "re");
    ck_assert_msg(f, "%s", path);
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, "-- ", 3) == 0) {
            ck_assert_uint_lt(n, ARRAY_SIZE(ids));
            snprintf(ids[n++], sizeof(ids[0]), "%.32s", line + 3);
        }
    fclose(f);
    for (size_t i = 0; i < n; i++) {
        enum check_family fam = 0;
        while (fam < CHECK_FAMILY_COUNT && !(check_family_message_id(fam) &&
                                             streq(check_family_message_id(fam), ids[i])))
            fam++;
        ck_assert_msg(fam < CHECK_FAMILY_COUNT, "the catalog's %s is no family's", ids[i]);
    }
    for (enum check_family fam = 0; fam < CHECK_FAMILY_COUNT; fam++) {
        const char *id = check_family_message_id(fam);
        ck_assert_msg(fam == CHECK_FAMILY_DIFF ? !id : id && index_of(ids, n, id) < n,
                      "family %s: MESSAGE_ID %s is not in the catalog", check_family_name(fam),
                      id ? id : "(none)");
    }
}
END_TEST

/* The generated fabtune-checks(7) names each row once, in CHECKS or, for a diff-only row,
 * DIFFERENCES: the same finding ids as fabtuned(8)'s CHECKS (test_man_page_lists_the_rows
 * holds that one to the table). */
START_TEST(test_checks_page_lists_the_rows)
{
    char checks[128][64], diffs[16][64], manual[128][64], path[512];
    checks_page(path, sizeof(path));
    size_t n = man_check_ids(path, "CHECKS\n", checks, ARRAY_SIZE(checks));
    size_t nd = man_check_ids(path, "DIFFERENCES\n", diffs, ARRAY_SIZE(diffs));
    fabtuned_page(path, sizeof(path));
    size_t nm = man_check_ids(path, "CHECKS\n", manual, ARRAY_SIZE(manual));
    ck_assert_uint_eq(n + nd, check_ids_count);
    ck_assert_uint_eq(n, nm);
    for (size_t i = 0; i < check_ids_count; i++) {
        const char *id = check_ids[i].id;
        bool diff = check_ids[i].family == CHECK_FAMILY_DIFF;
        ck_assert_msg(index_of(diff ? diffs : checks, diff ? nd : n, id) < (diff ? nd : n),
                      "fabtune-checks(7) lacks %s under %s", id, diff ? "DIFFERENCES" : "CHECKS");
        ck_assert_msg(diff || index_of(manual, nm, id) < nm, "fabtuned(8) lacks %s", id);
    }
}
END_TEST

/* Each row explains itself, as fabtunectl explain and fabtune-checks(7) print it: a
 * meaning, what it reads, expects and what to do, each one line of plain text, a line or
 * two long; and the id fits fabtunectl's check column. */
START_TEST(test_rows_explained)
{
    for (size_t i = 0; i < check_ids_count; i++) {
        const struct check_id *c = &check_ids[i];
        const char *texts[] = { c->meaning, c->reads, c->expects, c->fix };
        ck_assert_msg(strlen(c->id) <= CHECK_ID_WIDTH, "%s is wider than the column", c->id);
        for (size_t k = 0; k < ARRAY_SIZE(texts); k++) {
            const char *t = texts[k];
            ck_assert_msg(t && *t, "%s: text %zu is missing", c->id, k);
            ck_assert_msg(strlen(t) <= CHECK_ID_TEXT_MAX, "%s: text %zu is %zu bytes", c->id, k,
                          strlen(t));
            ck_assert_msg(!strchr(t, '\n') && t[strlen(t) - 1] != '.' && t[0] != ' ',
                          "%s: text %zu: '%s'", c->id, k, t);
        }
    }
}
END_TEST

/* What fabtunectl explain and checks match a pattern by, and the "did you mean". */
START_TEST(test_matches_and_closest)
{
    char near[64];
    ck_assert(check_id_matches("route.arp", "route.arp"));
    ck_assert(check_id_matches("route.arp", "route"));
    ck_assert(check_id_matches("route.arp", "route."));
    ck_assert(check_id_matches("probe.rdma.latency", "probe.rdma"));
    ck_assert(!check_id_matches("route.arp", "rout"));
    ck_assert(!check_id_matches("route.arp", "."));
    ck_assert(!check_id_matches("route.arp", ""));
    ck_assert(check_id_known("gid") && check_id_known("port.state") && !check_id_known("gi"));
    ck_assert(check_id_closest("rout.arp", near, sizeof(near)));
    ck_assert_str_eq(near, "route.arp");
    ck_assert(check_id_closest("rout", near, sizeof(near)));
    ck_assert_str_eq(near, "route");
    ck_assert(check_id_closest("probe.rdma.latncy", near, sizeof(near)));
    ck_assert_str_eq(near, "probe.rdma.latency");
    ck_assert(!check_id_closest("xyzzy", near, sizeof(near)));
}
END_TEST

/* Diff fields: each row's fields are distinct from every other row's. */
START_TEST(test_diff_fields_unique)
{
    for (size_t i = 0; i < check_ids_count; i++)
        for (size_t k = 0; k < CHECK_ID_DIFF_FIELDS && check_ids[i].diff_fields[k]; k++)
            for (size_t j = 0; j < check_ids_count; j++)
                for (size_t l = 0; l < CHECK_ID_DIFF_FIELDS && check_ids[j].diff_fields[l]; l++)
                    ck_assert_msg((i == j && k == l) ||
                                  !streq(check_ids[i].diff_fields[k], check_ids[j].diff_fields[l]),
                                  "%s and %s both compare %s", check_ids[i].id, check_ids[j].id,
                                  check_ids[i].diff_fields[k]);
}
END_TEST

static Suite *check_ids_suite(void)
{
    Suite *s = suite_create("check_ids");
    TCase *tc = tcase_create("table");
    tcase_add_test(tc, test_emitted_ids_are_rows);
    tcase_add_test(tc, test_man_page_lists_the_rows);
    tcase_add_test(tc, test_checks_page_lists_the_rows);
    tcase_add_test(tc, test_rows_explained);
    tcase_add_test(tc, test_matches_and_closest);
    tcase_add_test(tc, test_catalog_has_the_families);
    tcase_add_test(tc, test_diff_fields_unique);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (check_shared_fixtures(fixtures, sizeof(fixtures)) < 0)
        return 99;
    return check_run(check_ids_suite());
}
