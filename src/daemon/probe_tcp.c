/* SPDX-License-Identifier: ISC */
/* The TCP loopback probe. A server thread echoes (latency) or sinks (bandwidth); the client
 * times each round trip. Every socket has a timeout and the whole probe a deadline. */
#include "config.h"

#include <arpa/inet.h>
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

#define STREAM_CHUNK (64 * 1024)

struct server {
    int listen_fd;
    uint32_t size;
    double deadline;
    int error;
    double cpu;
    uint64_t sunk_bytes;
    double sink_first, sink_last;
};

static void set_timeouts(int fd, double deadline)
{
    double left = deadline - probe_now();
    struct timeval tv = { .tv_sec = left > 0 ? (time_t)left : 0,
                          .tv_usec = left > 0 ? (suseconds_t)((left - (double)(time_t)left) * 1e6) : 1000 };
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int full_io(int fd, void *buf, size_t len, bool writing)
{
    char *p = buf;
    while (len > 0) {
        ssize_t k = writing ? send(fd, p, len, MSG_NOSIGNAL) : recv(fd, p, len, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -errno;
        if (k == 0)
            return -ECONNRESET;
        p += k;
        len -= (size_t)k;
    }
    return 0;
}

static int accept_one(struct server *s)
{
    struct pollfd pfd = { .fd = s->listen_fd, .events = POLLIN };
    int left = (int)((s->deadline - probe_now()) * 1000);
    if (left <= 0 || poll(&pfd, 1, left) <= 0)
        return -ETIMEDOUT;
    int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return -errno;
    set_timeouts(fd, s->deadline);
    return fd;
}

static void serve_echo(struct server *s, char *buf)
{
    _cleanup_close_ int fd = accept_one(s);
    if (fd < 0) {
        s->error = fd;
        return;
    }
    for (;;) {
        int r = full_io(fd, buf, s->size, false);
        if (r == -ECONNRESET)
            return;         /* the client is done */
        if (r < 0 || (r = full_io(fd, buf, s->size, true)) < 0) {
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
    double cpu0 = probe_thread_cpu();
    char *buf = malloc(s->size > STREAM_CHUNK ? s->size : STREAM_CHUNK);
    if (!buf) {
        s->error = -ENOMEM;
        return NULL;
    }
    serve_echo(s, buf);
    if (s->error == 0)
        serve_sink(s, buf);
    free(buf);
    s->cpu = probe_thread_cpu() - cpu0;
    return NULL;
}

static socklen_t make_addr(int family, const uint8_t addr[16], uint16_t port,
                           struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof(*ss));
    if (family == AF_INET) {
        struct sockaddr_in *in = (struct sockaddr_in *)ss;
        in->sin_family = AF_INET;
        in->sin_port = htons(port);
        memcpy(&in->sin_addr, addr, 4);
        return sizeof(*in);
    }
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(port);
    memcpy(&in6->sin6_addr, addr, 16);
    return sizeof(*in6);
}

static int open_listener(int family, const uint8_t addr[16], uint16_t *ret_port)
{
    struct sockaddr_storage ss;
    socklen_t len = make_addr(family, addr, 0, &ss);
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

static int connect_to(int family, const uint8_t addr[16], uint16_t port, double deadline)
{
    struct sockaddr_storage ss;
    socklen_t len = make_addr(family, addr, port, &ss);
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    set_timeouts(fd, deadline);
    /* Bind the client to the rail's address too: both ends on the rail's IP. */
    struct sockaddr_storage src;
    socklen_t slen = make_addr(family, addr, 0, &src);
    if (bind(fd, (struct sockaddr *)&src, slen) < 0 || connect(fd, (struct sockaddr *)&ss, len) < 0) {
        int r = -errno;
        close(fd);
        return r;
    }
    return fd;
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
        int r = full_io(fd, buf, p->size, true);
        if (r == 0)
            r = full_io(fd, buf, p->size, false);
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
    free(samples);
}

static int stream(int fd, const struct probe_params *p, double deadline, char *buf)
{
    double end = probe_now() + (double)p->bw_duration / 1e6;
    if (end > deadline)
        end = deadline;
    while (probe_now() < end) {
        int r = full_io(fd, buf, STREAM_CHUNK, true);
        if (r < 0)
            return r;
    }
    shutdown(fd, SHUT_WR);
    return 0;
}

void probe_tcp_run(int family, const uint8_t addr[16], const struct probe_params *p,
                   struct probe_result *lat, struct probe_result *bw)
{
    double deadline = probe_now() + (double)p->timeout / 1e6, cpu0 = probe_thread_cpu();
    struct server s = { .size = p->size, .deadline = deadline };
    pthread_t th;
    uint16_t port = 0;
    _cleanup_free_ char *buf = malloc(p->size > STREAM_CHUNK ? p->size : STREAM_CHUNK);

    memset(lat, 0, sizeof(*lat));
    memset(bw, 0, sizeof(*bw));
    if (!buf) {
        probe_fail(lat, -ENOMEM, "out of memory");
        return;
    }
    memset(buf, 0x5a, p->size > STREAM_CHUNK ? p->size : STREAM_CHUNK);
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

    int fd = connect_to(family, addr, port, deadline);
    if (fd < 0) {
        probe_fail(lat, fd, "cannot connect: %s", errno_text(-fd));
    } else {
        ping_pong(fd, p, deadline, buf, lat);
        close(fd);
    }
    /* The server moves on to the sink once the echo connection closes. */
    fd = lat->error ? -1 : connect_to(family, addr, port, deadline);
    if (fd >= 0) {
        int r = stream(fd, p, deadline, buf);
        close(fd);
        if (r < 0)
            probe_fail(bw, r, "TCP stream: %s", errno_text(-r));
    }
    /* A failed client leaves the server waiting in accept(); shut it down to end that. */
    shutdown(s.listen_fd, SHUT_RDWR);
    pthread_join(th, NULL);
    close(s.listen_fd);

    if (!lat->error && !bw->error && s.sunk_bytes && s.sink_last > s.sink_first) {
        bw->ran = true;
        bw->bandwidth = (double)s.sunk_bytes / (s.sink_last - s.sink_first);
    } else if (!bw->error) {
        probe_fail(bw, s.error ? s.error : -EIO, "TCP stream: %s",
                   lat->error ? "not run" : "the server received nothing");
    }
    lat->cpu_seconds = probe_thread_cpu() - cpu0 + s.cpu;
}
