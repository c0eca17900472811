/* SPDX-License-Identifier: ISC */
/* When the intensive probes (the bandwidth streams, and a ping-pong over the policy's byte
 * budget) wait: while a job holds the node, or while the rail carries traffic, until it
 * has been quiet for probes.defer.hold. The light ping-pongs never wait. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters.h"
#include "policy.h"
#include "probe_kind.h"
#include "timeutil.h"

/* The payload a ping-pong of ITERATIONS round trips of SIZE bytes puts on the wire, both
 * ways (its warm-up, a tenth more, not counted). */
uint64_t probe_pingpong_bytes(uint32_t iterations, uint32_t size);
/* Whether transport T's ping-pong, as the policy sizes it (probes.rdma, probes.tcp), is
 * intensive: its payload over probes.defer.light_bytes (0: every ping-pong is). An
 * intensive ping-pong waits with its transport's stream, for the same reason. */
bool probe_pingpong_intensive(const struct policy *p, enum probe_transport t);

/* Why the stream on a rail waits now (NOW: CLOCK_BOOTTIME), in WHY ("job 1234 running",
 * "rail busy 37.2 Gbit/s", "rail quiet for 4 s of 30 s", "rail traffic not measured
 * yet"); false and "" when it may run. RAIL: a rail's stream, whose traffic (RC, NULL
 * before its first sample) counts; false for the loopback or the host's path. JOB: the
 * id of a job that holds the node, "" or NULL for none. */
bool probe_defer_why(const struct policy *p, bool rail, const struct rail_counters *rc,
                     const char *job, usec_t now, char *why, size_t len);
