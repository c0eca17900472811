/* SPDX-License-Identifier: ISC */
/* Tests of the peer responder's time bounds, in process on the loopback: a prober that
 * trickles its hello, or its messages, one byte at a time ends at its limit, and a real
 * probe then gets the slot. */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check_run.h"
#include "peer_wire.h"
#include "policy.h"
#include "probe_result.h"
#include "probe_tcp.h"
#include "responder.h"

#define TICK 0.2        /* seconds between the trickling prober's bytes */

/* A port that was free a moment ago (the kernel's pick for port 0). */
static uint16_t free_port(void)
{
    struct sockaddr_in6 sin = { .sin6_family = AF_INET6 };
    socklen_t len = sizeof(sin);
    int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
    close(fd);
    return ntohs(sin.sin6_port);
}

/* A responder on every address that serves the loopback, two sessions at a time (a
 * probe's stream may come before its echo session's thread has let its slot go). */
static struct responder *start_responder(uint16_t port, usec_t session_limit)
{
    struct policy p;
    struct responder *r = NULL;
    struct responder_stats st = { 0 };
    char lo[] = "127.0.0.1", *hosts[] = { lo };
    policy_init_defaults(&p);
    p.probes.peers.hosts = hosts;
    p.probes.peers.n_hosts = 1;
    p.probes.peers.port = port;
    p.probes.peers.max_sessions = 2;
    p.probes.peers.session_limit = session_limit;
    ck_assert_int_eq(responder_start(&p, NULL, 0, &r), 0);
    p.probes.peers.hosts = NULL;
    p.probes.peers.n_hosts = 0;
    policy_done(&p);
    for (int i = 0; i < 500 && !st.allowed; i++) {      /* the allowlist resolves in its thread */
        responder_get_stats(r, &st);
        usleep(10000);
    }
    ck_assert_uint_ge(st.allowed, 1);
    return r;
}

/* True once the responder has closed the connection: waits up to one tick for it. */
static bool closed_within_tick(int fd)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    uint8_t b;
    if (poll(&p, 1, (int)(TICK * 1000)) <= 0)
        return false;
    ssize_t k = recv(fd, &b, 1, MSG_DONTWAIT);
    return k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR);     /* the ack reads as 1 */
}

/* An echo prober that sends its hello at once or a byte per tick, then a byte of its
 * 64 KiB message per tick: the seconds from its connect until the responder closed, or
 * -1 when it still held the session after give_up seconds. */
static double trickle(uint16_t port, bool slow_hello, double give_up)
{
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    uint8_t hello[PEER_WIRE_HELLO_LEN], byte = 'x';
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    double start = probe_now(), end = -1;
    peer_hello_write(&(struct peer_hello){ PEER_SESSION_ECHO, PEER_WIRE_MAX_SIZE }, hello);
    if (!slow_hello)
        ck_assert_int_eq(send(fd, hello, sizeof(hello), MSG_NOSIGNAL), sizeof(hello));
    for (size_t sent = 0; probe_now() - start < give_up; sent++) {
        const uint8_t *next = slow_hello && sent < sizeof(hello) ? &hello[sent] : &byte;
        if (send(fd, next, 1, MSG_NOSIGNAL) != 1 || closed_within_tick(fd)) {
            end = probe_now() - start;
            break;
        }
    }
    close(fd);
    return end;
}

/* The trickle's slot is free again, and a real probe through the responder succeeds. */
static void assert_probe_succeeds(struct responder *r, uint16_t port)
{
    struct responder_stats st = { .active = 1 };
    for (int i = 0; i < 100 && st.active; i++) {
        responder_get_stats(r, &st);
        usleep(10000);
    }
    ck_assert_uint_eq(st.active, 0);
    uint8_t lo[16] = { 127, 0, 0, 1 };
    struct probe_params p = { .iterations = 20, .size = 64, .bw_duration = 20 * USEC_PER_MSEC,
                              .timeout = 5 * USEC_PER_SEC };
    struct probe_result lat = { 0 }, bw = { 0 };
    probe_tcp_peer_run(AF_INET, NULL, lo, port, &p, &lat, &bw);
    ck_assert_msg(!lat.error, "latency after the trickle: %s", lat.error_text);
    ck_assert_msg(!bw.error, "stream after the trickle: %s", bw.error_text);
}

/* session_limit bounds the whole session, not each recv(): the trickle ends at the limit
 * (plus a tick to notice, and slack for a loaded machine), never at 4 times it. */
START_TEST(test_session_limit_against_trickle)
{
    uint16_t port = free_port();
    struct responder *r = start_responder(port, 1 * USEC_PER_SEC);
    double held = trickle(port, false, 4.0);
    fprintf(stderr, "a trickling session (limit 1 s) held %.2f s\n", held);
    ck_assert_msg(held >= 0.95 && held <= 1.5 + TICK, "held %.2f s against a 1 s limit", held);
    assert_probe_succeeds(r, port);
    responder_stop(r);
}
END_TEST

/* The hello has its own bound (2 s, inside session_limit): a hello sent one byte per tick
 * (2.4 s) is never accepted, however long the session's limit. */
START_TEST(test_hello_limit_against_trickle)
{
    uint16_t port = free_port();
    struct responder *r = start_responder(port, 10 * USEC_PER_SEC);
    struct responder_stats st;
    double held = trickle(port, true, 6.0);
    fprintf(stderr, "a trickled hello (limit 2 s) held %.2f s\n", held);
    ck_assert_msg(held >= 1.9 && held <= 3.0 + TICK, "held %.2f s against a 2 s hello limit", held);
    responder_get_stats(r, &st);
    ck_assert_uint_eq(st.bad_hello, 1);
    ck_assert_uint_eq(st.sessions, 0);
    assert_probe_succeeds(r, port);
    responder_stop(r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("responder");
    TCase *tc = tcase_create("time-bounds");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_session_limit_against_trickle);
    tcase_add_test(tc, test_hello_limit_against_trickle);
    suite_add_tcase(s, tc);
    return check_run(s);
}
