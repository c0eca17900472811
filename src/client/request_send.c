/* SPDX-License-Identifier: ISC */
/* fabtunectl's side of the control protocol: one request, one reply line. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "macro.h"
#include "protocol.h"

#define MAX_REPLY (8 * 1024 * 1024)

long long client_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* A nonblocking connect within the request's deadline: with the daemon's backlog full, a
 * Unix socket says EAGAIN at once, and a blocking connect would wait for as long as the
 * daemon does not accept. */
static int connect_to(const char *path, long long deadline)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof(sa.sun_path))
        return -ENAMETOOLONG;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -errno;
    while (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        int r = -errno;
        if ((r == -EAGAIN || r == -EINTR) && client_now_ms() < deadline) {
            nanosleep(&(struct timespec){ 0, 2 * 1000000L }, NULL);
            continue;
        }
        close(fd);
        return r == -EAGAIN ? -ETIMEDOUT : r;
    }
    return fd;
}

static int send_all(int fd, const char *p, size_t len, long long deadline)
{
    while (len > 0) {
        ssize_t k = send(fd, p, len, MSG_NOSIGNAL);
        if (k < 0 && (errno == EAGAIN || errno == EINTR)) {
            int left = (int)(deadline - client_now_ms());
            struct pollfd q = { .fd = fd, .events = POLLOUT };
            if (left <= 0 || poll(&q, 1, left) == 0)
                return -ETIMEDOUT;
            continue;
        }
        if (k < 0)
            return -errno;
        p += k;
        len -= (size_t)k;
    }
    return 0;
}

static int read_reply(int fd, long long deadline, char **ret)
{
    size_t len = 0, cap = 65536;
    _cleanup_free_ char *buf = malloc(cap);
    if (!buf)
        return -ENOMEM;
    for (;;) {
        int left = (int)(deadline - client_now_ms());
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (left <= 0 || poll(&p, 1, left) == 0)
            return -ETIMEDOUT;
        if (len + 4096 > cap) {
            if (cap >= MAX_REPLY)
                return -EMSGSIZE;
            char *n = realloc(buf, cap *= 2);
            if (!n)
                return -ENOMEM;
            buf = n;
        }
        ssize_t k = read(fd, buf + len, cap - len - 1);
        if (k < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (k <= 0)
            return k < 0 ? -errno : -ECONNRESET;
        len += (size_t)k;
        buf[len] = '\0';
        char *nl = memchr(buf, '\n', len);
        if (nl) {
            *nl = '\0';
            *ret = TAKE_PTR(buf);
            return 0;
        }
    }
}

int client_parse_reply(const char *line, json_object **ret)
{
    json_object *o = json_tokener_parse(line);
    if (!o || !json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        return -EBADMSG;
    }
    *ret = o;
    return 0;
}

int client_request(const char *path, const char *cmd, json_object *args, int timeout_ms,
                   json_object **ret)
{
    return client_request_until(path, cmd, args, client_now_ms() + timeout_ms, ret);
}

/* DEADLINE bounds connect, send and reply together. */
int client_request_until(const char *path, const char *cmd, json_object *args, long long deadline,
                         json_object **ret)
{
    _cleanup_close_ int fd = connect_to(path, deadline);
    if (fd < 0)
        return fd;
    json_object *req = json_object_new_object();
    json_object_object_add(req, "v", json_object_new_int(PROTOCOL_VERSION));
    json_object_object_add(req, "cmd", json_object_new_string(cmd));
    if (args)
        json_object_object_add(req, "args", json_object_get(args));
    const char *text = json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN);
    size_t n = strlen(text);
    _cleanup_free_ char *line = malloc(n + 2);
    if (!line) {
        json_object_put(req);
        return -ENOMEM;
    }
    memcpy(line, text, n);
    line[n] = '\n';
    json_object_put(req);
    int r = send_all(fd, line, n + 1, deadline);
    if (r < 0)
        return r;
    _cleanup_free_ char *reply = NULL;
    r = read_reply(fd, deadline, &reply);
    if (r < 0)
        return r;
    return client_parse_reply(reply, ret);
}
