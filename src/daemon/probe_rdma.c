/* SPDX-License-Identifier: ISC */
/* The RDMA probe, the way perftest's ib_write_lat measures: each side RDMA WRITEs into the
 * other's buffer and busy-polls its own buffer's last byte for the answer; the round trip
 * is timed per iteration and halved. Each side has its own busy-polling thread, as each
 * ib_write_lat process does; nothing here sleeps. */
#include "config.h"

#include <errno.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "probe_rdma.h"
#include "source_verbs.h"
#include "strutil.h"

#define SQ_DEPTH 128
#define STREAM_DEPTH 64
#define CHECK_CLOCK_EVERY 4096

struct side {
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
    uint8_t port;
    int gid_index;
    union ibv_gid gid;
    uint16_t lid;
    enum ibv_mtu mtu;
    uint32_t max_inline;
};

static void side_close(struct side *s)
{
    if (s->qp)
        ibv_destroy_qp(s->qp);
    if (s->cq)
        ibv_destroy_cq(s->cq);
    if (s->mr)
        ibv_dereg_mr(s->mr);
    free(s->buf);
    if (s->pd)
        ibv_dealloc_pd(s->pd);
    if (s->ctx)
        ibv_close_device(s->ctx);
    memset(s, 0, sizeof(*s));
}

static int create_qp(struct side *s)
{
    struct ibv_qp_init_attr init = {
        .send_cq = s->cq, .recv_cq = s->cq, .qp_type = IBV_QPT_RC,
        .cap = { .max_send_wr = SQ_DEPTH, .max_recv_wr = 1, .max_send_sge = 1,
                 .max_recv_sge = 1, .max_inline_data = 64 },
    };
    s->qp = ibv_create_qp(s->pd, &init);
    if (!s->qp) {   /* a device without inline data */
        init.cap.max_inline_data = 0;
        s->qp = ibv_create_qp(s->pd, &init);
    }
    if (!s->qp)
        return -errno ? -errno : -ENOMEM;
    s->max_inline = init.cap.max_inline_data;
    struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = s->port,
                             .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE };
    /* ibv_modify_qp() and ibv_query_port() return the error number; errno is not set. */
    return -ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                          IBV_QP_ACCESS_FLAGS);
}

static int side_open(struct side *s, const struct rdma_endpoint *e, size_t size,
                     struct probe_result *r)
{
    struct ibv_port_attr pa;
    memset(s, 0, sizeof(*s));
    s->port = e->port;
    s->gid_index = e->gid_index;
    s->size = size;
    char why[256];
    int err = verbs_open(e->device, &s->ctx, why, sizeof(why));
    if (err < 0) {
        probe_fail(r, err, "%s", why);
        return err;
    }
    if ((err = ibv_query_port(s->ctx, s->port, &pa))) {
        probe_fail(r, -err, "ibv_query_port(%s, %u) failed: %s", e->device, s->port,
                   errno_text(err));
        return -EIO;
    }
    if (pa.state != IBV_PORT_ACTIVE) {
        probe_fail(r, -ENETDOWN, "%s/%u is %s: not probed", e->device, s->port,
                   ibv_port_state_str(pa.state));
        return -ENETDOWN;
    }
    s->mtu = pa.active_mtu;
    s->lid = pa.lid;
    if (s->gid_index >= 0 && ibv_query_gid(s->ctx, s->port, s->gid_index, &s->gid)) {
        probe_fail(r, -EIO, "cannot read GID %d of %s/%u", s->gid_index, e->device, s->port);
        return -EIO;
    }
    err = 0;
    s->half = size;
    if (!(s->pd = ibv_alloc_pd(s->ctx)) || posix_memalign((void **)&s->buf, 4096, 2 * size) ||
        !(s->mr = ibv_reg_mr(s->pd, s->buf, 2 * size, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)) ||
        !(s->cq = ibv_create_cq(s->ctx, SQ_DEPTH * 2, NULL, NULL, 0)) || (err = create_qp(s)) < 0) {
        err = err ? err : (errno ? -errno : -ENOMEM);
        probe_fail(r, err, "cannot set up verbs resources on %s: %s", e->device, errno_text(-err));
        return err;
    }
    memset(s->buf, 0, 2 * size);
    return 0;
}

/* RC connection to the peer: through its GID on RoCE, through its LID on InfiniBand. */
static int side_connect(struct side *s, const struct side *peer)
{
    struct ibv_qp_attr a = {
        .qp_state = IBV_QPS_RTR, .path_mtu = s->mtu < peer->mtu ? s->mtu : peer->mtu,
        .dest_qp_num = peer->qp->qp_num, .rq_psn = 0, .max_dest_rd_atomic = 1,
        .min_rnr_timer = 12,
        .ah_attr = { .port_num = s->port, .dlid = peer->lid, .sl = 0 },
    };
    if (s->gid_index >= 0) {
        a.ah_attr.is_global = 1;
        a.ah_attr.grh.dgid = peer->gid;
        a.ah_attr.grh.sgid_index = (uint8_t)s->gid_index;
        a.ah_attr.grh.hop_limit = 64;
    }
    int err = ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                            IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                            IBV_QP_MIN_RNR_TIMER);
    if (err)
        return -err;
    struct ibv_qp_attr rts = { .qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7,
                               .rnr_retry = 7, .sq_psn = 0, .max_rd_atomic = 1 };
    return -ibv_modify_qp(s->qp, &rts, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                          IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static int post_write(struct side *s, const struct side *peer, size_t len, bool signaled)
{
    struct ibv_sge sge = { .addr = (uintptr_t)s->buf, .length = (uint32_t)len, .lkey = s->mr->lkey };
    struct ibv_send_wr wr = {
        .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
        .send_flags = (signaled ? IBV_SEND_SIGNALED : 0) |
                      (len <= s->max_inline ? IBV_SEND_INLINE : 0),
        .wr.rdma = { .remote_addr = (uintptr_t)(peer->buf + peer->half), .rkey = peer->mr->rkey },
    }, *bad;
    return ibv_post_send(s->qp, &wr, &bad) ? -errno : 0;
}

/* Reaps send completions; a failed one ends the probe with its status. */
static int reap(struct side *s, int *outstanding, struct probe_result *r)
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

/* Busy-polls the last byte of the message the peer writes into us for its mark. */
static int wait_mark(const struct side *s, uint8_t mark, double deadline)
{
    volatile uint8_t *last = &s->buf[s->half + s->size - 1];
    for (unsigned spins = 1;; spins++) {
        if (*last == mark)
            return 0;
        if (spins % CHECK_CLOCK_EVERY == 0 && probe_now() > deadline)
            return -ETIMEDOUT;
    }
}

/* Posts the mark and waits for the write's completion (as ib_write_lat does). */
static int one_way(struct side *from, struct side *to, uint8_t mark, int *outstanding,
                   double deadline, struct probe_result *r)
{
    from->buf[from->size - 1] = mark;
    int err = post_write(from, to, from->size, true);
    if (err == 0)
        (*outstanding)++;
    for (unsigned spins = 1; err == 0 && *outstanding > 0; spins++) {
        if (reap(from, outstanding, r) < 0)
            err = -EIO;
        else if (spins % CHECK_CLOCK_EVERY == 0 && probe_now() > deadline)
            err = -ETIMEDOUT;
    }
    return err;
}

/* The responder: waits for each mark in its buffer and writes it straight back. */
struct responder {
    struct side *self, *peer;
    uint32_t rounds;
    double deadline;
    int error;
    double cpu;
    struct probe_result result;
};

/* Two busy-pollers on one CPU would take turns a scheduler tick apart: give each its own
 * CPU out of the allowed set (already the HCA's NUMA node when that is known). */
static void spread_pollers(pthread_t responder)
{
    cpu_set_t allowed, one;
    int cpus[2], n = 0;
    if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0 || CPU_COUNT(&allowed) < 2)
        return;
    for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
        if (CPU_ISSET(c, &allowed))
            cpus[n++] = c;
    CPU_ZERO(&one);
    CPU_SET(cpus[1], &one);
    pthread_setaffinity_np(responder, sizeof(one), &one);
    CPU_ZERO(&one);
    CPU_SET(cpus[0], &one);
    pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
}

static void *respond(void *arg)
{
    struct responder *r = arg;
    double cpu0 = probe_thread_cpu();
    int outstanding = 0;
    for (uint32_t i = 0; i < r->rounds && r->error == 0; i++) {
        uint8_t mark = (uint8_t)(i % 255 + 1);
        r->error = wait_mark(r->self, mark, r->deadline);
        r->self->buf[r->self->size - 1] = mark;
        if (r->error == 0)
            r->error = post_write(r->self, r->peer, r->self->size, true);
        if (r->error == 0)
            outstanding++;
        for (unsigned spins = 1; r->error == 0 && outstanding > 0; spins++) {
            int n = reap(r->self, &outstanding, &r->result);
            if (n < 0)
                r->error = -EIO;
            else if (n == 0 && spins % CHECK_CLOCK_EVERY == 0 && probe_now() > r->deadline)
                r->error = -ETIMEDOUT;
        }
    }
    r->cpu = probe_thread_cpu() - cpu0;
    return NULL;
}

/* The initiator's rounds: a write out, then the responder's mark back. One timestamp per
 * post, as ib_write_lat takes them, once warm: a round trip is the time from one post to
 * the next (reply seen, own completion reaped). Returns 0 or -errno; *done: the rounds. */
static int initiate(struct side *a, struct side *b, uint32_t warmup, uint32_t n, double deadline,
                    struct probe_result *lat, uint64_t *posted, uint32_t *done)
{
    int out_a = 0, err = 0;
    uint32_t i;
    for (i = 0; i < warmup + n && err == 0; i++) {
        uint8_t mark = (uint8_t)(i % 255 + 1);
        if (i >= warmup)
            posted[i - warmup] = probe_ticks();
        err = one_way(a, b, mark, &out_a, deadline, lat);
        if (err == 0)
            err = wait_mark(a, mark, deadline);
    }
    posted[n] = probe_ticks();
    *done = i;
    return err;
}

/* Cycle counts between posts to one-way seconds, once the run's tick rate is known. */
static int one_way_samples(const uint64_t *posted, uint32_t n, const struct probe_clock *clock,
                           double *samples)
{
    double per_tick = probe_clock_seconds_per_tick(clock);
    if (per_tick <= 0)
        return -EIO;            /* the cycle counter went backwards: no timing to trust */
    for (uint32_t k = 0; k < n; k++)
        samples[k] = (double)(posted[k + 1] - posted[k]) * per_tick / 2;
    return 0;
}

/* Runs the rounds against a responder thread on b, each poller on its own CPU. */
static int exchange(struct side *a, struct side *b, uint32_t n, double deadline,
                    struct probe_result *lat, uint64_t *posted, double *samples, uint32_t *done)
{
    uint32_t warmup = n / 10 > 10 ? n / 10 : 10;
    struct responder resp = { .self = b, .peer = a, .rounds = warmup + n, .deadline = deadline };
    struct probe_clock clock;
    cpu_set_t before;
    pthread_t th;
    if (pthread_create(&th, NULL, respond, &resp) != 0) {
        probe_fail(lat, -EAGAIN, "cannot start the responder thread");
        return -EAGAIN;
    }
    bool restore = sched_getaffinity(0, sizeof(before), &before) == 0;
    spread_pollers(th);
    probe_clock_start(&clock);
    int err = initiate(a, b, warmup, n, deadline, lat, posted, done);
    if (err == 0)
        err = one_way_samples(posted, n, &clock, samples);
    /* The responder ends at its deadline if this side stopped early. */
    pthread_join(th, NULL);
    if (restore)
        sched_setaffinity(0, sizeof(before), &before);
    lat->cpu_seconds += resp.cpu;
    if (err == 0 && resp.error) {
        err = resp.error;
        if (resp.result.error && !lat->error)
            probe_fail(lat, err, "RDMA WRITE ping-pong: %s after %u round trips",
                       resp.result.error_text, *done);
    }
    return err;
}

static void ping_pong(struct side *a, struct side *b, const struct probe_params *p,
                      double deadline, struct probe_result *lat)
{
    uint64_t *posted = malloc((p->iterations + 1) * sizeof(*posted));
    double *samples = malloc(p->iterations * sizeof(*samples));
    uint32_t done = 0;
    int err;
    if (!posted || !samples) {
        probe_fail(lat, -ENOMEM, "out of memory");
    } else if ((err = exchange(a, b, p->iterations, deadline, lat, posted, samples, &done)) == 0) {
        stats_compute(samples, p->iterations, &lat->latency);
        lat->ran = true;
    } else if (!lat->error) {
        probe_fail(lat, err, "RDMA WRITE ping-pong %s after %u round trips",
                   err == -ETIMEDOUT ? "timed out" : errno_text(-err), done);
    }
    free(samples);
    free(posted);
}

/* A WRITE stream from a to b with STREAM_DEPTH writes in flight, for the duration. */
static void stream(struct side *a, struct side *b, const struct probe_params *p,
                   double deadline, struct probe_result *bw)
{
    int outstanding = 0;
    uint64_t done_bytes = 0;
    double t0 = probe_now(), end = t0 + (double)p->bw_duration / 1e6;
    if (end > deadline)
        end = deadline;
    for (;;) {
        double now = probe_now();
        bool posting = now < end;
        if (!posting && outstanding == 0)
            break;
        if (now > deadline) {
            probe_fail(bw, -ETIMEDOUT, "RDMA WRITE stream: completions stopped");
            return;
        }
        while (posting && outstanding < STREAM_DEPTH) {
            int err = post_write(a, b, p->bw_size, true);
            if (err < 0) {
                probe_fail(bw, err, "ibv_post_send: %s", errno_text(-err));
                return;
            }
            outstanding++;
        }
        int n = reap(a, &outstanding, bw);
        if (n < 0)
            return;
        done_bytes += (uint64_t)n * p->bw_size;
    }
    bw->ran = true;
    bw->bandwidth = (double)done_bytes / (probe_now() - t0);
}

void probe_rdma_run(const struct rdma_endpoint *ea, const struct rdma_endpoint *eb,
                    const struct probe_params *p, struct probe_result *lat,
                    struct probe_result *bw)
{
    struct side a, b;
    double deadline = probe_now() + (double)p->timeout / 1e6, cpu0 = probe_thread_cpu();
    size_t size = p->size > p->bw_size ? p->size : p->bw_size;

    memset(lat, 0, sizeof(*lat));
    memset(bw, 0, sizeof(*bw));
    memset(&b, 0, sizeof(b));
    if (side_open(&a, ea, size, lat) < 0 || side_open(&b, eb, size, lat) < 0)
        goto out;
    int err = side_connect(&a, &b);
    if (err == 0)
        err = side_connect(&b, &a);
    if (err < 0) {
        probe_fail(lat, err, "cannot connect the QPs: %s", errno_text(-err));
        goto out;
    }
    /* The ping-pong uses the first p->size bytes of each buffer. */
    a.size = b.size = p->size;
    ping_pong(&a, &b, p, deadline, lat);
    a.size = b.size = size;
    if (!lat->error)
        stream(&a, &b, p, deadline, bw);
out:
    if (lat->error && !bw->error)
        probe_fail(bw, lat->error, "not run: %s", lat->error_text);
    side_close(&a);
    side_close(&b);
    lat->cpu_seconds += probe_thread_cpu() - cpu0;
}
