/* SPDX-License-Identifier: ISC */
/* The RAS STATUS model (ras_status.h): its tables and the lagging minority. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "macro.h"
#include "ras_status.h"
#include "strutil.h"

void ras_status_init(struct ras_status *s)
{
    memset(s, 0, sizeof(*s));
}

void ras_status_done(struct ras_status *s)
{
    for (size_t i = 0; i < s->n_comms; i++)
        free(s->comms[i].ranks);
    free(s->comms);
    memset(s, 0, sizeof(*s));
}

int ras_status_add_comm(struct ras_status *s, struct ras_comm **ret)
{
    int r = GROW_ARRAY(s->comms, s->cap_comms, s->n_comms + 1, RAS_MAX_COMMS);
    if (r < 0)
        return r;
    struct ras_comm *c = &s->comms[s->n_comms++];
    memset(c, 0, sizeof(*c));
    c->group = c->index = c->max_rank = -1;
    *ret = c;
    return 0;
}

int ras_status_text_comm(struct ras_status *s, int group, int index, struct ras_comm **ret)
{
    for (size_t i = 0; i < s->n_comms; i++)
        if (s->comms[i].group == group && s->comms[i].index == index) {
            *ret = &s->comms[i];
            return 0;
        }
    int r = ras_status_add_comm(s, ret);
    if (r == 0) {
        (*ret)->group = group;
        (*ret)->index = index;
    }
    return r;
}

int ras_comm_rank(struct ras_status *s, struct ras_comm *c, int rank, struct ras_rank **ret)
{
    /* RAS lists a communicator's ranks in order: one past the highest is new, no search. */
    for (size_t i = 0; rank <= c->max_rank && i < c->n_ranks; i++)
        if (c->ranks[i].rank == rank) {
            *ret = &c->ranks[i];
            return 0;
        }
    if (s->n_ranks >= RAS_MAX_RANKS)
        return -EFBIG;
    int r = GROW_ARRAY(c->ranks, c->cap_ranks, c->n_ranks + 1, RAS_MAX_RANKS);
    if (r < 0)
        return r;
    struct ras_rank *k = &c->ranks[c->n_ranks++];
    memset(k, 0, sizeof(*k));
    k->rank = rank;
    k->pid = k->cuda_dev = k->nvml_dev = -1;
    if (rank > c->max_rank)
        c->max_rank = rank;
    s->n_ranks++;
    *ret = k;
    return 0;
}

int ras_status_coll(struct ras_status *s, const char *name)
{
    for (size_t i = 0; i < s->n_coll; i++)
        if (streq(s->coll_names[i], name))
            return (int)i;
    if (s->n_coll >= RAS_COLL_TYPES)
        return -1;
    strscpy(s->coll_names[s->n_coll], name, RAS_COLL_NAME_MAX);
    return (int)s->n_coll++;
}

void ras_comm_group_count(struct ras_comm *c, int t, uint64_t value)
{
    if (t < 0 || t >= RAS_COLL_TYPES)
        return;
    if (!(c->top_known & (1u << t)) || value > c->top[t])
        c->top[t] = value;
    c->top_known |= 1u << t;
}

void ras_rank_set_count(struct ras_comm *c, struct ras_rank *r, int t, uint64_t value)
{
    if (t < 0 || t >= RAS_COLL_TYPES)
        return;
    r->counts[t] = value;
    r->counts_known |= 1u << t;
    ras_comm_group_count(c, t, value);
}

void ras_status_add_process(struct ras_process *list, size_t *n, int pid, const char *host,
                            const char *gpus)
{
    for (size_t i = 0; i < *n; i++)
        if (list[i].pid == pid && streq(list[i].host, host))
            return;
    if (*n >= RAS_MAX_PROCS)
        return;
    struct ras_process *p = &list[(*n)++];
    p->pid = pid;
    strscpy(p->host, host, sizeof(p->host));
    strscpy(p->gpus, gpus, sizeof(p->gpus));
}

void ras_comm_set_hash(struct ras_comm *c, const char *text)
{
    if (strncasecmp(text, "0x", 2) == 0)
        text += 2;
    size_t i = 0;
    for (; text[i] && isxdigit((unsigned char)text[i]) && i + 1 < sizeof(c->hash); i++)
        c->hash[i] = (char)tolower((unsigned char)text[i]);
    c->hash[i] = '\0';
}

static bool pid_dead(const struct ras_status *s, const struct ras_rank *r)
{
    for (size_t i = 0; i < s->n_dead; i++)
        if (r->pid >= 0 && s->dead[i].pid == r->pid && streq(s->dead[i].host, r->host))
            return true;
    return false;
}

/* An error of the rank's own: not one it reports because another rank failed. */
static bool own_error(const struct ras_rank *r)
{
    int e[2] = { r->init_state, r->async_error };
    for (size_t i = 0; i < 2; i++)
        if (e[i] != 0 && e[i] != RAS_NCCL_IN_PROGRESS && e[i] != RAS_NCCL_REMOTE_ERROR)
            return true;
    return r->error[0] && !strstr(r->error, "Remote process error");
}

static uint64_t behind_by(const struct ras_comm *c, const struct ras_rank *r)
{
    uint64_t most = 0;
    for (int t = 0; t < RAS_COLL_TYPES; t++)
        if ((r->counts_known & c->top_known & (1u << t)) && c->top[t] - r->counts[t] > most)
            most = c->top[t] - r->counts[t];
    return most;
}

static void derive_comm(const struct ras_status *s, struct ras_comm *c)
{
    c->n_behind = 0;
    for (size_t i = 0; i < c->n_ranks; i++) {
        struct ras_rank *r = &c->ranks[i];
        r->behind_by = r->missing ? 0 : behind_by(c, r);
        c->n_behind += r->behind_by > 0;
    }
    size_t size = c->size > 0 ? (size_t)c->size : c->n_ranks;
    c->minority = c->n_behind > 0 && 2 * c->n_behind <= size;
    for (size_t i = 0; i < c->n_ranks; i++) {
        struct ras_rank *r = &c->ranks[i];
        r->dead |= pid_dead(s, r);
        r->behind = c->minority && r->behind_by > 0;
        r->status = r->dead ? RAS_RANK_DEAD : r->missing ? RAS_RANK_INCOMPLETE
                  : own_error(r) ? RAS_RANK_ERROR : r->behind ? RAS_RANK_MISMATCH : RAS_RANK_OK;
        if (r->missing)
            c->errors |= RAS_COMM_INCOMPLETE;
        if (r->init_state || r->async_error || r->error[0])
            c->errors |= RAS_COMM_ERROR;
    }
    if (c->n_behind > 0)
        c->errors |= RAS_COMM_MISMATCH;
}

void ras_status_derive(struct ras_status *s)
{
    for (size_t i = 0; i < s->n_comms; i++)
        derive_comm(s, &s->comms[i]);
}

bool ras_status_names_pid(const struct ras_status *s, int pid)
{
    for (size_t i = 0; i < s->n_comms; i++)
        for (size_t k = 0; k < s->comms[i].n_ranks; k++)
            if (s->comms[i].ranks[k].pid == pid)
                return true;
    for (size_t i = 0; i < s->n_missing; i++)
        if (s->missing[i].pid == pid)
            return true;
    for (size_t i = 0; i < s->n_dead; i++)
        if (s->dead[i].pid == pid)
            return true;
    return false;
}

const char *ras_rank_status_name(enum ras_rank_status st)
{
    static const char *const names[] = {
        [RAS_RANK_OK] = "OK", [RAS_RANK_MISMATCH] = "MISMATCH", [RAS_RANK_ERROR] = "ERROR",
        [RAS_RANK_INCOMPLETE] = "INCOMPLETE", [RAS_RANK_DEAD] = "DEAD",
    };
    return (size_t)st < ARRAY_SIZE(names) ? names[st] : "?";
}

const char *ras_format_name(enum ras_format f)
{
    return f == RAS_FORMAT_JSON ? "json" : f == RAS_FORMAT_TEXT ? "text" : "none";
}
