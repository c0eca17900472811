/* SPDX-License-Identifier: ISC */
/* NCCL's GID selection (ncclIbGetGidIndex / ncclUpdateGidIndex / ncclIbRoceGetVersionNum
 * in src/transport/net_ib.cc, NCCL 2.21 to 2.26+), replayed step by step on the inventory:
 * RoCE starts at index 0, then offers every later index as a candidate; InfiniBand takes
 * index 0 or the routable FLID index. */
#include "config.h"

#include <arpa/inet.h>
#include <string.h>

#include "nccl_gid.h"

/* NCCL_IB_ROUTABLE_FLID_GID_INDEX's default. */
#define NCCL_ROUTABLE_FLID_GID_INDEX 1

static bool valid_gid(const uint8_t raw[16])
{
    return !gid_is_zero(raw) && !gid_is_link_local(raw);
}

/* NCCL_IB_ADDR_RANGE: an IPv4 range matches the last 32 bits of the GID. A range NCCL
 * cannot parse for the family (envIbAddrRange: another family's address) is ignored:
 * every GID matches. */
static bool in_range(const struct cidr *range, int family, const uint8_t raw[16])
{
    if (!range || !range->set || family != range->family)
        return true;
    return cidr_contains(range, family, family == AF_INET ? raw + 12 : raw);
}

/* NCCL reads the RoCE version from gid_attrs/types; 0 when it reads none. */
static int roce_version(const struct gid_entry *g)
{
    return g->type == GID_TYPE_ROCE_V2 ? 2 : g->type == GID_TYPE_IB_ROCE_V1 ? 1 : 0;
}

/* Does ncclIbRoceGetVersionNum return an error on this entry's types file: open() fails
 * (no file) in every version, read() fails (EINVAL) in 2.21 to 2.25. */
static bool type_read_fails(const struct gid_entry *g, enum nccl_era era)
{
    return g->type == GID_TYPE_MISSING || (era == NCCL_2_21 && g->type == GID_TYPE_UNREADABLE);
}

/* One replay. With ERA, it stops at the first types file NCCL fails on (*failed_at);
 * without (NULL), it takes such a file as one of no version and goes on. */
static int replay(const struct rail *r, int family, uint32_t want_version,
                  const struct cidr *range, const enum nccl_era *era, int *failed_at)
{
    *failed_at = -1;
    if (r->n_gids == 0)
        return -1;
    uint32_t pick = 0;
    for (uint32_t cand = 1; cand < r->n_gids; cand++) {
        const struct gid_entry *cur = &r->gids[pick], *c = &r->gids[cand];
        int cur_fam = gid_family(cur->raw), cand_fam = gid_family(c->raw);
        bool match = in_range(range, family, c->raw);

        if (cand_fam != cur_fam && cand_fam == family && match) {
            pick = cand;        /* no types file read */
            continue;
        }
        if (cand_fam != family || !valid_gid(c->raw) || !match)
            continue;
        /* NCCL reads the current pick's types file, then the candidate's. */
        if (era && (type_read_fails(cur, *era) || type_read_fails(c, *era))) {
            *failed_at = (int)(type_read_fails(cur, *era) ? pick : cand);
            return (int)pick;
        }
        if ((roce_version(cur) != roce_version(c) || !valid_gid(cur->raw)) &&
            roce_version(c) == (int)want_version)
            pick = cand;
    }
    return (int)pick;
}

int nccl_replay_gid_index(const struct rail *r, int family, uint32_t want_version,
                          const struct cidr *range)
{
    int failed_at;
    return replay(r, family, want_version, range, NULL, &failed_at);
}

int nccl_replay_failure(const struct rail *r, int family, uint32_t want_version,
                        const struct cidr *range, enum nccl_era era)
{
    int failed_at;
    (void)replay(r, family, want_version, range, &era, &failed_at);
    return failed_at;
}

int nccl_selection_fails_at(const struct rail *r, int family, uint32_t want_version,
                            const struct cidr *range, bool *ret_defaults)
{
    int at = nccl_replay_failure(r, AF_INET, 2, NULL, NCCL_2_26);
    *ret_defaults = at >= 0;
    return at >= 0 ? at : nccl_replay_failure(r, family, want_version, range, NCCL_2_26);
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
    if (g->type == GID_TYPE_MISSING)
        return "missing";
    if (g->type == GID_TYPE_UNREADABLE || g->type == GID_TYPE_OTHER)
        return "unreadable";
    if (roce_version(g) != (int)want_version)
        return "version";
    return NULL;
}

/* ncclIbExtractFlid: the 16 bits at byte 4 of the GID, in network order. */
static uint16_t flid(const uint8_t raw[16])
{
    return (uint16_t)(raw[4] << 8 | raw[5]);
}

int nccl_ib_gid_index(const struct rail *r)
{
    if (r->n_gids == 0)
        return -1;
    if (NCCL_ROUTABLE_FLID_GID_INDEX < r->n_gids &&
        flid(r->gids[NCCL_ROUTABLE_FLID_GID_INDEX].raw) != 0)
        return NCCL_ROUTABLE_FLID_GID_INDEX;
    return 0;
}

const char *nccl_ib_skip_reason(const struct rail *r, uint32_t i)
{
    if ((int)i == nccl_ib_gid_index(r))
        return NULL;
    return i == NCCL_ROUTABLE_FLID_GID_INDEX ? "no-flid" : "infiniband";
}

int rail_gid_index(const struct rail *r, const struct policy *p)
{
    if (p->rails.roce.gid_index != POLICY_GID_INDEX_AUTO)
        return p->rails.roce.gid_index;
    return nccl_replay_gid_index(r, policy_roce_family(p), p->rails.roce.version,
                                 &p->rails.roce.subnet);
}
