/* SPDX-License-Identifier: ISC */
/* The check pipeline in a worker thread, so that the daemon's loop answers every query
 * from the last finished report while a pass (a DCB netlink timeout, a large sysfs tree)
 * is still going. The job owns copies of what the loop changes meanwhile (the policy
 * source, the probe results, the baselines) and holds the memory the loop lent it
 * (in->memory, pipeline.h) until the join: nothing is shared, nothing locked. */
#pragma once

#include <stdbool.h>

#include "outputs.h"
#include "pipeline.h"
#include "reply_cache.h"
#include "report.h"

struct check_job;

/* The writes that follow a pass, in the worker too: the output files, and the probe
 * baselines when the loop folded a probe run into them since the last save. */
struct check_writes {
    struct outputs outputs;     /* the paths in, the results out */
    bool save_baselines;        /* in->baselines, to in->state_dir */
    int baselines_result;
};

/* Starts pipeline_run(in), then the writes, in a thread; one byte goes to notify_fd when
 * it is done. in->policy must stay valid until check_job_join(), or be handed to the job
 * (check_job_take_policy). */
int check_job_start(const struct pipeline_input *in, const struct check_writes *writes,
                    int notify_fd, struct check_job **ret);
/* Waits for the job and frees it. Returns the report (the caller's, report_done() and
 * free() it) and *replies, its replies as the worker rendered them (the caller's,
 * reply_cache_free() it; NULL if there was no memory for them), or NULL with *err set
 * when no inventory could be taken; writes gets the results. */
struct report *check_job_join(struct check_job *job, int *err, struct check_writes *writes,
                              struct reply_cache **replies);
/* The same, in the calling thread (the first pass, before the loop runs). */
struct report *check_run_here(const struct pipeline_input *in, struct check_writes *writes,
                              int *err, struct reply_cache **replies);
/* A reload replaced P while the job runs: when P is the policy the job reads, the job
 * takes it (and frees it when joined) and this returns true; false when it reads another,
 * and P stays the caller's. */
bool check_job_take_policy(struct check_job *job, struct policy *p);
