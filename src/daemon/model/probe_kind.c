/* SPDX-License-Identifier: ISC */
/* The probe-kind table (probe_kind.h): a new kind is one row here, its result slot in
 * probe_run.h's arrays, and its run in probes/probes_runner.c. */
#include "config.h"

#include "probe_kind.h"

const struct probe_kind_info probe_kinds[PROBE_KIND_COUNT] = {
    [PROBE_RDMA_LATENCY] = { "rdma_latency", "probe.rdma.latency", PROBE_RDMA, PROBE_LATENCY },
    [PROBE_RDMA_BANDWIDTH] = { "rdma_bandwidth", "probe.rdma.bandwidth", PROBE_RDMA, PROBE_BANDWIDTH },
    [PROBE_TCP_LATENCY] = { "tcp_latency", "probe.tcp.latency", PROBE_TCP, PROBE_LATENCY },
    [PROBE_TCP_BANDWIDTH] = { "tcp_bandwidth", "probe.tcp.bandwidth", PROBE_TCP, PROBE_BANDWIDTH },
};

const char *probe_transport_name(enum probe_transport t)
{
    return t == PROBE_RDMA ? "rdma" : "tcp";
}

enum probe_kind probe_kind_of(enum probe_transport t, enum probe_measure m)
{
    enum probe_kind k = 0;
    while (k < PROBE_KIND_COUNT - 1 && (probe_kinds[k].transport != t || probe_kinds[k].measure != m))
        k++;
    return k;
}
