/* SPDX-License-Identifier: ISC */
/* The routes inventory's small rules: the effective interface sysctls, a lookup by
 * destination, source routing. */
#include "config.h"

#include <arpa/inet.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <string.h>

#include "routes.h"

void rail_routes_done(struct rail_routes *rr)
{
    free(rr->lookups);
    free(rr->rules);
    free(rr->routes);
    free(rr->neigh);
    memset(rr, 0, sizeof(*rr));
}

const struct route_lookup *rail_routes_lookup(const struct rail_routes *rr, uint32_t dst,
                                              bool bound)
{
    for (size_t i = 0; i < rr->n_lookups; i++)
        if (rr->lookups[i].dst == dst && (rr->lookups[i].oif_asked != 0) == bound)
            return &rr->lookups[i];
    return NULL;
}

static int max_of(int a, int b)
{
    return a < 0 || b < 0 ? -1 : a > b ? a : b;
}

int rail_routes_rp_filter(const struct rail_routes *rr)
{
    return rr->sysctls_known ? max_of(rr->all.rp_filter, rr->dev.rp_filter) : -1;
}

int rail_routes_arp_ignore(const struct rail_routes *rr)
{
    return rr->sysctls_known ? max_of(rr->all.arp_ignore, rr->dev.arp_ignore) : -1;
}

int rail_routes_arp_announce(const struct rail_routes *rr)
{
    return rr->sysctls_known ? max_of(rr->all.arp_announce, rr->dev.arp_announce) : -1;
}

int rail_routes_accept_local(const struct rail_routes *rr)
{
    return rr->sysctls_known ? max_of(rr->all.accept_local, rr->dev.accept_local) : -1;
}

const char *routes_addr_text(uint32_t a, char *buf, size_t len)
{
    struct in_addr in = { .s_addr = a };
    if (!inet_ntop(AF_INET, &in, buf, (socklen_t)len))
        buf[0] = '\0';
    return buf;
}

bool rail_routes_source_routed(const struct rail_routes *rr, uint32_t *table)
{
    for (size_t i = 0; i < rr->n_rules; i++) {
        const struct route_rule *u = &rr->rules[i];
        if (u->action != FR_ACT_TO_TBL || u->src_len == 0 || u->table == RT_TABLE_MAIN ||
            u->table == RT_TABLE_LOCAL || u->table == RT_TABLE_DEFAULT ||
            routes_subnet(rr->addr, u->src_len) != u->src)
            continue;
        *table = u->table;
        for (size_t j = 0; j < rr->n_routes; j++) {
            const struct route_entry *e = &rr->routes[j];
            if (e->table == u->table && e->dst_len <= rr->prefix_len &&
                routes_subnet(rr->addr, e->dst_len) == e->dst)
                return true;
        }
    }
    return false;
}
