/* SPDX-License-Identifier: ISC */
/* The routes source's cost per check pass: source_routes_fill() live on N rails (netdevs
 * r1..rN with their IPv4 addresses) against the peers of POLICY, RUNS times; prints the
 * median, min and max wall time, and the lookups it made. bench/routes.sh builds it and
 * runs it on a network-namespace node.
 *   routes_source POLICY N RUNS */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "inventory.h"
#include "policy.h"
#include "source_routes.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    struct policy p;
    struct policy_errors errs = { 0 };
    if (argc != 4 || policy_load_file(argv[1], &p, &errs) < 0) {
        fprintf(stderr, "usage: routes_source POLICY N RUNS (a loadable policy)\n");
        return 2;
    }
    int n = atoi(argv[2]), runs = atoi(argv[3]);
    double *t = calloc((size_t)runs, sizeof(*t));
    size_t lookups = 0, neigh = 0;
    for (int k = 0; k < runs; k++) {
        struct inventory inv = { 0 };
        for (int i = 1; i <= n; i++) {
            char dev[16];
            snprintf(dev, sizeof(dev), "rxe%d", i - 1);
            struct rail *r = inventory_add_rail(&inv, dev, 1);
            strcpy(r->link_layer, "Ethernet");
            r->node_type = 1;
            r->gid_index = -1;
            snprintf(r->netdev.name, sizeof(r->netdev.name), "r%d", i);
            r->netdev.present = true;
            r->netdev.n_addrs = 1;
            r->netdev.addrs[0].family = AF_INET;
            r->netdev.addrs[0].prefix_len = 16;
            char a[16];
            snprintf(a, sizeof(a), "10.8.0.%d", i);
            inet_pton(AF_INET, a, r->netdev.addrs[0].addr);
        }
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        source_routes_fill("/sys", "/proc", true, &p, &inv);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        t[k] = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        lookups = neigh = 0;
        for (size_t i = 0; i < inv.n_rails; i++) {
            lookups += inv.rails[i].routes.n_lookups;
            neigh += inv.rails[i].routes.n_neigh;
            if (!inv.rails[i].routes.known)
                fprintf(stderr, "%s: %s\n", inv.rails[i].netdev.name, inv.rails[i].routes.why);
        }
        inventory_done(&inv);
    }
    qsort(t, (size_t)runs, sizeof(*t), cmp);
    printf("routes source, %d rails: median %.2f ms (min %.2f, max %.2f) over %d runs; "
           "%zu lookups, %zu neighbour entries per pass\n", n, t[runs / 2] * 1e3, t[0] * 1e3,
           t[runs - 1] * 1e3, runs, lookups, neigh);
    free(t);
    policy_done(&p);
    return 0;
}
