/* SPDX-License-Identifier: ISC */
/* The check pipeline in a worker thread, so that the daemon's loop answers every query
 * from the last finished report while a pass (a DCB netlink timeout, a large sysfs tree)
 * is still going. The job owns copies of what the loop changes meanwhile (the policy
 * source, the probe results, the baselines); what both sides change (the counter state,
 * tuning transactions) is under in->shared's lock. */
#pragma once

#include "pipeline.h"
#include "report.h"

struct check_job;

/* Starts pipeline_run(in) in a thread; one byte goes to notify_fd when it is done.
 * in->policy must stay valid until check_job_join(). */
int check_job_start(const struct pipeline_input *in, int notify_fd, struct check_job **ret);
/* Waits for the job and frees it. Returns the report (the caller's, report_done() and
 * free() it), or NULL with *err set when no inventory could be taken. */
struct report *check_job_join(struct check_job *job, int *err);
/* The policy the job reads: the caller keeps it alive until the job is joined. */
const struct policy *check_job_policy(const struct check_job *job);
