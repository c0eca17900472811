/* SPDX-License-Identifier: ISC */
/* The RDMA probe, the way perftest's ib_write_lat measures: each side RDMA WRITEs into the
 * other's buffer and busy-polls its own buffer's last byte for the answer; the round trip
 * is timed per iteration and halved. Each side has its own busy-polling thread, as each
 * ib_write_lat process does; nothing here sleeps. */
#include "config.h"

#include <errno.h>
#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macro.h"
#include "probe_clock.h"
#include "probe_rdma.h"
#include "rdma_pingpong.h"
#include "source_verbs.h"
#include "strutil.h"


static void side_close(struct rdma_side *s)
{
    if (s->qp)
        ibv_destroy_qp(s->qp);
    rdma_side_release(s);
    if (s->ctx)
        ibv_close_device(s->ctx);
    memset(s, 0, sizeof(*s));
}

static int create_qp(struct rdma_side *s)
{
    struct ibv_qp_init_attr init = rdma_qp_init_attr(s->cq);
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

static int side_open(struct rdma_side *s, const struct rdma_endpoint *e, size_t size,
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
    if ((err = rdma_side_alloc(s, s->ctx, size)) < 0 || (err = create_qp(s)) < 0) {
        probe_fail(r, err, "cannot set up verbs resources on %s: %s", e->device, errno_text(-err));
        return err;
    }
    return 0;
}

/* RC connection to the peer: through its GID on RoCE, through its LID on InfiniBand; TOS
 * the GRH's traffic class (-1: 0, as before probes.light_dscp). */
static int side_connect(struct rdma_side *s, const struct rdma_side *peer, int tos)
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
        a.ah_attr.grh.traffic_class = tos > 0 ? (uint8_t)tos : 0;
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

/* The other side, in a thread of this process. */
struct local_responder {
    struct rdma_side *self;
    uint32_t rounds;
    double deadline;
    int error;
    double cpu, cpu_wait;
    struct probe_result result;
};

static void *respond(void *arg)
{
    struct local_responder *r = arg;
    double cpu0 = probe_thread_cpu(), wait0 = probe_thread_cpu_wait();
    r->error = rdma_respond(r->self, r->rounds, r->deadline, &r->result);
    r->cpu = probe_thread_cpu() - cpu0;
    r->cpu_wait = probe_thread_cpu_wait() - wait0;
    return NULL;
}

/* Runs the rounds against a responder thread on b. Neither poller is pinned to a CPU of
 * its own (both keep the NUMA node's set the runner gave them), as perftest pins neither
 * end: in the Soft-RoCE guest, 20 interleaved runs of each tool fell into a fast mode
 * (p50 11 us) and a slow one (15-26 us), and pinned pollers took the slow one more often
 * (fabtune 10 and 12 runs of 20, ib_write_lat under taskset 10 of 20) than free ones
 * (fabtune 6 and 8, ib_write_lat 3, 5 and 5); bench/rdma-vs-ib_write_lat.sh. */
static int exchange(struct rdma_side *a, struct rdma_side *b, uint32_t n, double deadline,
                    struct probe_result *lat, uint64_t *posted, double *samples, uint32_t *done)
{
    uint32_t warmup = rdma_warmup(n);
    struct local_responder resp = { .self = b, .rounds = warmup + n, .deadline = deadline };
    pthread_t th;
    /* Calibrated (once a process, 10 ms asleep) before the responder starts: were it
     * calibrated in the ping-pong, one poller would wait for the other's calibration and
     * be woken by it, which the scheduler takes as a reason to put both on one CPU. */
    cycle_clock_seconds_per_cycle();
    if (pthread_create(&th, NULL, respond, &resp) != 0) {
        probe_fail(lat, -EAGAIN, "cannot start the responder thread");
        return -EAGAIN;
    }
    int err = rdma_initiate(a, warmup, n, deadline, lat, posted, done);
    if (err == 0)
        err = rdma_one_way_samples(posted, n, samples);
    /* The responder ends at its deadline if this side stopped early. */
    pthread_join(th, NULL);
    lat->cpu_seconds += resp.cpu;
    lat->cpu_wait_seconds += resp.cpu_wait;
    if (err == 0 && resp.error) {
        err = resp.error;
        if (resp.result.error && !lat->error)
            probe_fail(lat, err, "RDMA WRITE ping-pong: %s after %u round trips",
                       resp.result.error_text, *done);
    }
    return err;
}

static void ping_pong(struct rdma_side *a, struct rdma_side *b, const struct probe_params *p,
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
        lat->bytes = 2ull * (rdma_warmup(p->iterations) + p->iterations) * p->size;
    } else if (!lat->error) {
        probe_fail(lat, err, "RDMA WRITE ping-pong %s after %u round trips",
                   err == -ETIMEDOUT ? "timed out" : errno_text(-err), done);
    }
    free(samples);
    free(posted);
}

void probe_rdma_run(const struct rdma_endpoint *ea, const struct rdma_endpoint *eb,
                    const struct probe_params *p, struct probe_result *lat,
                    struct probe_result *bw)
{
    struct rdma_side a, b;
    double deadline = probe_now() + (double)p->timeout / 1e6;
    size_t size = p->size > p->bw_size ? p->size : p->bw_size;
    struct probe_mark mark;

    memset(lat, 0, sizeof(*lat));
    memset(bw, 0, sizeof(*bw));
    probe_mark(&mark);
    memset(&b, 0, sizeof(b));
    if (side_open(&a, ea, size, lat) < 0 || side_open(&b, eb, size, lat) < 0)
        goto out;
    int err = side_connect(&a, &b, p->tos);
    if (err == 0)
        err = side_connect(&b, &a, p->tos);
    if (err < 0) {
        probe_fail(lat, err, "cannot connect the QPs: %s", errno_text(-err));
        goto out;
    }
    /* Each side writes into the other's poll buffer. */
    a.remote_addr = (uintptr_t)(b.buf + b.half);
    a.remote_rkey = b.mr->rkey;
    b.remote_addr = (uintptr_t)(a.buf + a.half);
    b.remote_rkey = a.mr->rkey;
    rdma_read_tclass(a.qp, lat);
    /* The ping-pong uses the first p->size bytes of each buffer. */
    a.size = b.size = p->size;
    ping_pong(&a, &b, p, deadline, lat);
    probe_cost_charge(lat, &mark);
    a.size = b.size = size;
    if (!lat->error && p->bw_duration)     /* 0: no stream (deferred) */
        rdma_stream(&a, p->bw_duration, p->bw_size, deadline, bw);
out:
    if (lat->error && !bw->error)
        probe_fail(bw, lat->error, "not run: %s", lat->error_text);
    side_close(&a);
    side_close(&b);
    /* The stream's, and the teardown's (the setup's, when the ping-pong never ran). */
    probe_cost_charge(lat->ran && !lat->error ? bw : lat, &mark);
}
