/* SPDX-License-Identifier: ISC */
/* Probe runs: the plan from the inventory, and its execution in a worker thread, pinned to
 * each HCA's NUMA node in turn. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "background.h"
#include "grow.h"
#include "log.h"
#include "macro.h"
#include "nccl_gid.h"
#include "peers.h"
#include "probe_defer.h"
#include "probe_isolation.h"
#include "probe_tcp.h"
#include "probe_rdma.h"
#include "probe_rdma_peer.h"
#include "probes_runner.h"
#include "strutil.h"
#include "sysfs.h"

static int add_target(struct probe_run *run, const char *name, struct probe_target **ret)
{
    int r = GROW_ARRAY(run->targets, run->cap_targets, run->n + 1, PROBE_MAX_TARGETS);
    if (r < 0)
        return r;
    struct probe_target *t = &run->targets[run->n++];
    memset(t, 0, sizeof(*t));
    strscpy(t->name, name, sizeof(t->name));
    t->numa_node = -1;
    *ret = t;
    return 0;
}

/* The rail's own IP: the address in its RoCE GID, else the netdev's first of the family. */
static void rail_address(const struct rail *r, const struct policy *p, struct probe_target *t)
{
    int idx = r->gid_index;
    if (idx >= 0 && (uint32_t)idx < r->n_gids && !gid_is_zero(r->gids[idx].raw) &&
        !gid_is_link_local(r->gids[idx].raw)) {
        const uint8_t *raw = r->gids[idx].raw;
        t->family = gid_family(raw);
        memcpy(t->addr, t->family == AF_INET ? raw + 12 : raw, t->family == AF_INET ? 4 : 16);
        t->has_addr = true;
        return;
    }
    for (size_t i = 0; i < r->netdev.n_addrs; i++)
        if (r->netdev.addrs[i].family == policy_roce_family(p)) {
            t->family = r->netdev.addrs[i].family;
            memcpy(t->addr, r->netdev.addrs[i].addr, 16);
            t->has_addr = true;
            return;
        }
}

static int add_cross_pairs(struct probe_run *run)
{
    size_t rdma[POLICY_MAX_RAILS], n = 0;
    for (size_t i = 0; i < run->n && n < POLICY_MAX_RAILS; i++)
        if (run->targets[i].rdma)
            rdma[n++] = i;
    if (n < 2)
        return 0;
    /* Each rail with the next, in a ring: every rail sends and receives once. */
    size_t pairs = n == 2 ? 1 : n;
    run->cross = calloc(pairs, sizeof(*run->cross));
    if (!run->cross)
        return -ENOMEM;
    for (size_t i = 0; i < pairs; i++) {
        const struct probe_target *a = &run->targets[rdma[i]], *b = &run->targets[rdma[(i + 1) % n]];
        struct probe_cross *c = &run->cross[run->n_cross++];
        snprintf(c->name, sizeof(c->name), "%s<>%s", a->name, b->name);
        c->a = a->ep;
        c->b = b->ep;
        c->ia = rdma[i];
        c->ib = rdma[(i + 1) % n];
    }
    return 0;
}

bool probes_rail_address(const struct rail *r, const struct policy *p, int *family, uint8_t addr[16])
{
    struct probe_target t;
    memset(&t, 0, sizeof(t));
    rail_address(r, p, &t);
    *family = t.family;
    memcpy(addr, t.addr, 16);
    return t.has_addr;
}

static unsigned rail_prefix(const struct rail *r, const struct probe_target *t)
{
    for (size_t i = 0; i < r->netdev.n_addrs; i++)
        if (r->netdev.addrs[i].family == t->family &&
            memcmp(r->netdev.addrs[i].addr, t->addr, t->family == AF_INET ? 4 : 16) == 0)
            return r->netdev.addrs[i].prefix_len;
    return 0;
}

static int add_peer(struct probe_run *run, const char *peer, const char *rail,
                    const struct policy *p, struct probe_peer **ret)
{
    int r = GROW_ARRAY(run->peers, run->cap_peers, run->n_peers + 1, PROBE_MAX_PEERS);
    if (r < 0)
        return r;
    struct probe_peer *e = &run->peers[run->n_peers++];
    memset(e, 0, sizeof(*e));
    strscpy(e->peer, peer, sizeof(e->peer));
    strscpy(e->rail, rail, sizeof(e->rail));
    e->family = policy_roce_family(p);
    e->port = (uint16_t)p->probes.peers.port;
    *ret = e;
    return 0;
}

/* Each rail with an address probes this node's k neighbours; a node without rails probes
 * them from the host, through the route's address. */
static int plan_peers(const struct inventory *inv, const struct policy *p, struct probe_run *run)
{
    struct peer_list list = { 0 };
    size_t pick[PROBE_MAX_NEIGHBOURS];
    if (!policy_peers_configured(p))
        return 0;
    peers_load(p, &list, run->peers_error, sizeof(run->peers_error));
    size_t n = peers_neighbours(&list, p->probes.peers.k, pick);
    int r = 0;
    for (size_t j = 0; j < n && r == 0; j++) {
        struct probe_peer *e;
        if (inv->n_rails == 0) {
            r = add_peer(run, list.hosts[pick[j]], "host", p, &e);
            continue;
        }
        for (size_t i = 0; i < inv->n_rails && r == 0; i++) {
            const struct probe_target *t = &run->targets[i];
            if ((r = add_peer(run, list.hosts[pick[j]], t->name, p, &e)) < 0)
                break;
            if (t->has_addr) {
                e->family = t->family;
                e->has_src = true;
                memcpy(e->src, t->addr, 16);
                e->src_prefix = rail_prefix(&inv->rails[i], t);
                e->rdma = true;
                strscpy(e->netdev, inv->rails[i].netdev.name, sizeof(e->netdev));
            }
        }
    }
    peer_list_done(&list);
    return r;
}

int probes_plan(const struct inventory *inv, const struct policy *p, struct probe_run *run)
{
    memset(run, 0, sizeof(*run));
    /* A hard bound per probe: the stream plus generous room for the ping-pong. */
    run->rdma = (struct probe_params){ .iterations = p->probes.rdma.iterations,
        .size = p->probes.rdma.size, .bw_duration = p->probes.rdma.bandwidth.duration,
        .bw_size = p->probes.rdma.bandwidth.size,
        .timeout = p->probes.rdma.bandwidth.duration + 10 * USEC_PER_SEC,
        .tos = policy_light_tos(p) };
    run->tcp = (struct probe_params){ .iterations = p->probes.tcp.iterations,
        .size = p->probes.tcp.size, .bw_duration = p->probes.tcp.bandwidth.duration,
        .timeout = p->probes.tcp.bandwidth.duration + 10 * USEC_PER_SEC,
        .tos = policy_light_tos(p) };

    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        struct probe_target *t;
        int err = add_target(run, r->name, &t);
        if (err < 0)
            return err;
        t->rdma = true;
        strscpy(t->ep.device, r->device, sizeof(t->ep.device));
        t->ep.port = (uint8_t)r->port;
        t->ep.gid_index = r->gid_index;
        t->numa_node = r->numa_node;
        t->port_rate = r->rate_gbps * 1e9 / 8;
        rail_address(r, p, t);
    }
    if (inv->n_rails == 0) {
        /* No rails: the loopback address, so --once still measures the host's stack. */
        struct probe_target *t;
        int err = add_target(run, "loopback", &t);
        if (err < 0)
            return err;
        t->family = AF_INET;
        inet_pton(AF_INET, "127.0.0.1", t->addr);
        t->has_addr = true;
    }
    int r = add_cross_pairs(run);
    return r < 0 ? r : plan_peers(inv, p, run);
}

void probes_done(struct probe_run *run)
{
    free(run->targets);
    free(run->cross);
    free(run->peers);
    memset(run, 0, sizeof(*run));
}

/* A path's results wait for WHY ("" : none do): its streams, and the ping-pongs of the
 * transports whose ping-pong is intensive (HEAVY); RDMA's only where it runs (RDMA). */
static void defer_results(struct probe_result *results, const char *why, const bool heavy[PROBE_TRANSPORT_COUNT],
                          bool rdma)
{
    for (enum probe_transport k = 0; k < PROBE_TRANSPORT_COUNT; k++) {
        if (k == PROBE_RDMA && !rdma)
            continue;
        strscpy(results[probe_kind_of(k, PROBE_BANDWIDTH)].deferred, why, PROBE_DEFERRED_MAX);
        strscpy(results[probe_kind_of(k, PROBE_LATENCY)].deferred, heavy[k] ? why : "",
                PROBE_DEFERRED_MAX);
    }
}

size_t probes_defer(struct probe_run *run, const struct counter_state *cs, const struct policy *p,
                    const char *job, bool rails, usec_t now)
{
    char why[PROBE_DEFERRED_MAX];
    size_t streams = 0;
    const bool heavy[PROBE_TRANSPORT_COUNT] = {
        [PROBE_RDMA] = probe_pingpong_intensive(p, PROBE_RDMA),
        [PROBE_TCP] = probe_pingpong_intensive(p, PROBE_TCP),
    };
    for (size_t i = 0; i < run->n; i++) {
        struct probe_target *t = &run->targets[i];
        /* a rail's target; the loopback address (no rails) has no rail traffic */
        probe_defer_why(p, rails && t->rdma, counters_find_const(cs, t->name), job, now, why,
                        sizeof(why));
        defer_results(t->result, why, heavy, t->rdma);
        streams += !why[0];
    }
    for (size_t i = 0; i < run->n_cross; i++) {
        struct probe_cross *c = &run->cross[i];
        const char *a = run->targets[c->ia].result[PROBE_RDMA_BANDWIDTH].deferred,
                   *b = run->targets[c->ib].result[PROBE_RDMA_BANDWIDTH].deferred;
        strscpy(c->bw.deferred, a[0] ? a : b, sizeof(why));
        strscpy(c->lat.deferred, heavy[PROBE_RDMA] ? c->bw.deferred : "", sizeof(why));
        streams += !c->bw.deferred[0];
    }
    for (size_t i = 0; i < run->n_peers; i++) {
        struct probe_peer *e = &run->peers[i];
        bool host = streq(e->rail, "host");
        probe_defer_why(p, rails && !host, host ? NULL : counters_find_const(cs, e->rail), job, now,
                        why, sizeof(why));
        defer_results(e->result, why, heavy, e->rdma);
        streams += !why[0];
    }
    return streams;
}

/* Finds the result of the same probe in PREV: the same target, or path. */
static const struct probe_result *previous(const struct probe_run *prev, const char *name,
                                           const char *rail, enum probe_kind k)
{
    for (size_t i = 0; prev && i < prev->n; i++)
        if (!rail && streq(prev->targets[i].name, name))
            return &prev->targets[i].result[k];
    for (size_t i = 0; prev && i < prev->n_peers; i++)
        if (rail && streq(prev->peers[i].peer, name) && streq(prev->peers[i].rail, rail))
            return &prev->peers[i].result[k];
    return NULL;
}

/* A deferred result takes PREV's figure, if that one had run (itself perhaps carried). */
static void carry(struct probe_result *r, const struct probe_result *old)
{
    if (!r->deferred[0] || !old || !old->ran || !old->at)
        return;
    char why[sizeof(r->deferred)];
    strscpy(why, r->deferred, sizeof(why));
    *r = *old;
    strscpy(r->deferred, why, sizeof(why));
    /* ...but not its cost: this run streamed nothing, nor waited for a CPU to */
    r->cpu_seconds = r->wall_seconds = r->cpu_wait_seconds = 0;
    r->bytes = 0;
}

/* The cross-rail pair's result of kind K (its latency, or its stream). */
static const struct probe_result *cross_result(const struct probe_run *prev, const char *name,
                                               enum probe_kind k)
{
    for (size_t i = 0; prev && i < prev->n_cross; i++)
        if (streq(prev->cross[i].name, name))
            return k == PROBE_RDMA_LATENCY ? &prev->cross[i].lat : &prev->cross[i].bw;
    return NULL;
}

/* Whether PREV measured kind K as RUN does: a figure of another message size is not this
 * probe's (a reload may change probes.*.size). */
static const struct probe_run *same_probe(const struct probe_run *run, const struct probe_run *prev,
                                          enum probe_kind k)
{
    bool rdma = probe_kinds[k].transport == PROBE_RDMA;
    const struct probe_params *a = rdma ? &run->rdma : &run->tcp;
    const struct probe_params *b = prev ? (rdma ? &prev->rdma : &prev->tcp) : NULL;
    if (!b)
        return NULL;
    return (probe_kinds[k].measure == PROBE_LATENCY ? a->size == b->size
                                                    : a->bw_size == b->bw_size) ? prev : NULL;
}

void probes_carry(struct probe_run *run, const struct probe_run *prev)
{
    /* The streams, and the intensive ping-pongs, wait (probes_defer). */
    for (size_t i = 0; i < run->n; i++)
        for (enum probe_kind k = 0; k < PROBE_KIND_COUNT; k++)
            carry(&run->targets[i].result[k],
                  previous(same_probe(run, prev, k), run->targets[i].name, NULL, k));
    for (size_t i = 0; i < run->n_cross; i++) {
        carry(&run->cross[i].lat, cross_result(same_probe(run, prev, PROBE_RDMA_LATENCY),
                                               run->cross[i].name, PROBE_RDMA_LATENCY));
        carry(&run->cross[i].bw, cross_result(same_probe(run, prev, PROBE_RDMA_BANDWIDTH),
                                              run->cross[i].name, PROBE_RDMA_BANDWIDTH));
    }
    for (size_t i = 0; i < run->n_peers; i++)
        for (enum probe_kind k = 0; k < PROBE_KIND_COUNT; k++)
            carry(&run->peers[i].result[k], previous(same_probe(run, prev, k), run->peers[i].peer,
                                                     run->peers[i].rail, k));
}

/* A deferred stream's parameters: no stream (bw_duration 0), the ping-pong only. */
static const struct probe_params *params_for(const struct probe_params *p, const char *deferred,
                                             struct probe_params *tmp)
{
    if (!deferred[0])
        return p;
    *tmp = *p;
    tmp->bw_duration = 0;
    return tmp;
}

/* After a probe ran: when, and the deferred stream's reason put back (the probe cleared
 * its results). */
static void ran_at(struct probe_result *lat, struct probe_result *bw, const char *deferred)
{
    usec_t now = now_usec(CLOCK_REALTIME), boot = now_usec(CLOCK_BOOTTIME);
    lat->at = now;
    lat->at_boot = boot;
    if (deferred[0]) {
        memset(bw, 0, sizeof(*bw));
        strscpy(bw->deferred, deferred, sizeof(bw->deferred));
    } else {
        bw->at = now;
        bw->at_boot = boot;
    }
}

/* Pins the calling thread to a NUMA node's CPUs (from /sys/devices/system/node). */
static void pin_to_node(int node, const cpu_set_t *all)
{
    char list[1024];
    cpu_set_t set;
    if (node < 0 || sysfs_read_line("/sys", list, sizeof(list), "devices/system/node/node%d/cpulist", node) < 0) {
        sched_setaffinity(0, sizeof(*all), all);
        return;
    }
    CPU_ZERO(&set);
    for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        unsigned lo, hi;
        int n = sscanf(tok, "%u-%u", &lo, &hi);
        if (n == 1)
            hi = lo;
        for (unsigned c = lo; n >= 1 && c <= hi && c < CPU_SETSIZE; c++)
            CPU_SET(c, &set);
    }
    CPU_AND(&set, &set, all);
    if (CPU_COUNT(&set) && sched_setaffinity(0, sizeof(set), &set) == 0)
        log_debug("probe", "probing on NUMA node %d", node);
}

/* The CPU time of one transport's latency and bandwidth probes. */
static double transport_cpu(const struct probe_result *results, enum probe_transport k)
{
    return results[probe_kind_of(k, PROBE_LATENCY)].cpu_seconds +
           results[probe_kind_of(k, PROBE_BANDWIDTH)].cpu_seconds;
}

void probes_execute(struct probe_run *run)
{
    cpu_set_t all;
    double t0 = probe_now(), cpu = 0;
    bool have_mask = sched_getaffinity(0, sizeof(all), &all) == 0;
    if (!have_mask)
        CPU_ZERO(&all);

    for (size_t i = 0; i < run->n; i++) {
        struct probe_target *t = &run->targets[i];
        struct probe_params tmp;
        char rdma_why[PROBE_DEFERRED_MAX], tcp_why[PROBE_DEFERRED_MAX];
        strscpy(rdma_why, t->result[PROBE_RDMA_BANDWIDTH].deferred, sizeof(rdma_why));
        strscpy(tcp_why, t->result[PROBE_TCP_BANDWIDTH].deferred, sizeof(tcp_why));
        if (have_mask)
            pin_to_node(t->numa_node, &all);
        /* An intensive ping-pong that waits: neither it nor its stream runs. */
        if (t->rdma && !t->result[PROBE_RDMA_LATENCY].deferred[0]) {
            probe_rdma_run(&t->ep, &t->ep, params_for(&run->rdma, rdma_why, &tmp),
                           &t->result[PROBE_RDMA_LATENCY], &t->result[PROBE_RDMA_BANDWIDTH]);
            ran_at(&t->result[PROBE_RDMA_LATENCY], &t->result[PROBE_RDMA_BANDWIDTH], rdma_why);
            cpu += transport_cpu(t->result, PROBE_RDMA);
        }
        if (!t->has_addr) {
            probe_fail(&t->result[PROBE_TCP_LATENCY], -EADDRNOTAVAIL,
                       "the rail has no address of the policy's family");
            probe_fail(&t->result[PROBE_TCP_BANDWIDTH], -EADDRNOTAVAIL,
                       "the rail has no address of the policy's family");
        } else if (!t->result[PROBE_TCP_LATENCY].deferred[0]) {
            /* (an intensive ping-pong that waits: neither it nor its stream runs) */
            probe_tcp_run(t->family, t->addr, params_for(&run->tcp, tcp_why, &tmp),
                          &t->result[PROBE_TCP_LATENCY], &t->result[PROBE_TCP_BANDWIDTH]);
            ran_at(&t->result[PROBE_TCP_LATENCY], &t->result[PROBE_TCP_BANDWIDTH], tcp_why);
            cpu += transport_cpu(t->result, PROBE_TCP);
        }
    }
    for (size_t i = 0; i < run->n_cross; i++) {
        struct probe_cross *c = &run->cross[i];
        struct probe_params tmp;
        char why[PROBE_DEFERRED_MAX];
        strscpy(why, c->bw.deferred, sizeof(why));
        if (c->lat.deferred[0])
            continue;           /* an intensive ping-pong waits, and its stream */
        probe_rdma_run(&c->a, &c->b, params_for(&run->rdma, why, &tmp), &c->lat, &c->bw);
        ran_at(&c->lat, &c->bw, why);
        cpu += c->lat.cpu_seconds + c->bw.cpu_seconds;
    }
    if (have_mask)
        sched_setaffinity(0, sizeof(all), &all);
    for (size_t i = 0; i < run->n_peers; i++) {
        struct probe_peer *e = &run->peers[i];
        uint8_t dst[16];
        char err[160];
        /* An intensive ping-pong waits, and its stream: the transport does not run. */
        bool rdma = e->rdma && !e->result[PROBE_RDMA_LATENCY].deferred[0],
             tcp = !e->result[PROBE_TCP_LATENCY].deferred[0];
        if (!rdma && !tcp)
            continue;
        int r = peers_resolve(e->peer, e->family, e->has_src ? e->src : NULL, e->src_prefix,
                              dst, err, sizeof(err));
        if (r < 0) {
            probe_fail(&e->result[PROBE_TCP_LATENCY], r, "%s", err);
            probe_fail(&e->result[PROBE_TCP_BANDWIDTH], r, "not run: %s", err);
            continue;
        }
        inet_ntop(e->family, dst, e->addr, sizeof(e->addr));
        struct probe_params tmp;
        char rdma_why[PROBE_DEFERRED_MAX], tcp_why[PROBE_DEFERRED_MAX];
        strscpy(rdma_why, e->result[PROBE_RDMA_BANDWIDTH].deferred, sizeof(rdma_why));
        strscpy(tcp_why, e->result[PROBE_TCP_BANDWIDTH].deferred, sizeof(tcp_why));
        struct probe_isolation *iso = probe_isolation_start(e, dst);
        if (rdma) {
            struct rdma_connect_neighbour *neighbour = probe_isolation_neighbour(iso);
            probe_rdma_peer_run(e->family, e->src, dst, e->port, params_for(&run->rdma, rdma_why, &tmp),
                                &e->result[PROBE_RDMA_LATENCY], &e->result[PROBE_RDMA_BANDWIDTH], neighbour);
            ran_at(&e->result[PROBE_RDMA_LATENCY], &e->result[PROBE_RDMA_BANDWIDTH], rdma_why);
            cpu += transport_cpu(e->result, PROBE_RDMA);
            probe_isolation_after(iso, e, ISOLATION_RDMA);
        }
        if (tcp) {
            probe_tcp_peer_run(e->family, e->has_src ? e->src : NULL, dst, e->port,
                               params_for(&run->tcp, tcp_why, &tmp),
                               &e->result[PROBE_TCP_LATENCY], &e->result[PROBE_TCP_BANDWIDTH]);
            ran_at(&e->result[PROBE_TCP_LATENCY], &e->result[PROBE_TCP_BANDWIDTH], tcp_why);
            cpu += transport_cpu(e->result, PROBE_TCP);
            probe_isolation_after(iso, e, ISOLATION_TCP);
        }
        probe_isolation_finish(iso, e);
    }
    run->wall_seconds = probe_now() - t0;
    run->cpu_seconds = cpu;
}

struct probe_job {
    pthread_t thread;
    struct probe_run *run;
    int notify_fd;
};

static void *job_main(void *arg)
{
    struct probe_job *job = arg;
    background_thread_enter_lowest();
    probes_execute(job->run);
    if (job->notify_fd >= 0) {
        char done = 1;
        while (write(job->notify_fd, &done, 1) < 0 && errno == EINTR)
            ;
    }
    return NULL;
}

int probes_start(struct probe_run *run, int notify_fd, struct probe_job **ret)
{
    struct probe_job *job = calloc(1, sizeof(*job));
    if (!job)
        return -ENOMEM;
    job->run = run;
    job->notify_fd = notify_fd;
    int r = pthread_create(&job->thread, NULL, job_main, job);
    if (r != 0) {
        free(job);
        return -r;
    }
    *ret = job;
    return 0;
}

void probes_join(struct probe_job *job)
{
    pthread_join(job->thread, NULL);
    free(job);
}

int probes_copy(const struct probe_run *from, struct probe_run *to)
{
    *to = *from;
    to->targets = from->n ? malloc(from->n * sizeof(*to->targets)) : NULL;
    to->cross = from->n_cross ? malloc(from->n_cross * sizeof(*to->cross)) : NULL;
    to->peers = from->n_peers ? malloc(from->n_peers * sizeof(*to->peers)) : NULL;
    if ((from->n && !to->targets) || (from->n_cross && !to->cross) || (from->n_peers && !to->peers)) {
        free(to->targets);
        free(to->cross);
        free(to->peers);
        memset(to, 0, sizeof(*to));
        return -ENOMEM;
    }
    if (from->n)
        memcpy(to->targets, from->targets, from->n * sizeof(*to->targets));
    if (from->n_cross)
        memcpy(to->cross, from->cross, from->n_cross * sizeof(*to->cross));
    if (from->n_peers)
        memcpy(to->peers, from->peers, from->n_peers * sizeof(*to->peers));
    to->cap_targets = from->n;      /* the room of the copy's own arrays */
    to->cap_peers = from->n_peers;
    return 0;
}
