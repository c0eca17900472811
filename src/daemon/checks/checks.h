/* SPDX-License-Identifier: ISC */
/* The checks: pure functions from inventory and policy to findings. They never read the
 * system, so a snapshot and the live node are judged by the same code. */
#pragma once

#include "counters.h"
#include "findings.h"
#include "inventory.h"
#include "jobs.h"
#include "link_memory.h"
#include "persistence.h"
#include "policy.h"
#include "baseline.h"
#include "probe_run.h"
#include "tuning.h"

/* What one pass judges: always the inventory and the policy; the rest where the pass has
 * it (NULL: that group of checks is left out, as a sysfs tree has no sysctls). */
struct check_input {
    const struct inventory *inventory;
    const struct policy *policy;
    const struct counter_state *counters;   /* the rates and carrier history */
    const struct link_memory *links;        /* flaps, link downs, bursts, warnings kept */
    const struct persistence *persistence;  /* the state directory: locked and written? */
    const struct tuning *tuning;            /* the sysctl profile's state */
    const struct probe_run *probes;         /* this pass's probe results */
    const struct baselines *baselines;      /* the probes' baselines, with the probes */
    const struct jobs *jobs;                /* the NCCL jobs on the node, their RAS trackers */
    const struct gid_move *gid_moves;       /* GID moves on the rails while the daemon ran */
    size_t n_gid_moves;
};

/* Every group of checks, in checks.c's table's order: the report's order. */
void checks_run(const struct check_input *in, struct findings *out);

/* One group each; checks_run calls them in order. */
void check_rails(const struct inventory *inv, const struct policy *p, struct findings *out);
void check_ports(const struct inventory *inv, const struct policy *p, struct findings *out);
void check_netdevs(const struct inventory *inv, const struct policy *p, struct findings *out);
/* rails.uniform: each rail against its siblings (the same link layer, and card model). */
void check_uniform(const struct inventory *inv, const struct policy *p, struct findings *out);
void check_gids(const struct inventory *inv, const struct policy *p, struct findings *out);
void check_qos(const struct inventory *inv, const struct policy *p, struct findings *out);
/* qos.cc, qos.cc_next_boot, qos.cc_alike: congestion control (model/cc.h). */
void check_cc(const struct inventory *inv, const struct policy *p, struct findings *out);
/* link.module; LINKS (may be NULL) holds each rail's Rx power trend. */
void check_module(const struct inventory *inv, const struct link_memory *links,
                  const struct policy *p, struct findings *out);
/* link.fec (each Ethernet rail's FEC mode against its lane rate) and, with ST, link.ber
 * (its pre- and post-FEC bit error ratios from the rates in ST). */
void check_fec(const struct inventory *inv, const struct counter_state *st,
               const struct policy *p, struct findings *out);
/* counters.* and netdev.flaps, from the rates and carrier history in ST. */
void check_counters(const struct inventory *inv, const struct counter_state *st,
                    const struct policy *p, struct findings *out);
/* counters.sticky, and the escalation of the link checks' warnings already in OUT
 * (netdev.flaps, counters.*), from the memory M. */
void check_link_memory(const struct inventory *inv, const struct link_memory *m,
                       const struct policy *p, struct findings *out);
/* rails.gone: each rail of the memory M gone from the inventory since the last pass it was
 * there, an error with what is known (its PCI function still listed or not, its last state)
 * until the policy's count is met, its rails.select list leaves it out, or an operator
 * forgot it. */
void check_gone(const struct inventory *inv, const struct link_memory *m, const struct policy *p,
                struct findings *out);
/* nic.*: the kernel's messages about each rail's NIC, kept in the memory M
 * (model/kernel_log.h); nothing where the kernel log was never read. */
void check_nic(const struct inventory *inv, const struct link_memory *m, const struct policy *p,
               struct findings *out);
/* nic.devnode: each rail's device nodes (uverbs, umad on InfiniBand, rdma_cm). */
void check_devnodes(const struct inventory *inv, const struct policy *p, struct findings *out);
/* route.*: where each rail's packets go (model/routes.h). */
void check_routes(const struct inventory *inv, const struct policy *p, struct findings *out);
/* fabric.*: each rail's LLDP neighbours (model/lldp.h); ST, where given, dates link-ups. */
void check_neighbors(const struct inventory *inv, const struct counter_state *st,
                     const struct policy *p, struct findings *out);
void check_host(const struct inventory *inv, const struct policy *p, struct findings *out);
/* host.state_dir: the daemon's state directory, locked and written, or why not. */
void check_persistence(const struct persistence *s, struct findings *out);
void check_tuning(const struct tuning *t, const struct policy *p, struct findings *out);
void check_probe_results(const struct probe_run *run, const struct policy *p,
                         struct findings *out);
/* route.isolation: where each peer path's probe bytes went (model/link_traffic.h). */
void check_isolation(const struct probe_run *run, struct findings *out);
/* probe.regression for each baseline RUN measures (all of them where RUN is NULL). */
void check_regressions(const struct baselines *all, const struct probe_run *run,
                       const struct policy *p, struct findings *out);
/* job.ras, job.nccl_env and job.gid_drift: each NCCL job on the node (model/jobs.h), its
 * ranks here joined with what their rails showed (JOIN, may be NULL). Last in checks_run's
 * table: the join reads the rail findings of the same pass. */
void check_jobs(const struct inventory *inv, const struct jobs *jobs, const struct job_join *join,
                const struct policy *p, struct findings *out);
