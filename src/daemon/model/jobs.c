/* SPDX-License-Identifier: ISC */
/* The jobs model (jobs.h): its tables, what carries over between scans, and the placing
 * of a rank on this node's GPUs and rails. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "jobs.h"
#include "macro.h"
#include "nccl_gid.h"
#include "strutil.h"

bool job_env_kept(const char *name)
{
    return strncmp(name, "NCCL_", 5) == 0 || streq(name, "CUDA_VISIBLE_DEVICES") ||
           streq(name, "SLURM_JOB_ID") || streq(name, "SLURM_STEP_ID");
}

const char *job_proc_env(const struct job_proc *p, const char *name)
{
    size_t n = strlen(name);
    for (size_t off = 0; p->env && off < p->env_len; off += strlen(p->env + off) + 1)
        if (strncmp(p->env + off, name, n) == 0 && p->env[off + n] == '=')
            return p->env + off + n + 1;
    return NULL;
}

int job_proc_env_add(struct job_proc *p, const char *name, const char *value)
{
    size_t need = strlen(name) + strlen(value) + 2;
    if (p->env_len + need > JOB_ENV_BYTES) {
        p->env_cut = true;
        return 0;
    }
    char *e = realloc(p->env, p->env_len + need);
    if (!e)
        return -ENOMEM;
    p->env = e;
    snprintf(e + p->env_len, need, "%s=%s", name, value);
    p->env_len += need;
    p->n_env++;
    return 0;
}

void job_proc_done(struct job_proc *p)
{
    free(p->env);
    p->env = NULL;
    p->env_len = p->n_env = 0;
}

struct job *jobs_find(struct jobs *js, enum job_kind kind, const char *id)
{
    for (size_t i = 0; i < js->n; i++)
        if (js->jobs[i].kind == kind && streq(js->jobs[i].id, id))
            return &js->jobs[i];
    return NULL;
}

static int job_new(struct jobs *js, enum job_kind kind, const char *id, struct job **ret)
{
    int r = GROW_ARRAY(js->jobs, js->cap, js->n + 1, JOBS_MAX);
    if (r < 0)
        return r;
    struct job *j = &js->jobs[js->n++];
    memset(j, 0, sizeof(*j));
    j->kind = kind;
    strscpy(j->id, id, sizeof(j->id));
    *ret = j;
    return 0;
}

int jobs_add_proc(struct jobs *js, enum job_kind kind, const char *id, struct job_proc *proc)
{
    struct job *j = jobs_find(js, kind, id);
    if (js->n_procs >= JOBS_MAX_PROCS)
        return -EFBIG;
    if (!j) {
        int r = job_new(js, kind, id, &j);
        if (r < 0)
            return r;
        strscpy(j->comm, proc->comm, sizeof(j->comm));
    }
    int r = GROW_ARRAY(j->procs, j->cap_procs, j->n_procs + 1, JOBS_MAX_PROCS);
    if (r < 0)
        return r;
    j->procs[j->n_procs++] = *proc;
    proc->env = NULL;
    js->n_procs++;
    return 0;
}

static void job_done(struct job *j)
{
    for (size_t i = 0; i < j->n_procs; i++)
        job_proc_done(&j->procs[i]);
    free(j->procs);
    free(j->start_gids);
    ras_tracker_done(&j->ras);
}

void jobs_carry(struct jobs *now, struct jobs *before, usec_t now_time)
{
    for (size_t i = 0; i < now->n; i++) {
        struct job *j = &now->jobs[i];
        struct job *old = before ? jobs_find(before, j->kind, j->id) : NULL;
        if (!old) {
            j->first_seen = now_time;
            continue;
        }
        j->first_seen = old->first_seen;
        j->ras = old->ras;
        j->start_gids = old->start_gids;
        j->n_start_gids = old->n_start_gids;
        j->gids_recorded = old->gids_recorded;
        memset(&old->ras, 0, sizeof(old->ras));
        old->start_gids = NULL;
        old->n_start_gids = 0;
    }
}

void jobs_done(struct jobs *js)
{
    for (size_t i = 0; i < js->n; i++)
        job_done(&js->jobs[i]);
    free(js->jobs);
    memset(js, 0, sizeof(*js));
}

static void *dup_array(const void *from, size_t n, size_t size, int *err)
{
    if (!from || !n)
        return NULL;
    void *to = malloc(n * size);
    if (!to)
        *err = -ENOMEM;
    else
        memcpy(to, from, n * size);
    return to;
}

int jobs_copy(const struct jobs *from, struct jobs *to)
{
    int err = 0;
    *to = *from;
    to->jobs = dup_array(from->jobs, from->n, sizeof(*from->jobs), &err);
    to->cap = to->jobs ? from->n : 0;
    to->n = to->jobs ? from->n : 0;
    for (size_t i = 0; i < to->n; i++) {
        struct job *j = &to->jobs[i];
        const struct job *f = &from->jobs[i];
        j->procs = dup_array(f->procs, f->n_procs, sizeof(*f->procs), &err);
        j->n_procs = j->cap_procs = j->procs ? f->n_procs : 0;
        for (size_t k = 0; k < j->n_procs; k++) {
            j->procs[k].env = dup_array(f->procs[k].env, f->procs[k].env_len, 1, &err);
            if (!j->procs[k].env)
                j->procs[k].env_len = j->procs[k].n_env = 0;
        }
        j->start_gids = dup_array(f->start_gids, f->n_start_gids, sizeof(*f->start_gids), &err);
        j->n_start_gids = j->start_gids ? f->n_start_gids : 0;
        j->ras.comms = dup_array(f->ras.comms, f->ras.n_comms, sizeof(*f->ras.comms), &err);
        j->ras.n_comms = j->ras.cap_comms = j->ras.comms ? f->ras.n_comms : 0;
        j->ras.ranks = dup_array(f->ras.ranks, f->ras.n_ranks, sizeof(*f->ras.ranks), &err);
        j->ras.n_ranks = j->ras.cap_ranks = j->ras.ranks ? f->ras.n_ranks : 0;
    }
    if (err < 0 || (from->n && !to->jobs)) {
        jobs_done(to);
        return -ENOMEM;
    }
    return 0;
}

static bool tracker_differs(const struct ras_tracker *a, const struct ras_tracker *b)
{
    if ((a->replies == 0) != (b->replies == 0) || a->n_ranks != b->n_ranks)
        return true;
    for (size_t i = 0; i < b->n_ranks; i++) {
        const struct ras_track_rank *k = &b->ranks[i];
        const struct ras_track_rank *was = ras_tracker_find(a, k->comm, k->rank);
        if (!was || was->verdict != k->verdict)
            return true;
    }
    return false;
}

bool jobs_differ(const struct jobs *before, const struct jobs *now)
{
    if (before->n != now->n)
        return true;
    for (size_t i = 0; i < now->n; i++) {
        const struct job *j = &now->jobs[i];
        const struct job *was = NULL;
        for (size_t k = 0; k < before->n && !was; k++)
            if (before->jobs[k].kind == j->kind && streq(before->jobs[k].id, j->id))
                was = &before->jobs[k];
        if (!was || was->n_procs != j->n_procs || tracker_differs(&was->ras, &j->ras))
            return true;
    }
    return false;
}

void jobs_keep_gids(struct jobs *now, struct jobs *before)
{
    for (size_t i = 0; i < now->n; i++) {
        struct job *j = &now->jobs[i];
        struct job *old = jobs_find(before, j->kind, j->id);
        if (j->gids_recorded || !old || !old->gids_recorded)
            continue;
        free(j->start_gids);
        j->start_gids = old->start_gids;
        j->n_start_gids = old->n_start_gids;
        j->gids_recorded = true;
        old->start_gids = NULL;
        old->n_start_gids = 0;
    }
}

const char *job_name(const struct job *j, char *buf, size_t len)
{
    if (j->kind == JOB_SLURM)
        snprintf(buf, len, "Slurm job %s", j->id);
    else
        snprintf(buf, len, "session %s (%s)", j->id, j->comm);
    return buf;
}

const struct job_proc *job_proc_of(const struct job *j, int pid)
{
    for (size_t i = 0; i < j->n_procs; i++)
        if (j->procs[i].pid == pid)
            return &j->procs[i];
    return NULL;
}

bool jobs_addr_local(const struct jobs *js, const char *host)
{
    if (!js->addrs_known)
        return true;
    for (size_t i = 0; i < js->n_addrs; i++)
        if (streq(js->addrs[i], host))
            return true;
    return false;
}

bool job_rank_here(const struct jobs *js, const struct job *j, int pid, const char *host)
{
    return pid >= 0 && job_proc_of(j, pid) && jobs_addr_local(js, host);
}

/* The node's NVIDIA GPUs in PCI bus order (the addresses are fixed-width hex). */
static size_t nvidia_gpus(const struct inventory *inv, const struct gpu **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < inv->n_gpus && n < max; i++) {
        if (!streq(inv->gpus[i].vendor, "0x10de"))
            continue;
        size_t k = n++;
        while (k > 0 && strcmp(out[k - 1]->pci_addr, inv->gpus[i].pci_addr) > 0) {
            out[k] = out[k - 1];
            k--;
        }
        out[k] = &inv->gpus[i];
    }
    return n;
}

/* CUDA_VISIBLE_DEVICES's entry CUDA_DEV as a physical index, or -1 with WHY. */
static int visible_index(const char *visible, int cuda_dev, char *why, size_t len)
{
    const char *p = visible;
    for (int i = 0; i < cuda_dev && p; i++) {
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    char *end;
    long v = p ? strtol(p, &end, 10) : -1;
    if (!p || end == p || (*end && *end != ',') || v < 0) {
        snprintf(why, len, "CUDA_VISIBLE_DEVICES=%s does not name CUDA device %d by index",
                 visible, cuda_dev);
        return -1;
    }
    return (int)v;
}

const struct gpu *job_rank_gpu(const struct inventory *inv, const struct job *j, int pid,
                               int cuda_dev, int nvml_dev, char *how, size_t len)
{
    const struct gpu *gpus[INVENTORY_MAX_GPUS];
    size_t n = nvidia_gpus(inv, gpus, ARRAY_SIZE(gpus));
    const struct job_proc *p = job_proc_of(j, pid);
    const char *visible = p ? job_proc_env(p, "CUDA_VISIBLE_DEVICES") : NULL;
    int index = nvml_dev;
    if (index >= 0)
        snprintf(how, len, "NVML index %d, in PCI bus order", index);
    else if (cuda_dev >= 0 && visible && visible[0]) {
        index = visible_index(visible, cuda_dev, how, len);
        if (index >= 0)
            snprintf(how, len, "CUDA device %d, index %d of CUDA_VISIBLE_DEVICES=%s", cuda_dev,
                     index, visible);
    } else if (cuda_dev >= 0) {
        index = cuda_dev;
        snprintf(how, len, "CUDA device %d, in PCI bus order", cuda_dev);
    } else
        snprintf(how, len, "RAS names no GPU for it");
    if (index < 0)
        return NULL;
    if ((size_t)index >= n) {
        snprintf(how, len, "GPU index %d, but the node has %zu NVIDIA GPU%s", index, n,
                 PLURAL_S(n));
        return NULL;
    }
    return gpus[index];
}

bool job_ras_enabled(const struct job *j)
{
    for (size_t i = 0; i < j->n_procs; i++) {
        const char *v = job_proc_env(&j->procs[i], "NCCL_RAS_ENABLE");
        if (v && streq(v, "0"))
            return false;
    }
    return true;
}

static const char *proc_ras_addr(const struct job_proc *p)
{
    const char *v = job_proc_env(p, "NCCL_RAS_ADDR");
    return v && v[0] ? v : "localhost:28028";
}

const char *job_ras_addr(const struct job *j, size_t i)
{
    size_t n = 0;
    for (size_t k = 0; k < j->n_procs; k++) {
        const char *a = proc_ras_addr(&j->procs[k]);
        bool seen = false;
        for (size_t e = 0; e < k && !seen; e++)
            seen = streq(proc_ras_addr(&j->procs[e]), a);
        if (!seen && n++ == i)
            return a;
    }
    return NULL;
}

struct job *jobs_of_reply(struct jobs *js, const struct ras_status *s)
{
    struct job *best = NULL;
    size_t best_n = 0;
    for (size_t i = 0; i < js->n; i++) {
        size_t n = 0;
        for (size_t k = 0; k < js->jobs[i].n_procs; k++)
            n += ras_status_names_pid(s, js->jobs[i].procs[k].pid);
        if (n > best_n) {
            best = &js->jobs[i];
            best_n = n;
        }
    }
    return best;
}

void job_gid_settings(const struct job *j, struct nccl_gid_settings *ret)
{
    static const char *const names[] = { "NCCL_IB_GID_INDEX", "NCCL_IB_ADDR_FAMILY",
                                         "NCCL_IB_ROCE_VERSION_NUM", "NCCL_IB_ADDR_RANGE" };
    char why[128];
    nccl_gid_settings_default(ret);
    for (size_t i = 0; i < j->n_procs; i++) {
        if (!j->procs[i].env_read)
            continue;
        for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
            const char *v = job_proc_env(&j->procs[i], names[k]);
            if (v)
                (void)nccl_gid_settings_apply(ret, names[k], v, why, sizeof(why));
        }
        return;
    }
}

static const char *job_env(const struct job *j, const char *name)
{
    for (size_t i = 0; i < j->n_procs; i++)
        if (j->procs[i].env_read)
            return job_proc_env(&j->procs[i], name);
    return NULL;
}

bool job_uses_rail(const struct job *j, const struct rail *r)
{
    struct nccl_list hca;
    nccl_list_parse(job_env(j, "NCCL_IB_HCA"), true, &hca);
    return nccl_list_selects(&hca, r->device, r->port);
}

int job_gid_index(const struct job *j, const struct rail *r)
{
    struct nccl_gid_settings g;
    job_gid_settings(j, &g);
    if (g.index >= 0)
        return g.index;
    return nccl_replay_gid_index(r, g.family, g.version, g.range.set ? &g.range : NULL);
}

int job_record_gids(struct job *j, const struct inventory *inv)
{
    if (j->gids_recorded)
        return 0;
    free(j->start_gids);
    j->start_gids = calloc(inv->n_rails ? inv->n_rails : 1, sizeof(*j->start_gids));
    j->n_start_gids = 0;
    if (!j->start_gids)
        return -ENOMEM;
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        int idx = rail_is_roce(r) && r->has_gid_table && job_uses_rail(j, r) ? job_gid_index(j, r) : -1;
        if (idx < 0 || (uint32_t)idx >= r->n_gids)
            continue;
        struct job_rail_gid *g = &j->start_gids[j->n_start_gids++];
        strscpy(g->rail, r->name, sizeof(g->rail));
        g->index = idx;
        memcpy(g->raw, r->gids[idx].raw, sizeof(g->raw));
        g->type = r->gids[idx].type;
    }
    j->gids_recorded = true;
    return 0;
}
