/* SPDX-License-Identifier: ISC */
/* Tests of the peer responder's time bounds, in process on the loopback: a prober that
 * trickles its hello, or its messages, one byte at a time ends at its limit, and a real
 * probe then gets the slot. And the links answer's layouts between old and new ends: a
 * prober of before port data (hello size 0) gets layout 0 from this responder, this
 * prober gets layout 1 from it, and falls back to layout 0 from an older responder that
 * refuses the hello, or answers layout 0 to it. */
#include "config.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check_run.h"
#include "peer_links.h"
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

/* The links answer from the real responder, as an old prober asks (hello size 0, raw):
 * layout 0's length for its count; and as this prober asks: layout 1, kept. */
START_TEST(test_links_layouts_new_responder)
{
    uint16_t port = free_port();
    struct responder *r = start_responder(port, 5 * USEC_PER_SEC);
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    static uint8_t in[PEER_LINKS_MAX_LEN + 1];
    static struct link_traffic t;
    uint8_t hello[PEER_WIRE_HELLO_LEN];
    size_t len = 0;
    ssize_t k;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_eq(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    peer_hello_write(&(struct peer_hello){ PEER_SESSION_LINKS, 0 }, hello);
    ck_assert_int_eq(send(fd, hello, sizeof(hello), MSG_NOSIGNAL), sizeof(hello));
    while ((k = recv(fd, in + len, sizeof(in) - len, 0)) > 0)
        len += (size_t)k;
    close(fd);
    ck_assert_uint_ge(len, 2);
    ck_assert_uint_eq(in[0], PEER_ACK_OK);
    ck_assert_uint_eq(len - 1, 1 + (size_t)in[1] * PEER_LINKS_ENTRY_LEN);    /* layout 0 */
    ck_assert_int_eq(peer_links_parse(in + 1, len - 1, PEER_LINKS_NETDEV, &t), 0);
    size_t n_old = t.n;

    uint8_t lo[16] = { 127, 0, 0, 1 };
    enum peer_links_layout layout = PEER_LINKS_PORT_DATA;
    const char *why = "";
    ck_assert_int_eq(probe_tcp_peer_links(AF_INET, NULL, lo, port, 5.0, &layout, &t, &why), 0);
    ck_assert_int_eq(layout, PEER_LINKS_PORT_DATA);
    ck_assert_uint_eq(t.n, n_old);
    layout = PEER_LINKS_NETDEV;
    ck_assert_int_eq(probe_tcp_peer_links(AF_INET, NULL, lo, port, 5.0, &layout, &t, &why), 0);
    ck_assert_int_eq(layout, PEER_LINKS_NETDEV);
    responder_stop(r);
}
END_TEST

/* A responder of before port data, in a thread: for each of N connections, it reads the
 * hello and, when it is one its rules took (a links hello of size 0) or IGNORE_SIZE says
 * it reads no size, acks and sends its two netdevs in layout 0; else closes, no ack. */
struct old_responder {
    int listen_fd, n, sessions, refused;
    bool ignore_size;
};

static void *old_responder_main(void *arg)
{
    struct old_responder *o = arg;
    static struct link_traffic t = { .n = 2 };
    static uint8_t out[PEER_LINKS_MAX_LEN];
    snprintf(t.e[0].name, IFNAMSIZ, "b1");
    t.e[0].rx_bytes = 1000;
    snprintf(t.e[1].name, IFNAMSIZ, "b2");
    t.e[1].tx_bytes = 2000;
    t.e[1].has_port_data = true;        /* an old responder could not say it */
    for (int i = 0; i < o->n; i++) {
        uint8_t hello[PEER_WIRE_HELLO_LEN], ack = PEER_ACK_OK;
        struct pollfd p = { .fd = o->listen_fd, .events = POLLIN };
        if (poll(&p, 1, 5000) <= 0)
            break;
        int fd = accept4(o->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            break;
        ssize_t k = recv(fd, hello, sizeof(hello), MSG_WAITALL);
        uint32_t size = (uint32_t)hello[8] << 24 | (uint32_t)hello[9] << 16 | hello[10] << 8 | hello[11];
        if (k == (ssize_t)sizeof(hello) && hello[5] == PEER_SESSION_LINKS && (size == 0 || o->ignore_size)) {
            o->sessions++;
            (void)!send(fd, &ack, 1, MSG_NOSIGNAL);
            (void)!send(fd, out, peer_links_write(&t, PEER_LINKS_NETDEV, out), MSG_NOSIGNAL);
        } else {
            o->refused++;
        }
        close(fd);
    }
    return NULL;
}

static void old_responder_case(bool ignore_size, int want_connections)
{
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t slen = sizeof(sin);
    struct old_responder o = { .n = want_connections, .ignore_size = ignore_size };
    pthread_t th;
    o.listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_eq(bind(o.listen_fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    ck_assert_int_eq(listen(o.listen_fd, 4), 0);
    ck_assert_int_eq(getsockname(o.listen_fd, (struct sockaddr *)&sin, &slen), 0);
    ck_assert_int_eq(pthread_create(&th, NULL, old_responder_main, &o), 0);

    uint8_t lo[16] = { 127, 0, 0, 1 };
    enum peer_links_layout layout = PEER_LINKS_PORT_DATA;
    static struct link_traffic t;
    const char *why = "";
    int r = probe_tcp_peer_links(AF_INET, NULL, lo, ntohs(sin.sin_port), 5.0, &layout, &t, &why);
    pthread_join(th, NULL);
    close(o.listen_fd);
    ck_assert_msg(r == 0, "links from an old responder: %s", why);
    ck_assert_int_eq(layout, PEER_LINKS_NETDEV);
    ck_assert_int_eq(o.sessions, 1);
    ck_assert_int_eq(o.refused, want_connections - 1);
    ck_assert_uint_eq(t.n, 2);
    ck_assert_str_eq(t.e[0].name, "b1");
    ck_assert_uint_eq(t.e[0].rx_bytes, 1000);
    ck_assert_uint_eq(t.e[1].tx_bytes, 2000);
    ck_assert(!t.e[0].has_port_data && !t.e[1].has_port_data);
}

/* This prober against an older responder: one that refuses the layout-1 hello is asked
 * once more for layout 0 (two connections); one that answers layout 0 to it is taken at
 * its word (one). */
START_TEST(test_links_old_responder)
{
    old_responder_case(false, 2);
    old_responder_case(true, 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("responder");
    TCase *tc = tcase_create("time-bounds");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_session_limit_against_trickle);
    tcase_add_test(tc, test_hello_limit_against_trickle);
    tcase_add_test(tc, test_links_layouts_new_responder);
    tcase_add_test(tc, test_links_old_responder);
    suite_add_tcase(s, tc);
    return check_run(s);
}
