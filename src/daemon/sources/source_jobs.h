/* SPDX-License-Identifier: ISC */
/* The jobs that hold the node, for the probes' deferral: Slurm's job steps, in the cgroup
 * tree or among the processes. */
#pragma once

#include <stddef.h>

/* Slurm's running jobs: first in the cgroup tree under SYSROOT (the /sys of the node, a
 * fixture or a snapshot), where the cgroup/v2 plugin puts each job's steps in
 * fs/cgroup/system.slice/slurmstepd.scope/job_<id>/step_<id>; then, where that has none
 * (cgroup v1, proctrack/pgid), among PROCROOT's processes: a slurmstepd (its comm) names
 * its step in its title, "slurmstepd: [<job>.<step>]" (its cmdline). Returns how many jobs
 * (or, from the processes, job steps) there are, the first's job id in JOB ("" with none). */
int source_jobs_slurm(const char *sysroot, const char *procroot, char *job, size_t len);
