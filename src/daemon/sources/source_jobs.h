/* SPDX-License-Identifier: ISC */
/* The jobs that hold the node, for the probes' deferral: Slurm's job steps in the cgroup
 * tree. */
#pragma once

#include <stddef.h>

/* Slurm's running jobs under SYSROOT (the /sys of the node, a fixture or a snapshot): the
 * cgroup/v2 plugin puts each job's steps in fs/cgroup/system.slice/slurmstepd.scope/
 * job_<id>/step_<id> (slurmstepd's scope, a job_<id> directory per job). Returns how many
 * jobs there are, the first's id in JOB ("" with none). */
int source_jobs_slurm(const char *sysroot, char *job, size_t len);
