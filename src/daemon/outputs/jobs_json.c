/* SPDX-License-Identifier: ISC */
/* The jobs of a report as JSON, and a rank's place (jobs_json.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "jobs_json.h"
#include "macro.h"
#include "strutil.h"
#include "topology.h"

const char *rank_cause_name(enum rank_cause c)
{
    return c == RANK_CAUSE_RAIL ? "rail" : c == RANK_CAUSE_ELSEWHERE ? "elsewhere" : "unknown";
}

/* The job.ras finding of rank K: its message says what the rail showed. */
static enum rank_cause cause_of(const struct report *r, const struct job *j,
                                const struct ras_track_rank *k)
{
    char subject[64];
    snprintf(subject, sizeof(subject), "job %s rank %d", j->id, k->rank);
    for (size_t i = 0; i < r->findings.n; i++) {
        const struct finding *f = &r->findings.items[i];
        if (!streq(f->check, "job.ras") || !f->subject || !streq(f->subject, subject))
            continue;
        if (strstr(f->message, JOB_RAS_RAIL_SHOWED))
            return RANK_CAUSE_RAIL;
        if (strstr(f->message, JOB_RAS_RAIL_CLEAN))
            return RANK_CAUSE_ELSEWHERE;
    }
    return RANK_CAUSE_UNKNOWN;
}

void job_rank_place(const struct report *r, const struct job *j, const struct ras_track_rank *k,
                    struct rank_place *ret)
{
    const char *dist = NULL;
    memset(ret, 0, sizeof(*ret));
    ret->gpu = job_rank_gpu(&r->inventory, j, k->pid, k->cuda_dev, k->nvml_dev, ret->how,
                            sizeof(ret->how));
    ret->gpu_index = k->nvml_dev >= 0 ? k->nvml_dev : k->cuda_dev;
    const struct rail *rl = ret->gpu ? topology_nearest_rail(&r->inventory, ret->gpu, &dist) : NULL;
    if (rl)
        strscpy(ret->rail, rl->name, sizeof(ret->rail));
    ret->cause = cause_of(r, j, k);
}

static void add_string(json_object *o, const char *key, const char *value)
{
    json_object_object_add(o, key, value && value[0] ? json_object_new_string(value) : NULL);
}

static json_object *rank_to_json(const struct report *r, const struct job *j,
                                 const struct ras_track_rank *k)
{
    struct rank_place pl;
    json_object *o = json_object_new_object();
    job_rank_place(r, j, k, &pl);
    json_object_object_add(o, "rank", json_object_new_int(k->rank));
    add_string(o, "communicator", k->comm);
    json_object_object_add(o, "pid", json_object_new_int(k->pid));
    add_string(o, "host", k->host);
    json_object_object_add(o, "gpu", pl.gpu && pl.gpu_index >= 0 ? json_object_new_int(pl.gpu_index) : NULL);
    add_string(o, "gpu_pci_address", pl.gpu ? pl.gpu->pci_addr : NULL);
    add_string(o, "gpu_not_placed", pl.gpu ? NULL : pl.how);
    add_string(o, "rail", pl.rail);
    add_string(o, "state", ras_verdict_name(k->verdict));
    json_object_object_add(o, "behind_by", json_object_new_uint64(k->behind_by));
    add_string(o, "error", k->error);
    add_string(o, "cause", rank_cause_name(pl.cause));
    return o;
}

static json_object *ras_to_json(const struct job *j)
{
    const struct ras_tracker *t = &j->ras;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "enabled", json_object_new_boolean(job_ras_enabled(j)));
    add_string(o, "address", job_ras_addr(j, 0));
    json_object_object_add(o, "replies", json_object_new_int64(t->replies));
    json_object_object_add(o, "failures", json_object_new_int64(t->failures));
    add_string(o, "last_error", t->failure_streak ? t->last_why : NULL);
    add_string(o, "nccl_version", t->nccl_version);
    add_string(o, "format", t->replies ? ras_format_name(t->format) : NULL);
    return o;
}

static json_object *job_to_json(const struct report *r, const struct job *j)
{
    json_object *o = json_object_new_object(), *ranks = json_object_new_array();
    char name[96];
    size_t elsewhere = 0;
    add_string(o, "id", j->id);
    add_string(o, "kind", j->kind == JOB_SLURM ? "slurm" : "session");
    add_string(o, "name", job_name(j, name, sizeof(name)));
    json_object_object_add(o, "processes", json_object_new_int64((int64_t)j->n_procs));
    json_object_object_add(o, "ras", ras_to_json(j));
    for (size_t i = 0; i < j->ras.n_ranks; i++) {
        const struct ras_track_rank *k = &j->ras.ranks[i];
        if (job_rank_here(&r->jobs, j, k->pid, k->host))
            json_object_array_add(ranks, rank_to_json(r, j, k));
        else
            elsewhere += ras_verdict_bad(k->verdict);
    }
    json_object_object_add(o, "ranks", ranks);
    json_object_object_add(o, "ranks_failing_elsewhere", json_object_new_int64((int64_t)elsewhere));
    return o;
}

json_object *jobs_to_json(const struct report *r)
{
    if (!r->jobs_watched)
        return NULL;
    json_object *a = json_object_new_array();
    for (size_t i = 0; i < r->jobs.n; i++)
        json_object_array_add(a, job_to_json(r, &r->jobs.jobs[i]));
    return a;
}
