/* SPDX-License-Identifier: ISC */
/* The RAS tracker's state machine (ras_tracker.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "macro.h"
#include "ras_tracker.h"
#include "strutil.h"

static struct ras_track_comm *find_comm(struct ras_tracker *t, const char *hash)
{
    for (size_t i = 0; i < t->n_comms; i++)
        if (streq(t->comms[i].hash, hash))
            return &t->comms[i];
    return NULL;
}

/* Keeps C's counts, and how many replies in a row found them as the one before did
 * (*FROZEN). */
static int fold_comm(struct ras_tracker *t, const struct ras_comm *c, unsigned *frozen)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < c->n_ranks; i++)
        for (int k = 0; k < RAS_COLL_TYPES; k++)
            if (c->ranks[i].counts_known & (1u << k))
                sum += c->ranks[i].counts[k];
    struct ras_track_comm *tc = find_comm(t, c->hash);
    bool same = tc && tc->sum == sum && tc->top_known == c->top_known &&
                memcmp(tc->top, c->top, sizeof(tc->top)) == 0;
    if (!tc) {
        int r = GROW_ARRAY(t->comms, t->cap_comms, t->n_comms + 1, RAS_TRACK_MAX_COMMS);
        if (r < 0)
            return r;
        tc = &t->comms[t->n_comms++];
        memset(tc, 0, sizeof(*tc));
        strscpy(tc->hash, c->hash, sizeof(tc->hash));
    }
    tc->frozen = same ? tc->frozen + 1 : 0;
    *frozen = tc->frozen;
    tc->sum = sum;
    tc->top_known = c->top_known;
    memcpy(tc->top, c->top, sizeof(tc->top));
    return 0;
}

static struct ras_track_rank *find_rank(struct ras_tracker *t, const char *comm, int rank)
{
    for (size_t i = 0; i < t->n_ranks; i++)
        if (t->ranks[i].rank == rank && streq(t->ranks[i].comm, comm))
            return &t->ranks[i];
    return NULL;
}

const struct ras_track_rank *ras_tracker_find(const struct ras_tracker *t, const char *comm,
                                              int rank)
{
    return find_rank((struct ras_tracker *)t, comm, rank);
}

static int add_rank(struct ras_tracker *t, const char *comm, int rank, usec_t now,
                    struct ras_track_rank **ret)
{
    int r = GROW_ARRAY(t->ranks, t->cap_ranks, t->n_ranks + 1, RAS_TRACK_MAX_RANKS);
    if (r < 0)
        return r;
    struct ras_track_rank *k = &t->ranks[t->n_ranks++];
    memset(k, 0, sizeof(*k));
    strscpy(k->comm, comm, sizeof(k->comm));
    k->rank = rank;
    k->since = k->changed = now;
    *ret = k;
    return 0;
}

static void set_verdict(struct ras_track_rank *k, enum ras_verdict v, usec_t now)
{
    if (k->verdict != v)
        k->changed = now;
    if (k->verdict == RAS_VERDICT_HEALTHY)
        k->since = now;
    k->verdict = v;
}

/* A reply that has the rank behind its communicator, whose counts are FROZEN. */
static void rank_behind(struct ras_track_rank *k, const struct ras_rank *r, unsigned frozen,
                        usec_t now)
{
    k->in_step = 0;
    k->behind_by = r->behind_by;
    if (k->verdict == RAS_VERDICT_HEALTHY || k->verdict == RAS_VERDICT_MISSING ||
        k->verdict == RAS_VERDICT_ERROR) {
        set_verdict(k, RAS_VERDICT_SUSPECT, now);
        k->behind_seen = 1;
        k->moved = false;
        return;
    }
    k->behind_seen++;
    k->moved |= frozen == 0;
    if (frozen >= RAS_TRACK_FROZEN)
        set_verdict(k, RAS_VERDICT_HUNG, now);
    else if (frozen == 0 && (k->verdict == RAS_VERDICT_HUNG ||
                             (k->behind_seen >= RAS_TRACK_CONFIRM && k->moved)))
        set_verdict(k, RAS_VERDICT_STRAGGLER, now);
}

static void copy_identity(struct ras_track_rank *k, const struct ras_rank *r)
{
    if (r->pid >= 0) {
        k->pid = r->pid;
        strscpy(k->host, r->host, sizeof(k->host));
    }
    if (r->nvml_dev >= 0 || r->cuda_dev >= 0) {
        k->cuda_dev = r->cuda_dev;
        k->nvml_dev = r->nvml_dev;
    }
}

/* One rank the reply names as not in step. */
static int fold_bad_rank(struct ras_tracker *t, const struct ras_comm *c, const struct ras_rank *r,
                         unsigned frozen, usec_t now)
{
    struct ras_track_rank *k = find_rank(t, c->hash, r->rank);
    if (!k) {
        int err = add_rank(t, c->hash, r->rank, now, &k);
        if (err < 0)
            return err;
    }
    copy_identity(k, r);
    strscpy(k->error, r->error, sizeof(k->error));
    k->in_step = 0;
    switch (r->status) {
    case RAS_RANK_DEAD:
        set_verdict(k, RAS_VERDICT_DEAD, now);
        break;
    case RAS_RANK_INCOMPLETE:
        if (k->verdict != RAS_VERDICT_DEAD)
            set_verdict(k, RAS_VERDICT_MISSING, now);
        break;
    case RAS_RANK_ERROR:
        if (k->verdict != RAS_VERDICT_DEAD)
            set_verdict(k, RAS_VERDICT_ERROR, now);
        break;
    default:
        rank_behind(k, r, frozen, now);
        break;
    }
    return 0;
}

static bool named_bad(const struct ras_status *s, const struct ras_track_rank *k)
{
    for (size_t i = 0; i < s->n_comms; i++) {
        const struct ras_comm *c = &s->comms[i];
        if (!streq(c->hash, k->comm))
            continue;
        for (size_t j = 0; j < c->n_ranks; j++)
            if (c->ranks[j].rank == k->rank)
                return c->ranks[j].status != RAS_RANK_OK;
    }
    return false;
}

/* The followed ranks this reply has in step: RAS_TRACK_CLEAR such replies in a row clear
 * one, unless it is dead. */
static void fold_in_step(struct ras_tracker *t, const struct ras_status *s)
{
    size_t w = 0;
    for (size_t i = 0; i < t->n_ranks; i++) {
        struct ras_track_rank *k = &t->ranks[i];
        if (!named_bad(s, k) && k->verdict != RAS_VERDICT_DEAD &&
            ++k->in_step >= RAS_TRACK_CLEAR)
            continue;
        t->ranks[w++] = *k;
    }
    t->n_ranks = w;
}

int ras_tracker_fold(struct ras_tracker *t, const struct ras_status *s, usec_t now)
{
    int err = 0;
    fold_in_step(t, s);
    for (size_t i = 0; i < s->n_comms; i++) {
        const struct ras_comm *c = &s->comms[i];
        unsigned frozen = 0;
        int r = fold_comm(t, c, &frozen);
        for (size_t j = 0; j < c->n_ranks && r == 0; j++)
            if (c->ranks[j].status != RAS_RANK_OK)
                r = fold_bad_rank(t, c, &c->ranks[j], frozen, now);
        err = err ? err : r;
    }
    t->replies++;
    t->failure_streak = 0;
    t->last_reply = now;
    t->format = s->format;
    t->json_refused = s->json_refused;
    t->timeouts = s->timeouts;
    strscpy(t->nccl_version, s->nccl_version, sizeof(t->nccl_version));
    return err;
}

void ras_tracker_fail(struct ras_tracker *t, int err, const char *why, usec_t now)
{
    t->failures++;
    t->failure_streak++;
    t->last_err = err;
    t->last_failure = now;
    strscpy(t->last_why, why ? why : "", sizeof(t->last_why));
}

void ras_tracker_done(struct ras_tracker *t)
{
    free(t->comms);
    free(t->ranks);
    memset(t, 0, sizeof(*t));
}

bool ras_verdict_bad(enum ras_verdict v)
{
    return v != RAS_VERDICT_HEALTHY && v != RAS_VERDICT_SUSPECT;
}

const char *ras_verdict_name(enum ras_verdict v)
{
    static const char *const names[] = {
        [RAS_VERDICT_HEALTHY] = "healthy", [RAS_VERDICT_SUSPECT] = "suspect",
        [RAS_VERDICT_STRAGGLER] = "straggler", [RAS_VERDICT_HUNG] = "hung",
        [RAS_VERDICT_MISSING] = "missing", [RAS_VERDICT_DEAD] = "dead",
        [RAS_VERDICT_ERROR] = "error",
    };
    return (size_t)v < ARRAY_SIZE(names) ? names[v] : "?";
}
