/* SPDX-License-Identifier: ISC */
/* Test helper: a Unix-socket proxy before fabtuned's control socket that holds each request
 * DELAY_MS before passing it on, standing for a daemon slow to answer on a loaded node.
 *   slow_proxy LISTEN TARGET DELAY_MS [DROP]
 * The first DROP connections are closed unanswered (a daemon restarting). Each connection
 * is served by a child of its own; the proxy runs until killed. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int address(const char *path, struct sockaddr_un *sa)
{
    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(sa->sun_path))
        return -1;
    strcpy(sa->sun_path, path);
    return 0;
}

/* Copies what arrives on FROM to TO up to and including the first newline. */
static int line(int from, int to)
{
    char buf[65536];
    for (;;) {
        ssize_t k = read(from, buf, sizeof(buf));
        if (k <= 0)
            return -1;
        if (write(to, buf, (size_t)k) != k)
            return -1;
        if (memchr(buf, '\n', (size_t)k))
            return 0;
    }
}

static void serve(int client, const struct sockaddr_un *target, long delay_ms)
{
    char req[65536];
    ssize_t n = 0, k;
    while ((size_t)n < sizeof(req) && (k = read(client, req + n, sizeof(req) - (size_t)n)) > 0) {
        n += k;
        if (memchr(req, '\n', (size_t)n))
            break;
    }
    struct timespec ts = { delay_ms / 1000, (delay_ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (const struct sockaddr *)target, sizeof(*target)) < 0 ||
        write(fd, req, (size_t)n) != n)
        _exit(1);
    _exit(line(fd, client) < 0);
}

int main(int argc, char **argv)
{
    struct sockaddr_un listen_at, target;
    if (argc < 4 || address(argv[1], &listen_at) < 0 || address(argv[2], &target) < 0) {
        fprintf(stderr, "usage: slow_proxy LISTEN TARGET DELAY_MS [DROP]\n");
        return 2;
    }
    long delay_ms = atol(argv[3]), drop = argc > 4 ? atol(argv[4]) : 0;
    signal(SIGCHLD, SIG_IGN);   /* no zombies */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    unlink(argv[1]);
    if (fd < 0 || bind(fd, (const struct sockaddr *)&listen_at, sizeof(listen_at)) < 0 ||
        listen(fd, 64) < 0) {
        perror("slow_proxy");
        return 1;
    }
    for (long served = 0;; served++) {
        int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) {
            if (errno == EINTR)
                continue;
            perror("slow_proxy: accept");
            return 1;
        }
        if (served < drop) {
            close(c);
            continue;
        }
        pid_t pid = fork();
        if (pid == 0) {
            close(fd);
            serve(c, &target, delay_ms);
        }
        close(c);
    }
}
