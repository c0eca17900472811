/* SPDX-License-Identifier: ISC */
/* The counters timer's sampling round in a thread: the rails copied in, the samples
 * handed back, nothing shared with the loop meanwhile. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "background.h"
#include "counters_job.h"
#include "source_counters.h"
#include "strutil.h"
#include "sysfs.h"

struct counters_job {
    pthread_t thread;
    const char *sysroot;
    bool live;
    struct rail *rails;                 /* copies of the inventory's */
    struct counters_round round;
    int notify_fd;
};

void counters_round_done(struct counters_round *r)
{
    for (size_t i = 0; i < r->n; i++)
        counter_sample_done(&r->v[i].sample);
    free(r->v);
    r->v = NULL;
    r->n = 0;
}

static void *job_main(void *arg)
{
    struct counters_job *job = arg;
    background_thread_enter();
    for (size_t i = 0; i < job->round.n; i++) {
        const struct rail *r = &job->rails[i];
        struct rail_sample *s = &job->round.v[i];
        strscpy(s->rail, r->name, sizeof(s->rail));
        s->has_carrier = r->netdev.name[0] &&
            sysfs_read_u64(job->sysroot, &s->carrier_changes, "class/net/%s/carrier_changes",
                           r->netdev.name) == 0;
        source_counters_sample(job->sysroot, job->live, r, &s->sample);
    }
    if (job->notify_fd >= 0) {
        char done = 1;
        while (write(job->notify_fd, &done, 1) < 0 && errno == EINTR)
            ;
    }
    return NULL;
}

static void job_free(struct counters_job *job)
{
    counters_round_done(&job->round);
    free(job->rails);
    free(job);
}

int counters_job_start(const char *sysroot, bool live, const struct inventory *inv,
                       int notify_fd, struct counters_job **ret)
{
    struct counters_job *job = calloc(1, sizeof(*job));
    size_t n = inv->n_rails;
    if (!job)
        return -ENOMEM;
    *job = (struct counters_job){ .sysroot = sysroot, .live = live, .notify_fd = notify_fd };
    if (n && (!(job->rails = malloc(n * sizeof(*job->rails))) ||
              !(job->round.v = calloc(n, sizeof(*job->round.v))))) {
        job_free(job);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        /* What the sampling reads, without the pointers into the caller's inventory. */
        job->rails[i] = inv->rails[i];
        job->rails[i].gids = NULL;
        job->rails[i].n_gids = 0;
        memset(&job->rails[i].counters, 0, sizeof(job->rails[i].counters));
        memset(&job->rails[i].routes, 0, sizeof(job->rails[i].routes));
    }
    job->round.n = n;
    int r = pthread_create(&job->thread, NULL, job_main, job);
    if (r != 0) {
        job->round.n = 0;       /* nothing sampled: no sample to free */
        job_free(job);
        return -r;
    }
    *ret = job;
    return 0;
}

void counters_job_join(struct counters_job *job, struct counters_round *ret)
{
    pthread_join(job->thread, NULL);
    *ret = job->round;
    job->round = (struct counters_round){ 0 };
    job_free(job);
}
