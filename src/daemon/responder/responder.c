/* SPDX-License-Identifier: ISC */
/* The peer responder: a listener thread that checks each connection's source against the
 * allowlist before it allocates anything, and one thread per session, bounded. */
#include "config.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "peer_links.h"
#include "peer_wire.h"
#include "peers.h"
#include "probe_result.h"
#include "responder.h"
#include "responder_rdma.h"
#include "source_link_traffic.h"
#include "source_port_data.h"
#include "strutil.h"
#include "tcp_io.h"

#define MAX_ALLOWED 16384
#define RESOLVE_EVERY 60.0      /* seconds */
#define SINK_CHUNK (64 * 1024)
#define HELLO_LIMIT 2.0         /* seconds for a prober's hello, within session_limit */

struct responder {
    pthread_t thread;
    int listen_fd[RESPONDER_MAX_ADDRESSES], stop_fd;
    size_t n_listen;
    struct {
        struct peer_list hosts;
        char *file;
        uint32_t port, max_sessions;
        double session_limit;
        int tos;                /* the echo sessions' (probes.light_dscp's), -1: the socket's */
    } cfg;
    pthread_mutex_t lock;
    pthread_cond_t idle;
    uint8_t (*allowed)[16];     /* sorted; guarded by lock */
    size_t n_allowed;
    int session_fd[64];         /* the active sessions' sockets, to end them on stop */
    struct responder_stats stats;
    double last_refusal_log;
    struct rdma_listener *rdma;     /* the RDMA CM side; NULL without rdma_ucm */
};

struct session {
    struct responder *r;
    int fd, slot;
};

static int cmp16(const void *a, const void *b) { return memcmp(a, b, 16); }

/* Resolves every peer to the allowlist, in this thread (it may block on DNS). */
static void resolve_allowlist(struct responder *r)
{
    struct peer_list from_file = { 0 };
    uint8_t (*all)[16] = calloc(MAX_ALLOWED, 16);
    size_t n = 0;
    if (!all)
        return;
    if (r->cfg.file) {
        struct policy p = { 0 };
        char err[256];
        p.probes.peers.file = r->cfg.file;
        if (peers_load(&p, &from_file, err, sizeof(err)) < 0)
            log_warning("responder: the peers file: %s", err);
    }
    const struct peer_list *lists[] = { &r->cfg.hosts, &from_file };
    for (size_t k = 0; k < ARRAY_SIZE(lists); k++)
        for (size_t i = 0; i < lists[k]->n && n < MAX_ALLOWED; i++)
            n += peers_resolve_all(lists[k]->hosts[i], all + n, MAX_ALLOWED - n);
    peer_list_done(&from_file);
    qsort(all, n, 16, cmp16);
    pthread_mutex_lock(&r->lock);
    free(r->allowed);
    r->allowed = all;
    r->n_allowed = n;
    r->stats.allowed = (uint32_t)n;
    pthread_mutex_unlock(&r->lock);
}

bool responder_allowed(struct responder *r, const uint8_t addr[16])
{
    pthread_mutex_lock(&r->lock);
    bool ok = r->n_allowed && bsearch(addr, r->allowed, r->n_allowed, 16, cmp16);
    pthread_mutex_unlock(&r->lock);
    return ok;
}

/* Every read and write waits only for what is left of the session (tcp_full_io_by): a
 * prober that trickles a byte at a time cannot hold a session past session_limit. */
static void serve_echo(int fd, uint32_t size, char *buf, double deadline)
{
    while (tcp_full_io_by(fd, buf, size, false, deadline) == 0 &&
           tcp_full_io_by(fd, buf, size, true, deadline) == 0)
        ;
}

/* Each netdev's neighbour entry for FROM, an IPv4 address (mapped or not) or an IPv6 one. */
static void back_neighbours(struct link_traffic *t, const struct sockaddr_storage *from)
{
    if (from->ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)from;
        source_link_traffic_back_neighbours(t, AF_INET, (const uint8_t *)&in->sin_addr);
    } else if (from->ss_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)from;
        if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
            source_link_traffic_back_neighbours(t, AF_INET, in6->sin6_addr.s6_addr + 12);
        else
            source_link_traffic_back_neighbours(t, AF_INET6, in6->sin6_addr.s6_addr);
    }
}

/* The links answer in LAYOUT: this node's netdevs' counters now, MACs and addresses, and
 * in layout 1 their RDMA ports' data counters and their neighbour entries for the
 * session's source, the prober's rail (live: the responder runs only live). */
static void serve_links(int fd, enum peer_links_layout layout, double deadline)
{
    struct link_traffic t;
    struct sockaddr_storage from;
    socklen_t from_len = sizeof(from);
    uint8_t *out = malloc(PEER_LINKS_MAX_LEN);
    if (!out)
        return;
    if (source_link_traffic_read(&t) < 0)
        t.n = 0;                /* an answer still: the prober reads "no netdevs" */
    if (layout == PEER_LINKS_PORT_DATA) {
        source_port_data_read("/sys", &t);
        if (getpeername(fd, (struct sockaddr *)&from, &from_len) == 0)
            back_neighbours(&t, &from);
    }
    tcp_full_io_by(fd, out, peer_links_write(&t, layout, out), true, deadline);
    free(out);
}

static void serve_sink(int fd, char *buf, double deadline)
{
    uint64_t got = 0;
    for (;;) {
        ssize_t k = tcp_io_by(fd, buf, SINK_CHUNK, false, deadline);
        if (k < 0)
            return;             /* the session's time is up, or the prober is gone */
        if (k == 0)
            break;
        got += (uint64_t)k;
    }
    got = htobe64(got);
    tcp_full_io_by(fd, &got, sizeof(got), true, deadline);
}

static void *session_main(void *arg)
{
    struct session *s = arg;
    struct responder *r = s->r;
    uint8_t hello[PEER_WIRE_HELLO_LEN], ack = PEER_ACK_OK;
    struct peer_hello h;
    char *buf = NULL;

    double start = probe_now(), deadline = start + r->cfg.session_limit;
    double hello_deadline = start + (r->cfg.session_limit < HELLO_LIMIT ? r->cfg.session_limit
                                                                         : HELLO_LIMIT);
    tcp_set_deadline(s->fd, deadline);          /* for TCP_NODELAY; the deadlines bound it */
    bool good = tcp_full_io_by(s->fd, hello, sizeof(hello), false, hello_deadline) == 0 &&
                peer_hello_parse(hello, &h) == 0;
    if (good)
        buf = malloc(h.kind == PEER_SESSION_ECHO ? h.size : SINK_CHUNK);
    if (buf && tcp_full_io_by(s->fd, &ack, 1, true, deadline) == 0) {
        if (h.kind == PEER_SESSION_ECHO) {
            (void)tcp_set_tos(s->fd, AF_UNSPEC, r->cfg.tos);   /* a ping-pong's answers: its class */
            serve_echo(s->fd, h.size, buf, deadline);
        }
        else if (h.kind == PEER_SESSION_LINKS)
            serve_links(s->fd, (enum peer_links_layout)h.size, deadline);
        else
            serve_sink(s->fd, buf, deadline);
    }
    free(buf);
    pthread_mutex_lock(&r->lock);
    if (good)
        r->stats.sessions++;
    else
        r->stats.bad_hello++;
    r->stats.active--;
    r->session_fd[s->slot] = -1;
    close(s->fd);
    pthread_cond_broadcast(&r->idle);
    pthread_mutex_unlock(&r->lock);
    free(s);
    return NULL;
}

/* The source as 16 bytes, IPv4 as ::ffff:a.b.c.d (the listener is dual-stack). */
static void source_of(const struct sockaddr_storage *ss, uint8_t out[16])
{
    memset(out, 0, 16);
    if (ss->ss_family == AF_INET6) {
        memcpy(out, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
    } else if (ss->ss_family == AF_INET) {
        out[10] = out[11] = 0xff;
        memcpy(out + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
    }
}

void responder_count_refused(struct responder *r, const uint8_t src[16])
{
    char text[INET6_ADDRSTRLEN];
    pthread_mutex_lock(&r->lock);
    uint64_t n = ++r->stats.refused;
    bool say = probe_now() - r->last_refusal_log >= 10;    /* one line per 10 s in a flood */
    if (say)
        r->last_refusal_log = probe_now();
    pthread_mutex_unlock(&r->lock);
    if (say) {
        inet_ntop(AF_INET6, src, text, sizeof(text));
        log_warning("responder: refused a probe session from %s: not one of probes.peers "
                    "(%llu refused so far)", text, (unsigned long long)n);
    }
}

static void refuse(struct responder *r, int fd, const uint8_t src[16])
{
    /* A reset, no reply: nothing is allocated for a peer outside the allowlist. */
    struct linger lg = { .l_onoff = 1, .l_linger = 0 };
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
    close(fd);
    responder_count_refused(r, src);
}

int responder_slot_take(struct responder *r)
{
    int slot = -1;
    pthread_mutex_lock(&r->lock);
    for (uint32_t i = 0; i < r->cfg.max_sessions && slot < 0; i++)
        if (r->session_fd[i] == -1)
            slot = (int)i;
    if (slot < 0) {
        r->stats.busy++;
    } else {
        r->session_fd[slot] = -2;       /* an RDMA session: no socket to shut down */
        r->stats.active++;
    }
    pthread_mutex_unlock(&r->lock);
    return slot;
}

void responder_slot_release(struct responder *r, int slot, bool served)
{
    pthread_mutex_lock(&r->lock);
    if (served)
        r->stats.sessions++;
    else
        r->stats.bad_hello++;
    r->stats.active--;
    r->session_fd[slot] = -1;
    pthread_cond_broadcast(&r->idle);
    pthread_mutex_unlock(&r->lock);
}

void responder_count_bad(struct responder *r)
{
    pthread_mutex_lock(&r->lock);
    r->stats.bad_hello++;
    pthread_mutex_unlock(&r->lock);
}

double responder_session_limit(const struct responder *r)
{
    return r->cfg.session_limit;
}

static void accept_one(struct responder *r, int listen_fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    uint8_t src[16];
    int fd = accept4(listen_fd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC);
    if (fd < 0) {
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
            poll(NULL, 0, 100);         /* out of descriptors: do not spin */
        return;
    }
    source_of(&ss, src);
    if (!responder_allowed(r, src)) {
        refuse(r, fd, src);
        return;
    }
    pthread_mutex_lock(&r->lock);
    int slot = -1;
    for (uint32_t i = 0; i < r->cfg.max_sessions && slot < 0; i++)
        if (r->session_fd[i] == -1)
            slot = (int)i;
    if (slot < 0) {
        r->stats.busy++;
        pthread_mutex_unlock(&r->lock);
        uint8_t busy = PEER_ACK_BUSY;
        tcp_set_deadline(fd, probe_now() + 0.1);
        (void)!send(fd, &busy, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
        close(fd);
        return;
    }
    if (log_debug_enabled("probe")) {
        char text[INET6_ADDRSTRLEN];
        inet_ntop(AF_INET6, src, text, sizeof(text));
        log_debug("probe", "responder: a session from %s", text);
    }
    struct session *s = malloc(sizeof(*s));
    pthread_attr_t attr;
    pthread_t th;
    bool started = false;
    if (s) {
        *s = (struct session){ .r = r, .fd = fd, .slot = slot };
        r->session_fd[slot] = fd;
        r->stats.active++;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        started = pthread_create(&th, &attr, session_main, s) == 0;
        pthread_attr_destroy(&attr);
        if (!started) {
            r->session_fd[slot] = -1;
            r->stats.active--;
        }
    }
    pthread_mutex_unlock(&r->lock);
    if (!started) {
        free(s);
        close(fd);
    }
}

static void *listener_main(void *arg)
{
    struct responder *r = arg;
    double next_resolve = 0;
    for (;;) {
        if (probe_now() >= next_resolve) {
            resolve_allowlist(r);
            next_resolve = probe_now() + RESOLVE_EVERY;
        }
        struct pollfd p[RESPONDER_MAX_ADDRESSES + 1];
        size_t n = r->n_listen;
        for (size_t i = 0; i < n; i++)
            p[i] = (struct pollfd){ .fd = r->listen_fd[i], .events = POLLIN };
        p[n] = (struct pollfd){ .fd = r->stop_fd, .events = POLLIN };
        int k = poll(p, n + 1, 1000);
        if (k < 0 && errno != EINTR)
            break;
        if (p[n].revents)
            break;
        for (size_t i = 0; i < n; i++)
            if (p[i].revents & POLLIN)
                accept_one(r, r->listen_fd[i]);
    }
    return NULL;
}

/* A listener on a rail's address, or (a NULL) on every address, IPv6 and IPv4. */
static int open_listener(const struct responder_address *a, uint16_t port)
{
    struct sockaddr_storage ss;
    static const uint8_t any[16];
    int family = a ? a->family : AF_INET6;
    socklen_t len = tcp_make_addr(family, a ? a->addr : any, port, &ss);
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), zero = 0, one = 1;
    if (fd < 0)
        return -errno;
    if (!a)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 64) < 0) {
        int r = -errno;
        close(fd);
        return r;
    }
    return fd;
}

/* Frees what responder_start() set up; no thread may be left using it. */
static void responder_free(struct responder *r)
{
    for (size_t i = 0; i < r->n_listen; i++)
        close(r->listen_fd[i]);
    if (r->stop_fd >= 0)
        close(r->stop_fd);
    free(r->allowed);
    peer_list_done(&r->cfg.hosts);
    free(r->cfg.file);
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->idle);
    free(r);
}

int responder_start(const struct policy *p, const struct responder_address *addrs, size_t n,
                    struct responder **ret)
{
    struct responder *r = calloc(1, sizeof(*r));
    int err;
    if (!r)
        return -ENOMEM;
    r->stop_fd = -1;
    if (n > RESPONDER_MAX_ADDRESSES)
        n = RESPONDER_MAX_ADDRESSES;
    for (size_t i = 0; i < ARRAY_SIZE(r->session_fd); i++)
        r->session_fd[i] = -1;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->idle, NULL);
    r->cfg.port = p->probes.peers.port;
    r->cfg.max_sessions = p->probes.peers.max_sessions < ARRAY_SIZE(r->session_fd) ?
                          p->probes.peers.max_sessions : (uint32_t)ARRAY_SIZE(r->session_fd);
    r->cfg.session_limit = (double)p->probes.peers.session_limit / 1e6;
    r->cfg.tos = policy_light_tos(p);
    r->last_refusal_log = -1e9;
    for (size_t i = 0; i < p->probes.peers.n_hosts; i++)
        if ((err = peer_list_add(&r->cfg.hosts, p->probes.peers.hosts[i])) < 0)
            goto fail;
    err = -ENOMEM;
    if (p->probes.peers.file && !(r->cfg.file = strdup(p->probes.peers.file)))
        goto fail;
    if ((r->stop_fd = eventfd(0, EFD_CLOEXEC)) < 0) {
        err = -errno;
        goto fail;
    }
    for (size_t i = 0; i < (n ? n : 1); i++) {
        int fd = open_listener(n ? &addrs[i] : NULL, (uint16_t)r->cfg.port);
        if (fd < 0) {
            err = fd;
            goto fail;
        }
        r->listen_fd[r->n_listen++] = fd;
    }
    if ((err = -pthread_create(&r->thread, NULL, listener_main, r)) < 0)
        goto fail;
    /* The RDMA side on the same port number (RDMA_PS_TCP is its own port space). A node
     * without the RDMA connection manager still answers over TCP. */
    int e = rdma_listener_start(r, addrs, n, (uint16_t)r->cfg.port, r->cfg.max_sessions, &r->rdma);
    if (e < 0)
        log_info("responder: no RDMA peer sessions (%s): TCP only", errno_text(-e));
    *ret = r;
    return 0;
fail:
    responder_free(r);
    return err;
}

void responder_stop(struct responder *r)
{
    uint64_t one = 1;
    if (!r)
        return;
    (void)!write(r->stop_fd, &one, sizeof(one));
    pthread_join(r->thread, NULL);
    pthread_mutex_lock(&r->lock);
    for (size_t i = 0; i < ARRAY_SIZE(r->session_fd); i++)
        if (r->session_fd[i] >= 0)
            shutdown(r->session_fd[i], SHUT_RDWR);      /* the session thread closes it */
    pthread_mutex_unlock(&r->lock);
    rdma_listener_stop(r->rdma);      /* ends and frees its sessions */
    pthread_mutex_lock(&r->lock);
    while (r->stats.active)
        pthread_cond_wait(&r->idle, &r->lock);
    pthread_mutex_unlock(&r->lock);
    responder_free(r);
}

void responder_get_stats(struct responder *r, struct responder_stats *ret)
{
    pthread_mutex_lock(&r->lock);
    *ret = r->stats;
    pthread_mutex_unlock(&r->lock);
}
