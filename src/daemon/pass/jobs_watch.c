/* SPDX-License-Identifier: ISC */
/* A round of the jobs watch (jobs_watch.h): procfs, then each job's RAS, in a thread. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "background.h"
#include "jobs_watch.h"
#include "log.h"
#include "macro.h"
#include "ras_client.h"
#include "source_nccl_jobs.h"
#include "strutil.h"

struct jobs_watch {
    pthread_t thread;
    struct jobs_watch_input in;
    char sysfs_root[512], procfs_root[512];
    struct jobs before, now;
    struct jobs_watch_stats stats;
    int notify_fd;
};

/* Whether ADDR was asked already this round: an address of a job before index UPTO
 * whose RAS runs. */
static bool queried_before(const struct jobs *js, size_t upto, const char *addr)
{
    for (size_t i = 0; i < upto; i++)
        for (size_t k = 0; job_ras_enabled(&js->jobs[i]) && job_ras_addr(&js->jobs[i], k); k++)
            if (streq(job_ras_addr(&js->jobs[i], k), addr))
                return true;
    return false;
}

/* Each distinct RAS address once; a reply goes to the job it names. */
static void query_all(const struct jobs_watch_input *in, struct jobs *js, struct jobs_watch_stats *st)
{
    bool *folded = js->n ? calloc(js->n, sizeof(*folded)) : NULL;
    char why[384] = "";
    int last_err = 0;
    if (js->n && !folded)
        return;
    for (size_t i = 0; i < js->n; i++) {
        struct job *j = &js->jobs[i];
        if (!job_ras_enabled(j) || !in->ras)
            continue;
        for (size_t k = 0; job_ras_addr(j, k); k++) {
            const char *addr = job_ras_addr(j, k);
            struct ras_result res;
            if (queried_before(js, i, addr) || folded[i])
                continue;
            int r = ras_query(addr, now_usec(CLOCK_MONOTONIC) + in->ras_timeout, &res);
            st->queries++;
            st->bytes += res.raw_len;
            struct job *owner = r == 0 ? jobs_of_reply(js, &res.status) : NULL;
            if (owner && !folded[owner - js->jobs]) {
                if (ras_tracker_fold(&owner->ras, &res.status, now_usec(CLOCK_BOOTTIME)) < 0)
                    log_warning("RAS reply of %s cut at fabtune's bounds", addr);
                folded[owner - js->jobs] = true;
                st->replies++;
            } else if (r == 0) {
                r = -ESRCH;
                snprintf(res.why, sizeof(res.why), "the RAS at %s answers for no process of "
                         "this job", addr);
            }
            if (r < 0) {
                last_err = r;
                strscpy(why, res.why, sizeof(why));
            }
            ras_result_done(&res);
        }
        if (!folded[i] && last_err < 0)
            ras_tracker_fail(&j->ras, last_err, why, now_usec(CLOCK_BOOTTIME));
        last_err = 0;
    }
    free(folded);
}

void jobs_watch_round(const struct jobs_watch_input *in, struct jobs *before, struct jobs *ret,
                      struct jobs_watch_stats *stats)
{
    memset(stats, 0, sizeof(*stats));
    stats->scan_err = source_nccl_jobs(in->sysfs_root, in->procfs_root, NULL, ret);
    jobs_carry(ret, before, now_usec(CLOCK_BOOTTIME));
    if (stats->scan_err == 0)
        query_all(in, ret, stats);
}

static void *watch_main(void *arg)
{
    struct jobs_watch *w = arg;
    background_thread_enter();
    jobs_watch_round(&w->in, &w->before, &w->now, &w->stats);
    if (w->notify_fd >= 0) {
        char done = 1;
        while (write(w->notify_fd, &done, 1) < 0 && errno == EINTR)
            ;
    }
    return NULL;
}

int jobs_watch_start(const struct jobs_watch_input *in, const struct jobs *before, int notify_fd,
                     struct jobs_watch **ret)
{
    struct jobs_watch *w = calloc(1, sizeof(*w));
    if (!w)
        return -ENOMEM;
    w->in = *in;
    strscpy(w->sysfs_root, in->sysfs_root, sizeof(w->sysfs_root));
    strscpy(w->procfs_root, in->procfs_root, sizeof(w->procfs_root));
    w->in.sysfs_root = w->sysfs_root;
    w->in.procfs_root = w->procfs_root;
    w->notify_fd = notify_fd;
    if (jobs_copy(before, &w->before) < 0) {
        free(w);
        return -ENOMEM;
    }
    int r = pthread_create(&w->thread, NULL, watch_main, w);
    if (r != 0) {
        jobs_done(&w->before);
        free(w);
        return -r;
    }
    *ret = w;
    return 0;
}

void jobs_watch_join(struct jobs_watch *w, struct jobs *ret, struct jobs_watch_stats *stats)
{
    pthread_join(w->thread, NULL);
    *ret = w->now;
    *stats = w->stats;
    jobs_done(&w->before);
    free(w);
}
