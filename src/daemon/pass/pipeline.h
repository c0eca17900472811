/* SPDX-License-Identifier: ISC */
/* The one check pass, for --once and the daemon alike: inventory (with each rail's GID
 * index resolved once) -> counters, tuning, probe results -> every check -> NCCL contract
 * -> verdict, into a report that everything after it only reads. */
#pragma once

#include <stdbool.h>

#include "baseline.h"
#include "counters.h"
#include "link_memory.h"
#include "policy.h"
#include "probes_runner.h"
#include "report.h"
#include "source_cc.h"
#include "tuning_transaction.h"

/* The daemon's memory between passes that a pass changes, lent to the pass for its run:
 * the loop owns it, and touches none of it while a pass holds it. */
struct pass_memory {
    /* A copy of the loop's counter state: the pass folds its own samples into it and
     * judges it; the loop folds the same samples into its own when the pass is back. */
    struct counter_state counters;
    struct link_memory links;           /* the loop's, handed over and back */
    struct fw_answers fw_answers;       /* the loop's, handed over and back */
};

struct pipeline_input {
    const char *sysfs_root, *procfs_root, *state_dir;
    const struct policy *policy;
    const char *policy_source;
    enum tuning_action tuning;          /* TUNING_READ or TUNING_APPLY */
    /* The daemon's memory, lent (pass_memory): its counter state and link memory are
     * folded, observed, judged and saved here. NULL: loaded from and saved to state_dir
     * (--once); a snapshot touches neither. */
    struct pass_memory *memory;
    const char *boot_id;                /* with memory */
    bool daemon_pass;                   /* the daemon's pass (with memory) */
    bool tuning_suspended;              /* after "revert": enforcement waits for "apply" */
    /* Probe results: the daemon's last run with its baselines, or run now (--once, with
     * the baselines in state_dir). */
    const struct probe_run *probes;
    const struct baselines *baselines;
    bool run_probes;
    /* Offline analysis of another node's tree (--once --sysfs-root): never probe, never
     * write state, and take host, kernel and limits from the tree alone; procfs_given
     * says whether procfs_root is the snapshot's (else this host's /proc is not read). */
    bool offline;
    bool procfs_given;
    /* The daemon's state directory: its lock now and the last writes that failed, judged
     * with this pass's own (host.state_dir). NULL: --once, not judged. */
    const struct persistence *persistence;
    /* A daemon holds the state directory: tuning hints name 'fabtunectl apply'. */
    bool daemon_runs;
    /* --once without --apply: the counter state, the link memory and the probe baselines
     * are read from state_dir and kept in memory for this pass, never saved. */
    bool state_read_only;
    /* The daemon's jobs watch (jobs_watch.h): the NCCL jobs on the node, copied into the
     * report and judged (job.*), and the GID moves on the rails while it ran. NULL: none. */
    const struct jobs *jobs;
    const struct gid_move *gid_moves;
    size_t n_gid_moves;
};

/* Fills ret (initialised here; report_done() frees it). Returns 0, or -errno when no
 * inventory could be taken. */
int pipeline_run(const struct pipeline_input *in, struct report *ret);
