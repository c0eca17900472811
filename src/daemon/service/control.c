/* SPDX-License-Identifier: ISC */
/* The control socket server. Each client is nonblocking, with a request size limit, an
 * idle timeout, a deadline for each request line, a bounded output queue (reading stops
 * while it is full) and a few requests per loop iteration; slots are kept back for root,
 * and one uid holds only a few. A slow or hostile client can only hurt itself. */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "control.h"
#include "log.h"
#include "macro.h"
#include "protocol.h"
#include "request_parse.h"
#include "strutil.h"
#include "timeutil.h"

struct client {
    struct control *c;
    int fd;
    struct peer peer;
    bool privileged;            /* root: may take the slots kept back from everyone else */
    bool eof;                   /* the client shut its writing side: answer, then close */
    char in[PROTOCOL_MAX_LINE + 1];
    size_t in_pos, in_len;      /* unread request bytes are in[in_pos, in_len) */
    usec_t line_start;          /* when the first byte of the pending partial line came */
    char *out;
    size_t out_len, out_pos, out_cap;
    usec_t active_at;           /* CLOCK_MONOTONIC of its last event */
    sd_event_source *io, *timer;
};

struct control {
    sd_event *event;
    control_handler_fn handler;
    void *userdata;
    int fd;
    bool owned;                 /* we created it (not socket activation): unlink on exit */
    char path[108];
    sd_event_source *src, *resume;
    bool emfile_logged;
    struct client *clients[CONTROL_MAX_CLIENTS];
};

int peer_from_socket(int fd, struct peer *ret)
{
    socklen_t len = sizeof(ret->cred);
    memset(ret, 0, sizeof(*ret));
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &ret->cred, &len) < 0)
        return -errno;
    len = sizeof(ret->groups);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, ret->groups, &len) < 0)
        len = 0;    /* more than 64 groups (ERANGE): the primary group still counts */
    ret->n_groups = len / sizeof(gid_t);
    return 0;
}

static void client_free(struct client *cl)
{
    struct control *c = cl->c;
    for (size_t i = 0; i < CONTROL_MAX_CLIENTS; i++)
        if (c->clients[i] == cl)
            c->clients[i] = NULL;
    sd_event_source_unref(cl->io);
    sd_event_source_unref(cl->timer);
    close(cl->fd);
    free(cl->out);
    free(cl);
}

static size_t queued(const struct client *cl)
{
    return cl->out_len - cl->out_pos;
}

/* Appends one reply line. Strings from outside (a policy's bytes, a sysfs file) may hold
 * invalid UTF-8: the line is made valid before it leaves. */
static void queue_reply(struct client *cl, json_object *reply)
{
    size_t len;
    const char *text = json_object_to_json_string_ext(reply, JSON_C_TO_STRING_PLAIN |
                                                             JSON_C_TO_STRING_NOSLASHESCAPE);
    _cleanup_free_ char *clean = text ? utf8_sanitize(text, strlen(text), &len) : NULL;
    json_object_put(reply);
    if (!clean)
        return;
    if (cl->out_pos == cl->out_len)
        cl->out_pos = cl->out_len = 0;
    if (cl->out_len + len + 1 > cl->out_cap) {
        if (cl->out_pos > 0) {      /* reuse the space already sent */
            memmove(cl->out, cl->out + cl->out_pos, cl->out_len - cl->out_pos);
            cl->out_len -= cl->out_pos;
            cl->out_pos = 0;
        }
        size_t cap = cl->out_cap ? cl->out_cap : 4096;
        while (cap < cl->out_len + len + 1)
            cap *= 2;
        char *n = realloc(cl->out, cap);
        if (!n)
            return;
        cl->out = n;
        cl->out_cap = cap;
    }
    memcpy(cl->out + cl->out_len, clean, len);
    cl->out[cl->out_len + len] = '\n';
    cl->out_len += len + 1;
}

static json_object *error_reply(const char *code, const char *msg)
{
    json_object *o = json_object_new_object(), *e = json_object_new_object();
    json_object_object_add(o, "v", json_object_new_int(PROTOCOL_VERSION));
    json_object_object_add(o, "ok", json_object_new_boolean(false));
    json_object_object_add(e, "code", json_object_new_string(code));
    json_object_object_add(e, "message", json_object_new_string(msg));
    json_object_object_add(o, "error", e);
    return o;
}

static void handle_line(struct client *cl, const char *line, size_t len)
{
    struct request req;
    char msg[512] = "";
    const char *code = request_parse(line, len, &req, msg, sizeof(msg));
    if (code) {
        queue_reply(cl, error_reply(code, msg));
        return;
    }
    json_object *data = cl->c->handler(cl->c->userdata, req.cmd, req.args, &cl->peer, &code, msg,
                                     sizeof(msg));
    if (code) {
        queue_reply(cl, error_reply(code, msg));
    } else {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "v", json_object_new_int(PROTOCOL_VERSION));
        json_object_object_add(o, "ok", json_object_new_boolean(true));
        json_object_object_add(o, "data", data);
        queue_reply(cl, o);
    }
    request_done(&req);
}

/* Answers at most CONTROL_MAX_REQUESTS_PER_WAKE complete lines, and none while the client
 * leaves CONTROL_MAX_QUEUED bytes of replies unread: pipelining cannot stall the loop nor
 * grow the queue without bound. Returns whether complete lines remain. */
static bool handle_lines(struct client *cl)
{
    for (unsigned n = 0; n < CONTROL_MAX_REQUESTS_PER_WAKE && queued(cl) < CONTROL_MAX_QUEUED; n++) {
        char *start = cl->in + cl->in_pos;
        char *nl = memchr(start, '\n', cl->in_len - cl->in_pos);
        if (!nl)
            return false;
        handle_line(cl, start, (size_t)(nl - start));
        cl->in_pos = (size_t)(nl + 1 - cl->in);
        cl->line_start = cl->in_pos < cl->in_len ? now_usec(CLOCK_MONOTONIC) : 0;
    }
    return memchr(cl->in + cl->in_pos, '\n', cl->in_len - cl->in_pos) != NULL;
}

static int client_read(struct client *cl)
{
    if (cl->in_pos > 0) {           /* keep only the unread bytes, once per read */
        memmove(cl->in, cl->in + cl->in_pos, cl->in_len - cl->in_pos);
        cl->in_len -= cl->in_pos;
        cl->in_pos = 0;
    }
    size_t space = sizeof(cl->in) - 1 - cl->in_len;
    if (space == 0)
        return 0;           /* full of complete lines still to answer: read later */
    ssize_t k = read(cl->fd, cl->in + cl->in_len, space);
    if (k < 0)
        return errno == EAGAIN || errno == EINTR ? 0 : -errno;
    if (k == 0) {
        cl->eof = true;
        return 0;
    }
    if (cl->in_len == 0 || !cl->line_start)
        cl->line_start = now_usec(CLOCK_MONOTONIC);
    cl->in_len += (size_t)k;
    if (cl->in_len >= sizeof(cl->in) - 1 && !memchr(cl->in, '\n', cl->in_len)) {
        queue_reply(cl, error_reply("E2BIG", "request larger than 64 KiB"));
        return -E2BIG;      /* answered; the connection closes after the reply */
    }
    return 0;
}

static int client_write(struct client *cl)
{
    while (queued(cl) > 0) {
        ssize_t k = send(cl->fd, cl->out + cl->out_pos, queued(cl), MSG_NOSIGNAL);
        if (k < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : -errno;
        cl->out_pos += (size_t)k;
    }
    return 0;
}

/* The client's deadline: idle for CONTROL_CLIENT_TIMEOUT_USEC, or a request line that has
 * taken CONTROL_REQUEST_DEADLINE_USEC since its first byte (a slow sender cannot keep its
 * slot by trickling bytes). */
static void rearm_timer(struct client *cl)
{
    usec_t now = now_usec(CLOCK_MONOTONIC), at = now + CONTROL_CLIENT_TIMEOUT_USEC;
    if (cl->line_start && cl->line_start + CONTROL_REQUEST_DEADLINE_USEC < at)
        at = cl->line_start + CONTROL_REQUEST_DEADLINE_USEC;
    sd_event_source_set_time(cl->timer, at);
}

static int on_client(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
    struct client *cl = userdata;
    int r = 0;
    if ((revents & EPOLLIN) && !cl->eof && queued(cl) < CONTROL_MAX_QUEUED)
        r = client_read(cl);
    bool more = r >= 0 && handle_lines(cl);
    int w = client_write(cl);
    if (w < 0)
        r = w;
    /* An oversized request was answered: hang up once the answer is out. */
    if (r == -E2BIG && queued(cl) == 0)
        r = -ECONNRESET;
    bool done = cl->eof && !more && queued(cl) == 0;
    if ((r < 0 && r != -E2BIG) || done || (revents & EPOLLERR)) {
        client_free(cl);
        return 0;
    }
    /* Read while the replies are taken; write while some wait. Lines left unanswered mean
     * replies are queued, so EPOLLOUT brings the client back on the next iteration. */
    uint32_t events = (queued(cl) || more ? EPOLLOUT : 0) |
                      (!cl->eof && r != -E2BIG && queued(cl) < CONTROL_MAX_QUEUED ? EPOLLIN : 0);
    sd_event_source_set_io_events(cl->io, events);
    cl->active_at = now_usec(CLOCK_MONOTONIC);
    rearm_timer(cl);
    return 0;
}

static int on_client_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
    struct client *cl = userdata;
    log_debug("control", "client pid %d idle or too slow; closing", (int)cl->peer.cred.pid);
    client_free(cl);
    return 0;
}

static void refuse(int cfd, const char *code, const char *msg)
{
    char line[256];
    int n = snprintf(line, sizeof(line), "{\"v\":1,\"ok\":false,\"error\":{\"code\":\"%s\","
                     "\"message\":\"%s\"}}\n", code, msg);
    if (send(cfd, line, (size_t)n, MSG_NOSIGNAL) < 0) { /* it goes either way */ }
    close(cfd);
}

/* The descriptors clients may hold: below RLIMIT_NOFILE less the daemon's own reserve. A
 * client whose descriptor is at or past it would leave the daemon short (and the next
 * accept() failing with EMFILE, root's too, until an idle client times out). */
static int fd_ceiling(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur > INT32_MAX)
        return INT32_MAX;
    return rl.rlim_cur > CONTROL_FD_RESERVE ? (int)rl.rlim_cur - CONTROL_FD_RESERVE : 0;
}

/* The client idle the longest (no partial request, no reply waiting), or NULL. */
static struct client *idlest(const struct control *c)
{
    struct client *best = NULL;
    for (size_t i = 0; i < CONTROL_MAX_CLIENTS; i++) {
        struct client *cl = c->clients[i];
        if (cl && cl->in_len == cl->in_pos && queued(cl) == 0 &&
            (!best || cl->active_at < best->active_at))
            best = cl;
    }
    return best;
}

/* Slots: root may take any; everyone else leaves CONTROL_ROOT_SLOTS free, and one uid
 * holds at most CONTROL_MAX_PER_UID. Descriptors likewise (CFD, the new client's, against
 * fd_ceiling()): at the ceiling, or with every slot taken, root's client makes room by
 * closing the one idle the longest, so that idle clients never delay root's status. */
static bool slot_allowed(const struct control *c, const struct peer *p, int cfd)
{
    size_t used = 0, same = 0;
    int ceiling = fd_ceiling();
    for (size_t i = 0; i < CONTROL_MAX_CLIENTS; i++)
        if (c->clients[i]) {
            used++;
            same += c->clients[i]->peer.cred.uid == p->cred.uid;
        }
    if (p->cred.uid != 0)
        return used < CONTROL_MAX_CLIENTS - CONTROL_ROOT_SLOTS && same < CONTROL_MAX_PER_UID &&
               cfd < ceiling - CONTROL_ROOT_SLOTS;
    if (used < CONTROL_MAX_CLIENTS && cfd < ceiling)
        return true;
    struct client *victim = idlest(c);
    if (!victim)
        return false;
    log_debug("control", "root's client at the limit: closing the idlest, pid %d",
              (int)victim->peer.cred.pid);
    client_free(victim);
    return true;
}

static int on_resume(sd_event_source *s, uint64_t usec, void *userdata)
{
    struct control *c = userdata;
    c->resume = sd_event_source_unref(c->resume);
    sd_event_source_set_enabled(c->src, SD_EVENT_ON);
    return 0;
}

/* Out of file descriptors: accept() would fail again at once, so the listener rests for
 * a moment instead of spinning the loop. */
static void pause_listener(struct control *c, int err)
{
    if (!c->emfile_logged)
        log_warning_errno(err, "Cannot accept control clients: %m; pausing the listener");
    c->emfile_logged = true;
    if (c->resume || sd_event_add_time_relative(c->event, &c->resume, CLOCK_MONOTONIC,
                                                CONTROL_ACCEPT_PAUSE_USEC, 0, on_resume, c) < 0)
        return;
    sd_event_source_set_enabled(c->src, SD_EVENT_OFF);
}

static int on_accept(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
    struct control *c = userdata;
    struct peer peer;
    int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (cfd < 0) {
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
            pause_listener(c, -errno);
        return 0;
    }
    c->emfile_logged = false;
    if (peer_from_socket(cfd, &peer) < 0) {
        close(cfd);
        return 0;
    }
    if (!slot_allowed(c, &peer, cfd)) {
        refuse(cfd, "EBUSY", "too many clients");
        return 0;
    }
    size_t slot = 0;
    while (slot < CONTROL_MAX_CLIENTS && c->clients[slot])
        slot++;
    struct client *cl = calloc(1, sizeof(*cl));
    if (!cl) {
        refuse(cfd, "EBUSY", "out of memory");
        return 0;
    }
    cl->c = c;
    cl->fd = cfd;
    cl->peer = peer;
    cl->active_at = now_usec(CLOCK_MONOTONIC);
    if (sd_event_add_io(c->event, &cl->io, cfd, EPOLLIN, on_client, cl) < 0 ||
        sd_event_add_time_relative(c->event, &cl->timer, CLOCK_MONOTONIC,
                                   CONTROL_CLIENT_TIMEOUT_USEC, 0, on_client_timeout, cl) < 0) {
        sd_event_source_unref(cl->io);
        close(cfd);
        free(cl);
        return 0;
    }
    c->clients[slot] = cl;
    return 0;
}

static int listen_on(struct control *c, const char *path, const char *group)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof(sa.sun_path))
        return -ENAMETOOLONG;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    (void)unlink(path);     /* a stale socket from a crash */
    mode_t old = umask(0117);
    int r = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ? -errno : 0;
    umask(old);
    if (r == 0 && listen(fd, 16) < 0)
        r = -errno;
    if (r < 0) {
        close(fd);
        return r;
    }
    struct group *g = group ? getgrnam(group) : NULL;
    if (g && chown(path, 0, g->gr_gid) < 0)
        log_warning("Cannot give %s to group %s: %m", path, group);
    else if (group && !g)
        log_warning("No group %s on this host: %s is root's alone (root:root 0660)", group, path);
    chmod(path, 0660);
    c->owned = true;
    snprintf(c->path, sizeof(c->path), "%s", path);
    return fd;
}

int control_new(sd_event *event, const char *path, const char *group, control_handler_fn handler,
                void *userdata, struct control **ret)
{
    struct control *c = calloc(1, sizeof(*c));
    if (!c)
        return -ENOMEM;
    c->event = event;
    c->handler = handler;
    c->userdata = userdata;
    int n = sd_listen_fds(true);
    if (n > 0) {
        c->fd = SD_LISTEN_FDS_START;
        log_info("Control socket from systemd (socket activation)");
    } else {
        c->fd = listen_on(c, path, group);
        if (c->fd < 0) {
            int r = c->fd;
            free(c);
            return r;           /* the caller logs it, with the path */
        }
    }
    int r = sd_event_add_io(event, &c->src, c->fd, EPOLLIN, on_accept, c);
    if (r < 0) {
        control_free(c);
        return r;
    }
    *ret = c;
    return 0;
}

void control_free(struct control *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < CONTROL_MAX_CLIENTS; i++)
        if (c->clients[i])
            client_free(c->clients[i]);
    sd_event_source_unref(c->src);
    sd_event_source_unref(c->resume);
    if (c->fd >= 0)
        close(c->fd);
    if (c->owned)
        unlink(c->path);
    free(c);
}
