/* SPDX-License-Identifier: ISC */
/* The RDMA WRITE ping-pong and stream on a connected RC QP. Nothing here sleeps: each
 * side busy-polls, as each ib_write_lat process does. The ping-pong's deadline is a
 * sparse_deadline: CLOCK_MONOTONIC once every few milliseconds, not once per round trip. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probe_clock.h"
#include "rdma_pingpong.h"
#include "stream_meter.h"
#include "strutil.h"

#define STREAM_DEPTH 64

int rdma_side_alloc(struct rdma_side *s, struct ibv_context *ctx, size_t half)
{
    s->ctx = ctx;
    s->half = half;
    if (!(s->pd = ibv_alloc_pd(ctx)) || posix_memalign((void **)&s->buf, 4096, 2 * half) ||
        !(s->mr = ibv_reg_mr(s->pd, s->buf, 2 * half, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)) ||
        !(s->cq = ibv_create_cq(ctx, RDMA_SQ_DEPTH * 2, NULL, NULL, 0)))
        return errno ? -errno : -ENOMEM;
    memset(s->buf, 0, 2 * half);
    return 0;
}

void rdma_side_release(struct rdma_side *s)
{
    if (s->cq)
        ibv_destroy_cq(s->cq);
    if (s->mr)
        ibv_dereg_mr(s->mr);
    free(s->buf);
    if (s->pd)
        ibv_dealloc_pd(s->pd);
    s->cq = NULL;
    s->mr = NULL;
    s->buf = NULL;
    s->pd = NULL;
}

struct ibv_qp_init_attr rdma_qp_init_attr(struct ibv_cq *cq)
{
    return (struct ibv_qp_init_attr){
        .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
        .cap = { .max_send_wr = RDMA_SQ_DEPTH, .max_recv_wr = 1, .max_send_sge = 1,
                 .max_recv_sge = 1, .max_inline_data = 64 },
    };
}

static int post_write(struct rdma_side *s, size_t len, bool signaled)
{
    struct ibv_sge sge = { .addr = (uintptr_t)s->buf, .length = (uint32_t)len, .lkey = s->mr->lkey };
    struct ibv_send_wr wr = {
        .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
        .send_flags = (signaled ? IBV_SEND_SIGNALED : 0) |
                      (len <= s->max_inline ? IBV_SEND_INLINE : 0),
        .wr.rdma = { .remote_addr = s->remote_addr, .rkey = s->remote_rkey },
    }, *bad;
    return ibv_post_send(s->qp, &wr, &bad) ? -errno : 0;
}

/* Reaps send completions; a failed one ends the probe with its status. */
static int reap(struct rdma_side *s, int *outstanding, struct probe_result *r)
{
    struct ibv_wc wc[16];
    int n = ibv_poll_cq(s->cq, 16, wc);
    if (n < 0)
        return -EIO;
    for (int i = 0; i < n; i++)
        if (wc[i].status != IBV_WC_SUCCESS) {
            probe_fail(r, -EIO, "RDMA WRITE completed with %s", ibv_wc_status_str(wc[i].status));
            return -EIO;
        }
    *outstanding -= n;
    return n;
}

static bool past(const struct rdma_side *s, struct sparse_deadline *deadline)
{
    return sparse_deadline_passed(deadline) || (s->cancel && *s->cancel);
}

/* Busy-polls the last byte of the message the peer writes into us for its mark. */
static int wait_mark(const struct rdma_side *s, uint8_t mark, struct sparse_deadline *deadline)
{
    volatile uint8_t *last = &s->buf[s->half + s->size - 1];
    for (;;) {
        if (*last == mark)
            return 0;
        if (past(s, deadline))
            return -ETIMEDOUT;
    }
}

/* Posts the mark and waits for the write's completion (as ib_write_lat does). */
static int one_way(struct rdma_side *from, uint8_t mark, int *outstanding,
                   struct sparse_deadline *deadline, struct probe_result *r)
{
    from->buf[from->size - 1] = mark;
    int err = post_write(from, from->size, true);
    if (err == 0)
        (*outstanding)++;
    while (err == 0 && *outstanding > 0) {
        int n = reap(from, outstanding, r);
        if (n < 0)
            err = -EIO;
        else if (n == 0 && past(from, deadline))
            err = -ETIMEDOUT;
    }
    return err;
}

void rdma_read_tclass(struct ibv_qp *qp, struct probe_result *r)
{
    struct ibv_qp_attr a;
    struct ibv_qp_init_attr init;
    memset(&a, 0, sizeof(a));
    if (qp && ibv_query_qp(qp, &a, IBV_QP_AV, &init) == 0 && a.ah_attr.is_global) {
        r->has_tclass = true;
        r->tclass = a.ah_attr.grh.traffic_class;
    }
}

uint32_t rdma_warmup(uint32_t n)
{
    return n / 10 > 10 ? n / 10 : 10;
}

int rdma_respond(struct rdma_side *s, uint32_t rounds, double deadline, struct probe_result *r)
{
    int outstanding = 0, err = 0;
    struct sparse_deadline until;
    sparse_deadline_init(&until, deadline);
    for (uint32_t i = 0; i < rounds && err == 0; i++) {
        uint8_t mark = (uint8_t)(i % 255 + 1);
        err = wait_mark(s, mark, &until);
        if (err == 0)
            err = one_way(s, mark, &outstanding, &until, r);
    }
    return err;
}

int rdma_initiate(struct rdma_side *a, uint32_t warmup, uint32_t n, double deadline,
                  struct probe_result *lat, uint64_t *posted, uint32_t *done)
{
    int out_a = 0, err = 0;
    uint32_t i;
    struct sparse_deadline until;
    cycle_clock_seconds_per_cycle();    /* calibrated before the rounds, once a process */
    sparse_deadline_init(&until, deadline);
    for (i = 0; i < warmup + n && err == 0; i++) {
        uint8_t mark = (uint8_t)(i % 255 + 1);
        if (i >= warmup)
            posted[i - warmup] = cycle_counter();
        err = one_way(a, mark, &out_a, &until, lat);
        if (err == 0)
            err = wait_mark(a, mark, &until);
    }
    posted[n] = cycle_counter();
    *done = i;
    return err;
}

int rdma_one_way_samples(const uint64_t *posted, uint32_t n, double *samples)
{
    if (cycle_clock_seconds_per_cycle() <= 0)
        return -EIO;            /* the counter does not advance with CLOCK_MONOTONIC */
    for (uint32_t k = 0; k < n; k++) {
        if (posted[k + 1] < posted[k])
            return -EIO;        /* it went backwards: no timing to trust */
        samples[k] = cycles_to_seconds(posted[k + 1] - posted[k]) / 2;
    }
    return 0;
}

void rdma_stream(struct rdma_side *a, usec_t duration, size_t size, double deadline,
                 struct probe_result *bw)
{
    int outstanding = 0;
    uint64_t done_bytes = 0;
    double t0 = probe_now(), end = t0 + (double)duration / 1e6;
    struct stream_meter meter;
    if (end > deadline)
        end = deadline;
    stream_meter_start(&meter, t0, (double)duration / 1e6);
    for (;;) {
        double now = probe_now();
        if (end > now && stream_meter_steady(&meter, now, done_bytes))
            end = now;          /* a steady rate: the rest would only repeat it */
        bool posting = now < end;
        if (!posting && outstanding == 0)
            break;
        if (now > deadline) {
            probe_fail(bw, -ETIMEDOUT, "RDMA WRITE stream: completions stopped");
            return;
        }
        while (posting && outstanding < STREAM_DEPTH) {
            int err = post_write(a, size, true);
            if (err < 0) {
                probe_fail(bw, err, "ibv_post_send: %s", errno_text(-err));
                return;
            }
            outstanding++;
        }
        int n = reap(a, &outstanding, bw);
        if (n < 0)
            return;
        done_bytes += (uint64_t)n * size;
    }
    if (done_bytes == 0) {      /* the time bound was past before a write went out */
        probe_fail(bw, -ETIMEDOUT, "RDMA WRITE stream: its time bound passed before it began");
        return;
    }
    bw->ran = true;
    bw->bandwidth = (double)done_bytes / (probe_now() - t0);
    bw->bytes = done_bytes;
}
