/* SPDX-License-Identifier: ISC */
/* The daemon's manager: the sd-event loop (timers for checks and probes, io sources for
 * netlink, verbs async events, the probe worker and the control socket, signals), and the
 * check cycle sources -> inventory -> checks -> findings -> outputs. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "alerts.h"
#include "baseline_store.h"
#include "check_job.h"
#include "checks.h"
#include "control.h"
#include "counters_job.h"
#include "counters_store.h"
#include "link_store.h"
#include "events.h"
#include "log.h"
#include "macro.h"
#include "manager.h"
#include "outputs.h"
#include "pipeline.h"
#include "probes_runner.h"
#include "protocol.h"
#include "host_check.h"
#include "instance.h"
#include "inventory_take.h"
#include "jobs_watch.h"
#include "peers.h"
#include "rail_sysctl.h"
#include "responder.h"
#include "source_counters.h"
#include "source_jobs.h"
#include "sysfs.h"
#include "strutil.h"
#include "tuning_transaction.h"

/* GID moves kept for job.ras's join (the oldest go first). */
#define GID_MOVES_MAX 32

struct manager {
    sd_event *event;
    const struct options *opts;
    struct policy *policy;
    char policy_source[512];
    char reload_error[2048];    /* the last failed reload: the old policy stays */
    struct report *report;      /* the latest full check; NULL until the first */
    struct reply_cache *replies;    /* its replies as the worker rendered them */
    usec_t last_check;          /* CLOCK_REALTIME */
    usec_t started, last_reload;    /* CLOCK_REALTIME; last_reload 0: none yet */
    unsigned checks_done;
    bool ready_sent;
    bool tuning_suspended;      /* after "revert": enforcement waits for "apply" or a reload */
    struct check_job *check_job;    /* the pass in the worker thread, if one is going */
    bool check_again;           /* asked for while one was going: starts when it ends */
    int check_pipe[2];
    struct alerts alerts;
    struct baselines baselines;
    struct counter_state counters;  /* previous samples, rates, carrier history */
    struct link_memory links;       /* flaps, link downs, bursts, warnings: kept */
    struct fw_answers fw_answers;   /* the firmware tool's answers, per PCI function */
    struct pass_memory *lent;       /* the memory a pass holds meanwhile (pipeline.h) */
    char boot_id[40];
    struct probe_run probes;    /* the last completed probe run */
    bool have_probes;
    struct probe_run *running;  /* the run the worker thread owns */
    struct probe_job *job;
    int probe_pipe[2];
    struct counters_job *counters_job;  /* the counters timer's round, if one is going */
    int counters_pipe[2];
    sd_event_source *check_io, *probe_io, *counters_io, *check_timer, *probe_timer, *event_window,
                   *counters_timer;
    bool events_held;           /* events came within the window: one check at its end */
    struct events *events;
    struct control *control;
    int output_errors[OUTPUTS]; /* the last write's result of each output */
    bool baselines_dirty;       /* a probe run folded in since the last save */
    struct responder *responder;    /* answers the peers' probes; NULL without peers */
    struct responder_address responder_addrs[RESPONDER_MAX_ADDRESSES];
    size_t n_responder_addrs;       /* what it listens on: the rails' addresses */
    struct instance_hold state_hold;    /* the state directory's lock, retried each pass */
    struct persistence persistence;     /* that lock and the last writes: host.state_dir */
    int persistence_logged;             /* its error last said in the journal */
    /* The NCCL jobs, as the jobs watch's last round left them (its RAS trackers, the GIDs
     * each job started with); the round in the worker, if one is going. */
    struct jobs jobs;
    struct jobs_watch *jobs_watch;
    int jobs_pipe[2];
    sd_event_source *jobs_io, *jobs_timer;
    int jobs_scan_logged;               /* the scan's error last said */
    /* The GID index moves seen on the rails from pass to pass, the newest last. */
    struct gid_move gid_moves[GID_MOVES_MAX];
    size_t n_gid_moves;
};

/* The responder runs while the policy has peers and probes; a reload restarts it (the
 * port, the allowlist or the limits may have changed). A port in use is logged, never
 * fatal: the node's own checks go on. */
static void sync_responder(struct manager *m)
{
    responder_stop(m->responder);
    m->responder = NULL;
    if (!m->policy->probes.enabled || !policy_peers_configured(m->policy))
        return;
    int r = responder_start(m->policy, m->responder_addrs, m->n_responder_addrs, &m->responder);
    if (r < 0)
        log_warning_errno(r, "Cannot start the peer responder on port %u: %m",
                          m->policy->probes.peers.port);
    else
        log_info("Peer responder listening on port %u (%u sessions at most, %s each)",
                 m->policy->probes.peers.port, m->policy->probes.peers.max_sessions,
                 "bounded");
}

static int load_policy(struct manager *m, struct policy *p, char *err, size_t len)
{
    struct policy_errors errs = { 0 };
    struct policy_host_check host;
    const char *src;
    host_check_init(&host, m->opts->runtime_dir);
    int r = policy_load_configured_on_host(m->opts->config, m->opts->config_explicit, &host, p,
                                           &errs, &src);
    if (errs.n) {
        size_t n = 0;
        for (size_t i = 0; i < errs.n && n < len; i++)
            n += (size_t)snprintf(err + n, len - n, "%s%s", i ? "\n" : "", errs.msgs[i]);
    }
    policy_errors_done(&errs);
    char why[1024];
    if (r == 0 && outputs_check(p, m->opts->runtime_dir, why, sizeof(why)) < 0) {
        snprintf(err, len, "%s: %s", src, why);
        return -EINVAL;
    }
    if (r == 0)
        strscpy(m->policy_source, src, sizeof(m->policy_source));
    return r;
}

#define BASELINES_SAVE "save the probe baselines"

/* What the worker wrote: a failed output is logged once per change of its error, not at
 * every check, and a failed baselines save each time. */
static void log_writes(struct manager *m, const struct check_writes *w)
{
    for (int i = 0; i < OUTPUTS; i++) {
        int r = w->outputs.result[i];
        const char *path = w->outputs.path[i], *what = outputs_what(i);
        if (!path[0])
            continue;
        if (r < 0 && r != m->output_errors[i])
            log_warning_errno(r, "Cannot write the %s to %s: %m", what, path);
        else if (r == 0 && m->output_errors[i] < 0)
            log_info("Wrote the %s to %s again", what, path);
        m->output_errors[i] = r;
    }
    if (w->save_baselines && w->baselines_result < 0) {
        m->baselines_dirty = true;     /* saved again with the next pass */
        m->persistence.write_error = w->baselines_result;
        strscpy(m->persistence.failed, BASELINES_SAVE, sizeof(m->persistence.failed));
    } else if (w->save_baselines && streq(m->persistence.failed, BASELINES_SAVE)) {
        m->persistence.write_error = 0;
    }
}

/* What host.state_dir judged: said in the journal when it changes, not at every pass. */
static void log_persistence(struct manager *m, const struct persistence *now)
{
    int before = m->persistence_logged;
    int after = now->lock_error ? now->lock_error : now->write_error;
    m->persistence_logged = after;
    if (after < 0 && after != before)
        log_error_errno(after, "The state directory %s cannot be %s (%m): judging from "
                        "memory, nothing will persist until it can", now->dir,
                        now->lock_error ? "locked" : "written");
    else if (after == 0 && before < 0)
        log_info("The state directory %s is written again", now->dir);
    m->persistence.write_error = now->write_error;
    strscpy(m->persistence.failed, now->failed, sizeof(m->persistence.failed));
}

/* Before each pass: the lock of the state directory, taken or its PID written at last. */
static void retry_state_dir(struct manager *m)
{
    instance_hold_retry(&m->state_hold, m->opts->state_dir);
    m->persistence.lock_error = m->state_hold.error;
    m->persistence.holder = m->state_hold.holder;
}

/* The writes for the next pass; the baselines go with it if a probe run changed them. */
static void check_writes_of(struct manager *m, struct check_writes *w)
{
    memset(w, 0, sizeof(*w));
    outputs_plan(&w->outputs, m->policy, m->opts->runtime_dir);
    w->save_baselines = m->baselines_dirty;
    m->baselines_dirty = false;
}

static void notify_status(struct manager *m)
{
    const struct report *r = m->report;
    size_t bad = 0;
    for (size_t i = 0; r && i < r->inventory.n_rails; i++)
        bad += report_rail_verdict(r, i) != VERDICT_READY;
    sd_notifyf(false, "%sSTATUS=%s: %s; %zu rail%s, %zu not ready%s%s",
               m->ready_sent ? "" : "READY=1\n", verdict_to_string(r->verdict), r->verdict_cause,
               r->inventory.n_rails,
               r->inventory.n_rails == 1 ? "" : "s", bad,
               m->reload_error[0] ? "; policy reload failed, old policy in use" : "",
               m->job ? "; probing" : "");
    m->ready_sent = true;
}

/* Enforcement wrote a drifted key back: say so in the journal, with the likely writer. */
static void log_reapplied(const struct tuning *t)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct tuning_key *k = &t->keys[i];
        if (!k->reapplied)
            continue;
        const struct log_field fields[] = {
            { "MESSAGE_ID", alerts_message_id("tuning.drift") },
            { "FABTUNE_CHECK", "tuning.drift" }, { "FABTUNE_EXPECTED", k->wanted },
            { "FABTUNE_STATE", "reapplied" }, { "FABTUNE_WRITER", k->writer },
        };
        log_struct(LOG_WARNING, fields, ARRAY_SIZE(fields), "re-applied %s = %s after drift%s%s",
                   k->key, k->wanted, k->writer[0] ? "; set by " : "", k->writer);
    }
}

/* Between check cycles, the counters are sampled on their own period, so a burst shows
 * as a peak rate instead of being averaged over the whole check interval. The reads (sysfs,
 * the ethtool statistics, FEC_GET) run in a round of their own, off the loop; a round
 * still going (a driver that does not answer) is not doubled. */
static int on_counters_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
    struct manager *m = userdata;
    sd_event_source_set_time(s, usec + m->policy->checks.counters.interval);
    if (m->counters_job) {
        log_debug("manager", "the previous counters round is still going; skipping this one");
        return 0;
    }
    if (!m->report || m->report->inventory.n_rails == 0)
        return 0;
    int r = counters_job_start(m->opts->sysfs_root,
                               m->report->inventory.source == INVENTORY_LIVE,
                               &m->report->inventory, m->counters_pipe[1], &m->counters_job);
    if (r < 0)
        log_warning_errno(r, "Cannot sample the counters: %m");
    return 0;
}

/* Back on the loop: the round's samples folded into the counter state. */
static void counters_join(struct manager *m)
{
    struct counters_round round;
    if (!m->counters_job)
        return;
    counters_job_join(m->counters_job, &round);
    m->counters_job = NULL;
    const struct counter_limits lim = counter_limits_of(m->policy);
    for (size_t i = 0; i < round.n; i++) {
        const struct rail_sample *rs = &round.v[i];
        int e = counters_fold(&m->counters, &lim, m->boot_id, rs->rail, &rs->sample,
                              rs->has_carrier, rs->carrier_changes,
                              m->policy->checks.flaps.window);
        if (e < 0)
            log_warning("Cannot fold the counters: out of memory");
    }
    counters_round_done(&round);
}

static int on_counters_done(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
    char buf[16];
    while (read(fd, buf, sizeof(buf)) > 0)
        ;
    counters_join(userdata);
    return 0;
}

/* The memory a pass changes, lent to it: a copy of the counter state (the loop folds its
 * rounds into its own meanwhile), the link memory and the firmware answers themselves
 * (only passes use them). */
static struct pass_memory *memory_lend(struct manager *m)
{
    struct pass_memory *mem = calloc(1, sizeof(*mem));
    if (!mem || counters_copy(&m->counters, &mem->counters) < 0) {
        free(mem);
        return NULL;
    }
    mem->links = m->links;
    mem->fw_answers = m->fw_answers;
    m->links = (struct link_memory){ 0 };
    m->fw_answers = (struct fw_answers){ 0 };
    m->lent = mem;
    return mem;
}

/* The pass is back: its link memory and firmware answers return, and its counter samples
 * (R's inventory, as the pass folded them into its copy) join the loop's counter state. A
 * round folded after the pass sampled keeps the newer samples. R is NULL when the pass
 * took no inventory (it changed nothing). */
static void memory_take_back(struct manager *m, const struct report *r)
{
    struct pass_memory *mem = m->lent;
    if (!mem)
        return;
    m->links = mem->links;
    m->fw_answers = mem->fw_answers;
    counters_done(&mem->counters);
    free(mem);
    m->lent = NULL;
    const struct counter_limits lim = counter_limits_of(m->policy);
    if (r && r->inventory.n_rails > 0 &&
        counters_fold_inventory(&m->counters, &lim, m->boot_id, &r->inventory,
                                m->policy->checks.flaps.window) < 0)
        log_warning("Cannot fold the counters: out of memory");
}

static int pipeline_input_of(struct manager *m, struct pipeline_input *in)
{
    retry_state_dir(m);
    struct pass_memory *mem = memory_lend(m);
    if (!mem)
        return -ENOMEM;
    *in = (struct pipeline_input) {
        .sysfs_root = m->opts->sysfs_root, .procfs_root = m->opts->procfs_root,
        .state_dir = m->opts->state_dir, .policy = m->policy,
        .policy_source = m->policy_source,
        .tuning = m->policy->tuning.mode == TUNING_ENFORCE ? TUNING_APPLY : TUNING_READ,
        .memory = mem, .boot_id = m->boot_id, .daemon_pass = true,
        .tuning_suspended = m->tuning_suspended,
        .probes = m->have_probes ? &m->probes : NULL, .baselines = &m->baselines,
        .persistence = &m->persistence,
        .jobs = &m->jobs, .gid_moves = m->gid_moves, .n_gid_moves = m->n_gid_moves,
    };
    return 0;
}

/* The responder listens on the rails' addresses: after a pass, when they changed (the
 * first pass, an address added or moved), it starts again on the new ones. */
static void follow_rail_addresses(struct manager *m, const struct inventory *inv)
{
    struct responder_address now[RESPONDER_MAX_ADDRESSES];
    size_t n = 0;
    for (size_t i = 0; i < inv->n_rails && n < RESPONDER_MAX_ADDRESSES; i++) {
        memset(&now[n], 0, sizeof(now[n]));
        if (probes_rail_address(&inv->rails[i], m->policy, &now[n].family, now[n].addr))
            n++;
    }
    bool same = n == m->n_responder_addrs && memcmp(now, m->responder_addrs, n * sizeof(*now)) == 0;
    if (same && (m->responder || !policy_peers_configured(m->policy)))
        return;
    memcpy(m->responder_addrs, now, n * sizeof(*now));
    m->n_responder_addrs = n;
    sync_responder(m);
}

static void report_free(struct report *r, struct reply_cache *replies)
{
    if (r) {
        report_done(r);
        free(r);
    }
    reply_cache_free(replies);
}

/* A rail's GID index that moved since the last pass: said, and kept for the join. */
static void note_gid_moves(struct manager *m, const struct inventory *before,
                           const struct inventory *now)
{
    for (size_t i = 0; before && i < now->n_rails; i++) {
        const struct rail *r = &now->rails[i], *was = NULL;
        for (size_t k = 0; k < before->n_rails && !was; k++)
            if (streq(before->rails[k].name, r->name))
                was = &before->rails[k];
        if (!was || !rail_is_roce(r) || was->gid_index == r->gid_index)
            continue;
        if (m->n_gid_moves == GID_MOVES_MAX)
            memmove(m->gid_moves, m->gid_moves + 1, --m->n_gid_moves * sizeof(*m->gid_moves));
        struct gid_move *g = &m->gid_moves[m->n_gid_moves++];
        strscpy(g->rail, r->name, sizeof(g->rail));
        g->from = was->gid_index;
        g->to = r->gid_index;
        g->at = now_usec(CLOCK_BOOTTIME);
        log_warning("The RoCE GID index of %s moved from %d to %d", r->name, g->from, g->to);
    }
}

/* Back on the loop: what a finished pass changes outside the report, then the swap. */
static void check_finished(struct manager *m, struct report *r, struct reply_cache *replies,
                           const struct check_writes *w)
{
    note_gid_moves(m, m->report ? &m->report->inventory : NULL, &r->inventory);
    jobs_keep_gids(&m->jobs, &r->jobs);     /* the GIDs the pass recorded for new jobs */
    log_reapplied(&r->tuning);
    log_persistence(m, &r->persistence);
    alerts_update(&m->alerts, &r->findings, &r->inventory, now_usec(CLOCK_MONOTONIC), m->checks_done == 0);
    report_free(m->report, m->replies);
    m->report = r;
    m->replies = replies;
    m->last_check = now_usec(CLOCK_REALTIME);
    m->checks_done++;
    notify_status(m);
    log_writes(m, w);
    events_watch_devices(m->events, &r->inventory);
    follow_rail_addresses(m, &r->inventory);
    log_debug("manager", "check %u: %s", m->checks_done, verdict_to_string(r->verdict));
}

/* The first pass, before the loop runs: READY=1 follows it. */
static int check_first(struct manager *m)
{
    struct pipeline_input in;
    struct check_writes w;
    int err;
    struct reply_cache *replies;
    if ((err = pipeline_input_of(m, &in)) < 0)
        return log_error_errno(err, "Cannot start the first check: %m");
    check_writes_of(m, &w);
    struct report *r = check_run_here(&in, &w, &err, &replies);
    memory_take_back(m, r);
    if (!r)
        return log_error_errno(err, "Cannot take the inventory of %s: %m", m->opts->sysfs_root);
    check_finished(m, r, replies, &w);
    return 0;
}

/* A full check: inventory, checks, tuning, the contract, then (back on the loop) alerts
 * and outputs. The pass runs in the worker; queries are answered from the last finished
 * report meanwhile. With a pass going, one more starts when it ends. */
static int manager_check(struct manager *m)
{
    struct pipeline_input in;
    struct check_writes w;
    if (m->check_job) {
        m->check_again = true;
        return 0;
    }
    m->check_again = false;
    int r = pipeline_input_of(m, &in);
    if (r < 0)
        return log_error_errno(r, "Cannot start a check: %m");
    check_writes_of(m, &w);
    r = check_job_start(&in, &w, m->check_pipe[1], &m->check_job);
    if (r < 0) {
        memory_take_back(m, NULL);
        m->baselines_dirty |= w.save_baselines;
        return log_error_errno(r, "Cannot start a check: %m");
    }
    return 0;
}

unsigned manager_next_check(const struct manager *m)
{
    return m->checks_done + (m->check_job ? 2 : 1);
}

/* Joins the pass in the worker, if one is going; its policy may go once it is joined. */
static struct report *check_join(struct manager *m, int *err, struct check_writes *w,
                                 struct reply_cache **replies)
{
    *err = 0;
    *replies = NULL;
    memset(w, 0, sizeof(*w));
    if (!m->check_job)
        return NULL;
    struct report *r = check_job_join(m->check_job, err, w, replies);
    char buf[16];
    m->check_job = NULL;
    while (read(m->check_pipe[0], buf, sizeof(buf)) > 0)
        ;   /* its byte, when joined before the loop saw it */
    memory_take_back(m, r);
    return r;
}

/* Joins a pass still going and lets its report go (stopping). */
static void drop_check(struct manager *m)
{
    struct check_writes w;
    struct reply_cache *replies;
    int err;
    struct report *r = check_join(m, &err, &w, &replies);
    report_free(r, replies);
}

/* Joins the pass going and takes its results. */
static void check_done(struct manager *m)
{
    struct check_writes w;
    struct reply_cache *replies;
    int err;
    struct report *r = check_join(m, &err, &w, &replies);
    if (r)
        check_finished(m, r, replies, &w);
    else
        log_error_errno(err, "Cannot take the inventory of %s: %m", m->opts->sysfs_root);
}

static int on_check_done(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
    struct manager *m = userdata;
    char buf[16];
    while (read(fd, buf, sizeof(buf)) > 0)
        ;
    if (!m->check_job)
        return 0;
    check_done(m);
    if (m->check_again)
        (void)manager_check(m);
    return 0;
}

static void log_job_changes(struct manager *m, const struct jobs *now,
                            const struct jobs_watch_stats *st)
{
    char name[96];
    int scan = st->scan_err;
    if (scan == -ENOENT && scan != m->jobs_scan_logged)
        log_info("No processes listed in %s: no NCCL jobs looked for", m->opts->procfs_root);
    else if (scan < 0 && scan != m->jobs_scan_logged)
        log_warning_errno(scan, "Cannot look for NCCL jobs in %s: %m", m->opts->procfs_root);
    m->jobs_scan_logged = scan;
    for (size_t i = 0; i < now->n; i++) {
        const struct job *j = &now->jobs[i];
        const struct job *was = jobs_find(&m->jobs, j->kind, j->id);
        job_name(j, name, sizeof(name));
        if (!was)
            log_info("NCCL job found: %s, %zu process%s%s", name, j->n_procs,
                     j->n_procs == 1 ? "" : "es",
                     !job_ras_enabled(j) ? ", its RAS disabled (NCCL_RAS_ENABLE=0)"
                     : !m->policy->jobs.ras.enabled ? ", RAS not asked (jobs.ras.enabled is false)" : "");
        if (j->ras.failure_streak == 1)
            log_info("The RAS of %s does not answer: %s", name, j->ras.last_why);
        else if (j->ras.replies == 1 && j->ras.failure_streak == 0 && (!was || was->ras.replies == 0))
            log_info("The RAS of %s answers: NCCL %s", name,
                     j->ras.nccl_version[0] ? j->ras.nccl_version : "(version not said)");
        for (size_t k = 0; k < j->ras.n_ranks; k++) {
            const struct ras_track_rank *rk = &j->ras.ranks[k];
            const struct ras_track_rank *before = was ? ras_tracker_find(&was->ras, rk->comm, rk->rank) : NULL;
            enum ras_verdict v0 = before ? before->verdict : RAS_VERDICT_HEALTHY;
            if (rk->verdict != v0 && ras_verdict_bad(rk->verdict) &&
                job_rank_here(now, j, rk->pid, rk->host))
                log_warning("%s: rank %d (pid %d on %s) is %s", name, rk->rank, rk->pid, rk->host,
                            ras_verdict_name(rk->verdict));
        }
    }
    for (size_t i = 0; i < m->jobs.n; i++)
        if (!jobs_find((struct jobs *)now, m->jobs.jobs[i].kind, m->jobs.jobs[i].id))
            log_info("NCCL job ended: %s", job_name(&m->jobs.jobs[i], name, sizeof(name)));
}

/* A round of the jobs watch is done: its jobs replace the loop's, and a check follows
 * when they tell the checks something new. */
static int on_jobs_done(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
    struct manager *m = userdata;
    char buf[16];
    struct jobs now;
    struct jobs_watch_stats st;
    while (read(fd, buf, sizeof(buf)) > 0)
        ;
    if (!m->jobs_watch)
        return 0;
    jobs_watch_join(m->jobs_watch, &now, &st);
    m->jobs_watch = NULL;
    jobs_keep_gids(&now, &m->jobs);
    log_job_changes(m, &now, &st);
    bool changed = jobs_differ(&m->jobs, &now);
    log_debug("jobs", "jobs round: %zu job%s, %u RAS quer%s, %u repl%s, %zu bytes%s", now.n,
              PLURAL_S(now.n), st.queries, st.queries == 1 ? "y" : "ies", st.replies,
              st.replies == 1 ? "y" : "ies", st.bytes, changed ? "; re-checking" : "");
    jobs_done(&m->jobs);
    m->jobs = now;
    if (changed)
        (void)manager_check(m);
    return 0;
}

static int on_jobs_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
    struct manager *m = userdata;
    struct jobs_watch_input in = {
        .sysfs_root = m->opts->sysfs_root, .procfs_root = m->opts->procfs_root,
        .ras = m->policy->jobs.ras.enabled, .ras_timeout = m->policy->jobs.ras.timeout,
    };
    int r = m->jobs_watch ? -EBUSY : jobs_watch_start(&in, &m->jobs, m->jobs_pipe[1], &m->jobs_watch);
    if (r == -EBUSY)
        log_debug("jobs", "the previous jobs round is still going; skipping this one");
    else if (r < 0)
        log_warning_errno(r, "Cannot start a round of the jobs watch: %m");
    sd_event_source_set_time(s, usec + m->policy->jobs.ras.interval);
    return 0;
}

int manager_tune(struct manager *m, enum tuning_action a, struct tuning *ret)
{
    /* The per-rail keys expand over the rails of the latest check (none before the first);
     * the check that follows applies them to the rails it finds. */
    struct rail_netdevs rails = { 0 };
    if (m->report)
        rail_netdevs_from_inventory(&m->report->inventory, &rails);
    /* A pass going may be applying the profile (it read tuning_suspended when it began):
     * it ends first, so that a revert here is never undone by it. */
    if (m->check_job)
        check_done(m);
    int r = tuning_run(ret, m->opts->procfs_root, m->opts->state_dir, m->policy, &rails, a);
    if (a == TUNING_APPLY && r != -ECANCELED)
        m->tuning_suspended = false;
    else if (a == TUNING_REVERT)
        m->tuning_suspended = true;  /* enforcement would put the values straight back */
    (void)manager_check(m);
    return r;
}

int manager_forget(struct manager *m, const char *rail)
{
    /* The pass going holds the link memory: it comes back first. */
    if (m->check_job)
        check_done(m);
    int r = link_memory_forget(&m->links, rail);
    if (r < 0)
        return r;
    log_info("Rail %s forgotten: rails.gone no longer raises it", rail);
    (void)manager_check(m);
    return 0;
}

static int on_event_window(sd_event_source *s, uint64_t usec, void *userdata);

static void open_event_window(struct manager *m)
{
    if (sd_event_add_time_relative(m->event, &m->event_window, CLOCK_MONOTONIC,
                                   EVENT_WINDOW_USEC, 0, on_event_window, m) < 0)
        m->event_window = NULL;     /* no window: each event checks, the worker coalesces */
}

/* The window closes: the events it held back get one check, and a new window, so that a
 * flap storm re-checks at most once per window. */
static int on_event_window(sd_event_source *s, uint64_t usec, void *userdata)
{
    struct manager *m = userdata;
    m->event_window = sd_event_source_unref(m->event_window);
    if (!m->events_held)
        return 0;
    m->events_held = false;
    (void)manager_check(m);
    open_event_window(m);
    return 0;
}

/* An event about a rail: a check at once (the leading edge), then a window of
 * EVENT_WINDOW_USEC in which further events fold into one check at its end. */
static void manager_schedule_check(struct manager *m)
{
    if (m->event_window) {
        m->events_held = true;
        return;
    }
    (void)manager_check(m);
    open_event_window(m);
}

static int on_check_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
    struct manager *m = userdata;
    (void)manager_check(m);
    sd_event_source_set_time(s, usec + m->policy->checks.interval);
    return 0;
}

/* The save goes with the next check pass, in its worker: no fsync on the loop. */
static void fold_baselines(struct manager *m, const struct probe_run *run)
{
    baselines_fold(&m->baselines, run, m->policy);
    m->baselines_dirty = true;
}

/* The worker is done: take its results and re-check with them. */
static int on_probe_done(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
    struct manager *m = userdata;
    char buf[16];
    while (read(fd, buf, sizeof(buf)) > 0)
        ;
    if (!m->job)
        return 0;
    probes_join(m->job);
    m->job = NULL;
    /* The rail's traffic until now was partly this run's own streams. */
    if (m->counters.own_traffic_until == UINT64_MAX)
        m->counters.own_traffic_until = now_usec(CLOCK_BOOTTIME);
    probes_carry(m->running, m->have_probes ? &m->probes : NULL);
    fold_baselines(m, m->running);
    probes_done(&m->probes);
    m->probes = *m->running;
    free(m->running);
    m->running = NULL;
    m->have_probes = true;
    log_debug("probe", "probe run done in %.2f s", m->probes.wall_seconds);
    (void)manager_check(m);
    return 0;
}

int manager_probe_now(struct manager *m, bool force)
{
    if (!m->policy->probes.enabled)
        return -EOPNOTSUPP;
    if (m->job)
        return -EBUSY;
    if (!m->report)
        return -EAGAIN;
    struct probe_run *run = calloc(1, sizeof(*run));
    if (!run)
        return -ENOMEM;
    int r = probes_plan(&m->report->inventory, m->policy, run);
    size_t streams = SIZE_MAX;
    if (r == 0 && !force) {
        /* The streams wait while a job holds the node or their rail is busy (a forced
         * run, probe-now, never waits). */
        char job[32] = "";
        if (m->policy->probes.defer.jobs)
            (void)source_jobs_slurm(m->opts->sysfs_root, m->opts->procfs_root, job, sizeof(job));
        streams = probes_defer(run, &m->counters, m->policy, job, true, now_usec(CLOCK_BOOTTIME));
    }
    if (r == 0)
        r = probes_start(run, m->probe_pipe[1], &m->job);
    if (r == 0 && streams > 0)
        m->counters.own_traffic_until = UINT64_MAX;
    if (r < 0) {
        probes_done(run);
        free(run);
        return log_error_errno(r, "Cannot start the probes: %m");
    }
    m->running = run;
    log_debug("probe", "probe run started: %zu target%s, %zu cross-rail pair%s, %zu peer path%s",
              run->n, PLURAL_S(run->n), run->n_cross, PLURAL_S(run->n_cross), run->n_peers,
              PLURAL_S(run->n_peers));
    return 0;
}

static int on_probe_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
    struct manager *m = userdata;
    int r = manager_probe_now(m, false);
    if (r == -EBUSY)
        log_warning("The previous probe run is still going; skipping this one");
    if (r == -EOPNOTSUPP)
        log_debug("probe", "probes.enabled is false");
    log_debug("probe", "probe timer: %s", r < 0 ? errno_text(-r) : "started");
    /* No check has finished yet (a slow first pass): try again in a second, not a whole
     * interval later. */
    sd_event_source_set_time(s, usec + (r == -EAGAIN ? USEC_PER_SEC : m->policy->probes.interval));
    return 0;
}

/* The journal's line of what runs (fabtunectl status's header): WHAT, the version, the
 * policy and its digest, the tuning mode, the intervals and the directories. */
static void log_running(const struct manager *m, const char *what)
{
    log_info("%s: fabtuned %s, policy %s (sha256 %s), tuning mode %s, checks every %llu s, "
             "state directory %s, runtime directory %s", what, PACKAGE_VERSION, m->policy_source,
             m->policy->digest[0] ? m->policy->digest : "-", tuning_mode_to_string(m->policy->tuning.mode),
             (unsigned long long)(m->policy->checks.interval / USEC_PER_SEC), m->opts->state_dir,
             m->opts->runtime_dir);
}

int manager_reload(struct manager *m)
{
    struct policy *p = calloc(1, sizeof(*p));
    char err[2048] = "";
    if (!p)
        return -ENOMEM;
    policy_init_defaults(p);
    if (load_policy(m, p, err, sizeof(err)) < 0) {
        policy_free(p);
        strscpy(m->reload_error, err[0] ? err : "cannot load the policy", sizeof(m->reload_error));
        log_error("Policy reload failed; keeping the old policy:\n%s", m->reload_error);
        if (m->report)
            notify_status(m);
        return -EINVAL;
    }
    /* A pass still going reads the old policy: it takes it along, freed when joined. */
    if (!m->check_job || !check_job_take_policy(m->check_job, m->policy))
        policy_free(m->policy);
    m->policy = p;
    m->reload_error[0] = '\0';
    m->tuning_suspended = false;
    m->last_reload = now_usec(CLOCK_REALTIME);
    log_running(m, "Policy reloaded");
    sync_responder(m);
    (void)manager_check(m);
    return 0;
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
    struct manager *m = userdata;
    sd_notify(false, "RELOADING=1");
    (void)manager_reload(m);
    sd_notify(false, "READY=1");
    return 0;
}

static int on_sigterm(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
    struct manager *m = userdata;
    sd_notify(false, "STOPPING=1");
    log_info("Stopping on signal %u", si->ssi_signo);
    return sd_event_exit(m->event, 0);
}

static void on_change(void *userdata)
{
    manager_schedule_check(userdata);
}

void manager_view(const struct manager *m, struct manager_view *ret)
{
    *ret = (struct manager_view) {
        .report = m->report, .replies = m->replies, .baselines = &m->baselines, .policy_source = m->policy_source,
        .reload_error = m->reload_error, .control_group = m->policy->control.group,
        .last_check = m->last_check, .checks_done = m->checks_done,
        .started = m->started, .last_reload = m->last_reload, .policy_digest = m->policy->digest,
        .tuning_mode = m->policy->tuning.mode, .state_dir = m->opts->state_dir,
        .runtime_dir = m->opts->runtime_dir,
        .checking = m->check_job != NULL, .probing = m->job != NULL,
        .has_responder = m->responder != NULL,
    };
    /* The check timer runs on CLOCK_MONOTONIC: its time, as the wall clock reads now. */
    uint64_t when;
    usec_t mono = now_usec(CLOCK_MONOTONIC);
    if (m->check_timer && sd_event_source_get_time(m->check_timer, &when) >= 0)
        ret->next_check = now_usec(CLOCK_REALTIME) + (when > mono ? when - mono : 0);
    int on = SD_EVENT_OFF;
    if (m->policy->probes.enabled && m->probe_timer && sd_event_source_get_enabled(m->probe_timer, &on) >= 0 && on != SD_EVENT_OFF &&
        sd_event_source_get_time(m->probe_timer, &when) >= 0)
        ret->next_probe = now_usec(CLOCK_REALTIME) + (when > mono ? when - mono : 0);
    if (m->responder)
        responder_get_stats(m->responder, &ret->responder);
}

/* The policy's socket; --runtime-dir moves the default one with it. */
static const char *socket_path(const struct manager *m, char *buf, size_t len)
{
    const char *p = m->policy->control.socket;
    if (streq(p, PROTOCOL_DEFAULT_SOCKET) && !streq(m->opts->runtime_dir, "/run/fabtune"))
        snprintf(buf, len, "%s/fabtuned.sock", m->opts->runtime_dir);
    else
        snprintf(buf, len, "%s", p);
    return buf;
}

static int add_sources(struct manager *m)
{
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    /* Blocked before any thread starts, so that only the loop's signalfd sees them. */
    if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
        return -errno;
    /* A client that hangs up before its reply must never kill the daemon: every send is
     * MSG_NOSIGNAL, and this covers any other write (systemd's IgnoreSIGPIPE= does not
     * reach a container or a manual run). */
    signal(SIGPIPE, SIG_IGN);
    int r;
    if ((r = sd_event_add_signal(m->event, NULL, SIGHUP, on_sighup, m)) < 0 ||
        (r = sd_event_add_signal(m->event, NULL, SIGTERM, on_sigterm, m)) < 0 ||
        (r = sd_event_add_signal(m->event, NULL, SIGINT, on_sigterm, m)) < 0)
        return r;
    if (pipe2(m->probe_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
        return -errno;
    if ((r = sd_event_add_io(m->event, &m->probe_io, m->probe_pipe[0], EPOLLIN, on_probe_done, m)) < 0)
        return r;
    if (pipe2(m->counters_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
        return -errno;
    if ((r = sd_event_add_io(m->event, &m->counters_io, m->counters_pipe[0], EPOLLIN,
                             on_counters_done, m)) < 0)
        return r;
    if (pipe2(m->check_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
        return -errno;
    if (pipe2(m->jobs_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
        return -errno;
    if ((r = sd_event_add_io(m->event, &m->jobs_io, m->jobs_pipe[0], EPOLLIN, on_jobs_done, m)) < 0)
        return r;
    if ((r = sd_event_add_io(m->event, &m->check_io, m->check_pipe[0], EPOLLIN, on_check_done, m)) < 0)
        return r;
    usec_t now;
    sd_event_now(m->event, CLOCK_MONOTONIC, &now);
    if ((r = sd_event_add_time(m->event, &m->check_timer, CLOCK_MONOTONIC,
                               now + m->policy->checks.interval, 0, on_check_timer, m)) < 0 ||
        (r = sd_event_source_set_enabled(m->check_timer, SD_EVENT_ON)) < 0)
        return r;
    if ((r = sd_event_add_time(m->event, &m->counters_timer, CLOCK_MONOTONIC,
                               now + m->policy->checks.counters.interval, 0, on_counters_timer, m)) < 0 ||
        (r = sd_event_source_set_enabled(m->counters_timer, SD_EVENT_ON)) < 0)
        return r;
    /* The first jobs round right away: the first checks see the node's jobs. */
    if ((r = sd_event_add_time(m->event, &m->jobs_timer, CLOCK_MONOTONIC, now + 1, 0,
                               on_jobs_timer, m)) < 0 ||
        (r = sd_event_source_set_enabled(m->jobs_timer, SD_EVENT_ON)) < 0)
        return r;
    /* The first probe run starts right after the first check. */
    if ((r = sd_event_add_time(m->event, &m->probe_timer, CLOCK_MONOTONIC, now + 1, 0,
                               on_probe_timer, m)) < 0 ||
        (r = sd_event_source_set_enabled(m->probe_timer, SD_EVENT_ON)) < 0)
        return r;
    return 0;
}

int manager_new(const struct options *o, const struct instance_hold *state_hold,
                control_handler_fn answer, struct manager **ret)
{
    char sock[108];
    struct manager *m = calloc(1, sizeof(*m));
    char err[2048] = "";
    int r;
    if (!m)
        return -ENOMEM;
    m->opts = o;
    m->state_hold = *state_hold;
    m->persistence = (struct persistence){ .judged = true };
    strscpy(m->persistence.dir, o->state_dir, sizeof(m->persistence.dir));
    m->probe_pipe[0] = m->probe_pipe[1] = -1;
    m->check_pipe[0] = m->check_pipe[1] = -1;
    m->jobs_pipe[0] = m->jobs_pipe[1] = -1;
    m->counters_pipe[0] = m->counters_pipe[1] = -1;
    if (!(m->policy = calloc(1, sizeof(*m->policy)))) {
        free(m);
        return -ENOMEM;
    }
    policy_init_defaults(m->policy);
    if (load_policy(m, m->policy, err, sizeof(err)) < 0) {
        fprintf(stderr, "%s\n", err);
        manager_free(m);
        return -EINVAL;
    }
    m->started = now_usec(CLOCK_REALTIME);
    log_running(m, "Started");
    if ((r = baselines_load(o->state_dir, &m->baselines)) < 0) {
        log_warning_errno(r, "Cannot read the probe baselines (%m); learning anew");
        baselines_done(&m->baselines);
    }
    if ((r = counters_load(o->state_dir, &m->counters)) < 0)
        log_warning_errno(r, "Cannot read the counter state (%m); starting anew");
    if ((r = link_store_load(o->state_dir, &m->links)) < 0)
        log_warning_errno(r, "Cannot read the link memory %s/" LINK_STORE_FILE " (%m); "
                          "its history starts anew", o->state_dir);
    source_boot_id(o->procfs_root, m->boot_id, sizeof(m->boot_id));
    if ((r = sd_event_default(&m->event)) < 0 || (r = sd_event_set_watchdog(m->event, true)) < 0 ||
        (r = add_sources(m)) < 0 || (r = events_new(m->event, on_change, m, &m->events)) < 0) {
        log_error_errno(r, "Cannot set up the daemon: %m");
        manager_free(m);
        return r;
    }
    if ((r = control_new(m->event, socket_path(m, sock, sizeof(sock)), m->policy->control.group,
                         answer, m, &m->control)) < 0) {
        log_error_errno(r, "Cannot listen on the control socket %s: %m", sock);
        manager_free(m);
        return r;
    }
    *ret = m;
    return 0;
}

int manager_run(struct manager *m)
{
    /* READY=1 follows the first full check (policy loaded, socket listening, tuning
     * applied), whatever its verdict. */
    int r = check_first(m), e;
    if (r < 0)
        return r;
    r = sd_event_loop(m->event);
    /* A pass still going finishes (the sources' own timeouts bound it) before any revert,
     * and a baselines save still owed is done here. */
    drop_check(m);
    if (m->baselines_dirty && (e = baselines_save(m->opts->state_dir, &m->baselines)) < 0)
        log_warning_errno(e, "Cannot save the probe baselines: %m");
    if (m->policy->tuning.revert_on_stop) {
        struct tuning t;
        e = tuning_run(&t, m->opts->procfs_root, m->opts->state_dir, NULL, NULL, TUNING_REVERT);
        if (e < 0 && e != -ENOENT)
            log_error_errno(e, "Cannot restore the sysctl originals: %m");
        else if (e == 0)
            log_info("Restored %zu sysctl originals", t.n);
        tuning_done(&t);
    }
    return r;
}

void manager_free(struct manager *m)
{
    if (!m)
        return;
    if (m->job) {
        probes_join(m->job);    /* each probe has its own time bound */
        probes_done(m->running);
        free(m->running);
    }
    drop_check(m);
    if (m->jobs_watch) {
        struct jobs left;
        struct jobs_watch_stats st;
        jobs_watch_join(m->jobs_watch, &left, &st);    /* each query has its deadline */
        jobs_done(&left);
    }
    jobs_done(&m->jobs);
    counters_join(m);
    responder_stop(m->responder);
    control_free(m->control);
    events_free(m->events);
    sd_event_source_unref(m->probe_io);
    sd_event_source_unref(m->check_io);
    sd_event_source_unref(m->counters_io);
    sd_event_source_unref(m->check_timer);
    sd_event_source_unref(m->probe_timer);
    sd_event_source_unref(m->counters_timer);
    sd_event_source_unref(m->jobs_io);
    sd_event_source_unref(m->jobs_timer);
    sd_event_source_unref(m->event_window);
    sd_event_unref(m->event);
    if (m->probe_pipe[0] >= 0)
        close(m->probe_pipe[0]);
    if (m->probe_pipe[1] >= 0)
        close(m->probe_pipe[1]);
    for (size_t i = 0; i < ARRAY_SIZE(m->check_pipe); i++) {
        if (m->check_pipe[i] >= 0)
            close(m->check_pipe[i]);
        if (m->counters_pipe[i] >= 0)
            close(m->counters_pipe[i]);
    }
    for (size_t i = 0; i < ARRAY_SIZE(m->jobs_pipe); i++)
        if (m->jobs_pipe[i] >= 0)
            close(m->jobs_pipe[i]);
    report_free(m->report, m->replies);
    probes_done(&m->probes);
    baselines_done(&m->baselines);
    counters_done(&m->counters);
    link_memory_done(&m->links);
    fw_answers_done(&m->fw_answers);
    alerts_done(&m->alerts);
    policy_free(m->policy);
    if (m->state_hold.fd >= 0)
        close(m->state_hold.fd);
    free(m);
}
