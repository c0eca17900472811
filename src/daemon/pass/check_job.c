/* SPDX-License-Identifier: ISC */
/* The check pipeline off the event loop: one thread per pass, joined by the loop when its
 * notification byte arrives. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "background.h"
#include "baseline_store.h"
#include "check_job.h"
#include "log.h"
#include "reply_cache.h"
#include "strutil.h"

struct check_job {
    pthread_t thread;
    struct pipeline_input in;           /* pointing at the copies below */
    struct policy *policy;              /* in->policy, when a reload handed it over */
    char policy_source[512];
    struct probe_run probes;
    struct baselines baselines;
    struct jobs jobs;
    struct gid_move *gid_moves;
    struct report *report;
    struct reply_cache *replies;
    int err;
    struct check_writes writes;
    int notify_fd;
};

/* FABTUNE_TEST_SLOW_CHECK_MS: each pass in the worker first sleeps this long. For tests
 * only: it stands for a DCB netlink timeout, to show that a slow pass delays no reply. */
static void test_slow_check(void)
{
    const char *v = getenv("FABTUNE_TEST_SLOW_CHECK_MS");
    char *end;
    if (!v || !*v)
        return;
    errno = 0;
    unsigned long ms = strtoul(v, &end, 10);
    if (errno || *end || ms == 0 || ms > 60000)
        return;
    struct timespec ts = { .tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static void pass_and_writes(const struct pipeline_input *in, struct report *r,
                            struct reply_cache *replies, int *err, struct check_writes *w)
{
    *err = pipeline_run(in, r);
    if (*err == 0) {
        /* What the loop serves of this report and takes long to render, rendered here,
         * off the loop (the metrics once, for the reply and the textfile both). */
        reply_cache_fill(replies, r);
        outputs_write(&w->outputs, r, reply_cache_text(replies, CACHED_METRICS));
    }
    if (w->save_baselines && in->baselines)
        w->baselines_result = baselines_save(in->state_dir, in->baselines);
}

static void *job_main(void *arg)
{
    struct check_job *job = arg;
    background_thread_enter();
    test_slow_check();
    pass_and_writes(&job->in, job->report, job->replies, &job->err, &job->writes);
    if (job->notify_fd >= 0) {
        char done = 1;
        while (write(job->notify_fd, &done, 1) < 0 && errno == EINTR)
            ;
    }
    return NULL;
}

static int copy_baselines(const struct baselines *from, struct baselines *to)
{
    memset(to, 0, sizeof(*to));
    if (!from || !from->n)
        return 0;
    to->e = malloc(from->n * sizeof(*to->e));
    if (!to->e)
        return -ENOMEM;
    memcpy(to->e, from->e, from->n * sizeof(*to->e));
    to->n = to->cap = from->n;
    return 0;
}

static void job_free(struct check_job *job)
{
    probes_done(&job->probes);
    baselines_done(&job->baselines);
    jobs_done(&job->jobs);
    free(job->gid_moves);
    policy_free(job->policy);
    free(job);
}

int check_job_start(const struct pipeline_input *in, const struct check_writes *writes,
                    int notify_fd, struct check_job **ret)
{
    struct check_job *job = calloc(1, sizeof(*job));
    if (!job)
        return -ENOMEM;
    job->in = *in;
    job->writes = *writes;
    job->notify_fd = notify_fd;
    strscpy(job->policy_source, in->policy_source ? in->policy_source : "", sizeof(job->policy_source));
    job->in.policy_source = job->policy_source;
    if ((in->probes && probes_copy(in->probes, &job->probes) < 0) ||
        copy_baselines(in->baselines, &job->baselines) < 0 ||
        (in->jobs && jobs_copy(in->jobs, &job->jobs) < 0) ||
        (in->n_gid_moves && !(job->gid_moves = malloc(in->n_gid_moves * sizeof(*job->gid_moves)))) ||
        !(job->report = calloc(1, sizeof(*job->report)))) {
        job_free(job);
        return -ENOMEM;
    }
    job->replies = reply_cache_new();     /* NULL: the loop renders each reply */
    job->in.probes = in->probes ? &job->probes : NULL;
    job->in.baselines = in->baselines ? &job->baselines : NULL;
    job->in.jobs = in->jobs ? &job->jobs : NULL;
    if (in->n_gid_moves)
        memcpy(job->gid_moves, in->gid_moves, in->n_gid_moves * sizeof(*job->gid_moves));
    job->in.gid_moves = job->gid_moves;
    int r = pthread_create(&job->thread, NULL, job_main, job);
    if (r != 0) {
        free(job->report);
        reply_cache_free(job->replies);
        job_free(job);
        return -r;
    }
    *ret = job;
    return 0;
}

static struct report *result(struct report *r, struct reply_cache *c, int err,
                             struct reply_cache **replies)
{
    if (err < 0) {
        report_done(r);
        free(r);
        reply_cache_free(c);
        c = NULL;
        r = NULL;
    }
    *replies = c;
    return r;
}

struct report *check_run_here(const struct pipeline_input *in, struct check_writes *writes,
                              int *err, struct reply_cache **replies)
{
    struct report *r = calloc(1, sizeof(*r));
    *replies = NULL;
    if (!r) {
        *err = -ENOMEM;
        return NULL;
    }
    struct reply_cache *c = reply_cache_new();
    pass_and_writes(in, r, c, err, writes);
    return result(r, c, *err, replies);
}

struct report *check_job_join(struct check_job *job, int *err, struct check_writes *writes,
                              struct reply_cache **replies)
{
    pthread_join(job->thread, NULL);
    struct report *r = job->report;
    struct reply_cache *c = job->replies;
    *err = job->err;
    *writes = job->writes;
    job_free(job);
    return result(r, c, *err, replies);
}

bool check_job_take_policy(struct check_job *job, struct policy *p)
{
    if (job->in.policy != p)
        return false;
    job->policy = p;
    return true;
}
