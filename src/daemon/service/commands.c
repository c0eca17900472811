/* SPDX-License-Identifier: ISC */
/* The control protocol's commands. Reads need uid 0 or the policy's group; mutating
 * commands need uid 0. Replies render the manager's latest report; nothing here waits. */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "log.h"
#include "macro.h"
#include "gid_table.h"
#include "manager.h"
#include "nccl.h"
#include "reply_cache.h"
#include "report_json.h"
#include "strutil.h"

typedef json_object *(*command_fn)(struct manager *m, const struct manager_view *view, json_object *args,
                                   const char **code, char *msg, size_t len);

static bool in_group(const struct peer *peer, const char *group)
{
    struct group *g = group ? getgrnam(group) : NULL;
    if (!g)
        return false;
    if (peer->cred.gid == g->gr_gid)
        return true;
    for (size_t i = 0; i < peer->n_groups; i++)
        if (peer->groups[i] == g->gr_gid)
            return true;
    return false;
}

static json_object *no_report(void)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "verdict", json_object_new_string("UNKNOWN"));
    json_object_object_add(o, "reason", json_object_new_string("no full check has finished yet"));
    return o;
}

/* host.state_dir's message while it fails: status says that nothing will persist. */
static json_object *state_dir_error(const struct report *r)
{
    for (size_t i = 0; i < r->findings.n; i++) {
        const struct finding *f = &r->findings.items[i];
        if (streq(f->check, "host.state_dir") && f->severity == SEVERITY_ERROR)
            return json_object_new_string(f->message);
    }
    return NULL;
}

/* What runs, as status's header shows it (fabtunectl(1), STATUS). */
static json_object *daemon_json(const struct manager_view *view)
{
    json_object *d = json_object_new_object();
    json_object_object_add(d, "version", json_object_new_string(PACKAGE_VERSION));
    json_object_object_add(d, "policy", json_object_new_string(view->policy_source));
    json_object_object_add(d, "policy_sha256", view->policy_digest && view->policy_digest[0]
                           ? json_object_new_string(view->policy_digest) : NULL);
    json_object_object_add(d, "tuning_mode", json_object_new_string(tuning_mode_to_string(view->tuning_mode)));
    json_object_object_add(d, "started_usec", json_object_new_int64((int64_t)view->started));
    json_object_object_add(d, "last_reload_usec", view->last_reload
                           ? json_object_new_int64((int64_t)view->last_reload) : NULL);
    json_object_object_add(d, "state_dir", json_object_new_string(view->state_dir ? view->state_dir : ""));
    json_object_object_add(d, "runtime_dir", json_object_new_string(view->runtime_dir ? view->runtime_dir : ""));
    return d;
}

static json_object *cmd_status(struct manager *m, const struct manager_view *view, json_object *args,
                               const char **code, char *msg, size_t len)
{
    if (!view->report) {
        json_object *o = no_report();
        json_object_object_add(o, "daemon", daemon_json(view));
        return o;
    }
    json_object *o = reply_cache_status(view->replies, view->report);
    json_object_object_add(o, "daemon", daemon_json(view));
    json_object_object_add(o, "policy_error", view->reload_error[0]
                           ? json_object_new_string(view->reload_error) : NULL);
    json_object_object_add(o, "last_check_usec", json_object_new_int64((int64_t)view->last_check));
    json_object_object_add(o, "next_check_usec", view->next_check
                           ? json_object_new_int64((int64_t)view->next_check) : NULL);
    json_object_object_add(o, "next_probe_usec", view->next_probe
                           ? json_object_new_int64((int64_t)view->next_probe) : NULL);
    json_object_object_add(o, "last_check_started_usec",
                           json_object_new_int64((int64_t)view->report->started));
    json_object_object_add(o, "checks_done", json_object_new_int((int)view->checks_done));
    json_object_object_add(o, "probing", json_object_new_boolean(view->probing));
    json_object_object_add(o, "checking", json_object_new_boolean(view->checking));
    json_object_object_add(o, "state_dir_error", state_dir_error(view->report));
    return o;
}

static json_object *cmd_checks(struct manager *m, const struct manager_view *view, json_object *args,
                               const char **code, char *msg, size_t len)
{
    json_object *failed;
    if (!view->report)
        return json_object_new_array();
    bool only = args && json_object_object_get_ex(args, "failed", &failed) &&
                json_object_get_boolean(failed);
    return reply_cache_checks(view->replies, view->report, only);
}

static json_object *cmd_probes(struct manager *m, const struct manager_view *view, json_object *args,
                               const char **code, char *msg, size_t len)
{
    json_object *o = json_object_new_object(), *b = json_object_new_array();
    json_object_object_add(o, "last_run", view->report ? report_probes_json(view->report) : NULL);
    if (view->has_responder) {
        json_object *rs = json_object_new_object();
        json_object_object_add(rs, "sessions", json_object_new_int64((int64_t)view->responder.sessions));
        json_object_object_add(rs, "refused", json_object_new_int64((int64_t)view->responder.refused));
        json_object_object_add(rs, "busy", json_object_new_int64((int64_t)view->responder.busy));
        json_object_object_add(rs, "bad_hello", json_object_new_int64((int64_t)view->responder.bad_hello));
        json_object_object_add(rs, "active", json_object_new_int((int)view->responder.active));
        json_object_object_add(rs, "allowed_addresses", json_object_new_int((int)view->responder.allowed));
        json_object_object_add(o, "responder", rs);
    }
    for (size_t i = 0; i < view->baselines->n; i++) {
        const struct baseline *x = &view->baselines->e[i];
        json_object *j = json_object_new_object();
        double ratio = baseline_last_ratio(x);
        json_object_object_add(j, "key", json_object_new_string(x->key));
        json_object_object_add(j, "ready", json_object_new_boolean(x->ready));
        json_object_object_add(j, "learned_runs", json_object_new_int((int)x->n_learned));
        /* No baseline while learning: null, never 0. */
        json_object_object_add(j, "baseline_p50_seconds", x->ready ? json_object_new_double(x->p50) : NULL);
        json_object_object_add(j, "baseline_p99_seconds", x->ready ? json_object_new_double(x->p99) : NULL);
        json_object_object_add(j, "last_p50_seconds", json_object_new_double(x->last_p50));
        json_object_object_add(j, "last_p99_seconds", json_object_new_double(x->last_p99));
        json_object_object_add(j, "last_ratio", isnan(ratio) ? NULL : json_object_new_double(ratio));
        /* The last run's bounds and pooled p99 (baseline.h); null until a run was judged. */
        bool judged = x->ready && x->bound_p50 > 0;
        json_object_object_add(j, "bound_p50_seconds", judged ? json_object_new_double(x->bound_p50) : NULL);
        json_object_object_add(j, "bound_p99_seconds", judged ? json_object_new_double(x->bound_p99) : NULL);
        json_object_object_add(j, "pooled_p99_seconds", judged ? json_object_new_double(x->pooled_p99) : NULL);
        /* The state machine's state (baseline.h) and its counts, apart from the ratio. */
        json_object_object_add(j, "state", json_object_new_string(baseline_state_name(baseline_state(x))));
        json_object_object_add(j, "regressed", json_object_new_boolean(x->ready && x->degraded));
        json_object_object_add(j, "bad_runs", json_object_new_int64((int64_t)(x->ready ? x->bad_streak : 0)));
        json_object_object_add(j, "good_runs", json_object_new_int64((int64_t)(x->ready ? x->good_streak : 0)));
        /* A run over its bounds by no more than its wait for a CPU could make is shown,
         * not judged (baseline.h), with that wait beyond the usual. */
        json_object_object_add(j, "last_judged", json_object_new_boolean(!x->last_unjudged));
        json_object_object_add(j, "last_excess_cpu_wait_seconds", x->last_unjudged ?
                               json_object_new_double(x->last_excess_wait) : NULL);
        json_object_array_add(b, j);
    }
    json_object_object_add(o, "baselines", b);
    json_object_object_add(o, "running", json_object_new_boolean(view->probing));
    return o;
}

static json_object *cmd_tuning(struct manager *m, const struct manager_view *view, json_object *args,
                               const char **code, char *msg, size_t len)
{
    return view->report ? report_tuning_json(view->report) : json_object_new_array();
}

static json_object *cmd_nccl_env(struct manager *m, const struct manager_view *view, json_object *args,
                                 const char **code, char *msg, size_t len)
{
    json_object *o = json_object_new_object();
    if (!view->report)
        return o;
    _cleanup_free_ char *env = nccl_contract_render(&view->report->nccl, false);
    _cleanup_free_ char *conf = nccl_contract_render(&view->report->nccl, true);
    json_object_object_add(o, "env", json_object_new_string(env ? env : ""));
    json_object_object_add(o, "conf", json_object_new_string(conf ? conf : ""));
    return o;
}

static json_object *cmd_metrics(struct manager *m, const struct manager_view *view, json_object *args,
                                const char **code, char *msg, size_t len)
{
    json_object *o = json_object_new_object();
    json_object *text = view->report ? reply_cache_metrics(view->replies, view->report) : NULL;
    json_object_object_add(o, "text", text ? text : json_object_new_string(
        "# HELP fabtune_node_verdict 1 for the node's current verdict.\n"
        "# TYPE fabtune_node_verdict gauge\nfabtune_node_verdict{verdict=\"UNKNOWN\"} 1\n"));
    return o;
}

/* What a health line's perfdata and a drain reason need: rails ready of total, findings
 * by severity, and the failing checks ("check rail"), errors first, at most 8. */
static void health_counts(const struct report *r, json_object *o)
{
    const struct findings *fs = &r->findings;
    size_t ready = 0, by[SEVERITY_ERROR + 1] = { 0 };
    for (size_t i = 0; i < r->inventory.n_rails; i++)
        ready += report_rail_verdict(r, i) == VERDICT_READY;
    for (size_t i = 0; i < fs->n; i++)
        by[fs->items[i].severity]++;
    json_object_object_add(o, "rails", json_object_new_int64((int64_t)r->inventory.n_rails));
    json_object_object_add(o, "rails_ready", json_object_new_int64((int64_t)ready));
    json_object *counts = json_object_new_object();
    for (enum severity s = SEVERITY_OK; s <= SEVERITY_ERROR; s++)
        json_object_object_add(counts, severity_to_string(s), json_object_new_int64((int64_t)by[s]));
    json_object_object_add(o, "findings", counts);
    json_object *failing = json_object_new_array();
    for (enum severity s = SEVERITY_ERROR; s >= SEVERITY_WARNING; s--)
        for (size_t i = 0; i < fs->n && json_object_array_length(failing) < 8; i++) {
            const struct finding *f = &fs->items[i];
            char one[256];
            if (f->severity != s)
                continue;
            snprintf(one, sizeof(one), "%s%s%s", f->check, f->rail ? " " : "", f->rail ? f->rail : "");
            bool seen = false;
            for (size_t k = 0; k < json_object_array_length(failing) && !seen; k++)
                seen = streq(json_object_get_string(json_object_array_get_idx(failing, k)), one);
            if (!seen)
                json_object_array_add(failing, json_object_new_string(one));
        }
    json_object_object_add(o, "failing", failing);
}

static json_object *cmd_gids(struct manager *m, const struct manager_view *view, json_object *args,
                             const char **code, char *msg, size_t len)
{
    if (!view->report) {
        *code = "EAGAIN";
        snprintf(msg, len, "no full check has finished yet");
        return NULL;
    }
    return gid_table_json(view->report);
}

static json_object *cmd_neighbors(struct manager *m, const struct manager_view *view, json_object *args,
                                  const char **code, char *msg, size_t len)
{
    if (!view->report) {
        *code = "EAGAIN";
        snprintf(msg, len, "no full check has finished yet");
        return NULL;
    }
    return report_neighbors_json(view->report);
}

static json_object *cmd_health(struct manager *m, const struct manager_view *view, json_object *args,
                               const char **code, char *msg, size_t len)
{
    json_object *o = json_object_new_object();
    enum verdict v = view->report ? view->report->verdict : VERDICT_UNKNOWN;
    const struct finding *f = view->report ? findings_first_failing(&view->report->findings) : NULL;
    char first[512] = "";
    if (f)
        snprintf(first, sizeof(first), "%s%s%s: %s", f->check, f->rail ? " " : "",
                 f->rail ? f->rail : "", f->message);
    else if (!view->report)
        snprintf(first, sizeof(first), "no full check has finished yet");
    json_object_object_add(o, "verdict", json_object_new_string(verdict_to_string(v)));
    json_object_object_add(o, "first_failing", first[0] ? json_object_new_string(first) : NULL);
    /* fabtunectl --version shows it beside its own. */
    json_object_object_add(o, "version", json_object_new_string(PACKAGE_VERSION));
    if (view->report)
        health_counts(view->report, o);
    return o;
}

static json_object *cmd_reload(struct manager *m, const struct manager_view *view, json_object *args,
                               const char **code, char *msg, size_t len)
{
    unsigned first = manager_next_check(m);
    if (manager_reload(m) < 0) {
        *code = "EINVAL";
        struct manager_view now;
        manager_view(m, &now);
        snprintf(msg, len, "the policy is invalid; the old one stays:\n%s", now.reload_error);
        return NULL;
    }
    /* The policy now in force, and which check is the first under it: its pass runs in the
     * worker, so the client waits for checks_done to reach it (the reply does not). */
    struct manager_view now;
    manager_view(m, &now);
    json_object *o = json_object_new_object();
    json_object_object_add(o, "policy", json_object_new_string(now.policy_source));
    json_object_object_add(o, "first_check", json_object_new_int64(first));
    return o;
}

static json_object *cmd_probe_now(struct manager *m, const struct manager_view *view, json_object *args,
                                  const char **code, char *msg, size_t len)
{
    int r = manager_probe_now(m, true);
    if (r == -EBUSY) {
        *code = "EBUSY";
        snprintf(msg, len, "a probe run is already going");
        return NULL;
    }
    if (r == -EOPNOTSUPP) {
        *code = "ENOTSUP";
        snprintf(msg, len, "probes.enabled is false in the policy");
        return NULL;
    }
    if (r < 0) {
        *code = "EIO";
        snprintf(msg, len, "cannot start the probes: %s", errno_text(-r));
        return NULL;
    }
    return json_object_new_object();
}

/* "forget" {"rail":"mlx5_5/1"}: a rail gone from the inventory is no longer an error
 * (rails.gone). The reply names the pass that judges it (first_check), as reload's. */
static json_object *cmd_forget(struct manager *m, const struct manager_view *view, json_object *args,
                               const char **code, char *msg, size_t len)
{
    json_object *v;
    const char *rail = args && json_object_object_get_ex(args, "rail", &v) &&
                       json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
    if (!rail || !rail[0] || strlen(rail) != (size_t)json_object_get_string_len(v) ||
        strlen(rail) >= sizeof(((struct rail_memory *)0)->rail)) {
        *code = "EINVAL";
        snprintf(msg, len, "forget needs args {\"rail\": \"DEVICE/PORT\"}");
        return NULL;
    }
    unsigned first = manager_next_check(m);
    int r = manager_forget(m, rail);
    if (r == -ENOENT || r == -EEXIST) {
        *code = r == -ENOENT ? "ENOENT" : "EEXIST";
        snprintf(msg, len, r == -ENOENT ? "no rail %.80s in the link memory" :
                 "rail %.80s is in the inventory: only a gone rail can be forgotten", rail);
        return NULL;
    }
    if (r < 0) {
        *code = "EIO";
        snprintf(msg, len, "cannot forget %.80s: %s", rail, errno_text(-r));
        return NULL;
    }
    json_object *o = json_object_new_object();
    json_object_object_add(o, "rail", json_object_new_string(rail));
    json_object_object_add(o, "first_check", json_object_new_int64(first));
    return o;
}

/* An apply's or a revert's reply: the keys as the transaction left them, and the number of
 * the pass that judges them (FIRST, taken before it: manager_tune() folds the change into
 * one more pass), which the client waits for, as for a reload's first check, so that health
 * and status read the change once it returns. */
static json_object *tune_reply(struct tuning *t, unsigned first)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "keys", tuning_to_json(t));
    json_object_object_add(o, "first_check", json_object_new_int64(first));
    tuning_done(t);
    return o;
}

static json_object *cmd_apply(struct manager *m, const struct manager_view *view, json_object *args,
                              const char **code, char *msg, size_t len)
{
    struct tuning t;
    unsigned first = manager_next_check(m);
    int r = manager_tune(m, TUNING_APPLY, &t);
    json_object *o = tune_reply(&t, first);
    if (r == -ECANCELED) {
        json_object_put(o);
        *code = "ENOTSUP";
        snprintf(msg, len, "tuning.mode is off in the policy: 'apply' writes nothing");
        return NULL;
    }
    if (r < 0) {
        json_object_put(o);
        *code = "EIO";
        snprintf(msg, len, "the profile was not fully applied: %s (see 'fabtunectl tuning')",
                 errno_text(-r));
        return NULL;
    }
    return o;
}

static json_object *cmd_revert(struct manager *m, const struct manager_view *view, json_object *args,
                               const char **code, char *msg, size_t len)
{
    struct tuning t;
    unsigned first = manager_next_check(m);
    int r = manager_tune(m, TUNING_REVERT, &t);
    /* Each key's WANTED is the policy's, LIVE the original now live again, ORIGINAL it. */
    json_object *a = tune_reply(&t, first);
    if (r < 0 && r != -ENOENT) {
        json_object_put(a);
        *code = "EIO";
        snprintf(msg, len, "revert incomplete: %s; the snapshot stays", errno_text(-r));
        return NULL;
    }
    return a;
}

static const struct {
    const char *name;
    bool mutating;
    command_fn fn;
} commands[] = {
    { "status", false, cmd_status },
    { "checks", false, cmd_checks },
    { "probes", false, cmd_probes },
    { "tuning", false, cmd_tuning },
    { "nccl-env", false, cmd_nccl_env },
    { "metrics", false, cmd_metrics },
    { "gids", false, cmd_gids },
    { "neighbors", false, cmd_neighbors },
    { "health", false, cmd_health },
    { "reload", true, cmd_reload },
    { "probe-now", true, cmd_probe_now },
    { "apply", true, cmd_apply },
    { "revert", true, cmd_revert },
    { "forget", true, cmd_forget },
};

json_object *commands_run(void *manager, const char *cmd, json_object *args,
                          const struct peer *peer, const char **code, char *msg, size_t len)
{
    struct manager *m = manager;
    struct manager_view view;
    manager_view(m, &view);
    for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
        if (!streq(commands[i].name, cmd))
            continue;
        if (commands[i].mutating && peer->cred.uid != 0) {
            *code = "EPERM";
            snprintf(msg, len, "'%s' changes the node: it needs root", cmd);
            return NULL;
        }
        if (!commands[i].mutating && peer->cred.uid != 0 && !in_group(peer, view.control_group)) {
            *code = "EACCES";
            snprintf(msg, len, "'%s' needs root or membership of group '%s'", cmd,
                     view.control_group);
            return NULL;
        }
        log_debug("control", "%s from uid %u pid %d", cmd, (unsigned)peer->cred.uid,
                  (int)peer->cred.pid);
        return commands[i].fn(m, &view, args, code, msg, len);
    }
    *code = "ENOTSUP";
    snprintf(msg, len, "unknown command '%.64s'", cmd);
    return NULL;
}
