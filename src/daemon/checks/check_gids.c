/* SPDX-License-Identifier: ISC */
/* The GID checks: a RoCE GID of the policy's version and family, in the subnet, at one
 * index across rails, and the same one NCCL's own selection would pick. */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "macro.h"
#include "nccl_gid.h"

static bool is_roce(const struct rail *r)
{
    return streq(r->link_layer, "Ethernet");
}

static enum gid_type wanted_type(const struct policy *p)
{
    return p->rails.roce.version == 2 ? GID_TYPE_ROCE_V2 : GID_TYPE_IB_ROCE_V1;
}

static const char *family_name(const struct policy *p)
{
    return p->rails.roce.address_family == ADDR_FAMILY_IPV4 ? "IPv4" : "IPv6";
}

/* Is the entry at idx what the policy asks for: its RoCE version, a valid GID, its family? */
static bool entry_good(const struct rail *r, int idx, const struct policy *p)
{
    if (idx < 0 || (uint32_t)idx >= r->n_gids)
        return false;
    const struct gid_entry *g = &r->gids[idx];
    return g->type == wanted_type(p) && !gid_is_zero(g->raw) && !gid_is_link_local(g->raw) &&
           gid_family(g->raw) == policy_roce_family(p);
}

static void describe(const struct rail *r, int idx, char *buf, size_t len)
{
    char ip[64];
    if (idx < 0 || (uint32_t)idx >= r->n_gids) {
        snprintf(buf, len, "index %d: none", idx);
        return;
    }
    const struct gid_entry *g = &r->gids[idx];
    gid_format(g->raw, true, ip, sizeof(ip));
    snprintf(buf, len, "index %d: %s %s", idx, gid_type_to_string(g->type), ip);
}

static void check_version_and_family(const struct rail *r, int idx, const struct policy *p,
                                     struct findings *out)
{
    char want[64], got[96];
    bool any_version = false, any_family = false;
    for (uint32_t i = 0; i < r->n_gids; i++) {
        const struct gid_entry *g = &r->gids[i];
        if (g->type != wanted_type(p) || gid_is_zero(g->raw))
            continue;
        any_version = true;
        any_family |= !gid_is_link_local(g->raw) && gid_family(g->raw) == policy_roce_family(p);
    }
    snprintf(want, sizeof(want), "RoCE v%u", p->rails.roce.version);
    describe(r, idx, got, sizeof(got));
    if (!any_version)
        findings_add(out, "gid.roce_v2", SEVERITY_ERROR, r->name, want, "none",
                     "RoCE GIDs appear when the netdev has addresses; check 'rdma link show' "
                     "and the netdev's addresses", "no RoCE v%u GID in the table",
                     p->rails.roce.version);
    else
        findings_add(out, "gid.roce_v2", SEVERITY_OK, r->name, want, want, NULL,
                     "RoCE v%u GIDs present", p->rails.roce.version);

    snprintf(want, sizeof(want), "RoCE v%u %s", p->rails.roce.version, family_name(p));
    if (!any_family)
        findings_add(out, "gid.family", SEVERITY_ERROR, r->name, want, "none",
                     "add an address of that family to the rail's netdev",
                     "no RoCE v%u GID with an %s address", p->rails.roce.version, family_name(p));
    else if (!entry_good(r, idx, p))
        findings_add(out, "gid.family", SEVERITY_ERROR, r->name, want, got,
                     "rails.roce.gid_index names an entry of another type or family",
                     "the policy's GID %s is not %s", got, want);
    else
        findings_add(out, "gid.family", SEVERITY_OK, r->name, want, got, NULL, "GID %s", got);
}

static void check_subnet(const struct rail *r, int idx, const struct policy *p,
                         struct findings *out)
{
    char want[64], got[96];
    const struct cidr *c = &p->rails.roce.subnet;
    if (!c->set) {
        findings_add(out, "gid.subnet", SEVERITY_OK, r->name, NULL, NULL, NULL,
                     "no subnet in the policy");
        return;
    }
    cidr_format(c, want, sizeof(want));
    if (!entry_good(r, idx, p)) {
        findings_add(out, "gid.subnet", SEVERITY_UNKNOWN, r->name, want, NULL, NULL,
                     "no usable GID to compare with the subnet");
        return;
    }
    const uint8_t *raw = r->gids[idx].raw;
    int fam = gid_family(raw);
    gid_format(raw, true, got, sizeof(got));
    if (cidr_contains(c, fam, fam == AF_INET ? raw + 12 : raw))
        findings_add(out, "gid.subnet", SEVERITY_OK, r->name, want, got, NULL, "%s is in %s", got, want);
    else
        findings_add(out, "gid.subnet", SEVERITY_ERROR, r->name, want, got,
                     "the rail's address is on the wrong network: check its netdev's address",
                     "%s is outside %s", got, want);
}

static void check_nccl_pick(const struct rail *r, int idx, const struct policy *p,
                            struct findings *out)
{
    char want[96], got[96];
    /* What a job gets with no NCCL_IB_* variables: NCCL's defaults, IPv4 and RoCE v2. */
    int nccl = nccl_replay_gid_index(r, AF_INET, 2, NULL);
    describe(r, idx, want, sizeof(want));
    describe(r, nccl, got, sizeof(got));
    if (nccl == idx)
        findings_add(out, "gid.nccl", SEVERITY_OK, r->name, want, got, NULL,
                     "NCCL's automatic selection picks %s", got);
    else
        findings_add(out, "gid.nccl", SEVERITY_WARNING, r->name, want, got,
                     "jobs must use fabtune's nccl.env (NCCL_IB_GID_INDEX) on this node",
                     "NCCL's automatic selection would pick %s", got);
}

/* NCCL 2.21 to 2.25 read the RoCE type of every candidate of the wanted family in range
 * (ncclUpdateGidIndex's ncclIbRoceGetVersionNum) and fail the whole selection on one that
 * cannot be read; 2.26+ skip it, which fabtune replays. Judged, as gid.nccl is, for a job
 * started without NCCL_IB_* variables (IPv4, RoCE v2, any range); one that sources
 * fabtune's nccl.env sets NCCL_IB_GID_INDEX and runs no selection. */
static void check_nccl_legacy(const struct rail *r, struct findings *out)
{
    for (uint32_t i = 0; i < r->n_gids; i++) {
        const char *why = nccl_gid_skip_reason(&r->gids[i], AF_INET, 2, NULL);
        if (!why || !streq(why, "unreadable"))
            continue;
        char got[96];
        describe(r, (int)i, got, sizeof(got));
        findings_add(out, "gid.nccl_legacy", SEVERITY_WARNING, r->name, "readable GID types", got,
                     "use NCCL 2.26 or later, or source fabtune's nccl.env (NCCL_IB_GID_INDEX "
                     "set: no selection runs)",
                     "GID index %u's RoCE type cannot be read (gid_attrs/types/%u): NCCL 2.21 to "
                     "2.25 fail their GID selection on it, 2.26+ skip it", i, i);
        return;
    }
    findings_add(out, "gid.nccl_legacy", SEVERITY_OK, r->name, NULL, NULL, NULL,
                 "every GID NCCL's selection reads has a readable type");
}

static void check_consistent(const struct inventory *inv, const struct policy *p,
                             struct findings *out)
{
    int first = -2;
    bool same = true;
    char list[512] = "";
    size_t len = 0, n = 0;
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        if (!is_roce(r))
            continue;
        int idx = r->gid_index;
        same &= first == -2 || idx == first;
        if (first == -2)
            first = idx;
        n++;
        len += (size_t)snprintf(list + len, len < sizeof(list) ? sizeof(list) - len : 0,
                                "%s%s=%d", len ? " " : "", r->name, idx);
        if (len >= sizeof(list))
            len = sizeof(list) - 1;
    }
    if (n == 0)
        return;
    char got[16];
    snprintf(got, sizeof(got), "%d", first);
    if (same)
        findings_add(out, "gid.consistent", SEVERITY_OK, NULL, got, got, NULL,
                     "GID index %d on every RoCE rail", first);
    else
        findings_add(out, "gid.consistent", SEVERITY_WARNING, NULL, "one index", list,
                     "NCCL_IB_GID_INDEX is one value for all rails: configure the rails' "
                     "addresses alike so their GIDs land at the same index",
                     "the GID index differs across rails: %s", list);
}

void check_gids(const struct inventory *inv, const struct policy *p, struct findings *out)
{
    for (size_t i = 0; i < inv->n_rails; i++) {
        const struct rail *r = &inv->rails[i];
        if (!is_roce(r))
            continue;   /* InfiniBand is addressed by LID; its GIDs need no checking here */
        int idx = r->gid_index;
        check_version_and_family(r, idx, p, out);
        check_subnet(r, idx, p, out);
        check_nccl_pick(r, idx, p, out);
        check_nccl_legacy(r, out);
    }
    check_consistent(inv, p, out);
}
