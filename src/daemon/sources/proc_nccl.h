/* SPDX-License-Identifier: ISC */
/* The procfs files that find NCCL's processes and say what they were started with, parsed
 * from their bytes (the kernel's layouts: fs/proc/task_mmu.c show_map_vma for maps,
 * fs/proc/base.c for environ and cgroup, fs/proc/array.c do_task_stat for stat,
 * net/ipv4/fib_trie.c fib_trie_seq_show and net/ipv6/addrconf.c if6_seq_show for the
 * node's addresses). Each reads at most the length it is given and no NUL is needed. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "jobs.h"

/* Whether a mapping of /proc/PID/maps is NCCL's library (libnccl.so*, libnccl-net*). */
bool proc_maps_nccl(const char *buf, size_t len);
/* The kept variables of /proc/PID/environ (NUL-separated NAME=VALUE) into P: NCCL_*,
 * CUDA_VISIBLE_DEVICES, SLURM_JOB_ID and SLURM_STEP_ID, nothing else; P->slurm_job and
 * slurm_step from the last two. Returns how many were kept, or -ENOMEM. */
int proc_environ_parse(const char *buf, size_t len, struct job_proc *p);
/* /proc/PID/stat's comm, ppid and session: 0, or -EBADMSG. */
int proc_stat_parse(const char *buf, size_t len, char comm[16], int *ppid, int *sid);
/* The Slurm job of /proc/PID/cgroup: its path's "job_<id>" component (cgroup v2's
 * slurmstepd.scope/job_<id>/step_<id>, v1's slurm/uid_<uid>/job_<id>). */
bool proc_cgroup_slurm_job(const char *buf, size_t len, char *job, size_t job_len);
/* The node's local addresses into JS->addrs: /proc/net/fib_trie's "/32 host LOCAL" ones
 * (IPv4), /proc/net/if_inet6's (IPv6), as inet_ntop prints them; past JOBS_MAX_ADDRS
 * dropped. */
void proc_fib_trie_local(const char *buf, size_t len, struct jobs *js);
void proc_if_inet6(const char *buf, size_t len, struct jobs *js);
