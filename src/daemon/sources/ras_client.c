/* SPDX-License-Identifier: ISC */
/* One bounded STATUS query of a job's RAS service (ras_client.h). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "ras_client.h"
#include "ras_parse.h"
#include "strutil.h"

/* The addresses being queried: one query at a time per job's RAS. */
static pthread_mutex_t inflight_lock = PTHREAD_MUTEX_INITIALIZER;
static char inflight[RAS_INFLIGHT_MAX][96];

static bool inflight_take(const char *addr)
{
    bool got = false;
    size_t free_slot = RAS_INFLIGHT_MAX;
    pthread_mutex_lock(&inflight_lock);
    for (size_t i = 0; i < RAS_INFLIGHT_MAX; i++) {
        if (streq(inflight[i], addr))
            goto out;
        if (!inflight[i][0] && free_slot == RAS_INFLIGHT_MAX)
            free_slot = i;
    }
    if (free_slot < RAS_INFLIGHT_MAX) {
        strscpy(inflight[free_slot], addr, sizeof(inflight[0]));
        got = true;
    }
out:
    pthread_mutex_unlock(&inflight_lock);
    return got;
}

static void inflight_give(const char *addr)
{
    pthread_mutex_lock(&inflight_lock);
    for (size_t i = 0; i < RAS_INFLIGHT_MAX; i++)
        if (streq(inflight[i], addr))
            inflight[i][0] = '\0';
    pthread_mutex_unlock(&inflight_lock);
}

static int port_parse(const char *text, uint16_t *ret)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (!*text || *end || v < 1 || v > 65535)
        return -EINVAL;
    *ret = (uint16_t)v;
    return 0;
}

static socklen_t put_addr(struct sockaddr_storage *ss, int family, const char *ip, uint16_t port)
{
    memset(ss, 0, sizeof(*ss));
    if (family == AF_INET) {
        struct sockaddr_in *a = (struct sockaddr_in *)ss;
        a->sin_family = AF_INET;
        a->sin_port = htons(port);
        return inet_pton(AF_INET, ip, &a->sin_addr) == 1 ? sizeof(*a) : 0;
    }
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(port);
    return inet_pton(AF_INET6, ip, &a->sin6_addr) == 1 ? sizeof(*a) : 0;
}

int ras_addr_parse(const char *text, struct sockaddr_storage out[2], socklen_t lens[2],
                   char *why, size_t len)
{
    char host[64];
    uint16_t port = RAS_DEFAULT_PORT;
    const char *colon;
    if (!text || !text[0])
        text = RAS_DEFAULT_ADDR;
    if (text[0] == '[') {
        const char *close = strchr(text, ']');
        if (!close || (size_t)(close - text - 1) >= sizeof(host))
            goto bad;
        snprintf(host, sizeof(host), "%.*s", (int)(close - text - 1), text + 1);
        colon = close[1] == ':' ? close + 1 : NULL;
        if (close[1] && !colon)
            goto bad;
    } else {
        colon = strrchr(text, ':');
        if (colon && strchr(text, ':') != colon)
            colon = NULL;       /* a bare IPv6 address: no port */
        size_t n = colon ? (size_t)(colon - text) : strlen(text);
        if (n >= sizeof(host))
            goto bad;
        snprintf(host, sizeof(host), "%.*s", (int)n, text);
    }
    if (colon && port_parse(colon + 1, &port) < 0)
        goto bad;
    if (streq(host, "localhost")) {
        lens[0] = put_addr(&out[0], AF_INET, "127.0.0.1", port);
        lens[1] = put_addr(&out[1], AF_INET6, "::1", port);
        return 2;
    }
    lens[0] = put_addr(&out[0], strchr(host, ':') ? AF_INET6 : AF_INET, host, port);
    if (lens[0])
        return 1;
    snprintf(why, len, "RAS address '%s' names no numeric address or localhost (fabtune "
             "resolves no host name: a DNS lookup has no deadline)", text);
    return -EINVAL;
bad:
    snprintf(why, len, "RAS address '%s' is not HOST:PORT", text);
    return -EINVAL;
}

/* Milliseconds left to DEADLINE, for poll(); 0 once it has passed. */
static int ms_left(usec_t deadline)
{
    usec_t now = now_usec(CLOCK_MONOTONIC);
    if (now >= deadline)
        return 0;
    usec_t left = (deadline - now + USEC_PER_MSEC - 1) / USEC_PER_MSEC;
    return left > 60 * 60 * 1000 ? 60 * 60 * 1000 : (int)left;
}

/* Waits for EVENTS on FD until DEADLINE: 0, -ETIMEDOUT, or -errno. */
static int wait_fd(int fd, short events, usec_t deadline)
{
    for (;;) {
        struct pollfd p = { .fd = fd, .events = events };
        int ms = ms_left(deadline);
        if (ms == 0)
            return -ETIMEDOUT;
        int n = poll(&p, 1, ms);
        if (n > 0)
            return 0;
        if (n == 0)
            return -ETIMEDOUT;
        if (errno != EINTR)
            return -errno;
    }
}

static int connect_one(const struct sockaddr_storage *ss, socklen_t len, usec_t deadline, int *ret_fd)
{
    int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -errno;
    if (connect(fd, (const struct sockaddr *)ss, len) < 0 && errno != EINPROGRESS) {
        int err = -errno;
        close(fd);
        return err;
    }
    int err = wait_fd(fd, POLLOUT, deadline), so = 0;
    socklen_t sl = sizeof(so);
    if (err == 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl) < 0)
        err = -errno;
    if (err == 0 && so)
        err = -so;
    if (err < 0) {
        close(fd);
        return err;
    }
    *ret_fd = fd;
    return 0;
}

static int send_all(int fd, const char *buf, size_t len, usec_t deadline)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            int err = wait_fd(fd, POLLOUT, deadline);
            if (err < 0)
                return err;
            continue;
        }
        if (n < 0)
            return -errno;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads until the server closes, DEADLINE or MAX bytes: 0 at its close, or -errno with
 * what came in R->raw. */
static int read_reply(int fd, size_t max, usec_t deadline, struct ras_result *r)
{
    size_t cap = 0;
    for (;;) {
        if (r->raw_len + 1 >= cap) {
            size_t want = cap ? cap * 2 : 8192;
            if (want > max + 2)
                want = max + 2;
            if (r->raw_len + 1 >= want)
                return -EFBIG;
            char *b = realloc(r->raw, want);
            if (!b)
                return -ENOMEM;
            r->raw = b;
            cap = want;
        }
        ssize_t n = recv(fd, r->raw + r->raw_len, cap - 1 - r->raw_len, 0);
        if (n > 0) {
            r->raw_len += (size_t)n;
            r->raw[r->raw_len] = '\0';
            if (r->raw_len > max)
                return -EFBIG;
            continue;
        }
        if (n == 0)
            return 0;
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN)
            return -errno;
        int err = wait_fd(fd, POLLIN, deadline);
        if (err < 0)
            return err;
    }
}

static const char *addr_text(const struct sockaddr_storage *ss, char *buf, size_t len)
{
    char ip[INET6_ADDRSTRLEN] = "?";
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
        snprintf(buf, len, "%s:%u", ip, ntohs(a->sin_port));
    } else {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
        inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip));
        snprintf(buf, len, "[%s]:%u", ip, ntohs(a->sin6_port));
    }
    return buf;
}

/* Connects to the first of ADDR's addresses that takes the connection. */
static int connect_addr(const char *addr, usec_t deadline, struct ras_result *r, int *fd)
{
    struct sockaddr_storage ss[2];
    socklen_t lens[2];
    int n = ras_addr_parse(addr, ss, lens, r->why, sizeof(r->why)), err = -EINVAL;
    for (int i = 0; i < n; i++) {
        addr_text(&ss[i], r->addr, sizeof(r->addr));
        err = connect_one(&ss[i], lens[i], deadline, fd);
        if (err == 0 || err == -ETIMEDOUT)
            break;
    }
    if (err < 0 && n > 0)
        snprintf(r->why, sizeof(r->why), "cannot connect to RAS at %s: %s%s", r->addr,
                 errno_text(-err), err == -ECONNREFUSED ? " (no NCCL process listens there: "
                 "the job has ended, or RAS is off)" : "");
    return err;
}

/* The query's one write: every command, the STATUS last (the server closes after it). */
static int send_request(int fd, const struct ras_query_opts *o, usec_t deadline)
{
    char req[128];
    int n = snprintf(req, sizeof(req), "CLIENT PROTOCOL 2\nTIMEOUT %u\n%sSTATUS\n",
                     o->ras_timeout_s ? o->ras_timeout_s : RAS_TIMEOUT_DEFAULT_S,
                     o->text ? "" : "SET FORMAT json\n");
    return send_all(fd, req, (size_t)n, deadline);
}

static void transport_why(struct ras_result *r, int err, size_t max)
{
    if (err == -EFBIG)
        snprintf(r->why, sizeof(r->why), "RAS at %s sent more than %zu bytes: the rest is "
                 "not read (ask for the text format: it lists only the outliers)", r->addr, max);
    else if (err == -ETIMEDOUT)
        snprintf(r->why, sizeof(r->why), "RAS at %s did not finish its reply by the deadline "
                 "(%zu bytes came)", r->addr, r->raw_len);
    else
        snprintf(r->why, sizeof(r->why), "RAS at %s: %s after %zu bytes (the process may be "
                 "exiting)", r->addr, errno_text(-err), r->raw_len);
}

static int query(const char *addr, usec_t deadline, const struct ras_query_opts *o,
                 struct ras_result *r)
{
    size_t max = o->max_bytes ? o->max_bytes : RAS_REPLY_MAX_DEFAULT;
    usec_t start = now_usec(CLOCK_MONOTONIC);
    int fd = -1;
    int err = connect_addr(addr, deadline, r, &fd);
    if (err < 0)
        return err;
    r->connected = true;
    err = send_request(fd, o, deadline);
    int rerr = read_reply(fd, max, deadline, r);
    close(fd);
    r->elapsed = now_usec(CLOCK_MONOTONIC) - start;
    /* A write cut by the peer still leaves its reply, if one came, to read. */
    err = rerr < 0 ? rerr : r->raw_len == 0 ? err : 0;
    if (err < 0)
        transport_why(r, err, max);
    int perr = ras_parse_reply(r->raw ? r->raw : "", r->raw_len, &r->status);
    r->truncated = err < 0 || perr == -ENODATA;
    if (err == 0 && perr < 0) {
        err = perr;
        snprintf(r->why, sizeof(r->why), "RAS at %s: %s", r->addr, r->status.why);
    }
    return err;
}

int ras_query_with(const char *addr, usec_t deadline, const struct ras_query_opts *opts,
                   struct ras_result *ret)
{
    static const struct ras_query_opts defaults = { 0 };
    memset(ret, 0, sizeof(*ret));
    ras_status_init(&ret->status);
    if (!addr || !addr[0])
        addr = RAS_DEFAULT_ADDR;
    strscpy(ret->addr, addr, sizeof(ret->addr));
    if (!inflight_take(addr)) {
        snprintf(ret->why, sizeof(ret->why), "RAS at %s is being queried already (one query "
                 "at a time per job)", addr);
        return ret->err = -EBUSY;
    }
    ret->err = query(addr, deadline, opts ? opts : &defaults, ret);
    inflight_give(addr);
    return ret->err;
}

int ras_query(const char *addr, usec_t deadline, struct ras_result *ret)
{
    return ras_query_with(addr, deadline, NULL, ret);
}

void ras_result_done(struct ras_result *r)
{
    free(r->raw);
    ras_status_done(&r->status);
    memset(r, 0, sizeof(*r));
}
