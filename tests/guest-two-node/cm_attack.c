/* SPDX-License-Identifier: ISC */
/* An attacker of the responder's RDMA CM side, run on node A against node B's fabtuned
 * (tests/guest-two-node/node-a-tests.sh). Prints its outcomes, one line per step.
 *   cm_attack ADDR PORT hello KIND      one connect request whose private data is KIND:
 *                                       empty, truncated, size, rounds, garbage. The CM
 *                                       pads a REQ's private data with zeros to 56 bytes
 *                                       (and refuses more): a hello cut after its size
 *                                       arrives with rounds 0.
 *   cm_attack ADDR PORT no-rtu N HOLD   N connects without a QP, never completed (no RTU:
 *                                       the CONNECT_RESPONSE is never accepted), held HOLD s
 *   cm_attack ADDR PORT flood N HOLD    N full connections at once, held silent: waits up to
 *                                       HOLD s for the responder to end those it accepted
 *   cm_attack ADDR PORT stall K HOLD    a session that stops answering after K round trips
 *   cm_attack ADDR PORT oob-write       a write just past the buffer the accept granted
 * Exits 0 when every step ran (the test judges the outcomes), 2 on a usage error. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "peer_wire.h"
#include "rdma_pingpong.h"

#define HALF 4096
#define MAX_CONNS 16

struct conn {
    struct rdma_event_channel *ch;
    struct rdma_cm_id *id;
    struct rdma_side side;
    struct peer_rdma_accept acc;
    double t_up, t_down;        /* accepted, ended by the responder (0: not yet) */
};

static struct sockaddr_in target;

/* The next event's type, its first private byte in *byte (-1: none); -1 after secs. */
static int next_event(struct conn *c, double secs, int *byte)
{
    double end = probe_now() + secs;
    struct rdma_cm_event *ev;
    while (rdma_get_cm_event(c->ch, &ev) < 0) {
        int left = (int)((end - probe_now()) * 1000);
        if (errno != EAGAIN || left <= 0)
            return -1;
        struct pollfd p = { .fd = c->ch->fd, .events = POLLIN };
        poll(&p, 1, left);
    }
    int type = ev->event;
    const uint8_t *pd = ev->param.conn.private_data;
    *byte = pd && ev->param.conn.private_data_len ? pd[0] : -1;
    if (type == RDMA_CM_EVENT_ESTABLISHED || type == RDMA_CM_EVENT_CONNECT_RESPONSE)
        peer_rdma_accept_parse(pd, ev->param.conn.private_data_len, &c->acc);
    rdma_ack_cm_event(ev);
    return type;
}

static int expect(struct conn *c, int want)
{
    int byte;
    return next_event(c, 5, &byte) == want ? 0 : -1;
}

/* The hello a real prober sends, for a session of rounds round trips of 8 bytes. */
static void valid_hello(const struct conn *c, uint32_t rounds, uint8_t out[PEER_RDMA_HELLO_LEN])
{
    peer_rdma_hello_write(&(struct peer_rdma_hello){
        .size = 8, .rounds = rounds, .rkey = c->side.mr ? c->side.mr->rkey : 0,
        .addr = (uintptr_t)(c->side.buf ? c->side.buf + HALF : NULL) }, out);
}

/* Resolves the target, with a QP and buffer when full; the connect's outcome as a word:
 * established, response (no QP: the CM waits for our RTU), busy, rejected, or the event. */
static const char *conn_open(struct conn *c, bool full, const uint8_t *pd, size_t pd_len, uint32_t rounds)
{
    uint8_t hello[PEER_RDMA_HELLO_LEN];
    int fl, byte;
    if (!(c->ch = rdma_create_event_channel()) || (fl = fcntl(c->ch->fd, F_GETFL)) < 0 ||
        fcntl(c->ch->fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
        rdma_create_id(c->ch, &c->id, c, RDMA_PS_TCP) < 0 ||
        rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&target, 2000) < 0 ||
        expect(c, RDMA_CM_EVENT_ADDR_RESOLVED) < 0 || rdma_resolve_route(c->id, 2000) < 0 ||
        expect(c, RDMA_CM_EVENT_ROUTE_RESOLVED) < 0)
        return "unresolved";
    if (full) {
        struct ibv_qp_init_attr init;
        if (rdma_side_alloc(&c->side, c->id->verbs, HALF) < 0)
            return "no-resources";
        init = rdma_qp_init_attr(c->side.cq);
        init.cap.max_inline_data = 0;
        if (rdma_create_qp(c->id, c->side.pd, &init) < 0)
            return "no-qp";
        c->side.qp = c->id->qp;
    }
    if (!pd) {
        valid_hello(c, rounds, hello);
        pd = hello;
        pd_len = sizeof(hello);
    }
    /* Without a QP the REQ carries qp_num: one of its own each, or the peer's CM takes
     * the second as a stale connection of the first and rejects it itself. */
    static uint32_t fake_qpn = 0x4242;
    struct rdma_conn_param cp = { .private_data = pd, .private_data_len = (uint8_t)pd_len,
                                  .responder_resources = 1, .initiator_depth = 1,
                                  .retry_count = 7, .rnr_retry_count = 7,
                                  .qp_num = full ? 0 : fake_qpn++ };
    if (rdma_connect(c->id, &cp) < 0)
        return "connect-failed";
    int ev = next_event(c, 10, &byte);
    c->t_up = probe_now();
    if (ev == RDMA_CM_EVENT_ESTABLISHED)
        return "established";
    if (ev == RDMA_CM_EVENT_CONNECT_RESPONSE)
        return "response";
    if (ev == RDMA_CM_EVENT_REJECTED)
        return byte == PEER_ACK_BUSY ? "busy" : "rejected";
    return ev < 0 ? "no-answer" : rdma_event_str(ev);
}

static void conn_close(struct conn *c)
{
    if (c->id && c->id->qp)
        rdma_destroy_qp(c->id);
    rdma_side_release(&c->side);
    if (c->id)
        rdma_destroy_id(c->id);
    if (c->ch)
        rdma_destroy_event_channel(c->ch);
}

/* Waits up to hold s for the responder to end each accepted connection (its
 * DISCONNECTED, or any end event); prints how many ended and the latest, in seconds
 * after its accept. */
static void wait_ends(struct conn *c, int n, double hold)
{
    double end = probe_now() + hold, latest = 0;
    int up = 0, ended = 0, byte;
    for (int i = 0; i < n; i++)
        up += c[i].t_up > 0;
    while (ended < up && probe_now() < end) {
        for (int i = 0; i < n; i++) {
            if (!c[i].t_up || c[i].t_down)
                continue;
            int ev = next_event(&c[i], 0.02, &byte);
            if (ev == RDMA_CM_EVENT_DISCONNECTED || ev == RDMA_CM_EVENT_REJECTED ||
                ev == RDMA_CM_EVENT_CONNECT_ERROR || ev == RDMA_CM_EVENT_UNREACHABLE) {
                c[i].t_down = probe_now();
                ended++;
                if (c[i].t_down - c[i].t_up > latest)
                    latest = c[i].t_down - c[i].t_up;
            }
        }
    }
    printf("ended %d of %d, the last %.1f s after its accept\n", ended, up, latest);
}

static int attack_hello(const char *kind)
{
    struct conn c = { 0 };
    uint8_t pd[56];
    size_t len = sizeof(pd);
    valid_hello(&c, 100, pd);
    if (!strcmp(kind, "empty"))
        len = 0;
    else if (!strcmp(kind, "truncated"))        /* magic, version, size: no rounds */
        len = 12;
    else if (!strcmp(kind, "size"))             /* one byte over the largest message */
        peer_rdma_hello_write(&(struct peer_rdma_hello){ .size = PEER_WIRE_MAX_SIZE + 1, .rounds = 100 }, pd);
    else if (!strcmp(kind, "rounds"))
        peer_rdma_hello_write(&(struct peer_rdma_hello){ .size = 8, .rounds = PEER_RDMA_MAX_ROUNDS + 1 }, pd);
    else if (!strcmp(kind, "garbage"))          /* the most private data a REQ carries */
        for (size_t i = 0; i < len; i++)
            pd[i] = (uint8_t)(i * 37 + 11);
    else
        return 2;
    printf("hello %s: %s\n", kind, conn_open(&c, false, len ? pd : (const uint8_t *)"", len, 100));
    conn_close(&c);
    return 0;
}

static int attack_many(bool full, int n, double hold)
{
    struct conn c[MAX_CONNS] = { 0 };
    int busy = 0, other = 0, up = 0;
    for (int i = 0; i < n; i++) {
        const char *r = conn_open(&c[i], full, NULL, 0, 1000);
        if (!strcmp(r, full ? "established" : "response"))
            up++;
        else if (c[i].t_up = 0, !strcmp(r, "busy"))
            busy++;
        else {
            other++;
            printf("connect %d: %s\n", i + 1, r);
        }
    }
    printf("%s %d, busy %d, other %d\n", full ? "established" : "responses", up, busy, other);
    fflush(stdout);
    if (full)
        wait_ends(c, n, hold);
    else
        sleep((unsigned)hold);      /* the responder ends them by itself, or does not */
    for (int i = 0; i < n; i++)
        conn_close(&c[i]);
    return 0;
}

static int attack_stall(uint32_t k, double hold)
{
    struct conn c = { 0 };
    struct probe_result lat = { 0 };
    uint64_t posted[1];
    uint32_t done = 0;
    const char *r = conn_open(&c, true, NULL, 0, 1000);
    if (strcmp(r, "established")) {
        printf("stall: %s\n", r);
        conn_close(&c);
        return 0;
    }
    c.side.size = 8;
    c.side.remote_addr = c.acc.addr;
    c.side.remote_rkey = c.acc.rkey;
    int err = rdma_initiate(&c.side, k, 0, probe_now() + 10, &lat, posted, &done);
    printf("round trips %u of 1000 (%s), then silence\n", done, err ? "failed" : "ok");
    fflush(stdout);
    c.t_up = probe_now();
    wait_ends(&c, 1, hold);
    conn_close(&c);
    return 0;
}

/* One write of 64 bytes just past the granted poll buffer: the responder's memory that
 * belongs to no one, or to another session. Its completion status. */
static int attack_oob_write(void)
{
    struct conn c = { 0 };
    const char *r = conn_open(&c, true, NULL, 0, 1000);
    if (strcmp(r, "established")) {
        printf("oob-write: %s\n", r);
        conn_close(&c);
        return 0;
    }
    struct ibv_sge sge = { .addr = (uintptr_t)c.side.buf, .length = 64, .lkey = c.side.mr->lkey };
    struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
                              .send_flags = IBV_SEND_SIGNALED,
                              .wr.rdma = { .remote_addr = c.acc.addr + c.acc.len, .rkey = c.acc.rkey } }, *bad;
    struct ibv_wc wc = { .status = IBV_WC_GENERAL_ERR };
    int n = 0;
    if (ibv_post_send(c.side.qp, &wr, &bad) == 0)
        for (double end = probe_now() + 10; n == 0 && probe_now() < end;)
            n = ibv_poll_cq(c.side.cq, 1, &wc);
    printf("write past the granted buffer: %s\n", n == 1 ? ibv_wc_status_str(wc.status) : "no completion");
    conn_close(&c);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        goto usage;
    target.sin_family = AF_INET;
    target.sin_port = htons((uint16_t)atoi(argv[2]));
    if (inet_pton(AF_INET, argv[1], &target.sin_addr) != 1)
        goto usage;
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *mode = argv[3];
    int n = argc > 4 ? atoi(argv[4]) : 0;
    double hold = argc > 5 ? atof(argv[5]) : 0;
    if (!strcmp(mode, "hello") && argc == 5)
        return attack_hello(argv[4]);
    if ((!strcmp(mode, "no-rtu") || !strcmp(mode, "flood")) && argc == 6 && n >= 1 && n <= MAX_CONNS)
        return attack_many(!strcmp(mode, "flood"), n, hold);
    if (!strcmp(mode, "stall") && argc == 6 && n >= 1)
        return attack_stall((uint32_t)n, hold);
    if (!strcmp(mode, "oob-write") && argc == 4)
        return attack_oob_write();
usage:
    fprintf(stderr, "usage: cm_attack ADDR PORT hello|no-rtu|flood|stall|oob-write [ARGS]\n");
    return 2;
}
