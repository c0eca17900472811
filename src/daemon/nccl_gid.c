/* SPDX-License-Identifier: ISC */
/* NCCL's automatic RoCE GID selection (ncclIbGetGidIndex / ncclUpdateGidIndex in
 * src/transport/net_ib.cc, NCCL 2.26+), replayed step by step on the inventory:
 * start at index 0, then offer every later index as a candidate. */
#include "config.h"

#include <arpa/inet.h>
#include <string.h>

#include "nccl_gid.h"

static bool valid_gid(const uint8_t raw[16])
{
    return !gid_is_zero(raw) && !gid_is_link_local(raw);
}

/* NCCL_IB_ADDR_RANGE: an IPv4 range matches the last 32 bits of the GID. */
static bool in_range(const struct cidr *range, int family, const uint8_t raw[16])
{
    if (!range || !range->set)
        return true;
    if (family != range->family)
        return false;
    return cidr_contains(range, family, family == AF_INET ? raw + 12 : raw);
}

/* NCCL reads the RoCE version from gid_attrs/types; 0 when that cannot be read. */
static int roce_version(const struct gid_entry *g)
{
    return g->type == GID_TYPE_ROCE_V2 ? 2 : g->type == GID_TYPE_IB_ROCE_V1 ? 1 : 0;
}

int nccl_replay_gid_index(const struct rail *r, int family, uint32_t want_version,
                          const struct cidr *range)
{
    if (r->n_gids == 0)
        return -1;
    uint32_t pick = 0;
    for (uint32_t cand = 1; cand < r->n_gids; cand++) {
        const struct gid_entry *cur = &r->gids[pick], *c = &r->gids[cand];
        int cur_fam = gid_family(cur->raw), cand_fam = gid_family(c->raw);
        bool match = in_range(range, family, c->raw);

        if (cand_fam != cur_fam && cand_fam == family && match) {
            pick = cand;
            continue;
        }
        if (cand_fam != family || !valid_gid(c->raw) || !match)
            continue;
        /* An entry whose type cannot be read is skipped (NCCL returns early on EINVAL). */
        if (c->type == GID_TYPE_UNREADABLE || c->type == GID_TYPE_OTHER)
            continue;
        if ((roce_version(cur) != roce_version(c) || !valid_gid(cur->raw)) &&
            roce_version(c) == (int)want_version)
            pick = cand;
    }
    return (int)pick;
}

const char *nccl_gid_skip_reason(const struct gid_entry *g, int family, uint32_t want_version,
                                 const struct cidr *range)
{
    if (gid_is_zero(g->raw))
        return "empty";
    if (gid_is_link_local(g->raw))
        return "link-local";
    if (gid_family(g->raw) != family)
        return "family";
    if (!in_range(range, family, g->raw))
        return "subnet";
    if (g->type == GID_TYPE_UNREADABLE || g->type == GID_TYPE_OTHER)
        return "unreadable";
    if (roce_version(g) != (int)want_version)
        return "version";
    return NULL;
}

int rail_gid_index(const struct rail *r, const struct policy *p)
{
    if (p->rails.roce.gid_index != POLICY_GID_INDEX_AUTO)
        return p->rails.roce.gid_index;
    return nccl_replay_gid_index(r, policy_roce_family(p), p->rails.roce.version,
                                 &p->rails.roce.subnet);
}
