/* SPDX-License-Identifier: ISC */
/* A probe run's results: its targets (rails, or the loopback), cross-rail pairs and
 * timings. The model that checks, baselines and reports read; probes_runner.h runs it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inventory.h"
#include "link_traffic.h"
#include "probe_kind.h"
#include "probe_result.h"

struct probe_target {
    char name[72];              /* the rail ("mlx5_0/1"), or "loopback" without rails */
    bool rdma;                  /* an RDMA loopback runs on it */
    struct rdma_endpoint ep;
    int numa_node;              /* the HCA's node, to pin the probe to; -1 if unknown */
    double port_rate;           /* bytes per second, for the bandwidth fraction */
    bool has_addr;              /* an address to run the TCP probe on */
    int family;
    uint8_t addr[16];
    struct probe_result result[PROBE_KIND_COUNT];
};

struct probe_cross {
    char name[160];             /* "mlx5_0/1<>mlx5_1/1" */
    struct rdma_endpoint a, b;
    size_t ia, ib;              /* its two rails' targets */
    struct probe_result lat, bw;
};

/* A peer probe: from one of this node's rails (or the host, without rails) to one of its
 * neighbours' responders. */
struct probe_peer {
    char peer[254];             /* as probes.peers names it */
    char rail[72];              /* the rail it is probed from; "host" without rails */
    int family;
    bool has_src;               /* the rail's address, bound as the source */
    uint8_t src[16];
    unsigned src_prefix;        /* its subnet, to pick the peer's address on the same one */
    uint16_t port;
    char addr[46];              /* what the peer resolved to, once it has */
    bool rdma;                  /* from a rail: the RDMA probe too (through the RDMA CM) */
    char netdev[IFNAMSIZ];      /* the rail's netdev; "" from the host */
    struct probe_result result[PROBE_KIND_COUNT];
    struct path_isolation isolation;    /* where its bytes went (route.isolation) */
};

/* A run's bounds: a target per rail (or the loopback), and a peer path per rail (or the
 * host) to each of probes.peers.k neighbours, k being at most 64 (policy_schema.c). They
 * follow from the inventory's bound, so a plan never meets them. */
#define PROBE_MAX_NEIGHBOURS 64
#define PROBE_MAX_TARGETS INVENTORY_MAX_RAILS
#define PROBE_MAX_PEERS (INVENTORY_MAX_RAILS * PROBE_MAX_NEIGHBOURS)

struct probe_run {
    struct probe_params rdma, tcp;
    struct probe_target *targets;
    size_t n, cap_targets;      /* cap_*: room in the array (grown by doubling) */
    struct probe_cross *cross;
    size_t n_cross;
    struct probe_peer *peers;
    size_t n_peers, cap_peers;
    char peers_error[256];      /* the peers file could not be read; "" otherwise */
    double wall_seconds, cpu_seconds;
};

