/* SPDX-License-Identifier: ISC */
/* Test helper: sends raw bytes (stdin, or N bytes of 'a') to a Unix socket and prints the
 * first reply line, waiting at most 3 s. For garbage and oversized control requests.
 *   ctl_raw SOCKET [N]        (exit 0 if a reply came, 1 if not, 2 on usage)
 *   ctl_raw SOCKET --hangup   sends stdin and closes at once, reading nothing: the daemon's
 *                             replies then meet a closed socket (EPIPE)
 *   ctl_raw SOCKET --all      sends stdin, shuts down its writing side, and prints every
 *                             reply until the daemon closes (at most 20 s)
 *   ctl_raw SOCKET --slots N  opens N connections that send nothing (each holds one of the
 *                             daemon's client slots, idle), then one more, and prints that
 *                             one's first reply line (exit 0 if a reply came, 1 if not)
 *   ctl_raw SOCKET --trickle N  sends a request one byte a second for N seconds; exit 0 if
 *                             the daemon closed the connection first, printing after how
 *                             many seconds, 1 if it let the trickle run to its end
 *   ctl_raw SOCKET --latency N [GAP_MS]  N status requests, one connection each, GAP_MS
 *                             apart: prints the median, the 99th percentile and the slowest
 *                             time from connect to the reply's whole first line, in
 *                             microseconds (exit 0 if every call was answered, 1 if not, or if
 *                             the calls took over 20 s: those made are judged) */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int trickle(int fd, int seconds)
{
    static const char req[] = "{\"v\":1,\"cmd\":\"status\"}";
    for (int i = 0; i < seconds; i++) {
        struct pollfd q = { .fd = fd, .events = POLLIN };
        char c;
        if (send(fd, &req[(size_t)i % (sizeof(req) - 1)], 1, MSG_NOSIGNAL) < 0 ||
            (poll(&q, 1, 1000) > 0 && read(fd, &c, 1) <= 0)) {
            printf("%d\n", i + 1);
            return 0;
        }
    }
    return 1;
}

static int connect_to(const struct sockaddr_un *sa)
{
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The first reply line on FD, within WAIT_MS, into BUF (size LEN); its length. */
static size_t first_line(int fd, char *buf, size_t size, int wait_ms)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    size_t len = 0;
    while (len < size - 1 && poll(&p, 1, wait_ms) > 0) {
        ssize_t k = read(fd, buf + len, size - 1 - len);
        if (k <= 0)
            break;
        len += (size_t)k;
        if (memchr(buf, '\n', len))
            break;
    }
    buf[len] = '\0';
    return len;
}

static long long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/* N status calls, timed one by one. */
static int latency(const struct sockaddr_un *sa, int n, int gap_ms)
{
    static const char req[] = "{\"v\":1,\"cmd\":\"status\"}\n";
    static char buf[1 << 20];
    long long *t = calloc((size_t)(n > 0 ? n : 1), sizeof(*t));
    int answered = 0, asked = n;
    long long start = now_us();
    if (!t || n <= 0)
        return 2;
    for (int i = 0; i < n; i++) {
        if (now_us() - start > 20 * 1000000LL) {
            n = i;      /* judged on the calls made */
            break;
        }
        if (i && gap_ms > 0)
            (void)poll(NULL, 0, gap_ms);
        long long t0 = now_us();
        int fd = connect_to(sa);
        if (fd < 0) {
            free(t);
            return 1;
        }
        if (send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) == (ssize_t)(sizeof(req) - 1) &&
            first_line(fd, buf, sizeof(buf), 10000) > 0 && strchr(buf, '\n'))
            answered++;
        t[i] = now_us() - t0;
        close(fd);
    }
    if (n == 0) {
        free(t);
        return 1;
    }
    qsort(t, (size_t)n, sizeof(*t), cmp_ll);
    size_t p99 = ((size_t)n * 99 + 99) / 100 - 1;
    printf("%lld %lld %lld\n", t[n / 2], t[p99], t[n - 1]);
    free(t);
    return answered == asked ? 0 : 1;
}

/* N idle connections, then one more: its reply. The N stay open until the process exits. */
static int past_slots(const struct sockaddr_un *sa, int n)
{
    char buf[4096];
    for (int i = 0; i < n; i++)
        if (connect_to(sa) < 0) {
            printf("connection %d of %d failed: %s\n", i + 1, n, strerror(errno));
            return 1;
        }
    int fd = connect_to(sa);
    if (fd < 0)
        return 1;
    size_t len = first_line(fd, buf, sizeof(buf), 3000);
    fputs(buf, stdout);
    return len ? 0 : 1;
}

int main(int argc, char **argv)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    char buf[4096];
    if (argc < 2 || strlen(argv[1]) >= sizeof(sa.sun_path))
        return 2;
    strcpy(sa.sun_path, argv[1]);
    if (argc > 3 && strcmp(argv[2], "--slots") == 0)
        return past_slots(&sa, atoi(argv[3]));
    if (argc > 3 && strcmp(argv[2], "--latency") == 0)
        return latency(&sa, atoi(argv[3]), argc > 4 ? atoi(argv[4]) : 0);
    int fd = connect_to(&sa);
    if (fd < 0)
        return 1;
    bool hangup = argc > 2 && strcmp(argv[2], "--hangup") == 0;
    bool all = argc > 2 && strcmp(argv[2], "--all") == 0;
    if (argc > 3 && strcmp(argv[2], "--trickle") == 0)
        return trickle(fd, atoi(argv[3]));
    if (argc > 2 && !hangup && !all) {
        size_t n = strtoul(argv[2], NULL, 10);
        memset(buf, 'a', sizeof(buf));
        for (size_t sent = 0; sent < n;) {
            size_t k = n - sent < sizeof(buf) ? n - sent : sizeof(buf);
            ssize_t w = send(fd, buf, k, MSG_NOSIGNAL);
            if (w <= 0)
                break;      /* the daemon may hang up once it has answered */
            sent += (size_t)w;
        }
    } else {
        ssize_t k;
        while ((k = read(0, buf, sizeof(buf))) > 0)
            if (send(fd, buf, (size_t)k, MSG_NOSIGNAL) != k)
                break;
    }
    if (all) {
        shutdown(fd, SHUT_WR);
        struct pollfd q = { .fd = fd, .events = POLLIN };
        ssize_t k;
        while (poll(&q, 1, 20000) > 0 && (k = read(fd, buf, sizeof(buf))) > 0)
            fwrite(buf, 1, (size_t)k, stdout);
        return 0;
    }
    if (hangup) {
        /* Vanish with the replies unread: the daemon still reads the requests, and its
         * send() of the first reply gets EPIPE. */
        close(fd);
        return 0;
    }
    size_t len = first_line(fd, buf, sizeof(buf), 3000);
    fputs(buf, stdout);
    return len ? 0 : 1;
}
