/* SPDX-License-Identifier: ISC */
/* The NCCL jobs on the node, from procfs (through --procfs-root): every process that maps
 * NCCL's library (/proc/PID/maps), its NCCL_* settings, CUDA_VISIBLE_DEVICES and Slurm
 * ids from /proc/PID/environ (as root; nothing else of the environment is kept), grouped
 * by Slurm job (SLURM_JOB_ID, else the cgroup's job_<id>), else by session (/proc/PID/
 * stat); and the node's interfaces (sysfs class/net) and addresses (/proc/net/fib_trie,
 * if_inet6), against which NCCL_SOCKET_IFNAME and RAS's hosts are judged. Bounded: the
 * processes looked at, the bytes read of each file and of the whole scan. */
#pragma once

#include <stddef.h>

#include "jobs.h"

struct nccl_jobs_limits {
    size_t max_pids;            /* processes looked at */
    size_t maps_bytes;          /* read of one /proc/PID/maps (a large PyTorch's: ~2 MiB) */
    size_t environ_bytes;       /* read of one /proc/PID/environ */
    size_t total_bytes;         /* read by one scan */
};
#define NCCL_JOBS_LIMITS_DEFAULT { .max_pids = 65536, .maps_bytes = 8u << 20, \
                                   .environ_bytes = 256u << 10, .total_bytes = 512u << 20 }

/* Fills OUT (zeroed first) from SYSROOT and PROCROOT. Returns 0 (OUT->cut, with OUT->why,
 * when a bound stopped the scan), -ENOENT when PROCROOT has no processes to list, -ENOMEM. */
int source_nccl_jobs(const char *sysroot, const char *procroot, const struct nccl_jobs_limits *lim,
                     struct jobs *out);
