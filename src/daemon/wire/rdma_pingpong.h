/* SPDX-License-Identifier: ISC */
/* The RDMA WRITE ping-pong and stream on a connected RC QP, the way perftest's
 * ib_write_lat and ib_write_bw measure: each side writes into the other's buffer and
 * busy-polls its own buffer's last byte for the answer. Shared by the loopback probe (both
 * sides in this process) and the peer probe and responder (one side each, across nodes). */
#pragma once

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe_result.h"

#define RDMA_SQ_DEPTH 128

struct rdma_side {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    struct ibv_qp *qp;
    struct ibv_mr *mr;
    uint8_t *buf;               /* [0, half): what this side sends; [half, 2*half): what the
                                 * peer writes into, polled for its marks (perftest's post_buf
                                 * and poll_buf) */
    size_t half;
    size_t size;                /* the current message size, at most half */
    uint32_t max_inline;
    uint64_t remote_addr;       /* where this side's writes land: the peer's poll buffer */
    uint32_t remote_rkey;
    const volatile bool *cancel;    /* when set (and true), polling ends as at the deadline */
    /* The loopback probe's own port attributes. */
    uint8_t port;
    int gid_index;
    union ibv_gid gid;
    uint16_t lid;
    enum ibv_mtu mtu;
};

/* A side's memory on ctx: a PD, a zeroed buffer of a send half and a poll half of half
 * bytes each, its MR and a CQ. 0 or -errno; what was set up stays for rdma_side_release. */
int rdma_side_alloc(struct rdma_side *s, struct ibv_context *ctx, size_t half);
/* Releases what rdma_side_alloc set up (the caller destroys the QP first). */
void rdma_side_release(struct rdma_side *s);
/* The RC QP's attributes on cq: 64 bytes inline, which a device without inline data
 * refuses (try again with max_inline_data 0). */
struct ibv_qp_init_attr rdma_qp_init_attr(struct ibv_cq *cq);

/* The initiator's rounds: a write out, then the peer's mark back, warmup + n times; one
 * timestamp per post (cycle_counter) into posted[0..n]. Both ends check their deadline
 * (CLOCK_MONOTONIC seconds) sparsely (sparse_deadline). 0 or -errno; *done: the rounds. */
int rdma_initiate(struct rdma_side *a, uint32_t warmup, uint32_t n, double deadline,
                  struct probe_result *lat, uint64_t *posted, uint32_t *done);
/* The other end: waits for each mark and writes it straight back, rounds times. */
int rdma_respond(struct rdma_side *s, uint32_t rounds, double deadline, struct probe_result *r);
/* Cycles between posts to one-way seconds (half the round trip), at the process's
 * calibrated rate; -EIO when the counter is unusable or went backwards. */
int rdma_one_way_samples(const uint64_t *posted, uint32_t n, double *samples);
/* A stream of size-byte WRITEs, 64 in flight, for the bandwidth duration. */
void rdma_stream(struct rdma_side *a, usec_t duration, size_t size, double deadline,
                 struct probe_result *bw);
/* The connected QP's GRH traffic class (ibv_query_qp), into R's tclass; nothing when the
 * QP has no GRH (InfiniBand's LID routing) or cannot be queried. */
void rdma_read_tclass(struct ibv_qp *qp, struct probe_result *r);
/* Warm-up rounds for n measured ones: a tenth, at least 10. */
uint32_t rdma_warmup(uint32_t n);
