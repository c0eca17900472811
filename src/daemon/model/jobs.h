/* SPDX-License-Identifier: ISC */
/* The NCCL jobs on the node: their processes (each with the NCCL_* settings it was
 * started with), grouped by Slurm job or by session; what the daemon keeps of each from
 * pass to pass (its RAS tracker, the GID index it started with on each rail); and how a
 * rank that RAS names is placed on this node: its process, its GPU, the rail beside it.
 * sources/source_nccl_jobs.c fills it; checks/check_jobs.c judges it. */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "findings.h"
#include "inventory.h"
#include "link_memory.h"
#include "nccl_env.h"
#include "policy.h"
#include "ras_tracker.h"
#include "timeutil.h"

/* Bounds: jobs on one node, NCCL processes over all of them (16 GPUs, a few processes
 * each), the environment kept per process, the node's interfaces and addresses. */
#define JOBS_MAX 64
#define JOBS_MAX_PROCS 1024
#define JOB_ENV_BYTES 8192
#define JOBS_MAX_IFNAMES 256
#define JOBS_MAX_ADDRS 256
#define JOBS_CONTRACT_MAX 12
#define JOB_ID_MAX 32

/* The variables kept of a process's environment: NCCL's own, and those that place it. */
bool job_env_kept(const char *name);

struct job_proc {
    int pid, ppid, sid;
    char comm[16];
    char slurm_job[JOB_ID_MAX];     /* SLURM_JOB_ID, else the cgroup's job_<id>; "" none */
    char slurm_step[16];
    bool env_read;                  /* false: environ unreadable (not root), ENV_WHY says */
    char env_why[96];
    char *env;                      /* the kept variables, "NAME=VALUE\0" each (malloc'd) */
    size_t env_len, n_env;
    bool env_cut;                   /* more than JOB_ENV_BYTES of them */
};

/* PROC's value of NAME among its kept variables, or NULL. */
const char *job_proc_env(const struct job_proc *p, const char *name);
/* Adds NAME=VALUE to PROC's kept variables (cut past JOB_ENV_BYTES): -ENOMEM. */
int job_proc_env_add(struct job_proc *p, const char *name, const char *value);
void job_proc_done(struct job_proc *p);

enum job_kind { JOB_SLURM, JOB_SESSION };

/* The GID a job's NCCL took on a rail when the job was first seen (job.gid_drift). */
struct job_rail_gid {
    char rail[INV_NAME_MAX + 8];
    int index;
    uint8_t raw[16];
    enum gid_type type;             /* RoCE v1 and v2 entries share a GID */
};

struct job {
    enum job_kind kind;
    char id[JOB_ID_MAX];            /* the Slurm job id, or the session id */
    char comm[16];                  /* its first process's name */
    struct job_proc *procs;
    size_t n_procs, cap_procs;
    /* What the daemon keeps from scan to scan (jobs_carry). */
    usec_t first_seen;
    struct ras_tracker ras;
    struct job_rail_gid *start_gids;
    size_t n_start_gids;
    bool gids_recorded;
};

/* The NCCL contract fabtune writes (outputs/nccl.h), copied for the checks. */
struct jobs_contract {
    size_t n;
    struct { char name[32]; char value[512]; } vars[JOBS_CONTRACT_MAX];
};

struct jobs {
    struct job *jobs;
    size_t n, cap;
    size_t n_procs;                 /* over all jobs (JOBS_MAX_PROCS) */
    bool cut;                       /* the scan stopped at a bound: WHY says which */
    char why[160];
    char ifnames[JOBS_MAX_IFNAMES][IFNAMSIZ];   /* the node's interfaces */
    size_t n_ifnames;
    bool ifnames_known;
    char addrs[JOBS_MAX_ADDRS][RAS_HOST_MAX];   /* the node's addresses, as RAS prints them */
    size_t n_addrs;
    bool addrs_known;
    struct jobs_contract contract;  /* n 0: not given (NCCL_* differences not said) */
};

/* PROC's job (KIND, ID), created when new; PROC is moved into it (its env taken).
 * -EFBIG past JOBS_MAX or JOBS_MAX_PROCS, -ENOMEM. */
int jobs_add_proc(struct jobs *js, enum job_kind kind, const char *id, struct job_proc *proc);
struct job *jobs_find(struct jobs *js, enum job_kind kind, const char *id);
/* Moves what BEFORE kept of each job still in NOW (its tracker, start GIDs, first_seen)
 * into NOW; NOW's new jobs get FIRST_SEEN = NOW_TIME. */
void jobs_carry(struct jobs *now, struct jobs *before, usec_t now_time);
void jobs_done(struct jobs *js);
/* A deep copy of FROM into TO, for another thread to read (a check pass, the RAS worker):
 * 0, or -ENOMEM with TO empty. */
int jobs_copy(const struct jobs *from, struct jobs *to);
/* Whether NOW says something other than BEFORE to the checks: a job came or went, its
 * processes changed, its RAS answered for the first time, or a rank's verdict changed. */
bool jobs_differ(const struct jobs *before, const struct jobs *now);
/* The start GIDs BEFORE recorded for a job that NOW has none recorded yet, moved into NOW
 * (a pass records them in its own copy; the loop keeps them in its jobs, which the jobs
 * watch may have replaced meanwhile). */
void jobs_keep_gids(struct jobs *now, struct jobs *before);

/* "Slurm job 1234", "session 4711 (torchrun)". */
const char *job_name(const struct job *j, char *buf, size_t len);
const struct job_proc *job_proc_of(const struct job *j, int pid);
/* Whether HOST is one of the node's addresses (unknown addresses: any is). */
bool jobs_addr_local(const struct jobs *js, const char *host);
/* Whether the rank of PID on HOST is a process of J on this node: its pid is one of J's
 * and its host one of the node's (pids repeat across nodes' containers). */
bool job_rank_here(const struct jobs *js, const struct job *j, int pid, const char *host);

/* The GPU of a rank of J on this node. RAS names it by nvml_dev, NVML's index, which
 * counts the node's NVIDIA GPUs in PCI bus order, whatever CUDA_VISIBLE_DEVICES says;
 * without it (-1), by cuda_dev through the process's CUDA_VISIBLE_DEVICES (an index list;
 * UUIDs cannot be placed), or, unset, in PCI bus order too (CUDA's order on a node of
 * identical GPUs). NULL when it cannot be placed; HOW says how or why not. */
const struct gpu *job_rank_gpu(const struct inventory *inv, const struct job *j, int pid,
                               int cuda_dev, int nvml_dev, char *how, size_t len);

/* Whether J's NCCL runs its RAS service: not when its processes set NCCL_RAS_ENABLE=0. */
bool job_ras_enabled(const struct job *j);
/* The I-th distinct RAS address of J's processes (NCCL_RAS_ADDR, else localhost:28028,
 * RAS's default), or NULL past the last: any of them answers for the whole job. */
const char *job_ras_addr(const struct job *j, size_t i);
/* The job of JS whose processes a RAS reply names the most (jobs on one node share RAS's
 * default port, which NCCL binds with SO_REUSEPORT, so any of them may answer a query);
 * NULL when it names none of them. */
struct job *jobs_of_reply(struct jobs *js, const struct ras_status *s);

/* The GID settings of J's NCCL (its first process with an environment). */
void job_gid_settings(const struct job *j, struct nccl_gid_settings *ret);
/* Whether J's NCCL uses rail R (its NCCL_IB_HCA). */
bool job_uses_rail(const struct job *j, const struct rail *r);
/* The GID index J's NCCL takes on RoCE rail R: NCCL_IB_GID_INDEX, else NCCL's selection
 * under J's settings (nccl_gid.h). -1 for an empty table. */
int job_gid_index(const struct job *j, const struct rail *r);
/* Records, once per job, the GID J's NCCL takes on each RoCE rail it uses (job.gid_drift
 * judges against it). -ENOMEM. */
int job_record_gids(struct job *j, const struct inventory *inv);

/* A GID that moved on a rail (the daemon's GID watch, on RDMA port and address events). */
struct gid_move {
    char rail[INV_NAME_MAX + 8];
    int from, to;                   /* -1: none */
    usec_t at;                      /* CLOCK_BOOTTIME */
};

/* What the join (job.ras) reads of the fabric, for a rank of this node that lags, is
 * missing or died: from the window that began MARGIN before the tracker's SINCE, its
 * rails' link events (LINKS: flaps, link downs, error bursts, dated on CLOCK_BOOTTIME as
 * the tracker's times are), this pass's fabric findings (FABRIC: counters.<class>,
 * probe.regression, link.ber and the other rail checks that fail), and GID moves. Any may
 * be NULL: that input is then not named. */
struct job_join {
    const struct link_memory *links;
    const struct findings *fabric;
    const struct gid_move *gid_moves;
    size_t n_gid_moves;
    usec_t margin;
};
/* The words of a job.ras message that say whether the rank's rail showed trouble in its
 * window (the join) or was clean: the outputs read the cause from them (fabtunectl jobs,
 * the metrics), so the check and they share them. */
#define JOB_RAS_RAIL_SHOWED "in that window its rail"
#define JOB_RAS_RAIL_CLEAN "was clean in that window"
/* The default margin: a link event this long before the rank's trouble may be its cause. */
#define JOB_JOIN_MARGIN (5 * USEC_PER_MINUTE)
