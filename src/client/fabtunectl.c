/* fabtunectl: sends one request to fabtuned over its Unix socket and prints the reply. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "macro.h"
#include "protocol.h"

#define REPLY_TIMEOUT_MS 5000

static const char *const commands[] = {
    "status", "checks", "probes", "tuning", "nccl-env", "metrics", "health",
    "wait-ready", "reload", "probe-now", "apply", "revert",
};

static void help(void)
{
    printf("Usage: fabtunectl [-s SOCKET] [--json] COMMAND\n"
           "Query and control fabtuned.\n\n"
           "Commands: status, checks, probes, tuning, nccl-env, metrics, health,\n"
           "          wait-ready, reload, probe-now, apply, revert\n\n"
           "  -s, --socket PATH   the daemon's socket (default %s)\n"
           "      --json          machine-readable output\n"
           "  -h, --help          this help\n"
           "  -V, --version       print the version\n", PROTOCOL_DEFAULT_SOCKET);
}

static int connect_daemon(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof(sa.sun_path))
        return -ENAMETOOLONG;
    memcpy(sa.sun_path, path, strlen(path) + 1);

    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        int r = -errno;
        close(fd);
        return r;
    }
    return fd;
}

/* Reads one reply line, at most PROTOCOL_MAX_LINE bytes, within the timeout. */
static int read_line(int fd, char **ret)
{
    _cleanup_free_ char *buf = malloc(PROTOCOL_MAX_LINE + 1);
    size_t len = 0;
    if (!buf)
        return -ENOMEM;
    while (len < PROTOCOL_MAX_LINE) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r = poll(&p, 1, REPLY_TIMEOUT_MS);
        if (r == 0)
            return -ETIMEDOUT;
        if (r < 0 && errno != EINTR)
            return -errno;
        ssize_t k = read(fd, buf + len, PROTOCOL_MAX_LINE - len);
        if (k < 0 && errno != EINTR && errno != EAGAIN)
            return -errno;
        if (k == 0)
            return -ECONNRESET;
        if (k > 0)
            len += (size_t)k;
        char *nl = memchr(buf, '\n', len);
        if (nl) {
            *nl = '\0';
            *ret = TAKE_PTR(buf);
            return 0;
        }
    }
    return -EMSGSIZE;
}

static int request(const char *socket_path, const char *cmd, bool json_out)
{
    _cleanup_close_ int fd = connect_daemon(socket_path);
    if (fd < 0) {
        fprintf(stderr, "fabtunectl: cannot connect to %s: %s%s\n", socket_path,
                strerror(-fd), fd == -ENOENT || fd == -ECONNREFUSED ? " (is fabtuned running?)" : "");
        return 69;
    }
    char line[256];
    int n = snprintf(line, sizeof(line), "{\"v\":%d,\"cmd\":\"%s\"}\n", PROTOCOL_VERSION, cmd);
    if (write(fd, line, (size_t)n) != n) {
        fprintf(stderr, "fabtunectl: cannot send request: %m\n");
        return 69;
    }
    _cleanup_free_ char *reply = NULL;
    int r = read_line(fd, &reply);
    if (r < 0) {
        fprintf(stderr, "fabtunectl: no reply from fabtuned: %s\n", strerror(-r));
        return 69;
    }
    json_object *j = json_tokener_parse(reply);
    if (!j) {
        fprintf(stderr, "fabtunectl: malformed reply from fabtuned\n");
        return 69;
    }
    json_object *ok, *body;
    bool success = json_object_object_get_ex(j, "ok", &ok) && json_object_get_boolean(ok);
    if (!success && json_object_object_get_ex(j, "error", &body)) {
        fprintf(stderr, "fabtunectl: %s\n", json_object_to_json_string(body));
    } else if (json_object_object_get_ex(j, "data", &body)) {
        puts(json_object_to_json_string_ext(body, json_out ? JSON_C_TO_STRING_PLAIN
                                                           : JSON_C_TO_STRING_PRETTY));
    }
    json_object_put(j);
    return success ? 0 : 1;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "socket", required_argument, NULL, 's' },
        { "json", no_argument, NULL, 'j' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        {},
    };
    const char *socket_path = PROTOCOL_DEFAULT_SOCKET;
    bool json_out = false;
    int c;

    while ((c = getopt_long(argc, argv, "s:hV", longopts, NULL)) != -1) {
        switch (c) {
        case 's': socket_path = optarg; break;
        case 'j': json_out = true; break;
        case 'h': help(); return 0;
        case 'V': printf("fabtunectl %s\n", PACKAGE_VERSION); return 0;
        default: return 64;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "fabtunectl: expected one command; see 'fabtunectl --help'\n");
        return 64;
    }
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
        if (streq(argv[optind], commands[i]))
            return request(socket_path, commands[i], json_out);
    fprintf(stderr, "fabtunectl: unknown command '%s'; see 'fabtunectl --help'\n", argv[optind]);
    return 64;
}
