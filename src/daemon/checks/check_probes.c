/* SPDX-License-Identifier: ISC */
/* The probe findings: probe.{rdma,tcp}.{latency,bandwidth} against the policy's absolute
 * limits, and probe.regression from the baselines' state machine. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "macro.h"
#include "peers.h"

static void latency(const char *id, const char *name, const struct probe_result *r,
                    double limit_us, struct findings *out)
{
    char want[32], got[64];
    if (!r->ran)
        return;
    if (r->error) {
        findings_add(out, id, SEVERITY_ERROR, name, "a completed probe", "failed",
                     "a port that is up but carries no traffic: check the rail's GID, QoS and "
                     "the switch", "%s", r->error_text);
        return;
    }
    double p50 = r->latency.p50 * 1e6, p99 = r->latency.p99 * 1e6;
    snprintf(got, sizeof(got), "p99 %.2f us", p99);
    snprintf(want, sizeof(want), "p99 <= %g us", limit_us);
    if (limit_us > 0 && p99 > limit_us)
        findings_add(out, id, SEVERITY_WARNING, name, want, got,
                     "probes.limits sets this bound", "p50 %.2f us, p99 %.2f us: over the limit",
                     p50, p99);
    else
        findings_add(out, id, SEVERITY_OK, name, limit_us > 0 ? want : NULL, got, NULL,
                     "p50 %.2f us, p99 %.2f us", p50, p99);
}

static void bandwidth(const char *id, const char *name, const struct probe_result *r,
                      double min_bytes, struct findings *out)
{
    char want[48], got[48];
    if (!r->ran)
        return;
    if (r->error) {
        findings_add(out, id, SEVERITY_ERROR, name, "a completed probe", "failed", NULL, "%s",
                     r->error_text);
        return;
    }
    snprintf(got, sizeof(got), "%.3f Gb/s", r->bandwidth * 8 / 1e9);
    snprintf(want, sizeof(want), ">= %.3f Gb/s", min_bytes * 8 / 1e9);
    if (min_bytes > 0 && r->bandwidth < min_bytes)
        findings_add(out, id, SEVERITY_WARNING, name, want, got,
                     "probes.limits.rdma_min_bw_fraction of the port's rate",
                     "%.3f Gb/s is below the limit", r->bandwidth * 8 / 1e9);
    else
        findings_add(out, id, SEVERITY_OK, name, min_bytes > 0 ? want : NULL, got, NULL,
                     "%.3f Gb/s", r->bandwidth * 8 / 1e9);
}

/* The path's first failed probe, TCP's before RDMA's (TCP says best why a peer does not
 * answer at all); NULL when every probe that ran succeeded. */
static const struct probe_result *peer_failure(const struct probe_peer *e)
{
    const struct probe_result *order[] = { &e->tcp_lat, &e->tcp_bw, &e->rdma_lat, &e->rdma_bw };
    for (size_t k = 0; k < ARRAY_SIZE(order); k++)
        if (order[k]->ran && order[k]->error)
            return order[k];
    return NULL;
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
        if (bad) {
            findings_add(out, "probe.peer", SEVERITY_UNKNOWN, e->rail, "a completed probe", "failed",
                         "is fabtuned running on the peer, with this node in its probes.peers, "
                         "and its port reachable?", "%s%s%s%s: %s%s", e->peer, *e->addr ? " (" : "",
                         e->addr, *e->addr ? ")" : "",
                         bad == &e->rdma_lat || bad == &e->rdma_bw ? "RDMA: " : "", bad->error_text);
        } else {
            char rdma[96] = "";
            if (e->rdma_lat.ran)
                snprintf(rdma, sizeof(rdma), "; RDMA p50 %.2f us, p99 %.2f us, %.3f Gbit/s",
                         e->rdma_lat.latency.p50 * 1e6, e->rdma_lat.latency.p99 * 1e6,
                         e->rdma_bw.bandwidth * 8 / 1e9);
            snprintf(got, sizeof(got), "p99 %.2f us", e->tcp_lat.latency.p99 * 1e6);
            findings_add(out, "probe.peer", SEVERITY_OK, e->rail, NULL, got, NULL,
                         "%s (%s): TCP p50 %.2f us, p99 %.2f us, %.3f Gbit/s%s", e->peer, e->addr,
                         e->tcp_lat.latency.p50 * 1e6, e->tcp_lat.latency.p99 * 1e6,
                         e->tcp_bw.bandwidth * 8 / 1e9, rdma);
        }
        findings_set_subject(out, e->peer);
    }
    if (!peers_configured(p))
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
                     "%zu of %zu peers unreachable (%s%s)", unreachable, peers, names,
                     unreachable > 4 ? ", ..." : "");
    else
        findings_add(out, "probe.peers", SEVERITY_OK, NULL, NULL, got, NULL,
                     "%zu of %zu peers unreachable%s%s%s", unreachable, peers,
                     unreachable ? " (" : "", names, unreachable ? ")" : "");
}

void check_probe_results(const struct probe_run *run, const struct policy *p,
                         struct findings *out)
{
    const double frac = p->probes.limits.rdma_min_bw_fraction;
    for (size_t i = 0; i < run->n; i++) {
        const struct probe_target *t = &run->targets[i];
        latency("probe.rdma.latency", t->name, &t->rdma_lat, p->probes.limits.rdma_p99_us, out);
        bandwidth("probe.rdma.bandwidth", t->name, &t->rdma_bw, frac * t->port_rate, out);
        latency("probe.tcp.latency", t->name, &t->tcp_lat, p->probes.limits.tcp_p99_us, out);
        bandwidth("probe.tcp.bandwidth", t->name, &t->tcp_bw, 0, out);
    }
    for (size_t i = 0; i < run->n_cross; i++) {
        const struct probe_cross *c = &run->cross[i];
        latency("probe.rdma.latency", c->name, &c->lat, p->probes.limits.rdma_p99_us, out);
        bandwidth("probe.rdma.bandwidth", c->name, &c->bw, 0, out);
    }
    peer_results(run, p, out);
}

void check_regressions(const struct baselines *all, const struct policy *p,
                       struct findings *out)
{
    char want[64], got[64], rail[352];
    for (size_t i = 0; i < all->n; i++) {
        const struct baseline *b = &all->e[i];
        /* The key is "TARGET PROBE SIZE"; the finding's rail is the target. */
        snprintf(rail, sizeof(rail), "%s", b->key);
        rail[strcspn(rail, " ")] = '\0';
        const char *peer = strstr(b->key, " @");
        snprintf(got, sizeof(got), "p50 %.2f us, p99 %.2f us", b->last_p50 * 1e6, b->last_p99 * 1e6);
        if (!b->ready) {
            findings_add(out, "probe.regression", SEVERITY_UNKNOWN, rail, NULL, got, NULL,
                         "%s: learning the baseline (%u of %u runs)", b->key, b->n_learned,
                         p->probes.regression.baseline_runs);
            if (peer)
                findings_set_subject(out, peer + 2);
            continue;
        }
        snprintf(want, sizeof(want), "<= %.2f/%.2f us (x%g)", b->p50 * p->probes.regression.ratio * 1e6,
                 b->p99 * p->probes.regression.ratio * 1e6, p->probes.regression.ratio);
        if (b->degraded)
            findings_add(out, "probe.regression", SEVERITY_WARNING, rail, want, got,
                         "this node is slower than it was: check counters, PFC storms, link "
                         "flaps and competing load",
                         "%s regressed: %u of the last runs over baseline p50 %.2f us / p99 %.2f us x %g",
                         b->key, b->bad_streak, b->p50 * 1e6, b->p99 * 1e6,
                         p->probes.regression.ratio);
        else
            findings_add(out, "probe.regression", SEVERITY_OK, rail, want, got, NULL,
                         "%s within baseline p50 %.2f us / p99 %.2f us", b->key, b->p50 * 1e6,
                         b->p99 * 1e6);
        if (peer)
            findings_set_subject(out, peer + 2);
    }
}
