/* SPDX-License-Identifier: ISC */
/* The RDMA probe: two RC QPs, RDMA WRITE ping-pong for latency and a WRITE stream. */
#pragma once

#include "probe_result.h"

/* Connects a QP on a to a QP on b (the same port for a loopback, two rails for a
 * cross-rail pair) and measures. Releases every verbs resource on every path. */
void probe_rdma_run(const struct rdma_endpoint *a, const struct rdma_endpoint *b,
                    const struct probe_params *p, struct probe_result *latency,
                    struct probe_result *bandwidth);
