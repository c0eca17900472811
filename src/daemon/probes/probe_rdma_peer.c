/* SPDX-License-Identifier: ISC */
/* The RDMA peer probe. Every step of the connection manager is bounded by the probe's
 * deadline; every resource is released on every path (a QP left behind on a daemon that
 * probes every minute would be a leak that never ends). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "peer_wire.h"
#include "probe_rdma_peer.h"
#include "rdma_pingpong.h"
#include "source_link_traffic.h"
#include "strutil.h"
#include "tcp_io.h"

#define RESOLVE_MS 2000
/* The REJ reasons that the connection manager reports in a REJECTED event's status
 * (IBTA vol. 1, 12.6.7.2 table 112; the kernel's enum ib_cm_rej_reason): the responder's
 * own rdma_reject() sends "consumer defined"; a port nobody listens on, "invalid service
 * id". */
#define CM_REJ_INVALID_SERVICE_ID 8
#define CM_REJ_CONSUMER_DEFINED 28
/* After the connection manager, not a responder, refused: one more try after this long
 * (a responder restarting on its node's reload or address change listens again within
 * milliseconds). */
#define NO_LISTENER_RETRY_MS 250

struct conn {
    struct rdma_event_channel *ch;
    struct rdma_cm_id *id;
    struct rdma_side side;
    bool connected;
    bool cm_refused;    /* rejected by the connection manager: nothing took the request */
};

/* The next event of the channel, by the deadline; the caller acks it. */
static int next_event(struct conn *c, double deadline, struct rdma_cm_event **ev)
{
    for (;;) {
        if (rdma_get_cm_event(c->ch, ev) == 0)
            return 0;
        if (errno != EAGAIN)
            return -errno;
        int left = (int)((deadline - probe_now()) * 1000);
        if (left <= 0)
            return -ETIMEDOUT;
        struct pollfd pfd = { .fd = c->ch->fd, .events = POLLIN };
        if (poll(&pfd, 1, left > 100 ? 100 : left) < 0 && errno != EINTR)
            return -errno;
    }
}

/* Waits for the event that the last step should bring; another one fails with its name. */
static int expect_event(struct conn *c, enum rdma_cm_event_type want, double deadline,
                        struct peer_rdma_accept *accept, const char **why)
{
    struct rdma_cm_event *ev;
    int r = next_event(c, deadline, &ev);
    if (r < 0) {
        *why = r == -ETIMEDOUT ? "the connection manager did not answer in time" : "rdma_get_cm_event failed";
        return r;
    }
    if (ev->event != want) {
        r = ev->event == RDMA_CM_EVENT_REJECTED ? -ECONNREFUSED : -EHOSTUNREACH;
        if (ev->event == RDMA_CM_EVENT_REJECTED && ev->status != CM_REJ_CONSUMER_DEFINED) {
            c->cm_refused = true;
            *why = ev->status == CM_REJ_INVALID_SERVICE_ID
                   ? "nothing listens on its port (is fabtuned running there, with probes.peers?)"
                   : "its connection manager rejected the connection";
        } else if (ev->event == RDMA_CM_EVENT_REJECTED)
            *why = ev->param.conn.private_data_len >= 1 && ev->param.conn.private_data &&
                   *(const uint8_t *)ev->param.conn.private_data == PEER_ACK_BUSY
                   ? "its responder serves its maximum of sessions"
                   : "its responder refused the connection (is this node in its probes.peers?)";
        else
            *why = rdma_event_str(ev->event);
        rdma_ack_cm_event(ev);
        return r;
    }
    if (accept && peer_rdma_accept_parse(ev->param.conn.private_data, ev->param.conn.private_data_len,
                                         accept) < 0) {
        *why = "its responder's answer is malformed";
        r = -EBADMSG;
    }
    rdma_ack_cm_event(ev);
    return r;
}

static void conn_close(struct conn *c, double deadline)
{
    struct rdma_side *s = &c->side;
    if (c->connected && rdma_disconnect(c->id) == 0) {
        struct rdma_cm_event *ev;
        /* The DISCONNECTED event, briefly: the peer may be gone. */
        if (next_event(c, deadline < probe_now() + 1 ? deadline : probe_now() + 1, &ev) == 0)
            rdma_ack_cm_event(ev);
    }
    if (c->id && c->id->qp)
        rdma_destroy_qp(c->id);
    rdma_side_release(s);
    if (c->id)
        rdma_destroy_id(c->id);
    if (c->ch)
        rdma_destroy_event_channel(c->ch);
}

/* Resources on the device the route goes through: the buffer (a send half and a poll
 * half of half bytes), its MR, a CQ and the RC QP. */
static int conn_resources(struct conn *c, size_t half)
{
    struct rdma_side *s = &c->side;
    int r = rdma_side_alloc(s, c->id->verbs, half);
    if (r < 0)
        return r;
    struct ibv_qp_init_attr init = rdma_qp_init_attr(s->cq);
    if (rdma_create_qp(c->id, s->pd, &init) < 0) {
        init.cap.max_inline_data = 0;       /* a device without inline data */
        if (rdma_create_qp(c->id, s->pd, &init) < 0)
            return -errno;
    }
    s->qp = c->id->qp;
    s->max_inline = init.cap.max_inline_data;
    return 0;
}

static int conn_open(struct conn *c, int family, const uint8_t *src, const uint8_t dst[16],
                     uint16_t port, const struct probe_params *p, size_t half, double deadline,
                     struct peer_rdma_accept *accept, struct rdma_connect_neighbour *neighbour,
                     const char **why)
{
    struct sockaddr_storage from, to;
    socklen_t flen = src ? tcp_make_addr(family, src, 0, &from) : 0;
    tcp_make_addr(family, dst, port, &to);
    (void)flen;
    int r;
    *why = "cannot create an RDMA CM channel (no rdma_ucm module?)";
    if (!(c->ch = rdma_create_event_channel()))
        return -errno;
    int fl = fcntl(c->ch->fd, F_GETFL);
    if (fl < 0 || fcntl(c->ch->fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
        rdma_create_id(c->ch, &c->id, NULL, RDMA_PS_TCP) < 0)
        return -errno;
    /* The ping-pong's class, for the route to take (before rdma_resolve_route). */
    uint8_t tos = (uint8_t)p->tos;
    *why = "cannot set the RDMA CM's ToS";
    if (p->tos >= 0 && rdma_set_option(c->id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos)) < 0)
        return -errno;
    *why = "cannot resolve its address to an RDMA device";
    if (rdma_resolve_addr(c->id, src ? (struct sockaddr *)&from : NULL, (struct sockaddr *)&to, RESOLVE_MS) < 0)
        return -errno;
    if ((r = expect_event(c, RDMA_CM_EVENT_ADDR_RESOLVED, deadline, NULL, why)) < 0)
        return r;
    *why = "cannot resolve the route to it";
    if (rdma_resolve_route(c->id, RESOLVE_MS) < 0)
        return -errno;
    if ((r = expect_event(c, RDMA_CM_EVENT_ROUTE_RESOLVED, deadline, NULL, why)) < 0)
        return r;
    if (neighbour && *neighbour->netdev)
        neighbour->read = source_neighbour_mac(neighbour->netdev, family, dst, neighbour->mac) == 0;
    *why = "cannot set up verbs resources";
    if ((r = conn_resources(c, half)) < 0)
        return r;
    uint8_t hello[PEER_RDMA_HELLO_LEN];
    uint32_t n = p->iterations;
    peer_rdma_hello_write(&(struct peer_rdma_hello){
        .size = p->size, .rounds = rdma_warmup(n) + n,
        .addr = (uintptr_t)(c->side.buf + half), .rkey = c->side.mr->rkey }, hello);
    struct rdma_conn_param cp = { .private_data = hello, .private_data_len = sizeof(hello),
                                  .responder_resources = 1, .initiator_depth = 1,
                                  .retry_count = 7, .rnr_retry_count = 7 };
    *why = "rdma_connect failed";
    if (rdma_connect(c->id, &cp) < 0)
        return -errno;
    if ((r = expect_event(c, RDMA_CM_EVENT_ESTABLISHED, deadline, accept, why)) < 0)
        return r;
    c->connected = true;
    c->side.remote_addr = accept->addr;
    c->side.remote_rkey = accept->rkey;
    return 0;
}

void probe_rdma_peer_run(int family, const uint8_t *src, const uint8_t dst[16], uint16_t port,
                         const struct probe_params *p, struct probe_result *lat,
                         struct probe_result *bw, struct rdma_connect_neighbour *neighbour)
{
    double deadline = probe_now() + (double)p->timeout / 1e6;
    struct conn c = { 0 };
    struct probe_mark mark;
    struct peer_rdma_accept acc;
    const char *why = "";
    uint32_t n = p->iterations, done = 0;
    /* The poll half holds a ping-pong message and a stream message, at most the largest
     * message the responder takes. */
    size_t half = p->bw_size > p->size ? p->bw_size : p->size;
    if (half > PEER_WIRE_MAX_SIZE)
        half = PEER_WIRE_MAX_SIZE;
    _cleanup_free_ uint64_t *posted = malloc((n + 1) * sizeof(*posted));
    _cleanup_free_ double *samples = malloc(n * sizeof(*samples));

    memset(lat, 0, sizeof(*lat));
    memset(bw, 0, sizeof(*bw));
    probe_mark(&mark);
    if (!posted || !samples) {
        probe_fail(lat, -ENOMEM, "out of memory");
        probe_fail(bw, -ENOMEM, "not run: out of memory");
        return;
    }
    int r = conn_open(&c, family, src, dst, port, p, half, deadline, &acc, neighbour, &why);
    if (r == -ECONNREFUSED && c.cm_refused &&
        deadline - probe_now() > 2.0 * RESOLVE_MS / 1000 + NO_LISTENER_RETRY_MS / 1000.0) {
        conn_close(&c, deadline);
        memset(&c, 0, sizeof(c));
        poll(NULL, 0, NO_LISTENER_RETRY_MS);
        r = conn_open(&c, family, src, dst, port, p, half, deadline, &acc, neighbour, &why);
    }
    if (r < 0) {
        probe_fail(lat, r, "%s: %s", why, errno_text(-r));
        probe_fail(bw, r, "not run: the connection failed");
    } else {
        rdma_read_tclass(c.side.qp, lat);
        c.side.size = p->size;
        r = rdma_initiate(&c.side, rdma_warmup(n), n, deadline, lat, posted, &done);
        if (r == 0)
            r = rdma_one_way_samples(posted, n, samples);
        if (r == 0) {
            stats_compute(samples, n, &lat->latency);
            lat->ran = true;
            lat->bytes = 2ull * (rdma_warmup(n) + n) * p->size;
            probe_cost_charge(lat, &mark);
            size_t size = p->bw_size < acc.len ? p->bw_size : acc.len;
            c.side.size = size;
            if (p->bw_duration)     /* 0: no stream (deferred) */
                rdma_stream(&c.side, p->bw_duration, size, deadline, bw);
            if (p->bw_duration && bw->error == 0 && !bw->ran)
                probe_fail(bw, -EIO, "RDMA WRITE stream: nothing completed");
        } else {
            if (!lat->error)
                probe_fail(lat, r, "RDMA WRITE ping-pong with the peer %s after %u round trips",
                           r == -ETIMEDOUT ? "timed out" : errno_text(-r), done);
            probe_fail(bw, r, "not run: the ping-pong failed");
        }
    }
    conn_close(&c, deadline);
    probe_cost_charge(lat->ran && !lat->error ? bw : lat, &mark);
}
