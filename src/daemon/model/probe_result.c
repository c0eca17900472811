/* SPDX-License-Identifier: ISC */
/* Helpers every probe shares: failures, clocks (the thread's CPU time and CPU wait too). */
#include "config.h"

#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "probe_result.h"

void probe_fail(struct probe_result *r, int err, const char *fmt, ...)
{
    va_list ap;
    r->ran = true;
    r->error = err < 0 ? err : -err;
    va_start(ap, fmt);
    vsnprintf(r->error_text, sizeof(r->error_text), fmt, ap);
    va_end(ap);
}

double probe_result_age(const struct probe_result *r)
{
    usec_t now = now_usec(CLOCK_BOOTTIME);
    return r->at && now > r->at_boot ? (double)(now - r->at_boot) / USEC_PER_SEC : 0.0;
}

double probe_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double probe_thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double probe_thread_cpu_wait(void)
{
    /* "<on CPU ns> <run_delay ns> <timeslices>" (Documentation/scheduler/sched-stats.rst) */
    char buf[96];
    int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NAN;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    unsigned long long on_cpu, run_delay;
    if (n <= 0)
        return NAN;
    buf[n] = '\0';
    if (sscanf(buf, "%llu %llu", &on_cpu, &run_delay) != 2)
        return NAN;
    return (double)run_delay * 1e-9;
}

void probe_mark(struct probe_mark *m)
{
    m->t = probe_now();
    m->cpu = probe_thread_cpu();
    m->cpu_wait = probe_thread_cpu_wait();
}

void probe_cost_charge(struct probe_result *r, struct probe_mark *m)
{
    struct probe_mark now;
    probe_mark(&now);
    r->cpu_seconds += now.cpu - m->cpu;
    r->wall_seconds += now.t - m->t;
    r->cpu_wait_seconds += now.cpu_wait - m->cpu_wait;     /* NAN stays NAN */
    *m = now;
}
