/* SPDX-License-Identifier: ISC */
/* Query latency under load: CLIENTS processes, each on its own connection, send CMD
 * ("status" by default) at RATE requests per second for SECONDS and time each reply.
 * Prints p50 and p99 over all requests, in microseconds.
 * With "fresh", each request opens its own connection (timed with it), and unanswered
 * ones are counted.
 *   status_load SOCKET CLIENTS RATE SECONDS [CMD [fresh]] */
#include "config.h"

#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int connect_to(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    strncpy(sa.sun_path, path, sizeof(sa.sun_path) - 1);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* One request and its reply line on fd, in seconds; -1 when it failed. */
static double ask(int fd, const char *req)
{
    static char buf[1 << 20];
    double t0 = now();
    size_t len = 0;
    if (fd < 0 || write(fd, req, strlen(req)) < 0)
        return -1;
    while (!memchr(buf, '\n', len)) {
        ssize_t k = read(fd, buf + len, sizeof(buf) - len);
        if (k <= 0)
            return -1;
        len += (size_t)k;
    }
    memset(buf, 0, len);
    return now() - t0;
}

/* FRESH: a new connection for every request (timed with its connect), and a failure is
 * counted, not fatal: for the slowloris bench. */
static void client(const char *path, const char *cmd, int rate, int seconds, bool fresh, int out)
{
    int fd = fresh ? -1 : connect_to(path);
    if (!fresh && fd < 0)
        _exit(1);
    char req[128];
    snprintf(req, sizeof(req), "{\"v\":1,\"cmd\":\"%s\"}\n", cmd);
    double start = now(), period = 1.0 / rate;
    for (int i = 0; i < rate * seconds; i++) {
        double due = start + i * period, t = now();
        if (due > t) {
            struct timespec ts = { (time_t)(due - t), (long)(((due - t) - (double)(time_t)(due - t)) * 1e9) };
            nanosleep(&ts, NULL);
        }
        double t0 = now(), lat;
        if (fresh) {
            int c = connect_to(path);
            lat = ask(c, req);
            lat = lat < 0 ? -1 : now() - t0;
            if (c >= 0)
                close(c);
        } else if ((lat = ask(fd, req)) < 0) {
            _exit(1);
        }
        if (write(out, &lat, sizeof(lat)) < 0)
            _exit(1);
    }
    _exit(0);
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc > 7)
        return 2;
    bool fresh = argc > 6 && strcmp(argv[6], "fresh") == 0;
    int clients = atoi(argv[2]), rate = atoi(argv[3]), seconds = atoi(argv[4]);
    int p[2];
    if (pipe(p) < 0)
        return 1;
    for (int c = 0; c < clients; c++)
        if (fork() == 0) {
            close(p[0]);
            client(argv[1], argc > 5 ? argv[5] : "status", rate, seconds, fresh, p[1]);
        }
    close(p[1]);
    size_t n = 0, cap = (size_t)(clients * rate * seconds) + 1;
    double *lat = malloc(cap * sizeof(*lat)), v;
    while (n < cap && read(p[0], &v, sizeof(v)) == sizeof(v))
        lat[n++] = v;
    while (wait(NULL) > 0)
        ;
    size_t ok = 0;
    for (size_t i = 0; i < n; i++)
        if (lat[i] >= 0)
            lat[ok++] = lat[i];
    if (!ok) {
        printf("%zu requests, none answered\n", n);
        return 1;
    }
    qsort(lat, ok, sizeof(*lat), cmp);
    printf("%zu requests from %d clients at %d/s each%s: %zu answered (%.1f %%), p50 %.0f us, "
           "p99 %.0f us, max %.0f us\n", n, clients, rate, fresh ? ", a connection each" : "",
           ok, 100.0 * (double)ok / (double)n, lat[(ok - 1) / 2] * 1e6,
           lat[(size_t)((double)ok * 0.99)] * 1e6, lat[ok - 1] * 1e6);
    return 0;
}
