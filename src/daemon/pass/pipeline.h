/* SPDX-License-Identifier: ISC */
/* The one check pass, for --once and the daemon alike: inventory (with each rail's GID
 * index resolved once) -> counters, tuning, probe results -> every check -> NCCL contract
 * -> verdict, into a report that everything after it only reads. */
#pragma once

#include <pthread.h>
#include <stdbool.h>

#include "baseline.h"
#include "counters.h"
#include "link_memory.h"
#include "policy.h"
#include "probes_runner.h"
#include "report.h"
#include "tuning_transaction.h"

/* What the daemon's loop shares with a pass running in the worker (check_job.h): the lock is
 * held around the counter state and around each tuning transaction, and tuning_suspended
 * is read under it, so a revert on the loop is never undone by a pass already going. */
struct pipeline_shared {
    pthread_mutex_t lock;
    bool tuning_suspended;      /* after "revert": enforcement waits for "apply" or a reload */
};

struct pipeline_input {
    const char *sysfs_root, *procfs_root, *state_dir;
    const struct policy *policy;
    const char *policy_source;
    enum tuning_action tuning;          /* TUNING_READ or TUNING_APPLY */
    /* The counter state kept between passes (the daemon's), folded and saved here; NULL:
     * loaded from and saved to state_dir (--once). A snapshot touches neither. */
    struct counter_state *counters;
    /* The link memory (the daemon's), observed, judged and saved here like the counters;
     * NULL: loaded from and saved to state_dir (--once). A snapshot has none. */
    struct link_memory *links;
    const char *boot_id;                /* with counters */
    struct pipeline_shared *shared;     /* the daemon's; NULL for --once */
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
