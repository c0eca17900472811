/* SPDX-License-Identifier: ISC */
/* The control socket server. Each client is nonblocking, with a request size limit, an
 * idle timeout and a bounded output queue; too many clients are refused. A slow or
 * hostile client can only hurt itself. */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "commands.h"
#include "control.h"
#include "log.h"
#include "macro.h"
#include "manager.h"
#include "protocol.h"

struct client {
    struct control *c;
    int fd;
    struct peer peer;
    char in[PROTOCOL_MAX_LINE + 1];
    size_t in_len;
    char *out;
    size_t out_len, out_pos;
    sd_event_source *io, *timer;
};

struct control {
    struct manager *m;
    int fd;
    bool owned;                 /* we created it (not socket activation): unlink on exit */
    char path[108];
    sd_event_source *src;
    struct client *clients[CONTROL_MAX_CLIENTS];
};

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

static void queue_reply(struct client *cl, json_object *reply)
{
    const char *text = json_object_to_json_string_ext(reply, JSON_C_TO_STRING_PLAIN |
                                                             JSON_C_TO_STRING_NOSLASHESCAPE);
    size_t len = strlen(text);
    char *n = realloc(cl->out, cl->out_len + len + 1);
    if (!n) {
        json_object_put(reply);
        return;
    }
    cl->out = n;
    memcpy(cl->out + cl->out_len, text, len);
    cl->out[cl->out_len + len] = '\n';
    cl->out_len += len + 1;
    json_object_put(reply);
    sd_event_source_set_io_events(cl->io, EPOLLIN | EPOLLOUT);
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

static void handle_line(struct client *cl, const char *line)
{
    json_object *req = json_tokener_parse(line), *v, *cmd, *args = NULL;
    if (!req || !json_object_is_type(req, json_type_object) ||
        !json_object_object_get_ex(req, "cmd", &cmd) || !json_object_is_type(cmd, json_type_string)) {
        queue_reply(cl, error_reply("EINVAL", "malformed request: expected {\"v\":1,\"cmd\":\"...\"}"));
        json_object_put(req);
        return;
    }
    if (!json_object_object_get_ex(req, "v", &v) || json_object_get_int(v) != PROTOCOL_VERSION) {
        queue_reply(cl, error_reply("EPROTO", "unsupported protocol version (this fabtuned speaks v1)"));
        json_object_put(req);
        return;
    }
    json_object_object_get_ex(req, "args", &args);
    const char *code = NULL;
    char msg[512] = "";
    json_object *data = commands_run(cl->c->m, json_object_get_string(cmd), args, &cl->peer,
                                     &code, msg, sizeof(msg));
    if (code) {
        queue_reply(cl, error_reply(code, msg));
    } else {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "v", json_object_new_int(PROTOCOL_VERSION));
        json_object_object_add(o, "ok", json_object_new_boolean(true));
        json_object_object_add(o, "data", data);
        queue_reply(cl, o);
    }
    json_object_put(req);
}

static int client_read(struct client *cl)
{
    ssize_t k = read(cl->fd, cl->in + cl->in_len, sizeof(cl->in) - 1 - cl->in_len);
    if (k < 0)
        return errno == EAGAIN || errno == EINTR ? 0 : -errno;
    if (k == 0)
        return -ECONNRESET;
    cl->in_len += (size_t)k;
    char *nl;
    while ((nl = memchr(cl->in, '\n', cl->in_len))) {
        *nl = '\0';
        handle_line(cl, cl->in);
        size_t used = (size_t)(nl + 1 - cl->in);
        memmove(cl->in, nl + 1, cl->in_len - used);
        cl->in_len -= used;
    }
    if (cl->in_len >= sizeof(cl->in) - 1) {
        queue_reply(cl, error_reply("E2BIG", "request larger than 64 KiB"));
        return -E2BIG;      /* answered; the connection closes after the reply */
    }
    return 0;
}

static int client_write(struct client *cl)
{
    while (cl->out_pos < cl->out_len) {
        ssize_t k = send(cl->fd, cl->out + cl->out_pos, cl->out_len - cl->out_pos, MSG_NOSIGNAL);
        if (k < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : -errno;
        cl->out_pos += (size_t)k;
    }
    cl->out_pos = cl->out_len = 0;
    sd_event_source_set_io_events(cl->io, EPOLLIN);
    return 1;
}

static int on_client(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
    struct client *cl = userdata;
    int r = 0;
    if (revents & EPOLLIN)
        r = client_read(cl);
    if (cl->out_len) {
        int w = client_write(cl);
        if (w < 0)
            r = w;
    }
    /* An oversized request was answered: hang up once the answer is out. */
    if (r == -E2BIG && cl->out_len == 0)
        r = -ECONNRESET;
    if ((r < 0 && r != -E2BIG) || (revents & (EPOLLHUP | EPOLLERR) && !(revents & EPOLLIN))) {
        client_free(cl);
        return 0;
    }
    sd_event_source_set_time_relative(cl->timer, CONTROL_CLIENT_TIMEOUT_USEC);
    return 0;
}

static int on_client_timeout(sd_event_source *s, uint64_t usec, void *userdata)
{
    struct client *cl = userdata;
    log_debug("control", "client pid %d idle; closing", (int)cl->peer.cred.pid);
    client_free(cl);
    return 0;
}

static int on_accept(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
    struct control *c = userdata;
    int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (cfd < 0)
        return 0;
    size_t slot = 0;
    while (slot < CONTROL_MAX_CLIENTS && c->clients[slot])
        slot++;
    struct client *cl = slot < CONTROL_MAX_CLIENTS ? calloc(1, sizeof(*cl)) : NULL;
    if (!cl || peer_from_socket(cfd, &cl->peer) < 0) {
        static const char busy[] = "{\"v\":1,\"ok\":false,\"error\":{\"code\":\"EBUSY\",\"message\":\"too many clients\"}}\n";
        if (send(cfd, busy, sizeof(busy) - 1, MSG_NOSIGNAL) < 0) { /* it goes either way */ }
        close(cfd);
        free(cl);
        return 0;
    }
    cl->c = c;
    cl->fd = cfd;
    if (sd_event_add_io(c->m->event, &cl->io, cfd, EPOLLIN, on_client, cl) < 0 ||
        sd_event_add_time_relative(c->m->event, &cl->timer, CLOCK_MONOTONIC,
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
    chmod(path, 0660);
    c->owned = true;
    snprintf(c->path, sizeof(c->path), "%s", path);
    return fd;
}

int control_new(struct manager *m, struct control **ret)
{
    struct control *c = calloc(1, sizeof(*c));
    if (!c)
        return -ENOMEM;
    c->m = m;
    int n = sd_listen_fds(true);
    if (n > 0) {
        c->fd = SD_LISTEN_FDS_START;
        log_info("Control socket from systemd (socket activation)");
    } else {
        /* --runtime-dir moves the socket with it unless the policy names another. */
        char path[108];
        const char *p = m->policy.control.socket;
        if (streq(p, PROTOCOL_DEFAULT_SOCKET) && !streq(m->opts->runtime_dir, "/run/fabtune"))
            snprintf(path, sizeof(path), "%s/fabtuned.sock", m->opts->runtime_dir);
        else
            snprintf(path, sizeof(path), "%s", p);
        c->fd = listen_on(c, path, m->policy.control.group);
        if (c->fd < 0) {
            int r = c->fd;
            free(c);
            return log_error_errno(r, "Cannot listen on %s: %m", path);
        }
    }
    int r = sd_event_add_io(m->event, &c->src, c->fd, EPOLLIN, on_accept, c);
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
    if (c->fd >= 0)
        close(c->fd);
    if (c->owned)
        unlink(c->path);
    free(c);
}
