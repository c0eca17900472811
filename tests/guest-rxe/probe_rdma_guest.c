/* SPDX-License-Identifier: ISC */
/* In-guest test of the RDMA probe on rxe0: sane numbers, no QP left behind (seen through
 * "rdma resource show qp" while this process still lives), and a clean failure when the
 * port is DOWN.   probe_rdma_guest DEVICE GID_INDEX PEER_NETDEV */
#include "config.h"

#include "guest_check.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>
#include <unistd.h>

#include "probe_clock.h"
#include "probe_rdma.h"
#include "stats.h"


/* QPs this process holds, as the kernel's resource tracking reports them. */
static int my_qps(void)
{
    char cmd[128], line[512];
    int n = 0;
    snprintf(cmd, sizeof(cmd), "rdma resource show qp 2>&1");
    FILE *f = popen(cmd, "r");
    if (!f)
        return -1;
    char pid[32];
    snprintf(pid, sizeof(pid), " pid %d ", (int)getpid());
    while (fgets(line, sizeof(line), f))
        if (strstr(line, pid))
            n++;
    pclose(f);
    return n;
}

/* The control: a QP this process creates must show up, or "no QP left" proves nothing. */
static void control(const char *device)
{
    int n = 0;
    struct ibv_device **list = ibv_get_device_list(&n);
    struct ibv_context *ctx = list && n ? ibv_open_device(list[0]) : NULL;
    struct ibv_pd *pd = ctx ? ibv_alloc_pd(ctx) : NULL;
    struct ibv_cq *cq = ctx ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
    struct ibv_qp_init_attr a = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
                                  .cap = { .max_send_wr = 1, .max_recv_wr = 1,
                                           .max_send_sge = 1, .max_recv_sge = 1 } };
    struct ibv_qp *qp = pd && cq ? ibv_create_qp(pd, &a) : NULL;
    check(qp && my_qps() == 1, "control: a QP of this process on %s is seen", device);
    if (qp)
        ibv_destroy_qp(qp);
    if (cq)
        ibv_destroy_cq(cq);
    if (pd)
        ibv_dealloc_pd(pd);
    if (ctx)
        ibv_close_device(ctx);
    if (list)
        ibv_free_device_list(list);
    check(my_qps() == 0, "control: and gone once destroyed");
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--bench") == 0) {
        /* One run, as ib_write_lat makes one, with the default policy's stream (200 ms):
         * print the one-way p50 and p99 in us, a timestamp's cost, and what the latency
         * and the bandwidth probe each cost (CPU s, wall s, payload bytes). */
        struct rdma_endpoint e = { .port = 1, .gid_index = atoi(argv[3]) };
        struct probe_params bp = { .iterations = 1000, .size = 8, .bw_duration = 200000,
                                   .bw_size = 65536, .timeout = 20000000 };
        struct probe_result l, b;
        snprintf(e.device, sizeof(e.device), "%s", argv[2]);
        probe_rdma_run(&e, &e, &bp, &l, &b);
        if (l.error)
            return 1;
        /* And what one clock_gettime costs here (the probe reads it once every few
         * milliseconds, for its deadline), what one read of the cycle counter costs (the
         * probe takes one per round trip), and the counter's calibrated rate in MHz. */
        double t0 = probe_now(), t1 = t0;
        for (int i = 0; i < 20000; i++)
            t1 = probe_now();
        double u0 = probe_now();
        for (int i = 0; i < 20000; i++)
            cycle_counter();    /* an asm volatile: each read is made */
        double u1 = probe_now();
        printf("%.2f %.2f %.0f %.4f %.4f %llu %.4f %.4f %llu %.0f %.1f\n", l.latency.p50 * 1e6,
               l.latency.p99 * 1e6, (t1 - t0) / 20000 * 1e9, l.cpu_seconds, l.wall_seconds,
               (unsigned long long)l.bytes, b.cpu_seconds, b.wall_seconds,
               (unsigned long long)b.bytes, (u1 - u0) / 20000 * 1e9,
               1e-6 / cycle_clock_seconds_per_cycle());
        return 0;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: %s DEVICE GID_INDEX PEER_NETDEV\n", argv[0]);
        return 2;
    }
    struct rdma_endpoint ep = { .port = 1, .gid_index = atoi(argv[2]) };
    snprintf(ep.device, sizeof(ep.device), "%s", argv[1]);
    struct probe_params p = { .iterations = 1000, .size = 8, .bw_duration = 200000,
                              .bw_size = 65536, .timeout = 20000000 };
    struct probe_result lat, bw;
    double p50s[3], p99s[3];

    control(argv[1]);
    for (int round = 0; round < 3; round++) {
        probe_rdma_run(&ep, &ep, &p, &lat, &bw);
        check(lat.ran && lat.error == 0, "round %d: latency probe ran (%s)", round,
              lat.error ? lat.error_text : "ok");
        check(lat.latency.n == 1000, "1000 samples (%zu)", lat.latency.n);
        check(lat.latency.min > 0 && lat.latency.p50 >= lat.latency.min &&
              lat.latency.p99 >= lat.latency.p50 && lat.latency.max >= lat.latency.p99,
              "ordered: min %.2f <= p50 %.2f <= p99 %.2f <= max %.2f us", lat.latency.min * 1e6,
              lat.latency.p50 * 1e6, lat.latency.p99 * 1e6, lat.latency.max * 1e6);
        check(lat.latency.p50 > 1e-7 && lat.latency.p50 < 1e-2, "p50 %.2f us is plausible",
              lat.latency.p50 * 1e6);
        check(bw.ran && bw.error == 0 && bw.bandwidth > 1e5, "bandwidth %.3f Gb/s",
              bw.bandwidth * 8 / 1e9);
        check(my_qps() == 0, "no QP of this process left after the probe");
        p50s[round] = lat.latency.p50;
        p99s[round] = lat.latency.p99;
    }
    struct stats m50, m99;
    stats_compute(p50s, 3, &m50);
    stats_compute(p99s, 3, &m99);
    printf("BENCH fabtune_rdma_probe size=8 runs=3 median_p50_us=%.2f median_p99_us=%.2f "
           "cpu_s=%.4f\n", m50.p50 * 1e6, m99.p50 * 1e6, lat.cpu_seconds);

    char cmd[128];
    snprintf(cmd, sizeof(cmd), "/usr/sbin/ip link set %s down", argv[3]);
    check(system(cmd) == 0, "%s", cmd);
    for (int i = 0; i < 50; i++) {
        FILE *f = fopen("/sys/class/infiniband/rxe0/ports/1/state", "re");
        char s[32] = "";
        if (f) {
            if (!fgets(s, sizeof(s), f))
                s[0] = '\0';
            fclose(f);
        }
        if (strstr(s, "DOWN"))
            break;
        usleep(100000);
    }
    probe_rdma_run(&ep, &ep, &p, &lat, &bw);
    check(lat.error == -ENETDOWN, "DOWN port: a clean failure (%s)", lat.error_text);
    check(bw.error != 0, "no bandwidth run on a DOWN port");
    check(my_qps() == 0, "no QP left after the failed probe");
    snprintf(cmd, sizeof(cmd), "/usr/sbin/ip link set %s up", argv[3]);
    check(system(cmd) == 0, "%s", cmd);

    return checks_finish();
}
