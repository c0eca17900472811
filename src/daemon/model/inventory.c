/* SPDX-License-Identifier: ISC */
/* The inventory model: its lifetime, rails and notes. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "inventory.h"
#include "macro.h"
#include "strutil.h"

void inventory_done(struct inventory *inv)
{
    for (size_t i = 0; i < inv->n_rails; i++) {
        free(inv->rails[i].gids);
        counter_sample_done(&inv->rails[i].counters);
        rail_routes_done(&inv->rails[i].routes);
    }
    free(inv->rails);
    free(inv->gpus);
    free(inv->bridges);
    memset(inv, 0, sizeof(*inv));
}

const struct pci_bridge *inventory_find_bridge(const struct inventory *inv, const char *addr)
{
    for (size_t i = 0; i < inv->n_bridges; i++)
        if (streq(inv->bridges[i].addr, addr))
            return &inv->bridges[i];
    return NULL;
}

struct rail *inventory_add_rail(struct inventory *inv, const char *device, uint32_t port)
{
    if (GROW_ARRAY(inv->rails, inv->cap_rails, inv->n_rails + 1, INVENTORY_MAX_RAILS) < 0)
        return NULL;
    struct rail *r = &inv->rails[inv->n_rails++];
    memset(r, 0, sizeof(*r));
    strscpy(r->device, device, sizeof(r->device));
    r->port = port;
    snprintf(r->name, sizeof(r->name), "%s/%u", device, port);
    r->numa_node = -1;
    r->netdev.carrier = -1;
    qos_state_init(&r->qos);
    cc_state_init(&r->cc);
    return r;
}

void inventory_note(struct inventory *inv, const char *fmt, ...)
{
    if (inv->n_notes >= ARRAY_SIZE(inv->notes))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(inv->notes[inv->n_notes++], sizeof(inv->notes[0]), fmt, ap);
    va_end(ap);
}

bool rail_is_iwarp(const struct rail *r)
{
    return r->node_type == RAIL_NODE_TYPE_RNIC;
}

bool rail_is_roce(const struct rail *r)
{
    return streq(r->link_layer, "Ethernet") && !rail_is_iwarp(r);
}

const char *rail_no_pci_why(const struct rail *r)
{
    bool software = streq(r->driver, "rdma_rxe") || streq(r->driver, "siw") ||
                    strncmp(r->device, "rxe", 3) == 0 || strncmp(r->device, "siw", 3) == 0;
    return software ? "not a PCI function (a software device)" : "no PCI device link in this tree";
}
