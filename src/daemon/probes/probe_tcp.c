/* SPDX-License-Identifier: ISC */
/* The TCP loopback probe. A server thread echoes (latency) or sinks (bandwidth); the client
 * times each round trip. Every socket has a timeout and the whole probe a deadline. */
#include "config.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "macro.h"
#include "probe_tcp.h"
#include "strutil.h"
#include "tcp_io.h"
#include "peer_links.h"
#include "peer_wire.h"
#include "stream_meter.h"

#define STREAM_CHUNK (64 * 1024)

struct server {
    int listen_fd;
    int family, tos;            /* the echo's TOS (the ping-pong's), -1: the socket's own */
    uint32_t size;
    double deadline;
    int error;
    double cpu_echo, cpu_sink;  /* the thread's CPU time in each */
    double wait_echo;           /* and its CPU wait in the echo */
    uint64_t sunk_bytes;
    double sink_first, sink_last;
};

static int accept_one(struct server *s)
{
    struct pollfd pfd = { .fd = s->listen_fd, .events = POLLIN };
    int left = (int)((s->deadline - probe_now()) * 1000);
    if (left <= 0 || poll(&pfd, 1, left) <= 0)
        return -ETIMEDOUT;
    int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return -errno;
    tcp_set_deadline(fd, s->deadline);
    return fd;
}

static void serve_echo(struct server *s, char *buf)
{
    _cleanup_close_ int fd = accept_one(s);
    if (fd < 0) {
        s->error = fd;
        return;
    }
    (void)tcp_set_tos(fd, s->family, s->tos);   /* its answers in the ping-pong's class */
    for (;;) {
        int r = tcp_full_io(fd, buf, s->size, false);
        if (r == -ECONNRESET)
            return;         /* the client is done */
        if (r < 0 || (r = tcp_full_io(fd, buf, s->size, true)) < 0) {
            s->error = r;
            return;
        }
    }
}

static void serve_sink(struct server *s, char *buf)
{
    _cleanup_close_ int fd = accept_one(s);
    if (fd < 0) {
        s->error = fd;
        return;
    }
    for (;;) {
        ssize_t k = recv(fd, buf, STREAM_CHUNK, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            s->error = k < 0 ? -errno : 0;
            return;
        }
        double now = probe_now();
        if (!s->sunk_bytes)
            s->sink_first = now;
        s->sink_last = now;
        s->sunk_bytes += (uint64_t)k;
    }
}

static void *server_main(void *arg)
{
    struct server *s = arg;
    double cpu0 = probe_thread_cpu(), wait0 = probe_thread_cpu_wait();
    char *buf = malloc(s->size > STREAM_CHUNK ? s->size : STREAM_CHUNK);
    if (!buf) {
        s->error = -ENOMEM;
        return NULL;
    }
    serve_echo(s, buf);
    s->cpu_echo = probe_thread_cpu() - cpu0;
    s->wait_echo = probe_thread_cpu_wait() - wait0;
    if (s->error == 0)
        serve_sink(s, buf);
    free(buf);
    s->cpu_sink = probe_thread_cpu() - cpu0 - s->cpu_echo;
    return NULL;
}

static int open_listener(int family, const uint8_t addr[16], uint16_t *ret_port)
{
    struct sockaddr_storage ss;
    socklen_t len = tcp_make_addr(family, addr, 0, &ss);
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 2) < 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
        int r = -errno;
        close(fd);
        return r;
    }
    *ret_port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                        : ((struct sockaddr_in6 *)&ss)->sin6_port);
    return fd;
}

/* src: the address to bind the client to (the rail's), or NULL for the route's choice.
 * tos: the IP TOS byte from the SYN on; -1: the socket's own. */
static int connect_to(int family, const uint8_t *src_addr, const uint8_t addr[16], uint16_t port,
                      int tos, double deadline)
{
    struct sockaddr_storage ss;
    socklen_t len = tcp_make_addr(family, addr, port, &ss);
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    tcp_set_deadline(fd, deadline);
    (void)tcp_set_tos(fd, family, tos);
    struct sockaddr_storage src;
    socklen_t slen = src_addr ? tcp_make_addr(family, src_addr, 0, &src) : 0;
    if ((src_addr && bind(fd, (struct sockaddr *)&src, slen) < 0) ||
        connect(fd, (struct sockaddr *)&ss, len) < 0) {
        int r = -errno;
        close(fd);
        return r;
    }
    return fd;
}

/* The connected socket's TOS byte, as the kernel holds it, into the result. */
static void read_tclass(int fd, int family, struct probe_result *lat)
{
    int tos = 0;
    socklen_t len = sizeof(tos);
    if (family == AF_INET6 ? getsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, &len) == 0
                           : getsockopt(fd, IPPROTO_IP, IP_TOS, &tos, &len) == 0) {
        lat->has_tclass = true;
        lat->tclass = (uint8_t)tos;
    }
}

static void ping_pong(int fd, const struct probe_params *p, double deadline, char *buf,
                      struct probe_result *lat)
{
    uint32_t warmup = p->iterations / 10 > 10 ? p->iterations / 10 : 10;
    double *samples = malloc(p->iterations * sizeof(*samples));
    if (!samples) {
        probe_fail(lat, -ENOMEM, "out of memory");
        return;
    }
    for (uint32_t i = 0; i < warmup + p->iterations; i++) {
        double t0 = probe_now();
        int r = tcp_full_io(fd, buf, p->size, true);
        if (r == 0)
            r = tcp_full_io(fd, buf, p->size, false);
        double t1 = probe_now();
        if (r < 0 || t1 > deadline) {
            probe_fail(lat, r < 0 ? r : -ETIMEDOUT, "TCP ping-pong %s after %u round trips",
                       r < 0 ? errno_text(-r) : "ran past its time bound", i);
            free(samples);
            return;
        }
        if (i >= warmup)
            samples[i - warmup] = (t1 - t0) / 2;
    }
    stats_compute(samples, p->iterations, &lat->latency);
    lat->ran = true;
    lat->bytes = 2ull * (warmup + p->iterations) * p->size;
    free(samples);
}

static int stream(int fd, const struct probe_params *p, double deadline, char *buf)
{
    struct stream_meter meter;
    uint64_t sent = 0;
    double now = probe_now(), end = now + (double)p->bw_duration / 1e6;
    if (end > deadline)
        end = deadline;
    stream_meter_start(&meter, now, (double)p->bw_duration / 1e6);
    while (now < end && !stream_meter_steady(&meter, now, sent)) {
        int r = tcp_full_io(fd, buf, STREAM_CHUNK, true);
        if (r < 0)
            return r;
        sent += STREAM_CHUNK;
        now = probe_now();
    }
    shutdown(fd, SHUT_WR);
    return 0;
}

/* Clears both results and returns the probe's buffer (a message, or a stream chunk),
 * filled; NULL with the latency result failed when out of memory. */
static char *start_probe(const struct probe_params *p, struct probe_result *lat,
                         struct probe_result *bw)
{
    size_t len = p->size > STREAM_CHUNK ? p->size : STREAM_CHUNK;
    char *buf = malloc(len);
    memset(lat, 0, sizeof(*lat));
    memset(bw, 0, sizeof(*bw));
    if (!buf)
        probe_fail(lat, -ENOMEM, "out of memory");
    else
        memset(buf, 0x5a, len);
    return buf;
}

void probe_tcp_run(int family, const uint8_t addr[16], const struct probe_params *p,
                   struct probe_result *lat, struct probe_result *bw)
{
    double deadline = probe_now() + (double)p->timeout / 1e6;
    struct server s = { .family = family, .tos = p->tos, .size = p->size, .deadline = deadline };
    struct probe_mark mark;
    pthread_t th;
    uint16_t port = 0;
    _cleanup_free_ char *buf = start_probe(p, lat, bw);

    if (!buf)
        return;
    probe_mark(&mark);
    s.listen_fd = open_listener(family, addr, &port);
    if (s.listen_fd < 0) {
        probe_fail(lat, s.listen_fd, "cannot listen on the address: %s", errno_text(-s.listen_fd));
        return;
    }
    if (pthread_create(&th, NULL, server_main, &s) != 0) {
        close(s.listen_fd);
        probe_fail(lat, -EAGAIN, "cannot start the server thread");
        return;
    }

    int fd = connect_to(family, addr, addr, port, p->tos, deadline);    /* the ping-pong's class */
    if (fd < 0) {
        probe_fail(lat, fd, "cannot connect: %s", errno_text(-fd));
    } else {
        ping_pong(fd, p, deadline, buf, lat);
        read_tclass(fd, family, lat);
        close(fd);
    }
    probe_cost_charge(lat, &mark);
    /* The server moves on to the sink once the echo connection closes. */
    fd = lat->error || !p->bw_duration ? -1 : connect_to(family, addr, addr, port, -1, deadline);
    if (fd >= 0) {
        int r = stream(fd, p, deadline, buf);
        close(fd);
        if (r < 0)
            probe_fail(bw, r, "TCP stream: %s", errno_text(-r));
    } else {
        /* A failed client leaves the server waiting in accept(); shut it down to end that.
         * Never after a connected stream: on a slow path the server may not have accepted
         * it yet (its echo session's end and the handshake's last ACK are still on the
         * way), and its accept() is bounded by the deadline anyway. */
        shutdown(s.listen_fd, SHUT_RDWR);
    }
    pthread_join(th, NULL);
    close(s.listen_fd);
    probe_cost_charge(bw, &mark);
    lat->cpu_seconds += s.cpu_echo;
    lat->cpu_wait_seconds += s.wait_echo;
    bw->cpu_seconds += s.cpu_sink;
    bw->bytes = s.sunk_bytes;

    if (!lat->error && !bw->error && s.sunk_bytes && s.sink_last > s.sink_first) {
        bw->ran = true;
        bw->bandwidth = (double)s.sunk_bytes / (s.sink_last - s.sink_first);
    } else if (!bw->error && p->bw_duration) {
        probe_fail(bw, s.error ? s.error : -EIO, "TCP stream: %s",
                   lat->error ? "not run" : "the server received nothing");
    }
}

static const char refused[] = "its responder refused the session (is this node in its probes.peers?)";

/* Opens a session of kind with the peer's responder: the hello, then its one-byte answer. */
static int peer_session(int family, const uint8_t *src, const uint8_t dst[16], uint16_t port,
                        enum peer_session_kind kind, uint32_t size, int tos, double deadline,
                        const char **why)
{
    uint8_t hello[PEER_WIRE_HELLO_LEN], ack;
    int fd = connect_to(family, src, dst, port, tos, deadline), r;
    *why = "cannot connect to its responder";
    /* A responder resets the connections it refuses. The reset can reach this node before
     * connect() returns (a slow node: the handshake done, its thread not yet woken), so a
     * reset here is the same refusal as a reset after the hello; nothing listening reads
     * ECONNREFUSED instead. */
    if (fd == -ECONNRESET)
        *why = refused;
    if (fd < 0)
        return fd;
    peer_hello_write(&(struct peer_hello){ kind, size }, hello);
    r = tcp_full_io(fd, hello, sizeof(hello), true);
    if (r == 0)
        r = tcp_full_io(fd, &ack, 1, false);
    if (r == 0 && ack != PEER_ACK_OK) {
        r = -EBUSY;
        *why = "its responder serves its maximum of sessions";
    } else if (r < 0) {
        *why = refused;
    }
    if (r < 0) {
        close(fd);
        return r;
    }
    return fd;
}

void probe_tcp_peer_run(int family, const uint8_t *src, const uint8_t dst[16], uint16_t port,
                        const struct probe_params *p, struct probe_result *lat, struct probe_result *bw)
{
    double deadline = probe_now() + (double)p->timeout / 1e6;
    _cleanup_free_ char *buf = start_probe(p, lat, bw);
    struct probe_mark mark;
    const char *why;
    int fd, r;

    if (!buf)
        return;
    probe_mark(&mark);
    fd = peer_session(family, src, dst, port, PEER_SESSION_ECHO, p->size, p->tos, deadline, &why);
    if (fd < 0) {
        probe_fail(lat, fd, "%s: %s", why, errno_text(-fd));
        probe_fail(bw, fd, "not run: the latency session failed");
        return;
    }
    ping_pong(fd, p, deadline, buf, lat);
    read_tclass(fd, family, lat);
    close(fd);
    probe_cost_charge(lat, &mark);
    if (lat->error) {
        probe_fail(bw, lat->error, "not run: the latency session failed");
        return;
    }
    if (!p->bw_duration)        /* no stream (deferred) */
        return;
    fd = peer_session(family, src, dst, port, PEER_SESSION_SINK, 0, -1, deadline, &why);
    if (fd < 0) {
        probe_fail(bw, fd, "%s: %s", why, errno_text(-fd));
        return;
    }
    /* The stream's window opens once its session is up: on a loaded node the session's
     * setup alone can outlast the window, which then sent nothing and "measured" 0. At
     * least one chunk goes, unless the probe's time bound is past. */
    uint64_t sent = 0, got = 0;
    double t0 = probe_now(), end = t0 + (double)p->bw_duration / 1e6, now = t0;
    struct stream_meter meter;
    stream_meter_start(&meter, t0, (double)p->bw_duration / 1e6);
    for (r = 0; r == 0 && (sent == 0 || (now < end && !stream_meter_steady(&meter, now, sent))) &&
                now < deadline;) {
        r = tcp_full_io(fd, buf, STREAM_CHUNK, true);
        if (r == 0)
            sent += STREAM_CHUNK;
        now = probe_now();
    }
    if (r == 0 && sent == 0)
        r = -ETIMEDOUT;         /* the bound passed before the first chunk */
    if (r == 0) {
        shutdown(fd, SHUT_WR);
        r = tcp_full_io(fd, &got, sizeof(got), false);
    }
    double t1 = probe_now();
    close(fd);
    probe_cost_charge(bw, &mark);
    bw->bytes = sent;
    if (r < 0) {
        probe_fail(bw, r, "TCP stream to the peer: %s",
                   !sent && r == -ETIMEDOUT ? "its time bound passed before it began"
                                            : errno_text(-r));
    } else if (be64toh(got) != sent || t1 <= t0) {
        probe_fail(bw, -EIO, "the peer received %llu of %llu bytes",
                   (unsigned long long)be64toh(got), (unsigned long long)sent);
    } else {
        bw->ran = true;
        bw->bandwidth = (double)sent / (t1 - t0);
    }
}

/* One links session asking for layout ASK: the answer parsed in ASK, or, when ASK is 1,
 * in layout 0, as a responder that ignores the ask would send it; *GOT says which. */
static int links_session(int family, const uint8_t *src, const uint8_t dst[16], uint16_t port,
                         double deadline, enum peer_links_layout ask, enum peer_links_layout *got,
                         struct link_traffic *out, const char **why)
{
    int fd = peer_session(family, src, dst, port, PEER_SESSION_LINKS, ask, -1, deadline, why);
    if (fd < 0)
        return fd;
    uint8_t *in = malloc(PEER_LINKS_MAX_LEN);
    size_t len = 0;
    int r = in ? 0 : -ENOMEM;
    /* The answer, up to the responder's close. */
    while (r == 0 && len < PEER_LINKS_MAX_LEN) {
        ssize_t k = tcp_io_by(fd, in + len, PEER_LINKS_MAX_LEN - len, false, deadline);
        if (k < 0)
            r = (int)k;
        else if (k == 0)
            break;
        else
            len += (size_t)k;
    }
    if (r == 0 && peer_links_parse(in, len, ask, out) == 0) {
        *got = ask;
    } else if (r == 0 && ask != PEER_LINKS_NETDEV && peer_links_parse(in, len, PEER_LINKS_NETDEV, out) == 0) {
        *got = PEER_LINKS_NETDEV;
    } else if (r == 0) {
        r = -EBADMSG;
        *why = "its responder's links answer is malformed (an older fabtuned?)";
    } else {
        *why = "its responder's links answer did not come";
    }
    free(in);
    close(fd);
    return r;
}

int probe_tcp_peer_links(int family, const uint8_t *src, const uint8_t dst[16], uint16_t port,
                         double timeout, enum peer_links_layout *layout, struct link_traffic *out,
                         const char **why)
{
    double deadline = probe_now() + timeout;
    int r = links_session(family, src, dst, port, deadline, *layout, layout, out, why);
    /* A responder older than the layout closes at its hello: once more, in layout 0. */
    if (r == -ECONNRESET && *layout != PEER_LINKS_NETDEV) {
        const char *why_again;
        if (links_session(family, src, dst, port, deadline, PEER_LINKS_NETDEV, layout, out, &why_again) == 0)
            return 0;
    }
    return r;
}
