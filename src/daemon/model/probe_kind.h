/* SPDX-License-Identifier: ISC */
/* The probe kinds: a transport (RDMA, TCP) times what it measures (latency from a
 * ping-pong, bandwidth from a stream). A target's or a path's results are indexed by kind,
 * and the names the report, the metrics, the baselines and the findings give each come
 * from one table. */
#pragma once

enum probe_transport { PROBE_RDMA, PROBE_TCP, PROBE_TRANSPORT_COUNT };
enum probe_measure { PROBE_LATENCY, PROBE_BANDWIDTH, PROBE_MEASURE_COUNT };

/* In the order the report and the findings show them. */
enum probe_kind {
    PROBE_RDMA_LATENCY,
    PROBE_RDMA_BANDWIDTH,
    PROBE_TCP_LATENCY,
    PROBE_TCP_BANDWIDTH,
    PROBE_KIND_COUNT
};

struct probe_kind_info {
    const char *name;           /* "rdma_latency": the key of its result in the report's JSON */
    const char *check;          /* "probe.rdma.latency": its finding's check id */
    enum probe_transport transport;
    enum probe_measure measure;
};

extern const struct probe_kind_info probe_kinds[PROBE_KIND_COUNT];

/* "rdma", "tcp": the metrics' probe label, the text report's column and a baseline key's. */
const char *probe_transport_name(enum probe_transport t);
enum probe_kind probe_kind_of(enum probe_transport t, enum probe_measure m);
