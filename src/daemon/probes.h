/* SPDX-License-Identifier: ISC */
/* Probe runs: which probes run on which rails, executed off the caller's thread. */
#pragma once

#include <stddef.h>

#include "inventory.h"
#include "policy.h"
#include "probe.h"
#include "probe_rdma.h"

struct probe_target {
    char name[72];              /* the rail ("mlx5_0/1"), or "loopback" without rails */
    bool rdma;                  /* an RDMA loopback runs on it */
    struct rdma_endpoint ep;
    int numa_node;              /* the HCA's node, to pin the probe to; -1 if unknown */
    double port_rate;           /* bytes per second, for the bandwidth fraction */
    bool has_addr;              /* an address to run the TCP probe on */
    int family;
    uint8_t addr[16];
    struct probe_result rdma_lat, rdma_bw, tcp_lat, tcp_bw;
};

struct probe_cross {
    char name[160];             /* "mlx5_0/1<>mlx5_1/1" */
    struct rdma_endpoint a, b;
    struct probe_result lat, bw;
};

struct probe_run {
    struct probe_params rdma, tcp;
    struct probe_target *targets;
    size_t n;
    struct probe_cross *cross;
    size_t n_cross;
    double wall_seconds, cpu_seconds;
};

/* What to probe: each rail (RDMA on its port and GID, TCP on its address), neighbouring
 * rails as cross-rail pairs, or the loopback address when there are no rails. */
int probes_plan(const struct inventory *inv, const struct policy *p, struct probe_run *ret);
void probes_done(struct probe_run *run);
/* A deep copy of a finished run (to, which probes_done() frees); -ENOMEM leaves it empty. */
int probes_copy(const struct probe_run *from, struct probe_run *to);
/* Runs the plan in the calling thread. */
void probes_execute(struct probe_run *run);

/* Runs the plan in a worker thread; when it is done, one byte goes to notify_fd (if >= 0),
 * so an event loop can wait on it. probes_join() waits and frees the job. */
struct probe_job;
int probes_start(struct probe_run *run, int notify_fd, struct probe_job **ret);
void probes_join(struct probe_job *job);
