/* SPDX-License-Identifier: ISC */
/* fabtuned --once: gather, check, render; the data flows one way through a report. */
#include "config.h"

#include <json-c/json.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "checks.h"
#include "fabtuned.h"
#include "log.h"
#include "baseline.h"
#include "probes.h"
#include "rails.h"
#include "source_counters.h"
#include "once.h"
#include "report.h"

/* The probes run in a worker thread, through the API the daemon uses; the baselines and
 * their state machine persist in the state dir across runs. */
static void run_probes(const struct options *o, const struct policy *p, struct report *r)
{
    struct probe_job *job;
    struct baselines all;
    int err = probes_plan(&r->inventory, p, &r->probes);
    if (err == 0)
        err = probes_start(&r->probes, -1, &job);
    if (err < 0) {
        log_error_errno(err, "Cannot run the probes: %m");
        return;
    }
    probes_join(job);
    r->probed = true;
    check_probe_results(&r->probes, p, &r->findings);

    if ((err = baselines_load(o->state_dir, &all)) < 0) {
        log_warning_errno(err, "Cannot read the probe baselines in %s (%m); starting anew",
                          o->state_dir);
        baselines_done(&all);
    }
    baselines_fold(&all, &r->probes, p);
    if ((err = baselines_save(o->state_dir, &all)) < 0)
        log_warning_errno(err, "Cannot save the probe baselines in %s: %m", o->state_dir);
    check_regressions(&all, p, &r->findings);
    baselines_done(&all);
}

/* Rates need the previous sample: it is in the state dir, with its boot id. */
static void counters_pass(const struct options *o, const struct policy *p, struct report *r)
{
    struct counter_state st;
    char boot_id[40];
    if (r->inventory.n_rails == 0)
        return;
    /* A snapshot is one sample of another node (or another time): it neither reads nor
     * writes this node's counter state. */
    if (r->inventory.source == INVENTORY_OFFLINE) {
        memset(&st, 0, sizeof(st));
        st.snapshot = true;
        (void)counters_fold_inventory(&st, "snapshot", &r->inventory, p->checks.flaps.window);
        check_counters(&r->inventory, &st, p, &r->findings);
        counters_done(&st);
        return;
    }
    int err = counters_load(o->state_dir, &st);
    if (err < 0)
        log_warning_errno(err, "Cannot read the counter state in %s (%m); starting anew",
                          o->state_dir);
    source_boot_id(o->procfs_root, boot_id, sizeof(boot_id));
    if ((err = counters_fold_inventory(&st, boot_id, &r->inventory, p->checks.flaps.window)) < 0)
        log_warning_errno(err, "Cannot fold the counters: %m");
    check_counters(&r->inventory, &st, p, &r->findings);
    if ((err = counters_save(o->state_dir, &st)) < 0)
        log_warning_errno(err, "Cannot save the counter state in %s: %m", o->state_dir);
    counters_done(&st);
}

int once_run(const struct options *o, const struct policy *p, const char *policy_source)
{
    struct report r;

    report_init(&r, p, policy_source);
    /* The state dir holds the sysctl originals, the probe baselines and the counters. */
    if (mkdir(o->state_dir, 0755) < 0 && errno != EEXIST)
        log_warning("Cannot create the state directory %s: %m", o->state_dir);
    int err = rails_scan(o->sysfs_root, o->procfs_root, p, &r.inventory);
    if (err < 0) {
        log_error_errno(err, "Cannot take the inventory: %m");
        report_done(&r);
        return EXIT_SOFTWARE;
    }
    checks_run(&r.inventory, p, &r.findings);
    counters_pass(o, p, &r);
    /* --once writes nothing unless asked; the daemon applies by the policy's mode. */
    err = tuning_run(&r.tuning, o->procfs_root, o->state_dir, p,
                     o->apply ? TUNING_APPLY : TUNING_READ);
    if (err == -ECANCELED) {
        log_warning("tuning.mode is off in the policy: --apply writes nothing");
        tuning_done(&r.tuning);
        err = tuning_run(&r.tuning, o->procfs_root, o->state_dir, p, TUNING_READ);
    }
    if (err < 0 && r.tuning.n == 0)
        log_warning_errno(err, "Cannot take the sysctl profile's state: %m");
    check_tuning(&r.tuning, p, &r.findings);
    if (!o->no_probes && p->probes.enabled)
        run_probes(o, p, &r);
    nccl_contract_compute(&r.inventory, p, &r.nccl);
    report_finish(&r);

    if (o->json) {
        json_object *j = report_to_json(&r);
        if (!j) {
            report_done(&r);
            return EXIT_SOFTWARE;
        }
        puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
                                               JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(j);
    } else {
        report_print_text(&r, stdout);
    }
    int code = verdict_exit_code(r.verdict, HEALTH_NPD);
    report_done(&r);
    return code;
}
