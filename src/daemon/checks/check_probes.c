/* SPDX-License-Identifier: ISC */
/* The probe findings: probe.{rdma,tcp}.{latency,bandwidth} against the policy's absolute
 * limits, and probe.regression from the baselines' state machine. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "macro.h"

/* A deferred probe's note: ' (stale: the stream is deferred, job 77 running)' after a
 * figure carried from an earlier run; "" for a fresh one. */
static void stale_note(const struct probe_result *r, const char *what, char *buf, size_t len)
{
    if (probe_result_stale(r))
        snprintf(buf, len, " (stale: the %s is deferred, %s)", what, r->deferred);
    else
        buf[0] = '\0';
}

static void latency(const char *id, const char *name, const struct probe_result *r,
                    double limit_us, struct findings *out)
{
    char want[32], got[64], stale[PROBE_DEFERRED_MAX + 40];
    if (!r->ran)
        return;
    /* A carried result, failed or over, is the last word on the path, said to be old. */
    stale_note(r, "ping-pong", stale, sizeof(stale));
    if (r->error) {
        findings_add(out, id, SEVERITY_ERROR, name, "a completed probe", "failed",
                     "a port that is up but carries no traffic: check the rail's GID, QoS and "
                     "the switch", "%s%s", r->error_text, stale);
        return;
    }
    double p50 = r->latency.p50 * 1e6, p99 = r->latency.p99 * 1e6;
    snprintf(got, sizeof(got), "p99 %.2f us", p99);
    snprintf(want, sizeof(want), "p99 <= %g us", limit_us);
    if (limit_us > 0 && p99 > limit_us)
        findings_add(out, id, SEVERITY_WARNING, name, want, got,
                     "probes.limits sets this bound", "p50 %.2f us, p99 %.2f us: over the limit%s",
                     p50, p99, stale);
    else
        findings_add(out, id, SEVERITY_OK, name, limit_us > 0 ? want : NULL, got, NULL,
                     "p50 %.2f us, p99 %.2f us%s%s", p50, p99,
                     probe_result_stale(r) ? ", stale: the ping-pong is deferred, " : "",
                     probe_result_stale(r) ? r->deferred : "");
}

static void bandwidth(const char *id, const char *name, const struct probe_result *r,
                      double min_bytes, struct findings *out)
{
    char want[48], got[48], stale[PROBE_DEFERRED_MAX + 40];
    if (!r->ran)
        return;
    stale_note(r, "stream", stale, sizeof(stale));
    if (r->error) {
        findings_add(out, id, SEVERITY_ERROR, name, "a completed probe", "failed", NULL, "%s%s",
                     r->error_text, stale);
        return;
    }
    snprintf(got, sizeof(got), "%.3f Gb/s%s", r->bandwidth * 8 / 1e9,
             probe_result_stale(r) ? " (stale)" : "");
    snprintf(want, sizeof(want), ">= %.3f Gb/s", min_bytes * 8 / 1e9);
    if (min_bytes > 0 && r->bandwidth < min_bytes)
        findings_add(out, id, SEVERITY_WARNING, name, want, got,
                     "probes.limits.rdma_min_bw_fraction of the port's rate",
                     "%.3f Gb/s is below the limit%s", r->bandwidth * 8 / 1e9, stale);
    else
        findings_add(out, id, SEVERITY_OK, name, min_bytes > 0 ? want : NULL, got, NULL,
                     "%.3f Gb/s%s%s", r->bandwidth * 8 / 1e9,
                     probe_result_stale(r) ? ", stale: the stream is deferred, " : "",
                     probe_result_stale(r) ? r->deferred : "");
}

/* The path's first failed probe, TCP's before RDMA's (TCP says best why a peer does not
 * answer at all); NULL when every probe that ran succeeded. */
static const struct probe_result *peer_failure(const struct probe_peer *e)
{
    static const enum probe_kind order[] = { PROBE_TCP_LATENCY, PROBE_TCP_BANDWIDTH,
                                             PROBE_RDMA_LATENCY, PROBE_RDMA_BANDWIDTH };
    for (size_t k = 0; k < ARRAY_SIZE(order); k++)
        if (e->result[order[k]].ran && e->result[order[k]].error)
            return &e->result[order[k]];
    return NULL;
}

#define PATH_FIGURES_MAX 320
/* One transport's figures on a peer path, for its finding: "p50 5.00 us, p99 9.00 us,
 * 8.000 Gb/s", each carried figure marked stale with why, and a probe that never ran said
 * to wait ("stream deferred: job 77 running"), never read as 0. */
static void path_figures(const struct probe_result *lat, const struct probe_result *bw,
                         char *buf, size_t len)
{
    char note[PROBE_DEFERRED_MAX + 40];
    if (!lat->ran) {
        snprintf(buf, len, "ping-pong %s%s", lat->deferred[0] ? "deferred: " : "not run",
                 lat->deferred);
        return;
    }
    stale_note(lat, "ping-pong", note, sizeof(note));
    int n = snprintf(buf, len, "p50 %.2f us, p99 %.2f us%s, ", lat->latency.p50 * 1e6,
                     lat->latency.p99 * 1e6, note);
    if (n < 0 || (size_t)n >= len)
        return;
    stale_note(bw, "stream", note, sizeof(note));
    if (bw->ran)
        snprintf(buf + n, len - (size_t)n, "%.3f Gb/s%s", bw->bandwidth * 8 / 1e9, note);
    else
        snprintf(buf + n, len - (size_t)n, "stream %s%s", bw->deferred[0] ? "deferred: " : "not run",
                 bw->deferred);
}

/* Each path to a neighbour: probe.peer, unknown when it failed (the path is unmeasured,
 * which is not this node's fault alone); probe.peers for the node: DEGRADED once as many
 * peers as the policy says are unreachable. */
static void peer_results(const struct probe_run *run, const struct policy *p, struct findings *out)
{
    char got[96], names[256] = "";
    size_t unreachable = 0, peers = 0;
    for (size_t i = 0; i < run->n_peers; i++) {
        const struct probe_peer *e = &run->peers[i];
        bool first = true, failed = false;
        for (size_t j = 0; j < i && first; j++)
            first = !streq(run->peers[j].peer, e->peer);
        for (size_t j = i; j < run->n_peers; j++)
            failed |= streq(run->peers[j].peer, e->peer) && peer_failure(&run->peers[j]);
        if (first) {
            peers++;
            if (failed && ++unreachable <= 4)
                snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
                         unreachable > 1 ? ", " : "", e->peer);
        }
        const struct probe_result *bad = peer_failure(e);
        const struct probe_result *rdma_lat = &e->result[PROBE_RDMA_LATENCY],
                                  *tcp_lat = &e->result[PROBE_TCP_LATENCY];
        if (bad) {
            /* No address: the name did not resolve here (its error says so), and nothing
             * of the peer's was tried: its fabtuned is not the question. */
            findings_add(out, "probe.peer", SEVERITY_UNKNOWN, e->rail, "a completed probe", "failed",
                         !*e->addr ? "the peer's name did not resolve on this node: check DNS or "
                                     "/etc/hosts for it, or list the peer by address in probes.peers"
                         : "is fabtuned running on the peer, with this node in its probes.peers, "
                         "and its port reachable?", "%s%s%s%s: %s%s", e->peer, *e->addr ? " (" : "",
                         e->addr, *e->addr ? ")" : "",
                         probe_kinds[bad - e->result].transport == PROBE_RDMA ? "RDMA: " : "",
                         bad->error_text);
        } else {
            char tcp[PATH_FIGURES_MAX], rdma[PATH_FIGURES_MAX] = "";
            path_figures(tcp_lat, &e->result[PROBE_TCP_BANDWIDTH], tcp, sizeof(tcp));
            /* (a path from the host has no RDMA probe, whose results only say it waits) */
            if (rdma_lat->ran || (e->rdma && rdma_lat->deferred[0]))
                path_figures(rdma_lat, &e->result[PROBE_RDMA_BANDWIDTH], rdma, sizeof(rdma));
            if (tcp_lat->ran)
                snprintf(got, sizeof(got), "p99 %.2f us", tcp_lat->latency.p99 * 1e6);
            else
                snprintf(got, sizeof(got), "deferred");
            findings_add(out, "probe.peer", SEVERITY_OK, e->rail, NULL, got, NULL,
                         "%s%s%s%s: TCP %s%s%s", e->peer, *e->addr ? " (" : "", e->addr,
                         *e->addr ? ")" : "", tcp, rdma[0] ? "; RDMA " : "", rdma);
        }
        findings_set_subject(out, e->peer);
    }
    if (!policy_peers_configured(p))
        return;
    uint32_t limit = p->probes.peers.unreachable_degraded;
    snprintf(got, sizeof(got), "%zu of %zu unreachable", unreachable, peers);
    if (*run->peers_error)
        findings_add(out, "probe.peers", SEVERITY_WARNING, NULL, "a readable peers file", "unreadable",
                     "fix the file probes.peers.file names", "%s", run->peers_error);
    else if (peers == 0)
        findings_add(out, "probe.peers", SEVERITY_OK, NULL, NULL, got, NULL,
                     "no neighbour to probe: probes.peers lists no other node");
    else if (limit && unreachable >= limit)
        findings_add(out, "probe.peers", SEVERITY_WARNING, NULL, NULL, got,
                     "probes.peers.unreachable_degraded sets how many unreachable peers degrade",
                     "%zu of %zu peer%s unreachable (%s%s)", unreachable, peers, PLURAL_S(peers), names,
                     unreachable > 4 ? ", ..." : "");
    else
        findings_add(out, "probe.peers", SEVERITY_OK, NULL, NULL, got, NULL,
                     "%zu of %zu peer%s unreachable%s%s%s", unreachable, peers, PLURAL_S(peers),
                     unreachable ? " (" : "", names, unreachable ? ")" : "");
}

/* The policy's bound on a target's result of kind K: the p99 in us for a latency, the
 * bytes per second for a bandwidth; 0: none. */
static double limit_of(enum probe_kind k, const struct probe_target *t, const struct policy *p)
{
    switch (k) {
    case PROBE_RDMA_LATENCY: return p->probes.limits.rdma_p99_us;
    case PROBE_RDMA_BANDWIDTH: return p->probes.limits.rdma_min_bw_fraction * t->port_rate;
    case PROBE_TCP_LATENCY: return p->probes.limits.tcp_p99_us;
    default: return 0;
    }
}

void check_probe_results(const struct probe_run *run, const struct policy *p,
                         struct findings *out)
{
    for (size_t i = 0; i < run->n; i++) {
        const struct probe_target *t = &run->targets[i];
        for (enum probe_kind k = 0; k < PROBE_KIND_COUNT; k++) {
            const char *id = probe_kinds[k].check;
            if (probe_kinds[k].measure == PROBE_LATENCY)
                latency(id, t->name, &t->result[k], limit_of(k, t, p), out);
            else
                bandwidth(id, t->name, &t->result[k], limit_of(k, t, p), out);
        }
    }
    for (size_t i = 0; i < run->n_cross; i++) {
        const struct probe_cross *c = &run->cross[i];
        latency(probe_kinds[PROBE_RDMA_LATENCY].check, c->name, &c->lat,
                p->probes.limits.rdma_p99_us, out);
        bandwidth(probe_kinds[PROBE_RDMA_BANDWIDTH].check, c->name, &c->bw, 0, out);
    }
    peer_results(run, p, out);
}

/* Which of the last run's figures went over its bound: ": p50 X us over Y" and/or ": p99
 * X us, the last K runs' median Z us, over Y". */
static void regression_over(const struct baseline *b, uint32_t k, char *buf, size_t len)
{
    int n = 0;
    if (b->last_p50 > b->bound_p50)
        n = snprintf(buf, len, ": p50 %.2f us over %.2f", b->last_p50 * 1e6, b->bound_p50 * 1e6);
    if (n >= 0 && (size_t)n < len && b->last_p99 > b->bound_p99 && b->pooled_p99 > b->bound_p99)
        snprintf(buf + n, len - (size_t)n,
                 "%s p99 %.2f us, the last %u runs' median %.2f us, over %.2f", n ? ";" : ":", b->last_p99 * 1e6, k, b->pooled_p99 * 1e6, b->bound_p99 * 1e6);
}

/* What a baseline's key "TARGET PROBE SIZE[ @PEER]" measures, without its target (the
 * finding's rail, beside the message wherever it is shown): "tcp 64-byte ping-pong[ to
 * PEER]". */
static void regression_what(const char *key, char *buf, size_t len)
{
    const char *rest = strchr(key, ' '), *peer = strstr(key, " @");
    char probe[16];
    unsigned size;
    if (rest && sscanf(rest, " %15s %u", probe, &size) == 2)
        snprintf(buf, len, "%s %u-byte ping-pong%s%s", probe, size, peer ? " to " : "",
                 peer ? peer + 2 : "");
    else
        snprintf(buf, len, "%s", key);
}

/* probe.regression says the state machine's state and the last run's ratio, each for
 * itself: a run 16x the baseline is "suspect" (1 of K bad runs) before K make it
 * "regressed", and a regressed probe whose runs are back within is "recovering" (good runs
 * counted), still a warning until K clear it. */
void check_regressions(const struct baselines *all, const struct probe_run *run,
                       const struct policy *p, struct findings *out)
{
    char want[64], got[64], rail[352], what[384];
    double ratio = p->probes.regression.ratio;
    uint32_t k = p->probes.regression.consecutive;
    for (size_t i = 0; i < all->n; i++) {
        const struct baseline *b = &all->e[i];
        if (run && !baselines_key_probed(run, b->key))
            continue;           /* kept for its return, judged by nothing now */
        /* The key is "TARGET PROBE SIZE"; the finding's rail is the target. */
        snprintf(rail, sizeof(rail), "%s", b->key);
        rail[strcspn(rail, " ")] = '\0';
        const char *peer = strstr(b->key, " @");
        regression_what(b->key, what, sizeof(what));
        snprintf(got, sizeof(got), "p50 %.2f us, p99 %.2f us", b->last_p50 * 1e6, b->last_p99 * 1e6);
        enum baseline_state st = baseline_state(b);
        if (st == BASELINE_LEARNING) {
            findings_add(out, "probe.regression", SEVERITY_UNKNOWN, rail, NULL, got, NULL,
                         "%s: learning the baseline (%u of %u runs)", what, b->n_learned,
                         p->probes.regression.baseline_runs);
            if (peer)
                findings_set_subject(out, peer + 2);
            continue;
        }
        double last = baseline_last_ratio(b);
        /* The last run's bounds (ratio or minimum excess, and the path's own tail noise);
         * a state file of before them: the ratio's. */
        bool judged = b->bound_p50 > 0 && b->bound_p99 > 0;
        snprintf(want, sizeof(want), "<= %.2f/%.2f us (x%g)",
                 (judged ? b->bound_p50 : b->p50 * ratio) * 1e6,
                 (judged ? b->bound_p99 : b->p99 * ratio) * 1e6, ratio);
        char over[128] = "", unjudged[160] = "";
        if (judged && b->last_bad && !b->last_unjudged)
            regression_over(b, k, over, sizeof(over));
        if (b->last_unjudged)
            snprintf(unjudged, sizeof(unjudged), "; the last run not judged: its threads "
                     "waited %.1f ms more than usual for a CPU, enough for all it was over by "
                     "(a busy node, not the path)", b->last_excess_wait * 1e3);
        switch (st) {
        case BASELINE_REGRESSED:
            findings_add(out, "probe.regression", SEVERITY_WARNING, rail, want, got,
                         "this node is slower than it was: check counters, PFC storms, link "
                         "flaps and competing load",
                         "%s regressed: last run %.1fx baseline p50 %.2f us / p99 %.2f us "
                         "(over x%g%s), %u bad run%s in a row; %u good in a row clear it%s",
                         what, last, b->p50 * 1e6, b->p99 * 1e6, ratio, over, b->bad_streak,
                         PLURAL_S(b->bad_streak), k, unjudged);
            break;
        case BASELINE_RECOVERING:
            findings_add(out, "probe.regression", SEVERITY_WARNING, rail, want, got,
                         "the probe is back within its baseline; it clears after "
                         "probes.regression.consecutive good runs in a row",
                         "%s regressed, recovering: last run %.1fx baseline p50 %.2f us / p99 "
                         "%.2f us (%s x%g), %u of %u good runs in a row to clear%s",
                         what, last, b->p50 * 1e6, b->p99 * 1e6,
                         b->last_unjudged ? "not judged against" : "within", ratio,
                         b->good_streak, k, unjudged);
            break;
        case BASELINE_SUSPECT:
            findings_add(out, "probe.regression", SEVERITY_OK, rail, want, got, NULL,
                         "%s suspect: last run %.1fx baseline p50 %.2f us / p99 %.2f us "
                         "(over x%g%s), %u of %u bad runs in a row to regress%s",
                         what, last, b->p50 * 1e6, b->p99 * 1e6, ratio, over, b->bad_streak, k,
                         unjudged);
            break;
        default:
            findings_add(out, "probe.regression", SEVERITY_OK, rail, want, got, NULL,
                         "%s ok: last run %.1fx baseline p50 %.2f us / p99 %.2f us (%s x%g)%s",
                         what, last, b->p50 * 1e6, b->p99 * 1e6,
                         b->last_unjudged ? "not judged against" : "within", ratio, unjudged);
            break;
        }
        if (peer)
            findings_set_subject(out, peer + 2);
    }
}
