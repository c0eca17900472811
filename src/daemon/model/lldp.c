/* SPDX-License-Identifier: ISC */
/* Naming an LLDP neighbour's switch and port (model/lldp.h). */
#include "config.h"

#include <string.h>

#include "lldp.h"
#include "macro.h"

const struct lldp_neighbor *lldp_current(const struct rail_lldp *l)
{
    const struct lldp_neighbor *best = NULL;
    for (size_t i = 0; l->known && i < l->n && i < LLDP_MAX_NEIGHBORS; i++)
        if (!best || l->nb[i].age_s < best->age_s)
            best = &l->nb[i];
    return best;
}

const char *lldp_switch_name(const struct lldp_neighbor *n)
{
    return n->sysname[0] ? n->sysname : n->chassis_id;
}

const char *lldp_port_name(const struct lldp_neighbor *n)
{
    if (streq(n->port_subtype, "mac") && n->port_descr[0])
        return n->port_descr;
    return n->port_id[0] ? n->port_id : n->port_descr;
}

bool lldp_has_vlan(const struct lldp_neighbor *n, uint16_t vid)
{
    if (n->pvid == vid)
        return true;
    for (size_t i = 0; i < n->n_vlans && i < LLDP_MAX_VLANS; i++)
        if (n->vlans[i] == vid)
            return true;
    return false;
}
