/* SPDX-License-Identifier: ISC */
/* ras_watch: fabtune's RAS client and tracker on a live NCCL job, with nothing but libc
 * (it builds with -static from the daemon's ras_*.c: tests/ras-static.sh). Each interval
 * it queries every address given (JSON; text for one written text:ADDR), keeps each raw
 * reply, folds it
 * into that address's tracker and prints a timeline line per rank; at the end, the cost:
 * replies and bytes per minute, and the query times.
 *   ras_watch [-i MS] [-d SECONDS] [-o DIR] [-p PHASEFILE] [text:]ADDR...
 * -o DIR keeps reply N of address A as DIR/NNNN-A.reply; -p names a file whose first line
 * is the job's phase (capture.py's OUTDIR/phase), printed on each line; "stop" ends it. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "ras_client.h"
#include "ras_tracker.h"
#include "strutil.h"

#define WATCH_MAX_ADDRS 8

/* SIGTERM or SIGINT: stop after the query under way, and report. */
static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
    (void)sig;
    stopping = 1;
}

struct watched {
    const char *addr;
    struct ras_tracker tracker;
    unsigned queries, answered, failed;
    unsigned long long bytes;
    usec_t time_sum, time_max;
};

static void phase_of(const char *file, char *buf, size_t len)
{
    FILE *f = file ? fopen(file, "re") : NULL;
    snprintf(buf, len, "-");
    if (!f)
        return;
    if (fgets(buf, (int)len, f))
        buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

static void save_reply(const char *dir, unsigned n, const char *addr, const struct ras_result *r)
{
    char path[512], name[96];
    if (!dir)
        return;
    strscpy(name, addr, sizeof(name));
    for (char *c = name; *c; c++)
        if (*c == ':' || *c == '[' || *c == ']')
            *c = '_';
    snprintf(path, sizeof(path), "%s/%04u-%s.reply", dir, n, name);
    FILE *f = fopen(path, "we");
    if (!f)
        return;
    if (r->raw_len)
        fwrite(r->raw, 1, r->raw_len, f);
    fclose(f);
}

/* One line per rank the reply names: its status in the reply, its tracker verdict. */
static void print_ranks(double t, const char *phase, const struct watched *w,
                        const struct ras_result *r)
{
    const struct ras_status *s = &r->status;
    bool any = false;
    for (size_t i = 0; i < s->n_comms; i++)
        for (size_t k = 0; k < s->comms[i].n_ranks; k++) {
            const struct ras_comm *c = &s->comms[i];
            const struct ras_rank *rk = &c->ranks[k];
            const struct ras_track_rank *tr = ras_tracker_find(&w->tracker, c->hash, rk->rank);
            printf("%7.1f %-6s %-16s %s comm %.8s rank %d pid %d gpu nvml %d cuda %d: %s%s%s, "
                   "behind %llu -> %s\n", t, phase, w->addr, ras_format_name(s->format), c->hash,
                   rk->rank, rk->pid, rk->nvml_dev, rk->cuda_dev, ras_rank_status_name(rk->status),
                   rk->error[0] ? " " : "", rk->error, (unsigned long long)rk->behind_by,
                   ras_verdict_name(tr ? tr->verdict : RAS_VERDICT_HEALTHY));
            any = true;
        }
    /* The text names no rank of a communicator in step: the tracker's own then. */
    for (size_t i = 0; !any && i < w->tracker.n_ranks; i++) {
        const struct ras_track_rank *tr = &w->tracker.ranks[i];
        printf("%7.1f %-6s %-16s %s comm %.8s rank %d pid %d gpu nvml %d: in step -> %s\n", t,
               phase, w->addr, ras_format_name(s->format), tr->comm, tr->rank, tr->pid,
               tr->nvml_dev, ras_verdict_name(tr->verdict));
        any = true;
    }
    if (!any)
        printf("%7.1f %-6s %-16s %s every communicator in step (NCCL %s)\n", t, phase, w->addr,
               ras_format_name(s->format), s->nccl_version);
}

static void query_one(struct watched *w, bool text, usec_t interval, usec_t t0, const char *phase_file,
                      const char *dir)
{
    struct ras_query_opts o = { .text = text };
    struct ras_result r;
    char phase[32];
    usec_t start = now_usec(CLOCK_MONOTONIC);
    usec_t deadline = start + (interval > 15 * USEC_PER_SEC ? 15 * USEC_PER_SEC : interval);
    int err = ras_query_with(w->addr, deadline, &o, &r);
    usec_t took = now_usec(CLOCK_MONOTONIC) - start;
    double t = (double)(start - t0) / 1e6;
    phase_of(phase_file, phase, sizeof(phase));
    save_reply(dir, w->queries, w->addr, &r);
    w->queries++;
    w->bytes += r.raw_len;
    w->time_sum += took;
    w->time_max = took > w->time_max ? took : w->time_max;
    if (err == 0) {
        w->answered++;
        (void)ras_tracker_fold(&w->tracker, &r.status, start);
        print_ranks(t, phase, w, &r);
    } else {
        w->failed++;
        ras_tracker_fail(&w->tracker, err, r.why, start);
        printf("%7.1f %-6s %-16s no whole reply (%zu bytes, %.1f ms): %s\n", t, phase, w->addr,
               r.raw_len, (double)took / 1e3, r.why);
    }
    if (r.status.note[0])
        printf("%7.1f %-6s %-16s note: %s\n", t, phase, w->addr, r.status.note);
    fflush(stdout);
    ras_result_done(&r);
}

static void report(const struct watched *w, size_t n, double minutes, usec_t interval)
{
    printf("\n# cost at an interval of %.1f s, over %.2f min\n", (double)interval / 1e6, minutes);
    for (size_t i = 0; i < n; i++)
        printf("# %s: %u queries (%u answered, %u failed), %.1f queries/min, %.1f replies/min, "
               "%.0f bytes/min, %.0f bytes/query, query time mean %.2f ms max %.2f ms\n", w[i].addr,
               w[i].queries, w[i].answered, w[i].failed, w[i].queries / minutes,
               w[i].answered / minutes,
               (double)w[i].bytes / minutes, w[i].queries ? (double)w[i].bytes / w[i].queries : 0,
               w[i].queries ? (double)w[i].time_sum / w[i].queries / 1e3 : 0,
               (double)w[i].time_max / 1e3);
}

int main(int argc, char **argv)
{
    struct watched w[WATCH_MAX_ADDRS];
    usec_t interval = 10 * USEC_PER_SEC, duration = 60 * USEC_PER_SEC;
    const char *dir = NULL, *phase_file = NULL;
    bool text[WATCH_MAX_ADDRS] = { false };
    size_t n = 0;
    int c;
    while ((c = getopt(argc, argv, "i:d:o:p:")) != -1) {
        if (c == 'i')
            interval = strtoull(optarg, NULL, 10) * USEC_PER_MSEC;
        else if (c == 'd')
            duration = strtoull(optarg, NULL, 10) * USEC_PER_SEC;
        else if (c == 'o')
            dir = optarg;
        else if (c == 'p')
            phase_file = optarg;
        else
            return 2;
    }
    for (int i = optind; i < argc && n < WATCH_MAX_ADDRS; i++, n++) {
        memset(&w[n], 0, sizeof(w[n]));
        text[n] = strncmp(argv[i], "text:", 5) == 0;
        w[n].addr = argv[i] + (text[n] ? 5 : 0);
    }
    if (n == 0 || interval == 0) {
        fprintf(stderr, "usage: ras_watch [-i MS] [-d SECONDS] [-o DIR] [-p PHASEFILE] [text:]ADDR...\n");
        return 2;
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    usec_t t0 = now_usec(CLOCK_MONOTONIC);
    for (usec_t next = t0; next < t0 + duration && !stopping; next += interval) {
        usec_t now = now_usec(CLOCK_MONOTONIC);
        char phase[32];
        if (next > now)
            usleep((useconds_t)(next - now));
        phase_of(phase_file, phase, sizeof(phase));
        if (streq(phase, "stop") || stopping)
            break;      /* capture.py's job is over, or told to stop */
        for (size_t i = 0; i < n; i++)
            query_one(&w[i], text[i], interval, t0, phase_file, dir);
    }
    report(w, n, (double)(now_usec(CLOCK_MONOTONIC) - t0) / 60e6, interval);
    for (size_t i = 0; i < n; i++)
        ras_tracker_done(&w[i].tracker);
    return 0;
}
