/* SPDX-License-Identifier: ISC */
/* libFuzzer target for the routing conversation's parser (sources/route_parse.c: rtnetlink
 * requests and the kernel's RTM_NEWLINK, NEWADDR, NEWRULE, NEWROUTE, NEWNEIGH and
 * NLMSG_ERROR replies): any bytes are parsed as two rails' conversations (the whole input,
 * and its second half), and what comes out is judged by the route.* checks, which compare
 * the rails' neighbours and MACs with each other. Never a crash, an out-of-bounds read or
 * undefined behaviour; the tables stay within their bounds; a malformed stream says why. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "route_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* RR from an exact-size copy of LEN bytes (malloc'd, so 4-byte aligned as a read file is),
 * so that ASan sees any read past the end. */
static void parse(const uint8_t *data, size_t len, struct rail_routes *rr)
{
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf)
        return;
    memcpy(buf, data, len);
    int err = route_parse_stream(buf, len, rr);
    if (err < 0 && !rr->why[0])
        abort();                /* every refusal carries its reason */
    if (rr->n_lookups > ROUTES_MAX_LOOKUPS || rr->n_rules > ROUTES_MAX_RULES ||
        rr->n_routes > ROUTES_MAX_ROUTES || rr->n_neigh > ROUTES_MAX_NEIGH ||
        rr->n_addrs > sizeof(rr->addrs) / sizeof(rr->addrs[0]) || rr->prefix_len > 32)
        abort();
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct inventory inv = { 0 };
    struct policy pol;
    struct findings fs = { 0 };
    policy_init_defaults(&pol);
    for (int i = 0; i < 2; i++) {
        struct rail *r = inventory_add_rail(&inv, i ? "rxe1" : "rxe0", 1);
        if (!r)
            break;
        strcpy(r->name, i ? "rxe1/1" : "rxe0/1");
        strcpy(r->link_layer, "Ethernet");
        strcpy(r->netdev.name, i ? "eth1" : "eth0");
        r->netdev.present = true;
        size_t off = i ? (size / 2) & ~(size_t)3 : 0;
        parse(data + off, size - off, &r->routes);
        r->routes.sysctls_known = size > 0 && (data[0] & 1);
        r->routes.all = (struct if_sysctls){ size > 1 ? data[1] % 3 : 0, size > 2 ? data[2] % 3 : 0,
                                             size > 3 ? data[3] % 3 : 0, 0 };
        r->routes.dev = r->routes.all;
    }
    check_routes(&inv, &pol, &fs);
    findings_done(&fs);
    inventory_done(&inv);
    policy_done(&pol);
    return 0;
}
