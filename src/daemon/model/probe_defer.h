/* SPDX-License-Identifier: ISC */
/* When the intensive probes (the bandwidth streams) wait: while a job holds the node, or
 * while the rail carries traffic, until it has been quiet for probes.defer.hold. The
 * latency ping-pongs never wait. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "counters.h"
#include "policy.h"
#include "timeutil.h"

/* Why the stream on a rail waits now (NOW: CLOCK_BOOTTIME), in WHY ("job 1234 running",
 * "rail busy 37.2 Gbit/s", "rail quiet for 4 s of 30 s", "rail traffic not measured
 * yet"); false and "" when it may run. RAIL: a rail's stream, whose traffic (RC, NULL
 * before its first sample) counts; false for the loopback or the host's path. JOB: the
 * id of a job that holds the node, "" or NULL for none. */
bool probe_defer_why(const struct policy *p, bool rail, const struct rail_counters *rc,
                     const char *job, usec_t now, char *why, size_t len);
