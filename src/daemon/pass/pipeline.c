/* SPDX-License-Identifier: ISC */
/* The one check pass: sources -> inventory -> checks -> findings, with the state that
 * judges rates and regressions. Logs only what the caller cannot see in the report. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "baseline_store.h"
#include "checks.h"
#include "counters_store.h"
#include "link_store.h"
#include "log.h"
#include "macro.h"
#include "nccl.h"
#include "pipeline.h"
#include "rail_sysctl.h"
#include "snapshot_read.h"
#include "state_file.h"
#include "inventory_take.h"
#include "source_counters.h"
#include "source_kernel_log.h"
#include "strutil.h"
#include "sysfs.h"
#include "tuning_snapshot.h"
#include "tuning_transaction.h"

#define COUNTERS_SAVE "save the counter state"
#define LINKS_SAVE "save the link memory"

/* What a pass hands the checks beyond the inventory and the policy, and the state it
 * keeps for them when it has none of the daemon's (--once, a snapshot). */
struct pass_state {
    struct check_input checks;
    struct counter_state own_counters;
    struct link_memory *links;          /* the daemon's or own_links; NULL: none */
    struct link_memory own_links;
    bool links_kept;                    /* a snapshot's memory: judged, never saved */
    struct baselines own_baselines;
};

/* A state file's save, WHAT ("save the counter state"), in the report's persistence (the
 * host.state_dir finding); logged here only where no daemon keeps that state. */
static void saved(const struct pipeline_input *in, struct report *r, int err, const char *what)
{
    if (err < 0 && !in->persistence)
        log_warning_errno(err, "Cannot %s in %s: %m", what, in->state_dir);
    if (err < 0) {
        r->persistence.write_error = err;
        strscpy(r->persistence.failed, what, sizeof(r->persistence.failed));
    } else if (streq(r->persistence.failed, what)) {
        r->persistence.write_error = 0;     /* it works again */
    }
}

/* A state file this pass could not read for want of permission (a user's --once): the
 * report says so, and what starts anew without it. Other errors are logged by the caller. */
static void note_unreadable(const struct pipeline_input *in, struct report *r, int err,
                            const char *file, const char *effect)
{
    if (err == -EACCES || err == -EPERM)
        report_note_unread(r, "%s/%s: %s; %s", in->state_dir, file, errno_text(-err), effect);
}

/* Rates need the previous sample. A snapshot analysed once is one sample of another node
 * (or time), which neither reads nor writes this node's counter state; the daemon samples
 * its tree, live or a --sysfs-root, again and again. */
static void counters_pass(const struct pipeline_input *in, struct report *r,
                          struct pass_state *s)
{
    const struct policy *p = in->policy;
    const struct counter_limits lim = counter_limits_of(p);  /* the daemon's, --once's */
    struct counter_state *st = in->memory ? &in->memory->counters : NULL;
    struct counter_state *own = &s->own_counters;
    char boot_id[40];
    int err;
    if (r->inventory.n_rails == 0)
        return;
    if (!st && (in->offline || r->inventory.source == INVENTORY_OFFLINE)) {
        own->snapshot = true;
        (void)counters_fold_inventory(own, &lim, "snapshot", &r->inventory, p->checks.flaps.window);
        s->checks.counters = own;
        return;
    }
    if (!st) {
        st = own;
        if ((err = counters_load(in->state_dir, st)) < 0) {
            log_warning_errno(err, "Cannot read the counter state in %s (%m); starting anew",
                              in->state_dir);
            note_unreadable(in, r, err, COUNTER_FILE, "the counters' rates start anew");
        }
        source_boot_id(in->procfs_root, boot_id, sizeof(boot_id));
    }
    if ((err = counters_fold_inventory(st, &lim, st == own ? boot_id : in->boot_id,
                                       &r->inventory, p->checks.flaps.window)) < 0)
        log_warning_errno(err, "Cannot fold the counters: %m");
    if (!in->state_read_only)
        saved(in, r, counters_save(in->state_dir, st), COUNTERS_SAVE);
    s->checks.counters = st;
}

/* A snapshot's link memory: the daemon's file it kept, judged at the time it was taken,
 * never observed (one sample has no rise) nor saved. None when it kept no file or time. */
static void links_of_snapshot(const struct pipeline_input *in, struct pass_state *s)
{
    struct link_memory *m = &s->own_links;
    uint64_t wall, boottime;
    char *text = NULL, boot_id[LINK_BOOT_ID_MAX];
    size_t len;
    int err;
    if (snapshot_read_taken(in->sysfs_root, &wall, &boottime) < 0 ||
        snapshot_read_link_memory(in->sysfs_root, STATE_FILE_MAX, &text, &len) < 0)
        return;
    err = link_store_parse(text, m);
    free(text);
    if (err < 0) {
        log_warning_errno(err, "The snapshot's link memory (" LINK_STORE_FILE ") is damaged "
                          "(%m); it is left out");
        return;
    }
    m->now_wall = wall;
    m->now_boottime = boottime;
    /* The snapshot's boot time is of the boot it was taken in, which the file may not be:
     * after a reboot, before the daemon's first pass, it is the old boot's. Its events are
     * then aged on the wall clock, as link_memory_observe() would after the reboot. */
    if (in->procfs_given) {
        source_boot_id(in->procfs_root, boot_id, sizeof(boot_id));
        if (!streq(boot_id, "unknown"))
            strscpy(m->boot_id, boot_id, sizeof(m->boot_id));
    }
    s->links = m;
    s->checks.links = m;
    s->links_kept = true;
}

/* What the kernel printed since the last pass, about this node's rails: read where the
 * daemon or --once judges this node (the daemon on a --sysfs-root tree too: its kernel is
 * this one), never for another node's tree. Only the pass touches the memory (lent to it:
 * pipeline.h's pass_memory). */
static void kernel_log_pass(const struct pipeline_input *in, struct report *r,
                            struct link_memory *m)
{
    static bool told;       /* passes run one at a time: said once per process */
    struct kernel_log_paths paths;
    if (in->offline)
        return;
    source_kernel_log_paths(&paths);
    int err = source_kernel_log_read(&paths, &r->inventory, m);
    if (err < 0 && !told) {
        told = true;
        log_warning_errno(err, "Cannot read the kernel log (%s, %s): %m; nic.* is not judged",
                          paths.journal ? "the journal" : "no journald", paths.kmsg);
    }
}

/* Each rail gone from the inventory: is its PCI function still listed (the driver let it
 * go), or did the bus lose it? Read where the tree is this node's or its copy, as the
 * inventory is (rails.gone says it). */
static void gone_pass(const struct pipeline_input *in, struct link_memory *m)
{
    for (size_t i = 0; i < m->n; i++) {
        struct rail_memory *rm = &m->rails[i];
        if (!rm->absent_since || !rm->pci_addr[0])
            continue;
        rm->pci_known = true;
        rm->pci_listed = sysfs_exists(in->sysfs_root, "bus/pci/devices/%s", rm->pci_addr) > 0;
    }
}

/* The link's memory sees this pass's carrier and link-down counts and the counters' peak
 * rates, under the counters' boot id (a snapshot: the memory it kept, as it was). */
static void links_pass(const struct pipeline_input *in, struct report *r, struct pass_state *s)
{
    const struct counter_state *st = s->checks.counters;
    const struct counter_limits lim = counter_limits_of(in->policy);
    struct link_memory *m = in->memory ? &in->memory->links : NULL;
    char boot_id[40];
    int err;
    /* No rails, so no counters: the daemon's memory (or --once's on this node, never on
     * another's tree) still sees every rail it kept gone (rails.gone: the only rail of a
     * node can leave). */
    bool none_here = !st && r->inventory.n_rails == 0 &&
                     (in->memory || (!in->offline && r->inventory.source != INVENTORY_OFFLINE));
    if (!st && !none_here)
        return;
    if (st && r->inventory.n_rails == 0)
        return;
    if (none_here && in->memory)
        strscpy(boot_id, in->boot_id, sizeof(boot_id));
    else if (none_here)
        source_boot_id(in->procfs_root, boot_id, sizeof(boot_id));
    if (st && st->snapshot) {
        links_of_snapshot(in, s);
        return;
    }
    if (!m) {
        m = &s->own_links;
        if ((err = link_store_load(in->state_dir, m)) < 0) {
            log_warning_errno(err, "Cannot read the link memory %s/" LINK_STORE_FILE " (%m); "
                              "its history starts anew", in->state_dir);
            note_unreadable(in, r, err, LINK_STORE_FILE, "the links' history starts anew");
        }
    }
    err = link_memory_observe(m, st ? st->boot_id : boot_id, now_usec(CLOCK_BOOTTIME),
                              now_usec(CLOCK_REALTIME), &r->inventory, st, &lim);
    if (err >= 0)
        err = link_memory_observe_modules(m, m->now_wall, &r->inventory,
                                          in->policy->checks.module.rx_power_window);
    if (err < 0)
        log_warning_errno(err, "Cannot keep the link memory: %m");
    gone_pass(in, m);
    kernel_log_pass(in, r, m);
    s->links = m;
    s->checks.links = m;
}

/* After the checks: their warnings' raises join the memory, which is saved. */
static void links_keep(const struct pipeline_input *in, struct report *r, struct pass_state *s)
{
    int err;
    if (!s->links)
        return;
    if (s->links_kept) {
        report_keep_links(r, s->links);
        return;
    }
    if ((err = link_memory_note_findings(s->links, &r->findings)) < 0)
        log_warning_errno(err, "Cannot keep the link memory: %m");
    if (!in->state_read_only)
        saved(in, r, link_store_save(in->state_dir, s->links), LINKS_SAVE);
    report_keep_links(r, s->links);
}

static void tuning_pass(const struct pipeline_input *in, struct report *r, struct pass_state *s)
{
    if (in->offline && !in->procfs_given)
        return;     /* no sysctls in a sysfs tree: this host's are not the node's */
    enum tuning_action a = in->offline || in->tuning_suspended ? TUNING_READ : in->tuning;
    struct rail_netdevs rails;
    rail_netdevs_from_inventory(&r->inventory, &rails);
    int err = tuning_run(&r->tuning, in->procfs_root, in->state_dir, in->policy, &rails, a);
    if (err == -ECANCELED) {
        log_warning("tuning.mode is off in the policy: nothing is applied");
        tuning_done(&r->tuning);
        err = tuning_run(&r->tuning, in->procfs_root, in->state_dir, in->policy, &rails,
                         TUNING_READ);
    }
    r->tuning.under_daemon = in->daemon_pass || in->daemon_runs;
    r->tuning.daemon_pass = in->daemon_pass;
    if (err < 0 && r->tuning.n == 0)
        log_warning_errno(err, "Cannot take the sysctl profile's state: %m");
    if (!in->offline)
        note_unreadable(in, r, r->tuning.originals_err, TUNING_SNAPSHOT_FILE,
                        "the sysctls' ORIGINAL is unknown");
    for (size_t i = 0; i < r->tuning.n; i++) {
        const struct tuning_key *k = &r->tuning.keys[i];
        if (k->state == TUNING_STATE_FAILED && !k->write_failed &&
            (k->err == -EACCES || k->err == -EPERM))
            report_note_unread(r, "sysctl %s: %s; its state is unknown", k->key,
                               errno_text(-k->err));
    }
    if (in->offline)
        tuning_mark_snapshot(&r->tuning);
    s->checks.tuning = &r->tuning;
}

/* --once probes now, in the worker thread the daemon uses, joined; the baselines and
 * their state machine persist in the state dir across runs. */
static void probe_in_worker(const struct pipeline_input *in, struct report *r,
                            struct pass_state *s)
{
    struct probe_job *job;
    struct baselines *all = &s->own_baselines;
    int err = probes_plan(&r->inventory, in->policy, &r->probes);
    if (err == 0)
        err = probes_start(&r->probes, -1, &job);
    if (err < 0) {
        log_error_errno(err, "Cannot run the probes: %m");
        return;
    }
    probes_join(job);
    r->probed = true;
    s->checks.probes = &r->probes;
    if ((err = baselines_load(in->state_dir, all)) < 0) {
        log_warning_errno(err, "Cannot read the probe baselines in %s (%m); starting anew",
                          in->state_dir);
        note_unreadable(in, r, err, BASELINE_FILE, "the probes' baselines are learned anew");
        baselines_done(all);
    }
    /* Read-only (--once without --apply): the baselines learned here stay in memory. */
    baselines_fold(all, &r->probes, in->policy);
    if (!in->state_read_only && (err = baselines_save(in->state_dir, all)) < 0)
        log_warning_errno(err, "Cannot save the probe baselines in %s: %m", in->state_dir);
    s->checks.baselines = all;
    report_keep_regressions(r, all, &r->probes);
}

static void probes_pass(const struct pipeline_input *in, struct report *r, struct pass_state *s)
{
    if (in->offline) {      /* this machine's probes say nothing of the node the tree comes from */
        strscpy(r->why_not_probed, "a captured tree: this machine's probes say nothing of it",
                sizeof(r->why_not_probed));
        return;
    }
    if (in->run_probes) {
        probe_in_worker(in, r, s);
        return;
    }
    if (!in->probes || probes_copy(in->probes, &r->probes) < 0) {
        strscpy(r->why_not_probed, !in->policy->probes.enabled ? "probes.enabled is false in the policy"
                                   : in->daemon_pass ? "no probe run has finished yet" : "--no-probes",
                sizeof(r->why_not_probed));
        return;
    }
    r->probed = true;
    s->checks.probes = &r->probes;
    if (in->baselines) {
        s->checks.baselines = in->baselines;
        report_keep_regressions(r, in->baselines, &r->probes);
    }
}

/* The jobs the daemon's watch found, the report's own copy, judged with the GID moves. */
static void jobs_pass(const struct pipeline_input *in, struct report *r, struct pass_state *s)
{
    if (!in->jobs)
        return;
    if (jobs_copy(in->jobs, &r->jobs) < 0) {
        log_warning("Cannot judge the NCCL jobs in this pass: out of memory");
        return;
    }
    r->jobs_watched = true;
    /* A job seen for the first time: the GIDs its NCCL takes now are its start GIDs
     * (job.gid_drift judges against them from this pass on; the loop keeps them). */
    for (size_t i = 0; i < r->jobs.n; i++)
        if (job_record_gids(&r->jobs.jobs[i], &r->inventory) < 0)
            log_warning("Cannot record the GIDs of an NCCL job: out of memory");
    s->checks.jobs = &r->jobs;
    s->checks.gid_moves = in->gid_moves;
    s->checks.n_gid_moves = in->n_gid_moves;
}

/* Every check, once everything they judge is in. */
static void judge(const struct pipeline_input *in, struct report *r, const struct pass_state *s)
{
    checks_run(&s->checks, &r->findings);
    if (s->checks.counters)
        report_keep_rates(r, s->checks.counters);
}

/* The analysed node's name and kernel: this host's live, the tree's own offline. */
static void identify(const struct pipeline_input *in, struct report *r)
{
    struct utsname u;
    if (!in->offline) {
        if (gethostname(r->hostname, sizeof(r->hostname) - 1) < 0)
            snprintf(r->hostname, sizeof(r->hostname), "unknown");
        if (uname(&u) == 0)
            strscpy(r->kernel, u.release, sizeof(r->kernel));
        return;
    }
    snprintf(r->hostname, sizeof(r->hostname), "unknown (a captured tree)");
    snprintf(r->kernel, sizeof(r->kernel), "unknown");
    if (!in->procfs_given)
        return;
    (void)sysfs_read_line(in->procfs_root, r->hostname, sizeof(r->hostname), "sys/kernel/hostname");
    (void)sysfs_read_line(in->procfs_root, r->kernel, sizeof(r->kernel), "sys/kernel/osrelease");
}

int pipeline_run(const struct pipeline_input *in, struct report *r)
{
    struct pass_state s = { .checks = { .inventory = &r->inventory, .policy = in->policy } };
    report_init(r, in->policy, in->policy_source);
    identify(in, r);
    int err = inventory_take_kept(in->sysfs_root,
                                  in->offline && !in->procfs_given ? NULL : in->procfs_root,
                                  in->policy, in->memory ? &in->memory->fw_answers : NULL,
                                  &r->inventory);
    if (err < 0)
        return err;
    if (in->persistence)
        r->persistence = *in->persistence;
    s.checks.persistence = &r->persistence;
    counters_pass(in, r, &s);
    links_pass(in, r, &s);
    tuning_pass(in, r, &s);
    probes_pass(in, r, &s);
    jobs_pass(in, r, &s);
    judge(in, r, &s);
    links_keep(in, r, &s);
    counters_done(&s.own_counters);
    link_memory_done(&s.own_links);
    baselines_done(&s.own_baselines);
    nccl_contract_compute(&r->inventory, in->policy, &r->nccl);
    report_finish(r);
    return 0;
}
