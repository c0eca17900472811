/* SPDX-License-Identifier: ISC */
/* The probes' deferral rule (probe_defer.h). */
#include "config.h"

#include <stdio.h>

#include "probe_defer.h"

uint64_t probe_pingpong_bytes(uint32_t iterations, uint32_t size)
{
    return 2ull * iterations * size;
}

bool probe_pingpong_intensive(const struct policy *p, enum probe_transport t)
{
    uint64_t bytes = t == PROBE_RDMA ? probe_pingpong_bytes(p->probes.rdma.iterations, p->probes.rdma.size)
                                     : probe_pingpong_bytes(p->probes.tcp.iterations, p->probes.tcp.size);
    return bytes > p->probes.defer.light_bytes;
}

bool probe_defer_why(const struct policy *p, bool rail, const struct rail_counters *rc,
                     const char *job, usec_t now, char *why, size_t len)
{
    why[0] = '\0';
    if (p->probes.defer.jobs && job && job[0])
        snprintf(why, len, "job %s running", job);
    else if (!rail || p->probes.defer.busy_gbps <= 0)
        ;                       /* no rail traffic to judge, or the rule is off */
    else if (rc && rc->have_last && !rc->last.has_bytes)
        ;                       /* the rail has no byte counters: nothing to wait for */
    else if (!rc || !rc->traffic_known || !rc->traffic_judged)
        snprintf(why, len, "rail traffic not measured yet");
    else if (!rc->quiet_since)
        snprintf(why, len, "rail busy %.3g Gbit/s", rc->busy_bps / 1e9);
    else if (now < rc->quiet_since || now - rc->quiet_since < p->probes.defer.hold)
        snprintf(why, len, "rail quiet for %.0f s of %.0f s", now < rc->quiet_since ? 0.0 :
                 (double)(now - rc->quiet_since) / USEC_PER_SEC,
                 (double)p->probes.defer.hold / USEC_PER_SEC);
    return why[0] != '\0';
}
