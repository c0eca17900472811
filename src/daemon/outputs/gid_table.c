/* SPDX-License-Identifier: ISC */
/* The GID table with NCCL's reasons, from a report's inventory. */
#include "config.h"

#include <arpa/inet.h>

#include "gid_table.h"
#include "nccl_gid.h"

/* The index NCCL takes: on RoCE the one the policy means (rail->gid_index), on
 * InfiniBand index 0 or the routable FLID index; -1 none (iWARP: NCCL has no pick). */
static int rail_pick(const struct rail *rl)
{
    if (rail_is_iwarp(rl))
        return -1;
    return rail_is_roce(rl) ? rl->gid_index : nccl_ib_gid_index(rl);
}

/* Where NCCL's selection fails on this rail (gid.nccl's error), or -1. */
static int rail_fails_at(const struct report *r, const struct rail *rl)
{
    bool defaults;
    return rail_is_roce(rl) ? nccl_selection_fails_at(rl, r->gid_family, r->gid_version,
                                                      &r->gid_range, &defaults) : -1;
}

/* Entry I's word in the NCCL column: "pick"; "fails" where NCCL's selection fails (and no
 * entry is picked); why NCCL skips it; NULL where it could take it but does not. */
static const char *entry_word(const struct report *r, const struct rail *rl, uint32_t i, int fails)
{
    if (fails >= 0)
        return (int)i == fails ? "fails" : (int)i == rail_pick(rl) ? NULL
               : nccl_gid_skip_reason(&rl->gids[i], r->gid_family, r->gid_version, &r->gid_range);
    return (int)i == rail_pick(rl) ? "pick"
           : rail_is_iwarp(rl) ? "iwarp"
           : !rail_is_roce(rl) ? nccl_ib_skip_reason(rl, i)
           : nccl_gid_skip_reason(&rl->gids[i], r->gid_family, r->gid_version, &r->gid_range);
}

static json_object *entry_json(const struct report *r, const struct rail *rl, uint32_t i, int fails)
{
    const struct gid_entry *g = &rl->gids[i];
    char text[64], ip[48];
    json_object *e = json_object_new_object();
    /* As sysfs and show_gids print it: eight groups of four hex digits. */
    size_t n = 0;
    for (int w = 0; w < 8; w++)
        n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%02x%02x", w ? ":" : "",
                              g->raw[2 * w], g->raw[2 * w + 1]);
    json_object_object_add(e, "index", json_object_new_int((int)i));
    json_object_object_add(e, "gid", json_object_new_string(text));
    if (gid_is_ipv4_mapped(g->raw)) {
        gid_format(g->raw, true, ip, sizeof(ip));
        json_object_object_add(e, "ipv4", json_object_new_string(ip));
    } else {
        json_object_object_add(e, "ipv4", NULL);
    }
    json_object_object_add(e, "version", g->type == GID_TYPE_ROCE_V2 ? json_object_new_string("v2") :
                           g->type == GID_TYPE_IB_ROCE_V1 ? json_object_new_string("v1") : NULL);
    json_object_object_add(e, "netdev", g->ndev[0] ? json_object_new_string(g->ndev) : NULL);
    const char *why = entry_word(r, rl, i, fails);
    json_object_object_add(e, "nccl", why ? json_object_new_string(why) : NULL);
    return e;
}

json_object *gid_table_json(const struct report *r)
{
    json_object *rails = json_object_new_array();
    for (size_t k = 0; k < r->inventory.n_rails; k++) {
        const struct rail *rl = &r->inventory.rails[k];
        json_object *o = json_object_new_object(), *entries = json_object_new_array();
        int empty = 0, fails = rail_fails_at(r, rl);
        json_object_object_add(o, "device", json_object_new_string(rl->device));
        json_object_object_add(o, "port", json_object_new_int((int)rl->port));
        json_object_object_add(o, "netdev", rl->netdev.present ? json_object_new_string(rl->netdev.name) : NULL);
        json_object_object_add(o, "link_layer", json_object_new_string(rl->link_layer));
        /* Where the selection fails NCCL picks nothing: the job's init returns an error. */
        json_object_object_add(o, "pick", fails >= 0 ? NULL : json_object_new_int(rail_pick(rl)));
        json_object_object_add(o, "nccl_fails", json_object_new_boolean(fails >= 0));
        json_object_object_add(o, "gid_table", json_object_new_boolean(rl->has_gid_table));
        json_object_object_add(o, "fails_at", fails >= 0 ? json_object_new_int(fails) : NULL);
        for (uint32_t i = 0; i < rl->n_gids; i++) {
            bool zero = gid_is_zero(rl->gids[i].raw);
            empty += zero;
            if (!zero || (int)i == rail_pick(rl))
                json_object_array_add(entries, entry_json(r, rl, i, fails));
        }
        json_object_object_add(o, "empty", json_object_new_int(empty));
        json_object_object_add(o, "entries", entries);
        json_object_array_add(rails, o);
    }
    return rails;
}
