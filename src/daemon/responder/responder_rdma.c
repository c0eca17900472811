/* SPDX-License-Identifier: ISC */
/* The responder's RDMA side. One thread owns the connection manager's channel: it judges
 * each connect request (allowlist, hello, a free slot) before it allocates anything for
 * it, accepts with its slot's buffer, and reaps the sessions that ended. Each session
 * thread answers the ping-pong, then waits for the prober's stream and disconnect, never
 * past session_limit. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "peer_wire.h"
#include "probe_clock.h"
#include "rdma_pingpong.h"
#include "responder_rdma.h"
#include "strutil.h"
#include "tcp_io.h"

#define SLOT_HALF PEER_WIRE_MAX_SIZE
#define MAX_DEVICES 16

/* One MR per slot: the rkey an accept hands out reaches that slot's buffer only, never
 * another session's. */
struct device_mem {
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_mr **mr;         /* [slot] */
    uint8_t *buf;               /* slots x 2 x SLOT_HALF */
};

struct rsession {
    struct rdma_listener *l;
    struct rdma_cm_id *id;
    struct ibv_cq *cq;
    struct rdma_side side;
    int slot;
    uint32_t rounds;
    pthread_t thread;
    atomic_bool disconnected, finished;
    volatile bool cancel;
    bool served;
    struct rsession *next;
};

struct rdma_listener {
    struct responder *owner;
    struct rdma_event_channel *ch;
    struct rdma_cm_id *listen[RESPONDER_MAX_ADDRESSES];
    size_t n_listen;
    int stop_fd;
    pthread_t thread;
    uint32_t slots;
    struct device_mem dev[MAX_DEVICES];
    size_t n_dev;
    struct rsession *sessions;
};

static void device_mem_free(struct device_mem *d, uint32_t slots)
{
    for (uint32_t i = 0; d->mr && i < slots; i++)
        if (d->mr[i])
            ibv_dereg_mr(d->mr[i]);
    free(d->mr);
    free(d->buf);
    if (d->pd)
        ibv_dealloc_pd(d->pd);
    memset(d, 0, sizeof(*d));
}

/* The PD, buffer and slot MRs on ctx's device, set up by the first session through it. */
static struct device_mem *device_of(struct rdma_listener *l, struct ibv_context *ctx)
{
    for (size_t i = 0; i < l->n_dev; i++)
        if (l->dev[i].ctx == ctx)
            return &l->dev[i];
    if (l->n_dev >= MAX_DEVICES)
        return NULL;
    struct device_mem *d = &l->dev[l->n_dev];
    size_t len = (size_t)l->slots * 2 * SLOT_HALF;
    bool ok;
    d->ctx = ctx;
    errno = ENOMEM;
    ok = (d->pd = ibv_alloc_pd(ctx)) != NULL && !posix_memalign((void **)&d->buf, 4096, len) &&
         (d->mr = calloc(l->slots, sizeof(*d->mr))) != NULL;
    for (uint32_t i = 0; ok && i < l->slots; i++)
        ok = (d->mr[i] = ibv_reg_mr(d->pd, d->buf + (size_t)i * 2 * SLOT_HALF, 2 * SLOT_HALF,
                                    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)) != NULL;
    if (!ok) {
        int err = errno;
        device_mem_free(d, l->slots);
        log_warning("responder: cannot register %zu bytes on %s: %s", len,
                    ibv_get_device_name(ctx->device), errno_text(err));
        return NULL;
    }
    l->n_dev++;
    return d;
}

static void *session_main(void *arg)
{
    struct rsession *s = arg;
    struct probe_result res = { 0 };
    double deadline = probe_now() + responder_session_limit(s->l->owner);
    s->served = rdma_respond(&s->side, s->rounds, deadline, &res) == 0;
    /* The prober's stream lands in this slot's buffer: keep the QP until it disconnects. */
    while (!atomic_load(&s->disconnected) && !s->cancel && probe_now() < deadline)
        poll(NULL, 0, 2);
    atomic_store(&s->finished, true);
    return NULL;
}

static void session_free(struct rsession *s)
{
    if (s->id->qp)
        rdma_destroy_qp(s->id);
    if (s->cq)
        ibv_destroy_cq(s->cq);
    rdma_destroy_id(s->id);
    responder_slot_release(s->l->owner, s->slot, s->served);
    free(s);
}

static void reject(struct rdma_cm_id *id, bool busy)
{
    uint8_t code = PEER_ACK_BUSY;
    rdma_reject(id, busy ? &code : NULL, busy ? 1 : 0);
}

/* The peer's address as 16 bytes, IPv4 as ::ffff:a.b.c.d. */
static void source_of(const struct sockaddr *sa, uint8_t out[16])
{
    memset(out, 0, 16);
    if (sa && sa->sa_family == AF_INET6) {
        struct sockaddr_in6 in6;
        memcpy(&in6, sa, sizeof(in6));
        memcpy(out, &in6.sin6_addr, 16);
    } else if (sa && sa->sa_family == AF_INET) {
        struct sockaddr_in in;
        memcpy(&in, sa, sizeof(in));
        out[10] = out[11] = 0xff;
        memcpy(out + 12, &in.sin_addr, 4);
    }
}

/* A connect request: 0 when a session took it; else it was rejected and the caller
 * destroys the id once the event is acked. */
static int connect_request(struct rdma_listener *l, struct rdma_cm_event *ev)
{
    struct rdma_cm_id *id = ev->id;
    struct peer_rdma_hello h;
    uint8_t src[16];
    source_of(rdma_get_peer_addr(id), src);
    if (!responder_allowed(l->owner, src)) {
        reject(id, false);              /* before anything is allocated */
        responder_count_refused(l->owner, src);
        return -EPERM;
    }
    if (peer_rdma_hello_parse(ev->param.conn.private_data, ev->param.conn.private_data_len, &h) < 0) {
        reject(id, false);
        responder_count_bad(l->owner);
        return -EBADMSG;
    }
    int slot = responder_slot_take(l->owner);
    if (slot < 0) {
        reject(id, true);
        return -EBUSY;
    }
    struct device_mem *d = device_of(l, id->verbs);
    struct rsession *s = d ? calloc(1, sizeof(*s)) : NULL;
    if (!s) {
        reject(id, false);
        responder_slot_release(l->owner, slot, false);
        return -ENOMEM;
    }
    *s = (struct rsession){ .l = l, .id = id, .slot = slot, .rounds = h.rounds };
    s->side = (struct rdma_side){
        .ctx = id->verbs, .pd = d->pd, .mr = d->mr[slot], .half = SLOT_HALF, .size = h.size,
        .buf = d->buf + (size_t)slot * 2 * SLOT_HALF,
        .remote_addr = h.addr, .remote_rkey = h.rkey, .cancel = &s->cancel,
    };
    memset(s->side.buf, 0, 2 * SLOT_HALF);      /* no mark of an earlier session */
    uint8_t answer[PEER_RDMA_ACCEPT_LEN];
    peer_rdma_accept_write(&(struct peer_rdma_accept){
        .addr = (uintptr_t)(s->side.buf + SLOT_HALF), .rkey = d->mr[slot]->rkey, .len = SLOT_HALF }, answer);
    struct rdma_conn_param cp = { .private_data = answer, .private_data_len = sizeof(answer),
                                  .responder_resources = 1, .initiator_depth = 1,
                                  .rnr_retry_count = 7 };
    int err = 0;
    if (!(s->cq = ibv_create_cq(id->verbs, RDMA_SQ_DEPTH * 2, NULL, NULL, 0)))
        err = -errno;
    struct ibv_qp_init_attr init = rdma_qp_init_attr(s->cq);
    if (!err && rdma_create_qp(id, d->pd, &init) < 0) {
        init.cap.max_inline_data = 0;
        if (rdma_create_qp(id, d->pd, &init) < 0)
            err = -errno;
    }
    s->side.qp = id->qp;
    s->side.cq = s->cq;
    s->side.max_inline = init.cap.max_inline_data;
    if (!err && rdma_accept(id, &cp) < 0)
        err = -errno;
    if (!err && (err = -pthread_create(&s->thread, NULL, session_main, s)) == 0) {
        id->context = s;
        s->next = l->sessions;
        l->sessions = s;
        return 0;
    }
    log_warning("responder: cannot serve an RDMA session: %s", errno_text(-err));
    reject(id, false);
    if (id->qp)
        rdma_destroy_qp(id);
    if (s->cq)
        ibv_destroy_cq(s->cq);
    responder_slot_release(l->owner, slot, false);
    free(s);
    return err;
}

static void handle(struct rdma_listener *l, struct rdma_cm_event *ev)
{
    struct rdma_cm_id *id = ev->id;
    struct rsession *s = ev->listen_id ? NULL : id->context;
    int r = 0;
    switch (ev->event) {
    case RDMA_CM_EVENT_CONNECT_REQUEST:
        r = connect_request(l, ev);
        break;
    case RDMA_CM_EVENT_DISCONNECTED:
    case RDMA_CM_EVENT_CONNECT_ERROR:
    case RDMA_CM_EVENT_UNREACHABLE:
    case RDMA_CM_EVENT_REJECTED:
    case RDMA_CM_EVENT_DEVICE_REMOVAL:
        if (s)
            atomic_store(&s->disconnected, true);
        break;
    default:
        break;
    }
    rdma_ack_cm_event(ev);
    if (r < 0)
        rdma_destroy_id(id);    /* a rejected request's id is ours to destroy, once acked */
}

/* Joins and frees the sessions that ended (all of them when stopping). */
static void reap(struct rdma_listener *l, bool all)
{
    for (struct rsession **p = &l->sessions; *p;) {
        struct rsession *s = *p;
        if (all)
            s->cancel = true;
        if (!all && !atomic_load(&s->finished)) {
            p = &s->next;
            continue;
        }
        pthread_join(s->thread, NULL);
        rdma_disconnect(s->id);
        *p = s->next;
        session_free(s);
    }
}

static void *listener_main(void *arg)
{
    struct rdma_listener *l = arg;
    /* The cycle counter's rate, calibrated (10 ms) here, not in a session's first round. */
    cycle_clock_seconds_per_cycle();
    for (;;) {
        struct pollfd p[2] = { { .fd = l->ch->fd, .events = POLLIN },
                               { .fd = l->stop_fd, .events = POLLIN } };
        if (poll(p, 2, l->sessions ? 20 : 1000) < 0 && errno != EINTR)
            break;
        if (p[1].revents)
            break;
        struct rdma_cm_event *ev;
        while (rdma_get_cm_event(l->ch, &ev) == 0)
            handle(l, ev);
        reap(l, false);
    }
    reap(l, true);
    return NULL;
}

static void listener_free(struct rdma_listener *l)
{
    for (size_t i = 0; i < l->n_listen; i++)
        rdma_destroy_id(l->listen[i]);
    for (size_t i = 0; i < l->n_dev; i++)
        device_mem_free(&l->dev[i], l->slots);
    if (l->ch)
        rdma_destroy_event_channel(l->ch);
    if (l->stop_fd >= 0)
        close(l->stop_fd);
    free(l);
}

/* One listening id on addr (NULL: every address). */
static int listen_on(struct rdma_listener *l, const struct responder_address *a, uint16_t port)
{
    static const uint8_t any[16];
    struct sockaddr_storage ss;
    struct rdma_cm_id *id;
    tcp_make_addr(a ? a->family : AF_INET6, a ? a->addr : any, port, &ss);
    if (rdma_create_id(l->ch, &id, l, RDMA_PS_TCP) < 0)
        return -errno;
    l->listen[l->n_listen++] = id;
    if (rdma_bind_addr(id, (struct sockaddr *)&ss) < 0 || rdma_listen(id, 64) < 0)
        return -errno;
    return 0;
}

int rdma_listener_start(struct responder *owner, const struct responder_address *addrs,
                        size_t n, uint16_t port, uint32_t max_sessions, struct rdma_listener **ret)
{
    struct rdma_listener *l = calloc(1, sizeof(*l));
    int err = -ENOMEM, fl;
    *ret = NULL;
    if (!l)
        return err;
    l->owner = owner;
    l->slots = max_sessions;
    l->stop_fd = -1;
    if (!(l->ch = rdma_create_event_channel()) || (fl = fcntl(l->ch->fd, F_GETFL)) < 0 ||
        fcntl(l->ch->fd, F_SETFL, fl | O_NONBLOCK) < 0 || (l->stop_fd = eventfd(0, EFD_CLOEXEC)) < 0) {
        err = errno ? -errno : -ENODEV;
        listener_free(l);
        return err;
    }
    for (size_t i = 0; i < (n ? n : 1); i++)
        if ((err = listen_on(l, n ? &addrs[i] : NULL, port)) < 0) {
            listener_free(l);
            return err;
        }
    if ((err = -pthread_create(&l->thread, NULL, listener_main, l)) < 0) {
        listener_free(l);
        return err;
    }
    *ret = l;
    return 0;
}

void rdma_listener_stop(struct rdma_listener *l)
{
    uint64_t one = 1;
    if (!l)
        return;
    (void)!write(l->stop_fd, &one, sizeof(one));
    pthread_join(l->thread, NULL);
    listener_free(l);
}
