/* SPDX-License-Identifier: ISC */
/* Blocking TCP helpers the probes and the responder share. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/time.h>

#include "probe_result.h"
#include "tcp_io.h"

void tcp_set_deadline(int fd, double deadline)
{
    double left = deadline - probe_now();
    struct timeval tv = { .tv_sec = left > 0 ? (time_t)left : 0,
                          .tv_usec = left > 0 ? (suseconds_t)((left - (double)(time_t)left) * 1e6) : 1000 };
    int one = 1;
    if (tv.tv_sec == 0 && tv.tv_usec == 0)
        tv.tv_usec = 1000;      /* 0 would mean no timeout at all */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int tcp_full_io(int fd, void *buf, size_t len, bool writing)
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

/* Waits until fd can be read (or written), but not past deadline: 0, -ETIMEDOUT or -errno. */
static int tcp_wait(int fd, bool writing, double deadline)
{
    struct pollfd p = { .fd = fd, .events = writing ? POLLOUT : POLLIN };
    for (;;) {
        double left = deadline - probe_now();
        if (left <= 0)
            return -ETIMEDOUT;
        int k = poll(&p, 1, left > 60 ? 60000 : (int)(left * 1000) + 1);
        if (k > 0)
            return 0;
        if (k < 0 && errno != EINTR)
            return -errno;
    }
}

ssize_t tcp_io_by(int fd, void *buf, size_t len, bool writing, double deadline)
{
    for (;;) {
        int r = tcp_wait(fd, writing, deadline);
        if (r < 0)
            return r;
        ssize_t k = writing ? send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT)
                            : recv(fd, buf, len, MSG_DONTWAIT);
        if (k >= 0)
            return k;
        if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
            return -errno;
    }
}

int tcp_full_io_by(int fd, void *buf, size_t len, bool writing, double deadline)
{
    char *p = buf;
    while (len > 0) {
        ssize_t k = tcp_io_by(fd, p, len, writing, deadline);
        if (k < 0)
            return (int)k;
        if (k == 0)
            return -ECONNRESET;
        p += k;
        len -= (size_t)k;
    }
    return 0;
}

int tcp_set_tos(int fd, int family, int tos)
{
    socklen_t len = sizeof(family);
    if (tos < 0)
        return 0;
    if (family == AF_UNSPEC && getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &family, &len) < 0)
        return -errno;
    if (family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos)) < 0)
        return -errno;
    /* IPv4, or an IPv6 socket's IPv4-mapped peers (a dual-stack responder's) */
    int r = setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
    return r < 0 && family == AF_INET ? -errno : 0;
}

socklen_t tcp_make_addr(int family, const uint8_t addr[16], uint16_t port, struct sockaddr_storage *ss)
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
