/* Helpers every probe shares: failures, clocks. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "probe.h"

void probe_fail(struct probe_result *r, int err, const char *fmt, ...)
{
    va_list ap;
    r->ran = true;
    r->error = err < 0 ? err : -err;
    va_start(ap, fmt);
    vsnprintf(r->error_text, sizeof(r->error_text), fmt, ap);
    va_end(ap);
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
