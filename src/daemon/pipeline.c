/* SPDX-License-Identifier: ISC */
/* The one check pass: sources -> inventory -> checks -> findings, with the state that
 * judges rates and regressions. Logs only what the caller cannot see in the report. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "checks.h"
#include "log.h"
#include "nccl.h"
#include "pipeline.h"
#include "inventory_take.h"
#include "source_counters.h"
#include "sysfs.h"

/* Rates need the previous sample. A snapshot analysed once is one sample of another node
 * (or time), which neither reads nor writes this node's counter state; the daemon samples
 * its tree, live or a --sysfs-root, again and again. */
static void counters_pass(const struct pipeline_input *in, struct report *r)
{
    const struct policy *p = in->policy;
    struct counter_state own;
    struct counter_state *st = in->counters;
    char boot_id[40];
    int err;
    if (r->inventory.n_rails == 0)
        return;
    if (!st && (in->offline || r->inventory.source == INVENTORY_OFFLINE)) {
        memset(&own, 0, sizeof(own));
        own.snapshot = true;
        (void)counters_fold_inventory(&own, "snapshot", &r->inventory, p->checks.flaps.window);
        check_counters(&r->inventory, &own, p, &r->findings);
        report_keep_rates(r, &own);
        counters_done(&own);
        return;
    }
    if (!st) {
        st = &own;
        if ((err = counters_load(in->state_dir, st)) < 0)
            log_warning_errno(err, "Cannot read the counter state in %s (%m); starting anew",
                              in->state_dir);
        source_boot_id(in->procfs_root, boot_id, sizeof(boot_id));
    }
    if (in->shared)
        pthread_mutex_lock(&in->shared->lock);
    if ((err = counters_fold_inventory(st, st == &own ? boot_id : in->boot_id, &r->inventory,
                                       p->checks.flaps.window)) < 0)
        log_warning_errno(err, "Cannot fold the counters: %m");
    check_counters(&r->inventory, st, p, &r->findings);
    report_keep_rates(r, st);
    if ((err = counters_save(in->state_dir, st)) < 0)
        log_warning_errno(err, "Cannot save the counter state in %s: %m", in->state_dir);
    if (in->shared)
        pthread_mutex_unlock(&in->shared->lock);
    if (st == &own)
        counters_done(st);
}

static void tuning_pass(const struct pipeline_input *in, struct report *r)
{
    if (in->offline && !in->procfs_given)
        return;     /* no sysctls in a sysfs tree: this host's are not the node's */
    if (in->shared)
        pthread_mutex_lock(&in->shared->lock);
    enum tuning_action a = in->offline || (in->shared && in->shared->tuning_suspended)
                           ? TUNING_READ : in->tuning;
    int err = tuning_run(&r->tuning, in->procfs_root, in->state_dir, in->policy, a);
    if (err == -ECANCELED) {
        log_warning("tuning.mode is off in the policy: nothing is applied");
        tuning_done(&r->tuning);
        err = tuning_run(&r->tuning, in->procfs_root, in->state_dir, in->policy, TUNING_READ);
    }
    if (in->shared)
        pthread_mutex_unlock(&in->shared->lock);
    if (err < 0 && r->tuning.n == 0)
        log_warning_errno(err, "Cannot take the sysctl profile's state: %m");
    check_tuning(&r->tuning, in->policy, &r->findings);
}

/* --once probes now, in the worker thread the daemon uses, joined; the baselines and
 * their state machine persist in the state dir across runs. */
static void probe_in_worker(const struct pipeline_input *in, struct report *r)
{
    struct probe_job *job;
    struct baselines all;
    int err = probes_plan(&r->inventory, in->policy, &r->probes);
    if (err == 0)
        err = probes_start(&r->probes, -1, &job);
    if (err < 0) {
        log_error_errno(err, "Cannot run the probes: %m");
        return;
    }
    probes_join(job);
    r->probed = true;
    check_probe_results(&r->probes, in->policy, &r->findings);
    if ((err = baselines_load(in->state_dir, &all)) < 0) {
        log_warning_errno(err, "Cannot read the probe baselines in %s (%m); starting anew",
                          in->state_dir);
        baselines_done(&all);
    }
    baselines_fold(&all, &r->probes, in->policy);
    if ((err = baselines_save(in->state_dir, &all)) < 0)
        log_warning_errno(err, "Cannot save the probe baselines in %s: %m", in->state_dir);
    check_regressions(&all, in->policy, &r->findings);
    report_keep_regressions(r, &all);
    baselines_done(&all);
}

static void probes_pass(const struct pipeline_input *in, struct report *r)
{
    if (in->offline)
        return;     /* this machine's probes say nothing of the node the tree comes from */
    if (in->run_probes) {
        probe_in_worker(in, r);
        return;
    }
    if (!in->probes || probes_copy(in->probes, &r->probes) < 0)
        return;
    r->probed = true;
    check_probe_results(&r->probes, in->policy, &r->findings);
    if (in->baselines) {
        check_regressions(in->baselines, in->policy, &r->findings);
        report_keep_regressions(r, in->baselines);
    }
}

/* The analysed node's name and kernel: this host's live, the tree's own offline. */
static void identify(const struct pipeline_input *in, struct report *r)
{
    if (!in->offline)
        return;
    snprintf(r->hostname, sizeof(r->hostname), "unknown (a sysfs snapshot)");
    snprintf(r->kernel, sizeof(r->kernel), "unknown");
    if (!in->procfs_given)
        return;
    (void)sysfs_read_line(in->procfs_root, r->hostname, sizeof(r->hostname), "sys/kernel/hostname");
    (void)sysfs_read_line(in->procfs_root, r->kernel, sizeof(r->kernel), "sys/kernel/osrelease");
}

int pipeline_run(const struct pipeline_input *in, struct report *r)
{
    report_init(r, in->policy, in->policy_source);
    identify(in, r);
    int err = inventory_take(in->sysfs_root, in->offline && !in->procfs_given ? NULL : in->procfs_root,
                         in->policy, &r->inventory);
    if (err < 0)
        return err;
    checks_run(&r->inventory, in->policy, &r->findings);
    counters_pass(in, r);
    tuning_pass(in, r);
    probes_pass(in, r);
    nccl_contract_compute(&r->inventory, in->policy, &r->nccl);
    report_finish(r);
    return 0;
}
