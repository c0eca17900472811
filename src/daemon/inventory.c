/* SPDX-License-Identifier: ISC */
/* The inventory model: its lifetime, rails and notes. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inventory.h"
#include "macro.h"
#include "strutil.h"

void inventory_done(struct inventory *inv)
{
    for (size_t i = 0; i < inv->n_rails; i++) {
        free(inv->rails[i].gids);
        counter_sample_done(&inv->rails[i].counters);
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
    if (inv->n_rails == inv->cap_rails) {
        /* A rail is a few KiB: growing by one copied every rail before it each time. */
        size_t cap = inv->cap_rails ? inv->cap_rails * 2 : 8;
        struct rail *n = reallocarray(inv->rails, cap, sizeof(*n));
        if (!n)
            return NULL;
        inv->rails = n;
        inv->cap_rails = cap;
    }
    struct rail *r = &inv->rails[inv->n_rails++];
    memset(r, 0, sizeof(*r));
    strscpy(r->device, device, sizeof(r->device));
    r->port = port;
    snprintf(r->name, sizeof(r->name), "%s/%u", device, port);
    r->numa_node = -1;
    r->netdev.carrier = -1;
    qos_state_init(&r->qos);
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
