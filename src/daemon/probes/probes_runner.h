/* SPDX-License-Identifier: ISC */
/* Running probes: the plan of a run (which probes on which rails and peers), and its
 * execution, in the calling thread or a worker. The results are model/probe_run.h's. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters.h"
#include "inventory.h"
#include "policy.h"
#include "probe_run.h"

/* What to probe: each rail (RDMA on its port and GID, TCP on its address), neighbouring
 * rails as cross-rail pairs, or the loopback address when there are no rails. */
int probes_plan(const struct inventory *inv, const struct policy *p, struct probe_run *ret);
void probes_done(struct probe_run *run);
/* The address a rail's probes use, and its peers reach it at: the address in its RoCE
 * GID, else its netdev's first of the policy's family. False when it has none. */
bool probes_rail_address(const struct rail *r, const struct policy *p, int *family, uint8_t addr[16]);
/* A deep copy of a finished run (to, which probes_done() frees); -ENOMEM leaves it empty. */
int probes_copy(const struct probe_run *from, struct probe_run *to);
/* Defers the plan's intensive probes (probe_defer.h), the bandwidth streams and the
 * ping-pongs over probes.defer.light_bytes: each rail's by its traffic in CS (with RAILS;
 * false: offline, no traffic history) and all while JOB (a job's id, "" or NULL: none)
 * holds the node. NOW: CLOCK_BOOTTIME. The light ping-pongs still run; a deferred result
 * says why in its deferred text. Returns how many paths still stream. */
size_t probes_defer(struct probe_run *run, const struct counter_state *cs, const struct policy *p,
                    const char *job, bool rails, usec_t now);
/* Gives each deferred result of RUN (done) PREV's figure for the same probe, stale. */
void probes_carry(struct probe_run *run, const struct probe_run *prev);
/* Runs the plan in the calling thread. */
void probes_execute(struct probe_run *run);

/* Runs the plan in a worker thread; when it is done, one byte goes to notify_fd (if >= 0),
 * so an event loop can wait on it. probes_join() waits and frees the job. */
struct probe_job;
int probes_start(struct probe_run *run, int notify_fd, struct probe_job **ret);
void probes_join(struct probe_job *job);
