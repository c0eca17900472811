/* SPDX-License-Identifier: ISC */
/* The jobs on the node judged (model/jobs.h): job.ras, this node's ranks that lag, are
 * missing or died, each joined with what its rail showed in the same window (or that it
 * was clean); job.nccl_env, the job's own NCCL settings against this node; job.gid_drift,
 * a GID index that no longer holds the GID the job started with. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "macro.h"
#include "nccl_gid.h"
#include "strutil.h"
#include "topology.h"

/* A line built piece by piece, cut (never overrun) at its size. */
struct line {
    char buf[1024];
    size_t n;
};

__attribute__((format(printf, 2, 3)))
static void add(struct line *l, const char *fmt, ...)
{
    if (l->n >= sizeof(l->buf) - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(l->buf + l->n, sizeof(l->buf) - l->n, fmt, ap);
    va_end(ap);
    l->n = k < 0 ? l->n : l->n + (size_t)k >= sizeof(l->buf) ? sizeof(l->buf) - 1 : l->n + (size_t)k;
}

static void set_subject(struct findings *out, const struct job *j, int rank)
{
    char subject[64];
    if (rank >= 0)
        snprintf(subject, sizeof(subject), "job %s rank %d", j->id, rank);
    else
        snprintf(subject, sizeof(subject), "job %s", j->id);
    (void)findings_set_subject(out, subject);
}

/* ---- job.ras: the join ------------------------------------------------------------- */

/* The link events of RAIL within the window that began MARGIN before SINCE. */
static size_t join_links(const struct job_join *jn, const char *rail, usec_t since, struct line *l)
{
    const struct link_memory *m = jn->links;
    const struct rail_memory *rm = m ? link_memory_find_const(m, rail) : NULL;
    usec_t span = (m && m->now_boottime > since ? m->now_boottime - since : 0) + jn->margin;
    size_t n = 0;
    for (size_t i = 0; rm && i < rm->n_events; i++) {
        const struct link_event *ev = &rm->events[i];
        usec_t age;
        char what[160], at[16];
        if (ev->kind == LINK_EVENT_WARNING || !link_event_age(m, ev, &age) || age > span)
            continue;
        link_event_describe(ev, what, sizeof(what));
        add(l, "%s%s at %s", n++ ? ", " : "", what, utc_text(ev->wall, false, at, sizeof(at)));
    }
    return n;
}

/* The rail checks that fail now on RAIL (counters.<class>, probe.regression, link.ber...). */
static size_t join_findings(const struct job_join *jn, const char *rail, size_t before, struct line *l)
{
    size_t n = 0;
    for (size_t i = 0; jn->fabric && i < jn->fabric->n; i++) {
        const struct finding *f = &jn->fabric->items[i];
        if (!f->rail || !streq(f->rail, rail) || strncmp(f->check, "job.", 4) == 0 ||
            (f->severity != SEVERITY_WARNING && f->severity != SEVERITY_ERROR))
            continue;
        add(l, "%s%s (%s: %s)", before + n++ ? ", " : "", f->check,
            severity_to_string(f->severity), f->message);
    }
    return n;
}

static size_t join_gid_moves(const struct job_join *jn, const char *rail, usec_t since,
                             size_t before, struct line *l)
{
    size_t n = 0;
    for (size_t i = 0; i < jn->n_gid_moves; i++) {
        const struct gid_move *g = &jn->gid_moves[i];
        if (streq(g->rail, rail) && g->at + jn->margin >= since)
            add(l, "%sits GID moved from index %d to %d", before + n++ ? ", " : "", g->from, g->to);
    }
    return n;
}

/* What RAIL showed in the rank's window, into L; how many things. */
static size_t join_rail(const struct job_join *jn, const char *rail, usec_t since, struct line *l)
{
    if (!jn)
        return 0;
    size_t n = join_links(jn, rail, since, l);
    n += join_findings(jn, rail, n, l);
    return n + join_gid_moves(jn, rail, since, n, l);
}

/* How the rank lags or failed, in words. */
static void rank_state(const struct ras_track_rank *k, char *buf, size_t len)
{
    switch (k->verdict) {
    case RAS_VERDICT_STRAGGLER:
        snprintf(buf, len, "a straggler: %llu operation%s behind in %u replies while the counts "
                 "move", (unsigned long long)k->behind_by, PLURAL_S(k->behind_by), k->behind_seen);
        break;
    case RAS_VERDICT_HUNG:
        snprintf(buf, len, "hung: %llu operation%s behind, the counts frozen",
                 (unsigned long long)k->behind_by, PLURAL_S(k->behind_by));
        break;
    case RAS_VERDICT_MISSING:
        snprintf(buf, len, "missing: RAS gets no data from it");
        break;
    case RAS_VERDICT_DEAD:
        snprintf(buf, len, "dead: RAS cannot reach its process any more");
        break;
    default:
        snprintf(buf, len, "in error: it reports %s", k->error[0] ? k->error : "an error");
        break;
    }
}

/* The rank's GPU and rail, into L; the rail's name in RAIL ("" when not placed). */
static void rank_place(const struct inventory *inv, const struct job *j,
                       const struct ras_track_rank *k, char *rail, size_t rail_len, struct line *l)
{
    char how[160];
    const char *dist = NULL;
    const struct gpu *g = job_rank_gpu(inv, j, k->pid, k->cuda_dev, k->nvml_dev, how, sizeof(how));
    const struct rail *r = g ? topology_nearest_rail(inv, g, &dist) : NULL;
    rail[0] = '\0';
    if (!g) {
        add(l, "GPU not placed: %s", how);
        return;
    }
    add(l, "GPU %d at %s", k->nvml_dev >= 0 ? k->nvml_dev : k->cuda_dev, g->pci_addr);
    if (r) {
        strscpy(rail, r->name, rail_len);
        add(l, ", rail %s (%s)", r->name, dist);
    } else
        add(l, ", no rail beside it");
}

static void rank_finding(const struct inventory *inv, const struct job *j,
                         const struct ras_track_rank *k, const struct job_join *jn,
                         size_t elsewhere, struct findings *out)
{
    char name[96], state[160], rail[INV_NAME_MAX + 8], at[16];
    struct line place = { .n = 0 }, seen = { .n = 0 }, msg = { .n = 0 };
    job_name(j, name, sizeof(name));
    rank_state(k, state, sizeof(state));
    rank_place(inv, j, k, rail, sizeof(rail), &place);
    size_t n = rail[0] ? join_rail(jn, rail, k->since, &seen) : 0;
    add(&msg, "%s: rank %d (pid %d, %s) is %s", name, k->rank, k->pid, place.buf, state);
    if (jn && jn->links) {
        const struct link_memory *m = jn->links;
        usec_t ago = m->now_boottime > k->since ? m->now_boottime - k->since : 0;
        add(&msg, ", since %s", utc_text(m->now_wall - ago, false, at, sizeof(at)));
    }
    if (n)
        add(&msg, "; " JOB_RAS_RAIL_SHOWED " %s showed: %s", rail, seen.buf);
    else if (rail[0] && jn)
        add(&msg, "; its rail %s " JOB_RAS_RAIL_CLEAN ": the cause is elsewhere (its "
            "compute, or a peer on another node)", rail);
    if (elsewhere)
        add(&msg, "; %zu more rank%s of the job lag%s or failed on other nodes", elsewhere,
            PLURAL_S(elsewhere), elsewhere == 1 ? "s" : "");
    findings_add(out, "job.ras", SEVERITY_WARNING, NULL, "in step", ras_verdict_name(k->verdict),
                 n ? "the rail's trouble is the likely cause: see fabtunectl links and the "
                     "rail's findings; drain the node if it persists"
                   : "look at the rank's GPU and host (clocks, Xid, load), or at its peers",
                 "%s", msg.buf);
    set_subject(out, j, k->rank);
}

static void job_ras(const struct inventory *inv, const struct jobs *js, const struct job *j,
                    const struct job_join *jn, struct findings *out)
{
    const struct ras_tracker *t = &j->ras;
    char name[96];
    size_t here = 0, elsewhere = 0;
    if (t->replies == 0)
        return;         /* no RAS answered: the daemon says so once, no finding */
    for (size_t i = 0; i < t->n_ranks; i++)
        elsewhere += ras_verdict_bad(t->ranks[i].verdict) &&
                     !job_rank_here(js, j, t->ranks[i].pid, t->ranks[i].host);
    for (size_t i = 0; i < t->n_ranks; i++) {
        const struct ras_track_rank *k = &t->ranks[i];
        if (!ras_verdict_bad(k->verdict) || !job_rank_here(js, j, k->pid, k->host))
            continue;
        rank_finding(inv, j, k, jn, elsewhere, out);
        here++;
    }
    if (here)
        return;
    job_name(j, name, sizeof(name));
    findings_add(out, "job.ras", SEVERITY_OK, NULL, "in step", "in step", NULL,
                 "%s: no rank of this node lags, is missing or died (NCCL %s, %u RAS replies)%s%zu "
                 "rank%s lag%s or failed on other nodes: not this node's finding", name,
                 t->nccl_version[0] ? t->nccl_version : "?", t->replies, elsewhere ? "; " : "; ",
                 elsewhere, PLURAL_S(elsewhere), elsewhere == 1 ? "s" : "");
    set_subject(out, j, -1);
}

/* ---- job.nccl_env ------------------------------------------------------------------ */

struct env_verdict {
    enum severity sev;
    struct line faults, hints;
};

__attribute__((format(printf, 3, 4)))
static void fault(struct env_verdict *v, enum severity sev, const char *fmt, ...)
{
    char text[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    add(&v->faults, "%s%s", v->faults.n ? "; " : "", text);
    if (sev > v->sev)
        v->sev = sev;
}

static void hint(struct env_verdict *v, const char *text)
{
    if (!strstr(v->hints.buf, text))
        add(&v->hints, "%s%s", v->hints.n ? "; " : "", text);
}

/* NCCL_IB_HCA: each name a rail of this node, and up. */
static void env_hca(const struct inventory *inv, const char *value, struct env_verdict *v)
{
    struct nccl_list l;
    size_t bad = 0, used = 0;
    nccl_list_parse(value, true, &l);
    for (size_t i = 0; i < l.n && !l.exclude; i++) {
        size_t hits = 0;
        for (size_t r = 0; r < inv->n_rails; r++) {
            const struct rail *rl = &inv->rails[r];
            if (!nccl_list_item_matches(&l, i, rl->device, rl->port))
                continue;
            hits++;
            if (rl->state > 0 && rl->state != 4) {
                fault(v, SEVERITY_WARNING, "NCCL_IB_HCA names %s, which is %s", rl->name,
                      rl->state_name[0] ? rl->state_name : "not active");
                bad++;
            } else
                used++;
        }
        char item[NCCL_LIST_NAME_MAX + 16];
        if (l.items[i].port >= 0)
            snprintf(item, sizeof(item), "%s:%d", l.items[i].name, l.items[i].port);
        else
            snprintf(item, sizeof(item), "%s", l.items[i].name);
        if (!hits)
            fault(v, SEVERITY_WARNING, "NCCL_IB_HCA names %s, which is no rail of this node", item);
        bad += !hits;
    }
    for (size_t r = 0; r < inv->n_rails && l.exclude; r++)
        used += nccl_list_selects(&l, inv->rails[r].device, inv->rails[r].port);
    if ((bad || l.exclude) && used == 0)
        fault(v, SEVERITY_ERROR, "NCCL_IB_HCA=%s leaves NCCL no rail that is up: it falls back "
              "to its socket transport or fails", value);
    if (bad || used == 0)
        hint(v, "name only this node's rails in NCCL_IB_HCA, or unset it: fabtune's nccl.env "
                "lists them (NCCL_IB_HCA)");
}

/* NCCL_IB_GID_INDEX (or NCCL's selection under the job's own settings) on each RoCE rail
 * the job uses: an entry of RoCE v2 and the policy's family, where the policy means. */
static void env_gid(const struct inventory *inv, const struct job *j, const struct policy *p,
                    struct env_verdict *v)
{
    struct nccl_gid_settings g;
    job_gid_settings(j, &g);
    if (!g.any_set)
        return;     /* NCCL's defaults: gid.nccl judges them */
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        if (!rail_is_roce(r) || !r->has_gid_table || !job_uses_rail(j, r))
            continue;
        int idx = job_gid_index(j, r);
        const char *skip = idx >= 0 && (uint32_t)idx < r->n_gids
            ? nccl_gid_skip_reason(&r->gids[idx], policy_roce_family(p), p->rails.roce.version, NULL)
            : "empty";
        if (skip && g.index >= 0)
            fault(v, SEVERITY_ERROR, "NCCL_IB_GID_INDEX=%d on %s is not a RoCE v%u %s GID (%s); "
                  "the policy's is index %d", idx, r->name, p->rails.roce.version,
                  p->rails.roce.address_family == ADDR_FAMILY_IPV4 ? "IPv4" : "IPv6", skip,
                  r->gid_index);
        else if (idx != r->gid_index)
            fault(v, skip ? SEVERITY_ERROR : SEVERITY_WARNING, "under the job's settings NCCL "
                  "picks GID index %d on %s%s%s%s, not the policy's %d", idx, r->name,
                  skip ? " (" : "", skip ? skip : "", skip ? ")" : "", r->gid_index);
        else
            continue;
        hint(v, "unset NCCL_IB_GID_INDEX (and NCCL_IB_ADDR_FAMILY, NCCL_IB_ROCE_VERSION_NUM, "
                "NCCL_IB_ADDR_RANGE) in the job, or set them as fabtune's nccl.env does");
    }
}

/* NCCL_SOCKET_IFNAME: each name an interface of this node. */
static void env_ifname(const struct jobs *js, const char *value, struct env_verdict *v)
{
    struct nccl_list l;
    size_t used = 0;
    nccl_list_parse(value, false, &l);
    if (!js->ifnames_known)
        return;
    for (size_t i = 0; i < js->n_ifnames; i++)
        used += nccl_list_selects(&l, js->ifnames[i], 0) && !streq(js->ifnames[i], "lo");
    for (size_t i = 0; i < l.n && !l.exclude; i++) {
        bool hit = false;
        for (size_t k = 0; k < js->n_ifnames && !hit; k++)
            hit = nccl_list_item_matches(&l, i, js->ifnames[k], 0);
        if (!hit)
            fault(v, SEVERITY_WARNING, "NCCL_SOCKET_IFNAME names %s, which is no interface of "
                  "this node", l.items[i].name);
    }
    if (used == 0 && !(l.n == 1 && !l.exclude && streq(l.items[0].name, "lo")))
        fault(v, SEVERITY_ERROR, "NCCL_SOCKET_IFNAME=%s matches no interface of this node but "
              "lo: NCCL's bootstrap cannot reach the other nodes", value);
    if (v->faults.n && strstr(v->faults.buf, "NCCL_SOCKET_IFNAME"))
        hint(v, "set NCCL_SOCKET_IFNAME to an interface of this node (ip link), or unset it");
}

static void env_tc(const struct policy *p, const char *value, struct env_verdict *v)
{
    char why[128];
    int tc = nccl_tc_parse(value, why, sizeof(why));
    if (tc < 0) {
        fault(v, SEVERITY_WARNING, "%s", why);
        return;
    }
    if ((uint32_t)tc >> 2 == p->rails.qos.dscp)
        return;
    fault(v, SEVERITY_WARNING, "NCCL_IB_TC=%d is DSCP %d, not the policy's lossless DSCP %u: "
          "the job's RoCE traffic misses the PFC priority", tc, tc >> 2, p->rails.qos.dscp);
    hint(v, "set NCCL_IB_TC as fabtune's nccl.env does (DSCP << 2), or unset it");
}

/* The job's variables that differ from the contract fabtune writes (nccl.conf). */
static void env_differs(const struct jobs *js, const struct job_proc *pr, struct line *l)
{
    for (size_t i = 0; i < js->contract.n; i++) {
        const char *mine = job_proc_env(pr, js->contract.vars[i].name);
        if (mine && !streq(mine, js->contract.vars[i].value))
            add(l, "%s%s=%s (nccl.conf: %s)", l->n ? ", " : "", js->contract.vars[i].name, mine,
                js->contract.vars[i].value);
    }
}

static const struct job_proc *env_proc(const struct job *j)
{
    for (size_t i = 0; i < j->n_procs; i++)
        if (j->procs[i].env_read)
            return &j->procs[i];
    return NULL;
}

static void job_nccl_env(const struct inventory *inv, const struct jobs *js, const struct job *j,
                         const struct policy *p, struct findings *out)
{
    char name[96];
    const struct job_proc *pr = env_proc(j);
    struct env_verdict v = { .sev = SEVERITY_OK };
    struct line diff = { .n = 0 };
    const char *val;
    job_name(j, name, sizeof(name));
    if (!pr) {
        findings_add(out, "job.nccl_env", SEVERITY_UNKNOWN, NULL, NULL, NULL, NULL,
                     "%s: its NCCL settings are not known: %s", name,
                     j->n_procs ? j->procs[0].env_why : "no process");
        set_subject(out, j, -1);
        return;
    }
    if ((val = job_proc_env(pr, "NCCL_IB_HCA")))
        env_hca(inv, val, &v);
    env_gid(inv, j, p, &v);
    if ((val = job_proc_env(pr, "NCCL_SOCKET_IFNAME")))
        env_ifname(js, val, &v);
    if ((val = job_proc_env(pr, "NCCL_IB_TC")))
        env_tc(p, val, &v);
    env_differs(js, pr, &diff);
    findings_add(out, "job.nccl_env", v.sev, NULL, "NCCL settings that fit this node",
                 v.faults.n ? v.faults.buf : "they fit", v.hints.n ? v.hints.buf : NULL,
                 "%s: %s%s%s", name, v.faults.n ? v.faults.buf : "its NCCL settings fit this node",
                 diff.n ? "; it overrides fabtune's nccl.conf: " : "", diff.buf);
    set_subject(out, j, -1);
}

/* ---- job.gid_drift ----------------------------------------------------------------- */

static const struct rail *rail_named(const struct inventory *inv, const char *name)
{
    for (size_t i = 0; i < inv->n_rails; i++)
        if (streq(inv->rails[i].name, name))
            return &inv->rails[i];
    return NULL;
}

static bool same_gid(const struct gid_entry *e, const struct job_rail_gid *g)
{
    return memcmp(e->raw, g->raw, 16) == 0 && e->type == g->type;
}

static int gid_now_at(const struct rail *r, const struct job_rail_gid *g)
{
    for (uint32_t i = 0; i < r->n_gids; i++)
        if (same_gid(&r->gids[i], g))
            return (int)i;
    return -1;
}

static bool drift_one(const struct rail *r, const struct job_rail_gid *g, const char *name,
                      const struct job *j, struct findings *out)
{
    if (g->index < (int)r->n_gids && same_gid(&r->gids[g->index], g))
        return false;
    char was[64], now[64], want[96];
    int at = gid_now_at(r, g);
    gid_format(g->raw, true, was, sizeof(was));
    if (g->index < (int)r->n_gids && !gid_is_zero(r->gids[g->index].raw))
        gid_format(r->gids[g->index].raw, true, now, sizeof(now));
    else
        snprintf(now, sizeof(now), "nothing");
    snprintf(want, sizeof(want), "index %d: %s", g->index, was);
    if (at >= 0)
        findings_add(out, "job.gid_drift", SEVERITY_ERROR, r->name, want, now,
                     "restart the job (NCCL keeps the index it started with), or give the rail "
                     "its addresses back in their old order",
                     "%s started with GID index %d (%s) on %s; that GID is at index %d now and "
                     "index %d holds %s: the job's NCCL traffic on this rail fails", name,
                     g->index, was, r->name, at, g->index, now);
    else
        findings_add(out, "job.gid_drift", SEVERITY_ERROR, r->name, want, now,
                     "restart the job once the rail has its address again",
                     "%s started with GID index %d (%s) on %s; that GID is gone and index %d "
                     "holds %s", name, g->index, was, r->name, g->index, now);
    set_subject(out, j, -1);
    return true;
}

static void job_gid_drift(const struct inventory *inv, const struct job *j, struct findings *out)
{
    char name[96];
    size_t drifted = 0, held = 0;
    job_name(j, name, sizeof(name));
    for (size_t i = 0; i < j->n_start_gids; i++) {
        const struct rail *r = rail_named(inv, j->start_gids[i].rail);
        if (!r || !r->has_gid_table)
            continue;   /* a rail gone is rails.count's and port.*'s */
        if (drift_one(r, &j->start_gids[i], name, j, out))
            drifted++;
        else
            held++;
    }
    if (drifted || held == 0)
        return;
    findings_add(out, "job.gid_drift", SEVERITY_OK, NULL, NULL, NULL, NULL,
                 "%s: the GID it started with holds on each of its %zu RoCE rail%s", name, held,
                 PLURAL_S(held));
    set_subject(out, j, -1);
}

void check_jobs(const struct inventory *inv, const struct jobs *jobs, const struct job_join *join,
                const struct policy *p, struct findings *out)
{
    for (size_t i = 0; i < jobs->n; i++) {
        const struct job *j = &jobs->jobs[i];
        job_ras(inv, jobs, j, join, out);
        job_nccl_env(inv, jobs, j, p, out);
        job_gid_drift(inv, j, out);
    }
}
