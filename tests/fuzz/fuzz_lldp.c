/* SPDX-License-Identifier: ISC */
/* libFuzzer target for the LLDP capture's parser (sources/lldp_parse.c, the text of
 * snapshot/lldp_capture.h that a snapshot keeps in fabtune/net/IF/lldp): any bytes are
 * parsed as two rails' neighbours (the whole input, and its second half), and what comes
 * out is judged by the fabric.* checks under a policy with patterns, distinct switches and
 * a VLAN. Never a crash, an out-of-bounds read or undefined behaviour; the tables stay
 * within their bounds, every string is terminated; a refusal says why. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "lldp_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse(const uint8_t *data, size_t len, struct rail_lldp *l)
{
    char *buf = malloc(len ? len : 1);     /* exact size: ASan sees a read past the end */
    if (!buf)
        return;
    memcpy(buf, data, len);
    int err = lldp_parse(buf, len, l);
    if (err < 0 && (!l->why[0] || l->known))
        abort();
    if (l->n > LLDP_MAX_NEIGHBORS)
        abort();
    for (size_t i = 0; i < l->n; i++) {
        const struct lldp_neighbor *n = &l->nb[i];
        if (n->n_vlans > LLDP_MAX_VLANS || n->n_mgmt > LLDP_MAX_MGMT || n->pvid > 4095 ||
            n->mfs > 65535 || !memchr(n->sysname, 0, sizeof(n->sysname)) ||
            !memchr(n->sysdescr, 0, sizeof(n->sysdescr)) ||
            !memchr(n->port_descr, 0, sizeof(n->port_descr)))
            abort();
    }
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct inventory inv = { 0 };
    struct policy pol;
    struct findings fs = { 0 };
    policy_init_defaults(&pol);
    pol.rails.topology = TOPOLOGY_DISTINCT_SWITCHES;
    pol.rails.neighbors.switch_pattern = strdup("leaf-r{index}-*");
    pol.rails.neighbors.port_pattern = strdup("swp{index}{index}");
    pol.rails.neighbors.vlan = 100;
    for (int i = 0; i < 2; i++) {
        struct rail *r = inventory_add_rail(&inv, i ? "mlx5_1" : "mlx5_0", 1);
        if (!r)
            break;
        strcpy(r->name, i ? "mlx5_1/1" : "mlx5_0/1");
        strcpy(r->driver, "mlx5_core");
        strcpy(r->link_layer, "Ethernet");
        strcpy(r->netdev.name, i ? "eth1" : "eth0");
        strcpy(r->netdev.operstate, "up");
        r->netdev.present = true;
        r->netdev.carrier = 1;
        r->netdev.mtu = 9000;
        size_t off = i ? size / 2 : 0;
        parse(data + off, size - off, &r->lldp);
    }
    check_neighbors(&inv, NULL, &pol, &fs);
    findings_done(&fs);
    inventory_done(&inv);
    policy_done(&pol);
    return 0;
}
