/* SPDX-License-Identifier: ISC */
/* The NCCL jobs watched off the event loop: one round finds the jobs in procfs
 * (source_nccl_jobs), carries over what the daemon kept of each (its RAS tracker, its
 * start GIDs: jobs_carry), and asks each distinct RAS address of the jobs for STATUS
 * (ras_client), one query at a time, each bounded by the policy's jobs.ras.timeout; a
 * reply is folded into the tracker of the job whose processes it names (jobs on one node
 * share RAS's default port), a job whose addresses all failed gets the failure. The loop
 * starts a round on its jobs.ras.interval timer and takes the result when the round's
 * notification byte arrives, as it does a check pass's (check_job.h). */
#pragma once

#include <stdbool.h>

#include "jobs.h"
#include "timeutil.h"

struct jobs_watch;

struct jobs_watch_input {
    const char *sysfs_root, *procfs_root;
    bool ras;                   /* jobs.ras.enabled: query RAS (else only find the jobs) */
    usec_t ras_timeout;         /* one query's bound */
};

/* What a round did, for the loop's log and the tests. */
struct jobs_watch_stats {
    int scan_err;               /* source_nccl_jobs's result: -ENOENT no procfs */
    unsigned queries, replies;  /* RAS queries sent, whole STATUS replies folded */
    size_t bytes;               /* read from RAS */
};

/* Runs one round in a thread over a copy of BEFORE (the loop's jobs stay the loop's);
 * one byte goes to NOTIFY_FD when it is done. -ENOMEM, or pthread_create's error. */
int jobs_watch_start(const struct jobs_watch_input *in, const struct jobs *before, int notify_fd,
                     struct jobs_watch **ret);
/* The same round in the calling thread (tests, and a daemon without threads to spare). */
void jobs_watch_round(const struct jobs_watch_input *in, struct jobs *before, struct jobs *ret,
                      struct jobs_watch_stats *stats);
/* Waits for the round and frees it: the jobs it found into RET (the caller's, jobs_done()
 * them), its figures into STATS. */
void jobs_watch_join(struct jobs_watch *w, struct jobs *ret, struct jobs_watch_stats *stats);
